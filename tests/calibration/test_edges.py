"""Sub-pixel cushion edges on smoothed images, against an edge whose position is known."""

import cv2
import numpy as np

from calibration.edges import find_first_edges

CREASE_PX = 1.5  # width of the dark crease just outside the cloth
ROWS = np.arange(10, 70)


def _edge_x_px(y):
    """Where the cloth begins on row ``y``: a slightly slanted edge, so that it crosses every
    sub-pixel phase as a cushion's image does."""
    return 100.0 + y / 40.0


def _crease_image(supersample: int = 16) -> np.ndarray:
    """Cloth right of the edge, a dark crease then the lit cushion face left of it, each pixel
    the mean of its area: (80, 200) float32."""
    xs = (np.arange(200 * supersample) + 0.5) / supersample - 0.5
    rows = []
    for y in range(80):
        e = _edge_x_px(y)
        row = np.where(xs >= e, 120.0, np.where(xs >= e - CREASE_PX, 30.0, 90.0))
        rows.append(row.reshape(200, supersample).mean(axis=1))
    return np.array(rows, np.float32)


def _errors_px(gray, fine=None) -> np.ndarray:
    truth = _edge_x_px(ROWS)
    cloth = (np.arange(200)[None, :] >= truth.max()).astype(np.float32).repeat(80, axis=0)
    pts = np.c_[truth + 1.5, ROWS]
    normals = np.tile([1.0, 0.0], (len(ROWS), 1))
    off, strength = find_first_edges(gray, cloth, pts, normals, np.full(len(ROWS), 6.0),
                                     floor=2.0, margin_px=2.0, fine=fine, snap_px=1.5)
    assert (strength > 0).all()
    return pts[:, 0] + off - truth


def test_smoothing_moves_the_edge_and_the_fine_image_puts_it_back():
    image = _crease_image()
    blurred = cv2.GaussianBlur(image, (0, 0), 1.0)
    fine = cv2.GaussianBlur(image, (0, 0), 0.4)
    coarse = _errors_px(blurred)
    refined = _errors_px(blurred, fine)
    # Smoothing pulls the edge outwards onto the crease; read again in the lightly smoothed
    # image it comes most of the way back.
    assert coarse.mean() > 0.2
    assert abs(refined.mean()) < 0.5 * coarse.mean()
    assert np.abs(refined).max() < np.abs(coarse).max()
