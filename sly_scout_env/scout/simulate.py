"""In-kernel random play: many independent Scout hands with uniform-random legal moves.

A hand is one round from a fresh deal to its scoring (``rounds=1``), flip decisions
included in the step count. Hand ``i`` deals from ``seed_words(seed, hands)[i]``; its
random moves come from a second generator seeded from the same word, so a hand plays
the same whatever the chunk size.
"""

from __future__ import annotations

import time

import numpy as np
from numba import njit

from .._rng import rng_below, seed_words
from . import rules as R
from .env import scout_options

STEP_CAP = 100_000
CHUNK = 10_000
_POLICY_SALT = np.int64(0x5851F42D4C957F2D)  # decorrelates the move generator from the deal generator


@njit(cache=True)
def _simulate_chunk(words, num_players, ii_after_empty_set, score_held_chips, step_cap, scores, steps, reasons,
                    state, scratch, policy):
    """Play len(words) hands; write per-hand scores, steps and end reason. Returns -1 on a MAX_HAND error."""
    for i in range(words.shape[0]):
        R.reset(state, num_players, 1, ii_after_empty_set, score_held_chips, words[i])
        policy[0] = words[i] ^ _POLICY_SALT
        k = 0
        while state[R.O_PHASE] != R.PHASE_GAME_OVER and k < step_cap:
            count = R.legal_actions(state, scratch)
            if count <= 0:
                return -1
            R.apply_action(state, scratch[rng_below(policy, 0, count)], scratch)
            k += 1
        steps[i] = k
        if state[R.O_PHASE] == R.PHASE_GAME_OVER:
            reasons[i] = state[R.O_LAST_END_REASON]
            for s in range(num_players):
                scores[i, s] = state[R.O_LAST_ROUND_SCORES + s]
        else:
            reasons[i] = R.END_NONE
            for s in range(num_players):
                scores[i, s] = 0
    return 0


def simulate(num_players: int, hands: int, seed: int | None = 0, progress=None, chunk: int = CHUNK,
             step_cap: int = STEP_CAP, **options) -> dict:
    """Play ``hands`` random hands in compiled code.

    Returns ``{"scores": (hands, P) int64, "steps": (hands,) int64, "end_reason": (hands,)
    int64 (1 = (i), 2 = (ii), 0 = stopped by ``step_cap``), "seconds": float}``; ``seconds``
    is the time spent in the compiled chunks (not seeding, not the progress callback).
    ``progress(n_done)`` is called after each chunk. Options: ``ii_after_empty_set``,
    ``score_held_chips`` (``rounds`` is always 1 here).
    """
    opts = scout_options(num_players=num_players, **options)
    for name, value, lo in (("hands", hands, 0), ("chunk", chunk, 1), ("step_cap", step_cap, 1)):
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < lo:
            raise ValueError(f"{name}={value!r} is not allowed; allowed values: an int >= {lo}")
    words = seed_words(seed, hands)
    scores = np.zeros((hands, num_players), dtype=np.int64)
    steps = np.zeros(hands, dtype=np.int64)
    reasons = np.zeros(hands, dtype=np.int64)
    state = R.make_state()
    scratch = R.make_scratch()
    policy = np.zeros(1, dtype=np.int64)
    seconds = 0.0
    for a in range(0, hands, chunk):
        b = min(a + chunk, hands)
        t0 = time.perf_counter()
        err = _simulate_chunk(words[a:b], num_players, opts["ii_after_empty_set"], opts["score_held_chips"],
                              step_cap, scores[a:b], steps[a:b], reasons[a:b], state, scratch, policy)
        seconds += time.perf_counter() - t0
        if err:
            raise RuntimeError("a hand exceeded MAX_HAND during simulate; impossible under the rules")
        if progress is not None:
            progress(b)
    return {"scores": scores, "steps": steps, "end_reason": reasons, "seconds": seconds}
