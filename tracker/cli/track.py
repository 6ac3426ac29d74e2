"""``cueball track``: follow every ball through a video, camera or stream and keep the score."""

from __future__ import annotations

import argparse
import collections
import contextlib
import itertools
import os
import signal
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from calibration.calibrate import Calibration
from calibration.errors import InputError
from tracker.cli import READYING, said_if_slow
from tracker.io import checks
from tracker.vision.stages import make_detect


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("source", metavar="SOURCE",
                   help="a video file, a camera index (0, 1, ...) or a stream URL (rtsp://...)")
    p.add_argument("--calibration", metavar="FILE",
                   help="calibration JSON from 'cueball calibrate' (default: found from the "
                        "first second of the source)")
    p.add_argument("--events", metavar="FILE",
                   help="event log, one JSON object a line, written as events happen "
                        "(default: SOURCE_NAME.events.jsonl)")
    p.add_argument("--tracks", metavar="FILE", help="every ball in every frame, as CSV")
    p.add_argument("--overlay", metavar="OUT.mp4",
                   help="the video with the scoreboard, ball trails and shot markers drawn on")
    p.add_argument("--players", nargs=2, metavar=("NAME", "NAME"),
                   default=("Player 1", "Player 2"), help="the two players, the breaker first")
    p.add_argument("--reds", type=int, choices=(15, 10, 6), default=15,
                   help="reds at the start of the frame (default 15)")
    p.add_argument("--best-of", type=int, default=1, metavar="N",
                   help="frames in the match (default 1); after each frame the next starts "
                        "when the table is set up for it")
    # a source that starts in the middle of a frame: the table is read from its first still
    # picture; these say what a picture cannot
    p.add_argument("--score", nargs=2, type=int, metavar=("A", "B"),
                   help="the frame's score when the source starts (default 0 0)")
    p.add_argument("--frames", nargs=2, type=int, metavar=("A", "B"),
                   help="frames each player has won before this one (default 0 0)")
    p.add_argument("--break", dest="break_", type=int, metavar="N",
                   help="the break in progress when the source starts (default 0)")
    p.add_argument("--to-play", type=int, choices=(1, 2), metavar="1|2",
                   help="the player at the table when the source starts (default 1)")
    p.add_argument("--resume", action="store_true",
                   help="continue the match in the --events log after the last frame it holds")
    p.add_argument("--page", metavar="PORT", type=int, nargs="?", const=8765, default=None,
                   help="serve the live scoreboard page (transparent, for a browser source in "
                        "streaming software) on this port while tracking (default 8765)")
    p.add_argument("--page-host", metavar="HOST", default="127.0.0.1",
                   help="interface the page is served on (default 127.0.0.1: this machine "
                        "only; 0.0.0.0 shares it on the network)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")


def _joined(args) -> dict:
    """The Pipeline's fields for a frame joined mid-way, from the options, each checked:
    InputError, in one line, for a value that cannot be."""
    out: dict = {}
    for name, opt in (("score", "--score"), ("frames", "--frames")):
        pair = getattr(args, name, None)
        if pair is None:
            continue
        if min(pair) < 0:
            raise InputError(f"{opt} takes two numbers of 0 or more, got {pair[0]} {pair[1]}")
        out[name] = (pair[0], pair[1])
    if getattr(args, "to_play", None) is not None:
        if args.to_play not in (1, 2):
            raise InputError(f"--to-play is 1 or 2, got {args.to_play}")
        out["to_play"] = args.to_play - 1
    brk = getattr(args, "break_", None)
    if brk is not None:
        who = out.get("to_play", 0)
        have = out.get("score", (0, 0))[who]
        if brk < 0:
            raise InputError(f"--break takes a number of 0 or more, got {brk}")
        if brk > have:
            raise InputError(f"--break {brk} is more than player {who + 1}'s score {have} "
                             "(give --score, and --to-play)")
        out["break_"] = brk
    frames = out.get("frames")
    if frames is not None and max(frames) > args.best_of // 2:
        raise InputError(f"--frames {frames[0]} {frames[1]}: the best of {args.best_of} is "
                         "already won (give --best-of)")
    return out


def _is_live(source: str) -> bool:
    return source.isdigit() or "://" in source


def _calibrate(args, source: str) -> Calibration:
    if args.calibration:
        path = Path(args.calibration)
        if not path.exists():
            raise InputError(f"{path}: no such calibration file")
        try:
            return Calibration.load(path)
        except (ValueError, KeyError) as exc:
            raise InputError(f"{path}: not a calibration file ({exc})") from None
    from calibration.find import calibrate_image, calibrate_video, uncertainty_warning

    if _is_live(source):
        from tracker.pipeline import LiveSource

        live = LiveSource(source)
        try:
            frame = next(live.frames())
        finally:
            live.close()
        cal = calibrate_image(frame.image, source=source)
    else:
        cal = calibrate_video(source)
    if (why := uncertainty_warning(cal)) is not None and not args.quiet:
        print(f"cueball track: warning: {why}", file=sys.stderr)
    return cal


def _cut_to_last_shot(path: Path, events: list[dict]) -> list[dict]:
    """A shot in progress when a run stopped is tracked again from its start: the log is cut
    back to the end of the last finished shot (replaced atomically) and returned."""
    from tracker.io.eventlog import EventLog

    ends = [i for i, e in enumerate(events) if e["type"] in ("score", "frame_end")]
    kept = events[: ends[-1] + 1] if ends else []
    tmp = path.with_name(path.name + ".resume")
    with EventLog(tmp, mode="w", sync="each") as log:
        for e in kept:
            log.write(e)
    os.replace(tmp, path)
    return kept


def _overlay_writer(path: Path, size: tuple[int, int], fps: float, skip_to: int):
    """The overlay's writer, and how many frames it holds already: for a run resumed after
    frame ``skip_to``, the frames of the overlay before that a killed run left readable,
    copied into a new file that then takes its place (so that a kill meanwhile leaves the old
    one whole)."""
    from tracker.io.video import VideoWriter, read_frames

    def writer(to: Path) -> VideoWriter:
        return VideoWriter(to, size, fps, preset="veryfast", background=True, fragmented=True)

    if skip_to < 0 or not path.exists():
        return writer(path), 0
    tmp = path.with_name(f"{path.stem}.resuming{path.suffix}")
    out, copied = writer(tmp), 0
    try:
        for image in read_frames(path):
            if copied > skip_to:
                break
            out.write(image)
            copied += 1
    except InputError:
        pass  # unreadable from there on (a kill before this form was written)
    os.replace(tmp, path)
    return out, copied




class _Stop:
    """Ctrl-C (SIGINT) and SIGTERM while tracking: ``signum`` is the signal that came (None
    before one). While ``deferred`` the signal is only noted, and the frame loop stops at the
    end of the frame in hand (a signal raised inside a compiled kernel would come out as a
    ``SystemError``); otherwise it is raised at once as ``KeyboardInterrupt``."""

    def __init__(self):
        self.signum: int | None = None
        self.deferred = False

    def __call__(self, signum, _frame) -> None:
        first = self.signum is None
        self.signum = self.signum or signum
        if first and not self.deferred:
            raise KeyboardInterrupt


@contextlib.contextmanager
def _stop_signals() -> Iterator[_Stop]:
    """A ``_Stop`` handling SIGINT and SIGTERM for the block (from the main thread only)."""
    stop = _Stop()
    if threading.current_thread() is not threading.main_thread():
        yield stop
        return
    before = {s: signal.signal(s, stop) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield stop
    finally:
        for s, handler in before.items():
            signal.signal(s, handler)


def run(args: argparse.Namespace) -> int:
    """``cueball track``; a run stopped by Ctrl-C or SIGTERM keeps what it wrote and ends with
    128 + the signal's number (``--resume`` continues it)."""
    with _stop_signals() as stop:
        try:
            return _run(args, stop)
        except BaseException:
            if stop.signum is None:
                raise
            # whatever the signal broke off (a compiled kernel's SystemError among them)
    if stop.signum == signal.SIGINT:
        raise KeyboardInterrupt  # said, with its exit status, by the command line
    print(f"cueball track: stopped by {signal.Signals(stop.signum).name}", file=sys.stderr)
    return 128 + stop.signum


def _run(args: argparse.Namespace, stop: _Stop) -> int:
    from tqdm import tqdm

    from tracker.io.eventlog import (
        EventLog,
        TracksWriter,
        cut_tracks,
        read_events,
        resume_state,
    )
    from tracker.io.video import other_source, source_identity
    from tracker.pipeline import LiveSource, Pipeline, file_frames, start_worker_server
    from tracker.render.overlay import (
        Scoreboard,
        ScoreKeeper,
        draw_overlay,
        markers_from_events,
    )
    from tracker.vision.detect import not_snooker, ready_kernels

    source = args.source
    live = _is_live(source)
    if args.best_of < 1:
        raise InputError(f"--best-of must be 1 or more frames, got {args.best_of}")
    joined = _joined(args)
    if not live and not Path(source).exists():
        raise InputError(f"{source}: no such file")
    events_path = Path(args.events or f"{Path(source).stem if not live else 'live'}.events.jsonl")
    checks.writable_path(events_path, "--events", make_folders=True)
    if args.tracks:
        checks.writable_path(args.tracks, "--tracks", make_folders=True)
    if args.overlay:
        checks.video_path(args.overlay, "--overlay", make_folders=True)
    if args.page is not None:
        checks.port(args.page, "--page")
    for out in (events_path, args.tracks, args.overlay):
        if out:
            Path(out).parent.mkdir(parents=True, exist_ok=True)
    identity = source_identity(source)
    logged = None
    if args.resume and events_path.exists():
        logged = read_events(events_path)
        first = logged[0].get("source") if logged else None
        if isinstance(first, dict) and (why := other_source(first, identity)):
            raise InputError(f"{events_path}: the log of another source ({why}); give it its "
                             f"own source or another --events")
    start_worker_server()  # it loads the stages' modules while the table is found
    cal = _calibrate(args, source)
    if args.calibration and not live:
        checks.calibration_fits(cal, args.calibration, source)
    with said_if_slow(READYING, quiet=args.quiet):
        ready_kernels()
    pipe = Pipeline(cal, make_detect(cal), players=tuple(args.players), reds=args.reds,
                    best_of=args.best_of, rebuild=make_detect, **joined)
    players = tuple(args.players)
    board = Scoreboard(players=players, best_of=args.best_of,
                       score=joined.get("score", (0, 0)), frames=joined.get("frames", (0, 0)),
                       striker=joined.get("to_play", 0), break_=joined.get("break_", 0))
    # the page first: a port in use ends the run before any output is touched
    page = None
    if args.page is not None:
        from tracker.render.live import LiveServer

        try:
            page = LiveServer(args.page_host, args.page, players=players,
                              best_of=args.best_of, board=board).start()
        except OSError as exc:
            raise InputError(f"cannot serve the live page on {args.page_host}:{args.page} "
                             f"({exc.strerror or exc})") from None
    skip_to = -1
    if logged is not None:
        kept = _cut_to_last_shot(events_path, logged)
        if any(e["type"] == "score" for e in kept):
            resumed = resume_state(kept)
            pipe.referee = resumed.referee()
            pipe.shots.resume_after(resumed.last_shot)
            skip_to = resumed.last_frame
            players = resumed.players or players  # the match's own names
            board = Scoreboard.from_score_event(resumed.score, players, args.best_of)
            if page is not None:  # the page shows the match as the log left it, at once
                for e in kept:
                    page.publish(e)
    if page is not None:
        print(f"live scoreboard page: {page.url}", file=sys.stderr)
    if live:
        src = LiveSource(source)
        frames, fps, total = src.frames(), src.fps, src.total
    else:
        src = None
        frames, fps, total = file_frames(source)
    log = EventLog(events_path, mode="a" if args.resume else "w")
    tracks = None
    if args.tracks:
        # a resumed run's tracks go on after the last frame the log holds
        if skip_to >= 0 and Path(args.tracks).exists():
            cut_tracks(args.tracks, skip_to)
        tracks = TracksWriter(args.tracks, mode="a" if skip_to >= 0 else "w")
    writer, drawn = None, 0
    if args.overlay:
        writer, drawn = _overlay_writer(Path(args.overlay), cal.image_size, fps, skip_to)
    bar = None if args.quiet else tqdm(total=total or None, unit="frame", desc="tracking")
    recent: list[dict] = []
    trails: dict[str, list] = {}
    warned = False
    keeper = ScoreKeeper(board, players)

    def told(e: dict) -> Scoreboard:
        """``e`` written to the log and the live page; the board it leaves."""
        log.write(e)
        doubts = e.get("doubts") if e["type"] == "frame_start" else None
        for doubt in doubts or ():
            tqdm.write(f"cueball track: joined the frame in doubt: {doubt}", file=sys.stderr)
        return shown(e)

    def shown(e: dict) -> Scoreboard:
        """``e`` on the live page and the board: a pot is shown as soon as the tracker is sure
        of it, before the log's order lets it out (``ScoreKeeper`` counts it once)."""
        if page is not None:
            page.publish(e)
        keeper.see(e)
        return keeper.board

    stop.deferred = True  # from here a signal stops the run between two frames
    try:
        if skip_to < 0:
            first = pipe.start_events()
            first[0] = {**first[0], "source": identity}
            for e in first:
                board = told(e)
        # the frames the resumed log holds are passed over; those of them the overlay lacks
        # are drawn with the board alone (their trails are not known). The last few of them,
        # the balls at rest after the last shot, are tracked again, their results not written:
        # the tracker has its balls by the first frame after them, as it had in the run before
        warm: collections.deque = collections.deque(maxlen=pipe.tracker_config.confirm_hits - 1)
        for frame in frames:
            if frame.index > skip_to or stop.signum is not None:
                frames = itertools.chain(warm, [frame], frames)
                break
            if skip_to >= 0:
                warm.append(frame)
            if writer is not None and frame.index >= drawn:
                image = frame.image.copy()
                draw_overlay(image, board, {}, [])
                writer.write(image)
            if bar is not None:
                bar.update(1)
        if stop.signum is not None:
            raise KeyboardInterrupt

        # a live source is detected frame by frame, so that no frame waits in between
        for res in pipe.run(frames, ahead=not live):
            frame = res.frame
            if frame.index <= skip_to:  # a frame tracked again for the tracker's sake alone
                if stop.signum is not None:
                    break
                continue
            if not warned and (why := not_snooker(pipe.detect.detector)):
                warned = True
                tqdm.write(f"cueball track: warning: {why}", file=sys.stderr)
            for e in res.state.events:
                if e["type"] == "pot":
                    board = shown(e)
            for e in res.events:
                if e["frame"] > skip_to:  # none of the frames tracked again: logged before
                    board = told(e)
            if tracks is not None:
                st = res.state
                tracks.write_frame(st.frame, st.t, [str(i) for i in st.track_ids],
                                   st.class_names, st.xy_mm, res.xy_px, [str(s) for s in st.state])
            if writer is not None:
                recent = [e for e in recent if frame.t - e["t"] < 2.0] + res.events
                unseen = res.blind or res.replay
                if unseen:  # no table in play in the picture: the scoreboard alone, trails anew
                    trails.clear()
                else:
                    for tid, xy in zip(res.state.track_ids, res.xy_px):
                        trail = trails.setdefault(str(tid), [])
                        trail.append(xy)
                        del trail[:-60]
                image = frame.image.copy()
                draw_overlay(image, board, {k: np.array(v) for k, v in trails.items()},
                             [] if unseen else markers_from_events(recent, frame.t))
                writer.write(image)
            if bar is not None:
                bar.update(1)
                if live and src is not None:
                    bar.set_postfix(dropped=src.dropped)
            if stop.signum is not None:
                break
        if stop.signum is not None:
            raise KeyboardInterrupt  # the outputs closed below keep every frame done
        for e in pipe.finish():
            board = told(e)
    finally:
        if bar is not None:
            bar.close()
        log.close()
        if tracks is not None:
            tracks.close()
        if writer is not None:
            writer.close()
        if src is not None:
            src.close()
        if page is not None:
            page.stop()
    score = board.score
    print(f"wrote {events_path}" + (f", {args.tracks}" if args.tracks else "")
          + (f", {args.overlay}" if args.overlay else "") + f"; score {score[0]}-{score[1]}")
    return 0
