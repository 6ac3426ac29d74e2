"""A stress set for the shot events: many single shots from random layouts, speeds and spins,
simulated by the physics alone (no rendering), each with its true trajectories sampled at a
camera's frame rate and its true events.

Every shot is drawn from its own seed, so shot ``k`` of seed ``s`` is the same wherever it is
made. The kinds of shot are weighted towards what makes events hard to tell apart: thin cuts,
kisses off balls touching or nearly touching, a ball near a cushion hit into it (double kisses),
small packs (near-simultaneous contacts), pots aimed a little off (rattles in the jaws) and
jump shots over a ball.

    stress_clip(seed, k, fps) -> TruthClip        one shot
    stress_set(n, seed, fps, workers) -> list     n shots, made on several processes

On demand, not kept in the repository: ``cueball simulate --stress N -o DIR`` writes the shots
as ``.npz`` (``TruthClip.load`` reads them back); ``python scripts/bench_events.py --stress N``
runs them through the tracker and the shot events.
"""

from __future__ import annotations

import hashlib
import math
from concurrent.futures import ProcessPoolExecutor
from functools import lru_cache
from pathlib import Path

import numpy as np

from calibration.specs import COLOURS, SNOOKER, SnookerTableSpec
from tracker.sim.detections import TruthClip, clip_from_timeline
from tracker.sim.model import BallSet, Motion, Strike
from tracker.sim.physics import PhysicsParams, simulate
from tracker.sim.script import Timeline, layout

# What a shot is built around, and how often.
KINDS = {"cut": 0.2, "pot": 0.3, "kiss": 0.15, "cushion_kiss": 0.1, "pack": 0.1, "jump": 0.05,
         "random": 0.1}
# The truth events a stress clip keeps.
EVENT_TYPES = ("shot_start", "contact", "cushion", "jaw", "pot", "off_table", "jump", "touching",
               "shot_end")
# s: the balls at rest before the strike (plus up to a frame, so strikes fall anywhere in a
# frame interval) and after the last ball stops.
BEFORE_S = 0.6
AFTER_S = 1.2
# s: a shot is cut off after this long (a slow last roll adds nothing).
MAX_SHOT_S = 14.0
# mm: the white is touching a ball at rest when their centres are this near a diameter.
TOUCH_MM = 0.5


def _free(xy: np.ndarray, placed: list[np.ndarray], d: float, table: SnookerTableSpec) -> bool:
    """A ball at ``xy`` keeps clear of the balls ``placed``, the cushions and the pockets."""
    r = table.ball_radius_mm
    if not (r + 0.5 <= xy[0] <= table.width_mm - r - 0.5
            and r + 0.5 <= xy[1] <= table.length_mm - r - 0.5):
        return False
    for p in table.pockets.values():
        if math.dist(xy, p.point_mm) < 110.0:
            return False
    return all(math.dist(xy, q) >= d for q in placed)


def _random_spot(rng, placed, d, table, near=None, spread=None) -> np.ndarray | None:
    """A free place anywhere on the cloth, or within ``spread`` mm of ``near``."""
    for _ in range(200):
        if near is None:
            xy = np.array([rng.uniform(0, table.width_mm), rng.uniform(0, table.length_mm)])
        else:
            xy = np.asarray(near, float) + rng.uniform(-spread, spread, 2)
        if _free(xy, placed, d, table):
            return xy
    return None


def _aim_at(white: np.ndarray, target: np.ndarray, cut: float, d: float) -> float:
    """Heading (degrees) from ``white`` that meets ``target`` with the given cut: the offset of
    the white's path from the target's centre, as a fraction of a diameter (0 full ball, +-1 the
    thinnest touch, on the left or right)."""
    to = target - white
    dist = float(np.hypot(*to))
    base = math.atan2(to[1], to[0])
    off = math.asin(float(np.clip(cut * d / max(dist, d), -1.0, 1.0)))
    return math.degrees(base + off)


def _ghost_heading(white, target, pocket_xy, d) -> float:
    """Heading (degrees) that sends ``target`` to ``pocket_xy`` (the ghost-ball aim)."""
    u = pocket_xy - target
    u = u / np.hypot(*u)
    ghost = target - u * d
    g = ghost - white
    return math.degrees(math.atan2(g[1], g[0]))


def random_shot(rng: np.random.Generator, table: SnookerTableSpec = SNOOKER
                ) -> tuple[str, BallSet, Strike]:
    """(kind, balls at rest, strike): one shot of a kind drawn from ``KINDS``."""
    d, r = table.ball_diameter_mm, table.ball_radius_mm
    kind = str(rng.choice(list(KINDS), p=np.array(list(KINDS.values())) / sum(KINDS.values())))
    for _ in range(100):
        placed: list[np.ndarray] = []
        white = _random_spot(rng, placed, d, table)
        if white is None:
            continue
        placed.append(white)
        targets: list[np.ndarray] = []
        pocket = None
        if kind == "pot":
            # an object ball 100-900 mm from a pocket, the white behind it at a cut of up to
            # ~60 degrees
            pocket = list(table.pockets.values())[int(rng.integers(6))]
            fall = np.asarray(pocket.fall_centre_mm, float)
            inward = np.array([table.width_mm / 2, table.length_mm / 2]) - fall
            inward /= np.hypot(*inward)
            spread = 0.6 if pocket.name.startswith("middle") else 0.7
            a = math.atan2(inward[1], inward[0]) + rng.uniform(-spread, spread)
            xy = fall + rng.uniform(150, 900) * np.array([math.cos(a), math.sin(a)])
            b = a + rng.uniform(-1.0, 1.0)
            w = xy + rng.uniform(150, 1200) * np.array([math.cos(b), math.sin(b)])
            if not (_free(xy, [], d, table) and _free(w, [xy], d, table)):
                continue
            white = w
            placed = [white]
            targets.append(xy)
        elif kind == "cushion_kiss":
            # a ball a few mm off a cushion, struck into it
            side = int(rng.integers(4))
            gap = rng.uniform(0.0, 25.0) + r
            along = rng.uniform(150, (table.width_mm if side < 2 else table.length_mm) - 150)
            xy = {0: (along, gap), 1: (along, table.length_mm - gap),
                  2: (gap, along), 3: (table.width_mm - gap, along)}[side]
            xy = np.array(xy, float)
            if not _free(xy, placed, d, table) or math.dist(xy, white) < 200:
                continue
            targets.append(xy)
        else:
            xy = _random_spot(rng, placed, d, table,
                              **({} if kind == "random" else {"near": white, "spread": 900.0}))
            if xy is None or math.dist(xy, white) < 80:
                continue
            targets.append(xy)
        placed.append(targets[0])
        if kind in ("kiss", "pack"):
            # balls touching or nearly touching the target (and each other)
            for _k in range(1 if kind == "kiss" else int(rng.integers(2, 6))):
                base = targets[int(rng.integers(len(targets)))]
                a = rng.uniform(0, 2 * math.pi)
                gap = 0.0 if rng.random() < 0.5 else rng.uniform(0.0, 8.0)
                xy = base + (d + 0.05 + gap) * np.array([math.cos(a), math.sin(a)])
                if _free(xy, placed, d, table):
                    targets.append(xy)
                    placed.append(xy)
        elif kind == "jump":
            # a ball between the white and the target
            u = rng.uniform(0.35, 0.65)
            xy = white + u * (targets[0] - white) + rng.normal(0, 8, 2)
            if math.dist(xy, white) < 2.5 * d or math.dist(xy, targets[0]) < 2 * d:
                continue
            if not _free(xy, placed, d, table):
                continue
            targets.append(xy)
            placed.append(xy)
        for _k in range(int(rng.integers(0, 8))):  # others about the table
            xy = _random_spot(rng, placed, d, table)
            if xy is not None:
                placed.append(xy)
        break
    else:
        raise RuntimeError("no layout found")
    others = placed[1:]
    colours = [c for c in COLOURS]
    rng.shuffle(colours)
    n_col = min(len(colours), int(rng.integers(0, len(others) + 1)))
    reds = others[: len(others) - n_col]
    cols = dict(zip(colours[:n_col], others[len(others) - n_col:]))
    balls = layout(white, np.array(reds).reshape(-1, 2), cols, table)

    target = targets[0]
    speed = float(math.exp(rng.uniform(math.log(400), math.log(7000))))
    top = float(rng.uniform(-0.8, 0.8))
    side = float(rng.uniform(-0.6, 0.6)) if rng.random() < 0.6 else 0.0
    elevation = 0.0
    if kind == "pot":
        heading = _ghost_heading(white, target, np.asarray(pocket.fall_centre_mm), d)
        heading += rng.normal(0, 0.5)  # a little off: rattles in the jaws
        side = 0.0 if rng.random() < 0.7 else side
        speed = float(rng.uniform(800, 4000))
    elif kind == "cut":
        # thin cuts as often as the rest
        cut = float(rng.choice([-1, 1]) * (rng.uniform(0.8, 1.0) if rng.random() < 0.5
                                           else rng.uniform(0, 0.8)))
        heading = _aim_at(white, target, cut, d)
    elif kind == "jump":
        heading = _aim_at(white, target, rng.uniform(-0.3, 0.3), d)
        elevation = float(rng.uniform(28, 45))
        speed = float(rng.uniform(3000, 6000))
        top, side = float(rng.uniform(-0.5, 0.0)), 0.0
    else:
        heading = _aim_at(white, target, rng.uniform(-0.9, 0.9), d)
    return kind, balls, Strike(heading, min(speed, 15000.0), top, side, elevation)


def _event_dicts(motion: Motion, t0: float) -> list[dict]:
    """The simulator's events as event-log dicts on the clip's clock (strike at ``t0``)."""
    cls = dict(zip(motion.ids, motion.classes))
    out: list[dict] = []
    for e in motion.events:
        t = t0 + e.t
        if e.type == "contact":
            a, b = e.balls
            out.append({"type": "contact", "t": t, "balls": [a, b], "classes": [cls[a], cls[b]],
                        "speed_mm_s": e.speed_mm_s})
        elif e.type in ("cushion", "jaw", "pot", "off_table", "jump"):
            b = e.balls[0]
            ev = {"type": e.type, "t": t, "ball": b, "class": cls[b]}
            if e.type == "cushion":
                ev["cushion"] = e.cushion
            if e.type in ("jaw", "pot"):
                ev["pocket"] = e.pocket
            if e.type == "jump":
                ev["over"] = e.over
            if e.speed_mm_s is not None:
                ev["speed_mm_s"] = e.speed_mm_s
            out.append(ev)
    return out


def touching_white(balls: BallSet, table: SnookerTableSpec = SNOOKER) -> list[str]:
    """Ids of the balls at rest touching the white (centres within a diameter + ``TOUCH_MM``)."""
    if "white" not in balls.ids:
        return []
    w = balls.index("white")
    on = balls.on_table()
    if not on[w]:
        return []
    d = np.hypot(*(balls.pos[:, :2] - balls.pos[w, :2]).T)
    return [i for k, i in enumerate(balls.ids)
            if k != w and on[k] and d[k] <= table.ball_diameter_mm + TOUCH_MM]


def stress_clip(seed: int, index: int, fps: float = 30.0, exposure_s: float = 1 / 60,
                table: SnookerTableSpec = SNOOKER) -> TruthClip:
    """Shot ``index`` of the stress set ``seed``, sampled at ``fps``: a TruthClip whose events
    are the true ``EVENT_TYPES`` (contacts and cushions carry the impact's ``speed_mm_s``), the
    shot dated from the strike to the last ball stopping."""
    rng = np.random.default_rng([seed, index])
    kind, balls, strike = random_shot(rng, table)
    dt = 1 / (4 * fps)
    motion = simulate(balls, strike, table, PhysicsParams(), seed=int(rng.integers(1 << 30)),
                      sample_dt=dt, max_time=MAX_SHOT_S)
    n_pre = int(round((BEFORE_S + rng.uniform(0, 1 / fps)) / dt))
    n_post = int(round(AFTER_S / dt))
    pos = np.concatenate([np.repeat(motion.pos[:1], n_pre, 0), motion.pos,
                          np.repeat(motion.pos[-1:], n_post, 0)])
    state = np.concatenate([np.repeat(motion.state[:1], n_pre, 0), motion.state,
                            np.repeat(motion.state[-1:], n_post, 0)])
    t0 = n_pre * dt
    events = [{"type": "shot_start", "t": t0}] + _event_dicts(motion, t0)
    t_end = t0 + motion.duration
    touching = touching_white(motion.final, table)
    cls = dict(zip(motion.ids, motion.classes))
    for b in touching:
        events.append({"type": "touching", "t": t_end, "balls": ["white", b],
                       "classes": ["white", cls[b]]})
    events.append({"type": "shot_end", "t": t_end})
    tl = Timeline(list(balls.ids), list(balls.classes), dt, pos, state, events=events)
    return clip_from_timeline(f"stress-{seed}-{index:04d}-{kind}", tl, fps, exposure_s,
                              EVENT_TYPES)


def _one(args) -> TruthClip:
    return stress_clip(*args)


def stress_set(n: int, seed: int = 0, fps: float = 30.0, exposure_s: float = 1 / 60,
               workers: int | None = None, cache: Path | None = None) -> list[TruthClip]:
    """Shots ``0..n-1`` of the stress set ``seed``, made on ``workers`` processes (None: every
    core). With ``cache``, each shot is kept there as ``.npz`` and read back when asked again
    (the name holds the seed, index, fps, shutter and a digest of the simulator's source)."""
    jobs, out = [], {}
    for k in range(n):
        path = None if cache is None else Path(cache) / _file_name(seed, k, fps, exposure_s)
        if path is not None and path.exists():
            out[k] = TruthClip.load(path)
        else:
            jobs.append(k)
    if jobs:
        args = [(seed, k, fps, exposure_s) for k in jobs]
        if workers == 1 or len(jobs) == 1:
            made = map(_one, args)
        else:
            pool = ProcessPoolExecutor(workers)
            made = pool.map(_one, args, chunksize=4)
        for k, clip in zip(jobs, made):
            out[k] = clip
            if cache is not None:
                Path(cache).mkdir(parents=True, exist_ok=True)
                clip.save(Path(cache) / _file_name(seed, k, fps, exposure_s))
        if not (workers == 1 or len(jobs) == 1):
            pool.shutdown()
    return [out[k] for k in range(n)]


def _file_name(seed: int, index: int, fps: float, exposure_s: float) -> str:
    return (f"stress-s{seed}-{index:04d}-{fps:g}fps-e{exposure_s * 1e3:.1f}ms-"
            f"{_source_digest()}.npz")


@lru_cache(maxsize=1)
def _source_digest() -> str:
    """A digest of the simulator's source: a changed physics or generator makes new shots."""
    here = Path(__file__).resolve().parent
    parts = ("model.py", "physics.py", "script.py", "stress.py")
    return hashlib.sha1(b"".join((here / p).read_bytes() for p in parts)).hexdigest()[:10]


__all__ = ["KINDS", "EVENT_TYPES", "random_shot", "stress_clip", "stress_set", "touching_white"]
