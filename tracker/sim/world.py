"""Randomised worlds: a table, a room and a camera drawn from a seed, for validation clips that
nothing was tuned on.

``World.draw(seed)`` draws every part a real table or camera varies, each from the range given
beside its field; ``make_world_clip`` films a short piece of play, itself drawn from the seed
(a break-off into the full pack, a pot, a slow arrival at a cushion, a red nudged into a
cushion), in that world, and writes the truth and the world beside the clip.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

import cv2
import numpy as np

from calibration.camera import Camera
from calibration.specs import SNOOKER, SnookerTableSpec
from tracker.sim.clip import ClipSpec, Lighting, render_clip
from tracker.sim.model import Strike
from tracker.sim.render import Build, Look
from tracker.sim.scenarios import RESOLUTIONS, ScenarioError, pot_any
from tracker.sim.script import Script, Timeline, layout

# Cloth shades (BGR under full light) makers sell, and the rails' woods and paints.
CLOTHS = {"green": (14, 170, 22), "olive": (30, 140, 70), "blue": (150, 88, 20),
          "teal": (120, 120, 20), "grey": (110, 112, 108), "red": (30, 30, 150),
          "tan": (90, 150, 185), "purple": (110, 40, 90), "black": (30, 32, 30)}
RAILS = {"mahogany": (22, 30, 74), "walnut": (30, 48, 80), "oak": (70, 120, 170),
         "black": (20, 20, 22), "white": (200, 205, 205), "grey": (90, 90, 95)}
KINDS = ("pack", "pot", "slow_cushion", "nudge")
FPS = (25.0, 30.0, 50.0, 60.0)


@dataclass(frozen=True)
class World:
    """One table, room and camera, drawn by ``World.draw`` (the ranges are the draw's).

    Table and room:
        cloth (``CLOTHS``), cloth_bgr (the shade jittered by up to 12 % a channel);
        nap_strength 0-0.06; wear 0-0.8 (``Build.wear``); chalk_marks 0-25;
        undercut_mm 2-12, nose_height_mm 31-40, nose_round 0.08-0.3, rail_raise_mm 4-25
        (the cushion's profile); cushion_bgr (the cloth 0.7-0.95 as bright, one in four of
        another shade); rail (``RAILS``), rail_bgr; jaw_mm -8 to 10 (the pockets' cut);
        lamp_count 1-8, lamps_mm (evenly along the table, each moved up to 150 mm, at a
        height of 800-1400 mm), lamp_radius_mm 60-300, lamp_bgr (colour temperature: blue
        gain 0.8-1.15 against red 1.12-0.9); ambient 0.15-0.45; flicker 0-0.05 at 1-15 Hz;
        ball_gloss 0.4-1.3; ball_wear 0-0.7.
    Camera:
        camera ``overhead`` (5 in 6) or ``broadcast`` (high behind an end cushion, 2.4-3.8 m
        up, 3.5-6 m back); height_mm 2200-4000 (overhead); tilt_deg 0-15 towards
        tilt_azimuth_deg 0-360 (overhead); baulk_left (the table either way round); roll_deg:
        within 8 degrees for three in four, any angle for the rest (overhead), within 3 degrees
        (broadcast); fill 0.8-0.97, the share of the picture the table's outline reaches to
        (the focal length follows); principal_offset (x, y), each within 5 % of the picture;
        k1 -0.35 to 0.05, k2 k1^2 x 0.1-0.6, k3 -0.02 to 0.02, p1 and p2 -0.002 to 0.002
        (broadcast: k1 -0.1 to 0.02); size 1280x720 (1 in 5), 1920x1080 or 3840x2160 (1 in
        16); fps 25, 30, 50 or 60; exposure 0.3-0.9 of a frame; noise_sigma 0.5-4 (8-bit
        levels); kbps: 0.03-0.15 bits a pixel at the frame rate (x264's ``veryfast``, as a
        camera's encoder).
    Play:
        kind (``KINDS``) and play_seed, for the physics.
    """

    seed: int
    cloth: str
    cloth_bgr: tuple[float, float, float]
    nap_strength: float
    wear: float
    chalk_marks: int
    undercut_mm: float
    nose_height_mm: float
    nose_round: float
    rail_raise_mm: float
    cushion_bgr: tuple[float, float, float]
    rail: str
    rail_bgr: tuple[float, float, float]
    jaw_mm: float
    lamp_count: int
    lamps_mm: tuple[tuple[float, float, float], ...]
    lamp_radius_mm: float
    lamp_bgr: tuple[float, float, float]
    ambient: float
    flicker: float
    flicker_hz: float
    ball_gloss: float
    ball_wear: float
    camera: str
    height_mm: float
    tilt_deg: float
    tilt_azimuth_deg: float
    baulk_left: bool
    roll_deg: float
    fill: float
    principal_offset: tuple[float, float]
    k1: float
    k2: float
    k3: float
    p1: float
    p2: float
    size: tuple[int, int]
    fps: float
    exposure: float
    noise_sigma: float
    kbps: int
    kind: str
    play_seed: int
    eye_mm: tuple[float, float, float] | None = None  # broadcast only

    @classmethod
    def draw(cls, seed: int, resolution: str | None = None, table: SnookerTableSpec = SNOOKER
             ) -> World:
        """The world of ``seed`` (the same seed, the same world); ``resolution`` (720p, 1080p,
        4k) in place of the drawn size."""
        rng = np.random.default_rng([int(seed), 4242])
        u = rng.uniform

        def jitter(bgr, share):
            return tuple(round(float(np.clip(c * u(1 - share, 1 + share), 0, 255)), 1)
                         for c in bgr)

        cloth = str(rng.choice(list(CLOTHS)))
        cloth_bgr = jitter(CLOTHS[cloth], 0.12)
        shade = u(0.7, 0.95)
        other = CLOTHS[str(rng.choice(list(CLOTHS)))]
        cushion_bgr = tuple(round(c * shade, 1) for c in (other if rng.random() < 0.25
                                                           else cloth_bgr))
        rail = str(rng.choice(list(RAILS)))
        lamp_count = int(rng.integers(1, 9))
        lamp_z = u(800, 1400)
        ys = (np.arange(lamp_count) + 0.5) / lamp_count * table.length_mm
        lamps = tuple((round(table.centre_x_mm + u(-150, 150), 1), round(y + u(-150, 150), 1),
                       round(lamp_z + u(-50, 50), 1)) for y in ys)
        warm = u(-1, 1)
        lamp_bgr = (round(1 - 0.15 * warm if warm > 0 else 1 - 0.2 * warm, 3), 1.0,
                    round(1 + 0.12 * warm if warm > 0 else 1 + 0.1 * warm, 3))
        broadcast = rng.random() < 1 / 6
        k1 = u(-0.1, 0.02) if broadcast else u(-0.35, 0.05)
        if resolution is None:
            r = rng.random()
            size = RESOLUTIONS["720p"] if r < 0.2 else RESOLUTIONS["4k"] if r > 0.94 else \
                RESOLUTIONS["1080p"]
        else:
            size = RESOLUTIONS[resolution.lower()]
        fps = float(rng.choice(FPS))
        bpp = u(0.03, 0.15)
        roll = u(-8, 8) if rng.random() < 3 / 4 else u(-180, 180)
        end = 1 if rng.random() < 0.5 else -1
        eye = (round(table.centre_x_mm + u(-300, 300), 1),
               round(table.length_mm / 2 + end * (table.length_mm / 2 + u(3500, 6000)), 1),
               round(u(2400, 3800), 1)) if broadcast else None
        return cls(
            seed=int(seed), cloth=cloth, cloth_bgr=cloth_bgr, nap_strength=round(u(0, 0.06), 4),
            wear=round(u(0, 0.8), 3), chalk_marks=int(rng.integers(0, 26)),
            undercut_mm=round(u(2, 12), 2), nose_height_mm=round(u(31, 40), 2),
            nose_round=round(u(0.08, 0.3), 3), rail_raise_mm=round(u(4, 25), 2),
            cushion_bgr=cushion_bgr, rail=rail, rail_bgr=jitter(RAILS[rail], 0.15),
            jaw_mm=round(u(-8, 10), 2), lamp_count=lamp_count, lamps_mm=lamps,
            lamp_radius_mm=round(u(60, 300), 1), lamp_bgr=lamp_bgr,
            ambient=round(u(0.15, 0.45), 3), flicker=round(u(0, 0.05), 4),
            flicker_hz=round(u(1, 15), 2), ball_gloss=round(u(0.4, 1.3), 3),
            ball_wear=round(u(0, 0.7), 3), camera="broadcast" if broadcast else "overhead",
            height_mm=round(u(2200, 4000), 1), tilt_deg=round(u(0, 15), 2),
            tilt_azimuth_deg=round(u(0, 360), 1), baulk_left=bool(rng.random() < 0.5),
            roll_deg=round(u(-3, 3) if broadcast else roll, 2), fill=round(u(0.8, 0.97), 3),
            principal_offset=(round(u(-0.05, 0.05), 4), round(u(-0.05, 0.05), 4)),
            k1=round(k1, 4), k2=round(k1 * k1 * u(0.1, 0.6), 4), k3=round(u(-0.02, 0.02), 4),
            p1=round(u(-0.002, 0.002), 5), p2=round(u(-0.002, 0.002), 5), size=size, fps=fps,
            exposure=round(u(0.3, 0.9), 3), noise_sigma=round(u(0.5, 4.0), 2),
            kbps=int(round(bpp * size[0] * size[1] * fps / 1000)),
            kind=str(rng.choice(KINDS)), play_seed=int(rng.integers(0, 2**31 - 1)), eye_mm=eye)

    def to_dict(self) -> dict:
        return asdict(self)

    # -- what the renderer and the camera take ----------------------------------------------------
    def look(self) -> Look:
        return Look(cloth_bgr=self.cloth_bgr, nap_strength=self.nap_strength,
                    lamps_mm=self.lamps_mm, lamp_count=self.lamp_count,
                    lamp_height_mm=float(np.mean([p[2] for p in self.lamps_mm])),
                    lamp_radius_mm=self.lamp_radius_mm, ambient=self.ambient,
                    rail_bgr=self.rail_bgr, ball_gloss=self.ball_gloss,
                    noise_sigma=self.noise_sigma, exposure=self.exposure)

    def build(self) -> Build:
        return Build(undercut_mm=self.undercut_mm, nose_height_mm=self.nose_height_mm,
                     nose_round=self.nose_round, rail_raise_mm=self.rail_raise_mm,
                     cushion_bgr=self.cushion_bgr, jaw_mm=self.jaw_mm, wear=self.wear,
                     chalk_marks=self.chalk_marks, lamp_bgr=self.lamp_bgr,
                     ball_wear=self.ball_wear)

    def lighting(self) -> Lighting:
        return Lighting(flicker=self.flicker, flicker_hz=self.flicker_hz)

    def lens(self) -> np.ndarray:
        """OpenCV's (k1, k2, p1, p2, k3)."""
        return np.array([self.k1, self.k2, self.p1, self.p2, self.k3])

    def make_camera(self, table: SnookerTableSpec = SNOOKER) -> Camera:
        """The camera: posed, rolled, its principal point moved and its focal length set so
        that the table's outline (the rails' outer edges) reaches ``fill`` of the way to the
        nearest edge of the picture, through the lens."""
        cx, cy = table.centre_x_mm, table.length_mm / 2
        if self.camera == "broadcast":
            eye = np.asarray(self.eye_mm, float)
            up = (0.0, 0.0, 1.0)
            target = (cx, cy + 0.1 * (eye[1] - cy) / abs(eye[1] - cy) * table.length_mm, 0.0)
        else:
            side = self.height_mm * math.tan(math.radians(self.tilt_deg))
            az = math.radians(self.tilt_azimuth_deg)
            eye = np.array([cx + side * math.cos(az), cy + side * math.sin(az), self.height_mm])
            up = (-1.0, 0.0, 0.0) if self.baulk_left else (1.0, 0.0, 0.0)
            target = (cx, cy, 0.0)
        base = Camera.look_at(eye, target, self.size, hfov_deg=60.0, up=up)
        a = math.radians(self.roll_deg)
        roll = np.array([[math.cos(a), -math.sin(a), 0], [math.sin(a), math.cos(a), 0], [0, 0, 1]])
        R, t = roll @ base.R, roll @ base.t
        w, h = self.size
        ppx = w / 2 + self.principal_offset[0] * w
        ppy = h / 2 + self.principal_offset[1] * h
        m = table.cushion_depth_mm + table.rail_width_mm
        s = np.linspace(0, 1, 64)[:, None]
        corners = np.array([[-m, -m], [table.width_mm + m, -m], [table.width_mm + m,
                            table.length_mm + m], [-m, table.length_mm + m]])
        outline = np.concatenate([a_ + s * (b_ - a_) for a_, b_ in
                                  zip(corners, np.roll(corners, -1, axis=0))])
        pts = np.c_[outline, np.full(len(outline), 50.0)] @ R.T + t
        xd, _ = cv2.projectPoints(pts, np.zeros(3), np.zeros(3), np.eye(3), self.lens())
        xd = xd[:, 0]
        room_x = np.where(xd[:, 0] > 0, w - ppx, ppx) / np.maximum(np.abs(xd[:, 0]), 1e-9)
        room_y = np.where(xd[:, 1] > 0, h - ppy, ppy) / np.maximum(np.abs(xd[:, 1]), 1e-9)
        f = self.fill * float(min(room_x.min(), room_y.min()))
        K = np.array([[f, 0, ppx], [0, f, ppy], [0, 0, 1.0]])
        return Camera(K, self.lens(), R, t, self.size)

    def clip_spec(self, table: SnookerTableSpec = SNOOKER) -> ClipSpec:
        return ClipSpec(camera=self.make_camera(table), fps=self.fps, look=self.look(),
                        lighting=self.lighting(), exposure=self.exposure, build=self.build(),
                        kbps=self.kbps, preset="veryfast")

    # -- the play ---------------------------------------------------------------------------------
    def play(self, max_s: float = 5.0) -> Timeline:
        """The clip's play (``kind``), cut at ``max_s`` seconds."""
        rng = np.random.default_rng(self.play_seed)
        return played(lambda attempt: PLAYS[self.kind](rng, self.play_seed + attempt), max_s,
                      f"world {self.seed}: no {self.kind} play found")


def played(make: Callable[[int], Script], max_s: float, failure: str) -> Timeline:
    """The timeline of the first of ``make(0)``, ``make(1)``, ... (8 tries) whose physics gives
    the play, cut at ``max_s`` seconds; ScenarioError ``failure`` when none does."""
    for attempt in range(8):
        try:
            script = make(attempt)
            break
        except (ScenarioError, ValueError):
            continue
    else:
        raise ScenarioError(failure)
    return cut(script.finish(tail_s=0.4), max_s)


def _spread_balls(rng: np.random.Generator, n: int, keep_off: list, table=SNOOKER,
                  margin: float = 80.0) -> np.ndarray:
    """(n, 2) points on the bed at least two diameters from each other and from ``keep_off``."""
    out: list = []
    d = 2 * table.ball_diameter_mm
    while len(out) < n:
        p = rng.uniform([margin, margin], [table.width_mm - margin, table.length_mm - margin])
        if all(np.hypot(*(p - q)) > d for q in [*out, *keep_off]):
            out.append(p)
    return np.array(out).reshape(-1, 2)


def _colours_clear_of(points: np.ndarray, table=SNOOKER) -> dict:
    """The colours on their spots, less any a point lies within two diameters of."""
    return {c: xy for c, xy in table.spots_mm.items()
            if all(np.hypot(*(np.asarray(xy) - p)) > 2 * table.ball_diameter_mm for p in points)}


def _pack(rng: np.random.Generator, seed: int) -> Script:
    """The full pack with the white in the D, broken off at 2.5-6 m/s."""
    t = SNOOKER
    a = rng.uniform(0.3, 1.0) * math.pi
    white = (t.centre_x_mm + 0.8 * t.d_radius_mm * math.cos(a), t.baulk_line_mm - 0.8
             * t.d_radius_mm * abs(math.sin(a)))
    s = Script(layout(white, t.red_rack_mm), seed=seed)
    s.wait(0.3)
    rack = t.red_rack_mm
    target = rack[np.argmax(rack[:, 0] * rng.choice([-1, 1]) - rack[:, 1] * 0.02)]
    off = rng.uniform(0.5, 0.95) * np.sign(target[0] - t.centre_x_mm) * t.ball_diameter_mm
    d = target + np.array([off, 0.0]) - np.asarray(white)
    s.shoot(Strike(math.degrees(math.atan2(d[1], d[0])), rng.uniform(2500, 6000), top=0.1),
            address_s=0.4, settle_s=0.3)
    return s


def _pot(rng: np.random.Generator, seed: int) -> Script:
    """A few reds and the colours; a red potted."""
    white = _spread_balls(rng, 1, [])
    reds = _spread_balls(rng, int(rng.integers(2, 8)), [white[0]])
    s = Script(layout(tuple(white[0]), reds, _colours_clear_of(np.vstack([white, reds]))),
               seed=seed)
    s.wait(0.3)
    _, _, strike = pot_any(s, [i for i in s.balls.ids if i.startswith("red")])
    s.shoot(strike, address_s=0.4, settle_s=0.3)
    return s


def _slow_cushion(rng: np.random.Generator, seed: int) -> Script:
    """The white rolled slowly into a cushion, arriving at 0.3 m/s or less."""
    t = SNOOKER
    side = int(rng.integers(0, 4))
    gap = rng.uniform(150, 450)
    along = rng.uniform(300, (t.width_mm if side >= 2 else t.length_mm) - 300)
    white = [(gap, along), (t.width_mm - gap, along), (along, gap),
             (along, t.length_mm - gap)][side]
    heading = (180.0, 0.0, 270.0, 90.0)[side] + rng.uniform(-25, 25)
    reds = _spread_balls(rng, int(rng.integers(1, 6)), [np.asarray(white)])
    s = Script(layout(white, reds, _colours_clear_of(np.vstack([white, reds]))), seed=seed)
    s.wait(0.3)
    speeds = np.arange(300.0, 2000.0, 60.0)

    def slow(m) -> bool:
        hits = [e for e in m.events if e.type == "cushion" and e.balls[0] == "white"]
        return bool(hits) and hits[0].speed_mm_s is not None and hits[0].speed_mm_s <= 300 and \
            not any(e.type == "contact" for e in m.events)

    s.shoot(s.find_strike([Strike(heading, v, top=0.4) for v in speeds], slow),
            address_s=0.4, settle_s=0.3)
    return s


def beside_cushion(rng: np.random.Generator, table=SNOOKER
                   ) -> tuple[tuple[float, float], tuple[int, int], tuple[float, float]]:
    """A ball 5-60 mm off a cushion drawn at random, and where a striker 150-400 mm behind it
    stands: (ball xy, the cushion's outward direction, striker xy)."""
    side = int(rng.integers(0, 4))
    gap = rng.uniform(5, 60) + table.ball_radius_mm
    along = rng.uniform(300, (table.width_mm if side >= 2 else table.length_mm) - 300)
    ball, out = [((gap, along), (-1, 0)), ((table.width_mm - gap, along), (1, 0)),
                 ((along, gap), (0, -1)), ((along, table.length_mm - gap), (0, 1))][side]
    back = rng.uniform(150, 400)
    return ball, out, (ball[0] - out[0] * back, ball[1] - out[1] * back)


def nudge_into_cushion(s: Script, rng: np.random.Generator, ball_id: str,
                       out: tuple[int, int]) -> None:
    """The cue ball plays ``ball_id`` straight into the cushion beyond it (within 3 degrees),
    at the slowest of 0.3-2.5 m/s that makes it reach the cushion without a pot."""
    heading = math.degrees(math.atan2(out[1], out[0]))

    def nudged(m) -> bool:
        return any(e.type == "cushion" and e.balls[0] == ball_id for e in m.events) and not any(
            e.type == "pot" for e in m.events)

    s.shoot(s.find_strike([Strike(heading + rng.uniform(-3, 3), v, top=0.3)
                           for v in np.arange(300.0, 2500.0, 100.0)], nudged),
            address_s=0.4, settle_s=0.3)


def _nudge(rng: np.random.Generator, seed: int) -> Script:
    """A red near a cushion nudged into it by the white."""
    red, out, white = beside_cushion(rng)
    others = _spread_balls(rng, int(rng.integers(0, 5)), [np.asarray(red), np.asarray(white)])
    reds = np.vstack([[red], others])
    s = Script(layout(white, reds, _colours_clear_of(np.vstack([white, reds]))), seed=seed)
    s.wait(0.3)
    nudge_into_cushion(s, rng, "red_01", out)
    return s


PLAYS: dict[str, Callable[[np.random.Generator, int], Script]] = {
    "pack": _pack, "pot": _pot, "slow_cushion": _slow_cushion, "nudge": _nudge}


def cut(timeline: Timeline, max_s: float) -> Timeline:
    """``timeline`` up to ``max_s`` seconds: its samples, events and shots (a shot cut short
    keeps no end)."""
    n = int(round(max_s / timeline.dt)) + 1
    if len(timeline.pos) <= n:
        return timeline
    timeline.pos, timeline.state = timeline.pos[:n], timeline.state[:n]
    if timeline.orient is not None:
        timeline.orient = timeline.orient[:n]
    timeline.events = [e for e in timeline.events if e["t"] <= max_s]
    timeline.shots = [s for s in timeline.shots if s["t_end"] <= max_s]
    return timeline


def world_path(video: Path) -> Path:
    """The world's JSON beside a clip: ``NAME.world.json``."""
    return video.with_name(video.name.removesuffix(".mp4") + ".world.json")


def make_world_clip(seed: int, out_path: str | Path, resolution: str | None = None,
                    max_s: float = 5.0,
                    progress: Callable[[int, int], None] | None = None) -> dict:
    """The clip of world ``seed`` to ``out_path``, with the truth (``render_clip``'s) and the
    world (``NAME.world.json``) beside it. Returns the truth's meta."""
    world = World.draw(seed, resolution)
    timeline = world.play(max_s)
    out_path = Path(out_path)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    meta = {"scenario": f"world_{world.kind}", "description": f"world {seed}: {world.kind}",
            "players": ["Player 1", "Player 2"], "prelude": [], "world": world.to_dict()}
    meta, _ = render_clip(timeline, world.clip_spec(), out_path, seed=seed, progress=progress,
                          meta=meta)
    world_path(out_path).write_text(json.dumps(world.to_dict(), indent=1) + "\n")
    return meta
