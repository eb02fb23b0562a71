"""Checkpoint file paths: the one check and cache key the ``ppo`` and ``neural`` bots share."""

from __future__ import annotations

import os


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
