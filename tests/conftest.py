"""Test session set-up: compile (or load from Numba's cache) every kernel once, up front.

Cold compilation of the kernels costs seconds; doing it once per test worker, before
the first test, keeps single tests' timings honest and the suite fast.
"""

import numpy as np
import pytest


def _warm(env_module, **options):
    env = env_module.raw_env(**options)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(50):
        if env.terminations[env.agent_selection]:
            break
        env.step(int(rng.choice(np.flatnonzero(env.legal_action_mask()))))
        env.observe(env.agent_selection)
    env.state_dict()


@pytest.fixture(scope="session", autouse=True)
def warm_numba_kernels():
    from sly_scout_env import scout_v0, sly_v0

    _warm(scout_v0, num_players=2)
    _warm(scout_v0, num_players=4)
    _warm(sly_v0, num_players=3)
    yield
