import numpy as np
import pytest

from calibration.camera import Camera, apply_homography


def cameras():
    yield Camera.look_at((889, 1784, 3000), (889, 1784, 0), (1920, 1080), 70, up=(-1, 0, 0))
    yield Camera.look_at((300, 1784, 2800), (889, 1784, 0), (1280, 720), 75,
                         dist=(-0.25, 0.05, 0.001, -0.001, 0), up=(-1, 0, 0))
    yield Camera.look_at((889, 8697, 3209), (889, 2331, 0), (1280, 720), 26, up=(0, -1, 0))


@pytest.mark.parametrize("cam", list(cameras()))
def test_project_and_back_through_the_plane(cam):
    rng = np.random.default_rng(1)
    pts = np.c_[rng.uniform(0, 1778, 50), rng.uniform(0, 3569, 50), np.zeros(50)]
    px = cam.project(pts)
    assert np.allclose(cam.plane_points(px), pts[:, :2], atol=1e-6)


@pytest.mark.parametrize("cam", list(cameras()))
def test_homography_maps_to_undistorted_pixels(cam):
    rng = np.random.default_rng(2)
    xy = np.c_[rng.uniform(0, 1778, 30), rng.uniform(0, 3569, 30)]
    H = cam.homography_table_to_image()
    und = cam.undistort_px(cam.project(np.c_[xy, np.zeros(30)]))
    assert np.allclose(apply_homography(H, xy), und, atol=1e-6)
    # and the plane of the ball centres
    H_r = cam.homography_table_to_image(26.25)
    und_r = cam.undistort_px(cam.project(np.c_[xy, np.full(30, 26.25)]))
    assert np.allclose(apply_homography(H_r, xy), und_r, atol=1e-6)


def test_distortion_round_trip():
    cam = list(cameras())[1]
    px = np.array([[5.0, 5.0], [640, 360], [1270, 700], [100, 650]])
    assert np.allclose(cam.distort_px(cam.undistort_px(px)), px, atol=1e-6)


def test_shapes_are_checked():
    with pytest.raises(ValueError, match=r"K must have shape \(3, 3\)"):
        Camera(np.eye(2), np.zeros(5), np.eye(3), np.zeros(3), (10, 10))
    cam = list(cameras())[0]
    with pytest.raises(ValueError, match=r"\(N, 3\)"):
        cam.project(np.zeros((4, 2)))


def test_round_trip_dict():
    cam = list(cameras())[1]
    again = Camera.from_dict(cam.to_dict())
    assert np.allclose(again.K, cam.K) and np.allclose(again.R, cam.R)
    assert again.image_size == cam.image_size


def test_ball_radius_shrinks_with_distance():
    cam = list(cameras())[2]
    near, far = cam.ball_radius_px(np.array([[889, 3400, 26.25], [889, 200, 26.25]]), 26.25)
    assert near > far > 0
