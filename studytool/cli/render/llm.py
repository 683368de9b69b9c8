"""Drawing `studytool calc llm` (the dict of `studytool.calc.llm`): a table by part and a short breakdown."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from studytool.files import printable
from studytool.i18n import _


def _bytes(n: int) -> tuple[str, str]:
    """Exact bytes, and in the binary unit a reader compares with (1 GiB = 2^30 bytes)."""
    for unit, size in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= size:
            return f"{n:,} B", f"{n / size:,.2f} {unit}"
    return f"{n:,} B", ""


def _flops(n: int) -> tuple[str, str]:
    return f"{n:,}", f"{n:.3e}"


def _share(part: int, total: int) -> str:
    return f"{100 * part / total:.1f}%"


def _title(r: dict[str, Any]) -> Text:
    """The model (a preset or the file's path, shown as plain text) and its sizes."""
    c = r["config"]
    facts = [f"{printable(r['model'], name=True)} ({c['model_type']})", f"d_model = {c['d_model']}", f"N = {c['n_layers']}",
             f"h = {c['n_heads']}", f"h_kv = {c['n_kv_heads']}", f"d_head = {c['head_dim']}", f"d_ff = {c['d_ff']}",
             f"V = {c['vocab_size']}"]
    if c["n_experts"]:
        facts.append(_("{e} experts, top {k}").format(e=c["n_experts"], k=c["top_k"]))
    return Text(", ".join(facts))


def _parts_table(r: dict[str, Any]) -> Table:
    p, c = r["parameters"], r["config"]
    layers, total = c["n_layers"], p["total"]
    table = Table(title=_title(r), title_justify="left")
    table.add_column(_("part"))
    table.add_column(_("per layer"), justify="right")
    table.add_column(_("parameters"), justify="right", style="green")
    table.add_column(_("share"), justify="right")
    table.add_row(_("embedding (tokens + positions)") if c["positions"] == "learned" else _("embedding"),
                  "", f"{p['embedding']:,}", _share(p["embedding"], total))
    per_layer = p["per_layer"]
    mlp = _("{e} experts + router").format(e=c["n_experts"]) if c["n_experts"] else _("feed-forward (MLP)")
    for name, label in (("attention", _("attention (q, k, v, o)")), ("mlp", mlp), ("norms", _("norms"))):
        table.add_row(label, f"{per_layer[name]:,}", f"{layers * per_layer[name]:,}",
                      _share(layers * per_layer[name], total))
    table.add_row(_("final norm"), "", f"{p['final_norm']:,}", _share(p["final_norm"], total))
    table.add_row(_("output head (tied to the embedding)") if c["tied_head"] else _("output head"), "",
                  f"{p['head']:,}", _share(p["head"], total))
    table.add_section()
    table.add_row(Text(_("total"), style="bold"), f"{per_layer['total']:,}", Text(f"{total:,}", style="bold green"),
                  "100%")
    if c["n_experts"]:
        table.add_row(_("active per token"), "", f"{p['active']:,}", _share(p["active"], total))
    return table


def render_llm(r: dict[str, Any], console: Console) -> None:
    kv, flops, memory = r["kv_cache"], r["flops"], r["memory"]
    console.print(_parts_table(r))
    sizes = f"B = {r['batch']}, L = {r['seq']}"
    rows = [(_("KV cache per token ({dtype})").format(dtype=kv["dtype"]), _bytes(kv["bytes_per_token"]))]
    if kv["multi_head_bytes_per_token"] != kv["bytes_per_token"]:
        rows.append(("  " + _("with multi-head attention"), _bytes(kv["multi_head_bytes_per_token"])))
    rows += [
        (_("KV cache, {sizes}").format(sizes=sizes) + ("" if kv["tokens_kept"] == r["seq"] else
                                                         " " + _("(a window of {n} tokens)").format(n=kv["tokens_kept"])),
         _bytes(kv["bytes"])),
        (_("forward FLOPs, {sizes}").format(sizes=sizes), _flops(flops["forward"])),
        ("  " + _("per token"), _flops(flops["per_token"])),
        ("  " + _("2N rule, per token"), _flops(flops["approx_2n_per_token"])),
        (_("training step (forward + backward)"), _flops(flops["training_step"])),
        ("  " + _("6ND rule"), _flops(flops["approx_6nd"])),
        (_("inference: {dtype} weights + KV cache").format(dtype=r["dtype"]), _bytes(memory["inference"]["total"])),
        (_("AdamW, fp32 (16 B per parameter)"), _bytes(memory["adamw_fp32"]["total"])),
        (_("AdamW, mixed precision (2+2+4+8 B)"), _bytes(memory["adamw_mixed"]["total"])),
        (_("activations, {sizes}").format(sizes=sizes), _bytes(memory["activations"]["full"])),
        ("  " + _("with checkpointing"), _bytes(memory["activations"]["checkpointed"])),
    ]
    table = Table(show_header=False, box=None, padding=(0, 2, 0, 0))
    table.add_column(style="bold")
    table.add_column(justify="right", no_wrap=True)
    table.add_column(justify="right", no_wrap=True, style="green")
    for name, (exact, short) in rows:
        table.add_row(Text(name), exact, short)
    console.print(table)
    activations = memory["activations"]
    notes = [_("FLOPs count every matmul (2 per multiply-add) and the full L × L attention, as "
               "torch's FlopCounterMode does; N = active parameters.")]
    if r["config"]["n_experts"]:
        notes.append(_("A mixture's FLOPs count the router and each token's top-k experts."))
    notes.append(_("Activations: {formula} bytes (with checkpointing {checkpointed}), {source}.").format(
        formula=activations["formula"], checkpointed=activations["checkpointed_formula"],
        source=activations["source"]))
    for note in notes:
        console.print(Text(note, style="dim"))
