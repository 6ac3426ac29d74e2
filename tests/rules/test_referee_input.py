"""Bad shot records give one line naming the file, the line and the field; the command reads,
referees and prints one line at a time."""

from __future__ import annotations

import argparse
import json
import tracemalloc

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from calibration.errors import InputError
from tracker.cli import referee as command
from tracker.rules.balls import BALL_CLASSES
from tracker.rules.records import FOUL_REASONS, loads_record
from tracker.rules.snooker import Referee

START = json.dumps({"type": "frame_start", "players": ["A", "B"], "breaker": 0})


def _lines(*recs):
    return [START, *(r if isinstance(r, str) else json.dumps(r) for r in recs)]


def _error(lines):
    with pytest.raises(InputError) as e:
        list(command.referee_lines(lines, "s.jsonl"))
    msg = str(e.value)
    assert "\n" not in msg and msg.startswith("s.jsonl:")
    return msg


@pytest.mark.parametrize("line,where,field", [
    ('{"type": "shot", "first_contact": null, "potted": [NaN]}', ":2:", "potted"),
    ('{"type": "shot", "positions": {"white": [NaN, 3]}}', ":2:", "positions"),
    ('{"type": "shot", "positions": {"white": [Infinity, 3]}}', ":2:", "positions"),
    ('{"type": "concede", "player": NaN}', ":2:", "player"),
    ('{"type": "shot", "positions": {"white": [1e400, 3]}}', ":2:", "positions"),
    ('{"type": "shot", "cue_potted": null}', ":2:", "cue_potted"),
    ('{"type": "shot", "potted": {"red": 1}}', ":2:", "potted"),
    ('{"type": "shot", "potted": [1]}', ":2:", "potted"),
    ('{"type": "shot", "player": "0"}', ":2:", "player"),
    ('{"type": "shot", "player": true}', ":2:", "player"),
    ('{"type": "shot", "miss": "yes"}', ":2:", "miss"),
    ('{"type": "shot", "foul": 7}', ":2:", "foul"),
    ('{"type": "shot", "foul": "pushed"}', ":2:", "unknown reason"),
    ('{"type": "shot", "snookered_by": "red"}', ":2:", "snookered_by"),
    ('{"type": "shot", "touching_after": 3}', ":2:", "touching_after"),
    ('{"type": "frame_start", "best_of": true}', ":2:", "best_of"),
    ('{"type": ["shot"]}', ":2:", "record type"),
    ('"shot"', ":2:", "JSON object"),
    ("[" * 100000 + "]" * 100000, ":2:", "nested too deeply"),
    ('{"type": "shot", "foul": ' + "[" * 900 + "]" * 900 + "}", ":2:", "foul"),
    ('{"type": "shot", "first_contact": "' + "x" * 5000 + '"}', ":2:", "unknown ball"),
], ids=lambda v: v[:40] if isinstance(v, str) else v)
def test_bad_field_is_one_line_naming_line_and_field(line, where, field):
    msg = _error(_lines(line))
    assert where in msg and field in msg and len(msg) < 600


def test_nested_json_in_a_record_is_one_line_from_the_command(tmp_path, capsys):
    f = tmp_path / "deep.jsonl"
    f.write_text(START + "\n" + "{\"type\": " * 50000 + "1" + "}" * 50000 + "\n")
    p = argparse.ArgumentParser()
    command.add_arguments(p)
    with pytest.raises(InputError, match=r"deep.jsonl:2: .*nested too deeply"):
        command.run(p.parse_args([str(f)]))
    assert len(capsys.readouterr().out.splitlines()) == 1


def test_not_utf8_is_one_line(tmp_path):
    f = tmp_path / "bin.jsonl"
    f.write_bytes(START.encode() + b"\n\xff\xfe\n")
    p = argparse.ArgumentParser()
    command.add_arguments(p)
    with pytest.raises(InputError, match="not UTF-8"):
        command.run(p.parse_args([str(f)]))


def test_each_result_comes_before_the_next_line_is_read():
    """The command is a stream: line n's result is out before line n+1 is asked for."""
    asked = []

    def source():
        for i, line in enumerate(_lines({"type": "shot", "first_contact": "red"},
                                        {"type": "shot", "first_contact": "red"})):
            asked.append(i)
            yield line

    got = []
    for r in command.referee_lines(source(), "s"):
        got.append(r)
        assert len(asked) == len(got)
    assert len(got) == 3


def _frames(n_frames):
    """A long match: each frame one pot, a miss, then a concession by the striker."""
    yield json.dumps({"type": "frame_start", "players": ["A", "B"], "breaker": 0,
                      "best_of": 2 * n_frames + 1})
    for i in range(n_frames):
        if i:
            yield json.dumps({"type": "frame_start"})
        yield json.dumps({"type": "shot", "first_contact": "red", "potted": ["red"]})
        yield json.dumps({"type": "shot", "first_contact": "yellow", "nominated": "pink"})
        yield json.dumps({"type": "concede", "player": 1 - i % 2})


def _peak(n_frames):
    tracemalloc.start()
    n = 0
    for _ in command.referee_lines(_frames(n_frames), "s"):
        n += 1
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak, n


def test_memory_is_flat_with_the_input_length():
    """Lines are not held: memory grows only with the match's list of breaks (one number a
    visit, copied into each result's stats), tens of bytes a line, where holding every line and
    result takes kilobytes a line."""
    _peak(10)  # imports and caches out of the measure
    (small, n_small), (large, n_large) = _peak(200), _peak(800)
    per_line = (large - small) / (n_large - n_small)
    assert per_line < 200, per_line


# ---------------------------------------------------------------------------------------------
# Fuzzing: any line gives a result or one InputError line, never another exception.

BALLS = st.sampled_from(BALL_CLASSES + ("red_03", "purple", ""))
JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 20) | st.floats(allow_nan=False)
    | st.text(max_size=8) | BALLS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner,
                                                                  max_size=4),
    max_leaves=12)
FIELD_VALUES = {
    "first_contact": st.none() | BALLS | JSON,
    "potted": st.lists(BALLS, max_size=4) | JSON,
    "off_table": st.lists(BALLS, max_size=2) | JSON,
    "cue_potted": st.booleans() | JSON,
    "nominated": st.none() | BALLS | JSON,
    "foul": st.none() | st.sampled_from(sorted(FOUL_REASONS)) | st.fixed_dictionaries(
        {"reason": st.sampled_from(sorted(FOUL_REASONS)), "ball": BALLS}) | JSON,
    "snookered_after": st.none() | st.booleans() | JSON,
    "miss": st.none() | st.booleans() | JSON,
    "positions": st.none() | st.dictionaries(BALLS, st.lists(
        st.floats(-100, 4000) | JSON, min_size=2, max_size=2), max_size=6) | JSON,
    "full_ball_path": st.none() | st.booleans(),
    "touching_after": st.none() | st.booleans() | BALLS,
    "snookered_by": st.none() | st.lists(BALLS, max_size=3) | JSON,
    "player": st.none() | st.integers(-1, 2) | JSON,
    "simultaneous_contact": st.none() | BALLS | JSON,
    "struck": st.none() | st.booleans() | JSON,
    "disturbed": st.none() | st.lists(BALLS, max_size=2) | JSON,
    "fell_from_edge": st.none() | st.lists(BALLS, max_size=2) | JSON,
    "push_stroke": st.none() | st.booleans() | JSON,
    "push_confidence": st.none() | st.floats(-1, 2) | JSON,
    "t_rest": st.none() | st.floats(-1, 100) | JSON,
    "t_strike": st.none() | st.floats(-1, 100) | JSON,
    "t_end": st.none() | st.floats(-1, 100) | JSON,
    "choice": st.sampled_from(["play", "put_back", "replace"]) | JSON,
    "first": st.integers(0, 1) | JSON,
    "reds": st.sampled_from([15, 10, 6]) | JSON,
    "breaker": st.integers(0, 1) | JSON,
}
TYPES = st.sampled_from(["shot"] * 6 + ["decision", "concede", "claim", "respot_toss",
                                        "rerack", "frame_start", "nothing"])


@st.composite
def records(draw):
    rec = {"type": draw(TYPES)}
    for k in draw(st.lists(st.sampled_from(sorted(FIELD_VALUES)), max_size=5, unique=True)):
        rec[k] = draw(FIELD_VALUES[k])
    return json.dumps(rec) if draw(st.integers(0, 20)) else draw(st.text(max_size=20))


def _check_result(r):
    assert set(r) >= {"shot", "player", "points", "foul", "score", "break", "next_player",
                      "ball_on", "frame_over", "winner"}
    assert all(isinstance(v, int) and v >= 0 for v in r["score"])
    assert r["foul"] is None or r["foul"]["points"] >= 4


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(records(), min_size=1, max_size=12))
def test_fuzzed_records_give_a_result_or_one_line(lines):
    try:
        for r in command.referee_lines(_lines(*lines), "f.jsonl"):
            _check_result(r)
    except InputError as e:
        assert "\n" not in str(e) and str(e).startswith("f.jsonl:")


OBJECT = st.sampled_from(("red", "yellow", "green", "brown", "blue", "pink", "black"))
COLOUR = st.sampled_from(("yellow", "green", "brown", "blue", "pink", "black"))
TIMES = st.floats(0, 50).flatmap(lambda t: st.tuples(st.just(t), st.floats(0, 20)))
PLAUSIBLE_SHOT = st.fixed_dictionaries({"type": st.just("shot")}, optional={
    "first_contact": OBJECT, "potted": st.lists(OBJECT, max_size=2),
    "cue_potted": st.booleans(), "off_table": st.lists(OBJECT | st.just("white"), max_size=1),
    "nominated": COLOUR, "snookered_after": st.booleans(), "miss": st.booleans(),
    "full_ball_path": st.booleans(), "touching_after": st.booleans() | OBJECT,
    "snookered_by": st.lists(OBJECT, max_size=2), "player": st.integers(0, 1),
    "foul": st.fixed_dictionaries({"reason": st.sampled_from(sorted(FOUL_REASONS)),
                                   "ball": OBJECT}),
    "fell_from_edge": st.lists(OBJECT, max_size=1), "disturbed": st.lists(OBJECT, max_size=1),
    "push_stroke": st.booleans(), "push_confidence": st.floats(0, 1),
    "t_rest": st.floats(0, 50), "t_strike": st.floats(50, 60),
    "positions": st.dictionaries(st.sampled_from(["white", "red_01", "red_02", "pink", "black",
                                                  "blue", "yellow"]),
                                 st.tuples(st.floats(30, 1750), st.floats(30, 3540)),
                                 max_size=6),
})
PLAUSIBLE = PLAUSIBLE_SHOT | st.sampled_from([
    {"type": "decision", "choice": "play"}, {"type": "decision", "choice": "put_back"},
    {"type": "decision", "choice": "replace"}, {"type": "decision", "choice": "replace",
                                                "miss": True},
    {"type": "concede", "player": 0}, {"type": "concede", "player": 1},
    {"type": "claim", "player": 0}, {"type": "respot_toss", "first": 1}, {"type": "rerack"},
    {"type": "frame_start"}])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(PLAUSIBLE, min_size=1, max_size=60))
def test_fuzzed_plausible_frames_give_results_or_a_refusal(recs):
    """Records close to real ones reach deep into the rules: each gives a result that keeps the
    score's invariants, or is refused with one ValueError line (and play goes on without it)."""
    ref = Referee()
    ref.feed({"type": "frame_start", "players": ["A", "B"], "best_of": 5})
    for rec in recs:
        try:
            r = ref.feed(loads_record(json.dumps(rec)))
        except ValueError as e:
            assert "\n" not in str(e)
            continue
        _check_result(r)
        assert r["points_remaining"] >= 0 and 0 <= r["reds_left"] <= 15
        assert r["foul"] is None or r["foul"]["points"] <= 7


def test_loads_record_names_the_field_holding_nan():
    with pytest.raises(ValueError, match="player must be 0 or 1, got nan"):
        loads_record('{"type": "concede", "player": NaN}')


def test_every_foul_reason_is_documented_with_the_shot_records():
    from pathlib import Path
    text = (Path(__file__).resolve().parents[2] / "docs" / "FORMATS.md").read_text()
    section = text[text.index("## Shot records"):text.index("## Ground truth")]
    assert [r for r in sorted(FOUL_REASONS) if f"`{r}`" not in section] == []
