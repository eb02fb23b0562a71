"""Batched kernels: a game plays the same whatever its row, the batch size or the thread count."""

import numba
import numpy as np
import pytest

from sly_scout_env._rng import stream_words
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


def test_scout_scratch_is_one_row_per_game():
    states, scratch, opts, info = scout_batch.new_batch(5, num_players=3)
    # A row: the compiled policies' scratch (the rules' and, after it, a neural action scorer's values)
    assert scratch.shape == (5, scout_batch.P.CHOOSE_SCRATCH) and states.shape == (5, scout_batch.R.ROW_SIZE)
    assert scout_batch.P.CHOOSE_SCRATCH >= scout_batch.R.SCRATCH_SIZE
    assert info["num_actions"] == 614


def test_scout_observation_size_is_the_end_of_its_named_slices():
    from sly_scout_env.scout.observation import observation_size, observation_slices

    for p in (2, 3, 4, 5):
        assert observation_size(p) == observation_slices(p)["known_cards"].stop
