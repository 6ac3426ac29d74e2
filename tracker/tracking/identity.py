"""Who is who: a red's number (a red found is a lost red, never one from nowhere), a colour
back only where the referee spots it, and a ball whose class votes come to favour another
class taking that class's id."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from calibration.specs import BALL_CLASSES, COLOURS
from tracker.tracking.association import Association
from tracker.tracking.config import TrackerConfig
from tracker.tracking.motion import MotionModel
from tracker.tracking.tracks import Roster, Track

RED = BALL_CLASSES.index("red")
WHITE = BALL_CLASSES.index("white")


@dataclass(eq=False)
class Identities:
    """Gives the tracks of ``roster`` their ids, with the ``model``'s image noise and the
    ``association``'s predictions."""

    config: TrackerConfig
    model: MotionModel
    association: Association
    roster: Roster

    def on_spot(self, xy: np.ndarray, colour: str, ball: Track | None = None) -> bool:
        """Whether ``xy`` (2,) mm is where the referee re-spots ``colour`` (Section 3 Rule 4,
        spotting colours): on its own spot; when that is occupied (a ball placed there would
        touch another), on the highest value spot available; when every spot is occupied, on
        the centre line by its own spot. On a spot is within a ball diameter of it, allowing
        for the image noise there; ``ball``, the track at ``xy`` if any, occupies nothing."""
        table = self.config.table
        noise = 3 * float(self.model.sigma_image_mm(xy)[0])
        d_mm = table.ball_diameter_mm
        others = np.array([tr.kf.x[:2] for tr in self.roster.tracks
                           if tr.active and tr is not ball]).reshape(-1, 2)

        def occupied(spot: np.ndarray) -> bool:
            return bool(len(others)) and float(np.hypot(*(others - spot).T).min()) < d_mm

        def on(spot: np.ndarray) -> bool:
            return float(np.hypot(*(xy - spot))) <= d_mm + noise

        own = np.asarray(table.spots_mm[colour], float)
        if on(own):
            return True
        if not occupied(own):
            return False
        for name in reversed(COLOURS):  # highest value first
            spot = np.asarray(table.spots_mm[name], float)
            if name != colour and not occupied(spot):
                return on(spot)
        return abs(float(xy[0] - own[0])) <= d_mm + noise

    def lost_red(self, xy: np.ndarray, t: float,
                  on_path: Callable[[list[Track]], np.ndarray] | None = None
                  ) -> Track | None:
        """The lost red (hidden, ``predicted``) that a red found at ``xy`` (2,) mm at ``t`` is,
        or None: a red never appears from nowhere. It can be one within its gate, one unseen
        for lost_after_s (struck while hidden, it may be anywhere) or one ``on_path`` says
        (lost reds -> (N,) bool); the likeliest of these (Mahalanobis distance plus
        log-determinant), or of every lost red when all ``reds`` numbers are taken."""
        c = self.config
        reds = [tr for tr in self.roster.tracks if tr.cls == RED]
        lost = [tr for tr in reds if tr.status == "predicted"]
        if not lost:
            return None
        zhat, s, _ = self.association.predicted(lost)
        e = xy - zhat
        d2 = np.einsum("ni,nij,nj->n", e, np.linalg.inv(s), e)
        score = d2 + np.log(np.linalg.det(s))
        plausible = (d2 <= c.gate_chi2) | np.array([t - tr.last_seen_t > c.lost_after_s
                                                     for tr in lost])
        if on_path is not None:
            plausible |= on_path(lost)
        if plausible.any():
            return lost[int(np.argmin(np.where(plausible, score, np.inf)))]
        if len(reds) >= c.reds:
            return lost[int(np.argmin(score))]
        return None

    def take_red_number(self, tr: Track, t: float) -> bool:
        """Give ``tr``, found to be a red, a red's number: that of the lost red it is
        (``lost_red``; that stale record of the same ball gives way), else a free one.
        False when there is none."""
        lost = self.lost_red(tr.kf.x[:2], t)
        if lost is not None:
            self.roster.tracks = [o for o in self.roster.tracks if o is not lost]
            tr.track_id, tr.cls = lost.track_id, RED
            return True
        taken = {o.track_id for o in self.roster.tracks}
        free = [f"red_{n:02d}" for n in range(1, self.config.reds + 1)
                if f"red_{n:02d}" not in taken]
        if not free:
            return False
        tr.track_id, tr.cls = free[0], RED
        return True

    def relabel(self, t: float, frame: int) -> None:
        """Fix a ball given the wrong class when it was first confirmed: when a track's class
        votes favour another class by relabel_ratio (and by at least relabel_votes), it takes
        that class's id, swapping with the track holding it when that one's votes favour the
        first track's class, or taking a free id (for a red, that of the lost red it is,
        ``take_red_number``)."""
        c = self.config
        if not self.roster.tracks:
            return
        # the votes stay as they are below; the classes may swap
        votes = np.array([tr.votes for tr in self.roster.tracks])
        favoured = votes.argmax(axis=1)
        strong = votes.max(axis=1) >= c.relabel_votes
        for tr, best, clear in zip(self.roster.tracks, favoured.tolist(), strong.tolist()):
            if (not clear or not tr.active or best == tr.cls
                    or tr.votes[best] < c.relabel_ratio * tr.votes[tr.cls]):
                continue
            if best == RED:
                holders = [o for o in self.roster.tracks if o.cls == RED and o.active]
            else:
                holders = [o for o in self.roster.tracks if o.track_id == BALL_CLASSES[best]]
            partner = next((o for o in holders if o.active and int(np.argmax(o.votes)) == tr.cls),
                           None)
            was = tr.track_id
            if partner is not None:
                tr.track_id, partner.track_id = partner.track_id, tr.track_id
                tr.cls, partner.cls = partner.cls, tr.cls
            elif best == RED:
                if not self.take_red_number(tr, t):
                    continue
            else:
                if any(o.active for o in holders):
                    continue  # that ball is on the table and looks like itself
                if holders and (tr.born_t <= max(o.gone_t for o in holders)
                                or not self.on_spot(tr.kf.x[:2], BALL_CLASSES[best], tr)):
                    continue  # that colour left play: back only as a ball re-spotted since
                # a stale record of that colour (potted, off the table) gives way
                self.roster.tracks = [o for o in self.roster.tracks if o not in holders]
                tr.track_id, tr.cls = BALL_CLASSES[best], best
            self.roster.events.append({"type": "relabel", "frame": frame, "t": t,
                                 "ball": tr.track_id, "class": BALL_CLASSES[tr.cls], "was": was})

    def settle_class(self, tr: Track) -> None:
        """A ball leaving play is what its class votes say most (by at least relabel_votes),
        not necessarily what it was first confirmed as (a blurred white called green that then
        followed the ball it struck): it takes that class's id when no ball seen now holds it;
        an unseen holder was a stale record of the same ball and gives way."""
        c = self.config
        best = int(np.argmax(tr.votes))
        if best == tr.cls or tr.votes[best] < c.relabel_votes or best == WHITE:
            return
        was = tr.track_id
        if best == RED:
            if not self.take_red_number(tr, tr.gone_t):
                return
        else:
            holder = self.roster.track(BALL_CLASSES[best])
            if holder is not None and holder.status == "seen":
                return
            self.roster.tracks = [o for o in self.roster.tracks if o is not holder]
            tr.track_id, tr.cls = BALL_CLASSES[best], best
        self.roster.events.append({"type": "relabel", "frame": tr.gone_frame, "t": tr.gone_t,
                             "ball": tr.track_id, "class": BALL_CLASSES[tr.cls], "was": was})
