"""The benchmark scripts still run against the current code (at toy sizes; their timings are not checked here)."""

import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


@pytest.mark.parametrize("script, args", [
    ("decks.py", ["--cards", "40", "--runs", "1"]),
    ("review.py", ["--cards", "40", "--answers", "200", "--runs", "1"]),
    ("variants.py", ["--draws", "5", "--runs", "1"]),
    ("items.py", ["--seeds", "1"]),
    ("simulate.py", ["--days", "12", "--seeds", "1", "--cards-per-topic", "2"]),
])
def test_benchmark_script_runs(script, args, tmp_path):
    result = subprocess.run([sys.executable, str(BENCHMARKS / script), *args], cwd=tmp_path,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "target" in result.stdout.lower()


def test_engine_benchmark_runs(tmp_path):
    pytest.importorskip("torch")
    result = subprocess.run([sys.executable, str(BENCHMARKS / "engine.py"), "--repeats", "1", "--threads", "1",
                             "--small"],
                            cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "EncoderLayer" in result.stdout


def test_big_inputs_benchmark_runs(tmp_path):
    result = subprocess.run([sys.executable, str(BENCHMARKS / "big_inputs.py"), "--topics-mb", "0.01", "--cards", "5"],
                            cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    assert [line.split(":")[0] for line in result.stdout.splitlines()[1:]] == [
        "decks check topics.yaml (0.0 MB)", "decks audit, 5 copies of one card", "decks audit, 5 cards of every kind"]
