"""The cloth: its colour model, the lookup table that scores a pixel "not cloth", learning and
relearning it as the lamps and the camera's light change, and whether a picture shows it."""

from __future__ import annotations

import concurrent.futures
from dataclasses import dataclass

import cv2
import numpy as np

from tracker.vision import kernels
from tracker.vision.cloth_table import FG_LEVEL, LUT_BITS, LUT_SHIFT, lut_index, score_table, scores
from tracker.vision.geometry import WorkFrame
from tracker.vision.lastlook import LastLook, sparse_points


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
_NO_SCORES = np.zeros(0, np.uint8)  # the type of a score table given, with none in it
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
# a change of the lamps' brightness since the table was last looked at from which the cloth is
# learnt afresh at once (the sample clips' flicker and slow dimming: up to 0.17)
_LAMPS_STEP = 0.25
# frames after the one the cloth is relearnt from that the new model is used from (its
# relearning, 15-20 ms at 1080p, is spread over the frames looked at meanwhile)
_RELEARN_LAG = 2


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


class ClothLearner:
    """The cloth model of one camera's pictures, learnt from the first frame and relearnt every
    ``relearn_every`` frames (on a thread of its own) or at once when the lamps change:
    ``model``, its lookup table ``lut`` and that as ``score_table`` lays it out, ``table``."""

    def __init__(self):
        self.model: ClothModel | None = None
        self.lut: np.ndarray | None = None
        self.table: np.ndarray | None = None
        self.frames_since_lut = 0
        # the cloth being relearnt (a Future of ``learn``), used ``_RELEARN_LAG`` frames after
        # the frame it is learnt from
        self.relearning: concurrent.futures.Future | None = None
        self._thread: concurrent.futures.ThreadPoolExecutor | None = None

    def reset(self) -> None:
        self.relearning = None
        self.model = self.lut = self.table = None

    def keep_up(self, small: np.ndarray, prep: WorkFrame, lamps: float, relearn_every: int,
                adapt_rate: float) -> bool:
        """The model kept up with the work image ``small`` of the next frame (``prep`` its
        ``WorkFrame``, ``lamps`` the lamps' brightness over their last whole look's): learnt
        afresh, a relearning taken up or one started. Whether the whole table is to be looked
        at again with a model new from this frame on."""
        self.frames_since_lut += 1
        learnt = None
        if abs(lamps - 1.0) >= _LAMPS_STEP:
            # the lamps dimmed or brightened at once: the cloth learnt afresh from this frame
            # (a model of the cloth under the lamps before takes it for something else) and the
            # whole table looked at with it; a relearning from before is dropped
            learnt = self.relearn(small, prep, 1.0)
        if learnt is not None:
            self.use(learnt, prep)
            self.relearning = None
            self.frames_since_lut = 0
            return True
        if self.relearning is not None and self.frames_since_lut >= _RELEARN_LAG:
            # the cloth relearnt from a frame a few before (on a thread of its own, while
            # those frames were looked at), and the whole table looked at with it
            learnt = self.relearning.result()
            if learnt is not None:
                self.use(learnt, prep)
            self.relearning = None
            return True
        if self.lut is None:
            self.use(self.learn(small, prep, 1.0), prep)
            self.frames_since_lut = 0
            return True
        if self.relearning is None and self.frames_since_lut >= relearn_every:
            rate = min(1.0, adapt_rate * max(self.frames_since_lut, 1))
            self.relearning = self._relearner().submit(self.relearn, small, prep, rate)
            self.frames_since_lut = 0
        return False

    def learn(self, small: np.ndarray, prep: WorkFrame, rate: float) -> tuple:
        """The cloth model learnt (first frame) or adapted (later frames, a share ``rate`` of it
        replaced) from the work image: (gain (h, w, 1), model, lookup table, ``score_table``),
        for ``use``. Changes nothing, so it may run on another thread while the frame is
        looked at with the model so far.

        The cloth's colour varies across the table (lamps, vignetting, camera white balance):
        a gain per pixel and channel, smooth over several balls' widths, brings the cloth to
        one colour (``flatten``) so that one tight colour model serves the whole table."""
        mask = prep.mask > 0
        if self.lut is None:
            rough = ClothModel.learn(small[::2, ::2][mask[::2, ::2]])
            cloth = (rough.lut()[lut_index(small)] < FG_LEVEL // 2) & mask
        else:  # the cloth as the model so far sees it
            _, score = kernels.flat_scores(small, prep.gain[..., 0], self.table)
            cloth = (score < FG_LEVEL // 2) & mask
        gain = _flat_gain(small, cloth, prep.factor)
        if self.model is not None:
            gain = prep.gain + rate * (gain - prep.gain)
        # every third pixel each way is plenty (the model takes ~12000 of them): only those
        # flattened
        sub = (slice(None, None, 3), slice(None, None, 3))
        flat, _ = kernels.flat_scores(small[sub], gain[sub + (0,)], _NO_SCORES)
        model = ClothModel.learn(flat[cloth[sub]] if cloth[sub].sum() > 60 else flat[mask[sub]])
        if self.model is not None:
            model = self.model.blend(model, rate)
        lut = model.lut()
        return gain, model, lut, score_table(lut)

    def relearn(self, small: np.ndarray, prep: WorkFrame, rate: float) -> tuple | None:
        """``learn`` of a later frame, or None where it is too dark to learn from (the lamps
        going out): the model so far is kept."""
        try:
            return self.learn(small, prep, rate)
        except ValueError:
            return None

    def use(self, learnt: tuple, prep: WorkFrame) -> None:
        """The cloth model that ``learn`` gave from now on."""
        prep.gain, self.model, self.lut, self.table = learnt

    def _relearner(self) -> concurrent.futures.ThreadPoolExecutor:
        """The learner's own thread for relearning the cloth (made on first use)."""
        if self._thread is None:
            self._thread = concurrent.futures.ThreadPoolExecutor(
                max_workers=1, thread_name_prefix="cueball-cloth")
        return self._thread

    def in_view(self, work: np.ndarray, look: LastLook, prep: WorkFrame, tinted: bool = False
                ) -> bool:
        """``BallDetector.in_view``: ``look`` what the detector saw when it last looked, ``prep``
        the ``WorkFrame`` of the calibrated picture size."""
        if self.table is None:
            return True
        r, c = sparse_points(prep)
        pixels = look.uncast(work[r, c][None])[0]
        smooth = _smooth(pixels, look.uncast(
            work[r, np.minimum(c + 2, work.shape[1] - 1)][None])[0])
        if not tinted and self._mostly_cloth(pixels, len(r), smooth):
            return True
        if look.image is None:
            return False
        if tinted:
            gain = look.light(look.uncast(work), prep)[0]
            if not np.isfinite(gain).any():
                return False
            gain = np.where(np.isfinite(gain), gain, np.nanmean(gain))
            if not ((_DIMMEST <= gain) & (gain <= 1.0 / _DIMMEST)).all():
                return False
            back = np.clip(pixels / gain.astype(np.float32), 0, 255).astype(np.uint8)
            return self._mostly_cloth(back, len(r), smooth)
        # the lamps dimmed or brightened: the whole picture darker or lighter alike, the
        # cloth's colour kept
        gain = look.lamps(look.uncast(work), prep)
        if not _DIMMEST <= gain <= 1.0 / _DIMMEST or abs(gain - 1.0) < 0.05:
            return False
        return self._mostly_cloth(cv2.convertScaleAbs(pixels, alpha=1.0 / gain), len(r), smooth)

    def share(self, frame: np.ndarray, look: LastLook, step: int = 16) -> float:
        """``BallDetector.cloth_share``."""
        if self.table is None:
            return 0.0
        grid = frame[step // 2::step, step // 2::step]
        beside = frame[step // 2::step, step // 2 + 2::step][:, :grid.shape[1]]
        grid = grid[:, :beside.shape[1]]
        pixels = look.uncast(grid.reshape(-1, 3)[None])[0]
        smooth = _smooth(pixels, look.uncast(beside.reshape(-1, 3)[None])[0])
        cloth = (scores(self.table, pixels[None])[0] < FG_LEVEL) & smooth
        return float(cloth.mean()) if len(cloth) else 0.0

    def covers(self, frame: np.ndarray, look: LastLook, px: np.ndarray) -> bool:
        """``BallDetector.covers``."""
        if self.table is None:
            return True
        h, w = frame.shape[:2]
        xy = np.rint(np.asarray(px, float)).astype(int)
        inside = (xy[:, 0] >= 0) & (xy[:, 0] < w) & (xy[:, 1] >= 0) & (xy[:, 1] < h)
        return self._mostly_cloth(look.uncast(frame[xy[inside, 1], xy[inside, 0]][None])[0],
                                  len(xy))

    def _mostly_cloth(self, pixels: np.ndarray, of: int, smooth: np.ndarray | None = None
                      ) -> bool:
        """Whether at least ``_IN_VIEW`` of ``of`` places look like the cloth, ``pixels``
        (K, 3) BGR being those of them in the picture (and, where given, ``smooth`` (K,) True
        there)."""
        cloth = scores(self.table, pixels[None])[0] < FG_LEVEL
        if smooth is not None:
            cloth &= smooth
        return float(cloth.sum()) >= _IN_VIEW * of
