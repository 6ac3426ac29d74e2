"""The sinks of the pipeline: what the match leaves behind and shows while it is played.

- ``eventlog``: events.jsonl (``EventLog``, ``read_events``, ``resume_state`` for ``--resume``)
  and tracks.csv (``TracksWriter``, ``read_tracks``), as docs/FORMATS.md describes them.
- ``overlay``: ``draw_overlay(frame, scoreboard, trails, markers) -> frame``, the scoreboard,
  fading trails and shot markers drawn on the video.
- ``live``: ``LiveServer``, a local page for streaming software, updated over Server-Sent Events.
- ``report``: ``build_report(events, ...)``, a self-contained HTML match report
  (``cueball report``, in ``report_command``).
"""

from tracker.outputs.eventlog import (
    EventLog,
    ResumeState,
    TracksWriter,
    read_events,
    read_tracks,
    record_event,
    resume_state,
)
from tracker.outputs.live import LiveServer
from tracker.outputs.overlay import (
    Marker,
    Scoreboard,
    draw_overlay,
    markers_from_events,
    scoreboard_rect,
)
from tracker.outputs.report import BallPaths, build_report

__all__ = [
    "BallPaths", "EventLog", "LiveServer", "Marker", "ResumeState", "Scoreboard",
    "TracksWriter", "build_report", "draw_overlay", "markers_from_events", "read_events",
    "read_tracks", "record_event", "resume_state", "scoreboard_rect",
]
