"""Decks: YAML files of cards, validated into `Card` objects; explain topics."""
