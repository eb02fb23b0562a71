"""Compiled Sly policies: bots that run inside Numba, for simulation at scale.

A policy picks an action for the player to act from what that player may know: the
legal actions and (for informed policies) the player's own observation vector, never
the hidden parts of the state row. Each policy has a small integer id so that batched
and simulation kernels can hold one id per seat and dispatch without Python objects.

``choose(policy_id, state, scratch, obs, rng, nets)``:
  ``state`` the game row (only public/own fields are read),
  ``scratch`` an int64 scratch of ``CHOOSE_SCRATCH`` entries: the legal actions are written
  to its front, and ``greedy`` works in the rest, so a move allocates nothing,
  ``obs`` a float32 scratch of ``netpolicy.obs_size(observation size, nets)`` (the
  observation, filled by informed policies, then the networks' hidden activations),
  ``rng`` an int64 array whose element 0 is the policy's own splitmix64 generator word,
  ``nets`` the packed ``neural`` networks (``sly_scout_env.netpolicy``; ``NO_NETS`` when
  no seat plays neural): id ``NEURAL + k`` plays network ``k``.
Returns the action id, or -1 for an unknown policy id (callers validate ids first with
:func:`policy_id`).

Why a generator apart from the row's: the row's generator deals (and draws the first
player) and then gives the word of the row's next game (the vector envs' autoreset); if
the moves drew from it, a different policy at one seat would change the later deals.
Callers seed it with :func:`policy_seed` at each deal.
"""

from __future__ import annotations

from numba import njit

from .._rng import rng_below
from ..kernels import net_fits, net_move, net_prior
from . import rules as R
from .heuristic import LEGAL_MAX, WORK_SIZE, greedy_act
from .observation import encode_observation, observation_size

RANDOM = 0  # uniform over the legal actions
GREEDY = 1  # the public-knowledge heuristic of heuristic.py (reads only the seat's observation)
NEURAL = 2  # a trained network (sly_scout_env.netpolicy): id NEURAL + k plays network k of ``nets``

# Names users pass (``simulate(policies=[...])``, ``sly-scout simulate --policies``);
# a policy's id is its index here.
POLICY_NAMES = ("random", "greedy", "neural")

# Length of the int64 ``scratch`` that ``choose`` needs: the legal action ids, then
# the heuristic's workspace (so that choosing a move allocates nothing).
CHOOSE_SCRATCH = LEGAL_MAX + WORK_SIZE


@njit(cache=True)
def policy_seed(state, word):
    """The policies' generator word for the game just dealt into ``state`` from ``word``.

    Sly deals only at reset, so the policies continue the row generator's stream from
    where the deal left it (in a copy: the row's word stays for the next game's seed).
    Why not a salted word as in Scout: the moves of a single game are then exactly those
    the policies drew from the row before the two generators were separated, so every
    simulation is unchanged.
    """
    return state[R.RNG]


def policy_id(name: str) -> int:
    """The id of a compiled policy by name; ValueError naming the allowed names."""
    if name not in POLICY_NAMES:
        raise ValueError(f"unknown compiled sly policy {name!r}; allowed: {', '.join(POLICY_NAMES)}")
    return POLICY_NAMES.index(name)


@njit(cache=True, inline="always")
def choose(policy_id, state, scratch, obs, rng, nets):
    legal = scratch
    n = R.legal_actions(state, legal)
    if n <= 0:
        return -1
    if policy_id < NEURAL:
        return _choose_heuristic(policy_id, state, legal, n, obs, rng)
    return _choose_neural(policy_id, state, scratch, n, obs, rng, nets)


@njit(cache=True)
def _choose_neural(policy_id, state, scratch, n, obs, rng, nets):
    legal = scratch
    k = policy_id - NEURAL
    d = observation_size(state[R.NUM_PLAYERS], state[R.HEN_HOUSES])
    if not net_fits(nets, k, d):
        return -1  # no such network, or one for another table (callers check with netpolicy.compiled_policies)
    p = net_prior(nets, k)
    prior = -1 if p < 0 else _choose_heuristic(p, state, legal, n, obs, rng)
    encode_observation(state, state[R.CURRENT_PLAYER], obs[:d])
    return net_move(nets, k, obs, legal, n, prior, rng)


@njit(cache=True)
def _choose_heuristic(policy_id, state, legal, n, obs, rng):
    """random or greedy, the ``n`` legal ids already in ``legal``."""
    if policy_id == RANDOM:
        return legal[rng_below(rng, 0, n)]
    if policy_id == GREEDY:
        if legal.shape[0] < CHOOSE_SCRATCH:  # the kernels do not bounds-check: refuse, never overrun
            raise ValueError("sly policies.choose: the scratch must hold CHOOSE_SCRATCH entries")
        # The heuristic sees the acting seat's observation and the legal actions only.
        encode_observation(state, state[R.CURRENT_PLAYER], obs)
        return greedy_act(obs, legal, n, state[R.NUM_PLAYERS], state[R.HEN_HOUSES], state[R.REVEAL_ALL],
                          rng, 0, legal[LEGAL_MAX:])
    return -1
