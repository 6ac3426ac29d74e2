"""The pool referee (8-ball, 9-ball, 10-ball, 14.1 continuous) under the WPA World
Standardized Rules and seed 004's general rules of pocket billiards: a pure reducer like the
snooker one.

``match.apply(state, record) -> (state, Result)`` from ``match.new_match(game)``; the
``Referee`` wrapper (``feed(record) -> dict``) and ``run_records``; records in ``records.py``;
the general rules in ``rules.py``; the games in ``eightball.py``, ``nineball.py`` (9-ball and
10-ball), ``straight.py`` (14.1); rule variants as data in ``variants.py``. ``cueball referee
--game`` reaches it through ``tracker.game``. The rule map is docs/POOL_RULES.md.
"""

from tracker.rules.pool.match import MatchState, Referee, Result, apply, new_match, run_records
from tracker.rules.pool.records import parse_record
from tracker.rules.pool.variants import VARIANTS, Variant, variant

__all__ = ["MatchState", "Referee", "Result", "VARIANTS", "Variant", "apply", "new_match",
           "parse_record", "run_records", "variant"]
