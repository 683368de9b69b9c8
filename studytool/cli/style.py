"""How the command line presents itself: help, usage errors and user-facing errors, for every command.

typer 0.29 offers no setting for these, so its group and parameter classes are adapted here;
`studytool.cli` declares the commands and uses `Group` for every group.
"""

from __future__ import annotations

import sys
from contextlib import contextmanager

import typer
from typer.core import TyperArgument, TyperGroup, TyperOption

from studytool.errors import StudytoolError
from studytool.i18n import _


class Group(TyperGroup):
    """Every group of the app. Three things happen here, for every command below it:

    - a `StudytoolError` becomes `studytool: message` on one line and exit 1;
    - a usage error is `Usage: ...` and one `Error: ...` line, in plain words, exit 2;
    - help shows the metavars given with each option and argument (see `_Option`).

    Done in the group rather than only in `main()` so that tests driving `app`
    with typer's `CliRunner` see exactly what a user sees.
    """

    def make_context(self, info_name, args, parent=None, **extra):
        with _usage_errors_plain():   # the group's own options (--db, --lang ...)
            return super().make_context(info_name, args, parent=parent, **extra)

    def invoke(self, ctx):
        try:
            with _usage_errors_plain():   # a command's options, parsed when it is invoked
                return super().invoke(ctx)
        except StudytoolError as error:
            from studytool.files import printable

            sys.stderr.write(f"studytool: {printable(str(error))}\n")   # a message may quote what was typed
            raise typer.Exit(1) from None

    def get_params(self, ctx):
        return _presented(super().get_params(ctx))

    def get_command(self, ctx, name):
        command = super().get_command(ctx, name)
        if command is not None:
            _presented([*command.params, command.get_help_option(ctx)])
        return command


class _Option(TyperOption):
    """An option as help shows it: `--count N`, and nothing after a flag.

    typer 0.29 shows the Python type instead (`<int range> [x>=1]`, `<list[str]>`, `<bool>`).
    """

    def display_type_rich(self, ctx):
        return None if self.is_flag else self.metavar or self.name.upper()

    def _get_number_range_help_str(self):
        return None   # a value out of range is explained when it is given


class _Argument(TyperArgument):
    """An argument as help and usage show it: `DECK`, `[PATH]...` (typer 0.29: `{DECK}`, `PATH <list[Path]>`)."""

    def display_type_rich(self, ctx):
        return None

    def _usage_display_name(self):
        name = self.display_name_raw if self.required else f"[{self.display_name_raw}]"
        return name + ("..." if self.nargs != 1 else "")


def _presented(params: list) -> list:
    """The same parameters, shown in help as `_Option`/`_Argument` (they only change how they are displayed).

    typer builds the parameter objects itself, with no way to choose their class, so the class is set here.
    """
    shown = {TyperOption: _Option, TyperArgument: _Argument}
    for param in params:
        if type(param) in shown:
            param.__class__ = shown[type(param)]
    return params


def _wording(kind: str) -> str | None:
    """pydantic's wording for a bad value (typer checks values with pydantic) -> ours, or None."""
    return {
        "greater_than_equal": _("must be {ge} or more, not {input}"),
        "greater_than": _("must be more than {gt}, not {input}"),
        "less_than_equal": _("must be {le} or less, not {input}"),
        "less_than": _("must be less than {lt}, not {input}"),
        "int_parsing": _("must be a whole number, not {input}"),
        "int_from_float": _("must be a whole number, not {input}"),
        "float_parsing": _("must be a number, not {input}"),
        "finite_number": _("must be a finite number, not {input}"),
        "value_error": "{error}",   # a choice typer checked itself: its own sentence, without "Value error, "
    }.get(kind)


@contextmanager
def _usage_errors_plain():
    """Show a usage error as click does without rich: the usage line, then one `Error:` line; exit 2."""
    try:
        yield
    except typer.TyperException as error:
        # Usage errors are the ones with exit code 2; "no arguments, so help" is one too, already shown.
        if getattr(error, "exit_code", None) != 2 or type(error).__name__ == "NoArgsIsHelpError":
            raise
        errors = getattr(error.__cause__, "errors", None)
        first = errors()[0] if errors else None
        wording = _wording(first["type"]) if first is not None else None
        if wording is not None:
            error.message = wording.format(**first.get("ctx", {}), input=first["input"])
        if error.ctx is not None:
            usage = error.ctx.get_usage().removeprefix("Usage: ")
            sys.stderr.write(_("Usage: {usage}").format(usage=usage) + "\n")
        from studytool.files import printable

        message = printable(_usage_message(error.format_message()))   # it quotes the value as typed
        sys.stderr.write(_("Error: {message}").format(message=message) + "\n")
        raise typer.Exit(error.exit_code) from None


def _click_wording() -> dict[str, str]:
    """click's usage-error sentences -> the interface language (typer 0.29 carries its own click, untranslated)."""
    return {
        "Invalid value for {hint}: {message}": _("Invalid value for {hint}: {message}"),
        "Invalid value: {message}": _("Invalid value: {message}"),
        "Missing option {hint}.": _("Missing option {hint}."),
        "Missing argument {hint}.": _("Missing argument {hint}."),
        "Missing command.": _("Missing command."),
        "No such option: {name} (Possible options: {names})": _("No such option: {name} (Possible options: {names})"),
        "No such option: {name}": _("No such option: {name}"),
        "No such command {name}. Did you mean {names}?": _("No such command {name}. Did you mean {names}?"),
        "No such command {name}.": _("No such command {name}."),
        "Got unexpected extra argument(s) ({args})": _("Got unexpected extra argument(s) ({args})"),
        "Option {name} requires an argument.": _("Option {name} requires an argument."),
        "Option {name} does not take a value.": _("Option {name} does not take a value."),
    }


def _usage_message(text: str) -> str:
    """click's English sentence in the interface language: the first sentence of `_click_wording` it matches."""
    import re

    for wording, translated in _click_wording().items():
        pattern = re.sub(r"\\\{(\w+)\\\}", r"(?P<\1>.+?)", re.escape(wording))
        found = re.fullmatch(pattern, text, flags=re.DOTALL)
        if found:
            return translated.format(**found.groupdict())
    return text
