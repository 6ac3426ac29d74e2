"""Bad input gives InputError with a one-line message, and the command exits non-zero."""

import numpy as np
import pytest

from calibration.errors import InputError
from calibration.find import calibrate_image, calibrate_source, calibrate_video
from calibration.synthetic import render_table, scene_cameras
from tracker.cli.calibrate import main


def test_black_frame():
    with pytest.raises(InputError, match="black"):
        calibrate_image(np.zeros((720, 1280, 3), np.uint8))


def test_noise_image():
    noise = np.random.default_rng(0).integers(0, 256, (720, 1280, 3)).astype(np.uint8)
    with pytest.raises(InputError, match="no table"):
        calibrate_image(noise)


def test_half_the_table_out_of_view():
    camera = scene_cameras()["tilted"]
    image = render_table(camera)
    with pytest.raises(InputError) as err:
        calibrate_image(np.ascontiguousarray(image[:, : image.shape[1] // 2]))
    assert "\n" not in str(err.value)


def test_not_an_image_array():
    with pytest.raises(InputError, match="colour image"):
        calibrate_image(np.zeros((100, 100)))


def test_missing_and_corrupt_files(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        calibrate_source(tmp_path / "missing.mp4")
    corrupt = tmp_path / "corrupt.mp4"
    corrupt.write_bytes(b"\x00\x00\x00\x18ftypmp42" + bytes(range(256)) * 20)
    with pytest.raises(InputError):
        calibrate_video(corrupt)
    text = tmp_path / "notes.jpg"
    text.write_text("not an image")
    with pytest.raises(InputError):
        calibrate_source(text)


def test_command_exit_codes(tmp_path, capsys):
    assert main([str(tmp_path / "missing.png")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("cueball calibrate: error: no such file") and err.count("\n") == 1


def test_command_writes_json_and_overlay(tmp_path):
    import cv2

    camera = scene_cameras()["broadcast"]
    src = tmp_path / "table.png"
    cv2.imwrite(str(src), render_table(camera))
    out, show = tmp_path / "cal.json", tmp_path / "show.png"
    assert main([str(src), "-o", str(out), "--show", str(show)]) == 0
    assert out.exists() and cv2.imread(str(show)) is not None


@pytest.mark.parametrize("points,needle", [
    ({"pocket_baulk_left": [100, 100], "pocket_baulk_right": [500, 100],
      "pocket_top_left": [100, 900], "pocket_top_right": [float("nan"), 900]}, "finite numbers"),
    ({"pocket_baulk_left": [100, 100], "pocket_baulk_right": [500, 100],
      "pocket_top_left": [100, 900], "pocket_top_right": "500, 900"}, "finite numbers"),
    ({"pocket_baulk_left": [100, 100], "pocket_baulk_right": [500, 100],
      "pocket_top_left": [500, 100], "pocket_top_right": [100, 100]}, "table plane"),
])
def test_bad_hand_picked_points_are_refused_naming_the_file(points, needle, tmp_path, capsys):
    import json

    import cv2

    image = tmp_path / "table.png"
    cv2.imwrite(str(image), render_table(scene_cameras()["broadcast"]))
    path = tmp_path / "points.json"
    path.write_text(json.dumps(points))
    assert main([str(image), "--points", str(path), "-o", str(tmp_path / "cal.json")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"points file {path}: " in err and needle in err
    assert not (tmp_path / "cal.json").exists()


@pytest.mark.parametrize("intrinsics,needle", [
    ({"camera_matrix": None}, "no camera_matrix"),
    ({"camera_matrix": [[float("nan"), 0, 640], [0, 1000, 360], [0, 0, 1]]}, "camera_matrix must"),
    ({"camera_matrix": [[1000, 0, 640], [0, 1000, 360], [0, 0, 1]], "dist_coeffs": ["a"]},
     "dist_coeffs must"),
])
def test_bad_intrinsics_are_refused_naming_the_file_and_field(intrinsics, needle, tmp_path,
                                                              capsys):
    import json

    path = tmp_path / "intrinsics.json"
    path.write_text(json.dumps(intrinsics))
    assert main([str(tmp_path / "any.png"), "--intrinsics", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"intrinsics {path}: " in err and needle in err
