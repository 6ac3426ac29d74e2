"""Where the pipeline's time goes: CPU ms a frame of each stage of ``Pipeline.process`` on the
sample clips (calibration from the video, frames decoded beforehand); prints a table.

Each stage's time includes the stages indented under it. CPU time (``time.process_time``, all
threads of the process) is steadier than wall-clock time on a busy machine; the best of
``--repeat`` runs is kept.

    python scripts/bench_stages.py                    # break_off and in_off
    python scripts/bench_stages.py clip_4k broadcast  # others
    python scripts/bench_stages.py --opencv-threads 0 # OpenCV's own thread pool on
    CUEBALL_NUMBA=0 python scripts/bench_stages.py    # numpy in place of the compiled kernels

OpenCV's own threads are off by default, as ``Pipeline.run`` has them (handing a small call's
rows to the pool costs more CPU time than it saves).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import functools
import sys
import time
from pathlib import Path

import cv2

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from calibration.find import calibrate_video  # noqa: E402
from calibration.monitor import CalibrationMonitor  # noqa: E402
from tracker.events.shots import ShotTracker  # noqa: E402
from tracker.io.video import probe, read_frames  # noqa: E402
from tracker.pipeline import Frame, Pipeline  # noqa: E402
from tracker.sim.truth import read_truth  # noqa: E402
from tracker.tracking.track import BallTracker  # noqa: E402
from tracker.vision.cloth import ClothLearner  # noqa: E402
from tracker.vision.colour import ColourClassifier  # noqa: E402
from tracker.vision.detect import BallDetector  # noqa: E402
from tracker.vision.discs import BlobDiscs  # noqa: E402
from tracker.vision.lastlook import LastLook  # noqa: E402
from tracker.vision.refine import Refiner  # noqa: E402
from tracker.vision.stages import make_detect  # noqa: E402

SAMPLES = ROOT / "sample_videos"
# (label, class, method); the indent of a label shows what it is part of
STAGES = [("detection", BallDetector, "detect"),
          ("  change search", LastLook, "changed"),
          ("  cloth relearning", ClothLearner, "learn"),
          ("  look", BallDetector, "_balls_in_window"),
          ("    candidates", BallDetector, "_candidates"),
          ("      blob discs", BlobDiscs, "explain"),
          ("    refinement", Refiner, "refine"),
          ("colour", ColourClassifier, "classify"),
          ("tracker", BallTracker, "update"),
          ("shots", ShotTracker, "update"),
          ("camera check", CalibrationMonitor, "check")]
active: set[str] = set()  # the stages being timed now (a stage calling itself counts once)


def timed(spent: dict[str, float]) -> None:
    """Wrap every stage's method so that its CPU time adds up in ``spent`` (outermost calls
    only)."""
    for label, cls, name in STAGES:
        method = getattr(cls, name)

        def wrapper(*args, _method=method, _label=label, **kwargs):
            if _label in active:
                return _method(*args, **kwargs)
            active.add(_label)
            t0 = time.process_time()
            try:
                return _method(*args, **kwargs)
            finally:
                spent[_label] = spent.get(_label, 0.0) + time.process_time() - t0
                active.discard(_label)

        setattr(cls, name, functools.wraps(method)(wrapper))


class InlineThread:
    """In place of the detector's cloth-relearning thread: the relearning done in the calling
    thread, so that its CPU time is its own stage's (the answers are the same)."""

    def submit(self, fn, *args):
        done = concurrent.futures.Future()
        done.set_result(fn(*args))
        return done


def run_clip(path: Path, spent: dict[str, float], repeat: int) -> dict[str, float]:
    """Best of ``repeat`` runs of the pipeline over the clip: stage -> CPU ms a frame."""
    meta, _ = read_truth(path)
    cal = calibrate_video(path)
    frames = list(read_frames(path))
    fps = probe(path)["fps"] or 30.0
    best: dict[str, float] | None = None
    for _ in range(repeat):
        spent.clear()
        pipe = Pipeline(cal, make_detect(cal), players=tuple(meta["players"]))
        for rec in meta.get("prelude", []):
            pipe.referee.feed(rec)
        t0 = time.process_time()
        for k, image in enumerate(frames):
            pipe.process(Frame(k, k / fps, image))
        pipe.finish()
        total = time.process_time() - t0
        ms = {label: 1000 * s / len(frames) for label, s in spent.items()}
        ms["whole pipeline"] = 1000 * total / len(frames)
        if best is None or ms["whole pipeline"] < best["whole pipeline"]:
            best = ms
    return best


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("clips", nargs="*", default=["break_off", "in_off"],
                   help="sample clips, by name (in_off) or path (sample_videos/in_off.mp4)")
    p.add_argument("--repeat", type=int, default=2, help="runs of each clip (the best is kept)")
    p.add_argument("--opencv-threads", type=int, default=1,
                   help="OpenCV's threads (1: off, as Pipeline.run has it; 0: its default pool)")
    args = p.parse_args(argv)
    args.clips = [Path(c).stem if c.endswith(".mp4") else c for c in args.clips]
    for c in args.clips:
        if not (SAMPLES / f"{c}.mp4").exists():
            p.error(f"{c}: no such sample clip in {SAMPLES}")
    ClothLearner._relearner = lambda self: InlineThread()
    if args.opencv_threads > 0:
        cv2.setNumThreads(args.opencv_threads)
    spent: dict[str, float] = {}
    timed(spent)
    cols = {c: run_clip(SAMPLES / f"{c}.mp4", spent, args.repeat) for c in args.clips}
    print(f"{'CPU ms a frame':22}" + "".join(f"{c:>17}" for c in cols))
    for label in ["whole pipeline"] + [s[0] for s in STAGES]:
        print(f"{label:22}" + "".join(f"{cols[c].get(label, 0.0):17.2f}" for c in cols))


if __name__ == "__main__":
    main()
