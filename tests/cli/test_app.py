"""The command table: help lists every command without building one; a command is built when it is named."""

import typer.main
from click.testing import CliRunner

from studytool.cli.app import COMMANDS, app

runner = CliRunner()


def built_after(*args: str) -> set[str]:
    root = typer.main.get_command(app)
    runner.invoke(root, list(args), env={"STUDYTOOL_LANG": "en"})
    return root.built


def test_help_lists_every_command_in_the_tables_order_and_builds_none():
    root = typer.main.get_command(app)
    result = runner.invoke(root, ["--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0
    positions = [result.stdout.index(f"│ {name} ") for name in COMMANDS]
    assert positions == sorted(positions)
    assert root.built == set()


def test_naming_a_command_builds_only_that_one():
    assert built_after("quiz", "--help") == {"quiz"}
    assert built_after("calc", "softmax", "1", "2") == {"calc"}


def test_an_unknown_command_builds_nothing_and_suggests_the_near_one():
    root = typer.main.get_command(app)
    result = runner.invoke(root, ["revew"])
    assert result.exit_code == 2 and "Did you mean 'review'?" in result.stderr
    assert root.built == set()


def test_show_completion_prints_the_script_of_the_shell_named():
    root = typer.main.get_command(app)
    scripts = {shell: runner.invoke(root, ["--show-completion", shell], prog_name="studytool") for shell in
               ("zsh", "bash", "fish")}
    assert all(result.exit_code == 0 for result in scripts.values())
    assert scripts["zsh"].stdout.startswith("#compdef studytool")
    assert "compdef _studytool_completion studytool" in scripts["zsh"].stdout
    assert "complete -o default -F _studytool_completion studytool" in scripts["bash"].stdout
    assert scripts["fish"].stdout.startswith("complete --command studytool")
    bogus = runner.invoke(root, ["--show-completion", "tcsh"], prog_name="studytool", env={"STUDYTOOL_LANG": "en"})
    assert bogus.exit_code == 2 and "unknown shell 'tcsh': one of bash, zsh, fish, powershell, pwsh" in bogus.output
