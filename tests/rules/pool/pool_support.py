"""Builders for pool referee tests: a match at any point of a rack, and one-call records."""

from __future__ import annotations

from dataclasses import replace

from tracker.rules.pool.match import apply, new_match, rack_balls
from tracker.rules.pool.rules import RackState
from tracker.rules.pool.variants import variant


def at(game="8ball", *, on_table=None, striker=0, breaking=False, in_hand=None, variant_name=None,
       rules=(), race_to=None, **rack):
    """A match in rack 1 with the given rack fields (after the break unless ``breaking``)."""
    m = new_match(game, variant_name)
    if rules:
        m = replace(m, variant=variant(variant_name, rules))
    if race_to is not None:
        m = replace(m, race_to=race_to)
    r = RackState(game, 1, 0, striker, tuple(on_table or rack_balls(game)), breaking=breaking,
                  in_hand=in_hand, opening=breaking, **rack)
    return replace(m, rack=r)


def shot(first=None, potted=(), **kw):
    """A shot record; ``potted`` items are ball ids or (ball, pocket) pairs."""
    pots = [p if isinstance(p, str) else {"ball": p[0], "pocket": p[1]} for p in potted]
    return {"type": "shot", "first_contact": first, "potted": pots, **kw}


def call(ball=None, pocket=None, **kw):
    return {"type": "call", "ball": ball, "pocket": pocket, **kw}


def play(m, *records):
    """Every record in turn; the last state and every result dict."""
    out = []
    for rec in records:
        m, r = apply(m, rec)
        out.append(r.as_dict())
    return m, out


def one(m, *records):
    """The last state and the last result."""
    m, out = play(m, *records)
    return m, out[-1]
