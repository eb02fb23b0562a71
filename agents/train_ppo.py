"""Train a MaskablePPO bot by self-play: ``sly-scout train GAME --players N``.

    sly-scout train sly --players 2 --timesteps 200000 --out runs/sly2
    sly-scout train scout --players 2 --option rounds=1 --timesteps 300000 --out runs/scout2
    sly-scout arena sly --players 2 --agents ppo:path=runs/sly2/final.zip,random,greedy --games 2000

    from agents.train_ppo import TrainConfig, train
    result = train(TrainConfig("sly", players=2, timesteps=20_000, out="runs/quick"))

Setup (see docs/training.md)
----------------------------
* The learner is sb3-contrib's ``MaskablePPO`` (``MlpPolicy``) on
  :class:`sly_scout_env.wrappers.SingleAgentEnv`, with ``learner_seat="rotate"``: the
  k-th episode of each env puts the learner in seat ``k mod N``, so it learns every
  seat. The learner's reward is ``reward="win"`` by default (+1 shared by the winners,
  -1 shared by the others, at the end), which is what the arena measures.
* Every other seat is a :class:`PoolOpponent`: at each episode it draws, from the
  episode's seed, a frozen snapshot of the learner (probability ``self_play``, once
  the pool holds one) or one of the baseline bots (``--opponents``, uniformly).
  A snapshot is a :class:`agents.ppo_agent.FrozenPolicy` (numpy weights, picklable)
  that samples from its masked softmax. Every ``snapshot_every`` steps the current
  policy joins the pool (the oldest leaves beyond ``pool_size``) and the envs get
  fresh opponents through ``VecEnv.set_attr`` (works for Dummy and Subproc envs;
  an episode under way keeps the opponents it started with).
* Every ``eval_every`` steps (and at step 0 and at the end) the policy is saved as a
  checkpoint zip and played in the arena (:func:`agents.arena.run_arena`, fixed seed,
  seat rotation and duplicate deals) against each evaluation bot (``random``, and
  ``greedy`` when it is registered for the game); win rate with a 95% Wilson interval.

Outputs in ``--out``: ``config.json``; ``progress.csv`` (one row per rollout:
``timesteps, episodes, mean_reward, mean_length, win_fraction, pool_size, elapsed_s``;
the means are over the episodes finished in that rollout); ``eval.csv`` (one row per
evaluation and bot: ``timesteps, opponent, games, win_rate, win_rate_lo, win_rate_hi,
mean_score, opponent_mean_score, checkpoint``); ``checkpoints/step_<T>.zip``;
``final.zip``. The same seed gives the same run (CPU, one torch thread, DummyVecEnv).

torch and Stable-Baselines3 are imported inside the functions that need them, so the
``sly-scout`` command line (which adds this parser) starts without them.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import sys
import time
from dataclasses import asdict, dataclass, field

import numpy as np

from sly_scout_env.cli_types import non_negative_int, positive_int, probability

from .registry import GAMES, available, make_from_spec, parse_spec, registration

PLAYER_COUNTS = {"scout": (2, 3, 4, 5), "sly": (2, 3, 4)}


# -- opponents -----------------------------------------------------------------------------
class PoolOpponent:
    """An opponent seat for self-play: per episode a snapshot of the learner or a baseline bot.

    ``baselines``: bot specs (``"random"``, ``"greedy"``...); ``pool``: frozen snapshots
    (:class:`agents.ppo_agent.FrozenPolicy`); ``self_play``: probability of a snapshot
    when the pool is not empty. The draw uses the seed that ``SingleAgentEnv`` passes to
    ``reset`` (derived from the game seed), so runs are reproducible. Pickles without its
    bot instances (they are rebuilt lazily from their specs in the receiving process).
    """

    def __init__(self, baselines, pool=(), self_play: float = 0.5):
        self.baselines = list(baselines)
        self.pool = list(pool)
        self.self_play = float(self_play)
        if not self.baselines and not self.pool:
            raise ValueError("a PoolOpponent needs at least one baseline bot or one snapshot")
        self._bots: dict = {}
        self._current = None
        self._rng = np.random.default_rng()
        self.name = "pool"

    @property
    def needs_view(self) -> bool:
        """Whether the bot playing this episode reads ``info["view"]`` (snapshots never do)."""
        return self._current is not None and not hasattr(self._current, "logits") and getattr(
            self._current, "needs_view", True)

    def __getstate__(self):
        state = self.__dict__.copy()
        state["_bots"] = {}
        state["_current"] = None
        return state

    def reset(self, seed, *, game, num_players, seat, options) -> None:
        self._rng = np.random.default_rng(seed)
        use_pool = self.pool and (not self.baselines or self._rng.random() < self.self_play)
        if use_pool:
            self._current = self.pool[int(self._rng.integers(len(self.pool)))]
            return
        spec = self.baselines[int(self._rng.integers(len(self.baselines)))]
        bot = self._bots.get(spec)
        if bot is None:
            bot = self._bots[spec] = make_from_spec(spec, game=game)
        bot.reset(None if seed is None else int(self._rng.integers(2**62)), game=game, num_players=num_players,
                  seat=seat, options=options)
        self._current = bot

    def act(self, observation, action_mask, info) -> int:
        if self._current is None:
            raise RuntimeError("PoolOpponent.act before reset")
        if hasattr(self._current, "logits"):  # a snapshot: sample, for varied opposition
            return self._current.act(observation, action_mask, deterministic=False, rng=self._rng)
        return int(self._current.act(observation, action_mask, info))


# -- configuration --------------------------------------------------------------------------
@dataclass
class TrainConfig:
    """Everything a training run depends on (saved as config.json in ``out``)."""

    game: str = "sly"
    players: int = 2
    timesteps: int = 100_000
    seed: int = 0
    out: str = "runs/ppo"
    options: dict = field(default_factory=dict)  # game options, e.g. {"rounds": 1} for Scout
    reward: str = "win"  # "win" (what the arena measures) or "score"
    opponents: list = field(default_factory=lambda: ["random"])  # baseline bots of the pool
    self_play: float = 0.5  # probability that an opponent seat is a snapshot (once there is one)
    snapshot_every: int = 10_000
    pool_size: int = 10
    eval_every: int = 10_000
    eval_games: int = 200
    eval_opponents: list | None = None  # None: random, plus greedy when registered for the game
    eval_workers: int = 1
    eval_seed: int = 12345
    n_envs: int = 4
    vec_env: str = "dummy"  # "dummy" or "subproc"
    # True: sly_scout_env.sb3_vec.SingleAgentVecEnv, n_envs games in one compiled batch with a
    # compiled opponent (random / greedy) at every other seat; needs self_play=0 (snapshots are not compiled).
    fast: bool = False
    n_steps: int = 128  # per env and rollout
    batch_size: int = 128
    n_epochs: int = 4
    learning_rate: float = 1e-3  # small nets, short episodes: faster than the usual 3e-4, still stable
    gamma: float = 0.99
    ent_coef: float = 0.01
    net_arch: list = field(default_factory=lambda: [64, 64])
    torch_threads: int = 1
    # Behaviour-cloning warm start (agents/warm_start.py): a teacher bot spec (e.g. "greedy") whose
    # moves the policy learns, on warm_start_samples decisions for warm_start_epochs passes, before PPO.
    warm_start: str | None = None
    warm_start_samples: int = 200_000
    warm_start_epochs: int = 4
    # A prior bot (agents/prior_policy.py): its move, weighted by prior_weight, is added to the logits;
    # PPO learns corrections to it. Needs fast=True; the policy exports to the neural format only.
    prior: str | None = None
    prior_weight: float = 4.0

    def check(self) -> "TrainConfig":
        if self.game not in GAMES:
            raise ValueError(f"game={self.game!r} is not allowed; allowed values: {', '.join(GAMES)}")
        if self.players not in PLAYER_COUNTS[self.game]:
            raise ValueError(f"players={self.players!r} is not allowed for {self.game}; allowed: {PLAYER_COUNTS[self.game]}")
        for name in ("timesteps", "snapshot_every", "pool_size", "eval_every", "eval_games", "eval_workers", "n_envs",
                     "n_steps", "batch_size", "n_epochs", "torch_threads", "warm_start_samples", "warm_start_epochs"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
                raise ValueError(f"{name}={v!r} is not allowed; give an int >= 1")
        if isinstance(self.seed, bool) or not isinstance(self.seed, (int, np.integer)) or self.seed < 0:
            raise ValueError(f"seed={self.seed!r} is not allowed; give an int >= 0")
        if not self.net_arch or any(isinstance(h, bool) or not isinstance(h, (int, np.integer)) or h < 1
                                    for h in self.net_arch):
            raise ValueError(f"net_arch={self.net_arch!r} is not allowed; give hidden layer sizes >= 1, e.g. [64, 64]")
        if self.reward not in ("win", "score"):
            raise ValueError(f"reward={self.reward!r} is not allowed; allowed values: 'win', 'score'")
        if self.vec_env not in ("dummy", "subproc"):
            raise ValueError(f"vec_env={self.vec_env!r} is not allowed; allowed values: 'dummy', 'subproc'")
        if not 0.0 <= self.self_play <= 1.0:
            raise ValueError(f"self_play={self.self_play!r} is not allowed; give a probability in [0, 1]")
        if not self.opponents and self.self_play <= 0:
            raise ValueError("opponents is empty and self_play is 0: no one to play against")
        if self.fast:
            self._check_fast()
        for name in ("warm_start", "prior"):
            spec = getattr(self, name)
            if spec is not None and not self.fast:
                raise ValueError(f"{name}={spec!r} needs the fast engine: give fast=True (--fast)")
        if self.prior is not None:
            if self.warm_start is not None:
                raise ValueError("warm_start and prior do not combine: the prior already starts the policy "
                                 "at the prior bot's moves")
            name, _ = parse_spec(self.prior)
            if self.game not in registration(name).games:
                raise ValueError(f"prior bot {self.prior!r} does not play {self.game}")
            if not (isinstance(self.prior_weight, (int, float)) and 0 < self.prior_weight < 100):
                raise ValueError(f"prior_weight={self.prior_weight!r} is not allowed; give a number in (0, 100)")
        if self.warm_start is not None:
            name, _ = parse_spec(self.warm_start)
            if self.game not in registration(name).games:
                raise ValueError(f"warm_start bot {self.warm_start!r} does not play {self.game}")
        # With fast, the opponents are compiled policy names (checked above), not registered bots.
        for spec in ([] if self.fast else list(self.opponents)) + list(self.eval_opponents or []):
            name, _ = parse_spec(spec)
            if self.game not in registration(name).games:
                raise ValueError(f"bot {spec!r} does not play {self.game}")
        from .arena import env_module

        env_module(self.game).raw_env(num_players=self.players, **self.options)  # validates the options
        return self

    def _check_fast(self) -> None:
        from sly_scout_env.simulation import _game_modules

        compiled = _game_modules(self.game)[1].POLICY_NAMES
        if self.self_play > 0:
            raise ValueError(f"fast=True (--fast) plays compiled opponents only, and self-play snapshots are not "
                             f"compiled: give self_play=0 (--self-play 0), got {self.self_play}")
        if len(set(self.opponents)) != 1 or self.opponents[0] not in compiled:
            raise ValueError(f"fast=True (--fast) plays one compiled policy at every opponent seat: give opponents "
                             f"as one of {', '.join(compiled)}, got {list(self.opponents)}")
        if self.vec_env != "dummy":
            raise ValueError(f"fast=True (--fast) runs all n_envs games in one process; vec_env={self.vec_env!r} "
                             "does not apply (leave it 'dummy')")

    def resolved_eval_opponents(self) -> list:
        if self.eval_opponents is not None:
            return list(self.eval_opponents)
        return ["random"] + (["greedy"] if "greedy" in available(self.game) else [])


# -- the run ------------------------------------------------------------------------------------
def _env_factory(cfg: TrainConfig, opponents: list):
    from sly_scout_env.wrappers import make_single_agent_env

    return make_single_agent_env(
        cfg.game, opponents, learner_seat="rotate", num_players=cfg.players, reward=cfg.reward, **cfg.options
    )


def _new_opponents(cfg: TrainConfig, pool: list) -> list:
    # One object per other seat: an opponent keeps per-episode state (its draw, its bot).
    return [PoolOpponent(cfg.opponents, pool, cfg.self_play) for _ in range(cfg.players - 1)]


def _worker_init_threads() -> None:
    import torch

    torch.set_num_threads(1)


class _ThreadLimitedFactory:
    """Wraps an env factory so that each SubprocVecEnv worker uses one torch thread."""

    def __init__(self, factory):
        self.factory = factory

    def __call__(self):
        _worker_init_threads()
        return self.factory()


def evaluate(checkpoint: str, cfg: TrainConfig, opponents: list | None = None, games: int | None = None,
             seed: int | None = None, workers: int | None = None) -> list[dict]:
    """Arena results of a checkpoint against each bot of ``opponents`` (one dict per bot)."""
    from . import ppo_agent  # noqa: F401  (registers "ppo")
    from .arena import run_arena

    rows = []
    for opp in opponents if opponents is not None else cfg.resolved_eval_opponents():
        spec = f"neural:path={checkpoint}" if str(checkpoint).endswith(".npz") else f"ppo:path={checkpoint}"
        res = run_arena(cfg.game, cfg.players, [spec, opp], games=games or cfg.eval_games,
                        seed=cfg.eval_seed if seed is None else seed, workers=workers or cfg.eval_workers,
                        options=dict(cfg.options), progress=False)
        me, them = res.stats[0], res.stats[1]
        rows.append({"opponent": opp, "games": res.games, "win_rate": me.win_rate, "win_rate_lo": me.win_rate_ci95[0],
                     "win_rate_hi": me.win_rate_ci95[1], "mean_score": me.mean_score,
                     "opponent_mean_score": them.mean_score, "result": res})
    return rows


PROGRESS_COLUMNS = ["timesteps", "episodes", "mean_reward", "mean_length", "win_fraction", "pool_size", "elapsed_s"]
EVAL_COLUMNS = ["timesteps", "opponent", "games", "win_rate", "win_rate_lo", "win_rate_hi", "mean_score",
                "opponent_mean_score", "checkpoint"]


def _make_callback(cfg: TrainConfig, model_meta: dict, log):
    from stable_baselines3.common.callbacks import BaseCallback

    from .export_neural import export_model
    from .ppo_agent import FrozenPolicy

    class SelfPlayCallback(BaseCallback):
        """Snapshots into the pool, CSV logs, periodic checkpoints and arena evaluations."""

        def __init__(self):
            super().__init__()
            self.pool: list = []
            self.returns: list = []
            self.lengths: list = []
            self.episodes = 0
            self.next_snapshot = cfg.snapshot_every
            self.next_eval = cfg.eval_every
            self.t0 = time.perf_counter()
            os.makedirs(os.path.join(cfg.out, "checkpoints"), exist_ok=True)
            self.progress_file = open(os.path.join(cfg.out, "progress.csv"), "w", newline="", encoding="utf-8")
            self.progress = csv.writer(self.progress_file)
            self.progress.writerow(PROGRESS_COLUMNS)
            self.eval_file = open(os.path.join(cfg.out, "eval.csv"), "w", newline="", encoding="utf-8")
            self.evals = csv.writer(self.eval_file)
            self.evals.writerow(EVAL_COLUMNS)
            self.last_eval: list = []

        def _on_step(self) -> bool:
            for info in self.locals["infos"]:
                ep = info.get("episode")
                if ep is not None:
                    self.returns.append(float(ep["r"]))
                    self.lengths.append(int(ep["l"]))
                    self.episodes += 1
            if not cfg.fast and self.num_timesteps >= self.next_snapshot:  # fast: no pool to feed
                self.next_snapshot += cfg.snapshot_every
                self.add_snapshot()
            if self.num_timesteps >= self.next_eval:
                self.next_eval += cfg.eval_every
                if self.num_timesteps < cfg.timesteps:  # the last one is the final evaluation
                    self.evaluate(f"step_{self.num_timesteps:09d}")
            return True

        def _on_rollout_end(self) -> None:
            r = np.asarray(self.returns, dtype=float)
            self.progress.writerow([
                self.num_timesteps, self.episodes,
                f"{r.mean():.6f}" if r.size else "", f"{np.mean(self.lengths):.3f}" if r.size else "",
                f"{np.mean(r > 0):.6f}" if r.size else "", len(self.pool), f"{time.perf_counter() - self.t0:.2f}",
            ])
            self.progress_file.flush()
            self.returns.clear()
            self.lengths.clear()

        def add_snapshot(self) -> None:
            self.pool.append(FrozenPolicy.from_sb3(self.model, meta=model_meta))
            del self.pool[: max(0, len(self.pool) - cfg.pool_size)]
            env = self.training_env
            for i in range(env.num_envs):  # fresh objects per env: opponents hold per-episode state
                env.set_attr("opponents", _new_opponents(cfg, self.pool), indices=[i])

        def evaluate(self, tag: str, path: str | None = None) -> list:
            self.model.sly_scout_meta = dict(model_meta, timesteps=int(self.num_timesteps))
            path = path or os.path.join(cfg.out, "checkpoints", f"{tag}.zip")
            self.model.save(path)
            if cfg.prior:  # the ppo bot cannot add the prior's move: play the exported neural checkpoint
                path = export_model(self.model, path[: -len(".zip")] + ".npz", game=cfg.game, players=cfg.players,
                                    options=cfg.options, trained={"timesteps": int(self.num_timesteps)}).source
            rows = evaluate(path, cfg)
            for row in rows:
                self.evals.writerow([self.num_timesteps, row["opponent"], row["games"], f"{row['win_rate']:.6f}",
                                     f"{row['win_rate_lo']:.6f}", f"{row['win_rate_hi']:.6f}",
                                     f"{row['mean_score']:.6f}", f"{row['opponent_mean_score']:.6f}",
                                     os.path.relpath(path, cfg.out)])
                log(f"  t={self.num_timesteps:>9}  vs {row['opponent']:<10} win rate {row['win_rate']:.3f} "
                    f"[{row['win_rate_lo']:.3f}, {row['win_rate_hi']:.3f}]  ({row['games']} games)")
            self.eval_file.flush()
            self.last_eval = rows
            return rows

        def close(self) -> None:
            self.progress_file.close()
            self.eval_file.close()

    return SelfPlayCallback()


def train(cfg: TrainConfig, log=print) -> dict:
    """Run a training; returns ``{"final": path, "eval": [rows of the final evaluation], "out": dir}``."""
    cfg.check()
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecMonitor

    from . import ppo_agent  # noqa: F401  (registers "ppo" for the evaluations)
    from .export_neural import export_model
    from .warm_start import pretrain

    t_start = time.perf_counter()
    torch.set_num_threads(cfg.torch_threads)
    os.makedirs(cfg.out, exist_ok=True)
    with open(os.path.join(cfg.out, "config.json"), "w", encoding="utf-8") as f:
        json.dump(asdict(cfg), f, indent=2)
        f.write("\n")
    factories = [_env_factory(cfg, _new_opponents(cfg, [])) for _ in range(cfg.n_envs)]
    if cfg.fast:
        from sly_scout_env.sb3_vec import SingleAgentVecEnv

        venv = SingleAgentVecEnv(cfg.game, cfg.n_envs, opponents=cfg.opponents[0], learner_seat="rotate",
                                 reward=cfg.reward, seed=cfg.seed, num_players=cfg.players, **cfg.options)
    elif cfg.vec_env == "subproc":
        venv = SubprocVecEnv([_ThreadLimitedFactory(f) for f in factories], start_method="spawn")
    else:
        venv = DummyVecEnv(factories)
    policy, policy_kwargs = "MlpPolicy", {"net_arch": list(cfg.net_arch)}
    if cfg.prior:
        from .prior_policy import PriorHintVecEnv, PriorPolicy

        size = venv.observation_space.shape[0]
        venv = PriorHintVecEnv(venv, cfg.prior, cfg.game, cfg.players, cfg.options, cfg.seed)
        policy = PriorPolicy
        policy_kwargs.update(observation_size=size, prior=cfg.prior, prior_weight=cfg.prior_weight)
    venv = VecMonitor(venv)
    model = MaskablePPO(
        policy, venv, seed=cfg.seed, device="cpu", verbose=0,
        n_steps=cfg.n_steps, batch_size=cfg.batch_size, n_epochs=cfg.n_epochs, learning_rate=cfg.learning_rate,
        gamma=cfg.gamma, ent_coef=cfg.ent_coef, policy_kwargs=policy_kwargs,
    )
    meta = {"game": cfg.game, "players": cfg.players, "options": dict(cfg.options), "reward": cfg.reward,
            "seed": cfg.seed}
    pretrain(model, cfg, log=log)
    callback = _make_callback(cfg, meta, log)
    log(f"training MaskablePPO on {cfg.game}, {cfg.players} players, {cfg.timesteps} steps -> {cfg.out}")
    try:
        callback.init_callback(model)
        callback.num_timesteps = 0
        callback.evaluate("step_000000000")  # the untrained policy: the start of the learning curve
        model.learn(total_timesteps=cfg.timesteps, callback=callback, progress_bar=False)
        callback.num_timesteps = model.num_timesteps
        final = os.path.join(cfg.out, "final.zip")
        rows = callback.evaluate("final", path=final)
        export_model(model, os.path.join(cfg.out, "final.npz"), game=cfg.game, players=cfg.players,
                     options=cfg.options, trained={"config": asdict(cfg), "timesteps": int(model.num_timesteps),
                                                   "wall_time_s": round(time.perf_counter() - t_start, 1)})
    finally:
        callback.close()
        venv.close()
    return {"final": final, "eval": rows, "out": cfg.out}


# -- command line --------------------------------------------------------------------------------


def _bot_list(text: str) -> list:
    items = [t.strip() for t in text.split(",") if t.strip()]
    if not items:
        raise argparse.ArgumentTypeError("give at least one bot name, e.g. random")
    return items


def _layer_sizes(text: str) -> list:
    try:
        sizes = [int(t) for t in text.split(",") if t.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a comma-separated list of whole numbers") from None
    if not sizes or min(sizes) < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: give one or more layer sizes >= 1, e.g. 128,128")
    return sizes


def _option(text: str) -> tuple:
    from .registry import _parse_value

    key, eq, value = text.partition("=")
    if not eq or not key:
        raise argparse.ArgumentTypeError(f"{text!r} is not of the form KEY=VALUE (e.g. rounds=1)")
    return key, _parse_value(value)


def add_train_parser(subparsers) -> argparse.ArgumentParser:
    """Add the ``train`` sub-command to an argparse ``subparsers`` object (no torch import)."""
    d = TrainConfig()
    p = subparsers.add_parser(
        "train",
        help="train a MaskablePPO bot by self-play (needs the train extra: torch, sb3-contrib)",
        description=(
            "Train a MaskablePPO bot (sb3-contrib) on the single-agent view of GAME with a rotating "
            "learner seat. The other seats are drawn per episode from a pool of frozen snapshots of "
            "the learner (probability --self-play) and the baseline bots (--opponents). Every "
            "--eval-every steps the policy is saved and played in the arena against random (and "
            "greedy when registered); win rates with 95% Wilson intervals go to OUT/eval.csv, "
            "training means to OUT/progress.csv, the final policy to OUT/final.zip (use it as "
            "ppo:path=OUT/final.zip in arena and play). See docs/training.md."
        ),
    )
    p.add_argument("game", choices=GAMES, metavar="GAME", help="scout or sly")
    p.add_argument("--players", type=int, required=True, help="player count (scout 2-5, sly 2-4)")
    p.add_argument("--timesteps", type=positive_int, default=d.timesteps, help=f"learner steps (default {d.timesteps})")
    p.add_argument("--seed", type=non_negative_int, default=d.seed, help=f"seed (default {d.seed})")
    p.add_argument("--out", default=d.out, metavar="DIR", help=f"output directory (default {d.out})")
    p.add_argument("--eval-every", type=positive_int, default=d.eval_every, metavar="K",
                   help=f"evaluate and checkpoint every K steps (default {d.eval_every})")
    p.add_argument("--eval-games", type=positive_int, default=d.eval_games, metavar="G",
                   help=f"arena games per evaluation and bot (default {d.eval_games})")
    p.add_argument("--eval-opponents", type=_bot_list, default=None, metavar="A,B",
                   help="evaluation bots (default: random, and greedy when registered)")
    p.add_argument("--eval-workers", type=positive_int, default=d.eval_workers,
                   help=f"arena worker processes (default {d.eval_workers})")
    p.add_argument("--opponents", type=_bot_list, default=d.opponents, metavar="A,B",
                   help="baseline bots of the opponent pool (default random), e.g. random,greedy")
    p.add_argument("--self-play", type=probability, default=d.self_play, metavar="P",
                   help=f"probability that an opponent seat is a snapshot of the learner (default {d.self_play})")
    p.add_argument("--snapshot-every", type=positive_int, default=d.snapshot_every, metavar="K",
                   help=f"add a snapshot to the pool every K steps (default {d.snapshot_every})")
    p.add_argument("--pool-size", type=positive_int, default=d.pool_size, help=f"snapshots kept (default {d.pool_size})")
    p.add_argument("--reward", choices=("win", "score"), default=d.reward, help=f"learner reward (default {d.reward})")
    p.add_argument("--n-envs", type=positive_int, default=d.n_envs, help=f"parallel envs (default {d.n_envs})")
    p.add_argument("--vec-env", choices=("dummy", "subproc"), default=d.vec_env,
                   help="dummy (one process; best for these fast envs) or subproc (default dummy)")
    p.add_argument("--fast", action="store_true",
                   help="play the n-envs games in one compiled batch against one compiled opponent policy "
                        "(--opponents random or greedy, --self-play 0); much faster, see docs/training.md")
    p.add_argument("--n-steps", type=positive_int, default=d.n_steps, help=f"rollout steps per env (default {d.n_steps})")
    p.add_argument("--batch-size", type=positive_int, default=d.batch_size, help=f"minibatch (default {d.batch_size})")
    p.add_argument("--learning-rate", type=float, default=d.learning_rate, help=f"(default {d.learning_rate})")
    p.add_argument("--net-arch", type=_layer_sizes, default=d.net_arch, metavar="H1,H2",
                   help=f"hidden layer sizes of the policy and value MLPs (default {','.join(map(str, d.net_arch))})")
    p.add_argument("--warm-start", default=d.warm_start, metavar="BOT",
                   help="behaviour-clone this bot (e.g. greedy) before PPO; needs --fast (see docs/training.md)")
    p.add_argument("--warm-start-samples", type=positive_int, default=d.warm_start_samples, metavar="M",
                   help=f"teacher decisions to clone (default {d.warm_start_samples})")
    p.add_argument("--warm-start-epochs", type=positive_int, default=d.warm_start_epochs, metavar="E",
                   help=f"passes over them (default {d.warm_start_epochs})")
    p.add_argument("--prior", default=d.prior, metavar="BOT",
                   help="add this bot's move (e.g. greedy) to the policy's logits; PPO learns corrections to it; "
                        "needs --fast (see docs/training.md)")
    p.add_argument("--prior-weight", type=float, default=d.prior_weight, metavar="W",
                   help=f"weight of the prior's move in the logits (default {d.prior_weight})")
    p.add_argument("--option", dest="options", type=_option, action="append", default=[], metavar="KEY=VALUE",
                   help="a game option, repeatable (e.g. --option rounds=1)")
    return p


def config_from_args(args) -> TrainConfig:
    return TrainConfig(
        game=args.game, players=args.players, timesteps=args.timesteps, seed=args.seed, out=args.out,
        options=dict(args.options), reward=args.reward, opponents=list(args.opponents), self_play=args.self_play,
        snapshot_every=args.snapshot_every, pool_size=args.pool_size, eval_every=args.eval_every,
        eval_games=args.eval_games, eval_opponents=args.eval_opponents, eval_workers=args.eval_workers,
        n_envs=args.n_envs, vec_env=args.vec_env, fast=args.fast, n_steps=args.n_steps, batch_size=args.batch_size,
        learning_rate=args.learning_rate, net_arch=list(args.net_arch), warm_start=args.warm_start,
        warm_start_samples=args.warm_start_samples, warm_start_epochs=args.warm_start_epochs, prior=args.prior,
        prior_weight=args.prior_weight,
    )


def run_train(args, log=print) -> dict:
    """Run the ``train`` sub-command from parsed ``args``."""
    try:
        cfg = config_from_args(args).check()
    except ValueError as exc:
        raise SystemExit(f"sly-scout train: {exc}") from None
    try:
        import sb3_contrib  # noqa: F401
    except ImportError:
        raise SystemExit("sly-scout train needs the train extra: pip install 'sly-scout-env[train]'") from None
    result = train(cfg, log=log)
    log(f"final policy: {result['final']}")
    log(f"  arena: sly-scout arena {cfg.game} --players {cfg.players} --agents ppo:path={result['final']},random "
        f"--games 1000" + "".join(f" --option {k}={v}" for k, v in cfg.options.items()))
    return result


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m agents.train_ppo")
    sub = parser.add_subparsers(dest="command", required=True)
    add_train_parser(sub)
    run_train(parser.parse_args(argv))
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
