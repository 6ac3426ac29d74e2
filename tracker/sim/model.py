"""Records shared by the simulator, the scenario scripts and the renderer.

Units: millimetres, seconds, radians; table coordinates as in ``calibration.specs``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum

import numpy as np


class BallState(IntEnum):
    """Where a ball is. Stored as int8 in arrays."""

    ON_TABLE = 0  # on the cloth, moving or at rest
    AIRBORNE = 1  # above the cloth (jump shot)
    POTTED = 2  # fell through a pocket
    OFF_TABLE = 3  # left the playing surface other than through a pocket
    IN_HAND = 4  # carried by a hand (re-spotting, ball in hand); position is the hand's


@dataclass
class BallSet:
    """The balls of a table at one instant; per-ball data in parallel arrays.

    ids: N track ids (``"white"``, ``"red_01"`` .. ``"red_15"``, ``"yellow"`` ...; pool:
    ``"cue"``, ``"1"`` .. ``"15"``); classes: N ball classes; pos (N, 3) mm (z of a ball on the
    cloth = its radius); vel (N, 3) mm/s; omega (N, 3) rad/s; state (N,) int8 ``BallState``;
    orient (N, 4) unit quaternions (w, x, y, z) turning each ball's own frame into the table's
    (identity when not given).
    """

    ids: list[str]
    classes: list[str]
    pos: np.ndarray
    vel: np.ndarray = None
    omega: np.ndarray = None
    state: np.ndarray = None
    orient: np.ndarray = None

    def __post_init__(self):
        n = len(self.ids)
        if len(self.classes) != n:
            raise ValueError(f"BallSet: {n} ids but {len(self.classes)} classes")
        self.pos = np.asarray(self.pos, dtype=np.float64).reshape(-1, 3) if n else np.zeros((0, 3))
        for name in ("vel", "omega"):
            value = getattr(self, name)
            value = np.zeros((n, 3)) if value is None else np.asarray(value, dtype=np.float64)
            setattr(self, name, value)
        self.state = (np.zeros(n, np.int8) if self.state is None
                      else np.asarray(self.state, dtype=np.int8))
        self.orient = (np.tile([1.0, 0.0, 0.0, 0.0], (n, 1)) if self.orient is None
                       else np.asarray(self.orient, dtype=np.float64))
        for name, shape in (("pos", (n, 3)), ("vel", (n, 3)), ("omega", (n, 3)), ("state", (n,)),
                            ("orient", (n, 4))):
            if getattr(self, name).shape != shape:
                raise ValueError(f"BallSet.{name} must have shape {shape}, "
                                 f"got {getattr(self, name).shape}")

    def __len__(self) -> int:
        return len(self.ids)

    def index(self, track_id: str) -> int:
        return self.ids.index(track_id)

    def copy(self) -> BallSet:
        return BallSet(list(self.ids), list(self.classes), self.pos.copy(), self.vel.copy(),
                       self.omega.copy(), self.state.copy(), self.orient.copy())

    def on_table(self) -> np.ndarray:
        """(N,) bool: balls in play on (or above) the cloth."""
        return (self.state == BallState.ON_TABLE) | (self.state == BallState.AIRBORNE)


@dataclass(frozen=True)
class Strike:
    """How the cue strikes the white.

    direction_deg: heading of the cue in the table plane, counter-clockwise from +x
        (90 = straight up the table towards the top cushion).
    speed_mm_s: the white's speed just after the strike.
    top: vertical tip offset as a fraction of the ball radius, -1..1 (+ follow, - screw/draw;
        0.4 gives natural roll at once).
    side: horizontal tip offset, -1..1 (+ right-hand side seen from behind the cue).
    elevation_deg: cue elevation above the cloth, 0..60: with side it swerves the white, and
        above ~25 degrees a firm stroke makes it jump.
    """

    direction_deg: float
    speed_mm_s: float
    top: float = 0.0
    side: float = 0.0
    elevation_deg: float = 0.0

    def __post_init__(self):
        if not (0 < self.speed_mm_s <= 15000):
            raise ValueError(f"Strike.speed_mm_s must be in (0, 15000], got {self.speed_mm_s}")
        if not (-1 <= self.top <= 1 and -1 <= self.side <= 1):
            raise ValueError("Strike.top and Strike.side must be in [-1, 1]")
        if not (0 <= self.elevation_deg <= 60):
            raise ValueError("Strike.elevation_deg must be in [0, 60]")


@dataclass(frozen=True)
class SimEvent:
    """Something that happened, at time ``t`` seconds from the start of the motion.

    type: ``contact`` (balls = two track ids), ``cushion`` (balls = one id; cushion name),
    ``jaw`` (a ball struck a pocket jaw; pocket name), ``pot`` (pocket name), ``off_table``,
    ``jump`` (the white left the cloth; ``over`` = id of a ball it passed over, if any),
    ``land`` (an airborne ball back on the cloth), ``rest`` (all balls at rest).
    """

    t: float
    type: str
    balls: tuple[str, ...] = ()
    cushion: str | None = None
    pocket: str | None = None
    over: str | None = None
    speed_mm_s: float | None = None  # relative normal speed at impact, where it applies


@dataclass
class Motion:
    """A sampled motion of every ball: ``times`` (T,) s, ``pos`` (T, N, 3) mm,
    ``state`` (T, N) int8 ``BallState``; ``events`` in time order; ``final`` the BallSet at the
    end (all at rest or gone); ``orient`` (T, N, 4) quaternions when the simulation carried the
    balls' orientations, else None."""

    ids: list[str]
    classes: list[str]
    times: np.ndarray
    pos: np.ndarray
    state: np.ndarray
    events: list[SimEvent] = field(default_factory=list)
    final: BallSet | None = None
    orient: np.ndarray | None = None

    def __post_init__(self):
        T, N = len(self.times), len(self.ids)
        if self.pos.shape != (T, N, 3):
            raise ValueError(f"Motion.pos must have shape {(T, N, 3)}, got {self.pos.shape}")
        if self.state.shape != (T, N):
            raise ValueError(f"Motion.state must have shape {(T, N)}, got {self.state.shape}")
        if self.orient is not None and self.orient.shape != (T, N, 4):
            raise ValueError(f"Motion.orient must have shape {(T, N, 4)}, "
                             f"got {self.orient.shape}")

    @property
    def duration(self) -> float:
        return float(self.times[-1]) if len(self.times) else 0.0


# -- orientations ---------------------------------------------------------------------------------
# Unit quaternions (w, x, y, z) in arrays (..., 4); q turns a ball's own frame into the table's.


def quat_mul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Hamilton product a b of quaternion arrays (..., 4) (broadcast)."""
    aw, ax, ay, az = np.moveaxis(a, -1, 0)
    bw, bx, by, bz = np.moveaxis(b, -1, 0)
    return np.stack([aw * bw - ax * bx - ay * by - az * bz,
                     aw * bx + ax * bw + ay * bz - az * by,
                     aw * by - ax * bz + ay * bw + az * bx,
                     aw * bz + ax * by - ay * bx + az * bw], axis=-1)


def quat_from_rotvec(r: np.ndarray) -> np.ndarray:
    """(..., 4) quaternions of rotations by the vectors r (..., 3) (axis times angle, rad)."""
    r = np.asarray(r, dtype=np.float64)
    angle = np.sqrt(np.einsum("...i,...i->...", r, r))
    half = angle / 2
    # sin(a/2)/a without 0/0: its series near zero
    k = np.where(angle > 1e-8, np.sin(half) / np.maximum(angle, 1e-300), 0.5 - angle**2 / 48)
    return np.concatenate([np.cos(half)[..., None], r * k[..., None]], axis=-1)


def quat_matrix(q: np.ndarray) -> np.ndarray:
    """(..., 3, 3) rotation matrices of unit quaternions q (..., 4): table = M @ body."""
    w, x, y, z = np.moveaxis(q, -1, 0)
    return np.stack([
        np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)], -1),
        np.stack([2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)], -1),
        np.stack([2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)], -1),
    ], axis=-2)


def quat_slerp(a: np.ndarray, b: np.ndarray, f: np.ndarray) -> np.ndarray:
    """Spherical interpolation from a to b (..., 4) at fractions f (...,) in 0..1, along the
    shorter arc."""
    dot = np.einsum("...i,...i->...", a, b)
    b = np.where((dot < 0)[..., None], -b, b)
    dot = np.clip(np.abs(dot), 0.0, 1.0)
    theta = np.arccos(dot)
    s = np.sin(theta)
    small = s < 1e-6
    safe = np.where(small, 1.0, s)
    wa = np.where(small, 1 - f, np.sin((1 - f) * theta) / safe)
    wb = np.where(small, f, np.sin(f * theta) / safe)
    out = wa[..., None] * a + wb[..., None] * b
    return out / np.linalg.norm(out, axis=-1, keepdims=True)


def random_orientations(rng: np.random.Generator, n: int) -> np.ndarray:
    """(n, 4) orientations drawn uniformly over all rotations (normalised Gaussian 4-vectors)."""
    q = rng.standard_normal((n, 4))
    return q / np.linalg.norm(q, axis=1, keepdims=True)
