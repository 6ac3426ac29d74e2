"""Rules engines: pure reducers fed with facts about shots.

Snooker (WPBSA, September 2024; the Iranian federation's notes as ``ruleset="iran"``):
``tracker.rules.snooker.apply(state, record) -> (state, Result)``, the ``Referee`` wrapper
(``feed(record) -> dict``), ``run_records``/``score_shots`` and ``records_from_lines``;
records in ``tracker.rules.records``; snookered geometry and re-spotting in
``tracker.rules.geometry``; the ``cueball referee`` command in ``tracker.cli.referee``.
"""

from tracker.rules.records import parse_record
from tracker.rules.snooker import (
    MatchState,
    Referee,
    Result,
    apply,
    records_from_lines,
    run_records,
    score_shots,
)

__all__ = [
    "MatchState", "Referee", "Result", "apply", "parse_record", "records_from_lines",
    "run_records", "score_shots",
]
