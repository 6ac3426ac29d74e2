"""Calls the referee once got wrong, each against the rule it follows (WPBSA 2024, seed 003;
the English WPBSA text where seed 003 is silent)."""

from __future__ import annotations

import pytest
from referee_support import one, pen, play, shot, state_at, value

from tracker.rules.balls import COLOURS


@pytest.mark.parametrize("c", COLOURS, ids=[f"S3 R11(b) {c} nominated, red hit first"
                                             for c in COLOURS])
def test_red_hit_first_after_a_declared_colour_is_the_higher_value(c):
    """S3 R11(b): hitting a ball not on first is worth the ball on or the ball hit, the higher
    (at least four); the seven of S3 R11(d) is for playing at a red, not a declared colour."""
    _, r = one(state_at("colour", 5), shot(first_contact="red", nominated=c))
    assert r["foul"] == {"points": pen(value(c), 1), "reason": "wrong_ball_first"}


def test_red_hit_first_after_a_red_with_nothing_declared_is_seven():
    """S3 R11(d): playing at a red after a red with no colour declared is seven."""
    _, r = one(state_at("colour", 5), shot(first_contact="red"))
    assert r["foul"]["points"] == 7


@pytest.mark.parametrize("declared,first,foul", [
    ("black", None, 7), ("blue", None, None), (None, None, None), ("black", "black", None),
], ids=["S3 R8(c) touching blue, black declared, nothing hit: foul of the black",
        "S3 R8(c)(ii) touching blue, blue declared: play away, no foul",
        "S3 R8(c)(ii) touching blue, nothing declared: the blue taken as declared",
        "S3 R8(c)(iii) touching blue, black declared and hit first: no foul"])
def test_touching_a_colour_after_a_red(declared, first, foul):
    """S3 R8: playing away from a touching ball is no foul when it is on or declared on, or
    when another ball that could be on is declared and hit first; otherwise hitting nothing is
    a foul of the ball on."""
    s = state_at("colour", 5, touching="blue")
    rec = shot(first_contact=first, nominated=declared)
    _, r = one(s, rec)
    if foul is None:
        assert r["foul"] is None
    else:
        assert r["foul"] == {"points": foul, "reason": "no_ball_hit"}


def test_touching_a_red_when_a_free_ball_is_nominated():
    """S3 R8, R12: a free ball nominated other than the touching red: hitting nothing is a
    foul."""
    s = state_at("red", 5, touching="red", free_ball=True)
    _, r = one(s, shot(first_contact=None, nominated="pink"))
    assert r["foul"] == {"points": 4, "reason": "no_ball_hit"}


@pytest.mark.parametrize("on,reds,bov", [("red", 10, 1), ("pink", 0, 6), ("colour", 4, None)],
                         ids=["S3 R3(k) out of turn, red on", "S3 R3(k) out of turn, pink on",
                              "S3 R3(k) out of turn, a colour on"])
def test_stroke_out_of_turn_is_a_penalty_and_the_balls_replaced(on, reds, bov):
    """S3 R3(k): the non-striker plays out of turn: PENALTY (valued at the ball on, English
    S3 R11(a) "striking out of turn"), the balls moved replaced, the striker's turn goes on."""
    s = state_at(on, reds, score=(20, 5), striker=0, current_break=12)
    potted = ["red"] if reds else [on]
    _, r = one(s, shot(player=1, first_contact="red" if reds else on, potted=potted))
    assert r["foul"] == {"points": pen(bov), "reason": "played_out_of_turn"}
    assert r["player"] == 1 and r["points"] == 0
    assert r["score"] == [20 + pen(bov), 5]
    assert r["next_player"] == 0 and r["awaiting"] is None and r["options"] == []
    assert r["reds_left"] == reds and r["ball_on"] == on and r["break"] == 12
    assert not r["frame_over"]


def test_out_of_turn_keeps_the_strikers_break_going():
    s = state_at("red", 10, striker=0, current_break=12)
    s, _ = one(s, shot(player=1, first_contact=None))
    _, r = one(s, shot(player=0, first_contact="red", potted=["red"]))
    assert r["break"] == 13 and r["score"] == [5, 0] and r["reds_left"] == 9


def test_only_the_striker_may_claim_the_frame():
    """S2 R1 (English text: claimed by the striker; seed 003: by the player leading by more
    than seven): the player not at the table cannot claim."""
    s = state_at("black", 0, score=(50, 42), striker=1)
    with pytest.raises(ValueError, match="striker"):
        one(s, {"type": "claim", "player": 0})
    s = state_at("black", 0, score=(50, 42), striker=0)
    assert one(s, {"type": "claim", "player": 0})[1]["winner"] == 0


def test_only_the_striker_may_concede():
    """S4 R2 (English text: a player may concede only when he is the striker)."""
    s = state_at("black", 0, score=(0, 40), striker=1)
    with pytest.raises(ValueError, match="striker"):
        one(s, {"type": "concede", "player": 0})
    _, r = one(s, {"type": "concede", "player": 1})
    assert r["frame_over"] and r["winner"] == 0


def test_concession_void_when_the_opponent_plays_on():
    """S4 R2: the concession becomes void if the opponent chooses to play on: the frame goes on
    from where it stood."""
    s = state_at("pink", 0, score=(30, 50), striker=0, best_of=1)
    s, out = play(s, {"type": "concede", "player": 0}, {"type": "decision", "choice": "play"})
    assert out[0]["frame_over"] and out[0]["match_over"]
    r = out[1]
    assert not r["frame_over"] and not r["match_over"] and r["frames"] == [0, 0]
    assert r["score"] == [30, 50] and r["next_player"] == 0 and r["ball_on"] == "pink"
    assert r["end_reason"] == "concession_void"
    _, r = one(s, shot(first_contact="pink", potted=["pink"]))
    assert r["score"] == [36, 50]


def test_concession_stands_without_play_on():
    s = state_at("pink", 0, score=(30, 50), striker=0, best_of=3)
    s, _ = play(s, {"type": "concede", "player": 0}, {"type": "frame_start"})
    with pytest.raises(ValueError):
        one(s, {"type": "decision", "choice": "play"})


@pytest.mark.parametrize("on,reds,colours,free", [
    ("red", 5, COLOURS, "black"), ("yellow", 0, COLOURS, "black"),
    ("blue", 0, ("blue", "pink", "black"), "pink")],
    ids=["S3 R11(a) snookered behind the black as free ball, red on",
         "S3 R11(a) snookered behind the black as free ball, yellow on",
         "S3 R11(a) snookered behind the pink as free ball, blue on"])
def test_snookered_behind_the_free_ball_is_the_ball_on(on, reds, colours, free):
    """S3 R12 names the foul; its value is the ball on (English S3 R11(a): "causing a snooker
    with free ball" is among the fouls valued at the ball on), not the free ball's."""
    s = state_at(on, reds, colours=colours, free_ball=True)
    _, r = one(s, shot(first_contact=free, nominated=free, snookered_by=[free]))
    bov = 1 if on == "red" else value(on)
    assert r["foul"] == {"points": pen(bov), "reason": "snookered_behind_free_ball"}
