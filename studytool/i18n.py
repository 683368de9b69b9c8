"""Interface strings in English and Chinese.

Interface text is written in English in the code and wrapped in `_()`; the
Chinese catalogue below translates it. Card content is never translated.
The language is `--lang`, else `STUDYTOOL_LANG`, else the locale
(`LC_ALL`, `LC_MESSAGES`, `LANG`, the first one set): Chinese for any
`zh*` locale (`zh_CN.UTF-8`, `zh_TW`, `zh`), English otherwise.
"""

from __future__ import annotations

import os

LANGUAGES = ("en", "zh")
_LOCALE_VARS = ("LC_ALL", "LC_MESSAGES", "LANG")

_lang: str | None = None  # set by `--lang`; None = follow the environment


def parse_language(value: str) -> str | None:
    """'zh', 'zh_CN.UTF-8', 'ZH-tw' -> 'zh'; 'en', 'en_US', 'fr', 'C' -> 'en'; '' -> None."""
    value = value.strip().lower()
    if not value:
        return None
    return "zh" if value.startswith("zh") else "en"


def detect_language() -> str:
    """The language the environment asks for: `STUDYTOOL_LANG`, then the locale."""
    for var in ("STUDYTOOL_LANG", *_LOCALE_VARS):
        lang = parse_language(os.environ.get(var, ""))
        if lang is not None:
            return lang
    return "en"


def set_language(lang: str | None) -> None:
    """Pin the language (`--lang`); None goes back to following the environment."""
    global _lang
    if lang is not None and lang not in LANGUAGES:
        raise ValueError(f"unknown language {lang!r}: use 'en' or 'zh'")
    _lang = lang


def language() -> str:
    return _lang or detect_language()


def _(text: str) -> str:
    """Translate an interface string (English source) into the current language."""
    if language() == "zh":
        return ZH.get(text, text)
    return text


# English source text -> Chinese. Keep keys exactly as written at the call site.
ZH: dict[str, str] = {
    "Correct": "正确",
    "Wrong": "错误",
    "Answer": "答案",
    "Solution": "解答",
    "Why": "原因",
    "Hint": "提示",
    # export
    "Writing": "正在写入",
    "Wrote {notes} notes from {decks} decks to {path}": "已写入 {notes} 条（来自 {decks} 个卡组）：{path}",
}
