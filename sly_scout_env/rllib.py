"""Scout and Sly as RLlib multi-agent envs (RLlib's new API stack), with action masking.

    from ray.rllib.algorithms.ppo import PPOConfig
    from sly_scout_env.rllib import RLlibEnv, masked_module_spec
    config = (PPOConfig()
              .environment(RLlibEnv, env_config={"game": "sly", "players": 2})
              .multi_agent(policies={"shared"}, policy_mapping_fn=lambda aid, ep, **kw: "shared")
              .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={"shared": masked_module_spec()})))

``sly-scout train GAME --backend rllib`` (``sly_scout_env.agents.training.rllib``) builds such a config
for PPO self-play; docs/ray.md explains the settings.

* :class:`RLlibEnv` is RLlib's own :class:`~ray.rllib.env.wrappers.pettingzoo_env.PettingZooEnv`
  around the game's raw AEC env (``sly_scout_env.games``: both games, every player
  count, every rule option, ``reward="win"``, ``"score"`` or ``"margin"``). The only
  change: each observation is renamed to the ``{"observations", "action_mask"}`` dict
  that RLlib's action-masking module reads, with the mask as float32.
* The learner's module is RLlib's own ``ActionMaskingTorchRLModule`` (from RLlib's
  examples): it adds ``log(mask)`` (clamped to the smallest float) to the logits in
  every forward pass (exploration, inference and training), so illegal actions have
  probability zero when sampling and in the PPO loss (ratio, entropy).
* A fixed bot of the app layer seats through ``sly_scout_env.agents.training.rllib_bots``.

This module imports Ray at import time: only the ``ray`` extra's users import it.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

from .games import get_game

__all__ = ["RLlibEnv", "ActionMaskingTorchRLModule", "masked_module_spec", "make_env"]


def make_env(game: str, players: int | None = None, reward: str = "win", **options):
    """The raw AEC env of ``game`` that :class:`RLlibEnv` wraps (validated arguments)."""
    spec = get_game(game)
    players = spec.default_players if players is None else spec.check_players(players)
    return spec.raw_env(num_players=players, reward=reward, **options)


def _masked_space(space: gym.spaces.Dict) -> gym.spaces.Dict:
    n = space["action_mask"].shape[0]
    return gym.spaces.Dict({"observations": space["observation"],
                            "action_mask": gym.spaces.Box(0.0, 1.0, (n,), dtype=np.float32)})


def _masked(obs: dict) -> dict:
    return {"observations": obs["observation"], "action_mask": obs["action_mask"].astype(np.float32)}


class RLlibEnv(PettingZooEnv):
    """RLlib's ``PettingZooEnv`` on a Scout or Sly AEC env, observations as RLlib's
    action-masking module expects them.

    ``env_config`` keys: ``game`` (required), ``players`` (default: the game's default),
    ``reward`` (``"win"``, default: +1 shared by the winners, -1 by the others;
    ``"score"``; or ``"margin"``), ``options`` (a dict of rule options). Agent ids are the AEC env's
    (``player_0`` ...); only the player to act gets an observation at each step, and
    every player gets its reward and final observation when the game ends.
    """

    def __init__(self, env_config: dict | None = None):
        cfg = dict(env_config or {})
        if "game" not in cfg:
            raise ValueError("env_config needs 'game' (one of the registered games, e.g. 'sly')")
        super().__init__(make_env(cfg["game"], cfg.get("players"), cfg.get("reward", "win"),
                                  **dict(cfg.get("options") or {})))
        self.observation_spaces = {a: _masked_space(s) for a, s in self.observation_spaces.items()}
        self.observation_space = gym.spaces.Dict(self.observation_spaces)

    def reset(self, *, seed=None, options=None):
        obs, info = super().reset(seed=seed, options=options)
        return {a: _masked(o) for a, o in obs.items()}, info

    def step(self, action):
        obs, rew, term, trunc, info = super().step(action)
        return {a: _masked(o) for a, o in obs.items()}, rew, term, trunc, info


def masked_module_spec(hiddens=(64, 64), activation: str = "tanh") -> RLModuleSpec:
    """The learner's module: RLlib's ``ActionMaskingTorchRLModule`` (PPO's default MLPs,
    separate actor and critic, ``hiddens`` layers each, then a linear logits head)."""
    return RLModuleSpec(module_class=ActionMaskingTorchRLModule,
                        model_config={"fcnet_hiddens": list(hiddens), "fcnet_activation": activation,
                                      "head_fcnet_hiddens": [], "vf_share_layers": False})
