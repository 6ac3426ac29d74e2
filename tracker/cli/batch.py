"""``cueball batch INPUTS... -o DIR``: track a season of videos, one video a task, then index it.

Each video is tracked by its own ``cueball track`` process (tracking, the shot events and the
referee need every frame in order, so a video is the unit of work), at most ``--jobs`` at once,
on this machine or, with ``--backend ray``, as Ray tasks. Its outputs go to ``DIR/<stem>/``:
events.jsonl, tracks.csv, report.html, overlay.mp4 (with ``--overlay``), track.log (the
process's messages) and done.json, written atomically last. A video with done.json is skipped
when the batch runs again; one with an event log and no done.json resumes from its log.
Then DIR/index.html and the season's tables are written (``tracker.render.season``).
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from calibration.errors import InputError
from tracker.render.season import DONE_NAME, EVENTS_NAME, REPORT_NAME

VIDEO_SUFFIXES = frozenset({".mp4", ".mov", ".mkv", ".avi", ".m4v", ".webm", ".mpg", ".mpeg",
                            ".ts", ".mts", ".wmv"})
TRACKS_NAME = "tracks.csv"
OVERLAY_NAME = "overlay.mp4"
LOG_NAME = "track.log"
RAY_MISSING = "the ray backend needs Ray: pip install 'cueball[ray]'"


def _cores() -> int:
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return os.cpu_count() or 1


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("inputs", nargs="+", metavar="INPUT",
                   help="a video file, a folder (its video files), a glob ('matches/*.mp4') "
                        "or a list file "
                        "(@list.txt or a .txt file: one video a line, optionally followed by "
                        "the two players, tab-separated)")
    p.add_argument("-o", "--output", required=True, metavar="DIR",
                   help="the season's folder: DIR/<video name>/ for each video, DIR/index.html "
                        "and the tables")
    p.add_argument("--jobs", type=int, default=_cores(), metavar="N",
                   help="videos tracked at once (default: the cores this process may use; on "
                        "a Ray cluster at RAY_ADDRESS its CPUs decide)")
    p.add_argument("--backend", choices=("local", "ray"), default="local",
                   help="local processes (default) or Ray tasks (the cluster from RAY_ADDRESS, "
                        "else a local one)")
    p.add_argument("--calibration", metavar="FILE",
                   help="one calibration JSON for every video (default: each found from its "
                        "first second)")
    p.add_argument("--players", nargs=2, metavar=("NAME", "NAME"),
                   help="the two players of every video, the breaker first (a list file's "
                        "names take precedence)")
    p.add_argument("--reds", type=int, choices=(15, 10, 6), default=15,
                   help="reds at the start of each frame (default 15)")
    p.add_argument("--best-of", type=int, default=1, metavar="N",
                   help="frames in each match (default 1)")
    p.add_argument("--overlay", action=argparse.BooleanOptionalAction, default=False,
                   help="write each video's overlay.mp4 (default: no)")
    p.add_argument("--tracks", action=argparse.BooleanOptionalAction, default=True,
                   help="write each video's tracks.csv, which the report's shot maps draw "
                        "(default: yes)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")


# ---------------------------------------------------------------------------------------------
# The videos


@dataclass(frozen=True)
class Task:
    """One video to track: everything a worker needs, as plain values (Ray pickles it)."""

    video: str
    out_dir: str
    players: tuple[str, str] | None
    reds: int
    best_of: int
    calibration: str | None
    overlay: bool
    tracks: bool
    python_path: str  # the folder holding this ``tracker`` package, for the child processes

    @property
    def name(self) -> str:
        return Path(self.out_dir).name


def _is_video(path: Path) -> bool:
    return path.is_file() and path.suffix.lower() in VIDEO_SUFFIXES


def _list_file(path: Path) -> list[tuple[Path, tuple[str, str] | None]]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot read the list {path}: {exc.strerror or exc}") from None
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        fields = [f.strip() for f in line.split("\t")]
        if len(fields) not in (1, 3):
            raise InputError(f"{path}:{n}: a line is a video, or a video and two players "
                             f"separated by tabs")
        video = Path(fields[0]).expanduser()
        if not video.is_absolute():
            video = path.parent / video
        if not video.is_file():
            raise InputError(f"{path}:{n}: {fields[0]}: no such file")
        out.append((video, (fields[1], fields[2]) if len(fields) == 3 else None))
    return out


def expand_inputs(inputs: Iterable[str], exclude: Path | None = None
                  ) -> list[tuple[Path, tuple[str, str] | None]]:
    """The videos named by INPUTS, each with the players its list line gave (or None), in the
    order given (a folder's and a glob's by name), each video once; a folder's or a glob's
    videos under the folder ``exclude`` left out."""
    def kept(videos: list[Path]) -> list[Path]:
        if exclude is None:
            return videos
        return [v for v in videos if not v.resolve().is_relative_to(exclude)]

    found: list[tuple[Path, tuple[str, str] | None]] = []
    for arg in inputs:
        if arg.startswith("@"):
            found += _list_file(Path(arg[1:]))
            continue
        path = Path(arg)
        if path.is_dir():
            videos = kept(sorted((p for p in path.iterdir() if _is_video(p)),
                                 key=lambda p: p.name))
            if not videos:
                raise InputError(f"{path}: no video files in this folder")
            found += [(v, None) for v in videos]
        elif path.is_file() and path.suffix.lower() == ".txt":
            found += _list_file(path)
        elif path.is_file():
            found.append((path, None))
        elif glob.has_magic(arg):
            matches = sorted(Path(m) for m in glob.glob(arg, recursive=True))
            videos = kept([m for m in matches if _is_video(m)])
            if not videos:
                raise InputError(f"{arg}: matches no video file")
            found += [(v, None) for v in videos]
        else:
            raise InputError(f"{arg}: no such file or folder")
    seen: dict[Path, int] = {}
    unique = []
    for video, players in found:
        key = video.resolve()
        if key not in seen:
            seen[key] = len(unique)
            unique.append((video, players))
    by_stem: dict[str, Path] = {}
    for video, _ in unique:
        other = by_stem.setdefault(video.stem, video)
        if other != video:
            raise InputError(f"{other} and {video} would share the output folder "
                             f"{video.stem}/: rename one")
    return unique


def make_tasks(args: argparse.Namespace, out: Path) -> list[Task]:
    root = str(Path(__file__).resolve().parent.parent)
    cal = str(Path(args.calibration).resolve()) if args.calibration else None
    if cal and not Path(cal).is_file():
        raise InputError(f"{args.calibration}: no such calibration file")
    default = tuple(args.players) if args.players else None
    # the batch's own outputs (overlays) are no inputs, should a glob reach into DIR
    inside = out.resolve()
    return [Task(str(video.resolve()), str((out / video.stem).resolve()),
                 players or default, args.reds, args.best_of, cal, args.overlay, args.tracks,
                 root)
            for video, players in expand_inputs(args.inputs, exclude=inside)]


# ---------------------------------------------------------------------------------------------
# One video


@dataclass
class Result:
    """What became of one video: ``status`` "done", "failed" or "stopped"; ``message`` the
    score when done, else the last line the track process said."""

    name: str
    status: str
    message: str
    seconds: float = 0.0
    resumed: bool = False


def _set_pdeathsig() -> None:
    """In the child between fork and exec: Ctrl-C (SIGINT, which the track command answers by
    stopping in good order, its worker too) when the parent dies (Linux only); SIGINT not
    ignored, as it is in a batch started in the background."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    if _PRCTL is not None:
        _PRCTL(1, signal.SIGINT)  # PR_SET_PDEATHSIG


def _load_prctl():
    # looked up once here, so the child after fork only makes the call
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes

        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None


_PRCTL = _load_prctl()


def track_command(task: Task, resume: bool) -> list[str]:
    d = Path(task.out_dir)
    cmd = [sys.executable, "-m", "tracker.cli", "track", task.video, "--quiet",
           "--events", str(d / EVENTS_NAME), "--reds", str(task.reds),
           "--best-of", str(task.best_of)]
    if task.players:
        cmd += ["--players", *task.players]
    if task.calibration:
        cmd += ["--calibration", task.calibration]
    if task.tracks:
        cmd += ["--tracks", str(d / TRACKS_NAME)]
    if task.overlay:
        cmd += ["--overlay", str(d / OVERLAY_NAME)]
    if resume:
        cmd.append("--resume")
    return cmd


def _last_line(path: Path) -> str:
    try:
        lines = [ln.strip() for ln in path.read_text(encoding="utf-8", errors="replace")
                 .splitlines() if ln.strip()]
    except OSError:
        return ""
    return lines[-1] if lines else ""


def _one_line(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    return lines[-1] if lines else type(exc).__name__


def _write_report(task: Task) -> dict[str, Any]:
    """report.html from the event log (and tracks.csv); the facts done.json keeps."""
    from tracker.io.eventlog import read_events, read_tracks
    from tracker.render.report import BallPaths, build_report, match_from_events

    d = Path(task.out_dir)
    events = read_events(d / EVENTS_NAME)
    paths = None
    if task.tracks and (d / TRACKS_NAME).exists():
        paths = BallPaths.from_tracks(read_tracks(d / TRACKS_NAME))
    m = match_from_events(events, task.players)
    page = build_report(events, players=m.players, paths=paths,
                        title=f"{task.name}: {m.players[0]} v {m.players[1]}")
    tmp = d / (REPORT_NAME + ".tmp")
    tmp.write_text(page, encoding="utf-8")
    os.replace(tmp, d / REPORT_NAME)
    last = (m.last_score or {}).get("score") or [0, 0]
    return {"video": task.video, "players": list(m.players), "score": list(last),
            "frames": list(m.frames_won), "shots": len(m.shots)}


class Stopper:
    """The child processes running, so that a stopped batch can end them; once ``stop`` is
    called, no new one starts."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._procs: set[subprocess.Popen] = set()
        self.stopped = False

    def start(self, cmd: list[str], **kw) -> subprocess.Popen | None:
        with self._lock:
            if self.stopped:
                return None
            proc = subprocess.Popen(cmd, **kw)
            self._procs.add(proc)
            return proc

    def done(self, proc: subprocess.Popen) -> None:
        with self._lock:
            self._procs.discard(proc)

    def stop(self, grace_s: float = 10.0) -> None:
        """SIGINT to every child (each closes its logs, stops its worker and exits); after
        ``grace_s``, SIGKILL to what is left of each child's process group."""
        with self._lock:
            self.stopped = True
            procs = list(self._procs)
        for p in procs:
            if p.poll() is None:
                p.send_signal(signal.SIGINT)
        end = time.monotonic() + grace_s
        for p in procs:
            try:
                p.wait(max(0.0, end - time.monotonic()))
            except subprocess.TimeoutExpired:
                pass
            kill_group(p)


def kill_group(proc: subprocess.Popen) -> None:
    """SIGKILL to the process group a child leads (itself and what it started), then reaps it."""
    try:
        if hasattr(os, "killpg"):
            os.killpg(proc.pid, signal.SIGKILL)
        else:
            proc.kill()
    except (ProcessLookupError, PermissionError):
        pass
    proc.wait()


def run_task(task: Task, stopper: Stopper | None = None) -> Result:
    """Tracks one video in a ``cueball track`` process of its own, then writes its report and,
    last, done.json. A video already done is not tracked again."""
    t0 = time.monotonic()
    d = Path(task.out_dir)
    done = d / DONE_NAME
    if done.exists():
        return Result(task.name, "skipped", "done before")
    d.mkdir(parents=True, exist_ok=True)
    resume = (d / EVENTS_NAME).exists() and (d / EVENTS_NAME).stat().st_size > 0
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [task.python_path] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    log_path = d / LOG_NAME
    stopper = stopper or Stopper()
    with open(log_path, "wb") as log:
        # a process group of its own: what it leaves behind can be ended with it
        proc = stopper.start(track_command(task, resume), stdin=subprocess.DEVNULL,
                             stdout=log, stderr=subprocess.STDOUT, env=env,
                             start_new_session=True,
                             preexec_fn=_set_pdeathsig if os.name == "posix" else None)
        if proc is None:
            return Result(task.name, "stopped", "not started", resumed=resume)
        try:
            code = proc.wait()
            if code != 0:
                kill_group(proc)
        finally:
            stopper.done(proc)
    seconds = time.monotonic() - t0
    if code != 0:
        status = "stopped" if stopper.stopped or code in (130, -signal.SIGINT) else "failed"
        why = _last_line(log_path) or f"cueball track exited with code {code}"
        return Result(task.name, status, why, seconds, resume)
    try:
        facts = _write_report(task)
    except Exception as exc:  # one video's report does not stop the batch
        return Result(task.name, "failed", f"report: {_one_line(exc)}", seconds, resume)
    tmp = d / (DONE_NAME + ".tmp")
    tmp.write_text(json.dumps(facts, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    os.replace(tmp, done)
    return Result(task.name, "done", f"{facts['score'][0]}-{facts['score'][1]}",
                  time.monotonic() - t0, resume)


# ---------------------------------------------------------------------------------------------
# The backends: each yields a Result as each video finishes


def run_local(tasks: Sequence[Task], jobs: int, stopper: Stopper):
    from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait

    # threads only wait on the track processes; the work is in the processes
    pool = ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="batch")
    try:
        futures = {pool.submit(run_task, t, stopper): t for t in tasks}
        pending = set(futures)
        while pending:
            finished, pending = wait(pending, timeout=0.5, return_when=FIRST_COMPLETED)
            for f in finished:
                try:
                    yield f.result()
                except Exception as exc:  # e.g. an output folder that cannot be made
                    yield Result(futures[f].name, "failed", _one_line(exc))
    finally:
        stopper.stop()
        pool.shutdown(wait=True, cancel_futures=True)


def run_ray(tasks: Sequence[Task], jobs: int, stopper: Stopper):
    try:
        import ray
    except ImportError:
        raise InputError(RAY_MISSING) from None
    started_here = not ray.is_initialized()
    if started_here:
        address = os.environ.get("RAY_ADDRESS") or None
        ray.init(address=address, num_cpus=None if address else jobs,
                 include_dashboard=False, log_to_driver=False)
    remote = ray.remote(num_cpus=1, max_retries=0)(run_task)
    refs = {remote.remote(t): t for t in tasks}
    try:
        pending = list(refs)
        while pending:
            ready, pending = ray.wait(pending, num_returns=1, timeout=0.5)
            for ref in ready:
                try:
                    yield ray.get(ref)
                except Exception as exc:  # the task's error, raised again by ray.get
                    yield Result(refs[ref].name, "failed", _one_line(exc))
    finally:
        for ref in refs:
            ray.cancel(ref, force=True)
        if started_here:
            ray.shutdown()


# ---------------------------------------------------------------------------------------------
# The command


class _Terminated(Exception):
    """SIGTERM reached the batch."""


def _on_sigterm(signum, frame):
    raise _Terminated()


def run(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from tracker.render.season import write_season

    if args.jobs < 1:
        raise InputError(f"--jobs must be 1 or more, got {args.jobs}")
    if args.best_of < 1:
        raise InputError(f"--best-of must be 1 or more frames, got {args.best_of}")
    if args.backend == "ray":
        try:
            import ray  # noqa: F401
        except ImportError:
            raise InputError(RAY_MISSING) from None
    out = Path(args.output)
    if out.exists() and not out.is_dir():
        raise InputError(f"{out}: not a folder")
    tasks = make_tasks(args, out)
    out.mkdir(parents=True, exist_ok=True)
    todo = [t for t in tasks if not (Path(t.out_dir) / DONE_NAME).exists()]
    skipped = len(tasks) - len(todo)
    if skipped:
        print(f"{skipped} of {len(tasks)} videos done before: skipped", file=sys.stderr)
    stopper = Stopper()
    backend = run_ray if args.backend == "ray" else run_local
    results: list[Result] = []
    bar = None if args.quiet or not todo else tqdm(total=len(todo), unit="video", desc="batch")
    say = tqdm.write if bar is not None else print
    old_term = signal.signal(signal.SIGTERM, _on_sigterm)
    interrupted = False
    try:
        for r in backend(todo, min(args.jobs, len(todo)), stopper) if todo else ():
            results.append(r)
            if r.status == "done":
                say(f"{r.name}: done, score {r.message}"
                    + (" (resumed)" if r.resumed else "") + f", {r.seconds:.1f} s")
            elif r.status == "failed":
                say(f"{r.name}: failed: {r.message}")
            if bar is not None:
                bar.update(1)
    except (KeyboardInterrupt, _Terminated):
        interrupted = True
        stopper.stop()
    finally:
        signal.signal(signal.SIGTERM, old_term)
        if bar is not None:
            bar.close()
    write_season(out)
    done = sum(r.status == "done" for r in results)
    failed = [r.name for r in results if r.status == "failed"]
    print(f"wrote {out / 'index.html'}: {done + skipped} of {len(tasks)} videos done"
          + (f", {len(failed)} failed ({', '.join(failed)})" if failed else "")
          + (", stopped" if interrupted else ""), file=sys.stderr)
    if interrupted:
        return 130
    return 1 if failed or done + skipped < len(tasks) else 0


__all__ = ["Result", "Task", "add_arguments", "expand_inputs", "run", "run_task"]
