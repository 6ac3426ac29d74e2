"""What the calibration says about the picture: where balls can be and how big they look
(``TableGeometry``), and the work image's layout for one picture size (``WorkFrame``)."""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from calibration.calibrate import Calibration
from calibration.camera import Camera, apply_homography, polygon_moments
from calibration.specs import SNOOKER, SnookerTableSpec

_OFFSET_STEP = 32.0  # px between the grid points of the silhouette offsets
# a lone ball seen within this angle (degrees) of straight down shows its own outline all
# round (the shadow under it stays hidden below it); its centre is then the mean of the
# centroid and the outline's circle, whose errors in compressed footage are half independent
_STEEP_DEG = 45.0


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


@dataclass
class WorkFrame:
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
    # the candidate search's parts (``blob_setup``): the opening's kernel, what lies outside
    # the table area, its edge and beyond the picture's edge, the least area of an arm reaching
    # in, the margin and growth of a box searched
    open_kernel: np.ndarray | None = None
    border: np.ndarray | None = None
    edge: np.ndarray | None = None
    beyond: np.ndarray | None = None
    arm_area: float | None = None
    box_margin: int | None = None
    box_grow: int | None = None


def prepare_frame(geo: TableGeometry, work_radius_px: float, w: int, h: int) -> WorkFrame:
    """The ``WorkFrame`` of pictures ``w`` x ``h`` px: the table area's box, downscaled so that
    the smallest balls (5th percentile) are ``work_radius_px`` across at least."""
    t = geo.table
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
    scale = float(min(1.0, work_radius_px / max(np.percentile(r_in, 5), 1e-3)))
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
    return WorkFrame(scale, (x0, y0, x1, y1), (ww, wh), mask, radius, size=(w, h),
                     factor=factor, room=room)


def blob_setup(prep: WorkFrame) -> None:
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
