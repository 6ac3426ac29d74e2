"""Named pool scenarios: scripted play on a pool table, each with its game, table, ball set and
camera. ``POOL_SCENARIOS[name].build(seed)`` gives the Timeline; ``referee_results`` judges its
shots with the pool referee.

As the snooker scenarios, each builder checks that the physics gave the outcome it is about (a
legal break, a cut into a corner, a scratch...) and raises ScenarioError if not.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from calibration.camera import Camera
from calibration.specs import POOL_TABLES, PoolTableSpec
from tracker.sim.model import BallSet, BallState, Motion, Strike
from tracker.sim.pool import (
    POOL_CLOTHS,
    POOL_PHYSICS,
    BallPalette,
    kitchen_spot,
    oblique_camera,
    pool_layout,
    pool_rack,
)
from tracker.sim.render import Capsule, Look
from tracker.sim.scenarios import Scenario, ScenarioError, overhead_camera, pot_any
from tracker.sim.script import SKIN_BGR, SLEEVE_BGR, Script

POOL_CAMERAS = ("overhead", "oblique")
# The fields of a shot record the pool referee reads (docs/FORMATS.md, pool records).
REFEREE_FIELDS = ("first_contact", "potted", "off_table", "rail_after_contact",
                  "break_rail_balls", "cue_rail", "foul")
# The racking triangle: a wooden frame about an inch high round the balls, its half-thickness.
TRIANGLE_BGR = (40, 70, 120)
_FRAME_MM = 12.0


class PoolScript(Script):
    """A Script on a pool table: the balls carry their orientations, and each shot record is
    the pool referee's (``potted`` as ``{"ball", "pocket"}`` with the cue ball's scratch among
    them, ``rail_after_contact``, ``break_rail_balls`` on a break, ``cue_rail``) beside the
    fields every shot record has (``cue_potted``, ``positions``, the times)."""

    def __init__(self, balls: BallSet, table: PoolTableSpec, game: str, seed: int = 0,
                 dt: float = 1 / 480):
        super().__init__(balls, table, seed, dt, POOL_PHYSICS, orientation=True)
        self.game = game
        self._breaking = False

    def rack(self) -> None:
        """Say that a rack of ``game`` stands set up now (a new game starts)."""
        self.event("rack", game=self.game)

    def set_rack(self, spots: dict[str, tuple[float, float]], slide_s: float = 1.5,
                 lift_s: float = 0.6) -> None:
        """Racking by hand: the balls ``spots`` {id: (x, y)} (wherever they were: in the
        pockets, in hand) slide inside the triangle from the foot rail to their places, carried
        (``in_hand``) until the triangle stops, then the triangle is lifted away; a ``rack``
        event at its stop."""
        idx = [self.balls.index(b) for b in spots]
        place = np.array([spots[b] for b in spots], float)
        r = self.table.ball_radius_mm
        n = max(int(round(slide_s / self.dt)), 2)
        ease = 0.5 - 0.5 * np.cos(np.linspace(0, math.pi, n))
        # from the back row a ball's width off the foot cushion
        start = np.array([0.0, self.table.length_mm - 3 * r - place[:, 1].max()])
        shift = (1 - ease)[:, None] * start  # (n, 2) the triangle's offset from its place
        pos = np.repeat(self.balls.pos[None], n, 0)
        state = np.repeat(self.balls.state[None], n, 0)
        pos[:, idx, :2] = place[None] + shift[:, None]
        pos[:, idx, 2] = r
        state[:, idx] = BallState.IN_HAND
        state[-1, idx] = BallState.ON_TABLE
        t0 = self.now
        self._append(pos, state)
        self.balls.pos[idx] = pos[-1, idx]
        self.balls.vel[idx], self.balls.omega[idx] = 0.0, 0.0
        self.balls.state[idx] = BallState.ON_TABLE
        t_set = self.now
        self.rack()
        corners = _triangle(place, r)

        def frame(t: float) -> list[Capsule]:
            k = int(np.clip(round((t - t0) / self.dt), 0, n - 1))
            lift = max(t - t_set, 0.0) / lift_s
            at = np.r_[shift[k], 0.0] + np.array([0.0, 0.0, 20.0 + 400 * lift])
            c = [np.r_[p, 0.0] + at for p in corners]
            out = [Capsule(tuple(c[i]), tuple(c[(i + 1) % 3]), _FRAME_MM, _FRAME_MM,
                           TRIANGLE_BGR)
                   for i in range(3)]
            for hand in (c[1], c[2]):  # the racker holds the back corners from the foot end
                wrist = hand + np.array([0.0, 150.0, 120.0])
                out += [Capsule(tuple(hand), tuple(wrist), 40.0, 34.0, SKIN_BGR),
                        Capsule(tuple(wrist), tuple(wrist + np.array([0.0, 300.0, 250.0])),
                                38.0, 48.0, SLEEVE_BGR)]
            return out

        self.occlude(t0, t_set + lift_s, frame)
        self.wait(lift_s)

    def break_shot(self, strike: Strike, **kw) -> Motion:
        """The opening break: a shot whose record counts the object balls driven to a rail."""
        self._breaking = True
        try:
            return self.shoot(strike, **kw)
        finally:
            self._breaking = False

    def _record(self, motion: Motion, t0: float, nominated, foul, miss) -> dict:
        base = super()._record(motion, t0, nominated, foul, miss)
        cue = self.cue
        ev = motion.events
        first = next((e.t for e in ev if e.type == "contact" and cue in e.balls), None)
        rails = [e for e in ev if e.type in ("cushion", "jaw")]
        return {
            "type": "shot", "shot": base["shot"], "t_start": base["t_start"],
            "t_end": base["t_end"], "first_contact": base["first_contact"],
            "potted": [{"ball": e.balls[0], "pocket": e.pocket} for e in ev if e.type == "pot"],
            "off_table": [e.balls[0] for e in ev if e.type == "off_table"],
            "rail_after_contact": first is not None and any(e.t >= first for e in rails),
            "break_rail_balls": (len({e.balls[0] for e in rails if e.balls[0] != cue})
                                 if self._breaking else None),
            "cue_rail": any(e.balls[0] == cue for e in rails),
            "cue_potted": base["cue_potted"], "foul": foul, "positions": base["positions"],
        }


def _triangle(place: np.ndarray, r: float) -> list[np.ndarray]:
    """The corners (3, 2) of the racking triangle's frame (its rails' middle lines) round
    balls at ``place`` (K, 2): apex towards the head, then the back corners; the rails touch
    the outer balls."""
    apex = place[np.argmin(place[:, 1])]
    back = place[:, 1].max()
    row = place[np.abs(place[:, 1] - back) < 1e-6]
    left, right = row[np.argmin(row[:, 0])], row[np.argmax(row[:, 0])]
    # sides moved out by d move an equilateral triangle's corners out by 2 d
    grow = 2 * (r + _FRAME_MM)
    return [apex + np.array([0.0, -grow]), left + np.array([-grow * math.sqrt(3) / 2, grow / 2]),
            right + np.array([grow * math.sqrt(3) / 2, grow / 2])]


def _expect(ok: bool, what: str) -> None:
    if not ok:
        raise ScenarioError(what)


def _potted(rec: dict) -> list[str]:
    return [p["ball"] for p in rec["potted"]]


# -- scenarios ----------------------------------------------------------------------------------
def _break(seed: int, game: str, table: PoolTableSpec) -> PoolScript:
    """A rack of ``game`` set up, the cue ball placed in the kitchen by hand, and a legal break
    (the head ball struck first, a ball potted or four driven to a rail, the cue ball kept)."""
    rng = np.random.default_rng([seed, 47])
    balls = pool_rack(table, game, rng)
    balls.state[balls.index("cue")] = BallState.IN_HAND
    balls.pos[balls.index("cue")] = (table.centre_x_mm, -400.0, table.ball_radius_mm)
    s = PoolScript(balls, table, game, seed)
    s.rack()
    s.wait(0.5)
    s.place_white(kitchen_spot(table, rng))
    cue = s.balls.pos[s.balls.index("cue"), :2]
    head = min((b for b in s.balls.ids if b != "cue"),
               key=lambda b: float(np.hypot(*(s.balls.pos[s.balls.index(b), :2]
                                              - table.foot_spot_mm))))
    d = s.balls.pos[s.balls.index(head), :2] - cue
    heading = math.degrees(math.atan2(d[1], d[0]))
    cands = [Strike(heading + off, v, top=top) for v in (11000.0, 9500.0, 12500.0)
             for off in (0.0, 0.15, -0.15, 0.3, -0.3) for top in (-0.15, 0.1)]

    def legal(m: Motion) -> bool:
        first = next((e for e in m.events if e.type == "contact" and "cue" in e.balls), None)
        gone = {e.balls[0] for e in m.events if e.type in ("pot", "off_table")}
        rails = {e.balls[0] for e in m.events if e.type in ("cushion", "jaw")} - {"cue"}
        return (first is not None and head in first.balls and "cue" not in gone
                and (bool(gone) or len(rails) >= 4))

    s.break_shot(s.find_strike(cands, legal), address_s=1.2)
    rec = s.timeline.shots[-1]
    _expect(not rec["cue_potted"], "the cue ball was lost on the break")
    return s


def break_8ball(seed: int) -> PoolScript:
    return _break(seed, "8ball", POOL_TABLES["9ft"])


def break_9ball(seed: int) -> PoolScript:
    return _break(seed, "9ball", POOL_TABLES["9ft"])


def cut_corner(seed: int) -> PoolScript:
    """Open play in 8-ball: the 3 cut into a corner pocket past two other balls."""
    table = POOL_TABLES["8ft"]
    rng = np.random.default_rng([seed, 48])
    w, L = table.width_mm, table.length_mm
    balls = {"cue": (w * 0.38, L * 0.42), "3": (w - 260.0, L - 520.0),
             "6": (w * 0.3, L * 0.78), "12": (w * 0.55, L * 0.2)}
    s = PoolScript(pool_layout(table, balls, rng), table, "8ball", seed)
    s.wait(0.5)
    bid, pocket, strike = pot_any(s, ["3"], speeds=(2000.0, 2600.0, 1600.0))
    s.shoot(strike, address_s=1.2)
    rec = s.timeline.shots[-1]
    _expect(_potted(rec) == ["3"] and pocket.startswith("foot"), "the 3 was not cut in a corner")
    return s


def scratch(seed: int) -> PoolScript:
    """The 5 potted with heavy follow and the cue ball running in after it: a scratch."""
    table = POOL_TABLES["9ft"]
    rng = np.random.default_rng([seed, 49])
    fall = np.asarray(table.pockets["foot_left"].fall_centre_mm)
    u = np.array([math.cos(math.radians(-50)), math.sin(math.radians(-50))])
    s = PoolScript(pool_layout(table, {"cue": tuple(fall + u * 950), "5": tuple(fall + u * 450),
                                       "11": (table.width_mm * 0.7, table.length_mm * 0.3)},
                               rng), table, "8ball", seed)
    s.wait(0.5)
    heading = s.aim("5", "foot_left")
    cands = [Strike(heading + off, v, top=0.9) for v in (2000.0, 2500.0, 1600.0, 3000.0)
             for off in (0.0, 0.2, -0.2)]

    def both_in(m: Motion) -> bool:
        return {"cue", "5"} <= {e.balls[0] for e in m.events if e.type == "pot"}

    s.shoot(s.find_strike(cands, both_in), address_s=1.2)
    rec = s.timeline.shots[-1]
    _expect(rec["cue_potted"] and "5" in _potted(rec), "the cue ball did not follow the 5 in")
    return s


def bank(seed: int) -> PoolScript:
    """A bank: the 2 sent across the table off the right rail into the left side pocket."""
    table = POOL_TABLES["9ft"]
    rng = np.random.default_rng([seed, 50])
    w, L = table.width_mm, table.length_mm
    # mirror the side pocket in the line the 2's centre rebounds from: it heads for the image
    rebound_x = w - table.ball_radius_mm
    target = np.array([2 * rebound_x - table.pockets["side_left"].fall_centre_mm[0], L / 2])
    o = np.array([w * 0.5, L * 0.36])
    u = (target - o) / np.linalg.norm(target - o)
    turn = math.radians(12.0)  # a slight cut
    back = np.array([u[0] * math.cos(turn) - u[1] * math.sin(turn),
                     u[0] * math.sin(turn) + u[1] * math.cos(turn)])
    cue = o - back * 480.0
    s = PoolScript(pool_layout(table, {"cue": tuple(cue), "2": tuple(o)}, rng), table, "8ball",
                   seed)
    s.wait(0.5)
    ghost = o - u * table.ball_diameter_mm
    d = ghost - cue
    heading = math.degrees(math.atan2(d[1], d[0]))
    offs = sorted(np.arange(-3.0, 3.01, 0.1), key=abs)
    cands = [Strike(heading + off, v) for v in (2400.0, 3000.0) for off in offs]

    def banked(m: Motion) -> bool:
        rail = next((e.t for e in m.events if e.type == "cushion" and e.balls == ("2",)), None)
        pot = next((e for e in m.events if e.type == "pot" and e.balls == ("2",)), None)
        cue_gone = any(e.type in ("pot", "off_table") and e.balls == ("cue",) for e in m.events)
        return (rail is not None and pot is not None and pot.t > rail
                and pot.pocket == "side_left" and not cue_gone)

    s.shoot(s.find_strike(cands, banked), address_s=1.2)
    return s


def jump(seed: int) -> PoolScript:
    """The cue ball jumped over a blocking 14 to reach the 6 (a legal jump with an elevated
    cue)."""
    table = POOL_TABLES["9ft"]
    rng = np.random.default_rng([seed, 51])
    cx = table.centre_x_mm
    s = PoolScript(pool_layout(table, {"cue": (cx, 900.0), "14": (cx, 1150.0),
                                       "6": (cx, 1900.0)}, rng), table, "8ball", seed)
    s.wait(0.5)
    cands = [Strike(90.0, v, top=-0.3, elevation_deg=e) for e in (35.0, 40.0, 45.0, 30.0)
             for v in (3500.0, 4200.0, 5000.0)]

    def over(m: Motion) -> bool:
        jumped = any(e.type == "jump" and e.over == "14" for e in m.events)
        first = next((e for e in m.events if e.type == "contact" and "cue" in e.balls), None)
        return jumped and first is not None and "6" in first.balls

    s.shoot(s.find_strike(cands, over), address_s=1.2)
    return s


def combination_9ball(seed: int) -> PoolScript:
    """9-ball: the cue ball strikes the 1 (the lowest ball) into the 9, which drops in a
    corner pocket: a combination that wins the rack."""
    table = POOL_TABLES["9ft"]
    rng = np.random.default_rng([seed, 52])
    fall = np.asarray(table.pockets["foot_right"].fall_centre_mm)
    u = np.array([math.cos(math.radians(235)), math.sin(math.radians(235))])
    nine = fall + u * 420
    one = nine + u * (table.ball_diameter_mm + 180)
    cue = one + np.array([math.cos(math.radians(250)), math.sin(math.radians(250))]) * 500
    s = PoolScript(pool_layout(table, {"cue": tuple(cue), "1": tuple(one), "9": tuple(nine),
                                       "4": (table.width_mm * 0.25, table.length_mm * 0.6)},
                               rng), table, "9ball", seed)
    s.wait(0.5)
    # the 1 is sent along the line through the 9 to the pocket: aim it at the 9's ghost
    ghost_9 = nine - (fall - nine) / np.linalg.norm(fall - nine) * table.ball_diameter_mm
    v1 = (ghost_9 - one) / np.linalg.norm(ghost_9 - one)
    ghost_1 = one - v1 * table.ball_diameter_mm
    d = ghost_1 - cue
    heading = math.degrees(math.atan2(d[1], d[0]))
    cands = [Strike(heading + off, v) for v in (2600.0, 3200.0)
             for off in sorted(np.arange(-1.5, 1.51, 0.05), key=abs)]

    def combo(m: Motion) -> bool:
        first = next((e for e in m.events if e.type == "contact" and "cue" in e.balls), None)
        pots = {e.balls[0] for e in m.events if e.type == "pot"}
        return first is not None and "1" in first.balls and "9" in pots and "cue" not in pots

    s.shoot(s.find_strike(cands, combo), address_s=1.2)
    return s


def straight_rack(seed: int) -> PoolScript:
    """14.1: the fifteen balls racked by hand with the triangle (they slide in from the foot
    rail, the triangle is lifted away), then a safe opening break: the cue ball clips a back
    corner ball, two object balls and the cue ball reach a rail, nothing drops."""
    table = POOL_TABLES["9ft"]
    rng = np.random.default_rng([seed, 53])
    spots = pool_rack(table, "14.1", rng)
    balls = {b: None for b in spots.ids if b != "cue"}
    balls["cue"] = (table.width_mm * 0.62, table.head_string_mm - 80.0)
    layout = pool_layout(table, balls, rng)
    layout.state[1:] = BallState.POTTED  # gathered from the pockets
    s = PoolScript(layout, table, "14.1", seed)
    s.wait(0.5)
    s.set_rack({b: tuple(spots.pos[spots.index(b), :2]) for b in balls if b != "cue"})
    cue = s.balls.pos[s.balls.index("cue"), :2]
    back = max(s.balls.ids[1:], key=lambda b: s.balls.pos[s.balls.index(b), 1]
               + 0.01 * s.balls.pos[s.balls.index(b), 0])  # the right back corner
    target = s.balls.pos[s.balls.index(back), :2] + np.array([table.ball_diameter_mm * 0.9, 0])
    d = target - cue
    heading = math.degrees(math.atan2(d[1], d[0]))
    cands = [Strike(heading + off, v, side=side) for v in (3500.0, 4500.0, 3000.0)
             for off in (0.0, 0.2, -0.2, 0.4, -0.4) for side in (0.3, 0.0)]

    def safe(m: Motion) -> bool:
        first = next((e for e in m.events if e.type == "contact" and "cue" in e.balls), None)
        rails = {e.balls[0] for e in m.events if e.type in ("cushion", "jaw")}
        gone = any(e.type in ("pot", "off_table") for e in m.events)
        return (first is not None and back in first.balls and "cue" in rails
                and len(rails - {"cue"}) >= 2 and not gone)

    s.break_shot(s.find_strike(cands, safe), address_s=1.2)
    return s


# -- the registry -------------------------------------------------------------------------------
@dataclass(frozen=True)
class PoolScenario(Scenario):
    """A scenario on a pool table: its ``game``, table size (``table_name`` of
    ``POOL_TABLES``) and ``palette`` (the make of balls; None: the standard set); ``camera``
    is ``overhead`` or ``oblique``."""

    game: str = "8ball"
    table_name: str = "9ft"
    palette: BallPalette | None = None

    @property
    def table(self) -> PoolTableSpec:
        return POOL_TABLES[self.table_name]

    def frame_start(self) -> dict:
        """The referee's opening records: the match of ``game``, then the rack."""
        return {"type": "rack", "breaker": 0}

    def match(self) -> dict:
        return {"type": "match", "players": list(self.players), "game": self.game}

    def make_camera(self, kind: str, size, height_mm: float = 3000.0, tilt_deg: float = 0.0,
                    k1: float = -0.12) -> Camera:
        if kind == "overhead":
            return overhead_camera(size, height_mm, tilt_deg, k1, table=self.table)
        if kind == "oblique":
            return oblique_camera(size, self.table)
        raise ValueError(f"pool scenarios are filmed by {' or '.join(POOL_CAMERAS)}, "
                         f"not {kind!r}")

    def referee_results(self, shots: list[dict]) -> list[dict]:
        """The pool referee's result after each shot."""
        from tracker.rules.pool import Referee

        ref = Referee(self.game)
        ref.feed(self.match())
        ref.feed(self.frame_start())
        out = []
        for s in shots:
            rec = {k: s[k] for k in REFEREE_FIELDS if s.get(k) is not None}
            out.append(ref.feed({"type": "shot", **rec}))
        return out


def _look(cloth: str) -> Look:
    return Look(cloth_bgr=POOL_CLOTHS[cloth], canopy_size_mm=(900.0, 1800.0))


POOL_SCENARIOS: dict[str, PoolScenario] = {sc.name: sc for sc in (
    PoolScenario("pool_break_8ball", "8-ball: the rack set, the cue ball placed in the kitchen "
                 "by hand, a legal break; 9 ft table, blue cloth", break_8ball,
                 look=_look("blue")),
    PoolScenario("pool_9ball_break", "9-ball: the diamond rack broken from the kitchen, seen by "
                 "a high oblique camera behind the foot rail; green cloth, dotted cue ball",
                 break_9ball, camera="oblique", game="9ball", look=_look("green"),
                 palette=BallPalette(cue_dots=True)),
    PoolScenario("pool_cut_corner", "8-ball: the 3 cut into a corner pocket; 8 ft table, red "
                 "cloth, a pink 4 and a dark 7", cut_corner, table_name="8ft",
                 look=_look("red"), palette=BallPalette.draw(np.random.default_rng(4))),
    PoolScenario("pool_scratch", "8-ball: the 5 potted with follow and the cue ball after it "
                 "(a scratch); grey cloth, 60 fps", scratch, fps=60.0, look=_look("grey")),
    PoolScenario("pool_bank", "8-ball: the 2 banked off the right rail into the left side "
                 "pocket; tan cloth", bank, look=_look("tan")),
    PoolScenario("pool_jump", "8-ball: the cue ball jumps a blocking 14 to hit the 6, 60 fps",
                 jump, fps=60.0, look=_look("blue")),
    PoolScenario("pool_14_1_rack", "14.1: the rack set by hand with the triangle, then a safe "
                 "opening break off a back corner ball; blue cloth", straight_rack, game="14.1",
                 look=_look("blue")),
    PoolScenario("pool_combination_9ball", "9-ball: the 1 struck into the 9, which drops in a "
                 "corner (the rack won); high oblique camera", combination_9ball,
                 camera="oblique", game="9ball", look=_look("green")),
)}


__all__ = ["POOL_CAMERAS", "POOL_SCENARIOS", "PoolScenario", "PoolScript"]
