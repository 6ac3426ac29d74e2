"""Ball detection against rendered frames with exact truth, and against real broadcast stills.

The synthetic frames come from ``tracker.sim.render`` (the overhead camera at 3 m, 1080p, with
barrel distortion k1 = -0.12 and sensor noise); every detected centre is compared in table mm,
at the balls' centre height, with where the ball was put.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest
from scipy.optimize import linear_sum_assignment

from calibration.calibrate import Calibration
from calibration.camera import Camera
from calibration.specs import BALL_CLASSES, SNOOKER
from tracker.io.video import VideoWriter, read_frames
from tracker.sim.render import Capsule, Renderer
from tracker.sim.scenarios import overhead_camera
from tracker.sim.script import SKIN_BGR, SLEEVE_BGR, layout, standard_layout
from tracker.sim.truth import read_truth
from tracker.vision.cloth import _RELEARN_LAG, ClothLearner
from tracker.vision.colour import ColourClassifier
from tracker.vision.detect import BallDetector, Detections, DetectorConfig
from tracker.vision.discs import BlobDiscs, _streak_centre
from tracker.vision.kernels import circles as _circles
from tracker.vision.lastlook import brightest_channel
from tracker.vision.memory import LastAnswers
from tracker.vision.search import ChangeSearch
from tracker.vision.size import BallSize

R = SNOOKER.ball_radius_mm
REALDATA = Path(__file__).resolve().parents[2].parent / "shared" / "realdata"
TASK1 = REALDATA / "snooker-broadcast" / "Task1"


# -- Detections -----------------------------------------------------------------------------------
def test_detections_checks_shapes():
    d = Detections(np.zeros((3, 2)), np.ones(3), np.array([0, 1, -1]), np.ones(3))
    assert len(d) == 3 and d.class_names == ["white", "red", None]
    with pytest.raises(ValueError, match=r"xy_px must have shape \(N, 2\)"):
        Detections(np.zeros((3, 3)), np.ones(3), np.zeros(3, int), np.ones(3))
    with pytest.raises(ValueError, match=r"r_px must have shape \(3,\)"):
        Detections(np.zeros((3, 2)), np.ones(2), np.zeros(3, int), np.ones(3))
    with pytest.raises(ValueError, match=r"xy_mm must have shape \(3, 2\)"):
        Detections(np.zeros((3, 2)), np.ones(3), np.zeros(3, int), np.ones(3), np.zeros((2, 2)))
    with pytest.raises(ValueError, match="index into BALL_CLASSES"):
        Detections(np.zeros((1, 2)), np.ones(1), np.array([8]), np.ones(1))


def test_detections_subset_and_record():
    d = Detections(np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([5.0, 6.0]), np.array([1, 7]),
                   np.array([0.9, 0.8]), np.array([[10.0, 20.0], [30.0, 40.0]]))
    sub = d[d.cls == 7]
    assert len(sub) == 1 and sub.record(0) == {
        "ball": "black", "x_px": 3.0, "y_px": 4.0, "r_px": 6.0, "x_mm": 30.0, "y_mm": 40.0,
        "confidence": 0.8}
    assert not d.xy_px.flags.writeable


def test_a_bright_balls_long_blur_streak_is_one_ball_and_touching_colours_are_two():
    """A fast white found as its head and its tail (the white mixed with the cloth), 80 mm
    apart on the table, is one ball; a red touching a brown as near in the image, and a white
    beside a green ball (darker than the cloth), stay two."""
    from tracker.vision.detect import _dedupe

    cloth = np.array([141.0, 70.0, 184.0])
    white = np.array([248.0, 111.0, 160.0])
    tail = 0.4 * white + 0.6 * cloth + [2.0, -3.0, 1.0]

    def pair(lab_a, lab_b):
        return Detections(np.array([[640.0, 100.0], [646.0, 112.0]]), np.full(2, 9.0),
                          np.full(2, -1), np.array([0.9, 0.8]),
                          np.array([[900.0, 3000.0], [900.0, 2920.0]]), np.array([lab_a, lab_b]))

    one = _dedupe(pair(white, tail), cloth_lab=cloth)
    assert len(one) == 1 and np.allclose(one.xy_mm[0], [900.0, 2960.0])
    assert len(_dedupe(pair(white, tail))) == 2  # the cloth's colour unknown
    red, brown, green = [120.0, 178.0, 168.0], [110.0, 131.0, 176.0], [110.0, 84.0, 157.0]
    assert len(_dedupe(pair(red, brown), cloth_lab=cloth)) == 2
    assert len(_dedupe(pair(white, green), cloth_lab=cloth)) == 2


def test_a_dark_balls_blur_head_and_tail_are_one_ball_touching_balls_two():
    """A red's blur streak found as its head (red) and its tail (the red mixed with the cloth,
    browner), 34 mm apart on the table and 31 px in a 4K overhead image: nearer than two balls
    can be, even with 3 px more between them, so one ball whatever the colours. A red and a
    brown touching (52 mm) stay two, and so do two found 40 mm apart at the far end of a
    steep view, where 5 px are 40 mm (3 px more could make them two touching balls)."""
    from tracker.vision.detect import _dedupe

    red, brown = [120.0, 178.0, 168.0], [110.0, 131.0, 176.0]

    def pair(px_apart, mm_apart, r_px):
        return Detections(np.array([[3450.0, 1850.0], [3450.0 + px_apart, 1850.0]]),
                          np.full(2, r_px), np.full(2, -1), np.array([0.97, 0.9]),
                          np.array([[1678.0, 3353.0], [1678.0 + mm_apart, 3353.0]]),
                          np.array([red, brown]))

    one = _dedupe(pair(31.0, 34.0, 23.0))
    assert len(one) == 1 and np.allclose(one.xy_mm[0], [1695.0, 3353.0])
    assert len(_dedupe(pair(48.0, 52.5, 23.0))) == 2
    assert len(_dedupe(pair(5.0, 40.0, 8.0))) == 2


# -- rendered frames ------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def overhead():
    cam = overhead_camera((1920, 1080), 3000.0, 0.0, -0.12)
    return cam, Renderer(cam), Calibration.from_camera(cam)


def _scatter(seed: int):
    rng = np.random.default_rng(seed)
    reds = []
    while len(reds) < 8:
        p = rng.uniform([R + 5, R + 5], [SNOOKER.width_mm - R - 5, SNOOKER.length_mm - R - 5])
        if all(np.hypot(*(p - q)) > 2 * R + 3 for q in reds) and all(
                np.hypot(*(p - np.asarray(s))) > 2 * R + 3 for s in SNOOKER.spots_mm.values()):
            reds.append(p)
    reds = np.array(reds)
    reds[0] = (R, 1200.0)  # against the left cushion
    reds[1] = reds[2] + [2 * R, 0.0]  # a touching pair
    b = layout((700.0, 2000.0), reds)
    pos = b.pos.copy()
    pos[0, :2] = pos[b.classes.index("pink"), :2] + [2 * R, 0.0]  # white touching the pink
    return list(b.classes), pos


def _run(cam, renderer, cal, classes, pos, occluders=(), frame_index=0, visible=None):
    frame, vis = renderer.render(classes, pos, visible, occluders=occluders,
                                 frame_index=frame_index)
    det = BallDetector(cal)
    d = ColourClassifier().classify(det.detect(frame), det.cloth)
    true_px = cam.project(pos)
    dist = np.hypot(*(d.xy_px[:, None] - true_px[None]).transpose(2, 0, 1))
    ri, ci = linear_sum_assignment(dist)
    ok = dist[ri, ci] < cam.ball_radius_px(pos, R)[ci]
    return d, vis, ri[ok], ci[ok]


def _score(cases):
    """Totals over (classes, pos, d, vis, det_idx, ball_idx) cases."""
    n = found = false = right = matched = 0
    err = []
    for classes, pos, d, vis, di, bi in cases:
        want = vis >= 0.5
        n += int(want.sum())
        found += int(want[bi].sum())
        false += len(d) - len(di)
        sel = want[bi]
        err.extend(np.hypot(*(d.xy_mm[di[sel]] - pos[bi[sel], :2]).T))
        right += sum(BALL_CLASSES[d.cls[i]] == classes[j] for i, j in zip(di[sel], bi[sel]))
        matched += int(sel.sum())
    return n, found, false, right, matched, np.asarray(err)


def test_overhead_1080p_positions_recall_and_classes(overhead):
    cam, renderer, cal = overhead
    cases = []
    b = standard_layout()
    pos = b.pos.copy()
    pos[0, :2] = (1000.0, 600.0)
    cases.append((list(b.classes), pos, *_run(cam, renderer, cal, list(b.classes), pos)))
    for seed in (1, 2):
        classes, pos = _scatter(seed)
        cases.append((classes, pos, *_run(cam, renderer, cal, classes, pos, frame_index=seed)))
    n, found, false, right, matched, err = _score(cases)
    assert found / n >= 0.995, f"recall {found}/{n}"
    assert false / (found + false) <= 0.001, f"{false} false balls"
    assert right == matched, f"classes right {right}/{matched}"
    assert np.median(err) <= 0.5 and np.percentile(err, 95) <= 2.0, (
        f"median {np.median(err):.2f} mm, p95 {np.percentile(err, 95):.2f} mm")


def test_what_depends_on_the_camera_alone_is_made_before_the_first_frame(overhead,
                                                                         monkeypatch):
    """A live camera's first frame is not held up by the work image's geometry, the silhouette
    offsets' grid or the steep-view grid: the detector makes them when it is made, and its
    first frame (the whole table looked at, the cloth learnt) finds every ball without
    making any of them again."""
    import tracker.vision.detect as detect_module
    import tracker.vision.geometry as geometry_module

    cam, renderer, cal = overhead
    b = standard_layout()
    pos = b.pos.copy()
    pos[0, :2] = (1000.0, 600.0)  # the white on the table
    frame, vis = renderer.render(list(b.classes), pos)
    det = BallDetector(cal)

    def made_again(*args, **kwargs):
        raise AssertionError("made on the first frame")

    monkeypatch.setattr(detect_module, "prepare_frame", made_again)
    monkeypatch.setattr(geometry_module, "_grid_points", made_again)
    d = det.detect(frame)
    assert (vis >= 0.5).all() and len(d) == len(b.classes)


def test_touching_pair_is_two_balls(overhead):
    cam, renderer, cal = overhead
    a = np.array([600.0, 1500.0])
    reds = np.array([a, a + 2 * R * np.array([np.cos(0.7), np.sin(0.7)])])
    b = layout(None, reds, {})
    d, vis, di, bi = _run(cam, renderer, cal, list(b.classes), b.pos, frame_index=3,
                          visible=b.on_table())
    on = np.flatnonzero(vis > 0)
    assert len(d) == 2 and sorted(bi) == sorted(on)
    err = np.hypot(*(d.xy_mm[di] - b.pos[bi, :2]).T)
    assert err.max() < 2.0, err


def test_the_reds_of_a_pack_are_placed_by_their_outlines(overhead, tmp_path):
    """A frame's pack, through the codec as the sample clips are: the dark gaps between the
    reds fill each one's window unevenly (their centroids were 1.9 mm off, median); their
    outlines against the cloth place them within a millimetre."""
    cam, renderer, cal = overhead
    b = standard_layout()
    frame, _ = renderer.render(list(b.classes), b.pos, b.on_table())
    path = tmp_path / "pack.mp4"
    with VideoWriter(path, cam.image_size, 30.0, crf=26) as out:
        for _ in range(3):
            out.write(frame)
    d = BallDetector(cal).detect(next(iter(read_frames(path))))
    reds = b.pos[[i for i, c in enumerate(b.classes) if c == "red"], :2]
    err = np.hypot(*(d.xy_mm[:, None] - reds[None]).transpose(2, 0, 1)).min(0)
    assert np.median(err) < 1.0, err


def test_lone_balls_through_the_codec_are_placed_by_centroid_and_outline(overhead, tmp_path):
    """Balls alone on the cloth, through the codec as the sample clips are (a few frames of
    sensor noise, CRF 26): the codec's blotches at a ball's edge move its centroid; the mean
    of the centroid and the circle through its outline is nearer (0.46 mm median over 44
    balls, where the centroid alone is 0.64 mm off)."""
    cam, renderer, cal = overhead
    err = []
    for seed in (1, 2, 3, 4):
        classes, pos = _scatter(seed)
        path = tmp_path / f"lone{seed}.mp4"
        with VideoWriter(path, cam.image_size, 30.0, crf=26) as out:
            for k in range(6):
                out.write(renderer.render(classes, pos, frame_index=k)[0])
        d = BallDetector(cal).detect(list(read_frames(path))[-1])
        apart = np.hypot(*(pos[:, None, :2] - pos[None, :, :2]).transpose(2, 0, 1))
        np.fill_diagonal(apart, np.inf)
        lone = pos[apart.min(1) > 4 * R, :2]
        err.extend(np.hypot(*(d.xy_mm[:, None] - lone[None]).transpose(2, 0, 1)).min(0))
    assert len(err) == 44 and np.median(err) < 0.52, (len(err), np.median(err))


def test_lone_white_and_black_balls_are_placed_by_their_lightness_edge(overhead, tmp_path,
                                                                       monkeypatch):
    """White and black balls alone on the cloth, through the codec as the sample clips are:
    they stand off the cloth in lightness, which the codec keeps at full resolution, so their
    lightness edge places them nearer than their colour does (the colour's outline and
    centroid, at half resolution)."""
    import tracker.vision.refine as refine

    cam, renderer, cal = overhead
    frames, truth = [], []
    for seed in range(4):
        rng = np.random.default_rng(seed)
        pts = []
        while len(pts) < 6:
            p = rng.uniform(R + 60, [SNOOKER.width_mm - R - 60, SNOOKER.length_mm - R - 60])
            if all(np.hypot(*(p - q)) > 6 * R for q in pts):
                pts.append(p)
        pos = np.c_[np.array(pts), np.full(6, R)]
        path = tmp_path / f"wb{seed}.mp4"
        with VideoWriter(path, cam.image_size, 30.0, crf=26) as out:
            for k in range(6):
                out.write(renderer.render(["white", "black"] * 3, pos, frame_index=k)[0])
        frames.append(list(read_frames(path))[-1])
        truth.append(pos[:, :2])

    def median_error() -> float:
        err = []
        for frame, xy in zip(frames, truth):
            d = BallDetector(cal).detect(frame)
            err.extend(np.hypot(*(d.xy_mm[:, None] - xy[None]).transpose(2, 0, 1)).min(0))
        assert len(err) == 24
        return float(np.median(err))

    by_edge = median_error()
    monkeypatch.setattr(refine, "_ACHROMATIC", 0.0)  # no ball is taken for white or black
    by_colour = median_error()
    assert by_edge < 0.42 and by_edge < 0.8 * by_colour, (by_edge, by_colour)


def test_circles_fitted_together_and_a_straight_edge_does_not_break_them():
    th = np.linspace(0, 2 * np.pi, 30, endpoint=False)
    ring = np.c_[3.0 + 12.5 * np.cos(th), -2.0 + 12.5 * np.sin(th)]
    line = np.c_[np.arange(30.0), np.full(30, 7.0)]  # a bar's edge: all on one line
    use = np.ones((3, 30), bool)
    use[2, ::2] = False  # every other point of the ring
    centre, radius = _circles(np.stack([ring, line, ring]), use)
    assert np.allclose(centre[[0, 2]], [3.0, -2.0]) and np.allclose(radius[[0, 2]], 12.5)
    assert np.isfinite(centre[1]).all()


def test_cue_over_a_ball_makes_no_false_ball(overhead):
    cam, renderer, cal = overhead
    b = layout((900.0, 1400.0), [[500.0, 2500.0]])
    white = b.pos[0]
    cue = Capsule((white[0] + 8, white[1] - 30, 60.0), (white[0] + 250, -900.0, 600.0), 5.0,
                  15.0, (120, 175, 215))
    d, vis, di, bi = _run(cam, renderer, cal, list(b.classes), b.pos, [cue], frame_index=4)
    assert len(d) == len(di), "a detection that is not a ball"
    want = np.flatnonzero(vis >= 0.5)
    assert set(want) <= set(bi)


def _answer(*xy) -> Detections:
    n = len(xy)
    return Detections(np.array(xy, float), np.full(n, 12.0), np.full(n, -1), np.full(n, 0.9))


@pytest.mark.parametrize("before, last, now, pair, blur", [
    # going right and on: its ring filled ahead and behind (eighths 3 and 7, or 0 and 4)
    ((100, 100), (130, 100), (160, 102), 3, True),
    ((100, 100), (130, 100), (160, 102), 0, True),
    # ... but not across the way it goes
    ((100, 100), (130, 100), (160, 102), 1, False),
    # a disc in the cue behind a white that stood still, or behind where it was going from
    ((100, 100), (100, 100), (70, 100), 3, False),
    ((100, 100), (130, 100), (105, 100), 3, False),
    # moved too little for its blur to reach the ring, or too far for a ball not a streak
    ((100, 100), (130, 100), (134, 100), 3, False),
    ((100, 100), (130, 100), (210, 100), 3, False),
])
def test_a_moving_balls_own_blur_ahead_and_behind_it_is_no_cue_over_it(overhead, before, last,
                                                                      now, pair, blur):
    """A ball blurred along its way fills the ring round it ahead and behind (in noisy footage
    its blur's ends score as clearly not cloth): no cue passes over it there, where the ball
    moved on the way it was going. A disc in the cue following the white through is behind
    where the white was."""
    det = BallDetector(overhead[2])
    det.answers.before, det.answers.last = _answer(before), _answer(last)
    opposite = np.zeros((1, 4), bool)
    opposite[0, pair] = True
    assert det.answers.own_blur(np.array([now], float), np.array([12.0]), opposite)[0] == blur


def test_a_disc_on_a_bar_lying_across_the_table_is_not_a_ball(overhead):
    # a rest's shaft lying on the cloth, thinner than a ball: a disc placed on it is filled on
    # two opposite sides of its ring by one piece, whatever else it passes
    cam, renderer, cal = overhead
    shaft = Capsule((400.0, 1200.0, 8.0), (1400.0, 1700.0, 8.0), 8.0, 8.0, (40, 60, 90))
    b = layout((300.0, 600.0), [])
    frame, _ = renderer.render(list(b.classes), b.pos, occluders=[shaft], frame_index=2)
    det = BallDetector(cal)
    det.detect(frame)
    prep = det._prepare(frame.shape[1], frame.shape[0])
    on_shaft = cam.project(np.array([[900.0, 1450.0, 8.0]]))
    _, _, _, ok, _ = det.refiner.refine(frame, on_shaft, det._radius_at(on_shaft, prep), prep)
    assert not ok[0]


# an arm reaching in over the side cushion: its axis (table y mm) and radius (mm)
_ARM_Y, _ARM_R = 2000.0, 45.0
_ARM = Capsule((-500.0, _ARM_Y, 450.0), (420.0, _ARM_Y, 60.0), 60.0, _ARM_R, SLEEVE_BGR)


def _only_the_red_found(overhead, red_y: float, occluders: list, what: str) -> None:
    """A frame with a red at (250, ``red_y``) mm and the ``occluders``: every ball at least
    half seen is found (the red among them), and nothing else (``what`` names the suspect)."""
    cam, renderer, cal = overhead
    b = layout((1200.0, 900.0), [(250.0, red_y)], {})
    d, vis, di, bi = _run(cam, renderer, cal, list(b.classes), b.pos, occluders,
                          frame_index=5, visible=b.on_table())
    want = np.flatnonzero(vis >= 0.5)
    assert b.classes.index("red") in want
    assert set(want) <= set(bi), f"balls missed: {sorted(set(want) - set(bi))}"
    assert len(d) == len(di), f"a detection that is not a ball ({what}?)"


@pytest.mark.parametrize("side", [1.0, -1.0])
def test_ball_against_an_arm_is_found_and_the_hand_is_not(overhead, side):
    """An arm reaching in over the side cushion with a hand at its end on the cloth: the ball
    against the side of the arm is a ball, the hand at its end (as wide as a ball or wider) is
    not."""
    hand = Capsule((470.0, _ARM_Y, 42.0), (470.0, _ARM_Y, 42.0), 42.0, 42.0, SKIN_BGR)
    _only_the_red_found(overhead, _ARM_Y + side * (_ARM_R + R + 2.0), [_ARM, hand], "the hand")


@pytest.mark.parametrize("what", ["red", "knuckle"])
def test_a_round_thing_against_the_sleeve_is_a_ball_unless_of_skins_colour(overhead, what):
    """Refinement takes a disc whose ring is filled on one side (a ball against an arm) for a
    ball unless its body is of skin's colour: the knuckle of a hand at the end of a sleeve, as
    round as a ball (found so in footage with a camera's noise, where the rest of the hand fell
    apart from it)."""
    cam, renderer, cal = overhead
    y = _ARM_Y + _ARM_R + R + 2.0
    b = layout((1200.0, 900.0), [(250.0, y)] if what == "red" else [], {})
    knuckle = [Capsule((250.0, y, R), (250.0, y, R), R, R, SKIN_BGR)] if what == "knuckle" else []
    frame, _ = renderer.render(list(b.classes), b.pos, b.on_table(), occluders=[_ARM] + knuckle,
                               frame_index=5)
    det = BallDetector(cal)
    det.detect(frame)
    prep = det._prepare(frame.shape[1], frame.shape[0])
    at = cam.project(np.array([[250.0, y, R]]))
    _, cover, _, ok, _ = det.refiner.refine(frame, at, det._radius_at(at, prep), prep)
    assert cover[0] > 0.9 and ok[0] == (what == "red")


@pytest.mark.parametrize("finger_r", [18.0, 25.0])
def test_ball_between_a_sleeve_and_fingers_is_found(overhead, finger_r):
    """A red with the sleeve on one side and the fingers of the hand on the other: hardly
    any of the ring around it is free, but it is of a colour of its own, not the skin's nor the
    sleeve's, so it is a ball; the fingers are not."""
    red_y = _ARM_Y + _ARM_R + R + 2.0
    finger_y = red_y + R + 8.0 + finger_r
    fingers = Capsule((150.0, finger_y, finger_r), (360.0, finger_y, finger_r), finger_r,
                      finger_r, SKIN_BGR)
    _only_the_red_found(overhead, red_y, [_ARM, fingers], "the fingers")


def test_the_colour_of_a_ball_beyond_the_cue_by_it_is_not_the_balls_own():
    """A brown disc in a bigger blob with the cue across the blob just under it and, beyond the
    cue, the shadow under it as dark as the ball: that shadow is not the ball's colour running
    on (a knuckle's into its hand), so little of the blob around the disc is alike; a disc in
    a hand of its own colour is still all alike."""
    from tracker.vision import kernels
    from tracker.vision.discs import _ALIKE_LAB, _ALIKE_SHARE

    r, p = 8.0, np.array([30.0, 24.0])
    yy, xx = np.mgrid[0:60, 0:60]
    dist = np.hypot(xx - p[0], yy - p[1])
    brown, cue, skin = (60.0, 124.0, 155.0), (200.0, 110.0, 150.0), (170.0, 140.0, 150.0)
    lab = np.empty((60, 60, 3), np.float32)
    lab[:] = skin
    lab[(yy - p[1] > r) & (yy - p[1] < r + 5)] = cue
    lab[yy - p[1] >= r + 5] = brown
    lab[dist <= r] = brown
    blob = ((dist <= r) | (yy - p[1] > r)).astype(np.float32)
    for alike in (kernels.colour_alike, kernels.colour_alike_numpy):
        assert alike(lab, blob, *p, r, _ALIKE_LAB) <= _ALIKE_SHARE
        hand = np.full((60, 60, 3), skin, np.float32)
        assert alike(hand, np.ones((60, 60), np.float32), *p, r, _ALIKE_LAB) == 1.0


@pytest.mark.parametrize("gap", [1.0, 3.0, 5.0])
def test_ball_between_the_cue_and_a_shadow_is_found(overhead, gap):
    """A red with the cue passing just beside it (``gap`` mm of cloth between) and a shadow
    joined to its other side: the not-cloth ring round it is filled on opposite sides, but by
    two things, neither passing over or under the ball, so it is a ball."""
    cam, renderer, cal = overhead
    red = np.array([900.0, 1800.0, R])
    y_cue = red[1] + R + gap + 5.0
    cue = Capsule((red[0] - 400.0, y_cue, 40.0), (red[0] + 400.0, y_cue, 40.0), 5.0, 5.0,
                  (120, 175, 215))
    frame, _ = renderer.render(["red"], red[None], occluders=[cue])
    r_px = float(cam.ball_radius_px(red[None], R)[0])
    c = cam.project(red[None])[0]
    # the shadow: a crescent on the side away from the cue, out to 1.75 radii
    yy, xx = np.mgrid[0:frame.shape[0], 0:frame.shape[1]]
    away = np.asarray(cam.project((red + [0.0, -R, 0.0])[None])[0]) - c
    rho = np.hypot(xx - c[0], yy - c[1]) / r_px
    cos = ((xx - c[0]) * away[0] + (yy - c[1]) * away[1]) / np.maximum(
        rho * r_px * np.hypot(*away), 1e-9)
    green = np.asarray(renderer.look.cloth_bgr, float)
    cloth = np.abs(frame.astype(float) - green).sum(-1) < 60
    frame[(rho > 0.95) & (rho < 1.75) & (cos > np.cos(np.radians(30))) & cloth] = (
        0.15 * green + 20).astype(np.uint8)
    d = BallDetector(cal).detect(frame)
    assert len(d) == 1 and np.hypot(*(d.xy_px[0] - c)) < 0.3 * r_px, (d.xy_px, c)


def test_touching_balls_with_the_cue_tip_at_their_neck_are_both_found():
    """The sample clip ``touching``: the player addresses the white, which touches a red, the
    cue tip over the neck between them. The two discs are not a bar (the cue's): their neck,
    filled by the cue tip on one side and by their halos in the middle, narrows on the other
    side. Each frame is looked at whole, with the true camera."""
    clip = Path(__file__).resolve().parents[2] / "sample_videos" / "touching.mp4"
    meta, balls = read_truth(clip)
    cal = Calibration.from_camera(Camera.from_dict(meta["camera"]))
    pair = [balls.ids.index(b) for b in ("white", "red_01")]
    looked = 0
    for k, image in enumerate(read_frames(clip)):
        if k > 77:
            break
        if k not in (38, 41, 44, 50, 69, 77):
            continue
        d = BallDetector(cal).detect(image)
        for q in pair:
            assert len(d) and np.hypot(*(d.xy_px - balls.px[k, q]).T).min() < balls.r_px[k, q], (
                f"frame {k}: {balls.ids[q]} missed")
        looked += 1
    assert looked == 6


def test_an_arm_reaching_in_from_beyond_the_picture_holds_no_ball():
    """The sample clip ``double_kiss`` (a wide-angle camera whose picture ends at the middle
    pockets' rails): a sleeve and a hand reach in over the side cushion from beyond the
    picture's edge. The hand at the sleeve's end is not a ball, though the arm never crosses
    the edge of the table area inside the picture. Each frame is looked at whole, with the
    true camera."""
    clip = Path(__file__).resolve().parents[2] / "sample_videos" / "double_kiss.mp4"
    meta, balls = read_truth(clip)
    cal = Calibration.from_camera(Camera.from_dict(meta["camera"]))
    looked = 0
    for k, image in enumerate(read_frames(clip)):
        if k > 90:
            break
        if k < 88:
            continue
        d = BallDetector(cal).detect(image)
        on = np.flatnonzero(balls.visible[k] > 0)
        near = np.hypot(*(d.xy_px[:, None] - balls.px[k, on][None]).transpose(2, 0, 1))
        false = d.xy_px[near.min(1) >= balls.r_px[k, on].max()]
        # the arm and the hand lie left of x = 800 px
        assert not (false[:, 0] < 800).any(), f"frame {k}: a ball on the arm at {false}"
        looked += 1
    assert looked == 3


def test_changes_searched_in_boxes_find_what_the_whole_window_finds(monkeypatch):
    """The sample clip ``break_off`` (the balls spreading over the table, changes all over it):
    each cluster of change searched in a box of its own gives, frame by frame, the very
    detections of a search of the whole window around every change."""
    import tracker.vision.search as search

    clip = Path(__file__).resolve().parents[2] / "sample_videos" / "break_off.mp4"
    meta, _ = read_truth(clip)
    cal = Calibration.from_camera(Camera.from_dict(meta["camera"]))
    boxed, whole = BallDetector(cal), BallDetector(cal)
    found = []
    for k, image in enumerate(read_frames(clip)):
        if k >= 150:
            break
        a = boxed.detect(image)
        with monkeypatch.context() as m:
            m.setattr(search, "_grow_box", lambda box, by, window: window)  # one box: the window
            b = whole.detect(image)
        for name in ("xy_px", "r_px", "confidence", "xy_mm", "lab"):
            np.testing.assert_array_equal(getattr(a, name), getattr(b, name),
                                          err_msg=f"frame {k}: {name}")
        found.append(len(a))
    assert min(found) >= 10


def test_lamp_flicker_is_no_change_on_the_table():
    """The sample clip ``break_off`` is lit by lamps that flicker by 3 %, which the codec carries
    to the cloth and not to the balls. Once the balls are at rest (frame 330 on), a frame whose
    brightness swung is no change: the detector answers at least four frames in five with its
    last answer, without looking (what it looks at again is kept at the brightness of the rest
    of what it saw, so a place once looked at is not changed by the next swing), and still
    finds every ball. Nor is the player's hand, behind where the white stood before the break,
    taken for a ball once the white has gone (frames 110-130), though a window around what
    changed cuts it off the arm (the balls as the colour classifier keeps them, the calibration
    found in the video)."""
    from calibration.find import calibrate_video

    clip = Path(__file__).resolve().parents[2] / "sample_videos" / "break_off.mp4"
    meta, balls = read_truth(clip)
    assert meta["clip"]["lighting"]["flicker"] == 0.03
    cal = calibrate_video(clip)  # as ``cueball track`` finds it
    white = balls.ids.index("white")
    stood, r = balls.px[100, white], balls.r_px[100, white]
    back = (stood - balls.px[110, white]) / np.hypot(*(stood - balls.px[110, white]))
    hand = stood + 8.6 * r * back  # behind the white along the shot: the cue hand
    det, colour = BallDetector(cal), ColourClassifier()
    last, same, rest, false = None, 0, 0, []
    for k, image in enumerate(read_frames(clip)):
        d = det.detect(image)
        if det.look.brightest is not None:  # made again only where a look changed what was seen
            want = brightest_channel(det.look.image)
            assert np.array_equal(det.look.brightest, want), f"frame {k}"
        kept = colour.classify(d, det.cloth)
        on = np.flatnonzero((balls.visible[k] >= 0.5) & (balls.state[k] != "potted"))
        if 110 <= k <= 130:
            assert np.hypot(*(balls.px[k, on] - hand).T).min() > 4 * r
            false += [k] * int((np.hypot(*(kept.xy_px - hand).T) < 2 * r).sum())
        if k >= 330:
            rest += 1
            same += d is last
            near = np.hypot(*(d.xy_px[:, None] - balls.px[k, on][None]).transpose(2, 0, 1))
            assert (near.min(0) < balls.r_px[k, on]).all(), f"frame {k}: a ball missed"
        last = d
    assert rest == 95
    assert same >= 0.8 * rest, f"looked again on {rest - same} of {rest} frames at rest"
    assert not false, f"the hand taken for a ball on frames {false}"


def test_an_arm_cut_by_the_window_is_looked_at_without_the_whole_table(monkeypatch):
    """The sample clip ``in_off``: the player's arm reaches in from the picture's edge and moves
    over the table (frames 31-41) while the balls stand. What changed reaches out of the window
    around it, and is then looked at in the whole picture, not the whole table again: no look
    at every ball but the first and the one when the cloth relearnt from frame 30 is used;
    every ball is still found."""
    clip = Path(__file__).resolve().parents[2] / "sample_videos" / "in_off.mp4"
    meta, balls = read_truth(clip)
    cal = Calibration.from_camera(Camera.from_dict(meta["camera"]))
    det = BallDetector(cal)
    whole = []
    look = BallDetector._balls_in_window

    def counted(self, frame, small, prep, window, region, **kwargs):
        if region is None:
            whole.append(k)
        return look(self, frame, small, prep, window, region, **kwargs)

    monkeypatch.setattr(BallDetector, "_balls_in_window", counted)
    for k, image in enumerate(read_frames(clip)):
        if k > 41:
            break
        d = det.detect(image)
        if k >= 31:
            on = np.flatnonzero(balls.visible[k] >= 0.5)
            near = np.hypot(*(d.xy_px[:, None] - balls.px[k, on][None]).transpose(2, 0, 1))
            assert (near.min(0) < balls.r_px[k, on]).all(), f"frame {k}: a ball missed"
    assert whole == [0, DetectorConfig().relearn_every + _RELEARN_LAG], whole


def test_changes_searched_at_once_after_boxes_were_cut_find_what_the_boxes_find(monkeypatch):
    """The sample clip ``in_off`` (the player's arm over the table, the white and a red rolling
    into pockets): where the boxes round what changed were cut by the arm's blob on the two
    frames before, or a window cut it and the whole picture is looked at, the window is
    searched at once rather than box by box (or, in the whole picture, in one box more round
    what the frame before's search of the whole picture held), and every frame's detections
    are the very same as the boxes' search gives."""
    clip = Path(__file__).resolve().parents[2] / "sample_videos" / "in_off.mp4"
    meta, _ = read_truth(clip)
    cal = Calibration.from_camera(Camera.from_dict(meta["camera"]))
    at_once, boxed = BallDetector(cal), BallDetector(cal)
    changed_blobs = ChangeSearch.changed_blobs
    skipped, pictures, reached = [], [], []

    def counted(self, small, prep, window, region, in_boxes=True):
        if self is at_once.search and (not in_boxes or self._boxes_cut >= 2):
            (skipped if in_boxes else pictures).append(k)
            if not in_boxes and self._reach is not None:
                reached.append(k)
        return changed_blobs(self, small, prep, window, region, in_boxes)

    def always_boxes(self, small, prep, window, region, in_boxes=True):
        self._boxes_cut = 0
        return changed_blobs(self, small, prep, window, region)

    monkeypatch.setattr(ChangeSearch, "changed_blobs", counted)
    for k, image in enumerate(read_frames(clip)):
        a = at_once.detect(image)
        with monkeypatch.context() as m:
            m.setattr(ChangeSearch, "changed_blobs", always_boxes)
            b = boxed.detect(image)
        for name in ("xy_px", "r_px", "confidence", "xy_mm", "lab"):
            np.testing.assert_array_equal(getattr(a, name), getattr(b, name),
                                          err_msg=f"frame {k}: {name}")
    assert len(skipped) >= 20 and len(pictures) >= 5 and reached, (skipped, pictures, reached)


def test_the_cloth_is_relearnt_on_a_thread_of_its_own_and_the_answers_do_not_hang_on_it(
        monkeypatch):
    """The sample clip ``in_off``'s first 75 frames: after the first frame the cloth model is
    relearnt on a thread of its own, and used a set number of frames later, however long the
    relearning takes: with it made 60 ms slower every frame's balls are the very same."""
    import threading
    import time

    clip = Path(__file__).resolve().parents[2] / "sample_videos" / "in_off.mp4"
    meta, _ = read_truth(clip)
    cal = Calibration.from_camera(Camera.from_dict(meta["camera"]))
    frames = [image for _, image in zip(range(75), read_frames(clip))]

    def run(delay: float) -> tuple[list, list]:
        learn = ClothLearner.learn
        threads = []

        def slow(self, small, prep, rate, *light):
            threads.append(threading.current_thread().name)
            if threads[1:]:
                time.sleep(delay)
            return learn(self, small, prep, rate, *light)

        with monkeypatch.context() as m:
            m.setattr(ClothLearner, "learn", slow)
            det = BallDetector(cal)
            return [det.detect(image).xy_px.copy() for image in frames], threads

    quick, threads = run(0.0)
    slowed, _ = run(0.06)
    assert threads[0] == threading.main_thread().name
    assert len(threads) == 3 and all(t.startswith("cueball-cloth") for t in threads[1:])
    assert all(np.array_equal(a, b) for a, b in zip(quick, slowed))


def test_a_ball_blurred_over_several_diameters_is_found_at_the_middle_of_its_streak():
    """The sample clip ``break_off``: the white, struck at about 9 m/s, is blurred over five
    ball widths in each frame (frames 110-116), a band too faint at its trailing end for the
    refinement to take a disc in it for a ball. It is one ball, found within a radius of its
    true centre (the middle of the streak, the frame's instant), with nothing else on its path;
    two reds touching in a row (frames 145-149), and two rolling side by side, touching, their
    blurs joined in one band (frames 121, 136, 148), stay two balls."""
    from calibration.find import calibrate_video

    clip = Path(__file__).resolve().parents[2] / "sample_videos" / "break_off.mp4"
    meta, balls = read_truth(clip)
    det = BallDetector(calibrate_video(clip))
    white, pair = balls.ids.index("white"), [balls.ids.index(b) for b in ("red_09", "red_10")]
    rolling = [balls.ids.index(b) for b in ("red_04", "red_07")]
    for k, image in enumerate(read_frames(clip)):
        if k > 149:
            break
        d = det.detect(image)
        if 110 <= k <= 116:
            assert balls.state[k, white] == "moving"
            c, r = balls.px[k, white], balls.r_px[k, white]
            near = np.hypot(*(d.xy_px - c).T) < 4 * r  # on its streak
            assert near.sum() == 1, f"frame {k}: {d.xy_px[near]} on the white's streak"
            assert np.hypot(*(d.xy_px[near][0] - c)) < r, f"frame {k}: {d.xy_px[near]}, {c}"
        for q in (pair if 145 <= k <= 149 else []) + (rolling if k in (121, 136, 148) else []):
            dist = np.hypot(*(d.xy_px - balls.px[k, q]).T)
            assert dist.min() < balls.r_px[k, q], f"frame {k}: {balls.ids[q]} missed"


@pytest.mark.parametrize("radii_a_frame", [1.2, 1.6, 2.0, 2.5, 3.0, 4.0])
def test_a_ball_blurred_over_its_own_width_or_more_is_one_ball_at_the_middle_of_its_blur(
        overhead, radii_a_frame):
    """A camera whose shutter is open the whole frame blurs a red rolling 2.5 to 4 radii a
    frame over as much: a band 4.5 to 6 radii long, found as its head and tail, further apart
    than two discs of one ball (1.6 radii). It stood nowhere along the band before: one ball,
    at the band's middle (where it was at the frame's middle instant), on every frame after
    the first."""
    cam, renderer, cal = overhead
    step = radii_a_frame * R
    b = layout((300.0, 600.0), [[900.0, 1500.0]])
    classes = list(b.classes)
    red = classes.index("red")
    det = BallDetector(cal)
    for k in range(8):
        sub = np.repeat(b.pos[None], 9, axis=0)  # its place through the whole frame
        x = 400.0 + k * step
        sub[:, red, 0] = x + np.linspace(-step / 2, step / 2, 9)
        d = det.detect(renderer.render(classes, sub, frame_index=k)[0])
        c = cam.project(np.array([[x, 1500.0, R]]))[0]
        r = cam.ball_radius_px(np.array([[x, 1500.0, R]]), R)[0]
        if k == 0:
            continue  # where it stood before is not known yet
        near = np.hypot(*(d.xy_px - c).T) < 3 * r
        assert near.sum() == 1, f"frame {k}: {d.xy_px[near]} on its blur"
        assert np.hypot(*(d.xy_px[near][0] - c)) < 0.3 * r, f"frame {k}"


@pytest.mark.parametrize("going, streak", [((-14.0, 0.0), True), (None, False),
                                            ((0.0, 0.0), False), ((0.0, -14.0), False)])
def test_a_short_blur_band_whose_head_was_last_seen_behind_its_middle(going, streak):
    """double_kiss with the shutter open all frame, frames 64-66: the white coming back off the
    red at 1.7-1.9 radii a frame blurs into a band 3.7-3.9 radii long. The last answer held it
    at its last blur's head, where this blur's tail begins: 0.9 radii behind the band's middle,
    nearer than the radius a ball struck from rest leaves behind. Going towards the middle at a
    radius or more a frame, it is the ball that blurred: one ball at the middle. Not known to
    be going (no answer before), standing still, or going across: no streak."""
    r = 7.8
    blob = np.zeros((2 * 18, 2 * 40), np.uint8)
    cv2.rectangle(blob, (int(20 + r), 10), (int(20 + 2.9 * r), int(10 + 2 * r)), 1, -1)
    cv2.circle(blob, (int(20 + r), int(10 + r)), int(r), 1, -1)
    cv2.circle(blob, (int(20 + 2.9 * r), int(10 + r)), int(r), 1, -1)
    ys, xs = np.nonzero(blob)
    middle = np.array([xs.mean(), ys.mean()])
    stood = np.array([middle + (0.9 * r, 0.0), middle + (40.0, 30.0)])
    moved = None if going is None else np.array([going, (0.0, 0.0)])
    found = _streak_centre(blob.astype(bool), r, 2, stood, moved)
    assert (found is not None) == streak
    if streak:
        assert np.hypot(*(np.array(found) - middle)) < 0.5


@pytest.mark.parametrize("degrees", [0, 30, 45, 60])
def test_a_blur_band_slanted_across_the_pixels_is_as_wide_as_a_ball_all_along(degrees):
    """touching with the shutter open all frame, frame 84: the white's blur band, 4.6 radii
    long at 45 degrees, measured 1.6 to 3.2 radii wide a pixel's length at a time (across a
    slanted band the pixels' rows fall one or two to a unit of its length) and was no band.
    A band at any slant is one ball's blur, at its middle."""
    r = 6.2
    blob = np.zeros((60, 60), np.uint8)
    way = np.array([np.cos(np.radians(degrees)), np.sin(np.radians(degrees))])
    ends = [np.round((30.0 + s * 1.3 * r * way) * 16).astype(int) for s in (-1, 1)]
    cv2.line(blob, tuple(ends[0]), tuple(ends[1]), 1, int(round(2 * r)), shift=4)
    for end in ends:
        cv2.circle(blob, tuple(end), int(round(16 * r)), 1, -1, shift=4)
    ys, xs = np.nonzero(blob)
    middle = np.array([xs.mean(), ys.mean()])
    found = _streak_centre(blob.astype(bool), r, 2, np.array([middle - 2.5 * r * way]))
    assert found is not None and np.hypot(*(np.array(found) - middle)) < 0.5


def _stadium(shape: tuple[int, int], a, b, half: float) -> np.ndarray:
    """(h, w) bool: the pixels within ``half`` of the segment from ``a`` to ``b`` (x, y)."""
    ys, xs = np.mgrid[:shape[0], :shape[1]].astype(float)
    a, d = np.asarray(a, float), np.subtract(b, a, dtype=float)
    t = np.clip(((xs - a[0]) * d[0] + (ys - a[1]) * d[1]) / max(d @ d, 1e-9), 0, 1)
    return np.hypot(xs - a[0] - t * d[0], ys - a[1] - t * d[1]) <= half


@pytest.mark.parametrize("blur_half, resting, streak", [(1.0, False, True), (1.375, False, True),
                                                        (1.4, True, False)])
def test_a_blur_band_wider_at_its_soft_edges_is_a_ball_but_not_one_ending_in_a_ball_at_rest(
        blur_half, resting, streak):
    """touching with the shutter open all frame, frames 93-98: the red rolling to the corner
    pocket at two radii a frame blurs into a band 4 radii long whose soft edges make it 2.2 to
    2.8 radii wide (over the 2.6 a band was let be): it was found at the band's ends, 20-24 mm
    off. A band as evenly wide is one ball at its middle. But black_ending frame 62: the white's
    blur, 2.7-2.9 radii wide, ran into the black at rest, and the two made one band that
    narrows to the black's 1.8-2 radii: no streak, the black stands."""
    r = 6.0
    shape = (60, 120)
    if resting:
        blob = (_stadium(shape, (30, 30), (30 + 1.6 * r, 30), blur_half * r)
                | _stadium(shape, (30 + 3.3 * r, 30), (30 + 3.3 * r, 30), r))
    else:
        blob = _stadium(shape, (30, 30), (30 + 2.6 * r, 30), blur_half * r)
    ys, xs = np.nonzero(blob)
    middle = np.array([xs.mean(), ys.mean()])
    stood = (np.array([[30 + 3.3 * r, 30.0], [middle[0] - 6 * r, 30.0 - 3 * r]]) if resting
             else np.array([middle - (2.5 * r, 0.0)]))
    found = _streak_centre(blob, r, 2, stood)
    assert (found is not None) == streak
    if streak:
        assert np.hypot(*(np.array(found) - middle)) < 0.5


@pytest.mark.parametrize("halves, streak", [((6.47, 6.47, 5.0), True), ((5.0, 5.0, 5.0), False),
                                            ((6.47, 5.0, 6.47), False),
                                            ((5.0, 6.47, 5.0), False)])
def test_a_long_blur_band_narrower_at_its_faint_end_is_one_ball(halves, streak):
    """break_off with the shutter open all frame and a camera's noise and bitrate, frame 114:
    the white rolling ten radii a frame is a faint band 11.5 radii long, 1.8-2 radii wide, whose
    far end the noise and the encoder thin to 1.5 radii; under the 1.6 a band had to keep all
    along, it was no band, the white was found 58 px off its place and seven reds swapped
    numbers in the pack it reached. A band as wide as a ball but in the third at one end is one
    ball at its middle; one as thin all along (a cue), thin in its middle (two things meeting:
    Task3 clip 6, where such a band took the black's place) or at both ends is not."""
    r = 6.6
    shape = (40, 110)
    blob = np.zeros(shape, bool)
    for k, half in enumerate(halves):  # three parts of 3.33 radii each
        blob |= _stadium(shape, (15 + k * 10 * r / 3, 20.5), (15 + (k + 1) * 10 * r / 3, 20.5),
                         half)
    ys, xs = np.nonzero(blob)
    middle = np.array([xs.mean(), ys.mean()])
    found = _streak_centre(blob, r, 2)
    assert (found is not None) == streak
    if streak:
        assert np.hypot(*(np.array(found) - middle)) < 0.5


def test_ball_size_is_measured_only_on_blobs_that_agree():
    """Lone round blobs whose clearly-not-cloth cores agree set the balls' apparent size (a
    calibration whose scale is off); three that disagree (a hand, the cue's tip beside a ball)
    measure nothing."""
    size = BallSize()

    def measure(ratios):
        size.reset()
        r = np.full(len(ratios), 5.0)
        core = np.pi * (np.asarray(ratios) * r) ** 2
        side = np.rint(2 * r * np.asarray(ratios)).astype(int)
        stats = np.c_[np.zeros((len(r), 2), int), side, side, np.rint(core / 0.9).astype(int)]
        size.measure(stats, r, core, DetectorConfig().adapt_rate)
        return size.scale

    assert measure([1.28, 1.31, 1.3, 1.33]) == pytest.approx(1.305, abs=0.01)
    assert measure([0.6, 1.11, 0.89]) == 1.0
    assert measure([0.95, 1.04, 1.0]) == 1.0  # within what the cores can tell


# The not-cloth membership (0..9) of a red a little off the near cushion of a broadcast view
# (the camera low behind the top cushion), joined to the rail by the shadow between them;
# work px, ball radius 9.33, the rail going on to the right well past this crop.
_RED_BY_THE_RAIL = [
    "0000000000000000000000000000000000000000000000003000000000000000000000000000000000000000000000000000",
    "0000000000000000000000000000000000000000000099998860000000000000000000000000000000000000000000000000",
    "0000000000000000000000000000000000000000004499998866000000000000000000000000000000000000000000000000",
    "0000000000000000000000000000000000000008999999999999770000000000000000000000000000000000000000000000",
    "0000000000000000000000000000000000000276999999999999773000000000000000000000000000000000000000000000",
    "0000000000000000000000000000000000009999999999999999995500000000000000000000000000000000000000000000",
    "0000000000000000000000000000000000009999999999999999995500000000000000000000000000000000000000000000",
    "0000000000000000000000000000000000009999999999999999999900000000000000000000000000000000000000000000",
    "0000000000000000000000000000000000009999999999999999999900000000000000000000000000000000000000000000",
    "0000000000000000000000000000000000009999999999999999999900000000000000000000000000000000000000000000",
    "0000000000000000000000000000000000009999999999999999999900000000000000000000000000000000000000000000",
    "0000000000000000000000000000000000009999999999999999999900000000000000000000000000000000000000000000",
    "0000000000000000000000000000000000009999999999999999999900000000000000000000000000000000000000000000",
    "0000000000000000000000000000000000009999999999999999999900000000000000000000000000000000000000000000",
    "0000000000000000000000000000000000009999999999999999999900000000000000000000000000000000000000000000",
    "0000000000000000000000000000000000009999999999999999999900000000000000000000000000000000000000000000",
    "0000000000000000000000000000000000009999999999999999999900000000000000000000000000000000000000000000",
    "0000000000000000000000000000000000009886999999999999997700000000000000000000000000000000000000000000",
    "0000000000000000000000000000000000009987999999999999997000000000000000000000000000000000000000000000",
    "0000000000000000000000000000000000003478999999999999550000000000000000000000000000000000000000000000",
    "0000000000000000000000000000000000003588999999999988550000000000000000000000000000000000000000000000",
    "0000000000000000000000000000000000002345666666666655220000000000000000000000000000000000000000000000",
    "0000000000000000000000000000000000043345666655555445220000000000000000000000000000000000000000000000",
    "0000000000000000030000000000000000544345555555555545554444443300000044444444444444444444400000000000",
    "0000000000000008343400000000000044443345555555555545554455444433444444444444444444444444443000000000",
    "0000000000000088665543330000000433333344443333333333444444443322222223333333333333333333332200000000",
    "0000000000000056675444333300004433343344443333333333444444443322222223333333333333333333332200000000",
    "0000000000000015886766666666677777767766666655555555556666667788887777666555666666666666666666666677",
    "0000000000000015664544343333334422232222222222111122222222223455553344444444444444444444445555555555",
    "0000000000000037776666666666888888888999999999999999999999999999999999999999999999999999999999999999",
    "0000000000000037998877778888999999999999999999999999999999999999999999999999999999999999999999999999",
    "0000000000899999999999999999999999999999999999999999999999999999999999999999999999999999999999999999",
    "0000000000999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999",
    "0000000000999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999",
]


def test_ball_joined_to_the_rail_by_its_shadow_is_found():
    """The discs on the rail beside a ball are no balls (most of the ring around them is
    rail); paired with the ball across the shadow, they must not make it one more disc tiling
    a bar."""
    crop = np.array([[int(ch) for ch in row] for row in _RED_BY_THE_RAIL], np.float32) / 9
    blob = np.concatenate([crop, np.repeat(crop[:, -1:], 500, axis=1)], axis=1)
    discs = BlobDiscs(ClothLearner(), LastAnswers(), DetectorConfig().min_cover)
    found = discs.explain(blob, 0, 0, 9.33, True)
    assert len(found) == 1 and np.hypot(found[0][0] - 45.5, found[0][1] - 11.2) < 1.0, found


def test_the_bridge_hand_by_the_sleeve_is_not_a_ball():
    """The in_off sample clip while the player is down on the shot: the bridge hand lies on the
    cloth at the end of the sleeve, about a ball's size and as round where it pokes out. It is
    skin, not a ball; every ball in view is found."""
    from calibration.find import calibrate_video
    from tracker.io.video import read_frames
    from tracker.sim.truth import read_truth

    clip = Path(__file__).resolve().parents[2] / "sample_videos" / "in_off.mp4"
    _, truth = read_truth(clip)
    cal = calibrate_video(clip)
    det, colour = BallDetector(cal), ColourClassifier()
    false = missed = 0
    for k, image in enumerate(read_frames(clip)):
        d = colour.classify(det.detect(image), det.cloth)
        if k < 110:
            continue
        seen = np.flatnonzero((truth.visible[k] >= 0.5) & (truth.state[k] == "rest"))
        dist = np.hypot(*(d.xy_px[:, None] - truth.px[k][None]).transpose(2, 0, 1))
        near = dist < truth.r_px[k][None]
        false += int((~near.any(axis=1)).sum())
        missed += int((~near[:, seen].any(axis=0)).sum())
        if k >= 125:
            break
    assert false == 0, f"{false} detections that are no ball (the hand?)"
    assert missed == 0


def test_shadow_beside_a_ball_is_not_a_ball_and_a_black_one_is(overhead):
    """A low lamp's shadow beside a ball (the cloth darkened, with no highlight) is not a ball;
    a black ball in the same place (as dark, with the lamp's highlight) is."""
    cam, renderer, cal = overhead
    red = np.array([900.0, 1800.0, R])
    frame, _ = renderer.render(["red"], red[None])
    r_px = float(cam.ball_radius_px(red[None], R)[0])
    c = cam.project(red[None])[0]
    green = np.asarray(renderer.look.cloth_bgr, float)
    shadow = frame.copy()
    blob = np.zeros(frame.shape[:2], np.uint8)
    cv2.ellipse(blob, (int(c[0]), int(c[1] + 1.5 * r_px)), (int(1.1 * r_px), int(0.8 * r_px)), 0,
                0, 360, 255, -1)
    cloth = np.abs(frame.astype(float) - green).sum(-1) < 60
    shadow[(blob > 0) & cloth] = (0.15 * green + 20).astype(np.uint8)  # dark, greyed cloth
    det = BallDetector(cal)
    d = det.detect(shadow)
    assert len(d) == 1 and np.hypot(*(d.xy_px[0] - c)) < 0.3 * r_px

    black = red + [0.0, 2 * R, 0.0]
    frame, _ = renderer.render(["red", "black"], np.array([red, black]))
    d = BallDetector(cal).detect(frame)
    assert len(d) == 2


def test_a_patch_of_cloth_just_over_the_threshold_is_no_ball(overhead):
    """A ball-sized patch of cloth of a shade scored just over the not-cloth threshold and
    nowhere clearly over it (a cushion's shadow under a cloth model learnt from one frame),
    seen on the first frame, is no ball; a red beside it still is."""
    from tracker.vision.cloth_table import FG_LEVEL

    cam, renderer, cal = overhead
    red = np.array([[900.0, 1800.0, R]])
    frame, _ = renderer.render(["red"], red)
    det = BallDetector(cal)
    det.detect(frame)
    green = np.asarray(renderer.look.cloth_bgr, float)
    # the cloth a little redder (the model is of the cloth's chroma: darker is still cloth)
    shades = [np.clip(green + [0.0, 0.0, dr], 0, 255).astype(np.uint8) for dr in range(41)]
    score = [int(det.score(g[None, None])[0, 0]) for g in shades]
    fits = [g for g, v in zip(shades, score) if 1.15 * FG_LEVEL <= v < 1.3 * FG_LEVEL]
    assert fits, score
    c = cam.project(np.array([[900.0, 1300.0, R]]))[0]
    r_px = float(cam.ball_radius_px(red, R)[0])
    patched = frame.copy()
    cv2.circle(patched, (int(c[0]), int(c[1])), int(1.2 * r_px), fits[0].tolist(), -1)
    d = BallDetector(cal).detect(patched)
    assert len(d) == 1 and np.hypot(*(d.xy_px[0] - cam.project(red)[0])) < 0.3 * r_px


def test_a_blue_on_a_blue_cloth_under_dimmed_lamps_is_found_by_its_highlight():
    """The first frame of the sample clip on a blue cloth at 0.7 of its brightness: the blue
    ball's body is barely off the cloth's colour (it fills a third of its disc, where a ball
    must fill 0.42), but the lamps' highlight in its middle tells it: every ball of the frame
    is found, within a third of a radius."""
    clip = Path(__file__).resolve().parents[2] / "sample_videos" / "wrong_ball_first.mp4"
    meta, truth = read_truth(clip)
    cal = Calibration.from_camera(Camera.from_dict(meta["camera"]))
    frame = cv2.convertScaleAbs(next(iter(read_frames(clip))), alpha=0.7)
    d = BallDetector(cal).detect(frame)
    vis = truth.visible[0] >= 0.5
    assert "blue" in [b for b, v in zip(truth.ids, vis) if v]
    dist = np.hypot(*(d.xy_px[:, None] - truth.px[0, vis][None]).transpose(2, 0, 1))
    assert len(d) == vis.sum()
    assert (dist.min(0) < truth.r_px[0, vis] / 3).all(), dist.min(0)


@pytest.mark.parametrize("name", ["in_off", "break_building"])
def test_a_piece_of_the_cushions_shading_under_a_bright_exposure_is_no_ball(name):
    """The first frame of a sample clip at 1.3 times its brightness: the shading along a
    cushion's nose, widened where a block of the codec's meets it, leaves a ball-sized piece
    once the blob is opened to ball width; it is no ball. The balls on the baulk line (a line
    too) are still found, and every ball of the frame within a third of a radius."""
    clip = Path(__file__).resolve().parents[2] / "sample_videos" / f"{name}.mp4"
    meta, truth = read_truth(clip)
    cal = Calibration.from_camera(Camera.from_dict(meta["camera"]))
    frame = cv2.convertScaleAbs(next(iter(read_frames(clip))), alpha=1.3)
    d = BallDetector(cal).detect(frame)
    vis = truth.visible[0] >= 0.5
    dist = np.hypot(*(d.xy_px[:, None] - truth.px[0, vis][None]).transpose(2, 0, 1))
    assert dist.min(1).max() < truth.r_px[0, vis].min() / 3, d.xy_px[dist.min(1).argmax()]
    assert len(d) == vis.sum()


def test_cloth_model_learnt_from_the_frame(overhead):
    cam, renderer, cal = overhead
    det = BallDetector(cal)
    frame, _ = renderer.render(["red"], np.array([[300.0, 300.0, R]]))
    det.detect(frame)
    green = np.asarray(renderer.look.cloth_bgr, float)
    assert np.allclose(det.cloth.chroma, green / green.sum(), atol=0.03)


def test_score_table_gives_the_lookup_tables_score_of_every_colour():
    """``scores`` through a ``score_table`` is ``lut[lut_index(bgr)]`` for every BGR, in
    images and in stacks of windows."""
    from tracker.vision.cloth_table import lut_index, score_table, scores
    from tracker.vision.detect import ClothModel

    lut = ClothModel(np.array([0.3, 0.45, 0.25]), 0.01, 200.0).lut()
    table = score_table(lut)
    v = np.arange(256, dtype=np.uint8)
    b, g, r = np.meshgrid(v, v, v, indexing="ij")
    every = np.stack([b, g, r], -1).reshape(4096, 4096, 3)
    np.testing.assert_array_equal(scores(table, every), lut[lut_index(every)])
    windows = every.reshape(-1, 3)[:12 * 37 * 37].reshape(12, 37, 37, 3)
    np.testing.assert_array_equal(scores(table, windows), lut[lut_index(windows)])


def test_frame_of_wrong_size_is_refused(overhead):
    cam, renderer, cal = overhead
    with pytest.raises(ValueError, match="calibration is for 1920x1080"):
        BallDetector(cal).detect(np.zeros((720, 1280, 3), np.uint8))


# -- real stills ----------------------------------------------------------------------------------
def _label(path: Path) -> dict[str, int]:
    counts = {c: 0 for c in BALL_CLASSES}
    for line in path.read_text().splitlines()[1:]:
        if line.strip():
            n, c = line.split()
            counts[c] = int(n)
    return counts


def _count_errors(stem: str) -> dict[str, int]:
    """Found minus true of each colour on still ``stem`` of Task1 (only those off)."""
    from calibration.find import calibrate_image

    image = cv2.imread(str(TASK1 / f"{stem}.jpg"))
    det = BallDetector(calibrate_image(image))
    d = ColourClassifier().classify(det.detect(image), det.cloth)
    got = {c: int((d.cls == k).sum()) for k, c in enumerate(BALL_CLASSES)}
    true = _label(TASK1 / "ground-truth" / f"{stem}_gt.txt")
    return {c: got[c] - true[c] for c in true if got[c] != true[c]}


@pytest.mark.realdata
@pytest.mark.skipif(not TASK1.is_dir(), reason=f"real stills not found at {TASK1}")
def test_broadcast_stills_counts():
    stems = ["5", "6", "7", "16", "17", "19", "38", "41"]
    exact = [not _count_errors(stem) for stem in stems]
    assert sum(exact) >= len(stems) - 1, dict(zip(stems, exact))


@pytest.mark.realdata
@pytest.mark.skipif(not TASK1.is_dir(), reason=f"real stills not found at {TASK1}")
def test_broadcast_packs_are_counted_by_their_highlights():
    """Stills with the reds in a pack, or a ball split into its lit top and its shaded lower
    half with the shadow (36: a red, 46: the pink), seen from the broadcast camera low behind
    the table: the balls of a pack hide one another's lower halves, but not the lamps'
    highlights on their tops, so every ball is counted, and a lower half is no ball."""
    stems = ["22", "26", "30", "31", "32", "36", "46", "49"]
    wrong = {stem: e for stem in stems if (e := _count_errors(stem))}
    assert not wrong, wrong


@pytest.mark.realdata
@pytest.mark.skipif(not TASK1.is_dir(), reason=f"real stills not found at {TASK1}")
def test_broadcast_ball_by_the_cue_and_the_bridge_hand_is_counted():
    """Still 12: the brown lies by the cue, just above the bridge hand, joined in one blob with
    the cushion's shadow and the player's arm; the shadow under the cue is as dark as the brown
    and the cushion's shadow fills the ring round it opposite the cue. It is a ball."""
    assert not _count_errors("12")


def test_highlights_one_on_each_ball_none_on_the_cloth():
    """Drawn balls of radius 10 px with the lamps' reflection near their tops (two short bright
    bars), on a green cloth crossed by a painted line: one highlight on each ball, at its bars,
    none on the line or on a ball without one."""
    from tracker.vision.highlights import _highlights

    image = np.zeros((120, 240, 3), np.uint8)
    image[:] = (40, 150, 40)
    cv2.line(image, (0, 100), (239, 100), (200, 215, 210), 2)
    centres = np.array([[40.0, 50.0], [90.0, 50.0], [140.0, 60.0], [200.0, 60.0]])
    for k, (x, y) in enumerate(centres):
        cv2.circle(image, (int(x), int(y)), 10, (30, 30, 170), -1)
        if k < 3:  # the last ball's highlight is hidden
            for dx in (-2, 2):
                cv2.line(image, (int(x) + dx, int(y) - 7), (int(x) + dx, int(y) - 3),
                         (235, 235, 250), 2)
    spots = _highlights(image, np.r_[centres, [[120.0, 100.0]]], np.full(5, 10.0))
    assert len(spots) == 3, spots
    for q in spots:
        d = np.hypot(*(centres - q).T)
        assert d.min() < 8 and abs(q[1] - (centres[d.argmin(), 1] - 5)) < 2.5


def _highlights_one_by_one(frame, centres, radii):
    """``_highlights`` as it reads, each ball's window filtered and labelled on its own."""
    from tracker.vision.highlights import _GLINT_AREA, _GLINT_LIGHT, _GLINT_RISE

    h, w = frame.shape[:2]
    out = []
    for (x, y), r in zip(centres, radii):
        m = int(np.ceil(1.6 * r))
        x0, y0 = max(int(x) - m, 0), max(int(y) - m, 0)
        x1, y1 = min(int(x) + m + 1, w), min(int(y) + m + 1, h)
        if x1 - x0 < 3 or y1 - y0 < 3:
            continue
        light = cv2.cvtColor(frame[y0:y1, x0:x1], cv2.COLOR_BGR2LAB)[..., 0]
        k = max(3, int(round(0.9 * r)) | 1)
        top = cv2.morphologyEx(light, cv2.MORPH_TOPHAT,
                               cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
        spot = ((top > _GLINT_RISE) & (light > _GLINT_LIGHT)).astype(np.uint8)
        spot = cv2.dilate(spot, np.ones((1, max(3, int(0.5 * r))), np.uint8))
        _, _, stats, cent = cv2.connectedComponentsWithStats(spot)
        big = ((stats[1:, cv2.CC_STAT_AREA] >= _GLINT_AREA * r * r)
               & (stats[1:, cv2.CC_STAT_WIDTH] <= 1.2 * r) & (stats[1:, cv2.CC_STAT_HEIGHT] <= r))
        for q in cent[1:][big] + [x0, y0]:
            if all(np.hypot(*(q - o)) >= 0.3 * r for o in out):
                out.append(q)
    return np.array(out, np.float64).reshape(-1, 2)


def test_highlights_searched_together_are_as_each_window_alone():
    """Random pictures with bright dots and streaks, balls of many sizes (several sizes of
    filter at once), windows cut by the picture's edges and overlapping: the windows filtered
    side by side in one picture find the very spots, in the same order, as each alone."""
    from tracker.vision.highlights import _highlights

    rng = np.random.default_rng(0)
    spots = 0
    for _ in range(150):
        image = cv2.GaussianBlur(rng.integers(0, 120, (160, 260, 3)).astype(np.uint8), (5, 5), 2)
        for _ in range(int(rng.integers(5, 40))):
            x, y = (int(v) for v in rng.integers(0, (260, 160)))
            colour = tuple(int(v) for v in rng.integers(180, 256, 3))
            cv2.circle(image, (x, y), int(rng.integers(1, 4)), colour, -1)
            if rng.uniform() < 0.5:
                end = (x + int(rng.integers(-8, 8)), y + int(rng.integers(-5, 5)))
                cv2.line(image, (x, y), end, (250, 250, 250), 1)
        n = int(rng.integers(1, 9))
        centres = rng.uniform(-10, (270, 170), (n, 2))
        radii = rng.uniform(4, 16, n)
        want = _highlights_one_by_one(image, centres, radii)
        np.testing.assert_array_equal(_highlights(image, centres, radii), want)
        spots += len(want)
    assert spots > 100


def test_a_blobs_spread_is_the_covariance_of_its_pixels():
    """``_blob_cov`` (from the blob's image moments) is numpy's covariance of the (x, y) of its
    pixels over half a member, and None for fewer than ten of them."""
    from tracker.vision.discs import _blob_cov

    rng = np.random.default_rng(4)
    for _ in range(50):
        h, w = (int(v) for v in rng.integers(5, 150, 2))
        blob = rng.uniform(size=(h, w)).astype(np.float32) * np.float32(rng.uniform(0.6, 1.2))
        ys, xs = np.nonzero(blob > 0.5)
        got = _blob_cov(blob)
        if len(xs) < 10:
            assert got is None
            continue
        np.testing.assert_allclose(got, np.cov(np.stack([xs, ys]).astype(float)), rtol=1e-12,
                                   atol=1e-9)
    assert _blob_cov(np.eye(3, dtype=np.float32)) is None


def test_the_change_searchs_image_is_the_largest_channel_averaged_over_3_by_3():
    """``brightest_channel``: each pixel's largest of B, G, R, averaged over 3 x 3 pixels
    (reflected at the picture's edges), on random pictures of odd sizes, to the last bit."""
    rng = np.random.default_rng(6)
    for _ in range(20):
        h, w = (int(v) for v in rng.integers(3, 120, 2))
        image = rng.integers(0, 256, (h, w, 3), dtype=np.uint8)
        want = cv2.blur(np.ascontiguousarray(image.max(axis=2)), (3, 3))
        assert np.array_equal(brightest_channel(image), want)
        part = image[1:, 1:]  # a view into a bigger picture
        assert np.array_equal(brightest_channel(part),
                              cv2.blur(np.ascontiguousarray(part.max(axis=2)), (3, 3)))


# -- a table that is no snooker table --------------------------------------------------------------
def _apart(n: int, r: float) -> np.ndarray:
    """(n, 3) centres of balls of radius ``r`` on a grid 400 mm apart, clear of the cushions."""
    xs, ys = np.meshgrid([400.0, 900.0, 1400.0], [700.0, 1300.0, 1900.0, 2500.0])
    return np.c_[xs.ravel()[:n], ys.ravel()[:n], np.full(n, r)]


@pytest.mark.parametrize("scale", [1.0, 1.5])
def test_balls_far_too_big_for_the_table_are_told(overhead, scale):
    """Balls 1.5 times a snooker ball's size on a table calibrated as a snooker table (as a
    pool table's 57 mm balls on a table two thirds as long are) measure about 1.5 times the
    size expected, and the user is told; snooker balls measure about 1 and nothing is said."""
    from dataclasses import replace

    from tracker.vision.detect import not_snooker

    cam, _, cal = overhead
    table = replace(SNOOKER, ball_diameter_mm=SNOOKER.ball_diameter_mm * scale)
    classes = ["white", "yellow", "green", "brown", "blue", "pink", "black", "red", "red"]
    frame, _ = Renderer(cam, table).render(classes, _apart(len(classes), table.ball_radius_mm))
    det = BallDetector(cal)
    det.detect(frame)
    assert det.size_ratio is not None and abs(det.size_ratio - scale) < 0.15, det.size_ratio
    said = not_snooker(det)
    assert (said is not None) == (scale > 1.2), said
    if said:
        assert "pool table" in said and f"{det.size_ratio:.1f} times" in said


POOL = REALDATA / "pool-8ball"


@pytest.mark.realdata
@pytest.mark.skipif(not POOL.is_dir() or not TASK1.is_dir(),
                    reason=f"real pool frames or snooker stills not found at {REALDATA}")
def test_a_real_pool_table_is_told_and_no_real_snooker_table_is():
    """The pool clips' first frames, each calibrated as a snooker table: their balls measure
    1.4-1.7 times a snooker ball's size, and 8 of the 10 are told to be no snooker table (in
    game3_clip2, filmed low from the side, the balls' sizes do not agree; in game2_clip1 the
    snooker calibration's lens, free on a bent outline, leaves them too spread); none of the
    broadcast snooker stills whose balls measure most (1.15-1.17) is. The pool table finder
    tells all ten (tests/calibration/test_pool_realdata.py)."""
    from calibration.find import calibrate_image
    from tracker.vision.detect import not_snooker

    def told(image) -> bool:
        det = BallDetector(calibrate_image(image))
        det.detect(image)
        return not_snooker(det) is not None

    pool = sorted(POOL.glob("*/frames/frame_first.png"))
    assert len(pool) == 10
    assert sum(told(cv2.imread(str(p))) for p in pool) >= 8
    stills = [TASK1 / f"{k}.jpg" for k in (1, 2, 3, 8, 18, 19, 37)]
    assert not any(told(cv2.imread(str(p))) for p in stills)


def test_a_change_of_the_lights_colour_is_told_from_one_of_its_brightness():
    """The lamps' brightness changes every channel alike: no change of colour, however large;
    a channel the cloth shows little of moves in whole levels (11 to 12 is a ninth) without
    one; the blue cloth's B down by 0.15 with its G kept is one, by 0.05 not."""
    from tracker.vision.lastlook import tinted

    green = np.array([11.0, 141.0, 17.0])
    blue = np.array([124.0, 72.0, 15.0])
    assert not tinted(np.array([0.3, 0.3, 0.3]), green)
    assert not tinted(np.array([1.0, 0.95, 1.0]), green)  # B, R still in their levels
    assert not tinted(np.array([12 / 11, 1.0, 18 / 17]), green)
    assert not tinted(np.array([np.nan, 0.8, np.nan]), green)  # one channel tells nothing
    assert tinted(np.array([1.0, 0.7, 1.0]), green)
    assert tinted(np.array([0.85, 1.0, np.nan]), blue)
    assert not tinted(np.array([0.95, 1.0, np.nan]), blue)
    # the green cloth's B and R: moved together (the lamps' flicker moves them up to twice as
    # far as G) they are no change; moved apart (a warmer white balance) they are
    assert not tinted(np.array([0.85, 0.93, 0.87]), green)
    assert not tinted(np.array([1.2, 1.1, 1.18]), green)
    assert tinted(np.array([0.8, 1.0, 18 / 17]), green)
