"""The terminal face of a session: what the learner reads in the card header and around it."""

from __future__ import annotations

import io
from dataclasses import replace
from datetime import timedelta

from hypothesis import given, settings, strategies as st
from rich.cells import cell_len
from rich.console import Console

from studytool.study.queue import Outlook
from studytool.study.session import Progress, Result, Summary
from studytool.study.stats import Stats, TopicScore
from studytool.cli.render.common import Prose, line_breaks
from studytool.cli.render.study import TerminalView, outlook_text, progress_text, show_stats, show_summary
from study_fakes import T0, number, recall


def test_progress_counts_missed_cards_apart_from_the_total():
    assert progress_text(Progress(2, 20, again=0, repeat=False)) == "[2/20]"
    assert progress_text(Progress(2, 20, again=1, repeat=False)) == "[2/20 · 1 again]"
    assert progress_text(Progress(3, 20, again=0, repeat=True, missed=True)) == "[again · 3/20]"
    assert progress_text(Progress(3, 20, again=2, repeat=True, missed=True)) == "[again · 3/20 · 2 again]"


def screen(width: int) -> Console:
    return Console(file=io.StringIO(), width=width, color_system=None, highlight=False)


def text(console: Console) -> str:
    return console.file.getvalue()


def test_a_narrow_card_header_drops_the_deck_then_the_id_but_keeps_counter_and_topic():
    card = number("gen-causal-visible", 1, topic="architecture", deck="transformer-arch")
    variant = card.pose(None)
    for width, header in [(100, "[1/20] transformer-arch/gen-causal-visible · architecture"),
                          (50, "[1/20] gen-causal-visible · architecture"),
                          (30, "[1/20] architecture")]:
        console = screen(width)
        TerminalView(console).show_card(card, variant, Progress(1, 20, again=0, repeat=False))
        top = next(line for line in text(console).splitlines() if line.startswith("╭"))
        assert top.startswith(f"╭─ {header} ─") and cell_len(top) <= width


def test_suggested_commands_stay_whole_or_fold_only_at_the_terminal_edge():
    """A drill command is never broken at its spaces; one wider than the terminal folds at the edge,
    as the terminal itself would, so it stays one command when copied."""
    command = "studytool quiz --topic positional-encoding"  # 42 cells
    stats = Stats(decks=(), answers_total=1, retention=None, retention_reviews=0, answers_per_day=(), forecast=(),
                  weakest=(TopicScore("positional-encoding", answered=1, correct=0),))
    card = number("pe", 1, topic="positional-encoding")
    missed = Result(card, None, card.pose(None), "2", "1", False, 1, None, review_id=1)
    for show, value in [(show_stats, stats), (show_summary, Summary("quiz", (missed,), 0, 1.0))]:
        wide = screen(60)
        show(wide, value)
        assert any(line.strip() == command for line in text(wide).splitlines())
        narrow = screen(30)
        show(narrow, value)
        lines = text(narrow).splitlines()
        start = next(i for i, line in enumerate(lines) if line.startswith("studytool quiz"))
        assert lines[start] == command[:30] and lines[start + 1].rstrip() == command[30:]


def test_piped_output_has_no_trailing_spaces_and_a_terminal_keeps_full_width_panels():
    card = number("c", 7)
    card = replace(card, why="一句很长的解释，" * 12)
    variant = card.pose(None)
    result = Result(card, None, variant, "8", "7", False, 1, None, review_id=1)
    for is_terminal in (False, True):
        console = Console(file=io.StringIO(), width=60, color_system=None, force_terminal=is_terminal)
        view = TerminalView(console)
        view.show_card(card, variant, Progress(1, 1, again=0, repeat=False))
        view.show_result(result)
        lines = text(console).splitlines()
        panel = [line for line in lines if line.startswith(("╭", "│", "╰"))]
        if is_terminal:
            assert {cell_len(line) for line in panel} == {60}
        else:
            assert [line for line in lines if line != line.rstrip()] == []
            assert len({cell_len(line) for line in panel}) == 1 and cell_len(panel[0]) < 60


def shown(markup: str, width: int) -> list[str]:
    console = screen(width)
    console.print(Prose(markup))
    return text(console).splitlines()


def test_chinese_prose_fills_each_line_instead_of_waiting_for_a_space():
    # rich alone gives ["想找关于 AI", "的书，最好是讲注意力", "机制的入门读物。"]: a run without
    # spaces starts a new line, leaving the first one half empty
    assert shown("想找关于 AI 的书，最好是讲注意力机制的入门读物。", 20) == [
        "想找关于 AI 的书，最", "好是讲注意力机制的入", "门读物。"]


def test_closing_punctuation_never_starts_a_line_and_english_breaks_at_spaces():
    assert shown("一二三四，五六", 8) == ["一二三", "四，五六"]
    assert shown("[bold]Why:[/] attention is all you need", 12) == ["Why:", "attention is", "all you need"]


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="ab 中文，（）", min_size=1, max_size=60), st.integers(2, 20))
def test_line_breaks_keep_every_character_and_every_line_fits(paragraph, width):
    cuts = [0, *line_breaks(paragraph, width), len(paragraph)]
    lines = [paragraph[a:b] for a, b in zip(cuts, cuts[1:])]
    assert "".join(lines) == paragraph
    assert all(line and cell_len(line.rstrip()) <= width for line in lines)


def test_a_recall_card_says_how_to_answer_it():
    card = recall("r")
    console = screen(100)
    TerminalView(console).show_card(card, card.pose(None), Progress(1, 1, again=0, repeat=False))
    assert "Answer in your own words (or just press Enter), then rate yourself 1-4." in text(console)


def test_wrapped_solution_hint_and_why_lines_stay_indented():
    card = replace(number("c", 7), why="the why text " * 8)
    variant = replace(card.pose(None), solution=("step one: " + "204,800 " * 10,))
    result = Result(card, None, variant, "8", "7", False, 1, "the hint text " * 8, review_id=1)
    console = screen(40)
    TerminalView(console).show_result(result)
    lines = [line for line in text(console).splitlines() if line.strip()]
    solution = lines.index("Solution:")
    after_hint, after_solution, after_why = lines[2:solution], lines[solution + 1:], lines[-4:]
    assert lines[1].startswith("Hint:") and all(line.startswith("  ") for line in after_hint)
    assert all(line.startswith("  ") for line in after_solution if not line.startswith("Why:"))
    assert any(line.startswith("Why:") for line in after_why)
    assert len(after_solution) > 5  # the step, the why and their wrapped lines


def test_an_empty_review_says_when_the_next_card_is_due_and_what_the_new_limit_leaves():
    later_today = Outlook(T0, T0 + timedelta(minutes=10), due_now=0, due_today=11, due_tomorrow=3, due_week=9, new_left=0,
                          new_limit=20, new_unseen=5)
    assert outlook_text(later_today) == ("Nothing to review now. Next card due at 09:40 (11 due later today). "
                                         "Due tomorrow: 3; in the next 7 days: 9. "
                                         "New cards: 0 of 20 left today (use --new N for more).")
    tomorrow = replace(later_today, next_due=T0 + timedelta(days=1, hours=1), due_today=0, new_unseen=0)
    assert outlook_text(tomorrow) == ("Nothing to review now. Next card due 2026-03-02 at 10:30. "
                                      "Due tomorrow: 3; in the next 7 days: 9. No new cards left in these decks.")
    console = screen(200)
    show_summary(console, Summary("review", (), 0, 0.0, outlook=replace(later_today, next_due=None)))
    assert text(console) == ("Nothing to review now. Due tomorrow: 3; in the next 7 days: 9. "
                             "New cards: 0 of 20 left today (use --new N for more).\n")


def test_after_a_session_the_summary_says_when_cards_come_back():
    outlook = Outlook(T0, T0 + timedelta(days=1), due_now=0, due_today=0, due_tomorrow=2, due_week=5, new_left=3,
                      new_limit=20, new_unseen=7)
    console = screen(200)
    show_summary(console, Summary("review", (), 0, 61.0, outlook=outlook))
    assert "Nothing to review now." in text(console)   # nothing was answered: why, first
    card = number("n", 7)
    result = Result(card, None, card.pose(None), "7", "7", True, 3, None, review_id=1)
    answered = Summary("review", (result,), 0, 61.0, outlook=outlook)
    console = screen(200)
    show_summary(console, answered)
    assert "Next card due 2026-03-02 at 09:30. Due tomorrow: 2; in the next 7 days: 5." in text(console)
    assert "Nothing to review" not in text(console) and "New cards" not in text(console)
    held_back = replace(outlook, next_due=T0 - timedelta(hours=1), due_now=4)   # the session ran out of its limit
    assert outlook_text(held_back, asked=True) == ("4 cards still due now. Today's review limit holds them back "
                                                   "(config max_reviews_per_day). Due tomorrow: 2; in the next 7 days: 5.")


def test_a_session_ended_early_says_how_many_cards_are_still_due_now():
    """After :q or end of input on card 1 of 127 it said "Nothing to review now. Cards are due now." with 55 due."""
    outlook = Outlook(T0, T0 - timedelta(days=1), due_now=55, due_today=0, due_tomorrow=6, due_week=11, new_left=80,
                      new_limit=80, new_unseen=80)
    console = screen(200)
    show_summary(console, Summary("review", (), 0, 3.0, outlook=outlook, ended_early=True))
    # on a line of its own: the prompt it interrupted is still on the line above
    assert text(console) == ("\nSession ended early. 55 cards still due now. Due tomorrow: 6; in the next 7 days: 11. "
                             "New cards: 80 of 80 left today (use --new N for more).\n")
    card = number("n", 7)
    answered = Summary("review", (Result(card, None, card.pose(None), "7", "7", True, 3, None, review_id=1),), 0, 3.0,
                       outlook=replace(outlook, due_now=1), ended_early=True)
    console = screen(200)
    show_summary(console, answered)
    assert "Session ended early. 1 card still due now. Due tomorrow: 6" in text(console)


def test_a_wrapped_recall_reference_answer_stays_indented():
    card = recall("r")
    variant = replace(card.pose(None), answer="参数量等于词表大小乘以模型维度，" * 4)
    console = screen(30)
    TerminalView(console).show_reference(card, variant)
    lines = text(console).splitlines()
    assert lines[0].startswith("Answer:") and len(lines) > 2
    assert all(line.startswith("  ") for line in lines[1:])


def test_a_right_answer_after_explain_says_why_it_is_rated_hard():
    """A 4 typed after :explain became Hard with no word why."""
    for card, typed in ((recall("r"), "4"), (number("n", 7), "7")):
        variant = card.pose(None)
        for hinted, said in ((True, True), (False, False)):
            console = screen(200)
            TerminalView(console).show_result(Result(card, None, variant, typed, "7", True, 2, None, 1, hinted))
            assert ("(you opened :explain: rated at most Hard)" in text(console)) is said, (card.kind, hinted)
    console = screen(200)
    TerminalView(console).show_result(Result(card, None, variant, "8", "7", False, 1, None, 1, hinted=True))
    assert ":explain" not in text(console)   # a miss stays Again: nothing was lowered
