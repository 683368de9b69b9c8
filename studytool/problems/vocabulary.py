"""One vocabulary for the engine's data-flow steps in worked solutions, in the interface language.

The engine names its steps in English ("self-attention: split heads Q"); a
worked solution shows them through the i18n catalogue, so under `--lang zh`
it reads 自注意力：Q 拆头 like the rest of the solution.
"""

from __future__ import annotations

from functools import cache

from studytool.i18n import _, language


@cache
def _words(lang: str) -> dict[str, str]:
    # one table per interface language: `_()` follows the language chosen when the solution is written
    return {
        "self-attention": _("self-attention"),
        "masked self-attention": _("masked self-attention"),
        "cross-attention": _("cross-attention"),
        "FFN": _("FFN"),
        "Q projection": _("Q projection"),
        "K projection": _("K projection"),
        "V projection": _("V projection"),
        "split heads Q": _("split heads Q"),
        "split heads K": _("split heads K"),
        "split heads V": _("split heads V"),
        "transpose heads Q": _("transpose heads Q"),
        "transpose heads K": _("transpose heads K"),
        "transpose heads V": _("transpose heads V"),
        "attention scores Q·K^T/sqrt(d_k)": _("attention scores Q·K^T/sqrt(d_k)"),
        "softmax over keys": _("softmax over keys"),
        "weighted sum of V": _("weighted sum of V"),
        "concat heads": _("concat heads"),
        "output projection W_O": _("output projection W_O"),
        "add & norm": _("add & norm"),
        "FFN expand": _("FFN expand"),
        "ReLU": _("ReLU"),
        "FFN contract": _("FFN contract"),
        "input": _("input"),
        "output": _("output"),
        "encoder": _("encoder"),
        "decoder": _("decoder"),
        "final LayerNorm": _("final LayerNorm"),
        "final LayerNorm (memory)": _("final LayerNorm (memory)"),
        "linear to vocabulary (logits)": _("linear to vocabulary (logits)"),
        "softmax over vocabulary": _("softmax over vocabulary"),
        "source + positional encoding": _("source + positional encoding"),
        "source embedding": _("source embedding"),
        "source token ids": _("source token ids"),
        "target (shifted right) + positional encoding": _("target (shifted right) + positional encoding"),
        "target (shifted right) embedding": _("target (shifted right) embedding"),
        "target (shifted right) token ids": _("target (shifted right) token ids"),
    }


def step_name(name: str) -> str:
    """An engine step name ("cross-attention: K projection") in the interface language; unknown parts stay."""
    words = _words(language())
    return _(": ").join(words.get(part, part) for part in name.split(": "))
