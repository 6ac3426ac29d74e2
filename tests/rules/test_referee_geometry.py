"""Snookered geometry, full-ball paths, touching and re-spotting (S2 R17, S3 R7, R8, R14; IR
"snookered" notes 1-4)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tracker.rules import geometry as g
from tracker.rules.geometry import SPOTS_MM, contact_points, respot, snooker_check

D = g.BALL_DIAMETER_MM


def _ring(cx, cy, radius, n, prefix="pink"):
    return {f"{prefix}_{i:02d}": (cx + radius * math.cos(2 * math.pi * i / n),
                                  cy + radius * math.sin(2 * math.pi * i / n)) for i in range(n)}


# (rule, balls, on, snookered, fully snookered, full-ball path, both edges blocked)
CASES = [
    ("S2 R17 open table, not snookered",
     {"white": (889, 1000), "red_01": (889, 2000)}, ["red"], False, False, True, False),
    ("S2 R17 blocker in line, snookered",
     {"white": (889, 1000), "red_01": (889, 2000), "blue": (889, 1500)}, ["red"], True, True,
     False, True),
    ("S2 R17 one edge blocked is still snookered",
     {"white": (889, 1000), "red_01": (889, 2000), "blue": (889 + 60, 1500)}, ["red"], True,
     False, True, False),
    ("S2 R17 both edges blocked, the centre clear",
     {"white": (889, 1000), "red_01": (889, 2000), "blue": (889 + 53, 1700),
      "pink": (889 - 53, 1700)}, ["red"], True, False, True, True),
    ("S2 R17 blocker well clear",
     {"white": (889, 1000), "red_01": (889, 2000), "blue": (889 + 120, 1500)}, ["red"], False,
     False, True, False),
    ("S2 R17 one ball on seen at both edges is enough",
     {"white": (889, 1000), "red_01": (889, 2000), "red_02": (300, 2000),
      "blue": (889, 1500)}, ["red"], False, False, True, False),
    ("S2 R17 balls on do not snooker",
     {"white": (889, 1000), "red_01": (889, 2000), "red_02": (889, 1500)}, ["red"], False,
     False, True, False),
    ("S2 R17 a colour on, reds obstruct",
     {"white": (889, 1000), "yellow": (889, 2000), "red_01": (889, 1500)}, ["yellow"], True,
     True, False, True),
    ("S3 R8 touching a ball on is never snookered",
     {"white": (889, 1000), "red_01": (889, 1000 + D), "blue": (889, 900)}, ["red"], False,
     False, True, False),
    ("S2 R17 IR note 4 cushions never snooker",
     {"white": (30, 30), "red_01": (1748, 3539)}, ["red"], False, False, True, False),
]


@pytest.mark.parametrize("balls,on,snookered,fully,full_path,edges",
                         [pytest.param(*c[1:], id=c[0]) for c in CASES])
def test_snooker_check(balls, on, snookered, fully, full_path, edges):
    c = snooker_check(balls, on)
    assert (c.snookered, c.fully_snookered, c.full_ball_path, c.both_edges_blocked) == (
        snookered, fully, full_path, edges)


def test_snookering_ball_is_the_nearest():
    """IR "snookered" note 2(a)-(b): the snookering ball is the obstructing ball nearest the
    white; at equal distance, all of them."""
    balls = {"white": (889, 1000), "red_01": (889, 2000), "blue": (889, 1300),
             "pink": (889, 1700)}
    assert snooker_check(balls, ["red"]).snookered_by == ("blue",)
    balls = {"white": (889, 1000), "red_01": (889, 2000), "blue": (889 + 30, 1300),
             "pink": (889 - 30, 1300)}
    assert snooker_check(balls, ["red"]).snookered_by == ("blue", "pink")


def test_several_reds_behind_several_balls():
    """IR "snookered" note 3: reds blocked by different balls: no single snookering ball."""
    balls = {"white": (889, 1000), "red_01": (889, 2000), "red_02": (300, 2000),
             "blue": (889, 1500), "pink": (889 - 0.5 * 589, 1500)}
    c = snooker_check(balls, ["red"])
    assert c.snookered and c.snookered_by == () and set(c.obstructing) == {"blue", "pink"}


def test_in_hand_enclosed_ball_is_snookered_from_the_whole_d():
    """S2 R17: in hand, snookered only if snookered from every position in the D."""
    balls = {"yellow": (300, 2000), **_ring(300, 2000, 150, 17)}
    c = snooker_check(balls, ["yellow"], in_hand=True)
    assert c.snookered and c.fully_snookered and c.both_edges_blocked and not c.full_ball_path


def test_in_hand_one_clear_spot_is_enough():
    """S2 R17: from somewhere in the D the red can be seen at both edges."""
    balls = {"red_01": (889, 2000), "blue": (889, 1200)}
    assert not snooker_check(balls, ["red"], in_hand=True).snookered
    assert snooker_check({**balls, "white": (889, 600)}, ["red"]).snookered


def test_d_placements_are_in_the_d():
    """S3 R5: the white in hand goes on or inside the D's line."""
    pts = g.d_placements()
    cx, cy = g.D_CENTRE_MM
    assert len(pts) > 1000
    assert all(y <= cy + 1e-9 and math.dist((x, y), (cx, cy)) <= g.D_RADIUS_MM + 1e-6
               for x, y in pts)
    assert all(math.dist(p, SPOTS_MM["brown"]) >= D - 1e-6
               for p in g.d_placements({"brown": SPOTS_MM["brown"]}))


@settings(database=None)
@given(st.floats(100, 1600), st.floats(100, 3400), st.floats(0, 2 * math.pi),
       st.floats(60, 1500))
def test_contact_points_are_tangent(x, y, a, d):
    """The extreme-edge contacts: one diameter from the target, the path tangent there."""
    cue = (x, y)
    t = (x + d * math.cos(a), y + d * math.sin(a))
    left, full, right = contact_points(cue, t)
    for q in (left, right):
        assert math.isclose(math.dist(q, t), D, rel_tol=1e-9)
        dot = (q[0] - cue[0]) * (q[0] - t[0]) + (q[1] - cue[1]) * (q[1] - t[1])
        assert abs(dot) < 1e-6 * d * D
    assert math.isclose(math.dist(full, t), D)


_coord = st.tuples(st.floats(30, 1748), st.floats(30, 3539))


@settings(max_examples=150, deadline=None, database=None)
@given(_coord, _coord, st.lists(_coord, max_size=6), _coord)
def test_adding_a_ball_never_unsnookers(white, target, others, extra):
    """S2 R17: obstruction only grows with more balls not on."""
    balls = {"white": white, "red_01": target}
    balls.update({f"blue_{i}": p for i, p in enumerate(others)})
    if any(math.dist(p, q) < D for i, p in enumerate(balls.values())
           for q in list(balls.values())[i + 1:]):
        return
    before = snooker_check(balls, ["red"])
    after = snooker_check({**balls, "pink_x": extra}, ["red"])
    assert before.snookered <= after.snookered
    assert after.full_ball_path <= before.full_ball_path


def test_touching():
    """S3 R8: the white touches a ball within a millimetre."""
    balls = {"white": (500, 500), "red_01": (500, 500 + D + 0.5), "pink": (500, 700)}
    assert g.touching(balls) == ("red_01",)
    assert g.touching({"red_01": (1, 1)}) == ()


@pytest.mark.parametrize("colour", list(SPOTS_MM), ids=[f"S3 R7 own spot {c}" for c in SPOTS_MM])
def test_respot_own_spot(colour):
    assert respot(colour, {"white": (100, 100)}) == (colour, SPOTS_MM[colour])


@pytest.mark.parametrize("colour", list(SPOTS_MM),
                         ids=[f"S3 R7 highest free spot for {c}" for c in SPOTS_MM])
def test_respot_highest_free_spot(colour):
    occupied = {f"red_{i}": p for i, (c, p) in enumerate(SPOTS_MM.items()) if c in (
        colour, "black")}
    want = "pink" if colour != "pink" else "blue"
    if colour == "black":
        want = "pink"
    assert respot(colour, occupied)[0] == want


def test_respot_toward_top_then_below():
    """S3 R7: all spots taken: as near as possible toward the top cushion; no room there:
    below the spot."""
    occupied = {f"red_{c}": p for c, p in SPOTS_MM.items()}
    spot, (x, y) = respot("blue", occupied)
    assert spot is None and x == SPOTS_MM["blue"][0]
    assert math.isclose(y, SPOTS_MM["blue"][1] + D + g.TOUCH_TOLERANCE_MM)
    wall = {f"red_w{i}": (889, SPOTS_MM["black"][1] + k) for i, k in enumerate(
        range(0, 400, 53))}
    spot, (x, y) = respot("black", {**occupied, **wall})
    assert spot is None and y < SPOTS_MM["black"][1]


def test_spots_agree_with_the_table_spec():
    """The referee's pure-Python table matches calibration.specs (Section 1 Rule 1)."""
    from calibration.specs import SNOOKER

    for c, p in SPOTS_MM.items():
        assert p == pytest.approx(SNOOKER.spots_mm[c])
    assert g.BALL_DIAMETER_MM == SNOOKER.ball_diameter_mm
    assert g.D_RADIUS_MM == SNOOKER.d_radius_mm and g.BAULK_LINE_MM == SNOOKER.baulk_line_mm
