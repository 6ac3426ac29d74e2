"""Snookered geometry and re-spotting on the table, in pure Python (no numpy).

Table coordinates are the project's (docs/FORMATS.md): millimetres, ``x`` 0..1778 along the baulk
cushion, ``y`` 0..3569 from the baulk cushion to the top cushion. Balls are given as a mapping
from a key (a track id such as ``red_07`` or a class such as ``pink``) to ``(x_mm, y_mm)``; the
cue ball is the key ``white``.

Public functions:
- ``snooker_check(balls, on, in_hand=False) -> SnookerCheck``: whether the white is snookered
  (Section 2 Rule 17), which balls do it, and whether a full-ball path exists (Section 3 Rule 14).
- ``is_snookered(...)``, ``full_ball_path_exists(...)``: the two booleans alone.
- ``touching(balls) -> tuple[str, ...]``: keys of the balls the white touches (Section 3 Rule 8).
- ``respot(colour, balls) -> (spot name or None, (x_mm, y_mm))``: where a colour goes back
  (Section 3 Rule 7).

Cushions are ignored throughout: the cue ball cannot be snookered by a cushion (Section 2
Rule 17; Iranian text, "snookered", note 4).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from tracker.rules.balls import COLOURS, class_of

# Section 1 Rule 1(a): playing area 3569 x 1778 mm within the cushion faces.
TABLE_LENGTH_MM = 3569.0
TABLE_WIDTH_MM = 1778.0
# Section 1 Rule 1(d): baulk line 737 mm from the face of the baulk cushion.
BAULK_LINE_MM = 737.0
# Section 1 Rule 1(e): the D, radius 292 mm, centred on the middle of the baulk line.
D_RADIUS_MM = 292.0
# Section 1 Rule 1(f): the black spot 324 mm from the face of the top cushion.
BLACK_FROM_TOP_MM = 324.0
# Section 1 Rule 2: ball diameter 52.5 mm.
BALL_DIAMETER_MM = 52.5
BALL_RADIUS_MM = BALL_DIAMETER_MM / 2
D_CENTRE_MM = (TABLE_WIDTH_MM / 2, BAULK_LINE_MM)

_CX = TABLE_WIDTH_MM / 2
_BLUE_Y = TABLE_LENGTH_MM / 2
# Section 1 Rule 1(f): yellow on the right-hand corner of the D seen from baulk, green on the
# left, brown on the middle of the baulk line, blue at the centre, pink midway between the blue
# and the top cushion, black 324 mm from the top cushion.
SPOTS_MM: dict[str, tuple[float, float]] = {
    "yellow": (_CX + D_RADIUS_MM, BAULK_LINE_MM),
    "green": (_CX - D_RADIUS_MM, BAULK_LINE_MM),
    "brown": (_CX, BAULK_LINE_MM),
    "blue": (_CX, _BLUE_Y),
    "pink": (_CX, (_BLUE_Y + TABLE_LENGTH_MM) / 2),
    "black": (_CX, TABLE_LENGTH_MM - BLACK_FROM_TOP_MM),
}

# Two balls closer than a diameter by more than this overlap; within it they touch.
_EPS_MM = 1e-6
TOUCH_TOLERANCE_MM = 1.0
# Sampling of the D for a white in hand: a square grid and the D's outline.
D_GRID_STEP_MM = 10.0
D_OUTLINE_STEP_MM = 5.0

Point = tuple[float, float]


@dataclass(frozen=True)
class SnookerCheck:
    """What the striker can see of the balls on.

    ``snookered``: no ball on can be hit at both extreme edges by a straight path (Section 2
    Rule 17): partly snookered counts. ``both_edges_blocked``: both extreme edges of every ball on
    are blocked. ``fully_snookered``: no ball on can be hit at all by a straight path (both edges
    and the centre of every ball on blocked). ``full_ball_path``: some ball on can be hit full
    in the face by a straight path (Section 3 Rule 14(d)). ``snookered_by``: the ball or balls
    that snooker the white (Iranian text, "snookered" notes 2-3: the obstructing ball nearest to
    the white; all at equal distance; none when several balls on are blocked by different
    balls). ``obstructing``: every ball not on that blocks some path. For a white in hand the
    three booleans hold over every placement in the D (sampled), and the two lists are empty.
    """

    snookered: bool
    fully_snookered: bool
    full_ball_path: bool
    both_edges_blocked: bool = False
    snookered_by: tuple[str, ...] = ()
    obstructing: tuple[str, ...] = ()


def _segment_distance(a: Point, b: Point, p: Point) -> float:
    ax, ay = a
    dx, dy = b[0] - ax, b[1] - ay
    L2 = dx * dx + dy * dy
    t = 0.0 if L2 == 0 else max(0.0, min(1.0, ((p[0] - ax) * dx + (p[1] - ay) * dy) / L2))
    return math.hypot(ax + t * dx - p[0], ay + t * dy - p[1])


def _blockers(start: Point, end: Point, obstacles: Mapping[str, Point]) -> list[str]:
    """Keys of the balls that stop a cue ball whose centre travels from ``start`` to ``end``."""
    return [
        k for k, p in obstacles.items()
        if _segment_distance(start, end, p) < BALL_DIAMETER_MM - _EPS_MM
    ]


def contact_points(cue: Point, target: Point) -> tuple[Point, Point, Point] | None:
    """Where the cue ball's centre is when it meets ``target``: at the left extreme edge, full in
    the face, and at the right extreme edge. None when the two balls touch or overlap (the white
    is then against the ball and every path to it is trivially clear)."""
    dx, dy = target[0] - cue[0], target[1] - cue[1]
    d = math.hypot(dx, dy)
    if d <= BALL_DIAMETER_MM + _EPS_MM:
        return None
    ux, uy = dx / d, dy / d
    full = (target[0] - ux * BALL_DIAMETER_MM, target[1] - uy * BALL_DIAMETER_MM)
    # The extreme edges: lines from the white tangent to the circle of radius one diameter
    # about the target; the cue ball's centre stops at the tangent point.
    alpha = math.asin(BALL_DIAMETER_MM / d)
    reach = math.sqrt(d * d - BALL_DIAMETER_MM * BALL_DIAMETER_MM)
    out = []
    for sign in (1.0, -1.0):
        c, s = math.cos(sign * alpha), math.sin(sign * alpha)
        out.append((cue[0] + reach * (c * ux - s * uy), cue[1] + reach * (s * ux + c * uy)))
    return out[0], full, out[1]


def _split(balls: Mapping[str, Point], on: Iterable[str]) -> tuple[
        dict[str, Point], dict[str, Point]]:
    """Balls on and the balls not on (the white excluded). ``on`` holds keys or classes."""
    wanted = set(on)
    targets, others = {}, {}
    for k, p in balls.items():
        c = class_of(k)
        if c == "white":
            continue
        (targets if k in wanted or c in wanted else others)[k] = (float(p[0]), float(p[1]))
    return targets, others


def _check_from(cue: Point, targets: Mapping[str, Point], others: Mapping[str, Point],
                stop_when_clear: bool) -> SnookerCheck:
    """Section 2 Rule 17 from one placement of the white."""
    snookered = True
    fully = True
    edges = True
    full_path = False
    nearest_per_target: list[tuple[str, ...]] = []
    obstructing: set[str] = set()
    for tp in targets.values():
        pts = contact_points(cue, tp)
        if pts is None:  # touching a ball on: it can be hit (played away from) both sides
            return SnookerCheck(False, False, True)
        left, full, right = pts
        bl, bf, br = (_blockers(cue, q, others) for q in (left, full, right))
        if not bf:
            full_path = True
        if not (bl and br):
            edges = False
        if not bl and not br:
            snookered = False
            fully = False
            if stop_when_clear and full_path:
                return SnookerCheck(False, False, True)
            continue
        if not (bl and bf and br):
            fully = False
        blocking = set(bl) | set(br)
        obstructing |= blocking
        dist = {k: math.dist(cue, others[k]) for k in blocking}
        near = min(dist.values())
        nearest_per_target.append(tuple(sorted(k for k in blocking if dist[k] - near < 1.0)))
    if not snookered:
        return SnookerCheck(False, False, full_path)
    by: tuple[str, ...] = ()
    if nearest_per_target and all(n == nearest_per_target[0] for n in nearest_per_target):
        by = nearest_per_target[0]
    return SnookerCheck(True, fully, full_path, edges, by, tuple(sorted(obstructing)))


def d_placements(balls: Mapping[str, Point] | None = None) -> list[Point]:
    """Placements of the white in the D (on or inside its line, Section 3 Rule 5): a grid every
    ``D_GRID_STEP_MM`` and the outline every ``D_OUTLINE_STEP_MM``, less those overlapping a ball
    on the table."""
    cx, cy = D_CENTRE_MM
    r = D_RADIUS_MM
    pts: list[Point] = []
    n = int(r // D_GRID_STEP_MM)
    for i in range(-n, n + 1):
        for j in range(0, n + 1):
            x, y = cx + i * D_GRID_STEP_MM, cy - j * D_GRID_STEP_MM
            if (x - cx) ** 2 + (y - cy) ** 2 <= r * r:
                pts.append((x, y))
    arc = int(math.pi * r // D_OUTLINE_STEP_MM)
    for k in range(arc + 1):
        a = math.pi * k / arc
        pts.append((cx + r * math.cos(a), cy - r * math.sin(a)))
    line = int(2 * r // D_OUTLINE_STEP_MM)
    for k in range(line + 1):
        pts.append((cx - r + 2 * r * k / line, cy))
    others = [] if balls is None else [
        p for k, p in balls.items() if class_of(k) != "white"
    ]
    return [p for p in pts if all(math.dist(p, o) >= BALL_DIAMETER_MM - _EPS_MM for o in others)]


def snooker_check(balls: Mapping[str, Point], on: Iterable[str], in_hand: bool = False
                  ) -> SnookerCheck:
    """Is the white snookered on the balls ``on`` (keys or classes)?

    Section 2 Rule 17: the white is snookered when the straight path to every ball on is
    obstructed, wholly or in part, by a ball not on; when at least one ball on can be hit at both
    extreme edges free of obstruction it is not snookered; with the white in hand it is snookered
    only when that holds from every position in the D; cushions never snooker. Section 3 Rule
    14(d): a full-ball path is a clear straight path to the centre of a ball on.

    ``balls`` maps keys to ``(x_mm, y_mm)`` and holds ``white`` unless ``in_hand``. Raises
    ValueError when the white is missing or no ball on is on the table.
    """
    targets, others = _split(balls, on)
    if not targets:
        raise ValueError("no ball on is on the table")
    if not in_hand:
        if "white" not in balls:
            raise ValueError("the white's position is needed unless it is in hand")
        w = balls["white"]
        return _check_from((float(w[0]), float(w[1])), targets, others, stop_when_clear=False)
    table = {k: v for k, v in balls.items() if class_of(k) != "white"}
    snookered = fully = edges = True
    full_path = False
    for p in d_placements(table):
        c = _check_from(p, targets, others, stop_when_clear=True)
        snookered &= c.snookered
        fully &= c.fully_snookered
        edges &= c.both_edges_blocked
        full_path |= c.full_ball_path
        if not snookered and full_path:
            break
    return SnookerCheck(snookered, fully and snookered, full_path, edges and snookered)


def is_snookered(balls: Mapping[str, Point], on: Iterable[str], in_hand: bool = False) -> bool:
    """Section 2 Rule 17 (see ``snooker_check``)."""
    return snooker_check(balls, on, in_hand).snookered


def full_ball_path_exists(balls: Mapping[str, Point], on: Iterable[str],
                          in_hand: bool = False) -> bool:
    """Section 3 Rule 14(d): a straight path to hit some ball on full in the face exists."""
    return snooker_check(balls, on, in_hand).full_ball_path


def touching(balls: Mapping[str, Point], tolerance_mm: float = TOUCH_TOLERANCE_MM
             ) -> tuple[str, ...]:
    """Section 3 Rule 8: keys of the balls the white is touching (centres within a diameter plus
    ``tolerance_mm``). Empty when the white is not on the table."""
    if "white" not in balls:
        return ()
    w = balls["white"]
    return tuple(sorted(
        k for k, p in balls.items()
        if k != "white" and math.dist(w, p) <= BALL_DIAMETER_MM + tolerance_mm
    ))


def _free_interval(x: float, y_from: float, y_to: float, occupied: Iterable[Point]) -> float | None:
    """Nearest ``y`` to ``y_from`` in the direction of ``y_to`` where a ball at ``(x, y)`` touches
    no ball in ``occupied`` (touching counts as occupied), or None."""
    up = y_to >= y_from
    bad = []
    for ox, oy in occupied:
        dx = abs(ox - x)
        if dx < BALL_DIAMETER_MM + TOUCH_TOLERANCE_MM:
            h = math.sqrt((BALL_DIAMETER_MM + TOUCH_TOLERANCE_MM) ** 2 - dx * dx)
            bad.append((oy - h, oy + h))
    y = y_from
    moved = True
    while moved:
        moved = False
        for lo, hi in bad:
            if lo < y < hi:
                y = hi if up else lo
                moved = True
    if (up and y > y_to) or (not up and y < y_to):
        return None
    return y


def spot_free(spot: Point, occupied: Iterable[Point]) -> bool:
    """Section 3 Rule 7(e): a spot is occupied when a ball placed on it would touch another."""
    return all(math.dist(spot, o) > BALL_DIAMETER_MM + TOUCH_TOLERANCE_MM for o in occupied)


def respot(colour: str, balls: Mapping[str, Point]) -> tuple[str | None, Point]:
    """Where ``colour`` is re-spotted among ``balls`` (keys to positions, the colour itself
    excluded by the caller).

    Section 3 Rule 7: on its own spot if free; else on the highest-value free spot; else as near
    as possible to its own spot on the line between that spot and the top cushion; failing that,
    as near as possible below its own spot on the same line. Returns the spot's name (None when
    not on a spot) and the position.
    """
    occupied = [(float(p[0]), float(p[1])) for k, p in balls.items() if k != colour]
    own = SPOTS_MM[colour]
    if spot_free(own, occupied):
        return colour, own
    for name in reversed(COLOURS):
        if spot_free(SPOTS_MM[name], occupied):
            return name, SPOTS_MM[name]
    top = TABLE_LENGTH_MM - BALL_RADIUS_MM
    y = _free_interval(own[0], own[1], top, occupied)
    if y is None:
        y = _free_interval(own[0], own[1], BALL_RADIUS_MM, occupied)
    if y is None:
        raise ValueError(f"no room to re-spot the {colour}")
    return None, (own[0], y)
