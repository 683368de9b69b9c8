"""Anki's fuzz factor for a card, computed as its Rust backend draws it, so studytool can be given the same.

Anki draws a card's fuzz from `StdRng::seed_from_u64(card id + reps).random_range(0.0..1.0)`: rand's
ChaCha12 seeded through PCG32, and an f32 from the top 23 bits of the first word. Which random number
a card gets is not a scheduling rule (studytool seeds its own from the card's key), so the oracle tests
hand both schedulers this one and compare the rules. `test_scheduler_anki_days.py` checks this port
against Anki's own `fuzz_delta`.
"""

from __future__ import annotations

MASK32 = 0xFFFFFFFF
MASK64 = (1 << 64) - 1


def _rotate(x: int, n: int) -> int:
    return ((x << n) | (x >> (32 - n))) & MASK32


def _quarter_round(s: list[int], a: int, b: int, c: int, d: int) -> None:
    s[a] = (s[a] + s[b]) & MASK32
    s[d] = _rotate(s[d] ^ s[a], 16)
    s[c] = (s[c] + s[d]) & MASK32
    s[b] = _rotate(s[b] ^ s[c], 12)
    s[a] = (s[a] + s[b]) & MASK32
    s[d] = _rotate(s[d] ^ s[a], 8)
    s[c] = (s[c] + s[d]) & MASK32
    s[b] = _rotate(s[b] ^ s[c], 7)


def _key(seed: int) -> list[int]:
    """rand_core's `seed_from_u64`: eight PCG32 outputs."""
    words, state = [], seed & MASK64
    for _ in range(8):
        state = (state * 6364136223846793005 + 11634580027462260723) & MASK64
        xorshifted = (((state >> 18) ^ state) >> 27) & MASK32
        rotation = state >> 59
        words.append(((xorshifted >> rotation) | (xorshifted << ((32 - rotation) % 32))) & MASK32)
    return words


def _first_word(seed: int) -> int:
    """The first u32 of ChaCha12 keyed by `seed` (block 0, nonce 0)."""
    initial = [0x61707865, 0x3320646E, 0x79622D32, 0x6B206574, *_key(seed), 0, 0, 0, 0]
    s = list(initial)
    for _ in range(6):   # 12 rounds: columns, then diagonals
        for a, b, c, d in ((0, 4, 8, 12), (1, 5, 9, 13), (2, 6, 10, 14), (3, 7, 11, 15),
                           (0, 5, 10, 15), (1, 6, 11, 12), (2, 7, 8, 13), (3, 4, 9, 14)):
            _quarter_round(s, a, b, c, d)
    return (s[0] + initial[0]) & MASK32


def fuzz_factor(card_id: int, reps: int) -> float:
    """Anki's `get_fuzz_factor` for a card with `reps` answers before this one."""
    return (_first_word(card_id + reps) >> 9) / (1 << 23)
