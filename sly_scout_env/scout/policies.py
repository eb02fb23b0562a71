"""Compiled Scout policies: bots that run inside Numba, for simulation at scale.

A policy picks an action for the player to act from what that player may know: the
legal actions and (for informed policies) the player's own observation vector, never
the hidden parts of the state row. Each policy has a small integer id so that batched
and simulation kernels can hold one id per seat and dispatch without Python objects.

``choose(policy_id, state, scratch, obs, rng, nets)``:
  ``state`` the game row (only public/own fields may be read),
  ``scratch`` an int64 scratch of ``CHOOSE_SCRATCH`` entries (``legal_actions`` writes the
  legal ids to ``scratch[:count]``; ``rules.make_scratch()``'s length suffices for every
  policy but a neural action scorer),
  ``obs`` a float32 scratch of ``netpolicy.obs_size(observation size, nets)`` (the
  observation, filled by informed policies, then the networks' hidden activations),
  ``rng`` an int64 array whose element 0 is the policy's own splitmix64 generator word,
  ``nets`` the packed ``neural`` networks (``sly_scout_env.netpolicy``; ``NO_NETS`` when
  no seat plays neural): id ``NEURAL + k`` plays network ``k``.
Returns the action id, or -1 for an unknown policy id or an engine error (callers
validate ids first with :func:`policy_id`).

Why a generator apart from the row's: the row's generator deals the next rounds; if the
moves drew from it too, a different policy would change the later deals. Callers seed it
with :func:`policy_seed` at each deal.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .._rng import rng_below
from ..kernels import net_feature_rows, net_fits, net_move, net_prior, net_score_move, net_scores_actions
from . import rules as R
from .features import FEATURE_SIZE, action_features
from .heuristic import WORK_SIZE, greedy_act
from .observation import encode_observation, observation_size

RANDOM = 0  # uniform over the legal actions
GREEDY = 1  # the hand-management heuristic of heuristic.py (reads only the seat's observation)
NEURAL = 2  # a trained network (sly_scout_env.netpolicy): id NEURAL + k plays network k of ``nets``

# greedy's work buffer is the tail of the rules scratch (free once legal_actions returned):
# the legal ids stay in scratch[:n], so no buffer is allocated per move.
assert R.SCRATCH_SIZE - R.S_SETB >= WORK_SIZE

# Names users pass (``simulate(policies=[...])``, ``sly-scout simulate --policies``);
# a policy's id is its index here.
POLICY_NAMES = ("random", "greedy", "neural")

# Length of the int64 scratch that ``choose`` needs: the rules scratch (legal ids first,
# greedy's workspace in its tail), then greedy's value of each legal action (an action
# scorer's features hold them: features.action_features' ``values``).
_S_VALUES = R.SCRATCH_SIZE
CHOOSE_SCRATCH = _S_VALUES + R.MAX_ACTIONS


_POLICY_SALT = np.int64(0x5851F42D4C957F2D)  # decorrelates the move generator from the deal generator


@njit(cache=True)
def policy_seed(state, word):
    """The policies' generator word for the game just dealt into ``state`` from ``word``.

    Scout deals every round from the row's generator, so the moves draw from a separate
    stream: ``word`` salted.
    """
    return word ^ _POLICY_SALT


def policy_id(name: str) -> int:
    """The id of a compiled policy by name; ValueError naming the allowed names."""
    if name not in POLICY_NAMES:
        raise ValueError(f"unknown compiled scout policy {name!r}; allowed: {', '.join(POLICY_NAMES)}")
    return POLICY_NAMES.index(name)


@njit(cache=True, inline="always")
def choose(policy_id, state, scratch, obs, rng, nets):
    n = R.legal_actions(state, scratch)
    if n <= 0:
        return -1
    if policy_id < NEURAL:
        return _choose_heuristic(policy_id, state, scratch, n, obs, rng)
    return _choose_neural(policy_id, state, scratch, n, obs, rng, nets)


@njit(cache=True)
def _choose_neural(policy_id, state, scratch, n, obs, rng, nets):
    k = policy_id - NEURAL
    d = observation_size(state[R.NUM_PLAYERS])
    if not net_fits(nets, k, d):
        return -1  # no such network, or one for another table (callers check with netpolicy.compiled_policies)
    legal = scratch[R.S_ACTS : R.S_ACTS + n]
    if net_scores_actions(nets, k):  # one logit per legal action, from its feature row
        if scratch.shape[0] < CHOOSE_SCRATCH:  # the kernels do not bounds-check: refuse, never overrun
            raise ValueError("scout policies.choose: an action scorer needs a scratch of CHOOSE_SCRATCH entries")
        encode_observation(state, state[R.CURRENT_PLAYER], obs[:d])
        rows = net_feature_rows(nets, k, obs, n)
        if rows.shape[1] != FEATURE_SIZE:
            return -1  # packed for another feature set (netfile refuses those at load)
        action_features(obs[:d], legal, n, state[R.NUM_PLAYERS], scratch[R.S_SETB : _S_VALUES],
                        scratch[_S_VALUES : _S_VALUES + n], rows)
        return net_score_move(nets, k, obs, legal, n, rng)
    p = net_prior(nets, k)
    prior = -1 if p < 0 else _choose_heuristic(p, state, scratch, n, obs, rng)
    encode_observation(state, state[R.CURRENT_PLAYER], obs[:d])
    return net_move(nets, k, obs, legal, n, prior, rng)


@njit(cache=True)
def _choose_heuristic(policy_id, state, scratch, n, obs, rng):
    """random or greedy, the ``n`` legal ids already in ``scratch``."""
    if policy_id == RANDOM:
        return scratch[R.S_ACTS + rng_below(rng, 0, n)]
    if policy_id == GREEDY:
        seat = state[R.CURRENT_PLAYER]
        encode_observation(state, seat, obs)
        return greedy_act(obs, scratch[R.S_ACTS : R.S_ACTS + n], n, state[R.NUM_PLAYERS], rng, scratch[R.S_SETB :])
    return -1
