"""The command line: help for newcomers, one-line errors and non-zero exits on bad input."""

import subprocess
import sys

import pytest

from tracker.cli import main


def run(*args):
    return subprocess.run([sys.executable, "-m", "tracker.cli", *args], capture_output=True,
                          text=True, timeout=120)


def test_help_lists_the_commands():
    r = run("--help")
    assert r.returncode == 0
    for cmd in ("simulate", "calibrate", "referee"):
        assert cmd in r.stdout


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


def test_simulate_lists_scenarios(capsys):
    assert main(["simulate", "--list"]) == 0
    out = capsys.readouterr().out
    assert "break_off" in out and "jump_shot" in out
