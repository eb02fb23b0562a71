"""The ``neural`` checkpoint format: a trained policy network as a torch-free numpy ``.npz``.

The reader lives in the core package so that the compiled ``neural`` policy
(:mod:`sly_scout_env.netpolicy`: simulation, the fast learner's opponents, ISMCTS
rollouts) and the ``neural`` bot (``agents/bots/neural.py``) load the same files the same way.

File format (version 2; version-1 files still load): an ``.npz`` read with
``np.load(allow_pickle=False)``::

    format      str   "sly-scout-neural"
    meta        str   JSON: format_version, inputs (version 2, below), game, players,
                      observation_size, num_actions, activation, hidden (layer sizes),
                      options (trained on), trained (command, wall time, timesteps, date ...:
                      free-form provenance), optional prior {"bot": SPEC, "weight": W};
                      with inputs "action_features" also features (the column names)
    w0, b0 ...  float32  hidden layer k: weight (out, in), bias (out,)
    w_out, b_out float32  the output layer: weight (out, last hidden), bias (out,)
    vw0, vb0 ... vw_out, vb_out  float32, optional: a value network (below)

Two kinds of network, by ``meta["inputs"]`` (a version-1 file has none: ``"observation"``):

``"observation"``: the MLP reads the acting seat's observation vector (``w0`` of width
    ``observation_size``, or ``w_out`` without hidden layers) and gives one logit per
    action id (``w_out`` of ``num_actions`` rows). The forward pass is ``act(W x + b)`` per
    hidden layer, then the logits; with a prior, ``W`` is added to the logit of the prior
    bot's move in this position.
``"action_features"``: an action scorer. For each legal action the game's ``features``
    module (``GameSpec.optional_module("features")``; Sly has none and refuses such files)
    computes a row of per-action features from the acting seat's observation; the same MLP
    (``w0`` of width ``FEATURE_SIZE``, ``w_out`` of one row) maps each row to that action's
    logit, illegal actions get -inf, so the move is the argmax over the legal actions.
    ``meta["features"]`` must equal the game's ``FEATURE_NAMES`` (a checkpoint for another
    feature set is refused naming the difference); no prior.

A checkpoint may also carry a **value network** (``vw*``/``vb*``, written by
``sly-scout exit``): an MLP of the same activation from the acting seat's observation to
one output ``z``; ``value(observation) = 1 / (1 + exp(-z))`` estimates that seat's reward
in [0, 1] (the search's ``value`` measure at its horizon). The compiled search ends a
simulation with it (``ismcts:guide=neural``, ``sly_scout_env.ismcts``); the ``neural`` bot
ignores it.

Every check is made at load time, with an error naming the file and what is wrong:
unreadable / truncated file, missing arrays, another format version, unknown game or
player count, layer shapes that do not chain, non-finite weights, another feature set.
(Whether the prior bot exists is checked by its user: the ``neural`` bot looks it up among
the registered bots, the compiled policy among the compiled ones.)
"""

from __future__ import annotations

import json
import os
import zipfile
from functools import lru_cache

import numpy as np

from .checks import file_version

FORMAT = "sly-scout-neural"
FORMAT_VERSION = 2  # what save writes
READ_VERSIONS = (1, 2)
# meta["inputs"]: what the network reads (module docstring); version 1 knows the first only.
OBSERVATION = "observation"
ACTION_FEATURES = "action_features"
INPUTS = (OBSERVATION, ACTION_FEATURES)

_BLAS_ONE_THREAD = 2**18  # multiply-adds of one matrix product below which OpenBLAS uses one thread

ACTIVATIONS = {
    "Tanh": np.tanh,
    "ReLU": lambda x: np.maximum(x, 0.0),
}


# The bots' move helpers, here so that NeuralPolicy.act and sly_scout_env.agents.bots.base (every bot) share them.
def legal_actions(action_mask: np.ndarray) -> np.ndarray:
    """The legal action ids of a mask; raises ValueError when there is none."""
    legal = np.flatnonzero(np.asarray(action_mask))
    if legal.size == 0:
        raise ValueError("the action mask has no legal action (is the game over, or is it another seat's turn?)")
    return legal


def choose_from_logits(legal: np.ndarray, logits: np.ndarray, deterministic: bool, rng=None) -> int:
    """The legal id with the largest logit, or (``deterministic=False``) a sample from their softmax.

    ``logits[i]`` belongs to ``legal[i]``; ``rng`` (a numpy Generator) draws the sample.
    """
    if deterministic:
        return int(legal[int(np.argmax(logits))])
    p = np.exp(logits - logits.max())
    p /= p.sum()
    rng = rng if rng is not None else np.random.default_rng()
    return int(rng.choice(legal, p=p))


class CheckpointError(ValueError):
    """A neural checkpoint that cannot be used (unreadable, malformed or for another table)."""


class NeuralPolicy:
    """The weights and metadata of one checkpoint; ``logits(obs, mask)``, ``act(obs, mask)``."""

    def __init__(self, layers, head, meta: dict, source: str = "<memory>", value_net=None):
        self.source = source
        self.meta = dict(meta)
        self.layers = [(np.ascontiguousarray(w, np.float32), np.ascontiguousarray(b, np.float32)) for w, b in layers]
        self.head = (np.ascontiguousarray(head[0], np.float32), np.ascontiguousarray(head[1], np.float32))
        # the value network (hidden layers, head), or None
        self.value_net = None if value_net is None else (
            [(np.ascontiguousarray(w, np.float32), np.ascontiguousarray(b, np.float32)) for w, b in value_net[0]],
            (np.ascontiguousarray(value_net[1][0], np.float32), np.ascontiguousarray(value_net[1][1], np.float32)))
        # the game's features module for an action scorer (set by _validate), else None
        self.features = None
        _validate(self, source)
        if self.meta["format_version"] >= 2:  # version 2 states what the network reads (what save writes)
            self.meta.setdefault("inputs", OBSERVATION)
        self.game = self.meta["game"]
        self.players = self.meta["players"]
        self.observation_size = self.meta["observation_size"]
        self.num_actions = self.meta["num_actions"]
        self._act = ACTIVATIONS[self.meta["activation"]]

    @property
    def inputs(self) -> str:
        """What the network reads: ``"observation"`` or ``"action_features"`` (module docstring)."""
        return self.meta.get("inputs", OBSERVATION)

    @property
    def scores_actions(self) -> bool:
        """True for an action scorer (``inputs == "action_features"``): one logit per feature row."""
        return self.inputs == ACTION_FEATURES

    def _forward(self, x):
        for w, b in self.layers:
            x = self._act(x @ w.T + b)
        w, b = self.head
        return x @ w.T + b

    def logits(self, observation, action_mask=None) -> np.ndarray:
        """The logits of every action id (float32).

        An action scorer needs ``action_mask`` (it computes the rows of the legal actions
        only) and gives -inf to the illegal ones; the observation kind ignores the mask and
        also takes a batch of observations (leading axes).
        """
        x = np.asarray(observation, dtype=np.float32)
        if x.shape[-1] != self.observation_size:
            raise CheckpointError(f"observation of size {x.shape[-1]} given to the checkpoint {self.source} for size "
                                  f"{self.observation_size} ({self.game}, {self.players} players, options "
                                  f"{self.meta.get('options', {})})")
        if not self.scores_actions:
            return self._forward(x)
        if action_mask is None:
            raise ValueError(f"the checkpoint {self.source} scores each legal action (inputs 'action_features'): "
                             "pass the action mask, logits(observation, action_mask)")
        mask = np.asarray(action_mask)
        if x.ndim != 1 or mask.shape != (self.num_actions,):
            raise ValueError(f"the checkpoint {self.source} scores the actions of one position: give one observation "
                             f"of size {self.observation_size} and a mask of {self.num_actions} actions (got shapes "
                             f"{x.shape} and {mask.shape})")
        legal = legal_actions(mask)
        rows, which = _distinct_rows(self.features.features_of(x, legal, self.players))
        z = np.full(self.num_actions, -np.inf, dtype=np.float32)
        # Blocks of rows small enough for a one-thread BLAS product (OpenBLAS goes multi-threaded
        # above 2**18 multiply-adds, which costs milliseconds on a loaded machine: measured p99
        # 4 ms a move with 128x128 layers; in blocks, 0.15 ms). The rows are independent.
        widest = max(w.shape[0] * w.shape[1] for w, _ in self.layers + [self.head])
        step = max(1, _BLAS_ONE_THREAD // widest)
        out = np.concatenate([self._forward(rows[i : i + step]) for i in range(0, len(rows), step)])
        z[legal] = out[which, 0]
        return z

    @property
    def has_value(self) -> bool:
        """True when the checkpoint carries a value network (module docstring)."""
        return self.value_net is not None

    def value(self, observation) -> np.ndarray:
        """The value network's estimate in (0, 1) of the acting seat's reward (leading axes: a batch)."""
        if self.value_net is None:
            raise CheckpointError(f"the checkpoint {self.source} has no value network (sly-scout exit writes one)")
        x = np.asarray(observation, dtype=np.float32)
        if x.shape[-1] != self.observation_size:
            raise CheckpointError(f"observation of size {x.shape[-1]} given to the checkpoint {self.source} for size "
                                  f"{self.observation_size}")
        for w, b in self.value_net[0]:
            x = self._act(x @ w.T + b)
        w, b = self.value_net[1]
        return 1.0 / (1.0 + np.exp(-(x @ w.T + b)[..., 0]))

    @property
    def prior(self) -> dict | None:
        """``{"bot": spec, "weight": w}`` when the policy adds a prior bot's move to its logits, else None."""
        return self.meta.get("prior")

    def act(self, observation, action_mask, deterministic: bool = True, rng=None, prior_action=None) -> int:
        """Masked argmax (or sample); ``prior_action``: the prior bot's move, required when there is a prior."""
        legal = legal_actions(action_mask)
        z = self.logits(observation, action_mask).astype(np.float64)
        if self.prior is not None:
            if prior_action is None:
                raise ValueError(f"the checkpoint {self.source} adds the move of the bot {self.prior['bot']!r} to its "
                                 "logits: pass prior_action (the neural bot does this itself)")
            z[int(prior_action)] += self.prior["weight"]
        return choose_from_logits(legal, z[legal], deterministic, rng)

    def save(self, path: str) -> str:
        """Write the checkpoint (format version 2, ``inputs`` stated); returns ``path``."""
        meta = dict(self.meta, format_version=FORMAT_VERSION, inputs=self.inputs)
        arrays = {"format": np.array(FORMAT), "meta": np.array(json.dumps(meta, sort_keys=True))}
        for k, (w, b) in enumerate(self.layers):
            arrays[f"w{k}"], arrays[f"b{k}"] = w, b
        arrays["w_out"], arrays["b_out"] = self.head
        if self.value_net is not None:
            for k, (w, b) in enumerate(self.value_net[0]):
                arrays[f"vw{k}"], arrays[f"vb{k}"] = w, b
            arrays["vw_out"], arrays["vb_out"] = self.value_net[1]
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        with open(path, "wb") as f:  # a file object: np.savez_compressed would append .npz to a str path
            np.savez_compressed(f, **arrays)
        return path


def _distinct_rows(rows: np.ndarray):
    """``(distinct rows, index of each row among them)``.

    Why: equal feature rows (e.g. Scouts into equivalent slots) must get equal logits, so
    that the argmax is the lowest such id, as in the compiled policy; a matrix product may
    round equal rows differently by their position in the batch. Rows are compared as bytes
    (``+ 0.0`` turns -0.0 into 0.0), which is ten times faster than ``np.unique(axis=0)``.
    """
    rows = np.ascontiguousarray(rows + np.float32(0.0))
    keys = rows.view(np.dtype((np.void, rows.shape[1] * rows.itemsize))).reshape(-1)
    _, first, which = np.unique(keys, return_index=True, return_inverse=True)
    return rows[first], which.reshape(-1)


def _validate(policy: NeuralPolicy, source: str) -> None:
    """Check the metadata against the game registry and the weights' shapes."""
    from .games import GAMES, get_game

    meta = policy.meta

    def bad(what):
        raise CheckpointError(f"neural checkpoint {source}: {what}")

    version = meta.get("format_version")
    if isinstance(version, bool) or version not in READ_VERSIONS:
        bad(f"format_version {version!r} is not supported (this version reads "
            f"{', '.join(map(str, READ_VERSIONS))})")
    inputs = meta.get("inputs", OBSERVATION)
    if inputs not in INPUTS:
        bad(f"inputs {inputs!r} is not one of {', '.join(INPUTS)}")
    if version == 1 and inputs != OBSERVATION:
        bad(f"inputs {inputs!r} needs format_version 2 (version 1 networks read the observation)")
    for key in ("game", "players", "observation_size", "num_actions", "activation", "options"):
        if key not in meta:
            bad(f"metadata has no {key!r}")
    if meta["game"] not in GAMES:
        bad(f"game {meta['game']!r} is not one of {', '.join(GAMES)}")
    spec = get_game(meta["game"])
    if meta["players"] not in spec.player_counts:
        bad(f"players {meta['players']!r} is not a player count of {meta['game']} ({spec.player_counts})")
    if not isinstance(meta["options"], dict):
        bad(f"options {meta['options']!r} is not a mapping")
    prior = meta.get("prior")
    if prior is not None and (not isinstance(prior, dict) or not isinstance(prior.get("bot"), str) or isinstance(
            prior.get("weight"), bool) or not isinstance(prior.get("weight"), (int, float))):
        bad(f"prior {prior!r} is not of the form {{'bot': SPEC, 'weight': NUMBER}}")
    if meta["activation"] not in ACTIVATIONS:
        bad(f"activation {meta['activation']!r} is not supported ({', '.join(ACTIVATIONS)})")
    expected = table_sizes(meta["game"], meta["players"], json.dumps(meta["options"], sort_keys=True))
    if (meta["observation_size"], meta["num_actions"]) != expected:
        bad(f"observation/action sizes {meta['observation_size']}/{meta['num_actions']} are not those of "
            f"{meta['game']} with {meta['players']} players and options {meta['options']} "
            f"({expected[0]}/{expected[1]})")
    size, outputs = meta["observation_size"], meta["num_actions"]
    if inputs == ACTION_FEATURES:
        size, outputs = _feature_width(policy, bad), 1
    for k, (w, b) in enumerate(policy.layers + [policy.head]):
        name = f"layer {k}" if k < len(policy.layers) else "the output layer"
        if w.ndim != 2 or b.shape != (w.shape[0],) or w.shape[1] != size:
            bad(f"{name} has weight shape {w.shape} and bias shape {b.shape}; "
                f"expected ({b.shape[0] if b.ndim else '?'}, {size}) and a bias of its row count")
        if not (np.isfinite(w).all() and np.isfinite(b).all()):
            bad(f"{name} holds non-finite weights")
        size = w.shape[0]
    if policy.value_net is not None:
        vsize = meta["observation_size"]
        for k, (w, b) in enumerate(policy.value_net[0] + [policy.value_net[1]]):
            name = f"value layer {k}" if k < len(policy.value_net[0]) else "the value output layer"
            if w.ndim != 2 or b.shape != (w.shape[0],) or w.shape[1] != vsize:
                bad(f"{name} has weight shape {w.shape} and bias shape {b.shape}; "
                    f"expected ({b.shape[0] if b.ndim else '?'}, {vsize}) and a bias of its row count")
            if not (np.isfinite(w).all() and np.isfinite(b).all()):
                bad(f"{name} holds non-finite weights")
            vsize = w.shape[0]
        if vsize != 1:
            bad(f"the value output layer gives {vsize} values; a value network gives one (vw_out of one row)")
    if size != outputs and inputs == ACTION_FEATURES:
        bad(f"the output layer gives {size} values per action row; an action scorer gives one (w_out of one row)")
    if size != outputs:
        bad(f"the output layer gives {size} logits; the game has {meta['num_actions']} actions")


def _feature_width(policy: NeuralPolicy, bad) -> int:
    """An action scorer's checks against its game's ``features`` module; the feature count."""
    from .games import get_game

    meta = policy.meta
    features = get_game(meta["game"]).optional_module("features")
    if features is None:
        bad(f"it scores actions from per-action features (inputs {ACTION_FEATURES!r}), and {meta['game']} has no "
            "features module; its checkpoints read the observation")
    if meta.get("prior") is not None:
        bad(f"an action scorer (inputs {ACTION_FEATURES!r}) takes no prior (it has {meta['prior']!r})")
    names = meta.get("features")
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        bad(f"metadata 'features' {names!r} is not the list of feature names an action scorer needs")
    want = list(features.FEATURE_NAMES)
    if names != want:
        missing = [n for n in want if n not in names]
        extra = [n for n in names if n not in want]
        what = (f"missing {missing}" if missing else "") + ("; " if missing and extra else "") + (
            f"unknown {extra}" if extra else "")
        bad(f"it was trained on another feature set than {meta['game']}'s ({what or 'another order'}; "
            f"this version's {len(want)} features: {', '.join(want)})")
    policy.features = features
    return features.FEATURE_SIZE


@lru_cache(maxsize=64)
def table_sizes(game: str, players: int, options_json: str) -> tuple[int, int]:
    """(observation size, action count) of ``game`` with ``players`` and the options (a JSON text)."""
    from .games import get_game

    options = {k: v for k, v in json.loads(options_json).items() if k in get_game(game).option_names}
    info = get_game(game).module("batch").new_batch(1, num_players=players, **options)[3]
    return int(info["observation_size"]), int(info["num_actions"])


# -- loading -------------------------------------------------------------------------------
_CACHE: dict = {}


def load(path) -> NeuralPolicy:
    """Read and validate a checkpoint (cached per file version); CheckpointError when unusable."""
    path, key = file_version(path, "a neural .npz checkpoint", "sly-scout train writes OUT/final.npz",
                             CheckpointError)
    if key not in _CACHE:
        _CACHE[key] = _read(path)
    return _CACHE[key]


def _read(path: str) -> NeuralPolicy:
    try:
        with np.load(path, allow_pickle=False) as z:
            arrays = {k: z[k] for k in z.files}
    except (zipfile.BadZipFile, EOFError, OSError, ValueError, KeyError) as exc:
        raise CheckpointError(f"neural checkpoint {path}: not a readable .npz (truncated or corrupt file?): "
                              f"{type(exc).__name__}: {exc}") from None
    if "format" not in arrays or str(arrays["format"]) != FORMAT:
        raise CheckpointError(f"neural checkpoint {path}: not a {FORMAT} file (its 'format' entry is "
                              f"{str(arrays['format']) if 'format' in arrays else 'missing'})")
    try:
        meta = json.loads(str(arrays["meta"]))
    except (KeyError, json.JSONDecodeError) as exc:
        raise CheckpointError(f"neural checkpoint {path}: no readable 'meta' entry ({exc})") from None
    if not isinstance(meta, dict):
        raise CheckpointError(f"neural checkpoint {path}: 'meta' is not a JSON object")
    policy = _read_mlp(arrays, path, "", "the output layer")
    for name, a in arrays.items():
        if name not in ("format", "meta") and not np.issubdtype(a.dtype, np.floating):
            raise CheckpointError(f"neural checkpoint {path}: array {name} has dtype {a.dtype}, not floating point")
    value_net = None
    if "vw_out" in arrays or "vb_out" in arrays or "vw0" in arrays:
        value_net = _read_mlp(arrays, path, "v", "the value output layer")
    return NeuralPolicy(*policy, meta, source=path, value_net=value_net)


def _read_mlp(arrays: dict, path: str, prefix: str, head_name: str) -> tuple:
    """``(hidden layers, head)`` from the arrays ``{prefix}w0, {prefix}b0, ..., {prefix}w_out, {prefix}b_out``."""
    layers = []
    while f"{prefix}w{len(layers)}" in arrays:
        k = len(layers)
        if f"{prefix}b{k}" not in arrays:
            raise CheckpointError(f"neural checkpoint {path}: {prefix}w{k} has no bias {prefix}b{k}")
        layers.append((arrays[f"{prefix}w{k}"], arrays[f"{prefix}b{k}"]))
    if f"{prefix}w_out" not in arrays or f"{prefix}b_out" not in arrays:
        raise CheckpointError(f"neural checkpoint {path}: {head_name} ({prefix}w_out, {prefix}b_out) is missing")
    return layers, (arrays[f"{prefix}w_out"], arrays[f"{prefix}b_out"])


def shipped() -> list[NeuralPolicy]:
    """The checkpoints shipped with the games (``GameSpec.checkpoint_files``), game by game."""
    from importlib.resources import as_file

    from .games import all_games

    out = []
    for spec in all_games():
        for resource in spec.checkpoint_files():
            with as_file(resource) as path:
                out.append(load(str(path)))
    return out


def shipped_expert_for(game: str, players: int, options: dict | None = None) -> NeuralPolicy | None:
    """The shipped expert network for a table (``GameSpec.expert_files``), or None when the
    table has none (the ``expert`` bot then puts the ``neural`` checkpoint inside the search)."""
    from importlib.resources import as_file

    from .games import get_game

    spec = get_game(game)
    options = {k: v for k, v in (options or {}).items() if k in spec.option_names}
    size = table_sizes(game, players, json.dumps(options, sort_keys=True, default=str))[0]
    for resource in spec.expert_files():
        with as_file(resource) as path:
            p = load(str(path))
        if p.players == players and p.observation_size == size:
            return p
    return None


def shipped_for(game: str, players: int, options: dict | None = None) -> NeuralPolicy:
    """The shipped checkpoint for a table; CheckpointError naming what exists when there is none."""
    from .games import get_game

    spec = get_game(game)
    mine = [p for p in shipped() if p.game == game]
    counts = sorted({p.players for p in mine})
    if players not in counts:
        have = ", ".join(map(str, counts)) if counts else "none"
        raise CheckpointError(f"the neural bot has no shipped checkpoint for {game} with {players} players; "
                              f"player counts with one: {have} (or give neural:path=FILE)")
    options = {k: v for k, v in (options or {}).items() if k in spec.option_names}
    size = table_sizes(game, players, json.dumps(options, sort_keys=True, default=str))[0]
    fits = [p for p in mine if p.players == players and p.observation_size == size]
    if not fits:
        trained = "; ".join(str(p.meta["options"] or "rule defaults") for p in mine if p.players == players)
        raise CheckpointError(f"the neural bot has no shipped checkpoint for {game} with {players} players and "
                              f"options {options}: those for {players} players were trained on {trained} and their "
                              "observation size differs (or give neural:path=FILE)")
    return fits[0]
