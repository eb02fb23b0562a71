"""OpenSpiel's algorithms on our games: ISMCTS with our resampler, evaluate_bots, and what the
information states and the resampler promise (a seat's view only, never a hidden card)."""

import numpy as np
import pytest

from sly_scout_env.games import get_game

from .helpers import COUNTS, OS, pyspiel, random_playout

ismcts = pytest.importorskip("open_spiel.python.algorithms.ismcts")
mcts = pytest.importorskip("open_spiel.python.algorithms.mcts")
evaluate_bots = pytest.importorskip("open_spiel.python.algorithms.evaluate_bots")


class Sampler:
    """A probability sampler like pyspiel's, reproducible."""

    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)

    def __call__(self):
        return float(self.rng.random())


def _position(game, players, moves, seed=0, **options):
    """A decision state after ``moves`` random moves (chance outcomes included)."""
    state = OS.load(game, players, **options).new_initial_state()
    rng = np.random.default_rng(seed)
    random_playout(state, rng, max_moves=moves)
    while state.is_chance_node():
        state.apply_action(int(rng.integers(OS.SEED_BASE)))
    return state


@pytest.mark.parametrize("game,players", COUNTS)
def test_openspiels_ismcts_plays_full_games_with_our_resampler(game, players):
    # Scout with rounds=1 (one hand) keeps a game short; the default game is played at 2 players below.
    options = {"rounds": 1} if game == "scout" else {}
    g = OS.load(game, players, **options)
    rs = np.random.RandomState(players)
    bot = ismcts.ISMCTSBot(g, mcts.RandomRolloutEvaluator(1, rs), 5.0, 8, random_state=rs)
    state = g.new_initial_state()
    rng = np.random.default_rng(players)
    searched = 0
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(int(rng.integers(OS.SEED_BASE)))
        elif state.current_player() == 0:
            action = bot.step(state)  # asserts every resampled root has the root's information state
            assert action in state.legal_actions()
            state.apply_action(int(action))
            searched += 1
        else:
            legal = state.legal_actions()
            state.apply_action(legal[int(rng.integers(len(legal)))])
    assert searched > 0
    assert all(g.min_utility() <= r <= g.max_utility() for r in state.returns())


def test_openspiels_ismcts_plays_the_default_scout_game_in_every_seat():
    g = OS.load("scout", 2)  # two rounds: a deal at the start, the set-aside half in round 2
    bots = [ismcts.ISMCTSBot(g, mcts.RandomRolloutEvaluator(1, np.random.RandomState(s)), 5.0, 6,
                             random_state=np.random.RandomState(s)) for s in range(2)]
    state = g.new_initial_state()
    rng = np.random.default_rng(0)
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(int(rng.integers(OS.SEED_BASE)))
        else:
            state.apply_action(int(bots[state.current_player()].step(state)))
    assert all(g.min_utility() <= r <= g.max_utility() for r in state.returns())


@pytest.mark.slow
@pytest.mark.parametrize("game,players", COUNTS)
def test_openspiels_ismcts_plays_full_default_games_at_every_count(game, players):
    g = OS.load(game, players)  # every round of Scout (a deal each)
    rs = np.random.RandomState(players)
    bot = ismcts.ISMCTSBot(g, mcts.RandomRolloutEvaluator(1, rs), 3.0, 4, random_state=rs)
    state = g.new_initial_state()
    rng = np.random.default_rng(players)
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(int(rng.integers(OS.SEED_BASE)))
        elif state.current_player() == 0:
            state.apply_action(int(bot.step(state)))
        else:
            legal = state.legal_actions()
            state.apply_action(legal[int(rng.integers(len(legal)))])
    assert state.row[get_game(game).module("rules").PHASE] == get_game(game).module("rules").PHASE_GAME_OVER


# Random-bot games per count for evaluate_bots: as many as fit about two seconds (a Scout game at
# 4-5 players is ~400-650 moves through Python, a Sly game ~20); benchmarks/openspiel_speed.py
# --evaluate plays thousands at every count.
EVALUATE_GAMES = {("scout", 2): 2000, ("scout", 3): 1000, ("scout", 4): 150, ("scout", 5): 100}


@pytest.mark.parametrize("game,players", COUNTS)
def test_evaluate_bots_with_random_bots(game, players):
    g = OS.load(game, players)
    bots = [pyspiel.make_uniform_random_bot(p, 10 + p) for p in range(players)]
    rs = np.random.RandomState(players)
    total = np.zeros(players)
    for _ in range(EVALUATE_GAMES.get((game, players), 2000)):
        returns = evaluate_bots.evaluate_bots(g.new_initial_state(), bots, rs)
        assert all(g.min_utility() <= r <= g.max_utility() for r in returns)
        total += returns
    assert np.isfinite(total).all()


@pytest.mark.parametrize("game,players", COUNTS)
def test_a_resample_keeps_everything_the_seat_knows_and_redeals_the_rest(game, players):
    for moves in (0, 7, 40):
        state = _position(game, players, moves, seed=moves)
        if state.is_terminal():
            continue
        for seat in range(players):
            mine = np.asarray(state.observation_tensor(seat))
            rows = set()
            for k in range(6):
                sample = state.resample_from_infostate(seat, Sampler(k))
                assert sample.information_state_string(seat) == state.information_state_string(seat)
                assert np.array_equal(np.asarray(sample.observation_tensor(seat)), mine)
                assert sample.current_player() == state.current_player()
                if state.current_player() == seat:
                    assert sample.legal_actions() == state.legal_actions()
                assert sample.player_view(seat) == state.player_view(seat)
                rows.add(sample.row.tobytes())
            if moves == 0 and game == "scout":
                assert len(rows) > 1  # the opponents' hands are re-dealt


@pytest.mark.parametrize("game,players", [("scout", 2), ("scout", 4), ("sly", 3)])
def test_a_resample_reads_the_seats_view_only(game, players):
    state = _position(game, players, 9, seed=4)
    for seat in range(players):
        view = state.player_view(seat)
        from_view = state.get_game().state_from_view(view)
        a = state.resample_from_infostate(seat, Sampler(seat))
        b = from_view.resample_from_infostate(seat, Sampler(seat))
        assert np.array_equal(a.row, b.row)  # the same draw from the view alone
        with pytest.raises(pyspiel.SpielError, match=rf"built from seat {seat}'s view: it resamples for that "
                                                     r"seat only"):
            a.resample_from_infostate((seat + 1) % players, Sampler(0))


def test_pyspiels_own_sampler_drives_the_resampler():
    state = _position("sly", 3, 5)
    sample = state.resample_from_infostate(1, pyspiel.UniformProbabilitySampler(0.0, 1.0))
    assert sample.information_state_string(1) == state.information_state_string(1)


@pytest.mark.parametrize("game,players", COUNTS)
def test_every_other_seat_sees_a_move_alike(game, players):
    # The information state keys another seat's move by the search role's edge key for one
    # observer: that key must be the same for every seat but the mover.
    spec = get_game(game)
    g = OS.load(game, players)
    adapter = spec.module("search").SearchAdapter(players, g.options,
                                                  **({"prune": False} if game == "scout" else {}))
    size = spec.module("rules").MAX_ACTIONS + spec.module("rules").SCRATCH_SIZE
    legal, keys = np.zeros(size, np.int64), np.zeros(size, np.int64)
    rng = np.random.default_rng(players)
    state = g.new_initial_state()
    for _ in range(300):
        if state.is_terminal():
            break
        if state.is_chance_node():
            state.apply_action(int(rng.integers(OS.SEED_BASE)))
            continue
        row, mover = state.row, state.current_player()
        seen = set()
        for observer in range(players):
            if observer != mover:
                m = adapter.edge_keys(row, observer, legal, keys)
                seen.add(tuple(zip(legal[:m].tolist(), keys[:m].tolist())))
        assert len(seen) <= 1
        state.apply_action(state.legal_actions()[int(rng.integers(len(state.legal_actions())))])


def test_a_hidden_detail_of_a_move_does_not_reach_the_other_seats_information_states():
    # Sly: seat 0 lays a Hen or the Fox face down on space 0: seats 1 and 2 cannot tell which.
    g = OS.load("sly", 3)
    s = g.new_initial_state()
    n_sp = 4 * g.options["hen_houses"]
    fox, hen = s.clone(), s.clone()
    fox.apply_action(0 * n_sp + 0)
    hen.apply_action(3 * n_sp + 0)
    for seat in (1, 2):
        assert fox.information_state_string(seat) == hen.information_state_string(seat)
        assert fox.observation_string(seat) == hen.observation_string(seat)
    assert fox.information_state_string(0) != hen.information_state_string(0)
    # Scout: a flip decision is private; the other seats' information states stay equal.
    g = OS.load("scout", 3)
    s = g.new_initial_state()
    for d in OS.seed_digits(5):
        s.apply_action(d)
    keep, turn = s.clone(), s.clone()
    keep.apply_action(0)
    turn.apply_action(1)
    mover = s.current_player()
    for seat in range(3):
        same = keep.information_state_string(seat) == turn.information_state_string(seat)
        assert same == (seat != mover)


def test_the_information_state_remembers_what_the_observation_forgets():
    # Scout, 3 players: seat 0 shows a single card, X or Y; seat 1 beats it with the same pair.
    # Seat 2 now observes the same table (the beaten card lies face down in seat 1's pile), but
    # it saw X or Y played: its observations agree, its information states do not.
    g = OS.load("scout", 3)
    for seed in range(50):
        s = g.new_initial_state()
        for d in OS.seed_digits(seed):
            s.apply_action(d)
        for _ in range(3):
            s.apply_action(0)  # every seat keeps its hand
        hand = s.player_view(0)["hands"][0]
        singles = [2 + i * 10 for i in range(len(hand))]
        x = singles[0]
        y = next((a for a, c in zip(singles, hand) if c[0] != hand[0][0]), None)
        branches = []
        for a in (x, y):
            b = s.clone()
            b.apply_action(a)
            branches.append(b)
        pairs = [a for a in branches[0].legal_actions() if (a - 2) % 10 == 1 and a < 2 + 10 * 34]
        common = [a for a in pairs if a in branches[1].legal_actions()]
        if y is None or not common:
            continue
        for b in branches:
            b.apply_action(common[0])
        one, two = branches
        assert np.array_equal(np.asarray(one.observation_tensor(2)), np.asarray(two.observation_tensor(2)))
        assert one.observation_string(2) == two.observation_string(2)
        assert one.information_state_string(2) != two.information_state_string(2)
        return
    pytest.fail("no deal with two different single cards and a pair to beat them")
