"""Pool balls on the cloth of any colour: where each ball is, how big, and which ball it is.

``PoolBallFinder(table).find(frame_bgr) -> list[PoolBall]``, where ``table`` is the playing
field in pixels (an (N, 2) polygon of the cloth inside the cushion noses) or a
``calibration.calibrate.Calibration`` whose homography maps a pool table's mm to pixels.

Detection: the cloth is modelled from the frame itself (its chroma and lightness, smoothed over the
table so that lamps and vignetting are followed); a pixel is a ball's where it differs from that
model more than the cloth's own noise, by chroma, by being brighter, or by being much darker (a
ball's shadow only darkens the cloth a little). Balls are the peaks of the share of such pixels
in a disc of the ball's expected size (after an opening that takes off strips narrower than a
ball, and long straight runs along the region's sides: cushions inside a region drawn round
them), which parts touching balls; a peak whose surroundings, outside the other balls found,
are mostly foreground, or whose outline does not show against what lies round it (a hand), is
no ball. In a cluster larger than a few balls (a rack) that share is level, and the circles
that the balls' outlines make (a Hough transform) stand for the peaks. The expected radius comes
from the homography (its largest local scale, as a sphere looks as wide as the plane's least
foreshortened direction), scaled by what the lone balls of the frame measure.

Identity is ``tracker.vision.pool_identity``: the cue ball, the 8, solids and stripes by their
white and colour shares, and numbers by hue learnt from the set on the table.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from calibration.errors import InputError
from calibration.specs import POOL_9FT, PoolTableSpec

# How far apart (Lab) a ball's colour and what lies beyond its outline are where it shows.
RIM_DIFF = 12.0
# A WPA playing surface is twice as long as wide, whatever its size.
_LENGTH_OVER_WIDTH = 2.0


@dataclass(frozen=True)
class PoolBall:
    """One ball found in a frame.

    ``xy_px`` centre (x, y) in image px; ``r_px`` apparent radius; ``kind`` one of ``cue``,
    ``solid``, ``eight``, ``stripe``; ``kind_confidence`` in [0, 1]; ``ball`` its id (``cue``,
    ``"1"``..``"15"``) or None when the number is uncertain; ``ball_confidence`` in [0, 1] (0
    when ``ball`` is None); ``detect_confidence`` in [0, 1], how sure it is a ball at all;
    ``white_share`` and ``colour_share`` the parts of the visible disc that are white and
    coloured."""

    xy_px: tuple[float, float]
    r_px: float
    kind: str
    kind_confidence: float
    ball: str | None
    ball_confidence: float
    detect_confidence: float
    white_share: float
    colour_share: float


@dataclass(frozen=True)
class FinderConfig:
    """The detector's settings.

    ``noise_k``: a ball's pixel differs from the cloth model by this many of the cloth's robust
    spreads; ``dark_share``: a pixel darker than the cloth by this share of its lightness counts
    as a ball's (a shadow darkens less); ``peak``: least share of a ball's pixels in its inner
    disc; ``ring``: most share of them round it, outside other balls; ``inner``: the inner
    disc's radius in ball radii."""

    noise_k: float = 4.0
    chroma_floor: float = 7.0
    bright_floor: float = 9.0
    dark_share: float = 0.4
    peak: float = 0.55
    ring: float = 0.55
    inner: float = 0.8
    opening: float = 0.7
    strong: float = 3.0
    rim: float = 0.8
    apart: float = 1.4

    def __post_init__(self):
        for name in ("noise_k", "chroma_floor", "bright_floor", "strong", "apart"):
            if getattr(self, name) <= 0:
                raise ValueError(f"FinderConfig.{name} must be > 0, got {getattr(self, name)}")
        for name in ("dark_share", "peak", "ring", "inner", "opening", "rim"):
            if not 0 < getattr(self, name) < 1:
                raise ValueError(f"FinderConfig.{name} must be in (0, 1), "
                                 f"got {getattr(self, name)}")


def _quad(polygon: np.ndarray) -> np.ndarray | None:
    """The four corners of a (roughly) quadrilateral polygon, in order round it, or None."""
    hull = cv2.convexHull(polygon.astype(np.float32))
    length = cv2.arcLength(hull, True)
    for eps in np.linspace(0.002, 0.08, 40):
        approx = cv2.approxPolyDP(hull, eps * length, True)
        if len(approx) == 4:
            return approx.reshape(4, 2).astype(np.float64)
        if len(approx) < 4:
            return None
    return None


def _homography_from_quad(quad: np.ndarray, table: PoolTableSpec, start: int) -> np.ndarray:
    """Table mm -> px for a playing field seen as ``quad``, whose side from corner ``start`` to
    the next is a short (head) side."""
    q = np.roll(np.asarray(quad, np.float64), -start, axis=0)
    w, L = table.width_mm, table.width_mm * _LENGTH_OVER_WIDTH
    mm = np.array([[0, 0], [w, 0], [w, L], [0, L]], np.float64)
    H, _ = cv2.findHomography(mm, q)
    if H is None:
        raise InputError("the table's corners do not make a quadrilateral")
    return H


def _local_scale(H: np.ndarray, pts_px: np.ndarray) -> np.ndarray:
    """px per mm of the plane's least foreshortened direction at image points (N, 2)."""
    Hinv = np.linalg.inv(H)
    p = np.c_[pts_px, np.ones(len(pts_px))] @ Hinv.T
    mm = p[:, :2] / p[:, 2:3]
    eps = 1.0
    base = _apply(H, mm)
    jx = (_apply(H, mm + [eps, 0]) - base) / eps
    jy = (_apply(H, mm + [0, eps]) - base) / eps
    J = np.stack([jx, jy], axis=2)  # (N, 2 px, 2 mm)
    return np.linalg.svd(J, compute_uv=False)[:, 0]


def _apply(H: np.ndarray, pts: np.ndarray) -> np.ndarray:
    p = np.c_[pts, np.ones(len(pts))] @ H.T
    return p[:, :2] / p[:, 2:3]


def _smooth_where(values: np.ndarray, weight: np.ndarray, sigma: float) -> np.ndarray:
    """Gaussian smoothing of ``values`` over the pixels where ``weight`` is set (normalised
    convolution), so that balls and the world beyond the table do not bleed into the cloth.
    Done at a scale of an eighth of ``sigma`` a pixel, as the result is smooth at that scale."""
    h, w = values.shape
    f = max(1, int(sigma / 8))
    if f > 1:
        size = (max(1, w // f), max(1, h // f))
        values = cv2.resize(values * weight, size, interpolation=cv2.INTER_AREA)
        weight = cv2.resize(weight, size, interpolation=cv2.INTER_AREA)
        sigma /= f
    else:
        values = values * weight
    k = int(2 * round(3 * sigma) + 1)
    num = cv2.GaussianBlur(values, (k, k), sigma, borderType=cv2.BORDER_REPLICATE)
    den = cv2.GaussianBlur(weight, (k, k), sigma, borderType=cv2.BORDER_REPLICATE)
    out = num / np.maximum(den, 1e-6)
    return cv2.resize(out, (w, h), interpolation=cv2.INTER_LINEAR) if f > 1 else out


def _holes_filled(fg: np.ndarray, most_px: float) -> np.ndarray:
    """``fg`` (H, W) with its holes of at most ``most_px`` pixels filled: a highlight or a
    number's circle inside a ball, which would break the ball's opening."""
    n, labels, stats, _ = cv2.connectedComponentsWithStats((fg == 0).astype(np.uint8),
                                                           connectivity=4)
    small = np.nonzero(stats[:, cv2.CC_STAT_AREA] <= most_px)[0]
    out = fg.copy()
    if len(small):
        out[np.isin(labels, small)] = 1
    return out


def _disc(r: float) -> np.ndarray:
    n = int(np.ceil(r))
    y, x = np.mgrid[-n:n + 1, -n:n + 1]
    d = (x * x + y * y <= r * r).astype(np.float32)
    return d / d.sum()


@dataclass(frozen=True)
class ClothFit:
    """The cloth as the frame shows it: Lab maps (H, W) of the cloth without balls, the cloth's
    robust spreads, and each pixel's foreground score (>= 1: a ball's)."""

    lab: np.ndarray
    cloth_lab: np.ndarray
    spread: np.ndarray
    score: np.ndarray


class PoolBallFinder:
    """Finds and names the balls on a pool table's cloth.

    ``table``: an (N, 2) polygon of the playing field in image px (the cloth inside the cushion
    noses), or a ``Calibration`` (its homography maps table mm to px; its ``table`` spec is used
    when it is a ``PoolTableSpec``). ``spec``: the table's size when a polygon is given (only the
    expected ball size depends on it, and that is corrected from the frame). ``radius_px``: the
    balls' apparent radius when known, which then is not measured.

    ``find(frame_bgr)`` -> list of :class:`PoolBall`, in no particular order. The frame is
    (H, W, 3) uint8 BGR."""

    def __init__(self, table, spec: PoolTableSpec = POOL_9FT, radius_px: float | None = None,
                 config: FinderConfig | None = None):
        self.config = config or FinderConfig()
        self.spec = spec
        self.H: np.ndarray | None = None
        self._quad_H: list[np.ndarray] = []
        if hasattr(table, "H_table_to_image"):
            t = getattr(table, "table", None)
            if isinstance(t, PoolTableSpec):
                self.spec = t
            self.H = np.asarray(table.H_table_to_image, np.float64)
            corners = np.array([[0, 0], [self.spec.width_mm, 0],
                                [self.spec.width_mm, self.spec.length_mm],
                                [0, self.spec.length_mm]], np.float64)
            self.polygon = table.table_to_px(corners)
        else:
            poly = np.asarray(table, np.float64)
            if poly.ndim != 2 or poly.shape[1] != 2 or len(poly) < 3:
                raise InputError(f"the table region must be an (N, 2) polygon of N >= 3 image "
                                 f"points, got shape {poly.shape}")
            self.polygon = poly
            quad = _quad(poly)
            if quad is not None:
                # which sides are the short ones is settled by the balls' sizes (``_prepare``);
                # without enough balls to say, the shorter in the image
                side = np.linalg.norm(quad - np.roll(quad, -1, axis=0), axis=1)
                first = 0 if side[0] + side[2] <= side[1] + side[3] else 1
                self._quad_H = [_homography_from_quad(quad, self.spec, s)
                                for s in (first, 1 - first)]
        if radius_px is not None and not radius_px > 0:
            raise InputError(f"the ball radius must be > 0 px, got {radius_px}")
        self.radius_px = radius_px
        self._size: tuple[int, int] | None = None
        self._inside: np.ndarray | None = None
        self._r_pred: np.ndarray | None = None

    # -- geometry ---------------------------------------------------------------------------------
    def _prepare(self, w: int, h: int) -> None:
        if self._size == (w, h):
            return
        inside = np.zeros((h, w), np.uint8)
        cv2.fillPoly(inside, [np.round(self.polygon).astype(np.int32)], 1)
        if inside.sum() == 0:
            raise InputError(f"the table region lies outside the {w}x{h} frame")
        self._inside = inside.astype(bool)
        self._size = (w, h)
        if self._quad_H and self.radius_px is None:
            self._r_options = [self._predicted_radius(w, h, H) for H in self._quad_H]
        else:
            self._r_options = [self._predicted_radius(w, h, self.H)]
        self._r_pred = self._r_options[0]

    def _predicted_radius(self, w: int, h: int, H: np.ndarray | None) -> np.ndarray:
        """Expected ball radius (H, W) px before the frame's own measure corrects it."""
        if self.radius_px is not None:
            return np.full((h, w), self.radius_px, np.float32)
        if H is None:
            # a field of unknown shape: a ball against its area, as on a table twice as long as wide
            area = float(self._inside.sum())
            width_px = np.sqrt(area / _LENGTH_OVER_WIDTH)
            r = self.spec.ball_radius_mm * width_px / self.spec.width_mm
            return np.full((h, w), r, np.float32)
        step = 16
        gx, gy = np.meshgrid(np.arange(0, w + step, step), np.arange(0, h + step, step))
        s = _local_scale(H, np.c_[gx.ravel(), gy.ravel()].astype(np.float64))
        r = (s * self.spec.ball_radius_mm).reshape(gx.shape).astype(np.float32)
        return cv2.resize(r, (gx.shape[1] * step, gx.shape[0] * step),
                          interpolation=cv2.INTER_LINEAR)[:h, :w]

    # -- cloth ------------------------------------------------------------------------------------
    def cloth(self, frame_bgr: np.ndarray) -> ClothFit:
        """The cloth model of one frame and each pixel's foreground score."""
        frame = _checked_frame(frame_bgr)
        h, w = frame.shape[:2]
        self._prepare(w, h)
        cfg, inside = self.config, self._inside
        lab = cv2.cvtColor(frame.astype(np.float32) / 255.0, cv2.COLOR_BGR2LAB)
        r = float(np.median(self._r_pred[inside]))
        # first guess: the table's median; then only what is near it, smoothed over the table
        med = np.median(lab[inside], axis=0)
        dev = np.abs(lab[inside] - med)
        spread = np.maximum(1.4826 * np.median(dev, axis=0), [1.0, 0.8, 0.8])
        near = np.all(np.abs(lab - med) < 6 * spread + [12, 6, 6], axis=2) & inside
        # balls are left out of the cloth model: it follows light over several ball widths
        near = cv2.erode(near.astype(np.uint8), np.ones((3, 3), np.uint8)).astype(np.float32)
        sigma = max(4.0 * r, 8.0)
        cloth_lab = np.dstack([_smooth_where(lab[..., c], near, sigma) for c in range(3)])
        resid = (lab - cloth_lab)[near > 0]
        spread = np.maximum(1.4826 * np.median(np.abs(resid), axis=0), [0.5, 0.4, 0.4])
        dL = lab[..., 0] - cloth_lab[..., 0]
        dC = np.hypot(lab[..., 1] - cloth_lab[..., 1], lab[..., 2] - cloth_lab[..., 2])
        t_chroma = max(cfg.noise_k * float(np.hypot(spread[1], spread[2])), cfg.chroma_floor)
        t_bright = max(cfg.noise_k * float(spread[0]), cfg.bright_floor)
        t_dark = np.maximum(cfg.dark_share * cloth_lab[..., 0], t_bright)
        score = np.maximum.reduce([dC / t_chroma, dL / t_bright, -dL / t_dark])
        score[~inside] = 0
        return ClothFit(lab, cloth_lab, spread, score.astype(np.float32))

    # -- balls ------------------------------------------------------------------------------------
    def candidates(self, fit: ClothFit) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Ball centres (N, 2) px, radii (N,) px and detection confidences (N,) in one frame."""
        cfg = self.config
        fg = (fit.score >= 1.0).astype(np.float32)
        r_map = self._r_pred if self.radius_px is not None else self._measured_radius(fg)
        inside = self._inside
        r_in = r_map[inside]
        lo, hi = float(r_in.min()), float(r_in.max())
        fg = self._without_edge_strips(fg, fit.score, float(np.median(r_in)))
        fg = _holes_filled(fg, 0.5 * np.pi * lo * lo)
        # discs of a few sizes, each pixel taking the one nearest its expected radius
        levels = np.exp(np.arange(np.log(lo), np.log(hi) + 0.1, 0.1))
        share = np.zeros_like(fg)
        level_of = np.abs(np.log(r_map)[..., None] - np.log(levels)).argmin(axis=2)
        soft = np.clip(fit.score, 0, 1.5)
        for i, rl in enumerate(levels):
            here = level_of == i
            if not here[inside].any():
                continue
            # opening by a disc narrower than a ball takes off strips (a cushion's face, a cue)
            k_open = _disc(cfg.opening * rl)
            k_open = (k_open > 0).astype(np.uint8)
            opened = cv2.morphologyEx(fg, cv2.MORPH_OPEN, k_open)
            m = cv2.filter2D(opened, -1, _disc(cfg.inner * rl), borderType=cv2.BORDER_CONSTANT)
            # ties on a plateau go to the centre of the strongest pixels
            m += 0.01 * cv2.filter2D(soft, -1, _disc(cfg.inner * rl),
                                     borderType=cv2.BORDER_CONSTANT)
            share[here] = m[here]
        share[~self._field(fg, float(np.median(r_in)))] = 0
        k = max(3, int(round(lo)) | 1)
        peaks = (share >= cv2.dilate(share, np.ones((k, k), np.uint8))) & (share >= cfg.peak)
        ys, xs = np.nonzero(peaks)
        order = np.argsort(-share[ys, xs])
        kept: list[tuple[float, float]] = []
        radii: list[float] = []
        for i in order:
            x, y = float(xs[i]), float(ys[i])
            r = float(r_map[ys[i], xs[i]])
            if all((x - kx) ** 2 + (y - ky) ** 2 > (self.config.apart * min(r, kr)) ** 2
                   for (kx, ky), kr in zip(kept, radii)):
                kept.append((x, y))
                radii.append(r)
        if not kept:
            return np.zeros((0, 2)), np.zeros(0), np.zeros(0)
        xy = np.array(kept)
        rr = np.array(radii)
        xy = self._refine(fg, xy, rr)
        conf = share[np.round(xy[:, 1]).astype(int).clip(0, fg.shape[0] - 1),
                     np.round(xy[:, 0]).astype(int).clip(0, fg.shape[1] - 1)].clip(0, 1)
        alone = self._ring_clear(fg, xy, rr) & (self._rim_contrast(fit.lab, xy, rr)
                                                 >= cfg.rim)
        return self._in_clusters(fit, fg, share, r_map, xy[alone], rr[alone], conf[alone])

    def _in_clusters(self, fit: ClothFit, fg: np.ndarray, share: np.ndarray, r_map: np.ndarray,
                     xy: np.ndarray, rr: np.ndarray, conf: np.ndarray
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Balls in clusters (a rack, balls frozen together), where the share of ball pixels
        is level and its peaks say little: the circles the outlines make (a Hough transform of
        the lightness within the cluster) replace the peaks when they are more."""
        blobs = (fg > 0).astype(np.uint8)
        n, labels, stats, cents = cv2.connectedComponentsWithStats(blobs, connectivity=8)
        gray = np.clip(fit.lab[..., 0] * 2.55, 0, 255).astype(np.uint8)
        h, w = fg.shape
        for c in range(1, n):
            x0, y0, bw, bh, area = stats[c]
            r = float(r_map[int(cents[c][1]), int(cents[c][0])])
            if area < 2.5 * np.pi * r * r:
                continue
            pad = int(2 * r)
            X0, Y0 = max(x0 - pad, 0), max(y0 - pad, 0)
            X1, Y1 = min(x0 + bw + pad, w), min(y0 + bh + pad, h)
            circles = cv2.HoughCircles(gray[Y0:Y1, X0:X1], cv2.HOUGH_GRADIENT, dp=1,
                                       minDist=1.6 * r, param1=60, param2=10,
                                       minRadius=int(0.8 * r), maxRadius=int(1.2 * r + 1))
            if circles is None:
                continue
            cxy = circles[0][:, :2].astype(np.float64) + [X0, Y0]
            ix = np.round(cxy).astype(int)
            on = (labels[ix[:, 1].clip(0, h - 1), ix[:, 0].clip(0, w - 1)] == c) & (
                share[ix[:, 1].clip(0, h - 1), ix[:, 0].clip(0, w - 1)] >= self.config.peak)
            cxy = cxy[on]
            cxy = cxy[self._rim_contrast(fit.lab, cxy, np.full(len(cxy), r)) >= self.config.rim]
            ix = np.round(xy).astype(int)
            mine = labels[ix[:, 1].clip(0, h - 1), ix[:, 0].clip(0, w - 1)] == c
            if len(cxy) > mine.sum():
                cr = r_map[np.round(cxy[:, 1]).astype(int), np.round(cxy[:, 0]).astype(int)]
                cc = share[np.round(cxy[:, 1]).astype(int),
                           np.round(cxy[:, 0]).astype(int)].clip(0, 1)
                xy = np.vstack([xy[~mine], cxy])
                rr = np.concatenate([rr[~mine], cr])
                conf = np.concatenate([conf[~mine], cc])
        return xy, rr, conf

    def _without_edge_strips(self, fg: np.ndarray, score: np.ndarray, r: float) -> np.ndarray:
        """``fg`` without the long straight runs along the region's sides (a cushion's face or
        top inside a region drawn round it): what a line of five radii along a side keeps,
        within a radius of that side, unless it stands out from the cloth as a ball does
        (``score`` at least ``strong``)."""
        hull = cv2.convexHull(self.polygon.astype(np.float32))
        sides = cv2.approxPolyDP(hull, 0.01 * cv2.arcLength(hull, True), True).reshape(-1, 2)
        n = int(round(5 * r)) | 1
        out = fg.copy()
        for a, b in zip(sides, np.roll(sides, -1, axis=0)):
            d = b - a
            length = float(np.hypot(*d))
            if length < 2 * n:
                continue
            line = np.zeros((n, n), np.uint8)
            c, u = n // 2, d / length * (n // 2)
            cv2.line(line, (int(round(c - u[0])), int(round(c - u[1]))),
                     (int(round(c + u[0])), int(round(c + u[1]))), 1)
            strip = cv2.morphologyEx(fg, cv2.MORPH_OPEN, line) > 0
            band = np.zeros(fg.shape, np.uint8)
            cv2.line(band, tuple(int(v) for v in a), tuple(int(v) for v in b), 1,
                     thickness=int(2 * r))
            out[strip & (band > 0) & (score < self.config.strong)] = 0
        return out

    def _field(self, fg: np.ndarray, r: float) -> np.ndarray:
        """Where a ball's centre may be: the cloth, closed over notches a ball against a cushion
        makes and with the holes balls make filled. A region drawn round the cushions as well
        as the cloth loses them here, as they differ from the cloth and reach its edge."""
        cloth = ((fg == 0) & self._inside).astype(np.uint8)
        k = int(2 * round(1.6 * r) + 1)
        disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
        cloth = cv2.morphologyEx(cloth, cv2.MORPH_CLOSE, disc)
        # what is not cloth and reaches the frame's border from outside is not the field
        outside = np.pad(1 - cloth, 1, constant_values=1)
        flood = np.zeros((outside.shape[0] + 2, outside.shape[1] + 2), np.uint8)
        cv2.floodFill(outside, flood, (0, 0), 2)
        return outside[1:-1, 1:-1] != 2

    def _measured_radius(self, fg: np.ndarray) -> np.ndarray:
        """The expected radius map (H, W) that the lone round blobs of the frame fit best: of
        the predictions (a quadrilateral field read either way round), the one their sizes
        vary least against, scaled by their median size over it."""
        n, _, stats, cents = cv2.connectedComponentsWithStats(fg.astype(np.uint8), connectivity=8)
        x, y, bw, bh, area = stats[1:].T
        round_ = ((area >= 12) & (bw >= 0.75 * bh) & (bh >= 0.75 * bw)
                  & (area >= 0.6 * bw * bh))  # a disc fills pi/4 of its box
        size = np.sqrt(area[round_] / np.pi)
        at = np.round(cents[1:][round_]).astype(int)
        if len(size) < 3:
            return self._r_options[0]
        best, best_spread = self._r_options[0], np.inf
        for r_map in self._r_options:
            log_ratio = np.log(size / r_map[at[:, 1], at[:, 0]])
            spread = float(np.median(np.abs(log_ratio - np.median(log_ratio))))
            if spread < best_spread:
                scale = float(np.clip(np.exp(np.median(log_ratio)), 0.5, 2.0))
                best, best_spread = r_map * scale, spread
        return best

    def _refine(self, fg: np.ndarray, xy: np.ndarray, rr: np.ndarray) -> np.ndarray:
        """Each centre moved to the centroid of its ball's pixels nearer to it than to others."""
        h, w = fg.shape
        out = xy.copy()
        for _ in range(2):
            for i, ((x, y), r) in enumerate(zip(out, rr)):
                n = int(np.ceil(r)) + 1
                x0, x1 = max(int(x) - n, 0), min(int(x) + n + 1, w)
                y0, y1 = max(int(y) - n, 0), min(int(y) + n + 1, h)
                yy, xx = np.mgrid[y0:y1, x0:x1]
                d2 = (xx - x) ** 2 + (yy - y) ** 2
                mine = (d2 <= r * r) & (fg[y0:y1, x0:x1] > 0)
                for j, (ox, oy) in enumerate(out):
                    if j != i and abs(ox - x) < 3 * r and abs(oy - y) < 3 * r:
                        mine &= d2 < (xx - ox) ** 2 + (yy - oy) ** 2
                if mine.sum() >= 4:
                    nx, ny = xx[mine].mean(), yy[mine].mean()
                    # a half-seen ball's centroid lies inside it: move at most half a radius
                    step = np.hypot(nx - x, ny - y)
                    f = min(1.0, 0.5 * r / step) if step > 0 else 1.0
                    out[i] = (x + f * (nx - x), y + f * (ny - y))
        return out

    @staticmethod
    def _outline_radii(fg: np.ndarray, xy: np.ndarray, rr: np.ndarray, n: int = 24
                       ) -> np.ndarray:
        """Each ball's radius (N,) as its outline shows: the lower half of how far its pixels
        reach in ``n`` directions (a neighbour or a shadow only lengthens some), within a
        third of the expected radius ``rr``."""
        h, w = fg.shape
        ang = np.linspace(0, 2 * np.pi, n, endpoint=False)
        d = np.c_[np.cos(ang), np.sin(ang)]
        out = rr.copy()
        for i, ((x, y), r) in enumerate(zip(xy, rr)):
            steps = np.arange(0.5, 1.5 * r, 0.5)
            px = np.round(x + d[:, :1] * steps).astype(int).clip(0, w - 1)
            py = np.round(y + d[:, 1:] * steps).astype(int).clip(0, h - 1)
            on = fg[py, px]  # (n, steps)
            first_off = np.where(on.all(axis=1), len(steps), (~on).argmax(axis=1))
            reach = steps[np.minimum(first_off, len(steps) - 1)]
            out[i] = float(np.clip(np.percentile(reach, 40), 0.67 * r, 1.33 * r))
        return out

    @staticmethod
    def _rim_contrast(lab: np.ndarray, xy: np.ndarray, rr: np.ndarray, n: int = 16
                      ) -> np.ndarray:
        """The share (N,) of directions round each candidate in which its colour inside the rim
        differs from what lies outside it: a ball's outline shows against the cloth and its
        neighbours, a patch tiled with candidates (a hand) is much the same across it."""
        h, w = lab.shape[:2]
        smooth = cv2.GaussianBlur(lab, (3, 3), 0)
        ang = np.linspace(0, 2 * np.pi, n, endpoint=False)
        d = np.c_[np.cos(ang), np.sin(ang)]
        out = np.zeros(len(xy))
        for i, ((x, y), r) in enumerate(zip(xy, rr)):
            pin = np.round(np.c_[x + 0.55 * r * d[:, 0], y + 0.55 * r * d[:, 1]]).astype(int)
            pout = np.round(np.c_[x + 1.4 * r * d[:, 0], y + 1.4 * r * d[:, 1]]).astype(int)
            pin[:, 0] = pin[:, 0].clip(0, w - 1)
            pout[:, 0] = pout[:, 0].clip(0, w - 1)
            pin[:, 1] = pin[:, 1].clip(0, h - 1)
            pout[:, 1] = pout[:, 1].clip(0, h - 1)
            diff = smooth[pin[:, 1], pin[:, 0]] - smooth[pout[:, 1], pout[:, 0]]
            out[i] = float((np.linalg.norm(diff, axis=1) > RIM_DIFF).mean())
        return out

    def _ring_clear(self, fg: np.ndarray, xy: np.ndarray, rr: np.ndarray) -> np.ndarray:
        """Which candidates stand clear: the ring round each, outside the other balls, is
        mostly cloth (a hand or a cue is foreground all round)."""
        h, w = fg.shape
        keep = np.ones(len(xy), bool)
        for i, ((x, y), r) in enumerate(zip(xy, rr)):
            n = int(np.ceil(1.7 * r)) + 1
            x0, x1 = max(int(x) - n, 0), min(int(x) + n + 1, w)
            y0, y1 = max(int(y) - n, 0), min(int(y) + n + 1, h)
            yy, xx = np.mgrid[y0:y1, x0:x1]
            d2 = (xx - x) ** 2 + (yy - y) ** 2
            ring = (d2 > (1.25 * r) ** 2) & (d2 <= (1.7 * r) ** 2) & self._inside[y0:y1, x0:x1]
            for j, ((ox, oy), orr) in enumerate(zip(xy, rr)):
                if j != i and abs(ox - x) < 4 * r and abs(oy - y) < 4 * r:
                    ring &= (xx - ox) ** 2 + (yy - oy) ** 2 > (1.25 * orr) ** 2
            full = (d2 > (1.25 * r) ** 2) & (d2 <= (1.7 * r) ** 2)
            # a blob in a corner of the region (a pocket) shows too little of its surroundings
            if self._inside[y0:y1, x0:x1][full].mean() < 0.3:
                keep[i] = False
            elif ring.sum() >= 8:
                keep[i] = fg[y0:y1, x0:x1][ring].mean() <= self.config.ring
        return keep

    def find(self, frame_bgr: np.ndarray) -> list[PoolBall]:
        """The balls on the cloth of one (H, W, 3) uint8 BGR frame, each named with its
        confidence (see :class:`PoolBall`)."""
        from tracker.vision.pool_identity import identify

        fit = self.cloth(frame_bgr)
        xy, rr, conf = self.candidates(fit)
        rr = self._outline_radii(fit.score >= 1.0, xy, rr)
        hull = cv2.convexHull(self.polygon.astype(np.float32))
        edge = np.array([cv2.pointPolygonTest(hull, (float(x), float(y)), True) for x, y in xy])
        return identify(fit, xy, rr, conf, edge)


def _checked_frame(frame) -> np.ndarray:
    a = np.asarray(frame)
    if a.ndim != 3 or a.shape[2] != 3 or a.dtype != np.uint8:
        raise InputError(f"a frame must be an (H, W, 3) uint8 BGR image, got shape {a.shape} "
                         f"dtype {a.dtype}")
    return a
