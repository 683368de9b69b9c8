"""`studytool quiz`, `review` and `stats`: study sessions and the progress they leave."""

import sys
from typing import Annotated, Optional

import typer

from studytool.cli.options import Decks, Json, Tags, Topic, seed_option, within

_SESSION_JSON = typer.Option("--json", help="Print the session summary as one JSON document.")
_CONFIRM = typer.Option("--confirm", help="Ask for Enter or 2-4 after a right auto-graded answer even when input "
                                          "is not a terminal (on a terminal it always asks).")


def _study(ctx: typer.Context, as_json: bool, start, confirm: bool = False) -> None:
    """Run one session: `start(store, decks, ask, view, confirm)` -> Summary; JSON on stdout, or the summary on
    screen. On a terminal (or with `confirm`) an auto-graded right answer's rating waits for Enter or 2-4.

    Ctrl-C ends the session like `:q` (the summary is shown) but exits 130, as an interrupted program does.
    """
    from studytool.cli.render.common import console, err_console, print_json
    from studytool.cli.render.study import TerminalView, make_ask, show_summary
    from studytool.decks.loader import load_decks
    from studytool.study.rename import follow, notice
    from studytool.study.settings import check as settings_check
    from studytool.study.store import open_store

    settings = ctx.obj
    settings.check_home()
    decks = load_decks(settings)
    screen = err_console() if as_json else console()
    with open_store(settings.db_path) as store:
        if moved := notice(follow(store, decks)):   # progress under a renamed deck's or card's former id moves first
            err_console().print(moved, markup=False, highlight=False)
        settings_check(store, [deck.deck for deck in decks])   # a bad stored setting: one line before any card
        _remind_sync(store)
        summary = start(store, decks, make_ask(screen, sys.stdin.isatty()), TerminalView(screen, decks, settings),
                        confirm or sys.stdin.isatty())
    if as_json:
        print_json(summary.to_json())
        if summary.outlook is not None and not summary.answered:
            show_summary(screen, summary)  # why nothing was asked, on the screen as well
    else:
        show_summary(screen, summary)
    if summary.interrupted:
        raise typer.Exit(130)


def _remind_sync(store) -> None:
    """One line on stderr when a sync folder is set and the last sync is over a day old."""
    from studytool.config import now
    from studytool.cli.render.common import err_console
    from studytool.study.synced import reminder

    if line := reminder(store, now()):
        err_console().print(line, markup=False, highlight=False, soft_wrap=True)


def quiz_command(
    ctx: typer.Context,
    deck: Decks = [],
    tag: Tags = [],
    topic: Topic = None,
    count: int = typer.Option(10, "--count", metavar="N", callback=within(1), help="How many cards."),
    seed: Annotated[Optional[int], seed_option("Same seed, same cards and variants as worksheet.")] = None,
    reschedule: bool = typer.Option(
        False, "--reschedule", help="Answers move the schedule as in a review (as Anki's filtered decks do)."),
    confirm: Annotated[bool, _CONFIRM] = False,
    level: Optional[int] = typer.Option(
        None, "--level", metavar="N", callback=within(1, 3),
        help="Generated questions at level 1-3 (default: each card's, from its stability; 1 = the notes' sizes, "
             "at most 4 numbers to type; 2 = larger, at most 8; 3 = a combined question, one more step)."),
    as_json: Annotated[bool, _SESSION_JSON] = False,
) -> None:
    """Practice a seeded selection of cards; answers are recorded but the schedule does not move (unless --reschedule).

    At any prompt: :q quit, :skip, :undo, :explain, :help.
    """
    from studytool.study import session

    _study(ctx, as_json, lambda store, decks, ask, view, confirming: session.quiz(
        store, decks, ask=ask, view=view, deck_ids=deck, tags=tag, topic=topic, count=count, seed=seed,
        reschedule=reschedule, level=level, confirm=confirming), confirm)


def review_command(
    ctx: typer.Context,
    deck: Decks = [],
    new: Optional[int] = typer.Option(
        None, "--new", metavar="N", callback=within(0, 9999),   # config new_per_day's bound
        help="New cards today, this once, for every deck and in all (default: config new_per_day)."),
    retention: Optional[float] = typer.Option(
        None, "--retention", metavar="R", callback=within(0.7, 0.99), help="Desired retention (0.7-0.99); remembered in the database. Default 0.9."),
    confirm: Annotated[bool, _CONFIRM] = False,
    as_json: Annotated[bool, _SESSION_JSON] = False,
) -> None:
    """Spaced repetition (FSRS, scheduled as Anki does): learning steps and cards due today, then new cards.

    Days start at config day_start (04:00); STUDYTOOL_NOW sets the clock.

    At any prompt: :q quit, :skip, :undo, :explain, :help.
    """
    from studytool.study import session

    _study(ctx, as_json, lambda store, decks, ask, view, confirming: session.review(
        store, decks, ask=ask, view=view, deck_ids=deck, new_limit=new, retention=retention, confirm=confirming),
        confirm)


def stats_command(
    ctx: typer.Context,
    deck: Decks = [],
    range_name: str = typer.Option("1m", "--range", metavar="RANGE",
                                   help="How far back the graphs look: 1m, 3m, 1y or all."),
    as_json: Json = False,
) -> None:
    """Progress: cards per deck, today, reviews per day, card counts, intervals, stability, difficulty,
    retrievability, hours, answer buttons, the calendar, the forecast, true retention, weakest topics."""
    from studytool.config import now

    from studytool.cli.render.common import console, err_console, print_json
    from studytool.cli.render.study import show_stats
    from studytool.decks.loader import load_decks
    from studytool.decks.select import plan
    from studytool.study.stats import compute_stats
    from studytool.study.rename import follow, notice
    from studytool.study.store import open_store

    ctx.obj.check_home()
    decks = load_decks(ctx.obj)
    with open_store(ctx.obj.db_path, create=False) as store:  # only reads: creates no folder or database
        if moved := notice(follow(store, decks)):   # re-keyed after a rename, so the counts find their cards
            err_console().print(moved, markup=False, highlight=False)
        _remind_sync(store)
        plan(decks, deck_ids=deck, seed=0)   # an unknown deck: one line naming the decks
        chosen = [one for one in decks if not deck or one.deck in deck]
        stats = compute_stats(store, chosen, now(), range_name=range_name)
    if as_json:
        print_json(stats.to_json())
    else:
        show_stats(console(), stats)
