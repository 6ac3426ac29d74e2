"""Straight lines through the balls' positions: a shot's history read as positions, lines
fitted to them either side of a frame interval (``Lines``, the record of that interval), and
where two lines come a distance apart or nearest."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass
class Lines:
    """The balls' lines either side of one interval of a shot's history, (t0, t1] =
    (t[nb - 1], t[nb]]: positions ``p_*`` and velocities ``v_*`` (N, 2) of balls ``ids`` at t0
    on the line before and at t1 on the line after, and where each holds (``ok_*`` (N,)).
    ``resting``: balls at rest before (their line before is their place); ``started``: of
    those, set moving, at ``depart``; ``kicked``: velocity changed by more than ``kick``;
    ``spanned``/``bounced``: lines before spanning a contact/bounce an earlier interval dated;
    ``seen`` (2, N, 2): the positions seen at either end (NaN unseen). The interval's contacts
    fill ``hits`` (ball index -> [t]) and ``from_rest`` (index, the blow's unit direction, t);
    then, for its cushions, how long each line holds between them (the line before up to
    ``before_to`` (N,), the line after back to ``after_from`` (N,)) and the velocities fitted
    over twice the span before (``v_long`` (N, 2), NaN where unknown)."""

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
    before_to: np.ndarray | None = None
    after_from: np.ndarray | None = None
    v_long: np.ndarray | None = None

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
    from it on (at t[nb]) -> ((p_before, v_before, ok_before), (p_after, v_after, ok_after))."""
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


def _closest(p: np.ndarray, v: np.ndarray, lo: float, hi: float) -> tuple[float, float]:
    """(s, |p + v s|) at the closest approach of p + v s over s in [lo, hi]."""
    a = float(v @ v)
    s = float(np.clip(-(p @ v) / a, lo, hi)) if a > 1e-9 else lo
    return s, float(np.hypot(*(p + v * s)))
