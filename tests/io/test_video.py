"""Reading ahead on a thread: order kept, errors handed over, an early stop ends the thread.
Writing behind on a thread: the same video as writing in line, errors handed over."""

import threading
import time

import numpy as np
import pytest

from tracker.io.video import VideoWriter, read_ahead, read_frames


def test_items_come_in_order():
    assert list(read_ahead(iter(range(100)), depth=3)) == list(range(100))


def test_an_error_while_producing_reaches_the_consumer_after_the_items_before_it():
    def items():
        yield 1
        yield 2
        raise ValueError("corrupt")

    got = []
    with pytest.raises(ValueError, match="corrupt"):
        for x in read_ahead(items()):
            got.append(x)
    assert got == [1, 2]


def test_stopping_early_closes_the_source_and_ends_the_thread():
    closed = threading.Event()

    def items():
        try:
            yield from range(10_000)
        finally:
            closed.set()

    before = set(threading.enumerate())
    gen = read_ahead(items(), depth=2)
    assert next(gen) == 0
    mine = [t for t in threading.enumerate() if t not in before and t.name == "read-ahead"]
    assert len(mine) == 1
    gen.close()
    assert closed.wait(2.0)
    deadline = time.monotonic() + 2.0
    while mine[0].is_alive():
        assert time.monotonic() < deadline, "the reading thread did not end"
        time.sleep(0.01)


def _frames(n: int) -> list[np.ndarray]:
    rng = np.random.default_rng(3)
    base = rng.integers(0, 255, (4, 4, 3), dtype=np.uint8).repeat(16, 0).repeat(16, 1)
    return [np.roll(base, 2 * k, axis=1) for k in range(n)]


def test_writing_behind_gives_the_video_written_in_line(tmp_path):
    frames = _frames(20)
    for name, background in (("inline.mp4", False), ("behind.mp4", True)):
        with VideoWriter(tmp_path / name, (64, 64), 25, crf=10, background=background) as w:
            for f in frames:
                w.write(f)
        assert w.frames == 20
    inline = list(read_frames(tmp_path / "inline.mp4"))
    behind = list(read_frames(tmp_path / "behind.mp4"))
    assert len(behind) == len(inline) == 20
    for a, b, f in zip(inline, behind, frames):
        assert np.array_equal(a, b)
        assert np.abs(b.astype(int) - f).mean() < 6


def test_an_error_while_writing_behind_reaches_the_writer(tmp_path, monkeypatch):
    w = VideoWriter(tmp_path / "x.mp4", (64, 64), 25, background=True)
    calls = []

    def encode(frame):
        calls.append(frame)
        if len(calls) == 3:
            raise RuntimeError("disk full")

    monkeypatch.setattr(w, "_encode", encode)
    with pytest.raises(RuntimeError, match="disk full"):
        for f in _frames(50):
            w.write(f)
        w.close()
    w.close()  # after the error: the thread ends, the file is closed
    assert not w._thread.is_alive()


@pytest.mark.parametrize("threads, count", [("FRAME", 0), ("SLICE", 0), ("AUTO", 1),
                                            ("FRAME", 2)])
def test_every_way_of_threading_the_decoder_gives_the_same_frames(tmp_path, threads, count):
    frames = [np.tile(f, (4, 8, 1)) for f in _frames(12)]  # 256x512: several slices a frame
    with VideoWriter(tmp_path / "v.mp4", (512, 256), 25, crf=10) as w:
        for f in frames:
            w.write(f)
    auto = list(read_frames(tmp_path / "v.mp4"))
    other = list(read_frames(tmp_path / "v.mp4", threads, count))
    assert len(auto) == len(other) == 12
    assert all(np.array_equal(a, b) for a, b in zip(auto, other))


def test_one_converter_for_every_frame_gives_what_each_frame_s_own_gives(tmp_path):
    import av

    frames = [np.tile(f, (4, 8, 1)) for f in _frames(12)]
    with VideoWriter(tmp_path / "v.mp4", (512, 256), 25, crf=10) as w:
        for f in frames:
            w.write(f)
    with av.open(str(tmp_path / "v.mp4")) as container:
        own = [f.to_ndarray(format="bgr24") for f in container.decode(video=0)]
    shared = list(read_frames(tmp_path / "v.mp4"))
    assert len(shared) == len(own) == 12
    assert all(np.array_equal(a, b) for a, b in zip(own, shared))
    # each frame its own array, not one buffer written over
    assert not np.shares_memory(shared[0], shared[1])
    assert not np.array_equal(shared[0], shared[6])


def test_the_producing_thread_bears_the_name_given():
    def items():
        yield threading.current_thread().name

    assert list(read_ahead(items(), name="decode")) == ["decode"]


class _RangeHandler:
    """Serves one file over HTTP with byte ranges, as a web server serves a video."""

    @staticmethod
    def server(path):
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        data = path.read_bytes()

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 (the http.server name)
                start, end = 0, len(data) - 1
                if (rng := self.headers.get("Range", "")).startswith("bytes="):
                    a, _, b = rng[6:].partition("-")
                    start, end = int(a or 0), int(b) if b else len(data) - 1
                    self.send_response(206)
                    self.send_header("Content-Range", f"bytes {start}-{end}/{len(data)}")
                else:
                    self.send_response(200)
                self.send_header("Accept-Ranges", "bytes")
                self.send_header("Content-Length", str(end - start + 1))
                self.end_headers()
                try:
                    self.wfile.write(data[start:end + 1])
                except OSError:
                    pass

            def log_message(self, *args):
                pass

        srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=srv.serve_forever, daemon=True).start()
        return srv


def test_a_video_file_served_over_http_ends_when_it_ends_every_frame_read(tmp_path):
    from pathlib import Path

    from tracker.pipeline import LiveSource

    clip = Path(__file__).resolve().parents[2] / "sample_videos" / "touching.mp4"
    srv = _RangeHandler.server(clip)
    src = LiveSource(f"http://127.0.0.1:{srv.server_address[1]}/touching.mp4",
                     reconnect_s=0.05)
    try:
        done = threading.Event()
        got = []

        def consume():
            for frame in src.frames():
                got.append(frame)
                time.sleep(0.001)  # slower than the reader: a live source would drop frames
            done.set()

        threading.Thread(target=consume, daemon=True).start()
        assert done.wait(60), "the stream was replayed instead of ended"
    finally:
        src.close()
        srv.shutdown()
    n = sum(1 for _ in read_frames(clip))
    assert [f.index for f in got] == list(range(n)) and src.dropped == 0
    assert got[-1].t == pytest.approx((n - 1) / 30.0)


def _write_then_die(path, frames):
    import os
    import signal

    writer = VideoWriter(path, (320, 240), 30, preset="veryfast", fragmented=True,
                         background=True)
    rng = np.random.default_rng(0)
    for _ in range(frames):
        writer.write(rng.integers(0, 255, (240, 320, 3), dtype=np.uint8))
    time.sleep(0.5)  # the encoder catches up, as it does in a run
    os.kill(os.getpid(), signal.SIGKILL)


def test_a_fragmented_video_killed_while_written_is_readable_to_its_last_second(tmp_path):
    import multiprocessing

    from tracker.io.video import count_frames

    path = tmp_path / "killed.mp4"
    proc = multiprocessing.get_context("fork").Process(target=_write_then_die,
                                                       args=(path, 150))
    proc.start()
    proc.join(60)
    assert proc.exitcode == -9
    n = count_frames(path)
    assert 150 - 2 * 30 <= n < 150  # up to its last whole fragment (a second)
    assert sum(1 for _ in read_frames(path)) == n


def test_a_source_is_known_by_its_bytes_not_its_name(tmp_path):
    import shutil
    from pathlib import Path

    from tracker.io.video import other_source, source_identity

    samples = Path(__file__).resolve().parents[2] / "sample_videos"
    a = source_identity(str(samples / "touching.mp4"))
    assert a["name"] == "touching.mp4" and a["frames"] == 244 and len(a["head_sha256"]) == 64
    copy = shutil.copy(samples / "touching.mp4", tmp_path / "renamed.mp4")
    assert other_source(a, source_identity(str(copy))) is None
    assert "size" in other_source(a, source_identity(str(samples / "miss.mp4")))
    assert other_source(a, source_identity("rtsp://camera/1")) is not None
    assert other_source(source_identity("0"), source_identity("0")) is None
