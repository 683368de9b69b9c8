"""Decks: YAML files of cards, validated into `Card` objects; explain topics."""

# The longest id a deck, card or topic may have, in a deck or on the command line (the bundled ones have 33 at most).
# Here, not in fields.py, so the command line checks it without importing YAML.
MAX_ID = 100
