"""An SB3 policy that scores each legal move from its own features: ``logit[a] = MLP(features[a])``.

    from sb3_contrib import MaskablePPO
    from sly_scout_env.sb3_vec import SingleAgentVecEnv
    from sly_scout_env.agents.training.scorer_policy import ActionScorerPolicy, export_scorer

    venv = SingleAgentVecEnv("scout", 8, opponents="greedy", learner_seat="rotate", reward="win", seed=0,
                             num_players=2, action_features=True)
    model = MaskablePPO(ActionScorerPolicy, venv, policy_kwargs={"init_from": "scout_2p.npz"}).learn(10_000)
    export_scorer(model, "mine.npz", game="scout", players=2)     # plays as neural:path=mine.npz

    sly-scout train scout --players 2 --fast --opponents greedy --self-play 0 --policy scorer \
        --init-from sly_scout_env/scout/checkpoints/scout_2p.npz --out runs/scorer2
    python -m sly_scout_env.agents.training.scorer_policy runs/scorer2/final.zip mine.npz

This is the structure of the shipped Scout networks (``neural`` checkpoints with
``inputs: "action_features"``, :mod:`sly_scout_env.netfile`), for sb3-contrib's
``MaskablePPO``. It reads the Dict observations of
``SingleAgentVecEnv(..., action_features=True)``: ``"observation"`` (the flat observation,
``D``) and ``"action_features"`` (``A x F``: the game's feature row of every legal action,
zeros for the illegal ones).

* **Actor.** One MLP (``scorer_arch``, default ``[64, 64]``, ``scorer_activation`` ReLU,
  then one output) is applied to every action's row; its output is that action's logit,
  and the logits are masked by the action masks as usual (``MaskableCategorical``). When
  the masks are given (``MaskablePPO`` always gives them: rollouts, updates, ``predict``
  with ``action_masks=``) only the legal rows go through the MLP (Scout: tens of rows of
  254 to 740); without masks every row is scored.
* **Critic.** An MLP (``net_arch``, SB3's ``activation_fn``, Tanh by default) over the
  flat ``"observation"``, then one output. Not a pooling of the rows: the observation
  holds the whole position, while the legal rows vary in number and describe moves.
* **init_from=PATH.npz**: the scorer MLP starts as an action-scorer checkpoint (a shipped
  one, ``sly_scout_env/scout/checkpoints/scout_<N>p.npz``, or one of yours), loaded with
  :func:`sly_scout_env.netfile.load`. Its feature width, action count, observation size,
  hidden sizes and activation must be the policy's (``scorer_arch`` / ``scorer_activation``
  default to the checkpoint's), and its feature names ``feature_names`` when given;
  otherwise a ``ValueError`` names the difference. The untrained policy then gives that
  network's probabilities. ``MaskablePPO.load`` rebuilds the policy from the stored
  ``policy_kwargs`` (so it reads the file again) before loading the trained weights.
* **Export.** :func:`export_scorer` writes the scorer MLP as a ``neural`` checkpoint
  (``inputs: "action_features"``, netfile's writer): the ``neural`` bot, the compiled
  policy and ``ismcts:guide=neural`` play it without torch. The critic is not kept.

Imports torch and sb3-contrib (the ``train`` extra).
"""

from __future__ import annotations

import argparse
import datetime
import json
import sys

import numpy as np
import torch as th
from gymnasium import spaces
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn

from sly_scout_env import netfile
from sly_scout_env.games import get_game

OBSERVATION = "observation"
ACTION_FEATURES = "action_features"
ACTIVATIONS = {"ReLU": nn.ReLU, "Tanh": nn.Tanh}  # the names netfile reads (netfile.ACTIVATIONS)
DEFAULT_SCORER_ARCH = (64, 64)


def _spaces_of(observation_space, action_space) -> tuple[int, int, int]:
    """``(D, A, F)`` of the Dict observations a scorer reads; ValueError for anything else."""
    ok = (isinstance(observation_space, spaces.Dict) and set(observation_space.spaces) == {OBSERVATION, ACTION_FEATURES}
          and isinstance(action_space, spaces.Discrete))
    if ok:
        obs, rows = observation_space[OBSERVATION], observation_space[ACTION_FEATURES]
        ok = (isinstance(obs, spaces.Box) and len(obs.shape) == 1 and isinstance(rows, spaces.Box)
              and len(rows.shape) == 2 and rows.shape[0] == action_space.n)
    if not ok:
        raise ValueError(
            f"ActionScorerPolicy reads Dict observations {{'{OBSERVATION}': (D,), '{ACTION_FEATURES}': (A, F)}} "
            f"with a Discrete(A) action space, as SingleAgentVecEnv(..., action_features=True) gives; got "
            f"{observation_space} and {action_space}")
    return int(obs.shape[0]), int(action_space.n), int(rows.shape[1])


class _DictPassThrough(BaseFeaturesExtractor):
    """The preprocessed Dict, unchanged (the scorer and the critic read their own entries)."""

    def __init__(self, observation_space: spaces.Dict):
        super().__init__(observation_space, features_dim=int(observation_space[OBSERVATION].shape[0]))

    def forward(self, observations: dict) -> dict:
        return observations


def _mlp(size: int, hidden, activation, out: int | None) -> nn.Sequential:
    layers = []
    for h in hidden:
        layers += [nn.Linear(size, int(h)), activation()]
        size = int(h)
    if out is not None:
        layers.append(nn.Linear(size, out))
    return nn.Sequential(*layers)


class ScorerNets(nn.Module):
    """The policy's ``mlp_extractor``: ``scorer`` (rows -> one logit each) and ``value_mlp`` (observation)."""

    def __init__(self, observation_size: int, num_actions: int, feature_size: int, scorer_arch, scorer_activation,
                 value_arch, value_activation):
        super().__init__()
        self.scorer = _mlp(feature_size, scorer_arch, scorer_activation, 1)
        self.value_mlp = _mlp(observation_size, value_arch, value_activation, None)
        self.latent_dim_pi = num_actions  # the "latent" of the actor is the logits themselves
        self.latent_dim_vf = int(value_arch[-1]) if len(value_arch) else observation_size

    def logits(self, features: dict, masks: th.Tensor | None = None) -> th.Tensor:
        """``(B, A)`` logits; with ``masks`` (bool, ``(B, A)``) only the legal rows are scored (the rest 0)."""
        rows = features[ACTION_FEATURES]
        if masks is None:
            return self.scorer(rows).squeeze(-1)
        out = rows.new_zeros(rows.shape[:2])
        out[masks] = self.scorer(rows[masks]).squeeze(-1)
        return out

    def forward_actor(self, features: dict) -> th.Tensor:
        return self.logits(features)

    def forward_critic(self, features: dict) -> th.Tensor:
        return self.value_mlp(features[OBSERVATION])

    def forward(self, features: dict):
        return self.forward_actor(features), self.forward_critic(features)


class ActionScorerPolicy(MaskableActorCriticPolicy):
    """MaskablePPO policy scoring each legal action's feature row (module docstring).

    Keyword arguments (``policy_kwargs``) besides the ``MaskableActorCriticPolicy`` ones:
    ``scorer_arch`` (hidden sizes of the scorer; default the ``init_from`` checkpoint's, else
    ``[64, 64]``), ``scorer_activation`` (``"ReLU"`` or ``"Tanh"``; default the checkpoint's,
    else ReLU), ``init_from`` (an action-scorer ``.npz``), ``feature_names`` (the column
    names of the rows, e.g. the game's ``FEATURE_NAMES``: checked against ``init_from`` and
    kept for export). ``net_arch`` is the critic's hidden sizes (a list, or a dict whose
    ``"vf"`` is used; default ``[64, 64]``).
    """

    def __init__(self, observation_space, action_space, lr_schedule, *, scorer_arch=None, scorer_activation=None,
                 init_from: str | None = None, feature_names=None, net_arch=None, **kwargs):
        self.observation_size, self.num_actions, self.feature_size = _spaces_of(observation_space, action_space)
        if not kwargs.get("share_features_extractor", True):
            raise ValueError("ActionScorerPolicy shares its (pass-through) features extractor: leave "
                             "share_features_extractor=True")
        kwargs.setdefault("features_extractor_class", _DictPassThrough)
        if feature_names is not None:
            feature_names = [str(n) for n in feature_names]
            if len(feature_names) != self.feature_size:
                raise ValueError(f"feature_names has {len(feature_names)} names; the observations' rows have "
                                 f"{self.feature_size} features")
        self.feature_names = feature_names
        self.init_from = None if init_from is None else str(init_from)
        self._init = None
        if self.init_from is not None:
            self._init = self._read_init(self.init_from, scorer_arch, scorer_activation)
            if scorer_arch is None:
                scorer_arch = [int(w.shape[0]) for w, _ in self._init.layers]
            scorer_activation = scorer_activation or self._init.meta["activation"]
        self.scorer_arch = [int(h) for h in (DEFAULT_SCORER_ARCH if scorer_arch is None else scorer_arch)]
        if any(h < 1 for h in self.scorer_arch):
            raise ValueError(f"scorer_arch={scorer_arch!r}: give hidden layer sizes >= 1, e.g. [64, 64]")
        self.scorer_activation = scorer_activation or "ReLU"
        if self.scorer_activation not in ACTIVATIONS:
            raise ValueError(f"scorer_activation={self.scorer_activation!r} is not one of {', '.join(ACTIVATIONS)}")
        if isinstance(net_arch, dict):
            net_arch = net_arch.get("vf", [])
        self.value_arch = [64, 64] if net_arch is None else [int(h) for h in net_arch]
        super().__init__(observation_space, action_space, lr_schedule, net_arch=list(self.value_arch), **kwargs)

    # -- building -----------------------------------------------------------------------------
    def _read_init(self, path: str, scorer_arch, scorer_activation) -> netfile.NeuralPolicy:
        """The ``init_from`` checkpoint, checked against this policy (ValueError naming the difference)."""
        ckpt = netfile.load(path)  # CheckpointError (a ValueError) for an unusable file

        def bad(what):
            raise ValueError(f"init_from={path}: {what}")

        if not ckpt.scores_actions:
            bad(f"it reads the observation (inputs {ckpt.inputs!r}); ActionScorerPolicy starts only from an action "
                f"scorer (inputs {netfile.ACTION_FEATURES!r})")
        hidden = [int(w.shape[0]) for w, _ in ckpt.layers]
        width = int(ckpt.head[0].shape[1] if not ckpt.layers else ckpt.layers[0][0].shape[1])
        if width != self.feature_size:
            bad(f"its rows have {width} features, the observations' {self.feature_size}")
        if ckpt.num_actions != self.num_actions or ckpt.observation_size != self.observation_size:
            bad(f"it is for {ckpt.game} with {ckpt.players} players ({ckpt.observation_size} observation entries, "
                f"{ckpt.num_actions} actions); this env has {self.observation_size} and {self.num_actions}")
        if self.feature_names is not None and list(ckpt.meta["features"]) != self.feature_names:
            bad(f"its feature names {ckpt.meta['features']} are not the env's {self.feature_names}")
        if scorer_arch is not None and [int(h) for h in scorer_arch] != hidden:
            bad(f"its hidden layers are {hidden}, scorer_arch is {list(scorer_arch)} (leave scorer_arch unset to "
                "take the checkpoint's)")
        if scorer_activation is not None and scorer_activation != ckpt.meta["activation"]:
            bad(f"its activation is {ckpt.meta['activation']}, scorer_activation is {scorer_activation}")
        return ckpt

    def _build_mlp_extractor(self) -> None:
        self.mlp_extractor = ScorerNets(self.observation_size, self.num_actions, self.feature_size, self.scorer_arch,
                                        ACTIVATIONS[self.scorer_activation], self.value_arch, self.activation_fn)

    def _build(self, lr_schedule) -> None:
        super()._build(lr_schedule)
        self.action_net = nn.Identity()  # the scorer gives the logits
        if self.ortho_init:  # SB3's small initial action head: a near-uniform untrained policy
            self.init_weights(self.mlp_extractor.scorer[-1], gain=0.01)
        if self._init is not None:
            self.load_scorer_arrays(self._init.layers, self._init.head)
            self._init = None  # the weights are in the scorer now
        # The optimizer was made over the parameters of the replaced head: make it again.
        self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs)

    def load_scorer_arrays(self, layers, head) -> None:
        """Set the scorer MLP from netfile's arrays (``[(w, b), ...]`` hidden layers, ``(w_out, b_out)``)."""
        linear = self.scorer_linears()
        arrays = list(layers) + [head]
        if len(arrays) != len(linear) or any(tuple(np.shape(w)) != tuple(m.weight.shape) for (w, _), m in
                                             zip(arrays, linear, strict=True)):
            raise ValueError(f"the arrays' shapes {[np.shape(w) for w, _ in arrays]} are not the scorer's "
                             f"{[tuple(m.weight.shape) for m in linear]}")
        with th.no_grad():
            for (w, b), m in zip(arrays, linear, strict=True):
                m.weight.copy_(th.as_tensor(np.asarray(w, dtype=np.float32)))
                m.bias.copy_(th.as_tensor(np.asarray(b, dtype=np.float32)))

    def scorer_linears(self) -> list:
        return [m for m in self.mlp_extractor.scorer if isinstance(m, nn.Linear)]

    def scorer_arrays(self) -> tuple[list, tuple]:
        """The scorer MLP as netfile's float32 arrays: ``([(w, b), ...], (w_out, b_out))``."""
        out = [(m.weight.detach().cpu().numpy().astype(np.float32), m.bias.detach().cpu().numpy().astype(np.float32))
               for m in self.scorer_linears()]
        return out[:-1], out[-1]

    def _get_constructor_parameters(self) -> dict:
        data = super()._get_constructor_parameters()
        data.update(scorer_arch=self.scorer_arch, scorer_activation=self.scorer_activation, init_from=self.init_from,
                    feature_names=self.feature_names, net_arch=self.value_arch)
        return data

    # -- the distribution ---------------------------------------------------------------------
    def _masks(self, action_masks, batch: int) -> th.Tensor | None:
        if action_masks is None:
            return None
        return th.as_tensor(action_masks, dtype=th.bool, device=self.device).reshape(batch, self.num_actions)

    def _distribution(self, features: dict, action_masks):
        masks = self._masks(action_masks, features[ACTION_FEATURES].shape[0])
        distribution = self.action_dist.proba_distribution(action_logits=self.mlp_extractor.logits(features, masks))
        if masks is not None:
            distribution.apply_masking(masks)
        return distribution

    def forward(self, obs, deterministic: bool = False, action_masks=None):
        features = self.extract_features(obs)
        values = self.value_net(self.mlp_extractor.forward_critic(features))
        distribution = self._distribution(features, action_masks)
        actions = distribution.get_actions(deterministic=deterministic)
        log_prob = distribution.log_prob(actions)
        return actions.reshape((-1, *self.action_space.shape)), values, log_prob

    def evaluate_actions(self, obs, actions, action_masks=None):
        features = self.extract_features(obs)
        distribution = self._distribution(features, action_masks)
        values = self.value_net(self.mlp_extractor.forward_critic(features))
        return values, distribution.log_prob(actions), distribution.entropy()

    def get_distribution(self, obs, action_masks=None):
        return self._distribution(self.extract_features(obs), action_masks)


# -- export --------------------------------------------------------------------------------------
def export_scorer(model, path: str, *, game: str, players: int, options: dict | None = None,
                  trained: dict | None = None) -> netfile.NeuralPolicy:
    """Write the scorer MLP of ``model`` (a MaskablePPO model or an :class:`ActionScorerPolicy`) as a
    ``neural`` checkpoint (``inputs: "action_features"``) at ``path``; returns it, validated."""
    policy = getattr(model, "policy", model)
    if not isinstance(policy, ActionScorerPolicy):
        raise ValueError(f"export_scorer exports an ActionScorerPolicy; this model's policy is {type(policy).__name__} "
                         "(agents/training/export_neural.py exports an MlpPolicy)")
    features = get_game(game).optional_module("features")
    if features is None:
        raise ValueError(f"{game} has no per-action features module: an action scorer cannot be exported for it")
    names = list(features.FEATURE_NAMES)
    if policy.feature_names is not None and policy.feature_names != names:
        raise ValueError(f"the policy was trained on the features {policy.feature_names}, not {game}'s {names}")
    options = dict(options or {})
    obs_size, num_actions = netfile.table_sizes(game, players, json.dumps(options, sort_keys=True, default=str))
    if (obs_size, num_actions, len(names)) != (policy.observation_size, policy.num_actions, policy.feature_size):
        raise ValueError(f"the policy reads {policy.observation_size} observation entries, {policy.num_actions} "
                         f"actions and {policy.feature_size} features; {game} with {players} players and options "
                         f"{options} has {obs_size}, {num_actions} and {len(names)}")
    layers, head = policy.scorer_arrays()
    meta = {
        "format_version": netfile.FORMAT_VERSION, "inputs": netfile.ACTION_FEATURES, "features": names,
        "game": game, "players": int(players), "observation_size": obs_size, "num_actions": num_actions,
        "activation": policy.scorer_activation, "hidden": list(policy.scorer_arch), "options": options,
        "trained": dict(trained or {}, recipe="ppo-scorer", init_from=policy.init_from,
                        exported=datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")),
    }
    out = netfile.NeuralPolicy(layers, head, meta, source=path)  # validates (netfile's checks)
    out.save(path)
    return out


def export_zip(zip_path: str, path: str, *, game: str | None = None, players: int | None = None,
               options: dict | None = None, trained: dict | None = None) -> netfile.NeuralPolicy:
    """Export a MaskablePPO zip of an :class:`ActionScorerPolicy`; game, players and options default to
    those ``sly-scout train`` stored in it (``export_neural.export_zip`` with :func:`export_scorer`)."""
    from .export_neural import export_zip as export_any

    return export_any(zip_path, path, game=game, players=players, options=options, trained=trained,
                      exporter=export_scorer)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m sly_scout_env.agents.training.scorer_policy",
                                description="Export a MaskablePPO zip of an ActionScorerPolicy (sly-scout train "
                                            "--policy scorer) to a neural .npz (inputs action_features).")
    p.add_argument("zip", help="a MaskablePPO checkpoint zip of an ActionScorerPolicy")
    p.add_argument("out", help="the .npz to write")
    p.add_argument("--game", default=None, help="override the game stored in the zip")
    p.add_argument("--players", type=int, default=None, help="override the player count stored in the zip")
    args = p.parse_args(argv)
    pol = export_zip(args.zip, args.out, game=args.game, players=args.players)
    print(f"wrote {args.out}: {pol.game}, {pol.players} players, action scorer with hidden layers "
          f"{pol.meta['hidden']} ({pol.meta['activation']}), options {pol.meta['options']}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
