"""Sly as a PettingZoo AEC environment (version 0). Documentation: ``sly_scout_env.sly.env``."""

from .sly.env import __doc__ as __doc__  # noqa: F401  (the env's documentation page)
from .sly.env import env, raw_env

__all__ = ["env", "raw_env"]
