"""Shot and visit times: the camera's times in the shot record carried into the results, for
the statistics and a clock (S4 R3 leaves any clock to the competition; the referee measures)."""

from __future__ import annotations

import pytest
from referee_support import play, shot, state_at

from tracker.rules.records import parse_record


def test_shot_and_visit_times_follow_the_visit():
    s = state_at("red", 5, striker=0)
    _, out = play(
        s,
        shot(first_contact="red", potted=["red"], t_rest=10.0, t_strike=14.5, t_end=17.0),
        shot(first_contact="black", potted=["black"], nominated="black", t_rest=18.0,
             t_strike=21.0, t_end=23.5),
        shot(first_contact="red", t_rest=24.0, t_strike=30.0, t_end=33.0),  # no pot: turn ends
        shot(first_contact="red", t_rest=34.0, t_strike=36.0, t_end=38.0))  # player 1's visit
    assert [r["shot_time"] for r in out] == [4.5, 3.0, 6.0, 2.0]
    assert [r["visit_time"] for r in out] == [7.0, 13.5, 23.0, 4.0]
    assert [r["player"] for r in out] == [0, 0, 0, 1]
    assert out[-1]["stats"]["average_shot_time"] == [4.5, 2.0]


def test_a_foul_ends_the_visit():
    s = state_at("red", 5, striker=0)
    _, out = play(s, shot(first_contact=None, t_rest=0.0, t_strike=5.0, t_end=6.0),
                  {"type": "decision", "choice": "put_back"},
                  shot(first_contact="red", potted=["red"], t_rest=7.0, t_strike=9.0,
                       t_end=10.0))
    assert out[-1]["visit_time"] == 3.0 and out[-1]["player"] == 0


def test_records_without_times_have_none():
    _, out = play(state_at(), shot(first_contact="red", potted=["red"]))
    assert out[0]["shot_time"] is None and out[0]["visit_time"] is None
    assert out[0]["stats"]["average_shot_time"] == [None, None]


@pytest.mark.parametrize("bad,field", [
    (shot(t_rest=-1.0), "t_rest"), (shot(t_strike="5"), "t_strike"),
    (shot(t_end=float("nan")), "t_end"), (shot(t_strike=True), "t_strike"),
    (shot(t_rest=5.0, t_strike=4.0), "t_strike"), (shot(t_strike=5.0, t_end=4.0), "t_end")])
def test_times_are_checked(bad, field):
    with pytest.raises(ValueError, match=field):
        parse_record(bad)
