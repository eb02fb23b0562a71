"""A plain-Python reference of the Scout rules: the tests' independent second opinion.

Written from docs/scout_rules.md and the interface contract alone (never from the
engine's kernels), it works directly on the ``state_dict`` format of the engine: load a
position with :meth:`ScoutReference.from_state_dict`, list the legal moves as the dicts
``decode_action`` returns, apply one, and read the position back with
:meth:`ScoutReference.to_state_dict` (every key of the engine's dict except ``rng``).

The one thing it cannot do is shuffle like the engine: when a round ends and another
one follows, :attr:`needs_deal` becomes True and :meth:`take_deal` copies the new hands
(and the two-player set-aside half) from the engine's state dict, after checking that
the deal is a legal one (right cards, right sizes).

Cards are ``(up, down)`` tuples; a hand is a list of them, left to right.
Moves are kept internally as tuples (cheap to build and hash):
``("flip", flip)``, ``("show", start, length)``, ``("scout", end, flip, position)``,
``("scout_and_show", end, flip, position)``; :func:`move_to_dict` / :func:`move_from_dict`
convert to and from the ``decode_action`` dicts.
"""

from __future__ import annotations

from collections import Counter

# -- setup per player count (rules file, "Setup per player count") --------------------
FULL_DECK = [(a, b) for a in range(1, 11) for b in range(a + 1, 11)]  # 45 unordered pairs


def deck_cards(num_players: int) -> list[tuple[int, int]]:
    """The cards in play (as sorted pairs): 2 and 4 players drop 9/10, 3 players every 10."""
    if num_players in (2, 4):
        return [c for c in FULL_DECK if c != (9, 10)]
    if num_players == 3:
        return [c for c in FULL_DECK if 10 not in c]
    return list(FULL_DECK)


DEAL_SIZE = {2: 11, 3: 12, 4: 11, 5: 9}
OFFICIAL_ROUNDS = {2: 2, 3: 3, 4: 4, 5: 5}
TWO_PLAYER_CHIPS = 3
# From the contract (proved in the env docstring): largest hand and show.
MAX_HAND = {2: 14, 3: 34, 4: 41, 5: 41}
MAX_SHOW = 10


def card_key(card) -> tuple[int, int]:
    """The identity of a card whatever its orientation."""
    a, b = card
    return (a, b) if a < b else (b, a)


# -- which shows are groups, and which beats which ("Which show is stronger") ---------
def group_strength(values) -> tuple[int, int, int] | None:
    """(count, is_set, lowest number) of a valid show of these up numbers, else None.

    A single card is a set of one. A run is consecutive numbers, ascending or descending
    in hand order. Comparing these tuples lexicographically is exactly the rulebook order
    (more cards, then set over run, then higher lowest number); equal tuples do not beat.
    """
    n = len(values)
    if n == 0:
        return None
    if n == 1:
        return (1, 1, values[0])
    step = values[1] - values[0]
    if step not in (-1, 0, 1):
        return None
    for i in range(2, n):
        if values[i] - values[i - 1] != step:
            return None
    return (n, 1 if step == 0 else 0, min(values))


def beats(show_values, active_values) -> bool:
    """Does a valid show of ``show_values`` beat the active set (anything beats no set)?"""
    if not active_values:
        return True
    return group_strength(show_values) > group_strength(active_values)


def beating_shows(ups, target) -> list[tuple[int, int]]:
    """All (start, length) of adjacent groups in ``ups`` whose strength beats ``target``.

    ``target`` is the active set's strength tuple, or None for no active set.
    """
    result = []
    n = len(ups)
    for start in range(n):
        for length in range(1, min(MAX_SHOW, n - start) + 1):
            strength = group_strength(ups[start : start + length])
            if strength is None:
                break  # a longer slice contains this broken pair, so it is no group either
            if target is None or strength > target:
                result.append((start, length))
    return result


def has_beating_show(ups, target) -> bool:
    """Is there any show in ``ups`` that beats ``target`` (None = no active set)?

    Only lengths c and c + 1 (c = the target's count) need a look: shorter groups never
    beat, and every group longer than c contains a valid group of exactly c + 1 cards.
    """
    if target is None:
        return len(ups) > 0
    count = target[0]
    n = len(ups)
    for start in range(n - count + 1):
        strength = group_strength(ups[start : start + count])
        if strength is None:
            continue
        if strength > target:
            return True
        if start + count < n and group_strength(ups[start : start + count + 1]) is not None:
            return True
    return False


# -- moves ----------------------------------------------------------------------------
def move_to_dict(move: tuple) -> dict:
    kind = move[0]
    if kind == "flip":
        return {"type": "flip", "flip": move[1]}
    if kind == "show":
        return {"type": "show", "start": move[1], "length": move[2]}
    return {"type": kind, "end": move[1], "flip": move[2], "position": move[3]}


def move_from_dict(d: dict) -> tuple:
    kind = d["type"]
    if kind == "flip":
        return ("flip", bool(d["flip"]))
    if kind == "show":
        return ("show", int(d["start"]), int(d["length"]))
    if kind in ("scout", "scout_and_show"):
        return (kind, d["end"], bool(d["flip"]), int(d["position"]))
    raise ValueError(f"unknown move type {kind!r}")


def encode_move(move: tuple, num_players: int) -> int:
    """The action id of ``move`` under the contract's flat layout (written from the contract)."""
    hand_slots = MAX_HAND[num_players]
    scout_base = 2 + hand_slots * MAX_SHOW
    kind = move[0]
    if kind == "flip":
        return 1 if move[1] else 0
    if kind == "show":
        return 2 + move[1] * MAX_SHOW + (move[2] - 1)
    base = scout_base if kind == "scout" else scout_base + 4 * hand_slots
    end = 0 if move[1] == "left" else 1
    return base + (end * 2 + int(move[2])) * hand_slots + move[3]


# -- the game ---------------------------------------------------------------------------
class ScoutReference:
    """One Scout game, held in plain lists, following the rules file step by step."""

    def __init__(self, num_players: int, rounds: int | None = None, ii_after_empty_set: bool = True,
                 score_held_chips: bool = True):
        self.num_players = num_players
        self.rounds = OFFICIAL_ROUNDS[num_players] if rounds is None else rounds
        self.ii_after_empty_set = ii_after_empty_set
        self.score_held_chips = score_held_chips
        self.round = 0
        self.round_scores: list[list[int]] = []
        self.round_end_reasons: list[str] = []
        self.scores = [0] * num_players
        self.set_aside: list[tuple[int, int]] = []
        self._start_round(hands=[[] for _ in range(num_players)])
        self.needs_deal = True

    # -- state dicts ---------------------------------------------------------------------
    @classmethod
    def from_state_dict(cls, d: dict) -> ScoutReference:
        ref = cls(d["num_players"], d["rounds"], d["ii_after_empty_set"], d["score_held_chips"])
        ref.round = d["round"]
        ref.starting_player = d["starting_player"]
        ref.current_player = d["current_player"]
        ref.phase = d["phase"]
        ref.hands = [[tuple(c) for c in hand] for hand in d["hands"]]
        ref.active_set = [tuple(c) for c in d["active_set"]]
        ref.active_owner = d["active_owner"]
        ref.scout_chips = list(d["scout_chips"])
        ref.collected = [[tuple(c) for c in pile] for pile in d["collected"]]
        ref.scout_and_show_left = list(d["scout_and_show_left"])
        ref.set_aside = [tuple(c) for c in d["set_aside"]]
        ref.known = [list(k) for k in d["known"]]
        ref.round_scores = [list(r) for r in d["round_scores"]]
        ref.round_end_reasons = list(d["round_end_reasons"])
        ref.scores = list(d["scores"])
        ref.needs_deal = False
        return ref

    def to_state_dict(self) -> dict:
        return {
            "game": "scout",
            "version": 0,
            "num_players": self.num_players,
            "rounds": self.rounds,
            "ii_after_empty_set": self.ii_after_empty_set,
            "score_held_chips": self.score_held_chips,
            "round": self.round,
            "starting_player": self.starting_player,
            "current_player": self.current_player,
            "phase": self.phase,
            "hands": [[list(c) for c in hand] for hand in self.hands],
            "active_set": [list(c) for c in self.active_set],
            "active_owner": self.active_owner,
            "scout_chips": list(self.scout_chips),
            "collected": [[list(c) for c in pile] for pile in self.collected],
            "scout_and_show_left": list(self.scout_and_show_left),
            "set_aside": [list(c) for c in self.set_aside],
            "known": [list(k) for k in self.known],
            "round_scores": [list(r) for r in self.round_scores],
            "round_end_reasons": list(self.round_end_reasons),
            "scores": list(self.scores),
        }

    # -- round start and the deal --------------------------------------------------------
    @property
    def two_player(self) -> bool:
        return self.num_players == 2

    def _start_round(self, hands) -> None:
        """Reset the per-round table for round ``self.round`` (hands come from the deal)."""
        n = self.num_players
        self.starting_player = self.round % n  # rotates one seat each round
        self.current_player = self.starting_player
        self.phase = "flip"
        self.hands = hands
        self.known = [[False] * len(h) for h in hands]
        self.active_set = []
        self.active_owner = None
        self.collected = [[] for _ in range(n)]
        if self.two_player:
            self.scout_chips = [TWO_PLAYER_CHIPS] * n  # 3 chips each, every round
            self.scout_and_show_left = [False] * n  # no Scout & Show with two players
        else:
            self.scout_chips = [0] * n  # chips received this round
            self.scout_and_show_left = [True] * n

    def take_deal(self, d: dict) -> None:
        """Copy the engine's new deal (hands, set-aside half) after checking it is a legal deal.

        With two players a non-empty set-aside half must be what is dealt now (11 each);
        otherwise the whole deck is dealt: 11/12/11/9 each by player count, and with two
        players the other 22 cards are set aside.
        """
        assert self.needs_deal, "take_deal() outside a new deal"
        n = self.num_players
        hands = [[tuple(c) for c in hand] for hand in d["hands"]]
        set_aside = [tuple(c) for c in d["set_aside"]]
        dealt = Counter(card_key(c) for h in hands for c in h)
        if self.two_player and self.set_aside:
            assert dealt == Counter(card_key(c) for c in self.set_aside), "round 2 must deal the set-aside half"
            assert set_aside == [], "the set-aside half is used up in round 2"
            assert [len(h) for h in hands] == [11, 11], f"hand sizes {[len(h) for h in hands]}"
        else:
            everything = dealt + Counter(card_key(c) for c in set_aside)
            assert everything == Counter(deck_cards(n)), "a fresh deal must use the whole deck once"
            assert [len(h) for h in hands] == [DEAL_SIZE[n]] * n, f"hand sizes {[len(h) for h in hands]}"
            assert len(set_aside) == (22 if self.two_player else 0), f"set_aside has {len(set_aside)} cards"
        for card in dealt:
            assert card[0] != card[1]
        self.set_aside = set_aside
        self._start_round(hands)
        self.needs_deal = False

    # -- legal moves ---------------------------------------------------------------------
    def legal_moves(self) -> list[dict]:
        """The legal moves of the player to act, as ``decode_action`` dicts."""
        return [move_to_dict(m) for m in self.legal_move_tuples()]

    def legal_move_tuples(self) -> list[tuple]:
        if self.phase == "game_over":
            return []
        if self.phase == "flip":
            return [("flip", False), ("flip", True)]
        p = self.current_player
        hand = self.hands[p]
        ups = [c[0] for c in hand]
        active_ups = [c[0] for c in self.active_set]
        target = group_strength(active_ups)  # None when there is no active set
        moves = [("show", s, l) for s, l in beating_shows(ups, target)]
        if self.phase == "show_after_scout" or not self.active_set:
            return moves  # only Shows; no Scout without an active set
        ends = ("left",) if len(self.active_set) == 1 else ("left", "right")
        positions = range(len(hand) + 1)
        if not self.two_player or self.scout_chips[p] > 0:  # 2 players: a Scout costs a chip
            for end in ends:
                for flip in (False, True):
                    for pos in positions:
                        moves.append(("scout", end, flip, pos))
        if not self.two_player and self.scout_and_show_left[p]:
            for end in ends:
                card = self.active_set[0] if end == "left" else self.active_set[-1]
                rest = active_ups[1:] if end == "left" else active_ups[:-1]
                rest_target = group_strength(rest)
                for flip in (False, True):
                    value = card[1] if flip else card[0]
                    for pos in positions:
                        # Scout & Show may start only if some Show can follow the Scout.
                        if rest_target is None or has_beating_show(ups[:pos] + [value] + ups[pos:], rest_target):
                            moves.append(("scout_and_show", end, flip, pos))
        return moves

    def _can_act_two_player(self, seat: int) -> bool:
        """Two players: can ``seat`` Show (beat the active set) or Scout (chip + active card)?"""
        if not self.active_set:
            return True  # anything may be shown
        if self.scout_chips[seat] > 0:
            return True
        target = group_strength([c[0] for c in self.active_set])
        return has_beating_show([c[0] for c in self.hands[seat]], target)

    # -- applying a move -----------------------------------------------------------------
    def apply(self, move) -> None:
        """Play ``move`` (a decode_action dict or a move tuple); it must be legal."""
        if isinstance(move, dict):
            move = move_from_dict(move)
        assert not self.needs_deal, "take_deal() first"
        assert move in self.legal_move_tuples(), f"illegal move {move}"
        self.apply_unchecked(move)

    def apply_unchecked(self, move: tuple) -> None:
        """:meth:`apply` of a move tuple without the legality check (the caller made it)."""
        kind = move[0]
        if kind == "flip":
            self._flip(move[1])
        elif kind == "show":
            self._show(move[1], move[2])
        else:
            self._scout(kind, move[1], move[2], move[3])

    def _flip(self, turn: bool) -> None:
        p = self.current_player
        if turn:  # every card flipped in place: order kept, up and down swapped
            self.hands[p] = [(down, up) for up, down in self.hands[p]]
        nxt = (p + 1) % self.num_players
        if nxt == self.starting_player:  # everybody has decided
            self.phase = "play"
        self.current_player = nxt

    def _show(self, start: int, length: int) -> None:
        p = self.current_player
        hand = self.hands[p]
        shown = hand[start : start + length]
        del hand[start : start + length]
        del self.known[p][start : start + length]
        self.collected[p].extend(self.active_set)  # the beaten set, face down (may be empty)
        self.active_set = shown
        self.active_owner = p
        self.phase = "play"
        if not hand:
            self._end_round("i")
            return
        if self.two_player:
            other = 1 - p
            self.current_player = other
            if not self._can_act_two_player(other):
                self._end_round("ii")
        else:
            self.current_player = (p + 1) % self.num_players  # never the owner: that is p

    def _scout(self, kind: str, end: str, flip: bool, position: int) -> None:
        p = self.current_player
        card = self.active_set.pop(0) if end == "left" else self.active_set.pop()
        if flip:
            card = (card[1], card[0])
        self.hands[p].insert(position, card)
        self.known[p].insert(position, True)  # the whole Scout move is public
        if self.two_player:
            self.scout_chips[p] -= 1  # paid to the centre, nobody gets it
        else:
            self.scout_chips[self.active_owner] += 1
        if kind == "scout_and_show":
            self.scout_and_show_left[p] = False
            self.phase = "show_after_scout"
            return
        if self.two_player:
            # The same player continues; if they can do nothing now, the round ends (ii).
            if not self._can_act_two_player(p):
                self._end_round("ii")
            return
        nxt = (p + 1) % self.num_players
        if nxt == self.active_owner and (self.ii_after_empty_set or self.active_set):
            self._end_round("ii")  # every other player only Scouted since the owner's Show
        else:
            self.current_player = nxt

    # -- round end and scoring -----------------------------------------------------------
    def round_score(self, reason: str) -> list[int]:
        """The scores of the round as it stands if it ended now for ``reason``."""
        exempt = self.active_owner if reason == "ii" else None
        count_chips = not self.two_player or self.score_held_chips
        scores = []
        for seat in range(self.num_players):
            score = len(self.collected[seat])
            if count_chips:
                score += self.scout_chips[seat]
            if seat != exempt:
                score -= len(self.hands[seat])
            scores.append(score)
        return scores

    def _end_round(self, reason: str) -> None:
        scores = self.round_score(reason)
        self.round_scores.append(scores)
        self.round_end_reasons.append(reason)
        self.scores = [a + b for a, b in zip(self.scores, scores)]
        self.round += 1
        if self.round >= self.rounds:
            self.phase = "game_over"
        else:
            self.needs_deal = True

    # -- checks used by the tests ---------------------------------------------------------
    def all_cards(self) -> Counter:
        """Every card in the game (hands, active set, collected piles, set-aside half)."""
        cards = Counter()
        for hand in self.hands:
            cards.update(card_key(c) for c in hand)
        cards.update(card_key(c) for c in self.active_set)
        for pile in self.collected:
            cards.update(card_key(c) for c in pile)
        cards.update(card_key(c) for c in self.set_aside)
        return cards
