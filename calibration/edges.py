"""Sub-pixel edge and ridge search along normals of projected model lines.

Every search is vectorised: the profiles of all sample points are read in one ``cv2.remap``.
"""

from __future__ import annotations

import cv2
import numpy as np


def profiles(image: np.ndarray, points_px: np.ndarray, normals: np.ndarray,
             offsets_px: np.ndarray, nearest: bool = False) -> np.ndarray:
    """Sample ``image`` (h, w) float32 along ``points + offsets * normals``: (N, M) values;
    samples off the image read as NaN."""
    pts = np.asarray(points_px, np.float32)
    nrm = np.asarray(normals, np.float32)
    off = np.asarray(offsets_px, np.float32)
    mx = pts[:, 0:1] + off[None, :] * nrm[:, 0:1]
    my = pts[:, 1:2] + off[None, :] * nrm[:, 1:2]
    interp = cv2.INTER_NEAREST if nearest else cv2.INTER_LINEAR
    out = cv2.remap(image.astype(np.float32, copy=False), mx, my, interp,
                    borderMode=cv2.BORDER_CONSTANT, borderValue=np.nan)
    return out


def subpixel_peak(values: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """Parabolic peak refinement around ``idx`` in each row of ``values``: fractional index."""
    n = values.shape[1]
    i = np.clip(idx, 1, n - 2)
    rows = np.arange(len(values))
    a, b, c = values[rows, i - 1], values[rows, i], values[rows, i + 1]
    den = a - 2 * b + c
    frac = np.where(np.abs(den) > 1e-9, 0.5 * (a - c) / np.where(den == 0, 1, den), 0.0)
    return i + np.clip(frac, -0.5, 0.5)


def find_ridges(gray: np.ndarray, points_px: np.ndarray, normals: np.ndarray,
                radius_px: float, half_width_px: float, step_px: float = 0.5
                ) -> tuple[np.ndarray, np.ndarray]:
    """Brightest thin line (a painted line on the cloth) within +-``radius_px`` along each normal:
    the profile minus the mean of its values ``half_width_px`` either side. Returns
    (offset_px (N,), strength (N,) in grey levels)."""
    k = max(1, int(round(half_width_px / step_px)))
    off = np.arange(-radius_px - k * step_px, radius_px + (k + 0.5) * step_px, step_px)
    prof = profiles(gray, points_px, normals, off)
    ridge = np.full_like(prof, -np.inf)
    ridge[:, k:-k] = prof[:, k:-k] - 0.5 * (prof[:, :-2 * k] + prof[:, 2 * k:])
    ridge[~np.isfinite(ridge)] = -np.inf
    idx = np.argmax(ridge, axis=1)
    strength = ridge[np.arange(len(ridge)), idx]
    pos = subpixel_peak(np.where(np.isfinite(ridge), ridge, -1e3), idx)
    return np.interp(pos, np.arange(len(off)), off), strength


def find_first_edges(gray: np.ndarray, cloth: np.ndarray, points_px: np.ndarray,
                     normals: np.ndarray, radius_px: np.ndarray, floor: float,
                     margin_px: float, band_px: np.ndarray | float = 0.0,
                     relative: float = 0.0, step_px: float = 0.5,
                     fine: np.ndarray | None = None, snap_px: float = 0.0
                     ) -> tuple[np.ndarray, np.ndarray]:
    """The cushion nose met walking outwards from the cloth along each inward ``normal``.

    The innermost local maximum of |d gray / d offset| (at least ``floor`` grey levels per px)
    within +-``radius_px`` whose inner side (``margin_px`` .. 2 ``margin_px`` further in) is
    cloth in ``cloth`` (h, w) float32 1/0, and at least ``relative`` times the strongest edge
    of the profile with cloth on both sides (faint shading inside the bed is passed over; an
    edge against a graphic or the floor does not set the bar). With ``band_px`` > 0,
    when that edge darkens outwards and a brightening edge follows within ``band_px`` further
    out, the pair is the shadowed crease at the foot of the cushion face and the outer edge is
    returned. With ``fine`` (h, w) float32, the same image less smoothed, the edge found in
    ``gray`` is then looked for again in ``fine`` within +-``snap_px`` of it: smoothing moves an
    edge towards a dark crease or a lit nose beside it.
    Returns (offset_px (N,), strength (N,); strength 0 where none)."""
    rmax = float(np.max(radius_px))
    k = max(1, int(round(margin_px / step_px)))
    off = np.arange(-rmax, rmax + (2 * k + 0.5) * step_px, step_px)
    prof = profiles(gray, points_px, normals, off)
    inner = profiles(cloth, points_px, normals, off, nearest=True) > 0.5
    signed = np.zeros_like(prof)
    signed[:, 1:-1] = (prof[:, 2:] - prof[:, :-2]) / (2 * step_px)
    signed[~np.isfinite(signed)] = 0.0
    deriv = np.abs(signed)
    # Cloth all the way over the inner window [i + k, i + 2k].
    c = np.cumsum(np.c_[np.zeros(len(inner)), inner.astype(np.float32)], axis=1)
    n = len(off)
    i = np.arange(n)
    lo, hi = np.minimum(i + k, n), np.minimum(i + 2 * k + 1, n)
    inner_ok = (c[:, hi] - c[:, lo]) >= (hi - lo)[None, :] - 0.5
    inner_ok &= (hi - lo == k + 1)[None, :]
    peak = np.zeros_like(deriv, bool)
    peak[:, 1:-1] = (deriv[:, 1:-1] >= deriv[:, :-2]) & (deriv[:, 1:-1] > deriv[:, 2:])
    inside = np.abs(off)[None, :] <= np.asarray(radius_px, float)[:, None]
    strong = peak & inside & (deriv >= floor)
    cand = strong & inner_ok
    if relative > 0:
        lo2, hi2 = np.maximum(i - 2 * k, 0), np.maximum(i - k + 1, 0)
        outer_ok = ((c[:, hi2] - c[:, lo2]) >= (hi2 - lo2)[None, :] - 0.5)
        outer_ok &= (hi2 - lo2 == k + 1)[None, :]
        top = np.max(np.where(cand & outer_ok, deriv, 0.0), axis=1, keepdims=True)
        cand &= deriv >= relative * top
    rows = np.arange(len(cand))
    idx = n - 1 - np.argmax(cand[:, ::-1], axis=1)
    has = cand[rows, idx]
    band = np.broadcast_to(np.asarray(band_px, float) / step_px, (len(cand),))
    # Outer flank of a dark band: brightening outwards (negative along the inward normal).
    gap = idx[:, None] - i[None, :]
    outer = strong & (signed < 0) & (gap > 0) & (gap <= band[:, None])
    outer &= (signed[rows, idx] > 0)[:, None]
    has_outer = outer.any(axis=1)
    idx_outer = n - 1 - np.argmax(outer[:, ::-1], axis=1)
    idx = np.where(has_outer & has, idx_outer, idx)
    strength = np.where(has, deriv[rows, idx], 0.0)
    pos = subpixel_peak(deriv, idx)
    offset = np.interp(pos, np.arange(n), off)
    if fine is not None and snap_px > 0:
        pts = np.asarray(points_px, float) + offset[:, None] * np.asarray(normals, float)
        again, found = find_first_edges(fine, cloth, pts, normals, np.full(len(pts), snap_px),
                                        floor, margin_px, band_px, relative, step_px)
        offset = np.where((found > 0) & (strength > 0), offset + again, offset)
    return offset, strength

