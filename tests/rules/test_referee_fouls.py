"""Fouls and their values, table-driven: every ball-on context against every kind of foul.

Each case names its rule (WPBSA 2024, shared/seeds/003): S3 R11(a) the ball on, S3 R11(b) the
higher of the ball on and the ball concerned, S3 R11(d) seven points, S3 R10(g) the highest of
several fouls, S3 R10(e) nothing scored on a foul stroke.
"""

from __future__ import annotations

import pytest
from referee_support import one, pen, shot, state_at, value

from tracker.rules.balls import COLOURS, colours_from

# (label, ball_on, reds, nominated, ball-on value, the legal first ball)
CONTEXTS = [("red", "red", 15, None, 1, "red"), ("last red", "red", 1, None, 1, "red")]
CONTEXTS += [(f"colour {c} nominated", "colour", 7, c, value(c), c) for c in COLOURS]
CONTEXTS += [(f"clearance on {c}", c, 0, None, value(c), c) for c in COLOURS]

BALL_ON_CALLS = ("double_hit", "jump_shot", "no_foot_on_floor", "wrong_in_hand_placement")
HIGHER_CALLS = ("push_stroke", "touched_ball", "balls_not_at_rest")
SEVEN_CALLS = ("ball_off_table_used", "measuring", "non_cue_ball", "no_nomination")


def _on_table(on, reds):
    return (COLOURS if reds or on in ("red", "colour") else colours_from(on)), reds


def _cases():
    for label, on, reds, nom, bov, legal in CONTEXTS:
        colours, _ = _on_table(on, reds)
        base = {"nominated": nom} if nom else {}
        ctx = (on, reds)
        yield (f"S3 R11(a) no ball hit, {label}", ctx, {**base, "first_contact": None},
               pen(bov), "no_ball_hit")
        yield (f"S3 R11(a) in-off, {label}", ctx,
               {**base, "first_contact": legal, "cue_potted": True}, pen(bov), "in_off")
        yield (f"S3 R11(a) white off the table, {label}", ctx,
               {**base, "first_contact": legal, "off_table": ["white"]}, pen(bov),
               "cue_ball_off_table")
        for call in BALL_ON_CALLS:
            yield (f"S3 R11(a) {call}, {label}", ctx,
                   {**base, "first_contact": legal, "foul": call}, pen(bov), call)
        for b in colours:
            if b == legal:
                continue
            yield (f"S3 R11(b) first hit {b} not on, {label}", ctx,
                   {**base, "first_contact": b}, pen(bov, value(b)), "wrong_ball_first")
            yield (f"S3 R11(b) potted {b} not on, {label}", ctx,
                   {**base, "first_contact": legal, "potted": [b]}, pen(bov, value(b)),
                   "potted_ball_not_on")
            yield (f"S3 R11(b) forced {b} off the table, {label}", ctx,
                   {**base, "first_contact": legal, "off_table": [b]}, pen(bov, value(b)),
                   "ball_off_table")
            for call in HIGHER_CALLS:
                yield (f"S3 R11(b) {call} concerning {b}, {label}", ctx,
                       {**base, "first_contact": legal, "foul": {"reason": call, "ball": b}},
                       pen(bov, value(b)), call)
        if reds and legal != "red":
            yield (f"S3 R11(b) a red hit first with a colour declared, {label}", ctx,
                   {**base, "first_contact": "red"}, pen(bov, 1), "wrong_ball_first")
        if reds and on != "red":
            yield (f"S3 R11(b) potted a red when on a colour, {label}", ctx,
                   {**base, "first_contact": legal, "potted": ["red"]}, pen(bov, 1),
                   "potted_ball_not_on")
        for call in SEVEN_CALLS:
            yield (f"S3 R11(d) {call} is seven, {label}", ctx,
                   {**base, "first_contact": legal, "foul": call}, 7, call)
        worst = max((b for b in colours if b != legal), key=value, default=None)
        if worst:
            yield (f"S3 R10(g) only the highest of several fouls, {label}", ctx,
                   {**base, "first_contact": None, "cue_potted": True, "potted": [worst]},
                   pen(bov, value(worst)),
                   "potted_ball_not_on" if value(worst) > max(4, bov) else "no_ball_hit")


CASES = list(_cases())


@pytest.mark.parametrize("ctx,record,points,reason",
                         [pytest.param(*c[1:], id=c[0]) for c in CASES])
@pytest.mark.parametrize("striker", [0, 1])
def test_foul_value(ctx, record, points, reason, striker):
    on, reds = ctx
    s0 = state_at(on, reds, striker=striker, score=(10, 20))
    s1, r = one(s0, shot(**record))
    assert r["foul"] == {"points": points, "reason": reason}
    assert r["points"] == 0  # S3 R10(e)
    other = 1 - striker
    expect = [10, 20]
    expect[other] += points
    assert r["score"] == expect
    assert r["player"] == striker
    if on == "black":  # S3 R4: with only the black left a foul ends the frame
        assert r["frame_over"] and r["winner"] == (0 if expect[0] > expect[1] else 1)
        assert r["end_reason"] == "foul_on_last_black"
        return
    assert r["next_player"] == other
    assert r["awaiting"] == "decision" and r["options"] == ["play", "put_back"]


@pytest.mark.parametrize("c", COLOURS)
def test_no_nomination_after_red_is_seven(c):
    """S3 R11(d): a foul after potting a red and before nominating a colour is seven."""
    _, r = one(state_at("colour", 5), shot(first_contact=None))
    assert r["foul"] == {"points": 7, "reason": "no_nomination"}


@pytest.mark.parametrize("c", COLOURS)
def test_colour_first_hit_is_the_nomination(c):
    """S3 R6: the colour first hit stands for the nomination when none was declared; the foul
    (an in-off) is then valued at that colour."""
    _, r = one(state_at("colour", 5), shot(first_contact=c, cue_potted=True))
    assert r["foul"] == {"points": pen(value(c)), "reason": "in_off"}


@pytest.mark.parametrize("on,reds,legal,pot", [
    ("red", 15, "red", ["red", "red"]), ("colour", 3, "pink", ["pink"]),
    ("blue", 0, "blue", ["blue"]),
])
def test_nothing_scored_on_a_foul_stroke(on, reds, legal, pot):
    """S3 R10(e): balls potted in a foul stroke score nothing; colours go back (S3 R7)."""
    nom = legal if on == "colour" else None
    s, r = one(state_at(on, reds, score=(30, 0)), shot(first_contact=legal, potted=pot,
                                                         cue_potted=True, nominated=nom))
    assert r["points"] == 0 and r["score"][0] == 30
    assert {x["class"] for x in r["respotted"]} == {b for b in pot if b != "red"}
    assert r["reds_left"] == reds - pot.count("red")
    assert r["in_hand"] is True


def test_unknown_foul_reason_is_an_input_error():
    """A reason the rules do not value is refused, not counted as a four-point foul."""
    with pytest.raises(ValueError, match="unknown reason 'something_else'"):
        one(state_at(), shot(first_contact="red", foul="something_else"))
    with pytest.raises(ValueError, match="unknown reason"):
        one(state_at(), shot(first_contact="red", foul=[{"reason": "x", "ball": "red"}]))
