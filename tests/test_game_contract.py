"""Both game folders honour the one per-game contract of ``sly_scout_env/contract.py``."""

import inspect

import numpy as np
import pytest

from sly_scout_env.contract import CONTRACT
from sly_scout_env.games import GAMES, get_game


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("role", sorted(CONTRACT))
def test_every_game_module_defines_the_contract_names(game, role):
    module = get_game(game).module(role)
    missing = [name for name in CONTRACT[role] if not hasattr(module, name)]
    assert not missing, f"{module.__name__} lacks {missing}"


def _params(fn):
    fn = getattr(fn, "py_func", fn)  # a Numba dispatcher: its Python function
    return list(inspect.signature(fn).parameters)


@pytest.mark.parametrize("role, name", [
    ("rules", "reset"), ("rules", "legal_actions"), ("rules", "legal_mask"), ("rules", "apply_action"),
    ("observation", "encode_observation"), ("codec", "state_to_dict"),
    ("codec", "dict_to_state"), ("text", "render_text"), ("batch", "reset_rows"), ("batch", "play_rows"),
])
def test_the_contract_functions_have_one_signature(role, name):
    sigs = {game: _params(getattr(get_game(game).module(role), name)) for game in GAMES}
    assert len({tuple(s) for s in sigs.values()}) == 1, sigs


@pytest.mark.parametrize("game", GAMES)
def test_observation_size_is_the_length_the_env_observes(game):
    spec = get_game(game)
    obs = spec.module("observation")
    for n in spec.player_counts:
        env = spec.raw_env(num_players=n)
        env.reset(seed=n)
        row = env.unwrapped._state
        size = obs.observation_size(*_size_args(game, row, spec))
        assert size == env.observation_size == len(env.observe(env.agent_selection)["observation"])
        out = np.full(size, np.nan, dtype=np.float32)
        obs.encode_observation(row, 0, out)
        assert not np.isnan(out).any()  # every entry is written, none past the end


def _size_args(game, row, spec):
    """observation_size's arguments for a row: the player count, then the game's layout options."""
    rules = spec.module("rules")
    n = int(row[rules.NUM_PLAYERS])
    return (n,) if game == "scout" else (n, int(row[rules.HEN_HOUSES]))


@pytest.mark.parametrize("game", GAMES)
def test_new_state_holds_the_options_and_reset_keeps_them(game):
    rules = get_game(game).module("rules")
    opts = rules.parse_options(num_players=2)
    row = rules.new_state(**opts)
    assert row.shape == (rules.ROW_SIZE,) and row[rules.NUM_PLAYERS] == 2
    kept = row.copy()
    rules.reset(row, 123)
    again = rules.new_state(**opts)
    rules.reset(again, 123)
    assert np.array_equal(row, again)  # the deal is a function of the options and the word
    assert row[rules.NUM_PLAYERS] == kept[rules.NUM_PLAYERS]
    assert row[rules.PHASE] != rules.PHASE_GAME_OVER
    scratch = rules.make_scratch()
    mask = np.zeros(rules.MAX_ACTIONS, dtype=np.int8)
    count = rules.legal_mask(row, mask, scratch)
    assert count == mask.sum() == rules.legal_actions(row, scratch) > 0
    assert rules.apply_action(row, int(scratch[0]), scratch) == 0
