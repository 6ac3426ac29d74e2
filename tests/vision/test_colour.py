"""Colour classification: the assignment under the game's limits, and the class models on the
body colours of rendered balls under a bright and a dim exposure."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from calibration.specs import BALL_CLASSES, SNOOKER
from tracker.sim.render import BALL_COLOURS_BGR, CLOTH_GREEN_BGR
from tracker.vision.colour import (
    PRIOR_MEAN,
    ColourClassifier,
    assign,
    blurred,
    cloth_lab,
    cloth_lightness,
    features,
    max_counts,
)
from tracker.vision.detect import ClothModel, Detections

K = len(BALL_CLASSES)


def test_assign_respects_the_limits():
    # three candidates all most like white: one white, the next best classes for the others
    cost = np.full((3, K), 10.0)
    cost[:, 0] = [0.0, 0.5, 1.0]
    cost[1, 2] = 2.0  # yellow
    cost[2, 6] = 3.0  # pink
    cls = assign(cost, max_counts(), reject_cost=50.0)
    assert cls.tolist() == [0, 2, 6]


def test_assign_rejects_what_fits_no_class():
    cost = np.full((2, K), 30.0)
    cost[0, 1] = 1.0
    assert assign(cost, max_counts(), reject_cost=12.0).tolist() == [1, -1]


def test_assign_allows_fifteen_reds_only():
    cost = np.full((17, K), 20.0)
    cost[:, 1] = 0.0
    cls = assign(cost, max_counts(), reject_cost=10.0)
    assert (cls == 1).sum() == 15 and (cls == -1).sum() == 2


def test_max_counts():
    assert max_counts().tolist() == [1, 15, 1, 1, 1, 1, 1, 1]


def _ball_lab(bgr, gain: float) -> np.ndarray:
    """Body Lab of a ball of albedo ``bgr`` lit with ``gain`` (diffuse light, no highlight)."""
    px = np.clip(np.asarray(bgr, float) * gain, 0, 255).astype(np.uint8).reshape(1, 1, 3)
    return cv2.cvtColor(px, cv2.COLOR_BGR2LAB)[0, 0].astype(float)


@pytest.mark.parametrize("exposure", [1.0, 0.55])
def test_every_class_from_rendered_colours(exposure):
    """A full set of balls (15 reds) under normal and dim light: every class right, the dim
    exposure found from the reds."""
    cloth_bgr = np.asarray(CLOTH_GREEN_BGR, float) * exposure
    cloth = ClothModel(cloth_bgr / cloth_bgr.sum(), 0.01, float(cloth_bgr.sum()))
    classes = ["white"] + ["red"] * 15 + ["yellow", "green", "brown", "blue", "pink", "black"]
    rng = np.random.default_rng(1)
    lab = np.array([_ball_lab(BALL_COLOURS_BGR[c], exposure * rng.uniform(0.85, 1.0))
                    for c in classes])
    n = len(classes)
    d = Detections(np.zeros((n, 2)), np.full(n, 10.0), np.full(n, -1), np.ones(n), lab=lab)
    out = ColourClassifier().classify(d, cloth)
    assert [BALL_CLASSES[c] for c in out.cls] == classes


def test_red_pink_brown_kept_apart():
    """Red, pink and brown alone (no reds to learn the exposure from)."""
    cloth_bgr = np.asarray(CLOTH_GREEN_BGR, float)
    cloth = ClothModel(cloth_bgr / cloth_bgr.sum(), 0.01, float(cloth_bgr.sum()))
    classes = ["red", "pink", "brown"]
    lab = np.array([_ball_lab(BALL_COLOURS_BGR[c], 0.9) for c in classes])
    d = Detections(np.zeros((3, 2)), np.full(3, 10.0), np.full(3, -1), np.ones(3), lab=lab)
    out = ColourClassifier().classify(d, cloth)
    assert [BALL_CLASSES[c] for c in out.cls] == classes


def test_features_are_relative_to_the_cloth():
    f = features(np.array([[100.0, 158.0, 168.0]]), cloth_lightness=200.0)
    assert np.allclose(f, [[0.5, 50.0, np.degrees(np.arctan2(40, 30))]])
    assert set(PRIOR_MEAN) == set(BALL_CLASSES)


def test_broadcast_whites_are_warm_but_not_yellow():
    """Cue balls and yellows measured on real broadcast clips (features: lightness over the
    cloth's, chroma, hue): the warm whites (chroma up to ~50) are whiter than yellow, and the
    yellows (chroma 80-90, hue nearer orange) yellower than white, each on its own."""
    c = ColourClassifier()
    white, yellow = BALL_CLASSES.index("white"), BALL_CLASSES.index("yellow")
    whites = np.array([[1.48, 50.9, 113.7], [1.24, 47.5, 122.9], [1.57, 39.8, 112.7],
                       [1.98, 44.9, 114.0], [1.21, 40.8, 120.0], [1.8, 1.5, 109.0]])
    yellows = np.array([[2.09, 85.3, 103.0], [1.68, 83.3, 94.4]])
    cw, cy = c.cost(whites), c.cost(yellows)
    assert (cw[:, white] < cw[:, yellow]).all(), cw[:, [white, yellow]]
    assert (cy[:, yellow] < cy[:, white]).all(), cy[:, [white, yellow]]
    # and neither is anything else
    assert (cw.argmin(1) == white).all() and (cy.argmin(1) == yellow).all()


def test_a_dark_ball_tinted_by_the_cloth_is_black():
    """A far black picks up the cloth's green (chroma ~30 at a third of the cloth's
    lightness): its darkness says black."""
    c = ColourClassifier().cost(np.array([[0.28, 34.1, 138.2], [0.16, 20.3, 142.8]]))
    assert (c.argmin(1) == BALL_CLASSES.index("black")).all()


# -- learning a clip's colours ---------------------------------------------------------------
# Body colours (features: lightness over the cloth's, chroma, hue) of the rendered clip `miss`:
# a darker cloth than the prior's footage, one red lighter than the brown and a brown whose hue
# is nearer red than the prior's.
MISS_COLOURS = {"white": (2.52, 0.9, 110.7), "red": (1.33, 90.7, 34.9),
                "yellow": (2.27, 84.1, 98.1), "green": (1.28, 53.3, 149.6),
                "brown": (0.87, 40.9, 53.8), "blue": (0.86, 54.5, 287.1),
                "pink": (1.74, 37.2, 3.1), "black": (0.17, 2.4, 120.7)}


def _cloth() -> tuple[ClothModel, float]:
    cloth_bgr = np.asarray(CLOTH_GREEN_BGR, float)
    cloth = ClothModel(cloth_bgr / cloth_bgr.sum(), 0.01, float(cloth_bgr.sum()))
    return cloth, cloth_lightness(cloth)


def _frame(feats, xy_mm, cloth_l: float) -> Detections:
    """Detections with body colours given as features (N, 3) at table positions (N, 2) mm."""
    f = np.asarray(feats, float)
    h = np.radians(f[:, 2])
    lab = np.c_[f[:, 0] * cloth_l, 128 + f[:, 1] * np.cos(h), 128 + f[:, 1] * np.sin(h)]
    n = len(f)
    return Detections(np.zeros((n, 2)), np.full(n, 10.0), np.full(n, -1), np.ones(n),
                      xy_mm=np.asarray(xy_mm, float), lab=lab)


def _names(d: Detections) -> list[str]:
    return [BALL_CLASSES[c] for c in d.cls]


def _off_spots(n: int, seed: int) -> np.ndarray:
    """(n, 2) table positions well away from each other and from every spot."""
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < n:
        p = rng.uniform([100, 100], [SNOOKER.width_mm - 100, SNOOKER.length_mm - 100])
        if all(np.hypot(*(p - q)) > 200 for q in [*out, *SNOOKER.spots_mm.values()]):
            out.append(p)
    return np.array(out)


def test_the_first_frame_teaches_the_clips_colours():
    """The colours on their spots on the first frame are learnt: later, with every ball away
    from the spots and from where it was, the brown is still not a red and the white not
    refused, though both are far from the prior table."""
    cloth, cloth_l = _cloth()
    classes = list(MISS_COLOURS)
    feats = [MISS_COLOURS[c] for c in classes]
    start = [SNOOKER.spots_mm.get(c, (300.0 + 100 * i, 1500.0)) for i, c in enumerate(classes)]
    clf = ColourClassifier()
    assert _names(clf.classify(_frame(feats, start, cloth_l), cloth)) == classes
    for seed in range(3):
        out = clf.classify(_frame(feats, _off_spots(len(classes), seed), cloth_l), cloth)
        assert _names(out) == classes


def test_a_brown_on_its_spot_is_learnt_though_the_prior_calls_it_red():
    """A brown redder still: on its spot on the first frame it is the brown, and stays the
    brown away from the spots; with no table positions the prior alone calls it a red."""
    cloth, cloth_l = _cloth()
    classes = list(MISS_COLOURS)
    feats = [MISS_COLOURS[c] if c != "brown" else (0.87, 45.0, 48.0) for c in classes]
    start = [SNOOKER.spots_mm.get(c, (300.0 + 100 * i, 1500.0)) for i, c in enumerate(classes)]
    clf = ColourClassifier()
    assert _names(clf.classify(_frame(feats, start, cloth_l), cloth)) == classes
    out = clf.classify(_frame(feats, _off_spots(len(classes), 0), cloth_l), cloth)
    assert _names(out) == classes
    unplaced = _frame(feats, start, cloth_l).replace(xy_mm=None)
    assert _names(ColourClassifier().classify(unplaced, cloth))[classes.index("brown")] == "red"


def test_a_blurred_white_is_not_the_green():
    """A white moving fast smears over the cloth and takes on its green; with the green off
    the table it is still the white (no table positions to remember it by)."""
    cloth, cloth_l = _cloth()
    classes = list(MISS_COLOURS)
    start = [SNOOKER.spots_mm.get(c, (300.0 + 100 * i, 1500.0)) for i, c in enumerate(classes)]
    clf = ColourClassifier()
    clf.classify(_frame([MISS_COLOURS[c] for c in classes], start, cloth_l), cloth)
    rest = [c for c in classes if c not in ("white", "green")]
    cloth_f = features(cloth_lab(cloth)[None], cloth_l)[0]
    smeared = blurred(np.array([MISS_COLOURS["white"]]), cloth_f, 0.5)[0]
    d = _frame([smeared] + [MISS_COLOURS[c] for c in rest], np.zeros((len(rest) + 1, 2)),
               cloth_l).replace(xy_mm=None)
    assert _names(clf.classify(d, cloth)) == ["white", *rest]


@pytest.mark.parametrize("share", [0.4, 0.5, 0.6])
def test_a_pink_struck_by_the_white_and_blurred_over_the_cloth_leaves_the_white_its_name(share):
    """break_building filmed with the shutter open all frame, frame 293: the white, nearly
    stopped where it struck the pink beside its spot, and the pink, sent off at 1.8 m/s and
    blurred over the cloth, paler and greener. The pink's blur looked more like a blurred
    white than any sharp colour; with one white allowed, the white was then called the pink
    (remembered where the pink stood) and the tracker swapped the two for four frames. A pink
    also blurs over the cloth: the white is the white and the blur the pink."""
    cloth, cloth_l = _cloth()
    classes = list(MISS_COLOURS)
    start = np.array([SNOOKER.spots_mm.get(c, (300.0 + 100 * i, 1500.0))
                      for i, c in enumerate(classes)], float)
    white, pink = classes.index("white"), classes.index("pink")
    clf = ColourClassifier()
    start[white] = start[pink] + (-80.0, 70.0)
    for k in range(5):  # the white rolls in towards the pink
        at = start.copy()
        at[white] = start[white] + k * np.array([10.0, -8.0])
        clf.classify(_frame([MISS_COLOURS[c] for c in classes], at, cloth_l), cloth)
    cloth_f = features(cloth_lab(cloth)[None], cloth_l)[0]
    feats = [MISS_COLOURS[c] for c in classes]
    feats[pink] = blurred(np.array([MISS_COLOURS["pink"]]), cloth_f, share)[0]
    at = start.copy()
    at[white] = start[pink] + (-26.0, 39.0)
    at[pink] = start[pink] + (70.0, -75.0)
    out = clf.classify(_frame(feats, at, cloth_l), cloth)
    assert _names(out) == classes


def test_a_colour_long_unseen_keeps_its_colour():
    """Frames with only the white and reds of uneven lightness (the frame's exposure measured
    on them differs from the carried red's) leave the absent colours where the first frame
    put them: the brown comes back as the brown."""
    cloth, cloth_l = _cloth()
    classes = list(MISS_COLOURS)
    start = [SNOOKER.spots_mm.get(c, (300.0 + 100 * i, 1500.0)) for i, c in enumerate(classes)]
    clf = ColourClassifier()
    clf.classify(_frame([MISS_COLOURS[c] for c in classes], start, cloth_l), cloth)
    brown = clf.means[classes.index("brown")].copy()
    reds = [(lum, 90.0, 34.9) for lum in (1.0, 1.02, 1.04, 1.33, 1.4)]
    for _ in range(100):
        feats = [MISS_COLOURS["white"], *reds]
        clf.classify(_frame(feats, np.zeros((len(feats), 2)), cloth_l).replace(xy_mm=None),
                     cloth)
    assert np.allclose(clf.means[classes.index("brown")], brown)
    feats = [MISS_COLOURS["white"], *reds, MISS_COLOURS["brown"]]
    d = _frame(feats, np.zeros((len(feats), 2)), cloth_l).replace(xy_mm=None)
    assert _names(clf.classify(d, cloth))[-1] == "brown"


def test_a_ball_where_the_brown_was_stays_brown():
    """A ball whose colour lies between the red's and the brown's, where the brown was on the
    last frame and carried on at its speed, is the brown; the same colour where a red was is a
    red."""
    cloth, cloth_l = _cloth()
    classes = list(MISS_COLOURS)
    start = np.array([SNOOKER.spots_mm.get(c, (300.0 + 100 * i, 1500.0))
                      for i, c in enumerate(classes)])
    clf = ColourClassifier()
    clf.classify(_frame([MISS_COLOURS[c] for c in classes], start, cloth_l), cloth)
    brown = classes.index("brown")
    step = np.zeros_like(start)
    step[brown] = (0.0, 40.0)  # the brown rolls 40 mm a frame up the table
    clf.classify(_frame([MISS_COLOURS[c] for c in classes], start + step, cloth_l), cloth)
    between = (1.1, 66.0, 44.0)
    feats = [MISS_COLOURS[c] if c != "brown" else between for c in classes]
    out = clf.classify(_frame(feats, start + 2 * step, cloth_l), cloth)
    assert _names(out)[brown] == "brown"


# Body colours (features) of clip 23 of the real broadcast Task3 set: its white, and the fingers
# of the bridge hand above the yellow on its spot, the yellow itself unseen against them.
BROADCAST_WHITE = (1.6, 19.4, 107.7)
FINGERS = (1.23, 41.1, 123.5)
BROADCAST_COLOURS = {"red": (0.58, 66.9, 41.7), "green": (0.82, 57.3, 148.4),
                     "brown": (0.76, 51.1, 83.8), "blue": (0.63, 38.2, 269.6),
                     "pink": (0.93, 48.0, 25.8), "black": (0.03, 3.7, 153.9)}


def test_fingers_called_the_hidden_yellow_do_not_teach_it_the_whites_colour():
    """The first frames hold the white and the fingers beside the unseen yellow: the fingers,
    whiter than yellow, are called yellow only because the white is taken, and teach the yellow
    nothing; the white struck away (far from where it was) and off the warm side of its colour
    is still the white, though the yellow is unseen."""
    cloth, cloth_l = _cloth()
    feats = [BROADCAST_WHITE, FINGERS, *BROADCAST_COLOURS.values()]
    start = [(900.0, 400.0), np.add(SNOOKER.spots_mm["yellow"], (40.0, -60.0)),
             *(SNOOKER.spots_mm.get(c, (1300.0, 2800.0)) for c in BROADCAST_COLOURS)]
    clf = ColourClassifier()
    for _ in range(20):
        clf.classify(_frame(feats, start, cloth_l), cloth)
    struck = (1.44, 38.6, 113.2)
    away = [(300.0, 3000.0), *start[2:]]
    out = clf.classify(_frame([struck, *BROADCAST_COLOURS.values()], away, cloth_l), cloth)
    assert _names(out) == ["white", *BROADCAST_COLOURS]


def test_what_the_first_frame_calls_not_a_ball_has_no_say_in_it():
    """Body colours and places measured on the first frame of a broadcast clip: the bridge
    hand's fingers behind the yellow, the brown off its spot, one red and the pink. Taken for
    the brown at first, the fingers push the brown to the pink and the pink to the reds; they
    are not a ball, and without them every ball is its own colour."""
    cloth, cloth_l = _cloth()
    balls = [("yellow", (1.57, 94.1, 103.0), (1181, 731)),
             (None, (1.23, 41.1, 123.5), (1121, 565)),
             ("brown", (0.76, 51.1, 83.8), (643, 699)), ("green", (0.82, 57.3, 148.4), (595, 733)),
             ("white", (1.60, 19.4, 107.7), (1053, 768)),
             ("blue", (0.63, 38.2, 269.6), (886, 1786)),
             ("red", (0.58, 66.9, 41.7), (53, 2222)), ("pink", (0.93, 48.0, 25.8), (817, 2538)),
             ("black", (0.03, 3.7, 153.9), (889, 3252))]
    frame = _frame([f for _, f, _ in balls], [p for *_, p in balls], cloth_l)
    out = ColourClassifier().classify(frame, cloth)
    assert _names(out) == [c for c, *_ in balls if c is not None]


def test_a_struck_red_blurred_towards_brown_stays_a_red():
    """Body colours, places and the class means of the 4K sample clip as the red is struck,
    the brown off the table (its mean drifted towards red): the struck red blurs over the
    cloth into a duller, yellower red, nearer the brown's colour than the reds'. Followed from
    the red it was a frame before, at that red's speed, it stays a red."""
    cloth, cloth_l = _cloth()
    means = np.array([(1.82, 4.5, 110.1), (0.94, 83.2, 35.4), (1.81, 88.8, 98.8),
                      (1.02, 54.6, 149.9), (0.70, 42.9, 54.9), (0.70, 58.2, 288.2),
                      (1.40, 40.1, 3.5), (0.14, 2.1, 109.1)])
    still = [("red", (0.96, 85.8, 35.1), (500, 3000)), ("blue", (0.71, 58.5, 288.3), (889, 1785)),
             ("pink", (1.41, 40.1, 3.3), (889, 2677)), ("black", (0.14, 2.1, 108.7), (889, 3245)),
             ("yellow", (1.81, 88.7, 98.6), (1181, 737)),
             ("white", (1.93, 3.9, 112.5), (1378, 2656))]
    names = [c for c, *_ in still] + ["red"]
    clf = ColourClassifier(means=means)
    red = np.array([1385.0, 2665.0])
    for _ in range(3):
        frame = _frame([f for _, f, _ in still] + [(0.96, 85.8, 35.1)],
                       [p for *_, p in still] + [red], cloth_l)
        assert _names(clf.classify(frame, cloth)) == names
    # as the clip's detections give it: the red's first frame off its place
    # still reddest, then the blur
    struck = [((1399, 2699), (0.85, 72.0, 39.0)), ((1422, 2754), (0.78, 57.1, 45.2)),
              ((1445, 2807), (0.75, 51.3, 48.5)), ((1468, 2861), (0.77, 58.2, 42.7)),
              ((1489, 2911), (0.76, 56.2, 44.9))]
    for k, (at, colour) in enumerate(struck):
        frame = _frame([f for _, f, _ in still] + [colour], [p for *_, p in still] + [at],
                       cloth_l)
        assert _names(clf.classify(frame, cloth))[-1] == "red", f"frame {k + 1}"


def test_the_white_and_yellow_far_lighter_than_a_dark_cloth_are_themselves():
    """The first frame of the sample clip on a blue cloth with its lamps at half brightness
    (body colours and detection confidences as the detector measured them): the dark cloth
    puts the white at 3.5 times its lightness and the yellow at 3.4, far past the prior's
    (1.65 and 1.75, spread 0.4), which once made the white no ball at all. The white and the
    yellow are the lightest balls: every ball is its class."""
    cloth = ClothModel(np.array([0.587, 0.343, 0.067]), 0.0072, 107.0)
    balls = [("red", (57, 167, 153)), ("green", (62, 102, 142)), ("brown", (40, 140, 147)),
             ("white", (122, 128, 130)), ("red", (45, 162, 148)), ("pink", (90, 149, 129)),
             ("black", (7, 129, 128)), ("yellow", (119, 121, 177)), ("red", (56, 166, 153))]
    lab = np.array([b[1] for b in balls], float)
    f = features(lab, cloth_lightness(cloth))
    assert f[3, 0] > 3.3 and f[7, 0] > 3.3
    n = len(balls)
    sure = np.array([0.998, 0.938, 0.976, 0.995, 0.976, 0.996, 0.57, 0.996, 1.0])
    d = Detections(np.zeros((n, 2)), np.full(n, 10.0), np.full(n, -1), sure, lab=lab)
    out = ColourClassifier().classify(d, cloth)
    assert [BALL_CLASSES[c] for c in out.cls] == [b[0] for b in balls]


# Body colours (features) of the broadcast sample clip's balls at its first frame under an
# exposure of 1.5, and the brown's half hidden behind the player's sleeve (frames 15-78).
BRIGHT = {"white": (1.17, 2.2, 113.7), "yellow": (1.24, 88.0, 101.9),
          "green": (0.82, 63.0, 149.1), "brown": (0.54, 46.3, 58.1),
          "blue": (0.44, 51.6, 286.3), "pink": (0.67, 33.7, 11.4), "black": (0.05, 2.2, 111.0)}
BRIGHT_REDS = [(0.65, 84.3, 34.5), (0.58, 77.1, 35.3), (0.43, 61.8, 34.8), (0.36, 53.9, 36.2),
               (0.29, 45.4, 35.6)]
BROWN_BEHIND_SLEEVE = (0.88, 14.0, 68.7)


@pytest.mark.parametrize("hidden_frames", [20, 64, 300])
def test_a_brown_half_hidden_for_seconds_does_not_teach_the_brown_its_mixed_colour(
        hidden_frames):
    """The brown, half behind a sleeve for ``hidden_frames`` frames, shows the sleeve's grey
    mixed with its own colour: it is still called the brown (the one ball of its kind, on its
    spot), but the brown's colour stays within a spread of what the first frame taught (before:
    carried two spreads of chroma towards the grey, so that in the clip the sleeve's end was
    taken for the brown when the brown showed whole again, and the brown for a red)."""
    cloth, cloth_l = _cloth()
    colours = list(BRIGHT)
    places = [SNOOKER.spots_mm.get(c, (600.0, 900.0)) for c in colours]
    reds = _off_spots(len(BRIGHT_REDS), 1)
    feats = [*BRIGHT.values(), *BRIGHT_REDS]
    clf = ColourClassifier()
    out = clf.classify(_frame(feats, [*places, *reds], cloth_l), cloth)
    assert _names(out) == colours + ["red"] * len(BRIGHT_REDS)
    brown = BALL_CLASSES.index("brown")
    taught = clf.means[brown].copy()
    hidden = [BROWN_BEHIND_SLEEVE if c == "brown" else f for c, f in zip(colours, feats)]
    for _ in range(hidden_frames):
        out = clf.classify(_frame([*hidden, *BRIGHT_REDS], [*places, *reds], cloth_l), cloth)
        assert _names(out)[colours.index("brown")] == "brown"
    assert (np.abs(clf.means[brown] - taught) <= clf.stds[brown]).all(), clf.means[brown]
