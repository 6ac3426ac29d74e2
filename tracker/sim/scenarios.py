"""Named scenarios: scripted sequences of play, each with the camera and look it is filmed with
by default. ``SCENARIOS[name].build(seed)`` gives a Timeline plus the referee's frame set-up.

Each builder checks that the physics gave the outcome the scenario is about (a pot, an in-off, a
jump...) and raises ScenarioError if not, so a sample clip never silently shows something else.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from calibration.camera import Camera
from calibration.specs import COLOURS, SNOOKER, SnookerTableSpec
from tracker.sim.clip import Lighting
from tracker.sim.model import BallState, Strike
from tracker.sim.render import CLOTH_BLUE_BGR, CLOTH_GREY_BGR, Look
from tracker.sim.script import Script, Timeline, layout, standard_layout

RESOLUTIONS = {"720p": (1280, 720), "1080p": (1920, 1080), "4k": (3840, 2160)}
BLUE_CLOTH = Look(cloth_bgr=CLOTH_BLUE_BGR)
GREY_CLOTH = Look(cloth_bgr=CLOTH_GREY_BGR)


class ScenarioError(RuntimeError):
    """The simulated play did not give the outcome the scenario promises."""


# -- cameras ------------------------------------------------------------------------------------
def overhead_camera(size=(1920, 1080), height_mm: float = 3000.0, tilt_deg: float = 0.0,
                    k1: float = -0.12, table: SnookerTableSpec = SNOOKER) -> Camera:
    """A ceiling camera above the table's centre, long axis across the image (baulk on the left),
    ``tilt_deg`` away from straight down (moved sideways, still looking at the centre), with
    wide-angle barrel distortion ``k1``. The focal length is chosen to show the whole table with
    its rails."""
    cx, cy = table.centre_x_mm, table.length_mm / 2
    side = height_mm * math.tan(math.radians(tilt_deg))
    eye = (cx - side, cy, height_mm)
    dist = np.array([k1, k1 * k1 * 0.4, 0.0, 0.0, 0.0])
    cam = Camera.look_at(eye, (cx, cy, 0.0), size, hfov_deg=60.0, dist=dist, up=(-1.0, 0.0, 0.0))
    # focal length that puts the outer corners of the rails 4 % inside the picture's edges,
    # through the lens distortion
    m = table.cushion_depth_mm + table.rail_width_mm
    corners = np.array([[x, y, 40.0] for x in (-m, table.width_mm + m)
                        for y in (-m, table.length_mm + m)])
    pc = cam.to_camera(corners)
    xn, yn = pc[:, 0] / pc[:, 2], pc[:, 1] / pc[:, 2]
    r2 = xn**2 + yn**2
    factor = 1 + dist[0] * r2 + dist[1] * r2**2
    w, h = size
    f = 0.96 * min(np.min((w / 2) / np.abs(xn * factor)), np.min((h / 2) / np.abs(yn * factor)))
    K = np.array(cam.K)
    K[0, 0] = K[1, 1] = f
    return Camera(K, dist, cam.R, cam.t, cam.image_size)


def broadcast_camera(size=(1280, 720), table: SnookerTableSpec = SNOOKER) -> Camera:
    """The television view: high behind the top cushion, looking down the table towards baulk
    (black at the bottom of the picture). Pose fitted to real World Championship footage."""
    cx = table.centre_x_mm
    eye = (cx, table.length_mm + 5128.0, 3209.0)
    return Camera.look_at(eye, (cx, 2331.0, 0.0), size, hfov_deg=26.1, up=(0.0, -1.0, 0.0))


def camera_for(kind: str, size, height_mm: float = 3000.0, tilt_deg: float = 0.0,
               k1: float = -0.12) -> Camera:
    if kind == "overhead":
        return overhead_camera(size, height_mm, tilt_deg, k1)
    if kind == "broadcast":
        return broadcast_camera(size)
    raise ValueError(f"unknown camera kind {kind!r} (overhead or broadcast)")


# -- scenarios ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Scenario:
    """A named scripted sequence and how it is filmed by default."""

    name: str
    description: str
    script: Callable[[int], Script]
    camera: str = "overhead"
    resolution: str = "1080p"
    fps: float = 30.0
    tilt_deg: float = 0.0
    height_mm: float = 3000.0
    k1: float = -0.12
    look: Look = field(default_factory=Look)
    lighting: Lighting = field(default_factory=Lighting)
    graphics: str | None = None
    players: tuple[str, str] = ("Player 1", "Player 2")
    reds: int = 15
    prelude: tuple[dict, ...] = ()  # shot records before the clip starts (for the referee)

    def build(self, seed: int = 0) -> Timeline:
        script = self.script(seed)
        return script.finish()

    def frame_start(self) -> dict:
        return {"type": "frame_start", "players": list(self.players), "breaker": 0,
                "reds": self.reds}


def _ids_of(script: Script, cls: str) -> list[str]:
    return [i for i, c, s in zip(script.balls.ids, script.balls.classes, script.balls.state)
            if c == cls and s == BallState.ON_TABLE]


def pot_any(script: Script, ball_ids: list[str], speeds=(2200.0, 3000.0, 1700.0),
            tops=(0.25, -0.3, 0.5), max_cut_deg: float = 55.0):
    """Finds a strike that pots one of ``ball_ids`` in some pocket, trying the easiest pots
    first (smallest cut, shortest distances, clear paths). Returns (ball_id, pocket, strike)."""
    t = script.table
    b = script.balls
    w = b.pos[b.index(script.cue), :2]
    on = b.on_table()
    options = []
    for bid in ball_ids:
        o = b.pos[b.index(bid), :2]
        for pname, pocket in t.pockets.items():
            p = np.asarray(pocket.fall_centre_mm)
            u = (p - o) / np.linalg.norm(p - o)
            ghost = o - u * t.ball_diameter_mm
            v = ghost - w
            dist_w = np.linalg.norm(v)
            if dist_w < 1e-6:
                continue
            cut = math.degrees(math.acos(np.clip(np.dot(v / dist_w, u), -1, 1)))
            if cut > max_cut_deg:
                continue
            if pname.startswith(("middle", "side")) and abs(u[1]) > 0.75:
                continue  # too steep into a middle pocket
            others = [i for i, ok in enumerate(on) if ok and b.ids[i] not in (script.cue, bid)]
            if _blocked(w, ghost, b.pos[others, :2], t.ball_diameter_mm) or _blocked(
                    o, p, b.pos[others, :2], t.ball_diameter_mm):
                continue
            options.append((cut / 10 + (dist_w + np.linalg.norm(p - o)) / 1000, bid, pname))
    for _, bid, pname in sorted(options)[:6]:
        for speed in speeds:
            for top in tops:
                try:
                    return bid, pname, script.pot_strike(bid, pname, speed, top=top)
                except ValueError:
                    continue
    raise ScenarioError(f"no pot found for any of {ball_ids}")


def _blocked(a, b, points, d) -> bool:
    """Whether a ball travelling from a to b would touch a ball centred at any of ``points``."""
    if not len(points):
        return False
    ab = b - a
    L = np.linalg.norm(ab)
    raw = ((points - a) @ ab) / (L * L)
    s = np.clip(raw, 0, 1)
    closest = a + s[:, None] * ab
    hit = np.hypot(*(points - closest).T) < d * 1.02
    # a ball touching the start that the path leaves behind (playing away from it) is no block
    return bool(np.any(hit & (raw > 0)))


def _expect(ok: bool, what: str) -> None:
    if not ok:
        raise ScenarioError(what)


def break_off(seed: int) -> Script:
    """Frame start: the white placed in the D, then a break-off into the pack."""
    s = Script(standard_layout(), seed=seed)
    s.wait(0.5)
    s.place_white((1045.0, 715.0))
    t = SNOOKER
    rack = t.red_rack_mm
    # aim thin on the right-hand side of the pack's back row, as a safety break does
    target = rack[np.argmax(rack[:, 0] - rack[:, 1] * 0.02)]
    w = s.balls.pos[0, :2]
    candidates = []
    for off in (0.85, 0.8, 0.9, 0.75, 0.95, 0.7):
        aim_pt = target + np.array([off * t.ball_diameter_mm, 0.0])
        d = aim_pt - w
        heading = math.degrees(math.atan2(d[1], d[0]))
        for side in (-0.4, 0.0):
            candidates.append(Strike(heading, 8000.0, top=0.1, side=side))

    def ok(m) -> bool:
        contacts = [e for e in m.events if e.type == "contact" and "white" in e.balls]
        potted = [e.balls[0] for e in m.events if e.type in ("pot", "off_table")]
        return bool(contacts) and contacts[0].balls != () and "white" not in potted and not any(
            c in potted for c in COLOURS)

    s.shoot(s.find_strike(candidates, ok))
    return s


def break_building(seed: int, pots: int = 4) -> Script:
    """A break: red, colour (re-spotted by hand), red, colour... ``pots`` balls in all."""
    rng = np.random.default_rng(seed + 17)
    reds = np.array([[420.0, 2350.0], [1350.0, 2900.0], [700.0, 3350.0], [1500.0, 1500.0],
                     [300.0, 1000.0]]) + rng.normal(0, 15, (5, 2))
    s = Script(layout((800.0, 1500.0), reds), seed=seed)
    s.wait(0.5)
    want_red = True
    for _ in range(pots):
        if want_red:
            bid, pocket, strike = pot_any(s, _ids_of(s, "red"))
            s.shoot(strike)
        else:
            colours = [c for c in ("black", "pink", "blue", "green", "yellow", "brown")
                       if c in _ids_of(s, c)]
            bid, pocket, strike = pot_any(s, colours)
            s.shoot(strike, nominated=bid)
        rec = s.timeline.shots[-1]
        _expect(s.balls.classes[s.balls.index(bid)] in rec["potted"] and not rec["cue_potted"],
                f"{bid} was not potted cleanly in {pocket}")
        if not want_red:
            s.respot(bid)
        want_red = not want_red
    return s


def in_off(seed: int) -> Script:
    """A red potted with heavy follow and the white running in after it: an in-off (foul)."""
    fall = np.asarray(SNOOKER.pockets["top_left"].fall_centre_mm)
    u = np.array([math.cos(math.radians(-35)), math.sin(math.radians(-35))])
    red = fall + u * 420
    s = Script(layout(tuple(fall + u * 900), [red]), seed=seed)
    s.wait(0.5)
    heading = s.aim("red_01", "top_left")
    cands = [Strike(heading + off, v, top=0.9) for v in (1800.0, 2200.0, 1500.0, 2600.0)
             for off in (0.0, 0.2, -0.2)]

    def ok(m) -> bool:
        pots = {e.balls[0] for e in m.events if e.type == "pot"}
        return {"white", "red_01"} <= pots
    s.shoot(s.find_strike(cands, ok), address_s=1.2)
    rec = s.timeline.shots[-1]
    _expect(rec["cue_potted"] and rec["potted"] == ["red"], "the white did not follow the red in")
    return s


def wrong_ball_first(seed: int) -> Script:
    """Red is on, but the white strikes the blue first: a foul of five."""
    s = Script(layout((889.0, 1200.0), [[889.0, 2150.0], [1300.0, 2900.0], [500.0, 3100.0]]),
               seed=seed)
    s.wait(0.5)
    s.shoot(Strike(90.0, 1800.0, top=0.2))
    _expect(s.timeline.shots[-1]["first_contact"] == "blue", "blue was not hit first")
    return s


def miss(seed: int) -> Script:
    """Red is on behind the black; the striker fails to hit any ball: foul and a miss (the
    referee's call), then the incoming player asks for the balls to stay and plays."""
    s = Script(layout((1500.0, 2600.0), [[889.0, 3400.0]]), seed=seed)
    s.wait(0.5)
    s.shoot(Strike(20.0, 1400.0), miss=True)
    _expect(s.timeline.shots[-1]["first_contact"] is None, "a ball was hit")
    return s


def double_kiss(seed: int) -> Script:
    """The white strikes a red lying near the side cushion full in the face; the red comes back
    off the cushion and kisses the white again."""
    s = Script(layout((1300.0, 1300.0), [[1715.0, 1300.0], [500.0, 2900.0]]), seed=seed)
    s.wait(0.5)
    cands = [Strike(0.0, v, top=-0.1) for v in (2500.0, 3000.0, 3500.0, 2000.0)]

    def ok(m) -> bool:
        kisses = [e for e in m.events
                  if e.type == "contact" and set(e.balls) == {"white", "red_01"}]
        return len(kisses) >= 2
    s.shoot(s.find_strike(cands, ok))
    return s


def jump_shot(seed: int) -> Script:
    """The white is made to jump over the blue to reach a red: a foul under the rules."""
    s = Script(layout((889.0, 1300.0), [[889.0, 2300.0]]), seed=seed)
    s.wait(0.5)
    cands = [Strike(90.0, v, top=-0.3, elevation_deg=e) for e in (35.0, 40.0, 45.0, 30.0)
             for v in (3500.0, 4200.0, 5000.0)]

    def ok(m) -> bool:
        jumps = [e for e in m.events if e.type == "jump" and e.over == "blue"]
        first = next((e for e in m.events if e.type == "contact" and "white" in e.balls), None)
        return bool(jumps) and first is not None and "red_01" in first.balls
    s.shoot(s.find_strike(cands, ok), foul="jump_shot")
    return s


def occlusion(seed: int) -> Script:
    """A player leans over the table for seconds, hiding balls, then a red is potted while the
    player's body still hangs over part of the table."""
    reds = [[600.0, 2900.0], [1200.0, 3100.0], [900.0, 3300.0], [1400.0, 2500.0]]
    s = Script(layout((700.0, 2000.0), reds), seed=seed)
    s.wait(0.5)
    s.lean((1000.0, 3000.0), 3.5)
    bid, pocket, strike = pot_any(s, _ids_of(s, "red"))
    s.shoot(strike, address_s=2.0)
    _expect(bool(s.timeline.shots[-1]["potted"]), "nothing was potted")
    s.lean((600.0, 1000.0), 2.0)
    return s


def touching(seed: int) -> Script:
    """The white comes to rest touching a red (the referee calls touching ball); the striker
    plays away from it to another red."""
    t = SNOOKER
    red = np.array([700.0, 2600.0])
    white = red + np.array([0.0, t.ball_diameter_mm])  # the red lies on the baulk side
    s = Script(layout(tuple(white), [red, [1400.0, 3300.0], [300.0, 3000.0]]), seed=seed)
    s.event("touching", t=0.0, balls=["white", "red_01"], classes=["white", "red"])
    s.wait(1.0)
    bid, pocket, strike = pot_any(s, ["red_02", "red_03"])
    s.shoot(strike, address_s=1.6)
    return s


def black_ending(seed: int) -> Script:
    """Only the black is left after a 140 clearance; it is potted and the frame ends (a 147)."""
    s = Script(layout((700.0, 2900.0), [], {"black": SNOOKER.spots_mm["black"]}), seed=seed)
    s.wait(0.5)
    bid, pocket, strike = pot_any(s, ["black"])
    s.shoot(strike, nominated="black")
    _expect(s.timeline.shots[-1]["potted"] == ["black"], "the black was not potted")
    return s


def clearance_prelude(reds: int = 15) -> tuple[dict, ...]:
    """Shot records of a clearance up to the black: red-black for every red, then yellow to pink,
    all by the breaker."""
    recs = []
    base = {"type": "shot", "cue_potted": False, "off_table": [], "foul": None,
            "snookered_after": None, "miss": None}
    for _ in range(reds):
        recs.append(dict(base, first_contact="red", potted=["red"], nominated=None))
        recs.append(dict(base, first_contact="black", potted=["black"], nominated="black"))
    for c in COLOURS[:-1]:
        recs.append(dict(base, first_contact=c, potted=[c], nominated=None))
    return tuple(recs)


def _one_pot(seed: int) -> Script:
    s = Script(layout((1100.0, 1900.0), [[1400.0, 2700.0], [500.0, 3000.0]]), seed=seed)
    s.wait(0.3)
    bid, pocket, strike = pot_any(s, _ids_of(s, "red"))
    s.shoot(strike, address_s=1.0)
    return s


SCENARIOS: dict[str, Scenario] = {sc.name: sc for sc in (
    Scenario("break_off", "frame start: white placed in the D by hand, break-off into the pack; "
             "lamps flicker", break_off, lighting=Lighting(flicker=0.03)),
    Scenario("break_building", "a break of two reds and two colours, each colour re-spotted "
             "by hand", break_building),
    Scenario("in_off", "a red potted with follow and the white following it in (in-off foul), "
             "60 fps", in_off, fps=60.0),
    Scenario("wrong_ball_first", "red on, blue hit first (foul); blue cloth, camera tilted 12 "
             "degrees", wrong_ball_first, tilt_deg=12.0, look=BLUE_CLOTH),
    Scenario("miss", "white misses every ball: foul and a miss; grey cloth", miss,
             look=GREY_CLOTH),
    Scenario("double_kiss", "a red near the cushion comes back and kisses the white twice; a "
             "low wide-angle camera (2.3 m, strong barrel distortion)", double_kiss,
             height_mm=2300.0, k1=-0.3),
    Scenario("jump_shot", "the white jumps over the blue to hit a red (a foul), 60 fps",
             jump_shot, fps=60.0),
    Scenario("occlusion", "a player leans over the table hiding balls for seconds, then pots a "
             "red under their arm", occlusion),
    Scenario("touching", "touching ball: the white rests against a red and is played away",
             touching),
    Scenario("broadcast", "a red and a colour from the television view high behind the top "
             "cushion, with a scoreboard over the picture; lamps dimmed mid-clip",
             lambda seed: break_building(seed, pots=2), camera="broadcast", resolution="720p",
             graphics="PLAYER 1   0  (147)  0   PLAYER 2",
             lighting=Lighting(dim_at_s=6.0, dim_gain=0.8)),
    Scenario("clip_4k", "one red potted, 3840x2160", _one_pot, resolution="4k"),
    Scenario("black_ending", "the last black potted after a 140 clearance: a 147 ends the frame",
             black_ending, prelude=clearance_prelude()),
)}


# -- clips that start in the middle of a frame ------------------------------------------------
@dataclass(frozen=True)
class JoinedScenario(Scenario):
    """A scenario whose clip starts in the middle of a frame: ``start`` holds the
    ``frame_start`` fields of the table it shows (``reds_left``, ``colours_on_table``, ...),
    what the referee of its truth starts from."""

    start: tuple[tuple[str, object], ...] = ()

    def frame_start(self) -> dict:
        return {**super().frame_start(), **dict(self.start)}


# colours off their spots, as play leaves them
_COLOURS_AT = {"yellow": (1250.0, 1150.0), "green": (420.0, 2150.0), "brown": (889.0, 737.0),
               "blue": (1180.0, 2480.0), "pink": (700.0, 2900.0), "black": (889.0, 3244.0)}


def _scattered_reds(n: int, seed: int) -> np.ndarray:
    """``n`` reds (n, 2) mm spread over the top half of the table, clear of each other and
    of the colours in ``_COLOURS_AT`` and their spots."""
    rng = np.random.default_rng(seed + 31)
    taken = [np.asarray(p) for p in _COLOURS_AT.values()]
    taken += [np.asarray(p) for p in SNOOKER.spots_mm.values()]
    out: list[np.ndarray] = []
    while len(out) < n:
        p = np.array([rng.uniform(150.0, 1630.0), rng.uniform(1900.0, 3400.0)])
        if all(np.hypot(*(p - q)) > 4 * SNOOKER.ball_diameter_mm for q in taken + out):
            out.append(p)
    return np.array(out)


def colours_only(seed: int) -> Script:
    """No red left, the yellow on: the yellow potted, then the green (the colours stay off)."""
    s = Script(layout((1000.0, 1500.0), [], _COLOURS_AT), seed=seed)
    s.wait(1.0)
    for colour in ("yellow", "green"):
        bid, pocket, strike = pot_any(s, [colour])
        s.shoot(strike)
        _expect(s.timeline.shots[-1]["potted"] == [colour]
                and not s.timeline.shots[-1]["cue_potted"], f"the {colour} was not potted")
    return s


def reds_left(n: int, colour: bool = True) -> Callable[[int], Script]:
    """A frame joined with ``n`` reds left: a red potted, then (``colour``) a colour,
    re-spotted by hand."""

    def script(seed: int) -> Script:
        s = Script(layout((900.0, 1400.0), _scattered_reds(n, seed), _COLOURS_AT), seed=seed)
        s.wait(1.0)
        bid, pocket, strike = pot_any(s, _ids_of(s, "red"))
        s.shoot(strike)
        _expect(s.timeline.shots[-1]["potted"] == ["red"]
                and not s.timeline.shots[-1]["cue_potted"], "the red was not potted cleanly")
        if not colour:
            return s
        colours = ["black", "pink", "blue", "green", "yellow", "brown"]
        bid, pocket, strike = pot_any(s, colours)
        s.shoot(strike, nominated=bid)
        _expect(s.timeline.shots[-1]["potted"] == [bid]
                and not s.timeline.shots[-1]["cue_potted"], f"the {bid} was not potted cleanly")
        s.respot(bid)
        return s

    return script


_ALL_COLOURS = ("colours_on_table", tuple(COLOURS))
SCENARIOS.update({sc.name: sc for sc in (
    JoinedScenario("colours_only", "a frame joined with no red left, colours off their spots: "
                   "the yellow potted, then the green", colours_only,
                   start=(("reds_left", 0), _ALL_COLOURS, ("in_hand", False))),
    JoinedScenario("last_red", "a frame joined with the last red left: the red potted, then a "
                   "colour, re-spotted", reds_left(1),
                   start=(("reds_left", 1), _ALL_COLOURS, ("in_hand", False))),
    JoinedScenario("six_reds_left", "a frame joined with six reds left: a red potted",
                   reds_left(6, colour=False),
                   start=(("reds_left", 6), _ALL_COLOURS, ("in_hand", False))),
    JoinedScenario("ten_reds_left", "a frame joined with ten reds left: a red potted",
                   reds_left(10, colour=False),
                   start=(("reds_left", 10), _ALL_COLOURS, ("in_hand", False))),
)})
