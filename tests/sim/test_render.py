"""The renderer against geometry computed independently: silhouettes of spheres projected through
the camera model, the spec's markings and pockets, and the pixels hidden by occluders."""

from __future__ import annotations

import numpy as np
import pytest

from calibration.camera import Camera
from calibration.specs import SNOOKER
from tracker.sim.render import (
    BALL_COLOURS_BGR,
    Capsule,
    Look,
    Renderer,
    sphere_silhouette_centroid_px,
    sphere_silhouette_px,
)

R_MM = SNOOKER.ball_radius_mm
CX, CY = SNOOKER.centre_x_mm, SNOOKER.length_mm / 2
SIZE = (1280, 720)

# Flat light, plain cloth, unshaded balls, no markings: a ball's pixels differ from the empty
# table by its coverage times one constant colour difference.
FLAT = Look(ambient=1.0, nap_strength=0.0, vignette=0.0, shading=False, shadows=False,
            line_alpha=0.0)


def overhead(dist=(0.0, 0.0, 0.0, 0.0, 0.0), size=SIZE, hfov=68.0, height=3000.0) -> Camera:
    return Camera.look_at((CX, CY, height), (CX, CY, 0), size, hfov_deg=hfov, up=(-1, 0, 0),
                          dist=dist)


def tilted(size=SIZE) -> Camera:
    h = 3200.0
    return Camera.look_at((CX + 150, CY - h * np.tan(np.radians(15)), h), (CX + 150, CY, 0), size,
                          hfov_deg=72, up=(-1, 0, 0))


def broadcast(size=SIZE) -> Camera:
    return Camera.look_at((CX, -2400, 2600), (CX, 1350, 0), size, hfov_deg=50, up=(0, 0, 1))


CAMERAS = {
    "overhead": lambda: overhead(),
    "tilted": tilted,
    "broadcast": broadcast,
    "distorted": lambda: overhead(dist=(-0.25, 0.0, 0.0, 0.0, 0.0), hfov=80),
}

POSITIONS = [
    (CX, CY, R_MM),
    (60.0, 70.0, R_MM),  # near the baulk-left pocket
    (SNOOKER.width_mm - 60, SNOOKER.length_mm - 70, R_MM),  # near the top-right pocket
    (SNOOKER.width_mm - 40, 300.0, R_MM),  # against the right cushion
    (300.0, 2900.0, R_MM),
    (1400.0, 1200.0, 90.0),  # airborne
]


@pytest.fixture(scope="module")
def flat_renderers():
    return {name: Renderer(make(), look=FLAT) for name, make in CAMERAS.items()}


def weighted_centroid(frame: np.ndarray, empty: np.ndarray, cls: str | None = None) -> np.ndarray:
    """Centroid (x, y) px of the pixels' difference from the empty table, |frame - empty| summed
    over channels; for a flat ball of class ``cls`` each pixel's difference is divided by the
    ball's contrast against the table there, so the weight is the ball's coverage of the pixel
    whatever lies behind it (cloth, cushion or rail)."""
    e = empty.astype(np.float64)
    w = np.abs(frame - e).sum(axis=2)
    if cls is not None:
        contrast = np.abs(np.asarray(BALL_COLOURS_BGR[cls], float) - e).sum(axis=2)
        w = np.where(w > 0, w / np.maximum(contrast, 1.0), 0.0)
    v, u = np.mgrid[: w.shape[0], : w.shape[1]]
    return np.array([(w * u).sum(), (w * v).sum()]) / w.sum()


def visible_area_px(frame: np.ndarray, without: np.ndarray, cls: str, look: Look) -> float:
    """Pixels of a flat-coloured ball showing in ``frame`` and not in ``without``, from the
    colour difference in the channel where ball and cloth differ most."""
    k = int(np.argmax(np.abs(np.subtract(BALL_COLOURS_BGR[cls], look.cloth_bgr))))
    contrast = abs(BALL_COLOURS_BGR[cls][k] - look.cloth_bgr[k])
    return float(np.abs(frame[..., k].astype(np.int32) - without[..., k]).sum() / contrast)


def polygon_area(p: np.ndarray) -> float:
    q = np.roll(p, -1, axis=0)
    return abs((p[:, 0] * q[:, 1] - q[:, 0] * p[:, 1]).sum()) / 2


def in_view(camera: Camera, centre, margin_px: float = 4.0) -> bool:
    outline = sphere_silhouette_px(camera, centre, R_MM, 64)
    w, h = camera.image_size
    return bool(np.all(outline >= margin_px) and np.all(outline[:, 0] <= w - 1 - margin_px)
                and np.all(outline[:, 1] <= h - 1 - margin_px))


# -- silhouette geometry ------------------------------------------------------------------------
@pytest.mark.parametrize("name", list(CAMERAS))
def test_ball_centroid_matches_analytic_silhouette(flat_renderers, name):
    r = flat_renderers[name]
    empty, _ = r.render([], np.zeros((0, 3)), noise=False)
    tested = 0
    for centre in POSITIONS:
        if not in_view(r.camera, centre):
            continue
        frame, vis = r.render(["white"], np.array([centre]), noise=False)
        assert vis[0] == pytest.approx(1.0, abs=1e-6)
        got = weighted_centroid(frame, empty, "white")
        want = sphere_silhouette_centroid_px(r.camera, centre, R_MM)
        assert np.linalg.norm(got - want) < 0.1, (name, centre, got, want)
        tested += 1
    assert tested >= 4, f"only {tested} positions in view of the {name} camera"


def test_silhouette_centroid_near_projected_centre_overhead():
    for cam in (overhead(), overhead(size=(1920, 1080), height=2200, hfov=80)):
        for centre in POSITIONS[:5]:
            c = sphere_silhouette_centroid_px(cam, centre, R_MM)
            p = cam.project(np.array([centre]))[0]
            assert np.linalg.norm(c - p) < 1.0
    # straight below the lens the two coincide
    cam = overhead()
    c = sphere_silhouette_centroid_px(cam, (CX, CY, R_MM), R_MM)
    assert np.allclose(c, cam.project(np.array([(CX, CY, R_MM)]))[0], atol=1e-6)


def test_silhouette_area_matches_rendered_coverage(flat_renderers):
    r = flat_renderers["broadcast"]
    empty, _ = r.render([], np.zeros((0, 3)), noise=False)
    centre = (500.0, 2500.0, R_MM)
    frame, _ = r.render(["white"], np.array([centre]), noise=False)
    area = polygon_area(sphere_silhouette_px(r.camera, centre, R_MM))
    assert visible_area_px(frame, empty, "white", FLAT) == pytest.approx(area, rel=0.01)


def test_airborne_ball_looks_bigger_overhead(flat_renderers):
    r = flat_renderers["overhead"]
    empty, _ = r.render([], np.zeros((0, 3)), noise=False)
    on_cloth, _ = r.render(["red"], np.array([(CX + 200, CY, R_MM)]), noise=False)
    in_air, _ = r.render(["red"], np.array([(CX + 200, CY, R_MM + 150)]), noise=False)
    assert visible_area_px(in_air, empty, "red", FLAT) > 1.08 * visible_area_px(
        on_cloth, empty, "red", FLAT)


def test_shaded_ball_centroid_bias_is_small():
    r = Renderer(overhead(size=(960, 540)), look=Look(noise_sigma=0.0, shadows=False))
    empty, _ = r.render([], np.zeros((0, 3)), noise=False)
    for centre in POSITIONS[:3]:
        frame, _ = r.render(["red"], np.array([centre]), noise=False)
        got = weighted_centroid(frame, empty)
        want = sphere_silhouette_centroid_px(r.camera, centre, R_MM)
        assert np.linalg.norm(got - want) < 1.0


# -- the table ----------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def table_renderer():
    return Renderer(overhead(), look=Look(nap_strength=0.0, vignette=0.0))


def test_markings_at_spec_positions(table_renderer):
    r = table_renderer
    img = r.background().astype(np.float64).sum(axis=2)
    cam = r.camera
    # the baulk line runs down the image (y is across): its brightness peak sits where the
    # camera projects it
    for x in (300.0, 700.0, 1500.0):
        u, v = cam.project(np.array([(x, SNOOKER.baulk_line_mm, 0.0)]))[0]
        row = img[int(round(v)), int(u) - 6: int(u) + 7]
        excess = np.clip(row - np.median(row), 0, None)
        assert excess.max() > 20
        peak = int(u) - 6 + (excess * np.arange(len(row))).sum() / excess.sum()
        assert abs(peak - u) < 0.35
    # the spots (balls off) and the bottom of the D are marked
    marks = dict(SNOOKER.spots_mm)
    marks["d_bottom"] = (CX, SNOOKER.baulk_line_mm - SNOOKER.d_radius_mm)
    for name, (x, y) in marks.items():
        u, v = cam.project(np.array([(x, y, 0.0)]))[0]
        at = img[int(round(v)), int(round(u))]
        around = [img[int(round(q[1])), int(round(q[0]))] for q in cam.project(np.array(
            [(x + 40 * np.cos(a), y + 40 * np.sin(a) + 5, 0.0) for a in np.linspace(0, 6, 7)]))]
        assert at > np.median(around) + 15, name


def test_pockets_dark_where_the_spec_says(table_renderer):
    r = table_renderer
    img = r.background()
    for name, p in SNOOKER.pockets.items():
        u, v = np.rint(r.camera.project(np.array([(*p.fall_centre_mm, 0.0)]))[0]).astype(int)
        assert img[v, u].max() < 40, name
        # and the cloth a few ball widths into the table is not
        inward = np.array([CX, CY]) - np.asarray(p.point_mm)
        q = np.asarray(p.point_mm) + 200 * inward / np.linalg.norm(inward)
        u, v = np.rint(r.camera.project(np.array([(*q, 0.0)]))[0]).astype(int)
        assert img[v, u, 1] > 80, name


# -- visible fraction ---------------------------------------------------------------------------
def test_capsule_hides_part_of_a_ball(flat_renderers):
    r = flat_renderers["overhead"]
    ball = np.array([(CX + 100, CY - 300, R_MM)])
    # a forearm along y at 300 mm, its image's edge through the ball's centre (the overhead
    # camera at 3 m magnifies it by k on the ball's plane), and the cue across the ball
    k = (3000 - R_MM) / (3000 - 300)
    xa = CX + 100 / k + 40
    arm = Capsule((xa, CY - 600, 300.0), (xa, CY, 300.0), 40.0, 40.0, (220, 225, 230))
    cue = Capsule((CX + 60, CY - 330, 45.0), (CX + 60, CY - 1400, 160.0), 6.0, 14.0,
                  (90, 160, 200))
    occl = [arm, cue]
    without, _ = r.render(["black"], ball, visible=[False], occluders=occl, noise=False)
    frame, vis = r.render(["black"], ball, occluders=occl, noise=False)
    area = polygon_area(sphere_silhouette_px(r.camera, ball[0], R_MM))
    expected = visible_area_px(frame, without, "black", FLAT) / area
    assert 0.2 < vis[0] < 0.8
    assert vis[0] == pytest.approx(expected, abs=0.03)
    # fully under the arm
    _, vis = r.render(["black"], ball, occluders=[Capsule(
        (CX + 400, CY - 290, 300.0), (CX - 200, CY - 290, 300.0), 90.0, 90.0, (220, 225, 230))],
        noise=False)
    assert vis[0] < 0.01


def test_graphics_and_image_border_hide_balls(flat_renderers):
    r = flat_renderers["broadcast"]
    x0, x1, y0, y1 = r.graphics_box()
    cam = r.camera
    under = cam.plane_points(np.array([((x0 + x1) / 2, (y0 + y1) / 2)]), R_MM)[0]
    edge = cam.plane_points(np.array([((x0 + x1) / 2, y0 - 0.5)]), R_MM)[0]
    pos = np.array([(*under, R_MM), (*edge, R_MM), (CX, 2500.0, R_MM)])
    text = "HIGGINS 0 (35) 96 TRUMP"
    without, _ = r.render(["white"] * 3, pos, visible=[False] * 3, graphics=text, noise=False)
    frame, vis = r.render(["white"] * 3, pos, graphics=text, noise=False)
    assert vis[0] == 0.0
    assert vis[2] == pytest.approx(1.0, abs=1e-6)
    one = np.array([True, False, False])
    for i in (1,):
        part, _ = r.render(["white"] * 3, pos, visible=np.roll(one, i), graphics=text,
                           noise=False)
        area = polygon_area(sphere_silhouette_px(cam, pos[i], R_MM))
        assert 0.3 < vis[i] < 0.7
        # the strip is translucent: count only what shows outside it
        part[y0:y1, x0:x1] = without[y0:y1, x0:x1]
        assert vis[i] == pytest.approx(visible_area_px(part, without, "white", FLAT) / area,
                                       abs=0.03)
    # half past the image's left border
    left = cam.plane_points(np.array([(-0.5, 300.0)]), R_MM)[0]
    _, vis = r.render(["white"], np.array([(*left, R_MM)]), noise=False)
    assert vis[0] == pytest.approx(0.5, abs=0.05)


def test_near_cushion_hides_ball_from_low_camera():
    cam = Camera.look_at((CX, -1300, 230), (CX, 800, 0), (640, 360), hfov_deg=60, up=(0, 0, 1))
    r = Renderer(cam, look=FLAT)
    pos = np.array([(CX, 30.0, R_MM), (CX + 300, 1200.0, R_MM)])
    without, _ = r.render(["yellow", "yellow"], pos, visible=[False, False], noise=False)
    frame, vis = r.render(["yellow", "yellow"], pos, visible=[True, False], noise=False)
    area = polygon_area(sphere_silhouette_px(cam, pos[0], R_MM))
    assert 0.05 < vis[0] < 0.95
    assert vis[0] == pytest.approx(visible_area_px(frame, without, "yellow", FLAT) / area,
                                   abs=0.03)


def test_nearer_ball_drawn_in_front(flat_renderers):
    r = flat_renderers["broadcast"]
    cam = r.camera
    far = np.array([CX, 2000.0, R_MM])
    ray = far - cam.centre_mm
    near = far - 150 * ray / np.linalg.norm(ray)  # in the air on the line of sight
    frame, _ = r.render(["black", "yellow"], np.array([far, near]), noise=False)
    u, v = np.rint(cam.project(far[None])[0]).astype(int)
    assert np.allclose(frame[v, u], BALL_COLOURS_BGR["yellow"], atol=2)


# -- sensor and motion --------------------------------------------------------------------------
def test_noise_deterministic_by_seed_and_frame_index():
    cam = overhead(size=(320, 180))
    classes, pos = ["white", "red"], np.array([(CX, CY, R_MM), (CX + 100, CY + 300, R_MM)])
    a = Renderer(cam, seed=3).render(classes, pos, frame_index=5)[0]
    b = Renderer(cam, seed=3).render(classes, pos, frame_index=5)[0]
    c = Renderer(cam, seed=3).render(classes, pos, frame_index=6)[0]
    d = Renderer(cam, seed=4).render(classes, pos, frame_index=5)[0]
    assert np.array_equal(a, b)
    assert not np.array_equal(a, c)
    assert not np.array_equal(a, d)
    clean = Renderer(cam, seed=3).render(classes, pos, noise=False)[0]
    diff = a.astype(np.float64) - clean
    assert 1.0 < diff.std() < 3.5  # Look().noise_sigma = 2


def test_frames_do_not_depend_on_earlier_frames():
    r = Renderer(overhead(size=(320, 180)))
    classes = ["white", "red"]
    a = np.array([(CX, CY, R_MM), (CX + 100, CY + 300, R_MM)])
    b = np.array([(CX - 300, CY, R_MM), (CX + 100, CY + 320, R_MM)])
    arm = Capsule((CX, CY - 500, 300.0), (CX, CY + 200, 300.0), 40.0, 45.0, (220, 225, 230))
    first = r.render(classes, a, frame_index=2)[0]
    r.render(classes, b, occluders=[arm], graphics="BREAK 12", frame_index=3)
    r.render(classes, np.stack([a, b]), frame_index=4)
    assert np.array_equal(r.render(classes, a, frame_index=2)[0], first)
    assert np.array_equal(Renderer(overhead(size=(320, 180))).render(classes, a,
                                                                     frame_index=2)[0], first)


def test_gain_scales_brightness():
    r = Renderer(overhead(size=(320, 180)))
    pos = np.array([(CX, CY, R_MM)])
    dim = r.render(["white"], pos, noise=False, gain=0.5)[0].astype(np.float64)
    full = r.render(["white"], pos, noise=False)[0].astype(np.float64)
    assert dim.mean() == pytest.approx(full.mean() / 2, rel=0.02)


def test_motion_blur_spreads_ball_along_its_path(flat_renderers):
    r = flat_renderers["overhead"]
    empty, _ = r.render([], np.zeros((0, 3)), noise=False)
    centre = np.array([CX - 200, CY + 100, R_MM])
    spreads = []
    for travel in (0.0, 40.0, 120.0):
        s = np.linspace(-0.5, 0.5, 9)[:, None] * np.array([0.0, travel, 0.0])
        frame, vis = r.render(["white"], (centre + s)[:, None, :], noise=False)
        w = np.abs(frame.astype(np.int32) - empty).sum(axis=2).astype(np.float64)
        w[w < 0] = 0
        v, u = np.mgrid[: w.shape[0], : w.shape[1]]
        mu, mv = (w * u).sum() / w.sum(), (w * v).sum() / w.sum()
        # y runs along the image's x for this camera
        spreads.append((np.sqrt((w * (u - mu) ** 2).sum() / w.sum()),
                        np.sqrt((w * (v - mv) ** 2).sum() / w.sum())))
        want = sphere_silhouette_centroid_px(r.camera, centre, R_MM)
        assert np.linalg.norm([mu, mv] - want) < 0.15
        assert vis[0] == pytest.approx(1.0, abs=1e-6)
    along = [a for a, _ in spreads]
    across = [b for _, b in spreads]
    assert along[0] < along[1] < along[2]
    assert along[2] > 2 * along[0]
    assert max(across) - min(across) < 0.1 * across[0]


def test_rejects_bad_input():
    r = Renderer(overhead(size=(160, 90)))
    with pytest.raises(ValueError, match="shape"):
        r.render(["white"], np.zeros((1, 2, 3)))
    with pytest.raises(ValueError, match="class"):
        r.render(["purple"], np.zeros((1, 3)))
