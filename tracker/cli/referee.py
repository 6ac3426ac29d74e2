"""``cueball referee [--game G] SHOTS.jsonl``: a game's referee over its shot records, one result
JSON per input line on stdout (docs/FORMATS.md, "Shot records for cueball referee" and "Pool
shot records")."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Iterator
from typing import Any

from calibration.errors import InputError
from tracker.game import GAMES, game
from tracker.rules.records import loads_record


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("shots", help="shot records, one JSON object a line")
    parser.add_argument("--game", default="snooker", choices=tuple(GAMES),
                        help="the game's rules (default snooker; the pool games in "
                             "docs/POOL_RULES.md)")
    parser.add_argument("--variant", default=None,
                        help="the game's rule variant (pool: wpa, the default, seed004, bar, "
                             "last_pocket)")


def referee_lines(lines: Iterable[str], source: str, game_name: str = "snooker",
                  variant: str | None = None) -> Iterator[dict[str, Any]]:
    """Each line through ``game_name``'s referee as it comes, its result yielded before the next
    line is read; blank lines are skipped. A bad line raises InputError naming ``source`` and
    the line."""
    played = game(game_name)
    ref = played.referee(variant)
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            result = ref.feed(loads_record(line, played.parse_record))
        except (ValueError, TypeError) as e:
            raise InputError(f"{source}:{n}: {_one_line(e)}") from None
        except RecursionError:
            raise InputError(f"{source}:{n}: record nested too deeply") from None
        yield result


def _one_line(e: Exception) -> str:
    return " ".join(str(e).split()) or type(e).__name__


def run(args: argparse.Namespace) -> int:
    """Read a line, referee it, print its result: memory stays flat with the input's length.
    A bad file or line raises InputError naming the file and the line; the results of the
    lines before it stay printed."""
    path = args.shots
    try:
        fh = open(path, encoding="utf-8")  # noqa: SIM115 - closed below, read lazily
    except OSError as e:
        raise InputError(f"cannot read shot records {path}: {e.strerror or e}") from None
    with fh:
        try:
            for result in referee_lines(fh, path, args.game, args.variant):
                sys.stdout.write(json.dumps(result) + "\n")
        except UnicodeDecodeError as e:
            raise InputError(f"cannot read shot records {path}: not UTF-8 text "
                             f"({e.reason})") from None
        except OSError as e:
            raise InputError(f"cannot read shot records {path}: {e.strerror or e}") from None
    return 0
