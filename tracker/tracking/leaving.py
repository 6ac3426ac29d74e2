"""Balls leaving play: a ball unseen long enough is judged potted (into a pocket it was heading
for, or one it was struck into too fast to be seen), off the table, or only hidden; a track on
top of another is a double of that ball."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from calibration.specs import BALL_CLASSES
from tracker.tracking.config import TrackerConfig
from tracker.tracking.identity import Identities
from tracker.tracking.motion import MotionModel
from tracker.tracking.pockets import Pockets
from tracker.tracking.tracks import Roster, Track


@dataclass(eq=False)
class LeavingPlay:
    """Judges the tracks of ``roster`` that went unseen, with the ``pockets`` and the
    ``model``'s image noise; ``identities`` settles the class of a ball leaving play."""

    config: TrackerConfig
    model: MotionModel
    pockets: Pockets
    roster: Roster
    identities: Identities

    def mark_doubles(self, frame: int) -> None:
        """Note the seen tracks lying on top of another seen track this frame (centres nearer
        than double_frac of a ball diameter): one of them follows a second detection of the
        other's ball."""
        seen = [tr for tr in self.roster.tracks
                if tr.status == "seen" and tr.last_seen_frame == frame]
        if len(seen) < 2:
            return
        xy = np.array([tr.kf.x[:2] for tr in seen])
        gap = np.hypot(*(xy[:, None] - xy[None]).transpose(2, 0, 1))
        np.fill_diagonal(gap, np.inf)
        near = gap.min(axis=1) < self.config.double_frac * self.config.table.ball_diameter_mm
        for tr in (tr for tr, n in zip(seen, near) if n):
            tr.doubled_frame = frame

    def note_strikers(self, tracks: list[Track], t: float) -> None:
        """For each resting track, the moving ball (if any) whose path since its last
        sighting passes within kick reach of it (widened by the image noise there)."""
        c = self.config
        resting = [tr for tr in tracks if not tr.moving]
        movers = [tr for tr in tracks if tr.moving and t - tr.last_seen_t <= c.launch_window_s]
        if not resting or not movers:
            return
        p = np.array([tr.kf.x[:2] for tr in resting])
        a = np.array([m.last_seen_x[:2] for m in movers])
        ab = np.array([m.kf.x[:2] for m in movers]) - a
        L2 = np.maximum(np.einsum("mi,mi->m", ab, ab), 1e-9)
        s = np.clip(np.einsum("nmi,mi->nm", p[:, None] - a[None], ab) / L2, 0.0, 1.0)
        gap = np.hypot(*(p[:, None] - (a[None] + s[..., None] * ab[None])).transpose(2, 0, 1))
        reach = c.kick_reach_mm + 3 * self.model.sigma_image_mm(p)
        nearest = gap.argmin(axis=1)
        within = gap[np.arange(len(resting)), nearest] <= reach
        for tr, j in zip((tr for tr, w in zip(resting, within) if w), nearest[within].tolist()):
            # the approach that sent it off: while it was still seen, or just after it vanished
            # when none was noted then (the white cued into a ball in one frame), never a later
            # pass over the place it vanished from
            recent = tr.struck is not None and tr.struck[0] >= tr.last_seen_t - c.launch_window_s
            if tr.status == "seen" or (not recent and t - tr.last_seen_t <= c.launch_window_s):
                tr.struck = (t, movers[j])

    def missed(self, tr: Track, t: float, frame: int) -> None:
        if tr.status == "seen":
            tr.gone_frame, tr.gone_t = frame, t
        tr.status = "predicted"
        tr.restless = 0
        x = tr.last_seen_x
        c = self.config
        if tr.judged or t - tr.last_seen_t < c.gone_after_s:
            return
        if np.hypot(*x[2:]) < c.rest_speed_mm_s:
            struck = self._struck_recently(tr)
            if struck and t - tr.last_seen_t < c.struck_gone_s:
                return  # struck as it vanished: judged when it stays unseen
            tr.judged = True
            pocket = self.pockets.struck_into(tr) if struck else None
            if pocket is not None:
                self._leave(tr, "potted", pocket, self.sender(tr))
            return  # otherwise a ball still for the tracker is only hidden
        # unseen long enough to judge, once
        tr.judged = True
        if tr.doubled_frame == tr.last_seen_frame:
            return  # it was a double of the ball beside it, which is still there
        pocket = self.pockets.ahead(x[:2], x[2:]) or self.pockets.at(x[:2], x[2:])
        if pocket is not None:
            self._leave(tr, "potted", pocket, self.sender(tr))
        elif self.pockets.over_cushion(x[:2], x[2:], tr.gone_t - tr.last_seen_t):
            self._leave(tr, "off_table", "", self.sender(tr))

    def sender(self, tr: Track) -> tuple[str, float] | None:
        """The ball that sent ``tr`` off, and when (the frame its path came within reach of
        ``tr``), where its vanishing leaves the contact to no path: a resting ball struck as
        it vanished, or one seen moving only a moment after a ball came by it at rest. None
        otherwise."""
        c = self.config
        if tr.struck is None:
            return None
        when, striker = tr.struck
        if not tr.moving:
            return (striker.track_id, min(when, tr.gone_t)) if self._struck_recently(tr) else None
        if (tr.launch is None or tr.last_seen_t - tr.launch[0] > c.launch_window_s + 1e-9
                or not tr.anchor_t - c.launch_window_s <= when <= tr.launch[0] + 1e-9):
            return None
        return striker.track_id, when

    def _struck_recently(self, tr: Track) -> bool:
        """Whether a resting ball was struck as it was last seen (a moving ball came within
        reach of it then): vanishing now, it may have been sent off too fast to be seen."""
        return (tr.struck is not None and not tr.moving
                and tr.struck[0] >= tr.last_seen_t - self.config.launch_window_s)

    def _leave(self, tr: Track, status: str, pocket: str,
               sender: tuple[str, float] | None = None) -> None:
        """The ball leaves play (``status``, into ``pocket``); ``sender`` (``sender``) the
        ball that sent it off and when, where no path shows the contact."""
        self.identities.settle_class(tr)
        tr.status, tr.pocket = status, pocket
        tr.moving = False
        ev = {"type": "pot" if status == "potted" else "off_table", "frame": tr.gone_frame,
              "t": tr.gone_t, "ball": tr.track_id,
              "class": BALL_CLASSES[tr.cls]}
        if status == "potted":
            ev["pocket"] = pocket
        if sender is not None:
            ev["struck_by"], ev["struck_t"] = sender
        self.roster.events.append(ev)
