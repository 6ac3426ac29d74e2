"""The stress set of generated shots: reproducible, physically sane, events as the contract
names them, and written by ``cueball simulate --stress``."""

from collections import Counter

import numpy as np
import pytest

from calibration.specs import SNOOKER
from tracker.cli import main
from tracker.sim.detections import TruthClip
from tracker.sim.stress import BEFORE_S, KINDS, random_shot, stress_clip, stress_set

CUSHIONS = {"baulk", "top", "left_baulk", "left_top", "right_baulk", "right_top"}


@pytest.fixture(scope="module")
def clips():
    return [stress_clip(3, k) for k in range(2)]


def test_a_shot_is_the_same_every_time(clips):
    again = stress_clip(3, 1)
    assert np.array_equal(again.pos, clips[1].pos)
    assert again.events == clips[1].events
    assert not np.array_equal(clips[0].pos[0], clips[1].pos[0])


def test_every_kind_of_shot_is_drawn():
    rng = np.random.default_rng(0)
    kinds = Counter(random_shot(rng)[0] for _ in range(200))
    assert set(kinds) == set(KINDS)
    assert kinds["cut"] > kinds["jump"]


def test_balls_rest_then_move_and_never_overlap(clips):
    d = SNOOKER.ball_diameter_mm
    for clip in clips:
        start = [e["t"] for e in clip.events if e["type"] == "shot_start"]
        assert len(start) == 1 and BEFORE_S <= start[0] <= BEFORE_S + 1 / 30 + 1e-6
        before = clip.times < start[0] - 1e-6
        assert np.allclose(clip.pos[before], clip.pos[0])
        assert np.abs(clip.pos[-1] - clip.pos[0]).max() > 1.0  # the white went somewhere
        for f in range(len(clip.times)):
            p = clip.pos[f, clip.on_table[f]]
            gap = np.hypot(*(p[:, None] - p[None]).transpose(2, 0, 1))
            np.fill_diagonal(gap, np.inf)
            assert gap.min(initial=np.inf) >= d - 0.5


def test_events_name_balls_and_cushions_as_the_contract_does(clips):
    for clip in clips:
        types = [e["type"] for e in clip.events]
        assert types[0] == "shot_start" and types[-1] == "shot_end"
        assert [e["t"] for e in clip.events] == sorted(e["t"] for e in clip.events)
        for e in clip.events:
            if e["type"] == "contact":
                assert set(e["balls"]) <= set(clip.ids) and len(set(e["balls"])) == 2
                assert e["classes"] == [clip.classes[clip.ids.index(b)] for b in e["balls"]]
            elif e["type"] == "cushion":
                assert e["cushion"] in CUSHIONS and e["ball"] in clip.ids


def test_the_shots_are_kept_and_read_back(tmp_path):
    made = stress_set(1, seed=3, workers=1, cache=tmp_path)
    assert len(list(tmp_path.glob("*.npz"))) == 1
    again = stress_set(1, seed=3, workers=1, cache=tmp_path)
    for a, b in zip(made, again):
        assert a.name == b.name and a.events == b.events
        assert np.array_equal(a.pos, b.pos)


def test_simulate_writes_a_stress_set(tmp_path, capsys):
    assert main(["simulate", "--stress", "1", "-o", str(tmp_path / "set"), "--seed", "2"]) == 0
    files = list((tmp_path / "set").glob("*.npz"))
    assert len(files) == 1 and "wrote 1 shots" in capsys.readouterr().out
    clip = TruthClip.load(files[0])
    assert clip.events[0]["type"] == "shot_start"
    assert main(["simulate", "--stress", "2"]) == 2  # no -o
