"""Overhead frames of a pool table with balls of known number, for tests and the benchmark.

Each ball is drawn as a lit sphere turned at random: a solid in its colour with its number's
white circle, a stripe white with a band of its colour round its equator, the 8 black, the cue
ball white. The cloth takes a colour and a lamp a tint and a fall-off; balls cast a soft shadow.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from calibration.specs import pool_kind

# A tournament set's colours (BGR) for 1-7; 9-15 take the colour of n - 8 on their band.
SET_BGR = {1: (20, 200, 245), 2: (170, 60, 20), 3: (30, 30, 210), 4: (120, 40, 90),
           5: (20, 120, 245), 6: (60, 120, 20), 7: (30, 30, 120), 8: (25, 25, 25)}
CLOTHS_BGR = {"blue": (180, 120, 30), "green": (60, 140, 30), "red": (40, 40, 150),
              "grey": (120, 120, 115), "tan": (110, 160, 190)}
BAND_HALF = 0.5  # a stripe's band: |z| below this on the unit ball
CIRCLE_COS = 0.92  # the number's circle: within this cosine of its axis


@dataclass(frozen=True)
class SyntheticFrame:
    """A drawn frame: ``image`` (H, W, 3) uint8 BGR, the table ``polygon`` (4, 2) px, the
    ``balls`` drawn as {id: (x, y)} px and their radius ``r_px``."""

    image: np.ndarray
    polygon: np.ndarray
    balls: dict[str, tuple[float, float]]
    r_px: float


def _rotation(rng: np.random.Generator) -> np.ndarray:
    q = rng.normal(size=4)
    q /= np.linalg.norm(q)
    w, x, y, z = q
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                     [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                     [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])


def ball_face(ball: str, normals: np.ndarray, rot: np.ndarray) -> np.ndarray:
    """Albedo (N, 3) BGR in [0, 1] of ``ball`` at surface normals (N, 3) (camera frame) of a
    ball turned by ``rot`` (ball frame -> camera frame)."""
    local = normals @ rot  # camera -> ball frame
    white = np.array([0.93, 0.95, 0.95])
    kind = pool_kind(ball)
    if kind == "cue":
        return np.tile(white, (len(local), 1))
    n = int(ball)
    colour = np.array(SET_BGR[n if n <= 8 else n - 8], float) / 255.0
    if kind == "stripe":
        out = np.where(np.abs(local[:, 2:3]) < BAND_HALF, colour, white)
    else:
        out = np.tile(colour, (len(local), 1))
    # the number's circle, on both sides along the ball's x axis
    out[np.abs(local[:, 0]) > CIRCLE_COS] = white
    return out


def draw_frame(balls: dict[str, tuple[float, float]], *, size=(640, 400), r_px: float = 9.0,
               cloth: str = "blue", tint=(1.0, 1.0, 1.0), seed: int = 0,
               margin_px: int = 30, turns: dict[str, np.ndarray] | None = None
               ) -> SyntheticFrame:
    """A frame with ``balls`` ({id: (x, y) px}) on a cloth, lit from above by a lamp of BGR
    ``tint``; each ball turned by ``turns[id]`` (3x3, ball frame -> camera frame, the camera
    looking down its -z) where given, else at random."""
    rng = np.random.default_rng(seed)
    w, h = size
    tint = np.asarray(tint, float)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    fall = 1.0 - 0.25 * (((xx - w / 2) / w) ** 2 + ((yy - h / 2) / h) ** 2) * 4
    img = np.asarray(CLOTHS_BGR[cloth], np.float32)[None, None, :] * fall[..., None]
    img = img * tint[None, None, :]
    # rails round the cloth
    rail = np.zeros((h, w), bool)
    rail[:margin_px] = rail[-margin_px:] = True
    rail[:, :margin_px] = rail[:, -margin_px:] = True
    img[rail] = (40, 50, 70)
    for x, y in balls.values():  # soft shadows first, towards the bottom right
        shadow = np.exp(-(((xx - x - 0.3 * r_px) ** 2 + (yy - y - 0.3 * r_px) ** 2)
                          / (2 * (1.1 * r_px) ** 2)))
        img *= (1.0 - 0.35 * shadow)[..., None]
    light = np.array([-0.3, -0.4, 0.87])
    light /= np.linalg.norm(light)
    ss = 4  # drawn at four times the size, then shrunk: the rim blends with the cloth
    for ball, (x, y) in balls.items():
        rot = _rotation(rng)
        if turns and ball in turns:
            rot = np.asarray(turns[ball], float)
        n = int(np.ceil(r_px)) + 1
        gy, gx = np.mgrid[-n * ss:(n + 1) * ss, -n * ss:(n + 1) * ss].astype(np.float64)
        u, v = (gx + 0.5 - ss / 2) / (ss * r_px), (gy + 0.5 - ss / 2) / (ss * r_px)
        ins = u * u + v * v < 1
        nz = np.sqrt(np.clip(1 - u * u - v * v, 0, 1))
        normals = np.stack([u[ins], v[ins], nz[ins]], axis=1)
        albedo = ball_face(ball, normals, rot)
        diffuse = 0.35 + 0.65 * np.clip(normals @ light, 0, 1)
        spec = np.clip(normals @ ((light + [0, 0, 1]) / np.linalg.norm(light + [0, 0, 1])), 0, 1)
        shade = albedo * diffuse[:, None] + 0.8 * spec[:, None] ** 60
        big = np.zeros(u.shape + (3,))
        big[ins] = np.clip(shade * tint, 0, 1.2) * 255
        cover = cv2.resize(ins.astype(np.float32), (2 * n + 1, 2 * n + 1),
                           interpolation=cv2.INTER_AREA)
        colour = cv2.resize(big.astype(np.float32), (2 * n + 1, 2 * n + 1),
                            interpolation=cv2.INTER_AREA)
        x0, y0 = int(round(x)) - n, int(round(y)) - n
        patch = img[y0:y0 + 2 * n + 1, x0:x0 + 2 * n + 1]
        patch[:] = patch * (1 - cover[..., None]) + colour
    img += rng.normal(0, 2.0, img.shape).astype(np.float32)
    image = np.clip(img, 0, 255).astype(np.uint8)
    m = margin_px
    polygon = np.array([[m, m], [w - m, m], [w - m, h - m], [m, h - m]], np.float64)
    return SyntheticFrame(image, polygon, dict(balls), r_px)


def random_layout(ids: list[str], rng: np.random.Generator, size=(640, 400),
                  r_px: float = 9.0, margin_px: int = 30) -> dict[str, tuple[float, float]]:
    """Whole-pixel places for ``ids`` on the cloth, at least three radii apart."""
    w, h = size
    out: dict[str, tuple[float, float]] = {}
    lo = margin_px + 2 * r_px
    while len(out) < len(ids):
        p = (float(round(rng.uniform(lo, w - lo))), float(round(rng.uniform(lo, h - lo))))
        if all((p[0] - q[0]) ** 2 + (p[1] - q[1]) ** 2 > (3 * r_px) ** 2 for q in out.values()):
            out[ids[len(out)]] = p
    return out
