"""Ground truth beside every generated clip, and reading it back.

``NAME.truth.json``: the clip (fps, frames, image size), the camera (intrinsics, distortion,
pose), the table-plane homographies, every event with its time and frame, the shot records, and
the score after each shot. ``NAME.balls.csv.gz``: one row per ball per frame:
``frame,t,track_id,ball,x_mm,y_mm,z_mm,x_px,y_px,r_px,visible,state`` where ``x_px, y_px`` is the
3D centre through the real (distorting) camera, ``r_px`` the apparent radius, ``visible`` the
fraction of the ball's outline not hidden (0..1), and ``state`` one of ``rest``, ``moving``,
``airborne``, ``potted``, ``off_table``, ``in_hand``. Clips whose balls carry their orientation
(pool) add ``qw,qx,qy,qz``: the unit quaternion turning the ball's own frame into the table's.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

BALL_COLUMNS = ("frame", "t", "track_id", "ball", "x_mm", "y_mm", "z_mm", "x_px", "y_px", "r_px",
                "visible", "state")
STATES = ("rest", "moving", "airborne", "potted", "off_table", "in_hand")
ORIENT_COLUMNS = ("qw", "qx", "qy", "qz")


@dataclass
class BallTruth:
    """Per-frame ball truth as parallel arrays over F frames and N balls.

    ids/classes (N,); t (F,); pos_mm (F, N, 3); px (F, N, 2); r_px (F, N); visible (F, N);
    state (F, N) of strings from ``STATES``; orient (F, N, 4) quaternions (w, x, y, z) with
    w >= 0, or None when the balls' orientations were not carried.
    """

    ids: list[str]
    classes: list[str]
    t: np.ndarray
    pos_mm: np.ndarray
    px: np.ndarray
    r_px: np.ndarray
    visible: np.ndarray
    state: np.ndarray
    orient: np.ndarray | None = None

    def __post_init__(self):
        F, N = len(self.t), len(self.ids)
        if self.orient is not None:
            q = np.asarray(self.orient, np.float64)
            self.orient = np.where(q[..., :1] < 0, -q, q)  # q and -q are one turn
        for name, shape in (("pos_mm", (F, N, 3)), ("px", (F, N, 2)), ("r_px", (F, N)),
                            ("visible", (F, N)), ("state", (F, N)), ("orient", (F, N, 4))):
            if name == "orient" and self.orient is None:
                continue
            if getattr(self, name).shape != shape:
                raise ValueError(f"BallTruth.{name} must have shape {shape}, "
                                 f"got {getattr(self, name).shape}")


def truth_paths(video_path: str | Path) -> tuple[Path, Path]:
    """(json, csv.gz) paths beside a clip ``NAME.mp4``."""
    p = Path(video_path)
    return p.with_suffix(".truth.json"), p.with_suffix(".balls.csv.gz")


def write_truth(video_path: str | Path, meta: dict, balls: BallTruth) -> tuple[Path, Path]:
    json_path, csv_path = truth_paths(video_path)
    meta = dict(meta, balls_csv=csv_path.name, video=Path(video_path).name)
    json_path.write_text(json.dumps(meta, indent=1, default=_jsonable) + "\n")
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    q = balls.orient
    w.writerow(BALL_COLUMNS + (() if q is None else ORIENT_COLUMNS))
    F, N = balls.state.shape
    for f in range(F):
        t = f"{balls.t[f]:.6f}"
        for n in range(N):
            x, y, z = balls.pos_mm[f, n]
            u, v = balls.px[f, n]
            row = (f, t, balls.ids[n], balls.classes[n], f"{x:.3f}", f"{y:.3f}",
                   f"{z:.3f}", f"{u:.3f}", f"{v:.3f}", f"{balls.r_px[f, n]:.3f}",
                   f"{balls.visible[f, n]:.3f}", balls.state[f, n])
            w.writerow(row if q is None else row + tuple(f"{c:.5f}" for c in q[f, n]))
    # mtime=0 keeps the file byte-identical across regenerations
    with open(csv_path, "wb") as fh, gzip.GzipFile("", "wb", fileobj=fh, mtime=0) as gz:
        gz.write(buf.getvalue().encode())
    return json_path, csv_path


def read_truth(video_or_json: str | Path) -> tuple[dict, BallTruth]:
    """(meta dict, BallTruth) for a clip, from ``NAME.mp4`` or ``NAME.truth.json``."""
    p = Path(video_or_json)
    json_path = p if p.name.endswith(".truth.json") else truth_paths(p)[0]
    meta = json.loads(json_path.read_text())
    with gzip.open(json_path.parent / meta["balls_csv"], "rt") as fh:
        rows = list(csv.DictReader(fh))
    ids: list[str] = []
    classes: list[str] = []
    for r in rows:
        if r["frame"] != "0":
            break
        ids.append(r["track_id"])
        classes.append(r["ball"])
    N = len(ids)
    F = len(rows) // N if N else 0
    num = np.array([[float(r[c]) for c in ("t", "x_mm", "y_mm", "z_mm", "x_px", "y_px", "r_px",
                                             "visible")] for r in rows]).reshape(F, N, 8)
    state = np.array([r["state"] for r in rows]).reshape(F, N)
    orient = None
    if rows and "qw" in rows[0]:
        orient = np.array([[float(r[c]) for c in ORIENT_COLUMNS] for r in rows]).reshape(F, N, 4)
    return meta, BallTruth(ids, classes, num[:, 0, 0], num[..., 1:4], num[..., 4:6],
                           num[..., 6], num[..., 7], state, orient)


def _jsonable(o):
    if isinstance(o, np.ndarray):
        return o.tolist()
    if isinstance(o, np.generic):
        return o.item()
    raise TypeError(f"not JSON serialisable: {type(o).__name__}")
