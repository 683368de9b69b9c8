"""Rich rendering for study sessions and stats: the terminal face of `session` and `stats`.

Rendering only: the loop lives in `session.py`, the numbers in `stats.py`.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from rich.console import Console, ConsoleOptions, Group, RenderResult
from rich.markup import escape
from rich.measure import Measurement
from rich.padding import Padding
from rich.panel import Panel
from rich.segment import Segment
from rich.cells import cell_len
from rich.table import Table

from studytool.decks.model import Card, Deck
from studytool.i18n import _
from studytool.problems.variant import TRUE_FALSE, Variant, option_label
from studytool.cli.render.common import Prose, emit
from studytool.study.queue import Outlook
from studytool.study.summary import Progress, Result, Summary, rating_word
from studytool.study.stats import Stats, TopicScore

if TYPE_CHECKING:
    from studytool.study.cards import Shown

TITLE_MARGIN = 6       # a panel title sits between "╭─ " and " ─╮"
INDENT = (0, 0, 0, 2)  # solution steps sit under their heading, wrapped lines too


# Input read from a pipe or file is bounded: no answer needs a line of more than 10,000 characters, and no session
# more than 20,000 lines (a recall card takes two), so `quiz < /dev/zero` or `yes | review` stops instead of growing.
MAX_LINE = 10_000
MAX_LINES = 20_000


def make_ask(console: Console, interactive: bool) -> Callable[[str], str]:
    """A terminal prompt when interactive; else one line of stdin per call (EOF -> EOFError), within the bounds above.

    Past a bound, or on a stdin that cannot be read (`quiz 0>file`), a `StudytoolError`: every answer already given
    is committed, so the session ends on one line."""
    if interactive:
        return lambda prompt: console.input(f"[bold cyan]{escape(prompt)}>[/] ")
    from studytool.cli.safety import visible
    from studytool.errors import StudytoolError

    lines_read = 0

    def read_line(prompt: str) -> str:
        nonlocal lines_read
        try:
            line = sys.stdin.readline(MAX_LINE + 2)   # the line, "\r\n", and one more to know it went on
        except OSError as error:
            raise StudytoolError(_("cannot read the input: {reason}; the answers given so far are saved").format(
                reason=error.strerror)) from None
        if not line:
            raise EOFError
        lines_read += 1
        if len(line.rstrip("\r\n")) > MAX_LINE:
            raise StudytoolError(_("an input line is longer than {limit} characters: input refused; the answers "
                                   "given so far are saved").format(limit=f"{MAX_LINE:,}"))
        if lines_read > MAX_LINES:
            raise StudytoolError(_("the input has more than {limit} lines: input refused; the answers given so far "
                                   "are saved").format(limit=f"{MAX_LINES:,}"))
        line = line.rstrip("\r\n")
        emit(console, f"[dim]{escape(prompt)}> {escape(visible(line))}[/]")  # the transcript shows what was read
        return line

    return read_line


class _Option:
    """`  A. text`: a wrapped option goes on under its own text, not back at column 0."""

    def __init__(self, lead: str, text: str):
        self.lead = lead
        self.prose = Prose(escape(text))

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        indent = cell_len(self.lead)
        lines = console.render_lines(self.prose, options.update_width(max(1, options.max_width - indent)), pad=False)
        for number, line in enumerate(lines):
            yield Segment(" " * indent if number else self.lead)
            yield from line
            yield Segment.line()

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        indent = cell_len(self.lead)
        text = Measurement.get(console, options.update_width(max(1, options.max_width - indent)), self.prose)
        return Measurement(text.minimum + indent, text.maximum + indent)


def _options(variant: Variant) -> list[_Option]:
    """Choice options are lettered (answered as letters); sequence items numbered (answered as numbers)."""
    return [_Option(f"  {option_label(variant.kind, i)}. ", option) for i, option in enumerate(variant.options)]


def expected_text(result: Result) -> str:
    """The right answer as feedback shows it: a true/false one as the word (True/False, 对/错), not its letter."""
    variant = result.variant
    if variant.kind == "choice" and tuple(variant.options) == TRUE_FALSE:
        return _("True") if 0 in variant.answer else _("False")
    return result.expected


def progress_text(progress: Progress) -> str:
    """`[2/20]`; `[2/20 · 1 again]` while a missed card waits to come back, `[again · 3/20]` when it does;
    `[2/20 · 1 learning]` and `[learning · 3/20]` for a learning step rated Hard or Good."""
    parts = [f"{progress.number}/{progress.total}"]
    if progress.repeat:
        parts.insert(0, _("again") if progress.missed else _("learning"))
    if progress.again:
        parts.append(_("{count} again").format(count=progress.again))
    if progress.learning:
        parts.append(_("{count} learning").format(count=progress.learning))
    return "[" + " · ".join(parts) + "]"


def card_title(progress: Progress, card: Card, width: int) -> str:
    """The card header, shortened to fit a panel `width` cells wide: the deck goes first, then the card id."""
    counter = progress_text(progress)
    forms = [f"{counter} {card.key} · {card.topic}", f"{counter} {card.id} · {card.topic}",
             f"{counter} {card.topic}", counter]
    room = width - TITLE_MARGIN
    return next((form for form in forms if cell_len(form) <= room), counter)


def _label(word: str, style: str = "bold") -> str:
    """`Score: ` in English, `得分：` in Chinese (a full-width colon, no space after it); `word` is translated."""
    return _("{label}: ").format(label=f"[{style}]{word}[/]" if style else word)


class _Labelled:
    """`Label: text` with a hanging indent: wrapped lines are indented, not back at column 0."""

    def __init__(self, label: str, text: str):
        self.prose = Prose(f"{label}{escape(text)}")   # `label` as `_label` writes it, its colon and space too

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        indent = INDENT[3]
        lines = console.render_lines(self.prose, options.update_width(options.max_width - indent), pad=False)
        for number, line in enumerate(lines):
            if number:
                yield Segment(" " * indent)
            yield from line
            yield Segment.line()


class TerminalView:
    """Shows cards, feedback and notices on a rich console (stderr when stdout carries JSON)."""

    def __init__(self, console: Console, decks: Sequence[Deck] = (), settings: Any = None):
        self.console = console
        self.decks = decks
        self.settings = settings   # config.Settings: where `:edit` puts the learner's copy of a bundled deck
        self.told_commands = False

    def show_card(self, card: Card, variant: Variant, progress: Progress) -> None:
        if variant.kind == "recall":
            hint = _('Answer in your own words (or just press Enter), then rate yourself 1-4.')
        else:
            from studytool.problems.answers import format_hint

            hint = format_hint(variant)
        body = Group(Prose(escape(variant.prompt)), *_options(variant), Prose(f"[dim]{escape(hint)}[/]"))
        title = escape(card_title(progress, card, self.console.width))
        if not self.told_commands:
            emit(self.console, f"[dim]{escape(_('At any prompt: :q quit, :skip, :undo, :explain, :help'))}[/]")
            self.told_commands = True
        panel = Panel(body, title=title, title_align="left", expand=self.console.is_terminal)
        emit(self.console, panel)

    def show_reference(self, card: Card, variant: Variant) -> None:
        emit(self.console, _Labelled(_label(_('Answer')), str(variant.answer)))

    def show_result(self, result: Result) -> None:
        # a right answer after :explain is rated at most Hard (session.py): say so, or the rating looks arbitrary
        capped = ""
        if result.hinted and result.correct:
            capped = f"  [dim]{escape(_('(you opened :explain: rated at most Hard)'))}[/]"
        answer = escape(expected_text(result))
        if result.variant.kind == "recall":
            mark = rating_word(result.rating)
            emit(self.console, f"[{'green' if result.correct else 'red'}]{mark}[/]{capped}")
        elif result.correct:
            emit(self.console, Prose(f"[bold green]✓ {_('Correct')}[/]  {_label(_('Answer'), '')}{answer}" + capped))
        elif result.close:   # right by the method, rounded early or off in the last digit: recorded as Hard
            emit(self.console, Prose(f"[bold yellow]≈ {_('Close (rated Hard)')}[/]  {_label(_('Answer'), '')}{answer}"))
            emit(self.console, _Labelled(_label(_('Hint'), 'yellow'), result.hint))
        else:
            emit(self.console, Prose(f"[bold red]✗ {_('Wrong')}[/]  {_label(_('Answer'), '')}{answer}"))
            if result.hint:
                emit(self.console, _Labelled(_label(_('Hint'), 'yellow'), result.hint))
        if result.variant.solution and result.variant.kind != "recall":
            emit(self.console, _label(_('Solution')).rstrip())
            from studytool.cli.render.pictures import step_picture

            for step in result.variant.solution:
                picture = step_picture(step)  # a mask is drawn as a grid, not written out
                emit(self.console, Padding(Prose(escape(step if picture is None else picture[0])), INDENT))
                if picture is not None:
                    emit(self.console, Padding(picture[1], INDENT))
        if result.card.why:
            emit(self.console, _Labelled(_label(_('Why')), result.card.why))
        emit(self.console)

    def show_notice(self, text: str) -> None:
        from studytool.cli.safety import visible

        emit(self.console, Prose(f"[yellow]{escape(visible(text))}[/]"))   # a format error may quote the input

    def show_info(self, shown: Shown) -> None:
        from studytool.cli.render.cards import render_card

        render_card(self.console, shown)

    def edit(self, card: Card) -> Card | None:
        """`:edit`: $EDITOR at the card's line; then its deck is read and checked again (None: nothing to reload)."""
        from studytool.decks.edit import edit_card
        from studytool.errors import StudytoolError

        if not sys.stdin.isatty():
            self.show_notice(_(":edit needs a terminal"))
            return None
        try:
            edited = edit_card(card, self.settings, run=_run_editor, said=self.show_notice)
        except StudytoolError as error:   # the deck no longer reads: the session keeps the card as it was
            self.show_notice(str(error))
            return None
        return edited

    def show_explain(self, topic: str) -> None:
        from studytool.errors import StudytoolError
        from studytool.explain import explain
        from studytool.cli.render.explain import render_explanation

        try:
            render_explanation(explain(topic, self.decks), self.console)
        except StudytoolError as error:  # a topic that cannot be explained must not end the session
            self.show_notice(str(error))


def _run_editor(command: list[str]) -> None:
    import subprocess

    subprocess.call(command)


def outlook_text(outlook: Outlook, *, asked: bool = False, ended_early: bool = False, quiz: bool = False) -> str:
    """When cards come back: how many are still due now (after :q, or over the review limit), else the next one;
    tomorrow's and the week's; with nothing `asked`, also why and new cards."""
    sentences = []
    if ended_early:
        sentences.append(_("Session ended early."))
    elif not asked and not outlook.due_now:
        sentences.append(_("Nothing to review now."))
    if outlook.due_now:
        still = _("{n} card still due now.") if outlook.due_now == 1 else _("{n} cards still due now.")
        sentences.append(still.format(n=outlook.due_now))
        # a review asked every card it could: the rest wait for tomorrow's limit (a quiz asks only its selection)
        if not ended_early and not quiz:
            held = (_("Today's review limit holds it back (config max_reviews_per_day).") if outlook.due_now == 1
                    else _("Today's review limit holds them back (config max_reviews_per_day)."))
            sentences.append(held)
    elif outlook.next_due is not None:   # nothing due now: the next card is later
        due = outlook.next_due.astimezone(outlook.now.tzinfo)
        if due.date() == outlook.now.date():
            sentences.append(_("Next card due at {time} ({count} due later today).").format(
                time=due.strftime("%H:%M"), count=outlook.due_today))
        else:
            sentences.append(_("Next card due {date} at {time}.").format(
                date=due.date().isoformat(), time=due.strftime("%H:%M")))
    sentences.append(_("Due tomorrow: {tomorrow}; in the next 7 days: {week}.").format(
        tomorrow=outlook.due_tomorrow, week=outlook.due_week))
    if not asked and outlook.new_unseen == 0:
        sentences.append(_("No new cards left in these decks."))
    elif not asked:
        sentences.append(_("New cards: {left} of {limit} left today (use --new N for more).").format(
            left=outlook.new_left, limit=outlook.new_limit))
    return " ".join(sentences).replace("。 ", "。")  # Chinese sentences follow each other without a space


def show_summary(console: Console, summary: Summary) -> None:
    if summary.outlook is not None and not summary.answered:
        if summary.ended_early:
            emit(console)   # :q, Ctrl-C or EOF at the first prompt: the outlook starts on a line of its own
        emit(console, Prose(escape(outlook_text(summary.outlook, ended_early=summary.ended_early,
                                                quiz=summary.mode == "quiz"))))
        return
    emit(console)
    minutes, seconds = divmod(round(summary.seconds), 60)
    share = f" ({100 * summary.correct / summary.answered:.0f}%)" if summary.answered else ""
    emit(console,
        f"{_label(_('Score'))}{summary.correct}/{summary.answered}{share}   "
        f"{_label(_('Time'))}{_('{minutes}m {seconds:02d}s').format(minutes=minutes, seconds=seconds)}   "
        f"{_label(_('Skipped'))}{summary.skipped}"
        + (f"   {_label(_('Hinted'))}{summary.hinted}" if summary.hinted else "")
    )
    if summary.seed is not None:
        emit(console, _("Replay this quiz: the same command with --seed {seed}").format(seed=summary.seed))
    if summary.outlook is not None:
        emit(console, Prose(escape(outlook_text(summary.outlook, asked=True, ended_early=summary.ended_early,
                                                quiz=summary.mode == "quiz"))))
    if summary.credited:
        moved = (_("Implicit review: {n} card of a prerequisite topic rescheduled.") if summary.credited == 1
                 else _("Implicit review: {n} cards of prerequisite topics rescheduled."))
        emit(console, moved.format(n=summary.credited))
    weakest = summary.weakest()
    if weakest:
        emit(console, _label(_('Weakest topics')).rstrip())
        _show_scores(console, weakest)


def _show_scores(console: Console, scores: Sequence[TopicScore]) -> None:
    """Each weak topic, then the command that drills it on a line of its own, to copy and paste: indented when
    it fits, and broken only where it is longer than the terminal is wide (where the terminal would break it)."""
    for score in scores:
        emit(console, f"  {score.topic}  {score.correct}/{score.answered}")
        if len(score.command) + 4 <= console.width:
            emit(console, f"    [cyan]{escape(score.command)}[/]")
            continue
        for start in range(0, len(score.command), console.width):
            emit(console, f"[cyan]{escape(score.command[start:start + console.width])}[/]")


def _show_pictures(console: Console, stats: Stats) -> None:
    """The study calendar, the 30-day forecast and true retention by week (pictures.py draws them)."""
    from studytool.cli.render.pictures import BarList, Calendar, ColumnChart

    if stats.calendar:
        emit(console, f"\n[bold]{_('Study calendar: answers per day, last 26 weeks')}[/]")
        emit(console, Calendar(stats.calendar))
    if stats.forecast_30d:
        emit(console, f"\n[bold]{_('Due in the next 30 days')}[/]")
        emit(console, ColumnChart([n for _day, n in stats.forecast_30d],
                                  [day.strftime("%m-%d") for day, _n in stats.forecast_30d]))
    weeks = [week for week in stats.retention_by_week if week.reviews]
    emit(console, f"\n[bold]{_('True retention by week')}[/]")
    if not weeks:
        emit(console, f"[dim]{escape(_('No answers on cards in review in the last 26 weeks.'))}[/]")
        return
    emit(console, BarList([(week.week.isoformat(), week.recalled / week.reviews, f"{week.recalled}/{week.reviews}")
                           for week in weeks]))


def show_stats(console: Console, stats: Stats) -> None:
    table = Table(title=_("Cards"))
    for header in (_("Deck"), _("New"), _("Learning"), _("Review"), _("Due now"), _("Due today")):
        table.add_column(header, justify="left" if header == _("Deck") else "right")
    for deck in stats.decks:
        table.add_row(deck.deck, str(deck.new), str(deck.learning), str(deck.review), str(deck.due_now),
                      str(deck.due_today))
    emit(console, table)
    retention = f"{100 * stats.retention:.1f}%" if stats.retention is not None else "—"
    emit(console, 
        f"{_label(_('Answers recorded'))}{stats.answers_total}   "
        f"{_label(_('True retention (30 days)'))}{retention} ({stats.retention_reviews} {_('reviews')})"
    )
    _show_pictures(console, stats)
    if stats.graphs is not None:
        from studytool.cli.render.graphs import show_graphs

        show_graphs(console, stats.graphs)
    if stats.weakest:
        emit(console, f"\n[bold]{_('Weakest topics (30 days)')}[/]")
        _show_scores(console, stats.weakest)
