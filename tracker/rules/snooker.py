"""The snooker referee: a pure reducer over shot records (WPBSA Official Rules, September 2024,
with the Iranian federation's notes where they differ).

    state, result = apply(state, record)

``state`` is a frozen ``MatchState`` (None before the first ``frame_start``); ``record`` is a
record from ``tracker.rules.records`` or the JSON object it is parsed from; ``result`` is a
frozen ``Result`` whose ``as_dict()`` is the ``score`` event of docs/FORMATS.md plus the fields
listed on ``Result``. Nothing is mutated, nothing is read or written.

Live use, one shot fact at a time::

    ref = Referee()
    ref.feed({"type": "frame_start", "players": ["A", "B"], "breaker": 0, "reds": 15})
    ref.feed({"type": "shot", "first_contact": "red", "potted": ["red"]})   # -> result dict

Batch use: ``run_records(records) -> list[dict]`` (alias ``score_shots``) and
``records_from_lines(lines) -> list[Record]`` for JSON lines.

Each predicate's docstring cites the rule it implements: "S3 R11(a)" is Section 3 Rule 11(a) of
the WPBSA rules (shared/seeds/003); "IR" marks the Iranian text (shared/seeds/000).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any

from tracker.rules import geometry
from tracker.rules.balls import COLOURS, ON_COLOUR, ON_RED, VALUES, next_colour
from tracker.rules.records import (
    BALL_ON_FOULS,
    FIXED_SEVEN_FOULS,
    HIGHER_VALUE_FOULS,
    TIME_FOUL_VALUE,
    TIME_FOULS,
    Claim,
    Concede,
    Decision,
    FrameStart,
    Record,
    Rerack,
    RespotToss,
    Shot,
    loads_record,
    parse_record,
)

# S3 R14: the fouls that can be called a miss: the white fails to hit a ball on first.
MISS_FOULS = frozenset({"no_ball_hit", "wrong_ball_first", "two_reds", "free_ball_not_hit_first",
                        "no_nomination"})
MINIMUM_FOUL = 4  # S3 R11: every foul is worth at least four points
SIX_RED_MISS_LIMIT = 5  # S3 R19: at most five consecutive foul-and-miss calls in Six-Red


@dataclass(frozen=True)
class Table:
    """The balls that matter to the rules.

    ``reds``: reds on the table; ``colours``: colours on the table in value order; ``ball_on``:
    "red", "colour" (any colour, to be nominated) or a colour name; ``in_hand``: the white is to
    be placed in the D; ``positions``: last known ``((key, x_mm, y_mm), ...)`` or None;
    ``touching``: the ball the white touches when it is or could be on ("on" when only the fact
    is known), else None.
    """

    reds: int
    colours: tuple[str, ...] = COLOURS
    ball_on: str = ON_RED
    in_hand: bool = True
    positions: tuple[tuple[str, float, float], ...] | None = None
    touching: str | None = None

    def positions_dict(self) -> dict[str, tuple[float, float]] | None:
        if self.positions is None:
            return None
        return {k: (x, y) for k, x, y in self.positions}


@dataclass(frozen=True)
class FrameState:
    """One frame in play. ``offender`` is set while the non-offender's decision is awaited;
    ``replace_to`` is the state before a foul and a miss (to replace the balls); ``miss_count``
    counts consecutive misses in the current sequence, ``warning`` says the next miss loses the
    frame, ``replaced`` that the balls were just replaced."""

    number: int
    breaker: int
    reds_at_start: int
    table: Table
    striker: int
    score: tuple[int, int] = (0, 0)
    current_break: int = 0
    shot: int = 0
    free_ball: bool = False
    offender: int | None = None
    options: tuple[str, ...] = ()
    replace_to: FrameState | None = None
    miss_count: int = 0
    full_ball_path: bool = False
    warning: bool = False
    replaced: bool = False
    respotted_black: bool = False
    awaiting_toss: bool = False
    over: bool = False
    winner: int | None = None
    visit_start: float | None = None  # when the striker's visit began (its first t_rest)


@dataclass(frozen=True)
class MatchState:
    """A match of ``best_of`` frames; ``breaks`` holds each player's completed breaks."""

    players: tuple[str, str]
    best_of: int
    ruleset: str
    first_breaker: int
    frame: FrameState
    frames: tuple[int, int] = (0, 0)
    breaks: tuple[tuple[int, ...], tuple[int, ...]] = ((), ())
    over: bool = False
    winner: int | None = None
    # the match before the last stroke and that stroke, when it was a failure to hit a ball on
    # not called a miss: the referee may still call it one (a ``replace`` decision with
    # ``miss``)
    unmissed: tuple[MatchState, Shot] | None = None
    # the match before the last record, a concession: the opponent may still play on (S4 R2)
    conceded: MatchState | None = None
    # each player's timed shots: their number and total time to play them (s)
    shots_timed: tuple[int, int] = (0, 0)
    shot_time_total: tuple[float, float] = (0.0, 0.0)


@dataclass(frozen=True)
class Result:
    """What the referee says after one record: the ``score`` event of docs/FORMATS.md and more.

    ``points``: scored by the striker this stroke; ``foul``: None or {"points", "reason"};
    ``ball_on``: for the next stroke ("red", "colour" or a colour; None once the frame is over);
    ``free_ball``: the next striker may nominate a free ball; ``respotted``: colours put back,
    ``[{"class", "spot", "position"}]``; ``options``: the non-offender's choices; ``awaiting``:
    "decision", "respot_toss" or None; ``stats``: breaks, highest break and centuries per player;
    ``replaced``: balls put back where they stood (moved without a stroke, or fallen from a
    pocket's edge); ``push_confidence``: the camera's confidence in its push-stroke flag;
    ``shot_time``: from the balls at rest to the white struck; ``visit_time``: from the rest
    before the visit's first stroke to the end of this one (both None without the times).
    """

    type: str
    shot: int
    player: int | None
    points: int
    foul: dict[str, Any] | None
    score: tuple[int, int]
    break_: int
    next_player: int | None
    ball_on: str | None
    frame_over: bool
    winner: int | None
    frame: int
    frames: tuple[int, int]
    match_over: bool
    match_winner: int | None
    free_ball: bool
    free_ball_nominated: str | None = None
    nominated: str | None = None
    respotted: tuple[dict[str, Any], ...] = ()
    miss: bool = False
    miss_limited: bool = False
    miss_count: int = 0
    warning: bool = False
    options: tuple[str, ...] = ()
    awaiting: str | None = None
    in_hand: bool = False
    touching_ball: str | None = None
    respotted_black: bool = False
    reds_left: int = 0
    colours_on_table: tuple[str, ...] = ()
    points_remaining: int = 0
    snookers_required: tuple[int, int] = (0, 0)
    claimable: bool = False
    miss_suggested: bool | None = None
    end_reason: str | None = None
    concession_value: int | None = None
    unsporting_concession: bool | None = None
    replaced: tuple[str, ...] = ()
    push_confidence: float | None = None
    shot_time: float | None = None
    visit_time: float | None = None
    stats: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        """The JSON object (``break_`` is written ``break``; tuples become lists)."""
        d = {}
        for f in fields(self):
            v = getattr(self, f.name)
            d["break" if f.name == "break_" else f.name] = list(v) if isinstance(v, tuple) else v
        return d


# ---------------------------------------------------------------------------------------------
# Predicates and values, each citing its rule.


def penalty(*values: int | None) -> int:
    """S3 R11: a foul is worth four points, or the higher value of the ball on or the ball
    concerned when that is more than four."""
    return max([MINIMUM_FOUL, *[v for v in values if v]])


def ball_on_value(table: Table, nominated: str | None) -> int | None:
    """S3 R11: the value of the ball on: a red is 1; after a red, the nominated colour (None when
    nothing was nominated, see ``no_nomination``); in the clearance, the colour in sequence."""
    if table.ball_on == ON_RED:
        return VALUES["red"]
    if table.ball_on == ON_COLOUR:
        return VALUES[nominated] if nominated else None
    return VALUES[table.ball_on]


def only_black_left(table: Table) -> bool:
    """S2 R1, S3 R4: the black is the last object ball, so the first pot or foul ends the frame."""
    return table.reds == 0 and table.colours == ("black",)


def free_ball_snooker_exempt(table: Table) -> bool:
    """S3 R12: snookering behind the free ball is no foul when only the pink and black (or the
    black and one other colour) remain."""
    return table.reds == 0 and len(table.colours) == 2 and "black" in table.colours


def lowest_ball_on(reds: int, colours: tuple[str, ...]) -> str | None:
    """S3 R3: a turn starts on a red while reds remain, then on the lowest colour on the table
    (S3 R3(h)(3)); None when no object ball is left."""
    if reds > 0:
        return ON_RED
    return colours[0] if colours else None


def free_ball_choice(frame: FrameState, shot: Shot) -> str | None:
    """S3 R12 (free ball; IR "free ball"): after a foul that leaves the incoming striker
    snookered, he may nominate any ball as the ball on. The free ball is the nominated colour
    (or, when nothing was nominated, the colour first hit) when it is not the ball on itself."""
    if not frame.free_ball:
        return None
    t = frame.table
    cand = shot.nominated
    if cand is None and shot.first_contact in COLOURS:
        cand = shot.first_contact
    if cand is None or cand == t.ball_on or cand not in t.colours:
        return None
    return cand


def colour_nomination(table: Table, shot: Shot) -> str | None:
    """S3 R3(h), R6: after a red the striker nominates a colour; when none was declared the
    colour first hit (or the colour the white touches) is taken as nominated."""
    if table.ball_on != ON_COLOUR:
        return None
    if shot.nominated is not None:
        return shot.nominated
    if shot.first_contact in COLOURS:
        return shot.first_contact
    if shot.first_contact is None and table.touching in COLOURS:
        return table.touching
    return None


def touching_relief(table: Table, first_ok: frozenset[str]) -> bool:
    """S3 R8(c): with TOUCHING BALL called, the striker plays away; hitting no ball is then no
    foul when the touching ball is on (i) or could be on and is declared on (ii) - after a red
    the colour declared, or the touching colour when none is; a touching ball that is not the
    declared one gives no relief (S3 R8(c)(iii) asks that the declared ball be hit first). A
    move of the touching ball is a push stroke, called by the referee."""
    tb = table.touching
    if tb is None:
        return False
    return tb == "on" or tb in first_ok


def points_remaining(table: Table, free_ball: bool = False) -> int:
    """Points left on the table for one player: each red with a black (8), the colours, a colour
    due after a red, and a free ball still to be taken (an extra red with its colour, or the
    value of the ball on in the clearance; S3 R12)."""
    if table.ball_on is None:
        return 0
    total = table.reds * 8 + sum(VALUES[c] for c in table.colours)
    if table.ball_on == ON_COLOUR:
        total += VALUES["black"]
    if free_ball:
        total += 8 if table.ball_on == ON_RED else VALUES.get(table.ball_on, 0)
    return total


def snookers_required(score: tuple[int, int], table: Table, free_ball: bool = False
                      ) -> tuple[int, int]:
    """Snookers each player needs: the deficit beyond the points remaining, in fouls worth the
    minimum penalty on the current ball on (S3 R11)."""
    rem = points_remaining(table, free_ball)
    per = MINIMUM_FOUL
    if table.ball_on in COLOURS:
        per = max(MINIMUM_FOUL, VALUES[table.ball_on])
    out = []
    for p in (0, 1):
        deficit = score[1 - p] - score[p]
        out.append(math.ceil((deficit - rem) / per) if deficit > rem else 0)
    return out[0], out[1]


def claimable(table: Table, score: tuple[int, int]) -> bool:
    """S2 R1 (seed 003: a player may claim the frame when only the black remains and he leads by
    more than seven); IR S2 "frame" (2): the frame then ends."""
    return only_black_left(table) and abs(score[0] - score[1]) > VALUES["black"]


def miss_suggested(before: FrameState, after: FrameState, full_ball_path: bool) -> bool:
    """S3 R14(a)-(d): a failure to hit a ball on is called a miss unless a player needed penalty
    points (snookers) before or as a result of the stroke; where a full-ball path existed it is
    a miss whatever the scores. A suggestion: the call stays the referee's."""
    if full_ball_path:
        return True
    needed_before = snookers_required(before.score, before.table, before.free_ball)
    needed_after = snookers_required(after.score, after.table, after.free_ball)
    return needed_before == (0, 0) and needed_after == (0, 0)


def _record_fouls(shot: Shot, bov: int | None) -> list[tuple[int, str]]:
    """S3 R11(a), (b), (d): the fouls the referee called, each with its value."""
    out = []
    for fo in shot.foul:
        if fo.reason in FIXED_SEVEN_FOULS:
            out.append((7, fo.reason))
        elif fo.reason in BALL_ON_FOULS:
            out.append((penalty(bov), fo.reason))
        elif fo.reason in HIGHER_VALUE_FOULS:
            out.append((penalty(bov, VALUES[fo.ball] if fo.ball else None), fo.reason))
        elif fo.reason in TIME_FOULS:
            out.append((penalty(bov, TIME_FOUL_VALUE), fo.reason))
        else:
            raise ValueError(f"unknown foul reason {fo.reason!r}")
    return out


def stroke_fouls(table: Table, shot: Shot, nom: str | None, free: str | None,
                 first_ok: frozenset[str], pot_ok: frozenset[str], ruleset: str
                 ) -> list[tuple[int, str]]:
    """Every foul in one stroke with its value (S3 R10, R11):
    - S3 R11(a): hitting no ball, an in-off, the white off the table, and the referee's calls
      double hit, jump shot, no foot on the floor, wrong placement in hand: the ball on;
    - S3 R11(b): first hitting a ball not on, potting a ball not on, forcing a ball off the table,
      and the calls push stroke, touched ball, balls not at rest: the higher of the ball on and
      the ball concerned;
    - S3 R11(d): playing at a red when a colour is on (two reds in successive strokes) and
      fouling before nominating after a red: seven;
    - S3 R12, IR note 1: with a free ball nominated, not hitting it first (IR: the ball on's
      value only);
    - English S3 R11(c) (seed 003 is silent): two balls hit at the same moment, unless fair
      (``simultaneous_fair``): the ball on or the higher of the two;
    - S3 R11(b): the camera's push-stroke flag, and balls the striker moved other than through
      the white (``disturbed``): the higher of the ball on and the ball concerned.
    """
    bov = ball_on_value(table, nom)
    fouls = _record_fouls(shot, bov)
    fc = shot.first_contact
    if fc is None:
        if not touching_relief(table, first_ok):
            fouls.append((penalty(bov), "no_ball_hit"))
    elif shot.simultaneous_contact is not None:
        sim = shot.simultaneous_contact
        if not simultaneous_fair(table, fc, sim, free, first_ok):
            fouls.append((penalty(bov, VALUES[fc], VALUES[sim]), "simultaneous_hit"))
    elif fc not in first_ok:
        if free is not None:
            concerned = None if ruleset == "iran" else VALUES[fc]
            fouls.append((penalty(bov, concerned), "free_ball_not_hit_first"))
        elif table.ball_on == ON_COLOUR and fc == "red" and nom is None:
            # S3 R11(d): playing at a red after a red; with a colour declared a red hit first
            # is a ball not on (S3 R11(b)), valued below
            fouls.append((7, "two_reds"))
        else:
            fouls.append((penalty(bov, VALUES[fc]), "wrong_ball_first"))
    if shot.push_stroke:
        fouls.append((penalty(bov, VALUES[fc] if fc else None), "push_stroke"))
    if shot.disturbed:
        fouls.append((touched_value(bov, shot.disturbed), "touched_ball"))
    if shot.cue_potted:
        fouls.append((penalty(bov), "in_off"))
    if "white" in shot.off_table:
        fouls.append((penalty(bov), "cue_ball_off_table"))
    bad = [b for b in shot.potted if b not in pot_ok]
    if bad:
        fouls.append((penalty(bov, max(VALUES[b] for b in bad)), "potted_ball_not_on"))
    off = [b for b in shot.off_table if b != "white"]
    if off:
        fouls.append((penalty(bov, max(VALUES[b] for b in off)), "ball_off_table"))
    if fouls and table.ball_on == ON_COLOUR and nom is None:
        fouls.append((7, "no_nomination"))
    return fouls


def simultaneous_fair(table: Table, first: str, other: str, free: str | None,
                      first_ok: frozenset[str]) -> bool:
    """English S3 R11(c), R12: the white may hit two balls at the same moment when both are on
    (two reds), or when they are the nominated free ball and the ball on."""
    if {first, other} <= first_ok:
        return True
    if free is None:
        return False
    actual = "red" if table.ball_on == ON_RED else table.ball_on
    return {first, other} == {free, actual}


def touched_value(bov: int | None, balls: tuple[str, ...]) -> int:
    """S3 R11(b): touching balls in play other than with the tip on the white: the higher of
    the ball on and the balls touched (the white counts as the ball on)."""
    return penalty(bov, *[VALUES.get(b) for b in balls])


def worst_foul(fouls: list[tuple[int, str]]) -> tuple[int, str] | None:
    """S3 R10(g): of several fouls in one stroke only the highest penalty is imposed."""
    if not fouls:
        return None
    best = fouls[0]
    for f in fouls[1:]:
        if f[0] > best[0]:
            best = f
    return best


def stroke_points(table: Table, shot: Shot, nom: str | None, free: str | None) -> int:
    """Points of a fair stroke.
    - S3 R3(g): every red potted scores one;
    - S3 R3(h): a nominated colour after a red scores its value; in the clearance the colour in
      sequence;
    - S3 R12, IR note 5: a free ball potted scores as the ball on; with reds on, the free ball
      and the reds potted with it all score one each; in the clearance the free ball and the ball
      on potted together score the ball on only.
    """
    reds = shot.potted.count("red")
    on = table.ball_on
    if free is not None:
        if on == ON_RED:
            return reds + (1 if free in shot.potted else 0)
        return VALUES[on] if (on in shot.potted or free in shot.potted) else 0
    if on == ON_RED:
        return reds
    if on == ON_COLOUR:
        return VALUES[nom] if nom in shot.potted else 0
    return VALUES[on] if on in shot.potted else 0


def must_respot(table: Table, colour: str, foul: bool, free: str | None) -> bool:
    """S3 R7: colours potted while reds remain, the colour after the last red, a free ball
    (S3 R12) and any colour potted or forced off the table in a foul are re-spotted; a colour
    potted fairly in the clearance stays off."""
    if foul or colour == free:
        return True
    return table.ball_on in (ON_RED, ON_COLOUR)


def _validate(table: Table, shot: Shot) -> None:
    gone = [b for b in shot.potted + shot.off_table if b != "white"]
    reds = gone.count("red")
    if reds > table.reds:
        raise ValueError(f"{reds} red(s) potted or off the table but {table.reds} on the table")
    for c in COLOURS:
        n = gone.count(c)
        if n > 1:
            raise ValueError(f"the {c} is potted or off the table {n} times")
        if n and c not in table.colours:
            raise ValueError(f"the {c} is potted or off the table but not on the table")
    fell = shot.fell_from_edge
    if gone.count("red") + fell.count("red") > table.reds:
        raise ValueError("more reds potted, off the table or fallen from an edge than on the "
                         "table")
    for c in set(fell) & set(COLOURS):
        if c not in table.colours or c in gone or fell.count(c) > 1:
            raise ValueError(f"the {c} in fell_from_edge is not on the table, or also potted or "
                             "off the table")
    for b in shot.disturbed:
        if (b == "red" and not table.reds) or (b in COLOURS and b not in table.colours):
            raise ValueError(f"the disturbed {b} is not on the table")
    sim = shot.simultaneous_contact
    if sim is not None:
        if (sim == "red" and table.reds < 2) or (sim in COLOURS and sim not in table.colours):
            raise ValueError(f"simultaneous_contact with the {sim}, which is not on the table")
        if sim == shot.first_contact and sim != "red":
            raise ValueError(f"simultaneous_contact: the {sim} twice")
    if shot.first_contact in COLOURS and shot.first_contact not in table.colours:
        raise ValueError(f"first contact with the {shot.first_contact}, which is not on the table")
    if shot.first_contact == "red" and table.reds == 0:
        raise ValueError("first contact with a red, but no red is on the table")
    if shot.nominated is not None and shot.nominated not in table.colours:
        raise ValueError(f"the nominated {shot.nominated} is not on the table")


# ---------------------------------------------------------------------------------------------
# Geometry used when positions are known.


def _on_classes(ball_on: str | None, colours: tuple[str, ...]) -> tuple[str, ...]:
    if ball_on == ON_RED:
        return ("red",)
    if ball_on == ON_COLOUR:
        return tuple(colours)
    return () if ball_on is None else (ball_on,)


def _snooker(positions: dict | None, ball_on: str | None, colours: tuple[str, ...],
             in_hand: bool) -> geometry.SnookerCheck | None:
    on = _on_classes(ball_on, colours)
    if positions is None or not on or (not in_hand and "white" not in positions):
        return None
    try:
        return geometry.snooker_check(positions, on, in_hand=in_hand)
    except ValueError:
        return None


def snookered_behind_free_ball(positions: dict | None, free: str, ball_on: str | None,
                               colours: tuple[str, ...], in_hand: bool) -> bool:
    """S3 R12: the opponent is snookered behind the free ball: snookered, and not snookered were
    the free ball not there."""
    check = _snooker(positions, ball_on, colours, in_hand)
    if check is None or not check.snookered:
        return False
    without = {k: v for k, v in positions.items() if not k.startswith(free)}
    again = _snooker(without, ball_on, colours, in_hand)
    return again is not None and not again.snookered


# ---------------------------------------------------------------------------------------------
# The reducer.


def _new_frame(number: int, breaker: int, reds: int) -> FrameState:
    """S3 R2(a), R3(c): the reds racked, the colours on their spots, the white in hand in the D,
    the breaker to play on a red."""
    return FrameState(number=number, breaker=breaker, reds_at_start=reds,
                      table=Table(reds=reds), striker=breaker)


def _frame_breaker(first_breaker: int, number: int) -> int:
    """S3 R3(b): the players break in turn, frame by frame."""
    return first_breaker if number % 2 == 1 else 1 - first_breaker


def _add_break(m: MatchState, player: int, points: int) -> MatchState:
    if points <= 0:
        return m
    b = list(m.breaks)
    b[player] = b[player] + (points,)
    return replace(m, breaks=(b[0], b[1]))


def _finish_frame(m: MatchState, f: FrameState, winner: int) -> MatchState:
    """S3 R1(f): the frame goes to the winner; the match to the first to win more than half of
    ``best_of`` frames (S2 R2-3)."""
    f = replace(f, over=True, winner=winner, offender=None, options=(), free_ball=False,
                replace_to=None, current_break=0, awaiting_toss=False,
                table=replace(f.table, ball_on=None))
    frames = list(m.frames)
    frames[winner] += 1
    need = m.best_of // 2 + 1
    over = frames[winner] >= need
    return replace(m, frame=f, frames=(frames[0], frames[1]), over=over,
                   winner=winner if over else None)


def _end_or_respot(m: MatchState, f: FrameState) -> MatchState:
    """S3 R4: when the frame ends with the scores level, the black is re-spotted, the players
    toss for who plays first, and he plays from hand; the next pot or foul ends it (S3 R4(b);
    IR "ball in hand" 1(d))."""
    a, b = f.score
    if a != b:
        return _finish_frame(m, f, 0 if a > b else 1)
    pos = f.table.positions_dict()
    if pos is not None:
        pos = {"black": geometry.SPOTS_MM["black"]}
    table = Table(reds=0, colours=("black",), ball_on="black", in_hand=True,
                  positions=None if pos is None else tuple((k, *v) for k, v in pos.items()))
    f = replace(f, table=table, respotted_black=True, awaiting_toss=True, offender=None,
                options=(), free_ball=False, replace_to=None, current_break=0, miss_count=0,
                warning=False, replaced=False)
    return replace(m, frame=f)


def _decide(f: FrameState, choice: str) -> FrameState:
    """S3 R10(h)-(i): after a foul the non-offender plays from where the balls lie (with a free
    ball if snookered, S3 R12) or puts the offender back in; after a foul and a miss he may
    also have the balls replaced and the offender play again from the original position
    (S3 R14); the third miss of a sequence with a full-ball path available is warned of
    beforehand (S3 R14(d)). Playing on, or putting the offender back in from where the balls
    lie, ends the miss sequence; putting back voids the free ball (S3 R12), replacing restores
    the position as it was, free ball included."""
    if f.offender is None or choice not in f.options:
        raise ValueError(f"no {choice!r} decision is open (options: {list(f.options) or 'none'})")
    off = f.offender
    if choice == "play":
        return replace(f, offender=None, options=(), replace_to=None, miss_count=0,
                       warning=False, replaced=False)
    if choice == "put_back":
        return replace(f, offender=None, options=(), striker=off, free_ball=False,
                       current_break=0, replace_to=None, miss_count=0, warning=False,
                       replaced=False)
    snap = f.replace_to
    warn = f.warning or (f.miss_count >= 2 and f.full_ball_path)
    return replace(f, offender=None, options=(), striker=off, table=snap.table,
                   free_ball=snap.free_ball, current_break=0, replace_to=None, replaced=True,
                   warning=warn)


def _update_positions(table: Table, shot: Shot, respot_list: list[str]
                      ) -> tuple[tuple[tuple[str, float, float], ...] | None, list[dict]]:
    """S3 R7: place each colour to re-spot, the highest value first (S3 R7(c))."""
    respot_list = sorted(respot_list, key=lambda c: -VALUES[c])
    if shot.positions is None:
        return None, [{"class": c, "spot": c, "position": list(geometry.SPOTS_MM[c])}
                      for c in respot_list]
    pos = {k: (x, y) for k, x, y in shot.positions}
    if shot.cue_potted or "white" in shot.off_table:
        pos.pop("white", None)
    out = []
    for c in respot_list:
        for k in [k for k in pos if k.split("_", 1)[0] == c]:
            del pos[k]
        spot, xy = geometry.respot(c, pos)
        pos[c] = xy
        out.append({"class": c, "spot": spot, "position": [round(xy[0], 1), round(xy[1], 1)]})
    return tuple(sorted((k, x, y) for k, (x, y) in pos.items())), out


def _touching_after(shot: Shot, positions: dict | None, in_hand: bool, next_on: str | None,
                    free_next: bool) -> str | None:
    """S3 R8: TOUCHING BALL is called when the white comes to rest touching a ball that is or
    could be on (from the record, or from positions within 1 mm)."""
    if in_hand or next_on is None:
        return None
    could_be = set(_on_classes(next_on, COLOURS))
    if free_next:
        could_be |= set(COLOURS)
    if shot.touching_after is True:
        return "on"
    if isinstance(shot.touching_after, str):
        return shot.touching_after if shot.touching_after in could_be else None
    if shot.touching_after is False or positions is None:
        return None
    for k in geometry.touching(positions):
        c = k.split("_", 1)[0]
        if c in could_be:
            return c
    return None


@dataclass(frozen=True)
class _Stroke:
    """One stroke judged: what was on, what was legal, the foul and points, the table after."""

    striker: int
    on: str
    free: str | None
    nom: str | None
    first_ok: frozenset[str]
    foul: tuple[int, str] | None
    points: int
    reds_left: int
    colours: tuple[str, ...]
    positions: tuple[tuple[str, float, float], ...] | None
    respotted: tuple[dict[str, Any], ...]
    in_hand: bool

    @property
    def positions_dict(self) -> dict[str, tuple[float, float]] | None:
        if self.positions is None:
            return None
        return {k: (x, y) for k, x, y in self.positions}


def _who_plays(m: MatchState, s: Shot) -> MatchState:
    """S3 R3(b), R4(b), R10(h)-(i): the next frame starts if this one is over; the re-spotted
    black's first player is the one who plays; after a foul, a shot by the offender means he was
    put back in, by the other player that he plays on."""
    f = m.frame
    if f.over:
        if m.over:
            raise ValueError("the match is over")
        m = _start_frame(m, FrameStart())
        f = m.frame
    if f.awaiting_toss:
        if s.player is None:
            raise ValueError("the re-spotted black needs a respot_toss record first")
        f = replace(f, awaiting_toss=False, striker=s.player)
    if f.offender is not None:
        f = _decide(f, "put_back" if s.player == f.offender else "play")
    return replace(m, frame=f)


def _out_of_turn(m: MatchState, s: Shot) -> tuple[MatchState, dict[str, Any]]:
    """S3 R3(k): the non-striker plays out of turn: PENALTY to the striker, the balls moved
    replaced, the striker's turn goes on unaffected (break, ball on, free ball). Valued at the
    striker's ball on, at least four (English S3 R11(a): "striking out of turn")."""
    f = m.frame
    _validate(f.table, s)
    pts = penalty(ball_on_value(f.table, None))
    score = list(f.score)
    score[f.striker] += pts
    f = replace(f, score=(score[0], score[1]), shot=f.shot + 1)
    res = {"type": "shot", "player": s.player, "points": 0,
           "foul": {"points": pts, "reason": "played_out_of_turn"},
           "break_": f.current_break, "nominated": s.nominated}
    return replace(m, frame=f), res


def _not_struck(f: FrameState, s: Shot) -> _Stroke:
    """S3 R11(b): balls moved with the body, clothes or equipment while the white was not
    struck: a foul of the higher of the ball on and the balls moved, seven when it comes after
    a red before a colour is declared (S3 R11(d)); the balls go back where they stood, so the
    table is as before (what the record says potted is not taken)."""
    t = f.table
    _validate(t, replace(s, potted=(), off_table=()))
    bov = ball_on_value(t, s.nominated)
    pts = touched_value(bov, s.disturbed)
    if t.ball_on == ON_COLOUR and s.nominated is None:
        pts = max(pts, 7)
    return _Stroke(f.striker, t.ball_on, None, s.nominated, frozenset(), (pts, "touched_ball"),
                   0, t.reds, t.colours, t.positions, (), t.in_hand)


def _judge(f: FrameState, s: Shot, ruleset: str) -> _Stroke:
    """The rules applied to one stroke: legal balls, fouls, points and the balls re-spotted."""
    t = f.table
    _validate(t, s)
    on = t.ball_on
    free = free_ball_choice(f, s)
    nom = colour_nomination(t, s)
    if free is not None:
        first_ok = frozenset({free})
        pot_ok = frozenset({"red", free} if on == ON_RED else {on, free})
    elif on == ON_COLOUR:
        first_ok = pot_ok = frozenset({nom} if nom else ())
    else:
        first_ok = pot_ok = frozenset({on})
    fouls = stroke_fouls(t, s, nom, free, first_ok, pot_ok, ruleset)
    pts = 0 if fouls else stroke_points(t, s, nom, free)
    reds_left = t.reds - s.potted.count("red") - s.off_table.count("red")
    if free is not None and not fouls and pts == 0 and not free_ball_snooker_exempt(t):
        # S3 R12: a non-scoring free-ball stroke must not snooker the opponent behind it.
        after = None if s.positions is None else {k: (x, y) for k, x, y in s.positions}
        nxt = lowest_ball_on(reds_left, t.colours)
        behind = (s.snookered_by is not None and free in s.snookered_by) or (
            s.snookered_by is None and snookered_behind_free_ball(
                after, free, nxt, t.colours, s.cue_potted))
        if behind:
            # English S3 R11(a): valued at the ball on, not at the free ball
            fouls.append((penalty(ball_on_value(t, nom)), "snookered_behind_free_ball"))
    foul = worst_foul(fouls)
    gone = {b for b in s.potted + s.off_table if b in COLOURS}
    respot_list = [c for c in gone if must_respot(t, c, foul is not None, free)]
    colours = tuple(c for c in t.colours if c not in gone or c in respot_list)
    positions, respotted = _update_positions(t, s, respot_list)
    return _Stroke(f.striker, on, free, nom, first_ok, foul, pts, reds_left, colours,
                   positions, tuple(respotted), s.cue_potted or "white" in s.off_table)


def _apply_shot(m: MatchState, s: Shot) -> tuple[MatchState, dict[str, Any]]:
    m = _who_plays(m, s)
    if s.player is not None and s.player != m.frame.striker:
        return _out_of_turn(m, s)
    before = m.frame
    k = _judge(before, s, m.ruleset) if s.struck else _not_struck(before, s)
    res: dict[str, Any] = {
        "type": "shot", "player": k.striker, "points": k.points, "respotted": k.respotted,
        "free_ball_nominated": k.free, "nominated": k.free or k.nom or s.nominated,
        "replaced": s.fell_from_edge if s.struck else s.disturbed,
        "push_confidence": s.push_confidence,
    }
    if k.foul is not None:
        return _after_foul(m, before, s, k, res)
    return _after_fair_stroke(m, before, s, k, res)


def _after_foul(m: MatchState, before: FrameState, s: Shot, k: _Stroke, res: dict[str, Any]
                ) -> tuple[MatchState, dict[str, Any]]:
    """S3 R10: the penalty to the opponent, the turn ends; S3 R4 on the last black; S3 R14 the
    miss; S3 R12 the free ball when the incoming striker is snookered (given, or from the
    positions)."""
    t, striker, foul = before.table, k.striker, k.foul
    res["foul"] = {"points": foul[0], "reason": foul[1]}
    res["break_"] = before.current_break
    score = list(before.score)
    score[1 - striker] += foul[0]
    m = _add_break(m, striker, before.current_break)
    f = replace(before, score=(score[0], score[1]), shot=before.shot + 1, current_break=0,
                replaced=False)
    if only_black_left(t) or f.respotted_black:
        f = replace(f, table=Table(0, k.colours, None, k.in_hand, k.positions))
        res["end_reason"] = "foul_on_last_black"
        return _end_or_respot(m, f), res
    next_on = lowest_ball_on(k.reds_left, k.colours)
    failed_to_hit = foul[1] in MISS_FOULS
    fbp = s.full_ball_path
    if fbp is None and failed_to_hit:
        check = _snooker(t.positions_dict(), k.on, t.colours, t.in_hand)
        fbp = (check is not None and check.full_ball_path) or touching_relief(t, k.first_ok)
    miss, count = bool(s.miss) and failed_to_hit, 0
    if miss:
        count = before.miss_count + 1 if before.replaced else 1
        if before.reds_at_start == 6 and count > SIX_RED_MISS_LIMIT:
            miss, count = False, 0
            res["miss_limited"] = True
    if miss and count >= 3 and fbp and before.warning:
        f = replace(f, table=Table(k.reds_left, k.colours, None, k.in_hand, k.positions),
                    miss_count=count)
        res["miss"] = True
        res["end_reason"] = "three_misses"
        return _finish_frame(m, f, 1 - striker), res
    pos_now = k.positions_dict
    snookered = s.snookered_after
    if snookered is None:
        check = _snooker(pos_now, next_on, k.colours, k.in_hand)
        snookered = bool(check and check.snookered)
    touching = _touching_after(s, pos_now, k.in_hand, next_on, snookered)
    f = replace(f, table=Table(k.reds_left, k.colours, next_on, k.in_hand, k.positions, touching),
                striker=1 - striker, offender=striker,
                options=("play", "put_back", "replace") if miss else ("play", "put_back"),
                free_ball=snookered, replace_to=before if miss else None, miss_count=count,
                full_ball_path=bool(fbp), warning=before.warning and miss)
    res["miss"] = miss
    if failed_to_hit:
        res["miss_suggested"] = miss_suggested(before, f, bool(fbp))
    return replace(m, frame=f), res


def _after_fair_stroke(m: MatchState, before: FrameState, s: Shot, k: _Stroke,
                       res: dict[str, Any]) -> tuple[MatchState, dict[str, Any]]:
    """S3 R3(g)-(h): a pot scores and the striker goes on to the next ball on; no pot ends the
    turn. S2 R1, S3 R4: potting the last ball ends the frame (or re-spots the black on level
    scores). IR S2 "frame" (2): with ruleset "iran" a lead of more than 7 over the last black
    ends the frame."""
    striker, on, pts = k.striker, k.on, k.points
    score = list(before.score)
    score[striker] += pts
    brk = before.current_break + pts
    res["break_"] = brk
    f = replace(before, score=(score[0], score[1]), shot=before.shot + 1, miss_count=0,
                warning=False, replaced=False, free_ball=False, replace_to=None,
                full_ball_path=False)
    if pts > 0:
        if on == ON_RED:
            next_on = ON_COLOUR
        elif on == ON_COLOUR:
            next_on = lowest_ball_on(k.reds_left, k.colours)
        elif k.free is not None and on not in s.potted:
            next_on = on
        else:
            next_on = next_colour(on)
        if next_on is None or f.respotted_black:
            m = _add_break(m, striker, brk)
            f = replace(f, table=Table(0, k.colours, None, k.in_hand, k.positions),
                        current_break=0)
            res["end_reason"] = "last_ball_potted"
            return _end_or_respot(m, f), res
        next_striker = striker
    else:
        m = _add_break(m, striker, brk)
        next_on = lowest_ball_on(k.reds_left, k.colours)
        next_striker = 1 - striker
    touching = _touching_after(s, k.positions_dict, k.in_hand, next_on, False)
    table = Table(k.reds_left, k.colours, next_on, k.in_hand, k.positions, touching)
    f = replace(f, table=table, striker=next_striker,
                current_break=brk if next_striker == striker else 0)
    m = replace(m, frame=f)
    if m.ruleset == "iran" and claimable(table, f.score):
        m = _add_break(m, f.striker, f.current_break)
        res["end_reason"] = "lead_over_black"
        return _finish_frame(m, f, 0 if f.score[0] > f.score[1] else 1), res
    return m, res


def _start_frame(m: MatchState | None, r: FrameStart) -> MatchState:
    """S3 R2-3: a new frame; the breaker alternates frame by frame unless given. A frame
    joined mid-way starts as the record has it (``_joined_frame``); the match's first
    frame_start may give the frames already won, and this frame is then the next of them."""
    if m is None:
        if r.players is None:
            raise ValueError("the first frame_start needs players")
        breaker = 0 if r.breaker is None else r.breaker
        best_of = r.best_of or 1
        frames = r.frames or (0, 0)
        need = best_of // 2 + 1
        if max(frames) >= need:
            raise ValueError(f"frames {list(frames)}: the best of {best_of} is already won")
        number = frames[0] + frames[1] + 1
        first = breaker if number % 2 == 1 else 1 - breaker  # S3 R3(b): in turn from frame 1
        return MatchState(players=r.players, best_of=best_of,
                          ruleset=r.ruleset or "wpbsa", first_breaker=first, frames=frames,
                          frame=_joined_frame(number, breaker, r.reds or 15, r))
    if not m.frame.over:
        raise ValueError(f"frame {m.frame.number} is still in play")
    if m.over:
        raise ValueError("the match is over")
    if r.players is not None and tuple(r.players) != m.players:
        raise ValueError(f"players {list(r.players)} differ from the match's {list(m.players)}")
    if r.frames is not None and tuple(r.frames) != m.frames:
        raise ValueError(f"frames {list(r.frames)} differ from the match's {list(m.frames)}")
    n = m.frame.number + 1
    breaker = _frame_breaker(m.first_breaker, n) if r.breaker is None else r.breaker
    return replace(m, frame=_joined_frame(n, breaker, r.reds or m.frame.reds_at_start, r))


def _joined_frame(number: int, breaker: int, reds: int, r: FrameStart) -> FrameState:
    """A frame as ``r`` says it stands: from the rack (``_new_frame``) unless it was joined
    mid-way. S3 R3(h)(3): with no red left the lowest colour is on (or, after the last red,
    any colour); S3 R7: every colour stays on while reds remain (``parse_record`` checks the
    fields one against another)."""
    f = _new_frame(number, breaker, reds)
    if not r.joined:
        return f
    left = reds if r.reds_left is None else r.reds_left
    if left > reds:
        raise ValueError(f"reds_left {left} is more than the {reds} racked")
    colours = COLOURS if r.colours_on_table is None else tuple(r.colours_on_table)
    if left and colours != COLOURS:
        raise ValueError("every colour is on the table while reds remain (S3 R7)")
    on = r.ball_on or lowest_ball_on(left, colours)
    if on is None:
        raise ValueError("a frame joined with no object ball on the table")
    striker = breaker if r.to_play is None else r.to_play
    score = r.score or (0, 0)
    brk = r.break_ or 0
    if brk > score[striker]:
        raise ValueError(f"break {brk} is more than the score {score[striker]} of the player "
                         f"at the table (player {striker})")
    in_hand = r.in_hand if r.in_hand is not None else (left == reds and colours == COLOURS
                                                       and not score[0] + score[1])
    table = Table(reds=left, colours=colours, ball_on=on, in_hand=in_hand)
    return replace(f, table=table, striker=striker, score=score, current_break=brk)


def apply(state: MatchState | None, record: Record | Mapping[str, Any]
          ) -> tuple[MatchState, Result]:
    """One step of the referee: the new state and what it says. ValueError on a record that does
    not fit the state (e.g. a decision with no foul to decide on)."""
    if isinstance(record, Mapping):
        record = parse_record(record)
    if state is None and not isinstance(record, FrameStart):
        raise ValueError("the first record must be a frame_start")
    res: dict[str, Any] = {}
    if isinstance(record, FrameStart):
        m = _start_frame(state, record)
        res = {"type": "frame_start", "player": None, "break_": m.frame.current_break}
    elif isinstance(record, Shot):
        m, res = _apply_shot(state, record)
        m = _timed(state, m, record, res)
        if res.get("miss") is False and "miss_suggested" in res:
            m = replace(m, unmissed=(replace(state, unmissed=None), record))
    elif isinstance(record, Decision) and state.conceded is not None and record.choice == "play":
        # S4 R2: the concession is void when the opponent chooses to play on
        m = state.conceded
        res = {"type": "decision", "player": 1 - m.frame.striker, "end_reason": "concession_void"}
    elif isinstance(record, Decision):
        if record.miss:
            state = _call_miss(state)
        m = replace(state, frame=_decide(state.frame, record.choice))
        res = {"type": "decision", "player": 1 - state.frame.offender
               if state.frame.offender is not None else None}
        if record.miss:
            res["miss"] = True
    elif isinstance(record, Concede):
        m = replace(_concede(state, record.player),
                    conceded=replace(state, unmissed=None, conceded=None))
        res = {"type": "concede", "player": record.player, "end_reason": "concession",
               "concession_value": points_remaining(_table_for_concession(state.frame.table)),
               "unsporting_concession": snookers_required(
                   state.frame.score, state.frame.table) == (0, 0)}
    elif isinstance(record, RespotToss):
        f = state.frame
        if not f.awaiting_toss:
            raise ValueError("no re-spotted black is waiting for a toss")
        m = replace(state, frame=replace(f, awaiting_toss=False, striker=record.first))
        res = {"type": "respot_toss", "player": record.first}
    elif isinstance(record, Rerack):
        m = _rerack(state)
        res = {"type": "rerack", "player": None, "end_reason": "rerack"}
    elif isinstance(record, Claim):
        m = _claim(state, record.player)
        res = {"type": "claim", "player": record.player, "end_reason": "claim"}
    else:  # pragma: no cover - parse_record returns only the types above
        raise ValueError(f"unknown record {record!r}")
    if m.unmissed is not None and m.unmissed[1] is not record:
        m = replace(m, unmissed=None)
    if m.conceded is not None and not isinstance(record, Concede):
        m = replace(m, conceded=None)
    return m, _result(m, res)


def _timed(prev: MatchState, m: MatchState, s: Shot, res: dict[str, Any]) -> MatchState:
    """Shot and visit times from the record's times, into ``res``; the visit goes on while the
    same player stays at the table, and a stroke out of turn leaves the striker's visit alone."""
    player = res["player"]
    shot_time = None
    if s.t_rest is not None and s.t_strike is not None:
        shot_time = round(s.t_strike - s.t_rest, 3)
        n, total = list(m.shots_timed), list(m.shot_time_total)
        n[player] += 1
        total[player] += shot_time
        m = replace(m, shots_timed=(n[0], n[1]), shot_time_total=(total[0], total[1]))
    res["shot_time"] = shot_time
    if (res.get("foul") or {}).get("reason") == "played_out_of_turn":
        return m
    pf = prev.frame
    start = s.t_rest if s.t_rest is not None else s.t_strike
    going_on = not pf.over and pf.striker == player and pf.visit_start is not None
    visit_start = pf.visit_start if going_on else start
    end = next((t for t in (s.t_end, s.t_strike, s.t_rest) if t is not None), None)
    res["visit_time"] = (None if visit_start is None or end is None
                         else round(end - visit_start, 3))
    f = m.frame
    stays = (not f.over and f.striker == player and f.offender is None and not f.awaiting_toss
             and res.get("foul") is None)
    return replace(m, frame=replace(f, visit_start=visit_start if stays else None))


def _call_miss(m: MatchState) -> MatchState:
    """S3 R14: the last stroke, a failure to hit a ball on recorded without the call, called a
    foul and a miss: the match as that stroke with the call would have left it (the same
    points; the miss counted, the balls' position before it kept for replacing them)."""
    if m.unmissed is None:
        raise ValueError("no foul to call a miss: the last stroke was no failure to hit a ball "
                         "on recorded without the call")
    before, shot = m.unmissed
    shot = replace(shot, miss=True)
    called, res = _apply_shot(before, shot)
    if not res.get("miss") or called.frame.over:
        raise ValueError("the last foul cannot be called a miss here")
    return _timed(before, called, shot, res)


def _concede(m: MatchState, player: int) -> MatchState:
    """S3 R1(f)(2), S4 R2: a conceded frame goes to the opponent; only the striker may concede
    (English S4 R2: "only when he is the striker")."""
    f = m.frame
    if f.over:
        raise ValueError("the frame is already over")
    if player != f.striker:
        raise ValueError(f"player {player} cannot concede: only the striker (player "
                         f"{f.striker}) may (S4 R2)")
    m = _add_break(m, f.striker, f.current_break)
    return _finish_frame(m, f, 1 - player)


def _claim(m: MatchState, player: int) -> MatchState:
    """S2 R1: with only the black left the striker leading by more than seven may claim the
    frame (seed 003: the player with the lead; the English text: the striker)."""
    f = m.frame
    if f.over or not claimable(f.table, f.score) or f.score[player] <= f.score[1 - player]:
        raise ValueError(f"player {player} cannot claim the frame now")
    if player != f.striker:
        raise ValueError(f"player {player} cannot claim the frame: only the striker (player "
                         f"{f.striker}) may (S2 R1)")
    m = _add_break(m, f.striker, f.current_break)
    return _finish_frame(m, f, player)


def _rerack(m: MatchState) -> MatchState:
    """S3 R17: after a stalemate the scores are cancelled, the balls re-racked and the same
    player breaks again."""
    f = m.frame
    if f.over:
        raise ValueError("the frame is already over")
    m = _add_break(m, f.striker, f.current_break)
    return replace(m, frame=_new_frame(f.number, f.breaker, f.reds_at_start))


def _table_for_concession(t: Table) -> Table:
    """S4 R2: the value of the balls left, each red counted at eight (with a black) and every
    colour as if on its spot."""
    return replace(t, colours=COLOURS if t.reds else t.colours,
                   ball_on=t.ball_on or (ON_RED if t.reds else (t.colours or (None,))[0]))


def _stats(m: MatchState) -> dict[str, Any]:
    f = m.frame
    cur = [0, 0]
    if not f.over:
        cur[f.striker] = f.current_break
    highest = [max((*m.breaks[p], cur[p]), default=0) for p in (0, 1)]
    centuries = [sum(1 for b in (*m.breaks[p], cur[p]) if b >= 100) for p in (0, 1)]
    average = [round(m.shot_time_total[p] / m.shots_timed[p], 2) if m.shots_timed[p] else None
               for p in (0, 1)]
    return {"breaks": [list(m.breaks[0]), list(m.breaks[1])],
            "highest_break": highest, "centuries": centuries, "average_shot_time": average}


def _result(m: MatchState, res: dict[str, Any]) -> Result:
    f = m.frame
    t = f.table
    awaiting = ("decision" if f.offender is not None
                else "respot_toss" if f.awaiting_toss else None)
    brk = res.pop("break_", None)
    if brk is None:
        brk = f.current_break if res.get("player") == f.striker else 0
    next_player = None if (f.over or f.awaiting_toss) else f.striker
    return Result(
        type=res.pop("type"), shot=f.shot, player=res.pop("player"),
        points=res.pop("points", 0), foul=res.pop("foul", None), score=f.score, break_=brk,
        next_player=next_player, ball_on=None if f.over else t.ball_on,
        frame_over=f.over, winner=f.winner, frame=f.number, frames=m.frames,
        match_over=m.over, match_winner=m.winner, free_ball=f.free_ball and not f.over,
        miss_count=f.miss_count, warning=f.warning, options=f.options, awaiting=awaiting,
        in_hand=t.in_hand and not f.over, touching_ball=None if f.over else t.touching,
        respotted_black=f.respotted_black, reds_left=t.reds, colours_on_table=t.colours,
        points_remaining=0 if f.over else points_remaining(t, f.free_ball),
        snookers_required=(0, 0) if f.over else snookers_required(f.score, t, f.free_ball),
        claimable=not f.over and claimable(t, f.score),
        stats=_stats(m), **res,
    )


# ---------------------------------------------------------------------------------------------
# Conveniences for the pipeline and the command line.


class Referee:
    """The reducer with its state held, for feeding shot facts live: ``feed(record) -> dict``."""

    def __init__(self, state: MatchState | None = None) -> None:
        self.state = state

    def feed(self, record: Record | Mapping[str, Any]) -> dict[str, Any]:
        self.state, result = apply(self.state, record)
        return result.as_dict()


def records_from_lines(lines: Iterable[str], source: str = "<shots>") -> list[Record]:
    """JSON lines to records; blank lines are skipped. ValueError names ``source`` and the
    1-based line number."""
    out = []
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            out.append(loads_record(line))
        except (ValueError, TypeError) as e:
            raise ValueError(f"{source}:{n}: {e}") from None
    return out


def run_records(records: Iterable[Record | Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Every record through the referee from an empty state; one result dict per record."""
    ref = Referee()
    return [ref.feed(r) for r in records]


score_shots = run_records
