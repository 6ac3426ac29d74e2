"""``cueball referee --game`` on the hand-made records of ``cases/``: line by line, the rules'
answer (the fields named; the rule in the comment of each row)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tracker import cli

CASES = Path(__file__).parent / "cases"

# game -> {line: {field: value}}
EXPECTED = {
    "8ball": {
        3: {"next_player": 0, "in_hand": "kitchen", "ball_on": "break"},  # I.5: lag winner breaks
        4: {"legal": True, "next_player": 0, "ball_on": "open"},  # WPA 8-Ball: legal break, open
        5: {"groups": ["solids", "stripes"], "next_player": 0},  # Choice of Group (default call)
        6: {"fouls": ["wrong_ball_first"], "next_player": 1, "in_hand": "anywhere"},  # I.18(a)
        7: {"legal": True, "next_player": 1},  # Continuing Play
        9: {"legal": True, "next_player": 0, "fouls": []},  # Call Shot: pocket missed, no foul
        11: {"rack_over": True, "winner": 1, "end_reason": "eight_early"},  # Losing the Game
        12: {"next_player": 1, "racks": [0, 1]},  # alternate breaks
        13: {"options": ["spot", "rerack"], "chooser": 1},  # 8-Ball Pocketed on the Break
        14: {"next_player": 1, "ball_on": "break"},  # re-rack, the chooser breaks
        15: {"options": ["spot", "rerack"], "chooser": 0, "fouls": ["cue_ball_scratch"]},
    },
    "9ball": {
        3: {"fouls": ["illegal_break"], "next_player": 1, "in_hand": "anywhere"},  # Legal Break
        5: {"legal": True, "options": ["play", "pass"], "chooser": 0},  # Push Out
        6: {"next_player": 1},  # Push Out: handed back
        7: {"legal": True, "next_player": 1, "ball_on": "2"},  # lowest ball first
        8: {"fouls": ["cue_ball_scratch"], "next_player": 0,
            "respotted": [{"ball": "9", "spot": "foot_spot"}]},  # I.23.1 the 9 spotted
        9: {"rack_over": True, "winner": 0, "end_reason": "nine_pocketed", "racks": [1, 0]},
        10: {"next_player": 0},  # the winner breaks
        11: {"end_reason": "nine_on_break", "match_over": True, "match_winner": 0},  # race to 2
    },
    "10ball": {
        2: {"next_player": 1, "respotted": [{"ball": "10", "spot": "foot_spot"}]},  # 10 spotted
        4: {"options": ["play", "pass"], "chooser": 0},  # Call Shot: the pocket not called
        5: {"next_player": 1},  # passed back
        6: {"fouls": ["no_rail_after_contact"], "consecutive_fouls": [0, 1]},  # I.18(b)
        8: {"fouls": ["wrong_ball_first"], "consecutive_fouls": [0, 2],
            "warning": [False, True]},  # I.19: the warning on two fouls
        10: {"rack_over": True, "winner": 0, "end_reason": "three_fouls"},  # I.19(b)
    },
    "14.1": {
        3: {"fouls": ["breaking_violation"], "score": [-2, 0],
            "options": ["play", "rebreak"], "chooser": 1},  # Opening Break
        4: {"next_player": 0, "in_hand": "kitchen"},  # re-broken by the offender
        5: {"legal": True, "legal_break": True, "next_player": 1},  # cue ball + 2 balls to rails
        7: {"points": 2, "score": [-2, 2], "next_player": 1},  # Scoring: called ball + one
        9: {"points": 0, "next_player": 0,
            "respotted": [{"ball": "9", "spot": "foot_spot"}]},  # I.22.1 safety spotted
        10: {"penalty": 1, "score": [-3, 2], "in_hand": "kitchen"},  # I.19(a), I.21(c)
        12: {"score": [-3, 4], "match_over": True, "match_winner": 1,
             "end_reason": "points_reached"},  # race to 3 points
    },
}


@pytest.mark.parametrize("game", sorted(EXPECTED))
def test_hand_made_records_get_the_rules_answer(game, capsys):
    path = CASES / f"{game}.jsonl"
    assert cli.main(["referee", "--game", game, str(path)]) == 0
    out = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert len(out) == len([x for x in path.read_text().splitlines() if x.strip()])
    for line, fields in EXPECTED[game].items():
        got = {k: out[line - 1][k] for k in fields}
        assert got == fields, f"{game} line {line}"
