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


@dataclass(frozen=True)
class SnookerTableSpec:
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

    @property
    def ball_radius_mm(self) -> float:
        return self.ball_diameter_mm / 2

    @property
    def centre_x_mm(self) -> float:
        return self.width_mm / 2

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
        w, L = self.width_mm, self.length_mm
        a = self.corner_mouth_mm / math.sqrt(2)  # knuckle offset along each nose line
        m = self.middle_mouth_mm / 2
        # Corner fall centre sits outside the corner on the diagonal so a ball rolling straight
        # down the diagonal falls once its centre is past the mouth line.
        c = self.corner_fall_radius_mm / math.sqrt(2) * 0.55
        mf = self.middle_fall_radius_mm * 0.6
        out = {}
        for name, (px, py), (sx, sy) in (
            ("baulk_left", (0.0, 0.0), (1, 1)),
            ("baulk_right", (w, 0.0), (-1, 1)),
            ("top_left", (0.0, L), (1, -1)),
            ("top_right", (w, L), (-1, -1)),
        ):
            out[name] = Pocket(
                name,
                (px, py),
                ((px + sx * a, py), (px, py + sy * a)),
                (px - sx * c, py - sy * c),
                self.corner_fall_radius_mm,
            )
        for name, px, sx in (("middle_left", 0.0, 1), ("middle_right", w, -1)):
            py = L / 2
            out[name] = Pocket(
                name, (px, py), ((px, py - m), (px, py + m)), (px - sx * mf, py),
                self.middle_fall_radius_mm,
            )
        return {n: out[n] for n in POCKETS}

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


@dataclass(frozen=True)
class PoolTableSpec:
    """A WPA pocket-billiards table (WPA equipment specifications, "Playing surface" and
    "Pockets"), in the snooker axes: x across the table, y from the head cushion to the foot
    cushion; the head string is a quarter of the length from the head cushion."""

    name: str
    length_mm: float
    width_mm: float
    ball_diameter_mm: float = 57.15  # WPA: 2 1/4 in (+/- 0.005 in)
    corner_mouth_mm: float = 124.0  # WPA: corner mouth 4 7/8 - 5 1/8 in
    side_mouth_mm: float = 137.0  # WPA: side mouth 5 3/8 - 5 5/8 in
    cushion_nose_height_mm: float = 36.5  # WPA: 62.5-64.5 % of ball diameter

    @property
    def head_string_mm(self) -> float:
        return self.length_mm / 4

    @property
    def foot_spot_mm(self) -> tuple[float, float]:
        return (self.width_mm / 2, self.length_mm * 3 / 4)


# WPA: playing surface 100 x 50 in (9 ft), 88 x 44 in (8 ft), 78 x 39 in (7 ft), +/- 1/8 in.
POOL_9FT = PoolTableSpec("9ft", length_mm=2540.0, width_mm=1270.0)
POOL_8FT = PoolTableSpec("8ft", length_mm=2235.2, width_mm=1117.6)
POOL_7FT = PoolTableSpec("7ft", length_mm=1981.2, width_mm=990.6)

SNOOKER = SnookerTableSpec()
