"""Action-scorer ``neural`` checkpoints (format version 2, ``inputs: "action_features"``): one
logit per legal action from its row of Scout's per-action features (``scout/features.py``).

Checked here: the rows themselves on hand-built positions; the numpy bot (arena, simulate,
every phase and player count, seeded); the compiled policy (the same move as the numpy bot
on thousands of positions; simulate, the fast learner's opponents, ISMCTS rollouts);
checkpoints refused with clear errors. Random weights built here with numpy.
"""

import json

import numba
import numpy as np
import pytest

from sly_scout_env.agents import make
from sly_scout_env.agents.bots.views import player_view
from sly_scout_env.agents.evaluation.arena import run_arena
from sly_scout_env.games import get_game
from sly_scout_env.kernels import SCORER_BLOCK, net_feature_rows, net_logits
from sly_scout_env.netfile import CheckpointError, load, table_sizes
from sly_scout_env.netpolicy import compiled_policies, obs_size, work_size
from sly_scout_env.sb3_vec import SingleAgentVecEnv
from sly_scout_env.scout.features import FEATURE_NAMES, FEATURE_SIZE, features_of
from sly_scout_env.scout.search import SearchAdapter
from sly_scout_env.simulation import simulate

from .nets import assert_same_moves, random_mlp, random_scorer

COUNTS = (2, 3, 4, 5)
SCOUT = get_game("scout")
SP = SCOUT.module("policies")
TEXT = SCOUT.module("text")
COL = {name: i for i, name in enumerate(FEATURE_NAMES)}
TWO = min(2, numba.config.NUMBA_NUM_THREADS)


@pytest.fixture(scope="module")
def scorers(tmp_path_factory):
    """players -> the path of a saved random scorer for Scout with that many players."""
    d = tmp_path_factory.mktemp("scorers")
    return {p: random_scorer(p, seed=p).save(str(d / f"scout{p}.npz")) for p in COUNTS}


def _arrays(path):
    with np.load(path, allow_pickle=False) as z:
        return {k: z[k] for k in z.files}


def _rewrite(path, arrays, meta=None):
    if meta is not None:
        arrays = dict(arrays, meta=np.array(json.dumps(meta)))
    with open(path, "wb") as f:
        np.savez(f, **arrays)
    return path


def _random_positions(players, count, seed, options=None):
    """(row, observation, mask, phase) of random play from fresh deals, whole games."""
    rng = np.random.default_rng(seed)
    out, g = [], 0
    while len(out) < count:
        g += 1
        env = SCOUT.raw_env(num_players=players, **(options or {}))
        env.reset(seed=seed * 1000 + g)
        while not all(env.terminations.values()):
            o = env.observe(env.agent_selection)
            out.append((env.unwrapped._state.copy(), o["observation"], o["action_mask"], env.state_dict()["phase"]))
            env.step(int(rng.choice(np.flatnonzero(o["action_mask"]))))
    return out


# -- the format and the numpy forward pass -----------------------------------------------------
def test_saved_scorer_loads_as_version_2_and_scores_the_legal_actions(scorers):
    p = load(scorers[4])
    assert (p.meta["format_version"], p.inputs, p.scores_actions) == (2, "action_features", True)
    assert p.meta["features"] == list(FEATURE_NAMES) and p.layers[0][0].shape == (32, FEATURE_SIZE)
    row, obs, mask, _ = _random_positions(4, 30, seed=1)[-1]
    z = p.logits(obs, mask)
    legal = np.flatnonzero(mask)
    assert np.isneginf(z[mask == 0]).all() and np.isfinite(z[legal]).all()
    # The logits are the MLP of each legal action's feature row (float64 here, float32 there).
    x = features_of(obs, legal, 4).astype(np.float64)
    for w, b in p.layers:
        x = np.maximum(x @ w.T.astype(np.float64) + b, 0.0)
    np.testing.assert_allclose(z[legal], (x @ p.head[0].T.astype(np.float64) + p.head[1])[:, 0], rtol=1e-4, atol=1e-4)
    assert p.act(obs, mask) == legal[np.argmax(z[legal])]


def test_a_version_1_file_still_loads_as_an_observation_network(tmp_path):
    path = random_mlp("scout", 3).save(str(tmp_path / "v2.npz"))
    arrays = _arrays(path)
    meta = json.loads(str(arrays["meta"]))
    assert meta["inputs"] == "observation"
    del meta["inputs"]
    meta["format_version"] = 1
    old = load(_rewrite(str(tmp_path / "v1.npz"), arrays, meta))
    assert old.inputs == "observation" and not old.scores_actions and "inputs" not in old.meta
    obs = np.random.default_rng(0).normal(size=old.observation_size).astype(np.float32)
    np.testing.assert_array_equal(old.logits(obs), load(path).logits(obs))  # no mask needed
    assert load(old.save(str(tmp_path / "again.npz"))).meta["format_version"] == 2  # save writes version 2


# -- refusals -----------------------------------------------------------------------------------
@pytest.mark.parametrize("change, message", [
    (lambda m: m.update(features=m["features"][:-1] + ["bluff_odds"]),
     r"another feature set than scout's \(missing \['scout_at_end'\]; unknown \['bluff_odds'\]"),
    (lambda m: m.update(features=m["features"][::-1]), r"another feature set than scout's \(another order"),
    (lambda m: m.pop("features"), "'features' None is not the list of feature names"),
    (lambda m: m.update(prior={"bot": "greedy", "weight": 3.0}), "an action scorer .* takes no prior"),
    (lambda m: m.update(format_version=1), "inputs 'action_features' needs format_version 2"),
    (lambda m: m.update(inputs="pixels"), "inputs 'pixels' is not one of observation, action_features"),
    (lambda m: m.update(format_version=3), "format_version 3 is not supported .*reads 1, 2"),
])
def test_mismatched_scorer_metadata_is_refused(scorers, tmp_path, change, message):
    arrays = _arrays(scorers[3])
    meta = json.loads(str(arrays["meta"]))
    change(meta)
    with pytest.raises(CheckpointError, match=message):
        load(_rewrite(str(tmp_path / "bad.npz"), arrays, meta))


@pytest.mark.parametrize("change, message", [
    (lambda a: a.update(w0=a["w0"][:, :-1]), rf"layer 0 has weight shape \(32, {FEATURE_SIZE - 1}\)"),
    (lambda a: a.update(w_out=np.vstack([a["w_out"]] * 2), b_out=np.hstack([a["b_out"]] * 2)),
     "the output layer gives 2 values per action row; an action scorer gives one"),
    (lambda a: a.update(w_out=a["w_out"][:, :-1]), "the output layer has weight shape"),
])
def test_bad_scorer_weights_are_refused(scorers, tmp_path, change, message):
    arrays = _arrays(scorers[3])
    change(arrays)
    with pytest.raises(CheckpointError, match=message):
        load(_rewrite(str(tmp_path / "bad.npz"), arrays))


def test_a_scorer_for_a_game_without_features_is_refused(scorers, tmp_path):
    arrays = _arrays(scorers[2])
    meta = json.loads(str(arrays["meta"]))
    d, a = table_sizes("sly", 2, json.dumps({}))
    meta.update(game="sly", players=2, observation_size=d, num_actions=a)
    with pytest.raises(CheckpointError, match="sly has no features module; its checkpoints read the observation"):
        load(_rewrite(str(tmp_path / "sly2.npz"), arrays, meta))


def test_truncated_scorer_file_is_refused(scorers, tmp_path):
    data = open(scorers[3], "rb").read()
    (tmp_path / "cut.npz").write_bytes(data[: len(data) * 2 // 3])
    with pytest.raises(CheckpointError, match="truncated or corrupt"):
        load(str(tmp_path / "cut.npz"))


def test_logits_of_a_scorer_need_the_mask_of_one_position(scorers):
    p = load(scorers[3])
    _, obs, mask, _ = _random_positions(3, 5, seed=2)[-1]
    with pytest.raises(ValueError, match=r"scores each legal action .* pass the action mask"):
        p.logits(obs)
    with pytest.raises(ValueError, match="scores the actions of one position"):
        p.logits(np.stack([obs, obs]), mask)
    with pytest.raises(ValueError, match="scores the actions of one position"):
        p.logits(obs, mask[:-1])
    with pytest.raises(ValueError, match="no legal action"):
        p.logits(obs, np.zeros_like(mask))


# -- the numpy bot --------------------------------------------------------------------------------
@pytest.mark.parametrize("players", COUNTS)
def test_scorer_bot_plays_legal_moves_in_every_phase_and_full_games(scorers, players):
    path = scorers[players]
    bot = make("neural", path=path)
    bot.reset(1, game="scout", num_players=players, seat=0, options={})
    seen = set()
    for _, obs, mask, phase in _random_positions(players, 150, seed=players):
        a = bot.act(obs, mask, {})
        assert mask[a] == 1
        seen.add(phase)
    assert {"flip", "play"} | ({"show_after_scout"} if players > 2 else set()) <= seen, seen
    # Full games, every round, against greedy; the same seed gives the same games.
    agents = [f"neural:path={path}"] + ["greedy"] * (players - 1)
    runs = [run_arena("scout", players, agents, games=players, seed=5, workers=1, progress=False) for _ in range(2)]
    for res in runs:
        assert res.truncated == 0 and res.games == players
        assert all(len(r.scores) == players for r in res.records)
    assert [r.scores for r in runs[0].records] == [r.scores for r in runs[1].records]


def test_scorer_bot_is_deterministic_with_a_seed(scorers):
    def play(seed, deterministic):
        bot = make("neural", path=scorers[3], deterministic=deterministic)
        bot.reset(seed, game="scout", num_players=3, seat=0, options={})
        env = SCOUT.raw_env(num_players=3)
        env.reset(seed=5)
        moves = []
        while not all(env.terminations.values()):
            o = env.observe(env.agent_selection)
            moves.append(bot.act(o["observation"], o["action_mask"], {}))
            env.step(moves[-1])
        return moves

    assert play(1, True) == play(2, True)  # argmax: the seed does not matter
    assert play(1, False) == play(1, False)  # sampling: the same seed, the same game


# -- the hand-built rows of scout/features.py -------------------------------------------------------
HANDS = [[[3, 1], [3, 2], [4, 5], [7, 8], [9, 2]], [[1, 4], [8, 2], [5, 2]], [[1, 2], [9, 3], [7, 2], [4, 6]]]


def _table(hands, active, owner=1, phase="play"):
    """A 3-player position at seat 0's turn; its observation, mask and env."""
    env = SCOUT.raw_env(num_players=3)
    env.reset(seed=1)
    d = env.state_dict()
    d.update(phase=phase, current_player=0, hands=hands, active_set=active, active_owner=owner if active else None,
             known=[[False] * len(h) for h in hands])
    env.from_state_dict(d)
    o = env.observe(env.agent_selection)
    return o["observation"], o["action_mask"], env


def _rows(obs, mask, *actions):
    legal = np.flatnonzero(mask)
    feats = features_of(obs, legal, 3)
    out = []
    for d in actions:
        a = TEXT.encode_action(d, 3)
        assert mask[a] == 1, d
        out.append({name: round(float(feats[int(np.searchsorted(legal, a)), i]), 6) for name, i in COL.items()})
    return out


def _expect(row, **want):
    got = {k: row[k] for k in want}
    assert got == pytest.approx(want), got


def test_rows_of_shows_and_scouts_on_a_hand_built_table():
    # Seat 0 holds 3 3 4 7 9; the active set is the run 5 6 of seat 1.
    obs, mask, _ = _table(HANDS, [[5, 1], [6, 2]])
    show, right, right_turned, left_end, left_mid, left_turned, sas = _rows(
        obs, mask,
        {"type": "show", "start": 0, "length": 2},  # the set 3 3 beats the run
        {"type": "scout", "end": "right", "flip": False, "position": 3},  # the 6 between 4 and 7
        {"type": "scout", "end": "right", "flip": True, "position": 0},  # the 6 turned: a 2, before the 3
        {"type": "scout", "end": "left", "flip": False, "position": 5},  # the 5 after the 9
        {"type": "scout", "end": "left", "flip": False, "position": 3},  # the 5 between 4 and 7
        {"type": "scout", "end": "left", "flip": True, "position": 0},  # the 5 turned: a 1, before the 3
        {"type": "scout_and_show", "end": "left", "flip": False, "position": 3})
    context = dict(hand_size=0.5, min_opp_hand=0.3, next_hand=0.3, active_len=0.2, active_mine=0.0, no_active=0.0,
                   sas_left=1.0, is_flip=0.0)
    for row in (show, right, left_end, sas):
        _expect(row, **context)
    _expect(show, is_show=1.0, is_scout=0.0, show_len=0.2, show_set=1.0, show_low=0.3, collected=0.2,
            empties_hand=0.0, hand_after=0.3, active_after=0.2, scouted_number=0.0)
    _expect(right, is_scout=1.0, is_show=0.0, is_sas=0.0, scouted_number=0.6, scout_right_end=1.0, scout_turned=0.0,
            scout_joins=1.0, hand_after=0.6, active_after=0.1, show_len=0.0)
    _expect(right_turned, scouted_number=0.2, scout_right_end=1.0, scout_turned=1.0, scout_joins=1.0)
    _expect(left_end, scouted_number=0.5, scout_right_end=0.0, scout_turned=0.0, scout_joins=0.0)
    _expect(left_mid, scouted_number=0.5, scout_joins=1.0)
    _expect(left_turned, scouted_number=0.1, scout_turned=1.0, scout_joins=0.0)
    _expect(sas, is_sas=1.0, is_scout=0.0, scouted_number=0.5, scout_joins=1.0, hand_after=0.6)


def test_a_show_that_empties_the_hand():
    obs, mask, _ = _table([[[3, 1], [3, 2]], HANDS[1], HANDS[2]], [[2, 6]])
    (row,) = _rows(obs, mask, {"type": "show", "start": 0, "length": 2})
    _expect(row, is_show=1.0, show_len=0.2, show_set=1.0, show_low=0.3, collected=0.1, empties_hand=1.0,
            hand_after=0.0, hand_size=0.2, active_len=0.1)


def test_flip_rows_score_the_hand_kept_and_turned():
    obs, mask, _ = _table(HANDS, [], phase="flip")
    keep, turn = _rows(obs, mask, {"type": "flip", "flip": False}, {"type": "flip", "flip": True})
    _expect(keep, is_flip=1.0, flip_turn=0.0, hand_after=0.5, is_show=0.0, is_scout=0.0, no_active=1.0)
    _expect(turn, is_flip=1.0, flip_turn=1.0, hand_after=0.5)
    assert keep["cost_after"] == keep["hand_cost"]  # keeping: the hand as it is
    # Turning this hand costs what keeping the turned hand costs, and the other way round.
    turned = [[[b, a] for a, b in HANDS[0]], HANDS[1], HANDS[2]]
    keep2, turn2 = _rows(*_table(turned, [], phase="flip")[:2], {"type": "flip", "flip": False},
                         {"type": "flip", "flip": True})
    assert (keep2["cost_after"], turn2["cost_after"]) == (turn["cost_after"], keep["cost_after"])
    assert keep["cost_after"] != turn["cost_after"]


def test_rows_depend_only_on_the_acting_seats_observation():
    obs, mask, env = _table(HANDS, [[5, 1], [6, 2]])
    other = [HANDS[0], [[2, 4], [8, 3], [9, 1]], [[1, 6], [9, 4], [7, 3], [6, 5]]]  # hidden cards changed
    obs2, mask2, env2 = _table(other, [[5, 1], [6, 2]])
    assert env.state_dict()["hands"] != env2.state_dict()["hands"]
    np.testing.assert_array_equal(obs, obs2)
    legal = np.flatnonzero(mask)
    np.testing.assert_array_equal(features_of(obs, legal, 3), features_of(obs2, np.flatnonzero(mask2), 3))


# -- the compiled policy --------------------------------------------------------------------------
def _compiled_vs_numpy(policy, pid, nets, positions):
    """Per position: (compiled move, numpy move, numpy logits)."""
    scratch = np.zeros(SP.CHOOSE_SCRATCH, dtype=np.int64)
    obs = np.zeros(obs_size(policy.observation_size, nets), dtype=np.float32)
    out = []
    for row, observation, mask, _ in positions:
        a = int(SP.choose(pid, row.copy(), scratch, obs, np.array([7], np.int64), nets))
        out.append((a, policy.act(observation, mask), policy.logits(observation, mask)))
    return out


@pytest.mark.parametrize("players", COUNTS)
def test_compiled_move_equals_the_numpy_bot(scorers, players):
    policy = load(scorers[players])
    ids, nets = compiled_policies("scout", ["greedy", f"neural:path={policy.source}"], players)
    assert ids.tolist() == [SP.GREEDY, SP.NEURAL]
    # the rows, two halves of a block of rows' hidden activations, the shared first-layer sum and column flags
    assert work_size(nets) == policy.num_actions * FEATURE_SIZE + 2 * SCORER_BLOCK * 32 + 32 + FEATURE_SIZE
    results = _compiled_vs_numpy(policy, int(ids[1]), nets, _random_positions(players, 600, seed=10 + players))
    assert_same_moves(results)
    assert len({a for a, _, _ in results}) > 30  # many different moves: not one constant answer


@pytest.mark.parametrize("hidden", [(32, 32), (9,), (), (12, 10, 6)])
def test_compiled_logits_equal_numpy_for_every_count_of_legal_moves(tmp_path, hidden):
    """The logits the search's prior reads (``kernels.net_logits``): rows run through the layers
    in blocks of SCORER_BLOCK with a shared first-layer sum, so every remainder of the legal
    moves' count and a single legal move (every column shared) are checked against numpy."""
    players = 3
    policy = load(random_scorer(players, hidden, "ReLU", seed=7).save(str(tmp_path / "s.npz")))
    _, nets = compiled_policies("scout", [f"neural:path={policy.source}"], players)
    obs = np.zeros(obs_size(policy.observation_size, nets), dtype=np.float32)
    out = np.zeros(policy.num_actions, dtype=np.float64)
    counts = set()
    for _, observation, mask, _ in _random_positions(players, 150, seed=3):
        for legal in (np.flatnonzero(mask), np.flatnonzero(mask)[:1], np.flatnonzero(mask)[1::2]):
            n = len(legal)
            if n == 0:
                continue
            counts.add(min(n, SCORER_BLOCK + 1) if n <= SCORER_BLOCK else SCORER_BLOCK + n % SCORER_BLOCK)
            obs[: policy.observation_size] = observation
            net_feature_rows(nets, 0, obs, n)[:] = features_of(observation, legal, players)
            net_logits(nets, 0, obs, legal, n, out)
            sub = np.zeros_like(mask)
            sub[legal] = 1
            np.testing.assert_allclose(out[:n], policy.logits(observation, sub)[legal], rtol=1e-4, atol=1e-4)
    assert {1, 2, 3, 4} <= counts and len(counts) >= 6  # single moves, short lists, every remainder of longer ones


@pytest.mark.parametrize("activation, hidden", [("Tanh", (7,)), ("ReLU", ()), ("Tanh", (40, 24, 8))])
def test_compiled_move_equals_numpy_for_other_shapes(tmp_path, activation, hidden):
    """Other depths (none: a linear scorer) and widths; a scorer and an observation network in one ``nets``."""
    scorer = load(random_scorer(3, hidden, activation, seed=len(hidden)).save(str(tmp_path / "s.npz")))
    mlp = load(random_mlp("scout", 3, hidden=(24,)).save(str(tmp_path / "m.npz")))
    ids, nets = compiled_policies("scout", [f"neural:path={mlp.source}", f"neural:path={scorer.source}"], 3)
    assert ids.tolist() == [SP.NEURAL, SP.NEURAL + 1]
    widest = max(hidden, default=0)
    scorer_work = scorer.num_actions * FEATURE_SIZE + (2 * SCORER_BLOCK + 1) * widest + FEATURE_SIZE
    assert work_size(nets) == max(2 * 24, scorer_work)
    positions = _random_positions(3, 400, seed=len(hidden))
    assert_same_moves(_compiled_vs_numpy(scorer, int(ids[1]), nets, positions))
    assert_same_moves(_compiled_vs_numpy(mlp, int(ids[0]), nets, positions[:100]))


def test_compiled_scorer_refuses_short_buffers(scorers):
    policy = load(scorers[4])
    ids, nets = compiled_policies("scout", [f"neural:path={policy.source}"], 4)
    row = _random_positions(4, 10, seed=3)[-1][0]
    full = np.zeros(obs_size(policy.observation_size, nets), dtype=np.float32)
    with pytest.raises(ValueError, match="obs must hold"):
        SP.choose(int(ids[0]), row.copy(), np.zeros(SP.CHOOSE_SCRATCH, np.int64), full[:-1], np.ones(1, np.int64), nets)
    with pytest.raises(ValueError, match="CHOOSE_SCRATCH"):
        SP.choose(int(ids[0]), row.copy(), SCOUT.module("rules").make_scratch(), full, np.ones(1, np.int64), nets)


@pytest.mark.parametrize("players", (2, 4))
def test_simulate_with_a_scorer_seat_is_the_same_whatever_threads_and_chunks(scorers, players):
    policies = [f"neural:path={scorers[players]}"] + ["greedy"] * (players - 1)
    one = simulate("scout", 300, players=players, policies=policies, seed=3, threads=1, chunk_size=300)
    two = simulate("scout", 300, players=players, policies=",".join(policies), seed=3, threads=TWO, chunk_size=47)
    for k in ("scores", "winners", "steps", "end_reason"):
        np.testing.assert_array_equal(one[k], two[k], err_msg=k)
    assert set(np.unique(one["end_reason"]).tolist()) <= {1, 2}
    greedy = simulate("scout", 300, players=players, policies=["greedy"] * players, seed=3, threads=1)
    assert not np.array_equal(greedy["scores"], one["scores"])  # the scorer did play


def test_single_agent_vec_env_plays_scorer_opponents(scorers):
    def run(opponents):
        venv = SingleAgentVecEnv("scout", 8, opponents=opponents, learner_seat="rotate", seed=4, num_players=4,
                                 rounds=1)
        obs = venv.reset()
        trace, done = [obs.copy()], 0
        for _ in range(60):
            masks = venv.action_masks()
            venv.step_async(np.array([np.flatnonzero(m)[0] for m in masks]))
            obs, _, dones, _ = venv.step_wait()
            trace.append(obs.copy())
            done += int(dones.sum())
        return np.array(trace), done

    mine, done = run(f"neural:path={scorers[4]}")
    assert done >= 8  # whole hands, autoreset
    np.testing.assert_array_equal(mine, run(f"neural:path={scorers[4]}")[0])
    assert not np.array_equal(mine, run("greedy")[0])  # the scorer seats play otherwise than greedy


def test_ismcts_rollouts_with_a_scorer_play_the_numpy_bots_moves(scorers):
    """ISMCTS's compiled rollout policy (``rollout="neural"``) on a scorer: each playout is the
    game the numpy bot plays from the same position."""
    R = SCOUT.module("rules")
    observation = SCOUT.module("observation")
    policy = load(scorers[4])
    adapter = SearchAdapter(4, {"rounds": 1})
    pid = adapter.policy_id(f"neural:path={policy.source}")
    size = observation.observation_size(4)
    for row, _, _, _ in _random_positions(4, 60, seed=6)[::12]:
        fast = row.copy()
        adapter.seed_row(fast, 99)
        adapter.rollout(fast, pid)
        slow = row.copy()
        slow[R.RNG] = 99
        scratch, mask, obs = R.make_scratch(), np.zeros(policy.num_actions, np.int8), np.zeros(size, np.float32)
        while slow[R.PHASE] != R.PHASE_GAME_OVER:
            R.legal_mask(slow, mask, scratch)
            observation.encode_observation(slow, slow[R.CURRENT_PLAYER], obs)
            assert R.apply_action(slow, policy.act(obs, mask), scratch) == 0
        np.testing.assert_array_equal(fast, slow)


@pytest.mark.parametrize("engine", ["compiled", "python"])
def test_ismcts_guided_by_a_scorer_gets_its_softmax_at_the_root(scorers, engine):
    env = SCOUT.raw_env(num_players=4)
    env.reset(seed=12)
    rng = np.random.default_rng(0)
    for _ in range(9):
        env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
    seat = env.agent_name_mapping[env.agent_selection]
    o = env.observe(env.agent_selection)
    bot = make("ismcts", game="scout", guide="neural", guide_path=scorers[4], iterations=4, engine=engine)
    bot.reset(5, game="scout", num_players=4, seat=seat, options={})
    a = bot.act(o["observation"], o["action_mask"], {"seat": seat, "view": player_view(env.state_dict(), seat)})
    assert o["action_mask"][a] == 1
    root = bot.search.last_root
    legal = np.flatnonzero(o["action_mask"])
    z = load(scorers[4]).logits(o["observation"], o["action_mask"]).astype(np.float64)[legal]
    p = np.exp(z - z.max()) / np.exp(z - z.max()).sum()
    edges = np.isin(legal, list(root.guide))
    assert edges.sum() >= 2
    if engine == "compiled":  # its softmax runs over the edges (Scout's pruned moves), in float32 sums
        np.testing.assert_allclose([root.guide[int(b)] for b in legal[edges]], p[edges] / p[edges].sum(), atol=1e-5)
    else:
        np.testing.assert_allclose([root.guide[int(b)] for b in legal[edges]], p[edges], atol=1e-9)
