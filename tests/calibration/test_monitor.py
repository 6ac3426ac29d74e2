"""CalibrationMonitor: quiet on a still camera, recalibrates after a knock."""

import time

import cv2
import numpy as np

from calibration.calibrate import Calibration
from calibration.camera import Camera
from calibration.monitor import CalibrationMonitor
from calibration.synthetic import render_table, scene_balls, scene_cameras


def test_still_camera_then_knock():
    camera = scene_cameras()["broadcast"]
    monitor = CalibrationMonitor(Calibration.from_camera(camera), patience=2)
    assert monitor.check(render_table(camera, balls=scene_balls())) is True
    frame = render_table(camera, balls=scene_balls(), seed=3)
    t0 = time.perf_counter()
    for _ in range(20):
        assert monitor.check(frame) is True
    assert (time.perf_counter() - t0) / 20 < 0.02
    R = cv2.Rodrigues(np.array([0.006, 0.0, 0.004]))[0] @ camera.R
    knocked = Camera(camera.K, camera.dist, R, camera.t, camera.image_size)
    moved = render_table(knocked, balls=scene_balls())
    assert monitor.check(moved) is False
    result = monitor.check(moved)
    assert isinstance(result, Calibration)
    np.testing.assert_allclose(result.pockets_px()["top_left"],
                               Calibration.from_camera(knocked).pockets_px()["top_left"], atol=3)
    assert monitor.check(moved) is True
