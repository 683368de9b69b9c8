"""Engine vs PyTorch on the CPU: one float32 EncoderLayer forward and a small full Transformer.

Both sides run in one process with the same thread count, alternating call by call; the
figures are medians. PyTorch runs in eval mode under torch.inference_mode(). A last line times
what the KV cache buys: generating tokens one at a time with it vs recomputing the prefix.

    python benchmarks/engine.py [--repeats 11] [--threads N]
"""

from __future__ import annotations

import argparse
import ctypes
import glob
import os
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import torch

from studytool.engine import Encoder, EncoderLayer, KVCache, Transformer, causal_mask


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


def encoder_layer_case(repeats: int) -> tuple[str, float, float, float]:
    batch, length, d_model, n_heads, d_ff = 32, 128, 512, 8, 2048
    theirs = torch.nn.TransformerEncoderLayer(d_model, n_heads, d_ff, batch_first=True).eval()
    ours = EncoderLayer(d_model, n_heads, d_ff, dtype=np.float32)
    ours.load_state_dict(weights_of(theirs))
    x = np.random.default_rng(0).standard_normal((batch, length, d_model), dtype=np.float32)
    x_t = torch.from_numpy(x)
    with torch.inference_mode():
        diff = float(np.abs(ours(x) - theirs(x_t).numpy()).max())
        t_ours, t_theirs = alternate(lambda: ours(x), lambda: theirs(x_t), repeats)
    return f"EncoderLayer f32 B={batch} L={length} d={d_model} h={n_heads} d_ff={d_ff}", t_ours, t_theirs, diff


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
    args = parser.parse_args()
    torch.set_num_threads(args.threads)

    print(f"numpy {np.__version__}: {blas_info(args.threads)}")
    print(f"torch {torch.__version__}: threads={torch.get_num_threads()} ({torch.backends.cpu.get_cpu_capability()})")
    coretype = {k: os.environ[k] for k in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE") if k in os.environ}
    print(f"OpenBLAS env: {coretype or 'unset'}; repeats={args.repeats}, medians, alternating\n")
    print(f"{'case':<78} {'engine ms':>10} {'torch ms':>10} {'ratio':>7} {'max|diff|':>10}")
    for case in (encoder_layer_case, transformer_case, gqa_decoder_layer_case):
        name, t_ours, t_theirs, diff = case(args.repeats)
        print(f"{name:<78} {t_ours * 1e3:10.1f} {t_theirs * 1e3:10.1f} {t_ours / t_theirs:6.2f}x {diff:10.1e}")
    name, t_cached, t_recomputed, diff = kv_cache_case(args.repeats)
    print(f"\n{'engine only':<78} {'cached ms':>10} {'recomp. ms':>10} {'ratio':>7} {'max|diff|':>10}")
    print(f"{name:<78} {t_cached * 1e3:10.1f} {t_recomputed * 1e3:10.1f} {t_cached / t_recomputed:6.2f}x {diff:10.1e}")


if __name__ == "__main__":
    main()
