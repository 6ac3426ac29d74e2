"""Cushion contacts: the six cushion noses, and the bounces the lines show (a ball's line
before running into a nose, its line after coming out of it), those too slow for the short
lines, those of a ball squeezed against a cushion by a blow from rest, and those of a pair's
centre of mass turned at a nose after their kiss."""

from __future__ import annotations

import numpy as np

from calibration.specs import SnookerTableSpec
from tracker.events.config import ShotConfig
from tracker.events.inplay import Drive, ShotInPlay, event, kiss
from tracker.events.lines import Lines, _first_root, _fit_either_side, _gap, _positions, _since

# the least a contact sends a ball at, as a share of the most (a perfectly elastic kiss): the
# balls' restitution (0.92-0.98), the cloth's friction (~2 m/s^2 while sliding) and the lines'
# speeds (a tenth off) take up to a third
_SENT_LEAST = 2 / 3


class Cushions:
    """Finds the cushions a shot's balls met on the ``table``.

    The noses: start ``nose_a`` (6, 2), unit direction ``nose_d`` (6, 2), length ``nose_len``
    (6,), normal into the table ``nose_n`` (6, 2), ``nose_names``; ``reach_mm``, how far from
    a nose line a ball's centre is when it touches the nose (the nose is below the ball's
    equator, so a little less than a radius)."""

    def __init__(self, config: ShotConfig, table: SnookerTableSpec):
        self.config = config
        self.ball_diameter_mm = table.ball_diameter_mm
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
        self.nose_a, self.nose_d = np.array(a), np.array(d)
        self.nose_n, self.nose_len = np.array(n), np.array(lengths)
        self.nose_names = tuple(names)
        r, h = table.ball_diameter_mm / 2, table.cushion_nose_height_mm
        self.reach_mm = float(np.sqrt(r * r - (h - r) ** 2))

    def on_lines(self, shot: ShotInPlay, lines: Lines) -> list[dict]:
        """Cushion contacts in the interval of ``lines``, once its ball-ball contacts are
        known: the lines before hold up to ``lines.before_to``, those after back to
        ``lines.after_from``; balls in a ball-ball contact in the interval are in
        ``lines.hits``; ``lines.v_long``: velocities fitted over twice the span before.

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
        p_before, v_before, ok_before = lines.before()
        p_after, v_after, ok_after = lines.after()
        before_to, after_from, v_long = lines.before_to, lines.after_from, lines.v_long
        touched = np.array([n in lines.hits for n in range(len(ids))])
        dt = t1 - t0
        reach = self.reach_mm
        # (N, 6): distance of the centre from each nose line, and the speed across it
        sb = np.einsum("nsk,sk->ns", p_before[:, None] - self.nose_a[None], self.nose_n)
        ub = v_before @ self.nose_n.T
        sa = np.einsum("nsk,sk->ns", p_after[:, None] - self.nose_a[None], self.nose_n)
        ua = v_after @ self.nose_n.T
        ok_before = ok_before[:, None] & np.isfinite(sb)
        ok_after = ok_after[:, None] & np.isfinite(sa)
        into = ok_before & (ub < -cfg.cushion_mm_s)
        out_of = ok_after & (ua > cfg.cushion_mm_s)
        # the speed into the nose of a slow ball, over the longer span, if the short line
        # missed it (but did not see it going out: the longer one may hold a bounce)
        with np.errstate(invalid="ignore"):
            ub_in = np.where(into | (ub > 0), ub, v_long @ self.nose_n.T)
            came = ok_before & (ub_in < -cfg.cushion_mm_s)
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
                where = p_before[n] + v_before[n] * (min(touch[n, s], tau[n, s]) - t0)
            else:
                where = p_after[n] + v_after[n] * (when - t1)
            out += self.bounce(shot, ids[n], s, when, where, dt)
        return out

    def squeezes(self, shot: ShotInPlay, lines: Lines) -> list[dict]:
        """Cushions of balls struck from rest (``lines.from_rest``: index, the blow's unit
        direction, its instant) that were seen coming off the nose the blow drove them at
        from their place: a ball struck from rest goes the way of the blow, only a cushion
        turns it back. The nose is the one the blow's line meets between its knuckles. The
        bounce is when its line after left that nose; the nose must be near enough for the ball
        to have been there and back by the interval's end."""
        cfg = self.config
        reach = self.reach_mm
        ids, t0, t1, p_before = lines.ids, lines.t0, lines.t1, lines.p_before
        p_after, v_after = lines.p_after, lines.v_after
        out = []
        for n, u, t_hit in lines.from_rest:
            toward = self.nose_n @ u  # (6,): < 0 driven at a nose
            gap = np.einsum("sk,sk->s", p_before[n] - self.nose_a, self.nose_n) - reach
            with np.errstate(divide="ignore", invalid="ignore"):
                travel = np.where(toward < 0, np.maximum(gap, 0.0) / -toward, np.inf)
                # where the blow's line meets each nose line: a nose is met between its
                # knuckles (the long cushions' two noses lie on one line)
                along = np.einsum("sk,sk->s", p_before[n] + u * np.where(
                    np.isfinite(travel), travel, 0.0)[:, None] - self.nose_a, self.nose_d)
            travel = np.where((along >= 0) & (along <= self.nose_len), travel, np.inf)
            s = int(np.argmin(travel))
            speed = float(np.hypot(*v_after[n]))
            ua = float(self.nose_n[s] @ v_after[n])
            if not (ua > cfg.cushion_mm_s and -toward[s] * speed > cfg.cushion_mm_s
                    and travel[s] <= speed * (t1 - t_hit) + cfg.contact_tol_mm):
                continue
            sa = float((p_after[n] - self.nose_a[s]) @ self.nose_n[s])
            when = float(np.clip(t1 - (sa - reach) / ua, t_hit, t1))
            out += self.bounce(shot, ids[n], s, when, p_before[n] + u * travel[s], t1 - t0)
        return out

    def slow_turns(self, shot: ShotInPlay, k: int) -> list[dict]:
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
        (p_before, v_before, ok_before), (p_after, v_after, ok_after) = _fit_either_side(t, xy, W)
        seen = np.isfinite(xy[..., 0])
        ok = (ok_before & ok_after & (seen[:W].sum(axis=0) >= W - 1)
              & (seen[W:].sum(axis=0) >= W - 1))
        reach = self.reach_mm
        sb = np.einsum("nsk,sk->ns", p_before[:, None] - self.nose_a[None], self.nose_n)
        sa = np.einsum("nsk,sk->ns", p_after[:, None] - self.nose_a[None], self.nose_n)
        ub, ua = v_before @ self.nose_n.T, v_after @ self.nose_n.T
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
            where = p_before[n] + v_before[n] * (meet[n, s] - t0)
            out += self.bounce(shot, ids[n], s, when, where, dt)
        return out

    def driven(self, shot: ShotInPlay, lines: Lines) -> list[dict]:
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
        p_after, v_after, ok_after = lines.after()
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
                    or not all(b in ids and ok_after[ids.index(b)] for b in d.balls)):
                continue
            shot.drives.remove(d)
            n = [ids.index(b) for b in d.balls]
            centre_v = (v_after[n[0]] + v_after[n[1]]) / 2
            turn = 2 * (centre_v - d.centre_v)  # the cushion's impulse on the ball, mm/s
            inward = turn @ self.nose_n.T  # (6,)
            c0, c1 = d.xy.mean(axis=0), (p_after[n[0]] + p_after[n[1]]) / 2
            for s in np.flatnonzero((inward > kick) & (np.abs(turn @ self.nose_d.T) < inward)):
                # where the centre's distances from the nose line, before and after, meet
                h0 = float((c0 - self.nose_a[s]) @ self.nose_n[s])
                h1 = float((c1 - self.nose_a[s]) @ self.nose_n[s])
                u0, u1 = float(d.centre_v @ self.nose_n[s]), float(centre_v @ self.nose_n[s])
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
                    bounce = self.bounce(shot, d.balls[m], s, when, where, dt)
                    out += bounce
                    p, v = p_after[n[1]] - p_after[n[0]], v_after[n[1]] - v_after[n[0]]
                    root = _first_root(p, -v, self.ball_diameter_mm, 0.0, t1 - when)
                    if (bounce and root is not None and float(p @ v) > 0
                            and shot.last_contact.get(pair, -np.inf) < when):
                        out += kiss(shot, d.balls[0], d.balls[1], t1 - root)
        return out

    def _soonest(self, d: Drive, dt: float) -> tuple[np.ndarray, np.ndarray]:
        """(gap, soonest), each (2, 6): how far each ball of drive ``d`` was from each nose
        (beyond the reach of its centre), and the soonest after the contact it could have met
        it (inf where it could not): within ``fit_frames`` frames even at the least it was
        sent at (later, its own lines show the bounce), between the knuckles by as much as
        the direction it was sent in is unsure (``sent_deg``)."""
        cfg = self.config
        gap = np.einsum("msk,sk->ms", d.xy[:, None] - self.nose_a[None],
                        self.nose_n) - self.reach_mm
        closing = -(d.sent @ self.nose_n.T)
        with np.errstate(divide="ignore", invalid="ignore"):
            soonest = np.where(closing > cfg.cushion_mm_s, np.maximum(gap, 0.0) / closing,
                               np.inf)
        soonest[soonest / _SENT_LEAST > cfg.fit_frames * dt] = np.inf
        run = d.sent[:, None] * np.where(np.isfinite(soonest), soonest, 0.0)[..., None]
        along = np.einsum("msk,sk->ms", d.xy[:, None] + run - self.nose_a[None], self.nose_d)
        margin = cfg.knuckle_mm + np.hypot(*run.transpose(2, 0, 1)) * np.tan(
            np.radians(cfg.sent_deg))
        soonest[(along < margin) | (along > self.nose_len - margin)] = np.inf
        return gap, soonest

    def _clear(self, shot: ShotInPlay, pair, a: np.ndarray, b: np.ndarray, t: float) -> bool:
        """Whether no ball but those of ``pair`` lay within a diameter and ``contact_tol_mm``
        of the path from a to b (2,) at the first frame at or after t."""
        seen = _since(shot.history, t)
        if not seen:
            return True
        ab = b - a
        L2 = max(float(ab @ ab), 1e-9)
        near = self.ball_diameter_mm + self.config.contact_tol_mm
        for k, p in seen[0][2].items():
            if k in pair:
                continue
            s = float(np.clip((p - a) @ ab / L2, 0.0, 1.0))
            if float(np.hypot(*(a + s * ab - p))) < near:
                return False
        return True

    @staticmethod
    def cushioned(shot: ShotInPlay, pair: frozenset, t0: float, t1: float) -> float | None:
        """The first time in (t0, t1] a ball of ``pair`` met a cushion (None if none)."""
        when = [t for (b, _), t in shot.last_cushion.items() if b in pair and t0 < t <= t1]
        return min(when) if when else None

    def bounce(self, shot, tid: str, s: int, when: float, where: np.ndarray,
                dt: float) -> list[dict]:
        """The cushion event of ball ``tid`` meeting nose ``s`` at ``where`` (2,) at ``when``
        (none if that is beyond the knuckles or the bounce an earlier interval dated)."""
        along = float((where - self.nose_a[s]) @ self.nose_d[s])
        knuckle = self.config.knuckle_mm
        if not knuckle <= along <= self.nose_len[s] - knuckle:
            return []  # at or beyond the knuckles: a jaw of the pocket
        key = (tid, self.nose_names[s])
        last = shot.last_cushion.get(key)
        if (last is not None and when - last < self.config.fit_frames * dt
                and not self._struck_back(shot, tid, s, last, when, dt)):
            return []  # the bounce an earlier interval dated
        shot.last_cushion[key] = when
        return [event("cushion", shot, when, ball=tid, **{"class": shot.classes.get(tid)},
                            cushion=self.nose_names[s])]

    def _struck_back(self, shot: ShotInPlay, tid: str, s: int, t0: float, t1: float,
                     dt: float) -> bool:
        """Whether ball ``tid``, off nose ``s`` at t0, may have been struck back at it by t1: a
        kiss in (t0, t1) sent it at that nose (faster than ``cushion_mm_s``, the line of centres
        within 45 degrees of the nose's normal), or a ball that
        was not beside it about the bounce (within a diameter and ``contact_tol_mm`` at a frame
        of the ``fit_frames`` before it, or in a contact with it dated from then to t1) came
        there at a frame in (t0, t1]."""
        near = self.ball_diameter_mm + self.config.contact_tol_mm
        W = int(self.config.fit_frames)
        for t, v in shot.blows.get(tid, ()):
            # the line of centres within 45 degrees of the nose's normal: what the ball kept
            # of its own velocity, across that line, does not take it off the nose
            inward = -float(v @ self.nose_n[s])
            if (t0 < t < t1 and inward > self.config.cushion_mm_s
                    and inward > abs(float(v @ self.nose_d[s]))):
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
