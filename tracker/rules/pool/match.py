"""The pool referee: a pure reducer over pool records (``records.py``) for 8-ball, 9-ball,
10-ball and 14.1 continuous, with matches raced to a number of racks (points in 14.1).

    state = new_match("9ball")
    state, result = apply(state, record)

``state`` is a frozen ``MatchState``; ``record`` a record of ``records.py`` or its JSON object;
``result`` a frozen ``Result`` whose ``as_dict()`` is one line of ``cueball referee --game``
(docs/FORMATS.md, "Pool referee results"). Nothing is mutated, read or written. The general
rules are in ``rules.py``, each game's in its own module; this module keeps the books: turns,
innings, consecutive fouls, racks and the match.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any

from tracker.rules.pool import eightball, nineball, straight
from tracker.rules.pool.records import (
    GAMES,
    RECORD_TYPES,
    Call,
    Choice,
    Concede,
    FoulWarning,
    Interference,
    Lag,
    Match,
    Rack,
    Record,
    Shot,
    parse_record,
)
from tracker.rules.pool.rules import (
    Judgement,
    RackState,
    by_number,
    count_foul,
    respot_order,
    unsporting,
)
from tracker.rules.pool.rules import lag_winner as _lag_winner
from tracker.rules.pool.rules import lowest as _lowest
from tracker.rules.pool.variants import Variant, variant

_MODULES = {"8ball": eightball, "9ball": nineball, "10ball": nineball, "14.1": straight}
STAT_KEYS = ("racks", "break_and_runs", "innings", "balls", "fouls", "high_run")


def rack_balls(game: str) -> tuple[str, ...]:
    """The object balls racked: 15 (8-ball, 14.1), 9 or 10 (WPA 9-Ball, 10-Ball "Racking")."""
    return nineball.balls(game) if game in ("9ball", "10ball") else eightball.BALLS


@dataclass(frozen=True)
class MatchState:
    """A match of one game: ``race_to`` racks (14.1: points; None: no end but a concession);
    ``break_order`` "alternate" or
    "winner"; ``first_breaker`` from the lag (None: player 0); ``rack`` the rack in play or the
    last one; ``racks`` racks won; ``stats`` per player, ``STAT_KEYS`` in order."""

    game: str
    variant: Variant
    players: tuple[str, str] = ("A", "B")
    race_to: int | None = None
    break_order: str = "alternate"
    first_breaker: int | None = None
    rack: RackState | None = None
    racks: tuple[int, int] = (0, 0)
    stats: tuple[tuple[int, ...], tuple[int, ...]] = ((0,) * 6, (0,) * 6)
    over: bool = False
    winner: int | None = None


@dataclass(frozen=True)
class Result:
    """What the referee says after one record (docs/FORMATS.md, "Pool referee results")."""

    type: str
    game: str
    variant: str
    rack: int
    shot: int
    player: int | None
    legal: bool | None
    fouls: tuple[str, ...]
    points: int
    penalty: int
    score: tuple[int, int]
    racks: tuple[int, int]
    next_player: int | None
    in_hand: str | None
    ball_on: str | None
    groups: tuple[str | None, str | None]
    on_table: tuple[str, ...]
    respotted: tuple[dict[str, str], ...]
    options: tuple[str, ...]
    chooser: int | None
    awaiting: str | None
    consecutive_fouls: tuple[int, int]
    warning: tuple[bool, bool]
    legal_break: bool | None
    push_out_allowed: bool
    rerack: dict[str, Any] | None
    rack_over: bool
    winner: int | None
    end_reason: str | None
    match_over: bool
    match_winner: int | None
    needs_one: bool
    defaults: tuple[str, ...]
    stats: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {f.name: (list(getattr(self, f.name)) if isinstance(getattr(self, f.name), tuple)
                         else getattr(self, f.name)) for f in fields(self)}


def new_match(game: str, variant_name: str | None = None) -> MatchState:
    """An empty match of ``game`` under the named variant (WPA when None)."""
    if game not in GAMES:
        raise ValueError(f"game must be one of {', '.join(GAMES)}, got {game!r}")
    return MatchState(game, variant(variant_name))


def _new_rack(m: MatchState, number: int, breaker: int, keep: RackState | None = None
              ) -> RackState:
    """Seed 004 I.2, I.5: the balls racked, the breaker's cue ball in hand behind the head
    string. A 14.1 re-break keeps the points and the fouls."""
    r = RackState(m.game, number, breaker, breaker, rack_balls(m.game))
    if keep is not None:
        r = replace(r, points=keep.points, fouls=keep.fouls, warned=keep.warned,
                    shots=keep.shots, opponent_in=keep.opponent_in)
    return r


def _next_breaker(m: MatchState) -> int:
    """The match's break order: the lag's winner first, then alternate breaks or the last
    rack's winner breaks."""
    r = m.rack
    if r is None:
        return m.first_breaker or 0
    if m.break_order == "winner" and r.winner is not None:
        return r.winner
    return 1 - r.breaker


def _stat(m: MatchState, player: int, **add: int) -> MatchState:
    s = [list(m.stats[0]), list(m.stats[1])]
    for k, v in add.items():
        i = STAT_KEYS.index(k)
        s[player][i] = max(s[player][i], v) if k == "high_run" else s[player][i] + v
    return replace(m, stats=(tuple(s[0]), tuple(s[1])))


def _finish(m: MatchState, r: RackState, winner: int, reason: str) -> MatchState:
    """A rack decided: the winner's racks (14.1: the game is the match), break-and-runs (the
    breaker won and the opponent never came to the table) and the match when raced."""
    r = replace(r, over=True, winner=winner, end_reason=reason, options=(), chooser=None,
                call=None)
    m = replace(m, rack=r)
    if m.game == "14.1":
        return replace(m, over=True, winner=winner)
    racks = list(m.racks)
    racks[winner] += 1
    m = _stat(m, winner, racks=1, break_and_runs=int(winner == r.breaker and not r.opponent_in
                                                      and reason not in ("concede",
                                                                         "three_fouls")))
    m = replace(m, racks=(racks[0], racks[1]))
    if m.race_to is not None and racks[winner] >= m.race_to:
        m = replace(m, over=True, winner=winner)
    return m


def _end_inning(m: MatchState, r: RackState, player: int) -> tuple[MatchState, RackState]:
    """The striker's inning ends: innings and the run for the stats."""
    m = _stat(m, player, innings=1, high_run=r.run)
    return m, replace(r, run=0)


def _choose(m: MatchState, choice: str) -> tuple[MatchState, list[str]]:
    """The awaited choice (seed 004 I.19(a); WPA 9-Ball "Push Out"; WPA 8-Ball "Illegal
    Break", "8-Ball Pocketed on the Break"; WPA 10-Ball "Call Shot"; WPA 14.1 "Opening
    Break"): ``play`` the chooser shoots the table as it lies, ``pass`` the other player does,
    ``spot`` the 8 is spotted and the chooser shoots, ``rerack`` the chooser breaks a new
    rack, ``rebreak`` the other player does."""
    r = m.rack
    if r is None or not r.options:
        raise ValueError(f"no choice is awaited (got {choice!r})")
    if choice not in r.options:
        raise ValueError(f"choice must be one of {', '.join(r.options)} here, got {choice!r}")
    chooser = r.chooser if r.chooser is not None else r.striker
    respot: list[str] = []
    if choice in ("rerack", "rebreak"):
        breaker = chooser if choice == "rerack" else 1 - chooser
        keep = r if m.game == "14.1" else None
        return replace(m, rack=_new_rack(m, r.number, breaker, keep)), respot
    striker = 1 - chooser if choice == "pass" else chooser
    on_table = r.on_table
    if choice == "spot":
        on_table = by_number((*on_table, eightball.EIGHT))
        respot = [eightball.EIGHT]
    r = replace(r, striker=striker, options=(), chooser=None, context=None, on_table=on_table)
    return replace(m, rack=r), respot


# the choice taken when a shot comes instead of one: the first of these that lets the player
# who shot be the striker (any, when the record does not say who shot)
_DEFAULT_ORDER = ("play", "spot", "pass", "rerack", "rebreak")


def _default_choice(m: MatchState, player: int | None
                    ) -> tuple[MatchState, str, list[str]]:
    """A shot while a choice is awaited: the player who shot made the choice that lets him
    shoot ("play" when the record does not say who shot)."""
    r = m.rack
    chooser = r.chooser if r.chooser is not None else r.striker
    shooter = {"play": chooser, "spot": chooser, "rerack": chooser, "pass": 1 - chooser,
               "rebreak": 1 - chooser}
    picks = [o for o in _DEFAULT_ORDER if o in r.options
             and (player is None or shooter[o] == player)]
    pick = picks[0] if picks else r.options[0]
    m, respot = _choose(m, pick)
    return m, pick, respot


def _check_shot(r: RackState, s: Shot) -> None:
    """The balls a shot names must be on the table; the player, when given, the striker."""
    on = set(r.on_table)
    named = [p.ball for p in s.potted] + list(s.off_table)
    if s.first_contact is not None:
        named.append(s.first_contact)
    missing = sorted({b for b in named if b != "cue" and b not in on}, key=int)
    if missing:
        raise ValueError(f"ball(s) {', '.join(missing)} not on the table "
                         f"(on the table: {', '.join(r.on_table) or 'none'})")
    if r.call is not None and r.call.ball is not None and r.call.ball not in on:
        raise ValueError(f"called ball {r.call.ball} is not on the table")


def _apply_shot(m: MatchState, s: Shot) -> tuple[MatchState, dict[str, Any]]:
    defaults: list[str] = []
    respot: list[str] = []
    if m.rack is None or m.rack.over:
        if m.over:
            raise ValueError("the match is over")
        number = 1 if m.rack is None else m.rack.number + 1
        m = replace(m, rack=_new_rack(m, number, _next_breaker(m)))
        defaults.append("no rack record: a new rack taken as set up")
    r = m.rack
    if r.options:
        # a shot while a choice is awaited: the player who shoots made it
        m, pick, respot = _default_choice(m, s.player)
        r = m.rack
        defaults.append(f"no choice given: {pick} taken")
    if s.player is not None and s.player != r.striker:
        raise ValueError(f"player {s.player} shot but player {r.striker} is to shoot")
    _check_shot(r, s)
    v = m.variant
    game = _MODULES[m.game]
    p = r.striker
    call = r.call
    j: Judgement = game.judge(r, s, call, v)
    applies = v.three_foul_8ball if m.game == "8ball" else v.three_foul
    fouls, warned, third = count_foul(r, p, bool(j.fouls), j.counts, v, applies)
    if third:
        if m.game == "14.1":
            straight.third_foul(j, p, v)
        else:
            game.third_foul(j, p)
    unsporting(j, s, m.game, p)
    gone = set(s.object_potted()) | {b for b in s.off_table if b != "cue"}
    on_table = j.on_table if j.on_table is not None else by_number(
        (set(r.on_table) - gone) | set(j.spotted))
    # balls made on a foul or a push-out do not count (seed 004 I.11; WPA 9-Ball "Push Out")
    pushed = call is not None and call.push_out
    legal_balls = 0 if j.fouls or pushed else len(s.object_potted())
    if m.game == "14.1":
        legal_balls = j.points
    points = list(r.points)
    points[p] += j.points - j.penalty
    groups = j.groups if j.groups is not None else r.groups
    last = list(r.last_pockets)
    if j.last_pocket is not None:
        last[p] = j.last_pocket
    r = replace(r, on_table=on_table, breaking=False, push_out=j.push_out, groups=groups,
                opponent_in=r.opponent_in or p != r.breaker,
                points=(points[0], points[1]), fouls=fouls, warned=warned, call=None,
                last_pockets=(last[0], last[1]), run=r.run + legal_balls, shots=r.shots + 1,
                opening=False)
    m = _stat(m, p, balls=legal_balls, fouls=int(bool(j.fouls)))
    res = {"player": p, "legal": not j.fouls, "fouls": tuple(j.fouls), "points": j.points,
           "penalty": j.penalty, "respotted": tuple(respot_order(respot + j.spotted)),
           "legal_break": j.legal_break, "rerack": j.rerack,
           "defaults": tuple(defaults + j.defaults)}
    if j.rebreak_by is not None:
        m, r = _end_inning(m, r, p)
        m = replace(m, rack=_new_rack(m, r.number, j.rebreak_by, r))
        return m, res
    if j.winner is not None:
        m, r = _end_inning(m, r, p)
        return _finish(m, r, j.winner, j.end_reason or "won"), res
    if m.game == "14.1" and m.race_to is not None and r.points[p] >= m.race_to:
        m, r = _end_inning(m, r, p)
        return _finish(m, r, p, "points_reached"), res
    if j.turn_over:
        m, r = _end_inning(m, r, p)
        r = replace(r, striker=1 - p)
    if j.options:
        r = replace(r, options=j.options, chooser=j.chooser, context=j.context)
    r = replace(r, in_hand=j.in_hand)
    return replace(m, rack=r), res


def _ball_on(m: MatchState) -> str | None:
    """The next striker's ball on: 9-ball and 10-ball the lowest ball; 8-ball "open", a group
    or "8"; 14.1 any ball (None)."""
    r = m.rack
    if r is None or r.over:
        return None
    if m.game in ("9ball", "10ball"):
        return _lowest(r.on_table)
    if m.game == "8ball":
        if r.breaking:
            return "break"
        if eightball.on_the_eight(r, r.striker):
            return "8"
        return r.groups[r.striker] or "open"
    return None


def _start(m: MatchState, rec: Match | Lag | Rack) -> MatchState:
    started = m.rack is not None
    if isinstance(rec, Match):
        if started:
            raise ValueError("a match record must come before the first rack")
        if rec.game is not None and rec.game != m.game:
            raise ValueError(f"the records are for {rec.game} but the referee plays {m.game}")
        return replace(m, players=rec.players or m.players, race_to=rec.race_to or m.race_to,
                       break_order=rec.break_order or m.break_order,
                       variant=variant(rec.variant or m.variant.name.split("+")[0], rec.rules)
                       if (rec.variant or rec.rules) else m.variant)
    if isinstance(rec, Lag):
        if started:
            raise ValueError("the lag must come before the first rack")
        w = _lag_winner(rec)
        if w is None:
            return m
        return replace(m, first_breaker=w if rec.winner_breaks else 1 - w)
    if m.over:
        raise ValueError("the match is over")
    if m.rack is not None and not m.rack.over:
        raise ValueError(f"rack {m.rack.number} is still in play"
                         + (f" (a choice is awaited: {', '.join(m.rack.options)})"
                            if m.rack.options else ""))
    number = 1 if m.rack is None else m.rack.number + 1
    breaker = rec.breaker if rec.breaker is not None else _next_breaker(m)
    return replace(m, rack=_new_rack(m, number, breaker))


def apply(m: MatchState, record: Record | Mapping[str, Any]) -> tuple[MatchState, Result]:
    """One record through the referee: the new state and what the referee says."""
    if not isinstance(m, MatchState):
        raise TypeError("state must be a MatchState (see new_match)")
    rec = record if not isinstance(record, Mapping) else parse_record(record)
    res: dict[str, Any] = {}
    kind = RECORD_TYPES[type(rec)]
    if isinstance(rec, (Match, Lag, Rack)):
        m = _start(m, rec)
        if isinstance(rec, Lag):
            res["defaults"] = () if _lag_winner(rec) is not None else ("lag to be played again",)
    elif m.rack is None or (m.rack.over and not isinstance(rec, Shot)):
        raise ValueError(f"a {kind} record needs a rack in play")
    elif isinstance(rec, Shot):
        m, res = _apply_shot(m, rec)
    elif isinstance(rec, Call):
        if m.rack.options:
            raise ValueError(f"a choice is awaited first: {', '.join(m.rack.options)}")
        if rec.push_out and not (m.rack.push_out and m.game in ("9ball", "10ball")):
            raise ValueError("a push-out may only be called in 9-ball or 10-ball on the shot "
                             "after the break")
        m = replace(m, rack=replace(m.rack, call=rec))
    elif isinstance(rec, Choice):
        m, respot = _choose(m, rec.choice)
        res["respotted"] = tuple(respot_order(respot))
    elif isinstance(rec, FoulWarning):
        if m.rack.fouls[rec.player] != 2:
            raise ValueError(f"player {rec.player} is not on two fouls")
        w = list(m.rack.warned)
        w[rec.player] = True
        m = replace(m, rack=replace(m.rack, warned=(w[0], w[1])))
    elif isinstance(rec, Concede):
        m = _finish(m, m.rack, 1 - rec.player, "concede")
    elif isinstance(rec, Interference):
        res["defaults"] = ("balls moved by interference put back as they stood",)
    return m, _result(m, kind, res)


def _result(m: MatchState, kind: str, res: dict[str, Any]) -> Result:
    r = m.rack
    over = r is not None and r.over
    next_player = None if r is None or over else (
        r.chooser if r.options and r.chooser is not None else r.striker)
    ball_on = _ball_on(m)
    needs_one = (m.game == "14.1" and next_player is not None
                 and m.race_to is not None and r.points[next_player] == m.race_to - 1)
    return Result(
        type=kind, game=m.game, variant=m.variant.name,
        rack=0 if r is None else r.number, shot=0 if r is None else r.shots,
        player=res.get("player"), legal=res.get("legal"), fouls=res.get("fouls", ()),
        points=res.get("points", 0), penalty=res.get("penalty", 0),
        score=(0, 0) if r is None else r.points, racks=m.racks, next_player=next_player,
        in_hand=None if r is None or over or r.options else r.in_hand,
        ball_on=ball_on, groups=(None, None) if r is None else r.groups,
        on_table=() if r is None else r.on_table, respotted=res.get("respotted", ()),
        options=() if r is None else r.options, chooser=None if r is None else r.chooser,
        awaiting="choice" if r is not None and r.options else None,
        consecutive_fouls=(0, 0) if r is None else r.fouls,
        warning=(False, False) if r is None else r.warned,
        legal_break=res.get("legal_break"),
        push_out_allowed=r is not None and r.push_out and not over,
        rerack=res.get("rerack"), rack_over=over,
        winner=None if r is None else r.winner, end_reason=None if r is None else r.end_reason,
        match_over=m.over, match_winner=m.winner, needs_one=needs_one,
        defaults=res.get("defaults", ()),
        stats={"players": list(m.players), "race_to": m.race_to,
               **{k: [m.stats[0][i], m.stats[1][i]] for i, k in enumerate(STAT_KEYS)}},
    )


class Referee:
    """Live use: ``Referee("8ball").feed(record) -> dict``, one record at a time."""

    def __init__(self, game: str = "8ball", variant_name: str | None = None) -> None:
        self.state = new_match(game, variant_name)

    def feed(self, record: Record | Mapping[str, Any]) -> dict[str, Any]:
        self.state, result = apply(self.state, record)
        return result.as_dict()


def run_records(game: str, records: Iterable[Record | Mapping[str, Any]],
                variant_name: str | None = None) -> list[dict[str, Any]]:
    """Every record through a new referee of ``game``; one result dict per record."""
    ref = Referee(game, variant_name)
    return [ref.feed(r) for r in records]
