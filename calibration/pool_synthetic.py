"""Synthetic pool tables from a known camera, for testing the pool table finder.

Flat-shaded as ``calibration.synthetic`` draws a snooker table (and with its canvas and its bed):
floor, rail of wood or black laminate with its 18 sights, cloth-covered cushions, the bed with
each cushion's undercut face where the camera sees it, six pockets, the foot spot's mark and a
few balls (a stripe drawn as a white ball with its colour across the middle).
"""

from __future__ import annotations

import math

import numpy as np

from calibration.camera import Camera
from calibration.specs import POOL_9FT, PoolTableSpec, pool_colour, pool_kind
from calibration.synthetic import _Canvas, _circle, _draw_bed, _rect_outline

# Cloth colours (bed, cushion tops a shade darker), BGR.
POOL_CLOTH_BGR = {
    "blue": ((175, 120, 30), (150, 100, 25)),
    "green": ((60, 140, 20), (50, 118, 16)),
    "red": ((40, 35, 150), (32, 28, 125)),
    "grey": ((115, 112, 108), (96, 94, 90)),
    "tan": ((110, 160, 190), (92, 135, 160)),
}
RAIL_BGR = {"wood": (30, 60, 110), "black": (28, 28, 30)}
SIGHT_BGR = (225, 232, 235)
POOL_BALL_BGR = {
    "white": (235, 240, 240), "yellow": (30, 200, 240), "blue": (160, 60, 20),
    "red": (30, 30, 200), "purple": (110, 40, 80), "orange": (20, 110, 240),
    "green": (50, 110, 20), "maroon": (30, 30, 110), "black": (20, 20, 20),
}
# The rail caps' height above the cushion nose, as the finder takes it.
RAIL_RISE_MM = 7.0


def render_pool_table(
    camera: Camera,
    table: PoolTableSpec = POOL_9FT,
    balls: dict[str, tuple[float, float]] | None = None,
    cloth: str = "blue",
    rail: str = "wood",
    supersample: int = 3,
    noise: float = 2.0,
    seed: int = 0,
    foot_spot: bool = True,
) -> np.ndarray:
    """Render the pool table seen by ``camera``. ``balls`` maps a ball (``cue``, ``1`` ..
    ``15``) to its table position in mm; ``foot_spot``: the foot spot's mark, a disc an inch
    across, drawn. Returns a (h, w, 3) uint8 BGR image."""
    canvas = _Canvas(camera, supersample, background=(60, 62, 58))
    fill = canvas.fill
    W, L = table.width_mm, table.length_mm
    d, width = table.cushion_depth_mm, table.rail_width_mm
    nose_z = table.cushion_nose_height_mm
    top_z = nose_z + RAIL_RISE_MM
    bed, cushion = POOL_CLOTH_BGR[cloth]
    fill(_rect_outline(-d - width, -d - width, W + d + width, L + d + width), top_z,
         RAIL_BGR[rail])
    fill(_rect_outline(-d, -d, W + d, L + d), top_z, cushion)
    _draw_bed(canvas, W, L, nose_z, bed)
    for x, y in table.sights_mm:
        along_x = abs(y) < 1 or abs(y - L) < 1  # on a short rail: the diamond lies along x
        a, b = (14.0, 7.0) if along_x else (7.0, 14.0)
        fill(np.array([[x - a, y], [x, y - b], [x + a, y], [x, y + b]]), top_z, SIGHT_BGR)
    if foot_spot:
        fx, fy = table.foot_spot_mm
        fill(_circle(fx, fy, 12.5, 24), 0.0, tuple(int(0.5 * c + 0.5 * 230) for c in bed))
    for p in table.pockets.values():
        px, py = p.point_mm
        side = p.name.startswith("side")
        out = (-1.0 if px == 0 else 1.0) * 22.0 if side else 0.0
        fill(_circle(px + out, py, 66.0 if side else 64.0), nose_z, (12, 12, 12))
    for ball, xy in (balls or {}).items():
        colour = POOL_BALL_BGR[pool_colour(ball)]
        if pool_kind(ball) == "stripe":
            canvas.ball(xy, table.ball_radius_mm, POOL_BALL_BGR["white"])
            canvas.ball(xy, 0.6 * table.ball_radius_mm, colour)
        else:
            canvas.ball(xy, table.ball_radius_mm, colour)
    return canvas.image(noise, seed)


def pool_scene_cameras(table: PoolTableSpec = POOL_9FT) -> dict[str, Camera]:
    """Reference views of a pool table, set back in proportion to its length: overhead 1080p
    with barrel distortion, tilted, and a high oblique broadcast view from behind the foot."""
    W, L = table.width_mm, table.length_mm
    k = L / POOL_9FT.length_mm
    mid = (W / 2, L / 2, 0.0)
    overhead = Camera.look_at((W / 2, L / 2, 2400.0 * k), mid, (1920, 1080), hfov_deg=72.0,
                              dist=(-0.12, 0.015, 0, 0, 0), up=(-1.0, 0.0, 0.0))
    tilt = math.radians(14.0)
    eye = (W / 2 + 2600 * k * math.sin(tilt), L / 2, 2600 * k * math.cos(tilt))
    tilted = Camera.look_at(eye, mid, (1920, 1080), hfov_deg=72.0, up=(-1.0, 0.0, 0.0))
    broadcast = Camera.look_at((W / 2, L + 1600.0 * k, 2400.0 * k), (W / 2, L * 0.6, 0.0),
                               (1280, 720), hfov_deg=58.0, up=(0.0, -1.0, 0.0))
    return {"overhead": overhead, "tilted": tilted, "broadcast": broadcast}


def pool_scene_balls(table: PoolTableSpec = POOL_9FT) -> dict[str, tuple[float, float]]:
    """A mid-game layout: the cue ball in the kitchen and eight object balls about the bed."""
    W, L = table.width_mm, table.length_mm
    spots = {"cue": (0.45, 0.15), "1": (0.3, 0.55), "2": (0.7, 0.62), "3": (0.5, 0.8),
             "8": (0.52, 0.5), "9": (0.2, 0.35), "11": (0.8, 0.3), "13": (0.62, 0.88),
             "6": (0.1, 0.7)}
    return {b: (fx * W, fy * L) for b, (fx, fy) in spots.items()}


def pool_plane_error_mm(cal, camera: Camera) -> tuple[float, float]:
    """``plane_error_mm`` of a pool table's calibration against the true ``camera``, taken
    with the table turned end for end when that is nearer: nothing on a pool table's bed tells
    its head from its foot."""
    from calibration.calibrate import Calibration, plane_error_mm

    t = cal.table
    turn = np.array([[-1.0, 0.0, t.width_mm], [0.0, -1.0, t.length_mm], [0.0, 0.0, 1.0]])
    turned = Calibration(cal.H_table_to_image @ turn, cal.image_size, cal.camera_matrix,
                         cal.dist_coeffs, table=t)
    return min(plane_error_mm(cal, camera), plane_error_mm(turned, camera))


def pool_start_balls(table: PoolTableSpec = POOL_9FT) -> dict[str, tuple[float, float]]:
    """An 8-ball rack on the foot spot and the cue ball in the kitchen."""
    balls = dict(table.rack_mm("8ball"))
    balls["cue"] = (table.width_mm * 0.4, table.head_string_mm * 0.6)
    return balls
