"""Information-set Monte Carlo tree search (ISMCTS), game-agnostic.

Algorithm
---------
Single-observer ISMCTS (SO-ISMCTS, Cowling, Powley & Whitehouse 2012) with
availability counts. The tree belongs to the bot (the *observer*); each iteration

1. **determinizes**: copies the root row (built from the observer's view only) and
   re-deals every card the observer cannot know, uniformly among the deals consistent
   with public knowledge (the adapter's ``determinize``);
2. **selects** down the tree, playing the determinization's own legal moves: at each
   node the children whose edge is legal in this determinization are *available*
   (their availability count grows by one) and the one maximising
   ``mean value of the player to move + c * sqrt(ln(availability) / visits)`` is
   followed;
3. **expands** one untried legal edge, 4. **rolls out** to the end of the game in
   compiled code (``rollout="random"``, ``"greedy"`` or ``"neural"``: the compiled
   policies, neural playing the network shipped for the table), and
5. **backs up** one value *per player* along the path: each node keeps a value sum
   for every seat and a node's mover maximises its own (the usual max^n treatment of
   multi-player games).

Edges are what the observer *sees* of a move (the adapter's ``edge_keys``): for its
own moves the action id; for an opponent's move whose detail is hidden (Sly: which
card an opponent lays face down), only the public part (the space). So the
observer's nodes below an opponent's move never depend on a card it could not see,
and its decisions depend only on its information set.

Opponent moves (``opponents=``):

* ``"hybrid"`` (default): the opponent's edge is chosen by UCB on that opponent's own
  value (max^n); the hidden detail inside the edge (which card it lays) is the one
  the adapter's heuristic (``best_action``) picks from *that opponent's* own
  observation of the determinization, i.e. what it would lay there holding those
  cards. (Drawing that card uniformly made the tree's opponents lay Foxes and low
  Hens on high spaces, a poor model that cost about 15 points of win rate.)
* ``"tree"``: as hybrid, but the hidden detail is drawn uniformly.
* ``"policy"``: opponents play the compiled rollout policy from their own
  observation (an opponent model; no branching at their nodes), or the one
  ``opponent_policy`` names (``"greedy"``, ``"random"``, ``"neural"``: the table's
  shipped network) while the rollouts keep theirs. With
  ``policy_leaf=True`` a node the descent reaches for the first time through their
  moves is a leaf: the rollout (the same policy) plays on from it, and the node gets
  its edges (and, guided, the network's prior) only from its second visit. Each
  determinization deals the others new hands, so their moves, and the nodes behind
  them, keep changing: most of those nodes are never visited again.

Why SO-ISMCTS rather than determinized UCT (one tree per determinization): one tree
pools the statistics of every determinization, so the whole budget informs one
decision, and it avoids the strategy fusion of averaging per-world trees (each world
tree lets the observer "know" the hidden cards).

Value. ``value="win"`` (default): each seat gets its share of the win (1/k for a k-way
tie at the top), which is what the arena measures. ``value="score"``: each seat's
margin over the mean of the others, squashed to [0, 1] (``0.5 + 0.5 tanh(margin /
score_scale)``); ``value="mixed"``: the average of the two (win share decides, the
margin breaks the many near-ties of lost or won positions); ``value="lead"``: the margin
over the best of the others, squashed the same way (with two seats the same as
``"score"``; with more, a seat gains nothing from the others' losses unless the leader's).

Budget: ``iterations`` per decision (default 300), or ``time_limit`` seconds per
decision when given (then ``iterations`` is a cap; ``iterations=None`` for no cap).
``c`` (default 0.3): UCB exploration on values in [0, 1]. ``top_k`` (default None):
progressive widening at the observer's nodes to the ``top_k + visits**0.25`` moves the
adapter's ``prior`` ranks best (measured: pruning to the heuristic's favourites
hurts in Sly, so it is off by default).

Guide (``guide="neural"``)
-------------------------
The trained network (``sly_scout_env.agents.bots.neural``, the shipped checkpoint for the table or
``guide_path=FILE``) can weight the tree's exploration, PUCT-style (as in AlphaZero):
at every node where the tree chooses, the edge maximising

    Q + guide_c * P(edge) * sqrt(availability) / (1 + visits)

is followed, where ``Q`` is the edge's mean value for the player to move (an edge never
visited takes its parent's mean, "first-play urgency"; on the compiled search that mean less
``fpu_reduction``, 0 by default), and ``P(edge)`` is the network's
masked softmax over the mover's legal actions, summed over the actions behind the edge
(for an opponent's hidden Lay in Sly: the probability it lays on that space). The
network reads **the mover's own observation** of the determinized row (the adapter's
``guide_inputs``), with the same logits its ``act`` plays from (a checkpoint's prior
bot included). Unlike plain UCB, an unvisited edge is not tried before every other:
with a small budget the visits go to the moves the network likes.

SO-ISMCTS specifics. The edges available at a node change with the determinization,
and so does an opponent's observation (its hand is re-dealt). ``P`` is computed for a
(node, edge) **when the edge is first seen**, from that iteration's determinization,
and kept: one forward pass per node (plus one when a determinization makes new edges
legal), not one per visit, which would cost a forward pass per tree level per
iteration. Availability counts replace the parent's visit count in the ``sqrt``, as in
the UCB rule above. (A Scout checkpoint adds the move of ``greedy``, which breaks ties
at random: a node keeps the draw of its first evaluation.) ``top_k`` widening, when on,
still restricts the observer's edges first (``engine=python`` only). ``guide=None``
(default) is the plain search above, move for move.

The compiled search (``engine=compiled``, the default) runs the same rule inside Numba
(the game's ``logits`` part encodes the mover's observation and evaluates either kind of
network there), with three differences: the softmax runs over the edges the tree keeps
(Scout's pruned moves included only when kept), a checkpoint's prior bot is not added, and
there is no widening. There the network can also **end the simulations**: a checkpoint
with a value network (``sly-scout exit`` writes them; ``guide_value``) scores the new leaf
for every seat, each from its own observation, instead of a rollout; and self-play mixes
Dirichlet noise into the root's prior (``noise``, ``noise_alpha``).

Adapter protocol
----------------
A game plugs in with an object providing (``row`` is the game's flat int64 state row;
every method may be plain Python calling compiled kernels):

``num_actions: int``
    Size of the flat action space.
``root(observation, action_mask, info) -> row``
    A full state row consistent with what the acting seat may know (``info["view"]``,
    the redacted view, and the observation). Hidden cards are placed in any way that
    depends on the view only; ``determinize`` re-deals them.
``determinize(row, seat, rng_word) -> None``
    In place: re-deal every card ``seat`` cannot know uniformly among assignments
    consistent with public knowledge. ``rng_word`` is a length-1 int64 array holding
    a splitmix64 word (advanced in place). Never reads hidden fields to decide.
``seed_row(row, word) -> None``
    Set the generator the row's compiled moves/rollouts draw from.
``current_player(row) -> int``, ``is_terminal(row) -> bool``
``edge_keys(row, observer, legal_out, keys_out) -> n``
    Write the ``n`` legal actions and, for each, the key of what ``observer`` sees of
    it (equal keys = indistinguishable moves for the observer; keys of one node must
    not collide with distinguishable moves).
``apply(row, action) -> None``
``prior(row, observer, legal, n, rng_word, out) -> None`` (optional; for ``top_k``)
    Heuristic value of each of the observer's moves ``legal[:n]`` into ``out[:n]``,
    from the observer's own information.
``best_action(row, actions, rng_word) -> int`` (for ``opponents="hybrid"``)
    Among ``actions`` (moves the observer cannot tell apart), the one the player to
    move would pick by its heuristic from its own observation of ``row``.
``policy_action(row, policy_id) -> int`` (for ``opponents="policy"``)
    The compiled policy's move for the player to move, from its own observation.
``rollout(row, policy_id) -> None``
    Play to the end in compiled code with the compiled policy ``policy_id``.
``policy_id(name) -> int``
    The compiled policy id for a name of ``ROLLOUTS`` (ValueError if unknown; for
    ``"neural"`` the adapter loads the table's shipped network and passes it to its
    compiled moves, ``sly_scout_env.netpolicy``).
``returns(row) -> sequence of float``
    Final scores per seat.
``observation_size: int`` and ``guide_inputs(row, obs_out, legal_out) -> n`` (for ``guide``)
    The observation of the player to move, as the env would give it to that seat, into
    ``obs_out``; its legal action ids (unpruned: the env's mask) into ``legal_out``.

A game plugs in with the optional ``search`` role of its folder (``sly_scout_env/<game>/search.py``):
a class ``SearchAdapter(num_players, options, **PARAMS)`` with the methods above, ``PARAMS`` (its own
bot parameters and their defaults, e.g. Scout's ``horizon``) and ``BOT_DEFAULTS`` (its defaults of
the generic parameters of :data:`DEFAULTS`). The bot finds it through the game registry.
"""

from __future__ import annotations

import math
import time

import numpy as np

from sly_scout_env.agents.bots.base import Agent

VALUES = ("win", "score", "mixed", "lead")
ROLLOUTS = ("random", "greedy", "neural")
OPPONENTS = ("tree", "hybrid", "policy")
GUIDES = ("neural",)  # besides None: what may weight the tree's exploration (see Guide)
# Where the search runs: "compiled" (sly_scout_env.ismcts, the whole search inside Numba, the
# guide's networks too) or "python" (the ISMCTS class below: the reference the compiled search
# is checked against, its guide's prior evaluated in Python).
ENGINES = ("compiled", "python")
# The defaults of the search parameters a game's adapter may change (its BOT_DEFAULTS):
# value, top_k without a guide, top_k with one, guide_c.
DEFAULTS = {"value": "mixed", "top_k": None, "guided_top_k": None, "guide_c": 8.0}


def search_role(game: str):
    """``game``'s ``search`` role (its ``SearchAdapter`` and compiled ``KERNELS``); ValueError when it has none."""
    from sly_scout_env.games import all_games, get_game

    module = get_game(game).optional_module("search")
    if module is None:
        have = [s.name for s in all_games() if s.optional_module("search") is not None]
        raise ValueError(f"ismcts cannot play {game}: the game has no search role; games with one: {', '.join(have)}")
    return module


def adapter_class(game: str):
    """The ``SearchAdapter`` class of ``game``'s ``search`` role; ValueError when it has none."""
    return search_role(game).SearchAdapter


class Node:
    """A node of the observer's tree: statistics of the edge that leads here."""

    __slots__ = ("children", "visits", "avail", "value", "prior", "guide")

    def __init__(self, num_players: int) -> None:
        self.children: dict[int, Node] = {}
        self.prior: dict[int, float] | None = None  # heuristic value per edge (observer's nodes)
        self.guide: dict[int, float] | None = None  # the guide's probability per edge (PUCT prior)
        self.visits = 0
        self.avail = 0
        self.value = np.zeros(num_players)  # value sum per seat


def reward_vector(scores, value: str, score_scale: float) -> np.ndarray:
    """Per-seat reward in [0, 1] from final scores (see the module docstring, Value)."""
    # Plain Python: a handful of seats, called once per iteration (numpy costs more here).
    s = [float(x) for x in scores]
    n = len(s)
    best = max(s)
    k = sum(1 for x in s if x == best)
    win = np.array([1.0 / k if x == best else 0.0 for x in s])
    if value == "win":
        return win
    if value == "lead":
        return np.array([0.5 + 0.5 * math.tanh((x - max(s[:i] + s[i + 1:])) / score_scale) for i, x in enumerate(s)])
    total = sum(s)
    squash = np.array([0.5 + 0.5 * math.tanh((x - (total - x) / (n - 1)) / score_scale) for x in s])
    if value == "score":
        return squash
    return 0.5 * (win + squash)


class ISMCTS:
    """The search itself, for one adapter (reusable across decisions)."""

    def __init__(self, adapter, *, iterations=300, time_limit=None, c=0.3, rollout="greedy", value="mixed",
                 score_scale=5.0, top_k=None, opponents="hybrid", policy_leaf=False, opponent_policy=None,
                 guide=None, guide_c=8.0):
        check_guide_c(guide_c)
        if opponents not in OPPONENTS:
            raise ValueError(f"opponents={opponents!r} is not allowed; allowed values: {', '.join(OPPONENTS)}")
        check_flag("policy_leaf", policy_leaf)
        if policy_leaf and opponents != "policy":
            raise ValueError(f"policy_leaf=true applies to opponents=policy only (here opponents={opponents}): "
                             "drop it, or give opponents=policy")
        if opponent_policy is not None:
            if opponent_policy not in ROLLOUTS:
                raise ValueError(f"opponent_policy={opponent_policy!r} is not allowed; allowed values: "
                                 f"{', '.join(ROLLOUTS)} (or none: the rollout's)")
            if opponents != "policy":
                raise ValueError(f"opponent_policy={opponent_policy} applies to opponents=policy only (here "
                                 f"opponents={opponents}): drop it, or give opponents=policy")
        if rollout not in ROLLOUTS:
            raise ValueError(f"rollout={rollout!r} is not allowed; allowed values: {', '.join(ROLLOUTS)}")
        if value not in VALUES:
            raise ValueError(f"value={value!r} is not allowed; allowed values: {', '.join(VALUES)}")
        if iterations is None and time_limit is None:
            raise ValueError("iterations=None needs a time_limit (seconds); give at least one budget")
        if iterations is not None and (isinstance(iterations, bool) or not isinstance(iterations, int)
                                       or iterations < 1):
            raise ValueError(f"iterations={iterations!r} is not allowed; give an int >= 1 or None")
        if time_limit is not None and not (isinstance(time_limit, (int, float)) and time_limit > 0):
            raise ValueError(f"time_limit={time_limit!r} is not allowed; give seconds > 0 or None")
        if not (isinstance(c, (int, float)) and c >= 0):
            raise ValueError(f"c={c!r} is not allowed; give an exploration constant >= 0")
        if not (isinstance(score_scale, (int, float)) and score_scale > 0):
            raise ValueError(f"score_scale={score_scale!r} is not allowed; give a number > 0")
        if top_k is not None and (isinstance(top_k, bool) or not isinstance(top_k, int) or top_k < 1):
            raise ValueError(f"top_k={top_k!r} is not allowed; give an int >= 1, or None for no widening")
        self.adapter = adapter
        self.opponents = opponents
        self.policy_leaf = policy_leaf
        self.top_k = top_k if hasattr(adapter, "prior") else None
        self._prior = np.zeros(adapter.num_actions, dtype=np.float64)
        self.iterations = iterations
        self.time_limit = time_limit
        self.c = float(c)
        self.rollout_id = adapter.policy_id(rollout)
        self.opponent_id = self.rollout_id if opponent_policy is None else adapter.policy_id(opponent_policy)
        self.value = value
        self.score_scale = float(score_scale)
        self._legal = np.zeros(adapter.num_actions, dtype=np.int64)
        self._keys = np.zeros(adapter.num_actions, dtype=np.int64)
        self.last_iterations = 0
        self.last_root: Node | None = None
        self.guide = guide  # None, or a NetworkGuide for this adapter (PUCT selection, see Guide)
        self.guide_c = float(guide_c)

    def search(self, root_row: np.ndarray, observer: int, rng: np.random.Generator) -> int:
        """The action to play from ``root_row`` (a row consistent with ``observer``'s view)."""
        root = Node(self.adapter.num_players)
        word = np.zeros(1, dtype=np.int64)
        word[0] = rng.integers(-(2**63), 2**63 - 1, dtype=np.int64)
        deadline = None if self.time_limit is None else time.perf_counter() + self.time_limit
        it = 0
        while self._budget_left(it, deadline):
            it += 1
            row = self._determinize(root_row, observer, rng, word)
            path, expanded = self._descend(root, row, observer, rng, word)
            if expanded and self.guide is None:  # (guided: counted in _guided_edge)
                path[-1].avail += 1  # a new child was available when it was created
            self._backup(path, self._play_out(row))
        self.last_iterations = it
        self.last_root = root
        return self._choose(root, root_row, observer)

    def _budget_left(self, it: int, deadline: float | None) -> bool:
        """Whether another iteration fits the budget (``it`` done so far; at least one always runs)."""
        if self.iterations is not None and it >= self.iterations:
            return False
        return deadline is None or it == 0 or time.perf_counter() < deadline

    def _determinize(self, root_row, observer, rng, word) -> np.ndarray:
        """Step 1: a copy of the root row with the observer's unknown cards re-dealt, its generator seeded."""
        ad = self.adapter
        row = root_row.copy()
        ad.determinize(row, observer, word)
        ad.seed_row(row, int(rng.integers(-(2**63), 2**63 - 1, dtype=np.int64)))
        return row

    def _descend(self, root, row, observer, rng, word) -> tuple[list, bool]:
        """Steps 2 and 3: select down the tree playing ``row``'s moves, until the game ends or a leaf
        is reached (expanded, or a guided edge never visited). Returns the path from ``root`` and
        whether it ends on such a leaf."""
        ad = self.adapter
        node = root
        path = [root]
        while not ad.is_terminal(row):
            n = ad.edge_keys(row, observer, self._legal, self._keys)
            mover = ad.current_player(row)
            if mover != observer and self.opponents == "policy":
                node = self._policy_step(node, row, n)
                path.append(node)
                if self.policy_leaf and node.visits == 0:  # a first visit: the rollout plays on from here
                    return path, True
                continue
            groups: dict[int, list[int]] = {}
            for i in range(n):
                groups.setdefault(int(self._keys[i]), []).append(int(self._legal[i]))
            actions, node, leaf = self._select(node, groups, row, observer, mover, n, rng, word)
            ad.apply(row, self._edge_action(actions, row, rng, word))
            path.append(node)
            if leaf:
                return path, True
        return path, False

    def _policy_step(self, node, row, n) -> Node:
        """An opponent's move under ``opponents="policy"``: it plays the compiled policy from its own
        observation of this determinization; the observer's tree records what it sees of it."""
        ad = self.adapter
        a = ad.policy_action(row, self.opponent_id)
        k = None
        for i in range(n):
            if self._legal[i] == a:
                k = int(self._keys[i])
                break
        child = node.children.get(k)
        if child is None:
            child = node.children[k] = Node(ad.num_players)
        ad.apply(row, a)
        return child

    def _select(self, node, groups, row, observer, mover, n, rng, word) -> tuple[list, Node, bool]:
        """The edge followed at a node where the tree chooses: its actions (``groups[key]``), its
        child, and whether that child is a leaf to roll out from."""
        ranked = None
        if self.top_k is not None and mover == observer:
            groups, ranked = self._widen(node, groups, row, observer, n, word)
        if self.guide is not None:  # (guided: every edge gets a child in _guided_edge, no untried list)
            k, child = self._guided_edge(node, groups, row, mover)
            return groups[k], child, child.visits == 0
        untried = [k for k in groups if k not in node.children]
        if untried:
            k = self._expand(node, untried, ranked, rng)
            return groups[k], node.children[k], True
        k, child = self._ucb_edge(node, groups, mover)
        return groups[k], child, False

    def _expand(self, node, untried, ranked, rng) -> int:
        """Step 3: a child for one untried edge (the heuristic's favourite when ranked, else a
        uniform draw); its key."""
        if ranked is not None:
            k = next(key for key in ranked if key not in node.children)
        else:
            k = untried[int(rng.integers(len(untried)))]
        node.children[k] = Node(self.adapter.num_players)
        return k

    def _ucb_edge(self, node, groups, mover) -> tuple[int, Node]:
        """UCB selection among the available edges (each one's availability grows by one)."""
        for key in groups:
            node.children[key].avail += 1
        best = -1.0
        k = None
        child = None
        for key in groups:
            ch = node.children[key]
            ucb = ch.value[mover] / ch.visits + self.c * math.sqrt(math.log(ch.avail) / ch.visits)
            if ucb > best:
                best = ucb
                k = key
                child = ch
        return k, child

    def _edge_action(self, actions, row, rng, word) -> int:
        """The move played for an edge: its only action, or the hidden detail among ``actions``
        (``opponents="hybrid"``: as the mover's heuristic would pick it, judged from the mover's
        own observation; otherwise a uniform draw)."""
        if len(actions) == 1:
            return actions[0]
        if self.opponents == "hybrid":
            return self.adapter.best_action(row, actions, word)
        return actions[int(rng.integers(len(actions)))]

    def _play_out(self, row) -> np.ndarray:
        """Step 4: roll out to the end (unless the game is over); the reward per seat."""
        ad = self.adapter
        if not ad.is_terminal(row):
            ad.rollout(row, self.rollout_id)
        return reward_vector(ad.returns(row), self.value, self.score_scale)

    @staticmethod
    def _backup(path, reward) -> None:
        """Step 5: one more visit and ``reward`` (per seat) for every node of the path."""
        for nd in path:
            nd.visits += 1
            nd.value += reward

    def _choose(self, root, root_row, observer) -> int:
        """The most visited edge at the root (ties: the first in key order, for determinism), as an action."""
        best_key = max(sorted(root.children), key=lambda k: root.children[k].visits)
        n = self.adapter.edge_keys(root_row, observer, self._legal, self._keys)
        for i in range(n):
            if int(self._keys[i]) == best_key:
                return int(self._legal[i])
        raise RuntimeError("ISMCTS chose an edge with no legal action at the root")  # pragma: no cover

    def _widen(self, node, groups, row, observer, n, word):
        """Progressive widening at the observer's nodes: only the ``top_k + visits**0.25``
        edges the heuristic prior ranks best are considered (returned in rank order)."""
        if node.prior is None:
            node.prior = {}
        if any(k not in node.prior for k in groups):
            self.adapter.prior(row, observer, self._legal, n, word, self._prior)
            for i in range(n):
                node.prior.setdefault(int(self._keys[i]), float(self._prior[i]))
        ranked = sorted(groups, key=lambda k: -node.prior[k])
        width = self.top_k + int(node.visits ** 0.25)
        if len(ranked) > width:
            ranked = ranked[:width]
            groups = {k: groups[k] for k in ranked}
        return groups, ranked

    def _guided_edge(self, node, groups, row, mover):
        """PUCT selection on the guide's prior (module docstring, Guide): the edge key and its child.

        Every available edge gets a child (visits 0 until it is played) whose availability
        grows by one; the guide's probabilities are computed for edges seen for the first time.
        """
        probs = node.guide
        if probs is None:
            probs = node.guide = {}
        if any(k not in probs for k in groups):
            p = self.guide.probabilities(row)
            for key, actions in groups.items():
                if key not in probs:
                    probs[key] = float(sum(p[a] for a in actions))
        fpu = node.value[mover] / node.visits if node.visits else 0.5
        best = -math.inf
        best_key = None
        for key in groups:
            ch = node.children.get(key)
            if ch is None:
                ch = node.children[key] = Node(len(node.value))
            ch.avail += 1
            q = ch.value[mover] / ch.visits if ch.visits else fpu
            score = q + self.guide_c * probs[key] * math.sqrt(ch.avail) / (1 + ch.visits)
            if score > best:
                best = score
                best_key = key
        return best_key, node.children[best_key]


def _check_positive(name, value, what) -> None:
    """Refuse a ``value`` that is not a finite number > 0, naming the parameter and ``what`` it is."""
    if isinstance(value, bool) or not (isinstance(value, (int, float)) and math.isfinite(value) and value > 0):
        raise ValueError(f"{name}={value!r} is not allowed; give {what}")


def check_flag(name, flag, auto=False) -> None:
    """Refuse a ``flag`` that is not a bool (``auto=True``: or the string "auto"), naming the parameter."""
    if not isinstance(flag, bool) and not (auto and flag == "auto"):
        raise ValueError(f"{name}={flag!r} is not allowed; give true or false"
                         + (" (or auto: true when the checkpoint has a value network)" if auto else ""))


def check_guide_temperature(temperature) -> None:
    _check_positive("guide_temperature", temperature,
                    "a number > 0 (the prior's logits are divided by it: above 1 flattens it)")


def check_fpu_reduction(reduction) -> None:
    if isinstance(reduction, bool) or not isinstance(reduction, (int, float)) or not -1 <= reduction <= 1:
        raise ValueError(f"fpu_reduction={reduction!r} is not allowed; give a number in [-1, 1] (subtracted from "
                         "the parent's mean to value an unvisited guided move; rewards lie in [0, 1])")


def check_guide_c(guide_c) -> None:
    # 0 is refused: with no exploration term and unvisited edges valued at the parent's mean,
    # every simulation follows the first edge, and the search plays the first legal move
    # (measured: 0.005 against plain ismcts in Sly 2p).
    _check_positive("guide_c", guide_c, "a PUCT exploration constant > 0")


def check_guide(guide, guide_path) -> None:
    """``guide`` is None or one of GUIDES; ``guide_path`` only comes with a guide."""
    if guide is not None and guide not in GUIDES:
        raise ValueError(f"guide={guide!r} is not allowed; allowed values: none, {', '.join(GUIDES)}")
    if guide_path is not None and guide is None:
        raise ValueError(f"guide_path={guide_path!r} needs a guide: give guide=neural with it")


class NetworkGuide:
    """The network's masked softmax over the legal actions of the player to move in a row.

    ``agent`` is a reset :class:`sly_scout_env.agents.bots.neural.NeuralAgent` (its checks chose and validated
    the checkpoint for the table); the observation comes from the adapter's ``guide_inputs``.
    """

    def __init__(self, adapter, agent) -> None:
        if agent.policy.observation_size != adapter.observation_size:
            raise ValueError(f"the guide checkpoint {agent.policy.source} reads observations of size "
                             f"{agent.policy.observation_size}; this table's are {adapter.observation_size}")
        self.adapter = adapter
        self.agent = agent
        self._obs = np.zeros(adapter.observation_size, dtype=np.float32)
        self._legal = np.zeros(adapter.num_actions, dtype=np.int64)
        self._mask = np.zeros(adapter.num_actions, dtype=np.int8)
        self._p = np.zeros(adapter.num_actions, dtype=np.float64)

    def probabilities(self, row) -> np.ndarray:
        """Per action id: the mover's probability (0 off its legal actions); a view, reused."""
        n = self.adapter.guide_inputs(row, self._obs, self._legal)
        legal = self._legal[:n]
        self._mask[:] = 0
        self._mask[legal] = 1
        z = self.agent.logits(self._obs, self._mask)[legal]
        e = np.exp(z - z.max())
        self._p[:] = 0.0
        self._p[legal] = e / e.sum()
        return self._p


class ISMCTSAgent(Agent):
    """``ismcts``: SO-ISMCTS with compiled determinization and rollouts (see module docstring).

    ``game``: the game it plays (its ``search`` role is the adapter). Parameters:
    ``iterations`` (default 300), ``time_limit`` (seconds per decision, default None), ``c``
    (UCB exploration, default 0.3), ``rollout`` (``"greedy"`` default, ``"random"`` or
    ``"neural"``), ``value`` (``"win"``, ``"score"``, ``"mixed"``, ``"lead"``), ``score_scale`` (points,
    default 5), ``top_k`` (progressive widening), ``opponents`` (``"hybrid"`` default,
    ``"tree"``, ``"policy"``), ``policy_leaf`` (False default; True, with ``opponents="policy"``
    only: a node first reached through the other seats' moves ends the descent, the rollout
    playing on from it, so it is expanded only from its second visit: ``sly_scout_env.ismcts``),
    ``opponent_policy`` (None default: the rollout's; with ``opponents="policy"`` only, the
    compiled policy the other seats play in the tree, ``"greedy"``, ``"random"`` or ``"neural"``),
    ``guide`` (None default, or ``"neural"``: PUCT selection on the
    trained network's prior, see the module docstring), ``guide_path`` (a checkpoint of your
    own for the guide; default the shipped one for the table), ``guide_c`` (the PUCT
    constant). ``value``, ``top_k`` and ``guide_c`` default to :data:`DEFAULTS` as the game's
    adapter amends them (``BOT_DEFAULTS``: Scout plays ``value="score"``, ``top_k=3`` and
    ``guide_c=0.1``; the generic ``guide_c=8.0`` was the best of 0.5, 2, 4, 8, 16 in Sly 2p
    at 0.05 s per move, docs/experiments/guided-search.md). Any other keyword
    is a parameter of the game's adapter (``PARAMS``, e.g. Scout's ``horizon``, ``prune`` and ``belief``).
    The network inside the compiled search, with a guide: ``guide_prior`` (True: its policy
    ranks the edges), ``guide_value`` (``"auto"``: True when the checkpoint carries a value
    network, which then ends every simulation at its new leaf instead of a rollout, see
    ``sly_scout_env.ismcts``), ``value_mix`` (the value's weight at a leaf, 1 default: below 1
    the rollout is played too and the two mixed), ``guide_temperature`` (the prior's logits are
    divided by it, 1 default: above 1 flattens a sharp prior, so PUCT explores more),
    ``guide_opponents`` (True default: the prior guides every seat's nodes; False: only the
    searching seat's, the others choose by UCB as without a guide, which saves the network's
    calls where the determinized hands change the legal moves), ``fpu_reduction`` (0 default: an
    unvisited guided move is valued at its parent's mean; above 0 at that mean less it, so
    the search stays longer with the moves it has tried, below 0 above the mean, so it tries
    more of them), ``noise``
    (share of Dirichlet noise in the root's prior, 0 default: self-play exploration) and
    ``noise_alpha`` (its concentration, 0.3).
    ``engine``: ``"compiled"`` (the default: the whole search inside Numba,
    ``sly_scout_env.ismcts``, the guide's network included) or ``"python"`` (the reference
    search of this module; its guide is the prior only).
    """

    name = "ismcts"
    needs_view = True

    def __init__(self, game, iterations=300, time_limit=None, c=0.3, rollout="greedy", value="auto",
                 score_scale=5.0, top_k="auto", opponents="hybrid", policy_leaf=False, opponent_policy=None,
                 guide=None, guide_path=None,
                 guide_c="auto",
                 guide_prior=True, guide_value="auto", value_mix=1.0, noise=0.0, noise_alpha=0.3, guide_temperature=1.0,
                 guide_opponents=True, fpu_reduction=0.0, engine="auto", **adapter_params):
        super().__init__()
        if engine == "auto":
            engine = "compiled"
        if engine not in ENGINES:
            raise ValueError(f"engine={engine!r} is not allowed; allowed values: auto, {', '.join(ENGINES)}")
        check_flag("guide_prior", guide_prior)
        check_flag("guide_value", guide_value, auto=True)
        check_flag("guide_opponents", guide_opponents)
        if isinstance(noise, bool) or not isinstance(noise, (int, float)) or not 0 <= noise <= 1:
            raise ValueError(f"noise={noise!r} is not allowed; give a number in [0, 1] (the share of Dirichlet "
                             "noise in the root's prior)")
        if isinstance(noise_alpha, bool) or not isinstance(noise_alpha, (int, float)) or not noise_alpha > 0:
            raise ValueError(f"noise_alpha={noise_alpha!r} is not allowed; give a number > 0 (the Dirichlet "
                             "concentration)")
        if isinstance(value_mix, bool) or not isinstance(value_mix, (int, float)) or not 0 < value_mix <= 1:
            raise ValueError(f"value_mix={value_mix!r} is not allowed; give a number in (0, 1] (the value network's "
                             "weight at a leaf; 1 ends the simulation there)")
        check_guide_temperature(guide_temperature)
        check_fpu_reduction(fpu_reduction)
        if guide is None and (guide_prior is not True or guide_value not in ("auto", False) or noise
                              or guide_temperature != 1 or guide_opponents is not True or fpu_reduction):
            raise ValueError("guide_prior, guide_value, guide_temperature, guide_opponents, fpu_reduction and noise "
                             "shape the network inside the search: give guide=neural with them")
        if guide is not None and guide_prior is False and guide_value is False:
            raise ValueError("guide=neural with guide_prior=false and guide_value=false uses the network for "
                             "nothing: keep the prior, the value or both")
        if engine == "python" and (guide_value is True or noise or guide_prior is False or guide_temperature != 1
                                   or guide_opponents is not True or fpu_reduction):
            raise ValueError("guide_value, guide_prior=false, guide_temperature, guide_opponents=false, fpu_reduction "
                             "and noise run on engine=compiled only (the Python search is the reference of the "
                             "prior-guided search)")
        self.engine = engine
        cls = adapter_class(game)
        defaults = {**DEFAULTS, **cls.BOT_DEFAULTS}
        if value == "auto":
            value = defaults["value"]
        if top_k == "auto":
            top_k = defaults["top_k"] if guide is None else defaults["guided_top_k"]
        if guide_c == "auto":
            guide_c = defaults["guide_c"]
        if engine == "compiled" and guide is not None and top_k is not None:
            raise ValueError(f"top_k={top_k!r} with guide=neural: the compiled guided search ranks the moves by the "
                             "network's prior instead of widening (leave top_k at auto, or give engine=python)")
        self.guide_options = dict(guide_prior=guide_prior, guide_value=guide_value, value_mix=float(value_mix),
                                  noise=float(noise), noise_alpha=float(noise_alpha),
                                  guide_temperature=float(guide_temperature), guide_opponents=guide_opponents,
                                  fpu_reduction=float(fpu_reduction))
        unknown = sorted(set(adapter_params) - set(cls.PARAMS))
        if unknown:
            allowed = sorted(set(_GENERIC_PARAMS) | set(cls.PARAMS))
            raise ValueError(f"ismcts has no parameter {unknown[0]!r} for {game}; allowed parameters: "
                             f"{', '.join(allowed)}")
        self.plays = (game,)
        self.adapter_params = adapter_params
        self.params = dict(iterations=iterations, time_limit=time_limit, c=c, rollout=rollout, value=value,
                           score_scale=score_scale, top_k=top_k, opponents=opponents, policy_leaf=policy_leaf,
                           opponent_policy=opponent_policy)
        # Validate now (a bad parameter should fail at make(), not in the first game).
        ISMCTS(_DummyAdapter(), **self.params)
        from sly_scout_env.games import get_game

        cls(get_game(game).default_players, {}, **adapter_params)
        self.search: ISMCTS | None = None
        self._key = None
        check_guide(guide, guide_path)
        check_guide_c(guide_c)
        self.guide, self.guide_c = guide, guide_c
        self._guide_agent = None
        if guide is not None:
            from sly_scout_env.agents.bots.neural import NeuralAgent

            self._guide_agent = NeuralAgent(path=guide_path)  # reads (and checks) guide_path now

    def _new_search(self, adapter):
        """The compiled search (``sly_scout_env.ismcts``); with a guide, the Python search of this module
        (the network's prior is evaluated in Python there)."""
        if self.engine == "compiled":
            from sly_scout_env.ismcts import CompiledSearch

            if self._guide_agent is None:
                return CompiledSearch(adapter, search_role(self.game).KERNELS, **self.params)
            policy = self._guide_agent.policy
            if policy.observation_size != adapter.observation_size:
                raise ValueError(f"the guide checkpoint {policy.source} reads observations of size "
                                 f"{policy.observation_size}; this table's are {adapter.observation_size}")
            opts = dict(self.guide_options)
            if opts["guide_value"] == "auto":
                opts["guide_value"] = policy.has_value
            return CompiledSearch(adapter, search_role(self.game).KERNELS, guide=policy, guide_c=self.guide_c,
                                  **opts, **self.params)
        if self._guide_agent is None:
            return ISMCTS(adapter, **self.params)
        return ISMCTS(adapter, guide=NetworkGuide(adapter, self._guide_agent), guide_c=self.guide_c, **self.params)

    def _reset_guide(self, seed) -> None:
        """Reset the guide's network for this table (refused: a checkpoint of another table).

        Its seed is derived from ``seed`` without drawing from the bot's generator, so
        the unguided bot's moves do not change.
        """
        if self._guide_agent is not None:
            guide_seed = (None if seed is None
                          else int(np.random.SeedSequence([int(seed), 0x6A1DE]).generate_state(1)[0]))
            self._guide_agent.reset(guide_seed, game=self.game, num_players=self.num_players, seat=self.seat,
                                    options=self.options)

    def reset(self, seed, *, game, num_players, seat, options) -> None:
        super().reset(seed, game=game, num_players=num_players, seat=seat, options=options)
        self._reset_guide(seed)
        key = (game, num_players, tuple(sorted(self.options.items())),
               None if self._guide_agent is None else self._guide_agent.policy.source)
        if key != self._key:
            adapter = adapter_class(game)(num_players, self.options, **self._table_adapter_params())
            self.search = self._new_search(adapter)
            self._key = key

    def _table_adapter_params(self) -> dict:
        """The game adapter's own parameters at this table (the expert adds its checkpoint's)."""
        return self.adapter_params

    def act(self, observation, action_mask, info) -> int:
        if self.search is None:
            raise ValueError("ISMCTSAgent.act called before reset(); call reset(seed, game=..., ...) first")
        if "view" not in info:
            raise ValueError("ismcts needs info['view'] (the acting seat's redacted state dict)")
        legal = np.flatnonzero(np.asarray(action_mask))
        if legal.size == 1:
            return int(legal[0])
        row = self.search.adapter.root(observation, action_mask, info)
        return self.search.search(row, self.seat, self.rng)


class ExpertAgent(ISMCTSAgent):
    """``expert``: the compiled search with the table's network inside it (``ismcts:guide=neural``).

    The network is the table's shipped expert network (``checkpoints/experts/``, trained
    inside the search by ``sly-scout exit``) or, for a table without one, its shipped
    ``neural`` checkpoint (``path=FILE`` for yours, e.g. a ``sly-scout exit`` generation):
    its policy is the PUCT prior and, when the checkpoint
    carries a value network, that value ends the simulations. A checkpoint may state the
    expert's tuning in ``meta["expert"]`` (:data:`TUNABLE` and the game adapter's own
    ``PARAMS``: what its measurement chose, e.g. the iterations that take the default
    ``ismcts``'s time per move); parameters given here win. Every other parameter is ``ismcts``'s.
    """

    name = "expert"
    TUNABLE = ("iterations", "guide_c", "guide_prior", "guide_value", "value_mix", "guide_temperature",
               "guide_opponents", "fpu_reduction", "value", "score_scale", "opponents", "policy_leaf",
               "opponent_policy")
    # tuned for the policy model of the other seats: dropped when another model is asked for
    POLICY_MODEL = ("policy_leaf", "opponent_policy")

    def __init__(self, game, path=None, **kwargs):
        for banned in ("guide", "guide_path", "engine"):
            if banned in kwargs:
                raise ValueError(f"expert takes no {banned!r}: it is the compiled search guided by the network "
                                 "(path=FILE for another checkpoint)")
        self._given = set(kwargs)
        self.path = path
        # policy_leaf and opponent_policy need opponents=policy, which the checkpoint may set: checked
        # once the tuning is read
        model = {key: kwargs.pop(key) for key in self.POLICY_MODEL if key in kwargs}
        super().__init__(game, guide="neural", guide_path=path, **kwargs)
        if model:
            self.params.update(model)
            ISMCTS(_DummyAdapter(), **{**self.params, "opponents": kwargs.get("opponents", "policy")})
        self._untuned = (dict(self.params), self.guide_c, dict(self.guide_options))

    def _reset_guide(self, seed) -> None:
        """The table's network: ``path``, else the shipped expert network for the table
        (``checkpoints/experts/``), else the shipped ``neural`` checkpoint."""
        if self.path is None:
            from sly_scout_env.agents.bots.neural import NeuralAgent
            from sly_scout_env.netfile import shipped_expert_for

            mine = shipped_expert_for(self.game, self.num_players, self.options)
            self._guide_agent = NeuralAgent(path=None if mine is None else mine.source)
        super()._reset_guide(seed)

    def _table_adapter_params(self) -> dict:
        """The checkpoint's tuning of the game adapter's own parameters, under those given here."""
        tuning = self._guide_agent.policy.meta.get("expert") or {}
        tuned = {key: tuning[key] for key in adapter_class(self.game).PARAMS if key in tuning}
        return {**tuned, **self.adapter_params}

    def _new_search(self, adapter):
        params, self.guide_c, options = self._untuned  # (another table's tuning does not carry over)
        self.params, self.guide_options = dict(params), dict(options)
        tuning = self._guide_agent.policy.meta.get("expert") or {}
        for key in self.TUNABLE:
            if key in self._given or key not in tuning:
                continue
            if key in self.POLICY_MODEL and self.params["opponents"] != "policy":
                continue  # (tuned for the policy model of the others: another model was asked for)
            if key == "iterations":
                self.params["iterations"] = int(tuning[key])
            elif key in ("value", "score_scale", "opponents") + self.POLICY_MODEL:
                self.params[key] = tuning[key]  # (checked with the rest below)
            elif key == "guide_c":
                check_guide_c(tuning[key])
                self.guide_c = float(tuning[key])
            elif key == "guide_temperature":
                check_guide_temperature(tuning[key])
                self.guide_options[key] = float(tuning[key])
            elif key == "guide_opponents":
                check_flag(key, tuning[key])
                self.guide_options[key] = tuning[key]
            elif key == "fpu_reduction":
                check_fpu_reduction(tuning[key])
                self.guide_options[key] = float(tuning[key])
            else:
                self.guide_options[key] = tuning[key]
        ISMCTS(_DummyAdapter(), **self.params)  # a bad value in the file, or policy_leaf without its model, named
        return super()._new_search(adapter)


# The generic parameters (for the error naming the allowed ones).
_GENERIC_PARAMS = ("iterations", "time_limit", "c", "rollout", "value", "score_scale", "top_k", "opponents",
                   "policy_leaf", "opponent_policy", "guide",
                   "guide_path", "guide_c", "guide_prior", "guide_value", "value_mix", "noise", "noise_alpha",
                   "guide_temperature", "guide_opponents", "fpu_reduction", "engine")


class _DummyAdapter:
    """Stands in for a game adapter when only the parameters are checked."""

    num_actions = 1
    num_players = 2

    def policy_id(self, name):
        return ROLLOUTS.index(name)

