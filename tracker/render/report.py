"""A match report as one self-contained HTML page (inline CSS and SVG, no scripts, no links).

    html = build_report(events, players=("A", "B"), paths=BallPaths.from_tracks(read_tracks(p)))

From the events of events.jsonl (docs/FORMATS.md): the players and the final score, each frame, the
score progression (an SVG chart), the breaks (each one, the highest, centuries), the fouls, and a
shot map per shot: the table in millimetres with the white's path, the other balls that moved,
the contacts and the pots. Paths come from a tracks.csv (``BallPaths.from_tracks``) or a clip's
ground truth (``BallPaths.from_truth``); without them a shot map shows the pots and, where the
events carry them, the balls' ``positions`` after the shot.
"""

from __future__ import annotations

import html
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from calibration.specs import SNOOKER

# CSS colours of the balls in the report
BALL_CSS = {"white": "#f4f4f0", "red": "#d0302a", "yellow": "#f2d12e", "green": "#2f9a46",
            "brown": "#8a5224", "blue": "#2265c9", "pink": "#f49ac0", "black": "#1d1d1d"}
PLAYER_CSS = ("#1f6fd1", "#d9822b")
MOVED_MM = 5.0  # a ball whose path spans less than this did not move


def _e(v: Any) -> str:
    return html.escape(str(v), quote=True)


def _cls(track_id: str) -> str:
    return str(track_id).split("_", 1)[0]


# ---------------------------------------------------------------------------------------------
# Ball paths


@dataclass
class BallPaths:
    """Ball positions on the table over source frames: ``frames`` (F,) ascending frame indices,
    ``xy_mm[track_id]`` (F, 2) with NaN where the ball was not on the table or not seen."""

    frames: np.ndarray
    xy_mm: dict[str, np.ndarray]

    @classmethod
    def from_tracks(cls, tracks: Mapping[str, Any]) -> BallPaths:
        """From ``read_tracks`` (``{track_id: Track}``)."""
        frames = np.array(sorted({f for tr in tracks.values() for f in tr.frame}), dtype=int)
        index = {f: i for i, f in enumerate(frames.tolist())}
        xy = {}
        for tid, tr in tracks.items():
            a = np.full((len(frames), 2), np.nan)
            for f, p, st in zip(tr.frame, tr.xy_mm, tr.state):
                if p is not None and st != "potted":
                    a[index[f]] = p
            xy[tid] = a
        return cls(frames, xy)

    @classmethod
    def from_truth(cls, balls: Any) -> BallPaths:
        """From ``tracker.sim.truth.read_truth``'s ``BallTruth``: frames 0..F-1; NaN while a ball
        is potted, off the table or carried by a hand."""
        pos = np.asarray(balls.pos_mm, dtype=float)[..., :2].copy()
        gone = np.isin(np.asarray(balls.state), ("potted", "off_table", "in_hand"))
        pos[gone] = np.nan
        return cls(np.arange(pos.shape[0]), {tid: pos[:, i] for i, tid in enumerate(balls.ids)})

    def between(self, f0: int, f1: int) -> dict[str, np.ndarray]:
        """Each ball's (K, 2) positions over source frames ``f0..f1`` inclusive."""
        i0, i1 = np.searchsorted(self.frames, [f0, f1 + 1])
        return {tid: a[i0:i1] for tid, a in self.xy_mm.items()}

    def at(self, frame: int) -> dict[str, tuple[float, float]]:
        """Positions at the last frame at or before ``frame`` (balls not on the table left out)."""
        i = int(np.searchsorted(self.frames, frame, side="right")) - 1
        if i < 0:
            return {}
        return {tid: (float(a[i, 0]), float(a[i, 1])) for tid, a in self.xy_mm.items()
                if np.isfinite(a[i]).all()}


# ---------------------------------------------------------------------------------------------
# The match from its events


@dataclass
class ShotSummary:
    number: int
    frame_no: int  # the frame of the match
    start_frame: int | None = None  # source frames
    end_frame: int | None = None
    t_start: float | None = None
    t_end: float | None = None
    player: int | None = None
    points: int = 0
    foul: dict[str, Any] | None = None
    miss: bool = False
    first_contact: str | None = None
    pots: list[dict[str, Any]] = field(default_factory=list)
    contacts: list[dict[str, Any]] = field(default_factory=list)
    cushions: list[dict[str, Any]] = field(default_factory=list)
    positions: dict[str, Any] | None = None
    score: tuple[int, int] | None = None
    break_after: int = 0


@dataclass
class Break:
    player: int
    points: int
    frame_no: int
    first_shot: int
    last_shot: int
    balls: list[str]


@dataclass
class FrameSummary:
    number: int
    score: tuple[int, int] = (0, 0)
    winner: int | None = None
    shots: list[ShotSummary] = field(default_factory=list)


@dataclass
class Match:
    players: tuple[str, str]
    frames: list[FrameSummary]
    shots: list[ShotSummary]
    breaks: list[Break]
    frames_won: tuple[int, int]
    winner: int | None  # of the match, when it is over, else of the last frame when it ended
    last_score: dict[str, Any] | None


def match_from_events(events: Sequence[Mapping[str, Any]],
                      players: Sequence[str] | None = None) -> Match:
    """Shots (grouped from ``shot_start`` to the ``score`` that judges them), frames, breaks."""
    names = _players(events, players)
    shots: list[ShotSummary] = []
    frames = [FrameSummary(1)]
    cur: ShotSummary | None = None
    awaiting_score: list[ShotSummary] = []
    last_score = None
    frames_won = (0, 0)
    counter = 0
    for e in events:
        kind = e.get("type")
        if kind == "shot_start":
            counter += 1
            cur = ShotSummary(int(e.get("shot") or counter), frames[-1].number,
                              start_frame=e.get("frame"), t_start=e.get("t"))
            shots.append(cur)
        elif kind in ("contact", "pot", "cushion") and cur is not None:
            {"contact": cur.contacts, "pot": cur.pots, "cushion": cur.cushions}[kind].append(
                dict(e))
        elif kind == "shot_end":
            if cur is None:  # a log that starts mid-shot
                counter += 1
                cur = ShotSummary(int(e.get("shot") or counter), frames[-1].number)
                shots.append(cur)
            cur.end_frame, cur.t_end = e.get("frame"), e.get("t")
            cur.first_contact = e.get("first_contact")
            if isinstance(e.get("positions"), Mapping):
                cur.positions = dict(e["positions"])
            awaiting_score.append(cur)
            cur = None
        elif kind == "score":
            last_score = dict(e)
            s = awaiting_score.pop(0) if awaiting_score else None
            if s is None:
                counter += 1
                s = ShotSummary(counter, frames[-1].number)
                shots.append(s)
            s.player = e.get("player")
            s.points = int(e.get("points") or 0)
            s.foul = e.get("foul") or None
            s.miss = bool(e.get("miss"))
            sc = e.get("score") or (0, 0)
            s.score = (int(sc[0]), int(sc[1]))
            s.break_after = int(e.get("break") or 0)
            fr = frames[-1]
            fr.shots.append(s)
            fr.score = s.score
            if e.get("frames") is not None:
                frames_won = (int(e["frames"][0]), int(e["frames"][1]))
            if e.get("frame_over"):
                fr.winner = e.get("winner")
                frames.append(FrameSummary(fr.number + 1))
    if not frames[-1].shots and len(frames) > 1:
        frames.pop()
    winner = None
    if last_score is not None:
        winner = last_score.get("match_winner") if last_score.get("match_over") else (
            last_score.get("winner") if last_score.get("frame_over") else None)
    return Match(names, frames, shots, _breaks(frames), frames_won, winner, last_score)


def _players(events: Sequence[Mapping[str, Any]], players: Sequence[str] | None
             ) -> tuple[str, str]:
    if players:
        return str(players[0]), str(players[1])
    for e in events:
        cand = e.get("players")
        if e.get("type") == "record" and isinstance(e.get("record"), Mapping):
            cand = e["record"].get("players")
        if isinstance(cand, (list, tuple)) and len(cand) == 2:
            return str(cand[0]), str(cand[1])
    return "Player 1", "Player 2"


def _breaks(frames: list[FrameSummary]) -> list[Break]:
    """Visits that scored: a player's points from the stroke he came to the table to the stroke
    his turn ended (a miss, a foul or the end of the frame)."""
    out: list[Break] = []
    for fr in frames:
        run: Break | None = None
        for s in fr.shots:
            if s.player is None:
                continue
            if run is not None and run.player != s.player:
                out.append(run)
                run = None
            if s.foul or s.points <= 0:
                if run is not None and run.points > 0:
                    out.append(run)
                run = None
                continue
            if run is None:
                run = Break(s.player, 0, fr.number, s.number, s.number, [])
            run.points += s.points
            run.last_shot = s.number
            run.balls += [str(p.get("class")) for p in s.pots if p.get("class") != "white"]
            if s.break_after == 0 or s is fr.shots[-1]:
                out.append(run)
                run = None
        if run is not None and run.points > 0:
            out.append(run)
    return out


# ---------------------------------------------------------------------------------------------
# SVG


def table_svg_parts() -> list[str]:
    """The table in mm, baulk on the left: SVG x is the table's y (0..3569), SVG y its x."""
    sp = SNOOKER
    L, W, rail = sp.length_mm, sp.width_mm, sp.rail_width_mm
    out = [f'<rect x="{-rail}" y="{-rail}" width="{L + 2 * rail}" height="{W + 2 * rail}" '
           f'rx="40" fill="#5a3418"/>',
           f'<rect x="0" y="0" width="{L}" height="{W}" fill="#1f7a3a"/>',
           f'<line x1="{sp.baulk_line_mm}" y1="0" x2="{sp.baulk_line_mm}" y2="{W}" '
           f'stroke="#e8f0e8" stroke-width="4" opacity=".7"/>']
    cx, b, r = sp.centre_x_mm, sp.baulk_line_mm, sp.d_radius_mm
    out.append(f'<path d="M {b} {cx - r} A {r} {r} 0 0 0 {b} {cx + r}" fill="none" '
               f'stroke="#e8f0e8" stroke-width="4" opacity=".7"/>')
    for (x, y) in sp.spots_mm.values():
        out.append(f'<circle cx="{y:.1f}" cy="{x:.1f}" r="7" fill="#e8f0e8" opacity=".6"/>')
    for p in sp.pockets.values():
        x, y = p.point_mm
        out.append(f'<circle cx="{y:.1f}" cy="{x:.1f}" r="{p.mouth_mm * 0.55:.1f}" '
                   f'fill="#111"/>')
    return out


def _pt(xy: Sequence[float]) -> str:
    return f"{xy[1]:.1f},{xy[0]:.1f}"


def _ball_svg(xy, cls: str, r: float, extra: str = "") -> str:
    return (f'<circle cx="{xy[1]:.1f}" cy="{xy[0]:.1f}" r="{r:.1f}" '
            f'fill="{BALL_CSS.get(cls, "#ccc")}" stroke="#000" stroke-width="3" {extra}/>')


def shot_map_svg(shot: ShotSummary, paths: BallPaths | None, width_px: int = 520) -> str:
    """One shot on the table: the white's path (thick), other balls that moved (thin, in their
    colour), the balls where they started, the contacts (gold rings) and the pots (a ring at the
    pocket in the ball's colour)."""
    sp = SNOOKER
    rail, R = sp.rail_width_mm, sp.ball_radius_mm
    vb = f"{-rail} {-rail} {sp.length_mm + 2 * rail} {sp.width_mm + 2 * rail}"
    h = round(width_px * (sp.width_mm + 2 * rail) / (sp.length_mm + 2 * rail))
    parts = table_svg_parts()
    title = f"Shot {shot.number}"
    start_pos: dict[str, tuple[float, float]] = {}
    if paths is not None and shot.start_frame is not None and shot.end_frame is not None:
        seg = paths.between(int(shot.start_frame), int(shot.end_frame))
        start_pos = paths.at(int(shot.start_frame))
        order = sorted(seg, key=lambda t: _cls(t) == "white")  # the white drawn last, on top
        for tid in order:
            pts = seg[tid]
            ok = np.isfinite(pts).all(axis=1)
            if ok.sum() < 2:
                continue
            good = pts[ok]
            if np.ptp(good, axis=0).max() < MOVED_MM:
                continue
            cls = _cls(tid)
            poly = " ".join(_pt(p) for p in _thin(good))
            width, op = (14, 0.95) if cls == "white" else (8, 0.8)
            stroke = BALL_CSS.get(cls, "#ccc")
            parts.append(f'<polyline points="{poly}" fill="none" stroke="{stroke}" '
                         f'stroke-width="{width}" stroke-linejoin="round" '
                         f'stroke-linecap="round" opacity="{op}"/>')
        for tid, xy in start_pos.items():
            parts.append(_ball_svg(xy, _cls(tid), R))
        for c in shot.contacts:
            ids = c.get("balls") or []
            f = c.get("frame")
            if not ids or f is None:
                continue
            at = paths.at(int(f)).get(str(ids[0]))
            if at is not None:
                parts.append(f'<circle cx="{at[1]:.1f}" cy="{at[0]:.1f}" r="{R * 1.9:.1f}" '
                             f'fill="none" stroke="#f0be3c" stroke-width="9"/>')
        end_white = paths.at(int(shot.end_frame)).get("white")
        if end_white is not None:
            parts.append(f'<circle cx="{end_white[1]:.1f}" cy="{end_white[0]:.1f}" '
                         f'r="{R:.1f}" fill="none" stroke="#fff" stroke-width="5" '
                         f'stroke-dasharray="12 8"/>')
    elif shot.positions:
        for key, xy in shot.positions.items():
            if xy is not None and len(xy) >= 2:
                parts.append(_ball_svg(xy, _cls(key), R))
    for p in shot.pots:
        pocket = sp.pockets.get(str(p.get("pocket")))
        if pocket is None:
            continue
        x, y = pocket.point_mm
        parts.append(f'<circle cx="{y:.1f}" cy="{x:.1f}" r="{pocket.mouth_mm * 0.75:.1f}" '
                     f'fill="none" stroke="{BALL_CSS.get(str(p.get("class")), "#ccc")}" '
                     f'stroke-width="16"><title>{_e(p.get("class"))} potted in '
                     f'{_e(p.get("pocket"))}</title></circle>')
    return (f'<svg class="shotmap" xmlns="http://www.w3.org/2000/svg" viewBox="{vb}" '
            f'width="{width_px}" height="{h}" role="img" aria-label="{_e(title)}">'
            f'<title>{_e(title)}</title>{"".join(parts)}</svg>')


def _thin(pts: np.ndarray, min_step_mm: float = 4.0) -> np.ndarray:
    """Drops points closer than ``min_step_mm`` to the last one kept (keeps the end)."""
    keep = [0]
    for i in range(1, len(pts)):
        if math.dist(pts[i], pts[keep[-1]]) >= min_step_mm:
            keep.append(i)
    if keep[-1] != len(pts) - 1:
        keep.append(len(pts) - 1)
    return pts[keep]


def progression_svg(match: Match, width: int = 860, height: int = 300) -> str:
    """Each player's points after every shot, frame by frame (dashed lines between frames); fouls
    are marked on the line of the player who received the points."""
    shots = [s for fr in match.frames for s in fr.shots]
    ml, mr, mt, mb = 44, 16, 16, 34
    pw, ph = width - ml - mr, height - mt - mb
    n = max(len(shots), 1)
    top = max([max(s.score or (0, 0)) for s in shots] + [10])
    top = int(math.ceil(top / 10.0) * 10)

    def X(i: float) -> float:
        return ml + pw * i / n

    def Y(v: float) -> float:
        return mt + ph * (1 - v / top)

    out = [f'<svg class="chart" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
           f'width="{width}" height="{height}" role="img" aria-label="Score progression">']
    step = max(10, int(math.ceil(top / 5 / 10.0) * 10))
    for v in range(0, top + 1, step):
        out.append(f'<line x1="{ml}" y1="{Y(v):.1f}" x2="{width - mr}" y2="{Y(v):.1f}" '
                   f'stroke="#e3e6ea"/><text x="{ml - 6}" y="{Y(v) + 4:.1f}" '
                   f'text-anchor="end" class="ax">{v}</text>')
    i = 0
    for fr in match.frames:
        if i > 0:
            out.append(f'<line x1="{X(i):.1f}" y1="{mt}" x2="{X(i):.1f}" y2="{mt + ph}" '
                       f'stroke="#9aa3ad" stroke-dasharray="4 4"/>')
        out.append(f'<text x="{X(i) + 4:.1f}" y="{mt + 12}" class="ax">Frame {fr.number}</text>')
        for p in (0, 1):
            pts = [f"{X(i):.1f},{Y(0):.1f}"]
            prev = 0
            for k, s in enumerate(fr.shots):
                v = (s.score or (0, 0))[p]
                pts.append(f"{X(i + k + 1):.1f},{Y(prev):.1f}")
                pts.append(f"{X(i + k + 1):.1f},{Y(v):.1f}")
                prev = v
            out.append(f'<polyline points="{" ".join(pts)}" fill="none" '
                       f'stroke="{PLAYER_CSS[p]}" stroke-width="2.5"/>')
        for k, s in enumerate(fr.shots):
            if s.foul and s.player in (0, 1):
                p = 1 - s.player
                v = (s.score or (0, 0))[p]
                out.append(f'<circle cx="{X(i + k + 1):.1f}" cy="{Y(v):.1f}" r="4" '
                           f'fill="#c8282a"><title>foul {_e(s.foul.get("points"))} '
                           f'({_e(s.foul.get("reason"))}), shot {s.number}</title></circle>')
        i += len(fr.shots)
    out.append(f'<text x="{ml + pw / 2:.0f}" y="{height - 6}" text-anchor="middle" class="ax">'
               f'shots</text>')
    for p in (0, 1):
        out.append(f'<rect x="{ml + 10 + p * 170}" y="{height - 20}" width="12" height="4" '
                   f'fill="{PLAYER_CSS[p]}"/><text x="{ml + 28 + p * 170}" y="{height - 14}" '
                   f'class="ax">{_e(match.players[p])}</text>')
    out.append("</svg>")
    return "".join(out)


# ---------------------------------------------------------------------------------------------
# The page

CSS = """
body { font-family: -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
       margin: 0; background: #f3f5f7; color: #17202a; }
main { max-width: 1100px; margin: 0 auto; padding: 24px; }
header.hero { background: #101a26; color: #fff; border-radius: 10px; padding: 22px 28px;
              display: grid; grid-template-columns: 1fr auto 1fr; align-items: center; }
.hero .p { font-size: 22px; font-weight: 700; text-transform: uppercase; }
.hero .p.right { text-align: right; } .hero .won { color: #f0be3c; }
.hero .score { font-size: 46px; font-weight: 800; font-variant-numeric: tabular-nums;
               padding: 0 28px; white-space: nowrap; }
.hero .sub { grid-column: 1 / 4; text-align: center; color: #aab4bf; margin-top: 6px; }
section { background: #fff; border-radius: 10px; padding: 18px 22px; margin-top: 18px;
          box-shadow: 0 1px 2px rgba(0,0,0,.06); }
h1 { font-size: 15px; color: #5c6b7a; text-transform: uppercase; letter-spacing: .06em;
     margin: 22px 0 0 4px; }
h2 { font-size: 18px; margin: 0 0 12px; }
table { border-collapse: collapse; width: 100%; font-variant-numeric: tabular-nums; }
th, td { text-align: left; padding: 6px 10px; border-bottom: 1px solid #e8ebee; }
th { color: #5c6b7a; font-weight: 600; font-size: 13px; }
.num { text-align: right; } .cent { color: #b27a00; font-weight: 700; }
.chart { width: 100%; height: auto; }
.chart text.ax, .ax { font-size: 11px; fill: #5c6b7a; }
.stats { display: grid; grid-template-columns: repeat(3, 1fr); gap: 12px; margin-bottom: 12px; }
.stat { background: #f3f5f7; border-radius: 8px; padding: 10px 14px; }
.stat b { display: block; font-size: 22px; }
.shots { display: grid; grid-template-columns: repeat(auto-fill, minmax(520px, 1fr)); gap: 16px; }
figure.shot { margin: 0; } figure.shot svg { width: 100%; height: auto; display: block;
                                              border-radius: 6px; }
figcaption { font-size: 13px; color: #33414f; margin-top: 6px; }
.foul { color: #c8282a; font-weight: 600; } .ball { display: inline-block; width: 10px;
  height: 10px; border-radius: 50%; border: 1px solid #0004; vertical-align: baseline; }
.muted { color: #7d8a97; }
"""


def _ball_dot(cls: str) -> str:
    return (f'<span class="ball" style="background:{BALL_CSS.get(cls, "#ccc")}" '
            f'title="{_e(cls)}"></span>')


def _fmt_t(t: float | None) -> str:
    if t is None:
        return ""
    m, s = divmod(float(t), 60)
    return f"{int(m)}:{s:04.1f}"


def build_report(events: Sequence[Mapping[str, Any]], players: Sequence[str] | None = None,
                 paths: BallPaths | None = None, title: str | None = None) -> str:
    """The report as an HTML string."""
    m = match_from_events(events, players)
    a, b = m.players
    last = m.last_score or {}
    final = tuple(last.get("score") or (0, 0))
    multi = len(m.frames) > 1 or sum(m.frames_won) > 1
    if last.get("match_over"):
        won = last.get("match_winner")
    elif not multi and last.get("frame_over"):
        won = last.get("winner")
    else:
        won = None
    name_cls = ["p", "p right"]
    if won in (0, 1):
        name_cls[won] += " won"
    big = m.frames_won if multi else final
    sub = []
    if multi:
        sub.append(f"frames · last frame {final[0]}–{final[1]}")
    if won in (0, 1):
        what = "match" if last.get("match_over") else "frame"
        sub.append(f"{_e(m.players[won])} wins the {what}")
    elif last:
        sub.append("match in play" if last.get("frame_over") else "frame in play")
    sub.append(f"{len(m.shots)} shots")
    title = title or f"{a} v {b}"
    out = [f"<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">"
           f"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
           f"<title>{_e(title)}</title><style>{CSS}</style></head><body><main>",
           f'<header class="hero" data-final-score="{final[0]}-{final[1]}" '
           f'data-frames="{m.frames_won[0]}-{m.frames_won[1]}">'
           f'<div class="{name_cls[0]}">{_e(a)}</div>'
           f'<div class="score">{big[0]} – {big[1]}</div>'
           f'<div class="{name_cls[1]}">{_e(b)}</div>'
           f'<div class="sub">{" · ".join(sub)}</div></header>']

    # frames
    rows = []
    for fr in m.frames:
        hb = [max([br.points for br in m.breaks if br.frame_no == fr.number and br.player == p],
                  default=0) for p in (0, 1)]
        win = _e(m.players[fr.winner]) if fr.winner in (0, 1) else '<span class="muted">in ' \
                                                                   'play</span>'
        rows.append(f"<tr><td>{fr.number}</td><td class=num>{fr.score[0]}</td>"
                    f"<td class=num>{fr.score[1]}</td><td>{win}</td><td class=num>{hb[0]}</td>"
                    f"<td class=num>{hb[1]}</td><td class=num>{len(fr.shots)}</td></tr>")
    out.append(f'<section id="frames"><h2>Frames</h2><table><tr><th>Frame</th>'
               f'<th class=num>{_e(a)}</th><th class=num>{_e(b)}</th><th>Winner</th>'
               f'<th class=num>High break {_e(a)}</th><th class=num>High break {_e(b)}</th>'
               f'<th class=num>Shots</th></tr>{"".join(rows)}</table></section>')

    out.append(f'<section id="progression"><h2>Score progression</h2>{progression_svg(m)}'
               f'</section>')

    # breaks
    high = [max([br.points for br in m.breaks if br.player == p], default=0) for p in (0, 1)]
    cents = [sum(1 for br in m.breaks if br.player == p and br.points >= 100) for p in (0, 1)]
    stats = "".join(f'<div class="stat">{_e(m.players[p])}<b>{high[p]}</b>highest break · '
                    f'{cents[p]} centur{"y" if cents[p] == 1 else "ies"}</div>' for p in (0, 1))
    stats += f'<div class="stat">Breaks<b>{len(m.breaks)}</b>scoring visits</div>'
    brows = []
    for br in sorted(m.breaks, key=lambda x: (-x.points, x.frame_no, x.first_shot)):
        cls = ' class="num cent"' if br.points >= 100 else " class=num"
        balls = "".join(_ball_dot(c) for c in br.balls)
        shots = (f"{br.first_shot}" if br.first_shot == br.last_shot
                 else f"{br.first_shot}–{br.last_shot}")
        brows.append(f"<tr><td>{_e(m.players[br.player])}</td><td{cls}>{br.points}</td>"
                     f"<td>{br.frame_no}</td><td>{shots}</td><td>{balls}</td></tr>")
    out.append(f'<section id="breaks"><h2>Breaks</h2><div class="stats">{stats}</div>'
               + (f'<table><tr><th>Player</th><th class=num>Break</th><th>Frame</th>'
                  f'<th>Shots</th><th>Balls</th></tr>{"".join(brows)}</table>' if brows else
                  '<p class="muted">No scoring visits.</p>') + '</section>')

    # fouls
    frows = []
    for s in m.shots:
        if not s.foul:
            continue
        who = _e(m.players[s.player]) if s.player in (0, 1) else ""
        reason = _e(str(s.foul.get("reason", "")).replace("_", " "))
        frows.append(f"<tr><td>{s.number}</td><td>{s.frame_no}</td><td>{who}</td>"
                     f"<td class=num>{_e(s.foul.get('points', ''))}</td><td>{reason}</td>"
                     f"<td>{'miss' if s.miss else ''}</td></tr>")
    out.append('<section id="fouls"><h2>Fouls</h2>' + (
        f'<table><tr><th>Shot</th><th>Frame</th><th>Player</th><th class=num>Points</th>'
        f'<th>Reason</th><th></th></tr>{"".join(frows)}</table>' if frows else
        '<p class="muted">No fouls.</p>') + '</section>')

    # shot maps
    figs = []
    for s in m.shots:
        who = _e(m.players[s.player]) if s.player in (0, 1) else "?"
        pots = " ".join(f'{_ball_dot(str(p.get("class")))} {_e(p.get("class"))} '
                        f'({_e(str(p.get("pocket", "")).replace("_", " "))})' for p in s.pots)
        bits = [f"<b>Shot {s.number}</b> · frame {s.frame_no} · {who}"]
        if s.t_start is not None:
            bits.append(_fmt_t(s.t_start))
        if s.first_contact:
            bits.append(f"first contact {_e(s.first_contact)}")
        if pots:
            bits.append(f"potted {pots}")
        if s.foul:
            bits.append(f'<span class="foul">foul {_e(s.foul.get("points", ""))} '
                        f'({_e(str(s.foul.get("reason", "")).replace("_", " "))})</span>')
        elif s.points:
            bits.append(f"+{s.points}")
        if s.score:
            bits.append(f"score {s.score[0]}–{s.score[1]}")
        figs.append(f'<figure class="shot" id="shot-{s.number}">{shot_map_svg(s, paths)}'
                    f'<figcaption>{" · ".join(bits)}</figcaption></figure>')
    note = "" if paths is not None else (
        '<p class="muted">No tracks were given: the maps show the pots and, where logged, the '
        'balls at rest after each shot.</p>')
    out.append(f'<section id="shots"><h2>Shots</h2>{note}<div class="shots">{"".join(figs)}'
               f'</div></section>')
    out.append('<p class="muted" style="text-align:center">cueball match report</p>'
               '</main></body></html>')
    return "\n".join(out)
