"""Every sample clip, end to end from its video (calibration found in the video, detection,
colour, tracking, shots, referee): the final score equals the truth's, and so do the pots."""

import json
from pathlib import Path

import jsonschema
import pytest

from calibration.find import calibrate_video
from tracker.events import SCHEMA_VERSION
from tracker.pipeline import Pipeline, file_frames
from tracker.sim.truth import read_truth
from tracker.vision.stages import make_detect

SAMPLES = Path(__file__).resolve().parents[1] / "sample_videos"
CLIPS = sorted(p.stem for p in SAMPLES.glob("*.mp4"))
SCHEMA = jsonschema.Draft202012Validator(
    json.loads((SAMPLES.parent / "docs" / "events.schema.json").read_text()))


def track(clip: Path) -> tuple[dict, list[dict]]:
    """The truth's metadata and the pipeline's events over the whole clip."""
    meta, _ = read_truth(clip)
    cal = calibrate_video(clip)
    pipe = Pipeline(cal, make_detect(cal), players=tuple(meta["players"]), rebuild=make_detect)
    for record in meta.get("prelude", []):
        pipe.referee.feed(record)
    frames, _, _ = file_frames(clip)
    events = pipe.start_events()
    for frame in frames:
        events += pipe.process(frame).events
    return meta, events + pipe.finish()


def test_every_sample_clip_is_here():
    assert len(CLIPS) >= 12


@pytest.mark.slow
@pytest.mark.parametrize("name", CLIPS)
def test_final_score_and_pots_equal_the_truth(name):
    meta, events = track(SAMPLES / f"{name}.mp4")
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
