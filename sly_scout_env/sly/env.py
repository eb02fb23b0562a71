"""# Sly

| Import              | `from sly_scout_env import sly_v0`                      |
|---------------------|---------------------------------------------------------|
| Actions             | Discrete                                                |
| Parallel API        | No                                                      |
| Manual control      | No                                                      |
| Agents              | `agents = ['player_0', 'player_1', ...]` (2 to 4)       |
| Action shape        | Discrete(34) with 1 Hen House, Discrete(67) with 2      |
| Action values       | [0, n)                                                  |
| Observation shape   | (7 + S*(11+P) + 4P + 14(P-1),) float32, plus `action_mask` int8 |

SLY (a Pack O Game title by Chris Handy, Perplext, 2024) is a bluffing game for 2-4
players. Each player owns seven cards in their colour, Hens ranked 1-6 and one Fox,
and lays them face down around Hen Houses whose four spaces are worth 1-4 points. On
a turn a player either *Lays* a card face down on an empty space, *Exposes* an
opponent's face-down card as their Fox (a Fox is captured, worth the number of
players; a Hen becomes Safe and scores its space for its owner), or *Reveals* a Hen
House (the top Fox's owner gobbles the top Hen, the next Hen becomes Safe, the rest go
home). The game ends when a player starts their turn with at most one card (every
face-down card is flipped: Hens become Safe, Foxes are worth nothing) or when every
space holds a Safe Hen. Full rules as implemented: `docs/sly_rules.md`.

## Arguments

``sly_v0.env(num_players=3, hen_houses=None, reveal_scope="house", first_player=0,
reward="score", max_steps=None, render_mode=None)``

- `num_players`: 2, 3 or 4.
- `hen_houses`: 1 or 2 Hen Houses (4 spaces each); `None` = 1 for 2 players, 2 for 3-4.
  **[decision]** the card mix of the 30-card pack leaves this open; about 2-3 cards per space.
- `reveal_scope`: `"house"` (a Reveal flips one chosen Hen House) or `"all"` (a Reveal
  flips every face-down card on the table). **[decision]** the description does not say
  how much a Reveal selects; one house keeps Reveals a targeted choice.
- `first_player`: `0` (seat 0 starts) or `"random"` (drawn from the game's own generator
  at reset, so it follows the seed). **[decision]**
- `reward`: `"score"` (the final points, paid when the game ends), `"win"` (zero-sum:
  winners share +1, losers share -1, all tie = 0) or `"margin"` (the final points minus
  the mean of the others', paid when the game ends; zero-sum).
- `max_steps`: truncate after this many actions (None = no limit; Fox-only Reveals
  can in principle repeat for ever).
- `render_mode`: `"ansi"` (returns the text picture) or `"human"` (prints it).
- Any other keyword or value raises `ValueError` naming it and the allowed values.

## Action space

`S = 4 * hen_houses` spaces, numbered house by house: space `s` lies in Hen House
`s // 4` and is worth `s % 4 + 1`. Cards: `0` = Fox, `1..6` = Hen of that rank.

| ids                      | action                                                        |
|--------------------------|---------------------------------------------------------------|
| `c*S + s` (c 0..6)       | Lay card `c` from hand face down on empty space `s`          |
| `7*S + s`                | Expose the opponent's face-down card on space `s`            |
| `8*S + h`                | Reveal Hen House `h` (only with `reveal_scope="house"`)      |
| `8*S + hen_houses`       | Reveal all face-down cards (only with `reveal_scope="all"`)  |

`n = 8*S + hen_houses + 1`. `env.unwrapped.decode_action(a)` gives
`{"type": "lay", "card", "space"}`, `{"type": "expose", "space"}` or
`{"type": "reveal", "house": int | None}`; `encode_action(dict)` is its inverse and
`action_to_str(a)` gives plain words. The mask marks exactly the legal moves: a Lay
needs the card in hand and the space empty, an Expose a face-down opponent card, a
Reveal at least one face-down card in its scope.

## Observation space

`observe(agent)` returns `{"observation": float32 vector, "action_mask": int8 vector}`
(the mask is all zeros for agents not to act). Seats are relative: 0 = the observer,
1 = the player to their left, ... With P players and S spaces:

{observation_pieces}

The table is generated from `sly_scout_env/sly/observation.py`'s `PIECES`, which
also gives the exact offsets (`observation_slices`).

## Rewards

- `reward="score"`: 0 on every step, then each player's final points when the game
  ends (Safe Hens: their space value; gobbled Hens: +rank, or -rank for one's own;
  captured Foxes: the number of players).
- `reward="win"`: at the end, winners share +1 and the others share -1 (0 if all tie).
- `reward="margin"`: at the end, each player's final points minus the mean of the
  others' final points.
- The standard `env()` applies PettingZoo's `TerminateIllegalWrapper`: an illegal move
  ends the game with -1 for the mover. The raw env raises `ValueError` instead and
  leaves the state unchanged.

## state_dict()

`env.unwrapped.state_dict()` returns plain JSON; `env.unwrapped.from_state_dict(d)`
validates every field (raising `ValueError` naming it) and loads it:

```
{"game": "sly", "version": 0, "num_players": P, "hen_houses": 1|2,
 "reveal_scope": "house"|"all", "first_player": 0|"random",
 "current_player": seat, "game_over": bool, "end_reason": null|"hand"|"all_safe",
 "hands": [[cards ascending] per seat],
 "spaces": [null | {"owner": seat, "card": c, "safe": bool} per space],
 "gobbled": [[{"owner": seat, "card": hen}, ... in gobbling order] per gobbler],
 "captured": [[fox owner seat, ... in capture order] per captor],
 "known_in_hand": [[cards ascending] per seat],
 "scores": [points so far per seat], "rng": generator word (int64)}
```

After the final flip, Foxes still on the table appear with `"safe": false` (in a
finished game they are face up). On load: `version`, `rng`, `end_reason` and `scores`
may be omitted (scores are recomputed and, if given, must match; an omitted (or null)
`end_reason` of a finished game reads as `"all_safe"` when every space holds a Safe
Hen, else `"hand"`; an omitted `rng` keeps the env's generator word).
`hen_houses` must match the env (it fixes the action space); `reveal_scope` and
`first_player` are taken from the dict. Every player's 7 cards must each be in
exactly one place. A running game must not be all Safe and its player to act must
have a legal move; a finished one has no face-down Hen.

## Decisions (each an option above, or fixed)

- Hen Houses (`hen_houses`), Reveal scope (`reveal_scope`), first player
  (`first_player`): see Arguments.
- Fixed: the <= 1 card check runs at the start of each turn (after the previous
  action); the final flip turns every face-down card: Hens become Safe and score,
  Foxes stay face up on their space worth nothing (no one captures them).
- Fixed: the turn passes to the left after every action, also the game-ending one
  (so `current_player` of a finished game is the next seat).
- Fixed: public knowledge: a card flipped by a Reveal and sent home is known to be in
  its owner's hand until that owner lays a card (then the laid card might be it).

## Version history

- v0: initial release.
"""

from __future__ import annotations

from .._aec import CardGameRawEnv, make_env_fn
from . import codec as C
from . import rules as R
from . import text as T
from .observation import encode_observation, observation_size, pieces_table

if __doc__:  # the observation table comes from the one statement of the pieces
    __doc__ = __doc__.replace("{observation_pieces}", pieces_table())


class raw_env(CardGameRawEnv):
    """Sly as a PettingZoo AEC env (no wrappers); see the module docstring."""

    metadata = {"render_modes": ["human", "ansi"], "name": "sly_v0", "is_parallelizable": False, "render_fps": 1}

    def _configure(self, **options):
        allowed = ("num_players", "hen_houses", "reveal_scope", "first_player")
        for k in options:
            if k not in allowed:
                raise ValueError(
                    f"unknown option {k!r} for sly_v0; allowed options: {', '.join(allowed)}, "
                    "render_mode, reward, max_steps"
                )
        self.options = R.parse_options(**options)
        self.num_players = self.options["num_players"]
        self.hen_houses = self.options["hen_houses"]
        self.num_actions = R.num_actions(self.hen_houses)
        self.observation_size = observation_size(self.num_players, self.hen_houses)
        self._state = R.new_state(**self.options)
        self._scratch_k = R.make_scratch()

    # -- kernel hooks (thin: read the row directly where a kernel call would cost more) --
    def _k_reset(self, seed_word):
        R.reset(self._state, seed_word)

    def _k_current_player(self) -> int:
        return int(self._state[R.CURRENT_PLAYER])

    def _k_game_over(self) -> bool:
        return bool(self._state[R.PHASE] == R.PHASE_GAME_OVER)

    def _k_legal_mask(self, out):
        R.legal_mask(self._state, out, self._scratch_k)

    def _k_apply(self, action):
        R.apply_action(self._state, action, self._scratch_k)

    def _k_observe(self, seat, out):
        encode_observation(self._state, seat, out)

    def _k_points(self, out):
        if self._state[R.PHASE] == R.PHASE_GAME_OVER:
            R.scores(self._state, out)
        else:
            out[:] = 0.0

    def _k_final_scores(self, out):
        R.scores(self._state, out)

    # -- text helpers ---------------------------------------------------------------------
    def decode_action(self, action) -> dict:
        return T.decode_action(action, self.hen_houses)

    def encode_action(self, move: dict) -> int:
        return T.encode_action(move, self.hen_houses)

    def action_to_str(self, action) -> str:
        return T.action_to_str(action, self.hen_houses)

    def render_text(self, viewer=None) -> str:
        return T.render_text(self._state, viewer, None)

    def _k_state_dict(self) -> dict:
        return C.state_to_dict(self._state, None)

    def _load_state_dict(self, d: dict) -> None:
        row, _ = C.dict_to_state(d, self._state)
        self._state[:] = row
        self.options["reveal_scope"] = d["reveal_scope"]
        self.options["first_player"] = d["first_player"]


env = make_env_fn(raw_env)

__all__ = ["env", "raw_env"]
