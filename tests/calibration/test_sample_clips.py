"""Automatic calibration of the sample clips against the camera they were rendered with.

The clips are H.264 video from the ray-cast renderer, so every frame is codec-smoothed; the
targets are the issue's: 1 mm RMS over the playing area on 1080p overhead clips, 3 mm on the
broadcast view. The four chosen calibrate in a second or two each and cover an overhead camera
square on (``touching``), tilted over blue cloth (``wrong_ball_first``), low with a strongly
barrelled lens (``double_kiss``) and the broadcast view (``broadcast``); the benchmark
(``scripts/bench_calibration.py --samples``) measures every clip."""

from pathlib import Path

import numpy as np
import pytest

from calibration.calibrate import plane_error_mm
from calibration.camera import Camera
from calibration.find import calibrate_video
from calibration.specs import SNOOKER

truth = pytest.importorskip("tracker.sim.truth")

SAMPLES = Path(__file__).resolve().parents[2] / "sample_videos"
# Table-plane RMS error limit (mm) per clip: the targets.
TARGET_RMS_MM = {"touching": 1.0, "wrong_ball_first": 1.0, "double_kiss": 1.0, "broadcast": 3.0}




@pytest.mark.parametrize("clip", list(TARGET_RMS_MM))
def test_sample_clip_within_target(clip):
    path = SAMPLES / f"{clip}.mp4"
    if not path.exists():
        pytest.skip(f"{path.name} not generated")
    camera = Camera.from_dict(truth.read_truth(path)[0]["camera"])
    cal = calibrate_video(path)
    rms, worst = plane_error_mm(cal, camera)
    assert rms <= TARGET_RMS_MM[clip], f"{clip}: {rms:.2f} mm RMS ({worst:.2f} mm max)"
    # The baulk end is found, so the pockets carry their right names.
    assert cal.landmarks["_features"]["baulk_found"]
    for name, px in cal.pockets_px().items():
        x, y = SNOOKER.pockets[name].point_mm
        true_px = camera.project(np.array([[x, y, 0.0]]))[0]
        assert np.hypot(*(np.array(px) - true_px)) < 4.0, f"{clip}: pocket {name}"


def test_middle_of_the_table_placed_along_its_length():
    # Only the ends (cushions, baulk line, D) fix the length; the middle pockets' mouths pin
    # its middle. Without them the centre line of the square-on overhead clip was placed up to
    # 0.91 mm off along the length, where its balls at rest are measured to half a millimetre.
    path = SAMPLES / "touching.mp4"
    if not path.exists():
        pytest.skip(f"{path.name} not generated")
    camera = Camera.from_dict(truth.read_truth(path)[0]["camera"])
    cal = calibrate_video(path)
    ys = np.linspace(SNOOKER.baulk_line_mm, SNOOKER.length_mm - 300.0, 12)
    pts = np.c_[np.full(len(ys), SNOOKER.width_mm / 2), ys, np.zeros(len(ys))]
    off = cal.px_to_table(camera.project(pts))[:, 1] - ys
    assert np.abs(off).max() < 0.45, np.round(off, 2)
