"""Engine vs PyTorch on the CPU: a grid of EncoderLayer forwards, a small full Transformer, and attention at L=4096.

Both sides run in one process with the same thread count, alternating call by call; the
figures are medians. PyTorch runs in eval mode under torch.inference_mode(). The grid is
EncoderLayer B=32 d=512 h=8 d_ff=2048 at L in {128, 512}, float32 and float64. Then the
online-softmax (FlashAttention) path beside the full-matrix path and torch's
scaled_dot_product_attention at L=4096, with each engine path's peak extra memory (tracemalloc,
which sees NumPy's buffers). A last line times what the KV cache buys: generating tokens one at
a time with it vs recomputing the prefix.

    python benchmarks/engine.py [--repeats 11] [--threads N] [--only grid|flash|all]
"""

from __future__ import annotations

import argparse
import ctypes
import glob
import os
import statistics
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import numpy as np
import torch

from studytool.engine import (
    Encoder, EncoderLayer, KVCache, Transformer, causal_mask, online_softmax_attention, scaled_dot_product_attention,
)


def _openblas() -> ctypes.CDLL | None:
    """NumPy's bundled OpenBLAS (the wheel's scipy-openblas build), to read and set its kernel/threads."""
    libs = Path(np.__file__).parent.parent / "numpy.libs"
    found = glob.glob(str(libs / "libscipy_openblas*.so*"))
    return ctypes.CDLL(found[0]) if found else None


def blas_info(threads: int) -> str:
    """Which BLAS kernel NumPy runs, after pinning it to `threads` threads (threadpoolctl if present)."""
    try:
        from threadpoolctl import threadpool_info, threadpool_limits

        threadpool_limits(threads, user_api="blas")
        info = [i for i in threadpool_info() if i["user_api"] == "blas"][0]
        return f"{info['internal_api']} {info['version']} kernel={info.get('architecture')} threads={info['num_threads']}"
    except ImportError:
        lib = _openblas()
        if lib is None:
            return "unknown BLAS (install threadpoolctl to see it)"
        lib.scipy_openblas_set_num_threads64_(threads)
        lib.scipy_openblas_get_corename64_.restype = ctypes.c_char_p
        lib.scipy_openblas_get_config64_.restype = ctypes.c_char_p
        return (
            f"{lib.scipy_openblas_get_config64_().decode().strip()} "
            f"kernel={lib.scipy_openblas_get_corename64_().decode()} "
            f"threads={lib.scipy_openblas_get_num_threads64_()}"
        )


def alternate(ours: Callable[[], object], theirs: Callable[[], object], repeats: int) -> tuple[float, float]:
    """Median seconds of each, timed in turns so machine noise hits both alike."""
    ours(), theirs()  # warm-up: first-call allocations, BLAS thread start
    times_ours, times_theirs = [], []
    for _ in range(repeats):
        start = time.perf_counter()
        ours()
        times_ours.append(time.perf_counter() - start)
        start = time.perf_counter()
        theirs()
        times_theirs.append(time.perf_counter() - start)
    return statistics.median(times_ours), statistics.median(times_theirs)


def weights_of(module: torch.nn.Module) -> dict[str, np.ndarray]:
    return {k: v.detach().numpy() for k, v in module.state_dict().items()}


TORCH_DTYPE = {np.float32: torch.float32, np.float64: torch.float64}
GRID_LENGTHS, GRID_DTYPES, FLASH_LENGTH = (128, 512), (np.float32, np.float64), 4096


def encoder_layer_case(
    repeats: int, length: int = 128, dtype: type = np.float32, batch: int = 32
) -> tuple[str, float, float, float]:
    d_model, n_heads, d_ff = 512, 8, 2048
    theirs = torch.nn.TransformerEncoderLayer(d_model, n_heads, d_ff, batch_first=True, dtype=TORCH_DTYPE[dtype]).eval()
    ours = EncoderLayer(d_model, n_heads, d_ff, dtype=dtype)
    ours.load_state_dict(weights_of(theirs))
    x = np.random.default_rng(0).standard_normal((batch, length, d_model)).astype(dtype)
    x_t = torch.from_numpy(x)
    with torch.inference_mode():
        diff = float(np.abs(ours(x) - theirs(x_t).numpy()).max())
        t_ours, t_theirs = alternate(lambda: ours(x), lambda: theirs(x_t), repeats)
    name = f"EncoderLayer {np.dtype(dtype).name} B={batch} L={length} d={d_model} h={n_heads} d_ff={d_ff}"
    return name, t_ours, t_theirs, diff


def peak_extra_bytes(f: Callable[[], object]) -> int:
    """The most memory f allocated at once beyond what existed before it (its result included)."""
    tracemalloc.start()
    tracemalloc.reset_peak()
    before = tracemalloc.get_traced_memory()[0]
    f()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak - before


def flash_cases(repeats: int, length: int = FLASH_LENGTH) -> list[tuple[str, float, float, float, int]]:
    """Attention of one sentence, 8 heads of d_k=64 at L=4096, float32: the engine's full-matrix path and its
    online-softmax path (blocks of 128 and 512 keys), each beside torch's scaled_dot_product_attention."""
    heads, d_k = 8, 64
    rng = np.random.default_rng(4)
    q, k, v = (rng.standard_normal((1, heads, length, d_k), dtype=np.float32) for _ in range(3))
    q_t, k_t, v_t = torch.from_numpy(q), torch.from_numpy(k), torch.from_numpy(v)
    rows = []
    for causal in (False, True):
        mask = causal_mask(length) if causal else None  # the caller's (L, L) bool mask: 16 MB, not counted
        full = scaled_dot_product_attention(q, k, v, mask)[0]
        paths = {"full matrix": lambda: scaled_dot_product_attention(q, k, v, mask)[0]}
        for block in (128, 512):
            paths[f"online, blocks of {block}"] = lambda block=block: online_softmax_attention(q, k, v, mask, block)
        with torch.inference_mode():
            theirs = lambda: torch.nn.functional.scaled_dot_product_attention(q_t, k_t, v_t, is_causal=causal)  # noqa: E731
            for path, ours in paths.items():
                diff = float(np.abs(ours() - full).max())
                extra = peak_extra_bytes(ours)
                t_ours, t_theirs = alternate(ours, theirs, repeats)
                name = f"attention f32 B=1 h={heads} L={length} d_k={d_k}{', causal' if causal else ''}: {path}"
                rows.append((name, t_ours, t_theirs, diff, extra))
    return rows


def transformer_case(repeats: int) -> tuple[str, float, float, float]:
    batch, src_len, tgt_len, d_model, n_heads, layers, d_ff = 16, 64, 48, 256, 8, 2, 1024
    theirs = torch.nn.Transformer(d_model, n_heads, layers, layers, d_ff, batch_first=True).eval()
    ours = Transformer(d_model, n_heads, layers, layers, d_ff, dtype=np.float32)
    ours.load_state_dict(weights_of(theirs))
    rng = np.random.default_rng(1)
    src = rng.standard_normal((batch, src_len, d_model), dtype=np.float32)
    tgt = rng.standard_normal((batch, tgt_len, d_model), dtype=np.float32)
    mask = causal_mask(tgt_len)
    src_t, tgt_t, mask_t = torch.from_numpy(src), torch.from_numpy(tgt), torch.from_numpy(mask)
    with torch.inference_mode():
        diff = float(np.abs(ours(src, tgt, tgt_mask=mask) - theirs(src_t, tgt_t, tgt_mask=mask_t).numpy()).max())
        t_ours, t_theirs = alternate(
            lambda: ours(src, tgt, tgt_mask=mask), lambda: theirs(src_t, tgt_t, tgt_mask=mask_t), repeats
        )
    name = f"Transformer f32 {layers}+{layers} layers B={batch} L_src={src_len} L_tgt={tgt_len} d={d_model} h={n_heads} d_ff={d_ff}"
    return name, t_ours, t_theirs, diff


def kv_cache_case(repeats: int) -> tuple[str, float, float, float]:
    """A decoder-only stack fed 64 positions: one token per call with a KVCache, or the whole prefix each time."""
    batch, steps, d_model, n_heads, layers, d_ff = 4, 64, 256, 8, 2, 1024
    model = Encoder(d_model, n_heads, d_ff, layers, norm_first=True, dtype=np.float32)
    x = np.random.default_rng(2).standard_normal((batch, steps, d_model), dtype=np.float32)

    def cached() -> np.ndarray:
        cache = KVCache(layers)
        return np.concatenate([model(x[:, t : t + 1], cache=cache) for t in range(steps)], axis=1)

    def recomputed() -> np.ndarray:  # what decoding without a cache does: the prefix again at every step
        return np.concatenate([model(x[:, : t + 1], causal_mask(t + 1))[:, -1:] for t in range(steps)], axis=1)

    diff = float(np.abs(cached() - recomputed()).max())
    t_cached, t_recomputed = alternate(cached, recomputed, repeats)
    return f"decode {steps} tokens, {layers} layers B={batch} d={d_model}: KV cache vs recompute", t_cached, t_recomputed, diff


def gqa_decoder_layer_case(repeats: int) -> tuple[str, float, float, float]:
    """One Llama-style decoder layer (RMSNorm, RoPE, grouped-query attention, SwiGLU) of the LLM family, against
    the same maths in torch: F.rms_norm, rotate-half RoPE, scaled_dot_product_attention(enable_gqa=True)."""
    import torch.nn.functional as F

    from studytool.engine import DecoderLM, LLMConfig
    from studytool.engine.llm import attention_mask

    batch, length, d_model, n_heads, n_kv_heads, d_ff = 32, 128, 512, 8, 2, 1408
    head_dim, eps = d_model // n_heads, 1e-5
    config = LLMConfig("llama", vocab_size=8, d_model=d_model, n_layers=1, n_heads=n_heads, n_kv_heads=n_kv_heads,
                       head_dim=head_dim, d_ff=d_ff, norm_eps=eps)
    ours = DecoderLM(config, dtype=np.float32).model.layers[0]
    w = {k: torch.from_numpy(v) for k, v in ours.state_dict().items()}
    x = np.random.default_rng(3).standard_normal((batch, length, d_model), dtype=np.float32)
    x_t, mask = torch.from_numpy(x), attention_mask(length)
    angles = torch.outer(torch.arange(length, dtype=torch.float64),
                         10000.0 ** (-torch.arange(0, head_dim, 2, dtype=torch.float64) / head_dim))
    cos, sin = (f(torch.cat((angles, angles), dim=-1)).float() for f in (torch.cos, torch.sin))  # (L, d_h)

    def rope(t: torch.Tensor) -> torch.Tensor:
        first, second = t[..., : head_dim // 2], t[..., head_dim // 2 :]
        return t * cos + torch.cat((-second, first), dim=-1) * sin

    def theirs(x: torch.Tensor) -> torch.Tensor:
        h = F.rms_norm(x, (d_model,), w["input_layernorm.weight"], eps)
        q = F.linear(h, w["self_attn.q_proj.weight"]).view(batch, length, n_heads, head_dim).transpose(1, 2)
        k = F.linear(h, w["self_attn.k_proj.weight"]).view(batch, length, n_kv_heads, head_dim).transpose(1, 2)
        v = F.linear(h, w["self_attn.v_proj.weight"]).view(batch, length, n_kv_heads, head_dim).transpose(1, 2)
        a = F.scaled_dot_product_attention(rope(q), rope(k), v, is_causal=True, enable_gqa=True)
        x = x + F.linear(a.transpose(1, 2).reshape(batch, length, d_model), w["self_attn.o_proj.weight"])
        h = F.rms_norm(x, (d_model,), w["post_attention_layernorm.weight"], eps)
        up = F.silu(F.linear(h, w["mlp.gate_proj.weight"])) * F.linear(h, w["mlp.up_proj.weight"])
        return x + F.linear(up, w["mlp.down_proj.weight"])

    with torch.inference_mode():
        diff = float(np.abs(ours(x, mask) - theirs(x_t).numpy()).max())
        t_ours, t_theirs = alternate(lambda: ours(x, mask), lambda: theirs(x_t), repeats)
    name = f"GQA decoder layer f32 B={batch} L={length} d={d_model} h={n_heads} h_kv={n_kv_heads} d_ff={d_ff}"
    return name, t_ours, t_theirs, diff


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=11)
    parser.add_argument("--threads", type=int, default=torch.get_num_threads())
    parser.add_argument("--only", choices=("grid", "flash", "all"), default="all")
    parser.add_argument("--small", action="store_true", help="toy sizes (B=2, L 16 and 32, attention at L=256): "
                        "only that the script runs")
    args = parser.parse_args()
    batch, lengths, flash_length = (2, (16, 32), 256) if args.small else (32, GRID_LENGTHS, FLASH_LENGTH)
    torch.set_num_threads(args.threads)

    print(f"numpy {np.__version__}: {blas_info(args.threads)}")
    print(f"torch {torch.__version__}: threads={torch.get_num_threads()} ({torch.backends.cpu.get_cpu_capability()})")
    coretype = {k: os.environ[k] for k in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE") if k in os.environ}
    print(f"OpenBLAS env: {coretype or 'unset'}; load average {os.getloadavg()[0]:.1f}; "
          f"repeats={args.repeats}, medians, alternating\n")
    print(f"{'case':<78} {'engine ms':>10} {'torch ms':>10} {'ratio':>7} {'max|diff|':>10}")
    if args.only in ("grid", "all"):
        for length, dtype in [(length, dtype) for length in lengths for dtype in GRID_DTYPES]:
            name, t_ours, t_theirs, diff = encoder_layer_case(args.repeats, length, dtype, batch)
            print(f"{name:<78} {t_ours * 1e3:10.1f} {t_theirs * 1e3:10.1f} {t_ours / t_theirs:6.2f}x {diff:10.1e}")
        for case in (transformer_case, gqa_decoder_layer_case):
            name, t_ours, t_theirs, diff = case(args.repeats)
            print(f"{name:<78} {t_ours * 1e3:10.1f} {t_theirs * 1e3:10.1f} {t_ours / t_theirs:6.2f}x {diff:10.1e}")
    if args.only in ("flash", "all"):
        print(f"\n{'':<78} {'engine ms':>10} {'torch ms':>10} {'ratio':>7} {'max|diff|':>10} {'peak extra':>11}")
        for name, t_ours, t_theirs, diff, extra in flash_cases(max(3, args.repeats // 3), flash_length):
            print(f"{name:<78} {t_ours * 1e3:10.1f} {t_theirs * 1e3:10.1f} {t_ours / t_theirs:6.2f}x {diff:10.1e} "
                  f"{extra / 2**20:8.1f} MB")
    if args.only == "all":
        name, t_cached, t_recomputed, diff = kv_cache_case(args.repeats)
        print(f"\n{'engine only':<78} {'cached ms':>10} {'recomp. ms':>10} {'ratio':>7} {'max|diff|':>10}")
        print(f"{name:<78} {t_cached * 1e3:10.1f} {t_recomputed * 1e3:10.1f} {t_cached / t_recomputed:6.2f}x {diff:10.1e}")


if __name__ == "__main__":
    main()
