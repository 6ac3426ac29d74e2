"""Blobs to discs: the balls in each not-cloth blob of the work image, a lone ball as it is, a
cluster (the pack, touching balls, a ball against a cushion or an arm) explained by discs of
the radius the calibration predicts there, and a fast ball's blur streak as one ball."""

from __future__ import annotations

import bisect
import functools
from dataclasses import dataclass

import cv2
import numpy as np

from tracker.vision import kernels
from tracker.vision.cloth import _SOFT, _SOFT_STEPS, ClothLearner, _readonly
from tracker.vision.geometry import WorkFrame
from tracker.vision.memory import LastAnswers
from tracker.vision.search import _lone_shaped, _Pieces, _window_centroids

# share of a disc a ball fills (a cue with its shadow, a finger fill less)
_FULL = 0.8
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
# the shortest blur band (radii) taken for one ball that moved: a blur of a radius a frame
# (the discs found at its ends, 1 to 1.6 radii apart, would be taken for one ball at one of
# them); it came along its band within this angle (degrees)
_SHORT_STREAK = 3.0
_STREAK_AXIS_DEG = 30.0
# the least variance (radii squared) of a blob's pixels along its long axis that may be a blur
# band: three quarters of a band of ``_SHORT_STREAK`` radii's (a ball's is 0.25)
_BAND_VARIANCE = 0.45
# every distance of a pixel offset (up to this many pixels each way) from a disc's centre,
# sorted: a disc of radius r holds the offsets whose distance is one of the first
# ``bisect_right(r)`` of them, so radii with the same count make the same disc
_OFFSETS_MAX = 64
_OFFSET_DIST_LIST = np.unique(np.hypot(*np.ogrid[0:_OFFSETS_MAX + 1, 0:_OFFSETS_MAX + 1])
                             ).tolist()
_NO_PREFERENCE = np.zeros((0, 0))  # the type of a preference given, with none in it


def _disc_kernels(r: float) -> tuple[np.ndarray, np.ndarray, int]:
    """What ``BlobDiscs.explain`` places for a ball of radius ``r`` (work px), as
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


def _padded(blob: np.ndarray, pad: int) -> np.ndarray:
    """``blob`` (h, w) as float32 with ``pad`` zero pixels round it."""
    out = np.zeros((blob.shape[0] + 2 * pad, blob.shape[1] + 2 * pad), np.float32)
    out[pad:-pad, pad:-pad] = blob
    return out


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


@dataclass(eq=False)
class BlobDiscs:
    """The balls in blobs of one camera's work images, with what the detector knows: the
    ``cloth`` learnt, its last ``answers`` and the least share of a disc a ball fills
    (``min_cover``, as :class:`DetectorConfig` has it)."""

    cloth: ClothLearner
    answers: LastAnswers
    min_cover: float

    def discs(self, part: _Pieces, i: int, r: float, prep: WorkFrame,
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
        found = self.explain(soft, bx + ox, by + oy, r, intruding, part.flat[sl])
        if not intruding and np.hypot(bw, bh) >= _SHORT_STREAK * r:  # long enough for a streak
            stood = self.answers.centres_work_px(prep)
            if stood is not None:
                stood = stood - [window[0] + bx + ox, window[1] + by + oy]
            going = self.answers.steps_px()
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

    def explain(self, blob: np.ndarray, bx: int, by: int, r: float, intruding: bool,
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
                                    self.min_cover * scale, _FULL * scale, prefer)
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
        return bool(_skin_coloured(body[None], self.cloth.model.lab())[0])
