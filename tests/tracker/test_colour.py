"""Colour classification: the assignment under the game's limits, and the class models on the
body colours of rendered balls under a bright and a dim exposure."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from calibration.specs import BALL_CLASSES
from tracker.colour import PRIOR_MEAN, ColourClassifier, assign, features, max_counts
from tracker.detect import ClothModel, Detections
from tracker.sim.render import BALL_COLOURS_BGR, CLOTH_GREEN_BGR

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
