"""Distil search into a network: ``sly-scout distill GAME --players N``.

    sly-scout distill scout --players 2 --minutes 30 --out runs/distill2
    sly-scout arena scout --players 2 --agents neural:path=runs/distill2/final.npz,greedy --games 1000

    from sly_scout_env.agents.training.distill import DistillConfig, run
    result = run(DistillConfig("scout", players=4, minutes=1, out="runs/quick"))

The recipe (docs/training.md, "Distilling ISMCTS")
--------------------------------------------------
1. **Collect** (``--minutes`` on ``--workers`` processes): play games in which one or
   two seats are the teacher (``--teacher``, default ``ismcts`` at its default budget)
   and the others ``greedy``. At every decision of a teacher seat with more than one
   legal move, record the seat's observation, its legal action ids and the visits the
   search gave each of them at its root. Why visits and not only the move: they say
   how clearly the search preferred it, more to learn from per (costly) search. Why
   greedy seats: the bot meets ``greedy`` and ``ismcts``; mixing them puts positions
   of both kinds in the data, and greedy's moves cost nothing.
2. **Fit** (:mod:`sly_scout_env.agents.training.distill_fit`, plain supervised learning in torch): an
   action-scoring network, one MLP applied to each legal action's feature row (the
   game's ``features`` module), trained on the cross-entropy between its masked
   softmax and the teacher's visit shares sharpened by ``--temperature`` (visits **
   (1 / T)). Saved as a torch-free ``neural`` checkpoint of the ``action_features``
   kind (:mod:`sly_scout_env.netfile`).
3. **Evaluate** (the learning curve): the network is fitted on the first quarter, half
   and all of the decisions (``curve``), and each fit plays ``--eval-games`` arena
   games, one learned seat against ``--eval-opponents`` in every other seat, every
   seating, duplicate deals, fixed evaluation seed.

A stopped run resumes: run the same command again and collection continues until the
total collection time reaches ``--minutes`` (the time already spent is kept in
``collect.json``, written every 30 s; new games use new seeds), then the fit and
evaluation run. The
collection is bounded by time (and ``--decisions``, when given), so how much data a
run gets depends on the machine; the fit and evaluation are deterministic given the
data and ``--seed``.

``--label-searches K`` searches each labelled position K times (K teacher bots of
different seeds) and sums their root visits: a steadier label at K times the cost (the
move played is the first search's).

``--dagger SHARE`` adds an on-policy stage (DAgger): after ``1 - SHARE`` of the minutes a
first fit is made and, for the rest, it plays the teacher seats' moves while the teacher
still searches each of its positions for the visits; the final fit uses both stages.

Outputs in ``--out``: ``config.json``; ``data/<stage>_<session>_<k>.npz`` (the decisions of
collector ``k``: ``obs``, ``offsets``, ``ids``, ``visits``; rows of decision ``i`` are
``offsets[i]:offsets[i+1]``); ``collect.json`` (per stage: seconds, games, decisions,
files); ``fit.csv`` (one row per epoch and curve point: ``decisions, epoch, train_loss,
val_loss, val_agreement, seconds``); ``eval.csv`` (one row per curve point and opponent:
``decisions, opponent, games, deals, win_rate, win_rate_lo, win_rate_hi, mean_score,
opponent_mean_score, checkpoint``); ``checkpoints/decisions_<D>.npz`` (and
``teacher_stage.npz`` with ``--dagger``); ``final.npz`` (the fit on all data);
``summary.json`` (times of each stage and the final evaluation).
"""

from __future__ import annotations

import csv
import json
import multiprocessing as mp
import os
import shutil
import sys
import time
from dataclasses import asdict, dataclass, field

import numpy as np

from sly_scout_env.agents.bots.registry import make_from_spec
from sly_scout_env.agents.bots.views import player_view
from sly_scout_env.agents.evaluation.arena import derive_seed
from sly_scout_env.checks import check_int
from sly_scout_env.games import get_game

EVAL_SEED = 1_000_003  # evaluation deals: fixed, and apart from the collection's seeds


@dataclass
class DistillConfig:
    game: str
    players: int
    minutes: float = 30.0  # total collection time (wall clock, all workers together)
    decisions: int | None = None  # stop collecting after this many decisions (None: time only)
    workers: int = 2
    teacher: str = "ismcts"
    label_searches: int = 1  # independent teacher searches per labelled position, their visits summed
    dagger: float = 0.0  # share of the minutes in which the first fit plays and the teacher labels (DAgger)
    hidden: list = field(default_factory=lambda: [64, 64])
    epochs: int = 30
    temperature: float = 0.2
    learning_rate: float = 1e-3
    batch_size: int = 256
    curve: list = field(default_factory=lambda: [0.25, 0.5, 1.0])
    eval_games: int = 400
    eval_opponents: list = field(default_factory=lambda: ["greedy"])
    eval_workers: int = 2
    seed: int = 0
    out: str = "runs/distill"
    options: dict = field(default_factory=dict)
    command: str = ""  # the command line that started the run (provenance in the checkpoint)

    def check(self) -> DistillConfig:
        spec = get_game(self.game)
        if self.players not in spec.player_counts:
            raise ValueError(f"players={self.players!r} is not allowed for {self.game}; allowed: {spec.player_counts}")
        if spec.optional_module("features") is None:
            raise ValueError(f"{self.game} has no per-action features module, so no action-scoring network can be "
                             "distilled for it")
        spec.raw_env(num_players=self.players, **self.options)  # validates the options
        if not (isinstance(self.minutes, (int, float)) and self.minutes > 0):
            raise ValueError(f"minutes={self.minutes!r} is not allowed; give a collection time > 0")
        check_int("decisions", self.decisions, allow_none=True)
        check_int("workers", self.workers)
        check_int("label_searches", self.label_searches)
        check_int("epochs", self.epochs)
        check_int("batch_size", self.batch_size)
        check_int("eval_games", self.eval_games)
        check_int("eval_workers", self.eval_workers)
        check_int("seed", self.seed, lo=0)
        if not self.hidden or any(isinstance(h, bool) or not isinstance(h, int) or h < 1 for h in self.hidden):
            raise ValueError(f"hidden={self.hidden!r} is not allowed; give one or more layer sizes >= 1")
        if not (isinstance(self.dagger, (int, float)) and 0 <= self.dagger < 1):
            raise ValueError(f"dagger={self.dagger!r} is not allowed; give a share of the minutes in [0, 1)")
        if not (isinstance(self.temperature, (int, float)) and self.temperature > 0):
            raise ValueError(f"temperature={self.temperature!r} is not allowed; give a number > 0")
        if not (isinstance(self.learning_rate, (int, float)) and self.learning_rate > 0):
            raise ValueError(f"learning_rate={self.learning_rate!r} is not allowed; give a number > 0")
        if not self.curve or any(not (0 < f <= 1) for f in self.curve) or sorted(self.curve) != list(self.curve) \
                or self.curve[-1] != 1.0:
            raise ValueError(f"curve={self.curve!r} is not allowed; give increasing fractions in (0, 1] ending at 1")
        make_from_spec(self.teacher, game=self.game)  # an unknown teacher fails here, not in a worker
        for opp in self.eval_opponents:
            make_from_spec(opp, game=self.game)
        return self


# -- 1. collect ----------------------------------------------------------------------------------
def teacher_seats(players: int, rng: np.random.Generator) -> list[bool]:
    """Which seats the teacher plays in one game: 1 or 2 seats at random (2 players: one or both)."""
    k = int(rng.integers(1, 3))
    seats = rng.permutation(players)[:k]
    return [s in seats for s in range(players)]


def root_visits(bot, legal: np.ndarray) -> np.ndarray:
    """The visits of each legal id at the root of ``bot``'s last search (0 for an edge never tried)."""
    children = bot.search.last_root.children
    return np.array([children[int(a)].visits if int(a) in children else 0 for a in legal], dtype=np.float32)


def collect(game: str, players: int, *, seconds: float, seed: int, out: str, options: dict | None = None,
            teacher: str = "ismcts", worker: int = 0, max_decisions: int | None = None, counter=None,
            student: str | None = None, label_searches: int = 1, parent: int | None = None) -> dict:
    """Play teacher-labelled games for about ``seconds``; write the decisions to ``out`` (npz).

    ``label_searches`` K > 1: each labelled position is searched K times, by K teacher bots
    of different seeds, and the label is the sum of their root visits (the move played is
    the first search's). One search's visits are noisy (a second search of the same position
    often prefers another move: ``benchmarks/teacher_agreement.py``); a sum of K is a steadier
    label at K times the cost.

    ``student``: a checkpoint path; when given, the teacher seats play the student's move
    (the teacher still searches every position, for its visits): on-policy data, as in
    DAgger. Saves every 10 games (a stopped worker keeps its data). ``counter``: a shared
    ``multiprocessing.Value`` incremented by the decisions recorded (progress). ``parent``:
    the pid of the process that started this worker; the worker saves and stops after the
    game in which that process went away (a killed ``sly-scout distill`` leaves no collector
    running on to its own deadline, hours later).
    """
    options = dict(options or {})
    env = get_game(game).raw_env(num_players=players, **options)
    rng = np.random.default_rng([seed, worker, 0xD157])
    greedy = [make_from_spec("greedy", game=game) for _ in range(players)]
    teachers = [make_from_spec(teacher, game=game) for _ in range(players)]
    extra = [[make_from_spec(teacher, game=game) for _ in range(players)] for _ in range(label_searches - 1)]
    students = [make_from_spec(f"neural:path={student}", game=game) for _ in range(players)] if student else None
    data = {"obs": [], "offsets": [0], "ids": [], "visits": []}
    deadline = time.monotonic() + seconds
    games = 0
    while (time.monotonic() < deadline and (max_decisions is None or len(data["obs"]) < max_decisions)
           and (parent is None or os.getppid() == parent)):
        is_teacher = teacher_seats(players, rng)
        bots = [teachers[s] if is_teacher[s] else greedy[s] for s in range(players)]
        env.reset(seed=derive_seed(seed, worker, games))
        for s, bot in enumerate(bots):
            bot.reset(derive_seed(seed, worker, games, s), game=game, num_players=players, seat=s, options=options)
            for j, more in enumerate(extra):
                more[s].reset(derive_seed(seed, worker, games, s, 2, j), game=game, num_players=players, seat=s,
                              options=options)
            if students is not None:
                students[s].reset(derive_seed(seed, worker, games, s, 1), game=game, num_players=players, seat=s,
                                  options=options)
        while not env.terminations[env.agent_selection]:
            agent = env.agent_selection
            seat = env.agent_name_mapping[agent]
            ob = env.observe(agent)
            info = {"seat": seat, "game": game, "num_players": players, "view": player_view(env.state_dict(), seat)}
            action = bots[seat].act(ob["observation"], ob["action_mask"], info)
            legal = np.flatnonzero(ob["action_mask"])
            if is_teacher[seat] and legal.size > 1:
                data["obs"].append(np.asarray(ob["observation"], np.float32))
                data["ids"].append(legal)
                visits = root_visits(bots[seat], legal)
                for more in extra:
                    more[seat].act(ob["observation"], ob["action_mask"], dict(info))
                    visits = visits + root_visits(more[seat], legal)
                data["visits"].append(visits)
                data["offsets"].append(data["offsets"][-1] + legal.size)
                if counter is not None:
                    with counter.get_lock():
                        counter.value += 1
                if students is not None:
                    action = students[seat].act(ob["observation"], ob["action_mask"], info)
            env.step(int(action))
        games += 1
        if games % 10 == 0:
            _save(out, data)
    _save(out, data)
    return {"games": games, "decisions": len(data["obs"])}


def _save(out: str, data: dict) -> None:
    if not data["obs"]:
        return
    tmp = out + ".tmp.npz"
    np.savez(tmp, obs=np.stack(data["obs"]), offsets=np.array(data["offsets"], np.int64),
             ids=np.concatenate(data["ids"]), visits=np.concatenate(data["visits"]))
    os.replace(tmp, out)  # never a half-written data file


def load_data(paths) -> dict:
    """The decisions of several collect files, concatenated (in the order given)."""
    obs, offsets, ids, visits = [], [0], [], []
    for p in paths:
        with np.load(p, allow_pickle=False) as z:
            obs.append(z["obs"])
            ids.append(z["ids"])
            visits.append(z["visits"])
            offsets.extend((z["offsets"][1:] + offsets[-1]).tolist())
    return {"obs": np.concatenate(obs), "offsets": np.array(offsets, np.int64), "ids": np.concatenate(ids),
            "visits": np.concatenate(visits)}


def take(data: dict, decisions: int) -> dict:
    """The first ``decisions`` decisions of ``data``."""
    off = data["offsets"][: decisions + 1]
    return {"obs": data["obs"][:decisions], "offsets": off, "ids": data["ids"][: off[-1]],
            "visits": data["visits"][: off[-1]]}


STAGE_SEEDS = {"teacher": 0, "student": 500_000}  # worker ids of the two stages never meet: distinct games
_COUNTER = None  # the progress counter, shared with the collector processes


def _init_counter(counter) -> None:
    global _COUNTER
    _COUNTER = counter


def _collect_task(kwargs) -> dict:
    return collect(counter=_COUNTER, **kwargs)


def run_collect(cfg: DistillConfig, stage: str, seconds: float, max_decisions: int | None = None,
                student: str | None = None, log=print) -> dict:
    """One collection stage with resume: collect until ``collect.json`` records ``seconds`` of
    it for ``stage`` (``"teacher"``: the teacher plays; ``"student"``: the checkpoint
    ``student`` plays, the teacher labels). Returns the stage's record."""
    data_dir = os.path.join(cfg.out, "data")
    os.makedirs(data_dir, exist_ok=True)
    state_path = os.path.join(cfg.out, "collect.json")
    stages = {}
    if os.path.exists(state_path):
        with open(state_path, encoding="utf-8") as f:
            stages = json.load(f)
        if "seconds" in stages:  # the first format: one teacher stage, flat
            stages = {"teacher": stages}
    state = stages.setdefault(stage, {"seconds": 0.0, "sessions": 0, "games": 0, "decisions": 0, "files": []})
    remaining = seconds - state["seconds"]
    if max_decisions is not None and state["decisions"] >= max_decisions:
        remaining = 0
    if remaining <= 1:
        log(f"{stage} collection done earlier: {state['decisions']} decisions in {state['seconds']:.0f} s")
        return state
    session = state["sessions"]
    if session:
        log(f"resuming the {stage} collection: {state['decisions']} decisions in {state['seconds']:.0f} s so far")
    per_worker = None if max_decisions is None else -(-(max_decisions - state["decisions"]) // cfg.workers)
    tasks = []
    for k in range(cfg.workers):
        path = os.path.join(data_dir, f"{stage}_{session:02d}_{k}.npz")
        tasks.append(dict(game=cfg.game, players=cfg.players, seconds=remaining, seed=cfg.seed, out=path,
                          options=dict(cfg.options), teacher=cfg.teacher, label_searches=cfg.label_searches,
                          worker=STAGE_SEEDS[stage] + session * 1000 + k, max_decisions=per_worker, student=student,
                          parent=os.getpid()))
    ctx = mp.get_context("spawn")
    counter = ctx.Value("l", 0)
    t0 = time.monotonic()
    from tqdm import tqdm

    bar = tqdm(total=int(remaining), unit="s", file=sys.stderr, dynamic_ncols=True,
               desc=f"collect {cfg.teacher} decisions, {stage} plays ({cfg.workers} workers)")
    before = dict(state, files=list(state["files"]))

    def record(results=None) -> None:
        """collect.json as of now, written often: a run killed mid-way resumes from its last save."""
        state["seconds"] = before["seconds"] + time.monotonic() - t0
        state["sessions"] = session + 1
        state["files"] = before["files"] + [os.path.relpath(t["out"], cfg.out) for t in tasks
                                            if os.path.exists(t["out"])]
        if results is None:  # the workers' files hold what they saved so far (every 10 games)
            state["decisions"] = before["decisions"] + counter.value
        else:
            state["games"] = before["games"] + sum(r["games"] for r in results)
            state["decisions"] = before["decisions"] + sum(r["decisions"] for r in results)
        tmp = state_path + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(stages, f, indent=1)
        os.replace(tmp, state_path)

    with ctx.Pool(cfg.workers, initializer=_init_counter, initargs=(counter,)) as pool:
        pending = pool.map_async(_collect_task, tasks)
        last = time.monotonic()
        while not pending.ready():
            pending.wait(2.0)
            bar.n = min(int(time.monotonic() - t0), int(remaining))
            bar.set_postfix(decisions=counter.value)
            bar.refresh()
            if time.monotonic() - last >= 30:
                record()
                last = time.monotonic()
        results = pending.get()
    bar.close()
    record(results)
    log(f"{stage} stage: {state['decisions']} decisions in {state['games']} games, {state['seconds']:.0f} s")
    return state


# -- 2 and 3. fit and evaluate -------------------------------------------------------------------
FIT_COLUMNS = ["decisions", "epoch", "train_loss", "val_loss", "val_agreement", "seconds"]
EVAL_COLUMNS = ["decisions", "opponent", "games", "deals", "win_rate", "win_rate_lo", "win_rate_hi", "mean_score",
                "opponent_mean_score", "checkpoint"]


def checkpoint_meta(cfg: DistillConfig, decisions: int, extra: dict) -> dict:
    from sly_scout_env.netfile import table_sizes

    feat = get_game(cfg.game).module("features")
    obs_size, num_actions = table_sizes(cfg.game, cfg.players, json.dumps(cfg.options, sort_keys=True))
    return {
        "format_version": 2, "inputs": "action_features", "features": list(feat.FEATURE_NAMES),
        "game": cfg.game, "players": cfg.players, "observation_size": obs_size, "num_actions": num_actions,
        "activation": "ReLU", "hidden": list(cfg.hidden), "options": dict(cfg.options),
        "trained": dict({"recipe": "distill", "command": cfg.command, "teacher": cfg.teacher,
                         "label_searches": cfg.label_searches, "decisions": int(decisions),
                         "temperature": cfg.temperature, "epochs": cfg.epochs,
                         "date": time.strftime("%Y-%m-%d")}, **extra),
    }


def evaluate(checkpoint: str, cfg: DistillConfig) -> list[dict]:
    """Arena: the checkpoint in one seat, each evaluation bot in every other seat."""
    from sly_scout_env.agents.evaluation.arena import run_arena

    rows = []
    for opp in cfg.eval_opponents:
        res = run_arena(cfg.game, cfg.players, [f"neural:path={checkpoint}"] + [opp] * (cfg.players - 1),
                        games=cfg.eval_games, seed=EVAL_SEED, workers=cfg.eval_workers, options=dict(cfg.options),
                        progress=True)
        me, them = res.stats[0], res.stats[1]
        rows.append({"opponent": opp, "games": res.games, "deals": res.deals, "win_rate": me.win_rate,
                     "win_rate_lo": me.win_rate_ci95[0], "win_rate_hi": me.win_rate_ci95[1],
                     "mean_score": me.mean_score, "opponent_mean_score": them.mean_score})
    return rows


def _fit_checkpoint(cfg: DistillConfig, rows, data: dict, path: str, extra: dict, log):
    """Fit on ``data`` (feature ``rows``), save the checkpoint at ``path``; returns the epoch history."""
    from sly_scout_env.agents.training.distill_fit import fit
    from sly_scout_env.netfile import NeuralPolicy

    n = len(data["obs"])
    log(f"fit on {n} decisions")
    model, history = fit(rows[: data["offsets"][-1]], data, hidden=cfg.hidden, epochs=cfg.epochs,
                         lr=cfg.learning_rate, batch=cfg.batch_size, temperature=cfg.temperature, seed=cfg.seed,
                         log=log)
    layers, head = model.arrays()
    meta = checkpoint_meta(cfg, n, dict(extra, val_agreement=history[-1]["val_agreement"]))
    NeuralPolicy(layers, head, meta, source=path).save(path)
    return history


def run(cfg: DistillConfig, log=print) -> dict:
    """The whole recipe (collect with resume, fit, evaluate); returns the summary dict."""
    from sly_scout_env.agents.training.distill_fit import feature_rows

    cfg.check()
    os.makedirs(cfg.out, exist_ok=True)
    with open(os.path.join(cfg.out, "config.json"), "w", encoding="utf-8") as f:
        json.dump(asdict(cfg), f, indent=1)
    t_start = time.monotonic()
    budget = cfg.minutes * 60
    cap = None if cfg.decisions is None else max(1, int(round(cfg.decisions * (1 - cfg.dagger))))
    stages = [run_collect(cfg, "teacher", budget * (1 - cfg.dagger), cap, log=log)]
    if cfg.dagger > 0:  # on-policy stage: the first fit plays, the teacher labels its positions
        student = os.path.join(cfg.out, "checkpoints", "teacher_stage.npz")
        if not os.path.exists(student):
            data = load_data([os.path.join(cfg.out, p) for p in stages[0]["files"]])
            _fit_checkpoint(cfg, feature_rows(data, cfg.game, cfg.players), data, student,
                            {"stage": "teacher plays"}, log)
        cap = None if cfg.decisions is None else max(1, cfg.decisions - stages[0]["decisions"])
        stages.append(run_collect(cfg, "student", budget * cfg.dagger, cap, student=student, log=log))
    files = [os.path.join(cfg.out, p) for st in stages for p in st["files"]]
    collect_seconds = sum(st["seconds"] for st in stages)
    games = sum(st["games"] for st in stages)
    if not files:
        raise SystemExit(f"sly-scout distill: no teacher decision was collected in {collect_seconds:.0f} s; "
                         "give more --minutes")
    data = load_data(files)
    total = len(data["obs"])
    t_fit = time.monotonic()
    rows_all = feature_rows(data, cfg.game, cfg.players)
    fit_path, eval_path = os.path.join(cfg.out, "fit.csv"), os.path.join(cfg.out, "eval.csv")
    results = []
    with open(fit_path, "w", newline="", encoding="utf-8") as ff, \
            open(eval_path, "w", newline="", encoding="utf-8") as ef:
        fw, ew = csv.writer(ff), csv.writer(ef)
        fw.writerow(FIT_COLUMNS)
        ew.writerow(EVAL_COLUMNS)
        for frac in cfg.curve:
            n = max(1, int(round(total * frac)))
            ckpt = os.path.join(cfg.out, "checkpoints", f"decisions_{n:07d}.npz")
            history = _fit_checkpoint(cfg, rows_all, take(data, n), ckpt,
                                      {"collect_seconds": round(collect_seconds), "games": games}, log)
            for h in history:
                fw.writerow([n, h["epoch"], f"{h['train_loss']:.5f}", f"{h['val_loss']:.5f}",
                             f"{h['val_agreement']:.4f}", h["seconds"]])
            ff.flush()
            for r in evaluate(ckpt, cfg):
                ew.writerow([n, r["opponent"], r["games"], r["deals"], f"{r['win_rate']:.6f}",
                             f"{r['win_rate_lo']:.6f}", f"{r['win_rate_hi']:.6f}", f"{r['mean_score']:.4f}",
                             f"{r['opponent_mean_score']:.4f}", os.path.relpath(ckpt, cfg.out)])
                ef.flush()
                results.append(dict(r, decisions=n))
                log(f"  {n} decisions vs {r['opponent']}: win share {r['win_rate']:.3f} "
                    f"[{r['win_rate_lo']:.3f}, {r['win_rate_hi']:.3f}] over {r['deals']} deals ({r['games']} games)")
    final = os.path.join(cfg.out, "final.npz")
    shutil.copyfile(ckpt, final)  # the last curve point is the fit on all the data
    summary = {"collect_seconds": round(collect_seconds, 1), "decisions": total, "games": games,
               "fit_and_eval_seconds": round(time.monotonic() - t_fit, 1),
               "this_invocation_seconds": round(time.monotonic() - t_start, 1),
               "final": final, "final_eval": [r for r in results if r["decisions"] == total]}
    with open(os.path.join(cfg.out, "summary.json"), "w", encoding="utf-8") as f:
        json.dump(summary, f, indent=1)
    log(f"final network: {final}")
    return summary
