"""Multi-ball tracking on the table, in table millimetres.

Detections (ball centres in table mm, a colour class and a confidence) come in one frame at a
time; :class:`BallTracker` keeps one Kalman filter per ball and returns a :class:`TableState`
for every frame: each ball's id, class, position, velocity and whether it was measured
(``seen``), coasted (``predicted``), ``potted`` (with the pocket) or ``off_table``.

Identity. Colours and the white have fixed ids (``white``, ``yellow`` ... ``black``); reds are
numbered ``red_01`` .. ``red_15`` when first confirmed (in rack order: by row, then across) and
keep their number for the whole clip: a red never appears from nowhere, so a red that turns up
where no track expected it is a lost red (the likeliest one; one missed only a moment ago just
within its gate), and a new number is given only while fewer reds than racked are known;
a ball followed as a colour that turns out to be a red takes a lost red's number the same way.

Association, per frame:
0. detections nearer each other than ``merge_frac`` of a ball diameter are one ball (two balls
   cannot overlap) and are merged;
1. every active track is predicted to the frame's time;
2. gated Hungarian assignment of detections to tracks, the cost being the negative log
   likelihood of the detection under the track's predicted measurement (Mahalanobis distance
   plus log-determinant) plus the class evidence (the detection's class and confidence against
   the track's ball class);
3. a wider second pass for tracks seen a moment ago and still unmatched: a ball struck by the
   cue, or deflected by a collision or a cushion, leaves its gate in one frame. How far each
   may have gone follows the physics: only the white is struck by the cue; any other ball at
   rest moves only when a moving ball came within reach of it, and no faster than that ball;
4. detections still unexplained feed tentative candidates; a candidate seen ``confirm_hits``
   times on one straight path within ``confirm_window`` frames becomes a ball: a lost ball of
   its class found again, a potted colour re-spotted, the white placed after going in-off, or
   a new ball at the start;
5. class votes (summed confidences) accumulate along each track; a track whose votes come to
   favour another class clearly takes that class's id (a ``relabel`` event), swapping with the
   track that held it when that one looks like the first's class.

Balls leave play: a moving ball that vanishes within reach of a pocket and heading into its fall
circle, or in a pocket's jaws, is ``potted`` there; one that vanishes over a cushion away from
the pockets (only an airborne ball can) is ``off_table``; a resting ball that vanishes as a fast
moving ball reaches it and is deflected by it was struck too fast to be seen, and when it stays
unseen it is potted in the pocket the striker's loss of momentum sent it at; any other vanishing
ball, and one that vanishes while on top of another track (it followed a second detection of
that ball), is hidden (``predicted``): at rest it stays exactly where it was, moving it coasts
(rolling resistance, cushions) and comes to rest. A resting ball other than the white is set
moving only when a moving ball came near it; a detection off its place otherwise is the
detector's error, and a hidden ball is found again on a path that starts where it was left.
A ball leaving play is reported as the class its votes favour; a potted colour comes back only
where the referee spots it: on its own spot, or, that one occupied, on the highest value spot
available.

Broadcast footage: detections carry image noise mapped onto the table through the view
(``TrackerConfig.table_to_image``), so the far end, where a pixel spans several millimetres, is
gated as loosely as it is measured; and a frame that repeats the previous picture (frame-rate
conversion) is no measurement: its time is taken out of the motion's clock.

Events (dicts with ``type``, ``frame``, ``t`` of when it happened, ``ball`` (track id), ``class``),
emitted once certain, which may be a few frames later: ``pot`` (+ ``pocket``; the caller adds
``pocket_px`` from its calibration), ``off_table``, ``respot`` (a potted colour back on the
table: + ``position_mm``, ``spot`` (the spot it is on, or None)), ``white_placed`` (+
``position_mm``, ``in_d``) and ``relabel`` (+ ``was``, the id the ball had). A ``pot`` or
``off_table`` of a ball struck as it vanished from rest, or seen moving only a moment before it
vanished, also names the ball that came by it and when (``struck_by``, ``struck_t``): no path
shows that contact.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import Protocol

import numpy as np
from filterpy.common import Q_discrete_white_noise
from filterpy.kalman import KalmanFilter

from calibration.specs import BALL_CLASSES, COLOURS, SNOOKER, SnookerTableSpec
from tracker.tracking.association import INFEASIBLE, Association, assign
from tracker.tracking.pockets import Pockets

TRACK_STATES = ("seen", "predicted", "potted", "off_table")
_TRACK_STATE_SET = frozenset(TRACK_STATES)
TRACKS_HEADER = ("frame", "t", "track_id", "ball", "x_mm", "y_mm", "x_px", "y_px", "state")
RED = BALL_CLASSES.index("red")
WHITE = BALL_CLASSES.index("white")
N_CLASSES = len(BALL_CLASSES)
# Cost of an assignment outside every gate: larger than any gated cost can be.
_EYE4 = np.eye(4)
_EYE4.setflags(write=False)


class DetectionsMM(Protocol):
    """What the tracker reads from a frame's detections (``tracker.vision.detect.Detections``):
    xy_mm (K, 2) table mm, cls (K,) index into BALL_CLASSES or -1, confidence (K,)."""

    xy_mm: np.ndarray | None
    cls: np.ndarray
    confidence: np.ndarray


@dataclass(frozen=True)
class TrackerConfig:
    """Tracker parameters; every one is checked when the config is built.

    Measurement model: a ball at rest is detected with ``rest_sigma_mm`` noise per axis, a moving
    one with ``moving_sigma_mm`` plus its blur: over a shutter of ``exposure_s`` a ball at speed
    v draws a streak v * exposure_s long whose centre the detector reports, half a streak behind
    the ball at the frame's time, less sure along the streak by ``streak_sigma_fraction`` of its
    length. When ``table_to_image`` (the calibration's 3x3 homography from table mm to image
    px, as 9 numbers row by row) is given, every detection also carries ``detection_sigma_px``
    of noise in the image, mapped onto the table where it is: under a steep broadcast view one
    pixel along the table is several millimetres at the far end.
    """

    rest_sigma_mm: float = 1.0
    moving_sigma_mm: float = 3.0
    exposure_s: float = 0.0
    streak_sigma_fraction: float = 0.1
    # Random walk of a resting ball's estimate (mm per sqrt(s)): lets it follow a nudge while
    # averaging the detection noise over ~1 s.
    rest_walk_mm: float = 0.05
    # White-noise acceleration of a moving ball (mm/s^2): sliding friction (~2 m/s^2), swerve,
    # and the smaller deflections; collisions and cushions are caught by the second pass.
    accel_sigma_mm_s2: float = 3000.0
    # Deceleration of a coasting ball (mm/s^2): rolling resistance mu_roll * g ~ 0.01 * 9810.
    coast_decel_mm_s2: float = 100.0
    # Chi-square (2 dof) gate of the first pass; 16 leaves out 1 in 3000 true detections.
    gate_chi2: float = 16.0
    # A resting ball whose detection is this far (chi-square) from it twice running, or beyond
    # ``launch_chi2`` once, has been set moving.
    restless_chi2: float = 9.0
    launch_chi2: float = 36.0
    # A moving ball this far (chi-square) from its prediction was kicked: its filter restarts.
    kick_chi2: float = 12.0
    # mm/s: the fastest ball (a break-off is ~8 m/s); bounds the second pass's reach.
    max_speed_mm_s: float = 12000.0
    # s: a track missed for at most this long may take a far detection in the second pass.
    launch_window_s: float = 0.1
    # mm: a ball at rest other than the white is set moving only by a moving ball whose path
    # since the last frame came this near it (a ball diameter and some slack).
    kick_reach_mm: float = 80.0
    # Margin on speeds from estimates (factor) and on how far a struck ball can have gone (mm).
    kick_slack: float = 1.5
    kick_slack_mm: float = 30.0
    # What an assignment may cost beyond the gate before leaving the track unmatched is the
    # better explanation (a confident detection of another class costs ~10).
    unmatched_cost: float = 4.0
    # mm/s: uncertainty of the velocity of a ball just set moving.
    launch_speed_sigma_mm_s: float = 700.0
    # Weight of the class evidence in the cost (2: two confident mismatches, as when two balls
    # of different colours would swap tracks, cost more than leaving both unmatched), and the
    # least likelihood a class mismatch gets.
    class_weight: float = 2.0
    class_floor: float = 0.002
    # A resting ball's estimate is re-opened when its recent innovations average more than this.
    rest_shift_mm: float = 1.2
    # A moving ball slower than rest_speed_mm_s for rest_after_s is at rest.
    rest_speed_mm_s: float = 20.0
    rest_after_s: float = 0.2
    # A track whose class votes (confidences, halved every vote_half_life_s so that what it
    # follows now counts) favour another class this many times over, and by at least
    # relabel_votes, takes that class's id.
    relabel_ratio: float = 3.0
    relabel_votes: float = 5.0
    vote_half_life_s: float = 2.0
    # A candidate becomes a ball after confirm_hits detections within confirm_window frames;
    # a moving one after confirm_hits_moving (a chain hopping along a row of the rack, one
    # missed ball after another, looks like a ball moving one spacing a frame).
    confirm_hits: int = 3
    confirm_hits_moving: int = 5
    confirm_window: int = 5
    # A candidate may be this far (mm) from where its velocity puts it, and one seen once may
    # have moved at up to candidate_speed_mm_s; nearer detections are preferred.
    candidate_gate_mm: float = 25.0
    candidate_speed_mm_s: float = 4000.0
    # s: a moving ball unseen this long is decided: potted, off the table or hidden.
    gone_after_s: float = 0.15
    # mm: the fall circle must lie within this much travel of where the ball vanished, and the
    # ball's path must pass within its radius plus pot_margin_mm.
    pot_reach_mm: float = 300.0
    pot_margin_mm: float = 25.0
    # A ball at rest that vanishes as a moving ball reaches it was struck too fast to be seen
    # (a blurred streak): unseen for struck_gone_s it is potted in the pocket it was sent at,
    # the direction being the striker's loss of momentum (equal masses), good to
    # struck_angle_deg. Only a collision seen to deflect the striker counts, and only a ball
    # sent at struck_min_speed_mm_s or more (over a ball diameter a frame at 30 fps: a faint
    # streak); a slower ball that vanishes was hidden.
    struck_gone_s: float = 0.4
    struck_angle_deg: float = 25.0
    struck_min_speed_mm_s: float = 1500.0
    # mm: a ball that vanished away from the pockets and would have been this far past where a
    # cushion stops it by the next frame has left the table (flown over the cushion).
    off_edge_mm: float = 20.0
    # Ball diameters: two tracks whose centres are nearer than this follow one ball (two balls
    # cannot overlap; a blurred ball is often detected twice, at both ends of its streak), and
    # the one that vanishes was the double: it is hidden, never potted or off the table.
    double_frac: float = 0.85
    # Ball diameters: detections nearer each other than this are one ball seen twice.
    merge_frac: float = 0.6
    # s: a ball unseen this long may have been struck while hidden and turn up anywhere.
    lost_after_s: float = 0.5
    # s: the white, moving when it went unseen and seen again this soon, may have turned
    # meanwhile (a kiss while its blob was one with the other ball's, a cushion).
    turn_window_s: float = 0.2
    # mm: largest position uncertainty a coasting ball keeps (std).
    max_sigma_mm: float = 600.0
    # How many reds the frame was racked with (ids red_01 .. red_NN).
    reds: int = 15
    # px: the detector's noise in the image, and the view that maps it onto the table (None:
    # no image noise, the mm sigmas alone).
    detection_sigma_px: float = 1.5
    table_to_image: tuple[float, ...] | None = None
    table: SnookerTableSpec = field(default=SNOOKER)

    def __post_init__(self):
        non_negative = ("exposure_s", "streak_sigma_fraction", "unmatched_cost", "kick_slack_mm",
                        "coast_decel_mm_s2", "class_weight", "rest_after_s", "pot_margin_mm",
                        "off_edge_mm", "detection_sigma_px")
        for f in fields(self):
            v = getattr(self, f.name)
            if f.name == "table_to_image":
                if v is not None:
                    h = np.asarray(v, float)
                    if h.size != 9 or not np.isfinite(h).all() or abs(np.linalg.det(
                            h.reshape(3, 3))) < 1e-12:
                        raise ValueError("TrackerConfig.table_to_image must be 9 finite numbers "
                                         f"of an invertible homography, got {v!r}")
                    object.__setattr__(self, f.name, tuple(float(x) for x in h.ravel()))
                continue
            if f.name == "table":
                if not isinstance(v, SnookerTableSpec):
                    raise TypeError(f"TrackerConfig.table must be a SnookerTableSpec, "
                                    f"got {type(v).__name__}")
                continue
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
                raise ValueError(f"TrackerConfig.{f.name} must be a finite number, got {v!r}")
            if f.name in non_negative:
                if v < 0:
                    raise ValueError(f"TrackerConfig.{f.name} must be >= 0, got {v!r}")
            elif v <= 0:
                raise ValueError(f"TrackerConfig.{f.name} must be > 0, got {v!r}")
        for name in ("confirm_hits", "confirm_hits_moving", "confirm_window", "reds"):
            if not isinstance(getattr(self, name), int) or getattr(self, name) < 1:
                raise ValueError(f"TrackerConfig.{name} must be an integer >= 1, "
                                 f"got {getattr(self, name)!r}")
        if not self.confirm_hits <= min(self.confirm_window, self.confirm_hits_moving):
            raise ValueError(f"TrackerConfig.confirm_hits ({self.confirm_hits}) must not exceed "
                             f"confirm_window ({self.confirm_window}) or confirm_hits_moving "
                             f"({self.confirm_hits_moving})")
        if self.reds > 15:
            raise ValueError(f"TrackerConfig.reds must be at most 15, got {self.reds}")
        if not self.restless_chi2 <= self.gate_chi2 <= self.launch_chi2:
            raise ValueError("TrackerConfig needs restless_chi2 <= gate_chi2 <= launch_chi2, got "
                             f"{self.restless_chi2}, {self.gate_chi2}, {self.launch_chi2}")
        if self.kick_chi2 > self.gate_chi2:
            raise ValueError(f"TrackerConfig.kick_chi2 ({self.kick_chi2}) must not exceed "
                             f"gate_chi2 ({self.gate_chi2})")
        if self.relabel_ratio <= 1:
            raise ValueError(f"TrackerConfig.relabel_ratio must be > 1, got {self.relabel_ratio}")
        if self.class_floor >= 1:
            raise ValueError(f"TrackerConfig.class_floor must be < 1, got {self.class_floor}")


# -- the Kalman model ------------------------------------------------------------------------------
@dataclass(frozen=True)
class MotionMatrices:
    """The model's matrices for one frame interval ``dt`` (s); state [x, y, vx, vy].

    f_moving (4, 4) constant velocity; q_moving (4, 4) discrete white-noise acceleration;
    b (4, 2) how an acceleration (mm/s^2) held over dt moves the state; f_rest (4, 4) keeps the
    position and zeroes the velocity; q_rest (4, 4) a slow random walk of the position.
    """

    dt: float
    f_moving: np.ndarray
    q_moving: np.ndarray
    b: np.ndarray
    f_rest: np.ndarray
    q_rest: np.ndarray


class MotionModel:
    """The per-ball Kalman model, state x = [x_mm, y_mm, vx_mm_s, vy_mm_s] (4,).

    Two regimes share the state: ``moving``, constant velocity with white-noise acceleration
    (and the rolling resistance as a known control input), measured through
    ``h_moving`` (2, 4) = [I, -exposure_s/2 * I] (a blurred ball's centre lags by half its
    streak); and ``rest``, where the velocity is zero by definition, the position a random walk
    of ``rest_walk_mm`` per sqrt(s), measured through ``h_rest`` (2, 4) = [I, 0].
    Matrices are built once per frame interval and shared by every ball.
    """

    def __init__(self, config: TrackerConfig):
        self.config = config
        lag = config.exposure_s / 2
        self.h_rest = np.hstack([np.eye(2), np.zeros((2, 2))])
        self.h_moving = np.hstack([np.eye(2), -lag * np.eye(2)])
        self.r_rest = np.eye(2) * config.rest_sigma_mm ** 2
        # the view's 9 numbers as Python floats: numpy's scalars cost more in each operation
        self._h = config.table_to_image
        self._cache: dict[int, MotionMatrices] = {}

    def r_image(self, xy: np.ndarray) -> np.ndarray:
        """(N, 2) table mm -> (N, 2, 2) covariance (mm^2) of ``detection_sigma_px`` of image
        noise at each point: sigma^2 J^-1 J^-T, J (2, 2) the homography's Jacobian there
        (zeros when no view is given)."""
        xy = np.asarray(xy, float).reshape(-1, 2)
        out = np.zeros((len(xy), 2, 2))
        if self._h is None or not len(xy):
            return out
        h00, h01, h02, h10, h11, h12, h20, h21, h22 = self._h
        x, y = xy[:, 0], xy[:, 1]
        w = x * h20 + y * h21 + h22
        u = x * h00 + y * h01 + h02
        v = x * h10 + y * h11 + h12
        # J = d(u, v)/d(x, y) = (H[:2, :2] w - p[:2] H[2, :2]) / w^2, spelled out: the 2x2
        # inverse in closed form is what makes this cheap enough to call per ball
        w2 = w * w
        a = (h00 * w - u * h20) / w2
        b = (h01 * w - u * h21) / w2
        c = (h10 * w - v * h20) / w2
        d = (h11 * w - v * h21) / w2
        det = a * d - b * c
        ok = np.abs(det) > 1e-12
        # J^-1 = [[d, -b], [-c, a]] / det, so J^-1 J^-T = [[d^2 + b^2, -(cd + ab)],
        # [-(cd + ab), c^2 + a^2]] / det^2
        k = self.config.detection_sigma_px ** 2 / np.where(ok, det * det, 1.0)
        off = -(c * d + a * b) * k
        out[:, 0, 0] = (d * d + b * b) * k
        out[:, 0, 1] = off
        out[:, 1, 0] = off
        out[:, 1, 1] = (c * c + a * a) * k
        if not ok.all():
            out[~ok] = 0.0
        return out

    def sigma_image_mm(self, xy: np.ndarray) -> np.ndarray:
        """(N, 2) table mm -> (N,) the largest std (mm) of the image noise there."""
        r = self.r_image(xy)
        # the larger eigenvalue of a symmetric 2x2 matrix
        half_tr = (r[:, 0, 0] + r[:, 1, 1]) / 2
        half_gap = (r[:, 0, 0] - r[:, 1, 1]) / 2
        return np.sqrt(half_tr + np.sqrt(half_gap * half_gap + r[:, 0, 1] * r[:, 1, 0]))

    def r_rest_at(self, xy: np.ndarray) -> np.ndarray:
        """(2, 2) detection noise of a ball at rest at ``xy`` (2,) table mm."""
        return self.r_rest + self.r_image(xy)[0]

    def r_balls(self, x: np.ndarray, moving: np.ndarray) -> np.ndarray:
        """(N, 2, 2) detection noise of N balls with states ``x`` (N, 4), ``moving`` (N,) bool:
        ``r_moving`` for the moving ones, ``r_rest_at`` for the others, in one pass."""
        c = self.config
        x = np.asarray(x, float).reshape(-1, 4)
        moving = np.asarray(moving, bool).reshape(-1)
        base = np.where(moving, c.moving_sigma_mm ** 2, c.rest_sigma_mm ** 2)
        r = base[:, None, None] * np.eye(2) + self.r_image(x[:, :2])
        if moving.any():
            r[moving] += self._streak(x[moving, 2:])
        return r

    def _streak(self, velocity: np.ndarray) -> np.ndarray:
        """(N, 2, 2) noise along the blur streak of balls moving at ``velocity`` (N, 2) mm/s:
        |v| * exposure_s long."""
        c = self.config
        speed = np.hypot(velocity[:, 0], velocity[:, 1])
        out = np.zeros((len(velocity), 2, 2))
        on = speed > 1e-6 if c.exposure_s > 0 else np.zeros(len(velocity), bool)
        if on.any():
            u = velocity[on] / speed[on, None]
            out[on] = (u[:, :, None] * u[:, None, :]
                       * ((speed[on] * c.exposure_s * c.streak_sigma_fraction) ** 2
                          )[:, None, None])
        return out

    def matrices(self, dt: float) -> MotionMatrices:
        """The matrices for an interval of ``dt`` seconds (cached per microsecond of dt)."""
        key = int(round(dt * 1e6))
        m = self._cache.get(key)
        if m is None:
            if len(self._cache) > 32:  # irregular timestamps: keep the cache bounded
                self._cache.clear()
            c = self.config
            f_moving = np.eye(4)
            f_moving[0, 2] = f_moving[1, 3] = dt
            q_moving = Q_discrete_white_noise(dim=2, dt=dt, var=c.accel_sigma_mm_s2 ** 2,
                                              block_size=2, order_by_dim=False)
            b = np.vstack([np.eye(2) * dt * dt / 2, np.eye(2) * dt])
            f_rest = np.diag([1.0, 1.0, 0.0, 0.0])
            q_rest = np.diag([c.rest_walk_mm ** 2 * dt] * 2 + [0.0, 0.0])
            m = MotionMatrices(dt, f_moving, q_moving, b, f_rest, q_rest)
            for a in (f_moving, q_moving, b, f_rest, q_rest):
                a.setflags(write=False)
            self._cache[key] = m
        return m

    def r_moving(self, velocity: np.ndarray, xy: np.ndarray | None = None) -> np.ndarray:
        """(2, 2) detection noise of a ball moving at ``velocity`` (2,) mm/s (at ``xy`` (2,)
        table mm, for the image noise): isotropic plus more along its streak, |v| * exposure_s
        long."""
        r = np.eye(2) * self.config.moving_sigma_mm ** 2
        if xy is not None:
            r = r + self.r_image(xy)[0]
        return r + self._streak(np.asarray(velocity, float).reshape(1, 2))[0]

    def new_filter(self, xy: np.ndarray, velocity: np.ndarray, pos_sigma: float,
                   speed_sigma: float) -> KalmanFilter:
        kf = KalmanFilter(dim_x=4, dim_z=2)
        kf.x = np.array([xy[0], xy[1], velocity[0], velocity[1]], float)
        kf.P = np.diag([pos_sigma ** 2] * 2 + [speed_sigma ** 2] * 2)
        kf.H = self.h_rest
        kf.R = self.r_rest
        return kf

    @staticmethod
    def predict(x: np.ndarray, p: np.ndarray, f: np.ndarray, q: np.ndarray,
                bu: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """The prediction of N filters at once: states x (N, 4), covariances P (N, 4, 4),
        transitions F (N, 4, 4), process noises Q (N, 4, 4) and control inputs B u (N, 4) (or
        None) -> x = F x + B u, P = F P F^T + Q, what ``KalmanFilter.predict`` computes."""
        x = (f @ x[:, :, None])[:, :, 0]
        if bu is not None:
            x = x + bu
        return x, f @ p @ f.transpose(0, 2, 1) + q

    @staticmethod
    def update(x: np.ndarray, p: np.ndarray, z: np.ndarray, r: np.ndarray, h: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray]:
        """The update of N filters at once: states x (N, 4), covariances P (N, 4, 4) with
        measurements z (N, 2) of noises R (N, 2, 2) through H (N, 2, 4), in Joseph form, what
        ``KalmanFilter.update`` computes (the 2x2 innovation covariances inverted in closed
        form). Returns the new x (N, 4) and P (N, 4, 4)."""
        pht = p @ h.transpose(0, 2, 1)
        s = h @ pht + r
        det = s[:, 0, 0] * s[:, 1, 1] - s[:, 0, 1] * s[:, 1, 0]
        s_inv = np.empty_like(s)
        s_inv[:, 0, 0], s_inv[:, 1, 1] = s[:, 1, 1] / det, s[:, 0, 0] / det
        s_inv[:, 0, 1], s_inv[:, 1, 0] = -s[:, 0, 1] / det, -s[:, 1, 0] / det
        k = pht @ s_inv
        y = z - (h @ x[:, :, None])[:, :, 0]
        x = x + (k @ y[:, :, None])[:, :, 0]
        i_kh = _EYE4 - k @ h
        return x, i_kh @ p @ i_kh.transpose(0, 2, 1) + k @ r @ k.transpose(0, 2, 1)


# -- records ---------------------------------------------------------------------------------------
def _check(name: str, value, shape: tuple, dtype) -> np.ndarray:
    arr = np.asarray(value, dtype=dtype)
    if arr.ndim != len(shape) or any(s is not None and a != s for a, s in zip(arr.shape, shape)):
        want = tuple("N" if s is None else s for s in shape)
        raise ValueError(f"TableState.{name} must have shape {want}, got {arr.shape}")
    return arr


@dataclass(frozen=True)
class TableState:
    """Every ball the tracker knows of at one frame, as parallel arrays over N balls.

    track_ids (N,) str: ``white``, ``red_01`` ..; classes (N,) int index into BALL_CLASSES;
    xy_mm (N, 2) float table mm (NaN when potted or off the table); velocity_mm_s (N, 2);
    state (N,) str, one of ``TRACK_STATES``; pocket (N,) str, the pocket of a potted ball, else
    ``""``. ``events`` are the events that became certain at this frame, each a dict with
    ``type``, ``frame`` and ``t`` of when it happened (which may be a few frames earlier).
    """

    frame: int
    t: float
    track_ids: np.ndarray
    classes: np.ndarray
    xy_mm: np.ndarray
    velocity_mm_s: np.ndarray
    state: np.ndarray
    pocket: np.ndarray
    events: tuple[dict, ...] = ()

    def __post_init__(self):
        ids = _check("track_ids", self.track_ids, (None,), str)
        n = len(ids)
        arrays = {"track_ids": ids,
                  "classes": _check("classes", self.classes, (n,), np.int64),
                  "xy_mm": _check("xy_mm", self.xy_mm, (n, 2), np.float64),
                  "velocity_mm_s": _check("velocity_mm_s", self.velocity_mm_s, (n, 2),
                                          np.float64),
                  "state": _check("state", self.state, (n,), str),
                  "pocket": _check("pocket", self.pocket, (n,), str)}
        if not _TRACK_STATE_SET.issuperset(arrays["state"].tolist()):
            bad = [s for s in arrays["state"] if s not in TRACK_STATES]
            raise ValueError(f"TableState.state must be one of {TRACK_STATES}, got {bad[0]!r}")
        if n and (arrays["classes"].min() < 0 or arrays["classes"].max() >= N_CLASSES):
            raise ValueError("TableState.classes must index BALL_CLASSES")
        for name, arr in arrays.items():
            arr.setflags(write=False)
            object.__setattr__(self, name, arr)
        object.__setattr__(self, "events", tuple(self.events))

    def __len__(self) -> int:
        return len(self.track_ids)

    @property
    def class_names(self) -> list[str]:
        return [BALL_CLASSES[c] for c in self.classes]

    def index(self, track_id: str) -> int:
        hits = np.flatnonzero(self.track_ids == track_id)
        if not len(hits):
            raise KeyError(track_id)
        return int(hits[0])

    def on_table(self) -> np.ndarray:
        """(N,) bool: balls in play (seen or predicted)."""
        return (self.state == "seen") | (self.state == "predicted")


def tracks_rows(state: TableState, xy_px: np.ndarray | None = None) -> list[list[str]]:
    """The contract's tracks.csv rows for one frame (header ``TRACKS_HEADER``), one per ball.

    ``xy_px`` (N, 2) optional image pixels of the balls (from the calibration); positions are
    left empty for potted and off-table balls."""
    if xy_px is not None:
        xy_px = np.asarray(xy_px, float)
        if xy_px.shape != (len(state), 2):
            raise ValueError(f"tracks_rows: xy_px must have shape ({len(state)}, 2), "
                             f"got {xy_px.shape}")
    rows = []
    t = f"{state.t:.6f}"
    for i in range(len(state)):
        gone = state.state[i] in ("potted", "off_table")
        x, y = ("", "") if gone else (f"{state.xy_mm[i, 0]:.2f}", f"{state.xy_mm[i, 1]:.2f}")
        u, v = ("", "") if gone or xy_px is None else (f"{xy_px[i, 0]:.2f}",
                                                         f"{xy_px[i, 1]:.2f}")
        rows.append([str(state.frame), t, str(state.track_ids[i]),
                     BALL_CLASSES[state.classes[i]], x, y, u, v, str(state.state[i])])
    return rows


# -- tracker internals -----------------------------------------------------------------------------
@dataclass(eq=False)
class _Track:
    """One ball's track: its filter and bookkeeping (mutable, private to the tracker)."""

    track_id: str
    cls: int
    kf: KalmanFilter
    moving: bool
    status: str = "seen"
    pocket: str = ""
    votes: np.ndarray = field(default_factory=lambda: np.zeros(N_CLASSES))
    last_seen_t: float = 0.0
    last_seen_frame: int = 0
    last_seen_x: np.ndarray = field(default_factory=lambda: np.zeros(4))
    anchor_t: float = 0.0  # time of the last measurement a resting estimate took in
    restless: int = 0
    shift: np.ndarray = field(default_factory=lambda: np.zeros(2))
    slow_since: float | None = None
    gone_frame: int = 0  # first frame the ball was missed, and its time
    gone_t: float = 0.0
    judged: bool = False  # whether its vanishing was judged (potted, off the table or hidden)
    doubled_frame: int = -1  # last frame it was seen on top of another seen track
    speeds: list[tuple[float, float]] = field(default_factory=list)  # recent (t s, mm/s)
    # the last moving ball that came within reach while this one was at rest: (t, that track);
    # and this ball's recent kicks: (t, velocity before, velocity after, where (mm))
    struck: tuple | None = None
    last_z: np.ndarray | None = None  # the detection it took at its last sighting (mm)
    born_t: float = 0.0  # when it was confirmed (or found again after leaving play)
    kicks: list[tuple[float, np.ndarray, np.ndarray, np.ndarray]] = field(default_factory=list)
    # when it was last set moving from rest, and the fastest it can have been sent then (mm/s)
    launch: tuple[float, float] | None = None

    @property
    def active(self) -> bool:
        return self.status in ("seen", "predicted")


@dataclass(eq=False)
class _Candidate:
    """Unexplained detections that may be a ball: its sightings (times, positions) and class
    votes. ``xy``/``velocity`` are the least-squares constant-velocity fit at its last sighting."""

    ts: list[float]
    xys: list[np.ndarray]
    first_frame: int
    age: int = 1
    votes: np.ndarray = field(default_factory=lambda: np.zeros(N_CLASSES))
    xy: np.ndarray = field(default_factory=lambda: np.zeros(2))
    velocity: np.ndarray = field(default_factory=lambda: np.zeros(2))

    def __post_init__(self):
        self.xy = np.asarray(self.xys[-1], float).copy()

    @property
    def hits(self) -> int:
        return len(self.ts)

    @property
    def t(self) -> float:
        return self.ts[-1]

    @property
    def first_t(self) -> float:
        return self.ts[0]

    def add(self, t: float, xy: np.ndarray, frame: int, tolerance_mm: float) -> None:
        """Another sighting. When the sightings no longer fit one straight constant-speed path
        within ``tolerance_mm`` (the chain jumped to another ball), only the new one is kept."""
        self.ts.append(t)
        self.xys.append(np.asarray(xy, float).copy())
        ts = np.array(self.ts) - t
        xys = np.array(self.xys)
        a = np.column_stack([np.ones_like(ts), ts])
        coef, *_ = np.linalg.lstsq(a, xys, rcond=None)
        if np.hypot(*(a @ coef - xys).T).max() > tolerance_mm:
            self.ts, self.xys = self.ts[-1:], self.xys[-1:]
            self.votes[:] = 0
            self.first_frame, self.age = frame, 0  # aged to 1 at the end of this frame
            coef = np.array([xys[-1], np.zeros(2)])
        self.xy, self.velocity = coef[0], coef[1]


@dataclass
class _Step:
    """One frame's detections as the tracker takes them: (K, 2) mm, classes and confidences
    (K,), at ``frame``, ``t``; which detections were ``used`` and which tracks ``matched``."""

    frame: int
    t: float
    z: np.ndarray
    cls: np.ndarray
    conf: np.ndarray
    used: np.ndarray = field(init=False)  # (K,) bool
    matched: set[int] = field(default_factory=set)

    def __post_init__(self):
        self.used = np.zeros(len(self.z), bool)


class BallTracker:
    """Tracks every ball on a snooker table in table mm; see the module docstring.

    ``update(frame_index, t, xy_mm (K, 2), classes (K,), confidences (K,)) -> TableState``,
    frames in time order. Work per frame depends on the balls and detections of that frame only.
    """

    def __init__(self, config: TrackerConfig | None = None):
        self.config = TrackerConfig() if config is None else config
        if not isinstance(self.config, TrackerConfig):
            raise TypeError(f"BallTracker needs a TrackerConfig, got {type(config).__name__}")
        self.model = MotionModel(self.config)
        self.association = Association(self.config, self.model)
        self.pockets = Pockets(self.config)
        self.tracks: list[_Track] = []
        self.candidates: list[_Candidate] = []
        self._t: float | None = None
        self._first_frame: int | None = None
        self._dt: float | None = None
        table = self.config.table
        pk = table.pockets
        self._pocket_points = np.array([p.point_mm for p in pk.values()])
        self._r = table.ball_radius_mm
        self._events: list[dict] = []
        # resting tracks that may be set moving this frame: id() -> how fast (mm/s)
        self._free: dict[int, float] = {}
        self._path_start: dict[int, np.ndarray] = {}  # id(track) -> last seen before this frame
        self._last_state: TableState | None = None
        # the last state's (track_id, cls, status, pocket) of each track and their arrays
        self._labels: list[tuple] | None = None
        self._label_arrays: tuple[np.ndarray, ...] = ()
        # time of the source's last frame, and how much of it repeated pictures took: the
        # motion runs on source time minus that lag (events report source time)
        self._t_source: float | None = None
        self._lag = 0.0
        self._source_time: dict[float, float] = {}

    # -- the public step ---------------------------------------------------------------------------
    def update(self, frame_index: int, t: float, detections_mm, classes, confidences
               ) -> TableState:
        """Advance to frame ``frame_index`` at time ``t`` (s) with its detections.

        detections_mm (K, 2) table mm; classes (K,) int index into BALL_CLASSES or -1;
        confidences (K,) in [0, 1]. Returns the TableState of this frame."""
        z = np.asarray(detections_mm, float)
        if z.size == 0:
            z = np.zeros((0, 2))
        elif z.ndim != 2 or z.shape[1] != 2:
            raise ValueError(f"BallTracker.update: detections_mm must have shape (K, 2), "
                             f"got {z.shape}")
        k = len(z)
        cls = np.asarray(classes, np.int64).reshape(-1)
        conf = np.asarray(confidences, float).reshape(-1)
        if cls.shape != (k,) or conf.shape != (k,):
            raise ValueError(f"BallTracker.update: classes and confidences must have shape "
                             f"({k},), got {cls.shape} and {conf.shape}")
        if ((cls < -1) | (cls >= N_CLASSES)).any():
            raise ValueError("BallTracker.update: classes must be -1 or index BALL_CLASSES")
        if self._t_source is not None and t <= self._t_source:
            raise ValueError(f"BallTracker.update: time must increase, got {t} after "
                             f"{self._t_source}")
        finite = np.isfinite(z).all(axis=1)
        z, cls, conf = self._merge_doubles(z[finite], cls[finite], np.clip(conf[finite], 0.0, 1.0))
        if self._repeated(z, t - self._lag):
            # the same picture shown again (frame-rate conversion repeats some frames of
            # broadcast video): no new measurement, and its time is taken out of the clock the
            # motion runs on, so the next picture is one step on, not two
            self._lag += t - self._t_source
            self._t_source = t
            st = self._last_state
            self._last_state = TableState(frame_index, t, st.track_ids, st.classes, st.xy_mm,
                                          st.velocity_mm_s, st.state, st.pocket)
            return self._last_state
        self._t_source = t
        source_t = t
        t = t - self._lag
        self._source_time[t] = source_t
        if len(self._source_time) > 4096:
            self._source_time.pop(next(iter(self._source_time)))
        dt = None if self._t is None else t - self._t
        if self._first_frame is None:
            self._first_frame = frame_index
        self._t, self._dt = t, dt
        self._events = []

        active = [tr for tr in self.tracks if tr.active]
        if dt is not None:
            m = self.model.matrices(dt)
            fade = 0.5 ** (dt / self.config.vote_half_life_s)
            self._predict(active, m)
            for tr in active:
                tr.votes *= fade
        step = _Step(frame_index, t, z, cls, conf)
        used, matched = step.used, step.matched
        # where each ball was last seen before this frame: the start of its path to this frame
        # (pass 1 moves ``last_seen_x`` of the balls it finds to this frame)
        self._path_start = {id(tr): tr.last_seen_x[:2] for tr in active}
        # Pass 1: gated likelihood assignment.
        pairs, d2, r = self.association.gated(active, z, cls, conf)
        # which resting balls may have been set moving matters only to one detected off its
        # place (``_measure``)
        off_place = any(not active[i].moving and d2[i, j] > self.config.restless_chi2
                        for i, j in pairs)
        self._free = self._may_move(active, t) if off_place else {}
        self._note_strikers(active, t)
        # a moving ball that took another class's detection while one of its own class is left
        # over may have been deflected out of its gate by a collision that sent the ball it
        # struck along its path: pass 2 judges both, and a ball it leaves without a detection
        # keeps that one (unless it gave it to another)
        held = [(i, j) for i, j in pairs if active[i].moving and 0 <= cls[j] != active[i].cls
                and np.isin(np.delete(cls, [jj for _, jj in pairs]), active[i].cls).any()]
        self._take_pairs(active, [p for p in pairs if p not in held], step, d2, r)
        # Pass 2: balls seen a moment ago that jumped out of their gates.
        recent = [i for i, tr in enumerate(active)
                  if i not in matched and t - tr.last_seen_t <= self.config.launch_window_s]
        bounds = self._speed_bounds([active[i] for i in recent], t)
        recent, bounds = [i for i, v in zip(recent, bounds) if v > 0], bounds[bounds > 0]
        reach = dict(zip(recent, bounds.tolist()))
        free = np.flatnonzero(~used)
        wide = []
        if recent and len(free):
            wide = [(recent[i], free[j]) for i, j in self.association.wide(
                [active[i] for i in recent], bounds, z[free], cls[free], conf[free], t)]
        wide_tracks, wide_dets = {i for i, _ in wide}, {j for _, j in wide}
        back = [(i, j) for i, j in held
                if (i, j) in wide or (i not in wide_tracks and j not in wide_dets)]
        for i, jj in wide:
            if (i, jj) in back:
                continue
            tr = active[i]
            tr.last_z = z[jj].copy()
            self._relaunch(tr, z[jj], t, reach[i])
            self._vote(tr, cls[jj], conf[jj])
            self._seen([tr], t, frame_index)
            used[jj] = True
            matched.add(i)
        self._take_pairs(active, back, step, d2, r)
        for i, tr in enumerate(active):
            if i not in matched:
                self._missed(tr, t, frame_index)
        self._mark_doubles(frame_index)
        self._candidates_step(z[~used], cls[~used], conf[~used], t, frame_index)
        self._relabel(t, frame_index)
        self._last_state = self._state(frame_index, source_t)
        return self._last_state

    def _take_pairs(self, active: list[_Track], pairs: list[tuple[int, int]], step: _Step,
                    d2: np.ndarray, r: np.ndarray) -> None:
        """Pass 1's assignments [(track, detection)]: each track judges its detection
        (``_measure``, with the gating's ``d2`` and ``r``), the filters take theirs in one
        batch, and the class votes; the pairs' detections and tracks are marked in ``step``."""
        z, cls, conf, t = step.z, step.cls, step.conf, step.t
        used, matched = step.used, step.matched
        taken = []  # the pairs whose filters take the detection
        for (i, j), zj in zip(pairs, z[[j for _, j in pairs]]):
            active[i].last_z = zj
            if self._measure(active[i], zj, d2[i, j], r[i], t):
                taken.append((i, j))
            used[j] = True
            matched.add(i)
        if taken:
            rows, cols = np.array(taken).T
            self._take_measurements([active[i] for i, _ in taken], z[cols], r[rows], t)
        for i, j in pairs:
            self._vote(active[i], cls[j], conf[j])
        self._seen([active[i] for i, _ in pairs], t, step.frame)

    def _repeated(self, z: np.ndarray, t: float) -> bool:
        """Whether the frame repeats the previous picture: every ball seen moving in the last
        frame fast enough to have gone several times the measuring noise is detected again
        where it was, to a fraction of a pixel (the rest of the picture may differ a little,
        as the detector adapts)."""
        if self._last_state is None or self._t is None or not len(z):
            return False
        last = self._last_state.frame
        moving = [tr for tr in self.tracks if tr.moving and tr.status == "seen"
                  and tr.last_seen_frame == last and tr.last_z is not None]
        if not moving:
            return False
        at = np.array([tr.last_z for tr in moving])
        tol = 0.5 + self.model.sigma_image_mm(at) / 3
        travel = np.array([np.hypot(*tr.kf.x[2:]) for tr in moving]) * (t - self._t)
        fast = travel >= 4 * tol
        if not fast.any():
            return False
        gap = np.hypot(*(at[:, None] - z[None]).transpose(2, 0, 1)).min(axis=1)
        return bool((gap[fast] <= tol[fast]).all())

    def settled_t(self, now: float) -> float:
        """The time before which no event of the tracker's can still come: a ball that
        vanished and is not yet judged may still be potted or leave the table, dated when it
        vanished (and the contact that sent it off, ``_sender``, dated when that came); a
        candidate not yet confirmed may still be a ball placed or re-spotted, dated at its
        first sighting."""
        pending = []
        for tr in self.tracks:
            if tr.status == "predicted" and not tr.judged:
                sender = self._sender(tr)
                pending.append(tr.gone_t if sender is None else min(tr.gone_t, sender[1]))
        pending += [cd.first_t for cd in self.candidates]
        return min([now] + pending)

    def update_detections(self, frame_index: int, t: float, detections: DetectionsMM
                          ) -> TableState:
        """``update`` from a ``tracker.vision.detect.Detections`` that carries ``xy_mm``."""
        if detections.xy_mm is None:
            raise ValueError("BallTracker needs detections in table mm (Detections.xy_mm); "
                             "detect with a calibration")
        return self.update(frame_index, t, detections.xy_mm, detections.cls,
                           detections.confidence)

    def _merge_doubles(self, z: np.ndarray, cls: np.ndarray, conf: np.ndarray):
        """Detections nearer each other than merge_frac of a ball diameter are one ball seen
        twice (two balls cannot overlap; a detector splits a ball in pieces around its centre,
        or a blurred one at both ends of its streak): each group, gathered round its most
        confident detection, becomes one detection at the group's mean, with the group's class
        and its best confidence, or no class (-1) when the pieces disagree on it.
        (K, 2), (K,), (K,) -> the same, K' <= K."""
        k = len(z)
        if k < 2:
            return z, cls, conf
        reach = self.config.merge_frac * self.config.table.ball_diameter_mm
        gap = np.hypot(*(z[:, None] - z[None]).transpose(2, 0, 1))
        # every detection is within reach of itself: a pair is near when more are
        if np.count_nonzero(gap < reach) == k:
            return z, cls, conf
        taken = np.zeros(k, bool)
        out_z, out_c, out_p = [], [], []
        for i in np.argsort(-conf, kind="stable"):
            if taken[i]:
                continue
            group = np.flatnonzero(~taken & (gap[i] < reach))
            taken[group] = True
            out_z.append(z[group].mean(axis=0))
            votes = np.zeros(N_CLASSES)
            for j in group:
                if cls[j] >= 0:
                    votes[cls[j]] += conf[j]
            known = cls[group][cls[group] >= 0]
            if len(set(known.tolist())) > 1:
                # pieces of one ball disagreeing on its colour say nothing sure about it
                out_c.append(-1)
                out_p.append(float(conf[group].max()))
            elif votes.max() > 0:
                best = int(np.argmax(votes))
                out_c.append(best)
                out_p.append(float(conf[group][cls[group] == best].max()))
            else:
                out_c.append(-1)
                out_p.append(float(conf[group].max()))
        return (np.array(out_z).reshape(-1, 2), np.array(out_c, np.int64),
                np.array(out_p, float))

    # -- prediction --------------------------------------------------------------------------------
    def _predict(self, tracks: list[_Track], m: MotionMatrices) -> None:
        """Predict ``tracks`` over one interval: a resting ball stays put, a moving one goes on
        at constant velocity less the rolling resistance; a coasting one (unseen) comes back
        off the cushions, keeps at most max_sigma_mm of uncertainty and comes to rest."""
        if not tracks:
            return
        c = self.config
        x = np.array([tr.kf.x for tr in tracks])
        p = np.array([tr.kf.P for tr in tracks])
        moving = np.array([tr.moving for tr in tracks])
        speed = np.hypot(x[:, 2], x[:, 3])
        bu = np.zeros_like(x)
        slowing = moving & (speed > 1e-9) if c.coast_decel_mm_s2 > 0 else np.zeros_like(moving)
        if slowing.any():
            # rolling resistance, never reversing the ball
            decel = np.minimum(c.coast_decel_mm_s2, speed[slowing] / m.dt)
            u = -x[slowing, 2:] / speed[slowing, None] * decel[:, None]
            bu[slowing] = u @ m.b.T
        f = np.where(moving[:, None, None], m.f_moving, m.f_rest)
        q = np.where(moving[:, None, None], m.q_moving, m.q_rest)
        x, p = self.model.predict(x, p, f, q, bu)
        for k, tr in enumerate(tracks):
            kf = tr.kf
            kf.x, kf.P = x[k], p[k]
            if not tr.moving or tr.status != "predicted":
                continue
            self._bounce(kf)
            pos_var = kf.P[0, 0] + kf.P[1, 1]
            if pos_var > 2 * c.max_sigma_mm ** 2:
                kf.P[:2, :] *= math.sqrt(2 * c.max_sigma_mm ** 2 / pos_var)
                kf.P[:, :2] *= math.sqrt(2 * c.max_sigma_mm ** 2 / pos_var)
            if speed[k] < c.rest_speed_mm_s:
                self._to_rest(tr)

    def _bounce(self, kf: KalmanFilter) -> None:
        """A coasting ball past a cushion nose line (away from the pockets) comes back off it."""
        table, r = self.config.table, self._r
        x = kf.x
        if np.min(np.hypot(*(self._pocket_points - x[:2]).T)) < 2 * table.corner_mouth_mm:
            return
        for axis, hi in ((0, table.width_mm), (1, table.length_mm)):
            if x[axis] < r:
                x[axis], x[axis + 2] = 2 * r - x[axis], abs(x[axis + 2]) * 0.8
            elif x[axis] > hi - r:
                x[axis], x[axis + 2] = 2 * (hi - r) - x[axis], -abs(x[axis + 2]) * 0.8

    # -- association -------------------------------------------------------------------------------
    def _may_move(self, tracks: list[_Track], t: float) -> dict[int, float]:
        """ids (``id()``) of the resting ``tracks`` whose ball can have been set moving since
        the last frame, each with how fast (``_speed_bounds``): the white, or a ball a moving
        ball came near. Any other resting ball detected off its place was detected badly (in
        pieces, or off its centre beside a cue or a hand): it was not launched."""
        resting = [tr for tr in tracks if not tr.moving]
        if self._dt is None or not resting:
            return {id(tr): self.config.max_speed_mm_s for tr in resting}
        bounds = self._speed_bounds(resting, t)
        return {id(tr): float(b) for tr, b in zip(resting, bounds) if b > 0}

    def _speed_bounds(self, tracks: list[_Track], t: float) -> np.ndarray:
        """(N,) the fastest each track's ball can have gone since its last sighting (mm/s), 0
        when it cannot have moved. The cue can send the white at any speed; any other ball
        moves only when struck, and a struck ball is no faster than what struck it (an elastic
        collision of equal masses): by a moving ball whose path since its last sighting passed
        within kick_reach_mm of it, or, in a chain (a break through the pack), by one of these
        balls that may itself have moved this frame. A moving ball keeps at most the speed it
        was seen going within launch_window_s (one seen just off a cushion restarts at the slope
        across the bounce, far slower than it goes), or, set moving from rest within that time,
        the speed it can have been struck at (its first steps say little: struck between two
        frames, or squeezed into a cushion and back).
        Estimated speeds get kick_slack of margin, as estimates lag at impacts."""
        c = self.config
        if not tracks:
            return np.zeros(0)
        p = np.array([tr.kf.x[:2] for tr in tracks])
        launched = [tr.launch[1] if tr.launch and t - tr.launch[0] <= c.launch_window_s
                    else 0.0 for tr in tracks]
        on_table = [tr for tr in self.tracks if tr.active]
        recent = dict(zip(map(id, on_table), self._recent_speeds(on_table)))
        bound = np.array([max(recent[id(tr)] * c.kick_slack, v) if tr.moving else 0.0
                          for tr, v in zip(tracks, launched)])
        movers = [(tr, v) for tr in on_table if (v := recent[id(tr)]) >= c.rest_speed_mm_s]
        if movers:
            a = np.array([self._path_start.get(id(tr), tr.last_seen_x[:2]) for tr, _ in movers])
            b = np.array([tr.kf.x[:2] for tr, _ in movers])
            speed = np.array([v for _, v in movers])
            ab = b - a
            L2 = np.maximum(np.einsum("mi,mi->m", ab, ab), 1e-9)
            s = np.clip(np.einsum("nmi,mi->nm", p[:, None] - a[None], ab) / L2, 0.0, 1.0)
            gap = np.hypot(*(p[:, None] - (a[None] + s[..., None] * ab[None])).transpose(2, 0, 1))
            # a track is not struck by itself
            self_hit = np.array([[tr is m for m, _ in movers] for tr in tracks])
            struck = (gap <= c.kick_reach_mm) & ~self_hit
            bound = np.maximum(bound, np.where(struck, speed[None] * c.kick_slack, 0.0).max(1))
        white = np.array([tr.cls == WHITE for tr in tracks])
        bound = np.where(white, c.max_speed_mm_s, np.minimum(bound, c.max_speed_mm_s))
        # chains: a ball within kick reach of where a struck ball can have got to
        since = np.array([t - tr.last_seen_t for tr in tracks])
        gap = np.hypot(*(p[:, None] - p[None]).transpose(2, 0, 1))
        np.fill_diagonal(gap, np.inf)
        for _ in range(len(tracks)):
            src = bound > 0
            reach = np.where(src, bound * since + c.kick_reach_mm, -np.inf)
            chained = np.where(gap <= reach[None, :], bound[None, :], 0.0).max(axis=1)
            new = np.maximum(bound, chained)
            if np.array_equal(new, bound):
                break
            bound = new
        return bound

    # -- measurement -------------------------------------------------------------------------------
    def _measure(self, tr: _Track, z, d2: float, r: np.ndarray, t: float) -> bool:
        """Judge detection ``z`` (2,) mm, at ``d2`` (chi-square) from ``tr``'s prediction, its
        noise ``r`` (2, 2) there: a kick restarts the filter, a resting ball's doubtful
        detection is held or ignored. True when the filter is to take it as a measurement
        (``_take_measurements``)."""
        c = self.config
        if not tr.moving:
            if d2 > c.restless_chi2 and id(tr) not in self._free:
                tr.restless = 0  # nothing can have moved it: the detection is off, not the ball
            elif d2 > c.launch_chi2 or (d2 > c.restless_chi2 and tr.restless >= 1):
                self._relaunch(tr, z, t)
            elif d2 > c.restless_chi2:
                tr.restless += 1  # hold the estimate until the next frame says which
            else:
                tr.restless = 0
                return True
            return False
        if d2 > c.kick_chi2:
            # a kick the constant-velocity model did not expect (a kiss, a cushion): a partial
            # update would leave the estimate between the old path and the new one
            self._relaunch(tr, z, t)
            return False
        return True

    def _take_measurements(self, tracks: list[_Track], z: np.ndarray, r: np.ndarray, t: float
                           ) -> None:
        """Update the filters of N ``tracks`` with their detections ``z`` (N, 2) mm of noises
        ``r`` (N, 2, 2) in one batch, each through its regime's H."""
        c, m = self.config, self.model
        moving = np.array([tr.moving for tr in tracks])
        x = np.array([tr.kf.x for tr in tracks])
        h = np.where(moving[:, None, None], m.h_moving, m.h_rest)
        innovation = z - x[:, :2]
        # how far the running mean of a resting ball's innovations may go before it follows
        reopen = c.rest_shift_mm + np.sqrt(np.maximum(r[:, 0, 0] + r[:, 1, 1]
                                                      - 2 * c.rest_sigma_mm ** 2, 0.0))
        x, p = m.update(x, np.array([tr.kf.P for tr in tracks]), z, r, h)
        # a nudge (a kiss, a touching ball settling): re-open a resting estimate to follow it;
        # the running mean of pure noise keeps within a third of its std (worked out for every
        # track, kept for the resting ones)
        shift = 0.8 * np.array([tr.shift for tr in tracks]) + 0.2 * innovation
        nudged = (np.hypot(shift[:, 0], shift[:, 1]) > reopen).tolist()
        for k, tr in enumerate(tracks):
            tr.kf.x, tr.kf.P = x[k], p[k]
            if moving[k]:
                self._maybe_rest(tr, t)
                continue
            tr.anchor_t = t
            tr.shift = shift[k]
            if nudged[k]:
                tr.kf.P[:2, :2] += r[k]
                tr.shift[:] = 0

    def _vote(self, tr: _Track, cls: int, conf: float) -> None:
        if cls >= 0:
            tr.votes[cls] += conf

    def _seen(self, tracks: list[_Track], t: float, frame: int) -> None:
        """Note that ``tracks`` were seen at ``t``: where, and how fast."""
        if not tracks:
            return
        x = np.array([tr.kf.x for tr in tracks])
        speeds = np.hypot(x[:, 2], x[:, 3]).tolist()
        window = self.config.launch_window_s
        for tr, xk, speed in zip(tracks, x, speeds):
            tr.status, tr.judged = "seen", False
            tr.last_seen_t, tr.last_seen_frame = t, frame
            tr.last_seen_x = xk  # replaced at each sighting, never changed in place
            tr.speeds = [(ts, v) for ts, v in tr.speeds if t - ts <= window]
            tr.speeds.append((t, speed))

    def _recent_speeds(self, tracks: list[_Track]) -> list[float]:
        """The fastest each of ``tracks`` was seen going within launch_window_s (mm/s): a ball
        that has just struck another has just slowed down."""
        window = self.config.launch_window_s
        now = np.hypot(*np.array([tr.kf.x[2:] for tr in tracks]).reshape(-1, 2).T).tolist()
        return [max([speed] + [v for ts, v in tr.speeds if self._t - ts <= window])
                for tr, speed in zip(tracks, now)]

    def _relaunch(self, tr: _Track, z, t: float, bound: float | None = None) -> None:
        """The ball is moving (struck, kissed or deflected): restart its filter at ``z`` with
        the velocity from where it was last known. A ball set moving from rest notes the
        fastest it can have been struck at (``bound`` mm/s, or ``_may_move``'s)."""
        c = self.config
        if tr.moving:
            v = (z - tr.last_seen_x[:2]) / max(t - tr.last_seen_t, 1e-6)
        else:
            v = (z - tr.kf.x[:2]) / max(t - tr.anchor_t, 1e-6)
            tr.launch = (t, self._free.get(id(tr), 0.0) if bound is None else bound)
        speed = np.hypot(*v)
        if speed > c.max_speed_mm_s:
            v = v * (c.max_speed_mm_s / speed)
        before = tr.kf.x[2:].copy() if tr.moving else np.zeros(2)
        tr.kicks = [k for k in tr.kicks if t - k[0] <= 1.0] + [
            (t, before, v.copy(), np.asarray(z, float).copy())]
        xy = np.asarray(z, float) + c.exposure_s / 2 * v
        tr.kf.x = np.array([xy[0], xy[1], v[0], v[1]])
        tr.kf.P = np.diag([c.moving_sigma_mm ** 2 * 4] * 2 + [c.launch_speed_sigma_mm_s ** 2] * 2)
        tr.kf.P[:2, :2] += self.model.r_image(xy)[0]
        tr.moving, tr.restless, tr.slow_since = True, 0, None

    def _maybe_rest(self, tr: _Track, t: float) -> None:
        c = self.config
        if np.hypot(*tr.kf.x[2:]) < c.rest_speed_mm_s:
            if tr.slow_since is None:
                tr.slow_since = t
            if t - tr.slow_since >= c.rest_after_s:
                self._to_rest(tr)
        else:
            tr.slow_since = None

    def _to_rest(self, tr: _Track) -> None:
        kf = tr.kf
        kf.x[2:] = 0.0
        kf.P[2:, :] = 0.0
        kf.P[:, 2:] = 0.0
        tr.moving, tr.slow_since, tr.restless = False, None, 0
        tr.shift[:] = 0
        tr.anchor_t = self._t

    # -- leaving play ------------------------------------------------------------------------------
    def _mark_doubles(self, frame: int) -> None:
        """Note the seen tracks lying on top of another seen track this frame (centres nearer
        than double_frac of a ball diameter): one of them follows a second detection of the
        other's ball."""
        seen = [tr for tr in self.tracks if tr.status == "seen" and tr.last_seen_frame == frame]
        if len(seen) < 2:
            return
        xy = np.array([tr.kf.x[:2] for tr in seen])
        gap = np.hypot(*(xy[:, None] - xy[None]).transpose(2, 0, 1))
        np.fill_diagonal(gap, np.inf)
        near = gap.min(axis=1) < self.config.double_frac * self.config.table.ball_diameter_mm
        for tr in (tr for tr, n in zip(seen, near) if n):
            tr.doubled_frame = frame

    def _note_strikers(self, tracks: list[_Track], t: float) -> None:
        """For each resting track, the moving ball (if any) whose path since its last
        sighting passes within kick reach of it (widened by the image noise there)."""
        c = self.config
        resting = [tr for tr in tracks if not tr.moving]
        movers = [tr for tr in tracks if tr.moving and t - tr.last_seen_t <= c.launch_window_s]
        if not resting or not movers:
            return
        p = np.array([tr.kf.x[:2] for tr in resting])
        a = np.array([m.last_seen_x[:2] for m in movers])
        ab = np.array([m.kf.x[:2] for m in movers]) - a
        L2 = np.maximum(np.einsum("mi,mi->m", ab, ab), 1e-9)
        s = np.clip(np.einsum("nmi,mi->nm", p[:, None] - a[None], ab) / L2, 0.0, 1.0)
        gap = np.hypot(*(p[:, None] - (a[None] + s[..., None] * ab[None])).transpose(2, 0, 1))
        reach = c.kick_reach_mm + 3 * self.model.sigma_image_mm(p)
        nearest = gap.argmin(axis=1)
        within = gap[np.arange(len(resting)), nearest] <= reach
        for tr, j in zip((tr for tr, w in zip(resting, within) if w), nearest[within].tolist()):
            # the approach that sent it off: while it was still seen, or just after it vanished
            # when none was noted then (the white cued into a ball in one frame), never a later
            # pass over the place it vanished from
            recent = tr.struck is not None and tr.struck[0] >= tr.last_seen_t - c.launch_window_s
            if tr.status == "seen" or (not recent and t - tr.last_seen_t <= c.launch_window_s):
                tr.struck = (t, movers[j])

    def _missed(self, tr: _Track, t: float, frame: int) -> None:
        if tr.status == "seen":
            tr.gone_frame, tr.gone_t = frame, t
        tr.status = "predicted"
        tr.restless = 0
        x = tr.last_seen_x
        c = self.config
        if tr.judged or t - tr.last_seen_t < c.gone_after_s:
            return
        if np.hypot(*x[2:]) < c.rest_speed_mm_s:
            struck = self._struck_recently(tr)
            if struck and t - tr.last_seen_t < c.struck_gone_s:
                return  # struck as it vanished: judged when it stays unseen
            tr.judged = True
            pocket = self.pockets.struck_into(tr) if struck else None
            if pocket is not None:
                self._leave(tr, "potted", pocket, self._sender(tr))
            return  # otherwise a ball still for the tracker is only hidden
        # unseen long enough to judge, once
        tr.judged = True
        if tr.doubled_frame == tr.last_seen_frame:
            return  # it was a double of the ball beside it, which is still there
        pocket = self.pockets.ahead(x[:2], x[2:]) or self.pockets.at(x[:2], x[2:])
        if pocket is not None:
            self._leave(tr, "potted", pocket, self._sender(tr))
        elif self.pockets.over_cushion(x[:2], x[2:], tr.gone_t - tr.last_seen_t):
            self._leave(tr, "off_table", "", self._sender(tr))

    def _sender(self, tr: _Track) -> tuple[str, float] | None:
        """The ball that sent ``tr`` off, and when (the frame its path came within reach of
        ``tr``), where its vanishing leaves the contact to no path: a resting ball struck as
        it vanished, or one seen moving only a moment after a ball came by it at rest. None
        otherwise."""
        c = self.config
        if tr.struck is None:
            return None
        when, striker = tr.struck
        if not tr.moving:
            return (striker.track_id, min(when, tr.gone_t)) if self._struck_recently(tr) else None
        if (tr.launch is None or tr.last_seen_t - tr.launch[0] > c.launch_window_s + 1e-9
                or not tr.anchor_t - c.launch_window_s <= when <= tr.launch[0] + 1e-9):
            return None
        return striker.track_id, when

    def _struck_recently(self, tr: _Track) -> bool:
        """Whether a resting ball was struck as it was last seen (a moving ball came within
        reach of it then): vanishing now, it may have been sent off too fast to be seen."""
        return (tr.struck is not None and not tr.moving
                and tr.struck[0] >= tr.last_seen_t - self.config.launch_window_s)

    def _leave(self, tr: _Track, status: str, pocket: str,
               sender: tuple[str, float] | None = None) -> None:
        """The ball leaves play (``status``, into ``pocket``); ``sender`` (``_sender``) the
        ball that sent it off and when, where no path shows the contact."""
        self._settle_class(tr)
        tr.status, tr.pocket = status, pocket
        tr.moving = False
        ev = {"type": "pot" if status == "potted" else "off_table", "frame": tr.gone_frame,
              "t": tr.gone_t, "ball": tr.track_id,
              "class": BALL_CLASSES[tr.cls]}
        if status == "potted":
            ev["pocket"] = pocket
        if sender is not None:
            ev["struck_by"], ev["struck_t"] = sender
        self._events.append(ev)

    def _settle_class(self, tr: _Track) -> None:
        """A ball leaving play is what its class votes say most (by at least relabel_votes),
        not necessarily what it was first confirmed as (a blurred white called green that then
        followed the ball it struck): it takes that class's id when no ball seen now holds it;
        an unseen holder was a stale record of the same ball and gives way."""
        c = self.config
        best = int(np.argmax(tr.votes))
        if best == tr.cls or tr.votes[best] < c.relabel_votes or best == WHITE:
            return
        was = tr.track_id
        if best == RED:
            if not self._take_red_number(tr, tr.gone_t):
                return
        else:
            holder = self._track(BALL_CLASSES[best])
            if holder is not None and holder.status == "seen":
                return
            self.tracks = [o for o in self.tracks if o is not holder]
            tr.track_id, tr.cls = BALL_CLASSES[best], best
        self._events.append({"type": "relabel", "frame": tr.gone_frame, "t": tr.gone_t,
                             "ball": tr.track_id, "class": BALL_CLASSES[tr.cls], "was": was})

    # -- new balls ---------------------------------------------------------------------------------
    def _candidates_step(self, z, cls, conf, t: float, frame: int) -> None:
        c = self.config
        if not len(z) and not self.candidates:
            return  # nothing new, nothing pending
        # detections on top of a ball already tracked are that ball's duplicates
        on = [tr.kf.x[:2] for tr in self.tracks if tr.status == "seen"] if len(z) else []
        if on:
            d = np.hypot(*(z[:, None] - np.array(on)[None]).transpose(2, 0, 1)).min(axis=1)
            keep = d > 0.7 * c.table.ball_diameter_mm
            z, cls, conf = z[keep], cls[keep], conf[keep]
        cands = self.candidates
        free = np.ones(len(z), bool)
        if cands and len(z):
            pred = np.array([cd.xy + cd.velocity * (t - cd.t) for cd in cands])
            # the image noise where each candidate is widens its gate and its path's tolerance
            noise = 3 * self.model.sigma_image_mm(pred)
            reach = np.array([c.candidate_gate_mm + (t - cd.t) * (
                c.candidate_speed_mm_s if cd.hits == 1 else np.hypot(*cd.velocity))
                for cd in cands]) + noise
            d = np.hypot(*(z[None] - pred[:, None]).transpose(2, 0, 1))
            # the nearest first: leaving any candidate without a detection costs alike
            unmatched = np.full(len(cands), float(reach.max()))
            for i, j in assign(np.where(d <= reach[:, None], d, INFEASIBLE), unmatched):
                cd = cands[i]
                cd.add(t, z[j], frame, c.candidate_gate_mm / 2 + noise[i])
                if cls[j] >= 0:
                    cd.votes[cls[j]] += conf[j]
                free[j] = False
        for cd in cands:
            cd.age += 1
        for j in np.flatnonzero(free):
            cd = _Candidate([t], [z[j]], frame)
            if cls[j] >= 0:
                cd.votes[cls[j]] += conf[j]
            cands.append(cd)
        # age counts this frame for old candidates; new ones start at 1
        def needed(cd: _Candidate) -> int:
            return c.confirm_hits_moving if self._moving_candidate(cd) else c.confirm_hits

        ready = [cd for cd in cands if cd.hits >= needed(cd)]
        self.candidates = [cd for cd in cands if cd.hits < needed(cd)
                           and cd.age - cd.hits <= c.confirm_window - c.confirm_hits]
        # rack order: by row up the table, then across
        ready.sort(key=lambda cd: (round(cd.xy[1] / 20.0), cd.xy[0]))
        for cd in ready:
            self._confirm(cd, t, frame)

    def _confirm(self, cd: _Candidate, t: float, frame: int) -> None:
        """Give a confirmed candidate an identity, in order of its class votes. A ball never
        appears from nowhere: one of a class not seen before whose path starts where a ball
        was left at rest and not seen since is that ball, set moving while unseen (a fast
        ball's colour, blurred over the cloth, is no guide); else, once play is under way, a
        colour comes into play only at rest (placed on its spot), and a moving one is taken
        for the class its votes favour next."""
        for k in np.argsort(-cd.votes, kind="stable"):
            if cd.votes[k] <= 0:
                break
            if k == RED:
                if self._confirm_red(cd, t, frame):
                    return
                continue
            name = BALL_CLASSES[k]
            tr = self._track(name)
            if tr is None:
                tr = self._set_moving_unseen(cd)
                if tr is not None:
                    self._restart(tr, cd, t, frame)
                    return
                if k != WHITE and self._started(frame) and self._moving_candidate(cd):
                    continue  # a colour comes into play at rest, placed: another ball's blur
                self.tracks.append(self._new_track(name, int(k), cd, t, frame))
                if k == WHITE and self._started(frame):
                    self._placed(self.tracks[-1], cd, frame)
                return
            if tr.status == "seen":
                continue  # that ball is elsewhere: the votes' next class
            if tr.status == "predicted":
                if not self._plausibly_found(tr, cd, t):
                    continue  # hidden a moment ago somewhere else: not this ball
                if not self._plausibly_found(tr, cd, None):
                    # that ball, lost a while, may be anywhere; one set moving from where it
                    # lay unseen is surely here
                    tr = self._set_moving_unseen(cd) or tr
            if (tr.status in ("potted", "off_table") and k != WHITE
                    and not self._on_spot(cd.xy, name)):
                continue  # a colour comes back where the referee puts it: on a spot
            was = tr.status
            self._restart(tr, cd, t, frame)
            if was in ("potted", "off_table"):
                self._placed(tr, cd, frame)
            return

    def _moving_candidate(self, cd: _Candidate) -> bool:
        return bool(np.hypot(*cd.velocity) >= 3 * self.config.rest_speed_mm_s)

    def _set_moving_unseen(self, cd: _Candidate) -> _Track | None:
        """The ball left at rest and unseen since whose place the candidate's path starts
        from (``_path_from_rest``; of several, the one the candidate's votes favour, then the
        nearest to where the candidate was first seen), or None."""
        still = [tr for tr in self.tracks if tr.status == "predicted" and not tr.moving]
        on = self._path_from_rest(still, cd) if still else np.zeros(0, bool)
        if not on.any():
            return None
        start = cd.xy + cd.velocity * (cd.first_t - cd.t)
        return min((still[i] for i in np.flatnonzero(on)),
                   key=lambda o: (-cd.votes[o.cls], float(np.hypot(*(o.kf.x[:2] - start)))))

    def _on_spot(self, xy: np.ndarray, colour: str, ball: _Track | None = None) -> bool:
        """Whether ``xy`` (2,) mm is where the referee re-spots ``colour`` (Section 3 Rule 4,
        spotting colours): on its own spot; when that is occupied (a ball placed there would
        touch another), on the highest value spot available; when every spot is occupied, on
        the centre line by its own spot. On a spot is within a ball diameter of it, allowing
        for the image noise there; ``ball``, the track at ``xy`` if any, occupies nothing."""
        table = self.config.table
        noise = 3 * float(self.model.sigma_image_mm(xy)[0])
        d_mm = table.ball_diameter_mm
        others = np.array([tr.kf.x[:2] for tr in self.tracks
                           if tr.active and tr is not ball]).reshape(-1, 2)

        def occupied(spot: np.ndarray) -> bool:
            return bool(len(others)) and float(np.hypot(*(others - spot).T).min()) < d_mm

        def on(spot: np.ndarray) -> bool:
            return float(np.hypot(*(xy - spot))) <= d_mm + noise

        own = np.asarray(table.spots_mm[colour], float)
        if on(own):
            return True
        if not occupied(own):
            return False
        for name in reversed(COLOURS):  # highest value first
            spot = np.asarray(table.spots_mm[name], float)
            if name != colour and not occupied(spot):
                return on(spot)
        return abs(float(xy[0] - own[0])) <= d_mm + noise

    def _plausibly_found(self, tr: _Track, cd: _Candidate, t: float | None) -> bool:
        """Whether a hidden ball can be the candidate: within its gate, on a path that started
        where it was left at rest, or (given the time ``t``) unseen long enough (lost_after_s)
        to have been struck while hidden."""
        c = self.config
        zhat, s, _ = self.association.predicted([tr])
        e = cd.xy - zhat[0]
        d2 = float(e @ np.linalg.inv(s[0]) @ e)
        return (d2 <= c.gate_chi2 or (t is not None and t - tr.last_seen_t > c.lost_after_s)
                or bool(self._path_from_rest([tr], cd)[0]) or self._turned_unseen(tr, cd))

    def _turned_unseen(self, tr: _Track, cd: _Candidate) -> bool:
        """Whether the white, moving when it went unseen, turned onto the candidate's path
        meanwhile (a kiss while its blob was one with the ball it struck, a cushion): seen
        again within ``turn_window_s``, the path it was on and the candidate's, run back, meet
        (within a ball's diameter, the candidate's gate and the image noise) between its last
        sighting and the candidate's first. Only the white: a colour read off a blurred ball
        (a fast black over the cloth reads green) is no sure sign of which ball it is."""
        c = self.config
        dt = cd.first_t - tr.last_seen_t
        if tr.cls != WHITE or not tr.moving or cd.hits < 2 or not 0.0 < dt <= c.turn_window_s:
            return False
        v_old = tr.last_seen_x[2:]
        gap0 = tr.last_seen_x[:2] - (cd.xy + cd.velocity * (tr.last_seen_t - cd.t))
        dv = v_old - cd.velocity
        tau = float(np.clip(-(gap0 @ dv) / max(float(dv @ dv), 1e-9), 0.0, dt))
        reach = (c.table.ball_diameter_mm + c.candidate_gate_mm
                 + 3 * float(self.model.sigma_image_mm(tr.last_seen_x[:2])[0]))
        return float(np.hypot(*(gap0 + dv * tau))) <= reach

    def _path_from_rest(self, tracks: list[_Track], cd: _Candidate) -> np.ndarray:
        """(N,) bool: the candidate's straight path, traced back to the last sighting of each
        of ``tracks``, passes over where that track was left at rest (within a ball diameter
        and the image noise): the ball was set moving while it went unseen (a colour misread
        struck by the cue, or a ball kissed out of sight). A candidate at rest or rolling
        slowly was that ball when it was first seen within half a diameter of its place."""
        c = self.config
        out = np.zeros(len(tracks), bool)
        if cd.hits < 2:
            return out
        moving = self._moving_candidate(cd)
        for i, tr in enumerate(tracks):
            if tr.moving or tr.status != "predicted":
                continue
            noise = 3 * float(self.model.sigma_image_mm(tr.kf.x[:2])[0])
            if not moving:
                # rolling slowly, or at rest: it was first seen within half a diameter of where
                # the ball lay (knocked there while a blur beside it hid it, or while hidden)
                gap = float(np.hypot(*(tr.kf.x[:2] - cd.xys[0])))
                out[i] = gap <= c.table.ball_diameter_mm / 2 + noise
                continue
            a = cd.xy + cd.velocity * (min(tr.last_seen_t, cd.first_t) - cd.t)
            ab = cd.xy - a
            rel = tr.kf.x[:2] - a
            s = float(np.clip(rel @ ab / max(ab @ ab, 1e-9), 0.0, 1.0))
            gap = float(np.hypot(*(rel - s * ab)))
            out[i] = gap <= c.table.ball_diameter_mm + c.candidate_gate_mm + noise
        return out

    def _confirm_red(self, cd: _Candidate, t: float, frame: int) -> bool:
        """A red turning up is a lost red (``_lost_red``; one set moving while it went unseen
        also when its path starts where that red was left), or, while fewer than ``reds`` are
        known, a red not seen before: at rest once play is under way (a red comes into play
        only at the start; later one is uncovered)."""
        lost = self._lost_red(cd.xy, t, lambda reds: self._path_from_rest(reds, cd))
        if lost is not None:
            self._restart(lost, cd, t, frame)
            return True
        if self._started(frame) and self._moving_candidate(cd):
            return False  # a red not seen before is one uncovered, at rest: another's blur
        taken = {tr.track_id for tr in self.tracks if tr.cls == RED}
        for n in range(1, self.config.reds + 1):
            name = f"red_{n:02d}"
            if name not in taken:
                self.tracks.append(self._new_track(name, RED, cd, t, frame))
                return True
        return False

    def _lost_red(self, xy: np.ndarray, t: float,
                  on_path: Callable[[list[_Track]], np.ndarray] | None = None
                  ) -> _Track | None:
        """The lost red (hidden, ``predicted``) that a red found at ``xy`` (2,) mm at ``t`` is,
        or None: a red never appears from nowhere. It can be one within its gate, one unseen
        for lost_after_s (struck while hidden, it may be anywhere) or one ``on_path`` says
        (lost reds -> (N,) bool); the likeliest of these (Mahalanobis distance plus
        log-determinant), or of every lost red when all ``reds`` numbers are taken."""
        c = self.config
        reds = [tr for tr in self.tracks if tr.cls == RED]
        lost = [tr for tr in reds if tr.status == "predicted"]
        if not lost:
            return None
        zhat, s, _ = self.association.predicted(lost)
        e = xy - zhat
        d2 = np.einsum("ni,nij,nj->n", e, np.linalg.inv(s), e)
        score = d2 + np.log(np.linalg.det(s))
        plausible = (d2 <= c.gate_chi2) | np.array([t - tr.last_seen_t > c.lost_after_s
                                                     for tr in lost])
        if on_path is not None:
            plausible |= on_path(lost)
        if plausible.any():
            return lost[int(np.argmin(np.where(plausible, score, np.inf)))]
        if len(reds) >= c.reds:
            return lost[int(np.argmin(score))]
        return None

    def _take_red_number(self, tr: _Track, t: float) -> bool:
        """Give ``tr``, found to be a red, a red's number: that of the lost red it is
        (``_lost_red``; that stale record of the same ball gives way), else a free one.
        False when there is none."""
        lost = self._lost_red(tr.kf.x[:2], t)
        if lost is not None:
            self.tracks = [o for o in self.tracks if o is not lost]
            tr.track_id, tr.cls = lost.track_id, RED
            return True
        taken = {o.track_id for o in self.tracks}
        free = [f"red_{n:02d}" for n in range(1, self.config.reds + 1)
                if f"red_{n:02d}" not in taken]
        if not free:
            return False
        tr.track_id, tr.cls = free[0], RED
        return True

    def _relabel(self, t: float, frame: int) -> None:
        """Fix a ball given the wrong class when it was first confirmed: when a track's class
        votes favour another class by relabel_ratio (and by at least relabel_votes), it takes
        that class's id, swapping with the track holding it when that one's votes favour the
        first track's class, or taking a free id (for a red, that of the lost red it is,
        ``_take_red_number``)."""
        c = self.config
        if not self.tracks:
            return
        # the votes stay as they are below; the classes may swap
        votes = np.array([tr.votes for tr in self.tracks])
        favoured = votes.argmax(axis=1)
        strong = votes.max(axis=1) >= c.relabel_votes
        for tr, best, clear in zip(self.tracks, favoured.tolist(), strong.tolist()):
            if (not clear or not tr.active or best == tr.cls
                    or tr.votes[best] < c.relabel_ratio * tr.votes[tr.cls]):
                continue
            if best == RED:
                holders = [o for o in self.tracks if o.cls == RED and o.active]
            else:
                holders = [o for o in self.tracks if o.track_id == BALL_CLASSES[best]]
            partner = next((o for o in holders if o.active and int(np.argmax(o.votes)) == tr.cls),
                           None)
            was = tr.track_id
            if partner is not None:
                tr.track_id, partner.track_id = partner.track_id, tr.track_id
                tr.cls, partner.cls = partner.cls, tr.cls
            elif best == RED:
                if not self._take_red_number(tr, t):
                    continue
            else:
                if any(o.active for o in holders):
                    continue  # that ball is on the table and looks like itself
                if holders and (tr.born_t <= max(o.gone_t for o in holders)
                                or not self._on_spot(tr.kf.x[:2], BALL_CLASSES[best], tr)):
                    continue  # that colour left play: back only as a ball re-spotted since
                # a stale record of that colour (potted, off the table) gives way
                self.tracks = [o for o in self.tracks if o not in holders]
                tr.track_id, tr.cls = BALL_CLASSES[best], best
            self._events.append({"type": "relabel", "frame": frame, "t": t,
                                 "ball": tr.track_id, "class": BALL_CLASSES[tr.cls], "was": was})

    def _started(self, frame: int) -> bool:
        """Whether the tracker is past its first confirmations (balls there from the start)."""
        return frame - self._first_frame > self.config.confirm_window

    def _track(self, track_id: str) -> _Track | None:
        return next((tr for tr in self.tracks if tr.track_id == track_id), None)

    def _filter_for(self, cd: _Candidate) -> tuple[KalmanFilter, bool]:
        c = self.config
        moving = self._moving_candidate(cd)
        v = cd.velocity if moving else np.zeros(2)
        xy = cd.xy + c.exposure_s / 2 * v
        sigma = c.moving_sigma_mm if moving else c.rest_sigma_mm
        kf = self.model.new_filter(xy, v, sigma, c.launch_speed_sigma_mm_s if moving else 0.0)
        # a candidate's position is the mean of its sightings' image noise
        kf.P[:2, :2] += self.model.r_image(xy)[0] / max(cd.hits, 1)
        return kf, moving

    def _new_track(self, name: str, k: int, cd: _Candidate, t: float, frame: int) -> _Track:
        kf, moving = self._filter_for(cd)
        tr = _Track(name, k, kf, moving, votes=cd.votes.copy(), anchor_t=t, born_t=cd.first_t)
        self._seen([tr], t, frame)
        return tr

    def _restart(self, tr: _Track, cd: _Candidate, t: float, frame: int) -> None:
        tr.kf, tr.moving = self._filter_for(cd)
        tr.votes += cd.votes
        tr.pocket, tr.restless, tr.slow_since, tr.anchor_t = "", 0, None, t
        tr.shift[:] = 0
        self._seen([tr], t, frame)

    def _placed(self, tr: _Track, cd: _Candidate, frame: int) -> None:
        table = self.config.table
        x, y = (float(v) for v in tr.kf.x[:2])
        ev = {"frame": cd.first_frame, "t": cd.first_t, "ball": tr.track_id,
              "class": BALL_CLASSES[tr.cls], "position_mm": [round(x, 2), round(y, 2)]}
        if tr.cls == WHITE:
            ev = {"type": "white_placed", **ev, "in_d": bool(table.in_d(x, y))}
        else:
            spot = next((n for n, p in table.spots_mm.items() if n in COLOURS
                         and math.hypot(p[0] - x, p[1] - y) < table.ball_radius_mm), None)
            ev = {"type": "respot", **ev, "spot": spot}
        self._events.append(ev)

    # -- output ------------------------------------------------------------------------------------
    def _state(self, frame: int, t: float) -> TableState:
        trs = self.tracks
        x = np.array([tr.kf.x for tr in trs]).reshape(-1, 4)
        active = np.array([tr.active for tr in trs], bool)[:, None]
        events = tuple({**e, **{k: self._source_time.get(e[k], e[k]) for k in ("t", "struck_t")
                                if k in e}} for e in self._events)
        # who is who changes seldom: the last frame's arrays (read-only) serve again
        labels = [(tr.track_id, tr.cls, tr.status, tr.pocket) for tr in trs]
        if labels != self._labels:
            self._labels = labels
            self._label_arrays = (np.array([tr.track_id for tr in trs], dtype=str),
                                  np.array([tr.cls for tr in trs], np.int64),
                                  np.array([tr.status for tr in trs], dtype=str),
                                  np.array([tr.pocket for tr in trs], dtype=str))
        ids, classes, status, pocket = self._label_arrays
        return TableState(frame, t, ids, classes, np.where(active, x[:, :2], np.nan),
                          np.where(active, x[:, 2:], 0.0), status, pocket, events)
