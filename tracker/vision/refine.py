"""Refinement at full resolution: each candidate's silhouette centre in a window round it (the
soft not-cloth score's centroid, its outline's circle, a white or black ball's lightness edge),
how much of its disc it covers, its body colour, and whether it is a ball at all."""

from __future__ import annotations

import functools
from dataclasses import dataclass

import cv2
import numpy as np

from calibration.edges import subpixel_peak
from tracker.vision import kernels
from tracker.vision.cloth import _SOFT, ClothLearner
from tracker.vision.cloth_table import FG_LEVEL
from tracker.vision.discs import _skin_coloured
from tracker.vision.geometry import TableGeometry, WorkFrame
from tracker.vision.memory import LastAnswers

# brightness (B + G + R) of a lamp's highlight on a ball: this many times the cloth's, or near
# white on a bright cloth
_HIGHLIGHT = 2.5
_WHITE = 600
# least share of a ball's disc that scores clearly not cloth (``1.3 * FG_LEVEL``): a black
# ball's or a green's on green cloth is 0.23 or more on the real clips; a patch of cloth just
# over the threshold (a cushion's shadow under a model learnt from one frame) has none
_SOLID_MIN = 0.1
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


@dataclass(eq=False)
class Refiner:
    """Refines candidates in the frames of one camera, with what the detector knows: the
    table's ``geometry``, the ``cloth`` learnt, its last ``answers``, and its settings
    (``refine_iterations``, ``max_spill`` as :class:`DetectorConfig` has them)."""

    geometry: TableGeometry
    cloth: ClothLearner
    answers: LastAnswers
    iterations: int
    max_spill: float

    def refine(self, frame: np.ndarray, cands: np.ndarray, r_exp: np.ndarray, prep: WorkFrame,
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
            self.cloth.table, _SOFT)
        # neighbours that can share a window
        dmat = np.hypot(*(c[:, None] - c[None]).transpose(2, 0, 1))
        np.fill_diagonal(dmat, np.inf)
        kmax = int(min(6, n - 1))
        nbr = (np.ascontiguousarray(np.argsort(dmat, axis=1)[:, :kmax]) if kmax > 0
               else np.zeros((n, 0), np.int64))
        glint = float(min(_HIGHLIGHT * self.cloth.model.level, _WHITE))
        c, cell, d_own, cover, spill, inner, in_k, strong_k, solid, lit = kernels.refine_windows(
            alpha, valid, score, win, (c - base).astype(np.float32), base, r_exp, nbr, dmat,
            self.iterations, half, glint, 2 * FG_LEVEL, 1.3 * FG_LEVEL)
        lab = _body_lab(win, inner)
        windows = _Windows(half, base, win, score, alpha, valid, cell, d_own)
        occupied = strong_k > 0.3 * np.maximum(in_k, 1)
        through = self._passed_through(windows, c, r_exp, occupied)
        # a disc split off a ball onto the shadow under it: its own part is mostly weak
        # (dark cloth, ``solid`` low), where a ball's, even a black one's, is solid
        crowded = dmat.min(1) < 2.0 * r_exp if n > 1 else np.zeros(n, bool)
        # ... unless it is on one side only: a ball against an arm or a body, not of skin's
        # colour (no ball is: the hand at the end of a sleeve)
        one_sided = occupied.sum(1) <= 4
        cloth = self.cloth.model.lab()
        against = one_sided & ~_skin_coloured(lab, cloth)
        ok = (cover > 0.2) & ((spill < self.max_spill) | against) & ~through
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
        c = self._recentred(windows, c, r_exp, dmat, lab)
        return c.astype(np.float64) + base, cover, lab, ok, lit

    def _passed_through(self, w: _Windows, c: np.ndarray, r_exp: np.ndarray,
                        occupied: np.ndarray) -> np.ndarray:
        """(N,) bool: something passes under or over each ball (the cue, a rest): it shows on
        opposite sides of it (two opposite sectors of the ring round it ``occupied`` (N, 8)),
        as one thing; a ball touching another object shows it on one side only."""
        opposite = occupied[:, :4] & occupied[:, 4:]
        through = np.any(opposite, axis=1)
        if through.any():  # ... but a moving ball's blur fills it ahead and behind
            through &= ~self.answers.own_blur(c + w.base, r_exp, opposite)
        # ... as one thing, joined over the ball or round it: a cue beside the ball with cloth
        # between, and a shadow on its far side, are two
        rr = r_exp[:, None, None].astype(np.float32)
        for i in np.flatnonzero(through):
            strong = w.score[i] >= 2 * FG_LEVEL
            near_i = strong & w.cell[i] & w.valid[i] & (w.d_own[i] <= (1.8 * rr[i]) ** 2)
            ry, rx, sector = kernels.ring_sectors(w.cell[i], w.valid[i], w.d_own[i], c[i],
                                                  rr[i, 0, 0], w.half)
            through[i] = _joined_across(near_i, ry, rx, sector, occupied[i])
        return through

    def _recentred(self, w: _Windows, c: np.ndarray, r_exp: np.ndarray, dmat: np.ndarray,
                   lab: np.ndarray) -> np.ndarray:
        """The centroids ``c`` (N, 2, window px about ``w.base``) moved to the circle through
        the outline of balls near another or alone, and through the lightness edge of a still
        white or black ball seen from above."""
        n = len(c)
        # balls whose windows overlap a neighbour's: the dark gaps and shadows between them
        # fill their windows unevenly, so their outline where it meets the cloth places them
        # (discs nearer than 1.6 radii are pieces of one blurred ball, not balls side by side)
        gap = dmat.min(1) / r_exp if n > 1 else np.full(n, np.inf)
        near = (gap >= 1.6) & (gap < 2.6)
        # ... and a lone ball seen from above by both (``geometry._STEEP_DEG``)
        steep = self.geometry.steep(c + w.base)
        lone = (gap >= 2.6) & steep
        idx = np.flatnonzero(near | lone)
        half = w.half
        fit, held = _outline_centres(w.alpha[idx], c[idx] + half, r_exp[idx])
        fit = (fit - half).astype(np.float32)
        both = lone[idx][:, None]
        c[idx] = np.where(held[:, None], np.where(both, 0.5 * (c[idx] + fit), fit), c[idx])
        # a white or black ball seen from above, alone or beside another, stands off the cloth
        # and its neighbours in lightness, which the codec keeps at full resolution where it
        # halves the colour's: its lightness edge places it (a coloured ball's shaded rim takes
        # that edge inwards), unless it moves (blurred along its path, its edge is not round)
        grey = np.flatnonzero((gap >= 1.6) & steep & self.answers.still(c + w.base, r_exp)
                              & (np.hypot(lab[:, 1] - 128, lab[:, 2] - 128) < _ACHROMATIC))
        if len(grey):
            light = w.win[grey].astype(np.float32) @ np.float32([0.114, 0.587, 0.299])
            edge, sharp = _edge_centres(light, c[grey] + half, r_exp[grey])
            c[grey] = np.where(sharp[:, None], (edge - half).astype(np.float32), c[grey])
        return c


@dataclass
class _Windows:
    """The full-resolution windows of N candidates (``kernels.window_pixels`` and
    ``kernels.refine_windows``): half their size, their centre pixels (N, 2), BGR, scores,
    soft membership, which pixels are in the picture, each candidate's own cell and the squared
    distance of its pixels from its centre."""

    half: int
    base: np.ndarray
    win: np.ndarray
    score: np.ndarray
    alpha: np.ndarray
    valid: np.ndarray
    cell: np.ndarray
    d_own: np.ndarray


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


def _shadow_coloured(lab: np.ndarray, cloth_lab: np.ndarray) -> np.ndarray:
    """(N,) bool: body colours (N, 3) OpenCV Lab that are the cloth's (3,) in shadow: under
    half its lightness but not black, and of about its hue (within 60 degrees in a*b*)."""
    light = lab[:, 0] / max(cloth_lab[0], 1.0)
    ab, ab0 = lab[:, 1:] - 128.0, cloth_lab[1:] - 128.0
    along = ab @ ab0 / max(float(np.hypot(*ab0)), 1e-6)
    return (light < 0.5) & (light >= 0.15) & (along > 0.5 * np.hypot(ab[:, 0], ab[:, 1]))


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
