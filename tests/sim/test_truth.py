import numpy as np
import pytest

from tracker.sim.truth import BallTruth, read_truth, truth_paths, write_truth


def test_truth_round_trip(tmp_path):
    rng = np.random.default_rng(0)
    F, N = 7, 3
    truth = BallTruth(
        ["white", "red_01", "black"], ["white", "red", "black"], np.arange(F) / 30,
        rng.uniform(0, 3000, (F, N, 3)).round(3), rng.uniform(0, 1900, (F, N, 2)).round(3),
        rng.uniform(5, 20, (F, N)).round(3), rng.uniform(0, 1, (F, N)).round(3),
        rng.choice(["rest", "moving", "potted"], (F, N)),
    )
    video = tmp_path / "clip.mp4"
    meta = {"fps": 30.0, "events": [{"type": "pot", "t": 0.1, "frame": 3, "ball": "red_01"}]}
    json_path, csv_path = write_truth(video, meta, truth)
    assert (json_path, csv_path) == truth_paths(video)
    meta2, again = read_truth(video)
    assert meta2["events"] == meta["events"] and meta2["balls_csv"] == csv_path.name
    assert again.ids == truth.ids and again.classes == truth.classes
    for name in ("t", "pos_mm", "px", "r_px", "visible"):
        assert np.allclose(getattr(again, name), getattr(truth, name), atol=1e-6), name
    assert (again.state == truth.state).all()
    # byte-identical when written twice
    first = csv_path.read_bytes()
    write_truth(video, meta, truth)
    assert csv_path.read_bytes() == first


def test_shapes_are_checked():
    with pytest.raises(ValueError, match=r"pos_mm must have shape \(2, 1, 3\)"):
        BallTruth(["white"], ["white"], np.zeros(2), np.zeros((2, 1, 2)), np.zeros((2, 1, 2)),
                  np.zeros((2, 1)), np.zeros((2, 1)), np.zeros((2, 1)))
