"""The detector's per-pixel work: the refinement, per pixel of the balls' full-resolution windows
and per ball (the windows gathered and scored, each ball's centroid in its own cell and what its
ring shows, the points of its outline along rays and the circle through them, and its body
colour); a box of the work image flattened and scored; the discs placed one by one in a blob of
the work image, and the tests of a disc in something bigger (the end of a bar, the neck between
two discs, the colour round a disc, the free arc round it); the cloth model's table of scores;
and the tests of which detections are one ball (a ball found twice, a blur streak found as two
or three discs).

Each function here has a numpy reference (``*_numpy``, whole arrays at a time) and the same work
compiled by numba: loops over each window's pixels (or each ball's outline points) that make no
temporary arrays (numpy's passes over a frame's windows, each with its temporaries, cost two to
four times as much). The compiled one is used; ``tests/vision/test_kernels.py`` holds the two
to the same answers. With ``CUEBALL_NUMBA=0`` set, or where numba cannot be imported, the numpy
references serve. The compiled code is cached beside this file (or in numba's cache directory)
on first use.

Window coordinates: pixel (y, x) of a window of size S = 2 * half + 1 is at (x - half,
y - half) from the window's base pixel; a ball's centre ``c`` is given from its base pixel,
float32, as the detector keeps it.
"""

from __future__ import annotations

import math
import os

import numpy as np

from tracker.vision.cloth_table import LUT_SHIFT, scores

try:
    import numba
except ImportError:  # pragma: no cover - a platform numba has no build for yet
    numba = None

COMPILED = numba is not None and os.environ.get("CUEBALL_NUMBA", "1") != "0"


def window_pixels_numpy(frame, base, half, gain, x0, y0, factor, table, soft):
    """The full-resolution windows round N balls, cloth-flattened and scored.

    ``frame`` (H, W, 3) uint8 BGR; ``base`` (N, 2) int the windows' base pixels (x, y);
    ``gain`` (h, w) float32 the cloth's flattening gain of the work image, whose pixel (0, 0)
    covers the frame's ``factor`` x ``factor`` pixels from (``x0``, ``y0``); ``table`` the
    detector's ``score_table`` (6 bits a channel, as ``cloth_table.score_table`` lays it
    out); ``soft`` (256,) float32 each score's soft membership. Pixels past the frame's edge
    repeat its nearest edge pixel. Returns ``win`` (N, S, S, 3) uint8 the
    flattened BGR, ``score`` (N, S, S) uint8, ``alpha`` (N, S, S) float32 (0 off the frame) and
    ``valid`` (N, S, S) bool on the frame."""
    h, w = frame.shape[:2]
    off = np.arange(-half, half + 1)
    ix = np.clip(base[:, 0, None] + off[None], 0, w - 1)  # (N, S)
    iy = np.clip(base[:, 1, None] + off[None], 0, h - 1)
    # the gain of the work pixel each full-resolution pixel falls in (it is smooth)
    gh, gw = gain.shape
    at = (((iy - y0) // factor).clip(0, gh - 1) * gw)[:, :, None] + (
        (ix - x0) // factor).clip(0, gw - 1)[:, None, :]
    g = np.take(gain.reshape(-1), at)[..., None]
    size = 2 * half + 1
    raw = np.empty((len(base), size, size, 3), np.uint8)
    for k, (x, y) in enumerate(base - half):
        if 0 <= x and x + size <= w and 0 <= y and y + size <= h:
            raw[k] = frame[y:y + size, x:x + size]
        else:
            raw[k] = frame[iy[k][:, None], ix[k][None]]
    flat = raw * g
    flat += 0.5
    win = np.clip(flat, 0, 255, out=flat).astype(np.uint8)
    score = scores(table, win)
    valid = ((base[:, 0, None] + off[None] >= 0) & (base[:, 0, None] + off[None] < w))
    valid = valid[:, None, :] & ((base[:, 1, None] + off[None] >= 0)
                                 & (base[:, 1, None] + off[None] < h))[:, :, None]
    return win, score, soft[score] * valid, valid


def flat_scores_numpy(bgr, gain, table):
    """A box of the work image ``bgr`` (h, w, 3) uint8 brought to the cloth's one colour by
    its ``gain`` (h, w) float32 (each channel times it, rounded half to even and saturated, as
    OpenCV's ``multiply`` does it in float32), and the not-cloth score of each of its pixels
    by the detector's ``score_table`` ``table`` (none, zeros, for an empty one): (flat (h, w,
    3) uint8, score (h, w) uint8)."""
    import cv2

    flat = cv2.multiply(np.ascontiguousarray(bgr), cv2.merge([np.ascontiguousarray(gain)] * 3),
                        dtype=cv2.CV_8U)
    if not table.size:
        return flat, np.zeros(gain.shape, np.uint8)
    return flat, scores(table, flat)


def _flat_scores_loops(bgr, gain, table):
    """``flat_scores_numpy``, a row at a time (for numba to compile): each row's channels and
    gains laid out one after another, so that the products run on vectors, then each pixel's
    score looked up."""
    h, w = gain.shape
    flat = np.empty((h, w, 3), np.uint8)
    score = np.zeros((h, w), np.uint8)
    zero, top = np.float32(0.0), np.float32(255.0)
    level = np.empty(3 * w, np.float32)
    times = np.empty(3 * w, np.float32)
    scored = table.size > 0
    for y in range(h):
        for x in range(w):
            for ch in range(3):
                level[3 * x + ch] = bgr[y, x, ch]
                times[3 * x + ch] = gain[y, x]
        out = flat[y].reshape(3 * w)
        for i in range(3 * w):
            out[i] = np.uint8(min(max(np.rint(level[i] * times[i]), zero), top))
        if scored:
            for x in range(w):
                idx = ((np.int64(out[3 * x]) >> LUT_SHIFT)
                       | ((np.int64(out[3 * x + 1]) >> LUT_SHIFT) << 8)
                       | ((np.int64(out[3 * x + 2]) >> LUT_SHIFT) << 16))
                score[y, x] = table[idx]
    return flat, score


def _window_pixels_loops(frame, base, half, gain, x0, y0, factor, table, soft):
    """``window_pixels_numpy``, a pixel at a time (for numba to compile)."""
    h, w = frame.shape[0], frame.shape[1]
    gh, gw = gain.shape
    n, size = base.shape[0], 2 * half + 1
    win = np.empty((n, size, size, 3), np.uint8)
    score = np.empty((n, size, size), np.uint8)
    alpha = np.empty((n, size, size), np.float32)
    valid = np.empty((n, size, size), np.bool_)
    for i in range(n):
        for yy in range(size):
            y = base[i, 1] + yy - half
            inside_y = 0 <= y < h
            fy = min(max(y, 0), h - 1)
            gy = min(max((fy - y0) // factor, 0), gh - 1)
            for xx in range(size):
                x = base[i, 0] + xx - half
                fx = min(max(x, 0), w - 1)
                gx = min(max((fx - x0) // factor, 0), gw - 1)
                g = gain[gy, gx]
                idx = 0
                for ch in range(3):
                    v = np.float32(frame[fy, fx, ch]) * g + np.float32(0.5)
                    v = min(max(v, np.float32(0.0)), np.float32(255.0))
                    u = np.uint8(v)
                    win[i, yy, xx, ch] = u
                    idx |= (np.int64(u) >> LUT_SHIFT) << (8 * ch)
                sc = table[idx]
                score[i, yy, xx] = sc
                ok = inside_y and 0 <= x < w
                valid[i, yy, xx] = ok
                alpha[i, yy, xx] = soft[sc] if ok else np.float32(0.0)
    return win, score, alpha, valid


def refine_windows_numpy(alpha, valid, score, win, c, base, r_exp, nbr, dmat, iterations, half,
                         glint, strong_level, solid_level):
    """The centroid of each ball's soft silhouette in its own cell, and what its window shows
    round it, for N windows of size S.

    ``alpha`` (N, S, S) float32 soft not-cloth membership (0 off the frame), ``valid``
    (N, S, S) bool on the frame, ``score`` (N, S, S) uint8 not-cloth score, ``win``
    (N, S, S, 3) uint8 BGR (cloth-flattened), ``c`` (N, 2) float32 starting centres and
    ``base`` (N, 2) int their windows' base pixels, ``r_exp`` (N,) radii px, ``nbr`` (N, K)
    each one's nearest others (nearest first) and ``dmat`` (N, N) their distances (inf on the
    diagonal), ``iterations`` of the centroid, ``glint`` the least B + G + R of a highlight;
    a score of ``strong_level`` or more is strong, of ``solid_level`` or more solid.

    The cell of a ball is its window's pixels nearer to it than to a neighbour within three
    radii, drawn at the first two iterations and kept after. Returns

    - ``c`` (N, 2) float32 the centroids of ``alpha`` within 1.3 radii in the cell;
    - ``cell`` (N, S, S) bool; ``d_own`` (N, S, S) float32 squared distance from ``c``;
    - ``cover`` (N,) the share of the disc's area that ``alpha`` fills;
    - ``spill`` (N,) the share of strong pixels in the ring from 1.4 to 1.8 radii (cell, frame);
    - ``inner`` (N, S, S) bool within 0.7 radii in the cell;
    - ``in_k``, ``strong_k`` (N, 8) the pixels, and strong ones, in each eighth (by angle
      round ``c``) of the ring from 1.3 to 1.8 radii (cell, frame);
    - ``solid`` (N,) the share of solid pixels in the disc in the cell;
    - ``lit`` (N,) bool: a pixel of ``glint`` within 0.6 radii, off every neighbour's disc.
    """
    n = len(c)
    off = np.arange(-half, half + 1, dtype=np.float32)
    gx, gy = off[None, None, :], off[None, :, None]
    rr = r_exp[:, None, None].astype(np.float32)
    # the cells split touching balls; they are redrawn after the first move (from the work
    # image's candidates, about a pixel), then kept (later moves are fractions)
    for it in range(iterations):
        dx, dy = gx - c[:, 0, None, None], gy - c[:, 1, None, None]
        d_own = dx * dx + dy * dy
        if it < 2:
            cell = _cell(c + base, base, gx, gy, d_own, nbr, dmat, r_exp)
        mine = cell & (d_own <= (1.3 * rr) ** 2)
        wgt = alpha * mine
        tot = wgt.sum((1, 2))
        good = tot > 1e-6
        cx = (wgt * gx).sum((1, 2)) / np.where(good, tot, 1)
        cy = (wgt * gy).sum((1, 2)) / np.where(good, tot, 1)
        c = np.where(good[:, None], np.column_stack([cx, cy]), c)
    dx, dy = gx - c[:, 0, None, None], gy - c[:, 1, None, None]
    d_own = dx * dx + dy * dy
    mine = cell & (d_own <= (1.3 * rr) ** 2)
    disc = d_own <= rr ** 2
    cover = (alpha * disc).sum((1, 2)) / (np.pi * r_exp ** 2)
    # not-cloth pixels just outside the disc and not a neighbour's: an object bigger than a
    # ball (an arm, the cue, graphics) rather than a ball (the ring starts clear of the halo
    # that bright balls have in compressed footage)
    ring = cell & (d_own > (1.4 * rr) ** 2) & (d_own <= (1.8 * rr) ** 2) & valid
    strong = score >= strong_level
    spill = (strong * ring).sum((1, 2)) / np.maximum(ring.sum((1, 2)), 1)
    inner = (d_own <= (0.7 * rr) ** 2) & mine  # for the body colour
    # something passing under or over the ball shows on opposite sides of this ring
    ring2 = cell & (d_own > (1.3 * rr) ** 2) & (d_own <= (1.8 * rr) ** 2) & valid
    owner, ry, rx = np.nonzero(ring2)
    sector = _sectors(dy[owner, ry, 0], dx[owner, 0, rx])
    slot = owner * 8 + sector
    in_k = np.bincount(slot, minlength=8 * n).reshape(n, 8)
    strong_k = np.bincount(slot, weights=strong[ring2], minlength=8 * n).reshape(n, 8)
    own = disc & cell
    solid = ((score >= solid_level) & own).sum((1, 2)) / np.maximum(own.sum((1, 2)), 1)
    bright = ((win[..., 0].astype(np.int32) + win[..., 1] + win[..., 2] >= glint)
              & (d_own <= (0.6 * rr) ** 2))
    for k in range(nbr.shape[1]):
        o = (c[nbr[:, k]] + base[nbr[:, k]] - base).astype(np.float32)
        # a neighbour's disc clear of every window (with a pixel to spare) takes nothing
        if (np.hypot(*o.T) > np.sqrt(2) * (half + 1) + r_exp[nbr[:, k]] + 1).all():
            continue
        d_o = (gx - o[:, 0, None, None]) ** 2 + (gy - o[:, 1, None, None]) ** 2
        bright &= d_o > (r_exp[nbr[:, k]] ** 2)[:, None, None]
    lit = bright.any((1, 2))
    return c, cell, d_own, cover, spill, inner, in_k, strong_k, solid, lit


def _cell(c, base, gx, gy, d_own, nbr, dmat, r_exp) -> np.ndarray:
    """(N, S, S) bool: window pixels nearer to their own centre than to any neighbour within
    three radii. ``c`` (N, 2) centres in the frame, ``base`` (N, 2) window base pixels, ``gx``,
    ``gy`` window offsets, ``d_own`` squared distances to the own centre."""
    n = len(c)
    cell = np.ones(d_own.shape, bool)
    for k in range(nbr.shape[1]):
        far = dmat[np.arange(n), nbr[:, k]] > 3 * r_exp
        if far.all():  # and so are the further neighbours
            break
        o = (c[nbr[:, k]] - base).astype(np.float32)
        d_o = (gx - o[:, 0, None, None]) ** 2 + (gy - o[:, 1, None, None]) ** 2
        cell &= (d_own <= d_o) | far[:, None, None]
    return cell


def _sectors(dy: np.ndarray, dx: np.ndarray) -> np.ndarray:
    """The eighth (0..7) of the turn each offset (dx, dy) float32 points in."""
    return ((np.arctan2(dy, dx) + np.pi) / (np.pi / 4)).astype(np.int32) % 8


def ring_sectors(cell: np.ndarray, valid: np.ndarray, d_own: np.ndarray, c: np.ndarray,
                 r: np.float32, half: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One window's pixels in the ring from 1.3 to 1.8 radii ``r`` round ``c`` (2,) (cell
    ``cell``, on the frame ``valid``; ``d_own`` (S, S) squared distances from ``c``): their rows,
    columns and eighths of the turn, as ``refine_windows`` counts them."""
    ring = cell & (d_own > (1.3 * r) ** 2) & (d_own <= (1.8 * r) ** 2) & valid
    ry, rx = np.nonzero(ring)
    off = np.arange(-half, half + 1, dtype=np.float32)
    return ry, rx, _sectors(off[ry] - c[1], off[rx] - c[0])


def _squared_distances(out, cx, cy, half):
    """``out`` (S, S) float32 filled with each window pixel's squared distance from (``cx``,
    ``cy``) float32 (window coordinates from the base pixel)."""
    for y in range(out.shape[0]):
        dy = np.float32(y - half) - cy
        for x in range(out.shape[1]):
            dx = np.float32(x - half) - cx
            out[y, x] = dx * dx + dy * dy


def _refine_windows_loops(alpha, valid, score, win, c0, base, r_exp, nbr, dmat, iterations,
                          half, glint, strong_level, solid_level):
    """``refine_windows_numpy``, a window and a pixel at a time (for numba to compile; sums in
    float64, so the centroids may differ from the reference's float32 sums in the last
    bits)."""
    n, s = alpha.shape[0], alpha.shape[1]
    k_n = nbr.shape[1]
    rr = r_exp.astype(np.float32)
    c = c0.copy()
    cell = np.ones((n, s, s), np.bool_)
    d_own = np.empty((n, s, s), np.float32)
    for it in range(iterations):
        c_new = c.copy()
        for i in range(n):
            _squared_distances(d_own[i], c[i, 0], c[i, 1], half)
            if it < 2:
                cell[i] = True
                for k in range(k_n):
                    j = nbr[i, k]
                    if dmat[i, j] > 3 * r_exp[i]:
                        break  # and so are the further ones
                    ox = np.float32((np.float64(c[j, 0]) + base[j, 0]) - base[i, 0])
                    oy = np.float32((np.float64(c[j, 1]) + base[j, 1]) - base[i, 1])
                    for y in range(s):
                        ody = np.float32(y - half) - oy
                        for x in range(s):
                            odx = np.float32(x - half) - ox
                            if not (d_own[i, y, x] <= odx * odx + ody * ody):
                                cell[i, y, x] = False
            lim = np.float32(1.3) * rr[i]
            lim = lim * lim
            tot = sx = sy = 0.0
            for y in range(s):
                gy = np.float32(y - half)
                for x in range(s):
                    if cell[i, y, x] and d_own[i, y, x] <= lim:
                        w = alpha[i, y, x]
                        tot += w
                        sx += w * np.float32(x - half)
                        sy += w * gy
            if np.float32(tot) > 1e-6:
                c_new[i, 0] = np.float32(sx) / np.float32(tot)
                c_new[i, 1] = np.float32(sy) / np.float32(tot)
        c = c_new
    cover = np.empty(n)
    spill = np.empty(n)
    solid = np.empty(n)
    inner = np.zeros((n, s, s), np.bool_)
    in_k = np.zeros((n, 8), np.int64)
    strong_k = np.zeros((n, 8))
    lit = np.zeros(n, np.bool_)
    pi32 = np.float32(math.pi)
    eighth = np.float32(math.pi / 4)
    for i in range(n):
        cxi, cyi = c[i, 0], c[i, 1]
        r1 = rr[i]
        l13 = np.float32(1.3) * r1
        l13 = l13 * l13
        l14 = np.float32(1.4) * r1
        l14 = l14 * l14
        l18 = np.float32(1.8) * r1
        l18 = l18 * l18
        l07 = np.float32(0.7) * r1
        l07 = l07 * l07
        l06 = np.float32(0.6) * r1
        l06 = l06 * l06
        l10 = r1 * r1
        filled = 0.0
        n_ring = n_spill = n_own = n_solid = 0
        _squared_distances(d_own[i], cxi, cyi, half)
        for y in range(s):
            gy = np.float32(y - half)
            ddy = gy - cyi
            for x in range(s):
                gx = np.float32(x - half)
                ddx = gx - cxi
                d = d_own[i, y, x]
                in_cell = cell[i, y, x]
                strong = score[i, y, x] >= strong_level
                if d <= l10:
                    filled += alpha[i, y, x]
                    if in_cell:
                        n_own += 1
                        if score[i, y, x] >= solid_level:
                            n_solid += 1
                if in_cell and valid[i, y, x] and l13 < d <= l18:
                    if d > l14:
                        n_ring += 1
                        if strong:
                            n_spill += 1
                    sector = np.int32((math.atan2(ddy, ddx) + pi32) / eighth) % 8
                    in_k[i, sector] += 1
                    if strong:
                        strong_k[i, sector] += 1.0
                if in_cell and d <= l07 and d <= l13:
                    inner[i, y, x] = True
                if not lit[i] and d <= l06 and (np.int32(win[i, y, x, 0]) + win[i, y, x, 1]
                                                + win[i, y, x, 2]) >= glint:
                    clear = True
                    for k in range(k_n):
                        j = nbr[i, k]
                        ox = np.float32((np.float64(c[j, 0]) + base[j, 0]) - base[i, 0])
                        oy = np.float32((np.float64(c[j, 1]) + base[j, 1]) - base[i, 1])
                        dxo, dyo = gx - ox, gy - oy
                        if not (dxo * dxo + dyo * dyo > r_exp[j] ** 2):
                            clear = False
                            break
                    lit[i] = clear
        cover[i] = filled / (math.pi * r_exp[i] ** 2)
        spill[i] = n_spill / max(n_ring, 1)
        solid[i] = n_solid / max(n_own, 1)
    return c, cell, d_own, cover, spill, inner, in_k, strong_k, solid, lit


def round_outline_numpy(ends, has, c, r, mads, round_share):
    """The circles through the outline points ``ends`` (K, rays, 2) float64 that ``has``
    (K, rays) round the centres ``c`` (K, 2) of radii ``r`` (K,): points further than ``mads``
    (scaled) median absolute deviations off the first circle are left out of a second. Returns
    their centres (K, 2) and whether each holds (K,) bool: not when under a quarter of the rays
    find a point, or the circle is not round (its points within ``round_share`` ``r`` of it,
    root mean square), not about the ball's size (within a fifth of ``r``) or place (within
    0.15 ``r`` of ``c``)."""
    rays = has.shape[1]
    enough = has.sum(1) >= rays // 4
    centre, radius = circles(ends, has & enough[:, None])
    off = np.hypot(*(ends - centre[:, None]).transpose(2, 0, 1)) - radius[:, None]
    off = np.where(has, off, np.nan)
    dev = np.abs(off - row_percentiles(off, (50,))[0][:, None])
    far = row_percentiles(dev, (50,))[0]
    with np.errstate(invalid="ignore"):
        keep = has & (dev < mads * 1.4826 * far[:, None] + 1e-3)
    again = enough & (keep.sum(1) >= rays // 4) & (keep.sum(1) < has.sum(1))
    if again.any():
        centre[again], radius[again] = circles(ends[again], keep[again])
    with np.errstate(all="ignore"):
        miss = np.hypot(*(ends - centre[:, None]).transpose(2, 0, 1)) - radius[:, None]
        spread = np.sqrt((np.where(has, miss, 0.0) ** 2).sum(1) / np.maximum(has.sum(1), 1))
    ok = (enough & (np.abs(radius / r - 1) <= 0.2)
          & (np.hypot(*(centre - c).T) <= 0.15 * r) & (spread <= round_share * r))
    return centre, ok


def circles(pts: np.ndarray, use: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The least-squares circles through the points ``pts`` (K, M, 2) that ``use`` (K, M):
    their centres (K, 2) and radii (K,); a circle with fewer than three points is left at
    nothing (zeros)."""
    w = use.astype(np.float64)[..., None]
    a = np.concatenate([2 * pts, np.ones(pts.shape[:2] + (1,))], axis=2) * w  # (K, M, 3)
    b = (pts ** 2).sum(2)[..., None] * w
    m = a.transpose(0, 2, 1) @ a
    v = (a.transpose(0, 2, 1) @ b)[..., 0]
    fit = use.sum(1) >= 3
    sol = np.zeros((len(pts), 3))
    if fit.any():
        try:
            sol[fit] = np.linalg.solve(m[fit], v[fit][..., None])[..., 0]
        except np.linalg.LinAlgError:  # points all on one line: no circle of its own
            for i in np.flatnonzero(fit):
                sol[i] = np.linalg.lstsq(m[i], v[i], rcond=None)[0]
    centre = sol[:, :2]
    return centre, np.sqrt(np.maximum(sol[:, 2] + (centre ** 2).sum(1), 0.0))


def row_percentiles(x: np.ndarray, qs: tuple[float, ...]) -> list[np.ndarray]:
    """Percentiles ``qs`` of each row of (N, M) ``x`` over its finite values (linear
    interpolation, as ``np.nanpercentile``); NaN for a row without any."""
    x = np.sort(x, axis=1)  # NaN last
    k = np.isfinite(x).sum(1)
    rows = np.arange(len(x))
    out = []
    for q in qs:
        pos = q / 100 * np.maximum(k - 1, 0)
        i = np.floor(pos).astype(int)
        j = np.minimum(i + 1, np.maximum(k - 1, 0))
        frac = pos - i
        v = x[rows, i] * (1 - frac) + x[rows, j] * frac
        out.append(np.where(k > 0, v, np.nan))
    return out


def _circle_fit(pts, use):
    """The least-squares circle through the points ``pts`` (M, 2) that ``use`` (M,), as
    ``circles`` fits it (its normal equations solved by elimination with partial pivoting, as
    LAPACK's): centre x, y, radius (zeros with fewer than three points), and whether the
    equations were singular (the points all on one line: no answer here)."""
    m = np.zeros((3, 3))
    v = np.zeros(3)
    count = 0
    for j in range(pts.shape[0]):
        if not use[j]:
            continue
        count += 1
        a0, a1 = 2 * pts[j, 0], 2 * pts[j, 1]
        b = pts[j, 0] * pts[j, 0] + pts[j, 1] * pts[j, 1]
        m[0, 0] += a0 * a0
        m[0, 1] += a0 * a1
        m[0, 2] += a0
        m[1, 1] += a1 * a1
        m[1, 2] += a1
        m[2, 2] += 1.0
        v[0] += a0 * b
        v[1] += a1 * b
        v[2] += b
    if count < 3:
        return 0.0, 0.0, 0.0, False
    m[1, 0], m[2, 0], m[2, 1] = m[0, 1], m[0, 2], m[1, 2]
    for col in range(3):
        piv = col
        for row in range(col + 1, 3):
            if abs(m[row, col]) > abs(m[piv, col]):
                piv = row
        if m[piv, col] == 0.0:
            return 0.0, 0.0, 0.0, True
        if piv != col:
            for q in range(3):
                m[col, q], m[piv, q] = m[piv, q], m[col, q]
            v[col], v[piv] = v[piv], v[col]
        for row in range(col + 1, 3):
            f = m[row, col] / m[col, col]
            for q in range(col, 3):
                m[row, q] -= f * m[col, q]
            v[row] -= f * v[col]
    sol = np.zeros(3)
    for row in range(2, -1, -1):
        acc = v[row]
        for q in range(row + 1, 3):
            acc -= m[row, q] * sol[q]
        sol[row] = acc / m[row, row]
    x, y = sol[0], sol[1]
    return x, y, math.sqrt(max(sol[2] + x * x + y * y, 0.0)), False


def _median_finite(x):
    """The median of the finite values of ``x`` (M,) (NaN without any), as
    ``np.nanpercentile(x, 50)``."""
    v = np.sort(x[np.isfinite(x)])
    k = len(v)
    if k == 0:
        return np.nan
    pos = 0.5 * (k - 1)
    i = int(math.floor(pos))
    j = min(i + 1, k - 1)
    frac = pos - i
    return v[i] * (1 - frac) + v[j] * frac


def _round_outline_loops(ends, has, c, r, mads, round_share):
    """``round_outline_numpy``, a ball at a time (for numba to compile); with (K,) bool the
    balls whose points all lay on one line, left for the reference to answer."""
    k_n, rays = has.shape
    centre = np.zeros((k_n, 2))
    ok = np.zeros(k_n, np.bool_)
    line = np.zeros(k_n, np.bool_)
    off = np.empty(rays)
    keep = np.empty(rays, np.bool_)
    for i in range(k_n):
        n_has = 0
        for j in range(rays):
            n_has += has[i, j]
        if n_has < rays // 4:
            continue
        x, y, radius, line[i] = _circle_fit(ends[i], has[i])
        if line[i]:
            continue
        for j in range(rays):
            off[j] = (math.hypot(ends[i, j, 0] - x, ends[i, j, 1] - y) - radius if has[i, j]
                      else np.nan)
        mid = _median_finite(off)
        dev = np.abs(off - mid)
        far = _median_finite(dev)
        n_keep = 0
        for j in range(rays):
            keep[j] = has[i, j] and dev[j] < mads * 1.4826 * far + 1e-3
            n_keep += keep[j]
        if n_keep >= rays // 4 and n_keep < n_has:
            x, y, radius, line[i] = _circle_fit(ends[i], keep)
            if line[i]:
                continue
        total = 0.0
        for j in range(rays):
            if has[i, j]:
                miss = math.hypot(ends[i, j, 0] - x, ends[i, j, 1] - y) - radius
                total += miss * miss
        spread = math.sqrt(total / max(n_has, 1))
        centre[i, 0], centre[i, 1] = x, y
        ok[i] = (abs(radius / r[i] - 1) <= 0.2
                 and math.hypot(x - c[i, 0], y - c[i, 1]) <= 0.15 * r[i]
                 and spread <= round_share * r[i])
    return centre, ok, line


def _round_outline_compiled(ends, has, c, r, mads, round_share):
    """``round_outline_numpy`` compiled, the reference answering for the balls whose points
    all lay on one line."""
    centre, ok, line = _round_outline_kernel(ends, has, c, r, mads, round_share)
    if line.any():
        centre[line], ok[line] = round_outline_numpy(ends[line], has[line], c[line], r[line],
                                                     mads, round_share)
    return centre, ok


def disc_sums_numpy(resid, half_w, y0, y1, x0, x1):
    """(y1 - y0, x1 - x0) int64: the sum of ``resid`` (H, W) int64 under a disc centred on each
    pixel of rows ``y0:y1`` and columns ``x0:x1`` (nothing past the edges); the disc's row
    ``k`` (offset ``k - len(half_w) // 2``) spans ``half_w[k]`` pixels either side of the
    centre (none where negative)."""
    h, w = resid.shape
    ends = np.zeros((h, w + 1), np.int64)
    np.cumsum(resid, axis=1, out=ends[:, 1:])
    half = len(half_w) // 2
    xs = np.arange(x0, x1)
    out = np.zeros((y1 - y0, x1 - x0), np.int64)
    for k, hw in enumerate(half_w):
        dy = k - half
        lo_y, hi_y = max(y0, -dy), min(y1, h - dy)
        if hw < 0 or hi_y <= lo_y:
            continue
        rows = ends[lo_y + dy:hi_y + dy]
        out[lo_y - y0:hi_y - y0] += (rows[:, np.clip(xs + hw + 1, 0, w)]
                                     - rows[:, np.clip(xs - hw, 0, w)])
    return out


def place_discs_numpy(weight, half_w, near_w, max_discs, min_sum, full_sum, prefer):
    """Discs placed one at a time where they cover most of a blob's weight not yet covered.

    ``weight`` (H, W) int64 each pixel's membership of the blob in whole steps (the blob
    padded by a disc's radius); a disc is ``half_w`` (as ``disc_sums_numpy``); ``near_w`` the
    disc round a placed disc's centre where no other may be centred. Each disc goes where the
    sum of the weight under it not yet covered is largest, while that sum is at least
    ``min_sum``; where ``prefer`` (H, W) float64 is given (else an empty array) and that sum
    reaches ``full_sum``, the largest of the sums that reach it times ``prefer``. At most
    ``max_discs``. Returns (K, 2) float64 the discs' centres (x, y), each refined to a
    fraction of a pixel by parabolas through its sum and its neighbours'.

    The sums are of integers: ties, and so the discs placed, are the same in the numpy and
    the compiled code."""
    h, w = weight.shape
    half = len(half_w) // 2
    resid = weight.astype(np.int64)
    raw = disc_sums_numpy(resid, half_w, 0, h, 0, w)
    apart = np.ones((h, w), bool)
    left = int(resid.sum())
    out = []
    for _ in range(max_discs):
        resp = np.where(apart, raw, 0)
        j = int(np.argmax(resp))
        if prefer.size and resp.flat[j] >= full_sum:
            j = int(np.argmax(np.where(resp >= full_sum, resp * prefer, 0.0)))
        py, px = divmod(j, w)
        if resp[py, px] < min_sum:
            break
        out.append((px + _parabola_peak(resp, py, px, 1, 0),
                    py + _parabola_peak(resp, py, px, 0, 1)))
        for k in range(len(half_w)):
            y, x0, x1 = _disc_row(half_w, k, py, px, h, w)
            left -= int(resid[y, x0:x1].sum())
            resid[y, x0:x1] = 0
        for k in range(len(near_w)):
            y, x0, x1 = _disc_row(near_w, k, py, px, h, w)
            apart[y, x0:x1] = False
        if left < min_sum:  # no disc can cover enough of what is left
            break
        # the sums change only within a disc's reach of the cleared one
        uy0, uy1 = max(py - 2 * half, 0), min(py + 2 * half + 1, h)
        ux0, ux1 = max(px - 2 * half, 0), min(px + 2 * half + 1, w)
        raw[uy0:uy1, ux0:ux1] = disc_sums_numpy(resid, half_w, uy0, uy1, ux0, ux1)
    return np.array(out, np.float64).reshape(-1, 2)


def _parabola_peak(resp, py, px, sx, sy):
    """The offset (-0.5..0.5) of the peak of the parabola through ``resp`` at (py, px) and its
    neighbours a step (``sx``, ``sy``) either side; 0 at the edge or where it does not bend
    down."""
    h, w = resp.shape
    if not (0 < px * sx + py * sy < (w * sx + h * sy) - 1):
        return 0.0
    a = float(resp[py - sy, px - sx])
    b = float(resp[py, px])
    c = float(resp[py + sy, px + sx])
    den = a - 2 * b + c
    if den >= 0:
        return 0.0
    return min(max(0.5 * (a - c) / den, -0.5), 0.5)


def _disc_sums_into(out, ends, half_w, y0, y1, x0, x1):
    """``disc_sums_numpy`` written into ``out`` (H, W) over rows ``y0:y1`` and columns
    ``x0:x1``, from ``ends`` (H, W + 1) the running sums of the summed image's rows."""
    h, w = ends.shape[0], ends.shape[1] - 1
    half = half_w.shape[0] // 2
    for y in range(y0, y1):
        for x in range(x0, x1):
            out[y, x] = 0
        for k in range(half_w.shape[0]):
            hw = half_w[k]
            yy = y + k - half
            if hw < 0 or yy < 0 or yy >= h:
                continue
            # the row's run is inside the image from column hw to w - hw - 2
            lo = max(x0, min(hw, x1))
            hi = min(x1, max(w - hw - 1, lo))
            row, run = out[y], ends[yy]
            for x in range(x0, lo):
                row[x] += run[min(x + hw + 1, w)] - run[max(x - hw, 0)]
            seg, ahead, behind = row[lo:hi], run[lo + hw + 1:hi + hw + 1], run[lo - hw:hi - hw]
            for i in range(hi - lo):
                seg[i] += ahead[i] - behind[i]
            for x in range(hi, x1):
                row[x] += run[min(x + hw + 1, w)] - run[max(x - hw, 0)]


def _disc_row(half_w, k, cy, cx, h, w):
    """Row ``k`` of the disc ``half_w`` centred on (``cy``, ``cx``) in an image (h, w): its
    row and first and last-but-one columns, (0, 0, 0) where it has none there."""
    y = cy + k - half_w.shape[0] // 2
    hw = half_w[k]
    if hw < 0 or y < 0 or y >= h:
        return 0, 0, 0
    return y, max(cx - hw, 0), min(cx + hw + 1, w)


def _row_bests(raw, apart, resp, prefer, use_prefer, full_sum, y, best, at, top, top_at):
    """Row ``y`` of the responses ``resp`` (``raw`` where ``apart``, else 0) made again, with
    the row's first largest response (``best``, its column ``at``) and, with a preference,
    its first largest preferred one among those that reach ``full_sum`` (``top``,
    ``top_at``; 0 for the others)."""
    w = raw.shape[1]
    b, j = np.int64(-1), 0
    for x in range(w):
        v = raw[y, x] if apart[y, x] else 0
        resp[y, x] = v
        if v > b:
            b, j = v, x
    best[y], at[y] = b, j
    if use_prefer:
        t, k = -1.0, 0
        for x in range(w):
            v = resp[y, x] * prefer[y, x] if resp[y, x] >= full_sum else 0.0
            if v > t:
                t, k = v, x
        top[y], top_at[y] = t, k


def _place_discs_loops(weight, half_w, near_w, max_discs, min_sum, full_sum, prefer):
    """``place_discs_numpy``, a pixel at a time (for numba to compile). Each row keeps its
    first largest response (and preferred response): a disc placed changes only the rows
    within its reach, and the first largest over the rows, taken in order, is the first in
    the whole blob, as numpy's ``argmax`` finds it."""
    h, w = weight.shape
    half = half_w.shape[0] // 2
    resid = np.empty((h, w), np.int64)
    ends = np.zeros((h, w + 1), np.int64)
    left = 0
    # each row's first and last pixel of the blob
    first = np.full(h, w, np.int64)
    last = np.full(h, -1, np.int64)
    for y in range(h):
        for x in range(w):
            v = weight[y, x]
            resid[y, x] = v
            left += v
            ends[y, x + 1] = ends[y, x] + v
            if v != 0:
                first[y] = min(first[y], x)
                last[y] = x
    # a disc's sum is 0 where it meets none of the blob: each row's sums are made only over the
    # columns whose discs reach a pixel of it (a blob reaching in from outside, an arm, fills a
    # small part of its box)
    raw = np.zeros((h, w), np.int64)
    for y in range(h):
        lo, hi = w, -1
        for k in range(half_w.shape[0]):
            yy = y + k - half
            if half_w[k] >= 0 and 0 <= yy < h and last[yy] >= 0:
                lo = min(lo, first[yy] - half_w[k])
                hi = max(hi, last[yy] + half_w[k])
        lo, hi = max(lo, 0), min(hi + 1, w)
        if hi > lo:
            _disc_sums_into(raw, ends, half_w, y, y + 1, lo, hi)
    use_prefer = prefer.size > 0
    apart = np.ones((h, w), np.bool_)
    resp = np.zeros((h, w), np.int64)
    best = np.empty(h, np.int64)
    at = np.empty(h, np.int64)
    top = np.empty(h, np.float64)
    top_at = np.empty(h, np.int64)
    for y in range(h):
        _row_bests(raw, apart, resp, prefer, use_prefer, full_sum, y, best, at, top, top_at)
    reach = max(2 * half, near_w.shape[0] // 2)
    out = np.empty((max_discs, 2), np.float64)
    n = 0
    for _ in range(max_discs):
        b, j = np.int64(-1), 0
        for y in range(h):
            if best[y] > b:
                b, j = best[y], y * w + at[y]
        if use_prefer and b >= full_sum:
            t, j = -1.0, 0
            for y in range(h):
                if top[y] > t:
                    t, j = top[y], y * w + top_at[y]
        py, px = j // w, j % w
        if resp[py, px] < min_sum:
            break
        out[n, 0] = px + _parabola_peak(resp, py, px, 1, 0)
        out[n, 1] = py + _parabola_peak(resp, py, px, 0, 1)
        n += 1
        for k in range(half_w.shape[0]):
            y, x0, x1 = _disc_row(half_w, k, py, px, h, w)
            if x1 > x0:
                for x in range(x0, x1):
                    left -= resid[y, x]
                    resid[y, x] = 0
                for x in range(w):
                    ends[y, x + 1] = ends[y, x] + resid[y, x]
        for k in range(near_w.shape[0]):
            y, x0, x1 = _disc_row(near_w, k, py, px, h, w)
            for x in range(x0, x1):
                apart[y, x] = False
        if left < min_sum:
            break
        _disc_sums_into(raw, ends, half_w, max(py - 2 * half, 0),
                        min(py + 2 * half + 1, h), max(px - 2 * half, 0),
                        min(px + 2 * half + 1, w))
        for y in range(max(py - reach, 0), min(py + reach + 1, h)):
            _row_bests(raw, apart, resp, prefer, use_prefer, full_sum, y, best, at, top,
                       top_at)
    return out[:n].copy()


def box_round(h, w, px, py, reach):
    """(x0, y0, x1, y1) of an image (h, w) round (``px``, ``py``), ``reach`` px each way (a
    pixel more on the far sides)."""
    k = int(math.ceil(reach))
    return (max(int(px) - k, 0), max(int(py) - k, 0), min(int(px) + k + 2, w),
            min(int(py) + k + 2, h))


def bar_end_numpy(blob, px, py, r):
    """Whether a disc of radius ``r`` at (``px``, ``py``) in ``blob`` (h, w) float32 (soft
    membership, work px) is the end of a bar wider than a ball (a hand at the end of an arm)
    rather than a ball against something. Towards the rest of the blob around it (its pixels
    over half a member 1.3 to 4 radii from the centre, by their mean), 1.5 and 3.5 radii beyond
    the centre, such a bar is cut across in runs 2.6 to 7 radii long, read every half pixel
    each way from the point; beside an arm or a body the cuts run on further (the second, at
    least), a cue is narrower, a ball touching it ends sooner, and a fast ball's blur streak is
    as wide as the ball."""
    h, w = blob.shape
    x0, y0, x1, y1 = box_round(h, w, px, py, 4 * r)
    if x1 <= x0 or y1 <= y0:
        return False
    xs, ys = np.arange(x0, x1), np.arange(y0, y1)
    dist = np.hypot((xs - px)[None], (ys - py)[:, None])
    fill = (blob[y0:y1, x0:x1] > 0.5) & (dist > 1.3 * r) & (dist <= 4.0 * r)
    total = int(fill.sum())
    if total < 1:
        return False
    # towards the middle of the rest: its pixels' mean (whole-pixel sums, exact)
    dx = float(fill.sum(0) @ xs) / total - px
    dy = float(fill.sum(1) @ ys) / total - py
    norm = math.hypot(dx, dy)
    if norm < 1e-6:
        return False
    dx, dy = dx / norm, dy / norm
    steps = np.arange(int(math.ceil(8 * r / 0.5))) * 0.5
    for along in (1.5, 3.5):
        ax, ay = px + along * r * dx, py + along * r * dy
        ends = []
        for way in (-1.0, 1.0):
            qx = np.rint(ax + way * steps * -dy).astype(np.int64)
            qy = np.rint(ay + way * steps * dx).astype(np.int64)
            inside = (qx >= 0) & (qx < w) & (qy >= 0) & (qy < h)
            on = np.zeros(len(steps), bool)
            on[inside] = blob[qy[inside], qx[inside]] > 0.5
            if not on[0]:  # a point out of the blob has no run through it
                return False
            ends.append(steps[-1] if on.all() else steps[np.argmin(on)])
        if not 2.6 * r <= ends[0] + ends[1] <= 7.0 * r:
            return False
    return True


def _bar_end_loops(blob, px, py, r):
    """``bar_end_numpy``, a pixel at a time (for numba to compile)."""
    h, w = blob.shape
    x0, y0, x1, y1 = box_round(h, w, px, py, 4 * r)
    if x1 <= x0 or y1 <= y0:
        return False
    total = 0
    sx = 0
    sy = 0
    for y in range(y0, y1):
        for x in range(x0, x1):
            if blob[y, x] > 0.5:
                d = math.hypot(x - px, y - py)
                if d > 1.3 * r and d <= 4.0 * r:
                    total += 1
                    sx += x
                    sy += y
    if total < 1:
        return False
    dx = float(sx) / total - px
    dy = float(sy) / total - py
    norm = math.hypot(dx, dy)
    if norm < 1e-6:
        return False
    dx, dy = dx / norm, dy / norm
    n = int(math.ceil(8 * r / 0.5))
    for along in (1.5, 3.5):
        ax, ay = px + along * r * dx, py + along * r * dy
        reach = 0.0
        for way in (-1.0, 1.0):
            end = (n - 1) * 0.5
            for i in range(n):
                step = i * 0.5
                qx = int(np.rint(ax + way * step * -dy))
                qy = int(np.rint(ay + way * step * dx))
                on = 0 <= qx < w and 0 <= qy < h and blob[qy, qx] > 0.5
                if not on:
                    if i == 0:
                        return False
                    end = step
                    break
            reach += end
        if not 2.6 * r <= reach <= 7.0 * r:
            return False
    return True


def cloth_scores_numpy(v, chroma, chroma_sigma, level, noise_sigma, chroma_k, bright, dark,
                       shadow, fg):
    """(n**3,) uint8 not-cloth score of every quantised BGR, blue slowest: ``v`` (n,) float32
    the level each quantised channel stands for, ``chroma`` (3,) float32 the cloth's
    chromaticity, ``fg`` the score of a pixel just not cloth; the rest as
    ``tracker.vision.detect.ClothModel.lut`` gives them (Python floats). Every step in float32."""
    b, g, r = np.meshgrid(v, v, v, indexing="ij")
    s = b + g + r + 1e-3
    c = chroma
    d = np.sqrt((b / s - c[0]) ** 2 + (g / s - c[1]) ** 2 + (r / s - c[2]) ** 2)
    sig = np.sqrt(chroma_sigma ** 2 + (noise_sigma / s) ** 2)
    score = d / (chroma_k * sig)
    rho = s / level
    # darkness adds to a chromaticity off the cloth's (a black ball reflects some cloth
    # green; a green ball is darker and a little off in hue) but alone, down to ``dark``,
    # it is a shadow
    darkness = np.maximum((shadow - rho) / (shadow - dark), 0)
    score = np.maximum(np.sqrt(score ** 2 + (darkness * np.minimum(score, 1)) ** 2), darkness)
    score = np.maximum(score, (rho - 1) / (bright - 1))
    return np.clip(score * fg, 0, 255).astype(np.uint8).ravel()


def _cloth_scores_loops(v, chroma, chroma_sigma, level, noise_sigma, chroma_k, bright, dark,
                        shadow, fg):
    """``cloth_scores_numpy``, an entry at a time (for numba to compile). Each constant is
    taken to float32 as numpy takes a Python float beside a float32 array, and each step's
    result is rounded to float32 as numpy's is."""
    f = np.float32
    n = v.shape[0]
    c0, c1, c2 = chroma[0], chroma[1], chroma[2]
    eps, sig2, noise = f(1e-3), f(chroma_sigma ** 2), f(noise_sigma)
    k, lev, sh, span = f(chroma_k), f(level), f(shadow), f(shadow - dark)
    one, over, top, fg = f(1.0), f(bright - 1), f(255.0), f(fg)
    out = np.empty(n * n * n, np.uint8)
    for i in range(n):
        for j in range(n):
            bg = f(v[i] + v[j])
            for m in range(n):
                s = f(f(bg + v[m]) + eps)
                db = f(f(v[i] / s) - c0)
                dg = f(f(v[j] / s) - c1)
                dr = f(f(v[m] / s) - c2)
                d = f(np.sqrt(f(f(f(db * db) + f(dg * dg)) + f(dr * dr))))
                q = f(noise / s)
                sig = f(np.sqrt(f(sig2 + f(q * q))))
                score = f(d / f(k * sig))
                rho = f(s / lev)
                darkness = max(f(f(sh - rho) / span), f(0.0))
                t = f(darkness * min(score, one))
                score = max(f(np.sqrt(f(f(score * score) + f(t * t)))), darkness)
                score = max(score, f(f(rho - one) / over))
                out[(i * n + j) * n + m] = np.uint8(min(max(f(score * fg), f(0.0)), top))
    return out


def _reach_numpy(blob, p, u, steps):
    """How far (px) ``blob`` (h, w) float32 reaches from ``p`` (x, y) along the unit direction
    ``u``: its pixels over half a member at the nearest pixels of the points ``steps`` (M,)
    px along it, half a pixel each."""
    h, w = blob.shape
    q = np.rint(p + steps[:, None] * u).astype(int)
    inside = (q[:, 0] >= 0) & (q[:, 0] < w) & (q[:, 1] >= 0) & (q[:, 1] < h)
    return 0.5 * float((blob[q[inside, 1], q[inside, 0]] > 0.5).sum())


def _neck_offsets(r):
    """The offsets (px) across a neck and along a reach for discs of radius ``r``: 7 from -0.6
    to 0.6 radii, and every half pixel from a half to 1.5 radii."""
    return np.linspace(-0.6, 0.6, 7) * r, np.arange(0.5, 1.5 * r + 0.25, 0.5)


def necks_numpy(blob, p, end, r, neck):
    """Which of the discs of radius ``r`` at ``p`` (N, 2) (x, y) in ``blob`` (h, w) float32
    (soft membership) are a bar's, not balls': two discs 1.5 to 2.8 radii apart whose neck is
    full across on both sides of the line between them (over 0.6 of a member on average) and,
    each way across, reaches at least ``neck`` times as far as the nearer of theirs does (two
    touching balls narrow to a point between them, a bar keeps its width). A disc already
    judged not a ball (``end`` (N,) bool: the rail or the arm beside a ball, joined to it by the
    shadow between) says nothing of its neighbours. Returns (N,) bool."""
    h, w = blob.shape
    bar = np.zeros(len(p), bool)
    s, steps = _neck_offsets(r)
    for i in range(len(p)):
        for j in range(i + 1, len(p)):
            if end[i] or end[j]:
                continue
            d = p[j] - p[i]
            dist = float(np.hypot(*d))
            if not 1.5 * r <= dist <= 2.8 * r:
                continue
            mid = (p[i] + p[j]) / 2
            perp = np.array([-d[1], d[0]]) / dist
            q = np.rint(mid + s[:, None] * perp).astype(int)
            q[:, 0] = q[:, 0].clip(0, w - 1)
            q[:, 1] = q[:, 1].clip(0, h - 1)
            # full across on both sides of the line between them (a cue tip or a hand against
            # two touching balls fills one side of their neck only), and on each side as wide
            # there as across the discs (the halos and shadows of two balls a little nearer
            # than a diameter in the work image fill the middle of their neck, a cue tip on it
            # one side)
            across = blob[q[:, 1], q[:, 0]]
            if (across[s < 0].mean() > 0.6 and across[s > 0].mean() > 0.6
                    and all(_reach_numpy(blob, mid, u, steps)
                            >= neck * min(_reach_numpy(blob, p[i], u, steps),
                                          _reach_numpy(blob, p[j], u, steps))
                            for u in (perp, -perp))):
                bar[i] = bar[j] = True
    return bar


def _reach_loops(blob, px, py, ux, uy, steps):
    """``_reach_numpy`` of the point (``px``, ``py``) and direction (``ux``, ``uy``)."""
    h, w = blob.shape
    count = 0
    for k in range(steps.shape[0]):
        qx = int(np.rint(px + steps[k] * ux))
        qy = int(np.rint(py + steps[k] * uy))
        if 0 <= qx < w and 0 <= qy < h and blob[qy, qx] > 0.5:
            count += 1
    return 0.5 * count


def _side_mean(blob, mx, my, ux, uy, s, sign, w, h):
    """The float32 mean of ``blob`` at the nearest pixels of the points ``s`` px from (``mx``,
    ``my``) along (``ux``, ``uy``) on one side (``s`` * ``sign`` > 0), summed left to right in
    float32 as numpy sums a short float32 array."""
    total = np.float32(0.0)
    n = 0
    for k in range(s.shape[0]):
        if s[k] * sign > 0:
            qx = min(max(int(np.rint(mx + s[k] * ux)), 0), w - 1)
            qy = min(max(int(np.rint(my + s[k] * uy)), 0), h - 1)
            total = np.float32(total + blob[qy, qx])
            n += 1
    return np.float32(total / np.float32(n))


def _necks_loops(blob, p, end, r, neck, s, steps):
    """``necks_numpy``, a pair at a time (for numba to compile), ``s`` and ``steps`` its
    ``_neck_offsets``."""
    h, w = blob.shape
    n = p.shape[0]
    bar = np.zeros(n, np.bool_)
    full = np.float32(0.6)  # a float32 mean is compared in float32
    for i in range(n):
        for j in range(i + 1, n):
            if end[i] or end[j]:
                continue
            dx, dy = p[j, 0] - p[i, 0], p[j, 1] - p[i, 1]
            dist = np.hypot(dx, dy)
            if not 1.5 * r <= dist <= 2.8 * r:
                continue
            mx, my = (p[i, 0] + p[j, 0]) / 2, (p[i, 1] + p[j, 1]) / 2
            ux, uy = -dy / dist, dx / dist
            if not (_side_mean(blob, mx, my, ux, uy, s, -1.0, w, h) > full
                    and _side_mean(blob, mx, my, ux, uy, s, 1.0, w, h) > full):
                continue
            narrow = False
            for way in (1.0, -1.0):
                vx, vy = way * ux, way * uy
                if (_reach_loops(blob, mx, my, vx, vy, steps)
                        < neck * min(_reach_loops(blob, p[i, 0], p[i, 1], vx, vy, steps),
                                     _reach_loops(blob, p[j, 0], p[j, 1], vx, vy, steps))):
                    narrow = True
                    break
            if not narrow:
                bar[i] = True
                bar[j] = True
    return bar


def _necks_compiled(blob, p, end, r, neck):
    """``necks_numpy`` compiled."""
    s, steps = _neck_offsets(r)
    return _necks_kernel(blob, p, end, r, neck, s, steps)


def colour_alike_numpy(lab, blob, px, py, r, alike_lab):
    """The share of the blob's pixels around a disc of radius ``r`` at (``px``, ``py``), 1.3 to
    2.5 radii from its centre, whose colour is within ``alike_lab`` of the median colour of the
    disc's middle (within 0.6 radii) and which are joined to that middle by pixels of that
    colour (of the disc or the blob, within 2.5 radii): ``blob`` (h, w) float32 soft
    membership, ``lab`` (h, w, 3) float32 its image's Lab, both work px; 1 when there are too
    few pixels to tell."""
    import cv2  # the reference only: the compiled one follows the pixels joined itself

    x0, y0, x1, y1 = box_round(*blob.shape, px, py, 2.5 * r)
    dist = np.hypot((np.arange(x0, x1) - px)[None], (np.arange(y0, y1) - py)[:, None])
    win, on = lab[y0:y1, x0:x1], blob[y0:y1, x0:x1] > 0.5
    middle = dist <= 0.6 * r
    around = on & (dist > 1.3 * r) & (dist <= 2.5 * r)
    n_around = int(np.count_nonzero(around))
    if np.count_nonzero(middle) < 5 or n_around < 5:
        return 1.0
    s = np.sort(win[middle], axis=0)
    m = len(s) // 2
    median = s[m] if len(s) % 2 else (s[m - 1] + s[m]) / 2
    alike = np.linalg.norm(win - median, axis=2) < alike_lab
    alike &= (on | (dist <= r)) & (dist <= 2.5 * r)
    # a knuckle's colour runs on from it into the hand; the like colour of something beyond
    # another (the shadow under the cue by a ball) is not the disc's
    _, part = cv2.connectedComponents(alike.astype(np.uint8), connectivity=8)
    mine = np.zeros(int(part.max()) + 1, bool)
    mine[part[alike & middle]] = True
    mine[0] = False
    joined = mine[part]
    return float(np.count_nonzero(joined & around)) / n_around


def _colour_alike_loops(lab, blob, px, py, r, alike_lab):
    """``colour_alike_numpy``, a pixel at a time (for numba to compile): the pixels joined to
    the middle found by filling out from it, each step in numpy's float32."""
    x0, y0, x1, y1 = box_round(blob.shape[0], blob.shape[1], px, py, 2.5 * r)
    h, w = y1 - y0, x1 - x0
    dist = np.empty((h, w))
    n_middle, n_around = 0, 0
    for y in range(h):
        for x in range(w):
            d = np.hypot(x + x0 - px, y + y0 - py)
            dist[y, x] = d
            if d <= 0.6 * r:
                n_middle += 1
            elif blob[y + y0, x + x0] > 0.5 and 1.3 * r < d <= 2.5 * r:
                n_around += 1
    if n_middle < 5 or n_around < 5:
        return 1.0
    values = np.empty((3, n_middle), np.float32)
    k = 0
    for y in range(h):
        for x in range(w):
            if dist[y, x] <= 0.6 * r:
                for c in range(3):
                    values[c, k] = lab[y + y0, x + x0, c]
                k += 1
    median = np.empty(3, np.float32)
    m = n_middle // 2
    for c in range(3):
        v = np.sort(values[c])
        median[c] = v[m] if n_middle % 2 else np.float32(np.float32(v[m - 1] + v[m]) / 2)
    limit = np.float32(alike_lab)
    alike = np.zeros((h, w), np.bool_)
    stack = np.empty(h * w, np.int64)
    top = 0
    for y in range(h):
        for x in range(w):
            d = dist[y, x]
            if d > 2.5 * r or not (blob[y + y0, x + x0] > 0.5 or d <= r):
                continue
            total = np.float32(0.0)
            for c in range(3):
                e = np.float32(lab[y + y0, x + x0, c] - median[c])
                total = np.float32(total + np.float32(e * e))
            alike[y, x] = np.sqrt(total) < limit
    joined = np.zeros((h, w), np.bool_)
    for y in range(h):
        for x in range(w):
            if alike[y, x] and dist[y, x] <= 0.6 * r:
                joined[y, x] = True
                stack[top] = y * w + x
                top += 1
    while top:
        top -= 1
        y, x = stack[top] // w, stack[top] % w
        for yy in range(max(y - 1, 0), min(y + 2, h)):
            for xx in range(max(x - 1, 0), min(x + 2, w)):
                if alike[yy, xx] and not joined[yy, xx]:
                    joined[yy, xx] = True
                    stack[top] = yy * w + xx
                    top += 1
    count = 0
    for y in range(h):
        for x in range(w):
            d = dist[y, x]
            if joined[y, x] and blob[y + y0, x + x0] > 0.5 and 1.3 * r < d <= 2.5 * r:
                count += 1
    return count / n_around


# unit vectors every 10 degrees round a circle, (36, 2) (cos, sin)
ARC_10 = np.c_[np.cos(np.deg2rad(np.arange(0, 360, 10))),
               np.sin(np.deg2rad(np.arange(0, 360, 10)))]
ARC_10.setflags(write=False)


def free_arc_numpy(blob, px, py, r):
    """Degrees of the longest arc of the ring just outside a disc of radius ``r`` at (``px``,
    ``py``) in ``blob`` (h, w) float32 (soft membership) that is empty, read at the nearest
    pixels every 10 degrees at 1.35 radii (nothing off the blob): at least half of it for a
    ball against an arm or a body, much less for a disc inside something bigger and round (a
    hand)."""
    h, w = blob.shape
    q = np.rint(np.array([px, py]) + 1.35 * r * ARC_10).astype(int)
    inside = (q[:, 0] >= 0) & (q[:, 0] < w) & (q[:, 1] >= 0) & (q[:, 1] < h)
    at = np.zeros(len(q), blob.dtype)
    at[inside] = blob[q[inside, 1], q[inside, 0]]
    empty = at <= 0.5
    if empty.all():
        return 360.0
    # the longest run between two full points, round the circle once more
    full = np.flatnonzero(~np.concatenate([empty, empty]))
    longest = int(np.diff(np.concatenate([[-1], full, [2 * len(empty)]])).max()) - 1
    return 10.0 * min(longest, len(empty))


def _free_arc_loops(blob, px, py, r, arc):
    """``free_arc_numpy`` with the directions ``arc`` (for numba to compile)."""
    h, w = blob.shape
    n = arc.shape[0]
    empty = np.empty(n, np.bool_)
    any_full = False
    for k in range(n):
        qx = int(np.rint(px + 1.35 * r * arc[k, 0]))
        qy = int(np.rint(py + 1.35 * r * arc[k, 1]))
        empty[k] = not (0 <= qx < w and 0 <= qy < h and blob[qy, qx] > 0.5)
        any_full |= not empty[k]
    if not any_full:
        return 360.0
    longest, last = 0, -1
    for k in range(2 * n):
        if not empty[k % n]:
            longest = max(longest, k - last - 1)
            last = k
    longest = max(longest, 2 * n - last - 1)
    return 10.0 * min(longest, n)


def _free_arc_compiled(blob, px, py, r):
    """``free_arc_numpy`` compiled."""
    return _free_arc_kernel(blob, px, py, r, ARC_10)


def body_means_numpy(lab, inner):
    """(N, 3) float64 the mean Lab of each ball's ``inner`` (N, M) bool pixels of ``lab`` (N,
    M, 3) float32 between the 10th and 75th percentile of their lightness (all of them when
    fewer than two are), NaN for a ball without any: its body colour, the lamps' highlight and
    the shaded rim left out."""
    lo, hi = row_percentiles(np.where(inner, lab[..., 0], np.nan), (10, 75))
    sel = inner & (lab[..., 0] >= lo[:, None]) & (lab[..., 0] <= hi[:, None])
    sel = np.where(sel.sum(1, keepdims=True) >= 2, sel, inner)
    cnt = sel.sum(1)
    out = (lab * sel[..., None]).sum(1) / np.maximum(cnt, 1)[:, None]
    out[cnt == 0] = np.nan
    return out.astype(np.float64)


def _percentile_sorted(v, k, q):
    """``row_percentiles``' percentile ``q`` of the first ``k`` of the sorted values ``v``."""
    pos = q / 100 * max(k - 1, 0)
    i = int(np.floor(pos))
    j = min(i + 1, max(k - 1, 0))
    frac = pos - i
    return v[i] * (1 - frac) + v[j] * frac


def _body_means_loops(lab, inner):
    """``body_means_numpy``, a ball at a time (for numba to compile): the sums in float32, a
    pixel at a time in order, as numpy sums over the pixels."""
    n, m = inner.shape
    out = np.full((n, 3), np.nan)
    light = np.empty(m, np.float32)
    sel = np.empty(m, np.bool_)
    for b in range(n):
        k = 0
        for j in range(m):
            if inner[b, j]:
                light[k] = lab[b, j, 0]
                k += 1
        if k == 0:
            continue
        v = np.sort(light[:k])
        lo = _percentile_sorted(v, k, 10.0)
        hi = _percentile_sorted(v, k, 75.0)
        count = 0
        for j in range(m):
            sel[j] = inner[b, j] and lo <= lab[b, j, 0] <= hi
            count += sel[j]
        if count < 2:
            count = k
            for j in range(m):
                sel[j] = inner[b, j]
        for c in range(3):
            total = np.float32(0.0)
            for j in range(m):
                if sel[j]:
                    total = np.float32(total + lab[b, j, c])
            out[b, c] = np.float64(total) / count
    return out


def grid_sums_numpy(image, ys, xs):
    """(K,) float32 B + G + R of ``image`` (h, w, 3) uint8 at the pixels (``ys``, ``xs``)
    (K,)."""
    return image[ys, xs, 0].astype(np.float32) + image[ys, xs, 1] + image[ys, xs, 2]


def median_ratio_numpy(now, then, floor):
    """The median of ``now`` over ``then`` (K,) float32 where ``then`` is over ``floor``, as a
    float (1.0 where it is nowhere)."""
    lit = then > floor
    return float(np.median(now[lit] / then[lit])) if lit.any() else 1.0


def _grid_sums_loops(image, ys, xs):
    out = np.empty(len(ys), np.float32)
    for k in range(len(ys)):
        y, x = ys[k], xs[k]
        out[k] = np.float32(image[y, x, 0]) + np.float32(image[y, x, 1]) + np.float32(
            image[y, x, 2])
    return out


def _median_ratio_loops(now, then, floor):
    ratio = np.empty(len(now), np.float32)
    n = 0
    for k in range(len(now)):
        if then[k] > floor:
            ratio[n] = now[k] / then[k]
            n += 1
    if n == 0:
        return 1.0
    # the median of float32 values as numpy has it: the middle one, or the mean of the two
    # middle ones (their float32 sum halved, which is exact)
    return float(np.median(ratio[:n]))


def ray_maps_numpy(c, u, s, size):
    """Where K windows of ``size`` x ``size`` px, stacked one under another with a row of
    nothing between, are read along rays out from their centres ``c`` (K, 2) (window px) in
    the directions ``u`` (R, 2) at the radii ``s`` (K, S): ``cv2.remap``'s maps (K, R, S)
    float32 x and y, a point off its window sent to y = -1 (nothing)."""
    mx = (c[:, 0, None, None] + u[None, :, 0:1] * s[:, None]).astype(np.float32)
    my = (c[:, 1, None, None] + u[None, :, 1:2] * s[:, None]).astype(np.float32)
    my = np.where((my >= -0.5) & (my <= size - 0.5), my, -1.0)
    my += (np.arange(len(c), dtype=np.float32) * (size + 1))[:, None, None]
    return mx, my


def _ray_maps_loops(c, u, s, size):
    n, rays, steps = len(c), len(u), s.shape[1]
    mx = np.empty((n, rays, steps), np.float32)
    my = np.empty((n, rays, steps), np.float32)
    for k in range(n):
        below = np.float32(k * (size + 1))
        for i in range(rays):
            for j in range(steps):
                mx[k, i, j] = c[k, 0] + u[i, 0] * s[k, j]
                y = np.float32(c[k, 1] + u[i, 1] * s[k, j])
                if not (y >= -0.5 and y <= size - 0.5):
                    y = np.float32(-1.0)
                my[k, i, j] = y + below
    return mx, my


def outline_points_numpy(prof, s):
    """Along each of K balls' R rays, read at the radii ``s`` (K, S) as ``prof`` (K, R, S)
    float32 (a soft silhouette), the radius where it first falls below a half, between the
    two steps either side (K, R) float32, and whether it falls (K, R) bool."""
    fall = (prof[..., :-1] >= 0.5) & (prof[..., 1:] < 0.5)
    has = fall.any(2)
    k = np.argmax(fall, axis=2)[..., None]
    at, beyond = (np.take_along_axis(prof, k, 2)[..., 0],
                  np.take_along_axis(prof, k + 1, 2)[..., 0])
    frac = (at - 0.5) / np.maximum(at - beyond, 1e-6)
    rho = np.take_along_axis(s, k[..., 0], 1) + frac * (s[:, 1] - s[:, 0])[:, None]
    return rho, has


def _outline_points_loops(prof, s):
    n, rays, steps = prof.shape
    half, tiny = np.float32(0.5), np.float32(1e-6)
    rho = np.empty((n, rays), np.float32)
    has = np.zeros((n, rays), np.bool_)
    for k in range(n):
        step = s[k, 1] - s[k, 0]
        for i in range(rays):
            at = 0
            for j in range(steps - 1):
                if prof[k, i, j] >= half and prof[k, i, j + 1] < half:
                    at, has[k, i] = j, True
                    break
            d = prof[k, i, at] - prof[k, i, at + 1]
            if d < tiny:
                d = tiny
            rho[k, i] = s[k, at] + (prof[k, i, at] - half) / d * step
    return rho, has


def close_pairs_numpy(xy_px, r_px, xy_mm, lab, cloth_lab, r_mm):
    """(N, N) bool: the detections that are one ball, by ``tracker.vision.detect._dedupe``'s tests
    (symmetric, the diagonal False). ``xy_px`` (N, 2) image px, ``r_px`` (N,) their apparent
    radii, ``xy_mm`` (N, 2) table mm, ``lab`` (N, 3) body colours (OpenCV Lab; NaN where not
    known), ``cloth_lab`` (3,), ``r_mm`` the ball radius; ``xy_mm``, ``lab`` and ``cloth_lab``
    empty where not known."""
    n = len(xy_px)
    px = np.hypot(*(xy_px[:, None] - xy_px[None]).transpose(2, 0, 1))
    r = np.minimum(r_px[:, None], r_px[None])
    seen = px < 2.2 * r
    has_mm = len(xy_mm) == n
    if has_mm:
        mm = np.hypot(*(xy_mm[:, None] - xy_mm[None]).transpose(2, 0, 1))
        close = (mm < 1.6 * r_mm) & seen
    else:
        close = px < 0.6 * r
    if len(lab) == n:  # hue and chroma (a*, b*: a streak's ends differ in lightness)
        ab = np.nan_to_num(lab[:, 1:], nan=1e4)
        close &= np.sqrt(((ab[:, None] - ab[None]) ** 2).sum(2)) < 35
        if len(cloth_lab) and has_mm:
            tail = streak_tail_numpy(np.nan_to_num(lab, nan=-1e4), cloth_lab)
            close |= (tail | tail.T) & (mm < 4 * r_mm) & seen
    if has_mm:
        # whatever their colours, two discs nearer on the table than 1.6 radii even were
        # their centres 3 px further apart in the image (a steep view's far end is several
        # millimetres a pixel) are one ball: the head and the tail of a dark ball's blur
        with np.errstate(divide="ignore", invalid="ignore"):
            slack = 3.0 * mm / np.maximum(px, 1e-6)
        close |= (mm + slack < 1.6 * r_mm) & seen
    np.fill_diagonal(close, False)
    return close


def streak_tail_numpy(lab, cloth_lab, mix_error=12.0):
    """(N, N) bool: detection j's colour is detection i's, brighter than the cloth by a
    quarter, mixed with the cloth's (a share of 5 to 80 %, within ``mix_error`` in Lab), as
    along the blur streak of a fast bright ball. ``lab`` (N, 3), ``cloth_lab`` (3,)."""
    ac = cloth_lab[None] - lab  # (N, 3) from each head to the cloth
    rel = lab[None] - lab[:, None]  # (N, N, 3) from head i to detection j
    dot = rel[..., 0] * ac[:, None, 0] + rel[..., 1] * ac[:, None, 1] + rel[..., 2] * ac[:, None, 2]
    share = dot / np.maximum((ac * ac).sum(1), 1e-9)[:, None]
    miss = rel - share[..., None] * ac[:, None]
    off = np.sqrt((miss * miss).sum(2))
    bright = lab[:, 0] >= 1.25 * cloth_lab[0]
    out = bright[:, None] & (share > 0.05) & (share < 0.8) & (off < mix_error)
    np.fill_diagonal(out, False)
    return out


def _finite_or(v, nan):
    """``v`` with NaN as ``nan`` and the infinities as the largest finite floats, as
    ``np.nan_to_num`` has them."""
    big = 1.7976931348623157e308
    if np.isnan(v):
        return nan
    return big if v > big else (-big if v < -big else v)


def _streak_tails(lab, cloth_lab):
    n = len(lab)
    lb = np.empty((n, 3))
    for i in range(n):
        for k in range(3):
            lb[i, k] = _finite_or(lab[i, k], -1e4)
    tail = np.zeros((n, n), np.bool_)
    for i in range(n):
        if not lb[i, 0] >= 1.25 * cloth_lab[0]:
            continue
        a0, a1, a2 = cloth_lab[0] - lb[i, 0], cloth_lab[1] - lb[i, 1], cloth_lab[2] - lb[i, 2]
        norm2 = max(a0 * a0 + a1 * a1 + a2 * a2, 1e-9)
        for j in range(n):
            if i == j:
                continue
            r0, r1, r2 = lb[j, 0] - lb[i, 0], lb[j, 1] - lb[i, 1], lb[j, 2] - lb[i, 2]
            share = (r0 * a0 + r1 * a1 + r2 * a2) / norm2
            m0, m1, m2 = r0 - share * a0, r1 - share * a1, r2 - share * a2
            tail[i, j] = (share > 0.05 and share < 0.8
                          and math.sqrt(m0 * m0 + m1 * m1 + m2 * m2) < 12.0)
    return tail


def _close_pairs_loops(xy_px, r_px, xy_mm, lab, cloth_lab, r_mm):
    n = len(xy_px)
    has_mm, has_lab = len(xy_mm) == n, len(lab) == n
    ab = np.empty((n, 2))
    if has_lab:
        for i in range(n):
            ab[i, 0], ab[i, 1] = _finite_or(lab[i, 1], 1e4), _finite_or(lab[i, 2], 1e4)
    tails = has_lab and has_mm and len(cloth_lab) > 0
    tail = _streak_tails(lab, cloth_lab) if tails else np.zeros((n, n), np.bool_)
    close = np.zeros((n, n), np.bool_)
    for i in range(n):
        for j in range(n):
            if i == j:
                continue
            px = math.hypot(xy_px[i, 0] - xy_px[j, 0], xy_px[i, 1] - xy_px[j, 1])
            r = min(r_px[i], r_px[j])
            if not has_mm:
                one = px < 0.6 * r
            elif not px < 2.2 * r:
                continue
            else:
                mm = math.hypot(xy_mm[i, 0] - xy_mm[j, 0], xy_mm[i, 1] - xy_mm[j, 1])
                one = mm < 1.6 * r_mm
            if one and has_lab:
                d0, d1 = ab[i, 0] - ab[j, 0], ab[i, 1] - ab[j, 1]
                one = math.sqrt(d0 * d0 + d1 * d1) < 35
            if has_mm and not one:
                one = (tail[i, j] or tail[j, i]) and mm < 4 * r_mm
                if not one and not np.isnan(mm):  # 3 px of slack in the image
                    one = mm + 3.0 * mm / max(px, 1e-6) < 1.6 * r_mm
            close[i, j] = one
    return close


def _compiled(func, **options):
    """``func`` compiled by numba (on its first call, with numba's ``options``), the compiled
    code kept on disk where there is somewhere to keep it."""
    try:
        return numba.njit(cache=True, nogil=True, **options)(func)
    except RuntimeError:  # nowhere writable to cache it: compiled again in each process
        return numba.njit(nogil=True, **options)(func)


if COMPILED:
    window_pixels = _compiled(_window_pixels_loops)
    flat_scores = _compiled(_flat_scores_loops)
    _squared_distances = _compiled(_squared_distances)
    refine_windows = _compiled(_refine_windows_loops)
    _circle_fit = _compiled(_circle_fit)
    _median_finite = _compiled(_median_finite)
    _round_outline_kernel = _compiled(_round_outline_loops)
    round_outline = _round_outline_compiled
    _parabola_peak = _compiled(_parabola_peak)
    _disc_sums_into = _compiled(_disc_sums_into)
    _disc_row = _compiled(_disc_row)
    _row_bests = _compiled(_row_bests)
    place_discs = _compiled(_place_discs_loops)
    box_round = _compiled(box_round)
    bar_end = _compiled(_bar_end_loops)
    _reach_loops = _compiled(_reach_loops)
    _side_mean = _compiled(_side_mean)
    _necks_kernel = _compiled(_necks_loops)
    necks = _necks_compiled
    colour_alike = _compiled(_colour_alike_loops)
    _free_arc_kernel = _compiled(_free_arc_loops)
    free_arc = _free_arc_compiled
    _percentile_sorted = _compiled(_percentile_sorted)
    body_means = _compiled(_body_means_loops)
    _finite_or = _compiled(_finite_or)
    _streak_tails = _compiled(_streak_tails)
    close_pairs = _compiled(_close_pairs_loops)
    ray_maps = _compiled(_ray_maps_loops)
    grid_sums = _compiled(_grid_sums_loops)
    median_ratio = _compiled(_median_ratio_loops)
    outline_points = _compiled(_outline_points_loops)
    # no division is by zero (a sum of levels and a small constant): numpy's model of errors
    # lets the loop run on vectors
    cloth_scores = _compiled(_cloth_scores_loops, error_model="numpy")
else:
    window_pixels = window_pixels_numpy
    flat_scores = flat_scores_numpy
    refine_windows = refine_windows_numpy
    round_outline = round_outline_numpy
    place_discs = place_discs_numpy
    bar_end = bar_end_numpy
    necks = necks_numpy
    colour_alike = colour_alike_numpy
    free_arc = free_arc_numpy
    body_means = body_means_numpy
    close_pairs = close_pairs_numpy
    ray_maps = ray_maps_numpy
    grid_sums = grid_sums_numpy
    median_ratio = median_ratio_numpy
    outline_points = outline_points_numpy
    cloth_scores = cloth_scores_numpy
