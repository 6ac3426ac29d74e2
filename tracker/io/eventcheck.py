"""An event read from a log, checked before anything uses it: the fields of docs/FORMATS.md that
it holds have their types, and no number in it is NaN or infinite. A field not named there is
taken as it is (logs are extended freely)."""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from calibration.errors import InputError


def _whole(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _text_or_null(v) -> bool:
    return v is None or isinstance(v, str)


def _texts(v) -> bool:
    return isinstance(v, list) and all(isinstance(x, str) for x in v)


def _pair(test: Callable[[Any], bool]) -> Callable[[Any], bool]:
    return lambda v: isinstance(v, list) and len(v) == 2 and all(map(test, v))


def _player_or_null(v) -> bool:
    return v is None or (_whole(v) and v in (0, 1))


def _foul(v) -> bool:
    return v is None or (isinstance(v, dict) and _whole(v.get("points", 0))
                         and isinstance(v.get("reason", ""), str))


# field -> (test, what it must be); a field is tested wherever it appears
FIELDS: dict[str, tuple[Callable[[Any], bool], str]] = {
    "type": (lambda v: isinstance(v, str) and v != "", "a name"),
    "frame": (lambda v: _whole(v) and v >= 0, "a whole number of 0 or more"),
    "t": (lambda v: _number(v) and v >= 0, "a number of seconds, 0 or more"),
    "shot": (lambda v: _whole(v) and v >= 0, "a whole number of 0 or more"),
    "player": (_player_or_null, "0, 1 or null"),
    "next_player": (_player_or_null, "0, 1 or null"),
    "winner": (_player_or_null, "0, 1 or null"),
    "match_winner": (_player_or_null, "0, 1 or null"),
    "breaker": (_player_or_null, "0, 1 or null"),
    "points": (_whole, "a whole number"),
    "break": (_whole, "a whole number"),
    "score": (_pair(_whole), "two whole numbers"),
    "frames": (_pair(_whole), "two whole numbers"),
    "foul": (_foul, "null or {\"points\": a whole number, \"reason\": a name}"),
    "frame_over": (lambda v: isinstance(v, bool), "true or false"),
    "match_over": (lambda v: isinstance(v, bool), "true or false"),
    "cue_potted": (lambda v: isinstance(v, bool), "true or false"),
    "ball": (lambda v: isinstance(v, str), "a ball's name"),
    "class": (_text_or_null, "a ball class or null"),
    "first_contact": (_text_or_null, "a ball class or null"),
    "pocket": (lambda v: isinstance(v, str), "a pocket's name"),
    "balls": (_texts, "a list of ball names"),
    "classes": (lambda v: isinstance(v, list) and all(map(_text_or_null, v)),
                "a list of ball classes"),
    "potted": (_texts, "a list of ball classes"),
    "off_table": (_texts, "a list of ball classes"),
    "pocket_px": (_pair(_number), "[x, y] in pixels"),
    "position_mm": (_pair(_number), "[x, y] in mm"),
    "positions": (lambda v: isinstance(v, dict), "a JSON object"),
    "players": (_pair(lambda v: isinstance(v, str)), "two names"),
    "reds": (lambda v: _whole(v) and v >= 0, "a whole number of 0 or more"),
    "record": (lambda v: isinstance(v, dict), "a JSON object (a referee record)"),
    "reprojection_error_mm": (lambda v: _number(v) and v >= 0, "a number of 0 or more"),
}


def _not_finite(event: Mapping[str, Any]) -> str | None:
    """The path (``score.foul.points``, ``pocket_px[1]``) of a number in ``event`` that is NaN
    or infinite, or None."""
    stack: list[tuple[str, Any]] = [(str(k), v) for k, v in event.items()]
    while stack:
        path, v = stack.pop()
        if isinstance(v, float) and not math.isfinite(v):
            return path
        if isinstance(v, dict):
            stack += [(f"{path}.{k}", x) for k, x in v.items()]
        elif isinstance(v, list):
            stack += [(f"{path}[{i}]", x) for i, x in enumerate(v)]
    return None


def _short(value) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def check_event(event: Mapping[str, Any], where: str) -> None:
    """InputError naming ``where`` (file:line) and the field when ``event`` holds a field of
    the wrong type or a number that is not finite."""
    for name, (test, expected) in FIELDS.items():
        if name in event and not test(event[name]):
            kind = event.get("type") if isinstance(event.get("type"), str) else "an"
            raise InputError(f"{where}: field {name!r} of a {kind} event must be {expected}, "
                             f"got {_short(event[name])}")
    if (path := _not_finite(event)) is not None:
        raise InputError(f"{where}: field {path!r} is not a finite number")


def torn_last_line(path: str | os.PathLike) -> int | None:
    """The number of the last line of a log when it is cut short (no newline after it and not a
    whole JSON object: a run stopped while writing it), else None."""
    p = Path(path)
    try:
        with open(p, "rb") as fh:
            size = fh.seek(0, os.SEEK_END)
            fh.seek(max(0, size - 1))
            if size == 0 or fh.read(1) == b"\n":
                return None
            fh.seek(0)
            data = fh.read()
    except OSError:
        return None
    last = data.rsplit(b"\n", 1)[-1]
    try:
        if isinstance(json.loads(last), dict):
            return None
    except (ValueError, RecursionError):
        pass
    return data.count(b"\n") + 1
