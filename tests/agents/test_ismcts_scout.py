"""ISMCTS for Scout: determinization, the view-built root, edge keys, and no peeking."""

import copy
from collections import Counter

import numpy as np
import pytest

import sly_scout_env.scout.search as IS
from sly_scout_env import scout_v0
from sly_scout_env.agents import make
from sly_scout_env.agents.bots.views import player_view
from sly_scout_env.netpolicy import NO_NETS
from sly_scout_env.scout import rules as R
from sly_scout_env.scout.determinize import (
    MAX_HIDDEN,
    belief_weight,
    count_hidden,
    determinize,
    determinize_believing,
    row_from_view,
)


def _played(num_players, seed, moves, rounds=None):
    """An env after ``moves`` greedy moves from a seeded deal (Scouts make some cards known)."""
    env = scout_v0.raw_env(num_players=num_players, rounds=rounds)
    env.reset(seed=seed)
    bot = make("greedy", game="scout")
    bot.reset(seed, game="scout", num_players=num_players, seat=0, options={})
    for _ in range(moves):
        if env.terminations[env.agent_selection]:
            break
        o = env.observe(env.agent_selection)
        env.step(bot.act(o["observation"], o["action_mask"], {}))
    return env


def _with_known_cards(num_players, seed):
    """A play-phase env, seat 0 to act, where some opponent holds a known (scouted) card."""
    for sd in range(seed, seed + 40):
        env = scout_v0.raw_env(num_players=num_players)
        env.reset(seed=sd)
        bot = make("random")
        bot.reset(sd, game="scout", num_players=num_players, seat=0, options={})
        while not env.terminations[env.agent_selection]:
            d = env.state_dict()
            if d["phase"] == "play" and d["current_player"] == 0 and any(any(k) for k in d["known"][1:]):
                return env
            o = env.observe(env.agent_selection)
            env.step(bot.act(o["observation"], o["action_mask"], {}))
    raise AssertionError("no position with a known opponent card found")  # pragma: no cover


def _cards(d):
    """Every card in play as identities (hands, active set, collected, set-aside)."""
    out = []
    for h in d["hands"]:
        out += h
    out += d["active_set"] + d["set_aside"]
    for c in d["collected"]:
        out += c
    return Counter(frozenset(c) for c in out)


def _determinized(env, seat, word):
    row = env._state.copy()
    determinize(row, seat, np.array([word], dtype=np.int64), 0, np.zeros(MAX_HIDDEN, dtype=np.int64))
    out = scout_v0.raw_env(num_players=env.num_players, rounds=env.options["rounds"])
    out.reset(seed=0)
    out._state[:] = row
    out._round_scores = env._round_scores
    out._round_end_reasons = env._round_end_reasons
    return out.state_dict()


@pytest.mark.parametrize("num_players,seed", [(2, 1), (3, 2), (4, 3), (5, 4)])
def test_determinize_keeps_public_and_moves_hidden(num_players, seed):
    env = _with_known_cards(num_players, seed)
    d = env.state_dict()
    hands_seen = set()
    for word in range(12):
        e = _determinized(env, 0, word)
        assert _cards(e) == _cards(d)  # card conservation, each card once
        assert e["hands"][0] == d["hands"][0]  # the observer's own hand, order and sides
        assert e["active_set"] == d["active_set"] and e["collected"] == d["collected"]
        assert [len(h) for h in e["hands"]] == [len(h) for h in d["hands"]]
        assert len(e["set_aside"]) == len(d["set_aside"]) and e["known"] == d["known"]
        for s in range(1, num_players):
            for i, k in enumerate(d["known"][s]):
                if k:
                    assert e["hands"][s][i] == d["hands"][s][i]  # public card, same side up
        for k in ("scout_chips", "scores", "current_player", "phase", "active_owner", "rng"):
            assert e[k] == d[k]
        hands_seen.add(repr(e["hands"][1:]) + repr(e["set_aside"]))
    assert len(hands_seen) > 8  # the hidden cards really are re-dealt


def test_determinize_two_players_redeals_the_set_aside_half():
    env = scout_v0.raw_env(num_players=2)
    env.reset(seed=5)
    env.step(0)  # seat 0 keeps; seat 1 (flip phase) still hidden entirely
    d = env.state_dict()
    assert count_hidden(env._state, 0) == 11 + 22
    e = _determinized(env, 0, 99)
    assert _cards(e) == _cards(d) and e["hands"][0] == d["hands"][0]
    assert e["set_aside"] != d["set_aside"] and e["hands"][1] != d["hands"][1]
    # The observer's own hand is never touched, even when it is the other seat's turn.
    e1 = _determinized(env, 1, 99)
    assert e1["hands"][1] == d["hands"][1] and e1["hands"][0] != d["hands"][0]


def test_determinize_orientations_vary():
    env = _played(4, 8, 6)
    ups = Counter()
    for word in range(40):
        e = _determinized(env, 0, word)
        for card in e["hands"][2]:
            ups[card[0] < card[1]] += 1
    assert ups[True] > 50 and ups[False] > 50  # both sides up occur


def _believed(row, seat, word, belief):
    r = row.copy()
    determinize_believing(r, seat, np.array([word], dtype=np.int64), 0, np.zeros(MAX_HIDDEN, dtype=np.int64),
                          np.zeros(MAX_HIDDEN, dtype=np.int64), belief)
    return r


def _card(up, down):
    return up * 16 + down


def test_belief_weight_counts_each_scouted_card_next_to_a_card_it_meets():
    env = _with_known_cards(4, 21)
    row = env._state.copy()
    row[R.O_KNOWN : R.O_KNOWN + 4 * R.HAND_CAP] = 0
    h1 = R.O_HANDS + 1 * R.HAND_CAP
    assert row[R.O_HAND_LEN + 1] >= 3 and row[R.O_HAND_LEN + 2] >= 2
    row[R.O_KNOWN + 1 * R.HAND_CAP + 1] = 1  # seat 1 scouted the card at place 1: a 5 up
    row[h1 : h1 + 3] = [_card(9, 8), _card(5, 2), _card(1, 3)]
    assert belief_weight(row, 0, 3) == 1.0  # a 9 and a 1 beside it: no set or run to grow
    row[h1] = _card(6, 8)  # a 6 on its left: a run
    assert belief_weight(row, 0, 3) == 4.0
    row[h1] = _card(8, 6)  # the 6 turned down no longer counts: the number in play decides
    assert belief_weight(row, 0, 3) == 1.0
    row[h1 + 2] = _card(5, 7)  # a 5 on its right: a set
    assert belief_weight(row, 0, 3) == 4.0
    row[h1 + 2] = _card(4, 7)
    assert belief_weight(row, 0, 3) == 4.0 and belief_weight(row, 0, 0) == 1.0
    h2 = R.O_HANDS + 2 * R.HAND_CAP
    row[R.O_KNOWN + 2 * R.HAND_CAP] = 1  # a second scouted card, at seat 2's left end
    row[h2 : h2 + 2] = [_card(7, 1), _card(7, 2)]
    assert belief_weight(row, 0, 3) == 16.0  # once per scouted card
    assert belief_weight(row, 2, 3) == 4.0  # the observer's own scouted cards are no evidence
    row[R.PHASE] = R.PHASE_FLIP
    assert belief_weight(row, 0, 3) == 1.0


def test_believing_determinization_is_the_uniform_one_at_belief_zero():
    env = _with_known_cards(4, 3)
    for word in range(5):
        plain = env._state.copy()
        determinize(plain, 0, np.array([word], dtype=np.int64), 0, np.zeros(MAX_HIDDEN, dtype=np.int64))
        assert np.array_equal(_believed(env._state, 0, word, 0), plain)


@pytest.mark.parametrize("num_players,seed", [(2, 1), (4, 3)])
def test_believing_determinization_keeps_the_public_cards_and_leans_towards_scouts_explained(num_players, seed):
    env = _with_known_cards(num_players, seed)
    d = env.state_dict()
    row = env._state
    out = scout_v0.raw_env(num_players=num_players)
    out.reset(seed=0)
    for word in range(6):
        out._state[:] = _believed(row, 0, word, 3)
        e = out.state_dict()
        assert _cards(e) == _cards(d) and e["hands"][0] == d["hands"][0] and e["known"] == d["known"]
        for s in range(1, num_players):
            for i, k in enumerate(d["known"][s]):
                if k:
                    assert e["hands"][s][i] == d["hands"][s][i]
    scouts = sum(sum(k) for k in d["known"][1:])
    draws = 300
    uniform = np.mean([belief_weight(_believed(row, 0, w, 0), 0, 1) for w in range(draws)])
    leaning = np.mean([belief_weight(_believed(row, 0, w, 5), 0, 1) for w in range(draws)])
    # belief_weight(., 1) = 2 ** (scouted cards explained): more of them are explained
    assert scouts >= 1 and leaning > uniform * 1.2


def test_a_believing_search_does_not_peek():
    env = _with_known_cards(4, 12)
    d = env.state_dict()
    d2 = _swap_hidden(d, 0)
    env2 = scout_v0.raw_env(num_players=4)
    env2.reset(seed=0)
    env2.from_state_dict(d2)
    roots = []
    for e, dd in ((env, d), (env2, d2)):
        bot = make("ismcts", game="scout", iterations=60, belief=3)
        bot.reset(123, game="scout", num_players=4, seat=0, options={})
        o = e.observe(e.agent_selection)
        bot.act(o["observation"], o["action_mask"], {"seat": 0, "view": player_view(dd, 0)})
        roots.append({k: (ch.visits, tuple(ch.value)) for k, ch in bot.search.last_root.children.items()})
    assert roots[0] == roots[1]
    plain = make("ismcts", game="scout", iterations=60)
    plain.reset(123, game="scout", num_players=4, seat=0, options={})
    o = env.observe(env.agent_selection)
    plain.act(o["observation"], o["action_mask"], {"seat": 0, "view": player_view(d, 0)})
    # the belief changes the search (not a no-op)
    assert roots[0] != {k: (ch.visits, tuple(ch.value)) for k, ch in plain.search.last_root.children.items()}


@pytest.mark.parametrize("num_players", [2, 4])
def test_row_from_view_depends_on_the_view_only(num_players):
    env = _with_known_cards(num_players, 6)
    d = env.state_dict()
    view = player_view(d, 0)
    row = row_from_view(view)
    assert np.array_equal(row[R.O_HANDS : R.O_HANDS + R.HAND_CAP], env._state[R.O_HANDS : R.O_HANDS + R.HAND_CAP])
    # Another full state with the same view (hidden cards swapped between opponents) -> same row.
    d2 = _swap_hidden(d, 0)
    assert d2 != d and player_view(d2, 0) == view
    assert np.array_equal(row_from_view(player_view(d2, 0)), row)


def test_row_from_view_second_round_two_players():
    """2 players, round 2: the 22 cards of round 1 are out of play; the row still builds."""
    env = scout_v0.raw_env(num_players=2)
    env.reset(seed=9)
    bot = make("greedy", game="scout")
    bot.reset(0, game="scout", num_players=2, seat=0, options={})
    while not (env.state_dict()["round"] == 1 and env.state_dict()["phase"] == "play"):
        o = env.observe(env.agent_selection)
        env.step(bot.act(o["observation"], o["action_mask"], {}))
    d = env.state_dict()
    seat = d["current_player"]
    row = row_from_view(player_view(d, seat))
    hidden = sum(not k for k in d["known"][1 - seat])
    assert count_hidden(row, seat) == hidden + 22  # the opponent's unknown cards + the parked 22
    assert np.array_equal(row[R.O_HANDS + seat * R.HAND_CAP : R.O_HANDS + (seat + 1) * R.HAND_CAP],
                          env._state[R.O_HANDS + seat * R.HAND_CAP : R.O_HANDS + (seat + 1) * R.HAND_CAP])
    # A determinization deals the opponent's hidden cards from all 33 unaccounted cards.
    seen = set()
    for word in range(30):
        r = row.copy()
        determinize(r, seat, np.array([word], dtype=np.int64), 0, np.zeros(MAX_HIDDEN, dtype=np.int64))
        o = R.O_HANDS + (1 - seat) * R.HAND_CAP
        seen |= {frozenset((int(c) >> 4, int(c) & 15)) for c in r[o : o + int(r[R.O_HAND_LEN + 1 - seat])]}
    assert len(seen) > hidden + 5


def _swap_hidden(d, seat):
    """A different full state with the same view for ``seat``: hidden cards reshuffled, sides turned."""
    d2 = copy.deepcopy(d)
    places = [(s, i) for s in range(d["num_players"]) if s != seat for i, k in enumerate(d["known"][s])
              if not k or d["phase"] == "flip"]
    cards = [d2["hands"][s][i] for s, i in places] + d2["set_aside"]
    cards = cards[::-1]
    cards = [[c[1], c[0]] for c in cards]
    for (s, i), c in zip(places, cards):
        d2["hands"][s][i] = c
    d2["set_aside"] = cards[len(places):]
    return d2


def test_edge_keys_hide_an_opponents_flip():
    ad = IS.SearchAdapter(4, {})
    env = scout_v0.raw_env(num_players=4)
    env.reset(seed=1)
    legal = np.zeros(ad.num_actions, dtype=np.int64)
    keys = np.zeros(ad.num_actions, dtype=np.int64)
    row = env._state.copy()
    assert ad.edge_keys(row, 1, legal, keys) == 2  # seat 0 flips; observer 1 cannot tell which
    assert list(legal[:2]) == [0, 1] and keys[0] == keys[1]
    assert ad.edge_keys(row, 0, legal, keys) == 2 and keys[0] != keys[1]  # own flip: two edges


def test_pruning_keeps_shows_and_set_extending_scouts():
    env = scout_v0.raw_env(num_players=4, rounds=1)
    env.reset(seed=2)
    for _ in range(4):
        env.step(0)
    d = env.state_dict()
    ad = IS.SearchAdapter(4, {})
    legal = np.zeros(ad.num_actions, dtype=np.int64)
    keys = np.zeros(ad.num_actions, dtype=np.int64)
    n = ad.edge_keys(env._state.copy(), 0, legal, keys)
    full = np.flatnonzero(env.legal_action_mask())
    assert set(legal[:n]) <= set(full)
    shows = [a for a in full if a < 2 + R.MAX_SHOW * 41]
    assert set(shows) <= set(legal[:n])  # no active set yet: only Shows, all kept
    assert d["phase"] == "play"


@pytest.mark.parametrize("num_players", [2, 4])
def test_ismcts_does_not_peek(num_players):
    """Two full states with the same view for the acting seat, same seed and budget -> same move."""
    env = _with_known_cards(num_players, 12)
    d = env.state_dict()
    d2 = _swap_hidden(d, 0)
    assert d2["hands"] != d["hands"] and player_view(d2, 0) == player_view(d, 0)
    env2 = scout_v0.raw_env(num_players=num_players)
    env2.reset(seed=0)
    env2.from_state_dict(d2)
    moves = []
    roots = []
    for e, dd in ((env, d), (env2, d2)):
        bot = make("ismcts", game="scout", iterations=60)
        bot.reset(123, game="scout", num_players=num_players, seat=0, options={})
        o = e.observe(e.agent_selection)
        info = {"seat": 0, "game": "scout", "num_players": num_players, "view": player_view(dd, 0)}
        moves.append(bot.act(o["observation"], o["action_mask"], info))
        roots.append({k: (ch.visits, tuple(ch.value)) for k, ch in bot.search.last_root.children.items()})
    assert moves[0] == moves[1]
    assert roots[0] == roots[1]  # the whole search is the same, not just its answer
    assert env.legal_action_mask()[moves[0]] == 1


def test_ismcts_plays_a_whole_game_legally():
    env = scout_v0.raw_env(num_players=3, rounds=1)
    env.reset(seed=4)
    bots = [make("ismcts", game="scout", iterations=20)] + [make("greedy", game="scout") for _ in range(2)]
    for s, b in enumerate(bots):
        b.reset(s, game="scout", num_players=3, seat=s, options={"rounds": 1})
    steps = 0
    while not env.terminations[env.agent_selection]:
        seat = env.agent_name_mapping[env.agent_selection]
        o = env.observe(env.agent_selection)
        info = {"seat": seat, "view": player_view(env.state_dict(), seat)}
        env.step(int(bots[seat].act(o["observation"], o["action_mask"], info)))
        steps += 1
    assert env.state_dict()["phase"] == "game_over" and steps > 3


def test_horizon_and_value_weighting():
    """The root is cut to the current round; returns weight the earlier totals by 1/(1+rounds left)."""
    ad = IS.SearchAdapter(4, {})
    env = _played(4, 3, 10)
    d = env.state_dict()
    row = ad.root(None, None, {"view": player_view(d, d["current_player"])})
    assert row[R.O_ROUNDS] == d["round"] + 1
    fake = row.copy()
    fake[R.O_ROUND] = 1  # as after scoring round 0 of 4: three rounds still to play
    fake[R.O_SCORES : R.O_SCORES + 4] = [10, 0, 0, 0]
    fake[R.O_LAST_ROUND_SCORES : R.O_LAST_ROUND_SCORES + 4] = [2, 0, 0, 0]
    assert list(ad.returns(fake)) == [2 + 8 / 4, 0, 0, 0]
    fake[R.O_ROUND] = 4  # the last round: the exact game totals
    assert list(ad.returns(fake)) == [10, 0, 0, 0]


def test_bad_parameters_are_rejected():
    with pytest.raises(ValueError, match="horizon"):
        make("ismcts", game="scout", horizon="forever")
    for bad in (-1, 1.5, True, "3"):
        with pytest.raises(ValueError, match=r"belief=.*whole number >= 0"):
            make("ismcts", game="scout", belief=bad)
    with pytest.raises(ValueError, match="game"):
        make("ismcts", game="scout").reset(0, game="sly", num_players=3, seat=0, options={})


@pytest.mark.parametrize("num_players", [2, 4])
def test_prior_ranks_the_heuristics_move_first(num_players):
    """The widening prior is the heuristic's own valuation: greedy's move has the top prior."""
    from sly_scout_env.scout import policies as SP
    from sly_scout_env.scout.observation import observation_size

    env = _with_known_cards(num_players, 21)
    ad = IS.SearchAdapter(num_players, {})
    row = env._state.copy()
    legal = np.zeros(ad.num_actions, dtype=np.int64)
    keys = np.zeros(ad.num_actions, dtype=np.int64)
    n = ad.edge_keys(row, 0, legal, keys)
    out = np.full(ad.num_actions, np.nan)
    ad.prior(row, 0, legal, n, np.zeros(1, dtype=np.int64), out)
    assert not np.isnan(out[:n]).any()
    g = int(SP.choose(SP.GREEDY, row.copy(), R.make_scratch(), np.zeros(observation_size(num_players), np.float32),
                      np.array([3], dtype=np.int64), NO_NETS))
    assert g in set(legal[:n])  # pruning never drops the heuristic's move
    assert out[list(legal[:n]).index(g)] == out[:n].max()
