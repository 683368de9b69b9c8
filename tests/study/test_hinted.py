"""Issue 12.8: honest signals — an answer after :explain is hinted, rated Hard when right, counted apart in the summary; a card's layout (options order, true/false form) is logged."""

from __future__ import annotations

import json

from studytool.decks.model import Card
from studytool.study.queue import Showing
from studytool.study.session import Session
from study_fakes import Clock, Recorder, Script, number

TF = Card("d", "tf", "truefalse", "layernorm",
          body={"statement": "LayerNorm 跨 batch 统计。", "answer": False, "opposite": "LayerNorm 只在单个样本内统计。"})
CHOICE = Card("d", "c", "choice", "layernorm",
              body={"q": "变长文本用哪种归一化？", "options": ["BatchNorm", "LayerNorm", "GroupNorm"], "answer": "B"})


def run(store, showings, lines):
    session = Session(store, showings, mode="quiz", ask=Script(lines), view=Recorder(), clock=Clock())
    return session.run()


def logged(store):
    return [(row[0], row[1], json.loads(row[2])) for row in
            store.con.execute("SELECT card, rating, params FROM reviews ORDER BY id")]


def test_a_right_answer_after_explain_is_hinted_and_hard(store):
    summary = run(store, [Showing(number("n", 12), None), Showing(number("m", 5), None)], [":explain", "12", "5"])
    assert [(r.card.key, r.rating, r.hinted) for r in summary.results] == [("d/n", 2, True), ("d/m", 3, False)]
    assert (summary.correct, summary.hinted) == (2, 1)
    assert summary.to_json()["hinted"] == 1 and summary.to_json()["cards"][0]["hinted"] is True
    assert [(card, rating, params.get("hinted")) for card, rating, params in logged(store)] == [
        ("d/n", 2, True), ("d/m", 3, None)]


def test_hinted_is_per_card_and_a_miss_after_explain_stays_again(store):
    summary = run(store, [Showing(number("n", 12), None), Showing(number("m", 5), None)], ["11", ":explain", "4"])
    assert [(r.correct, r.rating, r.hinted) for r in summary.results] == [(False, 1, False), (False, 1, True)]


def test_the_layout_of_a_fixed_card_is_logged_so_the_showing_can_be_replayed(store):
    run(store, [Showing(TF, 3), Showing(CHOICE, 4)], ["对", "A"])
    (_, _, tf), (_, _, choice) = logged(store)
    assert tf == TF.pose(3).params and tf["form"] in ("true", "false")
    assert choice == {"order": CHOICE.pose(4).params["order"]}
    assert [CHOICE.body["options"][i] for i in choice["order"]] == list(CHOICE.pose(4).options)
