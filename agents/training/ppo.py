"""Train a MaskablePPO bot by self-play: ``sly-scout train GAME --players N``.

    sly-scout train sly --players 2 --timesteps 200000 --out runs/sly2
    sly-scout train scout --players 2 --option rounds=1 --timesteps 300000 --out runs/scout2
    sly-scout arena sly --players 2 --agents ppo:path=runs/sly2/final.zip,random,greedy --games 2000

    from sly_scout_env.agents.training.ppo import TrainConfig, train
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
  A snapshot is a :class:`sly_scout_env.agents.bots.ppo.FrozenPolicy` (numpy weights, picklable)
  that samples from its masked softmax. Every ``snapshot_every`` steps the current
  policy joins the pool (the oldest leaves beyond ``pool_size``) and the envs get
  fresh opponents through ``VecEnv.set_attr`` (works for Dummy and Subproc envs;
  an episode under way keeps the opponents it started with).
* Every ``eval_every`` steps (and at step 0 and at the end) the policy is saved as a
  checkpoint zip and played in the arena (:func:`sly_scout_env.agents.evaluation.arena.run_arena`, fixed seed,
  seat rotation and duplicate deals) against each evaluation bot (``random``, and
  ``greedy`` when it is registered for the game); win share with its 95% interval over deals.

Outputs in ``--out``: ``config.json``; ``progress.csv`` (one row per rollout:
``timesteps, episodes, mean_reward, mean_length, win_fraction, pool_size, elapsed_s``;
the means are over the episodes finished in that rollout); ``eval.csv`` (one row per
evaluation and bot: ``timesteps, opponent, games, win_rate, win_rate_lo, win_rate_hi,
mean_score, opponent_mean_score, checkpoint``); ``checkpoints/step_<T>.zip``;
``final.zip``; ``resume/`` (the resume checkpoint, below). The same seed gives the same run
(CPU, one torch thread, DummyVecEnv).

Resuming
--------
A run is resumable: the same command with the same ``--out`` continues a killed run
from its last resume checkpoint, and a finished run says so and writes nothing. The
checkpoint, ``OUT/resume/``, is saved at the start of a rollout (after the previous
one's update) whenever a snapshot or an evaluation happened since the last one, at
least every ``min(snapshot_every, eval_every)`` steps, at step 0 (after the warm start
and the step-0 evaluation) and at the end. It holds ``state.json`` (the run's config,
the steps done, the callback's counters, the number of CSV rows logged), the SB3 model
(``model_<T>.zip``: weights, Adam state) and ``state_<T>.npz`` (the pool's snapshots as
numpy weights, the torch / numpy / Python RNG states; read without pickle). Every file is
written under a temporary name and renamed into place, ``state.json`` last, so a kill
at any moment leaves the previous checkpoint or the new one, never a broken one.
On resume the config must match the saved one (``out``, ``eval_workers`` and ``vec_env``
aside, which do not change what is trained), else :class:`ResumeError` names the
differing fields. The CSV logs are cut back to the rows logged at the checkpoint
and appended to. A resumed run is a sound continuation, not a bit-exact replay of
the uninterrupted run: the envs restart with fresh deals (seeded from the seed and
the step) and episodes under way at the kill are lost, as SB3 cannot save the envs.

torch and Stable-Baselines3 are imported inside the functions that need them, so the
``sly-scout`` command line (``agents/ui/cli.py`` holds the ``train`` parser) starts without them.
"""

from __future__ import annotations

import csv
import io
import json
import os
import random
import time
from dataclasses import asdict, dataclass, field

import numpy as np

from sly_scout_env.agents.bots.registry import available, make_from_spec, parse_spec, registration
from sly_scout_env.checks import check_choice, check_int
from sly_scout_env.games import get_game


# -- opponents -----------------------------------------------------------------------------
class PoolOpponent:
    """An opponent seat for self-play: per episode a snapshot of the learner or a baseline bot.

    ``baselines``: bot specs (``"random"``, ``"greedy"``...); ``pool``: frozen snapshots
    (:class:`sly_scout_env.agents.bots.ppo.FrozenPolicy`); ``self_play``: probability of a snapshot
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
    reward: str = "win"  # "win" (what the arena measures), "score" or "margin" (points minus the others' mean)
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
    # compiled opponent (random / greedy / neural) at every other seat, or opponents with one such name per
    # other seat in seat order; needs self_play=0 (snapshots are not compiled).
    fast: bool = False
    n_steps: int = 128  # per env and rollout
    batch_size: int = 128
    n_epochs: int = 4
    learning_rate: float = 1e-3  # small nets, short episodes: faster than the usual 3e-4, still stable
    gamma: float = 0.99
    ent_coef: float = 0.01
    net_arch: list = field(default_factory=lambda: [64, 64])
    torch_threads: int = 1
    # Behaviour-cloning warm start (agents/training/warm_start.py): a teacher bot spec (e.g. "greedy") whose
    # moves the policy learns, on warm_start_samples decisions for warm_start_epochs passes, before PPO.
    warm_start: str | None = None
    warm_start_samples: int = 200_000
    warm_start_epochs: int = 4
    # A prior bot (agents/training/prior_policy.py): its move, weighted by prior_weight, is added to the logits;
    # PPO learns corrections to it. Needs fast=True; the policy exports to the neural format only.
    prior: str | None = None
    prior_weight: float = 4.0
    # The policy: None (or "mlp"), SB3's MlpPolicy over the observation; "scorer", the action scorer of
    # agents/training/scorer_policy.py (logit of each legal action = an MLP of its feature row; needs fast=True
    # and a game with a features role). init_from: an action-scorer .npz the scorer starts from (its hidden
    # sizes are then the scorer's; net_arch stays the value network's). Both None by default, so configs and
    # resume checkpoints of earlier runs read the same.
    policy: str | None = None
    init_from: str | None = None

    def check(self) -> TrainConfig:
        game = get_game(self.game)
        game.check_players(self.players, "players")
        for name in ("timesteps", "snapshot_every", "pool_size", "eval_every", "eval_games", "eval_workers", "n_envs",
                     "n_steps", "batch_size", "n_epochs", "torch_threads", "warm_start_samples", "warm_start_epochs"):
            check_int(name, getattr(self, name))
        check_int("seed", self.seed, lo=0)
        if not isinstance(self.net_arch, (list, tuple)) or not self.net_arch:
            raise ValueError(f"net_arch={self.net_arch!r} is not allowed; give hidden layer sizes >= 1, e.g. [64, 64]")
        for h in self.net_arch:
            check_int("net_arch entry", h)
        check_choice("reward", self.reward, ("win", "score", "margin"))
        check_choice("vec_env", self.vec_env, ("dummy", "subproc"))
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
        self._check_policy()
        if self.warm_start is not None:
            name, _ = parse_spec(self.warm_start)
            if self.game not in registration(name).games:
                raise ValueError(f"warm_start bot {self.warm_start!r} does not play {self.game}")
        # With fast, the opponents are compiled policy names (checked above), not registered bots.
        for spec in ([] if self.fast else list(self.opponents)) + list(self.eval_opponents or []):
            name, _ = parse_spec(spec)
            if self.game not in registration(name).games:
                raise ValueError(f"bot {spec!r} does not play {self.game}")
        game.raw_env(num_players=self.players, **self.options)  # validates the options
        return self

    def _check_fast(self) -> None:
        compiled = get_game(self.game).module("policies").POLICY_NAMES
        if self.self_play > 0:
            raise ValueError(f"fast=True (--fast) plays compiled opponents only, and self-play snapshots are not "
                             f"compiled: give self_play=0 (--self-play 0), got {self.self_play}")
        one_for_all = len(set(self.opponents)) == 1
        per_seat = len(self.opponents) == self.players - 1
        if not (one_for_all or per_seat) or any(parse_spec(o)[0] not in compiled for o in self.opponents):
            raise ValueError(f"fast=True (--fast) plays compiled policies: give opponents as one compiled policy for "
                             f"every opponent seat, or {self.players - 1} of them (one per other seat, in seat "
                             f"order), each one of {', '.join(compiled)} (or neural:path=FILE, "
                             f"neural:temperature=T); got {list(self.opponents)}")
        if self.vec_env != "dummy":
            raise ValueError(f"fast=True (--fast) runs all n_envs games in one process; vec_env={self.vec_env!r} "
                             "does not apply (leave it 'dummy')")

    @property
    def scorer(self) -> bool:
        """Whether the run trains the action scorer (``policy="scorer"``)."""
        return self.policy == "scorer"

    def _check_policy(self) -> None:
        check_choice("policy", self.policy, (None, "mlp", "scorer"))
        if not self.scorer:
            if self.init_from is not None:
                raise ValueError(f"init_from={self.init_from!r} starts the action scorer from a checkpoint: it needs "
                                 "policy='scorer' (--policy scorer)")
            return
        from sly_scout_env.sb3_vec import feature_games

        if get_game(self.game).optional_module("features") is None:
            raise ValueError(f"policy='scorer' scores each legal move from the game's per-action features, and "
                             f"{self.game} has none; games with them: {', '.join(feature_games()) or 'none'}")
        if not self.fast:
            raise ValueError("policy='scorer' reads the per-action features of the fast engine: give fast=True "
                             "(--fast, with --self-play 0 and one compiled opponent policy)")
        for name in ("prior", "warm_start"):
            if getattr(self, name) is not None:
                raise ValueError(f"policy='scorer' does not combine with {name}={getattr(self, name)!r} (it is made "
                                 "for the MLP over the observation); start the scorer from a network with init_from")
        if self.init_from is not None:
            from sly_scout_env import netfile

            ckpt = netfile.load(self.init_from)  # CheckpointError (a ValueError) naming the problem
            size = netfile.table_sizes(self.game, self.players, json.dumps(
                {k: v for k, v in self.options.items() if k in get_game(self.game).option_names}, sort_keys=True,
                default=str))[0]
            if not ckpt.scores_actions:
                raise ValueError(f"init_from={self.init_from!r} reads the observation (inputs {ckpt.inputs!r}); the "
                                 "scorer starts only from an action scorer (inputs 'action_features')")
            if (ckpt.game, ckpt.players, ckpt.observation_size) != (self.game, self.players, size):
                raise ValueError(f"init_from={self.init_from!r} is for {ckpt.game} with {ckpt.players} players "
                                 f"(observation size {ckpt.observation_size}); this run is {self.game} with "
                                 f"{self.players} players (observation size {size})")

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
    from sly_scout_env.agents.bots import ppo  # noqa: F401  (registers "ppo")
    from sly_scout_env.agents.evaluation.arena import run_arena

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


def make_callback(cfg: TrainConfig, model_meta: dict, log, resume: dict | None = None, resumable: bool = False):
    """The run's callback (snapshots, CSV logs in ``cfg.out``, checkpoints, evaluations); close it after use.

    ``resumable``: also save resume checkpoints (``cfg.out/resume``, see the module docstring);
    ``resume``: a checkpoint read by :func:`read_resume` to continue from (its pool, counters and
    CSV rows; the CSV logs are then appended to, not started afresh).
    """
    from stable_baselines3.common.callbacks import BaseCallback

    from sly_scout_env.agents.bots.ppo import FrozenPolicy

    export_model = _exporter(cfg)

    class SelfPlayCallback(BaseCallback):
        """Snapshots into the pool, CSV logs, periodic checkpoints and arena evaluations."""

        def __init__(self):
            super().__init__()
            saved = (resume or {}).get("callback", {})
            self.pool: list = list((resume or {}).get("pool", []))
            self.returns: list = []
            self.lengths: list = []
            self.episodes = int(saved.get("episodes", 0))
            self.next_snapshot = int(saved.get("next_snapshot", cfg.snapshot_every))
            self.next_eval = int(saved.get("next_eval", cfg.eval_every))
            self.resume_every = min(cfg.snapshot_every, cfg.eval_every)
            self.next_resume = int(saved.get("next_resume", self.resume_every))
            self.last_resume = int(resume["timesteps"]) if resume else -1  # steps of the last resume checkpoint
            self.changed = False  # a snapshot or an evaluation since the last resume checkpoint
            self.t0 = time.perf_counter() - float(saved.get("elapsed_s", 0.0))
            os.makedirs(os.path.join(cfg.out, "checkpoints"), exist_ok=True)
            self.progress_file, self.progress, self.progress_rows = _open_log(
                os.path.join(cfg.out, "progress.csv"), PROGRESS_COLUMNS, saved.get("progress_rows") if resume else None)
            self.eval_file, self.evals, self.eval_rows = _open_log(
                os.path.join(cfg.out, "eval.csv"), EVAL_COLUMNS, saved.get("eval_rows") if resume else None)
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

        def _on_rollout_start(self) -> None:
            # Here the previous rollout has been trained on and logged: a consistent point to resume from.
            steps = int(self.model.num_timesteps)
            if resumable and steps > self.last_resume and (self.changed or steps >= self.next_resume):
                self.save_resume(steps)

        def _on_rollout_end(self) -> None:
            r = np.asarray(self.returns, dtype=float)
            self.progress.writerow([
                self.num_timesteps, self.episodes,
                f"{r.mean():.6f}" if r.size else "", f"{np.mean(self.lengths):.3f}" if r.size else "",
                f"{np.mean(r > 0):.6f}" if r.size else "", len(self.pool), f"{time.perf_counter() - self.t0:.2f}",
            ])
            self.progress_rows += 1
            self.progress_file.flush()
            self.returns.clear()
            self.lengths.clear()

        def add_snapshot(self) -> None:
            self.pool.append(FrozenPolicy.from_sb3(self.model, meta=model_meta))
            del self.pool[: max(0, len(self.pool) - cfg.pool_size)]
            self.push_pool()
            self.changed = True

        def push_pool(self) -> None:
            """Give every env fresh opponents drawing from the current pool."""
            env = self.training_env
            for i in range(env.num_envs):  # fresh objects per env: opponents hold per-episode state
                env.set_attr("opponents", _new_opponents(cfg, self.pool), indices=[i])

        def evaluate(self, tag: str, path: str | None = None) -> list:
            self.model.sly_scout_meta = dict(model_meta, timesteps=int(self.num_timesteps))
            path = path or os.path.join(cfg.out, "checkpoints", f"{tag}.zip")
            self.model.save(path)
            if cfg.prior or cfg.scorer:  # the ppo bot plays neither: play the exported neural checkpoint
                path = export_model(self.model, path[: -len(".zip")] + ".npz", game=cfg.game, players=cfg.players,
                                    options=cfg.options, trained={"timesteps": int(self.num_timesteps)}).source
            rows = evaluate(path, cfg)
            for row in rows:
                self.evals.writerow([self.num_timesteps, row["opponent"], row["games"], f"{row['win_rate']:.6f}",
                                     f"{row['win_rate_lo']:.6f}", f"{row['win_rate_hi']:.6f}",
                                     f"{row['mean_score']:.6f}", f"{row['opponent_mean_score']:.6f}",
                                     os.path.relpath(path, cfg.out)])
                self.eval_rows += 1
                log(f"  t={self.num_timesteps:>9}  vs {row['opponent']:<10} win rate {row['win_rate']:.3f} "
                    f"[{row['win_rate_lo']:.3f}, {row['win_rate_hi']:.3f}]  ({row['games']} games)")
            self.eval_file.flush()
            self.last_eval = rows
            self.changed = True
            return rows

        def save_resume(self, steps: int, finished: bool = False) -> None:
            """Write the resume checkpoint of the run at ``steps`` (atomically; see :func:`write_resume`)."""
            self.progress_file.flush()
            self.eval_file.flush()
            self.next_resume = (steps // self.resume_every + 1) * self.resume_every
            counters = {"episodes": self.episodes, "next_snapshot": self.next_snapshot, "next_eval": self.next_eval,
                        "next_resume": self.next_resume, "elapsed_s": round(time.perf_counter() - self.t0, 3),
                        "progress_rows": self.progress_rows, "eval_rows": self.eval_rows}
            write_resume(cfg, self.model, steps, self.pool, counters, finished=finished)
            self.last_resume = steps
            self.changed = False

        def close(self) -> None:
            self.progress_file.close()
            self.eval_file.close()

    return SelfPlayCallback()


# -- resume checkpoints -------------------------------------------------------------------------
RESUME_DIR = "resume"
RESUME_FORMAT = 1
# Settings that do not change what is trained: a run may be resumed with other values.
RESUME_FREE_FIELDS = ("out", "eval_workers", "vec_env")


class ResumeError(ValueError):
    """``--out`` holds a resume checkpoint that this command cannot continue."""


def _atomic_write(path: str, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file and a rename: never a half-written ``path``."""
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def _open_log(path: str, columns: list, keep_rows: int | None):
    """A CSV log opened for writing: ``(file, writer, data rows in it)``.

    ``keep_rows`` None: a new log (the header only). Else the log of a resumed run: its first
    ``keep_rows`` data rows are kept (the rows logged after the checkpoint are cut) and it is
    opened for appending.
    """
    if keep_rows is not None and os.path.isfile(path):
        with open(path, newline="", encoding="utf-8") as f:
            rows = list(csv.reader(f))
        body = rows[1: 1 + int(keep_rows)]
        if rows[:1] != [columns] or len(rows) != 1 + len(body):
            buf = io.StringIO(newline="")
            csv.writer(buf).writerows([columns] + body)
            _atomic_write(path, buf.getvalue().encode("utf-8"))
        f = open(path, "a", newline="", encoding="utf-8")
        return f, csv.writer(f), len(body)
    f = open(path, "w", newline="", encoding="utf-8")
    writer = csv.writer(f)
    writer.writerow(columns)
    return f, writer, 0


def _rng_arrays() -> dict:
    import torch

    name, keys, pos, has_gauss, cached = np.random.get_state()
    version, internal, gauss_next = random.getstate()
    return {"rng_torch": torch.get_rng_state().numpy().copy(), "rng_numpy_keys": np.asarray(keys),
            "rng_numpy_rest": np.array([pos, has_gauss, cached], dtype=np.float64),
            "rng_python": np.array((version,) + tuple(internal), dtype=np.int64),
            "rng_python_gauss": np.array([] if gauss_next is None else [gauss_next], dtype=np.float64)}


def _restore_rng(arrays) -> None:
    import torch

    torch.set_rng_state(torch.from_numpy(np.array(arrays["rng_torch"], dtype=np.uint8)))
    pos, has_gauss, cached = arrays["rng_numpy_rest"]
    np.random.set_state(("MT19937", np.asarray(arrays["rng_numpy_keys"], dtype=np.uint32), int(pos), int(has_gauss),
                         float(cached)))
    py = [int(x) for x in arrays["rng_python"]]
    gauss = arrays["rng_python_gauss"]
    random.setstate((py[0], tuple(py[1:]), float(gauss[0]) if gauss.size else None))


def _pool_arrays(pool: list) -> dict:
    arrays = {"pool_size": np.array(len(pool))}
    for k, snap in enumerate(pool):
        arrays[f"pool{k}_activation"] = np.array(snap.activation)
        arrays[f"pool{k}_meta"] = np.array(json.dumps(snap.meta))
        arrays[f"pool{k}_layers"] = np.array(len(snap.layers))
        for j, (w, b) in enumerate(snap.layers):
            arrays[f"pool{k}_w{j}"], arrays[f"pool{k}_b{j}"] = w, b
        arrays[f"pool{k}_head_w"], arrays[f"pool{k}_head_b"] = snap.head
    return arrays


def _pool_from_arrays(arrays) -> list:
    from sly_scout_env.agents.bots.ppo import FrozenPolicy

    pool = []
    for k in range(int(arrays["pool_size"])):
        layers = [(arrays[f"pool{k}_w{j}"], arrays[f"pool{k}_b{j}"]) for j in range(int(arrays[f"pool{k}_layers"]))]
        pool.append(FrozenPolicy(layers, (arrays[f"pool{k}_head_w"], arrays[f"pool{k}_head_b"]),
                                 str(arrays[f"pool{k}_activation"]), json.loads(str(arrays[f"pool{k}_meta"]))))
    return pool


def _config_dict(cfg: TrainConfig) -> dict:
    return json.loads(json.dumps(asdict(cfg)))


def write_resume(cfg: TrainConfig, model, steps: int, pool: list, counters: dict, finished: bool = False) -> str:
    """Save the resume checkpoint of a run at ``steps`` into ``cfg.out/resume``; returns its ``state.json``.

    The model and the arrays go to files named by the step, then ``state.json``, which names
    them, replaces the previous one (the commit); the files it no longer names are removed.
    """
    folder = os.path.join(cfg.out, RESUME_DIR)
    os.makedirs(folder, exist_ok=True)
    tag = f"{int(steps):09d}"
    names = {"model": f"model_{tag}.zip", "arrays": f"state_{tag}.npz"}
    buf = io.BytesIO()
    model.save(buf)
    _atomic_write(os.path.join(folder, names["model"]), buf.getvalue())
    buf = io.BytesIO()
    np.savez(buf, **_pool_arrays(pool), **_rng_arrays())
    _atomic_write(os.path.join(folder, names["arrays"]), buf.getvalue())
    state = {"format": RESUME_FORMAT, "timesteps": int(steps), "target": cfg.timesteps, "finished": bool(finished),
             **names, "callback": counters, "config": _config_dict(cfg),
             "saved_at": time.strftime("%Y-%m-%dT%H:%M:%S%z")}
    path = os.path.join(folder, "state.json")
    _atomic_write(path, (json.dumps(state, indent=2) + "\n").encode("utf-8"))
    for name in os.listdir(folder):  # older checkpoints, temporary files of a killed write
        if name not in ("state.json", *names.values()):
            try:
                os.remove(os.path.join(folder, name))
            except OSError:
                pass
    return path


def read_resume(cfg: TrainConfig) -> dict | None:
    """The resume checkpoint in ``cfg.out`` (None when there is none), checked against ``cfg``.

    Returns ``state.json``'s content plus ``"folder"``, ``"pool"`` (the snapshots) and
    ``"arrays"`` (the RNG states). Raises :class:`ResumeError` when the checkpoint was saved
    by a run with other settings, naming them.
    """
    folder = os.path.join(cfg.out, RESUME_DIR)
    path = os.path.join(folder, "state.json")
    if not os.path.isfile(path):
        return None
    try:
        with open(path, encoding="utf-8") as f:
            state = json.load(f)
        saved = state["config"]
    except (OSError, ValueError, KeyError) as exc:
        raise ResumeError(f"cannot read the resume checkpoint {path} ({exc}); delete {folder} to start the run "
                          "over in this directory, or give a new --out") from None
    if state.get("format") != RESUME_FORMAT:
        raise ResumeError(f"{path} has format {state.get('format')!r}, this version reads {RESUME_FORMAT}; "
                          f"delete {folder} to start over, or give a new --out")
    now = _config_dict(cfg)
    diffs = [f"{k}: {saved.get(k)!r} there, {now.get(k)!r} now" for k in sorted(set(saved) | set(now))
             if k not in RESUME_FREE_FIELDS and saved.get(k) != now.get(k)]
    if diffs:
        raise ResumeError(f"{cfg.out} holds a run (resume checkpoint at step {state.get('timesteps')}) with other "
                          f"settings; {'; '.join(diffs)}. Give a new --out for this run, repeat that run's own command "
                          f"to continue it, or delete {folder} to start over in {cfg.out}")
    try:
        if not os.path.isfile(os.path.join(folder, state["model"])):
            raise OSError(f"{state['model']} is missing")
        with np.load(os.path.join(folder, state["arrays"]), allow_pickle=False) as data:
            arrays = {k: data[k] for k in data.files}
        pool = _pool_from_arrays(arrays)
    except (OSError, ValueError, KeyError) as exc:
        raise ResumeError(f"the resume checkpoint in {folder} is incomplete ({exc}); delete {folder} to start the "
                          "run over in this directory, or give a new --out") from None
    return dict(state, folder=folder, pool=pool, arrays=arrays)


def _finished_result(cfg: TrainConfig, state: dict) -> dict:
    """The ``train`` result of a finished run, from its files."""
    rows = []
    path = os.path.join(cfg.out, "eval.csv")
    if os.path.isfile(path):
        with open(path, newline="", encoding="utf-8") as f:
            for row in csv.DictReader(f):
                if int(row["timesteps"]) == state["timesteps"] and row["checkpoint"].startswith("final"):
                    rows.append({k: (v if k in ("opponent", "checkpoint") else int(v) if k in ("timesteps", "games")
                                     else float(v)) for k, v in row.items()})
    return {"final": os.path.join(cfg.out, "final.zip"), "eval": rows, "out": cfg.out,
            "resumed_from": state["timesteps"], "already_finished": True}


def run_meta(cfg: TrainConfig) -> dict:
    """What a run's checkpoints and snapshots carry about it (game, players, options, reward, seed)."""
    return {"game": cfg.game, "players": cfg.players, "options": dict(cfg.options), "reward": cfg.reward,
            "seed": cfg.seed}


def _build_venv(cfg: TrainConfig):
    """The run's vectorised envs and its policy: ``(venv, policy, policy_kwargs)``."""
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecMonitor

    if cfg.fast:
        from sly_scout_env.sb3_vec import SingleAgentVecEnv

        extra = {"action_features": True} if cfg.scorer else {}  # default runs: the constructor call as before
        # One name for every other seat, or one per other seat in seat order (checked by _check_fast).
        opponents = cfg.opponents[0] if len(set(cfg.opponents)) == 1 else list(cfg.opponents)
        venv = SingleAgentVecEnv(cfg.game, cfg.n_envs, opponents=opponents, learner_seat="rotate",
                                 reward=cfg.reward, seed=cfg.seed, num_players=cfg.players, **extra, **cfg.options)
    else:
        factories = [_env_factory(cfg, _new_opponents(cfg, [])) for _ in range(cfg.n_envs)]
        if cfg.vec_env == "subproc":
            venv = SubprocVecEnv([_ThreadLimitedFactory(f) for f in factories], start_method="spawn")
        else:
            venv = DummyVecEnv(factories)
    policy, policy_kwargs = "MlpPolicy", {"net_arch": list(cfg.net_arch)}
    if cfg.prior:
        from sly_scout_env.agents.training.prior_policy import PriorHintVecEnv, PriorPolicy

        size = venv.observation_space.shape[0]
        venv = PriorHintVecEnv(venv, cfg.prior, cfg.game, cfg.players, cfg.options, cfg.seed)
        policy = PriorPolicy
        policy_kwargs.update(observation_size=size, prior=cfg.prior, prior_weight=cfg.prior_weight)
    if cfg.scorer:
        from sly_scout_env.agents.training.scorer_policy import ActionScorerPolicy

        policy = ActionScorerPolicy  # net_arch: the value network; the scorer's: init_from's, else net_arch
        policy_kwargs.update(scorer_arch=None if cfg.init_from else list(cfg.net_arch), init_from=cfg.init_from,
                             feature_names=list(venv.feature_names))
    return VecMonitor(venv), policy, policy_kwargs


def _exporter(cfg: TrainConfig):
    """The function writing the run's policy as a ``neural`` .npz (``export_neural.export_model``'s signature)."""
    if cfg.scorer:
        from sly_scout_env.agents.training.scorer_policy import export_scorer

        return export_scorer
    from sly_scout_env.agents.training.export_neural import export_model

    return export_model


def build_model(cfg: TrainConfig):
    """The run's ``MaskablePPO`` on its envs, as :func:`train` makes it: ``(model, venv)``.

    ``cfg`` must be checked. Sets torch's thread count to ``cfg.torch_threads``. Used by
    :func:`train` and by ``benchmarks/train_profile.py`` (which times the same objects).
    """
    import torch
    from sb3_contrib import MaskablePPO

    torch.set_num_threads(cfg.torch_threads)
    venv, policy, policy_kwargs = _build_venv(cfg)
    model = MaskablePPO(
        policy, venv, seed=cfg.seed, device="cpu", verbose=0,
        n_steps=cfg.n_steps, batch_size=cfg.batch_size, n_epochs=cfg.n_epochs, learning_rate=cfg.learning_rate,
        gamma=cfg.gamma, ent_coef=cfg.ent_coef, policy_kwargs=policy_kwargs,
    )
    return model, venv


def load_model(cfg: TrainConfig, resume: dict):
    """The model of a resume checkpoint (:func:`read_resume`) on fresh envs: ``(model, venv)``.

    The envs are seeded from ``cfg.seed`` and the checkpoint's step (fresh deals, not the
    run's first ones again); the RNG states are restored by :func:`train` just before it learns.
    """
    import torch
    from sb3_contrib import MaskablePPO

    torch.set_num_threads(cfg.torch_threads)
    venv, _, _ = _build_venv(cfg)
    try:
        model = MaskablePPO.load(os.path.join(resume["folder"], resume["model"]), env=venv, device="cpu")
    except BaseException:
        venv.close()
        raise
    venv.seed(int(np.random.SeedSequence([cfg.seed, int(resume["timesteps"])]).generate_state(1)[0] >> 1))
    return model, venv


def train(cfg: TrainConfig, log=print) -> dict:
    """Run a training, or continue it; returns ``{"final": path, "eval": [rows of the final evaluation], "out": dir}``.

    When ``cfg.out`` holds a resume checkpoint of the same run (``OUT/resume``, written as the
    run goes), the run continues from it: the model (weights and optimiser), the pool, the
    callback's counters and the RNG states are restored, the CSV logs are cut back to the
    checkpoint and appended to, and ``learn`` runs the remaining steps. A run that finished
    is not run again (the result then also has ``already_finished``). A checkpoint of a run
    with other settings raises :class:`ResumeError`. A resumed run continues soundly but is
    not bit-identical to an uninterrupted one: the envs (deals under way, their RNGs) cannot
    be saved, so they restart with fresh deals.
    """
    cfg.check()
    from sly_scout_env.agents.bots import ppo  # noqa: F401  (registers "ppo" for the evaluations)
    from sly_scout_env.agents.training.warm_start import pretrain

    export_model = _exporter(cfg)

    os.makedirs(cfg.out, exist_ok=True)
    resume = read_resume(cfg)
    if resume is not None and resume["finished"]:
        log(f"the run in {cfg.out} already finished: step {resume['timesteps']} of {cfg.timesteps}, final policy "
            f"{os.path.join(cfg.out, 'final.zip')}; nothing to do (give a new --out for another run)")
        return _finished_result(cfg, resume)
    meta = run_meta(cfg)
    if resume is None:
        t_start = time.perf_counter()
        _atomic_write(os.path.join(cfg.out, "config.json"), (json.dumps(asdict(cfg), indent=2) + "\n").encode("utf-8"))
        model, venv = build_model(cfg)
        pretrain(model, cfg, log=log)
        log(f"training MaskablePPO on {cfg.game}, {cfg.players} players, {cfg.timesteps} steps -> {cfg.out}")
    else:
        t_start = time.perf_counter() - float(resume["callback"].get("elapsed_s", 0.0))
        model, venv = load_model(cfg, resume)
        log(f"resuming the run in {cfg.out} from step {resume['timesteps']} of {cfg.timesteps} "
            f"(MaskablePPO on {cfg.game}, {cfg.players} players; checkpoint saved {resume.get('saved_at', '?')})")
    callback = make_callback(cfg, meta, log, resume=resume, resumable=True)
    try:
        callback.init_callback(model)
        if resume is None:
            callback.num_timesteps = 0
            callback.evaluate("step_000000000")  # the untrained policy: the start of the learning curve
            callback.save_resume(0)  # from here on a killed run resumes (its warm start included)
        else:
            callback.num_timesteps = model.num_timesteps
            if not cfg.fast:
                callback.push_pool()
            _restore_rng(resume["arrays"])
        remaining = cfg.timesteps - model.num_timesteps
        if remaining > 0:
            model.learn(total_timesteps=remaining, callback=callback, progress_bar=False,
                        reset_num_timesteps=resume is None)
        callback.num_timesteps = model.num_timesteps
        if callback.last_resume < model.num_timesteps:
            callback.save_resume(int(model.num_timesteps))  # a kill in the final evaluation redoes only that
        final = os.path.join(cfg.out, "final.zip")
        rows = callback.evaluate("final", path=final)
        export_model(model, os.path.join(cfg.out, "final.npz"), game=cfg.game, players=cfg.players,
                     options=cfg.options, trained={"config": asdict(cfg), "timesteps": int(model.num_timesteps),
                                                   "wall_time_s": round(time.perf_counter() - t_start, 1)})
        callback.save_resume(int(model.num_timesteps), finished=True)
    finally:
        callback.close()
        venv.close()
    return {"final": final, "eval": rows, "out": cfg.out}
