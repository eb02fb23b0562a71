"""The ``neural`` bot: a trained policy network stored as a torch-free numpy ``.npz``.

    sly-scout arena scout --players 4 --agents neural,greedy,greedy,greedy --games 1000
    sly-scout arena sly --players 2 --agents neural:path=runs/sly2/final.npz,ismcts --games 300
    sly-scout play sly --players 2 --opponents neural

    from agents import make
    bot = make("neural")                          # the shipped checkpoint for the game and count
    bot = make("neural", path="my_run/final.npz")  # a checkpoint of your own

Without ``path`` the bot picks, at ``reset``, the checkpoint shipped in
``agents/checkpoints/`` for the game, player count and observation size (Sly's Hen
House count changes the observation); a count without one is refused with an error that
names the counts that have one. Checkpoints are written by ``sly-scout train`` (next to
``final.zip``) or by ``python -m agents.export_neural RUN/final.zip OUT.npz``.

File format (version 1): an ``.npz`` read with ``np.load(allow_pickle=False)``::

    format      str   "sly-scout-neural"
    meta        str   JSON: format_version, game, players, observation_size, num_actions,
                      activation, hidden (layer sizes), options (trained on), trained
                      (command, wall time, timesteps, date ...: free-form provenance),
                      optional prior {"bot": SPEC, "weight": W}
    w0, b0 ...  float32  hidden layer k: weight (out, in), bias (out,)
    w_out, b_out float32  action logits: weight (num_actions, last hidden), bias

The forward pass is ``act(W x + b)`` per hidden layer, then the logits; with a prior,
``W`` is added to the logit of the prior bot's move in this position (the bot, e.g.
``greedy``, reads the same observation and mask; agents/prior_policy.py explains why).
The bot plays the masked argmax (``deterministic=False``: a sample from the masked softmax drawn
with the bot's own generator, seeded in ``reset``). One move costs tens of microseconds
in numpy. Every check is made at load time or reset, with an error naming the file and
what is wrong: unreadable / truncated file, missing arrays, another format version,
unknown game or player count, layer shapes that do not chain, non-finite weights, and
at reset another game, player count or observation size than the table's.
"""

from __future__ import annotations

import json
import os
import zipfile
from functools import lru_cache

import numpy as np

from .base import Agent, choose_from_logits, legal_actions
from .checkpoint_files import file_version

FORMAT = "sly-scout-neural"
FORMAT_VERSION = 1
# Where the shipped checkpoints live (package data, see pyproject.toml).
CHECKPOINT_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "checkpoints")

ACTIVATIONS = {
    "Tanh": np.tanh,
    "ReLU": lambda x: np.maximum(x, 0.0),
}


class CheckpointError(ValueError):
    """A neural checkpoint that cannot be used (unreadable, malformed or for another table)."""


class NeuralPolicy:
    """The weights and metadata of one checkpoint; ``logits(obs)``, ``act(obs, mask)``."""

    def __init__(self, layers, head, meta: dict, source: str = "<memory>"):
        self.source = source
        self.meta = dict(meta)
        self.layers = [(np.ascontiguousarray(w, np.float32), np.ascontiguousarray(b, np.float32)) for w, b in layers]
        self.head = (np.ascontiguousarray(head[0], np.float32), np.ascontiguousarray(head[1], np.float32))
        _validate(self, source)
        self.game = self.meta["game"]
        self.players = self.meta["players"]
        self.observation_size = self.meta["observation_size"]
        self.num_actions = self.meta["num_actions"]
        self._act = ACTIVATIONS[self.meta["activation"]]

    def logits(self, observation) -> np.ndarray:
        x = np.asarray(observation, dtype=np.float32)
        if x.shape[-1] != self.observation_size:
            raise CheckpointError(f"observation of size {x.shape[-1]} given to the checkpoint {self.source} for size "
                                  f"{self.observation_size} ({self.game}, {self.players} players, options "
                                  f"{self.meta.get('options', {})})")
        for w, b in self.layers:
            x = self._act(x @ w.T + b)
        w, b = self.head
        return x @ w.T + b

    @property
    def prior(self) -> dict | None:
        """``{"bot": spec, "weight": w}`` when the policy adds a prior bot's move to its logits, else None."""
        return self.meta.get("prior")

    def act(self, observation, action_mask, deterministic: bool = True, rng=None, prior_action=None) -> int:
        """Masked argmax (or sample); ``prior_action``: the prior bot's move, required when there is a prior."""
        legal = legal_actions(action_mask)
        z = self.logits(observation).astype(np.float64)
        if self.prior is not None:
            if prior_action is None:
                raise ValueError(f"the checkpoint {self.source} adds the move of the bot {self.prior['bot']!r} to its "
                                 "logits: pass prior_action (the neural bot does this itself)")
            z[int(prior_action)] += self.prior["weight"]
        return choose_from_logits(legal, z[legal], deterministic, rng)

    def save(self, path: str) -> str:
        """Write the checkpoint (format version 1); returns ``path``."""
        arrays = {"format": np.array(FORMAT), "meta": np.array(json.dumps(self.meta, sort_keys=True))}
        for k, (w, b) in enumerate(self.layers):
            arrays[f"w{k}"], arrays[f"b{k}"] = w, b
        arrays["w_out"], arrays["b_out"] = self.head
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        with open(path, "wb") as f:  # a file object: np.savez_compressed would append .npz to a str path
            np.savez_compressed(f, **arrays)
        return path


def _validate(policy: NeuralPolicy, source: str) -> None:
    """Check the metadata against the game registry and the weights' shapes."""
    from sly_scout_env.games import GAMES, get_game

    meta = policy.meta

    def bad(what):
        raise CheckpointError(f"neural checkpoint {source}: {what}")

    if meta.get("format_version") != FORMAT_VERSION:
        bad(f"format_version {meta.get('format_version')!r} is not supported (this version reads {FORMAT_VERSION})")
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
    if prior is not None:
        from .registry import parse_spec, registration

        if not isinstance(prior, dict) or not isinstance(prior.get("bot"), str) or isinstance(
                prior.get("weight"), bool) or not isinstance(prior.get("weight"), (int, float)):
            bad(f"prior {prior!r} is not of the form {{'bot': SPEC, 'weight': NUMBER}}")
        try:
            if meta["game"] not in registration(parse_spec(prior["bot"])[0]).games:
                bad(f"prior bot {prior['bot']!r} does not play {meta['game']}")
        except CheckpointError:
            raise
        except ValueError as exc:
            bad(f"prior bot {prior['bot']!r}: {exc}")
    if meta["activation"] not in ACTIVATIONS:
        bad(f"activation {meta['activation']!r} is not supported ({', '.join(ACTIVATIONS)})")
    expected = table_sizes(meta["game"], meta["players"], json.dumps(meta["options"], sort_keys=True))
    if (meta["observation_size"], meta["num_actions"]) != expected:
        bad(f"observation/action sizes {meta['observation_size']}/{meta['num_actions']} are not those of "
            f"{meta['game']} with {meta['players']} players and options {meta['options']} ({expected[0]}/{expected[1]})")
    size = meta["observation_size"]
    for k, (w, b) in enumerate(policy.layers + [policy.head]):
        name = f"layer {k}" if k < len(policy.layers) else "the output layer"
        if w.ndim != 2 or b.shape != (w.shape[0],) or w.shape[1] != size:
            bad(f"{name} has weight shape {w.shape} and bias shape {b.shape}; expected ({b.shape[0] if b.ndim else '?'}, "
                f"{size}) and a bias of its row count")
        if not (np.isfinite(w).all() and np.isfinite(b).all()):
            bad(f"{name} holds non-finite weights")
        size = w.shape[0]
    if size != meta["num_actions"]:
        bad(f"the output layer gives {size} logits; the game has {meta['num_actions']} actions")


@lru_cache(maxsize=64)
def table_sizes(game: str, players: int, options_json: str) -> tuple[int, int]:
    """(observation size, action count) of ``game`` with ``players`` and the options (a JSON text)."""
    from sly_scout_env.games import get_game

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
    layers = []
    while f"w{len(layers)}" in arrays:
        k = len(layers)
        if f"b{k}" not in arrays:
            raise CheckpointError(f"neural checkpoint {path}: w{k} has no bias b{k}")
        layers.append((arrays[f"w{k}"], arrays[f"b{k}"]))
    if "w_out" not in arrays or "b_out" not in arrays:
        raise CheckpointError(f"neural checkpoint {path}: the output layer (w_out, b_out) is missing")
    for name, a in arrays.items():
        if name not in ("format", "meta") and not np.issubdtype(a.dtype, np.floating):
            raise CheckpointError(f"neural checkpoint {path}: array {name} has dtype {a.dtype}, not floating point")
    return NeuralPolicy(layers, (arrays["w_out"], arrays["b_out"]), meta, source=path)


def shipped() -> list[NeuralPolicy]:
    """The checkpoints shipped in ``agents/checkpoints`` (sorted by file name)."""
    if not os.path.isdir(CHECKPOINT_DIR):
        return []
    return [load(os.path.join(CHECKPOINT_DIR, f)) for f in sorted(os.listdir(CHECKPOINT_DIR)) if f.endswith(".npz")]


def shipped_for(game: str, players: int, options: dict | None = None) -> NeuralPolicy:
    """The shipped checkpoint for a table; CheckpointError naming what exists when there is none."""
    from sly_scout_env.games import get_game

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


class NeuralAgent(Agent):
    """Plays a neural checkpoint (see the module docstring).

    ``path``: a checkpoint of your own (default: the shipped one for the table, picked at
    reset); ``deterministic`` (default True): masked argmax, else a masked-softmax sample.
    """

    name = "neural"
    needs_view = False  # reads the observation vector and the mask only

    def __init__(self, path: str | None = None, deterministic: bool = True):
        super().__init__()
        if not isinstance(deterministic, bool):
            raise ValueError(f"deterministic={deterministic!r} is not allowed; give true or false")
        self.path = path
        self.deterministic = deterministic
        self.policy: NeuralPolicy | None = load(path) if path is not None else None
        self._prior = None  # the prior bot of a checkpoint with one (agents/prior_policy.py), built in reset

    def reset(self, seed, *, game, num_players, seat, options) -> None:
        super().reset(seed, game=game, num_players=num_players, seat=seat, options=options)
        if self.path is None:
            self.policy = shipped_for(game, num_players, self.options)
        else:
            self._check_table(game, num_players)
        self._prior = None
        if self.policy.prior is not None:
            from .registry import make_from_spec

            self._prior = make_from_spec(self.policy.prior["bot"], game=game)
            if getattr(self._prior, "needs_view", True):  # this bot passes on no view: its prior must not need one
                raise CheckpointError(f"the neural checkpoint {self.policy.source}: its prior bot "
                                      f"{self.policy.prior['bot']!r} reads the game view; a prior must read only its "
                                      "observation and mask")
            self._prior.reset(int(self.rng.integers(2**62)), game=game, num_players=num_players, seat=seat,
                              options=self.options)

    def _check_table(self, game, num_players) -> None:
        p = self.policy
        if p.game != game or p.players != num_players:
            raise CheckpointError(f"the neural checkpoint {p.source} was trained on {p.game} with {p.players} players; "
                                  f"this table is {game} with {num_players} players")
        spec_options = {k: v for k, v in self.options.items() if k in _option_names(game)}
        size = table_sizes(game, num_players, json.dumps(spec_options, sort_keys=True, default=str))[0]
        if size != p.observation_size:
            raise CheckpointError(f"the neural checkpoint {p.source} expects observations of size {p.observation_size} "
                                  f"(options {p.meta['options']}); this table's options {spec_options} give {size}")

    def act(self, observation: np.ndarray, action_mask: np.ndarray, info: dict) -> int:
        if self.policy is None:
            raise ValueError("NeuralAgent.act called before reset(); call reset(seed, game=..., ...) first")
        return self.policy.act(observation, action_mask, self.deterministic, self.rng,
                               self._prior_action(observation, action_mask, info))

    def logits(self, observation: np.ndarray, action_mask: np.ndarray, info: dict | None = None) -> np.ndarray:
        """The logits ``act`` chooses from (all actions; the prior bot's move included), float64.

        ``act`` plays the masked argmax of these (or samples their masked softmax); ISMCTS
        guided by the network (``ismcts:guide=neural``) uses their masked softmax as its prior.
        """
        if self.policy is None:
            raise ValueError("NeuralAgent.logits called before reset(); call reset(seed, game=..., ...) first")
        z = self.policy.logits(observation).astype(np.float64)
        prior = self._prior_action(observation, action_mask, info or {})
        if prior is not None:
            z[int(prior)] += self.policy.prior["weight"]
        return z

    def _prior_action(self, observation, action_mask, info):
        return None if self._prior is None else self._prior.act(observation, action_mask, info)


def _option_names(game: str) -> tuple:
    from sly_scout_env.games import get_game

    return get_game(game).option_names
