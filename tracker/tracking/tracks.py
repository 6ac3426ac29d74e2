"""The tracker's bookkeeping: each ball's ``Track``, the ``Candidate`` balls not yet confirmed,
one frame's ``Step`` of detections, and the ``Roster`` the tracker's parts share."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from filterpy.kalman import KalmanFilter

from calibration.specs import BALL_CLASSES

N_CLASSES = len(BALL_CLASSES)


@dataclass(eq=False)
class Track:
    """One ball's track: its filter and bookkeeping (mutable, private to the tracker)."""

    track_id: str
    cls: int
    kf: KalmanFilter
    moving: bool
    status: str = "seen"
    pocket: str = ""
    votes: np.ndarray = field(default_factory=lambda: np.zeros(N_CLASSES))
    last_seen_t: float = 0.0
    last_seen_frame: int = 0
    last_seen_x: np.ndarray = field(default_factory=lambda: np.zeros(4))
    anchor_t: float = 0.0  # time of the last measurement a resting estimate took in
    restless: int = 0
    shift: np.ndarray = field(default_factory=lambda: np.zeros(2))
    slow_since: float | None = None
    gone_frame: int = 0  # first frame the ball was missed, and its time
    gone_t: float = 0.0
    judged: bool = False  # whether its vanishing was judged (potted, off the table or hidden)
    doubled_frame: int = -1  # last frame it was seen on top of another seen track
    speeds: list[tuple[float, float]] = field(default_factory=list)  # recent (t s, mm/s)
    # the last moving ball that came within reach while this one was at rest: (t, that track);
    # and this ball's recent kicks: (t, velocity before, velocity after, where (mm))
    struck: tuple | None = None
    last_z: np.ndarray | None = None  # the detection it took at its last sighting (mm)
    born_t: float = 0.0  # when it was confirmed (or found again after leaving play)
    kicks: list[tuple[float, np.ndarray, np.ndarray, np.ndarray]] = field(default_factory=list)
    # when it was last set moving from rest, and the fastest it can have been sent then (mm/s)
    launch: tuple[float, float] | None = None

    @property
    def active(self) -> bool:
        return self.status in ("seen", "predicted")


@dataclass(eq=False)
class Candidate:
    """Unexplained detections that may be a ball: its sightings (times, positions) and class
    votes. ``xy``/``velocity`` are the least-squares constant-velocity fit at its last sighting."""

    ts: list[float]
    xys: list[np.ndarray]
    first_frame: int
    age: int = 1
    votes: np.ndarray = field(default_factory=lambda: np.zeros(N_CLASSES))
    xy: np.ndarray = field(default_factory=lambda: np.zeros(2))
    velocity: np.ndarray = field(default_factory=lambda: np.zeros(2))

    def __post_init__(self):
        self.xy = np.asarray(self.xys[-1], float).copy()

    @property
    def hits(self) -> int:
        return len(self.ts)

    @property
    def t(self) -> float:
        return self.ts[-1]

    @property
    def first_t(self) -> float:
        return self.ts[0]

    def add(self, t: float, xy: np.ndarray, frame: int, tolerance_mm: float) -> None:
        """Another sighting. When the sightings no longer fit one straight constant-speed path
        within ``tolerance_mm`` (the chain jumped to another ball), only the new one is kept."""
        self.ts.append(t)
        self.xys.append(np.asarray(xy, float).copy())
        ts = np.array(self.ts) - t
        xys = np.array(self.xys)
        a = np.column_stack([np.ones_like(ts), ts])
        coef, *_ = np.linalg.lstsq(a, xys, rcond=None)
        if np.hypot(*(a @ coef - xys).T).max() > tolerance_mm:
            self.ts, self.xys = self.ts[-1:], self.xys[-1:]
            self.votes[:] = 0
            self.first_frame, self.age = frame, 0  # aged to 1 at the end of this frame
            coef = np.array([xys[-1], np.zeros(2)])
        self.xy, self.velocity = coef[0], coef[1]


@dataclass
class Step:
    """One frame's detections as the tracker takes them: (K, 2) mm, classes and confidences
    (K,), at ``frame``, ``t``; which detections were ``used`` and which tracks ``matched``."""

    frame: int
    t: float
    z: np.ndarray
    cls: np.ndarray
    conf: np.ndarray
    used: np.ndarray = field(init=False)  # (K,) bool
    matched: set[int] = field(default_factory=set)

    def __post_init__(self):
        self.used = np.zeros(len(self.z), bool)


@dataclass(eq=False)
class Roster:
    """What the tracker keeps between frames and its parts share: every ball's ``tracks``, the
    ``candidates``, the ``events`` that became certain this frame, the motion's clock (``t``
    of this frame, ``dt`` since the last, ``first_frame``), the resting tracks that may be set
    moving this frame (``free``: ``id()`` -> how fast, mm/s) and where each active track was
    last seen before this frame (``path_start``: ``id()`` -> (2,) mm)."""

    tracks: list[Track] = field(default_factory=list)
    candidates: list[Candidate] = field(default_factory=list)
    events: list[dict] = field(default_factory=list)
    t: float | None = None
    dt: float | None = None
    first_frame: int | None = None
    free: dict[int, float] = field(default_factory=dict)
    path_start: dict[int, np.ndarray] = field(default_factory=dict)

    def track(self, track_id: str) -> Track | None:
        """The track of ``track_id``, or None."""
        return next((tr for tr in self.tracks if tr.track_id == track_id), None)
