"""What the detector saw when it last looked at the table, and how the light changed since.

``LastLook`` keeps the work image as last looked at and what the change search, the lamps'
brightness (flicker, dimming) and the light's colour (a camera's white balance moving) are
measured against: ``changed`` finds where the picture changed since, ``lamps`` the brightness
of the whole picture over it, ``light`` each channel's, and ``recast``/``uncast`` take a change
of the light's colour off every later picture.
"""

from __future__ import annotations

import cv2
import numpy as np

from tracker.vision import kernels

# a change of the light's colour (a camera's white balance, lamps of another colour): one of the
# cloth's B, G, R changed by this share more than the three on average, and by this many of its
# levels (the codec rounds a channel the cloth shows little of)
TINT_STEP = 0.05
TINT_LEVELS = 2.5
# or two channels the cloth shows little of changed one against the other by this many of the
# levels of each
TINT_PAIR_LEVELS = 1.5
# the least level (of 255) of a channel of the table for its change to be measured on the cloth,
# and on anything else
LIT_LEVEL = 8.0
LIT_ELSEWHERE = 40.0


def brightest_channel(image: np.ndarray) -> np.ndarray:
    """(h, w) uint8 the largest of each pixel's B, G, R in ``image`` (h, w, 3), averaged
    over 3 x 3 pixels."""
    b, g, r = cv2.split(image)
    return cv2.blur(cv2.max(cv2.max(b, g, dst=b), r, dst=b), (3, 3))


def coarse_points(prep) -> tuple[np.ndarray, np.ndarray]:
    """(rows, columns) of every 8th work pixel each way on the table area."""
    if prep.coarse is None:
        grid = prep.mask[::8, ::8]
        at = np.flatnonzero(grid)
        prep.coarse = 8 * (at // grid.shape[1]), 8 * (at % grid.shape[1])
    return prep.coarse


def sparse_points(prep) -> tuple[np.ndarray, np.ndarray]:
    """Every 4th of ``coarse_points``'s pixels."""
    r, c = coarse_points(prep)
    return r[::4], c[::4]


def tinted(light: np.ndarray, level: np.ndarray) -> bool:
    """Whether the light changed colour, given the change of each of B, G, R ``light`` (3,)
    and their levels ``level`` (3,) (``LastLook.light``): one of them changed more or less
    than the three on average (weighed by their levels, as the lamps' brightness is) by over
    ``TINT_STEP`` of it and ``TINT_LEVELS`` of its levels (a channel at a level of 10 moves
    in steps of a tenth), or two dark ones moved apart. A change of brightness alone is
    none."""
    known = np.isfinite(light)
    if known.sum() < 2:
        return False
    g, lv = light[known], level[known]
    mean = float((g * lv).sum() / lv.sum())
    if (np.abs(g / mean - 1.0) > np.maximum(TINT_STEP, TINT_LEVELS / lv)).any():
        return True
    # two channels the cloth shows little of (a green cloth's B and R) move together with the
    # lamps' flicker, by up to twice the others: one against the other by over
    # ``TINT_PAIR_LEVELS`` of the levels of each (a white balance warmer or colder moves them
    # apart)
    dim = np.flatnonzero(lv < LIT_ELSEWHERE)
    return any(abs(g[i] / g[j] - 1.0) > max(TINT_STEP, TINT_PAIR_LEVELS * (1 / lv[i] + 1 / lv[j]))
               for n, i in enumerate(dim) for j in dim[n + 1:])


class LastLook:
    """The detector's memory of its last look at the table (all None before the first)."""

    def __init__(self):
        self.image: np.ndarray | None = None  # the work image where it was last looked at
        self.sums: np.ndarray | None = None  # B + G + R of ``image`` on a coarse grid
        # where on a sparser grid each channel of ``image`` is measured, what it was, its levels
        self.samples: tuple | None = None
        # the B, G, R gains that take a picture back to the light's colour when the cloth and
        # the balls were first seen (``recast``; None: as it is), as a (3, 3) diagonal matrix
        self.cast: np.ndarray | None = None
        # the table (``sampled``) in the light the last change of its colour left (or the first)
        self.reference: tuple | None = None
        self.brightest: np.ndarray | None = None  # ``brightest_channel`` of ``image``
        # the largest change of the picture's brightness (a fraction) since the whole table
        # was last looked at: the lamps' flicker
        self.swing = 0.0
        # the picture's brightness over ``image``'s, as the last change search measured it
        self.gain = 1.0

    def uncast(self, image: np.ndarray) -> np.ndarray:
        """``image`` (..., 3) BGR uint8 in the colour of the light the cloth and the balls were
        first seen in (``recast``): itself until the light changed colour."""
        return image if self.cast is None else cv2.transform(image, self.cast)

    def recast(self, small: np.ndarray, prep) -> None:
        """The light's change of colour since the last change (or the first look) in the work
        image ``small`` (as ``uncast`` had it), added to what ``uncast`` takes off: per
        channel, as ``light`` measures it on the cloth, or, for a channel the cloth shows
        little of, the median change since what was last seen over every pixel of the picture
        that showed it at ``LIT_ELSEWHERE`` or more, unsaturated (the balls, the cushions'
        rims, the pockets' leather); divided by the three's mean (a change of brightness is
        the lamps', left to the cloth's relearning)."""
        then = self.image.reshape(-1, 3)
        now = small.reshape(-1, 3)
        gain = self.light(small, prep, self.reference)[0]
        for ch in np.flatnonzero(~np.isfinite(gain)):
            ok = ((then[:, ch] >= LIT_ELSEWHERE) & (then[:, ch] < 250) & (now[:, ch] > 0)
                  & (now[:, ch] < 250))
            if ok.sum() >= 50:
                gain[ch] = float(np.median(now[ok, ch].astype(np.float32) / then[ok, ch]))
        if np.isfinite(gain).sum() < 2:
            return
        gain = np.where(np.isfinite(gain), gain, np.nanmean(gain))
        gain /= gain.mean()
        cast = (np.ones(3) if self.cast is None else np.diag(self.cast)) / gain
        self.cast = None if np.abs(cast - 1.0).max() < 0.01 else np.diag(cast)
        self.sums = self.samples = None

    def lamps(self, small: np.ndarray, prep) -> float:
        """The brightness of the work image ``small`` over that of the table when it was last
        looked at. The lamps' flicker and dimming change the whole picture alike: the median
        of the changes over the table (a player leaning over it darkens only part of it)."""
        coarse = coarse_points(prep)
        if self.sums is None:
            self.sums = kernels.grid_sums(self.image, *coarse)
        return kernels.median_ratio(kernels.grid_sums(small, *coarse), self.sums, 60.0)

    def light(self, small: np.ndarray, prep,
               then: tuple | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(3,) the change of each of B, G, R of the work image ``small`` since the table was
        last looked at (or since ``then``, a ``sampled`` picture): the median over the table
        (``sparse_points``) of its ratio to what was seen, where that is at least ``LIT_LEVEL``
        (NaN where under half of the table is); and (3,) the median level of what was seen
        there. (The median of the ratios, not the ratio of the sums: the codec's rounding and
        the camera's curve change a channel the cloth shows little of by up to twice as much
        as the others under the lamps' flicker; the median keeps to the many pixels left as
        they were, and to the cloth where balls moved since.)"""
        if then is None:
            if self.samples is None:
                self.samples = self.sampled(self.image, prep)
            then = self.samples
        where, level = then
        out = np.full(3, np.nan)
        for ch, rr, cc, was in where:
            out[ch] = kernels.median_ratio(small[rr, cc, ch].astype(np.float32), was, 0.0)
        return out, level

    def sampled(self, image: np.ndarray, prep) -> tuple[list, np.ndarray]:
        """The work image ``image`` on the table (``sparse_points``) as ``light`` compares with it:
        for each channel at ``LIT_LEVEL`` or more on half of the table, (channel, rows,
        columns, levels there); and (3,) each channel's median level there (NaN for others)."""
        r, c = sparse_points(prep)
        was = image[r, c].astype(np.float32)
        level = np.full(3, np.nan)
        where = []
        for ch in range(3):
            lit = np.flatnonzero(was[:, ch] >= LIT_LEVEL)
            if 2 * len(lit) >= len(was) > 0:  # the cloth's own, not a few balls'
                where.append((ch, r[lit], c[lit], was[lit, ch]))
                level[ch] = float(np.median(was[lit, ch]))
        return where, level

    def changed(self, small: np.ndarray, prep, gain: float, level: float) -> np.ndarray | None:
        """(h, w) uint8 255 around the work-image pixels on the table that changed since they
        were last looked at, or None when nothing did; ``gain`` the lamps' (``lamps``). A
        change is the largest of the B, G, R differences averaged over 3 x 3 pixels (sensor and
        codec noise is not)."""
        flicker = abs(gain - 1) >= 0.01
        self.gain = gain if flicker else 1.0
        seen = cv2.convertScaleAbs(self.image, alpha=gain) if flicker else self.image
        most = brightest_channel(cv2.absdiff(small, seen))
        if flicker:
            self.swing = max(self.swing, abs(gain - 1))
        if self.swing:
            # the codec carries a change of the lamps' brightness to some parts of the picture
            # and not to others (a ball may keep its brightness where the cloth around it
            # follows the lamps): a change that the lamps' swing could make is none
            if self.brightest is None:
                self.brightest = brightest_channel(self.image)
            most = cv2.addWeighted(most, 1.0, self.brightest, -self.swing * gain, 0.0)
        changed = cv2.compare(most, level, cv2.CMP_GE)
        changed = cv2.bitwise_and(changed, prep.mask)
        if not cv2.countNonZero(changed):
            return None
        if prep.typical_r is None:
            prep.typical_r = float(np.median(prep.radius[prep.mask > 0])) / prep.factor
        return cv2.dilate(changed, np.ones((5, 5), np.uint8))

    def update_brightest(self, window: tuple[int, int, int, int]) -> None:
        """``brightest`` made again where ``image`` changed inside the work-image ``window``
        (x0, y0, x1, y1): a pixel beyond it, as far as the 3 x 3 average reaches, from the
        pixels two beyond it (or the picture's edge, where the average reflects alike)."""
        h, w = self.brightest.shape
        x0, y0, x1, y1 = window
        cx0, cy0, cx1, cy1 = max(x0 - 2, 0), max(y0 - 2, 0), min(x1 + 2, w), min(y1 + 2, h)
        part = brightest_channel(np.ascontiguousarray(self.image[cy0:cy1, cx0:cx1]))
        ox0, oy0, ox1, oy1 = max(x0 - 1, 0), max(y0 - 1, 0), min(x1 + 1, w), min(y1 + 1, h)
        self.brightest[oy0:oy1, ox0:ox1] = part[oy0 - cy0:oy1 - cy0, ox0 - cx0:ox1 - cx0]
