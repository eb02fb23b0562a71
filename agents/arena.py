"""Tournaments between bots: seat rotation, duplicate deals, parallel games, statistics.

    from agents.arena import run_arena
    result = run_arena("scout", 4, ["random", "greedy"], games=2000, seed=0, workers=2)
    print(result.table())

Design
------
Entries. ``agents`` is a list of bot specs (registry names, optionally with
parameters ``name:key=value``). Each spec is one *entry*; a repeated spec gets a
``#2``, ``#3`` suffix so that two copies are told apart.

Seatings. Every game is played under a *seating*: a tuple giving the entry at each
seat. A *block* is a list of seatings in which each entry holds each seat equally
often, so no entry gains from its seat:

* every seating permutation when there are at most ``MAX_PERMUTATIONS`` of them
  and ``games`` is at least that many:
  all ordered choices of ``players`` distinct entries when there are at least as
  many entries as seats; when there are fewer entries than seats, the seats are
  filled cyclically (entry ``(j + k) % A`` at seat ``k``, for each start ``j``, so
  which entries get an extra seat rotates) and every distinct permutation of each
  such multiset is used;
* else the balanced rotation: for each start ``j`` in ``0..A-1`` the seating with
  entry ``(j + k) % A`` at seat ``k`` (each entry holds each seat once per block).

When an entry holds several seats of one game, each seat counts as its own entry
in every statistic (mean score, win rate, head-to-head pairs, rating update).

Duplicate deals. Deal ``d`` is the game seed ``derive_seed(seed, d)``; it is replayed
under every seating of the block. The envs draw every deal from the game seed only
(never from the moves), so the same seed means the same cards whoever sits where:
luck of the deal cancels out between entries. ``games`` is rounded up to whole
blocks (the result says how many games were played).

Parallelism. Deals are spread over ``workers`` processes (``spawn`` start method,
so it works the same on every platform); every game's seeds depend only on
``(seed, deal, seating, seat)``, and results are gathered in (deal, seating) order,
so the result is identical whatever the worker count. Bots travel to the workers as
their registered factories (a lazy ``"module:callable"`` string or a module-level
callable), so bots registered at run time work too; a script that calls
``run_arena(..., workers>1)`` needs the usual ``if __name__ == "__main__":`` guard of
the ``spawn`` start method.

Statistics (per entry): mean game score; win rate where a k-way tie for the top
score gives each 1/k, with a 95% Wilson interval; head-to-head: for each ordered
pair (A, B) of entries seated in the same game, the fraction of those games in which
A scored more than B (ties count 1/2); openskill Plackett-Luce ratings updated game
by game in (deal, seating) order. Games cut by the step guard (``max_steps``) are
*truncated*: reported, and left out of every statistic.
"""

from __future__ import annotations

import csv
import hashlib
import itertools
import json
import math
import multiprocessing
import sys
import uuid
from dataclasses import dataclass, field

import numpy as np

from .registry import GAMES, format_spec, parse_spec, registration
from .stats import new_rating_model, rate_game, wilson_interval, win_shares
from .views import player_view

MAX_PERMUTATIONS = 120  # largest block of full seating permutations (5 entries at 5 seats)
DEFAULT_MAX_STEPS = 100_000  # step guard per game; endless games are possible in principle


def derive_seed(*keys: int) -> int:
    """A non-negative 63-bit seed from integer keys (same keys -> same seed)."""
    word = np.random.SeedSequence([int(k) for k in keys]).generate_state(1, np.uint64)[0]
    return int(word >> np.uint64(1))


def env_module(game: str):
    if game == "scout":
        from sly_scout_env import scout_v0 as mod
    elif game == "sly":
        from sly_scout_env import sly_v0 as mod
    else:
        raise ValueError(f"game={game!r} is not allowed; allowed values: {', '.join(map(repr, GAMES))}")
    return mod


# -- seatings ---------------------------------------------------------------------------
def _multiset_permutations(items: tuple) -> list[tuple]:
    return sorted(set(itertools.permutations(items)))


def seating_block(num_entries: int, players: int, max_permutations: int = MAX_PERMUTATIONS) -> list[tuple]:
    """The seatings of one block (see the module docstring); each entry holds each seat equally often."""
    if num_entries < 1:
        raise ValueError("need at least one bot")
    a = num_entries
    rotation = [tuple((j + k) % a for k in range(players)) for j in range(a)]
    if a >= players:
        count = math.perm(a, players)
        if count <= max_permutations:
            return list(itertools.permutations(range(a), players))
        return rotation
    multisets = sorted({tuple(sorted(r)) for r in rotation})
    perms = [p for m in multisets for p in _multiset_permutations(m)]
    if len(perms) <= max_permutations:
        return perms
    return rotation


# -- one game -----------------------------------------------------------------------------
@dataclass
class GameRecord:
    deal: int
    seating_index: int
    seating: tuple  # entry index at each seat
    scores: list  # game totals per seat
    steps: int
    truncated: bool
    deal_digest: str = ""  # hash of the initial state dict: equal across the seatings of a deal


def play_game(env, bots: list, game: str, game_seed: int, bot_seeds: list, options: dict, max_steps: int):
    """Play one game on a raw env; returns (scores per seat, steps, truncated, digest of the deal)."""
    env.reset(seed=game_seed)
    digest = hashlib.sha1(json.dumps(env.state_dict(), sort_keys=True).encode()).hexdigest()
    n = len(bots)
    for seat, bot in enumerate(bots):
        bot.reset(bot_seeds[seat], game=game, num_players=n, seat=seat, options=dict(options))
    steps = 0
    truncated = False
    while not env.terminations[env.agent_selection]:
        if steps >= max_steps:
            truncated = True
            break
        agent = env.agent_selection
        seat = env.agent_name_mapping[agent]
        bot = bots[seat]
        obs = env.observe(agent)
        info = {"seat": seat, "game": game, "num_players": n}
        if getattr(bot, "needs_view", True):
            info["view"] = player_view(env.state_dict(), seat)
        action = bot.act(obs["observation"], obs["action_mask"], info)
        try:
            env.step(int(action))
        except ValueError as exc:
            raise ValueError(f"bot {bot.name!r} at seat {seat} chose an illegal move: {exc}") from None
        steps += 1
    scores = [int(s) for s in env.state_dict()["scores"]]
    return scores, steps, truncated, digest


# -- worker side ----------------------------------------------------------------------------
_ENV_CACHE: dict = {}
_BOT_CACHE: dict = {}


def _build_bot(factory, kwargs: dict, label: str):
    if isinstance(factory, str):
        from .registry import resolve

        factory = resolve(factory)
    bot = factory(**kwargs)
    try:
        bot.name = label
    except AttributeError:
        pass
    return bot


def _run_deal(task: dict) -> list[GameRecord]:
    """Play one deal under the given seatings (runs in a worker process or in-process)."""
    game, players, options = task["game"], task["players"], task["options"]
    key = (game, players, tuple(sorted(options.items())))
    env = _ENV_CACHE.get(key)
    if env is None:
        env = env_module(game).raw_env(num_players=players, **options)
        _ENV_CACHE[key] = env
    seed, deal = task["seed"], task["deal"]
    game_seed = derive_seed(seed, deal)
    if _BOT_CACHE and next(iter(_BOT_CACHE))[0] != task["run_id"]:
        _BOT_CACHE.clear()  # bots of an earlier run in this process
    records = []
    for k, seating in task["seatings"]:
        bots = []
        for seat, e in enumerate(seating):
            bkey = (task["run_id"], e, seat)
            bot = _BOT_CACHE.get(bkey)
            if bot is None:
                factory, kwargs, label = task["entries"][e]
                bot = _build_bot(factory, kwargs, label)
                _BOT_CACHE[bkey] = bot
            bots.append(bot)
        bot_seeds = [derive_seed(seed, deal, k, seat, 1) for seat in range(players)]
        scores, steps, truncated, digest = play_game(env, bots, game, game_seed, bot_seeds, options, task["max_steps"])
        records.append(GameRecord(deal, k, tuple(seating), scores, steps, truncated, digest))
    return records


# -- results ----------------------------------------------------------------------------------
@dataclass
class AgentStats:
    name: str
    games: int  # entries: one per seat held in a non-truncated game
    mean_score: float
    win_rate: float
    win_rate_ci95: tuple
    rating_mu: float
    rating_sigma: float


@dataclass
class ArenaResult:
    game: str
    players: int
    agents: list  # entry labels
    options: dict
    seed: int
    games_requested: int
    seatings: list  # the block
    records: list = field(repr=False)
    stats: list = field(default_factory=list)
    head_to_head: dict = field(default_factory=dict)  # A -> B -> fraction of shared games A beat B
    head_to_head_games: dict = field(default_factory=dict)  # A -> B -> number of seat pairs compared

    @property
    def games(self) -> int:
        return len(self.records)

    @property
    def truncated(self) -> int:
        return sum(r.truncated for r in self.records)

    @property
    def deals(self) -> int:
        return len({r.deal for r in self.records})

    def to_dict(self) -> dict:
        return {
            "game": self.game,
            "players": self.players,
            "games": self.games,
            "agents": [
                {
                    "name": s.name,
                    "games": s.games,
                    "mean_score": s.mean_score,
                    "win_rate": s.win_rate,
                    "win_rate_ci95": list(s.win_rate_ci95),
                    "rating_mu": s.rating_mu,
                    "rating_sigma": s.rating_sigma,
                }
                for s in self.stats
            ],
            "head_to_head": self.head_to_head,
            "head_to_head_games": self.head_to_head_games,
            "games_requested": self.games_requested,
            "deals": self.deals,
            "seatings_per_deal": len(self.seatings),
            "truncated": self.truncated,
            "seed": self.seed,
            "options": self.options,
        }

    def write_json(self, path) -> None:
        with open(path, "w", encoding="utf-8") as f:
            json.dump(self.to_dict(), f, indent=2)
            f.write("\n")

    def write_csv(self, path) -> None:
        """One row per entry: the per-bot statistics, then ``vs_<name>`` head-to-head columns."""
        names = [s.name for s in self.stats]
        with open(path, "w", newline="", encoding="utf-8") as f:
            w = csv.writer(f)
            w.writerow(
                ["name", "games", "mean_score", "win_rate", "win_rate_lo", "win_rate_hi", "rating_mu", "rating_sigma"]
                + [f"vs_{n}" for n in names]
            )
            for s in self.stats:
                h2h = self.head_to_head.get(s.name, {})
                w.writerow(
                    [s.name, s.games, f"{s.mean_score:.6f}", f"{s.win_rate:.6f}", f"{s.win_rate_ci95[0]:.6f}",
                     f"{s.win_rate_ci95[1]:.6f}", f"{s.rating_mu:.6f}", f"{s.rating_sigma:.6f}"]
                    + ["" if h2h.get(n) is None else f"{h2h[n]:.6f}" for n in names]
                )

    def table(self) -> str:
        """The results as an aligned text table (per-bot statistics, then head-to-head)."""
        opts = ", ".join(f"{k}={v!r}" for k, v in self.options.items())
        head = (
            f"{self.game}: {self.players} players, {self.games} games ({self.deals} deals x "
            f"{len(self.seatings)} seatings), seed {self.seed}" + (f", options: {opts}" if opts else "")
        )
        if self.games != self.games_requested:
            head += f"\n  (games rounded up from {self.games_requested} to whole blocks of seatings)"
        if self.truncated:
            head += f"\n  {self.truncated} game(s) hit the step guard: truncated, left out of the statistics"
        width = max([len("bot")] + [len(s.name) for s in self.stats])
        lines = [head, ""]
        lines.append(
            f"{'bot':<{width}}  {'entries':>7}  {'mean score':>10}  {'win rate':>8}  {'95% CI':>15}  {'mu':>7}  {'sigma':>6}"
        )
        for s in self.stats:
            ci = f"[{s.win_rate_ci95[0]:.3f}, {s.win_rate_ci95[1]:.3f}]"
            lines.append(
                f"{s.name:<{width}}  {s.games:>7}  {s.mean_score:>10.3f}  {s.win_rate:>8.3f}  {ci:>15}  "
                f"{s.rating_mu:>7.2f}  {s.rating_sigma:>6.2f}"
            )
        names = [s.name for s in self.stats]
        if len(names) > 1:
            lines += ["", "head-to-head (row beats column, share of shared games; ties count 1/2):"]
            cw = max(6, *(len(n) for n in names))
            lines.append(" " * width + "  " + "  ".join(f"{n:>{cw}}" for n in names))
            for a in names:
                cells = []
                for b in names:
                    v = self.head_to_head.get(a, {}).get(b)
                    cells.append(f"{'-':>{cw}}" if v is None else f"{v:>{cw}.3f}")
                lines.append(f"{a:<{width}}  " + "  ".join(cells))
        return "\n".join(lines)


def _summarise(result: ArenaResult) -> None:
    labels = result.agents
    scores = {lb: [] for lb in labels}
    wins = {lb: 0.0 for lb in labels}
    h2h_win = {a: {b: 0.0 for b in labels if b != a} for a in labels}
    h2h_n = {a: {b: 0 for b in labels if b != a} for a in labels}
    model = new_rating_model()
    ratings: dict = {lb: model.rating(name=lb) for lb in labels}
    for r in result.records:  # already in (deal, seating) order: deterministic
        if r.truncated:
            continue
        seat_labels = [labels[e] for e in r.seating]
        shares = win_shares(r.scores)
        for seat, lb in enumerate(seat_labels):
            scores[lb].append(r.scores[seat])
            wins[lb] += shares[seat]
        for i, j in itertools.permutations(range(len(seat_labels)), 2):
            a, b = seat_labels[i], seat_labels[j]
            if a == b:
                continue
            h2h_n[a][b] += 1
            h2h_win[a][b] += 1.0 if r.scores[i] > r.scores[j] else (0.5 if r.scores[i] == r.scores[j] else 0.0)
        rate_game(model, ratings, seat_labels, r.scores)
    stats = []
    for lb in labels:
        n = len(scores[lb])
        stats.append(
            AgentStats(
                name=lb,
                games=n,
                mean_score=float(np.mean(scores[lb])) if n else float("nan"),
                win_rate=wins[lb] / n if n else float("nan"),
                win_rate_ci95=wilson_interval(wins[lb], n),
                rating_mu=float(ratings[lb].mu),
                rating_sigma=float(ratings[lb].sigma),
            )
        )
    result.stats = stats
    result.head_to_head = {a: {b: (h2h_win[a][b] / h2h_n[a][b] if h2h_n[a][b] else None) for b in h2h_n[a]} for a in labels}
    result.head_to_head_games = {a: dict(h2h_n[a]) for a in labels}


def _entry_labels(specs: list[str]) -> list[str]:
    labels, seen = [], {}
    for s in specs:
        seen[s] = seen.get(s, 0) + 1
        labels.append(s if seen[s] == 1 else f"{s}#{seen[s]}")
    return labels


def run_arena(
    game: str,
    players: int,
    agents: list[str],
    games: int,
    seed: int = 0,
    workers: int = 2,
    options: dict | None = None,
    progress: bool = True,
    max_steps: int = DEFAULT_MAX_STEPS,
    ray=None,
) -> ArenaResult:
    """Play ``games`` games (rounded up to whole blocks of seatings) and summarise them.

    ``ray`` (True, ``"auto"`` or ``"HOST:PORT"``): deals run as Ray tasks instead of
    ``workers`` processes, with the same result (docs/ray.md)."""
    env_mod = env_module(game)
    options = dict(options or {})
    if isinstance(agents, str):
        agents = [a for a in agents.split(",") if a.strip()]
    if not agents:
        raise ValueError("agents is empty; give at least one registered bot name, e.g. ['random']")
    for name, value in (("games", games), ("workers", workers), ("max_steps", max_steps)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise ValueError(f"{name}={value!r} is not allowed; give an int >= 1")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed={seed!r} is not allowed; give an int >= 0")
    env_mod.raw_env(num_players=players, **options)  # validates players and options up front
    entries = []
    specs = []
    for spec in agents:
        name, kwargs = parse_spec(spec)
        reg = registration(name)
        if game not in reg.games:
            raise ValueError(f"bot {name!r} does not play {game}; it plays {', '.join(reg.games)}")
        factory = reg.factory[game] if isinstance(reg.factory, dict) else reg.factory
        specs.append(format_spec(name, kwargs))
        entries.append([factory, kwargs])
    labels = _entry_labels(specs)
    entries = [(f, kw, lb) for (f, kw), lb in zip(entries, labels)]
    # Full permutations only when the games fill at least one block of them; else the
    # (much smaller) balanced rotation, so a short run is not blown up to 120 games.
    block = seating_block(len(entries), players, max_permutations=min(MAX_PERMUTATIONS, int(games)))
    deals = -(-games // len(block))
    run_id = uuid.uuid4().hex  # keys the per-process bot cache (never affects results)
    base = {"game": game, "players": players, "options": options, "entries": entries, "seed": int(seed),
            "max_steps": int(max_steps), "run_id": run_id}
    tasks = [dict(base, deal=d, seatings=list(enumerate(block))) for d in range(deals)]
    total = deals * len(block)
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=total, unit="game", file=sys.stderr, dynamic_ncols=True, leave=False, desc=f"arena {game}")
    records: list[GameRecord] = []
    try:
        if ray not in (None, False):
            from sly_scout_env.ray_tasks import map_tasks

            for recs in map_tasks(_run_deal, tasks, address=ray, per_task=max(1, deals // 64),
                                  on_result=lambda i, recs: bar is not None and bar.update(len(recs))):
                records += recs
        elif workers == 1 or deals == 1:
            for t in tasks:
                recs = _run_deal(t)
                records += recs
                if bar is not None:
                    bar.update(len(recs))
        else:
            try:
                import pickle

                pickle.dumps(entries)
            except Exception as exc:
                raise ValueError(
                    "a bot factory cannot be sent to worker processes; register it with a "
                    f"'module:callable' string or a module-level callable, or use workers=1 ({exc})"
                ) from None
            ctx = multiprocessing.get_context("spawn")
            chunk = max(1, deals // (workers * 8))
            with ctx.Pool(min(workers, deals)) as pool:
                for recs in pool.imap_unordered(_run_deal, tasks, chunksize=chunk):
                    records += recs
                    if bar is not None:
                        bar.update(len(recs))
    finally:
        if bar is not None:
            bar.close()
    records.sort(key=lambda r: (r.deal, r.seating_index))
    result = ArenaResult(game, players, labels, options, int(seed), int(games), block, records)
    _summarise(result)
    return result
