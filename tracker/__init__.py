"""Ball detection, tracking, shot events, the referee, outputs and the command line."""

__version__ = "0.1.0"
