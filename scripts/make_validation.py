"""A validation set: one short clip per seed, each in a world of its own (``tracker.sim.world``),
with its truth and its world's parameters beside it, for ``scripts/bench_validation.py``.

    python scripts/make_validation.py 1000-1039 -o DIR
    python scripts/make_validation.py 1000-1009,2000 -o DIR --resolution 1080p --seconds 3

Each clip is ``world_SEED.mp4`` with ``world_SEED.truth.json``, ``world_SEED.balls.csv.gz`` and
``world_SEED.world.json``; the play (a break-off into the pack, a pot, a slow arrival at a
cushion, a red nudged into a cushion), the table, the room and the camera all drawn from the
seed. A clip is made under a hidden name and moved into place when whole, so a stopped run
leaves no part of one; a clip already in DIR is kept. Tune on other seeds than those reported.
With ``--game pool`` the clips are ``pool_world_SEED.mp4``, in pool worlds
(``tracker.sim.pool_world``: the table's size, the game, the make of balls, a break, a pot or a
ball nudged into a rail, drawn from the seed).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from tqdm import tqdm

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tracker.sim.make import FrameBar  # noqa: E402
from tracker.sim.pool_world import make_pool_world_clip  # noqa: E402
from tracker.sim.truth import truth_paths  # noqa: E402
from tracker.sim.world import make_world_clip, world_path  # noqa: E402


def parse_seeds(text: str) -> list[int]:
    """``100-139``, ``5,7,9`` or both mixed (``100-104,200``): the seeds in that order."""
    seeds: list[int] = []
    for part in text.split(","):
        lo, sep, hi = part.strip().partition("-")
        try:
            a = int(lo)
            b = int(hi) if sep else a
        except ValueError:
            raise ValueError(f"seeds {text!r}: use FIRST-LAST or N,N,... (whole numbers)") from None
        if b < a:
            raise ValueError(f"seeds {part!r}: the last is before the first")
        seeds.extend(range(a, b + 1))
    return seeds


# the clip's name and the maker of its world, by game
MAKERS = {"snooker": ("world", make_world_clip), "pool": ("pool_world", make_pool_world_clip)}


def make(seed: int, folder: Path, resolution: str | None, seconds: float, bar=None,
         game: str = "snooker") -> Path:
    """The clip of world ``seed`` in ``folder`` (made under a hidden name, then moved)."""
    prefix, maker = MAKERS[game]
    final = folder / f"{prefix}_{seed}.mp4"
    tmp = folder / f".{prefix}_{seed}.partial.mp4"
    maker(seed, tmp, resolution=resolution, max_s=seconds, progress=bar)
    sources = (tmp, *truth_paths(tmp), world_path(tmp))
    targets = (final, *truth_paths(final), world_path(final))
    # the video last: a clip is there only when all its files are
    for src, dst in list(zip(sources, targets))[::-1]:
        os.replace(src, dst)
    json_path = truth_paths(final)[0]
    json_path.write_text(json_path.read_text().replace(tmp.stem, final.stem))
    return final


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("seeds", help="seeds: FIRST-LAST, or N,N,... (e.g. 1000-1039)")
    p.add_argument("-o", "--output", type=Path, required=True, help="folder for the clips")
    p.add_argument("--resolution", choices=("720p", "1080p", "4k"),
                   help="every clip at this size (default: drawn per world)")
    p.add_argument("--seconds", type=float, default=4.0,
                   help="longest clip, seconds (default 4; the play is cut there)")
    p.add_argument("--game", choices=tuple(MAKERS), default="snooker",
                   help="the worlds' game (default snooker)")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    args = p.parse_args(argv)
    try:
        seeds = parse_seeds(args.seeds)
    except ValueError as exc:
        p.error(str(exc))
    if not 1.0 <= args.seconds <= 30.0:
        p.error("--seconds: use 1 to 30")
    args.output.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    made = 0
    clips = tqdm(seeds, unit="clip", desc="validation set", disable=args.quiet)
    prefix = MAKERS[args.game][0]
    for seed in clips:
        if (args.output / f"{prefix}_{seed}.mp4").exists():
            continue
        with FrameBar(desc=f"{prefix}_{seed}", leave=False, disable=args.quiet) as bar:
            make(seed, args.output, args.resolution, args.seconds, bar, args.game)
        made += 1
    print(f"made {made} clip(s), {len(seeds) - made} already there, in "
          f"{time.perf_counter() - t0:.0f} s: {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
