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
