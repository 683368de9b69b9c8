"""Issue 12's "done when", measured the way the issue measured it: 30 seeds of the worksheet selection
(`plan(..., count=1000)`, the same cards and variants as `quiz --seed` and `worksheet --seed`).

    .venv/bin/python benchmarks/items.py [--seeds 30]

Prints the right letter's share over single-answer choice showings, the true share of true/false showings,
choice cards (3+ options) whose right answer never moved, cards whose format line's example is the answer,
the fixed numeric cards, and the blind strategies that need no knowledge: "pick the longest option" (single
answer), "every option but the shortest" (multi-select), "true exactly when the statement has a negation",
"true when the statement is longer than the median one",
and "copy a number shown in the prompt" (cards where some shown number is the answer in > 5% of showings). `studytool decks audit` checks the same rules card by card.

    .venv/bin/python benchmarks/items.py --fair [--seeds 100]

Issue 23's rates instead (`studytool.decks.fairness`, each generated card over `--seeds` draws at each level):
the knowledge-free rules that beat an item, distinct answers, degenerate keys, worked steps per level, computed
numbers to type, and how often order cards show their items in the right order.
"""

from __future__ import annotations

import argparse
import statistics
from collections import Counter

from studytool.config import Settings
from studytool.decks.audit import (MAX_FIXED_NUMERIC, MAX_LETTER_SHARE, MAX_LONGEST, MAX_NEGATION_CUE,
                                   MAX_PROMPT_LEAK, TRUE_SHARE, copied_numbers, display_width, example_is_answer,
                                   negation_cue_right, right_is_longest)
from studytool.decks.loader import load_decks
from studytool.decks.select import plan


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=30)
    parser.add_argument("--fair", action="store_true", help="issue 23's rates (default --seeds 100)")
    args = parser.parse_args()
    decks = load_decks(Settings())
    if args.fair:
        return fair(decks, args.seeds if args.seeds != 30 else 100)
    letters, true_false, positions, leaking = Counter(), Counter(), {}, set()
    blind, copies, statements = Counter(), Counter(), []
    for seed in range(args.seeds):
        for posing in plan(decks, count=1000, seed=seed):
            card, variant = posing.card, posing.card.pose(posing.seed)
            if card.kind == "truefalse":
                true_false[variant.answer == frozenset({0})] += 1
                blind[negation_cue_right(variant)] += 1
                statements.append((display_width(variant.prompt), variant.answer == frozenset({0})))
            elif variant.kind == "choice" and len(variant.answer) == 1:
                letters[min(variant.answer)] += 1
                blind["longest", right_is_longest(variant)] += 1
            elif variant.kind == "choice":
                blind["multi", variant.answer == _all_but_shortest(variant.options)] += 1
                blind["all_but_one", len(variant.answer) == len(variant.options) - 1] += 1
            copies[card.key, "shown"] += 1
            copies.update((card.key, position) for position in copied_numbers(variant))
            if variant.kind == "choice" and len(variant.options) >= 3:
                positions.setdefault(card.key, set()).add(variant.answer)
            if example_is_answer(variant):
                leaking.add(card.key)
    shown = sum(letters.values())
    shares = "  ".join(f"{chr(65 + i)} {n / shown:.1%}" for i, n in sorted(letters.items()))
    print(f"single-answer choice showings: {shown:,}; right letter: {shares}")
    print(f"true/false showings: {sum(true_false.values()):,}; true in {true_false[True] / sum(true_false.values()):.1%}")
    print(f"choice cards (3+ options) whose right answer never moved: {sorted(k for k, v in positions.items() if len(v) == 1)}")
    print(f"format lines whose example is the answer: {sorted(leaking)}")
    fixed = [c.key for d in decks for c in d.cards if c.kind in ("number", "vector", "shape")]
    print(f"fixed numeric cards: {len(fixed)}")
    for label, name in (("pick the longest option (single answer)", "longest"),
                        ("every option but the shortest (multi-select)", "multi"),
                        ("multi-select showings with every option but one right", "all_but_one"),
                        ("true exactly when the statement has a negation", "cue")):
        right, total = blind[name, True], blind[name, True] + blind[name, False]
        print(f"{label}: {right:,} of {total:,} = {right / total:.1%}" if total else f"{label}: -")
    median = statistics.median(width for width, _ in statements)
    longer = sum((width > median) == true for width, true in statements)
    print(f"true when the statement is wider than the median ({median:g} columns): {longer:,} of {len(statements):,} "
          f"= {longer / len(statements):.1%}")
    print(f"cards where copying a shown number (one place on screen) is right in > {MAX_PROMPT_LEAK:.0%} of "
          f"showings: {_copied(copies)}")
    print(f"target: no letter > {MAX_LETTER_SHARE:.0%}, true {TRUE_SHARE[0]:.0%}-{TRUE_SHARE[1]:.0%}, every choice "
          f"card moves, no format line shows an answer, at most {MAX_FIXED_NUMERIC} fixed numeric cards, "
          f"longest option <= {MAX_LONGEST:.0%}, negation cue <= {MAX_NEGATION_CUE:.0%}, no shown number copied")


def fair(decks, seeds: int) -> None:
    from studytool.decks.fairness import MAX_COMPUTED, audit_cards

    cards = [card for deck in decks for card in deck.cards]
    reports = audit_cards(cards, seeds)
    print(f"{len(reports)} generated cards, {seeds} seeds at each of levels 1-3")
    beaten = [(r.card, rule, r.rules[rule], r.chance[rule]) for r in reports for rule in r.beaten_by()]
    print(f"cards a knowledge-free rule beats (> chance + 10 points): {len({b[0] for b in beaten})}")
    for card, rule, share, chance in beaten:
        print(f"  {card}: {rule} {share:.0%} (chance {chance:.0%})")
    worst: dict[str, float] = {}
    for r in reports:
        for rule, share in r.rules.items():
            worst[rule] = max(worst.get(rule, 0.0), share - r.chance[rule])
    print("worst margin over chance per rule: " + ", ".join(f"{rule} {m:+.0%}" for rule, m in sorted(worst.items())))
    few = [(r.card, level, n) for r in reports for level, n in r.distinct.items() if n < 0.2 * seeds]
    print(f"(card, level)s with < 20 distinct answers per 100 seeds: {len(few)} of {sum(map(len, (r.distinct for r in reports)))}"
          f" ({len({f[0] for f in few})} cards; {sum(bool(r.small) for r in reports)} declare few by nature)")
    for card, level, n in few:
        print(f"  {card} level {level}: {n}")
    unbalanced = [(r.card, max(r.letters.values())) for r in reports if r.letters
                  and max(r.letters.values()) > 1 / len(r.letters) + 0.1]
    print(f"letter-answered cards with a letter above chance + 10: {unbalanced}")
    degenerate = [(r.card, r.degenerate) for r in reports if r.degenerate > 0.05]
    print(f"cards with a degenerate key in > 5% of draws: {len(degenerate)}: "
          + ", ".join(f"{card} {share:.0%}" for card, share in degenerate))
    flat = [r.card for r in reports if not r.steps[3] > r.steps[1]]
    print(f"cards whose level 3 takes no more worked steps than level 1: {len(flat)} of {len(reports)}: {', '.join(flat)}")
    for level, most in MAX_COMPUTED.items():
        over = [(r.card, r.computed[level]) for r in reports if r.computed[level] > most]
        print(f"level {level}: cards with > {most} computed numbers to type: {len(over)}: "
              + ", ".join(f"{card} {n}" for card, n in over))
    orders = [card for card in cards if card.kind == "order"]
    in_order = sum(card.pose(seed).answer == tuple(range(len(card.body["items"])))
                   for card in orders for seed in range(seeds))
    print(f"order cards shown in the right order: {in_order} of {len(orders) * seeds}")


def _copied(copies: Counter) -> str:
    """Each such card with its best place's count over its showings: a card is shown about once per seed
    here, so one lucky coincidence can cross 5% (`decks audit` draws 100 per card)."""
    worst: dict[str, int] = {}
    for (key, position), n in copies.items():
        if position != "shown" and n > MAX_PROMPT_LEAK * copies[key, "shown"]:
            worst[key] = max(n, worst.get(key, 0))
    return ", ".join(f"{key} {n}/{copies[key, 'shown']}" for key, n in sorted(worst.items())) or "none"


def _all_but_shortest(options) -> frozenset[int]:
    widths = [display_width(option) for option in options]
    return frozenset(range(len(options))) - {widths.index(min(widths))}


if __name__ == "__main__":
    main()
