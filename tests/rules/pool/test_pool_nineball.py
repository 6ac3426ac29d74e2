"""9-ball and 10-ball: WPA 9-Ball and 10-Ball rules; seed 004 part I where it names 9-ball."""

from __future__ import annotations

import pytest
from pool_support import at, call, one, play, shot


def brk(game="9ball", **kw):
    return at(game, breaking=True, in_hand="kitchen", **kw)


@pytest.mark.parametrize("game,rec,expect", [
    ("9ball", shot("1", ["4"], break_rail_balls=2), (0, [], False)),
    ("9ball", shot("2", ["4"], break_rail_balls=5), (1, ["wrong_ball_first"], False)),
    ("9ball", shot("1", [], break_rail_balls=3), (1, ["illegal_break"], False)),
    ("9ball", shot("1", ["9"]), (0, [], True)),
    ("9ball", shot("1", ["9", "cue"]), (1, ["cue_ball_scratch"], False)),
    ("10ball", shot("1", ["10"]), (0, [], False)),
], ids=["WPA 9-Ball Legal Break: a pot, the breaker goes on",
        "WPA 9-Ball Legal Break: the 1 must be hit first",
        "WPA 9-Ball Legal Break: four to a rail or a pot, else a foul",
        "WPA 9-Ball: the 9 on a legal break wins",
        "I.23.1 WPA 9-Ball: the 9 on a foul is spotted",
        "WPA 10-Ball: the 10 on the break is spotted"])
def test_break(game, rec, expect):
    _, r = one(brk(game), rec)
    nxt, fouls, won = expect
    assert r["fouls"] == fouls and r["rack_over"] is won
    if won:
        assert r["winner"] == 0 and r["end_reason"] == "nine_on_break"
    else:
        assert r["next_player"] == nxt and r["push_out_allowed"]
        top = "10" if game == "10ball" else "9"
        assert top in r["on_table"]


@pytest.mark.parametrize("choice,shooter", [("play", 0), ("pass", 1)],
                         ids=["WPA 9-Ball Push Out: the opponent plays it",
                              "WPA 9-Ball Push Out: the opponent hands it back"])
def test_push_out(choice, shooter):
    m, r = one(brk(), shot("1", break_rail_balls=5), {"type": "call", "push_out": True},
               shot("5", rail_after_contact=False, player=1))
    assert r["legal"] and r["options"] == ["play", "pass"] and r["chooser"] == 0
    m, r = one(m, {"type": "choice", "choice": choice})
    assert r["next_player"] == shooter and r["in_hand"] is None


def test_push_out_pockets_stay_down_but_the_nine():
    """WPA 9-Ball Push Out: balls made on a push-out do not count; the 9 is spotted."""
    m, r = one(brk(), shot("1", break_rail_balls=5), {"type": "call", "push_out": True},
               shot("5", ["5", "9"]))
    assert "5" not in r["on_table"] and "9" in r["on_table"] and r["next_player"] == 0


def test_push_out_only_right_after_the_break():
    m, _ = one(brk(), shot("1", ["2"], break_rail_balls=5), shot("1", ["1"]))
    with pytest.raises(ValueError, match="push-out"):
        one(m, {"type": "call", "push_out": True})


@pytest.mark.parametrize("rec,expect", [
    (shot("1", ["1"]), ("next", 0)),
    (shot("1", ["9"]), ("won", 0)),
    (shot("1", ["5"]), ("next", 0)),
    (shot("3", ["9"], rail_after_contact=True), ("foul", ["wrong_ball_first"])),
    (shot("1", ["9", "cue"]), ("foul", ["cue_ball_scratch"])),
], ids=["WPA 9-Ball Continuing Play: the lowest ball made",
        "WPA 9-Ball: a combination on the 9 wins",
        "WPA 9-Ball Continuing Play: any ball made counts",
        "I.18(a) WPA 9-Ball: lowest ball first, the 9 spotted after the foul",
        "I.23.1: the 9 made with a scratch is spotted, no win"])
def test_nine_ball_play(rec, expect):
    _, r = one(at("9ball"), rec)
    if expect[0] == "next":
        assert r["next_player"] == expect[1] and r["legal"]
    elif expect[0] == "won":
        assert r["rack_over"] and r["winner"] == 0 and r["end_reason"] == "nine_pocketed"
    else:
        assert r["fouls"] == expect[1] and not r["rack_over"]
        assert "9" in r["on_table"] and r["in_hand"] == "anywhere"


def test_jumped_balls_stay_off_but_the_nine():
    """Seed 004 I.17: in 9-ball only the 9 is spotted."""
    _, r = one(at("9ball"), shot("1", off_table=["4", "9"], rail_after_contact=True))
    assert "4" not in r["on_table"] and [d["ball"] for d in r["respotted"]] == ["9"]


@pytest.mark.parametrize("recs,expect", [
    ([call("1", "foot_left"), shot("1", [("1", "foot_left")])], ("go_on", 0)),
    ([call("1", "foot_left"), shot("1", [("1", "side_left")])], ("option", 1)),
    ([shot("1", ["4"])], ("option", 1)),
    ([shot("1", ["1"])], ("go_on", 0)),
    ([call("10", "foot_left"), shot("1", [("10", "foot_left")])], ("won", 0)),
    ([call("1", "foot_left"), shot("1", [("1", "foot_left"), ("10", "side_left")])],
     ("go_on", 0)),
], ids=["WPA 10-Ball Call Shot: the called ball in the called pocket",
        "WPA 10-Ball Call Shot: a pocket not called, the opponent plays or passes",
        "default: the ball hit first not made, the ball made counts as uncalled",
        "default: the ball hit first made counts as called",
        "WPA 10-Ball: the 10 called and made wins (a combination)",
        "WPA 10-Ball: the 10 made uncalled is spotted"])
def test_ten_ball_call_shot(recs, expect):
    _, r = one(at("10ball"), *recs)
    if expect[0] == "won":
        assert r["rack_over"] and r["winner"] == 0 and r["end_reason"] == "ten_pocketed"
    elif expect[0] == "option":
        assert r["options"] == ["play", "pass"] and r["chooser"] == expect[1]
    else:
        assert r["next_player"] == 0 and "10" in r["on_table"]


def test_three_fouls_lose_the_rack_after_the_warning():
    """Seed 004 I.19(b); WPA 9-Ball Three Consecutive Fouls: warned after the second."""
    m = at("9ball")
    m, out = play(m, shot(None), shot(None), shot(None), shot(None), shot(None))
    assert out[2]["warning"] == [True, False] and out[2]["consecutive_fouls"] == [2, 1]
    assert out[4]["rack_over"] and out[4]["winner"] == 1 and out[4]["end_reason"] == "three_fouls"


def test_a_legal_shot_clears_the_fouls():
    """Seed 004 I.19: a correct shot wipes out the recorded fouls."""
    legal = shot("1", rail_after_contact=True)
    _, out = play(at("9ball"), shot(None), legal, shot(None), legal, legal, legal, shot(None),
                  legal, shot(None))
    assert out[3]["consecutive_fouls"] == [2, 0]
    assert out[4]["consecutive_fouls"] == [0, 0] and out[4]["warning"] == [False, False]
    assert out[-1]["consecutive_fouls"] == [2, 0] and not out[-1]["rack_over"]


def test_no_third_foul_without_the_warning():
    """Seed 004 I.19: without the warning the third foul counts as a second."""
    m = at("9ball", rules=(("auto_warning", False),))
    _, out = play(m, shot(None), shot(None), shot(None), shot(None), shot(None))
    assert not out[-1]["rack_over"] and out[-1]["consecutive_fouls"][0] == 2
    m, out = play(m, shot(None), shot(None), shot(None), shot(None),
                  {"type": "warning", "player": 0}, shot(None))
    assert out[-2]["type"] == "warning" and out[-2]["warning"] == [True, False]
    assert out[-1]["rack_over"] and out[-1]["winner"] == 1


def test_three_foul_rule_off():
    m = at("9ball", variant_name="bar")
    _, out = play(m, *[shot(None)] * 6)
    assert not out[-1]["rack_over"]
