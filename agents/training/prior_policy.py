"""A policy on top of a prior bot: ``logits = MLP(observation) + weight * onehot(prior's move)``.

    sly-scout train scout --players 4 --fast --opponents greedy --self-play 0 \
        --prior greedy --prior-weight 4 ...

Why. A plain MLP on Scout's observation has to discover, from raw card numbers per hand
slot, which of up to 740 action ids keep sets and runs together; behaviour cloning the
``greedy`` heuristic into it plateaus below half agreement (docs/experiments/scout.md). Here the
network does not have to rediscover the heuristic: the prior bot's move is added to
the logits, so the untrained policy plays (its argmax) exactly like the prior and samples
mostly its moves, and PPO learns only *corrections*: in which positions, and towards
which moves, to depart from it (residual policy learning).

Pieces (torch; only training needs them):

* :class:`PriorHintVecEnv`: an SB3 ``VecEnvWrapper`` that appends to each observation
  the one-hot of the prior bot's move for that observation and mask (``D + A`` floats);
  the prior is any registered bot that reads only its observation and mask
  (``needs_view = False``), one instance per row, seeded from the run's seed.
* :class:`PriorPolicy`: sb3-contrib's ``MaskableActorCriticPolicy`` whose actor and critic
  MLPs read the first ``D`` entries (the game's observation) and whose action head adds
  ``weight`` times the hint to the logits. Its actor is therefore the same MLP as the
  plain ``MlpPolicy``'s, and exports to the ``neural`` format (agents/training/export_neural.py)
  with ``meta["prior"] = {"bot": ..., "weight": ...}``; the ``neural`` bot adds the
  prior's move the same way at play time (no torch).
"""

from __future__ import annotations

import numpy as np
import torch as th
from gymnasium import spaces
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import MlpExtractor
from stable_baselines3.common.vec_env import VecEnvWrapper
from torch import nn

from sly_scout_env.agents.bots.registry import make_from_spec


def prior_bots(spec: str, game: str, players: int, options: dict, count: int, seed: int) -> list:
    """``count`` instances of the prior bot, reset with seeds derived from ``seed``."""
    bots = []
    for i in range(count):
        bot = make_from_spec(spec, game=game)
        if getattr(bot, "needs_view", True):
            raise ValueError(f"prior={spec!r}: the prior bot must read only its observation and mask "
                             "(a bot with needs_view = False, e.g. greedy)")
        bot.reset(seed * 1_000_003 + i, game=game, num_players=players, seat=0, options=dict(options))
        bots.append(bot)
    return bots


class PriorHintVecEnv(VecEnvWrapper):
    """Appends the one-hot of the prior bot's move to every observation (see the module docstring)."""

    def __init__(self, venv, prior: str, game: str, players: int, options: dict, seed: int):
        self.D = venv.observation_space.shape[0]
        self.A = venv.action_space.n
        space = spaces.Box(low=-1e4, high=1e4, shape=(self.D + self.A,), dtype=np.float32)
        super().__init__(venv, observation_space=space)
        self.bots = prior_bots(prior, game, players, options, venv.num_envs, seed)

    def _hinted(self, obs: np.ndarray) -> np.ndarray:
        masks = self.venv.env_method("action_masks")
        out = np.zeros((obs.shape[0], self.D + self.A), dtype=np.float32)
        out[:, : self.D] = obs
        for i, bot in enumerate(self.bots):
            out[i, self.D + bot.act(obs[i], masks[i], {})] = 1.0
        return out

    def reset(self):
        return self._hinted(self.venv.reset())

    def step_wait(self):
        obs, rewards, dones, infos = self.venv.step_wait()
        for info in infos:  # the critic reads only the first D entries: a zero hint is enough here
            if "terminal_observation" in info:
                info["terminal_observation"] = np.concatenate(
                    [info["terminal_observation"], np.zeros(self.A, dtype=np.float32)])
        return self._hinted(obs), rewards, dones, infos

    def action_masks(self) -> np.ndarray:
        return np.asarray(self.venv.env_method("action_masks"))


class _SplitExtractor(MlpExtractor):
    """MlpExtractor on the first ``D`` features; the actor's latent carries the hint along."""

    def __init__(self, feature_dim: int, net_arch, activation_fn, device, observation_size: int):
        super().__init__(observation_size, net_arch, activation_fn, device)
        self.observation_size = observation_size
        self.hint_size = feature_dim - observation_size
        self.hidden_pi = self.latent_dim_pi
        self.latent_dim_pi = self.hidden_pi + self.hint_size

    def forward(self, features: th.Tensor):
        return self.forward_actor(features), self.forward_critic(features)

    def forward_actor(self, features: th.Tensor) -> th.Tensor:
        d = self.observation_size
        return th.cat([self.policy_net(features[:, :d]), features[:, d:]], dim=1)

    def forward_critic(self, features: th.Tensor) -> th.Tensor:
        return self.value_net(features[:, : self.observation_size])


class PriorHead(nn.Module):
    """``linear(hidden) + weight * hint``: the action logits."""

    def __init__(self, hidden: int, num_actions: int, weight: float):
        super().__init__()
        self.hidden = hidden
        self.linear = nn.Linear(hidden, num_actions)
        self.prior_weight = float(weight)
        nn.init.orthogonal_(self.linear.weight, gain=0.01)  # SB3's initialisation of the action head
        nn.init.zeros_(self.linear.bias)

    # The linear part's parameters, read by exporters as those of a plain nn.Linear head.
    @property
    def weight(self):
        return self.linear.weight

    @property
    def bias(self):
        return self.linear.bias

    def forward(self, latent: th.Tensor) -> th.Tensor:
        return self.linear(latent[:, : self.hidden]) + self.prior_weight * latent[:, self.hidden:]


class PriorPolicy(MaskableActorCriticPolicy):
    """MaskablePPO policy with a prior bot's move added to the logits (module docstring).

    Extra keyword arguments (``policy_kwargs``): ``observation_size`` (the game's, ``D``),
    ``prior`` (the bot spec, kept for export) and ``prior_weight``.
    """

    def __init__(self, observation_space, action_space, lr_schedule, *, observation_size: int, prior: str,
                 prior_weight: float = 4.0, **kwargs):
        self.observation_size = int(observation_size)
        self.prior = prior
        self.prior_weight = float(prior_weight)
        super().__init__(observation_space, action_space, lr_schedule, **kwargs)

    def _build_mlp_extractor(self) -> None:
        self.mlp_extractor = _SplitExtractor(self.features_dim, self.net_arch, self.activation_fn, self.device,
                                             self.observation_size)

    def _build(self, lr_schedule) -> None:
        super()._build(lr_schedule)
        self.action_net = PriorHead(self.mlp_extractor.hidden_pi, self.action_space.n, self.prior_weight)
        # The optimizer was made over the old head's parameters: make it again.
        self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs)

    def _get_constructor_parameters(self) -> dict:
        data = super()._get_constructor_parameters()
        data.update(observation_size=self.observation_size, prior=self.prior, prior_weight=self.prior_weight)
        return data
