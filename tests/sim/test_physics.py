"""The simulator against physics truth: conservation laws, analytic sliding-to-rolling, and the
shots a player knows (stun, follow, screw, pots, rattles, jumps, swerve)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from calibration.specs import SNOOKER
from tracker.sim.model import BallSet, BallState, Strike
from tracker.sim.physics import (
    PhysicsParams,
    Simulation,
    collide_balls,
    collide_rail,
    rack,
    simulate,
    strike_white,
    total_energy,
)

R = SNOOKER.ball_radius_mm
CX = SNOOKER.centre_x_mm
QUIET = PhysicsParams(cloth_noise=0.0)


def balls(**xy: tuple[float, float]) -> BallSet:
    """A BallSet at rest on the cloth: ``balls(white=(x, y), red_01=(x, y))``."""
    ids = list(xy)
    return BallSet(ids, [i.split("_")[0] for i in ids],
                   np.array([(x, y, R) for x, y in xy.values()]))


def of_type(motion, kind: str):
    return [e for e in motion.events if e.type == kind]


def energies(start: BallSet, strike: Strike | None, max_time: float, seed: int = 0,
             sample_dt: float = 1 / 480):
    """Total energy (J) at every sample of a shot, and the simulation at the end."""
    sim = Simulation(start, seed=seed)
    if strike is not None:
        sim.strike(strike)
    out, k = [], 0
    while True:
        sim.advance_to(k * sample_dt)
        out.append(total_energy(sim.balls()))
        if sim.at_rest() or k * sample_dt >= max_time:
            return np.array(out), sim
        k += 1


def break_off_strike() -> tuple[BallSet, Strike]:
    table = rack()
    d = SNOOKER.red_rack_mm[0] - table.pos[0, :2]
    return table, Strike(math.degrees(math.atan2(d[1], d[0])) - 0.3, 8000.0)


@pytest.fixture(scope="module")
def break_off():
    table, strike = break_off_strike()
    return simulate(table, strike, seed=3)


# -- impulses ---------------------------------------------------------------------------------

vec = st.tuples(*[st.floats(-3000, 3000)] * 3).map(np.array)
spin = st.tuples(*[st.floats(-300, 300)] * 3).map(np.array)
unit = st.tuples(*[st.floats(-1, 1)] * 3).filter(lambda u: np.linalg.norm(u) > 0.1).map(
    lambda u: np.array(u) / np.linalg.norm(u))


def ball_energy(v, w):
    return 0.5 * v @ v + 0.5 * 0.4 * R * R * w @ w  # per unit mass


@settings(max_examples=200, derandomize=True, deadline=None)
@given(v1=vec, w1=spin, v2=vec, w2=spin, n=unit)
def test_ball_collision_conserves_momentum_and_never_gains_energy(v1, w1, v2, w2, n):
    p1 = np.array([800.0, 900.0, R])
    p2 = p1 + 2 * R * n
    a, wa, b, wb, speed = collide_balls(p1, v1, w1, p2, v2, w2, R, PhysicsParams(mu_ball=0.2))
    np.testing.assert_allclose(a + b, v1 + v2, rtol=0, atol=1e-9)
    # Angular momentum about the contact point is conserved too (the impulses act there).
    c = p1 + R * n
    before = np.cross(p1 - c, v1) + 0.4 * R * R * w1 + np.cross(p2 - c, v2) + 0.4 * R * R * w2
    after = np.cross(p1 - c, a) + 0.4 * R * R * wa + np.cross(p2 - c, b) + 0.4 * R * R * wb
    np.testing.assert_allclose(after, before, rtol=0, atol=1e-6 * (1 + np.abs(before).max()))
    assert (ball_energy(a, wa) + ball_energy(b, wb)
            <= ball_energy(v1, w1) + ball_energy(v2, w2) + 1e-6)
    if speed > 0:  # they separate afterwards
        assert (b - a) @ n > 0 or np.isclose((b - a) @ n, 0, atol=1e-6)


def test_head_on_collision_passes_the_speed_with_restitution():
    p = PhysicsParams()
    a, _, b, _, speed = collide_balls(np.array([0.0, 0, R]), np.array([0.0, 1000, 0]),
                                      np.zeros(3), np.array([0.0, 2 * R, R]), np.zeros(3),
                                      np.zeros(3), R, p)
    assert speed == pytest.approx(1000)
    assert a[1] == pytest.approx(1000 * (1 - p.e_ball) / 2)
    assert b[1] == pytest.approx(1000 * (1 + p.e_ball) / 2)


def test_cut_with_friction_throws_the_object_ball_off_the_line_of_centres():
    n = np.array([math.sin(math.radians(30)), math.cos(math.radians(30)), 0.0])
    p1 = np.array([0.0, 0, R])
    _, _, b, _, _ = collide_balls(p1, np.array([0.0, 1500, 0]), np.zeros(3), p1 + 2 * R * n,
                                  np.zeros(3), np.zeros(3), R, PhysicsParams())
    throw_deg = math.degrees(math.atan2(b[0], b[1])) - 30
    assert -5 < throw_deg < -0.5  # thrown towards the cue ball's path, a few degrees


@settings(max_examples=100, derandomize=True, deadline=None)
@given(v=vec, w=spin)
def test_rail_impulse_never_gains_energy(v, w):
    p = np.array([500.0, 100.0, R])
    contact = np.array([500.0, 100.0 - math.sqrt(R * R - (33 - R) ** 2), 33.0])
    v2, w2, _ = collide_rail(p, v, w, contact, R, 0.9, 0.14)
    assert ball_energy(v2, w2) <= ball_energy(v, w) + 1e-6


# -- energy and overlap over whole shots ------------------------------------------------------

shot = st.builds(Strike, direction_deg=st.floats(0, 360), speed_mm_s=st.floats(300, 9000),
                 top=st.floats(-0.8, 0.8), side=st.floats(-0.8, 0.8),
                 elevation_deg=st.floats(0, 50))


@settings(max_examples=6, derandomize=True, deadline=None)
@given(strike=shot)
def test_energy_never_increases_in_random_shots(strike):
    start = balls(white=(CX, 1400), red_01=(CX + 40, 1700), red_02=(CX - 300, 1600),
                  blue=SNOOKER.spots_mm["blue"], pink=SNOOKER.spots_mm["pink"])
    e, _ = energies(start, strike, max_time=3.0)
    assert np.all(np.diff(e) <= 1e-9), np.diff(e).max()


def test_energy_never_increases_in_a_break_off():
    table, strike = break_off_strike()
    e, sim = energies(table, strike, max_time=40.0)
    assert np.all(np.diff(e) <= 1e-9), np.diff(e).max()
    assert sim.at_rest() and e[-1] == 0


def test_break_off_never_overlaps_and_comes_to_rest(break_off):
    m = break_off
    live = (m.state == BallState.ON_TABLE) | (m.state == BallState.AIRBORNE)
    worst = 0.0
    for k in range(len(m.times)):
        p = m.pos[k, live[k]]
        d = np.linalg.norm(p[:, None] - p[None], axis=2) + np.eye(len(p)) * 1e9
        worst = max(worst, 2 * R - d.min())
    assert worst <= 0.01
    assert m.events[-1].type == "rest"
    assert len(of_type(m, "contact")) > 15  # the pack opened
    assert not np.any(m.final.vel) and not np.any(m.final.omega)
    assert [e.t for e in m.events] == sorted(e.t for e in m.events)


def test_motion_samples_and_final_state(break_off):
    m = break_off
    assert np.allclose(np.diff(m.times), 1 / 480)
    assert m.pos.shape == (len(m.times), 22, 3)
    assert np.array_equal(m.final.state, m.state[-1])
    assert np.array_equal(m.pos[-1], m.pos[-2])  # one final sample at rest


# -- determinism ------------------------------------------------------------------------------


def test_same_seed_is_bit_identical_and_seeds_differ_slightly():
    start = balls(white=(CX, 1000), red_01=(CX + 20, 1500))
    strike = Strike(90, 2500, top=0.3, side=0.2)
    a, b = (simulate(start, strike, seed=7, max_time=2.0) for _ in range(2))
    assert np.array_equal(a.times, b.times) and np.array_equal(a.pos, b.pos)
    assert np.array_equal(a.state, b.state) and a.events == b.events
    c = simulate(start, strike, seed=8, max_time=2.0)
    n = min(len(a.times), len(c.times))
    gap = np.abs(a.pos[:n] - c.pos[:n]).max()
    assert 0 < gap < 10


# -- cloth ------------------------------------------------------------------------------------


def test_stun_slides_to_natural_roll_at_five_sevenths_after_the_twelve_sevenths_distance():
    v0, p = 800.0, QUIET
    start = balls(white=(CX, 300))
    start.vel[0] = (0, v0, 0)  # a stunned ball: no spin
    m = simulate(start, None, params=p)
    mu_g, roll_g = p.mu_slide * p.g, p.mu_roll * p.g
    t_roll = 2 * v0 / (7 * mu_g)
    s_roll = 12 * v0 ** 2 / (49 * mu_g)  # slides 12/49 v0^2 / (mu g), then rolls at 5/7 v0
    y = m.pos[:, 0, 1] - 300
    for t in (0.05, t_roll, t_roll + 0.5, t_roll + 3.0):
        k = int(round(t * 480))
        tk = m.times[k]
        if tk <= t_roll:
            expected = v0 * tk - 0.5 * mu_g * tk ** 2
        else:
            expected = s_roll + 5 / 7 * v0 * (tk - t_roll) - 0.5 * roll_g * (tk - t_roll) ** 2
        assert y[k] == pytest.approx(expected, abs=1.0)
    stop = s_roll + (5 / 7 * v0) ** 2 / (2 * roll_g)
    assert m.final.pos[0, 1] - 300 == pytest.approx(stop, abs=2.0)


def test_top_spin_of_two_fifths_rolls_at_once():
    out = strike_white(balls(white=(CX, 300)), Strike(90, 1000, top=0.4))
    assert out.omega[0, 0] * R == pytest.approx(-out.vel[0, 1])


def test_contact_time_is_the_time_of_impact_inside_the_step():
    v0, p = 1000.0, QUIET
    start = balls(white=(CX, 1000), red_01=(CX, 1300))
    start.vel[0], start.omega[0] = (0, v0, 0), (-v0 / R, 0, 0)  # rolling
    m = simulate(start, None, params=p, max_time=1.0)
    gap, a = 300 - 2 * R, p.mu_roll * p.g
    t_hit = (v0 - math.sqrt(v0 * v0 - 2 * a * gap)) / a
    first = of_type(m, "contact")[0]
    assert first.t == pytest.approx(t_hit, abs=2e-6)
    assert first.speed_mm_s == pytest.approx(v0 - a * t_hit, rel=1e-3)


# -- shots ------------------------------------------------------------------------------------


def white_after_contact(top: float) -> tuple[float, float]:
    """(y at contact, y 4 s later) of the white in a straight shot at a red 250 mm ahead."""
    m = simulate(balls(white=(CX, 1000), red_01=(CX, 1300)), Strike(90, 1500, top=top),
                 max_time=4.0)
    k = np.searchsorted(m.times, of_type(m, "contact")[0].t)
    return m.pos[k, 0, 1], m.final.pos[0, 1]


def test_stun_stops_the_white_dead():
    at, rest = white_after_contact(-0.3)
    assert abs(rest - at) < 10


def test_follow_goes_on_and_screw_comes_back():
    at, rest = white_after_contact(0.4)
    assert rest - at > 300
    at, rest = white_after_contact(-0.6)
    assert at - rest > 300


def aim(white, target, pocket: str):
    """Heading (deg) sending the white to hit ``target`` full towards ``pocket``'s point."""
    p = np.array(SNOOKER.pockets[pocket].point_mm)
    t = np.asarray(target, float)
    ghost = t - 2 * R * (p - t) / np.linalg.norm(p - t)
    d = ghost - np.asarray(white, float)
    return math.degrees(math.atan2(d[1], d[0]))


@pytest.mark.parametrize("pocket, red", [("top_left", (400, 3000)), ("middle_right", (1300, 1900)),
                                         ("baulk_right", (1500, 400))])
def test_straight_shot_pots_the_red_in_that_pocket(pocket, red):
    white = (CX - 100, 2000) if pocket != "baulk_right" else (1100, 800)
    m = simulate(balls(white=white, red_01=red), Strike(aim(white, red, pocket), 2500))
    pots = of_type(m, "pot")
    assert [(e.balls, e.pocket) for e in pots] == [(("red_01",), pocket)]
    i = m.ids.index("red_01")
    assert m.final.state[i] == BallState.POTTED
    fall = SNOOKER.pockets[pocket].fall_centre_mm
    np.testing.assert_allclose(m.final.pos[i], (*fall, -100.0), atol=1e-9)


def test_hard_angled_shot_at_the_jaw_rattles_out():
    m = simulate(balls(white=(500, 300)), Strike(212, 3000, top=0.4))
    assert len(of_type(m, "jaw")) >= 2
    assert not of_type(m, "pot")
    assert m.final.state[0] == BallState.ON_TABLE


def test_jump_shot_passes_over_a_blocking_ball():
    m = simulate(balls(white=(CX, 1000), red_01=(CX, 1250)),
                 Strike(90, 4000, elevation_deg=40), max_time=0.5)
    jumps = of_type(m, "jump")
    assert [e.over for e in jumps] == ["red_01"]
    assert not of_type(m, "contact")
    assert of_type(m, "land")[0].t > jumps[0].t
    assert m.pos[:, 0, 2].max() > 3 * R  # its bottom cleared the red's top


def test_jump_over_nothing_is_reported_on_landing():
    m = simulate(balls(white=(CX, 1000)), Strike(90, 4000, elevation_deg=40), max_time=0.5)
    (jump,), (land,) = of_type(m, "jump"), of_type(m, "land")
    assert jump.over is None and jump.t == land.t
    assert (m.state[:, 0] == BallState.AIRBORNE).any()


def test_same_shot_level_hits_the_blocking_ball():
    m = simulate(balls(white=(CX, 1000), red_01=(CX, 1250)),
                 Strike(90, 4000, elevation_deg=10), max_time=0.5)
    assert of_type(m, "contact") and not of_type(m, "jump")


def test_very_hard_elevated_shot_leaves_the_table():
    m = simulate(balls(white=(CX, 3200)), Strike(90, 9000, elevation_deg=50))
    assert [e.balls for e in of_type(m, "off_table")] == [("white",)]
    assert m.final.state[0] == BallState.OFF_TABLE
    assert m.final.pos[0, 1] > SNOOKER.length_mm


def test_swerve_curves_the_path_towards_the_side():
    def x_after(side: float) -> float:
        m = simulate(balls(white=(CX, 500)), Strike(90, 2000, side=side, elevation_deg=20),
                     max_time=1.0)
        return m.pos[-1, 0, 0] - CX

    straight, right, left = x_after(0.0), x_after(0.5), x_after(-0.5)
    assert abs(straight) < 1
    assert right > 50 and left < -50


def test_side_changes_the_cushion_rebound_angle():
    def heading_after_cushion(side: float) -> float:
        m = simulate(balls(white=(CX, 3000)), Strike(90, 2000, side=side), max_time=0.8)
        d = m.pos[-1, 0, :2] - m.pos[-40, 0, :2]
        return math.degrees(math.atan2(d[0], -d[1]))

    plain, right = heading_after_cushion(0.0), heading_after_cushion(0.6)
    assert abs(plain) < 0.5
    assert abs(right) > 3
