"""Small hand-made cards, a scripted input and a recording view for driving study sessions; a crafted journal line;
a progress database as an older studytool made it."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timezone

from studytool.decks.model import Card
from studytool.problems.variant import Variant

T0 = datetime(2026, 3, 1, 9, 30, tzinfo=timezone.utc)


@dataclass(frozen=True)
class Drawn(Card):
    """A stand-in for a generated card: seed s asks for s + 1 (None: the example, 41 + 1)."""

    def pose(self, seed: int | None = None, level: int = 1) -> Variant:
        base = 41 if seed is None else seed
        return Variant(prompt=f"{base} + 1 = ?", kind="scalar", answer=base + 1, seed=seed,
                       generator="plus-one", params={"x": base})


def number(id: str, answer: int, topic: str = "softmax", deck: str = "d") -> Card:
    return Card(deck=deck, id=id, kind="number", topic=topic, body={"q": f"{id}?", "answer": answer})


def recall(id: str, topic: str = "layernorm", deck: str = "d") -> Card:
    return Card(deck=deck, id=id, kind="recall", topic=topic, body={"q": "LayerNorm 沿哪一维？", "a": "特征维"})


def drawn(id: str, topic: str = "attention", deck: str = "d") -> Card:
    return Drawn(deck=deck, id=id, kind="generated", topic=topic, body={"generator": "plus-one"})


class Script:
    """`ask` that replays lines, then raises EOFError like a closed stdin."""

    def __init__(self, lines: Iterable[str]):
        self.lines = list(lines)
        self.prompts: list[str] = []

    def __call__(self, prompt: str) -> str:
        self.prompts.append(prompt)
        if not self.lines:
            raise EOFError
        line = self.lines.pop(0)
        if line is KeyboardInterrupt:
            raise KeyboardInterrupt
        return line


@dataclass
class Recorder:
    """A `View` that writes down what the session showed."""

    events: list[tuple] = field(default_factory=list)

    def show_card(self, card, variant, progress):
        self.events.append(("card", card.key, variant.prompt, progress))

    def show_reference(self, card, variant):
        self.events.append(("reference", card.key))

    def show_result(self, result):
        self.events.append(("result", result.card.key, result.correct))

    def show_notice(self, text):
        self.events.append(("notice", text))

    def show_explain(self, topic):
        self.events.append(("explain", topic))

    def show_info(self, shown):
        self.events.append(("info", shown.listed.card.key, shown.listed.history.reps))

    edited = None   # what `edit` hands back: a test sets the card its "editor" made

    def edit(self, card):
        self.events.append(("edit", card.key))
        return self.edited

    def kinds(self, kind: str) -> list[tuple]:
        return [event for event in self.events if event[0] == kind]


class Clock:
    """A fixed clock the test can move."""

    def __init__(self, now: datetime = T0):
        self.now = now

    def __call__(self) -> datetime:
        return self.now


TOPICS = ["softmax", "ffn", "attention", "layernorm", "embedding", "residual"]


def drill_deck(folder, n=6, deck="drill"):
    """A deck of n number cards, all answered 7, on different topics."""
    cards = "".join(
        f"  - id: c{i}\n    kind: number\n    topic: {TOPICS[i % len(TOPICS)]}\n    q: 问题 {i}：3 + 4 = ?\n    answer: 7\n"
        for i in range(n)
    )
    path = folder / f"{deck}.yaml"
    path.write_text(f"deck: {deck}\ntitle: 练习\nsource: 测试\ncards:\n{cards}", encoding="utf-8")
    return path


def cli(decks, *args, now: str, text: str = ""):
    """One command as a learner types it, with the deck folder `decks` and the clock at `now`; it must succeed."""
    from typer.testing import CliRunner

    from studytool.cli import app

    result = CliRunner().invoke(app, ["--deck-path", str(decks), *args], input=text, env={"STUDYTOOL_NOW": now})
    assert result.exit_code == 0, result.output
    return result


def signed(document: dict) -> bytes:
    """A journal line with a right checksum, as someone who read journal.py could craft one (by hand here)."""
    text = json.dumps(document, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    document = {**document, "sum": hashlib.sha256(text.encode()).hexdigest()[:16]}
    return (json.dumps(document, ensure_ascii=False, sort_keys=True, separators=(",", ":")) + "\n").encode()


def database_at(path, version: int) -> sqlite3.Connection:
    """A progress database at schema `version`, as studytool then made it (its migrations up to there), open to
    plant rows in; commit and close it before studytool opens the file."""
    from studytool.study.schema import MIGRATIONS, MIGRATIONS_TABLE

    con = sqlite3.connect(path)
    con.execute(MIGRATIONS_TABLE)
    for number, migration in enumerate(MIGRATIONS[:version], start=1):
        for statement in migration:
            con.execute(statement)
        con.execute("INSERT INTO migrations VALUES (?, '2026-01-01T00:00:00.000000Z')", (number,))
    return con
