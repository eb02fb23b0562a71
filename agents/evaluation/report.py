"""Arena results: statistics pooled per entry, intervals over deals, tables, JSON and CSV.

:func:`sly_scout_env.agents.evaluation.arena.run_arena` plays the games and returns an :class:`ArenaResult`;
:func:`summarise` fills in its statistics:

* per entry, pooled over every seat it held (a bot listed four times holds four
  seats of each game): the **mean score per seat** and the **win share per seat**
  (a k-way tie for the top score gives each of the k seats 1/k), so that parity
  is 1/players for every entry, however many seats it holds;
* the **head-to-head** share of entry A against entry B: over every pair of seats
  (one A, one B) of the same game, the fraction in which A scored more than B
  (ties 1/2); parity 1/2;
* each with a **95% interval over deals** (:func:`sly_scout_env.agents.evaluation.stats.cluster_interval`):
  the games of one deal share its cards and are not independent, so the deal is
  the unit. Per deal, the entry's seats in all the seatings of that deal give one
  mean; the interval is Student's t over those per-deal means (D - 1 degrees of
  freedom; the cluster-robust ratio form when truncated games make deals unequal).
  docs/arena.md says why, and how the per-game interval it replaces fared;
* the per-game Wilson interval of the win share (every seat-game counted as an
  independent trial) is kept in the JSON and CSV only, under a name that says so
  (``win_rate_ci95_per_game_wilson``), for comparison: it is too narrow whenever a
  deal is replayed;
* openskill Plackett-Luce ratings, updated game by game in (deal, seating) order,
  each seat of a game its own team.

Truncated games (step guard) are left out of every statistic.
"""

from __future__ import annotations

import csv
import itertools
import json
import math
from dataclasses import dataclass, field

from sly_scout_env.agents.evaluation.stats import (
    cluster_interval,
    new_rating_model,
    rate_game,
    wilson_interval,
    win_shares,
)

INTERVAL = "95% t-interval over deals (per-deal means, deals independent)"
NAN = float("nan")


@dataclass
class AgentStats:
    name: str  # the entry's label
    spec: str  # its bot spec
    seats: int  # seats it held in non-truncated games, summed over games
    deals: int  # deals in which it held a seat
    mean_score: float  # per seat
    mean_score_ci95: tuple  # over deals
    win_rate: float  # win share per seat, ties split; parity 1/players
    win_rate_ci95: tuple  # over deals
    win_rate_ci95_per_game_wilson: tuple  # every seat-game taken as independent: too narrow, for comparison only
    rating_mu: float
    rating_sigma: float

    @property
    def games(self) -> int:
        """Old name of :attr:`seats` (one per seat held in a non-truncated game)."""
        return self.seats


def _json_num(x):
    return None if isinstance(x, float) and math.isnan(x) else x


def _json_pair(pair) -> list:
    return [_json_num(float(v)) for v in pair]


def _fmt_ci(pair, digits: int = 3) -> str:
    """``[lo, hi]``; ``n/a`` without an interval (fewer than 2 deals); a ``*`` marks zero width."""
    lo, hi = pair
    if math.isnan(lo) or math.isnan(hi):
        return "n/a"
    return f"[{lo:.{digits}f}, {hi:.{digits}f}]" + ("*" if lo == hi else "")


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def _csv_num(x) -> str:
    return "" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.6f}"


@dataclass
class ArenaResult:
    game: str
    players: int
    agents: list  # entry labels
    options: dict
    seed: int
    games_requested: int
    seatings: list  # the block: entry index at each seat, one tuple per seating of a deal
    records: list = field(repr=False)
    specs: list = field(default_factory=list)  # the entries' bot specs (same order as agents)
    stats: list = field(default_factory=list)
    head_to_head: dict = field(default_factory=dict)  # A -> B -> share of A's seat pairs with B that A won
    head_to_head_ci95: dict = field(default_factory=dict)  # A -> B -> interval over deals
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

    def seats_per_game(self) -> list[float]:
        """Mean number of seats each entry holds in one game of the block."""
        n = len(self.seatings)
        return [sum(s.count(e) for s in self.seatings) / n for e in range(len(self.agents))]

    def to_dict(self) -> dict:
        return {
            "game": self.game,
            "players": self.players,
            "games": self.games,
            "deals": self.deals,
            "seatings_per_deal": len(self.seatings),
            "interval": INTERVAL,
            "parity_win_rate": 1.0 / self.players,
            "agents": [
                {
                    "name": s.name,
                    "spec": s.spec,
                    "seats_per_game": spg,
                    "seats": s.seats,
                    "deals": s.deals,
                    "mean_score": _json_num(s.mean_score),
                    "mean_score_ci95": _json_pair(s.mean_score_ci95),
                    "win_rate": _json_num(s.win_rate),
                    "win_rate_ci95": _json_pair(s.win_rate_ci95),
                    "win_rate_ci95_per_game_wilson": _json_pair(s.win_rate_ci95_per_game_wilson),
                    "rating_mu": s.rating_mu,
                    "rating_sigma": s.rating_sigma,
                }
                for s, spg in zip(self.stats, self.seats_per_game())
            ],
            "head_to_head": {a: {b: _json_num(v) for b, v in row.items()} for a, row in self.head_to_head.items()},
            "head_to_head_ci95": {
                a: {b: _json_pair(v) for b, v in row.items()} for a, row in self.head_to_head_ci95.items()
            },
            "head_to_head_games": self.head_to_head_games,
            "games_requested": self.games_requested,
            "seatings": [list(s) for s in self.seatings],
            "truncated": self.truncated,
            "seed": self.seed,
            "options": self.options,
        }

    def write_json(self, path) -> None:
        with open(path, "w", encoding="utf-8") as f:
            json.dump(self.to_dict(), f, indent=2)
            f.write("\n")

    def write_csv(self, path) -> None:
        """One row per entry: its statistics with their intervals over deals, the per-game
        Wilson interval (labelled as such), then ``vs_<name>`` head-to-head columns with
        ``_lo``/``_hi`` intervals over deals."""
        names = [s.name for s in self.stats]
        with open(path, "w", newline="", encoding="utf-8") as f:
            w = csv.writer(f)
            w.writerow(
                ["name", "spec", "seats", "deals", "mean_score", "mean_score_lo", "mean_score_hi", "win_rate",
                 "win_rate_lo", "win_rate_hi", "win_rate_per_game_wilson_lo", "win_rate_per_game_wilson_hi",
                 "rating_mu", "rating_sigma"]
                + [f"vs_{n}{suffix}" for n in names for suffix in ("", "_lo", "_hi")]
            )
            for s in self.stats:
                h2h = self.head_to_head.get(s.name, {})
                ci = self.head_to_head_ci95.get(s.name, {})
                cells = []
                for n in names:
                    lo, hi = ci.get(n, (None, None))
                    cells += [_csv_num(h2h.get(n)), _csv_num(lo), _csv_num(hi)]
                w.writerow(
                    [s.name, s.spec, s.seats, s.deals, _csv_num(s.mean_score), _csv_num(s.mean_score_ci95[0]),
                     _csv_num(s.mean_score_ci95[1]), _csv_num(s.win_rate), _csv_num(s.win_rate_ci95[0]),
                     _csv_num(s.win_rate_ci95[1]), _csv_num(s.win_rate_ci95_per_game_wilson[0]),
                     _csv_num(s.win_rate_ci95_per_game_wilson[1]), f"{s.rating_mu:.6f}", f"{s.rating_sigma:.6f}"]
                    + cells
                )

    def table(self) -> str:
        """The results as an aligned text table (per-entry statistics, then head-to-head)."""
        opts = ", ".join(f"{k}={v!r}" for k, v in self.options.items())
        head = (
            f"{self.game}: {self.players} players, {self.games} games = {_plural(self.deals, 'deal')} x "
            f"{len(self.seatings)} seatings, seed {self.seed}" + (f", options: {opts}" if opts else "")
        )
        if self.games != self.games_requested:
            head += (f"\n  (games rounded up from {self.games_requested} to whole deals of "
                     f"{len(self.seatings)} seatings)")
        spg = self.seats_per_game()
        if any(abs(x - 1.0) > 1e-9 for x in spg):
            head += "\n  seats per game: " + ", ".join(f"{n} {x:g}" for n, x in zip(self.agents, spg))
        if self.truncated:
            head += f"\n  {self.truncated} game(s) hit the step guard: truncated, left out of the statistics"
        head += (
            f"\n  per seat, pooled over all seats an entry holds; win share: ties split, parity "
            f"{1 / self.players:.3f}; 95% intervals over the {_plural(self.deals, 'deal')} (the deal is the unit)"
        )
        width = max([len("bot")] + [len(s.name) for s in self.stats])
        cis = [_fmt_ci(s.win_rate_ci95) for s in self.stats]
        scis = [_fmt_ci(s.mean_score_ci95, 2) for s in self.stats]
        cw = max([len("95% CI")] + [len(c) for c in cis])
        sw = max([len("score 95% CI")] + [len(c) for c in scis])
        lines = [head, ""]
        lines.append(
            f"{'bot':<{width}}  {'seats':>7}  {'mean score':>10}  {'win share':>9}  {'95% CI':>{cw}}  "
            f"{'score 95% CI':>{sw}}  {'mu':>7}  {'sigma':>6}"
        )
        for s, ci, sci in zip(self.stats, cis, scis):
            lines.append(
                f"{s.name:<{width}}  {s.seats:>7}  {s.mean_score:>10.3f}  {s.win_rate:>9.3f}  {ci:>{cw}}  "
                f"{sci:>{sw}}  {s.rating_mu:>7.2f}  {s.rating_sigma:>6.2f}"
            )
        names = [s.name for s in self.stats]
        if len(names) > 1:
            lines += ["", "head-to-head (row beats column: share of their seat pairs in shared games, ties 1/2; "
                          "parity 0.5; 95% interval over deals):"]
            cells = {
                (a, b): "-" if self.head_to_head.get(a, {}).get(b) is None
                else f"{self.head_to_head[a][b]:.3f} {_fmt_ci(self.head_to_head_ci95[a][b])}"
                for a in names for b in names
            }
            colw = max([len(n) for n in names] + [len(c) for c in cells.values()])
            lines.append(" " * width + "  " + "  ".join(f"{n:>{colw}}" for n in names))
            for a in names:
                lines.append(f"{a:<{width}}  " + "  ".join(f"{cells[a, b]:>{colw}}" for b in names))
        shown = [s.win_rate_ci95 for s in self.stats] + [s.mean_score_ci95 for s in self.stats]
        shown += [ci for a in names for b, ci in self.head_to_head_ci95.get(a, {}).items()
                  if self.head_to_head.get(a, {}).get(b) is not None]
        if any(lo == hi for lo, hi in shown):
            lines += ["", "* every deal gave the same value: no spread between deals, so the interval has zero width"]
        if any(math.isnan(lo) or math.isnan(hi) for lo, hi in shown):
            lines += ["", "n/a: an interval over deals needs at least 2 deals"]
        return "\n".join(lines)


def summarise(result: ArenaResult) -> None:
    """Fill in ``result.stats`` and the head-to-head tables from ``result.records``."""
    labels = result.agents
    specs = result.specs or list(labels)
    deal_ids = sorted({r.deal for r in result.records})
    col = {d: i for i, d in enumerate(deal_ids)}
    nd = len(deal_ids)
    a = len(labels)
    seats = [[0] * nd for _ in range(a)]
    score_sum = [[0.0] * nd for _ in range(a)]
    win_sum = [[0.0] * nd for _ in range(a)]
    pair_n = {(i, j): [0] * nd for i in range(a) for j in range(a) if i != j}
    pair_win = {(i, j): [0.0] * nd for i in range(a) for j in range(a) if i != j}
    model = new_rating_model()
    ratings: dict = {lb: model.rating(name=lb) for lb in labels}
    for r in result.records:  # already in (deal, seating) order: deterministic
        if r.truncated:
            continue
        c = col[r.deal]
        shares = win_shares(r.scores)
        for seat, e in enumerate(r.seating):
            seats[e][c] += 1
            score_sum[e][c] += r.scores[seat]
            win_sum[e][c] += shares[seat]
        for i, j in itertools.permutations(range(len(r.seating)), 2):
            ei, ej = r.seating[i], r.seating[j]
            if ei == ej:
                continue
            pair_n[ei, ej][c] += 1
            pair_win[ei, ej][c] += 1.0 if r.scores[i] > r.scores[j] else (0.5 if r.scores[i] == r.scores[j] else 0.0)
        rate_game(model, ratings, [labels[e] for e in r.seating], r.scores)
    stats = []
    for e, lb in enumerate(labels):
        n = sum(seats[e])
        mean, mean_ci = cluster_interval(score_sum[e], seats[e])
        share, share_ci = cluster_interval(win_sum[e], seats[e], bounds=(0.0, 1.0))
        stats.append(
            AgentStats(
                name=lb,
                spec=specs[e],
                seats=n,
                deals=sum(1 for x in seats[e] if x),
                mean_score=mean,
                mean_score_ci95=mean_ci,
                win_rate=share,
                win_rate_ci95=share_ci,
                win_rate_ci95_per_game_wilson=wilson_interval(sum(win_sum[e]), n) if n else (NAN, NAN),
                rating_mu=float(ratings[lb].mu),
                rating_sigma=float(ratings[lb].sigma),
            )
        )
    result.stats = stats
    h2h, h2h_ci, h2h_n = {}, {}, {}
    for i, lb in enumerate(labels):
        h2h[lb], h2h_ci[lb], h2h_n[lb] = {}, {}, {}
        for j, other in enumerate(labels):
            if i == j:
                continue
            n = sum(pair_n[i, j])
            share, ci = cluster_interval(pair_win[i, j], pair_n[i, j], bounds=(0.0, 1.0))
            h2h[lb][other] = share if n else None
            h2h_ci[lb][other] = ci
            h2h_n[lb][other] = n
    result.head_to_head, result.head_to_head_ci95, result.head_to_head_games = h2h, h2h_ci, h2h_n
