"""Matches (races, break order, the score board) and ``cueball referee --game``."""

from __future__ import annotations

import json

import pytest
from pool_support import at, one, play, shot

from tracker import cli
from tracker.rules.pool.match import new_match, run_records


def _nine_on_break():
    return [{"type": "rack"}, shot("1", ["9"])]


def test_race_to_two_with_alternate_breaks():
    """Issue 48 item 7: a race to N racks; the lag's winner breaks first, then breaks
    alternate."""
    out = run_records("9ball", [
        {"type": "match", "players": ["Ann", "Bob"], "race_to": 2},
        {"type": "lag", "nearer": 1}, *_nine_on_break(), *_nine_on_break(),
        *_nine_on_break(), *_nine_on_break()][:8])
    assert [r["player"] for r in out if r["type"] == "shot"] == [1, 0, 1]
    last = out[-1]
    assert last["match_over"] and last["match_winner"] == 1 and last["racks"] == [1, 2]
    assert last["stats"]["break_and_runs"] == [1, 2]


def test_winner_breaks():
    out = run_records("9ball", [{"type": "match", "break_order": "winner"},
                                *_nine_on_break(), *_nine_on_break()])
    assert [r["player"] for r in out if r["type"] == "shot"] == [0, 0]


def test_a_run_out_after_the_opponent_shot_is_no_break_and_run():
    _, out = play(new_match("9ball"), {"type": "rack"}, shot("1", break_rail_balls=5),
                  shot("1", ["9"]))
    assert out[-1]["winner"] == 1 and out[-1]["stats"]["break_and_runs"] == [0, 0]
    assert out[-1]["stats"]["innings"] == [1, 1]


def test_balls_and_high_run_in_14_1():
    _, out = play(at("14.1"), shot("1", ["1"]), shot("2", ["2"]), shot(None), shot("3", ["3"]))
    st = out[-1]["stats"]
    assert st["balls"] == [2, 1] and st["high_run"] == [2, 0] and st["fouls"] == [1, 0]
    assert out[-1]["score"] == [1, 1]


def test_concede_gives_the_rack():
    _, r = one(at("8ball"), {"type": "concede", "player": 0})
    assert r["rack_over"] and r["winner"] == 1 and r["end_reason"] == "concede"


def test_a_shot_after_a_finished_rack_starts_the_next_and_says_so():
    _, out = play(new_match("9ball"), *_nine_on_break(), shot("1", ["2"]))
    assert out[-1]["rack"] == 2 and out[-1]["player"] == 1
    assert any("no rack record" in d for d in out[-1]["defaults"])


def test_the_player_who_shot_makes_the_awaited_choice():
    """WPA 9-Ball Push Out: without a choice record, the shooter shows the choice made."""
    _, out = play(new_match("9ball"), {"type": "rack"}, shot("1", break_rail_balls=5),
                  {"type": "call", "push_out": True}, shot("4", player=1),
                  shot("1", rail_after_contact=True, player=1))
    assert out[-1]["player"] == 1 and any("pass" in d for d in out[-1]["defaults"])


def test_match_record_for_another_game_is_refused():
    with pytest.raises(ValueError, match="for 8ball"):
        run_records("9ball", [{"type": "match", "game": "8ball"}])


def _write(tmp_path, records):
    p = tmp_path / "shots.jsonl"
    p.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    return str(p)


def test_cli_pool_game_writes_one_result_a_line(tmp_path, capsys):
    path = _write(tmp_path, [{"type": "rack", "breaker": 0}, shot("1", ["3"]),
                             shot("1", ["1", "10"])])
    assert cli.main(["referee", "--game", "10ball", path]) == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert len(lines) == 3 and all(x["game"] == "10ball" for x in lines)
    assert lines[-1]["next_player"] == 0 and "10" in lines[-1]["on_table"]


def test_cli_bad_record_is_one_line_naming_its_line(tmp_path, capsys):
    path = _write(tmp_path, [{"type": "rack"}, shot("1", ["3"]), shot("1", ["16"])])
    assert cli.main(["referee", "--game", "8ball", path]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and f"{path}:3:" in err and "potted" in err


def test_cli_bad_variant_is_one_line(tmp_path, capsys):
    path = _write(tmp_path, [{"type": "rack"}])
    assert cli.main(["referee", "--game", "8ball", "--variant", "pub", path]) == 2
    err = capsys.readouterr().err
    assert "no rule variant 'pub'" in err and "wpa" in err and len(err.splitlines()) == 1


def test_cli_default_game_is_still_snooker(tmp_path, capsys):
    path = _write(tmp_path, [{"type": "frame_start", "players": ["A", "B"], "breaker": 0},
                             {"type": "shot", "first_contact": "red", "potted": ["red"]}])
    assert cli.main(["referee", path]) == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert lines[-1]["score"] == [1, 0] and "game" not in lines[-1]
