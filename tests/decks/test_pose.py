"""Card.pose: every kind of card as the Variant the grader needs."""

from dataclasses import replace
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


def test_choice_letters_become_zero_based_indices_of_the_options_as_shown():
    several, one = CARDS["ln-batch-free"].pose(), CARDS["ln-one-answer"].pose()
    assert several.kind == "choice"
    assert sorted(several.options) == sorted(("BatchNorm", "LayerNorm", "RMSNorm", "都有关"))
    assert {several.options[i] for i in several.answer} == {"LayerNorm", "RMSNorm"}   # [B, C] as written
    assert {one.options[i] for i in one.answer} == {"LayerNorm"}                        # B as written
    assert one.tolerance is None


@pytest.mark.parametrize("seed", [None, *range(30)])
def test_choice_options_are_shuffled_by_the_seed_and_the_layout_is_recorded(seed):
    card = CARDS["ln-batch-free"]
    variant = card.pose(seed)
    written = card.body["options"]
    assert variant.options == tuple(written[i] for i in variant.params["order"])
    assert card.pose(seed) == variant                               # replayable from the seed alone


def test_the_right_option_moves_between_showings():
    card = CARDS["ln-batch-free"]
    positions = {card.pose(seed).answer for seed in range(40)}
    assert len(positions) >= 4
    letters = [next(iter(CARDS["ln-one-answer"].pose(seed).answer)) for seed in range(200)]
    assert 0.35 < letters.count(0) / len(letters) < 0.65              # two options: A about half the time


def test_a_pinned_option_stays_in_its_written_place():
    card = replace(CARDS["ln-batch-free"], body={**CARDS["ln-batch-free"].body, "pin": ["D"]})
    shown = [card.pose(seed) for seed in range(40)]
    assert all(variant.options[3] == "都有关" for variant in shown)
    assert len({variant.options for variant in shown}) > 3            # the others still move


def test_truefalse_shows_its_true_or_its_false_form_about_half_the_time():
    card = CARDS["residual-shape"]
    shown = [card.pose(seed) for seed in range(400)]
    assert all(variant.options == ("对 / True", "错 / False") for variant in shown)
    for variant in shown:   # the written statement is false; its opposite is true
        true_form = variant.prompt == "残差连接要求子层的输入和输出形状相同。"
        assert variant.answer == frozenset({0 if true_form else 1})
        assert variant.params == {"form": "true" if true_form else "false"}
    share_true = sum(variant.answer == frozenset({0}) for variant in shown) / len(shown)
    assert 0.4 < share_true < 0.6
    assert CARDS["residual-shape"].why == "逐元素相加需要同样的形状。"


def test_without_a_seed_the_layout_follows_the_card_not_one_fixed_slot():
    # seed None (the first showing, export variant 0) must not put every card's answer in one place
    forms = {replace(CARDS["residual-shape"], id=f"tf-{i}").pose().params["form"] for i in range(20)}
    assert forms == {"true", "false"}


def test_numbers_are_exact_for_integers_and_to_four_decimals_for_floats():
    integer, given = CARDS["encoder-params"].pose(), CARDS["sqrt-dk"].pose()
    assert (integer.kind, integer.answer, integer.tolerance) == ("scalar", 3145728, None)
    assert (given.answer, given.tolerance) == (0.125, Tolerance(abs=0.001))
    floats, ints = CARDS["pe-odd"].pose(), CARDS["pe-ints"].pose()
    assert (floats.kind, floats.answer, floats.tolerance) == ("vector", (0.841471, 0.540302, 0.002154),
                                                              Tolerance(abs=1e-4))
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
    assert variant.options == tuple(items[i] for i in variant.params["order"])


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


def test_a_generated_card_is_listed_by_the_question_its_example_poses():
    """Listings and search show what a learner reads (the notes' numbers), not the generator call behind it."""
    card = CARDS["ln-vector"]
    expected = registry.get("layer_norm").draw(np.random.default_rng(0), size=4, x=[2, 4, 6, 8]).prompt
    assert card.question == expected and "layer_norm(" not in card.question


def test_generated_variants_change_with_the_seed():
    prompts = {CARDS["softmax-plain"].pose(seed).prompt for seed in range(10)}
    assert len(prompts) > 3


@pytest.mark.parametrize("card", DECK.cards, ids=lambda card: card.id)
def test_every_card_poses_with_its_seed_recorded(card):
    variant = card.pose(11)
    assert variant.prompt and variant.seed == 11


def test_cards_shown_with_one_seed_are_not_laid_out_alike():
    # quiz and worksheet give each card its own seed, but an audit or two decks may share one
    twins = [replace(CARDS["ln-batch-free"], id=f"twin-{i}") for i in range(12)]
    assert len({twin.pose(5).options for twin in twins}) > 3


DECK_HEAD = "deck: pins\ntitle: t\nsource: s\ncards:\n"


def _problems(tmp_path, card_yaml: str) -> list[str]:
    from studytool.decks.loader import scan

    path = tmp_path / "pins.yaml"
    path.write_text(DECK_HEAD + card_yaml, encoding="utf-8")
    return [line.split(": ", 1)[1] for line in scan([path]).problems]


def test_an_option_that_speaks_of_the_others_must_be_pinned(tmp_path):
    card = ("  - id: c\n    kind: choice\n    topic: layernorm\n    q: 哪个？\n"
            "    options: [BatchNorm, LayerNorm, 以上都不对]\n    answer: B\n")
    assert _problems(tmp_path, card) == ["card c: option C ('以上都不对') speaks of the other options: pin it "
                                         "(pin: [C]) so shuffling keeps it in place"]
    assert _problems(tmp_path, card + "    pin: [C]\n") == []
    assert _problems(tmp_path, card + "    pin: [C, E]\n") == ["card c: pin E is not among the 3 options (A to C)"]


def test_a_truefalse_card_needs_both_forms(tmp_path):
    card = "  - id: t\n    kind: truefalse\n    topic: layernorm\n    statement: s\n    answer: true\n    why: w\n"
    assert _problems(tmp_path, card) == [
        "card t: missing 'opposite' (a truefalse card needs statement, answer, opposite, why)"]
    assert _problems(tmp_path, card + "    opposite: o\n") == []
