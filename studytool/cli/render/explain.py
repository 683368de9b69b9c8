"""Drawing explanations with rich: the topic list, and one topic with its live example.

Topic and card text is shown as plain `Text` (never parsed as rich markup), so shapes like
`[32, 10, 512]` print as written.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.cells import cell_len
from rich.console import Console, Group
from rich.padding import Padding
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from studytool.decks.topics import Topic
from studytool.explain import Example, Explanation, Picture
from studytool.i18n import _
from studytool.problems.variant import option_label
from studytool.cli.render.common import Prose

def _one_line(text: str, width: int = 200) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def render_topic_list(index: Sequence[tuple[str, Sequence[Topic]]], console: Console) -> None:
    """Every topic, grouped by part of the architecture, with its aliases."""
    for title, topics in index:
        table = Table(title=Text(title, style="bold"), title_justify="left", show_header=False, box=None,
                      padding=(0, 2, 0, 0), expand=False)
        table.add_column(style="cyan", no_wrap=True)
        table.add_column()
        table.add_column(style="dim")
        for topic in topics:
            table.add_row(Text(topic.id), Text(topic.title), Text(", ".join(topic.aliases)))
        console.print(table)
        console.print()
    console.print(Text(_("Show one: studytool explain TOPIC  (an id, alias or unique prefix)"), style="dim"))


def _label(word: str) -> str:
    """`Answer: ` in English, `答案：` in Chinese (full-width colon, no space); `word` is already translated."""
    return _("{label}: ").format(label=word)


def _section(title: str) -> Text:
    return Text(f"\n{title}", style="bold magenta")


def _steps(example: Example) -> Group:
    """The numbered worked steps; a step that writes out a mask also draws it as a grid."""
    from studytool.cli.render.pictures import step_picture

    steps = []
    for i, step in enumerate(example.solution, 1):
        picture = step_picture(step)  # a mask is drawn as a grid, not written out
        steps.append(Text.assemble((f"{i}. ", "dim"), step if picture is None else picture[0]))
        if picture is not None:
            steps.append(Padding(picture[1], (0, 0, 0, len(f"{i}. "))))
    return Group(*steps)


def _example(example: Example) -> Group:
    source = (
        _("pinned numbers") if example.seed is None   # the topic's own example; not every one is from the notes
        else _("fresh variant, seed {seed}").format(seed=example.seed)
    )
    parts = [
        Text(_("Worked example ({source}; generator {generator})").format(source=source, generator=example.generator),
             style="bold magenta"),
        Padding(Prose(Text(example.prompt)), (0, 0, 0, 2)),
    ]
    if example.options:
        options = Text("\n").join(Text(f"{option_label(example.kind, i)}. {o}") for i, o in enumerate(example.options))
        parts.append(Padding(options, (0, 0, 0, 4)))
    if example.solution:
        parts += [Text("  " + _label(_("Solution")).rstrip(), style="bold"), Padding(_steps(example), (0, 0, 0, 4))]
    parts.append(Text.assemble(("  " + _label(_("Answer")), "bold"), (example.answer, "green")))
    return Group(*parts)


def _kind_word(kind: str) -> str:
    """A card kind in the learner's language (deck files and `decks show` keep the YAML word)."""
    return {"recall": _("recall"), "choice": _("choice"), "truefalse": _("true-or-false"), "number": _("number"),
            "vector": _("vector"), "shape": _("shape"), "order": _("order"), "generated": _("generated")}[kind]


def _cards(explanation: Explanation, console: Console) -> None:
    if not explanation.cards:
        console.print(Text("  " + _("No cards drill this topic yet."), style="dim"))
        return
    key_width = max(len(card.key) for card in explanation.cards)
    kinds = {card.key: _kind_word(card.kind) for card in explanation.cards}
    kind_width = max(cell_len(word) for word in kinds.values())
    for card in explanation.cards:
        kind = kinds[card.key] + " " * (kind_width - cell_len(kinds[card.key]))   # a Chinese character is 2 cells
        line = Text.assemble(
            "  ", (card.key.ljust(key_width), "cyan"), "  ", (kind, "dim"), "  ",
            _one_line(card.question),
        )
        console.print(line, no_wrap=True, overflow="ellipsis")
    console.print()
    console.print(Text.assemble("  ", (_label(_("Quiz them")), "bold"), (explanation.quiz_command, "green")))


def _neighbours(explanation: Explanation, console: Console) -> None:
    """Where the topic sits in the graph: what it needs, and what builds on it."""
    for label, topics in ((_("Needs"), explanation.requires), (_("Builds on it"), explanation.required_by)):
        names = Text(", ").join(Text(topic.id, style="cyan") for topic in topics) if topics else Text(
            _("none"), style="dim")
        console.print(Text.assemble((_label(label), "bold"), names))


def render_graph(layers: Sequence[Sequence[Topic]], console: Console) -> None:
    """The whole topic graph, in layers: each topic with what it needs (all of it in earlier layers)."""
    console.print(Text(_("Topic graph: each topic comes after what it needs (← requires)"), style="bold"))
    width = max(len(topic.id) for layer in layers for topic in layer)
    for level, layer in enumerate(layers):
        title = _("Layer {n}: needs nothing") if level == 0 else _("Layer {n}")
        console.print(_section(title.format(n=level)))
        for topic in layer:
            line = Text.assemble("  ", (topic.id, "cyan"))
            if topic.requires:
                line.append(" " * (width - len(topic.id)) + "  ← ", style="dim")
                line.append(", ".join(topic.requires))
            console.print(line)
    console.print()
    console.print(Text(_("One topic with what it needs and what builds on it: studytool explain TOPIC"), style="dim"))


def _notes_pe_table(notes: Sequence[Sequence[float]], tokens: Sequence[str]) -> Table:
    """The notes' d = 3 table: a row per position and its token, the numbers as the notes print them."""
    from rich import box

    table = Table(title=_("The notes' d = 3 table"), title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False)
    table.add_column("pos", justify="right")
    table.add_column("token")
    for j in range(len(notes[0])):
        table.add_column(f"j = {j}", justify="right")
    for pos, (token, row) in enumerate(zip(tokens, notes)):
        table.add_row(str(pos), token, *(f"{value:.6f}" for value in row))
    return table


def _picture(picture: Picture, console: Console) -> None:
    """The topic drawn: the PE heatmap beside the notes' table (one under the other when narrow), or weights."""
    from rich.measure import Measurement

    from studytool.cli.render.pictures import pe_heatmap, shade_legend, weights_heatmaps

    if picture.kind == "pe":
        table = picture.data["table"]
        console.print(_section(_("Picture: PE of {positions} positions x {dims} dimensions (rows = positions)")
                               .format(positions=len(table), dims=len(table[0]))))
        heatmap, notes = pe_heatmap(table), _notes_pe_table(picture.data["notes"], picture.data["notes_tokens"])
        widths = [Measurement.get(console, console.options, part).maximum for part in (heatmap, notes)]
        if sum(widths) + 5 <= console.width:  # the indent and the gap
            row = Table.grid(padding=(0, 3))
            for width in widths:
                row.add_column(width=width, no_wrap=True)
            row.add_row(heatmap, notes)
            console.print(Padding(row, (0, 0, 0, 2)))
        else:
            console.print(Padding(Group(heatmap, Text(), notes), (0, 0, 0, 2)))
        console.print(Padding(shade_legend(console, 1.0, signed=True), (0, 0, 0, 2)))
        return
    console.print(_section(_("Picture: the worked example's attention weights (each row sums to 1)")))
    heatmap = weights_heatmaps([picture.data["weights"]], titled=False)[0]
    console.print(Padding(Group(heatmap, shade_legend(console, heatmap.top, signed=False)), (0, 0, 0, 2)))


def render_explanation(explanation: Explanation, console: Console) -> None:
    """The topic: idea, formulas, live example, common mistakes, and the cards that drill it."""
    topic = explanation.topic
    header = Text.assemble(
        (topic.title, "bold"), "  ", (topic.id, "cyan"), "  ", (explanation.group_title, "magenta"), "\n",
        (_label(_("Also")) + ", ".join(topic.aliases), "dim"),
    )
    console.print(Panel(header, expand=False))
    _neighbours(explanation, console)

    console.print(_section(_("Idea")))
    for paragraph in topic.summary.split("\n\n"):
        console.print(Padding(Prose(Text(" ".join(paragraph.split()))), (0, 0, 1, 2)))

    if topic.formulas:
        console.print(Panel(Text("\n".join(topic.formulas)), title=_("Formulas"), title_align="left", expand=False))

    if explanation.picture is not None:
        _picture(explanation.picture, console)

    if explanation.example is not None:
        console.print()
        console.print(_example(explanation.example))

    if topic.mistakes:
        console.print(_section(_("Common mistakes")))
        for mistake in topic.mistakes:
            console.print(Padding(Prose(Text.assemble(("✗ ", "red"), mistake)), (0, 0, 0, 2)))

    console.print(_section(_("Cards that drill it")))
    _cards(explanation, console)
