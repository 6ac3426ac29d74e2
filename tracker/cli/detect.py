"""``cueball detect IMAGE [--calibration F] [-o out.json]``: the balls in one still image.

Writes JSON ``{"image", "image_size", "balls": [{"ball", "x_px", "y_px", "r_px", "x_mm", "y_mm",
"confidence"}, ...], "calibration": {...}}``; to stdout when no ``-o`` is given. Without
``--calibration`` the table is found in the image itself.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from calibration.calibrate import Calibration
from calibration.errors import InputError
from calibration.find import calibrate_image
from calibration.images import read_colour_image
from tracker.cli import READYING, said_if_slow
from tracker.io.checks import writable_path
from tracker.vision.colour import ColourClassifier
from tracker.vision.detect import BallDetector, Detections, not_snooker, ready_kernels


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("image", help="a still image of the table (any format OpenCV reads)")
    parser.add_argument("--calibration", "-c", metavar="F",
                        help="calibration JSON from `cueball calibrate` (default: calibrate "
                             "from the image itself)")
    parser.add_argument("-o", "--output", metavar="OUT.json",
                        help="write the JSON here instead of stdout")


def find_balls(image: np.ndarray, calibration: Calibration
               ) -> tuple[Detections, BallDetector]:
    """All balls in one BGR image (H, W, 3) uint8, classified (Detections with ``cls`` set),
    and the detector that found them (what it measured of them: ``not_snooker``)."""
    detector = BallDetector(calibration)
    candidates = detector.detect(image)
    return (ColourClassifier(table=calibration.table).classify(candidates, detector.cloth),
            detector)


def run(args: argparse.Namespace) -> int:
    if args.output:
        writable_path(args.output, "-o")
    image = read_colour_image(args.image)
    h, w = image.shape[:2]
    if args.calibration:
        cal = Calibration.load(args.calibration)
        if tuple(cal.image_size) != (w, h):
            cw, ch = cal.image_size
            raise InputError(f"calibration {args.calibration} is for {cw}x{ch} images but "
                             f"{args.image} is {w}x{h}")
    else:
        cal = calibrate_image(image, source=str(args.image))
    try:
        with said_if_slow(READYING, quiet=getattr(args, "quiet", False)):
            ready_kernels()
        balls, detector = find_balls(image, cal)
    except ValueError as exc:
        raise InputError(f"cannot detect balls in {args.image}: {exc}") from None
    if why := not_snooker(detector):
        print(f"cueball detect: warning: {why}", file=sys.stderr)
    out = {
        "image": str(args.image),
        "image_size": [w, h],
        "balls": [balls.record(i) for i in np.argsort(balls.cls, kind="stable")],
        "calibration": cal.to_dict(),
    }
    try:
        text = json.dumps(out, indent=2, allow_nan=False) + "\n"
    except ValueError:
        raise InputError(f"a ball in {args.image} has no finite position on the table: check "
                         "the calibration") from None
    if args.output:
        try:
            Path(args.output).write_text(text)
        except OSError as exc:
            raise InputError(f"cannot write {args.output}: {exc.strerror}") from None
    else:
        sys.stdout.write(text)
    return 0
