"""The study loop driven like a script: typed lines in, recorded events and committed rows out."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import fsrs
import pytest
from hypothesis import given, settings, strategies as st

from studytool.study.days import Days
from studytool.study.scheduler import Rules
from studytool.study.queue import Showing, spread_topics
from studytool.study.session import Progress, Session
from study_fakes import T0, Clock, Recorder, Script, drawn, number, recall

UTC_DAYS = Days(4, timezone.utc)


def run(store, cards_or_showings, lines, *, mode="quiz", clock=None, retention=0.9):
    """A session; in review mode answers move the schedule (Anki's rules, no fuzz, days from 04:00 UTC)."""
    queue = [c if isinstance(c, Showing) else Showing(c, None) for c in cards_or_showings]
    view = Recorder()
    script = Script(lines)
    rules = (lambda deck: Rules(retention=retention, fuzz=False, days=UTC_DAYS)) if mode == "review" else None
    session = Session(store, queue, mode=mode, ask=script, view=view, rules=rules, clock=clock or Clock())
    return session.run(), view, script


class Ticking(Clock):
    """A clock that moves on by `step` each time it is read (the loop reads it once to pick a card, once to log it)."""

    def __init__(self, step: timedelta):
        super().__init__()
        self.step = step

    def __call__(self):
        now = self.now
        self.now += self.step
        return now


def log(store):
    return [tuple(r) for r in store.con.execute("SELECT card, mode, rating, correct, answer FROM reviews ORDER BY id")]


def test_quiz_grades_numbers_and_recall_and_records_history_only(store):
    summary, view, _ = run(store, [number("n", 12), recall("r"), number("m", 5)], ["12", "不记得了", "2", "6"])
    assert [(r.card.key, r.correct, r.rating) for r in summary.results] == [
        ("d/n", True, 3), ("d/r", True, 2), ("d/m", False, 1)]
    assert (summary.answered, summary.correct) == (3, 2)
    assert log(store) == [("d/n", "quiz", 3, 1, "12"), ("d/r", "quiz", 2, 1, "不记得了"), ("d/m", "quiz", 1, 0, "6")]
    assert store.schedules() == {}  # quiz does not move the schedule
    assert [(e[3].number, e[3].total) for e in view.kinds("card")] == [(1, 3), (2, 3), (3, 3)]
    assert view.kinds("reference") == [("reference", "d/r")]


def test_format_error_asks_again_without_counting(store):
    summary, view, script = run(store, [number("n", 12)], ["twelve", "", "12"])
    assert [r.correct for r in summary.results] == [True]
    assert len(view.kinds("notice")) == 2 and len(script.prompts) == 3
    assert log(store) == [("d/n", "quiz", 3, 1, "12")]


def test_recall_rating_must_be_1_to_4_and_1_counts_wrong(store):
    summary, view, _ = run(store, [recall("r")], ["…", "5", "good", "1"])
    assert [(r.rating, r.correct) for r in summary.results] == [(1, False)]
    assert len(view.kinds("notice")) == 2


def test_skip_quit_and_eof_end_cleanly_with_what_was_answered(store):
    summary, _, _ = run(store, [number("a", 1), number("b", 2), number("c", 3)], ["1", ":skip", ":q"])
    assert (summary.answered, summary.skipped) == (1, 1)
    summary, _, _ = run(store, [number("a", 1), number("b", 2)], ["1"])  # then EOF
    assert summary.answered == 1
    assert not summary.interrupted
    summary, _, _ = run(store, [number("a", 1), number("b", 2)], ["1", KeyboardInterrupt])
    assert summary.answered == 1 and summary.interrupted
    assert len(log(store)) == 3


def test_explain_shows_the_topic_then_the_card_again_and_asks_again(store):
    summary, view, _ = run(store, [number("a", 1, topic="positional-encoding")], [":explain", "1"])
    assert [event[:2] for event in view.events] == [
        ("card", "d/a"), ("explain", "positional-encoding"), ("card", "d/a"), ("result", "d/a")]
    assert view.events[0] == view.events[2]  # the same prompt, the same counter
    assert summary.correct == 1


def test_undo_restores_a_reviewed_cards_exact_state(store):
    clock = Clock()
    run(store, [number("a", 1)], ["1"], mode="review", clock=clock)
    before = store.schedule("d/a")
    clock.now = T0 + timedelta(days=3)
    run(store, [number("a", 1), number("b", 2)], ["9", ":undo", ":q"], mode="review", clock=clock)
    assert store.schedule("d/a") == before
    assert len(log(store)) == 1


def test_undo_with_nothing_to_undo_says_so(store):
    summary, view, _ = run(store, [number("a", 1)], [":undo", "1"])
    assert summary.correct == 1 and len(view.kinds("notice")) == 1


def test_again_is_due_sooner_than_good_which_is_sooner_than_easy(store):
    clock = Clock()
    run(store, [recall("again"), recall("good"), recall("easy")], ["?", "1", "?", "3", "?", "4"],
        mode="review", clock=clock)
    due = {key.split("/")[1]: s.due - T0 for key, s in store.schedules().items()}
    assert due["again"] == timedelta(minutes=1)      # first learning step
    assert due["good"] == timedelta(minutes=10)      # second learning step
    assert due["easy"] >= timedelta(days=1)          # graduates at once
    assert store.schedule("d/easy").state == int(fsrs.State.Review)


def test_desired_retention_changes_intervals(store):
    intervals = {}
    for retention in (0.8, 0.9, 0.95):
        run(store, [recall(f"r{retention}")], ["?", "4"], mode="review", retention=retention)
        intervals[retention] = store.schedule(f"d/r{retention}").due - T0
    assert intervals[0.8] > intervals[0.9] > intervals[0.95]  # asking to remember more means sooner reviews


def test_summary_json_and_weakest_topics(store):
    cards = [number("a", 1, topic="softmax"), number("b", 2, topic="softmax"), number("c", 3, topic="ffn")]
    summary, _, _ = run(store, cards, ["1", "0", "0"])
    doc = summary.to_json()
    assert (doc["answered"], doc["correct"]) == (3, 1)
    assert [c["card"] for c in doc["cards"]] == ["d/a", "d/b", "d/c"]
    assert [w["topic"] for w in doc["weakest_topics"]] == ["ffn", "softmax"]
    assert doc["weakest_topics"][0]["command"] == "studytool quiz --topic ffn"


topic_lists = st.lists(st.sampled_from("abcde"), min_size=1, max_size=30)


@settings(max_examples=200, deadline=None)
@given(topic_lists)
def test_spread_topics_is_a_permutation_keeping_order_within_topic(topics):
    showings = [Showing(number(f"c{i}", i, topic=t), None) for i, t in enumerate(topics)]
    spread = spread_topics(showings)
    assert sorted(s.card.id for s in spread) == sorted(s.card.id for s in showings)
    for topic in set(topics):
        ours = [s.card.id for s in spread if s.card.topic == topic]
        assert ours == [s.card.id for s in showings if s.card.topic == topic]


@settings(max_examples=200, deadline=None)
@given(topic_lists)
def test_spread_topics_leaves_no_neighbours_on_one_topic_when_possible(topics):
    if max(topics.count(t) for t in topics) > (len(topics) + 1) // 2:
        return  # impossible: one topic fills more than every other slot
    spread = spread_topics([Showing(number(f"c{i}", i, topic=t), None) for i, t in enumerate(topics)])
    assert all(a.card.topic != b.card.topic for a, b in zip(spread, spread[1:]))


def test_unknown_command_is_named_and_not_graded(store):
    summary, view, script = run(store, [number("a", 1)], [":foo", "1"])
    [(_kind, text)] = view.kinds("notice")
    assert text.startswith("unknown command :foo")
    assert all(command in text for command in (":q", ":skip", ":undo", ":explain", ":help"))  # the whole list
    assert [(r.answer, r.correct) for r in summary.results] == [("1", True)]
    assert len(script.prompts) == 2


def test_help_lists_every_command(store):
    for typed in (":help", ":?"):
        summary, view, _ = run(store, [number("a", 1)], [typed, "1"])
        [(_kind, text)] = view.kinds("notice")
        assert all(command in text for command in (":q", ":skip", ":undo", ":explain"))
        assert summary.correct == 1


def test_undo_brings_back_a_skipped_card_with_the_same_variant(store):
    summary, view, _ = run(store, [Showing(drawn("g"), 5), number("a", 1)], [":skip", ":undo", "6", "1"])
    shown = [(e[1], e[2]) for e in view.kinds("card")]
    assert shown == [("d/g", "5 + 1 = ?"), ("d/a", "a?"), ("d/g", "5 + 1 = ?"), ("d/a", "a?")]
    assert (summary.answered, summary.correct, summary.skipped) == (2, 2, 0)


def test_undo_steps_back_through_answers_and_skips_in_order(store):
    cards = [number("a", 1), number("b", 2), number("c", 3)]
    summary, view, _ = run(store, cards, [":skip", "2", ":undo", ":undo", "1", "2", "3"], mode="review",
                           clock=Ticking(timedelta(seconds=1)))
    assert [e[1] for e in view.kinds("card")][:7] == ["d/a", "d/b", "d/c", "d/b", "d/a", "d/b", "d/c"]
    assert log(store) == [("d/a", "review", 3, 1, "1"), ("d/b", "review", 3, 1, "2"), ("d/c", "review", 3, 1, "3")]
    assert summary.skipped == 0


def test_undo_takes_back_the_answer_and_its_schedule_then_asks_again(store):
    summary, view, _ = run(store, [number("a", 1), number("b", 2)], ["7", ":undo", "1", "2"], mode="review")
    assert [(r.card.key, r.correct) for r in summary.results] == [("d/a", True), ("d/b", True)]
    assert log(store) == [("d/a", "review", 3, 1, "1"), ("d/b", "review", 3, 1, "2")]
    # the miss's 1-minute step is gone with it: a, b (undo), a, b, then a's 10-minute step, learned ahead
    assert [e[1] for e in view.kinds("card")] == ["d/a", "d/b", "d/a", "d/b", "d/a"]
    # only the Good counts: a new card rated Good moves to the second learning step (10 minutes)
    assert store.schedule("d/a").due == T0 + timedelta(minutes=10)


def test_a_missed_card_comes_back_when_its_step_is_due_not_after_a_number_of_cards(store):
    """Each card takes 30 s: the miss (1-minute step) is due again after two more cards, and comes before the third."""
    cards = [drawn("g"), number("a", 1), number("b", 2), number("c", 3), number("e", 4)]
    summary, view, _ = run(store, cards, ["0", "1", "2", "43"], mode="review", clock=Ticking(timedelta(seconds=15)))
    shown = view.kinds("card")
    assert [e[1] for e in shown] == ["d/g", "d/a", "d/b", "d/g", "d/c"]
    assert shown[0][2] == "41 + 1 = ?" and shown[3][2] != shown[0][2]   # another variant
    assert shown[3][3] == Progress(3, 5, again=0, repeat=True, learning=2, missed=True)   # a, b: 10-minute step
    assert summary.results[0].seed is None


def test_learning_steps_wait_until_nothing_else_is_left_then_come_within_20_minutes(store):
    """A still clock: steps (1 and 10 minutes) are asked when the queue is empty (Anki's learn-ahead), soonest first."""
    cards = [number("a", 1), number("b", 2), number("c", 3)]
    _, view, _ = run(store, cards, ["0", "2", "3", "1", "2"], mode="review")
    assert [(e[1], e[3]) for e in view.kinds("card")] == [
        ("d/a", Progress(1, 3, again=0, repeat=False)),
        ("d/b", Progress(2, 3, again=1, repeat=False)),              # a missed
        ("d/c", Progress(3, 3, again=1, repeat=False, learning=1)),  # b rated Good: a learning step, not "again"
        ("d/a", Progress(3, 3, again=0, repeat=True, learning=2, missed=True)),   # the 1-minute step first
        ("d/b", Progress(3, 3, again=0, repeat=True, learning=2)),   # a now waits 10 minutes, after b's and c's
        ("d/c", Progress(3, 3, again=0, repeat=True, learning=1)),
    ]


def test_a_step_due_later_than_the_learn_ahead_window_ends_the_session(store):
    clock = Clock()
    run(store, [number("a", 1)], ["1"], mode="review", clock=clock)        # Good: the 10-minute step
    clock.now = T0 - timedelta(minutes=15)                                  # (a clock set back: 25 min to go)
    summary, view, _ = run(store, [], [], mode="review", clock=clock)
    assert summary.answered == 0 and not view.kinds("card")


def test_undoing_a_miss_also_drops_its_learning_step(store):
    summary, view, _ = run(store, [drawn("g"), number("a", 1)], ["0", ":undo", "42", "1", ":q"], mode="review")
    assert [e[1] for e in view.kinds("card")] == ["d/g", "d/a", "d/g", "d/a", "d/g"]
    assert [r.correct for r in summary.results] == [True, True]
    assert store.schedule("d/g").step == 1   # Good once: the second step, not the first again


def test_review_keeps_fsrs_memory_within_a_day_and_counts_days_from_four_in_the_morning(store):
    """Same-day answers match py-fsrs exactly; a day later (crossing 04:00) counts as 1 day though under 24 h passed."""
    clock = Clock()
    reference = fsrs.Scheduler(enable_fuzzing=False)
    expected = fsrs.Card(card_id=1)
    for minutes, typed, rating in [(0, "1", fsrs.Rating.Good), (5, "0", fsrs.Rating.Again),
                                   (20, "1", fsrs.Rating.Good), (40, "1", fsrs.Rating.Good)]:
        clock.now = T0 + timedelta(minutes=minutes)
        run(store, [number("a", 1)], [typed], mode="review", clock=clock)
        expected, _ = reference.review_card(expected, rating, review_datetime=clock.now)
        got = store.schedule("d/a")
        assert (got.state, got.step, got.last_review) == (int(expected.state), expected.step, expected.last_review)
        # kept as Anki keeps them: stability to 4 decimal places, difficulty to 3
        assert got.stability == pytest.approx(expected.stability, abs=2e-4)
        assert got.difficulty == pytest.approx(expected.difficulty, abs=2e-3)
    assert got.due == datetime(2026, 3, 2, 4, tzinfo=timezone.utc)   # 1 day: from the start of the 2nd's day
    clock.now = datetime(2026, 3, 2, 4, 30, tzinfo=timezone.utc)      # 18 h later, yet 1 Anki day
    run(store, [number("a", 1)], ["1"], mode="review", clock=clock)
    recall = (1 + reference._FACTOR * 1 / got.stability) ** reference._DECAY
    stability = reference._next_stability(difficulty=got.difficulty, stability=got.stability,
                                          retrievability=recall, rating=fsrs.Rating.Good)
    assert store.schedule("d/a").stability == pytest.approx(stability, abs=5e-5)
    assert stability > 2 * got.stability   # py-fsrs's 24-hour count would take the same-day path: far less
