"""The camera's height from the balls, where the table's picture leaves it free.

Looking about straight down, a camera sees the table the same through a whole family of
cameras: focal length and height in proportion, the radial distortion terms with the height's
powers (:func:`along_family`). The balls are not the same through it: spheres a radius above the
cloth, away from the middle of the picture each is an ellipse drawn out towards the edge, the
more the nearer the camera (a low wide-angle camera at 2.3 m draws a ball by the cushion out
twice as much as one at 4.6 m with the lens that shows the table alike). The shapes of the still
balls of the picture tell which member of the family took it: the part of each silhouette's
second moments that is not round, which the blur of lens and codec (round) leaves alone. So do
the colours standing on their spots: each centre is right above its spot, and a member of the
family too high or too low puts it off the spot, away from or towards the middle of the picture.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from calibration.camera import Camera, polygon_moments
from calibration.model import (
    FOCAL_PRIOR,
    CameraModel,
    Observations,
    pose_from_homography,
    residuals,
    undistort,
)
from calibration.specs import SnookerTableSpec

# Focal lengths (and heights) tried, over the fit's own.
SCALES = np.geomspace(0.25, 4.0, 41)
# Fewest balls whose shapes are trusted.
MIN_BALLS = 4
# Spread (in log focal length) of the balls' verdict beyond what their scatter about the best
# member shows: the shading of a ball's rim and the pixels of its edge draw it out a little
# their own way. On the sample clips' cameras at 3 m the verdicts scatter by ~8 % about a bias
# of ~-5 %; with this spread the camera's error at the balls' height falls from 0.80 to 0.60 mm
# (median over nine clips), with 0.08 to 0.71 mm.
SYSTEMATIC = 0.15
# Spread (log) of the lens prior the fit leans to where the table leaves the focal length free
# (``calibration.model.FOCAL_PRIOR``).
PRIOR_SPREAD = float(np.log(FOCAL_PRIOR))
# The table's own verdict on the scale: its misfit along the family, from members this far
# (log) either side of the fit, each residual counted to at most this many px.
TABLE_STEP = 0.01
TABLE_CLIP_PX = 3.0
# Scatter (px) of an edge on the cloth taken at least (the scatter at the fit is its estimate).
TABLE_NOISE_PX = 0.1
# Share of the balls (the worst fitting) left out of the misfit: one on a line, one beside a
# shadow.
TRIM = 0.2
# How much worse (RMS px) the table's own fit may get along the family (a tilted camera's
# family is only near one).
TABLE_WORSE = 1.1
# A pixel is the cloth's when its hue is within this many degrees of the cloth's (shadows keep
# the hue, darker), for cloths with a hue; grey cloths go by lightness.
CLOTH_HUE_DEG = 30.0
# Balls are looked for this far (mm) inside the cushion noses (clear of the rails' edges).
INSET_MM = 60.0
# A ball whose centre is this close (mm) to a colour's spot stands on it; the referee spots a
# ball by hand, its centre over the spot to about ``SPOT_PLACING_MM``. Balls on the spots away
# from the middle of the picture tell the height: through a camera taken 10 % too high, a ball
# on the black spot 3 m below it is put a millimetre off the spot. One of fifteen reds lies
# that close to one of the spots by chance about once in a thousand layouts.
ON_SPOT_MM = 6.0
SPOT_PLACING_MM = 2.0
# The coordinates' worth of belief ``SPOT_PLACING_MM`` gets beside the spotted balls' own
# scatter about the best member: one ball's (balls placed well show it: on the sample clips
# the camera's height comes within 4 % where the placing tolerance alone left it 5 % off).
SPOT_PRIOR_DOF = 2


@dataclass(frozen=True)
class BallShapes:
    """Still balls seen alone on the cloth: silhouette centroids ``centre_px`` (N, 2) and
    central second moments ``cov_px`` (N, 2, 2), raw image pixels."""

    centre_px: np.ndarray
    cov_px: np.ndarray

    def __len__(self) -> int:
        return len(self.centre_px)


def _cloth_like(lab: np.ndarray, cloth_lab: np.ndarray) -> np.ndarray:
    """(h, w) bool: pixels of OpenCV Lab ``lab`` that are the cloth's colour, lit or shaded."""
    a = lab[..., 1].astype(np.float32) - 128
    b = lab[..., 2].astype(np.float32) - 128
    a0, b0 = float(cloth_lab[1]) - 128, float(cloth_lab[2]) - 128
    chroma0 = float(np.hypot(a0, b0))
    chroma = np.hypot(a, b)
    if chroma0 < 12.0:  # a grey cloth: its lightness, and little colour
        light = lab[..., 0].astype(np.float32) / max(float(cloth_lab[0]), 1.0)
        return (chroma < 12.0) & (light > 0.3) & (light < 1.3)
    cos = (a * a0 + b * b0) / np.maximum(chroma * chroma0, 1e-6)
    return (cos > np.cos(np.radians(CLOTH_HUE_DEG))) & (chroma > 0.2 * chroma0)


def ball_shapes(image_bgr: np.ndarray, cloth_lab: np.ndarray, camera: Camera,
                table: SnookerTableSpec) -> BallShapes:
    """The still balls alone on the cloth of ``image_bgr`` (a median frame holds no moving
    ones): blobs not of the cloth's colour inside the cushions, of a ball's area (from
    ``camera``) and alone within a radius, with their silhouettes' moments."""
    h, w = image_bgr.shape[:2]
    m = INSET_MM
    edge = np.linspace(0.0, 1.0, 40)[:, None]
    corners = np.array([[m, m], [table.width_mm - m, m], [table.width_mm - m, table.length_mm - m],
                        [m, table.length_mm - m]])
    ring = np.vstack([a + edge * (b - a) for a, b in zip(corners, np.roll(corners, -1, 0))])
    px = camera.project(np.c_[ring, np.zeros(len(ring))])
    x0, y0 = np.clip(np.floor(px.min(0)).astype(int), 0, [w, h])
    x1, y1 = np.clip(np.ceil(px.max(0)).astype(int) + 1, 0, [w, h])
    empty = BallShapes(np.zeros((0, 2)), np.zeros((0, 2, 2)))
    if x1 - x0 < 10 or y1 - y0 < 10:
        return empty
    inside = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillPoly(inside, [np.round(px - [x0, y0]).astype(np.int32)], 1)
    lab = cv2.cvtColor(image_bgr[y0:y1, x0:x1], cv2.COLOR_BGR2LAB)
    ball = (~_cloth_like(lab, cloth_lab)).astype(np.uint8)
    ball = cv2.morphologyEx(ball, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    n, labels, stats, cent = cv2.connectedComponentsWithStats(ball, connectivity=8)
    if n < 2:
        return empty
    centres = cent[1:] + [x0, y0]
    r_px = camera.ball_radius_px(
        np.c_[camera.plane_points(centres, table.ball_radius_mm),
              np.full(len(centres), table.ball_radius_mm)], table.ball_radius_mm)
    out_c, out_cov = [], []
    for k in range(1, n):
        bx, by, bw, bh, area = stats[k]
        r = float(r_px[k - 1])
        if not (0.6 * np.pi * r * r <= area <= 1.6 * np.pi * r * r):
            continue
        pad = int(np.ceil(r)) + 1
        wx0, wy0 = bx - pad, by - pad
        wx1, wy1 = bx + bw + pad, by + bh + pad
        if wx0 < 0 or wy0 < 0 or wx1 > labels.shape[1] or wy1 > labels.shape[0]:
            continue
        win = labels[wy0:wy1, wx0:wx1]
        if not inside[wy0:wy1, wx0:wx1].all() or np.any((win != k) & (win != 0)):
            continue  # at the edge of the area looked at, or not alone
        ys, xs = np.nonzero(labels[by:by + bh, bx:bx + bw] == k)
        pts = np.c_[xs + bx + x0, ys + by + y0].astype(float)
        out_c.append(pts.mean(0))
        out_cov.append(np.cov(pts.T, bias=True))
    if not out_c:
        return empty
    return BallShapes(np.array(out_c), np.array(out_cov))


def _deviator(cov: np.ndarray) -> np.ndarray:
    """(N, 2, 2) -> (N, 2): the part of second moments that is not round."""
    return np.c_[(cov[:, 0, 0] - cov[:, 1, 1]) / 2, cov[:, 0, 1]]


def shape_misfit(camera: Camera, shapes: BallShapes, table: SnookerTableSpec) -> float:
    """How far the balls' shapes are from spheres seen through ``camera``: the trimmed sum of
    squared differences (px^4) of the silhouettes' non-round moments."""
    r = table.ball_radius_mm
    centres = np.c_[camera.plane_points(shapes.centre_px, r), np.full(len(shapes), r)]
    _, _, cov = polygon_moments(camera.sphere_outline(centres, r, 64))
    err = np.sum((_deviator(shapes.cov_px) - _deviator(cov)) ** 2, axis=1)
    keep = max(1, int(np.ceil((1 - TRIM) * len(err))))
    return float(np.sort(err)[:keep].sum())


def along_family(model: CameraModel, s: float) -> CameraModel:
    """The camera of the family that sees the table plane as ``model`` does, with ``s`` times
    its focal length (and about ``s`` times its height): the radial terms scaled by s^2 and
    s^4, the pose from the same plane picture. Looking straight down the picture is the same
    exactly; a camera tilted by some degrees has no member that sees the plane exactly alike
    (the plane's image then shows the focal length a little), and the pose is the one whose
    picture of the plane, over the whole frame, comes nearest (the homography's columns scaled
    and turned into a rotation, as for straight down, stretch a 12 degree tilted camera's
    picture along the table by 1e-4 per 1 % of ``s``)."""
    cam = model.camera()
    R = np.asarray(cam.R)
    P = np.c_[R[:, 0], R[:, 1], cam.t]
    Hn = np.diag([1.0 / s, 1.0 / s, 1.0]) @ P
    rvec, tvec = pose_from_homography(Hn, np.eye(3))
    out = model.with_vector(model.vector())
    out.f = model.f * s
    out.k1 = model.k1 * s**2
    out.k2 = model.k2 * s**4
    # the plane's picture over the frame: table points and their pinhole image in the new
    # camera's normalised coordinates (``s`` times smaller than in ``model``'s)
    w, h = model.image_size
    gx, gy = np.meshgrid(np.linspace(0, w - 1, 9), np.linspace(0, h - 1, 7))
    px = undistort(model.K, model.dist, np.c_[gx.ravel(), gy.ravel()])
    norm = np.c_[(px - model.K[:2, 2]) / model.K[0, 0], np.ones(len(px))]
    plane = norm @ np.linalg.inv(P).T
    ahead = plane[:, 2] > 1e-12  # in front of the camera
    if ahead.sum() >= 6:
        obj = np.c_[plane[ahead, :2] / plane[ahead, 2:3], np.zeros(ahead.sum())]
        f = out.f
        img = norm[ahead, :2] / s * f
        Kn = np.array([[f, 0.0, 0.0], [0.0, f, 0.0], [0.0, 0.0, 1.0]])
        rv, tv = cv2.solvePnPRefineLM(
            obj, img, Kn, None, np.asarray(rvec, float).reshape(3, 1).copy(),
            np.asarray(tvec, float).reshape(3, 1).copy(),
            (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 50, 1e-12))
        rvec, tvec = rv.ravel(), tv.ravel()
    out.rvec, out.tvec = rvec, tvec
    return out


def _centres_at(camera: Camera, centre_px: np.ndarray, r_mm: float) -> np.ndarray:
    """(N, 2) table mm of the balls whose silhouettes' centroids are ``centre_px`` (N, 2): the
    centroid lies off the image of the centre, away from the principal point, by what the
    sphere's outline through ``camera`` puts it."""
    at = camera.plane_points(centre_px, r_mm)
    for _ in range(2):
        c = np.c_[at, np.full(len(at), r_mm)]
        _, centroid, _ = polygon_moments(camera.sphere_outline(c, r_mm, 64))
        at = camera.plane_points(centre_px - (centroid - camera.project(c)), r_mm)
    return at


def on_spots(shapes: BallShapes, camera: Camera, table: SnookerTableSpec
             ) -> tuple[np.ndarray, np.ndarray]:
    """The balls of ``shapes`` that stand on a colour's spot as ``camera`` sees them (within
    ``ON_SPOT_MM``): their silhouette centroids (K, 2) px and the spots (K, 2) mm."""
    spots = np.array(list(table.spots_mm.values()), float)
    if not len(shapes):
        return np.zeros((0, 2)), np.zeros((0, 2))
    at = _centres_at(camera, shapes.centre_px, table.ball_radius_mm)
    d = np.hypot(*(at[:, None] - spots[None]).transpose(2, 0, 1))
    near = np.argmin(d, axis=0)
    hit = d[near, np.arange(len(spots))] < ON_SPOT_MM
    return shapes.centre_px[near[hit]], spots[hit]


def spot_misfit(camera: Camera, centre_px: np.ndarray, spots_mm: np.ndarray,
                table: SnookerTableSpec) -> float:
    """Sum of squared distances (in ``SPOT_PLACING_MM``) between the spots and where
    ``camera`` puts the centres of the balls standing on them."""
    at = _centres_at(camera, centre_px, table.ball_radius_mm)
    return float(np.sum((at - spots_mm) ** 2) / SPOT_PLACING_MM**2)


def spots_verdict(family: list[CameraModel], centre_px: np.ndarray, spots_mm: np.ndarray,
                  table: SnookerTableSpec) -> tuple[float, float] | None:
    """The log scale (over ``SCALES``) of the member of ``family`` that puts the balls whose
    silhouette centroids are ``centre_px`` (K, 2) right over their spots ``spots_mm`` (K, 2),
    and its spread (log), or None when no member is best. The spread follows from how far the
    balls stand off their spots at the best member (placed by hand and measured), leaning to
    ``SPOT_PLACING_MM`` as much as one ball."""
    if not len(spots_mm):
        return None
    cost = np.array([spot_misfit(m.camera(), centre_px, spots_mm, table) for m in family])
    least = _least(cost)
    if least is None:
        return None
    k, on, curve, _ = least
    scatter = (SPOT_PRIOR_DOF + cost[k]) / (SPOT_PRIOR_DOF + 2 * len(spots_mm) - 1)
    return on, float(np.sqrt(scatter / curve))


def _on_cloth(obs: Observations) -> Observations:
    """The rows of ``obs`` on the cloth (height 0): the cushions' feet, the painted lines."""
    return obs.rows((obs.line_a[:, 2] == 0) & (obs.line_b[:, 2] == 0),
                    obs.arc_centre[:, 2] == 0, obs.point_mm[:, 2] == 0)


def table_verdict(model: CameraModel, obs: Observations, step: float = TABLE_STEP
                  ) -> tuple[float, float] | None:
    """What the cloth's own picture says of the scale along ``model``'s family: the log scale
    where the misfit of the observations on the cloth (their weighted residuals, each counted
    to at most ``TABLE_CLIP_PX``) is least, from a parabola through ``model`` and the members
    ``step`` (log) either side, and its spread, from the residuals' scatter at ``model`` over
    the parabola's curvature; or None when the misfit does not curve up. Looking straight
    down, every member sees the cloth alike (no verdict); a camera tilted by some degrees shows
    its focal length in the cloth's perspective (by 12 degrees, a spread of about 0.002)."""
    cloth = _on_cloth(obs)
    if cloth.count < 10:
        return None
    cost = []
    for s in (-step, 0.0, step):
        m = along_family(model, float(np.exp(s))) if s else model
        r = residuals(m, cloth, weighted=True)
        cost.append(float(np.sum(np.minimum(r**2, TABLE_CLIP_PX**2))))
    curve = (cost[0] + cost[2] - 2 * cost[1]) / (2 * step**2)
    if curve <= 0:
        return None
    slope = (cost[2] - cost[0]) / (2 * step)
    noise = max(cost[1] / max(len(r) - 1, 1), TABLE_NOISE_PX**2)
    return float(-slope / (2 * curve)), float(np.sqrt(noise / curve))


def _least(cost: np.ndarray) -> tuple[int, float, float, float] | None:
    """Where ``cost`` over ``log(SCALES)`` is least: (index, log scale, curvature, slope) of the
    parabola through it and its neighbours (the points within three times the least), or None
    when the least is at an end or the cost does not curve up."""
    k = int(np.argmin(cost))
    if k in (0, len(SCALES) - 1):
        return None
    log_s = np.log(SCALES)
    near = cost <= 3 * cost[k]
    if near.sum() < 3:
        near[k - 1:k + 2] = True
    curve, slope, _ = np.polyfit(log_s[near], cost[near], 2)
    if curve <= 0:
        return None
    return k, float(np.clip(-slope / (2 * curve), log_s[k - 1], log_s[k + 1])), curve, slope


def height_from_balls(image_bgr: np.ndarray, cloth_lab: np.ndarray, model: CameraModel,
                      obs: Observations, table: SnookerTableSpec
                      ) -> tuple[CameraModel, dict]:
    """``model`` moved along its family to the focal length (and height) that the balls give
    together with the lens prior (``model.f_prior``), each weighed by its spread: the balls'
    shapes, from how sharply their misfit rises either side of its least (and
    ``SYSTEMATIC``); the balls standing on the colours' spots, whose centres are right above
    them (to their own scatter, :func:`spots_verdict`), by how far the family moves the centres
    off the spots; the cloth's own picture where the family does not see it alike (a tilted
    camera, :func:`table_verdict`); the prior by ``PRIOR_SPREAD``. Also what was found: the
    ``balls`` measured, the scale of the focal length their shapes alone give
    (``balls_scale``, with its ``balls_spread`` in log), the balls on spots (``spotted``) and
    the scale they alone give (``spots_scale``, ``spots_spread``), the cloth's
    (``table_scale``, ``table_spread``), the ``scale`` applied and whether the model was moved
    (``used``)."""
    shapes = ball_shapes(image_bgr, cloth_lab, model.camera(), table)
    info = {"balls": len(shapes), "balls_scale": None, "balls_spread": None, "spotted": 0,
            "spots_scale": None, "spots_spread": None, "table_scale": None, "table_spread": None,
            "scale": 1.0, "used": False}
    if model.f_prior is None:
        return model, info
    family = [along_family(model, float(s)) for s in SCALES]
    verdicts = []  # (log scale, spread)
    if len(shapes) >= MIN_BALLS:
        cost = np.array([shape_misfit(m.camera(), shapes, table) for m in family])
        least = _least(cost)
        if least is not None:
            k, balls, curve, _ = least
            kept = max(1, int(np.ceil((1 - TRIM) * len(shapes))))
            noise = cost[k] / max(2 * kept - 1, 1)  # per moment, about the best member
            spread = float(np.sqrt(noise / curve + SYSTEMATIC**2))
            verdicts.append((balls, spread))
            info.update(balls_scale=round(float(np.exp(balls)), 3),
                        balls_spread=round(spread, 3))
    centre_px, spots = on_spots(shapes, model.camera(), table)
    info["spotted"] = len(spots)
    on = spots_verdict(family, centre_px, spots, table)
    if on is not None:
        verdicts.append(on)
        info.update(spots_scale=round(float(np.exp(on[0])), 3), spots_spread=round(on[1], 3))
    if not verdicts:
        return model, info
    # the table's own picture: weak looking straight down, firm for a camera tilted by some
    # degrees (the balls' and the spots' verdicts, through a family only near one, would
    # otherwise move such a camera's focal length off the one its table shows)
    own = table_verdict(model, obs)
    if own is not None:
        verdicts.append(own)
        info.update(table_scale=round(float(np.exp(own[0])), 3), table_spread=round(own[1], 4))
    verdicts.append((float(np.log(model.f_prior / model.f)), PRIOR_SPREAD))
    w = np.array([v[1] ** -2 for v in verdicts])
    s = float(np.exp(np.sum(w * [v[0] for v in verdicts]) / w.sum()))
    info["scale"] = round(s, 3)
    moved = along_family(model, s)

    def table_rms(m: CameraModel) -> float:
        res = residuals(m, obs, weighted=False)
        return float(np.sqrt(np.mean(res[np.abs(res) < 3.0] ** 2))) if len(res) else 0.0

    if table_rms(moved) > TABLE_WORSE * table_rms(model) + 0.05:
        return model, info  # a tilted camera, whose family is not near enough one
    moved.f_prior = moved.f
    info["used"] = True
    return moved, info
