"""Levels in study: a showing's level follows the card's stability; quiz --level and worksheet --level pin it."""

from __future__ import annotations

import json
import random
import sqlite3
from datetime import timedelta, timezone

import pytest
from study_fakes import T0, Clock, Recorder, Script
from typer.testing import CliRunner

from studytool.cli import app
from studytool.decks.model import Card, Deck
from studytool.study.days import Days
from studytool.study.queue import review_queue
from studytool.study.session import quiz
from studytool.study.store import Answer, Schedule

UTC_DAYS = Days(4, timezone.utc)
REVIEW, RELEARNING = 2, 3


def ln(id: str) -> Card:
    return Card(deck="d", id=id, kind="generated", topic="layernorm",
                body={"generator": "layer_norm", "params": {"ask": "mean"}})


DECK = Deck(deck="d", title="d", source="", cards=(ln("a"), ln("b"), ln("c"), ln("new")))


def put(store, key, stability, state=REVIEW):
    last = T0 - timedelta(days=3)
    store.record(Answer(card=key, topic="layernorm", mode="review", rating=3, correct=True, answer="x", seed=1,
                        params={}, duration_ms=1, time=last),
                 lambda prior: Schedule(state, 0 if state == RELEARNING else None, stability, 5.0,
                                        T0 - timedelta(hours=1), last))


def test_review_shows_each_card_at_the_level_of_its_stability(store):
    put(store, "d/a", 3.0)                  # < 7 days: 1
    put(store, "d/b", 40.0)                 # > 30 days: 3
    put(store, "d/c", 40.0, RELEARNING)     # lapsed, relearning: level 1 (issue 23), whatever the stability
    queue = review_queue(store, [DECK], now=T0, days=UTC_DAYS, rng=random.Random(0))
    levels = {showing.card.id: showing.level for showing in queue}
    assert levels == {"a": 1, "b": 3, "c": 1, "new": 1}
    posed = {showing.card.id: showing.card.pose(showing.seed, showing.level).params for showing in queue}
    assert "residual" in posed["b"] and "residual" not in posed["a"] and len(posed["a"]["x"]) <= 4   # 3: Add & Norm


def test_quiz_pins_a_level_and_the_log_and_json_carry_it(store):
    summary = quiz(store, [DECK], ask=Script(["0", "0"]), view=Recorder(), count=2, seed=3, level=2,
                   clock=Clock(T0))
    assert [card["level"] for card in summary.to_json()["cards"]] == [2, 2]
    logged = [json.loads(row[0]) for row in store.con.execute("SELECT params FROM reviews ORDER BY id")]
    assert [params["level"] for params in logged] == [2, 2]
    assert all(6 <= len(params["x"]) <= 7 for params in logged)     # level 2: 6-7 numbers


def test_quiz_follows_each_cards_stability_without_a_pin(store):
    put(store, "d/b", 40.0)
    summary = quiz(store, [DECK], ask=Script(["0"] * 4), view=Recorder(), seed=3, clock=Clock(T0))
    levels = {card["card"]: card["level"] for card in summary.to_json()["cards"]}
    assert levels == {"d/a": 1, "d/b": 3, "d/c": 1, "d/new": 1}


LEVEL_DECK = """\
deck: lv
title: 级别
source: 测试
cards:
  - id: mean
    kind: generated
    generator: layer_norm
    topic: layernorm
    params: {ask: mean}
  - id: sigma
    kind: generated
    generator: layer_norm
    topic: layernorm
    params: {ask: sigma}
"""


# level 3 keeps the notes' 4 numbers and adds the residual add (issue 23: a combined question, not a longer vector)
@pytest.mark.parametrize("level, sizes", [(1, range(3, 5)), (2, range(6, 8)), (3, [4])])
def test_worksheet_and_quiz_json_carry_the_pinned_level(tmp_path, level, sizes):
    (tmp_path / "lv.yaml").write_text(LEVEL_DECK, encoding="utf-8")
    env = {"STUDYTOOL_HOME": str(tmp_path), "STUDYTOOL_NOW": "2026-03-02T09:00:00+00:00", "STUDYTOOL_LANG": "en"}
    common = ["--deck-path", str(tmp_path / "lv.yaml")]
    sheet = CliRunner().invoke(app, [*common, "worksheet", "--deck", "lv", "--seed", "4", "--level", str(level),
                                     "--format", "json"], env=env)
    items = json.loads(sheet.stdout)
    assert {item["level"] for item in items} == {level}
    asked = CliRunner().invoke(app, [*common, "quiz", "--deck", "lv", "--seed", "4", "--level", str(level), "--json"],
                               input="0\n0\n", env=env)
    cards = json.loads(asked.stdout)["cards"]
    assert [card["level"] for card in cards] == [level, level]
    assert [card["prompt"] for card in cards] == [item["prompt"] for item in items]   # the same questions
    with sqlite3.connect(tmp_path / "studytool.db") as con:
        logged = [json.loads(row[0]) for row in con.execute("SELECT params FROM reviews ORDER BY id")]
    assert [params["level"] for params in logged] == [level, level]
    assert all(len(params["x"]) in sizes for params in logged)
    assert all(("residual" in params) == (level == 3) for params in logged)
    assert CliRunner().invoke(app, [*common, "quiz", "--level", "4"], env=env).exit_code == 2


def test_cards_show_says_the_level_of_the_next_showing(tmp_path):
    (tmp_path / "lv.yaml").write_text(LEVEL_DECK, encoding="utf-8")
    env = {"STUDYTOOL_HOME": str(tmp_path), "STUDYTOOL_NOW": "2026-03-02T09:00:00+00:00", "STUDYTOOL_LANG": "en"}
    shown = CliRunner().invoke(app, ["--deck-path", str(tmp_path / "lv.yaml"), "cards", "show", "lv/mean", "--json"],
                               env=env)
    assert json.loads(shown.stdout)["next_level"] == 1   # new: the notes' sizes first
