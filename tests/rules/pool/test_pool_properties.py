"""Property tests of the pool referee with hypothesis: random valid records for every game and
variant never crash the referee, and scores change only as the rules allow."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tracker.rules.pool.match import apply, new_match, rack_balls
from tracker.rules.pool.records import CALLED_FOULS, POCKETS
from tracker.rules.pool.variants import VARIANTS

PENALTIES = {0, 1, 2, 15, 15 + 1}  # none, a foul, a breaking violation, unsporting, third foul


def _shot(data, on_table):
    on = list(on_table)
    first = data.draw(st.sampled_from([None, *on, *on[:1] * 3]))
    potted = data.draw(st.lists(st.sampled_from(on), max_size=3, unique=True)) if on else []
    off = data.draw(st.lists(st.sampled_from([b for b in on if b not in potted] or ["cue"]),
                             max_size=1, unique=True)) if data.draw(st.integers(0, 6)) == 0 else []
    if data.draw(st.integers(0, 8)) == 0 and "cue" not in off:
        potted.append("cue")
    rec = {"type": "shot", "first_contact": first,
           "potted": [{"ball": b, "pocket": data.draw(st.sampled_from(POCKETS))}
                      for b in potted],
           "off_table": off,
           "rail_after_contact": data.draw(st.sampled_from([True, True, False, None])),
           "break_rail_balls": data.draw(st.sampled_from([None, 0, 2, 4, 6])),
           "cue_rail": data.draw(st.sampled_from([None, True, False]))}
    if data.draw(st.integers(0, 9)) == 0:
        rec["foul"] = data.draw(st.sampled_from(sorted(CALLED_FOULS)))
    if data.draw(st.booleans()):
        rec["areas"] = {k: data.draw(st.sampled_from(["rack", "head_spot", "kitchen", "table"]))
                        for k in ["cue", *on[:1]]}
    return rec


def _record(data, m):
    r = m.rack
    if r is None or r.over:
        return {"type": "rack"}
    rare = data.draw(st.integers(0, 40))
    if rare == 0:
        return {"type": "concede", "player": data.draw(st.integers(0, 1))}
    if rare == 1:
        return {"type": "interference"}
    if r.options and data.draw(st.integers(0, 3)):
        return {"type": "choice", "choice": data.draw(st.sampled_from(r.options))}
    if not r.options and r.call is None and data.draw(st.integers(0, 2)) == 0:
        if r.push_out and m.game in ("9ball", "10ball") and data.draw(st.booleans()):
            return {"type": "call", "push_out": True}
        return {"type": "call", "ball": data.draw(st.sampled_from([None, *r.on_table])),
                "pocket": data.draw(st.sampled_from([None, *POCKETS])),
                "safety": data.draw(st.integers(0, 4)) == 0}
    return _shot(data, r.on_table)


@settings(max_examples=100, deadline=None, database=None)
@given(st.data(), st.sampled_from(["8ball", "9ball", "10ball", "14.1"]),
       st.sampled_from(sorted(VARIANTS)), st.sampled_from([None, 2, 3]))
def test_random_records_never_crash_and_scores_follow_the_rules(data, game, name, race):
    m = new_match(game, name)
    m, _ = apply(m, {"type": "match", "race_to": race * (20 if game == "14.1" else 1)
                     if race else None})
    prev = None
    for _ in range(60):
        if m.over:
            break
        rec = _record(data, m)
        m, res = apply(m, rec)
        r = res.as_dict()
        assert set(r["on_table"]) <= set(rack_balls(game))
        assert all(0 <= f <= 2 for f in r["consecutive_fouls"])
        assert (r["winner"] is not None) == r["rack_over"] or r["end_reason"] == "concede"
        if prev is not None:
            gained = [a - b for a, b in zip(r["racks"], prev["racks"])]
            assert all(g >= 0 for g in gained) and sum(gained) <= 1
            if sum(gained):
                assert r["rack_over"] and gained[r["winner"]] == 1
            if game == "14.1" and rec["type"] == "shot":
                p = r["player"]
                assert r["points"] >= 0 and r["penalty"] in PENALTIES
                assert r["points"] <= sum(1 for b in rec["potted"] if b["ball"] != "cue")
                assert r["score"][p] - prev["score"][p] == r["points"] - r["penalty"]
                assert r["score"][1 - p] == prev["score"][1 - p]
                assert (r["penalty"] > 0) == bool(r["fouls"])
            elif rec["type"] == "shot":
                assert r["score"] == [0, 0]
            if rec["type"] == "shot" and r["fouls"] and not r["rack_over"]:
                rebreak = game == "14.1" and r["penalty"] > 2  # the offender breaks again
                assert r["points"] == 0 and (r["next_player"] != r["player"]
                                             or r["awaiting"] == "choice" or rebreak)
        if game in ("9ball", "10ball") and not r["rack_over"] and r["on_table"]:
            assert r["ball_on"] == min(r["on_table"], key=int)
        prev = r
