"""The ``neural`` checkpoints as compiled policies: their forward pass inside Numba.

    simulate("sly", 100_000, players=2, policies=["neural", "greedy"])
    simulate("scout", 10_000, players=4, policies="neural:path=run/final.npz,greedy,greedy,neural")
    SingleAgentVecEnv("scout", 256, opponents="neural", num_players=4)      # sly-scout train --fast
    make("ismcts", rollout="neural")

Names. ``"neural"`` plays the checkpoint shipped for the game, player count and options
(:func:`sly_scout_env.netfile.shipped_for`: a count without one is refused naming the
counts that have one); ``"neural:path=FILE"`` plays a checkpoint of your own (checked
against the table); ``":temperature=T"`` after either draws each move from the softmax of
the network's logits divided by ``T`` instead of playing its argmax (an opponent that
varies its play, for training: ``sly-scout train --fast --opponents neural:temperature=1``).
:func:`compiled_policies` turns one name per seat into policy ids and the packed networks
``nets``.

Why the weights travel as an argument: a Numba kernel compiled with ``cache=True`` would
bake module globals into its cache, and the networks are data chosen at run time. So
every ``policies.choose`` takes ``nets``, one read-only float32 array holding every
network a run plays (an empty array when no seat plays ``neural``). Policy id
``policies.NEURAL + k`` plays network ``k``; a table with several checkpoints (yours
against the shipped one) holds one network per distinct file and temperature.

The forward pass is compiled in ``sly_scout_env/kernels.py`` (it knows no game; the game
folders' ``policies.choose`` call it); this module packs the networks and resolves names.

Layout of ``nets`` (integers stored as float32, exact below 2**24)::

    [K, offset_0 .. offset_{K-1}, net_0, net_1, ...]
    net: [observation size, L, activation, prior id, prior weight, kind, rows, in,
          temperature, h_1 .. h_L, out,
          layer 1 .. L: weight transposed (in, out) row-major (an action scorer's layers
                        2 .. L: (out, in) row-major), bias (out,),
          head: weight (out, h_L) row-major, bias (out,)]

``kind`` 2 is a value network (the checkpoint's optional ``vw*`` arrays: ``in`` the
observation size, ``out`` 1, read by ``kernels.net_value``; :func:`search_nets` packs it
for the compiled search). ``kind`` 0 reads the observation (``in`` = observation size, ``out`` = the action count,
``rows`` 0); kind 1 is an action scorer (netfile's ``inputs: "action_features"``: ``in``
the game's feature count, ``out`` 1, ``rows`` the table's action count, which bounds the
legal actions of a position; no prior).

Hidden layers are stored transposed so that the forward pass adds ``x_j * W[:, j]`` over
the non-zero inputs only (observations are mostly zeros, and so are half of ReLU's
activations) in loops Numba vectorizes; the head computes the logits of the legal actions
only. An action scorer runs its rows through the layers ``kernels.SCORER_BLOCK`` at a
time: the first layer adds the columns every legal move shares once, then each row's own;
the later layers keep a row per output, read once for the block's rows.
The workspace is the caller's ``obs`` buffer after the observation: an action scorer's
feature rows first (the game's ``policies`` writes the rows of the legal actions there
with its ``features`` kernel), then two halves for the hidden activations (a block's
rows of them for an action scorer). ``choose`` allocates nothing and the shared
``nets`` is only read, so rows may run in parallel. Callers size ``obs`` with
:func:`obs_size`.

The move: the masked argmax of the logits (plus ``prior weight`` at the prior policy's
move when the checkpoint has a prior), the lowest legal id among equal logits, as
``NeuralPolicy.act(deterministic=True)``; an action scorer runs its MLP on each legal
action's row and plays the argmax of those logits. With a temperature ``T`` > 0 either
kind plays the argmax of ``logit / T + g``, ``g`` a Gumbel draw per legal action from the
policy's generator word: a draw from ``softmax(logits / T)`` in one pass, no buffer
(the Gumbel-max trick), the same moves for the same seed. The sums run in float32 in another order than
numpy's, so the two can differ only where two legal logits are within float32 rounding
(tests/test_netpolicy.py compares them on positions of every shipped checkpoint,
tests/test_scorer_checkpoint.py for action scorers).
"""

from __future__ import annotations

import json

import numpy as np

from . import kernels as K
from .games import get_game
from .kernels import NO_NETS, work_size  # noqa: F401  (part of this module's interface)
from .netfile import ACTIVATIONS, CheckpointError, load, shipped_for, table_sizes

# The activation codes of the layout (kernels.net_move reads them).
ACTIVATION_CODES = {"Tanh": K.NET_TANH, "ReLU": K.NET_RELU}
assert set(ACTIVATION_CODES) == set(ACTIVATIONS)
_FLOAT32_EXACT = 2**24
NEURAL_PARAMS = ("path", "temperature")  # what ``neural:key=value`` may name (parse_name)


def _block(layers, head, observation_size, activation, prior_id, weight, kind, rows, temperature=0.0) -> np.ndarray:
    """One network of the layout (module docstring) as float32."""
    sizes = [w.shape[0] for w, _ in layers] + [head[0].shape[0]]
    first = (layers[0][0] if layers else head[0]).shape[1]
    parts = [np.array([observation_size, len(layers), ACTIVATION_CODES[activation], prior_id, weight, kind, rows,
                       first, temperature] + sizes, dtype=np.float32)]
    for l, (w, b) in enumerate(layers):  # w: (out, in); stored transposed but an action scorer's later layers
        parts += [np.ascontiguousarray(w if l > 0 and kind == K.NET_SCORER else w.T).ravel(), b]
    parts += [head[0].ravel(), head[1]]
    return np.concatenate(parts).astype(np.float32)


def _join(blocks) -> np.ndarray:
    k = len(blocks)
    offsets = np.cumsum([1 + k] + [len(b) for b in blocks[:-1]])
    if offsets[-1] + len(blocks[-1]) >= _FLOAT32_EXACT:
        raise ValueError(f"{k} networks of {sum(map(len, blocks))} weights in all are too large to pack "
                         f"(at most {_FLOAT32_EXACT} floats)")
    return np.concatenate([np.array([k], np.float32), offsets.astype(np.float32)] + blocks)


def pack(policies, prior_ids, temperatures=None) -> np.ndarray:
    """``nets`` for the :class:`~sly_scout_env.netfile.NeuralPolicy` list ``policies``;
    ``prior_ids[k]``: the compiled policy id of network ``k``'s prior (-1: none);
    ``temperatures[k]``: network ``k`` draws its moves at that temperature (None or 0: argmax)."""
    if not policies:
        return NO_NETS.copy()
    blocks = []
    temperatures = [0.0] * len(policies) if temperatures is None else temperatures
    for p, prior_id, temperature in zip(policies, prior_ids, temperatures):
        weight = 0.0 if p.prior is None else float(p.prior["weight"])
        kind, rows = (K.NET_SCORER, p.num_actions) if p.scores_actions else (K.NET_OBSERVATION, 0)
        blocks.append(_block(p.layers, p.head, p.observation_size, p.meta["activation"], prior_id, weight, kind, rows,
                             float(temperature or 0.0)))
    return _join(blocks)


def search_nets(policy, prior: bool = True, value: bool = True) -> tuple[np.ndarray, int, int]:
    """``(nets, prior index, value index)`` for the compiled search's guide (index -1: not used).

    ``prior``: the policy network's logits rank the edges (PUCT); ``value``: its value network
    ends simulations (CheckpointError when the checkpoint has none). A prior bot of the
    checkpoint is not added to the logits inside the search.
    """
    from .netfile import CheckpointError

    blocks, ip, iv = [], -1, -1
    if prior:
        kind, rows = (K.NET_SCORER, policy.num_actions) if policy.scores_actions else (K.NET_OBSERVATION, 0)
        ip = len(blocks)
        blocks.append(_block(policy.layers, policy.head, policy.observation_size, policy.meta["activation"], -1, 0.0,
                             kind, rows))
    if value:
        if not policy.has_value:
            raise CheckpointError(f"the checkpoint {policy.source} has no value network, so it cannot end the "
                                  "search's simulations (sly-scout exit writes checkpoints with one; or use the "
                                  "prior only)")
        iv = len(blocks)
        layers, head = policy.value_net
        blocks.append(_block(layers, head, policy.observation_size, policy.meta["activation"], -1, 0.0, K.NET_VALUE,
                             0))
    if not blocks:
        return NO_NETS.copy(), -1, -1
    return _join(blocks), ip, iv


def obs_size(observation_size: int, nets) -> int:
    """Length of the float32 ``obs`` buffer that ``choose`` needs with ``nets``."""
    return int(observation_size) + int(work_size(nets))


def parse_name(name: str, names) -> tuple[str, dict]:
    """``"neural:path=FILE:temperature=T"`` -> ``("neural", {"path": FILE, "temperature": T})``;
    ValueError naming the bad part and the allowed forms."""
    forms = "neural:path=FILE, neural:temperature=T or both"
    if not isinstance(name, str):
        raise ValueError(f"policy {name!r} is not a name; give one of: {', '.join(names)} (or {forms})")
    base, _, rest = name.strip().partition(":")
    if base not in names:
        raise ValueError(f"unknown compiled policy {name!r}; allowed: {', '.join(names)} (or {forms})")
    params = {}
    for item in rest.split(":") if rest else ():  # the bots' spec form: name:key=value
        key, eq, value = item.partition("=")
        key, value = key.strip(), value.strip()
        if not eq or key not in NEURAL_PARAMS or base != "neural" or not value or key in params:
            raise ValueError(f"policy {name!r}: {item!r} is not allowed; only neural takes parameters, each once: "
                             "path=FILE (a checkpoint of your own), temperature=T (a number > 0: draw each move from "
                             "the softmax of the logits / T instead of playing the argmax)")
        if key == "temperature":
            try:
                t = float(value)
            except ValueError:
                t = float("nan")
            if not (t > 0 and np.isfinite(t)):
                raise ValueError(f"policy {name!r}: temperature={value!r} is not allowed; give a number > 0 (small: "
                                 "close to the argmax; 1: the network's own distribution; large: close to uniform)")
            params[key] = t
        else:
            params[key] = value
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

    ``names``: ``"random"``, ``"greedy"``, ``"neural"``, ``"neural:path=FILE"``,
    ``"neural:temperature=T"`` (the game's ``policies.POLICY_NAMES``, neural with an optional
    checkpoint and sampling temperature). ``options``:
    the table's game options (they pick the shipped checkpoint). ValueError (or its
    subclass CheckpointError) naming the bad name or checkpoint.
    """
    pol = get_game(game).module("policies")
    options = dict(options or {})
    ids, policies, priors, temperatures, seen = [], [], [], [], {}
    for name in names:
        base, params = parse_name(name, pol.POLICY_NAMES)
        if base != "neural":
            ids.append(pol.policy_id(base))
            continue
        p = _checkpoint(game, num_players, options, params.get("path"))
        key = (p.source, params.get("temperature", 0.0))  # one network per file and temperature
        if key not in seen:
            prior_id = -1
            if p.prior is not None:
                if p.prior["bot"] not in pol.POLICY_NAMES or p.prior["bot"] == "neural":
                    raise CheckpointError(f"the neural checkpoint {p.source} adds the moves of the bot "
                                          f"{p.prior['bot']!r}, which has no compiled {game} policy (compiled "
                                          f"priors: {', '.join(n for n in pol.POLICY_NAMES if n != 'neural')})")
                prior_id = pol.policy_id(p.prior["bot"])
            seen[key] = len(policies)
            policies.append(p)
            priors.append(prior_id)
            temperatures.append(key[1])
        ids.append(pol.NEURAL + seen[key])
    return np.array(ids, dtype=np.int64), pack(policies, priors, temperatures)
