"""How big the balls look against what the calibration predicts: the radius scale that corrects
a calibration's focal length and distance being off together, and the size ratio that tells a
table of bigger balls (pool's) taken for a snooker table."""

from __future__ import annotations

import cv2
import numpy as np


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


class BallSize:
    """The balls' measured size: ``scale``, measured over predicted radius (1 until lone balls
    measure it), and ``ratio``, their size over a snooker ball's (None until measured)."""

    def __init__(self):
        self.reset()

    def reset(self) -> None:
        self.scale = 1.0
        self.measured = False
        self.ratio: float | None = None

    def measure(self, stats: np.ndarray, r_pred: np.ndarray, strong: np.ndarray,
                adapt_rate: float) -> None:
        """``scale`` (a share ``adapt_rate`` of it, once measured) and, the first time,
        ``ratio`` from the lone, round blobs of a look at the whole table: (K, 5)
        connected-component stats, their predicted radii (K,) and their counts of
        clearly-not-cloth pixels (K,), all in work px.

        A blob's own area overstates the ball where the shadow under it joins it, and the halo
        that compression and blooming leave; its clearly-not-cloth core does not, on the balls
        that are clearly not cloth all over (not black, not a dark green). Blobs that disagree
        (their ratios' median deviation over a tenth) are not all balls and measure nothing."""
        ratio = _agreed(_core_ratios(stats, r_pred, strong, r_pred * self.scale, 2.2), 3)
        if ratio is not None:
            ratio = 1.0 if 0.9 <= ratio <= 1.1 else float(np.clip(ratio, 0.6, 1.6))
            if not self.measured:
                self.scale = ratio
                self.measured = True
            else:
                self.scale += adapt_rate * (ratio - self.scale)
        if self.ratio is None:
            self.ratio = _size_ratio(stats, r_pred, strong)
