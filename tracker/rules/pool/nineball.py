"""9-ball and 10-ball (WPA World Standardized Rules, 9-Ball and 10-Ball; seed 004 part I
where it names 9-ball): the judgement of one shot. The two games differ in the ball that wins
(the 9 or the 10), the 10 spotted after the break, and 10-ball's call shot. Citations
"WPA 9-Ball: <heading>", "WPA 10-Ball: <heading>"."""

from __future__ import annotations

from tracker.rules.pool.records import Call, Shot
from tracker.rules.pool.rules import (
    Judgement,
    RackState,
    break_requirement_met,
    called_ball_made,
    called_fouls,
    cue_ball_fouls,
    first_contact_fouls,
    in_hand_after_foul,
    lowest,
    off_table_fouls,
    stroke_fouls,
)
from tracker.rules.pool.variants import Variant

BREAK_RAIL_BALLS = 4  # WPA 9-Ball and 10-Ball "Legal Break": four balls to a cushion or a pot


def balls(game: str) -> tuple[str, ...]:
    """WPA 9-Ball "Racking": balls 1-9 in a diamond; WPA 10-Ball: 1-10 in a triangle."""
    return tuple(str(n) for n in range(1, 11 if game == "10ball" else 10))


def top_ball(game: str) -> str:
    """The ball that wins the rack: the 9 or the 10."""
    return "10" if game == "10ball" else "9"


def _spot_top(shot: Shot, top: str, j: Judgement) -> None:
    """Seed 004 I.17, I.23.1, I.23.2(a); WPA 9-Ball "Spotting Balls": the 9 (10) pocketed or
    off the table without winning goes back on the foot spot; no other ball is spotted."""
    if top in shot.object_potted() or top in shot.off_table:
        j.spotted.append(top)


def _break(rack: RackState, shot: Shot, v: Variant) -> Judgement:
    """WPA 9-Ball and 10-Ball "Legal Break": the 1 hit first and a ball pocketed or four driven
    to a cushion, else a foul; the 9 pocketed on a legal break wins (WPA 9-Ball), the 10 is
    spotted (WPA 10-Ball "10-Ball Pocketed on the Break"); the next shot may be a push-out."""
    j = Judgement(push_out=True)
    p = rack.striker
    top = top_ball(rack.game)
    on = frozenset({lowest(rack.on_table)})
    j.fouls = (called_fouls(shot) + cue_ball_fouls(shot) + first_contact_fouls(shot, on)
               + off_table_fouls(shot))
    j.legal_break = break_requirement_met(shot, BREAK_RAIL_BALLS, j.defaults)
    if not j.legal_break:
        j.fouls.append("illegal_break")
    if j.fouls:
        _spot_top(shot, top, j)
        j.in_hand = in_hand_after_foul(v)
        return j
    if top in shot.object_potted() and rack.game == "9ball":
        j.winner, j.end_reason = p, "nine_on_break"
        return j
    _spot_top(shot, top, j)
    j.turn_over = not shot.object_potted()
    return j


def _push_out(rack: RackState, shot: Shot, v: Variant) -> Judgement:
    """WPA 9-Ball "Push Out": on the shot after the break the striker may push out: no ball need
    be hit nor reach a cushion; balls pocketed stay down but the 9 (10), which is spotted; the
    other fouls still count; without a foul the opponent plays or passes the shot back."""
    j = Judgement()
    j.fouls = called_fouls(shot) + cue_ball_fouls(shot) + off_table_fouls(shot)
    _spot_top(shot, top_ball(rack.game), j)
    if j.fouls:
        j.in_hand = in_hand_after_foul(v)
    else:
        j.options, j.chooser, j.context = ("play", "pass"), 1 - rack.striker, "push_out"
    return j


def judge(rack: RackState, shot: Shot, call: Call | None, v: Variant) -> Judgement:
    """One 9-ball or 10-ball shot: the lowest ball first (seed 004 I.18(a); WPA 9-Ball "Legal
    Shot"), a pot or a cushion after contact (I.12, I.18(b)), every ball legally pocketed
    counts (WPA 9-Ball "Continuing Play"; 10-Ball: the called ball only, WPA 10-Ball "Call
    Shot"), the 9 (10) wins when legally pocketed, after a foul ball in hand (I.21(c))."""
    if rack.breaking:
        return _break(rack, shot, v)
    if call is not None and call.push_out:
        if not rack.push_out:
            raise ValueError("a push-out may only be called on the shot after the break")
        return _push_out(rack, shot, v)
    p = rack.striker
    top = top_ball(rack.game)
    j = Judgement()
    j.fouls = stroke_fouls(shot, frozenset({lowest(rack.on_table)}), j.defaults)
    if j.fouls:
        _spot_top(shot, top, j)
        j.in_hand = in_hand_after_foul(v)
        return j
    potted = shot.object_potted()
    if call is not None and call.safety:
        _spot_top(shot, top, j)
        return j
    if not potted:
        return j
    if rack.game == "9ball":
        if top in potted:
            j.winner, j.end_reason = p, "nine_pocketed"
        j.turn_over = False
        return j
    made = called_ball_made(shot, call, j.defaults)
    if made == top:
        j.winner, j.end_reason = p, "ten_pocketed"
        return j
    _spot_top(shot, top, j)
    if made is None:
        # WPA 10-Ball "Call Shot": a ball pocketed but not the one called: the opponent plays
        # or hands the shot back
        j.options, j.chooser, j.context = ("play", "pass"), 1 - p, "not_called"
        return j
    j.turn_over = False
    return j


def third_foul(j: Judgement, striker: int) -> None:
    """Seed 004 I.19(b); WPA 9-Ball "Three Consecutive Fouls": the third foul in a row, after
    the warning, loses the rack."""
    j.winner, j.end_reason = 1 - striker, "three_fouls"
