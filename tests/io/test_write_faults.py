"""An output that fails half way (a full disk) is named in the error; a tracks file with a value
that is not a number is refused in one line."""

import os
from pathlib import Path

import numpy as np
import pytest

from calibration.errors import InputError
from tracker.io.checks import named
from tracker.io.eventlog import EventLog, TracksWriter, read_tracks
from tracker.io.video import VideoWriter

FULL = Path("/dev/full")
needs_full = pytest.mark.skipif(not FULL.exists(), reason="no /dev/full on this machine")


def test_an_error_without_a_file_name_is_given_the_outputs_name():
    with pytest.raises(OSError) as caught, named("out/events.jsonl"):
        raise OSError(28, "No space left on device")
    assert caught.value.filename == "out/events.jsonl" and caught.value.errno == 28
    with pytest.raises(OSError) as caught, named("b.csv"):
        raise FileNotFoundError(2, "No such file", "a.csv")
    assert caught.value.filename == "a.csv"  # one that names its file keeps its name


@needs_full
def test_an_event_log_on_a_full_disk_names_itself():
    log = EventLog(FULL, mode="a", sync="off")
    with pytest.raises(OSError) as caught:
        log.write({"type": "shot_start", "frame": 1, "t": 0.04})
    assert caught.value.filename == str(FULL) and "No space" in caught.value.strerror
    os.close(log._fd)


@needs_full
def test_a_tracks_file_on_a_full_disk_names_itself():
    with pytest.raises(OSError) as caught:
        w = TracksWriter(FULL, mode="a")
        w.write_frame(1, 0.04, ["1"], ["red"], np.zeros((1, 2)), np.zeros((1, 2)), ["seen"])
    assert caught.value.filename == str(FULL)


def test_a_video_writer_names_its_file_when_the_encoder_fails(tmp_path, monkeypatch):
    path = tmp_path / "overlay.mp4"
    w = VideoWriter(path, (64, 48), 25.0, background=False)

    def full(_frame):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(w, "_encode", full)
    with pytest.raises(OSError) as caught:
        w.write(np.zeros((48, 64, 3), np.uint8))
    assert caught.value.filename == str(path)


@pytest.mark.parametrize("bad", ["nan", "inf", "-inf"])
def test_a_tracks_file_with_a_value_that_is_not_a_number_is_refused_in_one_line(tmp_path, bad):
    path = tmp_path / "tracks.csv"
    path.write_text("frame,t,track_id,ball,x_mm,y_mm,x_px,y_px,state\n"
                    "1,0.0400,1,red,100.00,200.00,50.00,60.00,seen\n"
                    f"2,0.0800,1,red,{bad},200.00,50.00,60.00,seen\n"
                    "3,0.1200,1,red,101.00,200.00,51.00,60.00,seen\n")
    with pytest.raises(InputError, match=r"tracks.csv: line 3: .*not a finite number"):
        read_tracks(path)
