"""The committed sample clips agree with their truth files and with the referee."""

from pathlib import Path

import pytest

from tracker.io.video import probe
from tracker.rules.snooker import Referee
from tracker.sim.truth import read_truth

SAMPLES = Path(__file__).resolve().parents[1] / "sample_videos"
CLIPS = sorted(SAMPLES.glob("[!.]*.mp4"))
REQUIRED = {"break_off", "break_building", "in_off", "wrong_ball_first", "jump_shot",
            "occlusion", "broadcast", "clip_4k", "black_ending", "colours_only", "last_red",
            "six_reds_left", "ten_reds_left"}


def test_the_set_is_complete_and_small():
    names = {c.stem for c in CLIPS}
    assert REQUIRED <= names, f"missing: {REQUIRED - names}"
    total = sum(f.stat().st_size for f in SAMPLES.rglob("*") if f.is_file())
    assert total < 40e6, f"sample_videos holds {total / 1e6:.1f} MB"


@pytest.mark.parametrize("clip", CLIPS, ids=[c.stem for c in CLIPS])
def test_clip_matches_its_truth(clip):
    meta, balls = read_truth(clip)
    info = probe(clip)
    assert (info["width"], info["height"]) == tuple(meta["image_size"])
    assert info["frames"] in (0, meta["frames"])  # some containers do not store the count
    assert abs(info["fps"] - meta["fps"]) < 1e-6
    assert balls.pos_mm.shape[:2] == (meta["frames"], len(meta["ball_ids"]))
    times = [e["t"] for e in meta["events"]]
    assert times == sorted(times)
    # the referee, fed the clip's shot records, ends on the recorded score
    ref = Referee()
    ref.feed(meta["frame_start"])
    for rec in meta["prelude"]:
        ref.feed(rec)
    result = None
    for shot in meta["shots"]:
        result = ref.feed({k: v for k, v in shot.items() if not k.startswith(("t_", "frame_"))})
    assert result is not None and result["score"] == meta["final_score"]
    scores = [e for e in meta["events"] if e["type"] == "score"]
    assert len(scores) == len(meta["shots"]) and scores[-1]["score"] == meta["final_score"]
