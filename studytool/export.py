"""Export decks to Anki (`.apkg`, via genanki) and to CSV for spreadsheets.

Every card is posed as a `Variant` and written as plain text: the question
(with its options listed), the answer, the `why` and the worked solution.
A generated card becomes K fixed variants. Everything that identifies a note
is derived from deck and card ids, never drawn at random, so exporting again
gives the same notes and re-importing into Anki updates them instead of
adding duplicates.

An export never costs the learner a file: it is written beside the target
and moved into place whole (a kill or a full disk leaves the old file as it
was); the progress database and its `-wal`/`-shm` are refused as targets; and
an existing file is replaced only if it is an earlier export of the same kind,
or with `force`.
"""

from __future__ import annotations

import csv
import hashlib
import html
import io
import itertools
import os
import re
import sqlite3
import sys
import tempfile
import zipfile
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from studytool.config import now
from studytool.decks.model import Card, Deck
from studytool.errors import StudytoolError
from studytool.i18n import _
from studytool.problems.variant import Variant, option_label

if TYPE_CHECKING:
    from studytool.study.anki_schedule import Scheduling

CSV_COLUMNS = ("deck", "id", "kind", "topic", "tags", "source", "question", "answer", "why")

Progress = Callable[[int, int], None] | None  # called as progress(done, total) after each flashcard
MAX_VARIANTS = 100   # per generated card: a K of 10^11 would pose forever


@dataclass(frozen=True)
class Exported:
    decks: int
    notes: int  # notes (Anki) or rows (CSV)
    path: Path | None = None   # the file written; None for stdout


@dataclass(frozen=True)
class Flashcard:
    """One card posed once, as text: an Anki note or a CSV row."""

    card: Card
    index: int                  # variant index: 0 for fixed cards, 0..K-1 for generated ones
    question: str               # the prompt, options listed below it
    answer: str
    solution: tuple[str, ...]   # worked steps; empty for fixed cards


def stable_id(text: str, bits: int) -> int:
    """A non-negative int from the SHA-256 of `text`: the same on every machine and run."""
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "big") % (1 << bits)


def variant_seed(card: Card, index: int) -> int | None:
    """Variant 0 is the notes' own example (seed None); the others get seeds from deck/card id and index."""
    return None if index == 0 else stable_id(f"{card.key}#{index}", 32)


def select_decks(decks: Sequence[Deck], deck_ids: Iterable[str] = ()) -> list[Deck]:
    """The decks named (all when none are); an unknown id is a `StudytoolError`."""
    wanted = list(dict.fromkeys(deck_ids))
    known = {deck.deck for deck in decks}
    unknown = [deck_id for deck_id in wanted if deck_id not in known]
    if unknown:
        names = ", ".join(sorted(known))
        raise StudytoolError(_("unknown deck {deck!r}; decks: {decks}").format(deck=unknown[0], decks=names))
    return [deck for deck in decks if not wanted or deck.deck in wanted]


def in_folder(named: str | os.PathLike, default_name: str) -> Path:
    """OUT as named: one ending in a path separator (`exports/`) is a folder, and the file goes in it as
    `default_name`, as `cp` puts a file in a folder (a `Path` would drop the separator and write a file `exports`)."""
    text = os.fspath(named)
    return Path(text, default_name) if text.endswith(("/", os.sep)) else Path(text)


def check_folder(path: Path) -> None:
    """An output file's folder must already exist: a mistyped path is an error, never a new folder."""
    folder = Path(path).parent
    if not folder.is_dir():
        raise StudytoolError(_("folder {folder} does not exist").format(folder=folder))


def check_target(path: Path, protected: Iterable[Path], is_export: Callable[[Path], bool], force: bool) -> None:
    """Refuse `path` if it is a protected file (the progress database) or its `-wal`/`-shm`, or if it
    exists and is not an earlier export of this kind (`is_export`) unless `force`."""
    path = Path(path)
    check_folder(path)
    for database in protected:
        for guarded in (Path(database), Path(f"{database}-wal"), Path(f"{database}-shm"), Path(f"{database}-journal")):
            if _same_file(path, guarded):
                raise StudytoolError(_("{path} is the progress database (or its journal); export to another file").format(
                    path=path))
    if not os.path.lexists(path):
        return
    if not path.is_file():
        raise StudytoolError(_("{path} exists and is not a file; export to another path").format(path=path))
    if not force and not is_export(path):
        raise StudytoolError(_("{path} exists and is not an earlier export of this kind; "
                               "use --force to replace it").format(path=path))


def _same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:   # one of them does not exist: compare the paths they would be
        return os.path.realpath(a) == os.path.realpath(b)


def _selection(decks: Sequence[Deck], deck_ids: Iterable[str], variants: int) -> list[tuple[Deck, list[Flashcard]]]:
    """Each deck to export with its flashcards; checked and posed before any file is touched."""
    if not 1 <= variants <= MAX_VARIANTS:
        raise StudytoolError(_("--variants must be from 1 to {most}, not {variants}").format(
            most=MAX_VARIANTS, variants=variants))
    return [(deck, flashcards(deck, variants)) for deck in select_decks(decks, deck_ids)]


def question_text(variant: Variant) -> str:
    """The prompt, then the options as shown: `A. ...` for choices, `1. ...` for items to order."""
    return "\n".join([variant.prompt, *(f"{option_label(variant.kind, i)}. {o}" for i, o in enumerate(variant.options))])


def answer_text(variant: Variant) -> str:
    """The canonical answer: the right options with their letters for a choice, the item numbers
    and then the items in order for an ordering, the reference text for recall."""
    from studytool.problems.answers import format_answer

    if variant.kind == "recall":
        return str(variant.answer)
    if variant.kind == "choice":
        return "\n".join(f"{option_label('choice', i)}. {variant.options[i]}" for i in sorted(variant.answer))
    if variant.kind == "sequence":
        return "\n".join([format_answer(variant), *(f"{option_label('sequence', i)}. {variant.options[i]}"
                                                     for i in variant.answer)])
    return format_answer(variant)


RETRIES = 20   # seeds posed beyond K per card, to replace repeats; a card with fewer posings gives fewer


def flashcards(deck: Deck, variants: int) -> list[Flashcard]:
    """Every card of `deck` posed: `variants` different times for a generated card, once otherwise.

    A generator with few possible questions may have fewer than `variants`; it gets as many as it has.
    """
    from studytool.problems.distinct import distinct_variants

    found = []
    for card in deck.cards:
        seeds = (variant_seed(card, index) for index in itertools.count())
        k = variants if card.kind == "generated" else 1
        posed = distinct_variants(card, k, seeds, tries=k + RETRIES)
        for index, (_seed, variant) in enumerate(posed):
            found.append(Flashcard(card, index, question_text(variant), answer_text(variant), tuple(variant.solution)))
    return found


# --- CSV ---------------------------------------------------------------------------------------------------


STDOUT = Path("-")  # `export csv -` writes to standard output


def write_csv(
    decks: Sequence[Deck], path: Path, *, deck_ids: Iterable[str] = (), variants: int = 1, progress: Progress = None,
    force: bool = False, protected: Iterable[Path] = (),
) -> Exported:
    """Write one row per flashcard; UTF-8 with a BOM so Excel reads the Chinese. `path` `-` is stdout (no BOM).

    `protected`: files never to write over (the progress database); `force`: replace a file that is not an earlier CSV export.
    """
    selected = _selection(decks, deck_ids, variants)
    if Path(path) == STDOUT:
        return Exported(len(selected), _write_stdout(selected, progress))
    path = in_folder(path, "studytool.csv")
    check_target(path, protected, is_csv_export, force)
    rows = 0

    def write(stream) -> None:
        nonlocal rows
        text = io.TextIOWrapper(stream, encoding="utf-8-sig", newline="")
        rows = _write_rows(selected, text, progress)
        text.flush()
        text.detach()   # the stream stays open for write_atomic to sync and close

    _write_file(path, write)
    return Exported(len(selected), rows, path)


def _write_stdout(selected, progress: Progress) -> int:
    """The rows on stdout in UTF-8 whatever its encoding: a CSV is data, not text for the terminal."""
    sys.stdout.flush()
    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is None:   # a text-only stream (a test's StringIO) takes the text as it is
        return _write_rows(selected, sys.stdout, progress)
    text = io.TextIOWrapper(buffer, encoding="utf-8", newline="")
    rows = _write_rows(selected, text, progress)
    text.flush()
    text.detach()   # stdout stays usable for whoever writes after
    return rows


def is_csv_export(path: Path) -> bool:
    """Does the file start as our CSV exports do (the BOM and our header row)?"""
    from studytool.files import read_regular

    header = ("\ufeff" + ",".join(CSV_COLUMNS)).encode("utf-8")
    try:
        return read_regular(path, len(header) + 2).startswith(header)
    except OSError:
        return False


def _write_file(path: Path, write: Callable) -> None:
    """`files.write_atomic`, with a failure as one line."""
    from studytool.files import write_atomic

    try:
        write_atomic(Path(path), write)
    except OSError as error:
        raise StudytoolError(_("cannot write {path}: {reason}").format(path=path, reason=error.strerror or error)) from None


def _write_rows(selected: list[tuple[Deck, list[Flashcard]]], out, progress: Progress) -> int:
    """The header and one row per flashcard on the text stream `out`; returns the number of rows."""
    total = sum(len(cards) for _, cards in selected)
    writer = csv.writer(out)
    writer.writerow(CSV_COLUMNS)
    rows = 0
    for fc in (fc for _, cards in selected for fc in cards):
        card = fc.card
        writer.writerow([_cell(text) for text in (card.deck, card.id, card.kind, card.topic, " ".join(card.tags),
                                                  card.source, fc.question, fc.answer, card.why or "")])
        rows += 1
        if progress is not None:
            progress(rows, total)
    return rows


def _cell(text: str) -> str:
    """A spreadsheet must not run a cell as a formula: text that starts like one (a deck of one's own
    could hold `=HYPERLINK(...)`) gets a leading apostrophe; plain numbers such as -0.4472 stay as they are."""
    if text[:1] in ("=", "+", "-", "@", "\t", "\r") and not _NUMBER.fullmatch(text):
        return "'" + text
    return text


_NUMBER = re.compile(r"[+-]?\d+(?:[.,]\d+)*(?:[eE][+-]?\d+)?")


# --- Anki --------------------------------------------------------------------------------------------------

MODEL_FIELDS = ("Question", "Answer", "Why", "Solution", "Source", "Key")
CSS = """\
.card { font-family: sans-serif; font-size: 20px; text-align: left; color: black; background-color: white; }
.answer { font-weight: bold; }
.why, .solution { margin-top: 1em; }
.label { color: #666; font-size: 0.8em; }
.source { margin-top: 1.5em; color: #888; font-size: 0.7em; }
"""
BACK = """\
{{FrontSide}}<hr id="answer">
<div class="answer">{{Answer}}</div>
{{#Why}}<div class="why"><span class="label">为什么</span><br>{{Why}}</div>{{/Why}}
{{#Solution}}<div class="solution"><span class="label">解答</span>{{Solution}}</div>{{/Solution}}
<div class="source">{{Source}} · {{Key}}</div>"""


def _html(text: str) -> str:
    return html.escape(text).replace("\n", "<br>")


def anki_tag(text: str) -> str:
    """Anki separates tags with spaces, so a tag must not contain any."""
    return "_".join(text.split())


def anki_model():
    """The one note type; its id is fixed so re-imports match the notes already in Anki."""
    import genanki

    return genanki.Model(
        stable_id("studytool/model/v1", 30) + (1 << 30),
        "studytool",
        fields=[{"name": name} for name in MODEL_FIELDS],
        templates=[{"name": "Card", "qfmt": '<div class="question">{{Question}}</div>', "afmt": BACK}],
        css=CSS,
    )


def anki_note(model, fc: Flashcard):
    import genanki

    card = fc.card
    solution = "<ol>" + "".join(f"<li>{_html(step)}</li>" for step in fc.solution) + "</ol>" if fc.solution else ""
    key = card.key if card.kind != "generated" else f"{card.key} #{fc.index + 1}"
    return genanki.Note(
        model=model,
        fields=[_html(fc.question), _html(fc.answer), _html(card.why or ""), solution, _html(card.source), key],
        tags=[anki_tag(tag) for tag in card.tags] + [anki_tag(f"topic::{card.topic}")],
        guid=genanki.guid_for(card.deck, card.id, fc.index),
    )


def anki_deck(deck: Deck):
    """One Anki deck per studytool deck, under a `studytool` parent; the id comes from the deck id."""
    import genanki

    return genanki.Deck(stable_id(f"studytool/deck/{deck.deck}", 30) + (1 << 30), f"studytool::{deck.title}")


def write_anki(
    decks: Sequence[Deck], path: Path, *, deck_ids: Iterable[str] = (), variants: int = 3, progress: Progress = None,
    force: bool = False, protected: Iterable[Path] = (), scheduling: Scheduling | None = None,
) -> Exported:
    """Write an Anki package: one Anki deck per deck, one note per flashcard.

    `protected`: files never to write over (the progress database); `force`: replace a file that is not an earlier
    export; `scheduling`: the learner's progress to carry (`anki_schedule.py`): each card's schedule, flags and
    review log, a generated card as the one variant last shown.
    """
    import genanki

    if scheduling is None:
        selected = _selection(decks, deck_ids, variants)
    else:
        selected = [(deck, [_last_shown(card, scheduling) for card in deck.cards])
                    for deck in select_decks(decks, deck_ids)]
    path = in_folder(path, "studytool.apkg")
    check_target(path, protected, is_anki_export, force)
    total = sum(len(cards) for _, cards in selected)
    notes = 0
    model = anki_model()
    package = genanki.Package([])
    for deck, cards in selected:
        anki = anki_deck(deck)
        for fc in cards:
            anki.add_note(anki_note(model, fc))
            notes += 1
            if progress is not None:
                progress(notes, total)
        package.decks.append(anki)
    _write_package(package, path, scheduling)
    return Exported(len(selected), notes, path)


def _last_shown(card: Card, scheduling: Scheduling) -> Flashcard:
    """A card posed once: a generated one as the variant last answered (its example if never answered)."""
    shown = scheduling.cards[card.key].last_shown if card.key in scheduling.cards else None
    variant = card.pose(*shown) if card.kind == "generated" and shown else card.pose(variant_seed(card, 0))
    return Flashcard(card, 0, question_text(variant), answer_text(variant), tuple(variant.solution))


def _write_package(package, path: Path, scheduling: Scheduling | None = None) -> None:
    """`genanki.Package.write_to_file`, minus the temporary collection it leaves behind in /tmp.

    The timestamp is the current time on purpose: Anki only updates an existing
    note from an import that is newer than it.
    """
    tmp = tempfile.gettempdir()
    try:
        with tempfile.TemporaryDirectory(dir=tmp) as folder:
            collection = Path(folder) / "collection.anki2"
            timestamp = now().timestamp()
            conn = sqlite3.connect(collection)
            # Note and card ids as genanki makes them: consecutive from the time in milliseconds.
            package.write_to_db(conn.cursor(), timestamp, itertools.count(int(timestamp * 1000)))
            if scheduling is not None:
                from studytool.study.anki_schedule import schedule_collection

                schedule_collection(conn, scheduling)
            conn.commit()
            conn.close()

            def write(stream) -> None:
                with zipfile.ZipFile(stream, "w") as out:
                    out.write(collection, "collection.anki2")
                    out.writestr("media", "{}")

            _write_file(path, write)
    except OSError as error:   # the temporary collection
        raise StudytoolError(_("cannot write {path}: {reason}").format(path=path, reason=error.strerror or error)) from None
    except sqlite3.Error as error:   # SQLite building the collection (a full disk): not the progress database
        raise StudytoolError(_("cannot write {path}: the Anki collection built for it in {folder} failed ({reason})")
                             .format(path=path, folder=tmp, reason=error)) from None


MAX_COLLECTION_BYTES = 512 * 1024 * 1024   # what is read of a zip entry to see if it is ours


def is_anki_export(path: Path) -> bool:
    """Is the file a package that holds our note type (an earlier export, not the learner's own Anki backup)?"""
    import json

    try:
        with zipfile.ZipFile(path) as package, tempfile.TemporaryDirectory() as tmp:
            info = package.getinfo("collection.anki2")
            if info.file_size > MAX_COLLECTION_BYTES:
                return False
            collection = Path(package.extract(info, tmp))
            con = sqlite3.connect(f"{collection.as_uri()}?mode=ro", uri=True)
            try:
                models = json.loads(con.execute("SELECT models FROM col").fetchone()[0])
            finally:
                con.close()
    except (OSError, KeyError, ValueError, TypeError, zipfile.BadZipFile, sqlite3.Error):
        return False
    return str(anki_model().model_id) in models
