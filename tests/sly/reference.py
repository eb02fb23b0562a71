"""A plain-Python reference implementation of the Sly rules, for testing the engine.

Written directly from ``docs/sly_rules.md`` and the interface contract, and
deliberately independent of the compiled engine (it imports nothing from
``sly_scout_env``): when the two disagree, one of them misreads the rules, and the
rules file decides which.

The reference works on the engine's ``state_dict`` format (plain JSON) so the two can
be run in lockstep: load the engine's state, ask for the legal moves in
``decode_action`` form, apply a move, and compare the resulting state dicts.

Conventions (from the contract):
  * cards: 0 = Fox, 1..6 = Hen of that rank; each player owns one of each.
  * spaces are numbered house by house: space ``s`` is in house ``s // 4`` and is
    worth ``s % 4 + 1``.
  * play passes to the left, i.e. seat + 1.
"""

from __future__ import annotations

import copy

FOX = 0
HENS = (1, 2, 3, 4, 5, 6)
ALL_CARDS = (FOX,) + HENS
SPACES_PER_HOUSE = 4


def space_value(space: int) -> int:
    """The points a Safe Hen on ``space`` scores: 1..4 around each Hen House."""
    return space % SPACES_PER_HOUSE + 1


def house_of(space: int) -> int:
    return space // SPACES_PER_HOUSE


class SlyReference:
    """One Sly game as plain Python lists and dicts (the state_dict format)."""

    # -- construction ----------------------------------------------------------------
    def __init__(self, num_players: int = 3, hen_houses: int | None = None, reveal_scope: str = "house",
                 first_player: int | str = 0, start_seat: int | None = None):
        """A new game. ``start_seat`` is the seat to start when ``first_player="random"``
        (the reference has no generator of its own; the engine's draw is read from its state)."""
        assert num_players in (2, 3, 4)
        if hen_houses is None:
            hen_houses = 1 if num_players == 2 else 2
        assert hen_houses in (1, 2)
        assert reveal_scope in ("house", "all")
        self.num_players = num_players
        self.hen_houses = hen_houses
        self.reveal_scope = reveal_scope
        self.first_player = first_player
        self.current_player = 0 if first_player == 0 else (start_seat or 0)
        self.game_over = False
        self.end_reason = None
        self.hands = [list(ALL_CARDS) for _ in range(num_players)]
        self.spaces = [None] * self.num_spaces
        self.gobbled = [[] for _ in range(num_players)]
        self.captured = [[] for _ in range(num_players)]
        self.known_in_hand = [[] for _ in range(num_players)]

    @property
    def num_spaces(self) -> int:
        return SPACES_PER_HOUSE * self.hen_houses

    @classmethod
    def from_state_dict(cls, d: dict) -> SlyReference:
        g = cls.__new__(cls)
        g.num_players = d["num_players"]
        g.hen_houses = d["hen_houses"]
        g.reveal_scope = d.get("reveal_scope", "house")
        g.first_player = d.get("first_player", 0)
        g.current_player = d["current_player"]
        g.game_over = d["game_over"]
        g.end_reason = d.get("end_reason")
        g.hands = [sorted(h) for h in d["hands"]]
        g.spaces = [None if s is None else dict(s) for s in d["spaces"]]
        g.gobbled = [[dict(x) for x in pile] for pile in d["gobbled"]]
        g.captured = [list(pile) for pile in d["captured"]]
        g.known_in_hand = [sorted(k) for k in d["known_in_hand"]]
        assert len(g.spaces) == g.num_spaces
        return g

    def to_state_dict(self) -> dict:
        """The state in the engine's state_dict format, without the generator word ``rng``."""
        return {
            "game": "sly",
            "version": 0,
            "num_players": self.num_players,
            "hen_houses": self.hen_houses,
            "reveal_scope": self.reveal_scope,
            "first_player": self.first_player,
            "current_player": self.current_player,
            "game_over": self.game_over,
            "end_reason": self.end_reason,
            "hands": [sorted(h) for h in self.hands],
            "spaces": [None if s is None else dict(s) for s in self.spaces],
            "gobbled": [[dict(x) for x in pile] for pile in self.gobbled],
            "captured": [list(pile) for pile in self.captured],
            "known_in_hand": [sorted(k) for k in self.known_in_hand],
            "scores": self.scores(),
        }

    def copy(self) -> SlyReference:
        return copy.deepcopy(self)

    # -- scoring ---------------------------------------------------------------------
    def scores(self) -> list[int]:
        """Points per seat from the piles, exactly as the Scoring section lists them."""
        pts = [0] * self.num_players
        # 1. each Safe Hen scores its space's value for its owner
        for s, sp in enumerate(self.spaces):
            if sp is not None and sp["safe"]:
                pts[sp["owner"]] += space_value(s)
        # 2. gobbled Hens: + their number, or - their number if the gobbler owned it
        for gobbler, pile in enumerate(self.gobbled):
            for hen in pile:
                pts[gobbler] += -hen["card"] if hen["owner"] == gobbler else hen["card"]
        # 3. each captured Fox scores the number of players for its captor
        for captor, pile in enumerate(self.captured):
            pts[captor] += self.num_players * len(pile)
        return pts

    # -- legal moves -----------------------------------------------------------------
    def legal_moves(self) -> list[dict]:
        """Every legal move of the player to act, in ``decode_action`` form."""
        if self.game_over:
            return []
        p = self.current_player
        moves = []
        # Lay: a card from hand on an empty space
        for card in sorted(set(self.hands[p])):
            for s, sp in enumerate(self.spaces):
                if sp is None:
                    moves.append({"type": "lay", "card": card, "space": s})
        # Expose: a face-down card of an opponent
        for s, sp in enumerate(self.spaces):
            if sp is not None and not sp["safe"] and sp["owner"] != p:
                moves.append({"type": "expose", "space": s})
        # Reveal: a house with a face-down card, or everything (by the reveal_scope option)
        if self.reveal_scope == "house":
            for h in range(self.hen_houses):
                if self._face_down_spaces(h):
                    moves.append({"type": "reveal", "house": h})
        else:
            if self._face_down_spaces(None):
                moves.append({"type": "reveal", "house": None})
        return moves

    def _face_down_spaces(self, house: int | None) -> list[int]:
        """Spaces holding a face-down card, in ``house`` (or anywhere for None)."""
        return [
            s for s, sp in enumerate(self.spaces)
            if sp is not None and not sp["safe"] and (house is None or house_of(s) == house)
        ]

    # -- applying a move -------------------------------------------------------------
    def apply(self, move: dict) -> None:
        """Apply a legal move for the player to act, then pass the turn / end the game."""
        assert not self.game_over, "the game is over"
        assert move in self.legal_moves(), f"illegal move {move} in state {self.to_state_dict()}"
        p = self.current_player
        kind = move["type"]
        if kind == "lay":
            self.hands[p].remove(move["card"])
            self.spaces[move["space"]] = {"owner": p, "card": move["card"], "safe": False}
            # The laid card could be any of the cards known to be in p's hand: forget them.
            self.known_in_hand[p] = []
        elif kind == "expose":
            s = move["space"]
            sp = self.spaces[s]
            if sp["card"] == FOX:
                # Right guess: the exposer captures the Fox; its space becomes empty.
                self.captured[p].append(sp["owner"])
                self.spaces[s] = None
            else:
                # Wrong guess: the Hen is Safe on its space for the rest of the game.
                sp["safe"] = True
        elif kind == "reveal":
            self._reveal(p, self._face_down_spaces(move["house"]))
        else:  # pragma: no cover
            raise AssertionError(f"unknown move type {kind!r}")

        if all(sp is not None and sp["safe"] for sp in self.spaces):
            self.game_over = True
            self.end_reason = "all_safe"
            self.current_player = (p + 1) % self.num_players
            return
        self.current_player = (p + 1) % self.num_players
        self._check_turn_start()

    def _tie_distance(self, active: int, owner: int) -> int:
        """0 for the active player, 1 for the player to their left, and so on."""
        return (owner - active) % self.num_players

    def _reveal(self, active: int, flipped: list[int]) -> None:
        """Resolve a Reveal of the face-down cards on the spaces ``flipped``."""
        foxes = [s for s in flipped if self.spaces[s]["card"] == FOX]
        hens = [s for s in flipped if self.spaces[s]["card"] != FOX]
        # Foxes rank only by seat, from the active player to the left.
        foxes.sort(key=lambda s: self._tie_distance(active, self.spaces[s]["owner"]))
        # Hens rank by number, higher first; equal numbers by seat from the active player.
        hens.sort(key=lambda s: (-self.spaces[s]["card"], self._tie_distance(active, self.spaces[s]["owner"])))

        going_home = []
        if foxes and hens:
            top_fox, top_hen = foxes[0], hens[0]
            fox_owner = self.spaces[top_fox]["owner"]
            hen = self.spaces[top_hen]
            self.gobbled[fox_owner].append({"owner": hen["owner"], "card": hen["card"]})
            self.spaces[top_hen] = None
            if len(hens) > 1:
                self.spaces[hens[1]]["safe"] = True
            going_home = foxes + hens[2:]  # the gobbling Fox goes home too
        elif hens:
            self.spaces[hens[0]]["safe"] = True
            going_home = hens[1:]
        else:
            going_home = foxes
        for s in going_home:
            sp = self.spaces[s]
            self.hands[sp["owner"]].append(sp["card"])
            self.hands[sp["owner"]].sort()
            # Everyone saw it flipped and returned: it is known to be in that hand.
            if sp["card"] not in self.known_in_hand[sp["owner"]]:
                self.known_in_hand[sp["owner"]].append(sp["card"])
                self.known_in_hand[sp["owner"]].sort()
            self.spaces[s] = None

    def _check_turn_start(self) -> None:
        """End the game if the player to act holds at most one card, with the final flip."""
        if len(self.hands[self.current_player]) <= 1:
            self.game_over = True
            self.end_reason = "hand"
            for sp in self.spaces:
                # Face-down Hens become Safe on their space; Foxes stay there, worth nothing.
                if sp is not None and not sp["safe"] and sp["card"] != FOX:
                    sp["safe"] = True

    # -- helpers for tests -----------------------------------------------------------
    def card_locations(self, seat: int) -> list[int]:
        """All of ``seat``'s cards wherever they are (hand, spaces, gobbled, captured)."""
        cards = list(self.hands[seat])
        cards += [sp["card"] for sp in self.spaces if sp is not None and sp["owner"] == seat]
        cards += [h["card"] for pile in self.gobbled for h in pile if h["owner"] == seat]
        cards += [FOX for pile in self.captured for owner in pile if owner == seat]
        return sorted(cards)


def build_state(num_players: int, spaces: dict | None = None, *, current: int = 0, hen_houses: int | None = None,
                reveal_scope: str = "house", first_player: int | str = 0, gobbled: dict | None = None,
                captured: dict | None = None, known_in_hand: dict | None = None, hands: dict | None = None) -> dict:
    """A hand-written position in state_dict form, for literal scenarios.

    ``spaces`` maps space -> (owner, card) for a face-down card or (owner, card, "safe");
    ``gobbled`` maps gobbler -> [(owner, card), ...]; ``captured`` maps captor -> [fox owners];
    every card not placed anywhere else is in its owner's hand (so the 7 cards are conserved),
    unless ``hands`` gives a seat's hand explicitly. ``scores`` is left out (the engine recomputes).
    """
    if hen_houses is None:
        hen_houses = 1 if num_players == 2 else 2
    spaces = spaces or {}
    gobbled = gobbled or {}
    captured = captured or {}
    known_in_hand = known_in_hand or {}
    space_list = [None] * (SPACES_PER_HOUSE * hen_houses)
    elsewhere = [set() for _ in range(num_players)]
    for s, entry in spaces.items():
        owner, card = entry[0], entry[1]
        safe = len(entry) > 2 and entry[2] == "safe"
        space_list[s] = {"owner": owner, "card": card, "safe": safe}
        elsewhere[owner].add(card)
    gob = [[{"owner": o, "card": c} for o, c in gobbled.get(p, [])] for p in range(num_players)]
    for pile in gob:
        for h in pile:
            elsewhere[h["owner"]].add(h["card"])
    cap = [list(captured.get(p, [])) for p in range(num_players)]
    for pile in cap:
        for owner in pile:
            elsewhere[owner].add(FOX)
    hand_list = [
        sorted(hands[p]) if hands and p in hands else sorted(set(ALL_CARDS) - elsewhere[p])
        for p in range(num_players)
    ]
    return {
        "game": "sly",
        "version": 0,
        "num_players": num_players,
        "hen_houses": hen_houses,
        "reveal_scope": reveal_scope,
        "first_player": first_player,
        "current_player": current,
        "game_over": False,
        "hands": hand_list,
        "spaces": space_list,
        "gobbled": gob,
        "captured": cap,
        "known_in_hand": [sorted(known_in_hand.get(p, [])) for p in range(num_players)],
    }
