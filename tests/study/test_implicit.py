"""Implicit review: an answer credits (or, missed, pulls forward) the core cards of the topics its topic requires."""

from __future__ import annotations

import json
import random
import sqlite3
from dataclasses import replace
from datetime import datetime, timedelta, timezone

import pytest
from study_fakes import Clock, Recorder, Script, number
from typer.testing import CliRunner

from studytool.cli import app
from studytool.decks.model import Deck
from studytool.study import settings
from studytool.study.days import Days
from studytool.study.implicit import WEIGHT, credited
from studytool.study.scheduler import REVIEW, Rules, Scheduler
from studytool.study.session import review
from studytool.study.store import Answer, Schedule

UTC_DAYS = Days(4, timezone.utc)
T0 = datetime(2026, 3, 1, 9, 0, tzinfo=timezone.utc)     # a review at 09:00 UTC, day start 04:00


@pytest.fixture(autouse=True)
def utc(monkeypatch):
    monkeypatch.setenv("TZ", "UTC")   # the study days of review() are local days: make local UTC


def fsrs_good(stability: float, difficulty: float, last: datetime, now: datetime) -> float:
    """The stability after a Good review, from py-fsrs itself (whole days apart, so 24-hour and Anki days agree)."""
    import fsrs

    card = fsrs.Card(state=fsrs.State.Review, stability=stability, difficulty=difficulty, last_review=last,
                     due=last + timedelta(days=round(stability)))
    return fsrs.Scheduler(enable_fuzzing=False).review_card(card, fsrs.Rating.Good, now)[0].stability


def test_a_credit_moves_stability_three_tenths_of_the_way_to_a_good_review_and_due_with_it():
    scheduler = Scheduler(Rules(fuzz=False, days=UTC_DAYS))
    before = Schedule(REVIEW, None, 10.0, 5.0, UTC_DAYS.start_of(T0 + timedelta(days=10)), T0)
    now = T0 + timedelta(days=6)
    good = scheduler.answer(before, 3, now, key="d/sm", reps=1)
    after = credited(before, good, scheduler)
    s_good = fsrs_good(10.0, 5.0, T0, now)                           # 24.98
    assert after.stability == pytest.approx(10.0 + 0.3 * (s_good - 10.0))  # 14.49
    # at retention 0.9 FSRS's interval is the stability: due 14 days after the last review, not 10
    assert after.due == UTC_DAYS.start_of(T0 + timedelta(days=14))
    assert (after.difficulty, after.last_review, after.state) == (5.0, T0, REVIEW)   # P was not asked


def make_core(monkeypatch, **cores: tuple[str, ...]) -> None:
    """The bundled topic graph, with `cores` (topic id, '-' as '_' -> card keys) as its core cards."""
    from studytool.decks import topics

    patched = tuple(replace(topic, core=cores.get(topic.id.replace("-", "_"), topic.core))
                    for topic in topics.load_topics())
    monkeypatch.setattr(topics, "_topics", lambda: patched)


# attention requires softmax in the bundled topics.yaml, softmax nothing; the tests make d/sm softmax's core card
SOFTMAX, SOFTMAX2, ATTENTION = number("sm", 4, "softmax"), number("sm2", 4, "softmax"), number("at", 2, "attention")
DECK = Deck(deck="d", title="d", source="", cards=(SOFTMAX, SOFTMAX2, ATTENTION))


@pytest.fixture(autouse=True)
def core(monkeypatch):
    make_core(monkeypatch, softmax=("d/sm",))


def put(store, key, topic, stability, last, due):
    """A review card last answered at `last` (Good), due on `due`'s day."""
    store.record(Answer(card=key, topic=topic, mode="review", rating=3, correct=True, answer="x", seed=1, params={},
                        duration_ms=1, time=last),
                 lambda prior: Schedule(REVIEW, None, stability, 5.0, UTC_DAYS.start_of(due), last))


def review_cards(store, typed: list[str], now: datetime, deck=DECK, credit: str = "on"):
    settings.put(store, "relearning_steps", "")
    settings.put(store, "implicit_credit", credit)
    return review(store, [deck], ask=Script(typed), view=Recorder(), clock=Clock(now), fuzz=False,
                  rng=random.Random(0))


def setup(store, now):
    put(store, "d/sm", "softmax", 10.0, now - timedelta(days=6), now + timedelta(days=4))    # core, due in 4 days
    put(store, "d/sm2", "softmax", 10.0, now - timedelta(days=6), now + timedelta(days=3))   # not core, due in 3
    put(store, "d/at", "attention", 3.0, now - timedelta(days=3), now)                      # due today


def implicit_rows(store):
    return store.con.execute("SELECT card, rating, correct, params, answer FROM reviews WHERE mode = 'implicit'"
                             ).fetchall()


def test_the_credit_is_off_by_default(store):
    assert settings.get(store, "implicit_credit") is False


def test_a_right_answer_credits_the_core_card_only_and_logs_it_as_implicit(store):
    now = T0 + timedelta(days=20)
    setup(store, now)
    before = store.schedule("d/sm2")
    summary = review_cards(store, ["2"], now)
    assert summary.credited == 1 and summary.to_json()["implicit_credits"] == 1
    softmax = store.schedule("d/sm")
    # S = 10 after 6 days: py-fsrs's Good gives 24.98, so S' = 10 + 0.3 * 14.98 = 14.49: due 14 days after
    # the last review (interval = S at retention 0.9), 8 days from now instead of 4
    assert softmax.stability == pytest.approx(10.0 + 0.3 * (fsrs_good(10.0, 5.0, now - timedelta(days=6), now) - 10))
    assert softmax.due == UTC_DAYS.start_of(now + timedelta(days=8))
    assert softmax.last_review == now - timedelta(days=6) and softmax.difficulty == 5.0
    assert store.schedule("d/sm2") == before   # a softmax card the attention card does not exercise
    [(card, rating, correct, params, cause)] = implicit_rows(store)
    assert (card, rating, correct, cause) == ("d/sm", 3, 1, "d/at")   # `cards show` lists where it came from
    assert json.loads(params)["from"] == "d/at" and json.loads(params)["weight"] == 0.3
    assert store.reps("d/sm") == 1   # a credit is no review: reps, lapses, limits and the optimizer skip it


def test_the_credit_goes_to_the_core_card_of_each_topic_required_directly_not_further(store, monkeypatch):
    # kv-cache requires causal-mask and cross-attention (both require attention, which requires softmax)
    make_core(monkeypatch, softmax=("d/sm",), causal_mask=("d/cm",), cross_attention=("d/xa", "d/xa2"))
    cards = [number("sm", 4, "softmax"), number("cm", 5, "causal-mask"), number("xa", 6, "cross-attention"),
             number("xa2", 7, "cross-attention"), number("kv", 2, "kv-cache")]
    now = T0 + timedelta(days=20)
    for card in cards[:4]:
        put(store, card.key, card.topic, 10.0, now - timedelta(days=6), now + timedelta(days=4))
    put(store, "d/kv", "kv-cache", 3.0, now - timedelta(days=3), now)
    review_cards(store, ["2"], now, deck=Deck(deck="d", title="d", source="", cards=tuple(cards)))
    assert sorted(card for card, *_rest in implicit_rows(store)) == ["d/cm", "d/xa", "d/xa2"]
    assert store.schedule("d/sm").due == UTC_DAYS.start_of(now + timedelta(days=4))


def test_the_explicit_review_stays_pure_fsrs_with_the_credit_on_or_off(store, tmp_path):
    from studytool.study.store import open_store

    now = T0 + timedelta(days=20)
    setup(store, now)
    review_cards(store, ["2"], now)
    with open_store(tmp_path / "off.db") as off:
        setup(off, now)
        review_cards(off, ["2"], now, credit="false")
        assert off.schedule("d/at") == store.schedule("d/at")
        assert off.schedule("d/sm").stability == 10.0 and implicit_rows(off) == []


def test_a_miss_pulls_the_core_cards_to_the_next_day_at_the_latest_and_leaves_their_memory(store, monkeypatch):
    make_core(monkeypatch, softmax=("d/sm", "d/sm3"))
    now = T0 + timedelta(days=20)
    setup(store, now)
    put(store, "d/sm3", "softmax", 10.0, now - timedelta(days=6), now + timedelta(days=1))   # core, due tomorrow
    deck = Deck(deck="d", title="d", source="", cards=(*DECK.cards, number("sm3", 4, "softmax")))
    review_cards(store, ["9"], now, deck=deck)
    softmax = store.schedule("d/sm")
    assert softmax.due == UTC_DAYS.start_of(now + timedelta(days=1))   # was in 4 days: tomorrow's review asks it
    assert (softmax.stability, softmax.difficulty) == (10.0, 5.0)
    assert store.schedule("d/sm2").due == UTC_DAYS.start_of(now + timedelta(days=3))   # not core: left alone
    assert [(card, rating, correct) for card, rating, correct, *_rest in implicit_rows(store)] == [("d/sm", 1, 0)]


def test_no_credit_for_a_core_card_due_today_or_reviewed_today_and_at_most_one_a_day(store):
    now = T0 + timedelta(days=20)
    put(store, "d/sm", "softmax", 10.0, now - timedelta(days=6), now)       # due today: FSRS asks it today
    put(store, "d/at", "attention", 3.0, now - timedelta(days=3), now)
    review_cards(store, ["4", "2"], now, deck=Deck(deck="d", title="d", source="", cards=(SOFTMAX, ATTENTION)))
    assert implicit_rows(store) == []
    deck = Deck(deck="d", title="d", source="", cards=(SOFTMAX, ATTENTION, number("at2", 2, "attention")))
    later = now + timedelta(days=2)   # softmax reviewed two days ago, not due; both attention cards due
    put(store, "d/at", "attention", 3.0, later - timedelta(days=3), later)
    put(store, "d/at2", "attention", 3.0, later - timedelta(days=3), later)
    review_cards(store, ["2", "2"], later, deck=deck)
    assert [card for card, *_rest in implicit_rows(store)] == ["d/sm"]   # credited once that day


@pytest.mark.parametrize("hide", ["suspend", "bury"])
def test_no_credit_for_a_suspended_or_buried_core_card(store, hide):
    from studytool.study.cards import bury, suspend

    now = T0 + timedelta(days=20)
    setup(store, now)
    if hide == "suspend":
        suspend(store, ["d/sm"])
    else:
        bury(store, ["d/sm"], UTC_DAYS.start_of(now + timedelta(days=1)))
    review_cards(store, ["2"], now)
    assert implicit_rows(store) == []


def test_undo_takes_the_credit_back_with_the_answer(store):
    from studytool.study.implicit import ImplicitCredit
    from studytool.study.queue import Showing
    from studytool.study.session import Session

    now = T0 + timedelta(days=20)
    setup(store, now)
    before = store.schedule("d/sm")
    rules = lambda deck: Rules(fuzz=False, days=UTC_DAYS)  # noqa: E731
    queue = [Showing(ATTENTION, 1), Showing(number("other", 7, "ffn"), 2)]
    session = Session(store, queue, mode="review", ask=Script(["2", ":undo"]), view=Recorder(), rules=rules,
                      clock=Clock(now), implicit=ImplicitCredit([DECK], rules))
    session.run()
    assert store.schedule("d/sm") == before and implicit_rows(store) == []


# --- through the command line, day by day on STUDYTOOL_NOW -------------------------------------------

DECK_YAML = """\
deck: chain
title: 链
source: 测试
cards:
  - id: sm
    kind: number
    topic: softmax
    q: 4?
    answer: 4
"""
ATTENTION_YAML = """\
  - id: at
    kind: number
    topic: attention
    q: 2?
    answer: 2
"""


def run(home, when: str, *args, input: str = ""):
    env = {"STUDYTOOL_HOME": str(home), "STUDYTOOL_NOW": when, "STUDYTOOL_LANG": "en", "TZ": "UTC"}
    result = CliRunner().invoke(app, ["--deck-path", str(home / "chain.yaml"), *args], input=input, env=env)
    assert result.exit_code == 0, result.output
    return result


def asked(result) -> bool:
    return "4?" in result.stdout


@pytest.mark.parametrize("credit", ["on", "false"])
def test_day_by_day_the_attention_card_credits_the_softmax_core_card_unless_switched_off(tmp_path, monkeypatch,
                                                                                         credit):
    make_core(monkeypatch, softmax=("chain/sm",))
    home = tmp_path
    (home / "chain.yaml").write_text(DECK_YAML, encoding="utf-8")
    run(home, "2026-03-02T09:00:00+00:00", "config", "learning_steps", "")   # graduate at once: review cards
    run(home, "2026-03-02T09:00:00+00:00", "config", "implicit_credit", credit)
    run(home, "2026-03-02T09:00:00+00:00", "review", "--deck", "chain", input="4\n")   # day 0: softmax, new
    (home / "chain.yaml").write_text(DECK_YAML + ATTENTION_YAML, encoding="utf-8")
    day1 = run(home, "2026-03-03T09:00:00+00:00", "review", "--deck", "chain", input="2\n")   # day 1: attention
    shown = json.loads(run(home, "2026-03-03T10:00:00+00:00", "cards", "show", "chain/sm", "--json").stdout)
    # a new card's Good: S = w2 = 2.3065, due in round(2.3065) = 2 days (Mar 4). The credit a day later:
    # py-fsrs's Good after 1 day is 7.315, S' = 2.3065 + 0.3 * (7.315 - 2.3065) = 3.81, due Mar 2 + 4 days
    if credit == "on":
        assert [review["mode"] for review in shown["reviews"]] == ["review", "implicit"]
        assert shown["reviews"][1]["answer"] == "chain/at"
        assert shown["stability"] == pytest.approx(3.809, abs=1e-3)
        assert shown["due"] == "2026-03-06T04:00:00+00:00"
        assert "Implicit review: 1 card of a prerequisite topic rescheduled." in day1.stdout
    else:
        assert [review["mode"] for review in shown["reviews"]] == ["review"]
        assert shown["due"] == "2026-03-04T04:00:00+00:00" and "Implicit review" not in day1.stdout
    day2 = run(home, "2026-03-04T09:00:00+00:00", "review", "--deck", "chain", input="4\n")
    assert asked(day2) == (credit != "on")   # the credit moved softmax past its first due day
