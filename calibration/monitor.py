"""Noticing a knocked camera while tracking.

``CalibrationMonitor.check(frame)`` reads short intensity profiles across the cushion noses where
the calibration puts them (a few thousand pixels, well under a millisecond at 1080p), compares
them with the profiles of the first frame it was given, and measures per cushion side how far
the edges have slid. The camera has moved when a side's edges slid more than ``drift_px`` or
two sides no longer match; when that holds for ``patience`` checks in a row the table
is found again from scratch.
"""

from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np

from calibration.calibrate import Calibration
from calibration.errors import InputError

_SIDES = ("baulk", "top", "left", "right")
# a side whose edges match less than this is lost; every side lost at once, the picture shows
# something else (another camera's view of the table: 0.00-0.13 on each side; a player over
# the table hides one side's at most)
_LOST = 0.2


def _nose_geometry(cal: Calibration, spacing_mm: float = 40.0, trim_mm: float = 40.0):
    """Sample points (N, 2) raw px on every nose, unit inward normals (N, 2) and side index (N,)."""
    table = cal.table
    inward = {"baulk": (0.0, 1.0), "top": (0.0, -1.0), "left": (1.0, 0.0), "right": (-1.0, 0.0)}
    cam = cal.camera()
    z = table.cushion_nose_height_mm if cam is not None else 0.0
    pts, nrm, side = [], [], []
    for name, (a, b) in table.cushions_mm.items():
        s = name.split("_")[0]
        a, b = np.asarray(a, float), np.asarray(b, float)
        length = float(np.hypot(*(b - a)))
        n = max(3, int((length - 2 * trim_mm) / spacing_mm))
        t = np.linspace(trim_mm / length, 1 - trim_mm / length, n)
        p = a + t[:, None] * (b - a)
        q = p + 5.0 * np.asarray(inward[s])
        if cam is not None:
            pp = cam.project(np.c_[p, np.full(n, z)])
            qq = cam.project(np.c_[q, np.full(n, z)])
        else:
            pp, qq = cal.table_to_px(p), cal.table_to_px(q)
        d = qq - pp
        pts.append(pp)
        nrm.append(d / (np.hypot(d[:, 0], d[:, 1])[:, None] + 1e-12))
        side += [_SIDES.index(s)] * n
    return np.vstack(pts), np.vstack(nrm), np.array(side)


class CalibrationMonitor:
    """Watches the cushion edges of a fixed camera.

    ``check(frame)`` returns True while the edges sit where they did, False while some have
    moved (or are hidden) but not for long enough to act, and a new ``Calibration`` once the
    camera has been knocked and the table was found again (the monitor then follows the new
    calibration). ``recalibrate(frame) -> Calibration`` is the finder to call (default:
    ``calibration.find.calibrate_image``)."""

    def __init__(self, calibration: Calibration, drift_px: float = 1.5, patience: int = 5,
                 search_px: float = 6.0,
                 recalibrate: Callable[[np.ndarray], Calibration] | None = None):
        if drift_px <= 0 or patience < 1 or search_px <= drift_px:
            raise ValueError("need drift_px > 0, patience >= 1 and search_px > drift_px")
        self.drift_px = float(drift_px)
        self.patience = int(patience)
        self.search_px = float(search_px)
        self._recalibrate = recalibrate
        self._reset(calibration)

    def _reset(self, calibration: Calibration) -> None:
        self.calibration = calibration
        self._pts, self._nrm, self._side = _nose_geometry(calibration)
        r = self.search_px
        off = np.arange(-2 * r, 2 * r + 0.25, 0.5, dtype=np.float32)
        self._map_x = (self._pts[:, :1] + off * self._nrm[:, :1]).astype(np.float32)
        self._map_y = (self._pts[:, 1:] + off * self._nrm[:, 1:]).astype(np.float32)
        self._reference: np.ndarray | None = None
        self._strikes = 0
        self.elsewhere = False
        self.last_shift_px = np.zeros(len(_SIDES))

    def _edges(self, frame: np.ndarray) -> np.ndarray:
        """Derivative profiles across the noses: (N, M) float32, read straight from the frame
        (no whole-frame conversion)."""
        prof = cv2.remap(frame, self._map_x, self._map_y, cv2.INTER_LINEAR,
                         borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
        if prof.ndim == 3:
            prof = prof.sum(axis=2)
        d = np.zeros_like(prof)
        d[:, 1:-1] = prof[:, 2:] - prof[:, :-2]
        return d

    def in_place(self, frame: np.ndarray) -> bool:
        """Whether the cushions' edges are in ``frame`` where the calibration puts them: on
        three sides at least half of each side's edges found, none of those moved (False before
        a first frame's edges are held to compare with). Changes nothing."""
        if self._reference is None:
            return False
        shifts, share = self.side_shifts(frame)
        seen = np.nan_to_num(share) >= 0.5
        return int(seen.sum()) >= 3 and bool((np.abs(shifts[seen]) <= self.drift_px).all())

    def side_shifts(self, frame: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """How far (px, along the inward normal) each side's edges moved since the reference
        frame, and the share of that side's samples that still match it (a player or a cue
        over a cushion hides some; NaN for a side with no edge to follow): (4,), (4,)."""
        d = self._edges(frame)
        if self._reference is None:
            self._reference = d
        k = int(round(self.search_px / 0.5))
        m = d.shape[1]
        a = self._reference[:, k: m - k]
        na = np.sqrt((a * a).sum(axis=1)) + 1e-6
        lags = np.arange(-k, k + 1)
        score = np.empty((len(d), len(lags)))
        for j, lag in enumerate(lags):
            b = d[:, k + lag: m - k + lag]
            score[:, j] = (a * b).sum(axis=1) / (na * (np.sqrt((b * b).sum(axis=1)) + 1e-6))
        best = np.argmax(score, axis=1)
        rows = np.arange(len(d))
        # Sub-sample peak of each sample's correlation.
        jj = np.clip(best, 1, len(lags) - 2)
        s0, s1, s2 = score[rows, jj - 1], score[rows, jj], score[rows, jj + 1]
        den = s0 - 2 * s1 + s2
        frac = np.where(den < 0, 0.5 * (s0 - s2) / np.where(den < 0, den, -1.0), 0.0)
        lag_px = (lags[jj] + np.clip(frac, -0.5, 0.5)) * 0.5
        # Samples with no edge in the reference (a ball, a pocket) say nothing.
        textured = na > 0.25 * np.median(na)
        good = (score[rows, best] > 0.8) & textured
        shifts = np.zeros(len(_SIDES))
        share = np.zeros(len(_SIDES))
        for side in range(len(_SIDES)):
            sel = (self._side == side) & textured
            ok = sel & good
            # a side with no edge to follow (hidden or out of the picture) says nothing
            share[side] = ok.sum() / sel.sum() if sel.any() else np.nan
            if ok.any():
                shifts[side] = float(np.median(lag_px[ok]))
        return shifts, share

    def check(self, frame: np.ndarray) -> bool | Calibration:
        """True while the edges sit where they did; False while some moved or are lost, not
        yet for ``patience`` checks (``elsewhere`` then says whether every side's edges are
        lost at once: another picture, not a player over a cushion); a new ``Calibration``
        once the table was found again."""
        if frame.ndim not in (2, 3):
            raise ValueError(f"expected a frame of shape (h, w[, 3]), got {frame.shape}")
        shifts, match = self.side_shifts(frame)
        self.last_shift_px = shifts
        moved = (np.abs(shifts) > self.drift_px) & (match > 0.3)
        lost = match < _LOST
        self.elsewhere = bool((np.nan_to_num(match) < _LOST).all())
        # two sides lost at once: a shift along them larger than the search (one player hides
        # at most one side's worth of edges)
        if not moved.any() and lost.sum() < 2:
            self._strikes = 0
            return True
        self._strikes += 1
        if self._strikes < self.patience:
            return False
        return self.find_again(frame)

    def find_again(self, frame: np.ndarray) -> bool | Calibration:
        """The table found again from scratch in ``frame`` (the monitor then follows it), or
        False where it is not found."""
        finder = self._recalibrate
        if finder is None:
            from calibration.find import calibrate_image

            def finder(img):
                return calibrate_image(img, self.calibration.table)
        try:
            new = finder(frame if frame.ndim == 3 else cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR))
        except InputError:
            return False
        self._reset(new)
        return new
