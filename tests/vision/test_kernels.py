"""The detector's compiled per-pixel kernels against their numpy references, on the windows of
a rendered frame: the standard layout (the pack of touching reds, the colours on their spots),
a white touching the pink, and windows cut by the frame's four edges."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from calibration.calibrate import Calibration
from calibration.specs import SNOOKER
from tracker.sim.render import Renderer
from tracker.sim.scenarios import overhead_camera
from tracker.sim.script import standard_layout
from tracker.vision import kernels
from tracker.vision.cloth import _SOFT
from tracker.vision.cloth_table import FG_LEVEL, scores
from tracker.vision.detect import BallDetector
from tracker.vision.discs import _NO_PREFERENCE, _disc_kernels

numba = pytest.importorskip("numba", reason="numba is not installed: only the numpy references "
                                            "can run, and they are what the detector tests use")
R = SNOOKER.ball_radius_mm


compiled_only = pytest.mark.skipif(
    not kernels.COMPILED, reason="the compiled kernels are off (CUEBALL_NUMBA=0): the numpy "
    "references serve, and these tests are of the compiled ones")


@pytest.fixture(scope="module")
def scene():
    """A frame, its detector (cloth learnt) and every ball's window inputs, as ``Refiner.refine``
    makes them."""
    cam = overhead_camera((1920, 1080), 3000.0, 0.0, -0.12)
    b = standard_layout()
    pos = b.pos.copy()
    pos[0, :2] = pos[b.classes.index("pink"), :2] + [2 * R, 0.0]  # the white by the pink
    frame, _ = Renderer(cam).render(list(b.classes), pos, frame_index=3)
    det = BallDetector(Calibration.from_camera(cam))
    det.detect(frame)
    prep = det._prepare(frame.shape[1], frame.shape[0])
    # the balls a little off their centres (as the work image's candidates are), and windows
    # past each edge of the frame
    rng = np.random.default_rng(5)
    cands = cam.project(pos) + rng.uniform(-1.5, 1.5, (len(pos), 2))
    cands = np.concatenate([cands, [[3.0, 500.0], [1917.0, 600.0], [900.0, 2.0],
                                    [1000.0, 1078.0], [-4.0, -3.0]]])
    r_exp = det._radius_at(np.clip(cands, 0, [1919, 1079]), prep)
    base = np.rint(cands).astype(np.int64)
    half = int(np.ceil(1.8 * r_exp.max())) + 1
    args = (frame, base, half, prep.gain[..., 0], *prep.roi[:2], prep.factor,
            det.learner.table, _SOFT)
    return det, cands, r_exp, base, half, args


def test_window_pixels_match_the_numpy_reference_exactly(scene):
    det, _, _, _, _, args = scene
    got = kernels.window_pixels(*args)
    want = kernels.window_pixels_numpy(*args)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_array_equal(g, w)
    win, score, alpha, valid = got
    np.testing.assert_array_equal(score, scores(det.learner.table, win))
    assert not valid[-1, 0, 0] and valid[-1, -1, -1]  # the window over the top-left corner
    assert (alpha[~valid] == 0).all() and alpha.max() == 1.0


def test_refine_windows_match_the_numpy_reference(scene):
    det, cands, r_exp, base, half, args = scene
    win, score, alpha, valid = kernels.window_pixels_numpy(*args)
    dmat = np.hypot(*(cands[:, None] - cands[None]).transpose(2, 0, 1))
    np.fill_diagonal(dmat, np.inf)
    nbr = np.ascontiguousarray(np.argsort(dmat, axis=1)[:, :6])
    c0 = (cands - base).astype(np.float32)
    glint = float(min(2.5 * det.cloth.level, 600))
    inputs = (alpha, valid, score, win, c0, base, r_exp, nbr, dmat, 3, half, glint,
              2 * FG_LEVEL, 1.3 * FG_LEVEL)
    c, cell, d_own, cover, spill, inner, in_k, strong_k, solid, lit = kernels.refine_windows(
        *inputs)
    rc, rcell, rd, rcover, rspill, rinner, rin_k, rstrong_k, rsolid, rlit = (
        kernels.refine_windows_numpy(*inputs))
    # the sums run in another order (float64 here, float32 there): the last bits differ
    np.testing.assert_allclose(c, rc, atol=1e-4)
    assert np.abs(c - c0).max() > 0.5  # the centroids moved: a test of something
    np.testing.assert_allclose(d_own, rd, atol=1e-3)
    # a pixel on a boundary may fall either side of it
    for a, b in ((cell, rcell), (inner, rinner)):
        assert a.shape == b.shape and (a != b).mean() < 1e-4
    np.testing.assert_allclose(cover, rcover, atol=1e-3)
    np.testing.assert_allclose(spill, rspill, atol=1e-2)
    np.testing.assert_allclose(solid, rsolid, atol=1e-2)
    assert np.abs(in_k - rin_k).sum() <= 2 and np.abs(strong_k - rstrong_k).sum() <= 2
    np.testing.assert_array_equal(lit, rlit)
    assert lit[:22].sum() >= 20 and abs(np.median(cover[:22]) - 1) < 0.05  # the balls are balls


def test_the_detector_finds_the_same_with_the_numpy_references(scene, monkeypatch):
    det, *_, args = scene
    frame = args[0]
    found = BallDetector(det.geometry.calibration).detect(frame)
    monkeypatch.setattr(kernels, "window_pixels", kernels.window_pixels_numpy)
    monkeypatch.setattr(kernels, "refine_windows", kernels.refine_windows_numpy)
    again = BallDetector(det.geometry.calibration).detect(frame)
    assert len(found) == len(again) == 22
    np.testing.assert_allclose(found.xy_px, again.xy_px, atol=1e-3)
    np.testing.assert_allclose(found.confidence, again.confidence, atol=1e-3)


@compiled_only
def test_round_outline_matches_the_numpy_reference():
    """Circles through outline points: round ones with noise, arcs with gaps (rays into a
    neighbour), outliers (codec blotches), a bumpy one, too few points, a straight edge, and
    points whose equations are singular (which the compiled kernel leaves to the reference)."""
    rng = np.random.default_rng(11)
    rays = 90
    u = np.c_[np.cos(np.linspace(0, 2 * np.pi, rays, endpoint=False)),
              np.sin(np.linspace(0, 2 * np.pi, rays, endpoint=False))]
    c = rng.uniform(20, 30, (8, 2))
    r = rng.uniform(9, 14, 8)
    rho = r[:, None] * (1 + rng.normal(0, 0.01, (8, rays)))
    rho[3] *= 1 + 0.15 * np.sin(3 * np.linspace(0, 2 * np.pi, rays, endpoint=False))  # bumpy
    ends = c[:, None] + u[None] * rho[..., None] + [0.7, -0.4]
    has = np.ones((8, rays), bool)
    has[1, 20:60] = False  # an arc
    has[2, ::5] = False
    ends[2, 1::15] += 1.5  # outliers off the circle
    has[4, 15:] = False  # too few points: under a quarter of the rays
    ends[5] = np.c_[np.linspace(0, 40, rays), np.full(rays, 25.0)]  # a straight edge
    has[6, 40:50] = False
    ends[7] = (2.0, 4.0)  # every point at one place: equations exactly singular
    args = (ends, has, c, r, 2.5, 0.08)
    centre, ok = kernels.round_outline(*args)
    want_c, want_ok = kernels.round_outline_numpy(*args)
    np.testing.assert_array_equal(ok, want_ok)
    np.testing.assert_allclose(centre[want_ok], want_c[want_ok], atol=1e-9)
    assert list(ok) == [True, True, True, False, False, False, True, False]
    assert list(np.flatnonzero(kernels._round_outline_kernel(*args)[2])) == [7]
    np.testing.assert_allclose(centre[ok], (c + [0.7, -0.4])[ok], atol=0.1)


@compiled_only
def test_the_kernels_are_made_ready_for_the_very_types_detection_passes(scene, monkeypatch):
    """A detector made compiles (or loads) the kernels before the first frame, for the
    argument types the refinement passes them: no frame waits for a compile."""
    from tracker.vision import detect

    det, *_, args = scene
    seen: dict[str, set] = {}

    def recording(name):
        kernel = getattr(kernels, name)

        def call(*a):
            seen.setdefault(name, set()).add(tuple(numba.typeof(x) for x in a))
            return kernel(*a)
        return call

    names = ("window_pixels", "refine_windows", "round_outline", "place_discs", "cloth_scores",
             "body_means", "close_pairs", "ray_maps", "outline_points")
    for name in names:
        monkeypatch.setattr(kernels, name, recording(name))
    detect.ready_kernels.__wrapped__()
    warmed, seen = seen, {}
    BallDetector(det.geometry.calibration).detect(args[0])
    assert set(seen) == set(names)
    for name in names:
        assert seen[name] == warmed[name], name


def _blob(shape, discs, bar=None):
    """(H, W) int64 weights in _SOFT's steps: discs (cx, cy, radius, weight), a bar (y0, y1) of
    full weight across the whole width."""
    h, w = shape
    yy, xx = np.ogrid[:h, :w]
    out = np.zeros(shape, np.int64)
    for cx, cy, rad, wt in discs:
        out[np.hypot(yy - cy, xx - cx) <= rad] = wt
    if bar is not None:
        out[bar[0]:bar[1]] = 96
    return out


def test_place_discs_matches_the_numpy_reference_exactly():
    """Random blobs of discs, alone, touching and overlapping, some across a bar (an arm), with
    and without a preference for each place: the same discs, to the last bit (the sums are of
    integers, so their ties are broken alike)."""
    rng = np.random.default_rng(3)
    placed = 0
    for trial in range(150):
        r = float(rng.uniform(3, 12))
        half_w, near_w, n = _disc_kernels(r)
        h, w = (int(v) for v in rng.integers(10, 90, 2))
        discs = [(rng.uniform(0, w), rng.uniform(0, h), r * rng.uniform(0.8, 1.3),
                  int(rng.integers(40, 97))) for _ in range(int(rng.integers(0, 6)))]
        weight = _blob((h, w), discs, (h // 3, h // 3 + int(3 * r)) if trial % 3 == 0 else None)
        prefer = _NO_PREFERENCE if trial % 2 else rng.uniform(0.5, 1.0, (h, w))
        args = (weight, half_w, near_w, 40, 0.42 * 96 * n, 0.8 * 96 * n, prefer)
        got, want = kernels.place_discs(*args), kernels.place_discs_numpy(*args)
        assert got.shape == want.shape and np.array_equal(got, want), trial
        placed += len(got)
    assert placed > 150  # most blobs hold discs


def test_place_discs_finds_touching_balls_where_they_are():
    """Three balls in a touching row and a lone one, with a halo (the blob a little wider than
    each ball): one disc each, within half a pixel of its centre; nothing in an empty blob."""
    r = 6.0
    half_w, near_w, n = _disc_kernels(r)
    centres = [(15.0, 20.0), (27.0, 20.0), (39.0, 20.0), (30.0, 45.0)]
    weight = _blob((60, 60), [(x, y, 1.1 * r, 96) for x, y in centres])
    found = kernels.place_discs(weight, half_w, near_w, 40, 0.42 * 96 * n, 0.8 * 96 * n,
                                _NO_PREFERENCE)
    assert len(found) == 4
    gap = np.hypot(*(found[:, None] - np.array(centres)[None]).transpose(2, 0, 1))
    assert gap.min(axis=0).max() <= 0.5
    empty = kernels.place_discs(np.zeros((20, 20), np.int64), half_w, near_w, 40,
                                0.42 * 96 * n, 0.8 * 96 * n, _NO_PREFERENCE)
    assert empty.shape == (0, 2)


def _bar_blob(shape, r, bar_width, bar_end_x, ball=None):
    """(H, W) float32 soft membership: a bar ``bar_width`` tall across the middle from the left
    edge to ``bar_end_x`` (an arm, or a cue), its end rounded, and a ball (cx, cy) of radius
    ``r``, if given."""
    h, w = shape
    yy, xx = np.ogrid[:h, :w]
    half = bar_width / 2
    out = ((np.abs(yy - h / 2) <= half) & (xx <= bar_end_x - half)) | (
        np.hypot(yy - h / 2, xx - (bar_end_x - half)) <= half)
    if ball is not None:
        out = out | (np.hypot(yy - ball[1], xx - ball[0]) <= r)
    return out.astype(np.float32) * np.float32(0.9)


def test_bar_end_tells_a_hand_from_a_ball_beside_an_arm_or_on_a_cue():
    """A disc at the rounded end of an arm 3.5 radii wide is the end of a bar; one on a ball
    against the arm's side is not (the cuts through the arm run its whole length), nor one on
    a ball at the tip of a cue a radius wide (the cuts are too short)."""
    r = 6.0
    hand = _bar_blob((60, 120), r, 3.5 * r, 100.0)
    assert kernels.bar_end(hand, 100.0 - 1.75 * r, 30.0, r)
    beside = _bar_blob((80, 120), r, 3.5 * r, 119.0, ball=(60.0, 40.0 - 2.75 * r))
    assert not kernels.bar_end(beside, 60.0, 40.0 - 2.75 * r, r)
    cue = _bar_blob((60, 120), r, r, 90.0, ball=(90.0 + r, 30.0))
    assert not kernels.bar_end(cue, 90.0 + r, 30.0, r)
    for blob, p in ((hand, (100.0 - 1.75 * r, 30.0)), (beside, (60.0, 40.0 - 2.75 * r)),
                    (cue, (90.0 + r, 30.0))):
        assert kernels.bar_end(blob, *p, r) == kernels.bar_end_numpy(blob, *p, r)


def _recording(monkeypatch, name: str) -> set:
    """The argument types (numba's) of every call of ``kernels.<name>`` from now on."""
    seen: set = set()
    kernel = getattr(kernels, name)

    def call(*a):
        seen.add(tuple(numba.typeof(x) for x in a))
        return kernel(*a)

    monkeypatch.setattr(kernels, name, call)
    return seen


@compiled_only
def test_bar_end_is_made_ready_for_the_types_the_disc_placing_passes(monkeypatch):
    """``ready_kernels`` compiles the test of a disc at a bar's end for the very types
    ``BlobDiscs.explain`` passes it: the blob as it pads it (float32), a disc's place (a float
    less and plus whole pixels) and its radius (a float times the radius scale)."""
    from tracker.vision import detect, discs

    seen = _recording(monkeypatch, "bar_end")
    detect.ready_kernels.__wrapped__()
    x, bx, pad, r = 7.25, 3, 3, float(np.float32(4.5)) * 1.0
    passed = (discs._padded(np.ones((4, 5), np.float32), pad), x - bx + pad, x - bx + pad, r)
    assert seen == {tuple(numba.typeof(a) for a in passed)}


def test_bar_end_matches_the_numpy_reference_exactly():
    """Random arms, cues and balls, and random discs on and off them: the same answer every
    time, both ways."""
    rng = np.random.default_rng(5)
    answers = []
    for trial in range(300):
        r = float(rng.uniform(3, 12))
        h, w = (int(v) for v in rng.integers(20, 120, 2))
        h, w = h + int(4 * r), w + int(12 * r)
        ball = (rng.uniform(0, w), rng.uniform(0, h)) if trial % 2 else None
        width, end = r * rng.uniform(0.5, 8), rng.uniform(6 * r, w)
        blob = _bar_blob((h, w), r, width, end, ball)
        blob[rng.uniform(size=(h, w)) < 0.03] *= np.float32(0.4)  # a few holes
        on = np.argwhere(blob > 0.5)
        if trial % 3 == 0:  # at the bar's end
            p = np.array([end - width / 2, h / 2]) + rng.uniform(-2, 2, 2)
        else:
            p = (on[rng.integers(len(on))][::-1] + rng.uniform(-1, 1, 2) if len(on)
                 else rng.uniform(0, [w, h]))
        got = kernels.bar_end(blob, float(p[0]), float(p[1]), r)
        assert got == kernels.bar_end_numpy(blob, float(p[0]), float(p[1]), r), trial
        answers.append(got)
    assert 10 < sum(answers) < 290  # both answers are given


@pytest.mark.parametrize("seed", range(4))
def test_cloth_scores_match_the_numpy_reference_exactly(seed):
    """The cloth model's table of scores, compiled and as numpy makes it, for cloths of many
    colours, spreads and brightnesses: the same 2**18 bytes."""
    from tracker.vision.detect import ClothModel

    rng = np.random.default_rng(seed)
    v = np.arange(64, dtype=np.float32) * 4 + 1.5
    for _ in range(3):
        model = ClothModel(rng.dirichlet([3, 4, 3]), float(rng.uniform(0.004, 0.04)),
                           float(rng.uniform(40, 600)))
        args = (v, model.chroma.astype(np.float32), model.chroma_sigma, model.level, 3.0, 4.5,
                1.6, 0.32, 0.6, FG_LEVEL)
        want = kernels.cloth_scores_numpy(*args)
        np.testing.assert_array_equal(kernels.cloth_scores(*args), want)
        np.testing.assert_array_equal(model.lut(), want)
        # the cloth itself scores nothing, and something far off it the most
        c = np.clip(np.rint(model.chroma / model.chroma.sum() * model.level / 4), 0, 63)
        b, g, r = c.astype(int)
        assert want[(b * 64 + g) * 64 + r] < FG_LEVEL // 2
        assert want.max() == 255


def _balls_blob(shape, r, centres):
    """(H, W) float32 soft membership of balls of radius ``r`` at ``centres`` (x, y)."""
    h, w = shape
    yy, xx = np.ogrid[:h, :w]
    out = np.zeros(shape, bool)
    for cx, cy in centres:
        out |= np.hypot(yy - cy, xx - cx) <= r
    return out.astype(np.float32) * np.float32(0.9)


def test_necks_tell_a_bar_from_touching_balls():
    """Discs two radii apart along a bar a ball wide are a bar's (its neck keeps its width);
    on two touching balls they are not (the balls narrow to a point between them); a disc
    judged an end already says nothing of its neighbour."""
    r, neck = 6.0, 0.85
    bar = _bar_blob((40, 120), r, 2 * r, 110.0)
    p = np.array([[30.0, 20.0], [30.0 + 2 * r, 20.0], [30.0 + 4 * r, 20.0]])
    assert kernels.necks(bar, p, np.zeros(3, bool), r, neck).all()
    assert list(kernels.necks(bar, p, np.array([False, True, False]), r, neck)) == [False] * 3
    balls = _balls_blob((40, 80), r, [(30.0, 20.0), (30.0 + 2 * r, 20.0)])
    assert not kernels.necks(balls, p[:2], np.zeros(2, bool), r, neck).any()
    far = np.array([[20.0, 20.0], [20.0 + 3 * r, 20.0]])  # too far apart to be judged
    assert not kernels.necks(bar, far, np.zeros(2, bool), r, neck).any()


def test_necks_match_the_numpy_reference_exactly():
    """Random bars and balls, holes, soft edges and discs on and beside them, some judged
    ends already: the same answer every time, both ways."""
    rng = np.random.default_rng(7)
    answers = []
    for trial in range(300):
        r = float(rng.uniform(3, 12))
        h, w = int(rng.integers(int(5 * r), 100)), int(rng.integers(int(8 * r), 160))
        if trial % 2:
            blob = _bar_blob((h, w), r, r * rng.uniform(1.2, 4), rng.uniform(4 * r, w))
        else:
            blob = _balls_blob((h, w), r, rng.uniform(0, [w, h], (int(rng.integers(2, 6)), 2)))
        blob *= rng.uniform(0.3, 1.2, (h, w)).astype(np.float32)  # soft, some over a half
        on = np.argwhere(blob > 0.3)
        n = int(rng.integers(2, 7))
        p = (on[rng.integers(len(on), size=n)][:, ::-1] + rng.uniform(-1, 1, (n, 2))
             if len(on) else rng.uniform(0, [w, h], (n, 2)))
        end = rng.uniform(size=n) < 0.15
        got = kernels.necks(blob, p, end, r, 0.85)
        np.testing.assert_array_equal(got, kernels.necks_numpy(blob, p, end, r, 0.85))
        answers.append(got.any())
    assert 10 < sum(answers) < 290  # both answers are given


@compiled_only
def test_necks_are_made_ready_for_the_types_the_disc_placing_passes(monkeypatch):
    """``ready_kernels`` compiles the neck test for the very types ``BlobDiscs.explain`` passes
    it: the padded blob (float32), the discs' places (float64 pairs less whole pixels), which
    are ends (bool), their radius and the neck's share (floats)."""
    from tracker.vision import detect, discs

    seen = _recording(monkeypatch, "_necks_kernel")
    detect.ready_kernels.__wrapped__()
    warmed = set(seen)
    seen.clear()
    pts = [(7.25, 3.5), (12.0, 4.75)]
    kernels.necks(discs._padded(np.ones((4, 5), np.float32), 3),
                  np.array(pts) - [3 - 3, 2 - 3], np.array([False, True], bool),
                  float(np.float32(4.5)) * 1.0, discs._NECK)
    assert seen == warmed and len(seen) == 1


def test_colour_alike_matches_the_numpy_reference_exactly():
    """Random pictures of patches of a few colours with noise, random blobs over them and
    discs anywhere (by the edges too, and where too few pixels tell): the same share every
    time, both ways."""
    rng = np.random.default_rng(3)
    shares = []
    for trial in range(300):
        h, w = (int(v) for v in rng.integers(12, 80, 2))
        colours = rng.uniform(0, 255, (4, 3)).astype(np.float32)
        cells = rng.integers(0, 4, (h // 6 + 1, w // 6 + 1))
        lab = colours[np.kron(cells, np.ones((6, 6), int))[:h, :w]]
        lab += rng.normal(0, 6, lab.shape).astype(np.float32)
        blob = (rng.uniform(size=(h, w)) < rng.uniform(0.3, 1.0)).astype(np.float32)
        blob *= rng.uniform(0.4, 1.0, (h, w)).astype(np.float32)
        r = float(rng.uniform(2.5, 10))
        px, py = (float(v) for v in rng.uniform(-3, (w + 3, h + 3)))
        got = kernels.colour_alike(lab, blob, px, py, r, 25.0)
        assert got == kernels.colour_alike_numpy(lab, blob, px, py, r, 25.0), trial
        shares.append(got)
    shares = np.array(shares)
    assert ((shares > 0) & (shares < 1)).sum() > 50 and (shares == 1).sum() > 10


@compiled_only
def test_colour_alike_is_made_ready_for_the_types_the_disc_placing_passes(monkeypatch):
    """``ready_kernels`` compiles the colour test for the very types ``BlobDiscs.explain`` passes
    it: the box's Lab as float32, the padded blob, a disc's place and radius (floats)."""
    from tracker.vision import detect, discs

    seen = _recording(monkeypatch, "colour_alike")
    detect.ready_kernels.__wrapped__()
    warmed = set(seen)
    seen.clear()
    image = np.zeros((4, 5, 3), np.uint8)
    lab = cv2.cvtColor(cv2.copyMakeBorder(image, 3, 3, 3, 3, cv2.BORDER_REPLICATE),
                       cv2.COLOR_BGR2LAB).astype(np.float32)
    c = np.array([7.25, 3.5]) - [3 - 3, 2 - 3]
    kernels.colour_alike(lab, discs._padded(np.ones((4, 5), np.float32), 3), float(c[0]),
                         float(c[1]), float(np.float32(4.5)) * 1.0, discs._ALIKE_LAB)
    assert seen == warmed and len(seen) == 1


def test_free_arc_matches_the_numpy_reference_exactly():
    """Random blobs and discs anywhere (off the blob's edges too, and all empty round): the
    same arc every time, both ways; an arm along one side leaves half the ring free, a hand
    all round none."""
    rng = np.random.default_rng(9)
    arcs = []
    for trial in range(400):
        h, w = (int(v) for v in rng.integers(8, 70, 2))
        blob = (rng.uniform(size=(h, w)) < rng.uniform(0, 1)).astype(np.float32)
        blob *= rng.uniform(0.3, 1.0, (h, w)).astype(np.float32)
        r = float(rng.uniform(2, 12))
        px, py = (float(v) for v in rng.uniform(-5, (w + 5, h + 5)))
        got = kernels.free_arc(blob, px, py, r)
        assert got == kernels.free_arc_numpy(blob, px, py, r), trial
        arcs.append(got)
    assert len(set(arcs)) > 10
    r = 6.0
    arm = np.zeros((60, 60), np.float32)
    arm[:, :30] = 0.9
    assert kernels.free_arc(arm, 30.0, 30.0, r) == 190.0  # -90 to 90 degrees are off the arm
    assert kernels.free_arc(np.full((60, 60), 0.9, np.float32), 30.0, 30.0, r) == 0.0


def test_flat_scores_match_opencv_and_the_numpy_reference_exactly(scene):
    """A rendered frame's work image, whole and in boxes (views of it), flattened by the
    detector's gain and scored: the same bytes as OpenCV's ``multiply`` and the score table
    give; random pictures and gains too, with gains that make exact halves (rounded to
    even); no table, no scores."""
    det, *_ = scene
    frame = scene[5][0]
    prep = det._prepare(frame.shape[1], frame.shape[0])
    small = det.work_image(frame)
    gain = prep.gain
    for box in (np.s_[:, :], np.s_[10:200, 33:301], np.s_[5:6, :], np.s_[:, 7:9]):
        got = kernels.flat_scores(small[box], gain[box][..., 0], det.learner.table)
        want = kernels.flat_scores_numpy(small[box], gain[box][..., 0], det.learner.table)
        for g, w in zip(got, want):
            assert g.dtype == w.dtype == np.uint8
            np.testing.assert_array_equal(g, w)
    rng = np.random.default_rng(2)
    for trial in range(20):
        bgr = rng.integers(0, 256, (40, 57, 3)).astype(np.uint8)
        g = rng.uniform(0.5, 2.0, (40, 57)).astype(np.float32)
        if trial % 2:
            g = (np.round(g * 8) / 8).astype(np.float32)
        flat, score = kernels.flat_scores(bgr, g, det.learner.table)
        np.testing.assert_array_equal(flat, cv2.multiply(bgr, cv2.merge([g] * 3),
                                                         dtype=cv2.CV_8U))
        np.testing.assert_array_equal(score, scores(det.learner.table, flat))
        assert not kernels.flat_scores(bgr, g, np.zeros(0, np.uint8))[1].any()


def _whole_look_then_a_box(scene) -> None:
    """A new detector of the scene's camera on its frame (a look at the whole table), then on
    the frame with something new on the table (the change search, and a look at a box of it)."""
    det, *_ = scene
    frame = scene[5][0]
    again = BallDetector(det.geometry.calibration)
    again.detect(frame)
    moved = frame.copy()
    moved[500:530, 900:930] = 255
    again.detect(moved)


@compiled_only
def test_flat_scores_are_made_ready_for_the_types_detection_passes(scene, monkeypatch):
    """``ready_kernels`` compiles the flattening for the types a whole-table look and a look
    at a box of the table pass it (the work image and its gain whole, and views of a box)."""
    from tracker.vision import detect

    seen = _recording(monkeypatch, "flat_scores")
    detect.ready_kernels.__wrapped__()
    warmed = set(seen)
    seen.clear()
    _whole_look_then_a_box(scene)
    assert seen and seen <= warmed


def test_body_means_match_the_numpy_reference_exactly():
    """Random colours of many balls' pixels (ties of lightness among them), random pixels
    inside each, a ball without any and one with a single pixel: the same means to the last
    bit, both ways (NaN where there is nothing)."""
    rng = np.random.default_rng(1)
    for trial in range(200):
        n, m = int(rng.integers(1, 12)), int(rng.integers(1, 500))
        lab = rng.uniform(0, 255, (n, m, 3)).astype(np.float32)
        if trial % 3 == 0:
            lab = np.round(lab / 8).astype(np.float32) * 8
        inner = rng.uniform(size=(n, m)) < rng.uniform(0, 1)
        inner[0] = trial % 2 == 0 and inner[0]
        if n > 1:
            inner[-1] = False
            inner[-1, 0] = True
        got, want = kernels.body_means(lab, inner), kernels.body_means_numpy(lab, inner)
        np.testing.assert_array_equal(got, want)
        assert np.isnan(got[~inner.any(1)]).all() and np.isfinite(got[inner.any(1)]).all()


def test_close_pairs_match_the_numpy_reference_exactly():
    """Random detections, each with a blurred copy of another's colour near it (a streak's
    tail), some colours unknown (NaN), and the table positions, the colours or the cloth's
    colour not known: the same pairs both ways."""
    rng = np.random.default_rng(2)
    no_xy, no_lab, no_cloth = np.empty((0, 2)), np.empty((0, 3)), np.empty(0)
    tails = 0
    for trial in range(500):
        n = int(rng.integers(2, 25))
        xy = rng.uniform(0, 200, (n, 2))
        r = rng.uniform(5, 15, n)
        mm = xy * rng.uniform(1.5, 2.5) + rng.normal(0, 3, (n, 2))
        lab = rng.uniform(0, 255, (n, 3))
        cloth = rng.uniform(60, 160, 3)
        k = int(rng.integers(n))
        j = (k + 1) % n
        lab[j] = lab[k] + rng.uniform(0.05, 0.8) * (cloth - lab[k]) + rng.normal(0, 5, 3)
        xy[j] = xy[k] + rng.normal(0, 8, 2)
        mm[j] = mm[k] + rng.normal(0, 20, 2)
        if trial % 3 == 0:
            lab[int(rng.integers(n))] = np.nan
        tails += kernels.streak_tail_numpy(np.nan_to_num(lab, nan=-1e4), cloth).any()
        for args in ((xy, r, mm, lab, cloth), (xy, r, no_xy, lab, cloth),
                     (xy, r, mm, no_lab, no_cloth), (xy, r, mm, lab, no_cloth)):
            got, want = kernels.close_pairs(*args, R), kernels.close_pairs_numpy(*args, R)
            np.testing.assert_array_equal(got, want)
            assert np.array_equal(got, got.T) and not got.diagonal().any()
    assert tails > 50  # the streak test was met, not only passed by


def test_ray_maps_and_outline_points_match_the_numpy_references_exactly():
    """Rays out of random centres (some near or past a window's edge) at random radii, and
    random soft profiles along them (some never falling below a half, some with equal steps):
    the same maps and the same outline points and falls, to the last bit."""
    from tracker.vision.refine import _STEPS, _ray_directions

    rng = np.random.default_rng(3)
    u = _ray_directions(90)
    for _ in range(100):
        n, size = int(rng.integers(1, 9)), int(rng.integers(9, 60))
        c = rng.uniform(-3, size + 3, (n, 2)).astype(np.float32)
        r = rng.uniform(2, size / 2, n)
        s = np.sort(rng.uniform(0.6, 1.4, (n, _STEPS)), axis=1) * r[:, None]
        s = s.astype(np.float32)
        for got, want in zip(kernels.ray_maps(c, u, s, size),
                             kernels.ray_maps_numpy(c, u, s, size)):
            np.testing.assert_array_equal(got, want)
        prof = rng.uniform(0, 1, (n, len(u), _STEPS)).astype(np.float32)
        prof[:, ::7] = np.round(prof[:, ::7] * 4) / 4  # exact halves and equal steps
        prof[:, ::11] = 0.9  # never falls
        got, want = kernels.outline_points(prof, s), kernels.outline_points_numpy(prof, s)
        for a, b in zip(got, want):
            np.testing.assert_array_equal(a, b)
        assert got[1].any() and not got[1].all()


@compiled_only
def test_the_change_search_kernels_are_made_ready_for_the_types_detection_passes(
        scene, monkeypatch):
    """``ready_kernels`` compiles the lamps' brightness sums and their median ratio for the
    types the change search passes them (the work image and what was seen)."""
    from tracker.vision import detect

    seen = {name: _recording(monkeypatch, name) for name in ("grid_sums", "median_ratio")}
    detect.ready_kernels.__wrapped__()
    warmed = {name: set(s) for name, s in seen.items()}
    for s in seen.values():
        s.clear()
    _whole_look_then_a_box(scene)
    for name, s in seen.items():
        assert s and s <= warmed[name], name


def test_grid_sums_and_median_ratio_match_the_numpy_references_exactly():
    """Random pictures and random pixels of every eighth row and column: the same sums as
    the grid's own (B + G + R in float32) and the same median of their ratios to another
    picture's where that one is lit (an odd and an even count, none lit), both ways."""
    rng = np.random.default_rng(4)
    for trial in range(200):
        h, w = int(rng.integers(8, 300)), int(rng.integers(8, 500))
        image = rng.integers(0, 256, (h, w, 3), dtype=np.uint8)
        grid = image[::8, ::8]
        at = np.flatnonzero(rng.random(grid.shape[:2]) < rng.uniform(0.1, 1))
        ys, xs = 8 * (at // grid.shape[1]), 8 * (at % grid.shape[1])
        want = (grid[..., 0].astype(np.float32) + grid[..., 1] + grid[..., 2]).reshape(-1)[at]
        for got in (kernels.grid_sums(image, ys, xs), kernels.grid_sums_numpy(image, ys, xs)):
            np.testing.assert_array_equal(got, want)
            assert got.dtype == np.float32
        then = rng.uniform(0, 400, len(at)).astype(np.float32)
        if trial % 4 == 0:
            then[:] = 10.0  # none lit
        floor = 60.0
        assert kernels.median_ratio(want, then, floor) == kernels.median_ratio_numpy(
            want, then, floor)
