"""PPO self-play with RLlib: ``sly-scout train GAME --backend rllib``.

    sly-scout train sly --players 2 --backend rllib --timesteps 100000 --out runs/sly2-rllib
    sly-scout train scout --players 4 --backend rllib --address auto --num-env-runners 8 --option rounds=1
    sly-scout arena sly --players 2 --agents ppo:path=runs/sly2-rllib/final.zip,random --games 1000

    from sly_scout_env.agents.training.ppo import TrainConfig
    from sly_scout_env.agents.training.rllib import train_rllib
    result = train_rllib(TrainConfig("sly", players=2, timesteps=20_000, out="runs/quick"), num_env_runners=1)

Setup (docs/ray.md)
-------------------
* RLlib's PPO on the new API stack, on :class:`sly_scout_env.rllib.RLlibEnv` (RLlib's
  PettingZoo wrapper around the game's AEC env; every seat is an RLlib agent).
* One module, ``learner`` (RLlib's ``ActionMaskingTorchRLModule``: illegal actions
  have probability zero when sampling and in the loss), plays every learner seat.
  Each episode, the policy mapping puts the learner in one seat drawn from the
  episode id and fills each other seat with the learner (probability ``self_play``)
  or with a fixed bot of ``opponents`` (a :class:`sly_scout_env.agents.training.rllib_bots.BotRLModule`,
  never trained; bots that read only their observation: ``random``, ``ppo:path=...``).
  ``self_play=1`` is pure self-play with one shared policy.
* The settings shared with the SB3 path mean the same: ``timesteps`` (env steps
  sampled, every seat counted), a rollout of ``n_envs * n_steps`` env steps per PPO
  iteration, ``batch_size`` (minibatch), ``n_epochs``, ``learning_rate``, ``gamma``,
  ``ent_coef``, ``net_arch`` (actor and critic MLPs, tanh), ``reward``.
* Every ``eval_every`` steps (and at the start and the end) the learner is exported as a
  MaskablePPO zip (the SB3 path's bot format: ``ppo:path=...`` plays it in ``arena`` and
  ``play`` with no Ray) and played in the arena like the SB3 path (sly_scout_env.agents.training.ppo.evaluate).

Outputs in ``out``: ``config.json``; ``progress.csv`` (one row per PPO iteration:
``timesteps, episodes, mean_reward, mean_length, win_fraction, pool_size, elapsed_s``;
``mean_reward`` is the learner's mean return in that iteration's episodes; ``win_fraction``
is left empty and ``pool_size`` is 0: RLlib has no snapshot pool);
``eval.csv`` (as the SB3 path); ``checkpoints/step_<T>.zip``; ``final.zip``; ``final.npz``
(the same actor in the torch-free ``neural`` format: ``neural:path=OUT/final.npz`` plays it
with numpy only); ``rllib/`` (RLlib's own checkpoint of the whole algorithm, rewritten at
every evaluation).

Ray, RLlib and torch are imported inside the functions: the CLI parser stays light.
"""

from __future__ import annotations

import csv
import json
import os
import time
import zlib
from dataclasses import asdict

import numpy as np

LEARNER = "learner"


def add_rllib_arguments(p) -> None:
    """The ``train`` parser's RLlib options (the other options are shared with SB3)."""
    g = p.add_argument_group("RLlib backend (the ray extra; docs/ray.md)")
    g.add_argument("--backend", choices=("sb3", "rllib"), default="sb3",
                   help="sb3: MaskablePPO in this process (default); rllib: RLlib PPO on Ray, multi-agent self-play")
    g.add_argument("--address", default=None, metavar="auto|HOST:PORT",
                   help="rllib: the Ray cluster to run on (default: RAY_ADDRESS, a running local cluster, "
                        "else a new local Ray)")
    g.add_argument("--num-env-runners", type=int, default=1, metavar="K",
                   help="rllib: sampling actors, 1 CPU each (0 = sample in this process; default 1)")


def seat_plan(episode_id: str, seed: int, players: int, self_play: float, bots: int) -> list:
    """The module of each seat for one episode: drawn from the episode id and the seed only."""
    rng = np.random.default_rng([zlib.crc32(str(episode_id).encode()), int(seed)])
    learner_seat = int(rng.integers(players))
    plan = []
    for seat in range(players):
        if seat == learner_seat or bots == 0 or rng.random() < self_play:
            plan.append(LEARNER)
        else:
            plan.append(f"bot{int(rng.integers(bots))}")
    return plan


def build_config(cfg, num_env_runners: int = 1):
    """The RLlib ``PPOConfig`` for a :class:`sly_scout_env.agents.training.ppo.TrainConfig`."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec

    from sly_scout_env.agents.training.rllib_bots import bot_module_spec
    from sly_scout_env.rllib import RLlibEnv, masked_module_spec

    bots = [] if cfg.self_play >= 1 else list(cfg.opponents)
    players, seed, self_play = cfg.players, cfg.seed, cfg.self_play

    def mapping(agent_id, episode, **kwargs):
        seat = int(str(agent_id).rsplit("_", 1)[1])
        return seat_plan(episode.id_, seed, players, self_play, len(bots))[seat]

    specs = {LEARNER: masked_module_spec(cfg.net_arch)}
    for i, bot in enumerate(bots):
        specs[f"bot{i}"] = bot_module_spec(bot, cfg.game, players, cfg.options, seed=seed + i)
    rollout = cfg.n_envs * cfg.n_steps
    return (
        PPOConfig()
        .environment(RLlibEnv, env_config={"game": cfg.game, "players": players, "reward": cfg.reward,
                                           "options": dict(cfg.options)},
                     disable_env_checking=True)  # its checker plays random, hence illegal, actions
        .env_runners(num_env_runners=num_env_runners, num_envs_per_env_runner=1,
                     rollout_fragment_length="auto")
        .learners(num_learners=0)
        .training(train_batch_size_per_learner=rollout, minibatch_size=min(cfg.batch_size, rollout),
                  num_epochs=cfg.n_epochs, lr=cfg.learning_rate, gamma=cfg.gamma, entropy_coeff=cfg.ent_coef)
        .multi_agent(policies=set(specs), policy_mapping_fn=mapping, policies_to_train=[LEARNER])
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=specs))
        .debugging(seed=seed)
    )


def export_bot(module, cfg, path: str, timesteps: int) -> str:
    """Write the learner ``module``'s actor as a MaskablePPO zip (the ``ppo`` bot's format).

    The actor of RLlib's default PPO module (MLP encoder, tanh, linear logits head) has
    the shape of an SB3 ``MlpPolicy`` actor with ``net_arch``: the weights are copied
    layer by layer; the critic is not needed to play and keeps its initial weights.
    """
    import torch
    from sb3_contrib import MaskablePPO

    from sly_scout_env.agents.bots.registry import make_from_spec
    from sly_scout_env.wrappers import make_single_agent_env

    src = [m for m in list(module.encoder.actor_encoder.modules()) + list(module.pi.modules())
           if isinstance(m, torch.nn.Linear)]
    env = make_single_agent_env(cfg.game, [make_from_spec("random", game=cfg.game) for _ in range(cfg.players - 1)],
                                num_players=cfg.players, **cfg.options)()
    model = MaskablePPO("MlpPolicy", env, device="cpu", policy_kwargs={"net_arch": list(cfg.net_arch)})
    dst = [m for m in model.policy.mlp_extractor.policy_net.modules() if isinstance(m, torch.nn.Linear)]
    dst.append(model.policy.action_net)
    if [tuple(m.weight.shape) for m in src] != [tuple(m.weight.shape) for m in dst]:
        raise RuntimeError(f"RLlib actor layers {[tuple(m.weight.shape) for m in src]} do not match the "
                           f"MlpPolicy's {[tuple(m.weight.shape) for m in dst]}")
    with torch.no_grad():
        for s, d in zip(src, dst):
            d.weight.copy_(s.weight.detach().cpu())
            d.bias.copy_(s.bias.detach().cpu())
    model.sly_scout_meta = {"game": cfg.game, "players": cfg.players, "options": dict(cfg.options),
                            "reward": cfg.reward, "seed": cfg.seed, "timesteps": int(timesteps), "backend": "rllib"}
    model.save(path)
    env.close()
    return path



def _metric(value, default=None):
    """An RLlib result metric, or ``default`` when it is missing or NaN.

    Why: RLlib reports NaN (not 0, not absent) for episode counts and means in an
    iteration where no episode finished, which happens on a loaded machine.
    """
    if value is None or (isinstance(value, float) and value != value):
        return default
    return value


def progress_row(steps: int, runners: dict, elapsed: float) -> list:
    """One ``progress.csv`` row from the ``env_runners`` part of an RLlib result."""
    ret = _metric(runners.get("module_episode_returns_mean", {}).get(LEARNER))
    length = _metric(runners.get("episode_len_mean"))
    return [steps, int(_metric(runners.get("num_episodes"), 0)),
            "" if ret is None else f"{ret:.6f}",
            "" if length is None else f"{length:.3f}",
            "",  # win_fraction: RLlib reports means, not the returns
            0, f"{elapsed:.2f}"]


def train_rllib(cfg, num_env_runners: int = 1, address=None, log=print) -> dict:
    """Run an RLlib training; returns ``{"final": zip path, "eval": rows, "out": dir, "rllib": dir}``."""
    from sly_scout_env.agents.bots import ppo  # noqa: F401  (registers "ppo" for the evaluations)
    from sly_scout_env.agents.training.ppo import EVAL_COLUMNS, PROGRESS_COLUMNS, evaluate

    cfg.check()
    if num_env_runners < 0:
        raise ValueError(f"num_env_runners={num_env_runners!r} is not allowed; give an int >= 0")
    if cfg.self_play < 1 and not cfg.opponents:
        raise ValueError("self_play < 1 needs opponents (fixed bots for the other seats)")
    from sly_scout_env.agents.bots.registry import make_from_spec

    for spec in cfg.opponents if cfg.self_play < 1 else ():
        if getattr(make_from_spec(spec, game=cfg.game), "needs_view", True):
            raise ValueError(f"opponent {spec!r} reads the game state beyond its observation; an RLlib seat "
                             "sees only its observation and mask: use random, ppo:path=... or a bot with "
                             "needs_view = False (any bot can be an --eval-opponents entry)")
    from sly_scout_env.ray_tasks import init_ray

    init_ray(True if address is None else address)
    import torch

    torch.set_num_threads(cfg.torch_threads)
    os.makedirs(os.path.join(cfg.out, "checkpoints"), exist_ok=True)
    with open(os.path.join(cfg.out, "config.json"), "w", encoding="utf-8") as f:
        json.dump(dict(asdict(cfg), backend="rllib", num_env_runners=num_env_runners), f, indent=2)
        f.write("\n")
    algo = build_config(cfg, num_env_runners).build_algo()
    log(f"training RLlib PPO on {cfg.game}, {cfg.players} players, {cfg.timesteps} steps, "
        f"{num_env_runners} env runner(s) -> {cfg.out}")
    t0 = time.perf_counter()
    steps = 0
    next_eval = cfg.eval_every
    rows: list = []
    with open(os.path.join(cfg.out, "progress.csv"), "w", newline="", encoding="utf-8") as pf, \
            open(os.path.join(cfg.out, "eval.csv"), "w", newline="", encoding="utf-8") as ef:
        progress, evals = csv.writer(pf), csv.writer(ef)
        progress.writerow(PROGRESS_COLUMNS)
        evals.writerow(EVAL_COLUMNS)

        def evaluate_now(path: str) -> list:
            export_bot(algo.get_module(LEARNER), cfg, path, steps)
            algo.save_to_path(os.path.abspath(os.path.join(cfg.out, "rllib")))
            out = evaluate(path, cfg)
            for row in out:
                evals.writerow([steps, row["opponent"], row["games"], f"{row['win_rate']:.6f}",
                                f"{row['win_rate_lo']:.6f}", f"{row['win_rate_hi']:.6f}", f"{row['mean_score']:.6f}",
                                f"{row['opponent_mean_score']:.6f}", os.path.relpath(path, cfg.out)])
                log(f"  t={steps:>9}  vs {row['opponent']:<10} win rate {row['win_rate']:.3f} "
                    f"[{row['win_rate_lo']:.3f}, {row['win_rate_hi']:.3f}]  ({row['games']} games)")
            ef.flush()
            return out

        try:
            evaluate_now(os.path.join(cfg.out, "checkpoints", "step_000000000.zip"))
            while steps < cfg.timesteps:
                result = algo.train()
                runners = result.get("env_runners", {})
                steps = int(_metric(runners.get("num_env_steps_sampled_lifetime"), steps))
                progress.writerow(progress_row(steps, runners, time.perf_counter() - t0))
                pf.flush()
                if steps >= next_eval and steps < cfg.timesteps:
                    next_eval = (steps // cfg.eval_every + 1) * cfg.eval_every
                    evaluate_now(os.path.join(cfg.out, "checkpoints", f"step_{steps:09d}.zip"))
            final = os.path.join(cfg.out, "final.zip")
            rows = evaluate_now(final)
        finally:
            algo.stop()
    # The torch-free neural format too, as the SB3 path writes it (agents/bots/neural.py).
    from sly_scout_env.agents.training.export_neural import export_zip

    neural = os.path.join(cfg.out, "final.npz")
    export_zip(final, neural, game=cfg.game, players=cfg.players, options=cfg.options,
               trained={"backend": "rllib", "timesteps": steps})
    return {"final": final, "neural": neural, "eval": rows, "out": cfg.out, "rllib": os.path.join(cfg.out, "rllib")}
