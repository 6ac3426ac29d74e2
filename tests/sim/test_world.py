"""Randomised worlds: every parameter a world draws reaches the picture, where it should, and
the renderer's own table is unchanged when no world is given."""

from __future__ import annotations

import importlib.util
import json
from dataclasses import asdict, fields, replace
from pathlib import Path

import numpy as np
import pytest

from calibration.camera import Camera
from calibration.specs import SNOOKER
from tracker.io.video import probe
from tracker.sim.clip import ClipSpec, Lighting, render_clip
from tracker.sim.render import Build, Look, Renderer
from tracker.sim.world import KINDS, World, cut, make_world_clip, world_path

T = SNOOKER
CX, CY = T.centre_x_mm, T.length_mm / 2
SIZE = (384, 216)
R_MM = T.ball_radius_mm
BALL = np.array([[CX + 300, CY + 500, R_MM]])
QUIET = Look(noise_sigma=0.0)


def camera(size=SIZE) -> Camera:
    return Camera.look_at((CX, CY, 3000.0), (CX, CY, 0.0), size, hfov_deg=66.0, up=(-1, 0, 0))


CAM = camera()


def picture(build: Build | None = None, look: Look = QUIET, cam: Camera = CAM) -> np.ndarray:
    """A frame with one ball, no noise."""
    frame, _ = Renderer(cam, look=look, build=build).render(["white"], BALL, noise=False)
    return frame.astype(int)


def table(build: Build | None = None) -> np.ndarray:
    """The empty table."""
    return Renderer(CAM, look=QUIET, build=build).background().astype(int)


def bed_mask(inset_mm: float, cam: Camera = CAM, ball: bool = True) -> np.ndarray:
    """(H, W) bool: pixels whose cloth point lies on the bed at least ``inset_mm`` inside the
    cushion noses (and, with ``ball``, off the ball)."""
    w, h = cam.image_size
    u, v = np.meshgrid(np.arange(w), np.arange(h))
    xy = cam.plane_points(np.c_[u.ravel(), v.ravel()].astype(float)).reshape(h, w, 2)
    inside = ((xy[..., 0] > inset_mm) & (xy[..., 0] < T.width_mm - inset_mm)
              & (xy[..., 1] > inset_mm) & (xy[..., 1] < T.length_mm - inset_mm))
    off_ball = np.hypot(xy[..., 0] - BALL[0, 0], xy[..., 1] - BALL[0, 1]) > 4 * R_MM
    return inside & off_ball if ball else inside


@pytest.fixture(scope="module")
def plain() -> np.ndarray:
    return picture()


@pytest.fixture(scope="module")
def empty() -> np.ndarray:
    return table()


def changed(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.abs(a - b).max(axis=2) > 0


def test_no_build_is_the_renderers_own_table(plain):
    assert np.array_equal(picture(Build()), plain)
    assert np.array_equal(picture(Build(lamp_bgr=(1, 1, 1))), plain)


@pytest.mark.parametrize("change", [
    {"undercut_mm": 11.0}, {"nose_height_mm": 39.0}, {"nose_round": 0.3},
    {"rail_raise_mm": 24.0}, {"cushion_bgr": (150.0, 60.0, 40.0)},
])
def test_cushion_parameters_change_the_cushions_only(empty, change):
    out = changed(table(Build(**change)), empty)
    assert out.sum() > 50, change
    assert not out[bed_mask(120.0)].any(), change


@pytest.mark.parametrize("jaw_mm", [-8.0, 10.0])
def test_jaw_changes_the_picture_only_at_the_pockets(empty, jaw_mm):
    out = changed(table(Build(jaw_mm=jaw_mm)), empty)
    assert out.sum() > 5
    pockets = CAM.project(np.array([[*p.point_mm, 0.0] for p in T.pockets.values()]))
    v, u = np.nonzero(out)
    near = np.hypot(u[:, None] - pockets[None, :, 0], v[:, None] - pockets[None, :, 1]).min(1)
    assert near.max() < 25  # pixels: a pocket's mouth is about 15 px across here


def test_wear_pales_the_cloth_along_the_middle(empty):
    worn = table(Build(wear=0.8))
    bed = bed_mask(60.0)
    assert changed(worn, empty)[bed].mean() > 0.5
    assert worn[bed].sum() > empty[bed].sum()  # worn cloth is paler


def test_chalk_marks_are_small_and_the_chalks_colour(empty):
    build = Build(chalk_marks=25, chalk_bgr=(255.0, 0.0, 0.0))
    chalked = table(build)
    out = changed(chalked, empty)
    assert out.any() and not out[~bed_mask(-30.0, ball=False)].any()
    assert out.mean() < 0.05
    # blue chalk: the marks gain blue against red
    d = chalked[out] - empty[out]
    assert (d[:, 0] - d[:, 2]).mean() > 0


def test_lamp_colour_tints_everything_it_lights(plain):
    warm = picture(Build(lamp_bgr=(0.8, 1.0, 1.15)))
    lit = plain.sum(axis=2) > 60
    assert (warm[lit, 0] <= plain[lit, 0]).all() and (warm[lit, 0] < plain[lit, 0]).mean() > 0.9
    assert (warm[lit, 2] >= plain[lit, 2]).all()


def test_ball_wear_changes_only_the_ball(plain):
    out = changed(picture(Build(ball_wear=0.7)), plain)
    assert out.any()
    c = CAM.project(BALL)[0]
    v, u = np.nonzero(out)
    assert np.hypot(u - c[0], v - c[1]).max() < 2 * CAM.ball_radius_px(BALL, R_MM)[0] + 2


@pytest.mark.parametrize("change", [
    {"cloth_bgr": (120.0, 120.0, 20.0)}, {"nap_strength": 0.06}, {"ambient": 0.45},
    {"lamps_mm": ((CX + 150, 900.0, 1300.0),)}, {"lamp_radius_mm": 300.0},
    {"rail_bgr": (200.0, 205.0, 205.0)}, {"ball_gloss": 0.4}, {"noise_sigma": 4.0},
])
def test_look_parameters_a_world_sets_reach_the_picture(change):
    look = replace(QUIET, **change)
    # a red ball: the white's highlight saturates
    frame, _ = Renderer(CAM, look=look).render(["red"], BALL, noise=True)
    base, _ = Renderer(CAM, look=QUIET).render(["red"], BALL, noise=True)
    assert changed(frame.astype(int), base.astype(int)).sum() > 2, change


def test_a_world_is_drawn_from_its_seed_alone():
    a, b = World.draw(7), World.draw(7)
    assert a == b
    assert World.draw(8) != a


def test_drawn_worlds_stay_in_their_ranges_and_vary():
    worlds = [World.draw(s) for s in range(200)]
    col = {f.name: [getattr(w, f.name) for w in worlds] for f in fields(World)}
    ranges = {"nap_strength": (0, 0.06), "wear": (0, 0.8), "chalk_marks": (0, 25),
              "undercut_mm": (2, 12), "nose_height_mm": (31, 40), "nose_round": (0.08, 0.3),
              "rail_raise_mm": (4, 25), "jaw_mm": (-8, 10), "lamp_count": (1, 8),
              "lamp_radius_mm": (60, 300), "ambient": (0.15, 0.45), "flicker": (0, 0.05),
              "ball_gloss": (0.4, 1.3), "ball_wear": (0, 0.7), "tilt_deg": (0, 15),
              "fill": (0.8, 0.97), "k1": (-0.35, 0.05), "k3": (-0.02, 0.02),
              "p1": (-0.002, 0.002), "p2": (-0.002, 0.002), "noise_sigma": (0.5, 4.0),
              "roll_deg": (-180, 180)}
    for name, (lo, hi) in ranges.items():
        v = np.array(col[name], float)
        assert v.min() >= lo and v.max() <= hi, name
        assert np.ptp(v) > 0.5 * (hi - lo), name  # the draw covers most of the range
    assert max(abs(x) for w in worlds for x in w.principal_offset) <= 0.05
    assert {w.size for w in worlds} == {(1280, 720), (1920, 1080), (3840, 2160)}
    assert set(col["fps"]) == {25.0, 30.0, 50.0, 60.0}
    assert set(col["kind"]) == set(KINDS)
    assert set(col["camera"]) == {"overhead", "broadcast"}
    assert set(col["baulk_left"]) == {True, False}
    assert len(set(col["cloth"])) >= 6


def table_outline_px(cam: Camera) -> np.ndarray:
    m = T.cushion_depth_mm + T.rail_width_mm
    return cam.project(np.array([[x, y, 50.0] for x in (-m, T.width_mm + m)
                                 for y in (-m, T.length_mm + m)]))


@pytest.mark.parametrize("change", [
    {"fill": 0.85}, {"principal_offset": (0.05, -0.04)}, {"k1": -0.3}, {"k2": 0.07},
    {"k3": 0.02}, {"p1": 0.002}, {"p2": -0.002}, {"tilt_deg": 14.0}, {"tilt_azimuth_deg": 200.0},
    {"roll_deg": 90.0}, {"baulk_left": False}, {"height_mm": 3900.0}, {"size": (1280, 720)},
    {"size": (3840, 2160)},
])
def test_camera_parameters_move_the_table_in_the_picture_and_keep_it_whole(change):
    base = replace(World.draw(3), camera="overhead", tilt_deg=5.0, roll_deg=0.0, k1=-0.1,
                   k2=0.01, k3=0.0, p1=0.0, p2=0.0, principal_offset=(0.0, 0.0), fill=0.95,
                   size=(1920, 1080), baulk_left=True, height_mm=3000.0)
    world = replace(base, **change)
    a, b = table_outline_px(base.make_camera()), table_outline_px(world.make_camera())
    if "size" in change:  # the same view, in more or fewer pixels
        scale = np.array(world.size) / np.array(base.size)
        assert np.allclose(b, a * scale, atol=0.5) and scale[0] != 1
    else:
        assert np.abs(b - a).max() > 0.5, change
    w, h = world.size
    assert (b >= 0).all() and (b[:, 0] <= w).all() and (b[:, 1] <= h).all(), change
    cam = world.make_camera()
    assert cam.image_size == world.size
    assert np.allclose(cam.dist, world.lens())
    off = cam.K[:2, 2] - np.array(world.size) / 2
    assert np.allclose(off, np.array(world.principal_offset) * world.size)


def test_baulk_side_follows_baulk_left():
    w = replace(World.draw(3), camera="overhead", tilt_deg=0.0, roll_deg=0.0)
    baulk, top = np.array([[CX, 0.0, 0.0], [CX, T.length_mm, 0.0]])
    for left in (True, False):
        px = replace(w, baulk_left=left).make_camera().project(np.array([baulk, top]))
        assert (px[0, 0] < px[1, 0]) == left


def test_broadcast_camera_looks_down_the_table_from_behind_an_end():
    w = next(World.draw(s) for s in range(100) if World.draw(s).camera == "broadcast")
    cam = w.make_camera()
    near_end = 0.0 if w.eye_mm[1] < CY else T.length_mm
    far_end = T.length_mm - near_end
    px = cam.project(np.array([[CX, near_end, 0.0], [CX, far_end, 0.0]]))
    assert px[0, 1] > px[1, 1]  # the near end lower in the picture
    assert abs(cam.centre_mm[2] - w.eye_mm[2]) < 1e-6


def test_flicker_and_its_rate_reach_the_lamps():
    w = replace(World.draw(5), flicker=0.05, flicker_hz=4.0)
    gains = [w.lighting().gain(t) for t in np.linspace(0, 0.25, 11)]
    assert max(gains) > 1.04 and min(gains) >= 0.95
    assert replace(w, flicker=0.0).lighting().gain(0.0625) == 1.0


def test_world_parameters_reach_the_clip_spec():
    w = World.draw(11)
    spec = w.clip_spec()
    assert spec.fps == w.fps and spec.kbps == w.kbps and spec.exposure == w.exposure
    assert spec.build == w.build() and spec.look.cloth_bgr == w.cloth_bgr
    assert spec.look.lamps_mm == w.lamps_mm and spec.look.noise_sigma == w.noise_sigma
    assert spec.lighting == Lighting(flicker=w.flicker, flicker_hz=w.flicker_hz)


def test_clip_written_at_the_worlds_rate_and_bitrate(tmp_path):
    """fps and encoder bitrate reach the file; the truth records the build and bitrate only
    when they are given, so clips made without a world keep their truth."""
    tl = cut(World.draw(2).play(), 0.5)
    cam = camera((320, 180))
    sizes = {}
    for kbps in (100, 1500):
        spec = ClipSpec(camera=cam, fps=50.0, look=Look(noise_sigma=4.0), kbps=kbps,
                        build=Build(wear=0.5), preset="veryfast")
        meta, _ = render_clip(tl, spec, tmp_path / f"{kbps}.mp4")
        info = probe(tmp_path / f"{kbps}.mp4")
        assert info["fps"] == pytest.approx(50.0)
        assert meta["clip"]["kbps"] == kbps and meta["clip"]["build"] == asdict(Build(wear=0.5))
        sizes[kbps] = (tmp_path / f"{kbps}.mp4").stat().st_size
    assert sizes[1500] > 3 * sizes[100]
    meta, _ = render_clip(tl, ClipSpec(camera=cam, fps=25.0), tmp_path / "plain.mp4")
    assert {"build", "kbps", "preset"}.isdisjoint(meta["clip"])


def test_each_kind_of_play_shows_what_it_is_about():
    found = {}
    for seed in range(60):
        w = World.draw(seed)
        if w.kind in found:
            continue
        tl = w.play(5.0)
        found[w.kind] = tl
        if len(found) == len(KINDS):
            break
    assert set(found) == set(KINDS)
    assert len(found["pack"].ids) == 1 + 15 + 6
    assert any(e["type"] == "pot" for e in found["pot"].events)
    slow = [e for e in found["slow_cushion"].events
            if e["type"] == "cushion" and e["ball"] == "white"]
    assert slow
    assert any(e["type"] == "cushion" and e["ball"] == "red_01" for e in found["nudge"].events)


def test_world_clip_has_its_truth_and_world_beside_it(tmp_path, monkeypatch):
    small = replace(World.draw(4), size=(320, 180), fps=25.0)
    monkeypatch.setattr(World, "draw", classmethod(lambda cls, seed, resolution=None: small))
    meta = make_world_clip(4, tmp_path / "w.mp4", max_s=1.0)
    assert json.loads(json.dumps(meta["world"])) == json.loads(
        world_path(tmp_path / "w.mp4").read_text())
    assert meta["world"]["size"] == (320, 180)
    assert meta["frames"] == 26 and (tmp_path / "w.truth.json").exists()


def test_cut_keeps_what_happened_before_the_cut():
    tl = World.draw(0).play(10.0)
    end = tl.duration / 2
    short = cut(World.draw(0).play(10.0), end)
    assert short.duration == pytest.approx(end, abs=tl.dt)
    assert all(e["t"] <= end for e in short.events)
    assert len(short.events) <= len(tl.events)



def _make_validation():
    path = Path(__file__).resolve().parents[2] / "scripts" / "make_validation.py"
    spec = importlib.util.spec_from_file_location("make_validation", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_validation_seeds_read_as_ranges_and_lists():
    mv = _make_validation()
    assert mv.parse_seeds("100-103,7") == [100, 101, 102, 103, 7]
    for bad in ("a-b", "5-3", ""):
        with pytest.raises(ValueError):
            mv.parse_seeds(bad)


def test_validation_clip_moved_into_place_whole(tmp_path, monkeypatch):
    mv = _make_validation()
    small = replace(World.draw(6), size=(320, 180), fps=25.0)
    monkeypatch.setattr(World, "draw", classmethod(lambda cls, seed, resolution=None: small))
    final = mv.make(6, tmp_path, None, 1.0)
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "world_6.balls.csv.gz", "world_6.mp4", "world_6.truth.json", "world_6.world.json"]
    meta = json.loads((tmp_path / "world_6.truth.json").read_text())
    assert meta["video"] == final.name and meta["balls_csv"] == "world_6.balls.csv.gz"


def test_a_pool_validation_clip_names_its_game_table_and_pool_ids(tmp_path, monkeypatch):
    from calibration.specs import POOL_BALLS
    from tracker.sim.pool_world import PoolWorld

    mv = _make_validation()
    drawn = PoolWorld.draw(0)
    assert drawn.kind == "rail"  # quick to find
    small = replace(drawn, world=replace(drawn.world, size=(320, 180), fps=25.0))
    monkeypatch.setattr(PoolWorld, "draw", classmethod(lambda cls, seed, resolution=None: small))
    mv.make(0, tmp_path, None, 1.0, game="pool")
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "pool_world_0.balls.csv.gz", "pool_world_0.mp4", "pool_world_0.truth.json",
        "pool_world_0.world.json"]
    meta = json.loads((tmp_path / "pool_world_0.truth.json").read_text())
    assert meta["game"] == small.game and meta["table"] == small.table
    assert meta["ball_ids"][0] == "cue" and set(meta["ball_ids"]) <= set(POOL_BALLS)
    assert meta["clip"]["palette"] == json.loads(
        (tmp_path / "pool_world_0.world.json").read_text())["palette"]
    assert meta["frames"] == pytest.approx(25, abs=1)
