"""Card.pose: every kind of card as the Variant the grader needs."""

from pathlib import Path

import numpy as np
import pytest

from studytool.decks.loader import load_deck_file
from studytool.problems import registry
from studytool.problems.variant import Tolerance

DECK = load_deck_file(Path(__file__).parent / "good" / "every-kind.yaml")
CARDS = {card.id: card for card in DECK.cards}


def test_recall_is_posed_with_its_reference_answer():
    variant = CARDS["ln-direction"].pose()
    assert (variant.kind, variant.prompt, variant.answer) == (
        "recall", "LayerNorm 在哪个方向上求均值和方差？", "在单个 token 的特征维上。")


def test_choice_letters_become_zero_based_indices():
    several, one = CARDS["ln-batch-free"].pose(), CARDS["ln-one-answer"].pose()
    assert several.kind == "choice"
    assert several.options == ("BatchNorm", "LayerNorm", "RMSNorm", "都有关")
    assert several.answer == frozenset({1, 2})           # [B, C]
    assert one.answer == frozenset({1})                  # B
    assert one.tolerance is None


def test_truefalse_is_a_choice_between_true_and_false():
    variant = CARDS["residual-shape"].pose()
    assert variant.kind == "choice"
    assert variant.prompt == "残差连接要求子层的输入和输出形状不同。"
    assert variant.options == ("对 / True", "错 / False")
    assert variant.answer == frozenset({1})              # false -> the second option
    assert CARDS["residual-shape"].why == "逐元素相加需要同样的形状。"


def test_numbers_are_exact_for_integers_and_to_four_decimals_for_floats():
    integer, given = CARDS["encoder-params"].pose(), CARDS["sqrt-dk"].pose()
    assert (integer.kind, integer.answer, integer.tolerance) == ("scalar", 3145728, None)
    assert (given.answer, given.tolerance) == (0.125, Tolerance(abs=0.001))
    floats, ints = CARDS["pe-odd"].pose(), CARDS["pe-ints"].pose()
    assert (floats.kind, floats.answer, floats.tolerance) == ("vector", (0.841471, 0.540302, 0.002154),
                                                              Tolerance(abs=5e-5))
    assert (ints.answer, ints.tolerance) == ((0.0, 1.0), None)


def test_shape_is_a_tuple_of_ints():
    variant = CARDS["score-shape"].pose()
    assert (variant.kind, variant.answer, variant.tolerance) == ("shape", (32, 8, 10, 10), None)


@pytest.mark.parametrize("seed", [None, *range(40)])
def test_order_shows_a_shuffle_whose_answer_restores_the_items(seed):
    card = CARDS["encoder-order"]
    items = card.body["items"]
    variant = card.pose(seed)
    assert variant.kind == "sequence"
    assert sorted(variant.options) == sorted(items)
    assert variant.options != tuple(items)               # never shown already in order
    assert [variant.options[i] for i in variant.answer] == items
    assert card.pose(seed) == variant                     # the same seed, the same shuffle


def test_order_shuffles_differ_between_seeds():
    shown = {CARDS["encoder-order"].pose(seed).options for seed in range(40)}
    assert len(shown) > 5


def test_generated_draws_from_its_generator_with_the_seed():
    card = CARDS["ln-vector"]
    variant = card.pose(7)
    expected = registry.get("layer_norm").draw(np.random.default_rng(7), size=4)
    assert (variant.prompt, variant.answer, variant.params) == (expected.prompt, expected.answer, expected.params)
    assert (variant.generator, variant.seed) == ("layer_norm", 7)
    assert len(variant.params["x"]) == 4                 # params: {size: 4}


def test_generated_without_a_seed_poses_the_notes_example():
    variant = CARDS["ln-vector"].pose()
    expected = registry.get("layer_norm").draw(np.random.default_rng(0), size=4, x=[2, 4, 6, 8])
    assert (variant.prompt, variant.answer) == (expected.prompt, expected.answer)
    assert variant.params["x"] == [2, 4, 6, 8]
    assert variant.seed is None


def test_generated_variants_change_with_the_seed():
    prompts = {CARDS["softmax-plain"].pose(seed).prompt for seed in range(10)}
    assert len(prompts) > 3


@pytest.mark.parametrize("card", DECK.cards, ids=lambda card: card.id)
def test_every_card_poses_with_its_seed_recorded(card):
    variant = card.pose(11)
    assert variant.prompt and variant.seed == 11
