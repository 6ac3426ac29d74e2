"""How far the codec moves the balls at rest; prints a table.

The first instant of every 1080p overhead scenario (all its balls at rest) is rendered without
sensor noise, then 30 frames of it, each with its own sensor noise, are encoded as the sample
clips are (H.264, CRF 26 unless told) and decoded; the middle frame is measured. Each scene is
rendered twice (renderer seeds 0 and 1: other cloth grain, other noise). For every ball at least
half visible:

- the detector's error with the true camera (table mm at the balls' height), on the rendered
  frame and through the codec;
- the radial offset (px, + away from the middle of the picture) of the silhouette centroids the
  calibration measures the camera's height by (``calibration.height.ball_shapes``) from the
  true silhouettes' centroids, per colour: an offset towards the middle reads as a camera too
  high.

    python scripts/bench_codec.py               # CRF 26, as the sample clips
    python scripts/bench_codec.py --crf 18      # a better encoding
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np
from tqdm import tqdm

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench_clips import match  # noqa: E402  (the same matching as the clips' benchmark)

from calibration.calibrate import Calibration  # noqa: E402
from calibration.camera import Camera, polygon_moments  # noqa: E402
from calibration.cloth import find_cloth  # noqa: E402
from calibration.height import ball_shapes  # noqa: E402
from calibration.specs import SNOOKER  # noqa: E402
from tracker.io.video import VideoWriter, read_frames  # noqa: E402
from tracker.sim.clip import DRAWN  # noqa: E402
from tracker.sim.make import SCENARIOS, clip_spec  # noqa: E402
from tracker.sim.render import Renderer  # noqa: E402
from tracker.vision.detect import BallDetector  # noqa: E402

FRAMES = 30
SEEDS = (0, 1)
NEAR_MIDDLE_PX = 300  # balls nearer the principal point than this say little of the height


def scenes() -> list[str]:
    return [n for n, sc in SCENARIOS.items()
            if sc.camera == "overhead" and clip_spec(sc).camera.image_size == (1920, 1080)]


def through_codec(base: np.ndarray, renderer: Renderer, fps: float, crf: int, path: Path
                  ) -> np.ndarray:
    """The middle of ``FRAMES`` frames of ``base`` (float32, noise-free) with sensor noise, as
    decoded after encoding at ``crf``."""
    with VideoWriter(path, (base.shape[1], base.shape[0]), fps, crf=crf) as out:
        for k in range(FRAMES):
            out.write(renderer.expose(base, k))
    return list(read_frames(path))[FRAMES // 2]


def measure(image: np.ndarray, camera: Camera, pos: np.ndarray, visible: np.ndarray,
            classes: list[str]) -> tuple[np.ndarray, list[tuple[str, float]]]:
    """(detector errors (K,) mm, [(class, radial offset px)] of the height's ball shapes)."""
    r = SNOOKER.ball_radius_mm
    px = camera.project(pos)
    r_px = camera.ball_radius_px(pos, r)
    d = BallDetector(Calibration.from_camera(camera)).detect(image)
    idx = np.flatnonzero(visible >= 0.5)
    i, j = match(d.xy_px, px[idx], r_px[idx])
    err = np.hypot(*(d.xy_mm[i] - pos[idx[j], :2]).T)
    middle = np.asarray(camera.K)[:2, 2]
    _, centroid, _ = polygon_moments(camera.sphere_outline(pos, r, 128))
    radial = []
    for c in ball_shapes(image, find_cloth(image).lab, camera, SNOOKER).centre_px:
        dist = np.hypot(*(centroid - c).T)
        k = int(np.argmin(dist))
        out = centroid[k] - middle
        if dist[k] < 3 and np.hypot(*out) > NEAR_MIDDLE_PX:
            radial.append((classes[k], float((c - centroid[k]) @ out / np.hypot(*out))))
    return err, radial


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--crf", type=int, default=26, help="H.264 quality (default 26, as the "
                   "sample clips)")
    args = p.parse_args(argv)
    names = scenes()
    err = {"rendered": [], "through the codec": []}
    radial: dict[str, dict[str, list[float]]] = {k: {} for k in err}
    with tempfile.TemporaryDirectory() as tmp:
        for name in tqdm(names, desc="scenes", leave=False):
            sc = SCENARIOS[name]
            spec = clip_spec(sc, crf=args.crf)
            timeline = sc.build(0)
            pos, state = timeline.at(np.array([0.0]))
            pos = pos[0]
            for seed in SEEDS:
                renderer = Renderer(spec.camera, SNOOKER, spec.look, seed=seed)
                base, visible = renderer.render(
                    timeline.classes, pos[None], visible=np.isin(state[0], DRAWN),
                    occluders=timeline.occluders(0.0), gain=spec.lighting.gain(0.0), noise=False,
                    frame_index=0)
                frames = {"rendered": base,
                          "through the codec": through_codec(base.astype(np.float32), renderer,
                                                             spec.fps, args.crf,
                                                             Path(tmp) / "scene.mp4")}
                for what, image in frames.items():
                    e, rad = measure(image, spec.camera, pos, visible, list(timeline.classes))
                    err[what].extend(e)
                    for cls, v in rad:
                        radial[what].setdefault(cls, []).append(v)
    print(f"{len(names)} overhead 1080p scenes x {len(SEEDS)} renderings, CRF {args.crf}")
    print(f"\n{'detector, true camera':24} {'balls':>6} {'median mm':>10} {'p90 mm':>8}")
    for what, e in err.items():
        e = np.asarray(e)
        print(f"{what:24} {len(e):6d} {np.median(e):10.3f} {np.percentile(e, 90):8.3f}")
    classes = sorted({c for v in radial.values() for c in v})
    print(f"\nheight's ball shapes, mean radial offset px (+ outwards; balls over "
          f"{NEAR_MIDDLE_PX} px from the middle)")
    print(f"{'':24} " + " ".join(f"{c:>8}" for c in classes) + f" {'all':>8}")
    for what, per in radial.items():
        every = [v for vs in per.values() for v in vs]
        print(f"{what:24} " + " ".join(
            f"{np.mean(per[c]):+8.2f}" if c in per else f"{'-':>8}" for c in classes)
            + f" {np.mean(every):+8.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
