"""The tracker's output for one frame: ``TableState``, every ball's id, class, position,
velocity and state as parallel arrays, and its rows of tracks.csv."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from calibration.specs import BALL_CLASSES

TRACK_STATES = ("seen", "predicted", "potted", "off_table")
_TRACK_STATE_SET = frozenset(TRACK_STATES)
TRACKS_HEADER = ("frame", "t", "track_id", "ball", "x_mm", "y_mm", "x_px", "y_px", "state")
N_CLASSES = len(BALL_CLASSES)


def _check(name: str, value, shape: tuple, dtype) -> np.ndarray:
    arr = np.asarray(value, dtype=dtype)
    if arr.ndim != len(shape) or any(s is not None and a != s for a, s in zip(arr.shape, shape)):
        want = tuple("N" if s is None else s for s in shape)
        raise ValueError(f"TableState.{name} must have shape {want}, got {arr.shape}")
    return arr


@dataclass(frozen=True)
class TableState:
    """Every ball the tracker knows of at one frame, as parallel arrays over N balls.

    track_ids (N,) str: ``white``, ``red_01`` ..; classes (N,) int index into BALL_CLASSES;
    xy_mm (N, 2) float table mm (NaN when potted or off the table); velocity_mm_s (N, 2);
    state (N,) str, one of ``TRACK_STATES``; pocket (N,) str, the pocket of a potted ball, else
    ``""``. ``events`` are the events that became certain at this frame, each a dict with
    ``type``, ``frame`` and ``t`` of when it happened (which may be a few frames earlier).
    """

    frame: int
    t: float
    track_ids: np.ndarray
    classes: np.ndarray
    xy_mm: np.ndarray
    velocity_mm_s: np.ndarray
    state: np.ndarray
    pocket: np.ndarray
    events: tuple[dict, ...] = ()

    def __post_init__(self):
        ids = _check("track_ids", self.track_ids, (None,), str)
        n = len(ids)
        arrays = {"track_ids": ids,
                  "classes": _check("classes", self.classes, (n,), np.int64),
                  "xy_mm": _check("xy_mm", self.xy_mm, (n, 2), np.float64),
                  "velocity_mm_s": _check("velocity_mm_s", self.velocity_mm_s, (n, 2),
                                          np.float64),
                  "state": _check("state", self.state, (n,), str),
                  "pocket": _check("pocket", self.pocket, (n,), str)}
        if not _TRACK_STATE_SET.issuperset(arrays["state"].tolist()):
            bad = [s for s in arrays["state"] if s not in TRACK_STATES]
            raise ValueError(f"TableState.state must be one of {TRACK_STATES}, got {bad[0]!r}")
        if n and (arrays["classes"].min() < 0 or arrays["classes"].max() >= N_CLASSES):
            raise ValueError("TableState.classes must index BALL_CLASSES")
        for name, arr in arrays.items():
            arr.setflags(write=False)
            object.__setattr__(self, name, arr)
        object.__setattr__(self, "events", tuple(self.events))

    def __len__(self) -> int:
        return len(self.track_ids)

    @property
    def class_names(self) -> list[str]:
        return [BALL_CLASSES[c] for c in self.classes]

    def index(self, track_id: str) -> int:
        hits = np.flatnonzero(self.track_ids == track_id)
        if not len(hits):
            raise KeyError(track_id)
        return int(hits[0])

    def on_table(self) -> np.ndarray:
        """(N,) bool: balls in play (seen or predicted)."""
        return (self.state == "seen") | (self.state == "predicted")


def tracks_rows(state: TableState, xy_px: np.ndarray | None = None) -> list[list[str]]:
    """The contract's tracks.csv rows for one frame (header ``TRACKS_HEADER``), one per ball.

    ``xy_px`` (N, 2) optional image pixels of the balls (from the calibration); positions are
    left empty for potted and off-table balls."""
    if xy_px is not None:
        xy_px = np.asarray(xy_px, float)
        if xy_px.shape != (len(state), 2):
            raise ValueError(f"tracks_rows: xy_px must have shape ({len(state)}, 2), "
                             f"got {xy_px.shape}")
    rows = []
    t = f"{state.t:.6f}"
    for i in range(len(state)):
        gone = state.state[i] in ("potted", "off_table")
        x, y = ("", "") if gone else (f"{state.xy_mm[i, 0]:.2f}", f"{state.xy_mm[i, 1]:.2f}")
        u, v = ("", "") if gone or xy_px is None else (f"{xy_px[i, 0]:.2f}",
                                                         f"{xy_px[i, 1]:.2f}")
        rows.append([str(state.frame), t, str(state.track_ids[i]),
                     BALL_CLASSES[state.classes[i]], x, y, u, v, str(state.state[i])])
    return rows
