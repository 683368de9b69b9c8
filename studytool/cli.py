"""The command line. Each command parses, calls one library function, renders.

Nothing heavy is imported at module level: numpy, yaml, fsrs and genanki are
imported inside the commands that need them, so `studytool --help` is fast.
How help and errors look is `studytool.cli_style`.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Optional

import typer

from studytool import __version__
from studytool.cli_style import Group
from studytool.config import Settings
from studytool.errors import StudytoolError
from studytool.i18n import _


app = typer.Typer(
    cls=Group,
    name="studytool",
    help="Study the Transformer: flashcards, fresh numeric variants, spaced repetition.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=True,
    context_settings={"help_option_names": ["--help", "-h"]},   # inherited by every command
)
decks_app = typer.Typer(cls=Group, help="List, show and check decks.", no_args_is_help=True)
calc_app = typer.Typer(cls=Group, help="Compute with the bundled Transformer engine.", no_args_is_help=True)
export_app = typer.Typer(cls=Group, help="Export decks to other tools.", no_args_is_help=True)
app.add_typer(decks_app, name="decks")
app.add_typer(calc_app, name="calc")
app.add_typer(export_app, name="export")


def _language(value: Optional[str]) -> Optional[str]:
    """Set the interface language as soon as `--lang` is parsed, so that an unknown command is reported in it."""
    from studytool.i18n import LANGUAGES, set_language

    if value is not None and value.lower() not in LANGUAGES:
        raise typer.BadParameter(f"{value!r} is not one of 'en', 'zh'.")
    set_language(value.lower() if value else None)
    return value


def _version(value: bool) -> None:
    if value:
        typer.echo(f"studytool {__version__}")
        raise typer.Exit()


@app.callback()
def _global(
    ctx: typer.Context,
    db: Optional[Path] = typer.Option(None, "--db", metavar="PATH", help="Progress database (default: $STUDYTOOL_HOME/studytool.db)."),
    deck_path: list[Path] = typer.Option([], "--deck-path", metavar="PATH", help="Extra deck file or folder (repeatable)."),
    lang: Optional[str] = typer.Option(None, "--lang", metavar="en|zh", callback=_language, is_eager=True,
                                       help="Interface language: en or zh (default: $STUDYTOOL_LANG, then the locale)."),
    version: bool = typer.Option(False, "--version", "-V", callback=_version, is_eager=True, help="Show the version and exit."),
) -> None:
    ctx.obj = Settings(db=db, deck_paths=list(deck_path))


# --- decks ---


@decks_app.command("list")
def decks_list(ctx: typer.Context, json_: bool = typer.Option(False, "--json", help="One JSON document.")) -> None:
    """The installed decks: titles, sources and card counts by kind."""
    from studytool.decks.loader import load_decks
    from studytool.decks_render import deck_list_json, render_deck_list
    from studytool.render import console, print_json

    decks = load_decks(ctx.obj)
    if json_:
        print_json(deck_list_json(decks))
    else:
        render_deck_list(decks, console())


@decks_app.command("show")
def decks_show(
    ctx: typer.Context,
    deck: str = typer.Argument(..., metavar="DECK", help="A deck id (see 'studytool decks list')."),
    json_: bool = typer.Option(False, "--json", help="One JSON document with every field of every card."),
) -> None:
    """The cards of one deck: id, kind, topic, tags and the question."""
    from studytool.decks.loader import get_deck
    from studytool.decks_render import deck_json, render_deck
    from studytool.render import console, print_json

    found = get_deck(ctx.obj, deck)
    if json_:
        print_json(deck_json(found))
    else:
        render_deck(found, console())


@decks_app.command("check")
def decks_check(
    ctx: typer.Context,
    paths: Optional[list[Path]] = typer.Argument(None, metavar="PATH",
                                                 help="Deck files or folders (default: all installed decks)."),
) -> None:
    """Validate decks: 'ok: N decks, M cards', or every problem as FILE:LINE:COL and exit 1."""
    from studytool.decks.loader import check_decks

    result = check_decks(ctx.obj, paths or ())
    if result.problems:
        typer.echo("\n".join(result.problems))
        raise typer.Exit(1)
    decks = (_("{n} deck") if len(result.decks) == 1 else _("{n} decks")).format(n=len(result.decks))
    cards = (_("{n} card") if result.cards == 1 else _("{n} cards")).format(n=result.cards)
    typer.echo(_("ok: {decks}, {cards}").format(decks=decks, cards=cards))


# --- export ---


def _export(write, done: str, out: Path, settings: Settings, deck_ids: list[str], variants: int) -> None:
    """Run one export writer with a progress bar on stderr, then say what was written (`done`)."""
    from rich.progress import Progress

    from studytool.decks.loader import load_decks
    from studytool.render import console, err_console

    decks = load_decks(settings)
    # The bar is for people watching a terminal; logs and pipes get only the final line.
    with Progress(console=err_console(), transient=True, disable=not err_console().is_terminal) as bar:
        task = bar.add_task(_("Writing"), total=None)
        exported = write(decks, out, deck_ids=deck_ids, variants=variants,
                         progress=lambda done, total: bar.update(task, completed=done, total=total))
    # With `-` the file is stdout, so the summary goes to stderr to keep the data clean.
    screen = err_console() if out == Path("-") else console()
    screen.print(done.format(count=exported.notes, decks=exported.decks, path=out), markup=False)


@export_app.command("anki")
def export_anki(
    ctx: typer.Context,
    out: Path = typer.Argument(..., metavar="OUT.apkg", help="The .apkg file to write."),
    deck: list[str] = typer.Option([], "--deck", metavar="DECK", help="Export only this deck (repeatable)."),
    variants: int = typer.Option(3, "--variants", min=1, metavar="K", help="Fixed variants per generated card."),
) -> None:
    """Write an Anki package: one Anki deck per deck; re-importing updates the notes."""
    from studytool.export import write_anki

    _export(write_anki, _("Wrote {count} Anki notes from {decks} decks to {path}"), out, ctx.obj, deck, variants)


@export_app.command("csv")
def export_csv(
    ctx: typer.Context,
    out: Path = typer.Argument(..., metavar="OUT.csv", help="The .csv file to write (UTF-8 with BOM); - for stdout."),
    deck: list[str] = typer.Option([], "--deck", metavar="DECK", help="Export only this deck (repeatable)."),
    variants: int = typer.Option(1, "--variants", min=1, metavar="K", help="Rows per generated card."),
) -> None:
    """Write every card as a CSV row for spreadsheets."""
    from studytool.export import write_csv

    _export(write_csv, _("Wrote {count} rows from {decks} decks to {path}"), out, ctx.obj, deck, variants)


# --- explain and calc ---


@app.command("explain")
def explain_command(
    ctx: typer.Context,
    topic: Optional[list[str]] = typer.Argument(None, metavar="TOPIC", help="Topic id, alias or unique prefix (English or Chinese)."),
    seed: Optional[int] = typer.Option(None, "--seed", metavar="S", min=0, help="Draw a fresh example of TOPIC from this seed."),
) -> None:
    """Explain a topic with a live example from the engine; without TOPIC, list the topics."""
    from studytool.render import console

    if not topic:
        if seed is not None:
            raise typer.BadParameter(_("a seed draws one topic's example; name the topic, e.g. "
                                       "studytool explain attention --seed {seed}").format(seed=seed),
                                     param_hint="'--seed'")
        from studytool.explain import topic_index
        from studytool.explain_render import render_topic_list

        render_topic_list(topic_index(), console())
        return
    from studytool.decks.loader import load_decks
    from studytool.explain import explain
    from studytool.explain_render import render_explanation

    render_explanation(explain(" ".join(topic), load_decks(ctx.obj), seed), console())


_VALUES = {"ignore_unknown_options": True}  # so `-1` is read as a number, not as an option
_JSON = typer.Option(False, "--json", help="Print one JSON document instead of a table.")


def _show(result: dict, as_json: bool, render) -> None:
    from studytool.render import console, print_json

    if as_json:
        print_json(result)
    else:
        render(result, console())


@calc_app.command("layernorm", context_settings=_VALUES)
def calc_layernorm(
    x: Optional[list[str]] = typer.Argument(None, metavar="X", help="One token's vector, e.g. 1 2 3 4 (negative numbers work)."),
    eps: float = typer.Option(1e-5, "--eps", metavar="EPS", help="Added to the variance inside the square root."),
    as_json: bool = _JSON,
) -> None:
    """LayerNorm of one vector: mean, σ (biased) and the output."""
    from studytool import calc
    from studytool.calc_render import render_layernorm

    _show(calc.layernorm(calc.parse_vector(x or []), eps=eps), as_json, render_layernorm)


@calc_app.command("batchnorm", context_settings=_VALUES)
def calc_batchnorm(
    rows: Optional[list[str]] = typer.Argument(None, metavar="ROW", help="The batch, one comma-separated row per sample: 1,10 3,14"),
    eps: float = typer.Option(1e-5, "--eps", metavar="EPS", help="Added to the variance inside the square root."),
    as_json: bool = _JSON,
) -> None:
    """BatchNorm of a small batch: each feature over the samples."""
    from studytool import calc
    from studytool.calc_render import render_batchnorm

    _show(calc.batchnorm(calc.parse_rows(rows or []), eps=eps), as_json, render_batchnorm)


@calc_app.command("softmax", context_settings=_VALUES)
def calc_softmax(
    x: Optional[list[str]] = typer.Argument(None, metavar="SCORE", help="The scores, e.g. -1 0 2."),
    as_json: bool = _JSON,
) -> None:
    """Softmax of a vector of scores."""
    from studytool import calc
    from studytool.calc_render import render_softmax

    _show(calc.softmax(calc.parse_vector(x or [])), as_json, render_softmax)


@calc_app.command("pe")
def calc_pe(
    d_model: int = typer.Option(..., "--d-model", metavar="D", help="Encoding width (odd works)."),
    positions: int = typer.Option(..., "--positions", metavar="N", help="Number of positions, from 0."),
    as_json: bool = _JSON,
) -> None:
    """The sinusoidal positional-encoding table: a row per dimension, as many positions as fit; --json gives all."""
    from studytool import calc
    from studytool.calc_render import render_pe

    _show(calc.positional_encoding(d_model, positions), as_json, render_pe)


@calc_app.command("attention")
def calc_attention(
    batch: int = typer.Option(..., "--batch", metavar="B", help="Batch size B."),
    seq: int = typer.Option(..., "--seq", metavar="L", help="Sequence length L."),
    d_model: int = typer.Option(512, "--d-model", metavar="D", help="Model width d_model (default: 512, the notes' base model)."),
    heads: int = typer.Option(8, "--heads", metavar="H", help="Number of heads h (must divide d_model; default: 8)."),
    as_json: bool = _JSON,
) -> None:
    """The shapes through multi-head self-attention."""
    from studytool import calc
    from studytool.calc_render import render_attention

    _show(calc.attention(batch, seq, d_model, heads), as_json, render_attention)


@calc_app.command("params")
def calc_params(
    d_model: int = typer.Option(512, "--d-model", metavar="D", help="Model width d_model (default: 512, the notes' base model)."),
    heads: int = typer.Option(8, "--heads", metavar="H", help="Number of heads h (must divide d_model; default: 8)."),
    d_ff: Optional[int] = typer.Option(None, "--d-ff", metavar="D_FF", help="FFN hidden width (default: 4 * d_model)."),
    layers: int = typer.Option(6, "--layers", metavar="N", help="Layers per stack N (default: 6)."),
    vocab: Optional[int] = typer.Option(None, "--vocab", metavar="V", help="Vocabulary size (adds embedding and output projection)."),
    no_bias: bool = typer.Option(False, "--no-bias", help="Only the notes' convention: weight matrices, no biases or LayerNorms."),
    as_json: bool = _JSON,
) -> None:
    """Parameter counts of every part, with biases and under the notes' convention."""
    from studytool import calc
    from studytool.calc_render import render_params

    _show(calc.params(d_model, heads, d_ff, layers, vocab, bias=not no_bias), as_json, render_params)


@calc_app.command("shapes")
def calc_shapes(
    batch: int = typer.Option(..., "--batch", metavar="B", help="Batch size B."),
    seq: int = typer.Option(..., "--seq", metavar="L", help="Source length L."),
    d_model: int = typer.Option(512, "--d-model", metavar="D", help="Model width d_model (default: 512, the notes' base model)."),
    heads: int = typer.Option(8, "--heads", metavar="H", help="Number of heads h (must divide d_model; default: 8)."),
    vocab: int = typer.Option(..., "--vocab", metavar="V", help="Vocabulary size V."),
    d_ff: Optional[int] = typer.Option(None, "--d-ff", metavar="D_FF", help="FFN hidden width (default: 4 * d_model)."),
    tgt_seq: Optional[int] = typer.Option(None, "--tgt-seq", metavar="L", help="Target length (default: the source length)."),
    tree: bool = typer.Option(False, "--tree", help="Show a tree by part and sub-layer instead of a table."),
    as_json: bool = _JSON,
) -> None:
    """The whole data flow, step by step, as the engine records it."""
    from functools import partial

    from studytool import calc
    from studytool.calc_render import render_shapes

    _show(calc.shapes(batch, seq, d_model, heads, vocab, d_ff, tgt_seq), as_json, partial(render_shapes, tree=tree))


# --- study ---


def _study(ctx: typer.Context, as_json: bool, start) -> None:
    """Run one session: `start(store, decks, ask, view)` -> Summary; JSON on stdout, or the summary on screen.

    Ctrl-C ends the session like `:q` (the summary is shown) but exits 130, as an interrupted program does.
    """
    from studytool.decks.loader import load_decks
    from studytool.render import console, err_console, print_json
    from studytool.study.store import open_store
    from studytool.study.view import TerminalView, make_ask, show_summary

    settings = ctx.obj
    settings.check_home()
    decks = load_decks(settings)
    screen = err_console() if as_json else console()
    with open_store(settings.db_path) as store:
        summary = start(store, decks, make_ask(screen, sys.stdin.isatty()), TerminalView(screen, decks))
    if as_json:
        print_json(summary.to_json())
        if summary.outlook is not None:
            show_summary(screen, summary)  # why nothing was asked, on the screen as well
    else:
        show_summary(screen, summary)
    if summary.interrupted:
        raise typer.Exit(130)


@app.command("quiz")
def quiz_command(
    ctx: typer.Context,
    deck: list[str] = typer.Option([], "--deck", metavar="DECK", help="Only this deck (repeatable)."),
    tag: list[str] = typer.Option([], "--tag", metavar="TAG", help="Only cards with this tag (repeatable)."),
    topic: Optional[str] = typer.Option(None, "--topic", metavar="TOPIC", help="Only cards on this topic (id or alias)."),
    count: int = typer.Option(10, "--count", metavar="N", min=1, help="How many cards."),
    seed: Optional[int] = typer.Option(None, "--seed", metavar="S", min=0, help="Same seed, same cards and variants as worksheet."),
    as_json: bool = typer.Option(False, "--json", help="Print the session summary as one JSON document."),
) -> None:
    """Practice a seeded selection of cards; answers are recorded but the schedule does not move.

    At any prompt: :q quit, :skip, :undo, :explain, :help.
    """
    from studytool.study import session

    _study(ctx, as_json, lambda store, decks, ask, view: session.quiz(
        store, decks, ask=ask, view=view, deck_ids=deck, tags=tag, topic=topic, count=count, seed=seed))


@app.command("review")
def review_command(
    ctx: typer.Context,
    deck: list[str] = typer.Option([], "--deck", metavar="DECK", help="Only this deck (repeatable)."),
    new: int = typer.Option(20, "--new", metavar="N", min=0, help="New cards per day."),
    retention: Optional[float] = typer.Option(
        None, "--retention", metavar="R", help="Desired retention (0.7-0.99); remembered in the database. Default 0.9."),
    as_json: bool = typer.Option(False, "--json", help="Print the session summary as one JSON document."),
) -> None:
    """Spaced repetition (FSRS): the cards due today, then new cards up to the daily limit.

    At any prompt: :q quit, :skip, :undo, :explain, :help.
    """
    from studytool.study import session

    _study(ctx, as_json, lambda store, decks, ask, view: session.review(
        store, decks, ask=ask, view=view, deck_ids=deck, new_limit=new, retention=retention))


@app.command("stats")
def stats_command(
    ctx: typer.Context,
    as_json: bool = typer.Option(False, "--json", help="Print one JSON document."),
) -> None:
    """Progress: cards per deck, true retention, answers per day, the 14-day forecast, weakest topics."""
    from datetime import datetime

    from studytool.decks.loader import load_decks
    from studytool.render import console, print_json
    from studytool.study.stats import compute_stats
    from studytool.study.store import open_store
    from studytool.study.view import show_stats

    ctx.obj.check_home()
    decks = load_decks(ctx.obj)
    with open_store(ctx.obj.db_path, create=False) as store:  # only reads: creates no folder or database
        stats = compute_stats(store, decks, datetime.now().astimezone())
    if as_json:
        print_json(stats.to_json())
    else:
        show_stats(console(), stats)


# --- worksheet ---


@app.command("worksheet")
def worksheet_command(
    ctx: typer.Context,
    deck: list[str] = typer.Option([], "--deck", metavar="DECK", help="Only this deck (repeatable)."),
    tag: list[str] = typer.Option([], "--tag", metavar="TAG", help="Only cards with this tag (repeatable)."),
    topic: Optional[str] = typer.Option(None, "--topic", metavar="TOPIC", help="Only cards on this topic (id or alias)."),
    count: int = typer.Option(10, "--count", metavar="N", min=1, help="How many questions."),
    seed: Optional[int] = typer.Option(None, "--seed", metavar="S", min=0, help="Same seed, same questions as quiz --seed."),
    format_: str = typer.Option("md", "--format", metavar="md|json", help="md (printable Markdown) or json (one JSON document)."),
) -> None:
    """A printable sheet: questions, then the answer key with worked solutions."""
    from studytool.decks.loader import load_decks
    from studytool.render import print_json
    from studytool.worksheet import build, to_json, to_markdown

    if format_ not in ("md", "json"):
        raise StudytoolError(_("unknown format {format!r}: use md or json").format(format=format_))
    sheet = build(load_decks(ctx.obj), deck_ids=deck, tags=tag, topic=topic, count=count, seed=seed)
    if format_ == "json":
        print_json(to_json(sheet))
    else:
        sys.stdout.write(to_markdown(sheet))


def main() -> None:
    try:
        app()
    except StudytoolError as error:  # raised while parsing, before any command runs
        sys.stderr.write(f"studytool: {error}\n")
        sys.exit(1)
