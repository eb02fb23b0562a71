"""Compiled Sly policies: bots that run inside Numba, for simulation at scale.

A policy picks an action for the player to act from what that player may know: the
legal actions and (for informed policies) the player's own observation vector, never
the hidden parts of the state row. Each policy has a small integer id so that batched
and simulation kernels can hold one id per seat and dispatch without Python objects.

``choose(policy_id, state, legal, obs)``:
  ``state`` the game row (only its generator ``RNG`` and public/own fields are read),
  ``legal`` an int64 scratch of length >= the action count (filled here),
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

RANDOM = 0  # uniform over the legal actions

# Names users pass (``simulate(policies=[...])``, ``sly-scout simulate --policies``);
# a policy's id is its index here.
POLICY_NAMES = ("random",)


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
    return -1
