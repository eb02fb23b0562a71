"""Batched kernels: a game plays the same whatever its row, the batch size or the thread count."""

import numba
import numpy as np
import pytest

from sly_scout_env import kernels as K
from sly_scout_env._rng import WORD_SLOTS, stream_words
from sly_scout_env.scout import batch as scout_batch
from sly_scout_env.sly import batch as sly_batch

GAMES = [(sly_batch, dict(num_players=3)), (sly_batch, dict(num_players=2, reveal_scope="all")),
         (scout_batch, dict(num_players=4, rounds=1)), (scout_batch, dict(num_players=2, rounds=1))]

TWO = min(2, numba.config.NUMBA_NUM_THREADS)  # 2 threads where the machine has them


def _pick(masks, keys):
    """The ``keys[i] % count``-th legal action of each row (vectorised)."""
    cs = np.cumsum(masks, axis=1)
    k = keys % cs[:, -1]
    return np.argmax(cs > k[:, None], axis=1)


class Runner:
    """Drive the batched reset/step kernels directly (what the vector env does, minus checks)."""

    def __init__(self, batch, n, options):
        self.b = batch
        self.states, self.scratch, self.opts, info = batch.new_batch(n, **options)
        P, D, A = info["num_players"], info["observation_size"], info["num_actions"]
        self.obs = np.zeros((n, D), np.float32)
        self.masks = np.zeros((n, A), np.int8)
        self.seats = np.zeros(n, np.int64)
        self.rewards = np.zeros((n, P), np.float32)
        self.terms = np.zeros(n, bool)
        self.truncs = np.zeros(n, bool)
        self.final_obs = np.zeros((n, P, D), np.float32)
        self.final_scores = np.zeros((n, P), np.float32)
        self.has_final = np.zeros(n, bool)
        self.errors = np.zeros(n, np.int64)
        self.ep = np.zeros(n, np.int64)
        self.points = np.zeros((n, P), np.float64)

    def reset(self, words):
        self.b.reset_rows(self.states, self.scratch, self.opts, words, np.ones(len(words), bool), self.ep,
                          self.points, self.obs, self.masks, self.seats)

    def step(self, actions):
        self.b.step_rows(self.states, self.scratch, self.opts, actions, True, 0, 0, self.ep, self.points, self.obs,
                         self.masks, self.seats, self.rewards, self.terms, self.truncs, self.final_obs,
                         self.final_scores, self.has_final, self.errors)
        assert not self.errors.any()


def _play(batch, options, words, game_ids, steps, threads):
    """Play ``steps`` steps; the action of game g at step t depends only on (g, t) and its mask."""
    before = numba.get_num_threads()
    numba.set_num_threads(threads)
    try:
        r = Runner(batch, len(words), options)
        r.reset(words)
        trace = []
        for t in range(steps):
            r.step(_pick(r.masks, 7 * t + 3 * game_ids))
            trace.append((r.obs.copy(), r.masks.copy(), r.rewards.copy(), r.terms.copy(), r.seats.copy()))
        return r, trace
    finally:
        numba.set_num_threads(before)


@pytest.mark.parametrize("batch,options", GAMES)
def test_same_game_whatever_row_batch_size_and_threads(batch, options):
    n = batch.SERIAL_BELOW + 44  # large enough for the parallel kernel
    words = stream_words(21, 0, n)
    ids = np.arange(n)
    steps = 60 if batch is sly_batch else 150
    one, trace1 = _play(batch, options, words, ids, steps, threads=1)
    perm = np.random.default_rng(0).permutation(n)
    two, trace2 = _play(batch, options, words[perm], ids[perm], steps, threads=TWO)
    small, trace3 = _play(batch, options, words[:9], ids[:9], steps, threads=TWO)  # the serial kernel
    np.testing.assert_array_equal(one.states[perm], two.states)
    np.testing.assert_array_equal(one.states[:9], small.states)
    for a, b, c in zip(trace1, trace2, trace3):
        for x, y, z in zip(a, b, c):
            np.testing.assert_array_equal(x[perm], y)
            np.testing.assert_array_equal(x[:9], z)
    assert any(t[3].any() for t in trace1)  # some games finished and restarted on the way


@pytest.mark.parametrize("batch,options", GAMES)
def test_batched_masks_and_observations_equal_the_single_row_kernels(batch, options):
    r = Runner(batch, 6, options)
    r.reset(stream_words(3, 0, 6))
    for t in range(25):
        r.step(np.array([np.flatnonzero(m)[t % int(m.sum())] for m in r.masks]))
    masks = np.zeros_like(r.masks)
    batch.legal_masks(r.states, r.scratch, masks)
    np.testing.assert_array_equal(masks, r.masks)
    obs = np.zeros_like(r.obs)
    batch.observe_rows(r.states, r.seats, obs)
    np.testing.assert_array_equal(obs, r.obs)
    for i in range(6):
        single = np.zeros(r.obs.shape[1], np.float32)
        batch.encode_observation(r.states[i], r.seats[i], single)
        np.testing.assert_array_equal(single, r.obs[i])


@pytest.mark.parametrize("n, tiles", [(1, 1), (5, 1), (K.TILE, 1), (K.TILE + 1, 2), (3 * K.TILE, 3)])
def test_scout_scratch_is_one_row_per_tile_of_games(n, tiles):
    states, scratch, opts, info = scout_batch.new_batch(n, num_players=3)
    # A row: the compiled policies' scratch (the rules' and, after it, a neural action scorer's values)
    assert scratch.shape == (tiles, scout_batch.P.CHOOSE_SCRATCH) and states.shape == (n, scout_batch.R.ROW_SIZE)
    assert scout_batch.P.CHOOSE_SCRATCH >= scout_batch.R.SCRATCH_SIZE
    assert info["num_actions"] == 614


def test_narrow_rows_are_int16_where_every_value_fits():
    assert scout_batch.new_batch(3, num_players=4)[0].dtype == np.int64  # the engine's rows by default
    assert scout_batch.new_batch(3, num_players=4, narrow=True)[0].dtype == K.NARROW
    assert scout_batch.new_batch(3, num_players=4, rounds=K.NARROW_LIMIT, narrow=True)[0].dtype == K.NARROW
    # A round count past the limit does not fit: the batch keeps int64 rows (and plays the same).
    assert scout_batch.new_batch(3, num_players=4, rounds=K.NARROW_LIMIT + 1, narrow=True)[0].dtype == np.int64
    assert sly_batch.new_batch(3, num_players=3, narrow=True)[0].dtype == np.int64  # Sly: int64 always
    assert scout_batch.R.ROW_SIZE == scout_batch.R.RNG + WORD_SLOTS
    assert np.dtype(K.NARROW).itemsize * WORD_SLOTS == 8  # the generator word whole, in limbs


@pytest.mark.parametrize("n", [7, scout_batch.SERIAL_BELOW + K.TILE + 5])  # one thread; tiles on every thread
@pytest.mark.parametrize("players", [2, 5])
def test_narrow_and_int64_rows_play_the_same_games(n, players):
    options = dict(num_players=players)
    wide, narrow = Runner(scout_batch, n, options), Runner(scout_batch, n, options)
    narrow.states = K.narrow_rows(narrow.states)
    assert narrow.states.dtype == K.NARROW
    words = stream_words(4, 0, n)
    wide.reset(words)
    narrow.reset(words)
    rng = np.random.default_rng(players)
    for t in range(400):  # several games of each row, through round ends and restarts
        actions = _pick(wide.masks, rng.integers(0, 2**62, n))
        wide.step(actions)
        narrow.step(actions)
        where = f"step {t}"
        np.testing.assert_array_equal(K.widen_rows(narrow.states, scout_batch.R.RNG), wide.states, err_msg=where)
        for name in ("obs", "masks", "seats", "rewards", "terms"):
            np.testing.assert_array_equal(getattr(narrow, name), getattr(wide, name), err_msg=f"{where}: {name}")


def test_a_batch_large_enough_to_prefetch_plays_the_games_of_a_small_one():
    # Past kernels.PREFETCH_ABOVE bytes of rows, observations and masks the step prefetches
    # coming games; the games (rows, observations, masks, rewards) are those of 3 rows alone.
    from sly_scout_env.vector import ScoutVectorEnv

    small = ScoutVectorEnv(3, num_players=5)
    row_bytes = small._states[0].nbytes + small.observation_size * 4 + small.num_actions
    n = K.PREFETCH_ABOVE // row_bytes + K.TILE
    big = ScoutVectorEnv(n, num_players=5, copy=False)
    assert big._states.nbytes + big._obs.nbytes + big._masks.nbytes > K.PREFETCH_ABOVE
    o_small, _ = small.reset(seed=8)
    o_big, _ = big.reset(seed=8)
    rng = np.random.default_rng(1)
    for t in range(60):
        keys = rng.integers(0, 2**62, n)
        a_big = _pick(o_big["action_mask"], keys)
        a_small = a_big[:3].copy()
        out_small, out_big = small.step(a_small), big.step(a_big)
        o_small, o_big = out_small[0], out_big[0]
        for k in ("observation", "action_mask"):
            np.testing.assert_array_equal(o_small[k], o_big[k][:3], err_msg=f"step {t}: {k}")
        np.testing.assert_array_equal(out_small[1], out_big[1][:3], err_msg=f"step {t}: rewards")
        np.testing.assert_array_equal(small._states, big._states[:3], err_msg=f"step {t}: rows")


def test_a_vector_env_widens_its_rows_before_a_score_could_overflow():
    from sly_scout_env.vector import ScoutVectorEnv

    vec, twin = ScoutVectorEnv(3, num_players=3), ScoutVectorEnv(3, num_players=3)
    vec.reset(seed=2)
    twin.reset(seed=2)
    twin._states = K.widen_rows(twin._states, scout_batch.R.RNG)  # the same games on int64 rows
    assert vec.row_dtype == K.NARROW and twin.row_dtype == np.int64
    seat_score = scout_batch.R.O_SCORES + 1
    for env in (vec, twin):  # a game total just past the limit: it still fits, the next steps might not
        env._states[0, seat_score] = K.NARROW_LIMIT + 1
        env._points[0, 1] = K.NARROW_LIMIT + 1
    rng = np.random.default_rng(0)
    widened_at = None
    for t in range(300):
        obs = twin.legal_action_mask()
        actions = _pick(obs, rng.integers(0, 2**62, 3))
        out, twin_out = vec.step(actions), twin.step(actions)
        if widened_at is None and vec.row_dtype == np.int64:
            widened_at = t
        for k in range(3):
            np.testing.assert_array_equal(vec.state_row(k), twin.state_row(k), err_msg=f"step {t}, game {k}")
        np.testing.assert_array_equal(out[1], twin_out[1], err_msg=f"step {t}: rewards")
    assert widened_at == 0  # at the first step after the value passed the limit


def test_state_row_names_the_bad_game_index():
    from sly_scout_env.vector import ScoutVectorEnv

    vec = ScoutVectorEnv(2)
    vec.reset(seed=0)
    assert vec.state_row(1).dtype == np.int64
    with pytest.raises(ValueError, match=r"i=2 is not allowed; allowed values: an int from 0 to 1"):
        vec.state_row(2)


def test_scout_observation_size_is_the_end_of_its_named_slices():
    from sly_scout_env.scout.observation import observation_size, observation_slices

    for p in (2, 3, 4, 5):
        assert observation_size(p) == observation_slices(p)["known_cards"].stop


def test_widen_rows_names_a_row_type_it_does_not_know():
    with pytest.raises(TypeError, match="rows of int32 are neither the engine's"):
        K.widen_rows(np.zeros((1, 8), np.int32), 0)
    wide = np.arange(8, dtype=np.int64).reshape(1, 8)
    assert K.widen_rows(wide, 0) is not wide and (K.widen_rows(wide, 0) == wide).all()
