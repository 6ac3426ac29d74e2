"""The general rules of pocket billiards (seed 004 part I, "A Pocket-biliárd általános
szabályai"; the WPA World Standardized Rules' General Rules and Fouls), shared by every game.

Citations: "I.18(c)" is seed 004 part I rule 18(c); "WPA Fouls: ..." names a heading of the
WPA rules' Fouls section; a game's own heading is cited as "WPA 8-Ball: ...".
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tracker.rules.pool.records import CUE, Call, Lag, Shot
from tracker.rules.pool.variants import Variant

# Seed 004 I.5, I.6; WPA General Rules: the break is played from behind the head string.
KITCHEN = "kitchen"
ANYWHERE = "anywhere"


@dataclass(frozen=True)
class RackState:
    """One rack in play.

    ``on_table``: object balls on the table, in number order; ``breaking``: the next shot is
    the rack's break; ``in_hand``: the next shot's cue ball is in hand "anywhere" or in the
    "kitchen" (None: it is played where it lies); ``push_out``: the next shot may be a push-out
    (9-ball, 10-ball); ``groups``: each player's 8-ball group ("solids", "stripes") or None
    while the table is open; ``points``: 14.1 points; ``fouls``: consecutive fouls per player;
    ``warned``: told of a second foul (seed 004 I.19); ``options``: the choices ``chooser`` may
    make about ``context``; ``call``: the declaration for the next shot; ``last_pockets``: the
    pocket of each player's last group ball (8-ball, last-pocket variant); ``opening``: 14.1's
    opening break is still due; ``opponent_in``: the breaker's opponent has been at the table
    (no break-and-run); ``run``: balls pocketed in the current inning."""

    game: str
    number: int
    breaker: int
    striker: int
    on_table: tuple[str, ...]
    breaking: bool = True
    in_hand: str | None = KITCHEN
    push_out: bool = False
    groups: tuple[str | None, str | None] = (None, None)
    points: tuple[int, int] = (0, 0)
    fouls: tuple[int, int] = (0, 0)
    warned: tuple[bool, bool] = (False, False)
    options: tuple[str, ...] = ()
    chooser: int | None = None
    context: str | None = None
    call: Call | None = None
    last_pockets: tuple[str | None, str | None] = (None, None)
    opening: bool = True
    opponent_in: bool = False
    run: int = 0
    shots: int = 0
    over: bool = False
    winner: int | None = None
    end_reason: str | None = None


@dataclass
class Judgement:
    """What a game's rules make of one shot, before the common bookkeeping. A local builder,
    never kept in a state.

    ``fouls``: foul reasons; ``counts``: the fouls count toward three in a row; ``points`` and
    ``penalty``: 14.1 points won and lost; ``spotted``: balls put back on the table;
    ``turn_over``: the striker's inning ends; ``in_hand``: the next shot's cue ball;
    ``options``/``chooser``/``context``: a choice awaited; ``winner``/``end_reason``: the rack
    is decided; ``groups``: 8-ball groups after the shot; ``defaults``: what was assumed for lack
    of a call or a fact; ``rerack``: 14.1's re-rack; ``legal_break``: the break's requirements
    were met (None: no break); ``push_out``: the next shot may be a push-out;
    ``last_pocket``: the pocket of the striker's last group ball (8-ball); ``rebreak_by``: the
    rack is set up again and this player breaks; ``on_table``: the balls after a re-rack."""

    fouls: list[str] = field(default_factory=list)
    counts: bool = True
    points: int = 0
    penalty: int = 0
    spotted: list[str] = field(default_factory=list)
    turn_over: bool = True
    in_hand: str | None = None
    options: tuple[str, ...] = ()
    chooser: int | None = None
    context: str | None = None
    winner: int | None = None
    end_reason: str | None = None
    groups: tuple[str | None, str | None] | None = None
    defaults: list[str] = field(default_factory=list)
    rerack: dict | None = None
    legal_break: bool | None = None
    push_out: bool = False
    safety: bool = False
    last_pocket: str | None = None
    rebreak_by: int | None = None
    on_table: tuple[str, ...] | None = None


def by_number(balls) -> tuple[str, ...]:
    """Object balls in number order."""
    return tuple(sorted(set(balls), key=int))


def lowest(on_table: tuple[str, ...]) -> str | None:
    """WPA 9-Ball "Legal Shot": the lowest-numbered ball on the table is the ball on."""
    return min(on_table, key=int) if on_table else None


def called_fouls(shot: Shot) -> list[str]:
    """Seed 004 I.3, I.9, I.10, I.13-I.15, I.18(f), (h), (i), (k)-(n), I.23.3-4; WPA Fouls:
    the fouls a referee calls (touched ball, double hit, push shot, feet, balls moving,
    placement, a jump by a miscue, ...), carried by the shot record."""
    return list(shot.foul)


def cue_ball_fouls(shot: Shot) -> list[str]:
    """Seed 004 I.18(c), (d), I.23.2(a); WPA Fouls: Cue Ball Scratch or off the Table."""
    out = []
    if shot.scratch:
        out.append("cue_ball_scratch")
    if CUE in shot.off_table:
        out.append("cue_ball_off_table")
    return out


def first_contact_fouls(shot: Shot, ball_on: frozenset[str]) -> list[str]:
    """Seed 004 I.18(a); WPA Fouls: Wrong Ball First: the cue ball must first hit a ball on
    (``ball_on``: every ball the striker may hit first); hitting nothing is a foul in every
    game."""
    if shot.first_contact is None:
        return ["no_ball_hit"]
    if shot.first_contact not in ball_on:
        return ["wrong_ball_first"]
    return []


def rail_fouls(shot: Shot, defaults: list[str]) -> list[str]:
    """Seed 004 I.12, I.18(b), (g), (j), I.22.1; WPA Fouls: No Rail after Contact: after the
    first contact a ball must be pocketed or some ball (the cue ball included) must reach a
    cushion; a ball frozen to a cushion counts only at another cushion (the eyes say so in
    ``rail_after_contact``). Not seen: taken as reached, and said."""
    if shot.first_contact is None or shot.object_potted() or shot.scratch:
        return []
    if shot.rail_after_contact is None:
        defaults.append("rail_after_contact not given: taken as reached")
        return []
    return [] if shot.rail_after_contact else ["no_rail_after_contact"]


def off_table_fouls(shot: Shot) -> list[str]:
    """Seed 004 I.17, I.18(e), I.23.2(a); WPA Fouls: Ball Driven off the Table: an object ball
    that comes to rest off the table (not one back by itself or off the lamp, I.23.2(b), (c))."""
    return ["object_ball_off_table"] if any(b != CUE for b in shot.off_table) else []


def stroke_fouls(shot: Shot, ball_on: frozenset[str], defaults: list[str],
                 off_table_foul: bool = True) -> list[str]:
    """Every foul of one ordinary stroke under part I (seed 004 I.18 (a)-(n)), in order:
    called, cue ball, first contact, rail, object ball off the table."""
    out = called_fouls(shot) + cue_ball_fouls(shot) + first_contact_fouls(shot, ball_on)
    out += rail_fouls(shot, defaults) if not out else []
    if off_table_foul:
        out += off_table_fouls(shot)
    return out


def called_ball_made(shot: Shot, call: Call | None, defaults: list[str]) -> str | None:
    """WPA General Rules "Standard Call Shot" (10-Ball, 14.1 "Call Shot"): the called ball in
    the called pocket; a call without a pocket takes the pocket the ball went in; no call: the
    ball hit first counts as called (an obvious shot). The ball made, or None."""
    potted = shot.object_potted()
    if call is not None and call.ball is not None:
        if call.ball not in potted:
            return None
        if call.pocket is None:
            defaults.append(f"pocket for {call.ball} not called: the pocket it went in "
                            "taken as called")
            return call.ball
        return call.ball if shot.pocket_of(call.ball) == call.pocket else None
    if potted:
        defaults.append("no call: the ball hit first taken as called in the pocket it went in")
    return shot.first_contact if shot.first_contact in potted else None


def break_requirement_met(shot: Shot, rail_balls: int, defaults: list[str]) -> bool:
    """WPA 8-Ball "Legal Break Shot", WPA 9-Ball and 10-Ball "Legal Break": a ball pocketed, or
    at least ``rail_balls`` object balls driven to a cushion. Not counted by the eyes: taken as
    met, and said."""
    if shot.object_potted():
        return True
    if shot.break_rail_balls is None:
        defaults.append("break_rail_balls not given: the break taken as legal")
        return True
    return shot.break_rail_balls >= rail_balls


def in_hand_after_foul(v: Variant) -> str:
    """Seed 004 I.21(c); WPA Fouls: after a foul the incoming player has the cue ball in hand,
    anywhere (WPA) or behind the head string (house variant)."""
    return v.in_hand


def count_foul(rack: RackState, player: int, fouled: bool, counts: bool, v: Variant,
               applies: bool) -> tuple[tuple[int, int], tuple[bool, bool], bool]:
    """Seed 004 I.19; WPA Three Consecutive Fouls: each foul is recorded; a legal shot clears
    the striker's count; a third foul in a row is punished only if the player was warned after
    the second (the result's warning, or a ``warning`` record when ``auto_warning`` is off).
    Returns (fouls, warned, third). ``counts`` False: a foul that is not counted (14.1's
    opening break, seed 004 I.19)."""
    fouls = list(rack.fouls)
    warned = list(rack.warned)
    third = False
    if not fouled:
        fouls[player], warned[player] = 0, False
    elif counts:
        fouls[player] += 1
        if fouls[player] >= 3:
            if applies and warned[player]:
                third = True
                fouls[player], warned[player] = 0, False
            else:
                fouls[player] = 2
    if applies and fouls[player] == 2 and v.auto_warning:
        warned[player] = True
    return (fouls[0], fouls[1]), (warned[0], warned[1]), third


def respot_order(balls) -> list[dict[str, str]]:
    """Seed 004 I.23.1; WPA General Rules "Spotting Balls": balls to be spotted go on the long
    string, the lowest number on the foot spot (or as near it as it is free) and the others
    behind it in number order."""
    out = []
    for i, b in enumerate(by_number(balls)):
        out.append({"ball": b, "spot": "foot_spot" if i == 0 else "long_string"})
    return out


UNSPORTING_14_1_POINTS = 15  # seed 004 I.24.3(a): fifteen points off in 14.1


def unsporting(j: Judgement, shot: Shot, game: str, striker: int) -> None:
    """Seed 004 I.20(c), I.24.3(a): a foul called unsporting conduct loses the rack in 8-ball
    and 9-ball (10-ball alike); in 14.1 it costs fifteen points and the balls are set up
    again unless the opponent plays on (a re-rack broken by the opponent)."""
    if "unsporting" not in shot.foul:
        return
    if game != "14.1":
        j.winner, j.end_reason = 1 - striker, "unsporting"
        return
    j.penalty = UNSPORTING_14_1_POINTS
    j.rerack, j.on_table, j.rebreak_by = None, None, None
    j.options, j.chooser, j.context = ("rerack", "play"), 1 - striker, "unsporting"


def lag_winner(lag: Lag) -> int | None:
    """Seed 004 I.4; WPA General Rules "Lag for Break": a player who fouls the lag loses it; if
    both foul or the referee cannot tell, the lag is played again (None); else the ball nearer
    the head rail wins."""
    if len(lag.fouls) == 1:
        return 1 - lag.fouls[0]
    if len(lag.fouls) == 2 or lag.nearer is None:
        return None
    return lag.nearer
