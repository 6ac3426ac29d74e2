"""A pinhole camera with pose and radial-tangential lens distortion, in table millimetres.

World frame = table frame (see ``calibration.specs``): x along the baulk cushion, y towards the
top cushion, z up from the cloth. Camera frame (OpenCV): x right, y down, z forward.
``X_cam = R @ X_world + t``; raw pixels = distort(K @ X_cam / z).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import cv2
import numpy as np


def _as_points(points: np.ndarray, dim: int) -> np.ndarray:
    pts = np.asarray(points, dtype=np.float64)
    if pts.ndim == 1:
        pts = pts[None]
    if pts.ndim != 2 or pts.shape[1] != dim:
        raise ValueError(f"expected points of shape (N, {dim}), got {pts.shape}")
    return pts


@dataclass(frozen=True)
class Camera:
    """Intrinsics ``K`` (3x3), ``dist`` (k1 k2 p1 p2 k3), rotation ``R`` (3x3) and translation
    ``t`` (3,) from table mm to the camera frame, and ``image_size`` (w, h) in pixels."""

    K: np.ndarray
    dist: np.ndarray
    R: np.ndarray
    t: np.ndarray
    image_size: tuple[int, int]

    def __post_init__(self):
        checks = {"K": (3, 3), "dist": (5,), "R": (3, 3), "t": (3,)}
        for name, shape in checks.items():
            value = np.asarray(getattr(self, name), dtype=np.float64)
            if value.shape != shape:
                raise ValueError(f"Camera.{name} must have shape {shape}, got {value.shape}")
            value.setflags(write=False)
            object.__setattr__(self, name, value)
        object.__setattr__(self, "image_size", (int(self.image_size[0]), int(self.image_size[1])))

    # -- construction -------------------------------------------------------------------------
    @classmethod
    def look_at(
        cls,
        eye_mm,
        target_mm,
        image_size: tuple[int, int],
        hfov_deg: float = 60.0,
        dist=(0.0, 0.0, 0.0, 0.0, 0.0),
        up=(0.0, 1.0, 0.0),
    ) -> Camera:
        """A camera at ``eye_mm`` looking at ``target_mm``; ``up`` is the world direction that
        appears towards the top of the image; ``hfov_deg`` the horizontal field of view."""
        eye = np.asarray(eye_mm, float)
        fwd = np.asarray(target_mm, float) - eye
        fwd /= np.linalg.norm(fwd)
        up = np.asarray(up, float)
        right = np.cross(fwd, up)
        if np.linalg.norm(right) < 1e-9:
            raise ValueError("up direction is parallel to the viewing direction")
        right /= np.linalg.norm(right)
        down = np.cross(fwd, right)
        R = np.stack([right, down, fwd])
        w, h = image_size
        f = (w / 2) / np.tan(np.radians(hfov_deg) / 2)
        K = np.array([[f, 0, (w - 1) / 2], [0, f, (h - 1) / 2], [0, 0, 1]])
        return cls(K, np.asarray(dist, float), R, -R @ eye, (w, h))

    # -- geometry -----------------------------------------------------------------------------
    @property
    def centre_mm(self) -> np.ndarray:
        """The camera's optical centre in table mm."""
        return -self.R.T @ self.t

    @cached_property
    def rvec(self) -> np.ndarray:
        return cv2.Rodrigues(np.array(self.R))[0]

    def to_camera(self, points_mm: np.ndarray) -> np.ndarray:
        """(N, 3) table mm -> (N, 3) camera frame mm."""
        return _as_points(points_mm, 3) @ self.R.T + self.t

    def project(self, points_mm: np.ndarray) -> np.ndarray:
        """(N, 3) table mm -> (N, 2) raw (distorted) image pixels."""
        pts = _as_points(points_mm, 3)
        px, _ = cv2.projectPoints(pts, self.rvec, np.array(self.t), np.array(self.K),
                                  np.array(self.dist))
        return px.reshape(-1, 2)

    def undistort_px(self, px: np.ndarray) -> np.ndarray:
        """(N, 2) raw pixels -> (N, 2) undistorted pixels (same K)."""
        pts = _as_points(px, 2).reshape(-1, 1, 2)
        if not np.any(self.dist) or not len(pts):
            return pts.reshape(-1, 2).copy()
        und = cv2.undistortPoints(
            pts, np.array(self.K), np.array(self.dist), R=None, P=np.array(self.K),
            criteria=(cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 50, 1e-12),
        )
        return und.reshape(-1, 2)

    def distort_px(self, px_undistorted: np.ndarray) -> np.ndarray:
        """(N, 2) undistorted pixels -> (N, 2) raw pixels."""
        pts = _as_points(px_undistorted, 2)
        Kinv = np.linalg.inv(self.K)
        rays = np.c_[pts, np.ones(len(pts))] @ Kinv.T
        px, _ = cv2.projectPoints(rays, np.zeros(3), np.zeros(3), np.array(self.K),
                                  np.array(self.dist))
        return px.reshape(-1, 2)

    def rays(self, px: np.ndarray) -> np.ndarray:
        """(N, 2) raw pixels -> (N, 3) unit ray directions in table coordinates."""
        und = self.undistort_px(px)
        Kinv = np.linalg.inv(self.K)
        d = np.c_[und, np.ones(len(und))] @ Kinv.T @ np.array(self.R)
        return d / np.linalg.norm(d, axis=1, keepdims=True)

    def pixel_rays(self) -> np.ndarray:
        """Unit ray direction in table coordinates through every pixel centre: (H, W, 3) float32."""
        w, h = self.image_size
        u, v = np.meshgrid(np.arange(w, dtype=np.float64), np.arange(h, dtype=np.float64))
        d = self.rays(np.c_[u.ravel(), v.ravel()])
        return d.reshape(h, w, 3).astype(np.float32)

    def plane_points(self, px: np.ndarray, z_mm: float = 0.0) -> np.ndarray:
        """(N, 2) raw pixels -> (N, 2) table mm where their rays meet the plane z = z_mm."""
        d = self.rays(px)
        c = self.centre_mm
        s = (z_mm - c[2]) / d[:, 2]
        return (c + s[:, None] * d)[:, :2]

    def homography_table_to_image(self, z_mm: float = 0.0) -> np.ndarray:
        """H (3x3) from table mm on the plane z = z_mm to UNDISTORTED pixels."""
        R = np.array(self.R)
        t = np.array(self.t) + R[:, 2] * z_mm
        H = np.array(self.K) @ np.c_[R[:, 0], R[:, 1], t]
        return H / H[2, 2]

    def ball_radius_px(self, centres_mm: np.ndarray, radius_mm: float) -> np.ndarray:
        """Approximate apparent radius (px) of spheres of ``radius_mm`` at ``centres_mm`` (N, 3):
        focal length over depth, ignoring lens distortion."""
        depth = np.linalg.norm(self.to_camera(centres_mm), axis=1)
        f = float(np.sqrt(self.K[0, 0] * self.K[1, 1]))
        return f * radius_mm / np.sqrt(np.maximum(depth**2 - radius_mm**2, 1e-9))

    def sphere_outline(self, centres_mm: np.ndarray, radius_mm: float, n: int = 48
                       ) -> np.ndarray:
        """(N, n, 2) raw pixels round the silhouettes of spheres of ``radius_mm`` at
        ``centres_mm`` (N, 3): the circles where the rays from the camera graze them, projected
        through the lens."""
        c = self.to_camera(centres_mm)
        dist = np.linalg.norm(c, axis=1, keepdims=True)
        axis = c / dist
        ring_c = c * (1 - radius_mm**2 / dist**2)
        ring_r = radius_mm * np.sqrt(1 - radius_mm**2 / dist**2)
        ref = np.where(np.abs(axis[:, 2:3]) < 0.9, [[0.0, 0.0, 1.0]], [[1.0, 0.0, 0.0]])
        e1 = np.cross(axis, ref)
        e1 /= np.linalg.norm(e1, axis=1, keepdims=True)
        e2 = np.cross(axis, e1)
        phi = np.linspace(0, 2 * np.pi, n, endpoint=False)
        ring = (ring_c[:, None] + ring_r[:, :, None]
                * (np.cos(phi)[None, :, None] * e1[:, None]
                   + np.sin(phi)[None, :, None] * e2[:, None]))
        world = (ring.reshape(-1, 3) - self.t) @ np.asarray(self.R)
        return self.project(world).reshape(len(c), n, 2)

    # -- serialisation ------------------------------------------------------------------------
    def to_dict(self) -> dict:
        return {
            "image_size": list(self.image_size),
            "camera_matrix": np.asarray(self.K).tolist(),
            "dist_coeffs": np.asarray(self.dist).tolist(),
            "R": np.asarray(self.R).tolist(),
            "t_mm": np.asarray(self.t).tolist(),
            "centre_mm": self.centre_mm.tolist(),
        }

    @classmethod
    def from_dict(cls, d: dict) -> Camera:
        return cls(np.array(d["camera_matrix"]), np.array(d["dist_coeffs"]), np.array(d["R"]),
                   np.array(d["t_mm"]), tuple(d["image_size"]))


def apply_homography(H: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """(N, 2) points through a 3x3 homography."""
    p = _as_points(pts, 2)
    q = np.c_[p, np.ones(len(p))] @ np.asarray(H, float).T
    return q[:, :2] / q[:, 2:3]


def polygon_moments(p: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Area (N,), centroid (N, 2) and central second moments (N, 2, 2) (covariance of a point
    spread evenly over the inside) of closed polygons ``p`` (N, n, 2), either winding."""
    p = np.asarray(p, float)
    x, y = p[..., 0], p[..., 1]
    x1, y1 = np.roll(x, -1, axis=1), np.roll(y, -1, axis=1)
    cross = x * y1 - x1 * y
    area = cross.sum(1) / 2
    cx = ((x + x1) * cross).sum(1) / (6 * area)
    cy = ((y + y1) * cross).sum(1) / (6 * area)
    sxx = ((x * x + x * x1 + x1 * x1) * cross).sum(1) / (12 * area) - cx * cx
    syy = ((y * y + y * y1 + y1 * y1) * cross).sum(1) / (12 * area) - cy * cy
    sxy = ((x * y1 + 2 * x * y + 2 * x1 * y1 + x1 * y) * cross).sum(1) / (24 * area) - cx * cy
    cov = np.stack([np.stack([sxx, sxy], -1), np.stack([sxy, syy], -1)], -2)
    return np.abs(area), np.c_[cx, cy], cov
