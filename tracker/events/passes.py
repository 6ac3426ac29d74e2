"""The white's path past the balls at rest and the object balls' onsets: the first contact
when the lines found none, touches too faint for the lines, the balls the white jumped, and
the contacts of balls sent out of play too fast to be seen."""

from __future__ import annotations

import numpy as np

from tracker.events.config import ShotConfig
from tracker.events.inplay import ShotInPlay, kiss
from tracker.events.lines import _first_root, _fit_lines, _since
from tracker.tracking.state import TableState

# s: the positions averaged to tell a faintly touched ball has crept off its place
_NUDGE_S = 0.2
# s: how long after the white came by a ball's creeping off its place is put down to a touch
_NUDGE_WATCH_S = 1.0
# s: how long after the white left a ball it went through it is known whether that ball was
# set moving before (contacts are dated some frames on, a creep from a touch later still)
_JUMP_S = 0.5


def _went_over(came_from: np.ndarray | None, ball: np.ndarray, went_to: np.ndarray | None
               ) -> bool:
    """Whether the white, which came within reach of the resting ``ball`` at ``came_from`` and
    was next out of it at ``went_to`` (each (2,) mm, or None when not known), went from one
    side of it to the other: the ball's centre between the two along the white's way. A white
    struck away from a ball it touched, measured once over it (a cue's tip or its own blur
    taken for it), went over nothing."""
    if came_from is None or went_to is None:
        return True
    way = went_to - came_from
    return bool((ball - came_from) @ way > 0 and (went_to - ball) @ way > 0)


def onsets(state: TableState, shot: ShotInPlay, cfg: ShotConfig) -> None:
    """When each object ball first left its place by ``onset_mm`` (counted once it has
    moved ``moved_mm``): the first contact when the trajectories gave none (the white
    hidden at the contact, say)."""
    on = state.on_table()
    white = (state.xy_mm[state.index("white")] if "white" in state.track_ids
             else np.full(2, np.nan))
    balls = [(i, tid) for i, tid in zip(np.flatnonzero(on), state.track_ids[on].tolist())
             if tid != "white" and tid in shot.rest_xy]
    if not balls:
        return
    xy = state.xy_mm[[i for i, _ in balls]]
    rest = np.array([shot.rest_xy[tid] for _, tid in balls])
    for (_, tid), moved in zip(balls, np.hypot(*(xy - rest).T).tolist()):
        if moved > cfg.onset_mm and tid not in shot.onset:
            gap = (float(np.hypot(*(shot.rest_xy[tid] - white))) if np.isfinite(white).all()
                   else np.inf)
            shot.onset[tid] = (state.frame, state.t, gap)
        if moved > cfg.moved_mm:
            shot.struck.add(tid)


def first_contact(shot: ShotInPlay) -> str | None:
    """The class of the ball the white touched first: its earliest contact, unless an
    object ball was seen off its place before that (a contact the lines missed: only the
    white moves at first, so that ball was hit by it); with no contact, the object ball
    that started moving first (in a pack, the one beside the white)."""
    first = min(shot.white_contacts) if shot.white_contacts else None
    if shot.struck:
        tid = min(shot.struck, key=lambda k: (shot.onset[k][0], shot.onset[k][2], k))
        if first is None or shot.onset[tid][1] < first[0]:
            return shot.classes.get(tid)
    return None if first is None else shot.classes.get(first[1])


def struck_unseen(shot: ShotInPlay, gone: dict) -> list[dict]:
    """The contact of a ball that left play sent off too fast, or seen moving too briefly,
    for the lines (the tracker's ``pot`` or ``off_table`` with ``struck_by``, the ball
    that reached it, and ``struck_t``) when none was found for it: dated then, not before
    the shot began (a white struck into it within a frame or two)."""
    striker, ball = gone.get("struck_by"), gone["ball"]
    if striker is None or ball in shot.hit_at:
        return []
    return kiss(shot, striker, ball, max(float(gone["struck_t"]), shot.t))


def nudges(state: TableState, shot: ShotInPlay, cfg: ShotConfig) -> list[dict]:
    """Contacts too faint for the lines: a resting ball the white came by that has since
    crept off its place by ``nudge_mm`` (its positions over the last ``_NUDGE_S``), too
    slowly to have been seen set moving. Dated when the white came by."""
    out = []
    recent = _since(shot.history, state.t - _NUDGE_S)
    for tid, t_by in list(shot.grazed.items()):
        if tid in shot.moved or state.t - t_by > _NUDGE_WATCH_S:
            continue
        pts = np.array([h[2][tid] for h in recent if tid in h[2]])
        if len(pts) < 3:
            continue
        t = np.array([h[1] for h in recent if tid in h[2]])
        _, v, _ = _fit_lines(t, pts[:, None], state.t)
        away = float(np.hypot(*(pts.mean(axis=0) - shot.rest_xy[tid])))
        if away > cfg.nudge_mm and float(np.hypot(*v[0])) < cfg.start_mm_s:
            shot.moved.add(tid)
            out += kiss(shot, "white", tid, t_by)
    return out


def passes(state: TableState, shot: ShotInPlay, cfg: ShotConfig, ball_diameter_mm: float
           ) -> None:
    """Balls at rest that the white's path went through: between two frames the white's
    centre came within ``pass_frac`` of a ball diameter of a resting ball's centre, and
    when it was next a diameter (and ``contact_tol_mm``) away from it. If that ball was
    not set moving before the white left it, the white went over it (a jump). Also when the
    white last came within that reach of each resting ball (the date of a faint touch). A
    step no ball could make (the tracker re-finding a lost white far away) is no path."""
    if "white" not in state.track_ids:
        return
    w = state.xy_mm[state.index("white")]
    if not np.isfinite(w).all():
        shot.white_xy = None
        return
    a = w if shot.white_xy is None else shot.white_xy
    dt = state.t - shot.white_t
    shot.white_xy, shot.white_t = w.copy(), state.t
    ab = w - a
    L2 = float(ab @ ab)
    if L2 > (cfg.max_speed_mm_s * dt) ** 2:
        return
    ids = [k for k in shot.rest_xy if k != "white"]
    if not ids:
        return
    rest = np.array([shot.rest_xy[k] for k in ids])  # (M, 2)
    D = ball_diameter_mm
    near = D + cfg.contact_tol_mm
    s = (np.minimum(np.maximum((rest - a) @ ab / L2, 0.0), 1.0) if L2 >= 1e-9
         else np.zeros(len(ids)))
    gap = np.hypot(*(a + s[:, None] * ab - rest).T)
    for tid in shot.passed.keys() - shot.left.keys():
        if np.hypot(*(w - shot.rest_xy[tid])) >= near:
            shot.left[tid] = state.t
            shot.went_to[tid] = w.copy()
    was_out = np.hypot(*(a - rest).T) >= near
    for m in np.flatnonzero(gap < near):
        tid = ids[m]
        if was_out[m] or tid not in shot.grazed:
            # a new approach: when the white came a diameter from it (or nearest)
            root = _first_root(a - rest[m], ab, D, 0.0, 1.0)
            shot.grazed[tid] = state.t - dt + dt * (s[m] if root is None else root)
            if tid not in shot.passed:
                shot.came_from[tid] = a + ab * (0.0 if root is None else root)
        if gap[m] < cfg.pass_frac * D and tid not in shot.passed:
            shot.passed[tid] = (state.frame, state.t)


def jumps(shot: ShotInPlay, now: float, end: bool = False) -> list[dict]:
    """The jumps now known: a ball the white went through was jumped unless it was set
    moving (seen off its place or in a contact) before the white left it (a ball hit
    later, by the white back again or another ball, was still jumped). It is judged
    ``_JUMP_S`` after the white left it, or at the shot's ``end``."""
    events = []
    for tid, (frame, t) in sorted(shot.passed.items(), key=lambda kv: kv[1]):
        left = shot.left.get(tid)
        if tid in shot.judged or not (end or (left is not None and now - left >= _JUMP_S)):
            continue
        shot.judged.add(tid)
        moved = [shot.onset[tid][1]] if tid in shot.onset else []
        moved += shot.hit_at.get(tid, [])
        if moved and (left is None or min(moved) <= left):
            continue
        if not moved and (tid in shot.struck or tid in shot.moved):
            continue
        if not _went_over(shot.came_from.get(tid), shot.rest_xy[tid], shot.went_to.get(tid)):
            continue
        events.append({"type": "jump", "frame": frame, "t": t, "ball": "white",
                       "class": "white", "over": tid})
    shot.jumps += events
    return events


def jump_foul(shot: ShotInPlay) -> bool:
    """Whether a jump came before the first contact: the jump-shot foul of the definitions
    in Section 2, which excepts jumping a ball after a lawful contact."""
    first_t = None
    if shot.white_contacts:
        first_t = min(shot.white_contacts)[0]
    elif shot.struck:
        first_t = min(shot.onset[k][1] for k in shot.struck)
    return any(first_t is None or e["t"] < first_t for e in shot.jumps)
