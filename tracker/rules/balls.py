"""Ball classes and values for the snooker referee (pure Python, no numpy).

WPBSA Official Rules (September 2024), Section 3 Rule 1(a): red 1, yellow 2, green 3, brown 4,
blue 5, pink 6, black 7. Kept here, not imported from ``calibration.specs``, because the referee
imports no numpy; ``tests/rules`` checks that both agree.
"""

from __future__ import annotations

BALL_CLASSES = ("white", "red", "yellow", "green", "brown", "blue", "pink", "black")
COLOURS = ("yellow", "green", "brown", "blue", "pink", "black")
VALUES = {"red": 1, "yellow": 2, "green": 3, "brown": 4, "blue": 5, "pink": 6, "black": 7}
COLOURS_TOTAL = sum(VALUES[c] for c in COLOURS)  # 27, the clearance of the colours
# Section 3 Rule 2(a) and the short forms: 15 reds, or 10 or 6 (Six-Red, Section 3 Rule 19).
RED_COUNTS = (15, 10, 6)

# Ball-on labels used in states and results besides the colour names.
ON_RED = "red"
ON_COLOUR = "colour"  # any colour, to be nominated, after a red (Section 3 Rule 3(h))


def class_of(key: str) -> str:
    """Class of a ball from a class name or a track id such as ``red_07``."""
    if key in BALL_CLASSES:
        return key
    head = key.split("_", 1)[0]
    if head in BALL_CLASSES:
        return head
    shown = key if len(key) <= 40 else key[:37] + "..."
    raise ValueError(f"unknown ball {shown!r} (expected one of {', '.join(BALL_CLASSES)})")


def colours_from(colour: str) -> tuple[str, ...]:
    """The colours in ascending order starting at ``colour`` (Section 3 Rule 3(h)(3))."""
    return COLOURS[COLOURS.index(colour):]


def next_colour(colour: str) -> str | None:
    """The colour after ``colour`` in the clearance order, or None after the black."""
    i = COLOURS.index(colour) + 1
    return COLOURS[i] if i < len(COLOURS) else None
