"""Kill and resume: ``cueball track`` on a sample clip with every output on (events, tracks,
overlay, live page) is killed (SIGKILL, SIGTERM or SIGINT) once its tracks reach a frame picked
at random, then run again with ``--resume``; its outputs are compared with those of a run left
alone. Prints a table, one line a point: the signal, the frame it came at, the frame the
resumed run went on from (after the last shot the log held), whether the events and the tracks
are identical to the run left alone's (and, when they are not, from which frame they differ),
``mm``: the most a ball's position in a frame differs between the two tracks.csv (``other``:
they do not hold the same balls in the same frames and states, row order within a frame aside),
the final scores, the overlay's readable frames after the kill and after the resume beside the
clip's, and whether any process of the run outlived it.

    python scripts/bench_faults.py                     # 20 points on wrong_ball_first
    python scripts/bench_faults.py --points 5 --clip in_off --seed 3
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # this checkout's code, as the runs it starts use
SIGNALS = (signal.SIGKILL, signal.SIGTERM, signal.SIGINT)


def command(clip: Path, out: Path, *extra: str) -> list[str]:
    """``cueball track`` of ``clip`` with every output in folder ``out``."""
    return [sys.executable, "-m", "tracker.cli", "track", str(clip), "--quiet",
            "--events", str(out / "events.jsonl"), "--tracks", str(out / "tracks.csv"),
            "--overlay", str(out / "overlay.mp4"), "--page", "0", *extra]


def _popen(args: list[str]) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen(args, cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, start_new_session=True)


def run_whole(clip: Path, out: Path, *extra: str, timeout: float = 600) -> str:
    """One run to its end; its stderr. RuntimeError if it fails."""
    out.mkdir(parents=True, exist_ok=True)
    proc = _popen(command(clip, out, *extra))
    _, err = proc.communicate(timeout=timeout)
    if proc.returncode != 0:
        raise RuntimeError(f"cueball track failed ({proc.returncode}): {err.decode()}")
    return err.decode()


def last_tracked_frame(path: Path) -> int:
    """The frame of the last whole row of a tracks.csv (-1 before one)."""
    try:
        with open(path, "rb") as fh:
            fh.seek(max(0, fh.seek(0, os.SEEK_END) - 4096))
            lines = fh.read().split(b"\n")[:-1]
    except OSError:
        return -1
    for line in reversed(lines):
        cell = line.split(b",", 1)[0]
        if cell.isdigit():
            return int(cell)
    return -1


def run_killed(clip: Path, out: Path, at_frame: int, sig: int, timeout: float = 600) -> dict:
    """A run sent ``sig`` once its tracks reach ``at_frame``: its exit status, and whether a
    process of its session outlived it (its worker)."""
    out.mkdir(parents=True, exist_ok=True)
    proc = _popen(command(clip, out))
    deadline = time.monotonic() + timeout
    while proc.poll() is None and last_tracked_frame(out / "tracks.csv") < at_frame:
        if time.monotonic() > deadline:
            proc.kill()
            raise RuntimeError("the run never reached its frame")
        time.sleep(0.01)
    proc.send_signal(sig)
    proc.communicate(timeout=60)
    time.sleep(0.5)
    return {"status": proc.returncode, "left": session_processes(proc.pid)}


def session_processes(sid: int) -> list[int]:
    """The live processes of session ``sid`` (a killed run's and its worker's)."""
    out = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                stat = Path(f"/proc/{name}/stat").read_text()
            except OSError:
                continue
            fields = stat[stat.rindex(")") + 2:].split()
            if fields[0] != "Z" and int(fields[3]) == sid:
                out.append(int(name))
    return out


def outputs(out: Path) -> dict:
    """What a run left: its events, its tracks' rows, its overlay's readable frames."""
    from tracker.io.eventlog import read_events
    from tracker.io.video import count_frames

    rows = (out / "tracks.csv").read_text().splitlines()
    return {"events": read_events(out / "events.jsonl"), "tracks": rows,
            "overlay": count_frames(out / "overlay.mp4")}


def first_difference(a: list, b: list, frame_of) -> int | None:
    """The frame of the first item where lists ``a`` and ``b`` differ (None: identical)."""
    for x, y in zip(a, b):
        if x != y:
            return frame_of(x)
    if len(a) != len(b):
        longer = a if len(a) > len(b) else b
        return frame_of(longer[min(len(a), len(b))])
    return None


def track_rows(rows: list[str]) -> dict:
    """{(frame, track_id, ball, state): (x_mm, y_mm)} of a tracks.csv's rows."""
    out = {}
    for row in rows[1:]:
        c = row.split(",")
        out[c[0], c[2], c[3], c[8]] = (float(c[4] or "nan"), float(c[5] or "nan"))
    return out


def tracks_gap_mm(a: list[str], b: list[str]) -> float | None:
    """The most two tracks.csv's positions of one ball in one frame differ (mm), None when
    they do not hold the same balls in the same frames and states (row order aside)."""
    ra, rb = track_rows(a), track_rows(b)
    if ra.keys() != rb.keys():
        return None
    gaps = [max(abs(p - q) for p, q in zip(ra[k], rb[k])) for k in ra
            if all(v == v for v in ra[k] + rb[k])]
    return max(gaps, default=0.0)


def compare(alone: dict, resumed: dict) -> dict:
    """How a resumed run's outputs compare with those of a run left alone."""
    def score(events):
        scores = [e for e in events if e["type"] == "score"]
        return tuple(scores[-1]["score"]) if scores else (0, 0)

    def row_frame(row):
        cell = row.split(",", 1)[0]
        return int(cell) if cell.isdigit() else -1

    return {
        "events_from": first_difference(alone["events"], resumed["events"],
                                        lambda e: e.get("frame", -1)),
        "tracks_from": first_difference(alone["tracks"], resumed["tracks"], row_frame),
        "tracks_gap_mm": tracks_gap_mm(alone["tracks"], resumed["tracks"]),
        "score": score(resumed["events"]), "score_alone": score(alone["events"]),
        "overlay": resumed["overlay"], "overlay_alone": alone["overlay"],
    }


def fault_point(clip: Path, out: Path, at_frame: int, sig: int, alone: dict) -> dict:
    """One point: killed at ``at_frame`` by ``sig``, resumed, compared with ``alone``."""
    from tracker.io.eventlog import read_events, resume_state

    killed = run_killed(clip, out, at_frame, sig)
    from tracker.io.video import count_frames

    killed["overlay_killed"] = count_frames(out / "overlay.mp4")
    events = read_events(out / "events.jsonl")
    ends = [i for i, e in enumerate(events) if e["type"] in ("score", "frame_end")]
    killed["resumed_after"] = (resume_state(events[: ends[-1] + 1]).last_frame if ends else -1)
    run_whole(clip, out, "--resume")
    return {**killed, **compare(alone, outputs(out))}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--clip", default="wrong_ball_first")
    ap.add_argument("--points", type=int, default=20)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--dir", default="/tmp/bench_faults")
    args = ap.parse_args()
    from tracker.io.video import probe

    clip = ROOT / "sample_videos" / f"{args.clip}.mp4"
    base = Path(args.dir)
    run_whole(clip, base / "alone")
    alone = outputs(base / "alone")
    last = int(alone["tracks"][-1].split(",", 1)[0])
    rng = random.Random(args.seed)
    print(f"{args.clip}: {probe(clip)['frames']} frames, tracked to frame {last}, "
          f"score {compare(alone, alone)['score']}, overlay {alone['overlay']} frames")
    print(f"{'signal':8} {'at':>4} {'exit':>5} {'from':>5} {'events':>9} {'tracks':>9} {'mm':>6} "
          f"{'score':>7} {'overlay killed/resumed/alone':>29} {'left':>5}")
    for k in range(args.points):
        sig, at = SIGNALS[k % len(SIGNALS)], rng.randint(5, last - 5)
        r = fault_point(clip, base / f"point{k}", at, sig, alone)
        same = lambda d: "same" if d is None else f"from {d}"  # noqa: E731
        gap, score = r["tracks_gap_mm"], "-".join(map(str, r["score"]))
        print(f"{signal.Signals(sig).name:8} {at:4d} {r['status']:5d} {r['resumed_after']:5d} "
              f"{same(r['events_from']):>9} {same(r['tracks_from']):>9} "
              f"{'other' if gap is None else f'{gap:.2f}':>6} "
              f"{score:>7} "
              f"{r['overlay_killed']:>13}/{r['overlay']}/{r['overlay_alone']:<7} "
              f"{len(r['left']):5d}", flush=True)


if __name__ == "__main__":
    main()
