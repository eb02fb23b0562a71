"""Training recipes: MaskablePPO with SB3 (``ppo``), RLlib on Ray (``rllib``), behaviour-cloning warm starts
(``warm_start``), policies on a prior bot (``prior_policy``), ISMCTS distillation (``distill``, ``distill_fit``)
and the export of trained policies to the torch-free ``neural`` format (``export_neural``).

torch, SB3 and Ray are imported inside the functions that need them (the ``train`` and ``ray`` extras).
"""
