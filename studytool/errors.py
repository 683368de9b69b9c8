"""The one exception type the CLI turns into a one-line message and exit code 1."""


class StudytoolError(Exception):
    """A user-facing error: bad deck, bad database, unknown topic, bad input.

    The message is shown as is, on one line, without a traceback.
    """


class StudytoolWarning(UserWarning):
    """Something the user should know that does not stop the command (a skipped deck file).

    Library code raises it with `warnings.warn`; the CLI shows each one once, on one line of stderr.
    """
