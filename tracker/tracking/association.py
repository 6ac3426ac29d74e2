"""Association: which detection is which ball's, under the tracks' predictions and classes.

``merge_doubles`` first makes one detection of each ball seen twice;
``Association(config, model).gated(tracks, z, cls, conf)`` is the first pass (Hungarian
assignment under the chi-square gate), ``wide(...)`` the second (balls seen a moment ago that
jumped out of their gates, judged by how far they can have gone); ``assign`` is the minimum-cost
assignment both use.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from scipy.optimize import linear_sum_assignment

from calibration.specs import BALL_CLASSES

N_CLASSES = len(BALL_CLASSES)
INFEASIBLE = 1e9  # the cost of a pairing that may not be made


def assign(cost: np.ndarray, unmatched: np.ndarray) -> list[tuple[int, int]]:
    """Minimum-cost assignment of N tracks to K detections, ``cost`` (N, K), where leaving
    track i unmatched costs ``unmatched[i]`` (N,) and a detection left over costs nothing.
    Returns [(track, detection)]."""
    n, k = cost.shape
    if not n or not k:
        return []
    feasible = cost < INFEASIBLE
    if ((feasible.sum(axis=0) <= 1).all() and (feasible.sum(axis=1) <= 1).all()
            and np.isfinite(cost).all() and np.isfinite(unmatched).all()
            and (unmatched < INFEASIBLE).all()):
        # no two tracks contend for a detection: each takes its own when that costs less than
        # staying unmatched (a tie, which the solver may settle either way, is left to it)
        rows, cols = np.nonzero(feasible)
        gain = unmatched[rows] - cost[rows, cols]
        if (gain != 0).all():
            keep = gain > 0
            return list(zip(rows[keep].tolist(), cols[keep].tolist()))
    padded = np.full((n, k + n), INFEASIBLE)
    padded[:, :k] = cost
    padded[np.arange(n), k + np.arange(n)] = unmatched
    rows, cols = linear_sum_assignment(padded)
    keep = cols < k
    return list(zip(rows[keep].tolist(), cols[keep].tolist()))


def merge_doubles(z: np.ndarray, cls: np.ndarray, conf: np.ndarray, reach: float):
    """Detections nearer each other than ``reach`` (mm) are one ball seen twice (two balls
    cannot overlap; a detector splits a ball in pieces around its centre, or a blurred one at
    both ends of its streak): each group, gathered round its most confident detection, becomes
    one detection at the group's mean, with the group's class and its best confidence, or no
    class (-1) when the pieces disagree on it. (K, 2), (K,), (K,) -> the same, K' <= K."""
    k = len(z)
    if k < 2:
        return z, cls, conf
    gap = np.hypot(*(z[:, None] - z[None]).transpose(2, 0, 1))
    # every detection is within reach of itself: a pair is near when more are
    if np.count_nonzero(gap < reach) == k:
        return z, cls, conf
    taken = np.zeros(k, bool)
    out_z, out_c, out_p = [], [], []
    for i in np.argsort(-conf, kind="stable"):
        if taken[i]:
            continue
        group = np.flatnonzero(~taken & (gap[i] < reach))
        taken[group] = True
        out_z.append(z[group].mean(axis=0))
        votes = np.zeros(N_CLASSES)
        for j in group:
            if cls[j] >= 0:
                votes[cls[j]] += conf[j]
        known = cls[group][cls[group] >= 0]
        if len(set(known.tolist())) > 1:
            # pieces of one ball disagreeing on its colour say nothing sure about it
            out_c.append(-1)
            out_p.append(float(conf[group].max()))
        elif votes.max() > 0:
            best = int(np.argmax(votes))
            out_c.append(best)
            out_p.append(float(conf[group][cls[group] == best].max()))
        else:
            out_c.append(-1)
            out_p.append(float(conf[group].max()))
    return (np.array(out_z).reshape(-1, 2), np.array(out_c, np.int64),
            np.array(out_p, float))


class Association:
    """The tracker's matching of tracks (each with a Kalman filter ``kf``, ``cls``, ``moving``,
    ``last_seen_x`` and ``last_seen_t``) to a frame's detections; ``config`` a
    ``TrackerConfig``, ``model`` its ``MotionModel``."""

    def __init__(self, config, model):
        self.config = config
        self.model = model

    def class_cost(self, track_cls: np.ndarray, cls: np.ndarray, conf: np.ndarray) -> np.ndarray:
        """(N, K) class evidence: -2 log of P(detected class | ball class) (the detector's
        confidence when they agree, the rest of it spread over the other classes when not)
        relative to a ball of the detected class, so that agreeing costs 0 whatever the
        confidence (it must not make one ball of a class prefer a detection over another ball
        of the same class), and an unclassified detection costs 0 against any ball."""
        c = self.config
        agree = track_cls[:, None] == cls[None, :]
        p = np.maximum(conf[None, :], c.class_floor)
        like = np.where(agree, p, np.maximum((1 - conf[None, :]) / (N_CLASSES - 1),
                                             c.class_floor))
        cost = -2 * c.class_weight * np.log(np.minimum(like / p, 1.0))
        return np.where(cls[None, :] < 0, 0.0, cost)

    def predicted(self, tracks: Sequence[Any]
                                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """zhat (N, 2), innovation covariances S (N, 2, 2) and detection noises R (N, 2, 2) of
        ``tracks``."""
        m = self.model
        x = np.array([tr.kf.x for tr in tracks])
        p = np.array([tr.kf.P for tr in tracks])
        moving = np.array([tr.moving for tr in tracks])
        h = np.where(moving[:, None, None], m.h_moving[None], m.h_rest[None])
        zhat = np.einsum("nij,nj->ni", h, x)
        r = m.r_balls(x, moving)
        s = np.einsum("nij,njk,nlk->nil", h, p, h) + r
        return zhat, s, r

    def gated(self, tracks: Sequence[Any], z, cls, conf):
        """Hungarian assignment under the chi-square gate. Returns ([(track, det)], d2 (N, K),
        each track's detection noise R (N, 2, 2) where it is predicted)."""
        if not tracks or not len(z):
            return [], np.zeros((len(tracks), len(z))), np.zeros((len(tracks), 2, 2))
        zhat, s, r = self.predicted(tracks)
        s_inv = np.linalg.inv(s)
        e = z[None, :, :] - zhat[:, None, :]
        d2 = np.einsum("nki,nij,nkj->nk", e, s_inv, e)
        logdet = np.log(np.linalg.det(s))
        track_cls = np.array([tr.cls for tr in tracks])
        cost = d2 + logdet[:, None] + self.class_cost(track_cls, cls, conf)
        gated = d2 <= self.config.gate_chi2
        # A resting ball's gate is widened to the launch threshold: the restless test decides.
        resting = np.array([not tr.moving for tr in tracks])
        gated |= resting[:, None] & (d2 <= self.config.launch_chi2)
        gate = np.where(resting, self.config.launch_chi2, self.config.gate_chi2)
        unmatched = logdet + gate + self.config.unmatched_cost
        return assign(np.where(gated, cost, INFEASIBLE), unmatched), d2, r

    def wide(self, tracks: Sequence[Any], speed_bound: np.ndarray, z, cls, conf,
                     t: float):
        """Second pass: the distance to each track's prediction or last sighting, as a fraction
        of how far its ball can have gone since then (``speed_bound`` (N,) mm/s; a detection at
        the edge of that reach costs 4, what a 2-sigma miss costs in the first pass), plus the
        class evidence. Returns [(track, detection)]."""
        c = self.config
        pos = np.array([tr.kf.x[:2] for tr in tracks])
        last = np.array([tr.last_seen_x[:2] for tr in tracks])
        since = np.array([t - tr.last_seen_t for tr in tracks])
        d_pred = np.hypot(*(z[None] - pos[:, None]).transpose(2, 0, 1))
        d_last = np.hypot(*(z[None] - last[:, None]).transpose(2, 0, 1))
        d = np.minimum(d_pred, d_last)
        reach = (speed_bound * since + c.kick_slack_mm + 3 * c.moving_sigma_mm
                 + 3 * self.model.sigma_image_mm(last))
        track_cls = np.array([tr.cls for tr in tracks])
        cost = 4.0 * (d / reach[:, None]) ** 2 + self.class_cost(track_cls, cls, conf)
        cost = np.where(d_last <= reach[:, None], cost, INFEASIBLE)
        return assign(cost, np.full(len(tracks), 4.0 + c.unmatched_cost))
