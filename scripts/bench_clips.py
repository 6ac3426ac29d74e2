"""Detection and colour against the sample clips' truth, frame by frame; prints a table.

Each clip is calibrated from its own video, then every frame goes through the detector and the
colour classifier exactly as ``cueball track`` runs them. A detection matches a ball that is at
least half visible when their image centres are within one ball radius (one-to-one, nearest
first). Reported per clip: recall and precision over visible balls, colour right on matched
ball-frames, position error (table mm at the balls' centre height) of balls at rest (median,
95th percentile) and moving (95th percentile), and detection speed in CPU time.

    python scripts/bench_clips.py                      # every sample clip
    python scripts/bench_clips.py break_off in_off     # some
    python scripts/bench_clips.py --whole              # look at the whole table every frame
    python scripts/bench_clips.py touching --misses    # and list each ball missed, extra or
                                                       # called another colour
    python scripts/bench_clips.py --split              # where the rest error comes from
    python scripts/bench_clips.py --exposure 0.5       # every frame at half its brightness
    python scripts/bench_clips.py --dir DIR            # the clips of scripts/make_variants.py
    python scripts/bench_clips.py --white-balance 0.85,1,1.15 --over 25
                                                       # the white balance moving from frame 40

``--split`` runs each clip a second time with the true camera (from the truth) in place of the
found one, which leaves the detector's own error, and measures the found calibration alone at
the balls at rest: their true centre pixels taken through it to the balls' height (``cal``),
and on the cloth (``plane``, the table-plane part), with the found camera's height over the
true one's.

``--exposure G`` multiplies every frame's pixels by G (saturating at 255) before the detector
sees it: a camera set darker or brighter, or the lamps dimmed, from the first frame on (the
calibration is found from the clip as it is).

``--white-balance B,G,R`` multiplies each channel of every frame from frame ``--from`` (40) on by
its gain, reached in even steps over ``--over`` frames (1: at once): the camera's white balance
moving, or lamps of another colour switched on.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import cv2
import numpy as np
from make_variants import clip_paths
from scipy.optimize import linear_sum_assignment

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from calibration.calibrate import Calibration  # noqa: E402
from calibration.camera import Camera  # noqa: E402
from calibration.find import calibrate_video  # noqa: E402
from calibration.specs import BALL_CLASSES, SNOOKER  # noqa: E402
from tracker.io.video import read_frames  # noqa: E402
from tracker.sim.truth import read_truth  # noqa: E402
from tracker.vision.colour import ColourClassifier  # noqa: E402
from tracker.vision.detect import BallDetector, DetectorConfig  # noqa: E402

SAMPLES = ROOT / "sample_videos"


def match(det_px: np.ndarray, true_px: np.ndarray, r_px: np.ndarray):
    """One-to-one pairs (i_det, j_true) within one true radius."""
    if not len(det_px) or not len(true_px):
        return np.zeros(0, int), np.zeros(0, int)
    d = np.hypot(*(det_px[:, None] - true_px[None]).transpose(2, 0, 1))
    cost = np.where(d <= r_px[None], d, 1e6)
    i, j = linear_sum_assignment(cost)
    ok = cost[i, j] < 1e6
    return i[ok], j[ok]


def pct(a, q):
    return float(np.percentile(a, q)) if len(a) else float("nan")


def calibration_split(cal: Calibration, camera: Camera, truth) -> dict:
    """Error (mm) of ``cal`` alone at the balls at rest, every frame as the detection error
    counts them: true centre pixels to the balls' height, and cloth points to the cloth."""
    rest = truth.state == "rest"
    rest &= truth.visible >= 0.5
    pos = truth.pos_mm[rest]
    found = cal.camera()
    at_balls = np.hypot(*(found.plane_points(truth.px[rest], SNOOKER.ball_radius_mm)
                          - pos[:, :2]).T)
    cloth_px = camera.project(np.c_[pos[:, :2], np.zeros(len(pos))])
    on_cloth = np.hypot(*(cal.px_to_table(cloth_px) - pos[:, :2]).T)
    return {"cal_med": pct(at_balls, 50), "cal_p95": pct(at_balls, 95),
            "plane_med": pct(on_cloth, 50), "plane_p95": pct(on_cloth, 95),
            "height": found.centre_mm[2] / camera.centre_mm[2]}


def white_balance(gains: tuple[float, float, float], start: int, over: int):
    """(frame index, BGR image) -> the image with each channel times its share of ``gains``:
    none before frame ``start``, all of it from ``start + over - 1`` on."""
    def edit(k: int, image: np.ndarray) -> np.ndarray:
        share = min((k - start + 1) / max(over, 1), 1.0)
        if share <= 0:
            return image
        lut = np.stack([np.clip(np.rint(np.arange(256) * (1 + share * (g - 1))), 0, 255)
                        for g in gains], 1).astype(np.uint8)[:, None, :]
        return cv2.LUT(image, lut)

    return edit


def run_clip(path: Path, whole: bool, cal: Calibration | None = None, misses: bool = False,
             exposure: float = 1.0, edit=None) -> dict:
    meta, truth = read_truth(path)
    cal = calibrate_video(path) if cal is None else cal
    detector = BallDetector(cal, config=DetectorConfig(incremental=not whole))
    classifier = ColourClassifier()
    cls_index = np.array([BALL_CLASSES.index(c) for c in truth.classes])
    n_vis = n_det = n_match = n_cls = 0
    rest_err, moving_err = [], []
    cpu = 0.0
    frames = 0
    for k, image in enumerate(read_frames(path)):
        if exposure != 1.0:
            image = cv2.convertScaleAbs(image, alpha=exposure)
        if edit is not None:
            image = edit(k, image)
        t0 = time.process_time()
        det = classifier.classify(detector.detect(image), detector.cloth)
        cpu += time.process_time() - t0
        frames += 1
        vis = (truth.visible[k] >= 0.5) & np.isin(truth.state[k], ("rest", "moving", "airborne"))
        idx = np.flatnonzero(vis)
        i, j = match(det.xy_px, truth.px[k, idx], truth.r_px[k, idx])
        n_vis += len(idx)
        n_det += len(det)
        n_match += len(i)
        n_cls += int((det.cls[i] == cls_index[idx[j]]).sum())
        if misses:
            for b in np.setdiff1d(np.arange(len(idx)), j):
                q = idx[b]
                print(f"  {path.stem} frame {k}: missed {truth.ids[q]} ({truth.state[k, q]}, "
                      f"{100 * truth.visible[k, q]:.0f}% seen) at px "
                      f"{np.round(truth.px[k, q], 1).tolist()}")
            for a, b in zip(i, j):
                if det.cls[a] != cls_index[idx[b]]:
                    print(f"  {path.stem} frame {k}: {truth.ids[idx[b]]} "
                          f"({truth.state[k, idx[b]]}) called {det.class_names[a]}")
            for a in np.setdiff1d(np.arange(len(det)), i):
                print(f"  {path.stem} frame {k}: extra {det.class_names[a]} at px "
                      f"{np.round(det.xy_px[a], 1).tolist()}")
        err = np.hypot(*(det.xy_mm[i] - truth.pos_mm[k, idx[j], :2]).T)
        state = truth.state[k, idx[j]]
        rest_err.extend(err[state == "rest"])
        moving_err.extend(err[state != "rest"])
    rest_err, moving_err = np.array(rest_err), np.array(moving_err)
    return {"clip": path.stem, "frames": frames, "visible": n_vis,
            "recall": n_match / max(n_vis, 1), "precision": n_match / max(n_det, 1),
            "colour": n_cls / max(n_match, 1), "rest_med": pct(rest_err, 50),
            "rest_p95": pct(rest_err, 95), "moving_p95": pct(moving_err, 95),
            "cpu_fps": frames / max(cpu, 1e-9), "calibration": cal, "truth": truth,
            "camera": Camera.from_dict(meta["camera"])}


def split_row(path: Path, whole: bool, found: dict) -> str:
    """The ``--split`` columns of one clip, given its run with the found calibration."""
    camera = found["camera"]
    true = run_clip(path, whole, Calibration.from_camera(camera))
    c = calibration_split(found["calibration"], camera, found["truth"])
    return (f"{'':18} true camera {true['rest_med']:5.2f}/{true['rest_p95']:.2f}mm  "
            f"calibration at balls {c['cal_med']:5.2f}/{c['cal_p95']:.2f}mm  "
            f"on cloth {c['plane_med']:5.2f}/{c['plane_p95']:.2f}mm  "
            f"height x{c['height']:.3f}")


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("clips", nargs="*")
    p.add_argument("--dir", type=Path, default=SAMPLES,
                   help="the folder of the clips and their truth (default: the sample clips; "
                        "scripts/make_variants.py makes others)")
    p.add_argument("--whole", action="store_true",
                   help="look at the whole table every frame (no change gating)")
    p.add_argument("--misses", action="store_true",
                   help="list each ball missed, extra or called another colour")
    p.add_argument("--split", action="store_true",
                   help="also the rest error with the true camera and of the calibration alone")
    p.add_argument("--exposure", type=float, default=1.0,
                   help="every frame's pixels times this before detection (default 1)")
    p.add_argument("--white-balance", metavar="B,G,R",
                   help="each channel times its gain from frame --from on, over --over frames")
    p.add_argument("--from", dest="wb_from", type=int, default=40, metavar="K",
                   help="the frame the white balance starts moving on (default 40)")
    p.add_argument("--over", type=int, default=1, metavar="N",
                   help="frames the white balance takes to move (default 1: at once)")
    args = p.parse_args(argv)
    edit = None
    if args.white_balance:
        try:
            gains = tuple(float(g) for g in args.white_balance.split(","))
        except ValueError:
            gains = ()
        if len(gains) != 3 or min(gains) <= 0:
            p.error("--white-balance takes three positive gains, B,G,R")
        edit = white_balance(gains, args.wb_from, args.over)
    paths = clip_paths(p, args.dir, args.clips)
    print(f"{'clip':18} {'frames':>6} {'visible':>8} {'recall':>8} {'precis.':>8} "
          f"{'colour':>8} {'rest med':>8} {'rest p95':>8} {'mov p95':>8} {'cpu fps':>8}")
    rows = []
    for path in paths:
        r = run_clip(path, args.whole, misses=args.misses, exposure=args.exposure, edit=edit)
        rows.append(r)
        print(f"{r['clip']:18} {r['frames']:6d} {r['visible']:8d} {100 * r['recall']:7.2f}% "
              f"{100 * r['precision']:7.2f}% {100 * r['colour']:7.2f}% {r['rest_med']:6.2f}mm "
              f"{r['rest_p95']:6.2f}mm {r['moving_p95']:6.1f}mm {r['cpu_fps']:8.1f}", flush=True)
        if args.split:
            print(split_row(path, args.whole, r), flush=True)
    vis = sum(r["visible"] for r in rows)
    rec = sum(r["recall"] * r["visible"] for r in rows) / max(vis, 1)
    print(f"{'all':18} {sum(r['frames'] for r in rows):6d} {vis:8d} {100 * rec:7.2f}%")


if __name__ == "__main__":
    main()
