"""Typed records for the pool referee, checked when built (docs/FORMATS.md, "Pool shot records").

``parse_record(dict) -> Record`` turns one JSON object into one record and raises ValueError
naming the bad field. Ball ids are ``cue`` and ``"1"`` to ``"15"`` (numbers are accepted);
pockets and cushions are named as by the pool eyes (docs/FORMATS.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

GAMES = ("8ball", "9ball", "10ball", "14.1")
CUE = "cue"
OBJECT_BALLS = tuple(str(n) for n in range(1, 16))
BALLS = (CUE, *OBJECT_BALLS)
POCKETS = ("head_left", "head_right", "side_left", "side_right", "foot_left", "foot_right")
# Where a ball came to rest, as 14.1's re-rack asks (WPA 14.1 "Racking"): the rack's triangle,
# the head spot, behind the head string (the kitchen), or elsewhere on the table.
AREAS = ("rack", "head_spot", "kitchen", "table")
BREAK_ORDERS = ("alternate", "winner")
CHOICES = ("play", "pass", "rerack", "rebreak", "spot")

# Fouls that a referee (or the camera's finer eyes) calls and a shot record carries by name,
# each with the rule behind it (seed 004 part I; WPA "Fouls").
CALLED_FOULS = {
    "not_cue_tip": "seed 004 I.3: the cue ball struck with anything but the cue's tip",
    "no_foot_on_floor": "seed 004 I.9, I.18(h); WPA Fouls: No Foot on Floor",
    "balls_moving": "seed 004 I.10, I.18(i); WPA Fouls: Balls Still Moving",
    "touched_ball": "seed 004 I.13, I.18(f); WPA Fouls: Touched Ball",
    "double_hit": "seed 004 I.14, I.18(m); WPA Fouls: Double Hit / Frozen Balls",
    "push_shot": "seed 004 I.14, I.18(m); WPA Fouls: Push Shot",
    "illegal_jump": "seed 004 I.15, I.18(k): jumping a ball by a miscue under the cue ball",
    "frozen_third_ball": "seed 004 I.18(l): a third ball moved playing a frozen cue ball",
    "bad_cue_ball_placement": "seed 004 I.18(n); WPA Fouls: Bad Cue Ball Placement",
    "not_past_head_string": "seed 004 I.6; WPA Fouls: Bad Play from Behind the Head String",
    "marking_table": "seed 004 I.23.3: marks on the cloth or rail",
    "measuring": "seed 004 I.23.4: a ball or the rack used to measure a gap",
    "cue_on_table": "WPA Fouls: Cue Stick on the Table",
    "out_of_turn": "WPA Fouls: Playing out of Turn",
    "unsporting": "seed 004 I.20(c), I.24.3: unsporting conduct",
}


@dataclass(frozen=True)
class Match:
    """A match's settings, before its first rack: ``race_to`` racks (points in 14.1),
    ``break_order`` "alternate" or "winner", ``variant`` a name of ``variants.VARIANTS`` and
    ``rules`` overrides of its fields, ``game`` checked against the engine's game."""

    players: tuple[str, str] | None = None
    race_to: int | None = None
    break_order: str | None = None
    variant: str | None = None
    rules: tuple[tuple[str, Any], ...] = ()
    game: str | None = None


@dataclass(frozen=True)
class Lag:
    """Seed 004 I.4: the lag for the opening break. ``fouls`` the players who lost it at once
    (crossed into the other half, missed the foot rail, pocketed, jumped, touched a long rail,
    stopped in the pocket), ``nearer`` whose ball stopped nearer the head rail (None: the
    referee cannot tell), ``winner_breaks`` the winner's choice."""

    fouls: tuple[int, ...] = ()
    nearer: int | None = None
    winner_breaks: bool = True


@dataclass(frozen=True)
class Rack:
    """A rack is set up and broken by ``breaker`` (None: by the match's break order)."""

    breaker: int | None = None


@dataclass(frozen=True)
class Pot:
    ball: str
    pocket: str | None = None


@dataclass(frozen=True)
class Shot:
    """What one stroke did, as the eyes see it.

    ``potted``: balls pocketed (a ball that jumped back out of a pocket is not one, seed 004
    I.7, I.23.2(d)); ``off_table``: balls that came to rest off the table (the cue ball
    included; a ball back on the table by itself or from the lamp is not, I.23.2(b), (c));
    ``rail_after_contact``: a ball reached a cushion after the cue ball's first contact (a ball
    frozen to a cushion counts only when it reached another, I.18(g), (j)); None = not seen;
    ``break_rail_balls``: object balls driven to a cushion on a break; ``cue_rail``: the cue ball
    reached a cushion (14.1's opening break); ``foul``: fouls called by name
    (``CALLED_FOULS``); ``areas``: where the cue ball and the last object ball rest, for
    14.1's re-rack; ``player``: who played, checked against the striker."""

    first_contact: str | None = None
    potted: tuple[Pot, ...] = ()
    off_table: tuple[str, ...] = ()
    rail_after_contact: bool | None = None
    break_rail_balls: int | None = None
    cue_rail: bool | None = None
    foul: tuple[str, ...] = ()
    areas: tuple[tuple[str, str], ...] = ()
    player: int | None = None

    @property
    def scratch(self) -> bool:
        return any(p.ball == CUE for p in self.potted)

    def object_potted(self) -> tuple[str, ...]:
        return tuple(p.ball for p in self.potted if p.ball != CUE)

    def pocket_of(self, ball: str) -> str | None:
        for p in self.potted:
            if p.ball == ball:
                return p.pocket
        return None


@dataclass(frozen=True)
class Call:
    """What the striker declared before the next shot (a camera cannot see it): the ``ball``
    and ``pocket`` called, a ``safety``, a ``push_out``."""

    ball: str | None = None
    pocket: str | None = None
    safety: bool = False
    push_out: bool = False


@dataclass(frozen=True)
class Choice:
    """The choice the rules give a player: ``play`` (the table as it lies), ``pass`` (hand
    the shot back), ``rerack`` (re-rack and break), ``rebreak`` (the offender breaks again),
    ``spot`` (8-ball: spot the 8 and go on)."""

    choice: str


@dataclass(frozen=True)
class FoulWarning:
    """Seed 004 I.19; WPA Three Consecutive Fouls: ``player``, on two fouls, was warned."""

    player: int


@dataclass(frozen=True)
class Concede:
    player: int


@dataclass(frozen=True)
class Interference:
    """Seed 004 I.23.2(e): balls moved by outside interference are put back; play goes on."""


Record = Match | Lag | Rack | Shot | Call | Choice | FoulWarning | Concede | Interference
# each record's ``type`` in JSON
RECORD_TYPES = {Match: "match", Lag: "lag", Rack: "rack", Shot: "shot", Call: "call",
                Choice: "choice", FoulWarning: "warning", Concede: "concede",
                Interference: "interference"}


def _player(v: Any, field: str) -> int:
    if v not in (0, 1) or isinstance(v, bool):
        raise ValueError(f"{field} must be 0 or 1, got {v!r}")
    return int(v)


def ball_id(v: Any, field: str, allow_cue: bool = True) -> str:
    """A ball id from ``"cue"``, ``"7"`` or ``7``."""
    if isinstance(v, int) and not isinstance(v, bool):
        v = str(v)
    if not isinstance(v, str) or v not in BALLS:
        raise ValueError(f"{field} must be a ball (cue or 1 to 15), got {v!r}")
    if v == CUE and not allow_cue:
        raise ValueError(f"{field} cannot be the cue ball")
    return v


def _pocket(v: Any, field: str) -> str | None:
    if v is None:
        return None
    if v not in POCKETS:
        raise ValueError(f"{field} must be one of {', '.join(POCKETS)}, got {v!r}")
    return v


def _bool(v: Any, field: str, default: bool | None = False) -> bool | None:
    if v is None:
        return default
    if not isinstance(v, bool):
        raise ValueError(f"{field} must be true or false, got {v!r}")
    return v


def _list(v: Any, field: str) -> list:
    if v is None:
        return []
    if not isinstance(v, (list, tuple)):
        raise ValueError(f"{field} must be a list, got {v!r}")
    return list(v)


def _pots(v: Any) -> tuple[Pot, ...]:
    out = []
    for it in _list(v, "potted"):
        if isinstance(it, Mapping):
            unknown = set(it) - {"ball", "pocket"}
            if unknown:
                raise ValueError(f"unknown potted field(s): {', '.join(sorted(unknown))}")
            out.append(Pot(ball_id(it.get("ball"), "potted.ball"),
                           _pocket(it.get("pocket"), "potted.pocket")))
        else:
            out.append(Pot(ball_id(it, "potted")))
    balls = [p.ball for p in out]
    if len(set(balls)) != len(balls):
        raise ValueError(f"potted names a ball twice: {balls}")
    return tuple(out)


def _check_unknown(d: Mapping[str, Any], known: set[str], what: str) -> None:
    unknown = set(d) - known - {"type"}
    if unknown:
        raise ValueError(f"unknown {what} field(s): {', '.join(sorted(unknown))}")


def _shot(d: Mapping[str, Any]) -> Shot:
    _check_unknown(d, {"first_contact", "potted", "off_table", "rail_after_contact",
                       "break_rail_balls", "cue_rail", "foul", "areas", "player", "shot",
                       "t"}, "shot")
    fc = d.get("first_contact")
    potted = _pots(d.get("potted"))
    off = tuple(ball_id(b, "off_table") for b in _list(d.get("off_table"), "off_table"))
    if len(set(off)) != len(off):
        raise ValueError(f"off_table names a ball twice: {list(off)}")
    both = {p.ball for p in potted} & set(off)
    if both:
        raise ValueError(f"a ball both potted and off the table: {sorted(both)}")
    brb = d.get("break_rail_balls")
    if brb is not None and (not isinstance(brb, int) or isinstance(brb, bool)
                            or not 0 <= brb <= 15):
        raise ValueError(f"break_rail_balls must be an integer 0 to 15, got {brb!r}")
    fouls = d.get("foul")
    fouls = [fouls] if isinstance(fouls, str) else _list(fouls, "foul")
    for f in fouls:
        if f not in CALLED_FOULS:
            raise ValueError(f"foul must be one of {', '.join(CALLED_FOULS)}, got {f!r}")
    areas = d.get("areas") or {}
    if not isinstance(areas, Mapping):
        raise ValueError(f"areas must be an object {{ball: area}}, got {areas!r}")
    for k, a in areas.items():
        ball_id(k, "areas")
        if a not in AREAS:
            raise ValueError(f"areas[{k!r}] must be one of {', '.join(AREAS)}, got {a!r}")
    player = d.get("player")
    return Shot(
        first_contact=None if fc is None else ball_id(fc, "first_contact", allow_cue=False),
        potted=potted, off_table=off,
        rail_after_contact=_bool(d.get("rail_after_contact"), "rail_after_contact", None),
        break_rail_balls=brb,
        cue_rail=_bool(d.get("cue_rail"), "cue_rail", None),
        foul=tuple(dict.fromkeys(fouls)),
        areas=tuple(sorted((ball_id(k, "areas"), a) for k, a in areas.items())),
        player=None if player is None else _player(player, "player"),
    )


def _match(d: Mapping[str, Any]) -> Match:
    _check_unknown(d, {"players", "race_to", "break_order", "variant", "rules", "game"}, "match")
    players = d.get("players")
    if players is not None:
        if (not isinstance(players, (list, tuple)) or len(players) != 2
                or not all(isinstance(p, str) for p in players)):
            raise ValueError(f"players must be two names, got {players!r}")
        players = (players[0], players[1])
    race = d.get("race_to")
    if race is not None and (not isinstance(race, int) or isinstance(race, bool) or race < 1):
        raise ValueError(f"race_to must be a positive integer, got {race!r}")
    order = d.get("break_order")
    if order is not None and order not in BREAK_ORDERS:
        raise ValueError(f"break_order must be one of {BREAK_ORDERS}, got {order!r}")
    variant = d.get("variant")
    if variant is not None and not isinstance(variant, str):
        raise ValueError(f"variant must be a name, got {variant!r}")
    rules = d.get("rules") or {}
    if not isinstance(rules, Mapping):
        raise ValueError(f"rules must be an object of variant fields, got {rules!r}")
    game = d.get("game")
    if game is not None and game not in GAMES:
        raise ValueError(f"game must be one of {', '.join(GAMES)}, got {game!r}")
    return Match(players, race, order, variant, tuple(sorted(rules.items())), game)


def parse_record(d: Mapping[str, Any]) -> Record:
    """One JSON object to a typed record; ValueError says what is wrong."""
    if not isinstance(d, Mapping):
        raise ValueError(f"a record must be a JSON object, got {type(d).__name__}")
    kind = d.get("type")
    if kind == "shot":
        return _shot(d)
    if kind == "call":
        _check_unknown(d, {"ball", "pocket", "safety", "push_out"}, "call")
        ball = d.get("ball")
        call = Call(None if ball is None else ball_id(ball, "ball", allow_cue=False),
                    _pocket(d.get("pocket"), "pocket"), bool(_bool(d.get("safety"), "safety")),
                    bool(_bool(d.get("push_out"), "push_out")))
        if call.push_out and (call.safety or call.ball is not None):
            raise ValueError("a push-out is called alone, without a ball or a safety")
        return call
    if kind == "choice":
        _check_unknown(d, {"choice"}, "choice")
        if d.get("choice") not in CHOICES:
            raise ValueError(f"choice must be one of {', '.join(CHOICES)}, got "
                             f"{d.get('choice')!r}")
        return Choice(d["choice"])
    if kind == "rack":
        _check_unknown(d, {"breaker"}, "rack")
        b = d.get("breaker")
        return Rack(None if b is None else _player(b, "breaker"))
    if kind == "match":
        return _match(d)
    if kind == "lag":
        _check_unknown(d, {"fouls", "nearer", "winner_breaks"}, "lag")
        fouls = tuple(sorted({_player(p, "fouls") for p in _list(d.get("fouls"), "fouls")}))
        nearer = d.get("nearer")
        return Lag(fouls, None if nearer is None else _player(nearer, "nearer"),
                   bool(_bool(d.get("winner_breaks"), "winner_breaks", True)))
    if kind == "warning":
        _check_unknown(d, {"player"}, "warning")
        return FoulWarning(_player(d.get("player"), "player"))
    if kind == "concede":
        _check_unknown(d, {"player"}, "concede")
        return Concede(_player(d.get("player"), "player"))
    if kind == "interference":
        return Interference()
    raise ValueError(f"unknown record type {kind!r} (expected match, lag, rack, call, shot, "
                     "choice, warning, concede or interference)")
