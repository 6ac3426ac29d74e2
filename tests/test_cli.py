"""The command line: help for newcomers, one-line errors and non-zero exits on bad input."""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tracker.cli import main

ROOT = Path(__file__).resolve().parents[1]


def run(*args):
    return subprocess.run([sys.executable, "-m", "tracker.cli", *args], capture_output=True,
                          text=True, timeout=120)


def test_help_lists_the_commands():
    r = run("--help")
    assert r.returncode == 0
    for cmd in ("simulate", "calibrate", "referee"):
        assert cmd in r.stdout


def test_every_command_takes_quiet():
    import argparse

    from tracker.cli import COMMANDS, build_parser

    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    assert set(sub.choices) == set(COMMANDS)
    for name, parser in sub.choices.items():
        assert "--quiet" in parser.format_help(), name


def test_version_names_the_installed_version():
    from importlib.metadata import version

    r = run("--version")
    assert r.returncode == 0 and r.stdout.split() == ["cueball", version("cueball")]


@pytest.mark.parametrize("args,needle", [
    (["simulate", "no_such_scenario"], "unknown scenario"),
    (["simulate", "in_off", "--tilt", "80"], "--tilt"),
    (["simulate", "in_off", "--resolution", "huge"], "resolution"),
    (["referee", "/nonexistent/shots.jsonl"], "shots.jsonl"),
])
def test_bad_input_gives_one_line_and_exit_2(args, needle, capsys):
    assert main(args) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and needle in err and "Traceback" not in err


@pytest.mark.parametrize("command", ["track", "calibrate"])
def test_a_file_that_is_not_a_video_is_said_in_one_line_of_our_own(tmp_path, command):
    bad = tmp_path / "bad.mp4"
    bad.write_bytes(bytes(range(256)) * 20)
    r = subprocess.run([sys.executable, "-m", "tracker.cli", command, str(bad)],
                       capture_output=True, text=True, timeout=120, cwd=tmp_path,
                       env={k: v for k, v in os.environ.items() if k != "OPENCV_FFMPEG_LOGLEVEL"})
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert lines == [f"cueball {command}: error: cannot open {bad} as a video"], r.stderr


def test_simulate_lists_scenarios(capsys):
    assert main(["simulate", "--list"]) == 0
    out = capsys.readouterr().out
    assert "break_off" in out and "jump_shot" in out


def test_a_slow_step_is_said_and_a_quick_one_is_not(capsys):
    import time

    from tracker.cli import said_if_slow

    with said_if_slow("waiting on the slow step", after_s=0.05):
        time.sleep(0.3)
    with said_if_slow("not said: quick", after_s=0.5):
        pass
    with said_if_slow("not said: quiet", after_s=0.05, quiet=True):
        time.sleep(0.2)
    time.sleep(0.6)  # a timer left running would have spoken by now
    assert capsys.readouterr().err.splitlines() == ["waiting on the slow step"]


def test_detect_on_a_machine_without_the_compiled_code_says_why_it_waits(tmp_path):
    """``cueball detect`` with numba's cache empty (a machine's first run): it says that it
    readies the compiled code, then finds all 22 balls of the standard layout."""
    import json
    import os

    import cv2

    from tracker.sim.render import Renderer
    from tracker.sim.scenarios import overhead_camera
    from tracker.sim.script import standard_layout

    pytest.importorskip("numba", reason="numba is not installed: nothing is compiled")
    cam = overhead_camera((1920, 1080), 3000.0, 0.0, -0.12)
    b = standard_layout()
    pos = b.pos.copy()
    pos[0, :2] = pos[b.classes.index("brown"), :2] + [0.0, -200.0]  # the white in the D
    frame, _ = Renderer(cam).render(list(b.classes), pos, frame_index=3)
    still = tmp_path / "table.png"
    cv2.imwrite(str(still), frame)
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba-cache")}
    r = subprocess.run([sys.executable, "-m", "tracker.cli", "detect", str(still)],
                       capture_output=True, text=True, timeout=300, env=env)
    assert r.returncode == 0, r.stderr
    assert "readying the ball detector's compiled code" in r.stderr
    found = sorted(b["ball"] for b in json.loads(r.stdout)["balls"])
    assert found == sorted(["white", *["red"] * 15, "yellow", "green", "brown", "blue", "pink",
                            "black"])


@pytest.mark.parametrize("scale", [1.0, 1.5])
def test_detect_says_when_the_balls_are_far_too_big_for_a_snooker_table(tmp_path, capsys,
                                                                        scale):
    """``cueball detect`` on a still whose balls are 1.5 times a snooker ball's size for the
    table (a pool table taken for a snooker table) says so in one line and still answers
    (exit 0); on a snooker table's still it says nothing."""
    import json
    from dataclasses import replace

    import cv2
    import numpy as np

    from calibration.calibrate import Calibration
    from calibration.specs import SNOOKER
    from tracker.sim.render import Renderer
    from tracker.sim.scenarios import overhead_camera

    cam = overhead_camera((1920, 1080), 3000.0, 0.0, -0.12)
    table = replace(SNOOKER, ball_diameter_mm=SNOOKER.ball_diameter_mm * scale)
    xs, ys = np.meshgrid([400.0, 900.0, 1400.0], [700.0, 1300.0, 1900.0])
    pos = np.c_[xs.ravel(), ys.ravel(), np.full(9, table.ball_radius_mm)]
    classes = ["white", "yellow", "green", "brown", "blue", "pink", "black", "red", "red"]
    frame, _ = Renderer(cam, table).render(classes, pos)
    still, cal = tmp_path / "table.png", tmp_path / "cal.json"
    cv2.imwrite(str(still), frame)
    cal.write_text(json.dumps(Calibration.from_camera(cam).to_dict()))
    assert main(["detect", str(still), "--calibration", str(cal), "-o",
                 str(tmp_path / "balls.json")]) == 0
    err = [line for line in capsys.readouterr().err.splitlines()
           if "readying" not in line]
    if scale > 1:
        assert len(err) == 1 and err[0].startswith("cueball detect: warning: ")
        assert "pool table" in err[0]
    else:
        assert err == []
    assert len(json.loads((tmp_path / "balls.json").read_text())["balls"]) == 9


@pytest.mark.slow
def test_track_joins_the_last_black_given_only_the_score_and_shows_it_from_the_start(tmp_path):
    """``cueball track black_ending.mp4 --score 140 0``: the clip starts with only the black
    left, read from the picture; the frame ends 147-0 as the truth has it, and the overlay's
    board shows 140-0 from the first frame."""
    import json

    from tracker.io.video import read_frames
    from tracker.render.overlay import Scoreboard, draw_scoreboard, scoreboard_rect

    clip = ROOT / "sample_videos" / "black_ending.mp4"
    events, overlay = tmp_path / "e.jsonl", tmp_path / "o.mp4"
    r = subprocess.run([sys.executable, "-m", "tracker.cli", "track", str(clip), "--score",
                        "140", "0", "--events", str(events), "--overlay", str(overlay),
                        "--quiet"], capture_output=True, text=True, timeout=600,
                       cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip().endswith("score 147-0") and r.stderr == ""
    log = [json.loads(line) for line in events.read_text().splitlines()]
    assert log[1]["type"] == "record" and log[1]["record"]["colours_on_table"] == ["black"]
    first = next(read_frames(overlay))
    x, y, w, h = scoreboard_rect(first.shape)

    def off_by(board: Scoreboard) -> float:
        drawn = draw_scoreboard(np.zeros_like(first), board)
        return float(np.abs(first[y:y + h, x:x + w].astype(int) - drawn[y:y + h, x:x + w]).mean())

    assert off_by(Scoreboard(score=(140, 0))) < off_by(Scoreboard(score=(0, 0)))
