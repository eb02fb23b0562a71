"""argparse value types shared by the ``sly-scout`` sub-commands (envs and agents alike)."""

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
