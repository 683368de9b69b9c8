"""The review outlook's "New cards: N of M left today" is what a review started then gives.

A new card waits for a card of each prerequisite topic (issue 16's order); one whose prerequisite's deck is at its
daily limit waits for a later day. The tester's day: `config new_per_day 3 --deck p47-encoder`, then a review of
extra-interview and p47-encoder showed [1/19] while the outlook said "New cards: 20 of 20 left today".
"""

from __future__ import annotations

import json
import random
import re
from datetime import timedelta

from study_fakes import T0, Clock, Recorder, Script, number
from typer.testing import CliRunner

from studytool.decks.model import Deck
from studytool.study import settings
from studytool.study.session import review
from studytool.study.store import open_store

TESTERS = ["extra-interview", "p47-encoder"]


def shown_total(view: Recorder) -> int:
    """The session's own cards, as the first card's header counts them ([1/N])."""
    return view.kinds("card")[0][3].total


def test_a_review_ended_at_its_first_card_leaves_the_outlook_it_would_give(store):
    from studytool.config import Settings
    from studytool.decks.loader import load_decks

    settings.put(store, "new_per_day", "3", deck="p47-encoder")
    decks = load_decks(Settings(home=store.path.parent))
    totals = set()
    for day in range(12):
        view = Recorder()
        summary = review(store, decks, ask=Script([]), view=view, deck_ids=TESTERS,
                         clock=Clock(T0 + timedelta(days=day)), rng=random.Random(day))
        totals.add(shown_total(view))
        assert (summary.outlook.new_left, summary.outlook.new_limit) == (shown_total(view), 20), day
    assert min(totals) < 20   # the days include the tester's: cards wait for a prerequisite in the capped deck


def test_every_review_of_a_day_offers_the_same_new_cards_and_the_next_day_others(store):
    """The day's draw, as Anki's new cards keep their positions: what the outlook counts is what comes."""
    from studytool.study.days import Days
    from studytool.study.queue import review_queue

    decks = [Deck(deck="d", title="d", source="", cards=tuple(number(f"c{i}", i, f"t{i}") for i in range(30)))]

    def new_cards(now, seed):
        return [showing.card.key for showing in review_queue(store, decks, now=now, days=Days(4, T0.tzinfo),
                                                             rng=random.Random(seed))]
    morning = new_cards(T0, 1)
    assert len(morning) == 20 and new_cards(T0 + timedelta(hours=12), 2) == morning   # 21:30, the same day
    assert new_cards(T0 + timedelta(days=1), 1) != morning


def first_answer(view: Recorder, answers: dict[str, str]):
    """`ask` that answers the first card shown right, then ends the input."""
    asked = []

    def ask(prompt: str) -> str:
        if asked:
            raise EOFError
        asked.append(view.kinds("card")[-1][1])
        return answers[asked[0]]
    return ask


def test_after_an_answer_the_outlook_is_what_the_next_review_gives(tmp_path):
    """Deck a may give 1 new card a day, softmax or residual; deck b's attention needs softmax and its layernorm
    residual, so one of them waits for a later day: 1 + 3 new cards of the 20 the limits allow, never 20."""
    decks = [Deck(deck="a", title="a", source="", cards=(number("sm", 5, "softmax", "a"),
                                                        number("rs", 6, "residual", "a"))),
             Deck(deck="b", title="b", source="", cards=(number("at", 1, "attention", "b"),
                                                        number("ln", 2, "layernorm", "b"),
                                                        number("x1", 3, "seq2seq", "b"),
                                                        number("x2", 4, "embedding", "b")))]
    answers = {card.key: str(card.body["answer"]) for deck in decks for card in deck.cards}
    for day in range(8):
        clock = Clock(T0 + timedelta(days=day))
        with open_store(tmp_path / f"{day}.db") as store:
            settings.put(store, "new_per_day", "1", deck="a")
            view = Recorder()
            untouched = review(store, decks, ask=Script([]), view=view, clock=clock, rng=random.Random(day))
            assert untouched.outlook.new_left == shown_total(view) == 4, day
            view = Recorder()
            answered = review(store, decks, ask=first_answer(view, answers), view=view, clock=clock,
                              rng=random.Random(100 + day))
            assert answered.answered == 1
            view = Recorder()   # the card answered waits for its 10-minute step: not one of the session's own
            review(store, decks, ask=Script([]), view=view, clock=clock, rng=random.Random(200 + day))
            assert answered.outlook.new_left == shown_total(view) == 3, day


def test_review_json_outlook_and_screen_say_what_the_queue_showed(tmp_path, monkeypatch):
    from studytool.cli import app

    monkeypatch.setenv("STUDYTOOL_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("STUDYTOOL_LANG", "en")
    runner = CliRunner()
    assert runner.invoke(app, ["config", "new_per_day", "3", "--deck", "p47-encoder"]).exit_code == 0
    args = ["review", *[word for deck in TESTERS for word in ("--deck", deck)]]
    totals = set()
    for day in range(2, 8):
        env = {"STUDYTOOL_NOW": f"2026-03-{day:02d}T08:00:00+00:00"}
        shown = runner.invoke(app, [*args, "--json"], input="", env=env)
        assert shown.exit_code == 0, shown.output
        total = int(re.search(r"\[1/(\d+)\]", shown.stderr).group(1))
        totals.add(total)
        assert json.loads(shown.stdout)["outlook"]["new_left_today"] == total, day
        screen = runner.invoke(app, args, input="", env=env)
        assert f"New cards: {total} of 20 left today" in " ".join(screen.stdout.split()), day
    assert min(totals) < 20   # a day on which cards wait for a prerequisite in the capped deck
