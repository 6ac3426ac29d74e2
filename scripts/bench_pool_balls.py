"""Benchmark of the pool ball finder (``tracker.vision.pool_balls``); prints tables.

1. Real frames: ``../shared/realdata/pool-8ball/*/frames/frame_{first,last}.png`` with their
   boxes (``x y w h category``, 1 cue, 2 eight, 3 solid, 4 stripe). The table region is the
   convex hull of the mask's playing field (value 5). A found ball matches the nearest unmatched
   box that holds its centre or whose centre is within half the box's width. Per clip and in
   total: recall, precision, category accuracy on the matched balls, and the median and 95th
   percentile of the centre error against the box's centre (px).
2. Synthetic frames (``tracker.vision.pool_synthetic``): all sixteen balls at random places and
   turns, on five cloths under three lamps. Recall, kind accuracy, the share of found object
   balls given a number and the share of those numbers that are right.

3. ``--snooker``: the snooker detector (``tracker.vision.stages.make_detect``) on the same real
   frames, its calibration the homography of a 9 ft pool table onto the field's four corners:
   recall and precision, for comparison.

Usage: python scripts/bench_pool_balls.py [--realdata DIR] [--synthetic N] [--no-real] [--snooker]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from calibration.specs import POOL_BALLS, pool_kind  # noqa: E402
from tracker.vision.pool_balls import PoolBallFinder  # noqa: E402
from tracker.vision.pool_synthetic import CLOTHS_BGR, draw_frame, random_layout  # noqa: E402

# beside the checkout, or beside the folder of worktrees
REALDATA = next((p / "shared" / "realdata" for p in (ROOT.parent, ROOT.parent.parent)
                 if (p / "shared" / "realdata").is_dir()), ROOT.parent / "shared" / "realdata")
CATEGORY = {1: "cue", 2: "eight", 3: "solid", 4: "stripe"}
LAMPS = {"neutral": (1.0, 1.0, 1.0), "warm": (0.8, 0.95, 1.15), "cool": (1.12, 1.0, 0.85)}


def field_polygon(mask: np.ndarray) -> np.ndarray:
    """The convex hull (N, 2) px of a mask's playing field (value 5)."""
    field = (mask == 5).astype(np.uint8)
    contours, _ = cv2.findContours(field, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    return cv2.convexHull(max(contours, key=cv2.contourArea)).reshape(-1, 2).astype(np.float64)


def real_frames(root: Path):
    """(clip, frame name, image, polygon, boxes (N, 5)) for every labelled frame under root."""
    for clip in sorted(p for p in (root / "pool-8ball").glob("*") if p.is_dir()):
        for name in ("first", "last"):
            image = cv2.imread(str(clip / "frames" / f"frame_{name}.png"))
            mask = cv2.imread(str(clip / "masks" / f"frame_{name}.png"), cv2.IMREAD_GRAYSCALE)
            boxes = np.loadtxt(clip / "bounding_boxes" / f"frame_{name}_bbox.txt", ndmin=2)
            yield clip.name, name, image, field_polygon(mask), boxes


def match(balls, boxes: np.ndarray) -> list[tuple[int, int]]:
    """(ball index, box index) pairs: each box takes the nearest unmatched ball whose centre it
    holds or that is within half its width of its centre."""
    pairs, used = [], set()
    for j, (x, y, w, h, _) in enumerate(boxes):
        c = np.array([x + w / 2, y + h / 2])
        order = sorted(range(len(balls)), key=lambda i: np.hypot(*(np.array(balls[i].xy_px) - c)))
        for i in order:
            bx, by = balls[i].xy_px
            inside = x <= bx <= x + w and y <= by <= y + h
            if i not in used and (inside or np.hypot(bx - c[0], by - c[1]) <= w / 2):
                pairs.append((i, j))
                used.add(i)
                break
    return pairs


def score_real(root: Path) -> dict:
    rows, tot = [], {"boxes": 0, "found": 0, "matched": 0, "kind_ok": 0, "err": []}
    for clip, name, image, polygon, boxes in real_frames(root):
        balls = PoolBallFinder(polygon).find(image)
        pairs = match(balls, boxes)
        kind_ok = sum(balls[i].kind == CATEGORY[int(boxes[j, 4])] for i, j in pairs)
        err = [float(np.hypot(balls[i].xy_px[0] - (boxes[j, 0] + boxes[j, 2] / 2),
                              balls[i].xy_px[1] - (boxes[j, 1] + boxes[j, 3] / 2)))
               for i, j in pairs]
        rows.append((f"{clip}/{name}", len(boxes), len(balls), len(pairs), kind_ok, err))
        tot["boxes"] += len(boxes)
        tot["found"] += len(balls)
        tot["matched"] += len(pairs)
        tot["kind_ok"] += kind_ok
        tot["err"] += err
    print(f"{'frame':24s} {'boxes':>5s} {'found':>5s} {'recall':>7s} {'precision':>9s} "
          f"{'category':>8s} {'err_med_px':>10s} {'err_p95_px':>10s}")
    for label, nb, nf, nm, ok, err in rows + [("total", tot["boxes"], tot["found"],
                                                tot["matched"], tot["kind_ok"], tot["err"])]:
        print(f"{label:24s} {nb:5d} {nf:5d} {nm / max(nb, 1):7.3f} {nm / max(nf, 1):9.3f} "
              f"{ok / max(nm, 1):8.3f} {np.median(err) if err else float('nan'):10.2f} "
              f"{np.percentile(err, 95) if err else float('nan'):10.2f}")
    return tot


def score_snooker_detector(root: Path) -> None:
    from types import SimpleNamespace

    from calibration.calibrate import Calibration
    from calibration.specs import POOL_9FT
    from tracker.vision.pool_balls import _homography_from_quad, _quad
    from tracker.vision.stages import make_detect

    boxes_n = found_n = matched_n = 0
    for _clip, _name, image, polygon, boxes in real_frames(root):
        quad = _quad(polygon)
        side = np.linalg.norm(quad - np.roll(quad, -1, axis=0), axis=1)
        first = 0 if side[0] + side[2] <= side[1] + side[3] else 1
        H = _homography_from_quad(quad, POOL_9FT, first)
        cal = Calibration(H, (image.shape[1], image.shape[0]), table=POOL_9FT)
        dets = make_detect(cal)(image)
        balls = [SimpleNamespace(xy_px=tuple(p)) for p in dets.xy_px]
        boxes_n += len(boxes)
        found_n += len(balls)
        matched_n += len(match(balls, boxes))
    print(f"\nsnooker detector on the real frames: {boxes_n} boxes, {found_n} found, "
          f"recall {matched_n / max(boxes_n, 1):.3f}, precision {matched_n / max(found_n, 1):.3f}")


def score_synthetic(n_frames: int) -> dict:
    rng = np.random.default_rng(2026)
    tot = {"balls": 0, "found": 0, "kind_ok": 0, "numbered": 0, "number_ok": 0, "objects": 0,
           "false": 0}
    rows = []
    cloths, lamps = list(CLOTHS_BGR), list(LAMPS)
    for k in range(n_frames):
        cloth, lamp = cloths[k % len(cloths)], lamps[(k // len(cloths)) % len(lamps)]
        r_px = float(rng.uniform(8.0, 12.0))
        layout = random_layout(list(POOL_BALLS), rng, r_px=r_px)
        frame = draw_frame(layout, r_px=r_px, cloth=cloth, tint=LAMPS[lamp], seed=k)
        balls = PoolBallFinder(frame.polygon).find(frame.image)
        found = kind_ok = numbered = number_ok = objects = 0
        for b in balls:
            d = {i: np.hypot(b.xy_px[0] - x, b.xy_px[1] - y) for i, (x, y) in layout.items()}
            i = min(d, key=d.get)
            if d[i] > r_px:
                tot["false"] += 1
                continue
            found += 1
            kind_ok += b.kind == pool_kind(i)
            if pool_kind(i) in ("solid", "stripe"):
                objects += 1
                numbered += b.ball is not None
                number_ok += b.ball == i
        rows.append((f"{cloth}/{lamp}", len(layout), found, kind_ok, numbered, number_ok, objects))
        for key, v in zip(("balls", "found", "kind_ok", "numbered", "number_ok", "objects"),
                          rows[-1][1:]):
            tot[key] += v
    print(f"\n{'synthetic frame':24s} {'balls':>5s} {'recall':>7s} {'kind':>7s} "
          f"{'numbered':>8s} {'number_right':>12s}")
    for label, nb, nf, ok, nn, nok, no in rows + [("total", tot["balls"], tot["found"],
                                                   tot["kind_ok"], tot["numbered"],
                                                   tot["number_ok"], tot["objects"])]:
        print(f"{label:24s} {nb:5d} {nf / nb:7.3f} {ok / max(nf, 1):7.3f} "
              f"{nn / max(no, 1):8.3f} {nok / max(nn, 1):12.3f}")
    print(f"false detections: {tot['false']}")
    return tot


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--realdata", type=Path, default=REALDATA)
    ap.add_argument("--synthetic", type=int, default=15, help="synthetic frames (0: none)")
    ap.add_argument("--no-real", action="store_true")
    ap.add_argument("--snooker", action="store_true", help="also the snooker detector")
    args = ap.parse_args()
    if not args.no_real:
        if (args.realdata / "pool-8ball").is_dir():
            score_real(args.realdata)
            if args.snooker:
                score_snooker_detector(args.realdata)
        else:
            print(f"no real frames under {args.realdata / 'pool-8ball'}")
    if args.synthetic > 0:
        score_synthetic(args.synthetic)


if __name__ == "__main__":
    main()
