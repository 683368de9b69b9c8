"""Issue 20, item 10: `decks check` of a 4 MB topics file and `decks audit` of a 3,000-card deck.

    python benchmarks/big_inputs.py [--topics-mb 4] [--cards 3000]

Each is run in a child process (`python -m studytool`), so its CPU time and peak memory are its own: the
topics file is 20,000 topics in a chain, each with an unknown `requires` and an unknown core card (every scan
of `topics.py` and its "did you mean" hints at work); the audit deck is `--cards` copies of one recall card
(every pair a near-duplicate: the worst case of that scan) and, separately, the bundled p47-encoder cards
repeated to `--cards` (every kind posed 100 times). Reported: CPU seconds (user + system) and peak RSS.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def topics_file(megabytes: float) -> str:
    head = ("groups:\n  overview: {en: Overview, zh: 概览}\ntopics:\n")
    entries, size, n = [], 0, 0
    while size < megabytes * 1_000_000:
        requires = f"[t{n - 1}, nope{n}]" if n else "[]"
        entry = (f"  - id: t{n}\n    title: Topic {n}\n    group: overview\n    aliases: [alias{n}, 别名{n}]\n"
                 f"    summary: 这是第 {n} 个主题。\n    requires: {requires}\n    core: [p47-encoder/nope{n}]\n")
        entries.append(entry)
        size, n = size + len(entry.encode()), n + 1
    return head + "".join(entries)


def same_cards(n: int) -> str:
    return "deck: same\ntitle: Same\ncards:\n" + "".join(
        f"  - id: c{i}\n    kind: recall\n    topic: layernorm\n    q: LayerNorm 在哪个方向上求均值和方差？\n"
        f"    a: 在单个 token 的特征维上。\n" for i in range(n))


def repeated_bundled(n: int) -> str:
    import yaml

    cards = yaml.safe_load((ROOT / "studytool/decks/bundled/p47-encoder.yaml").read_text(encoding="utf-8"))["cards"]

    class Plain(yaml.SafeDumper):   # no anchors: the loader bounds aliases
        def ignore_aliases(self, data):
            return True

    out = [{**cards[i % len(cards)], "id": f"c{i}"} for i in range(n)]
    for card in out:
        card.pop("formerly", None)
    return yaml.dump({"deck": "mixed", "title": "Mixed", "cards": out}, Dumper=Plain, allow_unicode=True,
                     sort_keys=False)


def measured(args: list[str], home: str) -> tuple[float, float, int]:
    """CPU seconds, peak RSS in MB and exit code of `python -m studytool ARGS`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "STUDYTOOL_HOME": home, "STUDYTOOL_LANG": "en"}
    code = subprocess.run([sys.executable, "-m", "studytool", *args], env=env, stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL).returncode
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return cpu, after.ru_maxrss / 1024, code


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--topics-mb", type=float, default=4)
    parser.add_argument("--cards", type=int, default=3000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        topics = Path(folder, "topics.yaml")
        topics.write_text(topics_file(args.topics_mb), encoding="utf-8")
        same, mixed = Path(folder, "same.yaml"), Path(folder, "mixed.yaml")
        same.write_text(same_cards(args.cards), encoding="utf-8")
        mixed.write_text(repeated_bundled(args.cards), encoding="utf-8")
        print(f"python {sys.version.split()[0]}; CPU seconds of the child, peak RSS (the largest child so far)")
        for label, command in (
                (f"decks check topics.yaml ({topics.stat().st_size / 1e6:.1f} MB)", ["decks", "check", str(topics)]),
                (f"decks audit, {args.cards} copies of one card", ["--deck-path", str(same), "decks", "audit", "same"]),
                (f"decks audit, {args.cards} cards of every kind", ["--deck-path", str(mixed), "decks", "audit", "mixed"])):
            cpu, rss, code = measured(command, tempfile.mkdtemp(dir=folder))
            print(f"{label}: {cpu:.1f} s CPU, peak RSS {rss:.0f} MB (exit {code})")


if __name__ == "__main__":
    main()
