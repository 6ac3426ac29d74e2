"""8-ball (WPA World Standardized Rules, 8-Ball; seed 004 part I where it names 8-ball): the
judgement of one shot. Citations "WPA 8-Ball: <heading>"."""

from __future__ import annotations

from tracker.rules.pool.records import Call, Shot
from tracker.rules.pool.rules import (
    KITCHEN,
    Judgement,
    RackState,
    break_requirement_met,
    called_fouls,
    cue_ball_fouls,
    in_hand_after_foul,
    off_table_fouls,
    stroke_fouls,
)
from tracker.rules.pool.variants import Variant

BALLS = tuple(str(n) for n in range(1, 16))
EIGHT = "8"
GROUPS = ("solids", "stripes")
BREAK_RAIL_BALLS = 4  # WPA 8-Ball "Legal Break Shot"


def group_of(ball: str) -> str | None:
    """WPA 8-Ball "Object of the Game": 1-7 solids, 9-15 stripes; the 8 is neither."""
    n = int(ball)
    return "solids" if n < 8 else "stripes" if n > 8 else None


def other(group: str) -> str:
    return GROUPS[1 - GROUPS.index(group)]


def balls_on(rack: RackState, player: int) -> frozenset[str]:
    """WPA 8-Ball "Open Table", "Legal Shot": on an open table any ball but the 8 may be hit
    first; with groups decided, a ball of one's own group, or the 8 once the group is
    cleared."""
    g = rack.groups[player]
    if g is None:
        on = frozenset(b for b in rack.on_table if b != EIGHT)
    else:
        on = frozenset(b for b in rack.on_table if group_of(b) == g)
    return on or frozenset({EIGHT})


def on_the_eight(rack: RackState, player: int) -> bool:
    """WPA 8-Ball "Object of the Game": the player shoots at the 8 once his group is off."""
    return rack.groups[player] is not None and balls_on(rack, player) == {EIGHT}


def _pocket_matches(shot: Shot, call: Call | None, ball: str, j: Judgement) -> bool:
    """WPA 8-Ball "Call Shot": the called ball in the called pocket; a call without a pocket,
    or no call (an obvious shot), takes the pocket it went in."""
    if call is None or call.pocket is None:
        j.defaults.append(f"pocket for {ball} not called: the pocket it went in taken as called")
        return True
    return shot.pocket_of(ball) == call.pocket


def _break(rack: RackState, shot: Shot, v: Variant) -> Judgement:
    """WPA 8-Ball "Legal Break Shot", "Scratch on a Legal Break", "8-Ball Pocketed on the
    Break", "Jumped Object Balls on the Break"; house variants for the 8 on the break."""
    j = Judgement()
    p = rack.striker
    j.fouls = called_fouls(shot) + cue_ball_fouls(shot) + off_table_fouls(shot)
    if shot.first_contact is None:
        j.fouls.append("no_ball_hit")
    cue_foul = bool(cue_ball_fouls(shot))
    if v.respot_jumped:
        j.spotted = [b for b in shot.off_table if b not in ("cue", EIGHT)]
    if EIGHT in shot.object_potted() or EIGHT in shot.off_table:
        if v.eight_on_break == "wins":
            j.winner, j.end_reason = (1 - p, "eight_on_break_with_foul") if j.fouls else (
                p, "eight_on_break")
        elif v.eight_on_break == "rerack":
            j.options, j.chooser, j.context = ("rerack",), p, "eight_on_break"
        else:
            j.options, j.context = ("spot", "rerack"), "eight_on_break"
            j.chooser = 1 - p if j.fouls else p
            j.in_hand = KITCHEN if j.fouls else None
        return j
    j.legal_break = break_requirement_met(shot, BREAK_RAIL_BALLS, j.defaults)
    if not j.legal_break:
        j.fouls.append("illegal_break")
        j.options, j.chooser, j.context = ("play", "rerack", "rebreak"), 1 - p, "illegal_break"
        j.in_hand = KITCHEN if cue_foul else None
        return j
    if j.fouls:
        j.in_hand = KITCHEN
        return j
    j.turn_over = not shot.object_potted()
    return j


def judge(rack: RackState, shot: Shot, call: Call | None, v: Variant) -> Judgement:
    """One 8-ball shot: the break, the loss of the game with the 8 (WPA 8-Ball "Losing the
    Game"; seed 004 I.23.1: the 8 pocketed on a foul or a safety loses), fouls (seed 004 I.18,
    I.21; WPA 8-Ball "Fouls"), groups (WPA 8-Ball "Open Table", "Choice of Group") and whether
    the inning goes on (WPA 8-Ball "Continuing Play")."""
    if call is not None and call.push_out:
        raise ValueError("there is no push-out in 8-ball")
    if rack.breaking:
        return _break(rack, shot, v)
    p = rack.striker
    j = Judgement()
    potted = shot.object_potted()
    on = balls_on(rack, p)
    at_eight = on_the_eight(rack, p)
    j.fouls = stroke_fouls(shot, on, j.defaults)
    if rack.groups[p] is None and shot.first_contact == EIGHT:
        j.fouls = [f if f != "wrong_ball_first" else "eight_first_on_open_table"
                   for f in j.fouls]
    safety = call is not None and call.safety
    if EIGHT in potted or EIGHT in shot.off_table:
        j.winner, j.end_reason = 1 - p, _eight_loss(rack, shot, call, j, at_eight, safety, v)
        if j.end_reason is None:
            j.winner, j.end_reason = p, "eight_pocketed"
        return j
    if at_eight and v.scratch_on_eight_loses and cue_ball_fouls(shot):
        j.winner, j.end_reason = 1 - p, "scratch_on_eight"
        return j
    if j.fouls:
        j.in_hand = in_hand_after_foul(v)
        if v.respot_jumped:
            theirs = rack.groups[1 - p]
            j.spotted = [b for b in shot.off_table if b != "cue" and group_of(b) != theirs]
        return j
    if safety or not potted:
        return j
    group = rack.groups[p]
    made = _made(shot, call, group, j)
    if made is None:
        return j
    if group is None:
        j.groups = (made, other(made)) if p == 0 else (other(made), made)
    mine = [b for b in potted if group_of(b) == made]
    if mine and set(b for b in rack.on_table if group_of(b) == made) <= set(potted):
        j.last_pocket = shot.pocket_of(mine[-1])
    j.turn_over = False
    return j


def _made(shot: Shot, call: Call | None, group: str | None, j: Judgement) -> str | None:
    """WPA 8-Ball "Call Shot", "Choice of Group": the group of the called ball when it went in
    its pocket (on an open table it decides the groups); None when the inning ends. No call:
    the ball hit first counts as called if it went in, else the balls pocketed when they are
    of one group (an obvious shot)."""
    potted = [b for b in shot.object_potted() if b != EIGHT]
    if call is not None and call.ball is not None:
        ok = call.ball in potted and _pocket_matches(shot, call, call.ball, j)
        g = group_of(call.ball)
        return g if ok and (group is None or g == group) else None
    if group is not None:
        mine = [b for b in potted if group_of(b) == group]
        if mine:
            j.defaults.append("no call: a ball of the group pocketed taken as called")
        return group if mine else None
    if shot.first_contact in potted:
        j.defaults.append(f"no call: {shot.first_contact}, hit first, taken as called")
        return group_of(shot.first_contact)
    groups = {group_of(b) for b in potted}
    if len(groups) == 1:
        j.defaults.append("no call: the balls pocketed, all of one group, taken as called")
        return groups.pop()
    return None


def _eight_loss(rack: RackState, shot: Shot, call: Call | None, j: Judgement, at_eight: bool,
                safety: bool, v: Variant) -> str | None:
    """WPA 8-Ball "Losing the Game": the 8 pocketed on a foul, before the group is cleared or
    with its last ball, in a pocket not called, or off the table; seed 004 I.23.1: on a safety;
    the last-pocket house rule. None: the 8 was pocketed to win."""
    p = rack.striker
    if EIGHT in shot.off_table:
        return "eight_off_table"
    if not at_eight:
        mine = rack.groups[p]
        left = [b for b in rack.on_table if mine is not None and group_of(b) == mine]
        if left and set(left) <= set(shot.object_potted()):
            return "eight_with_last_group_ball"
        return "eight_early"
    if j.fouls:
        return "eight_with_foul"
    if safety:
        return "eight_on_safety"
    if call is not None and call.ball not in (None, EIGHT):
        return "eight_not_called"
    if not _pocket_matches(shot, call, EIGHT, j):
        return "eight_wrong_pocket"
    if v.last_pocket and rack.last_pockets[p] is not None \
            and shot.pocket_of(EIGHT) != rack.last_pockets[p]:
        return "eight_not_last_pocket"
    return None


def third_foul(j: Judgement, striker: int) -> None:
    """Seed 004 I.19(c): no loss of the game in 8-ball; a house variant may make it one."""
    j.winner, j.end_reason = 1 - striker, "three_fouls"
