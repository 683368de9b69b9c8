"""How the command line presents its errors, for every command: one plain line each, in the interface language.

Only public typer and click API: `TyperGroup` is typer's documented class for custom groups
(`typer.Typer(cls=...)`), `make_context`/`invoke` are click's documented hooks, and
`click.UsageError` carries the context and message shown here.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from contextlib import contextmanager

import click
from typer.core import TyperGroup

from studytool.errors import StudytoolError
from studytool.i18n import _


class Group(TyperGroup):
    """Every group of the app. Two things happen here, for every command below it:

    - a `StudytoolError` becomes `studytool: message` on one line and exit 1;
    - a usage error is `Usage: ...` and one `Error: ...` line in the interface language, exit 2
      (typer would draw a rich panel in English).

    Done in the group rather than only in `main()` so that tests driving `app`
    with typer's `CliRunner` see exactly what a user sees.
    """

    def make_context(self, info_name, args, parent=None, **extra):
        # the group's own options (--db, --lang ...): a parse error there has no context yet
        with _usage_errors_plain(lambda: click.Context(self, info_name=info_name, parent=parent)):
            return super().make_context(info_name, args, parent=parent, **extra)

    def invoke(self, ctx):
        try:
            with _usage_errors_plain(lambda: _subcommand_context(self, ctx)):   # a command's own options
                return super().invoke(ctx)
        except StudytoolError as error:
            from studytool.files import printable

            sys.stderr.write(f"studytool: {printable(str(error), name=True)}\n")   # it may quote a path or an answer
            raise click.exceptions.Exit(1) from None


def _subcommand_context(group: click.Group, ctx: click.Context) -> click.Context:
    """The context of the command `ctx` was about to run, for its usage line (click parses before making one)."""
    name = ctx.invoked_subcommand
    command = group.get_command(ctx, name) if name else None
    return click.Context(command, info_name=name, parent=ctx) if command is not None else ctx


@contextmanager
def _usage_errors_plain(context: Callable[[], click.Context]):
    """Show a usage error as click does without rich: the usage line, then one `Error:` line; exit 2.

    `context` gives the one whose usage is shown when click raised the error without one.
    """
    try:
        yield
    except click.exceptions.NoArgsIsHelpError:
        raise   # "no arguments, so help": click shows the help itself
    except click.UsageError as error:
        ctx = error.ctx or context()
        sys.stderr.write(_("Usage: {usage}").format(usage=ctx.get_usage().removeprefix("Usage: ")) + "\n")
        from studytool.files import printable

        error.message = _global_option_hint(error, ctx) or _translated(error.message, _value_wording())
        message = printable(_translated(error.format_message(), _click_wording()))   # it quotes the value as typed
        sys.stderr.write(_("Error: {message}").format(message=message) + "\n")
        raise click.exceptions.Exit(error.exit_code) from None


def _global_option_hint(error: click.UsageError, ctx: click.Context) -> str | None:
    """`quiz --lang zh` names an option of the whole app after a command: say where it goes."""
    if not isinstance(error, click.NoSuchOption) or ctx.parent is None:
        return None
    root = ctx.find_root()
    if not any(error.option_name in param.opts for param in root.command.params):
        return None
    error.possibilities = None   # click's "Did you mean" would name an option of the command instead
    return _("{option} is a global option: put it before the command, as in 'studytool {option} … {command}'").format(
        option=error.option_name, command=ctx.info_name)


def _value_wording() -> dict[str, str]:
    """click's sentences for a bad value -> ours, in the interface language."""
    return {
        "{input!r} is not a valid integer.": _("must be a whole number, not {input}"),
        "{input!r} is not a valid float.": _("must be a number, not {input}"),
        "{input!r} is not one of {choices}.": _("must be one of {choices}, not {input}"),
    }


def _click_wording() -> dict[str, str]:
    """click's usage-error sentences -> the interface language."""
    return {
        "Invalid value for {hint}: {message}": _("Invalid value for {hint}: {message}"),
        "Invalid value: {message}": _("Invalid value: {message}"),
        "Missing option {hint}.": _("Missing option {hint}."),
        "Missing argument {hint}.": _("Missing argument {hint}."),
        "Missing command.": _("Missing command."),
        "No such option: {name} (Possible options: {names})": _("No such option: {name} (Possible options: {names})"),
        "No such option: {name} Did you mean {names}?": _("No such option: {name}. Did you mean {names}?"),
        "No such option: {name}": _("No such option: {name}"),
        "No such command {name}. Did you mean {names}?": _("No such command {name}. Did you mean {names}?"),
        "No such command {name}.": _("No such command {name}."),
        "Got unexpected extra argument ({args})": _("Got unexpected extra argument(s) ({args})"),
        "Got unexpected extra arguments ({args})": _("Got unexpected extra argument(s) ({args})"),
        "Option {name} requires an argument.": _("Option {name} requires an argument."),
        "Option {name} does not take a value.": _("Option {name} does not take a value."),
    }


def _translated(text: str, wordings: dict[str, str]) -> str:
    """The first of `wordings` that `text` matches, with its fields filled in; `text` itself if none does.

    `{field!r}` in a pattern matches a quoted value and gives it without its quotes.
    """
    import re

    for wording, translated in wordings.items():
        pattern = re.escape(wording)
        pattern = re.sub(r"\\\{(\w+)!r\\\}", r"'(?P<\1>.*?)'", pattern)
        pattern = re.sub(r"\\\{(\w+)\\\}", r"(?P<\1>.+?)", pattern)
        found = re.fullmatch(pattern, text, flags=re.DOTALL)
        if found:
            return translated.format(**{name: value or "''" for name, value in found.groupdict().items()})
    return text
