import math

import numpy as np
import pytest

from calibration.specs import (
    POCKETS,
    POOL_7FT,
    POOL_8FT,
    POOL_9FT,
    POOL_CUSHIONS,
    POOL_POCKETS,
    SNOOKER,
    SnookerTableSpec,
    pool_colour,
    pool_kind,
)


def test_rule_numbers():
    s = SNOOKER
    assert (s.width_mm, s.length_mm) == (1778.0, 3569.0)
    assert s.baulk_line_mm == 737.0 and s.d_radius_mm == 292.0
    assert s.ball_radius_mm == 26.25


def test_spots_follow_section_1_rule_1f():
    sp = SNOOKER.spots_mm
    assert sp["blue"] == (889.0, 3569.0 / 2)
    assert sp["pink"][1] == pytest.approx((sp["blue"][1] + 3569.0) / 2)
    assert 3569.0 - sp["black"][1] == 324.0
    # yellow on the right of the D seen from baulk, green on the left, brown in the middle
    assert sp["yellow"][0] > sp["brown"][0] > sp["green"][0]
    assert sp["yellow"][0] - sp["green"][0] == 2 * 292.0


def test_pockets_and_cushions_meet():
    p = SNOOKER.pockets
    assert tuple(p) == POCKETS
    assert p["baulk_left"].mouth_mm == pytest.approx(SNOOKER.corner_mouth_mm)
    assert p["middle_right"].mouth_mm == pytest.approx(SNOOKER.middle_mouth_mm)
    for name, (a, b) in SNOOKER.cushions_mm.items():
        # every cushion nose lies on the outline of the playing area
        xs, ys = {a[0], b[0]}, {a[1], b[1]}
        assert len(xs) == 1 or len(ys) == 1, name
    # the six cushions and six mouths add up to the perimeter
    total = sum(math.dist(a, b) for a, b in SNOOKER.cushions_mm.values())
    corners = 4 * 2 * SNOOKER.corner_mouth_mm / math.sqrt(2)
    assert total + corners + 2 * SNOOKER.middle_mouth_mm == pytest.approx(2 * (1778 + 3569))


@pytest.mark.parametrize("reds,rows", [(15, 5), (10, 4), (6, 3)])
def test_red_triangle(reds, rows):
    rack = SnookerTableSpec(reds=reds).red_rack_mm
    assert rack.shape == (reds, 2)
    d = np.hypot(*(rack[:, None] - rack[None]).transpose(2, 0, 1))
    np.fill_diagonal(d, np.inf)
    assert d.min() == pytest.approx(52.5)  # touching, never overlapping
    pink_y = SNOOKER.spots_mm["pink"][1]
    assert rack[:, 1].min() - pink_y > 52.5  # apex near the pink without touching it


def test_in_d():
    assert SNOOKER.in_d(889, 737) and SNOOKER.in_d(889, 737 - 292)
    assert not SNOOKER.in_d(889, 740) and not SNOOKER.in_d(889 + 300, 700)


def test_pool_tables_are_two_to_one():
    for t in (POOL_7FT, POOL_8FT, POOL_9FT):
        assert t.length_mm == pytest.approx(2 * t.width_mm)


def test_pool_tables_have_eighteen_sights_off_the_cushion_noses():
    for t in (POOL_7FT, POOL_8FT, POOL_9FT):
        s = t.sights_mm
        assert s.shape == (18, 2)
        outside = (s[:, 0] < 0) | (s[:, 0] > t.width_mm) | (s[:, 1] < 0) | (s[:, 1] > t.length_mm)
        assert outside.all()
        # no sight on the side pockets' line
        assert not np.any(np.isclose(s[:, 1], t.length_mm / 2))


def test_pool_pockets_mouths_are_the_wpa_ones_and_cushions_join_them():
    t = POOL_9FT
    assert set(t.pockets) == set(POOL_POCKETS) and set(t.cushions_mm) == set(POOL_CUSHIONS)
    assert t.pockets["head_left"].mouth_mm == pytest.approx(t.corner_mouth_mm)
    assert t.pockets["side_right"].mouth_mm == pytest.approx(t.side_mouth_mm)
    (ax, ay), (bx, by) = t.cushions_mm["head"]
    assert ay == by == 0 and bx - ax == pytest.approx(t.width_mm - 2 * t.corner_mouth_mm / 2 ** 0.5)


@pytest.mark.parametrize("game,n", [("8ball", 15), ("14.1", 15), ("9ball", 9), ("10ball", 10)])
def test_pool_racks_are_tight_and_start_on_the_foot_spot(game, n):
    rack = POOL_9FT.rack_mm(game)
    assert len(rack) == n
    pts = np.array(list(rack.values()))
    d = np.hypot(*(pts[:, None] - pts[None]).transpose(2, 0, 1))
    np.fill_diagonal(d, np.inf)
    assert d.min() == pytest.approx(POOL_9FT.ball_diameter_mm)
    assert rack["1"] == pytest.approx(POOL_9FT.foot_spot_mm)


def test_pool_ball_kinds_and_colours():
    assert [pool_kind(b) for b in ("cue", "1", "7", "8", "9", "15")] == [
        "cue", "solid", "solid", "eight", "stripe", "stripe"]
    assert pool_colour("11") == pool_colour("3") == "red" and pool_colour("cue") == "white"
    with pytest.raises(ValueError):
        pool_kind("16")
