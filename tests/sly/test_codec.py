"""Sly state codec: every bad state dict is refused with a ValueError naming the field.

Literal cases for the integers numpy cannot hold (10**20, 2**63, -2**63 - 1) and the
values that are not ints at all, then a fuzz test: real positions, mutated at random.
"""

import copy

import numpy as np
import pytest

from sly_scout_env import sly_v0
from sly_scout_env.sly import codec as C
from sly_scout_env.sly import rules as R

from ..games import assert_refused, random_position
from ..state_dict_fuzz import fuzz, set_at


def position(n, seed, moves, **options):
    return random_position('sly', n, seed, moves, **options)

PLAYERS = (2, 3, 4)
NOT_INTS = (10**20, 2**63, -(2**63) - 1, 2**64, 1.5, 2.0, True, False, "1", None, [], {})


# --- literal cases ---------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def played():
    """A 3-player position with cards on spaces, gobbled, captured and known, its state dict
    and the paths of one int of each kind."""
    for seed in range(100):
        env = sly_v0.raw_env(num_players=3)
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        for _ in range(60):
            if env.terminations[env.agent_selection]:
                break
            d = env.state_dict()
            if all(map(any, (d["gobbled"], d["captured"], d["known_in_hand"], d["spaces"]))):
                kinds = ("gobbled", "captured", "known_in_hand", "spaces")
                first = {k: next(i for i, x in enumerate(d[k]) if x) for k in kinds}
                paths = {
                    "hands": (("hands", 0, 0), ("hands", 2, -1)),
                    "spaces": (("spaces", first["spaces"], "owner"), ("spaces", first["spaces"], "card")),
                    "gobbled": (("gobbled", first["gobbled"], 0, "owner"), ("gobbled", first["gobbled"], 0, "card")),
                    "captured": (("captured", first["captured"], 0),),
                    "known_in_hand": (("known_in_hand", first["known_in_hand"], 0),),
                    "current_player": (("current_player",),),
                    "hen_houses": (("hen_houses",),),
                    "version": (("version",),),
                    "scores": (("scores", 0), ("scores", 2)),
                    "first_player": (("first_player",),),
                }
                return env, d, paths
            env.step(int(rng.choice(np.flatnonzero(env.legal_action_mask()))))
    raise AssertionError("no position with cards in every kind of place")


FIELDS = ("hands", "spaces", "gobbled", "captured", "known_in_hand", "current_player", "hen_houses", "version",
          "scores", "first_player")  # fmt: skip


@pytest.mark.parametrize("field", FIELDS)
@pytest.mark.parametrize("bad", NOT_INTS, ids=repr)
def test_bad_numbers_are_refused(played, field, bad):
    env, good, paths = played
    for path in paths[field]:
        d = copy.deepcopy(good)
        set_at(path, bad)(d)
        assert_refused(env, d, field)


@pytest.mark.parametrize("bad", NOT_INTS, ids=repr)
def test_bool_fields_take_only_bools(played, bad):
    env, good, paths = played
    if isinstance(bad, bool):
        return
    assert_refused(env, dict(good, game_over=bad), "game_over")
    d = copy.deepcopy(good)
    d["spaces"][paths["spaces"][0][1]]["safe"] = bad
    assert_refused(env, d, "spaces")


@pytest.mark.parametrize("n", PLAYERS)
@pytest.mark.parametrize("bad", (10**20, 2**63, -(2**63) - 1))
def test_huge_cards_and_seats_in_every_player_count(n, bad):
    env = position(n, 1, 0)
    d = env.state_dict()
    d["hands"][n - 1][-1] = bad
    assert_refused(env, d, "hands")
    d = env.state_dict()
    d["hands"][0].remove(3)
    d["spaces"][0] = {"owner": bad, "card": 3, "safe": False}
    assert_refused(env, d, "spaces")
    d["spaces"][0] = {"owner": 0, "card": bad, "safe": False}
    assert_refused(env, d, "spaces")
    assert_refused(env, dict(env.state_dict(), current_player=bad), "current_player")


def test_rng_takes_64_bits_signed_or_unsigned(played):
    env, good, _ = played
    cases = ((-(2**63), -(2**63)), (2**64 - 1, -1), (2**63, -(2**63)), (np.int64(7), 7), (np.uint64(2**64 - 1), -1))
    for ok, stored in cases:
        env.from_state_dict(dict(good, rng=ok))
        assert env.state_dict()["rng"] == stored
    for bad in (2**64, -(2**63) - 1, 10**20, 1.5, True, None, "1"):
        assert_refused(env, dict(good, rng=bad), "rng")


def test_numpy_ints_are_ints(played):
    env, good, paths = played
    d = copy.deepcopy(good)
    d["hands"] = [[np.int64(c) for c in h] for h in d["hands"]]
    d["current_player"] = np.uint8(d["current_player"])
    d["scores"] = [np.int32(x) for x in d["scores"]]
    env.from_state_dict(d)
    assert env.state_dict() == good
    for path, bad in ((paths["hands"][0], np.int64(7)), (paths["captured"][0], np.int64(-1))):
        m = copy.deepcopy(good)
        set_at(path, bad)(m)
        assert_refused(env, m, path[0])


def test_not_a_dict_and_wrong_header(played):
    env, good, _ = played
    before = env.state_dict()
    for bad in (None, [], "sly", 5, list(good.items())):
        with pytest.raises(ValueError, match="must be a dict"):
            env.from_state_dict(bad)
        with pytest.raises(ValueError, match="must be a dict"):
            C.dict_to_state(bad, env._state)
    for bad in (10**20, 3.0, True, None, "3"):
        assert_refused(env, dict(good, num_players=bad), "num_players")
    assert env.state_dict() == before
    # The codec itself checks the header too (the determinizer calls it directly).
    cases = (("game", "scout"), ("game", 0), ("num_players", 2), ("num_players", 3.0), ("num_players", 2**63))
    for field, bad in cases:
        with pytest.raises(ValueError, match=f"field {field!r}"):
            C.dict_to_state(dict(good, **{field: bad}), env._state)


def test_table_covers_every_field():
    assert set(f for f, _ in C.FIELD_CHECKS) == set(C.STATE_KEYS)


def test_codec_returns_a_new_row(played):
    env, good, _ = played
    row = env._state.copy()
    new, history = C.dict_to_state(copy.deepcopy(good), env._state)
    assert history is None and new is not env._state and np.array_equal(env._state, row)
    assert new.dtype == np.int64 and new.shape == (R.ROW_SIZE,)
    assert C.state_to_dict(new) == good


# --- fuzz --------------------------------------------------------------------------------------------
POOL = (10**20, 2**63, -(2**63) - 1, -1, 0, 1, 2, 999, 1.5, True, False, "x", None, [], {}, [0], "all", "random")


@pytest.mark.parametrize("n", PLAYERS)
def test_fuzz_mutated_state_dicts(n):
    rng = np.random.default_rng(200 + n)
    bases = [position(n, seed, moves).state_dict() for seed, moves in enumerate((0, 2, 6, 12, 20, 100))]
    def same(given, read):
        # What was given reads back (rng modulo 2**64; an omitted or null end_reason is derived).
        skip = ("rng", "end_reason")
        return ({k: read[k] for k in given if k not in skip} == {k: v for k, v in given.items() if k not in skip}
                and ("rng" not in given or (given["rng"] - read["rng"]) % 2**64 == 0))

    loaded = fuzz(lambda: sly_v0.raw_env(num_players=n), bases, rng, POOL, same=same)
    assert loaded  # some mutations (an rng, a flag, a scope) keep the position valid
