"""A tester's findings on the study session (issue 14), each through the loop and through the CLI as found.

1. After `:explain` every later showing of the card was capped at Hard: it never passed its learning steps.
2. A card declared a leech and suspended was asked again in the same session, and answering it moved it back
   into review; the notice said "(1 lapses)".
3. `quiz --reschedule` said "Session ended early" after every card was answered (a learning step learned ahead
   was on screen when input ended).

Expected ratings follow Anki's learning steps (1m 10m): Hard on the first step repeats it, Good moves to the
next, Good on the last graduates; its leech rule: Again on a review card is a lapse.
"""

from __future__ import annotations

import json
from datetime import timedelta, timezone

import pytest
from typer.testing import CliRunner

from studytool import i18n
from studytool.cli import app
from studytool.study import cards, settings
from studytool.study.days import Days
from studytool.study.queue import Showing
from studytool.study.scheduler import Rules
from studytool.study.session import Session
from studytool.study.store import Answer, Schedule
from study_fakes import T0, Clock, Recorder, Script, number, recall

RULES = Rules(retention=0.9, fuzz=False, days=Days(4, timezone.utc))
HINTED_SAID = "(you opened :explain: rated at most Hard)"


def review(store, showings, lines, clock=None):
    session = Session(store, showings, mode="review", ask=Script(lines), view=Recorder(),
                      rules=lambda deck: RULES, clock=clock or Clock())
    return session.run(), session.view


# --- 1. :explain caps the showing it was opened on, not the card's later ones -------------------------------


def test_explain_caps_only_its_own_showing_so_the_card_passes_its_steps(store):
    summary, _view = review(store, [Showing(recall("r"), None)], [":explain", "", "3"] + ["", "3"] * 10)
    assert [(result.rating, result.hinted) for result in summary.results] == [(2, True), (3, False), (3, False)]
    assert store.schedule("d/r").state == 2   # graduated: Hard kept step 1, Good took step 2, Good graduated
    assert (summary.hinted, summary.ended_early) == (1, False)
    logged = [json.loads(row[0]).get("hinted") for row in store.con.execute("SELECT params FROM reviews ORDER BY id")]
    assert logged == [True, None, None]


def test_explain_then_undo_asks_the_same_showing_still_hinted(store):
    """`:undo` asks that showing again, its explanation seen: the cap is no way round by undoing."""
    summary, _view = review(store, [Showing(recall("r"), None), Showing(number("n", 5), None)],
                            [":explain", "", "4", ":undo", "", "4", "5"])
    assert [(result.card.key, result.rating, result.hinted) for result in summary.results][:2] == [
        ("d/r", 2, True), ("d/n", 3, False)]


# --- 2. a leech leaves the session ---------------------------------------------------------------------------


def review_card(store, key, due):
    """`key` as a review card due at `due` (graduated ten days before)."""
    store.record(Answer(card=key, topic="softmax", mode="review", rating=3, correct=True, answer="x", seed=None,
                        params={}, duration_ms=5, time=due - timedelta(days=10)),
                 lambda prior: Schedule(state=2, step=None, stability=10.0, difficulty=5.0, due=due,
                                        last_review=due - timedelta(days=10)))


def test_a_card_suspended_as_a_leech_is_not_asked_again_in_the_session(store):
    settings.put(store, "leech_threshold", "1")
    review_card(store, "d/a", T0)
    summary, view = review(store, [Showing(number("a", 1), 7)], ["0", "1", "1", "1"])
    assert [(result.card.key, result.rating) for result in summary.results] == [("d/a", 1)]
    assert [event[1] for event in view.kinds("card")] == ["d/a"]
    assert ("notice", "d/a is a leech (1 lapse): suspended; `studytool cards unsuspend d/a` brings it back") in \
        view.events
    assert store.schedule("d/a").state == 3 and cards.flags(store, "d/a").suspended   # relearning, suspended
    assert not summary.ended_early


def test_undo_of_the_leech_answer_asks_the_card_again_unsuspended(store):
    settings.put(store, "leech_threshold", "1")
    review_card(store, "d/a", T0)
    summary, view = review(store, [Showing(number("a", 1), 7), Showing(number("b", 2), None)],
                           ["0", ":undo", "1", "2"])
    assert [event[1] for event in view.kinds("card")][:4] == ["d/a", "d/b", "d/a", "d/b"]   # then b's step
    assert [(result.card.key, result.rating) for result in summary.results] == [("d/a", 3), ("d/b", 3)]
    assert store.schedule("d/a").state == 2 and not cards.flags(store, "d/a").suspended


# --- 3. ended early: only with cards due now left unasked ----------------------------------------------------


@pytest.mark.parametrize("due, early", [(T0 + timedelta(minutes=5), False), (T0, True)])
def test_input_ending_on_a_learning_step_is_early_only_when_the_step_is_due(store, due, early):
    """A step learned ahead (due later) on screen when input ends is not one of the cards left to ask now."""
    summary, view = review(store, [Showing(number("a", 1), 3, again=True, due=due)], [])
    assert view.kinds("card") and summary.ended_early is early


def test_quit_with_a_card_of_the_queue_left_is_early(store):
    summary, _view = review(store, [Showing(number("a", 1), None), Showing(number("b", 2), None)], ["1", ":q"])
    assert summary.answered == 1 and summary.ended_early


# --- through the CLI, as the tester did ----------------------------------------------------------------------

WORDS = """deck: words
title: Words
source: test
cards:
  - id: w1
    kind: recall
    topic: layernorm
    q: LayerNorm 在哪个维度上归一化？
    a: 特征维
  - id: w2
    kind: recall
    topic: softmax
    q: softmax 的输出和是多少？
    a: "1"
  - id: w3
    kind: recall
    topic: attention
    q: 为什么除以 sqrt(d_k)？
    a: 防止点积过大
"""
MONDAY = "2026-03-02T08:00:00+00:00"


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("STUDYTOOL_HOME", str(tmp_path))
    monkeypatch.setenv("TZ", "UTC")
    monkeypatch.setenv("STUDYTOOL_LANG", "en")   # the words deck is Chinese: its cards would speak Chinese around them
    monkeypatch.setattr(i18n, "_lang", "en")
    (tmp_path / "decks").mkdir()
    (tmp_path / "decks" / "words.yaml").write_text(WORDS, encoding="utf-8")
    return tmp_path


def run(args, now, text=""):
    result = CliRunner().invoke(app, args, input=text, env={"STUDYTOOL_NOW": now, "COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    return result


def test_the_testers_explain_session_ends_with_one_hinted_answer(home):
    text = ":explain\n" + "a\n3\n" * 30
    screen = run(["review", "--deck", "words"], MONDAY, text).stdout
    assert screen.count(HINTED_SAID) == 1 and "Hinted: 1" in screen and "Session ended early" not in screen
    listed = json.loads(run(["cards", "list", "--deck", "words", "--json"], MONDAY).stdout)["cards"]
    assert [card["state"] for card in listed] == ["review"] * 3   # every card passed its steps


def test_the_testers_leech_is_asked_once_and_stays_suspended(home):
    for day in ("2026-03-02", "2026-03-03", "2026-03-04", "2026-03-08"):
        run(["review", "--deck", "words"], f"{day}T08:00:00+00:00", "\n3\n" * 10)
    run(["config", "leech_threshold", "1"], MONDAY)
    now = "2026-03-16T08:00:00+00:00"
    assert len(json.loads(run(["cards", "list", "--state", "due", "--json"], now).stdout)["cards"]) == 3
    result = run(["review", "--deck", "words", "--json"], now, "\n1\n" + "\n3\n" * 3)
    asked = [card["card"] for card in json.loads(result.stdout)["cards"]]
    leech = asked[0]
    assert asked.count(leech) == 1 and len(asked) == 3
    assert f"{leech} is a leech (1 lapse): suspended;" in " ".join(result.stderr.split())
    shown = json.loads(run(["cards", "show", leech, "--json"], now).stdout)
    assert (shown["state"], shown["suspended"], shown["leech"], shown["lapses"]) == ("relearning", True, True, 1)


def test_a_quiz_that_asked_all_its_cards_did_not_end_early_as_a_review_did_not(home, tmp_path_factory):
    text = "\n3\n" * 3
    screen = run(["quiz", "--deck", "words", "--count", "3", "--reschedule"], MONDAY, text).stdout
    assert "Score: 3/3" in screen and "Session ended early" not in screen and "Next card due at 08:1" in screen
    again = json.loads(run(["quiz", "--deck", "words", "--count", "3", "--reschedule", "--json"], MONDAY,
                           ":q\n").stdout)
    assert again["ended_early"]   # quit at the first card: it was left to ask
    for_review = tmp_path_factory.mktemp("review-home")
    (for_review / "decks").mkdir()
    (for_review / "decks" / "words.yaml").write_text(WORDS, encoding="utf-8")
    result = CliRunner().invoke(app, ["review", "--deck", "words", "--json"], input=text,
                                env={"STUDYTOOL_NOW": MONDAY, "STUDYTOOL_HOME": str(for_review)})
    assert json.loads(result.stdout)["ended_early"] is False


def test_a_quiz_that_asked_its_count_names_no_review_limit_for_the_cards_it_did_not_pick(home):
    """`quiz --count 1` leaves the other due cards because it picked one, not because a limit held them back."""
    run(["review", "--deck", "words"], MONDAY, "\n3\n" * 10)
    now = "2026-03-08T08:00:00+00:00"
    assert len(json.loads(run(["cards", "list", "--state", "due", "--json"], now).stdout)["cards"]) == 3
    screen = " ".join(run(["quiz", "--deck", "words", "--count", "1", "--reschedule"], now, "\n3\n").stdout.split())
    assert "Score: 1/1" in screen and "2 cards still due now." in screen
    assert "review limit" not in screen and "Session ended early" not in screen
