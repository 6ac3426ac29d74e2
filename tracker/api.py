"""Entry points of the Python API that the stages do not already give (``tracker/__init__``)."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from calibration.calibrate import Calibration
from calibration.errors import InputError
from calibration.specs import SNOOKER, SnookerTableSpec

_VIDEO_SUFFIXES = frozenset({".mp4", ".mov", ".mkv", ".avi", ".webm", ".m4v", ".ts", ".mts"})


def calibrate(source: np.ndarray | str | os.PathLike, table: SnookerTableSpec = SNOOKER
              ) -> Calibration:
    """The table's calibration (image px <-> table mm) from a BGR image (H, W, 3) uint8, or from
    the path of an image, a video or a calibration JSON that ``cueball calibrate`` wrote.
    Raises ``InputError`` (one line) when no whole table is found."""
    from calibration.find import calibrate_image, calibrate_video, read_image

    if isinstance(source, np.ndarray):
        if source.ndim != 3 or source.shape[2] != 3 or source.dtype != np.uint8:
            raise InputError(f"calibrate needs a BGR image (H, W, 3) uint8, got "
                             f"{source.dtype} {source.shape}")
        return calibrate_image(source, table)
    path = Path(source)
    if path.suffix.lower() == ".json":
        return Calibration.load(path, table)
    if path.suffix.lower() in _VIDEO_SUFFIXES:
        return calibrate_video(path, table)
    return calibrate_image(read_image(path), table, source=str(path))
