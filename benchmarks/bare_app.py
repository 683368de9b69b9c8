"""A bare two-command typer app: the yardstick for studytool's start-up (benchmarks/startup.py)."""

import typer

app = typer.Typer()


@app.command()
def hello(name: str) -> None:
    """Say hello."""
    typer.echo(f"hello {name}")


@app.command()
def bye() -> None:
    """Say goodbye."""
    typer.echo("bye")


if __name__ == "__main__":
    app()
