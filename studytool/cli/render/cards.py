"""Rich rendering for `studytool cards`: the card list, one card's page, and what an action did."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from rich.cells import cell_len
from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from studytool.cli.render.common import Prose, emit
from studytool.study.summary import rating_word
from studytool.i18n import _
from studytool.study.cards import Listed, Logged, Shown
from studytool.study.days import local_zone


def _when(moment: datetime | None) -> str:
    """Local wall-clock time, to the minute: what the learner's day is counted in."""
    return moment.astimezone(local_zone()).strftime("%Y-%m-%d %H:%M") if moment else "—"


def _number(value: float | None, digits: int = 2) -> str:
    return f"{value:.{digits}f}" if value is not None else "—"


def _state_word(state: str) -> str:
    return {"new": _("new"), "learning": _("learning"), "review": _("review"), "relearning": _("relearning")}[state]


def _flag_words(listed: Listed) -> str:
    words = []
    if listed.flags.suspended:
        words.append(_("suspended"))
    if listed.flags.buried(listed.now):
        words.append(_("buried"))
    if listed.flags.leech:
        words.append(_("leech"))
    if listed.flags.flag:
        words.append(flag_word(listed.flags.flag))
    return ", ".join(words)


def flag_word(colour: int) -> str:
    """A flag by its colour's name (a word, so that it reads without colour too)."""
    return [_("red"), _("orange"), _("green"), _("blue"), _("pink"), _("turquoise"), _("purple")][colour - 1]


# Below this a question cut to fit says nothing: it is left out instead.
QUESTION_MIN = 12


def _line(columns: Sequence[tuple[str, list[str]]]) -> int:
    """Cells a table of `columns` takes: each its widest cell, 3 between two (padding and rule); no edges."""
    return sum(max(cell_len(header), *map(cell_len, values)) for header, values in columns) + 3 * (len(columns) - 1)


def render_card_list(console: Console, found: Sequence[Listed]) -> None:
    """One line a card: id, state, due, stability, difficulty, flags (when a card has one) and the question.

    A narrower terminal cuts the question first (down to `QUESTION_MIN` cells), then leaves it out, then
    difficulty, then the flags, then stability (`cards show` and --json always have them): rich would squeeze
    every column."""
    if not found:
        console.print(_("No cards match."))
        return
    flags = [_flag_words(listed) for listed in found]
    schedules = [listed.schedule for listed in found]
    columns = [(_("Card"), [listed.card.key for listed in found]),
               (_("State"), [_state_word(listed.state) for listed in found]),
               (_("Due"), [_when(schedule.due if schedule else None) for schedule in schedules]),
               (_("Stability"), [_number(schedule.stability if schedule else None) for schedule in schedules]),
               (_("Difficulty"), [_number(schedule.difficulty if schedule else None) for schedule in schedules]),
               (_("Flags"), flags)]
    room = console.width - 1   # one cell spare: some terminals wrap a line that fills the last column
    kept = [0, 1, 2]
    # stability first (how long the memory lasts, in days), then the learner's own flags, then difficulty
    for optional in (3, *([5] if any(flags) else []), 4):
        if _line([columns[index] for index in sorted([*kept, optional])]) <= room:
            kept.append(optional)
    columns = [columns[index] for index in sorted(kept)]
    left = room - _line(columns) - 3
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    for header, _values in columns:
        table.add_column(header, no_wrap=True)
    if left >= QUESTION_MIN:
        table.add_column(_("Question"), no_wrap=True)
    for index, listed in enumerate(found):
        question = Text(" ".join(listed.card.question.split()))
        question.truncate(left, overflow="ellipsis")
        table.add_row(*(values[index] for _header, values in columns), *([question] if left >= QUESTION_MIN else []))
    emit(console, table)
    console.print((_("{n} card") if len(found) == 1 else _("{n} cards")).format(n=len(found)))


def _asked_text(asked: Logged) -> str:
    """The drawn inputs of the variant last answered, and its level: `d_model=512, n_heads=8 (level 2)`."""
    inputs = ", ".join(f"{name}={value}" for name, value in asked.params.items())
    level = _("level {n}").format(n=asked.level) if asked.level is not None else ""
    return f"{inputs} ({level})" if inputs and level else inputs or level or "—"


def render_card(console: Console, shown: Shown) -> None:
    from studytool.cli.safety import visible

    listed, schedule = shown.listed, shown.listed.schedule
    recall = f"{100 * shown.retrievability:.1f}%" if shown.retrievability is not None else "—"
    facts = [
        (_("Card"), escape(listed.card.key)),
        (_("Topic"), escape(listed.card.topic)),
        (_("Question"), escape(listed.card.question)),
        (_("State"), _state_word(listed.state)),
        (_("Due"), _when(schedule.due if schedule else None)),
        (_("Stability"), f"{schedule.stability:.2f} " + _("days") if schedule and schedule.stability else "—"),
        (_("Difficulty"), _number(schedule.difficulty if schedule else None)),
        (_("Retrievability now"), recall),
        (_("Reps"), str(listed.history.reps)),
        (_("Lapses"), str(listed.history.lapses)),
        # "answered": a variant shown and left with :q is not logged (JSON keeps its key, `last_asked`)
        *([(_("Last answered"), escape(_asked_text(shown.last_asked)))] if shown.last_asked else []),
        (_("Next level"), str(shown.level) if shown.level is not None else "—"),
        (_("Flags"), _flag_words(listed) or "—"),
    ]
    grid = Table.grid(padding=(0, 2))   # a long value wraps in its own column, under itself
    grid.add_column(no_wrap=True)
    grid.add_column()
    for label, value in facts:
        grid.add_row(f"[bold]{label}[/]", Prose(value))
    emit(console, grid)
    if not shown.reviews:
        console.print(_("No answers yet."))
        return
    generated = listed.card.kind == "generated"
    table = Table(title=_("Answers"))
    for header in (_("When"), _("Mode"), _("Rating"), _("Correct"), *([_("Variant")] if generated else []),
                   _("Answer")):
        table.add_column(header)
    for review in shown.reviews:
        variant = [escape(_variant_text(review))] if generated else []
        table.add_row(_when(review.time), _mode_word(review.mode), rating_word(review.rating),
                      "✓" if review.correct else "✗", *variant,
                      escape(visible(review.answer)))   # typed: ESC never raw
    emit(console, table)


def _variant_text(review: Logged) -> str:
    """Which variant an answer was to: its seed (or the notes' example), inputs and level."""
    drawn = _("seed {seed}").format(seed=review.seed) if review.seed is not None else _("the notes' example")
    return f"{drawn}: {_asked_text(review)}"


def _mode_word(mode: str) -> str:
    """How an answer was given, in the interface language (the JSON keeps the stored word)."""
    return {"review": _("review"), "quiz": _("quiz"), "implicit": _("implicit")}.get(mode, mode)


def render_action(console: Console, done: dict[str, Any]) -> None:
    changed = [key for key in done["cards"] if key not in done["already"]]
    if done["already"]:
        console.print(escape(_("Already suspended, left as it was: {cards}.").format(cards=", ".join(done["already"]))))
        if not changed:
            return
    cards = ", ".join(changed)
    message = {
        "suspend": _("Suspended {n} card(s): {cards}."),
        "unsuspend": _("Unsuspended {n} card(s): {cards}."),
        "bury": _("Buried {n} card(s) until {until}: {cards}."),
        "forget": _("Reset {n} card(s) to new (their history stays): {cards}."),
        "flag": _("Flagged {n} card(s) {colour}: {cards}.") if done.get("flag") else _("Unflagged {n} card(s): {cards}."),
    }[done["action"]]
    until = _when(datetime.fromisoformat(done["until"])) if done["until"] else ""
    colour = flag_word(done["flag"]) if done.get("flag") else ""
    console.print(escape(message.format(n=len(changed), cards=cards, until=until, colour=colour)))
