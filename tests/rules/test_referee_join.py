"""A frame joined mid-way: the frame_start fields that set the table, the score and the match,
checked as records, and the referee playing on from them."""

import pytest

from tracker.rules.join import seen_frame
from tracker.rules.records import parse_record
from tracker.rules.snooker import Referee

START = {"type": "frame_start", "players": ["A", "B"], "breaker": 0, "reds": 15}


def referee(**fields):
    ref = Referee()
    first = ref.feed({**START, **fields})
    return ref, first


def test_only_the_black_left_the_black_ends_the_frame_with_the_score_given():
    ref, first = referee(reds_left=0, colours_on_table=["black"], score=[140, 0], **{"break": 140})
    assert first["ball_on"] == "black" and first["score"] == [140, 0] and first["break"] == 140
    res = ref.feed({"type": "shot", "first_contact": "black", "potted": ["black"]})
    assert res["score"] == [147, 0] and res["frame_over"] and res["winner"] == 0
    assert res["stats"]["highest_break"] == [147, 0]


def test_colours_only_the_yellow_potted_scores_two_and_the_green_is_on():
    ref, first = referee(reds_left=0, colours_on_table=["yellow", "green", "brown", "blue",
                                                       "pink", "black"])
    assert first["ball_on"] == "yellow" and first["reds_left"] == 0
    res = ref.feed({"type": "shot", "first_contact": "yellow", "potted": ["yellow"]})
    assert res["foul"] is None and res["score"] == [2, 0] and res["ball_on"] == "green"
    assert res["colours_on_table"] == ["green", "brown", "blue", "pink", "black"]


def test_the_last_red_potted_then_a_colour_is_on_then_the_yellow():
    ref, _ = referee(reds_left=1, in_hand=False)
    assert ref.feed({"type": "shot", "first_contact": "red", "potted": ["red"]})[
        "ball_on"] == "colour"
    res = ref.feed({"type": "shot", "first_contact": "blue", "potted": ["blue"]})
    assert res["score"] == [6, 0] and res["ball_on"] == "yellow"
    assert res["respotted"][0]["class"] == "blue"


def test_the_player_to_play_and_the_frames_won_carry_on_into_the_match():
    ref, first = referee(reds_left=6, score=[20, 31], frames=[2, 1], best_of=7, to_play=1)
    assert first["next_player"] == 1 and first["frame"] == 4 and first["frames"] == [2, 1]
    res = ref.feed({"type": "concede", "player": 1})
    assert res["frames"] == [3, 1]
    # frame 4 was broken by player 0: frame 5 by player 1 (S3 R3(b))
    assert ref.feed({"type": "frame_start"})["next_player"] == 1


def test_a_six_red_frame_joined_counts_its_misses_as_six_red():
    ref, first = referee(reds=6, reds_left=3)
    assert first["reds_left"] == 3 and ref.state.frame.reds_at_start == 6


@pytest.mark.parametrize("fields, said", [
    ({"reds_left": 16}, "more than the 15 racked"),
    ({"reds": 6, "reds_left": 7}, "more than the 6 racked"),
    ({"reds_left": -1}, "0 or more"),
    ({"reds_left": 2, "colours_on_table": ["pink", "black"]}, "while reds remain"),
    ({"reds_left": 0, "colours_on_table": ["green", "black"]}, "up to the black"),
    ({"reds_left": 0, "colours_on_table": ["mauve"]}, "list of colours"),
    ({"reds_left": 0, "ball_on": "red"}, "no red left"),
    ({"reds_left": 0, "colours_on_table": ["pink", "black"], "ball_on": "black"}, "lowest"),
    ({"score": [-1, 0]}, "0 or more"),
    ({"score": [1, 2, 3]}, "two numbers"),
    ({"frames": [1.5, 0]}, "0 or more"),
    ({"to_play": 2}, "to_play must be 0 or 1"),
    ({"score": [10, 0], "to_play": 1, "break": 5}, "more than the score 0"),
])
def test_a_joined_field_that_cannot_be_says_which(fields, said):
    with pytest.raises(ValueError, match=said):
        parse_record({**START, **fields})


def test_frames_already_deciding_the_match_are_refused_by_the_referee():
    with pytest.raises(ValueError, match="already won"):
        referee(frames=[2, 0], best_of=3)


def test_a_frame_start_with_no_joined_field_is_the_rack():
    ref, first = referee()
    assert first["reds_left"] == 15 and first["in_hand"] and first["ball_on"] == "red"
    assert not parse_record(START).joined


def test_the_table_seen_with_the_rack_whole_gives_no_fields():
    assert seen_frame(["white", *["red"] * 15, "yellow", "green", "brown", "blue", "pink",
                       "black"], 15) == ({}, [])


def test_the_table_seen_with_reds_gone_gives_the_reds_left_and_the_white_in_hand():
    fields, doubts = seen_frame(["red"] * 6 + ["yellow", "green", "brown", "blue", "pink",
                                              "black"], 15)
    assert fields == {"reds_left": 6, "colours_on_table": ["yellow", "green", "brown", "blue",
                                                           "pink", "black"], "in_hand": True}
    assert doubts == []


def test_the_table_seen_with_the_colours_only_puts_the_lowest_on():
    fields, _ = seen_frame(["white", "blue", "pink", "black"], 15)
    assert fields["reds_left"] == 0 and fields["colours_on_table"] == ["blue", "pink", "black"]
    assert parse_record({**START, **fields}).reds_left == 0


def test_a_colour_hidden_is_taken_as_on_the_table_and_said():
    fields, doubts = seen_frame(["white", "red", "yellow", "green", "blue", "pink", "black"], 15)
    assert fields["colours_on_table"][2] == "brown" and "brown" in doubts[0]
    fields, doubts = seen_frame(["white", "green", "blue", "pink", "black"], 15)
    assert fields["colours_on_table"] == ["green", "brown", "blue", "pink", "black"]
    assert "brown" in doubts[0]


def test_more_reds_than_racked_or_no_object_ball_is_said():
    fields, doubts = seen_frame(["red"] * 8 + ["yellow", "green", "brown", "blue", "pink",
                                              "black"], 6)
    assert fields == {} and "taken as 6" in doubts[0]
    fields, doubts = seen_frame(["white"], 15)
    assert fields == {} and "no object ball" in doubts[0]
