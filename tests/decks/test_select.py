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


# --- new cards in the topic graph's order ----------------------------------------------------------

from hypothesis import given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from studytool.decks.select import prerequisite_order  # noqa: E402
from studytool.decks.topics import load_topics  # noqa: E402

REQUIRES = {topic.id: topic.requires for topic in load_topics()}


def card(id: str, topic: str, deck: str = "d") -> Card:
    return Card(deck=deck, id=id, kind="recall", topic=topic, body={"q": "?", "a": "!"})


def ids(cards) -> list[str]:
    return [c.id for c in cards]


def test_a_topics_cards_wait_for_a_card_of_each_prerequisite_topic():
    # multi-head -> attention -> softmax: the shuffled order asks for them backwards
    cards = [card("mh", "multi-head"), card("at1", "attention"), card("sm", "softmax"), card("at2", "attention")]
    assert ids(prerequisite_order(cards, ())) == ["sm", "at1", "mh", "at2"]
    # a topic already studied does not hold anything back
    assert ids(prerequisite_order(cards, {"softmax"})) == ["at1", "mh", "sm", "at2"]


def test_a_prerequisite_with_no_card_waiting_is_not_waited_for_but_its_own_prerequisites_are():
    # no attention card anywhere: multi-head waits for softmax (attention's prerequisite) only
    assert ids(prerequisite_order([card("mh", "multi-head"), card("sm", "softmax")], ())) == ["sm", "mh"]
    assert ids(prerequisite_order([card("mh", "multi-head")], ())) == ["mh"]


def test_the_daily_room_is_per_deck_and_a_prerequisite_over_its_limit_holds_its_dependents_back():
    cards = [card("at", "attention", "b"), card("sm1", "softmax", "a"), card("sm2", "softmax", "a"),
             card("ln", "layernorm", "b")]
    assert ids(prerequisite_order(cards, (), {"a": 1, "b": 5})) == ["sm1", "at", "ln"]
    # deck a has no room today: its softmax cards still wait, so attention waits for a later day
    assert ids(prerequisite_order(cards, (), {"a": 0, "b": 5})) == ["ln"]


TOPIC_IDS = sorted(REQUIRES)


@given(st.lists(st.tuples(st.sampled_from(TOPIC_IDS), st.sampled_from("ab")), max_size=40),
       st.sets(st.sampled_from(TOPIC_IDS), max_size=5), st.integers(0, 40))
def test_every_placed_card_comes_after_a_card_of_each_waiting_prerequisite(drawn, studied, limit):
    cards = [card(f"c{i}", topic, deck) for i, (topic, deck) in enumerate(drawn)]
    placed = prerequisite_order(cards, studied, {"a": limit, "b": limit})
    assert len(placed) == len(set(ids(placed)))
    assert sum(c.deck == "a" for c in placed) <= limit and sum(c.deck == "b" for c in placed) <= limit
    pending = {c.topic for c in cards}
    for number, c in enumerate(placed):
        seen = set(studied) | {p.topic for p in placed[:number]}

        def satisfied(topic):   # the rule, restated: known, or nothing of it waiting and its own needs met
            return topic in seen or (topic not in pending and all(satisfied(t) for t in REQUIRES[topic]))
        assert all(satisfied(t) for t in REQUIRES[c.topic]), (c.topic, ids(placed))
    if limit >= len(cards):   # with room for all, nothing is left out
        assert sorted(ids(placed)) == sorted(ids(cards))
