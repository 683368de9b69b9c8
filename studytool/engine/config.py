"""ModuleConfig: the settings every module shares, said once instead of six keywords per constructor.

    cfg = ModuleConfig(norm_first=True, dtype=np.float32)
    layer = EncoderLayer(512, 8, 2048, config=cfg)
    layer = EncoderLayer(512, 8, 2048, norm_first=True, dtype=np.float32)  # the same: keywords override

Parameters are created here too (random from the seed, constant, or shape-only on "meta"), so
the modules only say which shapes they need.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from .meta import MetaArray

Seed = int | np.random.Generator | None


@dataclass(frozen=True)
class ModuleConfig:
    norm_first: bool = False  # Pre-LN, x + F(LN(x)), instead of the paper's Post-LN, LN(x + F(x))
    eps: float = 1e-5  # LayerNorm's epsilon, inside the square root
    bias: bool = True  # biases in every Linear and LayerNorm (False drops them all, as PyTorch's bias=False)
    seed: Seed = 0  # weights come from np.random.default_rng(seed)
    dtype: Any = np.float64  # parameters and computation; float32 stays float32 end to end
    device: str = "cpu"  # "meta": shape-only parameters (MetaArray), for sizes too large to allocate

    def __post_init__(self) -> None:
        if self.device not in ("cpu", "meta"):
            raise ValueError(f"device must be 'cpu' or 'meta', got {self.device!r}")
        dtype = np.dtype(self.dtype)
        if dtype.kind != "f":
            raise ValueError(f"dtype must be a floating type, got {dtype}")
        object.__setattr__(self, "dtype", dtype)


def configure(config: ModuleConfig | None, settings: dict[str, Any]) -> ModuleConfig:
    """`config` (or the defaults) with the keyword `settings` applied; an unknown keyword is a TypeError.

    The seed becomes one Generator that this module and the children it builds with the returned
    config draw from in turn, so a seeded model is reproducible and its layers are not copies.
    """
    config = replace(config or ModuleConfig(), **settings)
    return replace(config, seed=np.random.default_rng(config.seed))


def uniform(config: ModuleConfig, shape: tuple[int, ...], bound: float) -> Any:
    """U(-bound, bound) from the config's Generator (a configure()d config)."""
    if config.device == "meta":
        return MetaArray(shape, config.dtype)
    return config.seed.uniform(-bound, bound, size=shape).astype(config.dtype)


def normal(config: ModuleConfig, shape: tuple[int, ...]) -> Any:
    """N(0, 1), torch.nn.Embedding's init."""
    if config.device == "meta":
        return MetaArray(shape, config.dtype)
    return config.seed.standard_normal(shape).astype(config.dtype)


def constant(config: ModuleConfig, shape: tuple[int, ...], value: float) -> Any:
    if config.device == "meta":
        return MetaArray(shape, config.dtype)
    return np.full(shape, value, dtype=config.dtype)

