"""Interface strings in English and Chinese.

Interface text is written in English in the code and wrapped in `_()`; the
Chinese catalogue below translates it. Card content is never translated.
The language is `--lang`, else `STUDYTOOL_LANG`, else the locale
(`LC_ALL`, `LC_MESSAGES`, `LANG`, the first one set): Chinese for any
`zh*` locale (`zh_CN.UTF-8`, `zh_TW`, `zh`), English otherwise.

While a card of a Chinese deck is on screen (`speaking`), the text around it (format
lines, hints, picture legends, prompts) is Chinese whatever the locale: only a language
the learner asked for (`--lang`, `STUDYTOOL_LANG`) overrides it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from contextlib import contextmanager

LANGUAGES = ("en", "zh")
_LOCALE_VARS = ("LC_ALL", "LC_MESSAGES", "LANG")

_lang: str | None = None  # set by `--lang`; None = follow the environment
_content: str | None = None  # the language of the card on screen (`speaking`); None = no card


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
    """`--lang`, else `STUDYTOOL_LANG`, else the language of the card on screen, else the locale."""
    asked = _lang or parse_language(os.environ.get("STUDYTOOL_LANG", ""))
    return asked or _content or detect_language()


@contextmanager
def speaking(lang: str | None) -> Iterator[None]:
    """The interface speaks `lang` (None: as before) while a card written in it is shown, unless one was asked for."""
    global _content
    before, _content = _content, lang
    try:
        yield
    finally:
        _content = before


_CHINESE = re.compile(r"[\u3400-\u9fff]")


def is_chinese(text: str) -> bool:
    """Does `text` hold a Chinese character (a deck's question, a card's text)?"""
    return bool(_CHINESE.search(text))


def _(text: str) -> str:
    """Translate an interface string (English source) into the current language."""
    if language() == "zh":
        return ZH.get(text, text)
    return text


# English source text -> Chinese. Keep keys exactly as written at the call site.
ZH: dict[str, str] = {
    # the review screen (study/session.py)
    "{card} (level {level}, seed {seed}): {variant!r} drifts from the glossary: write {word!r} ({term}, glossary.yaml)":
        "{card}（第 {level} 级，种子 {seed}）：{variant!r} 偏离了词汇表：应写作 {word!r}（{term}，glossary.yaml）",
    "<{n}m": "<{n}分钟",
    "<{n}h": "<{n}小时",
    "{n}d": "{n}天",
    "{n}mo": "{n}个月",
    "{n}y": "{n}年",
    "Enter keeps {rating}; or {buttons}": "回车保留{rating}；或 {buttons}",
    "A right answer is 2 hard, 3 good or 4 easy (a wrong one stays 1 again).": "答对可评 2 困难、3 良好或 4 简单（答错固定为 1 重来）。",
    ":flag takes a number: 1 red, 2 orange, 3 green, 4 blue, 5 pink, 6 turquoise, 7 purple, 0 none": ":flag 后跟一个数字：1 红、2 橙、3 绿、4 蓝、5 粉、6 青、7 紫，0 取消",
    "Flag {n} on {card}; :undo takes it back.": "已给 {card} 标上旗标 {n}；:undo 可撤销。",
    "Took back the {what} of {card}.": "已撤销对 {card} 的{what}。",
    "Suspended {card}; :undo takes it back.": "已暂停 {card}；:undo 可撤销。",
    "Buried {card} until tomorrow; :undo takes it back.": "已把 {card} 搁置到明天；:undo 可撤销。",
    "suspension": "暂停",
    "burial": "搁置",
    "flag": "标旗",
    "Rate {buttons}": "评分：{buttons}",
    ":edit needs a terminal": ":edit 需要在终端中使用",
    "{card} was not read from a file, so it cannot be edited": "{card} 不是从文件读入的，无法编辑",
    "{deck} is a bundled deck: editing your copy {path}, which replaces it from now on": "{deck} 是内置卡组：正在编辑你的副本 {path}，今后由它代替内置卡组",
    "{card} is no longer in {path}: the session goes on with it as it was": "{path} 中已没有 {card}：本次学习继续使用原来的卡片",
    "$EDITOR ({editor}) does not read as a command": "$EDITOR（{editor}）无法作为命令解析",
    # export anki --progress (anki_schedule.py)
    "--progress is for `export anki`": "--progress 只用于 `export anki`",
    "With --progress each generated card is exported as the variant you last answered (--variants does not apply).": "使用 --progress 时，每张生成卡导出为你最后作答的那个变体（--variants 不起作用）。",
    # stats' graphs (study/graphs.py, cli/render/graphs.py)
    "Today": "今天",
    "young": "新近",
    "mature": "成熟",
    "Card counts": "卡片数",
    "Card type": "卡片类型",
    "1 Again": "1 重来",
    "2 Hard": "2 困难",
    "3 Good": "3 良好",
    "4 Easy": "4 简单",
    "last month": "近一个月",
    "last 3 months": "近三个月",
    "last year": "近一年",
    "all time": "全部",
    "Review intervals (days)": "复习间隔（天）",
    "Stability (days)": "稳定度（天）",
    "Studied {n} answers in {minutes} min; Again {again}; correct {share}": "作答 {n} 次，用时 {minutes} 分钟；重来 {again} 次；正确率 {share}",
    "Answers per day, {range} ({hours} h in all)": "每日作答，{range}（共 {hours} 小时）",
    "Hourly breakdown: correct by hour, {range}": "按小时：各时段正确率，{range}",
    "Answer buttons, {range}": "评分按钮，{range}",
    "No reviews in this range.": "此范围内没有复习。",
    "No review cards.": "没有复习卡。",
    "unknown range {name!r}; ranges: 1m, 3m, 1y, all": "未知的范围 {name!r}；可用：1m、3m、1y、all",
    # the browser (study/search.py, cards flag)
    "red": "红",
    "orange": "橙",
    "green": "绿",
    "blue": "蓝",
    "pink": "粉",
    "turquoise": "青",
    "purple": "紫",
    "Flagged {n} card(s) {colour}: {cards}.": "已给 {n} 张卡片标上{colour}色旗标：{cards}。",
    "Unflagged {n} card(s): {cards}.": "已取下 {n} 张卡片的旗标：{cards}。",
    "a search of at most {n} characters": "搜索最多 {n} 个字符",
    "search term {term!r} needs a value after the colon": "搜索条件 {term!r} 的冒号后需要一个值",
    "is:{value} is not a state; use one of {words}": "is:{value} 不是一种状态；可用：{words}",
    "flag:{value}: a flag is 0 (none) to 7": "flag:{value}：旗标是 0（无）到 7",
    "prop:{value}: use prop:NAME OP NUMBER, NAME one of {names}, OP one of = != < <= > >=": "prop:{value}：写成 prop:名称 比较符 数字，名称为 {names} 之一，比较符为 = != < <= > >= 之一",
    "rated:{value}: a number of days from 1 to 36500": "rated:{value}：天数须为 1 到 36500",
    "unknown sort {order!r}; sorts: {sorts}": "未知的排序 {order!r}；可用：{sorts}",
    "search {query!r}: a quote is not closed": "搜索 {query!r}：引号没有闭合",
    "a flag is 0 (none) to 7, not {colour}": "旗标是 0（无）到 7，不是 {colour}",
    # sync (study/sync.py, study/journal.py, cli/commands/sync.py)
    "no sync folder yet: `studytool sync DIR` names one (it is remembered)": "还没有同步文件夹：用 `studytool sync DIR` 指定一个（会被记住）",
    "This computer's journal was missing or cut short: written again whole": "本机的日志文件缺失或被截短：已完整重写",
    "device": "设备",
    "last event": "最后一条事件",
    "events": "事件数",
    "Synced with {folder}: {written} events written, {read} read, {cards} cards rescheduled": "已与 {folder} 同步：写入 {written} 条事件，读入 {read} 条，重排 {cards} 张卡片",
    "Sync folder: {folder}": "同步文件夹：{folder}",
    "This computer: {device}": "本机：{device}",
    "Last sync: {when}": "上次同步：{when}",
    "Waiting: {write} answers to write, {read} events to read": "等待中：{write} 条作答待写出，{read} 条事件待读入",
    "(none; `studytool sync DIR` sets one)": "（无；用 `studytool sync DIR` 设置）",
    "never": "从未",
    "no events yet": "尚无事件",
    "(this computer)": "（本机）",
    "A sync folder is set but this computer has never synced; run `studytool sync`": "已设置同步文件夹，但本机从未同步；请运行 `studytool sync`",
    "no card": "没有卡片",
    "not an event of this version": "不是本版本的事件",
    "not a time": "不是时间",
    "(none yet)": "（尚无）",
    "Last synced {when}; run `studytool sync` to merge the other computers' answers": "上次同步于 {when}；运行 `studytool sync` 合并其他电脑上的作答",
    "sync folder {folder} does not exist or is not a folder": "同步文件夹 {folder} 不存在或不是文件夹",
    "torn or too long": "行不完整或过长",
    "{path}: written by a newer studytool (journal schema {found}); upgrade studytool to read it": "{path}：由更新版本的 studytool 写入（日志格式 {found}）；请升级 studytool 后再读取",
    "{path}:{line}: skipped ({why}); it is read again next time": "{path}:{line}：已跳过（{why}）；下次同步时会再读",
    "not a JSON object": "不是 JSON 对象",
    "checksum does not match": "校验和不符",
    "not an event of this device": "不是该设备的事件",
    "not a JSON line": "不是一行 JSON",
    "a folder's path": "一个文件夹路径",
    "The folder `studytool sync` merges progress through (this computer's own setting).": "`studytool sync` 用来合并进度的文件夹（仅本机的设置）。",
    "Correct": "正确",
    "Wrong": "错误",
    "Answer": "答案",
    "Solution": "解答",
    "Why": "原因",
    "Hint": "提示",
    # export
    "unknown deck {deck!r}; decks: {decks}": "没有卡组 {deck!r}；现有卡组：{decks}",
    "unknown tag {tag!r}; tags: {tags}": "没有标签 {tag!r}；可用标签：{tags}",
    "{path} is a file; your own decks go in a folder of that name": "{path} 是一个文件；你自己的卡组应放在同名的文件夹里",
    # usage errors (click's sentences, matched in cli._usage_message)
    "Usage: {usage}": "用法：{usage}",
    "Error: {message}": "错误：{message}",
    "Invalid value for {hint}: {message}": "{hint} 的值无效：{message}",
    "Invalid value: {message}": "值无效：{message}",
    "Missing option {hint}.": "缺少选项 {hint}。",
    "Missing argument {hint}.": "缺少参数 {hint}。",
    "Missing command.": "缺少命令。",
    "No such option: {name} (Possible options: {names})": "没有选项 {name}（可能是：{names}）",
    "No such option: {name}. Did you mean {names}?": "没有选项 {name}。是不是 {names}？",
    "No such option: {name}": "没有选项 {name}",
    "No such command {name}. Did you mean {names}?": "没有命令 {name}。是不是 {names}？",
    "No such command {name}.": "没有命令 {name}。",
    "Got unexpected extra argument(s) ({args})": "多余的参数（{args}）",
    "Option {name} requires an argument.": "选项 {name} 需要一个值。",
    "Option {name} does not take a value.": "选项 {name} 不接受值。",
    "Writing": "正在写入",
    "folder {folder} does not exist": "文件夹 {folder} 不存在",
    "Wrote {count} Anki notes from {decks} decks to {path}": "已写入 {count} 条 Anki 笔记（来自 {decks} 个卡组）：{path}",
    "Wrote {count} Anki notes from 1 deck to {path}": "已写入 {count} 条 Anki 笔记（来自 1 个卡组）：{path}",
    "Wrote {count} rows from 1 deck to {path}": "已写入 {count} 行（来自 1 个卡组）：{path}",
    "Wrote {count} rows from {decks} decks to {path}": "已写入 {count} 行（来自 {decks} 个卡组）：{path}",
    # problems: answer formats and grading
    "Answer in your own words, then rate yourself 1-4.": "用自己的话回答，然后给自己打分 1-4。",
    "Expected {n} axes.": "应有 {n} 个维度。",
    "Right sizes, wrong order: check which axis is which.": "各维大小对了，顺序不对：检查每个轴代表什么。",
    "division by zero in {token}": "{token} 中除以零",
    "exact": "精确",
    "expected option letters A-{last} or numbers 1-{n}": "请输入选项字母 A-{last} 或编号 1-{n}",
    "expected text": "请输入文字",
    "expected exactly one answer: T/F, 对/错, or 1/2": "只需一个答案：T/F、对/错 或 1/2",
    # decks audit (decks/audit.py, cli/render/audit.py)
    "every choice card with 3+ options moves its right answer": "每张 3 个以上选项的选择题，正确选项的位置都会变",
    "no format line's example is the answer": "格式提示里的示例都不是答案",
    "every shape question gives its sizes": "每道形状题都给出了各维大小",
    "no generated draw lets a known wrong method pass": "生成的题目里，已知的错误算法都得不到正确答案",
    "audit passed": "审查通过",
    "audit failed": "审查未通过",
    "fixed numeric": "固定数值卡",
    "answer never moves": "正确选项从不移动",
    "format example is the answer": "格式示例就是答案",
    "shape question without sizes": "没给大小的形状题",
    "no letter is right in more than {n}% of single-answer choice showings": "单选题的出现中，没有哪个字母正确超过 {n}%",
    "true/false statements are true in {low}-{high}% of showings": "判断题的陈述在 {low}-{high}% 的出现中为真",
    "at most {n} fixed numeric cards": "固定数值卡不超过 {n} 张",
    "at most {n} near-duplicate question pairs": "近乎重复的题目不超过 {n} 对",
    "every generated card gives {n}+ answers per {seeds} seeds (or says why not)": "每张生成卡每 {seeds} 个种子给出至少 {n} 个不同答案（否则说明原因）",
    "{verdict}: {n} fixed numeric cards in all": "{verdict}：共 {n} 张固定数值卡",
    "{deck} ({n} cards)": "{deck}（{n} 张卡）",
    "from your log:": "来自你的答题记录：",
    "near-duplicate: {a} ~ {b} ({similarity:.2f})": "近乎重复：{a} ~ {b}（{similarity:.2f}）",
    "right letter: {letters}": "正确字母：{letters}",
    "true/false statements true: {share:.0%}": "判断题为真：{share:.0%}",
    "{card}: only {n} distinct answers": "{card}：只有 {n} 个不同答案",
    "{card}: a wrong method passes in {n} draws": "{card}：有 {n} 次抽题中错误算法也得到正确答案",
    "the right option is strictly the longest in at most {n}% of single-answer showings":
        "单选题的出现中，正确选项严格最长的不超过 {n}%",
    "every option but one is right in at most {n}% of multi-select showings": "多选题的出现中，只有一个选项错的不超过 {n}%",
    "judging true/false by a negation word is right in at most {n}% of showings":
        "判断题的出现中，凭否定词判断对错最多答对 {n}%",
    "copying a number shown with the question is right in at most {n}% of draws":
        "照抄题目里显示的数，最多在 {n}% 的抽题中正确",
    "right option strictly the longest": "正确选项严格最长",
    "every option but one right": "只有一个选项错",
    "a negation word means true": "有否定词即为真",
    "{label}: {share:.0%}": "{label}：{share:.0%}",
    "{card}: a number on screen is the answer in {n} draws": "{card}：有 {n} 次抽题中题面上的数就是答案",
    "always right at once": "一上来就总是答对",
    "the hint never helps": "提示从没帮上忙",
    "{label}: {cards}": "{label}：{cards}",
    "{card}: {n} answers, {share:.0%} right, median {seconds}s, {hinted} hinted": "{card}：{n} 次作答，{share:.0%} 答对，中位用时 {seconds} 秒，{hinted} 次看过提示",
    "that number has more than {n} digits": "这个数超过 {n} 位",
    "expected one number": "请输入一个数",
    "expected one number, such as 12 or 0.25": "请输入一个数，如 12 或 0.25",
    "expected numbers separated by commas or spaces": "请输入用逗号或空格分隔的数",
    "expected one list of numbers": "请输入一组数",
    "expected only rows of numbers, nothing around them": "只需输入各行数字，前后不要有别的文字",
    "expected rows of numbers, rows in brackets or separated by ;": "请按行输入数字：每行放在括号里，或用 ; 分隔",
    "every row needs the same number of entries": "每行的个数必须相同",
    "expected a shape of positive integers, comma- or x-separated": "请输入由正整数组成的形状，用逗号或 x 分隔",
    "expected the letter of an option": "请输入选项字母",
    "give all {n} item numbers 1-{n} in order, each once": "请按顺序写出全部 {n} 个编号 1-{n}，每个一次",
    "expected item numbers 1-{n} in order, separated by spaces": "请按顺序输入编号 1-{n}，用空格分隔",
    "each item may appear only once": "每项只能出现一次",
    "expected {n} numbers, e.g. {example}": "应有 {n} 个数，如 {example}",
    "expected {rows} rows of {cols} numbers, e.g. {example}": "应有 {rows} 行、每行 {cols} 个数，如 {example}",
    "round only the final answer: {d} decimals, within ±{abs:g}": "只在最后一步取整：{d} 位小数，误差 ±{abs:g} 以内",
    "One number, e.g. {example} or {grouped} ({tolerance}).": "一个数，如 {example} 或 {grouped}（{tolerance}）。",
    "One number, e.g. {example} or a fraction like {fraction} ({tolerance}).": "一个数，如 {example}，或分数如 {fraction}（{tolerance}）。",
    "{n} numbers, e.g. {example} or {spaced} ({tolerance}).": "{n} 个数，如 {example} 或 {spaced}（{tolerance}）。",
    "{rows} rows of {cols} numbers, e.g. {example} ({tolerance}).": "{rows} 行、每行 {cols} 个数，如 {example}（{tolerance}）。",
    "A shape: the sizes in order, e.g. [a, b, …] or a×b×… (exact).": "一个形状：按顺序写出各维大小，如 [a, b, …] 或 a×b×…（精确）。",
    "The letter of the right option; when several are right, all their letters, separated by spaces.": "正确选项的字母；有多个正确时写出全部字母，用空格分隔。",
    "All {n} item numbers in the right order, separated by spaces.": "按正确顺序写出全部 {n} 个编号，用空格分隔。",
    "The item numbers in the right order, separated by spaces.": "按正确顺序写出各项编号，用空格分隔。",
    "One answer: T/F, 对/错, or 1/2.": "一个答案：T/F、对/错 或 1/2。",
    "not a finite number: {token}": "不是有限数：{token}",
    "not a number: {token}": "不是数字：{token}",
    "within {rel:g} relative": "相对误差 {rel:g} 以内",
    # decks
    "Deck": "卡组",
    "Title": "标题",
    "Source": "出处",
    "Cards": "卡片数",
    "Kinds": "题型",
    "ID": "编号",
    "Kind": "题型",
    "Topic": "主题",
    "Tags": "标签",
    "Question": "问题",
    "ok: {decks}, {cards}": "通过：{decks}，{cards}",
    "{n} deck": "{n} 个卡组",
    "{n} decks": "{n} 个卡组",
    "{n} card": "{n} 张卡片",
    "{n} cards": "{n} 张卡片",
    # the topic graph (topics.yaml `requires`): explain, explain --graph, decks check
    "requires unknown topic {id!r}{hint}": "依赖了不存在的主题 {id!r}{hint}",
    "requires {id!r} twice": "重复依赖 {id!r}",
    "names core card {key!r} twice": "重复列出核心卡片 {key!r}",
    "names unknown core card {key!r}{hint}": "列出的核心卡片 {key!r} 不存在{hint}",
    "names core card {key!r}, a card of topic {other!r}": "列出的核心卡片 {key!r} 属于主题 {other!r}",
    "requires {id!r}, which needs it in turn: {loop}": "依赖 {id!r}，而它又反过来依赖本主题：{loop}",
    "a topics file is a mapping with 'groups' and a 'topics' list": "主题文件应是含 'groups' 和 'topics' 列表的映射",
    "topic {id!r} {message}": "主题 {id!r} {message}",
    "Needs": "需要先学",
    "Builds on it": "以它为基础",
    "none": "无",
    "Topic graph: each topic comes after what it needs (← requires)": "主题图：每个主题排在它依赖的主题之后（← 依赖）",
    "Layer {n}: needs nothing": "第 {n} 层：不依赖其他主题",
    "Layer {n}": "第 {n} 层",
    "One topic with what it needs and what builds on it: studytool explain TOPIC":
        "查看一个主题依赖什么、什么以它为基础：studytool explain TOPIC",
    "--graph draws every topic; drop TOPIC and --seed": "--graph 画出全部主题；请去掉 TOPIC 和 --seed",
    "on or off": "on 或 off",
    "Next level": "下次的难度级别",
    "Last answered": "上次作答的题",
    "level {n}": "级别 {n}",
    "Variant": "变体",
    "Already suspended, left as it was: {cards}.": "已经暂停，保持不变：{cards}。",
    "unknown shell {shell!r}: one of {shells}": "不认识的 shell {shell!r}：可选 {shells}",
    "seed {seed}": "种子 {seed}",
    "the notes' example": "讲义原例",
    "Implicit review: {n} card of a prerequisite topic rescheduled.": "隐式复习：调整了 {n} 张前置主题的卡片。",
    "Implicit review: {n} cards of prerequisite topics rescheduled.": "隐式复习：调整了 {n} 张前置主题的卡片。",
    "A review also credits the core cards of the topics it builds on (implicit review).":
        "复习一张卡片时，也为它所依赖主题的核心卡片记一部分复习（隐式复习）。",
    # explain and calc
    "Idea": "要点",
    "Formulas": "公式",
    "Worked example ({source}; generator {generator})": "算例（{source}；生成器 {generator}）",
    "{label}: ": "{label}：",
    "pinned numbers": "固定数字",
    "fresh variant, seed {seed}": "新变体，种子 {seed}",
    "Common mistakes": "常见误区",
    "Cards that drill it": "练习这个主题的卡片",
    "No cards drill this topic yet.": "还没有卡片练习这个主题。",
    "Quiz them": "练习这些卡片",
    "Also": "别名",
    "Show one: studytool explain TOPIC  (an id, alias or unique prefix)":
        "查看某个主题：studytool explain 主题（编号、别名或唯一前缀）",
    "topic {query!r} is ambiguous: it could be {names}": "主题 {query!r} 有歧义，可能是：{names}",
    "unknown topic {query!r}; did you mean {names}?": "没有主题 {query!r}；你是不是想找 {names}？",
    "empty {what}: give at least one number": "{what}为空：请至少输入一个数",
    "vector": "向量",
    # card kinds as `explain` lists them (cli/render/explain.py)
    "recall": "问答",
    "choice": "选择",
    "true-or-false": "判断",
    "number": "数值",
    "order": "排序",
    "generated": "随机生成",
    "row": "行",
    "empty batch: give rows like 1,10 3,14": "batch 为空：请按行输入，如 1,10 3,14",
    "one row per argument, or the whole batch as one matrix: [[1,10],[3,14]]":
        "每个参数一行，或把整个 batch 写成一个矩阵：[[1,10],[3,14]]",
    "rows have different lengths: every row needs the same number of features": "各行长度不同：每行的特征数必须相同",
    "BatchNorm needs at least 2 samples: with one, every feature's variance is 0":
        "BatchNorm 至少需要 2 个样本：只有一个样本时，每个特征的方差都是 0",
    "{name} must be a positive integer, got {value}": "{name} 必须是正整数，收到的是 {value}",
    "d_model={d_model} is not divisible by heads={heads}": "d_model={d_model} 不能被 heads={heads} 整除",
    "eps must be a finite number >= 0, got {eps}": "eps 必须是 ≥ 0 的有限数，收到的是 {eps}",
    "a {positions} x {d_model} table is too large to print (at most {cells} numbers)":
        "{positions} × {d_model} 的表太大，无法打印（最多 {cells} 个数）",
    "input X": "输入 X",
    "mean": "均值",
    "variance": "方差",
    "(divide by K, not K−1)": "（除以 K，不是 K−1）",
    "BatchNorm: each feature over the batch": "BatchNorm：每个特征在 batch 上统计",
    "sample": "样本",
    "part": "部分",
    "step": "步骤",
    "shape": "形状",
    "with biases and LayerNorms": "含偏置和 LayerNorm",
    "notes: weights only": "笔记口径：只计权重矩阵",
    "multi-head attention": "多头注意力",
    "feed-forward network": "前馈网络",
    "LayerNorm": "LayerNorm",
    "encoder block": "encoder block",
    "decoder block": "decoder block",
    "encoder + decoder": "encoder + decoder",
    "{n} × encoder block": "{n} × encoder block",
    "{n} × decoder block": "{n} × decoder block",
    "encoder stack ({n} layers + final LayerNorm)": "encoder 堆叠（{n} 层 + 最后的 LayerNorm）",
    "decoder stack ({n} layers + final LayerNorm)": "decoder 堆叠（{n} 层 + 最后的 LayerNorm）",
    "embedding": "词嵌入",
    "output projection": "输出投影",
    "showing {dims} of {d_model} dimensions and {shown} of {positions} positions; --json gives the whole table":
        "显示 {d_model} 个维度中的 {dims} 个、{positions} 个位置中的 {shown} 个；--json 输出整张表",
    # config: remembered settings (study/settings.py)
    "a whole number from {low} to {high}": "{low} 到 {high} 之间的整数",
    "a number from 0.7 to 0.99": "0.7 到 0.99 之间的数",
    "steps like '1m 10m' (units s, m, h, d)": "形如 '1m 10m' 的步长（单位 s、m、h、d）",
    "at most {n} steps": "最多 {n} 个步长",
    "steps of at most {days} days each": "每个步长最多 {days} 天",
    "`studytool config {name}{deck} --reset` or `studytool config {name}{deck} VALUE`":
        "`studytool config {name}{deck} --reset` 或 `studytool config {name}{deck} 值`",
    "the progress database holds {value!r} for {name}, which must be {expected}; run {repair}":
        "进度数据库里 {name} 的值是 {value!r}，但它必须是{expected}；请运行 {repair}",
    "invalid": "无效",
    "{name}: the stored value is not valid, it must be {expected}; run {repair}":
        "{name}：保存的值无效，它必须是{expected}；请运行 {repair}",
    "Session ended early.": "本次学习提前结束。",
    "{n} card still due now.": "现在还有 {n} 张卡片到期。",
    "{n} cards still due now.": "现在还有 {n} 张卡片到期。",
    "Today's review limit holds it back (config max_reviews_per_day).":
        "它超出了今天的复习上限（config max_reviews_per_day）。",
    "Today's review limit holds them back (config max_reviews_per_day).":
        "它们超出了今天的复习上限（config max_reviews_per_day）。",
    "(you opened :explain: rated at most Hard)": "（你打开过 :explain：最多评为“困难”）",
    "--db {path}: the folder {folder} does not exist (check the path)": "--db {path}：文件夹 {folder} 不存在（请检查路径）",
    "21 numbers separated by commas or spaces": "21 个用逗号或空格分隔的数",
    "within FSRS's bounds (w{index} from {low} to {high}, got {value})":
        "在 FSRS 的范围内（w{index} 应在 {low} 到 {high} 之间，收到的是 {value}）",
    "New cards a deck introduces per day; the global value caps several decks' total too.":
        "每个卡组每天引入的新卡数；多个卡组一起复习时，全局值还限制总数。",
    "Most review cards a deck shows per day; the global value caps several decks' total too.":
        "每个卡组每天最多复习的卡片数；多个卡组一起复习时，全局值还限制总数。",
    "Desired retention: the recall probability FSRS aims for.": "期望记忆保留率：FSRS 追求的回忆概率。",
    "Hour (local time) at which the next day starts.": "新的一天从几点开始（本地时间）。",
    "Lapses after which a card is a leech (suspended).": "遗忘多少次后卡片成为难记卡（leech，并被暂停）。",
    "Steps of a new card before it graduates.": "新卡毕业前的学习步长。",
    "Steps of a forgotten card before it is a review card again.": "遗忘的卡片重新成为复习卡前的重学步长。",
    "The 21 FSRS weights (`studytool optimize` fits them to your reviews).":
        "FSRS 的 21 个权重（`studytool optimize` 会按你的复习记录拟合）。",
    "unknown setting {name!r}; settings: {names}": "没有设置项 {name!r}；现有设置项：{names}",
    "{name} is one value for every deck (as in Anki); drop --deck": "{name} 对所有卡组只有一个值（与 Anki 相同）；去掉 --deck",
    "{name} must be {expected}": "{name} 必须是{expected}",
    # cards: the browser (study/cards.py)
    "unknown card {ref!r}: name a card DECK/ID, as `studytool cards list` shows them":
        "没有卡片 {ref!r}：请用 卡组/编号 指明卡片，与 `studytool cards list` 显示的一致",
    "card {ref!r} is in {n} decks: name one of {cards}": "卡片 {ref!r} 在 {n} 个卡组里都有，请指明其中一个：{cards}",
    "unknown state {state!r}; states: {states}": "没有状态 {state!r}；可用状态：{states}",
    # optimize (study/optimize.py)
    "not enough reviews to optimize: {usable} usable of the {needed} FSRS needs ({items} came a day or"
    " more after the card's last review; FSRS sets aside those whose first rating and gap too few cards"
    " share)":
        "复习记录不足，无法优化：可用 {usable} 条，FSRS 至少需要 {needed} 条（距该卡上次复习至少一天的复习有 {items} 条；"
        "首次评分和间隔相同的卡片太少时，FSRS 会把它们剔除）",
    # cards, config and optimize on screen (cli/render/cards.py, cli/render/config.py)
    "Mode": "方式",
    "Rating": "评分",
    "new": "新卡",
    "learning": "学习中",
    "review": "复习",
    "quiz": "练习",
    "implicit": "隐式复习",
    "relearning": "重学中",
    "suspended": "已暂停",
    "buried": "已搁置",
    "leech": "难记卡",
    "No cards match.": "没有符合条件的卡片。",
    "Card": "卡片",
    "State": "状态",
    "Due": "到期",
    "Flags": "标记",
    "Stability": "稳定性",
    "Difficulty": "难度",
    "Retrievability now": "当前可提取性",
    "Reps": "复习次数",
    "Lapses": "遗忘次数",
    "No answers yet.": "还没有回答记录。",
    "Answers": "回答记录",
    "days": "天",
    "Suspended {n} card(s): {cards}.": "已暂停 {n} 张卡片：{cards}。",
    "Unsuspended {n} card(s): {cards}.": "已恢复 {n} 张卡片：{cards}。",
    "Buried {n} card(s) until {until}: {cards}.": "已搁置 {n} 张卡片，直到 {until}：{cards}。",
    "Reset {n} card(s) to new (their history stays): {cards}.": "已将 {n} 张卡片重置为新卡（历史记录保留）：{cards}。",
    "Setting": "设置项",
    "Value": "值",
    "From": "来源",
    "What it does": "作用",
    "default": "默认",
    "set": "已设置",
    "set for {deck}": "为 {deck} 设置",
    "--reset takes a KEY and no VALUE": "--reset 需要一个 KEY，且不带 VALUE",
    "Fitted FSRS to {reviews} reviews ({items} training items).": "已用 {reviews} 次复习拟合 FSRS（{items} 个训练样本）。",
    "Under 64 items the optimizer fits only the four initial stabilities (w0-w3).":
        "样本不足 64 个时，优化器只拟合四个初始稳定性（w0-w3）。",
    "Warning: {reviews} reviews are few for a trustworthy fit; Anki advises optimizing after "
    "{advised} or more, and until then the fitted parameters may still move a lot.":
        "注意：{reviews} 次复习还不足以得到可靠的拟合；Anki 建议在复习 {advised} 次以上后再优化，在此之前拟合出的参数仍可能大幅变化。",
    "Log loss: {default:.4f} with the default parameters, {optimized:.4f} fitted "
    "(RMSE {rmse_default:.1%} -> {rmse_optimized:.1%}).":
        "对数损失：默认参数 {default:.4f}，拟合后 {optimized:.4f}（RMSE {rmse_default:.1%} -> {rmse_optimized:.1%}）。",
    "Parameters: {parameters}": "参数：{parameters}",
    "Not stored (--dry-run).": "未保存（--dry-run）。",
    "Stored as config parameters: reviews are scheduled with them from now on.":
        "已保存为 config parameters：今后的复习按这些参数安排。",
    "Not stored: the parameters in use ({current:.4f}) predict your reviews as well or better.":
        "未保存：正在使用的参数（{current:.4f}）对你的复习预测得同样好或更好。",
    # study: quiz, review, stats
    "Again": "重来",
    "Due today": "今日到期",
    "Learning": "学习中",
    "New": "新卡",
    "Nothing to undo.": "没有可撤销的回答或跳过。",
    "Replay this quiz: the same command with --seed {seed}": "重做这次测验：同一条命令加上 --seed {seed}",
    "Review": "复习",
    "Took back the answer to {card}.": "已撤销对 {card} 的回答。",
    "Took back the skip of {card}.": "已撤销对 {card} 的跳过。",
    "again": "重来",
    "{count} again": "{count} 张待重来",
    "{count} learning": "{count} 张学习中",
    "{minutes}m {seconds:02d}s": "{minutes} 分 {seconds:02d} 秒",
    "True": "对",
    "False": "错",
    "Type 1, 2, 3 or 4.": "请输入 1、2、3 或 4。",
    "Your answer": "你的答案",
    "not a studytool database": "不是 studytool 的数据库",
    "{path}: cannot use this progress database ({reason})": "{path}：无法使用这个进度数据库（{reason}）",
    "{path}: the database or its folder is read-only, so nothing can be written; 'studytool stats', 'cards list' and 'backup list' still read it": "{path}：数据库或其所在文件夹是只读的，无法写入；'studytool stats'、'cards list' 和 'backup list' 仍可读取它",
    "{folder} is read-only: cannot restore {db} (nothing was changed); 'studytool stats', 'cards list' and 'backup list' still read it": "{folder} 是只读的：无法恢复 {db}（没有改动任何内容）；'studytool stats'、'cards list' 和 'backup list' 仍可读取它",
    "{path}: written by a newer studytool (schema {found}, this one knows {known}); upgrade studytool": "{path}：由更新版本的 studytool 写入（数据库版本 {found}，本版本只认识到 {known}）；请升级 studytool",
    # pictures (cli/render/pictures.py, the stats calendar and charts, mask grids, heatmaps)
    "Study calendar: answers per day, last 26 weeks": "学习日历：每日回答数（最近 26 周）",
    "Due in the next 30 days": "未来 30 天到期",
    "True retention by week": "每周真实保持率",
    "No answers on cards in review in the last 26 weeks.": "最近 26 周没有对复习期卡片的回答。",
    "Mon": "周一", "Tue": "周二", "Wed": "周三", "Thu": "周四", "Fri": "周五", "Sat": "周六", "Sun": "周日",
    "Jan": "1月", "Feb": "2月", "Mar": "3月", "Apr": "4月", "May": "5月", "Jun": "6月",
    "Jul": "7月", "Aug": "8月", "Sep": "9月", "Oct": "10月", "Nov": "11月", "Dec": "12月",
    "blocked": "遮住", "visible": "可见",
    "(row = query, column = key)": "（行 = query，列 = key）",
    "sentence {b} (length {n})": "句子 {b}（长度 {n}）",
    "head {h}": "头 {h}",
    "causal mask, n = {n}: query i sees keys j <= i": "因果掩码，n = {n}：第 i 个 query 只看 j <= i 的 key",
    "padding mask, lengths {lengths}, max_len = {max_len}: padded keys are blocked":
        "填充掩码，长度 {lengths}，max_len = {max_len}：补齐的 key 被遮住",
    "Attention weights per head: one random sentence, seed {seed} (each row sums to 1)":
        "各头的注意力权重：一句随机输入，种子 {seed}（每行和为 1）",
    "empty lengths: give sentence lengths like 3,5,2": "长度为空：请给出句子长度，例如 3,5,2",
    "a sentence length is a whole number from 1 on, got {token}": "句子长度须是从 1 起的整数，收到的是 {token}",
    "give one of --causal N or --lengths 3,5,2": "请给出 --causal N 或 --lengths 3,5,2 其中之一",
    "a mask over {n} positions is too large to draw (at most {most})": "{n} 个位置的掩码太大，画不下（最多 {most}）",
    "--weights draws an L x L grid per head: use --seq {most} or less": "--weights 为每个头画一张 L x L 的图：请用 --seq {most} 或更小",
    "--weights builds a real attention layer: use --d-model {most} or less": "--weights 会建一个真实的注意力层：请用 --d-model {most} 或更小",
    "--weights draws an L x L grid per head: use --heads {most} or fewer": "--weights 为每个头画一张 L x L 的图：请用 --heads {most} 或更少",
    "{token} is too large: calc takes numbers up to {most} in size (float64 keeps every integer exact up to there)": "{token} 太大：calc 只接受绝对值不超过 {most} 的数（在这个范围内 float64 能精确表示每个整数）",
    "these numbers are too close together for their size: float64 rounding would change the 6 decimals shown; subtract a common offset first ({what} gives the same result)": "这些数相对自身大小挨得太近：float64 的舍入会改变显示的 6 位小数；请先减去一个共同的偏移量（{what} 的结果不变）",
    "σ² + ε is {value:g} here, too small to divide by in float64: {what} needs a larger eps": "这里 σ² + ε 为 {value:g}，在 float64 中太小，不能做除数：{what} 需要更大的 eps",
    "these numbers are too large to normalise exactly: float64 cannot show their mean and σ² to 6 decimals (it can for numbers up to about 1e9 and σ² up to about 1e8)": "这些数太大，无法精确归一化：float64 无法把它们的均值和 σ² 显示到 6 位小数（数在约 1e9 以内、σ² 在约 1e8 以内才可以）",
    "The notes' d = 3 table": "笔记里 d = 3 的表",
    "Picture: PE of {positions} positions x {dims} dimensions (rows = positions)":
        "图：{positions} 个位置 x {dims} 个维度的位置编码（行 = 位置）",
    "Picture: the worked example's attention weights (each row sums to 1)": "图：算例的注意力权重（每行和为 1）",
    "Answers recorded": "已记录的回答",
    "Score": "得分",
    "Skipped": "跳过",
    "Hinted": "看过提示",
    "Time": "用时",
    "When": "时间",
    "True retention (30 days)": "真实保持率（30 天）",
    "Weakest topics (30 days)": "最薄弱的主题（30 天）",
    "Weakest topics": "最薄弱的主题",
    "reviews": "次复习",
    "Hard": "困难",
    "Good": "良好",
    "Easy": "简单",
    "At any prompt: :q quit, :skip, :undo, :explain, :help": "任何提示下都可输入：:q 退出，:skip 跳过，:undo 撤销，:explain 讲解，:help 帮助",
    "unknown command {command} — use :q :skip :undo :explain :suspend :bury :flag :info :edit :help":
        "未知命令 {command}——可用 :q :skip :undo :explain :suspend :bury :flag :info :edit :help",
    "Answer in your own words (or just press Enter), then rate yourself 1-4.": "用自己的话回答（或直接按回车），然后给自己打分 1-4。",
    "STUDYTOOL_HOME ({home}) is a file, not a folder": "STUDYTOOL_HOME（{home}）是一个文件，不是文件夹",
    "{folder} is a file, not a folder": "{folder} 是一个文件，不是文件夹",
    "Due now": "现在到期",
    "Nothing to review now.": "现在没有要复习的卡片。",
    "Next card due at {time} ({count} due later today).": "下一张卡片 {time} 到期（今天稍后共 {count} 张到期）。",
    "Next card due {date} at {time}.": "下一张卡片 {date} {time} 到期。",
    "No new cards left in these decks.": "这些卡组里已没有新卡片。",
    # scheduling: the clock, Anki's day, the outlook, leeches
    "Due tomorrow: {tomorrow}; in the next 7 days: {week}.": "明天到期：{tomorrow} 张；未来 7 天：{week} 张。",
    "STUDYTOOL_NOW must be an ISO 8601 time with an offset, like 2026-03-02T08:00:00+00:00; got {value!r}":
        "STUDYTOOL_NOW 必须是带时区偏移的 ISO 8601 时间，例如 2026-03-02T08:00:00+00:00；收到的是 {value!r}",
    "STUDYTOOL_NOW must be a time from the year {first} to the year {last}, like 2026-03-02T08:00:00+00:00; "
    "got {value!r}": "STUDYTOOL_NOW 必须是 {first} 年到 {last} 年之间的时间，例如 2026-03-02T08:00:00+00:00；收到的是 {value!r}",
    "day_start must be an hour from 0 to 23, got {value}": "day_start 必须是 0 到 23 之间的整点，收到的是 {value}",
    "{card} is a leech ({lapses} lapse): suspended; `studytool cards unsuspend {card}` brings it back":
        "{card} 是难记卡（已遗忘 {lapses} 次）：已暂停；用 `studytool cards unsuspend {card}` 恢复",
    "{card} is a leech ({lapses} lapses): suspended; `studytool cards unsuspend {card}` brings it back":
        "{card} 是难记卡（已遗忘 {lapses} 次）：已暂停；用 `studytool cards unsuspend {card}` 恢复",
    "New cards: {left} of {limit} left today (use --new N for more).": "新卡片：今天还剩 {left} / {limit} 张（用 --new N 放宽上限）。",
    ":q        quit (every answer so far is saved)\n"
    ":skip     skip this card\n"
    ":undo     take back the last answer or skip\n"
    ":explain  explain this card's topic\n"
    ":suspend  suspend this card (out of reviews until 'cards unsuspend')\n"
    ":bury     bury this card until tomorrow\n"
    ":flag N   flag this card: 1 red ... 7 purple, 0 none\n"
    ":info     this card's schedule and history\n"
    ":edit     open this card in $EDITOR, then check and reload its deck\n"
    ":help     this list\n"
    "[2/20 · 1 again · 1 learning]  card 2 of 20; 1 missed and 1 learning to come":
        ":q        退出（已答的都已保存）\n"
        ":skip     跳过这张卡\n"
        ":undo     撤销上一次回答或跳过\n"
        ":explain  讲解这张卡的主题\n"
        ":suspend  暂停这张卡（不再复习，直到 'cards unsuspend'）\n"
        ":bury     搁置这张卡到明天\n"
        ":flag N   给这张卡标旗：1 红 … 7 紫，0 取消\n"
        ":info     这张卡的排程与历史\n"
        ":edit     在 $EDITOR 中打开这张卡，再检查并重新载入卡组\n"
        ":help     显示本列表\n"
        "[2/20 · 1 张待重来 · 1 张学习中]  第 2 张，共 20 张；答错的和学习中的稍后回来",
    # worksheet
    "Transformer worksheet": "Transformer 练习卷",
    "{n} questions · seed {seed} (run again with --seed {seed} for the same sheet)":
        "共 {n} 题 · seed {seed}（用 --seed {seed} 可再生成同一份）",
    "Questions": "题目",
    "Answer key": "答案与解答",
    "Reference answer": "参考答案",
    # decks: a broken deck, in one line
    "{file}: {count} problems in the deck (first: {first})": "{file}：卡组有 {count} 处问题（第一处：{first}）",
    "run 'studytool decks check {file}'": "运行 'studytool decks check {file}' 查看全部",
    "run 'studytool decks check' for every problem in {count} files":
        "运行 'studytool decks check' 查看 {count} 个文件中的全部问题",
    "unknown topic {query!r}; run 'studytool explain' for the list":
        "没有主题 {query!r}；运行 'studytool explain' 查看全部主题",
    "a seed draws one topic's example; name the topic, e.g. studytool explain attention --seed {seed}":
        "seed 用来为某个主题重新出算例，请写明主题，例如 studytool explain attention --seed {seed}",
    "{path} is a directory, not a database file": "{path} 是一个文件夹，不是数据库文件",
    # usage errors: a value out of range or of the wrong type
    "must be {ge} or more, not {input}": "应当不小于 {ge}，而不是 {input}",
    "must be from {ge} to {le}, not {input}": "应当在 {ge} 到 {le} 之间，而不是 {input}",
    "must be a whole number, not {input}": "应当是整数，而不是 {input}",
    "must be a number, not {input}": "应当是数字，而不是 {input}",
    "must be one of {choices}, not {input}": "应当是 {choices} 之一，而不是 {input}",
    "standard output": "标准输出",
    "{option} is a global option: put it before the command, as in 'studytool {option} … {command}'":
        "{option} 是全局选项：请放在命令之前，例如 'studytool {option} … {command}'",
    # decks check: problems in a deck file
    "a mapping": "映射",
    "a list": "列表",
    "text": "文本",
    "an integer": "整数",
    "a number": "数字",
    "true/false": "true/false",
    "nothing": "空值",
    "an id": "编号",
    "true or false": "true 或 false",
    "a letter": "选项字母",
    "an {kind}": "{kind}",
    "a {kind}": "{kind}",
    "card {card}: ": "卡片 {card}：",
    "; did you mean {name}?": "；是不是 {name}？",
    "{message}, not {got}": "{message}，而不是{got}",
    "the file is empty; a deck is a mapping with deck, title and cards": "文件是空的；卡组是含 deck、title 和 cards 的映射",
    "a deck must be a mapping with deck, title and cards": "卡组必须是含 deck、title 和 cards 的映射",
    "a deck needs deck, title and cards": "卡组需要 deck、title 和 cards",
    "cards must be a list of cards": "cards 必须是卡片列表",
    "cards is empty; a deck needs at least one card": "cards 是空的；卡组至少要有一张卡片",
    "a card must be a mapping (id: ..., kind: ...)": "卡片必须是映射（id: ...、kind: ...）",
    "every card needs id, kind, topic": "每张卡片都需要 id、kind、topic",
    "{a_kind} card needs {fields}": "{a_kind} 卡片需要 {fields}",
    "missing {fields} ({needs})": "缺少 {fields}（{needs}）",
    "unknown field {key!r}": "未知字段 {key!r}",
    "unknown field {key!r} for {a_kind} card": "{a_kind} 卡片没有字段 {key!r}",
    "field {key!r} is given twice": "字段 {key!r} 出现了两次",
    "field names must be plain text": "字段名必须是普通文本",
    "merge keys (<<) are not supported; write the fields out": "不支持合并键（<<）；请把字段逐个写出",
    "YAML tag {tag} is not allowed (a deck is plain data)": "不允许 YAML 标签 {tag}（卡组只能是普通数据）",
    "must be {want}, got {got}": "应为{want}，实际是{got}",
    "must not be empty": "不能为空",
    "must be a finite number": "必须是有限的数",
    "must not be negative": "不能为负",
    "must be at most {most} in size (what float64 holds exactly and a learner can type), got {value}": "绝对值不能超过 {most}（float64 能精确表示、学习者能输入的范围），实际是 {value}",
    "must be 0 (exact) or at least {least}: a float64 answer has no finer digits to grade, got {value}": "必须是 0（精确）或不小于 {least}：float64 答案没有更细的位数可评分，实际是 {value}",
    "must be a positive integer, got {value}": "必须是正整数，实际是 {value}",
    "must be a list, got {got}": "必须是列表，实际是{got}",
    "must have {lo} to {hi} entries, got {n}": "应有 {lo} 到 {hi} 项，实际 {n} 项",
    "must have at least {lo} entries, got {n}": "至少应有 {lo} 项，实际 {n} 项",
    "must be a mapping of name: value, got {got}": "必须是“名称: 值”的映射，实际是{got}",
    "nested more than {depth} levels deep": "嵌套超过 {depth} 层",
    "{value!r} is not a valid id (lowercase letters, digits and hyphens, e.g. ln-direction)":
        "{value!r} 不是合法编号（只用小写字母、数字和连字符，如 ln-direction）",
    "{value!r} is listed twice": "{value!r} 出现了两次",
    "; items must differ (each is answered by its number)": "；各项必须不同（作答时用编号指代每一项）",
    "unknown tag {value!r}; tags are {tags}": "未知标签 {value!r}；可用标签：{tags}",
    "{value!r} is not an option letter (A, B, C ...)": "{value!r} 不是选项字母（A、B、C ...）",
    "duplicate card id (first used on line {line})": "卡片编号重复（第 {line} 行已用过）",
    "unknown kind {kind!r}; kinds are {kinds}": "未知题型 {kind!r}；可用题型：{kinds}",
    "unknown topic {topic!r}{near} (see 'studytool explain')": "未知主题 {topic!r}{near}（见 'studytool explain'）",
    "{field} {letter} is not among the {n} options (A to {last})": "{field} {letter} 不在 {n} 个选项之内（A 到 {last}）",
    "option {letter} ({option!r}) speaks of the other options: pin it (pin: [{letter}]) so shuffling keeps it in place":
        "选项 {letter}（{option!r}）提到了其他选项：请固定它（pin: [{letter}]），打乱选项时它才留在原位",
    "unknown generator {name!r}": "未知生成器 {name!r}",
    "{generator} cannot use these parameters ({error})": "{generator} 无法使用这些参数（{error}）",
    "recall cards have 'q' and the reference answer 'a'": "recall 卡片有 'q' 和参考答案 'a'",
    "choice cards have 'q', 'options', 'answer' (a letter, or a list of letters) and an optional 'pin' "
    "(letters of options that stay in place when the options are shuffled)":
        "choice 卡片有 'q'、'options'、'answer'（一个字母，或字母列表）和可选的 'pin'（打乱选项时留在原位的选项字母）",
    "truefalse cards have 'statement', 'answer' (true or false), 'opposite' (the statement with the other truth "
    "value) and 'why'; no 'q'":
        "truefalse 卡片有 'statement'、'answer'（true 或 false）、'opposite'（真假相反的说法）和 'why'；没有 'q'",
    "number cards have 'q', 'answer' (a number) and an optional 'tolerance'":
        "number 卡片有 'q'、'answer'（一个数）和可选的 'tolerance'",
    "vector cards have 'q', 'answer' (a list of numbers) and an optional 'tolerance'":
        "vector 卡片有 'q'、'answer'（数的列表）和可选的 'tolerance'",
    "shape cards have 'q' and 'answer' (a list of positive integers)": "shape 卡片有 'q' 和 'answer'（正整数列表）",
    "order cards list 'items' in the right order; they have no 'answer'":
        "order 卡片按正确顺序列出 'items'；没有 'answer'",
    "generated cards have 'generator' and optional 'params' and 'example'; the generator writes the question and answer":
        "generated 卡片有 'generator' 和可选的 'params'、'example'；题目和答案由生成器给出",
    "deck id {deck!r} is already used by {file}": "卡组编号 {deck!r} 已被 {file} 使用",
    "invalid YAML: {detail}": "YAML 格式错误：{detail}",
    "nested too deeply": "嵌套太深",
    "cannot read the file: {reason}": "无法读取文件：{reason}",
    "{path} is {kind}, not a database file": "{path} 是{kind}，不是数据库文件",
    "these sizes are too large to trace: an array would have more elements than NumPy can index; try smaller sizes (the shapes scale the same way)": "这些尺寸太大，无法追踪：某个数组的元素个数超出 NumPy 能索引的范围；请用小一些的尺寸（形状的规律相同）",
    "at most {n} numbers, please (calc shows every step for each)": "最多 {n} 个数（calc 会为每个数列出每一步）",
    "cannot write the output: {reason}": "无法写出输出：{reason}",
    "the progress database failed: {reason}": "学习进度数据库出错：{reason}",
    "warning: {message}": "警告：{message}",
    "Backed up {db} to {path} ({answers} answers)": "已将 {db} 备份到 {path}（{answers} 条作答）",
    "Restored {name} (taken {time}, {answers} answers) to {db}": "已将 {name}（{time} 备份，{answers} 条作答）恢复到 {db}",
    "The replaced database ({answers} answers) is kept as {path}": "被替换的数据库（{answers} 条作答）保留为 {path}",
    "None of these passes the integrity check.": "这些备份都没有通过完整性检查。",
    "Without a NAME, 'studytool backup restore' puts back {name} (taken {time}, {answers} answers): the one taken last that passes the integrity check.": "不给 NAME 时，'studytool backup restore' 恢复 {name}（{time} 备份，{answers} 条作答）：通过完整性检查的最后一个备份。",
    "{db} does not exist yet; nothing to back up": "{db} 还不存在；没有可备份的内容",
    "Name": "名称",
    "Taken": "时间",
    "Size": "大小",
    "No backups yet in {folder} (one is taken before the first answer of each day)": "{folder} 中还没有备份（每天第一次作答前会自动备份一次）",
    "{db} is damaged ({reason}); nothing was written. The newest good backup is {name} ({answers} answers): restore it with 'studytool backup restore {name}'": "{db} 已损坏（{reason}）；没有写入任何内容。最新的完好备份是 {name}（{answers} 条作答）：用 'studytool backup restore {name}' 恢复",
    "no backup named {name!r}; see 'studytool backup list'": "没有名为 {name!r} 的备份；见 'studytool backup list'",
    "{db} is damaged ({reason}); nothing was written, and there is no backup to restore": "{db} 已损坏（{reason}）；没有写入任何内容，也没有可恢复的备份",
    "backup {name} is damaged too ({reason}); choose another ('studytool backup list')": "备份 {name} 也已损坏（{reason}）；请另选一个（'studytool backup list'）",
    "no backups of {db} in {folder}": "{folder} 中没有 {db} 的备份",
    "cannot back up {db} into {folder} ({reason}); nothing was written": "无法把 {db} 备份到 {folder}（{reason}）；没有写入任何内容",
    "{folder} is read-only: cannot back up {db} (nothing was written); 'studytool stats', 'cards list' and 'backup list' still read it": "{folder} 是只读的：无法备份 {db}（没有写入任何内容）；'studytool stats'、'cards list' 和 'backup list' 仍可读取它",
    "{db} is healthy; add --force to replace it with {name} (it is kept beside it)": "{db} 完好；要用 {name} 替换它请加 --force（原文件会保留在旁边）",
    "every backup in {folder} is damaged": "{folder} 中的备份都已损坏",
    "{first}; {count} more problems": "{first}；另有 {count} 处问题",
    "cannot restore {db}: {reason}": "无法恢复 {db}：{reason}",
    "the progress database holds {value} where {what} belongs; see 'studytool backup list' to restore a backup": "学习进度数据库中本应是{what}的地方是 {value}；可用 'studytool backup list' 查看并恢复备份",
    "it holds {value} where {what} belongs": "本应是{what}的地方是 {value}",
    "cannot write {path}: the Anki collection built for it in {folder} failed ({reason})": "无法写入 {path}：在 {folder} 中为它构建的 Anki 集合失败（{reason}）",
    "Not taken back: {card} was answered in another session since, and its schedule is that answer's now.": "未撤销：{card} 之后已在另一个会话中作答，它的排程现在以那次作答为准。",
    "{path}: the name {name} is {length} bytes long, over the {limit} a file system allows": "{path}：其中的名字 {name} 长 {length} 字节，超过文件系统允许的 {limit} 字节",
    "{path}: the path is {length} bytes long, over the {limit} a file system allows": "{path}：路径长 {length} 字节，超过文件系统允许的 {limit} 字节",
    "a time": "时间",
    "a rating from 1 to 4": "1 到 4 的评分",
    "an answer": "答案文本",
    "a mode": "作答方式",
    "the drawn inputs (a JSON object)": "抽取的输入（JSON 对象）",
    "a schedule fsrs cannot use for {key}": "{key} 的排程 fsrs 无法使用",
    "the progress database holds a schedule fsrs cannot use for {key} (state {state!r}, step {step!r}, stability {stability!r}, difficulty {difficulty!r}); see 'studytool backup list' to restore a backup": "学习进度数据库中 {key} 的排程 fsrs 无法使用（state {state!r}、step {step!r}、stability {stability!r}、difficulty {difficulty!r}）；可用 'studytool backup list' 查看并恢复备份",
    "table {table} is missing": "缺少表 {table}",
    "the migrations table holds {value!r} where a schema version belongs": "migrations 表中本该是结构版本号的地方是 {value!r}",
    "{kind} {name} is not one studytool's migrations create": "{kind} {name} 不是 studytool 的迁移所建",
    "{path} was replaced while this command ran (by 'studytool backup restore'?): nothing more was written to it; "
    "run the command again": "{path} 在本命令运行期间被替换（'studytool backup restore'？）：之后没有再写入它；请重新运行命令",
    "{path} is the progress database (or its journal); export to another file": "{path} 是学习进度数据库（或其日志文件）；请导出到别的文件",
    "{path} exists and is not a file; export to another path": "{path} 已存在且不是文件；请导出到别的路径",
    "{path} exists and is not an earlier export of this kind; use --force to replace it": "{path} 已存在，且不是之前同类的导出文件；要替换请加 --force",
    "--variants must be from 1 to {most}, not {variants}": "--variants 须在 1 到 {most} 之间，而不是 {variants}",
    "cannot write {path}: {reason}": "无法写入 {path}：{reason}",
    "control character U+{code} is not allowed in deck text (only newline and tab are)": "卡组文本中不允许控制字符 U+{code}（只允许换行和制表符）",
    "invisible character U+{code} is not allowed in deck text: it reorders or hides what is shown (bidirectional controls, zero-width spaces)": "卡组文本中不允许不可见字符 U+{code}：它会打乱或隐藏显示的文字（双向控制符、零宽空格）",
    "a number written with more than {n} characters is not allowed": "数字的写法不能超过 {n} 个字符",
    "a folder": "文件夹",
    "a named pipe (FIFO)": "命名管道（FIFO）",
    "a symbolic link": "符号链接",
    "a socket": "套接字",
    "a device": "设备文件",
    "cannot read the folder: {reason}": "无法读取文件夹：{reason}",
    "skipped: {why}": "已跳过：{why}",
    "a symbolic link that loops": "循环的符号链接",
    "a symbolic link to {target}, which does not exist": "指向不存在的 {target} 的符号链接",
    "cannot read it: {reason}": "无法读取：{reason}",
    "a folder (decks in sub-folders are not read)": "文件夹（子文件夹中的卡组不会读取）",
    "{kind}, not a regular file": "{kind}，不是普通文件",
    "deck files end in lowercase .yaml or .yml": "卡组文件须以小写的 .yaml 或 .yml 结尾",
    "not a deck file: {kind}": "不是卡组文件：{kind}",
    "file is larger than {mib} MiB; split the deck": "文件超过 {mib} MiB；请拆分卡组",
    "not UTF-8 text (byte {byte}); save the file as UTF-8": "不是 UTF-8 文本（字节 {byte}）；请存为 UTF-8",
    "recursive alias *{anchor} (it refers to itself)": "递归别名 *{anchor}（引用了自身）",
    "aliases expand to more than {n} nodes (an alias bomb?); refused": "别名展开超过 {n} 个节点（别名炸弹？）；已拒绝",
    " ({hint})": "（{hint}）",
    "{problem}; {advice}": "{problem}；{advice}",
    "give {d} decimals (your {given} rounds the same)": "请给出 {d} 位小数（你的 {given} 四舍五入后一致）",
    "Close (rated Hard)": "很接近（记为“困难”）",
    "close — off only in the last digit: round once, at the end, to {d} decimals":
        "很接近——只差最后一位：只在最后一步舍入一次，保留 {d} 位小数",
    "close — right method, but a number in an earlier step was rounded: keep the worked steps' 6 decimals and round "
    "only the final answer": "很接近——方法对了，但前面某一步的中间结果舍入过早：中间步骤保留 6 位小数，只在最后一步舍入",
    "former id {card!r} is the id of the card on line {line}; a card's former ids must be ids no card has now":
        "旧 id {card!r} 是第 {line} 行那张卡片现在的 id；卡片的旧 id 必须是现在没有卡片在用的 id",
    "moved the progress of {cards} cards to their new ids (first: {old} → {new}); "
    "each move is logged in the database's renames table":
        "已把 {cards} 张卡片的进度移到新 id（第一个：{old} → {new}）；每次移动都记在数据库的 renames 表里",
    # the engine's data-flow steps in worked solutions (problems/vocabulary.py)
    ": ": "：",
    "self-attention": "自注意力",
    "masked self-attention": "带掩码的自注意力",
    "cross-attention": "交叉注意力",
    "FFN": "FFN",
    "Q projection": "Q 投影",
    "K projection": "K 投影",
    "V projection": "V 投影",
    "split heads Q": "Q 拆头",
    "split heads K": "K 拆头",
    "split heads V": "V 拆头",
    "transpose heads Q": "Q 转置（头维移到序列维前）",
    "transpose heads K": "K 转置（头维移到序列维前）",
    "transpose heads V": "V 转置（头维移到序列维前）",
    "attention scores Q·K^T/sqrt(d_k)": "注意力分数 QKᵀ/√d_k",
    "softmax over keys": "沿 key 维做 softmax",
    "weighted sum of V": "对 V 加权求和",
    "concat heads": "拼接各头",
    "output projection W_O": "输出投影 W_O",
    "add & norm": "残差相加与 LayerNorm",
    "FFN expand": "FFN 膨胀",
    "ReLU": "ReLU",
    "FFN contract": "FFN 压缩",
    "input": "输入",
    "output": "输出",
    "encoder": "编码器",
    "decoder": "解码器",
    "final LayerNorm": "最终 LayerNorm",
    "final LayerNorm (memory)": "最终 LayerNorm（memory）",
    "linear to vocabulary (logits)": "线性映射到词表（logits）",
    "softmax over vocabulary": "沿词表做 softmax",
    "source + positional encoding": "源序列 + 位置编码",
    "source embedding": "源序列词嵌入",
    "source token ids": "源序列词元编号",
    "target (shifted right) + positional encoding": "目标序列（右移）+ 位置编码",
    "target (shifted right) embedding": "目标序列（右移）词嵌入",
    "target (shifted right) token ids": "目标序列（右移）词元编号",
    # issue 20, hostile input
    "STUDYTOOL_NOW names no real date and time (a day, hour, minute or offset out of its range); got {value!r}":
        "STUDYTOOL_NOW 不是真实存在的日期时间（日、时、分或时区偏移超出范围）；收到的是 {value!r}",
    "cannot read the input: {reason}; the answers given so far are saved": "无法读取输入：{reason}；已作答的答案均已保存",
    "an input line is longer than {limit} characters: input refused; the answers given so far are saved":
        "有一行输入超过 {limit} 个字符：拒绝读取；已作答的答案均已保存",
    "the input has more than {limit} lines: input refused; the answers given so far are saved":
        "输入超过 {limit} 行：拒绝读取；已作答的答案均已保存",
    "character U+{code} is not allowed in deck text: it hides or splits what is shown (tag characters, line and "
    "paragraph separators, interlinear annotations)":
        "卡组文本中不允许字符 U+{code}：它会隐藏或拆分显示的内容（标签字符、行分隔符与段分隔符、行间注释符）",
    "more than {most} combining marks in a row are not allowed in deck text: they pile up over one character and hide "
    "the lines around it": "卡组文本中不允许连续超过 {most} 个组合附加符号：它们叠在一个字符上，会遮住上下几行",
    "an id has at most {most} characters, not {n}": "编号最多 {most} 个字符，这里有 {n} 个",
    "Auditing": "正在审查",
    # calc llm
    "give one of --config PATH or --preset NAME": "请给出 --config PATH 或 --preset NAME 中的一个",
    "config.json must hold a JSON object": "config.json 必须是一个 JSON 对象",
    "config.json has no {field!r} (needed for model_type {model_type!r})": "config.json 缺少字段 {field!r}（model_type {model_type!r} 需要它）",
    "unknown model_type {model_type!r}: use one of {known}": "未知的 model_type {model_type!r}：可用的有 {known}",
    "{field} must be a positive integer, got {value!r}": "{field} 必须是正整数，实际为 {value!r}",
    "{field} must be a number, got {value!r}": "{field} 必须是数，实际为 {value!r}",
    "{field} must be true or false, got {value!r}": "{field} 必须是 true 或 false，实际为 {value!r}",
    "num_attention_heads={n_heads} is not a multiple of num_key_value_heads={n_kv_heads}": "num_attention_heads={n_heads} 不是 num_key_value_heads={n_kv_heads} 的倍数",
    "hidden size {d_model} is not divisible by {n_heads} heads (and no head_dim is given)": "隐藏维度 {d_model} 不能被 {n_heads} 个头整除（且未给出 head_dim）",
    "RoPE needs an even head_dim, got {head_dim}": "RoPE 需要偶数的 head_dim，实际为 {head_dim}",
    "unknown activation {activation!r}: use one of {known}": "未知的激活函数 {activation!r}：可用的有 {known}",
    "num_experts_per_tok must be from 1 to num_local_experts={n_experts}, got {top_k}": "num_experts_per_tok 必须在 1 到 num_local_experts={n_experts} 之间，实际为 {top_k}",
    "rope_type must be a name, got {rope_type!r}": "rope_type 必须是一个名字，实际为 {rope_type!r}",
    "unknown preset {name!r}: use one of {known}": "未知的预设 {name!r}：可用的有 {known}",
    "{path}: larger than 1 MiB, not a config.json": "{path}：超过 1 MiB，不是 config.json",
    "unknown dtype {dtype!r}: use one of {known}": "未知的 dtype {dtype!r}：可用的有 {known}",
    "--seq {seq} is longer than this model's {n} learned positions": "--seq {seq} 超过了该模型可学习位置编码的 {n} 个位置",
    "{path}: not a config file: {kind}": "{path}：不是配置文件：{kind}",
    "{path}: cannot read the file: {reason}": "{path}：无法读取文件：{reason}",
    "{path}: not valid JSON: {reason}": "{path}：不是合法的 JSON：{reason}",
    "per layer": "每层",
    "parameters": "参数量",
    "share": "占比",
    "feed-forward (MLP)": "前馈网络（MLP）",
    "final norm": "最终归一化",
    "embedding (tokens + positions)": "词嵌入（词元 + 位置）",
    "attention (q, k, v, o)": "注意力（q、k、v、o）",
    "norms": "归一化层",
    "output head (tied to the embedding)": "输出头（与词嵌入共享权重）",
    "output head": "输出头",
    "total": "合计",
    "active per token": "每个词元激活的参数",
    "FLOPs count every matmul (2 per multiply-add) and the full L × L attention, as torch's FlopCounterMode does; N = active parameters.": "FLOPs 计入每个矩阵乘法（每次乘加算 2）和完整的 L × L 注意力，与 torch 的 FlopCounterMode 一致；N = 激活的参数量。",
    "{e} experts + router": "{e} 个专家 + 路由器",
    "{e} experts, top {k}": "{e} 个专家，取前 {k} 个",
    "KV cache per token ({dtype})": "每个词元的 KV 缓存（{dtype}）",
    "KV cache, {sizes}": "KV 缓存，{sizes}",
    "forward FLOPs, {sizes}": "前向 FLOPs，{sizes}",
    "activations, {sizes}": "激活值，{sizes}",
    "Activations: {formula} bytes (with checkpointing {checkpointed}), {source}.": "激活值：{formula} 字节（用检查点时 {checkpointed}），出处：{source}。",
    "with multi-head attention": "若用多头注意力",
    "per token": "每个词元",
    "2N rule, per token": "2N 经验公式，每个词元",
    "training step (forward + backward)": "一步训练（前向 + 反向）",
    "6ND rule": "6ND 经验公式",
    "inference: {dtype} weights + KV cache": "推理：{dtype} 权重 + KV 缓存",
    "AdamW, fp32 (16 B per parameter)": "AdamW，fp32（每个参数 16 字节）",
    "AdamW, mixed precision (2+2+4+8 B)": "AdamW，混合精度（2+2+4+8 字节）",
    "with checkpointing": "用检查点（重计算）时",
    "A mixture's FLOPs count the router and each token's top-k experts.": "混合专家模型的 FLOPs 计入路由器和每个词元的前 k 个专家。",
    "(a window of {n} tokens)": "（滑动窗口只保留 {n} 个词元）",
    # calc bpe
    "empty text: give some words, e.g. low low lower newest": "文本为空：请给出一些单词，例如 low low lower newest",
    "at most {n} characters of text, please (calc prints every merge)": "文本最多 {n} 个字符（calc 会打印每一次合并）",
    "the text holds a control character: give words of printable characters": "文本含有控制字符：请只用可打印字符组成单词",
    "--merges must be from 0 to {most}, got {merges}": "--merges 须在 0 到 {most} 之间，收到的是 {merges}",
    "merge": "合并",
    "count": "次数",
    "no merges: every word is a single character, or --merges is 0": "没有合并：每个单词都只剩一个字符，或 --merges 为 0",
    "{n} tokens:": "{n} 个词元：",
    # decks check: the glossary and the vocabulary (decks/glossary.py)
    "a glossary is a mapping with a 'terms' list": "词汇表是一个含 'terms' 列表的映射",
    "a glossary term is a mapping of term, zh, en, use, forbidden": "词汇表的词条是含 term、zh、en、use、forbidden 的映射",
    "a glossary term has exactly term, zh, en, use and forbidden (check {fields})": "词汇表的词条恰好有 term、zh、en、use 和 forbidden 五项（检查 {fields}）",
    "term, zh, en and use are words; forbidden is a list of words": "term、zh、en、use 是词语；forbidden 是词语的列表",
    "use is zh or en, not {use!r}": "use 只能是 zh 或 en，不能是 {use!r}",
    "{word!r} is claimed twice (terms {a} and {b})": "{word!r} 被认领了两次（词条 {a} 与 {b}）",
    "{variant!r} drifts from the glossary: write {word!r} ({term}, glossary.yaml)": "{variant!r} 偏离了词汇表：应写作 {word!r}（{term}，glossary.yaml）",
    "stray space in Chinese text: {context!r} (no space between Chinese characters or beside full-width punctuation)": "中文里多了空格：{context!r}（汉字之间、全角标点两侧不加空格）",
    "full-width brackets inside full-width brackets: {context!r} (use a comma, a dash or ASCII brackets inside)": "全角括号里又套了全角括号：{context!r}（里层改用逗号、破折号或半角括号）",
    # decks audit: issue 23's fairness of generated cards
    "every generated card, at every level: no knowledge-free rule beats chance by more than 10 points, 20+ answers "
    "per 100 seeds, no degenerate key in more than 5% of draws":
        "每张生成卡在每个难度下：不靠知识的规则至多比随机高 10 个百分点，每 100 个种子 20 个以上不同答案，"
        "退化的答案不超过 5%",
    "level 3 of every generated card takes more worked steps than level 1": "每张生成卡难度 3 的解题步骤多于难度 1",
    "at most 4 computed numbers to type at level 1, 8 at level 2": "难度 1 至多手算输入 4 个数，难度 2 至多 8 个",
    "{card}: {problems}": "{card}：{problems}",
    "{rule} right in {share:.0%} (chance {chance:.0%})": "“{rule}”答对 {share:.0%}（随机 {chance:.0%}）",
    "one letter right in {share:.0%}": "某个字母在 {share:.0%} 的抽题中是答案",
    "level {level}: {n} distinct answers in {seeds} draws": "难度 {level}：{seeds} 次抽题只有 {n} 个不同答案",
    "a degenerate key in {share:.0%} of draws": "{share:.0%} 的抽题答案是退化的",
    "level 3 takes {three:g} worked steps, level 1 {one:g}": "难度 3 的解题步骤 {three:g} 步，难度 1 {one:g} 步",
    "level {level}: {n} computed numbers to type (at most {most})": "难度 {level}：要手算输入 {n} 个数（至多 {most} 个）",
    "first option": "选第一个选项",
    "longest option": "选最长的选项",
    "option most like the others": "选最像其他选项的那个",
    "the shown order": "按显示的顺序",
    "first shape in the prompt": "抄题面里的第一个形状",
    "the less likely first word": "选第一个词概率较小的那条",
    "the padding row alone": "只看 padding 那一行",
}
