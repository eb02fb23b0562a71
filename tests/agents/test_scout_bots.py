"""The Scout heuristic ("greedy"): legal play, bot == compiled policy, behaviours, strength."""

import numpy as np
import pytest

from sly_scout_env import scout_v0
from sly_scout_env.agents import make
from sly_scout_env.agents.evaluation.arena import run_arena
from sly_scout_env.netpolicy import NO_NETS
from sly_scout_env.scout import policies as SP
from sly_scout_env.scout import rules as R
from sly_scout_env.scout.heuristic import greedy_act, hand_cost, make_work
from sly_scout_env.scout.observation import observation_size
from sly_scout_env.simulation import simulate


def _deck(n):
    return [(a, b) for a in range(1, 11) for b in range(a + 1, 11) if R.in_deck(n, a, b)]


def _scenario(n, hand, active, owner, *, sas=True, phase="play"):
    """Seat 0 to act holding ``hand``; other seats get 4 unused cards each; one-round game."""
    used = {frozenset(c) for c in hand + active}
    spare = [list(c) for c in _deck(n) if frozenset(c) not in used]
    hands = [hand] + [spare[4 * s : 4 * s + 4] for s in range(n - 1)]
    env = scout_v0.raw_env(num_players=n, rounds=1)
    env.reset(seed=0)
    d = env.state_dict()
    d.update(
        hands=hands, active_set=active, active_owner=owner, phase=phase, current_player=0, starting_player=0,
        known=[[False] * len(h) for h in hands], collected=[[] for _ in range(n)], set_aside=[],
        scout_chips=[3 if n == 2 else 0] * n, scout_and_show_left=[sas and n > 2] * n,
    )
    env.from_state_dict(d)
    return env


def _greedy_move(env, seed=0):
    bot = make("greedy", game="scout")
    bot.reset(seed, game="scout", num_players=env.num_players, seat=0, options={"rounds": 1})
    obs = env.observe(env.agent_selection)
    a = bot.act(obs["observation"], obs["action_mask"], {})
    assert obs["action_mask"][a] == 1
    return env.decode_action(a)


def test_hand_cost_prefers_fewer_longer_groups():
    work = make_work()

    def cost(values):
        work[: len(values)] = values
        return hand_cost(work, 0, len(values))

    # Same cards, a run of five versus the same numbers scattered.
    assert cost([2, 3, 4, 5, 6]) < cost([2, 5, 3, 6, 4])
    # A set of three beats a pair plus a single of the same number kept apart.
    assert cost([6, 6, 6, 1]) < cost([6, 6, 1, 6])
    # A lone high card is cheaper than a lone low card.
    assert cost([10]) < cost([1])


@pytest.mark.parametrize("turn", [True, False])
def test_flip_turns_to_the_better_side(turn):
    # The down side reads 2 3 4 5 6 7 (one run); the up side six unrelated singles.
    cards = [[10, 2], [1, 3], [8, 4], [10, 5], [1, 6], [9, 7]]
    hand = cards if turn else [[b, a] for a, b in cards]
    env = _scenario(4, hand, [], None, phase="flip")
    assert _greedy_move(env) == {"type": "flip", "flip": turn}


def test_show_keeps_the_set_whole():
    # Active: a single 4. Singles 5 or the pair 5 5 would break the set of three 5s.
    env = _scenario(4, [[5, 1], [5, 2], [5, 3], [8, 9]], [[4, 1]], owner=1)
    assert _greedy_move(env) == {"type": "show", "start": 0, "length": 3}


def test_scout_extends_a_set_flipping_the_card():
    # Active 3 4 5 (a run of three) cannot be beaten by 9 6 6 1. Its left card is 3/6:
    # turned to 6 it completes the set 6 6 6; that is the best Scout.
    env = _scenario(4, [[9, 2], [6, 1], [6, 2], [1, 8]], [[3, 6], [4, 7], [5, 8]], owner=1, sas=False)
    move = _greedy_move(env)
    assert move["type"] == "scout" and move["end"] == "left" and move["flip"] is True
    assert move["position"] in (1, 2, 3)


def test_scout_and_show_when_scouting_unlocks_a_show():
    # Same table with the Scout & Show chip: take the 3/6 as a 6 into the pair, then show 6 6 6
    # (a set of three beats the run 4 5 that remains).
    env = _scenario(4, [[9, 2], [6, 1], [6, 2], [1, 8]], [[3, 6], [4, 7], [5, 8]], owner=1, sas=True)
    move = _greedy_move(env)
    assert move["type"] == "scout_and_show" and move["end"] == "left" and move["flip"] is True
    assert move["position"] in (1, 2, 3)
    env.step(env.encode_action(move))
    assert env.state_dict()["phase"] == "show_after_scout"
    assert _greedy_move(env) == {"type": "show", "start": 1, "length": 3}


def test_two_players_scout_keeps_the_turn_and_uses_chips_sparingly():
    # 2 players: the 8 can beat the single 7, so greedy shows rather than pay a chip.
    env = _scenario(2, [[8, 1], [2, 3], [4, 9]], [[7, 1]], owner=1)
    assert _greedy_move(env)["type"] == "show"


@pytest.mark.parametrize("num_players", [2, 3, 4, 5])
def test_bot_plays_like_the_compiled_policy(num_players):
    """The Agent and policies.choose pick the same move from the same generator word."""
    env = scout_v0.raw_env(num_players=num_players)
    env.reset(seed=7)
    bot = make("greedy", game="scout")
    bot.reset(0, game="scout", num_players=num_players, seat=0, options={})
    scratch = R.make_scratch()
    obs_buf = np.zeros(observation_size(num_players), dtype=np.float32)
    rng = np.random.default_rng(1)
    checked = 0
    while not env.terminations[env.agent_selection] and checked < 150:
        o = env.observe(env.agent_selection)
        word = int(rng.integers(2**62))
        bot._rng_word[0] = word
        a_bot = bot.act(o["observation"], o["action_mask"], {})
        row = env._state.copy()
        a_kernel = int(SP.choose(SP.policy_id("greedy"), row, scratch, obs_buf, np.array([word], dtype=np.int64),
                                 NO_NETS))
        assert a_bot == a_kernel
        env.step(a_bot)
        checked += 1
    assert checked > 20


def test_greedy_reads_only_the_observation():
    """greedy_act's input is the observation: equal observations give equal moves whatever is hidden."""
    n = 4
    env = _scenario(n, [[9, 2], [6, 1], [6, 2], [1, 8]], [[3, 6], [4, 7], [5, 8]], owner=1)
    o = env.observe(env.agent_selection)
    legal = np.flatnonzero(o["action_mask"]).astype(np.int64)
    work = make_work()
    a1 = greedy_act(o["observation"], legal, legal.size, n, np.array([5], dtype=np.int64), work)
    d = env.state_dict()
    d["hands"][1], d["hands"][2] = d["hands"][2], d["hands"][1]  # hidden cards change, the view does not
    env.from_state_dict(d)
    o2 = env.observe(env.agent_selection)
    assert np.array_equal(o["observation"], o2["observation"])
    a2 = greedy_act(o2["observation"], legal, legal.size, n, np.array([5], dtype=np.int64), work)
    assert a1 == a2


@pytest.mark.parametrize("num_players", [2, 3, 4, 5])
def test_compiled_greedy_always_legal_and_beats_random(num_players):
    """simulate raises on an illegal move; greedy in seat 0 outscores the random seats by far."""
    r = simulate("scout", 600, players=num_players, policies=["greedy"] + ["random"] * (num_players - 1),
                 seed=3, threads=1)
    s = r["scores"]
    assert s[:, 0].mean() > s[:, 1:].mean() + 5
    assert (s[:, 0] > s[:, 1:].max(axis=1)).mean() > 0.9


@pytest.mark.parametrize("num_players", [2, 4])
def test_greedy_beats_random_in_the_arena(num_players):
    """Full games, seats rotated: greedy wins far more than its share (measured ~1.0)."""
    res = run_arena("scout", num_players, ["greedy", "random"], games=24, seed=11, workers=1, progress=False)
    stats = {s.name: s for s in res.stats}
    g, r = stats["greedy"], stats["random"]
    parity = 1 / num_players
    assert g.win_rate_ci95[0] > parity > r.win_rate_ci95[1]
    assert g.mean_score > r.mean_score + 10
