"""INSTALL TEST (runs in CI, ~15 s): build the wheel, install it into a fresh venv, use it from another directory.

The wheel must carry the bundled decks and topics: after installing it, studytool
works with no source tree in sight. To avoid downloading numpy & co. again, the
fresh venv reaches the running venv's site-packages through a `.pth` line; that
line does not run the running venv's own `.pth` files, so the editable install of
studytool there stays invisible and the `studytool` imported is the wheel's
(checked below through `studytool.__file__`).
"""

import os
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.install


def run(args: list, cwd: Path, env: dict, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run([str(a) for a in args], cwd=cwd, env=env, input=stdin, capture_output=True,
                          text=True, timeout=120)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--quiet", "-w", str(out),
         str(ROOT)], capture_output=True, text=True, timeout=180)
    assert built.returncode == 0, built.stderr
    (path,) = out.glob("studytool-*.whl")
    return path


@pytest.fixture(scope="module")
def venv(wheel, tmp_path_factory) -> Path:
    """A fresh venv with the wheel installed; its dependencies resolve from the running venv."""
    venv = tmp_path_factory.mktemp("venv")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python = bin_dir(venv) / "python"
    site = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                          capture_output=True, text=True, check=True).stdout.strip()
    parent = {sysconfig.get_path("purelib"), sysconfig.get_path("platlib")}
    Path(site, "_parent_venv.pth").write_text("\n".join(sorted(parent)) + "\n")
    installed = subprocess.run([python, "-m", "pip", "install", "--no-deps", "--no-index", "--quiet", str(wheel)],
                               capture_output=True, text=True, timeout=180)
    assert installed.returncode == 0, installed.stderr
    return venv


@pytest.fixture
def elsewhere(tmp_path) -> tuple[Path, dict]:
    """A directory far from the source tree and an environment whose progress lives in a scratch home."""
    cwd = tmp_path / "elsewhere"
    cwd.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env.update(STUDYTOOL_HOME=str(tmp_path / "home"), LANG="C.UTF-8", NO_COLOR="1")
    return cwd, env


def bin_dir(venv: Path) -> Path:
    return venv / ("Scripts" if os.name == "nt" else "bin")


def test_wheel_carries_the_decks_and_topics(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    assert "studytool/decks/bundled/topics.yaml" in names
    assert any(n.startswith("studytool/decks/bundled/") and n.endswith(".yaml") and "topics" not in n for n in names)


def test_the_installed_studytool_is_the_wheels(venv, elsewhere):
    cwd, env = elsewhere
    result = run([bin_dir(venv) / "python", "-c", "import studytool; print(studytool.__file__)"], cwd, env)
    assert result.returncode == 0, result.stderr
    assert Path(result.stdout.strip()).resolve().is_relative_to(venv.resolve())


def test_version_via_script_and_module(venv, elsewhere):
    cwd, env = elsewhere
    for command in ([bin_dir(venv) / "studytool", "--version"], [bin_dir(venv) / "python", "-m", "studytool", "--version"]):
        result = run(command, cwd, env)
        assert result.returncode == 0, result.stderr
        assert result.stdout.startswith("studytool ")


def test_help_offers_shell_completion(venv, elsewhere):
    cwd, env = elsewhere
    result = run([bin_dir(venv) / "studytool", "--help"], cwd, env)
    assert result.returncode == 0, result.stderr
    assert "--install-completion" in result.stdout


def test_scripted_quiz_from_another_directory(venv, elsewhere):
    """The README's promise: install, then quiz on the bundled decks, from anywhere.

    `worksheet --seed 1` poses the same cards and variants as `quiz --seed 1`, so its
    answer key scripts the quiz: the typed answer for graded cards, an attempt and
    the rating 3 (Good) for recall cards.
    """
    import json

    cwd, env = elsewhere
    studytool = bin_dir(venv) / "studytool"
    sheet = run([studytool, "worksheet", "--count", "2", "--seed", "1", "--format", "json"], cwd, env)
    assert sheet.returncode == 0, sheet.stderr
    script = "".join("my attempt\n3\n" if item["kind"] == "recall" else f"{item['answer']}\n"
                     for item in json.loads(sheet.stdout))
    quiz = run([studytool, "quiz", "--count", "2", "--seed", "1", "--json"], cwd, env, stdin=script)
    assert quiz.returncode == 0, quiz.stderr
    summary = json.loads(quiz.stdout)
    assert (summary["answered"], summary["correct"]) == (2, 2)
    assert Path(env["STUDYTOOL_HOME"], "studytool.db").is_file()  # progress went to $STUDYTOOL_HOME


def test_topics_and_export_from_another_directory(venv, elsewhere):
    cwd, env = elsewhere
    studytool = bin_dir(venv) / "studytool"
    explain = run([studytool, "explain", "layernorm"], cwd, env)
    assert explain.returncode == 0, explain.stderr
    assert "LayerNorm" in explain.stdout
    export = run([studytool, "export", "csv", cwd / "cards.csv"], cwd, env)
    assert export.returncode == 0, export.stderr
    assert "p47-encoder" in (cwd / "cards.csv").read_text(encoding="utf-8-sig")
