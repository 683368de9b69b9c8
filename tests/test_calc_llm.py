"""`studytool calc llm`: a model's costs from its config.json, on screen and as JSON; bad input is one line.

Expected numbers are published figures and hand arithmetic; the closed forms themselves are checked
against transformers in tests/engine/test_accounting.py.
"""

import json

import pytest
from typer.testing import CliRunner

from studytool.cli import app
from studytool.engine.llm import preset

runner = CliRunner()


@pytest.fixture(autouse=True)
def _env(monkeypatch):
    for name, value in {"NO_COLOR": "1", "COLUMNS": "120", "LANG": "en_US.UTF-8", "TZ": "UTC", "TERM": "xterm"}.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("LC_ALL", raising=False)
    monkeypatch.delenv("STUDYTOOL_LANG", raising=False)


def run_json(*args: str) -> dict:
    result = runner.invoke(app, ["calc", "llm", *args, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def one_line_error(*args: str, lang: str = "en") -> str:
    result = runner.invoke(app, ["--lang", lang, "calc", "llm", *args])
    assert result.exit_code == 1, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("studytool: "), result.output
    return lines[0]


def test_gpt2_json_has_the_issue_s_keys_and_integers():
    r = run_json("--preset", "gpt2", "--seq", "1024", "--batch", "8")
    assert r["parameters"]["total"] == 124_439_808
    for group, keys in {"parameters": ["total", "embedding", "active"], "kv_cache": ["bytes_per_token", "bytes"],
                        "flops": ["forward", "per_token", "approx_2n_per_token", "training_step"]}.items():
        for key in keys:
            assert isinstance(r[group][key], int) and not isinstance(r[group][key], bool), (group, key)
    assert r["parameters"]["active"] == r["parameters"]["total"]  # dense
    assert r["kv_cache"]["bytes_per_token"] == 2 * 12 * 768 * 2  # bf16 by default
    assert r["kv_cache"]["bytes"] == 2 * 12 * 768 * 2 * 8 * 1024
    assert r["flops"]["approx_2n_per_token"] == 2 * 124_439_808
    assert {"inference", "adamw_fp32", "adamw_mixed", "activations"} <= set(r["memory"])
    assert r["memory"]["adamw_fp32"]["total"] == 16 * 124_439_808


def test_a_config_file_is_read_as_the_hub_ships_it(tmp_path):
    path = tmp_path / "config.json"
    path.write_text(json.dumps(preset("llama-3-8b"), indent=2), encoding="utf-8")
    from_file = run_json("--config", str(path), "--seq", "8192", "--dtype", "fp16")
    from_preset = run_json("--preset", "llama-3-8b", "--seq", "8192", "--dtype", "fp16")
    assert {k: v for k, v in from_file.items() if k != "model"} == {k: v for k, v in from_preset.items() if k != "model"}
    assert from_file["kv_cache"]["bytes"] == 2 * 32 * 8 * 128 * 2 * 8192  # 1 GiB for one 8k sequence


def test_mixtral_active_parameters():
    p = run_json("--preset", "mixtral-8x7b")["parameters"]
    assert round(p["total"] / 1e9, 1) == 46.7 and round(p["active"] / 1e9, 1) == 12.9  # Mixtral's paper and card


@pytest.mark.parametrize(("dtype", "width"), [("fp32", 4), ("bf16", 2), ("fp16", 2), ("int8", 1)])
def test_dtype_sets_the_bytes_per_value(dtype, width):
    r = run_json("--preset", "qwen2-0.5b", "--dtype", dtype, "--seq", "100")
    assert r["kv_cache"]["bytes_per_token"] == 2 * 24 * 2 * 64 * width
    assert r["memory"]["inference"]["weights"] == r["parameters"]["total"] * width


def test_seq_defaults_to_gpt2_s_context():
    assert run_json("--preset", "gpt2")["seq"] == 1024
    assert run_json("--preset", "mistral-7b")["seq"] == 2048


def test_the_screen_shows_parts_and_the_breakdown():
    result = runner.invoke(app, ["--lang", "en", "calc", "llm", "--preset", "gpt2"])
    assert result.exit_code == 0, result.output
    for words in ["124,439,808", "attention (q, k, v, o)", "feed-forward (MLP)", "output head (tied to the embedding)",
                  "KV cache per token (bf16)", "forward FLOPs", "2N rule", "6ND rule", "AdamW, fp32",
                  "AdamW, mixed precision", "with checkpointing", "Korthikanti"]:
        assert words in result.output, words


def test_the_screen_speaks_chinese():
    result = runner.invoke(app, ["--lang", "zh", "calc", "llm", "--preset", "mixtral-8x7b"])
    assert result.exit_code == 0, result.output
    assert "每个词元激活的参数" in result.output and "8 个专家 + 路由器" in result.output


def test_the_screen_fits_a_narrow_terminal(monkeypatch):
    monkeypatch.setenv("COLUMNS", "60")
    result = runner.invoke(app, ["--lang", "en", "calc", "llm", "--preset", "llama-3-8b"])
    assert result.exit_code == 0
    assert max(len(line) for line in result.output.splitlines()) <= 60
    assert "8,030,261,248" in result.output


def write(tmp_path, text: str | bytes):
    path = tmp_path / "config.json"
    path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    return str(path)


@pytest.mark.parametrize(("content", "words"), [
    ('{"model_type": "bert", "hidden_size": 8}', "unknown model_type 'bert': use one of gpt2, llama"),
    ('{"model_type": "llama", "hidden_size": 8}', "config.json has no 'num_attention_heads'"),
    ('{"model_type": "gpt2"}', "config.json has no 'n_embd'"),
    ('{"n_embd": 8}', "config.json has no 'model_type'"),
    ("{x", "not valid JSON"),
    ('{"model_type": "gpt2", "n_embd": NaN}', "not valid JSON: NaN is not JSON"),
    ("[1, 2]", "config.json must hold a JSON object"),
    (b"\xff\xfe{}", "not valid JSON"),
    ("[" * 100_000 + "]" * 100_000, "not valid JSON"),
    (json.dumps(preset("llama-3-8b")).replace('"hidden_size": 4096', '"hidden_size": 1e400'),
     "hidden_size must be a positive integer, got inf"),
    (json.dumps(preset("llama-3-8b") | {"vocab_size": 10**30}), "is too large"),
    (json.dumps(preset("llama-3-8b") | {"num_key_value_heads": 5}), "not a multiple of num_key_value_heads=5"),
    (json.dumps(preset("llama-3-8b") | {"hidden_size": list(range(100_000))}),
     "hidden_size must be a positive integer, got [0, 1, 2,"),
    (json.dumps(preset("gpt2") | {"model_type": "gpt\u001b[31m" + "x" * 1000}), "unknown model_type 'gpt\\x1b[31mxxx"),
])
def test_bad_config_files_are_one_line(tmp_path, content, words):
    path = write(tmp_path, content)
    line = one_line_error("--config", path)
    assert words in line and path in line
    assert len(line) < 300 and "\x1b" not in line  # a value from the file is cut short, its controls escaped


@pytest.mark.parametrize(("args", "words"), [
    (["--config", "/no/such/config.json"], "cannot read the file"),
    (["--preset", "gpt5"], "unknown preset 'gpt5'"),
    ([], "give one of --config PATH or --preset NAME"),
    (["--preset", "gpt2", "--config", "x.json"], "give one of --config PATH or --preset NAME"),
    (["--preset", "gpt2", "--dtype", "fp8"], "unknown dtype 'fp8'"),
    (["--preset", "gpt2", "--seq", "2048"], "longer than this model's 1024 learned positions"),
    (["--preset", "gpt2", "--seq", "0"], "seq must be a positive integer"),
    (["--preset", "gpt2", "--batch", "10000000000000000"], "is too large"),
])
def test_bad_options_are_one_line(args, words):
    assert words in one_line_error(*args)


def test_a_folder_is_not_a_config(tmp_path):
    assert "cannot read the file: Is a directory" in one_line_error("--config", str(tmp_path))


def test_a_huge_file_is_refused_before_parsing(tmp_path):
    path = write(tmp_path, "{" + " " * (2 << 20) + "}")
    assert "larger than 1 MiB" in one_line_error("--config", path)


def test_errors_speak_chinese(tmp_path):
    path = write(tmp_path, '{"model_type": "llama", "hidden_size": 8}')
    assert "缺少字段 'num_attention_heads'" in one_line_error("--config", path, lang="zh")


def test_a_sliding_window_caps_the_cache_on_screen():
    result = runner.invoke(app, ["--lang", "en", "calc", "llm", "--preset", "mistral-7b", "--seq", "32768"])
    assert result.exit_code == 0, result.output
    assert "(a window of 4096 tokens)" in result.output and "536,870,912 B" in result.output  # 128 KiB x 4096


def test_a_scaled_rope_config_is_counted(tmp_path):
    """Llama 3.1 ships rope_scaling {"rope_type": "llama3", ...}: same sizes as Llama 3, so the same counts."""
    llama_3_1 = preset("llama-3-8b") | {"max_position_embeddings": 131072, "rope_scaling": {
        "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0, "original_max_position_embeddings": 8192,
        "rope_type": "llama3"}}
    r = run_json("--config", write(tmp_path, json.dumps(llama_3_1)))
    assert r["parameters"]["total"] == 8_030_261_248 and r["config"]["rope_type"] == "llama3"
