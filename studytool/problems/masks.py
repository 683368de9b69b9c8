"""Masks and teacher forcing: what each position may look at, and what the decoder is fed."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from studytool.problems.checks import index_below, int_in, numbers, text, tokens
from studytool.problems.drawing import TRIES, mat, pick, plain, rows, vec
from studytool.problems.registry import Param, generator
from studytool.problems.sentences import SENTENCES
from studytool.problems.variant import Hint, Variant

if TYPE_CHECKING:
    import numpy as np


START, END = "<s>", "<eos>"


class MaskStep(str):
    """A worked step that writes out a mask: its text as everywhere else, and for a renderer that can draw it,
    `lead` (the words before the matrix), `blocked` (rows of bools, True = blocked), `kind` ("causal":
    row = query, column = key; "padding": row = sentence, column = key) and `first_row` (a causal row excerpt)."""

    lead: str
    blocked: tuple[tuple[bool, ...], ...]
    kind: str
    first_row: int


def mask_step(lead: str, matrix_text: str, blocked: np.ndarray, kind: str, first_row: int = 0) -> MaskStep:
    import numpy as np

    step = MaskStep(lead + matrix_text)
    step.lead, step.kind, step.first_row = lead, kind, first_row
    step.blocked = tuple(tuple(bool(v) for v in row) for row in np.atleast_2d(blocked))
    return step


@dataclass(frozen=True)
class _Causal:
    """The n x n causal mask every sub-question reads."""

    n: int
    blocked: np.ndarray       # (n, n) bool, True = blocked
    allowed: np.ndarray       # 1 = may attend
    head: str
    steps: tuple[str, ...]
    params: dict[str, Any]
    t: int | None             # ask=visible: pinned, or drawn there
    pad: int = 0              # padded positions at the end, blocked as keys too (level 3: causal plus padding)

    def causal_only(self, answer: Any) -> tuple[Hint, ...]:
        """The hint for forgetting the padding mask: `answer` is what the causal mask alone gives."""
        return (Hint(answer, f"还有填充掩码：最后 {self.pad} 个 key 列是补齐，每一行都要遮住。"),) if self.pad else ()


def _causal_matrix(c: _Causal, rng: np.random.Generator) -> Variant:
    import numpy as np

    strict = np.tril(np.ones((c.n, c.n), dtype=int), -1)
    hints = (Hint(rows(c.allowed.T), "方向反了：每行只能看左边（过去），右上角是未来。"),
             Hint(rows(1 - c.allowed), "题目问的是“可以看”的位置用 1；被遮住的是 0。"),
             Hint(rows(strict), "对角线是 token 自己，它可以看自己。"),
             *c.causal_only(rows(np.tril(np.ones((c.n, c.n), dtype=int)))))
    return Variant(c.head + "写出允许矩阵：1 表示可以看，0 表示被遮住。", "matrix", rows(c.allowed), None, c.steps,
                   hints, params=c.params)


def _causal_visible(c: _Causal, rng: np.random.Generator) -> Variant:
    n = c.n
    real = n - c.pad
    if c.t is not None:
        t = c.t
    elif c.pad and rng.integers(2):
        t = int(rng.integers(real, n))          # a padded query: the padding mask decides its row
    else:
        # a real query (before the last real one, where both masks give the same row): the causal mask decides
        t = int(rng.integers(0, real - 1 if c.pad else n))
    row = c.allowed[t]
    wrong = (Hint(tuple(float(j < t) for j in range(n)), "第 t 步也能看到自己（对角线允许）。"),
             Hint(tuple(float(j >= t) for j in range(n)), "方向反了：能看的是过去，不是未来。"),
             *c.causal_only(tuple(float(j <= t) for j in range(n))),
             *((Hint(tuple(float(j < real) for j in range(n)), "还有因果掩码：第 t 行看不到 t 之后的位置。"),)
               if c.pad else ()))
    hints = tuple(hint for hint in wrong if hint.answer != tuple(float(v) for v in row))
    return Variant(c.head + f"第 t = {t} 行（第 {t} 个位置）对 {n} 个 key 的允许情况是什么？"
                   f"（1 = 可以看，0 = 遮住，{n} 个数）", "vector", tuple(float(v) for v in row), None,
                   c.steps[:1 + bool(c.pad)] + (mask_step(f"第 {t} 行 = ", vec(row), c.blocked[t], "causal", t),), hints,
                   params={**c.params, "t": t})


def _causal_allowed(c: _Causal, rng: np.random.Generator) -> Variant:
    n = c.n
    hints = (Hint(n * n, "那是不加掩码时的全部 n² 格；因果掩码遮住了右上角。"),
             Hint(n * (n - 1) // 2, "对角线（看自己）也是允许的。"), *c.causal_only(n * (n + 1) // 2))
    return Variant(c.head + "这个 n × n 的掩码里一共有多少格是允许看的？", "scalar", int(c.allowed.sum()), None,
                   c.steps, hints, params=c.params)


def _causal_blocked(c: _Causal, rng: np.random.Generator) -> Variant:
    n = c.n
    hints = (Hint(n * (n + 1) // 2, "对角线（看自己）不被遮住。"), Hint(n * n, "只遮住未来，不是全部。"),
             *c.causal_only(n * (n - 1) // 2))
    return Variant(c.head + "这个 n × n 的掩码里一共有多少格被遮住？", "scalar", n * n - int(c.allowed.sum()), None,
                   c.steps, hints, params=c.params)


_CAUSAL_QUESTIONS = {"matrix": _causal_matrix, "allowed": _causal_allowed, "blocked": _causal_blocked,
                     "visible": _causal_visible}


@generator(
    "causal_mask",
    "The n x n causal mask: its entries, how many are allowed/blocked, which positions step t sees.",
    asks=_CAUSAL_QUESTIONS,
    params=(
        Param("n", "sequence length (default: drawn from 3..6 for the matrix, 3..8 for a row, 4..25 for counts)", None,
            int_in(2, 30)),
        Param("t", "step for ask=visible (default: drawn below n)", None, int_in(0, 11)),
        Param("pad", "padded positions at the end, blocked as keys as well (default: 0, the causal mask alone)", 0,
              int_in(0, 6)),
    ),
    example={"n": 4, "ask": "matrix"},
    constraints=(index_below("t", "n"), index_below("pad", "n")),
    small={"matrix": "one lower-triangular matrix per hand-writable length n (3..6)"},
)
def causal_mask(rng: np.random.Generator, *, n, t, pad, ask) -> Variant:
    """The n x n causal mask, with the key padding mask too when `pad` (params: n, t, pad, ask).

    The notes' example is the decoder input "<s> 我 爱 AI": n=4, ask=matrix.
    """
    from studytool import engine

    # a pinned step must exist; n = 3 blocks 3 cells, so copying n would answer ask=blocked
    least = (4 if ask == "blocked" else 3) if t is None else max(3, t + 1)
    # a count needs no hand-written matrix: longer n; nor does a padded row, whose answer is n and pad alone
    # (a count up to n = 25 and a row up to 8 keys: 20 answers in 100 draws; a written matrix stays at 3..6)
    most = 26 if ask in ("allowed", "blocked") else 11 if ask == "visible" and pad else 9 if ask == "visible" else 7
    n = n if n is not None else int(rng.integers(max(least, pad + 2), max(most, least + 1, pad + 3)))
    blocked = engine.causal_mask(n) | engine.padding_mask([n - pad], n)   # a key column j >= n - pad: padding
    allowed = (~blocked).astype(int)
    padding = (f"这句真实长度 {n - pad}，最后 {pad} 个位置是补齐，填充掩码也遮住这些 key。" if pad else "")
    head = (f"decoder 的带因果掩码自注意力，序列长 n = {n}（位置从 0 数）。{padding}第 i 行是第 i 个 query，"
            f"第 j 列是第 j 个 key。")
    counted = (f"，padding 再遮住补齐列里 i ≥ j 的 {' + '.join(str(k) for k in range(pad, 0, -1))} = "
               f"{pad * (pad + 1) // 2} 格，共遮住 "
               f"{int(blocked.sum())}，允许 {int(allowed.sum())}" if pad else "")
    # with padding, its own step: the second mask is the second reasoning step
    steps = ("第 i 行只能看 j ≤ i 的位置（自己和之前），j > i 的未来位置被遮住（分数设为 −∞，softmax 后为 0）",
             *((f"填充掩码再遮住 j ≥ {n - pad} 的补齐 key 列（每一行都遮）；任一掩码遮住就算遮住",) if pad else ()),
             mask_step("允许矩阵（1 = 可以看）= ", mat(allowed), blocked, "causal"),
             f"因果掩码允许 1 + 2 + … + {n} = {n * (n + 1) // 2} 格，遮住 {n} × {n} − {n * (n + 1) // 2}"
             f" = {n * (n - 1) // 2}{counted}")
    params = {"n": n, "ask": ask} | ({"pad": pad} if pad else {})
    return _CAUSAL_QUESTIONS[ask](_Causal(n, blocked, allowed, head, steps, params, t, pad), rng)


def _draw_lengths(rng: np.random.Generator, batch, max_len) -> list[int]:
    """Lengths that need padding: the longest fills max_len, at least one is shorter."""
    batch = batch if batch is not None else int(rng.integers(2, 5))
    max_len = max_len if max_len is not None else int(rng.integers(3, 7))
    lengths = [int(v) for v in rng.integers(1, max_len + 1, size=batch)]
    lengths[int(rng.integers(batch))] = max_len
    if batch > 1 and min(lengths) == max_len:
        lengths[(lengths.index(max_len) + 1) % batch] = int(rng.integers(1, max_len))
    return lengths


def _pad_lengths(p: Mapping[str, Any]) -> str | None:
    lengths, max_len = p.get("lengths"), p.get("max_len")
    if lengths is not None and max_len is not None and max(lengths) > max_len:
        return f"every length must be at most max_len ({max_len})"
    if lengths is not None and p.get("batch") is not None and len(lengths) != p["batch"]:
        return f"lengths has {len(lengths)} entries but batch is {p['batch']}"
    return None


def _padding_matrix(head: str, steps: tuple[str, ...], mask: np.ndarray, lengths, params: dict) -> Variant:
    hints = (Hint(rows(1 - mask), "反了：题目里 1 表示被遮住的补齐位置，真 token 是 0。"),)
    return Variant(head + "写出填充掩码（每行一个句子，1 = 补齐位置、要遮住，0 = 真 token）。", "matrix",
                   rows(mask), None, steps, hints, params=params)


def _padding_count(head: str, steps: tuple[str, ...], mask: np.ndarray, lengths, params: dict) -> Variant:
    # the sentence count and max_len are on screen: a draw where either is the answer lets copying pass
    hints = (Hint(int(sum(lengths)), "那是真 token 的个数；问的是被遮住的补齐位置。"),
             Hint(mask.shape[0], "那是句子数；要数的是每句补齐的位置 max_len − 长度，再加起来。"),
             Hint(mask.shape[1], "那是补齐后的长度 max_len；要数的是每句补齐的位置 max_len − 长度，再加起来。"))
    return Variant(head + "填充掩码一共遮住了多少个位置？", "scalar", int(mask.sum()), None, steps, hints,
                   params=params)


def _padding_causal(head: str, steps: tuple[str, ...], mask: np.ndarray, lengths, params: dict) -> Variant:
    """Both masks at once (decoder self-attention): a cell is blocked if either mask blocks it."""
    from studytool import engine

    batch, length = mask.shape
    both = engine.causal_mask(length)[None, :, :] | mask.astype(bool)[:, None, :]   # (B, L, L), True = blocked
    causal = length * (length - 1) // 2
    per_sentence = [causal + (length - n) * (length - n + 1) // 2 for n in lengths]
    steps = (*steps, f"因果掩码每句遮住 j > i 的 {length} × ({length} − 1) / 2 = {causal} 格",
             "padding 列 j ≥ 长度 n 里，还没被因果掩码遮住的是 i ≥ j 的格：每句再加 (L − n)(L − n + 1) / 2",
             f"每句 {vec(per_sentence)}，合计 {int(both.sum())}")
    padding_cells = int(mask.sum()) * length
    hints = (Hint(batch * causal, "那只是因果掩码遮住的格；padding 的列还要再遮。"),
             Hint(padding_cells, "那只是 padding 遮住的格（每个补齐的 key 整列）；因果掩码还要遮未来的位置。"),
             Hint(batch * causal + padding_cells, "两种都遮的格被数了两次：任一掩码遮住就只算一格。"))
    return Variant(head + "decoder 自注意力同时用因果掩码和填充掩码（遮 key 一侧），第 i 行是 query、第 j 列是 key。"
                   f"这 {batch} 个 {length} × {length} 的分数矩阵里一共有多少格被遮住（任一掩码遮住即算一格）？",
                   "scalar", int(both.sum()), None, steps, hints, params=params)


_PADDING_QUESTIONS = {"matrix": _padding_matrix, "count": _padding_count, "causal_count": _padding_causal}


@generator(
    "padding_mask",
    "The padding mask for a batch of lengths, or how many positions it blocks.",
    asks=_PADDING_QUESTIONS,
    params=(
        Param("lengths", "real lengths of the sentences, pinned (default: drawn)", None,
            numbers(1, 6, lo=1, hi=12, integers=True)),
        Param("batch", "number of sentences (default: drawn from 2..4)", None, int_in(1, 6)),
        Param("max_len", "padded length (default: drawn from 3..6)", None, int_in(2, 12)),
    ),
    example={"lengths": [3, 5, 2], "max_len": 5, "ask": "matrix"},
    constraints=(_pad_lengths,),
)
def padding_mask(rng: np.random.Generator, *, lengths, batch, max_len, ask) -> Variant:
    """The padding mask of a batch (params: lengths, batch, max_len, ask).

    The notes give no numeric padding example; `.example()` pins lengths=[3, 5, 2], max_len=5.
    """
    from studytool import engine

    if lengths is None:   # more than one padded position: a count of 1 asks nothing (issue 23)
        # a count needs no written matrix: up to 5 sentences of up to 8, so the count takes 20 values
        wide = ask != "matrix" and batch is None and max_len is None
        redraw = lambda: _draw_lengths(rng, batch or (int(rng.integers(2, 6)) if wide else None),  # noqa: E731
                                       max_len or (int(rng.integers(3, 10)) if wide else None))
        lengths = redraw()
        for _ in range(TRIES):
            if (max_len or max(lengths)) * len(lengths) - sum(lengths) > 1:
                break
            lengths = redraw()
    max_len = max_len if max_len is not None else max(lengths)
    mask = engine.padding_mask(lengths, max_len).astype(int)  # (B, max_len), 1 = padding (blocked)
    params = {"lengths": plain(list(lengths)), "max_len": max_len, "ask": ask}
    head = (f"一个 batch 有 {len(lengths)} 个句子，真实长度分别是 {vec(lengths)}，都补齐到 max_len = {max_len}"
            f"（短句后面补 0）。")
    steps = tuple(f"长度 {n}：前 {n} 个是真 token（0），后 {max_len - n} 个是补齐（1）" for n in lengths) + (
        mask_step("padding mask = ", mat(mask), mask.astype(bool), "padding"),)
    return _PADDING_QUESTIONS[ask](head, steps, mask, lengths, params)


def _step_in_target(p: Mapping[str, Any]) -> str | None:
    # the decoder input is <s> plus the target words: steps 0..len(target)
    if p.get("t") is not None and p.get("target") is not None and p["t"] > len(p["target"]):
        return f"t ({p['t']}) must be at most the number of target words ({len(p['target'])})"
    return None


@dataclass(frozen=True)
class _Forcing:
    """A target sentence under teacher forcing: what the decoder is fed and what each step must predict."""

    words: tuple[str, ...]
    options: tuple[str, ...]    # the shuffled tokens, answered by number
    head: str
    params: dict[str, Any]
    t: int | None               # ask=visible/predict: pinned, or drawn there
    by_sight: bool = False      # ask=predict, level 3: the step given by the tokens it sees, not by t

    @property
    def decoder_input(self) -> tuple[str, ...]:
        return (START, *self.words)  # shifted right: starts with <s>

    @property
    def labels(self) -> tuple[str, ...]:
        return (*self.words, END)    # what each step must predict

    @property
    def numbered(self) -> str:
        return self.head + f"下面的词元编号 1–{len(self.options)} 见选项。"   # sequence items are answered by number

    def seq(self, tokens: tuple[str, ...]) -> tuple[int, ...]:
        """Tokens -> their option indices."""
        return tuple(self.options.index(w) for w in tokens)

    def steps(self) -> tuple[str, ...]:
        decoder_input, labels = self.decoder_input, self.labels
        return (f"标准答案加上结束符：{' '.join(labels)}",
                f"decoder 输入 = 向右平移一位、开头放 {START}：{' '.join(decoder_input)}",
                "第 t 步看到输入的前 t+1 个词元，预测标签的第 t 个：" +
                "；".join(f"t={i}: 看 {' '.join(decoder_input[:i + 1])} → 预测 {labels[i]}" for i in range(len(labels))))

    def step(self, rng: np.random.Generator) -> tuple[int, tuple[str, ...], dict[str, Any]]:
        """Step t (pinned or drawn), the input tokens it sees (row t of the causal mask) and the params with t."""
        from studytool import engine

        t = self.t if self.t is not None else int(rng.integers(0, len(self.decoder_input)))
        visible = ~engine.causal_mask(len(self.decoder_input))[t]
        return t, tuple(w for w, ok in zip(self.decoder_input, visible) if ok), {**self.params, "t": t}


def _decoder_input(f: _Forcing, rng: np.random.Generator) -> Variant:
    hints = (Hint(f.seq(f.labels), "这是要预测的标签；decoder 的输入要向右平移一位，以 <s> 开头。"),
             Hint(f.seq(f.words), "别忘了开头的 <s>：第 0 步要有东西可看。"),
             Hint(f.seq((START, *f.words, END)), "<eos> 只出现在标签里，decoder 输入里没有它。"))
    return Variant(f.numbered + "decoder 的输入序列依次是哪些词元？按顺序写编号。", "sequence", f.seq(f.decoder_input),
                   None, f.steps()[:2], hints, f.options, params=f.params)


def _labels(f: _Forcing, rng: np.random.Generator) -> Variant:
    hints = (Hint(f.seq(f.decoder_input), "这是 decoder 的输入；标签是它左移一位：不含 <s>，以 <eos> 结尾。"),
             Hint(f.seq(f.words), "别忘了结尾的 <eos>：模型要学会何时停下。"))
    return Variant(f.numbered + "各步要预测的标签序列依次是哪些词元？按顺序写编号。", "sequence", f.seq(f.labels), None,
                   f.steps(), hints, f.options, params=f.params)


def _visible(f: _Forcing, rng: np.random.Generator) -> Variant:
    t, seen, params = f.step(rng)
    hints = (Hint(f.seq(f.decoder_input[:t]), "第 t 步也看得到位置 t 自己的输入。"),)
    if t + 1 < len(f.decoder_input):
        hints += (Hint(f.seq(f.decoder_input[:t + 2]), "多看了一个：位置 t+1 及以后被因果掩码遮住。"),)
    return Variant(f.numbered + f"第 t = {t} 步（从 0 数）decoder 的自注意力能看到哪些输入词元？按顺序写编号。",
                   "sequence", f.seq(seen), None, f.steps(), hints, f.options, params=params)


def _predict(f: _Forcing, rng: np.random.Generator) -> Variant:
    t, seen, params = f.step(rng)
    labels = f.labels
    hints = (Hint(frozenset(f.seq(f.decoder_input[t:t + 1])), "那是第 t 步的输入；要预测的是下一个词。"),)
    last = "这是最后一步，目标是结束符 <eos>：模型由此学会何时停下。" if labels[t] == END else \
        f"目标是标准答案里的下一个词 {labels[t]}。"
    step = f"第 t = {t} 步看到 {' '.join(seen)}；{last}"
    question = f"第 t = {t} 步（从 0 数）模型应该预测哪个词元？（选一个选项）"
    steps = (*f.steps(), step)
    if f.by_sight:   # level 3: the step is given by what the causal mask lets it see, one more step to find t
        question = f"decoder 的自注意力（带因果掩码）这一步能看到 {' '.join(seen)}。这一步模型应该预测哪个词元？（选一个选项）"
        steps = (*f.steps(), f"能看到 {len(seen)} 个输入词元：因果掩码下第 t 步看到前 t+1 个，所以 t = {t}", step)
    return Variant(f.head + question, "choice", frozenset(f.seq(labels[t:t + 1])), None, steps, hints, f.options,
                   params=params | ({"by_sight": True} if f.by_sight else {}))


_TEACHER_QUESTIONS = {"decoder_input": _decoder_input, "labels": _labels, "visible": _visible, "predict": _predict}


@generator(
    "teacher_forcing",
    "Teacher forcing: the shifted-right decoder input, the labels, what step t sees and predicts.",
    asks=_TEACHER_QUESTIONS,
    params=(
        Param("target", "the target sentence as words, pinned (default: drawn)", None, tokens(2, 6)),
        Param("source", "the source sentence, shown for context (default: drawn with the target)", None, text),
        Param("t", "step for ask=visible/predict (default: drawn)", None, int_in(0, 6)),
        Param("by_sight", "ask=predict: name the step by the tokens it sees, not by t (level 3; default: by t)", False,
              lambda v: None if isinstance(v, bool) else f"expected true or false, got {v!r}"),
    ),
    example={"target": ["我", "爱", "AI"], "source": "I love AI", "ask": "decoder_input"},
    constraints=(_step_in_target,),
    small={"predict": "the answer is the letter of one of the 4-8 shown tokens"},
)
def teacher_forcing(rng: np.random.Generator, *, target, source, t, by_sight, ask) -> Variant:
    """Teacher forcing with a shifted-right decoder input (params: target, source, t, ask).

    The notes' example pins target=[我, 爱, AI], source="I love AI", ask=decoder_input: <s> 我 爱 AI.
    """
    import numpy as np

    if target is None:
        long_enough = [pair for pair in SENTENCES if t is None or len(pair[1]) >= t]  # a pinned step must exist
        source, target = pick(rng, long_enough) if source is None else (source, pick(rng, long_enough)[1])
    source = source if source is not None else "…"
    words = tuple(target)
    options = tuple(np.asarray((START, *words, END), dtype=object)[rng.permutation(len(words) + 2)])
    head = f"训练翻译模型：源句 “{source}”，标准答案是 “{' '.join(words)}”，训练时用 teacher forcing。"
    forcing = _Forcing(words, options, head, {"target": list(words), "source": source, "ask": ask}, t, by_sight)
    return _TEACHER_QUESTIONS[ask](forcing, rng)
