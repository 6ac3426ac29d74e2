import math

import numpy as np
import pytest

from calibration.specs import POCKETS, POOL_7FT, POOL_8FT, POOL_9FT, SNOOKER, SnookerTableSpec


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
