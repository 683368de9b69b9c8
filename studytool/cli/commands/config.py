"""`studytool config` (remembered settings, per deck where Anki has them) and `studytool optimize` (FSRS fitting)."""

from typing import Optional

import typer

from studytool.cli.options import Json, ids_within_bound


def config_command(
    ctx: typer.Context,
    key: Optional[str] = typer.Argument(None, metavar="[KEY]", callback=ids_within_bound,
                                        help="A setting (none: show them all)."),
    value: Optional[str] = typer.Argument(None, metavar="[VALUE]", help="Remember this value for KEY."),
    deck: Optional[str] = typer.Option(None, "--deck", metavar="DECK", callback=ids_within_bound,
                                       help="This deck's own value (as an Anki preset), over the global one."),
    reset: bool = typer.Option(False, "--reset", help="Forget KEY's remembered value (for --deck: the deck's own)."),
    as_json: Json = False,
) -> None:
    """Show or set the remembered settings: new_per_day, max_reviews_per_day, retention, day_start,
    leech_threshold, learning_steps, relearning_steps, the FSRS parameters and implicit_credit.

    'config' shows all, 'config KEY' one, 'config KEY VALUE' remembers VALUE, 'config KEY --reset' forgets it.
    """
    from studytool.cli.render.common import console, print_json
    from studytool.cli.render.config import render_entries
    from studytool.errors import StudytoolError
    from studytool.i18n import _
    from studytool.study import settings
    from studytool.study.store import open_store

    ctx.obj.check_home()
    if deck is not None:
        from studytool.decks.loader import get_deck

        get_deck(ctx.obj, deck)   # an unknown deck is one line naming the decks there are
    if reset and (key is None or value is not None):
        raise StudytoolError(_("--reset takes a KEY and no VALUE"))
    changing = value is not None or reset
    with open_store(ctx.obj.db_path, create=changing) as store:
        if reset:
            entries = [settings.reset(store, key, deck)]
        elif value is not None:
            entries = [settings.put(store, key, value, deck)]
        else:
            # a stored value that does not read is shown, marked, for `config` to replace (`get` refuses it)
            entries = ([settings.entry(store, key, deck, lenient=True)] if key is not None
                       else settings.entries(store, deck))
    if as_json:
        print_json(entries[0].to_json() if key is not None else {"deck": deck,
                                                                 "settings": [e.to_json() for e in entries]})
    else:
        render_entries(console(), entries, with_help=key is None)


def optimize_command(
    ctx: typer.Context,
    dry_run: bool = typer.Option(False, "--dry-run", help="Fit and report, but keep the parameters in use."),
    as_json: Json = False,
) -> None:
    """Fit the FSRS parameters to your own reviews with Anki's optimizer (the Rust FSRS) and use them from now on.

    Reports the log loss of the default and the fitted parameters on your log (lower is better) and the RMSE
    over recall bins; the fitted ones are stored in 'config parameters' only if they predict your log better.
    """
    from studytool.cli.render.common import console, print_json
    from studytool.cli.render.config import render_fit
    from studytool.study.optimize import fit
    from studytool.study.store import open_store

    ctx.obj.check_home()
    with open_store(ctx.obj.db_path, create=not dry_run) as store:
        result = fit(store, save=not dry_run)
    if as_json:
        print_json({**result.to_json(), "dry_run": dry_run})
    else:
        render_fit(console(), result, dry_run=dry_run)
