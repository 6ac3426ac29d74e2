"""Every sample clip, end to end from its video (calibration found in the video, detection,
colour, tracking, shots, referee): the final score equals the truth's, and so do the pots; a
clip that starts in the middle of a frame is joined from its first still table, given only
the score the truth says stood then; the board moves within 0.3 s of each pot."""

import json
from pathlib import Path

import jsonschema
import pytest

from calibration.find import calibrate_video
from tracker.events import SCHEMA_VERSION
from tracker.pipeline import Pipeline, file_frames
from tracker.render.overlay import Scoreboard, ScoreKeeper
from tracker.rules.snooker import Referee
from tracker.sim.truth import read_truth
from tracker.vision.stages import make_detect

SAMPLES = Path(__file__).resolve().parents[1] / "sample_videos"
CLIPS = sorted(p.stem for p in SAMPLES.glob("*.mp4"))
SCHEMA = jsonschema.Draft202012Validator(
    json.loads((SAMPLES.parent / "docs" / "events.schema.json").read_text()))
# the board's score moves within this of a pot (s)
POT_TO_BOARD_S = 0.3


def score_at_start(meta: dict) -> list[int]:
    """The frame's score when the clip starts, by the truth: its shots before the clip."""
    ref = Referee()
    result = ref.feed(meta["frame_start"])
    for record in meta.get("prelude", []):
        result = ref.feed(record)
    return result["score"]


def track(clip: Path) -> tuple[dict, list[dict], list[tuple[float, tuple[int, int]]]]:
    """The truth's metadata, the pipeline's events over the whole clip, and the board's score
    each time it changed with the time of the frame it changed at, the board kept as
    ``cueball track`` keeps it (a pot shown as soon as the tracker is sure of it). The
    pipeline is told only the score at the clip's start, when it is not 0-0."""
    meta, _ = read_truth(clip)
    cal = calibrate_video(clip)
    start = score_at_start(meta)
    given = {"score": tuple(start)} if any(start) else {}
    pipe = Pipeline(cal, make_detect(cal), players=tuple(meta["players"]), rebuild=make_detect,
                    **given)
    keeper = ScoreKeeper(Scoreboard(players=tuple(meta["players"]), score=tuple(start)))
    frames, _, _ = file_frames(clip)
    events = pipe.start_events()
    changes = []
    for frame in frames:
        res = pipe.process(frame)
        events += res.events
        moved = False
        for e in [e for e in res.state.events if e["type"] == "pot"] + res.events:
            moved |= keeper.see(e)
        if moved:
            changes.append((frame.t, keeper.board.score))
    for e in pipe.finish():
        events.append(e)
        if keeper.see(e):
            changes.append((e["t"], keeper.board.score))
    return meta, events, changes


def test_every_sample_clip_is_here():
    assert len(CLIPS) >= 16


@pytest.mark.slow
@pytest.mark.parametrize("name", CLIPS)
def test_final_score_pots_and_the_board_at_each_pot_equal_the_truth(name):
    meta, events, changes = track(SAMPLES / f"{name}.mp4")
    t = [e["t"] for e in events]
    assert t == sorted(t), "events in time order"
    assert events[0]["type"] == "calibrated" and events[0]["schema_version"] == SCHEMA_VERSION
    for e in events:
        SCHEMA.validate(json.loads(json.dumps(e)))
    scores = [e for e in events if e["type"] == "score"]
    true_scores = [e for e in meta["events"] if e["type"] == "score"]
    assert len(scores) == len(true_scores), "shots scored"
    assert scores[-1]["score"] == meta["final_score"]
    pots = [(e["class"], e["pocket"]) for e in events if e["type"] == "pot"]
    true_pots = [(e["class"], e["pocket"]) for e in meta["events"] if e["type"] == "pot"]
    assert pots == true_pots
    # the board: moved by each pot within POT_TO_BOARD_S, and at the end the referee's score
    for pot in (e for e in meta["events"] if e["type"] == "pot"):
        moved = [tc for tc, _ in changes if pot["t"] <= tc <= pot["t"] + POT_TO_BOARD_S]
        assert moved, f"the board did not move within {POT_TO_BOARD_S} s of the {pot['class']} " \
                      f"potted at {pot['t']:.2f} s"
    assert changes and list(changes[-1][1]) == meta["final_score"]


@pytest.mark.slow
@pytest.mark.parametrize("name", ["black_ending", "colours_only", "last_red", "six_reds_left",
                                  "ten_reds_left"])
def test_a_clip_started_mid_frame_is_joined_as_its_truth_stood(name):
    """The frame_start the pipeline writes from the first still table has the truth's reds
    left and colours, and is dated at the first frame, before any other event."""
    meta, events, _ = track(SAMPLES / f"{name}.mp4")
    record = next(e for e in events if e["type"] == "record")["record"]
    assert record["type"] == "frame_start" and events[1]["type"] == "record"
    assert events[1]["frame"] == 0
    truth = Referee()
    truth.feed(meta["frame_start"])
    for r in meta.get("prelude", []):
        truth.feed(r)
    table = truth.state.frame.table
    assert record["reds_left"] == table.reds
    assert tuple(record["colours_on_table"]) == table.colours
    joined = next(e for e in events if e["type"] == "frame_start")
    assert joined["joined"] and joined["doubts"] == [] and joined["ball_on"] == table.ball_on
