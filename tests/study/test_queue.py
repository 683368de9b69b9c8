"""Daily limits over several decks, as Anki's v3 scheduler applies them: the studied deck's and its children's.

Studying several (or all) decks is studying Anki's top deck: the global `new_per_day` and `max_reviews_per_day`
cap the total, each deck's own value caps that deck. The counts below are worked out by hand from the limits.
"""

from __future__ import annotations

import random
from collections import Counter
from datetime import timedelta, timezone

from study_fakes import T0, Clock, Recorder, Script, number

from studytool.decks.model import Deck
from studytool.study import settings
from studytool.study.days import Days
from studytool.study.queue import review_outlook, review_queue
from studytool.study.session import review
from studytool.study.store import Answer, Schedule

UTC_DAYS = Days(4, timezone.utc)
REVIEW = 2


def decks(per_deck: int = 10, names: str = "abcd") -> list[Deck]:
    """Decks of `per_deck` new cards, each card on a topic of its own (no prerequisites hold one back)."""
    return [Deck(deck=name, title=name, source="", cards=tuple(
        number(f"c{i}", i, topic=f"t{name}{i}", deck=name) for i in range(per_deck))) for name in names]


def queue(store, chosen, **options):
    return review_queue(store, chosen, now=T0, days=UTC_DAYS, rng=random.Random(0), **options)


def per_deck(showings) -> Counter:
    return Counter(showing.card.deck for showing in showings)


def due_reviews(store, chosen):
    """Every card of `chosen` a review card due a day ago."""
    for deck in chosen:
        for card in deck.cards:
            store.record(Answer(card=card.key, topic=card.topic, mode="review", rating=3, correct=True, answer="x",
                                seed=1, params={}, duration_ms=1, time=T0 - timedelta(days=3)),
                         lambda prior: Schedule(REVIEW, None, 2.0, 5.0, T0 - timedelta(days=1), T0 - timedelta(days=3)))


def test_all_decks_introduce_the_global_new_per_day_in_total_not_per_deck(store):
    shown = queue(store, decks())                 # 4 decks of 10: 20 in all (not 4 x 10 = 40 as per deck)
    assert len(shown) == 20 and max(per_deck(shown).values()) <= 10


def test_a_decks_own_value_still_caps_that_deck_within_the_total(store):
    settings.put(store, "new_per_day", "2", deck="a")
    settings.put(store, "new_per_day", "3", deck="b")
    settings.put(store, "new_per_day", "4", deck="c")
    settings.put(store, "new_per_day", "1", deck="d")
    assert per_deck(queue(store, decks())) == {"a": 2, "b": 3, "c": 4, "d": 1}   # 10 in all, under the global 20
    settings.put(store, "new_per_day", "6")                                      # the global cap: 6 of those 10
    shown = per_deck(queue(store, decks()))
    assert sum(shown.values()) == 6 and all(shown[d] <= cap for d, cap in {"a": 2, "b": 3, "c": 4, "d": 1}.items())


def test_one_deck_studied_alone_has_its_own_limit_only(store):
    settings.put(store, "new_per_day", "5")
    settings.put(store, "new_per_day", "8", deck="a")
    assert per_deck(queue(store, decks(), deck_ids=["a"])) == {"a": 8}   # a's 8, not the global 5
    assert per_deck(queue(store, decks(), deck_ids=["b"])) == {"b": 5}   # b has no value of its own
    assert len(queue(store, decks(), deck_ids=["a", "b"])) == 5          # two decks: the global caps the pair


def test_new_cards_started_today_in_any_deck_count_against_the_total(store):
    chosen = decks()
    settings.put(store, "new_per_day", "5")
    # 3 new cards of deck a, studied alone today, missed (their 1-minute steps wait in the queue below)
    review(store, chosen, ask=Script(["99", "99", "99"]), view=Recorder(), deck_ids=["a"], clock=Clock(),
           rng=random.Random(0), fuzz=False)
    assert len([s for s in queue(store, chosen) if s.due is None and not s.again]) == 5 - 3


def test_review_once_override_stands_for_every_limit(store):
    assert len(queue(store, decks(), new_limit=7)) == 7                        # all decks: 7 in total
    assert per_deck(queue(store, decks(), new_limit=7, deck_ids=["c"])) == {"c": 7}


def test_all_decks_take_the_global_max_reviews_per_day_in_total(store):
    chosen = decks(per_deck=4)        # 16 review cards due
    due_reviews(store, chosen)
    settings.put(store, "max_reviews_per_day", "6")
    settings.put(store, "max_reviews_per_day", "1", deck="b")
    shown = per_deck(queue(store, chosen))
    assert sum(shown.values()) == 6 and shown["b"] == 1                       # 6 in all, b's 1 among them
    assert per_deck(queue(store, chosen, deck_ids=["a"])) == {"a": 4}         # a alone: its (global) 6 > its 4
    assert per_deck(queue(store, chosen, deck_ids=["b"])) == {"b": 1}


def test_the_outlook_counts_new_cards_against_the_total(store):
    chosen = decks()
    outlook = review_outlook(store, chosen, now=T0, days=UTC_DAYS)
    assert (outlook.new_left, outlook.new_limit, outlook.new_unseen) == (20, 20, 40)
    settings.put(store, "new_per_day", "3", deck="a")
    alone = review_outlook(store, chosen, deck_ids=["a"], now=T0, days=UTC_DAYS)
    assert (alone.new_left, alone.new_limit) == (3, 3)
    settings.put(store, "new_per_day", "2")   # b, c, d: 2 each; a: 3; 9 in all, under the global 2
    assert (review_outlook(store, chosen, now=T0, days=UTC_DAYS).new_limit,
            review_outlook(store, chosen, deck_ids=["a", "b"], now=T0, days=UTC_DAYS).new_left) == (2, 2)
