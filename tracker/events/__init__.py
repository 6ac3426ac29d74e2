"""Shot events: the shot tracker (contacts, cushions, pots, jumps from the balls' paths) and
the typed records of the event log."""

from tracker.events.records import *  # noqa: F403
from tracker.events.records import __all__  # noqa: F401
