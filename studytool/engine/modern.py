"""The pieces of a modern decoder (LLaMA-style, as CS336 teaches it): RMSNorm and a SwiGLU FFN.

Parameter names follow torch.nn.RMSNorm (`weight`) and Meta's LLaMA FeedForward (`w1`, `w2`,
`w3`), so their state_dicts load unchanged.
"""

from __future__ import annotations

from typing import Any

from .config import ModuleConfig, configure, constant
from .functional import Array, rms_norm, silu
from .modules import Linear, Module


class RMSNorm(Module):
    """torch.nn.RMSNorm over the last axis: weight = 1 at start; `eps=None` is the dtype's epsilon."""

    def __init__(
        self, d_model: int, *, eps: float | None = None, config: ModuleConfig | None = None, **settings: Any
    ) -> None:
        config = configure(config, settings)
        self.dtype = config.dtype
        self.eps = eps  # its own, not config.eps: torch.nn.RMSNorm's default differs from LayerNorm's
        self.weight = constant(config, (d_model,), 1.0)

    def __call__(self, x: Array) -> Array:
        return rms_norm(self._cast(x), self.weight, self.eps)


class SwiGLUFeedForward(Module):
    """W2 (silu(x W1) * (x W3)): a gate and an up projection d -> d_ff, a down projection d_ff -> d.

    Three matrices instead of two, so d_ff ≈ 8/3 d keeps the parameter count of a 4d ReLU FFN.
    No biases by default, as in LLaMA: `bias` is this module's own keyword, not `config.bias`.
    """

    def __init__(
        self, d_model: int, d_ff: int, *, bias: bool = False, config: ModuleConfig | None = None, **settings: Any
    ) -> None:
        config = configure(config, {**settings, "bias": bias})
        self.dtype = config.dtype
        self.w1 = Linear(d_model, d_ff, config=config)  # gate
        self.w2 = Linear(d_ff, d_model, config=config)  # down
        self.w3 = Linear(d_model, d_ff, config=config)  # up

    def __call__(self, x: Array) -> Array:
        x = self._cast(x)
        gate, up = self.w1(x), self.w3(x)  # (B, L, d) -> (B, L, d_ff) each
        return self.w2(silu(gate) * up)  # (B, L, d_ff) -> (B, L, d)
