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
