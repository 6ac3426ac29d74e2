"""Faults met by a running ``cueball track``: killed (SIGKILL, SIGTERM), interrupted (SIGINT),
then resumed. Each test runs the real command in a process of its own on a sample clip."""

from __future__ import annotations

import os
import re
import signal
import socket
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


def descendants(pid: int) -> list[int]:
    """The live processes under ``pid`` (its children, theirs, ...)."""
    out, todo = [], [pid]
    while todo:
        kids = children(todo.pop())
        out += kids
        todo += kids
    return out


def wait_for_worker(proc: subprocess.Popen, tracks: Path, timeout: float = 120.0) -> list[int]:
    """The processes under ``proc`` once it is tracking (``tracks`` has rows of two frames)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.stderr.read().decode()
        if tracks.exists() and len(tracks.read_text().splitlines()) > 30:
            kids = descendants(proc.pid)
            if kids:
                return kids
        time.sleep(0.05)
    raise AssertionError("the run did not start tracking")


def read_to_eof(stream, timeout: float) -> bytes | None:
    """What reading ``stream`` to its end gives, None if it does not end within ``timeout``
    seconds."""
    got = []
    done = threading.Event()

    def read():
        got.append(stream.read())
        done.set()

    threading.Thread(target=read, daemon=True).start()
    return got[0] if done.wait(timeout) else None


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
def test_a_killed_track_leaves_no_process_and_its_pipes_end(tmp_path, sig):
    proc = track(str(CLIP), "--events", str(tmp_path / "e.jsonl"),
                 "--tracks", str(tmp_path / "t.csv"), "--page", "0")
    try:
        workers = wait_for_worker(proc, tmp_path / "t.csv")
        time.sleep(0.5)  # well into the frames
        proc.send_signal(sig)
        # a caller waiting on the command's output sees its end: no process holds the pipes
        assert read_to_eof(proc.stdout, 10.0) is not None, "stdout held open after the kill"
        err = read_to_eof(proc.stderr, 10.0)
        assert err is not None, "stderr held open after the kill"
        proc.wait(timeout=10)
        deadline = time.monotonic() + 10
        while any(map(alive, workers)) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not any(map(alive, workers)), "a worker outlived the command"
        # nor is the page's port held: the next run may serve on it
        port = int(re.search(r"live scoreboard page: http://[^:]+:(\d+)/", err.decode())[1])
        with socket.socket() as again:
            again.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            again.bind(("127.0.0.1", port))
            again.listen()
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
            wait_for_worker(proc, tracks)
            time.sleep(0.5)
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
        from tracker.io.eventlog import read_events, read_tracks
        from tracker.io.video import count_frames

        assert read_events(events)[0]["type"] == "calibrated"
        frames = sorted({f for tr in read_tracks(tracks).values() for f in tr.frame})
        assert frames and frames == list(range(frames[0], frames[-1] + 1))
        assert count_frames(overlay) == frames[-1] + 1  # every frame tracked, drawn


def _log_of(source: Path, path: Path) -> bytes:
    """A short event log of ``source`` at ``path`` (as a run stopped after its first shot
    leaves it); its bytes."""
    import json

    from tracker.io.video import source_identity

    events = [{"type": "calibrated", "frame": 0, "t": 0.0, "reprojection_error_mm": 0.5,
               "source": source_identity(str(source))},
              {"type": "record", "frame": 0, "t": 0.0, "record": {
                  "type": "frame_start", "players": ["Ann", "Bob"], "breaker": 0, "reds": 15}},
              {"type": "shot_start", "frame": 58, "t": 1.93, "shot": 1}]
    path.write_text("".join(json.dumps(e) + "\n" for e in events))
    return path.read_bytes()


def test_resuming_the_log_of_another_source_is_refused_in_one_line(tmp_path):
    log = tmp_path / "e.jsonl"
    before = _log_of(ROOT / "sample_videos" / "in_off.mp4", log)
    proc = track(str(CLIP), "--events", str(log), "--resume")
    out, err = proc.communicate(timeout=120)
    lines = err.decode().splitlines()
    assert proc.returncode == 2 and len(lines) == 1, lines
    assert "another source" in lines[0] and str(log) in lines[0]
    assert log.read_bytes() == before


def test_a_resume_whose_page_port_is_taken_leaves_the_log_as_it_was(tmp_path):
    log = tmp_path / "e.jsonl"
    before = _log_of(CLIP, log)
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        proc = track(str(CLIP), "--events", str(log), "--resume",
                     "--page", str(busy.getsockname()[1]))
        out, err = proc.communicate(timeout=300)
    lines = err.decode().splitlines()
    assert proc.returncode == 2 and len(lines) == 1 and "live page" in lines[0], lines
    assert log.read_bytes() == before


def _bench():
    import importlib.util

    spec = importlib.util.spec_from_file_location("bench_faults",
                                                  ROOT / "scripts" / "bench_faults.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    return bench


@pytest.mark.slow
def test_killed_and_resumed_runs_give_every_output_of_a_run_left_alone(tmp_path):
    """Killed in the clip's one shot (resumed from its start) and after it (resumed after its
    score, the log's last shot), every output on, then resumed: the events are the very same,
    the tracks hold the same balls in the same frames (positions within a millimetre: the
    tracker's filters start afresh at the resume), the overlay has every frame, the page shows
    the log's score and names at once."""
    import json
    import urllib.request

    from tracker.io.video import count_frames

    bench = _bench()
    bench.run_whole(CLIP, tmp_path / "alone")
    alone = bench.outputs(tmp_path / "alone")
    for sig, at in ((signal.SIGTERM, 120), (signal.SIGKILL, 215)):
        out = tmp_path / f"{sig.name}_{at}"
        killed = bench.run_killed(CLIP, out, at, sig)
        assert killed["left"] == [], "a process outlived the killed run"
        if sig == signal.SIGKILL:
            assert count_frames(out / "overlay.mp4") > 0, "the killed run's overlay unreadable"
        proc = subprocess.Popen(bench.command(CLIP, out, "--resume"), cwd=ROOT,
                                env={**os.environ, "PYTHONPATH": str(ROOT)},
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        line = proc.stderr.readline().decode()
        assert line.startswith("live scoreboard page: "), line
        state = json.loads(urllib.request.urlopen(line.split(": ", 1)[1].strip() + "state",
                                                  timeout=10).read())
        _, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, err.decode()
        if at > 199:  # resumed after the shot's score: the page shows it before any frame
            assert state["score"] == [0, 5] and state["players"] == ["Player 1", "Player 2"]
        got = bench.compare(alone, bench.outputs(out))
        assert got["events_from"] is None
        assert got["tracks_gap_mm"] is not None and got["tracks_gap_mm"] < 1.0
        assert got["overlay"] == alone["overlay"] == 233
