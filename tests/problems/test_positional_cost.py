"""The positional-encoding generator computes the row asked for, not every row up to it (issue 10)."""

import resource
import time

import numpy as np
import pytest

from studytool import engine
from studytool.problems import registry


@pytest.mark.parametrize(("d_model", "pos"), [(3, 1), (4, 0), (7, 9), (64, 513), (1024, 10_000)])
def test_the_row_is_the_engines_row(d_model, pos):
    """Truth: the engine's whole table (small enough here), row `pos`."""
    variant = registry.get("positional_encoding").draw(np.random.default_rng(0), d_model=d_model, pos=pos, ask="row")
    expected = engine.positional_encoding(pos + 1, d_model)[pos]
    np.testing.assert_allclose(variant.answer, expected, rtol=0, atol=5e-7)   # the answer is rounded to 6 places


def test_the_notes_example():
    variant = registry.get("positional_encoding").example()
    assert variant.answer == pytest.approx((0.841471, 0.540302, 0.002154), abs=1e-6)


def test_a_pinned_far_position_is_cheap():
    """d_model 1024 at pos 10,000 cost 1 s and 375 MB per draw when the whole table was built."""
    generator = registry.get("positional_encoding")
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss   # KiB on Linux
    start = time.process_time()
    for seed in range(5):
        generator.draw(np.random.default_rng(seed), d_model=1024, pos=10_000, ask="value")
        generator.draw(np.random.default_rng(seed), d_model=1024, pos=10_000, ask="row")
    assert time.process_time() - start < 1.0
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 50 * 1024
