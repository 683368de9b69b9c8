"""`studytool calc`: the bundled engine on the learner's own input."""

from typing import Optional

import typer

from studytool.cli.options import DFF, Batch, DModel, Heads, Json, Seq, within
from studytool.cli.style import Group

app = typer.Typer(cls=Group, add_completion=False, no_args_is_help=True)   # its help: GROUPS in cli/app.py

_VALUES = {"ignore_unknown_options": True}  # so `-1` is read as a number, not as an option
_EPS = typer.Option(1e-5, "--eps", metavar="EPS", help="Added to the variance inside the square root.")


def _show(result: dict, as_json: bool, render) -> None:
    from studytool.cli.render.common import console, print_json

    if as_json:
        print_json(result)
    else:
        render(result, console())


def _normalisation(name: str, metavar: str, values_help: str, parse: str, compute: str, renderer: str,
                   summary: str) -> None:
    """Declare `calc NAME VALUES... [--eps] [--json]`: the shape LayerNorm and BatchNorm share."""

    def command(
        values: Optional[list[str]] = typer.Argument(None, metavar=metavar, help=values_help),
        eps: float = _EPS,
        as_json: Json = False,
    ) -> None:
        from studytool import calc
        from studytool.cli.render import calc as render

        _show(getattr(calc, compute)(getattr(calc, parse)(values or []), eps=eps), as_json, getattr(render, renderer))

    command.__doc__ = summary
    app.command(name, context_settings=_VALUES)(command)


_normalisation("layernorm", "X...", "One token's vector, e.g. 1 2 3 4 (negative numbers work).", "parse_vector",
               "layernorm", "render_layernorm", "LayerNorm of one vector: mean, σ (biased) and the output.")
_normalisation("batchnorm", "ROW...", "The batch, one row per sample: 1,10 3,14 or '1 10' '3 14'; or one matrix: "
               "'[[1,10],[3,14]]'", "parse_rows", "batchnorm", "render_batchnorm",
               "BatchNorm of a small batch: each feature over the samples.")


@app.command("softmax", context_settings=_VALUES)
def calc_softmax(
    x: Optional[list[str]] = typer.Argument(None, metavar="SCORE...", help="The scores, e.g. -1 0 2."),
    as_json: Json = False,
) -> None:
    """Softmax of a vector of scores."""
    from studytool import calc
    from studytool.cli.render.calc import render_softmax

    _show(calc.softmax(calc.parse_vector(x or [])), as_json, render_softmax)


@app.command("pe")
def calc_pe(
    d_model: int = typer.Option(..., "--d-model", metavar="D", help="Encoding width (odd works)."),
    positions: int = typer.Option(..., "--positions", metavar="N", help="Number of positions, from 0."),
    plot: bool = typer.Option(False, "--plot", help="Draw the table as a heatmap (positions x dimensions) above it."),
    as_json: Json = False,
) -> None:
    """The sinusoidal positional-encoding table: a row per dimension, as many positions as fit; --json gives all."""
    from studytool import calc
    from studytool.cli.render.calc import render_pe, render_pe_plot

    _show(calc.positional_encoding(d_model, positions), as_json, render_pe_plot if plot else render_pe)


@app.command("mask")
def calc_mask(
    causal: Optional[int] = typer.Option(None, "--causal", metavar="N", help="The N x N causal mask of a decoder."),
    lengths: Optional[str] = typer.Option(None, "--lengths", metavar="LENGTHS",
                                          help="The padding mask of a batch of sentences of these lengths: 3,5,2"),
    as_json: Json = False,
) -> None:
    """A mask as a grid: row = query, column = key; blocked or visible."""
    from studytool import calc
    from studytool.cli.render.calc import render_mask

    parsed = calc.parse_lengths(lengths) if lengths is not None else None
    _show(calc.mask(causal=causal, lengths=parsed), as_json, render_mask)


@app.command("attention")
def calc_attention(
    batch: Batch,
    seq: Seq,
    d_model: DModel = 512,
    heads: Heads = 8,
    weights: bool = typer.Option(False, "--weights", help="Also the engine's weights per head for one random sentence."),
    seed: int = typer.Option(0, "--seed", metavar="S", callback=within(0), help="Seed of that sentence and layer (with --weights)."),
    as_json: Json = False,
) -> None:
    """The shapes through multi-head self-attention."""
    from studytool import calc
    from studytool.cli.render.calc import render_attention

    _show(calc.attention(batch, seq, d_model, heads, weights_seed=seed if weights else None), as_json, render_attention)


@app.command("params")
def calc_params(
    d_model: DModel = 512,
    heads: Heads = 8,
    d_ff: DFF = None,
    layers: int = typer.Option(6, "--layers", metavar="N", show_default=False, help="Layers per stack N (default: 6)."),
    vocab: Optional[int] = typer.Option(None, "--vocab", metavar="V", help="Vocabulary size (adds embedding and output projection)."),
    no_bias: bool = typer.Option(False, "--no-bias", help="Only the notes' convention: weight matrices, no biases or LayerNorms."),
    as_json: Json = False,
) -> None:
    """Parameter counts of every part, with biases and under the notes' convention."""
    from studytool import calc
    from studytool.cli.render.calc import render_params

    _show(calc.params(d_model, heads, d_ff, layers, vocab, bias=not no_bias), as_json, render_params)


@app.command("shapes")
def calc_shapes(
    batch: Batch,
    seq: Seq,
    d_model: DModel = 512,
    heads: Heads = 8,
    vocab: int = typer.Option(..., "--vocab", metavar="V", help="Vocabulary size V."),
    d_ff: DFF = None,
    tgt_seq: Optional[int] = typer.Option(None, "--tgt-seq", metavar="L", help="Target length (default: the source length)."),
    tree: bool = typer.Option(False, "--tree", help="Show a tree by part and sub-layer instead of a table."),
    as_json: Json = False,
) -> None:
    """The whole data flow, step by step, as the engine records it."""
    from functools import partial

    from studytool import calc
    from studytool.cli.render.calc import render_shapes

    _show(calc.shapes(batch, seq, d_model, heads, vocab, d_ff, tgt_seq), as_json, partial(render_shapes, tree=tree))


@app.command("llm")
def calc_llm(
    config: Optional[str] = typer.Option(None, "--config", metavar="PATH",
                                         help="A model's config.json as the Hugging Face Hub ships it."),
    preset: Optional[str] = typer.Option(None, "--preset", metavar="NAME",
                                         help="A bundled config: gpt2, gpt2-xl, llama-3-8b, mistral-7b, mixtral-8x7b, "
                                              "qwen2-0.5b, gemma-2b."),
    seq: Optional[int] = typer.Option(None, "--seq", metavar="L", show_default=False,
                                      help="Sequence length L (default: 2048, or a GPT-2's 1024 positions)."),
    batch: int = typer.Option(1, "--batch", metavar="B", help="Batch size B."),
    dtype: str = typer.Option("bf16", "--dtype", metavar="fp32|bf16|fp16|int8",
                              help="Bytes per value of the KV cache and inference weights."),
    as_json: Json = False,
) -> None:
    """A decoder-only LLM's parameters, KV cache, FLOPs and training memory, from its config.json."""
    from studytool import calc
    from studytool.cli.render.llm import render_llm

    _show(calc.llm(config, preset, seq=seq, batch=batch, dtype=dtype), as_json, render_llm)


@app.command("bpe")
def calc_bpe(
    text: Optional[list[str]] = typer.Argument(None, metavar="TEXT...", help="The corpus: words separated by spaces."),
    merges: int = typer.Option(10, "--merges", metavar="K", help="How many merges to learn."),
    as_json: Json = False,
) -> None:
    """BPE on your text, as CS336 trains it (on characters): each merge with its count, then the tokens."""
    from studytool import calc
    from studytool.cli.render.calc import render_bpe

    _show(calc.bpe(text or [], merges), as_json, render_bpe)
