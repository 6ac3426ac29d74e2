"""Where a ball that left play went: the pocket it was sent at or vanished in, or off the table."""

from __future__ import annotations

import numpy as np


class Pockets:
    """The pockets of ``config.table`` (a ``TrackerConfig``'s) as the tracker asks of them:
    their ``names``, fall circles (``fall_centres`` (6, 2) mm, ``fall_radii`` (6,) mm) and the
    questions of a ball that vanished."""

    def __init__(self, config):
        self.config = config
        table = config.table
        self.names = list(table.pockets)
        self.fall_centres = np.array([p.fall_centre_mm for p in table.pockets.values()])
        self.fall_radii = np.array([p.fall_radius_mm for p in table.pockets.values()])
        self.radius = table.ball_radius_mm

    def struck_into(self, tr) -> str | None:
        """The pocket a resting ball that vanished when struck was sent at, or None: its
        velocity is what the striker lost at its kick then (v before - v after; equal masses),
        None when the striker was not deflected or the ball sent slower than
        struck_min_speed_mm_s; the pocket whose fall circle that line passes nearest in angle,
        within struck_angle_deg (or within the circle). Only a kick whose loss goes the ball's
        way from where the striker was counts: a striker whose measured speed jumps about (a
        broadcast's repeated and dropped frames) has kicks that sent nothing anywhere."""
        c = self.config
        t0, striker = tr.struck
        kicks = [k for k in striker.kicks if abs(k[0] - t0) <= c.launch_window_s + 1e-9
                 and np.hypot(*k[1]) >= c.rest_speed_mm_s
                 and float((k[1] - k[2]) @ (tr.kf.x[:2] - k[3])) > 0]
        if not kicks:
            return None  # the striker went on undisturbed: it did not hit this ball
        kick = min(kicks, key=lambda k: abs(k[0] - t0))
        v = kick[1] - kick[2]
        speed = float(np.hypot(*v))
        if speed < c.struck_min_speed_mm_s:
            return None
        u = v / speed
        rel = self.fall_centres - tr.kf.x[:2]
        along = rel @ u
        miss = np.abs(rel[:, 0] * u[1] - rel[:, 1] * u[0])
        angle = np.degrees(np.arctan2(miss, along))
        ok = (along > 0) & ((angle <= c.struck_angle_deg) | (miss <= self.fall_radii))
        if not ok.any():
            return None
        return self.names[int(np.flatnonzero(ok)[np.argmin(angle[ok])])]

    def at(self, xy: np.ndarray, v: np.ndarray) -> str | None:
        """The pocket a moving ball vanished in the jaws of, or None: within a ball diameter
        (and pot_margin_mm) of its fall circle and not heading away from it; the direction of
        a ball measured a frame or two before it drops is too rough to require more."""
        c = self.config
        rel = self.fall_centres - xy
        d = np.hypot(*rel.T)
        ok = (d <= self.fall_radii + c.table.ball_diameter_mm + c.pot_margin_mm) & (rel @ v > 0)
        if not ok.any():
            return None
        return self.names[int(np.flatnonzero(ok)[np.argmin(d[ok])])]

    def ahead(self, xy: np.ndarray, v: np.ndarray) -> str | None:
        """The pocket whose fall circle the path from ``xy`` along ``v`` enters within
        pot_reach_mm of travel (the nearest along the path), or None."""
        c = self.config
        speed = float(np.hypot(*v))
        u = v / speed
        rel = self.fall_centres - xy
        s = np.clip(rel @ u, 0.0, c.pot_reach_mm)
        miss = np.hypot(*(rel - s[:, None] * u).T)
        ok = (miss <= self.fall_radii + c.pot_margin_mm) & (np.hypot(*rel.T) <= c.pot_reach_mm +
                                                         self.fall_radii)
        if not ok.any():
            return None
        k = np.flatnonzero(ok)[np.argmin(s[ok])]
        return self.names[k]

    def over_cushion(self, xy: np.ndarray, v: np.ndarray, seconds: float) -> bool:
        """Whether a ball last seen at ``xy`` with velocity ``v`` would be more than
        off_edge_mm past where a cushion stops a ball on the cloth (a radius from the nose)
        ``seconds`` later: it left the table rather than coming back off the cushion."""
        t, e, r = self.config.table, self.config.off_edge_mm, self.radius
        x, y = xy + v * seconds
        return bool(x < r - e or x > t.width_mm - r + e or y < r - e or y > t.length_mm - r + e)
