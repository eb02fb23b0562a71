"""OpenSpiel's ISMCTS (``openspiel_ismcts``) against our ``ismcts``, at equal iterations and equal time.

    python benchmarks/openspiel_arena.py --game sly --players 2 --games 200 --iterations 100 --time-limit 0.1
    python benchmarks/openspiel_arena.py --game scout --players 4 --options rounds=1 --games 100 --workers 2
    python benchmarks/openspiel_arena.py --only time --time-limit 0.05 --games 40

Two arenas (``sly_scout_env.agents.evaluation.arena.run_arena``: duplicate deals, seat
rotation, 95% intervals over deals), each the two bots alone at the table (more seats than
bots: the seats are filled in rotation, see the arena's docstring):

* **equal iterations**: ``openspiel_ismcts:iterations=N`` against ``ismcts:iterations=N``;
* **equal time**: ``openspiel_ismcts:time_limit=T:iterations=None`` against
  ``ismcts:time_limit=T:iterations=None`` (OpenSpiel's bot sizes each search from its
  measured time per simulation; ours stops at the deadline).

Both search with their defaults otherwise (ours: its game's defaults, rollouts by the greedy
policy, Scout to the end of the round; OpenSpiel's: UCT with c=3 on raw scores, random rollouts
to the end of the game). Prints each arena's table (mean score, win share, head-to-head, with
intervals) and the wall time. A long measurement: hours at the sizes of the first example (a
Python search over Python states is slow); ``--games 2 --iterations 4 --time-limit 0.02``
checks it runs.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sly_scout_env.agents.bots.registry import available, parse_value, register  # noqa: E402
from sly_scout_env.agents.evaluation.arena import run_arena  # noqa: E402

BOT = "openspiel_ismcts"
FACTORY = "sly_scout_env.agents.bots.openspiel_ismcts:OpenSpielISMCTSAgent"


def ensure_registered() -> None:
    """Register the bot unless the builtins do (the registry line of agents/bots/registry.py)."""
    if BOT not in available():
        register(BOT, FACTORY, takes_game=True,
                 description="OpenSpiel's ISMCTSBot (random rollouts) on our OpenSpiel game, from the seat's view")


def parse_options(text: str) -> dict:
    out = {}
    for item in filter(None, (text or "").split(",")):
        key, _, value = item.partition("=")
        out[key] = parse_value(value)
    return out


def matchups(args) -> list[tuple[str, list[str]]]:
    out = []
    if args.only in (None, "iterations"):
        n = args.iterations
        out.append((f"equal iterations ({n} per move)", [f"{BOT}:iterations={n}", f"ismcts:iterations={n}"]))
    if args.only in (None, "time"):
        t = args.time_limit
        out.append((f"equal time ({t} s per move)",
                    [f"{BOT}:time_limit={t}:iterations=None", f"ismcts:time_limit={t}:iterations=None"]))
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--game", default="sly")
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--options", default="", help="game options, key=value,... (e.g. rounds=1)")
    p.add_argument("--games", type=int, default=200, help="games per arena (rounded up to whole blocks)")
    p.add_argument("--iterations", type=int, default=100, help="iterations per move of both bots (equal iterations)")
    p.add_argument("--time-limit", type=float, default=0.1, help="seconds per move of both bots (equal time)")
    p.add_argument("--only", choices=("iterations", "time"), default=None, help="run one of the two arenas")
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    ensure_registered()
    options = parse_options(args.options)
    for title, agents in matchups(args):
        t = time.perf_counter()
        result = run_arena(args.game, args.players, agents, games=args.games, seed=args.seed, workers=args.workers,
                           options=options, progress=False)
        print(f"## {args.game}, {args.players} players: {title}\n")
        print(result.table())
        print(f"\n{result.games} games in {time.perf_counter() - t:.1f} s\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
