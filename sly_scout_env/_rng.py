"""The per-game random generator that lives inside a game's state row.

Every game state is one flat integer array; one 64-bit word of it holds the state of a
splitmix64 generator.  Because each game carries its own generator, a game plays the
same for the same seed whatever the batch size, the thread count or the order in which
games are evaluated.  splitmix64 was chosen because it is one 64-bit word, passes
BigCrush, and costs a handful of integer operations.

Where the word lives: in an ``int64`` row (every engine row) it is the one slot
``state[off]``; in the vector env's narrow ``int16`` rows (``sly_scout_env/kernels.py``,
"Narrow rows") it is four 16-bit limbs, ``state[off]`` the lowest. A game reserves
:data:`WORD_SLOTS` slots for it. :func:`word_load` and :func:`word_store` pick the layout
from the row's type when Numba compiles the caller, so the rules read and write the
generator the same way in both.

Seeds go through ``numpy.random.SeedSequence`` so that nearby seeds (0, 1, 2, ...)
give unrelated games.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.extending import overload

WORD_SLOTS = 4  # row slots a game reserves for its generator word (an int16 row needs four)

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)


def seed_word(seed: int | None) -> int:
    """The generator word (an int64) for ``seed``; ``None`` draws fresh OS entropy.

    The same ``seed`` always gives the same word.
    """
    if seed is not None:
        if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
            raise TypeError(f"seed must be an int or None, got {seed!r} ({type(seed).__name__})")
        if seed < 0:
            raise ValueError(f"seed must be a non-negative int or None, got {seed}")
    word = np.random.SeedSequence(seed).generate_state(1, np.uint64)[0]
    return int(word.view(np.int64))


def seed_words(seed: int | None, n: int) -> np.ndarray:
    """``n`` independent generator words derived from one seed (game ``i`` gets word ``i``).

    Word ``i`` depends only on ``seed`` and ``i``, never on ``n``, so game ``i`` of a
    batch is the same game whatever the batch size.
    """
    if seed is not None:
        seed_word(seed)  # validates
    entropy = np.random.SeedSequence(seed).entropy
    words = np.empty(n, dtype=np.int64)
    for i in range(n):
        child = np.random.SeedSequence(entropy, spawn_key=(i,))
        words[i] = child.generate_state(1, np.uint64)[0].view(np.int64)
    return words


def stream_words(seed: int | None, start: int, count: int) -> np.ndarray:
    """Seed words ``start .. start+count-1`` of the splitmix64 stream of ``seed`` (int64).

    Word ``i`` depends only on ``seed`` and ``i``: a chunk of games gets the same words
    whatever the chunking. ``seed=None`` draws fresh OS entropy. (A stream rather than a
    ``SeedSequence`` per game: deriving a million children costs seconds, the stream
    microseconds.) The same mixing as :func:`rng_next`, vectorised.
    """
    base = np.uint64(np.int64(seed_word(seed)).view(np.uint64))
    with np.errstate(over="ignore"):
        z = base + _GOLDEN * (np.arange(start, start + count, dtype=np.uint64) + np.uint64(1))
        z = (z ^ (z >> np.uint64(30))) * _MIX1
        z = (z ^ (z >> np.uint64(27))) * _MIX2
        z = z ^ (z >> np.uint64(31))
    return z.view(np.int64)


def word_load(state, off):
    """The generator word at ``state[off]`` as a uint64 (see the module docstring).

    In Python as in compiled code (where the ``overload`` below stands in for it)."""
    if state.dtype == np.int16:
        return np.uint64(sum(int(np.uint16(state[off + k].view(np.uint16))) << (16 * k) for k in range(4)))
    return np.int64(state[off]).view(np.uint64)


def word_store(state, off, word):
    """Store the 64-bit ``word`` as the generator at ``state[off]`` (in Python as in compiled code)."""
    w = int(word) & (2**64 - 1)
    if state.dtype == np.int16:
        for k in range(4):
            state[off + k] = np.uint16((w >> (16 * k)) & 0xFFFF).view(np.int16)
    else:
        state[off] = np.uint64(w).view(np.int64)


def _limbs(state):
    """True for a narrow (int16) row, whose word is four limbs."""
    return isinstance(state, types.Array) and state.dtype == types.int16


@overload(word_load, inline="always")
def _word_load(state, off):
    if _limbs(state):
        def load(state, off):  # written out: a loop here trips an inlining warning of Numba's
            return (np.uint64(np.uint16(state[off])) | (np.uint64(np.uint16(state[off + 1])) << np.uint64(16))
                    | (np.uint64(np.uint16(state[off + 2])) << np.uint64(32))
                    | (np.uint64(np.uint16(state[off + 3])) << np.uint64(48)))
        return load
    return lambda state, off: np.uint64(state[off])


@overload(word_store, inline="always")
def _word_store(state, off, word):
    if _limbs(state):
        def store(state, off, word):
            w = np.uint64(word)
            m = np.uint64(0xFFFF)
            state[off] = np.int16(np.uint16(w & m))
            state[off + 1] = np.int16(np.uint16((w >> np.uint64(16)) & m))
            state[off + 2] = np.int16(np.uint16((w >> np.uint64(32)) & m))
            state[off + 3] = np.int16(np.uint16((w >> np.uint64(48)) & m))
        return store

    def store(state, off, word):
        state[off] = np.int64(word)
    return store


@njit(cache=True, inline="always")
def rng_next(state, off):
    """Advance the generator stored at ``state[off]`` and return 64 random bits (uint64)."""
    z = word_load(state, off) + _GOLDEN
    word_store(state, off, z)
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    return z ^ (z >> np.uint64(31))


@njit(cache=True, inline="always")
def rng_below(state, off, n):
    """A uniform integer in ``[0, n)`` for ``1 <= n < 2**10``.

    Takes the top 53 bits as a fraction and scales it; the bias is below ``n / 2**53``.
    """
    return np.int64(((rng_next(state, off) >> np.uint64(11)) * np.uint64(n)) >> np.uint64(53))


@njit(cache=True, inline="always")
def rng_unit(state, off):
    """A float in ``(0, 1)``: the top 53 bits as a fraction, plus half a step (never 0 or 1)."""
    return (rng_next(state, off) >> np.uint64(11)) * (1.0 / 2.0**53) + 0.5 / 2.0**53


@njit(cache=True)
def rng_shuffle(state, off, arr, n):
    """Fisher-Yates shuffle of ``arr[:n]`` in place with the generator at ``state[off]``."""
    for i in range(n - 1, 0, -1):
        j = rng_below(state, off, i + 1)
        tmp = arr[i]
        arr[i] = arr[j]
        arr[j] = tmp
