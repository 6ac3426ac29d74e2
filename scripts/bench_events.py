"""Shot events against the truth, printed as a table of precision and recall per event type.

Detections come from the truth with realistic noise (``tracker.sim.detections``: 0.3-1 mm at
rest, 1 mm per m/s more when moving, blur, 1% misses, false positives, class confusion) and run
through the ball tracker and the shot tracker, on (a) the sample clips and (b) a stress set of
generated shots (``tracker.sim.stress``). An event found matches a true one of the same type,
the same ball(s) (and cushion, pocket or ball jumped) within ``--frames`` frames; a touching
ball only needs the same shot. First contact: the class the white hit first, per shot.

    python scripts/bench_events.py                       # the sample clips
    python scripts/bench_events.py --stress 300          # and 300 generated shots
    python scripts/bench_events.py --stress 300 --no-samples --fps 60

Generated shots are cached under ``--cache`` (default ``~/.cache/cueball/stress``).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tracker.events.shots import ShotConfig, ShotTracker  # noqa: E402
from tracker.sim.detections import TruthClip, clip_from_truth_file, synth_detections  # noqa: E402
from tracker.sim.stress import EVENT_TYPES, stress_set  # noqa: E402
from tracker.tracking.track import BallTracker, TrackerConfig  # noqa: E402

SAMPLES = Path(__file__).resolve().parents[1] / "sample_videos"
TYPES = ("pot", "contact", "cushion", "jump", "touching")
# A touching ball is dated by the shot's end, which the tracker only knows later.
TOUCHING_S = 1.5


def run(clip: TruthClip, seed: int, exposure_s: float, miss: float,
        shot_config: ShotConfig | None = None) -> tuple[list[dict], dict[str, str], list]:
    """(events found, track id -> truth id, per-frame states) for one clip."""
    dets = synth_detections(clip, seed, miss=miss)
    tracker = BallTracker(TrackerConfig(exposure_s=exposure_s))
    shots = ShotTracker(shot_config)
    found: list[dict] = []
    votes: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for f, (xy, cls, conf) in enumerate(dets):
        state = tracker.update(f, float(clip.times[f]), xy, cls, conf)
        found.extend(dict(e) for e in state.events)
        for e in shots.update(state):
            e.pop("record", None)
            e["emitted"] = f
            found.append(e)
        on = state.on_table() & (state.state == "seen")
        truth = np.flatnonzero(clip.on_table[f])
        if on.any() and len(truth):
            d = np.hypot(*(state.xy_mm[on][:, None] - clip.pos[f, truth][None]).transpose(2, 0, 1))
            near = d.argmin(axis=1)
            for tid, k, dk in zip(state.track_ids[on], near, d.min(axis=1)):
                if dk < 30.0:
                    votes[str(tid)][clip.ids[truth[k]]] += 1
    ids = {tid: max(v, key=v.get) for tid, v in votes.items()}
    return found, ids, dets


def _key(e: dict, ids: dict[str, str]):
    """What must agree for two events of a type to match."""
    m = (lambda b: ids.get(b, b)) if ids else (lambda b: b)
    t = e["type"]
    if t == "pot":
        return m(e["ball"]), e["pocket"]
    if t in ("contact", "touching"):
        return frozenset(m(b) for b in e["balls"])
    if t == "cushion":
        return m(e["ball"]), e["cushion"]
    if t == "jump":
        return m(e["over"])
    return None


def match(truth: list[dict], found: list[dict], ids: dict[str, str], fps: float,
          frames: int) -> dict[str, list[int]]:
    """type -> [true, found, matched]: greedy, nearest in time first."""
    out = {}
    for typ in TYPES:
        tr = [e for e in truth if e["type"] == typ and (typ != "jump" or e.get("over"))]
        fo = [e for e in found if e["type"] == typ and (typ != "jump" or e.get("over"))]
        tol = TOUCHING_S * fps if typ == "touching" else frames
        pairs = []
        for a, et in enumerate(tr):
            ft = int(np.ceil(et["t"] * fps - 1e-6))
            for b, ef in enumerate(fo):
                gap = abs(ef["frame"] - ft)
                if gap <= tol and _key(et, {}) == _key(ef, ids):
                    pairs.append((gap, a, b))
        used_a, used_b, n = set(), set(), 0
        for _, a, b in sorted(pairs):
            if a not in used_a and b not in used_b:
                used_a.add(a)
                used_b.add(b)
                n += 1
        out[typ] = [len(tr), len(fo), n]
        out.setdefault("_misses", []).extend(
            (typ, round(et["t"], 3), _key(et, {}), et.get("speed_mm_s"))
            for a, et in enumerate(tr) if a not in used_a)
        out.setdefault("_extras", []).extend(
            (typ, round(ef["t"], 3), _key(ef, ids)) for b, ef in enumerate(fo) if b not in used_b)
    return out


def shots_of(clip: TruthClip, found: list[dict], ids: dict[str, str]) -> list[tuple]:
    """Per true shot: (true first contact, ours, seconds from the last motion to our shot end
    (None: no end), number of our shot ends in it)."""
    starts = [e["t"] for e in clip.events if e["type"] == "shot_start"]
    ends = [e["t"] for e in clip.events if e["type"] == "shot_end"]
    out = []
    for t0, t1 in zip(starts, ends):
        first = next((e["classes"][1 - e["balls"].index("white")] for e in clip.events
                      if e["type"] == "contact" and "white" in e["balls"] and t0 <= e["t"] <= t1),
                     None)
        mine = [e for e in found if e["type"] == "shot_end" and t0 < e["t"] <= t1 + 3.0]
        mine_first = mine[0]["first_contact"] if mine else "(no shot)"
        stopped = last_motion(clip, t0, t1)
        latency = (mine[-1]["t"] - stopped) if mine else None
        out.append((first, mine_first, latency, len(mine)))
    return out


def last_motion(clip: TruthClip, t0: float, t1: float) -> float:
    """The last frame time in [t0, t1 + 1] at which a ball on the table moved 0.2 mm."""
    k = np.flatnonzero((clip.times >= t0) & (clip.times <= t1 + 1.0))
    step = np.hypot(*np.diff(clip.pos[k], axis=0).transpose(2, 0, 1))
    moving = np.flatnonzero(((step > 0.2) & clip.on_table[k][1:]).any(axis=1))
    return float(clip.times[k][1:][moving[-1]]) if len(moving) else t0


def bench(clips: list[TruthClip], args, label: str) -> None:
    totals = {t: [0, 0, 0] for t in TYPES}
    first_right = n_shots = 0
    latencies, extra_ends, missing_ends = [], 0, 0
    misses, extras = [], []
    for k, clip in enumerate(clips):
        fps = 1.0 / float(np.median(np.diff(clip.times)))
        found, ids, _ = run(clip, args.seed * 7919 + k, args.exposure, args.miss,
                            args.shot_config)
        m = match(clip.events, found, ids, fps, args.frames)
        for t in TYPES:
            totals[t] = [a + b for a, b in zip(totals[t], m[t])]
        misses += [(clip.name, *x) for x in m["_misses"]]
        extras += [(clip.name, *x) for x in m["_extras"]]
        for first, mine, latency, n in shots_of(clip, found, ids):
            n_shots += 1
            first_right += first == mine
            if first != mine:
                misses.append((clip.name, "first_contact", first, mine))
            if latency is None:
                missing_ends += 1
                misses.append((clip.name, "shot_end", "never"))
            else:
                if latency > 0.45:
                    misses.append((clip.name, "shot_end", f"{latency:.2f} s after the stop"))
                latencies.append(latency)
                extra_ends += n - 1
    print(f"\n{label}: {len(clips)} clips, {n_shots} shots")
    head = f"{'event':<22} {'true':>6} {'found':>6} {'right':>6} {'precision':>9} {'recall':>7}"
    print(head)
    print("-" * len(head))
    for t in TYPES:
        n_true, n_found, n_right = totals[t]
        p = n_right / n_found if n_found else float("nan")
        r = n_right / n_true if n_true else float("nan")
        name = {"pot": "pot (right pocket)", "cushion": "cushion (right one)",
                "contact": "ball-ball contact", "jump": "jump (ball jumped)",
                "touching": "touching at rest"}[t]
        print(f"{name:<22} {n_true:>6} {n_found:>6} {n_right:>6} {p:>9.3f} {r:>7.3f}")
    print(f"{'first contact right':<22} {n_shots:>6} {'':>6} {first_right:>6} {'':>9} "
          f"{first_right / max(n_shots, 1):>7.3f}")
    lat = np.array(latencies)
    if len(lat):
        print(f"shot end after the last motion: median {np.median(lat):.2f} s, p95 "
              f"{np.quantile(lat, 0.95):.2f} s, max {lat.max():.2f} s; "
              f"{missing_ends} shots never ended, {extra_ends} extra shot ends")
    if args.verbose:
        for x in misses:
            print("  missed", *x)
        for x in extras:
            print("  extra ", *x)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--stress", type=int, default=0, metavar="N", help="generated shots to run")
    ap.add_argument("--stress-seed", type=int, default=0)
    ap.add_argument("--no-samples", action="store_true", help="skip the sample clips")
    ap.add_argument("--truth", nargs="*", default=None,
                    help="NAME.truth.json files (default: every sample clip)")
    ap.add_argument("--fps", type=float, default=30.0, help="frame rate of the stress shots")
    ap.add_argument("--exposure", type=float, default=1 / 60, help="shutter (s)")
    ap.add_argument("--miss", type=float, default=0.01, help="missed detections (fraction)")
    ap.add_argument("--frames", type=int, default=2, help="timing tolerance (frames)")
    ap.add_argument("--seed", type=int, default=0, help="seeds the detection noise")
    ap.add_argument("--workers", type=int, default=None, help="processes making the stress set")
    ap.add_argument("--cache", type=Path,
                    default=Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
                    / "cueball" / "stress")
    ap.add_argument("--no-cache", action="store_true")
    ap.add_argument("-v", "--verbose", action="store_true", help="list misses and extras")
    ap.add_argument("--set", nargs="*", default=[], metavar="NAME=VALUE",
                    help="ShotConfig overrides, e.g. --set rest_s=0.25")
    args = ap.parse_args(argv)
    overrides = {}
    for item in args.set:
        name, _, value = item.partition("=")
        overrides[name] = int(value) if value.lstrip("-").isdigit() else float(value)
    args.shot_config = ShotConfig(**overrides)
    print(f"synthetic detections: shutter {args.exposure * 1e3:.1f} ms, misses {args.miss:g}, "
          f"seed {args.seed}; match within {args.frames} frames"
          + (f"; {' '.join(args.set)}" if args.set else ""))
    if not args.no_samples:
        paths = args.truth or sorted(str(p) for p in SAMPLES.glob("*.truth.json"))
        clips = [clip_from_truth_file(p, args.exposure, EVENT_TYPES) for p in paths]
        bench(clips, args, "sample clips")
    if args.stress:
        clips = stress_set(args.stress, args.stress_seed, args.fps, args.exposure, args.workers,
                           None if args.no_cache else args.cache)
        bench(clips, args, f"stress set (seed {args.stress_seed}, {args.fps:g} fps)")


if __name__ == "__main__":
    main()
