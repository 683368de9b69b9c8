"""distinct_variants: K different posings of a card, the same ones for the same seeds."""

import itertools

from studytool.config import Settings
from studytool.decks.loader import load_decks
from studytool.problems.answers import format_answer
from studytool.problems.distinct import distinct_variants
from studytool.problems.variant import Variant


class TwoFaced:
    """A card with only two different posings: even and odd seeds."""

    def __init__(self):
        self.posed = 0

    def pose(self, seed=None):
        self.posed += 1
        n = (seed or 0) % 2
        return Variant(f"{n} + 1 = ?", "scalar", n + 1)


def test_repeats_are_skipped_in_seed_order():
    pairs = distinct_variants(TwoFaced(), 2, [0, 2, 4, 7, 9])
    assert [seed for seed, _ in pairs] == [0, 7]


def test_a_card_with_fewer_posings_than_k_stops_after_the_tries():
    card = TwoFaced()
    pairs = distinct_variants(card, 3, itertools.count(), tries=50)
    assert len(pairs) == 2 and card.posed == 50


def test_bundled_cards_with_small_parameter_spaces_give_k_different_notes():
    cards = {card.key: card for deck in load_decks(Settings()) for card in deck.cards}
    seeds = [None, *range(1, 200)]
    for key in ("transformer-arch/gen-emb-params", "transformer-arch/gen-attn-scale"):
        pairs = distinct_variants(cards[key], 3, seeds)
        shown = {(v.prompt, format_answer(v)) for _, v in pairs}
        assert len(shown) == 3, key
        assert pairs[0][0] is None  # the notes' own example stays first
        assert [s for s, _ in pairs] == [s for s, _ in distinct_variants(cards[key], 3, seeds)]  # deterministic
