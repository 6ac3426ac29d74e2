"""Property tests of the referee with hypothesis: random frames of shots and decisions."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from referee_support import play, shot

from tracker.rules.balls import COLOURS, VALUES
from tracker.rules.snooker import apply, points_remaining


def _random_record(data, m):
    f = m.frame
    t = f.table
    if f.awaiting_toss:
        return {"type": "respot_toss", "first": data.draw(st.integers(0, 1))}
    if f.offender is not None and data.draw(st.booleans()):
        return {"type": "decision", "choice": data.draw(st.sampled_from(f.options))}
    balls = (["red"] if t.reds else []) + list(t.colours)
    first = data.draw(st.sampled_from([None] + balls + ([t.ball_on] * 3 if t.ball_on in balls
                                                         else ["red"] * 3 if t.reds else [])))
    nreds = data.draw(st.integers(0, min(t.reds, 3)))
    cols = data.draw(st.lists(st.sampled_from(list(t.colours)), max_size=2, unique=True)
                     ) if t.colours else []
    if data.draw(st.integers(0, 3)) and t.ball_on in COLOURS and t.ball_on == first:
        cols = [first]
    if t.ball_on == "colour" and first in COLOURS and data.draw(st.booleans()):
        cols = [first]
    return shot(
        first_contact=first, potted=["red"] * nreds + cols,
        cue_potted=data.draw(st.integers(0, 9)) == 0,
        nominated=data.draw(st.sampled_from([None, *t.colours])) if t.colours else None,
        miss=data.draw(st.booleans()) if first is None else None,
        snookered_after=data.draw(st.booleans()),
        full_ball_path=data.draw(st.booleans()),
    )


@settings(max_examples=60, deadline=None, database=None)
@given(st.data(), st.sampled_from([15, 10, 6]), st.integers(0, 1))
def test_scores_never_fall_and_points_remaining_never_rise(data, reds, breaker):
    """Within a frame: scores never fall; the points remaining (counting a free ball still to be
    taken) never rise, except when a free ball is newly awarded, balls are replaced after a miss
    (S3 R14) or the black is re-spotted (S3 R4)."""
    m, r = apply(None, {"type": "frame_start", "players": ["A", "B"], "breaker": breaker,
                        "reds": reds})
    prev = r.as_dict()
    for _ in range(80):
        if m.frame.over:
            break
        rec = _random_record(data, m)
        before = m
        m, res = apply(m, rec)
        r = res.as_dict()
        assert r["score"][0] >= prev["score"][0] and r["score"][1] >= prev["score"][1]
        gained = sum(r["score"]) - sum(prev["score"])
        assert gained == r["points"] + (r["foul"]["points"] if r["foul"] else 0)
        if r["foul"]:
            assert r["points"] == 0 and r["foul"]["points"] >= 4
        replaced = rec.get("choice") == "replace"
        new_black = r["respotted_black"] and not before.frame.respotted_black
        if not (replaced or new_black or r["frame_over"]):
            rem = points_remaining(m.frame.table, m.frame.free_ball and before.frame.free_ball)
            if rec.get("choice") == "put_back" or rec["type"] == "respot_toss":
                rem = points_remaining(m.frame.table, m.frame.free_ball)
            assert rem <= prev["points_remaining"], (rec, prev, r)
        assert r["snookers_required"][0] == 0 or r["snookers_required"][1] == 0
        prev = r


def _clearance(reds, colours_after_reds):
    recs = []
    for c in colours_after_reds:
        recs += [shot(first_contact="red", potted=["red"]),
                 shot(first_contact=c, potted=[c], nominated=c)]
    recs += [shot(first_contact=c, potted=[c]) for c in COLOURS]
    return recs


@settings(max_examples=60, deadline=None, database=None)
@given(st.sampled_from([15, 10, 6]).flatmap(
    lambda n: st.tuples(st.just(n), st.lists(st.sampled_from(COLOURS), min_size=n,
                                             max_size=n))))
def test_total_clearance(case):
    """S3 R3: a total clearance scores each red, its colour and the colours; all blacks make
    the maximum 8 x reds + 27 (147 with fifteen reds)."""
    reds, chosen = case
    start = {"type": "frame_start", "players": ["A", "B"], "breaker": 0, "reds": reds}
    _, out = play(None, start, *_clearance(reds, chosen))
    total = reds + sum(VALUES[c] for c in chosen) + 27
    assert out[-1]["score"] == [total, 0] and out[-1]["frame_over"]
    assert out[-1]["stats"]["highest_break"][0] == total
    assert (total == 8 * reds + 27) is all(c == "black" for c in chosen)
    if reds == 15 and total == 147:
        assert out[-1]["stats"]["centuries"] == [1, 0]


@settings(max_examples=40, deadline=None, database=None)
@given(st.sampled_from(COLOURS), st.sampled_from([15, 10, 6]))
def test_clearance_after_a_free_ball_can_exceed_the_maximum(free, reds):
    """S3 R12: a free ball taken as an extra red, then a maximum: 155 with fifteen reds."""
    start = {"type": "frame_start", "players": ["A", "B"], "breaker": 0, "reds": reds}
    foul = shot(first_contact=None, snookered_after=True)
    recs = [start, foul, shot(first_contact=free, potted=[free], nominated=free),
            shot(first_contact="black", potted=["black"], nominated="black")]
    recs += _clearance(reds, ["black"] * reds)
    _, out = play(None, *recs)
    assert out[1]["free_ball"]
    assert out[-1]["score"] == [0, 4 + 8 * reds + 27 + 8] and out[-1]["winner"] == 1
    assert out[-1]["stats"]["highest_break"] == [0, 8 * reds + 35]
    if reds == 15:
        assert out[-1]["stats"]["highest_break"][1] == 155


def _seeded_record(rnd, m):
    f, t = m.frame, m.frame.table
    if f.awaiting_toss:
        return {"type": "respot_toss", "first": rnd.randint(0, 1)}
    if f.offender is not None and rnd.random() < 0.5:
        return {"type": "decision", "choice": rnd.choice(f.options)}
    balls = (["red"] if t.reds else []) + list(t.colours)
    legal = t.ball_on if t.ball_on in balls else ("red" if t.reds else rnd.choice(balls))
    first = rnd.choice([None, *balls] + [legal] * 6)
    pot = []
    if first == legal and rnd.random() < 0.6:
        pot = [first] if first != "red" else ["red"] * rnd.randint(1, min(2, t.reds))
    if t.ball_on == "colour" and first in COLOURS and rnd.random() < 0.6:
        pot = [first]
    return shot(first_contact=first, potted=pot, cue_potted=rnd.random() < 0.05,
                miss=rnd.random() < 0.5 if first is None else None,
                snookered_after=rnd.random() < 0.2, full_ball_path=rnd.random() < 0.5)


def test_seeded_random_frames_end_with_the_right_winner():
    """Long random frames (200 seeds): every frame ends; the winner has the higher score unless
    the frame was awarded after three misses (S3 R14(d)); reds never come back except when the
    balls are replaced (S3 R14); frames alternate breakers (S3 R3(b))."""
    import random

    for seed in range(200):
        rnd = random.Random(seed)
        m, _ = apply(None, {"type": "frame_start", "players": ["A", "B"], "breaker": seed % 2,
                            "reds": rnd.choice([15, 10, 6])})
        reds = m.frame.table.reds
        for _ in range(400):
            rec = _seeded_record(rnd, m)
            m, res = apply(m, rec)
            r = res.as_dict()
            if rec.get("choice") != "replace":
                assert r["reds_left"] <= reds
            reds = r["reds_left"]
            if r["frame_over"]:
                break
        assert m.frame.over, seed
        a, b = m.frame.score
        if r["end_reason"] != "three_misses":
            assert a != b and m.frame.winner == (0 if a > b else 1)
