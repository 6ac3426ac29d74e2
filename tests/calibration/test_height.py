"""The camera's height from the balls' shapes, for cameras looking straight down."""

from __future__ import annotations

import numpy as np
import pytest

from calibration.camera import Camera, polygon_moments
from calibration.find import calibrate_video
from calibration.height import (
    SCALES,
    BallShapes,
    along_family,
    on_spots,
    spot_misfit,
    spots_verdict,
    table_verdict,
)
from calibration.model import CameraModel, Observations
from calibration.specs import SNOOKER
from tracker.io.video import VideoWriter
from tracker.sim.render import Renderer
from tracker.sim.scenarios import overhead_camera
from tracker.sim.script import layout

R = SNOOKER.ball_radius_mm


def test_polygon_moments_of_an_ellipse():
    t = np.linspace(0, 2 * np.pi, 2000, endpoint=False)
    a, b, th = 5.0, 3.0, np.radians(30)
    x, y = a * np.cos(t), b * np.sin(t)
    p = np.c_[10 + x * np.cos(th) - y * np.sin(th), 20 + x * np.sin(th) + y * np.cos(th)]
    area, centre, cov = polygon_moments(p[None])
    rot = np.array([[np.cos(th), -np.sin(th)], [np.sin(th), np.cos(th)]])
    np.testing.assert_allclose(area, [np.pi * a * b], rtol=1e-4)
    np.testing.assert_allclose(centre, [[10.0, 20.0]], atol=1e-6)
    np.testing.assert_allclose(cov[0], rot @ np.diag([a * a / 4, b * b / 4]) @ rot.T, atol=1e-4)


def test_the_family_sees_the_table_alike_and_the_balls_not():
    """Twice the focal length (and the height), the radial terms with the height's powers: the
    table's picture is the same, a ball by the cushion is drawn out otherwise (by several px^2
    in its moments, where a ball's own shape is good to ~1)."""
    cam = overhead_camera((1920, 1080), 2300.0, 0.0, -0.3)
    model = CameraModel(cam.image_size, float(cam.K[0, 0]), cam.rvec.ravel(), cam.t,
                        float(cam.dist[0]), k2=float(cam.dist[1]), fit_k2=True)
    far = along_family(model, 2.0).camera()
    grid = np.array([[x, y, 0.0] for x in (0.0, 900.0, 1778.0) for y in (0.0, 1800.0, 3569.0)])
    np.testing.assert_allclose(far.project(grid), cam.project(grid), atol=0.05)
    assert far.centre_mm[2] == pytest.approx(2 * cam.centre_mm[2], rel=0.01)
    by_cushion = np.array([[60.0, 300.0, R]])
    near_cov = polygon_moments(cam.sphere_outline(by_cushion, R, 64))[2][0]
    far_cov = polygon_moments(far.sphere_outline(by_cushion, R, 64))[2][0]
    d = near_cov - far_cov
    assert np.hypot((d[0, 0] - d[1, 1]) / 2, d[0, 1]) > 3.0


def _spread_balls():
    reds = [[300.0, 500.0], [1500.0, 600.0], [250.0, 3100.0], [1480.0, 3000.0],
            [900.0, 2600.0], [600.0, 1400.0]]
    return layout((1300.0, 900.0), reds)


@pytest.mark.parametrize("height, k1", [(2300.0, -0.3), (3000.0, -0.12)])
def test_a_camera_straight_down_is_found_near_its_height(tmp_path, height, k1):
    """A second of video from a camera straight over the table: the table's picture alone leaves
    its height free (a 2.3 m wide-angle camera was taken for one at 4.6 m, its balls' centres 6
    mm off); the lens prior, the balls' shapes and the colours standing on their spots together
    put it within 5 %."""
    cam: Camera = overhead_camera((1920, 1080), height, 0.0, k1)
    balls = _spread_balls()
    renderer = Renderer(cam)
    path = tmp_path / "clip.mp4"
    with VideoWriter(path, cam.image_size, 30.0, crf=26) as out:
        for k in range(5):
            out.write(renderer.render(list(balls.classes), balls.pos, balls.on_table(),
                                      frame_index=k)[0])
    cal = calibrate_video(path)
    found = cal.landmarks["_features"]["height_from_balls"]
    assert found["balls"] >= 6 and found["spotted"] >= 3 and found["used"]
    assert cal.camera().centre_mm[2] == pytest.approx(height, rel=0.05)


def test_balls_on_the_spots_tell_the_height():
    """Balls standing on the colours' spots under a camera straight down: the member of the
    family at the true height puts their centres on the spots; one 10 % higher puts them a
    millimetre or so off (the black's most, the blue's, under the camera, not at all)."""
    cam = overhead_camera((1920, 1080), 3000.0, 0.0, -0.12)
    model = CameraModel(cam.image_size, float(cam.K[0, 0]), cam.rvec.ravel(), cam.t,
                        float(cam.dist[0]), k2=float(cam.dist[1]), fit_k2=True)
    spots = np.array(list(SNOOKER.spots_mm.values()))
    _, centroid, cov = polygon_moments(cam.sphere_outline(np.c_[spots, np.full(6, R)], R, 64))
    astray = np.array([[400.0, 2000.0]])  # a red nowhere near a spot
    _, c2, v2 = polygon_moments(cam.sphere_outline(np.c_[astray, [[R]]], R, 64))
    shapes = BallShapes(np.r_[centroid, c2], np.r_[cov, v2])
    centre_px, on = on_spots(shapes, cam, SNOOKER)
    np.testing.assert_allclose(on, spots)
    assert spot_misfit(cam, centre_px, on, SNOOKER) < 0.01
    higher = spot_misfit(along_family(model, 1.1).camera(), centre_px, on, SNOOKER)
    lower = spot_misfit(along_family(model, 0.9).camera(), centre_px, on, SNOOKER)
    assert min(higher, lower) > 0.5


def test_balls_placed_well_on_the_spots_are_believed_more():
    """The spotted balls' scatter about the best member tells how well they were placed: balls
    right on their spots give a verdict at the true height with at most 0.6 times the spread
    of balls each put 2 mm astray (the referee's placing tolerance), which still find about
    the height (the placing tolerance alone gave both the same spread)."""
    cam = overhead_camera((1920, 1080), 3000.0, 0.0, -0.12)
    model = CameraModel(cam.image_size, float(cam.K[0, 0]), cam.rvec.ravel(), cam.t,
                        float(cam.dist[0]), k2=float(cam.dist[1]), fit_k2=True)
    family = [along_family(model, float(s)) for s in SCALES]
    spots = np.array(list(SNOOKER.spots_mm.values()))
    astray = 2.0 * np.array([[1, 0], [0, -1], [-0.7, 0.7], [0.7, 0.7], [0, 1], [-1, 0]])

    def verdict(centres_mm):
        c = np.c_[centres_mm, np.full(len(centres_mm), R)]
        centroid = polygon_moments(cam.sphere_outline(c, R, 64))[1]
        return spots_verdict(family, centroid, spots, SNOOKER)

    exact, placed = verdict(spots), verdict(spots + astray)
    assert abs(exact[0]) < 0.01
    assert abs(placed[0]) < 0.1
    assert exact[1] < 0.6 * placed[1]


def _model_of(cam: Camera) -> CameraModel:
    return CameraModel(cam.image_size, float(cam.K[0, 0]), cam.rvec.ravel(), cam.t,
                       float(cam.dist[0]), k2=float(cam.dist[1]), fit_k2=True)


def test_the_family_of_a_tilted_camera_keeps_the_cloths_picture():
    """A camera tilted by 12 degrees has no member of its family that sees the cloth exactly
    alike; the members 1 % either side see it within 0.3 mm (the homography's columns scaled
    and turned into a rotation stretched the table's length by 1.5 mm)."""
    cam = overhead_camera((1920, 1080), 3000.0, 12.0, -0.12)
    grid = np.array([[x, y, 0.0] for x in np.linspace(0, SNOOKER.width_mm, 7)
                     for y in np.linspace(0, SNOOKER.length_mm, 9)])
    for s in (0.99, 1.01):
        member = along_family(_model_of(cam), s).camera()
        d = member.plane_points(cam.project(grid), 0.0) - grid[:, :2]
        assert np.abs(d).max() < 0.4


def _cloth_lines(cam: Camera) -> Observations:
    """The cushions' feet (6 mm outside the noses) and the baulk line as the camera sees them."""
    obs = Observations()
    W, L = SNOOKER.width_mm, SNOOKER.length_mm
    for a, b in (((-6, 100), (-6, L - 100)), ((W + 6, 100), (W + 6, L - 100)),
                 ((100, -6), (W - 100, -6)), ((100, L + 6), (W - 100, L + 6)),
                 ((40, SNOOKER.baulk_line_mm), (W - 40, SNOOKER.baulk_line_mm))):
        t = np.linspace(0, 1, 40)[:, None]
        pts = np.asarray(a, float) + t * (np.asarray(b, float) - np.asarray(a, float))
        obs.add_line(cam.project(np.c_[pts, np.zeros(len(pts))]), (*a, 0.0), (*b, 0.0), "line")
    return obs


def test_the_cloth_tells_a_tilted_cameras_scale_and_not_one_looking_down():
    """Along the family the cloth's own picture stays put looking straight down (no verdict,
    or one too loose to count beside the balls'), and fixes the focal length of a camera
    tilted by 12 degrees to within a fraction of a per cent."""
    down = overhead_camera((1920, 1080), 3000.0, 0.0, -0.12)
    loose = table_verdict(_model_of(down), _cloth_lines(down))
    assert loose is None or loose[1] > 1.0
    tilted = overhead_camera((1920, 1080), 3000.0, 12.0, -0.12)
    scale, spread = table_verdict(_model_of(tilted), _cloth_lines(tilted))
    assert abs(scale) < 1e-3 and spread < 0.01
