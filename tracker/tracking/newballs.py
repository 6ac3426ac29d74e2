"""New balls: detections no track explains feed candidates; a candidate seen often enough on
one straight path becomes a ball: a lost ball found again, a potted colour re-spotted, the
white placed after going in-off, a ball set moving while unseen, or a ball there from the
start."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from filterpy.kalman import KalmanFilter

from calibration.specs import BALL_CLASSES, COLOURS
from tracker.tracking.association import INFEASIBLE, Association, assign
from tracker.tracking.config import TrackerConfig
from tracker.tracking.identity import RED, WHITE, Identities
from tracker.tracking.motion import Filters, MotionModel
from tracker.tracking.tracks import Candidate, Roster, Track


@dataclass(eq=False)
class NewBalls:
    """Confirms the candidates of ``roster`` as balls, with the ``model``'s image noise, the
    ``association``'s predictions, the tracks' ``filters`` and their ``identities``."""

    config: TrackerConfig
    model: MotionModel
    association: Association
    roster: Roster
    filters: Filters
    identities: Identities

    def step(self, z, cls, conf, t: float, frame: int) -> None:
        c = self.config
        if not len(z) and not self.roster.candidates:
            return  # nothing new, nothing pending
        # detections on top of a ball already tracked are that ball's duplicates
        on = [tr.kf.x[:2] for tr in self.roster.tracks if tr.status == "seen"] if len(z) else []
        if on:
            d = np.hypot(*(z[:, None] - np.array(on)[None]).transpose(2, 0, 1)).min(axis=1)
            keep = d > 0.7 * c.table.ball_diameter_mm
            z, cls, conf = z[keep], cls[keep], conf[keep]
        cands = self.roster.candidates
        free = np.ones(len(z), bool)
        if cands and len(z):
            pred = np.array([cd.xy + cd.velocity * (t - cd.t) for cd in cands])
            # the image noise where each candidate is widens its gate and its path's tolerance
            noise = 3 * self.model.sigma_image_mm(pred)
            reach = np.array([c.candidate_gate_mm + (t - cd.t) * (
                c.candidate_speed_mm_s if cd.hits == 1 else np.hypot(*cd.velocity))
                for cd in cands]) + noise
            d = np.hypot(*(z[None] - pred[:, None]).transpose(2, 0, 1))
            # the nearest first: leaving any candidate without a detection costs alike
            unmatched = np.full(len(cands), float(reach.max()))
            for i, j in assign(np.where(d <= reach[:, None], d, INFEASIBLE), unmatched):
                cd = cands[i]
                cd.add(t, z[j], frame, c.candidate_gate_mm / 2 + noise[i])
                if cls[j] >= 0:
                    cd.votes[cls[j]] += conf[j]
                free[j] = False
        for cd in cands:
            cd.age += 1
        for j in np.flatnonzero(free):
            cd = Candidate([t], [z[j]], frame)
            if cls[j] >= 0:
                cd.votes[cls[j]] += conf[j]
            cands.append(cd)
        # age counts this frame for old candidates; new ones start at 1
        def needed(cd: Candidate) -> int:
            return c.confirm_hits_moving if self.moving(cd) else c.confirm_hits

        ready = [cd for cd in cands if cd.hits >= needed(cd)]
        self.roster.candidates = [cd for cd in cands if cd.hits < needed(cd)
                           and cd.age - cd.hits <= c.confirm_window - c.confirm_hits]
        # rack order: by row up the table, then across
        ready.sort(key=lambda cd: (round(cd.xy[1] / 20.0), cd.xy[0]))
        for cd in ready:
            self._confirm(cd, t, frame)

    def _confirm(self, cd: Candidate, t: float, frame: int) -> None:
        """Give a confirmed candidate an identity, in order of its class votes. A ball never
        appears from nowhere: one of a class not seen before whose path starts where a ball
        was left at rest and not seen since is that ball, set moving while unseen (a fast
        ball's colour, blurred over the cloth, is no guide); else, once play is under way, a
        colour comes into play only at rest (placed on its spot), and a moving one is taken
        for the class its votes favour next."""
        for k in np.argsort(-cd.votes, kind="stable"):
            if cd.votes[k] <= 0:
                break
            if k == RED:
                if self._confirm_red(cd, t, frame):
                    return
                continue
            name = BALL_CLASSES[k]
            tr = self.roster.track(name)
            if tr is None:
                tr = self._set_moving_unseen(cd)
                if tr is not None:
                    self._restart(tr, cd, t, frame)
                    return
                if k != WHITE and self._started(frame) and self.moving(cd):
                    continue  # a colour comes into play at rest, placed: another ball's blur
                self.roster.tracks.append(self._new_track(name, int(k), cd, t, frame))
                if k == WHITE and self._started(frame):
                    self._placed(self.roster.tracks[-1], cd, frame)
                return
            if tr.status == "seen":
                continue  # that ball is elsewhere: the votes' next class
            if tr.status == "predicted":
                if not self._plausibly_found(tr, cd, t):
                    continue  # hidden a moment ago somewhere else: not this ball
                if not self._plausibly_found(tr, cd, None):
                    # that ball, lost a while, may be anywhere; one set moving from where it
                    # lay unseen is surely here
                    tr = self._set_moving_unseen(cd) or tr
            if (tr.status in ("potted", "off_table") and k != WHITE
                    and not self.identities.on_spot(cd.xy, name)):
                continue  # a colour comes back where the referee puts it: on a spot
            was = tr.status
            self._restart(tr, cd, t, frame)
            if was in ("potted", "off_table"):
                self._placed(tr, cd, frame)
            return

    def moving(self, cd: Candidate) -> bool:
        return bool(np.hypot(*cd.velocity) >= 3 * self.config.rest_speed_mm_s)

    def _set_moving_unseen(self, cd: Candidate) -> Track | None:
        """The ball left at rest and unseen since whose place the candidate's path starts
        from (``path_from_rest``; of several, the one the candidate's votes favour, then the
        nearest to where the candidate was first seen), or None."""
        still = [tr for tr in self.roster.tracks if tr.status == "predicted" and not tr.moving]
        on = self.path_from_rest(still, cd) if still else np.zeros(0, bool)
        if not on.any():
            return None
        start = cd.xy + cd.velocity * (cd.first_t - cd.t)
        return min((still[i] for i in np.flatnonzero(on)),
                   key=lambda o: (-cd.votes[o.cls], float(np.hypot(*(o.kf.x[:2] - start)))))

    def _plausibly_found(self, tr: Track, cd: Candidate, t: float | None) -> bool:
        """Whether a hidden ball can be the candidate: within its gate, on a path that started
        where it was left at rest, or (given the time ``t``) unseen long enough (lost_after_s)
        to have been struck while hidden."""
        c = self.config
        zhat, s, _ = self.association.predicted([tr])
        e = cd.xy - zhat[0]
        d2 = float(e @ np.linalg.inv(s[0]) @ e)
        return (d2 <= c.gate_chi2 or (t is not None and t - tr.last_seen_t > c.lost_after_s)
                or bool(self.path_from_rest([tr], cd)[0]) or self._turned_unseen(tr, cd))

    def _turned_unseen(self, tr: Track, cd: Candidate) -> bool:
        """Whether the white, moving when it went unseen, turned onto the candidate's path
        meanwhile (a kiss while its blob was one with the ball it struck, a cushion): seen
        again within ``turn_window_s``, the path it was on and the candidate's, run back, meet
        (within a ball's diameter, the candidate's gate and the image noise) between its last
        sighting and the candidate's first. Only the white: a colour read off a blurred ball
        (a fast black over the cloth reads green) is no sure sign of which ball it is."""
        c = self.config
        dt = cd.first_t - tr.last_seen_t
        if tr.cls != WHITE or not tr.moving or cd.hits < 2 or not 0.0 < dt <= c.turn_window_s:
            return False
        v_old = tr.last_seen_x[2:]
        gap0 = tr.last_seen_x[:2] - (cd.xy + cd.velocity * (tr.last_seen_t - cd.t))
        dv = v_old - cd.velocity
        tau = float(np.clip(-(gap0 @ dv) / max(float(dv @ dv), 1e-9), 0.0, dt))
        reach = (c.table.ball_diameter_mm + c.candidate_gate_mm
                 + 3 * float(self.model.sigma_image_mm(tr.last_seen_x[:2])[0]))
        return float(np.hypot(*(gap0 + dv * tau))) <= reach

    def path_from_rest(self, tracks: list[Track], cd: Candidate) -> np.ndarray:
        """(N,) bool: the candidate's straight path, traced back to the last sighting of each
        of ``tracks``, passes over where that track was left at rest (within a ball diameter
        and the image noise): the ball was set moving while it went unseen (a colour misread
        struck by the cue, or a ball kissed out of sight). A candidate at rest or rolling
        slowly was that ball when it was first seen within half a diameter of its place."""
        c = self.config
        out = np.zeros(len(tracks), bool)
        if cd.hits < 2:
            return out
        moving = self.moving(cd)
        for i, tr in enumerate(tracks):
            if tr.moving or tr.status != "predicted":
                continue
            noise = 3 * float(self.model.sigma_image_mm(tr.kf.x[:2])[0])
            if not moving:
                # rolling slowly, or at rest: it was first seen within half a diameter of where
                # the ball lay (knocked there while a blur beside it hid it, or while hidden)
                gap = float(np.hypot(*(tr.kf.x[:2] - cd.xys[0])))
                out[i] = gap <= c.table.ball_diameter_mm / 2 + noise
                continue
            a = cd.xy + cd.velocity * (min(tr.last_seen_t, cd.first_t) - cd.t)
            ab = cd.xy - a
            rel = tr.kf.x[:2] - a
            s = float(np.clip(rel @ ab / max(ab @ ab, 1e-9), 0.0, 1.0))
            gap = float(np.hypot(*(rel - s * ab)))
            out[i] = gap <= c.table.ball_diameter_mm + c.candidate_gate_mm + noise
        return out

    def _confirm_red(self, cd: Candidate, t: float, frame: int) -> bool:
        """A red turning up is a lost red (``Identities.lost_red``; one set moving while it went
        unseen also when its path starts where that red was left), or, while fewer than ``reds``
        are known, a red not seen before: at rest once play is under way (a red comes into play
        only at the start; later one is uncovered)."""
        lost = self.identities.lost_red(cd.xy, t, lambda reds: self.path_from_rest(reds, cd))
        if lost is not None:
            self._restart(lost, cd, t, frame)
            return True
        if self._started(frame) and self.moving(cd):
            return False  # a red not seen before is one uncovered, at rest: another's blur
        taken = {tr.track_id for tr in self.roster.tracks if tr.cls == RED}
        for n in range(1, self.config.reds + 1):
            name = f"red_{n:02d}"
            if name not in taken:
                self.roster.tracks.append(self._new_track(name, RED, cd, t, frame))
                return True
        return False

    def _filter_for(self, cd: Candidate) -> tuple[KalmanFilter, bool]:
        c = self.config
        moving = self.moving(cd)
        v = cd.velocity if moving else np.zeros(2)
        xy = cd.xy + c.exposure_s / 2 * v
        sigma = c.moving_sigma_mm if moving else c.rest_sigma_mm
        kf = self.model.new_filter(xy, v, sigma, c.launch_speed_sigma_mm_s if moving else 0.0)
        # a candidate's position is the mean of its sightings' image noise
        kf.P[:2, :2] += self.model.r_image(xy)[0] / max(cd.hits, 1)
        return kf, moving

    def _new_track(self, name: str, k: int, cd: Candidate, t: float, frame: int) -> Track:
        kf, moving = self._filter_for(cd)
        tr = Track(name, k, kf, moving, votes=cd.votes.copy(), anchor_t=t, born_t=cd.first_t)
        self.filters.seen([tr], t, frame)
        return tr

    def _restart(self, tr: Track, cd: Candidate, t: float, frame: int) -> None:
        tr.kf, tr.moving = self._filter_for(cd)
        tr.votes += cd.votes
        tr.pocket, tr.restless, tr.slow_since, tr.anchor_t = "", 0, None, t
        tr.shift[:] = 0
        self.filters.seen([tr], t, frame)

    def _placed(self, tr: Track, cd: Candidate, frame: int) -> None:
        table = self.config.table
        x, y = (float(v) for v in tr.kf.x[:2])
        ev = {"frame": cd.first_frame, "t": cd.first_t, "ball": tr.track_id,
              "class": BALL_CLASSES[tr.cls], "position_mm": [round(x, 2), round(y, 2)]}
        if tr.cls == WHITE:
            ev = {"type": "white_placed", **ev, "in_d": bool(table.in_d(x, y))}
        else:
            spot = next((n for n, p in table.spots_mm.items() if n in COLOURS
                         and math.hypot(p[0] - x, p[1] - y) < table.ball_radius_mm), None)
            ev = {"type": "respot", **ev, "spot": spot}
        self.roster.events.append(ev)

    def _started(self, frame: int) -> bool:
        """Whether the tracker is past its first confirmations (balls there from the start)."""
        return frame - self.roster.first_frame > self.config.confirm_window
