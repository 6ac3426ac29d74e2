"""``cueball calibrate SOURCE [-o calibration.json] [--game snooker|pool|auto]
[--table 7ft|8ft|9ft|auto] [--points FILE] [--show out.png]``."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import cv2
import numpy as np

from calibration.calibrate import Calibration, read_json
from calibration.errors import InputError
from calibration.specs import POOL_TABLES, SNOOKER
from calibration.validate import checked_intrinsics


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("source", metavar="SOURCE", help="an image or a video of the table")
    parser.add_argument("-o", "--output", metavar="FILE",
                        help="write the calibration JSON here (default: stdout)")
    parser.add_argument("--points", metavar="FILE",
                        help="JSON {landmark_name: [x_px, y_px]} of hand-picked landmarks "
                             "(names from SnookerTableSpec.landmarks_mm(), or PoolTableSpec's "
                             "with --game pool) instead of finding "
                             "the table automatically")
    parser.add_argument("--show", metavar="PNG",
                        help="draw the fitted table over the image and save it here")
    parser.add_argument("--intrinsics", metavar="FILE",
                        help="JSON with the camera's camera_matrix (3x3) and dist_coeffs "
                             "(k1 k2 p1 p2 k3) to use instead of estimating them")
    parser.add_argument("--game", choices=("snooker", "pool", "auto"), default="auto",
                        help="the table's game; auto (the default) tells it from the balls' "
                             "size on the cloth and the table's markings")
    parser.add_argument("--table", choices=("7ft", "8ft", "9ft", "auto"), default="auto",
                        help="a pool table's size; auto (the default) reads it from the balls' "
                             "size, else takes 9ft with a warning")




def _first_image(source: str) -> np.ndarray:
    from calibration.find import read_frames, read_image

    try:
        return read_image(source)
    except InputError:
        if not Path(source).exists():
            raise
    return read_frames(source, seconds=0.0, count=1)[0]


_HOW = {"given": "given", "table_size": "a pool size given", "balls": "from the balls' size",
        "sights": "from the sights on its rails", "painted_lines": "from its baulk line and D",
        "assumed": "assumed"}


def _found_line(found) -> str:
    """What was found, said in a line: the game and the size, and how each was told."""
    if found.game == "snooker":
        return f"snooker table ({_HOW[found.game_from]})"
    return (f"pool table ({_HOW[found.game_from]}), {found.size} "
            f"({_HOW[found.size_from]})")


def run(args: argparse.Namespace) -> int:
    """Calibrate, write the JSON, optionally draw. Returns the exit status; bad input prints one
    line on stderr and returns 2."""
    from calibration.draw import draw
    from calibration.find import calibrate_points, calibrate_source, uncertainty_warning
    from calibration.pool import find_table_in_source
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
        if args.game == "snooker" and args.table != "auto":
            raise InputError(f"--table {args.table} is a pool table's size: not one for "
                             "--game snooker")
        if args.points:
            points = read_json(args.points, "points file")
            image = _first_image(args.source)
            h, w = image.shape[:2]
            names = set(points) if isinstance(points, dict) else set()
            pool_names = set(POOL_TABLES["9ft"].landmarks_mm())
            # with --game auto, points all named as a pool table's are a pool table's
            pool = (args.game == "pool" or args.table != "auto"
                    or (args.game == "auto" and names and names <= pool_names
                        and not names <= set(SNOOKER.landmarks_mm())))
            table = POOL_TABLES[args.table if args.table != "auto" else "9ft"] if pool else SNOOKER
            try:
                cal = calibrate_points(points, (w, h), table, source=str(args.source))
                # what the points make is checked as a calibration file would be
                Calibration.from_dict(cal.to_dict(), where="their calibration")
            except InputError as exc:
                raise InputError(f"points file {args.points}: {exc}") from None
            said = [f"{cal.game} table" + (f", {table.name}" if pool else "")
                    + " (from the points)"]
            if pool and args.table == "auto":
                said.append("warning: a pool table's size is not told by its points: taken to "
                            "be 9 ft (give --table 7ft, 8ft or 9ft)")
        elif args.game == "snooker":
            cal, image = calibrate_source(args.source, camera_matrix=K, dist_coeffs=dist)
            said = ["snooker table (given)"]
        else:
            found, image = find_table_in_source(args.source, args.game, args.table, K, dist)
            cal = found.calibration
            said = [_found_line(found)] + [f"warning: {w}" for w in found.warnings]
        if cal.uncertainty_mm is not None:
            said.append(f"uncertain by {cal.uncertainty_mm:.2f} mm at the balls (landmarks "
                        f"fitted to {cal.reprojection_error_mm:.2f} mm RMS)")
        if (why := uncertainty_warning(cal)) is not None:
            said.append(f"warning: {why}")
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
        if not getattr(args, "quiet", False):
            for line in said:
                print(f"cueball calibrate: {line}", file=sys.stderr)
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
