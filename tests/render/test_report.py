"""The match report: one self-contained HTML page from the events."""

from __future__ import annotations

import argparse
import json
import re

import numpy as np
import pytest
from outputs_support import FRAME_START, PLAYERS, match_events

from calibration.errors import InputError
from tracker.cli import report as report_command
from tracker.io.eventlog import TracksWriter, read_tracks
from tracker.render.report import BallPaths, build_report, match_from_events


def _run(*argv) -> int:
    p = argparse.ArgumentParser()
    report_command.add_arguments(p)
    return report_command.run(p.parse_args([str(a) for a in argv]))


def test_the_match_from_its_events():
    assert match_from_events(match_events()).players == ("Player 1", "Player 2")
    m = match_from_events(match_events(with_records=True))
    assert m.players == tuple(PLAYERS)  # from the logged frame_start record
    assert len(m.shots) == 21 and len(m.frames) == 1
    assert m.frames[0].score == (0, 78) and m.frames[0].winner == 1 and m.winner == 1
    assert [(b.player, b.points) for b in m.breaks] == [(1, 15), (1, 59)]
    assert [s.number for s in m.shots if s.foul] == [7]


def test_report_has_the_final_score_breaks_fouls_and_one_shot_map_per_shot():
    events = match_events()
    page = build_report(events, players=PLAYERS)
    assert 'data-final-score="0-78"' in page and "0 – 78" in page
    assert page.count('class="shotmap"') == sum(e["type"] == "shot_start" for e in events)
    assert page.count('<svg class="chart"') == 1
    assert "Bob Baker wins the match" in page  # best of one
    assert re.search(r"<td>Bob Baker</td><td class=num>59</td>", page)
    assert "in off" in page
    assert "<script" not in page and "http://" not in page.replace(
        'xmlns="http://www.w3.org/2000/svg"', "")  # self-contained


def test_shot_maps_draw_the_whites_path_from_tracks(tmp_path):
    events = match_events()
    shot1 = next(e for e in events if e["type"] == "shot_start")
    end1 = next(e for e in events if e["type"] == "shot_end")
    path = tmp_path / "tracks.csv"
    with TracksWriter(path) as w:
        for f in range(shot1["frame"] - 5, end1["frame"] + 5):
            k = min(max(f - shot1["frame"], 0), 60)
            w.write_frame(f, f / 30, ["white", "red_01"], ["white", "red"],
                          np.array([[889.0, 500.0 + 30 * k], [889.0, 2900.0]]),
                          np.zeros((2, 2)), ["seen", "seen"])
    page = build_report(events, paths=BallPaths.from_tracks(read_tracks(path)))
    first_map = page[page.index('id="shot-1"'):page.index('id="shot-2"')]
    white_path = re.search(r'<polyline points="([^"]+)"[^>]*stroke="#f4f4f0"', first_map)
    assert white_path is not None
    pts = [tuple(map(float, p.split(","))) for p in white_path.group(1).split()]
    # SVG x is the table's y: the white ran up the table from y = 500 to 2300 mm
    assert pts[0] == (500.0, 889.0) and pts[-1] == (2300.0, 889.0)


def test_report_command_writes_the_page_and_tolerates_a_torn_log(tmp_path, capsys):
    events = match_events()
    log = tmp_path / "events.jsonl"
    log.write_text("".join(json.dumps(e) + "\n" for e in events) + '{"type": "sh')
    assert _run(log, "-o", tmp_path / "r.html", "--players", "A", "B") == 0
    page = (tmp_path / "r.html").read_text()
    assert 'data-final-score="0-78"' in page and ">A</div>" in page
    assert _run(log) == 0 and (tmp_path / "events.html").exists()
    assert "wrote" in capsys.readouterr().out


def test_report_command_bad_input_is_a_one_line_input_error(tmp_path):
    with pytest.raises(InputError, match="no event log"):
        _run(tmp_path / "missing.jsonl")
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    with pytest.raises(InputError, match="no events"):
        _run(empty)
    cal = tmp_path / "cal.jsonl"
    cal.write_text('{"type": "calibrated", "frame": 0, "t": 0, "reprojection_error_mm": 1}\n')
    with pytest.raises(InputError, match="no shots"):
        _run(cal)
    bad = tmp_path / "bad.jsonl"
    bad.write_text('nonsense\n{"type": "score", "frame": 0, "t": 0}\n')
    with pytest.raises(InputError, match="bad.jsonl:1") as err:
        _run(bad)
    assert "\n" not in str(err.value)


def test_a_match_of_frames_reports_each_frame_and_the_frames_won():
    events = match_events(frames=2)
    m = match_from_events(events, PLAYERS)
    assert [f.score for f in m.frames] == [(0, 78), (78, 0)]
    assert [f.winner for f in m.frames] == [1, 0] and m.frames_won == (1, 1)
    page = build_report(events, players=PLAYERS)
    assert 'data-frames="1-1"' in page and 'data-final-score="78-0"' in page
    assert "match in play" in page.split("</header>")[0]  # 1-1 in a best of three
    assert page.count('class="shotmap"') == 42


def test_resume_across_frames():
    from tracker.io.eventlog import resume_state

    events = match_events(frames=2)
    state = resume_state(events, frame_start=dict(FRAME_START, best_of=3))
    assert state.referee().state.frames == (1, 1)
    exact = resume_state(match_events(frames=2, with_records=True))
    assert exact.exact and exact.referee().state.frames == (1, 1)
