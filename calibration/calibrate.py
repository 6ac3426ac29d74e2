"""The calibration record: the map between image pixels and table millimetres.

``H_table_to_image`` maps table mm on the cloth plane (z = 0) to UNDISTORTED pixels; when lens
distortion is modelled (``camera_matrix`` and ``dist_coeffs`` set) raw pixels are undistorted with
``cv2.undistortPoints(..., P=camera_matrix)`` first. Every pixel a caller passes in or gets back
is a raw image pixel.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from calibration.camera import Camera, apply_homography
from calibration.errors import InputError
from calibration.specs import POOL_TABLES, SNOOKER, PoolTableSpec, SnookerTableSpec
from calibration.validate import checked_fields


def _matrix(value, shape, name) -> np.ndarray:
    arr = np.array(value, dtype=np.float64)
    if arr.shape != shape:
        raise ValueError(f"Calibration.{name} must have shape {shape}, got {arr.shape}")
    arr.setflags(write=False)
    return arr


@dataclass(frozen=True)
class Calibration:
    """Image <-> table map of one fixed camera.

    ``H_table_to_image`` (3x3): table mm (z = 0) -> undistorted px. ``camera_matrix`` (3x3) and
    ``dist_coeffs`` (5,: k1 k2 p1 p2 k3) are both set or both None. ``rvec``/``tvec`` (3,) give
    the camera pose (table mm -> camera frame) when it is known. ``landmarks`` maps a landmark
    name to ``{"mm": [x, y], "px": [x, y]}`` (raw px where it was matched in the image).
    ``table``: the snooker table or the pool table (``PoolTableSpec``) the map is of.
    """

    H_table_to_image: np.ndarray
    image_size: tuple[int, int]
    camera_matrix: np.ndarray | None = None
    dist_coeffs: np.ndarray | None = None
    rvec: np.ndarray | None = None
    tvec: np.ndarray | None = None
    reprojection_error_mm: float = 0.0
    max_error_mm: float = 0.0
    landmarks: dict = field(default_factory=dict)
    source: str = ""
    table: SnookerTableSpec | PoolTableSpec = SNOOKER
    uncertainty_mm: float | None = None

    def __post_init__(self):
        H = _matrix(self.H_table_to_image, (3, 3), "H_table_to_image")
        if abs(H[2, 2]) > 1e-12:
            H = H / H[2, 2]
            H.setflags(write=False)
        object.__setattr__(self, "H_table_to_image", H)
        if (self.camera_matrix is None) != (self.dist_coeffs is None):
            raise ValueError("Calibration needs both camera_matrix and dist_coeffs, or neither")
        if self.camera_matrix is not None:
            object.__setattr__(self, "camera_matrix",
                               _matrix(self.camera_matrix, (3, 3), "camera_matrix"))
            dist = np.zeros(5)
            d = np.ravel(np.asarray(self.dist_coeffs, dtype=np.float64))[:5]
            dist[: len(d)] = d
            object.__setattr__(self, "dist_coeffs", _matrix(dist, (5,), "dist_coeffs"))
        if (self.rvec is None) != (self.tvec is None):
            raise ValueError("Calibration needs both rvec and tvec, or neither")
        if self.rvec is not None:
            object.__setattr__(self, "rvec", _matrix(np.ravel(self.rvec), (3,), "rvec"))
            object.__setattr__(self, "tvec", _matrix(np.ravel(self.tvec), (3,), "tvec"))
        w, h = self.image_size
        object.__setattr__(self, "image_size", (int(w), int(h)))
        object.__setattr__(self, "landmarks", dict(self.landmarks))

    @property
    def game(self) -> str:
        """``pool`` for a pool table, else ``snooker``."""
        return "pool" if isinstance(self.table, PoolTableSpec) else "snooker"

    # -- maps ---------------------------------------------------------------------------------
    @property
    def H_image_to_table(self) -> np.ndarray:
        Hi = np.linalg.inv(self.H_table_to_image)
        return Hi / Hi[2, 2]

    @property
    def has_distortion(self) -> bool:
        return self.dist_coeffs is not None and bool(np.any(self.dist_coeffs))

    def undistort_px(self, points_px) -> np.ndarray:
        """(N, 2) raw px -> (N, 2) undistorted px."""
        pts = np.asarray(points_px, dtype=np.float64).reshape(-1, 2)
        if not self.has_distortion or not len(pts):
            return pts.copy()
        und = cv2.undistortPoints(
            pts.reshape(-1, 1, 2), self.camera_matrix, self.dist_coeffs, P=self.camera_matrix,
            criteria=(cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 40, 1e-10),
        )
        return und.reshape(-1, 2)

    def distort_px(self, points_px) -> np.ndarray:
        """(N, 2) undistorted px -> (N, 2) raw px."""
        pts = np.asarray(points_px, dtype=np.float64).reshape(-1, 2)
        if not self.has_distortion:
            return pts.copy()
        K = self.camera_matrix
        rays = np.c_[pts, np.ones(len(pts))] @ np.linalg.inv(K).T
        px, _ = cv2.projectPoints(rays, np.zeros(3), np.zeros(3), K, self.dist_coeffs)
        return px.reshape(-1, 2)

    def table_to_px(self, points_mm) -> np.ndarray:
        """(N, 2) table mm on the cloth -> (N, 2) raw px."""
        pts = np.asarray(points_mm, dtype=np.float64).reshape(-1, 2)
        return self.distort_px(apply_homography(self.H_table_to_image, pts))

    def px_to_table(self, points_px) -> np.ndarray:
        """(N, 2) raw px -> (N, 2) table mm on the cloth (z = 0)."""
        return apply_homography(self.H_image_to_table, self.undistort_px(points_px))

    def camera(self) -> Camera | None:
        """The full camera when its pose is known, else None."""
        if self.rvec is None or self.camera_matrix is None:
            return None
        R = cv2.Rodrigues(np.array(self.rvec))[0]
        return Camera(self.camera_matrix, self.dist_coeffs, R, self.tvec, self.image_size)

    def pockets_px(self) -> dict[str, list[float]]:
        names = list(self.table.pockets)
        pts = self.table_to_px([self.table.pockets[n].point_mm for n in names])
        return {n: [float(x), float(y)] for n, (x, y) in zip(names, pts)}

    # -- construction -------------------------------------------------------------------------
    @classmethod
    def from_camera(cls, camera: Camera, table: SnookerTableSpec | PoolTableSpec = SNOOKER,
                    source: str = "camera") -> Calibration:
        """The exact calibration of a known camera (synthetic scenes)."""
        lm = {}
        names = list(table.landmarks_mm())
        mm = np.array([table.landmarks_mm()[n] for n in names])
        px = camera.project(np.c_[mm, np.zeros(len(mm))])
        for n, m, p in zip(names, mm, px):
            lm[n] = {"mm": [float(m[0]), float(m[1])], "px": [float(p[0]), float(p[1])]}
        return cls(camera.homography_table_to_image(0.0), camera.image_size, camera.K,
                   camera.dist, camera.rvec.ravel(), camera.t, 0.0, 0.0, lm, source, table)

    # -- serialisation ------------------------------------------------------------------------
    def to_dict(self) -> dict:
        d = {
            "image_size": list(self.image_size),
            "H_image_to_table": self.H_image_to_table.tolist(),
            "H_table_to_image": self.H_table_to_image.tolist(),
            "reprojection_error_mm": float(self.reprojection_error_mm),
            "max_error_mm": float(self.max_error_mm),
            "pockets_px": self.pockets_px(),
            "landmarks": self.landmarks,
        }
        if self.camera_matrix is not None:
            d["camera_matrix"] = self.camera_matrix.tolist()
            d["dist_coeffs"] = self.dist_coeffs.tolist()
        if self.rvec is not None:
            d["rvec"] = self.rvec.tolist()
            d["tvec_mm"] = self.tvec.tolist()
        if self.source:
            d["source"] = self.source
        if self.game == "pool":
            d["game"] = "pool"
            d["table"] = self.table.name
        if self.uncertainty_mm is not None:
            d["uncertainty_mm"] = float(self.uncertainty_mm)
        return d

    @classmethod
    def from_dict(cls, d: dict, table: SnookerTableSpec | PoolTableSpec = SNOOKER,
                  where: str = "calibration JSON") -> Calibration:
        """The calibration a JSON object holds, every field checked first: InputError naming
        ``where`` (the file), the field and what was expected when one is unusable. The table
        is the one its ``game`` and ``table`` fields name (a pool table), else ``table``."""
        table = _named_table(d, where, table)
        fields = checked_fields(d, where, table)
        cal = cls(fields["H"], fields["image_size"], fields["camera_matrix"],
                  fields["dist_coeffs"], fields["rvec"], fields["tvec_mm"],
                  fields["reprojection_error_mm"], fields["max_error_mm"], fields["landmarks"],
                  fields["source"], table, _uncertainty(d, where))
        with np.errstate(all="ignore"):
            pockets = np.array(list(cal.pockets_px().values()))
            back = cal.px_to_table(pockets)
        if not (np.all(np.isfinite(pockets)) and np.all(np.isfinite(back))):
            raise InputError(f"{where}: H_table_to_image with these lens coefficients puts "
                             "the pockets at no finite pixel")
        return cal

    def save(self, path) -> None:
        Path(path).write_text(json.dumps(self.to_dict(), indent=2) + "\n")

    @classmethod
    def load(cls, path, table: SnookerTableSpec | PoolTableSpec = SNOOKER) -> Calibration:
        return cls.from_dict(read_json(path, "calibration"), table, f"calibration {path}")


def _named_table(d: dict, where: str, default):
    """The table a calibration JSON names: ``"game": "pool"`` with ``"table"`` one of
    ``POOL_TABLES``; no ``game`` (files written before pool) or ``snooker``: ``default``."""
    game = d.get("game")
    if game is None or game == "snooker":
        return default
    if game != "pool":
        raise InputError(f"{where}: game must be snooker or pool, got {str(game)[:40]!r}")
    name = d.get("table")
    if not isinstance(name, str) or name not in POOL_TABLES:
        raise InputError(f"{where}: table must be one of {', '.join(POOL_TABLES)} for a pool "
                         f"table, got {str(name)[:40]!r}")
    return POOL_TABLES[name]


def _uncertainty(d: dict, where: str) -> float | None:
    """The optional ``uncertainty_mm`` of a calibration JSON: a finite number >= 0, or absent."""
    value = d.get("uncertainty_mm")
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not (
            np.isfinite(value) and value >= 0):
        raise InputError(f"{where}: uncertainty_mm must be a number of mm >= 0, got {value!r}")
    return float(value)


def read_json(path, what: str) -> dict:
    """A JSON object from a file; InputError naming ``what`` and the file when it cannot be."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise InputError(f"cannot read {what} {path}: {exc.strerror}") from None
    except json.JSONDecodeError as exc:
        raise InputError(f"{what} {path} is not JSON: {exc.msg}") from None
    except UnicodeDecodeError:
        raise InputError(f"{what} {path} is not JSON: not UTF-8 text") from None
    except RecursionError:
        raise InputError(f"{what} {path} is nested too deeply to be a {what}") from None
    if not isinstance(data, dict):
        raise InputError(f"{what} {path} must hold a JSON object")
    return data


def plane_error_mm(cal: Calibration, camera: Camera) -> tuple[float, float]:
    """RMS and max distance (mm) between true table points and where ``cal`` puts the pixels the
    true ``camera`` sees them at, over a 12 x 24 grid on the playing area (for evaluation)."""
    t = cal.table
    xs, ys = np.meshgrid(np.linspace(0, t.width_mm, 12), np.linspace(0, t.length_mm, 24))
    mm = np.c_[xs.ravel(), ys.ravel()]
    px = camera.project(np.c_[mm, np.zeros(len(mm))])
    e = np.hypot(*(cal.px_to_table(px) - mm).T)
    return float(np.sqrt(np.mean(e**2))), float(e.max())
