"""``cueball batch`` over the sample clips: one video at a time against ``--jobs N`` at once, in
one run; prints a table (wall time, the speed-up, decode-only time of the same videos for
scale) and checks that the two batches wrote the same events and scores.

    python scripts/bench_batch.py                 # the 12 sample clips, --jobs 1 and 2
    python scripts/bench_batch.py --jobs 4        # against --jobs 4
    python scripts/bench_batch.py --ray           # and --backend ray (needs Ray installed)
    python scripts/bench_batch.py --dir DIR       # the videos of another folder

Events are compared without their wall-clock fields (``wall``, ``source``'s file times): a
video tracked alone and one tracked beside another must give the same record.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import av

ROOT = Path(__file__).resolve().parents[1]
VARYING = ("wall", "elapsed_s", "created")


def decode_seconds(videos: list[Path]) -> float:
    """Wall time to decode every frame of ``videos`` one after another (frame threads)."""
    t0 = time.perf_counter()
    for v in videos:
        with av.open(str(v)) as c:
            s = c.streams.video[0]
            s.thread_type = "AUTO"
            for _ in c.decode(s):
                pass
    return time.perf_counter() - t0


def run_batch(videos: list[Path], out: Path, jobs: int, backend: str = "local") -> float:
    cmd = [sys.executable, "-m", "tracker.cli", "batch", *map(str, videos), "-o", str(out),
           "--jobs", str(jobs), "--backend", backend, "--quiet"]
    t0 = time.perf_counter()
    r = subprocess.run(cmd, capture_output=True, text=True,
                       env={**os.environ, "PYTHONPATH": str(ROOT)})
    wall = time.perf_counter() - t0
    if r.returncode != 0:
        sys.exit(f"bench_batch: {' '.join(cmd)} failed: {r.stderr.strip()[-400:]}")
    return wall


def records(out: Path) -> dict[str, list[dict]]:
    """Each video's events without the fields that tell when they were written."""
    got = {}
    for log in sorted(out.glob("*/events.jsonl")):
        rows = []
        for line in log.read_text().splitlines():
            e = json.loads(line)
            for k in VARYING:
                e.pop(k, None)
            rows.append(e)
        got[log.parent.name] = rows
    return got


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--dir", type=Path, default=ROOT / "sample_videos",
                   help="folder of videos (default: the sample clips)")
    p.add_argument("--jobs", type=int, default=2, help="videos at once in the parallel batch")
    p.add_argument("--ray", action="store_true", help="also run the batch on a local Ray")
    args = p.parse_args(argv)
    videos = sorted(args.dir.glob("*.mp4"))
    if not videos:
        p.error(f"{args.dir}: no .mp4 videos")
    frames = sum(av.open(str(v)).streams.video[0].frames for v in videos)
    decode = decode_seconds(videos)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        one = run_batch(videos, Path(tmp) / "one", 1)
        rows.append(("local, --jobs 1", one))
        many = run_batch(videos, Path(tmp) / "many", args.jobs)
        rows.append((f"local, --jobs {args.jobs}", many))
        same = records(Path(tmp) / "one") == records(Path(tmp) / "many")
        ray_same = None
        if args.ray:
            ray = run_batch(videos, Path(tmp) / "ray", args.jobs, backend="ray")
            rows.append((f"ray, {args.jobs} workers", ray))
            ray_same = records(Path(tmp) / "one") == records(Path(tmp) / "ray")
    print(f"{len(videos)} videos, {frames} frames; decode-only, one after another: "
          f"{decode:.1f} s; {os.cpu_count()} cores")
    print(f"{'batch':<22} {'wall s':>8} {'speed-up':>9} {'fps':>7} {'x decode':>9}")
    for name, wall in rows:
        print(f"{name:<22} {wall:8.1f} {one / wall:9.2f} {frames / wall:7.1f} "
              f"{decode / wall:9.2f}")
    print(f"events and scores the same, --jobs 1 and --jobs {args.jobs}: {'yes' if same else 'NO'}")
    if ray_same is not None:
        print(f"events and scores the same, local and ray: {'yes' if ray_same else 'NO'}")
    return 0 if same and ray_same is not False else 1


if __name__ == "__main__":
    sys.exit(main())
