"""The simulator playing pool: pockets of the WPA cut that take balls, orientations carried
through the physics and shown by the renderer, racks as the rules set them, and truth named by
pool ids."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from calibration.specs import POOL_9FT, POOL_BALLS, POOL_TABLES, pool_kind
from tracker.sim.model import BallSet, BallState, Strike, quat_from_rotvec, quat_mul
from tracker.sim.physics import PhysicsParams, simulate
from tracker.sim.pool import BallPalette, PoolRenderer, pool_rack, rack_order
from tracker.sim.render import Look
from tracker.sim.scenarios import overhead_camera

QUIET = PhysicsParams(cloth_noise=0.0, mass_kg=0.163)
# Flat light, plain cloth, unshaded balls, no markings or noise: a ball's pixels are its
# albedo wherever the ball covers the pixel whole.
FLAT = Look(ambient=1.0, nap_strength=0.0, vignette=0.0, shading=False, shadows=False,
            line_alpha=0.0, noise_sigma=0.0)


def one_ball(table, xy, ball="cue", orient=None) -> BallSet:
    return BallSet([ball], [ball], np.array([[xy[0], xy[1], table.ball_radius_mm]]),
                   orient=orient)


# -- pockets --------------------------------------------------------------------------------------
@pytest.mark.parametrize("size", sorted(POOL_TABLES))
@pytest.mark.parametrize("pocket", ["head_left", "head_right", "side_left", "side_right",
                                    "foot_left", "foot_right"])
def test_a_ball_rolled_at_a_pocket_falls_in_that_pocket(size, pocket):
    table = POOL_TABLES[size]
    p = table.pockets[pocket]
    centre = np.array([table.width_mm / 2, table.length_mm / 2])
    mouth = np.mean(p.knuckles_mm, axis=0)
    inward = (centre - mouth) / np.linalg.norm(centre - mouth)
    if pocket.startswith("side"):
        inward = np.array([np.sign(inward[0]), 0.0])
    start = mouth + inward * 500
    d = np.asarray(p.fall_centre_mm) - start
    m = simulate(one_ball(table, start), Strike(math.degrees(math.atan2(d[1], d[0])), 1500.0),
                 table, QUIET)
    pots = [e for e in m.events if e.type == "pot"]
    assert [(e.balls, e.pocket) for e in pots] == [(("cue",), pocket)]
    assert m.final.state[0] == BallState.POTTED


def test_a_ball_rolled_along_a_cushion_past_a_side_pocket_stays_on_the_table():
    table = POOL_9FT
    start = (table.ball_radius_mm + 0.5, table.length_mm * 0.3)
    m = simulate(one_ball(table, start), Strike(90.0, 1200.0, top=0.4), table, QUIET)
    # the mouth is far wider than the ball, but a ball hugging the rail runs along the jaw
    # line: it either drops or is turned by the far jaw; it never leaves the table otherwise
    assert not [e for e in m.events if e.type == "off_table"]


# -- orientation ----------------------------------------------------------------------------------
def test_a_rolling_ball_turns_by_its_distance_over_its_radius_about_a_level_axis():
    table = POOL_9FT
    m = simulate(one_ball(table, (600.0, 400.0)), Strike(90.0, 1200.0, top=0.4), table, QUIET,
                 orientation=True)
    R = table.ball_radius_mm
    i, j = 100, 130  # rolling by then (natural roll from the strike), still moving
    q = quat_mul(m.orient[j, 0], m.orient[i, 0] * np.array([1, -1, -1, -1]))
    angle = 2 * math.acos(min(abs(q[0]), 1.0))
    axis = q[1:] / np.linalg.norm(q[1:]) * np.sign(q[0])
    travelled = float(np.linalg.norm(m.pos[j, 0, :2] - m.pos[i, 0, :2]))
    assert 20 < travelled < math.pi * R
    assert angle == pytest.approx(travelled / R, rel=0.01)
    # its top runs ahead: the axis is z x (the direction of travel), here -x
    ahead = (m.pos[j, 0] - m.pos[i, 0]) / travelled
    assert axis == pytest.approx(np.cross([0.0, 0.0, 1.0], ahead), abs=0.02)


def test_carrying_orientations_changes_no_motion():
    table = POOL_9FT
    balls = pool_rack(table, "9ball", np.random.default_rng(3))
    d = np.asarray(table.foot_spot_mm) - balls.pos[0, :2]
    strike = Strike(math.degrees(math.atan2(d[1], d[0])), 9000.0)
    plain = simulate(balls, strike, table, seed=5, sample_dt=1 / 60)
    turned = simulate(balls, strike, table, seed=5, sample_dt=1 / 60, orientation=True)
    assert plain.orient is None and turned.orient.shape == turned.pos.shape[:2] + (4,)
    np.testing.assert_array_equal(plain.pos, turned.pos)
    assert plain.events == turned.events
    np.testing.assert_allclose(np.linalg.norm(turned.orient, axis=2), 1.0, atol=1e-12)
    assert not np.array_equal(turned.final.orient, balls.orient)


# -- racks ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("game,n", [("8ball", 15), ("9ball", 9), ("10ball", 10), ("14.1", 15)])
def test_every_rack_is_tight_with_its_apex_on_the_foot_spot(game, n):
    table = POOL_9FT
    balls = pool_rack(table, game, np.random.default_rng(1))
    assert balls.ids == ["cue"] + [str(k) for k in range(1, n + 1)]
    xy = balls.pos[1:, :2]
    d = np.hypot(*(xy[:, None] - xy[None]).transpose(2, 0, 1))
    np.fill_diagonal(d, np.inf)
    D = table.ball_diameter_mm
    assert d.min() == pytest.approx(D, abs=1e-9)
    touching = (np.abs(d - D) < 1e-6).sum(axis=1)
    assert touching.min() >= 2
    assert np.min(np.hypot(*(xy - table.foot_spot_mm).T)) == pytest.approx(0.0, abs=1e-9)
    assert table.in_kitchen(*balls.pos[0, :2])
    still = simulate(balls, None, table)
    assert [e.type for e in still.events] == ["rest"]


def test_racks_keep_the_balls_the_rules_fix_and_shuffle_the_rest():
    table = POOL_9FT
    canon = {g: table.rack_mm(g) for g in ("8ball", "9ball", "10ball")}
    orders = set()
    for seed in range(20):
        rng = np.random.default_rng(seed)
        r8 = rack_order(table, "8ball", rng)
        assert r8["8"] == canon["8ball"]["8"]
        back = max(y for _, y in r8.values())
        corners = [b for b, (_, y) in r8.items() if abs(y - back) < 1e-6]
        ends = sorted(corners, key=lambda b: r8[b][0])
        assert {pool_kind(ends[0]), pool_kind(ends[-1])} == {"solid", "stripe"}
        orders.add(tuple(sorted(r8, key=lambda b: r8[b])))
        r9 = rack_order(table, "9ball", rng)
        assert r9["1"] == table.foot_spot_mm and r9["9"] == canon["9ball"]["9"]
        r10 = rack_order(table, "10ball", rng)
        assert r10["1"] == table.foot_spot_mm and r10["10"] == canon["10ball"]["10"]
        for rack in (r8, r9, r10):
            assert len(set(rack.values())) == len(rack)
    assert len(orders) == 20


# -- rendering ------------------------------------------------------------------------------------
def _band_share(frame, cam, table, xy, colour, white) -> float:
    """Share of the ball's inner disc (in pixels) nearer the band's colour than white."""
    c = np.array([[xy[0], xy[1], table.ball_radius_mm]])
    u, v = cam.project(c)[0]
    r = float(cam.ball_radius_px(c, table.ball_radius_mm)[0]) * 0.85
    yy, xx = np.mgrid[0:frame.shape[0], 0:frame.shape[1]]
    inside = (xx - u) ** 2 + (yy - v) ** 2 < r * r
    px = frame[inside].astype(float)
    near_colour = np.linalg.norm(px - colour, axis=1) < np.linalg.norm(px - white, axis=1)
    return float(near_colour.mean())


@pytest.fixture(scope="module")
def flat_pool():
    table = POOL_9FT
    cam = overhead_camera((960, 540), height_mm=2000.0, k1=0.0, table=table)
    palette = BallPalette()
    return table, cam, palette, PoolRenderer(cam, table, FLAT, palette=palette)


def test_a_stripe_seen_from_above_shows_its_cap_or_its_band_as_it_is_turned(flat_pool):
    table, cam, palette, renderer = flat_pool
    xy = (table.width_mm / 2, table.length_mm / 2)
    balls = one_ball(table, xy, "11")
    band_up = np.array([[1.0, 0.0, 0.0, 0.0]])  # the band about the table's z: a white cap
    band_across = quat_from_rotvec(np.array([[math.pi / 2, 0.0, 0.0]]))
    colour, white = np.array(palette.colour("11")), np.array(palette.disc_bgr)
    shares = []
    for q in (band_up, band_across):
        frame, vis = renderer.render(balls.classes, balls.pos, orient=q, noise=False)
        assert vis[0] > 0.99
        shares.append(_band_share(frame, cam, table, xy, colour, white))
    cap, across = shares
    assert cap < 0.2  # the band lies at the rim, outside the inner disc but for a sliver
    assert across > 0.5


def test_a_rolling_stripe_turns_its_band_between_frames(flat_pool):
    table, cam, palette, renderer = flat_pool
    R = table.ball_radius_mm
    # the band's axis along the travel: seen from above the band crosses the ball; a quarter
    # turn later its axis stands up and the white cap shows
    start = quat_from_rotvec(np.array([math.pi / 2, 0.0, 0.0]))
    balls = one_ball(table, (table.width_mm / 2, 500.0), "13", orient=start[None])
    balls.vel[0], balls.omega[0] = (0.0, 1000.0, 0.0), (-1000.0 / R, 0.0, 0.0)  # rolling
    m = simulate(balls, None, table, QUIET, orientation=True)
    travelled = np.linalg.norm(m.pos[:, 0, :2] - m.pos[0, 0, :2], axis=1)
    later = int(np.argmax(travelled >= math.pi / 2 * R))
    colour, white = np.array(palette.colour("13")), np.array(palette.disc_bgr)
    shares = []
    for k in (0, later):
        frame, _ = renderer.render(["13"], m.pos[k], orient=m.orient[k], noise=False)
        shares.append(_band_share(frame, cam, table, m.pos[k, 0, :2], colour, white))
    assert shares[0] > 0.5 and shares[1] < 0.25


def test_a_spinning_ball_in_place_is_drawn_turning_not_from_the_cache(flat_pool):
    table, cam, palette, renderer = flat_pool
    xy = (400.0, 900.0)
    balls = one_ball(table, xy, "10")
    across = quat_from_rotvec(np.array([[math.pi / 2, 0.0, 0.0]]))
    first, _ = renderer.render(balls.classes, balls.pos, orient=across, noise=False)
    turned = quat_mul(quat_from_rotvec(np.array([0.0, 0.0, math.pi / 2])), across)
    second, _ = renderer.render(balls.classes, balls.pos, orient=turned, noise=False)
    assert np.abs(first.astype(int) - second.astype(int)).max() > 100


# -- truth -----------------------------------------------------------------------------------------
def test_a_pool_clip_names_its_game_table_and_pool_ids(tmp_path, capsys):
    from tracker.cli import main
    from tracker.sim.truth import read_truth

    out = tmp_path / "cut.mp4"
    assert main(["simulate", "pool_cut_corner", "-o", str(out), "--resolution", "320x240",
                 "--fps", "10"]) == 0
    assert "8ball, table 8ft" in capsys.readouterr().out
    read_meta, truth = read_truth(out)
    assert read_meta["game"] == "8ball" and read_meta["table"] == "8ft"
    assert truth.ids == ["cue", "3", "6", "12"] and truth.classes == truth.ids
    assert set(truth.ids) <= set(POOL_BALLS)
    pots = [e for e in read_meta["events"] if e["type"] == "pot"]
    assert [(e["ball"], e["pocket"]) for e in pots] == [("3", "foot_right")]
    assert read_meta["shots"][0]["potted"] == [{"ball": "3", "pocket": "foot_right"}]
    assert read_meta["scores"][0]["legal"] is True
    assert truth.state[-1, truth.ids.index("3")] == "potted"
    # each ball's orientation, a unit quaternion, held while it rests and turning as it rolls
    assert truth.orient.shape == truth.pos_mm.shape[:2] + (4,)
    np.testing.assert_allclose(np.linalg.norm(truth.orient, axis=2), 1.0, atol=1e-4)
    assert (truth.orient[..., 0] >= 0).all()
    resting = truth.state[:, 0] == "rest"
    moving = truth.state[:, 0] == "moving"
    assert np.ptp(truth.orient[:3, 0], axis=0).max() < 1e-9 and resting[:3].all()
    assert np.abs(np.diff(truth.orient[:, 0], axis=0)).max(axis=1)[moving[1:]].max() > 0.05


def test_simulate_lists_the_pool_scenarios_and_refuses_a_snooker_camera_for_them(capsys):
    from tracker.cli import main

    assert main(["simulate", "--list"]) == 0
    out = capsys.readouterr().out
    assert "pool_break_8ball" in out and "break_off" in out
    assert main(["simulate", "pool_break_8ball", "--camera", "broadcast"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "overhead or oblique" in err[0]


POOL_SAMPLES = sorted((Path(__file__).resolve().parents[2] / "sample_videos" / "pool")
                      .glob("[!.]*.mp4"))


@pytest.mark.parametrize("clip", POOL_SAMPLES, ids=[c.stem for c in POOL_SAMPLES])
def test_a_pool_sample_clip_matches_its_truth_and_the_pool_referee(clip):
    from tracker.io.video import probe
    from tracker.rules.pool import Referee
    from tracker.sim.pool_scenarios import REFEREE_FIELDS
    from tracker.sim.truth import read_truth

    meta, balls = read_truth(clip)
    info = probe(clip)
    assert (info["width"], info["height"]) == tuple(meta["image_size"])
    assert abs(info["fps"] - meta["fps"]) < 1e-6
    assert balls.pos_mm.shape[:2] == (meta["frames"], len(meta["ball_ids"]))
    assert balls.ids[0] == "cue" and set(balls.ids) <= set(POOL_BALLS)
    ref = Referee(meta["game"])
    ref.feed(meta["match"])
    ref.feed(meta["frame_start"])
    results = [ref.feed({"type": "shot", **{k: s[k] for k in REFEREE_FIELDS
                                            if s.get(k) is not None}}) for s in meta["shots"]]
    assert results == meta["scores"]
    assert meta["shots"][0]["break_rail_balls"] >= 4 or meta["shots"][0]["potted"]


def test_the_pool_samples_are_here():
    assert {c.stem for c in POOL_SAMPLES} == {"pool_break_8ball", "pool_9ball_break"}


# -- scenarios ------------------------------------------------------------------------------------
# scenario -> what the pool referee says of its last shot
REFEREED = {
    "pool_break_8ball": {"legal": True, "legal_break": True, "ball_on": "open"},
    "pool_9ball_break": {"legal": True, "legal_break": True},
    "pool_cut_corner": {"legal": True, "next_player": 0},
    "pool_scratch": {"legal": False},
    "pool_bank": {"legal": True, "next_player": 0},
    "pool_jump": {"legal": True},
    "pool_combination_9ball": {"legal": True, "racks": [1, 0]},
    "pool_14_1_rack": {"legal": True, "legal_break": True},
}


@pytest.mark.parametrize("name", sorted(REFEREED))
def test_a_pool_scenario_plays_what_it_promises(name):
    from tracker.sim.model import BallState as S
    from tracker.sim.pool_scenarios import POOL_SCENARIOS

    sc = POOL_SCENARIOS[name]
    tl = sc.build(0)
    last = sc.referee_results(tl.shots)[-1]
    assert {k: last[k] for k in REFEREED[name]} == REFEREED[name]
    if name == "pool_scratch":
        assert "cue_ball_scratch" in last["fouls"]
    if name == "pool_14_1_rack":  # racked by hand: carried in the triangle, then at rest
        racked = [e for e in tl.events if e["type"] == "rack"]
        assert len(racked) == 1 and racked[0]["game"] == "14.1"
        k = int(round(racked[0]["t"] / tl.dt))
        assert (tl.state[k - 1, 1:] == S.IN_HAND).all() and (tl.state[k, 1:] == S.ON_TABLE).all()
    # physical: no overlap on the cloth, unit orientations, one per sample
    d = sc.table.ball_diameter_mm
    assert tl.orient.shape == tl.pos.shape[:2] + (4,)
    np.testing.assert_allclose(np.linalg.norm(tl.orient, axis=2), 1.0, atol=1e-9)
    on = tl.state == S.ON_TABLE
    for k in range(0, len(tl.pos), 11):
        p = tl.pos[k, on[k], :2]
        if len(p) > 1:
            gap = np.hypot(*(p[:, None] - p[None]).transpose(2, 0, 1))
            np.fill_diagonal(gap, np.inf)
            assert gap.min() > d - 0.05, f"balls overlap at sample {k}"
