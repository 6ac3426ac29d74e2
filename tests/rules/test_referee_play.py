"""Scoring, the ball on and the turn, table-driven (WPBSA 2024, shared/seeds/003)."""

from __future__ import annotations

import pytest
from referee_support import one, play, shot, state_at, value

from tracker.rules.balls import COLOURS, colours_from, next_colour
from tracker.rules.geometry import SPOTS_MM


def _red_cases():
    for reds in (15, 10, 6, 3, 1):
        for n in range(1, min(reds, 4) + 1):
            yield pytest.param(reds, n, id=f"S3 R3(g) {n} red(s) of {reds} in one stroke")


@pytest.mark.parametrize("reds,n", list(_red_cases()))
def test_reds_score_one_each_and_a_colour_follows(reds, n):
    """S3 R3(g)-(h): every red potted scores one, the striker goes on, a colour is next."""
    _, r = one(state_at("red", reds, current_break=12), shot(first_contact="red",
                                                              potted=["red"] * n))
    assert r["points"] == n and r["score"] == [n, 0] and r["break"] == 12 + n
    assert r["ball_on"] == "colour" and r["next_player"] == 0 and r["reds_left"] == reds - n
    assert r["foul"] is None


def _colour_cases():
    for reds in (5, 0):
        for c in COLOURS:
            for declared in (True, False):
                how = "declared" if declared else "taken from the first contact"
                yield pytest.param(reds, c, declared,
                                   id=f"S3 R3(h) R7 colour {c} after a red, {reds} reds "
                                      f"left, nomination {how}")


@pytest.mark.parametrize("reds,c,declared", list(_colour_cases()))
def test_colour_after_red_scores_and_is_respotted(reds, c, declared):
    """S3 R3(h), R7: the nominated colour scores its value and goes back on its spot; a red is
    on next, or the yellow after the colour following the last red (S3 R3(h)(3))."""
    rec = shot(first_contact=c, potted=[c], nominated=c if declared else None)
    _, r = one(state_at("colour", reds), rec)
    assert r["points"] == value(c) and r["foul"] is None
    assert r["respotted"] == [{"class": c, "spot": c, "position": list(SPOTS_MM[c])}]
    assert r["colours_on_table"] == list(COLOURS)
    assert r["ball_on"] == ("red" if reds else "yellow")


@pytest.mark.parametrize("c", COLOURS, ids=[f"S3 R3(h)(3) clearance {c}" for c in COLOURS])
def test_clearance_colours_stay_off(c):
    """S3 R3(h)(3): in the clearance each colour potted stays off; the next colour is on."""
    _, r = one(state_at(c, 0), shot(first_contact=c, potted=[c]))
    assert r["points"] == value(c)
    assert r["respotted"] == []
    assert r["colours_on_table"] == list(colours_from(c)[1:])
    if c == "black":
        assert r["frame_over"] and r["winner"] == 0 and r["ball_on"] is None
    else:
        assert r["ball_on"] == next_colour(c) and r["next_player"] == 0


def _turn_end_cases():
    for on, reds in [("red", 15), ("red", 1), ("colour", 4), ("colour", 0)] + [
            (c, 0) for c in COLOURS[:-1]]:
        yield pytest.param(on, reds, id=f"S3 R3(c) no pot ends the turn, on {on} reds {reds}")


@pytest.mark.parametrize("on,reds", list(_turn_end_cases()))
@pytest.mark.parametrize("striker", [0, 1])
def test_no_pot_ends_the_turn(on, reds, striker):
    """S3 R3: a fair stroke that pots nothing passes the turn; the next player starts on a red
    while reds remain, else on the lowest colour (S3 R3(h)(3))."""
    legal = "red" if on == "red" else ("pink" if on == "colour" else on)
    _, r = one(state_at(on, reds, striker=striker, current_break=33),
               shot(first_contact=legal, nominated=legal if on == "colour" else None))
    assert r["foul"] is None and r["points"] == 0
    assert r["next_player"] == 1 - striker and r["break"] == 33
    assert r["ball_on"] == ("red" if reds else (on if on in COLOURS else "yellow"))
    assert r["stats"]["breaks"][striker] == [33]


def test_frame_starts_in_hand_on_a_red():
    """S3 R2(a), R3(c): white in hand in the D, the breaker on a red."""
    _, r = one(None, {"type": "frame_start", "players": ["A", "B"], "breaker": 1})
    assert r["in_hand"] and r["ball_on"] == "red" and r["next_player"] == 1
    assert r["points_remaining"] == 147 and r["reds_left"] == 15


@pytest.mark.parametrize("reds,maximum", [(15, 147), (10, 107), (6, 75)],
                         ids=["S3 R3 maximum 147", "ten-red maximum 107", "S3 R19 six-red 75"])
def test_maximum(reds, maximum):
    """S3 R3: 15 reds with 15 blacks and the colours make 147; 10 and 6 reds in the short
    forms."""
    recs = [{"type": "frame_start", "players": ["A", "B"], "breaker": 0, "reds": reds}]
    for _ in range(reds):
        recs += [shot(first_contact="red", potted=["red"]),
                 shot(first_contact="black", potted=["black"], nominated="black")]
    recs += [shot(first_contact=c, potted=[c]) for c in COLOURS]
    _, out = play(None, *recs)
    assert out[0]["points_remaining"] == maximum
    assert out[-1]["score"] == [maximum, 0] and out[-1]["frame_over"]
    assert out[-1]["stats"]["highest_break"] == [maximum, 0]
    assert out[-1]["stats"]["centuries"] == [1 if maximum >= 100 else 0, 0]


def test_respot_when_own_spot_occupied():
    """S3 R7: own spot taken -> highest free spot; all taken -> toward the top cushion."""
    pos = {"white": (600, 300), "red_01": SPOTS_MM["black"], "red_02": (1200, 2500)}
    s = state_at("colour", 5)
    _, r = one(s, shot(first_contact="black", potted=["black"], nominated="black",
                       positions=pos))
    assert r["respotted"][0]["class"] == "black" and r["respotted"][0]["spot"] == "pink"
    pos = {"white": (600, 300), "red_01": SPOTS_MM["pink"], **{
        f"{c}": SPOTS_MM[c] for c in COLOURS if c != "pink"}}
    _, r = one(s, shot(first_contact="pink", potted=["pink"], nominated="pink",
                       positions=pos))
    x, y = r["respotted"][0]["position"]
    assert r["respotted"][0]["spot"] is None
    assert x == SPOTS_MM["pink"][0] and y > SPOTS_MM["pink"][1] + 52.5


def test_several_colours_respotted_highest_first():
    """S3 R7(c): with several colours to re-spot and a spot in question, the higher value goes
    first."""
    pos = {"white": (600, 300), "red_01": SPOTS_MM["black"]}
    _, r = one(state_at("red", 5), shot(first_contact="red", potted=["black", "pink"],
                                        positions=pos))
    assert [x["class"] for x in r["respotted"]] == ["black", "pink"]
    # black takes the highest free spot (pink's), pink then goes to the blue spot.
    assert r["respotted"][0]["spot"] == "pink" and r["respotted"][1]["spot"] == "blue"


def test_points_remaining_and_snookers_required():
    """Scoreboard statistics: points remaining and snookers required."""
    s = state_at("yellow", 0, score=(0, 60))
    _, r = one(s, shot(first_contact="yellow"))
    assert r["points_remaining"] == 27
    assert r["snookers_required"] == [9, 0]  # (60 - 27) / 4 rounded up
    s = state_at("pink", 0, score=(10, 30))
    _, r = one(s, shot(first_contact="pink"))
    assert r["points_remaining"] == 13 and r["snookers_required"] == [2, 0]


def test_match_break_alternates_and_frames_count():
    """S3 R3(b): the players break in turn; the match ends at a majority of best_of. Each
    concession is by the striker (S4 R2)."""
    recs = [{"type": "frame_start", "players": ["A", "B"], "breaker": 0, "best_of": 3}]
    recs += [{"type": "concede", "player": 0}]
    recs += [{"type": "frame_start"}, {"type": "concede", "player": 1}]
    recs += [{"type": "frame_start"}]
    _, out = play(None, *recs)
    assert out[0]["next_player"] == 0 and out[2]["next_player"] == 1
    assert out[4]["next_player"] == 0
    assert out[3]["frames"] == [1, 1] and not out[3]["match_over"]
    _, out2 = play(None, *recs[:3], shot(first_contact="red"), {"type": "concede", "player": 0})
    assert out2[-1]["frames"] == [0, 2] and out2[-1]["match_over"] and out2[-1]["match_winner"] == 1


def test_shot_after_frame_over_starts_the_next_frame():
    """S3 R3(b): the next frame starts with the other player breaking."""
    recs = [{"type": "frame_start", "players": ["A", "B"], "breaker": 0, "best_of": 3},
            {"type": "concede", "player": 0}, shot(first_contact="red")]
    _, out = play(None, *recs)
    assert out[-1]["frame"] == 2 and out[-1]["player"] == 1


def test_concession():
    """S4 R2: the conceded frame goes to the opponent; conceding when nobody needs snookers is
    flagged as unsporting; its value counts reds at eight."""
    s = state_at("red", 15, score=(0, 10))
    _, r = one(s, {"type": "concede", "player": 0})
    assert r["frame_over"] and r["winner"] == 1 and r["unsporting_concession"] is True
    assert r["concession_value"] == 147
    s = state_at("black", 0, score=(0, 40))
    _, r = one(s, {"type": "concede", "player": 0})
    assert r["unsporting_concession"] is False


def test_rerack():
    """S3 R17: after a stalemate the scores are cancelled, the balls re-racked and the same
    player breaks."""
    s = state_at("red", 9, score=(30, 41), striker=1)
    _, r = one(s, {"type": "rerack"})
    assert r["score"] == [0, 0] and r["reds_left"] == 15 and r["next_player"] == 0
    assert r["in_hand"] and r["frame"] == 1


def test_claim_with_only_black_left():
    """S2 R1 (seed 003): only the black left and a lead of more than seven: the frame may be
    claimed; not before."""
    s = state_at("black", 0, score=(50, 42))
    assert one(s, shot(first_contact="black"))[1]["claimable"]
    _, r = one(s, {"type": "claim", "player": 0})
    assert r["frame_over"] and r["winner"] == 0
    with pytest.raises(ValueError):
        one(state_at("black", 0, score=(50, 43)), {"type": "claim", "player": 0})
