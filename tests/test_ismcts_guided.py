"""The network inside the compiled search: the PUCT prior, the value cut-off, the root's noise.

Against literal expectations: a value network of constant output makes every backed-up
value that constant; a prior that puts all its mass on one move sends the visits there;
the numpy and compiled value networks agree; the Dirichlet draws have the right mean.
Then the guided expert in play: legal moves in every option set, the same moves whatever
the thread count, moves that do not depend on cards the seat cannot know, and the
refusals of bad guide settings.
"""

from __future__ import annotations

import math

import numba
import numpy as np
import pytest

from sly_scout_env import ismcts as K
from sly_scout_env.agents import make
from sly_scout_env.agents.bots.ismcts import search_role
from sly_scout_env.games import get_game
from sly_scout_env.kernels import net_value
from sly_scout_env.netfile import CheckpointError, load
from sly_scout_env.netpolicy import obs_size, search_nets
from sly_scout_env.scout import search as SS
from sly_scout_env.views import player_view

from .agents.test_ismcts_scout import _swap_hidden, _with_known_cards
from .agents.test_ismcts_sly import _twin_states as _sly_twins
from .games import play_bots
from .nets import random_expert, random_scorer
from .test_ismcts import _option_sets, _root

GAMES = [("sly", 2), ("sly", 4), ("scout", 2), ("scout", 4)]


def _saved(tmp_path, net, name="net.npz"):
    return net.save(str(tmp_path / name))


@pytest.mark.parametrize("game,players", [("sly", 3), ("scout", 2)])
def test_a_constant_value_network_is_what_every_simulation_backs_up(game, players):
    env, seat, role, ad, row = _root(game, players)
    net = random_expert(game, players, value_bias=0.8)
    search = K.CompiledSearch(ad, role.KERNELS, iterations=120, guide=net, guide_prior=False, guide_value=True,
                              guide_c=1.0)
    search.search(row, seat, np.random.default_rng(0))
    root = search.last_root
    v = 1.0 / (1.0 + math.exp(-0.8))
    assert root.visits == 120
    for ch in root.children.values():
        for s in range(players):
            assert ch.value[s] == pytest.approx(v * ch.visits, rel=1e-5)


@pytest.mark.parametrize("game,players", [("sly", 2), ("scout", 3)])
def test_a_prior_on_one_move_sends_the_visits_to_it(game, players):
    env, seat, role, ad, row = _root(game, players)
    legal = np.flatnonzero(env.legal_action_mask())
    n = ad.edge_keys(row, seat, np.zeros(ad.num_actions + 1, np.int64), np.zeros(ad.num_actions + 1, np.int64))
    assert n > 1
    favourite = int(legal[-1])
    net = random_expert(game, players, favourite=favourite, value_bias=0.0)
    search = K.CompiledSearch(ad, role.KERNELS, iterations=200, guide=net, guide_value=True, guide_c=50.0)
    assert search.search(row, seat, np.random.default_rng(0)) == favourite
    acts, visits = search.root_visits()
    assert visits[list(acts).index(favourite)] > 0.9 * visits.sum()
    assert visits.sum() == 200


@pytest.mark.parametrize("game,players", GAMES)
def test_the_compiled_value_network_matches_numpy(game, players):
    net = random_expert(game, players, seed=3)
    nets, ip, iv = search_nets(net)
    assert (ip, iv) == (0, 1)
    rng = np.random.default_rng(0)
    obs = np.zeros(obs_size(net.observation_size, nets), dtype=np.float32)
    for _ in range(20):
        x = (rng.random(net.observation_size) < 0.1).astype(np.float32) * rng.integers(1, 4, net.observation_size)
        obs[: net.observation_size] = x
        assert net_value(nets, iv, obs) == pytest.approx(float(net.value(x)), rel=1e-4, abs=1e-6)


def test_the_value_network_survives_a_save_and_load(tmp_path):
    net = random_expert("scout", 3, seed=5)
    back = load(_saved(tmp_path, net))
    assert back.has_value
    x = np.random.default_rng(1).random(net.observation_size).astype(np.float32)
    assert float(back.value(x)) == pytest.approx(float(net.value(x)))
    np.testing.assert_array_equal(back.logits(x), net.logits(x))


def test_a_bad_value_network_is_refused_naming_the_layer(tmp_path):
    net = random_expert("sly", 2)
    layers, (w, b) = net.value_net
    with pytest.raises(CheckpointError, match="the value output layer gives 2 values"):
        type(net)(net.layers, net.head, net.meta, value_net=(layers, (np.vstack([w, w]), np.concatenate([b, b]))))
    with pytest.raises(CheckpointError, match="value layer 0 holds non-finite weights"):
        bad = [(np.full_like(layers[0][0], np.nan), layers[0][1])]
        type(net)(net.layers, net.head, net.meta, value_net=(bad, (w, b)))
    path = _saved(tmp_path, net)
    arrays = dict(np.load(path, allow_pickle=False))
    del arrays["vb_out"]
    np.savez(str(tmp_path / "cut.npz"), **arrays)
    with pytest.raises(CheckpointError, match=r"the value output layer \(vw_out, vb_out\) is missing"):
        load(str(tmp_path / "cut.npz"))


def test_a_checkpoint_without_a_value_network_cannot_end_simulations():
    with pytest.raises(CheckpointError, match="has no value network"):
        search_nets(random_scorer(2), value=True)
    nets, ip, iv = search_nets(random_scorer(2), value=False)
    assert (ip, iv) == (0, -1) and len(nets) > 0


def test_the_dirichlet_draws_have_the_mean_of_their_concentration():
    rng = np.zeros(1, dtype=np.int64)
    rng[0] = 12345
    for alpha in (0.3, 1.0, 2.5):
        draws = [K._gamma(rng, alpha) for _ in range(20000)]
        assert np.mean(draws) == pytest.approx(alpha, rel=0.05)
        assert np.var(draws) == pytest.approx(alpha, rel=0.12)  # Gamma(alpha, 1): variance alpha
        assert min(draws) > 0


@pytest.mark.parametrize("game,players", GAMES)
def test_the_guided_expert_plays_legal_moves_in_every_option_set(game, players, tmp_path):
    spec = get_game(game)
    for k, options in enumerate(_option_sets(spec)):
        if "rounds" in spec.option_names and "rounds" not in options:
            options = dict(options, rounds=1)
        path = _saved(tmp_path, random_expert(game, players, options=options), f"net{k}.npz")
        bots = [make("ismcts", game=game, iterations=12, guide="neural", guide_path=path, noise=0.25)
                for _ in range(players)]
        assert play_bots(game, players, options, 3 + k, bots)


@pytest.mark.parametrize("use", [dict(guide_prior=False, guide_value=True), dict(guide_value=False), {},
                                 dict(guide_opponents=False)])
def test_the_guided_expert_gives_the_same_moves_whatever_the_thread_count(use, tmp_path):
    before = numba.get_num_threads()
    runs = []
    paths = {g: _saved(tmp_path, random_expert(g, p), f"{g}.npz") for g, p in (("sly", 3), ("scout", 2))}
    try:
        for threads in (1, numba.config.NUMBA_NUM_THREADS):
            numba.set_num_threads(threads)
            for game, players in (("sly", 3), ("scout", 2)):
                options = {"rounds": 1} if "rounds" in get_game(game).option_names else {}
                bots = [make("ismcts", game=game, iterations=30, guide="neural", guide_path=paths[game], noise=0.25,
                             **use) for _ in range(players)]
                runs.append(play_bots(game, players, options, 11, bots))
    finally:
        numba.set_num_threads(before)
    half = len(runs) // 2
    assert runs[:half] == runs[half:]


def _twins(game):
    """Two envs whose positions seat 0 cannot tell apart (hidden cards dealt otherwise)."""
    if game == "sly":
        return _sly_twins()
    env = _with_known_cards(4, 12)
    d2 = _swap_hidden(env.state_dict(), 0)
    env2 = get_game("scout").raw_env(num_players=4)
    env2.reset(seed=0)
    env2.from_state_dict(d2)
    return env, env2


@pytest.mark.parametrize("game", ["sly", "scout"])
@pytest.mark.parametrize("use", [dict(guide_prior=False, guide_value=True), dict(guide_value=False), {},
                                 dict(guide_opponents=False)])
def test_the_guided_search_does_not_peek(game, use, tmp_path):
    a, b = _twins(game)
    players = a.num_players
    da, db = a.state_dict(), b.state_dict()
    assert da["hands"] != db["hands"] and player_view(da, 0) == player_view(db, 0)
    path = _saved(tmp_path, random_expert(game, players))
    moves, roots = [], []
    for env in (a, b):
        bot = make("ismcts", game=game, iterations=80, guide="neural", guide_path=path, noise=0.25, **use)
        bot.reset(2024, game=game, num_players=players, seat=0, options={})
        o = env.observe(env.agent_selection)
        moves.append(bot.act(o["observation"], o["action_mask"], {"view": player_view(env.state_dict(), 0)}))
        roots.append({k: (ch.visits, tuple(ch.value)) for k, ch in bot.search.last_root.children.items()})
    assert moves[0] == moves[1]
    assert roots[0] == roots[1]  # the whole search is the same, not just its answer
    assert a.legal_action_mask()[moves[0]] == 1


def _priors_by_mover(game, players, **kw):
    """Search a position with a guide; for each expanded child of the root, the seat to move
    there and the priors of the edges the search registered at it."""
    env, seat, role, ad, row = _root(game, players)
    search = K.CompiledSearch(ad, role.KERNELS, iterations=300, guide=random_expert(game, players), guide_c=1.0, **kw)
    search.search(row, seat, np.random.default_rng(3))
    ti, tf, ek, ev, ep, meta = search.tree
    legal, keys = np.zeros(ad.num_actions + 1, np.int64), np.zeros(ad.num_actions + 1, np.int64)
    n = ad.edge_keys(row, seat, legal, keys)
    used = ek != K.E_EMPTY
    owner = np.where(used, ek >> 32, -1)  # an edge's node: the packed key's upper half
    children = []
    for i in range(n):
        child = ev[K._slot(ek, K._pack(0, keys[i]))]
        if child < 0 or ti[child, K.T_VISITS] < 2:
            continue  # (a child seen once is a leaf: it registered no edges)
        after = get_game(game).raw_env(num_players=players)
        after.reset(seed=0)
        after.from_state_dict(env.state_dict())
        after.step(int(legal[i]))
        if not after.agents:
            continue
        children.append((after.agent_name_mapping[after.agent_selection], ep[owner == child]))
    return seat, ep[owner == 0], children


@pytest.mark.parametrize("game,players", [("scout", 2), ("sly", 3)])
def test_without_guide_opponents_only_the_searching_seats_nodes_get_a_prior(game, players):
    seat, root, children = _priors_by_mover(game, players, guide_opponents=False)
    assert len(root) > 1 and not np.isnan(root).any()  # the root: the searching seat's node, guided
    theirs = [p for mover, p in children if mover != seat]
    assert theirs and all(len(p) > 0 and np.isnan(p).all() for p in theirs)  # UCB there: no prior
    mine = [p for mover, p in children if mover == seat]
    assert all(not np.isnan(p).any() for p in mine)
    seat, root, children = _priors_by_mover(game, players)  # the default: every seat's nodes guided
    theirs = [p for mover, p in children if mover != seat]
    assert theirs and all(len(p) > 0 and not np.isnan(p).any() for p in theirs)


def test_a_guide_for_another_table_is_refused(tmp_path):
    path = _saved(tmp_path, random_expert("scout", 3))
    bot = make("ismcts", game="scout", guide="neural", guide_path=path)
    with pytest.raises(CheckpointError, match="scout with 3 players"):
        bot.reset(0, game="scout", num_players=2, seat=0, options={})


def test_the_search_roles_provide_observe_and_logits():
    for game in ("sly", "scout"):
        kernels = dict(zip(K.KERNEL_NAMES, search_role(game).KERNELS))
        assert kernels["observe"].__name__ == "k_observe" and kernels["logits"].__name__ == "k_logits"


@pytest.mark.parametrize("game,players", [("sly", 2), ("scout", 2)])
def test_a_mixed_leaf_backs_up_the_value_and_the_rollout_half_each(game, players):
    env, seat, role, ad, row = _root(game, players)
    net = random_expert(game, players, value_bias=0.0)  # the value network says 0.5 everywhere
    search = K.CompiledSearch(ad, role.KERNELS, iterations=120, guide=net, guide_prior=False, guide_value=True,
                              value_mix=0.5)
    search.search(row, seat, np.random.default_rng(0))
    means = [ch.value[s] / ch.visits for ch in search.last_root.children.values() for s in range(players)]
    assert all(0.25 - 1e-9 <= m <= 0.75 + 1e-9 for m in means)  # 0.5 * 0.5 + 0.5 * a reward in [0, 1]
    assert len({round(m, 9) for m in means}) > 1  # the rollouts count: not the constant alone


def test_the_expert_takes_its_tuning_from_the_checkpoint(tmp_path):
    net = random_expert("sly", 2)
    net.meta["expert"] = {"iterations": 17, "guide_c": 2.5, "value_mix": 0.5, "guide_temperature": 2}
    path = _saved(tmp_path, net)
    bot = make("expert", game="sly", path=path)
    bot.reset(0, game="sly", num_players=2, seat=0, options={})
    assert bot.params["iterations"] == 17 and bot.guide_c == 2.5
    assert bot.search.fcfg[K.F_VALUE_MIX] == 0.5 and bot.search.cfg[K.C_CUTOFF] >= 0
    assert bot.search.fcfg[K.F_GUIDE_T] == 2.0
    mine = make("expert", game="sly", path=path, iterations=9, guide_value=False)
    mine.reset(0, game="sly", num_players=2, seat=0, options={})
    assert mine.params["iterations"] == 9 and mine.search.cfg[K.C_CUTOFF] == -1  # what is given wins
    shipped = make("expert", game="sly")
    shipped.reset(0, game="sly", num_players=2, seat=0, options={})
    assert shipped.search.cfg[K.C_GUIDE] >= 0 and shipped.params["iterations"] == 300
    assert play_bots("sly", 2, {}, 1, [bot, make("greedy", game="sly")])
    with pytest.raises(ValueError, match="expert takes no 'engine'"):
        make("expert", game="sly", engine="python")
    with pytest.raises(ValueError, match=r"value_mix=0 is not allowed; give a number in \(0, 1\]"):
        make("expert", game="sly", value_mix=0)
    net.meta["expert"] = {"guide_opponents": False}
    theirs = make("expert", game="sly", path=_saved(tmp_path, net, "mine.npz"))
    theirs.reset(0, game="sly", num_players=2, seat=0, options={})
    assert theirs.search.cfg[K.C_GUIDE_OPPONENTS] == 0 and bot.search.cfg[K.C_GUIDE_OPPONENTS] == 1
    net.meta["expert"] = {"guide_opponents": "no"}
    bad = make("expert", game="sly", path=_saved(tmp_path, net, "bad_opp.npz"))
    with pytest.raises(ValueError, match="guide_opponents='no' is not allowed"):
        bad.reset(0, game="sly", num_players=2, seat=0, options={})
    net.meta["expert"] = {"guide_temperature": -1}  # a checkpoint's bad tuning is refused by name too
    bad = make("expert", game="sly", path=_saved(tmp_path, net, "bad.npz"))
    with pytest.raises(ValueError, match="guide_temperature=-1 is not allowed"):
        bad.reset(0, game="sly", num_players=2, seat=0, options={})
    net.meta["expert"] = {"value": "lead", "score_scale": 10.0}  # the search's reward is tunable too
    lead = make("expert", game="sly", path=_saved(tmp_path, net, "lead.npz"))
    lead.reset(0, game="sly", num_players=2, seat=0, options={})
    assert lead.search.cfg[K.C_VALUE] == K.VALUE_LEAD and lead.search.fcfg[K.F_SCORE_SCALE] == 10.0
    assert bot.search.cfg[K.C_VALUE] != K.VALUE_LEAD and bot.search.fcfg[K.F_SCORE_SCALE] == 5.0
    net.meta["expert"] = {"opponents": "policy"}  # and the model of the other seats in the tree
    policy = make("expert", game="sly", path=_saved(tmp_path, net, "policy.npz"))
    policy.reset(0, game="sly", num_players=2, seat=0, options={})
    assert policy.search.cfg[K.C_OPPONENTS] == K.OPP_POLICY and bot.search.cfg[K.C_OPPONENTS] == K.OPP_HYBRID
    net.meta["expert"] = {"opponents": "greedy"}
    bad = make("expert", game="sly", path=_saved(tmp_path, net, "bad_opponents.npz"))
    with pytest.raises(ValueError, match="opponents='greedy' is not allowed; allowed values: tree, hybrid, policy"):
        bad.reset(0, game="sly", num_players=2, seat=0, options={})
    net.meta["expert"] = {"value": "best"}
    bad = make("expert", game="sly", path=_saved(tmp_path, net, "bad_value.npz"))
    with pytest.raises(ValueError, match="value='best' is not allowed; allowed values: win, score, mixed, lead"):
        bad.reset(0, game="sly", num_players=2, seat=0, options={})


@pytest.mark.slow
def test_the_compiled_guided_search_plays_as_well_as_the_python_one():
    # Both guided by the shipped Sly 2p network (prior only, as the Python search knows it), at
    # equal iterations, duplicate deals, every seating; 600 games (see test_ismcts.py for why).
    from sly_scout_env.agents import run_arena

    result = run_arena("sly", 2, ["ismcts:iterations=40:guide=neural",
                                  "ismcts:iterations=40:guide=neural:engine=python"],
                       games=600, seed=23, workers=2, progress=False)
    compiled = next(s for s in result.stats if "engine" not in s.spec)
    assert result.games >= 600
    lo, hi = compiled.win_rate_ci95
    assert hi >= 0.5, (compiled.win_rate, lo, hi)


def test_the_expert_bot_uses_a_shipped_expert_network_where_there_is_one():
    from sly_scout_env.games import all_games
    from sly_scout_env.netfile import shipped_expert_for, shipped_for

    experts = [(spec.name, f.name) for spec in all_games() for f in spec.expert_files()]
    assert {("sly", "sly_3p.npz"), ("scout", "scout_5p.npz")} <= set(experts)
    net = shipped_expert_for("sly", 3)
    assert net.has_value and net.meta["trained"]["command"].startswith("sly-scout exit sly --players 3")
    assert net.meta["expert"]["guide_value"] is True and net.meta["expert"]["iterations"] > 0
    bot = make("expert", game="sly")
    bot.reset(0, game="sly", num_players=3, seat=0, options={})
    assert bot._guide_agent.policy.source == net.source and bot.search.cfg[K.C_CUTOFF] >= 0
    assert bot.params["iterations"] == net.meta["expert"]["iterations"]
    assert bot.guide_c == net.meta["expert"]["guide_c"] == 2.0  # its PUCT constant, tuned at 55 ms a move
    bot.reset(0, game="sly", num_players=2, seat=0, options={})  # a table without one: the neural checkpoint
    assert shipped_expert_for("sly", 2) is None
    assert bot._guide_agent.policy.source == shipped_for("sly", 2).source and bot.search.cfg[K.C_CUTOFF] == -1
    assert bot.params["iterations"] == 300  # (the 3-player network's tuning does not carry over)
    # The neural checkpoint's own tuning (measured: docs/strength.md) sets the PUCT constant.
    assert bot.guide_c == shipped_for("sly", 2).meta["expert"]["guide_c"] == 1.0
    bot.reset(0, game="sly", num_players=4, seat=0, options={})
    assert "guide_c" not in (shipped_for("sly", 4).meta.get("expert") or {})
    assert bot.guide_c == make("ismcts", game="sly", guide="neural").guide_c  # untuned there: the default
    scout = make("expert", game="scout")
    # Scout 2p, 4p and 5p: the expert keeps the network it was measured with, not the newer neural one.
    for players in (2, 4, 5):
        scout.reset(0, game="scout", num_players=players, seat=0, options={})
        kept = shipped_expert_for("scout", players)
        assert scout._guide_agent.policy.source == kept.source != shipped_for("scout", players).source
        # 1.0 at 2p since 2026-12-08 (docs/strength.md, "The Scout 2p expert's PUCT constant again"), else 0.5.
        tuned = 1.0 if players == 2 else 0.5
        assert scout.guide_c == kept.meta["expert"]["guide_c"] == tuned
        assert scout.search.fcfg[K.F_GUIDE_C] == tuned  # over Scout's bot default (0.1)
        assert scout.search.cfg[K.C_VALUE] == K.VALUE_SCORE  # "lead" was level there: Scout's default stays
        # The other seats play greedy inside the tree where that led at equal time (2p, 4p), not at 5p.
        want = K.OPP_HYBRID if players == 5 else K.OPP_POLICY
        assert scout.search.cfg[K.C_OPPONENTS] == want, players
        assert scout.search.cfg[K.C_POLICY_LEAF] == 0  # the leaf rule: behind at 2p and 5p, level at 4p
        # a flatter prior led at 2p on four seeds with the policy model (docs/strength.md); not elsewhere
        assert scout.search.fcfg[K.F_GUIDE_T] == (2.0 if players == 2 else 1.0), players
        # an unvisited move valued below its parent's mean led at 2p on four seeds (2026-12-08); not screened elsewhere
        assert scout.search.fcfg[K.F_FPU] == (0.1 if players == 2 else 0.0), players
    # Scout 3p: the neural (PPO) network serves inside too, with its own tuning (it led inside the search).
    scout.reset(0, game="scout", num_players=3, seat=0, options={})
    assert shipped_expert_for("scout", 3) is None
    assert scout._guide_agent.policy.source == shipped_for("scout", 3).source
    assert scout.search.fcfg[K.F_GUIDE_C] == shipped_for("scout", 3).meta["expert"]["guide_c"] == 0.5
    # ... and its reward: the margin over the best other seat (it led at 3p, docs/strength.md)
    assert shipped_for("scout", 3).meta["expert"]["value"] == "lead" and scout.search.cfg[K.C_VALUE] == K.VALUE_LEAD
    assert shipped_for("scout", 3).meta["expert"]["opponents"] == "policy"  # ... and its model of the others
    assert scout.search.cfg[K.C_OPPONENTS] == K.OPP_POLICY
    assert scout.search.cfg[K.C_POLICY_LEAF] == 0  # (the leaf rule: level on the seeds not used to pick it)
    given = make("expert", game="scout", guide_c=0.1, value="score")  # given parameters win over the tuning
    given.reset(0, game="scout", num_players=3, seat=0, options={})
    assert given.search.fcfg[K.F_GUIDE_C] == 0.1 and given.search.cfg[K.C_VALUE] == K.VALUE_SCORE
    assert play_bots("sly", 3, {}, 2, [make("expert", game="sly", iterations=20)]
                     + [make("greedy", game="sly") for _ in range(2)])


@pytest.mark.parametrize("game,players", [("scout", 4), ("sly", 3)])
def test_with_policy_leaf_a_node_behind_the_others_moves_waits_for_its_second_visit(game, players):
    """``policy_leaf``: a node first reached through the other seats' policy moves ends the
    descent, so no node gets the network's prior (or its edges) on its first visit."""
    env, seat, role, ad, row = _root(game, players)
    counts = {}
    for leaf in (True, False):
        search = K.CompiledSearch(role.SearchAdapter(players, {}), role.KERNELS, iterations=300, opponents="policy",
                                  policy_leaf=leaf, guide=random_expert(game, players), guide_c=1.0)
        action = search.search(row, seat, np.random.default_rng(5))
        assert env.legal_action_mask()[action] == 1 and search.last_root.visits == 300
        ti, tf, ek, ev, ep, meta = search.tree
        owners = np.unique((ek >> 32)[(ek != K.E_EMPTY) & ~np.isnan(ep)])  # the nodes that got a prior
        counts[leaf] = np.bincount(np.minimum(ti[owners, K.T_VISITS], 2), minlength=3)
    assert counts[True][1] == 0 and counts[True][0] == 0 and counts[True][2] >= 1  # (the root at least)
    assert counts[False][1] > 0  # (without it, nodes seen once were expanded)


@pytest.mark.parametrize("engine", ["compiled", "python"])
def test_with_policy_leaf_an_unguided_iteration_adds_at_most_one_node(engine):
    env, seat, role, ad, row = _root("scout", 4)
    sizes = {}
    for leaf in (True, False):
        bot = make("ismcts", game="scout", iterations=150, opponents="policy", policy_leaf=leaf, engine=engine)
        bot.reset(0, game="scout", num_players=4, seat=seat, options={})
        search = bot.search
        assert search.search(row, seat, np.random.default_rng(2)) in np.flatnonzero(env.legal_action_mask())
        if engine == "compiled":
            sizes[leaf] = int(search.tree[5][K.M_NODES])
        else:
            stack, sizes[leaf] = [search.last_root], 0
            while stack:
                node = stack.pop()
                sizes[leaf] += 1
                stack.extend(node.children.values())
    assert sizes[True] <= 151 < sizes[False]


def test_policy_leaf_is_refused_without_the_policy_model_and_dropped_from_a_checkpoint_then(tmp_path):
    with pytest.raises(ValueError, match="policy_leaf=true applies to opponents=policy only"):
        make("ismcts", game="scout", opponents="hybrid", policy_leaf=True)
    with pytest.raises(ValueError, match="policy_leaf='yes' is not allowed; give true or false"):
        make("ismcts", game="scout", opponents="policy", policy_leaf="yes")
    net = random_expert("sly", 2)
    net.meta["expert"] = {"opponents": "policy", "policy_leaf": True}
    path = _saved(tmp_path, net, "leaf.npz")
    bot = make("expert", game="sly", path=path)
    bot.reset(0, game="sly", num_players=2, seat=0, options={})
    assert bot.search.cfg[K.C_POLICY_LEAF] == 1 and bot.search.cfg[K.C_OPPONENTS] == K.OPP_POLICY
    other = make("expert", game="sly", path=path, opponents="hybrid")  # another model asked for: no leaf rule
    other.reset(0, game="sly", num_players=2, seat=0, options={})
    assert other.search.cfg[K.C_POLICY_LEAF] == 0 and other.search.cfg[K.C_OPPONENTS] == K.OPP_HYBRID
    net.meta["expert"] = {"opponents": "policy", "policy_leaf": 2}
    bad = make("expert", game="sly", path=_saved(tmp_path, net, "bad_leaf.npz"))
    with pytest.raises(ValueError, match="policy_leaf=2 is not allowed"):
        bad.reset(0, game="sly", num_players=2, seat=0, options={})


@pytest.mark.parametrize("engine", ["compiled", "python"])
def test_opponent_policy_is_the_other_seats_model_in_the_tree(engine):
    env, seat, role, ad, row = _root("scout", 3)
    roots = {}
    for name in (None, "greedy", "random", "neural"):
        given = {} if name is None else {"opponent_policy": name}
        bot = make("ismcts", game="scout", iterations=120, opponents="policy", engine=engine, **given)
        bot.reset(0, game="scout", num_players=3, seat=seat, options={})
        assert bot.search.search(row, seat, np.random.default_rng(3)) in np.flatnonzero(env.legal_action_mask())
        roots[name] = {k: ch.visits for k, ch in bot.search.last_root.children.items()}
    assert roots[None] == roots["greedy"]  # by default the rollout's policy (greedy)
    assert roots["random"] != roots["greedy"] and roots["neural"] != roots["greedy"]


def test_opponent_policy_is_refused_without_the_policy_model_and_read_from_a_checkpoint(tmp_path):
    with pytest.raises(ValueError, match="opponent_policy=neural applies to opponents=policy only"):
        make("ismcts", game="scout", opponent_policy="neural")
    with pytest.raises(ValueError, match="opponent_policy='smart' is not allowed; allowed values: random, greedy, "
                                         "neural"):
        make("ismcts", game="scout", opponents="policy", opponent_policy="smart")
    net = random_expert("sly", 2)
    net.meta["expert"] = {"opponents": "policy", "opponent_policy": "random"}
    path = _saved(tmp_path, net, "opp.npz")
    for given, random_model in (({}, True), ({"opponents": "hybrid"}, False), ({"opponent_policy": "greedy"}, False)):
        bot = make("expert", game="sly", path=path, **given)
        bot.reset(0, game="sly", num_players=2, seat=0, options={})
        cfg = bot.search.cfg
        assert bool(cfg[K.C_OPPONENT_POLICY] != cfg[K.C_ROLLOUT]) is random_model, given
        assert cfg[K.C_OPPONENT_POLICY] == bot.search.adapter.policy_id("random" if random_model else "greedy")
    with pytest.raises(ValueError, match="opponent_policy=neural applies to opponents=policy only"):
        make("expert", game="sly", path=path, opponent_policy="neural", opponents="tree")
    net.meta["expert"] = {"opponents": "policy", "opponent_policy": "smart"}
    bad = make("expert", game="sly", path=_saved(tmp_path, net, "bad_opp.npz"))
    with pytest.raises(ValueError, match="opponent_policy='smart' is not allowed"):
        bad.reset(0, game="sly", num_players=2, seat=0, options={})


def test_the_expert_takes_policy_leaf_with_the_checkpoints_policy_model(tmp_path):
    net = random_expert("sly", 2)
    net.meta["expert"] = {"value": "lead", "opponents": "policy"}  # (read before opponents: no error on the way)
    bot = make("expert", game="sly", path=_saved(tmp_path, net, "policy.npz"), policy_leaf=True)
    bot.reset(0, game="sly", num_players=2, seat=0, options={})
    assert bot.search.cfg[K.C_POLICY_LEAF] == 1 and bot.search.cfg[K.C_OPPONENTS] == K.OPP_POLICY
    with pytest.raises(ValueError, match="policy_leaf=true applies to opponents=policy only"):
        make("expert", game="sly", path=_saved(tmp_path, net, "p2.npz"), policy_leaf=True, opponents="tree")
    net.meta["expert"] = {}  # the checkpoint's model is the default one: refused when the table is known
    plain = make("expert", game="sly", path=_saved(tmp_path, net, "plain.npz"), policy_leaf=True)
    with pytest.raises(ValueError, match=r"applies to opponents=policy only \(here opponents=hybrid\)"):
        plain.reset(0, game="sly", num_players=2, seat=0, options={})


def test_the_expert_takes_the_game_adapters_own_parameters_from_the_checkpoint(tmp_path):
    net = random_expert("scout", 2)
    net.meta["expert"] = {"belief": 3, "prune": False}
    path = _saved(tmp_path, net, "belief.npz")
    for given, belief, prune in (({}, 3, False), ({"belief": 0}, 0, False), ({"prune": True}, 3, True)):
        bot = make("expert", game="scout", path=path, **given)
        bot.reset(0, game="scout", num_players=2, seat=0, options={})
        assert (bot.search.adapter.belief, bot.search.adapter.prune) == (belief, prune), given
        iw, fw, prm = bot.search.adapter.workspace()
        assert prm[SS.P_BELIEF] == belief
    net.meta["expert"] = {"belief": -2}
    bad = make("expert", game="scout", path=_saved(tmp_path, net, "bad_belief.npz"))
    with pytest.raises(ValueError, match="belief=-2 is not allowed"):
        bad.reset(0, game="scout", num_players=2, seat=0, options={})


def test_a_large_fpu_reduction_keeps_the_search_on_the_moves_it_has_tried():
    """``fpu_reduction=1``: an unvisited edge is worth the parent's mean less 1, below every
    visited edge's mean while its exploration term is small, so at a small ``guide_c`` the root
    keeps the first edge it tried; at the default (0) a flattened prior sends visits to others
    too, and at -1 every available edge is tried before any is tried twice."""
    env, seat, role, ad, row = _root("scout", 2)
    net = random_expert("scout", 2, value_bias=0.0)
    visited = {}
    for reduction in (-1.0, 0.0, 1.0):
        search = K.CompiledSearch(ad, role.KERNELS, iterations=60, guide=net, guide_value=False, guide_c=0.3,
                                  guide_temperature=4.0, fpu_reduction=reduction)
        assert search.fcfg[K.F_FPU] == reduction
        search.search(row, seat, np.random.default_rng(0))
        acts, visits = search.root_visits()
        assert visits.sum() == 60
        visited[reduction] = int((visits > 0).sum())
    assert visited[1.0] == 1 and visited[0.0] > 1, visited
    assert visited[-1.0] > visited[0.0], visited
    legal = np.zeros(ad.num_actions + 1, np.int64)
    assert visited[-1.0] == ad.edge_keys(row, seat, legal, legal.copy())  # (fewer than 60 edges here)


def test_fpu_reduction_is_checked_and_read_from_the_checkpoint(tmp_path):
    for bad in (-1.5, 1.5, float("nan"), True, "half"):
        with pytest.raises(ValueError, match=f"fpu_reduction={bad!r} is not allowed; give a number in \\[-1, 1\\]"):
            make("ismcts", game="scout", guide="neural", fpu_reduction=bad)
    with pytest.raises(ValueError, match="give guide=neural with them"):
        make("ismcts", game="scout", fpu_reduction=0.2)
    with pytest.raises(ValueError, match="run on engine=compiled only"):
        make("ismcts", game="scout", guide="neural", fpu_reduction=0.2, engine="python")
    net = random_expert("scout", 2)
    net.meta["expert"] = {"fpu_reduction": 0.25}
    path = _saved(tmp_path, net)
    bot = make("expert", game="scout", path=path)
    bot.reset(0, game="scout", num_players=2, seat=0, options={})
    assert bot.search.fcfg[K.F_FPU] == 0.25
    mine = make("expert", game="scout", path=path, fpu_reduction=0.0)
    mine.reset(0, game="scout", num_players=2, seat=0, options={})
    assert mine.search.fcfg[K.F_FPU] == 0.0  # what is given wins
    net.meta["expert"] = {"fpu_reduction": 2}
    bad = make("expert", game="scout", path=_saved(tmp_path, net, "bad.npz"))
    with pytest.raises(ValueError, match="fpu_reduction=2 is not allowed"):
        bad.reset(0, game="scout", num_players=2, seat=0, options={})
