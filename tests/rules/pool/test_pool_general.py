"""The general rules of seed 004 part I and WPA Fouls, shared by every game; the records."""

from __future__ import annotations

import pytest
from pool_support import at, one, play, shot

from tracker.rules.pool.match import new_match
from tracker.rules.pool.records import Lag, parse_record
from tracker.rules.pool.rules import lag_winner, respot_order
from tracker.rules.pool.variants import variant

NINE = dict(game="9ball")


@pytest.mark.parametrize("rec,fouls", [
    (shot("1", rail_after_contact=True), []),
    (shot(None), ["no_ball_hit"]),
    (shot("3", rail_after_contact=True), ["wrong_ball_first"]),
    (shot("1", rail_after_contact=False), ["no_rail_after_contact"]),
    (shot("1", ["cue", "2"]), ["cue_ball_scratch"]),
    (shot("1", off_table=["cue"], rail_after_contact=True), ["cue_ball_off_table"]),
    (shot("1", off_table=["4"], rail_after_contact=True), ["object_ball_off_table"]),
    (shot("1", rail_after_contact=True, foul="touched_ball"), ["touched_ball"]),
    (shot("1", rail_after_contact=True, foul=["double_hit"]), ["double_hit"]),
    (shot("1", rail_after_contact=True, foul="push_shot"), ["push_shot"]),
    (shot("1", rail_after_contact=True, foul="illegal_jump"), ["illegal_jump"]),
    (shot("1", rail_after_contact=True, foul="balls_moving"), ["balls_moving"]),
    (shot("1", rail_after_contact=True, foul="no_foot_on_floor"), ["no_foot_on_floor"]),
    (shot("1", rail_after_contact=True, foul="bad_cue_ball_placement"),
     ["bad_cue_ball_placement"]),
    (shot("1", rail_after_contact=True, foul="not_cue_tip"), ["not_cue_tip"]),
], ids=["I.12 legal: ball on first then a rail", "I.18(a) no ball hit",
        "I.18(a) wrong ball first", "I.12 I.18(b) no rail after contact",
        "I.18(c) cue ball pocketed", "I.18(d) cue ball off the table",
        "I.18(e) object ball off the table", "I.13 I.18(f) touched ball",
        "I.14 I.18(m) double hit", "I.14 push shot", "I.15 I.18(k) jump by a miscue",
        "I.10 I.18(i) balls moving", "I.9 I.18(h) no foot on the floor",
        "I.18(n) cue ball placed outside the kitchen", "I.3 not the cue's tip"])
def test_fouls_of_a_stroke(rec, fouls):
    """Seed 004 I.18 (a)-(n), WPA Fouls: every foul is named; a foul gives the opponent the
    cue ball in hand (I.21(a), (c))."""
    m, r = one(at(**NINE), rec)
    assert r["fouls"] == fouls
    assert r["legal"] is (not fouls)
    if fouls:
        assert r["next_player"] == 1 and r["in_hand"] == "anywhere"


def test_a_pot_needs_no_rail():
    """Seed 004 I.12: a pocketed ball makes the shot legal without a rail."""
    _, r = one(at(**NINE), shot("1", ["1"], rail_after_contact=False))
    assert r["legal"] and r["next_player"] == 0


def test_rail_not_seen_is_assumed_and_said():
    """Issue 48 item 5: what the eyes did not give is assumed and the result says so."""
    _, r = one(at(**NINE), shot("1"))
    assert r["legal"] and any("rail_after_contact" in d for d in r["defaults"])


def test_foul_ball_in_hand_behind_the_head_string_by_variant():
    """Seed 004 I.21(c) / WPA: anywhere; the "bar" house variant: behind the head string."""
    _, r = one(at(variant_name="bar", **NINE), shot(None))
    assert r["in_hand"] == "kitchen"


@pytest.mark.parametrize("balls,order", [
    (["9"], [("9", "foot_spot")]),
    (["12", "3", "7"], [("3", "foot_spot"), ("7", "long_string"), ("12", "long_string")]),
], ids=["I.23.1 one ball on the foot spot", "I.23.1 several in number order on the long string"])
def test_respot_order(balls, order):
    assert [(d["ball"], d["spot"]) for d in respot_order(balls)] == order


@pytest.mark.parametrize("lag,winner", [
    (Lag((), 0), 0), (Lag((), 1), 1), (Lag((0,), 0), 1), (Lag((0, 1), 0), None),
    (Lag((), None), None),
], ids=["I.4 nearer the head rail wins", "I.4 nearer the head rail wins (1)",
        "I.4 a lag foul loses the lag", "I.4 both foul: lag again",
        "I.4 undecided: lag again"])
def test_lag(lag, winner):
    assert lag_winner(lag) == winner


def test_lag_winner_breaks_the_first_rack():
    """Seed 004 I.4: the lag's winner chooses; here he lets the other break."""
    m, out = play(new_match("9ball"),
                  {"type": "lag", "nearer": 1, "winner_breaks": False}, {"type": "rack"})
    assert out[-1]["next_player"] == 0


def test_interference_changes_nothing():
    """Seed 004 I.23.2(e): balls moved by outside interference are put back; the striker
    plays on."""
    m = at(**NINE)
    m2, r = one(m, {"type": "interference"})
    assert m2 == m and r["next_player"] == 0 and r["defaults"]


@pytest.mark.parametrize("rec,msg", [
    ({"type": "shot", "first_contact": "16"}, "first_contact must be a ball"),
    ({"type": "shot", "first_contact": "cue"}, "cannot be the cue ball"),
    ({"type": "shot", "potted": "3"}, "potted must be a list"),
    ({"type": "shot", "potted": [{"ball": "3", "pocket": "corner"}]}, "pocket"),
    ({"type": "shot", "potted": ["3", 3]}, "twice"),
    ({"type": "shot", "potted": ["3"], "off_table": ["3"]}, "both potted and off"),
    ({"type": "shot", "foul": "sneezing"}, "foul must be one of"),
    ({"type": "shot", "break_rail_balls": -1}, "break_rail_balls"),
    ({"type": "shot", "areas": {"cue": "moon"}}, "areas"),
    ({"type": "shot", "bogus": 1}, "unknown shot field"),
    ({"type": "call", "push_out": True, "ball": "3"}, "push-out is called alone"),
    ({"type": "choice", "choice": "maybe"}, "choice must be"),
    ({"type": "match", "race_to": 0}, "race_to"),
    ({"type": "match", "game": "snooker"}, "game must be"),
    ({"type": "lag", "nearer": 2}, "nearer"),
    ({"type": "what"}, "unknown record type"),
    ([], "JSON object"),
])
def test_bad_records(rec, msg):
    with pytest.raises(ValueError, match=msg):
        parse_record(rec)


@pytest.mark.parametrize("rec,msg", [
    (shot("1", ["15"]), "not on the table"),
    (shot("1", player=1), "player 1 shot but player 0"),
    ({"type": "choice", "choice": "play"}, "no choice is awaited"),
    ({"type": "warning", "player": 0}, "not on two fouls"),
    ({"type": "rack"}, "still in play"),
    ({"type": "call", "push_out": True}, "push-out may only"),
])
def test_records_that_do_not_fit_the_state(rec, msg):
    with pytest.raises(ValueError, match=msg):
        one(at(**NINE), rec)


@pytest.mark.parametrize("name,over,msg", [
    ("house", (), "variant must be"), ("wpa", (("colour", True),), "no variant field"),
    ("wpa", (("in_hand", "pocket"),), "in_hand must be"),
    ("wpa", (("last_pocket", 1),), "last_pocket must be"),
])
def test_bad_variants(name, over, msg):
    with pytest.raises(ValueError, match=msg):
        variant(name, over)


def test_variant_overrides_are_named():
    v = variant("wpa", (("last_pocket", True),))
    assert v.last_pocket and v.name == "wpa+last_pocket"


@pytest.mark.parametrize("game,expect", [
    ("8ball", ("lost",)), ("9ball", ("lost",)), ("14.1", ("points", -15)),
], ids=["I.24.3(a) unsporting conduct loses the 8-ball rack",
        "I.24.3(a) unsporting conduct loses the 9-ball rack",
        "I.24.3(a) unsporting conduct costs 15 points in 14.1, re-rack or play on"])
def test_unsporting_conduct(game, expect):
    _, r = one(at(game), shot(None, foul="unsporting"))
    if expect[0] == "lost":
        assert r["rack_over"] and r["winner"] == 1 and r["end_reason"] == "unsporting"
    else:
        assert r["score"] == [expect[1], 0] and r["options"] == ["rerack", "play"]
        assert r["chooser"] == 1


@pytest.mark.parametrize("game,balls", [("8ball", 15), ("9ball", 9), ("10ball", 10),
                                        ("14.1", 15)],
                         ids=["I.2 8-ball: fifteen balls", "I.2 WPA 9-Ball Racking: 1-9",
                              "WPA 10-Ball Racking: 1-10", "I.2 14.1: fifteen balls"])
def test_a_new_rack_is_broken_from_the_kitchen(game, balls):
    """Seed 004 I.2, I.5: the balls racked; the breaker's cue ball in hand behind the head
    string."""
    _, r = one(new_match(game), {"type": "rack", "breaker": 1})
    assert len(r["on_table"]) == balls and r["in_hand"] == "kitchen" and r["next_player"] == 1
