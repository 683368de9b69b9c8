"""The one exception type the CLI turns into a one-line message and exit code 1."""


class StudytoolError(Exception):
    """A user-facing error: bad deck, bad database, unknown topic, bad input.

    The message is shown as is, on one line, without a traceback.
    """
