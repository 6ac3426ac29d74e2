"""Simple synthetic table images from a known camera, for testing the calibration finder.

The scene is flat-shaded: floor, wooden rail, cloth-covered cushions (nose at
``cushion_nose_height_mm``, an undercut face with a shadowed crease at its foot where the camera
sees it from the playing side), the bed, pockets, baulk line, D, spots and a few balls. Polygons
are drawn with sub-pixel precision on a supersampled canvas and area-averaged down, so edges
carry true sub-pixel information. (``tracker.sim.render`` is the ray-cast renderer with light,
shadows and texture; this one is quick and dependency-free.)
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from calibration.camera import Camera
from calibration.specs import SNOOKER, SnookerTableSpec

BALL_BGR = {
    "white": (235, 240, 240), "red": (30, 30, 190), "yellow": (40, 220, 235),
    "green": (60, 120, 20), "brown": (30, 60, 110), "blue": (190, 90, 20),
    "pink": (170, 140, 245), "black": (20, 20, 20),
}
CLOTH_BGR = {
    "green": ((40, 150, 35), (35, 125, 30)),
    "blue": ((170, 100, 30), (150, 85, 25)),
    "grey": ((120, 125, 125), (100, 104, 104)),
}


# Undercut of the cushion face and the width of the shadowed crease at its foot (mm); the same
# figures the calibration finder assumes.
UNDERCUT_MM = 6.0
CREASE_MM = 3.0


def _rect_outline(x0, y0, x1, y1, step_mm=20.0) -> np.ndarray:
    """Closed rectangle outline densely sampled (so distortion bends its sides). (N, 2) mm."""
    pts = []
    for (ax, ay), (bx, by) in (((x0, y0), (x1, y0)), ((x1, y0), (x1, y1)),
                               ((x1, y1), (x0, y1)), ((x0, y1), (x0, y0))):
        n = max(2, int(math.hypot(bx - ax, by - ay) / step_mm))
        s = np.linspace(0, 1, n, endpoint=False)
        pts.append(np.c_[ax + s * (bx - ax), ay + s * (by - ay)])
    return np.vstack(pts)


def _circle(cx, cy, r, n=48) -> np.ndarray:
    a = np.linspace(0, 2 * np.pi, n, endpoint=False)
    return np.c_[cx + r * np.cos(a), cy + r * np.sin(a)]


class _Canvas:
    """A supersampled BGR canvas seen through ``camera``: polygons on horizontal planes of the
    table drawn with sub-pixel precision, then area-averaged down to the camera's size."""

    SHIFT = 4  # fixed-point bits of the polygon vertices

    def __init__(self, camera: Camera, supersample: int, background=(35, 30, 70)):
        w, h = camera.image_size
        self.camera, self.ss = camera, int(supersample)
        self.pixels = np.empty((h * self.ss, w * self.ss, 3), np.uint8)
        self.pixels[:] = background

    def to_canvas(self, points_mm, z_mm) -> np.ndarray:
        """Table points at height ``z_mm`` in front of the camera -> canvas px (fixed point)."""
        camera, ss = self.camera, self.ss
        pts = np.asarray(points_mm, float)
        cam = pts @ camera.R[:, :2].T + camera.R[:, 2] * z_mm + camera.t
        keep = cam[:, 2] > 1.0
        px = camera.project(np.c_[pts[keep], np.full(keep.sum(), z_mm)])
        return (px * ss + (ss - 1) / 2) * (1 << self.SHIFT)

    def fill(self, points_mm, z_mm, colour) -> None:
        poly = np.round(self.to_canvas(points_mm, z_mm)).astype(np.int64)
        if len(poly) >= 3 and np.all(np.abs(poly) < 2**30):
            cv2.fillPoly(self.pixels, [poly.astype(np.int32)], colour, cv2.LINE_8, self.SHIFT)

    def fill_px(self, px, colour) -> None:
        """A polygon given in image px."""
        ss = self.ss
        poly = np.round((px * ss + (ss - 1) / 2) * (1 << self.SHIFT)).astype(np.int32)
        cv2.fillPoly(self.pixels, [poly], colour, cv2.LINE_8, self.SHIFT)

    def ball(self, xy_mm, radius_mm, colour) -> None:
        camera, ss = self.camera, self.ss
        centre = np.array([[xy_mm[0], xy_mm[1], radius_mm]])
        c = camera.project(centre)[0] * ss + (ss - 1) / 2
        r = float(camera.ball_radius_px(centre, radius_mm)[0]) * ss
        cv2.circle(self.pixels, tuple(np.round(c * 16).astype(int)), int(round(r * 16)), colour,
                   -1, cv2.LINE_8, 4)

    def image(self, noise: float, seed: int) -> np.ndarray:
        """The canvas at the camera's size, lit softer towards the frame's edges, with sensor
        noise: (h, w, 3) uint8."""
        w, h = self.camera.image_size
        img = cv2.resize(self.pixels, (w, h), interpolation=cv2.INTER_AREA).astype(np.float32)
        # Soft light falling off towards the edges of the frame.
        u = (np.arange(w) - w / 2) / w
        v = (np.arange(h) - h / 2) / h
        img *= (1.0 - 0.25 * (v[:, None] ** 2 + u[None, :] ** 2))[..., None]
        if noise > 0:
            img += np.random.default_rng(seed).normal(0, noise, img.shape).astype(np.float32)
        return np.clip(img, 0, 255).astype(np.uint8)


def _draw_bed(canvas: _Canvas, W: float, L: float, nose_z: float, bed) -> None:
    """The bed within the cushion noses (W x L mm), with each cushion's undercut face and the
    shadowed crease at its foot where the camera sees the face from the playing side."""
    camera, fill = canvas.camera, canvas.fill
    u = UNDERCUT_MM
    face_bgr = tuple(min(255, int(1.06 * c)) for c in bed)
    crease_bgr = tuple(int(0.55 * c) for c in bed)
    # Each side: (inward normal, nose line's two ends). The undercut face shows between its foot
    # on the cloth and the nose when the camera sees it from the playing side.
    sides = {
        "baulk": ((0.0, 1.0), (0.0, 0.0), (W, 0.0)),
        "right": ((-1.0, 0.0), (W, 0.0), (W, L)),
        "top": ((0.0, -1.0), (W, L), (0.0, L)),
        "left": ((1.0, 0.0), (0.0, L), (0.0, 0.0)),
    }
    outline, creased = [], []
    for n, a, b in sides.values():
        n, a, b = np.asarray(n), np.asarray(a), np.asarray(b)
        mid = 0.5 * (a + b)
        px = camera.project(np.array([[*mid, nose_z], [*(mid - u * n), 0.0],
                                      [*(mid + 10 * n), nose_z]]))
        face_seen = (px[1] - px[0]) @ (px[2] - px[0]) > 0
        along = (b - a) / np.hypot(*(b - a))
        t = np.linspace(-u, np.hypot(*(b - a)) + u, 80)[:, None]
        line = a + t * along
        if face_seen:
            foot = line - u * n
            fill(np.r_[foot, line[::-1]], 0.0, face_bgr)  # footprint of the face ...
            face = np.r_[camera.project(np.c_[foot, np.zeros(len(foot))]),
                         camera.project(np.c_[line[::-1], np.full(len(line), nose_z)])]
            canvas.fill_px(face, face_bgr)  # ... and the face itself
            outline.append(np.c_[foot, np.zeros(len(foot))])
            creased.append((n, a, b))
        else:
            outline.append(np.c_[line, np.full(len(line), nose_z)])
    canvas.fill_px(camera.project(np.vstack(outline)), bed)
    for n, a, b in creased:
        along = (b - a) / np.hypot(*(b - a))
        t = np.linspace(0, np.hypot(*(b - a)), 80)[:, None]
        line = a + t * along - u * n
        fill(np.r_[line, (line + CREASE_MM * n)[::-1]], 0.0, crease_bgr)


def render_table(
    camera: Camera,
    table: SnookerTableSpec = SNOOKER,
    balls: dict[str, tuple[float, float]] | None = None,
    cloth: str = "green",
    supersample: int = 3,
    noise: float = 2.0,
    seed: int = 0,
) -> np.ndarray:
    """Render the table seen by ``camera``. ``balls`` maps a label (its colour is the text before
    any ``_``) to a table position in mm. Returns a (h, w, 3) uint8 BGR image."""
    canvas = _Canvas(camera, supersample)
    fill = canvas.fill
    W, L = table.width_mm, table.length_mm
    d, rail = table.cushion_depth_mm, table.rail_width_mm
    top_z = table.cushion_nose_height_mm + 7.0
    bed, cushion = CLOTH_BGR[cloth]
    fill(_rect_outline(-d - rail, -d - rail, W + d + rail, L + d + rail), top_z, (25, 45, 95))
    fill(_rect_outline(-d, -d, W + d, L + d), top_z, cushion)
    _draw_bed(canvas, W, L, table.cushion_nose_height_mm, bed)
    line_bgr = tuple(int(0.55 * c + 0.45 * 230) for c in bed)
    half = 1.5  # painted lines are about 3 mm wide
    b = table.baulk_line_mm
    fill(_rect_outline(0, b - half, W, b + half), 0.0, line_bgr)
    a = np.linspace(np.pi, 2 * np.pi, 90)
    cx = table.centre_x_mm
    arc = np.r_[np.c_[cx + (table.d_radius_mm + half) * np.cos(a),
                      b + (table.d_radius_mm + half) * np.sin(a)],
                np.c_[cx + (table.d_radius_mm - half) * np.cos(a[::-1]),
                      b + (table.d_radius_mm - half) * np.sin(a[::-1])]]
    fill(arc, 0.0, line_bgr)
    for x, y in table.spots_mm.values():
        fill(_circle(x, y, 5.0, 16), 0.0, line_bgr)
    for p in table.pockets.values():
        px, py = p.point_mm
        corner = p.name not in ("middle_left", "middle_right")
        r = 70.0 if corner else 58.0
        fill(_circle(px, py, r), table.cushion_nose_height_mm, (12, 12, 12))
    for label, xy in (balls or {}).items():
        canvas.ball(xy, table.ball_radius_mm, BALL_BGR[label.split("_")[0]])
    return canvas.image(noise, seed)


def scene_cameras(table: SnookerTableSpec = SNOOKER) -> dict[str, Camera]:
    """The three reference views: overhead 1080p with barrel distortion, tilted, broadcast."""
    W, L = table.width_mm, table.length_mm
    mid = (W / 2, L / 2, 0.0)
    overhead = Camera.look_at((W / 2, L / 2, 3000.0), mid, (1920, 1080), hfov_deg=72.0,
                              dist=(-0.15, 0.02, 0, 0, 0), up=(-1.0, 0.0, 0.0))
    tilt = math.radians(12.0)
    eye = (W / 2 + 3200 * math.sin(tilt), L / 2, 3200 * math.cos(tilt))
    tilted = Camera.look_at(eye, mid, (1920, 1080), hfov_deg=75.0, up=(-1.0, 0.0, 0.0))
    broadcast = Camera.look_at((W / 2, -1900.0, 2600.0), (W / 2, 1300.0, 0.0), (1280, 720),
                               hfov_deg=56.0, up=(0.0, 1.0, 0.0))
    return {"overhead": overhead, "tilted": tilted, "broadcast": broadcast}


def scene_balls(table: SnookerTableSpec = SNOOKER) -> dict[str, tuple[float, float]]:
    """A mid-frame layout: colours on their spots, a few reds, the white in baulk."""
    balls = {c: xy for c, xy in table.spots_mm.items()}
    balls["white"] = (table.centre_x_mm - 120, table.baulk_line_mm - 180)
    for i, (x, y) in enumerate(((400, 2600), (1300, 2900), (900, 3100), (1700, 1500),
                                (60, 2000))):
        balls[f"red_{i}"] = (float(x), float(y))
    return balls
