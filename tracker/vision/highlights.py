"""The lamps' highlights on the balls: where the lamps put one on a lone ball, learnt from the
lone balls, and the balls of a cluster placed by theirs where they hide one another."""

from __future__ import annotations

import cv2
import numpy as np

from tracker.vision.cloth import ClothModel

# the lamps' highlights: lighter by this much (OpenCV L) than what is around them, over this
# lightness, over this many radii squared; a body at least this far (a*b*) from the cloth's
# under one; discs without a highlight nearer than this many radii to a ball's are pieces of
# it; a ball this much lighter than the cloth (or more) shows little of its own
_GLINT_RISE = 60
_GLINT_LIGHT = 170
_GLINT_AREA = 0.08
_GLINT_BODY = 25.0
_GLINT_PIECE = 1.3
_LIGHT = 0.9


class Highlights:
    """Where the lamps put a ball's highlight, from its silhouette's centre in radii (x, y):
    ``at`` (None: not one highlight at one place), as the lone balls show it."""

    def __init__(self):
        self.at: np.ndarray | None = None
        # what the last look's lone balls tell of it, not yet worked out (``_glint_place``'s
        # arguments)
        self._pending: tuple | None = None

    def place(self, frame: np.ndarray, sil: np.ndarray, r_exp: np.ndarray, lab: np.ndarray,
              mine: np.ndarray, cloth: ClothModel | None) -> np.ndarray | None:
        """The candidates ``mine`` (N,) bool of silhouette centres ``sil`` (N, 2) px, radii
        ``r_exp`` (N,) and body colours ``lab`` (N, 3), with the balls of each cluster (a disc
        with another within 2.5 radii) placed by their highlights, where the lamps put one on
        every ball at one place: (M, 2) silhouette centres, or None when nothing changes.

        In a steep view the balls of a pack hide one another but not their highlights (each
        near the top of its ball, above the balls in front). Where the lone dark balls (nothing
        within three radii; light ones show little of their highlight) show one highlight each
        at one place from their centres, that place is learnt and kept; a cluster's highlights
        then stand for its balls: a ball under each highlight on something not cloth, a disc
        with none nearer than ``_GLINT_PIECE`` radii to one a piece of that ball (its lower
        half and shadow, or a gap between balls), as is a dark disc without a highlight of its
        own that deep in a light ball's; a disc with none near kept (a ball whose highlight is
        hidden), and a light ball kept as it is."""
        idx = np.flatnonzero(mine)
        if len(idx) < 2 or cloth is None:
            return None
        p, r = sil[idx], r_exp[idx]
        light = lab[idx, 0] >= _LIGHT * cloth.lab()[0]
        d = np.hypot(*(p[:, None] - p[None]).transpose(2, 0, 1))
        np.fill_diagonal(d, np.inf)
        near = d.min(1)
        lone, cluster = (near > 3 * r) & ~light, near < 2.5 * r
        if lone.sum() >= 3:
            # the last look with three lone balls or more tells the place: their highlight
            # windows are kept (copied), and searched once a cluster needs the place
            self._pending = (_highlight_windows(frame, p[lone], r[lone]), p[lone], r[lone])
        if not cluster.any():
            return None
        if self._pending is not None:
            self.at = _glint_place(*self._pending)
            self._pending = None
        if self.at is None:
            return None
        spots = _highlights(frame, p[cluster], r[cluster])
        if not len(spots):
            return None
        under = _balls_under(frame, spots, p, r, cluster, self.at, cloth.lab())
        # a dark disc deep in a light one's, with no highlight of its own, is the light ball's
        # shaded lower half and shadow: a dark ball in front of it would show its highlight
        glint = p + self.at * r[:, None]
        lit = np.array([len(spots) > 0 and np.hypot(*(spots - q).T).min() < 0.5 * ri
                        for q, ri in zip(glint, r)])
        shade = cluster & ~light & ~lit & ((d < _GLINT_PIECE * r[:, None]) & light[None]).any(1)
        if not len(under) and not shade.any():
            return None
        return _placed(p, r, cluster, light, shade, under)


def _balls_under(frame: np.ndarray, spots: np.ndarray, p: np.ndarray, r: np.ndarray,
                 cluster: np.ndarray, at: np.ndarray, cloth: np.ndarray) -> np.ndarray:
    """(K, 2) px: a ball's silhouette centre under each highlight of ``spots`` (S, 2) by a
    cluster's disc (``cluster`` (N,) of the discs at ``p`` (N, 2) of radii ``r`` (N,)), the
    highlight ``at`` radii from it, on something not cloth (``cloth`` its Lab) and dark (a
    light ball's highlight, faint on it, places nothing), half a radius from any other."""
    cloth_ab = cloth[1:]
    under: list[np.ndarray] = []
    for q in spots:
        g = np.hypot(*(p - q).T)
        i = int(np.argmin(g))
        if not (cluster[i] and g[i] < 1.3 * r[i]):
            continue
        c = q - at * r[i]
        x, y = int(round(c[0])), int(round(c[1]))
        patch = frame[max(y - 1, 0):y + 2, max(x - 1, 0):x + 2]
        if not patch.size:
            continue
        body = cv2.cvtColor(patch, cv2.COLOR_BGR2LAB).reshape(-1, 3).mean(0)
        if (np.linalg.norm(body[1:] - cloth_ab) >= _GLINT_BODY
                and body[0] < _LIGHT * cloth[0]
                and all(np.hypot(*(c - u)) >= 0.5 * r[i] for u in under)):
            under.append(c)
    return np.array(under).reshape(-1, 2)


def _placed(p: np.ndarray, r: np.ndarray, cluster: np.ndarray, light: np.ndarray,
            shade: np.ndarray, u: np.ndarray) -> np.ndarray | None:
    """The discs at ``p`` (N, 2) of radii ``r`` (N,) with each ``cluster``'s dark disc that
    a ball ``u`` (K, 2) under a highlight stands in for replaced by it, its pieces (``shade``
    and those near a highlight) dropped, the ``light`` ones kept, and the balls under
    highlights no disc took added: (M, 2), or None when nothing changes."""
    taken = np.zeros(len(u), bool)
    out = [p[i] for i in np.flatnonzero(~cluster)]
    changed = bool(shade.any())
    for i in np.flatnonzero(cluster & ~shade):
        g = np.r_[np.hypot(*(u - p[i]).T), np.inf]
        if light[i]:
            taken |= g[:-1] < 0.7 * r[i]
            out.append(p[i])
        elif g.min() < 0.7 * r[i]:
            k = int(np.argmin(g))
            if not taken[k]:
                taken[k] = True
                out.append(u[k])
            else:
                changed = True
        elif g.min() < _GLINT_PIECE * r[i]:
            changed = True
        else:
            out.append(p[i])
    if (~taken).any():
        out.extend(u[~taken])
        changed = True
    return np.array(out, np.float64) if changed else None


def _highlights(frame: np.ndarray, centres: np.ndarray, radii: np.ndarray) -> np.ndarray:
    """(K, 2) px: the lamps' highlights on the balls at ``centres`` (N, 2) px of ``radii``
    (N,): within 1.6 radii of each, spots much lighter than what is around them (a top-hat of
    lightness over ``_GLINT_RISE``, itself over ``_GLINT_LIGHT``), the bars of one lamp's
    reflection joined across half a radius, at least ``_GLINT_AREA`` radii squared and no
    wider than 1.2 radii nor taller than one (not a painted line). A spot within 0.3 radii of
    one found on an earlier ball's window is that one.

    Each ball's window is searched as if alone (nothing beyond it is seen, and its spots come
    in the order OpenCV labels them in it), all of them side by side in one picture: an even
    number of pixels apart (the labelling goes by 2 x 2 blocks) and far enough apart that no
    filter reaches from one into the next, each filter leaving out what is beyond a window as
    OpenCV's does beyond a picture's edge (the most lightness erodes nothing, none dilates
    nothing). The windows of one size of filter lie together, each group filtered at once."""
    return _highlight_spots(_highlight_windows(frame, centres, radii))


def _highlight_windows(frame: np.ndarray, centres: np.ndarray, radii: np.ndarray
                       ) -> tuple | None:
    """The windows ``_highlights`` searches, copied side by side into one picture: (their
    boxes with each one's filters, where each starts along the picture, the span of each
    group of one size of filter, the picture, where a window is in it), or None without any."""
    h, w = frame.shape[:2]
    wins = []  # (x0, y0, x1, y1, radius, the top-hat's ellipse, the joining bar)
    for (x, y), r in zip(centres, radii):
        m = int(np.ceil(1.6 * r))
        x0, y0 = max(int(x) - m, 0), max(int(y) - m, 0)
        x1, y1 = min(int(x) + m + 1, w), min(int(y) + m + 1, h)
        if x1 - x0 >= 3 and y1 - y0 >= 3:
            wins.append((x0, y0, x1, y1, float(r), max(3, int(round(0.9 * r)) | 1),
                         max(3, int(0.5 * r))))
    if not wins:
        return None
    order = sorted(range(len(wins)), key=lambda i: wins[i][5:])  # by filter size, stable
    gap = max(max(k // 2 + 1, bar) for *_, k, bar in wins) + 1
    offs = np.zeros(len(wins), int)
    groups: dict[tuple[int, int], list[int]] = {}
    x = 0
    for i in order:
        x0, _, x1, _, _, k, bar = wins[i]
        group = groups.setdefault((k, bar), [x, x])
        offs[i] = x
        x += x1 - x0 + gap
        x += x % 2
        group[1] = x
    canvas = np.zeros((max(y1 - y0 for _, y0, _, y1, *_ in wins), x, 3), np.uint8)
    inside = np.zeros(canvas.shape[:2], bool)
    for (x0, y0, x1, y1, *_), o in zip(wins, offs):
        canvas[:y1 - y0, o:o + x1 - x0] = frame[y0:y1, x0:x1]
        inside[:y1 - y0, o:o + x1 - x0] = True
    return wins, offs, groups, canvas, inside


def _highlight_spots(laid: tuple | None) -> np.ndarray:
    """(K, 2) frame px: the highlights ``_highlights`` finds in the windows laid out by
    ``_highlight_windows``."""
    if laid is None:
        return np.zeros((0, 2))
    wins, offs, groups, canvas, inside = laid
    light = cv2.extractChannel(cv2.cvtColor(canvas, cv2.COLOR_BGR2LAB), 0)
    spot = np.zeros(canvas.shape[:2], np.uint8)
    for (k, bar), (g0, g1) in groups.items():
        lit, on = light[:, g0:g1], inside[:, g0:g1]
        disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
        eroded = cv2.erode(np.where(on, lit, np.uint8(255)), disc)
        eroded[~on] = 0
        top = cv2.subtract(lit, cv2.dilate(eroded, disc))
        found = ((top > _GLINT_RISE) & (lit > _GLINT_LIGHT) & on).astype(np.uint8)
        spot[:, g0:g1] = cv2.dilate(found, np.ones((1, bar), np.uint8))
    spot[~inside] = 0
    _, _, stats, cent = cv2.connectedComponentsWithStats(spot)
    stats, cent = stats[1:], cent[1:]
    # each spot's window, by where the windows start along the picture
    by_x = np.argsort(offs)
    owner = by_x[np.searchsorted(offs[by_x], stats[:, cv2.CC_STAT_LEFT], side="right") - 1]
    r = np.array([win[4] for win in wins])[owner]
    big = ((stats[:, cv2.CC_STAT_AREA] >= _GLINT_AREA * r * r)
           & (stats[:, cv2.CC_STAT_WIDTH] <= 1.2 * r) & (stats[:, cv2.CC_STAT_HEIGHT] <= r))
    j = np.flatnonzero(big)
    j = j[np.argsort(owner[j], kind="stable")]  # window by window, each in its labels' order
    area = stats[j, cv2.CC_STAT_AREA].astype(np.float64)
    o = offs[owner[j]]
    corner = np.array([win[:2] for win in wins], np.float64)[owner[j]]
    # each window's own centroids (its pixels' summed x, exact, less the window's offset),
    # then in the frame
    q = np.c_[(np.rint(cent[j, 0] * area) - o * area) / area, cent[j, 1]] + corner
    out: list[np.ndarray] = []
    for p, rr in zip(q, r[j]):
        if all(np.hypot(*(p - u)) >= 0.3 * rr for u in out):
            out.append(p)
    return np.array(out, np.float64).reshape(-1, 2)


def _glint_place(laid: tuple | None, p: np.ndarray, r: np.ndarray) -> np.ndarray | None:
    """Where the lamps put a ball's highlight, from its silhouette's centre in radii (x, y), as
    the lone balls at ``p`` (N, 2) px of radii ``r`` (N,) show it in their highlight windows
    ``laid`` (``_highlight_windows``): a lone ball's highlight lies within a radius of it, out
    of reach of a cluster's. None unless two thirds of them show one highlight each, at one
    place (their median distance from it under 0.2 radii)."""
    seen = _highlight_spots(laid)
    rel = []
    for pi, ri in zip(p, r):
        k = np.flatnonzero(np.hypot(*(seen - pi).T) < ri)
        if len(k) == 1:
            rel.append((seen[k[0]] - pi) / ri)
    at = np.median(rel, axis=0) if rel else None
    one = (len(rel) >= 2 * len(p) / 3 and at is not None
           and np.median(np.hypot(*(np.asarray(rel) - at).T)) < 0.2)
    return at if one else None
