"""Checking a game: the contract tests that ship with the package.

As ``pettingzoo.test.api_test`` checks any PettingZoo env (and ``pgx.api_test`` any Pgx
env), :func:`check_game` checks any game of the registry (``sly_scout_env.games``) against
everything generic code relies on, and raises ``AssertionError`` saying what broke::

    from sly_scout_env.testing import check_game

    check_game("sly")                 # every player count of the spec
    check_game("scout", players=2)    # one count (or a list of counts)
    check_game("scout", seed=7)       # every seed must pass; the checks are seeded from this one

It knows no game: it reads the game's :class:`~sly_scout_env.games.GameSpec` (player counts,
options with their allowed values, the package of its modules) and uses only the names of
``sly_scout_env/contract.py``. A run takes a few seconds per player count.

What it checks
--------------
Once per game:

``module contract`` (:func:`check_contract`)
    each role's module (``rules``, ``observation``, ``policies``, ``batch``, ``view``,
    ``codec``, ``text``, ``env``, ``heuristic``, ``determinize``) defines every name
    :data:`~sly_scout_env.contract.CONTRACT` lists, an optional module the game has
    (``features``, ``search``) the names of :data:`~sly_scout_env.contract.OPTIONAL`, and
    the contract functions take the same parameters as in the package's other games.
``options`` (:func:`check_options`)
    the raw env and the vector env refuse a bad player count, a value outside an option's
    choices (and its type twin: ``True`` for ``1``), an unknown option, a bad ``reward`` or
    ``max_steps`` with a ``ValueError`` naming the bad value and the allowed ones; every
    listed value is accepted.

Per player count, on the default options and on each other listed value of each option
(:func:`option_sets`):

``rules kernels`` (:func:`check_rules`)
    ``new_state`` holds the options; ``reset`` deals the same row for the same word;
    along uniform-random games to their end, ``legal_mask``'s count, the mask's sum and
    ``legal_actions`` agree (same ids, ascending; none once over) and ``apply_action``
    returns 0; ``encode_observation`` writes the env's whole observation.
``determinism`` (:func:`check_determinism`)
    two envs reset with one seed and given the same moves hold the same position at every
    move (state dicts, masks, every seat's observation, rewards); resetting with the seed
    again deals the game again.
``action validation`` (:func:`check_action_validation`, default options)
    the raw env refuses an illegal id, ``-1``, an id ``>= num_actions`` and non-ints (float,
    bool, ``None``, str, array) with a ``ValueError`` naming the action (and ``[0, N)`` for
    what is not an id), and the refused call changes nothing.
``state dict round trip`` (:func:`check_state_dict`)
    ``state_dict()`` is plain JSON; a fresh env loads it into the same position and plays on
    exactly as the original (its deals too); malformed dicts (a field set to a value no field
    takes, a field dropped unless optional, an unknown field, another game, another player
    count) are refused with a ``ValueError`` naming the field and change nothing.
``vector env`` (:func:`check_vector_env`)
    rows seeded like ``raw_env.reset(seed=s)`` hold the raw envs' positions move for move
    (state row, observation, mask, seat, rewards, terminations); a row's games, autoreset
    included, are the same whatever the batch size and the Numba thread count.
``PettingZoo`` (:func:`check_pettingzoo`, default options)
    ``pettingzoo.test.api_test`` on ``env()`` and ``raw_env()``, ``seed_test`` and, when
    the env lists render modes, ``render_test``.

A failure reads ``check_game('<game>', players=<n>): <check>: <what differed, where>`` (the
option set, the seed, the move), with the original error chained.

Adding a game
-------------
1. Write the game's folder (``<package>/rules.py``, ``observation.py``, ... : every role of
   ``sly_scout_env/contract.py``) and its versioned PettingZoo module.
2. Describe it with a :class:`~sly_scout_env.games.GameSpec` (name, player counts, options
   with their choices, ``package``, ``env_module_name``).
3. Run the checks. A game in the package's registry (an entry in ``games._SPECS``) is
   checked by name; a game kept out of the tree is checked from a registry of its own, a
   mapping of names to specs (or a function of a name), or its spec directly::

       from sly_scout_env.games import GameSpec, Option
       from sly_scout_env.testing import check_game

       MY_GAMES = {"mygame": GameSpec(name="mygame", title="My game", player_counts=(2, 3),
                                      default_players=2, unit="game", unit_doc="one game",
                                      end_reasons=("step cap", "the deck ran out"),
                                      options=(Option("variant", "basic", ("basic", "pro"), "rules variant"),),
                                      package="mygame", env_module_name="mygame.mygame_v0")}
       check_game("mygame", games=MY_GAMES)

   While it checks the vector env, such a game is made visible to the package's generic
   code under its name (the vector env looks games up in ``sly_scout_env.games``).

In a test suite, one test per game keeps the failures apart (pytest is not needed to import
this module; the checks raise plain ``AssertionError``)::

    import pytest
    from sly_scout_env.games import GAMES
    from sly_scout_env.testing import check_game

    @pytest.mark.parametrize("game", GAMES)
    def test_game(game):
        check_game(game)

The single checks take the same arguments (``check_state_dict("sly", 3)``), for a narrower
test or a quicker loop while writing a game. What the checks cannot know stays with the
game's own tests: the rules themselves (a reference implementation, written scenarios), the
wording of its texts, the layout of its actions and observation.
"""

from __future__ import annotations

from .game_checks import (
    check_action_validation,
    check_contract,
    check_determinism,
    check_game,
    check_options,
    check_pettingzoo,
    check_rules,
    check_state_dict,
    check_vector_env,
    option_sets,
)

__all__ = [
    "check_game", "check_contract", "check_options", "check_rules", "check_determinism",
    "check_action_validation", "check_state_dict", "check_vector_env", "check_pettingzoo", "option_sets",
]
