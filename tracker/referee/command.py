"""``cueball referee SHOTS.jsonl``: the snooker referee over shot records, one result JSON per
input line on stdout (CONTRACT.md, "Shot records for cueball referee")."""

from __future__ import annotations

import argparse
import json
import sys

from calibration.errors import InputError
from tracker.referee.records import parse_record
from tracker.referee.snooker import Referee


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("shots", help="shot records, one JSON object a line")
    parser.add_argument("--game", default="snooker",
                        choices=("snooker", "8ball", "9ball", "10ball", "14.1"),
                        help="the game's rules (default snooker; the pool games in "
                             "docs/POOL_RULES.md)")
    parser.add_argument("--variant", default=None,
                        help="pool rule variant: wpa (default), seed004, bar, last_pocket")


def run(args: argparse.Namespace) -> int:
    """Read every line, referee it, then print the results; a bad file or line raises
    InputError naming the file and the line, before anything is printed."""
    path = args.shots
    if getattr(args, "game", "snooker") != "snooker":
        from tracker.referee.pool.command import run_pool
        return run_pool(path, args.game, args.variant)
    try:
        with open(path, encoding="utf-8") as fh:
            lines = fh.read().splitlines()
    except (OSError, UnicodeDecodeError) as e:
        raise InputError(f"cannot read shot records {path}: {e}") from None
    ref = Referee()
    out = []
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            out.append(ref.feed(parse_record(json.loads(line))))
        except (ValueError, TypeError) as e:
            raise InputError(f"{path}:{n}: {e}") from None
    for r in out:
        sys.stdout.write(json.dumps(r) + "\n")
    return 0
