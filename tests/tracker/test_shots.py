"""Shot facts from tracked states, against the sample clips' truth.

Detections here are the true positions of the balls the camera sees (visible fraction >= 0.5)
with 0.5 mm noise, so this measures the tracker and the shot logic, not the detector."""

from pathlib import Path

import numpy as np
import pytest

from calibration.specs import BALL_CLASSES
from tracker.shots import ShotConfig, ShotTracker
from tracker.sim.truth import read_truth
from tracker.track import BallTracker

SAMPLES = Path(__file__).resolve().parents[2] / "sample_videos"


def last_motion_t(b, t0: float, t1: float) -> float:
    """The last instant in [t0, t1] at which some ball on the table moved (a ball spinning on
    the spot after that has stopped for a camera)."""
    k = (b.t >= t0) & (b.t <= t1)
    step = np.linalg.norm(np.diff(b.pos_mm[k][:, :, :2], axis=0), axis=2)
    on = np.isin(b.state[k][1:], ["rest", "moving", "airborne"])
    moving = np.flatnonzero(((step > 0.2) & on).any(axis=1))
    return float(b.t[k][1:][moving[-1]]) if len(moving) else t0


def shot_ends(name: str, seed: int = 0):
    meta, b = read_truth(SAMPLES / f"{name}.mp4")
    rng = np.random.default_rng(seed)
    tracker, shots = BallTracker(), ShotTracker()
    ends, contacts = [], []
    for f in range(len(b.t)):
        seen = (b.visible[f] >= 0.5) & np.isin(b.state[f], ["rest", "moving", "airborne"])
        xy = b.pos_mm[f, seen, :2] + rng.normal(0, 0.5, (int(seen.sum()), 2))
        cls = np.array([BALL_CLASSES.index(c) for c in np.array(b.classes)[seen]], dtype=int)
        state = tracker.update(f, float(b.t[f]), xy, cls, np.full(len(cls), 0.9))
        for e in shots.update(state):
            if e["type"] == "shot_end":
                ends.append(e)
            elif e["type"] in ("contact", "jump"):
                contacts.append(e)
    return meta, ends, contacts, b


@pytest.mark.parametrize("name", ["break_off", "in_off", "miss", "wrong_ball_first",
                                  "jump_shot", "touching"])
def test_shot_facts_match_the_truth(name):
    meta, ends, contacts, balls = shot_ends(name)
    truth = [(s["first_contact"], s["potted"], s["cue_potted"], s["off_table"])
             for s in meta["shots"]]
    got = [(e["first_contact"], e["potted"], e["cue_potted"], e["off_table"]) for e in ends]
    assert got == truth
    # the first contact is dated within two frames of the truth
    first = [e for e in meta["events"] if e["type"] == "contact" and "white" in e["balls"]]
    ours = [e for e in contacts if e["type"] == "contact"]
    if first:
        assert abs(ours[0]["frame"] - first[0]["frame"]) <= 2
    # jumps over a ball, as in the truth
    assert [e["over"] for e in contacts if e["type"] == "jump"] == [
        e["over"] for e in meta["events"] if e["type"] == "jump" and e["over"]]
    # and each shot ends after the balls stop, not long after
    for e, s in zip(ends, meta["shots"]):
        stopped = last_motion_t(balls, s["t_start"], s["t_end"])
        assert 0 <= e["t"] - stopped < 1.5


def test_config_is_checked():
    with pytest.raises(ValueError, match="rest_s"):
        ShotConfig(rest_s=0)
