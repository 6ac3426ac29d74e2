"""``cueball simulate``: a clip of a named scenario at a chosen camera, so a club can see what
its camera setup will give before mounting it."""

from __future__ import annotations

import argparse
from pathlib import Path

from calibration.errors import InputError
from tracker.io.checks import video_path, writable_path
from tracker.sim.pool_scenarios import POOL_CAMERAS, POOL_SCENARIOS
from tracker.sim.scenarios import SCENARIOS


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("scenario", nargs="?", metavar="SCENARIO",
                   help="what to play (see --list)")
    p.add_argument("-o", "--output", metavar="OUT.mp4",
                   help="video to write (default: SCENARIO.mp4); the truth goes beside it as "
                        "OUT.truth.json and OUT.balls.csv.gz")
    p.add_argument("--list", action="store_true", help="list the scenarios and exit")
    p.add_argument("--camera", choices=("overhead", "broadcast", "oblique"),
                   help="overhead: ceiling camera above the table; broadcast: high behind the "
                        "top cushion (snooker); oblique: high behind the foot rail (pool) "
                        "(default: the scenario's)")
    p.add_argument("--height", type=float, metavar="MM", dest="height_mm",
                   help="overhead camera height above the cloth in mm (default 3000)")
    p.add_argument("--tilt", type=float, metavar="DEG", dest="tilt_deg",
                   help="overhead camera tilt from straight down, degrees (0-30)")
    p.add_argument("--k1", type=float, help="radial lens distortion k1 (default -0.12, "
                   "a mild wide-angle barrel; 0 for none)")
    p.add_argument("--resolution", metavar="RES",
                   help="720p, 1080p, 4k or WIDTHxHEIGHT (default: the scenario's)")
    p.add_argument("--fps", type=float, help="frame rate, e.g. 25, 30, 50, 60")
    p.add_argument("--seed", type=int, default=0, help="random seed (same seed, same clip)")
    p.add_argument("--crf", type=int, help="H.264 quality, 0-51, lower is better (default 23)")
    p.add_argument("--quiet", action="store_true", help="no progress bar or status line")
    p.add_argument("--stress", type=int, metavar="N",
                   help="instead of a scenario: N generated single shots (physics only, no "
                        "video), each written to the directory -o as NAME.npz with its true "
                        "trajectories at --fps (default 30) and its true events")


def run(args: argparse.Namespace) -> int:
    if args.stress is not None:
        return _stress(args)
    scenarios = {**SCENARIOS, **POOL_SCENARIOS}
    if args.list or not args.scenario:
        width = max(len(n) for n in scenarios)
        for name, sc in scenarios.items():
            print(f"{name:<{width}}  {sc.description}")
        return 0
    if args.scenario not in scenarios:
        raise InputError(f"unknown scenario {args.scenario!r}; choose from "
                         f"{', '.join(scenarios)}")
    kinds = POOL_CAMERAS if args.scenario in POOL_SCENARIOS else ("overhead", "broadcast")
    if args.camera is not None and args.camera not in kinds:
        raise InputError(f"--camera {args.camera}: {args.scenario} is filmed by "
                         f"{' or '.join(kinds)}")
    if args.height_mm is not None and not 1500 <= args.height_mm <= 8000:
        raise InputError(f"--height {args.height_mm:g} mm: use 1500 to 8000")
    if args.tilt_deg is not None and not 0 <= args.tilt_deg <= 30:
        raise InputError(f"--tilt {args.tilt_deg:g}: use 0 to 30 degrees")
    if args.fps is not None and not 10 <= args.fps <= 240:
        raise InputError(f"--fps {args.fps:g}: use 10 to 240")
    from tracker.sim.make import FrameBar, make_clip, parse_resolution

    if args.resolution:
        try:
            parse_resolution(args.resolution)
        except ValueError as exc:
            raise InputError(str(exc)) from None
    out = video_path(args.output or f"{args.scenario}.mp4", "-o", make_folders=True)
    overrides = {k: getattr(args, k) for k in ("camera", "resolution", "fps", "height_mm",
                                               "tilt_deg", "k1", "crf")}
    with FrameBar(desc=f"rendering {out.name}") as bar:
        meta = make_clip(args.scenario, out, seed=args.seed,
                         progress=None if args.quiet else bar, **overrides)
    said = (f"{meta['game']}, table {meta['table']}" if "game" in meta
            else f"final score {meta.get('final_score')}")
    if not args.quiet:
        print(f"wrote {out} ({meta['frames']} frames, {meta['image_size'][0]}x"
              f"{meta['image_size'][1]} at {meta['fps']:g} fps) and its truth; {said}")
    return 0


def _stress(args: argparse.Namespace) -> int:
    """``--stress N -o DIR``: the stress set of generated shots (``tracker.sim.stress``)."""
    if args.stress < 1:
        raise InputError(f"--stress {args.stress}: give a number of shots, 1 or more")
    if not args.output:
        raise InputError("--stress needs -o DIR, the directory to write the shots to")
    fps = args.fps or 30.0
    if not 10 <= fps <= 240:
        raise InputError(f"--fps {fps:g}: use 10 to 240")
    from tracker.sim.stress import stress_set

    out = Path(args.output)
    if out.exists() and not out.is_dir():
        raise InputError(f"-o {out} is a file: expected the directory to write the shots to")
    writable_path(out / "shot.npz", "-o", make_folders=True)
    clips = stress_set(args.stress, args.seed, fps, cache=out)
    events = sum(len(c.events) for c in clips)
    if not args.quiet:
        print(f"wrote {len(clips)} shots ({events} true events) at {fps:g} fps to {out}")
    return 0
