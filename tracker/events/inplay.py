"""The shot being played: what is known of it so far (``ShotInPlay``), the contacts whose pair
may go on to a cushion (``Drive``), and its events (``event``, ``kiss``)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass
class Drive:
    """A contact whose pair may go on to a cushion: the pair's centre of mass moves on a
    straight line through every kiss between them, so only a cushion (or a third ball) turns
    it. balls (2,) ids; t the contact; xy (2, 2) their centres then; sent (2, 2) the most
    each can have been sent at (a perfectly elastic kiss: the other's speed along the line of
    centres passed on whole); v_before (2, 2) their velocities before; centre_v (2,) the
    centre's velocity before the contact."""

    balls: tuple[str, str]
    t: float
    xy: np.ndarray
    sent: np.ndarray
    v_before: np.ndarray
    centre_v: np.ndarray


@dataclass
class ShotInPlay:
    """What is known of the shot being played: its number, the frame and time it started,
    where the balls rested then, and what its frames have shown so far."""

    number: int
    frame: int
    t: float
    rest_xy: dict[str, np.ndarray]
    first_contact: str | None = None
    # id -> (frame, t, distance from the white then): when each object ball began to move
    onset: dict[str, tuple[int, float, float]] = field(default_factory=dict)
    struck: set[str] = field(default_factory=set)
    white_xy: np.ndarray | None = None  # where the white was at the previous frame
    white_t: float = 0.0  # and when
    passed: dict[str, tuple[int, float]] = field(default_factory=dict)  # id -> (frame, t)
    potted: list[str] = field(default_factory=list)
    cue_potted: bool = False
    off_table: list[str] = field(default_factory=list)
    still_since: float | None = None
    # frames of the shot (and the few before it): (frame, t, {id: (x, y) seen}, {ids: their
    # (N, 2) positions}, as ``lines._positions`` gathered them)
    history: list[tuple[int, float, dict[str, np.ndarray], dict]] = field(default_factory=list)
    next_interval: int = 1  # the interval (history[k - 1], history[k]) to look at next
    moved: set[str] = field(default_factory=set)  # balls that have moved in the shot
    last_contact: dict[frozenset, float] = field(default_factory=dict)  # pair -> t
    last_cushion: dict[tuple[str, str], float] = field(default_factory=dict)
    white_contacts: list[tuple[float, str]] = field(default_factory=list)  # (t, id)
    grazed: dict[str, float] = field(default_factory=dict)  # id -> when the white came by
    # id -> when the white, through its place, was next away from it
    left: dict[str, float] = field(default_factory=dict)
    # id -> (2,) mm where the white came within reach of it on the way through its place, and
    # where it was when it was next away from it
    came_from: dict[str, np.ndarray] = field(default_factory=dict)
    went_to: dict[str, np.ndarray] = field(default_factory=dict)
    hit_at: dict[str, list[float]] = field(default_factory=dict)  # id -> its contacts' t
    classes: dict[str, str] = field(default_factory=dict)
    judged: set[str] = field(default_factory=set)  # balls gone through, jumped or not known
    jumps: list[dict] = field(default_factory=list)  # the jump events of the shot
    drives: list[Drive] = field(default_factory=list)  # contacts whose pair may meet a nose
    drove: dict[frozenset, float] = field(default_factory=dict)  # pair -> its last drive's t
    # id -> (t, (2,) mm/s): the velocity a kiss sent it at, from the other ball's line before
    blows: dict[str, list[tuple[float, np.ndarray]]] = field(default_factory=dict)


def event(type_: str, shot: ShotInPlay, t: float, **fields) -> dict:
    """An event of ``shot`` at time t, dated by the first frame at or after it."""
    k = len(shot.history) - 1
    while k > 0 and shot.history[k - 1][1] >= t - 1e-9:
        k -= 1
    return {"type": type_, "frame": shot.history[k][0], "t": float(t), **fields}


def kiss(shot: ShotInPlay, a: str, b: str, tau: float) -> list[dict]:
    """The contact event of balls a and b at tau, noted in the shot."""
    pair = frozenset((a, b))
    shot.last_contact[pair] = tau
    for k in pair:
        shot.hit_at.setdefault(k, []).append(tau)
    if b == "white":
        a, b = b, a
    if a == "white":
        shot.white_contacts.append((tau, b))
    return [event("contact", shot, tau, balls=[a, b],
                  classes=[shot.classes.get(a), shot.classes.get(b)])]
