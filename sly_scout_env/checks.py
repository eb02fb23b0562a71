"""Argument checks shared by every layer: one wording for every bad-input error.

Each check returns the value (normalised: numpy ints become ``int``) or raises a
ValueError naming the argument, the bad value and what is allowed. It imports numpy
only, so the rules kernels can use it without loading PettingZoo or Gymnasium.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np


def is_int(value: Any) -> bool:
    """True for Python and numpy integers, False for bools (a bool is an int in Python)."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def check_choice(name: str, value: Any, allowed: tuple) -> Any:
    """Return ``value`` if it is one of ``allowed``, else raise a ValueError naming both."""
    if isinstance(value, np.integer):
        value = int(value)
    # Compare types too, so that True never stands in for 1 (bool is an int).
    for a in allowed:
        if type(value) is type(a) and value == a:
            return a
    raise ValueError(f"{name}={value!r} is not allowed; allowed values: {', '.join(repr(a) for a in allowed)}")


def check_int(name: str, value: Any, lo: int = 1, hi: int | None = None, *, allow_none: bool = False) -> int | None:
    """Return ``value`` as an int if ``lo <= value (<= hi)``; None passes when ``allow_none``."""
    if value is None and allow_none:
        return None
    if not is_int(value) or value < lo or (hi is not None and value > hi):
        allowed = f"an int >= {lo}" if hi is None else f"an int from {lo} to {hi}"
        raise ValueError(f"{name}={value!r} is not allowed; "
                         f"allowed values: {'None or ' if allow_none else ''}{allowed}")
    return int(value)


def check_option_names(caller: str, given: dict, allowed) -> None:
    """ValueError if ``given`` has a keyword that ``caller`` does not take, listing what it takes.

    Called by each public class with its own argument list, so that the error names the
    class the user called rather than an inner one.
    """
    for name in given:
        if name not in allowed:
            raise ValueError(f"unknown option {name!r} for {caller}; allowed options: {', '.join(allowed)}")


def check_action_id(action: Any, num_actions: int, where: str = "") -> int:
    """``action`` as an int in ``[0, num_actions)``, else ValueError naming it and the range.

    The one wording of every env (AEC, vector, SB3): a float, a bool, a negative or an
    out-of-range id is refused alike. ``where`` prefixes the message (``"env 3: "``).
    """
    if isinstance(action, np.generic) or (isinstance(action, np.ndarray) and action.shape == ()):
        action = action.item()  # numpy scalars are named as Python values (np.bool_ -> bool: still refused)
    if not is_int(action):
        raise ValueError(f"{where}action {action!r} is not an int; actions are ints in [0, {num_actions})")
    action = int(action)
    if not 0 <= action < num_actions:
        raise ValueError(f"{where}action {action} is out of range; actions are ints in [0, {num_actions})")
    return action


def file_version(path, what: str, hint: str, error=ValueError) -> tuple[str, tuple]:
    """``(absolute path, (path, mtime, size))`` of an existing checkpoint file.

    ``what`` names the kind of file in the error when ``path`` is not a path; ``hint``
    says how to get one when it does not exist; ``error`` is the exception class raised.
    The key changes when the file is rewritten (training rewrites checkpoints), so a
    cache keyed by it never serves a stale policy.
    """
    if not isinstance(path, (str, os.PathLike)) or not str(path):
        raise error(f"path={path!r} is not allowed; give the path of {what}")
    path = os.path.abspath(os.fspath(path))
    if not os.path.isfile(path):
        raise error(f"path={path!r}: no such checkpoint file ({hint})")
    st = os.stat(path)
    return path, (path, st.st_mtime_ns, st.st_size)
