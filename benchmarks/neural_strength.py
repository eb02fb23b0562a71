"""Strength of a neural checkpoint: one learned seat against another bot in every other seat.

    python benchmarks/neural_strength.py scout --players 4 --opponent greedy --deals 250
    python benchmarks/neural_strength.py sly --players 2 --opponent ismcts --deals 150 \
        --bot neural:path=runs/sly2/final.npz --json runs/arena/sly2_ismcts.json

Match: deal ``d`` is the arena's game seed ``derive_seed(seed, d)`` (``sly_scout_env.agents.evaluation.arena``),
replayed ``players`` times with the learned bot in each seat in turn and the opponent bot
(a fresh instance, its own seed) in every other seat: duplicate deals and every seat, so
neither the cards nor the seat favour anyone. Games = deals x players.

Statistics: the learned seat's win share per game (a k-way tie for the top score counts
1/k); its mean with (a) the arena's 95% Wilson interval over games, and (b) a 95%
interval over *deals* (normal approximation on the per-deal means, clipped to [0, 1]; they are
independent; the games of one deal are not). Parity is 1/players. A claim uses (b).
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

from tqdm import tqdm

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sly_scout_env.agents.bots.registry import make_from_spec  # noqa: E402
from sly_scout_env.agents.evaluation.arena import derive_seed, play_game  # noqa: E402
from sly_scout_env.agents.evaluation.stats import Z95, wilson_interval, win_shares  # noqa: E402
from sly_scout_env.games import get_game  # noqa: E402


def play_deals(task) -> list[list[float]]:
    """Per deal, the learned seat's win share in each seating (runs in a worker)."""
    game, players, bot_spec, opp_spec, seed, deals, options = task
    env = get_game(game).raw_env(num_players=players, **options)
    bot = make_from_spec(bot_spec, game=game)
    opps = [make_from_spec(opp_spec, game=game) for _ in range(players - 1)]
    out = []
    for d in deals:
        game_seed = derive_seed(seed, d)
        shares, scores_mine = [], []
        for seat in range(players):
            others = iter(opps)
            bots = [bot if s == seat else next(others) for s in range(players)]
            bot_seeds = [derive_seed(seed, d, seat, s, 1) for s in range(players)]
            scores, _, truncated, _ = play_game(env, bots, game, game_seed, bot_seeds, options, 100_000)
            if truncated:
                raise RuntimeError(f"deal {d} seat {seat}: truncated game")
            shares.append(win_shares(scores)[seat])
            scores_mine.append((scores[seat], (sum(scores) - scores[seat]) / (players - 1)))
        out.append((shares, scores_mine))
    return out


def measure(game, players, bot, opponent, deals, seed=1, workers=2, options=None, progress=True) -> dict:
    options = dict(options or {})
    # Many small chunks: the bar moves often (a deal against ismcts takes seconds). Every deal
    # and seat is seeded on its own, so the chunking changes no game.
    chunks = [list(range(k, deals, workers * 16)) for k in range(min(deals, workers * 16))]
    t0 = time.perf_counter()
    tasks = [(game, players, bot, opponent, seed, c, options) for c in chunks]
    results = [None] * len(tasks)
    bar = tqdm(total=deals, unit="deal", file=sys.stderr, dynamic_ncols=True, leave=False,
               desc=f"{bot} vs {opponent}") if progress else None
    try:
        if workers > 1:
            with ProcessPoolExecutor(workers) as ex:
                futures = {ex.submit(play_deals, t): i for i, t in enumerate(tasks)}
                for f in as_completed(futures):
                    results[futures[f]] = f.result()
                    if bar is not None:
                        bar.update(len(chunks[futures[f]]))
        else:
            for i, t in enumerate(tasks):
                results[i] = play_deals(t)
                if bar is not None:
                    bar.update(len(chunks[i]))
    finally:
        if bar is not None:
            bar.close()
    per_deal = [r for chunk in results for r in chunk]
    shares = [s for r in per_deal for s in r[0]]
    deal_means = [statistics.fmean(r[0]) for r in per_deal]
    n = len(shares)
    mean = statistics.fmean(shares)
    sd = statistics.stdev(deal_means) if len(deal_means) > 1 else float("nan")
    half = Z95 * sd / math.sqrt(len(deal_means))
    lo, hi = wilson_interval(sum(shares), n)
    my = statistics.fmean(s for r in per_deal for s, _ in r[1])
    theirs = statistics.fmean(o for r in per_deal for _, o in r[1])
    return {"game": game, "players": players, "bot": bot, "opponent": opponent, "options": options,
            "seed": seed, "deals": len(per_deal), "games": n, "win_share": mean, "parity": 1 / players,
            "wilson95_games": [lo, hi], "ci95_deals": [max(0.0, mean - half), min(1.0, mean + half)],
            "mean_score": my, "opponent_mean_score": theirs, "seconds": round(time.perf_counter() - t0, 1)}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("game")
    p.add_argument("--players", type=int, required=True)
    p.add_argument("--opponent", required=True, help="bot spec in every other seat (greedy, ismcts, random ...)")
    p.add_argument("--bot", default="neural", help="the learned bot's spec (default: neural, the shipped checkpoint)")
    p.add_argument("--deals", type=int, required=True)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE")
    p.add_argument("--json", default=None, help="append the result (one JSON object per line) to this file")
    args = p.parse_args(argv)
    from sly_scout_env.agents.bots.registry import parse_value  # the CLI's value reading (int, float, bool, text)

    options = {k: parse_value(v) for k, _, v in (o.partition("=") for o in args.option)}
    r = measure(args.game, args.players, args.bot, args.opponent, args.deals, args.seed, args.workers, options)
    print(f"{r['bot']} vs {r['opponent']} ({r['game']}, {r['players']} players, options {r['options']}): "
          f"win share {r['win_share']:.3f}, 95% over {r['deals']} deals [{r['ci95_deals'][0]:.3f}, "
          f"{r['ci95_deals'][1]:.3f}], Wilson over {r['games']} games [{r['wilson95_games'][0]:.3f}, "
          f"{r['wilson95_games'][1]:.3f}]; parity {r['parity']:.3f}; mean score {r['mean_score']:.2f} vs "
          f"{r['opponent_mean_score']:.2f}; {r['seconds']} s")
    if args.json:
        with open(args.json, "a", encoding="utf-8") as f:
            f.write(json.dumps(r) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
