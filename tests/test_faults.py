"""Faults met by a running ``cueball track``: killed (SIGKILL, SIGTERM), interrupted (SIGINT),
then resumed. Each test runs the real command in a process of its own on a sample clip."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CLIP = ROOT / "sample_videos" / "wrong_ball_first.mp4"

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(),
                                reason="processes are found through /proc")


def track(*args: str, **popen) -> subprocess.Popen:
    """``cueball track`` on this checkout's code, its output piped."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen([sys.executable, "-m", "tracker.cli", "track", *args, "--quiet"],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            **popen)


def children(pid: int) -> list[int]:
    """The live processes whose parent is ``pid``."""
    out = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            stat = Path(f"/proc/{name}/stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        if int(fields[1]) == pid and fields[0] != "Z":
            out.append(int(name))
    return out


def alive(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie waiting to be reaped does not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2] != "Z"


def wait_for_worker(proc: subprocess.Popen, timeout: float = 120.0) -> int:
    """The tracking worker process of ``proc``, once it has been started."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.stderr.read().decode()
        kids = children(proc.pid)
        if kids:
            return kids[0]
        time.sleep(0.05)
    raise AssertionError("no worker process started")


def read_to_eof(stream, timeout: float) -> bool:
    """Whether reading ``stream`` to its end finishes within ``timeout`` seconds."""
    done = threading.Event()

    def read():
        stream.read()
        done.set()

    threading.Thread(target=read, daemon=True).start()
    return done.wait(timeout)


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
def test_a_killed_track_leaves_no_process_and_its_pipes_end(tmp_path, sig):
    proc = track(str(CLIP), "--events", str(tmp_path / "e.jsonl"),
                 "--tracks", str(tmp_path / "t.csv"), "--page", "0")
    try:
        worker = wait_for_worker(proc)
        time.sleep(1.0)  # well into the frames
        proc.send_signal(sig)
        # a caller waiting on the command's output sees its end: no process holds the pipes
        assert read_to_eof(proc.stdout, 10.0), "stdout held open after the kill"
        assert read_to_eof(proc.stderr, 10.0), "stderr held open after the kill"
        proc.wait(timeout=10)
        deadline = time.monotonic() + 10
        while alive(worker) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not alive(worker), "the worker outlived the command"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


@pytest.mark.parametrize(("sig", "when", "status"), [
    (signal.SIGINT, "calibrating", 130), (signal.SIGINT, "tracking", 130),
    (signal.SIGTERM, "tracking", 143)])
def test_an_interrupted_track_stops_in_one_line_and_keeps_its_outputs(tmp_path, sig, when,
                                                                      status):
    events, tracks, overlay = tmp_path / "e.jsonl", tmp_path / "t.csv", tmp_path / "o.mp4"
    events = tmp_path / "out" / "e.jsonl"  # its folder made as the command starts its work
    proc = track(str(CLIP), "--events", str(events), "--tracks", str(tracks),
                 "--overlay", str(overlay))
    try:
        if when == "calibrating":  # the table looked for in the clip's first second
            deadline = time.monotonic() + 60
            while not events.parent.exists() and time.monotonic() < deadline:
                time.sleep(0.01)
            time.sleep(0.3)
        else:
            wait_for_worker(proc)
            time.sleep(1.5)
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    lines = err.decode().splitlines()
    assert proc.returncode == status, err.decode()
    assert len(lines) == 1 and lines[0].startswith("cueball track: "), lines
    if when == "tracking":
        from tracker.outputs.eventlog import read_events, read_tracks
        from tracker.video import probe

        assert read_events(events)[0]["type"] == "calibrated"
        frames = sorted({f for tr in read_tracks(tracks).values() for f in tr.frame})
        assert frames and frames == list(range(frames[0], frames[-1] + 1))
        assert probe(overlay)["frames"] == frames[-1] + 1  # every frame tracked, drawn
