"""Shots from the stream of table states: when a shot starts and ends, which ball the white
touched first, what was potted or left the table; the facts the referee is fed.

A shot starts when the white, at rest, is set moving (the cue struck it: it is away from its
place at two sightings running, and the shot is dated at the first); the first object ball
to leave its resting place after that was struck first (a ball only moves when something hits
it, and the white is the only ball moving at the start); the shot ends when every ball on the
table has been still for ``rest_s`` seconds.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from calibration.specs import SNOOKER, SnookerTableSpec
from tracker.track import TableState


@dataclass(frozen=True)
class ShotConfig:
    """start_mm: how far the white must move from its resting place to start a shot;
    moved_mm: how far an object ball must move to count as struck; onset_mm: the movement that
    dates when it was struck; decide_s: how long after the first struck ball the others are
    compared (in a pack several move within a frame or two); pass_frac: how near (in ball
    diameters) the white's path must come to a resting ball's centre to have gone through or
    over it; still_mm_s: the speed below which a ball is still; rest_s: how long everything must
    be still to end a shot; max_speed_mm_s: the fastest a ball goes (a break-off is ~8 m/s): a
    step of the white faster than this is the tracker finding it again elsewhere, not a path."""

    start_mm: float = 8.0
    moved_mm: float = 6.0
    onset_mm: float = 2.0
    pass_frac: float = 0.8
    decide_s: float = 0.25
    still_mm_s: float = 15.0
    rest_s: float = 0.6
    max_speed_mm_s: float = 12000.0

    def __post_init__(self):
        for name in ("start_mm", "moved_mm", "onset_mm", "pass_frac", "decide_s", "still_mm_s",
                     "rest_s", "max_speed_mm_s"):
            if not getattr(self, name) > 0:
                raise ValueError(f"ShotConfig.{name} must be positive, got {getattr(self, name)}")


@dataclass
class _Shot:
    number: int
    frame: int
    t: float
    rest_xy: dict[str, np.ndarray]
    first_contact: str | None = None
    # id -> (frame, t, distance from the white then): when each object ball began to move
    onset: dict[str, tuple[int, float, float]] = field(default_factory=dict)
    struck: set[str] = field(default_factory=set)
    first_struck_t: float | None = None
    white_xy: np.ndarray | None = None  # where the white was at the previous frame
    white_t: float = 0.0  # and when
    passed: dict[str, tuple[int, float]] = field(default_factory=dict)  # id -> (frame, t)
    potted: list[str] = field(default_factory=list)
    cue_potted: bool = False
    off_table: list[str] = field(default_factory=list)
    still_since: float | None = None


class ShotTracker:
    """Feed it every frame's TableState (with the tracker's events); it returns the shot events
    that became certain at that frame: ``shot_start``, ``shot_end`` (with the shot record for
    the referee under ``record``)."""

    def __init__(self, config: ShotConfig | None = None, table: SnookerTableSpec = SNOOKER):
        self.config = config or ShotConfig()
        self.table_ball_diameter_mm = table.ball_diameter_mm
        self._shots = 0
        self._shot: _Shot | None = None
        self._rest: dict[str, np.ndarray] = {}
        # when and where the white was first seen away from its place
        self._leaving: tuple[int, float, np.ndarray] | None = None

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
        speed = np.hypot(*state.velocity_mm_s.T) if len(state) else np.zeros(0)
        if self._shot is None:
            # remember where every ball rests; start a shot when the white leaves its place
            for i in np.flatnonzero(on):
                if speed[i] < cfg.still_mm_s:
                    self._rest[ids[i]] = state.xy_mm[i].copy()
            if "white" not in ids:
                return out
            w = state.index("white")
            rest = self._rest.get("white")
            if not (on[w] and rest is not None and state.state[w] == "seen"
                    and np.hypot(*(state.xy_mm[w] - rest)) > cfg.start_mm):
                self._leaving = None
                return out
            if self._leaving is None:
                # one frame away could be one bad detection (beside the cue, say): a struck
                # white is still away at the next sighting
                self._leaving = (state.frame, state.t, state.xy_mm[w].copy())
                return out
            frame, t, xy = self._leaving
            self._leaving = None
            self._shots += 1
            self._shot = _Shot(self._shots, frame, t,
                               {k: v.copy() for k, v in self._rest.items()}, white_xy=xy,
                               white_t=t)
            out.append({"type": "shot_start", "frame": frame, "t": t, "shot": self._shots})
        shot = self._shot
        for e in state.events:
            if e["type"] == "pot":
                if e["ball"] == "white":
                    shot.cue_potted = True
                else:
                    shot.potted.append(e["class"])
            elif e["type"] == "off_table":
                if e["ball"] == "white":
                    shot.cue_potted = True
                else:
                    shot.off_table.append(e["class"])
        self._passes(state, shot)
        if shot.first_contact is None:
            out.extend(self._first_contact(state, shot))
        moving = bool(np.any(speed[on] >= cfg.still_mm_s)) if on.any() else False
        if moving:
            shot.still_since = None
        elif shot.still_since is None:
            shot.still_since = state.t
        elif state.t - shot.still_since >= cfg.rest_s:
            out.extend(self._end(state))
        return out

    def _first_contact(self, state: TableState, shot: _Shot) -> list[dict]:
        """The object ball that started moving first: each ball's onset is dated by when it
        first left its place by ``onset_mm``; it counts once it has moved ``moved_mm``."""
        cfg = self.config
        on = state.on_table()
        white = (state.xy_mm[state.index("white")] if "white" in state.track_ids
                 else np.full(2, np.nan))
        for i in np.flatnonzero(on):
            tid = state.track_ids[i]
            rest = shot.rest_xy.get(tid)
            if tid == "white" or rest is None:
                continue
            moved = float(np.hypot(*(state.xy_mm[i] - rest)))
            if moved > cfg.onset_mm and tid not in shot.onset:
                gap = float(np.hypot(*(rest - white))) if np.isfinite(white).all() else np.inf
                shot.onset[tid] = (state.frame, state.t, gap)
            if moved > cfg.moved_mm and tid not in shot.struck:
                shot.struck.add(tid)
                if shot.first_struck_t is None:
                    shot.first_struck_t = state.t
        if shot.first_struck_t is None or state.t - shot.first_struck_t < cfg.decide_s:
            return []
        # balls set moving in the same frame (a pack): the one beside the white was hit by it
        tid = str(min(shot.struck, key=lambda k: (shot.onset[k][0], shot.onset[k][2], k)))
        cls = state.class_names[state.index(tid)]
        shot.first_contact = cls
        frame, t, _ = shot.onset[tid]
        return [{"type": "contact", "frame": frame, "t": t, "balls": ["white", tid],
                 "classes": ["white", cls]}]

    def _passes(self, state: TableState, shot: _Shot) -> None:
        """Balls at rest that the white's path went through: between two frames the white's
        centre came within ``pass_frac`` of a ball diameter of a resting ball's centre. If that
        ball never moves, the white went over it (a jump). A step no ball could make (the
        tracker re-finding a lost white far away) is no path."""
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
        if L2 > (self.config.max_speed_mm_s * dt) ** 2:
            return
        reach = self.config.pass_frac * self.table_ball_diameter_mm
        for tid, rest in shot.rest_xy.items():
            if tid == "white" or tid in shot.passed:
                continue
            s = 0.0 if L2 < 1e-9 else float(np.clip((rest - a) @ ab / L2, 0, 1))
            if np.hypot(*(a + s * ab - rest)) < reach:
                shot.passed[tid] = (state.frame, state.t)

    def _jumps(self, shot: _Shot) -> tuple[list[dict], bool]:
        """(jump events, whether a jump came before the first contact: the jump-shot foul of
        the definitions in Section 2, which excepts jumping a ball after a lawful contact)."""
        events, foul = [], False
        first_t = None
        if shot.first_contact is not None and shot.struck:
            first_t = min(shot.onset[k][1] for k in shot.struck)
        for tid, (frame, t) in sorted(shot.passed.items(), key=lambda kv: kv[1]):
            if tid in shot.struck:
                continue
            events.append({"type": "jump", "frame": frame, "t": t, "ball": "white",
                           "class": "white", "over": tid})
            foul = foul or first_t is None or t < first_t
        return events, foul

    def _end(self, state: TableState) -> list[dict]:
        shot = self._shot
        self._shot = None
        self._rest = {}
        jumps, jump_foul = self._jumps(shot)
        record = {"type": "shot", "first_contact": shot.first_contact, "potted": shot.potted,
                  "cue_potted": shot.cue_potted, "off_table": shot.off_table,
                  "nominated": None, "foul": "jump_shot" if jump_foul else None,
                  "snookered_after": None, "miss": None,
                  "positions": {tid: [round(float(x), 1), round(float(y), 1)]
                                for tid, (x, y), ok in zip(state.track_ids, state.xy_mm,
                                                           state.on_table()) if ok}}
        return jumps + [{"type": "shot_end", "frame": state.frame, "t": state.t,
                         "shot": shot.number, "first_contact": shot.first_contact,
                         "potted": list(shot.potted), "cue_potted": shot.cue_potted,
                         "off_table": list(shot.off_table), "record": record}]
