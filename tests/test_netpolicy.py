"""The ``neural`` checkpoints as compiled policies (sly_scout_env.netpolicy): the compiled
move equals the numpy bot's, in simulate, the fast learner and ISMCTS rollouts; bad
names and checkpoints are refused."""

import json

import numba
import numpy as np
import pytest

from sly_scout_env.agents import make
from sly_scout_env.agents.bots.neural import FORMAT_VERSION, NeuralPolicy, shipped, table_sizes
from sly_scout_env.games import GAMES, get_game
from sly_scout_env.netfile import CheckpointError
from sly_scout_env.netpolicy import NO_NETS, compiled_policies, obs_size, pack, parse_name, work_size
from sly_scout_env.simulation import simulate

from .nets import assert_same_moves, hide_shipped

SHIPPED = shipped()
TWO = min(2, numba.config.NUMBA_NUM_THREADS)


def _positions(game, players, options, count, seed):
    """Rows, observations and masks of random play from fresh deals (every phase random play
    reaches), whole games until at least ``count`` positions."""
    spec = get_game(game)
    rng = np.random.default_rng(seed)
    out = []
    g = 0
    while len(out) < count:
        g += 1
        env = spec.raw_env(num_players=players, **options)
        env.reset(seed=seed * 1000 + g)
        while not all(env.terminations.values()):
            o = env.observe(env.agent_selection)
            out.append((env.unwrapped._state.copy(), o["observation"], o["action_mask"]))
            env.step(int(rng.choice(np.flatnonzero(o["action_mask"]))))
    return out


def _compiled_and_numpy(policy, ids, nets, positions, word_seed=0):
    """Per position: (compiled move, numpy NeuralPolicy.act move, numpy logits with the prior).

    The prior's move is the compiled prior policy's, from the same generator word as the
    compiled neural move (which draws its prior first), so the two see the same prior."""
    pol = get_game(policy.game).module("policies")
    scratch = np.zeros(pol.CHOOSE_SCRATCH, dtype=np.int64)
    obs = np.zeros(obs_size(policy.observation_size, nets), dtype=np.float32)
    rng = np.random.default_rng(word_seed)
    out = []
    for row, observation, mask in positions:
        word = int(rng.integers(2**62))
        a = int(pol.choose(int(ids[0]), row.copy(), scratch, obs, np.array([word], np.int64), nets))
        prior = None
        z = policy.logits(observation, mask).astype(np.float64)
        if policy.prior is not None:
            prior = int(pol.choose(pol.policy_id(policy.prior["bot"]), row.copy(), scratch, obs,
                                   np.array([word], np.int64), NO_NETS))
            z[prior] += policy.prior["weight"]
        out.append((a, policy.act(observation, mask, prior_action=prior), z))
    return out


@pytest.mark.parametrize("policy", SHIPPED, ids=lambda p: f"{p.game}{p.players}")
def test_compiled_move_equals_the_numpy_bot_on_every_shipped_checkpoint(policy):
    ids, nets = compiled_policies(policy.game, ["neural"], policy.players)
    assert ids.tolist() == [get_game(policy.game).module("policies").NEURAL]
    positions = _positions(policy.game, policy.players, {}, count=400, seed=policy.players)
    results = _compiled_and_numpy(policy, ids, nets, positions)
    assert_same_moves(results)
    assert len({a for a, _, _ in results}) > 10  # many different moves: not one constant answer


def _random_policy(game, players, activation, hidden, seed, prior=None):
    D, A = table_sizes(game, players, json.dumps({}))
    rng = np.random.default_rng(seed)
    sizes = [D, *hidden]
    layers = [(rng.normal(size=(o, i)).astype(np.float32) * 0.3, rng.normal(size=o).astype(np.float32) * 0.1)
              for i, o in zip(sizes[:-1], sizes[1:])]
    head = (rng.normal(size=(A, sizes[-1])).astype(np.float32), rng.normal(size=A).astype(np.float32))
    meta = {"format_version": FORMAT_VERSION, "game": game, "players": players, "observation_size": D,
            "num_actions": A, "activation": activation, "hidden": list(hidden), "options": {}, "trained": {}}
    if prior is not None:
        meta["prior"] = prior
    return NeuralPolicy(layers, head, meta)


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("activation, hidden", [("ReLU", (24, 40, 8)), ("Tanh", (7,))])
def test_compiled_move_equals_numpy_for_other_shapes_and_activations(game, activation, hidden, tmp_path):
    """Layer counts and widths other than the shipped ones, ReLU too, a file of the user's own."""
    players = 3
    policy = _random_policy(game, players, activation, hidden, seed=len(hidden))
    path = policy.save(str(tmp_path / "mine.npz"))
    ids, nets = compiled_policies(game, ["greedy", f"neural:path={path}", "random"], players)
    pol = get_game(game).module("policies")
    assert ids.tolist() == [pol.GREEDY, pol.NEURAL, pol.RANDOM]
    assert work_size(nets) == 2 * max(hidden)
    results = _compiled_and_numpy(policy, ids[1:], nets, _positions(game, players, {}, count=150, seed=9))
    assert_same_moves(results)


def test_a_prior_with_a_large_weight_makes_the_compiled_moves_the_priors(tmp_path):
    policy = _random_policy("scout", 4, "Tanh", (16,), seed=3, prior={"bot": "greedy", "weight": 1000.0})
    path = policy.save(str(tmp_path / "prior.npz"))
    ids, nets = compiled_policies("scout", [f"neural:path={path}"], 4)
    pol = get_game("scout").module("policies")
    scratch = np.zeros(pol.CHOOSE_SCRATCH, dtype=np.int64)
    obs = np.zeros(obs_size(policy.observation_size, nets), dtype=np.float32)
    positions = _positions("scout", 4, {}, count=100, seed=4)
    differs = 0
    for row, observation, mask in positions:
        a = pol.choose(int(ids[0]), row.copy(), scratch, obs, np.array([17], np.int64), nets)
        g = pol.choose(pol.GREEDY, row.copy(), scratch, obs, np.array([17], np.int64), NO_NETS)
        assert a == g
        legal = np.flatnonzero(mask)
        differs += int(legal[np.argmax(policy.logits(observation)[legal])]) != a
    assert differs > 10  # the network alone plays otherwise: the prior made the moves


@pytest.mark.parametrize("game, players, n", [("sly", 2, 400), ("sly", 3, 300), ("scout", 2, 200)])
def test_simulate_with_neural_seats_is_the_same_whatever_threads_and_chunks(game, players, n):
    # (Scout's 4- and 5-player networks play their prior's, greedy's, move in greedy's games:
    # 2 players, where the network departs from it, tells the seats apart.)
    policies = ["neural"] + ["greedy"] * (players - 1)
    one = simulate(game, n, players=players, policies=policies, seed=3, threads=1, chunk_size=n)
    two = simulate(game, n, players=players, policies=",".join(policies), seed=3, threads=TWO, chunk_size=47)
    for k in ("scores", "winners", "steps", "end_reason"):
        np.testing.assert_array_equal(one[k], two[k], err_msg=k)
    assert set(np.unique(one["end_reason"]).tolist()) <= {1, 2}
    greedy = simulate(game, n, players=players, policies=["greedy"] * players, seed=3, threads=1)
    assert not np.array_equal(greedy["scores"], one["scores"])  # the neural seats did play


def test_simulated_neural_game_replays_through_the_numpy_bot():
    """Whole simulated Sly games: every move of the compiled neural seat is the numpy bot's."""
    n = 30
    sim = simulate("sly", n, players=2, policies=["neural", "random"], seed=21, threads=1)
    from sly_scout_env._rng import stream_words
    from sly_scout_env.sly import policies as SP

    policy = next(p for p in SHIPPED if (p.game, p.players) == ("sly", 2))
    words = stream_words(21, 0, n)
    for i in range(n):
        e = get_game("sly").raw_env(num_players=2)
        e.reset(seed=0)
        e._k_reset(int(words[i]))
        e._start_episode()
        prng = np.array([SP.policy_seed(e._state, np.int64(words[i]))], dtype=np.int64)
        scratch = np.zeros(SP.CHOOSE_SCRATCH, dtype=np.int64)
        obs = np.zeros(policy.observation_size, dtype=np.float32)
        steps = 0
        while not all(e.terminations.values()):
            seat = e.agent_name_mapping[e.agent_selection]
            o = e.observe(e.agent_selection)
            if seat == 0:
                a = policy.act(o["observation"], o["action_mask"])
            else:
                a = int(SP.choose(SP.RANDOM, e._state.copy(), scratch, obs, prng, NO_NETS))
            e.step(a)
            steps += 1
        assert steps == sim["steps"][i]
        e._k_final_scores(e._scratch)
        np.testing.assert_array_equal(sim["scores"][i], e._scratch[:2])


def test_neural_beats_greedy_in_kernel_at_sly_two_players():
    """The shipped Sly 2-player network against greedy, both seatings, 2000 independent deals each."""
    n = 2000
    shares = []
    for seat in (0, 1):
        policies = ["greedy", "greedy"]
        policies[seat] = "neural"
        r = simulate("sly", n, players=2, policies=policies, seed=100 + seat)
        w = r["winners"].astype(float)
        share = w[:, seat] / w.sum(axis=1)  # a tie shares the win
        shares.append(share)
    share = np.concatenate(shares)
    half = 1.96 * share.std(ddof=1) / np.sqrt(len(share))
    assert share.mean() - half > 0.6, (share.mean(), half)


def test_fast_learner_takes_neural_opponents(monkeypatch):
    from sly_scout_env.learner import SingleLearnerBatch

    batch = SingleLearnerBatch("scout", 8, opponents="neural", learner_seat="rotate", num_players=4, seed=1)
    assert batch.opp_ids.tolist() == [get_game("scout").module("policies").NEURAL] * 3
    assert batch.pobs.shape[1] == obs_size(batch.observation_size, batch.nets) > batch.observation_size
    batch.reset()
    rng = np.random.default_rng(0)
    done = 0
    for _ in range(200):
        batch.step(batch.check_actions([rng.choice(np.flatnonzero(m)) for m in batch.masks]))
        done += int(batch.dones.sum())
    assert done > 0
    hide_shipped(monkeypatch, "sly", 4)  # a count without a network
    with pytest.raises(CheckpointError, match="player counts with one: 2, 3"):
        SingleLearnerBatch("sly", 4, opponents="neural", num_players=4)


@pytest.mark.train
def test_sb3_vec_env_and_train_config_take_neural():
    from sly_scout_env.agents.training.ppo import TrainConfig
    from sly_scout_env.sb3_vec import SingleAgentVecEnv

    venv = SingleAgentVecEnv("sly", 4, opponents="neural", learner_seat="rotate", num_players=2, seed=0)
    obs = venv.reset()
    assert obs.shape == (4, 81)
    TrainConfig("sly", players=2, fast=True, opponents=["neural"], self_play=0).check()


@pytest.mark.parametrize("game, players", [("sly", 2), ("scout", 2)])
def test_ismcts_with_neural_rollouts_plays_legal_full_games(game, players):
    bot = make("ismcts", game=game, rollout="neural", iterations=20)
    spec = get_game(game)
    env = spec.raw_env(num_players=players, **({"rounds": 1} if game == "scout" else {}))
    env.reset(seed=5)
    bot.reset(5, game=game, num_players=players, seat=0, options=dict(env.unwrapped.options))
    rng = np.random.default_rng(0)
    from sly_scout_env.views import player_view

    moves = 0
    while not all(env.terminations.values()):
        o = env.observe(env.agent_selection)
        if env.agent_name_mapping[env.agent_selection] == 0:
            a = bot.act(o["observation"], o["action_mask"], {"view": player_view(env.state_dict(), 0)})
            moves += 1
        else:
            a = int(rng.choice(np.flatnonzero(o["action_mask"])))
        assert o["action_mask"][a] == 1
        env.step(a)
    assert moves > 3
    assert bot.search.adapter._nets.shape[0] > 0  # the rollouts ran the network


def test_ismcts_neural_rollout_at_a_count_without_a_checkpoint_is_refused(monkeypatch):
    hide_shipped(monkeypatch, "sly", 4)
    bot = make("ismcts", game="sly", rollout="neural", iterations=5)
    with pytest.raises(CheckpointError, match="player counts with one: 2, 3"):
        bot.reset(0, game="sly", num_players=4, seat=0, options={})


def _sampled_moves(game, players, policy, temperature, positions, draws, tmp_path):
    """Per position: the compiled moves of ``draws`` generator words at ``temperature``
    (None: the argmax) and the numpy logits."""
    path = policy.save(str(tmp_path / f"t{temperature}.npz"))
    name = f"neural:path={path}" + ("" if temperature is None else f":temperature={temperature}")
    ids, nets = compiled_policies(game, [name], players)
    pol = get_game(game).module("policies")
    scratch = np.zeros(pol.CHOOSE_SCRATCH, dtype=np.int64)
    obs = np.zeros(obs_size(policy.observation_size, nets), dtype=np.float32)
    out = []
    for row, observation, mask in positions:
        moves = [int(pol.choose(int(ids[0]), row.copy(), scratch, obs, np.array([w], np.int64), nets))
                 for w in range(draws)]
        out.append((np.array(moves), policy.logits(observation, mask).astype(np.float64), mask))
    return out


@pytest.mark.parametrize("game, kind", [("sly", "observation"), ("scout", "observation"), ("scout", "scorer")])
def test_a_temperature_draws_moves_from_the_softmax_of_the_logits(game, kind, tmp_path):
    """``neural:temperature=T``: each legal move as often as softmax(logits / T) says (every
    frequency within 5 standard errors over 600 draws), never an illegal one; the same word
    gives the same move; a tiny T plays the argmax."""
    from .nets import random_scorer

    players = 3
    policy = random_scorer(players, seed=4) if kind == "scorer" else _random_policy(game, players, "Tanh", (16,), 5)
    positions = [p for p in _positions(game, players, {}, count=60, seed=11) if p[2].sum() >= 3][:12]
    assert len(positions) >= 8
    temperature = 2.0
    spread = 0
    for moves, z, mask in _sampled_moves(game, players, policy, temperature, positions, 600, tmp_path):
        legal = np.flatnonzero(mask)
        assert np.isin(moves, legal).all()
        p = np.exp((z[legal] - z[legal].max()) / temperature)
        p /= p.sum()
        freq = np.array([(moves == a).mean() for a in legal])
        assert (np.abs(freq - p) <= 5 * np.sqrt(p * (1 - p) / len(moves)) + 0.005).all(), (freq, p)
        spread += p.max() < 0.8
    assert spread >= 3  # the check saw real distributions, not one move that always wins
    again = _sampled_moves(game, players, policy, temperature, positions[:3], 50, tmp_path)
    first = _sampled_moves(game, players, policy, temperature, positions[:3], 50, tmp_path)
    assert all((a[0] == b[0]).all() for a, b in zip(again, first))
    cold = _sampled_moves(game, players, policy, 1e-4, positions, 5, tmp_path)
    argmax = _sampled_moves(game, players, policy, None, positions, 1, tmp_path)
    clear = 0
    for (c, z, mask), (a, _, _) in zip(cold, argmax):
        top = np.sort(z[mask == 1])[-2:]
        if top[1] - top[0] > 0.01:  # equal logits (equal feature rows) are a fair draw among them
            clear += 1
            assert (c == a[0]).all()
    assert clear >= 6


def test_one_network_per_file_and_temperature(tmp_path):
    a = _random_policy("sly", 2, "Tanh", (8,), seed=1).save(str(tmp_path / "a.npz"))
    names = [f"neural:path={a}", f"neural:path={a}:temperature=1", f"neural:temperature=1:path={a}"]
    ids, nets = compiled_policies("sly", names + [f"neural:path={a}:temperature=0.5"], 2)  # a name per draw
    neural = get_game("sly").module("policies").NEURAL
    assert ids.tolist() == [neural, neural + 1, neural + 1, neural + 2] and nets[0] == 3
    assert parse_name(f"neural:temperature=0.5:path={a}", ("neural",)) == ("neural", {"temperature": 0.5, "path": a})


@pytest.mark.parametrize("game, players, policies, match", [
    ("sly", 4, ["neural"] * 4, "no shipped checkpoint for sly with 4 players; player counts with one: 2, 3"),
    ("sly", 2, ["neural:depth=3", "random"], "only neural takes parameters, each once: path=FILE"),
    ("sly", 2, ["greedy:path=x.npz", "random"], "only neural takes parameters"),
    ("sly", 2, ["neural:path=", "random"], "only neural takes parameters"),
    ("sly", 2, ["neural:path=/no/such/file.npz", "random"], "no such checkpoint file"),
    ("sly", 2, ["neural:temperature=0", "random"], "temperature='0' is not allowed; give a number > 0"),
    ("sly", 2, ["neural:temperature=hot", "random"], "temperature='hot' is not allowed; give a number > 0"),
    ("sly", 2, ["neural:temperature=inf", "random"], "temperature='inf' is not allowed"),
    ("sly", 2, ["neural:temperature=1:temperature=2", "random"], "'temperature=2' is not allowed; .* each once"),
    ("sly", 2, ["psychic", "random"], "unknown compiled policy 'psychic'; allowed: random, greedy, neural"),
])
def test_bad_names_and_checkpoints_are_refused(game, players, policies, match, monkeypatch):
    hide_shipped(monkeypatch, "sly", 4)  # the first case: a count without a network
    with pytest.raises(ValueError, match=match):
        simulate(game, 10, players=players, policies=policies)


def test_a_checkpoint_of_another_table_is_refused(tmp_path):
    path = _random_policy("sly", 3, "Tanh", (8,), seed=0).save(str(tmp_path / "sly3.npz"))
    with pytest.raises(CheckpointError, match="trained on sly with 3 players .* this table is sly with 2 players"):
        simulate("sly", 10, players=2, policies=[f"neural:path={path}", "random"])
    with pytest.raises(CheckpointError, match="observation size 159.*observation size"):
        simulate("sly", 10, players=3, policies=[f"neural:path={path}", "random", "random"], hen_houses=1)
    # A prior with no compiled version cannot run inside Numba.
    other = _random_policy("sly", 3, "Tanh", (8,), seed=0, prior={"bot": "ismcts", "weight": 1.0})
    bad = other.save(str(tmp_path / "prior.npz"))
    with pytest.raises(CheckpointError, match="bot 'ismcts', which has no compiled sly policy"):
        simulate("sly", 10, players=3, policies=[f"neural:path={bad}", "random", "random"])


def test_one_network_per_distinct_file_and_pack_layout(tmp_path):
    a = _random_policy("sly", 2, "Tanh", (8,), seed=1).save(str(tmp_path / "a.npz"))
    ids, nets = compiled_policies("sly", ["neural", f"neural:path={a}"], 2)
    again, nets2 = compiled_policies("sly", [f"neural:path={a}", f"neural:path={a}"], 2)
    neural = get_game("sly").module("policies").NEURAL
    assert ids.tolist() == [neural, neural + 1] and again.tolist() == [neural, neural]
    assert nets[0] == 2 and nets2[0] == 1
    assert pack([], []).shape == (0,) and work_size(NO_NETS) == 0
    assert parse_name(" neural:path=x.npz ", ("random", "neural")) == ("neural", {"path": "x.npz"})


def test_cli_simulate_plays_neural(capsys, monkeypatch):
    from sly_scout_env.agents.ui.cli import main

    assert main(["simulate", "sly", "--players", "2", "--games", "200", "--policies", "neural,greedy",
                 "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "neural,greedy" in out
    hide_shipped(monkeypatch, "sly", 4)
    assert main(["simulate", "sly", "--players", "4", "--games", "10", "--policies", "neural,greedy,greedy,greedy",
                 "--no-progress"]) == 2
    assert "player counts with one: 2, 3" in capsys.readouterr().err


@pytest.mark.parametrize("game", GAMES)
def test_choose_refuses_a_network_of_another_table_and_a_short_buffer(game):
    """The kernels do not bounds-check: a misuse gets -1 or an error, never an overrun."""
    pol = get_game(game).module("policies")
    ids, nets = compiled_policies(game, ["neural"], 2)  # the 2-player network
    env = get_game(game).raw_env(num_players=3)
    env.reset(seed=1)
    row = env.unwrapped._state.copy()
    scratch = np.zeros(pol.CHOOSE_SCRATCH, dtype=np.int64)
    big = np.zeros(50_000, dtype=np.float32)  # room for any shipped network (a scorer's rows too)
    rng = np.array([1], np.int64)
    assert pol.choose(int(ids[0]), row, scratch, big, rng, nets) == -1  # its input is not this table's observation
    assert pol.choose(int(ids[0]) + 1, row, scratch, big, rng, nets) == -1  # no network 1
    env2 = get_game(game).raw_env(num_players=2)
    env2.reset(seed=1)
    row2 = env2.unwrapped._state.copy()
    assert pol.choose(int(ids[0]), row2, scratch, big, rng, nets) >= 0
    with pytest.raises(ValueError, match="obs must hold netpolicy.obs_size"):
        pol.choose(int(ids[0]), row2, scratch, np.zeros(env2.observation_size, np.float32), rng, nets)
