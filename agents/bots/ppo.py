"""The ``ppo`` bot: a MaskablePPO checkpoint (``agents/training/ppo.py``) playing as a bot.

    sly-scout arena sly --players 2 --agents ppo:path=runs/sly2/final.zip,random --games 1000
    sly-scout play sly --players 2 --opponents ppo:path=runs/sly2/final.zip

    from sly_scout_env.agents import make
    bot = make("ppo", path="runs/sly2/final.zip")             # masked argmax
    bot = make("ppo", path="runs/sly2/final.zip", deterministic=False)  # samples

The checkpoint is an sb3-contrib ``MaskablePPO`` zip with the default ``MlpPolicy``.
Loading it needs the ``train`` extra (torch, Stable-Baselines3); playing does not:
the policy network is copied once into numpy arrays (:class:`FrozenPolicy`), whose
forward pass on one observation is several times faster than a torch call and
pickles cheaply, which is what self-play needs to ship frozen snapshots of the
learner to opponent seats and worker processes.

The bot reads only the observation and the action mask (``needs_view = False``).
It checks in ``reset`` that the game is the one the checkpoint was trained on and in
``act`` that the observation has the size the network expects, so a checkpoint of
another game or player count fails with a clear ``ValueError`` instead of garbage.
"""

from __future__ import annotations

import numpy as np

from sly_scout_env.agents.bots.base import Agent, choose_from_logits, legal_actions
from sly_scout_env.checks import file_version

# Activation modules of SB3 MLPs -> numpy functions (torch class name -> function).
_ACTIVATIONS = {
    "Tanh": np.tanh,
    "ReLU": lambda x: np.maximum(x, 0.0),
    "Identity": lambda x: x,
    "ELU": lambda x: np.where(x > 0, x, np.expm1(np.minimum(x, 0.0))),
    "LeakyReLU": lambda x: np.where(x > 0, x, 0.01 * x),
}


class FrozenPolicy:
    """A numpy copy of a MaskablePPO MLP actor: ``logits(obs)``, masked ``act``.

    Attributes ``layers`` (list of (W, b) float64 arrays of the hidden layers),
    ``head`` (W, b of the action logits), ``activation`` (a name of ``_ACTIVATIONS``),
    ``meta`` (what the checkpoint was trained on: game, players, options; may be
    empty). Immutable once built, so one instance may serve many seats.
    """

    def __init__(self, layers, head, activation: str, meta: dict | None = None):
        if activation not in _ACTIVATIONS:
            raise ValueError(f"activation {activation!r} is not supported; supported: {', '.join(_ACTIVATIONS)}")
        self.layers = [(np.asarray(w, dtype=np.float64), np.asarray(b, dtype=np.float64)) for w, b in layers]
        self.head = (np.asarray(head[0], dtype=np.float64), np.asarray(head[1], dtype=np.float64))
        self.activation = activation
        self.meta = dict(meta or {})
        self.observation_size = self.layers[0][0].shape[1] if self.layers else self.head[0].shape[1]
        self.num_actions = self.head[0].shape[0]

    @classmethod
    def from_sb3(cls, model, meta: dict | None = None) -> FrozenPolicy:
        """Copy the actor of a MaskablePPO model (or of its ``policy``) with a flat MLP."""
        import torch

        policy = getattr(model, "policy", model)
        extractor = type(getattr(policy, "pi_features_extractor", policy.features_extractor)).__name__
        if extractor != "FlattenExtractor":
            raise ValueError(f"only MlpPolicy checkpoints are supported (features extractor {extractor!r})")
        layers = []
        activation = "Identity"
        for module in policy.mlp_extractor.policy_net:
            if isinstance(module, torch.nn.Linear):
                layers.append((module.weight.detach().cpu().numpy().copy(), module.bias.detach().cpu().numpy().copy()))
            else:
                activation = type(module).__name__
        head = policy.action_net
        if meta is None:
            meta = dict(getattr(model, "sly_scout_meta", None) or {})
        return cls(
            layers,
            (head.weight.detach().cpu().numpy().copy(), head.bias.detach().cpu().numpy().copy()),
            activation,
            meta,
        )

    def logits(self, observation: np.ndarray) -> np.ndarray:
        """The action logits for one observation vector (or a batch, one row each)."""
        x = np.asarray(observation, dtype=np.float64)
        if x.shape[-1] != self.observation_size:
            trained = self.meta.get("game"), self.meta.get("players")
            raise ValueError(
                f"observation of size {x.shape[-1]} given to a policy for size {self.observation_size}"
                + (f" (trained on {trained[0]} with {trained[1]} players)" if trained[0] else "")
                + "; use a checkpoint trained on this game, player count and options"
            )
        f = _ACTIVATIONS[self.activation]
        for w, b in self.layers:
            x = f(x @ w.T + b)
        w, b = self.head
        return x @ w.T + b

    def act(self, observation, action_mask, deterministic: bool = True, rng=None) -> int:
        """The masked argmax (``deterministic``) or a sample from the masked softmax."""
        legal = legal_actions(action_mask)
        return choose_from_logits(legal, self.logits(observation)[legal], deterministic, rng)


# Loaded checkpoints, keyed by (absolute path, modification time, size): arena runs
# build a bot per entry and seat, and loading a zip (torch) costs far more than a game.
_CACHE: dict = {}


def load_policy(path: str) -> FrozenPolicy:
    """The :class:`FrozenPolicy` of a MaskablePPO checkpoint zip (cached per file version)."""
    path, key = file_version(path, "a MaskablePPO checkpoint zip", "train one with `sly-scout train`")
    policy = _CACHE.get(key)
    if policy is None:
        from sb3_contrib import MaskablePPO

        model = MaskablePPO.load(path, device="cpu")
        policy = FrozenPolicy.from_sb3(model)
        _CACHE.clear()  # keep one file version per process; checkpoints are rewritten in training
        _CACHE[key] = policy
    return policy


class PPOAgent(Agent):
    """Plays a MaskablePPO checkpoint; see the module docstring.

    ``path``: the checkpoint zip; ``deterministic`` (default True): masked argmax, else
    a sample from the masked softmax with the bot's own generator (seeded in reset).
    """

    name = "ppo"
    needs_view = False  # reads the observation vector only

    def __init__(self, path: str | None = None, deterministic: bool = True, policy: FrozenPolicy | None = None):
        super().__init__()
        if policy is None:
            if path is None:
                raise ValueError("the ppo bot needs a checkpoint: ppo:path=RUN_DIR/final.zip (a MaskablePPO zip)")
            policy = load_policy(path)
        if not isinstance(deterministic, bool):
            raise ValueError(f"deterministic={deterministic!r} is not allowed; give true or false")
        self.path = path
        self.policy = policy
        self.deterministic = deterministic

    def reset(self, seed, *, game, num_players, seat, options) -> None:
        super().reset(seed, game=game, num_players=num_players, seat=seat, options=options)
        trained = self.policy.meta.get("game")
        if trained is not None and trained != game:
            raise ValueError(f"the ppo checkpoint {self.path!r} was trained on {trained}, not {game}")

    def act(self, observation: np.ndarray, action_mask: np.ndarray, info: dict) -> int:
        return self.policy.act(observation, action_mask, self.deterministic, self.rng)
