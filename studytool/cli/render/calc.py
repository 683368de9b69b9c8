"""Drawing `studytool calc` results (the dicts of `studytool.calc`) with rich."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text
from rich.tree import Tree

from studytool.i18n import _
from studytool.problems.vocabulary import step_name


def _num(x: float) -> str:
    return f"{x:.6f}"


def _vec(xs: Sequence[float]) -> str:
    return "[" + ", ".join(_num(x) for x in xs) + "]"


def _shape(shape: Sequence[int]) -> str:
    return "[" + ", ".join(str(n) for n in shape) + "]"


def _pairs(console: Console, rows: Sequence[tuple[str, str]]) -> None:
    table = Table(show_header=False, box=None, padding=(0, 2, 0, 0))
    table.add_column(style="bold", no_wrap=True)
    table.add_column()
    for name, value in rows:
        table.add_row(Text(name), Text(value))
    console.print(table)


def render_layernorm(r: dict[str, Any], console: Console) -> None:
    _pairs(console, [
        ("x", "[" + ", ".join(f"{v:.15g}" for v in r["input"]) + "]"),   # as typed: 1000.001 is not 1000
        (_("mean") + " m", _num(r["mean"])),
        (_("variance") + " σ²", _num(r["variance"]) + "  " + _("(divide by K, not K−1)")),
        ("σ", _num(r["sigma"])),
        ("ε", f"{r['eps']:g}"),
        ("LN(x) = (x − m) / √(σ² + ε)", _vec(r["output"])),
    ])


def render_batchnorm(r: dict[str, Any], console: Console) -> None:
    table = Table(title=_("BatchNorm: each feature over the batch"), title_justify="left")
    table.add_column(_("sample"), justify="right")
    for j in range(len(r["mean"])):
        table.add_column(f"x[:, {j}]", justify="right")
        table.add_column(f"BN[:, {j}]", justify="right", style="green")
    for b, (row, out) in enumerate(zip(r["input"], r["output"])):
        table.add_row(str(b), *(cell for x, y in zip(row, out) for cell in (f"{x:.15g}", _num(y))))
    table.add_section()
    table.add_row(_("mean"), *(cell for m in r["mean"] for cell in (_num(m), "")))
    table.add_row("σ", *(cell for s in r["sigma"] for cell in (_num(s), "")))
    console.print(table)
    console.print(Text(f"ε = {r['eps']:g}", style="dim"))


def render_softmax(r: dict[str, Any], console: Console) -> None:
    table = Table(show_header=True, header_style="bold", box=None, padding=(0, 2, 0, 0))
    table.add_column("i", justify="right")
    table.add_column("x", justify="right")
    table.add_column("softmax(x)", justify="right", style="green")
    for i, (x, p) in enumerate(zip(r["input"], r["output"])):
        table.add_row(str(i), f"{x:.15g}", _num(p))
    console.print(table)
    console.print(Text(f"Σ = {_num(r['sum'])}", style="dim"))


PE_HEAD_DIMS, PE_TAIL_DIMS = 8, 4  # a wide table shows its first and last dimensions


def _pe_dims(d_model: int) -> list[int | None]:
    """The dimensions j shown as rows; None marks the elided middle."""
    if d_model <= PE_HEAD_DIMS + PE_TAIL_DIMS:
        return list(range(d_model))
    return [*range(PE_HEAD_DIMS), None, *range(d_model - PE_TAIL_DIMS, d_model)]


def _pe_positions(r: dict[str, Any], width: int) -> int:
    """How many position columns fit the terminal next to the j / i / sin-cos columns."""
    cell = len(_num(-1.0)) + 3  # a number, its padding and a border
    fixed = 1 + 2 * (len(str(r["d_model"] - 1)) + 3) + 6
    fits = max(1, (width - fixed) // cell)
    return r["positions"] if r["positions"] <= fits else max(1, (width - fixed - 4) // cell)


def render_pe(r: dict[str, Any], console: Console) -> None:
    """Rows are dimensions j (i = j // 2, sin for even j, cos for odd), columns are positions."""
    d_model, positions, table_ = r["d_model"], r["positions"], r["table"]
    shown = _pe_positions(r, console.width)
    table = Table(title=f"PE  (d_model = {d_model})", title_justify="left")
    table.add_column("j", justify="right", style="bold", no_wrap=True)
    table.add_column("i", justify="right", no_wrap=True)
    table.add_column("", no_wrap=True)
    for pos in range(shown):
        table.add_column(f"pos {pos}", justify="right", no_wrap=True)
    if shown < positions:
        table.add_column("…", no_wrap=True)
    for j in _pe_dims(d_model):
        if j is None:
            table.add_row("⋮", "", "", *(["⋮"] * shown), *([""] if shown < positions else []))
            continue
        cells = [_num(table_[pos][j]) for pos in range(shown)]
        table.add_row(str(j), str(j // 2), "sin" if j % 2 == 0 else "cos", *cells, *(["…"] if shown < positions else []))
    console.print(table)
    console.print(Text("PE(pos, 2i) = sin(pos / 10000^(2i/d)),  PE(pos, 2i+1) = cos(pos / 10000^(2i/d))", style="dim"))
    rows_shown = sum(j is not None for j in _pe_dims(d_model))
    if shown < positions or rows_shown < d_model:
        console.print(Text(_("showing {dims} of {d_model} dimensions and {shown} of {positions} positions; "
                             "--json gives the whole table").format(
            dims=rows_shown, d_model=d_model, shown=shown, positions=positions), style="dim"))


def render_pe_plot(r: dict[str, Any], console: Console) -> None:
    """`calc pe --plot`: the heatmap (rows = positions, columns = dimensions j), then the table."""
    from studytool.cli.render.pictures import PE_PLOT_POSITIONS, pe_heatmap, shade_legend

    heatmap = pe_heatmap(r["table"])
    console.print(heatmap)
    console.print(shade_legend(console, 1.0, signed=True))
    shown, rows = heatmap.layout(console.width)[3], min(r["positions"], PE_PLOT_POSITIONS)
    if shown < r["d_model"] or rows < r["positions"]:
        console.print(Text(_("showing {dims} of {d_model} dimensions and {shown} of {positions} positions; "
                             "--json gives the whole table").format(
            dims=shown, d_model=r["d_model"], shown=rows, positions=r["positions"]), style="dim"))
    console.print()
    render_pe(r, console)


def render_mask(r: dict[str, Any], console: Console) -> None:
    """`calc mask`: the causal grid, or one grid per sentence of a padded batch."""
    from rich.columns import Columns

    from studytool.cli.render.pictures import MaskGrid, MaskLegend, padding_grids

    if r["kind"] == "causal":
        console.print(Text(_("causal mask, n = {n}: query i sees keys j <= i").format(n=r["n"]), style="bold"))
        console.print(MaskGrid(r["blocked"]))
    else:
        console.print(Text(_("padding mask, lengths {lengths}, max_len = {max_len}: padded keys are blocked").format(
            lengths=", ".join(map(str, r["lengths"])), max_len=r["max_len"]), style="bold"))
        console.print(Columns(padding_grids(r["blocked"]), padding=(0, 3)))
    console.print(MaskLegend())


def _weights(console: Console, weights: dict[str, Any]) -> None:
    from rich.columns import Columns

    from studytool.cli.render.pictures import shade_legend, weights_heatmaps

    console.print()
    console.print(Text(_("Attention weights per head: one random sentence, seed {seed} (each row sums to 1)").format(
        seed=weights["seed"]), style="bold"))
    maps = weights_heatmaps(weights["heads"])
    console.print(Columns(maps, padding=(1, 3)))
    console.print(shade_legend(console, maps[0].top, signed=False))


def _facts(console: Console, facts: Sequence[str]) -> None:
    """`B = 32, L = 10, ...` in bold, wrapping between facts so that none is split across lines."""
    lines = [""]
    for fact in facts:
        joined = f"{lines[-1]}, {fact}" if lines[-1] else fact
        if lines[-1] and len(joined) + 1 > console.width:  # +1: the trailing comma of a full line
            lines[-1] += ","
            lines.append(fact)
        else:
            lines[-1] = joined
    for line in lines:
        console.print(Text(line, style="bold"), overflow="fold")


def _steps_table(steps: Sequence[dict[str, Any]], with_part: bool) -> Table:
    table = Table(show_header=True, header_style="bold")
    table.add_column("#", justify="right", style="dim")
    if with_part:
        table.add_column(_("part"))
    table.add_column(_("step"))
    table.add_column(_("shape"), style="green", no_wrap=True)
    for i, step in enumerate(steps, 1):
        cells = [str(i)] + ([step_name(step["part"])] if with_part else []) + [step_name(step["name"]),
                                                                                 _shape(step["shape"])]
        table.add_row(*(Text(c) for c in cells))
    return table


def render_attention(r: dict[str, Any], console: Console) -> None:
    _facts(console, [f"B = {r['batch']}", f"L = {r['seq']}", f"d_model = {r['d_model']}", f"h = {r['heads']}",
                     f"d_k = d_model / h = {r['d_k']}"])
    console.print(_steps_table(r["steps"], with_part=False))
    if "weights" in r:
        _weights(console, r["weights"])


def render_params(r: dict[str, Any], console: Console) -> None:
    headers = {"with_bias": _("with biases and LayerNorms"), "notes": _("notes: weights only")}
    table = Table(
        title=f"d_model = {r['d_model']}, h = {r['heads']}, d_ff = {r['d_ff']}, N = {r['layers']}"
        + (f", V = {r['vocab']}" if r["vocab"] is not None else ""),
        title_justify="left",
    )
    table.add_column(_("part"))
    for name in r["conventions"]:
        table.add_column(headers[name], justify="right", style="green", overflow="fold")   # up to 33 digits: whole
    for row in r["rows"]:
        table.add_row(row["label"], *(f"{row[name]:,}" for name in r["conventions"]))
    console.print(table)


def render_shapes(r: dict[str, Any], console: Console, tree: bool = False) -> None:
    _facts(console, [f"B = {r['batch']}", f"L_src = {r['seq']}", f"L_tgt = {r['tgt_seq']}", f"d_model = {r['d_model']}",
                     f"h = {r['heads']}", f"d_ff = {r['d_ff']}", f"V = {r['vocab']}"])
    if not tree:
        console.print(_steps_table(r["steps"], with_part=True))
        return
    # part -> sub-layer ("self-attention: split heads Q" -> "self-attention") -> step;
    # consecutive steps of one sub-layer share a branch
    root = Tree(Text("Transformer", style="bold"))
    part_node = sub_node = None
    part = sublayer = None
    for step in r["steps"]:
        if step["part"] != part:
            part, sublayer = step["part"], None
            part_node = root.add(Text(step_name(part), style="bold magenta"))
        label, sep, name = step["name"].rpartition(": ")
        if sep and label != sublayer:
            sub_node = part_node.add(Text(step_name(label), style="bold"))
        sublayer = label if sep else None
        (sub_node if sep else part_node).add(_step_line(step_name(name), step["shape"]))
    console.print(root)


def _step_line(name: str, shape: Sequence[int]) -> Table:
    """A tree leaf: the step's name wraps when the terminal is narrow, its shape never splits."""
    line = Table.grid(padding=(0, 2, 0, 0))
    line.add_column(overflow="fold")
    line.add_column(style="green", no_wrap=True)
    line.add_row(Text(name), Text(_shape(shape)))
    return line


def render_bpe(r: dict[str, Any], console: Console) -> None:
    """`calc bpe`: the merges in the order learned, then the text's tokens."""
    table = Table(show_header=True, header_style="bold", box=None, padding=(0, 2, 0, 0))
    table.add_column("#", justify="right")
    table.add_column(_("merge"))
    table.add_column(_("count"), justify="right")
    for step, ((left, right), count) in enumerate(zip(r["merges"], r["counts"]), start=1):
        table.add_row(str(step), Text(f"{left} + {right} → {left}{right}"), str(count))
    if r["merges"]:
        console.print(table)
    else:
        console.print(Text(_("no merges: every word is a single character, or --merges is 0"), style="dim"))
    console.print(Text(_("{n} tokens:").format(n=len(r["tokens"])), style="bold"))
    console.print(Text(" | ".join(r["tokens"])), overflow="fold")
