"""What learners type: formats that must be accepted, formats errors, exactness and tolerance."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from studytool.problems.answers import AnswerFormatError, format_answer, format_hint, grade, normalise
from studytool.problems import reading
from studytool.problems.drawing import FOUR_DECIMALS
from studytool.problems.variant import Hint, Tolerance, Variant

FOUR = FOUR_DECIMALS   # the one policy: 4 decimals, within ±1e-4
SCALAR = Variant("q", "scalar", 1048576)
FLOAT = Variant("q", "scalar", -0.4472135955, FOUR)
VECTOR = Variant("q", "vector", (-1.3416407865, -0.4472135955, 0.4472135955, 1.3416407865), FOUR)
MATRIX = Variant("q", "matrix", ((1.0, 2.0), (3.0, 4.0)), FOUR)
SHAPE = Variant("q", "shape", (32, 8, 10, 10), hints=(Hint((32, 10, 10), "per head"),))
CHOICE = Variant("q", "choice", frozenset({1}), options=("a", "b", "c", "d"))
MULTI = Variant("q", "choice", frozenset({0, 2}), options=("a", "b", "c", "d"))
TRUE_FALSE = Variant("q", "choice", frozenset({1}), options=("对 / True", "错 / False"))
SEQUENCE = Variant("q", "sequence", (2, 0, 1), options=("x", "y", "z"))
ALL = [SCALAR, FLOAT, VECTOR, MATRIX, SHAPE, CHOICE, MULTI, TRUE_FALSE, SEQUENCE]


@pytest.mark.parametrize("text", ["1048576", "1,048,576", "1 048 576", "1.048576e6", "１，０４８，５７６", "1_048_576",
                                  "  1048576 ", "1048576.0"])
def test_scalar_formats(text):
    assert grade(SCALAR, text).correct


def test_integers_are_exact_even_when_large():
    assert not grade(SCALAR, "1048577").correct
    big = Variant("q", "scalar", 23622320128)
    assert grade(big, "23,622,320,128").correct
    assert not grade(big, "23622320129").correct


@pytest.mark.parametrize("text", ["-0.4472", "−0.4472", "ー0.4472", "-0.44721", "－０．４４７２"])
def test_float_within_four_decimals(text):
    assert grade(FLOAT, text).correct


@pytest.mark.parametrize("text", ["-0.4474", "-0.4470", "0.4472", "-0.44", "-0.5"])
def test_float_outside_the_tolerance_is_wrong(text):
    assert not grade(FLOAT, text).correct


@pytest.mark.parametrize(("variant", "text"), [
    (Variant("q", "scalar", 2 / 3, FOUR), "0.667"),   # the FFN share of a block, typed to 3 decimals
    (Variant("q", "scalar", 2 / 3, FOUR), "0.67"),
    (FLOAT, "-0.447"),
    (VECTOR, "[-1.342, -0.447, 0.4472, 1.3416]"),      # element-wise: short entries, the rest in tolerance
])
def test_too_few_decimals_that_round_the_same_are_asked_again(variant, text):
    with pytest.raises(AnswerFormatError, match=r"give 4 decimals \(your -?[0-9.]+ rounds the same\)"):
        grade(variant, text)


@pytest.mark.parametrize(("variant", "text"), [
    (Variant("q", "scalar", 2 / 3, FOUR), "0.668"),   # 3 decimals, but 0.6667 rounds to 0.667
    (FLOAT, "-0.448"),
    (VECTOR, "[-1.342, -0.447, 0.4475, 1.3416]"),      # one entry short, another plainly wrong
])
def test_too_few_decimals_that_disagree_are_wrong(variant, text):
    assert not grade(variant, text).correct


@pytest.mark.parametrize(("variant", "text"), [
    (FLOAT, "-0.4474"),                                 # last digit off by two
    (FLOAT, "-0.4470"),
    (VECTOR, "[-1.3418, -0.4472, 0.4472, 1.3416]"),
])
def test_last_digit_slips_are_close_with_a_last_digit_hint(variant, text):
    graded = grade(variant, text)
    assert not graded.correct and graded.close and graded.verdict == "close"
    assert "last digit" in graded.hint


@pytest.mark.parametrize(("variant", "text"), [(FLOAT, "-0.4500"), (FLOAT, "0.4472"), (SCALAR, "1048577")])
def test_far_answers_and_exact_integers_get_no_rounding_hint(variant, text):
    graded = grade(variant, text)
    assert not graded.correct and graded.hint is None


def test_fractions_and_percent():
    share = Variant("q", "scalar", 2 / 3, FOUR)
    assert grade(share, "2/3").correct
    assert grade(share, "66.6667%").correct
    assert grade(share, "0.6667").correct


@pytest.mark.parametrize("text", ["[-1.3416, -0.4472, 0.4472, 1.3416]", "-1.3416 -0.4472 0.4472 1.3416",
                                  "-1.3416，-0.4472，0.4472，1.3416", "(-1.3416、-0.4472、0.4472、1.3416)",
                                  "【-1.3416, -0.4472, 0.4472, 1.3416】"])
def test_vector_formats(text):
    assert grade(VECTOR, text).correct


def test_vector_of_the_wrong_length_is_a_format_error():
    with pytest.raises(AnswerFormatError, match="4"):
        grade(VECTOR, "1 2 3")


@pytest.mark.parametrize("text", ["[[1, 2], [3, 4]]", "1 2; 3 4", "1 2\n3 4", "[1, 2], [3, 4]", "1 2 3 4",
                                  "［［１，２］，［３，４］］"])
def test_matrix_formats(text):
    assert grade(MATRIX, text).correct


def test_ragged_matrix_is_a_format_error():
    with pytest.raises(AnswerFormatError):
        grade(MATRIX, "[[1, 2], [3]]")


@settings(deadline=None)
@given(st.integers(1, 12), st.integers(1, 12))
def test_a_matrix_format_example_names_every_entry_apart_at_any_size(rows, cols):
    """Past 8 entries the letters a-h ran out and started again (a 3 x 3 example read [[a, b, c], … [g, h, a]])."""
    variant = Variant("q", "matrix", tuple(tuple(1.0 for _ in range(cols)) for _ in range(rows)), FOUR)
    with pytest.raises(AnswerFormatError) as error:
        grade(variant, "1 " * (rows * cols + 1))
    for text in (format_hint(variant), str(error.value)):
        example = re.search(r"\[\[.*\]\]", text)[0]
        assert [len(row.split(", ")) for row in example[2:-2].split("], [")] == [cols] * rows
        names = re.findall(r"[a-z]\w*", example)
        assert len(names) == rows * cols == len(set(names))


@pytest.mark.parametrize("text", ["(32, 8, 10, 10)", "32x8x10x10", "32×8×10×10", "[32,8,10,10]", "32 8 10 10",
                                  "32*8*10*10", "torch.Size([32, 8, 10, 10])", "３２×８×１０×１０"])
def test_shape_formats(text):
    assert grade(SHAPE, text).correct


def test_shape_swapped_axes_and_known_mistakes_get_hints():
    swapped = grade(SHAPE, "32 10 8 10")
    assert not swapped.correct and swapped.hint
    per_head = grade(SHAPE, "32 10 10")
    assert not per_head.correct and per_head.hint == "per head"


@pytest.mark.parametrize("text", ["B", "b", "2", " B ", "Ｂ"])
def test_choice_by_letter_or_number(text):
    assert grade(CHOICE, text).correct


@pytest.mark.parametrize("text", ["A C", "a,c", "ac", "A、C", "1 3", "C A", "A和C"])
def test_several_right_options(text):
    assert grade(MULTI, text).correct


def test_only_some_of_several_is_wrong():
    assert not grade(MULTI, "A").correct


@pytest.mark.parametrize("text", ["错", "F", "false", "B", "2", "×", "假"])
def test_true_false_words(text):
    assert grade(TRUE_FALSE, text).correct


@pytest.mark.parametrize("text", ["对", "T", "true", "A", "1", "√", "真"])
def test_the_true_words_name_the_true_form(text):
    assert not grade(TRUE_FALSE, text).correct   # the false form is right here


@pytest.mark.parametrize("text", ["1 2", "对 错", "t f", "tf", "A B", "true false", "", "maybe", "3"])
def test_a_true_false_answer_that_is_not_exactly_one_answer_is_asked_again(text):
    with pytest.raises(AnswerFormatError, match="T/F"):
        grade(TRUE_FALSE, text)


@pytest.mark.parametrize("text", ["2 1", "21", "3", "1 1 1", "1 2 3 4", "0 1 2", "A B"])
def test_an_order_that_is_not_all_the_numbers_once_is_asked_again(text):
    with pytest.raises(AnswerFormatError, match="all 3"):
        grade(SEQUENCE, text)


def test_a_selection_of_items_may_have_any_length_but_no_repeats():
    seen = Variant("which tokens, in order?", "sequence", (2, 0), options=("x", "y", "z"))
    assert grade(seen, "3 1").correct
    assert not grade(seen, "3").correct  # one token short is a (known) wrong answer, not a format error
    with pytest.raises(AnswerFormatError):
        grade(seen, "3 3")


def test_a_complete_order_that_is_wrong_is_wrong():
    assert not grade(SEQUENCE, "1 2 3").correct


def test_format_hints_say_how_to_answer_true_false_and_order():
    assert "T/F" in format_hint(TRUE_FALSE) and "对/错" in format_hint(TRUE_FALSE)
    assert "letter" not in format_hint(TRUE_FALSE)
    hint = format_hint(SEQUENCE)
    assert "all 3 item numbers" in hint.lower() and "letter" not in hint


@pytest.mark.parametrize("text", ["3 1 2", "3,1,2", "312", "C A B", "c a b"])
def test_sequence_formats(text):
    assert grade(SEQUENCE, text).correct


@pytest.mark.parametrize(("variant", "text"), [
    (SCALAR, ""), (SCALAR, "about a million"), (SCALAR, "1/0"), (SCALAR, "nan"), (SCALAR, "1e999"),
    (VECTOR, "[1, 2, x, 4]"), (SHAPE, "32 x -8"), (SHAPE, "32.5 8"), (CHOICE, "E"), (CHOICE, "0"),
    (SEQUENCE, "1 1 2"), (SEQUENCE, "4"),
])
def test_unreadable_input_is_a_format_error(variant, text):
    with pytest.raises(AnswerFormatError):
        grade(variant, text)


def test_format_errors_are_one_line_value_errors():
    with pytest.raises(ValueError) as error:
        grade(SHAPE, "what?")
    assert "\n" not in str(error.value) and "shape" in str(error.value)


def test_recall_is_not_graded():
    with pytest.raises(ValueError):
        grade(Variant("q", "recall", "reference"), "anything")


@pytest.mark.parametrize("variant", ALL)
def test_canonical_answer_grades_correct(variant):
    result = grade(variant, format_answer(variant))
    assert result.correct and result.expected == format_answer(variant)


def test_canonical_text():
    assert format_answer(SCALAR) == "1048576"
    assert format_answer(VECTOR) == "[-1.3416, -0.4472, 0.4472, 1.3416]"
    assert format_answer(SHAPE) == "[32, 8, 10, 10]"
    assert format_answer(MULTI) == "A C"
    assert format_answer(SEQUENCE) == "3 1 2"


def test_format_hint_states_the_tolerance():
    assert "0.0001" in format_hint(VECTOR) and "4 decimals" in format_hint(VECTOR)
    assert "round only the final answer" in format_hint(VECTOR) and "round only the final answer" in format_hint(FLOAT)
    assert "exact" in format_hint(SHAPE) or "精确" in format_hint(SHAPE)


def test_normalise_handles_the_ime():
    assert normalise("（３２，　８）") == "(32, 8)"
    assert normalise("32×8✕10") == "32x8x10"
    assert normalise("−1、2。5") == "-1,2.5"


@given(st.text(st.sampled_from("abcdfgxyzABCDFGXYZ"), min_size=1, max_size=8))
def test_a_format_error_quotes_a_word_in_the_case_it_was_typed(word):
    for parse, text in ((reading.parse_vector, f"[1, {word}]"), (reading.parse_matrix, f"[[1, 2], [3, {word}]]")):
        with pytest.raises(AnswerFormatError) as raised:
            parse(text)
        assert str(raised.value) == f"not a number: {word}"


def test_case_is_still_read_as_before_where_it_means_nothing():
    assert reading.parse_vector("Tensor([1, 2E1])") == (1, 20)
    assert reading.parse_shape("32X8") == (32, 8)
    assert reading.parse_matrix("np.Array([[1, 2], [3, 4]])") == ((1, 2), (3, 4))
    assert reading.parse_choice("B C", ("a", "b", "c")) == {1, 2}


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=40), st.sampled_from(ALL))
def test_arbitrary_text_never_raises_anything_but_a_format_error(text, variant):
    try:
        result = grade(variant, text)
    except AnswerFormatError as error:
        assert str(error) and "\n" not in str(error)
    else:
        assert isinstance(result.correct, bool)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="0123456789.,-+eE/%[]()x×，、 　１２３ーabAB\n;", max_size=30), st.sampled_from(ALL))
def test_number_like_text_never_raises_anything_but_a_format_error(text, variant):
    try:
        grade(variant, text)
    except AnswerFormatError:
        pass


@pytest.mark.parametrize("text", ["= 1048576", "≈1048576", "约 1,048,576"])
def test_a_leading_equals_or_about_is_ignored(text):
    assert grade(SCALAR, text).correct


def test_vector_with_chinese_semicolons():
    assert grade(VECTOR, "-1.3416；-0.4472；0.4472；1.3416").correct


def test_a_wrong_method_with_a_float_result_is_recognised_when_typed_rounded():
    scale = Variant("q", "scalar", 8, hints=(Hint(22.62741699796952, "used d_model"),))
    assert grade(scale, "22.6274").hint == "used d_model"
    assert grade(scale, "8").correct


def test_huge_integers_print_in_full():
    huge = Variant("q", "scalar", 10**16 + 1)
    assert format_answer(huge) == "10000000000000001"
    assert grade(huge, "10,000,000,000,000,001").correct
    assert not grade(huge, "1e16").correct


# --- issue 12: the grader's false accepts and false rejects ---------------------------------------------------

PER_HEAD_SPLIT = Variant("q", "shape", (32, 10, 8, 64))
MERGED = Variant("q", "shape", (32, 10, 512))
SHAPE_4 = Variant("q", "shape", (3, 2, 44, 96))
LN_SIGMA = Variant("q", "scalar", 1.118033988749895, FOUR)   # √1.25, key 1.1180


@pytest.mark.parametrize(("variant", "text"), [
    (SHAPE_4, "[3x2, 44, 96]"),            # 3x2 is one axis of 6 when commas separate the axes
    (PER_HEAD_SPLIT, "[32, 10, 8*64]"),    # 8*64 is one axis of 512
])
def test_a_product_inside_a_comma_list_is_one_axis_not_two(variant, text):
    assert not grade(variant, text).correct


def test_a_product_is_read_as_its_value():
    assert grade(MERGED, "[32, 10, 8*64]").correct
    assert grade(MERGED, "(32, 10, 8×64)").correct
    assert grade(SHAPE_4, "3x2x44x96").correct


@pytest.mark.parametrize("text", ["junk [1, 2] 42 [3, 4]", "[1, 2] and [3, 4]", "rows: [1, 2] [3, 4] ok"])
def test_text_around_matrix_rows_is_a_format_error_not_ignored(text):
    with pytest.raises(AnswerFormatError):
        grade(MATRIX, text)


@pytest.mark.parametrize(("variant", "text"), [
    (FLOAT, "-0.4472。"), (SCALAR, "1048576。"), (VECTOR, "[-1.3416, -0.4472, 0.4472, 1.3416]。"),
    (CHOICE, "B。"), (SHAPE, "[32, 8, 10, 10]."),
    (VECTOR, "tensor([-1.3416, -0.4472, 0.4472, 1.3416])"),
    (VECTOR, "array([-1.3416, -0.4472, 0.4472, 1.3416])"),
    (VECTOR, "np.array([-1.3416, -0.4472, 0.4472, 1.3416])"),
    (MATRIX, "tensor([[1., 2.], [3., 4.]])"),
    (FLOAT, "- 0.4472"), (VECTOR, "[- 1.3416, - 0.4472, 0.4472, 1.3416]"),
    (LN_SIGMA, "1.11798"),               # rounds to the key 1.1180
    (LN_SIGMA, "1.1180"), (LN_SIGMA, "1.1181"), (LN_SIGMA, "1.1179"),   # every 4-decimal answer within ±1e-4
    (MERGED, "[32, 10, 8*64]"),
])
def test_answers_the_grader_used_to_reject_are_right(variant, text):
    assert grade(variant, text).correct


@pytest.mark.parametrize("digits", [51, 400, 4301, 10_000])
def test_an_absurdly_long_number_is_a_format_error_never_a_crash(digits):
    for variant, text in ((SCALAR, "9" * digits), (FLOAT, "0." + "4" * digits), (VECTOR, " ".join(["1" * digits] * 4)),
                          (SHAPE, "32 8 10 " + "1" * digits), (SEQUENCE, "1" * digits), (CHOICE, "2" * digits)):
        with pytest.raises(AnswerFormatError):
            grade(variant, text)


def test_fifty_digits_is_still_a_number():
    assert not grade(SCALAR, "9" * 50).correct


@pytest.mark.parametrize("variant", ALL + [PER_HEAD_SPLIT, LN_SIGMA])
def test_no_format_line_example_is_the_answer(variant):
    hint = format_hint(variant)
    example = re.findall(r"e\.g\. (.*?)(?: or |\(|$)", hint)
    for text in example:
        try:
            assert not grade(variant, text.strip(" .")).correct, (hint, text)
        except AnswerFormatError:
            pass   # a symbolic example ([a, b, c]) is no answer at all


def test_format_examples_never_equal_the_answer_even_when_the_answer_is_the_usual_example():
    for answer in (123456, 654321, 1048576):
        assert str(answer) not in format_hint(Variant("q", "scalar", answer))
    for answer in (-0.1234, 0.5678, 3 / 7, 5 / 9):
        hint = format_hint(Variant("q", "scalar", answer, FOUR))
        assert not any(abs(reading.number(t) - answer) < 1e-3 for t in re.findall(r"-?\d+(?:[./]\d+)?", hint)
                       if t not in ("4", "0.0001")), hint


def test_a_float_format_line_is_the_same_whatever_the_answer():
    # issue 23: the example switched from 3/7 to 5/9 exactly when the answer was near 3/7
    hints = {format_hint(Variant("q", "scalar", answer, FOUR)) for answer in (3 / 7, 5 / 9, -0.1234, 0.5678, 2.5)}
    assert len(hints) == 1 and "a/b" in hints.pop()


def test_a_vector_hint_shows_as_many_entries_as_the_answer_has():
    two = Variant("q", "vector", (1.5, 2.5), FOUR)
    assert "2 numbers, e.g. [a, b] or a b" in format_hint(two)


PARSERS = [
    lambda text: reading.parse_scalar(text),
    lambda text: reading.parse_vector(text),
    lambda text: reading.parse_matrix(text),
    lambda text: reading.parse_shape(text),
    lambda text: reading.parse_choice(text, ("a", "b", "c", "d")),
    lambda text: reading.parse_choice(text, ("对 / True", "错 / False")),
    lambda text: reading.parse_sequence(text, ("x", "y", "z")),
    lambda text: reading.parse_sequence(text, ("x", "y", "z"), whole=False),
]


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=60) | st.text(
    alphabet="0123456789.,-+eE/%[]()x×*，、。 　１２３ーabcAB\n;torchsizearay", max_size=80),
    st.sampled_from(range(len(PARSERS))))
def test_every_parser_reads_a_value_or_raises_a_one_line_format_error(text, which):
    try:
        PARSERS[which](text)
    except AnswerFormatError as error:
        assert str(error) and "\n" not in str(error)


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet="0123456789.,-+eE/%[]()x×*，。 [];", max_size=60)
       | st.integers(min_value=-10**80, max_value=10**80).map(str), st.sampled_from(ALL + [MERGED, LN_SIGMA]))
def test_grading_is_right_wrong_or_a_format_error(text, variant):
    try:
        result = grade(variant, text)
    except AnswerFormatError:
        return
    assert result.correct in (True, False)


# --- any tolerance a card can carry ---------------------------------------------------------------------


def test_a_tolerance_near_the_largest_float_grades_without_overflow():
    # 2 * 1e308 is inf, and the decimals of an infinite tolerance used to be an OverflowError
    variant = Variant(prompt="p", kind="scalar", answer=1.5, tolerance=Tolerance(abs=1.0e308))
    assert format_answer(variant) == "2"   # a tolerance of 1e308 allows 0 decimals
    assert grade(variant, "123").correct
    assert grade(variant, format_answer(variant)).correct


@settings(max_examples=300, deadline=None)
@given(answer=st.floats(-1e15, 1e15), tol=st.one_of(st.just(0.0), st.floats(1e-9, 1e15)), typed=st.text(max_size=30))
def test_a_key_within_the_deck_bounds_is_shown_typed_back_right_and_never_throws(answer, tol, typed):
    # the bounds `decks check` enforces: numbers at most 1e15 in size, a tolerance 0 or from 1e-9 to 1e15
    variant = Variant(prompt="p", kind="vector", answer=(answer, -answer), tolerance=Tolerance(abs=tol))
    shown = format_answer(variant)
    assert len(shown) < 70   # two numbers of at most 16 digits and 9 decimals, not 309-digit integers
    assert grade(variant, shown).correct
    try:
        grade(variant, typed)
    except AnswerFormatError:
        pass


def test_an_early_rounded_sigma_is_close_and_the_hint_says_an_earlier_step():
    # issue 23: σ rounded to 2.59 before dividing was graded Again with "check the rounding in the last step"
    from studytool.problems.registry import get

    v = get("layer_norm").draw(np.random.default_rng(0), x=[2, 4, 6, 9], ask="output")
    x = np.array([2, 4, 6, 9.0])
    by_hand = (x - x.mean()) / round(float(np.sqrt(((x - x.mean()) ** 2).mean())), 2)   # σ = 2.586020 -> 2.59
    graded = grade(v, " ".join(f"{e:.4f}" for e in by_hand))
    assert (graded.correct, graded.close, graded.verdict) == (False, True, "close")
    assert "earlier step" in graded.hint and "last digit" not in graded.hint


def test_a_wrong_method_near_the_key_is_still_wrong_not_close():
    from studytool.problems.registry import get

    v = get("layer_norm").draw(np.random.default_rng(0), x=[2, 4, 6, 9], ask="output")
    x = np.array([2, 4, 6, 9.0])
    unbiased = (x - x.mean()) / x.std(ddof=1)   # K - 1: 13% off, a known wrong method
    graded = grade(v, " ".join(f"{e:.4f}" for e in unbiased))
    assert graded.verdict == "wrong" and "K−1" in graded.hint
    assert grade(v, "-1.2700 -0.4900 0.2950 1.4700").verdict == "wrong"   # 1-2% off: a guess, not a rounding


def test_a_targeted_hint_only_when_one_mistake_alone_gives_the_answer():
    # issue 23: with B = h, "forgot the heads" and "forgot the batch" both give B·L²·d_k; naming one misleads
    from studytool.problems.registry import get

    same = get("attention_cost").draw(np.random.default_rng(0), batch=4, n_heads=4, seq_len=10, d_model=64,
                                      ask="scores")
    assert grade(same, str(same.answer // 4)).hint is None and grade(same, str(same.answer // 4)).verdict == "wrong"
    apart = get("attention_cost").draw(np.random.default_rng(0), batch=2, n_heads=4, seq_len=10, d_model=64,
                                       ask="scores")
    assert "h 个头" in grade(apart, str(apart.answer // 4)).hint and "batch" in grade(apart, str(apart.answer // 2)).hint
