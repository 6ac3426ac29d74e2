"""Scenario scripts against physics truth and the referee (no rendering here)."""

import numpy as np
import pytest

from calibration.specs import SNOOKER
from tracker.sim.make import referee_results
from tracker.sim.model import BallState
from tracker.sim.scenarios import SCENARIOS

# scenario -> (referee's final score, foul points of the last shot or None)
EXPECTED = {
    "in_off": ([0, 4], 4),  # S3 R11(a): in-off, red on: four
    "wrong_ball_first": ([0, 5], 5),  # S3 R11(b): the ball first struck, blue
    "miss": ([0, 4], 4),  # S3 R11(a): no ball hit, red on: four
    "jump_shot": ([0, 4], 4),  # S3 R11(a): a jump shot is valued at the ball on (red): four
    "black_ending": ([147, 0], None),  # the black after a 140 clearance
    "double_kiss": ([0, 0], None),  # a kiss is no foul; nothing potted
}


@pytest.fixture(scope="module")
def timelines():
    return {}


def build(timelines, name):
    if name not in timelines:
        timelines[name] = SCENARIOS[name].build(0)
    return timelines[name]


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_score_after_the_clip(timelines, name):
    tl = build(timelines, name)
    results = referee_results(SCENARIOS[name], tl.shots)
    score, foul = EXPECTED[name]
    assert results[-1]["score"] == score
    last = results[-1]["foul"]
    assert (last["points"] if last else None) == foul
    if name == "black_ending":
        assert results[-1]["frame_over"] and results[-1]["winner"] == 0


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_timeline_is_physical(timelines, name):
    tl = build(timelines, name)
    r, d = SNOOKER.ball_radius_mm, SNOOKER.ball_diameter_mm
    on = tl.state == BallState.ON_TABLE
    for k in range(0, len(tl.pos), 7):
        p = tl.pos[k, on[k]]
        if len(p) > 1:
            gap = np.hypot(*(p[:, None, :2] - p[None, :, :2]).transpose(2, 0, 1))
            np.fill_diagonal(gap, np.inf)
            assert gap.min() > d - 0.05, f"balls overlap at sample {k}"
        # on the cloth and inside the cushions (a ball in a pocket mouth may pass the line)
        assert np.all(np.abs(p[:, 2] - r) < 1e-6)
        assert np.all((p[:, 0] > -60) & (p[:, 0] < SNOOKER.width_mm + 60))
    times = [e["t"] for e in tl.events]
    assert times == sorted(times)
    for shot in tl.shots:
        assert shot["t_end"] > shot["t_start"]


def test_same_seed_same_play(timelines):
    a = build(timelines, "in_off")
    b = SCENARIOS["in_off"].build(0)
    assert np.array_equal(a.pos, b.pos) and a.events == b.events


@pytest.mark.parametrize("name, reds, ball_on", [
    ("colours_only", 0, "yellow"), ("last_red", 1, "red"), ("six_reds_left", 6, "red"),
    ("ten_reds_left", 10, "red")])
def test_a_clip_joined_mid_frame_starts_its_referee_as_the_table_stands(name, reds, ball_on):
    from tracker.rules.snooker import Referee

    start = SCENARIOS[name].frame_start()
    first = Referee().feed(start)
    assert first["reds_left"] == reds and first["ball_on"] == ball_on
    assert first["score"] == [0, 0] and not first["in_hand"]
