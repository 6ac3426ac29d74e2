"""Tracker accuracy and speed on synthetic detections made from ground truth, printed as tables.

Detections come straight from the scripted truth (no rendering, no detector), so the figures
are the tracker's own: per-ball noise of 0.3-1 mm at rest and more when moving, motion blur
(the detector reports the centre of the streak over the shutter), 1% missed detections, every
ball under the player's body, arms, cue or hands hidden, 0.1% false positives, and class
confusion (red, pink and brown mistaken for each other 1% of the time, 0.3% anything else).

    python scripts/bench_track.py [--scenarios in_off occlusion ...] [--fps 30] [--seed 0]
    python scripts/bench_track.py --truth sample_videos/in_off.truth.json

Scenario timelines take seconds to a minute to simulate; sampled truth is cached under
``--cache`` (default ``~/.cache/cueball/bench_track``).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from scipy.optimize import linear_sum_assignment

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from calibration.specs import BALL_CLASSES, SNOOKER  # noqa: E402
from tracker.sim.detections import (  # noqa: E402
    TruthClip,
    clip_from_timeline,
    clip_from_truth_file,
    run_tracker,
    synth_detections,
)
from tracker.tracking.track import TableState, TrackerConfig  # noqa: E402

DEFAULT_SCENARIOS = ("in_off", "jump_shot", "touching", "occlusion", "break_off",
                     "break_building")
# Truth speed (mm/s) below which a ball counts as at rest.
REST_SPEED_MM_S = 1.0
# A truth acceleration above this (mm/s^2; sliding friction is ~2000) is a strike, a kiss or a
# cushion; moving frames within IMPULSE_S after one are the transients no 30 fps filter can see.
IMPULSE_MM_S2 = 6000.0
IMPULSE_S = 0.2










def scenario_clip(name: str, seed: int, fps: float, exposure_s: float,
                  cache: Path | None) -> TruthClip:
    path = None
    if cache is not None:
        # keyed by the simulator's source too, so a changed scenario or physics is re-run
        sim = Path(__file__).resolve().parents[1] / "tracker" / "sim"
        digest = hashlib.sha1(b"".join(p.read_bytes() for p in sorted(sim.glob("*.py"))))
        path = cache / (f"{name}-s{seed}-{fps:g}fps-e{exposure_s * 1e3:.1f}ms-"
                        f"{digest.hexdigest()[:10]}.npz")
        if path.exists():
            return TruthClip.load(path)
    from tracker.sim.scenarios import SCENARIOS

    clip = clip_from_timeline(name, SCENARIOS[name].build(seed), fps, exposure_s)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        clip.save(path)
    return clip








# -- scoring -------------------------------------------------------------------------------------
@dataclass
class Score:
    frames: int
    balls: int
    id_switches: int
    colour_id_errors: int  # frames x balls where a colour or the white had another's id
    missing: int  # frames x balls on the table with no track on them
    extra: int  # frames x tracks on the table with no ball under them
    rest_err: np.ndarray  # mm, balls at rest (seen or predicted)
    rest_hidden_err: np.ndarray  # mm, balls at rest under an occluder
    moving_err: np.ndarray  # mm, moving balls
    steady_err: np.ndarray  # mm, moving balls more than IMPULSE_S after an impulse
    pots_true: int
    pots_found: int
    pots_right: int  # right ball and right pocket within 1 s
    leave_events: list[tuple]  # (truth or tracker, type, ball, pocket, t) for the report
    revivals: str
    matched: int = 0  # ball-frames with a track on them
    class_right: int = 0  # ... whose track is of the ball's class


def score(clip: TruthClip, states: list[TableState], match_mm: float = 60.0) -> Score:
    """Match tracks to balls per frame (Hungarian on distance, within ``match_mm``) and count.

    An identity switch is a ball whose matched track id differs from the one it last had."""
    F, N = clip.on_table.shape
    last: dict[int, str] = {}
    votes: dict[str, dict[str, int]] = {}
    idsw = colour_err = missing = extra = matched = class_right = 0
    rest_err, hidden_err, moving_err, steady_err = [], [], [], []
    vel = np.gradient(clip.pos, clip.times, axis=0)
    kicked = np.hypot(*np.gradient(vel, clip.times, axis=0).transpose(2, 0, 1)) > IMPULSE_MM_S2
    window = max(int(round(IMPULSE_S / np.median(np.diff(clip.times)))), 1)
    # (F, N): an impulse within the last `window` frames
    recent = np.array([kicked[max(f - window, 0):f + 1].any(axis=0) for f in range(F)])
    for f, st in enumerate(states):
        live = np.flatnonzero(st.on_table())
        balls = np.flatnonzero(clip.on_table[f])
        if len(live) and len(balls):
            d = np.hypot(*(clip.pos[f, balls][:, None] - st.xy_mm[live][None]).transpose(2, 0, 1))
            rows, cols = linear_sum_assignment(np.where(d <= match_mm, d, 1e9))
            ok = d[rows, cols] <= match_mm
            rows, cols = rows[ok], cols[ok]
        else:
            rows = cols = np.zeros(0, int)
        missing += len(balls) - len(rows)
        extra += len(live) - len(rows)
        for a, b in zip(rows, cols):
            i, tid = balls[a], str(st.track_ids[live[b]])
            matched += 1
            class_right += BALL_CLASSES[st.classes[live[b]]] == clip.classes[i]
            if i in last and last[i] != tid:
                idsw += 1
            last[i] = tid
            votes.setdefault(tid, {}).setdefault(clip.ids[i], 0)
            votes[tid][clip.ids[i]] += 1
            if clip.classes[i] != "red" and tid != clip.ids[i]:
                colour_err += 1
            e = float(np.hypot(*(clip.pos[f, i] - st.xy_mm[live[b]])))
            if clip.speed[f, i] < REST_SPEED_MM_S:
                (hidden_err if clip.hidden[f, i] else rest_err).append(e)
            else:
                moving_err.append(e)
                if not recent[f, i]:
                    steady_err.append(e)
    truth_of = {tid: max(v, key=v.get) for tid, v in votes.items()}
    found = [dict(e, ball_truth=truth_of.get(e["ball"], e["ball"]))
             for st in states for e in st.events]
    truth_pots = [e for e in clip.events if e["type"] == "pot"]
    my_pots = [e for e in found if e["type"] == "pot"]
    right = 0
    for e in my_pots:
        if any(p["ball"] == e["ball_truth"] and p["pocket"] == e["pocket"]
               and abs(p["t"] - e["t"]) < 1.0 for p in truth_pots):
            right += 1
    log = [("truth", e["type"], e["ball"], e.get("pocket", ""), e["t"]) for e in clip.events]
    log += [("tracker", e["type"], f"{e['ball']}={e['ball_truth']}", e.get("pocket", ""),
             e["t"]) for e in found]
    revivals = ", ".join(f"{e['type']} {e['ball']}" for e in found
                         if e["type"] in ("respot", "white_placed"))
    return Score(len(states), N, idsw, colour_err, missing, extra,
                 np.array(rest_err), np.array(hidden_err), np.array(moving_err),
                 np.array(steady_err),
                 len(truth_pots), len(my_pots), right, sorted(log, key=lambda x: x[-1]), revivals,
                 matched, class_right)


def raw_moving_error(clip: TruthClip, detections) -> np.ndarray:
    """(M,) mm: for every moving ball detected, its nearest detection's distance from it (what
    the tracker is given, blur lag included)."""
    out = []
    for f, (xy, _, _) in enumerate(detections):
        moving = np.flatnonzero(clip.on_table[f] & (clip.speed[f] >= REST_SPEED_MM_S))
        if len(xy) and len(moving):
            d = np.hypot(*(clip.pos[f, moving][:, None] - xy[None]).transpose(2, 0, 1))
            out.extend(d.min(axis=1)[d.min(axis=1) < SNOOKER.ball_diameter_mm])
    return np.array(out)


def _q(a: np.ndarray, q: float) -> str:
    return f"{np.quantile(a, q):.2f}" if len(a) else "-"


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scenarios", nargs="*", default=list(DEFAULT_SCENARIOS))
    ap.add_argument("--truth", nargs="*", default=[], help="NAME.truth.json files of clips")
    ap.add_argument("--fps", type=float, default=30.0)
    ap.add_argument("--exposure", type=float, default=1 / 60, help="shutter (s)")
    ap.add_argument("--seed", type=int, default=0,
                    help="seeds the scenarios' simulation and the detection noise")
    ap.add_argument("--cache", type=Path,
                    default=Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
                    / "cueball" / "bench_track")
    ap.add_argument("--no-cache", action="store_true")
    ap.add_argument("--miss", type=float, default=0.01, help="missed detections (fraction)")
    ap.add_argument("--false-pos", type=float, default=0.001,
                    help="false positives per ball on the table per frame")
    ap.add_argument("--confusion", type=float, default=0.01,
                    help="red/pink/brown class confusion (fraction)")
    ap.add_argument("--events", action="store_true", help="print truth and tracker events")
    ap.add_argument("--set", nargs="*", default=[], metavar="NAME=VALUE",
                    help="TrackerConfig overrides, e.g. --set accel_sigma_mm_s2=2000")
    args = ap.parse_args(argv)
    cache = None if args.no_cache else args.cache
    overrides = {}
    for item in args.set:
        name, _, value = item.partition("=")
        overrides[name] = int(value) if value.lstrip("-").isdigit() else float(value)
    config = TrackerConfig(**{"exposure_s": args.exposure, **overrides})

    clips = [scenario_clip(n, args.seed, args.fps, args.exposure, cache) for n in args.scenarios]
    clips += [clip_from_truth_file(p, args.exposure) for p in args.truth]
    print(f"synthetic detections at {args.fps:g} fps (truth files: their own frame rate), "
          f"shutter {args.exposure * 1e3:.1f} ms, "
          f"misses {args.miss:g}, false positives {args.false_pos:g}, "
          f"confusion {args.confusion:g}, seed {args.seed}"
          + (f", {' '.join(args.set)}" if args.set else ""))
    head = (f"{'clip':<16} {'frames':>6} {'balls':>5} {'IDSW':>4} {'colour':>6} {'miss':>5} "
            f"{'extra':>5} | {'rest med':>8} {'p95':>5} {'hid p95':>7} | {'move med':>8} "
            f"{'p95':>6} | {'pots':>4} {'found':>5} {'right':>5} | {'ms/frame':>8} {'p95':>5}")
    print(head)
    print("-" * len(head))
    totals = {"idsw": 0, "true": 0, "found": 0, "right": 0}
    all_rest, all_move, all_steady, all_raw, all_ms = [], [], [], [], []
    reports = []
    ms_of: dict[str, np.ndarray] = {}
    for k, clip in enumerate(clips):
        dets = synth_detections(clip, args.seed * 7919 + k, miss=args.miss,
                                false_pos=args.false_pos, confusion=args.confusion)
        states, took = run_tracker(clip, dets, config)
        s = score(clip, states)
        ms = took * 1e3
        print(f"{clip.name:<16} {s.frames:>6} {s.balls:>5} {s.id_switches:>4} "
              f"{s.colour_id_errors:>6} {s.missing:>5} {s.extra:>5} | "
              f"{_q(s.rest_err, 0.5):>8} {_q(s.rest_err, 0.95):>5} "
              f"{_q(s.rest_hidden_err, 0.95):>7} | {_q(s.moving_err, 0.5):>8} "
              f"{_q(s.moving_err, 0.95):>6} | {s.pots_true:>4} {s.pots_found:>5} "
              f"{s.pots_right:>5} | {np.mean(ms):>8.2f} {np.quantile(ms, 0.95):>5.2f}")
        totals["idsw"] += s.id_switches
        totals["true"] += s.pots_true
        totals["found"] += s.pots_found
        totals["right"] += s.pots_right
        all_rest.append(s.rest_err)
        all_move.append(s.moving_err)
        all_steady.append(s.steady_err)
        all_raw.append(raw_moving_error(clip, dets))
        all_ms.append(ms)
        reports.append((clip.name, s))
        ms_of[clip.name] = ms
    rest, move, ms = (np.concatenate(all_rest), np.concatenate(all_move),
                      np.concatenate(all_ms))
    prec = totals["right"] / totals["found"] if totals["found"] else float("nan")
    rec = totals["right"] / totals["true"] if totals["true"] else float("nan")
    print()
    print(f"{'all clips':<28} {'value':>10}  target")
    print(f"{'identity switches':<28} {totals['idsw']:>10}  0")
    print(f"{'rest error median (mm)':<28} {_q(rest, 0.5):>10}  <= 0.5")
    print(f"{'rest error p95 (mm)':<28} {_q(rest, 0.95):>10}  <= 2")
    print(f"{'moving error p95 (mm)':<28} {_q(move, 0.95):>10}  <= 5")
    steady = np.concatenate(all_steady)
    print(f"{'  > ' + f'{IMPULSE_S:g}' + ' s after a kick':<28} {_q(steady, 0.95):>10}  "
          f"({len(steady)} of {len(move)} moving samples)")
    print(f"{'  raw detections p95 (mm)':<28} {_q(np.concatenate(all_raw), 0.95):>10}  "
          f"(nearest detection to a moving ball)")
    print(f"{'pot precision':<28} {prec:>10.2f}  ({totals['right']}/{totals['found']})")
    print(f"{'pot recall':<28} {rec:>10.2f}  ({totals['right']}/{totals['true']})")
    print(f"{'update ms/frame mean, p95':<28} {np.mean(ms):>5.2f} {np.quantile(ms, 0.95):>4.2f}")
    for name, s in reports:
        if s.balls >= 22:
            m = ms_of[name]
            print(f"{'  ' + name + ', ' + str(s.balls) + ' balls':<28} {np.mean(m):>5.2f} "
                  f"{np.quantile(m, 0.95):>4.2f}")
    if args.events:
        for name, s in reports:
            print(f"\n{name}: {s.revivals}")
            for who, typ, ball, pocket, t in s.leave_events:
                print(f"  {t:7.2f} {who:<8} {typ:<13} {ball:<16} {pocket}")


if __name__ == "__main__":
    main()
