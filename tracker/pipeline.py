"""The tracking pipeline: frames -> detections -> table states -> shot events -> the referee.

A chain of small stages; :class:`Pipeline` holds their state and turns one frame into that
frame's table state and events. Sources (video files, cameras, streams) and sinks (event log,
tracks, overlay) are chosen by the command line (``tracker.cli.track``).
"""

from __future__ import annotations

import collections
import copy
import ctypes
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import SimpleNamespace

import cv2
import numpy as np

from calibration.calibrate import Calibration
from calibration.errors import InputError
from calibration.monitor import CalibrationMonitor
from calibration.specs import BALL_CLASSES, SnookerTableSpec
from tracker.events import SCHEMA_VERSION
from tracker.events.shots import ShotConfig, ShotTracker
from tracker.game import GAMES, Game, game
from tracker.io.eventlog import record_event
from tracker.io.video import probe, read_ahead, read_frames
from tracker.rules.join import seen_frame
from tracker.rules.records import parse_record
from tracker.rules.snooker import Referee
from tracker.tracking.track import BallTracker, TableState, TrackerConfig


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
    blind: bool = False  # the frame did not show the table (``Pipeline``)
    replay: bool = False  # the frame showed the table as it was before (a broadcast's replay)


# -- sources ------------------------------------------------------------------------------------
# the most pixels a frame may have to be decoded on one thread: the pipeline spends more CPU on
# a frame than decoding does, and one thread keeps well ahead of it (a 1080p sample clip: 230-320
# frames a second, each 0.5-1.2 ms of CPU cheaper than with FFmpeg's frame threads, whose work
# then competes with the pipeline's for the cores); larger frames on two
ONE_DECODING_THREAD_PX = 1920 * 1088


def file_frames(path: str | Path) -> tuple[Iterator[Frame], float, int]:
    """(frames, fps, frame count or 0) of a video file, decoded on a thread of their own."""
    info = probe(path)
    fps = info["fps"] or 30.0
    count = 1 if info["width"] * info["height"] <= ONE_DECODING_THREAD_PX else 2

    def gen() -> Iterator[Frame]:
        frames = read_frames(path, count=count)
        for k, image in enumerate(read_ahead(frames, name="decode")):
            yield Frame(k, k / fps, image)

    return gen(), fps, info["frames"]


class LiveSource:
    """A camera index or stream URL read on a thread that keeps only the newest frame, so the
    pipeline never falls behind the camera: frames it had no time for are dropped and counted.
    A dropped stream is reopened (``reconnect_s`` between tries). A finite stream (a video
    file served over HTTP: it has a frame count) is neither: every frame of it is read, in
    turn, and its frames end where it ends."""

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
        self.total = max(int(self._cap.get(cv2.CAP_PROP_FRAME_COUNT) or 0), 0)
        self._ended = False
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
            if not ok and self.total:  # a finite stream's end, or its reading broken off
                with self._cond:
                    if count + max(2, self.total // 50) < self.total:  # counts may be estimates
                        self._failed = (f"stream {self.source!r} ended at frame {count} of "
                                        f"{self.total}")
                    self._ended = True
                    self._cond.notify_all()
                return
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
                while self.total and self._latest is not None and not self._stop:
                    self._cond.wait(0.1)  # every frame of a finite stream, in turn
                if self._latest is not None:
                    self.dropped += 1
                self._latest = (count, time.monotonic() - t0, image)
                self._cond.notify_all()
            count += 1

    def frames(self) -> Iterator[Frame]:
        while True:
            with self._cond:
                while self._latest is None and self._failed is None and not self._ended:
                    self._cond.wait(1.0)
                if self._latest is None:
                    if self._failed is not None:
                        raise InputError(self._failed)
                    return
                k, t, image = self._latest
                self._latest = None
                self._cond.notify_all()
            # a finite stream's frames are timed as a file's are
            yield Frame(k, k / self.fps if self.total else t, image)

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
    blind: bool = False  # the frame does not show the table (``Pipeline.blind_check_s``)


@dataclass
class _View:
    """A view of the table a source has shown: its calibration, the monitor holding its
    cushions' edges, and the detection made for it."""

    calibration: Calibration
    monitor: CalibrationMonitor | None
    detect: Callable[[np.ndarray], object]


def _same_view(a: Calibration, b: Calibration, px: float = 3.0) -> bool:
    """Whether calibrations ``a`` and ``b`` put every pocket within ``px`` of each other in
    the image: one camera's view found twice (a camera knocked moves its edges 1.5 px or
    more, ``CalibrationMonitor.drift_px``, and is a view of its own)."""
    pa, pb = a.pockets_px(), b.pockets_px()
    return pa.keys() == pb.keys() and all(
        float(np.hypot(*(np.asarray(pa[k], float) - np.asarray(pb[k], float)))) <= px
        for k in pa)


@dataclass
class Pipeline:
    """Per-frame work from pixels to the score.

    ``detect``: frame BGR -> detections with ``xy_px`` (K, 2), ``xy_mm`` (K, 2), ``cls`` (K,)
    and ``confidence`` (K,) (the detector and colour classifier); when it has ``stages``
    (``shrink``, ``find``, ``classify``, as ``tracker.vision.stages.make_detect`` gives), the
    three are taken as three stages. The referee is fed a
    ``frame_start`` for ``players`` and every finished shot; its results become ``score`` and
    ``frame_end`` events.

    A source may begin in the middle of a frame (a recording started late, a stream joined):
    with ``join`` the referee starts from the first still table the source shows (the reds
    left, the colours on, the white in hand or not: ``tracker.rules.join``) rather than from
    the rack, with what a picture cannot show given here: the frame's ``score``, the
    ``frames`` won, the ``break_`` in progress and who is ``to_play`` (0 or 1). A caller
    that feeds the referee itself before the first frame (the shots before the source began)
    turns the join off. The ``frame_start`` record is then written dated at the first frame,
    and every event waits for it.

    Every ``monitor_every`` frames (0: never) the cushion edges are checked against the
    calibration; when the camera has been knocked the table is found again, ``rebuild`` makes a
    new ``detect`` for the new calibration, and a ``calibrated`` event is emitted. Positions stay
    in table mm, so the tracks go on through it.

    A frame that does not show the table (a broadcast's cut to the crowd or to a player, the
    lamps off: ``BallDetector.in_view``) is seen by no stage: the balls stand as they were last
    seen (unseen), no event comes of it and the table is not looked for in it; the tracker
    takes up the balls where the picture comes back, as after an occlusion. Only once no frame
    has shown the table for ``blind_check_s`` seconds is the camera checked again (it may have
    been turned to look elsewhere). Nor is a replay: after such a cut, a picture that shows the
    table as it stood before one of the last shots rather than as play left it (``_Follower``).

    ``process(frame)`` takes one frame through every stage; ``run(frames)`` gives the same
    results for a whole source, shrinking each frame to its work image on a thread of its own
    ahead of the other stages, and running the stages after detection in a worker process.
    """

    calibration: Calibration
    detect: Callable[[np.ndarray], object]
    players: tuple[str, str] = ("Player 1", "Player 2")
    reds: int = 15
    best_of: int = 1
    tracker_config: TrackerConfig = field(default_factory=TrackerConfig)
    shot_config: ShotConfig = field(default_factory=ShotConfig)
    game: Game | None = None  # the game followed (default snooker)
    monitor_every: int = 10
    rebuild: Callable[[Calibration], Callable[[np.ndarray], object]] | None = None
    blind_check_s: float = 5.0
    score: tuple[int, int] | None = None
    frames: tuple[int, int] | None = None
    break_: int | None = None
    to_play: int | None = None
    join: bool = True

    def __post_init__(self):
        if self.game is None:
            self.game = game("snooker")
        if not self.game.tracked:
            raise InputError(f"the camera does not follow {self.game.name} yet (only "
                             f"{', '.join(n for n in GAMES if game(n).tracked)})")
        if self.tracker_config.table_to_image is None:
            # the detector's pixel noise is mapped onto the table through the view
            self.tracker_config = replace(self.tracker_config, table_to_image=tuple(
                np.asarray(self.calibration.H_table_to_image, float).ravel()))
        self._follower = _Follower(BallTracker(self.tracker_config),
                                   ShotTracker(self.shot_config), self.game.referee(),
                                   self.table)
        self.frame_start = {"type": "frame_start", "players": list(self.players), "breaker": 0,
                            "reds": self.reds}
        if self.best_of > 1:
            self.frame_start["best_of"] = self.best_of
        given = {"score": self.score, "frames": self.frames, "break": self.break_,
                 "to_play": self.to_play}
        self.frame_start.update({k: (list(v) if isinstance(v, tuple) else v)
                                 for k, v in given.items() if v is not None})
        try:
            self.referee.feed(self.frame_start)
        except ValueError as exc:
            raise InputError(f"cannot start the frame: {exc}") from None
        self._started = self.referee.state  # as the pipeline started it: the join may redo it
        self._join_decided = False
        self.monitor = CalibrationMonitor(self.calibration) if self.monitor_every > 0 else None
        self._use(self.calibration)
        self._blind_since: float | None = None  # the time of the first frame of a blind spell
        # every view of the table the source has shown (a broadcast's cameras), each as its
        # calibration, its monitor (holding that view's cushion edges) and its ``detect``
        self._views: list[_View] = [_View(self.calibration, self.monitor, self.detect)]
        # when the table was last looked for in a picture that may show it from another camera
        self._looked_t: float | None = None
        # most of the table changed at once in the last frame (a cut to another camera?): its
        # edges checked in the next frame, whatever its number
        self._check_soon = False
        self._thumb: np.ndarray | None = None  # the last work image looked at, sampled

    # the stages after detection, kept together (``run`` may take them to a process of their
    # own)
    @property
    def table(self) -> SnookerTableSpec:
        """The game's table (mm)."""
        return self.game.table

    @property
    def tracker(self) -> BallTracker:
        return self._follower.tracker

    @property
    def shots(self) -> ShotTracker:
        return self._follower.shots

    @property
    def referee(self) -> Referee:
        return self._follower.referee

    @referee.setter
    def referee(self, referee: Referee) -> None:
        self._follower.referee = referee

    def _use(self, calibration: Calibration) -> None:
        self.calibration = calibration
        self._camera = calibration.camera()
        self._pockets_px = calibration.pockets_px()

    def _check_camera(self, frame: Frame, same_cloth: bool = False) -> list[dict]:
        """The ``calibrated`` event when the camera was knocked (or the picture cut to another
        camera) and the table found again, in a view seen before (``_view_again``) or afresh;
        with ``same_cloth`` only where the table found is covered by the cloth seen so far (a
        crowd's picture may pass for a table's)."""
        if self.monitor is None or (frame.index % self.monitor_every and not same_cloth
                                    and not self._check_soon):
            return []
        self._check_soon = False
        held = copy.copy(self.monitor)  # this view's edges, should the camera have moved
        found = self.monitor.check(frame.image)
        if found is False and (len(self._views) > 1 or self.monitor.elsewhere):
            # the edges moved: to a view seen before? With none of them left in place the
            # picture cut to another camera: the table found in it at once
            again = self._view_again(frame)
            if again or not self.monitor.elsewhere:
                return again
            found = self.monitor.find_again(frame.image)
        if not isinstance(found, Calibration):
            return []
        if same_cloth and not self._covered(found, frame):
            self.monitor = held  # that was no table
            return []
        view = next((v for v in self._views if v.calibration is self.calibration), None)
        if view is not None:
            view.monitor = held
        known = next((v for v in self._views if v is not view
                      and _same_view(v.calibration, found)), None)
        if known is not None:
            return self._switch(known, frame, found.reprojection_error_mm)
        self._use(found)
        if self.rebuild is not None:
            self.detect = self.rebuild(found)
        # the camera knocked, or another camera's: the views before are kept (the newest few)
        self._views = [*self._views[1 - _VIEWS:], _View(found, self.monitor, self.detect)]
        return [{"type": "calibrated", "frame": frame.index, "t": frame.t,
                 "reprojection_error_mm": found.reprojection_error_mm,
                 "pockets_px": self._pockets_px, "reason": "camera moved"}]

    def _view_again(self, frame: Frame) -> list[dict]:
        """The ``calibrated`` event of a switch to a view of the table seen before (another
        of a broadcast's cameras) that ``frame`` shows, its cushions' edges where that view
        had them; [] when it shows none of them."""
        for view in self._views:
            if view.calibration is not self.calibration and view.monitor is not None \
                    and view.monitor.in_place(frame.image):
                return self._switch(view, frame, view.calibration.reprojection_error_mm)
        return []

    def _cut_to(self, shrunk) -> None:
        """Has the cushions' edges checked in the next frame (``_check_soon``) when the
        picture was cut to another since the last frame looked at: its work image ``shrunk``
        (as ``_shrink`` gave it), every 24th pixel each way brought to the last one's
        brightness, differs from the last one's by ``_CUT_LEVEL`` or more on average (another
        camera's view; a player walking in, the lamps' flicker change it a little at a
        time)."""
        if not isinstance(shrunk, tuple) or shrunk[1] is None:
            return
        thumb = shrunk[1][8::24, 8::24].astype(np.float32)
        last, self._thumb = self._thumb, thumb
        if last is not None and last.shape == thumb.shape:  # (not: another view taken up)
            thumb = thumb * (float(last.mean()) / max(float(thumb.mean()), 1.0))
            self._check_soon |= float(np.abs(thumb - last).mean()) >= _CUT_LEVEL

    def _another_view(self, frame: Frame) -> bool:
        """Whether ``frame``, which does not show the table as the calibration has it, may show
        it from another camera: much of it looks like the cloth (``_ANOTHER_VIEW``), and the
        table was last looked for in such a picture ``_ANOTHER_VIEW_S`` ago or more."""
        detector = getattr(self.detect, "detector", None)
        if detector is None or (self._looked_t is not None
                                and frame.t - self._looked_t < _ANOTHER_VIEW_S):
            return False
        if detector.cloth_share(frame.image) < _ANOTHER_VIEW:
            return False
        self._looked_t = frame.t
        return True

    def _switch(self, view: _View, frame: Frame, error_mm: float) -> list[dict]:
        """Take up ``view``, one seen before: its calibration, monitor and detection."""
        self._use(view.calibration)
        self.monitor, self.detect = view.monitor, view.detect
        self._blind_since = None
        return [{"type": "calibrated", "frame": frame.index, "t": frame.t,
                 "reprojection_error_mm": error_mm, "pockets_px": self._pockets_px,
                 "reason": "view seen before"}]

    def start_events(self, frame: int = 0, t: float = 0.0) -> list[dict]:
        """What the log says before the first frame: the calibration (with the log's
        ``schema_version``) and the frame set-up (when joining, the set-up comes with the
        first still table instead, dated at the first frame)."""
        out = [{"type": "calibrated", "frame": frame, "t": t,
                "reprojection_error_mm": self.calibration.reprojection_error_mm,
                "pockets_px": self._pockets_px, "schema_version": SCHEMA_VERSION}]
        if not self._joining():
            out.append(record_event(self.frame_start, frame, t))
        return out

    def _joining(self) -> bool:
        """Whether the frame is joined from the first still table: decided once, before the
        first frame; not when the caller has fed or replaced the referee since it started."""
        if not self._join_decided:
            self._join_decided = True
            if self.join and self.referee.state is self._started:
                self._follower.join_start = dict(self.frame_start)
        return self._follower.join_start is not None

    def process(self, frame: Frame) -> FrameResult:
        self._joining()
        return self._follow(frame, self._see(frame))

    def run(self, frames: Iterable[Frame], ahead: bool = True,
            split: bool = True) -> Iterator[FrameResult]:
        """The results of ``process`` for every frame of ``frames``, in order. With ``ahead``
        the detector's work image of each frame (a resize, most of it outside Python's global
        lock) is made on a thread of its own, a frame or two ahead of the rest. With ``split``
        the stages after detection (colour, tracking, shots, referee) run in a process of their
        own, a frame or a few behind detection, on the other core (all of them are mostly
        Python: on threads of one process they would take turns at the lock); when the frames
        run out, or the results are no longer wanted, the pipeline holds those stages' state
        again. OpenCV's own threads are not used meanwhile: handing each call's rows to them
        costs more CPU time than it saves."""
        self._joining()
        if not ahead and not split:
            for frame in frames:
                yield self.process(frame)
            return
        shrunk = ((f, self._shrink(f)) for f in frames)
        if ahead:
            shrunk = read_ahead(shrunk, depth=2, name="work-image")
        cv_threads = cv2.getNumThreads()
        cv2.setNumThreads(1)
        try:
            if split:
                yield from self._run_split(shrunk)
            else:
                for frame, work in shrunk:
                    yield self._follow(frame, self._see(frame, work))
        finally:
            cv2.setNumThreads(cv_threads)

    def _run_split(self, shrunk: Iterable[tuple[Frame, object]], depth: int = 4
                   ) -> Iterator[FrameResult]:
        """``run`` of the frames and their work images ``shrunk`` with the stages after
        detection (colour, when ``detect`` has it as a stage of its own, tracking, shots, the
        referee) in a worker process, up to ``depth`` frames behind. Each frame's detections go
        to it (nothing when they are the very same as the frame before's), with the colour
        stage and the calibration when they changed; the worker's results come back in frame
        order, and its stages' state at the end."""
        ctx = _worker_context()
        worker_in, outbox = ctx.Pipe(duplex=False)  # (reading end, writing end)
        inbox, worker_out = ctx.Pipe(duplex=False)
        worker = ctx.Process(target=_follow_in_worker, args=(self._follower, worker_in,
                                                             worker_out),
                             name="cueball-follow", daemon=True)
        worker.start()
        worker_in.close()
        worker_out.close()
        pending: collections.deque[tuple[Frame, bool]] = collections.deque()  # and blind
        sent: list = [None, None, None]  # the last found, colour stage and view sent
        finished = False

        def result() -> FrameResult:
            state, events, xy_px, replay = _received(inbox, worker)
            frame, blind = pending.popleft()
            return FrameResult(frame, state, events, xy_px, blind, replay)

        def end() -> None:
            """The worker's state, once every frame's result is in."""
            self._follower, classify = _received(inbox, worker)
            if classify is not None:  # the colour stage, as the worker left it
                vars(sent[1]).update(vars(classify))

        try:
            for frame, work in shrunk:
                seen = self._see(frame, work)
                parts = (seen.detections, seen.classify,
                         (seen.calibration, seen.camera, seen.pockets_px))
                message = [frame.index, frame.t, seen.events]
                for k, part in enumerate(parts):
                    message.append(None if _same(part, sent[k]) else part)
                    if part is not None:  # a blind frame's nothing leaves the worker's as is
                        sent[k] = part
                message.append(seen.blind)
                _send(outbox, tuple(message), inbox, worker)
                pending.append((frame, seen.blind))
                while pending and (len(pending) > depth or inbox.poll()):
                    yield result()
            _send(outbox, None, inbox, worker)
            while pending:
                yield result()
            end()
            finished = True
        finally:
            if not finished and worker.is_alive():
                # the results are no longer wanted (or an error came up): the later stages'
                # state as far as the worker got
                try:
                    outbox.send(None)
                    while pending:
                        pending.popleft()
                        _received(inbox, worker)
                    end()
                except BaseException:  # what went wrong first is what is raised
                    pass
            outbox.close()
            inbox.close()
            worker.join(timeout=5)
            if worker.is_alive():
                worker.terminate()

    def _shrink(self, frame: Frame):
        """The first detection stage of one frame, from the frame alone: its work image for
        the detector (None when ``detect`` has no stages)."""
        stages = getattr(self.detect, "stages", None)
        return None if stages is None else stages[0](frame.image)

    def _see(self, frame: Frame, shrunk=None) -> _Seen:
        """The detection stage of one frame, given what ``_shrink`` made of it, if anything."""
        if shrunk is None:
            shrunk = self._shrink(frame)
        if not self._in_view(frame, shrunk):
            if self._blind_since is None:
                self._blind_since = frame.t
            recalibrated = self._view_again(frame) if len(self._views) > 1 else []
            if not recalibrated and (frame.t - self._blind_since >= self.blind_check_s
                                     or self._another_view(frame)):
                self._blind_since = frame.t  # the next try as long after this one
                recalibrated = self._check_camera(frame, same_cloth=True)
            if not recalibrated:
                return _Seen([], None, None, self.calibration, self._camera, self._pockets_px,
                             blind=True)
        else:
            self._blind_since = None
            recalibrated = self._check_camera(frame)
        stages = getattr(self.detect, "stages", None)
        if stages is None:
            found, classify = self.detect(frame.image), None
        else:
            _, find, classify = stages
            found = find(frame.image, shrunk)
        self._cut_to(shrunk)
        return _Seen(recalibrated, found, classify, self.calibration, self._camera,
                     self._pockets_px)

    def _covered(self, calibration: Calibration, frame: Frame) -> bool:
        """Whether the table that ``calibration`` finds in the frame is covered by the cloth
        the detector knows (``BallDetector.covers``, on a 9 x 17 grid inside the cushions;
        True without a ``BallDetector`` behind ``detect``)."""
        detector = getattr(self.detect, "detector", None)
        if detector is None:
            return True
        t = self.table
        u, v = np.meshgrid(np.linspace(0.1, 0.9, 9) * t.width_mm,
                           np.linspace(0.05, 0.95, 17) * t.length_mm)
        px = _ball_px(np.c_[u.ravel(), v.ravel()], calibration.camera(), calibration, t)
        return detector.covers(frame.image, px)

    def _in_view(self, frame: Frame, shrunk=None) -> bool:
        """Whether the frame shows the table, by the detector's cloth model (True without a
        ``BallDetector`` behind ``detect``)."""
        detector = getattr(self.detect, "detector", None)
        if detector is None:
            return True
        work = (shrunk[1] if isinstance(shrunk, tuple) and shrunk[0] is detector
                else detector.work_image(frame.image))
        if detector.in_view(work):
            return True
        # the light changed colour (the camera's white balance moved): the table is in view
        # where its colours, each channel brought back on its own, look like the cloth and its
        # cushions' edges are where they were
        return (detector.in_view(work, tinted=True) and self.monitor is not None
                and self.monitor.in_place(frame.image))

    def _follow(self, frame: Frame, seen: _Seen) -> FrameResult:
        """The colour, tracking, shot and referee stages of one frame, after its detection."""
        det = None if seen.blind else _classified(seen.detections, seen.classify)
        state, events, xy_px, replay = self._follower.follow(
            frame.index, frame.t, seen.events, det,
            (seen.calibration, seen.camera, seen.pockets_px), seen.blind)
        return FrameResult(frame, state, events, xy_px, seen.blind, replay)

    def finish(self) -> list[dict]:
        """The events still held when the source ends."""
        return self._follower.finish()

    def ball_px(self, xy_mm: np.ndarray) -> np.ndarray:
        """(N, 2) table mm of ball centres -> (N, 2) raw px (NaN stays NaN)."""
        return _ball_px(xy_mm, self._camera, self.calibration, self.table)


@dataclass
class _Follower:
    """The stages after detection and colour, with their state: the tracker, the shot logic,
    the referee, and the events held until nothing dated earlier can still come."""

    tracker: BallTracker
    shots: ShotTracker
    referee: Referee
    table: SnookerTableSpec
    held: list[tuple[float, int, dict]] = field(default_factory=list)
    order: int = 0
    view: tuple | None = None  # the calibration, its camera and its pockets' px in force
    last: TableState | None = None  # the last frame's state
    # the table as it stood before each of the last few shots (classes, table mm), the state
    # when every ball last stood still, whether a frame without the table came since the last
    # look, and since when the picture has shown a replay
    before: collections.deque = field(default_factory=lambda: collections.deque(maxlen=3))
    still: TableState | None = None
    cut: bool = False
    replay_since: float | None = None
    back_since: float | None = None  # since when a replay has shown the table as play left it
    replaceable: bool = False  # the last shot was a foul that may be called a miss
    # after such a foul the balls may be put back as they stood before it, and the shot that
    # follows may be its replay (told only when it has ended): the events of that shot, held
    # till then, and since when (frame, t) it may be a replay (the first picture after a cut
    # since the foul, or the shot's start); the table and the white's path as the last shot
    # scored left them, and the white's path in this shot
    suspect: tuple[int, float] | None = None
    pending: list[dict] | None = None
    # the tracker, the shot logic and the table's state as such a foul left them (what a
    # replay of it gave them is forgotten: a wipe into it may show balls of both pictures)
    saved: tuple | None = None
    ended: tuple | None = None
    ended_path: np.ndarray | None = None
    path: list = field(default_factory=list)
    # the frame over and the match not: since when the table has shown the balls set up for
    # the next frame
    racked_since: float | None = None
    # a frame to be joined from the first still table: the frame_start record the picture
    # completes, the first frame (index, t), and since when the table has stood still
    join_start: dict | None = None
    join_from: tuple[int, float] | None = None
    join_still_since: float | None = None

    def follow(self, index: int, t: float, seen_events: list[dict], det, view: tuple | None,
               blind: bool = False) -> tuple[TableState, list[dict], np.ndarray, bool]:
        """One frame's classified detections ``det`` -> (table state, the events due, the
        balls' image px, whether the frame is a replay); ``seen_events`` what detection said of
        the frame, ``view`` the calibration, camera and pockets' px in force (None: as before).
        A ``blind`` frame (it does not show the table) changes nothing: the balls stand as last
        seen, unseen. Nor does a replay (``_replaying``)."""
        if view is not None:
            self.view = view
        calibration, camera, pockets_px = self.view
        events = list(seen_events)
        replay = False
        if blind:
            self.cut = True
        elif self.last is not None and (self.cut or self.replay_since is not None
                                        or not self.shots.in_shot):
            # after a cut, in a replay, or between shots (a cut straight from the table to its
            # replay, or through a wipe the picture showed the table in)
            replay = self._replaying(det, index, t, events)
            if self.cut and not replay and not self.shots.in_shot and self.replaceable:
                self.suspect = (index, t)
            self.cut = False
        if (blind or replay) and self.last is not None:
            last = self.last
            state = replace(last, frame=index, t=t, events=(),
                            state=np.where(last.state == "seen", "predicted", last.state))
            self.last = state
            return (state, self.in_order(events, -np.inf),
                    _ball_px(state.xy_mm, camera, calibration, self.table), replay)
        if blind:
            det = _NOTHING
        if self.join_from is None:
            self.join_from = (index, t)
        between = self.referee.state is not None and self.referee.state.frame.over
        if between and self._set_up(det, t):
            events += self._next_frame(index, t)
            between = False
        state = self.tracker.update(index, t, np.asarray(det.xy_mm, float),
                                    np.asarray(det.cls, int), np.asarray(det.confidence, float))
        if between:
            # no play between frames (the balls taken from the pockets and set up by hand, or
            # knocked about once the match is over): the balls are followed, nothing is scored
            settled = min(t, self.tracker.settled_t(t), self.shots.settled_t(t))
            self.last = state
            return (state, self.in_order(events, settled),
                    _ball_px(state.xy_mm, camera, calibration, self.table), False)
        played = []  # what tracking and the shots tell of the frame
        for e in state.events:
            e = dict(e)
            if e["type"] == "pot":
                e["pocket_px"] = pockets_px[e["pocket"]]
            played.append(e)
        in_shot = self.shots.in_shot
        if self.join_start is not None:
            events += self._join_when_still(state, t)
        if in_shot or self.shots.in_shot:
            self._white_path(state)
        for e in self.shots.update(state):
            record = e.pop("record", None)
            played.append(e)
            if record is not None:
                played, replayed = self._shot_ended(record, e, state, played)
                if replayed:  # the table as the foul left it, as every stage had it then
                    self.tracker, self.shots, saved = copy.deepcopy(self.saved)
                    state = replace(saved, frame=index, t=t, events=())
        if self.shots.in_shot and not in_shot and self.still is not None:
            self.before.append(_layout(self.still))
            self.path = [self.still.xy_mm[self.still.index("white")]] if (
                "white" in self.still.track_ids) else []
            self._white_path(state)
        elif not self.shots.in_shot:
            on = state.on_table()
            if np.all(np.hypot(*state.velocity_mm_s[on].T) < _STILL_MM_S):
                self.still = state
        if self.shots.in_shot and not in_shot and self.replaceable:
            self.pending = []
            if self.suspect is None:  # no cut since the foul: the replay began with the shot
                start = next(e for e in played if e["type"] == "shot_start")
                self.suspect = (start["frame"], start["t"])
        if self.pending is not None:
            self.pending += played
            if self._went_elsewhere():  # no replay of the foul: the shot's events are due
                events += self._replaced() + self.pending
                self.pending = None
        else:
            events += played
        settled = min(t, self.tracker.settled_t(t), self.shots.settled_t(t))
        if self.join_start is not None:
            settled = -np.inf  # nothing is told before the frame it belongs to
        events = self.in_order(events, settled)
        self.last = state
        return state, events, _ball_px(state.xy_mm, camera, calibration, self.table), False

    def _join_when_still(self, state: TableState, t: float) -> list[dict]:
        """The join's events once the table has stood still for ``_JOIN_S`` (every ball in
        play slower than ``_STILL_MM_S``), or at once when a shot is under way or the source
        has gone on for ``_JOIN_MAX_S`` (the table as it last stood still, or as it is)."""
        on = state.on_table()
        still = on.any() and bool(np.all(np.hypot(*state.velocity_mm_s[on].T) < _STILL_MM_S))
        if self.shots.in_shot or t - self.join_from[1] >= _JOIN_MAX_S:
            return self._join(self.still if self.still is not None else state)
        if not still:
            self.join_still_since = None
            return []
        if self.join_still_since is None:
            self.join_still_since = t
        return self._join(state) if t - self.join_still_since >= _JOIN_S else []

    def _join(self, state: TableState | None) -> list[dict]:
        """The frame joined as ``state`` shows it (``tracker.rules.join``; None: as racked):
        the referee started afresh from the completed ``join_start``, its ``record`` and,
        for a frame joined mid-way or in doubt, a ``frame_start`` event with the referee's
        answer, ``joined`` and the ``doubts``; both dated at the first frame."""
        record, self.join_start = self.join_start, None
        doubts: list[str] = []
        if state is not None:
            on = state.on_table()
            fields, doubts = seen_frame([BALL_CLASSES[c] for c in state.classes[on]],
                                        int(record.get("reds", 15)))
            record.update(fields)
        self.referee = type(self.referee)()
        result = self.referee.feed(record)
        index, t = self.join_from or (0, 0.0)
        out = [record_event(record, index, t)]
        frame = self.referee.state.frame
        if parse_record(record).joined or doubts:
            out.append(_answer(result, "frame_start", index, t, breaker=frame.breaker,
                               reds=frame.reds_at_start, joined=True, doubts=doubts))
        return out

    def finish(self) -> list[dict]:
        """The events still held when the source ends (the frame joined first, if it is not
        yet: from the table as it last stood still, or as last seen)."""
        events = []
        if self.join_start is not None:
            events = self._join(self.still if self.still is not None else self.last)
        return self.in_order(events, np.inf)

    def _set_up(self, det, t: float) -> bool:
        """Between frames, with the match not over: whether the balls ``det`` found have shown
        the table set up for the next frame for ``_SET_UP_S``: every colour on its spot and the
        reds in their triangle (all but one of its places taken; the white anywhere, in hand)."""
        match = self.referee.state
        if match.over:
            return False
        cls, xy = np.asarray(det.cls, int), np.asarray(det.xy_mm, float)
        rack = replace(self.table, reds=match.frame.reds_at_start).red_rack_mm
        spots = self.table.spots_mm
        places = np.concatenate([rack, [spots[c] for c in BALL_CLASSES[_FIRST_COLOUR:]]])
        want = np.r_[np.full(len(rack), _RED), np.arange(_FIRST_COLOUR, len(BALL_CLASSES))]
        gap = np.hypot(*(places[:, None] - xy[None]).transpose(2, 0, 1)).reshape(len(places), -1)
        taken = ((gap < _SET_UP_MM) & (want[:, None] == cls[None])).any(axis=1)
        if not (taken[len(rack):].all() and np.count_nonzero(taken[:len(rack)]) >= len(rack) - 1):
            self.racked_since = None
            return False
        if self.racked_since is None:
            self.racked_since = t
        return t - self.racked_since >= _SET_UP_S

    def _next_frame(self, index: int, t: float) -> list[dict]:
        """The next frame of the match, the table set up for it: the referee starts it (the
        breaker in turn), and the tracking and the shot logic start afresh (the reds numbered
        again), the shots numbered on."""
        record = {"type": "frame_start"}
        result = self.referee.feed(record)
        frame = self.referee.state.frame
        shots = ShotTracker(self.shots.config)
        shots.resume_after(self.shots.shots_played)
        self.tracker = BallTracker(replace(self.tracker.config, reds=frame.reds_at_start))
        self.shots = shots
        self.before.clear()
        self.still = self.suspect = self.pending = self.saved = None
        self.ended = self.ended_path = self.racked_since = None
        self.replaceable, self.path = False, []
        return [record_event(record, index, t),
                _answer(result, "frame_start", index, t, breaker=frame.striker,
                        reds=frame.reds_at_start)]

    def _replaying(self, det, index: int, t: float, events: list[dict]) -> bool:
        """Whether the picture, after frames that did not show the table (a broadcast's cut) or
        between shots, is a replay: it shows the table as it stood before one of the last shots
        rather than as play left it (``_shows_before``). A replay lasts until a picture shows
        every ball where play left it and no ball elsewhere (after a cut, or for
        ``_REPLAY_BACK_S`` without one), or a cut ends it on a picture that no longer shows the
        table as it stood before (the balls at rest where they rolled to while unseen), or
        for ``_REPLAY_MAX_S`` at most; ``replay_start`` and ``replay_end`` events say when."""
        now = _layout(self.last)
        cls, xy = np.asarray(det.cls, int), np.asarray(det.xy_mm, float)
        if self.replay_since is None:
            if not _layout_matches(cls, xy, now).all() and self._shows_before(cls, xy, now):
                self.replay_since = t
                events.append({"type": "replay_start", "frame": index, "t": t})
                return True
            return False
        # where play left it: every ball found there and none elsewhere (after a cut, one may
        # still be hidden and one thing, a hand, taken for a ball); without a cut, for a while
        # (a ball blurred out of sight in the replayed shot leaves the others where play left
        # them)
        missing = len(now[0]) - np.count_nonzero(_layout_matches(now[0], now[1], (cls, xy)))
        extra = len(cls) - np.count_nonzero(_layout_matches(cls, xy, now))
        back = max(missing, extra) <= (1 if self.cut else 0)
        if not back:
            self.back_since = None
        elif self.back_since is None:
            self.back_since = t
        if ((back and (self.cut or t - self.back_since >= _REPLAY_BACK_S))
                or (self.cut and not self._shows_before(cls, xy, now))
                or t - self.replay_since > _REPLAY_MAX_S):
            self.replay_since = self.back_since = None
            events.append({"type": "replay_end", "frame": index, "t": t})
            return False
        return True

    def _white_path(self, state: TableState) -> None:
        """The white's place in ``state``, if seen, on this shot's path."""
        if "white" in state.track_ids:
            w = state.index("white")
            if state.state[w] == "seen":
                self.path.append(state.xy_mm[w])

    def _shot_ended(self, record: dict, end: dict, state: TableState, played: list[dict]
                    ) -> tuple[list[dict], bool]:
        """What comes of a shot's end ``end`` (its ``record`` for the referee) at ``state``,
        the frame's events ``played`` with it, and whether the shot was a replay: the shot's
        score; or, for a shot after a foul that may be called a miss, if it replayed that foul
        (``_replayed``), nothing of it but ``replay_start`` (at ``suspect``) and
        ``replay_end``, and the shot is not counted (the caller takes every stage back to
        ``saved``)."""
        if self.pending is not None and self._replayed(state):
            (frame, t), self.pending = self.suspect, None
            self.before.pop()
            return [{"type": "replay_start", "frame": frame, "t": t},
                    {"type": "replay_end", "frame": end["frame"], "t": end["t"]}], True
        if self.pending is not None:
            played, self.pending = self._replaced() + self.pending + played, None
        self.suspect = None
        self.ended, self.ended_path = _layout(state), np.array(self.path).reshape(-1, 2)
        played += self._score(record, end["frame"], end["t"])
        self.saved = copy.deepcopy((self.tracker, self.shots, state)) if self.replaceable else None
        return played, False

    def _replaced(self) -> list[dict]:
        """The events of the non-offender's having the balls replaced after the last shot
        scored, a foul that may be called a miss, if the shot held in ``pending`` began with the
        balls as they stood before that foul (every ball seen then where one stood before it,
        the balls it moved among them; a ball hidden at the start may be anywhere): the foul is
        called a foul and a miss, and the offender plays again from there (S3 R14). Dated at
        that shot's start: a ``record`` (the decision fed to the referee) and a ``decision``
        event with the referee's answer."""
        if len(self.before) < 2 or self.ended is None:
            return []
        was = self.before[-2]
        moved = ~_layout_matches(*was, self.ended)  # by the foul
        # every ball seen at the start (the table still, ``still``, as the shot began) where one
        # stood before the foul, those it moved back
        seen = self.still.state == "seen"
        start = self.still.classes[seen], self.still.xy_mm[seen]
        if (not moved.any() or not _layout_matches(*start, was).all()
                or not _layout_matches(was[0][moved], was[1][moved], start).all()):
            return []
        decision = {"type": "decision", "choice": "replace", "miss": True}
        try:
            result = self.referee.feed(decision)
        except ValueError:  # the referee cannot call that foul a miss (a frame ended by it)
            return []
        shot = next(e for e in self.pending if e["type"] == "shot_start")
        return [record_event(decision, shot["frame"], shot["t"]),
                _answer(result, "decision", shot["frame"], shot["t"], choice="replace")]

    def _replayed(self, state: TableState) -> bool:
        """Whether the shot that ended at ``state`` played the last shot scored again: every
        ball that shot left is seen where it left it (within ``_REPLAY_MM``), no ball is seen
        elsewhere, and the white went that shot's way (every place it was seen on within
        ``_REPLAY_MM`` of that shot's path). A player playing a shot again after a miss does
        not stop every ball where they stopped, nor send the white the same way to the
        millimetre. (Balls not seen do not count: a wipe into a replay of moving balls may have
        sent a track after one of them.)"""
        seen = state.state == "seen"
        now, q = (state.classes[seen], state.xy_mm[seen]), self.ended_path
        p = np.array(self.path).reshape(-1, 2)
        if (self.ended is None or len(p) < 2
                or q is None or len(q) < 2
                or not (_layout_matches(*now, self.ended).all()
                        and _layout_matches(*self.ended, now).all())):
            return False
        return bool(_path_gaps(p, q).max() < _REPLAY_MM)

    def _went_elsewhere(self) -> bool:
        """Whether the white, in the shot held after a foul that may be called a miss, has
        been seen off that foul's path (``_REPLAY_MM`` or more from it): the shot is then no
        replay of it (``_replayed``), and need not be held till it ends."""
        q = self.ended_path
        if q is None or len(q) < 2 or not self.path:
            return False
        # asked every frame: the white's places since the last frame are the path's last two
        # at most (the shot's first frame adds where it stood and where it is)
        new = np.array(self.path[-2:]).reshape(-1, 2)
        return bool(_path_gaps(new, q).max() >= _REPLAY_MM)

    def _shows_before(self, cls: np.ndarray, xy: np.ndarray, now: tuple) -> bool:
        """Whether the balls of classes ``cls`` at table mm ``xy`` show the table as it stood
        before one of the last shots rather than as it stands ``now`` (classes, table mm): more
        of them where they stood before that shot and no longer stand (a red since potted, the
        white before it was struck) than where they stand now and did not stand before. A
        colour on a spot counts for neither (it may have been put back there in a cut), nor
        does the white in the D while play left it in hand (it may have been placed there);
        after a foul that may be called a miss, only a ball of a class fewer of which stand
        now (a ball potted since) counts for the table before: the others may have been put
        back where they stood."""
        spots = np.array(list(self.table.spots_mm.values()), float)
        put = (cls >= _FIRST_COLOUR) & (np.hypot(
            *(xy[:, None] - spots[None]).transpose(2, 0, 1)).min(1) < _REPLAY_MM)
        if not (now[0] == _WHITE).any():
            put |= (cls == _WHITE) & np.array([self.table.in_d(x, y) for x, y in xy], bool)
        cls, xy = cls[~put], xy[~put]
        standing = np.bincount(now[0], minlength=len(BALL_CLASSES))
        stays = _layout_matches(cls, xy, now)
        for before in self.before:
            was = _layout_matches(cls, xy, before)
            if self.replaceable:
                stood = np.bincount(before[0], minlength=len(BALL_CLASSES))
                was &= (cls >= 0) & (stood > standing)[np.maximum(cls, 0)]
            if np.count_nonzero(was & ~stays) > np.count_nonzero(stays & ~was):
                return True
        return False

    def in_order(self, events: list[dict], settled: float) -> list[dict]:
        """The events that are due, in time order. Some are known a little after they happen
        (a contact is dated from the paths on either side of it, a pot once the ball has stayed
        gone, a jump once the ball it went over has stayed put): each is held until nothing
        dated earlier can still come (``settled``, from the tracker and the shot logic), then
        let out."""
        if settled == np.inf and self.pending:
            # the source ended in the shot after a foul that may be called a miss: nothing more
            # will tell whether it replayed it
            events, self.pending = self.pending + events, None
        for e in events:
            self.held.append((e["t"], self.order, e))
            self.order += 1
        if not self.held:
            return []
        self.held.sort(key=lambda h: (h[0], h[1]))
        n = 0
        while n < len(self.held) and self.held[n][0] <= settled:
            n += 1
        due, self.held = self.held[:n], self.held[n:]
        return [e for *_, e in due]

    def _score(self, record: dict, frame: int, t: float) -> list[dict]:
        joined = []
        if self.join_start is not None:  # a shot ended before the table stood still
            joined = self._join(self.still if self.still is not None else self.last)
        result = self.referee.feed(record)
        # after a foul that may be called a miss, the balls may be put back as they stood
        self.replaceable = bool(result.get("miss") or result.get("miss_suggested"))
        out = [*joined, record_event(record, frame, t), _answer(result, "score", frame, t)]
        if result.get("frame_over"):
            out.append({"type": "frame_end", "frame": frame, "t": t,
                        "winner": result.get("winner"), "score": result.get("score")})
        return out


def _path_gaps(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """(P,) how far (mm) each of the points ``p`` (P, 2) lies from the path through the
    points ``q`` (Q >= 2, 2)."""
    a, d = q[:-1], np.diff(q, axis=0)  # the path's segments
    u = np.clip(np.einsum("pki,ki->pk", p[:, None] - a[None], d)
                / np.maximum(np.einsum("ki,ki->k", d, d), 1e-9), 0.0, 1.0)
    gap = np.hypot(*(p[:, None] - a[None] - u[..., None] * d[None]).transpose(2, 0, 1))
    return gap.min(1)


def _answer(result: dict, kind: str, frame: int, t: float, **fields) -> dict:
    """The event of kind ``kind`` at ``frame``, ``t`` that gives the referee's ``result``
    (its frame number as ``frame_number``)."""
    return {**{k: v for k, v in result.items() if k not in ("type", "frame")}, **fields,
            "type": kind, "frame_number": result.get("frame"), "frame": frame, "t": t}


def _ball_px(xy_mm: np.ndarray, camera, calibration: Calibration,
             table: SnookerTableSpec) -> np.ndarray:
    """(N, 2) table mm of ball centres -> (N, 2) raw px through ``camera`` (or, None, the
    homography of ``calibration``); NaN stays NaN."""
    xy_mm = np.asarray(xy_mm, float).reshape(-1, 2)
    out = np.full_like(xy_mm, np.nan)
    ok = np.isfinite(xy_mm).all(axis=1)
    if ok.any():
        if camera is not None:
            pts = np.c_[xy_mm[ok], np.full(int(ok.sum()), table.ball_radius_mm)]
            out[ok] = camera.project(pts)
        else:
            out[ok] = calibration.table_to_px(xy_mm[ok])
    return out


# the least share of a picture that does not show the table as calibrated that looks like the
# cloth for the table to be looked for in it at once (another camera's view: 0.38-0.78 of it;
# a crowd, a dark picture: 0), and the least time between two such looks
_ANOTHER_VIEW = 0.2
_ANOTHER_VIEW_S = 1.0
# the mean difference of two work images' every 24th pixel each way (at one brightness) from
# which one was cut to the other (``Pipeline._cut_to``): another camera's view 25-37 from the
# last; the sample clips' frames 1.4-2.7 at the 99th percentile, 10.9 at most (an arm coming
# in); a frame taken for a cut costs a check of the edges (1 ms)
_CUT_LEVEL = 8.0
# the most views of the table kept (each a check of its edges on a frame taken for no table)
_VIEWS = 4
# a ball stands still under this speed; a ball of a replay stands where one of the same class
# stood within this distance; a replay is taken to end after this long at most
_STILL_MM_S = 20.0
_REPLAY_MM = 20.0
_REPLAY_MAX_S = 20.0
_REPLAY_BACK_S = 1.0
# the table set up for a new frame: each ball within this of its place (mm), for this long (s)
_SET_UP_MM = 30.0
_SET_UP_S = 1.0
# a frame is joined from the table once it has stood still this long (s), or once the source
# has gone on this long whatever it shows (s)
_JOIN_S = 0.5
_JOIN_MAX_S = 3.0
_FIRST_COLOUR = BALL_CLASSES.index("yellow")
_WHITE = BALL_CLASSES.index("white")
_RED = BALL_CLASSES.index("red")


def _layout(state: TableState) -> tuple[np.ndarray, np.ndarray]:
    """The balls on the table in ``state``: (classes (M,), table mm (M, 2))."""
    on = state.on_table()
    return state.classes[on], state.xy_mm[on]


def _layout_matches(cls: np.ndarray, xy: np.ndarray, layout: tuple) -> np.ndarray:
    """(K,) bool: which of the balls of classes ``cls`` (K,) at table mm ``xy`` (K, 2) have a
    ball of the same class (any, for a ball of no class yet) within ``_REPLAY_MM`` of them in
    ``layout`` (classes (M,), table mm (M, 2))."""
    classes, at = layout
    if not len(cls) or not len(classes):
        return np.zeros(len(cls), bool)
    near = np.hypot(*(xy[:, None] - at[None]).transpose(2, 0, 1)) < _REPLAY_MM
    same = (cls[:, None] == classes[None]) | (cls[:, None] < 0)
    return (near & same).any(1)


# the detections of a frame that shows nothing of the table
_NOTHING = SimpleNamespace(xy_mm=np.zeros((0, 2)), cls=np.zeros(0, int), confidence=np.zeros(0))


def _classified(found, classify):
    """What detection ``found``, classified by the colour stage ``classify`` (None: found
    classified)."""
    return found if classify is None else classify(found)


def _same(a, b) -> bool:
    """Whether ``a`` is the very object ``b`` (or a tuple of the very objects of ``b``)."""
    if a is b:
        return True
    return (type(a) is tuple and type(b) is tuple and len(a) == len(b)
            and all(x is y for x, y in zip(a, b)))


def _worker_context():
    """How the worker process is started: from a fork server (a process started afresh, with
    no threads, that forks each worker), where the platform has one; a fork of a process whose
    other threads hold native resources (a decoder's, a scaler's) may hang in the child as it
    lets go of them. Elsewhere afresh."""
    methods = multiprocessing.get_all_start_methods()
    if "forkserver" in methods:
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(["tracker.pipeline"])
        return ctx
    return multiprocessing.get_context("spawn")


def start_worker_server() -> None:
    """Starts the fork server the worker processes come from, if the platform has one, so that
    its start (loading the stages' modules) overlaps the caller's own work (calibrating)."""
    if "forkserver" in multiprocessing.get_all_start_methods():
        _worker_context()
        from multiprocessing import forkserver

        forkserver.ensure_running()


def _follow_in_worker(follower: _Follower, inbox, outbox) -> None:
    """A worker process of ``Pipeline.run``: each frame's detections from ``inbox``, classified
    by the colour stage sent with them, if any, through ``follower``, the results to ``outbox``
    (a part sent as None is as the frame before's); at the end (None), the follower itself and
    the colour stage. An error is sent on instead. Ctrl-C is the pipeline's to handle: it stops
    the worker in good order. The worker dies with the pipeline's process
    (``_bound_to_parent``)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    # forked from the fork server: it holds what the server held
    _bound_to_parent(os.getppid(), (inbox.fileno(), outbox.fileno()))
    found = classify = None
    try:
        while (item := inbox.recv()) is not None:
            index, t, events, new_found, new_classify, view, blind = item
            found = found if new_found is None else new_found
            classify = classify if new_classify is None else new_classify
            det = None if blind else _classified(found, classify)
            outbox.send(("frame", follower.follow(index, t, events, det, view, blind)))
        outbox.send(("done", (follower, classify)))
    except BaseException as exc:  # handed to the pipeline
        try:
            outbox.send(("error", exc))
        except Exception:  # an error that cannot be pickled
            outbox.send(("error", RuntimeError(f"{type(exc).__name__}: {exc}")))
    finally:
        outbox.close()


# prctl's option that has a signal sent to a process when its parent dies (Linux)
_PR_SET_PDEATHSIG = 1


def _bound_to_parent(parent: int, keep: tuple[int, ...]) -> None:
    """Ties a forked worker's life to its parent process ``parent`` and lets go of every file
    the parent had open but the worker's own pipe ends ``keep``: the event log, the page's
    socket, the other ends of the worker's pipes (so that the parent's end, however it ends,
    is the end of the worker's input) and the caller's stdout and stderr (in their place,
    /dev/null). On Linux the kernel also kills the worker when the parent dies."""
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):
            pass  # the pipe's end of file stops the worker all the same
    if os.getppid() != parent:  # the parent died before the kernel was told
        os._exit(1)
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.close(null)
    # every descriptor from 3 up but those kept, in the runs between them
    low = 3
    for fd in sorted({*keep, 1 << 20}):
        if fd >= low:
            os.closerange(low, fd)
            low = fd + 1


def _send(outbox, message, inbox, worker) -> None:
    """``message`` to the worker process; if it has stopped, what it said before it went (the
    error it raised) is raised instead of the broken pipe."""
    try:
        outbox.send(message)
    except (BrokenPipeError, ConnectionResetError):
        while True:
            _received(inbox, worker)  # raises its error, or that it stopped


def _received(inbox, worker):
    """The next result from the worker process, raising what it raised."""
    try:
        kind, value = inbox.recv()
    except EOFError:
        raise RuntimeError(f"the tracking worker process stopped (exit code "
                           f"{worker.exitcode})") from None
    if kind == "error":
        raise value
    return value
