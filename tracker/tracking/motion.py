"""The balls' motion: the per-ball Kalman model (``MotionModel``, its matrices built once per
frame interval and its predict and update batched over balls) and the tracks' filters
predicted, measured, relaunched and brought to rest (``Filters``)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from filterpy.common import Q_discrete_white_noise
from filterpy.kalman import KalmanFilter

from tracker.tracking.config import TrackerConfig
from tracker.tracking.tracks import Roster, Track

# Cost of an assignment outside every gate: larger than any gated cost can be.
_EYE4 = np.eye(4)


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


class Filters:
    """The tracks' Kalman filters under ``model``: predicted over each frame interval,
    measured (or relaunched where a detection says the ball was struck), and brought to rest;
    ``roster`` the tracker's shared bookkeeping (its clock and the tracks free to move)."""

    def __init__(self, config: TrackerConfig, model: MotionModel, roster: Roster):
        self.config = config
        self.model = model
        self.roster = roster
        table = config.table
        self._pocket_points = np.array([p.point_mm for p in table.pockets.values()])
        self._r = table.ball_radius_mm

    def predict(self, tracks: list[Track], m: MotionMatrices) -> None:
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

    def measure(self, tr: Track, z, d2: float, r: np.ndarray, t: float) -> bool:
        """Judge detection ``z`` (2,) mm, at ``d2`` (chi-square) from ``tr``'s prediction, its
        noise ``r`` (2, 2) there: a kick restarts the filter, a resting ball's doubtful
        detection is held or ignored. True when the filter is to take it as a measurement
        (``take_measurements``)."""
        c = self.config
        if not tr.moving:
            if d2 > c.restless_chi2 and id(tr) not in self.roster.free:
                tr.restless = 0  # nothing can have moved it: the detection is off, not the ball
            elif d2 > c.launch_chi2 or (d2 > c.restless_chi2 and tr.restless >= 1):
                self.relaunch(tr, z, t)
            elif d2 > c.restless_chi2:
                tr.restless += 1  # hold the estimate until the next frame says which
            else:
                tr.restless = 0
                return True
            return False
        if d2 > c.kick_chi2:
            # a kick the constant-velocity model did not expect (a kiss, a cushion): a partial
            # update would leave the estimate between the old path and the new one
            self.relaunch(tr, z, t)
            return False
        return True

    def take_measurements(self, tracks: list[Track], z: np.ndarray, r: np.ndarray, t: float
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

    def vote(self, tr: Track, cls: int, conf: float) -> None:
        if cls >= 0:
            tr.votes[cls] += conf

    def seen(self, tracks: list[Track], t: float, frame: int) -> None:
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

    def recent_speeds(self, tracks: list[Track]) -> list[float]:
        """The fastest each of ``tracks`` was seen going within launch_window_s (mm/s): a ball
        that has just struck another has just slowed down."""
        window = self.config.launch_window_s
        now = np.hypot(*np.array([tr.kf.x[2:] for tr in tracks]).reshape(-1, 2).T).tolist()
        return [max([speed] + [v for ts, v in tr.speeds if self.roster.t - ts <= window])
                for tr, speed in zip(tracks, now)]

    def relaunch(self, tr: Track, z, t: float, bound: float | None = None) -> None:
        """The ball is moving (struck, kissed or deflected): restart its filter at ``z`` with
        the velocity from where it was last known. A ball set moving from rest notes the
        fastest it can have been struck at (``bound`` mm/s, or ``BallTracker._may_move``'s)."""
        c = self.config
        if tr.moving:
            v = (z - tr.last_seen_x[:2]) / max(t - tr.last_seen_t, 1e-6)
        else:
            v = (z - tr.kf.x[:2]) / max(t - tr.anchor_t, 1e-6)
            tr.launch = (t, self.roster.free.get(id(tr), 0.0) if bound is None else bound)
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

    def _maybe_rest(self, tr: Track, t: float) -> None:
        c = self.config
        if np.hypot(*tr.kf.x[2:]) < c.rest_speed_mm_s:
            if tr.slow_since is None:
                tr.slow_since = t
            if t - tr.slow_since >= c.rest_after_s:
                self._to_rest(tr)
        else:
            tr.slow_since = None

    def _to_rest(self, tr: Track) -> None:
        kf = tr.kf
        kf.x[2:] = 0.0
        kf.P[2:, :] = 0.0
        kf.P[:, 2:] = 0.0
        tr.moving, tr.slow_since, tr.restless = False, None, 0
        tr.shift[:] = 0
        tr.anchor_t = self.roster.t
