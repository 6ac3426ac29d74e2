"""The detector's answer for one frame: ``Detections``, parallel arrays of balls."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from calibration.specs import BALL_CLASSES


def _check_array(name: str, value, shape: tuple, dtype) -> np.ndarray:
    arr = np.asarray(value, dtype=dtype)
    if arr.ndim != len(shape) or any(s is not None and a != s for a, s in zip(arr.shape, shape)):
        want = "(" + ", ".join("N" if s is None else str(s) for s in shape) + (
            "," if len(shape) == 1 else "") + ")"
        raise ValueError(f"Detections.{name} must have shape {want}, got {arr.shape}")
    return arr


@dataclass(frozen=True)
class Detections:
    """The balls found in one frame, as parallel arrays over N balls.

    xy_px (N, 2) float: ball centres in raw image pixels (the projection of the sphere's centre).
    r_px (N,) float: apparent radius in pixels.
    cls (N,) int: index into ``BALL_CLASSES``, or -1 when not classified.
    confidence (N,) float in [0, 1].
    xy_mm (N, 2) float or None: ball centres in table mm, when a calibration was given.
    lab (N, 3) float or None: the ball's body colour (OpenCV 8-bit Lab, highlights excluded).
    """

    xy_px: np.ndarray
    r_px: np.ndarray
    cls: np.ndarray
    confidence: np.ndarray
    xy_mm: np.ndarray | None = None
    lab: np.ndarray | None = None

    def __post_init__(self):
        xy = _check_array("xy_px", self.xy_px, (None, 2), np.float64)
        n = len(xy)
        fields = {"xy_px": xy,
                  "r_px": _check_array("r_px", self.r_px, (n,), np.float64),
                  "cls": _check_array("cls", self.cls, (n,), np.int64),
                  "confidence": _check_array("confidence", self.confidence, (n,), np.float64)}
        if self.xy_mm is not None:
            fields["xy_mm"] = _check_array("xy_mm", self.xy_mm, (n, 2), np.float64)
        if self.lab is not None:
            fields["lab"] = _check_array("lab", self.lab, (n, 3), np.float64)
        cls = fields["cls"]
        if n and (cls.min() < -1 or cls.max() >= len(BALL_CLASSES)):
            bad = (cls < -1) | (cls >= len(BALL_CLASSES))
            raise ValueError(f"Detections.cls must be -1 or an index into BALL_CLASSES "
                             f"(0..{len(BALL_CLASSES) - 1}), got {fields['cls'][bad][:3]}")
        for name, arr in fields.items():
            arr.setflags(write=False)
            object.__setattr__(self, name, arr)

    @classmethod
    def empty(cls, with_mm: bool = False) -> Detections:
        return cls(np.zeros((0, 2)), np.zeros(0), np.zeros(0, int), np.zeros(0),
                   np.zeros((0, 2)) if with_mm else None, np.zeros((0, 3)))

    def __len__(self) -> int:
        return len(self.xy_px)

    def __getitem__(self, index) -> Detections:
        """A subset by boolean mask, index array or slice."""
        if isinstance(index, (int, np.integer)):
            index = [int(index)]
        def pick(a):
            return None if a is None else a[index]

        return Detections(self.xy_px[index], self.r_px[index], self.cls[index],
                          self.confidence[index], pick(self.xy_mm), pick(self.lab))

    def __iter__(self) -> Iterator[dict]:
        for i in range(len(self)):
            yield self.record(i)

    @property
    def class_names(self) -> list[str | None]:
        return [BALL_CLASSES[c] if c >= 0 else None for c in self.cls]

    def replace(self, **changes) -> Detections:
        kw = {k: getattr(self, k) for k in ("xy_px", "r_px", "cls", "confidence", "xy_mm", "lab")}
        kw.update(changes)
        return Detections(**kw)

    def record(self, i: int) -> dict:
        """Ball ``i`` as the contract's JSON record."""
        out = {"ball": BALL_CLASSES[self.cls[i]] if self.cls[i] >= 0 else None,
               "x_px": float(self.xy_px[i, 0]), "y_px": float(self.xy_px[i, 1]),
               "r_px": float(self.r_px[i]),
               "x_mm": None if self.xy_mm is None else float(self.xy_mm[i, 0]),
               "y_mm": None if self.xy_mm is None else float(self.xy_mm[i, 1]),
               "confidence": float(self.confidence[i])}
        return out
