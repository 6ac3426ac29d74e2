"""Regenerates the pool sample clips and their ground truth in ``pool/`` (the snooker clips
beside this script are ``make_samples.py``'s, which this leaves alone).

    python sample_videos/make_pool_samples.py                     # all of them
    python sample_videos/make_pool_samples.py pool_break_8ball    # just these

Each clip is made as ``make_samples.py`` makes one (rendered to a temporary name, moved into
place when complete) and the clip table of pool/README.md is brought up to date. The pool
clips sit in a folder of their own so that what reads every snooker sample reads none of them.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
POOL = HERE / "pool"
sys.path.insert(0, str(HERE))

from make_samples import make_all  # noqa: E402

# A break of each rack shape: the 8-ball triangle overhead, the 9-ball diamond from the high
# oblique camera.
POOL_SAMPLES = ("pool_break_8ball", "pool_9ball_break")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("names", nargs="*", help=f"scenarios (default: {', '.join(POOL_SAMPLES)})")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    names = args.names or list(POOL_SAMPLES)
    unknown = [n for n in names if n not in POOL_SAMPLES]
    if unknown:
        p.error(f"not a pool sample: {', '.join(unknown)} (choose from "
                f"{', '.join(POOL_SAMPLES)})")
    POOL.mkdir(exist_ok=True)
    make_all(names, args.seed, POOL)
    return 0


if __name__ == "__main__":
    sys.exit(main())
