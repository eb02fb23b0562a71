"""Bots: the protocol (``base``), the registry of bots by name (``registry``) and one module per bot.

Every bot here plays every game that provides the parts it needs, found through the game
registry: ``greedy`` the game's ``heuristic.GreedyPlayer``, ``ismcts`` its ``search``
role, ``neural`` its shipped checkpoints (and ``features`` for action scorers).
"""
