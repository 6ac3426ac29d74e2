"""End to end on the sample clips: the whole pipeline (calibration from the video, detection,
colour, tracking, shots, referee) against the truth, and its speed beside decode-only speed of
the same clip, measured in one run. Prints a table. Identity switches: a ball whose track
(matched to it frame by frame within 60 mm) is not the one it last had, as
``scripts/bench_track.py`` counts them; colour: the ball-frames whose track is of the ball's
class (what the tracks and the events say, after the track's votes); share: pipeline fps over
decode-only fps (the target: at least 0.5), decode-only being the faster of frame-threaded and
slice-threaded decoding of the clip to BGR frames (the sample clips' frames are cut in two
slices each, which slice threads decode at once: about a fifth faster than frame threads).
Setup: making the pipeline for the calibrated camera (the detector's geometry for it), done
once before the first frame and not in the pipeline's frames per second; the compiled kernels
are made ready before the first clip, as ``cueball track`` does. With ``--repeat N`` each clip
is decoded and run N times, in turns, and the medians are given (the machine's speed drifts
from one run to the next; the answers are the first run's).

    python scripts/bench_e2e.py                  # every sample clip
    python scripts/bench_e2e.py in_off break_off # some
    python scripts/bench_e2e.py --overlay        # also draw and encode the overlay video
    python scripts/bench_e2e.py --one-process    # the later stages not in a worker process
    python scripts/bench_e2e.py --repeat 3       # each clip's speeds the median of three runs
    python scripts/bench_e2e.py --live in_off    # fed at camera speed: delay of each score
    python scripts/bench_e2e.py --threads in_off # each thread's CPU and wait for a core
    python scripts/bench_e2e.py --given in_off   # the speed the stages after detection allow
    python scripts/bench_e2e.py --exposure 1.5   # every frame half as bright again
    python scripts/bench_e2e.py --dir DIR        # the clips of scripts/make_variants.py

Threads (Linux): one pipeline run, each thread of this process and of the worker process
sampled from ``/proc/.../schedstat`` every 20 ms: its CPU time and its time spent runnable
but waiting for a core, in ms a frame, beside the wall time a frame and the two cores'
capacity (2 x wall); ``not sampled``: the CPU of the process and its worker beyond what the
samples saw (threads that began and ended between two samples). CPU left unused while a thread
waits for a core is time lost to scheduling; a thread's CPU over the wall time shows what
bounds the pipeline.

Given detections (``--given``): each frame's answer of the detection stages (work image,
candidates and refinement) is found first, alone on one thread (``detect fps``: frames a
second of those stages alone, the frames decoded beforehand); then the pipeline is run again
with those answers handed out in place of the detection stages (``given fps``), everything
else as it is: decoding, the camera check, colour, tracking, shots and the referee in their
worker process. ``given fps`` over decode-only fps is the share the pipeline could reach were
detection to cost nothing; the real run's speed beside it.

Exposure (``--exposure G``): every frame's pixels times G (saturating at 255) before the
pipeline sees it, as ``scripts/bench_clips.py --exposure`` does: a camera set darker or
brighter, or the lamps dimmed (the calibration found from the clip as it is; the speeds then
include the scaling).

Live mode: a thread plays the clip as a camera would, one frame every 1/fps seconds, and keeps
only the newest (the pipeline drops what it has no time for, as with a real camera). For each
shot the delay is measured from the moment the frame in which the balls came to rest (truth) was
shown to the moment the ``score`` event came out.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import threading
import time
from pathlib import Path

import cv2
import numpy as np
from bench_track import score  # the same identity-switch count as the tracker benchmark
from make_variants import clip_paths

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from calibration.errors import InputError  # noqa: E402
from calibration.find import calibrate_video  # noqa: E402
from tracker.io.video import read_frames  # noqa: E402
from tracker.pipeline import Frame, Pipeline, file_frames  # noqa: E402
from tracker.sim.detections import clip_from_truth_file  # noqa: E402
from tracker.sim.truth import read_truth  # noqa: E402
from tracker.vision.detect import ready_kernels  # noqa: E402
from tracker.vision.stages import make_detect  # noqa: E402

SAMPLES = ROOT / "sample_videos"


def decode_fps(path: Path) -> float:
    """Decode-only frames a second of the clip, to BGR frames as the pipeline takes them: the
    faster of frame-threaded and slice-threaded decoding."""
    best = 0.0
    for threads in ("FRAME", "SLICE"):
        t0 = time.perf_counter()
        n = sum(1 for _ in read_frames(path, threads))
        best = max(best, n / (time.perf_counter() - t0))
    return best


def run_clip(path: Path, overlay: bool, split: bool = True, repeat: int = 1,
             exposure: float = 1.0) -> dict:
    """One clip end to end: the answers of the first run, the median speeds of ``repeat``
    runs (each beside a decode-only run of its own)."""
    meta, _ = read_truth(path)
    t0 = time.perf_counter()
    cal = calibrate_video(path)
    t_cal = time.perf_counter() - t0
    runs = []
    for _ in range(repeat):
        decode = decode_fps(path)
        runs.append(run_pipeline(path, meta, cal, overlay, split, exposure))
        runs[-1]["decode_fps"] = decode
    out = dict(runs[0], cal_s=t_cal, cal_mm=cal.reprojection_error_mm)
    for key in ("fps", "decode_fps", "setup_s"):
        out[key] = float(np.median([r[key] for r in runs]))
    return out


def run_pipeline(path: Path, meta: dict, cal, overlay: bool, split: bool,
                 exposure: float = 1.0) -> dict:
    """The pipeline made for ``cal`` and run over the clip (every frame times ``exposure``):
    its answers and speed."""
    t0 = time.perf_counter()
    pipe = clip_pipeline(cal, meta)
    t_setup = time.perf_counter() - t0
    frames, fps, _ = file_frames(path)
    if exposure != 1.0:
        frames = (Frame(f.index, f.t, cv2.convertScaleAbs(f.image, alpha=exposure))
                  for f in frames)
    events, n, states = [], 0, []
    writer = None
    if overlay:
        from tracker.io.video import VideoWriter
        from tracker.render.overlay import Scoreboard, draw_overlay

        tmp = Path(tempfile.mkdtemp()) / "overlay.mp4"
        writer = VideoWriter(tmp, cal.image_size, fps, preset="veryfast", background=True)
        board = Scoreboard(players=tuple(meta["players"]))
    t0 = time.perf_counter()
    for res in pipe.run(frames, split=split):
        frame = res.frame
        events += res.events
        states.append(res.state)
        if writer is not None:
            for e in res.events:
                if e["type"] == "score":
                    board = Scoreboard.from_score_event(e, meta["players"])
            writer.write(draw_overlay(frame.image.copy(), board))
        n += 1
    events += pipe.finish()
    elapsed = time.perf_counter() - t0
    if writer is not None:
        writer.close()
    scores = [e for e in events if e["type"] == "score"]
    final = scores[-1]["score"] if scores else [0, 0]
    pots = [(e["class"], e["pocket"]) for e in events if e["type"] == "pot"]
    true_pots = [(e["class"], e["pocket"]) for e in meta["events"] if e["type"] == "pot"]
    shots = [(e["first_contact"], e["potted"], e["cue_potted"]) for e in events
             if e["type"] == "shot_end"]
    true_shots = [(s["first_contact"], s["potted"], s["cue_potted"]) for s in meta["shots"]]
    truth = clip_from_truth_file(path.with_suffix(".truth.json"), 0.0)
    tracked = score(truth, states[:len(truth.times)])
    return {"id_switches": tracked.id_switches,
            "track_colour": tracked.class_right / max(tracked.matched, 1),
            "clip": path.stem, "size": f"{meta['image_size'][0]}x{meta['image_size'][1]}",
            "setup_s": t_setup, "fps": n / elapsed,
            "score": final, "true_score": meta["final_score"],
            "pots_ok": pots == true_pots, "shots_ok": shots == true_shots}


class PacedClip:
    """A clip played at its frame rate on a thread, keeping only the newest frame."""

    def __init__(self, path: Path, fps: float):
        self.fps = fps
        self.dropped = 0
        self.shown: dict[int, float] = {}  # frame index -> wall time it was shown
        self._latest: Frame | None = None
        self._done = False
        self._cond = threading.Condition()
        self._frames = list(read_frames(path))  # decoded first: a camera costs no decoding
        self._thread = threading.Thread(target=self._play, daemon=True)

    def _play(self) -> None:
        t0 = time.perf_counter()
        for k, image in enumerate(self._frames):
            delay = t0 + k / self.fps - time.perf_counter()
            if delay > 0:
                time.sleep(delay)
            with self._cond:
                if self._latest is not None:
                    self.dropped += 1
                self._latest = Frame(k, k / self.fps, image)
                self.shown[k] = time.perf_counter()
                self._cond.notify_all()
        with self._cond:
            self._done = True
            self._cond.notify_all()

    def frames(self):
        self._thread.start()
        while True:
            with self._cond:
                while self._latest is None and not self._done:
                    self._cond.wait()
                if self._latest is None:
                    return
                frame, self._latest = self._latest, None
            yield frame


def found_beforehand(path: Path, cal) -> tuple[list, float]:
    """Each frame's answer of the detection stages made for ``cal``, and those stages' frames
    a second alone on this thread (decoding not counted)."""
    shrink, find, _ = make_detect(cal).stages
    answers, spent = [], 0.0
    cv_threads = cv2.getNumThreads()
    cv2.setNumThreads(1)  # as ``Pipeline.run`` has it
    try:
        for image in read_frames(path):
            t0 = time.perf_counter()
            answers.append(find(image, shrink(image)))
            spent += time.perf_counter() - t0
    finally:
        cv2.setNumThreads(cv_threads)
    return answers, len(answers) / spent


def given_fps(path: Path, cal, meta: dict, answers: list) -> float:
    """Frames a second of the pipeline over the clip with the detection stages' ``answers``
    handed out in their place (no work image made, nothing looked for)."""
    pipe = clip_pipeline(cal, meta)
    classify = pipe.detect.stages[2]
    handed = iter(answers)
    pipe.detect.stages = (lambda image: None, lambda image, shrunk=None: next(handed), classify)
    frames, _, _ = file_frames(path)
    t0 = time.perf_counter()
    n = sum(1 for _ in pipe.run(frames))
    pipe.finish()
    return n / (time.perf_counter() - t0)


def main_given(paths: list[Path], repeat: int) -> None:
    print(f"{'clip':<18} {'size':>10} {'detect fps':>11} {'pipeline fps':>13} {'given fps':>10} "
          f"{'decode fps':>11} {'share':>6} {'given share':>12}")
    for path in paths:
        try:
            meta, _ = read_truth(path)
            cal = calibrate_video(path)
            answers, detect = found_beforehand(path, cal)
        except InputError as exc:
            print(f"{path.stem:<18} failed: {exc}", flush=True)
            continue
        runs = []
        for _ in range(repeat):  # in turns, as ``run_clip`` takes them
            decode = decode_fps(path)
            whole = run_pipeline(path, meta, cal, overlay=False, split=True)["fps"]
            runs.append((whole, given_fps(path, cal, meta, answers), decode))
        whole, given, decode = (float(np.median(v)) for v in zip(*runs))
        print(f"{path.stem:<18} {'x'.join(map(str, meta['image_size'])):>10} {detect:>11.1f} "
              f"{whole:>13.1f} {given:>10.1f} {decode:>11.1f} {whole / decode:>6.2f} "
              f"{given / decode:>12.2f}", flush=True)


def clip_pipeline(cal, meta: dict) -> Pipeline:
    """A pipeline made for ``cal``, its referee fed the clip's prelude (truth ``meta``)."""
    pipe = Pipeline(cal, make_detect(cal), players=tuple(meta["players"]))
    for rec in meta.get("prelude", []):
        pipe.referee.feed(rec)
    return pipe


def calibrated_pipeline(path: Path) -> tuple[dict, Pipeline]:
    """The clip's truth and a pipeline for it, calibrated from the video."""
    meta, _ = read_truth(path)
    return meta, clip_pipeline(calibrate_video(path), meta)


def run_live(path: Path) -> dict:
    meta, pipe = calibrated_pipeline(path)
    src = PacedClip(path, meta["fps"])
    scores = []
    processed = 0
    # as ``cueball track`` runs a live source
    for res in pipe.run(src.frames(), ahead=False):
        processed += 1
        for e in res.events:
            if e["type"] == "score":
                scores.append((e, time.perf_counter()))
    scores += [(e, time.perf_counter()) for e in pipe.finish() if e["type"] == "score"]
    rest_frames = [int(np.ceil(s["t_end"] * meta["fps"] - 1e-9)) for s in meta["shots"]]
    delays = []
    for (_, wall), rest in zip(scores, rest_frames):
        shown = min((w for k, w in src.shown.items() if k >= rest), default=None)
        if shown is not None:
            delays.append(wall - shown)
    return {"clip": path.stem, "frames": len(src.shown), "processed": processed,
            "dropped": src.dropped, "scores": len(scores), "shots": len(meta["shots"]),
            "delays": delays,
            "score_ok": bool(scores) and scores[-1][0]["score"] == meta["final_score"]}


def main_live(paths) -> None:
    print(f"{'clip':<18} {'frames':>7} {'processed':>10} {'dropped':>8} {'scores':>7} "
          f"{'delay after rest (s), per shot':>32} {'score':>6}")
    for path in paths:
        r = run_live(path)
        delays = " ".join(f"{d:.2f}" for d in r["delays"]) or "-"
        print(f"{r['clip']:<18} {r['frames']:>7} {r['processed']:>10} {r['dropped']:>8} "
              f"{r['scores']:>3}/{r['shots']:<3} {delays:>32} "
              f"{'ok' if r['score_ok'] else 'WRONG':>6}", flush=True)


def _thread_times(pids: list[int], into: dict) -> None:
    """Each thread of ``pids``: (process, thread id) -> (name, CPU s, wait for a core s)."""
    for pid in pids:
        for task in Path(f"/proc/{pid}/task").glob("*"):
            try:
                name = (task / "comm").read_text().strip()
                run, wait, _ = (task / "schedstat").read_text().split()
            except (OSError, ValueError):
                continue  # the thread ended meanwhile
            into[(pid, task.name)] = (name, int(run) / 1e9, int(wait) / 1e9)


def _process_cpu() -> float:
    """CPU seconds of this process and of its children that have ended."""
    import resource

    me, ended = (resource.getrusage(who) for who in (resource.RUSAGE_SELF,
                                                      resource.RUSAGE_CHILDREN))
    return me.ru_utime + me.ru_stime + ended.ru_utime + ended.ru_stime


def run_threads(path: Path) -> None:
    """One pipeline run over the clip; prints each thread's CPU and wait, in ms a frame."""
    import multiprocessing
    import os

    _, pipe = calibrated_pipeline(path)
    frames, _, _ = file_frames(path)
    me = os.getpid()
    before: dict = {}
    _thread_times([me], before)
    seen: dict = {}
    names: dict[str, str] = {}
    done = threading.Event()

    def sample() -> None:
        while not done.wait(0.02):
            _thread_times([me] + [c.pid for c in multiprocessing.active_children()], seen)
            names.update({str(t.native_id): t.name for t in threading.enumerate()})

    sampler = threading.Thread(target=sample, name="sampler", daemon=True)
    sampler.start()
    cpu0 = _process_cpu()
    t0 = time.perf_counter()
    n = sum(1 for _ in pipe.run(frames))
    wall = time.perf_counter() - t0
    done.set()
    sampler.join()
    cpu = _process_cpu() - cpu0  # the worker process has ended: its CPU is in
    rows: dict[str, list[float]] = {}
    for key, (name, run, wait) in seen.items():
        _, run0, wait0 = before.get(key, (name, 0.0, 0.0))
        if key[0] != me:
            label = f"worker: {'main' if key[1] == str(key[0]) else name}"
        else:  # a thread that Python does not list was started by a library
            label = names.get(key[1], f"{name} (native)")
        row = rows.setdefault(label, [0.0, 0.0])
        row[0] += run - run0
        row[1] += wait - wait0
    print(f"\n{path.stem}: {n} frames, {n / wall:.1f} fps, wall {1e3 * wall / n:.2f} ms a "
          f"frame, capacity of two cores {2e3 * wall / n:.2f}")
    print(f"{'thread':<24} {'CPU ms/frame':>13} {'wait for a core':>16}")
    for label, (run, wait) in sorted(rows.items(), key=lambda kv: -kv[1][0]):
        if run * 1e3 / n >= 0.05 and label != "sampler":
            print(f"{label:<24} {1e3 * run / n:>13.2f} {1e3 * wait / n:>16.2f}")
    total = sum(r[0] for r in rows.values())
    sampler_cpu = rows.get("sampler", [0.0])[0]
    # threads that began and ended between two samples (a library's short-lived helpers)
    unseen = cpu - total - sampler_cpu
    if unseen * 1e3 / n >= 0.05:
        print(f"{'not sampled':<24} {1e3 * unseen / n:>13.2f}")
    print(f"{'all':<24} {1e3 * max(cpu - sampler_cpu, total) / n:>13.2f}")


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("clips", nargs="*")
    p.add_argument("--dir", type=Path, default=SAMPLES,
                   help="the folder of the clips and their truth (default: the sample clips; "
                        "scripts/make_variants.py makes others)")
    p.add_argument("--overlay", action="store_true")
    p.add_argument("--one-process", action="store_true",
                   help="every stage in this process (not the later ones in a worker process)")
    p.add_argument("--live", action="store_true",
                   help="feed the clip at camera speed and measure each score's delay")
    p.add_argument("--threads", action="store_true",
                   help="each thread's CPU and wait for a core, in ms a frame (Linux)")
    p.add_argument("--given", action="store_true",
                   help="also run with each frame's detections found beforehand: the speed "
                        "the stages after detection allow")
    p.add_argument("--exposure", type=float, default=1.0, metavar="G",
                   help="every frame's pixels times G before the pipeline sees them")
    p.add_argument("--repeat", type=int, default=1, metavar="N",
                   help="decode and run each clip N times in turns; give the median speeds")
    args = p.parse_args(argv)
    if args.repeat < 1:
        p.error("--repeat must be at least 1")
    ready_kernels()
    paths = clip_paths(p, args.dir, args.clips)
    if args.live:
        main_live(paths)
        return
    if args.given:
        main_given(paths, args.repeat)
        return
    if args.threads:
        if not Path("/proc/self/task").exists():
            p.error("--threads reads /proc (Linux)")
        for path in paths:
            run_threads(path)
        return
    print(f"{'clip':<18} {'size':>10} {'calib s':>8} {'calib mm':>9} {'setup s':>8} "
          f"{'pipeline fps':>13} "
          f"{'decode fps':>11} {'share':>6} {'id sw':>6} {'colour':>8} {'score':>9} {'truth':>9} "
          f"{'pots':>5} {'shots':>6}")
    right = 0
    for path in paths:
        try:
            r = run_clip(path, args.overlay, split=not args.one_process, repeat=args.repeat,
                         exposure=args.exposure)
        except InputError as exc:
            print(f"{path.stem:<18} failed: {exc}", flush=True)
            continue
        ok = r["score"] == r["true_score"]
        right += ok
        print(f"{r['clip']:<18} {r['size']:>10} {r['cal_s']:>8.2f} {r['cal_mm']:>9.2f} "
              f"{r['setup_s']:>8.2f} {r['fps']:>13.1f} {r['decode_fps']:>11.1f} "
              f"{r['fps'] / r['decode_fps']:>6.2f} "
              f"{r['id_switches']:>6} "
              f"{100 * r['track_colour']:>7.2f}% "
              f"{str(r['score']):>9} "
              f"{str(r['true_score']):>9} {'ok' if r['pots_ok'] else 'WRONG':>5} "
              f"{'ok' if r['shots_ok'] else 'WRONG':>6}", flush=True)
    print(f"final score right on {right} of {len(paths)} clips")


if __name__ == "__main__":
    main()
