"""sly.text.narrate: what the person at one seat is told of each move (agents/ui/play.py)."""

import numpy as np

from sly_scout_env import sly_v0
from sly_scout_env.sly import text as T


def _who(s):
    return f"player_{s}"


def _narrated_game(seed, num_players=3, viewer=0):
    """Play a random game; yield (actor, action, state before, lines told to ``viewer``)."""
    env = sly_v0.raw_env(num_players=num_players)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    while not env.terminations[env.agent_selection]:
        actor = env.agent_name_mapping[env.agent_selection]
        action = int(rng.choice(np.flatnonzero(env.legal_action_mask())))
        words = env.action_to_str(action)
        before = env.state_dict()
        env.step(action)
        yield actor, action, before, env.state_dict(), T.narrate(before, env.state_dict(), actor, action, words,
                                                                  viewer, _who)


def test_an_opponents_lay_names_the_space_not_the_card_and_own_moves_are_told_in_full():
    seen_lay = seen_own = 0
    for seed in range(3):
        for actor, action, before, _, lines in _narrated_game(seed):
            move = T.decode_action(action, before["hen_houses"])
            assert lines[0].startswith(f"player_{actor}: ")
            if actor == 0:
                assert lines[0] == f"player_0: {T.action_to_str(action, before['hen_houses'])}"
                seen_own += 1
            elif move["type"] == "lay":
                assert lines[0] == f"player_{actor}: lay a card face down on {T.space_name(move['space'])}"
                assert not any(name in lines[0] for name in T.CARD_NAMES)
                seen_lay += 1
    assert seen_lay and seen_own


def test_the_results_lines_account_for_every_card_a_move_settled():
    """Each gobbled Hen, captured Fox and newly Safe Hen gets one line."""
    told = 0
    for seed in range(6):
        for _, _, before, after, lines in _narrated_game(seed, num_players=2):
            gobbled = sum(len(a) - len(b) for a, b in zip(after["gobbled"], before["gobbled"]))
            captured = sum(len(a) - len(b) for a, b in zip(after["captured"], before["captured"]))
            safe = sum(1 for b, a in zip(before["spaces"], after["spaces"])
                       if a is not None and a["safe"] and not (b is not None and b["safe"]))
            assert sum("gobbled" in ln for ln in lines[1:]) == gobbled
            assert sum("captured" in ln for ln in lines[1:]) == captured
            assert sum(" is Safe on space " in ln for ln in lines[1:]) == safe
            told += gobbled + captured + safe
    assert told > 0
