"""`studytool cards`: browse and search cards, one card's history; suspend, unsuspend, bury, forget."""

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated, Optional

import typer

from studytool.cli.options import Decks, Json, Tags, Topic, ids_within_bound
from studytool.cli.style import Group

app = typer.Typer(cls=Group, add_completion=False, no_args_is_help=True)   # its help: GROUPS in cli/app.py


def _complete_card(ctx: typer.Context, incomplete: str) -> list[str]:
    """Shell completion of a card: its DECK/ID, from the start of it or of its bare ID."""
    from pathlib import Path

    from studytool.config import Settings
    from studytool.decks.loader import load_decks
    from studytool.errors import StudytoolError
    from studytool.study.cards import completions

    root = ctx.find_root()   # completing, the app's callback has not run: its options are in params, as typed
    settings = root.obj or Settings(deck_paths=[Path(path) for path in root.params.get("deck_path") or []])
    try:
        return completions(load_decks(settings), incomplete)
    except StudytoolError:
        return []   # a broken deck: nothing to offer, and nothing printed into the shell


Refs = Annotated[list[str], typer.Argument(
    metavar="DECK/ID...", callback=ids_within_bound, autocompletion=_complete_card,
    help="Cards, as 'cards list' names them (or ID alone, if one deck has it).")]


@contextmanager
def _opened(ctx: typer.Context, *, write: bool) -> Iterator[tuple]:
    """(store, decks, now, days); a read-only command creates no database, as `stats` does."""
    from studytool.config import now
    from studytool.decks.loader import load_decks
    from studytool.study.queue import study_days
    from studytool.study.rename import follow
    from studytool.study.store import open_store

    ctx.obj.check_home()
    decks = load_decks(ctx.obj)
    with open_store(ctx.obj.db_path, create=write) as store:
        follow(store, decks)   # progress under a renamed deck or card is found under its new id
        yield store, decks, now(), study_days(store)


@app.command("list")
def cards_list(
    ctx: typer.Context,
    deck: Decks = [],
    topic: Topic = None,
    state: Optional[str] = typer.Option(
        None, "--state", metavar="STATE",
        help="new, learning, review, relearning, due (a review would ask it now), suspended, buried or leech."),
    search: Optional[str] = typer.Option(
        None, "--search", metavar="QUERY",
        help="Anki's search: text, deck:D tag:T topic:T is:due|new|learn|review|suspended|buried|leech flag:N "
             "prop:ivl>=10 prop:lapses>2 rated:7, -term to negate, \"quoted phrase\" (README: the browser)."),
    tag: Tags = [],
    flag: Optional[int] = typer.Option(None, "--flag", metavar="N", min=0, max=7,
                                       help="Only cards with flag N (1-7, Anki's colours; 0: none)."),
    sort: Optional[str] = typer.Option(
        None, "--sort", metavar="ORDER",
        help="due, interval, stability, difficulty, lapses, reps, added or card (default: deck order)."),
    reverse: bool = typer.Option(False, "--reverse", help="The sort's order reversed."),
    as_json: Json = False,
) -> None:
    """The cards with their state, due time and memory (stability, difficulty), in deck order or --sort."""
    from studytool.cli.render.cards import render_card_list
    from studytool.cli.render.common import console, print_json
    from studytool.study import cards

    with _opened(ctx, write=False) as (store, decks, now, days):
        found = cards.list_cards(store, decks, now=now, days=days, deck_ids=deck, topic=topic, state=state,
                                 search=search, tags=tag, flag=flag, sort=sort, reverse=reverse)
    if as_json:
        print_json({"cards": [listed.to_json() for listed in found]})
    else:
        render_card_list(console(), found)


@app.command("show")
def cards_show(
    ctx: typer.Context,
    ref: str = typer.Argument(..., metavar="DECK/ID", callback=ids_within_bound, autocompletion=_complete_card,
                              help="A card, as 'cards list' names it (or ID alone, if one deck has it)."),
    as_json: Json = False,
) -> None:
    """One card: state, stability, difficulty, retrievability now, due, reps, lapses, flags and every answer."""
    from studytool.cli.render.cards import render_card
    from studytool.cli.render.common import console, print_json
    from studytool.study import cards
    from studytool.study.queue import study_rules
    from studytool.study.scheduler import Scheduler

    with _opened(ctx, write=False) as (store, decks, now, _days):
        card = cards.find(decks, ref)
        shown = cards.show(store, card, now=now, scheduler=Scheduler(study_rules(store)(card.deck)))
    if as_json:
        print_json(shown.to_json())
    else:
        render_card(console(), shown)


def _act(ctx: typer.Context, refs: list[str], action: str, as_json: bool, colour: int = 0) -> None:
    """Apply one decision to every card named (all are checked first: an unknown one changes nothing)."""
    from studytool.cli.render.cards import render_action
    from studytool.cli.render.common import console, print_json
    from studytool.study import cards

    with _opened(ctx, write=True) as (store, decks, now, days):
        keys = list(dict.fromkeys(cards.find(decks, ref).key for ref in refs))
        until = days.end_of(now)
        already: list[str] = []
        if action == "suspend":
            already = cards.suspend(store, keys)
        elif action == "unsuspend":
            cards.unsuspend(store, keys)
        elif action == "bury":
            cards.bury(store, keys, until)
        elif action == "forget":
            cards.forget(store, keys, now)
        else:
            cards.set_flag(store, keys, colour)
    document = {"action": action, "cards": keys, "until": until.isoformat() if action == "bury" else None,
                "already": already, **({"flag": colour} if action == "flag" else {})}
    if as_json:
        print_json(document)
    else:
        render_action(console(), document)


# The four decisions on cards, as Anki names them: one command each, all alike but for what they do.
_DECISIONS = {
    "suspend": "Keep cards out of every review until 'cards unsuspend'.",
    "unsuspend": "Let suspended cards (leeches too) back into reviews; a leech keeps its tag.",
    "bury": "Keep cards out of reviews until the next day starts (config day_start).",
    "forget": "Make cards new again; their history stays (and no longer trains 'optimize').",
}


def _decision(action: str):
    def command(ctx: typer.Context, refs: Refs, as_json: Json = False) -> None:
        _act(ctx, refs, action, as_json)

    return command


for _action, _help in _DECISIONS.items():
    app.command(_action, help=_help)(_decision(_action))


@app.command("flag")
def cards_flag(
    ctx: typer.Context,
    colour: int = typer.Argument(..., metavar="N", min=0, max=7,
                                 help="1 red, 2 orange, 3 green, 4 blue, 5 pink, 6 turquoise, 7 purple; 0 removes."),
    refs: Refs = ...,
    as_json: Json = False,
) -> None:
    """Flag cards with one of Anki's seven colours (0 takes the flag off); 'cards list --flag N' finds them."""
    _act(ctx, refs, "flag", as_json, colour)
