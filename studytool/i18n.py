"""Interface strings in English and Chinese.

Interface text is written in English in the code and wrapped in `_()`; the
Chinese catalogue below translates it. Card content is never translated.
The language is `--lang`, else `STUDYTOOL_LANG`, else the locale.
"""

from __future__ import annotations

import os

_lang: str | None = None


def detect_language() -> str:
    for var in ("STUDYTOOL_LANG", "LC_ALL", "LC_MESSAGES", "LANG", "LANGUAGE"):
        value = os.environ.get(var, "")
        if value:
            return "zh" if value.lower().startswith("zh") else "en"
    return "en"


def set_language(lang: str | None) -> None:
    global _lang
    if lang is not None and lang not in ("en", "zh"):
        from studytool.errors import StudytoolError

        raise StudytoolError(f"unknown language {lang!r}: use 'en' or 'zh'")
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
}
