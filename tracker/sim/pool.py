"""Pool in the simulator: racks, ball sets with their faces, and the renderer of a pool table.

Balls are ``cue`` and ``"1"`` .. ``"15"`` (their class is their id); each carries an
orientation (``BallSet.orient``), so a stripe's band and a number turn as the ball rolls. A
ball's face is drawn in its own frame: a stripe is a band of colour about its equator
(|z| < ``BallPalette.band_half``), the number sits in a white disc on both ends of its x axis
(on the band for a stripe), a dotted cue ball carries red dots on its three axes.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

import cv2
import numpy as np

from calibration.camera import Camera
from calibration.specs import POOL_9FT, PoolTableSpec, pool_kind
from tracker.sim.model import BallSet, BallState, quat_matrix, random_orientations
from tracker.sim.physics import PhysicsParams
from tracker.sim.render import _RAIL_TOP, Build, Capsule, Look, Renderer

GAMES = ("8ball", "9ball", "10ball", "14.1")
# The balls of each game's rack, the cue ball first.
GAME_BALLS = {"8ball": 15, "14.1": 15, "9ball": 9, "10ball": 10}
# WPA equipment: balls of 5.5 - 6 oz; only the energies use the mass.
POOL_PHYSICS = PhysicsParams(mass_kg=0.163)

# Cloth shades (BGR under full light) of pool cloths.
POOL_CLOTHS = {"blue": (150, 88, 20), "green": (40, 140, 20), "red": (35, 30, 150),
               "grey": (110, 112, 108), "tan": (90, 150, 185)}


# -- racks --------------------------------------------------------------------------------------
def rack_order(table: PoolTableSpec, game: str, rng: np.random.Generator | None = None
               ) -> dict[str, tuple[float, float]]:
    """The rack of ``game`` (``table.rack_mm``) with the balls the rules leave free shuffled by
    ``rng`` (None: the spec's order). 8-ball: the 8 in the middle, a solid and a stripe at the
    back corners; 9-ball: the 1 at the apex, the 9 in the middle; 10-ball: the 1 at the apex,
    the 10 in the middle of the third row; 14.1 as 8-ball's triangle, every ball free but the
    apex's 1 (the order does not matter there)."""
    if game not in GAMES:
        raise ValueError(f"no pool game {game!r}; choose from {', '.join(GAMES)}")
    spots = table.rack_mm(game)
    if rng is None:
        return spots
    fixed = {"8ball": ("8",), "9ball": ("1", "9"), "10ball": ("1", "10"), "14.1": ("1",)}[game]
    free = [b for b in spots if b not in fixed]
    if game == "8ball":
        # a solid and a stripe at the two back corners, either way round
        back = max(y for _, y in spots.values())
        corners = sorted((b for b, (_, y) in spots.items() if abs(y - back) < 1e-6),
                         key=lambda b: spots[b][0])
        left, right = corners[0], corners[-1]
        solid = str(rng.choice([b for b in free if pool_kind(b) == "solid"]))
        stripe = str(rng.choice([b for b in free if pool_kind(b) == "stripe"]))
        pair = (solid, stripe) if rng.random() < 0.5 else (stripe, solid)
        out = {"8": spots["8"], pair[0]: spots[left], pair[1]: spots[right]}
        places = [b for b in spots if b not in ("8", left, right)]
        balls = rng.permutation([b for b in free if b not in pair])
        out.update({str(ball): spots[place] for place, ball in zip(places, balls)})
        return out
    order = list(rng.permutation(free))
    out = {b: spots[b] for b in fixed}
    for place, ball in zip(free, order):
        out[str(ball)] = spots[place]
    return out


def kitchen_spot(table: PoolTableSpec, rng: np.random.Generator | None = None
                 ) -> tuple[float, float]:
    """A place for the cue ball behind the head string (the kitchen), as a breaker picks:
    off the centre line, a few ball widths behind the string."""
    if rng is None:
        return (table.width_mm * 0.35, table.head_string_mm - 3 * table.ball_diameter_mm)
    x = table.width_mm * float(rng.uniform(0.2, 0.8))
    y = table.head_string_mm - table.ball_diameter_mm * float(rng.uniform(1.0, 5.0))
    return (x, y)


def pool_rack(table: PoolTableSpec = POOL_9FT, game: str = "8ball",
              rng: np.random.Generator | None = None,
              cue_mm: tuple[float, float] | None = None) -> BallSet:
    """A BallSet at the start of a rack: the object balls of ``game`` racked tight
    (``rack_order``), each turned at random when ``rng`` is given, and the cue ball at
    ``cue_mm`` (default ``kitchen_spot``)."""
    spots = rack_order(table, game, rng)
    r = table.ball_radius_mm
    cue = kitchen_spot(table, rng) if cue_mm is None else cue_mm
    ids = ["cue"] + sorted(spots, key=int)
    pos = np.array([(*cue, r)] + [(*spots[b], r) for b in ids[1:]], float)
    orient = None if rng is None else random_orientations(rng, len(ids))
    return BallSet(ids, list(ids), pos, orient=orient)


def pool_layout(table: PoolTableSpec, balls: dict[str, Sequence[float]],
                rng: np.random.Generator | None = None) -> BallSet:
    """A BallSet at rest with ``balls`` {id: (x, y)} (``"cue"`` None: in hand, off the table),
    in id order, turned at random when ``rng`` is given."""
    r = table.ball_radius_mm
    ids = sorted(balls, key=lambda b: -1 if b == "cue" else int(b))
    pos, state = [], []
    for b in ids:
        if balls[b] is None:
            pos.append((table.centre_x_mm, -400.0, r))
            state.append(BallState.IN_HAND)
        else:
            pos.append((balls[b][0], balls[b][1], r))
            state.append(BallState.ON_TABLE)
    orient = None if rng is None else random_orientations(rng, len(ids))
    return BallSet(ids, list(ids), np.array(pos), state=np.array(state, np.int8), orient=orient)


# -- ball sets ----------------------------------------------------------------------------------
# Colours (BGR) of the WPA numbers' faces: 1 yellow, 2 blue, 3 red, 4 purple, 5 orange,
# 6 green, 7 maroon, 8 black; the stripes 9-15 share 1-7's.
STANDARD_COLOURS = ((30, 196, 236), (150, 62, 18), (34, 34, 196), (104, 38, 82),
                    (28, 116, 238), (62, 118, 22), (40, 32, 118), (18, 18, 20))
# What makers vary: a pink or a purple 4, a light (brown-red) or dark maroon 7, the blues and
# greens lighter or darker.
VARIANT_COLOURS = {2: ((170, 90, 30), (120, 40, 10)), 4: ((168, 112, 236), (120, 50, 110)),
                   6: ((80, 150, 40), (50, 90, 15)), 7: ((50, 60, 150), (30, 24, 80))}


@dataclass(frozen=True)
class BallPalette:
    """One make of pool balls.

    colours: BGR faces of the numbers 1-8 (stripes 9-15 take 1-7's); cue_bgr: the cue ball;
    cue_dots: red dots on the cue ball's three axes (a "measle" or television ball);
    dot_bgr: their colour; disc_bgr / digit_bgr: the number discs and their digits;
    band_half: the stripe band's half-height on the unit ball (0.5: half the ball's area);
    disc_deg / dot_deg: angular radii of the number discs and of the cue ball's dots.
    """

    colours: tuple[tuple[float, float, float], ...] = STANDARD_COLOURS
    cue_bgr: tuple[float, float, float] = (214, 228, 232)
    cue_dots: bool = False
    dot_bgr: tuple[float, float, float] = (40, 40, 190)
    disc_bgr: tuple[float, float, float] = (218, 228, 232)
    digit_bgr: tuple[float, float, float] = (22, 22, 24)
    band_half: float = 0.5
    disc_deg: float = 24.0
    dot_deg: float = 7.0

    def __post_init__(self):
        if len(self.colours) != 8:
            raise ValueError(f"BallPalette.colours must give the numbers 1-8, got "
                             f"{len(self.colours)}")
        if not 0.2 <= self.band_half <= 0.8:
            raise ValueError("BallPalette.band_half must be in 0.2..0.8")

    def colour(self, ball: str) -> tuple[float, float, float]:
        """The colour of ``ball``'s face (a stripe's band)."""
        if ball == "cue":
            return self.cue_bgr
        n = int(ball)
        return self.colours[(n if n <= 8 else n - 8) - 1]

    @classmethod
    def draw(cls, rng: np.random.Generator) -> BallPalette:
        """A make of balls: each number's colour from the maker's choices, every shade jittered
        by up to 8 % a channel, band widths and disc sizes of different makes, the cue ball
        plain (2 in 3) or dotted."""
        colours = []
        for n, base in enumerate(STANDARD_COLOURS, start=1):
            options = (base,) + VARIANT_COLOURS.get(n, ())
            pick = options[int(rng.integers(len(options)))]
            colours.append(tuple(round(float(np.clip(c * rng.uniform(0.92, 1.08), 0, 255)), 1)
                                 for c in pick))
        cue = tuple(round(float(c * rng.uniform(0.95, 1.03)), 1) for c in (214, 228, 232))
        return cls(colours=tuple(colours), cue_bgr=cue, cue_dots=bool(rng.random() < 1 / 3),
                   band_half=round(float(rng.uniform(0.42, 0.56)), 3),
                   disc_deg=round(float(rng.uniform(20.0, 27.0)), 2))


@cache
def _digit_mask(text: str, size: int = 64) -> np.ndarray:
    """(size, size) float32 coverage of ``text`` drawn in the middle of a square whose sides
    stand for the number disc's diameter; rows run down the face."""
    big = size * 4
    img = np.zeros((big, big), np.uint8)
    font = cv2.FONT_HERSHEY_SIMPLEX
    thick = big // 12
    scale = cv2.getFontScaleFromHeight(font, int(big * 0.46), thick)
    (tw, th), _ = cv2.getTextSize(text, font, scale, thick)
    if tw > big * 0.7:
        scale *= big * 0.7 / tw
        (tw, th), _ = cv2.getTextSize(text, font, scale, thick)
    cv2.putText(img, text, ((big - tw) // 2, (big + th) // 2), font, scale, 255, thick,
                cv2.LINE_AA)
    return cv2.resize(img, (size, size), interpolation=cv2.INTER_AREA).astype(np.float32) / 255


def _step(x: np.ndarray, width: float) -> np.ndarray:
    """A soft step from 0 (x <= -width/2) to 1 (x >= width/2): antialiased pattern edges."""
    return np.clip(x / width + 0.5, 0.0, 1.0)


# Pattern edges soften over this much of the unit ball (about a pixel on a 20-pixel ball).
_EDGE = 0.05


def ball_face(ball: str, body: np.ndarray, palette: BallPalette) -> np.ndarray:
    """(M, 3) albedo of ``ball`` at points of its surface given by unit normals ``body`` (M, 3)
    in the ball's own frame."""
    colour = np.asarray(palette.colour(ball), np.float64)
    kind = pool_kind(ball)
    m = len(body)
    if kind == "cue":
        out = np.broadcast_to(colour, (m, 3)).copy()
        if palette.cue_dots:
            near = np.abs(body).max(axis=1)
            dot = _step(near - math.cos(math.radians(palette.dot_deg)), _EDGE / 3)
            out += dot[:, None] * (np.asarray(palette.dot_bgr, np.float64) - colour)
        return out
    white = np.asarray(palette.disc_bgr, np.float64)
    if kind == "stripe":
        band = _step(palette.band_half - np.abs(body[:, 2]), _EDGE)[:, None]
        out = white + band * (colour - white)
    else:
        out = np.broadcast_to(colour, (m, 3)).copy()
    # the number discs at both ends of the x axis, their digits upright along +z
    ax = np.abs(body[:, 0])
    cos_r = math.cos(math.radians(palette.disc_deg))
    disc = _step(ax - cos_r, _EDGE / 2)
    on = np.flatnonzero(disc > 0)
    if len(on):
        mask = _digit_mask(ball)
        size = mask.shape[0]
        tan_r = math.tan(math.radians(palette.disc_deg))
        b = body[on]
        # gnomonic coordinates on the disc, -1..1 across it; read from outside each end
        u = np.sign(b[:, 0]) * b[:, 1] / ax[on] / tan_r
        v = -b[:, 2] / ax[on] / tan_r
        col = np.clip(((u + 1) / 2 * size).astype(int), 0, size - 1)
        row = np.clip(((v + 1) / 2 * size).astype(int), 0, size - 1)
        ink = mask[row, col][:, None]
        face = white + ink * (np.asarray(palette.digit_bgr, np.float64) - white)
        out[on] += disc[on, None] * (face - out[on])
    return out


# -- the renderer -------------------------------------------------------------------------------
# Sights (the rails' diamonds): half-length along the rail and half-width across it, and the
# colour of their inlay.
_SIGHT_HALF_MM = (13.0, 6.5)
SIGHT_BGR = (214, 226, 232)
# A spot decal on the cloth (foot spot, head spot): about an inch across.
_SPOT_DECAL_MM = 12.0


class PoolRenderer(Renderer):
    """Frames of a pool table: the renderer of ``tracker.sim.render`` with the pool table's
    markings (the spots) and diamonds, and pool balls whose faces turn with their orientation.

    ``render`` takes ``orient``: (S, N, 4) or (N, 4) quaternions of the balls (None: as they
    were made, the identity)."""

    def __init__(self, camera: Camera, table: PoolTableSpec = POOL_9FT, look: Look | None = None,
                 seed: int = 0, build: Build | None = None, palette: BallPalette | None = None):
        self.palette = palette = BallPalette() if palette is None else palette
        self.ball_colours = {b: palette.colour(b) for b in
                             ["cue"] + [str(n) for n in range(1, 16)]}
        self._frame_orient: dict[str, np.ndarray] = {}
        super().__init__(camera, table, Look() if look is None else look, seed, build)

    def render(self, classes: Sequence[str], pos_mm: np.ndarray, visible: np.ndarray | None = None,
               occluders: Sequence[Capsule] = (), gain: float = 1.0, noise: bool = True,
               graphics: str | None = None, frame_index: int = 0,
               orient: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """``Renderer.render`` with the balls' orientations ``orient`` (S, N, 4) or (N, 4)."""
        n = len(classes)
        if orient is None:
            self._frame_orient = {}
        else:
            q = np.asarray(orient, np.float64)
            q = q[None] if q.ndim == 2 else q
            if q.ndim != 3 or q.shape[1:] != (n, 4):
                raise ValueError(f"orient must have shape (S, {n}, 4) or ({n}, 4), "
                                 f"got {q.shape}")
            self._frame_orient = {c: q[:, i] for i, c in enumerate(classes)}
        return super().render(classes, pos_mm, visible, occluders, gain, noise, graphics,
                              frame_index)

    def _cached(self, kind: str, cls: str, centres: np.ndarray, make):
        q = self._frame_orient.get(cls) if kind == "ball" else None
        if q is None:
            return super()._cached(kind, cls, centres, make)
        if len(q) > 1 and np.ptp(q, axis=0).max() > 0:
            return make(centres)  # turning: every sub-sample, even in place (spin on the spot)
        return super()._cached(kind, f"{cls}@{q[0].tobytes().hex()}", centres, make)

    def _ball_face(self, cls: str, sample: int, n: np.ndarray, albedo: np.ndarray) -> np.ndarray:
        q = self._frame_orient.get(cls)
        rot = np.eye(3) if q is None else quat_matrix(q[min(sample, len(q) - 1)])
        return ball_face(cls, n @ rot, self.palette)  # row vectors: body = M^T n

    def _baulk_line_mm(self) -> float:
        return self.table.head_string_mm

    def _marking_coverage(self, x: np.ndarray, y: np.ndarray, foot: np.ndarray) -> np.ndarray:
        """(M,) share of each cloth pixel covered by the spot decals (head and foot spots)."""
        cov = np.zeros(len(x), np.float32)
        t = self.table
        for sx, sy in (t.foot_spot_mm, t.head_spot_mm):
            reach = _SPOT_DECAL_MM + foot
            i = np.flatnonzero((np.abs(x - sx) < reach) & (np.abs(y - sy) < reach))
            if len(i):
                dist = np.hypot(x[i] - sx, y[i] - sy) - _SPOT_DECAL_MM
                cov[i] = np.clip(0.5 - dist / foot[i], 0.0, 1.0)
        return cov

    def _shade_surface(self, p: np.ndarray, sid: np.ndarray, d: np.ndarray,
                       pixel_mm: np.ndarray) -> np.ndarray:
        """The background's colours with the sights inlaid in the rails' tops."""
        out = super()._shade_surface(p, sid, d, pixel_mm)
        nseg = len(self._profile) - 1
        flat_sid = sid.ravel()
        top = np.flatnonzero((flat_sid >= 3) & (flat_sid < self._jaw_id)
                             & ((flat_sid - 3) % nseg == _RAIL_TOP))
        if not len(top):
            return out
        q = p.reshape(-1, 3)[top]
        with np.errstate(invalid="ignore", divide="ignore"):
            foot = np.asarray(pixel_mm, np.float64).ravel()[top] / np.maximum(
                np.abs(d.reshape(-1, 3)[top, 2]), 0.3)
        foot = np.maximum(np.nan_to_num(foot, nan=1.0, posinf=1.0), 0.05)
        a_len, a_wid = _SIGHT_HALF_MM
        cov = np.zeros(len(top))
        t = self.table
        for sx, sy in t.sights_mm:
            across_y = 0 <= sx <= t.width_mm  # on a short rail: long along x
            du, dv = (q[:, 0] - sx, q[:, 1] - sy) if across_y else (q[:, 1] - sy, q[:, 0] - sx)
            near = np.flatnonzero((np.abs(du) < a_len + 4 * foot) & (np.abs(dv) < a_len))
            if not len(near):
                continue
            # distance to the rhombus |du|/a + |dv|/b = 1, along its edge's normal
            dist = (np.abs(du[near]) / a_len + np.abs(dv[near]) / a_wid - 1) / math.hypot(
                1 / a_len, 1 / a_wid)
            cov[near] = np.maximum(cov[near], np.clip(0.5 - dist / foot[near], 0, 1))
        hit = np.flatnonzero(cov > 0)
        if len(hit):
            idx = top[hit]
            normals = self._surface_normals().astype(np.float32)
            lit = self._brightness(q[hit].astype(np.float32), normals[flat_sid[idx]])
            inlay = np.asarray(SIGHT_BGR, np.float32) * lit.astype(np.float32)[:, None]
            flat = out.reshape(-1, 3)
            a = cov[hit].astype(np.float32)[:, None]
            flat[idx] = flat[idx] * (1 - a) + inlay * a
        return out


# -- cameras ------------------------------------------------------------------------------------
def oblique_camera(size=(1920, 1080), table: PoolTableSpec = POOL_9FT, height_mm: float = 2600.0,
                   back_mm: float = 1800.0, k1: float = 0.0) -> Camera:
    """A high oblique camera behind the foot rail, ``back_mm`` beyond it and ``height_mm`` up,
    looking down the table towards the head (the foot rail at the bottom of the picture); the
    focal length puts the rails' outer corners 4 % inside the picture."""
    cx = table.centre_x_mm
    eye = (cx, table.length_mm + back_mm, height_mm)
    dist = np.array([k1, k1 * k1 * 0.4, 0.0, 0.0, 0.0])
    cam = Camera.look_at(eye, (cx, table.length_mm * 0.47, 0.0), size, hfov_deg=60.0, dist=dist,
                         up=(0.0, 0.0, 1.0))
    m = table.cushion_depth_mm + table.rail_width_mm
    corners = np.array([[x, y, 40.0] for x in (-m, table.width_mm + m)
                        for y in (-m, table.length_mm + m)])
    pc = cam.to_camera(corners)
    xn, yn = pc[:, 0] / pc[:, 2], pc[:, 1] / pc[:, 2]
    w, h = size
    f = 0.96 * min(np.min((w / 2) / np.abs(xn)), np.min((h / 2) / np.abs(yn)))
    K = np.array(cam.K)
    K[0, 0] = K[1, 1] = f
    return Camera(K, dist, cam.R, cam.t, cam.image_size)


__all__ = ["BallPalette", "GAMES", "POOL_CLOTHS", "POOL_PHYSICS", "PoolRenderer", "ball_face",
           "kitchen_spot", "oblique_camera", "pool_layout", "pool_rack", "rack_order"]
