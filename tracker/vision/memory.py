"""The detector's memory of its last two answers: where the balls stood and how far they went
between them, which tells a moving ball's own blur from something passing over it."""

from __future__ import annotations

import numpy as np

from tracker.vision.detections import Detections
from tracker.vision.geometry import WorkFrame

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


class LastAnswers:
    """The detector's last answer (``last``) and the one before it (``before``)."""

    def __init__(self):
        self.reset()

    def reset(self) -> None:
        self.last: Detections | None = None
        self.before: Detections | None = None
        # the last answer, the one before and ``steps_px``'s steps between them
        self._steps: tuple = (None, None, None)

    def push(self, answer: Detections) -> None:
        """``answer`` the last one from now on."""
        self.before, self.last = self.last, answer

    def centres_work_px(self, prep: WorkFrame) -> np.ndarray | None:
        """Where the balls of the last answer stood (M, 2), in work-image px; None before it."""
        last = self.last
        if last is None:
            return None
        return (last.xy_px - prep.roi[:2] + 0.5) / prep.factor - 0.5

    def steps_px(self) -> np.ndarray | None:
        """How far each ball of the last answer had gone (M, 2) from the nearest ball of the
        answer before, in picture px; None without both. Made once for each pair of answers."""
        last, before = self.last, self.before
        if last is None or before is None or not len(last) or not len(before):
            return None
        if self._steps[0] is not last or self._steps[1] is not before:
            self._steps = (last, before, _from_nearest(last.xy_px, before.xy_px)[0])
        return self._steps[2]

    def own_blur(self, xy_px: np.ndarray, r: np.ndarray, opposite: np.ndarray) -> np.ndarray:
        """(N,) bool: each ball at ``xy_px`` (N, 2), radius ``r`` (N,), whose ring is filled on
        the opposite sides ``opposite`` (N, 4) (eighths k and k + 4 of the turn, as
        ``refine_windows`` counts them) only along the way it came from the nearest ball of the
        last answer, ``_BLUR_MOVE`` radii away, which was going that way then (from the
        nearest ball of the answer before): its own blur, ahead and behind it."""
        steps = self.steps_px()
        out = np.zeros(len(xy_px), bool)
        if steps is None:
            return out
        way, j = _from_nearest(xy_px, self.last.xy_px)
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

    def still(self, xy_px: np.ndarray, r: np.ndarray) -> np.ndarray:
        """(N,) bool: a ball of the last answer was within ``_STILL`` radii ``r`` (N,) of each
        of ``xy_px`` (N, 2) (all True before the first answer)."""
        last = self.last
        if last is None:
            return np.ones(len(xy_px), bool)
        if not len(last):
            return np.zeros(len(xy_px), bool)
        d = np.hypot(*(xy_px[:, None] - last.xy_px[None]).transpose(2, 0, 1)).min(1)
        return d < _STILL * r

    def outside(self, prep: WorkFrame, window: tuple[int, int, int, int],
                claimed: np.ndarray) -> Detections:
        """The balls of the last answer outside what was looked at again (``claimed``, the
        work-image ``window``'s (h, w) bool)."""
        last = self.last
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
