"""`studytool optimize`: fit the FSRS weights to the learner's own review log, with Anki's optimizer.

The fitting is the Rust FSRS that Anki itself runs (`fsrs-rs-python`), fed
the way Anki feeds it (rslib's `reviews_for_fsrs`): per card, the answers
that moved its schedule since it was last forgotten, starting from its first
showing as a new card, with elapsed time in whole days counted at the day
start; one training item per answer after the first whose elapsed days are
above zero, holding every answer up to it.

Below the optimizer's minimum (8 items after its own outlier filter) it
silently returns its defaults; here that is refused in one line instead.
Between 8 and 64 items it fits only the four initial stabilities, and the
result says so; under the 1000 reviews Anki advises, it warns that the fit is
not yet trustworthy. As in Anki, fitted weights that do not predict the log better
than the ones in use are not stored.

Checked against Anki 26.9's own "Optimize" (tests/study/anki_fit_oracle.py):
the same items and the same log loss for any weights. Its optimizer is a
newer fsrs-rs than the one fsrs-rs-python wraps, so its fit can come out a
little better (about 1% in log loss on the test's log).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from studytool.errors import StudytoolError
from studytool.i18n import _
from studytool.study import settings
from studytool.study.cards import SCHEDULING_MODES
from studytool.study.days import Days
from studytool.study.records import rating_of
from studytool.study.store import Store, parse_time

MIN_ITEMS = 8     # fsrs-rs: fewer training items and it returns the default weights
FULL_ITEMS = 64   # fsrs-rs: fewer and only the initial stabilities (w0-w3) are fitted
ADVISED_REVIEWS = 1000   # Anki's advice: optimize "once you've done 1000+ reviews"; fewer, and the fit is shaky


@dataclass(frozen=True)
class Fit:
    reviews: int                       # answers in the histories trained on
    items: int                         # training items (after the optimizer's outlier filter)
    parameters: tuple[float, ...]      # the fitted weights, to 4 places as stored
    current: tuple[float, ...]         # the weights in use before
    log_loss_default: float
    log_loss_current: float
    log_loss_optimized: float
    rmse_default: float                # the optimizer's RMSE over recall bins ("RMSE (bins)" in Anki)
    rmse_optimized: float
    stored: bool

    @property
    def partial(self) -> bool:
        return self.items < FULL_ITEMS

    @property
    def few(self) -> bool:
        return self.reviews < ADVISED_REVIEWS

    @property
    def better(self) -> bool:
        return self.log_loss_optimized < self.log_loss_current

    def to_json(self) -> dict[str, Any]:
        return {
            "reviews": self.reviews, "items": self.items, "parameters": list(self.parameters),
            "previous_parameters": list(self.current), "log_loss_default": self.log_loss_default,
            "log_loss_current": self.log_loss_current, "log_loss_optimized": self.log_loss_optimized,
            "rmse_default": self.rmse_default, "rmse_optimized": self.rmse_optimized,
            "initial_stability_only": self.partial, "better": self.better, "stored": self.stored,
            "few_reviews": self.few, "reviews_advised": ADVISED_REVIEWS,
        }


def histories(store: Store, days: Days) -> list[list[tuple[int, int, str]]]:
    """Per card, its (rating, elapsed days, time) answers since it was last forgotten.

    A card whose first answer here is not its first showing as new is left out, as Anki trains without it.
    """
    from itertools import groupby

    modes = ", ".join("?" * len(SCHEDULING_MODES))
    rows = store.con.execute(
        "SELECT r.card, r.time, r.rating, r.prior IS NULL AS new FROM reviews r"
        " LEFT JOIN card_flags f ON f.key = r.card"
        f" WHERE r.mode IN ({modes}) AND (f.reset_at IS NULL OR r.time > f.reset_at)"
        " ORDER BY r.card, r.time, r.id", SCHEDULING_MODES)
    found = []
    for _card, answers in groupby(rows, key=lambda row: row[0]):
        answers = list(answers)
        if not answers[0]["new"]:
            continue
        numbers = [days.number(parse_time(row["time"])) for row in answers]
        found.append([(rating_of(row["rating"]), day - before, row["time"])   # fsrs-rs panics on another
                      for row, day, before in zip(answers, numbers, numbers[:1] + numbers)])
    return found


def training_items(history_list: Sequence[Sequence[tuple[int, int, str]]]) -> list[Any]:
    """One `FSRSItem` per answer after the first that came at least a day after the one before, oldest first.

    The order matters: the optimizer weighs items by recency, 0.25 + 0.75·(i/(n-1))³ for the i-th of n
    (Anki sorts them by time too).
    """
    from fsrs_rs_python import FSRSItem, FSRSReview

    ends = []
    for history in history_list:
        reviews = [FSRSReview(rating, delta) for rating, delta, _time in history]
        ends.extend((history[end][2], reviews[: end + 1]) for end in range(1, len(reviews)) if history[end][1] > 0)
    ends.sort(key=lambda end: end[0])
    return [FSRSItem(reviews) for _time, reviews in ends]


def usable_items(items: list[Any]) -> int:
    """How many items the optimizer keeps after its own outlier filter (`prepare_training_data`)."""
    from fsrs_rs_python import filter_outlier

    first = [item for item in items if item.long_term_review_cnt() == 1]
    rest = [item for item in items if item.long_term_review_cnt() != 1]
    first, rest = filter_outlier(first, rest)
    return len(first) + len(rest)


def fit(store: Store, *, save: bool) -> Fit:
    """Fit the weights to the whole log; with `save`, store them in `config` when they predict it better."""
    import fsrs_rs_python as rs

    days = Days(settings.get(store, "day_start"))
    history_list = histories(store, days)
    items = training_items(history_list)
    usable = usable_items(items)
    if usable < MIN_ITEMS:
        raise StudytoolError(_(
            "not enough reviews to optimize: {usable} usable of the {needed} FSRS needs ({items} came a day or"
            " more after the card's last review; FSRS sets aside those whose first rating and gap too few cards"
            " share)").format(usable=usable, needed=MIN_ITEMS, items=len(items)))
    steps = len(settings.get(store, "relearning_steps"))   # Anki passes its preset's count too
    fitted = tuple(round(weight, 4) for weight in
                   rs.FSRS(rs.DEFAULT_PARAMETERS).compute_parameters(items, num_relearning_steps=steps))
    current = tuple(settings.get(store, "parameters"))
    default, now, optimized = (rs.FSRS(list(weights)).evaluate(items)
                               for weights in (rs.DEFAULT_PARAMETERS, current, fitted))
    result = Fit(
        reviews=sum(len(history) for history in history_list), items=usable, parameters=fitted, current=current,
        log_loss_default=default.log_loss, log_loss_current=now.log_loss, log_loss_optimized=optimized.log_loss,
        rmse_default=default.rmse_bins, rmse_optimized=optimized.rmse_bins, stored=False,
    )
    if save and result.better:
        settings.put(store, "parameters", settings.format_parameters(fitted))
        return Fit(**{**result.__dict__, "stored": True})
    return result
