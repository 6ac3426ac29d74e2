"""8-ball: WPA 8-Ball rules and seed 004 part I where it names 8-ball; house variants."""

from __future__ import annotations

import pytest
from pool_support import at, call, one, play, shot

SOLIDS, STRIPES = ("solids", "stripes"), ("stripes", "solids")
EIGHT_ONLY_SOLIDS = ("8", "9", "10")  # player 0 on solids has cleared his group


def brk(**kw):
    return at("8ball", breaking=True, in_hand="kitchen", **kw)


@pytest.mark.parametrize("rec,next_player,options,in_hand,fouls", [
    (shot("1", ["3"], break_rail_balls=2), 0, [], None, []),
    (shot("1", [], break_rail_balls=4), 1, [], None, []),
    (shot("1", [], break_rail_balls=3), 1, ["play", "rerack", "rebreak"], None,
     ["illegal_break"]),
    (shot("1", ["cue", "3"], break_rail_balls=5), 1, [], "kitchen", ["cue_ball_scratch"]),
    (shot("1", off_table=["5"], break_rail_balls=5), 1, [], "kitchen",
     ["object_ball_off_table"]),
], ids=["WPA 8-Ball Legal Break Shot: a pot, the breaker goes on",
        "WPA 8-Ball Legal Break Shot: four to a rail, no pot: turn passes",
        "WPA 8-Ball Illegal Break: the opponent accepts, re-racks or has it re-broken",
        "WPA 8-Ball Scratch on a Legal Break: ball in hand behind the head string",
        "WPA 8-Ball Jumped Object Balls on the Break: foul, in hand behind the head string"])
def test_break(rec, next_player, options, in_hand, fouls):
    _, r = one(brk(), rec)
    assert (r["next_player"], r["options"], r["in_hand"], r["fouls"]) == (
        next_player, options, in_hand, fouls)
    assert r["ball_on"] in ("open", None) and r["groups"] == [None, None]


@pytest.mark.parametrize("choice,breaker", [("rerack", 1), ("rebreak", 0)],
                         ids=["WPA 8-Ball Illegal Break: re-rack and break himself",
                              "WPA 8-Ball Illegal Break: the offender breaks again"])
def test_illegal_break_rerack_choices(choice, breaker):
    m, r = one(brk(), shot("1", break_rail_balls=2), {"type": "choice", "choice": choice})
    assert m.rack.breaking and m.rack.striker == breaker and len(m.rack.on_table) == 15


@pytest.mark.parametrize("variant_name,rec,expect", [
    ("wpa", shot("1", ["8"]), ("choice", 0, ["spot", "rerack"])),
    ("wpa", shot("1", ["8", "cue"]), ("choice", 1, ["spot", "rerack"])),
    ("bar", shot("1", ["8"]), ("won", 0, "eight_on_break")),
    ("bar", shot("1", ["8", "cue"]), ("won", 1, "eight_on_break_with_foul")),
], ids=["WPA 8-Ball 8-Ball Pocketed on the Break: the breaker spots it or re-racks",
        "WPA 8-Ball 8 on the break with a scratch: the opponent's choice",
        "house: the 8 on the break wins", "house: the 8 on the break with a scratch loses"])
def test_eight_on_the_break(variant_name, rec, expect):
    _, r = one(brk(variant_name=variant_name), rec)
    if expect[0] == "choice":
        assert r["awaiting"] == "choice" and r["chooser"] == expect[1]
        assert r["options"] == expect[2]
    else:
        assert r["rack_over"] and r["winner"] == expect[1] and r["end_reason"] == expect[2]


def test_spotting_the_eight_after_the_break_returns_it():
    """WPA 8-Ball 8-Ball Pocketed on the Break; seed 004 I.23.1: spotted on the foot spot."""
    m, r = one(brk(), shot("1", ["8"]), {"type": "choice", "choice": "spot"})
    assert "8" in r["on_table"] and r["respotted"] == [{"ball": "8", "spot": "foot_spot"}]
    assert r["next_player"] == 0


@pytest.mark.parametrize("recs,groups,next_player", [
    ([shot("3", ["3"])], SOLIDS, 0),
    ([shot("11", ["11"])], STRIPES, 0),
    ([call("3", "foot_left"), shot("3", [("3", "foot_right")])], [None, None], 1),
    ([call("3", "foot_left"), shot("3", [("3", "foot_left"), ("12", "side_left")])], SOLIDS,
     0),
    ([shot("2", ["11", "12"])], STRIPES, 0),
    ([shot("2", ["3", "12"])], [None, None], 1),
], ids=["WPA 8-Ball Choice of Group: a solid made decides solids",
        "WPA 8-Ball Choice of Group: a stripe made decides stripes",
        "WPA 8-Ball Call Shot: the called pocket missed, the table stays open",
        "WPA 8-Ball Choice of Group: the called ball's group, not the other pocketed",
        "default: balls of one group made on an open table decide it",
        "default: a mix with the ball hit first not made leaves the table open"])
def test_groups_on_an_open_table(recs, groups, next_player):
    _, r = one(at("8ball"), *recs)
    assert r["groups"] == list(groups) and r["next_player"] == next_player


def test_eight_first_on_an_open_table_is_a_foul():
    """WPA 8-Ball Open Table: the 8 may not be hit first while the table is open."""
    _, r = one(at("8ball"), shot("8", rail_after_contact=True))
    assert r["fouls"] == ["eight_first_on_open_table"] and r["in_hand"] == "anywhere"


@pytest.mark.parametrize("rec,fouls,next_player", [
    (shot("2", ["2"]), [], 0),
    (shot("12", ["12"]), ["wrong_ball_first"], 1),
    (shot("2", ["12"]), [], 1),
    (shot("2", rail_after_contact=False), ["no_rail_after_contact"], 1),
], ids=["WPA 8-Ball Continuing Play: own ball made, shoot again",
        "WPA 8-Ball Fouls / I.18(a): the opponent's group hit first",
        "WPA 8-Ball Continuing Play: only the opponent's ball made, turn ends",
        "I.12 I.18(b): no rail after contact"])
def test_play_with_groups(rec, fouls, next_player):
    _, r = one(at("8ball", groups=SOLIDS), rec)
    assert r["fouls"] == fouls and r["next_player"] == next_player


@pytest.mark.parametrize("kw,recs,winner,reason", [
    ({}, [call("8", "foot_left"), shot("8", [("8", "foot_left")])], 0, "eight_pocketed"),
    ({}, [shot("8", [("8", "side_left")])], 0, "eight_pocketed"),
    ({}, [call("8", "foot_left"), shot("8", [("8", "foot_right")])], 1,
     "eight_wrong_pocket"),
    ({}, [shot("8", ["8", "cue"])], 1, "eight_with_foul"),
    ({}, [shot("8", off_table=["8"])], 1, "eight_off_table"),
    ({}, [call("8", safety=True), shot("8", ["8"])], 1, "eight_on_safety"),
    ({"on_table": ("2", "8", "9")}, [shot("2", ["8"])], 1, "eight_early"),
    ({"on_table": ("2", "8", "9")}, [shot("2", ["2", "8"])], 1, "eight_with_last_group_ball"),
    ({"variant_name": "bar"}, [shot("8", ["cue"])], 1, "scratch_on_eight"),
    ({"variant_name": "last_pocket", "last_pockets": ("foot_left", None)},
     [shot("8", [("8", "foot_right")])], 1, "eight_not_last_pocket"),
    ({"variant_name": "last_pocket", "last_pockets": ("foot_left", None)},
     [shot("8", [("8", "foot_left")])], 0, "eight_pocketed"),
], ids=["WPA 8-Ball Object of the Game: the 8 in the called pocket wins",
        "default: an uncalled 8 counts as called in its pocket",
        "WPA 8-Ball Losing the Game: the 8 in a pocket not called",
        "WPA 8-Ball Losing the Game / I.23.1: the 8 with a foul",
        "WPA 8-Ball Losing the Game: the 8 off the table",
        "I.23.1: the 8 pocketed on a safety",
        "WPA 8-Ball Losing the Game: the 8 before the group is cleared",
        "WPA 8-Ball Losing the Game: the 8 with the last ball of the group",
        "house: a scratch when shooting at the 8 loses",
        "house last pocket: the 8 not in the last ball's pocket",
        "house last pocket: the 8 in the last ball's pocket wins"])
def test_the_eight(kw, recs, winner, reason):
    on = kw.pop("on_table", EIGHT_ONLY_SOLIDS)
    _, r = one(at("8ball", groups=SOLIDS, on_table=on, **kw), *recs)
    assert r["rack_over"] and r["winner"] == winner and r["end_reason"] == reason


def test_scratch_on_the_eight_is_only_a_foul_under_wpa():
    _, r = one(at("8ball", groups=SOLIDS, on_table=EIGHT_ONLY_SOLIDS), shot("8", ["cue"]))
    assert not r["rack_over"] and r["fouls"] == ["cue_ball_scratch"]


def test_last_pocket_is_remembered():
    m, r = one(at("8ball", groups=SOLIDS, on_table=("2", "8", "9"), variant_name="last_pocket"),
               shot("2", [("2", "head_right")]))
    assert m.rack.last_pockets[0] == "head_right" and r["ball_on"] == "8"


def test_no_three_foul_loss_in_eightball():
    """Seed 004 I.19(c): in 8-ball three fouls do not lose the game."""
    m = at("8ball", groups=SOLIDS)
    _, out = play(m, shot(None), shot(None), shot(None), shot(None), shot(None))
    assert not out[-1]["rack_over"]


@pytest.mark.parametrize("variant_name,respotted", [("wpa", []), ("seed004", ["2"])],
                         ids=["WPA: a jumped object ball stays off",
                              "I.17 I.23.2(a): jumped balls spotted, not the opponent's"])
def test_jumped_balls(variant_name, respotted):
    _, r = one(at("8ball", groups=SOLIDS, variant_name=variant_name),
               shot("2", off_table=["2", "12"], rail_after_contact=True))
    assert [d["ball"] for d in r["respotted"]] == respotted
    assert "12" not in r["on_table"]


def test_safety_ends_the_inning_and_pocketed_balls_stay_down():
    """WPA 8-Ball Safety Shot; seed 004 I.22.1: only 14.1 spots balls made on a safety."""
    _, r = one(at("8ball", groups=SOLIDS), call(safety=True), shot("2", ["2"]))
    assert r["next_player"] == 1 and "2" not in r["on_table"] and r["legal"]
