"""What `review` asks and in which order: due first, then new up to the daily limit, topics spread."""

from __future__ import annotations

import random
from datetime import datetime, timedelta, timezone

import pytest
from study_fakes import T0, Clock, Recorder, Script, drawn, number

from studytool.decks.model import Deck
from studytool.errors import StudytoolError
from studytool.study import settings
from studytool.study.days import Days
from studytool.study.queue import review_queue
from studytool.study.session import review
from studytool.study.store import Answer, Schedule

REVIEW, LEARNING = 2, 1
UTC_DAYS = Days(4, timezone.utc)


def deck(*cards, name="d") -> Deck:
    return Deck(deck=name, title=name, source="", cards=tuple(cards))


def put(store, key, due, state=REVIEW, when=T0, correct=True):
    store.record(Answer(card=key, topic="softmax", mode="review", rating=3 if correct else 1, correct=correct,
                        answer="x", seed=1, params={}, duration_ms=1, time=when),
                 lambda prior: Schedule(state, None if state == REVIEW else 0, 2.0, 5.0, due, when - timedelta(days=1)))


def keys(queue):
    return [showing.card.key for showing in queue]


def test_due_cards_come_first_most_overdue_first_then_new(store):
    cards = [number(f"c{i}", i, topic=f"t{i}") for i in range(6)]
    put(store, "d/c3", T0 - timedelta(days=2))
    put(store, "d/c1", T0 - timedelta(days=5))
    put(store, "d/c4", T0 + timedelta(days=3))  # not due
    queue = review_queue(store, [deck(*cards)], now=T0, rng=random.Random(0), new_limit=20)
    assert keys(queue)[:2] == ["d/c1", "d/c3"]
    assert sorted(keys(queue)[2:]) == ["d/c0", "d/c2", "d/c5"]


def test_due_showings_draw_fresh_variants_and_new_cards_start_with_the_example(store):
    cards = [drawn("g1", topic="a"), drawn("g2", topic="b"), drawn("g3", topic="c")]
    put(store, "d/g1", T0 - timedelta(days=1))
    put(store, "d/g2", T0 - timedelta(days=1))
    queue = review_queue(store, [deck(*cards)], now=T0, rng=random.Random(0), new_limit=5)
    seeds = {showing.card.key: showing.seed for showing in queue}
    assert seeds["d/g3"] is None                      # first showing: the notes' own example
    assert None not in (seeds["d/g1"], seeds["d/g2"]) and seeds["d/g1"] != seeds["d/g2"]


def test_new_cards_are_limited_per_day_counting_todays(store):
    cards = [number(f"c{i}", i, topic=f"t{i}") for i in range(10)]
    put(store, "d/c0", T0 + timedelta(days=1), when=T0 - timedelta(hours=2))   # started today
    put(store, "d/c1", T0 + timedelta(days=1), when=T0 - timedelta(days=2))    # started before today
    queue = review_queue(store, [deck(*cards)], now=T0, rng=random.Random(0), new_limit=4)
    assert len(queue) == 3 and not {"d/c0", "d/c1"} & set(keys(queue))


def test_removed_cards_are_not_asked_but_keep_their_history(store):
    put(store, "d/gone", T0 - timedelta(days=1))
    queue = review_queue(store, [deck(number("kept", 1))], now=T0, rng=random.Random(0), new_limit=5)
    assert keys(queue) == ["d/kept"]
    assert store.answers_total() == 1 and store.schedule("d/gone") is not None


def test_deck_filter_and_unknown_deck(store):
    decks = [deck(number("a", 1, deck="x"), name="x"), deck(number("b", 2, deck="y"), name="y")]
    assert keys(review_queue(store, decks, deck_ids=["y"], now=T0, rng=random.Random(0))) == ["y/b"]
    with pytest.raises(StudytoolError):
        review_queue(store, decks, deck_ids=["nope"], now=T0, rng=random.Random(0))


def test_review_session_commits_each_answer_with_its_variant_seed(store):
    put(store, "d/g", T0 - timedelta(days=3))
    summary = review(store, [deck(drawn("g"))], ask=Script([]), view=Recorder(), clock=Clock(), fuzz=False,
                     rng=random.Random(5))
    assert summary.answered == 0  # EOF at once: nothing answered, nothing lost
    view = Recorder()
    summary = review(store, [deck(drawn("g"))], ask=Script(["?", "0"]), view=view, clock=Clock(), fuzz=False,
                     rng=random.Random(5))
    seed = summary.results[0].seed
    row = store.con.execute("SELECT seed, params FROM reviews ORDER BY id DESC").fetchone()
    assert seed is not None and (row["seed"], row["params"]) == (seed, f'{{"x": {seed}, "level": 1}}')   # its level


def test_editing_a_cards_text_keeps_its_progress(store):
    put(store, "d/c", T0 - timedelta(days=1))
    edited = number("c", 99)  # same deck/id, new question and answer
    edited = type(edited)(**{**edited.__dict__, "body": {"q": "改写后的题目", "answer": 99}})
    queue = review_queue(store, [deck(edited)], now=T0, rng=random.Random(0), new_limit=5)
    assert keys(queue) == ["d/c"] and queue[0].seed is not None  # due as before, not new again


def test_review_cards_due_later_today_count_learning_steps_wait_for_their_moment_or_20_minutes_ahead(store):
    cards = [number("r", 1, topic="a"), number("l", 2, topic="b"), number("far", 3, topic="c")]
    put(store, "d/r", T0 + timedelta(hours=5))
    put(store, "d/l", T0 + timedelta(minutes=10), state=LEARNING)
    put(store, "d/far", T0 + timedelta(minutes=25), state=LEARNING)
    queue = review_queue(store, [deck(*cards)], now=T0, rng=random.Random(0), new_limit=0)
    assert [(s.card.key, s.due) for s in queue] == [("d/r", None), ("d/l", T0 + timedelta(minutes=10))]
    later = review_queue(store, [deck(*cards)], now=T0 + timedelta(minutes=11), rng=random.Random(0), new_limit=0)
    assert keys(later) == ["d/l", "d/r", "d/far"] and later[0].due is None  # by due time; far is 14 min ahead


def test_a_day_starts_at_four_so_a_review_at_3_30_is_still_yesterday(store):
    cards = [number("r", 1)]
    put(store, "d/r", datetime(2026, 3, 2, 4, tzinfo=timezone.utc))       # due on the 2nd's day
    at_330 = datetime(2026, 3, 2, 3, 30, tzinfo=timezone.utc)
    assert review_queue(store, [deck(*cards)], now=at_330, days=UTC_DAYS, rng=random.Random(0)) == []
    assert keys(review_queue(store, [deck(*cards)], now=at_330 + timedelta(minutes=30), days=UTC_DAYS,
                             rng=random.Random(0))) == ["d/r"]


def test_review_cards_are_capped_per_day_counting_todays(store):
    cards = [number(f"c{i}", i, topic=f"t{i}") for i in range(6)]
    for i in range(6):
        put(store, f"d/c{i}", T0 - timedelta(days=6 - i))
    settings.put(store, "max_reviews_per_day", "4")
    queue = review_queue(store, [deck(*cards)], now=T0, days=UTC_DAYS, rng=random.Random(0), new_limit=0)
    assert keys(queue) == ["d/c0", "d/c1", "d/c2", "d/c3"]   # the most overdue
    store.record(Answer(card="d/c0", topic="t0", mode="review", rating=3, correct=True, answer="0", seed=1,
                        params={}, duration_ms=1, time=T0),
                 lambda prior: Schedule(REVIEW, None, 2.0, 5.0, T0 + timedelta(days=3), T0))
    assert keys(review_queue(store, [deck(*cards)], now=T0, days=UTC_DAYS, rng=random.Random(0),
                             new_limit=0)) == ["d/c1", "d/c2", "d/c3"]   # one of today's 4 is used


def test_new_cards_fit_in_what_the_review_cap_leaves_as_in_anki(store):
    cards = [number(f"c{i}", i, topic=f"t{i}") for i in range(8)]
    for i in range(3):
        put(store, f"d/c{i}", T0 - timedelta(days=3 - i))
    settings.put(store, "max_reviews_per_day", "5")
    queue = review_queue(store, [deck(*cards)], now=T0, days=UTC_DAYS, rng=random.Random(0), new_limit=20)
    assert keys(queue)[:3] == ["d/c0", "d/c1", "d/c2"] and len(queue) == 5   # 3 due reviews + 2 new


def test_suspended_and_buried_cards_are_not_asked(store):
    from studytool.study import cards as flags

    cards = [number("a", 1, topic="x"), number("b", 2, topic="y"), number("c", 3, topic="z")]
    flags.suspend(store, ["d/a"])
    flags.bury(store, ["d/b"], T0 + timedelta(hours=1))
    assert keys(review_queue(store, [deck(*cards)], now=T0, rng=random.Random(0))) == ["d/c"]


def test_desired_retention_is_remembered_in_the_database(store):
    review(store, [], ask=Script([]), view=Recorder(), retention=0.85, clock=Clock())
    assert settings.get(store, "retention") == 0.85
    with pytest.raises(StudytoolError):
        review(store, [], ask=Script([]), view=Recorder(), retention=1.2, clock=Clock())


def test_a_review_always_says_when_cards_come_back(store):
    # two new cards answered right: the 10-minute step learned ahead, they graduate; the limit of 2 a day is used
    cards = deck(number("a", 7, topic="t1"), number("b", 7, topic="t2"), number("c", 7, topic="t3"))
    clock = Clock()
    first = review(store, [cards], ask=Script(["7"] * 4), view=Recorder(), new_limit=2, clock=clock, fuzz=False)
    assert first.answered == 4
    outlook = first.outlook
    assert (outlook.due_today, outlook.due_tomorrow, outlook.new_left, outlook.new_unseen) == (0, 0, 0, 1)
    assert outlook.next_due == min(s.due for s in store.schedules().values()) and outlook.due_week == 2
    clock.now = T0 + timedelta(minutes=1)
    empty = review(store, [cards], ask=Script([]), view=Recorder(), new_limit=2, clock=clock, fuzz=False)
    assert empty.answered == 0 and empty.to_json()["outlook"]["new_left_today"] == 0
    assert empty.to_json()["outlook"]["due_next_7_days"] == 2
