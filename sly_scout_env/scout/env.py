"""# Scout

| Import             | `from sly_scout_env import scout_v0`          |
|--------------------|-----------------------------------------------|
| Actions            | Discrete                                      |
| Parallel API       | No                                            |
| Manual Control     | No                                            |
| Agents             | `agents= ['player_0', 'player_1', ...]` (2-5) |
| Action Shape       | (1,)                                          |
| Action Values      | Discrete(254 / 614 / 740 / 740) for 2/3/4/5 players |
| Observation Shape  | (size depends on the player count, below)     |
| Observation Values | [-1e4, 1e4] float32                           |

Scout (Oink Games, Kei Kajino) for 2 to 5 players: the complete official rules
(rulebook 1.1 and its two-player section, see ``docs/scout_rules.md``) on a Numba
kernel state, as a PettingZoo AEC environment.

Contents: 1. Arguments and options; 2. Flow of a game; 3. Observation space;
4. Action space (with the MAX_HAND / MAX_SHOW proof); 5. Rewards; 6. state_dict format;
7. Decisions and fixed choices; 8. Version history.

## 1. Arguments and options

``scout_v0.env(**options)`` (PettingZoo's standard wrappers: an illegal move ends the
game with reward -1 for the mover) or ``scout_v0.raw_env(**options)`` (an illegal or
out-of-range action raises ``ValueError`` and changes nothing).

| option               | default | meaning |
|----------------------|---------|---------|
| `num_players`        | 4       | 2, 3, 4 or 5 |
| `rounds`             | players (2 for 2 players) | rounds in a game (int >= 1); `rounds=1` plays one hand |
| `ii_after_empty_set` | True    | round end (ii) also when the Scouts took the active set's last card (the literal rule); False: the owner then plays on and shows anything |
| `score_held_chips`   | True    | 2 players: each chip still held at the round end scores +1; False: 0 |
| `reward`             | "score" | "score": each agent is paid its round points when the round is scored; "win": at game end winners share +1, the others share -1; "margin": as "score", minus the mean of the others' round points (zero-sum) |
| `render_mode`        | None    | "ansi" (returns the table as text) or "human" (prints it) |
| `max_steps`          | None    | truncate after this many steps |

Unknown options or values raise ``ValueError`` naming the allowed ones.

## 2. Flow of a game

Round r (0-based) starts with seat ``r mod N``. Decks: 2 and 4 players drop the 9/10
card (44 cards), 3 players drop the nine cards with a 10 (36), 5 players use all 45.
The deck is shuffled in order and orientation with the game's own generator and dealt
in blocks: seat s gets ``deck[s*k:(s+1)*k]`` left to right (k = 11 / 12 / 11 / 9).
With 2 players, round 0 deals 11 each from the 44 and sets the other 22 aside in their
shuffled order and orientation; round 1 deals them (seat 0 the first 11, seat 1 the
next 11). With ``rounds`` > 2 this repeats in pairs (even rounds shuffle, odd rounds
deal the set-aside half).

* phase ``flip``: each player once, in seat order from the starting player, chooses
  action 0 (keep) or 1 (turn the whole hand; every card flips in place).
* phase ``play``: Show, Scout or Scout & Show (3-5 players). Scout & Show is played as
  its Scout half; then phase ``show_after_scout`` lets the same player choose the Show
  (only Shows that beat what remains are legal; one always exists).
* 2 players: a Scout costs the scout one chip (to nobody) and the same player acts
  again. When the player who does not own the active set is to act and can neither Show
  nor Scout, the round ends by (ii).
* 3-5 players: the turn passes left after each move (not after the Scout half of Scout &
  Show). When it would pass to the active set's owner, the round ends by (ii).
* After a round is scored the next one is dealt automatically; after the last one
  the phase is ``game_over``.

## 3. Observation space

``observe(agent)`` returns ``{"observation": float32 vector, "action_mask": int8}``.
The vector is the observing seat's view; seats are relative (0 = the observer, 1 = the
player to its left, ...). Numbers are raw card values 1..10 (0 = empty slot). With N
players and H = MAX_HAND:

{observation_pieces}

``sly_scout_env.scout.observation.observation_slices(N)`` gives the slices (the table is
generated from that module's ``PIECES``). The mask is non-zero only for the agent to act.

## 4. Action space

One flat ``Discrete(2 + 18 H)``; H = MAX_HAND (14 / 34 / 41 / 41), MAX_SHOW = 10:

| ids | move | dict (``decode_action``) |
|-----|------|------|
| 0, 1 | keep / turn the hand | `{"type": "flip", "flip": False/True}` |
| 2 + start*10 + (length-1) | Show hand[start:start+length] | `{"type": "show", "start", "length"}` |
| SCOUT_BASE + (end*2+flip)*H + position, SCOUT_BASE = 2 + 10H | Scout | `{"type": "scout", "end": "left"/"right", "flip": bool, "position"}` |
| SAS_BASE + same, SAS_BASE = SCOUT_BASE + 4H | Scout half of Scout & Show | `{"type": "scout_and_show", ...}` |

``position`` inserts before the card at that index (== hand size: after the last card).
With a one-card active set only ``end="left"`` is legal. ``encode_action`` is the
inverse; ``action_to_str`` gives plain words. Nothing is truncated:

* **MAX_SHOW = 10.** A set is cards of one number; each number is on 9 cards, so a set
  has at most 9 cards. A run has distinct consecutive numbers from 1..10: at most 10.
* **MAX_HAND, 2 players = 14.** A hand starts with 11 cards; cards enter a hand only by
  Scouting and each Scout costs one of the player's 3 chips: at most 11 + 3.
* **MAX_HAND, 3-5 players = deck - (N - 1)** (34, 41, 41). Cards leave a hand only by
  Showing, and a player left with no card after a Show ends the round at once (i);
  so during play every other player holds at least one card, and one hand holds at most
  the deck minus N - 1: 36-2 = 34, 44-3 = 41, 45-4 = 41. A hand before a Scout holds at
  most H - 1 cards, so positions 0..H-1 cover every insertion.

Should a hand-made state ever exceed this, the kernels refuse (``RuntimeError``); no
memory is written out of bounds.

## 5. Rewards

``reward="score"``: the reward of a step is the change of the agent's game total, i.e.
each agent receives its round points when the round is scored (+1 per collected card,
+1 per Scout chip, -1 per card in hand, except the owner who ended the round by (ii)).
The sum of an agent's rewards is its game score. ``reward="win"``: 0 until the game
ends, then winners share +1 and the others share -1 (all tied: 0). ``reward="margin"``:
as ``"score"``, minus the mean of what the other agents are paid in the same step; the
sum of an agent's rewards is its game score minus the mean of the others' (the rewards
of a step add up to 0 over the agents).

## 6. state_dict format

``raw_env.state_dict()`` returns plain JSON; ``raw_env.from_state_dict(d)`` validates
every field (``ValueError`` naming it) before loading. Cards are ``[up, down]``.

| key | value |
|-----|-------|
| game, version | "scout", 0 (version may be omitted) |
| num_players, rounds, ii_after_empty_set, score_held_chips | the options |
| round | round being played, 0-based (== rounds when game over) |
| starting_player, current_player | seats |
| phase | "flip", "play", "show_after_scout", "game_over" |
| hands | per seat, cards left to right (at most MAX_HAND) |
| active_set | cards left to right as shown (what remains after Scouts); a set or run |
| active_owner | seat that showed it (kept after it is scouted empty), None before the round's first Show |
| scout_chips | per seat: 3-5p chips received this round; 2p chips still held (0..3) |
| collected | per seat: cards collected this round, in order |
| scout_and_show_left | per seat bool (all False with 2 players) |
| set_aside | 2 players, even rounds: the 22 cards of the next round; else [] |
| known | per seat, per hand card: True if public (scouted this round) |
| round_scores, round_end_reasons | per finished round: scores per seat, "i" or "ii" |
| scores | game totals (must equal the sums of round_scores) |
| rng | the generator word (int64; may be omitted: 0) |

Each card may appear once over hands, active set, collected piles and set-aside, and
must be in the deck of that player count; card conservation is not required (a test
position may use a few cards). ``state_dict(from_state_dict(d)) == d``.

## 7. Decisions and fixed choices

* Turning the hand flips every card in place; the order is kept (reversing it as well
  would be strategically identical). The decision is private.
* (ii) holds even when the Scouts took the active set's last card (option
  ``ii_after_empty_set``); with False the owner plays on and shows anything.
  This option has no effect with 2 players (there (ii) is "the other player is stuck",
  which cannot happen with an empty active set).
* Scout & Show is one move that may start only with a Scout after which some Show is
  possible, so its chooser is never left with nothing to play.
* The whole Scout move (which card, flipped or not, where inserted) is public: the card
  is marked ``known`` in the scout's hand until it is shown or the round ends.
* 2 players: chips still held score +1 each (option ``score_held_chips``).
* Every action counts as a step, flip decisions included.

## 8. Version history

* v0: initial release.
"""  # noqa: E501 - rows of the markdown tables above (options, actions) cannot be wrapped

from __future__ import annotations

from .._aec import CardGameRawEnv, make_env_fn
from . import codec as C
from . import rules as R
from . import text as T
from .observation import encode_observation, observation_size, pieces_table
from .rules import CURRENT_PLAYER, ERR_HAND_FULL, O_ROUND, PHASE, PHASE_GAME_OVER, apply_action, legal_mask

if __doc__:  # the observation table comes from the one statement of the pieces
    __doc__ = __doc__.replace("{observation_pieces}", pieces_table())

class raw_env(CardGameRawEnv):
    """Scout as a PettingZoo AEC env (see the module docstring)."""

    metadata = {"render_modes": ["human", "ansi"], "name": "scout_v0", "is_parallelizable": False, "render_fps": 1}

    # -- configuration ------------------------------------------------------------------
    def _configure(self, **options) -> None:
        self.options = R.parse_options(**options)
        self.num_players = self.options["num_players"]
        self.max_hand = int(R.max_hand(self.num_players))
        self.num_actions = int(R.num_actions(self.num_players))
        self.observation_size = observation_size(self.num_players)
        self._state = R.new_state(**self.options)
        self._scores_view = self._state[R.O_SCORES : R.O_SCORES + self.num_players]
        self._scratch_k = R.make_scratch()
        self._round_scores: list[list[int]] = []
        self._round_end_reasons: list[str] = []

    # -- kernel hooks -----------------------------------------------------------------------
    def _k_reset(self, seed_word: int) -> None:
        R.reset(self._state, seed_word)
        self._round_scores = []
        self._round_end_reasons = []

    # The hooks below run on every step: they read the row with .item() and module-level
    # constants, because numpy scalar indexing and attribute lookups dominate at this scale.
    def _k_current_player(self) -> int:
        return self._state.item(CURRENT_PLAYER)

    def _k_game_over(self) -> bool:
        return self._state.item(PHASE) == PHASE_GAME_OVER

    def _k_legal_mask(self, out) -> None:
        if legal_mask(self._state, out, self._scratch_k) == ERR_HAND_FULL:
            raise RuntimeError(
                f"player_{self._k_current_player()}'s hand holds MAX_HAND={self.max_hand} cards and a Scout "
                "would add one; impossible under the rules (check the loaded state)"
            )

    def _k_apply(self, action) -> None:
        state = self._state
        before = state.item(O_ROUND)
        if apply_action(state, action, self._scratch_k) == ERR_HAND_FULL:
            raise RuntimeError(f"a Scout would exceed MAX_HAND={self.max_hand}; impossible under the rules")
        if state.item(O_ROUND) != before:  # a round was scored: keep its history for state_dict / rendering
            n = self.num_players
            self._round_scores.append([int(x) for x in state[R.O_LAST_ROUND_SCORES : R.O_LAST_ROUND_SCORES + n]])
            self._round_end_reasons.append("i" if state[R.O_LAST_END_REASON] == R.END_EMPTY_HAND else "ii")

    def _k_observe(self, seat, out) -> None:
        encode_observation(self._state, seat, out)

    def _k_points(self, out) -> None:
        out[:] = self._scores_view

    _k_final_scores = _k_points

    # -- text ---------------------------------------------------------------------------------
    def decode_action(self, a) -> dict:
        return T.decode_action(a, self.num_players)

    def encode_action(self, d) -> int:
        return T.encode_action(d, self.num_players)

    def action_to_str(self, a) -> str:
        s = self._state
        hand = active = None
        if self._has_reset and s[R.PHASE] in (R.PHASE_PLAY, R.PHASE_SHOW_AFTER_SCOUT):
            h = R.O_HANDS + int(s[R.CURRENT_PLAYER]) * R.HAND_CAP
            hand = s[h : h + s[R.O_HAND_LEN + s[R.CURRENT_PLAYER]]]
            active = s[R.O_ACTIVE : R.O_ACTIVE + s[R.O_ACTIVE_LEN]]
        return T.action_to_str(a, self.num_players, hand, active)

    def render_text(self, viewer) -> str:
        return T.render_text(self._state, viewer, (self._round_scores, self._round_end_reasons))

    def _k_state_dict(self) -> dict:
        return C.state_to_dict(self._state, (self._round_scores, self._round_end_reasons))

    def _load_state_dict(self, d: dict) -> None:
        row, (scores, reasons) = C.dict_to_state(d, self._state)
        self._state[:] = row
        self.options.update(
            rounds=int(row[R.O_ROUNDS]),
            ii_after_empty_set=bool(row[R.O_II_AFTER_EMPTY]),
            score_held_chips=bool(row[R.O_SCORE_HELD]),
        )
        self._round_scores = scores
        self._round_end_reasons = reasons


env = make_env_fn(raw_env)
