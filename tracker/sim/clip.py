"""Rendering a scripted Timeline into a video clip with its ground truth."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from calibration.camera import Camera
from calibration.specs import SNOOKER, PoolTableSpec
from tracker.io.video import VideoWriter
from tracker.sim.model import BallState
from tracker.sim.physics import TableSpec
from tracker.sim.pool import BallPalette, PoolRenderer
from tracker.sim.render import Build, Look, Renderer
from tracker.sim.script import Timeline
from tracker.sim.truth import BallTruth, write_truth

DRAWN = (BallState.ON_TABLE, BallState.AIRBORNE, BallState.IN_HAND)
STATE_NAMES = {BallState.POTTED: "potted", BallState.OFF_TABLE: "off_table",
               BallState.IN_HAND: "in_hand"}


@dataclass(frozen=True)
class Lighting:
    """Lamp brightness over time: mains flicker (``flicker`` relative amplitude at
    ``flicker_hz``) and an optional dimming from ``dim_at_s`` to ``dim_gain``."""

    flicker: float = 0.0
    flicker_hz: float = 7.3  # the beat between 100 Hz lamp ripple and the frame rate
    dim_at_s: float | None = None
    dim_gain: float = 1.0

    def gain(self, t: float) -> float:
        g = 1.0 + self.flicker * math.sin(2 * math.pi * self.flicker_hz * t)
        if self.dim_at_s is not None and t >= self.dim_at_s:
            g *= self.dim_gain + (1 - self.dim_gain) * math.exp(-(t - self.dim_at_s) / 0.4)
        return g


@dataclass(frozen=True)
class ClipSpec:
    """How a Timeline is filmed: camera, frame rate, look, shutter and encoding; ``build``
    the make of the table and room (None: the renderer's own), ``kbps`` a constant bitrate
    in place of ``crf``, as a camera's encoder writes (None: the quality ``crf``), ``preset``
    the encoder's speed for size; ``palette`` the make of pool balls on a pool table (None:
    the standard set)."""

    camera: Camera
    fps: float = 30.0
    look: Look = field(default_factory=Look)
    lighting: Lighting = field(default_factory=Lighting)
    exposure: float = 0.5  # fraction of the frame interval the shutter is open
    blur_samples: int = 7
    graphics: str | None = None  # broadcast scoreboard text over the picture
    crf: int = 23
    noise: bool = True
    build: Build | None = None
    kbps: int | None = None
    preset: str = "medium"
    palette: BallPalette | None = None


def frame_of(t: float, fps: float) -> int:
    """The first frame whose (exposure-centre) time is at or after ``t``."""
    return int(math.ceil(t * fps - 1e-9))


def render_clip(timeline: Timeline, spec: ClipSpec, out_path: str | Path,
                table: TableSpec = SNOOKER, seed: int = 0,
                progress: Callable[[int, int], None] | None = None,
                meta: dict | None = None) -> tuple[dict, BallTruth]:
    """Renders ``timeline`` to ``out_path`` (H.264 MP4) and writes the truth beside it.

    Frame k shows the instant t = k / fps at the centre of its exposure. Returns the truth
    (meta dict as written, BallTruth)."""
    cam = spec.camera
    if isinstance(table, PoolTableSpec):
        renderer = PoolRenderer(cam, table, spec.look, seed=seed, build=spec.build,
                                palette=spec.palette)
    else:
        renderer = Renderer(cam, table, spec.look, seed=seed, build=spec.build)
    n_frames = int(math.floor(timeline.duration * spec.fps)) + 1
    N = len(timeline.ids)
    r = table.ball_radius_mm
    F_t = np.arange(n_frames) / spec.fps
    pos_t, state_t = timeline.at(F_t)
    rot_t = timeline.orient_at(F_t)  # None unless the balls' orientations were carried
    vis = np.zeros((n_frames, N))
    shutter = spec.exposure / spec.fps
    offsets = np.linspace(-shutter / 2, shutter / 2, spec.blur_samples)
    with VideoWriter(out_path, cam.image_size, spec.fps, crf=spec.crf, kbps=spec.kbps,
                     preset=spec.preset) as writer:
        for k, t in enumerate(F_t):
            sub, _ = timeline.at(t + offsets)
            rot = None if rot_t is None else timeline.orient_at(t + offsets)
            if np.abs(sub[-1] - sub[0]).max() < 0.05 and (
                    rot is None or np.abs(rot[-1] - rot[0]).max() < 1e-4):
                sub = pos_t[k][None]
                rot = None if rot is None else rot_t[k][None]
            turned = {} if rot is None else {"orient": rot}
            draw = np.isin(state_t[k], DRAWN) | (
                (state_t[k] == BallState.OFF_TABLE) & (pos_t[k, :, 2] > 0))
            frame, vis[k] = renderer.render(
                timeline.classes, sub, visible=draw, occluders=timeline.occluders(t),
                gain=spec.lighting.gain(t), noise=spec.noise, graphics=spec.graphics,
                frame_index=k, **turned)
            writer.write(frame)
            if progress:
                progress(k + 1, n_frames)
    px = cam.project(pos_t.reshape(-1, 3)).reshape(n_frames, N, 2)
    r_px = cam.ball_radius_px(pos_t.reshape(-1, 3), r).reshape(n_frames, N)
    speed = _speed(timeline, F_t)
    state = np.full((n_frames, N), "rest", dtype=object)
    state[speed > 2.0] = "moving"
    state[(state_t == BallState.AIRBORNE) | (pos_t[..., 2] > r + 0.5)] = "airborne"
    for s, name in STATE_NAMES.items():
        state[state_t == s] = name
    truth = BallTruth(timeline.ids, timeline.classes, F_t, pos_t, px, r_px, vis,
                      state.astype(str), rot_t)
    H = cam.homography_table_to_image()
    events = []
    for e in timeline.events:
        e = dict(e)
        e["frame"] = frame_of(e["t"], spec.fps)
        if e["type"] == "pot":
            e["pocket_px"] = cam.project(
                np.array([[*table.pockets[e["pocket"]].point_mm, 0.0]]))[0].round(2).tolist()
        e["t"] = round(e["t"], 6)
        events.append(e)
    shots = [dict(s, frame_start=frame_of(s["t_start"], spec.fps),
                  frame_end=frame_of(s["t_end"], spec.fps)) for s in timeline.shots]
    clip = {"fps": spec.fps, "look": asdict(spec.look), "lighting": asdict(spec.lighting),
            "exposure": spec.exposure, "blur_samples": spec.blur_samples,
            "graphics": spec.graphics, "crf": spec.crf, "noise": spec.noise}
    if spec.build is not None:
        clip["build"] = asdict(spec.build)
    if spec.kbps is not None:
        clip["kbps"] = spec.kbps
    if spec.preset != "medium":
        clip["preset"] = spec.preset
    if isinstance(table, PoolTableSpec):
        clip["palette"] = asdict(spec.palette or BallPalette())
    meta = dict(meta or {})
    meta.update({
        "fps": spec.fps,
        "frames": n_frames,
        "image_size": list(cam.image_size),
        "seed": seed,
        "camera": cam.to_dict(),
        "H_table_to_image": H.tolist(),
        "H_image_to_table": np.linalg.inv(H).tolist(),
        "homography_plane": "cloth (z = 0 mm), to and from undistorted pixels",
        "clip": clip,
        "ball_ids": timeline.ids,
        "ball_classes": timeline.classes,
        "events": events,
        "shots": shots,
    })
    write_truth(out_path, meta, truth)
    return meta, truth


def _speed(timeline: Timeline, times: np.ndarray) -> np.ndarray:
    """(F, N) ball speed in mm/s from the fine timeline around each frame time."""
    h = timeline.dt
    a, _ = timeline.at(times - h)
    b, _ = timeline.at(times + h)
    return np.linalg.norm(b - a, axis=2) / (2 * h)
