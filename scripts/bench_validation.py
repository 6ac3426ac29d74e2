"""The whole pipeline on a validation set (``scripts/make_validation.py``) against its truth, the
sample clips' figures beside it; prints one table, a row a clip and summaries.

    python scripts/bench_validation.py /work/valset                 # and every sample clip
    python scripts/bench_validation.py /work/valset --samples in_off clip_4k
    python scripts/bench_validation.py /work/valset --no-samples
    python scripts/bench_validation.py /work/valset --wait 40   # while make_validation.py runs
    python scripts/bench_validation.py /work/valset --calibration  # the calibration alone

Each clip is calibrated from its own video and run through detection, colour and tracking as
``cueball track`` runs them. Per clip: balls at rest, median and 95th percentile of the
tracked position's error (mm, on the cloth's plane); recall, the ball-frames of balls on the
table and at least half in view with a track centred within one ball radius of them in the
image (one to one, nearest first); colour, those tracks of the ball's class; cushion contacts,
F1 of the tracker's ``cushion`` events against the truth's (same ball and cushion); pots, the
true pots found with the right ball and pocket (and the pots found); calibration, the found
calibration's error at the balls at rest, median and 95th percentile (mm: their true image
centres taken through it to the balls' height). A clip whose calibration fails is counted and
shown, not run. The summaries pool the clips' ball-frames and events by group (camera and
size, from the world's parameters) and over all clips; the calibration's figures there are
the medians of the clips'.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np
from bench_clips import calibration_split, match, pct
from bench_e2e import clip_pipeline
from bench_events import match as match_events
from make_variants import clip_paths

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from calibration.camera import Camera  # noqa: E402
from calibration.errors import InputError  # noqa: E402
from calibration.find import calibrate_video  # noqa: E402
from calibration.specs import BALL_CLASSES  # noqa: E402
from tracker.pipeline import file_frames  # noqa: E402
from tracker.sim.detections import clip_from_truth_file  # noqa: E402
from tracker.sim.truth import read_truth  # noqa: E402
from tracker.vision.detect import ready_kernels  # noqa: E402

SAMPLES = ROOT / "sample_videos"
IN_PLAY = ("rest", "moving", "airborne")


def group_of(meta: dict) -> str:
    """The clip's group for the summaries: camera and picture height."""
    world = meta.get("world")
    camera = world["camera"] if world else meta.get("scenario", "?")
    h = meta["image_size"][1]
    return f"{camera} {'4k' if h >= 2160 else f'{h}p'}" if world else "sample clips"


def run_clip(path: Path) -> dict:
    """One clip through the pipeline: its counts, errors and calibration figures, or
    ``failed`` with the reason when the calibration is refused."""
    meta, truth = read_truth(path)
    row = {"clip": path.stem, "group": group_of(meta), "size": meta["image_size"],
           "kind": meta.get("world", {}).get("kind", meta.get("scenario", ""))}
    try:
        cal = calibrate_video(path)
    except InputError as exc:
        return dict(row, failed=str(exc))
    pipe = clip_pipeline(cal, meta)
    frames, fps, _ = file_frames(path)
    cls_index = np.array([BALL_CLASSES.index(c) for c in truth.classes])
    rest_err: list[float] = []
    n_vis = n_found = n_cls = 0
    votes: dict[str, Counter] = defaultdict(Counter)
    found_events: list[dict] = []
    n_frames = len(truth.t)
    for res in pipe.run(frames):
        found_events += res.events
        k = res.frame.index
        if k >= n_frames:
            continue
        st = res.state
        live = np.flatnonzero(st.on_table())
        vis = np.flatnonzero((truth.visible[k] >= 0.5) & np.isin(truth.state[k], IN_PLAY))
        i, j = match(res.xy_px[live], truth.px[k, vis], truth.r_px[k, vis])
        n_vis += len(vis)
        n_found += len(i)
        tracks, balls = live[i], vis[j]
        n_cls += int((st.classes[tracks] == cls_index[balls]).sum())
        for tid, b in zip(st.track_ids[tracks], balls):
            votes[str(tid)][truth.ids[b]] += 1
        rest = truth.state[k, balls] == "rest"
        rest_err.extend(np.hypot(*(st.xy_mm[tracks[rest]]
                                   - truth.pos_mm[k, balls[rest], :2]).T))
    found_events += pipe.finish()
    ids = {tid: v.most_common(1)[0][0] for tid, v in votes.items()}
    true_events = clip_from_truth_file(path, 0.0, ("pot", "cushion")).events
    counts = match_events(true_events, found_events, ids, fps, n_frames)
    split = calibration_split(cal, Camera.from_dict(meta["camera"]), truth)
    return dict(row, rest_err=np.array(rest_err), visible=n_vis, found=n_found, colour=n_cls,
                cushion=counts["cushion"], pots=counts["pot"], cal_med=split["cal_med"],
                cal_p95=split["cal_p95"])


def f1(true: int, found: int, matched: int) -> float:
    if not true and not found:
        return 1.0
    return 2 * matched / max(true + found, 1)


def figures(rows: list[dict]) -> dict:
    """The pooled figures of ``rows`` (clips that ran), and how many clips failed."""
    ran = [r for r in rows if "failed" not in r]
    err = np.concatenate([r["rest_err"] for r in ran]) if ran else np.zeros(0)
    vis = sum(r["visible"] for r in ran)
    found = sum(r["found"] for r in ran)
    cushion = np.sum([r["cushion"] for r in ran], axis=0) if ran else np.zeros(3, int)
    pots = np.sum([r["pots"] for r in ran], axis=0) if ran else np.zeros(3, int)
    return {"clips": len(rows), "failed": len(rows) - len(ran), "rest_med": pct(err, 50),
            "rest_p95": pct(err, 95), "recall": found / max(vis, 1),
            "colour": sum(r["colour"] for r in ran) / max(found, 1),
            "cushion_f1": f1(*cushion), "cushion": cushion.tolist(),
            "pots": pots.tolist(),
            "cal_med": float(np.nanmedian([r["cal_med"] for r in ran])) if ran else np.nan,
            "cal_p95": float(np.nanmedian([r["cal_p95"] for r in ran])) if ran else np.nan}


HEAD = (f"{'clip':<22} {'kind':<13} {'rest med':>8} {'rest p95':>8} {'recall':>8} "
        f"{'colour':>8} {'cushion F1':>15} {'pots':>9} {'cal med':>7} {'cal p95':>7}")


def clip_line(r: dict) -> str:
    name = f"{r['clip']:<22} {r['kind']:<13}"
    if "failed" in r:
        return f"{name} calibration failed: {r['failed']}"
    return figures_line(name, figures([r]))


def figures_line(name: str, s: dict, tail: str = "") -> str:
    """One row of the table: ``name`` (36 wide) and the figures ``s`` (``figures``)."""
    t, f, m = s["cushion"]
    pt, pf, pm = s["pots"]
    return (f"{name:<36} {s['rest_med']:6.2f}mm {s['rest_p95']:6.2f}mm "
            f"{100 * s['recall']:7.2f}% {100 * s['colour']:7.2f}% "
            f"{s['cushion_f1']:5.2f} ({m}/{t}, {f}) {f'{pm}/{pt} ({pf})':>9} "
            f"{s['cal_med']:5.2f}mm {s['cal_p95']:5.2f}mm{tail}")


def summary_line(name: str, s: dict) -> str:
    fails = f", {s['failed']} of {s['clips']} not calibrated" if s["failed"] else ""
    return figures_line(name, s, f"  {s['clips']} clips{fails}")


def calibration_row(path: Path) -> dict:
    """The clip's calibration alone against its true camera: the error at the balls at rest
    (median, 95th percentile), the camera's height found over the true one, the calibration's
    own stated uncertainty, and the time it took; refusals (with their reason) counted."""
    meta, truth = read_truth(path)
    group = group_of(meta)
    t0 = time.perf_counter()
    try:
        cal = calibrate_video(path)
    except InputError as exc:
        return {"name": path.stem, "group": group, "refused": str(exc)}
    seconds = time.perf_counter() - t0
    split = calibration_split(cal, Camera.from_dict(meta["camera"]), truth)
    return {"name": path.stem, "group": group, "refused": None, "seconds": seconds,
            "stated": cal.uncertainty_mm, **split}


def calibration_table(paths: list[Path]) -> None:
    """One line a clip and a summary: measured error, stated uncertainty, their ratio."""
    print(f"{'clip':<14} {'group':<16} {'cal med':>8} {'cal p95':>8} {'stated':>7} {'ratio':>6} "
          f"{'height':>7} {'time s':>7}")
    rows = []
    for path in paths:
        r = calibration_row(path)
        rows.append(r)
        if r["refused"]:
            print(f"{r['name']:<14} {r['group']:<16} refused: {r['refused']}", flush=True)
            continue
        ratio = r["stated"] / max(r["cal_med"], 1e-9) if r["stated"] is not None else float("nan")
        stated = float("nan") if r["stated"] is None else r["stated"]
        print(f"{r['name']:<14} {r['group']:<16} {r['cal_med']:8.2f} {r['cal_p95']:8.2f} "
              f"{stated:7.2f} {ratio:6.2f} {r['height']:7.3f} {r['seconds']:7.1f}", flush=True)
    ok = [r for r in rows if not r["refused"]]
    if not ok:
        return
    med = np.median([r["cal_med"] for r in ok])
    within = sum(1 for r in ok if r["stated"] is not None
                 and 0.5 <= r["stated"] / max(r["cal_med"], 1e-9) <= 2.0)
    over = sum(1 for r in ok if r["stated"] is not None and r["stated"] > 5.0)
    print(f"\n{len(rows)} clips: median of the clips' error at the balls {med:.2f} mm; stated "
          f"uncertainty within a factor of 2 of it on {within} of {len(ok)}; {over} stated over "
          f"5 mm (said by cueball as uncertain); time median "
          f"{np.median([r['seconds'] for r in ok]):.1f} s")


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("dir", type=Path, help="the validation set's folder")
    p.add_argument("clips", nargs="*", help="clips of DIR by name (default: all)")
    p.add_argument("--samples", nargs="*", metavar="CLIP",
                   help="the sample clips run beside the set (default: all of them)")
    p.add_argument("--no-samples", action="store_true", help="no sample clips beside the set")
    p.add_argument("--wait", type=int, metavar="N",
                   help="run each clip of DIR as it appears there until N have run (a set "
                        "still being made)")
    p.add_argument("--calibration", action="store_true",
                   help="the calibration alone: its error at the balls beside its own stated "
                        "uncertainty, clip by clip")
    args = p.parse_args(argv)
    if not args.dir.is_dir():
        p.error(f"{args.dir}: no such folder")
    if args.calibration:
        calibration_table(clip_paths(p, args.dir, args.clips))
        return
    if args.wait is not None and (args.clips or args.wait < 1):
        p.error("--wait takes a number of clips, 1 or more, and no clip names")
    samples = [] if args.no_samples else clip_paths(p, SAMPLES, args.samples or [])
    ready_kernels()
    print(HEAD)
    rows, sample_rows = [], []
    done: set[Path] = set()
    while True:
        # a clip's video is moved into place after its truth, so a clip seen is whole
        for path in clip_paths(p, args.dir, args.clips):
            if path not in done:
                done.add(path)
                rows.append(run_clip(path))
                print(clip_line(rows[-1]), flush=True)
        if args.wait is None or len(done) >= args.wait:
            break
        time.sleep(10)
    for path in samples:
        sample_rows.append(run_clip(path))
        print(clip_line(sample_rows[-1]), flush=True)
    print(f"\n{'summary':<36} {'rest med':>8} {'rest p95':>8} {'recall':>8} {'colour':>8} "
          f"{'cushion F1':>15} {'pots':>9} {'cal med':>7} {'cal p95':>7}")
    groups: dict[str, list[dict]] = defaultdict(list)
    for r in rows:
        groups[r["group"]].append(r)
    for name in sorted(groups):
        print(summary_line(f"set: {name}", figures(groups[name])))
    print(summary_line(f"set: all ({args.dir.name})", figures(rows)))
    if sample_rows:
        print(summary_line("sample clips", figures(sample_rows)))


if __name__ == "__main__":
    main()
