"""Temperature, top-k and top-p: the kept tokens and their renormalised probabilities, against a torch reference."""

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from studytool.engine import sampling_distribution


def torch_reference(logits, temperature, top_k, top_p):
    """The usual recipe in torch (as transformers' Temperature-, TopK- and TopPLogitsWarper do it):
    divide by T; keep the k largest logits; sort ascending, cumulative softmax, drop the tokens whose
    cumulative mass from the bottom is <= 1 - p, always keeping the most likely; softmax what is left."""
    torch = pytest.importorskip("torch", reason="torch is the reference for the sampling filters")
    scores = torch.tensor(logits, dtype=torch.float64) / temperature
    if top_k is not None:
        kth = torch.topk(scores, min(top_k, scores.numel())).values[-1]
        scores = scores.masked_fill(scores < kth, -float("inf"))
    if top_p is not None:
        sorted_scores, order = torch.sort(scores, descending=False)
        cumulative = sorted_scores.softmax(dim=-1).cumsum(dim=-1)
        remove = cumulative <= 1 - top_p
        remove[-1] = False
        scores = scores.masked_fill(remove.scatter(0, order, remove), -float("inf"))
    return torch.softmax(scores, dim=-1).numpy()


def test_worked_by_hand():
    # logits ln 4, ln 2, ln 1, ln 1 -> probabilities 0.5, 0.25, 0.125, 0.125.
    logits = np.log([4.0, 2.0, 1.0, 1.0])
    kept, probs = sampling_distribution(logits, top_p=0.7)  # 0.5 < 0.7, 0.5 + 0.25 = 0.75 reaches it
    assert kept.tolist() == [0, 1]
    np.testing.assert_allclose(probs, [2 / 3, 1 / 3, 0, 0])
    kept, probs = sampling_distribution(logits, top_p=0.75)  # exactly reached by the first two
    assert kept.tolist() == [0, 1]
    kept, probs = sampling_distribution(logits, top_k=3)  # ties at the third place: the lower id
    assert kept.tolist() == [0, 1, 2]
    np.testing.assert_allclose(probs, [4 / 7, 2 / 7, 1 / 7, 0])
    kept, probs = sampling_distribution(logits, temperature=0.5)  # squares the odds: 16 : 4 : 1 : 1
    np.testing.assert_allclose(probs, np.array([16, 4, 1, 1]) / 22)
    kept, probs = sampling_distribution(logits, top_p=0.1)  # at least the most likely token
    assert kept.tolist() == [0] and probs.tolist() == [1.0, 0, 0, 0]


def test_top_p_is_measured_after_top_k():
    logits = np.log([4.0, 2.0, 1.0, 1.0])
    kept, probs = sampling_distribution(logits, top_k=2, top_p=0.7)  # after top-k: 2/3, 1/3; 2/3 < 0.7
    assert kept.tolist() == [0, 1]
    kept, _ = sampling_distribution(logits, top_k=2, top_p=0.6)  # 2/3 reaches 0.6 alone
    assert kept.tolist() == [0]


@pytest.mark.parametrize(
    ("settings", "message"),
    [({"temperature": 0}, "temperature"), ({"temperature": -1}, "temperature"), ({"top_k": 0}, "top_k"),
     ({"top_p": 0}, "top_p"), ({"top_p": 1.5}, "top_p")],
)
def test_bad_settings_are_refused(settings, message):
    with pytest.raises(ValueError, match=message):
        sampling_distribution([1.0, 2.0], **settings)


def test_logits_must_be_one_vector():
    with pytest.raises(ValueError, match="vector"):
        sampling_distribution([[1.0, 2.0]])
    with pytest.raises(ValueError, match="vector"):
        sampling_distribution([])


def test_float32_stays_float32():
    assert sampling_distribution(np.array([1.0, 2.0, 3.0], dtype=np.float32), top_p=0.9).probs.dtype == np.float32


@settings(max_examples=200, deadline=None)
@given(
    logits=st.lists(st.floats(-20, 20), min_size=1, max_size=30, unique=True),
    temperature=st.floats(0.05, 5.0),
    top_k=st.one_of(st.none(), st.integers(1, 40)),
    top_p=st.one_of(st.none(), st.floats(0.01, 1.0)),
)
def test_equal_to_the_torch_reference(logits, temperature, top_k, top_p):
    scaled = np.sort(np.asarray(logits) / temperature)[::-1]
    ranked = np.exp(scaled - scaled[0])
    ranked = ranked[: top_k or len(ranked)]
    before = np.concatenate([[0.0], np.cumsum(ranked / ranked.sum())[:-1]])
    if top_p is not None:  # two float orders of summation may disagree when a mass is p to within rounding
        assume(np.abs(before - top_p).min() > 1e-9 and abs(1 - top_p) > 1e-9)
    assume(len(set(scaled.tolist())) == len(scaled))  # distinct after scaling: no tie decides the kept set
    assume(scaled[0] - scaled[-1] < 700)   # no probability underflows to 0: the reference's kept set is its nonzeros
    kept, probs = sampling_distribution(logits, temperature, top_k, top_p)
    expected = torch_reference(logits, temperature, top_k, top_p)
    np.testing.assert_allclose(probs, expected, rtol=1e-12, atol=1e-15)
    assert set(kept.tolist()) == set(np.flatnonzero(expected).tolist())
    assert probs[kept].tolist() == sorted(probs[kept].tolist(), reverse=True)


def test_equal_to_transformers_warpers():
    torch = pytest.importorskip("torch", reason="transformers runs on torch")
    transformers = pytest.importorskip("transformers", reason="transformers' logits warpers are the other oracle")
    rng = np.random.default_rng(5)
    for _ in range(50):
        logits = rng.standard_normal(50) * 3
        temperature, top_k, top_p = float(rng.uniform(0.3, 2)), int(rng.integers(1, 60)), float(rng.uniform(0.05, 1))
        scores = torch.tensor(logits)[None]
        for warper in (transformers.TemperatureLogitsWarper(temperature), transformers.TopKLogitsWarper(top_k),
                       transformers.TopPLogitsWarper(top_p)):
            scores = warper(None, scores)
        expected = torch.softmax(scores, dim=-1)[0].numpy()
        np.testing.assert_allclose(sampling_distribution(logits, temperature, top_k, top_p).probs, expected,
                                   rtol=1e-12, atol=1e-15)
