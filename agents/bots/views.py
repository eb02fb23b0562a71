"""Bots' redacted views; the implementation lives in the env layer (``sly_scout_env.views``)."""

from sly_scout_env.views import player_view

__all__ = ["player_view"]
