"""The error every command turns into one clear line and exit status 2."""


class UsageError(Exception):
    """Bad arguments or unreadable input: say what and where, in one line."""
