"""The card flags under `studytool cards`: suspend, bury, forget, hidden from review; Anki's leech rule."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from studytool.errors import StudytoolError
from studytool.study import cards
from studytool.study.store import Answer, Schedule

T0 = datetime(2026, 3, 2, 8, 0, tzinfo=timezone.utc)


def answer(store, key, rating, when, state):
    """Log one review answer of `key` and leave it in `state` (the schedule before it is its prior)."""
    return store.record(
        Answer(card=key, topic="t", mode="review", rating=rating, correct=rating > 1, answer="x", seed=None,
               params={}, duration_ms=5, time=when),
        lambda prior: Schedule(state=state, step=None, stability=2.0, difficulty=5.0, due=when + timedelta(days=1),
                               last_review=when))


def test_suspended_and_buried_cards_are_hidden_until_the_bury_ends(store):
    cards.suspend(store, ["d/a"])
    cards.bury(store, ["d/b"], until=T0 + timedelta(hours=20))
    assert cards.hidden_keys(store, T0) == {"d/a", "d/b"}
    assert cards.hidden_keys(store, T0 + timedelta(hours=20)) == {"d/a"}
    cards.unsuspend(store, ["d/a"])
    assert cards.hidden_keys(store, T0) == {"d/b"}


def test_forget_makes_a_card_new_and_keeps_its_history(store):
    answer(store, "d/a", 3, T0, state=2)
    cards.suspend(store, ["d/a"])
    cards.forget(store, ["d/a"], T0 + timedelta(days=1))
    assert store.schedule("d/a") is None
    assert store.answers_total() == 1
    flags = cards.flags(store, "d/a")
    assert not flags.suspended and flags.reset_at == T0 + timedelta(days=1)


def lapses_until_leech(store, threshold):
    """Again on a review card, over and over: the lapse counts at which the card turned leech."""
    leeched = []
    for lapse in range(1, 3 * threshold + 1):
        when = T0 + timedelta(days=2 * lapse)
        answer(store, "d/a", 3, when, state=2)                       # relearned: a review card again
        review_id = answer(store, "d/a", 1, when + timedelta(hours=1), state=3)
        if cards.note_lapse(store, "d/a", review_id, threshold) is not None:
            leeched.append(lapse)
    return leeched


@pytest.mark.parametrize("threshold, expected", [(8, [8, 12, 16, 20, 24]), (3, [3, 5, 7, 9]), (1, [1, 2, 3])])
def test_leech_at_the_threshold_then_every_half_threshold_rounded_up(store, threshold, expected):
    """Anki's rslib `leech_threshold_met`: lapses >= t and (lapses - t) % ceil(t/2) == 0."""
    assert lapses_until_leech(store, threshold) == expected
    flags = cards.flags(store, "d/a")
    assert flags.leech and flags.suspended


def test_again_on_a_learning_card_is_no_lapse(store):
    for day in range(10):
        review_id = answer(store, "d/a", 1, T0 + timedelta(days=day), state=1)   # prior: new, then learning
        assert cards.note_lapse(store, "d/a", review_id, 1) is None


def test_undo_of_the_leech_answer_unmakes_the_leech(store):
    lapses_until_leech(store, 8)   # leech at 8, 12, 16, 20, 24 lapses: the last answer made it one again
    last = store.con.execute("SELECT max(id) FROM reviews").fetchone()[0]
    store.undo(last)
    cards.undo_lapse(store, "d/a", last, 8)
    flags = cards.flags(store, "d/a")
    assert not flags.suspended and flags.leech   # 23 lapses: unsuspended, still a leech by count


def test_the_variant_last_asked_of_a_generated_card_is_the_last_answer_not_an_implicit_credit(store):
    from studytool.decks.model import Card
    from studytool.study.scheduler import Rules, Scheduler

    card = Card(deck="d", id="g", kind="generated", topic="softmax",
                body={"generator": "softmax", "params": {"ask": "max"}})
    for mode, params, when in [("review", {"x": [1, 2], "level": 2}, T0),
                               ("quiz", {"x": [3, 0, 1], "level": 1, "hinted": True}, T0 + timedelta(hours=1)),
                               ("implicit", {"credit_of": "d/other"}, T0 + timedelta(hours=2))]:
        store.record(Answer(card=card.key, topic="softmax", mode=mode, rating=3, correct=True, answer="x", seed=1,
                            params=params, duration_ms=5, time=when))
    shown = cards.show(store, card, now=T0 + timedelta(hours=3), scheduler=Scheduler(Rules()))
    assert (shown.last_asked.params, shown.last_asked.level) == ({"x": [3, 0, 1]}, 1)   # the quiz's, unmarked
    assert shown.to_json()["last_asked"] == {"params": {"x": [3, 0, 1]}, "level": 1}


def _decks(**cards_by_deck):
    from studytool.decks.model import Card, Deck

    return [Deck(deck=name, title=name, source="", cards=tuple(Card(deck=name, id=card, kind="recall", topic="t")
                                                               for card in ids))
            for name, ids in cards_by_deck.items()]


def test_find_takes_a_bare_id_that_one_deck_alone_has():
    decks = _decks(a=["x", "y"], b=["y", "z"])
    assert cards.find(decks, "x").key == "a/x"
    assert cards.find(decks, "z").key == "b/z"
    assert cards.find(decks, "b/y").key == "b/y"


def test_find_names_the_choices_of_a_bare_id_several_decks_have():
    with pytest.raises(StudytoolError) as raised:
        cards.find(_decks(a=["x", "y"], b=["y"]), "y")
    assert str(raised.value) == "card 'y' is in 2 decks: name one of a/y, b/y"


@pytest.mark.parametrize("ref", ["w", "a/z", "c/x", "a", "/x", "a/"])
def test_find_refuses_a_card_no_deck_has(ref):
    with pytest.raises(StudytoolError, match="^unknown card "):
        cards.find(_decks(a=["x", "y"], b=["y", "z"]), ref)


def test_completions_offer_deck_ids_and_a_bare_id_that_one_deck_alone_has():
    from studytool.decks.model import Card, Deck

    def deck(name, *ids):
        return Deck(deck=name, title=name, source="", cards=tuple(
            Card(deck=name, id=id, kind="recall", topic="t", body={"q": "q", "a": "a"}) for id in ids))

    decks = [deck("d1", "ln-axis", "ln-eps"), deck("d2", "ln-eps", "bn-axis")]
    assert cards.completions(decks, "d1/") == ["d1/ln-axis", "d1/ln-eps"]
    assert cards.completions(decks, "ln-a") == ["ln-axis"]          # `cards show ln-axis` takes it for d1/ln-axis
    assert cards.completions(decks, "bn") == ["bn-axis"]
    assert cards.completions(decks, "ln-e") == []                   # in two decks: the deck must be named
    assert cards.completions(decks, "") == ["d1/ln-axis", "d1/ln-eps", "d2/ln-eps", "d2/bn-axis"]
    assert cards.find(decks, "ln-axis").key == "d1/ln-axis"
