"""Compiled helpers that know no game, shared by the game batch modules and the SB3 adapter.

Why a module of their own: each game's ``batch.py`` writes its step kernels out (Numba
never caches closures, see ``sly_scout_env/sly/batch.py``); what needs no game knowledge
is written once, here.
"""

from __future__ import annotations

from numba import njit


@njit(cache=True)
def win_rewards(num_p, out):
    """Turn the final scores in ``out[:num_p]`` into the AEC env's win rewards, in place.

    The winners (top score) share +1, the others share -1; all tied: 0 each.
    """
    best = out[0]
    for p in range(1, num_p):
        if out[p] > best:
            best = out[p]
    winners = 0
    for p in range(num_p):
        if out[p] == best:
            winners += 1
    for p in range(num_p):
        if winners == num_p:
            out[p] = 0.0
        elif out[p] == best:
            out[p] = 1.0 / winners
        else:
            out[p] = -1.0 / (num_p - winners)
