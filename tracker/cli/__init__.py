"""The ``cueball`` command line: it picks the sources and the sinks; the work is elsewhere."""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import sys
import threading
from collections.abc import Iterator, Sequence

from calibration.errors import InputError
from calibration.images import MAX_IMAGE_PX
from tracker import __version__

# command -> (module with add_arguments(parser) and run(args) -> int, one-line help)
COMMANDS = {
    "simulate": ("tracker.cli.simulate", "make a clip of a named scenario with exact ground truth"),
    "calibrate": ("tracker.cli.calibrate", "find the table in an image or video; write the "
                  "calibration JSON"),
    "detect": ("tracker.cli.detect", "find and classify every ball in one still image"),
    "track": ("tracker.cli.track", "follow every ball through a video, camera or stream; "
              "write the event log, tracks and an overlay video"),
    "batch": ("tracker.cli.batch", "track many videos, a process each; write the season's index"),
    "referee": ("tracker.cli.referee", "run the WPBSA rules engine over shot records "
                "(JSONL); one result JSON per line"),
    "report": ("tracker.cli.report", "write a self-contained HTML match report "
               "from events.jsonl"),
}


# said while the detector's compiled code is made (a machine's first run) or loaded
READYING = ("cueball: readying the ball detector's compiled code (some seconds on a machine's "
            "first run; later runs load it)")


@contextlib.contextmanager
def said_if_slow(message: str, after_s: float = 1.0, quiet: bool = False) -> Iterator[None]:
    """Runs the block; if it is still running after ``after_s`` seconds, ``message`` goes to
    stderr (once, while it runs), so that a user waiting on a quiet step knows why."""
    timer = None
    if not quiet:
        timer = threading.Timer(after_s, lambda: print(message, file=sys.stderr, flush=True))
        timer.daemon = True
        timer.start()
    try:
        yield
    finally:
        if timer is not None:
            timer.cancel()


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="cueball",
        description="Snooker from one fixed camera: calibrate the table, track the balls, "
                    "referee the frame.",
    )
    parser.add_argument("--version", action="version", version=f"cueball {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, (module, help_text) in COMMANDS.items():
        try:
            mod = importlib.import_module(module)
        except ModuleNotFoundError as exc:
            if exc.name != module:
                raise
            continue  # a part not in this build
        p = sub.add_parser(name, help=help_text, description=help_text[0].upper() + help_text[1:])
        mod.add_arguments(p)
        with contextlib.suppress(argparse.ArgumentError):  # unless the command has its own
            p.add_argument("--quiet", action="store_true",
                           help="no progress or status lines (errors are still said)")
        p.set_defaults(run=mod.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    # a file that is not a video is said in one line of our own, not with FFmpeg's log
    # beside it (OpenCV's FFmpeg reader logs its errors to stderr; the variable set before
    # running keeps them)
    os.environ.setdefault("OPENCV_FFMPEG_LOGLEVEL", "-8")
    # a picture in a format whose size is not read from its header before decoding
    # (calibration.images) is refused by OpenCV past this many pixels
    os.environ.setdefault("OPENCV_IO_MAX_IMAGE_PIXELS", str(MAX_IMAGE_PX))
    try:
        args = build_parser().parse_args(argv)
    except KeyboardInterrupt:  # while the commands' modules load
        print("cueball: interrupted", file=sys.stderr)
        return 130
    try:
        return int(args.run(args) or 0)
    except InputError as exc:
        print(f"cueball {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        # a file that could be opened but not written to the end (a disk filled, a drive gone)
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"cueball {args.command}: error: {where}{exc.strerror or exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"cueball {args.command}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
