"""Video in and out through PyAV (FFmpeg): frames are BGR uint8 arrays (H, W, 3)."""

from __future__ import annotations

import hashlib
import os
import queue
import threading
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path

import av
import numpy as np
from av.video.reformatter import VideoReformatter

from calibration.errors import InputError
from tracker.io.checks import named


class VideoWriter:
    """Writes BGR frames to an H.264 MP4 file (yuv420p, so every player can show it).

    ``crf`` trades size for quality (lower is better; 18 is visually lossless), ``preset`` the
    encoder's speed for size; ``kbps``, when given, holds the bitrate instead of the quality.
    With ``background`` frames are encoded on a thread of their own (up to ``depth`` waiting),
    beside the work that makes the next one; an error there is raised by the next ``write`` or
    by ``close``. Use as a context manager; frames must all have the size given at
    construction. ``fragmented`` writes a fragmented MP4, which a kill leaves readable up to
    its last second or so (``count_frames``).
    """

    def __init__(self, path: str | os.PathLike, size: tuple[int, int], fps: float,
                 crf: int = 23, preset: str = "medium", background: bool = False,
                 depth: int = 4, kbps: int | None = None, fragmented: bool = False):
        w, h = size
        if w % 2 or h % 2:
            raise ValueError(f"H.264 yuv420p needs an even frame size, got {w}x{h}")
        self.path = Path(path)
        self.size = (w, h)
        # fragmented: the file is written as a run of self-contained pieces of about a second,
        # each readable once written, so that a killed writer leaves a playable file
        fragmented = fragmented and self.path.suffix.lower() in (".mp4", ".m4v", ".mov")
        options = {"movflags": "frag_keyframe+empty_moov+default_base_moof",
                   "frag_duration": "1000000", "flush_packets": "1"} if fragmented else {}
        self._container = av.open(str(self.path), mode="w", options=options)
        rate = Fraction(fps).limit_denominator(1001)
        self._stream = self._container.add_stream("libx264", rate=rate)
        self._stream.width, self._stream.height = w, h
        self._stream.pix_fmt = "yuv420p"
        if kbps is None:
            self._stream.options = {"crf": str(crf), "preset": preset}
        else:  # a constant bitrate, as a camera's encoder writes
            self._stream.bit_rate = kbps * 1000
            self._stream.options = {"preset": preset}
        if fragmented:  # the file and its header there at once, readable (empty) from now
            self._container.start_encoding()
        self.frames = 0
        self._queue: queue.Queue | None = None
        self._error: BaseException | None = None
        if background:
            self._queue = queue.Queue(maxsize=depth)
            self._thread = threading.Thread(target=self._drain, name="video-writer", daemon=True)
            self._thread.start()

    def write(self, frame_bgr: np.ndarray) -> None:
        h, w = frame_bgr.shape[:2]
        if (w, h) != self.size or frame_bgr.dtype != np.uint8:
            raise ValueError(f"frame must be uint8 {self.size[0]}x{self.size[1]}, got "
                             f"{frame_bgr.dtype} {w}x{h}")
        with named(self.path):
            if self._queue is None:
                self._encode(frame_bgr)
            else:
                self._raise()
                self._queue.put(frame_bgr)
        self.frames += 1

    def _encode(self, frame_bgr: np.ndarray | None) -> None:
        """One frame into the file, or the encoder's last frames for None."""
        frame = None if frame_bgr is None else av.VideoFrame.from_ndarray(
            np.ascontiguousarray(frame_bgr), format="bgr24")
        for packet in self._stream.encode(frame):
            self._container.mux(packet)

    def _drain(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            if self._error is None:
                try:
                    self._encode(item)
                except BaseException as exc:  # handed to the writer's user
                    self._error = exc

    def _raise(self) -> None:
        if self._error is not None:
            exc, self._error = self._error, None
            raise exc

    def close(self) -> None:
        with named(self.path):
            try:
                if self._queue is not None:
                    self._queue.put(None)
                    self._thread.join()
                    self._raise()
                self._encode(None)
            finally:
                self._container.close()

    def __enter__(self) -> VideoWriter:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def probe(path: str | os.PathLike) -> dict:
    """Size, frame rate and frame count of a video file; InputError if it cannot be read."""
    with _open(path) as container:
        stream = container.streams.video[0]
        fps = float(stream.average_rate or stream.base_rate or 30)
        return {"width": stream.width, "height": stream.height, "fps": fps,
                "frames": int(stream.frames or 0)}


# how much of a video file's beginning its identity hashes (``source_identity``)
IDENTITY_BYTES = 1 << 20


def source_identity(source: str) -> dict:
    """What a source is, for an event log to tell which source it belongs to: for a video
    file its ``name``, ``size`` (bytes), ``frames``, ``duration_s`` and ``head_sha256`` (the
    SHA-256 of its first MiB: cheap, and it differs between two clips of one length); for a
    camera or a stream its ``name`` alone."""
    p = Path(source)
    if source.isdigit() or "://" in source or not p.is_file():
        return {"name": source}
    info = probe(p)
    with open(p, "rb") as fh:
        head = hashlib.sha256(fh.read(IDENTITY_BYTES)).hexdigest()
    return {"name": p.name, "size": p.stat().st_size, "frames": info["frames"],
            "duration_s": round(info["frames"] / info["fps"], 3) if info["fps"] else 0.0,
            "head_sha256": head}


def other_source(logged: dict, now: dict) -> str | None:
    """How the source identified by ``now`` differs from the one ``logged`` (both from
    ``source_identity``), or None when they are one. A file is the same file under another
    name or folder; a camera or stream is known by its name alone."""
    if ("size" in logged) != ("size" in now):
        return f"{logged.get('name')!r} is {'a file' if 'size' in logged else 'live'}"
    keys = ("size", "frames", "head_sha256") if "size" in now else ("name",)
    for key in keys:
        if logged.get(key) != now.get(key):
            return f"{key} {logged.get(key)!r}, not {now.get(key)!r}"
    return None


def count_frames(path: str | os.PathLike) -> int:
    """How many frames of a video file can be read: its frames decoded up to the first that
    cannot be (the end of one cut short by a kill), 0 for a file that cannot be read at all
    (an MP4 cut short before its index was written)."""
    try:
        container = _open(path)
    except InputError:
        return 0
    n = 0
    with container:
        stream = container.streams.video[0]
        stream.thread_type = "AUTO"
        try:
            for _ in container.decode(stream):
                n += 1
        except av.error.FFmpegError:
            pass
    return n


def read_frames(path: str | os.PathLike, threads: str = "AUTO",
                count: int = 0) -> Iterator[np.ndarray]:
    """Yields every frame of a video file as BGR uint8 (H, W, 3). ``threads`` is how the
    decoder shares its work between threads: "AUTO" (FFmpeg's choice: whole frames in turn,
    for H.264), "FRAME" or "SLICE" (the slices of one frame at once: faster where a stream
    cuts each frame into several, as the sample clips' two, slower where it does not);
    ``count`` how many threads (0: FFmpeg's choice, one more than the cores).

    One converter to BGR serves every frame, on the decoding thread alone: a frame's own
    (``frame.to_ndarray(format=...)``) is made for that frame, its tables and threads set up
    and torn down each time (decode-only took about a third more CPU a frame with it)."""
    with _open(path) as container:
        stream = container.streams.video[0]
        stream.thread_type = threads
        if count:
            stream.thread_count = count
        to_bgr = VideoReformatter()
        try:
            for frame in container.decode(stream):
                yield to_bgr.reformat(frame, format="bgr24", threads=1).to_ndarray()
        except av.error.FFmpegError as exc:
            raise InputError(f"{path}: video is corrupt part-way through ({exc})") from None


def read_ahead(items: Iterator, depth: int = 8, name: str = "read-ahead") -> Iterator:
    """The items of ``items`` produced on a thread of their own (called ``name``), up to
    ``depth`` ahead of the consumer (decoding overlaps the work done on each frame). An
    exception raised while producing is raised to the consumer; closing the generator stops
    the thread."""
    q: queue.Queue = queue.Queue(maxsize=depth)
    stop = threading.Event()
    done = object()

    def offer(entry) -> bool:
        """Put ``entry`` on the queue unless the consumer has gone; whether it went."""
        while not stop.is_set():
            try:
                q.put(entry, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def produce() -> None:
        try:
            for item in items:
                if not offer((item, None)):
                    break
            else:
                offer((done, None))
        except BaseException as exc:  # handed to the consumer
            offer((done, exc))
        finally:
            close = getattr(items, "close", None)
            if close is not None:
                close()

    thread = threading.Thread(target=produce, name=name, daemon=True)
    thread.start()
    try:
        while True:
            item, exc = q.get()
            if item is done:
                if exc is not None:
                    raise exc
                return
            yield item
    finally:
        stop.set()
        thread.join(timeout=1.0)


def _open(path: str | os.PathLike):
    p = Path(path)
    if not p.exists():
        raise InputError(f"{p}: no such file")
    try:
        container = av.open(str(p))
    except (av.error.FFmpegError, OSError):
        raise InputError(f"cannot open {p} as a video") from None
    if not container.streams.video:
        container.close()
        raise InputError(f"{p}: has no video stream")
    return container
