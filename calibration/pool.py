"""Finding a pool table in one image, and telling a pool table from a snooker table.

Stages, as for snooker (``calibration.find``): the cloth's colour and outline; a first camera
from the outline's four corners (a 2:1 bed, whichever way round it shows); the cushion noses
found as sub-pixel edges along their projected lines and fitted with a robust loss, focal
length and radial distortion free. Then what a pool table has and a snooker table lacks: the
18 sights (diamonds) on the rail caps, looked for where the fit puts them and fitted with the
cushions where they are found. The table's size cannot come from its outline (the three WPA
tables are the same shape): it is given, or read from the balls' size on the cloth (57.15 mm),
else taken to be 9 ft.

The table turns end for end onto itself: the foot is the end whose spot shows a mark (the foot
spot is marked on most tables, the head spot seldom); with none told apart, the head is taken
to be the end away from the camera, as snooker's baulk is.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, replace

import cv2
import numpy as np

from calibration.calibrate import Calibration
from calibration.camera import polygon_moments
from calibration.errors import InputError
from calibration.find import (
    CLEAR_BEND_PX,
    _baulk_is_near,
    _check_image,
    _corner_bend_px,
    _finish,
    _first_camera,
    _fit_cushions,
    _merge,
    _normals,
    _nose_observations,
    _nose_samples,
    _outline_on_frame,
    _project,
)
from calibration.model import CameraModel, Observations, fit, residuals
from calibration.specs import POOL_9FT, POOL_TABLES, SNOOKER, PoolTableSpec

# The rail caps the sights sit in, above the cushion nose (not in the WPA rules: the cap is
# about level with the cushion's top).
SIGHT_RISE_MM = 7.0
# A sight is a small bright mark: its peak over the rail's median round it (grey levels).
SIGHT_CONTRAST = 18.0
# The window a sight is looked for in, around where the fit puts it (mm on the rail, each way).
SIGHT_SEARCH_MM = 40.0
# Residual weight of a sight's centre against a nose edge's (a mark a few px across, read as
# one point from its whole blob).
SIGHT_WEIGHT = 2.0
# A sight found further than this (px) from where the final fit puts it is left out.
SIGHT_INLIER_PX = 3.0
# How far from each knuckle (mm) the cushion noses are looked for: a pool pocket's jaws are
# cut back at an angle, and the cut starts some way along the nose.
NOSE_TRIM_MM = 80.0
# Largest RMS (px) of the cushion edges about the fitted noses for a table to count as found:
# a pool cushion's top is covered in the bed's cloth and meets it at a faint edge, which
# scatters over a pixel or two in compressed broadcast frames.
MAX_LINE_RMS_PX = 2.0
# A spot mark (a sticker about an inch across) counts where the cloth within this radius (mm) of
# the spot differs from the cloth round it (out to ``SPOT_RING_MM``) by ``SPOT_CONTRAST`` grey
# levels at the median, the cloth round it being plain (its median deviation within
# ``SPOT_PLAIN``: no ball, hand or cue there).
SPOT_INNER_MM = 10.0
SPOT_RING_MM = (35.0, 60.0)
SPOT_CONTRAST = 12.0
SPOT_PLAIN = 6.0
# Share of sights found below which the cloth's outline is tried as the rail's outer edge too.
RAIL_BELOW_SIGHTS = 0.5
# Sights found by one fit more than by the other for it to be taken whatever its cushion edges.
CLEARLY_MORE_SIGHTS = 3
# Share of the 18 sights found for the rails to count as a pool table's.
SIGHTS_POOL_SHARE = 0.4
# The balls' radius measured on the cloth over a 57.15 mm ball's where a 9 ft table is assumed:
# a smaller table shows its balls bigger by 9 ft's width over its own (8 ft 1.136, 7 ft 1.282),
# a snooker table's 52.5 mm balls on a 1778 mm bed about 0.66. A size is taken when the ratio
# lies within this factor of its own; between the bands the size is not told.
SIZE_TOLERANCE = 1.04
SNOOKER_BALL_RATIO = (SNOOKER.ball_diameter_mm / SNOOKER.width_mm) / (
    POOL_9FT.ball_diameter_mm / POOL_9FT.width_mm)
# Factor either side of the midway ratio between snooker's and a 9 ft table's balls within
# which the balls do not tell the game.
GAME_MARGIN = 1.05
# Balls measured and agreeing (median deviation within this share) for a ratio to be given.
FEWEST_BALLS = 3
BALLS_AGREE = 0.12
# Lab distance from the cloth's colour from which a pixel is a ball's: a* and b*, and a third of
# how much lighter it is (darker cloth is a ball's shadow).
BALL_CONTRAST = 22.0


@dataclass(frozen=True)
class BallSize:
    """The balls measured on the cloth: ``ratio`` their radius over a ``table`` ball's where
    the fit put them (None when too few agree), ``count`` how many were measured."""

    ratio: float | None
    count: int


def _sight_points(table: PoolTableSpec) -> np.ndarray:
    """The 18 sights at the rail caps' height: (18, 3) table mm."""
    s = table.sights_mm
    return np.c_[s, np.full(len(s), table.cushion_nose_height_mm + SIGHT_RISE_MM)]


def find_sights(model: CameraModel, gray: np.ndarray, table: PoolTableSpec
                ) -> tuple[np.ndarray, np.ndarray]:
    """Each sight looked for as the brightest small mark within ``SIGHT_SEARCH_MM`` of where
    ``model`` puts it: (centres (18, 2) px, found (18,) bool). A mark is taken when it stands
    ``SIGHT_CONTRAST`` over the rail's median round it and its bright area is small (a lit
    cap's edge or a graphic is no mark)."""
    pts3 = _sight_points(table)
    h, w = gray.shape
    centres = np.zeros((len(pts3), 2))
    found = np.zeros(len(pts3), bool)
    c, _, s = _normals(model, pts3, np.tile([1.0, 0.0], (len(pts3), 1)))
    _, _, s2 = _normals(model, pts3, np.tile([0.0, 1.0], (len(pts3), 1)))
    for i, (p, a, b) in enumerate(zip(c, s, s2)):
        r = int(np.ceil(max(4.0, SIGHT_SEARCH_MM * max(a, b))))
        x0, y0 = int(round(p[0])) - r, int(round(p[1])) - r
        if x0 < 0 or y0 < 0 or x0 + 2 * r + 1 > w or y0 + 2 * r + 1 > h:
            continue
        patch = gray[y0:y0 + 2 * r + 1, x0:x0 + 2 * r + 1]
        lift = patch - float(np.median(patch))
        peak = float(lift.max())
        if peak < SIGHT_CONTRAST:
            continue
        bright = lift > 0.5 * peak
        n, labels, stats, cents = cv2.connectedComponentsWithStats(bright.astype(np.uint8))
        k = int(labels.flat[int(np.argmax(lift))])
        # a sight is a few mm across: its bright blob at most ~25 mm wide on the rail
        most = max(9.0, (25.0 * max(a, b)) ** 2)
        if k == 0 or stats[k, cv2.CC_STAT_AREA] > most:
            continue
        m = labels == k
        wgt = lift * m
        ys, xs = np.mgrid[0:patch.shape[0], 0:patch.shape[1]]
        centres[i] = (x0 + float((wgt * xs).sum() / wgt.sum()),
                      y0 + float((wgt * ys).sum() / wgt.sum()))
        found[i] = True
    return centres, found


def _sight_observations(model, gray, table, inlier_px=None) -> tuple[Observations, float]:
    """The sights found, as point observations, and the share of the 18 found."""
    centres, found = find_sights(model, gray, table)
    pts3 = _sight_points(table)
    if inlier_px is not None:
        near = np.hypot(*(centres - _project(model, pts3)).T) <= inlier_px
        found &= near
    obs = Observations()
    for px, mm in zip(centres[found], pts3[found]):
        obs.add_point(px, mm, "sights", SIGHT_WEIGHT)
    return obs, float(found.mean())


def spot_marks(model: CameraModel, gray: np.ndarray, table: PoolTableSpec
               ) -> tuple[float, float]:
    """How clearly a spot mark shows at the head spot and at the foot spot where ``model``
    puts them: the inner cloth's median difference (grey levels) from the plain cloth round
    it, 0 where the cloth round it is not plain or out of the picture."""
    h, w = gray.shape
    out = []
    for xy in (table.head_spot_mm, table.foot_spot_mm):
        p3 = np.array([[*xy, 0.0]])
        c, _, s = _normals(model, p3, np.array([[1.0, 0.0]]))
        _, _, s2 = _normals(model, p3, np.array([[0.0, 1.0]]))
        scale = float(np.sqrt(s[0] * s2[0]))  # px per mm, about
        r = int(np.ceil(SPOT_RING_MM[1] * scale)) + 1
        x0, y0 = int(round(c[0, 0])) - r, int(round(c[0, 1])) - r
        if x0 < 0 or y0 < 0 or x0 + 2 * r + 1 > w or y0 + 2 * r + 1 > h:
            out.append(0.0)
            continue
        patch = gray[y0:y0 + 2 * r + 1, x0:x0 + 2 * r + 1]
        ys, xs = np.mgrid[-r:r + 1, -r:r + 1]
        # the spot's picture is squashed as the table is: distances in table mm, about
        cam = model.camera()
        grid = cam.plane_points(np.c_[(xs + x0 + r).ravel(), (ys + y0 + r).ravel()], 0.0)
        d_mm = np.hypot(*(grid - np.asarray(xy)).T).reshape(patch.shape)
        ring = patch[(d_mm >= SPOT_RING_MM[0]) & (d_mm <= SPOT_RING_MM[1])]
        inner = patch[d_mm <= max(SPOT_INNER_MM, 1.5 / scale)]
        if not len(ring) or not len(inner):
            out.append(0.0)
            continue
        bg = float(np.median(ring))
        if np.median(np.abs(ring - bg)) > SPOT_PLAIN:
            out.append(0.0)
            continue
        out.append(float(abs(np.median(inner) - bg)))
    return out[0], out[1]


def _fit_pool(image, first, table: PoolTableSpec, undercut: bool, what: str):
    """The camera fitted to the cushion edges and the sights of ``table``, from ``first``
    (``find._first_camera``'s cloth, model and grey images): (model, observations, per-side
    edge support, share of sights found, how the head end was told). With ``undercut`` the
    bed's visible edge is taken at the foot of the cushion's face where the camera sees the
    face (as ``calibration.find`` does for snooker), else at the nose everywhere."""
    cloth, model, raw, gray, fine = first
    valid = (cloth.mask > 0).astype(np.float32)
    samples = _nose_samples(table, trim_mm=NOSE_TRIM_MM)
    model, nose, support, _ = _fit_cushions(copy.deepcopy(model), gray, valid, table, samples,
                                            undercut, fine,
                                            _outline_on_frame(cloth, image.shape), what)
    model.fit_k2 = model.fit_k1 and _corner_bend_px(model) > CLEAR_BEND_PX
    # the foot end: where the foot spot's mark shows and the head spot shows none, else the
    # end away from the camera
    head_mark, foot_mark = spot_marks(model, raw, table)
    if max(head_mark, foot_mark) >= SPOT_CONTRAST and min(head_mark, foot_mark) < 0.5 * max(
            head_mark, foot_mark):
        turn, end_from = head_mark > foot_mark, "foot_spot"
    else:
        turn, end_from = _baulk_is_near(model, table), "camera_far_end"
    if turn:
        model = model.flipped(table.width_mm, table.length_mm)
    obs = nose
    for again in range(2):
        nose, support, _ = _nose_observations(model, gray, valid, table, 14.0, samples, undercut,
                                              fine=fine)
        sights, share = _sight_observations(model, raw, table,
                                            None if not again else SIGHT_INLIER_PX)
        obs = _merge(nose, sights)
        model = fit(model, obs, scale_px=0.75, bend_px=None)
    return model, obs, support, share, end_from


def _fit_either(image, table, camera_matrix, dist_coeffs, source):
    """``_fit_pool`` with the bed's edge taken at the nose and at the face's foot, and the fit
    that agrees better kept: the one that finds clearly more sights where it puts them, else
    the one whose cushion edges lie closer to their lines. Returns (model, observations,
    per-side support, share of sights found, how the head end was told, cloth) and the edge
    taken (``nose`` or ``undercut_foot``)."""
    what = source or "the image"
    first = _first_camera(image, table, camera_matrix, dist_coeffs, what)

    def line_rms(found) -> float:
        model, obs = found[0][0], found[0][1]
        r = residuals(model, obs, weighted=False)[:len(obs.line_px)]
        r = r[np.abs(r) < 3.0]
        return float(np.sqrt(np.mean(r**2))) if len(r) else np.inf

    def sights(found) -> int:
        return found[0][1].point_group.count("sights")

    def best(first):
        fits, error = [], None
        for undercut in (False, True):
            try:
                fits.append((_fit_pool(image, first, table, undercut, what) + (first[0],),
                             "undercut_foot" if undercut else "nose"))
            except InputError as exc:
                error = exc
        if not fits:
            raise error
        if len(fits) == 2 and abs(sights(fits[0]) - sights(fits[1])) >= CLEARLY_MORE_SIGHTS:
            return max(fits, key=sights)
        return min(fits, key=line_rms)

    def rail_first():
        # the cloth's outline taken for the rail's outer edge
        railed = replace(table, cushion_depth_mm=table.cushion_depth_mm + table.rail_width_mm)
        return _first_camera(image, railed, camera_matrix, dist_coeffs, what)

    try:
        found = best(first)
    except InputError:
        return best(rail_first())
    if found[0][3] < RAIL_BELOW_SIGHTS:
        # few sights where the fit puts them: perhaps the rail, of about the cloth's colour,
        # was taken for the cushions; that fit is taken when it finds clearly more
        try:
            railed = best(rail_first())
        except InputError:
            return found
        if sights(railed) >= sights(found) + CLEARLY_MORE_SIGHTS:
            return railed
    return found


def measure_balls(image: np.ndarray, cloth, model: CameraModel, table) -> BallSize:
    """The balls' apparent size on the bed against ``table``'s balls where ``model`` puts
    them. Balls are the blobs of colour unlike the cloth's inside the cushion noses, about
    round, at most a few balls' size; each one's radius is that of the disc of its area, its
    rim's pixels counted in part. The ratio is their median, given when enough agree."""
    h, w = image.shape[:2]
    lab = cv2.cvtColor(image, cv2.COLOR_BGR2LAB).astype(np.float32)
    d = lab - np.asarray(cloth.lab, np.float32)
    dist = np.sqrt(d[..., 1] ** 2 + d[..., 2] ** 2 + (np.maximum(d[..., 0], 0) / 3) ** 2)
    far = dist > BALL_CONTRAST
    bed = np.zeros((h, w), np.uint8)
    R = table.ball_radius_mm
    inset = 2.5 * R  # clear of the cushions' faces and the pockets' jaws
    corners = np.array([[inset, inset], [table.width_mm - inset, inset],
                        [table.width_mm - inset, table.length_mm - inset],
                        [inset, table.length_mm - inset]])
    edge = np.vstack([a + np.linspace(0, 1, 30)[:, None] * (b - a)
                      for a, b in zip(corners, np.roll(corners, -1, axis=0))])
    poly = _project(model, np.c_[edge, np.zeros(len(edge))])
    cv2.fillPoly(bed, [np.round(poly).astype(np.int32)], 1)
    blobs = (far & (bed > 0)).astype(np.uint8)
    blobs = cv2.morphologyEx(blobs, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
    n, _, stats, cents = cv2.connectedComponentsWithStats(blobs, connectivity=8)
    if n < 2:
        return BallSize(None, 0)
    cam = model.camera()
    on_cloth = cam.plane_points(cents[1:], z_mm=R)
    # the picture of a ball there through the lens, its radius that of a disc of its area
    outline = cam.sphere_outline(np.c_[on_cloth, np.full(len(on_cloth), R)], R, n=24)
    r_pred = np.sqrt(polygon_moments(outline)[0] / np.pi)
    area = stats[1:, cv2.CC_STAT_AREA].astype(float)
    bw, bh = stats[1:, cv2.CC_STAT_WIDTH], stats[1:, cv2.CC_STAT_HEIGHT]
    ratio = np.sqrt(area / np.pi) / r_pred
    # one ball alone, whole: about round and filling its box as a disc does
    fill = area / np.maximum(bw * bh, 1)
    lone = ((np.maximum(bw, bh) <= 1.35 * np.minimum(bw, bh)) & (fill > 0.6) & (fill < 0.92)
            & (ratio > 0.45) & (ratio < 1.8) & (r_pred >= 3.0))
    # each lone ball's area counted with its edge pixels in part, as far as they are the
    # ball's colour: a hard threshold takes in the blurred rim
    for i in np.flatnonzero(lone):
        x, y, bwi, bhi = stats[i + 1, :4]
        pad = 3
        x0, y0 = max(0, x - pad), max(0, y - pad)
        win = dist[y0:y + bhi + pad, x0:x + bwi + pad]
        inner = win[blobs[y0:y + bhi + pad, x0:x + bwi + pad] > 0]
        core = float(np.percentile(inner, 60))
        soft = float(np.clip(win / core, 0.0, 1.0).sum()) if core > 0 else 0.0
        ratio[i] = np.sqrt(soft / np.pi) / r_pred[i]
    ratios = ratio[lone]
    if len(ratios) < FEWEST_BALLS:
        return BallSize(None, int(len(ratios)))
    mid = float(np.median(ratios))
    if np.median(np.abs(ratios - mid)) > BALLS_AGREE * mid:
        return BallSize(None, int(len(ratios)))
    return BallSize(mid, int(len(ratios)))


def size_from_ratio(ratio: float | None) -> str | None:
    """The pool table (``7ft``, ``8ft``, ``9ft``) or ``snooker`` whose balls, measured against
    a 9 ft table's, give ``ratio``; None when it lies between them."""
    if ratio is None:
        return None
    expected = {name: POOL_9FT.width_mm / t.width_mm for name, t in POOL_TABLES.items()}
    expected["snooker"] = SNOOKER_BALL_RATIO
    for name, r in expected.items():
        if r / SIZE_TOLERANCE <= ratio <= r * SIZE_TOLERANCE:
            return name
    return None


def game_from_ratio(ratio: float | None) -> str | None:
    """``pool`` or ``snooker`` by the balls' size against a 9 ft table's (``ratio``): a pool
    ball of any table is at least as big as a 9 ft table's, a snooker ball two thirds of one;
    None when unmeasured or in the margin between them."""
    if ratio is None:
        return None
    middle = np.sqrt(SNOOKER_BALL_RATIO)  # between snooker's and 9 ft's, on a log scale
    if ratio > middle * GAME_MARGIN:
        return "pool"
    if ratio < middle / GAME_MARGIN:
        return "snooker"
    return None


@dataclass(frozen=True)
class PoolFind:
    """What ``find_pool_table`` found: the calibration, the size it took and how it knew it
    (``given``, ``balls`` or ``assumed``), the balls measured on the table taken, their ratio
    against a 9 ft table's balls when a 9 ft table was tried (None when not, or not measured),
    the share of sights found and a warning to pass on (empty when none)."""

    calibration: Calibration
    size: str
    size_from: str
    balls: BallSize
    against_9ft: float | None
    sights_share: float
    warning: str = ""


def find_pool_table(image_bgr: np.ndarray, table: PoolTableSpec | str | None = None,
                    camera_matrix: np.ndarray | None = None,
                    dist_coeffs: np.ndarray | None = None, source: str = "") -> PoolFind:
    """Find a pool table in one BGR image (h, w, 3). ``table``: the spec or its name (``7ft``,
    ``8ft``, ``9ft``); None or ``auto`` to read the size from the balls (9 ft, with a warning,
    when they do not say it). Raises InputError when no whole table is found."""
    image = _check_image(image_bgr)
    if isinstance(table, str) and table != "auto":
        if table not in POOL_TABLES:
            raise InputError(f"no pool table {table!r}: expected one of "
                             f"{', '.join(POOL_TABLES)} or auto")
        table = POOL_TABLES[table]
    given = isinstance(table, PoolTableSpec)
    spec = table if given else POOL_9FT
    fitted = _fit_either(image, spec, camera_matrix, dist_coeffs, source)
    balls = measure_balls(image, fitted[0][5], fitted[0][0], spec)
    against_9ft = balls.ratio if spec is POOL_9FT else None
    size, size_from, warning = spec.name, "given", ""
    if not given:
        size, size_from = "9ft", "assumed"
        if size_from_ratio(balls.ratio) == "9ft":
            size_from = "balls"
        elif balls.ratio is not None:
            # a smaller table, nearest first, when the balls are nearer its size than 9 ft's:
            # taken when its own fit puts its balls at their size (a 9 ft fit of a smaller
            # table leaves the lens, and so the balls, somewhat off)
            expected = {n: POOL_9FT.width_mm / POOL_TABLES[n].width_mm for n in ("8ft", "7ft")}
            nearer = [n for n, r in expected.items() if balls.ratio > np.sqrt(r)]
            taken = []
            for name in nearer:
                again = _fit_either(image, POOL_TABLES[name], camera_matrix, dist_coeffs,
                                    source)
                own = measure_balls(image, again[0][5], again[0][0], POOL_TABLES[name])
                if own.ratio is not None and size_from_ratio(own.ratio) == "9ft":
                    taken.append((name, again, own))
            if taken:
                # both sizes' balls about right: the one whose sights show, else whose balls
                # are nearer their size
                name, fitted, balls = max(taken, key=lambda c: (
                    round(c[1][0][3] * len(POOL_9FT.sights_mm)) // CLEARLY_MORE_SIGHTS,
                    -abs(np.log(c[2].ratio))))
                spec, size, size_from = POOL_TABLES[name], name, "balls"
        if size_from == "assumed":
            warning = ("the table's size was not told by its balls: taken to be 9 ft "
                       "(give --table 7ft, 8ft or 9ft)")
    (model, obs, support, share, end_from, cloth), edge = fitted
    cal = _finish(image, model, obs, support, spec, source, {}, False, MAX_LINE_RMS_PX)
    features = cal.landmarks["_features"]
    for key in ("painted_support", "baulk_found"):
        features.pop(key, None)
    features.update({"game": "pool", "table": size, "table_from": size_from,
                     "sights_found": round(share, 3), "head_end_from": end_from,
                     "cushion_edge": edge,
                     "ball_ratio": None if balls.ratio is None else round(balls.ratio, 3),
                     "balls_measured": balls.count})
    return PoolFind(cal, size, size_from, balls, against_9ft, share, warning)


@dataclass(frozen=True)
class TableFound:
    """A table found and what it was taken for: ``game`` (``snooker`` or ``pool``) and how
    that was told (``given``, ``balls``, ``sights``, ``painted_lines``, ``assumed``), the
    size (``snooker`` or ``7ft``/``8ft``/``9ft``) and how that was told, and the warnings to
    pass on."""

    calibration: Calibration
    game: str
    game_from: str
    size: str
    size_from: str
    warnings: tuple[str, ...] = ()


GAMES = ("snooker", "pool", "auto")
SIZES = tuple(POOL_TABLES) + ("auto",)


def _glance(image, camera_matrix, dist_coeffs, source) -> tuple[float | None, float]:
    """A first look for the game: one fit of a 9 ft pool table (the bed's edge at the cushion
    noses), and the balls' ratio against its balls (None when not measured) and the share of
    its sights found."""
    image = _check_image(image)
    what = source or "the image"
    first = _first_camera(image, POOL_9FT, camera_matrix, dist_coeffs, what)
    model, _, _, share, _ = _fit_pool(image, first, POOL_9FT, False, what)
    return measure_balls(image, first[0], model, POOL_9FT).ratio, share


def find_table(image_bgr: np.ndarray, game: str = "auto", size: str = "auto",
               camera_matrix=None, dist_coeffs=None, source: str = "") -> TableFound:
    """Find a snooker or a pool table in one BGR image. ``game`` ``auto`` tells them apart by
    the balls' size on the cloth (a pool ball is half as big again against its table's width),
    else by the markings (a pool table's sights on its rails, a snooker table's baulk line and
    D on its cloth), else takes snooker with a warning; a pool ``size`` given says pool."""
    from calibration.find import calibrate_image

    if game not in GAMES:
        raise InputError(f"no game {game!r}: expected one of {', '.join(GAMES)}")
    if size not in SIZES:
        raise InputError(f"no table size {size!r}: expected one of {', '.join(SIZES)}")
    if game == "snooker" and size != "auto":
        raise InputError(f"a {size} table is a pool table's size: not one for snooker")
    if game == "auto" and size != "auto":
        game = "pool"
        given_game = "table_size"
    else:
        given_game = "given"

    def pool(found: PoolFind, how: str) -> TableFound:
        return TableFound(found.calibration, "pool", how, found.size, found.size_from,
                          (found.warning,) if found.warning else ())

    if game == "pool":
        return pool(find_pool_table(image_bgr, size, camera_matrix, dist_coeffs, source),
                    given_game)
    if game == "snooker":
        cal = calibrate_image(image_bgr, SNOOKER, camera_matrix, dist_coeffs, source)
        return TableFound(cal, "snooker", "given", "snooker", "given")
    ratio = share = error = None
    try:
        ratio, share = _glance(image_bgr, camera_matrix, dist_coeffs, source)
    except InputError as exc:
        error = exc
    by_balls = game_from_ratio(ratio)
    if error is None and (by_balls == "pool" or (by_balls is None
                                                 and share >= SIGHTS_POOL_SHARE)):
        return pool(find_pool_table(image_bgr, None, camera_matrix, dist_coeffs, source),
                    "balls" if by_balls else "sights")
    try:
        cal = calibrate_image(image_bgr, SNOOKER, camera_matrix, dist_coeffs, source)
    except InputError as exc:
        if error is not None:
            raise error from None
        try:  # a pool table, if any table: said as snooker's finder says it when none
            return pool(find_pool_table(image_bgr, None, camera_matrix, dist_coeffs, source),
                        "assumed")
        except InputError:
            raise exc from None
    features = cal.landmarks["_features"]
    if by_balls == "snooker":
        return TableFound(cal, "snooker", "balls", "snooker", "balls")
    if features.get("baulk_found"):
        return TableFound(cal, "snooker", "painted_lines", "snooker", "painted_lines")
    return TableFound(cal, "snooker", "assumed", "snooker", "assumed",
                      ("neither the balls nor the markings told the game: taken to be "
                       "snooker (give --game pool for a pool table)",))


def find_table_in_source(path, game: str = "auto", size: str = "auto", camera_matrix=None,
                         dist_coeffs=None) -> tuple[TableFound, np.ndarray]:
    """``find_table`` on an image file, or on a video's first second: the per-pixel median of
    frames spread over it (players and moving balls drop out), else the first of those frames
    where a table is found. Returns (what was found, the image it was found in)."""
    from calibration.find import GOOD_ENOUGH_MM, _calibrate_frames, read_source

    image, frames = read_source(path, 1.0)
    if image is not None:
        return find_table(image, game, size, camera_matrix, dist_coeffs, str(path)), image
    candidates = frames[:]
    if len(frames) >= 3:
        candidates.insert(0, np.median(np.stack(frames), axis=0).astype(np.uint8))
    error = None
    for frame in candidates:
        try:
            found = find_table(frame, game, size, camera_matrix, dist_coeffs, str(path))
        except InputError as exc:
            error = exc
            continue
        first_good = (frame is candidates[0]
                      and found.calibration.reprojection_error_mm < GOOD_ENOUGH_MM)
        if found.game == "snooker" and not first_good:
            # a snooker table is taken from the frames as ``calibrate_source`` takes them (which
            # keeps the first candidate's when it is good enough)
            cal, frame = _calibrate_frames(frames, SNOOKER, camera_matrix, dist_coeffs,
                                           str(path), 1.0)
            found = TableFound(cal, found.game, found.game_from, found.size, found.size_from,
                               found.warnings)
        return found, frame
    raise InputError(f"no table found in the first 1 s of {path}: {error}")
