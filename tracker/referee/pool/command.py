"""``cueball referee --game 8ball|9ball|10ball|14.1 SHOTS.jsonl``: the pool referee over pool
records, one result JSON per input line on stdout, each written as soon as its line is judged
(docs/FORMATS.md, "Pool shot records", "Pool referee results")."""

from __future__ import annotations

import json
import sys
from typing import TextIO

from calibration.errors import InputError
from tracker.referee.pool.match import Referee
from tracker.referee.pool.records import parse_record


def run_pool(path: str, game: str, variant_name: str | None = None,
             out: TextIO | None = None) -> int:
    """Referee every line of ``path`` for ``game``; a bad line raises InputError naming the
    file and the line (the results of the lines before it are already written)."""
    out = out or sys.stdout
    try:
        ref = Referee(game, variant_name)
    except ValueError as e:
        raise InputError(str(e)) from None
    try:
        with open(path, encoding="utf-8") as fh:
            for n, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                try:
                    result = ref.feed(parse_record(json.loads(line)))
                except (ValueError, TypeError) as e:
                    raise InputError(f"{path}:{n}: {e}") from None
                out.write(json.dumps(result) + "\n")
    except (OSError, UnicodeDecodeError) as e:
        raise InputError(f"cannot read shot records {path}: {e}") from None
    return 0
