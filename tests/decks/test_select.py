"""plan(): the shared selection of cards, their order and their variant seeds."""

import pytest

from studytool.decks.model import Card, Deck
from studytool.decks.select import Plan, Posing, plan
from studytool.errors import StudytoolError


def deck(deck_id: str, n: int, topic: str = "softmax", tags: tuple[str, ...] = ()) -> Deck:
    cards = tuple(Card(deck=deck_id, id=f"c{i}", kind="recall", topic=topic, tags=tags,
                       body={"q": f"q{i}", "a": f"a{i}"}) for i in range(n))
    return Deck(deck=deck_id, title=deck_id, source="", cards=cards)


DECKS = [deck("a", 20, "softmax", ("interview",)), deck("b", 10, "layernorm", ("fact",)),
         deck("c", 5, "layernorm", ("interview", "mistake"))]


def keys(posings: list[Posing]) -> list[str]:
    return [posing.card.key for posing in posings]


def test_the_same_arguments_give_the_same_cards_order_and_seeds():
    first, again = plan(DECKS, seed=42), plan(DECKS, seed=42)
    assert first == again
    assert sorted(keys(first)) == sorted(card.key for d in DECKS for card in d.cards)   # every card once


def test_another_seed_gives_another_order_and_other_variant_seeds():
    first, other = plan(DECKS, seed=1), plan(DECKS, seed=2)
    assert keys(first) != keys(other)
    assert [p.seed for p in first] != [p.seed for p in other]


def test_a_smaller_count_is_a_prefix_of_a_larger_one():
    assert plan(DECKS, seed=5, count=4) == plan(DECKS, seed=5, count=12)[:4]
    assert len(plan(DECKS, seed=5, count=1000)) == 35


def test_filters_by_deck_tag_and_topic():
    assert {p.card.deck for p in plan(DECKS, deck_ids=["b", "c"], seed=0)} == {"b", "c"}
    assert len(plan(DECKS, tags=["mistake"], seed=0)) == 5
    assert len(plan(DECKS, tags=["fact", "mistake"], seed=0)) == 15            # any of the tags
    assert {p.card.deck for p in plan(DECKS, topic="layernorm", seed=0)} == {"b", "c"}
    assert len(plan(DECKS, deck_ids=["c"], tags=["interview"], topic="layernorm", seed=0)) == 5


def test_a_topic_may_be_named_by_an_alias():
    assert plan(DECKS, topic="层归一化", seed=3) == plan(DECKS, topic="layernorm", seed=3)


def test_no_seed_draws_a_session_seed_that_replays_the_plan():
    drawn = plan(DECKS)
    assert isinstance(drawn, Plan) and isinstance(drawn, list)
    assert plan(DECKS, seed=drawn.seed) == drawn
    assert plan(DECKS, seed=9).seed == 9


@pytest.mark.parametrize("arguments, message", [
    ({"deck_ids": ["nope"]}, "unknown deck 'nope'; decks: a, b, c"),
    ({"tags": ["exam"]}, "unknown tag 'exam'; tags: self-test, interview, mistake, example, extra, fact"),
    ({"topic": "quantum"}, "unknown topic 'quantum'"),
    ({"count": 0}, "count must be at least 1, got 0"),
])
def test_unknown_names_are_user_errors(arguments, message):
    with pytest.raises(StudytoolError, match="^" + message.replace("(", r"\(")):
        plan(DECKS, seed=0, **arguments)


def test_variant_seeds_vary_within_a_plan():
    seeds = [p.seed for p in plan(DECKS, seed=0)]
    assert len(set(seeds)) == len(seeds)
