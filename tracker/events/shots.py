"""Shots from the stream of table states: when a shot starts and ends, every contact between
balls and with a cushion, which ball the white touched first, what was potted or left the
table, the balls touching the white at rest; the facts the referee is fed.

A shot starts when the white, at rest, is set moving (the cue struck it: it is away from its
place at two sightings running, and the shot is dated at the first). It ends when every ball on
the table has been still for ``rest_s`` seconds, a ball's speed being the slope of its positions
over the last ``smooth_s`` (one noisy frame does not restart the clock).

Contacts come from the trajectories. Each frame interval is looked at once ``fit_frames`` more
frames have been seen: every ball gets a straight line fitted to its positions before the
interval and one after. Two balls touched in the interval when their lines bring their centres
within a diameter (``contact_tol_mm``) and the contact shows: a resting ball set moving, lines
that would have overlapped the balls had nothing happened (``overlap_mm``), or velocities
changed by an impulse along the line of centres. The instant is where the lines before (or, for
a ball struck from rest, after) put the centres one diameter apart, which orders contacts inside
a frame interval: the white's first contact is its earliest. A touch too faint for the lines
(a thin cut at a few mm/s) shows later, when the ball the white came by has crept off its
place. A ball hit a cushion when its line before would take it into the nose, or its line after
comes out of it, and the velocity across the nose turned round (a slow ball's speed in is also
judged over twice the span, its turn dated where the lines meet: it turns within the noise of a
few frames); when it was seen only on one side, that line running well into or out of the nose
is the bounce; a ball struck from rest that comes back off the nose the blow drove it at was
squeezed against that cushion. A bounce too slow for the short lines' noise is looked for again
a few frames on, on lines over twice the span. A ball off a cushion meets it again soon after
only when struck back by a ball that came beside it. The cushion is the nose segment between
the knuckles it touched (at the knuckles and beyond are the jaws).

Several impulses inside a frame interval or two (a kiss, the red's bounce off the cushion
beside it, the kiss again) leave no line that holds between them, so each is tested as a
hypothesis against the lines that do. Two balls' centre of mass runs straight through their
kisses: when it turned at a nose one of them was sent at by their contact, and only that one
could have been there by then, that ball met the cushion (its own lines stopped by the kiss
again), and the pair kissed again where their lines after put them a diameter apart. A pair
kisses again soon after only when a cushion turned one of them in between. A ball that came
straight back off a resting ball that did not move (it passed the blow on to the cushion it
lay against) kissed it: its lines meet a diameter from that ball, turned along the line of
centres.

Balls touching the white at rest (Section 3 Rule 8) are reported as ``touching`` events: between
shots once they have rested so for ``rest_s``, and at the end of a shot, when the shot record
carries the first of them as ``touching_after`` (False when none).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

import numpy as np

from calibration.specs import SNOOKER, SnookerTableSpec
from tracker.tracking.track import TableState

# s: the positions averaged to tell a faintly touched ball has crept off its place
_NUDGE_S = 0.2
# s: how long after the white came by a ball's creeping off its place is put down to a touch
_NUDGE_WATCH_S = 1.0
# the least a contact sends a ball at, as a share of the most (a perfectly elastic kiss): the
# balls' restitution (0.92-0.98), the cloth's friction (~2 m/s^2 while sliding) and the lines'
# speeds (a tenth off) take up to a third
_SENT_LEAST = 2 / 3
# s: how long after the white left a ball it went through it is known whether that ball was
# set moving before (contacts are dated some frames on, a creep from a touch later still)
_JUMP_S = 0.5


@dataclass(frozen=True)
class ShotConfig:
    """start_mm: how far the white must move from its resting place to start a shot;
    moved_mm: how far an object ball must move to count as struck; onset_mm: the movement that
    dates when it was struck (and shows a resting ball set moving); pass_frac: how near (in
    ball diameters) the white's path must come to a resting ball's centre to have gone through
    or over it; still_mm_s: the speed below which a ball is still; rest_s: how long everything
    must be still to end a shot; smooth_s: the span of positions whose slope is a ball's speed
    for that; hidden_s: how long a ball out of sight keeps a shot going on the speed the
    tracker predicts for it (longer, the prediction is a guess), and the longest gap in the
    picture (frames that did not show the table) across which a path's turn is judged a
    cushion; max_speed_mm_s: the fastest a
    ball goes (a break-off is ~8 m/s): a step of the white faster than this is the tracker
    finding it again elsewhere, not a path.

    Contacts: fit_frames: frames fitted on each side of an interval (the delay, in frames,
    before a contact is certain); contact_tol_mm: how much farther than a diameter apart two
    balls' lines may pass and still have touched (the lines' noise); overlap_mm: how far the
    lines before must overlap two balls (or one ball and a cushion nose) to show a contact by
    themselves; kick_mm_s: the velocity change, beyond what the cloth's friction
    (``friction_mm_s2``) gives between the two lines, that is an impulse; start_mm_s: the speed
    of a resting ball's line after that shows it was set moving; cushion_mm_s: the speed across
    a cushion nose, in and out, of a bounce; nudge_mm: how far a resting ball the white came
    within a diameter (and ``contact_tol_mm``) of must have moved, slowly, to have been
    touched (the faintest touches move a ball a few millimetres); touch_mm: how much farther
    than a diameter apart the white and a ball at rest may be to touch (the position noise);
    knuckle_mm: how far inside a knuckle a bounce must meet the nose line to be on the cushion
    (nearer, or beyond, it is on the jaw). The meeting point is known to ~3 mm and cushion and
    jaw contacts both crowd the knuckles, so this trades one for the other: on the bench's
    stress set (300 shots) and sample clips, 5 mm missed 5 cushions met 1.5-4 mm inside a
    knuckle and took no jaw for a cushion; 1 mm finds 4 of them and still takes none; 0.5 mm
    takes a jaw met 0.9 mm inside (black_ending), 0 two more; slow_cushion_mm_s: the speed
    across a nose, in and out, of a slow bounce judged on lines over twice ``fit_frames``
    frames either side (their speeds' noise is ~7 mm/s at 1 mm of position noise and 30 fps,
    a third of the short lines'). On the stress set with detection noise seeds 0/1/2, 15 mm/s
    found 0/9/0 more cushions and 0/1/0 false ones; 10 mm/s 3/10/4 and 0/3/0; 7 mm/s (seed 1)
    14 and 6; sent_deg: how far the direction a contact sends a ball in may be off the line
    of centres the lines give (the centres a few millimetres off over a diameter, ~3 degrees,
    and the throw of the balls' friction, up to ~5): where a ball sent at a nose met it is
    known to its path's length times the tangent."""

    start_mm: float = 8.0
    moved_mm: float = 6.0
    onset_mm: float = 2.0
    pass_frac: float = 0.8
    still_mm_s: float = 15.0
    rest_s: float = 0.2
    smooth_s: float = 0.3
    hidden_s: float = 1.0
    max_speed_mm_s: float = 12000.0
    fit_frames: int = 3
    contact_tol_mm: float = 8.0
    overlap_mm: float = 8.0
    kick_mm_s: float = 250.0
    friction_mm_s2: float = 2000.0
    start_mm_s: float = 60.0
    cushion_mm_s: float = 25.0
    nudge_mm: float = 1.5
    touch_mm: float = 1.0
    knuckle_mm: float = 1.0
    slow_cushion_mm_s: float = 10.0
    sent_deg: float = 6.0

    def __post_init__(self):
        for name in ("start_mm", "moved_mm", "onset_mm", "pass_frac", "still_mm_s", "rest_s",
                     "smooth_s", "hidden_s", "max_speed_mm_s", "fit_frames", "contact_tol_mm",
                     "overlap_mm", "kick_mm_s", "friction_mm_s2", "start_mm_s", "cushion_mm_s",
                     "nudge_mm", "touch_mm", "knuckle_mm", "slow_cushion_mm_s", "sent_deg"):
            if not getattr(self, name) > 0:
                raise ValueError(f"ShotConfig.{name} must be positive, got {getattr(self, name)}")
        if int(self.fit_frames) != self.fit_frames or self.fit_frames < 2:
            raise ValueError(f"ShotConfig.fit_frames must be a whole number >= 2, "
                             f"got {self.fit_frames}")


@dataclass
class _Drive:
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
class _Lines:
    """The balls' lines either side of one interval of a shot's history, (t0, t1] =
    (t[nb - 1], t[nb]]: positions ``p_*`` and velocities ``v_*`` (N, 2) of balls ``ids`` at t0
    on the line before and at t1 on the line after, and where each holds (``ok_*`` (N,)).
    ``resting``: balls at rest before (their line before is their place); ``started``: of
    those, set moving, at ``depart``; ``kicked``: velocity changed by more than ``kick``;
    ``spanned``/``bounced``: lines before spanning a contact/bounce an earlier interval dated;
    ``seen`` (2, N, 2): the positions seen at either end (NaN unseen). The interval's contacts
    fill ``hits`` (ball index -> [t]) and ``from_rest`` (index, the blow's unit direction, t)."""

    ids: list[str]
    t: np.ndarray
    nb: int
    p_before: np.ndarray
    v_before: np.ndarray
    ok_before: np.ndarray
    p_after: np.ndarray
    v_after: np.ndarray
    ok_after: np.ndarray
    kick: float
    resting: np.ndarray
    started: np.ndarray
    depart: np.ndarray
    kicked: np.ndarray
    spanned: np.ndarray
    bounced: np.ndarray
    seen: np.ndarray
    hits: dict[int, list[float]] = field(default_factory=dict)
    from_rest: list[tuple[int, np.ndarray, float]] = field(default_factory=list)

    @property
    def t0(self) -> float:
        return self.t[self.nb - 1]

    @property
    def t1(self) -> float:
        return self.t[self.nb]

    def before(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return self.p_before, self.v_before, self.ok_before

    def after(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return self.p_after, self.v_after, self.ok_after


@dataclass
class _Shot:
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
    # (N, 2) positions}, as :func:`_positions` gathered them)
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
    drives: list[_Drive] = field(default_factory=list)  # contacts whose pair may meet a nose
    drove: dict[frozenset, float] = field(default_factory=dict)  # pair -> its last drive's t
    # id -> (t, (2,) mm/s): the velocity a kiss sent it at, from the other ball's line before
    blows: dict[str, list[tuple[float, np.ndarray]]] = field(default_factory=dict)


def _since(history: list, t: float) -> list:
    """The entries of ``history`` ((frame, t, ...), in time order) at or after t."""
    k = len(history)
    while k > 0 and history[k - 1][1] >= t - 1e-9:
        k -= 1
    return history[k:]


_UNSEEN = np.full(2, np.nan)


def _gap(t: np.ndarray, longest: float) -> bool:
    """Whether the frame times ``t`` (sorted) leave a gap longer than ``longest`` seconds (the
    picture did not show the table: what the balls did meanwhile is not known)."""
    return len(t) > 1 and float(np.diff(t).max()) > longest


def _positions(history: list, ids: list[str]) -> np.ndarray:
    """(M, N, 2) mm: where the balls ``ids`` (N) were seen at the ``history`` entries (M),
    NaN where unseen. Each entry keeps what was gathered from it: the windows looked at
    overlap, mostly over the same balls."""
    if not history or not ids:
        return np.full((len(history), len(ids), 2), np.nan)
    key = tuple(ids)
    rows = []
    for _, _, seen, gathered in history:
        row = gathered.get(key)
        if row is None:
            row = gathered[key] = np.concatenate([seen.get(b, _UNSEEN) for b in ids])
        rows.append(row)
    return np.concatenate(rows).reshape(len(history), len(ids), 2)


def _fit_lines(t: np.ndarray, xy: np.ndarray, t_ref: float):
    """Least-squares lines through each ball's positions: t (M,) s, xy (M, N, 2) mm with NaN
    where unseen. Returns (position at t_ref (N, 2), velocity (N, 2) mm/s, ok (N,): two or more
    points)."""
    return _fit((t - t_ref)[:, None], xy)


def _fit_either_side(t: np.ndarray, xy: np.ndarray, nb: int):
    """:func:`_fit_lines` of the positions before entry ``nb`` (at t[nb - 1]) and of those
    from it on (at t[nb]) -> ((pb, vb, okb), (pa, va, oka))."""
    n = xy.shape[1]
    if 2 * nb != len(t) or n < 2:
        return _fit_lines(t[:nb], xy[:nb], t[nb - 1]), _fit_lines(t[nb:], xy[nb:], t[nb])
    # as one set of 2N lines (with two balls or more, each line's sums run as they would apart)
    tt = np.empty((nb, 2 * n))
    tt[:, :n], tt[:, n:] = (t[:nb] - t[nb - 1])[:, None], (t[nb:] - t[nb])[:, None]
    p, v, ok = _fit(tt, np.concatenate([xy[:nb], xy[nb:]], axis=1))
    return (p[:n], v[:n], ok[:n]), (p[n:], v[n:], ok[n:])


def _fit(tt: np.ndarray, xy: np.ndarray):
    """:func:`_fit_lines` with the times from the reference ``tt`` (M, 1), or (M, N) each
    ball's own."""
    w = np.isfinite(xy[..., 0]).astype(float)  # (M, N)
    x = np.where(np.isnan(xy), 0.0, xy)
    wt = w * tt
    s0, s1, s2 = w.sum(0), wt.sum(0), (wt * tt).sum(0)
    sx = (w[..., None] * x).sum(0)
    stx = (wt[..., None] * x).sum(0)
    det = s0 * s2 - s1 * s1
    ok = (s0 >= 2) & (det > 1e-12)
    safe = np.where(ok, det, 1.0)
    v = (s0[:, None] * stx - s1[:, None] * sx) / safe[:, None]
    p = (sx - v * s1[:, None]) / np.maximum(s0, 1)[:, None]
    ok2 = ok[:, None]
    return np.where(ok2, p, np.nan), np.where(ok2, v, 0.0), ok


def _first_root(p: np.ndarray, v: np.ndarray, dist: float, lo: float, hi: float) -> float | None:
    """The first s in [lo, hi] with |p + v s| = dist, going in (p, v (2,)); None if none."""
    a = float(v @ v)
    b = float(p @ v)
    c = float(p @ p) - dist * dist
    if a < 1e-9:
        return None
    disc = b * b - a * c
    if disc < 0:
        return None
    s = (-b - np.sqrt(disc)) / a
    return float(s) if lo <= s <= hi else None


def _went_over(came_from: np.ndarray | None, ball: np.ndarray, went_to: np.ndarray | None
               ) -> bool:
    """Whether the white, which came within reach of the resting ``ball`` at ``came_from`` and
    was next out of it at ``went_to`` (each (2,) mm, or None when not known), went from one
    side of it to the other: the ball's centre between the two along the white's way. A white
    struck away from a ball it touched, measured once over it (a cue's tip or its own blur
    taken for it), went over nothing."""
    if came_from is None or went_to is None:
        return True
    way = went_to - came_from
    return bool((ball - came_from) @ way > 0 and (went_to - ball) @ way > 0)


def _closest(p: np.ndarray, v: np.ndarray, lo: float, hi: float) -> tuple[float, float]:
    """(s, |p + v s|) at the closest approach of p + v s over s in [lo, hi]."""
    a = float(v @ v)
    s = float(np.clip(-(p @ v) / a, lo, hi)) if a > 1e-9 else lo
    return s, float(np.hypot(*(p + v * s)))


class ShotTracker:
    """Feed it every frame's TableState (with the tracker's events); it returns the shot events
    that became certain at that frame: ``shot_start``, ``contact``, ``cushion``, ``jump``,
    ``touching`` and ``shot_end`` (with the shot record for the referee under ``record``).
    Contacts and cushions are dated when they happened, ``fit_frames`` frames or so before."""

    def __init__(self, config: ShotConfig | None = None, table: SnookerTableSpec = SNOOKER):
        self.config = config or ShotConfig()
        self.table = table
        self.table_ball_diameter_mm = table.ball_diameter_mm
        self._shots = 0
        self._shot: _Shot | None = None
        self._rest: dict[str, np.ndarray] = {}
        # when and where the white was first seen away from its place, and the frames from
        # fit_frames before then on (the shot's history, should it start)
        self._leaving: tuple[int, float, np.ndarray, list] | None = None
        self._recent: deque = deque(maxlen=int(self.config.fit_frames) + 1)
        self._last_seen: dict[str, float] = {}  # id -> when the ball was last seen
        # between shots: balls seen touching the white since when, and those reported
        self._touch_since: dict[str, float] = {}
        self._touch_told: set[str] = set()
        # cushion noses: start (6, 2), unit direction (6, 2), length (6,), normal into the
        # table (6, 2), names
        centre = np.array([table.width_mm / 2, table.length_mm / 2])
        a, d, n, lengths, names = [], [], [], [], []
        for name, (p, q) in table.cushions_mm.items():
            p, q = np.asarray(p, float), np.asarray(q, float)
            u = (q - p) / np.hypot(*(q - p))
            normal = np.array([-u[1], u[0]])
            if normal @ (centre - p) < 0:
                normal = -normal
            a.append(p), d.append(u), n.append(normal), lengths.append(np.hypot(*(q - p)))
            names.append(name)
        self._nose_a, self._nose_d = np.array(a), np.array(d)
        self._nose_n, self._nose_len = np.array(n), np.array(lengths)
        self._nose_names = tuple(names)
        # mm: how far from a nose line a ball's centre is when it touches the nose (the nose is
        # below the ball's equator, so a little less than a radius)
        r, h = table.ball_diameter_mm / 2, table.cushion_nose_height_mm
        self._nose_reach_mm = float(np.sqrt(r * r - (h - r) ** 2))

    @property
    def in_shot(self) -> bool:
        """Whether a shot has started and not yet ended."""
        return self._shot is not None

    @property
    def shots_played(self) -> int:
        """The number of the last shot started."""
        return self._shots

    def resume_after(self, shot_number: int) -> None:
        """Number the next shot ``shot_number + 1`` (a match continued from its log)."""
        if self._shot is not None:
            raise RuntimeError("cannot renumber shots in the middle of a shot")
        self._shots = int(shot_number)

    def update(self, state: TableState) -> list[dict]:
        cfg = self.config
        out: list[dict] = []
        on = state.on_table()
        ids = state.track_ids
        sighted = (state.state == "seen") & np.isfinite(state.xy_mm).all(axis=1)
        seen = dict(zip(ids[sighted].tolist(), state.xy_mm[sighted]))
        self._recent.append((state.frame, state.t, seen, {}))
        if self._leaving is not None:
            self._leaving[3].append(self._recent[-1])
        self._last_seen.update(dict.fromkeys(seen, state.t))
        speed = np.hypot(*state.velocity_mm_s.T) if len(state) else np.zeros(0)
        if self._shot is None:
            # remember where every ball rests; start a shot when the white leaves its place
            for i in np.flatnonzero(on):
                if speed[i] < cfg.still_mm_s:
                    self._rest[ids[i]] = state.xy_mm[i].copy()
            out += self._touching_at_rest(state)
            if "white" not in ids:
                return out
            w = state.index("white")
            rest = self._rest.get("white")
            if (on[w] and state.state[w] != "seen" and self._leaving is not None
                    and state.t - self._leaving[1] <= cfg.hidden_s):
                # unseen after it left (its detection merged with a ball it passed): the next
                # sighting tells
                return out
            if not (on[w] and rest is not None and state.state[w] == "seen"
                    and np.hypot(*(state.xy_mm[w] - rest)) > cfg.start_mm):
                self._leaving = None
                return out
            if self._leaving is None:
                step_s = state.t - self._recent[-2][1] if len(self._recent) > 1 else 0.0
                if np.hypot(*(state.xy_mm[w] - rest)) > cfg.max_speed_mm_s * step_s:
                    # farther than any ball goes in a frame: the tracker found the white
                    # elsewhere (it had another ball before); it rests there
                    self._rest["white"] = state.xy_mm[w].copy()
                    return out
                # one frame away could be one bad detection (beside the cue, say): a struck
                # white is still away at the next sighting
                self._leaving = (state.frame, state.t, state.xy_mm[w].copy(),
                                 list(self._recent))
                return out
            frame, t, xy, history = self._leaving
            self._leaving = None
            self._shots += 1
            self._touch_since, self._touch_told = {}, set()
            self._shot = _Shot(self._shots, frame, t,
                               {k: v.copy() for k, v in self._rest.items()}, white_xy=xy,
                               white_t=t, history=history)
            # the first interval looked at is the one that ends when the white left
            self._shot.next_interval = max(next(
                k for k, h in enumerate(history) if h[0] == frame), 1)
            out.append({"type": "shot_start", "frame": frame, "t": t, "shot": self._shots})
        else:
            self._shot.history.append(self._recent[-1])
        shot = self._shot
        shot.classes.update(zip(map(str, ids), state.class_names))
        unseen = []  # contacts of balls that left play with no path to show them
        for e in state.events:
            if e["type"] == "pot":
                if e["ball"] == "white":
                    shot.cue_potted = True
                else:
                    shot.potted.append(e["class"])
                unseen += self._struck_unseen(shot, e)
            elif e["type"] == "off_table":
                if e["ball"] == "white":
                    shot.cue_potted = True
                else:
                    shot.off_table.append(e["class"])
                unseen += self._struck_unseen(shot, e)
        self._passes(state, shot)
        self._onsets(state, shot)
        found = unseen + self._nudges(state, shot)
        while shot.next_interval + cfg.fit_frames <= len(shot.history):
            found += self._interval(shot, shot.next_interval)
            shot.next_interval += 1
        found += self._jumps(shot, state.t)
        out.extend(sorted(found, key=lambda e: e["t"]))
        if self._still(state, shot):
            if shot.still_since is None:
                shot.still_since = state.t
            elif state.t - shot.still_since >= cfg.rest_s - 1e-9:
                out.extend(self._end(state))
        else:
            shot.still_since = None
        return out

    # -- stillness -------------------------------------------------------------------------------
    def _still(self, state: TableState, shot: _Shot) -> bool:
        """Every ball on the table still: the slope of its positions over the last
        ``smooth_s`` (the tracker's velocity for a ball not seen enough in that time, if seen
        within ``hidden_s``) is below ``still_mm_s``."""
        cfg = self.config
        on = np.flatnonzero(state.on_table())
        if not len(on):
            return True
        recent = _since(shot.history, state.t - cfg.smooth_s)
        t = np.array([h[1] for h in recent])
        ids = state.track_ids[on].tolist()
        xy = _positions(recent, ids)
        _, v, ok = _fit_lines(t, xy, state.t)
        enough = ok & (np.isfinite(xy[..., 0]).sum(axis=0) >= 3)
        lost = np.array([state.t - self._last_seen.get(k, -np.inf) > cfg.hidden_s for k in ids])
        speed = np.where(enough, np.hypot(*v.T),
                         np.where(lost, 0.0, np.hypot(*state.velocity_mm_s[on].T)))
        return bool(np.all(speed < cfg.still_mm_s))

    # -- contacts ------------------------------------------------------------------------------
    def _interval(self, shot: _Shot, k: int) -> list[dict]:
        """Contacts and cushions in the interval between history frames k - 1 and k."""
        cfg, W = self.config, int(self.config.fit_frames)
        lo, hi = max(k - W, 0), min(k + W, len(shot.history))
        hist = shot.history[lo:hi]
        ids = sorted(set().union(*(h[2] for h in hist)))
        if not ids:
            return []
        t = np.array([h[1] for h in hist])
        xy = _positions(hist, ids)
        nb = k - lo
        t0, t1 = t[nb - 1], t[nb]
        (pb, vb, okb), (pa, va, oka) = _fit_either_side(t, xy, nb)
        span = float(t[nb:].sum() / (len(t) - nb) - t[:nb].sum() / nb)  # between the means
        kick = cfg.kick_mm_s + cfg.friction_mm_s2 * span
        # a ball that has not moved yet rests where it was: its line before is that place
        # the white rests until the cue strikes it, the others until a ball does
        resting = np.array([b not in shot.moved and b in shot.rest_xy
                            and (b != "white" or t1 <= shot.t + 1e-9) for b in ids], bool)
        if resting.any():
            pb[resting] = [shot.rest_xy[b] for b, r in zip(ids, resting) if r]
            vb[resting], okb[resting] = 0.0, True
        dv = va - vb
        # set moving: seen off its place at the first frame after the interval, and moving
        first = xy[nb]
        first = np.where(np.isfinite(first), first, pa)
        started = (resting & oka & (np.hypot(*va.T) > cfg.start_mm_s)
                   & (np.hypot(*(first - pb).T) > cfg.onset_mm))
        # when it left: the line after, run back to its place (a slow ball may have left a
        # frame or two before it was seen off it)
        depart = np.full(len(ids), np.nan)
        for n in np.flatnonzero(started):
            back = float((pa[n] - pb[n]) @ va[n] / (va[n] @ va[n]))
            depart[n] = float(min(max(t1 - back, t[0]), t1))
        kicked = okb & oka & (np.hypot(*dv.T) > kick)
        # a line before that spans a contact of an earlier interval holds on neither side of it
        hit = {b for b, when in shot.hit_at.items() if any(t[0] < h <= t0 for h in when)}
        spanned = np.array([b in hit for b in ids])
        # nor one that spans a bounce an earlier interval dated
        off = {c for (c, _), h in shot.last_cushion.items() if t[0] < h <= t0}
        bounced = np.array([b in off for b in ids])
        lines = _Lines(ids, t, nb, pb, vb, okb, pa, va, oka, kick, resting, started, depart,
                       kicked, spanned, bounced, xy[nb - 1:nb + 1])
        out = self._contacts(shot, lines)
        out += self._squeezes(shot, lines)
        hits = lines.hits
        # each line holds between the impulses of the interval: the line before up to the
        # first contact, the line after back to the last one or to leaving a resting place
        before_to = np.array([min([t1] + hits.get(n, [])) for n in range(len(ids))])
        after_from = np.array([max([t0] + hits.get(n, []) + ([depart[n]] if started[n] else []))
                               for n in range(len(ids))])
        # a slow ball turns within the noise of a few frames: the speed at which it came at a
        # nose is also judged over twice the span before
        long = shot.history[max(k - 2 * W, 0):k]
        _, v_long, ok_long = _fit_lines(np.array([h[1] for h in long]), _positions(long, ids), t0)
        v_long[resting], ok_long[resting] = 0.0, True
        if not _gap(t, cfg.hidden_s):  # lines across a gap in the picture turn anywhere in it
            out += self._cushions(shot, lines, before_to, after_from,
                                  np.array([n in hits for n in range(len(ids))]),
                                  np.where(ok_long[:, None], v_long, np.nan))
        out += self._driven(shot, lines)
        for n in np.flatnonzero(started):
            shot.moved.add(ids[n])
        if "white" in ids and t1 > shot.t + 1e-9:
            shot.moved.add("white")
        return out + self._slow_turns(shot, k - W)

    def _slow_turns(self, shot: _Shot, k: int) -> list[dict]:
        """Slow bounces in the interval between history frames k - 1 and k, from lines over
        twice ``fit_frames`` frames either side (a third of the short lines' noise in speed):
        a ball that has moved, in no ball-ball contact over that span, whose speed across a
        nose (under four times ``cushion_mm_s``: faster, the short lines see it) is over
        ``slow_cushion_mm_s`` in on the line before and out on the line after, the two lines
        meeting at the nose (within ``contact_tol_mm`` of its reach). Dated where they meet."""
        cfg, W = self.config, 2 * int(self.config.fit_frames)
        if k < W or k + W > len(shot.history):
            return []
        hist = shot.history[k - W:k + W]
        t = np.array([h[1] for h in hist])
        if _gap(t, cfg.hidden_s):
            return []
        ids = sorted(b for b in set().union(*(h[2] for h in hist)) & shot.moved
                     if not any(t[0] <= c <= t[-1] for c in shot.hit_at.get(b, ())))
        if not ids:
            return []
        xy = _positions(hist, ids)
        t0, t1 = t[W - 1], t[W]
        dt = t1 - t0
        (pb, vb, okb), (pa, va, oka) = _fit_either_side(t, xy, W)
        seen = np.isfinite(xy[..., 0])
        ok = okb & oka & (seen[:W].sum(axis=0) >= W - 1) & (seen[W:].sum(axis=0) >= W - 1)
        reach = self._nose_reach_mm
        sb = np.einsum("nsk,sk->ns", pb[:, None] - self._nose_a[None], self._nose_n)
        sa = np.einsum("nsk,sk->ns", pa[:, None] - self._nose_a[None], self._nose_n)
        ub, ua = vb @ self._nose_n.T, va @ self._nose_n.T
        fast = 4 * cfg.cushion_mm_s
        with np.errstate(invalid="ignore", divide="ignore"):
            meet = t0 + (sa - ua * dt - sb) / (ub - ua)
            depth = sb + ub * (meet - t0)
            found = (ok[:, None] & (ub < -cfg.slow_cushion_mm_s) & (ub > -fast)
                     & (ua > cfg.slow_cushion_mm_s) & (ua < fast)
                     & (np.abs(depth - reach) < cfg.contact_tol_mm)
                     & (meet >= t0 - 0.5 * dt) & (meet <= t1 + 0.25 * dt))
        out = []
        for n, s in zip(*np.nonzero(found)):
            when = float(np.clip(meet[n, s], t0, t1))
            out += self._bounce(shot, ids[n], s, when, pb[n] + vb[n] * (meet[n, s] - t0), dt)
        return out

    @staticmethod
    def _cushioned(shot: _Shot, pair: frozenset, t0: float, t1: float) -> float | None:
        """The first time in (t0, t1] a ball of ``pair`` met a cushion (None if none)."""
        when = [t for (b, _), t in shot.last_cushion.items() if b in pair and t0 < t <= t1]
        return min(when) if when else None

    def _driven(self, shot: _Shot, lines: _Lines) -> list[dict]:
        """Cushions of balls sent at a nose by a contact (``shot.drives``) whose own lines do
        not show it (a kiss again soon after stopped the ball), and that kiss again. The
        pair's centre of mass runs straight through their kisses: it turned at that nose
        (velocity changed by more than ``kick`` over two, within 45 degrees of the nose's
        normal into the table, its lines before and after meeting after the contact and by
        the interval's end), one of the two could have been there by then (at the most it
        was sent at, along a path no other ball lay across), and the other could not (at its
        speed before, the most a kiss leaves it) nor met a cushion then. Judged once the lines
        after start past the soonest it could have been there; dated where the centre's lines
        meet. The pair kissed again if their lines after put them a diameter apart after it."""
        cfg = self.config
        ids, t0, t1, kick = lines.ids, lines.t0, lines.t1, lines.kick
        pa, va, oka = lines.after()
        dt = t1 - t0
        out = []
        for d in list(shot.drives):
            pair = frozenset(d.balls)
            gap, soonest = self._soonest(d, dt)
            if (not np.isfinite(soonest).any() or t1 - d.t > 2 * cfg.fit_frames * dt
                    or any(p & pair and p != pair and t >= d.t
                           for p, t in shot.last_contact.items())):
                shot.drives.remove(d)  # no nose in reach, too late to tell, or a third ball
                continue
            if (t1 < d.t + soonest.min() / _SENT_LEAST + 0.5 * dt  # lines after not past it
                    or not all(b in ids and oka[ids.index(b)] for b in d.balls)):
                continue
            shot.drives.remove(d)
            n = [ids.index(b) for b in d.balls]
            centre_v = (va[n[0]] + va[n[1]]) / 2
            turn = 2 * (centre_v - d.centre_v)  # the cushion's impulse on the ball, mm/s
            inward = turn @ self._nose_n.T  # (6,)
            c0, c1 = d.xy.mean(axis=0), (pa[n[0]] + pa[n[1]]) / 2
            for s in np.flatnonzero((inward > kick) & (np.abs(turn @ self._nose_d.T) < inward)):
                # where the centre's distances from the nose line, before and after, meet
                h0 = float((c0 - self._nose_a[s]) @ self._nose_n[s])
                h1 = float((c1 - self._nose_a[s]) @ self._nose_n[s])
                u0, u1 = float(d.centre_v @ self._nose_n[s]), float(centre_v @ self._nose_n[s])
                meet = (h1 - u1 * t1 - h0 + u0 * d.t) / (u0 - u1)
                if not d.t - 0.25 * dt <= meet <= t1 + 0.25 * dt:
                    continue
                could = soonest[:, s] <= meet - d.t + 0.5 * dt
                near = (gap[:, s] <= np.hypot(*d.v_before.T) * max(meet - d.t, 0.0)
                        + cfg.contact_tol_mm)
                for m in range(2):
                    other = d.balls[1 - m]
                    where = d.xy[m] + d.sent[m] * soonest[m, s]
                    if (not could[m] or near[1 - m]
                            or any(b == other and d.t - dt <= t <= t1 + dt
                                   for (b, _), t in shot.last_cushion.items())
                            or not self._clear(shot, d.balls, d.xy[m], where, d.t)):
                        continue
                    when = float(np.clip(meet, d.t, t1))
                    bounce = self._bounce(shot, d.balls[m], s, when, where, dt)
                    out += bounce
                    p, v = pa[n[1]] - pa[n[0]], va[n[1]] - va[n[0]]
                    root = _first_root(p, -v, self.table_ball_diameter_mm, 0.0, t1 - when)
                    if (bounce and root is not None and float(p @ v) > 0
                            and shot.last_contact.get(pair, -np.inf) < when):
                        out += self._kiss(shot, d.balls[0], d.balls[1], t1 - root)
        return out

    def _soonest(self, d: _Drive, dt: float) -> tuple[np.ndarray, np.ndarray]:
        """(gap, soonest), each (2, 6): how far each ball of drive ``d`` was from each nose
        (beyond the reach of its centre), and the soonest after the contact it could have met
        it (inf where it could not): within ``fit_frames`` frames even at the least it was
        sent at (later, its own lines show the bounce), between the knuckles by as much as
        the direction it was sent in is unsure (``sent_deg``)."""
        cfg = self.config
        gap = np.einsum("msk,sk->ms", d.xy[:, None] - self._nose_a[None],
                        self._nose_n) - self._nose_reach_mm
        closing = -(d.sent @ self._nose_n.T)
        with np.errstate(divide="ignore", invalid="ignore"):
            soonest = np.where(closing > cfg.cushion_mm_s, np.maximum(gap, 0.0) / closing,
                               np.inf)
        soonest[soonest / _SENT_LEAST > cfg.fit_frames * dt] = np.inf
        run = d.sent[:, None] * np.where(np.isfinite(soonest), soonest, 0.0)[..., None]
        along = np.einsum("msk,sk->ms", d.xy[:, None] + run - self._nose_a[None], self._nose_d)
        margin = cfg.knuckle_mm + np.hypot(*run.transpose(2, 0, 1)) * np.tan(
            np.radians(cfg.sent_deg))
        soonest[(along < margin) | (along > self._nose_len - margin)] = np.inf
        return gap, soonest

    def _clear(self, shot: _Shot, pair, a: np.ndarray, b: np.ndarray, t: float) -> bool:
        """Whether no ball but those of ``pair`` lay within a diameter and ``contact_tol_mm``
        of the path from a to b (2,) at the first frame at or after t."""
        seen = _since(shot.history, t)
        if not seen:
            return True
        ab = b - a
        L2 = max(float(ab @ ab), 1e-9)
        near = self.table_ball_diameter_mm + self.config.contact_tol_mm
        for k, p in seen[0][2].items():
            if k in pair:
                continue
            s = float(np.clip((p - a) @ ab / L2, 0.0, 1.0))
            if float(np.hypot(*(a + s * ab - p))) < near:
                return False
        return True

    def _contacts(self, shot: _Shot, lines: _Lines) -> list[dict]:
        """Ball-ball contacts in the interval of ``lines`` (no impulse is read off a line
        before that spans an earlier contact or bounce). The instants of each ball's contacts
        go into ``lines.hits``; balls struck from rest into ``lines.from_rest``, also when
        the contact is one an earlier interval dated (the
        ball seen off its place only now). A ball resting before was kissed only if set moving, or
        if the other came straight back off it; so was a ball whose lines span a bounce or
        contact (they show no impulse) if the other came straight back off where it was seen.
        A pair kisses again soon after only when a cushion
        turned one of them in between: the kiss again is dated where their lines after put them a
        diameter apart. A contact seen on lines before that hold up to it goes into ``shot.drives``
        (once, also when an earlier interval or a nudge dated it)."""
        cfg = self.config
        D = self.table_ball_diameter_mm
        ids, t, t0, t1 = lines.ids, lines.t, lines.t0, lines.t1
        (pb, vb, okb), (pa, va, oka) = lines.before(), lines.after()
        started, depart, resting = lines.started, lines.depart, lines.resting
        kicked, spanned, seen = lines.kicked, lines.spanned | lines.bounced, lines.seen
        hits, from_rest, kick = lines.hits, lines.from_rest, lines.kick
        dt = t1 - t0
        n = len(ids)
        # candidates: the pair's positions at either end of the interval within reach
        p0 = np.where(okb[:, None], pb, pa - va * dt)
        p1 = np.where(oka[:, None], pa, pb + vb * dt)
        reach = np.hypot(*(p1 - p0).T)
        gap0 = np.hypot(*(p0[:, None] - p0[None]).transpose(2, 0, 1))
        gap1 = np.hypot(*(p1[:, None] - p1[None]).transpose(2, 0, 1))
        near = (np.minimum(gap0, gap1) < D + cfg.contact_tol_mm + reach[:, None] + reach[None])
        order = np.arange(n)
        near &= order[:, None] < order[None]  # each pair once
        out = []
        for i, j in zip(*np.nonzero(near)):
            if not ((oka[i] or okb[i]) and (oka[j] or okb[j])):
                continue
            # a ball resting before must be set moving by a contact, unless the other came
            # straight back off it (it passed the blow on, to a cushion or a ball behind it)
            still = [m for m in (i, j) if resting[m] and not started[m]]
            off = None
            if len(still) == 1:
                r, m = still[0], i + j - still[0]
                if okb[m] and oka[m] and kicked[m]:
                    off = self._struck_off(lines, m, pb[r])
            if still and off is None:
                continue
            for r, m in ((i, j), (j, i)):
                # its lines hold on neither side of an impulse: where it was seen tells
                if (off is None and not still and spanned[r] and okb[m] and oka[m]
                        and not spanned[m] and kicked[m] and np.isfinite(seen[:, r]).all()):
                    off = self._struck_off(lines, m, seen[0, r], (seen[1, r] - seen[0, r]) / dt)
            if not (started[i] or started[j] or kicked[i] or kicked[j]):
                continue
            close, tau, overlap = np.inf, None, False
            if okb[i] and okb[j]:
                s, d = _closest(pb[j] - pb[i], vb[j] - vb[i], 0.0, dt)
                close = min(close, d)
                overlap |= d < D - cfg.overlap_mm
                # a ball struck from rest may have been seen off its place late
                early = t[0] - t0 if started[i] or started[j] else -0.5 * dt
                root = _first_root(pb[j] - pb[i], vb[j] - vb[i], D, early, dt)
                if root is not None:
                    tau = t0 + root
            if oka[i] and oka[j]:
                p, v = pa[j] - pa[i], va[j] - va[i]
                # run back no further than a ball set moving from rest left its place
                back = max([-dt] + [depart[n] - t1 for n in (i, j) if started[n]])
                s, d = _closest(p, v, min(back, 0.0), 0.0)
                close = min(close, d)
                overlap |= d < D - cfg.overlap_mm
                if tau is None:
                    root = _first_root(p, -v, D, -0.5 * dt, dt)  # backwards in time
                    if root is not None:
                        tau = t1 - root
            # the impulse along the line of centres (from i to j): pushes j on, i back
            nrm = (pb[j] - pb[i]) if okb[i] and okb[j] else (pa[j] - pa[i])
            if off is not None and not still:
                # the lines of one hold on neither side: the centres where it was seen
                nrm = (seen[0, j] - seen[0, i]) + (seen[1, j] - seen[1, i])
            nrm = nrm / max(float(np.hypot(*nrm)), 1e-9)
            held = oka & okb & ~spanned
            push_j = float((va[j] - vb[j]) @ nrm) if held[j] else 0.0
            push_i = -float((va[i] - vb[i]) @ nrm) if held[i] else 0.0
            impulse = max(push_i, push_j) > 0.5 * kick and min(push_i, push_j) > -0.5 * kick
            # the white leaving its place at the shot's start was the cue's doing
            struck = [n for n in (i, j) if started[n] and ids[n] != "white"]
            if off is not None:
                tau = off
            elif close > D + cfg.contact_tol_mm or not (struck or overlap or impulse):
                continue
            elif started[i] and started[j]:
                # touching balls set moving together: when the later of them left its place
                tau = max(depart[i], depart[j])
            elif tau is None or not (okb[i] and okb[j]):
                tau = (depart[i] if started[i] else depart[j] if started[j]
                       else tau if tau is not None else t0 + 0.5 * dt)
            if tau > t1 + 0.25 * dt:
                continue  # the next interval's
            tau = float(np.clip(tau, t[0], t1))
            pair = frozenset((ids[i], ids[j]))
            last = shot.last_contact.get(pair)
            known = last is not None and tau - last < cfg.fit_frames * dt
            turn = self._cushioned(shot, pair, last, t1) if known and oka[i] and oka[j] else None
            if turn is not None:
                p, v = pa[j] - pa[i], va[j] - va[i]
                root = _first_root(p, -v, D, 0.0, t1 - max(turn, t[0]))  # backwards in time
                if root is not None and float(p @ v) > 0:  # apart after it
                    tau, known = t1 - root, False
            # a ball seen set moving only now by the contact an earlier interval dated
            for m, u in ((i, -nrm), (j, nrm)):
                if started[m] and oka[m]:
                    from_rest.append((m, u, last if known else tau))
            if not known:
                hits.setdefault(i, []).append(tau)
                hits.setdefault(j, []).append(tau)
                out += self._kiss(shot, ids[i], ids[j], tau)
                # the blow each moving ball took: the other's speed along the line of centres,
                # passed on (one struck from rest was off no nose before)
                for m, o, u in ((i, j, -nrm), (j, i, nrm)):
                    if not resting[m] and okb[o] and not spanned[o] and float(vb[o] @ u) > 0:
                        shot.blows.setdefault(ids[m], []).append((tau, float(vb[o] @ u) * u))
            dated = last if known else tau
            if (okb[i] and okb[j] and not (spanned[i] or spanned[j])
                    and shot.drove.get(pair) != dated):
                shot.drove[pair] = dated
                w = float((vb[i] - vb[j]) @ nrm)  # closing speed along the line of centres
                if w > 0:
                    xy = np.array([pb[i], pb[j]]) + np.array([vb[i], vb[j]]) * (tau - t0)
                    sent = np.array([vb[i] - w * nrm, vb[j] + w * nrm])
                    shot.drives.append(_Drive((ids[i], ids[j]), tau, xy, sent,
                                              np.array([vb[i], vb[j]]), (vb[i] + vb[j]) / 2))
        return out

    def _struck_off(self, lines: _Lines, m: int, rest: np.ndarray,
                    drift: np.ndarray | None = None) -> float | None:
        """When ball ``m`` of ``lines`` (line before pb, vb at t0, after pa, va at t1) came
        straight back off a
        ball that stayed at ``rest`` (2,) (or was there at t0 and went on at ``drift`` (2,)
        mm/s): its two lines meet (within ``contact_tol_mm``) in
        the interval (t0, t1], a diameter (and ``contact_tol_mm``) from that ball, coming at
        it, and its velocity changed by more than ``kick`` away from it, within 45 degrees of
        the line of centres. None if not."""
        tol, D = self.config.contact_tol_mm, self.table_ball_diameter_mm
        t0, t1, kick = lines.t0, lines.t1, lines.kick
        pb, vb, pa, va = (lines.p_before[m], lines.v_before[m], lines.p_after[m],
                          lines.v_after[m])
        dv = va - vb
        c = (pa - va * t1) - (pb - vb * t0)  # lines after minus before: c + dv t
        if float(dv @ dv) < 1e-9:
            return None
        tau = float(-(c @ dv) / (dv @ dv))
        if not t0 < tau <= t1 or float(np.hypot(*(c + dv * tau))) > tol:
            return None
        at = pb + vb * (tau - t0)
        if drift is not None:
            rest = rest + drift * (tau - t0)
        gap = float(np.hypot(*(rest - at)))
        n = (rest - at) / max(gap, 1e-9)
        push = -float(dv @ n)
        across = float(np.hypot(*(dv + push * n)))
        closing = float((vb - (0.0 if drift is None else drift)) @ n)
        if abs(gap - D) > tol or closing <= 0 or push <= kick or across >= push:
            return None
        return tau

    def _kiss(self, shot: _Shot, a: str, b: str, tau: float) -> list[dict]:
        """The contact event of balls a and b at tau, noted in the shot."""
        pair = frozenset((a, b))
        shot.last_contact[pair] = tau
        for k in pair:
            shot.hit_at.setdefault(k, []).append(tau)
        if b == "white":
            a, b = b, a
        if a == "white":
            shot.white_contacts.append((tau, b))
        return [self._event("contact", shot, tau, balls=[a, b],
                            classes=[shot.classes.get(a), shot.classes.get(b)])]

    def _cushions(self, shot: _Shot, lines: _Lines, before_to: np.ndarray,
                  after_from: np.ndarray, touched: np.ndarray, v_long: np.ndarray) -> list[dict]:
        """Cushion contacts in the interval of ``lines``: the lines before hold up to
        ``before_to`` (N,), those after back to ``after_from`` (N,); ``touched`` (N,): balls
        in a ball-ball contact in the interval; ``v_long`` (N, 2): velocities fitted over twice
        the span before (NaN where unknown).

        Each ball's distance from each nose line runs down one line and up the other: a bounce
        within reach of the nose (the centre a little under a radius from the nose line: the
        nose is below the ball's equator), dated where the line before meets the nose, or,
        for a slow ball already past the nose line by the noise, where the two lines meet. A
        slow ball's speed in is taken over the longer span when the short line shows none.
        With one line alone (the ball lost on the other side of the interval), that line
        running into or out of the nose by ``overlap_mm`` is a bounce; not a line before that
        spans a contact (a ball stopped by another beside a cushion never reaches it). Such a
        line still tells a ball came in, but neither where it went nor when it met the nose:
        the ball turned at the nose only if its line after was there in the interval (a white
        kissed back by a ball that came off the cushion was not), and if the line before does
        not meet the nose in the interval, the line after dates the bounce (of a ball struck a
        frame or so before it)."""
        cfg = self.config
        ids, t0, t1, spanned = lines.ids, lines.t0, lines.t1, lines.spanned
        (pb, vb, okb), (pa, va, oka) = lines.before(), lines.after()
        dt = t1 - t0
        reach = self._nose_reach_mm
        # (N, 6): distance of the centre from each nose line, and the speed across it
        sb = np.einsum("nsk,sk->ns", pb[:, None] - self._nose_a[None], self._nose_n)
        ub = vb @ self._nose_n.T
        sa = np.einsum("nsk,sk->ns", pa[:, None] - self._nose_a[None], self._nose_n)
        ua = va @ self._nose_n.T
        okb, oka = okb[:, None] & np.isfinite(sb), oka[:, None] & np.isfinite(sa)
        into = okb & (ub < -cfg.cushion_mm_s)
        out_of = oka & (ua > cfg.cushion_mm_s)
        # the speed into the nose of a slow ball, over the longer span, if the short line
        # missed it (but did not see it going out: the longer one may hold a bounce)
        with np.errstate(invalid="ignore"):
            ub_in = np.where(into | (ub > 0), ub, v_long @ self._nose_n.T)
            came = okb & (ub_in < -cfg.cushion_mm_s)
        with np.errstate(invalid="ignore", divide="ignore"):
            # the line before run on to the first contact, the line after back to the last
            reach_b = sb + ub * (before_to - t0)[:, None]
            reach_a = sa - ua * (t1 - after_from)[:, None]
            hit_b = (into & (reach_b < reach - cfg.overlap_mm) & (sb > reach - cfg.contact_tol_mm)
                     & ~spanned[:, None])
            hit_a = out_of & (reach_a < reach - cfg.overlap_mm) & (sa > reach - cfg.contact_tol_mm)
            # where the lines meet: sb + ub (tau - t0) = sa + ua (tau - t1)
            meet = t0 + (sa - ua * dt - sb) / (ub_in - ua)
            depth = sb + ub_in * (meet - t0)
            turned = (came & out_of & ~touched[:, None]
                      & (np.where(spanned[:, None], reach_a,
                                  np.fmin(depth, np.fmin(reach_b, reach_a)))
                         < reach + cfg.contact_tol_mm))
            # into the nose: when the line before met it, or (a slow ball already past the
            # nose line by the noise before the interval) where the lines meet
            touch = t0 + (reach - sb) / ub_in
            # a line before that spans a contact may have the speed in wrong: unless it meets
            # the nose in the interval, when the line after left it
            dated_b = came & (~spanned[:, None] | ((touch >= t0 - 0.5 * dt)
                                                  & (touch <= t1 + 0.25 * dt)))
            tau = np.where(dated_b, np.where(turned & (touch < t0 - 0.5 * dt), meet, touch),
                           t1 - (sa - reach) / ua)
        found = (turned | hit_b | hit_a) & (tau >= t0 - 0.5 * dt) & (tau <= t1 + 0.25 * dt)
        out = []
        for n, s in zip(*np.nonzero(found)):
            when = float(np.clip(tau[n, s], t0, t1))
            if dated_b[n, s]:
                # where the line before meets the nose (or is, if already past it)
                where = pb[n] + vb[n] * (min(touch[n, s], tau[n, s]) - t0)
            else:
                where = pa[n] + va[n] * (when - t1)
            out += self._bounce(shot, ids[n], s, when, where, dt)
        return out

    def _squeezes(self, shot: _Shot, lines: _Lines) -> list[dict]:
        """Cushions of balls struck from rest (``lines.from_rest``: index, the blow's unit
        direction, its instant) that were seen coming off the nose the blow drove them at
        from their place: a ball struck from rest goes the way of the blow, only a cushion
        turns it back. The nose is the one the blow's line meets between its knuckles. The
        bounce is when its line after left that nose; the nose must be near enough for the ball
        to have been there and back by the interval's end."""
        cfg = self.config
        reach = self._nose_reach_mm
        ids, t0, t1, pb = lines.ids, lines.t0, lines.t1, lines.p_before
        pa, va = lines.p_after, lines.v_after
        out = []
        for n, u, t_hit in lines.from_rest:
            toward = self._nose_n @ u  # (6,): < 0 driven at a nose
            gap = np.einsum("sk,sk->s", pb[n] - self._nose_a, self._nose_n) - reach
            with np.errstate(divide="ignore", invalid="ignore"):
                travel = np.where(toward < 0, np.maximum(gap, 0.0) / -toward, np.inf)
                # where the blow's line meets each nose line: a nose is met between its
                # knuckles (the long cushions' two noses lie on one line)
                along = np.einsum("sk,sk->s", pb[n] + u * np.where(
                    np.isfinite(travel), travel, 0.0)[:, None] - self._nose_a, self._nose_d)
            travel = np.where((along >= 0) & (along <= self._nose_len), travel, np.inf)
            s = int(np.argmin(travel))
            speed = float(np.hypot(*va[n]))
            ua = float(self._nose_n[s] @ va[n])
            if not (ua > cfg.cushion_mm_s and -toward[s] * speed > cfg.cushion_mm_s
                    and travel[s] <= speed * (t1 - t_hit) + cfg.contact_tol_mm):
                continue
            sa = float((pa[n] - self._nose_a[s]) @ self._nose_n[s])
            when = float(np.clip(t1 - (sa - reach) / ua, t_hit, t1))
            out += self._bounce(shot, ids[n], s, when, pb[n] + u * travel[s], t1 - t0)
        return out

    def _bounce(self, shot, tid: str, s: int, when: float, where: np.ndarray,
                dt: float) -> list[dict]:
        """The cushion event of ball ``tid`` meeting nose ``s`` at ``where`` (2,) at ``when``
        (none if that is beyond the knuckles or the bounce an earlier interval dated)."""
        along = float((where - self._nose_a[s]) @ self._nose_d[s])
        knuckle = self.config.knuckle_mm
        if not knuckle <= along <= self._nose_len[s] - knuckle:
            return []  # at or beyond the knuckles: a jaw of the pocket
        key = (tid, self._nose_names[s])
        last = shot.last_cushion.get(key)
        if (last is not None and when - last < self.config.fit_frames * dt
                and not self._struck_back(shot, tid, s, last, when, dt)):
            return []  # the bounce an earlier interval dated
        shot.last_cushion[key] = when
        return [self._event("cushion", shot, when, ball=tid, **{"class": shot.classes.get(tid)},
                            cushion=self._nose_names[s])]

    def _struck_back(self, shot: _Shot, tid: str, s: int, t0: float, t1: float,
                     dt: float) -> bool:
        """Whether ball ``tid``, off nose ``s`` at t0, may have been struck back at it by t1: a
        kiss in (t0, t1) sent it at that nose (faster than ``cushion_mm_s``, the line of centres
        within 45 degrees of the nose's normal), or a ball that
        was not beside it about the bounce (within a diameter and ``contact_tol_mm`` at a frame
        of the ``fit_frames`` before it, or in a contact with it dated from then to t1) came
        there at a frame in (t0, t1]."""
        near = self.table_ball_diameter_mm + self.config.contact_tol_mm
        W = int(self.config.fit_frames)
        for t, v in shot.blows.get(tid, ()):
            # the line of centres within 45 degrees of the nose's normal: what the ball kept
            # of its own velocity, across that line, does not take it off the nose
            inward = -float(v @ self._nose_n[s])
            if (t0 < t < t1 and inward > self.config.cushion_mm_s
                    and inward > abs(float(v @ self._nose_d[s]))):
                return True

        def beside(seen):
            return {k for k, p in seen.items() if k != tid and tid in seen
                    and float(np.hypot(*(p - seen[tid]))) < near}

        was = set().union(*(beside(h[2]) for h in _since(shot.history, t0 - W * dt)
                            if h[1] <= t0))
        was |= {b for pair, t in shot.last_contact.items() if tid in pair
                and t0 - W * dt <= t <= t1 for b in pair}
        for _, t, seen, _ in _since(shot.history, t0):
            if t > t1:
                break
            if t > t0 and beside(seen) - was:
                return True
        return False

    def _event(self, type_: str, shot: _Shot, t: float, **fields) -> dict:
        """An event at time t, dated by the first frame at or after it."""
        k = len(shot.history) - 1
        while k > 0 and shot.history[k - 1][1] >= t - 1e-9:
            k -= 1
        return {"type": type_, "frame": shot.history[k][0], "t": float(t), **fields}

    # -- first contact from the object balls' onsets -------------------------------------------
    def _onsets(self, state: TableState, shot: _Shot) -> None:
        """When each object ball first left its place by ``onset_mm`` (counted once it has
        moved ``moved_mm``): the first contact when the trajectories gave none (the white
        hidden at the contact, say)."""
        cfg = self.config
        on = state.on_table()
        white = (state.xy_mm[state.index("white")] if "white" in state.track_ids
                 else np.full(2, np.nan))
        balls = [(i, tid) for i, tid in zip(np.flatnonzero(on), state.track_ids[on].tolist())
                 if tid != "white" and tid in shot.rest_xy]
        if not balls:
            return
        xy = state.xy_mm[[i for i, _ in balls]]
        rest = np.array([shot.rest_xy[tid] for _, tid in balls])
        for (_, tid), moved in zip(balls, np.hypot(*(xy - rest).T).tolist()):
            if moved > cfg.onset_mm and tid not in shot.onset:
                gap = (float(np.hypot(*(shot.rest_xy[tid] - white))) if np.isfinite(white).all()
                       else np.inf)
                shot.onset[tid] = (state.frame, state.t, gap)
            if moved > cfg.moved_mm:
                shot.struck.add(tid)

    def _first_contact(self, shot: _Shot) -> str | None:
        """The class of the ball the white touched first: its earliest contact, unless an
        object ball was seen off its place before that (a contact the lines missed: only the
        white moves at first, so that ball was hit by it); with no contact, the object ball
        that started moving first (in a pack, the one beside the white)."""
        first = min(shot.white_contacts) if shot.white_contacts else None
        if shot.struck:
            tid = min(shot.struck, key=lambda k: (shot.onset[k][0], shot.onset[k][2], k))
            if first is None or shot.onset[tid][1] < first[0]:
                return shot.classes.get(tid)
        return None if first is None else shot.classes.get(first[1])

    def _struck_unseen(self, shot: _Shot, gone: dict) -> list[dict]:
        """The contact of a ball that left play sent off too fast, or seen moving too briefly,
        for the lines (the tracker's ``pot`` or ``off_table`` with ``struck_by``, the ball
        that reached it, and ``struck_t``) when none was found for it: dated then, not before
        the shot began (a white struck into it within a frame or two)."""
        striker, ball = gone.get("struck_by"), gone["ball"]
        if striker is None or ball in shot.hit_at:
            return []
        return self._kiss(shot, striker, ball, max(float(gone["struck_t"]), shot.t))

    def _nudges(self, state: TableState, shot: _Shot) -> list[dict]:
        """Contacts too faint for the lines: a resting ball the white came by that has since
        crept off its place by ``nudge_mm`` (its positions over the last ``_NUDGE_S``), too
        slowly to have been seen set moving. Dated when the white came by."""
        cfg = self.config
        out = []
        recent = _since(shot.history, state.t - _NUDGE_S)
        for tid, t_by in list(shot.grazed.items()):
            if tid in shot.moved or state.t - t_by > _NUDGE_WATCH_S:
                continue
            pts = np.array([h[2][tid] for h in recent if tid in h[2]])
            if len(pts) < 3:
                continue
            t = np.array([h[1] for h in recent if tid in h[2]])
            _, v, _ = _fit_lines(t, pts[:, None], state.t)
            away = float(np.hypot(*(pts.mean(axis=0) - shot.rest_xy[tid])))
            if away > cfg.nudge_mm and float(np.hypot(*v[0])) < cfg.start_mm_s:
                shot.moved.add(tid)
                out += self._kiss(shot, "white", tid, t_by)
        return out

    def _passes(self, state: TableState, shot: _Shot) -> None:
        """Balls at rest that the white's path went through: between two frames the white's
        centre came within ``pass_frac`` of a ball diameter of a resting ball's centre, and
        when it was next a diameter (and ``contact_tol_mm``) away from it. If that ball was
        not set moving before the white left it, the white went over it (a jump). Also when the
        white last came within that reach of each resting ball (the date of a faint touch). A
        step no ball could make (the tracker re-finding a lost white far away) is no path."""
        if "white" not in state.track_ids:
            return
        w = state.xy_mm[state.index("white")]
        if not np.isfinite(w).all():
            shot.white_xy = None
            return
        a = w if shot.white_xy is None else shot.white_xy
        dt = state.t - shot.white_t
        shot.white_xy, shot.white_t = w.copy(), state.t
        ab = w - a
        L2 = float(ab @ ab)
        if L2 > (self.config.max_speed_mm_s * dt) ** 2:
            return
        ids = [k for k in shot.rest_xy if k != "white"]
        if not ids:
            return
        rest = np.array([shot.rest_xy[k] for k in ids])  # (M, 2)
        D = self.table_ball_diameter_mm
        near = D + self.config.contact_tol_mm
        s = (np.minimum(np.maximum((rest - a) @ ab / L2, 0.0), 1.0) if L2 >= 1e-9
             else np.zeros(len(ids)))
        gap = np.hypot(*(a + s[:, None] * ab - rest).T)
        for tid in shot.passed.keys() - shot.left.keys():
            if np.hypot(*(w - shot.rest_xy[tid])) >= near:
                shot.left[tid] = state.t
                shot.went_to[tid] = w.copy()
        was_out = np.hypot(*(a - rest).T) >= near
        for m in np.flatnonzero(gap < near):
            tid = ids[m]
            if was_out[m] or tid not in shot.grazed:
                # a new approach: when the white came a diameter from it (or nearest)
                root = _first_root(a - rest[m], ab, D, 0.0, 1.0)
                shot.grazed[tid] = state.t - dt + dt * (s[m] if root is None else root)
                if tid not in shot.passed:
                    shot.came_from[tid] = a + ab * (0.0 if root is None else root)
            if gap[m] < self.config.pass_frac * D and tid not in shot.passed:
                shot.passed[tid] = (state.frame, state.t)

    def _jumps(self, shot: _Shot, now: float, end: bool = False) -> list[dict]:
        """The jumps now known: a ball the white went through was jumped unless it was set
        moving (seen off its place or in a contact) before the white left it (a ball hit
        later, by the white back again or another ball, was still jumped). It is judged
        ``_JUMP_S`` after the white left it, or at the shot's ``end``."""
        events = []
        for tid, (frame, t) in sorted(shot.passed.items(), key=lambda kv: kv[1]):
            left = shot.left.get(tid)
            if tid in shot.judged or not (end or (left is not None and now - left >= _JUMP_S)):
                continue
            shot.judged.add(tid)
            moved = [shot.onset[tid][1]] if tid in shot.onset else []
            moved += shot.hit_at.get(tid, [])
            if moved and (left is None or min(moved) <= left):
                continue
            if not moved and (tid in shot.struck or tid in shot.moved):
                continue
            if not _went_over(shot.came_from.get(tid), shot.rest_xy[tid], shot.went_to.get(tid)):
                continue
            events.append({"type": "jump", "frame": frame, "t": t, "ball": "white",
                           "class": "white", "over": tid})
        shot.jumps += events
        return events

    def _jump_foul(self, shot: _Shot) -> bool:
        """Whether a jump came before the first contact: the jump-shot foul of the definitions
        in Section 2, which excepts jumping a ball after a lawful contact."""
        first_t = None
        if shot.white_contacts:
            first_t = min(shot.white_contacts)[0]
        elif shot.struck:
            first_t = min(shot.onset[k][1] for k in shot.struck)
        return any(first_t is None or e["t"] < first_t for e in shot.jumps)

    def settled_t(self, now: float) -> float:
        """The time before which no event of this tracker's can still come: the events it
        returns are dated up to a few frames back (contacts, cushions from the lines either
        side), to ``_JUMP_S`` after the white left a ball it went through (a jump), to
        ``_NUDGE_WATCH_S`` after it came by one (a faint touch), and to a contact whose pair
        may yet be found to have met a cushion (``shot.drives``)."""
        if self._shot is None:
            return self._leaving[1] if self._leaving is not None else now
        shot = self._shot
        k = max(shot.next_interval - 1 - int(self.config.fit_frames), 0)
        pending = [now, shot.history[k][1] if shot.history else now]
        pending += [t for tid, t in shot.grazed.items()
                    if tid not in shot.moved and now - t <= _NUDGE_WATCH_S]
        pending += [t for tid, (_, t) in shot.passed.items() if tid not in shot.judged]
        pending += [d.t for d in shot.drives]
        return min(pending)

    def _touching(self, state: TableState, shot: _Shot) -> list[str]:
        """Ids of the balls the white rests against: centres within a diameter and
        ``touch_mm``, positions averaged over the stillness before the end."""
        if "white" not in state.track_ids or not state.on_table()[state.index("white")]:
            return []
        since = shot.still_since if shot.still_since is not None else state.t
        recent = [h[2] for h in _since(shot.history, since)] or [{}]
        mean = {}
        for i in np.flatnonzero(state.on_table()):
            tid = str(state.track_ids[i])
            pts = [h[tid] for h in recent if tid in h]
            mean[tid] = np.mean(pts, axis=0) if pts else state.xy_mm[i]
        w = mean["white"]
        limit = self.table_ball_diameter_mm + self.config.touch_mm
        return sorted(k for k, p in mean.items()
                      if k != "white" and float(np.hypot(*(p - w))) <= limit)

    def _no_stroke(self, state: TableState, shot: _Shot) -> bool:
        """Nothing happened: no ball but the white moved, touched anything or left the table,
        and the white is back within ``start_mm`` of where it rested, or never rolled (no five
        frames running of steps between 1 mm and the fastest a ball goes: the tracker moved
        the white's track about between balls, at the start of a clip)."""
        rest = shot.rest_xy.get("white")
        if rest is None or "white" not in state.track_ids:
            return False
        w = state.xy_mm[state.index("white")]
        seen = [(h[1], h[2]["white"]) for h in shot.history if "white" in h[2]]
        run = longest = 0
        for (t0, a), (t1, b) in zip(seen, seen[1:]):
            step = float(np.hypot(*(b - a)))
            run = run + 1 if 1.0 < step <= self.config.max_speed_mm_s * (t1 - t0) else 0
            longest = max(longest, run)
        back = np.isfinite(w).all() and np.hypot(*(w - rest)) <= self.config.start_mm
        return bool((back or longest < 5)
                    and not (shot.moved - {"white"}) and not shot.struck
                    and not shot.white_contacts and not shot.potted and not shot.off_table
                    and not shot.cue_potted and not shot.last_cushion)

    def _touching_at_rest(self, state: TableState) -> list[dict]:
        """Between shots: a ``touching`` event for each ball resting against the white for
        ``rest_s`` (the position of a frame's start, or one set up by hand), once."""
        rest = self._rest
        w = rest.get("white")
        if w is None or "white" not in state.track_ids:
            return []
        on = {str(k) for k in state.track_ids[state.on_table()]}
        limit = self.table_ball_diameter_mm + self.config.touch_mm
        now = {k for k, p in rest.items()
               if k != "white" and k in on and float(np.hypot(*(p - w))) <= limit}
        self._touch_since = {k: self._touch_since.get(k, state.t) for k in now}
        out = []
        for k, since in sorted(self._touch_since.items()):
            if k not in self._touch_told and state.t - since >= self.config.rest_s - 1e-9:
                self._touch_told.add(k)
                cls = state.class_names[state.index(k)]
                out.append({"type": "touching", "frame": state.frame, "t": state.t,
                            "balls": ["white", k], "classes": ["white", cls]})
        return out

    def _end(self, state: TableState) -> list[dict]:
        shot = self._shot
        self._shot = None
        self._rest = {}
        if self._no_stroke(state, shot):
            # the white seen off its place beside the cue or a hand, then back: no shot
            self._shots -= 1
            return []
        if shot.first_contact is None:
            shot.first_contact = self._first_contact(shot)
        jumps = self._jumps(shot, state.t, end=True)
        jump_foul = self._jump_foul(shot)
        touching = self._touching(state, shot)
        self._touch_told = set(touching)
        touch_events = [{"type": "touching", "frame": state.frame, "t": state.t,
                         "balls": ["white", b], "classes": ["white", shot.classes.get(b)]}
                        for b in touching]
        record = {"type": "shot", "first_contact": shot.first_contact, "potted": shot.potted,
                  "cue_potted": shot.cue_potted, "off_table": shot.off_table,
                  "nominated": None, "foul": "jump_shot" if jump_foul else None,
                  "snookered_after": None, "miss": None,
                  "touching_after": shot.classes.get(touching[0]) if touching else False,
                  "positions": {tid: [round(float(x), 1), round(float(y), 1)]
                                for tid, (x, y), ok in zip(state.track_ids, state.xy_mm,
                                                           state.on_table()) if ok}}
        return jumps + touch_events + [
            {"type": "shot_end", "frame": state.frame, "t": state.t, "shot": shot.number,
             "first_contact": shot.first_contact, "potted": list(shot.potted),
             "cue_potted": shot.cue_potted, "off_table": list(shot.off_table),
             "record": record}]
