"""pre_post_ln: Post-LN vs Pre-LN against torch.nn.TransformerEncoderLayer(norm_first=...), hand-derived numbers,
and each level a fair item of its own."""

from __future__ import annotations

import re

import numpy as np
import pytest

from studytool.problems import registry
from studytool.problems.answers import format_answer, grade, matches
from studytool.problems.variant import Variant

GENERATOR = registry.get("pre_post_ln")
SEEDS = range(150)


def draw(seed: int, level: int = 1, **params) -> Variant:
    return GENERATOR.draw(np.random.default_rng(seed), level=level, **params)


def numbers(text: str) -> list[float]:
    return [float(t) for t in re.findall(r"-?\d+\.\d+|-?\d+", text.replace("−", "-"))]


# --- the truth: PyTorch's own layers -----------------------------------------------------------------------------


def torch_layer(torch, w, norm_first: bool, attention: bool = True, ffn: bool = True):
    """A real TransformerEncoderLayer whose attention on one token is w * y and whose FFN is ReLU (or zero)."""
    k = len(w)
    layer = torch.nn.TransformerEncoderLayer(k, 1, dim_feedforward=k, dropout=0.0, layer_norm_eps=0.0,
                                             norm_first=norm_first, bias=False, batch_first=True,
                                             dtype=torch.float64)
    eye, zero = torch.eye(k, dtype=torch.float64), torch.zeros(k, k, dtype=torch.float64)
    with torch.no_grad():
        layer.self_attn.in_proj_weight.copy_(torch.cat([eye, eye, eye]))   # W_Q, W_K, W_V = I
        layer.self_attn.out_proj.weight.copy_(torch.diag(torch.tensor(w, dtype=torch.float64)) if attention else zero)
        layer.linear1.weight.copy_(eye)
        layer.linear2.weight.copy_(eye if ffn else zero)
    return layer.eval()


def torch_output(torch, p) -> list[float]:
    x = torch.tensor([[p["x"]]], dtype=torch.float64)   # (B = 1, L = 1, K)
    with torch.no_grad():
        if p["sublayer"] == "ffn" and not p["norm_first"]:   # no attention weights leave x + 0 un-normalised
            layer = torch_layer(torch, p["w"], False)
            out = layer.norm2(x + layer.linear2(torch.relu(layer.linear1(x))))
        else:   # the FFN zeroed leaves the attention step as it is: LN(LN(v)) = LN(v), and x1 + 0 = x1
            layer = torch_layer(torch, p["w"], p["norm_first"], attention=p["sublayer"] != "ffn",
                                ffn=p["sublayer"] != "attention")
            out = layer(x)
    return out.ravel().tolist()


def torch_norms(torch, p) -> tuple[int, int]:
    """(LayerNorms, their parameters) of nn.TransformerEncoder (+ Decoder), a final norm for Pre-LN only."""
    nn, d, pre, bias = torch.nn, p["d_model"], p["norm_first"], p.get("bias", True)
    final = (lambda: nn.LayerNorm(d, bias=bias, device="meta")) if pre else (lambda: None)
    layer = {"d_model": d, "nhead": 1, "dim_feedforward": d, "norm_first": pre, "bias": bias, "device": "meta"}
    stacks = [nn.TransformerEncoder(nn.TransformerEncoderLayer(**layer), p["num_layers"], norm=final(),
                                    enable_nested_tensor=False)]
    if p["decoder_layers"]:
        stacks.append(nn.TransformerDecoder(nn.TransformerDecoderLayer(**layer), p["decoder_layers"], norm=final()))
    norms = [m for stack in stacks for m in stack.modules() if isinstance(m, nn.LayerNorm)]
    return len(norms), sum(t.numel() for m in norms for t in m.parameters())


@pytest.mark.parametrize("level", [1, 2, 3])
def test_every_output_is_the_torch_layers(level):
    torch = pytest.importorskip("torch")
    sublayers = set()
    for seed in range(60):
        v = draw(seed, level, ask="output")
        sublayers.add((v.params["sublayer"], v.params["norm_first"]))
        assert v.answer == pytest.approx(tuple(torch_output(torch, v.params)), abs=1e-12), v.params
    assert len(sublayers) == (2 if level == 3 else 4)   # level 3: the whole layer, in both arrangements


@pytest.mark.parametrize("level", [1, 2, 3])
def test_every_stream_sigma_is_the_torch_layers_output_unnormalised(level):
    torch = pytest.importorskip("torch")
    for seed in range(40):
        v = draw(seed, level, ask="stream")
        assert v.params["norm_first"] is True   # Post-LN's output has σ 1 whatever the numbers
        out = torch.tensor(torch_output(torch, v.params), dtype=torch.float64)
        assert v.answer == pytest.approx(out.std(unbiased=False).item(), abs=1e-12) and abs(v.answer - 1) > 1e-3
        post = torch.tensor(torch_output(torch, {**v.params, "norm_first": False}), dtype=torch.float64)
        assert post.std(unbiased=False).item() == pytest.approx(1.0, abs=1e-12)   # what the hint for 1 says


@pytest.mark.parametrize("level", [1, 2, 3])
@pytest.mark.parametrize("ask", ["count", "norm_params"])
def test_every_count_is_torchs(level, ask):
    torch = pytest.importorskip("torch")
    for seed in range(30):
        v = draw(seed, level, ask=ask)
        count, total = torch_norms(torch, v.params)
        assert v.answer == (count if ask == "count" else total), v.params


# --- the facts, by hand ------------------------------------------------------------------------------------------


def test_the_example_is_the_hand_derived_post_ln_step():
    v = GENERATOR.example()   # x = [1, 2, 3, 4], w = [1, -1, 2, 1], Post-LN, the attention sub-layer
    # x + w*x = [2, 0, 9, 8]: mean 4.75, variance (2.75² + 4.75² + 4.25² + 3.25²) / 4 = 14.6875, σ = 3.832427
    assert v.answer == pytest.approx((-0.717561, -1.239423, 1.108958, 0.848026), abs=1e-6)
    assert grade(v, "-0.7176 -1.2394 1.1090 0.8480").correct


def test_the_same_token_in_pre_ln_keeps_an_unnormalised_stream():
    v = draw(0, x=[1, 2, 3, 4], w=[1, -1, 2, 1], norm_first=True, sublayer="attention", ask="output")
    # LN(x) = [-1.341641, -0.447214, 0.447214, 1.341641]; x + w * LN(x):
    assert v.answer == pytest.approx((-0.341641, 2.447214, 3.894427, 5.341641), abs=1e-6)
    assert np.mean(v.answer) == pytest.approx(2.835410, abs=1e-6)   # not 0: the stream is a plain sum
    post = draw(0, x=[1, 2, 3, 4], w=[1, -1, 2, 1], norm_first=False, sublayer="attention", ask="output")
    assert np.mean(post.answer) == pytest.approx(0, abs=1e-12) and np.std(post.answer) == pytest.approx(1)
    assert "不再归一" in " ".join(v.solution) and "均值 0" in post.solution[-1]
    stream = draw(0, x=[1, 2, 3, 4], w=[1, -1, 2, 1], sublayer="attention", ask="stream")
    # deviations from the mean 2.835410: -3.177051, -0.388196, 1.059017, 2.506231; squared
    # (10.093653 + 0.150696 + 1.121517 + 6.281192) / 4 = 4.411765, σ = √4.411765
    assert stream.params["norm_first"] and stream.answer == pytest.approx(2.100420, abs=1e-6)
    assert "Post-LN" in grade(stream, "1").hint


@pytest.mark.parametrize(("params", "count"), [
    ({"norm_first": False, "num_layers": 6}, 12),                        # 2 a layer, no final norm
    ({"norm_first": True, "num_layers": 6}, 13),                         # 2 a layer + the final one
    ({"norm_first": False, "num_layers": 6, "decoder_layers": 6}, 30),   # 12 + 3 · 6
    ({"norm_first": True, "num_layers": 6, "decoder_layers": 6}, 32),    # 12 + 18 + one per stack
])
def test_the_norm_counts_are_the_hand_counts(params, count):
    assert draw(0, ask="count", **params).answer == count
    assert draw(0, ask="norm_params", d_model=512, **params).answer == count * 1024          # γ and β, 512 each
    assert draw(0, ask="norm_params", d_model=512, bias=False, **params).answer == count * 512   # γ only


@pytest.mark.parametrize(("params", "typed", "word"), [
    ({"norm_first": True, "num_layers": 6, "ask": "count"}, "12", "最终 LayerNorm"),
    ({"norm_first": True, "num_layers": 6, "ask": "count"}, "6", "每个残差子层"),
    ({"norm_first": False, "num_layers": 4, "decoder_layers": 4, "ask": "count"}, "16", "decoder 层有 3 个"),
    ({"norm_first": False, "num_layers": 6, "d_model": 512, "bias": False, "ask": "norm_params"}, "12288", "γ"),
    ({"x": [1, 2, 3, 4], "w": [1, -1, 2, 1], "norm_first": True, "sublayer": "attention", "ask": "output"},
     "-0.7176 -1.2394 1.1090 0.8480", "另一种摆法"),
])
def test_known_wrong_methods_get_their_hint(params, typed, word):
    result = grade(draw(0, **params), typed)
    assert not result.correct and word in (result.hint or "")


# --- each level a fair item --------------------------------------------------------------------------------------


def sizes_on_screen(v: Variant) -> None:
    shown = numbers(v.prompt)
    p = v.params
    if p["ask"] in ("output", "stream"):
        needed = [*p["x"], *(p["w"] if p["sublayer"] != "ffn" else [])]
    else:
        needed = [p["num_layers"], p["d_model"], *([p["decoder_layers"]] if p["decoder_layers"] else [])]
        assert p["ask"] == "count" or f"bias={p['bias']}" in v.prompt
    assert all(n in shown for n in needed), (needed, v.prompt)
    assert f"norm_first={p['norm_first']}" in v.prompt


@pytest.mark.parametrize("level", [1, 2, 3])
@pytest.mark.parametrize("ask", ["output", "stream", "count", "norm_params"])
def test_each_level_is_fair_sizes_stated_answers_unique_and_varied(level, ask):
    answers = set()
    for seed in SEEDS:
        v = draw(seed, level, ask=ask)
        assert v.level == level
        sizes_on_screen(v)
        assert grade(v, format_answer(v)).correct
        assert not any(matches(v, hint.answer) for hint in v.hints), (seed, v.prompt)   # no wrong method passes
        assert v.hints
        answers.add(format_answer(v))
    assert len(answers) >= 0.5 * len(SEEDS) if ask in ("output", "stream") else len(answers) >= 10


def test_the_levels_ask_for_more():
    def drawn(level, key, ask="output"):
        return [draw(seed, level, ask=ask).params[key] for seed in SEEDS]

    assert {len(x) for x in drawn(1, "x")} == {3, 4} and {len(x) for x in drawn(2, "x")} == {5, 6}
    assert all(float(e).is_integer() for w in drawn(1, "w") for e in w)
    assert all(not float(e).is_integer() for w in drawn(2, "w") for e in w)          # halves at level 2
    assert set(drawn(1, "sublayer")) == {"attention", "ffn"} and set(drawn(3, "sublayer")) == {"layer"}
    assert set(drawn(1, "decoder_layers", "count")) == {0} and min(drawn(2, "decoder_layers", "count")) > 0
    assert set(drawn(1, "bias", "norm_params")) == {True} and set(drawn(3, "bias", "norm_params")) == {True, False}
    assert {draw(seed, 3).params["ask"] for seed in SEEDS} == {"output", "stream", "norm_params"}
    assert len(draw(0, 3, ask="output").solution) > len(draw(0, 2, ask="output").solution)   # two residual steps


@pytest.mark.parametrize("level", [1, 2, 3])
def test_rounding_once_from_the_shown_steps_is_right(level):
    """A learner who works from the solution's 6-decimal numbers and rounds only the answer is graded right."""
    for seed in SEEDS:
        v = draw(seed, level, ask="output")
        x, w = np.array(v.params["x"], dtype=float), np.array(v.params["w"], dtype=float)
        relu = lambda y: np.maximum(y, 0)
        for step in v.solution:
            if step.startswith("LN(x₁)") or step.startswith("LN(x)"):   # Pre-LN: the shown LN, then the sum
                normed = np.array(numbers(step.rsplit("=", 1)[1]))
                x = x + (w * normed if step.startswith("LN(x)") and v.params["sublayer"] != "ffn" else relu(normed))
            elif "= LN(·)" in step:   # Post-LN: the shown LayerNorm is the stream
                x = np.array(numbers(step.rsplit("=", 1)[1]))
        assert grade(v, " ".join(f"{e:.4f}" for e in x)).correct, (seed, v.solution)


# --- what a deck may pin -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(("params", "fragment"), [
    ({"x": [1, 2, 3], "sublayer": "ffn"}, "negative and a positive"),
    ({"low": 1, "high": 9}, "negative and positive"),
    ({"x": [1, 2, 4], "w": [3, 1, 0]}, "constant"),        # (1 + w) * x = [4, 4, 4]
    ({"x": [1, -2, 3], "w": [1, 2, 3, 1]}, "w has 4 entries"),
    ({"norm_first": "yes"}, "true or false"),
    ({"norm_first": False, "ask": "stream"}, "sigma is 1"),
])
def test_pinned_params_that_would_be_degenerate_are_refused(params, fragment):
    problems = GENERATOR.validate(params)
    assert len(problems) == 1 and fragment in problems[0]


def test_a_pinned_one_signed_vector_is_posed_through_the_attention_only():
    assert {draw(seed, x=[1, 2, 3, 4], ask="output").params["sublayer"] for seed in range(40)} == {"attention"}
