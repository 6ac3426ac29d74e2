"""Benchmark the automatic calibration: one row per source with success, errors and time.

Sources: the three synthetic reference views and every sample clip in ``sample_videos/`` (both
with the table-plane error against the true camera), and, when
``../shared/realdata/snooker-broadcast`` exists, every Task1 still and every Task2/Task3 clip.
``--show DIR`` also writes each overlay there as PNG.

    python scripts/bench_calibration.py [--realdata DIR] [--only synthetic|samples|stills|clips]
    python scripts/bench_calibration.py --samples [CLIP ...]    # just the sample clips
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from calibration.calibrate import plane_error_mm  # noqa: E402
from calibration.camera import Camera  # noqa: E402
from calibration.draw import draw  # noqa: E402
from calibration.errors import InputError  # noqa: E402
from calibration.find import calibrate_image, calibrate_source, read_image  # noqa: E402
from calibration.synthetic import render_table, scene_balls, scene_cameras  # noqa: E402
from tracker.sim.truth import read_truth  # noqa: E402

SAMPLES = ROOT / "sample_videos"




def row(name, ok, cal=None, seconds=0.0, extra="", note=""):
    if ok:
        f = cal.landmarks.get("_features", {})
        baulk = "yes" if f.get("baulk_found") else "no"
        print(f"{name:<22} {'ok':<5} {cal.reprojection_error_mm:>8.2f} {cal.max_error_mm:>8.1f} "
              f"{baulk:>6} {seconds * 1000:>8.0f} {extra}")
    else:
        print(f"{name:<22} {'FAIL':<5} {'':>8} {'':>8} {'':>6} {seconds * 1000:>8.0f} {note}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--realdata", type=Path,
                        default=ROOT / ".." / "shared" / "realdata" / "snooker-broadcast")
    parser.add_argument("--only", choices=("synthetic", "samples", "stills", "clips"))
    parser.add_argument("--samples", nargs="*", metavar="CLIP",
                        help="only the sample clips (all, or those named)")
    parser.add_argument("--show", type=Path, help="directory for overlay PNGs")
    args = parser.parse_args(argv)
    if args.samples is not None:
        args.only = "samples"
    if args.show:
        args.show.mkdir(parents=True, exist_ok=True)
    print(f"{'source':<22} {'ok':<5} {'rms_mm':>8} {'max_mm':>8} {'baulk':>6} {'ms':>8} notes")
    counts = {}
    times = []

    def tally(kind, ok):
        good, total = counts.get(kind, (0, 0))
        counts[kind] = (good + ok, total + 1)

    if args.only in (None, "synthetic"):
        for name, camera in scene_cameras().items():
            image = render_table(camera, balls=scene_balls())
            t0 = time.perf_counter()
            try:
                cal = calibrate_image(image, source=name)
            except InputError as exc:
                row(f"synthetic/{name}", False, seconds=time.perf_counter() - t0, note=str(exc))
                tally("synthetic", False)
                continue
            dt = time.perf_counter() - t0
            rms, worst = plane_error_mm(cal, camera)
            row(f"synthetic/{name}", True, cal, dt,
                f"plane error vs true camera: {rms:.2f} mm RMS, {worst:.2f} mm max")
            tally("synthetic", True)
            times.append(dt)
            if args.show:
                cv2.imwrite(str(args.show / f"synthetic_{name}.png"), draw(image, cal))
    if args.only in (None, "samples"):
        clips = sorted(SAMPLES.glob("*.mp4"))
        if args.samples:
            clips = [p for p in clips if p.stem in args.samples]
        for path in clips:
            camera = Camera.from_dict(read_truth(path)[0]["camera"])
            name = f"samples/{path.stem}"
            t0 = time.perf_counter()
            try:
                cal, image = calibrate_source(path)
            except InputError as exc:
                row(name, False, seconds=time.perf_counter() - t0, note=str(exc))
                tally("samples", False)
                continue
            dt = time.perf_counter() - t0
            rms, worst = plane_error_mm(cal, camera)
            row(name, True, cal, dt,
                f"plane error vs true camera: {rms:.2f} mm RMS, {worst:.2f} mm max")
            tally("samples", True)
            times.append(dt)
            if args.show:
                cv2.imwrite(str(args.show / f"sample_{path.stem}.png"), draw(image, cal))
    sources = []
    if args.realdata.is_dir() and args.only not in ("synthetic", "samples"):
        if args.only in (None, "stills"):
            stills = sorted((args.realdata / "Task1").glob("*.jpg"), key=lambda p: int(p.stem))
            sources += [("stills", p) for p in stills]
        if args.only in (None, "clips"):
            for task in ("Task2", "Task3"):
                clips = sorted((args.realdata / task).glob("*.mp4"), key=lambda p: int(p.stem))
                sources += [("clips", p) for p in clips]
    elif args.only in ("stills", "clips"):
        print(f"no real footage at {args.realdata}")
    for kind, path in sources:
        name = f"{path.parent.name}/{path.name}"
        t0 = time.perf_counter()
        try:
            if kind == "stills":
                image = read_image(path)
                cal = calibrate_image(image, source=str(path))
            else:
                cal, image = calibrate_source(path)
        except InputError as exc:
            row(name, False, seconds=time.perf_counter() - t0, note=str(exc))
            tally(kind, False)
            continue
        dt = time.perf_counter() - t0
        times.append(dt)
        row(name, True, cal, dt)
        tally(kind, True)
        if args.show:
            cv2.imwrite(str(args.show / f"{path.parent.name}_{path.stem}.png"), draw(image, cal))
    print()
    for kind, (good, total) in counts.items():
        print(f"{kind}: {good}/{total} calibrated")
    if times:
        print(f"time per calibration: median {np.median(times) * 1000:.0f} ms, "
              f"max {np.max(times) * 1000:.0f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
