"""Which cards a session poses, in which order, with which variant seeds.

One selection rule shared by quiz, review (new cards), worksheet and export:
filter, then order with `random.Random(seed)`, and give each card its own
variant seed from the same generator. (The standard library's generator, not
NumPy's: a session whose first cards are not numeric starts without NumPy.) The same arguments give the
same cards, the same order and the same variants; `count=5` is a prefix of
`count=10`.
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from studytool.decks.kinds import TAGS
from studytool.decks.model import Card, Deck
from studytool.errors import StudytoolError
from studytool.i18n import _

SEED_LIMIT = 1_000_000   # random session seeds are short enough to type back with --seed


@dataclass(frozen=True)
class Posing:
    """One card to show, and the seed of its variant (`card.pose(seed)`)."""

    card: Card
    seed: int


class Plan(list[Posing]):
    """The posings in order (a plain list), plus the session `seed` that made them.

    When `plan` was called with `seed=None`, `seed` is the random one it drew:
    show it so the session can be replayed with `--seed`.
    """

    def __init__(self, posings: Iterable[Posing], seed: int):
        super().__init__(posings)
        self.seed = seed


def plan(decks: Sequence[Deck], *, deck_ids: Sequence[str] = (), tags: Sequence[str] = (),
         topic: str | None = None, count: int | None = None, seed: int | None = None) -> Plan:
    """The cards to pose: those in `deck_ids` (default all decks), having any of `tags`
    (default any), on `topic` (an id or alias; default any); shuffled by `seed`, the first `count`.

    Unknown decks, tags and topics raise `StudytoolError`.
    """
    if count is not None and count < 1:
        raise StudytoolError(f"count must be at least 1, got {count}")
    if seed is None:
        seed = secrets.randbelow(SEED_LIMIT)
    cards = _matching(decks, deck_ids, tags, _topic_id(topic) if topic is not None else None)
    return Plan(_posings(cards, count, seed), seed)


def _matching(decks: Sequence[Deck], deck_ids: Sequence[str], tags: Sequence[str], topic: str | None) -> list[Card]:
    known = {deck.deck for deck in decks}
    for deck_id in deck_ids:
        if deck_id not in known:
            raise StudytoolError(_("unknown deck {deck!r}; decks: {decks}").format(deck=deck_id,
                                                                                  decks=", ".join(sorted(known))))
    for tag in tags:
        if tag not in TAGS:
            raise StudytoolError(_("unknown tag {tag!r}; tags: {tags}").format(tag=tag, tags=", ".join(TAGS)))
    return [card for deck in decks if not deck_ids or deck.deck in deck_ids for card in deck.cards
            if (not tags or set(tags) & set(card.tags)) and (topic is None or card.topic == topic)]


def _topic_id(query: str) -> str:
    from studytool.decks.topics import resolve

    return resolve(query).id


def _posings(cards: list[Card], count: int | None, seed: int) -> list[Posing]:
    rng = random.Random(seed)
    order = list(range(len(cards)))
    rng.shuffle(order)
    # one variant seed per card in shuffled order, drawn for all cards so a
    # smaller count is a prefix of a larger one
    seeds = [rng.randrange(2**31) for _ in cards]
    return [Posing(cards[i], s) for i, s in zip(order[:count], seeds)]


def prerequisite_order(cards: Sequence[Card], introduced: Iterable[str],
                       room: dict[str, int] | None = None) -> list[Card]:
    """New cards in an order that respects the topic graph, as many as each deck's `room` allows (None: all).

    A card may come once every topic its topic requires has been introduced: by
    a card already studied (`introduced`: their topics) or by one placed earlier
    here. A prerequisite with no card waiting among `cards` (none in the
    selection, or all suspended) cannot be introduced by it, so it is not waited
    for, but its own prerequisites are. A card waiting for a prerequisite whose
    cards are over their deck's limit waits for a later day. Otherwise `cards`
    keep their order: each next card is the first one that is ready.
    """
    from studytool.decks.topics import load_topics

    requires = {topic.id: topic.requires for topic in load_topics()}
    known = set(introduced)
    waiting = {card.topic for card in cards}
    room = dict(room) if room is not None else None
    ready: dict[str, bool] = {}   # memo, cleared whenever `known` grows

    def is_ready(topic: str) -> bool:
        if topic not in ready:
            ready[topic] = all(wanted in known or (wanted not in waiting and is_ready(wanted))
                               for wanted in requires.get(topic, ()))
        return ready[topic]

    placed: list[Card] = []
    taken = [False] * len(cards)
    index = 0
    while index < len(cards):   # restarts from the top only when a topic is first introduced: O(cards x topics)
        card = cards[index]
        if taken[index] or not is_ready(card.topic):
            index += 1
            continue
        taken[index] = True
        if room is not None and room.get(card.deck, 0) <= 0:
            index += 1   # over its deck's limit today: still in `waiting`, so what needs its topic waits too
            continue
        placed.append(card)
        if room is not None:
            room[card.deck] -= 1
        if card.topic in known:
            index += 1
        else:
            known.add(card.topic)
            ready.clear()
            index = 0
    return placed
