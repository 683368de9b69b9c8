"""What a deck says of itself: the language its cards are written in (issue 22, item 6)."""

from __future__ import annotations

from studytool.decks.model import Card, Deck


def deck(*questions: str, generated: int = 0) -> Deck:
    cards = [Card("d", f"c{n}", "recall", "layernorm", body={"q": q, "a": "."}) for n, q in enumerate(questions)]
    cards += [Card("d", f"g{n}", "generated", "layernorm", body={"generator": "layer_norm"}) for n in range(generated)]
    return Deck("d", "Title", "", tuple(cards))


def test_a_deck_is_chinese_when_most_of_its_questions_are():
    assert deck("LayerNorm 在哪个方向上求均值？", "What is d_k?", "为什么要除以 √d_k？").language == "zh"
    assert deck("LayerNorm 在哪个方向上求均值？", "What is d_k?", "Why divide by √d_k?").language == "en"


def test_generated_questions_are_chinese_the_generators_write_chinese():
    assert deck("What is d_k?", generated=2).language == "zh"


def test_only_a_chinese_deck_sets_the_language_around_its_cards():
    assert deck("为什么要除以 √d_k？").chrome == "zh" and deck("Why divide by √d_k?").chrome is None
