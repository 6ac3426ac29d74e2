"""Broadcast footage (../shared/realdata/snooker-broadcast): stills and a clip calibrate, the
pockets land on dark pocket openings and baulk is the end away from the camera."""

from pathlib import Path

import cv2
import pytest

from calibration.errors import InputError
from calibration.find import calibrate_image, calibrate_video, read_image
from calibration.specs import SNOOKER

REALDATA = Path(__file__).resolve().parents[2] / ".." / "shared" / "realdata"
BROADCAST = REALDATA / "snooker-broadcast"

pytestmark = [
    pytest.mark.realdata,
    pytest.mark.skipif(not BROADCAST.is_dir(),
                       reason=f"real footage not found at {BROADCAST.resolve()}"),
]


def _check_pockets(image, cal):
    h, w = image.shape[:2]
    lightness = cv2.cvtColor(image, cv2.COLOR_BGR2LAB)[..., 0]
    for name, (x, y) in cal.pockets_px().items():
        assert -0.02 * w <= x <= 1.02 * w and -0.02 * h <= y <= 1.02 * h, name
        xi, yi = int(round(x)), int(round(y))
        patch = lightness[max(0, yi - 25): yi + 26, max(0, xi - 25): xi + 26]
        assert patch.size and patch.min() < 70, f"no dark pocket opening near {name}"


@pytest.mark.parametrize("still", [1, 8, 23, 30, 47])
def test_stills(still):
    image = read_image(BROADCAST / "Task1" / f"{still}.jpg")
    cal = calibrate_image(image)
    assert cal.reprojection_error_mm < 15.0
    _check_pockets(image, cal)
    # The broadcast camera sits behind the top cushion: baulk is the far end.
    assert cal.camera().centre_mm[1] > SNOOKER.length_mm
    assert cal.landmarks["_features"]["baulk_found"]


def test_close_up_is_refused():
    with pytest.raises(InputError):
        calibrate_image(read_image(BROADCAST / "Task1" / "42.jpg"))


def test_clip():
    cal = calibrate_video(BROADCAST / "Task2" / "1.mp4")
    assert cal.image_size == (1280, 720)
    assert cal.camera().centre_mm[1] > SNOOKER.length_mm
