"""Which pool ball each found ball is: the cue ball, the 8, a solid or a stripe, and its number.

Each ball's visible disc (inside ``INNER`` of its radius, the cloth in it left out) is read
against the frame's own white and the cloth under it, so that lamps tinting everything are
taken out: the white is the less chromatic half of the balls' brightest pixels below the
highlights (the cue ball, the stripes' white, the numbers' circles; a set's white may be cream),
and a pixel's tint is taken as the white's scaled by its lightness. Per ball:

- ``white_share``: pixels near that white in chroma (and far less chromatic than the ball's own
  colour) and not much darker than it;
- ``dark_share``: pixels far darker than the cloth around with little colour (the 8, which
  mirrors the cloth a little);
- ``colour_share``: pixels away from the white's chroma that are not dark;
- ``hue``: the median a*b* of the pixels away from the white's chroma, taken from the white
  point (dark colours included).

The kinds are then assigned under the set's limits (one cue ball, one 8, at most seven solids
and seven stripes): the cue ball is all white, the 8 dark, a stripe shows more white than a solid
(whose only white is its number's circle). A stripe seen from above can show mostly colour or
mostly white, so its kind's confidence falls as its white share nears the solids'.

Numbers: the colours 1-7 are the solids' and the stripes' bands alike. The set's hues are learnt
from the balls on the table: each ball is assigned a colour (yellow, blue, red, purple, orange,
green, maroon) by linear assignment under at most one solid and one stripe of each colour, from
starting hues in the white-balanced a*b* plane; then the colours' hues are moved to the balls
assigned them and the assignment is made again. A number's confidence is its margin over the
next colour, a colour already held costing what it costs to move its holder on; a number
below ``NUMBER_SURE`` (with the kind's confidence) is left out (``ball`` None), the kind still
given.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import linear_sum_assignment

from tracker.vision.pool_balls import ClothFit, PoolBall

INNER = 0.85  # the disc read, in ball radii
WHITE_CHROMA = 22.0  # the most a white pixel's a*b* stand off the frame's white
KINDS = ("cue", "solid", "eight", "stripe")
COLOURS = (1, 2, 3, 4, 5, 6, 7)

# Starting hues of the colours 1-7 (a*, b* of float Lab, white-balanced) and their lightness
# over the white's: a common tournament set under neutral light. The set on the table moves them.
START_AB = {
    1: (5.0, 60.0),  # yellow
    2: (10.0, -45.0),  # blue
    3: (55.0, 35.0),  # red
    4: (30.0, -30.0),  # purple
    5: (40.0, 60.0),  # orange
    6: (-40.0, 15.0),  # green
    7: (30.0, 15.0),  # maroon
}
START_L = {1: 0.8, 2: 0.35, 3: 0.5, 4: 0.35, 5: 0.65, 6: 0.4, 7: 0.3}


def white_point(lab: np.ndarray, discs: list[np.ndarray]) -> np.ndarray:
    """The frame's white (L, a, b): of the brightest tenth of all balls' pixels (the cue ball,
    the stripes' white, the numbers' circles and the highlights), the less chromatic half, the
    very brightest (the lamps' highlights, near neutral whatever the balls' white) left out."""
    if not discs:
        return np.array([100.0, 0.0, 0.0])
    px = np.concatenate([lab[m] for m in discs])
    L = px[:, 0]
    bright = px[(L >= np.percentile(L, 88)) & (L <= np.percentile(L, 98))]
    chroma = np.hypot(bright[:, 1], bright[:, 2])
    return np.median(bright[chroma <= np.median(chroma)], axis=0)


def _neutral_offset(lab: np.ndarray, white: np.ndarray) -> np.ndarray:
    """a*b* (N, 2) of pixels (N, 3) away from the frame's grey of their lightness: the lamps'
    tint grows with lightness, from none at black to the white's at the white."""
    t = np.clip(lab[:, :1] / max(white[0], 1.0), 0.0, 1.2)
    return lab[:, 1:] - t * white[1:]


def ball_features(lab: np.ndarray, cloth_L: float, white: np.ndarray) -> dict:
    """Shares and hue of one ball's disc pixels (N, 3) float Lab, given the cloth's lightness
    under it and the frame's white."""
    L, ab = lab[:, 0], _neutral_offset(lab, white)
    dist = np.hypot(ab[:, 0], ab[:, 1])
    # a black ball mirrors the cloth a little; the hue is read from all coloured pixels, as dark
    # colours (blue, purple, maroon) are dark too
    is_dark = (L < 0.55 * min(cloth_L, white[0])) & (dist < 30)
    hued = dist >= 20
    is_colour = hued & ~is_dark
    # white beside the ball's own colour: far less chroma than it (a pale colour's lit side is
    # not white), and light
    body = float(np.median(dist[hued])) if hued.sum() >= 3 else 0.0
    limit = min(WHITE_CHROMA, 0.6 * body) if body >= 2 * WHITE_CHROMA else WHITE_CHROMA
    is_white = (dist < limit) & (L > 0.7 * white[0])
    hue = np.median(ab[hued], axis=0) if hued.sum() >= 3 else np.zeros(2)
    Lc = float(np.median(L[hued])) / white[0] if hued.sum() >= 3 else 0.0
    return {"white": float(is_white.mean()), "dark": float(is_dark.mean()),
            "colour": float(is_colour.mean()), "hue": hue, "L": Lc,
            "lit": float((L > 0.6 * white[0]).mean())}


def _logistic(x: float) -> float:
    return float(1.0 / (1.0 + np.exp(-x)))


# Each kind's shares of the visible disc (white, colour, dark): mean and spread. A solid's white
# is its number's circle and a highlight; a stripe's band leaves caps of white that turn in and
# out of view; the 8 is dark with a white circle and the lamps' highlight. Set by the
# labelled real frames of bench_pool_balls.py, which therefore measure them on what they saw.
KIND_MEAN = np.array([[0.6, 0.2, 0.02], [0.02, 0.8, 0.1], [0.03, 0.25, 0.6], [0.25, 0.55, 0.08]])
KIND_SPREAD = np.array([[0.15, 0.2, 0.05], [0.04, 0.18, 0.15], [0.06, 0.25, 0.15],
                        [0.15, 0.2, 0.12]])


def kind_scores(f: dict) -> np.ndarray:
    """Costs (4,) of ``KINDS`` for one ball's features: negative log-likelihoods."""
    x = np.array([f["white"], f["colour"], f["dark"]])
    z = (x - KIND_MEAN) / KIND_SPREAD
    return 0.5 * (z * z).sum(axis=1) + np.log(KIND_SPREAD).sum(axis=1)


def assign_kinds(costs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Kinds (N,) as indices into ``KINDS`` under one cue ball, one 8, seven solids and seven
    stripes at most (a ball past those limits keeps its own best kind), and each kind's
    confidence: the logistic of the margin to the next best kind, a full kind costing what it
    costs to move one of its balls on to that ball's next kind."""
    n = len(costs)
    if n == 0:
        return np.zeros(0, int), np.zeros(0)
    limits = (1, 7, 1, 7)
    cols = [k for k, m in enumerate(limits) for _ in range(m)]
    big = np.repeat(costs, limits, axis=1)
    rows, picked = linear_sum_assignment(big)
    kinds = costs.argmin(axis=1)
    kinds[rows] = np.array(cols)[picked]
    return kinds, _margins(costs, kinds, limits)


def _margins(costs: np.ndarray, chosen: np.ndarray, limits) -> np.ndarray:
    """Each row's confidence in its chosen column under the columns' limits: the logistic of
    the margin to its next best column, a full column costing what it costs to move one of its
    rows on to that row's own next column."""
    conf = np.empty(len(costs))
    for i, k in enumerate(chosen):
        alternatives = []
        for k2 in range(costs.shape[1]):
            if k2 == k:
                continue
            extra = 0.0
            holders = [j for j in np.nonzero(chosen == k2)[0] if j != i]
            if len(holders) >= limits[k2]:
                extra = min(np.delete(costs[j], k2).min() - costs[j, k2] for j in holders)
            alternatives.append(costs[i, k2] + extra)
        conf[i] = _logistic(min(alternatives) - costs[i, k]) if alternatives else 1.0
    return conf


def assign_numbers(feats: list[dict], kinds: np.ndarray, rounds: int = 3
                   ) -> tuple[list[int | None], np.ndarray]:
    """Colour numbers 1-7 (or None) and confidences for the solids and stripes, learnt from
    the set: an assignment of colours under one solid and one stripe each, the colours' hues
    moved to their balls', and again."""
    idx = [i for i, k in enumerate(kinds) if KINDS[k] in ("solid", "stripe")]
    out: list[int | None] = [None] * len(feats)
    conf = np.zeros(len(feats))
    if not idx:
        return out, conf
    ab = {c: np.array(START_AB[c], float) for c in COLOURS}
    lt = dict(START_L)
    hues = np.array([feats[i]["hue"] for i in idx])
    light = np.array([feats[i]["L"] for i in idx])
    cost = np.zeros((len(idx), len(COLOURS)))
    for _ in range(rounds):
        for j, c in enumerate(COLOURS):
            d = hues - ab[c]
            cost[:, j] = (np.hypot(d[:, 0], d[:, 1]) / 15.0) ** 2 + ((light - lt[c]) / 0.2) ** 2
        chosen = np.full(len(idx), -1)
        for kind in ("solid", "stripe"):
            rows = [r for r, i in enumerate(idx) if KINDS[kinds[i]] == kind]
            if rows:
                rr, cc = linear_sum_assignment(cost[rows])
                chosen[np.array(rows)[rr]] = cc
        for j, c in enumerate(COLOURS):
            mine = chosen == j
            if mine.any():
                # halfway: one ball may be misread, the start keeps the colours apart
                ab[c] = 0.5 * ab[c] + 0.5 * hues[mine].mean(axis=0)
                lt[c] = 0.5 * lt[c] + 0.5 * light[mine].mean()
    margin = np.zeros(len(idx))
    for kind in ("solid", "stripe"):
        rows = np.array([r for r, i in enumerate(idx) if KINDS[kinds[i]] == kind], int)
        if len(rows):
            margin[rows] = _margins(cost[rows], chosen[rows], [1] * len(COLOURS))
    for r, i in enumerate(idx):
        if chosen[r] >= 0:
            out[i] = COLOURS[chosen[r]]
            conf[i] = margin[r]
    return out, conf


POCKET_LIT = 0.02  # the most of a pocket's disc the lamps light
POCKET_EDGE = 3.0  # how near the region's edge, in ball radii, a pocket's centre can be
NUMBER_SURE = 0.6  # below this a number is not given, only the kind


def identify(fit: ClothFit, xy: np.ndarray, rr: np.ndarray, found: np.ndarray,
             edge_px: np.ndarray | None = None) -> list[PoolBall]:
    """PoolBalls for the centres (N, 2) px, radii (N,) px and detection confidences (N,)
    found in a frame whose cloth model is ``fit``; ``edge_px`` (N,) the centres' distances to
    the table region's edge, where known. A dark disc near the edge, unlit or nearer it than
    half a radius, is a pocket and is left out (the 8 shows the lamps' highlight)."""
    h, w = fit.lab.shape[:2]
    discs = []
    for (x, y), r in zip(xy, rr):
        n = int(np.ceil(r))
        x0, x1 = max(int(x) - n, 0), min(int(x) + n + 1, w)
        y0, y1 = max(int(y) - n, 0), min(int(y) + n + 1, h)
        yy, xx = np.mgrid[y0:y1, x0:x1]
        m = np.zeros((h, w), bool)
        m[y0:y1, x0:x1] = (xx - x) ** 2 + (yy - y) ** 2 <= (INNER * r) ** 2
        # the cloth a disc takes in where the radius is overestimated is not the ball's colour
        ball = m & (fit.score >= 1.0)
        discs.append(ball if ball.sum() >= max(6, 0.3 * m.sum()) else m)
    white = white_point(fit.lab, discs)
    feats = [ball_features(fit.lab[m], float(fit.cloth_lab[..., 0][m].mean()), white)
             for m in discs]
    if edge_px is not None:
        # a ball's centre is well inside the region, even in a pocket's jaws
        keep = [not (f["dark"] > 0.5 and e < POCKET_EDGE * r
                     and (f["lit"] < POCKET_LIT or e < 0.5 * r))
                for f, e, r in zip(feats, edge_px, rr)]
        feats = [f for f, k in zip(feats, keep) if k]
        xy, rr, found = xy[keep], rr[keep], found[keep]
    costs = np.array([kind_scores(f) for f in feats]).reshape(-1, len(KINDS))
    kinds, kconf = assign_kinds(costs)
    numbers, nconf = assign_numbers(feats, kinds)
    balls = []
    for i, f in enumerate(feats):
        kind = KINDS[kinds[i]]
        ball, bconf = None, 0.0
        if kind == "cue":
            ball, bconf = "cue", float(kconf[i])
        elif kind == "eight":
            ball, bconf = "8", float(kconf[i])
        elif numbers[i] is not None:
            p = float(kconf[i] * nconf[i])
            if p >= NUMBER_SURE:
                ball, bconf = str(numbers[i] + (8 if kind == "stripe" else 0)), p
        balls.append(PoolBall((float(xy[i, 0]), float(xy[i, 1])), float(rr[i]), kind,
                              float(kconf[i]), ball, bconf, float(found[i]), f["white"],
                              f["colour"]))
    return balls
