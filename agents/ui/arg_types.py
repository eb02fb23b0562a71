"""argparse value types shared by the ``sly-scout`` sub-commands.

Every command spells a game's rule options the same way: ``--option KEY=VALUE``
(repeatable; :func:`add_options_argument`). ``simulate`` keeps its dedicated flags
(``--no-ii-after-empty-set``, ``--hen-houses 1``) as aliases.
"""

from __future__ import annotations

import argparse


def _whole_number_at_least(lo: int):
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if value < lo:
            raise argparse.ArgumentTypeError(f"{value} is not allowed; give a whole number >= {lo}")
        return value

    parse.__name__ = "int" if lo <= 0 else "positive int"
    return parse


positive_int = _whole_number_at_least(1)
non_negative_int = _whole_number_at_least(0)


def probability(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"{value} is not allowed; give a probability in [0, 1]")
    return value


def add_option_flag(parser: argparse.ArgumentParser, option) -> None:
    """A command-line flag for a game's rule option (a ``sly_scout_env.games.Option``).

    An option on by default becomes ``--no-NAME``; any other one ``--NAME VALUE`` with its
    allowed values listed (dashes for underscores in the flag).
    """
    flag = option.name.replace("_", "-")
    if option.default is True and option.choices == (True, False):
        parser.add_argument(f"--no-{flag}", dest=option.name, action="store_false", help=f"not: {option.help}")
        return

    def parse(text: str):
        try:
            return option.parse(text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    parse.__name__ = option.name
    shown = "an int >= 1" if option.choices is None else ", ".join(str(c) for c in option.choices)
    parser.add_argument(f"--{flag}", dest=option.name, type=parse, default=option.default,
                        metavar="VALUE", help=f"{option.help} ({shown}; default {option.default})")


def option_pair(text: str) -> tuple[str, object]:
    """``"rounds=1"`` -> ``("rounds", 1)`` (values read as int, float, true/false, none, else text)."""
    from sly_scout_env.agents.bots.registry import parse_value

    key, eq, value = text.partition("=")
    if not eq or not key:
        raise argparse.ArgumentTypeError(f"{text!r} is not of the form KEY=VALUE (e.g. rounds=1)")
    return key, parse_value(value)


def add_options_argument(parser: argparse.ArgumentParser,
                         example: str = "--option rounds=1, --option reveal_scope=all"):
    """``--option KEY=VALUE``, repeatable, into ``args.options`` (a list of pairs)."""
    parser.add_argument("--option", dest="options", type=option_pair, action="append", default=[],
                        metavar="KEY=VALUE", help=f"a game option of the env, repeatable (e.g. {example})")

