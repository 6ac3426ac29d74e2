"""Every input checked where it enters: a bad calibration, image, output path, port or event log
gives one line naming the file, the field and what was expected (exit 2, no traceback), and a
good one still works. Fuzzers over calibration JSON and event logs hold that for any input."""

import functools
import json
import os
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import cv2
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from calibration.calibrate import Calibration
from calibration.errors import InputError
from calibration.images import header_size, read_colour_image, read_image
from calibration.synthetic import render_table, scene_cameras
from tracker.cli import main
from tracker.io import checks
from tracker.io.eventlog import read_events, resume_state

ROOT = Path(__file__).resolve().parents[1]
CLIP = ROOT / "sample_videos" / "in_off.mp4"  # 1920x1080
TRUTH = ROOT / "sample_videos" / "in_off.truth.json"


def cli(*args, cwd=None, timeout=300):
    """``cueball ARGS`` in a process of its own: (exit status, stderr lines)."""
    r = subprocess.run([sys.executable, "-m", "tracker.cli", *map(str, args)],
                       capture_output=True, text=True, timeout=timeout, cwd=cwd,
                       env={**os.environ, "PYTHONPATH": str(ROOT)})
    return r.returncode, r.stderr.strip().splitlines()


def in_process(capsys, *args):
    """``cueball ARGS`` in this process (what a traceback would escape): (exit status, stderr
    lines)."""
    status = main([str(a) for a in args])
    return status, capsys.readouterr().err.strip().splitlines()


def one_line(status_and_lines, *needles):
    status, lines = status_and_lines
    assert status == 2, lines
    assert len(lines) == 1, lines
    assert "Traceback" not in lines[0]
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


# -- calibration files -------------------------------------------------------------------------
@functools.cache
def _calibration_json(name: str) -> str:
    return json.dumps(Calibration.from_camera(scene_cameras()[name]).to_dict())


def good_calibration(name="overhead") -> dict:
    return json.loads(_calibration_json(name))


def _set(field, value):
    def change(d):
        d[field] = value
    return change


def _set_entry(field, i, j, value):
    def change(d):
        d[field][i][j] = value
    return change


BAD_CALIBRATIONS = {
    "singular homography": (_set("H_table_to_image", [[1, 2, 3], [2, 4, 6], [0, 0, 1]]),
                            "H_table_to_image is singular"),
    "zero homography": (_set("H_table_to_image", [[0, 0, 0]] * 3),
                        "H_table_to_image is singular"),
    "infinite homography": (_set_entry("H_table_to_image", 0, 0, float("inf")),
                            "H_table_to_image must be a 3x3 list of finite numbers"),
    "NaN homography": (_set_entry("H_table_to_image", 1, 2, float("nan")),
                       "H_table_to_image must be"),
    "homography of strings": (_set("H_table_to_image", [["1", "0", "0"]] * 3),
                              "H_table_to_image must be"),
    "table behind the camera": (_set("H_table_to_image", [[1, 0, 0], [0, 1, 0], [-1e-3, 0, 1]]),
                                "behind the camera"),
    "string image size": (_set("image_size", "1920x1080"), "image_size must be [width, height]"),
    "negative image size": (_set("image_size", [-1920, 1080]), "image_size"),
    "fractional image size": (_set("image_size", [1920.5, 1080]), "image_size"),
    "three image sizes": (_set("image_size", [1920, 1080, 3]), "image_size"),
    "null camera matrix": (_set("camera_matrix", None),
                           "dist_coeffs is given but camera_matrix is not"),
    "camera matrix of zeros": (_set("camera_matrix", [[0, 0, 0]] * 3), "camera_matrix must be"),
    "camera matrix with NaN": (_set_entry("camera_matrix", 0, 0, float("nan")),
                               "camera_matrix must be"),
    "principal point off the image": (_set_entry("camera_matrix", 0, 2, 1e5),
                                      "principal point"),
    "lens coefficients of 1e6": (_set("dist_coeffs", [1e6, 0, 0, 0, 0]), "dist_coeffs"),
    "a lens folding the picture": (_set("dist_coeffs", [-2.0, 0, 0, 0, 0]), "fold"),
    "twelve lens coefficients": (_set("dist_coeffs", [0.0] * 12), "1 to 5 finite numbers"),
    "an integer too big for a float": (_set("dist_coeffs", [10**400, 0, 0, 0, 0]),
                                       "dist_coeffs"),
    "rvec without tvec": (_set("tvec_mm", None), "rvec is given but tvec_mm is not"),
    "string error": (_set("reprojection_error_mm", "small"), "reprojection_error_mm"),
    "landmarks a list": (_set("landmarks", [1, 2]), "landmarks must be a JSON object"),
    "no homography": (lambda d: d.pop("H_table_to_image"), "lacks H_table_to_image"),
}


@pytest.mark.parametrize("case", list(BAD_CALIBRATIONS))
def test_a_bad_calibration_is_refused_in_one_line_naming_the_file_and_field(case, tmp_path):
    change, needle = BAD_CALIBRATIONS[case]
    d = good_calibration()
    change(d)
    path = tmp_path / "cal.json"
    path.write_text(json.dumps(d))
    with pytest.raises(InputError) as err:
        Calibration.load(path)
    message = str(err.value)
    assert "\n" not in message and needle in message and str(path) in message, message


@pytest.mark.parametrize("name", list(scene_cameras()))
def test_a_good_calibration_loads_back_the_same(name, tmp_path):
    cal = Calibration.from_camera(scene_cameras()[name])
    cal.save(tmp_path / "cal.json")
    back = Calibration.load(tmp_path / "cal.json")
    assert back.image_size == cal.image_size
    np.testing.assert_allclose(back.H_table_to_image, cal.H_table_to_image)
    np.testing.assert_allclose(back.dist_coeffs, cal.dist_coeffs)


@pytest.mark.parametrize("text,needle", [
    ('{"H_table_to_image": ' + "[" * 100_000 + "]" * 100_000 + "}", "nested too deeply"),
    ("[1, 2, 3]", "must hold a JSON object"),
    ("{not json", "is not JSON"),
])
def test_a_calibration_that_is_no_json_object_is_refused_in_one_line(text, needle, tmp_path):
    path = tmp_path / "cal.json"
    path.write_text(text)
    with pytest.raises(InputError, match=needle):
        Calibration.load(path)


def test_a_calibration_that_is_not_utf8_is_refused_in_one_line(tmp_path):
    path = tmp_path / "cal.json"
    path.write_bytes(b'{"image_size": "\xff\xfe"}')
    with pytest.raises(InputError, match="not UTF-8"):
        Calibration.load(path)


def test_lens_coefficients_of_a_real_wide_lens_are_taken():
    d = good_calibration("overhead")
    d["dist_coeffs"] = [-0.3, 0.08, 0.001, -0.001, 0.0]
    assert Calibration.from_dict(d).has_distortion


JSON_SCALARS = (st.none() | st.booleans() | st.integers(-10**30, 10**30)
                | st.floats(allow_nan=True, allow_infinity=True) | st.text(max_size=8))
JSON_VALUES = st.recursive(JSON_SCALARS, lambda inner: st.lists(inner, max_size=4)
                           | st.dictionaries(st.text(max_size=4), inner, max_size=3),
                           max_leaves=12)
CALIBRATION_FIELDS = ("H_table_to_image", "image_size", "camera_matrix", "dist_coeffs", "rvec",
                      "tvec_mm", "reprojection_error_mm", "max_error_mm", "landmarks", "source")


def _number_near(x):
    return st.floats(allow_nan=True, allow_infinity=True) | st.just(0.0) | st.just(-x) \
        | st.floats(-1e6, 1e6).map(lambda k: x * k)


@st.composite
def mutated_calibrations(draw):
    """A good calibration with some fields replaced by any JSON, or single numbers moved."""
    d = good_calibration(draw(st.sampled_from(["overhead", "broadcast"])))
    for _ in range(draw(st.integers(1, 3))):
        field = draw(st.sampled_from(CALIBRATION_FIELDS))
        value = d.get(field)
        if isinstance(value, list) and value and draw(st.booleans()):
            rows = value if isinstance(value[0], list) else [value]
            row = rows[draw(st.integers(0, len(rows) - 1))]
            if isinstance(row, list) and row:
                i = draw(st.integers(0, len(row) - 1))
                if isinstance(row[i], (int, float)):
                    row[i] = draw(_number_near(row[i]))
                    continue
        if draw(st.booleans()):
            d.pop(field, None)
        else:
            d[field] = draw(JSON_VALUES)
    return d


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_calibrations())
def test_fuzzed_calibration_json_is_refused_in_one_line_or_maps_finitely(d):
    try:
        cal = Calibration.from_dict(json.loads(json.dumps(d)), where="calibration c.json")
    except InputError as exc:
        assert "\n" not in str(exc) and str(exc).startswith("calibration c.json")
        return
    pockets = np.array(list(cal.pockets_px().values()))
    assert np.all(np.isfinite(pockets))
    assert np.all(np.isfinite(cal.px_to_table(pockets)))
    assert np.all(np.isfinite(cal.H_image_to_table))


@pytest.mark.parametrize("case", ["infinite homography", "lens coefficients of 1e6"])
def test_detect_refuses_a_bad_calibration_in_one_line_and_writes_no_nan(case, tmp_path):
    change, needle = BAD_CALIBRATIONS[case]
    d = good_calibration("broadcast")
    change(d)
    cal = tmp_path / "cal.json"
    cal.write_text(json.dumps(d))
    image = tmp_path / "table.png"
    cv2.imwrite(str(image), render_table(scene_cameras()["broadcast"]))
    one_line(cli("detect", image, "-c", cal, "-o", tmp_path / "out.json"), needle, str(cal))
    assert not (tmp_path / "out.json").exists()


# -- images ------------------------------------------------------------------------------------
def _png_chunk(kind: bytes, data: bytes) -> bytes:
    return (struct.pack(">I", len(data)) + kind + data
            + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))


@pytest.fixture(scope="module")
def huge_png(tmp_path_factory) -> Path:
    """A whole, decodable 20000x20000 greyscale PNG (a few MB on disk, 1.2 GB decoded)."""
    w = h = 20_000
    packer = zlib.compressobj(1)
    row = bytes(w + 1)
    data = b"".join(packer.compress(row) for _ in range(h)) + packer.flush()
    path = tmp_path_factory.mktemp("images") / "huge.png"
    path.write_bytes(b"\x89PNG\r\n\x1a\n"
                     + _png_chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 0, 0, 0, 0))
                     + _png_chunk(b"IDAT", data) + _png_chunk(b"IEND", b""))
    return path


# The process's own peak memory: /proc's VmHWM starts anew at exec, where ru_maxrss keeps the
# peak of the process it was forked from (pytest's, large after other tests).
PEAK_AFTER_MAIN = """
import re, resource, sys
from tracker.cli import main
status = main(sys.argv[1:])
try:
    with open("/proc/self/status") as fh:
        peak = int(re.search(r"VmHWM:\\s*(\\d+)", fh.read()).group(1))
except OSError:
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(peak, file=sys.stderr)
sys.exit(status)
"""


@pytest.mark.parametrize("command", ["detect", "calibrate"])
def test_an_enormous_image_is_refused_from_its_header_before_memory_is_taken(
        command, huge_png):
    r = subprocess.run(
        [sys.executable, "-c", PEAK_AFTER_MAIN, command, str(huge_png)],
        capture_output=True, text=True, timeout=300, env={**os.environ, "PYTHONPATH": str(ROOT)})
    *lines, peak_kb = r.stderr.strip().splitlines()
    one_line((r.returncode, lines), "20000x20000 pixels")
    assert int(peak_kb) < 1_000_000  # kB: the decoded picture alone would be 1.2 GB


def test_a_picture_over_opencvs_own_limit_in_a_format_without_a_header_check_is_one_line(
        tmp_path):
    path = tmp_path / "table.tiff"
    cv2.imwrite(str(path), render_table(scene_cameras()["broadcast"]))
    assert header_size(path.read_bytes()) is None  # only OpenCV's limit stands in the way
    r = subprocess.run([sys.executable, "-m", "tracker.cli", "detect", str(path)],
                       capture_output=True, text=True, timeout=300,
                       env={**os.environ, "PYTHONPATH": str(ROOT),
                            "OPENCV_IO_MAX_IMAGE_PIXELS": "1000"})
    one_line((r.returncode, r.stderr.strip().splitlines()), "larger than OpenCV takes")


@pytest.mark.parametrize("ext", [".png", ".jpg", ".bmp", ".webp", ".gif"])
def test_an_image_header_gives_the_size_the_decoder_finds(ext):
    image = np.random.default_rng(1).integers(0, 255, (37, 53, 3), dtype=np.uint8)
    if ext == ".gif" and not cv2.haveImageWriter("x.gif"):
        pytest.skip("this OpenCV writes no GIF")
    ok, data = cv2.imencode(ext, image)
    assert ok
    assert header_size(data.tobytes()) == (53, 37)


@pytest.mark.parametrize("command", ["detect", "calibrate"])
def test_a_directory_given_as_the_image_is_refused_in_one_line(command, tmp_path):
    one_line(cli(command, tmp_path), "is a directory")


def test_a_greyscale_image_is_refused_by_detect_in_one_line(tmp_path):
    grey = cv2.cvtColor(render_table(scene_cameras()["broadcast"]), cv2.COLOR_BGR2GRAY)
    path = tmp_path / "grey.png"
    cv2.imwrite(str(path), grey)
    with pytest.raises(InputError, match="greyscale"):
        read_colour_image(path)
    assert read_image(path).shape == grey.shape + (3,)  # the table's outline is found in grey
    one_line(cli("detect", path), "greyscale image")


@pytest.mark.parametrize("command", ["detect", "calibrate"])
def test_a_cut_short_image_gives_our_line_alone_without_the_decoders(command, tmp_path):
    ok, data = cv2.imencode(".png", render_table(scene_cameras()["broadcast"]))
    path = tmp_path / "cut.png"
    path.write_bytes(data.tobytes()[: len(data) // 2])
    one_line(cli(command, path), f"cannot read {path} as an image")


# -- output paths and ports --------------------------------------------------------------------
def test_an_output_path_that_is_a_directory_or_in_no_folder_is_refused(tmp_path):
    with pytest.raises(InputError, match="is a directory"):
        checks.writable_path(tmp_path, "-o")
    with pytest.raises(InputError, match="no folder"):
        checks.writable_path(tmp_path / "missing" / "out.json", "-o")
    assert checks.writable_path(tmp_path / "a" / "b" / "out.json", "-o", make_folders=True)
    assert not (tmp_path / "a").exists()  # checked, not made
    (tmp_path / "file").write_text("x")
    with pytest.raises(InputError, match="is a file, not a folder"):
        checks.writable_path(tmp_path / "file" / "out.json", "-o", make_folders=True)


def test_an_existing_output_is_checked_without_being_changed(tmp_path):
    out = tmp_path / "events.jsonl"
    out.write_text('{"type": "shot_start"}\n')
    checks.writable_path(out, "--events")
    assert out.read_text() == '{"type": "shot_start"}\n'
    assert [p.name for p in tmp_path.iterdir()] == ["events.jsonl"]


def _unwritable_folder(tmp_path) -> Path:
    """A folder this process cannot write in: a read-only one, or /sys when it runs as root."""
    if os.geteuid() != 0:
        folder = tmp_path / "ro"
        folder.mkdir()
        folder.chmod(0o555)
        return folder
    try:
        with open("/sys/cueball-probe", "w"):
            pass
    except OSError:
        return Path("/sys")
    pytest.skip("no folder here refuses writing")


def test_an_output_in_a_read_only_folder_is_refused_in_one_line(tmp_path):
    folder = _unwritable_folder(tmp_path)
    with pytest.raises(InputError, match="cannot write folder"):
        checks.writable_path(folder / "out.json", "-o")


def test_an_output_on_a_full_disk_is_refused_up_front(tmp_path, monkeypatch):
    real = os.statvfs

    class Full:
        def __init__(self, stats):
            self.f_bavail = 0
            self.f_frsize = stats.f_frsize

    monkeypatch.setattr(os, "statvfs", lambda p: Full(real(p)))
    with pytest.raises(InputError, match="is full"):
        checks.writable_path(tmp_path / "out.json", "-o")


def test_video_names_and_ports_are_checked():
    with pytest.raises(InputError, match="expected a video file name"):
        checks.video_path("out.txt", "--overlay")
    assert checks.video_path("out.MP4", "--overlay").name == "out.MP4"
    for bad in (-1, 65536, 99999):
        with pytest.raises(InputError, match="port number from 0 to 65535"):
            checks.port(bad, "--page")
    assert checks.port(0, "--page") == 0 and checks.port(8765, "--page") == 8765


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full")
def test_calibrate_on_a_full_disk_says_so_in_one_line(tmp_path):
    image = tmp_path / "table.png"
    cv2.imwrite(str(image), render_table(scene_cameras()["broadcast"]))
    one_line(cli("calibrate", image, "-o", "/dev/full"), "No space left on device")


@pytest.fixture(scope="module")
def events(tmp_path_factory) -> Path:
    """The in_off clip's true events as an event log."""
    path = tmp_path_factory.mktemp("log") / "events.jsonl"
    meta = json.loads(TRUTH.read_text())
    path.write_text("".join(json.dumps(e) + "\n" for e in meta["events"]))
    return path


def test_report_to_a_directory_a_missing_folder_or_a_full_disk_is_one_line(events, tmp_path,
                                                                          capsys):
    one_line(in_process(capsys, "report", events, "-o", tmp_path), "is a directory")
    one_line(in_process(capsys, "report", events, "-o", tmp_path / "no" / "r.html"),
             "no folder")
    if Path("/dev/full").exists():
        one_line(in_process(capsys, "report", events, "-o", "/dev/full"),
                 "No space left on device")


def _other_size_calibration(tmp_path) -> Path:
    path = tmp_path / "cal_720p.json"
    Calibration.from_camera(scene_cameras()["broadcast"]).save(path)  # 1280x720
    return path


@pytest.mark.parametrize("extra,needle", [
    (["--events", "{tmp}"], "is a directory"),
    (["--tracks", "{tmp}"], "--tracks"),
    (["--overlay", "{tmp}/out.txt"], "expected a video file name ending in .mp4"),
    (["--page", "99999"], "--page 99999: expected a port number"),
    (["--calibration", "{cal}"], "is for 1280x720 images but"),
])
def test_track_refuses_a_bad_output_port_or_calibration_before_it_starts(extra, needle,
                                                                         tmp_path):
    cal = _other_size_calibration(tmp_path)
    args = [a.format(tmp=tmp_path, cal=cal) for a in extra]
    if "--events" not in extra:
        args += ["--events", str(tmp_path / "e.jsonl")]
    one_line(cli("track", CLIP, "--quiet", *args, cwd=tmp_path), needle)
    assert not (tmp_path / "e.jsonl").exists()


@pytest.mark.parametrize("extra,needle", [
    (["--score", "10", "-1"], "--score takes two numbers of 0 or more, got 10 -1"),
    (["--frames", "-2", "0", "--best-of", "5"], "--frames takes two numbers of 0 or more"),
    (["--frames", "1", "0"], "the best of 1 is already won"),
    (["--frames", "4", "2", "--best-of", "7"], "the best of 7 is already won"),
    (["--break", "-5"], "--break takes a number of 0 or more"),
    (["--break", "20"], "--break 20 is more than player 1's score 0"),
    (["--score", "50", "12", "--break", "13", "--to-play", "2"], "player 2's score 12"),
])
def test_track_refuses_a_joined_frame_that_cannot_be_in_one_line(extra, needle, capsys,
                                                                 tmp_path):
    one_line(in_process(capsys, "track", CLIP, "--quiet", "--events", tmp_path / "e.jsonl",
                        *extra), needle)
    assert not (tmp_path / "e.jsonl").exists()


def test_simulate_refuses_an_output_that_is_no_video_name_or_a_directory(tmp_path):
    one_line(cli("simulate", "in_off", "-o", tmp_path / "clip.txt"), "expected a video file")
    one_line(cli("simulate", "in_off", "-o", tmp_path), "expected a video file")
    (tmp_path / "taken").write_text("x")
    one_line(cli("simulate", "--stress", "1", "-o", tmp_path / "taken"), "is a file")


# -- event logs --------------------------------------------------------------------------------
def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def _write(path: Path, events: list, tail: str = "") -> Path:
    path.write_text("".join(json.dumps(e) + "\n" for e in events) + tail)
    return path


def _first(events, kind):
    return next(i for i, e in enumerate(events) if e["type"] == kind)


BAD_EVENTS = {
    "string score": ("score", "score", "3-0", "field 'score' of a score event must be two "
                                               "whole numbers"),
    "null shot": ("shot_start", "shot", None, "field 'shot'"),
    "NaN time": ("contact", "t", float("nan"), "field 't'"),
    "infinite frame": ("shot_end", "frame", float("inf"), "field 'frame'"),
    "NaN deep inside": ("score", "foul", {"points": 4, "reason": "in_off", "x": [float("nan")]},
                        "field 'foul.x[0]' is not a finite number"),
    "foul of the wrong shape": ("score", "foul", "in_off", "field 'foul'"),
    "a list of potted that is a string": ("shot_end", "potted", "red", "field 'potted'"),
    "a player 7": ("score", "player", 7, "field 'player'"),
    "a type that is a number": ("shot_start", "type", 5, "field 'type'"),
}


@pytest.mark.parametrize("case", list(BAD_EVENTS))
def test_report_refuses_a_log_with_a_bad_field_naming_its_line(case, events, tmp_path,
                                                               capsys):
    kind, field, value, needle = BAD_EVENTS[case]
    log = _lines(events)
    i = _first(log, kind)
    log[i][field] = value
    path = _write(tmp_path / "events.jsonl", log)
    line = one_line(in_process(capsys, "report", path, "-o", tmp_path / "r.html"), needle)
    assert f"{path}:{i + 1}: " in line
    assert not (tmp_path / "r.html").exists()
    with pytest.raises(InputError, match=f":{i + 1}: "):
        read_events(path)  # what --resume reads, too


def test_report_on_a_log_cut_short_says_where_and_reports_the_rest(events, tmp_path):
    text = events.read_text()
    whole = text.count("\n")
    path = tmp_path / "events.jsonl"
    path.write_text(text + '{"type": "score", "shot": 3, "sc')
    status, lines = cli("report", path, "-o", tmp_path / "r.html")
    assert status == 0, lines
    assert lines[0] == (f"cueball report: warning: {path}:{whole + 1} is cut short (a run "
                        "stopped while writing it): the report ends before it")
    assert (tmp_path / "r.html").stat().st_size > 0


@pytest.mark.parametrize("text,needle", [
    ("frame,t,track_id,ball\n0,0.0,white,white\n", ":1: not a JSON event"),
    ('{"image_size": [1920, 1080]}\n', "an event must be a JSON object with a 'type'"),
    ("[" * 50_000 + "]" * 50_000 + '\n{"type": "shot_start", "shot": 1}\n', ":1: not a JSON"),
])
def test_a_file_that_is_no_event_log_is_refused_in_one_line(text, needle, tmp_path, capsys):
    path = tmp_path / "events.jsonl"
    path.write_text(text)
    one_line(in_process(capsys, "report", path), needle)


def test_resume_reads_a_good_log_and_refuses_a_bad_one_in_one_line(events, tmp_path):
    state = resume_state(read_events(events))
    assert state.score is not None
    log = _lines(events)
    log[_first(log, "score")]["score"] = [None, 1]
    bad = _write(tmp_path / "bad.jsonl", log)
    with pytest.raises(InputError, match="field 'score'"):
        resume_state(read_events(bad))


EVENT_FIELDS = ("type", "frame", "t", "shot", "player", "points", "score", "foul", "break",
                "winner", "frame_over", "potted", "first_contact", "balls", "ball", "class",
                "pocket_px", "cue_potted", "off_table", "record")


@st.composite
def mutated_logs(draw):
    """The in_off clip's true events with fields replaced by any JSON, lines dropped, doubled
    or cut, and stray lines put in."""
    log = json.loads(TRUTH.read_text())["events"]
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.integers(0, len(log) - 1))
        action = draw(st.sampled_from(["field", "field", "drop", "copy", "stray"]))
        event = log[i] if isinstance(log[i], dict) else {}
        if action == "field":
            log[i] = dict(event, **{draw(st.sampled_from(EVENT_FIELDS)): draw(JSON_VALUES)})
        elif action == "drop":
            del log[i]
        elif action == "copy":
            log.insert(i, dict(event))
        else:
            log.insert(i, draw(JSON_VALUES))
        if not log:
            break
    text = "".join(json.dumps(e) + "\n" for e in log)
    if text and draw(st.booleans()):
        text = text[: draw(st.integers(0, len(text)))]
    return text


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(text=mutated_logs())
def test_fuzzed_event_logs_give_a_report_or_one_line_never_a_traceback(text, tmp_path, capsys):
    path = tmp_path / "events.jsonl"
    path.write_text(text)
    out = tmp_path / "r.html"
    out.unlink(missing_ok=True)
    status = main(["report", str(path), "-o", str(out)])
    err = [line for line in capsys.readouterr().err.splitlines()
           if not line.startswith("cueball report: warning:")]
    if status == 0:
        assert out.stat().st_size > 0 and not err
    else:
        assert status == 2 and len(err) == 1 and err[0].startswith("cueball report: error: ")
    try:
        resume_state(read_events(path))
    except InputError as exc:
        assert "\n" not in str(exc)
