"""Typed events: the types of ``events.jsonl`` as an enum and a record per type.

The log itself stays plain JSON objects (docs/FORMATS.md); these records are how Python code
reads them::

    from tracker.events import EventType, parse_event
    for event in map(parse_event, read_events("match.events.jsonl")):
        if event.type is EventType.POT:
            print(event.t, event.ball, event.pocket)

Each record names the fields every event of its type carries; fields added later (the format
grows, it never renames) are kept in ``extra``, so ``parse_event(d).as_dict() == d``.
``json_schema()`` derives the JSON Schema of docs/events.schema.json from the same records.
"""

from __future__ import annotations

import dataclasses
import enum
import json
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

# the version of the event log's layout; written in the log's first line
SCHEMA_VERSION = 1


class EventType(str, enum.Enum):
    """Every event type cueball writes (docs/FORMATS.md, "events.jsonl")."""

    CALIBRATED = "calibrated"
    FRAME_START = "frame_start"
    SHOT_START = "shot_start"
    CONTACT = "contact"
    CUSHION = "cushion"
    POT = "pot"
    OFF_TABLE = "off_table"
    JUMP = "jump"
    TOUCHING = "touching"
    RESPOT = "respot"
    WHITE_PLACED = "white_placed"
    RELABEL = "relabel"
    SHOT_END = "shot_end"
    RECORD = "record"
    SCORE = "score"
    DECISION = "decision"
    FRAME_END = "frame_end"
    REPLAY_START = "replay_start"
    REPLAY_END = "replay_end"

    def __str__(self) -> str:
        return self.value


POCKETS = ("baulk_left", "baulk_right", "middle_left", "middle_right", "top_left", "top_right")
CUSHIONS = ("baulk", "top", "left_baulk", "left_top", "right_baulk", "right_top")

# a JSON number, written as a float or an int
Number = typing.Union[int, float]  # noqa: UP007
Point = tuple[Number, Number]


@dataclass(frozen=True, kw_only=True)
class Event:
    """What every event has: its type, the 0-based frame of the source and the time (s)."""

    TYPE: ClassVar[EventType | None] = None
    type: EventType | str
    frame: int
    t: Number
    extra: Mapping[str, Any] = field(default_factory=dict, repr=False)

    def as_dict(self) -> dict[str, Any]:
        """The event as it is written in the log."""
        d: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if f.name == "extra" or (value is None and f.default is None):
                continue  # an optional field the event does not have
            if isinstance(value, Foul):
                value = {"points": value.points, "reason": value.reason}
            d[_LOG_NAME.get(f.name, f.name)] = value
        d["type"] = str(self.type)
        return {**d, **self.extra}


@dataclass(frozen=True, kw_only=True)
class Foul:
    """A foul's value and the rule's reason (``tracker.rules``)."""

    points: int
    reason: str


@dataclass(frozen=True, kw_only=True)
class Calibrated(Event):
    """The table found: first at the start, again when the camera moved or the view changed."""

    TYPE = EventType.CALIBRATED
    reprojection_error_mm: Number
    pockets_px: dict[str, Point] | None = None
    reason: str | None = None  # "camera moved" or "view seen before" after the first
    # the log's first event: its layout's version and the source it belongs to
    schema_version: int | None = None
    source: dict[str, Any] | None = None


@dataclass(frozen=True, kw_only=True)
class ShotStart(Event):
    TYPE = EventType.SHOT_START
    shot: int


@dataclass(frozen=True, kw_only=True)
class PairEvent(Event):
    """An event of two balls: their track ids and classes."""

    balls: tuple[str, str]
    classes: tuple[str | None, str | None]


@dataclass(frozen=True, kw_only=True)
class Contact(PairEvent):
    """Two balls touched."""

    TYPE = EventType.CONTACT


@dataclass(frozen=True, kw_only=True)
class Touching(PairEvent):
    """The white at rest against a ball."""

    TYPE = EventType.TOUCHING


@dataclass(frozen=True, kw_only=True)
class BallEvent(Event):
    """An event of one ball: its track id and class."""

    ball: str
    # ``class`` is a Python keyword: the field is ``cls`` here, ``class`` in the log
    cls: str | None


@dataclass(frozen=True, kw_only=True)
class Cushion(BallEvent):
    TYPE = EventType.CUSHION
    cushion: typing.Literal[CUSHIONS]


@dataclass(frozen=True, kw_only=True)
class Pot(BallEvent):
    TYPE = EventType.POT
    pocket: typing.Literal[POCKETS]
    pocket_px: Point
    struck_by: str | None = None  # the ball that came by it as it vanished from rest
    struck_t: Number | None = None


@dataclass(frozen=True, kw_only=True)
class OffTable(BallEvent):
    TYPE = EventType.OFF_TABLE
    struck_by: str | None = None
    struck_t: Number | None = None


@dataclass(frozen=True, kw_only=True)
class Jump(BallEvent):
    TYPE = EventType.JUMP
    over: str | None  # the track id of the ball jumped, if any


@dataclass(frozen=True, kw_only=True)
class Respot(BallEvent):
    """A potted colour back on the table."""

    TYPE = EventType.RESPOT
    position_mm: Point
    spot: str | None = None


@dataclass(frozen=True, kw_only=True)
class WhitePlaced(BallEvent):
    """The white put on the table in hand."""

    TYPE = EventType.WHITE_PLACED
    position_mm: Point
    in_d: bool | None = None


@dataclass(frozen=True, kw_only=True)
class Relabel(BallEvent):
    """A ball's identity corrected: ``was`` is the track id it had."""

    TYPE = EventType.RELABEL
    was: str


@dataclass(frozen=True, kw_only=True)
class ShotEnd(Event):
    TYPE = EventType.SHOT_END
    shot: int
    first_contact: str | None
    potted: list[str]
    cue_potted: bool
    off_table: list[str]


@dataclass(frozen=True, kw_only=True)
class Record(Event):
    """A record fed to the referee (docs/FORMATS.md, "Shot records"), for an exact resume."""

    TYPE = EventType.RECORD
    record: dict[str, Any]


@dataclass(frozen=True, kw_only=True)
class Scored(Event):
    """The referee's answer: the score and what is next (more fields in ``extra``)."""

    score: tuple[int, int]
    frame_over: bool


@dataclass(frozen=True, kw_only=True)
class Score(Scored):
    TYPE = EventType.SCORE
    shot: int
    player: int
    points: int
    foul: Foul | None
    # ``break`` is a Python keyword: the field is ``break_`` here, ``break`` in the log
    break_: int
    next_player: int | None
    ball_on: str | None
    winner: int | None


@dataclass(frozen=True, kw_only=True)
class Decision(Scored):
    """After a foul: the balls replaced (a miss) or the offender put back in."""

    TYPE = EventType.DECISION
    choice: typing.Literal[("play", "put_back", "replace")]


@dataclass(frozen=True, kw_only=True)
class FrameStart(Scored):
    """The next frame of a match begun, the table set up for it; or, ``joined``, the frame
    as the source's first still table showed it, with ``doubts`` about what it showed."""

    TYPE = EventType.FRAME_START
    frame_number: int
    breaker: int
    reds: int
    joined: bool | None = None
    doubts: list[str] | None = None


@dataclass(frozen=True, kw_only=True)
class FrameEnd(Event):
    TYPE = EventType.FRAME_END
    winner: int | None
    score: tuple[int, int]


@dataclass(frozen=True, kw_only=True)
class ReplayStart(Event):
    """A broadcast's replay began: no event comes of its frames."""

    TYPE = EventType.REPLAY_START


@dataclass(frozen=True, kw_only=True)
class ReplayEnd(Event):
    TYPE = EventType.REPLAY_END


__all__ = [
    "SCHEMA_VERSION", "EventType", "Event", "Foul", "PairEvent", "BallEvent", "Scored",
    "Calibrated", "ShotStart", "Contact", "Touching", "Cushion", "Pot", "OffTable", "Jump",
    "Respot", "WhitePlaced", "Relabel", "ShotEnd", "Record", "Score", "Decision", "FrameStart",
    "FrameEnd", "ReplayStart", "ReplayEnd", "RECORDS", "POCKETS", "CUSHIONS", "parse_event",
    "json_schema",
]

RECORDS: dict[EventType, type[Event]] = {
    cls.TYPE: cls for cls in (Calibrated, ShotStart, Contact, Touching, Cushion, Pot, OffTable,
                              Jump, Respot, WhitePlaced, Relabel, ShotEnd, Record, Score,
                              Decision, FrameStart, FrameEnd, ReplayStart, ReplayEnd)}
assert set(RECORDS) == set(EventType), "a record for every event type"

# field names that are Python keywords, as they are written in the log
_LOG_NAME = {"cls": "class", "break_": "break"}
_PY_NAME = {v: k for k, v in _LOG_NAME.items()}


def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls, globalns={**globals(), "Number": Number, "Point": Point})


def _optional(cls: type) -> frozenset[str]:
    """The fields of ``cls`` that an event may leave out."""
    return frozenset(f.name for f in dataclasses.fields(cls)
                     if f.default is not dataclasses.MISSING
                     or f.default_factory is not dataclasses.MISSING)


def parse_event(d: Mapping[str, Any]) -> Event:
    """The typed record of one event as read from the log; an unknown type (a later version's)
    gives a plain ``Event`` with every other field in ``extra``. Raises ValueError naming the
    field when a field its type needs is missing."""
    if not isinstance(d, Mapping):
        raise ValueError(f"an event is a JSON object, got {type(d).__name__}")
    kind = d.get("type")
    try:
        cls: type[Event] = RECORDS[EventType(kind)]
        kind = EventType(kind)
    except ValueError:
        cls = Event
    names = {f.name for f in dataclasses.fields(cls)} - {"extra", "type"}
    optional = _optional(cls)
    values: dict[str, Any] = {"type": kind}
    extra: dict[str, Any] = {}
    for key, value in d.items():
        name = _PY_NAME.get(key, key)
        # an optional field written as null stays in ``extra``, so it is written back as it was
        if name in names and not (value is None and name in optional):
            values[name] = value
        elif key != "type":
            extra[key] = value
    missing = sorted(_LOG_NAME.get(n, n) for n in names - set(values) - optional)
    if missing:
        raise ValueError(f"a {kind} event needs the field {missing[0]!r}")
    foul = values.get("foul")
    if isinstance(foul, Mapping) and set(foul) == {"points", "reason"}:
        values["foul"] = Foul(**foul)
    return cls(**values, extra=extra)


# -- JSON Schema -----------------------------------------------------------------------------------
def _schema_of(hint: Any) -> dict[str, Any]:
    """The JSON Schema of one annotated type."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if hint is type(None):
        return {"type": "null"}
    if hint is Any:
        return {}
    if hint is bool:
        return {"type": "boolean"}
    if hint is int:
        return {"type": "integer"}
    if hint is float:
        return {"type": "number"}
    if hint is str:
        return {"type": "string"}
    if origin in (typing.Union, types.UnionType):
        if set(args) >= {int, float}:  # Number
            rest = [a for a in args if a not in (int, float)]
            return _any_of([{"type": "number"}, *map(_schema_of, rest)])
        return _any_of([_schema_of(a) for a in args])
    if origin is typing.Literal:
        return {"enum": list(args)}
    if origin is tuple:
        return {"type": "array", "prefixItems": [_schema_of(a) for a in args],
                "minItems": len(args), "maxItems": len(args)}
    if origin is list:
        return {"type": "array", "items": _schema_of(args[0])}
    if origin in (dict, Mapping) or hint is dict:
        return {"type": "object", **({"additionalProperties": _schema_of(args[1])}
                                     if args and args[1] is not Any else {})}
    if dataclasses.is_dataclass(hint):
        return _object_schema(hint)
    raise TypeError(f"no JSON Schema for {hint!r}")


def _any_of(schemas: list[dict[str, Any]]) -> dict[str, Any]:
    return schemas[0] if len(schemas) == 1 else {"anyOf": schemas}


def _object_schema(cls: type, kind: EventType | None = None) -> dict[str, Any]:
    hints = _hints(cls)
    props, required = {}, []
    for f in dataclasses.fields(cls):
        if f.name == "extra":
            continue
        name = _LOG_NAME.get(f.name, f.name)
        props[name] = {"const": kind.value} if f.name == "type" and kind else _schema_of(
            hints[f.name])
        if f.name == "frame":
            props[name]["minimum"] = 0
        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            required.append(name)
    schema = {"type": "object", "properties": props, "required": required}
    if cls.__doc__ and kind is not None:
        schema["description"] = " ".join(cls.__doc__.split())
    return schema


def json_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of one line of ``events.jsonl``: each known type's
    fields checked, more fields and types of a later version allowed."""
    every = {"type": "object", "required": ["type", "frame", "t"], "properties": {
        "type": {"type": "string"}, "frame": {"type": "integer", "minimum": 0},
        "t": {"type": "number"}}}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "cueball event",
        "description": f"One line of a cueball events.jsonl (docs/FORMATS.md), schema version "
                       f"{SCHEMA_VERSION}.",
        "allOf": [every] + [
            {"if": {"properties": {"type": {"const": kind.value}}, "required": ["type"]},
             "then": _object_schema(RECORDS[kind], kind)} for kind in EventType],
    }


if __name__ == "__main__":  # python -m tracker.events.records > docs/events.schema.json
    # (the schema file the tests compare with the records)
    print(json.dumps(json_schema(), indent=2))
