"""The game seam: every game the commands name has a rules engine behind one description, and
the ones the camera follows have their table and ball set."""

import json
from pathlib import Path

import pytest

from calibration.errors import InputError
from calibration.specs import BALL_CLASSES, SNOOKER
from tracker.game import GAMES, game

CASES = Path(__file__).resolve().parent / "rules" / "pool" / "cases"


def test_snooker_is_followed_by_the_camera_with_its_table_and_balls():
    snooker = game("snooker")
    assert snooker.tracked and snooker.table is SNOOKER
    assert snooker.ball_classes == tuple(BALL_CLASSES)
    result = snooker.referee().feed(snooker.parse_record(
        {"type": "frame_start", "players": ["A", "B"], "breaker": 0, "reds": 15}))
    assert result["score"] == [0, 0] and result["ball_on"] == "red"


@pytest.mark.parametrize("name", ["8ball", "9ball", "10ball", "14.1"])
def test_each_pool_game_referees_its_own_records(name):
    pool = game(name)
    assert not pool.tracked and pool.table is None and "wpa" in pool.variants
    referee = pool.referee("wpa")
    lines = (CASES / f"{name}.jsonl").read_text().splitlines()
    results = [referee.feed(pool.parse_record(json.loads(line))) for line in lines if line]
    assert len(results) == len([line for line in lines if line])


def test_an_unknown_game_or_variant_is_one_line_naming_the_known_ones():
    with pytest.raises(InputError, match="known: snooker, 8ball"):
        game("carrom")
    with pytest.raises(InputError, match="known: none"):
        game("snooker").referee("bar")
    assert set(GAMES) == {"snooker", "8ball", "9ball", "10ball", "14.1", "shootout"}


def test_the_pipeline_follows_a_game_the_camera_knows_and_refuses_one_it_does_not():
    from calibration.calibrate import Calibration
    from tracker.pipeline import Pipeline
    from tracker.sim.scenarios import overhead_camera

    cal = Calibration.from_camera(overhead_camera())
    pipe = Pipeline(cal, detect=lambda image: None)
    assert pipe.game.name == "snooker" and pipe.table is SNOOKER
    with pytest.raises(InputError, match="does not follow 9ball yet"):
        Pipeline(cal, detect=lambda image: None, game=game("9ball"))
