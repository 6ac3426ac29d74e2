"""Builders for referee tests: a state at any point of a frame, and one-call shots."""

from __future__ import annotations

from tracker.rules.balls import COLOURS, VALUES, colours_from
from tracker.rules.snooker import FrameState, MatchState, Table, apply


def state_at(ball_on="red", reds=15, colours=None, *, free_ball=False, score=(0, 0), striker=0,
             reds_at_start=15, ruleset="wpbsa", positions=None, in_hand=False, current_break=0,
             touching=None, best_of=1):
    """A match state in frame 1 with the given table; colours default to all six while reds
    remain (or the ball on is "colour") and to the clearance from the ball on otherwise."""
    if colours is None:
        colours = COLOURS if (reds or ball_on in ("red", "colour")) else colours_from(ball_on)
    pos = None if positions is None else tuple(sorted(
        (k, float(x), float(y)) for k, (x, y) in positions.items()))
    table = Table(reds, tuple(colours), ball_on, in_hand, pos, touching)
    frame = FrameState(number=1, breaker=0, reds_at_start=reds_at_start, table=table,
                       striker=striker, score=score, free_ball=free_ball,
                       current_break=current_break)
    return MatchState(players=("A", "B"), best_of=best_of, ruleset=ruleset, first_breaker=0,
                      frame=frame)


def shot(**kw):
    return {"type": "shot", **kw}


def play(state, *records):
    """Apply records in turn; returns the last state and the list of result dicts."""
    out = []
    for r in records:
        state, res = apply(state, r)
        out.append(res.as_dict())
    return state, out


def one(state, record):
    state, res = apply(state, record)
    return state, res.as_dict()


def pen(*values):
    return max([4, *[v for v in values if v]])


def value(b):
    return VALUES[b]
