"""Scout state codec: every bad state dict is refused with a ValueError naming the field.

Literal cases for the integers numpy cannot hold (10**20, 2**63, -2**63 - 1) and the
values that are not ints at all, then a fuzz test: real positions, mutated at random.
"""

import copy

import numpy as np
import pytest

from sly_scout_env import scout_v0
from sly_scout_env.scout import codec as C
from sly_scout_env.scout import rules as R

from ..games import assert_refused, random_position
from ..state_dict_fuzz import fuzz, set_at


def position(n, seed, moves, **options):
    return random_position('scout', n, seed, moves, **options)

PLAYER_COUNTS = (2, 3, 4, 5)
NOT_INTS = (10**20, 2**63, -(2**63) - 1, 2**64, 1.5, 2.0, True, False, "1", None, [], {})


# --- literal cases ---------------------------------------------------------------------------------
EDITS = {  # field named by the error -> paths of an int (or bool) in the state dict
    "hands": (("hands", 0, 0, 0), ("hands", 1, 0, 1)),
    "active_set": (("active_set", 0, 0),),
    "collected": (("collected", 0, 0, 0),),
    "scout_chips": (("scout_chips", 0),),
    "scores": (("scores", 1),),
    "rng": (("rng",),),
    "current_player": (("current_player",),),
    "starting_player": (("starting_player",),),
    "round": (("round",),),
    "rounds": (("rounds",),),
    "active_owner": (("active_owner",),),
    "version": (("version",),),
    "known": (("known", 0, 0),),
    "scout_and_show_left": (("scout_and_show_left", 0),),
    "ii_after_empty_set": (("ii_after_empty_set",),),
}
BOOL_FIELDS = {"known", "scout_and_show_left", "ii_after_empty_set"}


@pytest.fixture(scope="module")
def played():
    """A 4-player position with an active set and collected cards, and its state dict."""
    for seed in range(50):
        env = position(4, seed, 30)
        d = env.state_dict()
        if d["phase"] == "play" and d["active_set"] and d["collected"][0]:
            return env, d
    raise AssertionError("no position with an active set and a collected card")


@pytest.mark.parametrize("field", sorted(EDITS))
@pytest.mark.parametrize("bad", NOT_INTS, ids=repr)
def test_bad_numbers_are_refused(played, field, bad):
    env, good = played
    if field in BOOL_FIELDS and isinstance(bad, bool):
        return  # a bool is what these fields hold
    for path in EDITS[field]:
        d = copy.deepcopy(good)
        set_at(path, bad)(d)
        assert_refused(env, d, field)


def test_numpy_ints_are_ints(played):
    """numpy ints load as their values; out of range they are refused like Python ints."""
    env, good = played
    d = copy.deepcopy(good)
    d["hands"][0][0] = [np.int64(x) for x in d["hands"][0][0]]
    d["scout_chips"] = [np.int32(x) for x in d["scout_chips"]]
    d["current_player"] = np.uint8(d["current_player"])
    env.from_state_dict(d)
    assert env.state_dict() == good
    bad_values = ((("hands", 0, 0, 0), np.int64(11)), (("scout_chips", 0), np.int64(-1)), (("rng",), np.uint64(2**63)))
    for path, bad in bad_values:
        m = copy.deepcopy(good)
        set_at(path, bad)(m)
        assert_refused(env, m, path[0])


@pytest.mark.parametrize("bad", NOT_INTS, ids=repr)
def test_bad_bool_fields_take_only_bools(played, bad):
    env, good = played
    if isinstance(bad, bool):
        return
    for field, path in (("known", ("known", 0, 0)), ("score_held_chips", ("score_held_chips",))):
        d = copy.deepcopy(good)
        set_at(path, bad)(d)
        assert_refused(env, d, field)


@pytest.mark.parametrize("n", PLAYER_COUNTS)
@pytest.mark.parametrize("bad", (10**20, 2**63, -(2**63) - 1))
def test_huge_card_numbers_in_every_player_count(n, bad):
    env = position(n, 3, 5)
    d = env.state_dict()
    d["hands"][n - 1][-1] = [bad, 5]
    assert_refused(env, d, "hands")
    d["hands"][n - 1][-1] = [5, bad]
    assert_refused(env, d, "hands")


def test_rng_takes_the_whole_int64_range_only(played):
    env, good = played
    for ok in (-(2**63), 2**63 - 1, np.int64(-5), 0):
        d = dict(good, rng=ok)
        env.from_state_dict(d)
        assert env.state_dict()["rng"] == ok
    for bad in (2**63, -(2**63) - 1, 10**20, np.uint64(2**63)):
        assert_refused(env, dict(good, rng=bad), "rng")
    env.from_state_dict(good)  # the module's shared position back as the fixture made it


def test_round_scores_out_of_range_are_refused():
    """Huge round scores whose sums still match ``scores`` must not reach the row."""
    env = position(4, 0, 0, rounds=3)
    d = env.state_dict()
    d.update(round=2, round_scores=[[5, 0, 0, -1], [-5, 0, 0, 1]], round_end_reasons=["i", "ii"], scores=[0] * 4)
    env.from_state_dict(d)  # the control: a valid dict loads
    assert env.state_dict() == d
    for big in (2**63, 10**20, 2**40 + 1):
        m = copy.deepcopy(d)
        m["round_scores"] = [[big, 0, 0, 0], [-big, 0, 0, 0]]
        assert_refused(env, m, "round_scores")
    for bad in (1.0, True, None, "1"):
        m = copy.deepcopy(d)
        m["round_scores"][0][1] = bad
        assert_refused(env, m, "round_scores")


def test_version_is_the_int_zero(played):
    env, good = played
    for bad in (False, 0.0, "0", None, 1, 2**63):
        assert_refused(env, dict(good, version=bad), "version")
    env.from_state_dict(dict(good, version=np.int64(0)))
    assert env.state_dict() == good


def test_not_a_dict_and_wrong_header(played):
    env, good = played
    before = env.state_dict()
    for bad in (None, [], "scout", 5, list(good.items())):
        with pytest.raises(ValueError, match="must be a dict"):
            env.from_state_dict(bad)
        with pytest.raises(ValueError, match="must be a dict"):
            C.dict_to_state(bad, env._state)
    for bad in (10**20, 4.0, True, None):
        assert_refused(env, dict(good, num_players=bad), "num_players")
    assert env.state_dict() == before
    # The codec itself checks the header too (the determinizer calls it directly).
    for field, bad in (("game", "sly"), ("game", 0), ("num_players", 4.0), ("num_players", 2**63)):
        with pytest.raises(ValueError, match=f"field {field!r}"):
            C.dict_to_state(dict(good, **{field: bad}), env._state)


def test_table_lists_every_field_in_the_documented_order():
    fields = [f for f, _ in C.FIELD_CHECKS]
    assert tuple(dict.fromkeys(fields)) == C.STATE_FIELDS
    assert tuple(position(3, 0, 0).state_dict()) == C.STATE_FIELDS


def test_codec_returns_a_new_row_and_a_copy_of_the_history(played):
    env, good = played
    env.from_state_dict(good)  # other tests load edited dicts into the shared env; under xdist any order
    row = env._state.copy()
    new, (scores, reasons) = C.dict_to_state(copy.deepcopy(good), env._state)
    assert np.array_equal(env._state, row) and new is not env._state
    assert new.dtype == np.int64 and new.shape == (R.ROW_SIZE,)
    state = np.r_[0 : R.O_DECK, R.RNG]  # O_DECK is shuffle scratch, not part of the position
    assert np.array_equal(new[state], row[state])  # the env's own position reads back to the same row
    assert (scores, reasons) == (good["round_scores"], good["round_end_reasons"])


# --- fuzz --------------------------------------------------------------------------------------------
POOL = (10**20, 2**63, -(2**63) - 1, -1, 0, 1, 2, 999, 1.5, True, False, "x", None, [], {}, [1, 2], [[1, 2]])


@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_fuzz_mutated_state_dicts(n):
    rng = np.random.default_rng(100 + n)
    bases = [position(n, seed, moves).state_dict() for seed, moves in enumerate((0, 3, 20, 60, 150, 400))]
    loaded = fuzz(lambda: scout_v0.raw_env(num_players=n), bases, rng, POOL)
    assert loaded  # some mutations (a small rng, a seat, a flag) keep the position valid


def test_a_known_card_in_the_flip_phase_is_refused():
    env = scout_v0.raw_env(num_players=3)
    env.reset(seed=4)
    d = env.unwrapped.state_dict()
    assert d["phase"] == "flip"
    bad = copy.deepcopy(d)
    bad["known"][1][0] = True
    with pytest.raises(ValueError, match="known.*flip phase"):
        env.unwrapped.from_state_dict(bad)
    assert env.unwrapped.state_dict() == d
