"""cueball's tracker: ball detection, tracking, shot events, the referee and the outputs.

Run it over frames from your own capture loop::

    import cv2
    from tracker import Frame, Pipeline, calibrate, make_detect, parse_event

    capture = cv2.VideoCapture("sample_videos/in_off.mp4")
    fps = capture.get(cv2.CAP_PROP_FPS)
    ok, image = capture.read()
    calibration = calibrate(image)                 # image px <-> table mm
    pipeline = Pipeline(calibration, make_detect(calibration))
    index = 0
    while ok:
        for event in pipeline.process(Frame(index, index / fps, image)).events:
            print(parse_event(event))
        ok, image = capture.read()
        index += 1
    events = pipeline.finish()                     # what the last frames left pending

Names are loaded when first used, so ``import tracker.rules`` (pure Python) pulls in neither
numpy nor OpenCV.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

# public name -> the module that holds it
_API = {
    "calibrate": "tracker.api",
    "Calibration": "calibration.calibrate",
    "Frame": "tracker.pipeline",
    "FrameResult": "tracker.pipeline",
    "Pipeline": "tracker.pipeline",
    "file_frames": "tracker.pipeline",
    "make_detect": "tracker.vision.stages",
    "TableState": "tracker.tracking.track",
    "Referee": "tracker.rules.snooker",
    "EventLog": "tracker.io.eventlog",
    "read_events": "tracker.io.eventlog",
    "read_tracks": "tracker.io.eventlog",
    "EventType": "tracker.events",
    "Event": "tracker.events",
    "parse_event": "tracker.events",
    "SCHEMA_VERSION": "tracker.events",
}

__all__ = [
    "__version__", "calibrate", "Calibration", "Frame", "FrameResult", "Pipeline", "file_frames",
    "make_detect", "TableState", "Referee", "EventLog", "read_events", "read_tracks", "EventType",
    "Event", "parse_event", "SCHEMA_VERSION",
]


def __getattr__(name: str) -> Any:
    module = _API.get(name)
    if module is None:
        raise AttributeError(f"module 'tracker' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)


if TYPE_CHECKING:
    from calibration.calibrate import Calibration
    from tracker.api import calibrate
    from tracker.events import SCHEMA_VERSION, Event, EventType, parse_event
    from tracker.io.eventlog import EventLog, read_events, read_tracks
    from tracker.pipeline import Frame, FrameResult, Pipeline, file_frames
    from tracker.rules.snooker import Referee
    from tracker.tracking.track import TableState
    from tracker.vision.stages import make_detect
