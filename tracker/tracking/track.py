"""Multi-ball tracking on the table, in table millimetres.

Detections (ball centres in table mm, a colour class and a confidence) come in one frame at a
time; :class:`BallTracker` keeps one Kalman filter per ball and returns a :class:`TableState`
for every frame: each ball's id, class, position, velocity and whether it was measured
(``seen``), coasted (``predicted``), ``potted`` (with the pocket) or ``off_table``.

Identity. Colours and the white have fixed ids (``white``, ``yellow`` ... ``black``); reds are
numbered ``red_01`` .. ``red_15`` when first confirmed (in rack order: by row, then across) and
keep their number for the whole clip: a red never appears from nowhere, so a red that turns up
where no track expected it is a lost red (the likeliest one; one missed only a moment ago just
within its gate), and a new number is given only while fewer reds than racked are known;
a ball followed as a colour that turns out to be a red takes a lost red's number the same way.

Association, per frame:
0. detections nearer each other than ``merge_frac`` of a ball diameter are one ball (two balls
   cannot overlap) and are merged;
1. every active track is predicted to the frame's time;
2. gated Hungarian assignment of detections to tracks, the cost being the negative log
   likelihood of the detection under the track's predicted measurement (Mahalanobis distance
   plus log-determinant) plus the class evidence (the detection's class and confidence against
   the track's ball class);
3. a wider second pass for tracks seen a moment ago and still unmatched: a ball struck by the
   cue, or deflected by a collision or a cushion, leaves its gate in one frame. How far each
   may have gone follows the physics: only the white is struck by the cue; any other ball at
   rest moves only when a moving ball came within reach of it, and no faster than that ball;
4. detections still unexplained feed tentative candidates; a candidate seen ``confirm_hits``
   times on one straight path within ``confirm_window`` frames becomes a ball: a lost ball of
   its class found again, a potted colour re-spotted, the white placed after going in-off, or
   a new ball at the start;
5. class votes (summed confidences) accumulate along each track; a track whose votes come to
   favour another class clearly takes that class's id (a ``relabel`` event), swapping with the
   track that held it when that one looks like the first's class.

Balls leave play: a moving ball that vanishes within reach of a pocket and heading into its fall
circle, or in a pocket's jaws, is ``potted`` there; one that vanishes over a cushion away from
the pockets (only an airborne ball can) is ``off_table``; a resting ball that vanishes as a fast
moving ball reaches it and is deflected by it was struck too fast to be seen, and when it stays
unseen it is potted in the pocket the striker's loss of momentum sent it at; any other vanishing
ball, and one that vanishes while on top of another track (it followed a second detection of
that ball), is hidden (``predicted``): at rest it stays exactly where it was, moving it coasts
(rolling resistance, cushions) and comes to rest. A resting ball other than the white is set
moving only when a moving ball came near it; a detection off its place otherwise is the
detector's error, and a hidden ball is found again on a path that starts where it was left.
A ball leaving play is reported as the class its votes favour; a potted colour comes back only
where the referee spots it: on its own spot, or, that one occupied, on the highest value spot
available.

Broadcast footage: detections carry image noise mapped onto the table through the view
(``TrackerConfig.table_to_image``), so the far end, where a pixel spans several millimetres, is
gated as loosely as it is measured; and a frame that repeats the previous picture (frame-rate
conversion) is no measurement: its time is taken out of the motion's clock.

Events (dicts with ``type``, ``frame``, ``t`` of when it happened, ``ball`` (track id), ``class``),
emitted once certain, which may be a few frames later: ``pot`` (+ ``pocket``; the caller adds
``pocket_px`` from its calibration), ``off_table``, ``respot`` (a potted colour back on the
table: + ``position_mm``, ``spot`` (the spot it is on, or None)), ``white_placed`` (+
``position_mm``, ``in_d``) and ``relabel`` (+ ``was``, the id the ball had). A ``pot`` or
``off_table`` of a ball struck as it vanished from rest, or seen moving only a moment before it
vanished, also names the ball that came by it and when (``struck_by``, ``struck_t``): no path
shows that contact.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from calibration.specs import BALL_CLASSES
from tracker.tracking.association import Association, merge_doubles
from tracker.tracking.config import TrackerConfig
from tracker.tracking.identity import WHITE, Identities
from tracker.tracking.leaving import LeavingPlay
from tracker.tracking.motion import Filters, MotionMatrices, MotionModel
from tracker.tracking.newballs import NewBalls
from tracker.tracking.pockets import Pockets
from tracker.tracking.state import TRACK_STATES, TRACKS_HEADER, TableState, tracks_rows
from tracker.tracking.tracks import Candidate, Roster, Step, Track

__all__ = ["TRACKS_HEADER", "TRACK_STATES", "BallTracker", "DetectionsMM", "MotionMatrices",
           "MotionModel", "TableState", "TrackerConfig", "tracks_rows"]

N_CLASSES = len(BALL_CLASSES)


class DetectionsMM(Protocol):
    """What the tracker reads from a frame's detections (``tracker.vision.detect.Detections``):
    xy_mm (K, 2) table mm, cls (K,) index into BALL_CLASSES or -1, confidence (K,)."""

    xy_mm: np.ndarray | None
    cls: np.ndarray
    confidence: np.ndarray


class BallTracker:
    """Tracks every ball on a snooker table in table mm; see the module docstring.

    ``update(frame_index, t, xy_mm (K, 2), classes (K,), confidences (K,)) -> TableState``,
    frames in time order. Work per frame depends on the balls and detections of that frame only.

    Its parts share one ``Roster`` (the tracks, candidates, this frame's events and the
    clock): ``filters`` (prediction and measurement), ``association`` (which detection is
    whose), ``leaving`` (balls leaving play), ``new_balls`` (candidates confirmed) and
    ``identities`` (who is who)."""

    def __init__(self, config: TrackerConfig | None = None):
        self.config = TrackerConfig() if config is None else config
        if not isinstance(self.config, TrackerConfig):
            raise TypeError(f"BallTracker needs a TrackerConfig, got {type(config).__name__}")
        self.model = MotionModel(self.config)
        self.association = Association(self.config, self.model)
        self.pockets = Pockets(self.config)
        self.roster = Roster()
        self.filters = Filters(self.config, self.model, self.roster)
        self.identities = Identities(self.config, self.model, self.association, self.roster)
        self.leaving = LeavingPlay(self.config, self.model, self.pockets, self.roster,
                                   self.identities)
        self.new_balls = NewBalls(self.config, self.model, self.association, self.roster,
                                  self.filters, self.identities)
        self._last_state: TableState | None = None
        # the last state's (track_id, cls, status, pocket) of each track and their arrays
        self._labels: list[tuple] | None = None
        self._label_arrays: tuple[np.ndarray, ...] = ()
        # time of the source's last frame, and how much of it repeated pictures took: the
        # motion runs on source time minus that lag (events report source time)
        self._t_source: float | None = None
        self._lag = 0.0
        self._source_time: dict[float, float] = {}

    @property
    def tracks(self) -> list[Track]:
        return self.roster.tracks

    @property
    def candidates(self) -> list[Candidate]:
        return self.roster.candidates

    # -- the public step ---------------------------------------------------------------------------
    def update(self, frame_index: int, t: float, detections_mm, classes, confidences
               ) -> TableState:
        """Advance to frame ``frame_index`` at time ``t`` (s) with its detections.

        detections_mm (K, 2) table mm; classes (K,) int index into BALL_CLASSES or -1;
        confidences (K,) in [0, 1]. Returns the TableState of this frame."""
        z, cls, conf = self._checked(t, detections_mm, classes, confidences)
        finite = np.isfinite(z).all(axis=1)
        z, cls, conf = merge_doubles(z[finite], cls[finite], np.clip(conf[finite], 0.0, 1.0),
                                     self.config.merge_frac * self.config.table.ball_diameter_mm)
        if self._repeated(z, t - self._lag):
            # the same picture shown again (frame-rate conversion repeats some frames of
            # broadcast video): no new measurement, and its time is taken out of the clock the
            # motion runs on, so the next picture is one step on, not two
            self._lag += t - self._t_source
            self._t_source = t
            st = self._last_state
            self._last_state = TableState(frame_index, t, st.track_ids, st.classes, st.xy_mm,
                                          st.velocity_mm_s, st.state, st.pocket)
            return self._last_state
        source_t, t = t, self._clock(frame_index, t)
        roster = self.roster
        active = [tr for tr in roster.tracks if tr.active]
        if roster.dt is not None:
            m = self.model.matrices(roster.dt)
            fade = 0.5 ** (roster.dt / self.config.vote_half_life_s)
            self.filters.predict(active, m)
            for tr in active:
                tr.votes *= fade
        step = Step(frame_index, t, z, cls, conf)
        # where each ball was last seen before this frame: the start of its path to this frame
        # (pass 1 moves ``last_seen_x`` of the balls it finds to this frame)
        roster.path_start = {id(tr): tr.last_seen_x[:2] for tr in active}
        # Pass 1: gated likelihood assignment.
        pairs, d2, r = self.association.gated(active, z, cls, conf)
        # which resting balls may have been set moving matters only to one detected off its
        # place (``Filters.measure``)
        off_place = any(not active[i].moving and d2[i, j] > self.config.restless_chi2
                        for i, j in pairs)
        roster.free = self._may_move(active, t) if off_place else {}
        self.leaving.note_strikers(active, t)
        # a moving ball that took another class's detection while one of its own class is left
        # over may have been deflected out of its gate by a collision that sent the ball it
        # struck along its path: pass 2 judges both, and a ball it leaves without a detection
        # keeps that one (unless it gave it to another)
        held = [(i, j) for i, j in pairs if active[i].moving and 0 <= cls[j] != active[i].cls
                and np.isin(np.delete(cls, [jj for _, jj in pairs]), active[i].cls).any()]
        self._take_pairs(active, [p for p in pairs if p not in held], step, d2, r)
        # Pass 2: balls seen a moment ago that jumped out of their gates.
        back = self._wide_pass(active, step, held)
        self._take_pairs(active, back, step, d2, r)
        for i, tr in enumerate(active):
            if i not in step.matched:
                self.leaving.missed(tr, t, frame_index)
        self.leaving.mark_doubles(frame_index)
        used = step.used
        self.new_balls.step(z[~used], cls[~used], conf[~used], t, frame_index)
        self.identities.relabel(t, frame_index)
        self._last_state = self._state(frame_index, source_t)
        return self._last_state

    def _checked(self, t: float, detections_mm, classes, confidences
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``update``'s detections as arrays (K, 2), (K,), (K,), checked, and its time ``t``
        checked to come after the last frame's."""
        z = np.asarray(detections_mm, float)
        if z.size == 0:
            z = np.zeros((0, 2))
        elif z.ndim != 2 or z.shape[1] != 2:
            raise ValueError(f"BallTracker.update: detections_mm must have shape (K, 2), "
                             f"got {z.shape}")
        k = len(z)
        cls = np.asarray(classes, np.int64).reshape(-1)
        conf = np.asarray(confidences, float).reshape(-1)
        if cls.shape != (k,) or conf.shape != (k,):
            raise ValueError(f"BallTracker.update: classes and confidences must have shape "
                             f"({k},), got {cls.shape} and {conf.shape}")
        if ((cls < -1) | (cls >= N_CLASSES)).any():
            raise ValueError("BallTracker.update: classes must be -1 or index BALL_CLASSES")
        if self._t_source is not None and t <= self._t_source:
            raise ValueError(f"BallTracker.update: time must increase, got {t} after "
                             f"{self._t_source}")
        return z, cls, conf

    def _clock(self, frame_index: int, t: float) -> float:
        """The motion's clock moved on to frame ``frame_index`` at source time ``t``: its time
        (source time less what repeated pictures took), with this frame's events cleared."""
        roster = self.roster
        self._t_source = t
        source_t = t
        t = t - self._lag
        self._source_time[t] = source_t
        if len(self._source_time) > 4096:
            self._source_time.pop(next(iter(self._source_time)))
        dt = None if roster.t is None else t - roster.t
        if roster.first_frame is None:
            roster.first_frame = frame_index
        roster.t, roster.dt = t, dt
        roster.events = []
        return t

    def _wide_pass(self, active: list[Track], step: Step, held: list[tuple[int, int]]
                   ) -> list[tuple[int, int]]:
        """Pass 2: the balls of ``active`` seen a moment ago and still unmatched take the
        detections left over that they can have reached (relaunched there); of pass 1's
        ``held`` pairs, those pass 2 made again or left alone, to be taken as pass 1's."""
        z, cls, conf, t = step.z, step.cls, step.conf, step.t
        recent = [i for i, tr in enumerate(active)
                  if i not in step.matched and t - tr.last_seen_t <= self.config.launch_window_s]
        bounds = self._speed_bounds([active[i] for i in recent], t)
        recent, bounds = [i for i, v in zip(recent, bounds) if v > 0], bounds[bounds > 0]
        reach = dict(zip(recent, bounds.tolist()))
        free = np.flatnonzero(~step.used)
        wide = []
        if recent and len(free):
            wide = [(recent[i], free[j]) for i, j in self.association.wide(
                [active[i] for i in recent], bounds, z[free], cls[free], conf[free], t)]
        wide_tracks, wide_dets = {i for i, _ in wide}, {j for _, j in wide}
        back = [(i, j) for i, j in held
                if (i, j) in wide or (i not in wide_tracks and j not in wide_dets)]
        for i, jj in wide:
            if (i, jj) in back:
                continue
            tr = active[i]
            tr.last_z = z[jj].copy()
            self.filters.relaunch(tr, z[jj], t, reach[i])
            self.filters.vote(tr, cls[jj], conf[jj])
            self.filters.seen([tr], t, step.frame)
            step.used[jj] = True
            step.matched.add(i)
        return back

    def _take_pairs(self, active: list[Track], pairs: list[tuple[int, int]], step: Step,
                    d2: np.ndarray, r: np.ndarray) -> None:
        """Pass 1's assignments [(track, detection)]: each track judges its detection
        (``Filters.measure``, with the gating's ``d2`` and ``r``), the filters take theirs in one
        batch, and the class votes; the pairs' detections and tracks are marked in ``step``."""
        z, cls, conf, t = step.z, step.cls, step.conf, step.t
        used, matched = step.used, step.matched
        taken = []  # the pairs whose filters take the detection
        for (i, j), zj in zip(pairs, z[[j for _, j in pairs]]):
            active[i].last_z = zj
            if self.filters.measure(active[i], zj, d2[i, j], r[i], t):
                taken.append((i, j))
            used[j] = True
            matched.add(i)
        if taken:
            rows, cols = np.array(taken).T
            self.filters.take_measurements([active[i] for i, _ in taken], z[cols], r[rows], t)
        for i, j in pairs:
            self.filters.vote(active[i], cls[j], conf[j])
        self.filters.seen([active[i] for i, _ in pairs], t, step.frame)

    def _repeated(self, z: np.ndarray, t: float) -> bool:
        """Whether the frame repeats the previous picture: every ball seen moving in the last
        frame fast enough to have gone several times the measuring noise is detected again
        where it was, to a fraction of a pixel (the rest of the picture may differ a little,
        as the detector adapts)."""
        if self._last_state is None or self.roster.t is None or not len(z):
            return False
        last = self._last_state.frame
        moving = [tr for tr in self.roster.tracks if tr.moving and tr.status == "seen"
                  and tr.last_seen_frame == last and tr.last_z is not None]
        if not moving:
            return False
        at = np.array([tr.last_z for tr in moving])
        tol = 0.5 + self.model.sigma_image_mm(at) / 3
        travel = np.array([np.hypot(*tr.kf.x[2:]) for tr in moving]) * (t - self.roster.t)
        fast = travel >= 4 * tol
        if not fast.any():
            return False
        gap = np.hypot(*(at[:, None] - z[None]).transpose(2, 0, 1)).min(axis=1)
        return bool((gap[fast] <= tol[fast]).all())

    def settled_t(self, now: float) -> float:
        """The time before which no event of the tracker's can still come: a ball that
        vanished and is not yet judged may still be potted or leave the table, dated when it
        vanished (and the contact that sent it off, ``LeavingPlay.sender``, dated when that came); a
        candidate not yet confirmed may still be a ball placed or re-spotted, dated at its
        first sighting."""
        pending = []
        for tr in self.roster.tracks:
            if tr.status == "predicted" and not tr.judged:
                sender = self.leaving.sender(tr)
                pending.append(tr.gone_t if sender is None else min(tr.gone_t, sender[1]))
        pending += [cd.first_t for cd in self.roster.candidates]
        return min([now] + pending)

    def update_detections(self, frame_index: int, t: float, detections: DetectionsMM
                          ) -> TableState:
        """``update`` from a ``tracker.vision.detect.Detections`` that carries ``xy_mm``."""
        if detections.xy_mm is None:
            raise ValueError("BallTracker needs detections in table mm (Detections.xy_mm); "
                             "detect with a calibration")
        return self.update(frame_index, t, detections.xy_mm, detections.cls,
                           detections.confidence)

    def _may_move(self, tracks: list[Track], t: float) -> dict[int, float]:
        """ids (``id()``) of the resting ``tracks`` whose ball can have been set moving since
        the last frame, each with how fast (``_speed_bounds``): the white, or a ball a moving
        ball came near. Any other resting ball detected off its place was detected badly (in
        pieces, or off its centre beside a cue or a hand): it was not launched."""
        resting = [tr for tr in tracks if not tr.moving]
        if self.roster.dt is None or not resting:
            return {id(tr): self.config.max_speed_mm_s for tr in resting}
        bounds = self._speed_bounds(resting, t)
        return {id(tr): float(b) for tr, b in zip(resting, bounds) if b > 0}

    def _speed_bounds(self, tracks: list[Track], t: float) -> np.ndarray:
        """(N,) the fastest each track's ball can have gone since its last sighting (mm/s), 0
        when it cannot have moved. The cue can send the white at any speed; any other ball
        moves only when struck, and a struck ball is no faster than what struck it (an elastic
        collision of equal masses): by a moving ball whose path since its last sighting passed
        within kick_reach_mm of it, or, in a chain (a break through the pack), by one of these
        balls that may itself have moved this frame. A moving ball keeps at most the speed it
        was seen going within launch_window_s (one seen just off a cushion restarts at the slope
        across the bounce, far slower than it goes), or, set moving from rest within that time,
        the speed it can have been struck at (its first steps say little: struck between two
        frames, or squeezed into a cushion and back).
        Estimated speeds get kick_slack of margin, as estimates lag at impacts."""
        c = self.config
        if not tracks:
            return np.zeros(0)
        p = np.array([tr.kf.x[:2] for tr in tracks])
        launched = [tr.launch[1] if tr.launch and t - tr.launch[0] <= c.launch_window_s
                    else 0.0 for tr in tracks]
        on_table = [tr for tr in self.roster.tracks if tr.active]
        recent = dict(zip(map(id, on_table), self.filters.recent_speeds(on_table)))
        bound = np.array([max(recent[id(tr)] * c.kick_slack, v) if tr.moving else 0.0
                          for tr, v in zip(tracks, launched)])
        movers = [(tr, v) for tr in on_table if (v := recent[id(tr)]) >= c.rest_speed_mm_s]
        if movers:
            start = self.roster.path_start
            a = np.array([start.get(id(tr), tr.last_seen_x[:2]) for tr, _ in movers])
            b = np.array([tr.kf.x[:2] for tr, _ in movers])
            speed = np.array([v for _, v in movers])
            ab = b - a
            L2 = np.maximum(np.einsum("mi,mi->m", ab, ab), 1e-9)
            s = np.clip(np.einsum("nmi,mi->nm", p[:, None] - a[None], ab) / L2, 0.0, 1.0)
            gap = np.hypot(*(p[:, None] - (a[None] + s[..., None] * ab[None])).transpose(2, 0, 1))
            # a track is not struck by itself
            self_hit = np.array([[tr is m for m, _ in movers] for tr in tracks])
            struck = (gap <= c.kick_reach_mm) & ~self_hit
            bound = np.maximum(bound, np.where(struck, speed[None] * c.kick_slack, 0.0).max(1))
        white = np.array([tr.cls == WHITE for tr in tracks])
        bound = np.where(white, c.max_speed_mm_s, np.minimum(bound, c.max_speed_mm_s))
        # chains: a ball within kick reach of where a struck ball can have got to
        since = np.array([t - tr.last_seen_t for tr in tracks])
        gap = np.hypot(*(p[:, None] - p[None]).transpose(2, 0, 1))
        np.fill_diagonal(gap, np.inf)
        for _ in range(len(tracks)):
            src = bound > 0
            reach = np.where(src, bound * since + c.kick_reach_mm, -np.inf)
            chained = np.where(gap <= reach[None, :], bound[None, :], 0.0).max(axis=1)
            new = np.maximum(bound, chained)
            if np.array_equal(new, bound):
                break
            bound = new
        return bound

    # -- output ------------------------------------------------------------------------------------
    def _state(self, frame: int, t: float) -> TableState:
        trs = self.roster.tracks
        x = np.array([tr.kf.x for tr in trs]).reshape(-1, 4)
        active = np.array([tr.active for tr in trs], bool)[:, None]
        events = tuple({**e, **{k: self._source_time.get(e[k], e[k]) for k in ("t", "struck_t")
                                if k in e}} for e in self.roster.events)
        # who is who changes seldom: the last frame's arrays (read-only) serve again
        labels = [(tr.track_id, tr.cls, tr.status, tr.pocket) for tr in trs]
        if labels != self._labels:
            self._labels = labels
            self._label_arrays = (np.array([tr.track_id for tr in trs], dtype=str),
                                  np.array([tr.cls for tr in trs], np.int64),
                                  np.array([tr.status for tr in trs], dtype=str),
                                  np.array([tr.pocket for tr in trs], dtype=str))
        ids, classes, status, pocket = self._label_arrays
        return TableState(frame, t, ids, classes, np.where(active, x[:, :2], np.nan),
                          np.where(active, x[:, 2:], 0.0), status, pocket, events)
