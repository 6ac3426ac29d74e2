"""The cloth: its colour learnt from the image, its mask and the outline of the table.

The cloth is the largest region of one colour around the middle of the frame; its colour is the
peak of the chroma histogram (Lab a*, b*) of the central part of the image, so green, blue, grey
and other cloths are found the same way.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from calibration.errors import InputError

# Median |L - local mean| (Lab lightness levels) above which a region is too grainy for cloth.
MAX_CLOTH_GRAIN = 4.0


@dataclass(frozen=True)
class Cloth:
    """``mask`` (h, w) uint8 0/255: pixels of the cloth's colour in the table's region (balls,
    hands and lines are holes). ``region`` (h, w) uint8: the table's filled outline (convex).
    ``lab`` (3,) the cloth's median Lab colour; ``outline_px`` (K, 2) the convex hull."""

    mask: np.ndarray
    region: np.ndarray
    lab: np.ndarray
    outline_px: np.ndarray


def find_cloth(image_bgr: np.ndarray, work_width: int = 640) -> Cloth:
    """Find the cloth in a BGR image. Raises InputError when no table-sized region of one
    colour is found."""
    h, w = image_bgr.shape[:2]
    scale = min(1.0, work_width / w)
    small = cv2.resize(image_bgr, (round(w * scale), round(h * scale)),
                       interpolation=cv2.INTER_AREA) if scale < 1 else image_bgr
    lab = cv2.cvtColor(cv2.GaussianBlur(small, (5, 5), 0), cv2.COLOR_BGR2LAB)
    sh, sw = lab.shape[:2]
    L = lab[..., 0].astype(np.int16)
    if np.percentile(L, 95) < 25:
        raise InputError("no table found: the image is almost black")
    centre = lab[sh // 5: sh - sh // 5, sw // 5: sw - sw // 5].reshape(-1, 3)
    lit = centre[(centre[:, 0] > 30) & (centre[:, 0] < 245)]
    if len(lit) < 100:
        raise InputError("no table found: the middle of the image has no lit cloth")
    # Peak of the (a*, b*) histogram in 4-unit bins.
    hist, _, _ = np.histogram2d(lit[:, 1], lit[:, 2], bins=64, range=[[0, 256], [0, 256]])
    hist = cv2.GaussianBlur(hist.astype(np.float32), (3, 3), 0)
    ia, ib = np.unravel_index(int(np.argmax(hist)), hist.shape)
    a0, b0 = ia * 4 + 2, ib * 4 + 2
    ab = lit[:, 1:].astype(int)
    near = lit[(np.abs(ab[:, 0] - a0) <= 6) & (np.abs(ab[:, 1] - b0) <= 6)]
    if len(near) < 0.12 * len(lit):
        raise InputError("no table found: no cloth colour dominates the middle of the image")
    colour = np.median(near, axis=0)
    chroma = np.hypot(lab[..., 1].astype(np.float32) - colour[1],
                      lab[..., 2].astype(np.float32) - colour[2])
    # Chroma tolerance grows with the cloth's own saturation; lightness spans shade and light.
    sat = float(np.hypot(colour[1] - 128, colour[2] - 128))
    tol = 10.0 + 0.25 * sat
    mask = (chroma < tol) & (L > 0.35 * colour[0]) & (L < min(255, 1.6 * colour[0] + 20))
    mask = mask.astype(np.uint8) * 255
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    if n < 2:
        raise InputError("no table found: no region of cloth colour")
    # The table is the biggest component touching the central area.
    cy0, cy1, cx0, cx1 = sh // 4, sh - sh // 4, sw // 4, sw - sw // 4
    central = np.bincount(labels[cy0:cy1, cx0:cx1].ravel(), minlength=n)
    central[0] = 0
    best = int(np.argmax(central))
    if stats[best, cv2.CC_STAT_AREA] < 0.08 * sh * sw:
        raise InputError("no table found: the cloth-coloured region is too small")
    table = (labels == best).astype(np.uint8) * 255
    # Cloth is smooth: grain well under a few grey levels once the image is at working size.
    plain_l = cv2.cvtColor(small, cv2.COLOR_BGR2LAB)[..., 0].astype(np.float32)
    grain = np.abs(plain_l - cv2.blur(plain_l, (3, 3)))
    if float(np.median(grain[table > 0])) > MAX_CLOTH_GRAIN:
        raise InputError("no table found: the one-coloured region is textured, not cloth")
    if table[0].any() and table[-1].any() and table[:, 0].any() and table[:, -1].any():
        raise InputError("no whole table found: the cloth runs off all four edges of the frame")
    contours, _ = cv2.findContours(table, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    hull = cv2.convexHull(max(contours, key=cv2.contourArea))
    region = np.zeros_like(table)
    cv2.fillConvexPoly(region, hull, 255)
    # Cloth-coloured pixels inside the hull (the cushions' cloth is the same colour).
    full_mask = mask & region
    if scale < 1:
        full_mask = cv2.resize(full_mask, (w, h), interpolation=cv2.INTER_LINEAR)
        full_mask = np.where(full_mask > 127, 255, 0).astype(np.uint8)
        region = cv2.resize(region, (w, h), interpolation=cv2.INTER_NEAREST)
        hull = (hull.reshape(-1, 2) + 0.5) / scale - 0.5
    return Cloth(full_mask, region, colour, np.asarray(hull, float).reshape(-1, 2))


def outline_quad(outline_px: np.ndarray) -> np.ndarray:
    """Four corners (4, 2) of the quadrilateral that best fits a convex outline: the outline is
    simplified until four vertices are left, then each side is refitted as a line through the
    middle 70 % of the outline points near it (so corners cut by pockets drop out) and
    neighbouring sides are intersected."""
    hull = outline_px.astype(np.float32).reshape(-1, 1, 2)
    perim = cv2.arcLength(hull, True)
    quad = None
    for frac in np.geomspace(0.004, 0.15, 40):
        poly = cv2.approxPolyDP(hull, frac * perim, True).reshape(-1, 2).astype(float)
        if len(poly) == 4:
            quad = poly
            break
        if len(poly) < 4:
            break
    if quad is None:
        raise InputError("no table found: the cloth outline is not four-sided")
    # Dense samples along the outline.
    pts = outline_px.reshape(-1, 2).astype(float)
    seg = np.roll(pts, -1, axis=0) - pts
    n = np.maximum(1, (np.hypot(seg[:, 0], seg[:, 1]) / 2).astype(int))
    dense = np.vstack([p + np.linspace(0, 1, k, endpoint=False)[:, None] * d
                       for p, d, k in zip(pts, seg, n)])
    lines = []
    for i in range(4):
        a, b = quad[i], quad[(i + 1) % 4]
        d = b - a
        length = float(np.hypot(*d))
        u = d / length
        along = (dense - a) @ u / length
        p, q = a, b
        # Two passes: a wide band around the simplified side, then a narrow one around the fit.
        for tol in (max(6.0, 0.08 * length), max(2.0, 0.005 * length)):
            rel = dense - p
            u = (q - p) / np.hypot(*(q - p))
            across = np.abs(rel[:, 0] * u[1] - rel[:, 1] * u[0])
            sel = (along > 0.15) & (along < 0.85) & (across < tol)
            if sel.sum() < 5:
                break
            vx, vy, x0, y0 = cv2.fitLine(dense[sel].astype(np.float32), cv2.DIST_HUBER, 0, 0.01,
                                         0.01).ravel()
            p, q = np.array([x0, y0], float), np.array([x0 + vx, y0 + vy], float)
        lines.append(np.cross(np.r_[p, 1.0], np.r_[q, 1.0]))
    corners = []
    for i in range(4):
        c = np.cross(lines[(i - 1) % 4], lines[i])
        if abs(c[2]) < 1e-9:
            raise InputError("no table found: the cloth outline has parallel neighbouring sides")
        corners.append(c[:2] / c[2])
    return np.array(corners)
