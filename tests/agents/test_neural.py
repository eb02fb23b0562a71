"""The ``neural`` bot: the torch-free checkpoint format, the shipped checkpoints, the recipe.

Format tests use small checkpoints with seeded random weights built here (numpy only).
Shipped-checkpoint tests run for every file in ``sly_scout_env/<game>/checkpoints``: it loads, plays
legal moves in every phase reached by random play, plays full games at every option
value whose observation it fits, and is deterministic with a seed.
"""

import json
import os

import numpy as np
import pytest

from sly_scout_env.agents import make
from sly_scout_env.agents.bots.neural import (
    FORMAT_VERSION,
    CheckpointError,
    NeuralAgent,
    NeuralPolicy,
    load,
    shipped,
    shipped_for,
    table_sizes,
)
from sly_scout_env.agents.evaluation.arena import run_arena
from sly_scout_env.games import all_games, get_game


def _random_policy(game, players, options=None, hidden=(16,), seed=0, prior=None):
    options = dict(options or {})
    D, A = table_sizes(game, players, json.dumps(options, sort_keys=True))
    rng = np.random.default_rng(seed)
    sizes = [D, *hidden]
    layers = [(rng.normal(size=(o, i)).astype(np.float32) * 0.1, np.zeros(o, np.float32))
              for i, o in zip(sizes[:-1], sizes[1:])]
    head = (rng.normal(size=(A, sizes[-1])).astype(np.float32), np.zeros(A, np.float32))
    meta = {"format_version": FORMAT_VERSION, "game": game, "players": players, "observation_size": D,
            "num_actions": A, "activation": "Tanh", "hidden": list(hidden), "options": options, "trained": {}}
    if prior is not None:
        meta["prior"] = prior
    return NeuralPolicy(layers, head, meta)


@pytest.fixture
def scout_ckpt(tmp_path):
    return _random_policy("scout", 3).save(str(tmp_path / "scout3.npz"))


def _arrays(path):
    with np.load(path, allow_pickle=False) as z:
        return {k: z[k] for k in z.files}


def _rewrite(path, arrays):
    with open(path, "wb") as f:
        np.savez(f, **arrays)


# -- format -------------------------------------------------------------------------------
def test_round_trip_keeps_weights_and_metadata(scout_ckpt):
    p = load(scout_ckpt)
    q = _random_policy("scout", 3)
    assert p.meta == q.meta
    obs = np.random.default_rng(1).normal(size=p.observation_size).astype(np.float32)
    np.testing.assert_allclose(p.logits(obs), q.logits(obs), rtol=1e-6)
    # Only plain arrays: nothing needs pickle.
    assert all(a.dtype != object for a in _arrays(scout_ckpt).values())


def test_truncated_file_is_refused(scout_ckpt, tmp_path):
    data = open(scout_ckpt, "rb").read()
    bad = tmp_path / "cut.npz"
    bad.write_bytes(data[: len(data) // 2])
    with pytest.raises(CheckpointError, match="truncated or corrupt"):
        load(str(bad))


def test_not_an_npz_and_missing_file_are_refused(tmp_path):
    junk = tmp_path / "junk.npz"
    junk.write_bytes(b"hello, not a zip")
    with pytest.raises(CheckpointError, match="truncated or corrupt"):
        load(str(junk))
    with pytest.raises(CheckpointError, match="no such checkpoint"):
        load(str(tmp_path / "absent.npz"))


def test_pickled_object_arrays_are_refused(scout_ckpt, tmp_path):
    arrays = _arrays(scout_ckpt)
    arrays["meta"] = np.array([{"game": "scout"}], dtype=object)
    bad = str(tmp_path / "pickled.npz")
    with open(bad, "wb") as f:
        np.savez(f, **arrays)  # np.savez pickles object arrays; the loader must not unpickle
    with pytest.raises(CheckpointError, match="Object arrays cannot be loaded|truncated or corrupt"):
        load(bad)


@pytest.mark.parametrize("change, message", [
    (lambda m: m.update(game="chess"), "game 'chess' is not one of"),
    (lambda m: m.update(players=7), "players 7 is not a player count of scout"),
    (lambda m: m.update(players=4), "observation/action sizes .* are not those of scout with 4 players"),
    (lambda m: m.update(format_version=99), "format_version 99 is not supported"),
    (lambda m: m.pop("num_actions"), "metadata has no 'num_actions'"),
    (lambda m: m.update(activation="Swish"), "activation 'Swish' is not supported"),
    (lambda m: m.update(prior={"bot": "greedy"}), "prior .* is not of the form"),
    (lambda m: m.update(prior={"bot": "nosuchbot", "weight": 2}), "prior bot 'nosuchbot': unknown bot"),
])
def test_mismatched_metadata_is_refused(scout_ckpt, tmp_path, change, message):
    arrays = _arrays(scout_ckpt)
    meta = json.loads(str(arrays["meta"]))
    change(meta)
    arrays["meta"] = np.array(json.dumps(meta))
    bad = str(tmp_path / "bad.npz")
    _rewrite(bad, arrays)
    with pytest.raises(CheckpointError, match=message):
        load(bad)


@pytest.mark.parametrize("change, message", [
    (lambda a: a.update(w0=a["w0"][:, :-1]), "layer 0 has weight shape"),
    (lambda a: a.update(w_out=a["w_out"][:-1], b_out=a["b_out"][:-1]), "output layer gives .* logits"),
    (lambda a: a.update(b0=a["b0"][:-1]), "layer 0 has weight shape"),
    (lambda a: a.pop("w_out"), "output layer .* is missing"),
    (lambda a: a.pop("b0"), "w0 has no bias b0"),
    (lambda a: a.update(format=np.array("something else")), "not a sly-scout-neural file"),
    (lambda a: a["w0"].__setitem__((0, 0), np.nan), "non-finite"),
    (lambda a: a.update(w0=a["w0"].astype(np.int64)), "dtype int64, not floating point"),
])
def test_bad_weights_are_refused(scout_ckpt, tmp_path, change, message):
    arrays = _arrays(scout_ckpt)
    change(arrays)
    bad = str(tmp_path / "bad.npz")
    _rewrite(bad, arrays)
    with pytest.raises(CheckpointError, match=message):
        load(bad)


def test_bot_refuses_another_table(scout_ckpt):
    bot = make("neural", path=scout_ckpt)
    with pytest.raises(CheckpointError, match="trained on scout with 3 players; this table is sly with 3"):
        bot.reset(0, game="sly", num_players=3, seat=0, options={})
    with pytest.raises(CheckpointError, match="trained on scout with 3 players; this table is scout with 4"):
        bot.reset(0, game="scout", num_players=4, seat=0, options={})
    with pytest.raises(ValueError, match="deterministic='yes' is not allowed"):
        NeuralAgent(path=scout_ckpt, deterministic="yes")


def test_sly_checkpoint_refuses_another_hen_house_count(tmp_path):
    path = _random_policy("sly", 2).save(str(tmp_path / "sly2.npz"))
    bot = make("neural", path=path)
    bot.reset(0, game="sly", num_players=2, seat=0, options={})  # rule default: one Hen House
    with pytest.raises(CheckpointError, match="expects observations of size 81"):
        bot.reset(0, game="sly", num_players=2, seat=0, options={"hen_houses": 2})


def test_count_without_a_shipped_checkpoint_names_those_with_one():
    have = {(p.game, p.players) for p in shipped()}
    for spec in (get_game("scout"), get_game("sly")):
        missing = [n for n in spec.player_counts if (spec.name, n) not in have]
        if not missing:
            continue
        counts = sorted(n for g, n in have if g == spec.name)
        bot = make("neural")
        with pytest.raises(CheckpointError, match=f"no shipped checkpoint for {spec.name} with {missing[0]} players; "
                                                  f"player counts with one: {', '.join(map(str, counts)) or 'none'}"):
            bot.reset(0, game=spec.name, num_players=missing[0], seat=0, options={})


# -- play -----------------------------------------------------------------------------------
def _walk_positions(policy, options, games, seed):
    """Random play from fresh deals; at every position the neural bot is asked for a move too.

    Returns the Scout phases / Sly action types at which the bot was asked, after
    checking that every answer is legal.
    """
    spec = get_game(policy.game)
    rng = np.random.default_rng(seed)
    seen = set()
    bot = make("neural", path=policy.source)
    bot.reset(seed, game=policy.game, num_players=policy.players, seat=0, options=options)
    for g in range(games):
        env = spec.raw_env(num_players=policy.players, **options)
        env.reset(seed=int(seed * 1000 + g))
        while not all(env.terminations.values()) and not any(env.truncations.values()):
            o = env.observe(env.agent_selection)
            a = bot.act(o["observation"], o["action_mask"], {})
            assert o["action_mask"][a] == 1
            seen.add(env.state_dict().get("phase") or env.decode_action(a)["type"])
            env.step(int(rng.choice(np.flatnonzero(o["action_mask"]))))
    return seen


def _option_grid(spec, players, trained):
    """Every single-option change from the defaults whose observation fits the checkpoint."""
    base = {}
    grid = [base]
    for opt in spec.options:
        values = opt.choices if opt.choices is not None else (1, 2, 3)
        for v in values:
            grid.append({opt.name: v})
    size = trained.observation_size
    fits = [o for o in grid if table_sizes(spec.name, players, json.dumps(o, sort_keys=True, default=str))[0] == size]
    return fits


SHIPPED = shipped()
# What the package ships (docs/training.md, "Shipped checkpoints"); the tests below run on every one.
# Every game and player count of the registry.
SHIPPED_TABLES = {("scout", 2), ("scout", 3), ("scout", 4), ("scout", 5), ("sly", 2), ("sly", 3), ("sly", 4)}


def test_the_package_ships_its_checkpoints():
    assert {(p.game, p.players) for p in SHIPPED} == SHIPPED_TABLES
    assert SHIPPED_TABLES == {(spec.name, n) for spec in all_games() for n in spec.player_counts}


@pytest.mark.parametrize("policy", SHIPPED, ids=lambda p: os.path.basename(p.source))
def test_shipped_checkpoint_plays_legal_moves_in_every_phase(policy):
    seen = _walk_positions(policy, {}, games=3, seed=1)
    # Scout & Show (its show_after_scout phase) exists with 3 to 5 players only.
    expected = {"scout": {"flip", "play"} | ({"show_after_scout"} if policy.players > 2 else set())}.get(policy.game)
    if expected is not None:
        assert expected <= seen, seen
    else:
        assert len(seen) >= 2, seen
    assert policy.meta["trained"], "a shipped checkpoint says how it was trained"
    assert os.path.getsize(policy.source) <= 5 * 2**20


@pytest.mark.parametrize("policy", SHIPPED, ids=lambda p: os.path.basename(p.source))
def test_shipped_checkpoint_plays_full_games_at_every_option_value(policy):
    spec = get_game(policy.game)
    grid = _option_grid(spec, policy.players, policy)
    assert {} in grid
    for options in grid:
        res = run_arena(policy.game, policy.players, ["neural", "random"], games=2 * policy.players, seed=3,
                        workers=1, options=options, progress=False)
        assert res.truncated == 0 and res.games >= 2 * policy.players
        # Every game was played to its end: every seat got a final score.
        assert all(len(r.scores) == policy.players for r in res.records)


@pytest.mark.parametrize("policy", SHIPPED, ids=lambda p: os.path.basename(p.source))
def test_shipped_checkpoint_is_picked_and_deterministic_with_a_seed(policy):
    assert shipped_for(policy.game, policy.players, {}) is policy

    def play(seed, deterministic):
        bot = make("neural", deterministic=deterministic)
        env = get_game(policy.game).raw_env(num_players=policy.players)
        env.reset(seed=5)
        moves = []
        bot.reset(seed, game=policy.game, num_players=policy.players, seat=0, options={})
        while not all(env.terminations.values()):
            o = env.observe(env.agent_selection)
            a = bot.act(o["observation"], o["action_mask"], {})
            moves.append(a)
            env.step(a)
        return moves

    assert play(1, True) == play(1, True)
    if policy.prior is None:
        assert play(1, True) == play(2, True)  # argmax: the seed does not matter
    # (with a prior, the seed reaches the prior bot's tie-breaks)
    assert play(1, False) == play(1, False)  # sampling: the same seed, the same game


def test_forward_pass_of_a_shipped_size_network():
    """The biggest shipped layout (Scout 5p, 256x256) answers within its budget; timed, not asserted."""
    p = _random_policy("scout", 5, hidden=(256, 256))
    o = np.zeros(p.observation_size, np.float32)
    m = np.ones(p.num_actions, np.int8)
    assert 0 <= p.act(o, m) < p.num_actions


def test_neural_plays_in_terminal_play_and_as_single_agent_env_opponent(tmp_path):
    import io

    from sly_scout_env.agents.ui.play import play
    from sly_scout_env.wrappers import SingleAgentEnv

    policy = SHIPPED[0]
    out = io.StringIO()
    result = play(policy.game, policy.players, ["neural"], seed=2, seat=0, input_stream=io.StringIO("1\n" * 3000),
                  output_stream=out, save_path=str(tmp_path / "save.json"))
    assert result["status"] == "finished" and "(neural)" in out.getvalue()
    env = SingleAgentEnv(policy.game, make("neural"), num_players=policy.players)
    obs, info = env.reset(seed=4)
    done, steps = False, 0
    while not done:
        mask = env.action_masks()
        obs, reward, term, trunc, info = env.step(int(np.flatnonzero(mask)[0]))
        done, steps = term or trunc, steps + 1
    assert term and steps > 0


def test_a_prior_checkpoint_adds_the_prior_bots_move(tmp_path):
    """With a large prior weight the bot plays the prior's moves, tie-breaks included (same seed)."""
    path = _random_policy("scout", 4, prior={"bot": "greedy", "weight": 1000.0}).save(str(tmp_path / "p.npz"))
    bot = make("neural", path=path)
    bot.reset(11, game="scout", num_players=4, seat=0, options={})
    greedy = make("greedy", game="scout")
    greedy.reset(int(np.random.default_rng(11).integers(2**62)), game="scout", num_players=4, seat=0, options={})
    plain = NeuralPolicy(load(path).layers, load(path).head, {k: v for k, v in load(path).meta.items() if k != "prior"})
    env = get_game("scout").raw_env(num_players=4)
    env.reset(seed=8)
    differs = 0
    while not all(env.terminations.values()):
        o = env.observe(env.agent_selection)
        a = bot.act(o["observation"], o["action_mask"], {})
        assert a == greedy.act(o["observation"], o["action_mask"], {})
        differs += a != plain.act(o["observation"], o["action_mask"])
        env.step(a)
    assert differs > 10  # the network alone plays otherwise: the prior made the moves
    with pytest.raises(ValueError, match="pass prior_action"):
        load(path).act(o["observation"] * 0, np.ones(len(o["action_mask"]), np.int8))


# -- the recipe (needs the train extra) ------------------------------------------------------
@pytest.mark.train
def test_recipe_end_to_end_on_a_tiny_budget(tmp_path):
    """sly-scout train --fast --prior greedy: the run writes final.npz, which loads and plays."""
    import argparse

    from sly_scout_env.agents.training.ppo import train
    from sly_scout_env.agents.ui.cli import add_train_parser, config_from_args

    parser = argparse.ArgumentParser()
    add_train_parser(parser.add_subparsers())
    args = parser.parse_args(
        ["train", "scout", "--players", "2", "--option", "rounds=1", "--fast", "--opponents", "greedy",
         "--self-play", "0", "--prior", "greedy", "--prior-weight", "3", "--n-envs", "16", "--n-steps", "16",
         "--batch-size", "64", "--timesteps", "512", "--eval-every", "100000", "--eval-games", "8",
         "--eval-opponents", "random", "--net-arch", "16", "--out", str(tmp_path / "run")])
    cfg = config_from_args(args)
    assert (cfg.prior, cfg.prior_weight) == ("greedy", 3.0)
    result = train(cfg, log=lambda *a: None)
    policy = load(str(tmp_path / "run" / "final.npz"))
    assert policy.meta["prior"] == {"bot": "greedy", "weight": 3.0}
    assert policy.meta["options"] == {"rounds": 1} and policy.meta["trained"]["timesteps"] >= 512
    assert [w.shape for w, _ in policy.layers] == [(16, policy.observation_size)]
    # The evaluation played the exported checkpoint, and so can the arena.
    assert result["eval"][0]["games"] == 8
    res = run_arena("scout", 2, [f"neural:path={policy.source}", "random"], games=8, seed=0, workers=1,
                    options={"rounds": 1}, progress=False)
    assert res.games == 8 and res.truncated == 0


@pytest.mark.train
def test_recipe_settings_are_checked():
    from sly_scout_env.agents.training.ppo import TrainConfig

    with pytest.raises(ValueError, match="prior='greedy' needs the fast engine"):
        TrainConfig("scout", players=2, prior="greedy").check()
    with pytest.raises(ValueError, match="warm_start and prior do not combine"):
        TrainConfig("scout", players=2, fast=True, opponents=["greedy"], self_play=0, prior="greedy",
                    warm_start="greedy").check()
    with pytest.raises(ValueError, match="prior_weight=0 is not allowed"):
        TrainConfig("scout", players=2, fast=True, opponents=["greedy"], self_play=0, prior="greedy",
                    prior_weight=0).check()


@pytest.mark.train
def test_warm_start_clones_the_teacher_well_above_chance():
    """Behaviour cloning greedy on 2-player Sly: held-out agreement well above a random legal pick."""
    import torch
    from sb3_contrib import MaskablePPO

    from sly_scout_env.agents.training.ppo import TrainConfig
    from sly_scout_env.agents.training.warm_start import collect, fit
    from sly_scout_env.sb3_vec import SingleAgentVecEnv

    torch.manual_seed(0)
    cfg = TrainConfig("sly", players=2, fast=True, opponents=["greedy"], self_play=0, n_envs=32,
                      warm_start="greedy").check()
    data = collect(cfg, "greedy", 6000, seed=3, log=lambda *a: None)
    chance = float(np.mean(1.0 / data["masks"].sum(axis=1)))
    venv = SingleAgentVecEnv("sly", 4, opponents="greedy", learner_seat="rotate", reward="win", seed=0, num_players=2)
    model = MaskablePPO("MlpPolicy", venv, policy_kwargs={"net_arch": [64, 64]}, device="cpu", seed=0)
    metrics = fit(model.policy, data, epochs=4, learning_rate=1e-3, seed=0, log=lambda *a: None)
    assert metrics["accuracy"] > chance + 0.15, (metrics, chance)  # measured: 0.376 vs chance 0.174


# The shipped checkpoints that beat greedy (benchmarks/strength.jsonl, docs/training.md):
# (game, players) -> (arena games, required margin of the interval's lower end over parity).
# Measured: Sly 2p 0.86, Sly 3p 0.61 (parity 0.33); Scout 2p 0.83, 3p 0.69-0.70 (parity 0.33) and 4p
# 0.51-0.56 (parity 0.25), PPO from the distilled networks; 5p 0.41 (parity 0.20), distilled from the expert.
BEATS_GREEDY = {("sly", 2): (100, 0.1), ("sly", 3): (120, 0.1), ("scout", 2): (200, 0.1), ("scout", 3): (201, 0.05),
                ("scout", 4): (200, 0.05), ("scout", 5): (200, 0.05)}


@pytest.mark.parametrize("table", sorted(BEATS_GREEDY))
def test_neural_beats_greedy_in_a_small_arena(table):
    """neural's 95% Wilson interval lies above parity (plus a margin), one neural seat against greedy.

    At these sizes a bot at parity passes with a chance far below one in a hundred.
    """
    game, players = table
    assert table in SHIPPED_TABLES
    games, margin = BEATS_GREEDY[table]
    agents = ["neural"] + ["greedy"] * (players - 1)
    res = run_arena(game, players, agents, games=games, seed=99, workers=1, progress=False)
    me = res.stats[0]
    assert me.name == "neural"
    assert me.win_rate_ci95[0] > 1 / players + margin, (me.win_rate, me.win_rate_ci95)


@pytest.mark.train
def test_export_command_turns_a_maskableppo_zip_into_a_checkpoint_that_plays_alike(tmp_path):
    from sb3_contrib import MaskablePPO

    from sly_scout_env.agents.bots.ppo import load_policy
    from sly_scout_env.agents.training.export_neural import main
    from sly_scout_env.sb3_vec import SingleAgentVecEnv

    venv = SingleAgentVecEnv("sly", 2, opponents="random", learner_seat="rotate", reward="win", seed=0, num_players=3)
    MaskablePPO("MlpPolicy", venv, policy_kwargs={"net_arch": [8]}, device="cpu", seed=0).save(str(tmp_path / "m.zip"))
    with pytest.raises(ValueError, match="does not say which game"):
        main([str(tmp_path / "m.zip"), str(tmp_path / "m.npz")])
    assert main([str(tmp_path / "m.zip"), str(tmp_path / "m.npz"), "--game", "sly", "--players", "3",
                 "--command", "python make_it.py"]) == 0
    ours, theirs = load(str(tmp_path / "m.npz")), load_policy(str(tmp_path / "m.zip"))
    assert ours.meta["trained"]["command"] == "python make_it.py" and ours.meta["options"] == {}
    obs = np.random.default_rng(0).normal(size=(20, ours.observation_size)).astype(np.float32)
    np.testing.assert_allclose(ours.logits(obs), theirs.logits(obs), rtol=1e-4, atol=1e-5)
