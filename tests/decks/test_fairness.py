"""Issue 23's fairness measures: each one able to fail on a planted card, the bundled cards passing them."""

from __future__ import annotations

import pytest

from studytool.config import Settings
from studytool.decks.audit import audit
from studytool.decks.fairness import computed_numbers, degenerate, measure, play
from studytool.decks.loader import load_decks
from studytool.decks.model import Card, Deck
from studytool.problems.variant import Tolerance, Variant

FOUR = Tolerance(abs=1e-4)


def generated(card_id: str, generator: str, **params) -> Card:
    return Card("t", card_id, "generated", "layernorm", body={"generator": generator, "params": params})


def test_a_beam_card_that_the_surprise_word_always_wins_is_beaten_by_that_rule():
    # pinned so that the less likely first word (B) leads to the best sequence in every draw: the rule scores 100%
    pinned = generated("b", "beam_search", p_first=0.6, x_after_a=0.55, x_after_b=0.9, ask="prob")
    report = measure(pinned, 10)
    assert report.rules["less likely first word"] == 1.0 and report.beaten_by() == ["less likely first word"]
    result = audit([Deck("t", "t", "t", (pinned,))], seeds=5, fair_seeds=10)
    assert not result.checks["fair_items"] and "b" in result.decks[0].unfair


def test_drawn_beam_cards_are_not_beaten_by_it():
    report = measure(generated("b", "beam_search", ask="beam"), 60)
    assert report.rules["less likely first word"] <= 0.6 and not report.beaten_by()


def test_the_first_shape_in_the_prompt_is_played():
    copied = Variant("输入 X 的形状是 [2, 3, 8]，投影后 Q 的形状是什么？", "shape", (2, 3, 8))
    named = Variant("输入 X：B = 2，L = 3，d_model = 8。投影后 Q 的形状是什么？", "shape", (2, 3, 8))
    assert play(copied)["first shape in the prompt"] == (True, 0.0)
    assert play(named)["first shape in the prompt"] == (False, 0.0)


def test_the_longest_and_the_most_similar_option_are_played():
    key_and_mirror = Variant("q", "choice", frozenset({0}), options=(
        "BN 按列跨样本统计，LN 按行跨特征统计", "BN 按行跨特征统计，LN 按列跨样本统计", "都按列", "都按行"))
    played = play(key_and_mirror)
    assert played["longest option"] == (True, 0.25) and played["most similar option"] == (True, 0.25)


def test_a_near_one_hot_key_and_a_count_of_one_are_degenerate():
    assert degenerate(Variant("q", "vector", (0.99995, 0.00005), FOUR))   # shows as 1.0000 and 0.0000
    assert not degenerate(Variant("q", "vector", (0.7311, 0.2689), FOUR))
    assert degenerate(Variant("q", "scalar", 1)) and not degenerate(Variant("q", "scalar", 7))
    saturated = measure(generated("s", "softmax", x=[0, 20], ask="vector"), 5)
    assert saturated.degenerate == 1.0 and "fair_items" in saturated.problems(5)


def test_computed_numbers_count_decimals_not_mask_entries():
    assert computed_numbers(Variant("q", "vector", (0.5, 1.0, -1.2247), FOUR)) == 2
    assert computed_numbers(Variant("q", "matrix", ((1, 0), (1, 1)))) == 0
    eight = measure(generated("ln", "layer_norm", size=8, low=-20, high=20, ask="output"), 5)
    assert eight.computed[1] == 8 and "level_sizes" in eight.problems(5)


def test_a_card_that_only_grows_its_numbers_is_flat_at_level_three(monkeypatch):
    from studytool.problems import levels

    # level 3 of this stand-in only widens the range: as many worked steps as level 1
    monkeypatch.setitem(levels.TABLE, "layer_norm", {2: {"low": (-9,)}, 3: {"low": (-20,)}})
    report = measure(generated("ln", "layer_norm", ask="mean"), 10)
    assert report.steps[3] == report.steps[1] and "level_three_combines" in report.problems(10)


@pytest.fixture(scope="module")
def bundled_cards():
    return [card for deck in load_decks(Settings()) for card in deck.cards]


def test_order_cards_may_show_the_right_order(bundled_cards):
    # issue 23: 0 of 800 showings were in order, so one permutation could always be ruled out
    three = Card("t", "o", "order", "layernorm", body={"q": "排序", "items": ["a", "b", "c"]})
    shown = [three.pose(seed).answer for seed in range(300)]
    assert 20 <= shown.count((0, 1, 2)) <= 80   # about 1 in 6


def test_every_bundled_generated_card_grows_a_step_by_level_three(bundled_cards):
    for card in bundled_cards:
        if card.kind == "generated":
            report = measure(card, 8)
            assert report.steps[3] > report.steps[1], (card.key, report.steps)
