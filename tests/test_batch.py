"""``cueball batch``: the videos it finds, one track process a video, failures said in one line,
finished videos skipped, stopped ones resumed, children that end with the batch."""

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from calibration.errors import InputError
from tracker.cli import main
from tracker.cli.batch import expand_inputs

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_videos"


def _env():
    """This checkout's code first, then what the path held (an optional extra may be there)."""
    extra = os.environ.get("PYTHONPATH")
    return dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT)] + ([extra] if extra else [])))


def batch(*args, cwd=None, **kw):
    env = _env()
    return subprocess.run([sys.executable, "-m", "tracker.cli", "batch", *map(str, args)],
                          capture_output=True, text=True, timeout=600, cwd=cwd, env=env, **kw)


def _touch(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"")
    return path


# ---------------------------------------------------------------------------------------------
# Finding the videos


def test_a_folder_gives_its_video_files_by_name(tmp_path):
    for name in ("b.mp4", "a.MOV", "notes.txt", "c.jpg"):
        _touch(tmp_path / "season" / name)
    _touch(tmp_path / "season" / "sub" / "d.mp4")
    got = [p.name for p, _ in expand_inputs([str(tmp_path / "season")])]
    assert got == ["a.MOV", "b.mp4"]


def test_a_glob_reaches_into_sub_folders_with_two_stars(tmp_path):
    _touch(tmp_path / "x" / "one.mp4")
    _touch(tmp_path / "x" / "deep" / "two.mkv")
    got = [p.name for p, _ in expand_inputs([str(tmp_path / "x" / "**" / "*.m*")])]
    assert sorted(got) == ["one.mp4", "two.mkv"]


def test_a_glob_leaves_out_the_overlays_the_batch_wrote_in_its_own_folder(tmp_path):
    _touch(tmp_path / "v" / "m1.mp4")
    _touch(tmp_path / "v" / "season" / "m1" / "overlay.mp4")
    got = expand_inputs([str(tmp_path / "v" / "**" / "*.mp4")],
                        exclude=(tmp_path / "v" / "season").resolve())
    assert [p.name for p, _ in got] == ["m1.mp4"]


def test_a_list_file_names_videos_relative_to_itself_with_optional_players(tmp_path):
    _touch(tmp_path / "v" / "m1.mp4")
    _touch(tmp_path / "v" / "m2.mp4")
    lst = tmp_path / "list.txt"
    lst.write_text("# the season\nv/m1.mp4\tAnn\tBob\n\nv/m2.mp4\n")
    for arg in (f"@{lst}", str(lst)):
        got = expand_inputs([arg])
        assert [(p.name, pl) for p, pl in got] == [("m1.mp4", ("Ann", "Bob")), ("m2.mp4", None)]


def test_a_video_named_twice_is_tracked_once(tmp_path):
    v = _touch(tmp_path / "m.mp4")
    assert len(expand_inputs([str(v), str(tmp_path), str(tmp_path / "*.mp4")])) == 1


@pytest.mark.parametrize("make,needle", [
    (lambda d: [str(d / "none.mp4")], "no such file or folder"),
    (lambda d: [str(d / "*.avi")], "matches no video file"),
    (lambda d: [str(_touch(d / "empty" / "x.txt").parent)], "no video files"),
    (lambda d: [str(_touch(d / "a" / "m.mp4")), str(_touch(d / "b" / "m.mp4"))],
     "share the output folder"),
    (lambda d: [f"@{d / 'missing.txt'}"], "cannot read the list"),
])
def test_inputs_that_name_no_usable_video_are_refused(tmp_path, make, needle):
    with pytest.raises(InputError, match=needle):
        expand_inputs(make(tmp_path))


@pytest.mark.parametrize("args,needle", [
    (["--jobs", "0"], "--jobs"),
    (["--best-of", "0"], "--best-of"),
    (["--calibration", "/nonexistent/cal.json"], "calibration"),
])
def test_bad_options_give_one_line_and_exit_2(tmp_path, capsys, args, needle):
    v = _touch(tmp_path / "m.mp4")
    assert main(["batch", str(v), "-o", str(tmp_path / "out"), *args]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and needle in err


def test_the_ray_backend_without_ray_says_how_to_install_it(tmp_path, capsys):
    try:
        import ray  # noqa: F401
        pytest.skip("ray is installed")
    except ImportError:
        pass
    v = _touch(tmp_path / "m.mp4")
    assert main(["batch", str(v), "-o", str(tmp_path / "out"), "--backend", "ray"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == "cueball batch: error: the ray backend needs Ray: pip install 'cueball[ray]'"


# ---------------------------------------------------------------------------------------------
# Running the videos


@pytest.fixture(scope="module")
def first_run(tmp_path_factory):
    """A batch of one sample clip and one file that is not a video, two at once."""
    tmp = tmp_path_factory.mktemp("batch")
    videos = tmp / "videos"
    videos.mkdir()
    shutil.copy(SAMPLES / "in_off.mp4", videos / "in_off.mp4")
    (videos / "broken.mp4").write_bytes(bytes(range(256)) * 20)
    out = tmp / "season"
    r = batch(videos, "-o", out, "--jobs", "2", "--players", "Ann", "Bob", "--quiet")
    return videos, out, r


def test_a_failed_video_is_said_in_one_line_and_the_others_go_on(first_run):
    videos, out, r = first_run
    assert r.returncode == 1, r.stderr
    failed = [ln for ln in r.stdout.splitlines() if ln.startswith("broken:")]
    assert failed == [f"broken: failed: cueball track: error: cannot open "
                      f"{(videos / 'broken.mp4').resolve()} as a video"], r.stdout
    assert not (out / "broken" / "done.json").exists()
    truth = json.loads((SAMPLES / "in_off.truth.json").read_text())
    done = json.loads((out / "in_off" / "done.json").read_text())
    assert done["score"] == truth["final_score"] and done["players"] == ["Ann", "Bob"]
    assert f"in_off: done, score {truth['final_score'][0]}-{truth['final_score'][1]}" in r.stdout
    for name in ("events.jsonl", "tracks.csv", "report.html", "track.log"):
        assert (out / "in_off" / name).stat().st_size > 0, name
    assert not (out / "in_off" / "overlay.mp4").exists()


def test_the_index_lists_the_finished_match_with_a_link_to_its_report(first_run):
    _, out, _ = first_run
    page = (out / "index.html").read_text()
    assert '<a href="in_off/report.html">in_off</a>' in page and "broken" not in page
    rows = (out / "matches.csv").read_text().splitlines()
    assert len(rows) == 2 and rows[1].startswith("in_off,") and ",Ann,Bob," in rows[1]
    assert "Ann v Bob" in (out / "in_off" / "report.html").read_text()


def test_a_finished_video_is_skipped_when_the_batch_runs_again(first_run):
    videos, out, _ = first_run
    log = out / "in_off" / "events.jsonl"
    before = (log.stat().st_mtime_ns, log.read_bytes())
    r = batch(videos / "in_off.mp4", "-o", out, "--quiet")
    assert r.returncode == 0, r.stderr
    assert "1 of 1 videos done before: skipped" in r.stderr
    assert (log.stat().st_mtime_ns, log.read_bytes()) == before


@pytest.mark.slow
def test_a_video_stopped_half_way_resumes_from_its_event_log(first_run, tmp_path):
    videos, out, _ = first_run
    season = tmp_path / "season"
    shutil.copytree(out / "in_off", season / "in_off")
    full = (season / "in_off" / "events.jsonl").read_bytes()
    (season / "in_off" / "done.json").unlink()
    (season / "in_off" / "report.html").unlink()
    # the log of a run stopped during the first shot, its last line torn
    lines = full.splitlines(keepends=True)
    start = next(i for i, ln in enumerate(lines) if b'"shot_start"' in ln)
    (season / "in_off" / "events.jsonl").write_bytes(b"".join(lines[:start + 1]) + b'{"ty')
    r = batch(videos / "in_off.mp4", "-o", season, "--players", "Ann", "Bob", "--quiet")
    assert r.returncode == 0, r.stderr
    assert "in_off: done, score 0-4 (resumed)" in r.stdout
    assert (season / "in_off" / "events.jsonl").read_bytes() == full
    assert (season / "in_off" / "done.json").exists()


def _children(pid: int) -> list[int]:
    kids = []
    try:
        for task in Path(f"/proc/{pid}/task").iterdir():
            kids += [int(c) for c in (task / "children").read_text().split()]
    except FileNotFoundError:  # gone meanwhile
        pass
    return kids


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


def _start_batch(tmp_path):
    env = _env()
    proc = subprocess.Popen([sys.executable, "-m", "tracker.cli", "batch",
                             str(SAMPLES / "wrong_ball_first.mp4"), "-o", str(tmp_path / "s"),
                             "--quiet"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        kids = _children(proc.pid) if proc.poll() is None else []
        # the track process and the worker it forks once it tracks
        grandkids = [g for k in kids if _alive(k) for g in _children(k)]
        if grandkids:
            return proc, kids + grandkids
        time.sleep(0.05)
    proc.kill()
    pytest.fail("the batch started no track process")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_a_stopped_batch_stops_its_track_processes_and_exits_130(tmp_path, sig):
    proc, kids = _start_batch(tmp_path)
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "stopped" in err
    assert not any(_alive(k) for k in kids)
    assert not (tmp_path / "s" / "wrong_ball_first" / "done.json").exists()
    assert (tmp_path / "s" / "index.html").exists()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_the_track_processes_die_with_a_killed_batch(tmp_path):
    proc, kids = _start_batch(tmp_path)
    proc.kill()
    proc.wait(timeout=10)
    proc.stdout.close()
    proc.stderr.close()
    deadline = time.monotonic() + 10
    while any(_alive(k) for k in kids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(_alive(k) for k in kids)


@pytest.mark.slow
def test_the_ray_backend_writes_the_same_outputs_as_the_local_one(first_run, tmp_path):
    pytest.importorskip("ray", reason="ray is not installed (the 'ray' extra)")
    videos, out, _ = first_run
    r = batch(videos / "in_off.mp4", "-o", tmp_path / "ray", "--backend", "ray", "--jobs", "2",
              "--players", "Ann", "Bob", "--quiet")
    assert r.returncode == 0, r.stderr
    for name in ("events.jsonl", "tracks.csv", "report.html", "done.json"):
        assert (tmp_path / "ray" / "in_off" / name).read_bytes() == \
               (out / "in_off" / name).read_bytes(), name
