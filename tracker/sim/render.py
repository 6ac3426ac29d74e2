"""Camera frames of a snooker table with balls at known 3D positions.

The frames are the ground truth the detector, tracker and calibration are measured against, so
the geometry is ray-cast, not stamped: every background pixel is the first surface its camera ray
meets (cloth, pocket, cushion, rail, table side, floor), every ball pixel a ray-sphere
intersection, both through the camera's lens distortion (``Camera.pixel_rays``).

Units: table millimetres (``calibration.specs``) inside, pixels only at the image, named ``_px``.
Colours are BGR floats on the 0..255 scale until the frame is written out as uint8.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from calibration.camera import Camera
from calibration.specs import SNOOKER, SnookerTableSpec

BALL_COLOURS_BGR: dict[str, tuple[int, int, int]] = {
    "white": (212, 228, 232),  # phenolic cue ball, slightly cream
    "red": (28, 24, 178),
    "yellow": (24, 196, 228),
    "green": (62, 118, 18),
    "brown": (22, 56, 112),
    "blue": (168, 76, 12),
    "pink": (152, 128, 236),
    "black": (16, 16, 18),
}

CLOTH_GREEN_BGR = (14, 170, 22)
CLOTH_BLUE_BGR = (150, 88, 20)
CLOTH_GREY_BGR = (110, 112, 108)

# Profile of a side of the table across its length, walked from the foot of the cushion rubber
# on the bed, up the face to the nose, over the cushion and the rail and down the table's side:
# (outward distance from the nose line mm, height above the cloth mm). The nose height, the
# cushion depth and the rail width come from the spec; the undercut of the face, the rounding
# of the nose and the rail's height are typical of championship tables (not in the rules).
_UNDERCUT_MM = 6.0
_RAIL_RAISE_MM = 12.0  # rail top above the cushion nose
_FACE, _NOSE, _CUSHION_TOP, _RAIL_BEVEL_IN, _RAIL_TOP, _RAIL_BEVEL_OUT, _TABLE_SIDE = range(7)

# Surface ids of the background; strips of the sides follow as 3 + side * 7 + segment.
_FLOOR, _CLOTH, _POCKET = 0, 1, 2
_SIDES = ("left", "right", "baulk", "top")


@dataclass(frozen=True)
class Look:
    """How the scene looks (colours, lights, camera sensor); geometry comes from the table spec.

    cloth_bgr: cloth colour under full light (``CLOTH_GREEN_BGR``, ``CLOTH_BLUE_BGR``, ...).
    nap_strength: relative brightness variation of the nap's streaks along y (0 = plain cloth).
    lamp_count, lamp_height_mm: lamps evenly spaced along the table's centre line at that height
        above the cloth, unless ``lamps_mm`` ((n, 3) table mm) places them.
    lamp_radius_mm: size of each lamp (softness of the balls' shadows).
    canopy_size_mm: (across, along the table) size of the lamps' canopy, whose reflection is
        the balls' highlight.
    falloff: 0 = the lamps light the table evenly, 1 = pure inverse-square falloff.
    ambient: share of the light that comes from everywhere (1 = flat, unshaded lighting).
    line_bgr, line_width_mm, line_alpha, spot_radius_mm: the baulk line, the D and the spots.
    rail_bgr, plate_bgr, floor_bgr, pocket_bgr, cushion_shade: the rest of the scene.
    ball_gloss: strength of the canopy's reflection (the highlight) on the balls.
    ball_exposure: brightness of the balls' diffuse shading; above 1 stands for the light
        that a broad canopy wraps round a ball (point lamps alone leave its sides too dark).
    shading: False draws each ball and occluder in its flat colour (for geometry tests).
    shadows, shadow_strength: the balls' shadows on the table.
    vignette: relative darkening of the image corners.
    noise_sigma: sensor noise, standard deviation in 8-bit units.
    exposure: fraction of the frame interval the shutter is open; the caller spreads a moving
        ball's sub-samples (``Renderer.render`` ``pos_mm``) over it.
    """

    cloth_bgr: tuple[float, float, float] = CLOTH_GREEN_BGR
    nap_strength: float = 0.02
    lamp_count: int = 3
    lamp_height_mm: float = 1000.0
    lamps_mm: tuple[tuple[float, float, float], ...] | None = None
    lamp_radius_mm: float = 180.0
    canopy_size_mm: tuple[float, float] = (1000.0, 2000.0)
    falloff: float = 0.25
    ambient: float = 0.3
    line_bgr: tuple[float, float, float] = (215, 228, 222)
    line_width_mm: float = 3.0
    line_alpha: float = 0.45
    spot_radius_mm: float = 5.0
    rail_bgr: tuple[float, float, float] = (22, 30, 74)
    plate_bgr: tuple[float, float, float] = (150, 190, 210)
    floor_bgr: tuple[float, float, float] = (32, 30, 48)
    pocket_bgr: tuple[float, float, float] = (9, 9, 10)
    cushion_shade: float = 0.82
    ball_gloss: float = 1.0
    ball_exposure: float = 1.35
    shading: bool = True
    shadows: bool = True
    shadow_strength: float = 0.65
    vignette: float = 0.08
    noise_sigma: float = 2.0
    exposure: float = 0.5

    def shutter_times_s(self, frame_interval_s: float, samples: int) -> np.ndarray:
        """(samples,) instants (s, from the frame's mid-exposure) at which to sample the balls
        for ``Renderer.render``'s ``pos_mm``: spread evenly over the open shutter."""
        if samples <= 1:
            return np.zeros(1)
        half = self.exposure * frame_interval_s / 2
        return np.linspace(-half, half, samples)

    def lamp_positions(self, table: SnookerTableSpec) -> np.ndarray:
        """(n, 3) lamp centres in table mm."""
        if self.lamps_mm is not None:
            return np.asarray(self.lamps_mm, dtype=np.float64).reshape(-1, 3)
        n = self.lamp_count
        ys = (np.arange(n) + 0.5) / n * table.length_mm
        return np.stack([np.full(n, table.centre_x_mm), ys, np.full(n, self.lamp_height_mm)], 1)


@dataclass(frozen=True)
class Build:
    """How this particular table and room are made, beyond the ``Look``: what differs from one
    maker's table to the next. The defaults are the renderer's own table.

    undercut_mm: how far the cushion rubber's face runs in under its nose, at the cloth.
    nose_height_mm: the cushion nose's height above the cloth (None: the spec's).
    nose_round: share of the cushion's depth over which the nose rounds up to its top.
    rail_raise_mm: the rail's top above the cushion nose.
    cushion_bgr: colour of the cushions' cloth under full light (None: the bed's cloth times
        ``Look.cushion_shade``).
    jaw_mm: each knuckle moved along the cushion line away from its pocket's mouth (negative:
        a tighter pocket), as pocket cuts differ by maker.
    wear: 0..1, worn cloth: paler patches along the lines of play and about the baulk, and a
        flatter nap.
    chalk_marks: number of chalk smudges on the cloth, mostly near the cushions; ``chalk_bgr``
        their colour.
    lamp_bgr: colour of the lamps' light, a gain per channel on everything they light.
    ball_wear: 0..1, worn balls: a duller, blotchy surface and a weaker highlight.
    """

    undercut_mm: float = _UNDERCUT_MM
    nose_height_mm: float | None = None
    nose_round: float = 0.16
    rail_raise_mm: float = _RAIL_RAISE_MM
    cushion_bgr: tuple[float, float, float] | None = None
    jaw_mm: float = 0.0
    wear: float = 0.0
    chalk_marks: int = 0
    chalk_bgr: tuple[float, float, float] = (196, 140, 70)
    lamp_bgr: tuple[float, float, float] = (1.0, 1.0, 1.0)
    ball_wear: float = 0.0

    def __post_init__(self):
        if not 0 <= self.wear <= 1 or not 0 <= self.ball_wear <= 1:
            raise ValueError("Build.wear and Build.ball_wear must be in 0..1")
        if self.chalk_marks < 0 or not 0 < self.nose_round < 1 or self.undercut_mm < 0:
            raise ValueError("Build: chalk_marks >= 0, 0 < nose_round < 1, undercut_mm >= 0")
        if min(self.lamp_bgr) <= 0:
            raise ValueError("Build.lamp_bgr gains must be positive")


@dataclass(frozen=True)
class Capsule:
    """An occluder above the table (cue, arm, hand, torso): the hull of two spheres of radii
    ``radius_a_mm`` / ``radius_b_mm`` centred at ``a_mm`` / ``b_mm`` (table mm), colour ``bgr``."""

    a_mm: tuple[float, float, float]
    b_mm: tuple[float, float, float]
    radius_a_mm: float
    radius_b_mm: float
    bgr: tuple[float, float, float]

    def __post_init__(self):
        for name in ("a_mm", "b_mm"):
            value = tuple(float(v) for v in getattr(self, name))
            if len(value) != 3:
                raise ValueError(f"Capsule.{name} must be 3 numbers (mm), got {value}")
            object.__setattr__(self, name, value)
        if self.radius_a_mm <= 0 or self.radius_b_mm <= 0:
            raise ValueError("Capsule radii must be positive")


# -- geometry helpers ---------------------------------------------------------------------------
def sphere_silhouette_px(camera: Camera, centre_mm, radius_mm: float, n: int = 720) -> np.ndarray:
    """(n, 2) raw pixels of the outline of a sphere (``centre_mm`` (3,) table mm): the circle where
    the cone from the optical centre touches the sphere, projected through the lens distortion."""
    c = camera.to_camera(np.asarray(centre_mm, dtype=np.float64))[0]
    dist = float(np.linalg.norm(c))
    if dist <= radius_mm:
        raise ValueError("the camera is inside the sphere")
    axis = c / dist
    ring_centre = c * (1 - radius_mm**2 / dist**2)
    ring_radius = radius_mm * math.sqrt(1 - radius_mm**2 / dist**2)
    e1 = np.cross(axis, [0.0, 0.0, 1.0] if abs(axis[2]) < 0.9 else [1.0, 0.0, 0.0])
    e1 /= np.linalg.norm(e1)
    e2 = np.cross(axis, e1)
    phi = np.linspace(0, 2 * np.pi, n, endpoint=False)
    ring = ring_centre + ring_radius * (np.cos(phi)[:, None] * e1 + np.sin(phi)[:, None] * e2)
    return camera.project((ring - camera.t) @ camera.R)


def sphere_silhouette_centroid_px(camera: Camera, centre_mm, radius_mm: float) -> np.ndarray:
    """(2,) area centroid (raw pixels) of the projected outline of a sphere at ``centre_mm``."""
    p = sphere_silhouette_px(camera, centre_mm, radius_mm)
    q = np.roll(p, -1, axis=0)
    cross = p[:, 0] * q[:, 1] - q[:, 0] * p[:, 1]
    area = cross.sum() / 2
    return np.array([((p[:, 0] + q[:, 0]) * cross).sum(), ((p[:, 1] + q[:, 1]) * cross).sum()]) / (
        6 * area)


def _box_coverage(delta, half_width, footprint):
    """Fraction of a pixel footprint (width ``footprint``, centred at signed distance ``delta``)
    that lies inside the band |distance| <= ``half_width``; all in mm, arrays broadcast."""
    lo = np.maximum(delta - footprint / 2, -half_width)
    hi = np.minimum(delta + footprint / 2, half_width)
    return np.clip((hi - lo) / footprint, 0.0, 1.0)


def _angular_pixel_size(d: np.ndarray) -> np.ndarray:
    """(h, w) angle (rad) between neighbouring rays of a window of rays ``d`` (h, w, 3)."""
    ex, ey = np.diff(d, axis=1), np.diff(d, axis=0)
    dx = np.sqrt(np.einsum("hwi,hwi->hw", ex, ex))
    dy = np.sqrt(np.einsum("hwi,hwi->hw", ey, ey))
    dx = np.concatenate([dx, dx[:, -1:]], axis=1) if dx.shape[1] else np.full(d.shape[:2], 1e-3)
    dy = np.concatenate([dy, dy[-1:]], axis=0) if dy.shape[0] else np.full(d.shape[:2], 1e-3)
    return np.sqrt(dx * dy)


def _pixel_rays(camera: Camera) -> np.ndarray:
    """(H, W, 3) float32 unit ray through every pixel centre, in table coordinates.

    ``Camera.pixel_rays`` through the lens distortion; without distortion the same rays,
    R^T K^-1 [u v 1], are built directly in float32 from one row and one column, which is an
    order of magnitude faster at 4K."""
    if np.any(camera.dist):
        return camera.pixel_rays()
    w, h = camera.image_size
    M = (np.linalg.inv(camera.K).T @ camera.R).astype(np.float32)  # [u v 1] @ M = ray
    u = np.arange(w, dtype=np.float32)[:, None] * M[0] + M[2]
    v = np.arange(h, dtype=np.float32)[:, None] * M[1]
    rays = v[:, None, :] + u[None, :, :]
    rays /= np.sqrt(np.einsum("hwi,hwi->hw", rays, rays))[..., None]
    return rays


@dataclass(frozen=True)
class _Strip:
    """One planar strip of a side's profile, cut into a piece along the side."""

    side: int
    segment: int
    normal_xy: tuple[float, float]  # the side's outward direction in the table plane
    offset: float  # the nose line's distance from the origin along normal_xy
    d0: float
    z0: float
    d1: float
    z1: float
    s0: float  # extent of the piece along the side (the coordinate across normal_xy)
    s1: float
    near_pocket: bool


class Renderer:
    """Frames of one camera looking at one table.

    The static background (cloth, markings, pockets, cushions, rails, floor) is ray-cast once in
    the constructor; ``render`` then draws shadows, balls, occluders, sensor noise and graphics.
    The layers of balls at rest are kept between frames, so a frame costs mostly its moving
    balls. ``ball_colours`` maps each ball class it draws to its colour.
    """

    ball_colours: dict[str, tuple[float, float, float]] = BALL_COLOURS_BGR

    def __init__(self, camera: Camera, table: SnookerTableSpec = SNOOKER, look: Look = Look(),
                 seed: int = 0, build: Build | None = None):
        self.camera = camera
        self.table = table
        self.look = look
        self.seed = int(seed)
        self.build = build = Build() if build is None else build
        self._nose = (table.cushion_nose_height_mm if build.nose_height_mm is None
                      else float(build.nose_height_mm))
        self._tint = (None if tuple(build.lamp_bgr) == (1.0, 1.0, 1.0)
                      else np.asarray(build.lamp_bgr, np.float32))
        self.width_px, self.height_px = camera.image_size
        self._origin = camera.centre_mm.astype(np.float64)
        self._lamps = look.lamp_positions(table)
        self._canopy = ((table.centre_x_mm, float(self._lamps[:, 1].mean()),
                         look.canopy_size_mm[0] / 4, look.canopy_size_mm[1] / 4),
                        float(self._lamps[:, 2].mean()))
        self._profile = self._side_profile()
        self._pockets = self._pocket_shapes()
        self._strips = self._cut_strips()
        self._whole_strips = self._cut_strips(None)
        self._jaw_id = 3 + len(_SIDES) * (len(self._profile) - 1)
        self._lining_id = self._jaw_id + 1
        self._rays = _pixel_rays(camera)
        self._pixel_angle = _angular_pixel_size(self._rays)
        self._light_ref = 1.0
        self._light_ref = float(self._irradiance(
            np.array([[table.centre_x_mm, table.length_mm / 2, 0.0]]), np.array([[0, 0, 1.0]]))[0])
        self._chalk = self._chalk_marks()
        self._nap = self._nap_texture()
        self._cloth_light = self._nap * self._bed_brightness()
        self._background, self._bg_depth, self._bg_xyz = self._build_background()
        self._noise_bank: np.ndarray | None = None
        self._work = self._background.copy()
        self._dirty: list[tuple[int, int, int, int]] = []
        # layers of balls at rest, which recur frame after frame: (kind, class, centres) -> layer
        self._cache: dict[tuple, object] = {}

    # -- scene geometry --------------------------------------------------------------------------
    def _side_profile(self) -> list[tuple[float, float]]:
        t = self.table
        b = self.build
        nose, depth, rail = self._nose, t.cushion_depth_mm, t.rail_width_mm
        top = nose + b.rail_raise_mm
        # Rule 1(b): the rail's top stands height_mm above the floor
        self._floor_z = top - t.height_mm
        return [
            (b.undercut_mm, 0.0),
            (0.0, nose),
            (b.nose_round * depth, nose + 0.4 * (top - 3 - nose)),
            (depth, top - 3),
            (depth + 6, top),
            (depth + rail - 6, top),
            (depth + rail, top - 4),
            (depth + rail, self._floor_z),
        ]

    def _pocket_shapes(self) -> list[dict]:
        """Per pocket: fall disc, and the quadrilateral between the knuckles and the disc's
        tangent points; their union (the hull) is cut out of the cushions and the rails."""
        shapes = []
        for p in self.table.pockets.values():
            c = np.asarray(p.fall_centre_mm, float)
            r = p.fall_radius_mm
            k = np.asarray(p.knuckles_mm, float)
            if self.build.jaw_mm:
                away = k - k.mean(0)
                k = k + self.build.jaw_mm * away / np.linalg.norm(away, axis=1, keepdims=True)
            phi = np.linspace(0, 2 * np.pi, 720, endpoint=False)
            ring = c + r * np.c_[np.cos(phi), np.sin(phi)]
            pts = np.vstack([k, ring]).astype(np.float32)
            hull = cv2.convexHull(pts)[:, 0].astype(np.float64)
            # half-planes of the hull, for the fast point-in-hull test; ring vertices lie on the
            # circle, so the disc test covers them exactly.
            n = len(hull)
            quad = [int(np.argmin(np.linalg.norm(hull - kk, axis=1))) for kk in k]
            idx = set()
            for i in quad:
                idx.update({(i - 1) % n, i, (i + 1) % n})
            poly = hull[sorted(idx)]
            poly = cv2.convexHull(poly.astype(np.float32))[:, 0].astype(np.float64)
            edges = np.roll(poly, -1, axis=0) - poly
            normals = np.c_[edges[:, 1], -edges[:, 0]]
            # orient the normals outwards
            sign = np.sign(((poly.mean(0) - poly) * normals).sum(1))
            normals = -normals * sign[:, None]
            offsets = (normals * poly).sum(1)
            lo = np.minimum(hull.min(0), c - r) - 1
            hi = np.maximum(hull.max(0), c + r) + 1
            shapes.append({"centre": c, "radius": r, "normals": normals, "offsets": offsets,
                           "lo": lo, "hi": hi})
        return shapes

    def _in_pockets(self, x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(in_hull, in_disc) bool arrays shaped like ``x``: the point is inside a pocket's cut
        (no cushion or rail there) / over a pocket's fall hole."""
        in_hull = np.zeros(x.shape, bool)
        in_disc = np.zeros(x.shape, bool)
        for s in self._pockets:
            m = (x > s["lo"][0]) & (x < s["hi"][0]) & (y > s["lo"][1]) & (y < s["hi"][1])
            if not m.any():
                continue
            xs, ys = x[m], y[m]
            disc = (xs - s["centre"][0]) ** 2 + (ys - s["centre"][1]) ** 2 <= s["radius"] ** 2
            quad = np.all(np.multiply.outer(xs, s["normals"][:, 0])
                          + np.multiply.outer(ys, s["normals"][:, 1]) <= s["offsets"], axis=-1)
            in_disc[m] = disc
            in_hull[m] = disc | quad
        return in_hull, in_disc

    def _side_frames(self) -> list[tuple[tuple[float, float], float]]:
        """Per side (left, right, baulk, top): its outward direction in the table plane and
        its nose line's distance from the origin along that direction."""
        t = self.table
        return [((-1.0, 0.0), 0.0), ((1.0, 0.0), t.width_mm), ((0.0, -1.0), 0.0),
                ((0.0, 1.0), t.length_mm)]

    def _cut_strips(self, piece_mm: float | None = 300.0) -> list[_Strip]:
        """The sides' strips, cut into pieces of about ``piece_mm`` along the side (None: whole)
        so that a tile of the image only tests the pieces it can see."""
        t = self.table
        outer = self._profile[-1][0]
        strips = []
        for side, (n, off) in enumerate(self._side_frames()):
            length = t.length_mm if n[0] else t.width_mm
            pieces = max(1, int(length / piece_mm) + 1) if piece_mm else 1
            edges = np.linspace(-outer, length + outer, pieces + 1)
            for seg in range(len(self._profile) - 1):
                (d0, z0), (d1, z1) = self._profile[seg], self._profile[seg + 1]
                for s0, s1 in zip(edges[:-1], edges[1:]):
                    corners = self._strip_points(n, off, [(s0, d0), (s0, d1), (s1, d0), (s1, d1)])
                    lo, hi = corners.min(0), corners.max(0)
                    near = any(hi[0] >= p["lo"][0] and hi[1] >= p["lo"][1]
                               and lo[0] <= p["hi"][0] and lo[1] <= p["hi"][1]
                               for p in self._pockets)
                    strips.append(_Strip(side, seg, n, off, d0, z0, d1, z1, s0, s1, near))
        return strips

    @staticmethod
    def _strip_points(n, off, sd):
        """Table xy (k, 2) of points given as (s along the side, d outward) pairs."""
        n = np.asarray(n)
        tangent = np.array([abs(n[1]), abs(n[0])])
        return np.array([tangent * s + n * (off + d) for s, d in sd])

    def _surface_normals(self) -> np.ndarray:
        """(3 + 4 * segments + 2, 3) unit normal per surface id (floor, cloth, pocket, the
        sides' strips, the pockets' jaws and lining)."""
        normals = [(0, 0, 1.0), (0, 0, 1.0), (0, 0, 1.0)]
        for n, _ in self._side_frames():
            for seg in range(len(self._profile) - 1):
                (d0, z0), (d1, z1) = self._profile[seg], self._profile[seg + 1]
                e = math.hypot(d1 - d0, z1 - z0)
                nd, nz = -(z1 - z0) / e, (d1 - d0) / e
                normals.append((n[0] * nd, n[1] * nd, nz))
        normals += [(0, 0, 0.35), (0, 0, 0.2)]  # the pockets' jaws and lining, facing inwards
        return np.asarray(normals, dtype=np.float64)

    # -- lighting --------------------------------------------------------------------------------
    def _irradiance(self, p: np.ndarray, n: np.ndarray, per_lamp: bool = False) -> np.ndarray:
        """Light reaching points ``p`` (..., 3) with unit normals ``n`` (..., 3) from the lamps,
        before the ambient mix; 1 = the cloth at the table's centre. (..., lamps) if per_lamp."""
        look = self.look
        out = []
        h2 = look.lamp_height_mm ** 2
        if p.ndim == 2 and len(p) < 50000:
            # few points (a ball): all lamps at once
            v = self._lamps.astype(np.float32)[None] - p[:, None, :]
            r2 = np.einsum("mli,mli->ml", v, v)
            cos = np.maximum(np.einsum("mli,mi->ml", v, np.broadcast_to(n, p.shape))
                             / np.sqrt(r2), 0)
            e = cos * ((1 - look.falloff) + look.falloff * h2 / r2)
        else:
            for lamp in self._lamps:
                v = lamp.astype(np.float32) - p
                r2 = np.einsum("...i,...i->...", v, v)
                cos = np.maximum(np.einsum("...i,...i->...", v, n) / np.sqrt(r2), 0)
                out.append(cos * ((1 - look.falloff) + look.falloff * h2 / r2))
            e = np.stack(out, -1)
        e = e / self._light_ref
        return e if per_lamp else e.sum(-1)

    def _brightness(self, p: np.ndarray, n: np.ndarray) -> np.ndarray:
        a = self.look.ambient
        return a + (1 - a) * self._irradiance(p, n)

    # -- background ------------------------------------------------------------------------------
    def _nap_texture(self) -> np.ndarray:
        """Cloth brightness factor on a 2 mm grid over the bed (rows along y): streaks along y."""
        t, look = self.table, self.look
        rng = np.random.default_rng(self.seed + 7919)
        h, w = int(t.length_mm / 2) + 80, int(t.width_mm / 2) + 80
        # streaks: noise smoothed along y on a grid 8x coarser in y, then stretched back
        coarse = cv2.GaussianBlur(rng.standard_normal((h // 8 + 1, w)).astype(np.float32),
                                  (0, 0), sigmaX=0.8, sigmaY=2.2)
        streaks = cv2.resize(coarse, (w, h), interpolation=cv2.INTER_CUBIC)
        coarse = cv2.GaussianBlur(rng.standard_normal((h // 16 + 1, w // 16 + 1)).astype(
            np.float32), (0, 0), 1.6)
        mottle = cv2.resize(coarse, (w, h), interpolation=cv2.INTER_CUBIC)
        streaks /= streaks.std() + 1e-9
        mottle /= mottle.std() + 1e-9
        wear = self.build.wear
        if not wear:
            return (1 + look.nap_strength * (0.75 * streaks + 0.5 * mottle)).astype(np.float32)
        # worn cloth: a flatter nap, paler along the table's middle (the lines of play) and
        # about the D, in patches
        nap = 1 + look.nap_strength * (1 - 0.6 * wear) * (0.75 * streaks + 0.5 * mottle)
        rng = np.random.default_rng([self.seed, 11])
        coarse = cv2.GaussianBlur(rng.standard_normal((h // 40 + 2, w // 40 + 2)).astype(
            np.float32), (0, 0), 1.0)
        patches = np.clip(cv2.resize(coarse, (w, h), interpolation=cv2.INTER_CUBIC), 0, None)
        x = (np.arange(w, dtype=np.float32) - 40) * 2
        y = (np.arange(h, dtype=np.float32)[:, None] - 40) * 2
        lanes = np.exp(-0.5 * ((x - t.centre_x_mm) / 450) ** 2) + np.exp(
            -0.5 * (((x - t.centre_x_mm) / 350) ** 2 + ((y - self._baulk_line_mm()) / 400) ** 2))
        return (nap * (1 + 0.14 * wear * lanes * (0.5 + patches))).astype(np.float32)

    def _baulk_line_mm(self) -> float:
        """y (mm) of the line the player breaks from, where the cloth wears."""
        return self.table.baulk_line_mm

    def _chalk_marks(self) -> np.ndarray | None:
        """(n, 4) chalk smudges (x mm, y mm, radius mm, opacity) on the bed, or None: most
        within 150 mm of a cushion, where players chalk and rest the cue, the rest anywhere."""
        n = self.build.chalk_marks
        if not n:
            return None
        t = self.table
        rng = np.random.default_rng([self.seed, 12])
        x = rng.uniform(10, t.width_mm - 10, n)
        y = rng.uniform(10, t.length_mm - 10, n)
        edge = rng.random(n) < 0.7
        side = rng.integers(0, 4, n)
        inset = rng.uniform(8, 150, n)
        x = np.where(edge & (side == 0), inset, np.where(edge & (side == 1), t.width_mm - inset, x))
        y = np.where(edge & (side == 2), inset, np.where(edge & (side == 3), t.length_mm - inset,
                                                         y))
        return np.c_[x, y, rng.uniform(2.0, 9.0, n), rng.uniform(0.2, 0.6, n)]

    def _chalk_over(self, q: np.ndarray, foot: np.ndarray, col: np.ndarray) -> np.ndarray:
        """Cloth colours ``col`` (M, 3) at table points ``q`` (M, 3) (pixel footprint ``foot``
        mm) with the chalk smudges over them, lit as the cloth is."""
        light = self._sample_nap(q[:, 0], q[:, 1], self._cloth_light)
        chalk = np.asarray(self.build.chalk_bgr, np.float32)
        for x, y, r, opacity in self._chalk:
            reach = r + foot
            near = np.flatnonzero((np.abs(q[:, 0] - x) < reach) & (np.abs(q[:, 1] - y) < reach))
            if not len(near):
                continue
            # soft-edged: denser in the middle, fading out to the rim
            dist = np.hypot(q[near, 0] - x, q[near, 1] - y)
            a = opacity * np.clip((r - dist) / np.maximum(foot[near], 0.5 * r) + 0.5, 0, 1)
            a = (a * (1 - 0.5 * dist / r).clip(0, 1)).astype(np.float32)[:, None]
            col[near] = col[near] * (1 - a) + chalk * light[near, None] * a
        return col

    def _bed_brightness(self) -> np.ndarray:
        """The lamps' light on the bed (normal up) on the nap's grid: smooth, so computed every
        16 mm and interpolated."""
        h, w = self._nap.shape
        gh, gw = h // 8 + 2, w // 8 + 2
        gx, gy = np.meshgrid(np.arange(gw) * 16.0 - 80, np.arange(gh) * 16.0 - 80)
        p = np.stack([gx, gy, np.zeros_like(gx)], -1).astype(np.float32)
        coarse = self._brightness(p, np.array([0, 0, 1.0], np.float32)).astype(np.float32)
        # texel (i, j) of the nap lies at coarse sample (i / 8, j / 8)
        mx = np.broadcast_to(np.arange(w, dtype=np.float32) / 8, (h, w))
        my = np.broadcast_to(np.arange(h, dtype=np.float32)[:, None] / 8, (h, w))
        return cv2.remap(coarse, np.ascontiguousarray(mx), np.ascontiguousarray(my),
                         cv2.INTER_LINEAR)

    def _trace(self, d: np.ndarray, strips: Sequence[_Strip]) -> tuple[np.ndarray, np.ndarray]:
        """First surface hit by rays ``d`` (..., 3) from the camera: (distance mm, surface id)."""
        o = self._origin
        dx, dy, dz = d[..., 0], d[..., 1], d[..., 2]
        with np.errstate(divide="ignore", invalid="ignore"):
            down = dz < -1e-9
            best = np.where(down, (self._floor_z - o[2]) / dz, np.inf).astype(np.float32)
            sid = np.zeros(dz.shape, np.int16)
            # cloth (and the pocket shelves / fall holes cut into it)
            tc = np.where(down, -o[2] / dz, np.inf).astype(np.float32)
            x, y = o[0] + tc * dx, o[1] + tc * dy
            t = self.table
            out = np.maximum(np.maximum(-x, x - t.width_mm), np.maximum(-y, y - t.length_mm))
            in_hull, in_disc = self._in_pockets(x, y)
            cloth = down & ((out <= self.build.undercut_mm) | in_hull) & (tc < best)
            best = np.where(cloth, tc, best)
            sid[cloth] = np.where(in_disc[cloth], _POCKET, _CLOTH)
            nseg = len(self._profile) - 1
            for st in strips:
                nx, ny = st.normal_xy
                dd = nx * dx + ny * dy
                do = nx * o[0] + ny * o[1] - st.offset
                ed, ez = st.d1 - st.d0, st.z1 - st.z0
                den = ez * dd - ed * dz
                th = (ed * (o[2] - st.z0) - ez * (do - st.d0)) / den
                hit = (th > 0) & (th < best)
                if not hit.any():
                    continue
                dh = do + th * dd
                zh = o[2] + th * dz
                sig = ((dh - st.d0) * ed + (zh - st.z0) * ez) / (ed * ed + ez * ez)
                hit &= (sig >= 0) & (sig <= 1)
                xh, yh = o[0] + th * dx, o[1] + th * dy
                along = xh if ny else yh
                hit &= (along >= st.s0 - 1e-3) & (along <= st.s1 + 1e-3)
                # the mitred corner: this side owns the points farther out along its normal
                others = [(-xh, 0), (xh - t.width_mm, 1), (-yh, 2), (yh - t.length_mm, 3)]
                for val, k in others:
                    if k != st.side:
                        hit &= dh >= val - 1e-4
                if st.near_pocket and hit.any():
                    hull, _ = self._in_pockets(xh, yh)
                    hit &= ~hull
                best = np.where(hit, th, best)
                sid[hit] = 3 + st.side * nseg + st.segment
            self._pocket_walls(d, best, sid, in_hull)
        return best, sid

    def _pocket_walls(self, d: np.ndarray, best: np.ndarray, sid: np.ndarray,
                      in_hull: np.ndarray) -> None:
        """Rays that reach the bed inside a pocket's cut may have entered it through the cut's
        wall (the jaws of the cushions, the lining through the rail): find the highest point
        along the ray inside solid table, and hit the wall there. Updates ``best`` and ``sid``."""
        cand = np.flatnonzero((in_hull & ((sid == _CLOTH) | (sid == _POCKET))).ravel())
        if not len(cand):
            return
        t = self.table
        o = self._origin
        dd = d.reshape(-1, 3)[cand].astype(np.float64)
        tb = best.ravel()[cand].astype(np.float64)
        prof = np.asarray(self._profile[1:-1])
        found = np.zeros(len(cand), bool)
        t_wall = tb.copy()
        zone = np.zeros(len(cand), np.int16)
        for z in np.linspace(prof[:, 1].max(), 1.0, 16):
            tz = (z - o[2]) / dd[:, 2]
            x, y = o[0] + tz * dd[:, 0], o[1] + tz * dd[:, 1]
            out = np.maximum(np.maximum(-x, x - t.width_mm), np.maximum(-y, y - t.length_mm))
            solid = (~found) & (out >= 0) & (out <= prof[-1, 0])
            solid &= z < np.interp(out, prof[:, 0], prof[:, 1])
            if solid.any():
                solid[solid] &= ~self._in_pockets(x[solid], y[solid])[0]
            t_wall[solid] = tz[solid]
            zone[solid] = np.where(out[solid] < t.cushion_depth_mm, self._jaw_id,
                                   self._lining_id)
            found |= solid
        flat_best, flat_sid = best.reshape(-1), sid.reshape(-1)
        flat_best[cand[found]] = t_wall[found]
        flat_sid[cand[found]] = zone[found]

    def _strip_bounds(self) -> list[tuple[float, float, float, float] | None]:
        """Per strip, its bounds in undistorted normalised camera coordinates, or None when part
        of it is behind the camera."""
        R, tv = self.camera.R, self.camera.t
        bounds = []
        for st in self._strips:
            sd = [(st.s0, st.d0), (st.s0, st.d1), (st.s1, st.d0), (st.s1, st.d1)]
            xy = self._strip_points(st.normal_xy, st.offset, sd)
            pts = np.c_[xy, [st.z0, st.z1, st.z0, st.z1]] @ R.T + tv
            if np.any(pts[:, 2] < 1.0):
                bounds.append(None)
                continue
            q = pts[:, :2] / pts[:, 2:3]
            bounds.append((q[:, 0].min(), q[:, 0].max(), q[:, 1].min(), q[:, 1].max()))
        return bounds

    def _build_background(self):
        """(colour (H, W, 3) float32, depth (H, W) float32 mm along the ray (inf over the
        pockets and the floor, where balls may drop), hit points (H, W, 3) float32 table mm)."""
        H, W = self.height_px, self.width_px
        rays = self._rays
        R = self.camera.R.astype(np.float32)
        depth = np.empty((H, W), np.float32)
        sid = np.empty((H, W), np.int16)
        bounds = self._strip_bounds()
        tile, step = 96, 8
        # each tile's extent in normalised camera coordinates, from every 8th ray (and the
        # next tile's first), widened by the gap between samples
        cam = rays[::step, ::step] @ R.T
        with np.errstate(divide="ignore", invalid="ignore"):
            qx, qy = cam[..., 0] / cam[..., 2], cam[..., 1] / cam[..., 2]
        behind = cam[..., 2] <= 0.05
        pad = 1.5 * step / float(min(self.camera.K[0, 0], self.camera.K[1, 1]))
        for y0 in range(0, H, tile):
            for x0 in range(0, W, tile):
                d = rays[y0:y0 + tile, x0:x0 + tile]
                win = (slice(y0 // step, (y0 + tile) // step + 1),
                       slice(x0 // step, (x0 + tile) // step + 1))
                if np.any(behind[win]):
                    strips = self._strips
                else:
                    lo_x, hi_x = qx[win].min() - pad, qx[win].max() + pad
                    lo_y, hi_y = qy[win].min() - pad, qy[win].max() + pad
                    strips = [s for s, b in zip(self._strips, bounds) if b is None or (
                        b[0] <= hi_x and b[1] >= lo_x and b[2] <= hi_y and b[3] >= lo_y)]
                depth[y0:y0 + tile, x0:x0 + tile], sid[y0:y0 + tile, x0:x0 + tile] = \
                    self._trace(d, strips)
        xyz = (self._origin.astype(np.float32)
               + np.where(np.isfinite(depth), depth, 1e7)[..., None] * rays).astype(np.float32)
        f = float(np.sqrt(self.camera.K[0, 0] * self.camera.K[1, 1]))
        colour = self._shade_surface(xyz, sid, rays, depth / f)

        # antialias the edges between surfaces: re-trace those pixels with 4 sub-pixel rays
        edge = np.zeros((H, W), bool)
        edge[:, 1:] |= sid[:, 1:] != sid[:, :-1]
        edge[1:, :] |= sid[1:, :] != sid[:-1, :]
        edge = cv2.dilate(edge.astype(np.uint8), np.ones((2, 2), np.uint8)).astype(bool)
        vv, uu = np.nonzero(edge)
        if len(vv):
            acc = np.zeros((len(vv), 3), np.float32)
            for du, dv in ((-0.125, -0.375), (0.375, -0.125), (0.125, 0.375), (-0.375, 0.125)):
                d = self._interp_rays(uu + du, vv + dv)
                t, s = self._trace(d, self._whole_strips)
                p = (self._origin + np.where(np.isfinite(t), t, 1e7)[:, None] * d).astype(
                    np.float32)
                acc += self._shade_surface(p, s, d, t / f / 2)
            colour[vv, uu] = acc / 4
        if self._tint is not None:
            colour *= self._tint
        if self.look.vignette:
            u = (np.arange(W) - (W - 1) / 2) / (W / 2)
            v = (np.arange(H) - (H - 1) / 2) / (W / 2)
            r2 = v[:, None] ** 2 + u[None, :] ** 2
            colour *= (1 - self.look.vignette * r2 / 1.3).astype(np.float32)[..., None]
        depth[(sid == _POCKET) | (sid == _FLOOR)] = np.inf
        return colour, depth, xyz

    def _interp_rays(self, u: np.ndarray, v: np.ndarray) -> np.ndarray:
        """(M, 3) unit rays at sub-pixel positions, bilinear between the pixel rays."""
        H, W = self.height_px, self.width_px
        u = np.clip(u, 0, W - 1.0001)
        v = np.clip(v, 0, H - 1.0001)
        u0, v0 = np.floor(u).astype(int), np.floor(v).astype(int)
        fu, fv = (u - u0)[:, None], (v - v0)[:, None]
        r = self._rays
        d = ((1 - fu) * (1 - fv) * r[v0, u0] + fu * (1 - fv) * r[v0, u0 + 1]
             + (1 - fu) * fv * r[v0 + 1, u0] + fu * fv * r[v0 + 1, u0 + 1])
        return d / np.linalg.norm(d, axis=-1, keepdims=True)

    def _sample_nap(self, x: np.ndarray, y: np.ndarray, texture: np.ndarray | None = None
                    ) -> np.ndarray:
        """Nap brightness factor (or another texture on the nap's grid) at table points ``x``,
        ``y`` (any equal shapes)."""
        flat_x, flat_y = x.ravel(), y.ravel()
        k = len(flat_x)
        cols = 1024
        rows = -(-k // cols)
        mx = np.zeros(rows * cols, np.float32)
        my = np.zeros(rows * cols, np.float32)
        mx[:k] = flat_x / 2 + 40
        my[:k] = flat_y / 2 + 40
        out = cv2.remap(self._nap if texture is None else texture, mx.reshape(rows, cols),
                        my.reshape(rows, cols),
                        cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
        return out.ravel()[:k].reshape(x.shape)

    def _shade_surface(self, p: np.ndarray, sid: np.ndarray, d: np.ndarray,
                       pixel_mm: np.ndarray) -> np.ndarray:
        """Colour (..., 3) float32 of background hits ``p`` (..., 3) with surface ids ``sid``;
        ``pixel_mm`` is the pixel's size across the ray at the hit (for the cloth markings)."""
        look, t = self.look, self.table
        shape = sid.shape
        p = p.reshape(-1, 3).astype(np.float32)
        sid = sid.ravel()
        out = np.empty((len(sid), 3), np.float32)
        nseg = len(self._profile) - 1
        seg = np.where(sid >= 3, (sid - 3) % nseg, -1)
        normals = self._surface_normals().astype(np.float32)
        cloth_bgr = np.asarray(look.cloth_bgr, np.float32)
        cushion_bgr = (cloth_bgr * look.cushion_shade if self.build.cushion_bgr is None
                       else np.asarray(self.build.cushion_bgr, np.float32))

        def lit(idx):
            return self._brightness(p[idx], normals[sid[idx]]).astype(np.float32)[:, None]

        idx = np.flatnonzero(sid == _CLOTH)
        if len(idx):
            q = p[idx]
            with np.errstate(invalid="ignore", divide="ignore"):
                foot = pixel_mm.ravel()[idx] / np.sqrt(
                    np.maximum(np.abs(d.reshape(-1, 3)[idx, 2]), 0.05))
            foot = np.maximum(np.nan_to_num(foot, nan=1.0, posinf=1.0), 0.05).astype(np.float32)
            a = look.line_alpha * self._marking_coverage(q[:, 0], q[:, 1], foot)
            col = cloth_bgr * self._sample_nap(q[:, 0], q[:, 1], self._cloth_light)[:, None]
            col = col * (1 - a[:, None]) + np.asarray(look.line_bgr, np.float32) * a[:, None]
            if self._chalk is not None:
                col = self._chalk_over(q, foot, col)
            # the pockets' shelves, beyond the cushion noses, lie in the jaws' shadow
            off_bed = np.maximum(np.maximum(-q[:, 0], q[:, 0] - t.width_mm),
                                 np.maximum(-q[:, 1], q[:, 1] - t.length_mm))
            col *= np.where(off_bed > 0, 0.35, 1.0).astype(np.float32)[:, None]
            out[idx] = col
        idx = np.flatnonzero((seg >= _FACE) & (seg <= _CUSHION_TOP))
        if len(idx):
            nap = self._sample_nap(p[idx, 0], p[idx, 1])[:, None]
            out[idx] = cushion_bgr * nap * lit(idx)
        idx = np.flatnonzero(seg >= _RAIL_BEVEL_IN)
        if len(idx):
            x, y, z = p[idx, 0], p[idx, 1], p[idx, 2]
            # wood grain along the rail, and the pocket plates on the rail around each pocket
            grain = 1 + 0.06 * np.sin(0.9 * (x + y) + 2.5 * np.sin(0.013 * (x - y)))
            wood = np.asarray(look.rail_bgr, np.float32) * grain[:, None]
            plate = np.zeros(len(idx), bool)
            for pk in self._pockets:
                plate |= np.hypot(x - pk["centre"][0], y - pk["centre"][1]) < pk["radius"] + 42
            top = seg[idx] < _TABLE_SIDE
            wood[plate & top] = look.plate_bgr
            wood[~top] *= np.where(z[~top] < -200, 0.45, 0.75)[:, None]
            out[idx] = wood * lit(idx)
        idx = np.flatnonzero(sid == _FLOOR)
        if len(idx):
            r = np.hypot(p[idx, 0] - t.centre_x_mm, p[idx, 1] - t.length_mm / 2)
            fade = np.clip(1.6 - r / 3000, 0.25, 1.0)[:, None]
            out[idx] = np.asarray(look.floor_bgr, np.float32) * fade
        idx = np.flatnonzero(sid == self._jaw_id)
        out[idx] = cushion_bgr * 0.8 * lit(idx)
        idx = np.flatnonzero(sid == self._lining_id)
        out[idx] = np.asarray(look.pocket_bgr, np.float32) * 2.5 * lit(idx)
        out[sid == _POCKET] = look.pocket_bgr
        return out.reshape(shape + (3,))

    def _marking_coverage(self, x: np.ndarray, y: np.ndarray, foot: np.ndarray) -> np.ndarray:
        """(M,) share of each cloth pixel (table points ``x``, ``y``; footprint ``foot`` mm)
        covered by the baulk line, the D and the spots."""
        t, look = self.table, self.look
        hw = look.line_width_mm / 2
        cov = np.zeros(len(x), np.float32)
        cx, b = t.centre_x_mm, t.baulk_line_mm

        def add(sel, delta, half):
            i = np.flatnonzero(sel)
            if len(i):
                cov[i] = np.maximum(cov[i], _box_coverage(delta(i), half, foot[i]))

        reach = hw + foot
        add((np.abs(y - b) < reach) & (x >= 0) & (x <= t.width_mm), lambda i: y[i] - b, hw)
        add((y <= b) & (np.abs(x - cx) < t.d_radius_mm + reach) & (y > b - t.d_radius_mm - reach),
            lambda i: np.hypot(x[i] - cx, y[i] - b) - t.d_radius_mm, hw)
        for sx, sy in t.spots_mm.values():
            near = look.spot_radius_mm + foot
            add((np.abs(x - sx) < near) & (np.abs(y - sy) < near),
                lambda i, sx=sx, sy=sy: np.hypot(x[i] - sx, y[i] - sy), look.spot_radius_mm)
        return cov

    # -- per frame -------------------------------------------------------------------------------
    def _window_rays(self, x0: int, x1: int, y0: int, y1: int) -> np.ndarray:
        """(y1 - y0, x1 - x0, 3) float64 unit rays of a pixel window that may reach past the
        image."""
        if x0 >= 0 and y0 >= 0 and x1 <= self.width_px and y1 <= self.height_px:
            d = self._rays[y0:y1, x0:x1].astype(np.float64)
            # unit length to float64 precision: the ray-sphere distances below rely on it
            return d / np.linalg.norm(d, axis=-1, keepdims=True)
        u, v = np.meshgrid(np.arange(x0, x1, dtype=np.float64), np.arange(y0, y1,
                                                                         dtype=np.float64))
        return self.camera.rays(np.c_[u.ravel(), v.ravel()]).reshape(y1 - y0, x1 - x0, 3)

    def _sphere_window(self, centres: np.ndarray, radius: float, margin: int = 2):
        """Pixel window (x0, x1, y0, y1) holding the silhouettes of spheres at ``centres``
        (S, 3), or None when a sphere is behind the camera or the window misses the image."""
        cam = self.camera.to_camera(centres)
        if np.any(cam[:, 2] < radius + 1):
            return None
        pts = np.concatenate([sphere_silhouette_px(self.camera, c, radius, 16) for c in centres])
        # the 16-gon is inscribed in the outline: widen by its worst gap
        span = pts.max(0) - pts.min(0)
        pad = margin + 0.03 * span.max()
        x0, y0 = np.floor(pts.min(0) - pad).astype(int)
        x1, y1 = np.ceil(pts.max(0) + pad).astype(int) + 1
        if x1 <= 0 or y1 <= 0 or x0 >= self.width_px or y0 >= self.height_px:
            return None
        return x0, x1, y0, y1

    def _ball_layer(self, cls: str, centres: np.ndarray):
        """One ball averaged over its sub-samples ``centres`` (S, 3).

        Returns None if it is out of view, else a dict with the image window ``win`` (x0, x1,
        y0, y1) clipped to the image, ``alpha`` (h, w) coverage not hidden by the table,
        ``premult`` (h, w, 3) alpha-weighted colour, ``depth`` (h, w) nearest ray distance (mm;
        inf off the ball) and ``area`` the silhouette's full coverage sum, including parts
        outside the image or behind the cushions."""
        r = self.table.ball_radius_mm
        win = self._sphere_window(centres, r)
        if win is None:
            return None
        x0, x1, y0, y1 = win
        d = self._window_rays(x0, x1, y0, y1)
        inside = x0 >= 0 and y0 >= 0 and x1 <= self.width_px and y1 <= self.height_px
        ang = (self._pixel_angle[y0:y1, x0:x1].astype(np.float64) if inside
               else _angular_pixel_size(d))
        cx0, cx1 = max(x0, 0), min(x1, self.width_px)
        cy0, cy1 = max(y0, 0), min(y1, self.height_px)
        inner = (slice(cy0 - y0, cy1 - y0), slice(cx0 - x0, cx1 - x0))
        bg_depth = self._bg_depth[cy0:cy1, cx0:cx1]
        albedo = np.asarray(self.ball_colours[cls], np.float64)
        o = self._origin
        h, w = cy1 - cy0, cx1 - cx0
        alpha = np.zeros((h, w))
        premult = np.zeros((h, w, 3))
        depth = np.full((h, w), np.inf)
        area = 0.0
        d_in, ang_in = d[inner].reshape(-1, 3), ang[inner].ravel()
        alpha_f, premult_f, depth_f = alpha.reshape(-1), premult.reshape(-1, 3), depth.reshape(-1)
        bg_f = bg_depth.ravel()
        for k, c in enumerate(centres):
            oc = o - c
            if (x0, x1, y0, y1) != (cx0, cx1, cy0, cy1):
                # the silhouette's full area, including what falls outside the image
                b = d @ oc
                m = np.sqrt(np.maximum(oc @ oc - b * b, 0.0))
                area += np.clip(0.5 + (r - m) / (np.maximum(-b, 1e-6) * ang), 0.0, 1.0).sum()
            b = d_in @ oc
            m = np.sqrt(np.maximum(oc @ oc - b * b, 0.0))  # ray's distance from the centre
            along = np.maximum(-b, 1e-6)
            cov = np.clip(0.5 + (r - m) / (along * ang_in), 0.0, 1.0)
            if (x0, x1, y0, y1) == (cx0, cx1, cy0, cy1):
                area += cov.sum()
            on = np.flatnonzero(cov > 0)
            if not len(on):
                continue
            dd, mm, cv = d_in[on], m[on], cov[on]
            # the nearer intersection, or for rays that just miss, the silhouette point
            t = along[on] - np.sqrt(np.maximum(r * r - mm * mm, 0.0))
            p = o + t[:, None] * dd
            n = p - c
            n /= np.maximum(np.linalg.norm(n, axis=-1, keepdims=True), 1e-9)
            cv = cv * (t < bg_f[on])  # the cushions in front hide it
            face = self._ball_face(cls, k, n, albedo)
            col = self._shade_ball(face, p, n, dd) if self.look.shading else face
            alpha_f[on] += cv
            premult_f[on] += cv[:, None] * col
            depth_f[on] = np.minimum(depth_f[on], np.where((mm < r) | (cv > 0.5), t, np.inf))
        s = len(centres)
        return {"win": (cx0, cx1, cy0, cy1), "alpha": (alpha / s).astype(np.float32),
                "premult": (premult / s).astype(np.float32), "depth": depth, "area": area / s}

    def _ball_face(self, cls: str, sample: int, n: np.ndarray, albedo: np.ndarray) -> np.ndarray:
        """Albedo (3,) or (M, 3) of ball ``cls`` at the points with unit normals ``n`` (M, 3)
        at its sub-sample ``sample``: one colour all round here."""
        return albedo

    def _shade_ball(self, albedo: np.ndarray, p: np.ndarray, n: np.ndarray,
                    d: np.ndarray) -> np.ndarray:
        """(M, 3) colour of ball surface points ``p`` (M, 3) with unit normals ``n`` (M, 3),
        seen along rays ``d`` (M, 3)."""
        look = self.look
        a = look.ambient
        # the lower half also catches the light bounced off the cloth
        bounce = 0.25 * np.clip(-n[..., 2], 0, 1)
        diffuse = a * (0.75 + 0.25 * n[..., 2]) + (1 - a) * self._irradiance(p, n) + bounce * a
        col = albedo * (look.ball_exposure * diffuse)[..., None]
        v = -d
        ndv = np.clip(np.einsum("...i,...i->...", n, v), 0, 1)
        fresnel = 0.04 + 0.96 * (1 - ndv) ** 5
        refl = 2 * ndv[..., None] * n - v
        env = np.where((refl[..., 2] < 0)[..., None],
                       np.asarray(look.cloth_bgr, np.float64) * 0.8, 40.0)
        col = col * (1 - fresnel[..., None]) + env * fresnel[..., None]
        # the lamps hang in a canopy: its reflection is the ball's highlight, brightest where
        # the reflected ray meets the canopy's middle
        (cx, cy, sx, sy), zc = self._canopy
        with np.errstate(divide="ignore", invalid="ignore"):
            k = (zc - p[..., 2]) / refl[..., 2]
            ex = (p[..., 0] + k * refl[..., 0] - cx) / sx
            ey = (p[..., 1] + k * refl[..., 1] - cy) / sy
            glow = np.exp(-0.5 * (ex * ex + ey * ey))
        spec = np.where(refl[..., 2] > 0.05, np.nan_to_num(glow), 0.0)
        gloss = look.ball_gloss
        if self.build.ball_wear:
            # a worn ball: blotchy, duller, its highlight weaker
            w = self.build.ball_wear
            blotch = np.sin(23 * n[..., 0] + 7 * np.sin(19 * n[..., 1])) * np.sin(
                17 * n[..., 2] + 11 * n[..., 1])
            col = col * (1 - 0.15 * w * (0.5 + 0.5 * blotch))[..., None]
            gloss = gloss * (1 - 0.6 * w)
        col = col + (gloss * 420 * spec)[..., None]
        return col if self._tint is None else col * self._tint

    def _shadow_factor(self, centres: np.ndarray):
        """Darkening of the background by one ball (S, 3): (window, factor (h, w)) or None.

        Each lamp's shadow is the sphere's shadow along the lamp's direction from the ball
        (constant over the window: the lamps are far compared with a ball), softened by the
        lamp's size; the contact shadow is the sphere's ambient occlusion of the surface."""
        look, r = self.look, self.table.ball_radius_mm
        c = centres.mean(0)
        lamps = self._lamps
        foot = np.array([c[0], c[1], 0.0])
        to_lamp = lamps - foot
        lamp_dist = np.linalg.norm(to_lamp, axis=1)
        u_lamp = to_lamp / lamp_dist[:, None]
        share = self._irradiance(foot[None], np.array([[0, 0, 1.0]]), per_lamp=True)[0]
        share = share / max(share.sum(), 1e-9)
        # shadows reach out along each lamp's direction by the ball's height over the lamp's
        # elevation; the contact shadow is negligible beyond ~3 radii
        reach = 2.6 * r + np.max(c[2] * np.linalg.norm(u_lamp[:, :2], axis=1)
                                 / np.maximum(u_lamp[:, 2], 0.2))
        spread = np.ptp(centres[:, :2], axis=0) / 2
        ring = np.array([[sx, sy] for sx in (-1, 0, 1) for sy in (-1, 0, 1)], float)
        pts = np.c_[c[:2] + ring * (reach + spread), np.zeros(len(ring))]
        pts = np.vstack([pts, pts + [0, 0, self._nose]])
        if np.any(self.camera.to_camera(pts)[:, 2] < 1):
            return None
        px = self.camera.project(pts)
        x0, y0 = np.maximum(np.floor(px.min(0)).astype(int) - 2, 0)
        x1 = min(int(np.ceil(px[:, 0].max())) + 3, self.width_px)
        y1 = min(int(np.ceil(px[:, 1].max())) + 3, self.height_px)
        if x1 <= x0 or y1 <= y0:
            return None
        # the shadow is smooth: compute it on every other pixel and interpolate
        step = 2 if min(x1 - x0, y1 - y0) > 24 else 1
        p = self._bg_xyz[y0:y1:step, x0:x1:step]
        dark = np.zeros(p.shape[:2], np.float32)
        # a blurred shadow is soft: a few of the sub-samples are enough
        samples = centres[np.unique(np.linspace(0, len(centres) - 1, min(len(centres), 4))
                                    .round().astype(int))]
        u32 = u_lamp.T.astype(np.float32)  # (3, lamps)
        soft = (look.lamp_radius_mm / lamp_dist).astype(np.float32)
        weight = ((1 - look.ambient) * share).astype(np.float32)
        for cc in samples.astype(np.float32):
            v = cc - p
            v2 = np.einsum("...i,...i->...", v, v)
            ao = np.clip(v[..., 2] / np.sqrt(v2), 0, 1) * (r * r / np.maximum(v2, r * r))
            # each lamp: how much of it the ball hides, from the ray's closest approach to the
            # centre (m) against the ball's radius, over a penumbra growing with the distance s
            s_ = v @ u32
            m = np.sqrt(np.maximum(v2[..., None] - s_ * s_, 0))
            occ = np.clip(0.5 + (r - m) / np.maximum(2 * s_ * soft, 0.6), 0, 1) * (s_ > 0)
            dark += look.ambient * 1.6 * ao + occ @ weight
        factor = 1 - look.shadow_strength * np.clip(dark / len(samples), 0, 1)
        if step > 1:
            factor = cv2.resize(factor, (x1 - x0, y1 - y0), interpolation=cv2.INTER_LINEAR)
        factor[~np.isfinite(self._bg_depth[y0:y1, x0:x1])] = 1.0
        return (x0, x1, y0, y1), factor

    def _capsule_shadow(self, cap: Capsule):
        """Darkening of the background by a capsule's shadows from the lamps: (window,
        factor (h, w)) or None. The shadows of limbs and cues are wide and soft, so they are
        computed on every fourth pixel and interpolated."""
        look = self.look
        a = np.asarray(cap.a_mm, float)
        b = np.asarray(cap.b_mm, float)
        mid = (a + b) / 2
        if mid[2] <= 0:
            return None
        foot = np.array([mid[0], mid[1], 0.0])
        to_lamp = self._lamps - foot
        lamp_dist = np.linalg.norm(to_lamp, axis=1)
        u_lamp = to_lamp / lamp_dist[:, None]
        share = self._irradiance(foot[None], np.array([[0, 0, 1.0]]), per_lamp=True)[0]
        share = share / max(share.sum(), 1e-9)
        rmax = max(cap.radius_a_mm, cap.radius_b_mm)
        ends = np.array([a, b])
        pts = [ends[:, :2] - (ends[:, 2:3] / u[2]) * u[:2] for u in u_lamp if u[2] > 0.2]
        if not pts:
            return None
        pts = np.concatenate(pts)
        pad = 2 * rmax + max(a[2], b[2]) * look.lamp_radius_mm / lamp_dist.min()
        lo, hi = pts.min(0) - pad, pts.max(0) + pad
        corners = np.array([(x, y, z) for x in (lo[0], hi[0]) for y in (lo[1], hi[1])
                            for z in (0.0, self._nose)])
        if np.any(self.camera.to_camera(corners)[:, 2] < 1):
            return None
        px = self.camera.project(corners)
        x0, y0 = np.maximum(np.floor(px.min(0)).astype(int) - 2, 0)
        x1 = min(int(np.ceil(px[:, 0].max())) + 3, self.width_px)
        y1 = min(int(np.ceil(px[:, 1].max())) + 3, self.height_px)
        if x1 - x0 < 2 or y1 - y0 < 2:
            return None
        step = 4
        # float32 about the capsule's middle keeps the numbers small
        p = self._bg_xyz[y0:y1:step, x0:x1:step] - mid.astype(np.float32)
        v = (b - a).astype(np.float32)
        C = float(v @ v)
        w0 = p - (a - mid).astype(np.float32)
        E = w0 @ v
        u_lamp = u_lamp.astype(np.float32)
        dark = np.zeros(p.shape[:2], np.float32)
        for k, u in enumerate(u_lamp):
            B = float(u @ v)
            D = w0 @ u
            h = np.clip((E - B * D) / max(C - B * B, 1e-6), 0, 1)
            s_ = h * B - D
            gap = w0 + s_[..., None] * u - h[..., None] * v
            m = np.sqrt(np.einsum("hwi,hwi->hw", gap, gap))
            rad = cap.radius_a_mm + h * (cap.radius_b_mm - cap.radius_a_mm)
            pen = np.maximum(s_ * look.lamp_radius_mm / lamp_dist[k], 0.5)
            dark += share[k] * np.clip(0.5 + (rad - m) / (2 * pen), 0, 1) * (s_ > 0)
        factor = (1 - look.shadow_strength * (1 - look.ambient) * np.clip(dark, 0, 1)).astype(
            np.float32)
        factor = cv2.resize(factor, (x1 - x0, y1 - y0), interpolation=cv2.INTER_LINEAR)
        factor[~np.isfinite(self._bg_depth[y0:y1, x0:x1])] = 1.0
        return (x0, x1, y0, y1), factor

    def _capsule_layer(self, cap: Capsule, depth_buf: np.ndarray):
        """(window, alpha (h, w), colour (h, w, 3), depth (h, w)) of a capsule, alpha already
        depth-tested against ``depth_buf``; None when out of view."""
        a = np.asarray(cap.a_mm, float)
        b = np.asarray(cap.b_mm, float)
        hs = np.linspace(0, 1, 9)[:, None]
        centres = a + hs * (b - a)
        radii = cap.radius_a_mm + hs[:, 0] * (cap.radius_b_mm - cap.radius_a_mm)
        cam = self.camera.to_camera(centres)
        if np.any(cam[:, 2] < radii + 1):
            return None
        R = self.camera.R
        pts = np.concatenate([centres + radii[:, None] * s * R[k] for k in (0, 1)
                              for s in (-1.15, 1.15)])
        px = self.camera.project(pts)
        x0, y0 = np.maximum(np.floor(px.min(0)).astype(int) - 3, 0)
        x1 = min(int(np.ceil(px[:, 0].max())) + 4, self.width_px)
        y1 = min(int(np.ceil(px[:, 1].max())) + 4, self.height_px)
        if x1 <= x0 or y1 <= y0:
            return None
        d = self._rays[y0:y1, x0:x1]
        ang = self._pixel_angle[y0:y1, x0:x1]
        # closest approach of each ray to the axis, in float32 about the capsule's middle so
        # that the numbers stay small
        mid = (a + b) / 2
        o = (self._origin - mid).astype(np.float32)
        a32, v = (a - mid).astype(np.float32), (b - a).astype(np.float32)
        w0 = o - a32
        B = d @ v
        C = float(v @ v)
        D = d @ w0
        E = float(v @ w0)
        hh = np.clip((E - B * D) / np.maximum(C - B * B, 1e-6), 0, 1)
        t_ax = hh * B - D
        gap = w0 + t_ax[..., None] * d - hh[..., None] * v
        m = np.sqrt(np.einsum("hwi,hwi->hw", gap, gap))
        rad = cap.radius_a_mm + hh * (cap.radius_b_mm - cap.radius_a_mm)
        cov = np.clip(0.5 + (rad - m) / (np.maximum(t_ax, 1) * ang), 0, 1)
        t = t_ax - np.sqrt(np.maximum(rad * rad - m * m, 0))
        alpha = cov * (t < depth_buf[y0:y1, x0:x1]) * (t > 0)
        colour = np.zeros(d.shape, np.float32)
        on = np.flatnonzero(alpha.ravel() > 0)
        if len(on):
            look = self.look
            col = np.broadcast_to(np.asarray(cap.bgr, np.float32), (len(on), 3))
            if look.shading:
                dd = d.reshape(-1, 3)[on]
                p = self._origin.astype(np.float32) + t.ravel()[on, None] * dd
                n = gap.reshape(-1, 3)[on] - np.sqrt(np.maximum(
                    rad.ravel()[on] ** 2 - m.ravel()[on] ** 2, 0))[:, None] * dd
                n /= np.maximum(np.linalg.norm(n, axis=1, keepdims=True), 1e-6)
                shade = (look.ambient * (0.7 + 0.3 * n[:, 2])
                         + (1 - look.ambient) * self._irradiance(p, n))
                col = col * shade[:, None]
            if self._tint is not None:
                col = col * self._tint
            colour.reshape(-1, 3)[on] = col
        return (x0, x1, y0, y1), alpha, colour, np.where(cov > 0.5, t, np.inf)

    def _cached(self, kind: str, cls: str, centres: np.ndarray, make):
        """``make(centres)``, remembered for balls at rest (all sub-samples equal)."""
        if len(centres) > 1 and np.ptp(centres, axis=0).max() > 0:
            return make(centres)
        key = (kind, cls, centres[0].tobytes())
        if key not in self._cache:
            if len(self._cache) >= 256:
                self._cache.pop(next(iter(self._cache)))
            self._cache[key] = make(centres[:1])
        return self._cache[key]

    def expose(self, image: np.ndarray, frame_index: int, gain: float = 1.0,
               noise: bool = True) -> np.ndarray:
        """A noise-free float32 rendering (H, W, 3) as the camera gives it: times ``gain``,
        with frame ``frame_index``'s sensor noise (``look.noise_sigma``; none without
        ``noise``), as uint8."""
        sigma = self.look.noise_sigma if noise else 0.0
        if sigma > 0:
            return cv2.addWeighted(image, float(gain), self._noise(frame_index), float(sigma),
                                   0.0, dtype=cv2.CV_8U)
        return cv2.addWeighted(image, float(gain), image, 0.0, 0.0, dtype=cv2.CV_8U)

    def _noise(self, frame_index: int) -> np.ndarray:
        """(H, W, 3) float32 unit Gaussian noise, deterministic by seed and frame index: a
        window of a larger noise field at an offset drawn per frame."""
        pad = 127
        if self._noise_bank is None:
            rng = np.random.default_rng([self.seed, 1])
            self._noise_bank = rng.standard_normal(
                (self.height_px + pad, self.width_px + pad, 3), dtype=np.float32)
        rng = np.random.default_rng([self.seed, 2, int(frame_index)])
        oy, ox = rng.integers(0, pad, size=2)
        return self._noise_bank[oy:oy + self.height_px, ox:ox + self.width_px]

    def graphics_box(self) -> tuple[int, int, int, int]:
        """(x0, x1, y0, y1) pixel box of the broadcast scoreboard strip."""
        W, H = self.width_px, self.height_px
        return int(0.2 * W), int(0.8 * W), int(0.865 * H), int(0.925 * H)

    def background(self) -> np.ndarray:
        """The empty table: (H, W, 3) uint8, no noise."""
        return np.clip(np.rint(self._background), 0, 255).astype(np.uint8)

    def render(self, classes: Sequence[str], pos_mm: np.ndarray, visible: np.ndarray | None = None,
               occluders: Sequence[Capsule] = (), gain: float = 1.0, noise: bool = True,
               graphics: str | None = None, frame_index: int = 0) -> tuple[np.ndarray, np.ndarray]:
        """One frame.

        classes: N ball classes (keys of ``ball_colours``); pos_mm: (S, N, 3) ball centres
        (table mm) at S instants spread over the exposure, or (N, 3) for a still; visible: (N,)
        bool, the balls to draw (False for potted/off-table balls); occluders: capsules above
        the table; gain: lamp brightness multiplier; noise: add sensor noise; graphics:
        scoreboard text or None.

        Returns (frame (H, W, 3) BGR uint8, visible_fraction (N,) float: the share of each
        ball's silhouette not hidden by occluders, the graphics strip, the image border or the
        cushions (other balls do not count); 0 for balls not drawn).

        The frame depends only on the arguments and the renderer's seed (sensor noise is drawn
        by ``frame_index``); a renderer keeps buffers between calls, so use one per thread.
        """
        pos = np.asarray(pos_mm, dtype=np.float64)
        if pos.ndim == 2:
            pos = pos[None]
        n = len(classes)
        if pos.ndim != 3 or pos.shape[1:] != (n, 3) or len(pos) == 0:
            raise ValueError(f"pos_mm must have shape (S, {n}, 3) or ({n}, 3), got {pos.shape}")
        for c in classes:
            if c not in self.ball_colours:
                raise ValueError(f"unknown ball class {c!r}; expected one of "
                                 f"{tuple(self.ball_colours)}")
        vis = np.ones(n, bool) if visible is None else np.asarray(visible, bool)
        if vis.shape != (n,):
            raise ValueError(f"visible must have shape ({n},), got {vis.shape}")
        vis = vis & np.all(np.isfinite(pos), axis=(0, 2))

        # the frame is drawn over a persistent copy of the background: undo the last frame's
        # drawing window by window rather than copying the whole background
        work = self._work
        for x0, x1, y0, y1 in self._dirty:
            work[y0:y1, x0:x1] = self._background[y0:y1, x0:x1]
        self._dirty = dirty = []
        drawn = np.flatnonzero(vis)
        if self.look.shadows:
            for i in drawn:
                sh = self._cached("shadow", "", pos[:, i], self._shadow_factor)
                if sh is not None:
                    (x0, x1, y0, y1), factor = sh
                    work[y0:y1, x0:x1] *= factor[..., None].astype(np.float32)
                    dirty.append((x0, x1, y0, y1))

            for cap in occluders:
                sh = self._capsule_shadow(cap)
                if sh is not None:
                    (x0, x1, y0, y1), factor = sh
                    work[y0:y1, x0:x1] *= factor[..., None]
                    dirty.append((x0, x1, y0, y1))

        dist = np.linalg.norm(pos.mean(0) - self._origin, axis=1)
        layers: dict[int, dict] = {}
        for i in sorted(drawn, key=lambda k: -dist[k]):
            layer = self._cached("ball", classes[i], pos[:, i],
                                 lambda c, cls=classes[i]: self._ball_layer(cls, c))
            if layer is None:
                continue
            layers[i] = layer
            x0, x1, y0, y1 = layer["win"]
            if x1 <= x0 or y1 <= y0:
                continue
            region = work[y0:y1, x0:x1]
            dirty.append((x0, x1, y0, y1))
            region *= (1 - layer["alpha"])[..., None]
            region += layer["premult"]

        cap_alpha = cap_depth = None
        if occluders:
            depth_buf = self._bg_depth.copy()
            for layer in layers.values():
                x0, x1, y0, y1 = layer["win"]
                np.minimum(depth_buf[y0:y1, x0:x1], layer["depth"], out=depth_buf[y0:y1, x0:x1])
            cap_alpha = np.zeros(depth_buf.shape, np.float32)
            cap_depth = np.full(depth_buf.shape, np.inf, np.float32)
            caps = sorted(occluders, key=lambda c: -np.linalg.norm(
                (np.add(c.a_mm, c.b_mm) / 2) - self._origin))
            for cap in caps:
                cl = self._capsule_layer(cap, depth_buf)
                if cl is None:
                    continue
                (x0, x1, y0, y1), alpha, colour, cdepth = cl
                region = work[y0:y1, x0:x1]
                dirty.append((x0, x1, y0, y1))
                region *= (1 - alpha)[..., None].astype(np.float32)
                region += (alpha[..., None] * colour).astype(np.float32)
                np.minimum(depth_buf[y0:y1, x0:x1], cdepth, out=depth_buf[y0:y1, x0:x1])
                ca = cap_alpha[y0:y1, x0:x1]
                cap_alpha[y0:y1, x0:x1] = 1 - (1 - ca) * (1 - alpha)
                np.minimum(cap_depth[y0:y1, x0:x1], np.where(alpha > 0, cdepth, np.inf),
                           out=cap_depth[y0:y1, x0:x1])

        gbox = self.graphics_box() if graphics is not None else None
        fraction = np.zeros(n)
        for i, layer in layers.items():
            x0, x1, y0, y1 = layer["win"]
            seen = layer["alpha"].copy()
            if cap_alpha is not None and x1 > x0 and y1 > y0:
                in_front = cap_depth[y0:y1, x0:x1] < np.where(
                    np.isfinite(layer["depth"]), layer["depth"], 1e9)
                seen *= 1 - cap_alpha[y0:y1, x0:x1] * in_front
            if gbox is not None:
                gx0, gx1, gy0, gy1 = gbox
                ys = slice(max(gy0 - y0, 0), max(min(gy1, y1) - y0, 0))
                xs = slice(max(gx0 - x0, 0), max(min(gx1, x1) - x0, 0))
                seen[ys, xs] = 0
            fraction[i] = float(np.clip(seen.sum() / max(layer["area"], 1e-9), 0, 1))

        frame = self.expose(work, frame_index, gain, noise)
        if gbox is not None:
            self._draw_graphics(frame, graphics, gbox)
        return frame, fraction

    @staticmethod
    def _draw_graphics(frame: np.ndarray, text: str, box: tuple[int, int, int, int]) -> None:
        """A dark translucent scoreboard strip with ``text``, drawn in place."""
        x0, x1, y0, y1 = box
        region = frame[y0:y1, x0:x1].astype(np.float32)
        region = region * 0.25 + np.array([38, 22, 18], np.float32) * 0.75
        frame[y0:y1, x0:x1] = region.astype(np.uint8)
        cv2.rectangle(frame, (x0, y0), (x1 - 1, y0 + max(1, (y1 - y0) // 14)), (40, 200, 240), -1)
        font = cv2.FONT_HERSHEY_DUPLEX
        height = y1 - y0
        scale = cv2.getFontScaleFromHeight(font, int(height * 0.5), 1)
        thick = max(1, int(round(height / 28)))
        (tw, th), _ = cv2.getTextSize(text, font, scale, thick)
        if tw > (x1 - x0) * 0.95:
            scale *= (x1 - x0) * 0.95 / tw
            (tw, th), _ = cv2.getTextSize(text, font, scale, thick)
        org = (x0 + (x1 - x0 - tw) // 2, y0 + (height + th) // 2)
        cv2.putText(frame, text, org, font, scale, (240, 240, 240), thick, cv2.LINE_AA)
