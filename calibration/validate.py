"""A calibration JSON's fields checked before a ``Calibration`` is made of them: InputError with
one line naming the file, the field and what was expected."""

from __future__ import annotations

import math

import numpy as np

from calibration.errors import InputError
from calibration.specs import SNOOKER

# largest image side taken (px): an 8K picture is 7680 wide
MAX_SIDE_PX = 100_000
# smallest ratio of a homography's least to its greatest singular value: below it, it maps
# the table onto a line or a point
MIN_SINGULAR_RATIO = 1e-10
# largest entry of a homography scaled to 1 in its last entry (px per mm, px)
MAX_ENTRY = 1e9
# how far (a fraction of its distance from the centre) the lens model may move the image's
# corner: a wide-angle lens moves it some percent, a fisheye is no lens this model describes
MAX_CORNER_BEND = 0.4


def _short(value) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _is_number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _numbers(d: dict, name: str, where: str, shape: tuple[int, ...]) -> np.ndarray:
    """``d[name]`` as finite numbers of ``shape`` (a vector's length may be given as (lo, hi)
    in ``shape`` = ((lo, hi),))."""
    value = d[name]
    if len(shape) == 2:
        rows, cols = shape
        expected = f"a {rows}x{cols} list of finite numbers"
        ok = (isinstance(value, list) and len(value) == rows
              and all(isinstance(r, list) and len(r) == cols and all(map(_is_number, r))
                      for r in value))
    else:
        lo, hi = shape[0] if isinstance(shape[0], tuple) else (shape[0], shape[0])
        count = str(lo) if lo == hi else f"{lo} to {hi}"
        expected = f"a list of {count} finite numbers"
        ok = (isinstance(value, list) and lo <= len(value) <= hi
              and all(map(_is_number, value)))
    if ok:
        try:
            arr = np.array(value, dtype=np.float64)
        except OverflowError:  # an integer too big for a float
            ok = False
        else:
            ok = bool(np.all(np.isfinite(arr)))
    if not ok:
        raise InputError(f"{where}: {name} must be {expected}, got {_short(value)}")
    return arr


def _image_size(d: dict, where: str) -> tuple[int, int]:
    value = d["image_size"]
    if not (isinstance(value, list) and len(value) == 2
            and all(isinstance(v, int) and not isinstance(v, bool) and 0 < v <= MAX_SIDE_PX
                    for v in value)):
        raise InputError(f"{where}: image_size must be [width, height], two whole numbers of "
                         f"pixels from 1 to {MAX_SIDE_PX}, got {_short(value)}")
    return value[0], value[1]


def _homography(d: dict, where: str, table=SNOOKER) -> np.ndarray:
    H = _numbers(d, "H_table_to_image", where, (3, 3))
    s = np.linalg.svd(H, compute_uv=False)
    if s[0] == 0 or s[-1] / s[0] < MIN_SINGULAR_RATIO:
        raise InputError(f"{where}: H_table_to_image is singular (it maps the table onto a line "
                         "or a point): expected an invertible 3x3 homography")
    corners = np.array([[0, 0, 1], [table.width_mm, 0, 1], [0, table.length_mm, 1],
                        [table.width_mm, table.length_mm, 1]], float)
    depth = corners @ H[2]
    if not (np.all(depth > 0) or np.all(depth < 0)):
        raise InputError(f"{where}: H_table_to_image puts part of the table behind the camera: "
                         "expected the whole table in front of it")
    # the record keeps H scaled to H[2, 2] = 1 (the table's corner in front: not 0) and its
    # inverse scaled likewise
    Hn = H / H[2, 2]
    Hi = np.linalg.inv(Hn)
    if not (np.all(np.isfinite(Hi)) and np.max(np.abs(Hn)) < MAX_ENTRY
            and abs(Hi[2, 2]) > np.max(np.abs(Hi)) / MAX_ENTRY):
        raise InputError(f"{where}: H_table_to_image scaled to 1 in its last entry has entries "
                         f"beyond {MAX_ENTRY:.0e} or an inverse that cannot be: expected a "
                         "camera's homography")
    return H


def _pinhole(d: dict, where: str) -> np.ndarray:
    K = _numbers(d, "camera_matrix", where, (3, 3))
    if not (K[0, 0] > 0 and K[1, 1] > 0 and K[1, 0] == 0 and np.all(K[2] == [0, 0, 1])):
        raise InputError(f"{where}: camera_matrix must be [[fx, s, cx], [0, fy, cy], [0, 0, 1]] "
                         f"with fx and fy above 0, got {_short(d['camera_matrix'])}")
    return K


def _camera_matrix(d: dict, where: str, size: tuple[int, int]) -> np.ndarray:
    K = _pinhole(d, where)
    w, h = size
    if not (0 <= K[0, 2] <= w and 0 <= K[1, 2] <= h):
        raise InputError(f"{where}: camera_matrix puts the principal point at "
                         f"({K[0, 2]:g}, {K[1, 2]:g}): expected it inside the {w}x{h} image")
    return K


def _dist_coeffs(d: dict, where: str, K: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """k1 k2 p1 p2 k3, checked to describe a lens: over the image, a point further from the
    centre stays further after distortion, and the corner moves by at most MAX_CORNER_BEND."""
    dist = np.zeros(5)
    given = _numbers(d, "dist_coeffs", where, ((1, 5),))
    dist[: len(given)] = given
    k1, k2, p1, p2, k3 = dist
    w, h = size
    x = (np.array([0, w - 1, 0, w - 1]) - K[0, 2]) / K[0, 0]
    y = (np.array([0, 0, h - 1, h - 1]) - K[1, 2]) / K[1, 1]
    r2 = x * x + y * y
    r_corner = math.sqrt(float(r2.max()))
    r = np.linspace(0.0, r_corner, 257)
    radial = 1 + k1 * r**2 + k2 * r**4 + k3 * r**6
    folds = bool(np.any(np.diff(r * radial) <= 0))
    # the corners' shift under OpenCV's model: radial, then tangential
    radial_corner = 1 + k1 * r2 + k2 * r2**2 + k3 * r2**3
    dx = x * (radial_corner - 1) + 2 * p1 * x * y + p2 * (r2 + 2 * x * x)
    dy = y * (radial_corner - 1) + p1 * (r2 + 2 * y * y) + 2 * p2 * x * y
    bend = float(np.max(np.hypot(dx, dy) / np.maximum(np.sqrt(r2), 1e-12)))
    if folds or not bend <= MAX_CORNER_BEND:
        what = ("fold the picture over itself before its corner" if folds else
                f"move the image's corner by {bend:.0%} of its distance from the centre")
        raise InputError(f"{where}: dist_coeffs {_short(d['dist_coeffs'])} {what}: expected a "
                         f"real lens's, which moves it by under {MAX_CORNER_BEND:.0%}")
    return dist


def _both_or_neither(d: dict, where: str, a: str, b: str) -> bool:
    """True when both fields ``a`` and ``b`` are given (not null), False when neither is."""
    given = [name for name in (a, b) if d.get(name) is not None]
    if len(given) == 1:
        other = b if given == [a] else a
        raise InputError(f"{where}: {given[0]} is given but {other} is not: expected both or "
                         "neither")
    return bool(given)


def _optional_number(d: dict, name: str, where: str) -> float:
    value = d.get(name, 0.0)
    if not (_is_number(value) and math.isfinite(value) and value >= 0):
        raise InputError(f"{where}: {name} must be a finite number of 0 or more, got "
                         f"{_short(value)}")
    return float(value)


def checked_fields(d: dict, where: str, table=SNOOKER) -> dict:
    """The fields of a calibration JSON object ``d`` (as ``Calibration.to_dict`` writes it),
    each checked: ``H`` (3x3), ``image_size`` (w, h), ``camera_matrix`` (3x3) and
    ``dist_coeffs`` (5,) or both None, ``rvec`` and ``tvec_mm`` (3,) or both None, the two
    errors, ``landmarks`` and ``source``. InputError naming ``where``, the field and what was
    expected for the first that is missing or unusable."""
    with np.errstate(all="ignore"):  # a number out of range is refused, not warned of
        return _checked_fields(d, where, table)


def _checked_fields(d: dict, where: str, table) -> dict:
    for name in ("H_table_to_image", "image_size"):
        if name not in d:
            raise InputError(f"{where} lacks {name}: expected a calibration from "
                             "'cueball calibrate'")
    out = {"image_size": _image_size(d, where), "H": _homography(d, where, table)}
    out["camera_matrix"] = out["dist_coeffs"] = out["rvec"] = out["tvec_mm"] = None
    if _both_or_neither(d, where, "camera_matrix", "dist_coeffs"):
        out["camera_matrix"] = _camera_matrix(d, where, out["image_size"])
        out["dist_coeffs"] = _dist_coeffs(d, where, out["camera_matrix"], out["image_size"])
    if _both_or_neither(d, where, "rvec", "tvec_mm"):
        out["rvec"] = _numbers(d, "rvec", where, (3,))
        out["tvec_mm"] = _numbers(d, "tvec_mm", where, (3,))
    for name in ("reprojection_error_mm", "max_error_mm"):
        out[name] = _optional_number(d, name, where)
    out["landmarks"] = d.get("landmarks") or {}
    if not isinstance(out["landmarks"], dict):
        raise InputError(f"{where}: landmarks must be a JSON object, got "
                         f"{_short(out['landmarks'])}")
    out["source"] = d.get("source") or ""
    if not isinstance(out["source"], str):
        raise InputError(f"{where}: source must be a string, got {_short(out['source'])}")
    return out


def checked_intrinsics(d: dict, where: str) -> tuple[np.ndarray, np.ndarray]:
    """``camera_matrix`` (3x3: fx and fy above 0, last row 0 0 1) and ``dist_coeffs`` (1 to 5
    finite numbers, k1 k2 p1 p2 k3; zeros when absent) of an intrinsics JSON object, as
    (K (3, 3), dist (5,)). InputError naming ``where`` and the field when one is unusable."""
    if d.get("camera_matrix") is None:
        raise InputError(f"{where}: no camera_matrix: expected [[fx, 0, cx], [0, fy, cy], "
                         "[0, 0, 1]]")
    K = _pinhole(d, where)
    dist = np.zeros(5)
    if d.get("dist_coeffs") is not None:
        given = _numbers(d, "dist_coeffs", where, ((1, 5),))
        dist[: len(given)] = given
    return K, dist
