"""Errors that reach the user as one line (no traceback) and exit code 2."""


class UserError(Exception):
    """A problem with the user's input: config, parameters, data files or network.

    The message is one line that names what is wrong and what would be right. The CLI prints it
    as ``error: <message>`` and exits with status 2.
    """

    exit_code = 2
