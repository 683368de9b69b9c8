"""Deck loading: read, compose and validate a synthetic 10,000-card deck.

    python benchmarks/decks.py [--cards 10000] [--runs 7]

The deck mixes every kind in equal shares (generated cards validated against
the registry, choice answers against their options ...), about what a real
deck holds per card. Reported: the file size, the median and best wall time of
`--runs` loads after one warm-up, their median CPU time (what the load costs
when other processes share the machine), and the median split into YAML
composition (libyaml) and validation. Target: a median load <= 0.5 s.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

TARGET = 0.5  # seconds

CARDS = [
    "  - id: c{i}-recall\n    kind: recall\n    topic: layernorm\n    tags: [interview]\n    source: 讲义 p19\n"
    "    q: LayerNorm 在哪个方向上求均值和方差？（第 {i} 题）\n    a: 在单个 token 的特征维上，与 batch 无关。\n",
    "  - id: c{i}-choice\n    kind: choice\n    topic: bn-vs-ln\n    tags: [mistake]\n    source: 讲义 p20\n"
    "    q: 哪个归一化与 batch 大小无关？\n    options: [BatchNorm, LayerNorm, 两者都是, 两者都不是]\n    answer: B\n"
    "    why: LN 只看单个样本。\n",
    "  - id: c{i}-tf\n    kind: truefalse\n    topic: residual\n    tags: [fact]\n"
    "    statement: 残差连接要求子层输入输出形状相同。\n    answer: true\n    opposite: 残差连接不要求子层输入输出形状相同。\n"
    "    why: 逐元素相加需要同形状。\n",
    "  - id: c{i}-number\n    kind: number\n    topic: param-count\n    tags: [example]\n"
    "    q: d_model=512 时一个 encoder 层（无偏置）有多少参数？\n    answer: 3145728\n",
    "  - id: c{i}-vector\n    kind: vector\n    topic: positional-encoding\n    tags: [example]\n"
    "    q: d=3、pos=1 的位置编码？\n    answer: [0.841471, 0.540302, 0.002154]\n    tolerance: 0.000001\n",
    "  - id: c{i}-shape\n    kind: shape\n    topic: multi-head\n    tags: [self-test]\n"
    "    q: 注意力分数的形状？\n    answer: [32, 8, 10, 10]\n",
    "  - id: c{i}-order\n    kind: order\n    topic: encoder-block\n    tags: [fact]\n"
    "    q: 排列 encoder block 的步骤。\n    items: [self-attention, Add & Norm ①, FFN, Add & Norm ②]\n",
    "  - id: c{i}-generated\n    kind: generated\n    topic: layernorm\n    tags: [example]\n"
    "    generator: layer_norm\n    params: {{size: 4}}\n    example: {{x: [2, 4, 6, 8]}}\n",
]


def synthetic_deck(cards: int) -> str:
    body = "".join(CARDS[i % len(CARDS)].format(i=i) for i in range(cards))
    return f"deck: bench\ntitle: 合成卡组\nsource: benchmark\ncards:\n{body}"


def timed(function, *args) -> tuple[float, object]:
    start = time.perf_counter()
    result = function(*args)
    return time.perf_counter() - start, result


def cpu_timed(function, *args) -> float:
    """CPU seconds of this process: what the load costs, whatever else the machine is running."""
    start = time.process_time()
    function(*args)
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cards", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()

    import yaml

    from studytool.decks import cache, loader
    from studytool.decks.validate import validate_deck

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "bench.yaml"
        path.write_text(synthetic_deck(args.cards), encoding="utf-8")
        data = path.read_bytes()

        def first_load(path: Path):
            """A file never loaded before: an empty deck cache, so it is read, validated and cached."""
            os.environ["STUDYTOOL_HOME"] = tempfile.mkdtemp(dir=folder)
            return loader.load_deck_file(path)

        deck = first_load(path)  # warm-up: imports, topic list, registry
        assert len(deck.cards) == args.cards
        loads = [timed(first_load, path)[0] for _ in range(args.runs)]
        cpu = [cpu_timed(first_load, path) for _ in range(args.runs)]
        cached = [timed(loader.load_deck_file, path)[0] for _ in range(args.runs)]
        import pickle   # the first release's cache format, as the yardstick for the JSON cache (issue 10)

        blob = pickle.dumps((deck, (1, 1)), protocol=pickle.HIGHEST_PROTOCOL)
        pickled = [timed(pickle.loads, blob)[0] for _ in range(args.runs)]
        composes, validates = [], []
        for _ in range(args.runs):
            with cache.gc_paused():   # as the loader does
                seconds, root = timed(yaml.compose, data, loader._loader())
                composes.append(seconds)
                validates.append(timed(validate_deck, root, str(path), [])[0])
                del root

    median = statistics.median(loads)
    print(f"python {sys.version.split()[0]}, PyYAML {yaml.__version__}, libyaml: {yaml.__with_libyaml__}")
    print(f"deck: {args.cards} cards, {len(data) / 1024:.0f} KiB")
    print(f"load_deck_file, first time (validate + cache): median {median * 1000:.0f} ms, "
          f"best {min(loads) * 1000:.0f} ms ({args.runs} runs)")
    print(f"  CPU time: median {statistics.median(cpu) * 1000:.0f} ms")
    print(f"  compose (libyaml): median {statistics.median(composes) * 1000:.0f} ms")
    print(f"  validate (nodes):  median {statistics.median(validates) * 1000:.0f} ms")
    print(f"  later loads (from the deck cache): median {statistics.median(cached) * 1000:.0f} ms")
    print(f"  for comparison, unpickling the same deck: median {statistics.median(pickled) * 1000:.0f} ms")
    print(f"target <= {TARGET * 1000:.0f} ms for the first load: {'met' if median <= TARGET else 'MISSED'}")


if __name__ == "__main__":
    main()
