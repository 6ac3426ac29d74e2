"""Benchmark the pool table finder: one row per source.

Real frames (``pool-8ball/*/frames/frame_{first,last}.png``, when the footage is there): the
table found or not, the game and size taken and how, the overlap (IoU) with the labelled
playing field (mask value 5, with the balls on it) of the bed within the cushion noses and of
the cushions' outer edge (the labelled field takes in the cushions' tops), and the pixel error
of the four corners of that outer edge against the corners of the labelled field. Synthetic
stills (``calibration.pool_synthetic``, every size, view and cloth): the table-plane error in mm
against the true camera, up to the table's turn end for end.

    python scripts/bench_pool_table.py [--realdata DIR] [--only real|synthetic] [--show DIR]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from calibration.cloth import outline_quad  # noqa: E402
from calibration.draw import draw  # noqa: E402
from calibration.errors import InputError  # noqa: E402
from calibration.images import read_image  # noqa: E402
from calibration.pool import SIGHT_RISE_MM, find_pool_table, find_table  # noqa: E402
from calibration.pool_synthetic import (  # noqa: E402
    POOL_CLOTH_BGR,
    pool_plane_error_mm,
    pool_scene_balls,
    pool_scene_cameras,
    render_pool_table,
)
from calibration.specs import POOL_TABLES  # noqa: E402

REALDATA = Path(os.environ.get("CUEBALL_REALDATA", ROOT.parent / "shared" / "realdata"))


def _rectangle_px(cal, grow_mm: float, z_mm: float) -> np.ndarray:
    """The outline (200, 2) raw px of the cushion-nose rectangle grown by ``grow_mm`` each way,
    at height ``z_mm`` (through the camera when its pose is known)."""
    t = cal.table
    a, W, L = -grow_mm, t.width_mm + grow_mm, t.length_mm + grow_mm
    corners = np.array([[a, a], [W, a], [W, L], [a, L]])
    edge = np.vstack([p + np.linspace(0, 1, 50, endpoint=False)[:, None] * (q - p)
                      for p, q in zip(corners, np.roll(corners, -1, axis=0))])
    cam = cal.camera()
    if cam is None:
        return cal.table_to_px(edge)
    return cam.project(np.c_[edge, np.full(len(edge), z_mm)])


def _iou(poly_px: np.ndarray, field: np.ndarray) -> float:
    fitted = np.zeros(field.shape, np.uint8)
    cv2.fillPoly(fitted, [np.round(poly_px * 16).astype(np.int32)], 1, cv2.LINE_8, 4)
    inter = (field & (fitted > 0)).sum()
    return float(inter / (field | (fitted > 0)).sum())


def _corner_error_px(corners_px: np.ndarray, field: np.ndarray) -> np.ndarray:
    """Distance (4,) px from each of the labelled field's four corners (the quadrilateral that
    fits its outline best) to the nearest of ``corners_px`` (4, 2)."""
    contours, _ = cv2.findContours(field.astype(np.uint8), cv2.RETR_EXTERNAL,
                                   cv2.CHAIN_APPROX_NONE)
    hull = cv2.convexHull(max(contours, key=cv2.contourArea)).reshape(-1, 2).astype(float)
    quad = outline_quad(hull)
    d = np.hypot(*(quad[:, None, :] - corners_px[None, :, :]).transpose(2, 0, 1))
    return d.min(axis=1)


def real_rows(realdata: Path, show: Path | None) -> list[dict]:
    rows = []
    for frame in sorted((realdata / "pool-8ball").glob("game*_clip*/frames/frame_*.png")):
        clip = frame.parents[1].name
        name = f"{clip}/{frame.stem.replace('frame_', '')}"
        mask = cv2.imread(str(frame.parents[1] / "masks" / frame.name), cv2.IMREAD_GRAYSCALE)
        field = (mask >= 1) & (mask <= 5)
        image = read_image(frame)
        t0 = time.perf_counter()
        try:
            found = find_table(image, source=str(frame))
        except InputError as exc:
            rows.append({"name": name, "ok": False, "note": str(exc),
                         "ms": 1000 * (time.perf_counter() - t0)})
            continue
        ms = 1000 * (time.perf_counter() - t0)
        cal = found.calibration
        t = cal.table
        row = {"name": name, "ok": True, "ms": ms, "game": f"{found.game}/{found.game_from}",
               "size": f"{found.size}/{found.size_from}"}
        if found.game == "pool":
            top = t.cushion_nose_height_mm + SIGHT_RISE_MM
            outer = _rectangle_px(cal, t.cushion_depth_mm, top)
            row["iou_nose"] = _iou(_rectangle_px(cal, 0.0, 0.0), field)
            row["iou_outer"] = _iou(outer, field)
            corners = outer[[0, 50, 100, 150]]
            err = _corner_error_px(corners, field)
            row["corner_px"] = (float(np.median(err)), float(err.max()))
        rows.append(row)
        if show is not None:
            cv2.imwrite(str(show / f"{clip}_{frame.stem}.png"), draw(image, cal))
    return rows


def synthetic_rows(cloths: list[str]) -> list[dict]:
    rows = []
    for size, table in POOL_TABLES.items():
        for view, camera in pool_scene_cameras(table).items():
            for i, cloth in enumerate(cloths):
                rail = ("wood", "black")[i % 2]
                image = render_pool_table(camera, table, pool_scene_balls(table), cloth=cloth,
                                          rail=rail, seed=i)
                name = f"{size} {view} {cloth}/{rail}"
                t0 = time.perf_counter()
                try:
                    found = find_pool_table(image)
                except InputError as exc:
                    rows.append({"name": name, "ok": False, "note": str(exc)})
                    continue
                ms = 1000 * (time.perf_counter() - t0)
                row = {"name": name, "ok": True, "ms": ms, "view": view,
                       "res": f"{camera.image_size[1]}p",
                       "size": f"{found.size}/{found.size_from}"}
                if found.size == size:
                    row["plane_mm"] = pool_plane_error_mm(found.calibration, camera)
                else:  # the wrong size: the error is the sizes' difference, not the fit's
                    given = find_pool_table(image, size)
                    row["plane_mm"] = pool_plane_error_mm(given.calibration, camera)
                    row["note"] = "plane error with the size given"
                rows.append(row)
    return rows


def _fmt(v, spec):
    return format(v, spec) if v is not None else "-"


def _found(r: dict, width: int) -> bool:
    """Whether row ``r`` found its table; the line saying it did not is printed here."""
    if not r["ok"]:
        print(f"{r['name']:{width}} {'no':5} {r['note']}")
    return r["ok"]


def print_real(rows: list[dict]) -> None:
    print(f"{'real frame':24} {'found':5} {'game':14} {'size':13} {'iou_nose':>8} "
          f"{'iou_outer':>9} {'corner_px med/max':>17} {'ms':>6}")
    for r in filter(lambda r: _found(r, 24), rows):
        c = r.get("corner_px")
        corner = f"{c[0]:.1f}/{c[1]:.1f}" if c else "-"
        print(f"{r['name']:24} {'yes':5} {r['game']:14} {r['size']:13} "
              f"{_fmt(r.get('iou_nose'), '8.3f'):>8} {_fmt(r.get('iou_outer'), '9.3f'):>9} "
              f"{corner:>17} {r['ms']:6.0f}")
    ok = [r for r in rows if r["ok"]]
    clips = {r["name"].split("/")[0] for r in rows}
    found_clips = {r["name"].split("/")[0] for r in ok}
    pool = [r for r in ok if "iou_nose" in r]
    print(f"\nreal: table found on {len(ok)}/{len(rows)} frames, {len(found_clips)}/{len(clips)} "
          f"clips; taken for pool on {len(pool)}")
    if pool:
        nose = np.array([r["iou_nose"] for r in pool])
        outer = np.array([r["iou_outer"] for r in pool])
        corners = np.array([r["corner_px"][1] for r in pool])
        print(f"IoU nose median {np.median(nose):.3f} min {nose.min():.3f}; outer median "
              f"{np.median(outer):.3f} min {outer.min():.3f}; worst corner px median "
              f"{np.median(corners):.1f} max {corners.max():.1f}")


def print_synthetic(rows: list[dict]) -> None:
    print(f"\n{'synthetic still':30} {'found':5} {'res':5} {'size':12} {'rms_mm':>7} "
          f"{'max_mm':>7} {'ms':>6} note")
    for r in filter(lambda r: _found(r, 30), rows):
        rms, mx = r["plane_mm"]
        print(f"{r['name']:30} {'yes':5} {r['res']:5} {r['size']:12} {rms:7.2f} {mx:7.2f} "
              f"{r['ms']:6.0f} {r.get('note', '')}")
    ok = [r for r in rows if r["ok"]]
    print(f"\nsynthetic: found {len(ok)}/{len(rows)}; size read right "
          f"{sum(r['size'].split('/')[0] == r['name'].split()[0] for r in ok)}/{len(ok)}")
    for view in ("overhead", "tilted", "broadcast"):
        v = [r["plane_mm"] for r in ok if r["view"] == view]
        if v:
            rms, mx = np.array(v).T
            print(f"{view:9}: RMS median {np.median(rms):.2f} max {rms.max():.2f} mm; "
                  f"max error worst {mx.max():.2f} mm")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--realdata", type=Path, default=REALDATA)
    parser.add_argument("--only", choices=("real", "synthetic"))
    parser.add_argument("--cloths", default=",".join(POOL_CLOTH_BGR),
                        help="comma-separated cloths for the synthetic stills")
    parser.add_argument("--show", type=Path, help="write each real frame's overlay here")
    args = parser.parse_args()
    if args.show:
        args.show.mkdir(parents=True, exist_ok=True)
    if args.only != "synthetic":
        if (args.realdata / "pool-8ball").is_dir():
            print_real(real_rows(args.realdata, args.show))
        else:
            print(f"real frames: none at {args.realdata / 'pool-8ball'}")
    if args.only != "real":
        print_synthetic(synthetic_rows(args.cloths.split(",")))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
