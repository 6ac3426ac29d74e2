"""A short clip rendered end to end: video, truth and events agree."""

import json

import numpy as np
import pytest

from tracker.io.video import probe, read_frames
from tracker.sim.clip import ClipSpec, render_clip
from tracker.sim.model import Strike
from tracker.sim.render import Look
from tracker.sim.scenarios import overhead_camera
from tracker.sim.script import Script, layout
from tracker.sim.truth import read_truth


@pytest.fixture(scope="module")
def clip(tmp_path_factory):
    out = tmp_path_factory.mktemp("clip") / "short.mp4"
    s = Script(layout((600.0, 1500.0), [[600.0, 2300.0], [400.0, 3000.0]]), seed=3)
    s.wait(0.3)
    s.shoot(Strike(90.0, 900.0), address_s=0.5, settle_s=0.3)
    tl = s.finish(0.2)
    cam = overhead_camera((640, 360))
    spec = ClipSpec(camera=cam, fps=30.0, look=Look(noise_sigma=0.0), crf=12, noise=False)
    meta, truth = render_clip(tl, spec, out, seed=1)
    return out, meta, truth, tl


def test_video_and_truth_agree(clip):
    out, meta, truth, tl = clip
    info = probe(out)
    frames = list(read_frames(out))
    assert len(frames) == meta["frames"] == len(truth.t)
    assert (info["width"], info["height"]) == (640, 360)
    meta2, again = read_truth(out)
    assert json.loads(json.dumps(meta2["events"])) == meta2["events"]
    assert np.allclose(again.px, truth.px, atol=1e-3)
    # every ball fully in view and at rest is drawn where the truth says: its pixel stands out
    # from the cloth around it
    k = 0
    img = frames[k].astype(float)
    for n, cls in enumerate(truth.classes):
        if truth.visible[k, n] < 0.99 or truth.state[k, n] != "rest":
            continue
        u, v = truth.px[k, n].round().astype(int)
        r = int(np.ceil(truth.r_px[k, n]))
        ring = img[v - 3 * r, u] if v - 3 * r >= 0 else img[v + 3 * r, u]
        assert np.abs(img[v, u] - ring).max() > 25, cls


def test_events_are_timed_and_framed(clip):
    _, meta, truth, tl = clip
    types = [e["type"] for e in meta["events"]]
    assert types[0] == "shot_start" and "contact" in types and types[-1] == "shot_end"
    for e in meta["events"]:
        assert 0 <= e["frame"] < meta["frames"]
        assert abs(e["frame"] / meta["fps"] - e["t"]) <= 1 / meta["fps"] + 1e-9
    contact = next(e for e in meta["events"] if e["type"] == "contact")
    assert contact["balls"] == ["white", "red_01"]
    # the white moves between the strike and the contact, and is at rest at the end
    start = next(e for e in meta["events"] if e["type"] == "shot_start")["frame"]
    w = truth.ids.index("white")
    assert "moving" in set(truth.state[start + 1:contact["frame"], w])
    assert truth.state[-1, w] == "rest"
