"""The app: global options, the command groups, and the entry point.

Nothing heavy is imported at module level: numpy, yaml, fsrs and genanki are
imported inside the commands that need them, so `studytool --help` is fast.
"""

import inspect
from pathlib import Path
from typing import Optional

import click
import typer
import typer.main
from typer.core import TyperCommand

from studytool import __version__
from studytool.cli.commands import config, explain, study, sync, worksheet
from studytool.cli.style import Group
from studytool.config import Settings
from studytool.i18n import LANGUAGES, _, set_language

# Every command, in the order help lists them in its three panels: a function, or a command group's help line
# (the group is studytool/cli/commands/<name>.py). Each is built only when named (click's lazy subcommands),
# so `studytool --help` builds none of the 29 commands and `studytool quiz` builds one.
STUDY, PROGRESS, TOOLS = "Study", "Your cards and progress", "Decks and tools"
COMMANDS = {
    "quiz": (STUDY, study.quiz_command),
    "review": (STUDY, study.review_command),
    "explain": (STUDY, explain.explain_command),
    "worksheet": (STUDY, worksheet.worksheet_command),
    "stats": (PROGRESS, study.stats_command),
    "cards": (PROGRESS, "Browse cards and their history; suspend, bury or forget them."),
    "config": (PROGRESS, config.config_command),
    "optimize": (PROGRESS, config.optimize_command),
    "backup": (PROGRESS, "Back up the progress database, list the backups, restore one."),
    "sync": (PROGRESS, sync.sync_command),
    "calc": (TOOLS, "Compute with the bundled Transformer engine."),
    "decks": (TOOLS, "List, show and check decks."),
    "export": (TOOLS, "Export decks to other tools."),
}


class _Root(Group):
    """The top of the app: each command of `COMMANDS` is a line in the help until it is named."""

    listing = False   # while the top help is drawn

    def __init__(self, *args, **attrs):
        super().__init__(*args, **attrs)
        self.built: set[str] = set()
        for name, (panel, what) in COMMANDS.items():
            help = what if isinstance(what, str) else inspect.getdoc(what)
            self.add_command(TyperCommand(name, help=help, rich_help_panel=panel))

    def list_commands(self, ctx):
        return list(COMMANDS)

    def get_params(self, ctx):
        # typer appends its completion options once the group is built
        self.params = [_shell_optional(param) if param.name in _TYPERS_COMPLETION else param for param in self.params]
        return super().get_params(ctx)

    def get_command(self, ctx, name):
        command = super().get_command(ctx, name)
        if command is None or self.listing or name in self.built:
            return command
        command = typer.main.get_command(_typer_of(name))
        command.name = name
        self.built.add(name)
        if isinstance(COMMANDS[name][1], str):
            command.help = COMMANDS[name][1]
        self.add_command(command)
        return command

    def make_context(self, info_name, args, parent=None, **extra):
        set_language(_language_asked(args))
        return super().make_context(info_name, args, parent=parent, **extra)

    def format_help(self, ctx, formatter):
        self.listing = True
        try:
            super().format_help(ctx, formatter)
        finally:
            self.listing = False


SHELLS = ("bash", "zsh", "fish", "powershell", "pwsh")
_TYPERS_COMPLETION = ("install_completion", "show_completion")   # typer's parameter names; ours are renamed


def _shell_optional(option: click.Parameter) -> click.Option:
    """typer's `--show-completion` / `--install-completion`, taking the shell as an optional value.

    typer's own take none when it can detect the shell, so `--show-completion zsh` printed the script of the
    shell it ran in; here a shell named is the one given, and none named is the one running.
    """
    given = option.callback

    def callback(ctx: click.Context, param: click.Parameter, value: Optional[str]) -> None:
        if value is None or ctx.resilient_parsing:
            return
        if value != "auto" and value not in SHELLS:
            raise click.BadParameter(_("unknown shell {shell!r}: one of {shells}").format(
                shell=value, shells=", ".join(SHELLS)), ctx=ctx, param=param)
        given(ctx, param, True if value == "auto" else value)   # True: typer detects the shell

    verb = "Install" if option.name == "install_completion" else "Show"
    name = option.name.replace("_completion", "_shell_completion")
    return click.Option([*option.opts, name], is_flag=False, flag_value="auto", default=None, metavar="[SHELL]",
                        expose_value=False, is_eager=True, callback=callback,
                        help=f"{verb} completion for SHELL ({', '.join(SHELLS[:4])}; default: the current shell).")


# `config new_per_day -1` is a value to refuse in words, not an unknown option "-1".
_CONTEXT = {"config": {"ignore_unknown_options": True}}


def _typer_of(name: str) -> typer.Typer:
    """The typer app of one command of `COMMANDS`: its group's, or one holding just that function."""
    panel, what = COMMANDS[name]
    if isinstance(what, str):
        from importlib import import_module

        return import_module(f"studytool.cli.commands.{name}").app
    single = typer.Typer(add_completion=False)
    single.command(name, rich_help_panel=panel, context_settings=_CONTEXT.get(name))(what)
    return single


app = typer.Typer(
    cls=_Root,
    name="studytool",
    help="Study the Transformer: flashcards, fresh numeric variants, spaced repetition.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=True,
    context_settings={"help_option_names": ["--help", "-h"]},   # inherited by every command
)


def _language_asked(args: list[str]) -> Optional[str]:
    """The language `--lang X` (or `--lang=X`) asks for, read before click parses a word, so that every usage
    error, of the global options too, is in that language; None when none is asked (or not en/zh)."""
    for i, arg in enumerate(args):
        if arg == "--lang" and i + 1 < len(args):
            value = args[i + 1]
        elif arg.startswith("--lang="):
            value = arg.removeprefix("--lang=")
        else:
            continue
        return value.lower() if value.lower() in LANGUAGES else None
    return None


def _version(value: bool) -> None:
    if value:
        typer.echo(f"studytool {__version__}")
        raise typer.Exit()


@app.callback()
def _global(
    ctx: typer.Context,
    db: Optional[Path] = typer.Option(None, "--db", metavar="PATH", help="Progress database (default: $STUDYTOOL_HOME/studytool.db)."),
    deck_path: list[Path] = typer.Option([], "--deck-path", metavar="PATH", help="Extra deck file or folder (repeatable)."),
    lang: Optional[str] = typer.Option(None, "--lang", metavar="en|zh",   # checked here, applied by _Root
                                       click_type=click.Choice(LANGUAGES, case_sensitive=False),
                                       help="Interface language: en or zh (default: $STUDYTOOL_LANG, then the locale)."),
    version: bool = typer.Option(False, "--version", "-V", callback=_version, is_eager=True, help="Show the version and exit."),
) -> None:
    ctx.obj = Settings(db=db, deck_paths=list(deck_path))
    ctx.obj.check_paths()


def main() -> None:
    import os

    from studytool.cli.safety import run

    # OpenBLAS starts a thread pool when NumPy is imported: about 60 ms before a generated card is shown,
    # for matrices of a few dozen numbers where threads buy nothing. A user's own setting wins.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    run(app)   # one line for closed streams, full disks, encodings, errors raised while parsing
