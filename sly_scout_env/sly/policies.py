"""Compiled Sly policies: bots that run inside Numba, for simulation at scale.

A policy picks an action for the player to act from what that player may know: the
legal actions and (for informed policies) the player's own observation vector, never
the hidden parts of the state row. Each policy has a small integer id so that batched
and simulation kernels can hold one id per seat and dispatch without Python objects.

``choose(policy_id, state, legal, obs)``:
  ``state`` the game row (only its generator ``RNG`` and public/own fields are read),
  ``legal`` an int64 scratch of ``CHOOSE_SCRATCH`` entries: the legal actions are written
  to its front, and ``greedy`` works in the rest, so a move allocates nothing,
  ``obs`` a float32 scratch of the observation size (filled by informed policies).
Returns the action id, or -1 for an unknown policy id (callers validate ids first with
:func:`policy_id`).

Random draws come from the row's own generator, so a game with a given seed and the
same policies plays the same whatever the batch or thread count.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .._rng import rng_below
from . import rules as R
from .heuristic import LEGAL_MAX, WORK_SIZE, greedy_act
from .observation import observe

RANDOM = 0  # uniform over the legal actions
GREEDY = 1  # the public-knowledge heuristic of heuristic.py (reads only the seat's observation)

# Names users pass (``simulate(policies=[...])``, ``sly-scout simulate --policies``);
# a policy's id is its index here.
POLICY_NAMES = ("random", "greedy")

# Length of the int64 ``legal`` scratch that ``choose`` needs: the legal action ids, then
# the heuristic's workspace (so that choosing a move allocates nothing).
CHOOSE_SCRATCH = LEGAL_MAX + WORK_SIZE


def policy_id(name: str) -> int:
    """The id of a compiled policy by name; ValueError naming the allowed names."""
    if name not in POLICY_NAMES:
        raise ValueError(f"unknown compiled sly policy {name!r}; allowed: {', '.join(POLICY_NAMES)}")
    return POLICY_NAMES.index(name)


@njit(cache=True)
def choose(policy_id, state, legal, obs):
    n = R.legal_actions(state, legal)
    if policy_id == RANDOM:
        return legal[rng_below(state, R.RNG, n)]
    if policy_id == GREEDY:
        if legal.shape[0] < CHOOSE_SCRATCH:  # the kernels do not bounds-check: refuse, never overrun
            raise ValueError("sly policies.choose: the legal scratch must hold CHOOSE_SCRATCH entries")
        # The heuristic sees the acting seat's observation and the legal actions only.
        observe(state, state[R.CURRENT], obs)
        return greedy_act(obs, legal, n, state[R.NUM_PLAYERS], state[R.HEN_HOUSES], state[R.REVEAL_ALL],
                          state, R.RNG, legal[LEGAL_MAX:])
    return -1


@njit(cache=True)
def _play_games(template, words, seat_policy, step_cap, scores_out):
    """Play one game per seed word, seat ``p`` choosing with policy ``seat_policy[p]``."""
    num_p = template[R.NUM_PLAYERS]
    state = template.copy()
    legal = np.empty(CHOOSE_SCRATCH, dtype=np.int64)
    obs = np.zeros(1024, dtype=np.float32)  # larger than any Sly observation (at most 193 floats)
    pts = np.zeros(num_p, dtype=np.int64)
    for g in range(words.shape[0]):
        R.reset(state, words[g])
        while state[R.GAME_OVER] == 0 and state[R.STEPS] < step_cap:
            a = choose(seat_policy[state[R.CURRENT]], state, legal, obs[:_obs_size(state)])
            R.apply_action(state, a)
        R.scores(state, pts)
        for p in range(num_p):
            scores_out[g, p] = pts[p]


@njit(cache=True)
def _obs_size(state):
    p = state[R.NUM_PLAYERS]
    return R.CARDS_PER_PLAYER + state[R.NUM_SPACES] * (4 + p + R.CARDS_PER_PLAYER) + 4 * p + 14 * (p - 1)


def play_games(num_players, seat_policies, games, seed=0, step_cap=100_000, **options):
    """Play ``games`` games in compiled code, seat ``p`` using policy ``seat_policies[p]``.

    ``seat_policies`` are names of :data:`POLICY_NAMES`; ``options`` the game options
    (hen_houses, reveal_scope, first_player). Game ``i`` is seeded by
    ``seed_words(seed, games)[i]``. Returns the (games, num_players) int64 final scores.
    """
    from .._rng import seed_words

    opts = R.parse_options(num_players=num_players, **options)
    if len(seat_policies) != opts["num_players"]:
        raise ValueError(f"seat_policies has {len(seat_policies)} names; give one per seat ({num_players})")
    ids = np.array([policy_id(n) for n in seat_policies], dtype=np.int64)
    template = R.new_row(opts["num_players"], opts["hen_houses"], opts["reveal_scope"], opts["first_player"])
    out = np.zeros((games, opts["num_players"]), dtype=np.int64)
    _play_games(template, seed_words(seed, games), ids, step_cap, out)
    return out
