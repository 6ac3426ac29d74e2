"""14.1 continuous (WPA World Standardized Rules, 14.1 Continuous; seed 004 part I where it
names 14.1): the judgement of one shot. Each legally pocketed ball is a point; the player who
reaches the match's points wins. Citations "WPA 14.1: <heading>"."""

from __future__ import annotations

from tracker.rules.pool.records import CUE, Call, Shot
from tracker.rules.pool.rules import (
    KITCHEN,
    Judgement,
    RackState,
    by_number,
    called_ball_made,
    called_fouls,
    cue_ball_fouls,
    off_table_fouls,
    stroke_fouls,
)
from tracker.rules.pool.variants import Variant

BALLS = tuple(str(n) for n in range(1, 16))
OPENING_RAIL_BALLS = 2  # WPA 14.1 "Opening Break": two object balls and the cue ball to a cushion
BREAKING_VIOLATION = 2  # WPA 14.1 "Opening Break": two points for each breaking violation
FOUL_POINTS = 1  # WPA 14.1 "Fouls"; seed 004 I.19(a): one point a foul
THREE_FOUL_EXTRA = 15  # seed 004 I.19(a): 18 points in all for three fouls; WPA: 15 more


def _opening(rack: RackState, shot: Shot, call: Call | None, v: Variant) -> Judgement:
    """WPA 14.1 "Opening Break": a called ball pocketed, or the cue ball and two object balls
    to a cushion; else a breaking violation: two points off, the opponent accepts the table or
    has the breaker break again; a scratch on a legal opening break is a one-point foul with
    the cue ball in hand behind the head string. Seed 004 I.19: neither counts toward three
    fouls."""
    j = Judgement(counts=False)
    p = rack.striker
    cue_fouls = called_fouls(shot) + cue_ball_fouls(shot)
    off_obj = [b for b in shot.off_table if b != CUE]
    made = (call is not None and call.ball is not None
            and called_ball_made(shot, call, j.defaults) is not None)
    rails = shot.cue_rail is not False and (shot.break_rail_balls or 0) >= OPENING_RAIL_BALLS
    if shot.cue_rail is None and rails:
        j.defaults.append("cue_rail not given: the cue ball taken as reaching a cushion")
    if shot.break_rail_balls is None and not made:
        j.defaults.append("break_rail_balls not given: the opening break taken as legal")
        rails = True
    j.legal_break = made or rails
    if not j.legal_break:
        j.fouls = ["breaking_violation", *cue_fouls]
        j.penalty = BREAKING_VIOLATION
        j.spotted = list(shot.object_potted()) + off_obj
        j.options, j.chooser, j.context = ("play", "rebreak"), 1 - p, "opening_break"
        j.in_hand = KITCHEN if cue_ball_fouls(shot) else None
        return j
    j.fouls = cue_fouls + (off_table_fouls(shot) if v.off_table_foul_14_1 else [])
    j.spotted = list(off_obj)
    if j.fouls or not made:
        j.penalty = FOUL_POINTS if j.fouls else 0
        j.spotted += list(shot.object_potted())
        j.in_hand = KITCHEN if cue_ball_fouls(shot) else None
        return j
    j.points = len(shot.object_potted())
    j.turn_over = False
    return j


def _rack_positions(shot: Shot, remaining: tuple[str, ...], cue_in_hand: bool
                    ) -> dict[str, str | int | None]:
    """WPA 14.1 "Racking" (the table of the 15th ball and the cue ball): with one object ball
    left the other 14 are racked without the apex ball; the 15th stays unless it lies in the
    rack, then it goes on the head spot (the centre spot when the cue ball is on the head
    spot); the cue ball in the rack is taken in hand behind the head string. With none left
    all 15 are racked."""
    areas = dict(shot.areas)
    cue_area = "kitchen" if cue_in_hand else areas.get(CUE, "table")
    out: dict[str, str | int | None] = {"balls": 14 if remaining else 15,
                                        "break_ball": remaining[0] if remaining else None,
                                        "break_ball_spot": None}
    if remaining and areas.get(remaining[0], "table") == "rack":
        out["break_ball_spot"] = "centre_spot" if cue_area == "head_spot" else "head_spot"
    out["cue"] = "in_hand_kitchen" if cue_in_hand or cue_area == "rack" else "in_place"
    return out


def judge(rack: RackState, shot: Shot, call: Call | None, v: Variant) -> Judgement:
    """One 14.1 shot: any ball may be hit first; a foul costs a point and its pocketed balls
    are spotted (seed 004 I.19(a), I.21(b); WPA 14.1 "Fouls"), the cue ball in hand behind the
    head string only after a scratch or off the table (I.21(c)); a safety must be declared and
    its pocketed balls are spotted (I.22.1); a called ball made scores a point for every ball
    pocketed (WPA 14.1 "Scoring"); balls off the table are spotted (I.17) and are a foul or not
    by the variant (I.18(e)); with one ball or none left the balls are re-racked."""
    if call is not None and call.push_out:
        raise ValueError("there is no push-out in 14.1")
    if rack.opening:
        j = _opening(rack, shot, call, v)
    else:
        j = Judgement()
        j.fouls = stroke_fouls(shot, frozenset(rack.on_table), j.defaults,
                               off_table_foul=v.off_table_foul_14_1)
        j.spotted = [b for b in shot.off_table if b != CUE]
        safety = call is not None and call.safety
        made = (not j.fouls and not safety
                and called_ball_made(shot, call, j.defaults) is not None)
        if not made:
            j.penalty = FOUL_POINTS if j.fouls else 0
            j.spotted += list(shot.object_potted())
            j.in_hand = KITCHEN if cue_ball_fouls(shot) else None
        else:
            j.points = len(shot.object_potted())
            j.turn_over = False
    gone = set(shot.object_potted()) | set(shot.off_table)
    left = by_number((set(rack.on_table) - gone) | set(j.spotted))
    if len(left) <= 1 and not j.options:
        j.rerack = _rack_positions(shot, left, j.in_hand == KITCHEN)
        j.on_table = BALLS
        j.spotted = []
        if j.rerack["cue"] == "in_hand_kitchen":
            j.in_hand = KITCHEN
    return j


def third_foul(j: Judgement, striker: int, v: Variant) -> None:
    """Seed 004 I.19(a); WPA 14.1 "Three Consecutive Fouls": fifteen points more off, then
    all fifteen balls are racked and the offender breaks as at the start (WPA), or the
    opponent may ask for that (seed 004)."""
    j.penalty += THREE_FOUL_EXTRA
    if v.rebreak_after_three_fouls == "must":
        j.rerack, j.on_table = None, None
        j.rebreak_by = striker
    else:
        j.options, j.chooser, j.context = ("rebreak", "play"), 1 - striker, "three_fouls"
