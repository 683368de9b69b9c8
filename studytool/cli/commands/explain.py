"""`studytool explain`: a topic with a live example, or the list of topics."""

from typing import Annotated, Optional

import typer

from studytool.cli.options import ids_within_bound, seed_option
from studytool.i18n import _


def explain_command(
    ctx: typer.Context,
    topic: Optional[list[str]] = typer.Argument(None, metavar="TOPIC...", callback=ids_within_bound, help="Topic id, alias or unique prefix (English or Chinese)."),
    seed: Annotated[Optional[int], seed_option("Draw a fresh example of TOPIC from this seed.")] = None,
    graph: bool = typer.Option(False, "--graph", help="Draw the topic graph: every topic after what it requires."),
) -> None:
    """Explain a topic with a live example from the engine; without TOPIC, list the topics."""
    from studytool.cli.render.common import console

    if graph:
        if topic or seed is not None:
            raise typer.BadParameter(_("--graph draws every topic; drop TOPIC and --seed"), param_hint="'--graph'")
        from studytool.cli.render.explain import render_graph
        from studytool.decks.topics import layers

        render_graph(layers(), console())
        return
    if not topic:
        if seed is not None:
            raise typer.BadParameter(_("a seed draws one topic's example; name the topic, e.g. "
                                       "studytool explain attention --seed {seed}").format(seed=seed),
                                     param_hint="'--seed'")
        from studytool.cli.render.explain import render_topic_list
        from studytool.explain import topic_index

        render_topic_list(topic_index(), console())
        return
    from studytool.cli.render.explain import render_explanation
    from studytool.decks.loader import load_decks
    from studytool.explain import explain

    render_explanation(explain(" ".join(topic), load_decks(ctx.obj), seed), console())
