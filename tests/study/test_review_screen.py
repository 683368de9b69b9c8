"""The review screen as in Anki: each button's next interval from the scheduler, the grader's verdict as a default
the learner may change, and :suspend, :bury, :flag N, :info and :edit at any prompt, each undoable."""

from __future__ import annotations

import json
from datetime import timedelta, timezone
from pathlib import Path

import pytest
from typer.testing import CliRunner

from studytool.cli import app
from studytool.config import Settings
from studytool.decks.edit import edit_card, editor_command
from studytool.decks.loader import load_decks
from studytool.study import cards
from studytool.study.days import Days
from studytool.study.queue import Showing
from studytool.study.scheduler import Rules
from studytool.study.session import Session
from studytool.study.summary import Interval
from study_fakes import T0, Clock, Recorder, Script, drawn, drill_deck, number, recall

UTC_DAYS = Days(4, timezone.utc)


def session(store, cards_, lines, *, confirm=False, review=True):
    view, script = Recorder(), Script(lines)
    rules = (lambda deck: Rules(fuzz=False, days=UTC_DAYS)) if review else None
    summary = Session(store, [Showing(card, None) for card in cards_], mode="review" if review else "quiz",
                      ask=script, view=view, rules=rules, clock=Clock(), confirm=confirm).run()
    return summary, view, script


@pytest.mark.parametrize("rating", [1, 2, 3, 4])
def test_each_buttons_interval_is_where_that_rating_puts_the_card(store, rating):
    summary, _view, _script = session(store, [recall("r")], ["…", str(rating)])
    [result] = summary.results
    due = store.schedule("d/r").due
    shown = result.intervals[rating]
    assert shown.seconds == (due - T0).total_seconds()
    if rating == 4:   # Easy on a new card graduates: a day count, from the day it was answered
        assert shown.days == UTC_DAYS.number(due) - UTC_DAYS.number(T0) >= 1
    else:
        assert shown.days is None


def test_the_rating_prompt_shows_the_four_intervals_and_a_quiz_none(store):
    _summary, _view, script = session(store, [recall("r")], ["…", "3"])
    # by hand: steps 1m 10m; Hard on the first step waits halfway, 5.5 min; Easy graduates at FSRS-6's initial
    # Easy stability, 8.2956 days, which at 90% retention is the interval itself: 8 days
    assert script.prompts[1] == "Rate 1 Again <1m · 2 Hard <6m · 3 Good <10m · 4 Easy 8d"
    _summary, _view, script = session(store, [recall("q")], ["…", "3"], review=False)
    assert script.prompts[1] == "Rate 1 Again · 2 Hard · 3 Good · 4 Easy"


@pytest.mark.parametrize("span, text", [
    (Interval(30), "<1m"), (Interval(600), "<10m"), (Interval(601), "<11m"), (Interval(7200), "<2h"),
    (Interval(86_400, 1), "1d"), (Interval(0, 29), "29d"), (Interval(0, 45), "1.5mo"), (Interval(0, 730), "2.0y")])
def test_an_interval_reads_as_anki_writes_it(span, text):
    assert span.text() == text


def test_a_right_answer_waits_for_enter_or_a_rating_and_a_wrong_one_stays_again(store):
    summary, _view, script = session(store, [number("a", 1), number("b", 2), number("c", 3), number("e", 4)],
                                     ["1", "", "2", "4", "3", "1", "2", "9"], confirm=True)
    # a: Enter keeps Good; b: Easy; c: "1" is refused for a right answer, then Hard; e: wrong, nothing asked
    assert [(r.card.key, r.rating) for r in summary.results] == [("d/a", 3), ("d/b", 4), ("d/c", 2), ("d/e", 1)]
    assert sum(prompt.startswith("Enter keeps Good") for prompt in script.prompts) == 4   # c was asked twice
    assert store.schedule("d/b").state == 2   # Easy graduated it


def test_without_confirm_the_verdict_stands_and_no_line_is_read(store):
    summary, _view, script = session(store, [number("a", 1), number("b", 2)], ["1", "2"])
    assert [r.rating for r in summary.results] == [3, 3]
    assert not [prompt for prompt in script.prompts if prompt.startswith("Enter keeps")]


def test_suspend_takes_the_card_out_and_undo_brings_it_back(store):
    summary, view, _script = session(store, [number("a", 1), number("b", 2)], [":suspend", "2", ":undo", ":undo",
                                                                               "1", "2"])
    assert cards.flags(store, "d/a").suspended is False
    assert [r.card.key for r in summary.results] == ["d/a", "d/b"]
    notices = [event[1] for event in view.kinds("notice")]
    assert "Suspended d/a; :undo takes it back." in notices and "Took back the suspension of d/a." in notices


def test_suspend_and_bury_stay_when_not_undone(store):
    summary, _view, _script = session(store, [number("a", 1), number("b", 2)], [":suspend", ":bury"])
    assert summary.answered == 0
    assert cards.flags(store, "d/a").suspended is True
    assert cards.flags(store, "d/b").buried_until == UTC_DAYS.end_of(T0)


def test_flag_keeps_the_card_on_screen_and_undo_takes_the_flag_off(store):
    summary, view, _script = session(store, [number("a", 1)], [":flag 3", ":flag 9", "1"])
    assert cards.flags(store, "d/a").flag == 3 and summary.answered == 1
    assert ":flag takes a number" in view.kinds("notice")[1][1]
    session(store, [number("b", 2)], [":flag 5", ":undo", "2"])
    assert cards.flags(store, "d/b").flag == 0


def test_info_shows_the_cards_schedule_and_history_then_the_card_again(store):
    session(store, [number("a", 1)], ["1"])
    _summary, view, _script = session(store, [number("a", 1)], [":info", "1"])
    assert ("info", "d/a", 1) in view.events
    assert [event[0] for event in view.events][:3] == ["card", "info", "card"]


def test_edit_puts_the_edited_card_on_screen(store):
    view, edited = Recorder(), number("a", 8)
    view.edited = edited
    summary = Session(store, [Showing(number("a", 1), None)], mode="quiz", ask=Script([":edit", "8"]), view=view,
                      clock=Clock()).run()
    assert [r.correct for r in summary.results] == [True]   # graded against the edited answer
    assert [event[0] for event in view.events][:3] == ["card", "edit", "card"]


def test_edit_card_opens_the_editor_at_the_line_and_reads_the_deck_again(tmp_path, monkeypatch):
    monkeypatch.setenv("EDITOR", "my-editor --wait")
    decks = tmp_path / "decks"
    decks.mkdir()
    path = drill_deck(decks)
    settings = Settings(home=tmp_path / "home", deck_paths=[decks])
    card = next(card for deck in load_decks(settings) for card in deck.cards if card.key == "drill/c2")
    ran = []

    def editor(command):
        ran.append(command)
        path.write_text(path.read_text(encoding="utf-8").replace("问题 2：3 + 4 = ?", "问题 2：3 + 5 = ?"), "utf-8")

    edited = edit_card(card, settings, run=editor, said=lambda text: None)
    assert ran == [["my-editor", "--wait", f"+{card.line}", str(path)]]
    assert edited.question.startswith("问题 2：3 + 5")


def test_editing_a_bundled_card_edits_the_learners_copy_which_replaces_the_bundled_deck(tmp_path, monkeypatch):
    settings = Settings(home=tmp_path / "home")
    card = next(card for deck in load_decks(settings) for card in deck.cards if card.kind == "recall")
    said = []

    def editor(command):
        copy = Path(command[-1])
        copy.write_text(copy.read_text(encoding="utf-8").replace(f"id: {card.id}\n", f"id: {card.id}\n", 1),
                        encoding="utf-8")

    edited = edit_card(card, settings, run=editor, said=said.append)
    copy = settings.user_deck_dir / Path(card.file).name
    assert edited.file == str(copy) and copy.exists()
    assert "bundled deck" in said[0]
    decks = load_decks(settings)   # the copy replaces the bundled deck: no "deck id already used"
    assert [deck.file for deck in decks if deck.deck == card.deck] == [str(copy)]


def test_an_editor_command_that_does_not_parse_is_one_line(monkeypatch):
    from studytool.errors import StudytoolError

    monkeypatch.setenv("VISUAL", "vim 'unclosed")
    with pytest.raises(StudytoolError, match="does not read as a command"):
        editor_command(Path("d.yaml"), 3)


def test_review_json_has_each_cards_intervals_and_confirm_reads_the_rating(tmp_path, monkeypatch):
    monkeypatch.setenv("STUDYTOOL_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("TZ", "UTC")
    monkeypatch.setenv("STUDYTOOL_LANG", "en")
    decks = tmp_path / "decks"
    decks.mkdir()
    drill_deck(decks, n=2)
    result = CliRunner().invoke(app, ["--deck-path", str(decks), "review", "--deck", "drill", "--new", "1",
                                      "--confirm", "--json"], input="7\n4\n", env={"STUDYTOOL_NOW": T0.isoformat()})
    assert result.exit_code == 0, result.output
    [card] = json.loads(result.stdout)["cards"]
    assert card["rating"] == 4 and set(card["intervals"]) == {"1", "2", "3", "4"}
    assert card["intervals"]["4"]["days"] >= 1 and card["intervals"]["1"]["days"] is None
