"""Making a clip of a named scenario: simulate, render, referee, write video and truth."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from tqdm import tqdm

from calibration.specs import SNOOKER
from tracker.sim.clip import ClipSpec, frame_of, render_clip
from tracker.sim.pool_scenarios import POOL_SCENARIOS, PoolScenario
from tracker.sim.scenarios import RESOLUTIONS, SCENARIOS, Scenario, camera_for
from tracker.sim.truth import write_truth


class FrameBar:
    """A ``make_clip`` progress callback, ``(done, total)``, drawing a bar of the frames made
    (``tqdm``'s ``options``); the bar is opened by the first call, so a clip made with no
    callback draws none. Close it when the clip is made (or use as a context manager)."""

    def __init__(self, **options):
        self._options = options
        self._bar: tqdm | None = None

    def __call__(self, done: int, total: int) -> None:
        if self._bar is None:
            self._bar = tqdm(total=total, unit="frame", **self._options)
        self._bar.update(done - self._bar.n)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()

    def __enter__(self) -> FrameBar:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def parse_resolution(text: str) -> tuple[int, int]:
    """``720p``, ``1080p``, ``4k`` or ``WIDTHxHEIGHT``."""
    key = text.lower()
    if key in RESOLUTIONS:
        return RESOLUTIONS[key]
    try:
        w, h = (int(v) for v in key.split("x"))
    except ValueError:
        raise ValueError(f"resolution {text!r}: use 720p, 1080p, 4k or WIDTHxHEIGHT") from None
    if w < 320 or h < 240 or w % 2 or h % 2:
        raise ValueError(f"resolution {text!r}: needs even sizes of at least 320x240")
    return w, h


def clip_spec(sc: Scenario, *, camera: str | None = None, resolution: str | None = None,
              fps: float | None = None, height_mm: float | None = None,
              tilt_deg: float | None = None, k1: float | None = None,
              crf: int | None = None, exposure: float | None = None,
              blur_samples: int | None = None) -> ClipSpec:
    size = parse_resolution(resolution or sc.resolution)
    make_camera = sc.make_camera if isinstance(sc, PoolScenario) else camera_for
    cam = make_camera(camera or sc.camera, size,
                      height_mm=sc.height_mm if height_mm is None else height_mm,
                      tilt_deg=sc.tilt_deg if tilt_deg is None else tilt_deg,
                      k1=sc.k1 if k1 is None else k1)
    spec = ClipSpec(camera=cam, fps=fps or sc.fps, look=sc.look, lighting=sc.lighting,
                    graphics=sc.graphics, palette=getattr(sc, "palette", None))
    given = {"crf": crf, "exposure": exposure, "blur_samples": blur_samples}
    return replace(spec, **{k: v for k, v in given.items() if v is not None})


def referee_results(sc: Scenario, shots: list[dict]) -> list[dict]:
    """The referee's result after each shot of the clip (the prelude's are fed, not returned)."""
    if isinstance(sc, PoolScenario):
        return sc.referee_results(shots)
    from tracker.rules.snooker import Referee

    ref = Referee()
    ref.feed(sc.frame_start())
    for rec in sc.prelude:
        ref.feed(rec)
    return [ref.feed({k: v for k, v in s.items() if not k.startswith(("t_", "frame_"))})
            for s in shots]


def make_clip(name: str, out_path: str | Path, seed: int = 0,
              progress: Callable[[int, int], None] | None = None, **overrides) -> dict:
    """Simulates scenario ``name``, renders it to ``out_path`` and writes the truth beside it.
    ``overrides``: camera, resolution, fps, height_mm, tilt_deg, k1, crf, exposure (the share
    of each frame the shutter is open), blur_samples. Returns the truth."""
    scenarios = {**SCENARIOS, **POOL_SCENARIOS}
    if name not in scenarios:
        raise KeyError(name)
    sc = scenarios[name]
    spec = clip_spec(sc, **overrides)
    timeline = sc.build(seed)
    out_path = Path(out_path)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    meta = {"scenario": name, "description": sc.description, "players": list(sc.players),
            "frame_start": sc.frame_start(), "prelude": list(sc.prelude)}
    table = SNOOKER
    if isinstance(sc, PoolScenario):
        table = sc.table
        meta.update(game=sc.game, table=table.name, match=sc.match())
    meta, balls = render_clip(timeline, spec, out_path, table=table, seed=seed,
                              progress=progress, meta=meta)
    results = referee_results(sc, meta["shots"])
    events = list(meta["events"])
    for shot, res in zip(meta["shots"], results):
        t = shot["t_end"]
        # the referee's own "frame" is the frame of the match; the event's is the video frame
        events.append({**{k: v for k, v in res.items() if k not in ("type", "frame")},
                       "type": "score", "frame_number": res.get("frame"), "t": round(t, 6),
                       "frame": frame_of(t, spec.fps)})
        if res.get("frame_over"):
            events.append({"type": "frame_end", "t": round(t, 6), "frame": frame_of(t, spec.fps),
                           "winner": res.get("winner"), "score": res.get("score")})
    order = {"shot_start": 0, "score": 2, "frame_end": 3}
    events.sort(key=lambda e: (e["t"], order.get(e["type"], 1)))
    meta["events"] = events
    meta["scores"] = results
    meta["final_score"] = results[-1]["score"] if results else [0, 0]
    write_truth(out_path, meta, balls)
    return meta
