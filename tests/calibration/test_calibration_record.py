"""The Calibration record: maps, distortion handling and the JSON round trip."""

import json

import numpy as np
import pytest

from calibration.calibrate import Calibration
from calibration.errors import InputError
from calibration.specs import POCKETS, SNOOKER
from calibration.synthetic import scene_cameras


@pytest.fixture(scope="module")
def overhead():
    return scene_cameras()["overhead"]


def test_from_camera_maps_table_to_raw_pixels(overhead):
    cal = Calibration.from_camera(overhead)
    mm = np.array([[0.0, 0.0], [SNOOKER.width_mm, SNOOKER.length_mm], [300.0, 2000.0]])
    expected = overhead.project(np.c_[mm, np.zeros(3)])
    np.testing.assert_allclose(cal.table_to_px(mm), expected, atol=1e-6)
    np.testing.assert_allclose(cal.px_to_table(expected), mm, atol=1e-3)
    assert cal.has_distortion


def test_json_round_trip(tmp_path, overhead):
    cal = Calibration.from_camera(overhead)
    path = tmp_path / "calibration.json"
    cal.save(path)
    d = json.loads(path.read_text())
    for key in ("image_size", "H_image_to_table", "H_table_to_image", "reprojection_error_mm",
                "pockets_px", "landmarks", "camera_matrix", "dist_coeffs"):
        assert key in d
    assert set(d["pockets_px"]) == set(POCKETS)
    np.testing.assert_allclose(np.array(d["H_image_to_table"]) @ np.array(d["H_table_to_image"]),
                               np.eye(3) * (np.array(d["H_image_to_table"])
                                            @ np.array(d["H_table_to_image"]))[2, 2], atol=1e-9)
    back = Calibration.load(path)
    np.testing.assert_allclose(back.H_table_to_image, cal.H_table_to_image)
    np.testing.assert_allclose(back.camera_matrix, cal.camera_matrix)
    np.testing.assert_allclose(back.dist_coeffs, cal.dist_coeffs)
    assert back.image_size == cal.image_size
    pockets, again = cal.pockets_px(), back.pockets_px()
    assert set(again) == set(pockets)
    for name, xy in pockets.items():
        np.testing.assert_allclose(again[name], xy)
    pts = np.array([[100.0, 200.0], [1500.0, 3000.0]])
    np.testing.assert_allclose(back.table_to_px(pts), cal.table_to_px(pts), atol=1e-9)


def test_pockets_px_are_raw_pixels(overhead):
    cal = Calibration.from_camera(overhead)
    for name, px in cal.pockets_px().items():
        x, y = SNOOKER.pockets[name].point_mm
        np.testing.assert_allclose(px, overhead.project(np.array([[x, y, 0.0]]))[0], atol=1e-6)


def test_load_rejects_bad_files(tmp_path):
    with pytest.raises(InputError, match="cannot read"):
        Calibration.load(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(InputError, match="not JSON"):
        Calibration.load(bad)
    bad.write_text("{}")
    with pytest.raises(InputError, match="lacks"):
        Calibration.load(bad)


def test_record_checks_shapes():
    with pytest.raises(ValueError, match="shape"):
        Calibration(np.eye(2), (10, 10))
    with pytest.raises(ValueError, match="both"):
        Calibration(np.eye(3), (10, 10), camera_matrix=np.eye(3))


def test_uncertainty_is_kept_through_the_json_and_a_bad_one_refused(tmp_path, overhead):
    cal = Calibration.from_camera(overhead)
    path = tmp_path / "calibration.json"
    Calibration(cal.H_table_to_image, cal.image_size, cal.camera_matrix, cal.dist_coeffs,
                cal.rvec, cal.tvec, uncertainty_mm=0.8).save(path)
    assert json.loads(path.read_text())["uncertainty_mm"] == 0.8
    assert Calibration.load(path).uncertainty_mm == 0.8
    cal.save(path)
    assert "uncertainty_mm" not in json.loads(path.read_text())
    assert Calibration.load(path).uncertainty_mm is None
    for bad in (-1.0, "1 mm", True, float("nan")):
        d = cal.to_dict()
        d["uncertainty_mm"] = bad
        path.write_text(json.dumps(d))
        with pytest.raises(InputError, match="uncertainty_mm must be a number of mm >= 0"):
            Calibration.load(path)
