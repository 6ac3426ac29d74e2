"""``cueball calibrate SOURCE [-o calibration.json] [--points FILE] [--show out.png]``."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import cv2
import numpy as np

from calibration.calibrate import Calibration, read_json
from calibration.errors import InputError
from calibration.validate import checked_intrinsics


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("source", metavar="SOURCE", help="an image or a video of the table")
    parser.add_argument("-o", "--output", metavar="FILE",
                        help="write the calibration JSON here (default: stdout)")
    parser.add_argument("--points", metavar="FILE",
                        help="JSON {landmark_name: [x_px, y_px]} of hand-picked landmarks "
                             "(names from SnookerTableSpec.landmarks_mm()) instead of finding "
                             "the table automatically")
    parser.add_argument("--show", metavar="PNG",
                        help="draw the fitted table over the image and save it here")
    parser.add_argument("--intrinsics", metavar="FILE",
                        help="JSON with the camera's camera_matrix (3x3) and dist_coeffs "
                             "(k1 k2 p1 p2 k3) to use instead of estimating them")




def _first_image(source: str) -> np.ndarray:
    from calibration.find import read_frames, read_image

    try:
        return read_image(source)
    except InputError:
        if not Path(source).exists():
            raise
    return read_frames(source, seconds=0.0, count=1)[0]


def run(args: argparse.Namespace) -> int:
    """Calibrate, write the JSON, optionally draw. Returns the exit status; bad input prints one
    line on stderr and returns 2."""
    from calibration.draw import draw
    from calibration.find import calibrate_points, calibrate_source
    from tracker.io.checks import writable_path

    try:
        if args.output:
            writable_path(args.output, "-o")
        if args.show:
            writable_path(args.show, "--show")
            if not cv2.haveImageWriter(str(args.show)):
                raise InputError(f"--show {args.show}: expected an image file name (.png, .jpg)")
        K = dist = None
        if args.intrinsics:
            intr = read_json(args.intrinsics, "intrinsics")
            K, dist = checked_intrinsics(intr, f"intrinsics {args.intrinsics}")
        if args.points:
            points = read_json(args.points, "points file")
            image = _first_image(args.source)
            h, w = image.shape[:2]
            try:
                cal = calibrate_points(points, (w, h), source=str(args.source))
                # what the points make is checked as a calibration file would be
                Calibration.from_dict(cal.to_dict(), where="their calibration")
            except InputError as exc:
                raise InputError(f"points file {args.points}: {exc}") from None
        else:
            cal, image = calibrate_source(args.source, camera_matrix=K, dist_coeffs=dist)
        if cal.uncertainty_mm is not None:
            print(f"cueball calibrate: uncertain by {cal.uncertainty_mm:.2f} mm at the balls "
                  f"(landmarks fitted to {cal.reprojection_error_mm:.2f} mm RMS)",
                  file=sys.stderr)
        text = json.dumps(cal.to_dict(), indent=2)
        try:
            if args.output:
                Path(args.output).write_text(text + "\n")
            else:
                sys.stdout.write(text + "\n")
        except OSError as exc:
            raise InputError(f"cannot write {args.output or 'stdout'}: {exc.strerror}") from None
        if args.show:
            if not cv2.imwrite(str(args.show), draw(image, cal)):
                raise InputError(f"cannot write {args.show}")
    except InputError as exc:
        print(f"cueball calibrate: error: {exc}", file=sys.stderr)
        return 2
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="cueball calibrate",
                                     description="Find the table: image px <-> table mm.")
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    raise SystemExit(main())
