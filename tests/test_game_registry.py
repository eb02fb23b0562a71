"""The game registry and the layering it promises: one place says what a game is,
generic code never branches on a game's name, the rules load without PettingZoo."""

import pathlib
import re
import subprocess
import sys

import numpy as np
import pytest

from sly_scout_env import ENV_IDS
from sly_scout_env.games import GAMES, all_games, get_game

ROOT = pathlib.Path(__file__).resolve().parents[1]
# Where a game's name may be compared: its own folder and the registry.
GAME_PLACES = {f"sly_scout_env/{g}/" for g in GAMES} | {"sly_scout_env/games.py"}
# A comparison with a game name, a membership test in a literal tuple of game names, or a
# dict keyed by game names (``{"scout": ..., "sly": ...}``: a per-game table outside the
# game's folder, which the game registry should hold instead).
NAME = "|".join(GAMES)
BRANCH = re.compile(rf"""(==|!=)\s*["']({NAME})["']|["']({NAME})["']\s*(==|!=)|in\s*[(\[{{]\s*["']({NAME})["']"""
                    rf"""|["']({NAME})["']\s*:(?!\w)""")


def branches_on_game_names(text: str) -> list[int]:
    return [i for i, line in enumerate(text.splitlines(), 1) if BRANCH.search(line)]


def test_the_scanner_finds_branches():
    assert branches_on_game_names('if game == "scout":\n    pass\nx = 1\nif "sly" != g: y\n'
                                  'z in ("scout", "sly")') == [1, 4, 5]
    assert branches_on_game_names('get_game("scout")\nname = "sly"') == []
    assert branches_on_game_names('UNIT = {"scout": "hand",\n "sly": "game"}\nx = {"game": "sly"}') == [1, 2]
    assert branches_on_game_names('spec = "sly:2,scout:4"') == []


def test_no_generic_module_branches_on_a_game_name():
    files = subprocess.run(["git", "ls-files", "*.py"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    hits = []
    for rel in files.split():
        if not (rel.startswith(("sly_scout_env/", "agents/", "benchmarks/"))):
            continue
        if any(rel.startswith(p) for p in GAME_PLACES):
            continue
        text = (ROOT / rel).read_text(encoding="utf-8")
        hits += [f"{rel}:{n}" for n in branches_on_game_names(text)]
    assert not hits, ("generic code branches on a game's name (look the game up in sly_scout_env.games): "
                      + ", ".join(hits))


def test_the_rules_import_without_pettingzoo_or_gymnasium():
    code = ("import sys\n"
            "sys.modules['pettingzoo'] = None\n"  # None in sys.modules makes `import pettingzoo` fail
            "sys.modules['gymnasium'] = None\n"
            + "".join(f"import sly_scout_env.{g}.rules\n" for g in GAMES)
            + "assert 'pettingzoo' not in sys.modules or sys.modules['pettingzoo'] is None\n"
            "print('ok')\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-2000:]


def test_every_spec_is_complete_and_consistent():
    assert tuple(s.name for s in all_games()) == GAMES
    for spec in all_games():
        assert spec.default_players in spec.player_counts
        assert spec.unit in ("hand", "game")
        assert f"sly_scout_env/{spec.name}-v0" in ENV_IDS
        env = spec.raw_env(num_players=spec.default_players)
        # The env takes exactly the registry's options (plus num_players) and reports them.
        assert set(env.options) == {"num_players", *spec.option_names}
        for option in spec.options:
            if option.choices is not None:
                for value in option.choices:
                    assert option.parse(str(value)) == value
        # simulate takes exactly the options the registry marks for it.
        batch = spec.module("batch")
        assert set(batch.SIM_OPTIONS) == {o.name for o in spec.options if o.simulate}
        assert len(spec.end_reasons) >= 2


def test_unknown_game_is_named_with_the_known_ones():
    with pytest.raises(ValueError, match=r"game='chess' is not allowed; allowed values: 'scout', 'sly'"):
        get_game("chess")
    with pytest.raises(ValueError, match=r"num_players=6 is not allowed for sly; allowed values: 2, 3, 4"):
        get_game("sly").check_players(6)


@pytest.mark.parametrize("game", GAMES)
def test_state_dict_before_reset_is_refused_alike_in_every_game(game):
    env = get_game(game).raw_env()
    with pytest.raises(RuntimeError, match=r"call reset\(\) or from_state_dict\(\) before state_dict\(\)"):
        env.state_dict()
    env.reset(seed=1)
    d = env.state_dict()
    fresh = get_game(game).raw_env()
    fresh.from_state_dict(d)  # a loaded position counts as a start
    assert fresh.state_dict() == d


@pytest.mark.parametrize("game", GAMES)
def test_state_row_is_a_copy_of_the_position_for_the_search(game):
    env = get_game(game).raw_env()
    with pytest.raises(RuntimeError, match=r"call reset\(\) or from_state_dict\(\) before state_row\(\)"):
        env.state_row()
    env.reset(seed=3)
    env.step(int(np.flatnonzero(env.legal_action_mask())[0]))
    row = env.state_row()
    before = env.state_dict()
    assert row.dtype.name == "int64" and np.array_equal(row, env._state)  # (the engine's row, env._state)
    row[:] = 0  # a copy: the env's position is untouched
    assert env.state_dict() == before and np.array_equal(env.state_row(), env._state)
