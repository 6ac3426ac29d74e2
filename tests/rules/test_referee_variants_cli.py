"""Six-red and ten-red, the Iranian federation's differences, records and the command."""

from __future__ import annotations

import argparse
import json

import pytest
from referee_support import one, play, shot, state_at

from calibration.errors import InputError
from tracker.cli import referee as command
from tracker.rules.records import parse_record
from tracker.rules.snooker import Referee, records_from_lines, run_records, score_shots


@pytest.mark.parametrize("reds", [15, 10, 6], ids=["S3 R2(a) 15 reds", "ten-red",
                                                   "S3 R19 six-red"])
def test_reds_at_start(reds):
    """S3 R2(a) and the short forms: the number of reds racked."""
    _, r = one(None, {"type": "frame_start", "players": ["A", "B"], "breaker": 0, "reds": reds})
    assert r["reds_left"] == reds and r["points_remaining"] == 8 * reds + 27


def test_reds_kept_for_the_next_frame():
    recs = [{"type": "frame_start", "players": ["A", "B"], "reds": 6, "best_of": 3},
            {"type": "concede", "player": 0}, {"type": "frame_start"}]
    _, out = play(None, *recs)
    assert out[-1]["reds_left"] == 6 and out[-1]["next_player"] == 1


@pytest.mark.parametrize("ruleset,ends", [("iran", True), ("wpbsa", False)],
                         ids=["IR S2 frame (2) lead over the black ends the frame",
                              "S2 R1 WPBSA the frame may be claimed"])
def test_lead_over_the_last_black(ruleset, ends):
    """IR S2 "frame" (2): with only the black left, a lead of more than 7 ends the frame;
    WPBSA (seed 003): the leader may claim it."""
    s = state_at("pink", 0, score=(50, 40), ruleset=ruleset)
    _, r = one(s, shot(first_contact="pink", potted=["pink"]))
    assert r["frame_over"] is ends
    if ends:
        assert r["winner"] == 0 and r["end_reason"] == "lead_over_black"
    else:
        assert r["claimable"] and r["ball_on"] == "black"


def test_iran_ruleset_from_frame_start():
    _, out = play(None, {"type": "frame_start", "players": ["A", "B"], "ruleset": "iran"},
                  shot(first_contact=None, snookered_after=True),
                  shot(first_contact="red", nominated="black"))
    assert out[-1]["foul"] == {"points": 4, "reason": "free_ball_not_hit_first"}


@pytest.mark.parametrize("bad,msg", [
    ({"type": "shot", "first_contact": "purple"}, "unknown ball"),
    ({"type": "shot", "potted": "red"}, "potted must be a list"),
    ({"type": "shot", "cue_potted": 1}, "cue_potted"),
    ({"type": "shot", "nominated": "red"}, "nominated must be a colour"),
    ({"type": "shot", "bogus": 1}, "unknown shot field"),
    ({"type": "shot", "positions": {"white": [1]}}, "positions"),
    ({"type": "frame_start", "players": ["A"]}, "players"),
    ({"type": "frame_start", "reds": 7}, "reds"),
    ({"type": "decision", "choice": "maybe"}, "choice"),
    ({"type": "concede", "player": 2}, "player"),
    ({"type": "what"}, "unknown record type"),
    ([], "JSON object"),
])
def test_bad_records(bad, msg):
    with pytest.raises(ValueError, match=msg):
        parse_record(bad)


@pytest.mark.parametrize("rec,msg", [
    (shot(first_contact="red", potted=["red"] * 16), "red"),
    (shot(first_contact="red", potted=["pink", "pink"]), "pink"),
    ({"type": "respot_toss", "first": 0}, "re-spotted black"),
])
def test_records_that_do_not_fit_the_state(rec, msg):
    with pytest.raises(ValueError, match=msg):
        one(state_at(), rec)


def test_first_record_must_start_a_frame():
    with pytest.raises(ValueError, match="frame_start"):
        run_records([shot(first_contact="red")])


def test_referee_feed_and_batch_agree():
    recs = [{"type": "frame_start", "players": ["A", "B"]},
            shot(first_contact="red", potted=["red"]), shot(first_contact="blue",
                                                             potted=["blue"], nominated="blue")]
    ref = Referee()
    live = [ref.feed(r) for r in recs]
    assert live == run_records(recs) == score_shots(recs)
    lines = [json.dumps(r) for r in recs]
    assert run_records(records_from_lines(lines)) == live
    with pytest.raises(ValueError, match="x.jsonl:2"):
        records_from_lines([lines[0], "{nope", lines[1]], "x.jsonl")


def _run(path, capsys):
    p = argparse.ArgumentParser()
    command.add_arguments(p)
    rc = command.run(p.parse_args([str(path)]))
    return rc, capsys.readouterr().out


def test_command_prints_one_result_a_line(tmp_path, capsys):
    f = tmp_path / "shots.jsonl"
    recs = [{"type": "frame_start", "players": ["A", "B"], "breaker": 0, "reds": 6},
            shot(first_contact="red", potted=["red"]),
            shot(first_contact="black", potted=["black"], nominated="black"),
            shot(first_contact=None, snookered_after=True),
            {"type": "decision", "choice": "put_back"}, {"type": "concede", "player": 0}]
    f.write_text("\n".join(json.dumps(r) for r in recs) + "\n\n")
    rc, out = _run(f, capsys)
    rows = [json.loads(x) for x in out.splitlines()]
    assert rc == 0 and len(rows) == len(recs)
    need = {"shot", "player", "points", "foul", "score", "break", "next_player", "ball_on",
            "frame_over", "winner"}
    assert all(need <= set(r) for r in rows)
    assert rows[2]["score"] == [8, 0] and rows[3]["foul"]["points"] == 4
    assert rows[-1]["winner"] == 1


@pytest.mark.parametrize("content,where", [
    ('{"type": "frame_start", "players": ["A", "B"]}\n{"type": "shot", "first_contact": 3}\n',
     ":2:"),
    ('{"type": "frame_start", "players": ["A", "B"]}\nnot json\n', ":2:"),
    ('{"type": "decision", "choice": "play"}\n', ":1:"),
])
def test_command_bad_line(tmp_path, capsys, content, where):
    f = tmp_path / "bad.jsonl"
    f.write_text(content)
    with pytest.raises(InputError, match=where) as e:
        _run(f, capsys)
    assert "bad.jsonl" in str(e.value) and "\n" not in str(e.value)
    # the lines before the bad one were refereed and printed as they came
    printed = capsys.readouterr().out.splitlines()
    assert len(printed) == int(where.strip(":")) - 1


def test_command_missing_file(tmp_path, capsys):
    with pytest.raises(InputError, match="nothere.jsonl"):
        _run(tmp_path / "nothere.jsonl", capsys)
