"""Is a generated item fair at every level? Issue 23's measurements, card by card over many seeds.

Four questions, each over `seeds` draws of every level:

- does a knowledge-free rule beat the item? The rules a learner falls into without the method: pick the
  first option, the longest, the one most like the others (a key and its mirror distractor), answer the
  items in the shown order, copy the first shape written in the prompt, and each generator's own shortcut
  where one exists (`RULES`: beam search's "the surprise first word wins"). A rule may score at most chance
  + 10 points, chance being one over the options (0 for a number or shape, one over the candidates a
  generator's rule picks among);
- does the answer vary: 20 distinct answers per 100 seeds at each level (letter-answered cards: their
  letters balanced instead, no letter above chance + 10 points);
- is the key degenerate: a probability that shows as 0.0000 or 1.0000, a count of 0 or 1 (at most 5%);
- does each level ask what it should: more worked steps at level 3 than at level 1, and at most 4
  computed (non-integer) numbers to type at level 1, 8 at level 2.

`decks audit` runs it at 100 seeds; the test suite at fewer (deterministic seeds, so a result never flips).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from studytool.decks.model import Card

MARGIN = 0.10            # a rule may beat chance by this much
MIN_DISTINCT = 0.20      # distinct answers per draw at each level (20 per 100 seeds)
MAX_DEGENERATE = 0.05    # draws whose key is degenerate
MAX_COMPUTED = {1: 4, 2: 8}   # computed (non-integer) numbers a learner types at a level
LEVELS = (1, 2, 3)
CHECKS = ("fair_items", "level_three_combines", "level_sizes")   # what `problems` groups its findings by


@dataclass
class CardFairness:
    card: str
    rules: dict[str, float] = field(default_factory=dict)      # rule -> share of draws it answers right
    chance: dict[str, float] = field(default_factory=dict)     # rule -> its chance
    distinct: dict[int, int] = field(default_factory=dict)     # level -> distinct answers
    letters: dict[str, float] = field(default_factory=dict)    # letter-answered: letter -> share
    degenerate: float = 0.0
    steps: dict[int, float] = field(default_factory=dict)      # level -> mean worked steps
    computed: dict[int, int] = field(default_factory=dict)     # level -> most computed numbers to type
    small: str | None = None      # why this card's answers are few by nature (its generator says so)

    def beaten_by(self) -> list[str]:
        return [rule for rule, share in self.rules.items() if share > self.chance[rule] + MARGIN]

    def problems(self, seeds: int) -> dict[str, list[str]]:
        """What fails, by check (`CHECKS`), in the interface language; empty: the card is fair."""
        found = {"fair_items": self._unfair(seeds), "level_three_combines": self._flat(),
                 "level_sizes": self._too_many()}
        return {check: problems for check, problems in found.items() if problems}

    def _unfair(self, seeds: int) -> list[str]:
        from studytool.i18n import _

        names = rule_names()
        found = [_("{rule} right in {share:.0%} (chance {chance:.0%})").format(
            rule=names[rule], share=self.rules[rule], chance=self.chance[rule]) for rule in self.beaten_by()]
        if self.letters and max(self.letters.values()) > 1 / len(self.letters) + MARGIN:
            found.append(_("one letter right in {share:.0%}").format(share=max(self.letters.values())))
        if not self.small:
            found += [_("level {level}: {n} distinct answers in {seeds} draws").format(level=level, n=n, seeds=seeds)
                      for level, n in self.distinct.items() if n < MIN_DISTINCT * seeds]
        if self.degenerate > MAX_DEGENERATE:
            found.append(_("a degenerate key in {share:.0%} of draws").format(share=self.degenerate))
        return found

    def _flat(self) -> list[str]:
        from studytool.i18n import _

        if self.steps[3] > self.steps[1]:
            return []
        return [_("level 3 takes {three:g} worked steps, level 1 {one:g}").format(three=self.steps[3], one=self.steps[1])]

    def _too_many(self) -> list[str]:
        from studytool.i18n import _

        return [_("level {level}: {n} computed numbers to type (at most {most})").format(
            level=level, n=n, most=MAX_COMPUTED[level]) for level, n in self.computed.items()
            if n > MAX_COMPUTED[level]]


def measure(card: Card, seeds: int) -> CardFairness:
    """The card over `seeds` draws at each level (`card` is generated)."""
    from studytool.problems.answers import format_answer
    from studytool.problems.registry import get

    report = CardFairness(card.key)
    report.small = get(card.body["generator"]).small_answer_space(card.body.get("params", {}))
    right: Counter[str] = Counter()
    chance: dict[str, list[float]] = {}
    letters: Counter[int] = Counter()
    drawn = chosen = options = 0
    for level in LEVELS:
        shown = [card.pose(seed, level) for seed in range(seeds)]
        if shown[0].kind != "choice":   # a letter-answered level is held to balanced letters instead
            report.distinct[level] = len({format_answer(variant) for variant in shown})
        report.steps[level] = round(sum(len(variant.solution) for variant in shown) / len(shown), 2)
        if level in MAX_COMPUTED:
            report.computed[level] = max(computed_numbers(variant) for variant in shown)
        for variant in shown:
            drawn += 1
            report.degenerate += degenerate(variant)
            if variant.kind == "choice":
                letters.update(variant.answer)
                chosen, options = chosen + 1, max(options, len(variant.options))
            for rule, (hit, odds) in play(variant).items():
                right[rule] += hit
                chance.setdefault(rule, []).append(odds)
    report.degenerate = round(report.degenerate / drawn, 3)
    report.rules = {rule: round(right[rule] / len(odds), 3) for rule, odds in chance.items()}
    report.chance = {rule: round(sum(odds) / len(odds), 3) for rule, odds in chance.items()}
    if chosen:
        report.letters = {chr(65 + i): round(letters[i] / chosen, 3) for i in range(options)}
    return report


# --- the knowledge-free rules -----------------------------------------------------------------


def rule_names() -> dict[str, str]:
    """Each rule's name in the interface language (built at call time: `_()` follows `--lang`)."""
    from studytool.i18n import _

    return {"first option": _("first option"), "longest option": _("longest option"),
            "most similar option": _("option most like the others"), "shown order": _("the shown order"),
            "first shape in the prompt": _("first shape in the prompt"),
            "less likely first word": _("the less likely first word"),
            "padding row alone": _("the padding row alone")}


def play(variant) -> dict[str, tuple[bool, float]]:
    """Each rule that applies to `variant`: (whether its guess is right, its chance)."""
    played: dict[str, tuple[bool, float]] = {}
    if variant.kind == "choice" and len(variant.answer) == 1 and len(variant.options) >= 3:
        odds, options = 1 / len(variant.options), variant.options
        widths = [display_width(option) for option in options]
        played["first option"] = (0 in variant.answer, odds)
        played["longest option"] = (widths.index(max(widths)) in variant.answer, odds)
        played["most similar option"] = (_most_similar(options) in variant.answer, odds)
    if variant.kind == "sequence":
        n, k = len(variant.options), len(variant.answer)
        ways = 1.0
        for i in range(k):
            ways *= n - i
        played["shown order"] = (tuple(variant.answer) == tuple(range(k)), 1 / ways)
    if variant.kind == "shape":
        first = _first_shape(variant.prompt)
        played["first shape in the prompt"] = (first == tuple(variant.answer), 0.0)
    rule = RULES.get(variant.generator)
    if rule is not None and (played_rule := rule(variant)) is not None:
        name, hit, odds = played_rule
        played[name] = (hit, odds)
    return played


def bigrams(text: str) -> set[str]:
    """The text's character pairs, case and punctuation aside: what two options (or questions) share."""
    text = re.sub(r"[\s\W_]+", "", text.lower())
    return {text[i:i + 2] for i in range(len(text) - 1)}


def display_width(text: str) -> int:
    """Columns on a terminal: Chinese characters take two, which is what a learner sees as "longer"."""
    import unicodedata

    return sum(2 if unicodedata.east_asian_width(char) in ("W", "F") else 1 for char in text)


def _most_similar(options: Sequence[str]) -> int:
    """The option most like the others (summed bigram Jaccard): a key written with its mirror scores high."""
    grams = [bigrams(option) for option in options]

    def likeness(i: int) -> float:
        return sum(len(grams[i] & g) / max(1, len(grams[i] | g)) for j, g in enumerate(grams) if j != i)

    return max(range(len(options)), key=likeness)


_SHAPE = re.compile(r"\[(\d+(?:\s*,\s*\d+)+)\]")


def _first_shape(prompt: str) -> tuple[int, ...] | None:
    match = _SHAPE.search(prompt)
    return tuple(int(v) for v in match.group(1).split(",")) if match else None


def _beam(variant) -> tuple[str, bool, float] | None:
    """Beam search's shortcut: the answer follows the less likely first word (then its likelier next word)."""
    p = variant.params
    if p["ask"] == "runner_up":
        return None   # the rule names the best sequence; the runner-up is another question
    first = {"A": p["p_first"], "B": 1 - p["p_first"]}
    less = min(first, key=first.get)
    after = p["x_after_a"] if less == "A" else p["x_after_b"]
    word, likelier = ("X", after) if after >= 0.5 else ("Y", 1 - after)
    if variant.kind == "choice":
        return "less likely first word", variant.options.index(f"{less} {word}") in variant.answer, 0.5
    return "less likely first word", abs(first[less] * likelier - variant.answer) < 1e-9, 0.5


def _padding_row(variant) -> tuple[str, bool, float] | None:
    """A causal row with padding: answering the padding mask's row alone, as if the causal mask never mattered."""
    p = variant.params
    if p.get("ask") != "visible" or not p.get("pad"):
        return None
    real = p["n"] - p["pad"]
    return "padding row alone", tuple(variant.answer) == tuple(float(j < real) for j in range(p["n"])), 0.5


# generator -> its shortcut: (rule name, right?, chance) for a variant, or None where it does not apply
RULES: dict[str, Callable[[Any], tuple[str, bool, float] | None]] = {
    "beam_search": _beam,
    "causal_mask": _padding_row,
}


# --- the key and the work ------------------------------------------------------------------


def _entries(variant) -> list[float]:
    answer = variant.answer
    if variant.kind == "scalar":
        return [float(answer)]
    if variant.kind == "vector":
        return [float(v) for v in answer]
    if variant.kind == "matrix":
        return [float(v) for row in answer for v in row]
    return []


def degenerate(variant) -> bool:
    """A key that asks nothing: a computed number that shows as 0 or 1 (a near-one-hot probability), or a
    count of 0 or 1."""
    from studytool.problems.answers import format_number

    if variant.kind not in ("scalar", "vector") and variant.kind != "matrix":
        return False
    if variant.tolerance is None:
        return variant.kind == "scalar" and float(variant.answer) in (0.0, 1.0)
    return any(not float(v).is_integer() and abs(float(format_number(v, variant.tolerance))) in (0.0, 1.0)
               for v in _entries(variant))


def computed_numbers(variant) -> int:
    """Numbers the learner computes and types: the non-integer entries of a numeric key."""
    if variant.tolerance is None:
        return 0   # integers and 0/1 mask rows are counted, not computed to decimals
    return sum(not float(v).is_integer() for v in _entries(variant))


def audit_cards(cards: Sequence[Card], seeds: int) -> list[CardFairness]:
    """Every generated card of `cards`, measured."""
    return [measure(card, seeds) for card in cards if card.kind == "generated"]
