"""A frame joined mid-way: what the first still table shows, as ``frame_start`` fields.

``seen_frame(classes, racked) -> (fields, doubts)``: the classes of the balls on the table
(one entry a ball) and the reds racked give ``reds_left``, ``colours_on_table`` and
``in_hand`` (no fields for a table racked for the break), and a line for each thing the
picture leaves in doubt. Pure Python, like the referee it feeds.
"""

from __future__ import annotations

from collections.abc import Iterable

from tracker.rules.balls import COLOURS


def seen_frame(classes: Iterable[str], racked: int) -> tuple[dict, list[str]]:
    """The ``frame_start`` fields of the table whose balls are of ``classes``, and the doubts.

    S3 R7: the colours are re-spotted while reds remain, so a colour not seen then is taken as
    hidden; S3 R3(h)(3): in the clearance they go in ascending order, so the colours left run
    from the lowest seen up to the black, one missing among them taken as hidden. More reds
    than racked are taken as the rack; no object ball at all leaves the frame as racked."""
    classes = list(classes)
    reds = classes.count("red")
    colours = [c for c in COLOURS if c in classes]
    doubts: list[str] = []
    if reds > racked:
        doubts.append(f"{reds} reds seen, more than the {racked} racked: taken as {racked}")
        reds = racked
    if not reds and not colours:
        doubts.append("no object ball seen on the first still table: the frame taken as racked")
        return {}, doubts
    if reds:
        on_table = list(COLOURS)
        missing = [c for c in COLOURS if c not in colours]
        if missing:
            doubts.append(f"{reds} red(s) seen but not the {', '.join(missing)}: taken as on "
                          "the table (every colour stays on while reds remain)")
    else:
        on_table = list(COLOURS[COLOURS.index(colours[0]):])
        missing = [c for c in on_table if c not in colours]
        if missing:
            doubts.append(f"the {', '.join(missing)} not seen between the {colours[0]} and the "
                          "black: taken as on the table (the colours go in order)")
    if reds == racked and len(on_table) == len(COLOURS):
        return {}, doubts
    return ({"reds_left": reds, "colours_on_table": on_table,
             "in_hand": "white" not in classes}, doubts)


__all__ = ["seen_frame"]
