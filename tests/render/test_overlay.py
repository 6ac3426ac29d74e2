"""The overlay: pure drawing that keeps the frame's shape and type and puts things where they
belong."""

from __future__ import annotations

import numpy as np
import pytest
from outputs_support import PLAYERS, match_events

from tracker.render.overlay import (
    Marker,
    Scoreboard,
    ScoreKeeper,
    draw_overlay,
    markers_from_events,
    pot_points,
    scoreboard_rect,
)


def _frame(h, w):
    rng = np.random.default_rng(1)
    f = np.full((h, w, 3), (40, 120, 30), np.uint8)  # green cloth
    return f + rng.integers(0, 8, size=f.shape, dtype=np.uint8)


def _scores():
    return [e for e in match_events() if e["type"] == "score"]


@pytest.mark.parametrize("size", [(720, 1280), (1080, 1920)])
def test_draws_in_place_keeping_shape_and_dtype(size):
    frame = _frame(*size)
    board = Scoreboard.from_score_event(_scores()[4], PLAYERS)
    trails = {"white": np.array([[300.0, 300.0], [400, 320], [500, 360], [600, 420]])}
    out = draw_overlay(frame, board, trails, [Marker("pot", (100.0, 80.0), 0.1, "red")])
    assert out is frame and out.shape == (*size, 3) and out.dtype == np.uint8
    with pytest.raises(ValueError, match="HxWx3 uint8"):
        draw_overlay(frame.astype(np.float32), board)


@pytest.mark.parametrize("size", [(720, 1280), (1080, 1920)])
def test_the_score_text_is_inside_the_scoreboard_rect_at_the_bottom_left(size):
    h, w = size
    x, y, bw, bh = scoreboard_rect(size)
    assert x < w * 0.1 and y + bh > h * 0.85 and bw < w * 0.6
    base = Scoreboard(players=tuple(PLAYERS), score=(0, 0))
    a = draw_overlay(_frame(*size), base)
    b = draw_overlay(_frame(*size), Scoreboard(players=tuple(PLAYERS), score=(88, 0)))
    changed = np.argwhere((a != b).any(axis=2))
    assert len(changed) > 20  # the digits drawn
    assert changed[:, 1].min() >= x and changed[:, 1].max() < x + bw
    assert changed[:, 0].min() >= y and changed[:, 0].max() < y + bh
    # nothing drawn outside the board
    untouched = _frame(*size)
    mask = np.ones(size, bool)
    mask[y:y + bh, x:x + bw] = False
    assert np.array_equal(a[mask], untouched[mask])


def test_notices_sit_above_the_board():
    size = (1080, 1920)
    x, y, bw, bh = scoreboard_rect(size)
    plain = Scoreboard(players=tuple(PLAYERS))
    foul = Scoreboard(players=tuple(PLAYERS), notices=(("FOUL 4  IN OFF", "foul"),))
    a, b = draw_overlay(_frame(*size), plain), draw_overlay(_frame(*size), foul)
    rows = np.nonzero((a != b).any(axis=(1, 2)))[0]
    assert rows.min() < y and rows.max() < y + 2  # a strip above the board, nothing below
    strip = b[rows.min() + 2:y - 2, x + 4:x + bw - 4].reshape(-1, 3).astype(int)
    assert np.median(strip[:, 2]) > 150 and np.median(strip[:, 1]) < 90  # red


def test_scoreboard_from_score_events():
    scores = _scores()
    safe, bob_15, in_off, last = scores[0], scores[4], scores[6], scores[-1]
    b = Scoreboard.from_score_event(bob_15, PLAYERS)
    assert b.score == (0, 15) and b.striker == 1 and b.break_ == 15 and b.ball_on == "red"
    assert b.notices == ()
    assert Scoreboard.from_score_event(safe, PLAYERS).break_ == 0
    foul = Scoreboard.from_score_event(in_off, PLAYERS)
    assert foul.notices[0][1] == "foul" and "IN OFF" in foul.notices[0][0]
    assert foul.break_ == 0 and foul.striker == 1
    end = Scoreboard.from_score_event(last, PLAYERS)
    assert end.striker is None and end.frames == (0, 1)
    assert ("FRAME TO BOB BAKER", "win") in end.notices or \
        ("MATCH TO BOB BAKER", "win") in end.notices
    free = Scoreboard.from_score_event(dict(in_off, free_ball=True, miss=True), PLAYERS)
    assert free.notices[0][0].startswith("FOUL AND A MISS") and ("FREE BALL", "info") in \
        free.notices


def test_trails_fade_from_new_to_old():
    frame = np.zeros((720, 1280, 3), np.uint8)
    pts = np.stack([np.linspace(100, 1100, 60), np.full(60, 360.0)], axis=1)
    draw_overlay(frame, None, {"white": pts})
    old, new = frame[355:366, 120:140].max(), frame[355:366, 1060:1080].max()
    assert new > 180 and old < new / 3
    assert frame[:300].max() == 0  # nothing off the line


def test_trails_skip_gaps_and_balls_at_rest():
    frame = np.zeros((720, 1280, 3), np.uint8)
    pts = np.array([[100.0, 100.0], [200, 100], [np.nan, np.nan], [900, 100], [1000, 100]])
    draw_overlay(frame, None, {"red_03": pts, "blue": np.full((30, 2), 600.0)})
    assert frame[95:106, 150].max() > 0 and frame[95:106, 550].max() == 0
    assert frame[590:611, 590:611].max() == 0


def test_markers_from_events_flash_at_the_pocket():
    pot = {"type": "pot", "frame": 90, "t": 3.0, "ball": "red_01", "class": "red",
           "pocket": "top_left", "pocket_px": [640.0, 60.0]}
    contact = {"type": "contact", "frame": 80, "t": 2.7, "balls": ["white", "red_01"],
               "classes": ["white", "red"]}
    ms = markers_from_events([pot, contact], 3.2, lambda tid, e: (320.0, 200.0))
    assert [m.kind for m in ms] == ["pot", "contact"]
    assert ms[0].xy_px == (640.0, 60.0) and ms[1].xy_px == (320.0, 200.0)
    assert markers_from_events([pot], 10.0) == []
    frame = np.zeros((720, 1280, 3), np.uint8)
    draw_overlay(frame, None, None, ms)
    assert frame[40:80, 620:660].max() > 100 and frame[600:].max() == 0


@pytest.mark.parametrize("on, free, potted, worth", [
    ("red", False, ["red"], (1, 0)),
    ("red", False, ["red", "red"], (2, 0)),
    ("red", False, ["red", "white"], (0, 4)),  # S3 R10: nothing scores in a foul stroke
    ("red", False, ["pink"], (0, 6)),  # S3 R11(b): the ball concerned, six
    ("red", True, ["blue"], (1, 0)),  # S3 R12: the free ball as a red
    ("colour", False, ["blue"], (5, 0)),
    ("colour", False, ["blue", "black"], (0, 7)),  # two colours: the higher concerned
    ("yellow", False, ["yellow"], (2, 0)),
    ("yellow", False, ["green"], (0, 4)),
    ("black", False, ["black"], (7, 0)),
    ("black", False, ["white"], (0, 7)),  # the ball on's value
])
def test_the_points_a_pot_is_worth_as_the_stroke_stands(on, free, potted, worth):
    assert pot_points(on, free, potted) == worth


def test_the_board_moves_at_the_pot_and_the_shot_end_corrects_a_foul():
    keeper = ScoreKeeper(Scoreboard(players=tuple(PLAYERS), score=(10, 3), striker=1,
                                    break_=0, ball_on="red"))
    assert keeper.see({"type": "pot", "t": 2.0, "ball": "red_03", "class": "red"})
    assert keeper.board.score == (10, 4) and keeper.board.break_ == 1
    assert not keeper.see({"type": "pot", "t": 2.0, "ball": "red_03", "class": "red"})
    assert keeper.see({"type": "pot", "t": 2.4, "ball": "white", "class": "white"})
    assert keeper.board.score == (14, 3) and keeper.board.break_ == 0  # an in-off, as it stands
    answer = {"type": "score", "t": 3.0, "score": [14, 3], "player": 1, "next_player": 0,
              "ball_on": "red", "foul": {"points": 4, "reason": "in_off"}, "frame_over": False}
    keeper.see(answer)
    assert keeper.board.score == (14, 3) and keeper.board.striker == 0
    # a pot of a stroke already answered for changes nothing
    assert not keeper.see({"type": "pot", "t": 2.9, "ball": "red_04", "class": "red"})
