"""The one exception type the command line turns into a one-line message and a non-zero exit."""


class InputError(Exception):
    """Bad or unusable input (a missing file, a corrupt video, no table found). The message is
    shown to the user as it is, on one line, so it must say what was wrong and with what."""
