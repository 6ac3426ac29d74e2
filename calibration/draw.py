"""Drawing the fitted table over an image: ``draw(frame, calibration) -> frame``."""

from __future__ import annotations

import cv2
import numpy as np

from calibration.calibrate import Calibration
from calibration.pool import SIGHT_RISE_MM


def _polyline(cal: Calibration, pts_mm: np.ndarray, z_mm: float = 0.0) -> np.ndarray:
    """Raw px polyline (x4 fixed point) of table points at height ``z_mm`` (only drawn at a
    height when the camera pose is known)."""
    cam = cal.camera() if z_mm else None
    if cam is None:
        px = cal.table_to_px(pts_mm)
    else:
        pts = np.asarray(pts_mm, float)
        px = cam.project(np.c_[pts, np.full(len(pts), z_mm)])
    return np.round(px * 4).astype(np.int32)


def _segment(a, b, n=40) -> np.ndarray:
    s = np.linspace(0, 1, n)[:, None]
    return np.asarray(a, float) + s * (np.asarray(b, float) - np.asarray(a, float))


def draw(frame: np.ndarray, cal: Calibration, thickness: int = 1) -> np.ndarray:
    """A copy of ``frame`` (h, w, 3) with the cushion noses (at their height when the camera
    pose is known), pockets, baulk line, D and spots (on the cloth) of ``cal`` drawn on it."""
    out = frame.copy()
    t = cal.table
    cushion, painted, pocket = (0, 255, 255), (255, 255, 255), (255, 0, 255)
    for a, b in t.cushions_mm.values():
        cv2.polylines(out, [_polyline(cal, _segment(a, b), t.cushion_nose_height_mm)], False,
                      cushion, thickness,
                      cv2.LINE_AA, 2)
    if hasattr(t, "baulk_line_mm"):
        _snooker_markings(out, cal, painted, thickness)
    else:
        _pool_markings(out, cal, painted, thickness)
    for name, p in t.pockets.items():
        for k in p.knuckles_mm:
            c = cal.table_to_px([k])[0]
            cv2.circle(out, (int(round(c[0] * 4)), int(round(c[1] * 4))), 8, pocket, thickness,
                       cv2.LINE_AA, 2)
        c = cal.table_to_px([p.point_mm])[0]
        cv2.drawMarker(out, (int(round(c[0])), int(round(c[1]))), pocket, cv2.MARKER_TILTED_CROSS,
                       14, thickness + 1, cv2.LINE_AA)
        cv2.putText(out, name, (int(c[0]) + 6, int(c[1]) - 6), cv2.FONT_HERSHEY_SIMPLEX, 0.4,
                    pocket, 1, cv2.LINE_AA)
    return out


def _spots(out, cal, spots_mm, colour, thickness) -> None:
    for x, y in spots_mm:
        c = cal.table_to_px([(x, y)])[0]
        cv2.drawMarker(out, (int(round(c[0])), int(round(c[1]))), colour, cv2.MARKER_CROSS,
                       10, thickness, cv2.LINE_AA)


def _snooker_markings(out, cal, painted, thickness) -> None:
    """The baulk line, the D, the spots and the word baulk."""
    t = cal.table
    b = t.baulk_line_mm
    cv2.polylines(out, [_polyline(cal, _segment((0, b), (t.width_mm, b)))], False, painted,
                  thickness, cv2.LINE_AA, 2)
    ang = np.linspace(np.pi, 2 * np.pi, 60)
    arc = np.c_[t.centre_x_mm + t.d_radius_mm * np.cos(ang), b + t.d_radius_mm * np.sin(ang)]
    cv2.polylines(out, [_polyline(cal, arc)], False, painted, thickness, cv2.LINE_AA, 2)
    _spots(out, cal, t.spots_mm.values(), painted, thickness)
    c = cal.table_to_px([(t.centre_x_mm, b - t.d_radius_mm - 60)])[0]
    cv2.putText(out, "baulk", (int(c[0]) - 20, int(c[1])), cv2.FONT_HERSHEY_SIMPLEX, 0.5,
                painted, 1, cv2.LINE_AA)


def _pool_markings(out, cal, painted, thickness) -> None:
    """The head string, the spots, the sights (on the rail caps when the camera pose is known)
    and the word head."""
    t = cal.table
    s = t.head_string_mm
    cv2.polylines(out, [_polyline(cal, _segment((0, s), (t.width_mm, s)))], False, painted,
                  thickness, cv2.LINE_AA, 2)
    _spots(out, cal, t.spots_mm.values(), painted, thickness)
    cam = cal.camera()
    sights = t.sights_mm
    if cam is None:
        px = cal.table_to_px(sights)
    else:
        z = t.cushion_nose_height_mm + SIGHT_RISE_MM
        px = cam.project(np.c_[sights, np.full(len(sights), z)])
    for x, y in px:
        cv2.drawMarker(out, (int(round(x)), int(round(y))), painted, cv2.MARKER_DIAMOND, 8,
                       thickness, cv2.LINE_AA)
    c = cal.table_to_px([(t.centre_x_mm, s - 120)])[0]
    cv2.putText(out, "head", (int(c[0]) - 16, int(c[1])), cv2.FONT_HERSHEY_SIMPLEX, 0.5,
                painted, 1, cv2.LINE_AA)
