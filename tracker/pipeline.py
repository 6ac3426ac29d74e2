"""The tracking pipeline: frames -> detections -> table states -> shot events -> the referee.

A chain of small stages; :class:`Pipeline` holds their state and turns one frame into that
frame's table state and events. Sources (video files, cameras, streams) and sinks (event log,
tracks, overlay) are chosen by the command line (``tracker.track_command``).
"""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

import cv2
import numpy as np

from calibration.calibrate import Calibration
from calibration.errors import InputError
from calibration.monitor import CalibrationMonitor
from calibration.specs import SNOOKER, SnookerTableSpec
from tracker.outputs.eventlog import record_event
from tracker.referee.snooker import Referee
from tracker.shots import ShotConfig, ShotTracker
from tracker.track import BallTracker, TableState, TrackerConfig
from tracker.video import probe, read_ahead, read_frames


@dataclass(frozen=True)
class Frame:
    """One picture of the source: its 0-based index, time in seconds, and BGR pixels."""

    index: int
    t: float
    image: np.ndarray


@dataclass
class FrameResult:
    """What one frame gave: the table state, the events that became certain, the ball centres
    in the image (N, 2) px (parallel to ``state.track_ids``)."""

    frame: Frame
    state: TableState
    events: list[dict]
    xy_px: np.ndarray


# -- sources ------------------------------------------------------------------------------------
def file_frames(path: str | Path) -> tuple[Iterator[Frame], float, int]:
    """(frames, fps, frame count or 0) of a video file."""
    info = probe(path)
    fps = info["fps"] or 30.0

    def gen() -> Iterator[Frame]:
        for k, image in enumerate(read_ahead(read_frames(path))):
            yield Frame(k, k / fps, image)

    return gen(), fps, info["frames"]


class LiveSource:
    """A camera index or stream URL read on a thread that keeps only the newest frame, so the
    pipeline never falls behind the camera: frames it had no time for are dropped and counted.
    A dropped stream is reopened (``reconnect_s`` between tries)."""

    def __init__(self, source: str, reconnect_s: float = 2.0, give_up_s: float = 30.0):
        self.source = int(source) if source.isdigit() else source
        self.reconnect_s = reconnect_s
        self.give_up_s = give_up_s
        self.dropped = 0
        self._latest: tuple[int, float, np.ndarray] | None = None
        self._cond = threading.Condition()
        self._stop = False
        self._failed: str | None = None
        self._cap = self._open()
        self.fps = self._cap.get(cv2.CAP_PROP_FPS) or 30.0
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _open(self) -> cv2.VideoCapture:
        cap = cv2.VideoCapture(self.source)
        if not cap.isOpened():
            raise InputError(f"cannot open camera or stream {self.source!r}")
        return cap

    def _read(self) -> None:
        count, t0, lost_since = 0, time.monotonic(), None
        while not self._stop:
            ok, image = self._cap.read()
            if not ok:
                lost_since = lost_since or time.monotonic()
                if time.monotonic() - lost_since > self.give_up_s:
                    with self._cond:
                        self._failed = f"stream {self.source!r} lost for {self.give_up_s:g} s"
                        self._cond.notify_all()
                    return
                time.sleep(self.reconnect_s)
                self._cap.release()
                self._cap = cv2.VideoCapture(self.source)
                continue
            lost_since = None
            with self._cond:
                if self._latest is not None:
                    self.dropped += 1
                self._latest = (count, time.monotonic() - t0, image)
                self._cond.notify_all()
            count += 1

    def frames(self) -> Iterator[Frame]:
        while True:
            with self._cond:
                while self._latest is None and self._failed is None:
                    self._cond.wait(1.0)
                if self._latest is None:
                    raise InputError(self._failed)
                k, t, image = self._latest
                self._latest = None
            yield Frame(k, t, image)

    def close(self) -> None:
        self._stop = True
        self._thread.join(timeout=2)
        self._cap.release()


# -- the pipeline -------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Seen:
    """What the detection stage made of one frame: the ``calibrated`` events of a knocked
    camera found again, the detections (classified, or to be by ``classify``), and the
    calibration in force for it (its camera, or None, and its pockets' pixels)."""

    events: list[dict]
    detections: object
    classify: Callable[[object], object] | None
    calibration: Calibration
    camera: object
    pockets_px: dict


@dataclass
class Pipeline:
    """Per-frame work from pixels to the score.

    ``detect``: frame BGR -> detections with ``xy_px`` (K, 2), ``xy_mm`` (K, 2), ``cls`` (K,)
    and ``confidence`` (K,) (the detector and colour classifier); when it has ``stages``
    (``shrink``, ``find``, ``classify``, as ``tracker.track_command.make_detect`` gives), the
    three are taken as three stages. The referee is fed a
    ``frame_start`` for ``players`` and every finished shot; its results become ``score`` and
    ``frame_end`` events.

    Every ``monitor_every`` frames (0: never) the cushion edges are checked against the
    calibration; when the camera has been knocked the table is found again, ``rebuild`` makes a
    new ``detect`` for the new calibration, and a ``calibrated`` event is emitted. Positions stay
    in table mm, so the tracks go on through it.

    ``process(frame)`` takes one frame through every stage; ``run(frames)`` gives the same
    results for a whole source, shrinking each frame to its work image on a thread of its own
    ahead of the other stages.
    """

    calibration: Calibration
    detect: Callable[[np.ndarray], object]
    players: tuple[str, str] = ("Player 1", "Player 2")
    reds: int = 15
    tracker_config: TrackerConfig = field(default_factory=TrackerConfig)
    shot_config: ShotConfig = field(default_factory=ShotConfig)
    table: SnookerTableSpec = SNOOKER
    monitor_every: int = 10
    rebuild: Callable[[Calibration], Callable[[np.ndarray], object]] | None = None

    def __post_init__(self):
        if self.tracker_config.table_to_image is None:
            # the detector's pixel noise is mapped onto the table through the view
            self.tracker_config = replace(self.tracker_config, table_to_image=tuple(
                np.asarray(self.calibration.H_table_to_image, float).ravel()))
        self.tracker = BallTracker(self.tracker_config)
        self._held: list[tuple[float, int, dict]] = []
        self._order = itertools.count()
        self.shots = ShotTracker(self.shot_config)
        self.referee = Referee()
        self.frame_start = {"type": "frame_start", "players": list(self.players), "breaker": 0,
                            "reds": self.reds}
        self.referee.feed(self.frame_start)
        self.monitor = CalibrationMonitor(self.calibration) if self.monitor_every > 0 else None
        self._use(self.calibration)

    def _use(self, calibration: Calibration) -> None:
        self.calibration = calibration
        self._camera = calibration.camera()
        self._pockets_px = calibration.pockets_px()

    def _check_camera(self, frame: Frame) -> list[dict]:
        """The ``calibrated`` event when the camera was knocked and the table found again."""
        if self.monitor is None or frame.index % self.monitor_every:
            return []
        found = self.monitor.check(frame.image)
        if not isinstance(found, Calibration):
            return []
        self._use(found)
        if self.rebuild is not None:
            self.detect = self.rebuild(found)
        return [{"type": "calibrated", "frame": frame.index, "t": frame.t,
                 "reprojection_error_mm": found.reprojection_error_mm,
                 "pockets_px": self._pockets_px, "reason": "camera moved"}]

    def start_events(self, frame: int = 0, t: float = 0.0) -> list[dict]:
        """What the log says before the first frame: the calibration and the frame set-up."""
        return [{"type": "calibrated", "frame": frame, "t": t,
                 "reprojection_error_mm": self.calibration.reprojection_error_mm,
                 "pockets_px": self._pockets_px},
                record_event(self.frame_start, frame, t)]

    def process(self, frame: Frame) -> FrameResult:
        return self._follow(frame, self._see(frame))

    def run(self, frames: Iterable[Frame], ahead: bool = True) -> Iterator[FrameResult]:
        """The results of ``process`` for every frame of ``frames``, in order. With ``ahead``
        the detector's work image of each frame (a resize, most of it outside Python's global
        lock) is made on a thread of its own, a frame or two ahead of the rest, which runs
        frame by frame on the caller's thread. The detection, colour, tracking, shot and
        referee stages are mostly Python: on threads of their own they would take turns at the
        lock, and the handing over costs more than the overlap gains. OpenCV's own threads are
        not used meanwhile: handing each call's rows to them costs more CPU time than it
        saves."""
        if not ahead:
            for frame in frames:
                yield self.process(frame)
            return
        cv_threads = cv2.getNumThreads()
        cv2.setNumThreads(1)
        try:
            for frame, shrunk in read_ahead(((f, self._shrink(f)) for f in frames), depth=2):
                yield self._follow(frame, self._see(frame, shrunk))
        finally:
            cv2.setNumThreads(cv_threads)

    def _shrink(self, frame: Frame):
        """The first detection stage of one frame, from the frame alone: its work image for
        the detector (None when ``detect`` has no stages)."""
        stages = getattr(self.detect, "stages", None)
        return None if stages is None else stages[0](frame.image)

    def _see(self, frame: Frame, shrunk=None) -> _Seen:
        """The detection stage of one frame, given what ``_shrink`` made of it, if anything."""
        recalibrated = self._check_camera(frame)
        stages = getattr(self.detect, "stages", None)
        if stages is None:
            found, classify = self.detect(frame.image), None
        else:
            _, find, classify = stages
            found = find(frame.image, shrunk)
        return _Seen(recalibrated, found, classify, self.calibration, self._camera,
                     self._pockets_px)

    def _follow(self, frame: Frame, seen: _Seen) -> FrameResult:
        """The colour, tracking, shot and referee stages of one frame, after its detection."""
        det = seen.detections if seen.classify is None else seen.classify(seen.detections)
        state = self.tracker.update(frame.index, frame.t, np.asarray(det.xy_mm, float),
                                    np.asarray(det.cls, int), np.asarray(det.confidence, float))
        events = list(seen.events)
        for e in state.events:
            e = dict(e)
            if e["type"] == "pot":
                e["pocket_px"] = seen.pockets_px[e["pocket"]]
            events.append(e)
        for e in self.shots.update(state):
            record = e.pop("record", None)
            events.append(e)
            if record is not None:
                events.extend(self._score(record, e["frame"], e["t"]))
        settled = min(frame.t, self.tracker.settled_t(frame.t), self.shots.settled_t(frame.t))
        events = self._in_order(events, settled)
        return FrameResult(frame, state, events,
                           self._ball_px(state.xy_mm, seen.camera, seen.calibration))

    def _in_order(self, events: list[dict], settled: float) -> list[dict]:
        """The events that are due, in time order. Some are known a little after they happen
        (a contact is dated from the paths on either side of it, a pot once the ball has stayed
        gone, a jump once the ball it went over has stayed put): each is held until nothing
        dated earlier can still come (``settled``, from the tracker and the shot logic), then
        let out."""
        for e in events:
            self._held.append((e["t"], next(self._order), e))
        if not self._held:
            return []
        self._held.sort(key=lambda h: (h[0], h[1]))
        n = 0
        while n < len(self._held) and self._held[n][0] <= settled:
            n += 1
        due, self._held = self._held[:n], self._held[n:]
        return [e for *_, e in due]

    def finish(self) -> list[dict]:
        """The events still held when the source ends."""
        return self._in_order([], np.inf)

    def _score(self, record: dict, frame: int, t: float) -> list[dict]:
        result = self.referee.feed(record)
        out = [record_event(record, frame, t),
               {**{k: v for k, v in result.items() if k not in ("type", "frame")},
                "type": "score", "frame_number": result.get("frame"), "frame": frame, "t": t}]
        if result.get("frame_over"):
            out.append({"type": "frame_end", "frame": frame, "t": t,
                        "winner": result.get("winner"), "score": result.get("score")})
        return out

    def ball_px(self, xy_mm: np.ndarray) -> np.ndarray:
        """(N, 2) table mm of ball centres -> (N, 2) raw px (NaN stays NaN)."""
        return self._ball_px(xy_mm, self._camera, self.calibration)

    def _ball_px(self, xy_mm: np.ndarray, camera, calibration: Calibration) -> np.ndarray:
        """``ball_px`` through ``camera`` (or, None, the homography of ``calibration``)."""
        xy_mm = np.asarray(xy_mm, float).reshape(-1, 2)
        out = np.full_like(xy_mm, np.nan)
        ok = np.isfinite(xy_mm).all(axis=1)
        if ok.any():
            if camera is not None:
                pts = np.c_[xy_mm[ok], np.full(int(ok.sum()), self.table.ball_radius_mm)]
                out[ok] = camera.project(pts)
            else:
                out[ok] = calibration.table_to_px(xy_mm[ok])
        return out
