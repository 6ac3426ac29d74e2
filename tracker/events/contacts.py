"""Ball-ball contacts: each frame interval of a shot looked at once the frames either side are
in, every ball's lines before and after it fitted, and the pairs whose lines met a diameter
apart with a contact to show for it (a ball set moving, lines that would have overlapped, an
impulse along the line of centres, or a ball that came straight back off one that did not
move); the interval's cushions follow from the same lines."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tracker.events.config import ShotConfig
from tracker.events.cushions import Cushions
from tracker.events.inplay import Drive, ShotInPlay, kiss
from tracker.events.lines import (
    Lines,
    _closest,
    _first_root,
    _fit_either_side,
    _fit_lines,
    _gap,
    _positions,
)


@dataclass(eq=False)
class Contacts:
    """Finds the contacts and cushions of a shot's intervals, on a table of balls
    ``ball_diameter_mm`` across whose ``cushions`` are known."""

    config: ShotConfig
    ball_diameter_mm: float
    cushions: Cushions

    def interval(self, shot: ShotInPlay, k: int) -> list[dict]:
        """Contacts and cushions in the interval between history frames k - 1 and k."""
        lines = self._lines(shot, k)
        if lines is None:
            return []
        cfg, W = self.config, int(self.config.fit_frames)
        ids, t, t0, t1 = lines.ids, lines.t, lines.t0, lines.t1
        resting, started, depart = lines.resting, lines.started, lines.depart
        out = self._contacts(shot, lines)
        out += self.cushions.squeezes(shot, lines)
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
            lines.before_to, lines.after_from = before_to, after_from
            lines.v_long = np.where(ok_long[:, None], v_long, np.nan)
            out += self.cushions.on_lines(shot, lines)
        out += self.cushions.driven(shot, lines)
        for n in np.flatnonzero(started):
            shot.moved.add(ids[n])
        if "white" in ids and t1 > shot.t + 1e-9:
            shot.moved.add("white")
        return out + self.cushions.slow_turns(shot, k - W)

    def _lines(self, shot: ShotInPlay, k: int) -> Lines | None:
        """The balls' lines either side of the interval between history frames k - 1 and k,
        over ``fit_frames`` frames each way (None without a ball seen)."""
        cfg, W = self.config, int(self.config.fit_frames)
        lo, hi = max(k - W, 0), min(k + W, len(shot.history))
        hist = shot.history[lo:hi]
        ids = sorted(set().union(*(h[2] for h in hist)))
        if not ids:
            return None
        t = np.array([h[1] for h in hist])
        xy = _positions(hist, ids)
        nb = k - lo
        t0, t1 = t[nb - 1], t[nb]
        (p_before, v_before, ok_before), (p_after, v_after, ok_after) = _fit_either_side(t, xy, nb)
        span = float(t[nb:].sum() / (len(t) - nb) - t[:nb].sum() / nb)  # between the means
        kick = cfg.kick_mm_s + cfg.friction_mm_s2 * span
        # a ball that has not moved yet rests where it was: its line before is that place
        # the white rests until the cue strikes it, the others until a ball does
        resting = np.array([b not in shot.moved and b in shot.rest_xy
                            and (b != "white" or t1 <= shot.t + 1e-9) for b in ids], bool)
        if resting.any():
            p_before[resting] = [shot.rest_xy[b] for b, r in zip(ids, resting) if r]
            v_before[resting], ok_before[resting] = 0.0, True
        dv = v_after - v_before
        # set moving: seen off its place at the first frame after the interval, and moving
        first = xy[nb]
        first = np.where(np.isfinite(first), first, p_after)
        started = (resting & ok_after & (np.hypot(*v_after.T) > cfg.start_mm_s)
                   & (np.hypot(*(first - p_before).T) > cfg.onset_mm))
        # when it left: the line after, run back to its place (a slow ball may have left a
        # frame or two before it was seen off it)
        depart = np.full(len(ids), np.nan)
        for n in np.flatnonzero(started):
            back = float((p_after[n] - p_before[n]) @ v_after[n] / (v_after[n] @ v_after[n]))
            depart[n] = float(min(max(t1 - back, t[0]), t1))
        kicked = ok_before & ok_after & (np.hypot(*dv.T) > kick)
        # a line before that spans a contact of an earlier interval holds on neither side of it
        hit = {b for b, when in shot.hit_at.items() if any(t[0] < h <= t0 for h in when)}
        spanned = np.array([b in hit for b in ids])
        # nor one that spans a bounce an earlier interval dated
        off = {c for (c, _), h in shot.last_cushion.items() if t[0] < h <= t0}
        bounced = np.array([b in off for b in ids])
        return Lines(ids, t, nb, p_before, v_before, ok_before, p_after, v_after, ok_after, kick,
                     resting, started, depart, kicked, spanned, bounced, xy[nb - 1:nb + 1])

    def _contacts(self, shot: ShotInPlay, lines: Lines) -> list[dict]:
        """Ball-ball contacts in the interval of ``lines`` (no impulse is read off a line
        before that spans an earlier contact or bounce). The instants of each ball's contacts
        go into ``lines.hits``; balls struck from rest into ``lines.from_rest``, also when
        the contact is one an earlier interval dated (the ball seen off its place only now).
        A ball resting before was kissed only if set moving, or if the other came straight back
        off it; so was a ball whose lines span a bounce or contact (they show no impulse) if the
        other came straight back off where it was seen. A pair kisses again soon after only
        when a cushion turned one of them in between: the kiss again is dated where their lines
        after put them a diameter apart. A contact seen on lines before that hold up to it goes
        into ``shot.drives`` (once, also when an earlier interval or a nudge dated it)."""
        cfg = self.config
        D = self.ball_diameter_mm
        t0, t1 = lines.t0, lines.t1
        p_before, v_before, ok_before = lines.before()
        p_after, v_after, ok_after = lines.after()
        spanned = lines.spanned | lines.bounced
        dt = t1 - t0
        n = len(lines.ids)
        # candidates: the pair's positions at either end of the interval within reach
        p0 = np.where(ok_before[:, None], p_before, p_after - v_after * dt)
        p1 = np.where(ok_after[:, None], p_after, p_before + v_before * dt)
        reach = np.hypot(*(p1 - p0).T)
        gap0 = np.hypot(*(p0[:, None] - p0[None]).transpose(2, 0, 1))
        gap1 = np.hypot(*(p1[:, None] - p1[None]).transpose(2, 0, 1))
        near = (np.minimum(gap0, gap1) < D + cfg.contact_tol_mm + reach[:, None] + reach[None])
        order = np.arange(n)
        near &= order[:, None] < order[None]  # each pair once
        out = []
        for i, j in zip(*np.nonzero(near)):
            judged = self._came_off(lines, i, j, spanned)
            if judged is None:
                continue
            still, off = judged
            tau, nrm = self._when(lines, i, j, spanned, still, off)
            if tau is not None:
                out += self._note(shot, lines, i, j, spanned, tau, nrm)
        return out

    def _came_off(self, lines: Lines, i, j, spanned: np.ndarray
                  ) -> tuple[list, float | None] | None:
        """Whether balls ``i`` and ``j`` of ``lines`` may have touched in its interval: None
        when not, else (which of them rested before and were not set moving, when the other
        came straight back off it or None). ``spanned`` (N,): lines that span a contact or
        bounce an earlier interval dated."""
        (p_before, _, ok_before), (_, _, ok_after) = lines.before(), lines.after()
        started, resting, kicked, seen = lines.started, lines.resting, lines.kicked, lines.seen
        if not ((ok_after[i] or ok_before[i]) and (ok_after[j] or ok_before[j])):
            return None
        # a ball resting before must be set moving by a contact, unless the other came
        # straight back off it (it passed the blow on, to a cushion or a ball behind it)
        still = [m for m in (i, j) if resting[m] and not started[m]]
        off = None
        if len(still) == 1:
            r, m = still[0], i + j - still[0]
            if ok_before[m] and ok_after[m] and kicked[m]:
                off = self.struck_off(lines, m, p_before[r])
        if still and off is None:
            return None
        for r, m in ((i, j), (j, i)):
            # its lines hold on neither side of an impulse: where it was seen tells
            if (off is None and not still and spanned[r] and ok_before[m] and ok_after[m]
                    and not spanned[m] and kicked[m] and np.isfinite(seen[:, r]).all()):
                off = self.struck_off(lines, m, seen[0, r],
                                      (seen[1, r] - seen[0, r]) / (lines.t1 - lines.t0))
        if not (started[i] or started[j] or kicked[i] or kicked[j]):
            return None
        return still, off

    def _when(self, lines: Lines, i, j, spanned: np.ndarray, still: list, off: float | None
              ) -> tuple[float | None, np.ndarray]:
        """When balls ``i`` and ``j`` of ``lines`` touched in its interval (None: they did not
        here: not near enough, nothing to show for it, or the next interval's), and the unit
        line of centres from ``i`` to ``j``; ``still`` and ``off`` as ``_came_off`` gives them."""
        cfg = self.config
        D = self.ball_diameter_mm
        t, t0, t1, kick = lines.t, lines.t0, lines.t1, lines.kick
        p_before, v_before, ok_before = lines.before()
        p_after, v_after, ok_after = lines.after()
        started, depart, seen = lines.started, lines.depart, lines.seen
        dt = t1 - t0
        close, tau, overlap = np.inf, None, False
        if ok_before[i] and ok_before[j]:
            s, d = _closest(p_before[j] - p_before[i], v_before[j] - v_before[i], 0.0, dt)
            close = min(close, d)
            overlap |= d < D - cfg.overlap_mm
            # a ball struck from rest may have been seen off its place late
            early = t[0] - t0 if started[i] or started[j] else -0.5 * dt
            root = _first_root(p_before[j] - p_before[i], v_before[j] - v_before[i], D, early, dt)
            if root is not None:
                tau = t0 + root
        if ok_after[i] and ok_after[j]:
            p, v = p_after[j] - p_after[i], v_after[j] - v_after[i]
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
        nrm = (p_before[j] - p_before[i] if ok_before[i] and ok_before[j]
               else p_after[j] - p_after[i])
        if off is not None and not still:
            # the lines of one hold on neither side: the centres where it was seen
            nrm = (seen[0, j] - seen[0, i]) + (seen[1, j] - seen[1, i])
        nrm = nrm / max(float(np.hypot(*nrm)), 1e-9)
        held = ok_after & ok_before & ~spanned
        push_j = float((v_after[j] - v_before[j]) @ nrm) if held[j] else 0.0
        push_i = -float((v_after[i] - v_before[i]) @ nrm) if held[i] else 0.0
        impulse = max(push_i, push_j) > 0.5 * kick and min(push_i, push_j) > -0.5 * kick
        # the white leaving its place at the shot's start was the cue's doing
        struck = [n for n in (i, j) if started[n] and lines.ids[n] != "white"]
        if off is not None:
            tau = off
        elif close > D + cfg.contact_tol_mm or not (struck or overlap or impulse):
            return None, nrm
        elif started[i] and started[j]:
            # touching balls set moving together: when the later of them left its place
            tau = max(depart[i], depart[j])
        elif tau is None or not (ok_before[i] and ok_before[j]):
            tau = (depart[i] if started[i] else depart[j] if started[j]
                   else tau if tau is not None else t0 + 0.5 * dt)
        if tau > t1 + 0.25 * dt:
            return None, nrm  # the next interval's
        return float(np.clip(tau, t[0], t1)), nrm

    def _note(self, shot: ShotInPlay, lines: Lines, i, j, spanned: np.ndarray, tau: float,
              nrm: np.ndarray) -> list[dict]:
        """The contact of balls ``i`` and ``j`` of ``lines`` at ``tau`` (``nrm`` the unit line
        of centres from ``i`` to ``j``) noted in ``lines`` and the ``shot``: its event unless
        an earlier interval dated it (or, after a cushion turned one of them, the kiss again),
        the blows it gave and the drive it may start."""
        cfg = self.config
        D = self.ball_diameter_mm
        ids, t, t0, t1 = lines.ids, lines.t, lines.t0, lines.t1
        p_before, v_before, ok_before = lines.before()
        p_after, v_after, ok_after = lines.after()
        started, resting = lines.started, lines.resting
        dt = t1 - t0
        out = []
        pair = frozenset((ids[i], ids[j]))
        last = shot.last_contact.get(pair)
        known = last is not None and tau - last < cfg.fit_frames * dt
        turn = (self.cushions.cushioned(shot, pair, last, t1)
                if known and ok_after[i] and ok_after[j] else None)
        if turn is not None:
            p, v = p_after[j] - p_after[i], v_after[j] - v_after[i]
            root = _first_root(p, -v, D, 0.0, t1 - max(turn, t[0]))  # backwards in time
            if root is not None and float(p @ v) > 0:  # apart after it
                tau, known = t1 - root, False
        # a ball seen set moving only now by the contact an earlier interval dated
        for m, u in ((i, -nrm), (j, nrm)):
            if started[m] and ok_after[m]:
                lines.from_rest.append((m, u, last if known else tau))
        if not known:
            lines.hits.setdefault(i, []).append(tau)
            lines.hits.setdefault(j, []).append(tau)
            out += kiss(shot, ids[i], ids[j], tau)
            # the blow each moving ball took: the other's speed along the line of centres,
            # passed on (one struck from rest was off no nose before)
            for m, o, u in ((i, j, -nrm), (j, i, nrm)):
                if (not resting[m] and ok_before[o] and not spanned[o]
                        and float(v_before[o] @ u) > 0):
                    shot.blows.setdefault(ids[m], []).append((tau, float(v_before[o] @ u) * u))
        dated = last if known else tau
        if (ok_before[i] and ok_before[j] and not (spanned[i] or spanned[j])
                and shot.drove.get(pair) != dated):
            shot.drove[pair] = dated
            w = float((v_before[i] - v_before[j]) @ nrm)  # closing speed along the line of centres
            if w > 0:
                xy = (np.array([p_before[i], p_before[j]])
                      + np.array([v_before[i], v_before[j]]) * (tau - t0))
                sent = np.array([v_before[i] - w * nrm, v_before[j] + w * nrm])
                shot.drives.append(Drive((ids[i], ids[j]), tau, xy, sent,
                                         np.array([v_before[i], v_before[j]]),
                                         (v_before[i] + v_before[j]) / 2))
        return out

    def struck_off(self, lines: Lines, m: int, rest: np.ndarray,
                   drift: np.ndarray | None = None) -> float | None:
        """When ball ``m`` of ``lines`` (its line before at t0, after at t1) came straight back
        off a ball that stayed at ``rest`` (2,) (or was there at t0 and went on at ``drift`` (2,)
        mm/s): its two lines meet (within ``contact_tol_mm``) in the interval (t0, t1], a
        diameter (and ``contact_tol_mm``) from that ball, coming at it, and its velocity changed
        by more than ``kick`` away from it, within 45 degrees of the line of centres. None if
        not."""
        tol, D = self.config.contact_tol_mm, self.ball_diameter_mm
        t0, t1, kick = lines.t0, lines.t1, lines.kick
        p_before, v_before = lines.p_before[m], lines.v_before[m]
        p_after, v_after = lines.p_after[m], lines.v_after[m]
        dv = v_after - v_before
        # the line after minus the line before: c + dv t
        c = (p_after - v_after * t1) - (p_before - v_before * t0)
        if float(dv @ dv) < 1e-9:
            return None
        tau = float(-(c @ dv) / (dv @ dv))
        if not t0 < tau <= t1 or float(np.hypot(*(c + dv * tau))) > tol:
            return None
        at = p_before + v_before * (tau - t0)
        if drift is not None:
            rest = rest + drift * (tau - t0)
        gap = float(np.hypot(*(rest - at)))
        n = (rest - at) / max(gap, 1e-9)
        push = -float(dv @ n)
        across = float(np.hypot(*(dv + push * n)))
        closing = float((v_before - (0.0 if drift is None else drift)) @ n)
        if abs(gap - D) > tol or closing <= 0 or push <= kick or across >= push:
            return None
        return tau
