"""Simulation at scale: whole hands (Scout) or games (Sly) played inside compiled code.

    from sly_scout_env.simulation import simulate
    r = simulate("scout", 1_000_000, players=4, seed=0)           # all "random" seats
    r = simulate("sly", 100_000, players=3, policies=["random"] * 3, threads=1)

Each game runs start to end inside Numba with compiled policies (one per seat, by name:
``sly_scout_env.<game>.policies.POLICY_NAMES``: random, greedy and neural, the trained
network, see ``sly_scout_env.netpolicy``), parallel over games with ``prange``.
Games are played in chunks of ``chunk_size``; per-chunk buffers are reused, so the
working memory is bounded and only the per-game result arrays grow with ``n``.

Determinism: game ``i`` is dealt from ``stream_words(seed, i, 1)[0]`` (the ``i``-th output
of a splitmix64 stream started at ``seed_word(seed)``) and draws every random choice from
generators in its own row, so the arrays are identical whatever ``threads`` or
``chunk_size``.

A Scout "hand" is one round from a fresh deal to its scoring (``rounds=1``); a Sly
"game" is a whole game.
"""

from __future__ import annotations

import time

import numba
import numpy as np

from ._rng import seed_word, stream_words
from .checks import check_int
from .games import get_game
from .kernels import STEP_CAP
from .netpolicy import compiled_policies

CHUNK_SIZE = 65_536


def policy_ids(game: str, policies, players: int, options: dict | None = None):
    """``(ids, nets)``: per-seat compiled policy ids for ``policies`` (None = all "random")
    and the packed networks of the ``neural`` seats (``sly_scout_env.netpolicy``); ValueError if bad."""
    pol = get_game(game).module("policies")
    if policies is None:
        policies = ["random"] * players
    if isinstance(policies, str):
        policies = [p.strip() for p in policies.split(",")]
    policies = list(policies)
    if len(policies) != players:
        raise ValueError(
            f"policies={policies!r} names {len(policies)} seats but the game has {players} players; "
            f"give one name per seat from: {', '.join(pol.POLICY_NAMES)} (or neural:path=FILE, neural:temperature=T)"
        )
    return compiled_policies(game, policies, players, options)


def play_chunk(chunk: tuple, out: tuple | None = None) -> tuple:
    """Games ``lo .. hi-1`` of a simulation: ``chunk = (game, template, policy ids, nets,
    seed, lo, hi, step_cap)``; fills ``out = (scores, steps, end_reason)`` (allocated when None:
    a Ray task, which plays on one Numba thread) and returns it."""
    game, template, pids, nets, seed, lo, hi, step_cap = chunk
    batch = get_game(game).module("batch")
    k = hi - lo
    if out is None:
        out = (np.zeros((k, len(pids)), dtype=np.int32), np.zeros(k, dtype=np.int32), np.zeros(k, dtype=np.int8))
        numba.set_num_threads(1)
    bad = batch.play_rows(template, stream_words(seed, lo, k), pids, nets, step_cap, *out)
    if bad:
        raise RuntimeError(f"{game}: a compiled policy returned an illegal action in {bad} game(s) "
                           f"of games {lo}..{hi - 1} (policies {pids.tolist()})")
    return out


def simulate(game: str, n: int, players: int | None = None, policies=None, seed: int | None = 0,
             threads: int | None = None, chunk_size: int = CHUNK_SIZE, progress=None, step_cap: int = STEP_CAP,
             ray=None, **options) -> dict:
    """Play ``n`` Scout hands or Sly games in compiled code; return per-game arrays.

    Arguments:
      ``game``: a name of ``sly_scout_env.games.GAMES``. ``players``: player count (default:
        the game's ``default_players``).
      ``policies``: one compiled policy name per seat (a list, or "random,random,...");
        default all "random". ``"neural"`` plays the checkpoint shipped for the game,
        player count and options, ``"neural:path=FILE"`` one of your own (a count without
        a shipped checkpoint is refused naming those with one; ``sly_scout_env.netpolicy``).
      ``seed``: int >= 0 or None. ``threads``: Numba threads (default: all cores; the
        global Numba setting is restored afterwards).
      ``chunk_size``: games per chunk (bounds the working memory).
      ``progress(n_done)``: called after each chunk. ``step_cap``: actions per game before
        it is stopped (end_reason 0).
      ``ray``: None/False plays here; True (Ray's own lookup: a running cluster, else a
        new local one), ``"auto"`` or ``"HOST:PORT"`` plays each chunk as a Ray task
        (one Numba thread each; the same arrays as a local run; docs/ray.md).
      ``options``: game options (Scout: ``ii_after_empty_set``, ``score_held_chips``;
        Sly: ``hen_houses``, ``reveal_scope``, ``first_player``).

    Returns a dict of numpy arrays (one entry per game) and the wall time:
      ``scores`` (n, P) int32: points per seat (Scout: the hand's round score);
      ``winners`` (n, P) bool: seats with the top score (ties share; all False for a
        game stopped by the step cap);
      ``steps`` (n,) int32: actions taken (Scout: flip decisions included);
      ``end_reason`` (n,) int8: Scout 1 = round end (i), 2 = (ii); Sly 1 = a hand with
        <= 1 card, 2 = every space Safe; 0 = stopped by the step cap;
      ``seconds`` float: wall time of the play (seed derivation included, compilation not);
      ``seed`` int: the seed used (drawn from OS entropy when ``seed=None``: replay with it).
    """
    spec = get_game(game)
    batch = spec.module("batch")
    if players is None:
        players = spec.default_players
    template, num_players = batch.sim_template(players, **options)
    pids, nets = policy_ids(game, policies, num_players, options)
    n = check_int("n", n, lo=0)
    chunk_size = check_int("chunk_size", chunk_size, 1)
    step_cap = check_int("step_cap", step_cap, 1)
    if threads is None:
        threads = numba.config.NUMBA_NUM_THREADS
    threads = check_int("threads", threads, 1, numba.config.NUMBA_NUM_THREADS)

    if seed is None:
        # Drawn once (63 bits, fits int64 in a .npz) so that every chunk continues one stream.
        seed = int(np.random.SeedSequence().generate_state(1, np.uint64)[0] >> np.uint64(1))
    else:
        seed_word(seed)  # validates
    scores = np.zeros((n, num_players), dtype=np.int32)
    steps = np.zeros(n, dtype=np.int32)
    ends = np.zeros(n, dtype=np.int8)
    c = min(chunk_size, max(n, 1))
    c_scores = np.zeros((c, num_players), dtype=np.int32)
    c_steps = np.zeros(c, dtype=np.int32)
    c_ends = np.zeros(c, dtype=np.int8)
    # Compile (or load from the cache) before the clock starts: ``seconds`` is play time.
    batch.play_rows(template, np.zeros(0, dtype=np.int64), pids, nets, step_cap, c_scores[:0], c_steps[:0],
                    c_ends[:0])
    before = numba.get_num_threads()
    numba.set_num_threads(threads)
    t0 = time.perf_counter()
    try:
        if ray not in (None, False):
            from .ray_tasks import map_tasks

            chunks = [(game, template, pids, nets, seed, lo, min(n, lo + chunk_size), step_cap)
                      for lo in range(0, n, chunk_size)]
            done = [0]

            def arrived(i, r):
                lo, hi = chunks[i][5:7]
                scores[lo:hi], steps[lo:hi], ends[lo:hi] = r
                done[0] += hi - lo
                if progress is not None:
                    progress(done[0])

            map_tasks(play_chunk, chunks, address=ray, on_result=arrived)
        else:
            for lo in range(0, n, chunk_size):
                hi = min(n, lo + chunk_size)
                k = hi - lo
                play_chunk((game, template, pids, nets, seed, lo, hi, step_cap),
                           (c_scores[:k], c_steps[:k], c_ends[:k]))
                scores[lo:hi] = c_scores[:k]
                steps[lo:hi] = c_steps[:k]
                ends[lo:hi] = c_ends[:k]
                if progress is not None:
                    progress(hi)
    finally:
        numba.set_num_threads(before)
    seconds = time.perf_counter() - t0
    winners = (scores == scores.max(axis=1, keepdims=True)) & (ends != 0)[:, None] if n else np.zeros(
        (0, num_players), dtype=bool)
    return {"scores": scores, "winners": winners, "steps": steps, "end_reason": ends, "seconds": seconds,
            "seed": seed}
