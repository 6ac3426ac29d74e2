"""Typed events and the event log's JSON Schema: the schema file is the records', every event
the sample clips' truth holds passes it and reads back as it was, malformed events do not."""

import json
from pathlib import Path

import jsonschema
import pytest

from tracker.events import RECORDS, EventType, Pot, Score, json_schema, parse_event

ROOT = Path(__file__).resolve().parents[2]
SCHEMA_FILE = ROOT / "docs" / "events.schema.json"
VALIDATOR = jsonschema.Draft202012Validator(json.loads(SCHEMA_FILE.read_text()))


def truth_events() -> list[dict]:
    out = []
    for path in sorted((ROOT / "sample_videos").glob("*.truth.json")):
        # ``jaw`` marks a ball rattling in the jaws in the truth only; the log has no such event
        out += [e for e in json.loads(path.read_text())["events"] if e["type"] != "jaw"]
    return out


def test_the_schema_file_is_made_from_the_records():
    # remade by: python -m tracker.events.records > docs/events.schema.json
    assert json.loads(SCHEMA_FILE.read_text()) == json_schema()


def test_every_event_type_has_a_record_and_is_documented():
    formats = (ROOT / "docs" / "FORMATS.md").read_text()
    assert set(RECORDS) == set(EventType)
    for kind in EventType:
        assert f"`{kind.value}`" in formats, kind


def test_every_truth_event_passes_the_schema_and_reads_back_as_it_was():
    events = truth_events()
    assert len(events) > 100
    for e in events:
        VALIDATOR.validate(e)
        assert parse_event(e).as_dict() == e


def test_typed_fields_carry_the_log_names():
    pot = parse_event({"type": "pot", "frame": 3, "t": 0.1, "ball": "red_01", "class": "red",
                       "pocket": "top_left", "pocket_px": [10.0, 20.0], "later_field": 1})
    assert isinstance(pot, Pot) and pot.type is EventType.POT
    assert (pot.cls, pot.pocket, pot.extra) == ("red", "top_left", {"later_field": 1})
    score = parse_event({"type": "score", "frame": 9, "t": 1.0, "shot": 1, "player": 0,
                         "points": 0, "foul": {"points": 4, "reason": "in_off"},
                         "score": [0, 4], "break": 0, "next_player": 1, "ball_on": "red",
                         "frame_over": False, "winner": None})
    assert isinstance(score, Score) and score.foul.points == 4 and score.break_ == 0


def test_an_event_of_a_later_version_reads_as_a_plain_event():
    e = {"type": "shot_clock", "frame": 5, "t": 0.2, "seconds": 15}
    VALIDATOR.validate(e)
    event = parse_event(e)
    assert event.type == "shot_clock" and event.as_dict() == e


@pytest.mark.parametrize("event", [
    {"type": "pot", "frame": 3, "t": 0.1, "ball": "red_01", "class": "red", "pocket": "nowhere",
     "pocket_px": [1, 2]},
    {"type": "contact", "frame": 3, "t": 0.1, "balls": ["white"], "classes": ["white"]},
    {"type": "shot_start", "frame": -1, "t": 0.1, "shot": 1},
    {"type": "shot_start", "frame": 1, "t": "soon", "shot": 1},
    {"type": "cushion", "frame": 1, "t": 0.1, "ball": "white", "class": "white"},
    {"frame": 1, "t": 0.1},
], ids=["unknown pocket", "one ball", "negative frame", "string time", "no cushion", "no type"])
def test_a_malformed_event_fails_the_schema(event):
    with pytest.raises(jsonschema.ValidationError):
        VALIDATOR.validate(event)


def test_a_missing_field_is_named():
    with pytest.raises(ValueError, match="'cushion'"):
        parse_event({"type": "cushion", "frame": 1, "t": 0.1, "ball": "white", "class": "white"})
