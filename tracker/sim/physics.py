"""A deterministic snooker ball simulator in table millimetres and seconds (z up, g = 9810 mm/s^2).

The integrator steps time in short steps (``PhysicsParams.dt``) as kick-drift-kick: the cloth
friction (sliding, rolling, spinning) and gravity of half a step update each ball's velocity and
spin, solved in closed form so a ball that reaches natural roll or stops does so exactly; every
ball then moves in a straight line for the step, and the other half of the forces follow. While
drifting, the earliest time of impact (ball-ball, ball-cushion nose, ball-jaw, airborne
ball-cloth) is found by solving the quadratic of that linear motion, all balls advance to it, the
contact is resolved by an impulse, and the search repeats for the rest of the step. Contacts
therefore happen at their sub-step time, balls never interpenetrate, and each impulse conserves
momentum and never adds energy.

Models (D. Alciatore, "The Illustrated Principles of Pool and Billiards" and its technical
proofs, with his table of typical property values; S. Mathavan et al., "A theoretical analysis of
billiard ball dynamics under cushion impacts", Proc. IMechE C, 2010):
- cloth: sliding friction opposite the contact-point velocity, rolling resistance once the
  contact point is at rest, a spin-decay torque for the z spin; airborne balls fly ballistically
  and bounce on the cloth with restitution ``e_cloth`` and sliding friction at the bounce.
- ball-ball: 3D impulse along the line of centres with restitution ``e_ball`` and Coulomb
  friction at the contact, capped at the impulse that stops the slip (throw, spin transfer).
- cushions and jaws: the nose is a horizontal line at ``table.cushion_nose_height_mm``; the
  contact normal runs from the nose to the ball centre, so it points down into the cloth, and the
  friction impulse at the nose couples side and top spin into the rebound.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from calibration.specs import SNOOKER, PoolTableSpec, SnookerTableSpec
from tracker.sim.model import (
    BallSet,
    BallState,
    Motion,
    SimEvent,
    Strike,
    quat_from_rotvec,
    quat_mul,
)

# Either game's table: the physics reads only the outline, cushions, pockets, nose and balls.
TableSpec = SnookerTableSpec | PoolTableSpec
# The ball the cue strikes, by game.
CUE_BALL_IDS = ("white", "cue")

# Plain ints: numpy compares these with int8 arrays far faster than IntEnum members.
ON, AIR, POTTED, OFF = (int(BallState.ON_TABLE), int(BallState.AIRBORNE),
                        int(BallState.POTTED), int(BallState.OFF_TABLE))


@dataclass(frozen=True)
class PhysicsParams:
    """Physical constants and integrator settings."""

    # mm/s^2: standard gravity.
    g: float = 9810.0
    # kg: snooker ball mass (WPBSA Rule 2 allows a set within 3 g; ~141 g is typical); energy only.
    mass_kg: float = 0.1406
    # Sliding friction ball-cloth (Alciatore's typical values: 0.15-0.4, ~0.2; Mathavan et al.
    # 2010 measured 0.212 on a snooker table).
    mu_slide: float = 0.2
    # Rolling resistance, deceleration mu_roll g (Alciatore: 0.005-0.015).
    mu_roll: float = 0.01
    # Spin decay d(omega_z)/dt = -5 mu_spin g / (2 R) = ~11 rad/s^2 (Alciatore: 5-15 rad/s^2).
    mu_spin: float = 0.0117
    # Ball-ball restitution (Alciatore: 0.92-0.98 for phenolic resin balls).
    e_ball: float = 0.95
    # Ball-ball friction, the source of throw (Alciatore: 0.03-0.08).
    mu_ball: float = 0.06
    # Restitution along the nose normal. The cloth takes the normal's vertical part, leaving
    # ~0.78 across the cushion (Alciatore: ball-rail 0.6-0.9).
    e_cushion: float = 0.9
    # Ball-cushion friction at the nose (Mathavan et al. 2010: 0.14).
    mu_cushion: float = 0.14
    # Restitution of a ball bouncing on the cloth (Alciatore: ball-table ~0.5).
    e_cloth: float = 0.5
    # mm/s: a bounce or hop slower than this settles on the cloth (a hop of ~0.5 mm).
    settle_vz: float = 100.0
    # mm/s: a strike's cloth rebound, or the kick of a contact, slower than this does not lift
    # the ball (a hop of ~8 mm): only elevated (> ~25 deg) firm strokes jump, as players find.
    jump_min_vz: float = 400.0
    # s: longest integration step (a sample interval is split evenly). The kick-drift-kick
    # scheme is exact for the constant cloth decelerations and contacts are found inside the
    # step, so ~2 ms only costs a (~ micrometre) error where a ball changes its mode mid-step.
    dt: float = 2.5e-3
    # Cloth imperfection: each step the rolling resistance of each ball is scaled by a uniform
    # factor in 1 +/- cloth_noise (dissipative only; makes seeds differ).
    cloth_noise: float = 0.05
    # Strike jitter (normal std): heading in degrees and relative speed, a cueing's repeatability.
    strike_jitter_deg: float = 0.005
    strike_jitter_speed: float = 1e-4
    # s: animation of a potted ball sinking below the fall circle, and of a ball flying off.
    pot_sink_s: float = 0.1
    off_flight_s: float = 0.5
    # mm: depth a potted ball sinks to (z), for renderers.
    pot_depth_mm: float = -100.0
    # mm/s: contacts with a smaller normal speed (settling of touching balls) are not reported.
    min_event_speed: float = 1.0


# Approach test: b = p.v must be below this (mm^2/s) for a contact to count as closing.
_APPROACH_EPS = 1e-7
# mm: beyond the ball's reach per step, how near the outline a ball must be for the rail test
# (the knuckles sit on the outline, the jaws run outside it).
_RAIL_MARGIN_MM = 1.0
# mm: a ball whose centre is farther inside the outline than this cannot be at a pocket.
_MOUTH_REACH_MM = 80.0
# (a, b) -> (-a, b): used for u = v + R (-wy, wx) and w = (-vy, vx) / R.
_SWAP_SIGN = np.array([-1.0, 1.0])
# Contacts resolved inside one step before the rest of the step is left to the next.
_MAX_CONTACTS_PER_STEP = 20000


# ---------------------------------------------------------------------------------------------
# Geometry


@dataclass(frozen=True)
class _Rails:
    """Cushion noses and jaws as one-sided segments at the nose height, and their end points.

    seg_a (S, 2) start; seg_d (S, 2) unit direction; seg_len (S,); seg_n (S, 2) unit normal on
    the side balls come from; seg_name (S,) cushion or pocket name; seg_jaw (S,) bool.
    pts (K, 2) knuckles and jaw ends; pt_pocket (K,) pocket name.
    mouth_a (P, 2) a knuckle of each pocket; mouth_out (P, 2) unit normal of the mouth line
    pointing out of the table; mouth_mid (P, 2); fall_c (P, 2); fall_r (P,); pocket (P,) names.
    """

    seg_a: np.ndarray
    seg_d: np.ndarray
    seg_len: np.ndarray
    seg_n: np.ndarray
    seg_name: tuple
    seg_jaw: np.ndarray
    pts: np.ndarray
    pt_pocket: tuple
    mouth_a: np.ndarray
    mouth_out: np.ndarray
    mouth_mid: np.ndarray
    fall_c: np.ndarray
    fall_r: np.ndarray
    pocket: tuple


# Jaw faces: corner jaws open a few degrees from the pocket's axis and run past the fall circle;
# middle jaws are short and open wide (rounded-looking mouths).
_CORNER_JAW = (math.radians(4.0), 75.0)
_MIDDLE_JAW = (math.radians(20.0), 30.0)
# WPA pockets: the jaws meet the cushion noses at 142 degrees (corner) and 104 degrees (side),
# so they close in by 7 and 14 degrees from the pocket's axis towards its throat.
_POOL_CORNER_JAW = (math.radians(-7.0), 60.0)
_POOL_SIDE_JAW = (math.radians(-14.0), 25.0)


def cue_ball_index(ids) -> int:
    """Index of the cue ball (``white`` or ``cue``) in ``ids``, -1 if none."""
    for name in CUE_BALL_IDS:
        if name in ids:
            return list(ids).index(name)
    return -1


def _jaw(table: TableSpec, pocket: str) -> tuple[float, float]:
    """(opening angle rad from the pocket's axis, length mm) of a pocket's jaws."""
    if isinstance(table, PoolTableSpec):
        return _POOL_SIDE_JAW if pocket.startswith("side") else _POOL_CORNER_JAW
    return _MIDDLE_JAW if pocket.startswith("middle") else _CORNER_JAW


def _rails(table: TableSpec) -> _Rails:
    centre = np.array([table.width_mm / 2, table.length_mm / 2])
    seg_a, seg_b, seg_n, names, jaw = [], [], [], [], []

    def add(a, b, toward, name, is_jaw):
        a, b = np.asarray(a, float), np.asarray(b, float)
        d = (b - a) / np.linalg.norm(b - a)
        n = np.array([-d[1], d[0]])
        if n @ (toward - a) < 0:
            n = -n
        seg_a.append(a), seg_b.append(b), seg_n.append(n), names.append(name), jaw.append(is_jaw)

    for name, (a, b) in table.cushions_mm.items():
        add(a, b, centre, name, False)
    pts, pt_pocket, m_a, m_out, m_mid, f_c, f_r, pnames = [], [], [], [], [], [], [], []
    for name, p in table.pockets.items():
        k1, k2 = (np.asarray(k, float) for k in p.knuckles_mm)
        mid = (k1 + k2) / 2
        out = np.array([-(k2 - k1)[1], (k2 - k1)[0]])
        out /= np.linalg.norm(out)
        if out @ (centre - mid) > 0:
            out = -out
        opening, length = _jaw(table, name)
        for k in (k1, k2):
            lateral = (k - mid) / np.linalg.norm(k - mid)
            direction = out + math.tan(opening) * lateral
            end = k + length * direction / np.linalg.norm(direction)
            add(k, end, mid + out * length, name, True)
            pts += [k, end]
            pt_pocket += [name, name]
        m_a.append(k1), m_out.append(out), m_mid.append(mid)
        f_c.append(p.fall_centre_mm), f_r.append(p.fall_radius_mm), pnames.append(name)
    seg_a, seg_b = np.array(seg_a), np.array(seg_b)
    lens = np.linalg.norm(seg_b - seg_a, axis=1)
    return _Rails(seg_a, (seg_b - seg_a) / lens[:, None], lens, np.array(seg_n), tuple(names),
                  np.array(jaw), np.array(pts), tuple(pt_pocket), np.array(m_a),
                  np.array(m_out), np.array(m_mid), np.array(f_c, float), np.array(f_r, float),
                  tuple(pnames))


def _time_of_impact(a, b, c, horizon):
    """Earliest t in [0, horizon] with a t^2 + 2 b t + c = 0 while closing (b < 0).

    a, b, c: arrays of one shape (|v|^2, p.v, |p|^2 - D^2 of a relative linear motion);
    returns t of that shape, inf where there is no impact. Already-touching closing pairs: 0.
    """
    disc = b * b - a * c
    # c / (-b + sqrt(disc)) is the smaller root without cancellation.
    t = np.maximum(c, 0.0) / np.maximum(np.sqrt(np.maximum(disc, 0.0)) - b, 1e-300)
    hit = (b < -_APPROACH_EPS) & (disc >= 0) & (t <= horizon)
    return np.where(hit, t, np.inf)


# ---------------------------------------------------------------------------------------------
# Impulses


def collide_balls(p1, v1, w1, p2, v2, w2, radius_mm, params: PhysicsParams = PhysicsParams()):
    """Impulse between two equal balls touching at p1, p2 (3,) mm.

    v (3,) mm/s, w (3,) rad/s before; returns (v1, w1, v2, w2) after, and the normal speed at
    impact (mm/s, >= 0 when closing). Normal impulse (1 + e_ball) m v_n along the line of
    centres; tangential impulse mu_ball times it, capped at the impulse that stops the slip of
    the contact points; equal and opposite on the two balls (unit mass: momentum is velocity).
    """
    R = radius_mm
    n = p2 - p1
    n = n / math.sqrt(n @ n)
    # Velocity of ball 1's contact point relative to ball 2's.
    rel = (v1 + np.cross(w1, R * n)) - (v2 + np.cross(w2, -R * n))
    vn = rel @ n
    if vn <= 0:
        return v1.copy(), w1.copy(), v2.copy(), w2.copy(), 0.0
    jn = (1 + params.e_ball) * vn / 2  # m = 1, reduced mass 1/2
    slip = rel - vn * n
    s = math.sqrt(slip @ slip)
    # Stick: the slip changes by J_t (1/m + 1/m + 2 R^2/I) = 7 J_t per unit mass.
    jt = min(params.mu_ball * jn, s / 7) if s > 0 else 0.0
    impulse = -jn * n - (jt / s * slip if s > 0 else 0.0)  # on ball 1
    k = 5 / (2 * R * R)  # 1 / I per unit mass
    v1n, v2n = v1 + impulse, v2 - impulse
    w1n = w1 + k * np.cross(R * n, impulse)
    w2n = w2 + k * np.cross(-R * n, -impulse)
    return v1n, w1n, v2n, w2n, float(vn)


def collide_rail(p, v, w, contact, radius_mm, e, mu):
    """Impulse on a ball touching a fixed point ``contact`` (3,) of a cushion nose or jaw.

    Returns (v, w) after and the normal speed at impact. Restitution e along the normal from the
    contact to the centre; Coulomb friction mu at the contact, capped at stopping the slip.
    """
    R = radius_mm
    n = p - contact
    n = n / math.sqrt(n @ n)
    vc = v + np.cross(w, -R * n)
    vn = vc @ n
    if vn >= 0:
        return v.copy(), w.copy(), 0.0
    jn = -(1 + e) * vn
    slip = vc - vn * n
    s = math.sqrt(slip @ slip)
    # Stick: the slip changes by J_t (1/m + R^2/I) = 7/2 J_t per unit mass.
    jt = min(mu * jn, 2 * s / 7) if s > 0 else 0.0
    impulse = jn * n - (jt / s * slip if s > 0 else 0.0)
    return v + impulse, w + 5 / (2 * R * R) * np.cross(-R * n, impulse), float(-vn)


def _cloth_bounce(v, w, radius_mm, e, mu):
    """A ball meeting the cloth with v[2] < 0: restitution e, friction mu at the bottom point.

    v, w (3,); returns (v, w) after."""
    R = radius_mm
    jn = -(1 + e) * v[2]
    u = np.array([v[0] - R * w[1], v[1] + R * w[0], 0.0])
    s = math.sqrt(u @ u)
    jt = min(mu * jn, 2 * s / 7) if s > 0 else 0.0
    impulse = np.array([0.0, 0.0, jn]) - (jt / s * u if s > 0 else 0.0)
    return v + impulse, w + 5 / (2 * R * R) * np.cross([0.0, 0.0, -R], impulse)


def _cloth_kick(vel, omega, state, h: float, noise, radius_mm: float, params: PhysicsParams):
    """Closed-form cloth friction over h s for balls on the cloth, gravity for airborne ones;
    updates vel, omega (N, 3) in place. noise (N,): each ball's rolling-resistance factor.

    Works on every ball with masks (no index lists): with ~22 balls that is the cheaper way.
    """
    p, R, g = params, radius_mm, params.g
    on = state == ON
    vel[:, 2] -= (state == AIR) * (g * h)
    v, w = vel, omega
    # Contact-point velocity u = v + w x (0, 0, -R) = (vx - R wy, vy + R wx).
    u = v[:, :2] + R * w[:, 1::-1] * _SWAP_SIGN
    us = np.sqrt(np.einsum("ij,ij->i", u, u))
    # Sliding: u keeps its direction and shrinks at 7/2 mu_slide g until natural roll.
    tau = np.minimum(2 * us / (7 * p.mu_slide * g), h) * on
    k = (p.mu_slide * g * tau / np.maximum(us, 1e-300))[:, None]
    v[:, :2] -= k * u
    w[:, :2] += (5 / (2 * R)) * k * u[:, ::-1] * _SWAP_SIGN
    rolling_for = (h - tau) * on  # time of the step spent rolling
    speed = np.sqrt(np.einsum("ij,ij->i", v[:, :2], v[:, :2]))
    new = np.maximum(speed - p.mu_roll * g * noise * rolling_for, 0.0)
    v[:, :2] *= np.where(rolling_for > 0, new / np.maximum(speed, 1e-300), 1.0)[:, None]
    w[:, :2] = np.where((rolling_for > 0)[:, None], v[:, 1::-1] * _SWAP_SIGN / R, w[:, :2])
    wz = np.maximum(np.abs(w[:, 2]) - 5 * p.mu_spin * g / (2 * R) * h, 0.0)
    w[:, 2] = np.where(on, np.copysign(wz, w[:, 2]), w[:, 2])


def strike_white(balls: BallSet, strike: Strike, params: PhysicsParams = PhysicsParams(),
                 table: TableSpec = SNOOKER) -> BallSet:
    """The balls just after the cue strikes the cue ball (``"white"``, or ``"cue"`` in pool);
    a copy.

    The cue pushes along its axis (heading ``direction_deg``, tilted down by ``elevation_deg``)
    through the tip point at (side, top) ball radii off the axis: the white leaves at
    ``speed_mm_s`` along the cue with spin r x (m v) / I. The downward part bounces off the
    cloth (``e_cloth``, cloth friction at the bounce); a rebound faster than ``jump_min_vz``
    makes the white airborne, a slower one is absorbed.
    """
    out = balls.copy()
    i = cue_ball_index(out.ids)
    if i < 0:
        raise ValueError(f"no cue ball ({' or '.join(CUE_BALL_IDS)}) among the balls")
    R = table.ball_radius_mm
    phi, theta = math.radians(strike.direction_deg), math.radians(strike.elevation_deg)
    cue = np.array([math.cos(theta) * math.cos(phi), math.cos(theta) * math.sin(phi),
                    -math.sin(theta)])
    right = np.array([math.sin(phi), -math.cos(phi), 0.0])
    up = np.cross(right, cue)
    a, b = strike.side, strike.top
    off = math.hypot(a, b)
    if off > 0.95:  # the tip cannot reach past the ball's silhouette
        a, b = a * 0.95 / off, b * 0.95 / off
    r = R * (a * right + b * up - math.sqrt(1 - a * a - b * b) * cue)
    v = strike.speed_mm_s * cue
    w = 5 / (2 * R * R) * np.cross(r, v)
    if v[2] < 0:
        bounced = _cloth_bounce(v, w, R, params.e_cloth, params.mu_slide)
        # Too slow a rebound to leave the cloth: the cloth absorbs the push instead.
        v, w = bounced if bounced[0][2] >= params.jump_min_vz else _cloth_bounce(
            v, w, R, 0.0, params.mu_slide)
        v[2] = max(v[2], 0.0)
    out.vel[i], out.omega[i] = v, w
    out.pos[i, 2] = R
    out.state[i] = AIR if v[2] > 0 else ON
    return out


def total_energy(balls: BallSet, params: PhysicsParams = PhysicsParams(),
                 table: TableSpec = SNOOKER) -> float:
    """Translational + rotational + potential energy (J, potential from the cloth) of the balls
    in play (on the table or airborne)."""
    live = balls.on_table()
    R = table.ball_radius_mm
    m = params.mass_kg
    v2 = np.sum(balls.vel[live] ** 2) * 1e-6
    w2 = np.sum(balls.omega[live] ** 2)
    inertia = 0.4 * m * (R * 1e-3) ** 2
    pot = m * params.g * 1e-6 * np.sum(balls.pos[live, 2] - R)
    return float(0.5 * m * v2 + 0.5 * inertia * w2 + pot)


# ---------------------------------------------------------------------------------------------
# The integrator


class Simulation:
    """The balls of a table moving under the model; step it with ``advance_to``.

    State lives in parallel arrays (``pos``, ``vel``, ``omega`` (N, 3), ``state`` (N,)); events
    accumulate in ``events``; ``t`` is the current time in seconds. With ``orientation`` the
    balls' orientations (``orient`` (N, 4) quaternions) turn with their spin as they drift.
    """

    def __init__(self, balls: BallSet, table: TableSpec = SNOOKER,
                 params: PhysicsParams = PhysicsParams(), seed: int = 0,
                 orientation: bool = False):
        self.table, self.params = table, params
        self.ids, self.classes = list(balls.ids), list(balls.classes)
        self.pos, self.vel = balls.pos.copy(), balls.vel.copy()
        self.omega, self.state = balls.omega.copy(), balls.state.copy()
        self.orient = balls.orient.copy() if orientation else None
        self._orient_given = balls.orient.copy()  # handed back unchanged when not carried
        self.R = table.ball_radius_mm
        self.rails = _rails(table)
        self.rng = np.random.default_rng(seed)
        self.t = 0.0
        self.t_still = 0.0  # time at which the last motion ended
        self._owed = 0.0  # s of cloth forces not yet applied to vel/omega (see _step)
        self._noise = self._cloth_noise()
        self.events: list[SimEvent] = []
        n = len(self.ids)
        on = self.state == ON
        self.pos[on, 2] = self.R
        self.vel[on, 2] = 0.0
        out = (self.state != ON) & (self.state != AIR)
        self.vel[out], self.omega[out] = 0.0, 0.0
        self._pairs = np.array([(i, j) for i in range(n) for j in range(i + 1, n)],
                               dtype=int).reshape(-1, 2)
        self._refresh_live()
        # Animations of balls that left play: start time, start position, start velocity.
        self._gone_t = np.full(n, np.nan)
        self._gone_p = np.zeros((n, 3))
        self._gone_v = np.zeros((n, 3))
        self._gone_to = np.zeros((n, 3))
        self._landed = np.ones(n, bool)  # first touch-down of the current flight reported
        self._white = cue_ball_index(self.ids)
        self._over_inside: set[int] = set()
        self._over_touched: set[int] = set()
        self._jump_reported = True

    # -- public -------------------------------------------------------------------------------

    def strike(self, strike: Strike) -> None:
        """Strike the white, with the cueing jitter drawn from the seeded generator."""
        p = self.params
        jittered = replace(
            strike,
            direction_deg=strike.direction_deg + self.rng.normal(0, p.strike_jitter_deg),
            speed_mm_s=min(15000.0, strike.speed_mm_s
                           * (1 + self.rng.normal(0, p.strike_jitter_speed))))
        self.vel, self.omega = self._synced()
        self._owed = 0.0
        after = strike_white(self.balls(), jittered, p, self.table)
        i = self._white
        self.vel[i], self.omega[i], self.state[i] = after.vel[i], after.omega[i], after.state[i]
        if self.state[i] == AIR:
            self._take_off(i)

    def balls(self) -> BallSet:
        """A copy of the current state as a BallSet."""
        vel, omega = self._synced()
        return BallSet(list(self.ids), list(self.classes), self.pos.copy(), vel, omega,
                       self.state.copy(),
                       (self._orient_given if self.orient is None else self.orient).copy())

    def _synced(self) -> tuple[np.ndarray, np.ndarray]:
        """Copies of vel, omega with the pending forces applied."""
        vel, omega = self.vel.copy(), self.omega.copy()
        if self._owed:
            _cloth_kick(vel, omega, self.state, self._owed, self._noise, self.R, self.params)
        return vel, omega

    def sample_positions(self) -> np.ndarray:
        """(N, 3) positions for display: balls in play where they are, potted balls sinking under
        the fall centre, balls off the table on their flight, then frozen."""
        out = self.pos.copy()
        p = self.params
        for i in np.flatnonzero(~np.isnan(self._gone_t)):
            tau = self.t - self._gone_t[i]
            if self.state[i] == POTTED:
                s = min(1.0, tau / p.pot_sink_s) ** 2
                out[i] = self._gone_p[i] + s * (self._gone_to[i] - self._gone_p[i])
            else:
                tau = min(tau, p.off_flight_s)
                out[i] = self._gone_p[i] + self._gone_v[i] * tau
                out[i, 2] -= 0.5 * p.g * tau * tau
        return out

    def at_rest(self) -> bool:
        """Every ball in play is still and every leaving animation has finished."""
        if (self.state == AIR).any():
            return False
        p, g = self.params, self.params.g
        # Quick answer while anything moves faster than the pending forces could stop.
        v_stop = (p.mu_slide + p.mu_roll * (1 + p.cloth_noise)) * g * self._owed
        w_stop = (2.5 * (p.mu_slide + p.mu_spin) * g * self._owed + v_stop) / self.R
        if (np.abs(self.vel).max(initial=0.0) > v_stop
                or np.abs(self.omega).max(initial=0.0) > w_stop):
            return False
        vel, omega = self._synced()
        if vel.any() or omega.any():  # balls out of play have none
            return False
        gone = ~np.isnan(self._gone_t)
        ends = np.where(self.state[gone] == POTTED, self.params.pot_sink_s,
                        self.params.off_flight_s)
        return bool(np.all(self.t - self._gone_t[gone] >= ends - 1e-12))

    def advance_to(self, t_end: float) -> None:
        """Integrate up to t_end (s), in equal steps no longer than ``params.dt``."""
        span = t_end - self.t
        if span <= 1e-12:
            return
        n = max(1, math.ceil(span / self.params.dt - 1e-9))
        h = span / n
        for k in range(n):
            t_next = t_end if k == n - 1 else self.t + h
            if self._moving():
                self._step(t_next - self.t)
                self.t_still = t_next
            else:
                self._owed = 0.0  # nothing moves: the pending forces do nothing
            self.t = t_next

    # -- stepping -----------------------------------------------------------------------------

    def _cloth_noise(self) -> np.ndarray:
        """(N,) rolling-resistance factors in 1 +/- cloth_noise."""
        return 1 + self.params.cloth_noise * (2 * self.rng.random(len(self.ids)) - 1)

    def _moving(self) -> bool:
        # Balls out of play have zero velocity and spin; an airborne ball moves even at its apex.
        return bool(self.vel.any() or self.omega.any() or (self.state == AIR).any())

    def _step(self, h: float) -> None:
        """Kick-drift-kick: the forces of half the step, a straight drift with contacts, the
        other half. Exact for the constant decelerations of sliding, rolling and flight, so
        positions do not lag the closed-form motion. The trailing half is kept pending
        (``_owed``) and merged into the next step's first kick; observers see it applied."""
        _cloth_kick(self.vel, self.omega, self.state, self._owed + h / 2, self._noise, self.R,
                    self.params)
        self._owed = h / 2
        t0, done = self.t, 0.0
        for _ in range(_MAX_CONTACTS_PER_STEP):
            kind, idx, toi = self._earliest(h - done)
            if kind is None:
                break
            self._move(toi)
            done += toi
            self._resolve(kind, idx, float(t0 + done))
        self._move(h - done)
        self.t = t0 + h
        # The pending half and the next step's first half share this draw.
        self._noise = self._cloth_noise()
        self._leave_play()
        if self._white >= 0 and self.state[self._white] == AIR:
            self._watch_over()

    def _move(self, dt: float) -> None:
        if dt > 0:
            self.pos += self.vel * dt  # balls out of play have zero velocity
            if self.orient is not None:
                # the spin is constant over a drift: each ball turns by omega dt
                turning = np.flatnonzero(self.omega.any(axis=1))
                if turning.size:
                    q = quat_mul(quat_from_rotvec(self.omega[turning] * dt),
                                 self.orient[turning])
                    self.orient[turning] = q / np.linalg.norm(q, axis=1, keepdims=True)

    def _earliest(self, horizon: float):
        """The first contact within horizon: (kind, index, time) or (None, None, inf)."""
        R, rails = self.R, self.rails
        live = self._live
        best = (None, None, np.inf)
        pa, pb = self._live_pairs
        if len(pa):
            dp = self.pos[pb] - self.pos[pa]
            dv = self.vel[pb] - self.vel[pa]
            t = _time_of_impact(np.einsum("ij,ij->i", dv, dv), np.einsum("ij,ij->i", dp, dv),
                                np.einsum("ij,ij->i", dp, dp) - 4 * R * R, horizon)
            k = int(np.argmin(t))
            if t[k] < best[2]:
                best = ("pair", (int(pa[k]), int(pb[k])), t[k])
        # Only balls that can reach a nose or jaw within the horizon: near the outline.
        x, y = self.pos[:, 0], self.pos[:, 1]
        edge = np.minimum(np.minimum(x, self.table.width_mm - x),
                          np.minimum(y, self.table.length_mm - y))
        reach = np.abs(self.vel).sum(axis=1) * horizon + R + _RAIL_MARGIN_MM
        moving = np.flatnonzero(live & (edge < reach) & np.any(self.vel != 0, axis=1))
        if moving.size == 0:
            return self._earliest_cloth(best, horizon)
        p, v = self.pos[moving], self.vel[moving]
        h_nose = self.table.cushion_nose_height_mm
        # Nose lines: distance^2 = s^2 + (z - h)^2 with s the offset along the segment normal.
        rel = p[:, None, :2] - rails.seg_a[None]
        s0 = np.einsum("msk,sk->ms", rel, rails.seg_n)
        s1 = v[:, :2] @ rails.seg_n.T
        z0, z1 = (p[:, 2] - h_nose)[:, None], v[:, 2][:, None]
        t = _time_of_impact(s1 * s1 + z1 * z1, s0 * s1 + z0 * z1, s0 * s0 + z0 * z0 - R * R,
                            horizon)
        t[s0 <= 0] = np.inf  # one-sided: only from the playing side
        finite = np.isfinite(t)
        if finite.any():
            along = np.einsum("msk,sk->ms", rel, rails.seg_d)
            along = along + np.where(finite, t, 0.0) * (v[:, :2] @ rails.seg_d.T)
            t[(along < 0) | (along > rails.seg_len[None])] = np.inf
            k = int(np.argmin(t))
            if t.flat[k] < best[2]:
                m, s = divmod(k, t.shape[1])
                best = ("line", (int(moving[m]), s), t.flat[k])
        # Knuckles and jaw ends: spheres of radius R around points on the nose line.
        dp = p[:, None, :] - np.concatenate(
            [rails.pts, np.full((len(rails.pts), 1), h_nose)], axis=1)[None]
        t = _time_of_impact(np.broadcast_to(np.einsum("mk,mk->m", v, v)[:, None], dp.shape[:2]),
                            np.einsum("mpk,mk->mp", dp, v),
                            np.einsum("mpk,mpk->mp", dp, dp) - R * R, horizon)
        k = int(np.argmin(t))
        if t.flat[k] < best[2]:
            m, q = divmod(k, t.shape[1])
            best = ("point", (int(moving[m]), q), t.flat[k])
        return self._earliest_cloth(best, horizon)

    def _earliest_cloth(self, best, horizon: float):
        """Airborne balls meeting the cloth, if sooner than best."""
        R = self.R
        air = np.flatnonzero(self.state == AIR)
        if air.size:
            vz = self.vel[air, 2]
            with np.errstate(divide="ignore", invalid="ignore"):
                t = np.where(vz < 0, (R - self.pos[air, 2]) / vz, np.inf)
            t = np.maximum(t, 0.0)
            t[t > horizon] = np.inf
            k = int(np.argmin(t))
            if t[k] < best[2]:
                best = ("cloth", int(air[k]), t[k])
        return best

    def _resolve(self, kind: str, idx, t: float) -> None:
        R, p = self.R, self.params
        if kind == "pair":
            i, j = idx
            vi, wi, vj, wj, speed = collide_balls(self.pos[i], self.vel[i], self.omega[i],
                                                  self.pos[j], self.vel[j], self.omega[j], R, p)
            self.vel[i], self.omega[i], self.vel[j], self.omega[j] = vi, wi, vj, wj
            for b in (i, j):
                self._vertical(b)
            if self._white in (i, j):
                self._over_touched.add(j if i == self._white else i)
            if speed >= p.min_event_speed:
                self.events.append(SimEvent(t, "contact", (self.ids[i], self.ids[j]),
                                            speed_mm_s=speed))
            return
        if kind == "cloth":
            i = idx
            self.vel[i], self.omega[i] = _cloth_bounce(self.vel[i], self.omega[i], R, p.e_cloth,
                                                       p.mu_slide)
            if not self._landed[i]:
                self._landed[i] = True
                if i == self._white and not self._jump_reported:
                    self._jump_reported = True
                    self.events.append(SimEvent(t, "jump", (self.ids[i],)))
                self.events.append(SimEvent(t, "land", (self.ids[i],)))
            if self.vel[i, 2] < p.settle_vz:
                self.vel[i, 2] = 0.0
                self.pos[i, 2] = R
                self.state[i] = ON
            return
        i, k = idx
        h_nose = self.table.cushion_nose_height_mm
        rails = self.rails
        if kind == "line":
            along = (self.pos[i, :2] - rails.seg_a[k]) @ rails.seg_d[k]
            xy = rails.seg_a[k] + along * rails.seg_d[k]
            name, jaw = rails.seg_name[k], bool(rails.seg_jaw[k])
        else:
            xy, name, jaw = rails.pts[k], rails.pt_pocket[k], True
        contact = np.array([xy[0], xy[1], h_nose])
        self.vel[i], self.omega[i], speed = collide_rail(self.pos[i], self.vel[i], self.omega[i],
                                                         contact, R, p.e_cushion, p.mu_cushion)
        self._vertical(i)
        if speed >= p.min_event_speed:
            if jaw:
                self.events.append(SimEvent(t, "jaw", (self.ids[i],), pocket=name,
                                            speed_mm_s=speed))
            else:
                self.events.append(SimEvent(t, "cushion", (self.ids[i],), cushion=name,
                                            speed_mm_s=speed))

    def _vertical(self, i: int) -> None:
        """After an impulse: a ball on the cloth that is kicked up hops; pushed down, the cloth
        takes the push."""
        if self.state[i] != ON:
            return
        if self.vel[i, 2] > self.params.jump_min_vz:
            self.state[i] = AIR
            self._take_off(i)
        else:
            self.vel[i, 2] = 0.0

    def _take_off(self, i: int) -> None:
        self._landed[i] = False
        if i == self._white:
            self._jump_reported = False
            self._over_inside.clear()
            self._over_touched.clear()

    def _watch_over(self) -> None:
        """Report a ``jump`` over each ball whose disc the airborne white's disc crossed
        without touching it."""
        w = self._white
        live = np.flatnonzero(((self.state == ON) | (self.state == AIR))
                              & (np.arange(len(self.ids)) != w))
        d = np.hypot(*(self.pos[live, :2] - self.pos[w, :2]).T)
        inside = set(live[d < 2 * self.R].tolist())
        for j in sorted(self._over_inside - inside):
            if j not in self._over_touched:
                self._jump_reported = True
                self.events.append(SimEvent(self.t, "jump", (self.ids[w],), over=self.ids[j]))
        self._over_inside = inside

    def _leave_play(self) -> None:
        """Pots and balls leaving the table.

        A ball not flying above the nose drops when its centre is past a pocket's mouth and over
        the fall circle, or off the slate (more than a radius outside the outline) at the pocket.
        A ball crossing the outline anywhere else (only an airborne one can) is off the table.
        """
        x, y = self.pos[:, 0], self.pos[:, 1]
        edge = np.minimum(np.minimum(x, self.table.width_mm - x),
                          np.minimum(y, self.table.length_mm - y))
        live = np.flatnonzero(((self.state == ON) | (self.state == AIR)) & (edge < _MOUTH_REACH_MM))
        if live.size == 0:
            return
        rails, R = self.rails, self.R
        xy = self.pos[live, :2]
        beyond = np.einsum("npk,pk->np", xy[:, None] - rails.mouth_a[None], rails.mouth_out) > 0
        near = np.linalg.norm(xy[:, None] - rails.mouth_mid[None], axis=2) < 150.0
        over_hole = np.linalg.norm(xy[:, None] - rails.fall_c[None], axis=2) < rails.fall_r
        low = (self.pos[live, 2] - R) < self.table.cushion_nose_height_mm
        w, L = self.table.width_mm, self.table.length_mm
        outside = (xy[:, 0] < 0) | (xy[:, 0] > w) | (xy[:, 1] < 0) | (xy[:, 1] > L)
        off_slate = (xy[:, 0] < -R) | (xy[:, 0] > w + R) | (xy[:, 1] < -R) | (xy[:, 1] > L + R)
        falls = beyond & low[:, None] & (over_hole | (near & off_slate[:, None]))
        in_pocket = np.any(beyond & near, axis=1)
        for n, i in enumerate(live):
            if falls[n].any():
                k = int(np.argmax(falls[n]))
                self._gone(i, POTTED)
                self._gone_to[i] = (*rails.fall_c[k], self.params.pot_depth_mm)
                self.events.append(SimEvent(self.t, "pot", (self.ids[i],),
                                            pocket=rails.pocket[k]))
            elif outside[n] and not in_pocket[n]:
                self._gone(i, OFF)
                self.events.append(SimEvent(self.t, "off_table", (self.ids[i],)))

    def _refresh_live(self) -> None:
        """Cache the balls in play and their pairs (changes only when a ball leaves play)."""
        self._live = (self.state == ON) | (self.state == AIR)
        keep = self._live[self._pairs[:, 0]] & self._live[self._pairs[:, 1]]
        self._live_pairs = (self._pairs[keep, 0], self._pairs[keep, 1])

    def _gone(self, i: int, state: int) -> None:
        self.state[i] = state
        self._refresh_live()
        self._gone_t[i] = self.t
        self._gone_p[i] = self.pos[i]
        self._gone_v[i] = self.vel[i]
        self.vel[i] = 0.0
        self.omega[i] = 0.0


def simulate(balls: BallSet, strike: Strike | None, table: TableSpec = SNOOKER,
             params: PhysicsParams = PhysicsParams(), seed: int = 0,
             sample_dt: float = 1 / 480, max_time: float = 40.0,
             orientation: bool = False) -> Motion:
    """Strike the cue ball (None: let the current velocities run out) and sample the
    motion every ``sample_dt`` s until every ball is at rest or gone, plus one final sample, or
    until ``max_time``.

    Returns a Motion: times (T,), pos (T, N, 3), state (T, N), events in time order ending with
    ``rest``, final the BallSet at the end (potted balls under their pocket, z = pot_depth_mm);
    with ``orientation`` also orient (T, N, 4), the balls turning with their spin.
    """
    sim = Simulation(balls, table, params, seed, orientation)
    if strike is not None:
        sim.strike(strike)
    times, pos, states, orients = [], [], [], []
    k, rest_seen = 0, False
    while True:
        t = k * sample_dt
        sim.advance_to(t)
        times.append(t)
        pos.append(sim.sample_positions())
        states.append(sim.state.copy())
        if orientation:
            orients.append(sim.orient.copy())
        if rest_seen or t >= max_time:
            break
        if sim.at_rest():
            rest_seen = True
            sim.events.append(SimEvent(sim.t_still, "rest"))
        k += 1
    final = sim.balls()
    final.pos = pos[-1].copy()
    return Motion(list(balls.ids), list(balls.classes), np.array(times), np.array(pos),
                  np.array(states, dtype=np.int8), sim.events, final,
                  np.array(orients) if orientation else None)


def rack(table: SnookerTableSpec = SNOOKER, white_mm: tuple[float, float] | None = None) -> BallSet:
    """The opening position (Section 3 Rule 2): reds in the triangle, colours on their spots,
    the white at ``white_mm`` (default: in the D, left of the brown, a break-off position)."""
    R = table.ball_radius_mm
    if white_mm is None:
        white_mm = (table.centre_x_mm - 60.0, table.baulk_line_mm - 5.0)
    ids, classes, pos = ["white"], ["white"], [(*white_mm, R)]
    for n, (x, y) in enumerate(table.red_rack_mm, start=1):
        ids.append(f"red_{n:02d}")
        classes.append("red")
        pos.append((x, y, R))
    for colour, (x, y) in table.spots_mm.items():
        ids.append(colour)
        classes.append(colour)
        pos.append((x, y, R))
    return BallSet(ids, classes, np.array(pos))
