"""Uniform-random Sly games played entirely in compiled code (``sly-scout simulate sly``).

Game ``i`` is seeded by ``seed_words(seed, games)[i]`` and draws its moves from its own
generator in its state row, so results do not depend on the chunk size.
"""

from __future__ import annotations

import time

import numpy as np
from numba import njit

from .._rng import rng_below, seed_words
from . import rules as R

STEP_CAP = 100_000  # Fox-only Reveals can repeat for ever in principle; cap each game


@njit(cache=True)
def _play_chunk(template, words, step_cap, scores_out, steps_out, end_out):
    """Play one game per seed word with uniform-random legal moves (one thread)."""
    num_p = template[R.NUM_PLAYERS]
    state = template.copy()
    legal = np.empty(8 * R.MAX_SPACES + R.MAX_HOUSES + 1, dtype=np.int64)
    pts = np.zeros(num_p, dtype=np.int64)
    for g in range(words.shape[0]):
        R.reset(state, words[g])
        while state[R.GAME_OVER] == 0 and state[R.STEPS] < step_cap:
            n = R.legal_actions(state, legal)
            R.apply_action(state, legal[rng_below(state, R.RNG, n)])
        R.scores(state, pts)
        for p in range(num_p):
            scores_out[g, p] = pts[p]
        steps_out[g] = state[R.STEPS]
        end_out[g] = state[R.END_REASON]  # 0 (END_NONE) if the step cap was hit


def simulate(num_players, games, seed=0, progress=None, chunk_size=10_000, step_cap=STEP_CAP, **options):
    """Play ``games`` random games; return scores, steps, end reasons and wall time.

    ``options`` are the game options of ``sly_v0.env`` (hen_houses, reveal_scope,
    first_player). ``progress(n_done)`` is called after each chunk of ``chunk_size``
    games. Returns ``{"scores": (games, P) int64, "steps": (games,) int64,
    "end_reason": (games,) int64 (1 = hand, 2 = all_safe, 0 = step cap hit),
    "seconds": float}``.
    """
    allowed = ("hen_houses", "reveal_scope", "first_player")
    for k in options:
        if k not in allowed:
            raise ValueError(f"unknown option {k!r} for sly; allowed options: {', '.join(allowed)}")
    opts = R.parse_options(num_players=num_players, **options)
    for name, v in (("games", games), ("chunk_size", chunk_size), ("step_cap", step_cap)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < (0 if name == "games" else 1):
            raise ValueError(f"{name}={v!r} is not allowed; it must be an int >= {0 if name == 'games' else 1}")
    template = R.new_row(opts["num_players"], opts["hen_houses"], opts["reveal_scope"], opts["first_player"])
    words = seed_words(seed, games)
    p = opts["num_players"]
    scores = np.zeros((games, p), dtype=np.int64)
    steps = np.zeros(games, dtype=np.int64)
    ends = np.zeros(games, dtype=np.int64)
    t0 = time.perf_counter()
    for lo in range(0, games, chunk_size):
        hi = min(games, lo + chunk_size)
        _play_chunk(template, words[lo:hi], step_cap, scores[lo:hi], steps[lo:hi], ends[lo:hi])
        if progress is not None:
            progress(hi)
    return {"scores": scores, "steps": steps, "end_reason": ends, "seconds": time.perf_counter() - t0}
