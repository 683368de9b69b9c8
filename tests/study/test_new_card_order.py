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
    for seed in range(20):
        order = topics(review_queue(store, [deck(*CARDS)], now=T0, days=UTC_DAYS, rng=random.Random(seed)))
        assert sorted(order) == sorted(card.topic for card in CARDS)
        assert order.index("softmax") < order.index("attention") < order.index("multi-head")
        assert order.index("residual") < order.index("layernorm")


def test_a_prerequisite_studied_on_an_earlier_day_frees_its_dependents(store):
    day_before = T0 - timedelta(days=1)
    store.record(Answer(card="d/sm", topic="softmax", mode="review", rating=3, correct=True, answer="4", seed=None,
                        params={}, duration_ms=1, time=day_before),
                 lambda prior: Schedule(2, None, 3.0, 5.0, T0 + timedelta(days=2), day_before))
    # one new card today: attention may be it now; without the softmax card studied, it never could be first
    firsts = {topics(review_queue(store, [deck(*CARDS)], now=T0, days=UTC_DAYS, new_limit=1,
                                  rng=random.Random(seed)))[0] for seed in range(30)}
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


def test_a_capped_decks_draw_never_leaves_the_days_room_unused(store):
    """The tester's `[1/19]` half the time: deck a may give 1 new card today, softmax or residual as the shuffle
    falls; deck b's attention needs softmax and its layernorm needs residual, so the other one was held back and
    the queue was one short. Held-back cards now fill the room left, after the rest: 1 + 2 at every seed."""
    from studytool.study import settings

    settings.put(store, "new_per_day", "1", deck="a")
    decks = [Deck(deck="a", title="a", source="", cards=(number("sm", 1, "softmax", "a"),
                                                        number("rs", 2, "residual", "a"))),
             Deck(deck="b", title="b", source="", cards=(number("at", 3, "attention", "b"),
                                                        number("ln", 4, "layernorm", "b")))]
    for seed in range(40):
        queue = review_queue(store, decks, deck_ids=["a", "b"], now=T0, days=UTC_DAYS, rng=random.Random(seed))
        keys = [showing.card.key for showing in queue]
        assert len(keys) == 3 and {"b/at", "b/ln"} <= set(keys), (seed, keys)
        picked = next(key for key in keys if key.startswith("a/"))   # the one deck a gave: its dependent after it
        assert keys.index(picked) < keys.index({"a/sm": "b/at", "a/rs": "b/ln"}[picked])


def test_the_testers_two_decks_always_give_twenty_new_cards(store):
    """`config new_per_day 3 --deck p47-encoder`, then `review --deck extra-interview --deck p47-encoder`: 3 + 17
    under the global cap of 20, whatever the shuffle (19 about half the time before)."""
    from collections import Counter

    from studytool.config import Settings
    from studytool.decks.loader import load_decks
    from studytool.study import settings

    settings.put(store, "new_per_day", "3", deck="p47-encoder")
    decks = load_decks(Settings(home=store.path.parent))
    for seed in range(60):
        queue = review_queue(store, decks, deck_ids=["extra-interview", "p47-encoder"], now=T0, days=UTC_DAYS,
                             rng=random.Random(seed))
        assert Counter(showing.card.deck for showing in queue) == {"extra-interview": 17, "p47-encoder": 3}, seed
