"""A season of matches: the index page and the tables of a ``cueball batch`` folder.

    matches = load_season("season/")          # every DIR/<match>/events.jsonl
    write_season("season/", matches)          # index.html, matches/frames/shots/breaks/players.csv

Each match is read from its event log and summed up by the match report's own reading of it
(``tracker.render.report.match_from_events``: frames, shots, breaks, fouls), so the index and
the reports agree. The tables are CSV, and Parquet too when pyarrow can be imported.
"""

from __future__ import annotations

import csv
import html
import io
import json
import math
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from calibration.errors import InputError
from calibration.specs import SNOOKER
from tracker.io.eventlog import read_events
from tracker.render.report import CSS, Match, ShotSummary, match_from_events

EVENTS_NAME = "events.jsonl"
TRACKS_NAME = "tracks.csv"
REPORT_NAME = "report.html"
DONE_NAME = "done.json"  # written last, atomically: the match was tracked and reported
TABLES = ("matches", "frames", "shots", "breaks", "players")
# break distribution: the lower bound of each bin, points
BREAK_BINS = (1, 10, 20, 50, 100)
# a long shot: the white this far or farther from the ball it hit first (half the table)
LONG_SHOT_MM = SNOOKER.length_mm / 2


@dataclass
class SeasonMatch:
    """One match folder: its name (the video's stem), the video it came from, whether it was
    finished (``done.json`` present), the match read from its events and, where tracks.csv
    has them, each shot's distance from the white to the ball it hit first, as they stood at
    the shot's start (``reach_mm``: shot number -> mm)."""

    name: str
    video: str
    finished: bool
    match: Match
    duration_s: float
    reach_mm: dict[int, float] = field(default_factory=dict)


def _first_object(shot: ShotSummary) -> str | None:
    """The track id of the ball the white hit first in ``shot``."""
    for c in shot.contacts:
        balls = [str(b) for b in c.get("balls") or []]
        if "white" in balls and len(balls) == 2:
            return balls[1 - balls.index("white")]
    return None


def shot_reach(tracks_csv: str | os.PathLike, shots: Sequence[ShotSummary]
               ) -> dict[int, float]:
    """Each shot's white-to-first-object distance (mm) at its start frame, from a tracks.csv
    read once, row by row, keeping the rows of those frames only."""
    wanted: dict[int, list[tuple[int, str]]] = {}
    for s in shots:
        obj = _first_object(s)
        if obj is not None and s.start_frame is not None:
            wanted.setdefault(int(s.start_frame), []).append((s.number, obj))
    if not wanted:
        return {}
    at: dict[int, dict[str, tuple[float, float]]] = {}
    with open(tracks_csv, newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            try:
                frame = int(row["frame"])
                if frame in wanted and row["x_mm"] and row["y_mm"]:
                    at.setdefault(frame, {})[row["track_id"]] = (float(row["x_mm"]),
                                                                 float(row["y_mm"]))
            except (KeyError, ValueError):
                continue
    out = {}
    for frame, pairs in wanted.items():
        pos = at.get(frame, {})
        for number, obj in pairs:
            if "white" in pos and obj in pos:
                out[number] = math.dist(pos["white"], pos[obj])
    return out


def load_match(folder: str | os.PathLike) -> SeasonMatch:
    """One ``DIR/<match>/`` folder (its events.jsonl, and its done.json when finished)."""
    folder = Path(folder)
    events = read_events(folder / EVENTS_NAME)
    done = folder / DONE_NAME
    info: dict[str, Any] = {}
    if done.exists():
        try:
            info = json.loads(done.read_text(encoding="utf-8"))
        except ValueError:
            info = {}
    players = info.get("players")
    m = match_from_events(events, players if isinstance(players, list) else None)
    duration = max((float(e.get("t") or 0.0) for e in events if e.get("type") != "score"),
                   default=0.0)
    reach = shot_reach(folder / TRACKS_NAME, m.shots) if (folder / TRACKS_NAME).exists() else {}
    return SeasonMatch(folder.name, str(info.get("video", "")), done.exists(), m, duration,
                       reach)


def load_season(root: str | os.PathLike) -> list[SeasonMatch]:
    """Every match folder under ``root`` (a sub-folder holding events.jsonl), by name."""
    root = Path(root)
    if not root.is_dir():
        raise InputError(f"{root}: no such folder")
    return [load_match(d) for d in sorted(root.iterdir(), key=lambda p: p.name)
            if d.is_dir() and (d / EVENTS_NAME).exists()]


# ---------------------------------------------------------------------------------------------
# Tables: each a list of (column, type) and rows of plain values

COLUMNS: dict[str, tuple[tuple[str, str], ...]] = {
    "matches": (("match", "str"), ("video", "str"), ("finished", "bool"),
                ("player_1", "str"), ("player_2", "str"), ("frames_1", "int"),
                ("frames_2", "int"), ("winner", "str"), ("frames", "int"), ("shots", "int"),
                ("last_score_1", "int"), ("last_score_2", "int"), ("high_break_1", "int"),
                ("high_break_2", "int"), ("centuries_1", "int"), ("centuries_2", "int"),
                ("fouls_1", "int"), ("fouls_2", "int"), ("duration_s", "float"),
                ("report", "str")),
    "frames": (("match", "str"), ("frame", "int"), ("score_1", "int"), ("score_2", "int"),
               ("winner", "str"), ("shots", "int"), ("high_break_1", "int"),
               ("high_break_2", "int")),
    "shots": (("match", "str"), ("frame", "int"), ("shot", "int"), ("player", "str"),
              ("t_start", "float"), ("t_end", "float"), ("first_contact", "str"),
              ("potted", "str"), ("points", "int"), ("foul_points", "int"),
              ("foul_reason", "str"), ("miss", "bool"), ("score_1", "int"), ("score_2", "int"),
              ("break", "int"), ("reach_mm", "float"), ("long", "bool")),
    "breaks": (("match", "str"), ("frame", "int"), ("player", "str"), ("points", "int"),
               ("first_shot", "int"), ("last_shot", "int"), ("balls", "str")),
    "players": (("player", "str"), ("matches", "int"), ("matches_won", "int"),
                ("frames", "int"), ("frames_won", "int"), ("shots", "int"),
                ("potting_shots", "int"), ("pot_success", "float"), ("visits", "int"),
                ("shots_per_visit", "float"), ("points", "int"), ("points_per_visit", "float"),
                ("mean_shot_time_s", "float"), ("long_shots", "int"),
                ("long_potting_shots", "int"), ("long_pot_success", "float"),
                ("short_shots", "int"), ("short_potting_shots", "int"),
                ("short_pot_success", "float"), ("high_break", "int"), ("fouls", "int"),
                *((f"breaks_{lo}", "int") for lo in BREAK_BINS)),
}


def _name(m: Match, player: int | None) -> str | None:
    return m.players[player] if player in (0, 1) else None


def _fouls(m: Match, player: int) -> int:
    return sum(1 for s in m.shots if s.foul and s.player == player)


def match_rows(season: Sequence[SeasonMatch]) -> list[dict[str, Any]]:
    rows = []
    for sm in season:
        m = sm.match
        last = (m.last_score or {}).get("score") or (0, 0)
        high = [max((b.points for b in m.breaks if b.player == p), default=0) for p in (0, 1)]
        cents = [sum(1 for b in m.breaks if b.player == p and b.points >= 100) for p in (0, 1)]
        rows.append({
            "match": sm.name, "video": sm.video, "finished": sm.finished,
            "player_1": m.players[0], "player_2": m.players[1],
            "frames_1": m.frames_won[0], "frames_2": m.frames_won[1],
            "winner": _name(m, m.winner), "frames": len([f for f in m.frames if f.shots]),
            "shots": len(m.shots), "last_score_1": int(last[0]), "last_score_2": int(last[1]),
            "high_break_1": high[0], "high_break_2": high[1],
            "centuries_1": cents[0], "centuries_2": cents[1],
            "fouls_1": _fouls(m, 0), "fouls_2": _fouls(m, 1),
            "duration_s": round(sm.duration_s, 3), "report": f"{sm.name}/{REPORT_NAME}",
        })
    return rows


def frame_rows(season: Sequence[SeasonMatch]) -> list[dict[str, Any]]:
    rows = []
    for sm in season:
        m = sm.match
        for fr in m.frames:
            if not fr.shots:
                continue
            high = [max((b.points for b in m.breaks if b.frame_no == fr.number and b.player == p),
                        default=0) for p in (0, 1)]
            rows.append({"match": sm.name, "frame": fr.number, "score_1": fr.score[0],
                         "score_2": fr.score[1], "winner": _name(m, fr.winner),
                         "shots": len(fr.shots), "high_break_1": high[0],
                         "high_break_2": high[1]})
    return rows


def shot_rows(season: Sequence[SeasonMatch]) -> list[dict[str, Any]]:
    rows = []
    for sm in season:
        m = sm.match
        for s in m.shots:
            foul = s.foul or {}
            reach = sm.reach_mm.get(s.number)
            rows.append({
                "match": sm.name, "frame": s.frame_no, "shot": s.number,
                "player": _name(m, s.player), "t_start": s.t_start, "t_end": s.t_end,
                "first_contact": s.first_contact,
                "potted": " ".join(str(p.get("class")) for p in s.pots),
                "points": s.points, "foul_points": foul.get("points"),
                "foul_reason": foul.get("reason"), "miss": s.miss,
                "score_1": s.score[0] if s.score else None,
                "score_2": s.score[1] if s.score else None, "break": s.break_after,
                "reach_mm": None if reach is None else round(reach, 1),
                "long": None if reach is None else reach >= LONG_SHOT_MM,
            })
    return rows


def break_rows(season: Sequence[SeasonMatch]) -> list[dict[str, Any]]:
    return [{"match": sm.name, "frame": b.frame_no, "player": sm.match.players[b.player],
             "points": b.points, "first_shot": b.first_shot, "last_shot": b.last_shot,
             "balls": " ".join(b.balls)}
            for sm in season for b in sm.match.breaks]


# ---------------------------------------------------------------------------------------------
# Player statistics


@dataclass
class PlayerStats:
    """A player's season, players told apart by name. A visit is a run of the player's shots in
    a frame (it ends when the other player comes to the table or the frame ends); a potting shot
    is one that scored without a foul; a long shot one whose white stood half the table's length
    or more from the ball it hit first (known where the match has tracks); shot time is the
    time from the balls coming to rest after the shot before to this shot's start, within a
    frame."""

    player: str
    matches: int = 0
    matches_won: int = 0
    frames: int = 0
    frames_won: int = 0
    shots: int = 0
    potting_shots: int = 0
    visits: int = 0
    points: int = 0
    high_break: int = 0
    fouls: int = 0
    shot_time_total_s: float = 0.0
    shot_time_count: int = 0
    long_shots: int = 0  # shots whose white-to-first-object distance is known and long
    long_potting_shots: int = 0
    short_shots: int = 0
    short_potting_shots: int = 0

    def __post_init__(self) -> None:
        self.breaks = dict.fromkeys(BREAK_BINS, 0)
        self.fouls_by_reason: dict[str, int] = {}
        self.pots_by_ball: dict[str, int] = {}

    @property
    def pot_success(self) -> float | None:
        return self.potting_shots / self.shots if self.shots else None

    @property
    def shots_per_visit(self) -> float | None:
        return self.shots / self.visits if self.visits else None

    @property
    def points_per_visit(self) -> float | None:
        return self.points / self.visits if self.visits else None

    @property
    def long_pot_success(self) -> float | None:
        return self.long_potting_shots / self.long_shots if self.long_shots else None

    @property
    def short_pot_success(self) -> float | None:
        return self.short_potting_shots / self.short_shots if self.short_shots else None

    @property
    def mean_shot_time_s(self) -> float | None:
        return self.shot_time_total_s / self.shot_time_count if self.shot_time_count else None

    def row(self) -> dict[str, Any]:
        def r(v: float | None) -> float | None:
            return None if v is None else round(v, 3)

        return {"player": self.player, "matches": self.matches,
                "matches_won": self.matches_won, "frames": self.frames,
                "frames_won": self.frames_won, "shots": self.shots,
                "potting_shots": self.potting_shots, "pot_success": r(self.pot_success),
                "visits": self.visits, "shots_per_visit": r(self.shots_per_visit),
                "points": self.points, "points_per_visit": r(self.points_per_visit),
                "mean_shot_time_s": r(self.mean_shot_time_s), "long_shots": self.long_shots,
                "long_potting_shots": self.long_potting_shots,
                "long_pot_success": r(self.long_pot_success), "short_shots": self.short_shots,
                "short_potting_shots": self.short_potting_shots,
                "short_pot_success": r(self.short_pot_success), "high_break": self.high_break,
                "fouls": self.fouls, **{f"breaks_{lo}": n for lo, n in self.breaks.items()}}


def _bin(points: int) -> int:
    return max(lo for lo in BREAK_BINS if lo <= points)


def player_stats(season: Iterable[SeasonMatch]) -> list[PlayerStats]:
    """Each player's statistics over the season, in order of first appearance."""
    stats: dict[str, PlayerStats] = {}

    def of(name: str) -> PlayerStats:
        return stats.setdefault(name, PlayerStats(name))

    for sm in season:
        m = sm.match
        for p in (0, 1):
            of(m.players[p]).matches += 1
        if sm.finished and m.winner in (0, 1) and (m.last_score or {}).get("match_over"):
            of(m.players[m.winner]).matches_won += 1
        for fr in m.frames:
            if not fr.shots:
                continue
            for p in (0, 1):
                of(m.players[p]).frames += 1
            if fr.winner in (0, 1):
                of(m.players[fr.winner]).frames_won += 1
            prev: ShotSummary | None = None
            for s in fr.shots:
                if s.player not in (0, 1):
                    prev = s
                    continue
                st = of(m.players[s.player])
                st.shots += 1
                if prev is None or prev.player != s.player:
                    st.visits += 1
                potted = not s.foul and s.points > 0
                reach = sm.reach_mm.get(s.number)
                if reach is not None and reach >= LONG_SHOT_MM:
                    st.long_shots += 1
                    st.long_potting_shots += potted
                elif reach is not None:
                    st.short_shots += 1
                    st.short_potting_shots += potted
                if s.foul:
                    st.fouls += 1
                    reason = str(s.foul.get("reason") or "unknown")
                    st.fouls_by_reason[reason] = st.fouls_by_reason.get(reason, 0) + 1
                else:
                    st.points += s.points
                    if s.points > 0:
                        st.potting_shots += 1
                        for pot in s.pots:
                            cls = str(pot.get("class"))
                            if cls != "white":
                                st.pots_by_ball[cls] = st.pots_by_ball.get(cls, 0) + 1
                if (prev is not None and prev.t_end is not None and s.t_start is not None
                        and s.t_start >= prev.t_end):
                    st.shot_time_total_s += s.t_start - prev.t_end
                    st.shot_time_count += 1
                prev = s
        for b in m.breaks:
            st = of(m.players[b.player])
            st.breaks[_bin(b.points)] += 1
            st.high_break = max(st.high_break, b.points)
    return list(stats.values())


# ---------------------------------------------------------------------------------------------
# Writing


def _cell(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def write_csv(path: Path, columns: Sequence[tuple[str, str]], rows: Sequence[Mapping]) -> None:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow([c for c, _ in columns])
    for row in rows:
        w.writerow([_cell(row.get(c)) for c, _ in columns])
    _write_atomic(path, buf.getvalue().encode("utf-8"))


def write_parquet(path: Path, columns: Sequence[tuple[str, str]], rows: Sequence[Mapping]
                  ) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    types = {"str": pa.string(), "int": pa.int64(), "float": pa.float64(), "bool": pa.bool_()}
    schema = pa.schema([(c, types[t]) for c, t in columns])
    table = pa.table({c: pa.array([row.get(c) for row in rows], type=types[t])
                      for c, t in columns}, schema=schema)
    tmp = path.with_name(path.name + ".tmp")
    pq.write_table(table, tmp)
    os.replace(tmp, path)


def _write_atomic(path: Path, data: bytes) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def parquet_available() -> bool:
    try:
        import pyarrow.parquet  # noqa: F401
    except ImportError:
        return False
    return True


def season_tables(season: Sequence[SeasonMatch]) -> dict[str, list[dict[str, Any]]]:
    """Each table's rows; an empty text is None (an empty CSV cell, a Parquet null)."""
    tables = {"matches": match_rows(season), "frames": frame_rows(season),
              "shots": shot_rows(season), "breaks": break_rows(season),
              "players": [p.row() for p in player_stats(season)]}
    return {name: [{k: (None if v == "" else v) for k, v in row.items()} for row in rows]
            for name, rows in tables.items()}


def write_season(root: str | os.PathLike, season: Sequence[SeasonMatch] | None = None,
                 parquet: bool | None = None) -> list[Path]:
    """index.html and the tables in ``root``; the paths written. ``parquet``: None writes
    .parquet beside each .csv when pyarrow can be imported."""
    root = Path(root)
    season = load_season(root) if season is None else season
    parquet = parquet_available() if parquet is None else parquet
    tables = season_tables(season)
    written = []
    for name in TABLES:
        path = root / f"{name}.csv"
        write_csv(path, COLUMNS[name], tables[name])
        written.append(path)
        if parquet:
            path = root / f"{name}.parquet"
            write_parquet(path, COLUMNS[name], tables[name])
            written.append(path)
    index = root / "index.html"
    _write_atomic(index, index_html(season).encode("utf-8"))
    written.append(index)
    return written


def _e(v: Any) -> str:
    return html.escape("" if v is None else str(v), quote=True)


def _pct(v: float | None) -> str:
    return "" if v is None else f"{100 * v:.0f}%"


def _f(v: float | None, digits: int = 1) -> str:
    return "" if v is None else f"{v:.{digits}f}"


def index_html(season: Sequence[SeasonMatch]) -> str:
    """The season's index page: every match with a link to its report, then each player's
    statistics. Self-contained (inline CSS, no scripts)."""
    rows = []
    for r, sm in zip(match_rows(season), season):
        link = (f'<a href="{_e(r["report"])}">{_e(sm.name)}</a>' if sm.finished
                else f'{_e(sm.name)} <span class="muted">(unfinished)</span>')
        rows.append(
            f'<tr data-match="{_e(sm.name)}"><td>{link}</td><td>{_e(r["player_1"])}</td>'
            f'<td class=num>{r["frames_1"]}–{r["frames_2"]}</td><td>{_e(r["player_2"])}</td>'
            f'<td class=num>{r["last_score_1"]}–{r["last_score_2"]}</td>'
            f'<td>{_e(r["winner"] or "")}</td><td class=num>{r["frames"]}</td>'
            f'<td class=num>{r["shots"]}</td>'
            f'<td class=num>{r["high_break_1"]} / {r["high_break_2"]}</td>'
            f'<td class=num>{r["fouls_1"]} / {r["fouls_2"]}</td>'
            f'<td class="muted">{_e(Path(sm.video).name if sm.video else "")}</td></tr>')
    matches = (f'<table><tr><th>Match</th><th>Player 1</th><th class=num>Frames</th>'
               f'<th>Player 2</th><th class=num>Last frame</th><th>Winner</th>'
               f'<th class=num>Frames played</th><th class=num>Shots</th>'
               f'<th class=num>High breaks</th><th class=num>Fouls</th><th>Video</th></tr>'
               f'{"".join(rows)}</table>' if rows else '<p class="muted">No matches.</p>')
    stats = player_stats(season)
    prow = []
    for st in stats:
        fouls = ", ".join(f"{_e(k.replace('_', ' '))} {n}"
                          for k, n in sorted(st.fouls_by_reason.items(), key=lambda kv: -kv[1]))
        pots = ", ".join(f"{_e(k)} {n}" for k, n in sorted(st.pots_by_ball.items(),
                                                           key=lambda kv: -kv[1]))
        dist = " · ".join(f"{lo}+ {st.breaks[lo]}" for lo in BREAK_BINS)
        prow.append(
            f'<tr data-player="{_e(st.player)}"><td>{_e(st.player)}</td>'
            f'<td class=num>{st.matches_won}/{st.matches}</td>'
            f'<td class=num>{st.frames_won}/{st.frames}</td><td class=num>{st.shots}</td>'
            f'<td class=num>{_pct(st.pot_success)}</td>'
            f'<td class=num>{_f(st.shots_per_visit)}</td>'
            f'<td class=num>{_f(st.points_per_visit)}</td>'
            f'<td class=num>{_f(st.mean_shot_time_s)}</td>'
            f'<td class=num>{_pct(st.long_pot_success)} / {_pct(st.short_pot_success)}</td>'
            f'<td class=num>{st.high_break}</td><td>{dist}</td><td>{pots}</td>'
            f'<td>{fouls or "none"}</td></tr>')
    players = (f'<table><tr><th>Player</th><th class=num>Matches won</th>'
               f'<th class=num>Frames won</th><th class=num>Shots</th>'
               f'<th class=num>Pot success</th><th class=num>Shots a visit</th>'
               f'<th class=num>Points a visit</th><th class=num>Mean shot time (s)</th>'
               f'<th class=num>Pot success long / short</th>'
               f'<th class=num>High break</th><th>Breaks</th><th>Pots by ball</th>'
               f'<th>Fouls by reason</th></tr>{"".join(prow)}</table>'
               '<p class="muted">Pot success: the share of shots that scored without a foul. '
               'A visit: a player\'s shots in a row. Shot time: from the balls at rest to the '
               'next shot. Long: the white half the table\'s length or more from the ball it '
               'hit first (from the tracks).</p>' if prow else '<p class="muted">No shots.</p>')
    n = len(season)
    return "\n".join([
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<title>Season: {n} match{"" if n == 1 else "es"}</title><style>{CSS}</style></head>'
        '<body><main>',
        f'<header class="hero"><div class="p">Season</div><div class="score">{n}</div>'
        f'<div class="p right">match{"" if n == 1 else "es"}</div></header>',
        f'<section id="matches"><h2>Matches</h2>{matches}</section>',
        f'<section id="players"><h2>Players</h2>{players}</section>',
        '<p class="muted" style="text-align:center">cueball season index · tables: '
        + " ".join(f'<a href="{t}.csv">{t}.csv</a>' for t in TABLES) + '</p>',
        '</main></body></html>'])


__all__ = ["COLUMNS", "DONE_NAME", "EVENTS_NAME", "REPORT_NAME", "TABLES", "PlayerStats",
           "SeasonMatch", "index_html", "load_match", "load_season", "player_stats",
           "season_tables", "write_season"]
