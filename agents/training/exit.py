"""Expert iteration: a search and a network that improve each other (``sly-scout exit``).

    sly-scout exit scout --players 2 --hours 3 --out runs/exit_scout2
    sly-scout exit sly --players 3 --iterations 200 --games 48 --out runs/exit_sly3

The **expert** is the compiled ISMCTS (``ismcts``) with the current network inside it:
the network's policy ranks the edges (PUCT, ``guide=neural``) and its value network ends
the simulations at a new leaf (``guide_value``; ``sly_scout_env/ismcts.py``; ``--guide``
keeps only one of the two; ``--guide-c`` sets its PUCT constant, else the search's default for
the game). Before any network has won its gate, the expert is the plain
search, or with ``--init shipped`` the search guided by the shipped ``neural`` network's
prior (it has no value network; the fits start from its weights when their layer sizes
match). Each **generation** ``g``:

1. **Self-play.** The expert plays every seat of ``--games`` games, with Dirichlet noise on
   the root's prior (``--noise``, ``--noise-alpha``; only once a network guides) and, for
   the first ``--temperature-moves`` decisions of each game, a move drawn in proportion to
   the root's visits (else the most visited). Every decision records the mover's
   observation, the legal mask, the root's visit counts (the policy target) and, once the
   search's horizon ends (Scout: the round, Sly: the game), the mover's reward at that
   horizon in the search's own measure (``value``: win share, squashed margin or both, in
   [0, 1]; the value target). The games are written in shards of ``--shard-games``.
2. **Fit.** A new network (torch, ``--hidden`` layers: the policy an action scorer over each
   legal move's feature row where the game has a ``features`` module, as Scout does, else an
   MLP from the observation to every action id; the value an MLP from the observation) is
   fitted on the shards of the last ``--window`` generations: cross-entropy to the visit
   distribution over the legal moves, plus the logistic loss of the value. It starts from
   the current best network's weights.
3. **Gate.** The candidate's expert takes one seat against the current expert in every
   other seat, on ``--gate-games`` arena games (duplicate deals, every seating). It becomes
   the new best when its win share is above parity (1 / players): a tie keeps the best
   (two experts that play alike tie every deal, e.g. in Sly, where the deal leaves little
   to chance).
4. **Log.** One row per generation in ``OUT/log.csv`` (decisions, fit losses, the gate's
   win share and interval over deals, wall time) and the learning curve ``OUT/curve.svg``.

Files in ``OUT`` (every one written through a temporary file and a rename, so a kill at any
moment leaves either the old file or the new one)::

    config.json              the settings (a rerun with other settings is refused)
    best.json                the current best network ({"network": "gen_002", "path"}; absent: the --init one,
                             "plain" for the plain search)
    clock.json               wall time spent so far (``--hours`` counts it across runs)
    gen_000/teacher.json     the expert that plays this generation's games
    gen_000/shard_000.npz    self-play decisions: obs, mask, visits, value, seat, game, horizon
    gen_000/net.npz          the network fitted after this generation (a neural checkpoint with a value network)
    gen_000/fit.json, gate.json, record.json
    log.csv, curve.svg       rebuilt from the records

**Resume.** Running the same command again continues where the files say: finished
shards, fits and gates are kept; a shard cut short by the kill is played again from its
seed (the same games). ``--hours`` and ``--generations`` bound the run (both may grow on a
rerun); the run stops cleanly between two pieces of work.

Every network written is a ``neural`` checkpoint (``neural:path=OUT/gen_003/net.npz``: the
raw policy) and an expert (``expert:path=OUT/gen_003/net.npz``: its ``meta["expert"]`` says
what the run's expert took from it, ``--guide``, at how many iterations and, given
``--guide-c``, with which PUCT constant).
"""

from __future__ import annotations

import csv
import json
import math
import os
import time
from dataclasses import asdict, dataclass, field

import numpy as np

from sly_scout_env.agents.bots.ismcts import check_guide_c
from sly_scout_env.agents.bots.registry import format_spec, make
from sly_scout_env.agents.evaluation.arena import derive_seed, run_arena
from sly_scout_env.games import get_game
from sly_scout_env.views import player_view

# Settings a rerun may change (the others must match the run's config.json).
RESUME_FREE_FIELDS = ("hours", "generations", "out", "workers", "command")
STEP_CAP = 20_000  # moves in one self-play game before it is called a bug (games end far sooner)
LOG_COLUMNS = ("generation", "teacher", "games", "decisions", "selfplay_seconds", "fit_samples", "fit_seconds",
               "policy_loss", "value_loss", "gate_games", "gate_deals", "gate_share", "gate_low", "gate_high",
               "accepted", "best", "wall_hours")


# What the expert takes from its network: the prior (PUCT), the value (cut-off), or both.
GUIDE_USES = {"both": (True, True), "prior": (True, False), "value": (False, True)}
# best.json before any network won a gate: the expert is the plain search.
NO_NETWORK = {"network": "plain", "path": None}


class ResumeError(ValueError):
    """``--out`` holds a run these settings cannot continue."""


@dataclass
class ExitConfig:
    game: str
    players: int
    hours: float = 1.0  # wall-time budget, across runs
    generations: int | None = None  # stop after this many generations (None: the hours decide)
    iterations: int = 200  # search iterations per move, in self-play and in the gate
    games: int = 48  # self-play games per generation
    shard_games: int = 8  # games per shard file (what a kill can lose)
    temperature_moves: int = 8  # decisions of a game drawn in proportion to the root's visits
    noise: float = 0.25  # Dirichlet share in the root's prior (once a network guides)
    noise_alpha: float = 0.3
    window: int = 4  # generations of self-play each fit reads
    hidden: list = field(default_factory=lambda: [128, 128])
    epochs: int = 4
    batch_size: int = 256
    learning_rate: float = 1e-3
    value_weight: float = 1.0
    guide: str = "both"  # what the expert takes from the network: GUIDE_USES
    guide_c: float | None = None  # the expert's PUCT constant (None: the search's default for the game)
    init: str = "none"  # the first expert's network: "none" (the plain search), "shipped", or a checkpoint path
    gate_games: int = 64
    workers: int = 1  # arena processes for the gate
    seed: int = 0
    out: str = "runs/exit"
    options: dict = field(default_factory=dict)
    command: str = ""

    def check(self) -> None:
        spec = get_game(self.game)
        if self.players not in spec.player_counts:
            raise ValueError(f"players={self.players} is not allowed for {self.game}; allowed: "
                             f"{', '.join(map(str, spec.player_counts))}")
        spec.raw_env(num_players=self.players, **self.options)  # the options, named when bad
        for name in ("iterations", "games", "shard_games", "window", "epochs", "batch_size", "gate_games", "workers"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise ValueError(f"{name}={v!r} is not allowed; give a whole number >= 1")
        if self.generations is not None and (isinstance(self.generations, bool) or self.generations < 1):
            raise ValueError(f"generations={self.generations!r} is not allowed; give a whole number >= 1")
        if not self.hours > 0:
            raise ValueError(f"hours={self.hours!r} is not allowed; give a positive number of hours")
        if self.temperature_moves < 0:
            raise ValueError(f"temperature_moves={self.temperature_moves!r} is not allowed; give a number >= 0")
        if not 0 <= self.noise <= 1 or not self.noise_alpha > 0:
            raise ValueError(f"noise={self.noise!r}, noise_alpha={self.noise_alpha!r}: give a share in [0, 1] "
                             "and a concentration > 0")
        if self.init not in ("none", "shipped") and not os.path.isfile(self.init):
            raise ValueError(f"init={self.init!r} is not allowed; give none, shipped or the path of a neural "
                             "checkpoint")
        if self.guide_c is not None:
            check_guide_c(self.guide_c)
        if self.guide not in GUIDE_USES:
            raise ValueError(f"guide={self.guide!r} is not allowed; allowed: {', '.join(GUIDE_USES)}")
        if not self.learning_rate > 0 or self.value_weight < 0 or not self.hidden or min(self.hidden) < 1:
            raise ValueError("learning_rate must be > 0, value_weight >= 0 and hidden one or more sizes >= 1")


# -- files ------------------------------------------------------------------------------------
def _atomic(path: str, write) -> None:
    """``write(file)`` into a temporary file, then rename it over ``path``."""
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "wb") as f:
        write(f)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def _write_json(path: str, obj) -> None:
    _atomic(path, lambda f: f.write(json.dumps(obj, indent=1, sort_keys=True).encode()))


def _read_json(path: str, default=None):
    if not os.path.exists(path):
        return default
    with open(path) as f:
        return json.load(f)


def _gen_dir(cfg: ExitConfig, g: int) -> str:
    return os.path.join(cfg.out, f"gen_{g:03d}")


class _Clock:
    """Wall time spent on the run, kept in ``clock.json`` across resumes."""

    def __init__(self, out: str, hours: float):
        self.path = os.path.join(out, "clock.json")
        self.before = float(_read_json(self.path, {"seconds": 0.0})["seconds"])
        self.start = time.perf_counter()
        self.limit = hours * 3600.0

    @property
    def seconds(self) -> float:
        return self.before + time.perf_counter() - self.start

    def save(self) -> None:
        _write_json(self.path, {"seconds": self.seconds})

    def out_of_time(self) -> bool:
        return self.seconds >= self.limit


# -- the experts ------------------------------------------------------------------------------
def initial_teacher(cfg: ExitConfig) -> dict:
    """The expert before any network won a gate: the plain search, or the ``--init`` network's."""
    if cfg.init == "none":
        return dict(NO_NETWORK)
    from sly_scout_env.netfile import load, shipped_for

    net = shipped_for(cfg.game, cfg.players, cfg.options) if cfg.init == "shipped" else load(cfg.init)
    return {"network": "init", "path": os.path.abspath(net.source)}


def expert_kwargs(cfg: ExitConfig, net: str | None, selfplay: bool) -> dict:
    """The ``ismcts`` parameters of the expert guided by ``net`` (None: the plain search).

    A network without a value network (an ``--init`` one) guides by its prior only."""
    kw = {"iterations": cfg.iterations}
    if net is not None:
        from sly_scout_env.netfile import load

        prior, value = GUIDE_USES[cfg.guide]
        if not load(net).has_value:
            prior, value = True, False
        kw.update(guide="neural", guide_path=net, guide_prior=prior, guide_value=value)
        if cfg.guide_c is not None:
            kw["guide_c"] = cfg.guide_c
        if selfplay and cfg.noise > 0:
            kw.update(noise=cfg.noise, noise_alpha=cfg.noise_alpha)
    return kw


def expert_spec(cfg: ExitConfig, net: str | None) -> str:
    return format_spec("ismcts", expert_kwargs(cfg, net, selfplay=False))


# -- self-play --------------------------------------------------------------------------------
def play_shard(cfg: ExitConfig, net: str | None, g: int, shard: int, games: int) -> dict:
    """Self-play ``games`` games of generation ``g``'s shard ``shard`` with the expert of ``net``."""
    from sly_scout_env.ismcts import VALUE_CODES, reward

    spec = get_game(cfg.game)
    p = cfg.players
    env = spec.raw_env(num_players=p, **cfg.options)
    bots = [make("ismcts", game=cfg.game, **expert_kwargs(cfg, net, selfplay=True)) for _ in range(p)]
    rng = np.random.default_rng(derive_seed(cfg.seed, g, shard, 1))
    obs_rows, masks, visit_rows, seats, values, game_ids, horizons = [], [], [], [], [], [], []
    ret_out = np.zeros(p, dtype=np.float64)
    for i in range(games):
        env.reset(seed=derive_seed(cfg.seed, g, shard, 2, i))
        for seat, bot in enumerate(bots):
            bot.reset(derive_seed(cfg.seed, g, shard, 3, i, seat), game=cfg.game, num_players=p, seat=seat,
                      options=dict(cfg.options))
        adapter = bots[0].search.adapter
        mode = VALUE_CODES[bots[0].params["value"]]
        scale = float(bots[0].params["score_scale"])
        pending = []  # (decision index, seat) waiting for the horizon's outcome
        key = adapter.horizon_of(env.state_row())
        decisions = 0
        for _ in range(STEP_CAP):
            agent = env.agent_selection
            if env.terminations[agent]:
                break
            seat = env.agent_name_mapping[agent]
            ob = env.observe(agent)
            mask = np.asarray(ob["action_mask"])
            legal = np.flatnonzero(mask)
            if legal.size == 1:
                action = int(legal[0])
            else:
                info = {"seat": seat, "game": cfg.game, "num_players": p,
                        "view": player_view(env.state_dict(), seat)}
                action = int(bots[seat].act(ob["observation"], mask, info))
                acts, visits = bots[seat].search.root_visits()
                dense = np.zeros(mask.shape[0], dtype=np.float32)
                dense[acts] = visits
                if decisions < cfg.temperature_moves and visits.sum() > 0:
                    action = int(rng.choice(acts, p=visits / visits.sum()))
                pending.append((len(obs_rows), seat))
                obs_rows.append(np.asarray(ob["observation"], dtype=np.float32))
                masks.append(mask.astype(np.uint8))
                visit_rows.append(dense)
                seats.append(seat)
                values.append(np.nan)
                game_ids.append(i)
                horizons.append(key)
                decisions += 1
            env.step(action)
            row = env.state_row()
            over = env.terminations[env.agent_selection]
            k = adapter.horizon_of(row)
            if over or k != key:
                reward(np.asarray(adapter.returns(row), dtype=np.float64), p, mode, scale, ret_out)
                for idx, s in pending:
                    values[idx] = ret_out[s]
                pending = []
                key = k
        else:
            raise RuntimeError(f"a self-play game of {cfg.game} did not end within {STEP_CAP} moves")
    d = env.observation_space(env.possible_agents[0])["observation"].shape[0]
    return {
        "obs": np.array(obs_rows, dtype=np.float32).reshape(-1, d),
        "mask": np.array(masks, dtype=np.uint8).reshape(len(masks), -1),
        "visits": np.array(visit_rows, dtype=np.float32).reshape(len(visit_rows), -1),
        "value": np.array(values, dtype=np.float32),
        "seat": np.array(seats, dtype=np.int8),
        "game": np.array(game_ids, dtype=np.int32),  # the game of the shard each decision is from
        "horizon": np.array(horizons, dtype=np.int32),  # the stretch of play it was valued at (Scout: the round)
        "games": np.array(games),
    }


def _selfplay(cfg: ExitConfig, g: int, clock: _Clock, log) -> dict | None:
    """Generation ``g``'s shards (played where missing); None when the budget ran out first."""
    gdir = _gen_dir(cfg, g)
    os.makedirs(gdir, exist_ok=True)
    teacher = _read_json(os.path.join(gdir, "teacher.json"))
    if teacher is None:
        teacher = _read_json(os.path.join(cfg.out, "best.json")) or initial_teacher(cfg)
        _write_json(os.path.join(gdir, "teacher.json"), teacher)
    shards = -(-cfg.games // cfg.shard_games)
    seconds = 0.0
    for s in range(shards):
        path = os.path.join(gdir, f"shard_{s:03d}.npz")
        if os.path.exists(path):
            continue
        if clock.out_of_time():
            return None
        t = time.perf_counter()
        games = min(cfg.shard_games, cfg.games - s * cfg.shard_games)
        data = play_shard(cfg, teacher["path"], g, s, games)
        dt = time.perf_counter() - t
        data["seconds"] = np.array(dt)
        _atomic(path, lambda f, data=data: np.savez_compressed(f, **data))
        clock.save()
        seconds += dt
        log(f"generation {g}: shard {s + 1}/{shards}, {len(data['value'])} decisions in {dt:.0f} s "
            f"(teacher: {'plain search' if teacher['path'] is None else teacher['path']})")
    return teacher


def load_shards(paths) -> dict:
    parts = [dict(np.load(p, allow_pickle=False)) for p in paths]
    out = {k: np.concatenate([q[k] for q in parts]) for k in ("obs", "mask", "visits", "value", "seat")}
    out["games"] = int(sum(int(q["games"]) for q in parts))
    out["seconds"] = float(sum(float(q["seconds"]) for q in parts))
    return out


def _shard_paths(cfg: ExitConfig, g: int) -> list:
    gdir = _gen_dir(cfg, g)
    return sorted(os.path.join(gdir, f) for f in os.listdir(gdir) if f.startswith("shard_") and f.endswith(".npz"))


# -- fit --------------------------------------------------------------------------------------
def _mlp(torch, d, hidden, outs):
    sizes = [d] + list(hidden)
    layers = []
    for i in range(len(hidden)):
        layers += [torch.nn.Linear(sizes[i], sizes[i + 1]), torch.nn.ReLU()]
    return torch.nn.Sequential(*layers, torch.nn.Linear(sizes[-1], outs))


def _load_into(torch, module, layers) -> None:
    with torch.no_grad():
        for m, (w, b) in zip([m for m in module if isinstance(m, torch.nn.Linear)], layers):
            m.weight.copy_(torch.from_numpy(w))
            m.bias.copy_(torch.from_numpy(b))


def _arrays(torch, module) -> list:
    return [(m.weight.detach().numpy().copy(), m.bias.detach().numpy().copy())
            for m in module if isinstance(m, torch.nn.Linear)]


def fit(cfg: ExitConfig, data: dict, init: str | None, out_path: str, g: int, log) -> dict:
    """Fit the policy and value networks on ``data``; write the checkpoint to ``out_path``.

    The policy is an action scorer (one logit per legal move from its feature row) when the
    game has a ``features`` module, else an MLP over the observation with a logit per action
    id; the value is an MLP over the observation. Both start from ``init``'s weights where
    that checkpoint has the same kind and layer sizes.
    """
    import torch

    from sly_scout_env.agents.training.distill_fit import _batch_rows, _segment_log_softmax, feature_rows
    from sly_scout_env.netfile import NeuralPolicy, load

    torch.manual_seed(derive_seed(cfg.seed, g, 4) % 2**31)
    torch.set_num_threads(1)
    features = get_game(cfg.game).optional_module("features")
    mask = data["mask"].astype(bool)
    n, d = data["obs"].shape
    a = mask.shape[1]
    # the legal moves of every decision, contiguous (distill_fit's layout): ids, offsets, visit shares
    counts = mask.sum(axis=1)
    off = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    ids = np.nonzero(mask)[1].astype(np.int64)
    visits = data["visits"][mask].astype(np.float64)
    seg_all = np.repeat(np.arange(n), counts)
    tot = np.bincount(seg_all, weights=visits, minlength=n)
    share = torch.from_numpy((visits / np.maximum(tot, 1e-9)[seg_all]).astype(np.float32))
    obs = torch.from_numpy(data["obs"])
    value = torch.from_numpy(data["value"])
    scorer = features is not None
    if scorer:
        rows = torch.from_numpy(feature_rows({"obs": data["obs"], "offsets": off, "ids": ids}, cfg.game, cfg.players))
        policy = _mlp(torch, features.FEATURE_SIZE, cfg.hidden, 1)
    else:
        policy = _mlp(torch, d, cfg.hidden, a)
    vnet = _mlp(torch, d, cfg.hidden, 1)
    warm = []
    if init is not None:
        p = load(init)
        if p.scores_actions == scorer and p.meta.get("hidden") == list(cfg.hidden):
            _load_into(torch, policy, p.layers + [p.head])
            warm.append("policy")
        if p.has_value and p.meta.get("hidden") == list(cfg.hidden):
            _load_into(torch, vnet, p.value_net[0] + [p.value_net[1]])
            warm.append("value")
    ids_t = torch.from_numpy(ids)
    opt = torch.optim.Adam(list(policy.parameters()) + list(vnet.parameters()), lr=cfg.learning_rate)
    rng = np.random.default_rng(derive_seed(cfg.seed, g, 5))
    t = time.perf_counter()
    ploss = vloss = float("nan")
    for _ in range(cfg.epochs):
        order = rng.permutation(n)
        sums = [0.0, 0.0]
        for i in range(0, n, cfg.batch_size):
            dec = np.sort(order[i : i + cfg.batch_size])
            r, seg = _batch_rows(off, dec)
            r_t, seg_t = torch.from_numpy(r), torch.from_numpy(seg)
            dec_t = torch.from_numpy(dec)
            if scorer:
                z = policy(rows[r_t])[:, 0]
            else:
                z = policy(obs[dec_t])[seg_t, ids_t[r_t]]
            lp = _segment_log_softmax(torch, z, seg_t, len(dec))
            pl = -(share[r_t] * lp).sum() / len(dec)
            vl = torch.nn.functional.binary_cross_entropy_with_logits(vnet(obs[dec_t])[:, 0], value[dec_t])
            loss = pl + cfg.value_weight * vl
            opt.zero_grad()
            loss.backward()
            opt.step()
            sums[0] += pl.item() * len(dec)
            sums[1] += vl.item() * len(dec)
        ploss, vloss = sums[0] / n, sums[1] / n
    seconds = time.perf_counter() - t
    pl_layers, vl_layers = _arrays(torch, policy), _arrays(torch, vnet)
    meta = {"format_version": 2, "inputs": "action_features" if scorer else "observation", "game": cfg.game,
            "players": cfg.players, "observation_size": int(d), "num_actions": int(a), "activation": "ReLU",
            "hidden": list(cfg.hidden), "options": dict(cfg.options),
            "trained": {"command": cfg.command, "method": "expert iteration (sly-scout exit)", "generation": g,
                        "samples": int(n), "warm_start": warm, "date": time.strftime("%Y-%m-%d")}}
    if scorer:
        meta["features"] = list(features.FEATURE_NAMES)
    # The expert bot's tuning (agents/bots/ismcts.py, ExpertAgent): what this run's expert takes from it.
    prior, value_use = GUIDE_USES[cfg.guide]
    meta["expert"] = {"iterations": cfg.iterations, "guide_prior": prior, "guide_value": value_use}
    if cfg.guide_c is not None:
        meta["expert"]["guide_c"] = cfg.guide_c
    net = NeuralPolicy(pl_layers[:-1], pl_layers[-1], meta, source=out_path,
                       value_net=(vl_layers[:-1], vl_layers[-1]))
    tmp = f"{out_path}.tmp{os.getpid()}.npz"
    net.save(tmp)
    os.replace(tmp, out_path)
    log(f"generation {g}: fitted {n} decisions in {seconds:.0f} s (policy loss {ploss:.3f}, value loss {vloss:.3f}"
        f"{'; from ' + init if warm else ''})")
    return {"samples": int(n), "seconds": seconds, "policy_loss": ploss, "value_loss": vloss}


# -- the loop ---------------------------------------------------------------------------------
def _check_resume(cfg: ExitConfig) -> None:
    path = os.path.join(cfg.out, "config.json")
    mine = {k: v for k, v in asdict(cfg).items() if k not in RESUME_FREE_FIELDS}
    old = _read_json(path)
    if old is None:
        os.makedirs(cfg.out, exist_ok=True)
        _write_json(path, asdict(cfg))
        return
    theirs = {k: v for k, v in old.items() if k not in RESUME_FREE_FIELDS}
    diff = sorted(k for k in set(mine) | set(theirs) if mine.get(k) != theirs.get(k))
    if diff:
        k = diff[0]
        raise ResumeError(f"{cfg.out} holds a run with {k}={theirs.get(k)!r}, not {mine.get(k)!r}: run the same "
                          "command to continue it, or give another --out")


def _records(cfg: ExitConfig) -> list:
    out = []
    g = 0
    while os.path.exists(os.path.join(_gen_dir(cfg, g), "record.json")):
        out.append(_read_json(os.path.join(_gen_dir(cfg, g), "record.json")))
        g += 1
    return out


def write_log(cfg: ExitConfig) -> list:
    """``log.csv`` and ``curve.svg`` from the generations' records; returns the records."""
    records = _records(cfg)

    def write_csv(f):
        import io

        text = io.StringIO()
        w = csv.DictWriter(text, fieldnames=LOG_COLUMNS)
        w.writeheader()
        for r in records:
            w.writerow({k: r.get(k, "") for k in LOG_COLUMNS})
        f.write(text.getvalue().encode())

    _atomic(os.path.join(cfg.out, "log.csv"), write_csv)
    _atomic(os.path.join(cfg.out, "curve.svg"), lambda f: f.write(curve_svg(records, cfg.players).encode()))
    return records


def curve_svg(records: list, players: int) -> str:
    """The gate's win share per generation (with its interval over deals) against parity."""
    w, h, m = 480, 260, 40
    n = max(1, len(records))

    def x(i):
        return m + (w - 2 * m) * (i + 0.5) / n

    def y(v):
        return h - m - (h - 2 * m) * v

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" '
             'font-size="11">',
             f'<rect width="{w}" height="{h}" fill="white"/>',
             f'<line x1="{m}" y1="{y(0)}" x2="{w - m}" y2="{y(0)}" stroke="black"/>',
             f'<line x1="{m}" y1="{y(0)}" x2="{m}" y2="{y(1)}" stroke="black"/>',
             f'<line x1="{m}" y1="{y(1 / players):.1f}" x2="{w - m}" y2="{y(1 / players):.1f}" stroke="gray" '
             'stroke-dasharray="4"/>',
             f'<text x="{w - m}" y="{y(1 / players) - 4:.1f}" text-anchor="end" fill="gray">parity</text>',
             f'<text x="{w / 2}" y="{h - 8}" text-anchor="middle">generation</text>',
             f'<text x="12" y="{m - 12}">candidate win share against the best expert (gate)</text>']
    for v in (0.0, 0.5, 1.0):
        parts.append(f'<text x="{m - 4}" y="{y(v) + 4:.1f}" text-anchor="end">{v:.1f}</text>')
    pts = []
    for i, r in enumerate(records):
        share = r.get("gate_share")
        if share is None or (isinstance(share, float) and math.isnan(share)):
            continue
        lo, hi = r.get("gate_low") or share, r.get("gate_high") or share
        parts.append(f'<line x1="{x(i):.1f}" y1="{y(lo):.1f}" x2="{x(i):.1f}" y2="{y(hi):.1f}" stroke="steelblue"/>')
        color = "seagreen" if r.get("accepted") else "firebrick"
        parts.append(f'<circle cx="{x(i):.1f}" cy="{y(share):.1f}" r="3" fill="{color}"/>')
        parts.append(f'<text x="{x(i):.1f}" y="{h - m + 14}" text-anchor="middle">{r["generation"]}</text>')
        pts.append(f"{x(i):.1f},{y(share):.1f}")
    if pts:
        parts.append(f'<polyline points="{" ".join(pts)}" fill="none" stroke="steelblue"/>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def _finite(x):
    return None if x is None or (isinstance(x, float) and not math.isfinite(x)) else x


def run(cfg: ExitConfig, log=print) -> dict:
    """Run (or continue) the loop until ``cfg.hours`` or ``cfg.generations``; returns the summary."""
    cfg.check()
    _check_resume(cfg)
    clock = _Clock(cfg.out, cfg.hours)
    best_path = os.path.join(cfg.out, "best.json")
    g = len(_records(cfg))
    stopped = "generations"
    while cfg.generations is None or g < cfg.generations:
        gdir = _gen_dir(cfg, g)
        teacher = _selfplay(cfg, g, clock, log)
        if teacher is None:
            stopped = "hours"
            break
        fit_path = os.path.join(gdir, "fit.json")
        net_path = os.path.join(gdir, "net.npz")
        fitted = _read_json(fit_path)
        if fitted is None:
            if clock.out_of_time():
                stopped = "hours"
                break
            paths = [p for h in range(max(0, g - cfg.window + 1), g + 1) for p in _shard_paths(cfg, h)]
            fitted = fit(cfg, load_shards(paths), teacher["path"], net_path, g, log)
            _write_json(fit_path, fitted)
            clock.save()
        gate_file = os.path.join(gdir, "gate.json")
        gate = _read_json(gate_file)
        if gate is None:
            if clock.out_of_time():
                stopped = "hours"
                break
            t = time.perf_counter()
            cand, best = expert_spec(cfg, net_path), expert_spec(cfg, teacher["path"])
            res = run_arena(cfg.game, cfg.players, [cand] + [best] * (cfg.players - 1), cfg.gate_games,
                            seed=derive_seed(cfg.seed, g, 6), workers=cfg.workers, options=dict(cfg.options),
                            progress=False)
            st = res.stats[0]
            gate = {"games": res.games, "deals": res.deals, "share": st.win_rate, "low": _finite(st.win_rate_ci95[0]),
                    "high": _finite(st.win_rate_ci95[1]), "accepted": bool(st.win_rate > 1.0 / cfg.players),
                    "seconds": time.perf_counter() - t, "candidate": cand, "best": best}
            _write_json(gate_file, gate)
            clock.save()
            interval = "" if gate["low"] is None else f" [{gate['low']:.3f}, {gate['high']:.3f}]"
            log(f"generation {g}: gate {gate['share']:.3f}{interval} over "
                f"{gate['deals']} deals against {'the plain search' if teacher['path'] is None else teacher['path']}"
                f": {'accepted' if gate['accepted'] else 'kept the best'}")
        if gate["accepted"]:
            _write_json(best_path, {"network": f"gen_{g:03d}", "path": net_path})
        now_best = _read_json(best_path) or initial_teacher(cfg)
        shards = load_shards(_shard_paths(cfg, g))
        record = {"generation": g, "teacher": teacher["network"], "games": shards["games"],
                  "decisions": int(len(shards["value"])), "selfplay_seconds": round(shards["seconds"], 1),
                  "fit_samples": fitted["samples"], "fit_seconds": round(fitted["seconds"], 1),
                  "policy_loss": _finite(fitted["policy_loss"]), "value_loss": _finite(fitted["value_loss"]),
                  "gate_games": gate["games"], "gate_deals": gate["deals"], "gate_share": gate["share"],
                  "gate_low": gate["low"], "gate_high": gate["high"], "accepted": gate["accepted"],
                  "best": now_best["network"], "wall_hours": round(clock.seconds / 3600.0, 3)}
        _write_json(os.path.join(gdir, "record.json"), record)
        write_log(cfg)
        g += 1
    clock.save()
    records = write_log(cfg)
    best = _read_json(best_path) or initial_teacher(cfg)
    if stopped == "hours":
        log(f"the --hours budget ({cfg.hours}) is spent after {clock.seconds / 3600:.2f} h; run the same command "
            "with more --hours to continue")
    log(f"{len(records)} generation(s); best network: {best['path'] or 'none yet (the plain search)'}; "
        f"log: {os.path.join(cfg.out, 'log.csv')}")
    return {"generations": len(records), "best": best, "stopped": stopped, "hours": clock.seconds / 3600.0}
