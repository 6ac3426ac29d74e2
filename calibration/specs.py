"""Frozen table specifications in millimetres.

Coordinates (the project's contract): millimetres on the playing surface, origin at the
baulk-left corner of the cushion noses, seen from behind the baulk cushion; ``x`` runs along
the baulk cushion to the right, ``y`` from the baulk cushion towards the top cushion, ``z`` up
from the cloth.

Sources:
- WPBSA "Official Rules of the Games of Snooker and English Billiards" (September 2024), Section 1
  (Equipment), as quoted in ``shared/seeds/003`` (Arabic) and the Iranian federation's text
  ``shared/seeds/000`` (Persian), chapter 1.
- WPA "Equipment specifications" (2024) for the pool tables.

The WPBSA pocket templates are issued only to approved fitters and are not published; the pocket
figures below are those of template-cut championship tables as measured and reported publicly
(mouth between the cushion noses' knuckles), and are marked as such.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np

BALL_CLASSES = ("white", "red", "yellow", "green", "brown", "blue", "pink", "black")
COLOURS = ("yellow", "green", "brown", "blue", "pink", "black")
# Section 3 Rule 1(a): red 1, yellow 2, green 3, brown 4, blue 5, pink 6, black 7.
BALL_VALUES = {"red": 1, "yellow": 2, "green": 3, "brown": 4, "blue": 5, "pink": 6, "black": 7}
POCKETS = ("baulk_left", "baulk_right", "middle_left", "middle_right", "top_left", "top_right")
CUSHIONS = ("baulk", "top", "left_baulk", "left_top", "right_baulk", "right_top")


@dataclass(frozen=True)
class Pocket:
    """One pocket, in table mm.

    ``point_mm`` is the pocket's reference point on the cushion-nose outline (the corner where
    the two nose lines meet, or the middle of a middle pocket's mouth); ``knuckles_mm`` are the two
    jaw points where the cushion nose is cut away; ``fall_centre_mm`` / ``fall_radius_mm`` is the
    hole a ball drops through once its centre is over it.
    """

    name: str
    point_mm: tuple[float, float]
    knuckles_mm: tuple[tuple[float, float], tuple[float, float]]
    fall_centre_mm: tuple[float, float]
    fall_radius_mm: float

    @property
    def mouth_mm(self) -> float:
        (ax, ay), (bx, by) = self.knuckles_mm
        return math.hypot(ax - bx, ay - by)


def _six_pockets(w: float, L: float, names: tuple[str, ...], corner_mouth: float,
                 side_mouth: float, corner_fall: float, side_fall: float) -> dict[str, Pocket]:
    """A six-pocket table's pockets, ``names`` in the order near-left, near-right, middle-left,
    middle-right, far-left, far-right."""
    a = corner_mouth / math.sqrt(2)  # knuckle offset along each nose line
    m = side_mouth / 2
    # Corner fall centre sits outside the corner on the diagonal so a ball rolling straight
    # down the diagonal falls once its centre is past the mouth line.
    c = corner_fall / math.sqrt(2) * 0.55
    mf = side_fall * 0.6
    near_l, near_r, mid_l, mid_r, far_l, far_r = names
    out = {}
    for name, (px, py), (sx, sy) in ((near_l, (0.0, 0.0), (1, 1)), (near_r, (w, 0.0), (-1, 1)),
                                     (far_l, (0.0, L), (1, -1)), (far_r, (w, L), (-1, -1))):
        out[name] = Pocket(name, (px, py), ((px + sx * a, py), (px, py + sy * a)),
                           (px - sx * c, py - sy * c), corner_fall)
    for name, px, sx in ((mid_l, 0.0, 1), (mid_r, w, -1)):
        py = L / 2
        out[name] = Pocket(name, (px, py), ((px, py - m), (px, py + m)), (px - sx * mf, py),
                           side_fall)
    return {n: out[n] for n in names}


class _Surface:
    """What every table spec derives from its playing surface and its balls."""

    width_mm: float
    ball_diameter_mm: float

    @property
    def ball_radius_mm(self) -> float:
        return self.ball_diameter_mm / 2

    @property
    def centre_x_mm(self) -> float:
        return self.width_mm / 2


@dataclass(frozen=True)
class SnookerTableSpec(_Surface):
    """A full-size snooker table (WPBSA Section 1 Rule 1) with its balls (Rule 2)."""

    # Rule 1(a): playing area within the cushion faces, 11 ft 8.5 in x 5 ft 10 in.
    length_mm: float = 3569.0
    width_mm: float = 1778.0
    # Rule 1(d): baulk line 29 in from the face of the baulk cushion.
    baulk_line_mm: float = 737.0
    # Rule 1(e): the D, a semicircle in baulk centred on the baulk line, radius 11.5 in.
    d_radius_mm: float = 292.0
    # Rule 1(f): the black spot 12.75 in from the face of the top cushion.
    black_from_top_mm: float = 324.0
    # Rule 2: balls of 52.5 mm diameter (+/- 0.05 mm).
    ball_diameter_mm: float = 52.5
    # Rule 1(b): 2 ft 10 in from the floor to the top of the cushion rail (used by the renderer).
    height_mm: float = 864.0
    # Not in the rules: nose height ~ 0.63 of a ball diameter on modern cushions.
    cushion_nose_height_mm: float = 33.0
    # Not in the rules: depth of the rubber from nose to rail, and the wooden rail's width.
    cushion_depth_mm: float = 50.0
    rail_width_mm: float = 90.0
    # Template-cut championship tables (WPBSA template, not published): corner mouth ~ 3 3/8 in
    # between the knuckles across the diagonal, middle mouth ~ 4 1/8 in along the side cushion.
    corner_mouth_mm: float = 86.0
    middle_mouth_mm: float = 105.0
    corner_fall_radius_mm: float = 44.0
    middle_fall_radius_mm: float = 46.0
    # Section 3 Rule 2 (position of balls): 15 reds at the start (6 or 10 in the short forms).
    reds: int = 15

    @cached_property
    def spots_mm(self) -> dict[str, tuple[float, float]]:
        """Rule 1(f): the six colour spots. Yellow on the right of the D seen from baulk."""
        cx = self.centre_x_mm
        blue_y = self.length_mm / 2
        return {
            "yellow": (cx + self.d_radius_mm, self.baulk_line_mm),
            "green": (cx - self.d_radius_mm, self.baulk_line_mm),
            "brown": (cx, self.baulk_line_mm),
            "blue": (cx, blue_y),
            "pink": (cx, (blue_y + self.length_mm) / 2),
            "black": (cx, self.length_mm - self.black_from_top_mm),
        }

    @cached_property
    def pockets(self) -> dict[str, Pocket]:
        return _six_pockets(self.width_mm, self.length_mm, POCKETS, self.corner_mouth_mm,
                            self.middle_mouth_mm, self.corner_fall_radius_mm,
                            self.middle_fall_radius_mm)

    @cached_property
    def cushions_mm(self) -> dict[str, tuple[tuple[float, float], tuple[float, float]]]:
        """Each cushion's nose as a segment between the knuckles of the pockets at its ends."""
        p = self.pockets
        k = {n: p[n].knuckles_mm for n in POCKETS}
        return {
            "baulk": (k["baulk_left"][0], k["baulk_right"][0]),
            "top": (k["top_left"][0], k["top_right"][0]),
            "left_baulk": (k["baulk_left"][1], k["middle_left"][0]),
            "left_top": (k["middle_left"][1], k["top_left"][1]),
            "right_baulk": (k["baulk_right"][1], k["middle_right"][0]),
            "right_top": (k["middle_right"][1], k["top_right"][1]),
        }

    @cached_property
    def red_rack_mm(self) -> np.ndarray:
        """Section 3 Rule 2(a): reds in a tight triangle, apex as near the pink as possible
        without touching it, base parallel to the top cushion. Shape (reds, 2).

        Six and ten reds form triangles of 3 and 4 rows."""
        rows = {15: 5, 10: 4, 6: 3}[self.reds]
        d = self.ball_diameter_mm
        gap = 0.5  # "as near as possible without touching"
        apex_y = self.spots_mm["pink"][1] + d + gap
        pts = []
        for r in range(rows):
            y = apex_y + r * d * math.sqrt(3) / 2
            for i in range(r + 1):
                pts.append((self.centre_x_mm + (i - r / 2) * d, y))
        return np.array(pts, dtype=float)

    def landmarks_mm(self) -> dict[str, tuple[float, float]]:
        """Named points on the cloth plane for calibration: corners, pocket points, spots and the
        ends of the baulk line and of the D."""
        w, b = self.width_mm, self.baulk_line_mm
        cx = self.centre_x_mm
        pts = {f"pocket_{n}": p.point_mm for n, p in self.pockets.items()}
        pts.update({f"spot_{n}": xy for n, xy in self.spots_mm.items()})
        pts.update({
            "baulk_line_left": (0.0, b),
            "baulk_line_right": (w, b),
            "d_bottom": (cx, b - self.d_radius_mm),
        })
        return pts

    def in_d(self, x_mm: float, y_mm: float) -> bool:
        """Section 2 Rule 7 ("in-hand"): the white is placed in the D, on or inside its line."""
        cx, b = self.centre_x_mm, self.baulk_line_mm
        return y_mm <= b and (x_mm - cx) ** 2 + (y_mm - b) ** 2 <= self.d_radius_mm ** 2

    def ball_values(self) -> dict[str, int]:
        return dict(BALL_VALUES)


# Pool (WPA): the cue ball and fifteen object balls by number; 1-7 solids, 8 black, 9-15 stripes
# of the colours of 1-7 on a white band.
POOL_BALLS = ("cue",) + tuple(str(n) for n in range(1, 16))
POOL_POCKETS = ("head_left", "head_right", "side_left", "side_right", "foot_left", "foot_right")
POOL_CUSHIONS = ("head", "foot", "left_head", "left_foot", "right_head", "right_foot")
POOL_COLOURS = {1: "yellow", 2: "blue", 3: "red", 4: "purple", 5: "orange", 6: "green",
                7: "maroon", 8: "black"}


def pool_kind(ball: str) -> str:
    """A pool ball's kind: ``cue``, ``solid`` (1-7), ``eight`` or ``stripe`` (9-15)."""
    if ball == "cue":
        return "cue"
    n = int(ball)
    if not 1 <= n <= 15:
        raise ValueError(f"no pool ball {ball!r}")
    return "solid" if n < 8 else "eight" if n == 8 else "stripe"


def pool_colour(ball: str) -> str:
    """The colour of a pool ball's face (a stripe's band): ``white`` for the cue ball."""
    if ball == "cue":
        return "white"
    n = int(ball)
    return POOL_COLOURS[n if n <= 8 else n - 8]


@dataclass(frozen=True)
class PoolTableSpec(_Surface):
    """A WPA pocket-billiards table (WPA equipment specifications, "Playing surface", "Pockets",
    "Sights" and "Table markings"), in the snooker axes: origin at the head-left corner of the
    cushion noses seen from behind the head cushion, ``x`` along the head cushion to the right,
    ``y`` from the head cushion towards the foot cushion. The head cushion plays the part of
    snooker's baulk cushion."""

    name: str
    length_mm: float
    width_mm: float
    ball_diameter_mm: float = 57.15  # WPA: 2 1/4 in (+/- 0.005 in)
    corner_mouth_mm: float = 124.0  # WPA: corner mouth 4 7/8 - 5 1/8 in
    side_mouth_mm: float = 137.0  # WPA: side mouth 5 3/8 - 5 5/8 in
    cushion_nose_height_mm: float = 36.5  # WPA: 62.5-64.5 % of ball diameter
    # WPA: sights 3 11/16 in from the cushion nose to their centres.
    sight_offset_mm: float = 93.7
    # WPA: bed height 29 1/4 - 31 in to the top of the rail.
    height_mm: float = 760.0
    # Not in the rules: rubber depth from nose to rail, and the rail's width (WPA: 4 - 7 1/2 in
    # for both together).
    cushion_depth_mm: float = 50.0
    rail_width_mm: float = 110.0
    # Not in the rules: the hole a ball falls through once its centre is over it.
    corner_fall_radius_mm: float = 60.0
    side_fall_radius_mm: float = 62.0

    @property
    def head_string_mm(self) -> float:
        """WPA "Table markings": the head string is a quarter of the length from the head."""
        return self.length_mm / 4

    @property
    def foot_spot_mm(self) -> tuple[float, float]:
        return (self.width_mm / 2, self.length_mm * 3 / 4)

    @property
    def head_spot_mm(self) -> tuple[float, float]:
        return (self.width_mm / 2, self.length_mm / 4)

    @property
    def spots_mm(self) -> dict[str, tuple[float, float]]:
        """The head spot, the centre spot and the foot spot."""
        return {"head": self.head_spot_mm, "centre": (self.width_mm / 2, self.length_mm / 2),
                "foot": self.foot_spot_mm}

    @property
    def long_string_mm(self) -> tuple[tuple[float, float], tuple[float, float]]:
        """WPA "Table markings": the long string, from the foot spot to the foot cushion, on which
        balls are re-spotted."""
        return (self.foot_spot_mm, (self.width_mm / 2, self.length_mm))

    def in_kitchen(self, x_mm: float, y_mm: float) -> bool:
        """Behind the head string (the kitchen): where ball in hand is placed after a scratch on
        the break in some games, centre on or behind the string."""
        return 0.0 <= x_mm <= self.width_mm and 0.0 <= y_mm <= self.head_string_mm

    @cached_property
    def sights_mm(self) -> np.ndarray:
        """WPA "Sights": the 18 diamonds on the rail caps, 3 along each short rail and 6 along
        each long rail (the long rails' quarter points and the side pockets' lines carry none),
        set back ``sight_offset_mm`` from the cushion noses. Shape (18, 2), table mm."""
        w, L, o = self.width_mm, self.length_mm, self.sight_offset_mm
        pts = [(w * i / 4, -o) for i in (1, 2, 3)] + [(w * i / 4, L + o) for i in (1, 2, 3)]
        for j in (1, 2, 3, 5, 6, 7):
            pts += [(-o, L * j / 8), (w + o, L * j / 8)]
        return np.array(pts, dtype=float)

    @cached_property
    def pockets(self) -> dict[str, Pocket]:
        return _six_pockets(self.width_mm, self.length_mm, POOL_POCKETS, self.corner_mouth_mm,
                            self.side_mouth_mm, self.corner_fall_radius_mm,
                            self.side_fall_radius_mm)

    @cached_property
    def cushions_mm(self) -> dict[str, tuple[tuple[float, float], tuple[float, float]]]:
        """Each cushion's nose as a segment between the knuckles of the pockets at its ends."""
        k = {n: p.knuckles_mm for n, p in self.pockets.items()}
        return {
            "head": (k["head_left"][0], k["head_right"][0]),
            "foot": (k["foot_left"][0], k["foot_right"][0]),
            "left_head": (k["head_left"][1], k["side_left"][0]),
            "left_foot": (k["side_left"][1], k["foot_left"][1]),
            "right_head": (k["head_right"][1], k["side_right"][0]),
            "right_foot": (k["side_right"][1], k["foot_right"][1]),
        }

    def rack_mm(self, game: str) -> dict[str, tuple[float, float]]:
        """The balls' places in a tight rack, apex on the foot spot (WPA general rules and the
        games' racking rules), in a canonical order each game's rules allow: 8-ball and 14.1 a
        triangle of 15 (the 8 in the middle of the third row, a solid and a stripe at the back
        corners), 9-ball a diamond of 9 (1 at the apex, 9 in the middle), 10-ball a triangle of
        10 (1 at the apex, 10 in the middle of the third row)."""
        d = self.ball_diameter_mm
        fx, fy = self.foot_spot_mm

        def place(row: int, i: int) -> tuple[float, float]:
            return (fx + (i - row / 2) * d, fy + row * d * math.sqrt(3) / 2)

        if game in ("8ball", "14.1"):
            order = [[1], [9, 2], [10, 8, 3], [11, 4, 12, 5], [6, 13, 7, 14, 15]]
            return {str(n): place(r, i) for r, row in enumerate(order) for i, n in enumerate(row)}
        if game == "10ball":
            order = [[1], [2, 3], [4, 10, 5], [6, 7, 8, 9]]
            return {str(n): place(r, i) for r, row in enumerate(order) for i, n in enumerate(row)}
        if game == "9ball":
            rows = [[1], [2, 3], [4, 9, 5], [6, 7], [8]]
            out = {}
            for r, row in enumerate(rows):
                k = r if r <= 2 else 4 - r  # the diamond narrows again after its middle row
                for i, n in enumerate(row):
                    out[str(n)] = (fx + (i - k / 2) * d, fy + r * d * math.sqrt(3) / 2)
            return out
        raise ValueError(f"no rack for {game!r}")

    def landmarks_mm(self) -> dict[str, tuple[float, float]]:
        """Named points on the cloth plane: pocket points and spots (the sights lie on the rail
        caps, above the cloth, and are in ``sights_mm``)."""
        pts = {f"pocket_{n}": p.point_mm for n, p in self.pockets.items()}
        pts.update({f"spot_{n}": xy for n, xy in self.spots_mm.items()})
        return pts


# WPA: playing surface 100 x 50 in (9 ft), 88 x 44 in (8 ft), 78 x 39 in (7 ft), +/- 1/8 in.
POOL_9FT = PoolTableSpec("9ft", length_mm=2540.0, width_mm=1270.0)
POOL_8FT = PoolTableSpec("8ft", length_mm=2235.2, width_mm=1117.6)
POOL_7FT = PoolTableSpec("7ft", length_mm=1981.2, width_mm=990.6)
POOL_TABLES = {t.name: t for t in (POOL_9FT, POOL_8FT, POOL_7FT)}

SNOOKER = SnookerTableSpec()
