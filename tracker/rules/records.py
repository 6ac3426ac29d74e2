"""Typed shot records for the referee, checked when built (docs/FORMATS.md, "Shot records").

``parse_record(dict) -> Record`` turns one JSON object into one of the records below and raises
ValueError naming the bad field. Fields beyond the contract are marked "added".
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from tracker.rules.balls import BALL_CLASSES, COLOURS, RED_COUNTS, class_of

# S3 R11(d): fouls with a fixed penalty of seven points.
FIXED_SEVEN_FOULS = frozenset({
    "ball_off_table_used",  # uses a ball off the table for any purpose
    "measuring",  # uses any object to measure gaps or distances
    "two_reds",  # plays at two reds in successive strokes
    "non_cue_ball",  # uses any ball other than the white as the cue ball
    "no_nomination",  # fails to declare the ball on when asked / fouls before nominating
})
# S3 R11(a): fouls valued at the ball on (at least 4).
BALL_ON_FOULS = frozenset({
    "no_ball_hit", "in_off", "cue_ball_off_table", "double_hit", "jump_shot",
    "no_foot_on_floor", "wrong_in_hand_placement",
    # English S3 R11(a) "causing a snooker with free ball" (seed 003 S3 R12 names the foul)
    "snookered_behind_free_ball",
    "played_out_of_turn",  # S3 R3(k); English S3 R11(a) "striking out of turn"
    "no_cushion",  # Shoot Out rules: no ball potted and none touched a cushion
})
# S3 R11(b): fouls valued at the higher of the ball on and the ball concerned (at least 4).
HIGHER_VALUE_FOULS = frozenset({
    "balls_not_at_rest", "wrong_ball_first", "potted_ball_not_on", "push_stroke",
    "touched_ball", "ball_off_table", "free_ball_not_hit_first", "simultaneous_hit",
})
# Shoot Out rules: the shot clock's time foul, five points or the ball on's value if higher.
TIME_FOULS = frozenset({"shot_clock"})
TIME_FOUL_VALUE = 5
# Every reason a record's ``foul`` may carry; any other is an input error.
FOUL_REASONS = FIXED_SEVEN_FOULS | BALL_ON_FOULS | HIGHER_VALUE_FOULS | TIME_FOULS


RULESETS = ("wpbsa", "iran")
CAMERA_FIELDS = ("struck", "disturbed", "fell_from_edge", "simultaneous_contact", "push_stroke",
                 "push_confidence", "t_rest", "t_strike", "t_end", "cushioned")
DECISIONS = ("play", "put_back", "replace")


@dataclass(frozen=True)
class FrameStart:
    """A new frame. ``reds`` None keeps the match's number (15 at first); ``breaker`` None
    alternates from the match's first breaker (Section 3 Rule
    3(b)); ``best_of`` (added) the number of frames in the match; ``ruleset`` (added) "wpbsa"
    or "iran" (the Iranian federation's text where it differs).

    Added, a frame joined mid-way (a recording started late): ``reds_left`` the reds on the
    table (of ``reds`` racked), ``colours_on_table`` the colours on it, ``ball_on`` "red",
    "colour" or a colour (default: a red while reds remain, else the lowest colour),
    ``in_hand`` the white is in hand, ``score`` the frame's score so far, ``frames`` the
    frames each has won (the match's first frame_start only), ``break_`` (``break`` in JSON)
    the break in progress of ``to_play``, the player at the table (default ``breaker``).
    """

    players: tuple[str, str] | None = None
    breaker: int | None = None
    reds: int | None = None
    best_of: int | None = None
    ruleset: str | None = None
    reds_left: int | None = None
    colours_on_table: tuple[str, ...] | None = None
    ball_on: str | None = None
    in_hand: bool | None = None
    score: tuple[int, int] | None = None
    frames: tuple[int, int] | None = None
    break_: int | None = None
    to_play: int | None = None

    @property
    def joined(self) -> bool:
        """Whether the frame is joined mid-way rather than started from the rack."""
        return any(v is not None for v in (self.reds_left, self.colours_on_table, self.ball_on,
                                           self.in_hand, self.score, self.frames, self.break_,
                                           self.to_play))


@dataclass(frozen=True)
class Foul:
    """A foul the referee called that vision cannot see: ``reason`` and the ball concerned."""

    reason: str
    ball: str | None = None


@dataclass(frozen=True)
class Shot:
    """What happened in one stroke.

    ``potted``/``off_table`` hold object-ball classes (track ids are reduced to classes; a red
    may appear several times). ``nominated`` is the declared colour or free ball. ``positions``
    are the balls at rest after the stroke, ``((key, x_mm, y_mm), ...)``.
    Added: ``full_ball_path`` (a full-ball path to a ball on existed before this stroke, Section 3
    Rule 14(d)), ``touching_after`` (the white came to rest touching a ball: True or its class,
    Section 3 Rule 8), ``snookered_by`` (classes snookering the next striker), ``player`` (who
    played, checked against the engine's striker; the offender here means "put back"). A
    ``shot`` counter from the pipeline is accepted and ignored.
    What the camera sees (added): ``struck`` False when no stroke was played but balls moved;
    ``disturbed`` the balls moved by the striker other than through the white (a sleeve, a
    hand, the cue, the rest); ``fell_from_edge`` the balls that came to rest on a pocket's edge
    and then fell in by themselves (not in ``potted``); ``simultaneous_contact`` the ball the
    white hit at the same moment as ``first_contact``; ``push_stroke`` the camera's push-stroke
    flag and ``push_confidence`` (0 to 1) its confidence. Times (added, seconds in the source):
    ``t_rest`` the balls came to rest before the stroke, ``t_strike`` the white was struck,
    ``t_end`` the balls came to rest after it. ``cushioned`` (added): the balls, the white
    among them, that touched a cushion during the stroke (None: not known).
    """

    first_contact: str | None = None
    potted: tuple[str, ...] = ()
    cue_potted: bool = False
    off_table: tuple[str, ...] = ()
    nominated: str | None = None
    foul: tuple[Foul, ...] = ()
    snookered_after: bool | None = None
    miss: bool | None = None
    positions: tuple[tuple[str, float, float], ...] | None = None
    full_ball_path: bool | None = None
    touching_after: bool | str | None = None
    snookered_by: tuple[str, ...] | None = None
    player: int | None = None
    struck: bool = True
    disturbed: tuple[str, ...] = ()
    fell_from_edge: tuple[str, ...] = ()
    simultaneous_contact: str | None = None
    push_stroke: bool | None = None
    push_confidence: float | None = None
    t_rest: float | None = None
    t_strike: float | None = None
    t_end: float | None = None
    cushioned: tuple[str, ...] | None = None


@dataclass(frozen=True)
class Decision:
    """The non-offender's choice after a foul (Section 3 Rules 10(h)-(i), 14). With ``miss``
    (``replace`` only) the referee called the foul, a failure to hit a ball on that was not
    called a miss when it was recorded, a foul and a miss, and the balls were replaced."""

    choice: str
    miss: bool = False


@dataclass(frozen=True)
class Concede:
    """Section 4 Rule 2: ``player`` concedes the frame."""

    player: int


@dataclass(frozen=True)
class RespotToss:
    """Section 3 Rule 4(b): ``first`` plays first at the re-spotted black."""

    first: int


@dataclass(frozen=True)
class Rerack:
    """Added. Section 3 Rule 17: the referee re-racks the frame after a stalemate."""


@dataclass(frozen=True)
class Claim:
    """Added. ``player`` claims the frame with only the black left and a lead of more than 7."""

    player: int


Record = FrameStart | Shot | Decision | Concede | RespotToss | Rerack | Claim


def _short(v: Any) -> str:
    """A value for an error line: its repr cut to 60 characters."""
    try:
        r = repr(v)
    except RecursionError:
        r = f"<{type(v).__name__} nested too deeply>"
    return r if len(r) <= 60 else r[:57] + "..."


def _player(v: Any, field: str) -> int:
    if v not in (0, 1) or isinstance(v, bool):
        raise ValueError(f"{field} must be 0 or 1, got {_short(v)}")
    return int(v)


def _opt_bool(v: Any, field: str) -> bool | None:
    if v is None or isinstance(v, bool):
        return v
    raise ValueError(f"{field} must be true, false or null, got {_short(v)}")


def _ball(v: Any, field: str, allow_white: bool = False) -> str:
    if not isinstance(v, str):
        raise ValueError(f"{field} must be a ball class, got {_short(v)}")
    c = class_of(v)
    if c == "white" and not allow_white:
        raise ValueError(f"{field} cannot be the white")
    return c


def _balls(v: Any, field: str) -> tuple[str, ...]:
    if v is None:
        return ()
    if not isinstance(v, (list, tuple)):
        raise ValueError(f"{field} must be a list of ball classes, got {_short(v)}")
    return tuple(_ball(b, field, allow_white=True) for b in v)


def _fouls(v: Any) -> tuple[Foul, ...]:
    if v is None or v is False:
        return ()
    items = v if isinstance(v, list) else [v]
    out = []
    for it in items:
        if isinstance(it, str):
            fo = Foul(it)
        elif isinstance(it, Mapping) and isinstance(it.get("reason"), str):
            ball = it.get("ball")
            fo = Foul(it["reason"], None if ball is None else _ball(ball, "foul.ball"))
        else:
            raise ValueError(f"foul must be null, a reason or {{'reason', 'ball'}}, got "
                             f"{_short(it)}")
        if fo.reason not in FOUL_REASONS:
            raise ValueError(f"foul: unknown reason {_short(fo.reason)} (expected one of "
                             f"{', '.join(sorted(FOUL_REASONS))})")
        out.append(fo)
    return tuple(out)


def _camera_fields(d: Mapping[str, Any], first_contact: Any) -> dict[str, Any]:
    """The shot's camera facts, checked; only those present are returned."""
    out: dict[str, Any] = {}
    struck = d.get("struck")
    if struck is not None:
        if not isinstance(struck, bool):
            raise ValueError(f"struck must be true or false, got {_short(struck)}")
        out["struck"] = struck
    if d.get("disturbed") is not None:
        out["disturbed"] = _balls(d["disturbed"], "disturbed")
    if d.get("fell_from_edge") is not None:
        fell = _balls(d["fell_from_edge"], "fell_from_edge")
        if "white" in fell:
            raise ValueError("fell_from_edge holds object balls; the white in a pocket is "
                             "cue_potted")
        out["fell_from_edge"] = fell
    sim = d.get("simultaneous_contact")
    if sim is not None:
        if first_contact is None:
            raise ValueError("simultaneous_contact needs a first_contact")
        out["simultaneous_contact"] = _ball(sim, "simultaneous_contact")
    if d.get("push_stroke") is not None:
        out["push_stroke"] = _opt_bool(d["push_stroke"], "push_stroke")
    if d.get("cushioned") is not None:
        out["cushioned"] = _balls(d["cushioned"], "cushioned")
    conf = d.get("push_confidence")
    if conf is not None:
        if (not isinstance(conf, (int, float)) or isinstance(conf, bool)
                or not 0.0 <= conf <= 1.0):
            raise ValueError(f"push_confidence must be a number from 0 to 1, got {_short(conf)}")
        out["push_confidence"] = float(conf)
    last = None
    for name in ("t_rest", "t_strike", "t_end"):
        t = d.get(name)
        if t is None:
            continue
        if (not isinstance(t, (int, float)) or isinstance(t, bool) or not math.isfinite(t)
                or t < 0):
            raise ValueError(f"{name} must be a time in seconds (0 or more), got {_short(t)}")
        if last is not None and t < last[1]:
            raise ValueError(f"{name} {t} comes before {last[0]} {last[1]}")
        out[name] = float(t)
        last = (name, t)
    if out.get("struck") is False:
        if not out.get("disturbed"):
            raise ValueError("a shot with struck false must name the disturbed balls")
        if first_contact is not None:
            raise ValueError("a shot with struck false has no first_contact")
    return out


def _positions(v: Any) -> tuple[tuple[str, float, float], ...] | None:
    if v is None:
        return None
    if not isinstance(v, Mapping):
        raise ValueError("positions must be an object {ball: [x_mm, y_mm]}")
    out = []
    for k, p in v.items():
        if not isinstance(k, str):
            raise ValueError(f"positions: a key must be a ball, got {_short(k)}")
        class_of(k)
        if (not isinstance(p, (list, tuple)) or len(p) != 2
                or not all(isinstance(c, (int, float)) and not isinstance(c, bool)
                           and math.isfinite(c) for c in p)):
            raise ValueError(f"positions[{k!r}] must be [x_mm, y_mm], got {_short(p)}")
        out.append((str(k), float(p[0]), float(p[1])))
    return tuple(sorted(out))


def _count(v: Any, field: str) -> int:
    if not isinstance(v, int) or isinstance(v, bool) or v < 0:
        raise ValueError(f"{field} must be a whole number of 0 or more, got {_short(v)}")
    return v


def _pair(v: Any, field: str) -> tuple[int, int]:
    if not isinstance(v, (list, tuple)) or len(v) != 2:
        raise ValueError(f"{field} must be two numbers of 0 or more, got {_short(v)}")
    return _count(v[0], field), _count(v[1], field)


def _joined_fields(d: Mapping[str, Any], reds: int | None) -> dict[str, Any]:
    """The fields of a frame joined mid-way, each checked on its own and against the others
    (S3 R7: the colours stay on the table while reds remain; S3 R3(h)(3): in the clearance they
    go in ascending order, so those left run from one colour up to the black)."""
    out: dict[str, Any] = {}
    racked = reds or max(RED_COUNTS)
    if d.get("reds_left") is not None:
        out["reds_left"] = _count(d["reds_left"], "reds_left")
        if out["reds_left"] > racked:
            raise ValueError(f"reds_left {out['reds_left']} is more than the {racked} racked")
    if d.get("colours_on_table") is not None:
        cs = d["colours_on_table"]
        if not isinstance(cs, (list, tuple)) or not all(c in COLOURS for c in cs):
            raise ValueError(f"colours_on_table must be a list of colours, got {_short(cs)}")
        cs = tuple(c for c in COLOURS if c in cs)
        if cs != COLOURS[len(COLOURS) - len(cs):]:
            raise ValueError(f"colours_on_table {list(cs)}: those left in the clearance run "
                             "from the lowest up to the black (S3 R3(h))")
        if cs != COLOURS and out.get("reds_left", 1):
            raise ValueError(f"colours_on_table {list(cs)}: every colour is on the table "
                             "while reds remain (S3 R7)")
        out["colours_on_table"] = cs
    if d.get("ball_on") is not None:
        on = d["ball_on"]
        if on not in ("red", "colour", *COLOURS):
            raise ValueError(f"ball_on must be red, colour or a colour, got {_short(on)}")
        left = out.get("reds_left", racked)
        cs = out.get("colours_on_table", COLOURS)
        if on == "red" and not left:
            raise ValueError("ball_on red with no red left")
        if on in COLOURS and (left or on != cs[0]):
            raise ValueError(f"ball_on {on}: a colour is on by itself only in the clearance, "
                             "the lowest on the table")
        if on == "colour" and cs != COLOURS:
            raise ValueError("ball_on colour (after a red) with colours off the table")
        out["ball_on"] = on
    if d.get("in_hand") is not None:
        out["in_hand"] = _opt_bool(d["in_hand"], "in_hand")
    for name in ("score", "frames"):
        if d.get(name) is not None:
            out[name] = _pair(d[name], name)
    if d.get("to_play") is not None:
        out["to_play"] = _player(d["to_play"], "to_play")
    if d.get("break") is not None:
        brk = _count(d["break"], "break")
        who = out.get("to_play", d.get("breaker"))
        have = out.get("score", (0, 0))[who] if who is not None else brk
        if brk > have:
            raise ValueError(f"break {brk} is more than the score {have} of the player at the "
                             f"table (player {who})")
        out["break_"] = brk
    return out


def parse_record(d: Mapping[str, Any]) -> Record:
    """One JSON object to a typed record; ValueError says what is wrong."""
    if not isinstance(d, Mapping):
        raise ValueError(f"a record must be a JSON object, got {type(d).__name__}")
    kind = d.get("type")
    if kind == "frame_start":
        players = d.get("players")
        if players is not None:
            if (not isinstance(players, (list, tuple)) or len(players) != 2
                    or not all(isinstance(p, str) for p in players)):
                raise ValueError(f"players must be two names, got {_short(players)}")
            players = (players[0], players[1])
        breaker = d.get("breaker")
        reds = d.get("reds")
        if reds is not None and (reds not in RED_COUNTS or isinstance(reds, bool)):
            raise ValueError(f"reds must be one of {RED_COUNTS}, got {_short(reds)}")
        best_of = d.get("best_of")
        if best_of is not None and (not isinstance(best_of, int) or isinstance(best_of, bool)
                                    or best_of < 1):
            raise ValueError(f"best_of must be a positive integer, got {_short(best_of)}")
        ruleset = d.get("ruleset")
        if ruleset is not None and ruleset not in RULESETS:
            raise ValueError(f"ruleset must be one of {RULESETS}, got {_short(ruleset)}")
        return FrameStart(players, None if breaker is None else _player(breaker, "breaker"),
                          reds, best_of, ruleset, **_joined_fields(d, reds))
    if kind == "shot":
        known = {"type", "first_contact", "potted", "cue_potted", "off_table", "nominated",
                 "foul", "snookered_after", "miss", "positions", "full_ball_path",
                 "touching_after", "snookered_by", "player", "shot", *CAMERA_FIELDS}
        fc = d.get("first_contact")
        potted = _balls(d.get("potted"), "potted")
        off = _balls(d.get("off_table"), "off_table")
        cue_potted = d.get("cue_potted", False)
        if not isinstance(cue_potted, bool):
            raise ValueError(f"cue_potted must be true or false, got {_short(cue_potted)}")
        cue_potted = cue_potted or "white" in potted
        nominated = d.get("nominated")
        if nominated is not None:
            nominated = _ball(nominated, "nominated")
            if nominated not in COLOURS:
                raise ValueError(f"nominated must be a colour, got {_short(nominated)}")
        touching = d.get("touching_after")
        if touching is not None and not isinstance(touching, bool):
            touching = _ball(touching, "touching_after")
        sb = d.get("snookered_by")
        player = d.get("player")
        camera = _camera_fields(d, fc)
        unknown = set(d) - known
        if unknown:
            raise ValueError(f"unknown shot field(s): {', '.join(sorted(unknown))}")
        return Shot(
            first_contact=None if fc is None else _ball(fc, "first_contact"),
            potted=tuple(b for b in potted if b != "white"),
            cue_potted=cue_potted,
            off_table=off,
            nominated=nominated,
            foul=_fouls(d.get("foul")),
            snookered_after=_opt_bool(d.get("snookered_after"), "snookered_after"),
            miss=_opt_bool(d.get("miss"), "miss"),
            positions=_positions(d.get("positions")),
            full_ball_path=_opt_bool(d.get("full_ball_path"), "full_ball_path"),
            touching_after=touching,
            snookered_by=None if sb is None else _balls(sb, "snookered_by"),
            player=None if player is None else _player(player, "player"),
            **camera,
        )
    if kind == "decision":
        choice = d.get("choice")
        if choice not in DECISIONS:
            raise ValueError(f"choice must be one of {DECISIONS}, got {_short(choice)}")
        miss = d.get("miss", False)
        if not isinstance(miss, bool):
            raise ValueError(f"miss must be true or false, got {_short(miss)}")
        if miss and choice != "replace":
            raise ValueError("miss is said only of a replace decision")
        unknown = set(d) - {"type", "choice", "miss"}
        if unknown:
            raise ValueError(f"unknown decision field(s): {', '.join(sorted(unknown))}")
        return Decision(choice, miss)
    if kind == "concede":
        return Concede(_player(d.get("player"), "player"))
    if kind == "respot_toss":
        return RespotToss(_player(d.get("first"), "first"))
    if kind == "rerack":
        return Rerack()
    if kind == "claim":
        return Claim(_player(d.get("player"), "player"))
    raise ValueError(
        f"unknown record type {_short(kind)} (expected frame_start, shot, decision, concede, "
        "respot_toss, rerack or claim)")


def loads_record(line: str, parse: Callable[[Any], Any] | None = None) -> Record:
    """One JSON line to a record (``parse``, by default snooker's ``parse_record``). ValueError,
    in one line, for bad JSON, JSON nested too deeply for the parser, or a record that the
    parser refuses (which names the field holding a NaN, an infinity or a value of the wrong
    type)."""
    try:
        d = json.loads(line)
    except RecursionError:
        raise ValueError("JSON nested too deeply") from None
    except json.JSONDecodeError as e:
        raise ValueError(f"not JSON: {e.msg} at column {e.colno}") from None
    try:
        return (parse or parse_record)(d)
    except RecursionError:
        raise ValueError("record nested too deeply") from None


__all__ = [
    "BALL_CLASSES", "Claim", "Concede", "Decision", "Foul", "FrameStart", "Record", "Rerack",
    "RespotToss", "Shot", "loads_record", "parse_record",
]
