"""Command-line front ends of the arena and of terminal play.

The ``sly-scout`` command (``sly_scout_env/cli.py``) adds them as sub-commands with
:func:`add_arena_parser` / :func:`run_arena` and :func:`add_play_parser` /
:func:`run_play`. ``python -m agents.cli arena ...`` works on its own too.

    sly-scout arena scout --players 4 --agents random,greedy,ismcts --games 2000
    sly-scout play sly --players 3 --opponents greedy,ismcts --seat 1 --seed 7
"""

from __future__ import annotations

import argparse
import sys

from sly_scout_env.cli_types import non_negative_int, positive_int

from .registry import GAMES, describe

PLAYER_COUNTS = {"scout": (2, 3, 4, 5), "sly": (2, 3, 4)}


def _option(text: str) -> tuple[str, object]:
    from .registry import _parse_value

    key, eq, value = text.partition("=")
    if not eq or not key:
        raise argparse.ArgumentTypeError(f"{text!r} is not of the form KEY=VALUE (e.g. rounds=1)")
    return key, _parse_value(value)


def _bot_list(text: str) -> list[str]:
    items = [t.strip() for t in text.split(",") if t.strip()]
    if not items:
        raise argparse.ArgumentTypeError("give at least one bot name, e.g. random")
    return items


def _bots_epilog() -> str:
    return "registered bots:\n" + "\n".join("  " + line for line in describe().splitlines())


def _add_common(p) -> None:
    p.add_argument(
        "--option",
        dest="options",
        type=_option,
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a game option of the env, repeatable (e.g. --option rounds=1, --option reveal_scope=all)",
    )


def add_arena_parser(subparsers) -> argparse.ArgumentParser:
    """Add the ``arena`` sub-command to an argparse ``subparsers`` object."""
    p = subparsers.add_parser(
        "arena",
        help="a tournament between bots: seat rotation, duplicate deals, win shares with intervals over deals",
        description=(
            "Play bots against each other. Every deal is replayed under every seating of a balanced "
            "block (all distinct seatings when at most 120 and GAMES fill 10 deals of them, else a rotation), so no bot "
            "gains from its seat or its cards; GAMES is rounded up to whole deals. The same bot listed "
            "several times is one entry holding several seats (ismcts,greedy,greedy,greedy,greedy: 5 "
            "seatings per deal); label copies to tell them apart (g1@greedy or greedy:name=g1). Prints, "
            "per entry and pooled over its seats, the mean score and the win share per seat (ties split, "
            "parity 1/players), each with a 95% t-interval over deals (the deal is the independent unit; "
            "see docs/arena.md), openskill Plackett-Luce ratings and the head-to-head matrix."
        ),
        epilog=_bots_epilog(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("game", choices=GAMES, metavar="GAME", help="scout or sly")
    p.add_argument("--players", type=int, default=None, help="player count (scout 2-5, default 4; sly 2-4, default 3)")
    p.add_argument(
        "--agents",
        type=_bot_list,
        required=True,
        metavar="A,B,...",
        help=(
            "bots by registered name, comma-separated; parameters as name:key=value (e.g. ismcts:iterations=200); "
            "a repeated spec is one entry holding several seats; LABEL@spec or name=LABEL keeps copies apart"
        ),
    )
    p.add_argument(
        "--games", type=positive_int, required=True,
        help="games to play (rounded up to whole deals: one game per seating of a deal)",
    )
    p.add_argument("--seed", type=non_negative_int, default=0, help="seed of the deals and the bots (default 0)")
    p.add_argument("--workers", type=positive_int, default=2, help="worker processes (default 2)")
    p.add_argument("--max-steps", type=positive_int, default=None, help="step guard per game (default 100000)")
    p.add_argument("--json", metavar="PATH", default=None, help="save the results as JSON")
    p.add_argument(
        "--csv", metavar="PATH", default=None, help="save the per-entry results (with intervals over deals) as CSV"
    )
    p.add_argument("--no-progress", dest="progress", action="store_false", help="no progress bar")
    _add_common(p)
    return p


def run_arena(args, out=None):
    """Run the ``arena`` sub-command from parsed ``args``; prints the table, returns the ArenaResult."""
    from .arena import DEFAULT_MAX_STEPS
    from .arena import run_arena as _run

    out = out or sys.stdout
    if args.players is None:
        args.players = 4 if args.game == "scout" else 3
    allowed = PLAYER_COUNTS[args.game]
    if args.players not in allowed:
        raise SystemExit(f"sly-scout arena: --players {args.players} is not allowed for {args.game}; allowed: {allowed}")
    try:
        result = _run(
            args.game,
            args.players,
            args.agents,
            games=args.games,
            seed=args.seed,
            workers=args.workers,
            options=dict(args.options),
            progress=args.progress,
            max_steps=args.max_steps or DEFAULT_MAX_STEPS,
        )
    except ValueError as exc:
        raise SystemExit(f"sly-scout arena: {exc}") from None
    print(result.table(), file=out)
    if args.json:
        result.write_json(args.json)
        print(f"results saved to {args.json}", file=out)
    if args.csv:
        result.write_csv(args.csv)
        print(f"results saved to {args.csv}", file=out)
    return result


def add_play_parser(subparsers) -> argparse.ArgumentParser:
    """Add the ``play`` sub-command to an argparse ``subparsers`` object."""
    p = subparsers.add_parser(
        "play",
        help="play a full match in the terminal against chosen bots",
        description=(
            "Play a match against bots in the terminal. Pick moves by number or by a unique piece "
            "of their text; commands: help, moves, table, quit. quit, end of input and Ctrl-C save "
            "the game to a JSON file; continue it with --resume FILE. --seed replays a deal."
        ),
        epilog=_bots_epilog(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("game", choices=GAMES, metavar="GAME", help="scout or sly")
    p.add_argument("--players", type=int, default=None, help="player count (default: scout 4, sly 3)")
    p.add_argument(
        "--opponents",
        type=_bot_list,
        default=None,
        metavar="A,B,...",
        help="bots for the other seats, in seat order (fewer than the seats: repeated cyclically; default random)",
    )
    p.add_argument("--seat", type=non_negative_int, default=0, help="your seat, 0-based (default 0)")
    p.add_argument("--seed", type=non_negative_int, default=None, help="seed of the deal (default: fresh, printed)")
    p.add_argument("--resume", metavar="FILE", default=None, help="continue a saved game")
    p.add_argument("--save", metavar="FILE", default=None, help="where to save on quit (default sly-scout-GAME-save.json)")
    _add_common(p)
    return p


def run_play(args, input_stream=None, output_stream=None) -> dict:
    """Run the ``play`` sub-command from parsed ``args``."""
    from .play import play

    players = args.players
    if args.resume is None:
        if players is None:
            players = 4 if args.game == "scout" else 3
        allowed = PLAYER_COUNTS[args.game]
        if players not in allowed:
            raise SystemExit(f"sly-scout play: --players {players} is not allowed for {args.game}; allowed: {allowed}")
    try:
        return play(
            args.game,
            players,
            args.opponents or ["random"],
            seed=args.seed,
            seat=args.seat,
            input_stream=input_stream,
            output_stream=output_stream,
            resume=args.resume,
            options=dict(args.options),
            save_path=args.save,
        )
    except ValueError as exc:
        raise SystemExit(f"sly-scout play: {exc}") from None


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="sly-scout", description="Bots: arena and terminal play.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    add_arena_parser(sub)
    add_play_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "arena":
        run_arena(args)
    else:
        result = run_play(args)
        return 0 if result["status"] in ("finished", "saved") else 1
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
