"""The Python API as a user meets it: the README's example runs as written, and the names it
promises import."""

import contextlib
import io
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def readme_example() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## Python API", 1)[1]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


def test_every_promised_name_imports():
    import tracker

    assert set(tracker.__all__) == {"__version__", *tracker._API}
    for name in tracker.__all__:
        assert getattr(tracker, name) is not None, name


def test_the_referee_package_stays_free_of_numpy_and_opencv():
    code = ("import sys, tracker.rules, tracker.events; "
            "print('numpy' in sys.modules or 'cv2' in sys.modules)")
    import subprocess

    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert out.stdout.strip() == "False", out.stderr


@pytest.mark.slow
def test_the_readme_example_runs_and_scores_the_clip(monkeypatch):
    from tracker.sim.truth import read_truth

    monkeypatch.chdir(ROOT)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(readme_example(), "README.md", "exec"), {})
    lines = printed.getvalue().splitlines()
    truth, _ = read_truth(ROOT / "sample_videos" / "in_off.mp4")
    pots = [(e["class"], e["pocket"]) for e in truth["events"] if e["type"] == "pot"]
    printed_pots = [re.search(r"cls='(\w+)', pocket='(\w+)'", line).groups()
                    for line in lines if line.startswith("Pot(")]
    assert printed_pots == pots
    scores = [line for line in lines if line.startswith("Score(")]
    assert scores and f"score={truth['final_score']}" in scores[-1], scores
