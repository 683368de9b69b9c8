"""Interface language: `--lang` > `STUDYTOOL_LANG` > LC_ALL > LC_MESSAGES > LANG; card content untouched."""

import ast
from pathlib import Path

import pytest
from typer.testing import CliRunner

from studytool import i18n
from studytool.cli import app

LOCALE_VARS = ("STUDYTOOL_LANG", "LC_ALL", "LC_MESSAGES", "LANG", "LANGUAGE")


@pytest.fixture
def env(monkeypatch):
    """A clean environment: no language variables, no pinned language."""
    for var in LOCALE_VARS:
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setattr(i18n, "_lang", None)
    return monkeypatch


@pytest.mark.parametrize("locale", ["zh_CN.UTF-8", "zh_TW", "zh", "zh_HK.Big5", "ZH_cn.utf8"])
def test_chinese_locales_give_chinese(env, locale):
    env.setenv("LANG", locale)
    assert i18n.language() == "zh"
    assert i18n._("Answer") == "答案"


@pytest.mark.parametrize("locale", ["en_US.UTF-8", "C", "POSIX", "fr_FR.UTF-8", "C.UTF-8"])
def test_other_locales_give_english(env, locale):
    env.setenv("LANG", locale)
    assert i18n.language() == "en"
    assert i18n._("Answer") == "Answer"


def test_no_locale_at_all_is_english(env):
    assert i18n.language() == "en"


def test_precedence_of_the_locale_variables(env):
    env.setenv("LANG", "zh_CN.UTF-8")
    env.setenv("LC_MESSAGES", "en_GB.UTF-8")
    assert i18n.language() == "en"        # LC_MESSAGES beats LANG
    env.setenv("LC_ALL", "zh_TW.UTF-8")
    assert i18n.language() == "zh"        # LC_ALL beats LC_MESSAGES
    env.setenv("STUDYTOOL_LANG", "en")
    assert i18n.language() == "en"        # STUDYTOOL_LANG beats the locale
    i18n.set_language("zh")
    assert i18n.language() == "zh"        # --lang beats everything


def test_an_empty_variable_is_skipped(env):
    env.setenv("LC_ALL", "")
    env.setenv("LANG", "zh_CN.UTF-8")
    assert i18n.language() == "zh"


def test_unknown_strings_pass_through(env):
    i18n.set_language("zh")
    assert i18n._("no such interface string") == "no such interface string"


def test_set_language_rejects_other_languages():
    with pytest.raises(ValueError, match="'fr'"):
        i18n.set_language("fr")


def test_every_translation_keeps_the_placeholders_of_its_source():
    """`_("{n} cards").format(n=3)` must work in both languages."""
    import string

    fields = lambda text: sorted(f for _, f, _, _ in string.Formatter().parse(text) if f is not None)
    for english, chinese in i18n.ZH.items():
        assert chinese.strip(), english
        assert fields(english) == fields(chinese), english


# --- through the command line -------------------------------------------------------------------------------


def test_bad_lang_is_a_usage_error(env):
    result = CliRunner().invoke(app, ["--lang", "fr", "decks", "list"])
    assert result.exit_code == 2
    assert "--lang" in result.output


def test_lang_switch_changes_a_commands_output(env, tmp_path):
    """The same export, reported in English and in Chinese; the card content in the file is identical."""
    runner = CliRunner()
    en = runner.invoke(app, ["--lang", "en", "export", "csv", str(tmp_path / "en.csv")])
    zh = runner.invoke(app, ["--lang", "zh", "export", "csv", str(tmp_path / "zh.csv")])
    assert en.exit_code == 0 and zh.exit_code == 0, en.output + zh.output
    assert en.stdout.startswith("Wrote ")
    assert zh.stdout.startswith("已写入 ")
    assert (tmp_path / "en.csv").read_bytes() == (tmp_path / "zh.csv").read_bytes()


def test_env_var_and_locale_reach_the_command_line(env, tmp_path):
    runner = CliRunner()
    by_env = runner.invoke(app, ["export", "csv", str(tmp_path / "a.csv")], env={"STUDYTOOL_LANG": "zh"})
    by_locale = runner.invoke(app, ["export", "csv", str(tmp_path / "b.csv")], env={"LANG": "zh_CN.UTF-8"})
    overridden = runner.invoke(app, ["--lang", "en", "export", "csv", str(tmp_path / "c.csv")],
                               env={"LC_ALL": "zh_CN.UTF-8"})
    assert by_env.stdout.startswith("已写入 ")
    assert by_locale.stdout.startswith("已写入 ")
    assert overridden.stdout.startswith("Wrote ")


@pytest.mark.parametrize("args, error", [
    (["quiz", "--count", "0"], "错误：'--count' 的值无效：应当不小于 1，而不是 0"),
    (["calc", "pe", "--positions", "3"], "错误：缺少选项 '--d-model'。"),
    (["decks", "show"], "错误：缺少参数 'DECK'。"),
    (["quiz", "--cout", "3"], "错误：没有选项 --cout。是不是 --count？"),
    (["quizz"], "错误：没有命令 'quizz'。是不是 'quiz'？"),
    (["quiz", "extra"], "错误：多余的参数（extra）"),
])
def test_usage_errors_speak_chinese_with_lang_zh(env, args, error):
    """The whole frame is translated, not only our part of the sentence (click's own words are English)."""
    result = CliRunner().invoke(app, ["--lang", "zh", *args])
    assert result.exit_code == 2
    usage, said = result.stderr.splitlines()
    assert usage.startswith("用法：studytool ")
    assert said == error


def bundled_deck_ids() -> list[str]:
    """The bundled decks' ids, read from their files (each deck's `deck:` line), sorted as the message lists them."""
    import re

    folder = Path(__file__).parents[1] / "studytool" / "decks" / "bundled"
    return sorted(re.search(r"^deck: (\S+)$", path.read_text(encoding="utf-8"), re.M).group(1)
                  for path in folder.glob("*.yaml") if path.name not in ("topics.yaml", "glossary.yaml"))


@pytest.mark.parametrize("command", [["quiz", "--deck", "nope"], ["decks", "show", "nope"],
                                     ["export", "csv", "-", "--deck", "nope"]])
def test_an_unknown_deck_is_reported_in_chinese(env, command):
    result = CliRunner().invoke(app, ["--lang", "zh", *command])
    assert result.exit_code == 1
    assert result.stderr == f"studytool: 没有卡组 'nope'；现有卡组：{', '.join(bundled_deck_ids())}\n"


def test_unknown_tag_speaks_the_interface_language(tmp_path):
    from typer.testing import CliRunner

    from studytool.cli import app

    result = CliRunner().invoke(app, ["--lang", "zh", "quiz", "--tag", "nope"], env={"STUDYTOOL_HOME": str(tmp_path)})
    assert result.exit_code == 1
    assert "没有标签 'nope'" in result.stderr


def _underscore_calls():
    """Every `_(...)` call in the package: (file:line, its arguments)."""
    package = Path(__file__).resolve().parents[1] / "studytool"
    for path in sorted(package.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "_":
                yield f"{path.relative_to(package.parent)}:{node.lineno}", node.args


def _literal(args) -> str | None:
    return args[0].value if len(args) == 1 and isinstance(args[0], ast.Constant) else None


def test_no_underscore_call_takes_a_variable():
    """A translated string is written at the call site, or no catalogue entry can be checked for it."""
    assert [where for where, args in _underscore_calls() if not isinstance(_literal(args), str)] == []


def test_every_literal_underscore_string_has_a_chinese_entry():
    from studytool.i18n import ZH

    missing = [f"{where}: {_literal(args)!r}" for where, args in _underscore_calls()
               if isinstance(_literal(args), str) and _literal(args) not in ZH]
    assert missing == []


def test_no_english_string_is_in_the_catalogue_twice():
    """A dict literal keeps the last of two equal keys silently: one of the two Chinese texts would be lost."""
    source = (Path(__file__).resolve().parents[1] / "studytool" / "i18n.py").read_text(encoding="utf-8")
    [catalogue] = [node.value for node in ast.walk(ast.parse(source))
                   if isinstance(node, ast.AnnAssign) and getattr(node.target, "id", None) == "ZH"]
    keys = [key.value for key in catalogue.keys]
    assert sorted({key for key in keys if keys.count(key) > 1}) == []


# --- a Chinese deck speaks Chinese around its cards (issue 22, item 6) ---------------------------------------


def test_a_chinese_card_on_screen_makes_the_interface_chinese_whatever_the_locale(env):
    env.setenv("LANG", "en_US.UTF-8")
    with i18n.speaking("zh"):
        assert i18n.language() == "zh" and i18n._("Answer") == "答案"
        with i18n.speaking(None):   # a card of a deck in English: the locale again
            assert i18n.language() == "en"
    assert i18n.language() == "en"   # and after the card


def test_a_language_asked_for_wins_over_the_card_on_screen(env):
    env.setenv("LANG", "zh_CN.UTF-8")
    env.setenv("STUDYTOOL_LANG", "en")
    with i18n.speaking("zh"):
        assert i18n.language() == "en"
    env.delenv("STUDYTOOL_LANG")
    i18n.set_language("en")
    try:
        with i18n.speaking("zh"):
            assert i18n.language() == "en"
    finally:
        i18n.set_language(None)


@pytest.mark.parametrize("text, chinese", [("LayerNorm 在哪个方向上求均值？", True), ("Where does LayerNorm average?", False),
                                           ("", False)])
def test_is_chinese(text, chinese):
    assert i18n.is_chinese(text) is chinese
