"""What the camera sees, given to the referee as facts in the shot record: a ball moved when
the white was not struck, a ball that fell from a pocket's edge after coming to rest, two first
contacts at the same moment, a push stroke flagged with a confidence."""

from __future__ import annotations

import pytest
from referee_support import one, pen, play, shot, state_at, value

from tracker.rules.records import parse_record

POS = {"white": (900.0, 500.0), "red_01": (889.0, 2900.0), "blue": (889.0, 1784.5),
       "pink": (889.0, 2676.75), "black": (889.0, 3245.0)}


@pytest.mark.parametrize("on,reds,moved,points", [
    ("red", 5, ["blue"], 5), ("red", 5, ["red"], 4), ("pink", 0, ["black"], 7),
    ("black", 0, ["white"], 7), ("colour", 5, ["yellow"], 7)],
    ids=["S3 R11(b) sleeve moves the blue, red on", "S3 R11(b) hand moves a red, red on",
         "S3 R11(b) cue moves the black, pink on", "S3 R11(b) touches the white, black on",
         "S3 R11(d) rest moves the yellow after a red, before a colour is declared"])
def test_ball_moved_without_a_stroke_is_a_foul_and_replaced(on, reds, moved, points):
    """S3 R11(b): touching a ball in play with the body, clothes or equipment: the higher of
    the ball on and the ball moved; the ball goes back where it stood (the white was not
    struck, so nothing else changed)."""
    s = state_at(on, reds, positions=POS, score=(10, 10))
    s1, r = one(s, shot(struck=False, disturbed=moved, positions={**POS, "blue": (700, 1700)}))
    assert r["foul"] == {"points": points, "reason": "touched_ball"}
    assert r["replaced"] == moved and r["points"] == 0
    if on == "black":  # S3 R4: the foul ends the frame with only the black left
        assert r["frame_over"] and r["winner"] == 1
        return
    assert r["next_player"] == 1 and r["awaiting"] == "decision"
    assert r["reds_left"] == reds and r["ball_on"] == ("red" if reds else on)
    assert s1.frame.table.positions == s.frame.table.positions


def test_ball_moved_without_a_stroke_ignores_what_the_record_says_potted():
    s = state_at("red", 5)
    _, r = one(s, shot(struck=False, disturbed=["red"], potted=["red"]))
    assert r["reds_left"] == 5 and r["foul"]["reason"] == "touched_ball"


def test_ball_moved_during_a_stroke_is_a_foul_where_it_lies():
    """S3 R11(b): the cue touching another ball in the stroke: a foul of the higher value."""
    _, r = one(state_at("red", 5), shot(first_contact="red", potted=["red"], disturbed=["pink"]))
    assert r["foul"] == {"points": 6, "reason": "touched_ball"} and r["points"] == 0


def test_a_record_not_struck_must_say_what_moved():
    with pytest.raises(ValueError, match="disturbed"):
        parse_record(shot(struck=False))
    with pytest.raises(ValueError, match="first_contact"):
        parse_record(shot(struck=False, disturbed=["red"], first_contact="red"))


@pytest.mark.parametrize("ball,on,reds", [("red", "red", 5), ("black", "red", 5),
                                          ("pink", "yellow", 0)],
                         ids=["IR ch.3 5 a red falls from the edge: replaced",
                              "IR ch.3 5 the black falls from the edge: replaced",
                              "IR ch.3 5 the pink falls from the edge in the clearance"])
def test_ball_falling_from_the_edge_after_coming_to_rest_is_replaced(ball, on, reds):
    """IR ch.3 5 (a ball that falls into a pocket from its edge by itself goes back; English
    text: not part of a stroke, replaced, the points scored before it count): no score, no
    foul, the ball stays on the table."""
    s = state_at(on, reds, score=(20, 3))
    _, r = one(s, shot(first_contact=on, fell_from_edge=[ball]))
    assert r["foul"] is None and r["points"] == 0 and r["replaced"] == [ball]
    assert r["reds_left"] == reds and ball in (r["colours_on_table"] + ["red"])
    assert r["next_player"] == 1


def test_ball_falling_from_the_edge_keeps_the_stroke_score():
    _, r = one(state_at("red", 5), shot(first_contact="red", potted=["red"],
                                        fell_from_edge=["red"]))
    assert r["points"] == 1 and r["reds_left"] == 4 and r["replaced"] == ["red"]


def test_fell_from_edge_and_potted_do_not_overlap():
    with pytest.raises(ValueError, match="fell_from_edge"):
        one(state_at("yellow", 0), shot(first_contact="yellow", potted=["yellow"],
                                        fell_from_edge=["yellow"]))


@pytest.mark.parametrize("on,reds,free,first,other,foul", [
    ("red", 5, False, "red", "red", None),
    ("red", 5, False, "red", "blue", ("simultaneous_hit", 5)),
    ("red", 5, False, "black", "red", ("simultaneous_hit", 7)),
    ("colour", 5, False, "pink", "black", ("simultaneous_hit", 7)),
    ("yellow", 0, False, "yellow", "green", ("simultaneous_hit", 4)),
    ("red", 5, True, "blue", "red", None),
    ("green", 0, True, "pink", "green", None),
    ("green", 0, True, "pink", "black", ("simultaneous_hit", 7)),
], ids=["English S3 R11(c) two reds at once, red on: fair",
        "English S3 R11(c) a red and the blue at once: the higher, 5",
        "English S3 R11(c) the black and a red at once: 7",
        "English S3 R11(c) pink declared, pink and black at once: 7",
        "English S3 R11(c) yellow and green at once, yellow on: 4",
        "English S3 R12 free ball blue and a red at once: fair",
        "English S3 R12 free ball pink and the green on at once: fair",
        "English S3 R11(c) free ball pink and the black at once: 7"])
def test_two_first_contacts_at_the_same_moment(on, reds, free, first, other, foul):
    """English S3 R11(c) (seed 003 is silent): hitting two balls at once is a foul of the ball
    on or the higher of the two, unless both are on (two reds) or they are the free ball and the
    ball on (S3 R12)."""
    nominated = first if (on == "colour" or free) else None
    s = state_at(on, reds, free_ball=free)
    _, r = one(s, shot(first_contact=first, simultaneous_contact=other, nominated=nominated))
    if foul is None:
        assert r["foul"] is None
    else:
        assert r["foul"] == {"points": foul[1], "reason": foul[0]}


@pytest.mark.parametrize("flag,conf,foul", [(True, 0.9, 6), (False, 0.2, None), (None, 0.4, None)],
                         ids=["S3 R11(b) push stroke flagged", "no push: the flag false",
                              "no flag: no push"])
def test_push_stroke_flag_with_its_confidence(flag, conf, foul):
    """S3 R11(b): a push stroke is a foul of the higher of the ball on and the ball concerned
    (here the pink hit); the camera's flag decides, its confidence goes into the result."""
    s = state_at("colour", 5)
    _, r = one(s, shot(first_contact="pink", nominated="pink", push_stroke=flag,
                       push_confidence=conf))
    assert r["push_confidence"] == conf
    if foul is None:
        assert r["foul"] is None
    else:
        assert r["foul"] == {"points": pen(value("pink")), "reason": "push_stroke"}


@pytest.mark.parametrize("bad,field", [
    (shot(push_confidence=1.5), "push_confidence"), (shot(push_confidence="high"),
                                                     "push_confidence"),
    (shot(simultaneous_contact="white"), "simultaneous_contact"), (shot(struck="no"), "struck"),
    (shot(disturbed="red"), "disturbed"), (shot(fell_from_edge=["white"]), "fell_from_edge"),
    (shot(push_stroke=1), "push_stroke"), (shot(simultaneous_contact="red"),
                                           "simultaneous_contact")])
def test_camera_fields_are_checked(bad, field):
    with pytest.raises(ValueError, match=field):
        parse_record(bad)


def test_old_records_parse_with_the_new_fields_defaulted():
    r = parse_record(shot(first_contact="red"))
    assert r.struck is True and r.disturbed == () and r.fell_from_edge == ()
    assert r.simultaneous_contact is None and r.push_stroke is None and r.push_confidence is None


def test_sleeve_foul_then_put_back():
    """S3 R10(h)-(i): after the sleeve foul the non-offender may put the offender back in."""
    s = state_at("red", 5, score=(0, 0))
    _, out = play(s, shot(struck=False, disturbed=["blue"]),
                  {"type": "decision", "choice": "put_back"},
                  shot(first_contact="red", potted=["red"]))
    assert out[-1]["score"] == [1, 5] and out[-1]["player"] == 0
