"""Rich rendering (and JSON) for `studytool decks audit`."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

from studytool.decks import audit as rules
from studytool.decks.audit import Audit, DeckAudit
from studytool.i18n import _


def audit_json(result: Audit) -> dict[str, Any]:
    return result.to_json()


def _check_names() -> dict[str, str]:
    # built at call time: `_()` follows the language chosen on the command line
    return {
        "answer_position": _("no letter is right in more than {n}% of single-answer choice showings").format(
            n=round(rules.MAX_LETTER_SHARE * 100)),
        "choices_move": _("every choice card with 3+ options moves its right answer"),
        "true_false_balance": _("true/false statements are true in {low}-{high}% of showings").format(
            low=round(rules.TRUE_SHARE[0] * 100), high=round(rules.TRUE_SHARE[1] * 100)),
        "format_lines": _("no format line's example is the answer"),
        "fixed_numeric": _("at most {n} fixed numeric cards").format(n=rules.MAX_FIXED_NUMERIC),
        "near_duplicates": _("at most {n} near-duplicate question pairs").format(n=rules.MAX_NEAR_DUPLICATES),
        "sizes_given": _("every shape question gives its sizes"),
        "generated_vary": _("every generated card gives {n}+ answers per {seeds} seeds (or says why not)").format(
            n=rules.MIN_DISTINCT, seeds=rules.SEEDS),
        "wrong_methods_caught": _("no generated draw lets a known wrong method pass"),
        "longest_option": _("the right option is strictly the longest in at most {n}% of single-answer showings").format(
            n=round(rules.MAX_LONGEST * 100)),
        "all_but_one": _("every option but one is right in at most {n}% of multi-select showings").format(
            n=round(rules.MAX_ALL_BUT_ONE * 100)),
        "negation_cue": _("judging true/false by a negation word is right in at most {n}% of showings").format(
            n=round(rules.MAX_NEGATION_CUE * 100)),
        "prompt_numbers": _("copying a number shown with the question is right in at most {n}% of draws").format(
            n=round(rules.MAX_PROMPT_LEAK * 100)),
        "fair_items": _("every generated card, at every level: no knowledge-free rule beats chance by more than "
                        "10 points, 20+ answers per 100 seeds, no degenerate key in more than 5% of draws"),
        "level_three_combines": _("level 3 of every generated card takes more worked steps than level 1"),
        "level_sizes": _("at most 4 computed numbers to type at level 1, 8 at level 2"),
    }


def render_audit(result: Audit, console: Console) -> None:
    names = _check_names()
    table = Table(show_header=False, box=None)
    for check, ok in result.checks.items():
        table.add_row("✓" if ok else "✗", names[check])
    console.print(table)
    for deck in result.decks:
        console.print(_deck_lines(deck))
    for a, b, similarity in result.near_duplicates:
        console.print(_("near-duplicate: {a} ~ {b} ({similarity:.2f})").format(a=a, b=b, similarity=similarity))
    verdict = _("audit passed") if result.passed else _("audit failed")
    console.print(_("{verdict}: {n} fixed numeric cards in all").format(verdict=verdict, n=result.fixed_numeric))


def _deck_lines(deck: DeckAudit) -> str:
    letters = "  ".join(f"{letter} {share:.0%}" for letter, share in deck.letter_share.items())
    lines = [_("{deck} ({n} cards)").format(deck=deck.deck, n=deck.cards),
             "  " + _("right letter: {letters}").format(letters=letters or "-")]
    if deck.true_share is not None:
        lines.append("  " + _("true/false statements true: {share:.0%}").format(share=deck.true_share))
    for label, share in ((_("right option strictly the longest"), deck.longest_share),
                         (_("every option but one right"), deck.all_but_one_share),
                         (_("a negation word means true"), deck.negation_cue)):
        if share is not None:
            lines.append("  " + _("{label}: {share:.0%}").format(label=label, share=share))
    for label, cards in ((_("fixed numeric"), deck.fixed_numeric), (_("answer never moves"), deck.fixed_choice),
                         (_("format example is the answer"), deck.format_leaks),
                         (_("shape question without sizes"), deck.no_sizes)):
        if cards:
            lines.append("  " + _("{label}: {cards}").format(label=label, cards=", ".join(cards)))
    for card, n in deck.few_answers.items():
        lines.append("  " + _("{card}: only {n} distinct answers").format(card=card, n=n))
    for card, n in deck.coincidences.items():
        lines.append("  " + _("{card}: a wrong method passes in {n} draws").format(card=card, n=n))
    for card, found in deck.unfair.items():
        problems = "; ".join(problem for listed in found.values() for problem in listed)
        lines.append("  " + _("{card}: {problems}").format(card=card, problems=problems))
    for card, n in deck.prompt_leaks.items():
        lines.append("  " + _("{card}: a number on screen is the answer in {n} draws").format(card=card, n=n))
    if deck.items:
        lines.append("  " + _("from your log:"))
    for item in deck.items:
        flags = [flag for flag, on in ((_("always right at once"), item.always_right),
                                       (_("the hint never helps"), item.hint_never_helps)) if on]
        lines.append("    " + _("{card}: {n} answers, {share:.0%} right, median {seconds}s, {hinted} hinted").format(
            card=item.card, n=item.answers, share=item.share_right, seconds=item.median_seconds,
            hinted=item.hinted) + (f" — {'; '.join(flags)}" if flags else ""))
    return "\n".join(lines)
