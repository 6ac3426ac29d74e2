"""Automatic calibration from one image or the first usable frames of a video.

Stages: the cloth's colour and outline (``cloth``); a first camera from the outline's four
corners; the cushions found as sub-pixel edges along their projected lines, walking out from
the cloth (an edge counts only with cloth on its inner side, so pockets, balls, hands, cues and
graphics drop out) and placed in a lightly smoothed copy of the image (the smoothing that keeps
codec blocks out moves them), fitted with a robust loss, focal length and radial distortion free
(a second radial term where the lens bends clearly); the baulk end chosen by where the baulk
line and the D are (else by the yellow and black on their spots, else the end away from the
camera, as in broadcast footage); a last fit of every landmark (cushions, baulk line, D). The
cushions' visible edge is fitted both as the nose and as the foot of the undercut face where
that shows, and the fit that agrees better with the painted lines is kept. Where the face shows
too narrow to part its foot from the nose (the side cushions under a camera looking down), that
cushion's edge is fitted with an offset of its own, placed by the rest of the table.
"""

from __future__ import annotations

import copy
import math
from pathlib import Path

import cv2
import numpy as np
from scipy.optimize import least_squares

from calibration.calibrate import Calibration
from calibration.cloth import find_cloth, outline_quad
from calibration.edges import find_first_edges, find_ridges, profiles
from calibration.errors import InputError
from calibration.height import height_from_balls
from calibration.images import read_image
from calibration.model import (
    CameraModel,
    Observations,
    fit,
    focal_from_homography,
    pose_from_homography,
    residuals,
    uncertainty_mm,
    undistort,
)
from calibration.specs import SNOOKER, SnookerTableSpec

# Score (median ridge contrast in grey levels times the share of baulk-line points on one line)
# for the painted lines to count as seen; the end without them scores about 0.05 on broadcast
# footage.
BAULK_MIN_SCORE = 0.2
# Weakest cushion edge taken (grey levels per px after the blur below).
NOSE_EDGE_FLOOR = 2.0
# Corner shift (px) from which the cushion lines are taken to show real lens distortion. The
# first fits hold the lens's bending back with a prior (``model.fit``'s ``bend_px``), so that it
# only grows where the cushion lines' curvature demands it; the lens is then taken to bend (its
# radial terms fitted from the lines alone) or held. Fitted with that prior to the end, the
# terms of a clearly bent lens stay short of the lines' own (its pull does not weaken as the
# lines fit better): k1 -0.116 for -0.12 and k2 -0.001 for +0.006 at 1080p, and the table's
# plane 0.19-0.54 mm RMS off the true camera's where 0.06-0.31 without.
CLEAR_BEND_PX = 15.0
# The painted lines lie on the cloth itself, where the cushion noses' visible edge can be a
# shade off the nose; their residuals count this many times a nose edge's.
PAINTED_WEIGHT = 3.0
# A video calibration this good (RMS mm) is kept without trying further frames.
GOOD_ENOUGH_MM = 15.0
# Undercut of the cushion face (mm): its foot on the cloth lies this far outside the nose line
# (not in the rules; typical of championship cushions).
CUSHION_UNDERCUT_MM = 6.0
# Smoothing (Gaussian sigma, px) of the grey image the edges are found in: light where the
# cloth shows sensor grain (sharp, uncompressed frames), heavier on codec-smoothed video whose
# block edges would otherwise pass for cushion edges.
EDGE_BLUR_PX = (0.4, 1.0)
# The edges' positions are then read in the grey image smoothed only this much (Gaussian sigma,
# px), within this distance (px) of where the smoothed image puts them: heavier smoothing moves
# a cushion edge towards the dark crease or the lit nose beside it (about 2 mm RMS on the table
# per px of sigma at 1080p overhead).
FINE_BLUR_PX = 0.4
EDGE_SNAP_PX = 1.5
# 90th percentile of |grey - 3x3 mean| on the cloth below which a frame counts as codec-smoothed.
SMOOTH_CLOTH_GRAIN = 1.0
# A nose edge is at least this share of the strongest cloth-to-cloth edge across the cushion.
NOSE_RELATIVE = 0.3
# Widest band (mm on the cloth) of shadowed cushion face seen under the nose: a darkening edge
# followed this close by a brightening one is the face's foot, and the nose is the second edge.
NOSE_SHADOW_MM = 25.0
# Width (px) of the cushion face seen between its foot and the nose below which the two blend
# into one edge (the codec's and the search's blur, and the shadow at the foot, each about a
# pixel): its peak then falls anywhere between them, up to a pixel or two off the foot (at
# 1080p overhead the side cushions' faces show 1.3-1.7 px wide, the ends' 5.3 px; under a
# camera tilted by 12 degrees the far side's 4 px, found 0.3 px off). Such cushions' offsets
# are fitted where the rest of the table fixes them. The end cushions are freed only when
# their face is much narrower: with the painted lines and the middle pockets' mouths they fix
# the table's length (freed at 3.5 px, as a 720p camera 3 m up shows them, the plane came out
# 0.96 mm RMS against 0.80 held).
FACE_RESOLVED_PX = 5.0
END_FACE_RESOLVED_PX = 2.0
# Which cushions face which way: inward unit normal on the cloth, in table axes.
_INWARD = {
    "baulk": (0.0, 1.0), "top": (0.0, -1.0),
    "left_baulk": (1.0, 0.0), "left_top": (1.0, 0.0),
    "right_baulk": (-1.0, 0.0), "right_top": (-1.0, 0.0),
    # a pool table's, its head end in baulk's place
    "head": (0.0, 1.0), "foot": (0.0, -1.0),
    "left_head": (1.0, 0.0), "left_foot": (1.0, 0.0),
    "right_head": (-1.0, 0.0), "right_foot": (-1.0, 0.0),
}
# The middle pockets' mouths, looked at along the middle of the cushion rubber beside them:
# the dark gap must be this much darker than the rubber (grey levels) to be read.
MOUTH_CONTRAST = 20.0
# A mouth's middle is one reading from two long edges; its residual counts this many times a
# nose edge's.
MOUTH_WEIGHT = 8.0
# A mouth is read when its profile, from its gap's middle out to this far (mm) past the jaws,
# mirrors itself to within this share of the rubber's contrast on average (a ball in the jaws
# or a hand over the pocket breaks the mirror), and when both are read, their gaps, alike by the
# table's symmetry, agree within ``MOUTH_AGREE`` (seen from 3 m, square on or tilted by 12
# degrees, within 2.2 %).
MOUTH_BEYOND_MM = 15.0
MOUTH_ASYMMETRY = 0.1
MOUTH_AGREE = 0.05
_SIDE = {"baulk": "baulk", "top": "top", "left_baulk": "left", "left_top": "left",
         "right_baulk": "right", "right_top": "right",
         "head": "head", "foot": "foot", "left_head": "left", "left_foot": "left",
         "right_head": "right", "right_foot": "right"}


def _check_image(image) -> np.ndarray:
    if not isinstance(image, np.ndarray) or image.ndim != 3 or image.shape[2] != 3:
        shape = getattr(image, "shape", None)
        raise InputError(f"expected a colour image of shape (h, w, 3), got {shape}")
    if image.dtype != np.uint8:
        image = np.clip(image, 0, 255).astype(np.uint8)
    if min(image.shape[:2]) < 64:
        raise InputError(f"image too small to calibrate: {image.shape[1]}x{image.shape[0]}")
    return image


def _project(model: CameraModel, pts3: np.ndarray) -> np.ndarray:
    p, _ = cv2.projectPoints(np.asarray(pts3, float), np.asarray(model.rvec, float),
                             np.asarray(model.tvec, float), model.K, model.dist)
    return p.reshape(-1, 2)


def _normals(model: CameraModel, pts3: np.ndarray, dir_mm: np.ndarray):
    """Image positions, unit image normals and px-per-mm of table directions ``dir_mm`` (N, 2)."""
    a = _project(model, pts3)
    b = _project(model, pts3 + np.c_[dir_mm, np.zeros(len(dir_mm))])
    d = b - a
    s = np.hypot(d[:, 0], d[:, 1]) + 1e-12
    return a, d / s[:, None], s


# Views within this many degrees of straight down count as flat (see ``model.fit``).
FLAT_TILT_DEG = 20.0


def _initial_model(quad_px, outline_px, table, image_size, K_fixed, dist_fixed) -> CameraModel:
    """Camera from the cloth outline's corners, taken as the cushions' outer cloth edge. Of the
    four ways the corners can be matched to the table's, the one that is the view of a real
    rectangle through a square-pixel lens wins; the camera is then fitted to the corners and
    the middles of the outline's sides (which bow under lens distortion)."""
    q = np.asarray(quad_px, float)
    x, y = q[:, 0], q[:, 1]
    if np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y) > 0:
        q = q[::-1]
    d = table.cushion_depth_mm
    W, L = table.width_mm, table.length_mm
    rect = np.array([[-d, -d], [W + d, -d], [W + d, L + d], [-d, L + d]], np.float64)
    K_given = None if K_fixed is None else np.asarray(K_fixed, float)
    outline = np.asarray(outline_px, float).reshape(-1, 2)
    seg = np.roll(outline, -1, axis=0) - outline
    n = np.maximum(1, (np.hypot(seg[:, 0], seg[:, 1]) / 2).astype(int))
    dense = np.vstack([p + np.linspace(0, 1, k, endpoint=False)[:, None] * v
                       for p, v, k in zip(outline, seg, n)])
    # the lens's bending read from the outline's sides before the corners are trusted
    bend = 0.0
    if K_given is None and dist_fixed is None:
        bend = _outline_bend(q, dense, image_size)
    if K_given is not None and dist_fixed is not None:
        q_und = undistort(K_given, np.asarray(dist_fixed, float), q)
    else:
        q_und = _unbend(q, bend, image_size)
    best = None
    for rot in range(4):
        qq = np.roll(q_und, -rot, axis=0)
        H = cv2.getPerspectiveTransform(rect.astype(np.float32), qq.astype(np.float32))
        f, err = focal_from_homography(H, image_size, K_given)
        if best is None or err < best[0]:
            best = (err, H, f, rot)
    _, H, f, rot = best
    q = np.roll(q, -rot, axis=0)
    model = CameraModel(image_size, f, np.zeros(3), np.zeros(3), 0.0, K_given,
                        None if dist_fixed is None else np.asarray(dist_fixed, float),
                        fit_k1=K_fixed is None and not bend)
    if bend:
        model.k1, model.k2 = _radial_terms(bend, image_size, f)
    model.rvec, model.tvec = pose_from_homography(H, model.K)
    # looking about straight down, the picture leaves the focal length free: a 60 degree lens
    R = cv2.Rodrigues(np.asarray(model.rvec, float).reshape(3, 1))[0]
    if K_given is None and R[2, 2] < -np.cos(np.radians(FLAT_TILT_DEG)):
        model.f_prior = (image_size[0] / 2) / np.tan(np.radians(30))
    obs = Observations()
    z = table.cushion_nose_height_mm + 7.0
    for i in range(4):
        obs.add_point(q[i], (*rect[i], z), "outline")
        m = 0.5 * (q[i] + q[(i + 1) % 4])
        j = int(np.argmin(np.hypot(*(dense - m).T)))
        obs.add_point(dense[j], (*(0.5 * (rect[i] + rect[(i + 1) % 4])), z), "outline")
    model = _fit_held(model, obs, scale_px=5.0, bend_px=20.0)
    # a lens seen bending in the outline keeps both radial terms free from here on
    model.fit_k1 = K_fixed is None
    model.fit_k2 = model.fit_k1 and bool(bend)
    return model


# Least bending (px at the image corner) the outline's sides must show for it to be taken as
# the lens's: below it the cushion lines decide.
OUTLINE_BEND_PX = 4.0
# ... and its sides must come out this much straighter (median distance off their lines).
OUTLINE_STRAIGHTER = 0.6


def _unbend(px: np.ndarray, bend: float, image_size) -> np.ndarray:
    """Pixels ``px`` (N, 2) through the division model: straightened by ``1 + bend * r**2`` about
    the image centre, ``r`` in half image diagonals."""
    w, h = image_size
    c = np.array([(w - 1) / 2, (h - 1) / 2])
    d = (np.asarray(px, float) - c) / (0.5 * math.hypot(w, h))
    return c + (np.asarray(px, float) - c) / (1 + bend * (d**2).sum(1))[:, None]


def _radial_terms(bend: float, image_size, f: float) -> tuple[float, float]:
    """OpenCV's first two radial terms at focal length ``f`` that bend as the division model
    ``_unbend`` straightens, matched over the image's diagonal."""
    half = 0.5 * math.hypot(*image_size)
    rd = np.linspace(0.05, 1.0, 40)
    ru = rd / (1 + bend * rd**2)
    x = ru * half / f
    A = np.c_[x**3, x**5]
    k = np.linalg.lstsq(A, rd * half / f - x, rcond=None)[0]
    return float(k[0]), float(k[1])


def _outline_bend(quad: np.ndarray, dense: np.ndarray, image_size) -> float:
    """The division model's term (``_unbend``) that makes the cloth outline's four sides
    straight, the middle of each side between its corners (a wide lens bows them; the cloth's
    edge is straight on every table); 0 where the sides are straight to within
    ``OUTLINE_BEND_PX`` at the image corner."""
    span = np.roll(quad, -1, axis=0) - quad
    length = np.hypot(span[:, 0], span[:, 1])
    u = span / length[:, None]
    rel = dense[None] - quad[:, None]  # (side, point, xy)
    along = np.einsum("spk,sk->sp", rel, u) / length[:, None]
    across = np.abs(rel[..., 0] * u[:, None, 1] - rel[..., 1] * u[:, None, 0])
    near = (along > 0.1) & (along < 0.9) & (across < 0.1 * length[:, None])
    sides = [dense[m] for m in near if m.sum() >= 10]
    if len(sides) < 3:
        return 0.0
    pts = np.vstack(sides)
    which = np.concatenate([np.full(len(s), i) for i, s in enumerate(sides)])

    def straightness(v):
        u = _unbend(pts, v[0], image_size)
        out = []
        for i in range(len(sides)):
            p = u[which == i]
            c = p - p.mean(0)
            _, _, vt = np.linalg.svd(c, full_matrices=False)
            out.append(c @ vt[1])
        return np.concatenate(out)

    bend = float(least_squares(straightness, [0.0], loss="soft_l1", f_scale=1.0,
                               bounds=(-0.9, 1.5)).x[0])
    half = 0.5 * math.hypot(*image_size)
    if abs(bend) * half / (1 + bend) <= OUTLINE_BEND_PX:
        return 0.0
    # a lens's bending straightens the sides clearly; an outline bent by something else (rails
    # or pockets in it, a cloth seen past its cushions) is only reshaped by it
    before = float(np.median(np.abs(straightness([0.0]))))
    after = float(np.median(np.abs(straightness([bend]))))
    return bend if after < OUTLINE_STRAIGHTER * before else 0.0


def _fit_held(model: CameraModel, obs: Observations, **kwargs) -> CameraModel:
    """``fit`` with the focal length held where the table's picture leaves it free (a camera
    looking about straight down, ``model.f_prior`` set): there the lines of a barrel lens fitted
    before the lens's bending is let go draw the focal length and the height off without end
    along the family that sees the table alike (tens of metres), where the bending then grows
    past what the lens model holds. The fine fits let it go, from near its prior (a camera
    tilted by some degrees shows its focal length in the table's perspective)."""
    if model.f_prior is None or model.K_fixed is not None:
        return fit(model, obs, **kwargs)
    held = copy.copy(model)
    held.K_fixed = model.K
    out = fit(held, obs, **kwargs)
    out.K_fixed = None
    return out


def _nose_samples(table: SnookerTableSpec, spacing_mm: float = 25.0, trim_mm: float = 30.0):
    """Sample points along every cushion nose between its knuckles: (points (N, 3), inward
    normals (N, 2), cushion names)."""
    pts, nrm, names = [], [], []
    z = table.cushion_nose_height_mm
    for name, (a, b) in table.cushions_mm.items():
        a, b = np.asarray(a, float), np.asarray(b, float)
        length = float(np.hypot(*(b - a)))
        n = max(4, int((length - 2 * trim_mm) / spacing_mm))
        s = np.linspace(trim_mm / length, 1 - trim_mm / length, n)
        p = a + s[:, None] * (b - a)
        pts.append(np.c_[p, np.full(n, z)])
        nrm.append(np.tile(_INWARD[name], (n, 1)))
        names += [name] * n
    return np.vstack(pts), np.vstack(nrm), np.array(names)


def _visible_edges(model: CameraModel, table: SnookerTableSpec, undercut: bool
                   ) -> dict[str, tuple]:
    """Per cushion, the line where the bed's visible area ends, as (lift (2,) mm in table x, y
    from the nose line, height mm, width px of the face seen). Seen from the playing side (the
    far and side cushions of a broadcast view) the undercut face shows above its foot, the
    crease on the cloth ``CUSHION_UNDERCUT_MM`` outside the nose; seen from behind, the nose
    hides it (width 0). Without ``undercut`` the nose is taken to be the edge everywhere."""
    out = {}
    h = table.cushion_nose_height_mm
    for name, (a, b) in table.cushions_mm.items():
        if not undercut:
            out[name] = (np.zeros(2), h, 0.0)
            continue
        n = np.asarray(_INWARD[name])
        mid = 0.5 * (np.asarray(a) + np.asarray(b))
        foot = mid - CUSHION_UNDERCUT_MM * n
        px = _project(model, np.array([[*mid, h], [*foot, 0.0], [*(mid + 10 * n), h]]))
        inward = px[2] - px[0]
        width = float((px[1] - px[0]) @ inward / (np.hypot(*inward) + 1e-12))
        if width > 0:
            out[name] = (-CUSHION_UNDERCUT_MM * n, 0.0, width)
        else:
            out[name] = (np.zeros(2), h, 0.0)
    return out


def _nose_observations(model, gray, valid, table, radius_mm, samples, undercut, margin=2.0,
                       fine=None):
    pts3, inward, names = samples
    edges = _visible_edges(model, table, undercut)
    shift = np.array([edges[c][0] for c in names])
    z = np.array([edges[c][1] for c in names])
    pts3 = np.c_[pts3[:, :2] + shift, z]
    a, n_img, s = _normals(model, pts3, inward)
    radius = np.clip(radius_mm * s, 2.5, 60.0)
    obs = Observations()
    support = {}
    for side in dict.fromkeys(_SIDE[c] for c in names):  # the ends, then the sides
        sel = np.array([_SIDE[c] == side for c in names])
        off, strength = find_first_edges(gray, valid, a[sel], n_img[sel], radius[sel],
                                         floor=NOSE_EDGE_FLOOR, margin_px=margin,
                                         band_px=np.clip(NOSE_SHADOW_MM * s[sel], 2.0, 10.0),
                                         relative=NOSE_RELATIVE, fine=fine,
                                         snap_px=EDGE_SNAP_PX)
        good = strength > 0.0
        support[side] = float(good.mean())
        edge = a[sel] + off[:, None] * n_img[sel]
        for cushion in dict.fromkeys(names[sel]):
            m = good & (names[sel] == cushion)
            ca, cb = table.cushions_mm[cushion]
            lift, height, face_px = edges[cushion]
            # a face seen narrower than this blends with the nose into one edge
            blended = 0.0 < face_px < (END_FACE_RESOLVED_PX if _SIDE[cushion] == cushion
                                       else FACE_RESOLVED_PX)
            obs.add_line(edge[m], (*(np.asarray(ca) + lift), height),
                         (*(np.asarray(cb) + lift), height), f"cushion_{cushion}",
                         slide=str(cushion) if blended else "", normal=_INWARD[cushion])
    return obs, support, _face_shown(edges)


def _painted_samples(table: SnookerTableSpec, spacing_mm: float = 20.0):
    """Baulk line (trimmed clear of the cushions) and D arc sample points at z = 0, with the
    table direction across each line."""
    W, b, r, cx = table.width_mm, table.baulk_line_mm, table.d_radius_mm, table.centre_x_mm
    xs = np.arange(40.0, W - 40.0, spacing_mm)
    line = np.c_[xs, np.full(len(xs), b), np.zeros(len(xs))]
    line_n = np.tile([0.0, 1.0], (len(xs), 1))
    ang = np.linspace(np.pi * 1.06, np.pi * 1.94, max(8, int(np.pi * r / spacing_mm)))
    arc = np.c_[cx + r * np.cos(ang), b + r * np.sin(ang), np.zeros(len(ang))]
    arc_n = np.c_[np.cos(ang), np.sin(ang)]
    return line, line_n, arc, arc_n


def _ridge_search(model, gray, pts3, dir_mm, radius_mm, region):
    a, n_img, s = _normals(model, pts3, dir_mm)
    inside = (region[np.clip(np.round(a[:, 1]).astype(int), 0, region.shape[0] - 1),
                     np.clip(np.round(a[:, 0]).astype(int), 0, region.shape[1] - 1)] > 0)
    inside &= (a[:, 0] >= 0) & (a[:, 1] >= 0)
    inside &= (a[:, 0] < gray.shape[1]) & (a[:, 1] < gray.shape[0])
    radius = float(np.clip(np.median(radius_mm * s), 2.0, 40.0))
    half = float(np.clip(np.median(6.0 * s), 1.5, 6.0))
    off, strength = find_ridges(gray, a, n_img, radius, half)
    strength = np.where(inside, strength, 0.0)
    return a + off[:, None] * n_img, strength, inside


def _painted_observations(model, gray, region, table, radius_mm):
    """Baulk line and D points found as thin bright ridges: (observations, score, share of the
    baulk line found, share of the D found). The score is the ridges' median contrast times the
    share of baulk-line points that lie on one straight line (on plain or streaky cloth with no
    line the strongest ridge of each profile falls anywhere)."""
    line, line_n, arc, arc_n = _painted_samples(table)
    obs = Observations()
    pl, sl, il = _ridge_search(model, gray, line, line_n, radius_mm, region)
    pa, sa, ia = _ridge_search(model, gray, arc, arc_n, radius_mm, region)
    strengths = np.r_[sl[il], sa[ia]]
    score = float(np.median(strengths)) if len(strengths) else 0.0
    if il.sum() >= 5:
        vx, vy, x0, y0 = cv2.fitLine(pl[il].astype(np.float32), cv2.DIST_HUBER, 0, 0.01,
                                     0.01).ravel()
        off_line = np.abs((pl[il, 0] - x0) * vy - (pl[il, 1] - y0) * vx)
        score *= float(np.mean(off_line < 1.5))
    else:
        score = 0.0
    W, b = table.width_mm, table.baulk_line_mm
    thr = max(0.4, 0.4 * np.percentile(strengths, 75)) if len(strengths) else np.inf
    gl = il & (sl >= thr)
    ga = ia & (sa >= thr)
    obs.add_line(pl[gl], (0.0, b, 0.0), (W, b, 0.0), "baulk_line", PAINTED_WEIGHT)
    obs.add_arc(pa[ga], (table.centre_x_mm, b, 0.0), table.d_radius_mm, "d", PAINTED_WEIGHT)
    return obs, score, float(gl.mean()) if len(gl) else 0.0, float(ga.mean()) if len(ga) else 0.0


def _mouth_observations(model: CameraModel, gray: np.ndarray, table: SnookerTableSpec
                        ) -> Observations:
    """The middle pockets' mouths, where the cushions' lines leave the length free (only the
    end cushions and the painted lines fix it, all at the ends of the table).

    The two jaws of a middle pocket are mirror images about the table's middle across its length,
    so the middle of the dark gap they leave, whatever their shape, lies at half the length. The
    gap is read along the rubber half a cushion's depth outside the nose, from the middle outwards
    to where it is half as dark as the rubber beyond it, on each side; each of those two points is
    an observation on the line across the table at its side's distance from the middle as the
    model puts it, so that only the gap's middle is fitted. A ball in the jaws or a hand over
    a pocket cuts its gap short on one side (or a black ball draws it out): the profile no
    longer mirrors itself about the gap's middle, and the two gaps differ."""
    obs = Observations()
    L, W, z = table.length_mm, table.width_mm, table.cushion_nose_height_mm
    m = table.middle_mouth_mm / 2
    s = np.arange(-3 * m, 3 * m + 0.25, 0.5)
    far, hole = np.abs(s) > m + 40.0, np.abs(s) < m / 2
    middle = len(s) // 2  # s == 0
    read = []
    for x in (-table.cushion_depth_mm / 2, W + table.cushion_depth_mm / 2):
        px = _project(model, np.c_[np.full(len(s), x), L / 2 + s, np.full(len(s), z)])
        v = profiles(gray, px, np.zeros_like(px), np.zeros(1))[:, 0]
        if np.isnan(v).any():  # partly out of the picture
            continue
        dark = float(np.median(v[hole]))
        rubber = [float(np.median(v[far & (s < 0)])), float(np.median(v[far & (s > 0)]))]
        if min(rubber) - dark < MOUTH_CONTRAST or abs(rubber[0] - rubber[1]) > 0.25 * (
                min(rubber) - dark):
            continue
        ends = []
        for sign, level in ((-1, rubber[0]), (1, rubber[1])):
            half = 0.5 * (level + dark)
            idx = middle + sign * np.arange(middle + 1)
            above = np.flatnonzero(v[idx] >= half)
            if not len(above) or above[0] == 0:
                break
            j, k = idx[above[0] - 1], idx[above[0]]  # dark, then light
            t = (half - v[j]) / max(v[k] - v[j], 1e-6)
            ends.append((s[j] + t * (s[k] - s[j]), px[j] + t * (px[k] - px[j])))
        if len(ends) < 2 or not 0.5 * m < ends[1][0] - ends[0][0] < 5 * m:
            continue
        # the jaws and the rubber beyond them mirror each other about the gap's middle
        mid, gap = 0.5 * (ends[0][0] + ends[1][0]), 0.5 * (ends[1][0] - ends[0][0])
        t = np.arange(0.0, gap + MOUTH_BEYOND_MM, 0.5)
        if np.mean(np.abs(np.interp(mid + t, s, v) - np.interp(mid - t, s, v))) > (
                MOUTH_ASYMMETRY * (min(rubber) - dark)):
            continue
        read.append(ends)
    gaps = [0.5 * (ends[1][0] - ends[0][0]) for ends in read]
    if len(read) == 2 and abs(gaps[0] - gaps[1]) > MOUTH_AGREE * max(gaps):
        return obs
    for ends, gap in zip(read, gaps):
        for (_, at), y in zip(ends, (L / 2 - gap, L / 2 + gap)):
            obs.add_line(at, (-100.0, y, z), (W + 100.0, y, z), "middle_mouth", MOUTH_WEIGHT)
    return obs


def _merge(*parts: Observations) -> Observations:
    out = Observations()
    for p in parts:
        out = out.extend(p)
    return out


def errors_mm(model: CameraModel, obs: Observations) -> tuple[np.ndarray, list]:
    """Table-plane distance (mm) of every observation from its landmark, measured where its
    pixel's ray meets the landmark's height: (errors (N,), group names)."""
    cam = model.camera()
    errs, groups = [], []
    line_a, line_b = obs.lines_mm(model.offsets)
    if len(obs.line_px):
        for z in np.unique(line_a[:, 2]):
            m = line_a[:, 2] == z
            p = cam.plane_points(obs.line_px[m], z_mm=float(z))
            a, b = line_a[m, :2], line_b[m, :2]
            d = b - a
            n = np.hypot(d[:, 0], d[:, 1])
            errs.append(np.abs(d[:, 0] * (p[:, 1] - a[:, 1]) - d[:, 1] * (p[:, 0] - a[:, 0])) / n)
            groups += [g for g, k in zip(obs.line_group, m) if k]
    if len(obs.arc_px):
        p = cam.plane_points(obs.arc_px, z_mm=0.0)
        v = p - obs.arc_centre[:, :2]
        errs.append(np.abs(np.hypot(v[:, 0], v[:, 1]) - obs.arc_radius))
        groups += obs.arc_group
    if len(obs.point_px):
        for i, (px, mm) in enumerate(zip(obs.point_px, obs.point_mm)):
            p = cam.plane_points(px[None], z_mm=float(mm[2]))[0]
            errs.append(np.array([np.hypot(*(p - mm[:2]))]))
            groups.append(obs.point_group[i])
    return (np.concatenate(errs) if errs else np.zeros(0)), groups


def _check_pose(model: CameraModel, table: SnookerTableSpec, what: str) -> None:
    cam = model.camera()
    if cam.centre_mm[2] <= table.cushion_nose_height_mm:
        raise InputError(f"no table found: {what} does not look like a table seen from above")
    w, h = model.image_size
    fov = 2 * math.degrees(math.atan(w / 2 / model.K[0, 0]))
    if not 5.0 <= fov <= 160.0:
        raise InputError(f"no table found: {what} implies an impossible lens ({fov:.0f} deg)")


def _pockets_seen(image, model, table) -> dict[str, bool]:
    """Whether each pocket shows as a dark hole just outside its nose corner."""
    lab_l = cv2.cvtColor(image, cv2.COLOR_BGR2LAB)[..., 0]
    h, w = lab_l.shape
    seen = {}
    cloth_pts = _project(model, np.array([[table.width_mm / 2, table.length_mm / 2, 0.0]]))
    cx, cy = np.clip(np.round(cloth_pts[0]).astype(int), 0, [w - 1, h - 1])
    cloth_l = float(np.median(lab_l[max(0, cy - 5): cy + 6, max(0, cx - 5): cx + 6]))
    for name, p in table.pockets.items():
        fc = np.array([[*p.fall_centre_mm, 0.0]])
        c = _project(model, fc)[0]
        r = _normals(model, fc, np.array([[1.0, 0.0]]))[2][0] * p.fall_radius_mm * 0.5
        x0, x1 = int(c[0] - r), int(c[0] + r) + 1
        y0, y1 = int(c[1] - r), int(c[1] + r) + 1
        if x0 < 0 or y0 < 0 or x1 > w or y1 > h or r < 1:
            seen[name] = False
            continue
        patch = lab_l[y0:y1, x0:x1]
        seen[name] = bool(np.percentile(patch, 25) < 0.6 * cloth_l)
    return seen


def calibrate_image(
    image_bgr: np.ndarray,
    table: SnookerTableSpec = SNOOKER,
    camera_matrix: np.ndarray | None = None,
    dist_coeffs: np.ndarray | None = None,
    source: str = "",
) -> Calibration:
    """Calibrate from one BGR image (h, w, 3). Given ``camera_matrix`` (and ``dist_coeffs``) the
    intrinsics are kept; otherwise the focal length and radial distortion are fitted.
    Raises InputError when no whole table is found. The result's ``uncertainty_mm`` is the
    fit's own uncertainty at the balls (``uncertainty_warning`` says when it is over a limit).

    The cushions are fitted twice, once with their visible edge taken at the nose everywhere
    and once with the undercut face's foot where the face shows; the fit whose painted lines
    agree better with its cushions is kept."""
    image = _check_image(image_bgr)
    cloth, model, _, gray, fine = _first_camera(image, table, camera_matrix, dist_coeffs,
                                                source or "the image")
    best, error = None, None
    for undercut in (False, True):
        try:
            cal = _fit_table(image, gray, cloth, copy.deepcopy(model), table, source,
                             undercut, fine)
        except InputError as exc:
            error = exc
            continue
        if best is None or _better(cal, best):
            best = cal
    if best is None:
        raise error
    return best


def _first_camera(image, table, camera_matrix, dist_coeffs, what):
    """The cloth, the first camera (from the cloth's outline) and the grey images the edges are
    found in: (cloth, model, grey (h, w) float32, grey smoothed for the edge search, grey
    smoothed less to place them in or None)."""
    h, w = image.shape[:2]
    cloth = find_cloth(image)
    quad = outline_quad(cloth.outline_px)
    if camera_matrix is not None and dist_coeffs is None:
        dist_coeffs = np.zeros(5)
    model = _initial_model(quad, cloth.outline_px, table, (w, h), camera_matrix,
                           dist_coeffs)
    _check_pose(model, table, what)
    raw = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY).astype(np.float32)
    blur = _edge_blur_px(raw, cloth.mask)
    gray = cv2.GaussianBlur(raw, (0, 0), blur)
    fine = cv2.GaussianBlur(raw, (0, 0), FINE_BLUR_PX) if blur > FINE_BLUR_PX else None
    return cloth, model, raw, gray, fine
def uncertainty_warning(cal: Calibration) -> str | None:
    """A line to say when ``cal``'s own uncertainty at the balls is over
    ``MAX_UNCERTAINTY_MM``, else None. Said, not refused: the figure is an estimate, and on
    broadcast views it can state several times the error the calibration makes."""
    if cal.uncertainty_mm is None or cal.uncertainty_mm <= MAX_UNCERTAINTY_MM:
        return None
    where = f" in {cal.source}" if cal.source else ""
    return (f"the table{where} is found only to {cal.uncertainty_mm:.1f} mm at the balls (over "
            f"{MAX_UNCERTAINTY_MM:g} mm): positions may be off by as much")


# A calibration whose own uncertainty at the balls (``Calibration.uncertainty_mm``) is over
# this many mm is said to be so: the tracker's millimetres may not hold on it.
MAX_UNCERTAINTY_MM = 5.0


# Shares of the painted lines found (baulk line plus D, 0..2) this close are the same support:
# the landmark error then tells the fits apart.
PAINTED_SAME = 0.25


def _better(a: Calibration, b: Calibration) -> bool:
    """Whether fit ``a``'s painted lines and cushions agree better than ``b``'s: the baulk
    found, then the share of the painted lines found where the fit puts them (when clearly
    more), then the smaller landmark error."""
    fa, fb = a.landmarks["_features"], b.landmarks["_features"]
    if fa["baulk_found"] != fb["baulk_found"]:
        return bool(fa["baulk_found"])
    sa, sb = (sum(f["painted_support"][k] for k in ("baulk_line", "d")) for f in (fa, fb))
    if abs(sa - sb) > PAINTED_SAME:
        return sa > sb
    return a.reprojection_error_mm < b.reprojection_error_mm


def _fit_table(image, gray, cloth, model, table, source, undercut, fine=None) -> Calibration:
    what = source or "the image"
    valid = (cloth.mask > 0).astype(np.float32)
    samples = _nose_samples(table)
    support = {}
    # A frame that cuts through the rails leaves the outline on the frame's edge, so the first
    # search reaches further.
    near_edge = _outline_on_frame(cloth, image.shape)
    model, nose, support, shown = _fit_cushions(model, gray, valid, table, samples, undercut,
                                                fine, near_edge, what)

    # The lens's bending comes from the cushion lines: unless they show a clearly bent lens, the
    # painted lines then only move the pose and the focal length. A clearly bent lens is fitted
    # from here on without the prior that held its bending back (see ``CLEAR_BEND_PX``).
    model.fit_k1 = model.fit_k1 and _corner_bend_px(model) > CLEAR_BEND_PX
    # A clearly bent lens gets the second radial term too: one term leaves the corners of a
    # wide barrel lens many px out.
    model.fit_k2 = model.fit_k1
    # and its centre: a principal point off the image's centre moves a bent lens's picture
    model.fit_shift = model.fit_k2 and model.K_fixed is None
    # and a lens whose elements sit a little askew (tangential terms)
    model.fit_tangential = model.fit_shift
    # The baulk end: the end whose baulk line and D are painted on the cloth.
    flipped = model.flipped(table.width_mm, table.length_mm)
    here = _painted_observations(model, gray, cloth.region, table, 150.0)
    there = _painted_observations(flipped, gray, cloth.region, table, 150.0)
    best, other = max(here[1], there[1]), min(here[1], there[1])
    baulk_found = best > BAULK_MIN_SCORE and best > 1.8 * other
    by_colour = False
    if baulk_found:
        turn = there[1] > here[1]
        end_from = "painted_lines"
    else:
        vote = _colour_vote(image, model, table)
        by_colour = abs(vote) > 0.25
        turn = vote < 0 if by_colour else _baulk_is_near(model, table)
        end_from = "ball_colours" if by_colour else "camera_far_end"
    if turn:
        model = flipped
        nose, support, shown = _nose_observations(model, gray, valid, table, 14.0, samples,
                                                  undercut, fine=fine)
    line_frac = d_frac = 0.0
    obs = nose
    if baulk_found or by_colour:
        for radius_mm in (150.0, 40.0, 12.0):
            painted = _painted_observations(model, gray, cloth.region, table, radius_mm)[0]
            model = fit(model, _merge(nose, painted), scale_px=1.0, bend_px=None, max_nfev=30)
        nose, support, shown = _nose_observations(model, gray, valid, table, 14.0, samples,
                                                  undercut, fine=fine)
        painted, _, line_frac, d_frac = _painted_observations(model, gray, cloth.region, table,
                                                              6.0)
        obs = _merge(nose, painted)
    if model.f_prior is not None and baulk_found:
        # looking down with the painted lines seen: the cushions whose edge blends face and
        # nose are placed by the rest (see ``_visible_edges``)
        model.fit_offsets = tuple(sorted(set(n for n in obs.line_slide if n)))
    mouths = model.f_prior is not None and baulk_found
    # Which cushions show their undercut face depends on where the camera is: once the fit has
    # moved it across that line for a cushion, its edges are found and fitted again (twice at
    # most).
    for again in range(3):
        if again:
            if _face_shown(_visible_edges(model, table, undercut)) == shown:
                break
            nose, support, shown = _nose_observations(model, gray, valid, table, 14.0, samples,
                                                      undercut, fine=fine)
            obs = _merge(nose, painted) if baulk_found or by_colour else nose
        if mouths:
            obs = _merge(obs, _mouth_observations(model, gray, table))
        model = fit(model, obs, scale_px=0.75, bend_px=None)
    heights = None
    if model.f_prior is not None and model.K_fixed is None:
        # the table's picture leaves the height free: the balls' shapes tell it
        model, heights = height_from_balls(image, cloth.lab, model, obs, table)
    _check_pose(model, table, what)
    cal = _finish(image, model, obs, support, table, source,
                  {"baulk_line": line_frac, "d": d_frac}, baulk_found)
    if heights is not None:
        cal.landmarks["_features"]["height_from_balls"] = heights
    cal.landmarks["_features"]["cushion_edge"] = "undercut_foot" if undercut else "nose"
    if model.offsets:
        cal.landmarks["_features"]["cushion_offsets_mm"] = {
            k: round(v, 2) for k, v in model.offsets.items()}
    cal.landmarks["_features"]["baulk_end_from"] = end_from
    return cal


def _fit_cushions(model, gray, valid, table, samples, undercut, fine, near_edge, what):
    """The camera fitted to the cushion edges found along the model's cushion lines, searched
    ever closer: (model, last observations, per-side support, cushions showing their face)."""
    first = ((200.0, 8.0),) if near_edge else ()
    # the outline's sides bowed by a clearly bent lens looking down (a wide-angle ceiling
    # camera): the first, wide searches keep its bending (held straight, the cushions' ends are
    # looked for tens of px off and lost)
    bent = _corner_bend_px(model) > CLEAR_BEND_PX
    for radius_mm, scale_px in first + ((90.0, 4.0), (35.0, 2.0), (14.0, 1.0)):
        nose, support, shown = _nose_observations(model, gray, valid, table, radius_mm,
                                                  samples, undercut, fine=fine)
        if nose.count < 12:
            raise InputError(f"no table found: cushion edges not found in {what}")
        coarse = _fit_held if radius_mm > 20 else fit
        model = coarse(model, nose, scale_px=scale_px,
                       bend_px=None if bent else 0.2 if radius_mm > 50 else 2.0, max_nfev=30)
    _check_pose(model, table, what)
    return model, nose, support, shown


def _face_shown(edges: dict) -> tuple:
    """The cushions whose visible edge ``edges`` (from ``_visible_edges``) puts at the foot of
    the undercut face."""
    return tuple(name for name, (_, height, _) in edges.items() if height == 0.0)


def _outline_on_frame(cloth, shape) -> bool:
    """Whether the table's outline runs along an edge of the frame."""
    h, w = shape[:2]
    x, y = cloth.outline_px[:, 0], cloth.outline_px[:, 1]
    return bool(np.any(x <= 2) or np.any(y <= 2) or np.any(x >= w - 3) or np.any(y >= h - 3))


def _edge_blur_px(gray: np.ndarray, cloth_mask: np.ndarray) -> float:
    grain = np.abs(gray - cv2.blur(gray, (3, 3)))[cloth_mask > 0]
    smooth = len(grain) == 0 or np.percentile(grain, 90) < SMOOTH_CLOTH_GRAIN
    return EDGE_BLUR_PX[1] if smooth else EDGE_BLUR_PX[0]


def _corner_bend_px(model: CameraModel) -> float:
    """Shift (px) the first radial term makes at the image corner."""
    w, h = model.image_size
    rc = 0.5 * math.hypot(w, h) / model.K[0, 0]
    return abs(model.k1) * rc**3 * model.K[0, 0]


def _colour_vote(image: np.ndarray, model: CameraModel, table: SnookerTableSpec) -> float:
    """Evidence from balls standing on their spots that the model's baulk end is right
    (positive) or the other end is (negative): the share of yellow pixels on the yellow spot
    and of black pixels on the black spot, minus the same where the turned-round table would
    put those spots."""
    hsv = cv2.cvtColor(image, cv2.COLOR_BGR2HSV)
    h, w = hsv.shape[:2]
    r = table.ball_radius_mm
    W, L = table.width_mm, table.length_mm

    def share(colour, xy):
        c = _project(model, np.array([[*xy, r]]))[0]
        rad = max(2.0, _normals(model, np.array([[*xy, r]]), np.array([[1.0, 0.0]]))[2][0] * r)
        x0, x1 = int(c[0] - rad), int(c[0] + rad) + 1
        y0, y1 = int(c[1] - rad), int(c[1] + rad) + 1
        if x0 < 0 or y0 < 0 or x1 > w or y1 > h:
            return 0.0
        p = hsv[y0:y1, x0:x1].reshape(-1, 3).astype(int)
        if colour == "yellow":
            hit = (p[:, 0] >= 18) & (p[:, 0] <= 40) & (p[:, 1] > 100) & (p[:, 2] > 140)
        else:
            hit = p[:, 2] < 50
        return float(hit.mean())

    vote = 0.0
    for colour in ("yellow", "black"):
        x, y = table.spots_mm[colour]
        vote += share(colour, (x, y)) - share(colour, (W - x, L - y))
    return vote


def _baulk_is_near(model: CameraModel, table: SnookerTableSpec) -> bool:
    """Whether the camera is nearer the model's baulk end. With no painted line seen, baulk is
    taken to be the far end: broadcast cameras sit behind the top cushion."""
    c = model.camera().centre_mm
    return abs(c[1]) < abs(c[1] - table.length_mm)


def _finish(image, model, obs, support, table, source, painted_frac, baulk_found,
            max_line_rms_px: float = 1.5) -> Calibration:
    h, w = image.shape[:2]
    res = residuals(model, obs, weighted=False)
    n_line = len(obs.line_px)
    line_res = res[:n_line]
    err, groups = errors_mm(model, obs)
    inlier = np.abs(res[: len(err)]) < 3.0 if len(res) >= len(err) else np.ones(len(err), bool)
    sides_ok = [s for s, v in support.items() if v >= 0.2]
    if len(sides_ok) < 3:
        missing = ", ".join(s for s in support if s not in sides_ok)
        raise InputError(f"no whole table found: cushion edges missing ({missing})")
    corners = _project(model, np.array([[0, 0, 0], [table.width_mm, 0, 0],
                                        [table.width_mm, table.length_mm, 0],
                                        [0, table.length_mm, 0]], float))
    mx, my = 0.04 * w, 0.04 * h
    off = (corners[:, 0] < -mx) | (corners[:, 0] > w - 1 + mx)
    off |= (corners[:, 1] < -my) | (corners[:, 1] > h - 1 + my)
    if off.any():
        raise InputError("no whole table found: part of the table is out of view")
    if (np.sqrt(np.mean(line_res[np.abs(line_res) < 3.0] ** 2)) > max_line_rms_px
            or inlier.mean() < 0.5):
        raise InputError("no table found: the cushion edges do not fit a table")
    e = err[inlier]
    rms = float(np.sqrt(np.mean(e**2))) if len(e) else 0.0
    emax = float(np.max(e)) if len(e) else 0.0
    cam = model.camera()
    pockets_seen = _pockets_seen(image, model, table)
    landmarks = {}
    found = {g for g, k in zip(groups, inlier) if k}
    for name, (x, y) in table.landmarks_mm().items():
        px = cam.project(np.array([[x, y, 0.0]]))[0]
        if name.startswith("pocket_"):
            how = "cushion_noses"
        elif name.startswith("baulk_line") or name == "spot_brown":
            how = "baulk_line" if "baulk_line" in found else "cushion_noses"
        elif name in ("d_bottom", "spot_yellow", "spot_green"):
            how = "d" if "d" in found else "cushion_noses"
        else:
            how = "cushion_noses"
        entry = {"mm": [float(x), float(y)], "px": [float(px[0]), float(px[1])],
                 "matched": how}
        if name.startswith("pocket_"):
            entry["pocket_seen"] = pockets_seen[name[len("pocket_"):]]
        landmarks[name] = entry
    features = {}
    for g in sorted(set(groups)):
        m = np.array([gg == g for gg in groups]) & inlier
        if m.any():
            features[g] = {"points": int(m.sum()),
                           "rms_mm": float(np.sqrt(np.mean(err[m] ** 2)))}
    landmarks["_features"] = {
        "edges": features,
        "side_support": {k: round(v, 3) for k, v in support.items()},
        "painted_support": {k: round(v, 3) for k, v in painted_frac.items()},
        "baulk_found": bool(baulk_found),
    }
    return Calibration(
        cam.homography_table_to_image(0.0), (w, h), cam.K, cam.dist, model.rvec, model.tvec,
        rms, emax, landmarks, source, table, _stated_uncertainty(model, obs, table),
    )


def _stated_uncertainty(model: CameraModel, obs: Observations, table: SnookerTableSpec
                        ) -> float:
    """The fit's own uncertainty (mm) at the balls: the median of ``uncertainty_mm`` over a
    grid of ball centres on the playing area."""
    r = table.ball_radius_mm
    xs, ys = np.meshgrid(np.linspace(r, table.width_mm - r, 5),
                         np.linspace(r, table.length_mm - r, 9))
    grid = np.c_[xs.ravel(), ys.ravel(), np.full(xs.size, r)]
    return float(np.median(uncertainty_mm(model, obs, grid)))


def calibrate_points(points_px: dict, image_size: tuple[int, int],
                     table: SnookerTableSpec = SNOOKER, source: str = "points") -> Calibration:
    """Calibrate from hand-picked landmark pixels ``{landmark_name: [x_px, y_px]}`` (names from
    ``table.landmarks_mm()``; at least four, not three on a line)."""
    known = table.landmarks_mm()
    unknown = sorted(set(points_px) - set(known))
    if unknown:
        raise InputError(f"unknown landmark names: {', '.join(unknown)}")
    names = [n for n in known if n in points_px]
    if len(names) < 4:
        raise InputError(f"need at least 4 landmarks, got {len(names)}")
    mm = np.array([known[n] for n in names], float)
    try:
        px = np.array([[float(v) for v in points_px[n]] for n in names])
    except (TypeError, ValueError):
        raise InputError("landmark pixels must be [x, y] pairs of finite numbers") from None
    if px.shape != (len(names), 2) or not np.all(np.isfinite(px)):
        raise InputError("landmark pixels must be [x, y] pairs of finite numbers")
    H, _ = cv2.findHomography(mm, px, 0)
    if H is None or abs(np.linalg.det(H)) < 1e-12:
        raise InputError("the landmarks do not define a table plane (three on one line?)")
    proj = cv2.perspectiveTransform(mm.reshape(-1, 1, 2), H).reshape(-1, 2)
    back = cv2.perspectiveTransform(px.reshape(-1, 1, 2), np.linalg.inv(H)).reshape(-1, 2)
    err = np.hypot(*(back - mm).T)
    landmarks = {n: {"mm": list(map(float, m)), "px": list(map(float, p)), "matched": "points",
                     "fitted_px": list(map(float, q))}
                 for n, m, p, q in zip(names, mm, px, proj)}
    return Calibration(H, image_size, reprojection_error_mm=float(np.sqrt(np.mean(err**2))),
                       max_error_mm=float(err.max()), landmarks=landmarks, source=source,
                       table=table)


# -- sources ----------------------------------------------------------------------------------
def read_frames(path, seconds: float = 1.0, count: int = 5) -> list[np.ndarray]:
    """Up to ``count`` frames spread over the first ``seconds`` of a video."""
    path = Path(path)
    if not path.exists():
        raise InputError(f"no such file: {path}")
    if path.is_dir():
        raise InputError(f"{path} is a directory: expected a video file")
    cap = cv2.VideoCapture(str(path))
    try:
        if not cap.isOpened():
            raise InputError(f"cannot open {path} as a video")
        fps = cap.get(cv2.CAP_PROP_FPS) or 25.0
        total = int(cap.get(cv2.CAP_PROP_FRAME_COUNT) or 0)
        last = int(min(seconds * fps, total - 1 if total > 0 else seconds * fps))
        wanted = set(np.linspace(0, max(last, 0), count).round().astype(int).tolist())
        frames = []
        for i in range(max(wanted) + 1):
            if i not in wanted:  # decoded, not converted
                if not cap.grab():
                    break
                continue
            ok, frame = cap.read()
            if not ok:
                break
            frames.append(frame)
    finally:
        cap.release()
    if not frames:
        raise InputError(f"no frames could be decoded from {path}")
    return frames


def _median_frame(frames: list[np.ndarray]) -> np.ndarray:
    """The per-pixel median of the frames (uint8): by pairwise minima and maxima for five
    frames (many times quicker than a sort along a new axis), else ``np.median``."""
    if len(frames) != 5:
        return np.median(np.stack(frames), axis=0).astype(np.uint8)
    a, b, c, d, e = frames
    lo = np.maximum(np.minimum(a, b), np.minimum(c, d))
    hi = np.minimum(np.maximum(a, b), np.maximum(c, d))
    return np.maximum(np.minimum(lo, hi), np.minimum(np.maximum(lo, hi), e))


def _calibrate_frames(frames, table, camera_matrix, dist_coeffs, source, seconds
                      ) -> tuple[Calibration, np.ndarray]:
    candidates = []
    if len(frames) >= 3:
        candidates.append(_median_frame(frames))
    candidates += frames
    last_error = None
    best = None
    for frame in candidates:
        try:
            cal = calibrate_image(frame, table, camera_matrix, dist_coeffs, source)
        except InputError as exc:
            last_error = exc
            continue
        if best is None or cal.reprojection_error_mm < best[0].reprojection_error_mm:
            best = (cal, frame)
        if cal.reprojection_error_mm < GOOD_ENOUGH_MM:
            break
    if best is None:
        raise InputError(f"no table found in the first {seconds:g} s of {source}: {last_error}")
    return best


def calibrate_video(path, table: SnookerTableSpec = SNOOKER, camera_matrix=None,
                    dist_coeffs=None, seconds: float = 1.0) -> Calibration:
    """Calibrate from the first usable frames of a video: the per-pixel median of frames spread
    over the first ``seconds`` (players and moving balls drop out), else the first of those
    frames that calibrates on its own."""
    frames = read_frames(path, seconds)
    return _calibrate_frames(frames, table, camera_matrix, dist_coeffs, str(path), seconds)[0]


def read_source(path, seconds: float = 1.0) -> tuple[np.ndarray | None, list[np.ndarray]]:
    """An image file as (image, []), or a video as (None, frames spread over its first
    ``seconds``); InputError in one line for a missing file, a directory or one that does not
    decode."""
    path = Path(path)
    if not path.exists():
        raise InputError(f"no such file: {path}")
    if path.is_dir():
        raise InputError(f"{path} is a directory: expected an image or a video file")
    if cv2.haveImageReader(str(path)):
        return read_image(path), []
    return None, read_frames(path, seconds)


def calibrate_source(path, table: SnookerTableSpec = SNOOKER, camera_matrix=None,
                     dist_coeffs=None) -> tuple[Calibration, np.ndarray]:
    """Calibrate an image or video file: (calibration, the image it was found in)."""
    seconds = 1.0
    image, frames = read_source(path, seconds)
    if image is not None:
        cal = calibrate_image(image, table, camera_matrix, dist_coeffs, str(path))
    else:
        cal, image = _calibrate_frames(frames, table, camera_matrix, dist_coeffs, str(path),
                                       seconds)
    return cal, image
