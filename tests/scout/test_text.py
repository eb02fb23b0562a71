"""scout.text.narrate: what the person at one seat is told of each move (agents/ui/play.py)."""

import numpy as np
import pytest

from sly_scout_env import scout_v0
from sly_scout_env.scout import text as T


def _who(s):
    return f"player_{s}"


@pytest.mark.parametrize("num_players", (2, 4))
def test_narration_hides_other_flips_and_reports_every_round_end(num_players):
    env = scout_v0.raw_env(num_players=num_players)
    env.reset(seed=num_players)
    rng = np.random.default_rng(0)
    private = own = 0
    round_lines = []
    while not env.terminations[env.agent_selection]:
        actor = env.agent_name_mapping[env.agent_selection]
        action = int(rng.choice(np.flatnonzero(env.legal_action_mask())))
        words = env.action_to_str(action)
        before = env.state_dict()
        env.step(action)
        lines = T.narrate(before, env.state_dict(), actor, action, words, 0, _who)
        if actor == 0:
            assert lines[0] == f"player_0: {words}"
            own += 1
        elif T.decode_action(action, num_players)["type"] == "flip":
            # keep (0) and turn (1) read the same: the decision is private
            assert lines[0] == f"player_{actor}: decided whether to turn the hand around (a private choice)"
            private += 1
        else:
            assert lines[0] == f"player_{actor}: {words}"
        round_lines += [ln for ln in lines[1:] if ln.startswith("--- Round ")]
    final = env.state_dict()
    assert own and private == final["rounds"] * (num_players - 1)
    assert len(round_lines) == final["rounds"]
    assert round_lines[-1].startswith(f"--- Round {final['rounds']} of {final['rounds']} is over")
