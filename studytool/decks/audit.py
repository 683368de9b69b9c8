"""`decks audit`: does a right answer mean the learner knew it? The author's view of every card, measured.

Each card is posed with `SEEDS` seeds, as quiz, review and worksheet pose it, and the showings are
checked against the rules of issue 12: where the right option sits, how often a true/false statement
is true, whether a format line's example is the answer, which numeric cards are fixed numbers,
which questions nearly repeat another, which shape/number questions give no sizes, and whether a
generated card varies and never lets a known wrong method pass. The blind strategies a learner can fall
into are played too: pick the longest option, tick every option but one, call a statement with a
negation word true (or false), copy a number shown with the question. With a review log, item statistics
per card follow: share right, median time, cards always right at once, cards whose hint never helps.
The thresholds are the issue's "done when" numbers; `passed` says whether every one holds.
"""

from __future__ import annotations

import re
import statistics
from collections import Counter, defaultdict
from heapq import nlargest
from itertools import combinations, count
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from studytool.decks.fairness import audit_cards, bigrams, display_width  # noqa: F401 (display_width: read here too)
from studytool.decks.model import Card, Deck

# issue 23's checks of generated cards (`fairness.py`): no rule beats an item, answers vary and no key is degenerate
# at every level; level 3 asks a combined question; level 1 and 2 stay hand-sized
FAIRNESS_CHECKS = ("fair_items", "level_three_combines", "level_sizes")

SEEDS = 100                   # showings per card
MAX_LETTER_SHARE = 0.40       # no letter right in more than 40% of single-answer choice showings
TRUE_SHARE = (0.35, 0.65)     # true/false statements true in 35-65% of showings
MAX_FIXED_NUMERIC = 12        # number/vector/shape cards left: facts of the notes' base model
MAX_NEAR_DUPLICATES = 3       # question pairs that ask nearly the same thing
MIN_DISTINCT = 10             # distinct answers per 100 seeds of a generated card
MAX_LONGEST = 0.40            # single-answer choice showings whose right option is strictly the longest
MAX_ALL_BUT_ONE = 0.40        # multi-select showings where every option but one is right
MAX_NEGATION_CUE = 0.58       # "true iff the statement has a negation" (or its reverse) right at most this often
MAX_PROMPT_LEAK = 0.05        # draws in which a number on screen, copied, is the answer
# A learner's lexical cue, not grammar: any of these in a statement reads as "a correction", hence true.
NEGATION = re.compile(r"不|没|无需|无须|并非|而非")
NEAR = 0.6                    # bigram similarity of two questions that counts as "nearly the same"
MAX_PAIRS_LISTED = 100        # near-duplicate pairs kept, the most alike: 3,000 copies of a card are 4.5 million
NEAR_DRAWN = 0.4              # ... of a fixed card and a generated card's first showing (its prompt states more sizes)
FIXED_NUMERIC = ("number", "vector", "shape")


@dataclass
class CardStats:
    """One card's answers in the learner's log."""

    card: str
    answers: int
    share_right: float
    median_seconds: float
    hinted: int
    always_right: bool        # right every time, the first time included: the card teaches nothing
    hint_never_helps: bool    # missed, shown the hint and solution, missed again every time after


@dataclass
class DeckAudit:
    deck: str
    cards: int
    letter_share: dict[str, float] = field(default_factory=dict)   # single-answer choice showings
    fixed_choice: list[str] = field(default_factory=list)           # 3+ options, the right one never moves
    true_share: float | None = None
    format_leaks: list[str] = field(default_factory=list)           # the format example is the answer
    fixed_numeric: list[str] = field(default_factory=list)
    no_sizes: list[str] = field(default_factory=list)                # numeric questions without a number
    few_answers: dict[str, int] = field(default_factory=dict)        # generated: distinct answers per SEEDS
    coincidences: dict[str, int] = field(default_factory=dict)       # generated: draws a wrong method passes
    longest_share: float | None = None    # single-answer showings whose right option is strictly the longest
    all_but_one_share: float | None = None    # multi-select showings with every option but one right
    negation_cue: float | None = None     # true/false showings that "true iff a negation" gets right
    prompt_leaks: dict[str, int] = field(default_factory=dict)       # draws where a shown number is the answer
    unfair: dict[str, dict[str, list[str]]] = field(default_factory=dict)   # generated: card -> check -> problems
    items: list[CardStats] = field(default_factory=list)


@dataclass
class Audit:
    decks: list[DeckAudit]
    near_duplicates: list[tuple[str, str, float]]
    fixed_numeric: int
    checks: dict[str, bool]

    @property
    def passed(self) -> bool:
        return all(self.checks.values())

    def to_json(self) -> dict[str, Any]:
        return {"passed": self.passed, "checks": self.checks, "fixed_numeric": self.fixed_numeric,
                "near_duplicates": [{"a": a, "b": b, "similarity": round(s, 3)} for a, b, s in self.near_duplicates],
                "decks": [asdict(deck) for deck in self.decks]}


def audit(decks: Sequence[Deck], log: Iterable[dict[str, Any]] = (), seeds: int = SEEDS,
          progress: Callable[[int, int], None] | None = None, fair_seeds: int | None = None) -> Audit:
    """Audit `decks` over `seeds` showings per card; `log` rows (card, correct, duration_ms, params) add item stats.
    `progress(done, total)` is called after each card. Issue 23's fairness of every generated card is measured over
    `fair_seeds` draws at each level (default `seeds`; the test suite uses fewer)."""
    rows = list(log)
    total, done = sum(len(deck.cards) for deck in decks), count(1)
    step = (lambda: progress(next(done), total)) if progress is not None else (lambda: None)
    reports = [_deck(deck, seeds, rows, step) for deck in decks]
    for deck, report in zip(decks, reports):
        measured = audit_cards(deck.cards, fair_seeds or seeds)
        report.unfair = {m.card.split("/", 1)[1]: m.problems(fair_seeds or seeds) for m in measured
                         if m.problems(fair_seeds or seeds)}
    pairs = near_duplicates([card for deck in decks for card in deck.cards])
    fixed = sum(len(r.fixed_numeric) for r in reports)
    checks = {
        "answer_position": all(max(r.letter_share.values(), default=0) <= MAX_LETTER_SHARE for r in reports),
        "choices_move": not any(r.fixed_choice for r in reports),
        "true_false_balance": all(r.true_share is None or TRUE_SHARE[0] <= r.true_share <= TRUE_SHARE[1]
                                  for r in reports),
        "format_lines": not any(r.format_leaks for r in reports),
        "fixed_numeric": fixed <= MAX_FIXED_NUMERIC,
        "near_duplicates": len(pairs) <= MAX_NEAR_DUPLICATES,
        "sizes_given": not any(r.no_sizes for r in reports),
        "generated_vary": not any(r.few_answers for r in reports),
        "wrong_methods_caught": not any(r.coincidences for r in reports),
        "longest_option": all(r.longest_share is None or r.longest_share <= MAX_LONGEST for r in reports),
        "all_but_one": all(r.all_but_one_share is None or r.all_but_one_share <= MAX_ALL_BUT_ONE for r in reports),
        "negation_cue": all(r.negation_cue is None or max(r.negation_cue, 1 - r.negation_cue) <= MAX_NEGATION_CUE
                            for r in reports),
        "prompt_numbers": not any(r.prompt_leaks for r in reports),
        **{check: not any(check in problems for r in reports for problems in r.unfair.values())
           for check in FAIRNESS_CHECKS},
    }
    return Audit(reports, pairs, fixed, checks)


def _deck(deck: Deck, seeds: int, log: list[dict[str, Any]], step: Callable[[], None]) -> DeckAudit:
    report = DeckAudit(deck.deck, len(deck.cards))
    letters: Counter[int] = Counter()
    true_false, cues = Counter(), Counter()
    for card in deck.cards:
        shown = [card.pose(seed) for seed in range(seeds)]
        _choices(card, shown, letters, cues, report)
        if card.kind == "truefalse":
            true_false.update(variant.answer == frozenset({0}) for variant in shown)
            cues.update(negation_cue_right(variant) for variant in shown)
        if any(example_is_answer(variant) for variant in shown):
            report.format_leaks.append(card.id)
        # a generated card grows with the learner's stability: as many draws again, half at level 2, half at 3
        grown = [card.pose(seed, 2 + seed % 2) for seed in range(seeds)] if card.kind == "generated" else []
        copied = max(_most_copied(shown), _most_copied(grown))
        if copied > MAX_PROMPT_LEAK * len(shown):
            report.prompt_leaks[card.id] = copied
        if card.kind in FIXED_NUMERIC:
            report.fixed_numeric.append(card.id)
        if shown[0].kind == "shape" and not re.search(r"\d", _without_format_words(shown[0].prompt)):
            report.no_sizes.append(card.id)
        if card.kind == "generated":
            _variety(card, shown, report)
        step()
    total = sum(letters.values())
    report.letter_share = {chr(65 + i): round(n / total, 3) for i, n in sorted(letters.items())} if total else {}
    if true_false:
        report.true_share = round(true_false[True] / sum(true_false.values()), 3)
        report.negation_cue = _share(cues, "cue")
    report.longest_share, report.all_but_one_share = _share(cues, "longest"), _share(cues, "all_but_one")
    report.items = item_stats(deck, log)
    return report


def _most_copied(shown: list) -> int:
    """In how many of `shown` the most often right place on screen holds the answer."""
    copied = Counter(position for variant in shown for position in copied_numbers(variant))
    return max(copied.values(), default=0)


def _share(counts: Counter, name: str) -> float | None:
    """Share of (name, True) among the (name, _) counts; None when there were none."""
    total = counts[name, True] + counts[name, False]
    return round(counts[name, True] / total, 3) if total else None


def _choices(card: Card, shown: list, letters: Counter, cues: Counter, report: DeckAudit) -> None:
    if card.kind == "truefalse" or shown[0].kind != "choice":
        return
    for variant in shown:
        if len(variant.answer) == 1:
            letters.update(variant.answer)
            cues["longest", right_is_longest(variant)] += 1
        else:
            cues["all_but_one", len(variant.answer) == len(variant.options) - 1] += 1
    if len(shown[0].options) >= 3 and len({variant.answer for variant in shown}) == 1:
        report.fixed_choice.append(card.id)


def right_is_longest(variant) -> bool:
    """The one right option is strictly wider than every other: "pick the longest" would score it."""
    (right,) = variant.answer
    widths = [display_width(option) for option in variant.options]
    return widths[right] > max(w for i, w in enumerate(widths) if i != right)


def negation_cue_right(variant) -> tuple[str, bool]:
    """("cue", whether answering true exactly when the statement holds a negation is right)."""
    return "cue", bool(NEGATION.search(variant.prompt)) == (variant.answer == frozenset({0}))


# numbers as a learner would copy them: 6.9877, -0.24, 16,882,824, a fraction 3/7, or a bracketed list of them
_SHOWN = re.compile(r"\[[^\[\]]*\]|[-−]?\d[\d,]*(?:\.\d+)?(?:/\d+)?")


def copied_numbers(variant) -> set[int]:
    """Positions of the numbers (or bracketed lists) in the prompt and format line that, typed back as they
    stand, are graded right. By position, because a learner can learn "copy the third number" but not guess
    which of a prompt's many small integers happens to equal a small answer."""
    from studytool.problems.answers import AnswerFormatError, format_hint, grade

    if variant.kind not in ("scalar", "vector"):
        return set()   # a shape shares its sizes with the question by design; a matrix is never one list
    right, on_screen = set(), _without_format_words(variant.prompt + " " + format_hint(variant))
    for position, shown in enumerate(_SHOWN.findall(on_screen)):
        try:
            if grade(variant, shown.strip(",")).correct:
                right.add(position)
        except AnswerFormatError:
            continue   # "10⁻⁴"'s 10 or a list of another length is no answer
    return right


def _without_format_words(prompt: str) -> str:
    """The prompt without '4 位小数' / '4 decimals' instructions: no sizes, and no number to copy."""
    return re.sub(r"\d+\s*位小数|保留\s*\d+|\d+ decimals", "", prompt)


def example_is_answer(variant) -> bool:
    """The format line's example, typed as an answer, is right."""
    from studytool.problems.answers import AnswerFormatError, format_hint, grade

    if variant.kind == "recall":
        return False
    for example in re.findall(r"e\.g\. (.*?)(?= or |\(|$)", format_hint(variant)):
        try:
            if grade(variant, example.strip(" .")).correct:
                return True
        except AnswerFormatError:
            continue  # a symbolic example ([a, b, c]) is no answer
    return False


def _variety(card: Card, shown: list, report: DeckAudit) -> None:
    from studytool.problems.answers import format_answer, matches
    from studytool.problems.registry import get

    distinct = len({format_answer(variant) for variant in shown})
    small = get(card.body["generator"]).small_answer_space(card.body.get("params", {}))
    if distinct < min(MIN_DISTINCT, len(shown)) and not small:
        report.few_answers[card.id] = distinct
    passed = sum(any(matches(variant, hint.answer) for hint in variant.hints) for variant in shown)
    if passed:
        report.coincidences[card.id] = passed


def near_duplicates(cards: Sequence[Card], threshold: float = NEAR) -> list[tuple[str, str, float]]:
    """Card pairs that ask the same thing: generated cards that pose the same question of the same generator,
    at whatever sizes (the same sub-question and choices, `ask`, `convention`, `norm_first` ...: a pinned batch
    of 1 is the same question), or first showings with the same answer whose questions read nearly alike
    (bigram Jaccard >= threshold; >= NEAR_DRAWN between a fixed card and a generated one, whose prompt
    spells out its sizes)."""
    from studytool.problems.answers import format_answer

    def signature(card: Card) -> tuple[str, set[str], str | None, str | None]:
        if card.kind == "recall":
            return card.key, bigrams(card.body["q"]), None, None
        variant = card.pose()
        choices = sorted((name, value) for name, value in card.body.get("params", {}).items()
                         if isinstance(value, (str, bool)))
        drawn = repr((card.body["generator"], choices)) if card.kind == "generated" else None
        return card.key, bigrams(variant.prompt), format_answer(variant), drawn

    signed = [signature(card) for card in cards]
    # Only cards of one generator call, or with one answer, can pair: compared within those groups, not all pairs.
    same_draw, same_answer = defaultdict(list), defaultdict(list)
    for number, (_key, _grams, answer, drawn) in enumerate(signed):
        if drawn is not None:
            same_draw[drawn].append(number)
        same_answer[answer].append(number)

    def pairs():
        for group in same_draw.values():
            yield from ((i, j, _jaccard(signed[i][1], signed[j][1])) for i, j in combinations(group, 2))
        for group in same_answer.values():
            for i, j in combinations(group, 2):
                # a pair of one draw is listed above; two generated cards asking different things (two steps of one
                # data flow whose shapes agree) are two questions, however alike the sizes their prompts state
                if signed[i][3] is None or signed[j][3] is None:
                    similarity = _jaccard(signed[i][1], signed[j][1])
                    # a fixed card and a generated card's first showing: its prompt states more sizes
                    alike = NEAR_DRAWN if (signed[i][3] is None) != (signed[j][3] is None) else threshold
                    if similarity >= alike:
                        yield i, j, similarity

    # the most alike first, then in deck order; a bounded heap, so memory stays flat however many pairs there are
    kept = nlargest(MAX_PAIRS_LISTED, pairs(), key=lambda pair: (pair[2], -pair[0], -pair[1]))
    return [(signed[i][0], signed[j][0], similarity) for i, j, similarity in kept]


def _jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a and b else 0.0


def item_stats(deck: Deck, log: list[dict[str, Any]]) -> list[CardStats]:
    """Per card of `deck` with answers in `log` (rows in time order): how the learner does on it."""
    by_card: dict[str, list[dict[str, Any]]] = {}
    for row in log:
        if row["card"].split("/", 1)[0] == deck.deck:
            by_card.setdefault(row["card"], []).append(row)
    stats = []
    for key, rows in by_card.items():
        right = [bool(row["correct"]) for row in rows]
        after_miss = [now for before, now in zip(right, right[1:]) if not before]
        stats.append(CardStats(
            card=key, answers=len(rows), share_right=round(sum(right) / len(rows), 3),
            median_seconds=round(statistics.median(row["duration_ms"] for row in rows) / 1000, 1),
            hinted=sum(bool(row.get("params", {}).get("hinted")) for row in rows),
            always_right=len(rows) >= 3 and all(right),
            hint_never_helps=len(after_miss) >= 2 and not any(after_miss)))
    return sorted(stats, key=lambda s: s.card)
