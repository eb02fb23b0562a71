"""The ``neural`` checkpoints as compiled policies: their forward pass inside Numba.

    simulate("sly", 100_000, players=2, policies=["neural", "greedy"])
    simulate("scout", 10_000, players=4, policies="neural:path=run/final.npz,greedy,greedy,neural")
    SingleAgentVecEnv("scout", 256, opponents="neural", num_players=4)      # sly-scout train --fast
    make("ismcts", rollout="neural")

Names. ``"neural"`` plays the checkpoint shipped for the game, player count and options
(:func:`sly_scout_env.netfile.shipped_for`: a count without one is refused naming the
counts that have one); ``"neural:path=FILE"`` plays a checkpoint of your own (checked
against the table). :func:`compiled_policies` turns one name per seat into policy ids and
the packed networks ``nets``.

Why the weights travel as an argument: a Numba kernel compiled with ``cache=True`` would
bake module globals into its cache, and the networks are data chosen at run time. So
every ``policies.choose`` takes ``nets``, one read-only float32 array holding every
network a run plays (an empty array when no seat plays ``neural``). Policy id
``policies.NEURAL + k`` plays network ``k``; a table with several checkpoints (yours
against the shipped one) holds one network per distinct file.

Layout of ``nets`` (integers stored as float32, exact below 2**24)::

    [K, offset_0 .. offset_{K-1}, net_0, net_1, ...]
    net: [in, L, activation, prior id, prior weight, h_1 .. h_L, out,
          layer 1 .. L: weight transposed (in, out) row-major, bias (out,),
          head: weight (out, h_L) row-major, bias (out,)]

Hidden layers are stored transposed so that the forward pass adds ``x_j * W[:, j]`` over
the non-zero inputs only (the observations are mostly zeros) in loops Numba vectorizes;
the head computes the logits of the legal actions only. The hidden activations go to
the caller's ``obs`` buffer after the observation (``obs[in:]``): ``choose`` allocates
nothing and the shared ``nets`` is only read, so rows may run in parallel. Callers size
``obs`` with :func:`obs_size`.

The move: the masked argmax of the logits (plus ``prior weight`` at the prior policy's
move when the checkpoint has a prior), the lowest legal id among equal logits, as
``NeuralPolicy.act(deterministic=True)``. The sums run in float32 in another order than
numpy's, so the two can differ only where two legal logits are within float32 rounding
(tests/test_netpolicy.py compares them on positions of every shipped checkpoint).
"""

from __future__ import annotations

import json
import math

import numpy as np
from numba import njit

from .games import get_game
from .netfile import ACTIVATIONS, CheckpointError, load, shipped_for, table_sizes

NO_NETS = np.zeros(0, dtype=np.float32)  # the ``nets`` of a run in which no seat plays neural
ACTIVATION_CODES = {name: code for code, name in enumerate(ACTIVATIONS)}  # Tanh 0, ReLU 1
_TANH = ACTIVATION_CODES["Tanh"]  # the other code is ReLU
_HEADER = 5  # in, L, activation, prior id, prior weight
_FLOAT32_EXACT = 2**24


def pack(policies, prior_ids) -> np.ndarray:
    """``nets`` for the :class:`~sly_scout_env.netfile.NeuralPolicy` list ``policies``;
    ``prior_ids[k]``: the compiled policy id of network ``k``'s prior (-1: none)."""
    if not policies:
        return NO_NETS.copy()
    blocks = []
    for p, prior_id in zip(policies, prior_ids):
        sizes = [w.shape[0] for w, _ in p.layers] + [p.head[0].shape[0]]
        weight = 0.0 if p.prior is None else float(p.prior["weight"])
        parts = [np.array([p.observation_size, len(p.layers), ACTIVATION_CODES[p.meta["activation"]], prior_id,
                           weight] + sizes, dtype=np.float32)]
        for w, b in p.layers:
            parts += [np.ascontiguousarray(w.T).ravel(), b]
        parts += [p.head[0].ravel(), p.head[1]]
        blocks.append(np.concatenate(parts).astype(np.float32))
    k = len(blocks)
    offsets = np.cumsum([1 + k] + [len(b) for b in blocks[:-1]])
    if offsets[-1] + len(blocks[-1]) >= _FLOAT32_EXACT:
        raise ValueError(f"{k} networks of {sum(map(len, blocks))} weights in all are too large to pack "
                         f"(at most {_FLOAT32_EXACT} floats)")
    return np.concatenate([np.array([k], np.float32), offsets.astype(np.float32)] + blocks)


@njit(cache=True)
def work_size(nets):
    """Floats of hidden activations the networks of ``nets`` need after the observation."""
    most = 0
    for k in range(int(nets[0]) if nets.shape[0] > 0 else 0):
        o = int(nets[1 + k])
        for l in range(int(nets[o + 1])):
            h = int(nets[o + _HEADER + l])
            if 2 * h > most:
                most = 2 * h
    return most


def obs_size(observation_size: int, nets) -> int:
    """Length of the float32 ``obs`` buffer that ``choose`` needs with ``nets``."""
    return int(observation_size) + int(work_size(nets))


@njit(cache=True)
def net_count(nets):
    return int(nets[0]) if nets.shape[0] > 0 else 0


@njit(cache=True)
def net_prior(nets, k):
    """The compiled policy id of network ``k``'s prior, -1 for none."""
    return int(nets[int(nets[1 + k]) + 3])


@njit(cache=True)
def net_input_size(nets, k):
    return int(nets[int(nets[1 + k])])


@njit(cache=True, inline="always")
def _axpy(a, x, y):
    """``y += a * x`` (float32 views of equal length; a loop LLVM vectorizes)."""
    for r in range(y.shape[0]):
        y[r] += a * x[r]


@njit(cache=True, fastmath={"reassoc", "contract"})
def _dot(x, w):
    """float32 dot product; reassociation lets LLVM vectorize the sum (the order differs from numpy's anyway)."""
    z = np.float32(0.0)
    for j in range(x.shape[0]):
        z += x[j] * w[j]
    return z


@njit(cache=True)
def net_move(nets, k, obs, legal, n, prior_action):
    """Network ``k``'s masked argmax over ``legal[:n]`` (ascending) for the observation in
    ``obs[:in]``, hidden activations in ``obs[in:]``; ``prior_action`` gets the prior weight."""
    o = int(nets[1 + k])
    d = int(nets[o])
    layers = int(nets[o + 1])
    act = int(nets[o + 2])
    prior_weight = nets[o + 4]
    p = o + _HEADER + layers + 1  # the first weight
    half = 0  # the two halves of the workspace hold consecutive layers' activations
    for l in range(layers):
        half = max(half, int(nets[o + _HEADER + l]))
    if obs.shape[0] < d + 2 * half:  # the kernels do not bounds-check: refuse, never overrun
        raise ValueError("netpolicy.net_move: obs must hold netpolicy.obs_size(observation size, nets) floats")
    x = obs[:d]  # the current layer's input
    for l in range(layers):
        h = int(nets[o + _HEADER + l])
        start = d + (l % 2) * half
        y = obs[start : start + h]
        bias = p + x.shape[0] * h
        y[:] = nets[bias : bias + h]
        for j in range(x.shape[0]):
            if x[j] != 0.0:  # observations are mostly zeros
                _axpy(x[j], nets[p + j * h : p + (j + 1) * h], y)
        if act == _TANH:
            for r in range(h):
                y[r] = math.tanh(y[r])
        else:
            for r in range(h):
                y[r] = max(y[r], 0.0)
        p = bias + h
        x = y
    width = x.shape[0]
    outs = int(nets[o + _HEADER + layers])
    head_bias = p + outs * width
    best = -1
    best_z = 0.0
    for i in range(n):
        a = legal[i]
        z = np.float64(_dot(x, nets[p + a * width : p + (a + 1) * width]) + nets[head_bias + a])
        if a == prior_action:
            z += prior_weight
        if best < 0 or z > best_z:
            best = a
            best_z = z
    return best


def parse_name(name: str, names) -> tuple[str, dict]:
    """``"neural:path=FILE"`` -> ``("neural", {"path": FILE})``; ValueError naming the allowed forms."""
    if not isinstance(name, str):
        raise ValueError(f"policy {name!r} is not a name; give one of: {', '.join(names)} (or neural:path=FILE)")
    base, _, rest = name.strip().partition(":")
    if base not in names:
        raise ValueError(f"unknown compiled policy {name!r}; allowed: {', '.join(names)} (or neural:path=FILE)")
    params = {}
    for item in rest.split(":") if rest else ():  # the bots' spec form: name:key=value
        key, eq, value = item.partition("=")
        if not eq or key.strip() != "path" or base != "neural" or not value.strip():
            raise ValueError(f"policy {name!r}: {item!r} is not allowed; only neural takes a parameter, "
                             "path=FILE (a checkpoint of your own)")
        params["path"] = value.strip()
    return base, params


def _checkpoint(game, num_players, options, path):
    """The checkpoint that plays ``neural`` (``path`` None: the shipped one) at this table."""
    if path is None:
        return shipped_for(game, num_players, options)
    p = load(path)
    spec = get_game(game)
    size = table_sizes(game, num_players, json.dumps({k: v for k, v in options.items() if k in spec.option_names},
                                                     sort_keys=True, default=str))[0]
    if (p.game, p.players, p.observation_size) != (game, num_players, size):
        raise CheckpointError(f"the neural checkpoint {p.source} was trained on {p.game} with {p.players} players "
                              f"(observation size {p.observation_size}); this table is {game} with {num_players} "
                              f"players and options {options} (observation size {size})")
    return p


def compiled_policies(game: str, names, num_players: int, options: dict | None = None):
    """``(ids, nets)``: the compiled policy id of each name and the packed networks.

    ``names``: ``"random"``, ``"greedy"``, ``"neural"``, ``"neural:path=FILE"`` (the
    game's ``policies.POLICY_NAMES``, neural with an optional checkpoint). ``options``:
    the table's game options (they pick the shipped checkpoint). ValueError (or its
    subclass CheckpointError) naming the bad name or checkpoint.
    """
    pol = get_game(game).module("policies")
    options = dict(options or {})
    ids, policies, priors, seen = [], [], [], {}
    for name in names:
        base, params = parse_name(name, pol.POLICY_NAMES)
        if base != "neural":
            ids.append(pol.policy_id(base))
            continue
        p = _checkpoint(game, num_players, options, params.get("path"))
        if p.source not in seen:
            prior_id = -1
            if p.prior is not None:
                if p.prior["bot"] not in pol.POLICY_NAMES or p.prior["bot"] == "neural":
                    raise CheckpointError(f"the neural checkpoint {p.source} adds the moves of the bot "
                                          f"{p.prior['bot']!r}, which has no compiled {game} policy (compiled "
                                          f"priors: {', '.join(n for n in pol.POLICY_NAMES if n != 'neural')})")
                prior_id = pol.policy_id(p.prior["bot"])
            seen[p.source] = len(policies)
            policies.append(p)
            priors.append(prior_id)
        ids.append(pol.NEURAL + seen[p.source])
    return np.array(ids, dtype=np.int64), pack(policies, priors)
