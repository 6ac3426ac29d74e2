"""The match on disk: ``events.jsonl`` and ``tracks.csv`` (docs/FORMATS.md), and resuming from them.

    with EventLog("events.jsonl") as log:       # appends; a torn last line is cut off first
        log.write({"type": "shot_start", "frame": 120, "t": 2.0, "shot": 1})
    events = read_events("events.jsonl")        # a truncated last line (killed process) is dropped
    state = resume_state(events)                # referee records, last frame/shot, score
    referee = state.referee()                   # a Referee where the log left off

Each event reaches the kernel before ``write`` returns, so a crash of the process loses nothing;
a helper thread ``fdatasync``s right behind it, so a power cut loses at most the last moment.
The referee's inputs can be logged too, as ``{"type": "record", "frame", "t", "record": {...}}``
events (``record_event``); ``resume_state`` replays those exactly when present and otherwise
rebuilds the shot records from ``shot_end`` and ``score`` events.
"""

from __future__ import annotations

import csv
import json
import math
import os
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from calibration.errors import InputError
from tracker.io.checks import named
from tracker.io.eventcheck import check_event

TRACK_COLUMNS = ("frame", "t", "track_id", "ball", "x_mm", "y_mm", "x_px", "y_px", "state")
TRACK_STATES = ("seen", "predicted", "potted", "off_table")
DEFAULT_FRAME_START = {"type": "frame_start", "players": ["Player 1", "Player 2"], "breaker": 0,
                       "reds": 15}
# shot record fields a score event repeats (the referee's inputs it echoes back)
_SHOT_FIELDS_FROM_SCORE = ("player", "nominated", "miss")
_VISION_FOULS = frozenset({"no_ball_hit", "in_off", "cue_ball_off_table", "wrong_ball_first",
                           "potted_ball_not_on", "ball_off_table", "snookered_behind_free_ball",
                           "free_ball_not_hit_first", "two_reds", "no_nomination"})


def _jsonable(o: Any) -> Any:
    # numpy scalars and arrays without importing numpy
    if hasattr(o, "tolist"):
        return o.tolist()
    if isinstance(o, (tuple, set, frozenset)):
        return list(o)
    raise TypeError(f"event field of type {type(o).__name__} is not JSON serialisable")


def _dumps(event: Mapping[str, Any]) -> str:
    return json.dumps(event, separators=(",", ":"), ensure_ascii=False, default=_jsonable,
                      allow_nan=False)


SYNC_MODES = ("background", "each", "off")


class EventLog:
    """Appends events to a JSON-lines file, one object a line.

    Each ``write`` hands its line to the kernel in one ``write`` call before it returns, so a
    crash of the process loses nothing. ``sync`` says when the line also reaches the disk (what
    a power cut needs): "background" (default) ``fdatasync``s from a helper thread right after
    each write, coalescing bursts, so the pipeline never waits on the disk; "each" syncs inside
    ``write`` (a few ms each); "off" leaves it to the OS. ``mode="a"`` (default) continues an
    existing log, first cutting off a torn last line left by a killed process; ``mode="w"``
    starts afresh."""

    def __init__(self, path: str | os.PathLike, mode: str = "a", sync: str = "background"
                 ) -> None:
        if mode not in ("a", "w"):
            raise ValueError(f"EventLog mode must be 'a' or 'w', got {mode!r}")
        if sync not in SYNC_MODES:
            raise ValueError(f"EventLog sync must be one of {SYNC_MODES}, got {sync!r}")
        self.path = Path(path)
        self.sync = sync
        self.count = 0
        if mode == "a" and self.path.exists():
            _cut_torn_tail(self.path)
        self._fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND
                           | (os.O_TRUNC if mode == "w" else 0), 0o644)
        self._datasync = getattr(os, "fdatasync", os.fsync)
        self._closed = False
        self._pending = threading.Event()
        self._syncer: threading.Thread | None = None
        if sync == "background":
            self._syncer = threading.Thread(target=self._sync_loop, daemon=True,
                                            name=f"eventlog-sync:{self.path.name}")
            self._syncer.start()

    def write(self, event: Mapping[str, Any]) -> None:
        """One event: a mapping with at least ``type`` (str), ``frame`` (int) and ``t`` (s)."""
        if self._closed:
            raise ValueError(f"the event log {self.path} is closed")
        for key in ("type", "frame", "t"):
            if key not in event:
                raise ValueError(f"an event needs a {key!r} field, got keys {sorted(event)}")
        line = (_dumps(event) + "\n").encode()
        # one write call per line, so a crash leaves at most one torn line
        with named(self.path):
            while line:
                line = line[os.write(self._fd, line):]
        self.count += 1
        if self.sync == "each":
            self._datasync(self._fd)
        elif self.sync == "background":
            self._pending.set()

    def write_all(self, events: Iterable[Mapping[str, Any]]) -> None:
        for e in events:
            self.write(e)

    def _sync_loop(self) -> None:
        while True:
            self._pending.wait()
            self._pending.clear()
            if self._closed:
                return
            try:
                self._datasync(self._fd)
            except OSError:
                return  # closed under us; close() syncs the last lines itself

    def close(self) -> None:
        """Syncs what was written and closes the file."""
        if self._closed:
            return
        self._closed = True
        if self._syncer is not None:
            self._pending.set()
            self._syncer.join()
        if self.sync != "off":
            self._datasync(self._fd)
        os.close(self._fd)

    def __enter__(self) -> EventLog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _cut_torn_tail(path: Path) -> None:
    """Ends the file on a newline: a last line that is not JSON was torn by a crash and is cut
    off; a whole event missing only its newline gets one."""
    with open(path, "r+b") as fh:
        size = fh.seek(0, os.SEEK_END)
        if size == 0:
            return
        pos, end = size, 0
        while pos > 0:
            step = min(4096, pos)
            fh.seek(pos - step)
            chunk = fh.read(step)
            i = chunk.rfind(b"\n")
            if i >= 0:
                end = pos - step + i + 1
                break
            pos -= step
        if end == size:
            return
        fh.seek(end)
        tail = fh.read()
        try:
            whole = isinstance(json.loads(tail), dict)
        except ValueError:
            whole = False
        if whole:
            fh.seek(size)
            fh.write(b"\n")
        else:
            fh.truncate(end)


def record_event(record: Mapping[str, Any], frame: int, t: float) -> dict[str, Any]:
    """The event that logs one record fed to the referee, for an exact ``--resume``."""
    return {"type": "record", "frame": int(frame), "t": float(t), "record": dict(record)}


def iter_event_lines(lines: Iterable[str], source: str = "<events>") -> Iterator[dict[str, Any]]:
    """Events from JSON lines. A last line that does not parse is dropped (the log of a killed
    process); a bad line before it raises InputError naming ``source`` and the line."""
    pending: tuple[int, str] | None = None
    for n, line in enumerate(lines, 1):
        if pending is not None:
            raise InputError(f"{source}:{pending[0]}: not a JSON event: {pending[1]}")
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except (ValueError, RecursionError) as exc:
            pending = (n, str(exc))
            continue
        if not isinstance(obj, dict) or "type" not in obj:
            raise InputError(f"{source}:{n}: an event must be a JSON object with a 'type'")
        check_event(obj, f"{source}:{n}")
        yield obj


def read_events(path: str | os.PathLike) -> list[dict[str, Any]]:
    """All events of an events.jsonl, tolerating a truncated last line."""
    p = Path(path)
    try:
        with open(p, encoding="utf-8", errors="replace") as fh:
            return list(iter_event_lines(fh, str(p)))
    except FileNotFoundError:
        raise InputError(f"no event log at {p}") from None
    except IsADirectoryError:
        raise InputError(f"{p} is a directory, not an event log") from None


@dataclass(frozen=True)
class ResumeState:
    """Where a log left off. ``records``: the referee records that rebuild the match (replay
    them into a fresh ``Referee``, or call ``referee()``); ``last_frame`` / ``last_t``: the last
    source frame index and time logged (-1 / 0.0 for an empty log); ``last_shot``: the last shot
    number started; ``score``: the last ``score`` event (None before the first); ``exact``: the
    records come from logged ``record`` events rather than being rebuilt."""

    records: tuple[dict[str, Any], ...]
    last_frame: int
    last_t: float
    last_shot: int
    score: dict[str, Any] | None
    exact: bool
    players: tuple[str, str] | None = None
    results: tuple[dict[str, Any], ...] = field(default=(), repr=False)

    def referee(self):
        """A ``Referee`` fed with ``records``: it continues the match."""
        from tracker.rules.snooker import Referee

        ref = Referee()
        for r in self.records:
            ref.feed(r)
        return ref


def resume_state(events: Sequence[Mapping[str, Any]],
                 frame_start: Mapping[str, Any] | None = None) -> ResumeState:
    """The state to continue a match from its event log.

    ``frame_start``: the first referee record when the log holds neither ``record`` events nor a
    ``frame_start`` event (default: two unnamed players, player 0 breaks, 15 reds). The rebuilt
    records are replayed and checked against every logged ``score``; InputError when they
    disagree (the log lacks a decision or a foul only the referee saw)."""
    from tracker.rules.snooker import Referee

    logged = [dict(e["record"]) for e in events if e.get("type") == "record"]
    exact = bool(logged)
    records = logged if exact else _rebuild_records(events, frame_start)
    scores = [e for e in events if e.get("type") == "score"]
    ref = Referee()
    results = []
    for i, r in enumerate(records):
        try:
            results.append(ref.feed(r))
        except ValueError as exc:
            raise InputError(f"cannot replay the event log: record {i + 1} ({r.get('type')}): "
                             f"{exc}") from None
    shot_results = [r for r in results if r.get("type") == "shot"]
    if not exact:
        for s, r in zip(scores, shot_results):
            if list(s.get("score", [])) != list(r["score"]):
                raise InputError(f"cannot replay the event log: shot {s.get('shot')} gives "
                                 f"{r['score']} but the log says {s.get('score')}")
    # a score event's 'frame' is the referee's frame number, so source frames come from others
    framed = [e for e in events if e.get("type") not in ("score", "record")] or list(events)
    last = max(framed, key=lambda e: (e.get("frame", -1), e.get("t", 0.0)), default=None)
    shots = [int(e["shot"]) for e in events if e.get("type") in ("shot_start", "shot_end")
             and isinstance(e.get("shot"), int)]
    players = None
    starts = [r for r in records if r.get("type") == "frame_start" and r.get("players")]
    if starts:
        players = (str(starts[0]["players"][0]), str(starts[0]["players"][1]))
    return ResumeState(
        records=tuple(records),
        last_frame=int(last.get("frame", -1)) if last else -1,
        last_t=float(last.get("t", 0.0)) if last else 0.0,
        last_shot=max(shots, default=0),
        score=dict(scores[-1]) if scores else None,
        exact=exact, players=players, results=tuple(results),
    )


def _rebuild_records(events: Sequence[Mapping[str, Any]],
                     frame_start: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    """Referee records from ``frame_start``, ``shot_end`` and ``score`` events: each shot_end is
    paired with the score event of the same shot number after it. A ``frame_start`` event
    before the first shot starts the match; one after it, the next frame of a match."""
    first = next((e for e in events if e.get("type") in ("frame_start", "shot_end")), None)
    if first is not None and first.get("type") != "frame_start":
        first = None  # the first frame's start is not logged
    start = dict(first if first is not None else frame_start or DEFAULT_FRAME_START)
    start = {k: v for k, v in start.items() if k not in ("frame", "t")}
    start["type"] = "frame_start"
    records: list[dict[str, Any]] = [start]
    pending: dict[str, Any] | None = None
    frame_over = False
    for e in events:
        kind = e.get("type")
        if kind == "frame_start" and e is not first:
            rec = {k: v for k, v in e.items() if k not in ("frame", "t")}
            records.append(rec)
            frame_over = False
        elif kind == "shot_end":
            pending = {"type": "shot", "first_contact": e.get("first_contact"),
                       "potted": list(e.get("potted") or []),
                       "cue_potted": bool(e.get("cue_potted")),
                       "off_table": list(e.get("off_table") or [])}
            for k in ("nominated", "snookered_after", "miss", "positions", "touching_after"):
                if e.get(k) is not None:
                    pending[k] = e[k]
        elif kind == "score" and pending is not None:
            if frame_over:
                records.append({"type": "frame_start"})
                frame_over = False
            for k in _SHOT_FIELDS_FROM_SCORE:
                if e.get(k) is not None and k not in pending:
                    pending[k] = e[k]
            foul = e.get("foul")
            if foul and foul.get("reason") not in _VISION_FOULS:
                pending["foul"] = foul["reason"]  # a call vision cannot make, so it was given
            if not pending.get("miss"):
                pending.pop("miss", None)
            records.append(pending)
            pending = None
            frame_over = bool(e.get("frame_over"))
    return records


class TracksWriter:
    """Writes tracks.csv (docs/FORMATS.md): ``frame,t,track_id,ball,x_mm,y_mm,x_px,y_px,state``, one
    row per ball per frame, flushed frame by frame. ``state`` is ``seen``, ``predicted``,
    ``potted`` or ``off_table`` (positions left empty for the last two)."""

    def __init__(self, path: str | os.PathLike, mode: str = "w") -> None:
        if mode not in ("a", "w"):
            raise ValueError(f"TracksWriter mode must be 'a' or 'w', got {mode!r}")
        self.path = Path(path)
        header = mode == "w" or not self.path.exists() or self.path.stat().st_size == 0
        if mode == "a" and not header:
            _cut_torn_tail(self.path)
        self._fh = open(self.path, mode, newline="", encoding="utf-8")  # noqa: SIM115
        self._w = csv.writer(self._fh, lineterminator="\n")
        if header:
            with named(self.path):
                self._w.writerow(TRACK_COLUMNS)
                self._fh.flush()
        self.rows = 0

    def write_frame(self, frame: int, t: float, track_ids: Sequence[str], balls: Sequence[str],
                    xy_mm, xy_px, states: Sequence[str]) -> None:
        """One frame: N track ids and classes, ``xy_mm`` and ``xy_px`` (N, 2) (rows ignored for
        potted balls), N states."""
        n = len(track_ids)
        if not (len(balls) == len(xy_mm) == len(xy_px) == len(states) == n):
            raise ValueError(f"write_frame needs N={n} classes, (N, 2) xy_mm and xy_px and N "
                             f"states; got {len(balls)}, {len(xy_mm)}, {len(xy_px)}, "
                             f"{len(states)}")
        with named(self.path):
            for i in range(n):
                self._row(frame, t, track_ids[i], balls[i], xy_mm[i], xy_px[i], states[i])
            self._fh.flush()

    def write_row(self, frame: int, t: float, track_id: str, ball: str, xy_mm, xy_px,
                  state: str) -> None:
        self._row(frame, t, track_id, ball, xy_mm, xy_px, state)

    def _row(self, frame, t, track_id, ball, xy_mm, xy_px, state) -> None:
        if state not in TRACK_STATES:
            raise ValueError(f"track state must be one of {TRACK_STATES}, got {state!r}")
        if state in ("potted", "off_table") or xy_mm is None:
            pos = ["", "", "", ""]
        else:
            pos = [_num(xy_mm[0]), _num(xy_mm[1]),
                   *(["", ""] if xy_px is None else [_num(xy_px[0]), _num(xy_px[1])])]
        self._w.writerow([int(frame), f"{float(t):.4f}", track_id, ball, *pos, state])
        self.rows += 1

    def flush(self) -> None:
        self._fh.flush()

    def close(self) -> None:
        if not self._fh.closed:
            with named(self.path):
                self._fh.close()

    def __enter__(self) -> TracksWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def cut_tracks(path: str | os.PathLike, last_frame: int) -> int:
    """Cuts a tracks.csv back to its rows of frames up to ``last_frame`` (a resumed run goes
    on after it), a torn row or anything after it cut off too; the number of rows kept."""
    p = Path(path)
    kept, end = 0, 0
    with open(p, "r+b") as fh:
        header = fh.readline()
        if not header.endswith(b"\n") or header.rstrip(b"\n").decode(errors="replace") \
                != ",".join(TRACK_COLUMNS):
            raise InputError(f"{p}: not a tracks.csv to continue (its header is not "
                             f"{','.join(TRACK_COLUMNS)})")
        end = fh.tell()
        for line in fh:
            cells = line.rstrip(b"\n").split(b",")
            if not line.endswith(b"\n") or len(cells) != len(TRACK_COLUMNS) \
                    or not cells[0].isdigit() or int(cells[0]) > last_frame:
                break
            end += len(line)
            kept += 1
        fh.truncate(end)
    return kept


def _num(v) -> str:
    v = float(v)
    return "" if not math.isfinite(v) else f"{v:.2f}"


@dataclass
class Track:
    """One ball's rows of a tracks.csv, in file order: ``frame`` and ``t`` lists, ``xy_mm`` and
    ``xy_px`` lists of (x, y) (None where potted or not given), ``state``."""

    track_id: str
    ball: str
    frame: list[int] = field(default_factory=list)
    t: list[float] = field(default_factory=list)
    xy_mm: list[tuple[float, float] | None] = field(default_factory=list)
    xy_px: list[tuple[float, float] | None] = field(default_factory=list)
    state: list[str] = field(default_factory=list)


def read_tracks(path: str | os.PathLike) -> dict[str, Track]:
    """A tracks.csv as ``{track_id: Track}``; a torn last row is dropped."""
    p = Path(path)
    try:
        fh = open(p, newline="", encoding="utf-8")  # noqa: SIM115
    except FileNotFoundError:
        raise InputError(f"no tracks file at {p}") from None
    tracks: dict[str, Track] = {}
    with fh:
        reader = csv.DictReader(fh)
        missing = set(TRACK_COLUMNS) - set(reader.fieldnames or ())
        if missing:
            raise InputError(f"{p}: not a tracks.csv (missing columns {sorted(missing)})")
        for row in reader:
            try:
                frame, t = int(row["frame"]), float(row["t"])
                mm = _pair(row["x_mm"], row["y_mm"])
                px = _pair(row["x_px"], row["y_px"])
            except (TypeError, ValueError):
                continue  # a torn row
            if not all(math.isfinite(v) for v in (t, *(mm or ()), *(px or ()))):
                raise InputError(f"{p}: line {reader.line_num}: a time or position that is not "
                                 f"a finite number")
            if row["state"] not in TRACK_STATES:
                continue
            tr = tracks.get(row["track_id"])
            if tr is None:
                tr = tracks[row["track_id"]] = Track(row["track_id"], row["ball"])
            tr.frame.append(frame)
            tr.t.append(t)
            tr.xy_mm.append(mm)
            tr.xy_px.append(px)
            tr.state.append(row["state"])
    return tracks


def _pair(a: str | None, b: str | None) -> tuple[float, float] | None:
    if not a or not b:
        return None
    return float(a), float(b)
