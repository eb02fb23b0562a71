"""sly-scout-env: fast, rulebook-correct PettingZoo environments for Scout and Sly."""

__version__ = "0.1.0"
