"""Ball detection: every ball on the cloth in one frame, with sub-pixel centres.

Stages, one frame at a time:
1. The cloth model, learnt from the frame itself and adapted slowly over frames: a smooth
   brightness gain that flattens the lamps' falloff across the cloth, then the cloth's
   chromaticity (B, G, R over their sum: unchanged where the cloth is shaded) and brightness.
   It is compiled into a lookup table from quantised BGR to a "not cloth" score, so scoring a
   pixel is one gather. Shadows keep the cloth's chromaticity and stay cloth down to a third of
   its brightness; much brighter (white, yellow) or darker (black) pixels are not cloth.
2. Candidates on a downscaled image of the table area (what the calibration says can hold a
   ball): not-cloth blobs, pinholes closed and everything narrower than about a ball's radius
   opened away (lines, spots, the cue's shaft), each explained by discs of the radius the
   calibration predicts at that spot: a lone ball by one, a cluster (the pack, touching balls,
   a ball against a cushion) by discs placed one at a time where they cover most of the blob's
   unexplained pixels. The predicted radius is checked against the lone balls of the frame.
3. Refinement at full resolution in a window around each candidate: the centroid of the soft
   not-cloth score inside the candidate's own cell (pixels nearer to it than to a neighbour),
   repeated; then the silhouette's centroid is moved to the projection of the ball's centre
   (under perspective they differ) and cast to the plane of the balls' centres for table mm.
4. Rejection: centres outside the cushions; in blobs reaching in from outside the table area
   (arms, the cue, graphics, pocket holes) discs at its edge, on a thin bar or without a neck
   to their neighbour; discs that do not fill, that sit in something bigger than a ball, that
   something passes through, or that are the shadow split off a ball.

Colour classification is ``tracker.vision.colour``; this module measures each ball's body
colour for it.
"""

from __future__ import annotations

import bisect
import concurrent.futures
import functools
import threading
from collections.abc import Iterator
from dataclasses import dataclass

import cv2
import numpy as np

from calibration.calibrate import Calibration
from calibration.camera import Camera, apply_homography, polygon_moments
from calibration.edges import subpixel_peak
from calibration.specs import BALL_CLASSES, SNOOKER, SnookerTableSpec
from tracker.vision import kernels
from tracker.vision.cloth_table import FG_LEVEL, LUT_BITS, LUT_SHIFT, lut_index, score_table, scores
from tracker.vision.lastlook import LastLook, sparse_points, tinted


def _check_array(name: str, value, shape: tuple, dtype) -> np.ndarray:
    arr = np.asarray(value, dtype=dtype)
    if arr.ndim != len(shape) or any(s is not None and a != s for a, s in zip(arr.shape, shape)):
        want = "(" + ", ".join("N" if s is None else str(s) for s in shape) + (
            "," if len(shape) == 1 else "") + ")"
        raise ValueError(f"Detections.{name} must have shape {want}, got {arr.shape}")
    return arr


@dataclass(frozen=True)
class Detections:
    """The balls found in one frame, as parallel arrays over N balls.

    xy_px (N, 2) float: ball centres in raw image pixels (the projection of the sphere's centre).
    r_px (N,) float: apparent radius in pixels.
    cls (N,) int: index into ``BALL_CLASSES``, or -1 when not classified.
    confidence (N,) float in [0, 1].
    xy_mm (N, 2) float or None: ball centres in table mm, when a calibration was given.
    lab (N, 3) float or None: the ball's body colour (OpenCV 8-bit Lab, highlights excluded).
    """

    xy_px: np.ndarray
    r_px: np.ndarray
    cls: np.ndarray
    confidence: np.ndarray
    xy_mm: np.ndarray | None = None
    lab: np.ndarray | None = None

    def __post_init__(self):
        xy = _check_array("xy_px", self.xy_px, (None, 2), np.float64)
        n = len(xy)
        fields = {"xy_px": xy,
                  "r_px": _check_array("r_px", self.r_px, (n,), np.float64),
                  "cls": _check_array("cls", self.cls, (n,), np.int64),
                  "confidence": _check_array("confidence", self.confidence, (n,), np.float64)}
        if self.xy_mm is not None:
            fields["xy_mm"] = _check_array("xy_mm", self.xy_mm, (n, 2), np.float64)
        if self.lab is not None:
            fields["lab"] = _check_array("lab", self.lab, (n, 3), np.float64)
        cls = fields["cls"]
        if n and (cls.min() < -1 or cls.max() >= len(BALL_CLASSES)):
            bad = (cls < -1) | (cls >= len(BALL_CLASSES))
            raise ValueError(f"Detections.cls must be -1 or an index into BALL_CLASSES "
                             f"(0..{len(BALL_CLASSES) - 1}), got {fields['cls'][bad][:3]}")
        for name, arr in fields.items():
            arr.setflags(write=False)
            object.__setattr__(self, name, arr)

    @classmethod
    def empty(cls, with_mm: bool = False) -> Detections:
        return cls(np.zeros((0, 2)), np.zeros(0), np.zeros(0, int), np.zeros(0),
                   np.zeros((0, 2)) if with_mm else None, np.zeros((0, 3)))

    def __len__(self) -> int:
        return len(self.xy_px)

    def __getitem__(self, index) -> Detections:
        """A subset by boolean mask, index array or slice."""
        if isinstance(index, (int, np.integer)):
            index = [int(index)]
        def pick(a):
            return None if a is None else a[index]

        return Detections(self.xy_px[index], self.r_px[index], self.cls[index],
                          self.confidence[index], pick(self.xy_mm), pick(self.lab))

    def __iter__(self) -> Iterator[dict]:
        for i in range(len(self)):
            yield self.record(i)

    @property
    def class_names(self) -> list[str | None]:
        return [BALL_CLASSES[c] if c >= 0 else None for c in self.cls]

    def replace(self, **changes) -> Detections:
        kw = {k: getattr(self, k) for k in ("xy_px", "r_px", "cls", "confidence", "xy_mm", "lab")}
        kw.update(changes)
        return Detections(**kw)

    def record(self, i: int) -> dict:
        """Ball ``i`` as the contract's JSON record."""
        out = {"ball": BALL_CLASSES[self.cls[i]] if self.cls[i] >= 0 else None,
               "x_px": float(self.xy_px[i, 0]), "y_px": float(self.xy_px[i, 1]),
               "r_px": float(self.r_px[i]),
               "x_mm": None if self.xy_mm is None else float(self.xy_mm[i, 0]),
               "y_mm": None if self.xy_mm is None else float(self.xy_mm[i, 1]),
               "confidence": float(self.confidence[i])}
        return out


# -- the cloth ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ClothModel:
    """The empty cloth: chromaticity ``chroma`` (3,) (B, G, R over their sum), its spread
    ``chroma_sigma`` and brightness ``level`` (mean of B + G + R over cloth pixels)."""

    chroma: np.ndarray
    chroma_sigma: float
    level: float

    @classmethod
    def learn(cls, bgr_pixels: np.ndarray) -> ClothModel:
        """From (M, 3) BGR pixels of the table area, mostly cloth: the mode of their
        chromaticity, then the mean and spread of the pixels near it."""
        px = np.asarray(bgr_pixels).reshape(-1, 3)
        # a few thousand pixels tell the cloth's colour as well as all of them
        px = px[:: max(1, len(px) // 12000)].astype(np.float32)
        s = px.sum(1)
        lit = s > 30
        px, s = px[lit], s[lit]
        if len(px) < 50:
            raise ValueError("too few lit pixels to learn the cloth from")
        ch = px / s[:, None]
        # mode of the (g, r) chromaticity in 1/100 bins
        hist, ge, re = np.histogram2d(ch[:, 1], ch[:, 2], bins=100, range=[[0, 1], [0, 1]])
        hist = cv2.GaussianBlur(hist.astype(np.float32), (5, 5), 0)
        ig, ir = np.unravel_index(int(np.argmax(hist)), hist.shape)
        g0, r0 = (ig + 0.5) / 100, (ir + 0.5) / 100
        near = (np.abs(ch[:, 1] - g0) < 0.04) & (np.abs(ch[:, 2] - r0) < 0.04)
        for _ in range(2):
            c0 = np.median(ch[near], axis=0)
            d = np.linalg.norm(ch - c0, axis=1)
            # d is a 2-D distance: its median is ~1.18 sigma of each axis
            sigma = float(np.median(d[near])) / 1.18 + 1e-4
            near = d < max(4 * sigma, 0.012)
        level = float(np.median(s[near]))
        return cls(c0.astype(np.float64), max(sigma, 0.004), level)

    def lab(self) -> np.ndarray:
        """(3,) the cloth's OpenCV 8-bit Lab."""
        bgr = np.clip(self.chroma * self.level, 0, 255).astype(np.uint8).reshape(1, 1, 3)
        return cv2.cvtColor(bgr, cv2.COLOR_BGR2LAB)[0, 0].astype(np.float64)

    def blend(self, other: ClothModel, rate: float) -> ClothModel:
        """This model moved a fraction ``rate`` towards ``other``."""
        return ClothModel(self.chroma + rate * (other.chroma - self.chroma),
                          self.chroma_sigma + rate * (other.chroma_sigma - self.chroma_sigma),
                          self.level + rate * (other.level - self.level))

    def lut(self, noise_sigma: float = 3.0, chroma_k: float = 4.5, bright: float = 1.6,
            dark: float = 0.32, shadow: float = 0.6) -> np.ndarray:
        """(2**18,) uint8 not-cloth score of every quantised BGR: ``FG_LEVEL`` where the
        chromaticity is ``chroma_k`` spreads from the cloth's (the spread grows with sensor noise
        on dark pixels), or the brightness is ``bright`` times the cloth's, or ``dark`` times
        (the deepest shadows, ``shadow`` times the cloth's brightness, score a third of it)."""
        n = 1 << LUT_BITS
        v = (np.arange(n, dtype=np.float32) * (1 << LUT_SHIFT) + ((1 << LUT_SHIFT) - 1) / 2)
        return kernels.cloth_scores(v, self.chroma.astype(np.float32), float(self.chroma_sigma),
                                    float(self.level), noise_sigma, chroma_k, bright, dark,
                                    shadow, FG_LEVEL)


def _smooth(pixels: np.ndarray, beside: np.ndarray) -> np.ndarray:
    """(K,) bool: which of ``pixels`` (K, 3) BGR are as smooth as the cloth, their B + G + R
    within ``_SMOOTH`` of the pixels ``beside`` them (two work pixels to their right)."""
    return cv2.absdiff(pixels, beside).astype(np.int16).sum(1) <= _SMOOTH


def _readonly(a: np.ndarray) -> np.ndarray:
    """``a``, made read-only (a table shared by every call)."""
    a.setflags(write=False)
    return a


# soft membership of each not-cloth score (float32): 0 at half the threshold, 1 at twice it
_SOFT = _readonly(np.clip((np.arange(256, dtype=np.float32) - FG_LEVEL * 0.5) / (FG_LEVEL * 1.5),
                          0, 1))
# _SOFT's values are whole multiples of one over this (0 to 1 in steps of 1 / 96)
_SOFT_STEPS = int(FG_LEVEL * 1.5)
_NO_PREFERENCE = np.zeros((0, 0))  # the type of a preference given, with none in it
_NO_SCORES = np.zeros(0, np.uint8)  # the type of a score table given, with none in it
# table positions, colours and the cloth's colour not known (``kernels.close_pairs``)
_NO_XY, _NO_LAB, _NO_CLOTH = np.empty((0, 2)), np.empty((0, 3)), np.empty(0)

# brightness (B + G + R) of a lamp's highlight on a ball: this many times the cloth's, or near
# white on a bright cloth
_HIGHLIGHT = 2.5
_WHITE = 600
# share of a disc a ball fills (a cue with its shadow, a finger fill less)
_FULL = 0.8
# least share of a ball's disc that scores clearly not cloth (``1.3 * FG_LEVEL``): a black
# ball's or a green's on green cloth is 0.23 or more on the real clips; a patch of cloth just
# over the threshold (a cushion's shadow under a model learnt from one frame) has none
_SOLID_MIN = 0.1
# a lone ball-sized piece whose blob before the opening is over this many discs' area is a
# piece of something bigger, judged as the bars are (``_drop_bar_discs``)
_PIECE_OF = 2.0
# ... and is a ball only where it fills this share of its disc (a ball on a line fills it)
_PIECE_FILL = 0.75
# a disc inside a bigger round blob is a ball only when few of the blob's pixels around it
# (at most this share) are of its colour (within this OpenCV Lab distance) running on from it:
# a ball by the fingers, not a knuckle of the hand or a fold of the sleeve
_ALIKE_LAB = 25.0
_ALIKE_SHARE = 0.1
# two discs in a blob are a bar (the cue, an arm) only if it reaches at least this share as
# far out between them as across them, on both sides; two balls narrow between them
_NECK = 0.85
# the lamps' highlights: lighter by this much (OpenCV L) than what is around them, over this
# lightness, over this many radii squared; a body at least this far (a*b*) from the cloth's
# under one; discs without a highlight nearer than this many radii to a ball's are pieces of
# it; a ball this much lighter than the cloth (or more) shows little of its own
_GLINT_RISE = 60
_GLINT_LIGHT = 170
_GLINT_AREA = 0.08
_GLINT_BODY = 25.0
_GLINT_PIECE = 1.3
_LIGHT = 0.9
# the balls' size over a snooker ball's (``BallDetector.size_ratio``) from which the table is
# taken for no snooker table
_NOT_SNOOKER = 1.35
# the least share of the table area that looks like the cloth in a picture of the table (the
# real footage's frames of the table 0.72 or more, a player over it included; its cut-aways 0)
_IN_VIEW = 0.3
# the most B + G + R may differ between a place on the cloth and the work pixel two to its
# right (the sample clips' and real footage's cloth: 3 at the median, 6 at the 90th
# percentile); a picture of noise the cloth's colour (a grey cloth's beside a crowd's blur:
# 50 at the median) is no cloth for it
_SMOOTH = 24
# the dimmest the lamps may make the table, as a share of its brightness when last looked at,
# for a picture to be taken for the table with its lamps dimmed (darker: the lamps off, and a
# cloth relearnt from it would be too dark to tell the balls from)
_DIMMEST = 0.25
# the least share of its disc a ball showing the lamps' highlight in its middle fills (a blue
# on a blue cloth under lamps at 0.7 of their brightness: 0.33; others ``min_cover``)
_LIT_COVER = 0.3
# a change of the lamps' brightness since the table was last looked at from which the cloth is
# learnt afresh at once (the sample clips' flicker and slow dimming: up to 0.17)
_LAMPS_STEP = 0.25
_OFFSET_STEP = 32.0  # px between the grid points of the silhouette offsets
# the points of a ball's outline lie within this share of its radius of their circle
_ROUND = 0.08
# an outline point further than this many (scaled) median absolute deviations from its circle
# is a blotch of the codec or a fleck on the cloth, and the circle is fitted again without it
_OUTLINE_MADS = 2.5
# steps along each ray of the outline search, a fortieth of a radius apart from 0.6 to 1.4 radii
_STEPS = 33
# a ball whose body colour is this close to grey (OpenCV Lab a*, b* distance from neutral) is
# white or black: lightness, not colour, sets it off the cloth (white and black 1-4, the
# least coloured of the others, the pink, 38)
_ACHROMATIC = 15.0
# the least change of lightness (grey levels over two steps of the outline search) taken for
# a ball's edge
_EDGE_STEP = 8.0
# a ball that moved less than this share of its radius since the last frame is still
_STILL = 0.25
# a ball that moved this many of its radii since the last frame (0.6: its blur, at most as
# long, may reach past 1.3 radii, into the ring round it; up to 6, where the blur of a ball
# moved further is a streak), on along the way it was going then (within
# ``_BLUR_AXIS_DEG``), fills the ring ahead and behind it with its own blur: along that way,
# that is no cue over it (a disc in the cue following the white through lies behind where the
# white was, or off a white that stood still)
_BLUR_MOVE = (0.6, 6.0)
_BLUR_AXIS_DEG = 45.0
# the shortest blur band (radii) taken for one ball that moved: a blur of a radius a frame
# (the discs found at its ends, 1 to 1.6 radii apart, would be taken for one ball at one of
# them); it came along its band within this angle (degrees)
_SHORT_STREAK = 3.0
_STREAK_AXIS_DEG = 30.0
# the least variance (radii squared) of a blob's pixels along its long axis that may be a blur
# band: three quarters of a band of ``_SHORT_STREAK`` radii's (a ball's is 0.25)
_BAND_VARIANCE = 0.45
# a lone ball seen within this angle (degrees) of straight down shows its own outline all
# round (the shadow under it stays hidden below it); its centre is then the mean of the
# centroid and the outline's circle, whose errors in compressed footage are half independent
_STEEP_DEG = 45.0


# -- geometry -------------------------------------------------------------------------------------
class TableGeometry:
    """What the calibration says about where balls can be and how big they look.

    Built from a ``Calibration`` (its full camera when the pose is known, else its homography),
    for images of ``image_size`` (w, h)."""

    def __init__(self, calibration: Calibration, table: SnookerTableSpec = SNOOKER):
        self.calibration = calibration
        self.table = table
        self.camera: Camera | None = calibration.camera()
        self.image_size = calibration.image_size
        self.r_mm = table.ball_radius_mm
        self._offset_grid: tuple[float, float, np.ndarray] | None = None
        self._steep_grid: np.ndarray | None = None

    def to_table(self, px: np.ndarray, z_mm: float | None = None) -> np.ndarray:
        """(N, 2) raw px -> (N, 2) table mm on the plane z = ``z_mm`` (default: ball centres)."""
        z = self.r_mm if z_mm is None else z_mm
        px = np.asarray(px, np.float64).reshape(-1, 2)
        if self.camera is not None:
            return self.camera.plane_points(px, z)
        return self.calibration.px_to_table(px)

    def radius_px(self, centres_mm: np.ndarray) -> np.ndarray:
        """(N, 2) ball centres (table mm) -> (N,) apparent radius in pixels."""
        c = np.asarray(centres_mm, np.float64).reshape(-1, 2)
        if self.camera is not None:
            return self.camera.ball_radius_px(np.column_stack([c, np.full(len(c), self.r_mm)]),
                                              self.r_mm)
        # local scale of the homography: mean length of a ball radius along x and y
        H = self.calibration.H_table_to_image
        p0 = apply_homography(H, c)
        px = apply_homography(H, c + [self.r_mm, 0])
        py = apply_homography(H, c + [0, self.r_mm])
        return 0.5 * (np.hypot(*(px - p0).T) + np.hypot(*(py - p0).T))

    def centre_px(self, silhouette_px: np.ndarray, r_px: np.ndarray) -> np.ndarray:
        """(N, 2) silhouette centroids -> (N, 2) projections of the balls' centres.

        Under perspective a sphere's outline is an ellipse whose centroid lies off the projected
        centre, away from the principal point; the offset is computed for the ball the centroid
        points at and taken off."""
        s = np.asarray(silhouette_px, np.float64).reshape(-1, 2)
        if self.camera is None or not len(s):
            return s.copy()
        return s - self._offset_at(s - self._offset_at(s))

    def steep(self, px: np.ndarray) -> np.ndarray:
        """(N, 2) raw px -> (N,) bool: seen within ``_STEEP_DEG`` of straight down (all False
        without a camera), from a grid of ``_OFFSET_STEP`` px (made once)."""
        px = np.asarray(px, np.float64).reshape(-1, 2)
        if self.camera is None:
            return np.zeros(len(px), bool)
        g = self._steep_table()
        i = np.clip(np.rint(px / _OFFSET_STEP).astype(int), 0, [g.shape[1] - 1, g.shape[0] - 1])
        return g[i[:, 1], i[:, 0]]

    def _offset_exact(self, px: np.ndarray) -> np.ndarray:
        """(N, 2) silhouette offset of the balls whose centres' plane points are at ``px``."""
        c = np.c_[self.camera.plane_points(px, self.r_mm), np.full(len(px), self.r_mm)]
        return _silhouette_offsets(self.camera, c, self.r_mm)

    def _offset_at(self, px: np.ndarray) -> np.ndarray:
        """``_offset_exact`` interpolated from a grid over the image (it varies slowly: a
        tenth of a pixel across a ball in the steepest views), exact off the grid."""
        x0, y0, grid = self._offset_table()
        fx = (px[:, 0] - x0) / _OFFSET_STEP
        fy = (px[:, 1] - y0) / _OFFSET_STEP
        ok = (fx >= 0) & (fy >= 0) & (fx < grid.shape[1] - 1) & (fy < grid.shape[0] - 1)
        out = np.full((len(px), 2), np.nan)
        i = np.floor(fx[ok]).astype(int)
        j = np.floor(fy[ok]).astype(int)
        ax, ay = (fx[ok] - i)[:, None], (fy[ok] - j)[:, None]
        out[ok] = ((grid[j, i] * (1 - ax) + grid[j, i + 1] * ax) * (1 - ay)
                   + (grid[j + 1, i] * (1 - ax) + grid[j + 1, i + 1] * ax) * ay)
        bad = ~np.isfinite(out).all(axis=1)
        if bad.any():
            out[bad] = self._offset_exact(px[bad])
        return out

    def ready(self) -> None:
        """Makes the grids that ``steep`` and ``centre_px`` read (else made on first use)."""
        if self.camera is not None:
            self._steep_table()
            self._offset_table()

    def _steep_table(self) -> np.ndarray:
        """(rows, columns) bool of ``steep`` on a grid of ``_OFFSET_STEP`` px (made once)."""
        if self._steep_grid is None:
            gx, gy, pts = _grid_points(self.image_size, 0)
            rays = self.camera.rays(pts)
            self._steep_grid = (-rays[:, 2] >= np.cos(np.radians(_STEEP_DEG))).reshape(
                len(gy), len(gx))
        return self._steep_grid

    def _offset_table(self) -> tuple[float, float, np.ndarray]:
        """(x, y of its first point, (rows, columns, 2) offsets, NaN far off the table) of the
        grid ``_offset_at`` reads (made once)."""
        if self._offset_grid is None:
            gx, gy, pts = _grid_points(self.image_size, 1)
            grid = np.full(pts.shape, np.nan)
            with np.errstate(all="ignore"):
                mm = self.camera.plane_points(pts, self.r_mm)
                t, m = self.table, 300.0  # the table and its rails
                near = ((mm[:, 0] > -m) & (mm[:, 0] < t.width_mm + m) & (mm[:, 1] > -m)
                        & (mm[:, 1] < t.length_mm + m) & (self.camera.rays(pts)[:, 2] < 0))
                grid[near] = self._offset_exact(pts[near])
            self._offset_grid = (gx[0], gy[0], grid.reshape(len(gy), len(gx), 2))
        return self._offset_grid


# frames after the one the cloth is relearnt from that the new model is used from (its
# relearning, 15-20 ms at 1080p, is spread over the frames looked at meanwhile)
_RELEARN_LAG = 2

# every distance of a pixel offset (up to this many pixels each way) from a disc's centre,
# sorted: a disc of radius r holds the offsets whose distance is one of the first
# ``bisect_right(r)`` of them, so radii with the same count make the same disc
_OFFSETS_MAX = 64
_OFFSET_DIST_LIST = np.unique(np.hypot(*np.ogrid[0:_OFFSETS_MAX + 1, 0:_OFFSETS_MAX + 1])
                             ).tolist()


@functools.cache
def ready_kernels() -> None:
    """The detector's compiled kernels made ready (compiled, or loaded from numba's cache)
    for the very argument types ``_refine``, ``_explain_blob``, ``_pieces`` and the cloth
    model pass them, once a process, before the first frame: a live source would drop the
    frames that come while they compile (some seconds, the first time on a machine)."""
    if not kernels.COMPILED:
        return
    frame = np.zeros((3, 3, 3), np.uint8)
    base = np.ones((1, 2), np.int64)
    gain = np.ones((1, 1, 1), np.float32)[..., 0]
    win, score, alpha, valid = kernels.window_pixels(frame, base, 1, gain, 0, 0, 1,
                                                     np.zeros(1, np.uint8), _SOFT)
    c = np.zeros((1, 2), np.float32)
    r = np.ones(1)
    kernels.refine_windows(alpha, valid, score, win, c, base, r, np.zeros((1, 0), np.int64),
                           np.full((1, 1), np.inf), 1, 1, 600.0, 2 * FG_LEVEL,
                           1.3 * FG_LEVEL)
    u = _ray_directions(8)
    _round_outline(c, r, u, np.ones((1, 8), np.float32), np.ones((1, 8), bool))
    half_w, near_w, n = _disc_kernels(2.0)
    kernels.place_discs(np.zeros((3, 3), np.int64), half_w, near_w, 1, 1.0, 1.0,
                        _NO_PREFERENCE)
    kernels.bar_end(np.zeros((3, 3), np.float32), 1.0, 1.0, 1.0)
    kernels.necks(np.zeros((3, 3), np.float32), np.zeros((2, 2)), np.zeros(2, bool), 1.0, _NECK)
    kernels.colour_alike(np.zeros((3, 3, 3), np.float32), np.zeros((3, 3), np.float32), 1.0, 1.0,
                         1.0, _ALIKE_LAB)
    kernels.free_arc(np.zeros((3, 3), np.float32), 1.0, 1.0, 1.0)
    kernels.body_means(np.zeros((1, 2, 3), np.float32), np.ones((1, 2), bool))
    kernels.close_pairs(np.zeros((2, 2)), np.ones(2), np.zeros((2, 2)), np.zeros((2, 3)),
                        np.zeros(3), 1.0)
    at = np.zeros(1, np.int64)
    for image in (frame, frame[:, 1:]):  # the work image made, or a crop of the frame itself
        kernels.median_ratio(kernels.grid_sums(image, at, at), np.ones(1, np.float32), 60.0)
    steps = np.ones((1, _STEPS), np.float32)
    kernels.ray_maps(c, u, steps, 3)
    kernels.outline_points(np.zeros((1, len(u), _STEPS), np.float32), steps)
    # the work image and gain whole (contiguous) and a box of them (not)
    small, gain = np.zeros((3, 3, 3), np.uint8), np.ones((3, 3, 1), np.float32)
    for box in (np.s_[:, :], np.s_[:, 1:]):
        kernels.flat_scores(small[box], gain[box][..., 0], _NO_SCORES)
    kernels.box_round(3, 3, 1.0, 1.0, 1.0)
    ClothModel(np.full(3, 1 / 3), 0.01, 300.0).lut()


def _disc_kernels(r: float) -> tuple[np.ndarray, np.ndarray, int]:
    """What ``_explain_blob`` places for a ball of radius ``r`` (work px), as
    ``kernels.place_discs`` takes them: the half-widths of the rows of the disc a found ball
    covers and clears (a little more than the ball: the halo and a radius a bit off leave no
    crescent for a second disc), those of the disc round it where no second ball can be (a
    nearer one is the shadow under a ball, or its halo; in steep views the rows of the pack
    come to ~1.35 radii), and the first disc's count of pixels."""
    rr, rs = int(np.ceil(1.2 * r)), int(np.ceil(0.9 * r))
    if rr > _OFFSETS_MAX:
        return _disc_kernels_within(rr, r, rs, 0.9 * r)
    # the largest offset distance within each radius stands for it (the same discs)
    d_disc = _OFFSET_DIST_LIST[bisect.bisect_right(_OFFSET_DIST_LIST, r) - 1]
    k = bisect.bisect_right(_OFFSET_DIST_LIST, 0.9 * r) - 1
    return _disc_kernels_within(rr, d_disc, rs, _OFFSET_DIST_LIST[k] if k >= 0 else -1.0)


def _half_widths(half: int, radius: float) -> np.ndarray:
    """(2 * half + 1,) int64 how far each row of the offsets within ``radius`` of a centre
    reaches either side of it (-1: not at all), rows -half..half."""
    yy, xx = np.ogrid[-half:half + 1, -half:half + 1]
    inside = np.hypot(xx, yy) <= radius
    reach = np.where(inside.any(axis=1), inside.sum(axis=1) // 2, -1)
    return reach.astype(np.int64)


@functools.lru_cache(maxsize=256)
def _disc_kernels_within(rr: int, r_disc: float, rs: int, r_near: float
                         ) -> tuple[np.ndarray, np.ndarray, int]:
    """``_disc_kernels``: windows of half-size ``rr`` and ``rs``, discs of the offsets within
    ``r_disc`` and ``r_near``."""
    disc, near = _readonly(_half_widths(rr, r_disc)), _readonly(_half_widths(rs, r_near))
    return disc, near, int((2 * disc + 1)[disc >= 0].sum())


@functools.lru_cache(maxsize=256)
def _ring_kernel(r: float) -> np.ndarray:
    """The mean filter of the ring 1.3 to 1.9 radii ``r`` from a disc's centre."""
    ro = int(np.ceil(1.9 * r))
    yo, xo = np.mgrid[-ro:ro + 1, -ro:ro + 1]
    ring = ((np.hypot(xo, yo) > 1.3 * r) & (np.hypot(xo, yo) <= 1.9 * r))
    return _readonly(ring.astype(np.float32) / float(max(ring.sum(), 1)))


def _grid_points(size: tuple[int, int], beyond: int
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Points every ``_OFFSET_STEP`` px over an image of ``size`` (w, h), from ``beyond`` steps
    before its first pixel to at least ``beyond`` steps past its last: the columns' x (X,),
    the rows' y (Y,) and the points (Y * X, 2) row by row."""
    w, h = size
    gx = np.arange(-beyond * _OFFSET_STEP, w + (1 + beyond) * _OFFSET_STEP, _OFFSET_STEP)
    gy = np.arange(-beyond * _OFFSET_STEP, h + (1 + beyond) * _OFFSET_STEP, _OFFSET_STEP)
    u, v = np.meshgrid(gx, gy)
    return gx, gy, np.c_[u.ravel(), v.ravel()]


def _silhouette_offsets(cam: Camera, centres_mm: np.ndarray, r_mm: float, n: int = 48
                        ) -> np.ndarray:
    """(N, 2) silhouette area centroid minus projected centre, for spheres at (N, 3) mm."""
    area, centroid, _ = polygon_moments(cam.sphere_outline(centres_mm, r_mm, n))
    return centroid - cam.project(centres_mm)


# -- the detector ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class DetectorConfig:
    """Settings of :class:`BallDetector`.

    work_radius_px: ball radius (px) the candidate search downscales to (at least).
    min_cover: least share of a disc a blob must fill for a ball there.
    adapt_rate: share of the cloth model replaced by each frame's own estimate.
    relearn_every: frames between recompiling the cloth lookup table (from one frame, on a
    thread of its own while that frame and the next are looked at; the frame that first uses
    the new table looks at the whole table).
    refine_iterations: centroid iterations at full resolution.
    edge_margin_mm: how far past the cushion noses a ball centre may be (balls in the jaws).
    max_spill: most not-cloth share of the ring just outside a ball (not a neighbour's).
    incremental: between whole-table passes (one each ``relearn_every`` frames), look again
    only where the picture changed since it was last looked at; elsewhere the balls found then
    stand.
    change_level: the change of a work-image pixel (8-bit, largest over B, G, R, averaged
    over 3 x 3 pixels) that makes it be looked at again.
    """

    work_radius_px: float = 4.5
    min_cover: float = 0.42
    adapt_rate: float = 0.05
    relearn_every: int = 30
    refine_iterations: int = 3
    edge_margin_mm: float = 15.0
    max_spill: float = 0.35
    incremental: bool = True
    change_level: int = 10


@dataclass
class _Frame:
    """Per-image-size precomputation: the work scale, region of interest and radius map."""

    scale: float
    roi: tuple[int, int, int, int]  # x0, y0, x1, y1 in full-resolution px
    work_size: tuple[int, int]
    mask: np.ndarray  # (h, w) uint8 255 inside the table area, work image
    radius: np.ndarray  # (h, w) float32 expected radius in full-res px, work image
    size: tuple[int, int]  # the full picture's (w, h)
    factor: int  # full-resolution px a work px (each way)
    room: np.ndarray  # (h, w) bool: a disc fits inside the table area there
    gain: np.ndarray | None = None  # (h, w, 1) float32 the cloth's flattening gain, once learnt
    # made on first use: the table area's work px on an 8 px grid (rows, columns); the median
    # expected radius in work px
    coarse: tuple[np.ndarray, np.ndarray] | None = None
    typical_r: float | None = None
    # the candidate search's parts (``_blob_setup``): the opening's kernel, what lies outside
    # the table area, its edge and beyond the picture's edge, the least area of an arm reaching
    # in, the margin and growth of a box searched
    open_kernel: np.ndarray | None = None
    border: np.ndarray | None = None
    edge: np.ndarray | None = None
    beyond: np.ndarray | None = None
    arm_area: float | None = None
    box_margin: int | None = None
    box_grow: int | None = None


@dataclass
class _Pieces:
    """The not-cloth blobs of one box of the work image: the box (x0, y0, x1, y1), its origin
    in the window being searched, its cloth-flattened BGR and score, its blobs opened to ball
    width (count, labels, stats, centroids as ``cv2.connectedComponentsWithStats``) and, when
    found, its blobs before that opening with which of them reach in from outside."""

    box: tuple[int, int, int, int]
    offset: tuple[int, int]
    flat: np.ndarray
    score: np.ndarray
    n: int
    labels: np.ndarray
    stats: np.ndarray
    cent: np.ndarray
    whole: np.ndarray | None = None
    wstats: np.ndarray | None = None
    reaching: np.ndarray | None = None


def _window_centroids(part: _Pieces, labels) -> tuple[np.ndarray, np.ndarray]:
    """(x, y) centroids of blobs ``labels`` of ``part`` in the window's px, as the window's own
    labelling gives them (the sum of the pixels' coordinates, exact, over the area)."""
    labels = np.asarray(labels, int)
    c = part.cent[labels]
    ox, oy = part.offset
    if not ox and not oy:
        return c[:, 0], c[:, 1]
    area = part.stats[labels, cv2.CC_STAT_AREA].astype(np.float64)
    return ((np.rint(c[:, 0] * area) + ox * area) / area,
            (np.rint(c[:, 1] * area) + oy * area) / area)


def _looked_at(part: _Pieces, meets: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
    """Which blobs of ``part`` meet ``meets`` ((h, w) bool of its box), (n,) bool, and which of
    its blobs before the opening hold them, or None when it has not got those."""
    look = np.bincount(part.labels[meets], minlength=part.n) > 0
    look[0] = False
    if part.whole is None:
        return look, None
    sel = np.zeros(len(part.wstats), bool)
    for i in np.flatnonzero(look):
        bx, by, bw, bh = part.stats[i, :4]
        sl = (slice(by, by + bh), slice(bx, bx + bw))
        sel[part.whole[sl][part.labels[sl] == i]] = True
    sel[0] = False
    return look, sel


def _blob_meets_window_edge(comp: np.ndarray, sel: np.ndarray, window: tuple[int, int, int, int],
         size: tuple[int, int]) -> bool:
    """Whether a blob of ``comp`` (labels of the ``window``) that ``sel`` picks meets an edge
    of the window inside the picture of ``size`` (w, h)."""
    x0, y0, x1, y1 = window
    hh, ww = comp.shape
    edges = ([comp[0]] if y0 > 0 else []) + ([comp[:, 0]] if x0 > 0 else []) + (
        [comp[hh - 1]] if y1 < size[1] else []) + ([comp[:, ww - 1]] if x1 < size[0] else [])
    return bool(edges) and bool(sel[np.concatenate(edges)].any())


def _streak_centre(blob: np.ndarray, r: float, found: int, stood: np.ndarray | None = None,
                   going: np.ndarray | None = None) -> tuple[float, float] | None:
    """The middle (x, y) of ``blob`` (bool, its box) if it is one ball's blur streak, else None.

    A streak is a straight band as wide as a ball all along (``_ball_wide``), with round ends,
    filling that shape, and either longer than 5 radii ``r`` with fewer discs ``found`` in it
    than balls in a row would give, or (``stood``: where the last answer's balls stood, (M, 2)
    in the box's px) from ``_SHORT_STREAK`` radii long with the nearest of those balls a radius
    or more behind its middle along it and none on the band ahead: a long-shutter blur shows a
    head and a tail. ``going`` (M, 2), how far each of those balls had gone since the answer
    before: a ball going at a radius or more a frame towards the middle may lie only half a
    radius behind it (the last answer held it at its blur's head)."""
    cov = _blob_cov(blob)
    if cov is None:
        return None
    # the variance along its long axis (closed form): a band 3 radii long has 0.59 r^2 or
    # more (1.6 to 2 radii wide), a ball 0.25 r^2
    a, b, c = float(cov[0, 0]), float(cov[0, 1]), float(cov[1, 1])
    long = (a + c) / 2 + float(np.hypot((a - c) / 2, b))
    if long < _BAND_VARIANCE * r * r:
        return None
    axis = np.array([b, long - a]) if abs(b) > 1e-9 * (a + c) else np.array(
        [1.0, 0.0] if a >= c else [0.0, 1.0])
    axis /= np.hypot(*axis)
    ys, xs = np.nonzero(blob)
    cx, cy = xs.mean(), ys.mean()
    along = (xs - cx) * axis[0] + (ys - cy) * axis[1]
    lo, hi = along.min(), along.max()
    length = hi - lo + 1.0
    strict = length >= 5 * r and found < int(length / (2 * r))
    if not strict and (stood is None or not len(stood) or length < _SHORT_STREAK * r):
        return None
    # the width (px per unit of length) between the two round ends, over three units (across
    # a slanted band, the pixels' rows fall unevenly into single units)
    bins = np.floor(along - lo).astype(int)
    width = np.convolve(np.bincount(bins, minlength=int(np.ceil(length))), np.ones(3) / 3,
                        "same")
    inner = width[int(np.ceil(r)):max(int(length - r), int(np.ceil(r)) + 1)]
    if not _ball_wide(inner / r):
        return None
    # the band with round ends, as wide as a ball or as the streak if narrower (a dim one:
    # its edges, the ball's colour mixed with the cloth's, fall under the threshold)
    w = min(float(np.median(inner)), 2 * r)
    band = w * (length - w) + np.pi * w * w / 4
    if len(xs) < 0.85 * band:
        return None
    if not strict:
        rel = stood - [cx, cy]
        at, off = rel @ axis, rel @ [-axis[1], axis[0]]
        k = int(np.argmin(np.hypot(at, off)))
        gone = float(np.hypot(at[k], off[k]))
        on_band = (np.abs(off) < r) & (np.abs(at) < length / 2 + r)
        cos = np.cos(np.radians(_STREAK_AXIS_DEG))
        came = gone >= r
        if not came and going is not None and gone >= 0.5 * r:
            step = float(np.hypot(*going[k]))
            came = step >= r and float(-rel[k] @ going[k]) >= cos * step * gone
        if not came or abs(at[k]) < cos * gone or (on_band & (at * at[k] < 0)).any():
            return None
    return float(cx), float(cy)


def _ball_wide(widths: np.ndarray) -> bool:
    """Whether a band whose widths (radii) between its round ends are ``widths`` is as wide as
    one ball all along: 1.6 to 2.6 radii; to 2.9 where its soft edges widen it evenly (its
    widest part at most 1.3 times its narrowest: a blurred ball run into one at rest, whose
    sharp edge is narrower, is wider in one part only); down to 1.4 in the third at one end,
    where the noise may thin a faint end (thinner elsewhere: a neck between two things, or a
    band thin at both ends)."""
    n = len(widths)
    if not n or widths.min() < 1.4 or widths.max() > 2.9:
        return False
    thin = np.flatnonzero(widths < 1.6)
    if len(thin) > n / 3 or (len(thin) and thin[0] < 2 * n / 3 and thin[-1] >= n / 3):
        return False
    return not (widths.max() > 2.6 and widths.max() > 1.3 * widths.min())


def _core_ratios(stats: np.ndarray, r_pred: np.ndarray, strong: np.ndarray,
                 r_near: np.ndarray, most: float) -> np.ndarray:
    """Of the lone, round blobs, their clearly-not-cloth core's radius (as a disc) over their
    predicted radii ``r_pred``. ``stats`` (K, 5) connected-component stats, ``strong`` (K,)
    their counts of clearly-not-cloth pixels; a lone blob covers 0.3 to ``most`` times a disc
    of ``r_near`` (K,), its box about square, and is mostly clearly not cloth."""
    area = stats[:, cv2.CC_STAT_AREA].astype(float)
    bw, bh = stats[:, cv2.CC_STAT_WIDTH], stats[:, cv2.CC_STAT_HEIGHT]
    disc = np.pi * r_near ** 2
    lone = ((area > 0.3 * disc) & (area < most * disc) & (np.abs(bw - bh) <= 0.3 * (bw + bh))
            & (r_pred > 0) & (strong > 0.5 * area))
    return np.sqrt(strong[lone] / np.pi) / r_pred[lone]


def _agreed(ratios: np.ndarray, fewest: int) -> float | None:
    """The median of ``ratios``, or None with fewer than ``fewest`` or when they disagree (their
    median deviation over a tenth: some are no balls, a hand, the cue's tip)."""
    if len(ratios) < fewest:
        return None
    ratio = float(np.median(ratios))
    return None if np.median(np.abs(ratios - ratio)) > 0.1 * ratio else ratio


def _size_ratio(stats: np.ndarray, r_pred: np.ndarray, strong: np.ndarray) -> float | None:
    """The balls' apparent radius over a snooker ball's at their places, from the cores
    (``_core_ratios``, blobs up to six discs in area) of 0.8 or more (a ball of about the
    cloth's colour shows only part of itself as clearly not cloth, never more than itself),
    five or more agreeing; without the bounds ``radius_scale`` keeps to. Snooker balls measure
    at most 1.20 on the real and sample footage; a pool table's 57 mm balls on a table two
    thirds as long, taken for a snooker table, about 1.5."""
    ratios = _core_ratios(stats, r_pred, strong, r_pred, 6.0)
    return _agreed(ratios[ratios >= 0.8], 5)


def not_snooker(detector: BallDetector) -> str | None:
    """What to tell the user when the balls the ``detector`` has measured are far too big
    for the snooker table it was calibrated for (a pool table, most likely), else None."""
    r = detector.size_ratio
    if r is None or r < _NOT_SNOOKER:
        return None
    return (f"the balls look {r:.1f} times the size of snooker balls on this table: is it a "
            "pool table? cueball follows snooker only, and its calls here will be wrong")


def _lone_shaped(area, width, height, r):
    """Whether a blob of ``area`` px in a box ``width`` x ``height`` is taken for one ball of
    radius ``r`` as it is (scalars or arrays alike)."""
    return (area <= 1.15 * (np.pi * r * r)) & (np.maximum(width, height) <= 2.3 * r)


def _boxes_cover_window(boxes: list[tuple[int, int, int, int]],
                        window: tuple[int, int, int, int]) -> bool:
    """Whether ``boxes`` (x0, y0, x1, y1) cover 80 % of ``window``'s area or more (as well
    search the window)."""
    wx0, wy0, wx1, wy1 = window
    return sum((x1 - x0) * (y1 - y0) for x0, y0, x1, y1 in boxes) >= 0.8 * (
        (wx1 - wx0) * (wy1 - wy0))


def _spans_inside_boxes(spans: np.ndarray, boxes: list[tuple[int, int, int, int]], margin: int,
          size: tuple[int, int]) -> bool:
    """Whether each of the work-image ``spans`` (K, 4: x, y, w, h) lies in one of ``boxes``
    (x0, y0, x1, y1) at least ``margin`` px in from its edges inside the picture of ``size``
    (w, h), as ``_changed_blobs`` asks of a box's blobs."""
    if not len(spans):
        return True
    if not boxes:
        return False
    b = np.array(boxes)
    lo = np.where(b[:, :2] > 0, b[:, :2] + margin, 0)
    hi = np.where(b[:, 2:] < size, b[:, 2:] - margin, size)
    x0, y0, x1, y1 = (spans[:, 0, None], spans[:, 1, None], (spans[:, 0] + spans[:, 2])[:, None],
                      (spans[:, 1] + spans[:, 3])[:, None])
    inside = (x0 >= lo[:, 0]) & (y0 >= lo[:, 1]) & (x1 <= hi[:, 0]) & (y1 <= hi[:, 1])
    return bool(inside.any(1).all())


def _box_round_spans(spans: np.ndarray) -> tuple[int, int, int, int] | None:
    """The box (x0, y0, x1, y1) round the ``spans`` (K, 4: x, y, w, h), or None for none."""
    if not len(spans):
        return None
    return (int(spans[:, 0].min()), int(spans[:, 1].min()), int((spans[:, 0] + spans[:, 2]).max()),
            int((spans[:, 1] + spans[:, 3]).max()))


def _first_block(part: _Pieces, i: int) -> tuple[int, int]:
    """The (row, column) of the first 2 x 2 block of the window's pixels that blob ``i`` of
    ``part`` meets (the order connected-component labelling numbers blobs in)."""
    bx, by, bw, bh = part.stats[i, :4]
    ox, oy = part.offset
    top = (oy + by) // 2
    rows = slice(max(2 * top - oy, by), min(2 * top - oy + 2, by + bh))
    cols = np.flatnonzero((part.labels[rows, bx:bx + bw] == i).any(0))
    return top, (ox + bx + int(cols[0])) // 2


def _grow_box(box: tuple[int, int, int, int], by: int, window: tuple[int, int, int, int]
           ) -> tuple[int, int, int, int]:
    """``box`` grown by ``by`` px each way, inside ``window``, its origin an even number of
    pixels from the window's."""
    wx0, wy0, wx1, wy1 = window
    x0, y0 = max(box[0] - by, wx0), max(box[1] - by, wy0)
    return (x0 - (x0 - wx0) % 2, y0 - (y0 - wy0) % 2, min(box[2] + by, wx1),
            min(box[3] + by, wy1))


def _merge_boxes(boxes: list[tuple[int, int, int, int]]) -> list[tuple[int, int, int, int]]:
    """Overlapping boxes joined into their bounding boxes until none overlap."""
    boxes = list(boxes)
    joined = True
    while joined:
        joined = False
        for i in range(len(boxes)):
            for j in range(i + 1, len(boxes)):
                a, b = boxes[i], boxes[j]
                if a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]:
                    boxes[i] = (min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]),
                                max(a[3], b[3]))
                    del boxes[j]
                    joined = True
                    break
            if joined:
                break
    return boxes


class BallDetector:
    """Finds balls in frames of one camera.

    ``detector.detect(frame)`` -> :class:`Detections` with ``cls`` -1 (classification is
    ``tracker.vision.colour``) and ``lab`` set. The cloth model is learnt from the first frame and
    adapted on each later one; call ``reset()`` when the scene changes.
    """

    def __init__(self, calibration: Calibration, table: SnookerTableSpec = SNOOKER,
                 config: DetectorConfig | None = None):
        ready_kernels()
        self.geometry = TableGeometry(calibration, table)
        self.table = table
        self.config = config or DetectorConfig()
        self._cloth: ClothModel | None = None
        self._lut: np.ndarray | None = None
        self._table: np.ndarray | None = None  # ``_lut`` as ``score_table`` lays it out
        self._frames_since_lut = 0
        # the cloth being relearnt (a Future of ``_learn_cloth``), used ``_RELEARN_LAG`` frames
        # after the frame it is learnt from
        self._relearning: concurrent.futures.Future | None = None
        self._relearn_thread: concurrent.futures.ThreadPoolExecutor | None = None
        self._prep: _Frame | None = None
        self._prep_lock = threading.Lock()  # ``work_image`` may be called on another thread
        # measured / predicted ball radius: corrects a calibration whose focal length and
        # distance are off together (the homography can be right while the scale is not)
        self.radius_scale = 1.0
        self._radius_measured = False
        # the balls' apparent size over a snooker ball's at their places, unbounded (None: not
        # measured yet); see ``_size_ratio``
        self.size_ratio: float | None = None
        # where the lamps put a ball's highlight, from its silhouette's centre in radii (x, y),
        # as the lone balls show it (None: not one highlight at one place)
        self._glint_at: np.ndarray | None = None
        # what the last look's lone balls tell of it, not yet worked out (``_glint_place``'s
        # arguments)
        self._glint_from: tuple | None = None
        # the last answer (and the one before it) and the work image each part of it was found
        # in
        self._last: Detections | None = None
        self._before: Detections | None = None
        # the last answer, the one before and ``_last_steps_px``'s steps between them
        self._steps: tuple = (None, None, None)
        self.look = LastLook()  # what it saw when it last looked, and the light since
        # how many frames in a row the changes searched in boxes were cut by them, and the box
        # (x0, y0, x1, y1) round what the last search of the whole picture after a cut window
        # held (``_changed_blobs``)
        self._boxes_cut = 0
        self._reach: tuple[int, int, int, int] | None = None
        # what depends on the camera alone is made now, not while the first frame waits (and
        # OpenCV's tables for 8-bit Lab, made on their first use)
        self._blob_setup(self._prepare(*calibration.image_size))
        self.geometry.ready()
        cv2.cvtColor(np.zeros((1, 1, 3), np.uint8), cv2.COLOR_BGR2LAB)

    @property
    def cloth(self) -> ClothModel | None:
        return self._cloth

    def reset(self) -> None:
        self._relearning = None
        self._cloth = None
        self._lut = None
        self._table = None
        self.radius_scale = 1.0
        self._radius_measured = False
        self.size_ratio = None
        self._glint_at = self._glint_from = None
        self._last = self._before = None
        self._steps = (None, None, None)
        self.look = LastLook()
        self._boxes_cut = 0
        self._reach = None

    # -- precomputation -------------------------------------------------------------------------
    def _prepare(self, w: int, h: int) -> _Frame:
        with self._prep_lock:
            if self._prep is None or self._prep.size != (w, h):
                self._prep = self._prepared(w, h)
            return self._prep

    def _prepared(self, w: int, h: int) -> _Frame:
        geo, t = self.geometry, self.table
        cw, ch = geo.image_size
        if (cw, ch) != (w, h):
            raise ValueError(f"frame is {w}x{h} but the calibration is for {cw}x{ch}")
        # expected radius and table-plane position on a coarse grid of the full image
        step = 8
        gx = np.arange(0, w + step, step, dtype=np.float64).clip(0, w - 1)
        gy = np.arange(0, h + step, step, dtype=np.float64).clip(0, h - 1)
        u, v = np.meshgrid(gx, gy)
        pts = np.c_[u.ravel(), v.ravel()]
        mm = geo.to_table(pts)
        r_px = geo.radius_px(mm).reshape(u.shape)
        # a ball's silhouette reaches further from its centre's plane point the lower the view
        # (a ray through the silhouette passes within one radius of the centre)
        if geo.camera is not None:
            d = geo.camera.rays(pts)
            sin_el = np.clip(-d[:, 2], 0.2, 1.0).reshape(u.shape)
        else:
            sin_el = np.ones(u.shape)
        # ... but not over the rails, whose edges would join balls against the cushion to
        # blobs reaching in from outside
        reach = np.minimum(geo.r_mm / sin_el + 5.0, geo.r_mm + 20.0)
        x, y = mm[:, 0].reshape(u.shape), mm[:, 1].reshape(u.shape)
        inside = ((x > -reach) & (x < t.width_mm + reach) & (y > -reach)
                  & (y < t.length_mm + reach) & np.isfinite(r_px))
        # camera behind the plane for this pixel (sky): plane_points meets it behind
        if geo.camera is not None:
            inside &= d[:, 2].reshape(u.shape) < -1e-3
        ys, xs = np.nonzero(inside)
        if not len(xs):
            raise ValueError("the calibrated table is not in view")
        r_in = r_px[inside]
        pad = int(np.ceil(2 * r_in.max())) + step
        x0 = int(max(gx[xs.min()] - pad, 0))
        x1 = int(min(gx[xs.max()] + pad, w))
        y0 = int(max(gy[ys.min()] - pad, 0))
        y1 = int(min(gy[ys.max()] + pad, h))
        scale = float(min(1.0, self.config.work_radius_px / max(np.percentile(r_in, 5), 1e-3)))
        # integer downscale factors keep INTER_AREA a plain box average
        factor = max(1, int(np.floor(1 / scale)))
        scale = 1.0 / factor
        ww, wh = (x1 - x0) // factor, (y1 - y0) // factor
        x1, y1 = x0 + ww * factor, y0 + wh * factor
        # grid -> work image: work pixel (i, j) is full-res ((j + 0.5) * f - 0.5 + x0, ...)
        wx = (np.arange(ww) + 0.5) * factor - 0.5 + x0
        wy = (np.arange(wh) + 0.5) * factor - 0.5 + y0
        mx = (wx / step).astype(np.float32)
        my = (wy / step).astype(np.float32)
        mapx, mapy = np.meshgrid(mx, my)
        radius = cv2.remap(np.nan_to_num(r_px, nan=0).astype(np.float32), mapx, mapy,
                           cv2.INTER_LINEAR)
        mask = cv2.remap(inside.astype(np.uint8) * 255, mapx, mapy, cv2.INTER_LINEAR)
        mask = np.where(mask > 127, 255, 0).astype(np.uint8)
        # where a disc fits inside the table area (for blobs reaching in from outside it)
        room = cv2.distanceTransform(mask, cv2.DIST_L2, 3) > 1.1 * radius / factor
        return _Frame(scale, (x0, y0, x1, y1), (ww, wh), mask, radius, size=(w, h),
                      factor=factor, room=room)

    def _learn_cloth(self, small: np.ndarray, prep: _Frame, rate: float) -> tuple:
        """The cloth model learnt (first frame) or adapted (later frames, a share ``rate`` of it
        replaced) from the work image: (gain (h, w, 1), model, lookup table, ``score_table``),
        for ``_use_cloth``. Changes nothing, so it may run on another thread while the frame is
        looked at with the model so far.

        The cloth's colour varies across the table (lamps, vignetting, camera white balance):
        a gain per pixel and channel, smooth over several balls' widths, brings the cloth to
        one colour (``flatten``) so that one tight colour model serves the whole table."""
        mask = prep.mask > 0
        if self._lut is None:
            rough = ClothModel.learn(small[::2, ::2][mask[::2, ::2]])
            cloth = (rough.lut()[lut_index(small)] < FG_LEVEL // 2) & mask
        else:  # the cloth as the model so far sees it
            _, score = kernels.flat_scores(small, prep.gain[..., 0], self._table)
            cloth = (score < FG_LEVEL // 2) & mask
        gain = _flat_gain(small, cloth, prep.factor)
        if self._cloth is not None:
            gain = prep.gain + rate * (gain - prep.gain)
        # every third pixel each way is plenty (the model takes ~12000 of them): only those
        # flattened
        sub = (slice(None, None, 3), slice(None, None, 3))
        flat, _ = kernels.flat_scores(small[sub], gain[sub + (0,)], _NO_SCORES)
        model = ClothModel.learn(flat[cloth[sub]] if cloth[sub].sum() > 60 else flat[mask[sub]])
        if self._cloth is not None:
            model = self._cloth.blend(model, rate)
        lut = model.lut()
        return gain, model, lut, score_table(lut)

    def _relearn_cloth(self, small: np.ndarray, prep: _Frame, rate: float) -> tuple | None:
        """``_learn_cloth`` of a later frame, or None where it is too dark to learn from (the
        lamps going out): the model so far is kept."""
        try:
            return self._learn_cloth(small, prep, rate)
        except ValueError:
            return None

    def _use_cloth(self, learnt: tuple, prep: _Frame) -> None:
        """The cloth model that ``_learn_cloth`` gave from now on."""
        prep.gain, self._cloth, self._lut, self._table = learnt

    def _relearner(self) -> concurrent.futures.ThreadPoolExecutor:
        """The detector's own thread for relearning the cloth (made on first use)."""
        if self._relearn_thread is None:
            self._relearn_thread = concurrent.futures.ThreadPoolExecutor(
                max_workers=1, thread_name_prefix="cueball-cloth")
        return self._relearn_thread

    # -- per frame ------------------------------------------------------------------------------
    def score(self, frame: np.ndarray) -> np.ndarray:
        """(H, W) uint8 not-cloth score of a whole frame (for display and tests);
        ``FG_LEVEL`` (64) is the threshold."""
        if self._lut is None:
            raise RuntimeError("no cloth model yet: call detect() on a frame first")
        return scores(self._table, frame)

    def in_view(self, work: np.ndarray, tinted: bool = False) -> bool:
        """Whether the work image ``work`` (``work_image``) shows the table: at least
        ``_IN_VIEW`` of the table area (every 4th of the pixels on a grid of every 8th work
        pixel each way) looks like the cloth under the cloth model, as it is or brought back to
        the brightness of the table last looked at (the lamps dimmed down to ``_DIMMEST`` of
        it, or brightened) (a broadcast's cut to the crowd, a player's face, the lamps switched
        off, the camera turned away: none). With ``tinted`` each of B, G, R is brought back
        on its own (the camera's white balance moved, lamps of another colour): three free
        gains let more pictures pass for the table, so the caller asks for it only where
        something else (the cushions' edges in place) says the camera still sees the table.
        True before a cloth model is learnt."""
        if self._table is None:
            return True
        prep = self._prepare(*self.geometry.image_size)
        r, c = sparse_points(prep)
        pixels = self.look.uncast(work[r, c][None])[0]
        smooth = _smooth(pixels, self.look.uncast(
            work[r, np.minimum(c + 2, work.shape[1] - 1)][None])[0])
        if not tinted and self._mostly_cloth(pixels, len(r), smooth):
            return True
        if self.look.image is None:
            return False
        if tinted:
            gain = self.look.light(self.look.uncast(work), prep)[0]
            if not np.isfinite(gain).any():
                return False
            gain = np.where(np.isfinite(gain), gain, np.nanmean(gain))
            if not ((_DIMMEST <= gain) & (gain <= 1.0 / _DIMMEST)).all():
                return False
            back = np.clip(pixels / gain.astype(np.float32), 0, 255).astype(np.uint8)
            return self._mostly_cloth(back, len(r), smooth)
        # the lamps dimmed or brightened: the whole picture darker or lighter alike, the
        # cloth's colour kept
        gain = self.look.lamps(self.look.uncast(work), prep)
        if not _DIMMEST <= gain <= 1.0 / _DIMMEST or abs(gain - 1.0) < 0.05:
            return False
        return self._mostly_cloth(cv2.convertScaleAbs(pixels, alpha=1.0 / gain), len(r), smooth)

    def cloth_share(self, frame: np.ndarray, step: int = 16) -> float:
        """The share of the whole BGR ``frame`` (every ``step``-th pixel each way) that looks
        like the cloth and is as smooth as it (a picture of the table from anywhere: another
        camera's view); 0 before a cloth model is learnt."""
        if self._table is None:
            return 0.0
        grid = frame[step // 2::step, step // 2::step]
        beside = frame[step // 2::step, step // 2 + 2::step][:, :grid.shape[1]]
        grid = grid[:, :beside.shape[1]]
        pixels = self.look.uncast(grid.reshape(-1, 3)[None])[0]
        smooth = _smooth(pixels, self.look.uncast(beside.reshape(-1, 3)[None])[0])
        cloth = (scores(self._table, pixels[None])[0] < FG_LEVEL) & smooth
        return float(cloth.mean()) if len(cloth) else 0.0

    def covers(self, frame: np.ndarray, px: np.ndarray) -> bool:
        """Whether the cloth covers the pixels at ``px`` (N, 2) (x, y) of the BGR ``frame``:
        at least ``_IN_VIEW`` of them look like it under the cloth model (those outside the
        picture do not). True before a cloth model is learnt."""
        if self._table is None:
            return True
        h, w = frame.shape[:2]
        xy = np.rint(np.asarray(px, float)).astype(int)
        inside = (xy[:, 0] >= 0) & (xy[:, 0] < w) & (xy[:, 1] >= 0) & (xy[:, 1] < h)
        return self._mostly_cloth(self.look.uncast(frame[xy[inside, 1], xy[inside, 0]][None])[0],
                                  len(xy))

    def _mostly_cloth(self, pixels: np.ndarray, of: int, smooth: np.ndarray | None = None
                      ) -> bool:
        """Whether at least ``_IN_VIEW`` of ``of`` places look like the cloth, ``pixels``
        (K, 3) BGR being those of them in the picture (and, where given, ``smooth`` (K,) True
        there)."""
        cloth = scores(self._table, pixels[None])[0] < FG_LEVEL
        if smooth is not None:
            cloth &= smooth
        return float(cloth.sum()) >= _IN_VIEW * of

    def work_image(self, frame: np.ndarray) -> np.ndarray:
        """One BGR frame (H, W, 3) uint8 -> the work image the candidates are searched in: its
        table area box-averaged down to the work scale (h, w, 3) uint8. It depends on the frame
        alone, so it may be made on another thread, ahead of ``detect``."""
        if frame.ndim != 3 or frame.shape[2] != 3 or frame.dtype != np.uint8:
            raise ValueError(f"frame must be (H, W, 3) uint8, got {frame.shape} {frame.dtype}")
        prep = self._prepare(frame.shape[1], frame.shape[0])
        x0, y0, x1, y1 = prep.roi
        crop = frame[y0:y1, x0:x1]
        if prep.factor == 1:
            return crop
        return cv2.resize(crop, prep.work_size, interpolation=cv2.INTER_AREA)

    def detect(self, frame: np.ndarray, work: np.ndarray | None = None) -> Detections:
        """One BGR frame (H, W, 3) uint8 -> Detections (cls -1, lab set, xy_mm set); ``work``
        its ``work_image`` when made already.

        A frame where nothing on the table changed since the last look returns the very same
        ``Detections`` object."""
        small = self.work_image(frame) if work is None else work
        prep = self._prepare(frame.shape[1], frame.shape[0])
        if small.shape[1::-1] != prep.work_size:
            raise ValueError(f"work image must be {prep.work_size[0]}x{prep.work_size[1]}, got "
                             f"{small.shape[1]}x{small.shape[0]}")
        cfg = self.config
        self._frames_since_lut += 1
        whole = (not cfg.incremental or self._last is None or self.look.image is None)
        raw, small = small, self.look.uncast(small)
        if self.look.reference is None and self.look.image is not None:
            self.look.reference = self.look.sampled(self.look.image, prep)
        if not whole and tinted(*self.look.light(small, prep, self.look.reference)):
            # the light changed colour (the camera's white balance moved, at once or over a
            # second or two): the change taken off this picture and every later one, which
            # then look as in the light the cloth and the balls' colours were learnt in; the
            # whole table looked at again
            self.look.recast(small, prep)
            small = self.look.uncast(raw)
            self.look.reference = self.look.sampled(small, prep)
            whole = True
        lamps = 1.0 if whole else self.look.lamps(small, prep)
        learnt = None
        if abs(lamps - 1.0) >= _LAMPS_STEP:
            # the lamps dimmed or brightened at once: the cloth learnt afresh from this frame
            # (a model of the cloth under the lamps before takes it for something else) and the
            # whole table looked at with it; a relearning from before is dropped
            learnt = self._relearn_cloth(small, prep, 1.0)
        if learnt is not None:
            self._use_cloth(learnt, prep)
            self._relearning = None
            self._frames_since_lut = 0
            whole = True
        elif self._relearning is not None and self._frames_since_lut >= _RELEARN_LAG:
            # the cloth relearnt from a frame a few before (on a thread of its own, while
            # those frames were looked at), and the whole table looked at with it
            learnt = self._relearning.result()
            if learnt is not None:
                self._use_cloth(learnt, prep)
            self._relearning = None
            whole = True
        elif self._lut is None:
            self._use_cloth(self._learn_cloth(small, prep, 1.0), prep)
            self._frames_since_lut = 0
            whole = True
        elif self._relearning is None and self._frames_since_lut >= cfg.relearn_every:
            rate = min(1.0, cfg.adapt_rate * max(self._frames_since_lut, 1))
            self._relearning = self._relearner().submit(self._relearn_cloth, small, prep, rate)
            self._frames_since_lut = 0
        window = (0, 0, small.shape[1], small.shape[0])
        region = None
        if not whole:
            region = self.look.changed(small, prep, lamps, self.config.change_level)
            if region is None:
                return self._last
            window = self._window(region, prep)
        frame = self.look.uncast(frame)  # only where it is looked at (1 ms at 1080p)
        found = self._balls_in_window(frame, small, prep, window, region)
        if found is not None:
            self._reach = None
        else:
            # something changed reaches out of the window (an arm from beyond the table): what
            # changed, looked at in the whole picture, which cuts nothing (at once, its boxes
            # cut as the window's were, or in one box more round what the frame before's
            # search of the whole picture held: a player beside the table)
            window = (0, 0, small.shape[1], small.shape[0])
            found = self._balls_in_window(frame, small, prep, window, region, in_boxes=False)
        new, kept, claimed = found
        self.look.sums = self.look.samples = None
        if kept is None:
            self.look.image = small.copy()
            self.look.brightest = None
            self.look.swing = 0.0
            result = new
        else:
            # what was looked at is seen again: only the box round it changes
            mask = claimed.view(np.uint8)
            bx, by, bw, bh = cv2.boundingRect(mask)
            if bw:
                x0, y0 = window[0] + bx, window[1] + by
                box = (x0, y0, x0 + bw, y0 + bh)
                seen = self.look.image[y0:y0 + bh, x0:x0 + bw]
                now = small[y0:y0 + bh, x0:x0 + bw]
                if self.look.gain != 1.0:
                    # kept at the brightness of the rest of ``look.image`` (the lamps' at the last
                    # whole look), which the change search compares the picture's with
                    now = cv2.convertScaleAbs(now, alpha=1.0 / self.look.gain)
                out = cv2.copyTo(now, mask[by:by + bh, bx:bx + bw], seen)
                if not np.shares_memory(out, seen):
                    seen[...] = out
                if self.look.brightest is not None:
                    self.look.update_brightest(box)
            result = _dedupe(_concat(kept, new), cloth_lab=self._cloth.lab())
        self._before, self._last = self._last, result
        return result

    @staticmethod
    def _window(region: np.ndarray, prep: _Frame) -> tuple[int, int, int, int]:
        """The work-image box (x0, y0, x1, y1) around ``region`` with room for a pack of balls
        beside it."""
        x, y, bw, bh = cv2.boundingRect(region)
        m = int(np.ceil(8 * prep.typical_r))
        hh, ww = region.shape
        return max(x - m, 0), max(y - m, 0), min(x + bw + m, ww), min(y + bh + m, hh)

    def _balls_in_window(self, frame: np.ndarray, small: np.ndarray, prep: _Frame,
              window: tuple[int, int, int, int], region: np.ndarray | None, in_boxes: bool = True):
        """Balls in the work-image ``window`` (in the blobs that meet ``region``, or all):
        (Detections, the balls of the last answer that stand (None without a ``region``), the
        window's (h, w) bool of what was looked at), or None when a blob to be looked at is cut
        by the window. ``in_boxes`` False: the window is the whole picture after a window that
        was cut (see ``_changed_blobs``)."""
        cfg = self.config
        x0, y0 = prep.roi[:2]
        f = prep.factor
        found = self._candidates(small, prep, window, region, in_boxes)
        if found is None:
            return None
        centres_w, claimed, streak = found
        kept = None if region is None else self._last_balls_outside(prep, window, claimed)
        if not len(centres_w):
            return Detections.empty(with_mm=True), kept, claimed
        # work px -> full-res px
        cands = (centres_w + 0.5) * f - 0.5 + np.array([x0, y0])
        n_new = len(cands)
        if kept is not None and len(kept):
            # balls that stand beside the new candidates share the refinement's cells
            old = kept.xy_px
            d = np.hypot(*(old[:, None] - cands[None]).transpose(2, 0, 1)).min(1)
            cands = np.concatenate([cands, old[d < 3 * kept.r_px]])
        streak = np.r_[streak, np.zeros(len(cands) - n_new, bool)]
        r_exp = self._radius_at(cands, prep)
        sil, cover, lab, ok, lit = self._refine(frame, cands, r_exp, prep, streak)
        placed = self._by_highlights(frame, sil, r_exp, lab,
                                     ok & (np.arange(len(ok)) < n_new) & ~streak)
        if placed is not None:  # the balls of a cluster placed by their highlights
            blurred = cands[:n_new][streak[:n_new]]
            cands = np.concatenate([placed, blurred, cands[n_new:]])
            streak = np.r_[np.zeros(len(placed), bool), np.ones(len(blurred), bool),
                           np.zeros(len(cands) - len(placed) - len(blurred), bool)]
            n_new = len(placed) + len(blurred)
            r_exp = self._radius_at(cands, prep)
            sil, cover, lab, ok, lit = self._refine(frame, cands, r_exp, prep, streak)
        ok = ok & (np.arange(len(ok)) < n_new)
        sil, cover, lab, r_exp, lit = sil[ok], cover[ok], lab[ok], r_exp[ok], lit[ok]
        if not len(sil):
            return Detections.empty(with_mm=True), kept, claimed
        xy = self.geometry.centre_px(sil, r_exp)
        mm = self.geometry.to_table(xy)
        r_exp = self.geometry.radius_px(mm) * self.radius_scale  # ``_radius_at(xy)``
        t, m = self.table, cfg.edge_margin_mm
        r = t.ball_radius_mm
        inside = ((mm[:, 0] > r - m) & (mm[:, 0] < t.width_mm - r + m)
                  & (mm[:, 1] > r - m) & (mm[:, 1] < t.length_mm - r + m))
        # a ball barely off the cloth's colour (a blue on a blue cloth under dimmed lamps) fills
        # less of its disc: the lamps' highlight in its middle tells it
        keep = inside & (cover >= np.where(lit, _LIT_COVER, cfg.min_cover))
        conf = np.clip(cover, 0, 1)
        d = Detections(xy[keep], r_exp[keep], np.full(int(keep.sum()), -1), conf[keep], mm[keep],
                       lab[keep])
        return _dedupe(d, cloth_lab=self._cloth.lab()), kept, claimed

    def _last_balls_outside(self, prep: _Frame, window: tuple[int, int, int, int],
                            claimed: np.ndarray) -> Detections:
        """The balls of the last answer outside what was looked at again."""
        last = self._last
        if not len(last):
            return last
        x0, y0 = prep.roi[:2]
        f = prep.factor
        w = np.rint((last.xy_px - [x0, y0] + 0.5) / f - 0.5).astype(int)
        wx0, wy0, wx1, wy1 = window
        inw = (w[:, 0] >= wx0) & (w[:, 0] < wx1) & (w[:, 1] >= wy0) & (w[:, 1] < wy1)
        drop = np.zeros(len(last), bool)
        drop[inw] = claimed[w[inw, 1] - wy0, w[inw, 0] - wx0]
        return last[~drop]

    def _radius_at(self, xy_px: np.ndarray, prep: _Frame) -> np.ndarray:
        mm = self.geometry.to_table(xy_px)
        return self.geometry.radius_px(mm) * self.radius_scale

    def _candidates(self, small: np.ndarray, prep: _Frame, window: tuple[int, int, int, int],
                    region: np.ndarray | None, in_boxes: bool = True):
        """Ball candidates (K, 2) in work-image px in the work-image ``window`` (x0, y0, x1, y1)
        of the work image ``small``, with the window's (h, w) bool of what was looked at and
        which candidates (K,) are the middle of a ball's blur streak. With
        a ``region`` (the work image's changed pixels) only the blobs meeting it are looked at,
        and None is returned when one of them is cut by the window's edge."""
        self._blob_setup(prep)
        wx0, wy0, wx1, wy1 = window
        sub = (slice(wy0, wy1), slice(wx0, wx1))
        if region is None:
            part = self._pieces(small, prep, window, window, always_whole=False)
            n = part.n
            r_blob = self._blob_radii(part, range(1, n), prep)
            strong = np.bincount(part.labels[part.score >= 2 * FG_LEVEL], minlength=n)[1:]
            self._measure_radius(part.stats[1:], r_blob, strong)
            if self.size_ratio is None:
                self.size_ratio = _size_ratio(part.stats[1:], r_blob, strong)
            claimed = np.ones((wy1 - wy0, wx1 - wx0), bool)
            blobs = [(part, i, rb) for i, rb in zip(range(1, n), r_blob)]
        else:
            meets = region[sub] > 0
            blobs = self._changed_blobs(small, prep, window, region, in_boxes)
            if blobs is None:
                return None
            claimed = meets.copy()
            for part, i, _ in blobs:
                bx, by, bw, bh = part.stats[i, :4]
                ox, oy = part.box[0] - wx0, part.box[1] - wy0
                claimed[oy + by:oy + by + bh, ox + bx:ox + bx + bw] |= (
                    part.labels[by:by + bh, bx:bx + bw] == i)
        border = prep.border[sub]
        out = []
        for part, i, r_blob in blobs:
            out.extend(self._blob_discs(part, i, float(r_blob) * self.radius_scale, prep,
                                        window, border))
        streak = np.array([len(p) > 2 for p in out], bool)
        centres = np.array([p[:2] for p in out], np.float64).reshape(-1, 2) + [wx0, wy0]
        return centres, claimed, streak

    def _blob_setup(self, prep: _Frame) -> None:
        """The per-image-size parts of the candidate search, made once (in ``prep``)."""
        if prep.open_kernel is None:
            f = prep.factor
            r_typ = float(np.median(prep.radius[prep.mask > 0])) / f
            # everything narrower than 0.9 radii is opened away: lines, spots, the cue's shaft
            k = max(3, int(round(r_typ * 0.9)) | 1)
            prep.open_kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
            prep.border = cv2.bitwise_not(prep.mask)
            prep.edge = (cv2.dilate(prep.border, np.ones((3, 3), np.uint8)) & prep.mask) > 0
            # where the table area runs out of the picture, its rows and columns on the
            # picture's edge: something much bigger than a ball there reaches in from beyond
            # it (an arm), where a ball is only cut by it
            x0, y0, x1, y1 = prep.roi
            w, h = prep.size
            beyond = np.zeros(prep.mask.shape, bool)
            beyond[:2] |= y0 == 0
            beyond[:, :2] |= x0 == 0
            beyond[-2:] |= y1 > h - f
            beyond[:, -2:] |= x1 > w - f
            prep.beyond = beyond & (prep.mask > 0)
            prep.arm_area = 3 * np.pi * r_typ * r_typ
            # a box's blobs are the window's this far in from its edges (as far as the
            # closing and the opening reach, and a pixel for their neighbours)
            prep.box_margin = 2 + 2 * (k // 2) + 2
            prep.box_grow = prep.box_margin + int(np.ceil(3 * r_typ))

    def _pieces(self, small: np.ndarray, prep: _Frame, box: tuple[int, int, int, int],
                window: tuple[int, int, int, int], always_whole: bool) -> _Pieces:
        """The not-cloth blobs of the work-image ``box`` (inside ``window``): the cloth-flattened
        BGR, the score, the blobs opened to ball width and, when something in the box reaches
        the table area's edge or the picture's (or ``always_whole``), the blobs before that
        opening and which of them reach in from outside."""
        x0, y0, x1, y1 = box
        sub = (slice(y0, y1), slice(x0, x1))
        flat, score = kernels.flat_scores(small[sub], prep.gain[y0:y1, x0:x1, 0], self._table)
        fg = cv2.compare(score, FG_LEVEL, cv2.CMP_GE)
        fg = cv2.bitwise_and(fg, prep.mask[sub])
        # pinholes closed first (a dark ball's highlight ring, compression noise)
        closed = cv2.morphologyEx(fg, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
        opened = cv2.morphologyEx(closed, cv2.MORPH_OPEN, prep.open_kernel)
        n, labels, stats, cent = _components(opened)
        part = _Pieces(box, (x0 - window[0], y0 - window[1]), flat, score, n, labels, stats,
                       cent)
        # what reaches in from outside the table area is judged whole, before the opening
        # cut it into ball-sized pieces (painted lines, a pixel or two wide, join nothing)
        joined = cv2.morphologyEx(closed, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
        edge, beyond = prep.edge[sub], prep.beyond[sub]
        if (always_whole or cv2.countNonZero(joined[edge])
                or cv2.countNonZero(joined[beyond])):
            nc, whole, wstats, _ = _components(joined)
            reaching = ((np.bincount(whole[edge], minlength=nc) > 0)
                        | ((np.bincount(whole[beyond], minlength=nc) > 0)
                           & (wstats[:, cv2.CC_STAT_AREA] > prep.arm_area)))
            reaching[0] = False
            part.whole, part.wstats, part.reaching = whole, wstats, reaching
        return part

    def _changed_blobs(self, small: np.ndarray, prep: _Frame, window: tuple[int, int, int, int],
                       region: np.ndarray, in_boxes: bool = True) -> list | None:
        """The blobs of ``window`` that meet ``region``, as (pieces, label, predicted radius in
        work px) in the order a search of the whole window labels them, or None when one of
        them is cut by the window's edge.

        Each cluster of change is searched in a box around it (the window spans every change
        on the table, mostly cloth between them); a box whose blobs come near its edge inside
        the window is grown, and at last the whole window searched. The boxes' origins are an
        even number of pixels from the window's, so that their blobs are labelled in the
        window's order (labels follow the first 2 x 2 block of each blob): the answer is the
        same either way. The whole window is searched at once where the first boxes would not
        have held what was looked at on the last two frames (a player beside the table, whose
        blob reaches out of any box round what changed). Without ``in_boxes`` (the whole
        picture, after a window was cut) the boxes are tried once, with one more round what
        the last such search held (the player, who moves little from frame to frame)."""
        wx0, wy0, wx1, wy1 = window
        full_h, full_w = prep.mask.shape
        m, grow = prep.box_margin, prep.box_grow
        # the clusters of change, from every 4th pixel (a cluster is at least 5 x 5)
        coarse = np.ascontiguousarray(region[wy0:wy1:4, wx0:wx1:4])
        nb, _, cstats, _ = _components(coarse)
        boxes = [(wx0 + 4 * x - 4, wy0 + 4 * y - 4, wx0 + 4 * (x + w) + 4, wy0 + 4 * (y + h) + 4)
                 for x, y, w, h, _ in cstats[1:]]
        if in_boxes:
            first = _merge_boxes([_grow_box(b, grow, window) for b in boxes])
            tries = 3 if self._boxes_cut < 2 else 0
        else:  # one try, with a box round what the last such search held, if any
            tries = 1 if self._reach is not None else 0
            boxes = boxes + [self._reach] * tries
        held = []
        for attempt in range(tries):
            boxes = _merge_boxes([_grow_box(b, grow * (1 + 3 * attempt), window) for b in boxes])
            if _boxes_cover_window(boxes, window):
                break  # as well search the window
            blobs, cut = [], []
            for box in boxes:
                part = self._pieces(small, prep, box, window, always_whole=True)
                x0, y0, x1, y1 = box
                look, sel = _looked_at(part, region[y0:y1, x0:x1] > 0)
                spans = np.concatenate([part.stats[look, :4], part.wstats[sel, :4]])
                spans += [x0, y0, 0, 0]
                if not _spans_inside_boxes(spans, [box], m, (full_w, full_h)):
                    cut.append(box)
                    continue
                held.append(spans)
                blobs.extend((part, int(i)) for i in np.flatnonzero(look))
            if not cut:
                if in_boxes:
                    self._boxes_cut = 0
                else:
                    self._reach = _box_round_spans(np.concatenate(held))
                # in the order of each blob's first 2 x 2 block in the window
                blobs.sort(key=lambda b: _first_block(*b))
                radii = [self._blob_radii(part, [i], prep)[0] for part, i in blobs]
                return [(part, i, r) for (part, i), r in zip(blobs, radii)]
        part = self._pieces(small, prep, window, window, always_whole=False)
        look, sel = _looked_at(part, region[wy0:wy1, wx0:wx1] > 0)
        # what is looked at, in the picture's px
        spans = (part.stats[look, :4] if sel is None else np.concatenate(
            [part.stats[look, :4], part.wstats[sel, :4]])) + [wx0, wy0, 0, 0]
        if not in_boxes:
            self._reach = _box_round_spans(spans)
        else:
            # whether the first boxes would have held what is looked at: after two frames in a
            # row where they would not (a player beside the table), the window is searched at
            # once (the same answer as its boxes give; only the time differs)
            cut = (not _boxes_cover_window(first, window)
                   and not _spans_inside_boxes(spans, first, m, (full_w, full_h)))
            self._boxes_cut = self._boxes_cut + 1 if cut else 0
        # the whole blobs of what is looked at must lie inside the window
        comp, sel = (part.labels, look) if sel is None else (part.whole, sel)
        if _blob_meets_window_edge(comp, sel, window, (full_w, full_h)):
            return None
        if part.whole is None and look.any():
            # nor may a piece that would pass for a lone ball be one cut off something that the
            # window cuts (the hand at the end of an arm)
            idx = np.flatnonzero(look)
            r = self._blob_radii(part, idx, prep) * self.radius_scale
            area, bw, bh = (part.stats[idx, k] for k in (cv2.CC_STAT_AREA, cv2.CC_STAT_WIDTH,
                                                          cv2.CC_STAT_HEIGHT))
            lone = idx[_lone_shaped(area, bw, bh, r)]
            if len(lone):
                whole = self._pieces(small, prep, window, window, always_whole=True)
                held = np.zeros(part.n, bool)
                held[lone] = True
                if _blob_meets_window_edge(whole.whole, _looked_at(whole, held[part.labels])[1],
                                           window, (full_w, full_h)):
                    return None
        idx = np.flatnonzero(look)
        return [(part, int(i), r) for i, r in zip(idx, self._blob_radii(part, idx, prep))]

    @staticmethod
    def _blob_radii(part: _Pieces, labels, prep: _Frame) -> np.ndarray:
        """Predicted radius (work px) at the centroid of each blob of ``labels``."""
        cx, cy = _window_centroids(part, labels)
        x0, y0 = part.box[0] - part.offset[0], part.box[1] - part.offset[1]
        f = prep.factor
        return prep.radius[y0 + cy.astype(int), x0 + cx.astype(int)] / f

    def _blob_discs(self, part: _Pieces, i: int, r: float, prep: _Frame,
                    window: tuple[int, int, int, int], border: np.ndarray
                    ) -> list[tuple[float, float]]:
        """The balls in blob ``i`` of ``part``, ``r`` their radius: (x, y) px of the work-image
        ``window`` (whose part of the table area's outside is ``border``), or (x, y, True) for
        the middle of one ball's blur streak."""
        stats, labels, whole = part.stats, part.labels, part.whole
        bx, by, bw, bh, area = (int(v) for v in stats[i])
        ox, oy = part.offset
        if r <= 0:
            return []
        disc_area = np.pi * r * r
        if area < 0.3 * disc_area:
            return []
        sl = (slice(by, by + bh), slice(bx, bx + bw))
        blob = (labels[sl] == i)
        w_id = int(np.max(whole[sl][blob])) if whole is not None else 0
        intruding = whole is not None and bool(part.reaching[w_id])
        if _lone_shaped(area, bw, bh, r) and not intruding:
            cx, cy = _window_centroids(part, [i])
            found = [(float(cx[0]), float(cy[0]))]
            if whole is not None and part.wstats[w_id, cv2.CC_STAT_AREA] > _PIECE_OF * disc_area:
                # a ball-sized piece that the opening cut from something long and thin (the
                # shading along a cushion's nose, widened by a bright exposure): a ball only
                # where that is as wide as a ball
                wx, wy, ww, wh = (int(v) for v in part.wstats[w_id, :4])
                piece = (whole[wy:wy + wh, wx:wx + ww] == w_id).astype(np.float32)
                cov = _blob_cov(piece)
                found = self._drop_bar_discs(found, piece, wx + ox, wy + oy, r, force=True,
                                             cov=cov)
                if area < _PIECE_FILL * disc_area and _elongated(piece, cov=cov):
                    found = []  # where it widens (a codec block's edge), yet less than a ball
            return found
        # soft membership: a shadow joined to a ball (dark, cloth-coloured) counts less
        soft = blob * _SOFT[part.score[sl]]
        x0, y0 = part.box[:2]
        if intruding:
            soft = soft * prep.room[y0 + by:y0 + by + bh, x0 + bx:x0 + bx + bw]
        found = self._explain_blob(soft, bx + ox, by + oy, r, intruding, part.flat[sl])
        if not intruding and np.hypot(bw, bh) >= _SHORT_STREAK * r:  # long enough for a streak
            stood = self._last_centres_work_px(prep)
            if stood is not None:
                stood = stood - [window[0] + bx + ox, window[1] + by + oy]
            going = self._last_steps_px()
            streak = _streak_centre(blob, r, len(found), stood,
                                    None if going is None else going / prep.factor)
            if streak is not None:  # one fast ball blurred along its path
                return [(streak[0] + (bx + ox), streak[1] + (by + oy), True)]
        if intruding:
            wx, wy, ww, wh = (int(v) for v in part.wstats[w_id, :4])
            piece = (whole[wy:wy + wh, wx:wx + ww] == w_id).astype(np.float32)
            found = self._drop_bar_discs(found, piece, wx + ox, wy + oy, r, force=True)
            # a disc reaching the edge of the table area is the end of something that
            # comes from outside it (a cue, an arm)
            found = [(x, y) for x, y in found if not self._near_edge(border, x, y, 1.1 * r)]
        return found

    @staticmethod
    def _near_edge(border: np.ndarray, x: float, y: float, r: float) -> bool:
        """Whether a disc at (x, y) of radius r (work px) meets ``border`` (255 outside the
        table area)."""
        h, w = border.shape
        x0, x1 = int(max(np.floor(x - r), 0)), int(min(np.ceil(x + r) + 1, w))
        y0, y1 = int(max(np.floor(y - r), 0)), int(min(np.ceil(y + r) + 1, h))
        if x1 <= x0 or y1 <= y0:
            return True
        inside = (((np.arange(x0, x1) - x) ** 2)[None] + ((np.arange(y0, y1) - y) ** 2)[:, None]
                  <= r * r)
        return bool(np.any(border[y0:y1, x0:x1][inside]))

    @staticmethod
    def _drop_bar_discs(pts, blob: np.ndarray, ox: int, oy: int, r: float,
                        force: bool = False, cov: np.ndarray | None = None):
        """Discs on a long thin blob (the cue, a rest) are kept only where the blob is as wide
        as a ball across its length. ``blob`` soft membership with origin (``ox``, ``oy``);
        ``force`` judges even a single disc; ``cov`` its ``_blob_cov`` when known."""
        if len(pts) < (1 if force else 2):
            return pts
        if cov is None:
            cov = _blob_cov(blob)
        if cov is None:
            return pts
        evals, evecs = np.linalg.eigh(cov)
        if evals[0] <= 0 or evals[1] / evals[0] < 9.0:
            return pts
        across = evecs[:, 0]
        s = np.arange(-1.3 * r, 1.3 * r + 0.5, 0.5)
        keep = []
        for x, y in pts:
            q = np.rint(np.array([x - ox, y - oy]) + s[:, None] * across).astype(int)
            inside = ((q[:, 0] >= 0) & (q[:, 0] < blob.shape[1]) & (q[:, 1] >= 0)
                      & (q[:, 1] < blob.shape[0]))
            width = 0.5 * float((blob[q[inside, 1], q[inside, 0]] > 0.5).sum())
            if width >= 1.6 * r:
                keep.append((x, y))
        return keep

    def _measure_radius(self, stats: np.ndarray, r_pred: np.ndarray, strong: np.ndarray
                        ) -> None:
        """Update ``radius_scale`` from lone, round blobs: (K, 5) connected-component stats,
        their predicted radii (K,) and their counts of clearly-not-cloth pixels (K,), all in
        work px.

        A blob's own area overstates the ball where the shadow under it joins it, and the halo
        that compression and blooming leave; its clearly-not-cloth core does not, on the balls
        that are clearly not cloth all over (not black, not a dark green). Blobs that disagree
        (their ratios' median deviation over a tenth) are not all balls and measure nothing."""
        ratio = _agreed(_core_ratios(stats, r_pred, strong, r_pred * self.radius_scale, 2.2), 3)
        if ratio is None:
            return
        ratio = 1.0 if 0.9 <= ratio <= 1.1 else float(np.clip(ratio, 0.6, 1.6))
        if not self._radius_measured:
            self.radius_scale = ratio
            self._radius_measured = True
        else:
            self.radius_scale += self.config.adapt_rate * (ratio - self.radius_scale)

    def _explain_blob(self, blob: np.ndarray, bx: int, by: int, r: float, intruding: bool,
                      image: np.ndarray | None = None) -> list[tuple[float, float]]:
        """Discs of radius ``r`` placed one at a time where they cover most of the blob's
        unexplained pixels (``blob``: soft membership 0..1 in its bounding box at ``bx``,
        ``by``; ``image`` the BGR pixels of that box, if known); (x, y) work px."""
        pad = int(np.ceil(r)) + 2
        half_w, near_w, n_disc = _disc_kernels(r)
        # membership in whole steps of _SOFT's (its values are k / _SOFT_STEPS): the sums under
        # each disc are exact, and so are their ties
        weight = np.zeros((blob.shape[0] + 2 * pad, blob.shape[1] + 2 * pad), np.int64)
        np.rint(blob * _SOFT_STEPS, out=weight[pad:-pad, pad:-pad], casting="unsafe")
        # inside something reaching in from outside (an arm, the cue) a ball is rare and a
        # few tries are made; in one much bigger than a ball (an arm, a body), first where a
        # disc is full (``_FULL``) and the ring around it is not: a ball against the arm, not
        # the arm
        big = intruding and float(blob.sum()) > 6 * np.pi * r * r
        original = _padded(blob, pad) if intruding else None
        prefer = _NO_PREFERENCE
        if big:
            prefer = 1.0 - 0.5 * cv2.filter2D(original, cv2.CV_64F, _ring_kernel(r),
                                              borderType=cv2.BORDER_CONSTANT)
        scale = _SOFT_STEPS * n_disc
        found = kernels.place_discs(weight, half_w, near_w, 8 if intruding else 40,
                                    self.config.min_cover * scale, _FULL * scale, prefer)
        found += [bx - pad, by - pad]
        pts = [(float(x), float(y)) for x, y in found]
        if original is None and len(pts) >= 2:
            original = _padded(blob, pad)
        # the blob's spread, for the bar test and the elongation test (both need two discs)
        cov = _blob_cov(original) if len(pts) >= 2 else None
        pts = self._drop_bar_discs(pts, original, bx - pad, by - pad, r, cov=cov)
        # in something reaching in from outside: not the end of it (a hand), judged once the
        # discs the neck test pairs off have gone
        end = [intruding and kernels.bar_end(original, x - bx + pad, y - by + pad, r)
               for x, y in pts]
        if big:  # and a ball shows its own outline, not a bigger one's (a hand's), or a colour
            # of its own (a ball held in the fingers' shadow); nor the colour of skin (a
            # knuckle or a fist at the end of a sleeve, as round as a ball)
            lab = None
            for n, (x, y) in enumerate(pts):
                c = np.array([x - bx + pad, y - by + pad])
                if end[n] or kernels.free_arc(original, float(c[0]), float(c[1]), r) >= 180:
                    continue
                if image is None:
                    end[n] = True
                    continue
                if lab is None:
                    lab = cv2.cvtColor(cv2.copyMakeBorder(image, pad, pad, pad, pad,
                                                          cv2.BORDER_REPLICATE),
                                       cv2.COLOR_BGR2LAB).astype(np.float32)
                end[n] = kernels.colour_alike(lab, original, float(c[0]), float(c[1]), r,
                                              _ALIKE_LAB) > _ALIKE_SHARE
            if image is not None and not all(end):
                end = [e or self._skin_at(image, x - bx, y - by, r)
                       for (x, y), e in zip(pts, end)]
        if len(pts) < 2 or not (intruding or _elongated(original, cov=cov)):
            return [pt for pt, e in zip(pts, end) if not e]
        # A blob reaching in from outside the table (an arm, the cue, graphics), or a long one
        # on it (a hand, a sleeve, a rest), is tiled with discs too; balls in it are told apart
        # by the neck between neighbours: two touching balls narrow to a point between them, a
        # bar keeps its width.
        p = np.array(pts) - [bx - pad, by - pad]
        bar = kernels.necks(original, p, np.array(end, bool), r, _NECK)
        return [pt for pt, b, e in zip(pts, bar, end) if not (b or e)]

    def _skin_at(self, image: np.ndarray, x: float, y: float, r: float) -> bool:
        """Whether the disc of radius ``r`` at (``x``, ``y``) of the BGR ``image`` (work px)
        is skin-coloured in its middle (``_skin_coloured``)."""
        h, w = image.shape[:2]
        k = max(1, int(0.6 * r))
        x0, x1 = max(int(round(x)) - k, 0), min(int(round(x)) + k + 1, w)
        y0, y1 = max(int(round(y)) - k, 0), min(int(round(y)) + k + 1, h)
        if x1 <= x0 or y1 <= y0:
            return False
        lab = cv2.cvtColor(np.ascontiguousarray(image[y0:y1, x0:x1]), cv2.COLOR_BGR2LAB)
        body = np.median(lab.reshape(-1, 3).astype(np.float64), axis=0)
        return bool(_skin_coloured(body[None], self._cloth.lab())[0])

    def _refine(self, frame: np.ndarray, cands: np.ndarray, r_exp: np.ndarray, prep: _Frame,
                streak: np.ndarray | None = None):
        """Silhouette centres in full-resolution windows: the centroid of the soft not-cloth
        score, beside or instead of the circle through its outline for a ball near another or
        alone, and the circle through its lightness edge for a lone white or black ball. The
        middle of a ball's blur streak (``streak`` (N,) bool) fills its ring on either side
        along its path: it is kept where it covers its disc.

        Returns silhouette centres (N, 2), cover (N,) (share of the expected disc that is not
        cloth), body colour (N, 3) Lab, a keep mask (N,) and which show the lamps' highlight
        within 0.6 radii of their centre (N,)."""
        n = len(cands)
        half = int(np.ceil(1.8 * r_exp.max())) + 1
        c = cands.copy()
        base = np.rint(c).astype(np.int64)
        win, score, alpha, valid = kernels.window_pixels(
            frame, base, half, prep.gain[..., 0], *prep.roi[:2], prep.factor,
            self._table, _SOFT)
        # neighbours that can share a window
        dmat = np.hypot(*(c[:, None] - c[None]).transpose(2, 0, 1))
        np.fill_diagonal(dmat, np.inf)
        kmax = int(min(6, n - 1))
        nbr = (np.ascontiguousarray(np.argsort(dmat, axis=1)[:, :kmax]) if kmax > 0
               else np.zeros((n, 0), np.int64))
        rr = r_exp[:, None, None].astype(np.float32)
        glint = float(min(_HIGHLIGHT * self._cloth.level, _WHITE))
        c, cell, d_own, cover, spill, inner, in_k, strong_k, solid, lit = kernels.refine_windows(
            alpha, valid, score, win, (c - base).astype(np.float32), base, r_exp, nbr, dmat,
            self.config.refine_iterations, half, glint, 2 * FG_LEVEL, 1.3 * FG_LEVEL)
        lab = _body_lab(win, inner)
        # something passing under or over the ball (the cue, a rest) shows on opposite sides
        # of it (two opposite sectors of the ring round it strong); a ball touching another
        # object, on one side only
        occupied = strong_k > 0.3 * np.maximum(in_k, 1)
        opposite = occupied[:, :4] & occupied[:, 4:]
        through = np.any(opposite, axis=1)
        if through.any():  # ... but a moving ball's blur fills it ahead and behind
            through &= ~self._own_blur(c + base, r_exp, opposite)
        # ... as one thing, joined over the ball or round it: a cue beside the ball with cloth
        # between, and a shadow on its far side, are two
        for i in np.flatnonzero(through):
            strong = score[i] >= 2 * FG_LEVEL
            near_i = strong & cell[i] & valid[i] & (d_own[i] <= (1.8 * rr[i]) ** 2)
            ry, rx, sector = kernels.ring_sectors(cell[i], valid[i], d_own[i], c[i], rr[i, 0, 0],
                                                  half)
            through[i] = _joined_across(near_i, ry, rx, sector, occupied[i])
        # a disc split off a ball onto the shadow under it: its own part is mostly weak
        # (dark cloth, ``solid`` low), where a ball's, even a black one's, is solid
        crowded = dmat.min(1) < 2.0 * r_exp if n > 1 else np.zeros(n, bool)
        # ... unless it is on one side only: a ball against an arm or a body, not of skin's
        # colour (no ball is: the hand at the end of a sleeve)
        one_sided = occupied.sum(1) <= 4
        cloth = self._cloth.lab()
        against = one_sided & ~_skin_coloured(lab, cloth)
        ok = (cover > 0.2) & ((spill < self.config.max_spill) | against) & ~through
        blurred = np.zeros(n, bool) if streak is None else streak
        # ... and something clearly not cloth (a blur streak's middle is the cloth's colour
        # mixed with the ball's)
        ok &= solid >= _SOLID_MIN
        ok |= blurred & (cover > 0.2)

        # ... or the shadow under a ball, which a low camera sees beside it: the cloth's colour
        # darkened, and unlit (every ball, a black one too, shows the lamps' highlight within
        # 0.6 radii of its centre; a shadow is lit nowhere off its neighbours' discs: ``lit``)
        ok &= (~crowded | blurred
               | ((solid >= 0.4) & (lit | ~_shadow_coloured(lab, cloth))))
        # balls whose windows overlap a neighbour's: the dark gaps and shadows between them
        # fill their windows unevenly, so their outline where it meets the cloth places them
        # (discs nearer than 1.6 radii are pieces of one blurred ball, not balls side by side)
        gap = dmat.min(1) / r_exp if n > 1 else np.full(n, np.inf)
        near = (gap >= 1.6) & (gap < 2.6)
        # ... and a lone ball seen from above by both (``_STEEP_DEG``)
        steep = self.geometry.steep(c + base)
        lone = (gap >= 2.6) & steep
        idx = np.flatnonzero(near | lone)
        fit, held = _outline_centres(alpha[idx], c[idx] + half, r_exp[idx])
        fit = (fit - half).astype(np.float32)
        both = lone[idx][:, None]
        c[idx] = np.where(held[:, None], np.where(both, 0.5 * (c[idx] + fit), fit), c[idx])
        # a white or black ball seen from above, alone or beside another, stands off the cloth
        # and its neighbours in lightness, which the codec keeps at full resolution where it
        # halves the colour's: its lightness edge places it (a coloured ball's shaded rim takes
        # that edge inwards), unless it moves (blurred along its path, its edge is not round)
        grey = np.flatnonzero((gap >= 1.6) & steep & self._still(c + base, r_exp)
                              & (np.hypot(lab[:, 1] - 128, lab[:, 2] - 128) < _ACHROMATIC))
        if len(grey):
            light = win[grey].astype(np.float32) @ np.float32([0.114, 0.587, 0.299])
            edge, sharp = _edge_centres(light, c[grey] + half, r_exp[grey])
            c[grey] = np.where(sharp[:, None], (edge - half).astype(np.float32), c[grey])
        return c.astype(np.float64) + base, cover, lab, ok, lit

    def _last_centres_work_px(self, prep: _Frame) -> np.ndarray | None:
        """Where the balls of the last answer stood (M, 2), in work-image px; None before it."""
        last = self._last
        if last is None:
            return None
        return (last.xy_px - prep.roi[:2] + 0.5) / prep.factor - 0.5

    def _last_steps_px(self) -> np.ndarray | None:
        """How far each ball of the last answer had gone (M, 2) from the nearest ball of the
        answer before, in picture px; None without both. Made once for each pair of answers."""
        last, before = self._last, self._before
        if last is None or before is None or not len(last) or not len(before):
            return None
        if self._steps[0] is not last or self._steps[1] is not before:
            self._steps = (last, before, _from_nearest(last.xy_px, before.xy_px)[0])
        return self._steps[2]

    def _own_blur(self, xy_px: np.ndarray, r: np.ndarray, opposite: np.ndarray) -> np.ndarray:
        """(N,) bool: each ball at ``xy_px`` (N, 2), radius ``r`` (N,), whose ring is filled on
        the opposite sides ``opposite`` (N, 4) (eighths k and k + 4 of the turn, as
        ``refine_windows`` counts them) only along the way it came from the nearest ball of the
        last answer, ``_BLUR_MOVE`` radii away, which was going that way then (from the
        nearest ball of the answer before): its own blur, ahead and behind it."""
        steps = self._last_steps_px()
        out = np.zeros(len(xy_px), bool)
        if steps is None:
            return out
        way, j = _from_nearest(xy_px, self._last.xy_px)
        going = steps[j]
        moved = np.hypot(way[:, 0], way[:, 1]) / r
        came = np.degrees(np.arctan2(way[:, 1], way[:, 0]))
        on = (_degrees_apart(np.degrees(np.arctan2(going[:, 1], going[:, 0])), came, 360.0)
              <= _BLUR_AXIS_DEG) & (np.hypot(going[:, 0], going[:, 1]) >= _STILL * r)
        # the axis of each pair of eighths (their middles, -157.5 + 45 k degrees) against the
        # way the ball came, both within half a turn
        apart = _degrees_apart(-157.5 + 45.0 * np.arange(4)[None], came[:, None], 180.0)
        along = (apart <= _BLUR_AXIS_DEG) | ~opposite
        return (moved >= _BLUR_MOVE[0]) & (moved <= _BLUR_MOVE[1]) & on & along.all(axis=1)

    def _still(self, xy_px: np.ndarray, r: np.ndarray) -> np.ndarray:
        """(N,) bool: a ball of the last answer was within ``_STILL`` radii ``r`` (N,) of each
        of ``xy_px`` (N, 2) (all True before the first answer)."""
        last = self._last
        if last is None:
            return np.ones(len(xy_px), bool)
        if not len(last):
            return np.zeros(len(xy_px), bool)
        d = np.hypot(*(xy_px[:, None] - last.xy_px[None]).transpose(2, 0, 1)).min(1)
        return d < _STILL * r

    def _by_highlights(self, frame: np.ndarray, sil: np.ndarray, r_exp: np.ndarray,
                       lab: np.ndarray, mine: np.ndarray) -> np.ndarray | None:
        """The candidates ``mine`` (N,) bool of silhouette centres ``sil`` (N, 2) px, radii
        ``r_exp`` (N,) and body colours ``lab`` (N, 3), with the balls of each cluster (a disc
        with another within 2.5 radii) placed by their highlights, where the lamps put one on
        every ball at one place: (M, 2) silhouette centres, or None when nothing changes.

        In a steep view the balls of a pack hide one another but not their highlights (each
        near the top of its ball, above the balls in front). Where the lone dark balls (nothing
        within three radii; light ones show little of their highlight) show one highlight each
        at one place from their centres, that place is learnt and kept; a cluster's highlights
        then stand for its balls: a ball under each highlight on something not cloth, a disc
        with none nearer than ``_GLINT_PIECE`` radii to one a piece of that ball (its lower
        half and shadow, or a gap between balls), as is a dark disc without a highlight of its
        own that deep in a light ball's; a disc with none near kept (a ball whose highlight is
        hidden), and a light ball kept as it is."""
        idx = np.flatnonzero(mine)
        if len(idx) < 2 or self._cloth is None:
            return None
        p, r = sil[idx], r_exp[idx]
        light = lab[idx, 0] >= _LIGHT * self._cloth.lab()[0]
        d = np.hypot(*(p[:, None] - p[None]).transpose(2, 0, 1))
        np.fill_diagonal(d, np.inf)
        near = d.min(1)
        lone, cluster = (near > 3 * r) & ~light, near < 2.5 * r
        if lone.sum() >= 3:
            # the last look with three lone balls or more tells the place: their highlight
            # windows are kept (copied), and searched once a cluster needs the place
            self._glint_from = (_highlight_windows(frame, p[lone], r[lone]), p[lone], r[lone])
        if not cluster.any():
            return None
        if self._glint_from is not None:
            self._glint_at = _glint_place(*self._glint_from)
            self._glint_from = None
        if self._glint_at is None:
            return None
        spots = _highlights(frame, p[cluster], r[cluster])
        if not len(spots):
            return None
        # a ball under each highlight by a cluster's disc, on something not cloth and dark (a
        # light ball's highlight, faint on it, places nothing)
        cloth = self._cloth.lab()
        cloth_ab = cloth[1:]
        under = []
        for q in spots:
            g = np.hypot(*(p - q).T)
            i = int(np.argmin(g))
            if not (cluster[i] and g[i] < 1.3 * r[i]):
                continue
            c = q - self._glint_at * r[i]
            x, y = int(round(c[0])), int(round(c[1]))
            patch = frame[max(y - 1, 0):y + 2, max(x - 1, 0):x + 2]
            if not patch.size:
                continue
            body = cv2.cvtColor(patch, cv2.COLOR_BGR2LAB).reshape(-1, 3).mean(0)
            if (np.linalg.norm(body[1:] - cloth_ab) >= _GLINT_BODY
                    and body[0] < _LIGHT * cloth[0]
                    and all(np.hypot(*(c - u)) >= 0.5 * r[i] for u, _ in under)):
                under.append((c, i))
        # a dark disc deep in a light one's, with no highlight of its own, is the light ball's
        # shaded lower half and shadow: a dark ball in front of it would show its highlight
        glint = p + self._glint_at * r[:, None]
        lit = np.array([len(spots) > 0 and np.hypot(*(spots - q).T).min() < 0.5 * ri
                        for q, ri in zip(glint, r)])
        shade = cluster & ~light & ~lit & ((d < _GLINT_PIECE * r[:, None]) & light[None]).any(1)
        if not under and not shade.any():
            return None
        u = np.array([c for c, _ in under]).reshape(-1, 2)
        taken = np.zeros(len(u), bool)
        out = [p[i] for i in np.flatnonzero(~cluster)]
        changed = bool(shade.any())
        for i in np.flatnonzero(cluster & ~shade):
            g = np.r_[np.hypot(*(u - p[i]).T), np.inf]
            if light[i]:
                taken |= g[:-1] < 0.7 * r[i]
                out.append(p[i])
            elif g.min() < 0.7 * r[i]:
                k = int(np.argmin(g))
                if not taken[k]:
                    taken[k] = True
                    out.append(u[k])
                else:
                    changed = True
            elif g.min() < _GLINT_PIECE * r[i]:
                changed = True
            else:
                out.append(p[i])
        if (~taken).any():
            out.extend(u[~taken])
            changed = True
        return np.array(out, np.float64) if changed else None


def _from_nearest(p: np.ndarray, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each of the points ``p`` (N, 2), the offset (N, 2) from the nearest of the points
    ``q`` (M, 2, M >= 1), and which of them that is (N,)."""
    off = p[:, None] - q[None]
    j = np.argmin(np.hypot(off[..., 0], off[..., 1]), axis=1)
    return off[np.arange(len(p)), j], j


def _degrees_apart(a, b, turn: float) -> np.ndarray:
    """How far apart the angles ``a`` and ``b`` (degrees) are, ``turn`` (360, or 180 for the
    axes of lines) being the same angle again."""
    return np.abs((np.asarray(a) - b + turn / 2) % turn - turn / 2)


@functools.lru_cache(maxsize=4)
def _ray_directions(rays: int) -> np.ndarray:
    """(rays, 2) float32 unit vectors (cos, sin) of ``rays`` directions evenly round."""
    th = np.linspace(0, 2 * np.pi, rays, endpoint=False, dtype=np.float32)
    u = np.c_[np.cos(th), np.sin(th)]
    u.setflags(write=False)
    return u


def _ray_profiles(image: np.ndarray, c: np.ndarray, r: np.ndarray, rays: int
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each of K windows ``image`` (K, S, S) float32 read along ``rays`` directions out from
    ``c`` (K, 2) (window px), from 0.6 to 1.4 radii ``r`` (K,) in ``_STEPS`` steps (nothing
    off its window): (profiles (K, rays, steps), the steps' radii (K, steps), the directions
    (rays, 2)). All windows go through one remap, stacked with a row of nothing between."""
    n, size = len(c), image.shape[1]
    u = _ray_directions(rays)
    # (K, steps): np.linspace(0.6 r, 1.4 r, _STEPS, axis=1) as float32, in its own arithmetic
    start, stop = 0.6 * r, 1.4 * r
    s = np.arange(_STEPS, dtype=start.dtype) * ((stop - start) / (_STEPS - 1))[:, None]
    s += start[:, None]
    s[:, -1] = stop
    s = s.astype(np.float32)
    mx, my = kernels.ray_maps(c, u, s, size)  # a point off its window reads nothing
    tall = np.zeros((n, size + 1, size), np.float32)
    tall[:, :size] = image
    prof = cv2.remap(tall.reshape(-1, size), mx.reshape(-1, _STEPS), my.reshape(-1, _STEPS),
                     cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0.0
                     ).reshape(n, rays, _STEPS)
    return prof, s, u


def _outline_centres(alpha: np.ndarray, c: np.ndarray, r: np.ndarray, rays: int = 90
                     ) -> tuple[np.ndarray, np.ndarray]:
    """For each of K balls, the centre (2,) of the circle through the points where its soft
    silhouette ``alpha`` (K, S, S) first falls below a half walking out from ``c`` (K, 2)
    (window px) along each of ``rays`` directions, between 0.6 and 1.4 radii ``r``
    (K,) (rays into a touching neighbour find none). Returns the centres (K, 2) and whether
    each holds (K,) bool, as ``_round_outline`` judges them."""
    if not len(c):
        return np.zeros((0, 2)), np.zeros(0, bool)
    prof, s, u = _ray_profiles(alpha, c, r, rays)
    rho, has = kernels.outline_points(prof, s)
    return _round_outline(c, r, u, rho, has)


def _edge_centres(grey: np.ndarray, c: np.ndarray, r: np.ndarray, rays: int = 90
                  ) -> tuple[np.ndarray, np.ndarray]:
    """As ``_outline_centres``, through the points where the lightness ``grey`` (K, S, S)
    changes fastest along each ray (by at least ``_EDGE_STEP`` grey levels over two steps)."""
    if not len(c):
        return np.zeros((0, 2)), np.zeros(0, bool)
    prof, s, u = _ray_profiles(grey, c, r, rays)
    slope = np.abs(prof[..., 2:] - prof[..., :-2])  # at steps 1 .. steps - 2
    m = slope.shape[2]
    k = np.argmax(slope, axis=2)
    has = (k > 0) & (k < m - 1) & (slope.max(2) >= _EDGE_STEP)
    # the peak's step, in steps from the first (the slopes start a step out)
    at = subpixel_peak(slope.reshape(-1, m), k.ravel()).reshape(k.shape) + 1
    rho = s[:, :1] + at * (s[:, 1] - s[:, 0])[:, None]
    return _round_outline(c, r, u, rho, has)


def _round_outline(c: np.ndarray, r: np.ndarray, u: np.ndarray, rho: np.ndarray,
                   has: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The circles through the outline points ``c + rho * u`` ((K, 2), (K, rays), (rays, 2))
    that ``has`` (K, rays): points far off the first circle (``_OUTLINE_MADS``) are left out
    of a second. Returns their centres (K, 2) and whether each holds (K,) bool: not when under
    a quarter of the rays find a point, or the circle is not round (its points within
    ``_ROUND`` ``r`` of it), not about the ball's size (within a fifth of ``r``) or place
    (within 0.15 ``r`` of ``c``: the gaps move a centroid by less)."""
    ends = (c[:, None] + u[None] * rho[..., None]).astype(np.float64)  # (K, rays, 2)
    return kernels.round_outline(ends, has, np.asarray(c, np.float64),
                                 np.asarray(r, np.float64), _OUTLINE_MADS, _ROUND)


def _flat_gain(small: np.ndarray, cloth: np.ndarray, factor: int) -> np.ndarray:
    """(h, w, 1) float32 brightness gain that brings the cloth pixels (``cloth`` (h, w) bool)
    of the work image ``small`` (h, w, 3) to their median brightness, smooth over about 40
    full-res px. One gain for the three channels: a saturated cloth has channels near zero whose
    ratios would be noise."""
    h, w = cloth.shape
    step = max(2, int(round(40 / factor)))
    cw, ch = max(1, w // step), max(1, h // step)
    wgt = cloth.astype(np.float32)
    bright = cv2.transform(small.astype(np.float32), np.ones((1, 3), np.float32))
    some = cloth[::3, ::3]  # a sample is enough for the median
    ref = float(np.median(bright[::3, ::3][some])) if some.any() else 384.0
    num = cv2.resize(bright * wgt, (cw, ch), interpolation=cv2.INTER_AREA)
    den = cv2.resize(wgt, (cw, ch), interpolation=cv2.INTER_AREA)
    # cells with little cloth (balls, the pack, the rails) take the cloth from further away
    local = np.full((ch, cw), ref, np.float32)
    have = np.zeros((ch, cw), bool)
    for sigma in (0.7, 2.0, 6.0):
        n = cv2.GaussianBlur(num, (0, 0), sigma)
        d = cv2.GaussianBlur(den, (0, 0), sigma)
        fill = ~have & (d > 0.15)
        local[fill] = n[fill] / d[fill]
        have |= fill
    gain = np.clip(ref / np.maximum(local, 1.0), 0.5, 2.0).astype(np.float32)
    return cv2.resize(gain, (w, h), interpolation=cv2.INTER_LINEAR)[..., None]


def _padded(blob: np.ndarray, pad: int) -> np.ndarray:
    """``blob`` (h, w) as float32 with ``pad`` zero pixels round it."""
    out = np.zeros((blob.shape[0] + 2 * pad, blob.shape[1] + 2 * pad), np.float32)
    out[pad:-pad, pad:-pad] = blob
    return out


def _components(mask: np.ndarray):
    """8-connected components of a uint8 mask with their stats and centroids, as
    ``cv2.connectedComponentsWithStats``; 16-bit labels (several times faster) unless there are
    too many components for them."""
    try:
        return cv2.connectedComponentsWithStatsWithAlgorithm(mask, 8, cv2.CV_16U,
                                                             cv2.CCL_SPAGHETTI)
    except cv2.error:
        return cv2.connectedComponentsWithStats(mask, connectivity=8)


def _shadow_coloured(lab: np.ndarray, cloth_lab: np.ndarray) -> np.ndarray:
    """(N,) bool: body colours (N, 3) OpenCV Lab that are the cloth's (3,) in shadow: under
    half its lightness but not black, and of about its hue (within 60 degrees in a*b*)."""
    light = lab[:, 0] / max(cloth_lab[0], 1.0)
    ab, ab0 = lab[:, 1:] - 128.0, cloth_lab[1:] - 128.0
    along = ab @ ab0 / max(float(np.hypot(*ab0)), 1e-6)
    return (light < 0.5) & (light >= 0.15) & (along > 0.5 * np.hypot(ab[:, 0], ab[:, 1]))


def _skin_coloured(lab: np.ndarray, cloth_lab: np.ndarray) -> np.ndarray:
    """(N,) bool: colours (N, 3) OpenCV Lab that are skin's, lit: no darker than the cloth,
    a warm hue (45-80 degrees in a*b*) and little chroma (10-40). No ball is: the red and the
    brown are darker than the cloth, the pink nearer red, the yellow far more coloured, the
    white not warm."""
    light = lab[:, 0] / max(float(cloth_lab[0]), 1.0)
    a, b = lab[:, 1] - 128.0, lab[:, 2] - 128.0
    hue = np.degrees(np.arctan2(b, a))
    chroma = np.hypot(a, b)
    return (light >= 1.0) & (hue >= 45.0) & (hue <= 80.0) & (chroma >= 10.0) & (chroma <= 40.0)


def _body_lab(win: np.ndarray, inner: np.ndarray) -> np.ndarray:
    """(N, 3) mean Lab of each window's ``inner`` pixels between the 10th and 75th percentile
    of lightness (the lamps' highlight and the shaded rim left out; all of them when fewer than
    two are; NaN without any). ``win`` (N, S, S, 3) BGR, ``inner`` (N, S, S) bool."""
    n, size = win.shape[:2]
    # only the middle of the windows holds inner pixels
    rows = np.flatnonzero(inner.any((0, 2)))
    if not len(rows):
        return np.full((n, 3), np.nan)
    a, b = rows[0], rows[-1] + 1
    sub = np.ascontiguousarray(win[:, a:b, a:b])
    m = inner[:, a:b, a:b].reshape(n, -1)
    # one row of pixels (OpenCV's cost is per row)
    lab = cv2.cvtColor(sub.reshape(1, -1, 3), cv2.COLOR_BGR2LAB).reshape(n, -1, 3)
    return kernels.body_means(lab.astype(np.float32), m)


def median_rows(x: np.ndarray) -> np.ndarray:
    """``np.median(x, axis=0)`` of a few rows (or values) without NaN, without its
    overhead."""
    s = np.sort(x, axis=0)
    m = len(s) // 2
    return s[m] if len(s) % 2 else (s[m - 1] + s[m]) / 2


def _joined_across(thing: np.ndarray, ry: np.ndarray, rx: np.ndarray, sector: np.ndarray,
                   occupied: np.ndarray) -> bool:
    """Whether ``thing`` ((S, S) bool: a window's not-cloth pixels near a disc) is one piece
    across the disc: a piece of it meets the ring round the disc (its pixels at rows ``ry``,
    columns ``rx``, in ``sector`` 0..7 each, k + 4 opposite k) in two opposite sectors that
    are both ``occupied`` ((8,) bool)."""
    _, part = cv2.connectedComponents(thing.astype(np.uint8), connectivity=8)
    on = thing[ry, rx]
    piece = part[ry, rx]
    for k in np.flatnonzero(occupied[:4] & occupied[4:]):
        a, b = piece[on & (sector == k)], piece[on & (sector == k + 4)]
        if np.intersect1d(a[a > 0], b[b > 0]).size:
            return True
    return False


def _highlights(frame: np.ndarray, centres: np.ndarray, radii: np.ndarray) -> np.ndarray:
    """(K, 2) px: the lamps' highlights on the balls at ``centres`` (N, 2) px of ``radii``
    (N,): within 1.6 radii of each, spots much lighter than what is around them (a top-hat of
    lightness over ``_GLINT_RISE``, itself over ``_GLINT_LIGHT``), the bars of one lamp's
    reflection joined across half a radius, at least ``_GLINT_AREA`` radii squared and no
    wider than 1.2 radii nor taller than one (not a painted line). A spot within 0.3 radii of
    one found on an earlier ball's window is that one.

    Each ball's window is searched as if alone (nothing beyond it is seen, and its spots come
    in the order OpenCV labels them in it), all of them side by side in one picture: an even
    number of pixels apart (the labelling goes by 2 x 2 blocks) and far enough apart that no
    filter reaches from one into the next, each filter leaving out what is beyond a window as
    OpenCV's does beyond a picture's edge (the most lightness erodes nothing, none dilates
    nothing). The windows of one size of filter lie together, each group filtered at once."""
    return _highlight_spots(_highlight_windows(frame, centres, radii))


def _highlight_windows(frame: np.ndarray, centres: np.ndarray, radii: np.ndarray
                       ) -> tuple | None:
    """The windows ``_highlights`` searches, copied side by side into one picture: (their
    boxes with each one's filters, where each starts along the picture, the span of each
    group of one size of filter, the picture, where a window is in it), or None without any."""
    h, w = frame.shape[:2]
    wins = []  # (x0, y0, x1, y1, radius, the top-hat's ellipse, the joining bar)
    for (x, y), r in zip(centres, radii):
        m = int(np.ceil(1.6 * r))
        x0, y0 = max(int(x) - m, 0), max(int(y) - m, 0)
        x1, y1 = min(int(x) + m + 1, w), min(int(y) + m + 1, h)
        if x1 - x0 >= 3 and y1 - y0 >= 3:
            wins.append((x0, y0, x1, y1, float(r), max(3, int(round(0.9 * r)) | 1),
                         max(3, int(0.5 * r))))
    if not wins:
        return None
    order = sorted(range(len(wins)), key=lambda i: wins[i][5:])  # by filter size, stable
    gap = max(max(k // 2 + 1, bar) for *_, k, bar in wins) + 1
    offs = np.zeros(len(wins), int)
    groups: dict[tuple[int, int], list[int]] = {}
    x = 0
    for i in order:
        x0, _, x1, _, _, k, bar = wins[i]
        group = groups.setdefault((k, bar), [x, x])
        offs[i] = x
        x += x1 - x0 + gap
        x += x % 2
        group[1] = x
    canvas = np.zeros((max(y1 - y0 for _, y0, _, y1, *_ in wins), x, 3), np.uint8)
    inside = np.zeros(canvas.shape[:2], bool)
    for (x0, y0, x1, y1, *_), o in zip(wins, offs):
        canvas[:y1 - y0, o:o + x1 - x0] = frame[y0:y1, x0:x1]
        inside[:y1 - y0, o:o + x1 - x0] = True
    return wins, offs, groups, canvas, inside


def _highlight_spots(laid: tuple | None) -> np.ndarray:
    """(K, 2) frame px: the highlights ``_highlights`` finds in the windows laid out by
    ``_highlight_windows``."""
    if laid is None:
        return np.zeros((0, 2))
    wins, offs, groups, canvas, inside = laid
    light = cv2.extractChannel(cv2.cvtColor(canvas, cv2.COLOR_BGR2LAB), 0)
    spot = np.zeros(canvas.shape[:2], np.uint8)
    for (k, bar), (g0, g1) in groups.items():
        lit, on = light[:, g0:g1], inside[:, g0:g1]
        disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
        eroded = cv2.erode(np.where(on, lit, np.uint8(255)), disc)
        eroded[~on] = 0
        top = cv2.subtract(lit, cv2.dilate(eroded, disc))
        found = ((top > _GLINT_RISE) & (lit > _GLINT_LIGHT) & on).astype(np.uint8)
        spot[:, g0:g1] = cv2.dilate(found, np.ones((1, bar), np.uint8))
    spot[~inside] = 0
    _, _, stats, cent = cv2.connectedComponentsWithStats(spot)
    stats, cent = stats[1:], cent[1:]
    # each spot's window, by where the windows start along the picture
    by_x = np.argsort(offs)
    owner = by_x[np.searchsorted(offs[by_x], stats[:, cv2.CC_STAT_LEFT], side="right") - 1]
    r = np.array([win[4] for win in wins])[owner]
    big = ((stats[:, cv2.CC_STAT_AREA] >= _GLINT_AREA * r * r)
           & (stats[:, cv2.CC_STAT_WIDTH] <= 1.2 * r) & (stats[:, cv2.CC_STAT_HEIGHT] <= r))
    j = np.flatnonzero(big)
    j = j[np.argsort(owner[j], kind="stable")]  # window by window, each in its labels' order
    area = stats[j, cv2.CC_STAT_AREA].astype(np.float64)
    o = offs[owner[j]]
    corner = np.array([win[:2] for win in wins], np.float64)[owner[j]]
    # each window's own centroids (its pixels' summed x, exact, less the window's offset),
    # then in the frame
    q = np.c_[(np.rint(cent[j, 0] * area) - o * area) / area, cent[j, 1]] + corner
    out: list[np.ndarray] = []
    for p, rr in zip(q, r[j]):
        if all(np.hypot(*(p - u)) >= 0.3 * rr for u in out):
            out.append(p)
    return np.array(out, np.float64).reshape(-1, 2)


def _glint_place(laid: tuple | None, p: np.ndarray, r: np.ndarray) -> np.ndarray | None:
    """Where the lamps put a ball's highlight, from its silhouette's centre in radii (x, y), as
    the lone balls at ``p`` (N, 2) px of radii ``r`` (N,) show it in their highlight windows
    ``laid`` (``_highlight_windows``): a lone ball's highlight lies within a radius of it, out
    of reach of a cluster's. None unless two thirds of them show one highlight each, at one
    place (their median distance from it under 0.2 radii)."""
    seen = _highlight_spots(laid)
    rel = []
    for pi, ri in zip(p, r):
        k = np.flatnonzero(np.hypot(*(seen - pi).T) < ri)
        if len(k) == 1:
            rel.append((seen[k[0]] - pi) / ri)
    at = np.median(rel, axis=0) if rel else None
    one = (len(rel) >= 2 * len(p) / 3 and at is not None
           and np.median(np.hypot(*(np.asarray(rel) - at).T)) < 0.2)
    return at if one else None


def _blob_cov(blob: np.ndarray) -> np.ndarray | None:
    """(2, 2) covariance of the (x, y) of a blob's pixels over half a member (soft membership),
    or None when it has fewer than 10."""
    m = cv2.moments(cv2.compare(blob, 0.5, cv2.CMP_GT), binaryImage=True)
    n = m["m00"]
    if n < 10:
        return None
    return np.array([[m["mu20"], m["mu11"]], [m["mu11"], m["mu02"]]]) / (n - 1)


def _elongated(blob: np.ndarray, ratio: float = 9.0, cov: np.ndarray | None = None) -> bool:
    """Whether a blob (soft membership) is long and thin: the variance of its pixels along its
    long axis is at least ``ratio`` times that across (a row of three touching balls is 12).
    ``cov`` its ``_blob_cov`` when known."""
    if cov is None:
        cov = _blob_cov(blob)
    if cov is None:
        return False
    evals = np.linalg.eigvalsh(cov)
    return bool(evals[0] > 0 and evals[1] >= ratio * evals[0])


def _concat(a: Detections, b: Detections) -> Detections:
    """The balls of ``a`` then those of ``b``."""
    if not len(a):
        return b
    if not len(b):
        return a
    def cat(x, y):
        return None if x is None or y is None else np.concatenate([x, y])

    return Detections(cat(a.xy_px, b.xy_px), cat(a.r_px, b.r_px), cat(a.cls, b.cls),
                      cat(a.confidence, b.confidence), cat(a.xy_mm, b.xy_mm), cat(a.lab, b.lab))


def _groups(linked: np.ndarray) -> np.ndarray:
    """(N,) the connected group of each node of the symmetric (N, N) bool ``linked``, named
    by its lowest node."""
    group = np.arange(len(linked))
    while True:
        lower = np.where(linked, group[None], group[:, None]).min(1)
        if np.array_equal(lower, group):
            return group
        group = lower


def _dedupe(d: Detections, r_mm: float = SNOOKER.ball_radius_mm,
            cloth_lab: np.ndarray | None = None) -> Detections:
    """One detection for each group closer than two balls can be: on the table nearer than 1.6
    ball radii (two balls' centres are at least two radii apart), in the image nearer than 2.2
    apparent radii, and of about one hue and chroma (a steep view puts touching balls far from
    the camera nearly on top of each other, where a pixel is several millimetres). A fast
    ball's blur streak, found as two or three discs along it, becomes their mean (they cover it
    about evenly) with the colour of the one that covers best; a ball found again on its own
    crescent keeps the disc that covers it best. Given the cloth's colour (``cloth_lab``, Lab),
    a longer streak of a ball brighter than the cloth (the white, the yellow, the pink) is known
    by its tail: in the image as near, within two ball diameters on the table, and of the head's
    colour mixed with the cloth's (``kernels.streak_tail_numpy``). Whatever their colours, discs
    nearer on the table than 1.6 radii, even with 3 px more between them in the image, are one
    ball (the head and the tail of a dark ball's blur)."""
    if len(d) < 2:
        return d
    def known(x, unknown):  # a copy: the compiled code's type, whatever the flags of ``x``
        return unknown if x is None else np.array(x, np.float64)

    close = kernels.close_pairs(known(d.xy_px, None), known(d.r_px, None),
                                known(d.xy_mm, _NO_XY), known(d.lab, _NO_LAB),
                                known(cloth_lab, _NO_CLOTH), float(r_mm))
    if not close.any():  # every detection on its own
        return d
    group = _groups(close | close.T)
    keep = np.ones(len(d), bool)
    xy_px, xy_mm = d.xy_px.copy(), None if d.xy_mm is None else d.xy_mm.copy()
    conf = d.confidence
    for g in np.flatnonzero(np.bincount(group) > 1):
        members = np.flatnonzero(group == g)
        best = members[np.argmax(conf[members])]
        keep[members] = False
        keep[best] = True
        if conf[members].min() >= 0.67 * conf[best]:
            xy_px[best] = d.xy_px[members].mean(0)
            if xy_mm is not None:
                xy_mm[best] = d.xy_mm[members].mean(0)
    return d.replace(xy_px=xy_px, xy_mm=xy_mm)[keep]
