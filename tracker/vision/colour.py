"""Ball colour classification: white, red, yellow, green, brown, blue, pink, black.

Each ball's body colour (``Detections.lab``: OpenCV 8-bit Lab of the ball without its specular
highlight) becomes three features: lightness relative to the cloth's, chroma and hue angle in the
a*b* plane. Each class is a Gaussian over these features (the hue's spread growing as the chroma
falls). Red, pink and brown sit close in hue; they are kept apart by hue (pink is bluer, brown
yellower than red), by chroma and by lightness relative to the cloth, which removes the camera's
exposure; the exposure and the white balance left are measured on the reds of each frame.

The class means start from a prior table fitted to broadcast footage and are learnt from the
footage itself. The first frame is fitted as a whole: the balls are assigned under the game's
counts, a ball on a colour's spot counting towards that colour, the class means re-estimated from
them and the balls assigned again; then each class seen takes its balls' colour as its mean, so
the prior only has to get the classes' order right. From then on each frame's balls pull the
means slowly, within ``max_drift`` spreads of what the first frame taught.

A ball on a colour's spot is likely that colour (the colours start there and are re-spotted
there). A ball is likely still near where a ball of its class was last seen, carried on at that
ball's last speed (a red's from the nearest red of the frame before). A moving white smears over
the cloth and takes on its colour, so the white's model also covers its colour mixed with the
cloth's.

The game's constraints (one white, at most one of each colour, at most 15 reds) are met by a
linear assignment on the classes' negative log-likelihoods, with a "not a ball" slot per
candidate for hands, chalk and anything else that passed detection.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy.optimize import linear_sum_assignment

from calibration.specs import BALL_CLASSES, SNOOKER, SnookerTableSpec
from tracker.vision.detect import ClothModel, Detections, median_rows

# Prior class models over (lightness / cloth lightness, a* - 128, b* - 128): mean and standard
# deviation, from broadcast footage and rendered frames of green and blue cloths.
PRIOR_MEAN = {
    "white": (1.65, 30.0, 114.0),
    "red": (0.6, 55.0, 40.0),
    "yellow": (1.75, 85.0, 100.0),
    "green": (0.85, 50.0, 145.0),
    "brown": (0.68, 38.0, 80.0),
    "blue": (0.65, 36.0, 268.0),
    "pink": (1.0, 40.0, 32.0),
    "black": (0.14, 15.0, 145.0),
}
# The white's hue is sure where it shows: broadcast whites are warm (chroma up to ~50, hue
# 107-123), yellows more saturated and nearer orange (chroma 80-90, hue 94-104). A far black
# takes on the cloth's green (chroma up to ~35); its darkness, not its hue, tells it from green.
PRIOR_STD = {
    "white": (0.4, 14.0, 14.0),
    "red": (0.25, 16.0, 8.0),
    "yellow": (0.4, 14.0, 8.0),
    "green": (0.2, 15.0, 12.0),
    "brown": (0.3, 12.0, 20.0),
    "blue": (0.3, 14.0, 15.0),
    "pink": (0.3, 14.0, 15.0),
    "black": (0.12, 10.0, 90.0),
}
# Classes whose lightness and chroma follow the exposure (white and yellow are near the
# sensor's top), and the warm classes whose hue follows the footage's white balance on red.
_EXPOSED = np.flatnonzero([c not in ("white", "yellow") for c in BALL_CLASSES])
_WARM = np.flatnonzero([c in ("red", "pink", "brown") for c in BALL_CLASSES])
_RED = BALL_CLASSES.index("red")
_LIGHTEST = np.flatnonzero([c in ("white", "yellow") for c in BALL_CLASSES])
_SINGLE = np.array([c != "red" for c in BALL_CLASSES])
# Hue noise (degrees) of a colour of chroma 1: a* and b* are each good to ~3 units.
_HUE_NOISE = 170.0
# Shares of the cloth's colour in a blurred ball's body colour, and the classes that show it:
# the white and the pink, lighter than the cloth, turn to its colour where the others mostly
# darken (letting them blur too would make a blurred red a brown). A pink struck away fast
# otherwise looks most like a blurred white, and takes the white's name from the white.
_BLUR_SHARES = np.array([0.1, 0.2, 0.3, 0.4, 0.5, 0.6])
_BLURS = np.flatnonzero([c in ("white", "pink") for c in BALL_CLASSES])


def features(lab: np.ndarray, cloth_lightness: float) -> np.ndarray:
    """(N, 3) body Lab (OpenCV 8-bit) -> (N, 3) features: lightness over the cloth's, chroma
    and hue angle (degrees, 0..360) in the a*b* plane."""
    lab = np.asarray(lab, np.float64).reshape(-1, 3)
    a, b = lab[:, 1] - 128, lab[:, 2] - 128
    return np.column_stack([lab[:, 0] / max(cloth_lightness, 1.0), np.hypot(a, b),
                            np.degrees(np.arctan2(b, a)) % 360])


def _hue_diff(h: np.ndarray, h0: np.ndarray) -> np.ndarray:
    return (h - h0 + 180.0) % 360.0 - 180.0


class _Likelihood:
    """(N, K) negative log-likelihoods (up to a constant) of balls ``feats`` (N, 3) under
    classes of spreads ``sd`` (K, 3), for any class means (K, 3). The hue of a weakly coloured
    ball is uncertain: its spread grows as 1 / chroma. What depends on the balls and the
    spreads alone (the hue spreads, the normalisers) is worked out once: a frame's balls are
    costed under several means."""

    def __init__(self, feats: np.ndarray, sd: np.ndarray):
        self.l, self.c, self.h = feats[:, 0:1], feats[:, 1:2], feats[:, 2:3]
        self.sd_l, self.sd_c = sd[:, 0], sd[:, 1]
        self.sd_h = np.sqrt(sd[None, :, 2] ** 2
                            + (_HUE_NOISE / np.maximum(feats[:, None, 1], 1)) ** 2)
        self.norm_lc, self.norm_h = np.log(self.sd_l * self.sd_c), np.log(self.sd_h)

    def z2(self, m: np.ndarray) -> np.ndarray:
        """(N, K) squared distance of each ball from each class mean ``m`` (K, 3), in
        standard deviations over the three features."""
        z_l = (self.l - m[:, 0]) / self.sd_l
        if m.shape[0] == len(BALL_CLASSES):
            # the white and the yellow are the lightest balls: lighter than their means they
            # are no less themselves (a dark cloth or dimmed lamps raise them over the cloth)
            z_l[:, _LIGHTEST] = np.minimum(z_l[:, _LIGHTEST], 0.0)
        z_c = (self.c - m[:, 1]) / self.sd_c
        z_h = _hue_diff(self.h, m[:, 2]) / self.sd_h
        return z_l**2 + z_c**2 + z_h**2

    def __call__(self, m: np.ndarray) -> np.ndarray:
        return 0.5 * self.z2(m) + self.norm_lc + self.norm_h


def cloth_lab(cloth: ClothModel) -> np.ndarray:
    """(3,) the cloth's OpenCV 8-bit Lab."""
    return cloth.lab()


def cloth_lightness(cloth: ClothModel) -> float:
    """The cloth's OpenCV 8-bit Lab lightness."""
    return float(cloth_lab(cloth)[0])


def blurred(means: np.ndarray, cloth: np.ndarray, share: float | np.ndarray) -> np.ndarray:
    """(K, 3) class means in features -> the body colours of those balls with ``share`` of
    the cloth's colour (features (3,)) mixed in, as motion blur mixes them: the mixing is
    linear in lightness, a* and b*. For S shares, (S * K, 3): every mean at the first share,
    then at the second, and so on."""
    s = np.asarray(share, float).reshape(-1, 1, 1)
    return _Blur(cloth, s)(means)


def _ab(f: np.ndarray) -> np.ndarray:
    """(..., 3) features -> (..., 3) lightness, a* and b*."""
    h = np.radians(f[..., 2])
    out = np.empty(f.shape)
    out[..., 0], out[..., 1], out[..., 2] = f[..., 0], f[..., 1] * np.cos(h), f[..., 1] * np.sin(h)
    return out


def _features(lab: np.ndarray) -> np.ndarray:
    """(K, 3) lightness, a* and b* -> (K, 3) features."""
    out = np.empty(lab.shape)
    out[:, 0], out[:, 1] = lab[:, 0], np.hypot(lab[:, 1], lab[:, 2])
    out[:, 2] = np.degrees(np.arctan2(lab[:, 2], lab[:, 1])) % 360
    return out


class _Blur:
    """:func:`blurred` over one cloth (features (3,)) at shares ``s`` (S, 1, 1), for any
    means: the cloth's part is mixed once."""

    def __init__(self, cloth: np.ndarray, s: np.ndarray):
        self.keep, self.cloth = 1 - s, s * _ab(np.asarray(cloth, float))

    def __call__(self, means: np.ndarray) -> np.ndarray:
        return _features((self.keep * _ab(np.asarray(means, float)) + self.cloth).reshape(-1, 3))


def _with_blur(sharp: np.ndarray, blur: np.ndarray) -> np.ndarray:
    """(N, 8) class costs ``sharp`` with the blurring classes' (N, B) ``blur`` where cheaper."""
    out = sharp.copy()
    out[:, _BLURS] = np.minimum(out[:, _BLURS], blur)
    return out


class _Costs:
    """(N, 8) class costs of balls ``feats`` (N, 3) under any class means (8, 3), as
    :meth:`ColourClassifier.cost` gives them for spreads ``sd`` (8, 3): given the cloth's
    features ``cloth`` (3,), the blurring classes may also be blurred over the cloth, at
    ``blur_cost`` per unit share of cloth."""

    def __init__(self, feats: np.ndarray, sd: np.ndarray, blur_cost: float,
                 cloth: np.ndarray | None = None):
        self.n = len(feats)
        self.sharp = _Likelihood(feats, sd)
        self.cloth = cloth
        if cloth is not None:
            # each blurring class at every share at once: (S * B) pseudo-classes
            self.blurred = _Blur(cloth, _BLUR_SHARES.reshape(-1, 1, 1))
            self.blurs = _Likelihood(feats, np.tile(sd[_BLURS], (len(_BLUR_SHARES), 1)))
            self.share_cost = blur_cost * np.repeat(_BLUR_SHARES, len(_BLURS))

    def blur(self, m: np.ndarray) -> np.ndarray:
        """(N, B) cost of each blurring class (means ``m`` (8, 3)) as its likeliest blur over
        the cloth."""
        c = self.blurs(self.blurred(m[_BLURS])) + self.share_cost
        return c.reshape(self.n, len(_BLUR_SHARES), -1).min(1)

    def __call__(self, m: np.ndarray) -> np.ndarray:
        sharp = self.sharp(m)
        return sharp if self.cloth is None else _with_blur(sharp, self.blur(m))


def max_counts(table: SnookerTableSpec = SNOOKER) -> np.ndarray:
    """(8,) most balls of each class of ``BALL_CLASSES`` on the table."""
    return np.array([table.reds if c == "red" else 1 for c in BALL_CLASSES])


def assign(cost: np.ndarray, counts: np.ndarray, reject_cost: float | np.ndarray
           ) -> np.ndarray:
    """Classes for N candidates under per-class limits.

    cost: (N, K) negative log-likelihoods; counts: (K,) most candidates per class;
    reject_cost: scalar or (N,) cost of calling a candidate "not a ball".
    Returns (N,) class index, -1 for rejected candidates; minimises the total cost."""
    cost = np.asarray(cost, np.float64)
    n, k = cost.shape
    if n == 0:
        return np.zeros(0, int)
    return _Slots(n, k, counts, reject_cost)(cost)


class _Slots:
    """:func:`assign` for N candidates and K classes under fixed ``counts`` and
    ``reject_cost``, for any (N, K) costs: the slots (a column per ball a class may have, a
    "not a ball" column per candidate) are laid out once for a frame's rounds."""

    def __init__(self, n: int, k: int, counts: np.ndarray, reject_cost: float | np.ndarray):
        counts = np.minimum(np.asarray(counts, int), n)
        self.cols = np.repeat(np.arange(k), counts)
        rej = np.broadcast_to(np.asarray(reject_cost, np.float64), (n,))
        self.reject = np.where(np.eye(n, dtype=bool), rej[:, None], 1e9)
        self.classes = np.concatenate([self.cols, np.full(n, -1)])  # each column's class

    def __call__(self, cost: np.ndarray) -> np.ndarray:
        """(N,) class index, -1 for rejected candidates."""
        big = np.concatenate([cost[:, self.cols], self.reject], axis=1)
        # more columns than candidates: every candidate gets one, in order
        _, picked = linear_sum_assignment(big)
        return self.classes[picked]


@dataclass
class ColourClassifier:
    """Classifies the balls of successive frames; its class means are learnt from the footage.

    prior_weight: pseudo-count of the carried-over mean when a frame's balls re-estimate it.
    adapt_rate: share of the class means carried over from one frame to the next that is
        replaced by the frame's own estimate.
    reject_sigma: Mahalanobis distance beyond which a candidate is cheaper as "not a ball".
    max_drift: how many standard deviations the carried-over means may move from the ones the
        first frame taught.
    learn_reach: how many standard deviations the first frame may move a class mean.
    teach_margin: how much more than its best class (negative log-likelihood) the class a
        ball is called may cost for the ball to teach that class's colour; one costing more
        was called it for want of a better (white fingers beside a hidden yellow, the white
        taken) and teaches nothing.
    teach_reach: after the first frame, how many standard deviations (over the three
        features) from its class's mean a white or colour may be and still teach it: a ball
        half hidden by a sleeve or the cue shows their colour mixed with its own, frame after
        frame, and would carry its class's one ball's mean away (the reds' mean is many
        balls').
    spot_bonus: what a ball on a colour's spot being that colour is worth (negative
        log-likelihood, falling off over a ball radius): the colours start on their spots and
        come back to them when potted.
    stay_bonus: what a ball being the class last seen where it is is worth (falling off over
        two ball radii).
    memory_frames: how many frames a class's last sighting is remembered.
    blur_cost: cost of a white or a pink blurred over the cloth, per unit share of the
        cloth's colour.
    """

    table: SnookerTableSpec = SNOOKER
    prior_weight: float = 3.0
    adapt_rate: float = 0.1
    reject_sigma: float = 5.0
    max_drift: float = 2.0
    learn_reach: float = 3.0
    teach_margin: float = 4.0
    teach_reach: float = 2.0
    spot_bonus: float = 4.0
    stay_bonus: float = 3.0
    memory_frames: int = 15
    blur_cost: float = 5.0
    means: np.ndarray = field(default=None)  # (8, 3)
    stds: np.ndarray = field(default=None)  # (8, 3)

    def __post_init__(self):
        if self.means is None:
            self.means = np.array([PRIOR_MEAN[c] for c in BALL_CLASSES], float)
        if self.stds is None:
            self.stds = np.array([PRIOR_STD[c] for c in BALL_CLASSES], float)
        self.means = np.array(self.means, float)
        self._learnt = self.means.copy()
        self._frames = 0
        # class -> where its balls were last seen ((M, 2) table mm), on which frame, and their
        # speeds ((M, 2) mm per frame)
        self._seen: dict[int, tuple[np.ndarray, int, np.ndarray]] = {}

    def cost(self, feats: np.ndarray, means: np.ndarray | None = None,
             stds: np.ndarray | None = None, cloth: np.ndarray | None = None) -> np.ndarray:
        """(N, 3) features -> (N, 8) negative log-likelihood of each class (up to a constant).
        The hue of a weakly coloured ball is uncertain: its spread grows as 1 / chroma. Given
        the cloth's features ``cloth`` (3,), the white and the pink may also be blurred over
        the cloth, at ``blur_cost`` per unit share of cloth."""
        m = self.means if means is None else means
        sd = self.stds if stds is None else stds
        return _Costs(feats, sd, self.blur_cost, cloth)(m)

    def _teaching(self, f: np.ndarray, cls: np.ndarray, means: np.ndarray, bonus: np.ndarray,
                  cost: np.ndarray | None = None, sharp: _Likelihood | None = None
                  ) -> np.ndarray:
        """``cls`` (N,) with -1 for the balls whose class under ``means`` (8, 3), less its
        ``bonus`` (N, 8), costs more than ``teach_margin`` over their best class: called that
        class for want of a better, they say nothing of its colour. ``cost``: ``cost(f,
        means)`` when already known; ``sharp``: the balls' ``_Likelihood`` when already made."""
        c = (self.cost(f, means) if cost is None else cost) - bonus
        own = c[np.arange(len(f)), np.maximum(cls, 0)]
        ok = (cls >= 0) & (own - c.min(1) <= self.teach_margin)
        if self._frames > 0:
            k = np.maximum(cls, 0)
            sharp = _Likelihood(f, self.stds) if sharp is None else sharp
            far = sharp.z2(means)[np.arange(len(f)), k] > self.teach_reach**2
            ok &= ~(_SINGLE[k] & far)
        return np.where(ok, cls, -1)

    def classify(self, detections: Detections, cloth: ClothModel) -> Detections:
        """Detections with ``lab`` -> the same with ``cls`` and ``confidence`` set; candidates
        called "not a ball" are dropped."""
        n = len(detections)
        if n == 0:
            return detections
        if detections.lab is None:
            raise ValueError("classify needs Detections.lab (the balls' body colours)")
        lab = cloth_lab(cloth)
        f = features(detections.lab, lab[0])
        f = np.where(np.isfinite(f), f, 0.0)
        counts = max_counts(self.table)
        # a weak detection is cheaper to reject
        sure = np.minimum(np.maximum(detections.confidence, 0), 1)
        reject = 0.5 * self.reject_sigma**2 + np.log(self.stds).sum(-1).min() - 2.0 * (1 - sure)
        if self._frames == 0:
            # the first frame: the prior, helped by the spots, tells which ball is which; each
            # class seen then takes its balls' colour
            spots = self._on_spot(detections)
            cls, means, c = self._settle(f, counts, reject, self.means, spots, spots)
            ball = cls >= 0
            if not ball.all() and ball.any():
                # what the fit calls not a ball (fingers by a colour) has no say in it: while
                # it was one of the balls it may have pushed a ball into another class
                _, means, _ = self._settle(f[ball], counts, reject[ball], self.means,
                                           spots[ball], spots[ball])
                c = self.cost(f, means) - spots
                cls = assign(c, counts, reject)
            self._learnt = means = self._learn(f, self._teaching(f, cls, self.means, spots),
                                               means)
        else:
            spots = self._on_spot(detections)
            cls, means, c = self._settle(f, counts, reject, self.means,
                                         self._stayed(detections) + spots, spots,
                                         features(lab, lab[0])[0])
        # confidence: posterior of the assigned class among all classes, times detection's
        post = np.exp(-(c - c.min(1, keepdims=True)))
        post /= post.sum(1, keepdims=True)
        keep = cls >= 0
        conf = np.where(keep, post[np.arange(n), np.maximum(cls, 0)], 0.0) * sure
        self._remember(detections, cls)
        # only classes seen on this frame learn from it: a frame's exposure alone, applied
        # frame after frame, would carry the absent classes away
        seen = np.zeros((len(BALL_CLASSES), 1), bool)
        seen[cls[keep]] = True
        rate = 1.0 if self._frames == 0 else self.adapt_rate
        self.means = self.means + rate * seen * (means - self.means)
        # frames add up: the carried-over model stays within ``max_drift`` spreads of the
        # first frame's
        lim = self.max_drift * self.stds
        self.means = np.minimum(np.maximum(self.means, self._learnt - lim), self._learnt + lim)
        self._frames += 1
        return detections.replace(cls=cls, confidence=conf)[keep]

    def _settle(self, f: np.ndarray, counts: np.ndarray, reject: np.ndarray, start: np.ndarray,
                bonus: np.ndarray, spots: np.ndarray, cloth: np.ndarray | None = None):
        """One frame's balls ``f`` (N, 3) assigned and the class means ``start`` (8, 3)
        re-estimated from them, three times over -> (cls (N,), means (8, 3), cost (N, 8)).
        ``bonus`` (N, 8) is taken off the costs, of which ``spots`` (N, 8) also counts for
        what a ball may teach (a class it is only for having been it a frame before does
        not make it that class's colour); ``cloth`` as in :meth:`cost`. Blurred balls are
        classified but teach nothing."""
        # the costs and the assignment under each set of means met (the rounds often leave
        # some classes, or all, where they were)
        known: dict[bytes, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
        blur: dict[bytes, np.ndarray] = {}
        cost = _Costs(f, self.stds, self.blur_cost, cloth)
        slots = _Slots(len(f), len(BALL_CLASSES), counts, reject)

        def costs(means: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
            """(sharp cost, cost with the blur, the classes that assigns) under ``means``."""
            key = means.tobytes()
            if key not in known:
                sharp = full = cost.sharp(means)
                if cloth is not None:
                    key_b = means[_BLURS].tobytes()
                    if key_b not in blur:
                        blur[key_b] = cost.blur(means)
                    full = _with_blur(sharp, blur[key_b])
                known[key] = sharp, full, slots(full - bonus)
            return known[key]

        balls = np.arange(len(f))
        means = start.copy()
        _, _, cls = costs(means)
        for _ in range(3):
            means = self._expose(f, cls, means)
            sharp, full, cls = costs(means)
            clear = sharp <= full + 1e-9
            taught = self._teaching(f, np.where(clear[balls, cls], cls, -1), means, spots,
                                    sharp, cost.sharp)
            means = self._reestimate(f, taught, means)
            _, full, cls = costs(means)
        return cls, means, full - bonus

    def _learn(self, f: np.ndarray, cls: np.ndarray, means: np.ndarray) -> np.ndarray:
        """(8, 3) class means: those of the classes with balls in ``cls`` (N,) moved onto the
        median colour of their balls ``f`` (N, 3), at most ``learn_reach`` spreads, the others
        ``means`` (8, 3)."""
        step = np.zeros_like(means)
        for k in range(len(BALL_CLASSES)):
            sel = f[cls == k]
            if len(sel):
                step[k, :2] = np.median(sel[:, :2], 0) - means[k, :2]
                step[k, 2] = np.median(_hue_diff(sel[:, 2], means[k, 2]))
        lim = self.learn_reach * self.stds
        out = means + np.clip(step, -lim, lim)
        out[:, 2] %= 360.0
        return out

    def _on_spot(self, detections: Detections) -> np.ndarray:
        """(N, 8) bonus for each candidate being the colour whose spot it sits on: up to
        ``spot_bonus``, falling off over a ball radius (none without table positions)."""
        out = np.zeros((len(detections), len(BALL_CLASSES)))
        if detections.xy_mm is None:
            return out
        r = self.table.ball_radius_mm
        spots = self.table.spots_mm
        ks = [k for k, c in enumerate(BALL_CLASSES) if c in spots]
        at = np.array([spots[BALL_CLASSES[k]] for k in ks], float).reshape(-1, 2)
        d = np.hypot(*(detections.xy_mm[:, None] - at[None]).transpose(2, 0, 1))  # (N, S)
        out[:, ks] = self.spot_bonus * np.exp(-0.5 * (d / r) ** 2)
        return np.where(np.isfinite(out), out, 0.0)

    def _stayed(self, detections: Detections) -> np.ndarray:
        """(N, 8) bonus for each candidate being a class seen where it is within the last
        ``memory_frames`` frames (each ball carried on at its last speed):
        up to ``stay_bonus``, falling off over two ball radii (none without table positions)."""
        out = np.zeros((len(detections), len(BALL_CLASSES)))
        if detections.xy_mm is None:
            return out
        # every remembered ball at once, each class's a run of columns
        ks, at = [], []
        for k, (xy, frame, v) in self._seen.items():
            age = self._frames - frame
            if age <= self.memory_frames:
                ks.append(k)
                at.append(xy + age * v)
        if not ks:
            return out
        starts = np.cumsum([0] + [len(xy) for xy in at[:-1]])
        d = np.hypot(*(detections.xy_mm[:, None] - np.concatenate(at)[None]).transpose(2, 0, 1))
        d = np.minimum.reduceat(np.where(np.isfinite(d), d, np.inf), starts, axis=1)
        out[:, ks] = self.stay_bonus * np.exp(-0.5 * (d / (2 * self.table.ball_radius_mm)) ** 2)
        return out

    def _remember(self, detections: Detections, cls: np.ndarray) -> None:
        """Where this frame's classes are, and how fast each of their balls goes, for
        :meth:`_stayed` on the next frames. A single ball's speed is its step from the last
        frame; a red's, its step from the red of the last frame nearest to it, within two
        ball diameters (reds are not told apart otherwise)."""
        if detections.xy_mm is None:
            return
        single = max_counts(self.table) == 1
        reach = 4 * self.table.ball_radius_mm
        for k in range(len(BALL_CLASSES)):
            xy = detections.xy_mm[cls == k]
            if not len(xy):
                continue
            v = np.zeros((len(xy), 2))
            last, frame, _ = self._seen.get(k, (None, None, None))
            if last is not None and frame == self._frames - 1:
                if single[k] and len(xy) == 1:
                    v = xy - last
                elif not single[k] and len(last):
                    d = np.hypot(*(xy[:, None] - last[None]).transpose(2, 0, 1))
                    d = np.where(np.isfinite(d), d, np.inf)
                    rows, cols = linear_sum_assignment(np.where(d < reach, d, 1e9))
                    ok = d[rows, cols] < reach
                    v[rows[ok]] = xy[rows[ok]] - last[cols[ok]]
            self._seen[k] = (xy, self._frames, np.where(np.isfinite(v), v, 0.0))

    def _expose(self, f: np.ndarray, cls: np.ndarray, means: np.ndarray) -> np.ndarray:
        """Class lightness means scaled by the frame's exposure, measured on the reds (the one
        class with many balls) against their mean: the other classes keep their lightness
        relative to red."""
        sel = f[cls == _RED]
        if len(sel) < 2:
            return means
        e = min(max(float(median_rows(sel[:, 0]) / means[_RED, 0]), 0.4), 2.5)
        shift = min(max(float(median_rows(_hue_diff(sel[:, 2], means[_RED, 2]))), -10.0), 10.0)
        out = means.copy()
        out[_EXPOSED, 0] *= e
        out[_EXPOSED, 1] *= min(1.0, e) ** 0.7
        out[_WARM, 2] += shift
        return out

    def _reestimate(self, f: np.ndarray, cls: np.ndarray, start: np.ndarray) -> np.ndarray:
        """Class means pulled to their assigned features (after the first frame, a class of
        many balls to their median); the carried-over mean counts ``prior_weight`` balls
        (reds move more than single colours)."""
        out = start.copy()
        w = self.prior_weight
        ball = np.flatnonzero(cls >= 0)
        counts = np.bincount(cls[ball], minlength=len(BALL_CLASSES))
        # a class of one ball (each colour) at once: the sum of its balls is that ball
        one = np.flatnonzero(counts == 1)
        if len(one):
            at = np.empty(len(BALL_CLASSES), int)
            at[cls[ball]] = ball
            sel = f[at[one]]
            out[one, :2] = (w * start[one, :2] + sel[:, :2]) / (w + 1)
            out[one, 2] = start[one, 2] + _hue_diff(sel[:, 2], start[one, 2]) / (w + 1)
        # after the first frame, a class of many balls (the reds) by their median, as
        # :meth:`_expose` measures the frame's exposure and white balance on them: were it
        # their mean, a frame's reds of uneven lightness would read as a change of exposure on
        # every frame, and carry the other classes away with it frame by frame
        middle = median_rows if self._frames > 0 else (lambda x: x.mean(0))
        for k in np.flatnonzero(counts > 1):
            sel = f[cls == k]
            n = len(sel)
            out[k, :2] = (w * start[k, :2] + n * middle(sel[:, :2])) / (w + n)
            out[k, 2] = start[k, 2] + n * middle(_hue_diff(sel[:, 2], start[k, 2])) / (w + n)
        # a frame's balls move a class at most 1.5 standard deviations from where it started
        lim = 1.5 * self.stds
        out = np.minimum(np.maximum(out, start - lim), start + lim)
        out[:, 2] %= 360.0
        return out
