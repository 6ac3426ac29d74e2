"""The Snooker Shoot Out referee (tracker.rules.shootout), rule by rule: "SO n" are the Shoot Out
competition rules the module cites; seed 003 gives the shot clock's 15 s and 10 s."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tracker.game import game
from tracker.rules import shootout
from tracker.rules.shootout import Referee

ROOT = Path(__file__).resolve().parents[2]


def start(**lag) -> Referee:
    ref = Referee()
    ref.feed({"type": "frame_start", "players": ["A", "B"], "breaker": 0})
    if lag:
        ref.feed({"type": "lag", **lag})
    return ref


def shot(t_rest=None, t_strike=None, t_end=None, **kw) -> dict:
    d = {"type": "shot", "cushioned": ["white"], **kw}
    d.update({k: v for k, v in (("t_rest", t_rest), ("t_strike", t_strike), ("t_end", t_end))
              if v is not None})
    return d


def opened(ref: Referee, at: float = 10.0) -> dict:
    """The opening stroke, struck at ``at`` s: a safe break, A to B."""
    return ref.feed(shot(at - 5, at, at + 8, first_contact="red"))


def test_the_frame_clock_starts_with_the_opening_stroke_and_the_break_has_no_shot_clock():
    ref = start()
    r = ref.feed(shot(0.0, 40.0, 48.0, first_contact="red"))  # 40 s to break: no foul
    assert r["foul"] is None and r["clock"]["frame_start"] == 40.0
    assert r["clock"]["frame_end"] == 640.0 and r["clock"]["shot_clock"] is None


def test_a_stroke_begun_after_fifteen_seconds_in_the_first_five_minutes_is_a_time_foul():
    """SO 3(i), SO 4(i): the clock runs from the balls at rest to the white struck; a time foul
    is five points and the incoming player has the white in hand anywhere."""
    ref = start()
    opened(ref)
    r = ref.feed(shot(18.0, 33.5, 40.0, first_contact="red", potted=["red"]))
    assert r["foul"] == {"points": 5, "reason": "shot_clock"}
    assert r["score"] == [5, 0] and r["points"] == 0  # the red potted late does not score
    assert r["next_player"] == 0 and r["in_hand_anywhere"] and r["clock"]["late"]
    ok = start()
    opened(ok)
    r = ok.feed(shot(18.0, 32.9, 40.0, first_contact="red", potted=["red"]))
    assert r["foul"] is None and r["score"] == [0, 1] and r["clock"]["shot_clock"] == 15.0


def test_the_shot_clock_is_ten_seconds_in_the_last_five_minutes():
    """SO 3(ii): 12 s is in time at 4 minutes, late at 6."""
    early, later = start(), start()
    for ref in (early, later):
        opened(ref)
    r = early.feed(shot(250.0, 262.0, 270.0, first_contact="red"))
    assert r["foul"] is None and r["clock"]["shot_clock"] == 15.0
    r = later.feed(shot(370.0, 382.0, 390.0, first_contact="red"))
    assert r["foul"] == {"points": 5, "reason": "shot_clock"} and r["clock"]["shot_clock"] == 10.0


def test_a_time_foul_with_the_black_on_is_worth_seven():
    """The time foul is five points, or the ball on's value where higher."""
    ref = start()
    opened(ref)
    ref.feed(shot(18.0, 20.0, 26.0, first_contact="red", potted=["red"]))
    r = ref.feed(shot(26.0, 45.0, 50.0, nominated="black", first_contact="black"))
    assert r["foul"] == {"points": 7, "reason": "shot_clock"}


def test_a_stroke_that_pots_nothing_and_sends_no_ball_to_a_cushion_is_a_foul():
    """Every stroke must pot a ball or send a ball (the white included) to a cushion."""
    ref = start()
    opened(ref)
    r = ref.feed(shot(18.0, 20.0, 26.0, first_contact="red", cushioned=[]))
    assert r["foul"] == {"points": 4, "reason": "no_cushion"} and r["next_player"] == 0
    for cushioned, potted in ((["red"], []), ([], ["red"])):
        ref = start()
        opened(ref)
        r = ref.feed(shot(18.0, 20.0, 26.0, first_contact="red", cushioned=cushioned,
                          potted=potted))
        assert r["foul"] is None


def test_after_a_foul_there_is_no_choice_no_free_ball_and_no_miss():
    """After every foul the incoming player plays from in hand anywhere: no play again, no free
    ball, no foul and a miss."""
    ref = start()
    opened(ref)
    r = ref.feed(shot(18.0, 20.0, 26.0, first_contact="yellow", miss=True,
                      snookered_after=True))
    assert r["foul"]["reason"] == "wrong_ball_first" and r["awaiting"] is None
    assert not r["free_ball"] and not r["miss"] and r["options"] == []
    assert r["next_player"] == 0 and r["in_hand"] and r["in_hand_anywhere"]
    with pytest.raises(ValueError, match="no decision"):
        ref.feed({"type": "decision", "choice": "put_back"})


def test_time_up_gives_the_frame_to_the_leader_and_the_stroke_in_play_counts():
    """SO 1: a stroke struck before the ten minutes is played out; the leader then wins."""
    ref = start()
    opened(ref)  # frame clock from 10 s: it ends at 610 s
    ref.feed(shot(600.0, 605.0, 615.0, first_contact="red", potted=["red"]))
    r = ref.state.match.frame
    assert r.over and r.winner == 1  # B potted a red in the last stroke, then time was up
    with pytest.raises(ValueError, match="frame is over"):
        ref.feed(shot(615.0, 617.0, 620.0, first_contact="black"))


def test_a_stroke_struck_after_the_end_is_not_judged_and_the_frame_ends_at_the_clock():
    ref = start()
    opened(ref)
    ref.feed(shot(18.0, 20.0, 26.0, first_contact="red", potted=["red"]))  # B 1
    r = ref.feed(shot(600.0, 612.0, 620.0, first_contact="black", potted=["black"]))
    assert r["type"] == "time_up" and r["frame_over"] and r["winner"] == 1
    assert r["score"] == [0, 1]


def test_a_tie_at_time_up_goes_to_the_blue_ball_shoot_out():
    """A tie is settled with the blue: one attempt each, until one pots and the other does not."""
    ref = start()
    opened(ref)
    r = ref.feed({"type": "time_up"})
    assert r["end_reason"] == "time_up" and not r["frame_over"] and r["clock"]["time_up"]
    ref.feed({"type": "blue_attempt", "player": 1, "potted": True})
    r = ref.feed({"type": "blue_attempt", "player": 0, "potted": True})
    assert not r["frame_over"]  # both potted: another round
    with pytest.raises(ValueError, match="player 1 attempts"):
        ref.feed({"type": "blue_attempt", "player": 0, "potted": False})
    ref.feed({"type": "blue_attempt", "player": 1, "potted": False})
    r = ref.feed({"type": "blue_attempt", "player": 0, "potted": True})
    assert r["frame_over"] and r["winner"] == 0 and r["end_reason"] == "blue_ball_shoot_out"


def test_no_blue_ball_shoot_out_without_a_tie_at_time_up():
    ref = start()
    with pytest.raises(ValueError, match="no blue-ball shoot-out"):
        ref.feed({"type": "blue_attempt", "player": 0, "potted": True})


def test_the_lag_winner_chooses_the_breaker_before_the_opening_stroke():
    ref = start(winner=1, breaker=0)
    assert ref.state.match.frame.striker == 0
    ref = start(winner=1, breaker=1)
    r = opened(ref)
    assert r["player"] == 1
    with pytest.raises(ValueError, match="lag comes before"):
        ref.feed({"type": "lag", "winner": 0, "breaker": 0})


@pytest.mark.parametrize("bad, needle", [
    ({"type": "lag", "winner": 2, "breaker": 0}, "winner must be 0 or 1"),
    ({"type": "blue_attempt", "player": 0, "potted": "yes"}, "potted must be true or false"),
    ({"type": "time_up", "at": 3}, "unknown time_up field"),
    ({"type": "frame_start", "players": ["A", "B"], "reds": 6}, "15 reds"),
    ({"type": "shot", "cushioned": "white"}, "cushioned must be a list"),
])
def test_bad_shoot_out_records_are_refused_naming_the_field(bad, needle):
    with pytest.raises(ValueError, match=needle):
        shootout.parse_record(bad)


def test_cueball_referee_plays_the_shoot_out(tmp_path):
    path = tmp_path / "shots.jsonl"
    lines = [{"type": "frame_start", "players": ["A", "B"]},
             shot(5.0, 10.0, 18.0, first_contact="red"),
             shot(18.0, 35.0, 40.0, first_contact="red", potted=["red"])]
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    r = subprocess.run([sys.executable, "-m", "tracker.cli", "referee", "--game", "shootout",
                        str(path)], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    last = json.loads(r.stdout.strip().splitlines()[-1])
    assert last["foul"] == {"points": 5, "reason": "shot_clock"} and last["score"] == [5, 0]
    assert game("shootout").tracked  # the camera side is snooker's
