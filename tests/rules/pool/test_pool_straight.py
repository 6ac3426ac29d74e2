"""14.1 continuous: WPA 14.1 rules and seed 004 part I where it names 14.1."""

from __future__ import annotations

import pytest
from pool_support import at, call, one, play, shot


def opening(**kw):
    return at("14.1", breaking=True, in_hand="kitchen", **kw)


@pytest.mark.parametrize("recs,expect", [
    ([shot("1", cue_rail=True, break_rail_balls=2)], (True, 0, 1, [])),
    ([shot("1", cue_rail=True, break_rail_balls=1)], (False, -2, 1, ["play", "rebreak"])),
    ([shot("1", cue_rail=False, break_rail_balls=4)], (False, -2, 1, ["play", "rebreak"])),
    ([call("5", "foot_left"), shot("1", [("5", "foot_left")], break_rail_balls=0)],
     (True, 1, 0, [])),
    ([shot("1", ["cue"], cue_rail=True, break_rail_balls=3)], (True, -1, 1, [])),
], ids=["WPA 14.1 Opening Break: the cue ball and two balls to a rail",
        "WPA 14.1 Opening Break: breaking violation, two points off, the opponent's choice",
        "WPA 14.1 Opening Break: the cue ball must reach a rail too",
        "WPA 14.1 Opening Break: a called ball made scores and the breaker goes on",
        "WPA 14.1 Opening Break: a scratch on a legal break costs a point"])
def test_opening_break(recs, expect):
    _, r = one(opening(), *recs)
    legal, score, nxt, options = expect
    assert r["legal_break"] is legal and r["score"][0] == score and r["options"] == options
    if not options:
        assert r["next_player"] == nxt


def test_opening_break_fouls_do_not_count_toward_three():
    """Seed 004 I.19: the fouls of 14.1's opening break are not recorded."""
    _, r = one(opening(), shot("1", ["cue"], cue_rail=True, break_rail_balls=3))
    assert r["consecutive_fouls"] == [0, 0] and r["in_hand"] == "kitchen"


def test_breaking_violation_rebreak_costs_again():
    """WPA 14.1 Opening Break: each breaking violation costs two points."""
    m, out = play(opening(), shot("1", cue_rail=True, break_rail_balls=0),
                  {"type": "choice", "choice": "rebreak"},
                  shot("1", cue_rail=True, break_rail_balls=0))
    assert out[-1]["score"] == [-4, 0] and m.rack.breaking is False


@pytest.mark.parametrize("recs,points,penalty,next_player,spotted", [
    ([call("3", "foot_left"), shot("3", [("3", "foot_left")])], 1, 0, 0, []),
    ([call("3", "foot_left"), shot("3", [("3", "foot_left"), ("7", "side_right")])], 2, 0, 0,
     []),
    ([call("3", "foot_left"), shot("3", [("3", "foot_right")])], 0, 0, 1, ["3"]),
    ([call(safety=True), shot("3", ["3"])], 0, 0, 1, ["3"]),
    ([shot("3", ["3", "cue"])], 0, 1, 1, ["3"]),
    ([shot("3", ["3"])], 1, 0, 0, []),
], ids=["WPA 14.1 Scoring: a called ball made is a point",
        "WPA 14.1 Scoring: every other ball made on the stroke a point",
        "WPA 14.1 Call Shot: a pocket not called scores nothing, the ball is spotted",
        "I.22.1: a ball made on a declared safety is spotted",
        "I.19(a) I.21(b): a foul costs a point and its balls are spotted",
        "default: the ball hit first made counts as called"])
def test_scoring(recs, points, penalty, next_player, spotted):
    _, r = one(at("14.1"), *recs)
    assert (r["points"], r["penalty"], r["next_player"]) == (points, penalty, next_player)
    assert [d["ball"] for d in r["respotted"]] == spotted
    assert r["score"][0] == points - penalty


def test_scratch_gives_ball_in_hand_behind_the_head_string_only():
    """Seed 004 I.21(c): in 14.1 a foul leaves the table as it is, the cue ball in hand behind
    the head string only after a scratch or off the table."""
    _, r = one(at("14.1"), shot(None))
    assert r["in_hand"] is None and r["score"] == [-1, 0]
    _, r = one(at("14.1"), shot("3", ["cue"]))
    assert r["in_hand"] == "kitchen"


@pytest.mark.parametrize("variant_name,foul", [("wpa", True), ("seed004", False)],
                         ids=["WPA Fouls: a ball off the table is a foul in 14.1",
                              "I.18(e): not in 14.1, the ball is spotted"])
def test_ball_off_the_table(variant_name, foul):
    _, r = one(at("14.1", variant_name=variant_name),
               shot("3", off_table=["5"], rail_after_contact=True))
    assert bool(r["fouls"]) is foul and "5" in r["on_table"]


def test_three_fouls_cost_eighteen_and_a_new_break():
    """Seed 004 I.19(a): three fouls in a row cost 18 points in all; WPA 14.1: the offender
    breaks all fifteen balls again under the opening break's rules."""
    m, out = play(at("14.1"), shot(None), shot(None), shot(None), shot(None), shot(None))
    assert out[-1]["score"] == [-18, -2] and out[-1]["penalty"] == 16
    assert m.rack.breaking and m.rack.striker == 0 and len(m.rack.on_table) == 15


def test_three_fouls_rebreak_at_the_opponents_choice_in_seed004():
    m, out = play(at("14.1", variant_name="seed004"), *[shot(None)] * 5)
    assert out[-1]["options"] == ["rebreak", "play"] and out[-1]["chooser"] == 1


@pytest.mark.parametrize("areas,spot,cue", [
    ({}, None, "in_place"),
    ({"15": "rack"}, "head_spot", "in_place"),
    ({"15": "rack", "cue": "head_spot"}, "centre_spot", "in_place"),
    ({"15": "rack", "cue": "rack"}, "head_spot", "in_hand_kitchen"),
    ({"cue": "rack"}, None, "in_hand_kitchen"),
], ids=["WPA 14.1 Racking: the 15th ball and the cue ball stay",
        "WPA 14.1 Racking: the 15th in the rack goes to the head spot",
        "WPA 14.1 Racking: the cue ball on the head spot, the 15th to the centre spot",
        "WPA 14.1 Racking: both in the rack, the cue ball in hand behind the head string",
        "WPA 14.1 Racking: the cue ball in the rack is in hand behind the head string"])
def test_rerack_with_one_ball_left(areas, spot, cue):
    m = at("14.1", on_table=("14", "15"))
    m, r = one(m, call("14", "foot_left"), shot("14", [("14", "foot_left")], areas=areas))
    assert r["rerack"] == {"balls": 14, "break_ball": "15", "break_ball_spot": spot, "cue": cue}
    assert len(r["on_table"]) == 15 and r["next_player"] == 0 and r["score"] == [1, 0]
    assert r["in_hand"] == ("kitchen" if cue == "in_hand_kitchen" else None)


def test_rerack_all_fifteen_when_the_last_two_go_down():
    _, r = one(at("14.1", on_table=("14", "15")), shot("14", ["14", "15"]))
    assert r["rerack"]["balls"] == 15 and r["score"] == [2, 0]


def test_race_to_points_and_the_last_ball_announced():
    """Seed 004 I.24.1: the referee says when a player needs one ball; the race ends there."""
    m = at("14.1", race_to=3, points=(1, 0))
    m, r = one(m, shot("3", ["3"]))
    assert r["needs_one"] and not r["match_over"]
    m, r = one(m, shot("4", ["4"]))
    assert r["match_over"] and r["match_winner"] == 0 and r["end_reason"] == "points_reached"
