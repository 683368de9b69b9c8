"""Drawing `studytool calc llm` (the dict of `studytool.calc.llm`): a table by part and a short breakdown."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from studytool.i18n import _


def _bytes(n: int) -> str:
    """Exact bytes, and the binary unit a reader compares with (1 GiB = 2^30 bytes)."""
    for unit, size in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= size:
            return f"{n:,} B ({n / size:,.2f} {unit})"
    return f"{n:,} B"


def _flops(n: int) -> str:
    return f"{n:,} ({n:.3e})"


def _share(part: int, total: int) -> str:
    return f"{100 * part / total:.1f}%"


def _title(r: dict[str, Any]) -> str:
    c = r["config"]
    facts = [f"{r['model']} ({c['model_type']})", f"d_model = {c['d_model']}", f"N = {c['n_layers']}",
             f"h = {c['n_heads']}", f"h_kv = {c['n_kv_heads']}", f"d_head = {c['head_dim']}", f"d_ff = {c['d_ff']}",
             f"V = {c['vocab_size']}"]
    if c["n_experts"]:
        facts.append(_("{e} experts, top {k}").format(e=c["n_experts"], k=c["top_k"]))
    return ", ".join(facts)


def _parts_table(r: dict[str, Any]) -> Table:
    p, c = r["parameters"], r["config"]
    layers, total = c["n_layers"], p["total"]
    table = Table(title=_title(r), title_justify="left")
    table.add_column(_("part"))
    table.add_column(_("per layer"), justify="right")
    table.add_column(_("all layers"), justify="right", style="green")
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
    rows = [
        (_("KV cache per token ({dtype})").format(dtype=kv["dtype"]), _bytes(kv["bytes_per_token"])
         + ("" if kv["multi_head_bytes_per_token"] == kv["bytes_per_token"] else
            "  " + _("(multi-head attention would need {n})").format(n=_bytes(kv["multi_head_bytes_per_token"])))),
        (_("KV cache, {sizes}").format(sizes=sizes), _bytes(kv["bytes"])),
        (_("forward FLOPs, {sizes}").format(sizes=sizes), _flops(flops["forward"])),
        (_("FLOPs per token"), _flops(flops["per_token"]) + "  " + _("(2N rule: {n})").format(
            n=f"{flops['approx_2n_per_token']:.3e}")),
        (_("training step FLOPs (3 × forward)"), _flops(flops["training_step"]) + "  " + _("(6ND rule: {n})").format(
            n=f"{flops['approx_6nd']:.3e}")),
        (_("inference memory ({dtype} weights + KV cache)").format(dtype=r["dtype"]),
         _bytes(memory["inference"]["total"])),
        (_("AdamW in fp32 (4 + 4 + 8 bytes per parameter)"), _bytes(memory["adamw_fp32"]["total"])),
        (_("AdamW mixed precision (2 + 2 + 4 master + 8 bytes)"), _bytes(memory["adamw_mixed"]["total"])),
        (_("activations, {sizes}").format(sizes=sizes), _bytes(memory["activations"]["full"])),
        (_("activations with checkpointing"), _bytes(memory["activations"]["checkpointed"])),
    ]
    table = Table(show_header=False, box=None, padding=(0, 2, 0, 0))
    table.add_column(style="bold", no_wrap=False)
    table.add_column(overflow="fold")
    for name, value in rows:
        table.add_row(Text(name), Text(value))
    console.print(table)
    activations = memory["activations"]
    console.print(Text(_("FLOPs count every matmul (2 per multiply-add) and the full L × L attention, as "
                         "torch's FlopCounterMode does; N = active parameters."), style="dim"))
    console.print(Text(_("Activations: {formula} bytes (with checkpointing {checkpointed}), {source}.").format(
        formula=activations["formula"], checkpointed=activations["checkpointed_formula"],
        source=activations["source"]), style="dim"))
