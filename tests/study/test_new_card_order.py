"""`review` introduces a topic's new cards only after a card of each prerequisite topic (the topic graph)."""

from __future__ import annotations

import random
from datetime import timedelta, timezone

from study_fakes import T0, number

from studytool.decks.model import Deck
from studytool.study.days import Days
from studytool.study.queue import review_queue
from studytool.study.store import Answer, Schedule

UTC_DAYS = Days(4, timezone.utc)


def deck(*cards) -> Deck:
    return Deck(deck="d", title="d", source="", cards=tuple(cards))


def topics(queue) -> list[str]:
    return [showing.card.topic for showing in queue]


# multi-head -> attention -> softmax, and residual <- layernorm, in the bundled topics.yaml
CARDS = [number("mh", 1, "multi-head"), number("at", 2, "attention"), number("ln", 3, "layernorm"),
         number("sm", 4, "softmax"), number("rs", 5, "residual")]


def test_whatever_the_shuffle_new_cards_come_after_their_prerequisites(store):
    for day in range(20):   # the new cards' order is drawn once a day
        order = topics(review_queue(store, [deck(*CARDS)], now=T0 + timedelta(days=day), days=UTC_DAYS,
                                    rng=random.Random(day)))
        assert sorted(order) == sorted(card.topic for card in CARDS)
        assert order.index("softmax") < order.index("attention") < order.index("multi-head")
        assert order.index("residual") < order.index("layernorm")


def test_a_prerequisite_studied_on_an_earlier_day_frees_its_dependents(store):
    day_before = T0 - timedelta(days=1)
    store.record(Answer(card="d/sm", topic="softmax", mode="review", rating=3, correct=True, answer="4", seed=None,
                        params={}, duration_ms=1, time=day_before),
                 lambda prior: Schedule(2, None, 3.0, 5.0, T0 + timedelta(days=60), day_before))
    # one new card a day (each day's draw): attention may be it now; without the softmax card studied, it never
    # could be first (the softmax card is due after these 30 days, so each queue is that one new card)
    firsts = {topics(review_queue(store, [deck(*CARDS)], now=T0 + timedelta(days=day), days=UTC_DAYS, new_limit=1,
                                  rng=random.Random(day)))[0] for day in range(30)}
    assert "attention" in firsts and "multi-head" not in firsts


def test_with_one_new_card_a_day_the_chain_is_introduced_in_order(store):
    """Day by day (the day limit is 1): softmax, then attention, then multi-head, never ahead of its prerequisite."""
    chain = [number("mh", 1, "multi-head"), number("at", 2, "attention"), number("sm", 4, "softmax")]
    introduced = []
    for day in range(3):
        now = T0 + timedelta(days=day)
        queue = review_queue(store, [deck(*chain)], now=now, days=UTC_DAYS, new_limit=1, rng=random.Random(day))
        new = [showing for showing in queue if showing.seed is None]
        assert len(new) == 1
        card = new[0].card
        introduced.append(card.topic)
        store.record(Answer(card=card.key, topic=card.topic, mode="review", rating=3, correct=True, answer="x",
                            seed=None, params={}, duration_ms=1, time=now),
                     lambda prior, now=now: Schedule(2, None, 3.0, 5.0, now + timedelta(days=30), now))
    assert introduced == ["softmax", "attention", "multi-head"]
