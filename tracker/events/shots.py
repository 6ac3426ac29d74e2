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

import numpy as np

from calibration.specs import SNOOKER, SnookerTableSpec
from tracker.events.config import ShotConfig
from tracker.events.contacts import Contacts
from tracker.events.cushions import Cushions
from tracker.events.inplay import ShotInPlay
from tracker.events.lines import _fit_lines, _positions, _since
from tracker.events.passes import (
    _NUDGE_WATCH_S,
    first_contact,
    jump_foul,
    jumps,
    nudges,
    onsets,
    passes,
    struck_unseen,
)
from tracker.tracking.state import TableState


class ShotTracker:
    """Feed it every frame's TableState (with the tracker's events); it returns the shot events
    that became certain at that frame: ``shot_start``, ``contact``, ``cushion``, ``jump``,
    ``touching`` and ``shot_end`` (with the shot record for the referee under ``record``).
    Contacts and cushions are dated when they happened, ``fit_frames`` frames or so before.

    The shot being played is ``ShotInPlay``; its contacts are found by ``contacts``, its
    cushions by ``cushions``, the white's path past the balls at rest by
    ``tracker.events.passes``."""

    def __init__(self, config: ShotConfig | None = None, table: SnookerTableSpec = SNOOKER):
        self.config = config or ShotConfig()
        self.table = table
        self.table_ball_diameter_mm = table.ball_diameter_mm
        self.cushions = Cushions(self.config, table)
        self.contacts = Contacts(self.config, table.ball_diameter_mm, self.cushions)
        self._shots = 0
        self._shot: ShotInPlay | None = None
        self._rest: dict[str, np.ndarray] = {}
        # when and where the white was first seen away from its place, and the frames from
        # fit_frames before then on (the shot's history, should it start)
        self._leaving: tuple[int, float, np.ndarray, list] | None = None
        self._recent: deque = deque(maxlen=int(self.config.fit_frames) + 1)
        self._last_seen: dict[str, float] = {}  # id -> when the ball was last seen
        # between shots: balls seen touching the white since when, and those reported
        self._touch_since: dict[str, float] = {}
        self._touch_told: set[str] = set()
        # between shots: since when every ball on the table has been still (None: moving), the
        # stillness the last movement broke, and the rest before the shot in play
        self._still_from: float | None = None
        self._still_before: float | None = None
        self._t_rest: float | None = None
        self._on_before: set[str] = set()  # the balls on the table at the last frame

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
            on_now = set(map(str, ids[on]))
            placed = bool(on_now - self._on_before)  # a ball re-spotted
            self._on_before = on_now
            if bool(np.any(speed[on] >= cfg.still_mm_s)):
                if self._still_from is not None:
                    self._still_before = self._still_from
                self._still_from = None
            elif self._still_from is None or placed:
                self._still_from = state.t
            out += self._touching_at_rest(state)
            start = self._start(state)
            if start is None:
                return out
            out.append(start)
        else:
            self._shot.history.append(self._recent[-1])
        shot = self._shot
        shot.classes.update(zip(map(str, ids), state.class_names))
        unseen = self._gone(state, shot)  # contacts of balls that left play with no path
        passes(state, shot, cfg, self.table_ball_diameter_mm)
        onsets(state, shot, cfg)
        found = unseen + nudges(state, shot, cfg)
        while shot.next_interval + cfg.fit_frames <= len(shot.history):
            found += self.contacts.interval(shot, shot.next_interval)
            shot.next_interval += 1
        found += jumps(shot, state.t)
        out.extend(sorted(found, key=lambda e: e["t"]))
        if self._still(state, shot):
            if shot.still_since is None:
                shot.still_since = state.t
            elif state.t - shot.still_since >= cfg.rest_s - 1e-9:
                out.extend(self._end(state))
        else:
            shot.still_since = None
        return out

    def _start(self, state: TableState) -> dict | None:
        """Between shots: the ``shot_start`` event when the white, seen away from its place
        at two sightings running, has been struck (the shot begun, dated at the first), else
        None."""
        cfg = self.config
        on, ids = state.on_table(), state.track_ids
        if "white" not in ids:
            return None
        w = state.index("white")
        rest = self._rest.get("white")
        if (on[w] and state.state[w] != "seen" and self._leaving is not None
                and state.t - self._leaving[1] <= cfg.hidden_s):
            # unseen after it left (its detection merged with a ball it passed): the next
            # sighting tells
            return None
        if not (on[w] and rest is not None and state.state[w] == "seen"
                and np.hypot(*(state.xy_mm[w] - rest)) > cfg.start_mm):
            self._leaving = None
            return None
        if self._leaving is None:
            step_s = state.t - self._recent[-2][1] if len(self._recent) > 1 else 0.0
            if np.hypot(*(state.xy_mm[w] - rest)) > cfg.max_speed_mm_s * step_s:
                # farther than any ball goes in a frame: the tracker found the white
                # elsewhere (it had another ball before); it rests there
                self._rest["white"] = state.xy_mm[w].copy()
                return None
            # one frame away could be one bad detection (beside the cue, say): a struck
            # white is still away at the next sighting
            self._leaving = (state.frame, state.t, state.xy_mm[w].copy(), list(self._recent))
            return None
        frame, t, xy, history = self._leaving
        self._leaving = None
        self._shots += 1
        self._touch_since, self._touch_told = {}, set()
        # the balls came to rest before the stroke (a shot clock's start): never after it
        rest = self._still_from if self._still_from is not None else self._still_before
        self._t_rest = None if rest is None else min(rest, t)
        self._shot = ShotInPlay(self._shots, frame, t,
                                {k: v.copy() for k, v in self._rest.items()}, white_xy=xy,
                                white_t=t, history=history)
        # the first interval looked at is the one that ends when the white left
        self._shot.next_interval = max(next(
            k for k, h in enumerate(history) if h[0] == frame), 1)
        return {"type": "shot_start", "frame": frame, "t": t, "shot": self._shots}

    @staticmethod
    def _gone(state: TableState, shot: ShotInPlay) -> list[dict]:
        """The balls the tracker says left play this frame noted in ``shot`` (potted, off the
        table), and the contacts of those sent off with no path to show it."""
        unseen = []
        for e in state.events:
            if e["type"] not in ("pot", "off_table"):
                continue
            if e["ball"] == "white":
                shot.cue_potted = True
            else:
                (shot.potted if e["type"] == "pot" else shot.off_table).append(e["class"])
            unseen += struck_unseen(shot, e)
        return unseen

    # -- stillness -------------------------------------------------------------------------------
    def _still(self, state: TableState, shot: ShotInPlay) -> bool:
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

    def settled_t(self, now: float) -> float:
        """The time before which no event of this tracker's can still come: the events it
        returns are dated up to a few frames back (contacts, cushions from the lines either
        side), to ``passes._JUMP_S`` after the white left a ball it went through (a jump), to
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

    def _touching(self, state: TableState, shot: ShotInPlay) -> list[str]:
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

    def _no_stroke(self, state: TableState, shot: ShotInPlay) -> bool:
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
            shot.first_contact = first_contact(shot)
        jumped = jumps(shot, state.t, end=True)
        foul = jump_foul(shot)
        touching = self._touching(state, shot)
        self._touch_told = set(touching)
        touch_events = [{"type": "touching", "frame": state.frame, "t": state.t,
                         "balls": ["white", b], "classes": ["white", shot.classes.get(b)]}
                        for b in touching]
        t_end = shot.still_since if shot.still_since is not None else state.t
        self._still_from = t_end  # the table has stood still since the balls came to rest
        times = {"t_strike": round(shot.t, 4), "t_end": round(max(t_end, shot.t), 4)}
        if self._t_rest is not None:
            times = {"t_rest": round(self._t_rest, 4), **times}
        # the balls (the white among them) that met a cushion in the stroke
        cushioned = sorted({shot.classes.get(b) or "red" for b, _ in shot.last_cushion})
        record = {"type": "shot", "first_contact": shot.first_contact, "potted": shot.potted,
                  "cue_potted": shot.cue_potted, "off_table": shot.off_table,
                  "nominated": None, "foul": "jump_shot" if foul else None,
                  "snookered_after": None, "miss": None,
                  "touching_after": shot.classes.get(touching[0]) if touching else False,
                  "positions": {tid: [round(float(x), 1), round(float(y), 1)]
                                for tid, (x, y), ok in zip(state.track_ids, state.xy_mm,
                                                           state.on_table()) if ok},
                  **times, "cushioned": cushioned}
        return jumped + touch_events + [
            {"type": "shot_end", "frame": state.frame, "t": state.t, "shot": shot.number,
             "first_contact": shot.first_contact, "potted": list(shot.potted),
             "cue_potted": shot.cue_potted, "off_table": list(shot.off_table),
             "record": record}]
