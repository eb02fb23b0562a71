"""``sly_scout_env.testing.check_game``: every registered game passes it, and it fails, naming the
game, the player count and the check, when a part of a game breaks the contract."""

from __future__ import annotations

import dataclasses
import subprocess
import sys

import numpy as np
import pytest

from sly_scout_env import games as registry
from sly_scout_env.games import GAMES, Option, get_game
from sly_scout_env.testing import (
    check_action_validation,
    check_contract,
    check_determinism,
    check_game,
    check_options,
    check_pettingzoo,
    check_state_dict,
    check_vector_env,
)


@pytest.mark.parametrize("game, players", [(g, n) for g in GAMES for n in get_game(g).player_counts])
def test_check_game(game, players):
    check_game(game, players)


def _raw_env_class(game):
    return type(get_game(game).raw_env())


@pytest.mark.parametrize("game", GAMES)
def test_a_missing_contract_name_fails_naming_the_module(game, monkeypatch):
    text = get_game(game).module("text")
    monkeypatch.delattr(text, "narrate")
    with pytest.raises(AssertionError, match=rf"check_game\('{game}'\): module contract: .*text lacks \['narrate'\]"):
        check_contract(game)


@pytest.mark.parametrize("game", GAMES)
def test_an_env_that_takes_illegal_actions_fails(game, monkeypatch):
    monkeypatch.setattr(_raw_env_class(game), "check_action", lambda self, action: 0)
    n = get_game(game).player_counts[0]
    with pytest.raises(AssertionError, match=rf"check_game\('{game}', players={n}\): action validation: "
                                             r".*step\(.*\) was accepted"):
        check_action_validation(game, n)


@pytest.mark.parametrize("game", GAMES)
def test_a_reset_that_ignores_the_seed_fails(game, monkeypatch):
    cls = _raw_env_class(game)
    real = cls.reset
    monkeypatch.setattr(cls, "reset", lambda self, seed=None, options=None: real(self, seed=None))
    # Sly deals no hidden cards: its seed shows only where an option draws (first_player='random').
    with pytest.raises(AssertionError, match=rf"check_game\('{game}', players=\d\): determinism: options .*differs"):
        check_determinism(game)


@pytest.mark.parametrize("game", GAMES)
def test_a_state_dict_that_is_not_plain_json_fails(game, monkeypatch):
    cls = _raw_env_class(game)
    real = cls.state_dict
    monkeypatch.setattr(cls, "state_dict", lambda self: dict(real(self), extra=(1, 2)))
    with pytest.raises(AssertionError, match=rf"check_game\('{game}', players=2\): state dict round trip: "
                                             r"options \{\}, seed 0, move 0: state_dict\(\) is not plain JSON"):
        check_state_dict(game, 2)


@pytest.mark.parametrize("game", GAMES)
def test_a_loader_that_forgets_a_field_fails(game, monkeypatch):
    cls = _raw_env_class(game)
    real = cls._load_state_dict
    monkeypatch.setattr(cls, "_load_state_dict", lambda self, d: real(self, dict(d, current_player=0)))
    with pytest.raises(AssertionError, match=rf"check_game\('{game}', players=2\): state dict round trip: .*"):
        check_state_dict(game, 2)


@pytest.mark.parametrize("game", GAMES)
def test_a_vector_env_seeding_its_rows_otherwise_fails(game, monkeypatch):
    from sly_scout_env import vector

    real = vector.seed_word
    monkeypatch.setattr(vector, "seed_word", lambda seed: real(seed + 1))
    with pytest.raises(AssertionError, match=rf"check_game\('{game}', players=3\): vector env: options \{{\}}, "
                                             r"row 0 \(seed 0\), move 0: the row is not the raw env's state"):
        check_vector_env(game, 3)


@pytest.mark.parametrize("game", GAMES)
def test_a_wrong_observation_space_fails_pettingzoos_api_test(game, monkeypatch):
    from gymnasium import spaces

    cls = _raw_env_class(game)
    real = cls.observation_space

    def wrong(self, agent):
        space = real(self, agent)
        box = space["observation"]
        return spaces.Dict({"observation": spaces.Box(-1.0, 1.0, (box.shape[0] + 1,), np.float32),
                            "action_mask": space["action_mask"]})

    monkeypatch.setattr(cls, "observation_space", wrong)
    with pytest.raises(AssertionError,
                       match=rf"check_game\('{game}', players=2\): PettingZoo: api_test\(env\(\)\) failed"):
        check_pettingzoo(game, 2)


@pytest.mark.parametrize("game", GAMES)
def test_an_option_the_engine_does_not_know_fails(game):
    spec = get_game(game)
    colour = Option("colour", "red", ("red", "blue"), "no such rule")
    wrong = dataclasses.replace(spec, options=spec.options + (colour,))
    with pytest.raises(AssertionError, match=rf"check_game\('{game}'\): options: .*colour="):
        check_options(game, games={game: wrong})


@pytest.mark.parametrize("game", GAMES)
def test_a_game_from_a_registry_of_its_own(game):
    """A game kept out of the package's registry (here: a copy of a game under a new name) is
    checked from the mapping given; the package's registry is as it was afterwards."""
    spec = get_game(game)
    copy = dataclasses.replace(spec, name=f"{game}_copy")
    before = (dict(registry._SPECS), registry.GAMES)
    check_game(copy.name, players=spec.player_counts[:1], games={copy.name: copy})
    check_contract(copy)  # a spec directly
    assert (registry._SPECS, registry.GAMES) == before
    with pytest.raises(ValueError, match="game='nope' is not allowed; allowed values: 'x'"):
        check_game("nope", games={"x": copy})


def test_bad_arguments_are_value_errors():
    with pytest.raises(ValueError, match="game='chess' is not allowed"):
        check_game("chess")
    with pytest.raises(ValueError, match="players=9 is not allowed"):
        check_game(GAMES[0], players=9)
    with pytest.raises(ValueError, match="seed=-1 is not allowed"):
        check_game(GAMES[0], seed=-1)


def test_importing_the_checks_imports_neither_pytest_nor_the_app_layer():
    code = ("import sys, sly_scout_env.testing; "
            "bad = [m for m in sys.modules if m in ('pytest', 'pettingzoo.test', 'numba')"
            " or m.startswith(('sly_scout_env.agents', '_pytest'))]; print(bad)")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "[]"
