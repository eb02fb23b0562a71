"""Scout: rules kernels (``rules``), observation encoder, PettingZoo env, text helpers, simulate."""
