"""How worked solutions write numbers: sums as a learner writes them by hand."""

from studytool.problems.drawing import total


def test_a_sum_writes_a_negative_term_as_a_subtraction():
    assert total([-8, 6, -9, 10]) == "-8 + 6 − 9 + 10"   # the first term keeps its sign


def test_a_sum_of_one_term_is_that_term():
    assert total([3]) == "3"


def test_decimals_keep_six_places_in_a_sum():
    assert total([1.5, -2.25]) == "1.500000 − 2.250000"
