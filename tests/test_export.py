"""Export to Anki and CSV: a valid package, stable notes across exports, everything a learner needs on the back."""

import csv
import io
import os
import sqlite3
import zipfile
from dataclasses import replace
from pathlib import Path

import pytest
from typer.testing import CliRunner

from studytool.cli import app
from studytool.decks.loader import load_deck_file
from studytool.errors import StudytoolError
from studytool.export import write_anki, write_csv

DECK = """\
deck: demo-export
title: 导出测试
source: 测试讲义
cards:
  - id: ln-direction
    kind: recall
    topic: layernorm
    tags: [interview]
    source: 讲义 p19
    q: LayerNorm 在哪个方向上求均值和方差？
    a: 在单个 token 的特征维上 <K 个数>。
  - id: norm-pick
    kind: choice
    topic: bn-vs-ln
    tags: [self-test, mistake]
    source: 讲义 p20
    why: Transformer 里序列长度不一，所以用 LayerNorm。
    q: Transformer 的 Encoder 用哪种归一化？
    options: [BatchNorm, LayerNorm, GroupNorm]
    answer: B
  - id: pe-learned
    kind: truefalse
    topic: positional-encoding
    tags: [fact]
    source: 讲义 p5
    statement: 原始论文的位置编码是学出来的参数。
    answer: false
    opposite: 原始论文的位置编码是固定的正弦/余弦函数，不是学出来的参数。
    why: 原始论文用固定的正弦/余弦函数。
  - id: block-order
    kind: order
    topic: encoder-block
    tags: [self-test]
    source: 讲义 p16
    q: 把 Encoder block 的步骤排好顺序。
    items: [自注意力, 残差相加, LayerNorm, 前馈网络]
  - id: ln-vector
    kind: generated
    generator: layer_norm
    topic: layernorm
    tags: [self-test, example]
    source: 讲义 p19
    example: {x: [2, 4, 6, 8]}
"""
FIXED, GENERATED = 4, 1


@pytest.fixture
def deck_file(tmp_path) -> Path:
    path = tmp_path / "demo.yaml"
    path.write_text(DECK, encoding="utf-8")
    return path


@pytest.fixture
def decks(deck_file):
    return [load_deck_file(deck_file)]


def read_collection(apkg: Path, tmp_path: Path) -> sqlite3.Connection:
    """An .apkg is a zip holding an SQLite collection; open that collection."""
    with zipfile.ZipFile(apkg) as package:
        assert "collection.anki2" in package.namelist()
        db = tmp_path / f"{apkg.stem}.anki2"
        db.write_bytes(package.read("collection.anki2"))
    return sqlite3.connect(db)


def notes_by_guid(conn: sqlite3.Connection) -> dict[str, tuple[int, str, list[str]]]:
    """guid -> (note type id, tags, fields)."""
    return {guid: (mid, tags, flds.split("\x1f")) for guid, mid, tags, flds in
            conn.execute("SELECT guid, mid, tags, flds FROM notes")}


def test_apkg_holds_one_note_and_one_card_per_flashcard(decks, tmp_path):
    out = tmp_path / "out.apkg"
    exported = write_anki(decks, out, variants=3)
    conn = read_collection(out, tmp_path)
    notes = conn.execute("SELECT count(*) FROM notes").fetchone()[0]
    cards = conn.execute("SELECT count(*) FROM cards").fetchone()[0]
    assert notes == cards == FIXED + 3 * GENERATED == exported.notes
    assert exported.decks == 1


def test_each_studytool_deck_is_one_anki_deck(decks, tmp_path):
    import json

    second = load_deck_file(_write(tmp_path / "second.yaml", DECK.replace("demo-export", "demo-two")))
    out = tmp_path / "two.apkg"
    write_anki([*decks, second], out, variants=2)
    conn = read_collection(out, tmp_path)
    names = {d["name"] for d in json.loads(conn.execute("SELECT decks FROM col").fetchone()[0]).values()}
    assert {"studytool::导出测试"} <= names
    card_decks = {did for (did,) in conn.execute("SELECT DISTINCT did FROM cards")}
    assert len(card_decks) == 2


def test_two_exports_give_the_same_notes(decks, tmp_path):
    """Same GUIDs, same fields, same note type: re-importing into Anki updates instead of duplicating."""
    write_anki(decks, tmp_path / "a.apkg")
    write_anki(decks, tmp_path / "b.apkg")
    a = notes_by_guid(read_collection(tmp_path / "a.apkg", tmp_path))
    b = notes_by_guid(read_collection(tmp_path / "b.apkg", tmp_path))
    assert a == b
    assert len(a) == FIXED + 3 * GENERATED


def test_guids_do_not_depend_on_card_text_or_other_decks(decks, deck_file, tmp_path):
    write_anki(decks, tmp_path / "a.apkg")
    edited = load_deck_file(_write(tmp_path / "edited.yaml", DECK.replace("求均值和方差", "求统计量")))
    write_anki([edited], tmp_path / "b.apkg")
    a = notes_by_guid(read_collection(tmp_path / "a.apkg", tmp_path))
    b = notes_by_guid(read_collection(tmp_path / "b.apkg", tmp_path))
    assert a.keys() == b.keys()
    assert a != b  # the edited question is there, under the same GUID


def test_generated_card_becomes_k_different_fixed_variants(decks, tmp_path):
    write_anki(decks, tmp_path / "k.apkg", variants=4)
    notes = notes_by_guid(read_collection(tmp_path / "k.apkg", tmp_path)).values()
    generated = [fields for _, _, fields in notes if fields[5].startswith("demo-export/ln-vector")]
    assert len(generated) == 4
    assert len({fields[0] for fields in generated}) == 4  # four different questions
    # The first variant poses the notes' own numbers: LayerNorm of [2, 4, 6, 8].
    assert any("2" in f[0] and "4" in f[0] and "6" in f[0] and "8" in f[0] for f in generated)


def test_back_carries_answer_why_solution_and_source(decks, tmp_path):
    write_anki(decks, tmp_path / "b.apkg", variants=1)
    notes = {f[5].split(" ")[0]: (tags, f) for _, tags, f in
             notes_by_guid(read_collection(tmp_path / "b.apkg", tmp_path)).values()}
    question, answer, why, solution, source, _ = notes["demo-export/norm-pick"][1]
    assert all(f". {option}" in question for option in ("BatchNorm", "LayerNorm", "GroupNorm"))   # shuffled
    assert "LayerNorm" in answer and "BatchNorm" not in answer
    assert "序列长度不一" in why
    assert source == "讲义 p20"
    recall = notes["demo-export/ln-direction"][1]
    assert "&lt;K 个数&gt;" in recall[1]  # card text is escaped, not read as HTML
    generated = notes["demo-export/ln-vector"][1]
    assert generated[3].startswith("<ol><li>")  # the worked solution, step by step
    # LayerNorm of [2, 4, 6, 8] (biased variance, eps 1e-5): [-1.3416, -0.4472, 0.4472, 1.3416]
    assert "1.34" in generated[1] and "0.447" in generated[1]
    order_question = notes["demo-export/block-order"][1][0]
    assert all(item in order_question for item in ["自注意力", "残差相加", "LayerNorm", "前馈网络"])


def test_tags_keep_card_tags_and_topic_without_spaces(decks, tmp_path):
    write_anki(decks, tmp_path / "t.apkg", variants=1)
    tags = {f[5]: t.split() for _, t, f in notes_by_guid(read_collection(tmp_path / "t.apkg", tmp_path)).values()}
    assert set(tags["demo-export/norm-pick"]) == {"self-test", "mistake", "topic::bn-vs-ln"}
    assert set(tags["demo-export/pe-learned"]) == {"fact", "topic::positional-encoding"}


def test_csv_is_utf8_with_bom_and_one_row_per_card(decks, tmp_path):
    out = tmp_path / "cards.csv"
    write_csv(decks, out)
    raw = out.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf")  # Excel needs the BOM to read UTF-8 Chinese
    rows = list(csv.DictReader(io.StringIO(raw.decode("utf-8-sig"))))
    assert list(rows[0]) == ["deck", "id", "kind", "topic", "tags", "source", "question", "answer", "why"]
    assert len(rows) == FIXED + GENERATED
    pick = next(r for r in rows if r["id"] == "norm-pick")
    assert pick["tags"] == "self-test mistake"
    assert ". LayerNorm" in pick["answer"] and "BatchNorm" not in pick["answer"]
    assert "序列长度不一" in pick["why"]


def test_csv_variants(decks, tmp_path):
    write_csv(decks, tmp_path / "k.csv", variants=3)
    rows = list(csv.DictReader(io.StringIO((tmp_path / "k.csv").read_text(encoding="utf-8-sig"))))
    assert len(rows) == FIXED + 3 * GENERATED


# --- through the command line -------------------------------------------------------------------------------


def test_cli_exports_only_the_decks_asked_for(deck_file, tmp_path):
    out = tmp_path / "cli.apkg"
    result = CliRunner().invoke(app, ["--deck-path", str(deck_file), "export", "anki", str(out),
                                      "--deck", "demo-export", "--variants", "2"])
    assert result.exit_code == 0, result.output
    conn = read_collection(out, tmp_path)
    keys = {f[5] for _, _, f in notes_by_guid(conn).values()}
    assert len(keys) == FIXED + 2 * GENERATED
    assert all(key.startswith("demo-export/") for key in keys)


def test_cli_exports_bundled_decks(tmp_path):
    result = CliRunner().invoke(app, ["export", "csv", str(tmp_path / "all.csv")])
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader(io.StringIO((tmp_path / "all.csv").read_text(encoding="utf-8-sig"))))
    assert len({r["deck"] for r in rows}) >= 2
    assert all(r["question"] and r["answer"] for r in rows)


@pytest.mark.parametrize("command", ["anki", "csv"])
def test_unwritable_path_is_a_one_line_error(deck_file, tmp_path, command):
    target = tmp_path / f"out.{command}"
    target.mkdir()   # a folder where the file should go
    result = CliRunner().invoke(app, ["--deck-path", str(deck_file), "export", command, str(target)])
    assert result.exit_code == 1
    assert result.stderr == f"studytool: {target} exists and is not a file; export to another path\n"
    assert "Traceback" not in result.output


@pytest.mark.parametrize("command", ["anki", "csv"])
def test_missing_folder_is_refused_and_never_created(deck_file, tmp_path, command):
    folder = tmp_path / "no-such-dir"
    result = CliRunner().invoke(app, ["--deck-path", str(deck_file), "export", command, str(folder / f"x.{command}")])
    assert result.exit_code == 1
    assert result.stderr == f"studytool: folder {folder} does not exist\n"
    assert not folder.exists()


def test_csv_dash_is_stdout_and_the_summary_goes_to_stderr(deck_file, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, ["--deck-path", str(deck_file), "export", "csv", "-", "--deck", "demo-export"])
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    assert [r["id"] for r in rows] == ["ln-direction", "norm-pick", "pe-learned", "block-order", "ln-vector"]
    assert "Wrote 5 rows from 1 deck to" in result.stderr and "Wrote" not in result.stdout   # one deck: singular
    assert not (tmp_path / "-").exists()


def test_unknown_deck_is_a_one_line_error(tmp_path):
    result = CliRunner().invoke(app, ["export", "anki", str(tmp_path / "x.apkg"), "--deck", "no-such-deck"])
    assert result.exit_code == 1
    assert "no-such-deck" in result.stderr and result.stderr.count("\n") == 1


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_no_variants_is_an_error_before_anything_is_written(decks, tmp_path):
    from studytool.errors import StudytoolError

    with pytest.raises(StudytoolError, match="--variants"):
        write_csv(decks, tmp_path / "none.csv", variants=0)
    assert not (tmp_path / "none.csv").exists()


def test_bundled_generated_cards_export_as_distinct_notes(tmp_path):
    """Generators with few possible questions (embedding sizes, the scale for d_k) must not repeat a note."""
    result = CliRunner().invoke(app, ["export", "anki", str(tmp_path / "all.apkg"), "--variants", "3"])
    assert result.exit_code == 0, result.output
    notes = [fields for _, _, fields in notes_by_guid(read_collection(tmp_path / "all.apkg", tmp_path)).values()]
    seen = [(fields[0], fields[1]) for fields in notes]
    assert len(seen) == len(set(seen))
    assert sum(fields[5].startswith("transformer-arch/gen-emb-params #") for fields in notes) == 3


FORMULA_DECK = """\
deck: formulas
title: 公式
source: test
cards:
  - id: sneaky
    kind: recall
    topic: layernorm
    q: =HYPERLINK("http://example.invalid", "click")
    a: "-0.4472"
  - id: at-sign
    kind: recall
    topic: layernorm
    q: "@SUM(A1:A2)"
    a: +cmd
"""


def test_csv_cells_that_look_like_formulas_are_text_and_numbers_stay_numbers(tmp_path):
    deck = load_deck_file(_write(tmp_path / "formulas.yaml", FORMULA_DECK))
    write_csv([deck], tmp_path / "f.csv")
    rows = {r["id"]: r for r in csv.DictReader(io.StringIO((tmp_path / "f.csv").read_text(encoding="utf-8-sig")))}
    assert rows["sneaky"]["question"] == "'=HYPERLINK(\"http://example.invalid\", \"click\")"
    assert rows["sneaky"]["answer"] == "-0.4472"
    assert rows["at-sign"]["question"] == "'@SUM(A1:A2)"
    assert rows["at-sign"]["answer"] == "'+cmd"


# --- an export never costs the learner a file --------------------------------------------------------------

WRITERS = {"anki": write_anki, "csv": write_csv}


@pytest.mark.parametrize("suffix", ["", "-wal", "-shm"])
@pytest.mark.parametrize("command", ["anki", "csv"])
def test_the_progress_database_and_its_journal_are_never_export_targets(deck_file, tmp_path, command, suffix):
    home = tmp_path / "home"
    home.mkdir()
    target = home / f"studytool.db{suffix}"
    target.write_bytes(b"SQLite format 3\x00 progress that must survive")
    before = target.read_bytes()
    result = CliRunner().invoke(app, ["--deck-path", str(deck_file), "export", command, str(target), "--force"],
                                env={"STUDYTOOL_HOME": str(home)})
    assert result.exit_code == 1
    assert result.stderr == f"studytool: {target} is the progress database (or its journal); export to another file\n"
    assert target.read_bytes() == before


def test_the_database_named_by_db_is_protected_through_a_link_too(decks, tmp_path):
    db = tmp_path / "mine.db"
    db.write_bytes(b"progress")
    (tmp_path / "link.csv").symlink_to(db)
    with pytest.raises(StudytoolError, match="progress database"):
        write_csv(decks, tmp_path / "link.csv", protected=[db], force=True)
    assert db.read_bytes() == b"progress"


@pytest.mark.parametrize("command", ["anki", "csv"])
def test_an_existing_file_that_is_not_an_export_needs_force(deck_file, decks, tmp_path, command):
    target = tmp_path / f"notes.{command}"
    target.write_text("my own notes", encoding="utf-8")
    args = ["--deck-path", str(deck_file), "export", command, str(target)]
    refused = CliRunner().invoke(app, args)
    assert refused.exit_code == 1
    assert refused.stderr == (f"studytool: {target} exists and is not an earlier export of this kind; "
                              "use --force to replace it\n")
    assert target.read_text(encoding="utf-8") == "my own notes"
    assert CliRunner().invoke(app, [*args, "--force"]).exit_code == 0
    assert target.read_bytes() != b"my own notes"


@pytest.mark.parametrize("command", ["anki", "csv"])
def test_an_earlier_export_of_the_same_kind_is_replaced_without_force(decks, tmp_path, command):
    target = tmp_path / f"out.{command}"
    WRITERS[command](decks, target)
    assert WRITERS[command](decks, target).notes == FIXED + GENERATED * (3 if command == "anki" else 1)
    other = tmp_path / f"other.{command}"
    WRITERS["csv" if command == "anki" else "anki"](decks, other)   # an export, but of the other kind
    with pytest.raises(StudytoolError, match="use --force"):
        WRITERS[command](decks, other)


def test_an_anki_package_that_is_not_ours_needs_force(decks, tmp_path):
    """A learner's own Anki backup has a collection too, but not our note type."""
    collection = tmp_path / "theirs.anki2"
    con = sqlite3.connect(collection)
    con.execute("CREATE TABLE col (models TEXT)")
    con.execute("INSERT INTO col VALUES ('{\"1\": {\"name\": \"Basic\"}}')")
    con.commit()
    con.close()
    backup = tmp_path / "backup.apkg"
    with zipfile.ZipFile(backup, "w") as package:
        package.write(collection, "collection.anki2")
        package.writestr("media", "{}")
    before = backup.read_bytes()
    with pytest.raises(StudytoolError, match="use --force"):
        write_anki(decks, backup)
    assert backup.read_bytes() == before


@pytest.mark.parametrize("command", ["anki", "csv"])
def test_an_interrupted_export_leaves_the_old_file_intact(decks, tmp_path, command):
    target = tmp_path / f"out.{command}"
    WRITERS[command](decks, target)
    before = target.read_bytes()

    def killed(done, total):
        if done == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        WRITERS[command](decks, target, progress=killed)
    assert target.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []   # no temporary left


@pytest.mark.parametrize("command", ["anki", "csv"])
def test_a_full_disk_mid_export_is_one_line_and_keeps_the_old_file(deck_file, decks, tmp_path, monkeypatch, command):
    target = tmp_path / f"out.{command}"
    WRITERS[command](decks, target)
    before = target.read_bytes()

    def full(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    result = CliRunner().invoke(app, ["--deck-path", str(deck_file), "export", command, str(target)])
    assert result.exit_code == 1
    assert result.stderr == f"studytool: cannot write {target}: No space left on device\n"
    assert target.read_bytes() == before


@pytest.mark.parametrize("variants", ["0", "101", "100000000000"])
def test_variants_are_capped_before_anything_is_posed(deck_file, tmp_path, variants):
    result = CliRunner().invoke(app, ["--deck-path", str(deck_file), "export", "csv", str(tmp_path / "v.csv"),
                                      "--variants", variants])
    assert result.exit_code == 2   # a usage error, in the usage-error frame
    assert "'--variants'" in result.stderr and "Traceback" not in result.output
    assert not (tmp_path / "v.csv").exists()


def test_a_card_with_few_posings_costs_bounded_tries(decks, monkeypatch):
    """A generator that always poses the same question is posed K + RETRIES times, not forever."""
    from studytool import export
    from studytool.decks.model import Card

    calls = []
    real = Card.pose

    def counted(self, seed=None):
        calls.append(seed)
        return real(self, None)   # the same question every time

    monkeypatch.setattr(Card, "pose", counted)
    [deck] = decks
    generated = [card for card in deck.cards if card.kind == "generated"]
    flashcards = export.flashcards(replace(deck, cards=tuple(generated)), export.MAX_VARIANTS)
    assert len(flashcards) == 1
    assert len(calls) == export.MAX_VARIANTS + export.RETRIES


# --- OUT ending in a separator is a folder (issue 20, item 17) ---------------------------------------------------

@pytest.mark.parametrize("command, name", [("anki", "studytool.apkg"), ("csv", "studytool.csv")])
def test_out_ending_in_a_slash_writes_the_default_name_inside_that_folder(deck_file, tmp_path, command, name):
    folder = tmp_path / "exports"
    folder.mkdir()
    result = CliRunner().invoke(app, ["--deck-path", str(deck_file), "export", command, f"{folder}/",
                                      "--deck", "demo-export"], env={"STUDYTOOL_LANG": "en", "COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert os.listdir(folder) == [name]
    assert str(folder / name) in result.stdout
    assert not (tmp_path / "exports.csv").exists()


@pytest.mark.parametrize("command", ["anki", "csv"])
def test_out_ending_in_a_slash_whose_folder_is_missing_is_refused_and_writes_nothing(deck_file, tmp_path, command):
    result = CliRunner().invoke(app, ["--deck-path", str(deck_file), "export", command, f"{tmp_path}/exports/"],
                                env={"STUDYTOOL_LANG": "en"})
    assert result.exit_code == 1
    assert result.stderr == f"studytool: folder {tmp_path / 'exports'} does not exist\n"
    assert sorted(os.listdir(tmp_path)) == [deck_file.name]   # neither a folder nor a file named like it
