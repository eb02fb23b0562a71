"""Scout, version 0: ``env()`` (PettingZoo's standard wrappers) and ``raw_env``.

The documentation page is the docstring of :mod:`sly_scout_env.scout.env`.
"""

from .scout.env import __doc__ as __doc__  # noqa: F401  (the env's documentation page)
from .scout.env import env, raw_env

__all__ = ["env", "raw_env"]
