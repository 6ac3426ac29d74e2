"""Ball detections made from ground truth, for measuring the tracker and the shot logic apart
from the detector.

A :class:`TruthClip` is ground truth sampled at a clip's frames (from a scenario's Timeline,
from a rendered clip's truth files, or from ``tracker.sim.stress``); :func:`synth_detections`
turns it into what a detector would give, with realistic noise, blur, misses, false positives
and class confusion; :func:`run_tracker` runs the ball tracker over them.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from calibration.specs import BALL_CLASSES, SNOOKER
from tracker.tracking.track import BallTracker, TableState, TrackerConfig

# Event types the truth and the tracker both report.
BALL_EVENTS = ("pot", "off_table", "respot", "white_placed")
# An overhead camera this high (mm) for the occluders' shadows on the balls.
CAMERA_HEIGHT_MM = 3000.0
# Fields of the truth events a TruthClip keeps.
EVENT_FIELDS = ("type", "t", "ball", "pocket", "balls", "classes", "class", "cushion", "over",
                "speed_mm_s")


@dataclass
class TruthClip:
    """Ground truth sampled at the clip's frames: F frames, N balls.

    times (F,); pos (F, N, 2) mm; exposed (F, N, 2) mm, the centre of each ball's blur streak
    over the shutter; speed (F, N) mm/s; on_table (F, N) bool; hidden (F, N) bool (under an
    occluder); events: truth event dicts with ``type`` and ``t`` (s, on the clip's clock) and
    those of the fields ``EVENT_FIELDS`` they have (``ball``, ``pocket``, ``balls``...)."""

    name: str
    ids: list[str]
    classes: list[str]
    times: np.ndarray
    pos: np.ndarray
    exposed: np.ndarray
    speed: np.ndarray
    on_table: np.ndarray
    hidden: np.ndarray
    events: list[dict]

    def save(self, path: Path) -> None:
        np.savez_compressed(path, times=self.times, pos=self.pos, exposed=self.exposed,
                            speed=self.speed, on_table=self.on_table, hidden=self.hidden,
                            meta=json.dumps({"name": self.name, "ids": self.ids,
                                             "classes": self.classes, "events": self.events}))

    @classmethod
    def load(cls, path: Path) -> TruthClip:
        d = np.load(path)
        meta = json.loads(str(d["meta"]))
        return cls(meta["name"], meta["ids"], meta["classes"], d["times"], d["pos"],
                   d["exposed"], d["speed"], d["on_table"], d["hidden"], meta["events"])


def _hidden_by(capsules, xy: np.ndarray, ball_r: float) -> np.ndarray:
    """(N,) bool: ball centres ``xy`` (N, 2) inside the shadow an overhead camera sees of the
    capsules, cast onto the plane of the balls' centres."""
    out = np.zeros(len(xy), bool)
    eye = np.array([SNOOKER.centre_x_mm, SNOOKER.length_mm / 2, CAMERA_HEIGHT_MM])
    for c in capsules:
        ends, radii = [], []
        for p, r in ((np.array(c.a_mm), c.radius_a_mm), (np.array(c.b_mm), c.radius_b_mm)):
            k = (eye[2] - ball_r) / max(eye[2] - p[2], 1.0)
            ends.append(eye[:2] + (p[:2] - eye[:2]) * k)
            radii.append(r * k)
        a, b = ends
        ab = b - a
        L2 = float(ab @ ab)
        s = np.clip(((xy - a) @ ab) / L2, 0, 1) if L2 > 1e-9 else np.zeros(len(xy))
        d = np.hypot(*(xy - (a + s[:, None] * ab)).T)
        out |= d < radii[0] + s * (radii[1] - radii[0])
    return out


def clip_from_timeline(name: str, tl, fps: float, exposure_s: float,
                       event_types: tuple[str, ...] = BALL_EVENTS) -> TruthClip:
    """Sample a scenario Timeline at ``fps``; hidden balls from its occluders; the truth events
    of ``event_types``."""
    from tracker.sim.model import BallState

    times = np.arange(0.0, tl.duration, 1.0 / fps)
    pos, state = tl.at(times)
    h = tl.dt
    ahead, _ = tl.at(times + h)
    behind, _ = tl.at(np.maximum(times - h, 0.0))
    speed = np.hypot(*((ahead - behind)[..., :2] / (2 * h)).transpose(2, 0, 1))
    streak = [tl.at(np.maximum(times - exposure_s * u, 0.0))[0][..., :2]
              for u in np.linspace(0, 1, 7)]
    exposed = np.mean(streak, axis=0)
    on_table = (state == BallState.ON_TABLE) | (state == BallState.AIRBORNE)
    r = SNOOKER.ball_radius_mm
    hidden = np.array([_hidden_by(tl.occluders(float(t)), pos[f, :, :2], r)
                       for f, t in enumerate(times)])
    events = [{k: v for k, v in e.items() if k in EVENT_FIELDS}
              for e in tl.events if e["type"] in event_types]
    return TruthClip(name, list(tl.ids), list(tl.classes), times, pos[..., :2], exposed, speed,
                     on_table, hidden, events)


def clip_from_truth_file(path: str | Path, exposure_s: float,
                         event_types: tuple[str, ...] = BALL_EVENTS) -> TruthClip:
    """A rendered clip's truth files: the renderer's visibility says which balls are hidden;
    the truth events of ``event_types``."""
    from tracker.sim.truth import read_truth

    meta, bt = read_truth(path)
    pos = bt.pos_mm[..., :2]
    vel = np.gradient(pos, bt.t, axis=0)
    events = [{k: v for k, v in e.items() if k in EVENT_FIELDS}
              for e in meta.get("events", []) if e.get("type") in event_types]
    return TruthClip(Path(path).name.split(".")[0], bt.ids, bt.classes, bt.t, pos,
                     pos - vel * exposure_s / 2, np.hypot(*vel.transpose(2, 0, 1)),
                     np.isin(bt.state, ("rest", "moving", "airborne")), bt.visible < 0.5, events)


# -- synthetic detections ------------------------------------------------------------------------
CONFUSED_WITH = {"red": ("pink", "brown"), "pink": ("red",), "brown": ("red",)}


def synth_detections(clip: TruthClip, seed: int, miss: float = 0.01, false_pos: float = 0.001,
                     confusion: float = 0.01, other_confusion: float = 0.003,
                     ) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Per frame (xy_mm (K, 2), cls (K,), confidence (K,)) made from ``clip``'s truth.

    Each ball gets its own rest noise of 0.3-1 mm per axis; moving balls add 1 mm per m/s (up
    to 3 mm) and spread along the streak (a tenth of its length); ``miss`` of the visible balls
    go undetected; ``false_pos`` per ball on the table per frame are spurious detections
    anywhere on the cloth; ``confusion`` of red, pink and brown detections get one of the
    others' class, ``other_confusion`` of every ball a random other class."""
    rng = np.random.default_rng(seed)
    F, N = clip.on_table.shape
    sigma_rest = rng.uniform(0.3, 1.0, N)
    cls_true = np.array([BALL_CLASSES.index(c) for c in clip.classes])
    r, w, L = SNOOKER.ball_radius_mm, SNOOKER.width_mm, SNOOKER.length_mm
    out = []
    for f in range(F):
        vis = clip.on_table[f] & ~clip.hidden[f] & (rng.random(N) >= miss)
        idx = np.flatnonzero(vis)
        xy = clip.exposed[f, idx].copy()
        speed = clip.speed[f, idx]
        sigma = sigma_rest[idx] + np.minimum(speed / 1000.0, 3.0)
        xy += rng.normal(size=xy.shape) * sigma[:, None]
        # blur: the streak's centre is less sure along the streak
        d = clip.pos[f, idx] - clip.exposed[f, idx]
        n = np.hypot(*d.T)
        along = np.where(n[:, None] > 1e-6, d / np.maximum(n, 1e-6)[:, None], 0.0)
        xy += along * (rng.normal(size=len(idx)) * 0.2 * n)[:, None]
        cls = cls_true[idx].copy()
        conf = rng.uniform(0.75, 0.99, len(idx))
        for m, i in enumerate(idx):
            name = clip.classes[i]
            u = rng.random()
            if name in CONFUSED_WITH and u < confusion:
                cls[m] = BALL_CLASSES.index(rng.choice(CONFUSED_WITH[name]))
                conf[m] = rng.uniform(0.45, 0.8)
            elif u > 1 - other_confusion:
                cls[m] = rng.choice([k for k in range(len(BALL_CLASSES)) if k != cls[m]])
                conf[m] = rng.uniform(0.45, 0.8)
        n_fp = rng.poisson(false_pos * max(int(clip.on_table[f].sum()), 1))
        if n_fp:
            fp = np.column_stack([rng.uniform(r, w - r, n_fp), rng.uniform(r, L - r, n_fp)])
            xy = np.vstack([xy, fp])
            cls = np.r_[cls, rng.integers(0, len(BALL_CLASSES), n_fp)]
            conf = np.r_[conf, rng.uniform(0.3, 0.7, n_fp)]
        order = rng.permutation(len(xy))  # the detector's order means nothing
        out.append((xy[order], cls[order], conf[order]))
    return out


def run_tracker(clip: TruthClip, detections, config: TrackerConfig | None = None
                ) -> tuple[list[TableState], np.ndarray]:
    """The tracker over the clip: its states (F,) and the time each update took (F,) s."""
    tracker = BallTracker(config)
    states, took = [], np.zeros(len(clip.times))
    for f, (t, (xy, cls, conf)) in enumerate(zip(clip.times, detections)):
        t0 = time.perf_counter()
        states.append(tracker.update(f, float(t), xy, cls, conf))
        took[f] = time.perf_counter() - t0
    return states, took


