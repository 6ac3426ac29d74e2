"""Drawing the match over the video: ``draw_overlay(frame, scoreboard, trails, markers) -> frame``.

A broadcast-style scoreboard (players, frames, score, the striker, the break, the ball on and
notices such as a foul, a free ball or a miss), fading ball trails and shot markers (pot flashes
at the pocket, contact points). Pure drawing on the frame it is given: no windows, no files.

Speed: the scoreboard is rendered once per change (supersampled for clean text) and alpha-blended
onto its corner; each trail is drawn into an alpha mask over its own bounding box, and markers
into a mask and colour layer, blended only where the mask is set. See scripts/bench_overlay.py
for timings.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

import cv2
import numpy as np

# BGR colours of the balls as drawn (the black is lifted to stay visible on dark cloth)
BALL_BGR: dict[str, tuple[int, int, int]] = {
    "white": (240, 240, 240), "red": (45, 35, 215), "yellow": (40, 215, 245),
    "green": (70, 160, 40), "brown": (35, 80, 145), "blue": (215, 110, 30),
    "pink": (190, 150, 255), "black": (80, 80, 80),
}
COLOURS_IN_ORDER = ("yellow", "green", "brown", "blue", "pink", "black")
PANEL_BGR = (38, 26, 16)
PANEL_ALPHA = 0.88
GOLD_BGR = (60, 190, 240)
NOTICE_BGR = {"foul": (40, 40, 200), "info": (150, 95, 20), "win": (40, 140, 60)}
SUPERSAMPLE = 2
MAX_SNOOKERS_SHOWN = 3
# the events that carry the referee's answer (the fields of a ``score`` event): each sets the
# board; a ``frame_start`` shows the next frame of a match at 0-0, its breaker to play
BOARD_EVENTS = frozenset({"score", "frame_start", "decision"})

# the board at 1080p, in px; everything scales with the frame height
_MARGIN, _ROW_H, _MARK_W, _NAME_W, _FRAMES_W, _SCORE_W, _SIDE_W, _NOTICE_H = (
    44, 46, 10, 300, 60, 88, 190, 38)


@dataclass(frozen=True)
class Scoreboard:
    """What the scoreboard shows. ``striker``: the player at the table (None between frames);
    ``break_``: the striker's break in progress; ``ball_on``: "red", "colour", a colour or None;
    ``notices``: ``(text, kind)`` pairs, kind "foul", "info" or "win"; ``remaining``: points left
    on the table (None to hide)."""

    players: tuple[str, str] = ("Player 1", "Player 2")
    score: tuple[int, int] = (0, 0)
    frames: tuple[int, int] = (0, 0)
    striker: int | None = 0
    break_: int = 0
    ball_on: str | None = "red"
    best_of: int | None = None
    remaining: int | None = None
    notices: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        # tuples throughout, so a board is hashable and its rendering can be cached
        if len(self.players) != 2:
            raise ValueError(f"players must be two names, got {list(self.players)}")
        object.__setattr__(self, "players", (str(self.players[0]), str(self.players[1])))
        object.__setattr__(self, "score", (int(self.score[0]), int(self.score[1])))
        object.__setattr__(self, "frames", (int(self.frames[0]), int(self.frames[1])))
        object.__setattr__(self, "notices", tuple((str(t), str(k)) for t, k in self.notices))

    @classmethod
    def from_score_event(cls, event: Mapping[str, Any], players: Sequence[str] | None = None,
                         best_of: int | None = None) -> Scoreboard:
        """The board after a ``score`` event (docs/FORMATS.md; the referee's result dict also
        fits). ``players``: the two names (default "Player 1", "Player 2")."""
        names = tuple(players) if players else ("Player 1", "Player 2")
        if len(names) != 2:
            raise ValueError(f"players must be two names, got {list(names)}")
        player, nxt = event.get("player"), event.get("next_player")
        foul = event.get("foul")
        # a frame joined mid-way starts with the break in progress of the player at the table
        going_on = nxt == player or event.get("type") == "frame_start"
        brk = int(event.get("break") or 0) if (nxt is not None and going_on and not foul) \
            else 0
        notices: list[tuple[str, str]] = []
        if foul:
            reason = str(foul.get("reason", "")).replace("_", " ").upper()
            head = "FOUL AND A MISS" if event.get("miss") else "FOUL"
            notices.append((f"{head} {foul.get('points', '')}  {reason}".strip(), "foul"))
        if event.get("warning"):
            notices.append(("WARNING: ANOTHER MISS LOSES THE FRAME", "foul"))
        if event.get("free_ball"):
            notices.append(("FREE BALL", "info"))
        if event.get("respotted_black") and not event.get("frame_over"):
            notices.append(("RE-SPOTTED BLACK", "info"))
        need = event.get("snookers_required") or (0, 0)
        for p in (0, 1):
            # the television convention: shown while a comeback is still realistic
            if not event.get("frame_over") and 0 < int(need[p] or 0) <= MAX_SNOOKERS_SHOWN:
                n = int(need[p])
                notices.append((f"{names[p].upper()} NEEDS {n} SNOOKER{'S' if n > 1 else ''}",
                                "info"))
        if event.get("match_over") and event.get("match_winner") is not None:
            notices.append((f"MATCH TO {names[event['match_winner']].upper()}", "win"))
        elif event.get("frame_over") and event.get("winner") is not None:
            notices.append((f"FRAME TO {names[event['winner']].upper()}", "win"))
        score = event.get("score") or (0, 0)
        frames = event.get("frames") or (0, 0)
        rem = event.get("points_remaining")
        return cls(players=(str(names[0]), str(names[1])),
                   score=(int(score[0]), int(score[1])), frames=(int(frames[0]), int(frames[1])),
                   striker=nxt, break_=brk, ball_on=event.get("ball_on"), best_of=best_of,
                   remaining=None if rem is None or event.get("frame_over") else int(rem),
                   notices=tuple(notices))

    def as_dict(self) -> dict[str, Any]:
        """The JSON form the live page reads."""
        return {"players": list(self.players), "score": list(self.score),
                "frames": list(self.frames), "striker": self.striker, "break": self.break_,
                "ball_on": self.ball_on, "best_of": self.best_of, "remaining": self.remaining,
                "notices": [{"text": t, "kind": k} for t, k in self.notices]}


def pot_points(ball_on: str | None, free_ball: bool, potted: Sequence[str]
               ) -> tuple[int, int]:
    """What the balls ``potted`` so far in a stroke (classes, in order; "white" for the white)
    are worth if the stroke ends as it stands: (the striker's points, the opponent's penalty),
    one of them 0. S3 R3(g)-(h): every red on scores one, a colour on its value, one colour a
    stroke; S3 R12: a free ball counts as the ball on; S3 R10-11: a ball not on or the white
    potted is a foul, worth at least four or the higher value concerned, and the striker
    scores nothing in the stroke. The referee's answer at the stroke's end is what counts."""
    from tracker.rules.balls import VALUES

    on_value = 1 if ball_on == "red" else VALUES.get(ball_on or "", 0)
    points, foul, colour = 0, 0, None
    for ball in potted:
        if ball == "white":
            foul = max(foul, 4, on_value)
        elif ball_on == "red" and ball == "red":
            points += 1
        elif colour is None and ball != "red" and (
                ball_on == "colour" or ball == ball_on or free_ball):
            colour = ball
            points += VALUES[ball] if ball_on == "colour" else on_value
        else:
            foul = max(foul, 4, on_value, VALUES.get(ball, 0), VALUES.get(colour or "", 0))
    return (0, foul) if foul else (points, 0)


class ScoreKeeper:
    """The board as a run's events come, for the overlay and the live page: each referee's
    answer (``BOARD_EVENTS``) sets it; a ``pot`` after the last answer moves the score at once,
    provisionally (``pot_points``), the answer at the shot's end correcting it (a foul). A
    pot told twice (as soon as the tracker is sure of it, and again in the log's order) counts
    once. ``see(event)`` -> whether the board changed; ``board`` the board now."""

    def __init__(self, board: Scoreboard, players: Sequence[str] | None = None) -> None:
        self.players = tuple(players) if players else board.players
        self._answer: Mapping[str, Any] = {
            "score": board.score, "frames": board.frames, "next_player": board.striker,
            "player": board.striker, "break": board.break_, "ball_on": board.ball_on,
            "type": "frame_start", "t": float("-inf")}
        self._base = board
        self._pots: list[tuple[float, str]] = []
        self._seen: set[tuple[Any, float]] = set()
        self.board = board

    def rename(self, players: Sequence[str]) -> None:
        """The two names shown from now on."""
        self.players = (str(players[0]), str(players[1]))
        self._base = replace(self._base, players=self.players)
        self.board = replace(self.board, players=self.players)

    def seen(self, event: Mapping[str, Any]) -> bool:
        """Whether ``event`` is a pot already counted."""
        return event.get("type") == "pot" and self._key(event) in self._seen

    @staticmethod
    def _key(event: Mapping[str, Any]) -> tuple[Any, float]:
        return event.get("ball"), round(float(event.get("t", 0.0)), 4)

    def see(self, event: Mapping[str, Any]) -> bool:
        kind = event.get("type")
        before = self.board
        if kind in BOARD_EVENTS:
            self._answer = event
            t = float(event.get("t", float("inf")))
            self._pots = [p for p in self._pots if p[0] > t]
            self._base = Scoreboard.from_score_event(event, self.players, self._base.best_of)
        elif kind == "pot" and not self.seen(event):
            self._seen.add(self._key(event))
            if float(event.get("t", 0.0)) <= float(self._answer.get("t", float("-inf"))):
                return False  # a pot of a stroke the referee has answered for
            self._pots.append((float(event.get("t", 0.0)), str(event.get("class"))))
        else:
            return False
        self.board = self._provisional()
        return self.board != before

    def _provisional(self) -> Scoreboard:
        base, a = self._base, self._answer
        striker = a.get("next_player")
        if not self._pots or striker not in (0, 1) or a.get("frame_over"):
            return base
        points, foul = pot_points(a.get("ball_on"), bool(a.get("free_ball")),
                                  [c for _, c in sorted(self._pots)])
        score = list(base.score)
        score[striker] += points
        score[1 - striker] += foul
        return replace(base, score=(score[0], score[1]),
                       break_=0 if foul else base.break_ + points)


@dataclass(frozen=True)
class Marker:
    """A shot marker in image px: ``kind`` "pot" (a flash at the pocket), "contact" (a ring where
    two balls met) or "cushion"; ``age_s``: seconds since it happened (it fades out over
    ``MARKER_LIFE_S[kind]``); ``ball``: the class that gives its colour."""

    kind: str
    xy_px: tuple[float, float]
    age_s: float = 0.0
    ball: str | None = None


MARKER_LIFE_S = {"pot": 1.2, "contact": 1.5, "cushion": 0.8}


def markers_from_events(events: Iterable[Mapping[str, Any]], t_now: float,
                        position_px: Callable[[str, Mapping[str, Any]], Any] | None = None
                        ) -> list[Marker]:
    """The live markers at time ``t_now`` (s) from contract events: each ``pot`` flashes at its
    ``pocket_px``; ``contact`` and ``cushion`` events are placed at the event's ``px`` field when
    it has one, else at ``position_px(track_id, event)`` (the first ball's image position then),
    else skipped."""
    out = []
    for e in events:
        kind = e.get("type")
        life = MARKER_LIFE_S.get(kind)
        if life is None:
            continue
        age = t_now - float(e.get("t", -1e9))
        if not 0.0 <= age < life:
            continue
        if kind == "pot":
            xy = e.get("pocket_px")
            ball = e.get("class")
        elif kind == "contact":
            xy = e.get("px")
            ids = e.get("balls") or [None]
            if xy is None and position_px is not None and ids[0] is not None:
                xy = position_px(ids[0], e)
            classes = e.get("classes") or [None, None]
            ball = classes[-1]
        else:
            xy = e.get("px")
            if xy is None and position_px is not None and e.get("ball"):
                xy = position_px(e["ball"], e)
            ball = e.get("class")
        if xy is not None and all(math.isfinite(float(v)) for v in xy):
            out.append(Marker(kind, (float(xy[0]), float(xy[1])), age, ball))
    return out


def ball_class_of(track_id: str) -> str:
    """"red_07" -> "red"; "white" -> "white"."""
    return track_id.split("_", 1)[0]


# ---------------------------------------------------------------------------------------------
# The scoreboard


def scoreboard_rect(frame_shape: Sequence[int]) -> tuple[int, int, int, int]:
    """``(x, y, w, h)`` in px of the board (notices go just above it) for a frame of shape
    ``(H, W, ...)``: the bottom-left corner, scaled with the frame height."""
    s = frame_shape[0] / 1080.0
    w = round((_MARK_W + _NAME_W + _FRAMES_W + _SCORE_W + _SIDE_W) * s)
    h = round(2 * _ROW_H * s)
    m = round(_MARGIN * s)
    return m, frame_shape[0] - m - h, w, h


@dataclass(frozen=True)
class _Sprite:
    x: int
    y: int
    premult: np.ndarray  # (h, w, 3) uint16: colour * alpha (alpha 0..256)
    inv_alpha: np.ndarray  # (h, w, 3) uint16: 256 - alpha


def _fit_text(text: str, font: int, max_w: float, scale: float, thick: int) -> tuple[str, float]:
    """The text (cut with "..." if needed) and a font scale that fit ``max_w`` px."""
    w = cv2.getTextSize(text, font, scale, thick)[0][0]
    if w <= max_w:
        return text, scale
    if w <= max_w * 1.25:
        return text, scale * max_w / w
    while len(text) > 2 and cv2.getTextSize(text + "...", font, scale, thick)[0][0] > max_w:
        text = text[:-1]
    return text.rstrip() + "...", scale


def _put(img, text, x, y_mid, font, scale, colour, thick, align="left", box_w=0.0):
    (tw, th), _ = cv2.getTextSize(text, font, scale, thick)
    if align == "center":
        x = x + (box_w - tw) / 2
    elif align == "right":
        x = x + box_w - tw
    cv2.putText(img, text, (round(x), round(y_mid + th / 2)), font, scale, colour, thick,
                cv2.LINE_AA)


def _ball(img, cx, cy, r, cls):
    col = BALL_BGR.get(cls, (200, 200, 200))
    cv2.circle(img, (round(cx), round(cy)), round(r), (*col, 255), -1, cv2.LINE_AA)
    hl = round(r * 0.3)
    cv2.circle(img, (round(cx - r * 0.3), round(cy - r * 0.3)), max(hl, 1),
               (255, 255, 255, 170), -1, cv2.LINE_AA)


def _render_board(board: Scoreboard, height: int) -> tuple[np.ndarray, int]:
    """The board as a BGRA image at the frame's scale and the notice strip's height above it."""
    s = height / 1080.0 * SUPERSAMPLE
    row, mark, name_w, fr_w, sc_w, side_w = (v * s for v in
                                             (_ROW_H, _MARK_W, _NAME_W, _FRAMES_W, _SCORE_W,
                                              _SIDE_W))
    notice_h = _NOTICE_H * s
    n_notices = min(len(board.notices), 2)
    top = notice_h * n_notices
    W = round(mark + name_w + fr_w + sc_w + side_w)
    H = round(top + 2 * row)
    img = np.zeros((H, W, 4), np.uint8)
    a = round(255 * PANEL_ALPHA)
    font = bold = cv2.FONT_HERSHEY_DUPLEX
    t1, t2 = max(1, round(1.2 * s)), max(1, round(2.2 * s))

    for i, (text, kind) in enumerate(board.notices[:2]):
        y0 = round(i * notice_h)
        img[y0:round(y0 + notice_h), :] = (*NOTICE_BGR.get(kind, NOTICE_BGR["info"]), a)
        txt, fs = _fit_text(text, font, W - 24 * s, 0.72 * s, t1)
        _put(img, txt, 14 * s, y0 + notice_h / 2, font, fs, (255, 255, 255, 255), t1)

    y_board = round(top)
    img[y_board:, :] = (*PANEL_BGR, a)
    x_frames = mark + name_w
    x_score = x_frames + fr_w
    x_side = x_score + sc_w
    for p in (0, 1):
        y0 = top + p * row
        ym = y0 + row / 2
        at_table = board.striker == p
        if at_table:
            img[round(y0):round(y0 + row), :round(mark)] = (*GOLD_BGR, 255)
            img[round(y0):round(y0 + row), round(mark):round(x_frames)] = (70, 48, 30, a)
        name, fs = _fit_text(board.players[p].upper(), font, name_w - 24 * s, 0.8 * s, t1)
        _put(img, name, mark + 14 * s, ym, font, fs, (255, 255, 255, 255), t1)
        img[round(y0):round(y0 + row), round(x_frames):round(x_score)] = (30, 120, 175, 255)
        _put(img, str(board.frames[p]), x_frames, ym, bold, 0.85 * s, (255, 255, 255, 255), t2,
              "center", fr_w)
        img[round(y0):round(y0 + row), round(x_score):round(x_side)] = (245, 245, 245, 255)
        _put(img, str(board.score[p]), x_score, ym, bold, 1.0 * s, (30, 22, 14, 255), t2,
             "center", sc_w)
    # a hairline between the two rows
    cv2.line(img, (0, round(top + row)), (round(x_side), round(top + row)), (0, 0, 0, 120),
             max(1, round(s)))

    # side block: the break beside the striker; the ball on and points remaining on the other row
    grey = (190, 190, 190, 255)
    at = board.striker if board.striker in (0, 1) else 0
    ym = top + at * row + row / 2
    if board.striker in (0, 1) and board.break_ > 0:
        _put(img, "BREAK", x_side + 14 * s, ym, font, 0.5 * s, grey, t1)
        _put(img, str(board.break_), x_side + 80 * s, ym, bold, 0.9 * s, (*GOLD_BGR, 255), t2)
    other_mid = top + (1 - at) * row + row / 2
    if board.ball_on:
        _put(img, "ON", x_side + 14 * s, other_mid, font, 0.5 * s, grey, t1)
        r = 11 * s
        cx = x_side + 58 * s
        if board.ball_on == "colour":
            for k, c in enumerate(COLOURS_IN_ORDER):
                _ball(img, cx - r * 0.6 + (k % 3) * r * 1.2, other_mid + (k // 3 - 0.5) * r * 1.2,
                      r * 0.55, c)
        else:
            _ball(img, cx, other_mid, r, board.ball_on)
    if board.remaining is not None:
        _put(img, f"REM {board.remaining}", x_side + 92 * s, other_mid, font, 0.5 * s, grey, t1)
    # exactly the board's rect (plus the notices) at the frame's scale
    _, _, w1, h1 = scoreboard_rect((height, 1))
    top1 = round(_NOTICE_H * height / 1080.0) * n_notices
    out = cv2.resize(img, (w1, h1 + top1), interpolation=cv2.INTER_AREA)
    return out, top1


@lru_cache(maxsize=16)
def _board_sprite(board: Scoreboard, height: int, width: int) -> _Sprite:
    bgra, top = _render_board(board, height)
    x, y, _, _ = scoreboard_rect((height, width))
    y -= top
    h, w = bgra.shape[:2]
    # clip to the frame
    x1, y1 = max(x, 0), max(y, 0)
    x2, y2 = min(x + w, width), min(y + h, height)
    bgra = bgra[y1 - y:y2 - y, x1 - x:x2 - x]
    alpha = bgra[..., 3:4].astype(np.uint16) + (bgra[..., 3:4] > 0)  # 0..256
    premult = bgra[..., :3].astype(np.uint16) * alpha
    inv = np.repeat(256 - alpha, 3, axis=2)
    return _Sprite(x1, y1, np.ascontiguousarray(premult), np.ascontiguousarray(inv))


def draw_scoreboard(frame: np.ndarray, board: Scoreboard) -> np.ndarray:
    """The scoreboard alone, drawn into ``frame`` (HxWx3 uint8 BGR), which is returned."""
    sp = _board_sprite(board, frame.shape[0], frame.shape[1])
    h, w = sp.premult.shape[:2]
    roi = frame[sp.y:sp.y + h, sp.x:sp.x + w]
    roi[:] = ((roi * sp.inv_alpha + sp.premult) >> 8).astype(np.uint8)
    return frame


# ---------------------------------------------------------------------------------------------
# Trails and markers

TRAIL_BANDS = 8  # fading is quantised into this many alpha steps (one polyline call each)
TRAIL_ALPHA = 0.85
_SHIFT = 3  # sub-pixel bits for smooth lines


@dataclass
class _Layer:
    """A mask (alpha 0..255) and a colour image over a box of the frame."""

    x0: int
    y0: int
    mask: np.ndarray
    colour: np.ndarray


def _blend(frame: np.ndarray, layer: _Layer) -> None:
    nz = cv2.findNonZero(layer.mask)  # far faster than np.nonzero on a large, sparse mask
    if nz is None:
        return
    nz = nz.reshape(-1, 2)
    xs, ys = nz[:, 0], nz[:, 1]
    a = layer.mask[ys, xs].astype(np.uint16)[:, None]
    fy, fx = ys + layer.y0, xs + layer.x0
    under = frame[fy, fx].astype(np.uint16)
    over = layer.colour[ys, xs].astype(np.uint16)
    frame[fy, fx] = ((under * (255 - a) + over * a + 127) // 255).astype(np.uint8)


def _runs(pts: np.ndarray) -> list[tuple[int, np.ndarray]]:
    """Splits a (K, 2) trail at non-finite rows into ``(start index, run)`` of two points or
    more."""
    ok = np.isfinite(pts).all(axis=1)
    if ok.all():
        return [(0, pts)] if len(pts) >= 2 else []
    out, start = [], None
    for i, good in enumerate(ok):
        if good and start is None:
            start = i
        elif not good and start is not None:
            if i - start >= 2:
                out.append((start, pts[start:i]))
            start = None
    if start is not None and len(pts) - start >= 2:
        out.append((start, pts[start:]))
    return out


def draw_trails(frame: np.ndarray, trails: Mapping[str, Any], thickness_px: float | None = None,
                alpha: float = TRAIL_ALPHA) -> np.ndarray:
    """Fading trails into ``frame``: ``trails`` maps a track id ("red_07") to its recent image
    positions, a (K, 2) px array oldest first (NaN rows break the line). The newest segment is
    drawn at ``alpha``, the oldest near 0; a ball that did not move draws nothing."""
    H, W = frame.shape[:2]
    th = max(1, round(thickness_px if thickness_px is not None else 3 * H / 1080))
    pad = th + 2
    f = 1 << _SHIFT
    levels = [round(255 * alpha * (b + 1) / TRAIL_BANDS) for b in range(TRAIL_BANDS)]
    for tid, pts in trails.items():
        p = np.asarray(pts, dtype=np.float64).reshape(-1, 2)
        K = len(p)
        if K < 2:
            continue
        colour = np.array(BALL_BGR.get(ball_class_of(str(tid)), (200, 200, 200)), np.uint16)
        for start, run in _runs(p):
            lo, hi = run.min(axis=0), run.max(axis=0)
            if (hi - lo).max() < 1.0:
                continue  # a ball at rest
            x0, y0 = max(int(lo[0]) - pad, 0), max(int(lo[1]) - pad, 0)
            x1 = min(int(np.ceil(hi[0])) + pad + 1, W)
            y1 = min(int(np.ceil(hi[1])) + pad + 1, H)
            if x1 <= x0 or y1 <= y0:
                continue
            mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
            q = np.round((run - (x0, y0)) * f).astype(np.int32)
            # age along the whole trail (0 oldest .. 1 newest) in bands; each band is one slice
            age = (np.arange(start, start + len(run)) + 1) / K
            band = np.minimum((age * TRAIL_BANDS).astype(int), TRAIL_BANDS - 1)
            edges = np.searchsorted(band, np.arange(TRAIL_BANDS + 1))
            for b in range(TRAIL_BANDS):
                if edges[b + 1] <= max(edges[b], 1):
                    continue
                cv2.polylines(mask, [q[max(edges[b] - 1, 0):edges[b + 1]]], False, levels[b],
                              th, cv2.LINE_AA, _SHIFT)
            _blend_colour(frame[y0:y1, x0:x1], mask, colour)
    return frame


def _blend_colour(roi: np.ndarray, mask: np.ndarray, colour: np.ndarray) -> None:
    """``roi`` (h, w, 3) toward one colour by ``mask`` (h, w) alpha 0..255, touching only the
    mask's pixels."""
    nz = cv2.findNonZero(mask)
    if nz is None:
        return
    nz = nz.reshape(-1, 2)
    xs, ys = nz[:, 0], nz[:, 1]
    a = mask[ys, xs].astype(np.uint16)[:, None]
    under = roi[ys, xs].astype(np.uint16)
    roi[ys, xs] = ((under * (255 - a) + colour * a + 127) // 255).astype(np.uint8)


def draw_markers(frame: np.ndarray, markers: Iterable[Marker]) -> np.ndarray:
    """Pot flashes (an expanding ring and a fading disc at the pocket), contact rings and cushion
    ticks into ``frame``."""
    H, W = frame.shape[:2]
    s = H / 1080.0
    for m in markers:
        life = MARKER_LIFE_S.get(m.kind, 1.0)
        p = min(max(m.age_s / life, 0.0), 1.0)
        fade = 1.0 - p
        if fade <= 0.02:
            continue
        col = BALL_BGR.get(m.ball or "", (255, 255, 255))
        if m.kind == "pot":
            r = (16 + 40 * p) * s
        elif m.kind == "contact":
            r = 16 * s
        else:
            r = 10 * s
        pad = int(r + 6 * s + 4)
        cx, cy = m.xy_px
        x0, y0 = max(int(cx) - pad, 0), max(int(cy) - pad, 0)
        x1, y1 = min(int(cx) + pad + 1, W), min(int(cy) + pad + 1, H)
        if x1 <= x0 or y1 <= y0:
            continue
        layer = _Layer(x0, y0, np.zeros((y1 - y0, x1 - x0), np.uint8),
                       np.zeros((y1 - y0, x1 - x0, 3), np.uint8))
        c = (round((cx - x0) * 8), round((cy - y0) * 8))
        rr = round(r * 8)
        th = max(1, round(3 * s))
        if m.kind == "pot":
            cv2.circle(layer.colour, c, rr, (255, 255, 255), th + 2, cv2.LINE_8, 3)
            cv2.circle(layer.mask, c, rr, round(255 * fade), th, cv2.LINE_AA, 3)
            inner = round(rr * 0.55)
            cv2.circle(layer.colour, c, inner, col, -1, cv2.LINE_8, 3)
            cv2.circle(layer.mask, c, inner, round(200 * fade * fade), -1, cv2.LINE_AA, 3)
        elif m.kind == "contact":
            cv2.circle(layer.colour, c, rr, GOLD_BGR, th + 2, cv2.LINE_8, 3)
            cv2.circle(layer.mask, c, rr, round(230 * fade), th, cv2.LINE_AA, 3)
            d = round(rr * 0.45)
            for dx, dy in ((d, 0), (0, d)):
                a, b = (c[0] - dx, c[1] - dy), (c[0] + dx, c[1] + dy)
                cv2.line(layer.colour, a, b, GOLD_BGR, th + 2, cv2.LINE_8, 3)
                cv2.line(layer.mask, a, b, round(230 * fade), max(1, th - 1), cv2.LINE_AA, 3)
        else:
            cv2.circle(layer.colour, c, rr, (255, 255, 255), th + 2, cv2.LINE_8, 3)
            cv2.circle(layer.mask, c, rr, round(160 * fade), max(1, th - 1), cv2.LINE_AA, 3)
        _blend(frame, layer)
    return frame


def draw_overlay(frame_bgr: np.ndarray, scoreboard: Scoreboard | None = None,
                 trails: Mapping[str, Any] | None = None,
                 markers: Iterable[Marker] | None = None) -> np.ndarray:
    """Trails, then markers, then the scoreboard, drawn into ``frame_bgr`` (HxWx3 uint8 BGR);
    returns the same array (copy it first to keep the original)."""
    if frame_bgr.ndim != 3 or frame_bgr.shape[2] != 3 or frame_bgr.dtype != np.uint8:
        raise ValueError(f"draw_overlay needs an HxWx3 uint8 BGR frame, got shape "
                         f"{frame_bgr.shape} dtype {frame_bgr.dtype}")
    if trails:
        draw_trails(frame_bgr, trails)
    if markers:
        draw_markers(frame_bgr, markers)
    if scoreboard is not None:
        draw_scoreboard(frame_bgr, scoreboard)
    return frame_bgr
