"""Scout: rules kernels (``rules``), observation encoder, PettingZoo env (``env``), text helpers, batched kernels."""
