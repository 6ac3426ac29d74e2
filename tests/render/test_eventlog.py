"""events.jsonl and tracks.csv: durable writes, torn last lines, resuming a match."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest
from outputs_support import FRAME_START, match_events, match_shots

from calibration.errors import InputError
from tracker.io.eventlog import (
    TRACK_COLUMNS,
    EventLog,
    TracksWriter,
    cut_tracks,
    read_events,
    read_tracks,
    record_event,
    resume_state,
)
from tracker.rules.snooker import Referee


@pytest.mark.parametrize("sync", ["background", "each", "off"])
def test_each_event_is_in_the_file_when_write_returns(tmp_path, monkeypatch, sync):
    synced = []
    monkeypatch.setattr(os, "fdatasync", lambda fd: synced.append(fd), raising=False)
    path = tmp_path / "events.jsonl"
    events = match_events()[:6]
    with EventLog(path, mode="w", sync=sync) as log:
        for n, e in enumerate(events, 1):
            log.write(e)
            # read through another handle while the log is still open
            lines = path.read_text().splitlines()
            assert len(lines) == n and json.loads(lines[-1]) == e
            if sync == "each":
                assert len(synced) == n
    assert read_events(path) == events
    if sync == "off":
        assert synced == []
    else:
        assert 1 <= len(synced) <= len(events) + 1  # the background thread coalesces
    with pytest.raises(ValueError, match="closed"):
        log.write(events[0])


def test_an_event_needs_type_frame_and_t(tmp_path):
    with EventLog(tmp_path / "e.jsonl") as log, pytest.raises(ValueError, match="'t'"):
        log.write({"type": "pot", "frame": 3})


def test_a_torn_last_line_is_dropped_on_read_and_cut_before_appending(tmp_path):
    path = tmp_path / "events.jsonl"
    events = match_events()[:5]
    with EventLog(path, sync="off") as log:
        log.write_all(events[:4])
    with open(path, "a") as fh:  # the process killed mid-write
        fh.write(json.dumps(events[4])[:17])
    assert read_events(path) == events[:4]
    with EventLog(path) as log:  # --resume appends
        log.write(events[4])
    lines = path.read_text().splitlines()
    assert [json.loads(x) for x in lines] == events


def test_a_bad_line_before_the_end_is_an_input_error(tmp_path):
    path = tmp_path / "events.jsonl"
    path.write_text('{"type": "shot_start", "frame": 1, "t": 0.1, "shot": 1}\nnot json\n'
                    '{"type": "shot_end", "frame": 9, "t": 0.3, "shot": 1}\n')
    with pytest.raises(InputError, match=r"events.jsonl:2"):
        read_events(path)
    with pytest.raises(InputError, match="no event log"):
        read_events(tmp_path / "missing.jsonl")


@pytest.mark.parametrize("with_records", [False, True])
def test_resume_continues_the_match_where_the_log_stops(with_records):
    events = match_events(with_records=with_records)
    # the process dies after the 9th score event
    cut = [i for i, e in enumerate(events) if e["type"] == "score"][8] + 1
    state = resume_state(events[:cut], frame_start=FRAME_START)
    assert state.exact is with_records
    assert state.last_shot == 9
    assert state.last_frame == max(e["frame"] for e in events[:cut])
    assert state.score["score"] == [0, 27]
    ref = state.referee()
    whole = Referee()
    whole.feed(FRAME_START)
    shots = match_shots()
    results = [whole.feed(s) for s in shots]
    for s, expected in zip(shots[9:], results[9:]):
        assert ref.feed(s) == expected
    assert ref.state.frame.over and ref.state.frame.winner == 1


def test_resume_of_an_empty_log_starts_a_match():
    state = resume_state([], frame_start=FRAME_START)
    assert state.last_frame == -1 and state.last_shot == 0 and state.score is None
    assert state.records == (FRAME_START,)


def test_resume_refuses_a_log_the_referee_cannot_reproduce():
    events = match_events()
    for e in events:
        if e["type"] == "score" and e["shot"] == 3:
            e["score"] = [0, 99]
    with pytest.raises(InputError, match="shot 3"):
        resume_state(events, frame_start=FRAME_START)


def _six_red_frame() -> list[dict]:
    """Shots that clear a six-red table: a red and the black six times, then the colours."""
    pot = [("red", "black")] * 6
    order = [c for pair in pot for c in pair] + ["yellow", "green", "brown", "blue", "pink",
                                                  "black"]
    return [{"type": "shot", "first_contact": c, "potted": [c]} for c in order]


def test_resume_of_a_log_without_records_starts_the_next_frame_where_it_began():
    """A log without ``record`` events whose first ``frame_start`` event is the second frame's
    (the first frame's start is not logged): that event starts frame 2, after the first frame's
    shots, which start from the given ``frame_start``."""
    start = {"type": "frame_start", "players": ["A", "B"], "breaker": 0, "reds": 6,
             "best_of": 3}
    ref = Referee()
    ref.feed(start)
    events, k = [], 0
    for shot in _six_red_frame():
        k += 1
        res = ref.feed(shot)
        events += [{"type": "shot_end", "frame": k, "t": k, "shot": res["shot"],
                    "first_contact": shot["first_contact"], "potted": shot["potted"],
                    "cue_potted": False, "off_table": []},
                   {**res, "type": "score", "frame_number": res["frame"], "frame": k, "t": k}]
    assert events[-1]["frame_over"] and events[-1]["frames"] == [1, 0]
    res = ref.feed({"type": "frame_start"})
    events.append({**res, "type": "frame_start", "frame_number": res["frame"], "frame": k + 1,
                   "t": k + 1, "breaker": 1, "reds": 6})
    res = ref.feed({"type": "shot", "first_contact": "red", "potted": ["red"]})
    events += [{"type": "shot_end", "frame": k + 2, "t": k + 2, "shot": res["shot"],
                "first_contact": "red", "potted": ["red"], "cue_potted": False,
                "off_table": []},
               {**res, "type": "score", "frame_number": res["frame"], "frame": k + 2,
                "t": k + 2}]
    state = resume_state(events, frame_start=start)
    assert not state.exact
    again = state.referee().state
    assert again.frame.number == 2 and again.frame.score == (0, 1)
    assert tuple(again.frames) == (1, 0) and again.players == ("A", "B")


def test_record_events_round_trip(tmp_path):
    path = tmp_path / "events.jsonl"
    with EventLog(path) as log:
        log.write(record_event(FRAME_START, 0, 0.0))
        log.write(record_event({"type": "shot", "first_contact": "red", "potted": ["red"]},
                               np.int64(40), np.float64(1.5)))
    state = resume_state(read_events(path))
    assert state.exact and state.players == tuple(FRAME_START["players"])
    assert state.referee().state.frame.score == (1, 0)


def test_tracks_csv_follows_the_contract(tmp_path):
    path = tmp_path / "tracks.csv"
    ids, balls = ["white", "red_01"], ["white", "red"]
    with TracksWriter(path) as w:
        for f in range(3):
            xy_mm = np.array([[100.0 + 10 * f, 200.0], [500.0, 600.0]])
            xy_px = xy_mm / 2
            w.write_frame(f, f / 30, ids, balls, xy_mm, xy_px,
                          ["seen", "predicted" if f == 1 else "seen" if f == 0 else "potted"])
    lines = path.read_text().splitlines()
    assert lines[0] == ",".join(TRACK_COLUMNS)
    assert lines[1] == "0,0.0000,white,white,100.00,200.00,50.00,100.00,seen"
    assert lines[-1] == "2,0.0667,red_01,red,,,,,potted"
    tracks = read_tracks(path)
    assert tracks["white"].xy_mm[2] == (120.0, 200.0)
    assert tracks["red_01"].state == ["seen", "predicted", "potted"]
    assert tracks["red_01"].xy_mm[2] is None
    with pytest.raises(ValueError, match="state"):
        TracksWriter(tmp_path / "t2.csv").write_row(0, 0.0, "white", "white", (1, 2), (3, 4),
                                                    "lost")


def test_a_whole_last_event_without_its_newline_is_kept(tmp_path):
    path = tmp_path / "events.jsonl"
    events = match_events()[:3]
    path.write_text("\n".join(json.dumps(e) for e in events[:2]))
    with EventLog(path) as log:
        log.write(events[2])
    assert read_events(path) == events


def test_a_resumed_tracks_file_is_cut_back_to_whole_rows_up_to_the_resume_frame(tmp_path):
    path = tmp_path / "tracks.csv"
    with TracksWriter(path) as w:
        for frame in range(6):
            w.write_frame(frame, frame / 30, ["white", "red_01"], ["white", "red"],
                          np.ones((2, 2)), np.ones((2, 2)), ["seen", "seen"])
    whole = path.read_bytes()
    with open(path, "ab") as fh:
        fh.write(b"6,0.2000,white,wh")  # torn by a kill
    assert cut_tracks(path, 3) == 8
    assert path.read_bytes() == b"".join(whole.splitlines(keepends=True)[:9])
    with TracksWriter(path, mode="a") as w:  # the resumed run goes on from frame 4
        for frame in range(4, 6):
            w.write_frame(frame, frame / 30, ["white", "red_01"], ["white", "red"],
                          np.ones((2, 2)), np.ones((2, 2)), ["seen", "seen"])
    assert path.read_bytes() == whole


def test_a_file_that_is_no_tracks_csv_is_not_cut(tmp_path):
    path = tmp_path / "tracks.csv"
    path.write_text("name,score\nann,3\n")
    with pytest.raises(InputError, match="not a tracks.csv"):
        cut_tracks(path, 3)
    assert path.read_text() == "name,score\nann,3\n"
