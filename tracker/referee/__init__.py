"""Rules engines: pure reducers fed with facts about shots.

Snooker (WPBSA, September 2024; the Iranian federation's notes as ``ruleset="iran"``):
``tracker.referee.snooker.apply(state, record) -> (state, Result)``, the ``Referee`` wrapper
(``feed(record) -> dict``), ``run_records``/``score_shots`` and ``records_from_lines``;
records in ``tracker.referee.records``; snookered geometry and re-spotting in
``tracker.referee.geometry``; the ``cueball referee`` command in ``tracker.referee.command``.
"""

from tracker.referee.records import parse_record
from tracker.referee.snooker import (
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
