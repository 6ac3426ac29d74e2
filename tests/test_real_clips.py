"""The whole chain on a few real broadcast clips (``../shared/realdata/snooker-broadcast``),
scored as ``scripts/bench_real.py`` scores all 25: Task3 (the cue ball and another ball followed
frame by frame, IoU > 0.2 with the true box) and Task2 (was a ball potted, which, where).

Skips with the reason when the footage is absent. Three short clips (about 150 frames each)
keep it within ~40 s on a busy 2-core machine.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
REALDATA = ROOT.parent / "shared" / "realdata" / "snooker-broadcast"
# short clips: a colour in a middle pocket, a black in a corner, a red sent into a corner
# pocket too fast for the detector to see it go
CLIPS = (4, 5, 18)

pytestmark = [
    pytest.mark.realdata,
    pytest.mark.skipif(not (REALDATA / "Task3").is_dir(),
                       reason=f"real broadcast clips not found at {REALDATA}"),
]


def _bench():
    if "bench_real" in sys.modules:
        return sys.modules["bench_real"]
    spec = importlib.util.spec_from_file_location("bench_real", ROOT / "scripts" / "bench_real.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while being built
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def results():
    bench = _bench()
    return bench, [bench.evaluate(REALDATA, n) for n in CLIPS]


def test_pocket_numbers_follow_the_image():
    bench = _bench()
    # a view from behind the top cushion: the top pockets are nearest, at the image's bottom,
    # and the table's left is the image's right
    px = {"baulk_left": [890, 55], "baulk_right": [380, 55], "middle_left": [960, 290],
          "middle_right": [320, 290], "top_left": [1080, 650], "top_right": [200, 650]}
    assert bench.pocket_numbers(px) == {"baulk_right": 1, "baulk_left": 2, "middle_right": 5,
                                        "middle_left": 6, "top_right": 3, "top_left": 4}


def test_frames_where_both_say_gone_count_as_right():
    bench = _bench()
    truth = np.array([[0, 0, 10, 10], [0, 0, 10, 10], [np.nan] * 4, [np.nan] * 4])
    pred = np.array([[1, 1, 11, 11], [30, 30, 40, 40], [np.nan] * 4, [0, 0, 10, 10]])
    assert bench.frames_right(pred, truth).tolist() == [True, False, True, False]


def test_real_clips_are_tracked(results):
    bench, runs = results
    shares = {(r["clip"], k): r[f"ball{k}"][1] for r in runs for k in (1, 2)}
    tracked = sum(s >= bench.TRACKED_SHARE for s in shares.values())
    assert tracked >= len(shares) - 1, shares
    assert min(shares.values()) >= 0.5, shares


def test_real_clips_pots_are_called(results):
    _, runs = results
    answers = {r["clip"]: r["task2"] for r in runs}
    right = [truth == answer for truth, answer in answers.values()]
    assert sum(right) >= len(CLIPS) - 1, answers
    # whether a ball went in is never wrong on these
    assert all(truth[0] == answer[0] for truth, answer in answers.values()), answers


def test_a_potted_ball_was_hit_by_something(results):
    """Each pot's ball has a contact at or before its pot in the events, also the red that
    clip 18's white knocks in from the jaws, seen off its place for a frame before it drops."""
    _, runs = results
    hits = {r["clip"]: r["hit"] for r in runs}
    assert all(hit is not False for hit in hits.values()), hits
    assert sum(hit is True for hit in hits.values()) >= 2, hits


def test_a_crowd_shot_spliced_into_a_clip_is_no_table():
    """Task3 clip 19 with a frame of clip 3's cut to the crowd spliced in for 10 s, the camera
    checked every 0.3 s while no frame shows the table: the camera check finds a "table" in
    the crowd (a fit 10-14 mm off at the landmarks), but it is not covered by the cloth, so it
    is not taken; no frame of the cut is seen and the calibration in force stays the table's."""
    from calibration.find import calibrate_video
    from tracker.io.video import read_frames
    from tracker.pipeline import Frame, Pipeline
    from tracker.vision.stages import make_detect

    crowd = next(im for k, im in enumerate(read_frames(REALDATA / "Task3" / "3.mp4"))
                 if k == 194)  # one that passes for a table
    table = [im for _, im in zip(range(120), read_frames(REALDATA / "Task3" / "19.mp4"))]
    images = table[:60] + [crowd] * 300 + table[60:]
    cal = calibrate_video(REALDATA / "Task3" / "19.mp4")
    pipe = Pipeline(cal, make_detect(cal), rebuild=make_detect, blind_check_s=0.3)
    out = list(pipe.run(Frame(k, k / 30, im) for k, im in enumerate(images)))
    assert all(r.blind for r in out[60:360]) and not any(r.blind for r in out[:60])
    assert not [e for r in out[:360] for e in r.events if e["type"] == "calibrated"]
    before, after = cal.pockets_px(), pipe.calibration.pockets_px()
    assert all(np.hypot(*np.subtract(after[k], before[k])) < 5 for k in before)
