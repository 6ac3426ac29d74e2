"""Free ball, the non-offender's choice, touching ball, foul and a miss, the re-spotted black
(WPBSA 2024, shared/seeds/003; IR = the Iranian federation's text, shared/seeds/000)."""

from __future__ import annotations

import pytest
from referee_support import one, pen, play, shot, state_at, value

from tracker.rules.balls import COLOURS, colours_from, next_colour

FOUL_SNOOKERED = shot(first_contact=None, snookered_after=True)


def test_free_ball_awarded_when_snookered_after_a_foul():
    """S3 R12: snookered after a foul -> FREE BALL for the incoming striker."""
    _, r = one(state_at(), FOUL_SNOOKERED)
    assert r["free_ball"] and r["next_player"] == 1
    _, r = one(state_at(), shot(first_contact=None, snookered_after=False))
    assert not r["free_ball"]


@pytest.mark.parametrize("f", COLOURS, ids=[f"S3 R12 free ball {c} as a red" for c in COLOURS])
@pytest.mark.parametrize("reds_with", [0, 1, 2])
def test_free_ball_as_red(f, reds_with):
    """S3 R12, IR note 5: the free ball potted counts as a red and is re-spotted; reds potted
    with it count one each; a colour is on next."""
    s = state_at(free_ball=True, striker=1)
    _, r = one(s, shot(first_contact=f, potted=[f] + ["red"] * reds_with, nominated=f))
    assert r["foul"] is None and r["points"] == 1 + reds_with
    assert r["free_ball_nominated"] == f and r["ball_on"] == "colour"
    assert [x["class"] for x in r["respotted"]] == [f]
    assert r["reds_left"] == 15 - reds_with


def _clearance_free_ball_cases():
    for on in COLOURS[:-1]:
        for f in colours_from(on)[1:]:
            for both in (False, True):
                yield pytest.param(on, f, both, id=(
                    f"S3 R12 free ball {f} for the {on}" + (", both potted" if both else "")))


@pytest.mark.parametrize("on,f,both", list(_clearance_free_ball_cases()))
def test_free_ball_in_the_clearance(on, f, both):
    """S3 R12, IR note 5: the free ball scores the ball on's value and is re-spotted, the ball on
    stays on; both potted score the ball on only, and the ball on stays off."""
    pot = [f, on] if both else [f]
    _, r = one(state_at(on, 0, free_ball=True), shot(first_contact=f, potted=pot, nominated=f))
    assert r["foul"] is None and r["points"] == value(on)
    assert [x["class"] for x in r["respotted"]] == [f]
    assert r["ball_on"] == (next_colour(on) if both else on)
    assert (on in r["colours_on_table"]) is (not both)


def _not_first_cases():
    for on, reds in (("red", 15), ("yellow", 0), ("blue", 0)):
        cols = colours_from("yellow") if reds else colours_from(on)
        for f in cols:
            if f == on:
                continue
            for hit in ["red"] if reds else [c for c in cols if c != f]:
                for ruleset in ("wpbsa", "iran"):
                    yield pytest.param(on, reds, f, hit, ruleset, id=(
                        f"S3 R12 {ruleset} free ball {f} nominated, {hit} hit first"))


@pytest.mark.parametrize("on,reds,f,hit,ruleset", list(_not_first_cases()))
def test_free_ball_must_be_hit_first(on, reds, f, hit, ruleset):
    """S3 R12 (the nominated ball is the ball on); IR note 1: not hitting the nominated free
    ball first is a foul, valued at the ball on (IR) or the higher of the ball on and the ball
    hit (WPBSA, S3 R11(b))."""
    s = state_at(on, reds, free_ball=True, ruleset=ruleset)
    _, r = one(s, shot(first_contact=hit, nominated=f))
    bov = 1 if on == "red" else value(on)
    expect = pen(bov) if ruleset == "iran" else pen(bov, value(hit))
    assert r["foul"] == {"points": expect, "reason": "free_ball_not_hit_first"}


@pytest.mark.parametrize("colours,exempt", [
    (COLOURS, False), (("blue", "pink", "black"), False), (("pink", "black"), True)],
    ids=["S3 R12 snookering behind the free ball is a foul",
         "S3 R12 foul with blue pink black", "S3 R12 exempt with only pink and black"])
def test_snookering_behind_the_free_ball(colours, exempt):
    """S3 R12: a non-scoring free-ball stroke that snookers the opponent behind the free ball
    is a foul, except when only the pink and black remain."""
    on = colours[0]
    f = colours[1]
    s = state_at(on, 0, colours=colours, free_ball=True)
    _, r = one(s, shot(first_contact=f, nominated=f, snookered_after=True, snookered_by=[f]))
    if exempt:
        assert r["foul"] is None
    else:
        assert r["foul"]["reason"] == "snookered_behind_free_ball"
        assert r["foul"]["points"] == pen(value(on))  # English S3 R11(a): the ball on


def test_snookering_behind_free_ball_from_positions():
    """S3 R12 with the geometry: white, free ball (green) and ball on (yellow) in a line."""
    pos = {"white": (889, 1000), "green": (889, 1300), "yellow": (889, 1600),
           "brown": (300, 600), "blue": (889, 1784.5), "pink": (889, 2676.75),
           "black": (889, 3245)}
    s = state_at("yellow", 0, free_ball=True)
    _, r = one(s, shot(first_contact="green", nominated="green", positions=pos))
    assert r["foul"]["reason"] == "snookered_behind_free_ball"


def test_put_back_voids_free_ball():
    """S3 R10(i), R12: putting the offender back in voids the free ball."""
    s, _ = one(state_at(), FOUL_SNOOKERED)
    _, r = one(s, {"type": "decision", "choice": "put_back"})
    assert r["next_player"] == 0 and not r["free_ball"] and r["awaiting"] is None


def test_play_keeps_free_ball_and_implicit_put_back():
    """S3 R10(h): the non-offender plays on (with the free ball); a shot by the offender means
    he was put back in."""
    s, _ = one(state_at(), FOUL_SNOOKERED)
    _, r = one(s, {"type": "decision", "choice": "play"})
    assert r["next_player"] == 1 and r["free_ball"]
    _, r = one(s, shot(first_contact="red", player=0))
    assert r["player"] == 0
    _, r = one(state_at(), shot(first_contact="red", player=1))  # S3 R3(k): out of turn
    assert r["foul"]["reason"] == "played_out_of_turn" and r["next_player"] == 0


@pytest.mark.parametrize("choice", ["play", "put_back", "replace"])
def test_decision_needs_a_foul(choice):
    """S3 R10(h): the choice follows a foul only; replace only a foul and a miss (S3 R14)."""
    with pytest.raises(ValueError):
        one(state_at(), {"type": "decision", "choice": choice})
    s, _ = one(state_at(), shot(first_contact=None))
    if choice == "replace":
        with pytest.raises(ValueError):
            one(s, {"type": "decision", "choice": choice})
    else:
        one(s, {"type": "decision", "choice": choice})


@pytest.mark.parametrize("on,touch", [("red", "red"), ("colour", "pink"), ("blue", "blue")],
                         ids=["S3 R8 touching a red", "S3 R8 touching a colour after a red",
                              "S3 R8 touching the ball on"])
def test_touching_ball_play_away(on, touch):
    """S3 R8: TOUCHING BALL; playing away without hitting a ball is no foul; moving the touching
    ball is a push stroke (the referee's call)."""
    reds = 5 if on != "blue" else 0
    s = state_at(on, reds, touching=touch)
    _, r = one(s, shot(first_contact=None))
    assert r["foul"] is None and r["next_player"] == 1
    _, r = one(s, shot(first_contact=None, foul={"reason": "push_stroke", "ball": touch}))
    assert r["foul"]["reason"] == "push_stroke"


def test_touching_ball_called_from_record_and_positions():
    """S3 R8: the referee states TOUCHING BALL when the white rests against a ball on."""
    _, r = one(state_at(), shot(first_contact="red", potted=["red"], touching_after="pink"))
    assert r["touching_ball"] == "pink"
    pos = {"white": (889, 2000), "red_01": (889, 2052.5), "black": (889, 3245)}
    _, r = one(state_at(), shot(first_contact="red", positions=pos))
    assert r["touching_ball"] == "red"
    _, r = one(state_at(), shot(first_contact="red", touching_after="pink"))
    assert r["touching_ball"] is None  # a colour cannot be on for the next player


MISS = shot(first_contact=None, miss=True, full_ball_path=True)
REPLACE = {"type": "decision", "choice": "replace"}


def test_miss_options_and_replace_restores_the_balls():
    """S3 R14: after a foul and a miss the non-offender may play, put back, or have the balls
    replaced and the offender play again from the original position."""
    s = state_at("red", 15, in_hand=False)
    s, r = one(s, shot(first_contact="black", potted=["red"], miss=True))
    assert r["miss"] and r["options"] == ["play", "put_back", "replace"] and r["reds_left"] == 14
    _, r = one(s, REPLACE)
    assert r["next_player"] == 0 and r["reds_left"] == 15 and r["score"] == [0, 7]


def test_three_misses_with_a_full_ball_path_award_the_frame():
    """S3 R14(d): a full-ball path existed: after the second miss and a replace the referee
    warns; the third miss awards the frame to the opponent."""
    _, out = play(state_at(), MISS, REPLACE, MISS, REPLACE, MISS)
    assert [o.get("miss_count") for o in out] == [1, 1, 2, 2, 3]
    assert not out[1]["warning"] and out[3]["warning"]
    assert out[4]["frame_over"] and out[4]["winner"] == 1 and out[4]["end_reason"] == \
        "three_misses"


def test_no_award_without_full_ball_path_or_warning():
    """S3 R14(d): no frame awarded without a full-ball path (and so no warning)."""
    m = shot(first_contact=None, miss=True, full_ball_path=False)
    _, out = play(state_at(), m, REPLACE, m, REPLACE, m, REPLACE, m)
    assert not any(o["frame_over"] for o in out) and not any(o["warning"] for o in out)
    assert out[-1]["miss_count"] == 4


def test_playing_on_ends_the_miss_sequence():
    """S3 R14(d): if the non-offender plays from where the balls lie the sequence ends."""
    _, out = play(state_at(), MISS, REPLACE, MISS, {"type": "decision", "choice": "play"},
                  shot(first_contact="red"), MISS)
    assert out[-1]["miss_count"] == 1


def test_six_red_miss_limit():
    """S3 R19: in Six-Red at most five consecutive foul-and-a-miss calls."""
    m = shot(first_contact=None, miss=True, full_ball_path=False)
    recs = [m, REPLACE] * 5 + [m]
    _, out = play(state_at(reds=6, reds_at_start=6), *recs)
    assert out[-3]["miss_count"] == 5 and out[-1]["miss"] is False and out[-1]["miss_limited"]
    assert out[-1]["options"] == ["play", "put_back"]


def test_a_miss_called_late_by_having_the_balls_replaced():
    """S3 R14: a failure to hit recorded without the call (``miss`` unknown) is called a foul
    and a miss after all when the non-offender has the balls replaced (``replace`` with
    ``miss``): the same points, the miss counted, the balls back as they stood and the
    offender to play again; a second miss called so counts two, as the calls made with the
    strokes would have. Once a shot has been played since, or after a stroke that hit the
    ball on, there is nothing to call."""
    late = {"type": "decision", "choice": "replace", "miss": True}
    s = state_at("red", 15, in_hand=False)
    s, r = one(s, shot(first_contact="black", potted=["red"]))
    assert r["miss"] is False and r["options"] == ["play", "put_back"] and r["reds_left"] == 14
    s, r = one(s, late)
    assert r["miss"] is True and r["miss_count"] == 1 and r["score"] == [0, 7]
    assert r["next_player"] == 0 and r["reds_left"] == 15 and r["options"] == []
    s, r = one(s, shot(first_contact=None, full_ball_path=True))
    assert r["score"] == [0, 11] and r["next_player"] == 1
    s, r = one(s, late)
    assert r["miss_count"] == 2 and r["warning"] and r["next_player"] == 0
    _, called = play(state_at(), MISS, REPLACE, MISS, REPLACE)
    _, late_out = play(state_at(), shot(first_contact=None, full_ball_path=True), late,
                       shot(first_contact=None, full_ball_path=True), late)
    assert [(o["score"], o["miss_count"], o["warning"], o["next_player"])
            for o in late_out[1::2]] == [
        (o["score"], o["miss_count"], o["warning"], o["next_player"]) for o in called[1::2]]
    for before in ([], [shot(first_contact=None), {"type": "decision", "choice": "play"}],
                   [shot(first_contact="red")]):
        with pytest.raises(ValueError, match="no foul to call a miss"):
            play(state_at(), *before, late)
    with pytest.raises(ValueError, match="only of a replace"):
        one(state_at(), {"type": "decision", "choice": "play", "miss": True})


def test_miss_suggested():
    """S3 R14(c): a miss is suggested unless a player needs snookers."""
    _, r = one(state_at(score=(0, 0)), shot(first_contact=None))
    assert r["miss_suggested"] is True
    _, r = one(state_at("pink", 0, score=(0, 40)), shot(first_contact=None))
    assert r["miss_suggested"] is False


def _level_on_black():
    return state_at("black", 0, score=(40, 33))


def test_respotted_black_on_level_scores():
    """S3 R4: level after the last black: re-spot it, toss, play from hand; first pot or foul
    ends the frame (S3 R4(b))."""
    _, r = one(_level_on_black(), shot(first_contact="black", potted=["black"]))
    assert r["score"] == [47, 33] and r["frame_over"]
    s = state_at("black", 0, score=(33, 40))
    s, r = one(s, shot(first_contact="black", potted=["black"]))
    assert r["score"] == [40, 40] and not r["frame_over"] and r["respotted_black"]
    assert r["awaiting"] == "respot_toss" and r["next_player"] is None
    assert r["ball_on"] == "black" and r["in_hand"]
    s, r = one(s, {"type": "respot_toss", "first": 1})
    assert r["next_player"] == 1 and r["in_hand"]
    s2, r = one(s, shot(first_contact="black"))
    assert not r["frame_over"] and r["next_player"] == 0 and not r["in_hand"]
    _, r = one(s2, shot(first_contact=None))
    assert r["frame_over"] and r["winner"] == 1 and r["score"] == [40, 47]
    _, r = one(s, shot(first_contact="black", potted=["black"]))
    assert r["frame_over"] and r["winner"] == 1


def test_foul_on_last_black_levels_scores():
    """S3 R4: a foul on the last black that levels the scores re-spots the black."""
    s = state_at("black", 0, score=(33, 40), striker=1)
    _, r = one(s, shot(first_contact=None))
    assert r["score"] == [40, 40] and r["respotted_black"] and not r["frame_over"]


def test_free_ball_from_positions():
    """S3 R12 with S2 R17 geometry: the free ball follows from the positions after the foul."""
    pos = {"white": (889, 1000), "red_01": (889, 2000), "blue": (889, 1500)}
    s = state_at("red", 1)
    _, r = one(s, shot(first_contact=None, positions=pos))
    assert r["free_ball"]
    pos["blue"] = (300, 1500)
    _, r = one(s, shot(first_contact=None, positions=pos))
    assert not r["free_ball"]


def test_full_ball_path_from_positions_before_the_miss():
    """S3 R14(d): the full-ball path is judged from the position the miss was played from."""
    clear = {"white": (889, 1000), "red_01": (889, 2000), "blue": (300, 1500)}
    s, _ = one(state_at("red", 1), shot(first_contact="red", positions=clear))
    m = shot(first_contact=None, miss=True)
    _, out = play(s, m, REPLACE, m, REPLACE, m)
    assert out[-1]["frame_over"] and out[-1]["end_reason"] == "three_misses"
    blocked = {**clear, "blue": (889, 1500)}
    s, _ = one(state_at("red", 1), shot(first_contact="red", positions=blocked))
    _, out = play(s, m, REPLACE, m, REPLACE, m)
    assert not out[-1]["frame_over"] and not any(o["warning"] for o in out)


def test_replace_restores_the_free_ball():
    """S3 R14: replacing puts everything back as it was, a free ball included."""
    s, _ = one(state_at(), FOUL_SNOOKERED)
    s, r = one(s, shot(first_contact="yellow", nominated="pink", miss=True))
    assert r["miss"] and r["foul"]["reason"] == "free_ball_not_hit_first"
    _, r = one(s, REPLACE)
    assert r["next_player"] == 1 and r["free_ball"]


@pytest.mark.parametrize("rec", [shot(first_contact="red", cue_potted=True, miss=True),
                                 shot(first_contact="red", potted=["red"], miss=True)],
                         ids=["S2 R21 an in-off is no miss", "S2 R21 a fair pot is no miss"])
def test_miss_only_on_failure_to_hit(rec):
    """S2 R21: a miss is the white failing to hit a ball on first."""
    _, r = one(state_at(), rec)
    assert r["miss"] is False and "replace" not in r["options"]


def test_reds_forced_off_stay_off():
    """S3 R3 (IR ch. 3 rule 5): reds potted or forced off in a foul are not replaced."""
    _, r = one(state_at("red", 5), shot(first_contact="red", off_table=["red", "red"]))
    assert r["foul"]["reason"] == "ball_off_table" and r["reds_left"] == 3
