"""The Snooker Shoot Out: one frame of snooker (tracker.rules.snooker) under a frame clock and a
shot clock, a pure reducer like snooker's.

    state, result = apply(state, record)

The rules (seed 003, "the Shoot Out uses a shot clock of 15 s in the first five minutes, then 10 s,
with a time limit for each frame, set by the event's regulations"; the event's competition rules
for the rest, cited below as "SO n"):

- SO 1: the frame lasts at most ten minutes from the moment the white is struck for the opening
  stroke; a stroke struck before the end is played out, then the leader wins.
- SO 3: each stroke must begin within 15 s in the first five minutes and 10 s in the last five;
  SO 4(i): the shot clock starts when the balls have come to rest (``t_rest``) and stops when the
  white is struck (``t_strike``). A stroke begun late is a time foul: five points, or the ball
  on's value if higher.
- Every stroke must pot a ball or send a ball (the white included) to a cushion, else it is a foul
  of the ball on's value (at least four).
- After every foul the incoming player has the white in hand anywhere on the table: no "play
  again", no free ball, no foul and a miss.
- The lag decides who breaks: the player whose white stops nearer the baulk cushion chooses.
- A tie when time is up is settled by the blue-ball shoot-out: the blue on its spot, the white in
  the D, one attempt each in turn until, after a round, one has potted and the other has not.

The opening stroke has no shot clock (no stroke before it brought the balls to rest): the camera
cannot see when the breaker was called to the table.

Records are snooker's (``frame_start``, ``shot`` with its times and ``cushioned``, ``concede``)
and the Shoot Out's own: ``{"type": "lag", "winner": 0|1, "breaker": 0|1}`` before the opening
stroke, ``{"type": "time_up"}`` (the clock's end told by the timekeeper, where strokes' times are
not known), ``{"type": "blue_attempt", "player": 0|1, "potted": true|false}``. A ``decision``
is refused: the rules leave no choice after a foul.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from tracker.rules import snooker
from tracker.rules.records import (
    Decision,
    Foul,
    FrameStart,
    Record,
    Shot,
    _player,
    _short,
    loads_record,
)
from tracker.rules.records import parse_record as parse_snooker_record

FRAME_S = 600.0  # SO 1: ten minutes
LAST_PART_S = 300.0  # SO 3(ii): the last five minutes
SHOT_CLOCK_S = 15.0  # SO 3(i)
SHOT_CLOCK_LAST_S = 10.0  # SO 3(ii)


@dataclass(frozen=True)
class Lag:
    """The lag's ``winner`` and the ``breaker`` the winner chose."""

    winner: int
    breaker: int


@dataclass(frozen=True)
class TimeUp:
    """The frame clock ran out (the timekeeper's word)."""


@dataclass(frozen=True)
class BlueAttempt:
    """One attempt at the blue in the blue-ball shoot-out."""

    player: int
    potted: bool


ShootOutRecord = Record | Lag | TimeUp | BlueAttempt


def parse_record(d: Mapping[str, Any]) -> ShootOutRecord:
    """One JSON object to a Shoot Out record; ValueError says what is wrong."""
    if not isinstance(d, Mapping):
        raise ValueError(f"a record must be a JSON object, got {type(d).__name__}")
    kind = d.get("type")
    if kind == "lag":
        _only(d, {"type", "winner", "breaker"}, "lag")
        return Lag(_player(d.get("winner"), "winner"), _player(d.get("breaker"), "breaker"))
    if kind == "time_up":
        _only(d, {"type"}, "time_up")
        return TimeUp()
    if kind == "blue_attempt":
        _only(d, {"type", "player", "potted"}, "blue_attempt")
        potted = d.get("potted")
        if not isinstance(potted, bool):
            raise ValueError(f"potted must be true or false, got {_short(potted)}")
        return BlueAttempt(_player(d.get("player"), "player"), potted)
    if kind == "decision":
        raise ValueError("no decision after a foul in the Shoot Out: the incoming player plays "
                         "from in hand")
    record = parse_snooker_record(d)
    if isinstance(record, FrameStart) and record.reds not in (None, 15):
        raise ValueError("the Shoot Out is played with 15 reds")
    return record


def _only(d: Mapping[str, Any], known: set[str], what: str) -> None:
    unknown = set(d) - known
    if unknown:
        raise ValueError(f"unknown {what} field(s): {', '.join(sorted(unknown))}")


@dataclass(frozen=True)
class State:
    """The snooker frame (``match``) and the Shoot Out's own: ``clock_start`` the opening
    stroke's strike time, ``last_rest`` when the balls last came to rest, ``time_up`` the frame
    clock has run out, ``blue`` the blue-ball shoot-out's attempts so far and who began it."""

    match: snooker.MatchState
    clock_start: float | None = None
    time_up: bool = False
    blue_first: int | None = None
    blue: tuple[tuple[int, bool], ...] = ()


def shot_clock(elapsed_s: float) -> float:
    """SO 3: the time allowed to begin a stroke, ``elapsed_s`` into the frame."""
    return SHOT_CLOCK_S if elapsed_s < LAST_PART_S else SHOT_CLOCK_LAST_S


def late(state: State, s: Shot) -> bool:
    """SO 3, SO 4(i): the stroke began after its shot clock ran out (times known, not the
    opening stroke)."""
    if state.clock_start is None or s.t_rest is None or s.t_strike is None:
        return False
    return s.t_strike - s.t_rest > shot_clock(s.t_rest - state.clock_start)


def no_cushion(s: Shot) -> bool:
    """Shoot Out rules: a stroke that pots no ball and sends none to a cushion (known only when
    the record says which balls touched a cushion)."""
    if s.cushioned is None or not s.struck:
        return False
    return not (s.cushioned or s.potted or s.cue_potted or s.off_table)


def _with_fouls(s: Shot, state: State) -> Shot:
    extra = []
    if late(state, s):
        extra.append(Foul("shot_clock"))
    if no_cushion(s):
        extra.append(Foul("no_cushion"))
    # no foul and a miss: the incoming player has the white in hand in any case
    return replace(s, foul=s.foul + tuple(extra), miss=False)


def _in_hand_anywhere(m: snooker.MatchState) -> snooker.MatchState:
    """After a foul: the non-offender plays, from in hand anywhere, with no free ball."""
    f = m.frame
    if f.offender is None or f.over:
        return m
    f = snooker._decide(f, "play")
    return replace(m, frame=replace(f, free_ball=False,
                                    table=replace(f.table, in_hand=True, touching=None)))


def _leader(m: snooker.MatchState) -> int | None:
    a, b = m.frame.score
    return None if a == b else (0 if a > b else 1)


def _end_on_time(state: State) -> State:
    """SO 1: time is up; the leader wins, a tie goes to the blue-ball shoot-out."""
    m = state.match
    if m.frame.over:
        return replace(state, time_up=True)
    winner = _leader(m)
    if winner is None:
        return replace(state, time_up=True)
    m = snooker._add_break(m, m.frame.striker, m.frame.current_break)
    return replace(state, time_up=True, match=snooker._finish_frame(m, m.frame, winner))


def _blue_winner(attempts: tuple[tuple[int, bool], ...]) -> int | None:
    """After each full round, the player who potted while the other missed."""
    if len(attempts) % 2:
        return None
    (p, a), (q, b) = attempts[-2], attempts[-1]
    if a == b:
        return None
    return p if a else q


def apply(state: State | None, record: ShootOutRecord | Mapping[str, Any]
          ) -> tuple[State, dict[str, Any]]:
    """One step of the Shoot Out referee: the new state and what it says (snooker's result dict
    with ``clock`` added: the frame clock and the shot clock where known)."""
    if isinstance(record, Mapping):
        record = parse_record(record)
    if state is None:
        if not isinstance(record, FrameStart):
            raise ValueError("the first record must be a frame_start")
        m, res = snooker.apply(None, replace(record, best_of=1, reds=15))
        state = State(m)
        return state, _said(state, res.as_dict(), None)
    m = state.match
    if isinstance(record, FrameStart):
        raise ValueError("a Shoot Out match is one frame")
    if isinstance(record, Lag):
        if state.clock_start is not None or m.frame.shot:
            raise ValueError("the lag comes before the opening stroke")
        f = replace(m.frame, breaker=record.breaker, striker=record.breaker)
        state = replace(state, match=replace(m, first_breaker=record.breaker, frame=f))
        out = snooker._result(state.match, {"type": "lag", "player": record.winner}).as_dict()
        return state, _said(state, out, None)
    if isinstance(record, BlueAttempt):
        return _blue_attempt(state, record)
    if m.frame.over and not isinstance(record, TimeUp):
        raise ValueError("the frame is over")
    if isinstance(record, TimeUp):
        if state.time_up:
            raise ValueError("time is already up")
        state = _end_on_time(state)
        out = snooker._result(state.match, {"type": "time_up", "player": None,
                                            "end_reason": "time_up"}).as_dict()
        return state, _said(state, out, None)
    if isinstance(record, Shot):
        return _shot(state, record)
    if isinstance(record, Decision):
        raise ValueError("no decision after a foul in the Shoot Out: the incoming player plays "
                         "from in hand")
    m, res = snooker.apply(m, record)  # a concession, a claim, the re-spotted black's toss
    state = replace(state, match=m)
    return state, _said(state, res.as_dict(), None)


def _shot(state: State, s: Shot) -> tuple[State, dict[str, Any]]:
    if state.time_up:
        raise ValueError("time is up: no stroke after the frame clock ran out")
    clock_start = state.clock_start
    if clock_start is None and s.t_strike is not None:
        clock_start = s.t_strike  # SO 1: the frame clock starts with the opening stroke
    if clock_start is not None and s.t_strike is not None and (
            s.t_strike - clock_start >= FRAME_S):
        # SO 1: this stroke came after the end: the frame ended before it
        state = _end_on_time(replace(state, clock_start=clock_start))
        out = snooker._result(state.match, {"type": "time_up", "player": None,
                                            "end_reason": "time_up"}).as_dict()
        return state, _said(state, out, None)
    # the opening stroke has no shot clock: it starts the frame clock
    timed = replace(state, clock_start=clock_start if state.clock_start is not None else None)
    judged = _with_fouls(s, timed)
    m, res = snooker.apply(state.match, judged)
    m = _in_hand_anywhere(m)
    state = replace(state, match=m, clock_start=clock_start)
    out = snooker._result(m, _result_fields(res)).as_dict()
    allowed = None
    opening = state.match.frame.shot == 1
    if clock_start is not None and s.t_rest is not None and s.t_strike is not None and (
            not opening):
        allowed = shot_clock(s.t_rest - clock_start)
    if (clock_start is not None and s.t_end is not None and s.t_end - clock_start >= FRAME_S
            and not m.frame.over):
        # SO 1: the stroke in play when time ran out is played out, then the frame ends
        state = _end_on_time(state)
        out = {**snooker._result(state.match, _result_fields(res)).as_dict(),
               "end_reason": "time_up"}
    return state, _said(state, out, allowed, s)


def _result_fields(res: snooker.Result) -> dict[str, Any]:
    """The per-record fields of snooker's result, to be laid over the state's own."""
    d = res.as_dict()
    keep = ("type", "player", "points", "foul", "respotted", "free_ball_nominated", "nominated",
            "replaced", "push_confidence", "end_reason", "shot_time", "visit_time")
    out = {k: d[k] for k in keep if k in d}
    out["break_"] = d["break"]
    return out


def _blue_attempt(state: State, a: BlueAttempt) -> tuple[State, dict[str, Any]]:
    m = state.match
    if not state.time_up or m.frame.over:
        raise ValueError("no blue-ball shoot-out: it settles a tie when time is up")
    attempts = state.blue
    first = state.blue_first if state.blue_first is not None else a.player
    expected = first if len(attempts) % 2 == 0 else 1 - first
    if a.player != expected:
        raise ValueError(f"player {expected} attempts the blue now")
    attempts = (*attempts, (a.player, a.potted))
    state = replace(state, blue_first=first, blue=attempts)
    winner = _blue_winner(attempts)
    res: dict[str, Any] = {"type": "blue_attempt", "player": a.player}
    if winner is not None:
        state = replace(state, match=snooker._finish_frame(m, m.frame, winner))
        res["end_reason"] = "blue_ball_shoot_out"
    out = snooker._result(state.match, res).as_dict()
    return state, _said(state, out, None)


def _said(state: State, out: dict[str, Any], allowed: float | None,
          s: Shot | None = None) -> dict[str, Any]:
    """The result with the clocks: the frame clock's start and end (s, in the source's time),
    the shot clock this stroke had (None for the opening stroke or without times), whether time
    is up, and the blue-ball shoot-out's attempts."""
    start = state.clock_start
    # in hand for the opening stroke means in the D, as in snooker
    out["in_hand_anywhere"] = bool(out.get("in_hand")) and state.match.frame.shot > 0
    out["clock"] = {
        "frame_start": start,
        "frame_end": None if start is None else start + FRAME_S,
        "shot_clock": allowed,
        "late": bool(s is not None and allowed is not None and s.t_strike - s.t_rest > allowed),
        "time_up": state.time_up,
        "blue_attempts": [list(a) for a in state.blue],
    }
    return out


class Referee:
    """The Shoot Out reducer with its state held: ``feed(record) -> dict``."""

    def __init__(self, state: State | None = None) -> None:
        self.state = state

    def feed(self, record: ShootOutRecord | Mapping[str, Any]) -> dict[str, Any]:
        self.state, result = apply(self.state, record)
        return result


def records_from_lines(lines: Iterable[str], source: str = "<shots>") -> list[ShootOutRecord]:
    """JSON lines to Shoot Out records; ValueError names ``source`` and the line."""
    out = []
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            out.append(loads_record(line, parse_record))
        except (ValueError, TypeError) as e:
            raise ValueError(f"{source}:{n}: {e}") from None
    return out
