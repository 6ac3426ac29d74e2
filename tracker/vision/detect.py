"""Ball detection: every ball on the cloth in one frame, with sub-pixel centres.

Stages, one frame at a time, each in a module of its own:
1. The cloth model (``cloth``), learnt from the frame itself and adapted slowly over frames: a
   smooth brightness gain that flattens the lamps' falloff across the cloth, then the cloth's
   chromaticity (B, G, R over their sum: unchanged where the cloth is shaded) and brightness.
   It is compiled into a lookup table from quantised BGR to a "not cloth" score, so scoring a
   pixel is one gather. Shadows keep the cloth's chromaticity and stay cloth down to a third of
   its brightness; much brighter (white, yellow) or darker (black) pixels are not cloth.
2. Candidates on a downscaled image of the table area (``geometry``: what the calibration says
   can hold a ball): not-cloth blobs (``search``, of the whole table or only where the picture
   changed), pinholes closed and everything narrower than about a ball's radius opened away
   (lines, spots, the cue's shaft), each explained by discs of the radius the calibration
   predicts at that spot (``discs``): a lone ball by one, a cluster (the pack, touching balls,
   a ball against a cushion) by discs placed one at a time where they cover most of the blob's
   unexplained pixels. The predicted radius is checked against the lone balls of the frame
   (``size``).
3. Refinement at full resolution in a window around each candidate (``refine``): the centroid
   of the soft not-cloth score inside the candidate's own cell (pixels nearer to it than to a
   neighbour), repeated; then the silhouette's centroid is moved to the projection of the
   ball's centre (under perspective they differ) and cast to the plane of the balls' centres
   for table mm. A cluster's balls may be placed by the lamps' highlights (``highlights``).
4. Rejection: centres outside the cushions; in blobs reaching in from outside the table area
   (arms, the cue, graphics, pocket holes) discs at its edge, on a thin bar or without a neck
   to their neighbour; discs that do not fill, that sit in something bigger than a ball, that
   something passes through, or that are the shadow split off a ball (the last answers,
   ``memory``, tell a moving ball's own blur from that).

Colour classification is ``tracker.vision.colour``; this module measures each ball's body
colour for it.
"""

from __future__ import annotations

import functools
import threading
from dataclasses import dataclass

import cv2
import numpy as np

from calibration.calibrate import Calibration
from calibration.specs import SNOOKER, SnookerTableSpec
from tracker.vision import kernels
from tracker.vision.cloth import _NO_SCORES, _SOFT, ClothLearner, ClothModel
from tracker.vision.cloth_table import FG_LEVEL, scores
from tracker.vision.detections import Detections
from tracker.vision.discs import _ALIKE_LAB, _NECK, _NO_PREFERENCE, BlobDiscs, _disc_kernels
from tracker.vision.geometry import TableGeometry, WorkFrame, blob_setup, prepare_frame
from tracker.vision.highlights import Highlights
from tracker.vision.lastlook import LastLook, tinted
from tracker.vision.memory import LastAnswers
from tracker.vision.refine import _STEPS, Refiner, _ray_directions, _round_outline
from tracker.vision.search import ChangeSearch
from tracker.vision.size import BallSize

__all__ = ["BallDetector", "ClothModel", "Detections", "DetectorConfig", "TableGeometry",
           "median_rows", "not_snooker", "ready_kernels"]

# table positions, colours and the cloth's colour not known (``kernels.close_pairs``)
_NO_XY, _NO_LAB, _NO_CLOTH = np.empty((0, 2)), np.empty((0, 3)), np.empty(0)
# the least share of its disc a ball showing the lamps' highlight in its middle fills (a blue
# on a blue cloth under lamps at 0.7 of their brightness: 0.33; others ``min_cover``)
_LIT_COVER = 0.3
# the balls' size over a snooker ball's (``BallDetector.size_ratio``) from which the table is
# taken for no snooker table
_NOT_SNOOKER = 1.35


@functools.cache
def ready_kernels() -> None:
    """The detector's compiled kernels made ready (compiled, or loaded from numba's cache)
    for the very argument types ``Refiner.refine``, ``BlobDiscs.explain``,
    ``ChangeSearch.pieces`` and the cloth model pass them, once a process, before the first
    frame: a live source would drop the frames that come while they compile (some seconds, the
    first time on a machine)."""
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


class BallDetector:
    """Finds balls in frames of one camera.

    ``detector.detect(frame)`` -> :class:`Detections` with ``cls`` -1 (classification is
    ``tracker.vision.colour``) and ``lab`` set. The cloth model is learnt from the first frame and
    adapted on each later one; call ``reset()`` when the scene changes.

    Its collaborators: ``learner`` (the cloth), ``size`` (the balls' measured size),
    ``answers`` (its last two answers), ``search`` (the blobs to look at), ``discs`` (the balls
    in a blob), ``refiner`` (full-resolution centres) and ``highlights`` (the lamps')."""

    def __init__(self, calibration: Calibration, table: SnookerTableSpec = SNOOKER,
                 config: DetectorConfig | None = None):
        ready_kernels()
        self.geometry = TableGeometry(calibration, table)
        self.table = table
        self.config = cfg = config or DetectorConfig()
        self.learner = ClothLearner()
        self.size = BallSize()
        self.answers = LastAnswers()
        self.search = ChangeSearch(self.learner, self.size)
        self.discs = BlobDiscs(self.learner, self.answers, cfg.min_cover)
        self.refiner = Refiner(self.geometry, self.learner, self.answers, cfg.refine_iterations,
                               cfg.max_spill)
        self.highlights = Highlights()
        self._prep: WorkFrame | None = None
        self._prep_lock = threading.Lock()  # ``work_image`` may be called on another thread
        self.look = LastLook()  # what it saw when it last looked, and the light since
        # what depends on the camera alone is made now, not while the first frame waits (and
        # OpenCV's tables for 8-bit Lab, made on their first use)
        blob_setup(self._prepare(*calibration.image_size))
        self.geometry.ready()
        cv2.cvtColor(np.zeros((1, 1, 3), np.uint8), cv2.COLOR_BGR2LAB)

    @property
    def cloth(self) -> ClothModel | None:
        return self.learner.model

    @property
    def radius_scale(self) -> float:
        """Measured over predicted ball radius: corrects a calibration whose focal length and
        distance are off together (the homography can be right while the scale is not)."""
        return self.size.scale

    @property
    def size_ratio(self) -> float | None:
        """The balls' apparent size over a snooker ball's at their places, unbounded (None: not
        measured yet)."""
        return self.size.ratio

    def reset(self) -> None:
        self.learner.reset()
        self.size.reset()
        self.highlights = Highlights()
        self.answers.reset()
        self.look = LastLook()
        self.search.reset()

    def _prepare(self, w: int, h: int) -> WorkFrame:
        with self._prep_lock:
            if self._prep is None or self._prep.size != (w, h):
                self._prep = prepare_frame(self.geometry, self.config.work_radius_px, w, h)
            return self._prep

    # -- whether a picture shows the table ------------------------------------------------------
    def score(self, frame: np.ndarray) -> np.ndarray:
        """(H, W) uint8 not-cloth score of a whole frame (for display and tests);
        ``FG_LEVEL`` (64) is the threshold."""
        if self.learner.lut is None:
            raise RuntimeError("no cloth model yet: call detect() on a frame first")
        return scores(self.learner.table, frame)

    def in_view(self, work: np.ndarray, tinted: bool = False) -> bool:
        """Whether the work image ``work`` (``work_image``) shows the table: at least
        ``cloth._IN_VIEW`` of the table area (every 4th of the pixels on a grid of every 8th work
        pixel each way) looks like the cloth under the cloth model, as it is or brought back to
        the brightness of the table last looked at (the lamps dimmed down to ``cloth._DIMMEST`` of
        it, or brightened) (a broadcast's cut to the crowd, a player's face, the lamps switched
        off, the camera turned away: none). With ``tinted`` each of B, G, R is brought back
        on its own (the camera's white balance moved, lamps of another colour): three free
        gains let more pictures pass for the table, so the caller asks for it only where
        something else (the cushions' edges in place) says the camera still sees the table.
        True before a cloth model is learnt."""
        if self.learner.table is None:
            return True
        return self.learner.in_view(work, self.look, self._prepare(*self.geometry.image_size),
                                    tinted)

    def cloth_share(self, frame: np.ndarray, step: int = 16) -> float:
        """The share of the whole BGR ``frame`` (every ``step``-th pixel each way) that looks
        like the cloth and is as smooth as it (a picture of the table from anywhere: another
        camera's view); 0 before a cloth model is learnt."""
        return self.learner.share(frame, self.look, step)

    def covers(self, frame: np.ndarray, px: np.ndarray) -> bool:
        """Whether the cloth covers the pixels at ``px`` (N, 2) (x, y) of the BGR ``frame``:
        at least ``cloth._IN_VIEW`` of them look like it under the cloth model (those outside the
        picture do not). True before a cloth model is learnt."""
        return self.learner.covers(frame, self.look, px)

    # -- per frame ------------------------------------------------------------------------------
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
        whole = (not cfg.incremental or self.answers.last is None or self.look.image is None)
        small, whole = self._in_light_learnt(small, prep, whole)
        lamps = 1.0 if whole else self.look.lamps(small, prep)
        if self.learner.keep_up(small, prep, lamps, cfg.relearn_every, cfg.adapt_rate):
            whole = True
        window = (0, 0, small.shape[1], small.shape[0])
        region = None
        if not whole:
            region = self.look.changed(small, prep, lamps, self.config.change_level)
            if region is None:
                return self.answers.last
            window = self._window(region, prep)
        frame = self.look.uncast(frame)  # only where it is looked at (1 ms at 1080p)
        found = self._balls_in_window(frame, small, prep, window, region)
        if found is not None:
            self.search.window_held()
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
            self._seen_again(small, window, claimed)
            result = _dedupe(_concat(kept, new), cloth_lab=self.learner.model.lab())
        self.answers.push(result)
        return result

    def _in_light_learnt(self, small: np.ndarray, prep: WorkFrame, whole: bool
                         ) -> tuple[np.ndarray, bool]:
        """The work image ``small`` as in the light the cloth and the balls' colours were
        learnt in, and whether the whole table is to be looked at (``whole``, or the light
        changed colour)."""
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
        return small, whole

    def _seen_again(self, small: np.ndarray, window: tuple[int, int, int, int],
                    claimed: np.ndarray) -> None:
        """What was looked at in ``window`` (``claimed``, its (h, w) bool) is seen again: only
        the box round it changes in the last look's image."""
        mask = claimed.view(np.uint8)
        bx, by, bw, bh = cv2.boundingRect(mask)
        if not bw:
            return
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




    @staticmethod
    def _window(region: np.ndarray, prep: WorkFrame) -> tuple[int, int, int, int]:
        """The work-image box (x0, y0, x1, y1) around ``region`` with room for a pack of balls
        beside it."""
        x, y, bw, bh = cv2.boundingRect(region)
        m = int(np.ceil(8 * prep.typical_r))
        hh, ww = region.shape
        return max(x - m, 0), max(y - m, 0), min(x + bw + m, ww), min(y + bh + m, hh)

    def _balls_in_window(self, frame: np.ndarray, small: np.ndarray, prep: WorkFrame,
                         window: tuple[int, int, int, int], region: np.ndarray | None,
                         in_boxes: bool = True):
        """Balls in the work-image ``window`` (in the blobs that meet ``region``, or all):
        (Detections, the balls of the last answer that stand (None without a ``region``), the
        window's (h, w) bool of what was looked at), or None when a blob to be looked at is cut
        by the window. ``in_boxes`` False: the window is the whole picture after a window that
        was cut (see ``ChangeSearch.changed_blobs``)."""
        cfg = self.config
        x0, y0 = prep.roi[:2]
        f = prep.factor
        found = self._candidates(small, prep, window, region, in_boxes)
        if found is None:
            return None
        centres_w, claimed, streak = found
        kept = None if region is None else self.answers.outside(prep, window, claimed)
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
        sil, cover, lab, ok, lit = self.refiner.refine(frame, cands, r_exp, prep, streak)
        placed = self.highlights.place(frame, sil, r_exp, lab,
                                       ok & (np.arange(len(ok)) < n_new) & ~streak,
                                       self.learner.model)
        if placed is not None:  # the balls of a cluster placed by their highlights
            blurred = cands[:n_new][streak[:n_new]]
            cands = np.concatenate([placed, blurred, cands[n_new:]])
            streak = np.r_[np.zeros(len(placed), bool), np.ones(len(blurred), bool),
                           np.zeros(len(cands) - len(placed) - len(blurred), bool)]
            n_new = len(placed) + len(blurred)
            r_exp = self._radius_at(cands, prep)
            sil, cover, lab, ok, lit = self.refiner.refine(frame, cands, r_exp, prep, streak)
        ok = ok & (np.arange(len(ok)) < n_new)
        sil, cover, lab, r_exp, lit = sil[ok], cover[ok], lab[ok], r_exp[ok], lit[ok]
        if not len(sil):
            return Detections.empty(with_mm=True), kept, claimed
        xy = self.geometry.centre_px(sil, r_exp)
        mm = self.geometry.to_table(xy)
        r_exp = self.geometry.radius_px(mm) * self.size.scale  # ``_radius_at(xy)``
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
        return _dedupe(d, cloth_lab=self.learner.model.lab()), kept, claimed

    def _radius_at(self, xy_px: np.ndarray, prep: WorkFrame) -> np.ndarray:
        mm = self.geometry.to_table(xy_px)
        return self.geometry.radius_px(mm) * self.size.scale

    def _candidates(self, small: np.ndarray, prep: WorkFrame, window: tuple[int, int, int, int],
                    region: np.ndarray | None, in_boxes: bool = True):
        """Ball candidates (K, 2) in work-image px in the work-image ``window`` (x0, y0, x1, y1)
        of the work image ``small``, with the window's (h, w) bool of what was looked at and
        which candidates (K,) are the middle of a ball's blur streak. With
        a ``region`` (the work image's changed pixels) only the blobs meeting it are looked at,
        and None is returned when one of them is cut by the window's edge."""
        blob_setup(prep)
        wx0, wy0, wx1, wy1 = window
        sub = (slice(wy0, wy1), slice(wx0, wx1))
        if region is None:
            part = self.search.pieces(small, prep, window, window, always_whole=False)
            n = part.n
            r_blob = self.search.blob_radii(part, range(1, n), prep)
            strong = np.bincount(part.labels[part.score >= 2 * FG_LEVEL], minlength=n)[1:]
            self.size.measure(part.stats[1:], r_blob, strong, self.config.adapt_rate)
            claimed = np.ones((wy1 - wy0, wx1 - wx0), bool)
            blobs = [(part, i, rb) for i, rb in zip(range(1, n), r_blob)]
        else:
            meets = region[sub] > 0
            blobs = self.search.changed_blobs(small, prep, window, region, in_boxes)
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
            out.extend(self.discs.discs(part, i, float(r_blob) * self.size.scale, prep,
                                        window, border))
        streak = np.array([len(p) > 2 for p in out], bool)
        centres = np.array([p[:2] for p in out], np.float64).reshape(-1, 2) + [wx0, wy0]
        return centres, claimed, streak


def not_snooker(detector: BallDetector) -> str | None:
    """What to tell the user when the balls the ``detector`` has measured are far too big
    for the snooker table it was calibrated for (a pool table, most likely), else None."""
    r = detector.size_ratio
    if r is None or r < _NOT_SNOOKER:
        return None
    return (f"the balls look {r:.1f} times the size of snooker balls on this table: is it a "
            "pool table? cueball follows snooker only, and its calls here will be wrong")


def median_rows(x: np.ndarray) -> np.ndarray:
    """``np.median(x, axis=0)`` of a few rows (or values) without NaN, without its
    overhead."""
    s = np.sort(x, axis=0)
    m = len(s) // 2
    return s[m] if len(s) % 2 else (s[m - 1] + s[m]) / 2


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
