"""``cueball referee SHOTS.jsonl``: the snooker referee over shot records, one result JSON per
input line on stdout (CONTRACT.md, "Shot records for cueball referee")."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Iterator
from typing import Any

from calibration.errors import InputError
from tracker.referee.records import loads_record
from tracker.referee.snooker import Referee


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("shots", help="shot records, one JSON object a line")


def referee_lines(lines: Iterable[str], source: str) -> Iterator[dict[str, Any]]:
    """Each line through the referee as it comes, its result yielded before the next line is
    read; blank lines are skipped. A bad line raises InputError naming ``source`` and the
    line."""
    ref = Referee()
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            result = ref.feed(loads_record(line))
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
            for result in referee_lines(fh, path):
                sys.stdout.write(json.dumps(result) + "\n")
        except UnicodeDecodeError as e:
            raise InputError(f"cannot read shot records {path}: not UTF-8 text "
                             f"({e.reason})") from None
        except OSError as e:
            raise InputError(f"cannot read shot records {path}: {e.strerror or e}") from None
    return 0
