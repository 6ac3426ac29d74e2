"""Pool match footage (../shared/realdata/pool-8ball): the table is found on every clip, its
cushion noses where the labelled playing field says, and taken for a pool table."""

import os
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.images import read_image
from calibration.pool import find_table, find_table_in_source

# beside the checkout, or where CUEBALL_REALDATA says (a worktree elsewhere)
REALDATA = Path(os.environ.get("CUEBALL_REALDATA",
                               Path(__file__).resolve().parents[2] / ".." / "shared" / "realdata"))
POOL = REALDATA / "pool-8ball"
CLIPS = sorted(p.name for p in POOL.glob("game*_clip*")) if POOL.is_dir() else []
# Least overlap (IoU) of the fitted bed within the cushion noses with the labelled playing
# field, which takes in the cushions' tops too (a perfect fit scores under 0.9).
IOU_FLOOR = 0.75

pytestmark = [
    pytest.mark.realdata,
    pytest.mark.skipif(not POOL.is_dir(), reason=f"real footage not found at {POOL.resolve()}"),
]


def field_iou(cal, mask: np.ndarray) -> float:
    """IoU of the bed within the cushion noses, projected, with the mask's playing field (its
    label 5 and the balls on it, labels 1-4)."""
    t = cal.table
    corners = np.array([[0, 0], [t.width_mm, 0], [t.width_mm, t.length_mm], [0, t.length_mm]])
    edge = np.vstack([a + np.linspace(0, 1, 50, endpoint=False)[:, None] * (b - a)
                      for a, b in zip(corners, np.roll(corners, -1, axis=0))])
    fitted = np.zeros(mask.shape, np.uint8)
    cv2.fillPoly(fitted, [np.round(cal.table_to_px(edge) * 16).astype(np.int32)], 1,
                 cv2.LINE_8, 4)
    field = (mask >= 1) & (mask <= 5)
    return float((field & (fitted > 0)).sum() / (field | (fitted > 0)).sum())


@pytest.mark.parametrize("clip", CLIPS)
def test_table_found_on_the_first_frame(clip):
    frame = POOL / clip / "frames" / "frame_first.png"
    found = find_table(read_image(frame))
    assert found.game == "pool"
    mask = cv2.imread(str(POOL / clip / "masks" / "frame_first.png"), cv2.IMREAD_GRAYSCALE)
    assert field_iou(found.calibration, mask) >= IOU_FLOOR


def test_table_found_in_a_clip():
    clip = CLIPS[0]
    found, image = find_table_in_source(POOL / clip / f"{clip}.mp4")
    assert found.game == "pool" and found.calibration.image_size == image.shape[1::-1]
    # the camera holds still through a shot: the first frame's field still fits
    mask = cv2.imread(str(POOL / clip / "masks" / "frame_first.png"), cv2.IMREAD_GRAYSCALE)
    assert field_iou(found.calibration, mask) >= IOU_FLOOR
