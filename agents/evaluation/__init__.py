"""Evaluation: the arena (``arena``), its statistics (``stats``) and its tables, JSON and CSV (``report``)."""
