"""Benchmark of ball detection and colour classification; prints tables.

1. Synthetic truth: frames rendered by ``tracker.sim.render`` (overhead 1080p at 3 m with
   k1 = -0.12 and sensor noise; broadcast 720p with a scoreboard) of the starting layout with
   the red pack, scattered layouts with touching balls and balls against cushions, and a cue and
   an arm over the balls. Position error in table mm at the balls' centre height, recall and
   precision over balls at least half visible, classification accuracy.
2. Real stills: ``../shared/realdata/snooker-broadcast/Task1`` (skipped when absent): share of
   images where the count of every colour is exactly right, calibrating each image itself;
   and, with the first frames of the pool clips (``../shared/realdata/pool-8ball``), how many
   of each are told to be no snooker table (the balls far too big for it:
   ``tracker.vision.detect.not_snooker``).
3. Speed: detection (and classification) frames per second at 1080p and 720p, beside
   decode-only speed of a sample clip when ``sample_videos/*.mp4`` exist.

Usage: python scripts/bench_detect.py [--seeds 3] [--skip-synthetic] [--skip-real] [--skip-speed]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import cv2
import numpy as np
from scipy.optimize import linear_sum_assignment

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from calibration.calibrate import Calibration  # noqa: E402
from calibration.errors import InputError  # noqa: E402
from calibration.find import calibrate_image  # noqa: E402
from calibration.specs import BALL_CLASSES, SNOOKER  # noqa: E402
from tracker.sim.render import Capsule, Look, Renderer  # noqa: E402
from tracker.sim.scenarios import broadcast_camera, overhead_camera  # noqa: E402
from tracker.sim.script import layout, standard_layout  # noqa: E402
from tracker.vision.colour import ColourClassifier  # noqa: E402
from tracker.vision.detect import BallDetector, not_snooker  # noqa: E402

REALDATA = ROOT.parent / "shared" / "realdata" / "snooker-broadcast" / "Task1"
POOL = ROOT.parent / "shared" / "realdata" / "pool-8ball"
R = SNOOKER.ball_radius_mm


# -- scenes ---------------------------------------------------------------------------------------
def scenes(seed: int):
    """(name, classes, pos_mm (N, 3), occluders) of the benchmark's layouts for one seed."""
    rng = np.random.default_rng(seed)
    t = SNOOKER
    out = []
    b = standard_layout()
    pos = b.pos.copy()
    pos[0, :2] = rng.uniform([800, 500], [1100, 700])  # white placed in the D
    out.append(("start", list(b.classes), pos, []))
    reds = []
    while len(reds) < 10:
        p = rng.uniform([R + 5, R + 5], [t.width_mm - R - 5, t.length_mm - R - 5])
        if all(np.hypot(*(p - q)) > 2 * R + 3 for q in reds) and all(
                np.hypot(*(p - np.asarray(s))) > 2 * R + 3 for s in t.spots_mm.values()):
            reds.append(p)
    reds = np.array(reds)
    reds[0] = (R, rng.uniform(300, 1500))  # against the left cushion
    reds[1] = (t.width_mm - R, rng.uniform(2000, 3200))  # against the right cushion
    reds[2] = (rng.uniform(300, 1400), t.length_mm - R)  # against the top cushion
    ang = rng.uniform(0, 2 * np.pi)
    reds[3] = reds[4] + 2 * R * np.array([np.cos(ang), np.sin(ang)])  # a touching pair
    b = layout((700.0, 2000.0), reds)
    pos = b.pos.copy()
    blue = b.classes.index("blue")
    pos[0, :2] = pos[blue, :2] + [0.0, -2 * R]  # the white touching the blue
    out.append(("scatter", list(b.classes), pos, []))
    white = pos[0]
    # the cue's tip just behind the white and over part of it; an arm over the top end
    cue = Capsule((white[0] + 8, white[1] - 30, 60.0), (white[0] + 250, -900.0, 600.0), 5.0,
                  15.0, (120, 175, 215))
    arm = Capsule((1500.0, 3000.0, 250.0), (2300.0, 3300.0, 500.0), 45.0, 60.0,
                  (235, 235, 232))
    out.append(("cue+arm", list(b.classes), pos, [cue, arm]))
    return out


def match(det_px: np.ndarray, true_px: np.ndarray, radius_px: np.ndarray) -> np.ndarray:
    """(M, 2) pairs (detection, ball) within a ball radius, one-to-one."""
    if not len(det_px) or not len(true_px):
        return np.zeros((0, 2), int)
    d = np.hypot(*(det_px[:, None] - true_px[None]).transpose(2, 0, 1))
    ri, ci = linear_sum_assignment(d)
    ok = d[ri, ci] < radius_px[ci]
    return np.c_[ri[ok], ci[ok]]


def synthetic(seeds: int) -> None:
    setups = [
        ("overhead 1080p k1=-0.12", overhead_camera((1920, 1080), 3000.0, 0.0, -0.12), Look(),
         None),
        ("broadcast 720p", broadcast_camera((1280, 720)), Look(),
         "PLAYER 1   0  (147)  0   PLAYER 2"),
        ("overhead 720p blue cloth", overhead_camera((1280, 720), 3000.0, 0.0, -0.12),
         Look(cloth_bgr=(150, 95, 35)), None),
    ]
    print("\n## Synthetic frames (rendered, exact truth; balls at least half visible)\n")
    print(f"| {'camera':<26} | {'scene':<8} | balls | recall | precision | classes | "
          f"median mm | p95 mm | max mm |")
    print("|" + "|".join("-" * n for n in (28, 10, 7, 8, 11, 9, 11, 8, 8)) + "|")
    for name, cam, look, graphics in setups:
        t0 = time.perf_counter()
        rend = Renderer(cam, look=look)
        cal = Calibration.from_camera(cam)
        per_scene: dict[str, list] = {}
        missed: list[str] = []
        for seed in range(seeds):
            for sname, classes, pos, occ in scenes(seed):
                frame, vis = rend.render(classes, pos, occluders=occ, graphics=graphics,
                                         frame_index=seed)
                det = BallDetector(cal)
                cands = det.detect(frame)
                d = ColourClassifier().classify(cands, det.cloth)
                true_px = cam.project(pos)
                m = match(d.xy_px, true_px, cam.ball_radius_px(pos, R))
                want = vis >= 0.5
                hit = np.zeros(len(pos), bool)
                hit[m[:, 1]] = True
                on_ball = np.zeros(len(d), bool)
                on_ball[m[:, 0]] = True
                good = want[m[:, 1]]
                err = np.hypot(*(d.xy_mm[m[good, 0]] - pos[m[good, 1], :2]).T)
                right = np.array([BALL_CLASSES[d.cls[i]] == classes[j] for i, j in m[good]])
                s = per_scene.setdefault(sname, [0, 0, 0, 0, 0, [], []])
                s[0] += int(want.sum())
                s[1] += int((want & hit).sum())
                s[2] += len(d)
                s[3] += int(on_ball.sum())
                s[4] += int(right.sum())
                s[5].extend(err)
                s[6].append(len(right))
                for j in np.flatnonzero(want & ~hit):
                    missed.append(f"{sname}/{seed}: missed {classes[j]} at "
                                  f"{np.round(true_px[j], 1).tolist()}")
                for i in np.flatnonzero(~on_ball):
                    missed.append(f"{sname}/{seed}: false ball at "
                                  f"{np.round(d.xy_px[i], 1).tolist()}")
        for sname, (n, tp, nd, ok, right, err, nm) in per_scene.items():
            err = np.asarray(err)
            print(f"| {name:<26} | {sname:<8} | {n:5d} | {tp / n:6.1%} | "
                  f"{ok / max(nd, 1):9.1%} | {right / max(sum(nm), 1):7.1%} | "
                  f"{np.median(err):9.2f} | {np.percentile(err, 95):6.2f} | {err.max():6.2f} |")
        for line in missed:
            print(f"    {name}: {line}")
        print(f"    ({name}: {time.perf_counter() - t0:.0f} s)")


# -- sample clips ---------------------------------------------------------------------------------
def clips(every: int, limit: int) -> None:
    """Every ``every``-th frame (at most ``limit``) of each sample clip, one detector and one
    classifier carried through the clip as in tracking; truth from NAME.balls.csv.gz."""
    import gzip
    import json

    from calibration.camera import Camera

    paths = sorted((ROOT / "sample_videos").glob("*.mp4"))
    print("\n## Sample clips (rendered video with exact truth; balls at least half visible)\n")
    if not paths:
        print("skipped: no sample_videos/*.mp4")
        return
    print("| clip | frames | balls | recall | precision | classes | at rest: median mm | "
          "p95 mm |")
    print("|---|---|---|---|---|---|---|---|")
    for path in paths:
        truth_path = path.with_suffix("").with_suffix(".truth.json")
        balls_path = path.with_suffix("").with_suffix(".balls.csv.gz")
        if not truth_path.exists() or not balls_path.exists():
            continue
        cam = Camera.from_dict(json.loads(truth_path.read_text())["camera"])
        rows: dict[int, list] = {}
        with gzip.open(balls_path, "rt") as fh:
            header = fh.readline().strip().split(",")
            col = {k: i for i, k in enumerate(header)}
            for line in fh:
                v = line.rstrip("\n").split(",")
                fr = int(v[col["frame"]])
                if fr % every or fr // every >= limit:
                    continue
                if v[col["state"]] not in ("rest", "moving", "airborne"):
                    continue  # potted, in hand, off the table
                rows.setdefault(fr, []).append(
                    (v[col["ball"]], float(v[col["x_mm"]]), float(v[col["y_mm"]]),
                     float(v[col["x_px"]]), float(v[col["y_px"]]), float(v[col["r_px"]]),
                     float(v[col["visible"]] or 0), v[col["state"]]))
        det = BallDetector(Calibration.from_camera(cam))
        clf = ColourClassifier()
        cap = cv2.VideoCapture(str(path))
        n = tp = nd = ok_d = right = nm = 0
        err = []
        fr = 0
        frames = 0
        while frames < limit:
            ok, frame = cap.read()
            if not ok:
                break
            if fr % every == 0:
                frames += 1
                d = clf.classify(det.detect(frame), det.cloth)
                t = rows.get(fr, [])
                if t:
                    true_px = np.array([[r[3], r[4]] for r in t])
                    rad = np.array([r[5] for r in t])
                    m = match(d.xy_px, true_px, rad)
                    want = np.array([r[6] >= 0.5 for r in t])
                    hit = np.zeros(len(t), bool)
                    hit[m[:, 1]] = True
                    n += int(want.sum())
                    tp += int((want & hit).sum())
                    for i, j in m:
                        if want[j]:
                            nm += 1
                            right += BALL_CLASSES[d.cls[i]] == t[j][0]
                            if t[j][7] == "rest":
                                err.append(float(np.hypot(d.xy_mm[i, 0] - t[j][1],
                                                          d.xy_mm[i, 1] - t[j][2])))
                    ok_d += len(m)
                nd += len(d)
            fr += 1
        cap.release()
        err = np.asarray(err) if err else np.array([np.nan])
        print(f"| {path.stem} | {frames} | {n} | {tp / max(n, 1):.1%} | {ok_d / max(nd, 1):.1%} "
              f"| {right / max(nm, 1):.1%} | {np.nanmedian(err):.2f} | "
              f"{np.nanpercentile(err, 95):.2f} |")


# -- real stills ---------------------------------------------------------------------------------
def read_label(path: Path) -> dict[str, int]:
    lines = [ln.split() for ln in path.read_text().splitlines()[1:] if ln.strip()]
    counts = {c: 0 for c in BALL_CLASSES}
    for n, c in lines:
        counts[c] = int(n)
    return counts


def real(limit: int | None = None) -> None:
    print("\n## Real broadcast stills (snooker-broadcast Task1): exact count of every colour\n")
    if not REALDATA.is_dir():
        print(f"skipped: {REALDATA} is absent")
        return
    images = sorted(REALDATA.glob("*.jpg"), key=lambda p: int(p.stem))[:limit]
    exact = told = calibrated = 0
    failures = []
    for path in images:
        truth = read_label(REALDATA / "ground-truth" / f"{path.stem}_gt.txt")
        image = cv2.imread(str(path))
        try:
            cal = calibrate_image(image, source=str(path))
        except InputError as exc:
            failures.append((path.stem, f"not calibrated ({exc})"))
            continue
        det = BallDetector(cal)
        d = ColourClassifier().classify(det.detect(image), det.cloth)
        calibrated += 1
        told += not_snooker(det) is not None
        got = {c: int((d.cls == k).sum()) for k, c in enumerate(BALL_CLASSES)}
        if got == truth:
            exact += 1
        else:
            diff = ", ".join(f"{c} {got[c] - truth[c]:+d}" for c in BALL_CLASSES
                             if got[c] != truth[c])
            failures.append((path.stem, diff))
    print(f"| images | exact counts | share |\n|---|---|---|\n| {len(images)} | {exact} | "
          f"{exact / len(images):.0%} |")
    print("\nfailures (image: found minus true):")
    for stem, why in failures:
        print(f"    {stem}.jpg: {why}")
    print(f"\ntold to be no snooker table: {told} of {calibrated} snooker stills calibrated")
    pool()


def pool() -> None:
    """The pool clips' first frames, each calibrated as a snooker table: the balls' size over a
    snooker ball's there, and whether the user is told it is no snooker table."""
    frames = sorted(POOL.glob("*/frames/frame_first.png"))
    if not frames:
        print(f"\npool frames: skipped, {POOL} is absent")
        return
    print("\n| pool clip (first frame) | balls' size / snooker's | told |\n|---|---|---|")
    told = 0
    for path in frames:
        image = cv2.imread(str(path))
        name = path.parent.parent.name
        try:
            det = BallDetector(calibrate_image(image, source=str(path)))
        except InputError:
            print(f"| {name} | no table found | - |")
            continue
        det.detect(image)
        said = not_snooker(det) is not None
        told += said
        size = "-" if det.size_ratio is None else f"{det.size_ratio:.2f}"
        print(f"| {name} | {size} | {'yes' if said else 'no'} |")
    print(f"\ntold to be no snooker table: {told} of {len(frames)} pool clips")


# -- speed ----------------------------------------------------------------------------------------
def speed(frames: int) -> None:
    print("\n## Speed (this machine, one process)\n")
    print("Wall-clock fps on a shared machine, and this process's CPU time per frame "
          "(OpenCV on one thread).\n")
    cv2.setNumThreads(1)
    print("| frames | source | detect fps | detect CPU ms | detect + classify fps | "
          "detect + classify CPU ms | decode-only fps |")
    print("|---|---|---|---|---|---|---|")
    clips = sorted((ROOT / "sample_videos").glob("*.mp4"))
    sources = []
    for size, cam in (((1920, 1080), overhead_camera((1920, 1080))),
                      ((1280, 720), broadcast_camera((1280, 720)))):
        clip = next((c for c in clips if _size(c) == size), None)
        if clip is not None:
            sources.append((f"{size[0]}x{size[1]}", clip.name, _frames(clip, frames), cam,
                            _decode_fps(clip, frames), clip))
        else:
            rend = Renderer(cam)
            b = standard_layout()
            pos = b.pos.copy()
            pos[0, :2] = (1000.0, 600.0)
            frame, _ = rend.render(b.classes, pos)
            sources.append((f"{size[0]}x{size[1]}", "rendered frame", [frame] * frames, cam,
                            None, None))
    for label, what, imgs, cam, decode, clip in sources:
        cal = _calibration_for(clip, imgs[0], cam)
        det = BallDetector(cal)
        clf = ColourClassifier()
        det.detect(imgs[0])
        t0, c0 = time.perf_counter(), time.process_time()
        for im in imgs:
            det.detect(im)
        t_det = (time.perf_counter() - t0) / len(imgs)
        c_det = (time.process_time() - c0) / len(imgs)
        t0, c0 = time.perf_counter(), time.process_time()
        for im in imgs:
            clf.classify(det.detect(im), det.cloth)
        t_all = (time.perf_counter() - t0) / len(imgs)
        c_all = (time.process_time() - c0) / len(imgs)
        dec = f"{decode:.0f}" if decode else "-"
        print(f"| {label} | {what} | {1 / t_det:.0f} | {c_det * 1000:.1f} | {1 / t_all:.0f} | "
              f"{c_all * 1000:.1f} | {dec} |")


def _size(clip: Path) -> tuple[int, int] | None:
    cap = cv2.VideoCapture(str(clip))
    try:
        return int(cap.get(cv2.CAP_PROP_FRAME_WIDTH)), int(cap.get(cv2.CAP_PROP_FRAME_HEIGHT))
    finally:
        cap.release()


def _frames(clip: Path, n: int) -> list[np.ndarray]:
    cap = cv2.VideoCapture(str(clip))
    out = []
    while len(out) < n:
        ok, frame = cap.read()
        if not ok:
            break
        out.append(frame)
    cap.release()
    return out


def _decode_fps(clip: Path, n: int) -> float:
    cap = cv2.VideoCapture(str(clip))
    t0 = time.perf_counter()
    k = 0
    while k < n and cap.read()[0]:
        k += 1
    cap.release()
    return k / max(time.perf_counter() - t0, 1e-9)


def _calibration_for(clip, frame, cam) -> Calibration:
    """A sample clip's own calibration (its truth file's camera when present), else the
    rendering camera's."""
    if clip is not None:
        try:
            return calibrate_image(frame, source=str(clip))
        except InputError:
            pass
    return Calibration.from_camera(cam)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=3, help="noise/layout seeds per scene")
    ap.add_argument("--frames", type=int, default=60, help="frames timed per resolution")
    ap.add_argument("--real-limit", type=int, default=None, help="first N Task1 stills only")
    ap.add_argument("--skip-synthetic", action="store_true")
    ap.add_argument("--skip-real", action="store_true")
    ap.add_argument("--skip-speed", action="store_true")
    ap.add_argument("--skip-clips", action="store_true")
    ap.add_argument("--clip-every", type=int, default=10, help="take every Nth clip frame")
    ap.add_argument("--clip-frames", type=int, default=30, help="frames taken per clip")
    args = ap.parse_args()
    if not args.skip_synthetic:
        synthetic(args.seeds)
    if not args.skip_clips:
        clips(args.clip_every, args.clip_frames)
    if not args.skip_real:
        real(args.real_limit)
    if not args.skip_speed:
        speed(args.frames)


if __name__ == "__main__":
    main()
