"""`decks audit`: every rule of issue 12 measured, each check able to fail, the bundled decks passing."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from typer.testing import CliRunner

from studytool.cli import app
from studytool.config import Settings
from studytool.decks.audit import (MAX_FIXED_NUMERIC, audit, copied_numbers, display_width, item_stats,
                                   near_duplicates)
from studytool.decks.loader import load_decks
from studytool.decks.model import Card, Deck

CHOICE = {"q": "变长文本通常用哪种归一化？", "options": ["BatchNorm", "LayerNorm", "GroupNorm", "不用归一化"], "answer": "B"}
TF = {"statement": "LayerNorm 跨 batch 统计。", "answer": False, "opposite": "LayerNorm 只在单个样本内统计。"}


def deck(*cards: Card) -> Deck:
    return Deck("t", "test", "tests", cards)


def card(card_id: str, kind: str, **body) -> Card:
    return Card("t", card_id, kind, "layernorm", body=body)


@pytest.fixture(scope="module")
def bundled():
    return load_decks(Settings())


def test_the_bundled_decks_pass_their_own_audit(bundled):
    result = audit(bundled, fair_seeds=40)   # issue 23's fairness at a modest count; `decks audit` draws 100
    assert result.checks == {check: True for check in result.checks}, result.to_json()
    assert result.fixed_numeric <= MAX_FIXED_NUMERIC


def test_shuffled_choices_spread_the_right_letter_and_move():
    result = audit([deck(*(card(f"c{i}", "choice", **CHOICE) for i in range(10)))])
    shares = result.decks[0].letter_share
    assert set(shares) == {"A", "B", "C", "D"} and max(shares.values()) <= 0.4
    assert result.checks["answer_position"] and result.checks["choices_move"]


def test_a_choice_card_whose_right_answer_never_moves_fails():
    pinned = card("pinned", "choice", **CHOICE, pin=["A", "B", "C", "D"])
    result = audit([deck(pinned)])
    assert result.decks[0].fixed_choice == ["pinned"]
    assert not result.checks["choices_move"] and not result.checks["answer_position"]   # B every time


def test_true_false_balance_is_measured_and_can_fail():
    balanced = audit([deck(*(card(f"tf{i}", "truefalse", **TF) for i in range(5)))])
    assert 0.35 <= balanced.decks[0].true_share <= 0.65 and balanced.checks["true_false_balance"]
    one_showing = audit([deck(card("tf", "truefalse", **TF))], seeds=1)
    assert one_showing.decks[0].true_share in (0.0, 1.0) and not one_showing.checks["true_false_balance"]


def test_fixed_numeric_cards_are_counted():
    numbers = [card(f"n{i}", "number", q=f"d_model = {i}，多少？", answer=i) for i in range(MAX_FIXED_NUMERIC + 1)]
    result = audit([deck(*numbers)])
    assert result.fixed_numeric == MAX_FIXED_NUMERIC + 1 and not result.checks["fixed_numeric"]


def test_a_shape_question_without_sizes_fails():
    result = audit([deck(card("s", "shape", q="注意力分数的形状是？", answer=[32, 8, 10, 10]))])
    assert result.decks[0].no_sizes == ["s"] and not result.checks["sizes_given"]


def test_generated_cards_that_cannot_vary_fail_unless_small_by_nature():
    pinned = card("g", "generated", generator="layer_norm", params={"ask": "mean", "x": [1, 2, 3, 4]})
    axis = card("a", "generated", generator="batch_norm", params={"ask": "axis"})
    result = audit([deck(pinned, axis)])
    assert result.decks[0].few_answers == {"g": 1}
    assert not result.checks["generated_vary"]


def test_a_pinned_draw_that_a_wrong_method_also_answers_is_named():
    # shift 0: "add the shift to LN(x)" gives the right answer, so the mistake passes on every showing
    shifted = card("inv", "generated", generator="layer_norm",
                   params={"ask": "invariance", "x": [1, 2, 3, 4], "scale": 2, "shift": 0})
    result = audit([deck(shifted)], seeds=5)
    assert result.decks[0].coincidences == {"inv": 5} and not result.checks["wrong_methods_caught"]


def test_near_duplicates_same_generator_and_params_or_same_answer_and_words():
    twin = {"generator": "layer_norm", "params": {"ask": "output"}}
    cards = [card("g1", "generated", **twin, example={"x": [1, 2, 3, 4]}),
             card("g2", "generated", **twin, example={"x": [2, 4, 6, 8]}),
             card("other", "generated", generator="layer_norm", params={"ask": "mean"}),
             card("v", "vector", q="对一个 token 的表示 [1, 2, 3, 4] 做 LayerNorm，结果是？",
                  answer=[-1.3416, -0.4472, 0.4472, 1.3416]),
             card("v2", "vector", q="对一个 token 的表示 [2, 4, 6, 8] 做 LayerNorm，结果是？",
                  answer=[-1.3416, -0.4472, 0.4472, 1.3416])]
    pairs = {(a.split("/")[1], b.split("/")[1]) for a, b, _ in near_duplicates(cards)}
    assert ("g1", "g2") in pairs and ("v", "v2") in pairs
    assert not any("other" in pair for pair in pairs)


def test_the_same_question_at_other_sizes_is_a_near_duplicate():
    """Issue 22: shapes-qkv-per-head pinned batch 1 and asked what gen-mh-transpose asks; mh-dk asked as a fixed
    number what gen-selftest-q1-dk draws. Neither was found while params had to match in full."""
    cards = [card("p47", "generated", generator="multi_head_shapes", params={"ask": "transpose", "batch": 1},
                  example={"seq_len": 20, "d_model": 512, "n_heads": 8}),
             card("arch", "generated", generator="multi_head_shapes", params={"ask": "transpose"},
                  example={"batch": 32, "seq_len": 10, "d_model": 512, "n_heads": 8}),
             card("full", "generated", generator="param_count", params={"ask": "encoder_layer", "convention": "full"}),
             card("notes", "generated", generator="param_count", params={"ask": "encoder_layer", "convention": "notes"}),
             card("drawn", "generated", generator="attention_scores", params={"ask": "d_k"},
                  example={"d_model": 512, "n_heads": 8}),
             card("fixed", "number", q="d_model = 512、头数 h = 8，每个头的 d_k 是多少？", answer=64)]
    pairs = {(a.split("/")[1], b.split("/")[1]) for a, b, _ in near_duplicates(cards)}
    assert ("p47", "arch") in pairs and ("drawn", "fixed") in pairs
    assert ("full", "notes") not in pairs   # another convention is another question


def test_item_statistics_from_the_log():
    d = deck(card("easy", "choice", **CHOICE), card("hard", "choice", **CHOICE))
    log = [{"card": "t/easy", "correct": True, "duration_ms": ms, "params": {}} for ms in (2000, 4000, 9000)]
    log += [{"card": "t/hard", "correct": ok, "duration_ms": 5000, "params": {"hinted": hinted}}
            for ok, hinted in ((False, False), (False, True), (False, True))]
    stats = {s.card: s for s in item_stats(d, log)}
    assert (stats["t/easy"].share_right, stats["t/easy"].median_seconds, stats["t/easy"].always_right) == (1.0, 4.0, True)
    assert (stats["t/hard"].share_right, stats["t/hard"].hinted, stats["t/hard"].hint_never_helps) == (0.0, 2, True)
    assert not stats["t/easy"].hint_never_helps and not stats["t/hard"].always_right


def test_cli_json_and_exit_code(tmp_path):
    result = CliRunner().invoke(app, ["decks", "audit", "p47-encoder", "--json"], env={"STUDYTOOL_HOME": str(tmp_path)})
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    assert document["passed"] is True and [d["deck"] for d in document["decks"]] == ["p47-encoder"]
    assert not (tmp_path / "studytool.db").exists()   # only reads


def test_cli_text_lists_every_check(tmp_path):
    result = CliRunner().invoke(app, ["decks", "audit", "extra-interview"], env={"STUDYTOOL_HOME": str(tmp_path)})
    assert result.exit_code == 0, result.output
    assert "true/false statements are true in 35-65% of showings" in result.stdout
    assert "audit passed" in result.stdout


def test_cli_unknown_deck_is_one_line(tmp_path):
    result = CliRunner().invoke(app, ["decks", "audit", "nope"], env={"STUDYTOOL_HOME": str(tmp_path)})
    assert result.exit_code == 1 and len(result.stderr.strip().splitlines()) == 1


def choice(card_id: str, options: list[str], answer) -> Card:
    return card(card_id, "choice", q="LayerNorm 在哪个方向上统计？", options=options, answer=answer)


def test_display_width_counts_chinese_characters_twice():
    assert display_width("LN 层归一") == 2 + 1 + 3 * 2   # "LN", a space, three wide characters
    assert display_width("（多选）") == 8


def test_pick_the_longest_option_is_measured_and_can_fail():
    longest = ["在单个样本内跨特征统计均值和标准差", "跨 batch", "跨序列", "跨头"]
    even = ["在单个样本内跨特征", "在同一维上跨样本", "在整句的所有位置上", "在所有注意力头间"]   # 18, 16, 18, 16 columns
    fails = audit([deck(choice("long", longest, "A"))], seeds=10)
    assert fails.decks[0].longest_share == 1.0 and not fails.checks["longest_option"]
    # A ties C in `even`: not strictly the longest, so only the `longest` card counts, 1 card in 3
    mixed = audit([deck(choice("e1", even, "A"), choice("e2", even, "B"), choice("long", longest, "A"))], seeds=10)
    assert mixed.decks[0].longest_share == round(1 / 3, 3) and mixed.checks["longest_option"]
    half = audit([deck(choice("e1", even, "A"), choice("long", longest, "A"))], seeds=10)
    assert half.decks[0].longest_share == 0.5 and not half.checks["longest_option"]


def test_every_option_but_one_right_is_bounded():
    options = ["残差连接", "LayerNorm", "FFN", "因果掩码"]
    all_but_one = audit([deck(choice("m", options, ["A", "B", "C"]))], seeds=10)
    assert all_but_one.decks[0].all_but_one_share == 1.0 and not all_but_one.checks["all_but_one"]
    varied = audit([deck(choice("m", options, ["A", "B", "C"]), choice("m2", options, ["A", "B"]),
                         choice("m3", options, ["B", "D"]))], seeds=10)
    assert varied.decks[0].all_but_one_share == round(1 / 3, 3) and varied.checks["all_but_one"]


def test_a_negation_that_marks_the_true_form_fails_and_a_balanced_deck_passes():
    negated_true = card("n1", "truefalse", statement="encoder 要加因果掩码。", answer=False,
                        opposite="encoder 不加因果掩码。")
    negated_false = card("n2", "truefalse", statement="encoder 的每个位置都能看到整句。", answer=True,
                         opposite="encoder 的位置看不到后面的词。")
    cue = audit([deck(negated_true)])
    assert cue.decks[0].negation_cue == 1.0 and not cue.checks["negation_cue"]
    # the first card: the cue is always right; the second: always wrong; 100 showings each -> exactly one half
    balanced = audit([deck(negated_true, negated_false)])
    assert balanced.decks[0].negation_cue == 0.5 and balanced.checks["negation_cue"]
    # the reverse cue ("a negation means false") is as much a give-away
    reverse = audit([deck(negated_false)])
    assert reverse.decks[0].negation_cue == 0.0 and not reverse.checks["negation_cue"]


def test_a_number_on_screen_that_is_the_answer_fails():
    leaking = card("leak", "number", q="d_model = 512，h = 8。所有头拼起来的宽度是多少？", answer=512)
    asked = card("ok", "number", q="d_model = 512，h = 8。每个头的 d_k 是多少？", answer=64)
    result = audit([deck(leaking, asked)], seeds=10)
    assert result.decks[0].prompt_leaks == {"leak": 10} and not result.checks["prompt_numbers"]
    assert copied_numbers(asked.pose(0)) == set()
    assert copied_numbers(leaking.pose(0)) == {0}   # the first number shown


def test_the_warm_up_cards_no_longer_quote_their_answer(bundled):
    cards = {c.key: c for d in bundled for c in d.cards}
    first = cards["interview-next/gen-warmup-peak"].pose()
    assert abs(first.answer - 1e4 / math.sqrt(512 * 4000)) < 1e-9      # the paper's peak, 6.9877e-4
    assert "6.9877" not in first.prompt and copied_numbers(first) == set()


def test_layer_norm_invariance_flips_with_a_negative_scale_and_shows_no_answer():
    from studytool.problems.registry import get

    signs = set()
    for seed in range(40):
        variant = get("layer_norm").draw(np.random.default_rng(seed), ask="invariance")
        x, scale = np.array(variant.params["x"], dtype=float), variant.params["scale"]
        by_hand = (x - x.mean()) / x.std()                  # population σ, as nn.LayerNorm
        assert np.allclose(variant.answer, np.sign(scale) * by_hand, atol=1e-9)
        assert copied_numbers(variant) == set(), variant.prompt
        signs.add(np.sign(scale))
    assert signs == {-1, 1}


def test_precision_words_and_the_format_fraction_are_no_numbers_to_copy():
    # the format line reads "e.g. -0.1234 or a fraction like 3/7 (round only the final answer: 4 decimals, ...)"
    four = card("four", "number", q="x = [1, 3, 5, 7]，均值是多少？", answer=4.0)
    seven = card("seven", "number", q="x = [6, 8]，均值是多少？", answer=7.0)
    assert copied_numbers(four.pose(0)) == set() and copied_numbers(seven.pose(0)) == set()


def test_a_layer_norm_mean_is_never_the_vector_length_on_screen():
    from studytool.problems.registry import get

    for seed in range(200):
        variant = get("layer_norm").draw(np.random.default_rng(seed), ask="mean")
        assert variant.answer != len(variant.params["x"]), variant.prompt


def test_numbers_on_screen_are_checked_at_the_grown_levels_too(monkeypatch):
    from studytool.decks import audit as rules

    # stand-in: only level-2/3 draws show their answer, so only scanning the grown draws can catch it
    monkeypatch.setattr(rules, "copied_numbers", lambda variant: {0} if variant.level > 1 else set())
    grown = card("g", "generated", generator="layer_norm", params={"ask": "mean"})
    result = audit([deck(grown)], seeds=20)
    assert result.decks[0].prompt_leaks == {"g": 20} and not result.checks["prompt_numbers"]
