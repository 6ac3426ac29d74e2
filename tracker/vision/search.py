"""The change search: the not-cloth blobs of the work image, of the whole table or only those
that meet what changed since the table was last looked at, searched in boxes round each
cluster of change and labelled as a search of the whole window would label them."""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from tracker.vision import kernels
from tracker.vision.cloth import ClothLearner
from tracker.vision.cloth_table import FG_LEVEL
from tracker.vision.geometry import WorkFrame
from tracker.vision.size import BallSize


@dataclass
class _Pieces:
    """The not-cloth blobs of one box of the work image: the box (x0, y0, x1, y1), its origin
    in the window being searched, its cloth-flattened BGR and score, its blobs opened to ball
    width (count, labels, stats, centroids as ``cv2.connectedComponentsWithStats``) and, when
    found, its blobs before that opening with which of them reach in from outside."""

    box: tuple[int, int, int, int]
    offset: tuple[int, int]
    flat: np.ndarray
    score: np.ndarray
    n: int
    labels: np.ndarray
    stats: np.ndarray
    cent: np.ndarray
    whole: np.ndarray | None = None
    wstats: np.ndarray | None = None
    reaching: np.ndarray | None = None


def _components(mask: np.ndarray):
    """8-connected components of a uint8 mask with their stats and centroids, as
    ``cv2.connectedComponentsWithStats``; 16-bit labels (several times faster) unless there are
    too many components for them."""
    try:
        return cv2.connectedComponentsWithStatsWithAlgorithm(mask, 8, cv2.CV_16U,
                                                             cv2.CCL_SPAGHETTI)
    except cv2.error:
        return cv2.connectedComponentsWithStats(mask, connectivity=8)


def _window_centroids(part: _Pieces, labels) -> tuple[np.ndarray, np.ndarray]:
    """(x, y) centroids of blobs ``labels`` of ``part`` in the window's px, as the window's own
    labelling gives them (the sum of the pixels' coordinates, exact, over the area)."""
    labels = np.asarray(labels, int)
    c = part.cent[labels]
    ox, oy = part.offset
    if not ox and not oy:
        return c[:, 0], c[:, 1]
    area = part.stats[labels, cv2.CC_STAT_AREA].astype(np.float64)
    return ((np.rint(c[:, 0] * area) + ox * area) / area,
            (np.rint(c[:, 1] * area) + oy * area) / area)


def _looked_at(part: _Pieces, meets: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
    """Which blobs of ``part`` meet ``meets`` ((h, w) bool of its box), (n,) bool, and which of
    its blobs before the opening hold them, or None when it has not got those."""
    look = np.bincount(part.labels[meets], minlength=part.n) > 0
    look[0] = False
    if part.whole is None:
        return look, None
    sel = np.zeros(len(part.wstats), bool)
    for i in np.flatnonzero(look):
        bx, by, bw, bh = part.stats[i, :4]
        sl = (slice(by, by + bh), slice(bx, bx + bw))
        sel[part.whole[sl][part.labels[sl] == i]] = True
    sel[0] = False
    return look, sel


def _blob_meets_window_edge(comp: np.ndarray, sel: np.ndarray, window: tuple[int, int, int, int],
         size: tuple[int, int]) -> bool:
    """Whether a blob of ``comp`` (labels of the ``window``) that ``sel`` picks meets an edge
    of the window inside the picture of ``size`` (w, h)."""
    x0, y0, x1, y1 = window
    hh, ww = comp.shape
    edges = ([comp[0]] if y0 > 0 else []) + ([comp[:, 0]] if x0 > 0 else []) + (
        [comp[hh - 1]] if y1 < size[1] else []) + ([comp[:, ww - 1]] if x1 < size[0] else [])
    return bool(edges) and bool(sel[np.concatenate(edges)].any())


def _lone_shaped(area, width, height, r):
    """Whether a blob of ``area`` px in a box ``width`` x ``height`` is taken for one ball of
    radius ``r`` as it is (scalars or arrays alike)."""
    return (area <= 1.15 * (np.pi * r * r)) & (np.maximum(width, height) <= 2.3 * r)


def _boxes_cover_window(boxes: list[tuple[int, int, int, int]],
                        window: tuple[int, int, int, int]) -> bool:
    """Whether ``boxes`` (x0, y0, x1, y1) cover 80 % of ``window``'s area or more (as well
    search the window)."""
    wx0, wy0, wx1, wy1 = window
    return sum((x1 - x0) * (y1 - y0) for x0, y0, x1, y1 in boxes) >= 0.8 * (
        (wx1 - wx0) * (wy1 - wy0))


def _spans_inside_boxes(spans: np.ndarray, boxes: list[tuple[int, int, int, int]], margin: int,
          size: tuple[int, int]) -> bool:
    """Whether each of the work-image ``spans`` (K, 4: x, y, w, h) lies in one of ``boxes``
    (x0, y0, x1, y1) at least ``margin`` px in from its edges inside the picture of ``size``
    (w, h), as ``ChangeSearch.changed_blobs`` asks of a box's blobs."""
    if not len(spans):
        return True
    if not boxes:
        return False
    b = np.array(boxes)
    lo = np.where(b[:, :2] > 0, b[:, :2] + margin, 0)
    hi = np.where(b[:, 2:] < size, b[:, 2:] - margin, size)
    x0, y0, x1, y1 = (spans[:, 0, None], spans[:, 1, None], (spans[:, 0] + spans[:, 2])[:, None],
                      (spans[:, 1] + spans[:, 3])[:, None])
    inside = (x0 >= lo[:, 0]) & (y0 >= lo[:, 1]) & (x1 <= hi[:, 0]) & (y1 <= hi[:, 1])
    return bool(inside.any(1).all())


def _box_round_spans(spans: np.ndarray) -> tuple[int, int, int, int] | None:
    """The box (x0, y0, x1, y1) round the ``spans`` (K, 4: x, y, w, h), or None for none."""
    if not len(spans):
        return None
    return (int(spans[:, 0].min()), int(spans[:, 1].min()), int((spans[:, 0] + spans[:, 2]).max()),
            int((spans[:, 1] + spans[:, 3]).max()))


def _first_block(part: _Pieces, i: int) -> tuple[int, int]:
    """The (row, column) of the first 2 x 2 block of the window's pixels that blob ``i`` of
    ``part`` meets (the order connected-component labelling numbers blobs in)."""
    bx, by, bw, bh = part.stats[i, :4]
    ox, oy = part.offset
    top = (oy + by) // 2
    rows = slice(max(2 * top - oy, by), min(2 * top - oy + 2, by + bh))
    cols = np.flatnonzero((part.labels[rows, bx:bx + bw] == i).any(0))
    return top, (ox + bx + int(cols[0])) // 2


def _grow_box(box: tuple[int, int, int, int], by: int, window: tuple[int, int, int, int]
           ) -> tuple[int, int, int, int]:
    """``box`` grown by ``by`` px each way, inside ``window``, its origin an even number of
    pixels from the window's."""
    wx0, wy0, wx1, wy1 = window
    x0, y0 = max(box[0] - by, wx0), max(box[1] - by, wy0)
    return (x0 - (x0 - wx0) % 2, y0 - (y0 - wy0) % 2, min(box[2] + by, wx1),
            min(box[3] + by, wy1))


def _merge_boxes(boxes: list[tuple[int, int, int, int]]) -> list[tuple[int, int, int, int]]:
    """Overlapping boxes joined into their bounding boxes until none overlap."""
    boxes = list(boxes)
    joined = True
    while joined:
        joined = False
        for i in range(len(boxes)):
            for j in range(i + 1, len(boxes)):
                a, b = boxes[i], boxes[j]
                if a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]:
                    boxes[i] = (min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]),
                                max(a[3], b[3]))
                    del boxes[j]
                    joined = True
                    break
            if joined:
                break
    return boxes


class ChangeSearch:
    """Finds the blobs to look at in one camera's work images, scored with the ``cloth``
    learnt; ``size`` the balls' measured size."""

    def __init__(self, cloth: ClothLearner, size: BallSize):
        self.cloth = cloth
        self.size = size
        # how many frames in a row the changes searched in boxes were cut by them, and the box
        # (x0, y0, x1, y1) round what the last search of the whole picture after a cut window
        # held (``changed_blobs``)
        self._boxes_cut = 0
        self._reach: tuple[int, int, int, int] | None = None

    def reset(self) -> None:
        self._boxes_cut = 0
        self._reach = None

    def window_held(self) -> None:
        """The window round what changed held it: the box round what a search of the whole
        picture held is forgotten."""
        self._reach = None

    def pieces(self, small: np.ndarray, prep: WorkFrame, box: tuple[int, int, int, int],
               window: tuple[int, int, int, int], always_whole: bool) -> _Pieces:
        """The not-cloth blobs of the work-image ``box`` (inside ``window``): the cloth-flattened
        BGR, the score, the blobs opened to ball width and, when something in the box reaches
        the table area's edge or the picture's (or ``always_whole``), the blobs before that
        opening and which of them reach in from outside."""
        x0, y0, x1, y1 = box
        sub = (slice(y0, y1), slice(x0, x1))
        flat, score = kernels.flat_scores(small[sub], prep.gain[y0:y1, x0:x1, 0],
                                          self.cloth.table)
        fg = cv2.compare(score, FG_LEVEL, cv2.CMP_GE)
        fg = cv2.bitwise_and(fg, prep.mask[sub])
        # pinholes closed first (a dark ball's highlight ring, compression noise)
        closed = cv2.morphologyEx(fg, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
        opened = cv2.morphologyEx(closed, cv2.MORPH_OPEN, prep.open_kernel)
        n, labels, stats, cent = _components(opened)
        part = _Pieces(box, (x0 - window[0], y0 - window[1]), flat, score, n, labels, stats,
                       cent)
        # what reaches in from outside the table area is judged whole, before the opening
        # cut it into ball-sized pieces (painted lines, a pixel or two wide, join nothing)
        joined = cv2.morphologyEx(closed, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
        edge, beyond = prep.edge[sub], prep.beyond[sub]
        if (always_whole or cv2.countNonZero(joined[edge])
                or cv2.countNonZero(joined[beyond])):
            nc, whole, wstats, _ = _components(joined)
            reaching = ((np.bincount(whole[edge], minlength=nc) > 0)
                        | ((np.bincount(whole[beyond], minlength=nc) > 0)
                           & (wstats[:, cv2.CC_STAT_AREA] > prep.arm_area)))
            reaching[0] = False
            part.whole, part.wstats, part.reaching = whole, wstats, reaching
        return part

    def changed_blobs(self, small: np.ndarray, prep: WorkFrame, window: tuple[int, int, int, int],
                      region: np.ndarray, in_boxes: bool = True) -> list | None:
        """The blobs of ``window`` that meet ``region``, as (pieces, label, predicted radius in
        work px) in the order a search of the whole window labels them, or None when one of
        them is cut by the window's edge.

        Each cluster of change is searched in a box around it (the window spans every change
        on the table, mostly cloth between them); a box whose blobs come near its edge inside
        the window is grown, and at last the whole window searched. The boxes' origins are an
        even number of pixels from the window's, so that their blobs are labelled in the
        window's order (labels follow the first 2 x 2 block of each blob): the answer is the
        same either way. The whole window is searched at once where the first boxes would not
        have held what was looked at on the last two frames (a player beside the table, whose
        blob reaches out of any box round what changed). Without ``in_boxes`` (the whole
        picture, after a window was cut) the boxes are tried once, with one more round what
        the last such search held (the player, who moves little from frame to frame)."""
        wx0, wy0, wx1, wy1 = window
        grow = prep.box_grow
        # the clusters of change, from every 4th pixel (a cluster is at least 5 x 5)
        coarse = np.ascontiguousarray(region[wy0:wy1:4, wx0:wx1:4])
        nb, _, cstats, _ = _components(coarse)
        boxes = [(wx0 + 4 * x - 4, wy0 + 4 * y - 4, wx0 + 4 * (x + w) + 4, wy0 + 4 * (y + h) + 4)
                 for x, y, w, h, _ in cstats[1:]]
        if in_boxes:
            first = _merge_boxes([_grow_box(b, grow, window) for b in boxes])
            tries = 3 if self._boxes_cut < 2 else 0
        else:  # one try, with a box round what the last such search held, if any
            first = None
            tries = 1 if self._reach is not None else 0
            boxes = boxes + [self._reach] * tries
        found = self._in_boxes(small, prep, window, region, boxes, tries, in_boxes)
        if found is not None:
            return found
        return self._in_window(small, prep, window, region, first)

    def _in_boxes(self, small: np.ndarray, prep: WorkFrame, window: tuple[int, int, int, int],
                  region: np.ndarray, boxes: list[tuple[int, int, int, int]], tries: int,
                  in_boxes: bool) -> list | None:
        """``changed_blobs`` searched in ``boxes`` grown ``tries`` times at most, or None when
        each try cuts something to be looked at."""
        wx0, wy0, wx1, wy1 = window
        full_h, full_w = prep.mask.shape
        m, grow = prep.box_margin, prep.box_grow
        held = []
        for attempt in range(tries):
            boxes = _merge_boxes([_grow_box(b, grow * (1 + 3 * attempt), window) for b in boxes])
            if _boxes_cover_window(boxes, window):
                break  # as well search the window
            blobs, cut = [], []
            for box in boxes:
                part = self.pieces(small, prep, box, window, always_whole=True)
                x0, y0, x1, y1 = box
                look, sel = _looked_at(part, region[y0:y1, x0:x1] > 0)
                spans = np.concatenate([part.stats[look, :4], part.wstats[sel, :4]])
                spans += [x0, y0, 0, 0]
                if not _spans_inside_boxes(spans, [box], m, (full_w, full_h)):
                    cut.append(box)
                    continue
                held.append(spans)
                blobs.extend((part, int(i)) for i in np.flatnonzero(look))
            if not cut:
                if in_boxes:
                    self._boxes_cut = 0
                else:
                    self._reach = _box_round_spans(np.concatenate(held))
                # in the order of each blob's first 2 x 2 block in the window
                blobs.sort(key=lambda b: _first_block(*b))
                radii = [self.blob_radii(part, [i], prep)[0] for part, i in blobs]
                return [(part, i, r) for (part, i), r in zip(blobs, radii)]
        return None

    def _in_window(self, small: np.ndarray, prep: WorkFrame, window: tuple[int, int, int, int],
                   region: np.ndarray, first: list[tuple[int, int, int, int]] | None
                   ) -> list | None:
        """``changed_blobs`` searched in the whole ``window``; ``first`` the boxes first tried
        (None: the window is the whole picture after a window that was cut)."""
        wx0, wy0, wx1, wy1 = window
        full_h, full_w = prep.mask.shape
        m = prep.box_margin
        in_boxes = first is not None
        part = self.pieces(small, prep, window, window, always_whole=False)
        look, sel = _looked_at(part, region[wy0:wy1, wx0:wx1] > 0)
        # what is looked at, in the picture's px
        spans = (part.stats[look, :4] if sel is None else np.concatenate(
            [part.stats[look, :4], part.wstats[sel, :4]])) + [wx0, wy0, 0, 0]
        if not in_boxes:
            self._reach = _box_round_spans(spans)
        else:
            # whether the first boxes would have held what is looked at: after two frames in a
            # row where they would not (a player beside the table), the window is searched at
            # once (the same answer as its boxes give; only the time differs)
            cut = (not _boxes_cover_window(first, window)
                   and not _spans_inside_boxes(spans, first, m, (full_w, full_h)))
            self._boxes_cut = self._boxes_cut + 1 if cut else 0
        # the whole blobs of what is looked at must lie inside the window
        comp, sel = (part.labels, look) if sel is None else (part.whole, sel)
        if _blob_meets_window_edge(comp, sel, window, (full_w, full_h)):
            return None
        if part.whole is None and look.any():
            # nor may a piece that would pass for a lone ball be one cut off something that the
            # window cuts (the hand at the end of an arm)
            idx = np.flatnonzero(look)
            r = self.blob_radii(part, idx, prep) * self.size.scale
            area, bw, bh = (part.stats[idx, k] for k in (cv2.CC_STAT_AREA, cv2.CC_STAT_WIDTH,
                                                          cv2.CC_STAT_HEIGHT))
            lone = idx[_lone_shaped(area, bw, bh, r)]
            if len(lone):
                whole = self.pieces(small, prep, window, window, always_whole=True)
                held = np.zeros(part.n, bool)
                held[lone] = True
                if _blob_meets_window_edge(whole.whole, _looked_at(whole, held[part.labels])[1],
                                           window, (full_w, full_h)):
                    return None
        idx = np.flatnonzero(look)
        return [(part, int(i), r) for i, r in zip(idx, self.blob_radii(part, idx, prep))]

    @staticmethod
    def blob_radii(part: _Pieces, labels, prep: WorkFrame) -> np.ndarray:
        """Predicted radius (work px) at the centroid of each blob of ``labels``."""
        cx, cy = _window_centroids(part, labels)
        x0, y0 = part.box[0] - part.offset[0], part.box[1] - part.offset[1]
        f = prep.factor
        return prep.radius[y0 + cy.astype(int), x0 + cx.astype(int)] / f
