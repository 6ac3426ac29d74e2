"""Benchmark on the real broadcast clips (``../shared/realdata/snooker-broadcast``); prints tables.

Each clip is run once through the whole chain (calibration from its first second, detection,
colour, tracking, shots) and scored two ways:

1. Task3 tracking: the tracks nearest the two given first-frame boxes (the cue ball and another
   ball) are followed; each frame's box is the track's centre in the image +- its apparent
   radius, or nothing when the track is potted or off the table. A frame is right when the IoU
   with the true box is above 0.2, or when both say the ball is gone; a ball is tracked when at
   least 80 % of the frames are right.
2. Task2 pots: whether a ball was potted, its colour and its pocket in the IMAGE numbering
   (1 top left, 2 top right, 3 bottom left, 4 bottom right, 5 middle left, 6 middle right),
   worked out from where the calibration puts each pocket in the image; and whether the
   events hold a contact of the potted ball at or before its pot (a ball is potted only when
   something hit it: a check without labels on the contacts, which the referee's first
   contact comes from).
3. Speed: frames per second of the whole run (calibration excluded), decoding included.

Usage: python scripts/bench_real.py [--clips 1 2 3] [--realdata DIR] [--verbose]
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from calibration.errors import InputError  # noqa: E402
from calibration.find import calibrate_video  # noqa: E402
from tracker.pipeline import Pipeline, file_frames  # noqa: E402
from tracker.vision.detect import not_snooker  # noqa: E402
from tracker.vision.stages import make_detect  # noqa: E402

REALDATA = ROOT.parent / "shared" / "realdata" / "snooker-broadcast"
IOU_MIN = 0.2
TRACKED_SHARE = 0.8
# Frames after the first in which a track may be confirmed and still be the given ball.
PICK_WITHIN = 15


# -- truth ----------------------------------------------------------------------------------------
def read_task2_truth(path: Path) -> tuple[bool, int | None, str | None]:
    """(potted, pocket number 1..6 or None, colour or None) from an ``N_gt.txt``."""
    words = path.read_text().split()
    if not words or words[0].upper() != "YES":
        return False, None, None
    return True, int(words[1]), words[2].lower()


def read_boxes(path: Path, frames: int | None = None) -> tuple[int, np.ndarray]:
    """(frame count, (F, 4) boxes xmin ymin xmax ymax, NaN where the ball is gone) from a
    Task3 box file: a header ``count -1 -1 -1 -1`` then ``frame xmin ymin xmax ymax`` lines."""
    rows = np.array([[float(v) for v in line.split()] for line in path.read_text().splitlines()
                     if line.strip()])
    count = int(rows[0, 0]) if frames is None else frames
    boxes = np.full((count, 4), np.nan)
    body = rows[1:]
    body = body[(body[:, 0] >= 0) & (body[:, 0] < count) & (body[:, 1:] >= 0).all(axis=1)]
    boxes[body[:, 0].astype(int)] = body[:, 1:]
    return count, boxes


def iou(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """(F, 4) and (F, 4) boxes -> (F,) intersection over union (NaN boxes give 0)."""
    w = np.clip(np.minimum(a[:, 2], b[:, 2]) - np.maximum(a[:, 0], b[:, 0]), 0, None)
    h = np.clip(np.minimum(a[:, 3], b[:, 3]) - np.maximum(a[:, 1], b[:, 1]), 0, None)
    inter = w * h
    area = lambda x: (x[:, 2] - x[:, 0]) * (x[:, 3] - x[:, 1])  # noqa: E731
    union = area(a) + area(b) - inter
    out = np.where(union > 0, inter / np.where(union > 0, union, 1), 0.0)
    return np.nan_to_num(out)


def frames_right(pred: np.ndarray, truth: np.ndarray) -> np.ndarray:
    """(F,) bool: IoU above IOU_MIN, or both boxes NaN (the ball gone in both)."""
    gone_p = np.isnan(pred).any(axis=1)
    gone_t = np.isnan(truth).any(axis=1)
    return np.where(gone_p & gone_t, True, iou(pred, truth) > IOU_MIN)


def pocket_numbers(pockets_px: dict[str, list[float]]) -> dict[str, int]:
    """Pocket name -> image number (1 top left, 2 top right, 3 bottom left, 4 bottom right,
    5 middle left, 6 middle right) from where the pockets are in the image."""
    names = list(pockets_px)
    xy = np.array([pockets_px[n] for n in names])
    by_y = np.argsort(xy[:, 1], kind="stable")
    out = {}
    for row, numbers in ((by_y[:2], (1, 2)), (by_y[2:4], (5, 6)), (by_y[4:], (3, 4))):
        left, right = row[np.argsort(xy[row, 0])]
        out[names[left]], out[names[right]] = numbers
    return out


# -- one run --------------------------------------------------------------------------------------
@dataclass
class Run:
    """What the chain gave on one clip: per frame the track ids, their image centres (N, 2) px,
    apparent radii (N,) px and states; every event; the pockets' image numbers; the speed."""

    frames: int = 0
    ids: list[np.ndarray] = field(default_factory=list)
    xy_px: list[np.ndarray] = field(default_factory=list)
    r_px: list[np.ndarray] = field(default_factory=list)
    state: list[np.ndarray] = field(default_factory=list)
    events: list[dict] = field(default_factory=list)
    pocket_number: dict[str, int] = field(default_factory=dict)
    fps: float = 0.0
    calib_s: float = 0.0
    told: bool = False  # told to be no snooker table (``tracker.vision.detect.not_snooker``)


def run_clip(path: Path, max_frames: int | None = None) -> Run:
    """Calibrate, detect, classify, track and follow the shot through one clip."""
    t0 = time.perf_counter()
    cal = calibrate_video(path)
    out = Run(calib_s=time.perf_counter() - t0)
    detect = make_detect(cal)
    detector = detect.detector
    pipe = Pipeline(cal, detect, monitor_every=0)
    out.pocket_number = pocket_numbers(cal.pockets_px())
    frames, _, _ = file_frames(path)
    t0 = time.perf_counter()
    for frame in frames:
        if max_frames is not None and frame.index >= max_frames:
            break
        res = pipe.process(frame)
        st = res.state
        radius = np.full(len(st), np.nan)
        on = st.on_table()
        if on.any():
            radius[on] = detector.geometry.radius_px(st.xy_mm[on]) * detector.radius_scale
        out.ids.append(st.track_ids.copy())
        out.xy_px.append(res.xy_px)
        out.r_px.append(radius)
        out.state.append(st.state.copy())
        out.events.extend(res.events)
        out.frames += 1
    out.events.extend(pipe.finish())
    out.fps = out.frames / max(time.perf_counter() - t0, 1e-9)
    out.told = not_snooker(detector) is not None
    return out


def pick_track(run: Run, box: np.ndarray, cue_ball: bool = False) -> str | None:
    """The id of the track that follows the ball in ``box`` (xmin ymin xmax ymax, first
    frame): the track nearest the box's centre at the first frame where one lies within the
    box's size of it, searched over the first PICK_WITHIN frames, then (the cue ball under the
    cue tip is often unseen until struck) the white for the cue ball, then over the clip."""
    centre = np.array([(box[0] + box[2]) / 2, (box[1] + box[3]) / 2])
    size = max(box[2] - box[0], box[3] - box[1])

    def nearest(frames) -> str | None:
        for k in frames:
            ok = np.isin(run.state[k], ("seen", "predicted"))
            if not ok.any():
                continue
            d = np.hypot(*(run.xy_px[k][ok] - centre).T)
            if d.min() <= size:
                return str(run.ids[k][ok][np.argmin(d)])
        return None

    found = nearest(range(min(PICK_WITHIN, run.frames)))
    if found is None and cue_ball and any("white" in ids for ids in run.ids):
        return "white"
    return found if found is not None else nearest(range(PICK_WITHIN, run.frames))


def track_boxes(run: Run, track_id: str | None, first_box: np.ndarray) -> np.ndarray:
    """(F, 4) the track's box per frame, NaN when it is gone (potted, off the table, from the
    frame the pot or fall was dated to, as the decision comes a few frames later). Frames
    before the track is first confirmed keep the given first-frame box: the ball is where it
    was given until the tracker has seen it (it needs a few sightings to call a ball a ball)."""
    boxes = np.full((run.frames, 4), np.nan)
    first = run.frames
    # a pot is decided a few frames after the ball vanished; the event says when it went
    gone_from = {e["frame"] for e in run.events
                 if e["type"] in ("pot", "off_table") and e["ball"] == track_id}
    if track_id is not None:
        gone = False
        for k in range(run.frames):
            hit = np.flatnonzero(run.ids[k] == track_id)
            if not len(hit):
                continue
            first = min(first, k)
            state = run.state[k][hit[0]]
            # from the dated frame, unseen until the decision: already gone
            gone = state == "predicted" and (gone or k in gone_from)
            if state in ("seen", "predicted") and not gone:
                (x, y), r = run.xy_px[k][hit[0]], run.r_px[k][hit[0]]
                boxes[k] = (x - r, y - r, x + r, y + r)
    boxes[:first] = first_box
    return boxes


def the_pot(run: Run) -> dict | None:
    """The clip's pot event: the first ball other than the white that was potted (the white
    when it alone went in), or None."""
    pots = [e for e in run.events if e["type"] == "pot"]
    colours = [e for e in pots if e["class"] != "white"] or pots
    return colours[0] if colours else None


def pot_answer(run: Run) -> tuple[bool, int | None, str | None]:
    """(potted, image pocket number, colour) of the clip's pot (``the_pot``)."""
    e = the_pot(run)
    if e is None:
        return False, None, None
    return True, run.pocket_number.get(e["pocket"]), e["class"]


def pot_hit(run: Run) -> bool | None:
    """Whether the events hold a contact of the potted ball at or before its pot (None when
    nothing was potted)."""
    e = the_pot(run)
    if e is None:
        return None
    return any(c["type"] == "contact" and e["ball"] in c["balls"] and c["t"] <= e["t"] + 1e-9
               for c in run.events)


# -- tables ---------------------------------------------------------------------------------------
def clip_numbers(root: Path) -> list[int]:
    return sorted(int(p.stem) for p in (root / "Task3").glob("*.mp4"))


def evaluate(root: Path, n: int, verbose: bool = False) -> dict:
    """Run clip ``n`` and score it on Task3 (both balls) and Task2."""
    video = root / "Task3" / f"{n}.mp4"
    out = {"clip": n}
    try:
        run = run_clip(video)
    except InputError as exc:
        return {**out, "error": str(exc)}
    out["frames"], out["fps"], out["calib_s"] = run.frames, run.fps, run.calib_s
    for k in (1, 2):
        count, first = read_boxes(root / "Task3" / f"{n}_ball_{k}.txt")
        _, truth = read_boxes(root / "Task3" / "ground-truth" / f"{n}_ball_{k}_gt.txt", count)
        track_id = pick_track(run, first[0], cue_ball=k == 1)
        pred = track_boxes(run, track_id, first[0])
        f = min(count, run.frames)
        right = frames_right(pred[:f], truth[:f])
        share = float(right.sum()) / max(count, 1)
        out[f"ball{k}"] = (track_id, share)
        if verbose:
            bad = np.flatnonzero(~right)
            print(f"  clip {n} ball {k} ({track_id}): wrong frames {_ranges(bad)}")
    truth2 = read_task2_truth(root / "Task2" / "ground-truth" / f"{n}_gt.txt")
    out["task2"] = (truth2, pot_answer(run))
    out["hit"] = pot_hit(run)
    out["told"] = run.told
    if verbose:
        for e in run.events:
            if e["type"] in ("pot", "off_table", "relabel", "respot", "white_placed"):
                print(f"  clip {n} event {e}")
    return out


def _ranges(idx: np.ndarray) -> str:
    if not len(idx):
        return "-"
    parts, start = [], idx[0]
    for a, b in zip(idx[:-1], idx[1:]):
        if b != a + 1:
            parts.append(f"{start}-{a}" if a > start else f"{start}")
            start = b
    parts.append(f"{start}-{idx[-1]}" if idx[-1] > start else f"{start}")
    return ",".join(parts)


def _fmt_pot(p: tuple) -> str:
    potted, pocket, colour = p
    return f"YES {pocket} {colour}" if potted else "NO"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--realdata", type=Path, default=REALDATA)
    parser.add_argument("--clips", type=int, nargs="*", help="clip numbers (default: all)")
    parser.add_argument("--verbose", action="store_true", help="wrong frames and events")
    args = parser.parse_args(argv)
    if not (args.realdata / "Task3").is_dir():
        print(f"no real footage at {args.realdata}: nothing to measure")
        return 0
    clips = args.clips or clip_numbers(args.realdata)
    results = [evaluate(args.realdata, n, args.verbose) for n in clips]

    print("\n## Task3 tracking (frame right: IoU > 0.2, or both gone; tracked: >= 80 % right)\n")
    print("| clip | frames | cue ball % | tracked | other ball % | tracked | fps |")
    print("|-----:|-------:|-----------:|:-------:|-------------:|:-------:|----:|")
    tracked = [0, 0]
    for r in results:
        if "error" in r:
            print(f"| {r['clip']:>4} | calibration failed: {r['error']} |")
            continue
        cells = []
        for k in (1, 2):
            _, share = r[f"ball{k}"]
            ok = share >= TRACKED_SHARE
            tracked[k - 1] += ok
            cells += [f"{100 * share:>10.1f}", f"{'yes' if ok else 'NO':^7}"]
        print(f"| {r['clip']:>4} | {r['frames']:>6} | {cells[0]} | {cells[1]} | "
              f"{cells[2]:>12} | {cells[3]} | {r['fps']:>3.0f} |")
    n = len(results)
    print(f"\ncue ball tracked on {tracked[0]}/{n} clips, other ball on {tracked[1]}/{n}, "
          f"both on {sum(1 for r in results if 'error' not in r and all(r[f'ball{k}'][1] >= TRACKED_SHARE for k in (1, 2)))}/{n}")  # noqa: E501
    told = [r["clip"] for r in results if r.get("told")]
    print(f"told to be no snooker table: {len(told)}/{n} clips {told or ''}")

    print("\n## Task2 pots (image pockets: 1 top left, 2 top right, 3 bottom left, "
          "4 bottom right, 5 middle left, 6 middle right)\n")
    print("| clip | truth | answer | potted | pocket | colour | all | hit |")
    print("|-----:|:------|:-------|:------:|:------:|:------:|:---:|:---:|")
    right = np.zeros(4, int)
    hits = [r["hit"] for r in results if r.get("hit") is not None]
    for r in results:
        if "error" in r:
            print(f"| {r['clip']:>4} | calibration failed |")
            continue
        truth, ans = r["task2"]
        ok = [truth[0] == ans[0], truth[1] == ans[1], truth[2] == ans[2]]
        ok.append(all(ok))
        right += ok
        mark = ["ok" if v else "WRONG" for v in ok]
        hit = {None: "-", True: "yes", False: "NO"}[r["hit"]]
        print(f"| {r['clip']:>4} | {_fmt_pot(truth):<12} | {_fmt_pot(ans):<12} | "
              f"{mark[0]:^6} | {mark[1]:^6} | {mark[2]:^6} | {mark[3]:^3} | {hit:^3} |")
    print(f"\npotted right {right[0]}/{n}, pocket {right[1]}/{n}, colour {right[2]}/{n}, "
          f"all three {right[3]}/{n}; the potted ball's contact found on {sum(hits)} of "
          f"{len(hits)} pots")

    fps = [r["fps"] for r in results if "error" not in r]
    cal = [r["calib_s"] for r in results if "error" not in r]
    if fps:
        print(f"\n## Speed\n\nwhole chain (decode, detect, colour, track, shots) at 1280x720: "
              f"median {np.median(fps):.1f} fps (min {min(fps):.1f}, max {max(fps):.1f}); "
              f"calibration median {np.median(cal):.1f} s a clip")
    return 0


if __name__ == "__main__":
    sys.exit(main())
