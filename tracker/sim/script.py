"""Scripting whole sequences of play: strikes, the player at the table, hands re-spotting balls.

A :class:`Script` owns a :class:`Timeline`: every ball's position and state sampled every ``dt``
seconds from the start of the clip, the occluders (player, cue, hands) as functions of time, and
the events and shot records that happened, with their times. Scenario functions
(``tracker.sim.scenarios``) drive a Script; ``tracker.sim.clip`` renders its Timeline.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from calibration.specs import COLOURS, SNOOKER, SnookerTableSpec
from tracker.sim.model import BallSet, BallState, Motion, Strike, quat_slerp
from tracker.sim.physics import PhysicsParams, TableSpec, cue_ball_index, simulate
from tracker.sim.render import Capsule

SKIN_BGR = (128, 160, 205)
SLEEVE_BGR = (235, 235, 232)  # a dress shirt
WAISTCOAT_BGR = (40, 32, 30)
CUE_SHAFT_BGR = (120, 175, 215)
CUE_BUTT_BGR = (30, 45, 75)

Occlusion = Callable[[float], list[Capsule]]


@dataclass
class Timeline:
    """Everything that happens in a clip, in simulation time from 0.

    pos (T, N, 3) mm and state (T, N) int8 ``BallState`` at times k * dt; ``occlusions`` are
    (t_start, t_end, f) with f(t) -> capsules; ``events`` are contract-style event dicts with
    ``t``; ``shots`` are the shot records fed to the referee (with ``t_start``/``t_end``);
    ``orient`` (T, N, 4) the balls' orientation quaternions when the script carried them.
    """

    ids: list[str]
    classes: list[str]
    dt: float
    pos: np.ndarray
    state: np.ndarray
    occlusions: list[tuple[float, float, Occlusion]] = field(default_factory=list)
    events: list[dict] = field(default_factory=list)
    shots: list[dict] = field(default_factory=list)
    orient: np.ndarray | None = None

    @property
    def duration(self) -> float:
        return (len(self.pos) - 1) * self.dt

    def orient_at(self, times: np.ndarray) -> np.ndarray | None:
        """Orientations (S, N, 4) at ``times`` (S,), interpolated along the shorter arc between
        samples; None when the timeline carries none."""
        if self.orient is None:
            return None
        f = np.clip(np.asarray(times, float) / self.dt, 0, len(self.orient) - 1)
        i0 = np.minimum(np.floor(f).astype(int), len(self.orient) - 2)
        w = np.repeat((f - i0)[:, None], self.orient.shape[1], axis=1)
        a, b = self.orient[i0], self.orient[i0 + 1]
        # a ball at rest keeps its quaternion bit for bit (the renderer caches it by value)
        return np.where(np.all(a == b, axis=-1)[..., None], a, quat_slerp(a, b, w))

    def at(self, times: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Positions (S, N, 3), linearly interpolated, and states (S, N) at ``times`` (S,)."""
        f = np.clip(np.asarray(times, float) / self.dt, 0, len(self.pos) - 1)
        i0 = np.minimum(np.floor(f).astype(int), len(self.pos) - 2)
        w = (f - i0)[:, None, None]
        pos = (1 - w) * self.pos[i0] + w * self.pos[i0 + 1]
        state = self.state[np.rint(f).astype(int)]
        # A ball does not glide between a pocket and a hand: take the nearest sample's position
        # whenever its state changes inside the interval.
        jump = self.state[i0] != self.state[i0 + 1]
        if jump.any():
            nearest = self.pos[np.rint(f).astype(int)]
            pos = np.where(jump[:, :, None], nearest, pos)
        return pos, state

    def occluders(self, t: float) -> list[Capsule]:
        out: list[Capsule] = []
        for t0, t1, f in self.occlusions:
            if t0 <= t <= t1:
                out.extend(f(t))
        return out


def ball_id(cls: str, n: int | None = None) -> str:
    return f"{cls}_{n:02d}" if cls == "red" else cls


def layout(white_mm: Sequence[float] | None, reds_mm: np.ndarray | Sequence = (),
           colours: dict[str, Sequence[float]] | None = None,
           table: SnookerTableSpec = SNOOKER) -> BallSet:
    """A BallSet at rest: the white (None: in hand, kept off the table), reds at ``reds_mm``
    (K, 2) numbered 01.., and ``colours`` {class: (x, y)} (None: every colour on its spot)."""
    colours = dict(table.spots_mm) if colours is None else colours
    r = table.ball_radius_mm
    ids, classes, pos, state = [], [], [], []

    def add(i, c, xy, s=BallState.ON_TABLE):
        ids.append(i)
        classes.append(c)
        pos.append((xy[0], xy[1], r))
        state.append(s)

    if white_mm is None:
        add("white", "white", (table.centre_x_mm, -400.0), BallState.IN_HAND)
    else:
        add("white", "white", white_mm)
    for k, xy in enumerate(np.asarray(reds_mm, float).reshape(-1, 2), start=1):
        add(ball_id("red", k), "red", xy)
    for c in COLOURS:
        if c in colours:
            add(c, c, colours[c])
    return BallSet(ids, classes, np.array(pos), state=np.array(state, np.int8))


def standard_layout(table: SnookerTableSpec = SNOOKER) -> BallSet:
    """Section 3 Rule 2: the start of a frame; the white in hand."""
    return layout(None, table.red_rack_mm, None, table)


class Script:
    """Builds a :class:`Timeline` step by step from a starting layout.

    ``players`` and ``breaker`` go into the referee's ``frame_start`` record; the Script keeps
    who is at the table only as far as the shot records it writes (the referee decides).
    """

    def __init__(self, balls: BallSet, table: TableSpec = SNOOKER, seed: int = 0,
                 dt: float = 1 / 480, params: PhysicsParams | None = None,
                 orientation: bool = False):
        self.table = table
        self.params = params or PhysicsParams()
        self.rng = np.random.default_rng(seed)
        self.seed = seed
        self.balls = balls.copy()
        self.dt = dt
        self.orientation = orientation
        cue = cue_ball_index(balls.ids)
        self.cue = balls.ids[cue] if cue >= 0 else "white"  # the cue ball's id
        self._pos = [self.balls.pos[None].copy()]
        self._state = [self.balls.state[None].copy()]
        self._orient = [self.balls.orient[None].copy()] if orientation else []
        self.timeline = Timeline(list(balls.ids), list(balls.classes), dt,
                                 np.zeros((0, len(balls), 3)), np.zeros((0, len(balls)), np.int8))
        self.shot_count = 0

    # -- time ---------------------------------------------------------------------------------
    @property
    def now(self) -> float:
        return (sum(len(p) for p in self._pos) - 1) * self.dt

    def _append(self, pos: np.ndarray, state: np.ndarray, orient: np.ndarray | None = None
                ) -> None:
        """Samples (n, N, 3) and (n, N); the balls' orientations (n, N, 4), by default held."""
        self._pos.append(pos)
        self._state.append(state)
        if self.orientation:
            self._orient.append(np.repeat(self.balls.orient[None], len(pos), 0)
                                if orient is None else orient)

    def wait(self, seconds: float) -> None:
        n = max(int(round(seconds / self.dt)), 0)
        if n:
            self._append(np.repeat(self.balls.pos[None], n, 0),
                         np.repeat(self.balls.state[None], n, 0))

    def occlude(self, t0: float, t1: float, f: Occlusion) -> None:
        self.timeline.occlusions.append((t0, t1, f))

    def event(self, type_: str, t: float | None = None, **fields) -> None:
        self.timeline.events.append({"type": type_, "t": self.now if t is None else t, **fields})

    # -- hands --------------------------------------------------------------------------------
    def _carry(self, idx: int, start_mm: np.ndarray, end_xy: Sequence[float],
               seconds: float) -> None:
        """A hand carries ball ``idx`` from ``start_mm`` (3,) along an arc and sets it down on the
        cloth at ``end_xy``, then withdraws towards where it came from."""
        r = self.table.ball_radius_mm
        end = np.array([end_xy[0], end_xy[1], r])
        n = max(int(round(seconds / self.dt)), 2)
        s = 0.5 - 0.5 * np.cos(np.linspace(0, math.pi, n))  # ease in and out
        path = start_mm[None] * (1 - s[:, None]) + end[None] * s[:, None]
        path[:, 2] += 60 * np.sin(math.pi * s)  # lifted on the way
        t0 = self.now
        pos = np.repeat(self.balls.pos[None], n, 0)
        state = np.repeat(self.balls.state[None], n, 0)
        pos[:, idx] = path
        state[:, idx] = BallState.IN_HAND
        state[-1, idx] = BallState.ON_TABLE
        self._append(pos, state)
        self.balls.pos[idx] = end
        self.balls.vel[idx] = 0
        self.balls.omega[idx] = 0
        self.balls.state[idx] = BallState.ON_TABLE
        away = self._outside_point(end[:2])
        times = t0 + np.arange(n) * self.dt

        def hand(t: float) -> list[Capsule]:
            if t <= times[-1]:
                k = int(np.clip(round((t - t0) / self.dt), 0, n - 1))
                ball = path[k]
            else:  # withdrawing
                u = min((t - times[-1]) / 0.5, 1.0)
                ball = end * (1 - u) + np.r_[away, 150.0] * u
                ball = ball + np.array([0, 0, 80 * u])
            return _hand_capsules(ball, away, r)

        self.occlude(t0, times[-1] + 0.5, hand)
        self.wait(0.5)

    def _outside_point(self, xy: np.ndarray) -> np.ndarray:
        """The nearest point just outside the table from ``xy``: where an arm comes from."""
        w, L = self.table.width_mm, self.table.length_mm
        cand = [np.array([-250.0, xy[1]]), np.array([w + 250, xy[1]]),
                np.array([xy[0], -250.0]), np.array([xy[0], L + 250])]
        return min(cand, key=lambda p: float(np.hypot(*(p - xy))))

    def place_white(self, xy: Sequence[float], seconds: float = 1.2,
                    anywhere: bool = False) -> None:
        """Ball in hand: a hand puts the cue ball down at ``xy`` (in the D; on a pool table in
        the kitchen, or ``anywhere`` on the bed)."""
        i = self.balls.index(self.cue)
        if isinstance(self.table, SnookerTableSpec):
            if not self.table.in_d(*xy):
                raise ValueError(f"white placement {xy} is not in the D")
        elif not (anywhere or self.table.in_kitchen(*xy)):
            raise ValueError(f"cue ball placement {xy} is not in the kitchen")
        start = np.r_[self._outside_point(np.asarray(xy, float)), 120.0]
        if self.balls.state[i] == BallState.ON_TABLE:
            start = self.balls.pos[i].copy()
        self._carry(i, start, xy, seconds)
        self.event("white_placed", ball=self.cue, **{"class": self.balls.classes[i]},
                   position_mm=[float(xy[0]), float(xy[1])])

    def put_back(self, positions: np.ndarray, seconds: float = 1.2) -> None:
        """Section 3 Rule 14: after a foul and a miss the non-offender may have the balls
        replaced: the referee's hand carries every ball on the table that is more than 2 mm from
        where ``positions`` (N, 3), the balls' ``pos`` before the foul, had it back there, one
        after another."""
        for i in np.flatnonzero(self.balls.on_table()):
            if float(np.hypot(*(self.balls.pos[i, :2] - positions[i, :2]))) > 2.0:
                self._carry(int(i), self.balls.pos[i].copy(), positions[i, :2], seconds)

    def respot(self, cls: str, seconds: float = 1.4) -> tuple[float, float]:
        """Section 3 Rule 8: a potted colour goes back on its own spot, or the highest free spot,
        or as near its own spot as possible towards the top cushion. The referee's hand carries it
        from the pocket it fell in. Returns where it was put."""
        i = self.balls.index(cls)
        xy = self.respot_position(cls)
        start = self.balls.pos[i].copy()
        start[2] = 60.0
        self._carry(i, start, xy, seconds)
        self.event("respot", ball=cls, **{"class": cls}, position_mm=[xy[0], xy[1]])
        return xy

    def respot_position(self, cls: str) -> tuple[float, float]:
        spots = self.table.spots_mm
        d = self.table.ball_diameter_mm

        def free(xy) -> bool:
            on = self.balls.on_table() & (np.array(self.balls.classes) != cls)
            p = self.balls.pos[on, :2]
            return not len(p) or float(np.min(np.hypot(*(p - np.asarray(xy)).T))) >= d

        if free(spots[cls]):
            return spots[cls]
        for c in reversed(COLOURS):  # highest value spot first
            if free(spots[c]):
                return spots[c]
        x, y = spots[cls]
        while y < self.table.length_mm - d / 2:
            y += 1.0
            if free((x, y)):
                return (x, y)
        raise RuntimeError(f"no free place to re-spot {cls}")

    # -- the player ---------------------------------------------------------------------------
    def lean(self, over_xy: Sequence[float], seconds: float) -> None:
        """A player leans over the table with the torso above ``over_xy`` for ``seconds``,
        hiding the balls beneath from an overhead camera (looking at the lie of the balls)."""
        over = np.asarray(over_xy, float)
        away = self._outside_point(over)
        t0 = self.now
        ramp = 0.6

        def body(t: float) -> list[Capsule]:
            u = min((t - t0) / ramp, (t0 + seconds - t) / ramp, 1.0)
            u = max(u, 0.0)
            chest = np.r_[away + (over - away) * u, 520.0]
            hips = np.r_[away + (over - away) * 0.15 * u - (over - away) * 0.6, 900.0]
            head = chest + np.r_[(over - away) / (np.linalg.norm(over - away) + 1e-9) * 230, -40]
            hand = np.r_[over + (over - away) * 0.25, 30.0]
            return [
                Capsule(tuple(hips), tuple(chest), 190.0, 175.0, WAISTCOAT_BGR),
                Capsule(tuple(head), tuple(head), 105.0, 105.0, (40, 60, 90)),
                Capsule(tuple(chest), tuple(hand), 55.0, 40.0, SLEEVE_BGR),
                Capsule(tuple(hand), tuple(hand), 42.0, 42.0, SKIN_BGR),
            ]

        self.occlude(t0, t0 + seconds, body)
        self.wait(seconds)

    def shoot(self, strike: Strike, *, nominated: str | None = None, foul: str | None = None,
              miss: bool | None = None, address_s: float = 1.4, settle_s: float = 0.8,
              seed: int | None = None) -> Motion:
        """The striker addresses the white (cue and arms in view), strikes, and the balls run
        until at rest. Appends the motion, its events, a ``shot`` record and ``shot_start`` /
        ``shot_end`` events. ``nominated``, ``foul`` and ``miss`` are what vision cannot see
        (the declared ball, a foul the referee called, the referee's miss call)."""
        wi = self.balls.index(self.cue)
        if self.balls.state[wi] != BallState.ON_TABLE:
            raise ValueError("the cue ball must be on the table to strike it")
        self.shot_count += 1
        white = self.balls.pos[wi].copy()
        t_addr = self.now
        self.wait(address_s)
        t_strike = self.now
        self.occlude(t_addr, t_strike + 1.2,
                     _player_at_table(white, strike, t_strike, self.table.ball_radius_mm))
        self.event("shot_start", t=t_strike, shot=self.shot_count)
        motion = simulate(self.balls, strike, self.table, self.params,
                          seed=self.seed * 1000 + self.shot_count if seed is None else seed,
                          sample_dt=self.dt, orientation=self.orientation)
        # Motion.times start at 0 = the strike, which is the last sample already written.
        self._append(motion.pos[1:], motion.state[1:],
                     None if motion.orient is None else motion.orient[1:])
        self.balls = motion.final.copy()
        record = self._record(motion, t_strike, nominated, foul, miss)
        self.wait(settle_s)
        self.timeline.shots.append(record)
        self.event("shot_end", t=record["t_end"], shot=self.shot_count,
                   first_contact=record["first_contact"], potted=record["potted"],
                   cue_potted=record["cue_potted"], off_table=record["off_table"])
        return motion

    def _record(self, motion: Motion, t0: float, nominated, foul, miss) -> dict:
        cls = dict(zip(self.balls.ids, self.balls.classes))
        cue = self.cue
        first_contact, potted, off_table, cue_potted = None, [], [], False
        for e in motion.events:
            t = t0 + e.t
            if e.type == "contact":
                a, b = e.balls
                if first_contact is None and cue in e.balls:
                    first_contact = cls[b if a == cue else a]
                self.event("contact", t=t, balls=list(e.balls), classes=[cls[a], cls[b]])
            elif e.type == "cushion":
                self.event("cushion", t=t, ball=e.balls[0], **{"class": cls[e.balls[0]]},
                           cushion=e.cushion)
            elif e.type == "jaw":
                self.event("jaw", t=t, ball=e.balls[0], **{"class": cls[e.balls[0]]},
                           pocket=e.pocket)
            elif e.type == "pot":
                b = e.balls[0]
                self.event("pot", t=t, ball=b, **{"class": cls[b]}, pocket=e.pocket)
                if b == cue:
                    cue_potted = True
                else:
                    potted.append(cls[b])
            elif e.type == "off_table":
                b = e.balls[0]
                self.event("off_table", t=t, ball=b, **{"class": cls[b]})
                if b == cue:
                    cue_potted = True  # Section 3 Rule 12(a): the white off the table, as in-off
                off_table.append(cls[b])
            elif e.type == "jump":
                self.event("jump", t=t, ball=e.balls[0], **{"class": cls[e.balls[0]]},
                           over=e.over)
        t_end = t0 + motion.duration
        touching = self.touching_white()
        if touching:
            self.event("touching", t=t_end, balls=[cue, touching],
                       classes=[cls[cue], cls[touching]])
        return {
            "type": "shot", "shot": self.shot_count, "t_start": t0, "t_end": t_end,
            "first_contact": first_contact, "potted": potted, "cue_potted": cue_potted,
            "off_table": [c for c in off_table if c != cls[cue]], "nominated": nominated,
            "foul": foul, "snookered_after": None, "miss": miss,
            "touching_after": cls[touching] if touching else None,
            "positions": self.positions(),
        }

    def touching_white(self, tol_mm: float = 0.5) -> str | None:
        """Section 2 Rule 18 (touching ball): the id of a ball touching the white at rest."""
        wi = self.balls.index(self.cue)
        if self.balls.state[wi] != BallState.ON_TABLE:
            return None
        on = self.balls.on_table()
        on[wi] = False
        if not on.any():
            return None
        d = np.hypot(*(self.balls.pos[on, :2] - self.balls.pos[wi, :2]).T)
        k = int(np.argmin(d))
        if d[k] <= self.table.ball_diameter_mm + tol_mm:
            return [i for i, o in zip(self.balls.ids, on) if o][k]
        return None

    def positions(self) -> dict[str, list[float]]:
        on = self.balls.on_table()
        return {i: [round(float(p[0]), 2), round(float(p[1]), 2)]
                for i, p, o in zip(self.balls.ids, self.balls.pos, on) if o}

    # -- aiming -------------------------------------------------------------------------------
    def aim(self, target_id: str, pocket: str) -> float:
        """Ghost-ball heading (degrees) that sends ``target_id`` towards ``pocket``'s fall."""
        w = self.balls.pos[self.balls.index(self.cue), :2]
        o = self.balls.pos[self.balls.index(target_id), :2]
        p = np.asarray(self.table.pockets[pocket].fall_centre_mm)
        u = (p - o) / np.linalg.norm(p - o)
        ghost = o - u * self.table.ball_diameter_mm
        d = ghost - w
        return math.degrees(math.atan2(d[1], d[0]))

    def pot_strike(self, target_id: str, pocket: str, speed_mm_s: float, top: float = 0.0,
                   side: float = 0.0, span_deg: float = 2.0, step_deg: float = 0.1) -> Strike:
        """A strike that pots ``target_id`` in ``pocket`` (and not the white), found by the ghost
        ball then refined by simulation: the middle of the run of headings that pot it.
        Raises ValueError when no heading within ``span_deg`` does."""
        base = self.aim(target_id, pocket)
        offsets = sorted(np.arange(-span_deg, span_deg + 1e-9, step_deg), key=abs)
        good = []
        for off in offsets:
            strike = Strike(base + off, speed_mm_s, top, side)
            if self._pots(strike, target_id, pocket):
                good.append(off)
                # widen around the first success to centre within the potting window
                for direction in (1, -1):
                    k = 1
                    while True:
                        o2 = off + direction * k * step_deg
                        if not self._pots(Strike(base + o2, speed_mm_s, top, side),
                                          target_id, pocket):
                            break
                        good.append(o2)
                        k += 1
                break
        if not good:
            raise ValueError(f"no heading pots {target_id} in {pocket}")
        return Strike(base + float(np.mean([min(good), max(good)])), speed_mm_s, top, side)

    def _pots(self, strike: Strike, target_id: str, pocket: str) -> bool:
        m = simulate(self.balls, strike, self.table, self.params, seed=self.seed * 1000 +
                     self.shot_count + 1, sample_dt=0.05)
        pots = [(e.balls[0], e.pocket) for e in m.events if e.type == "pot"]
        white_gone = any(b == self.cue for b, _ in pots) or any(
            e.type == "off_table" for e in m.events)
        return (target_id, pocket) in pots and not white_gone

    def find_strike(self, candidates: Sequence[Strike], accept: Callable[[Motion], bool]) -> Strike:
        """The first of ``candidates`` whose simulated motion ``accept`` takes."""
        for strike in candidates:
            m = simulate(self.balls, strike, self.table, self.params,
                         seed=self.seed * 1000 + self.shot_count + 1, sample_dt=0.05)
            if accept(m):
                return strike
        raise ValueError("no candidate strike gives the wanted outcome")

    # -- result -------------------------------------------------------------------------------
    def finish(self, tail_s: float = 0.5) -> Timeline:
        self.wait(tail_s)
        tl = self.timeline
        tl.pos = np.concatenate(self._pos)
        tl.state = np.concatenate(self._state)
        tl.orient = np.concatenate(self._orient) if self.orientation else None
        tl.events.sort(key=lambda e: e["t"])
        return tl


def _hand_capsules(ball_mm: np.ndarray, away_xy: np.ndarray, r: float) -> list[Capsule]:
    """A hand gripping a ball from above, with the forearm reaching back to ``away_xy``."""
    palm = ball_mm + np.array([0.0, 0.0, r + 22])
    to = np.r_[away_xy, 420.0] - palm
    wrist = palm + to / np.linalg.norm(to) * 110
    elbow = palm + to / np.linalg.norm(to) * 380
    return [
        Capsule(tuple(wrist), tuple(elbow), 38.0, 48.0, SLEEVE_BGR),
        Capsule(tuple(palm), tuple(wrist), 40.0, 34.0, SKIN_BGR),
    ]


def _player_at_table(white: np.ndarray, strike: Strike, t_strike: float,
                     r: float) -> Occlusion:
    """The striker's cue, bridge hand, arms, head and upper body around the white, as functions
    of time: feathering before ``t_strike``, the cue meeting the white at ``t_strike``, a short
    follow-through, then stepping away."""
    a = math.radians(strike.direction_deg)
    d = np.array([math.cos(a), math.sin(a), 0.0])
    n = np.array([-d[1], d[0], 0.0])
    up = np.array([0.0, 0.0, 1.0])
    elev = math.radians(max(strike.elevation_deg, 4.0))
    cue_dir = d * math.cos(elev) + up * math.sin(elev)  # from butt to tip, pointing down to it
    contact = white + np.array([0, 0, strike.top * 0.5 * r]) - cue_dir * r

    def parts(t: float) -> list[Capsule]:
        dt = t - t_strike
        if dt < -0.15:
            gap = 35 + 30 * math.sin(2 * math.pi * dt / 0.9)  # feathering
        elif dt < 0:
            gap = 65 * (-dt / 0.15) ** 2  # the final push
        else:
            gap = -min(dt, 0.1) * 900  # follow-through
        away = max(dt - 0.7, 0) / 0.5  # stepping back after the shot
        lift = up * 600 * away - d * 900 * away
        tip = contact - cue_dir * gap + lift
        butt = tip - cue_dir * 1450
        bridge = white - d * (r + 300) + np.array([0, 0, 12]) + lift
        shoulder_l = white - d * (r + 760) + n * 170 + up * 430 + lift
        shoulder_r = white - d * (r + 800) - n * 130 + up * 440 + lift
        grip = tip - cue_dir * 1150
        elbow = grip + up * 300 - d * 60
        head = white - d * (r + 640) + up * 330 + lift
        hips = white - d * (r + 1350) + up * 820 + lift
        chest = (shoulder_l + shoulder_r) / 2
        return [
            Capsule(tuple(hips), tuple(chest), 200.0, 180.0, WAISTCOAT_BGR),
            Capsule(tuple(shoulder_r), tuple(elbow), 52.0, 45.0, SLEEVE_BGR),
            Capsule(tuple(elbow), tuple(grip), 45.0, 38.0, SLEEVE_BGR),
            Capsule(tuple(grip), tuple(grip), 40.0, 40.0, SKIN_BGR),
            Capsule(tuple(shoulder_l), tuple(bridge + up * 40), 52.0, 40.0, SLEEVE_BGR),
            Capsule(tuple(bridge), tuple(bridge + n * 40), 38.0, 34.0, SKIN_BGR),
            Capsule(tuple(head), tuple(head), 100.0, 100.0, (35, 50, 80)),
            Capsule(tuple(butt), tuple(tip - cue_dir * 700), 15.0, 11.0, CUE_BUTT_BGR),
            Capsule(tuple(tip - cue_dir * 700), tuple(tip), 11.0, 5.0, CUE_SHAFT_BGR),
        ]

    return parts


__all__ = ["Script", "Timeline", "layout", "standard_layout", "ball_id"]
