"""`:edit` in a session: the card's deck file opened in the learner's editor at the card's line, then read and
checked again, as `decks check` would. A bundled deck is copied into the learner's deck folder first (their copy
then replaces the bundled deck; progress is keyed by ids, so it stays)."""

from __future__ import annotations

import os
import shlex
from collections.abc import Callable
from pathlib import Path

from studytool.config import Settings
from studytool.decks.model import Card
from studytool.errors import StudytoolError
from studytool.i18n import _


def editor_command(path: Path, line: int) -> list[str]:
    """`$VISUAL` or `$EDITOR` (else vi) with `+LINE`, which vi, vim, nano, emacs and micro all read."""
    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
    try:
        words = shlex.split(editor)
    except ValueError:
        raise StudytoolError(_("$EDITOR ({editor}) does not read as a command").format(editor=editor)) from None
    return [*words, f"+{max(1, line)}", str(path)]


def edit_card(card: Card, settings: Settings, *, run: Callable[[list[str]], None],
              said: Callable[[str], None]) -> Card | None:
    """Run the editor on `card`'s deck (`run` starts it and waits); the card as read back, or None when the deck
    no longer has it. A deck that no longer validates raises `DeckError` with every problem."""
    from studytool.decks.loader import load_deck_file
    from studytool.decks.sources import is_bundled, own_copy

    if not card.file:
        raise StudytoolError(_("{card} was not read from a file, so it cannot be edited").format(card=card.key))
    if is_bundled(card.file):
        path = own_copy(card.file, settings)
        said(_("{deck} is a bundled deck: editing your copy {path}, which replaces it from now on").format(
            deck=card.deck, path=path))
    else:
        path = Path(card.file)
    run(editor_command(path, card.line))
    deck = load_deck_file(path)
    found = [edited for edited in deck.cards if edited.id == card.id]
    if not found:
        said(_("{card} is no longer in {path}: the session goes on with it as it was").format(card=card.key,
                                                                                             path=path))
        return None
    return found[0]
