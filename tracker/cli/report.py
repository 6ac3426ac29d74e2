"""``cueball report EVENTS -o report.html``: the match report from an event log.

EVENTS is an events.jsonl, or a generated clip's NAME.truth.json (its events, with the balls'
true paths for the shot maps). ``--tracks tracks.csv`` draws the shot maps from tracked paths.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from calibration.errors import InputError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("events", metavar="EVENTS",
                        help="events.jsonl, or a clip's NAME.truth.json")
    parser.add_argument("-o", "--output", metavar="HTML",
                        help="the report to write (default: EVENTS with .html)")
    parser.add_argument("--tracks", metavar="CSV",
                        help="tracks.csv of the same run: the shot maps show the balls' paths")
    parser.add_argument("--truth", metavar="JSON",
                        help="a clip's NAME.truth.json: the shot maps show the true paths")
    parser.add_argument("--players", nargs=2, metavar=("NAME", "NAME"),
                        help="the players' names (default: from the log)")
    parser.add_argument("--title", help="the page title (default: 'A v B')")


def run(args: argparse.Namespace) -> int:
    from tracker.io.checks import writable_path
    from tracker.io.eventcheck import torn_last_line
    from tracker.io.eventlog import read_events, read_tracks
    from tracker.render.report import BallPaths, build_report

    src = Path(args.events)
    out = Path(args.output) if args.output else src.with_name(
        src.name.removesuffix(".truth.json").removesuffix(".jsonl") + ".html")
    players = args.players
    paths = None
    if src.name.endswith(".truth.json"):
        meta, paths = _truth(src)
        events = meta.get("events") or []
        players = players or meta.get("players")
    else:
        events = read_events(src)
        if (torn := torn_last_line(src)) is not None:
            print(f"cueball report: warning: {src}:{torn} is cut short (a run stopped while "
                  "writing it): the report ends before it", file=sys.stderr)
    if not events:
        raise InputError(f"no events in {src}")
    if not any(e.get("type") in ("score", "shot_start", "shot_end") for e in events):
        raise InputError(f"{src} holds no shots (no shot_start, shot_end or score events)")
    writable_path(out, "-o")
    if args.tracks:
        paths = BallPaths.from_tracks(read_tracks(args.tracks))
        if not paths.xy_mm:
            raise InputError(f"no tracks in {args.tracks}")
    elif args.truth:
        _, paths = _truth(Path(args.truth))
    page = build_report(events, players=players, paths=paths, title=args.title)
    try:
        out.write_text(page, encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot write {out}: {exc.strerror or exc}") from None
    if not getattr(args, "quiet", False):  # the command line's --quiet
        print(f"wrote {out} ({sum(1 for e in events if e.get('type') == 'score')} shots judged)")
    return 0


def _truth(path: Path):
    from tracker.render.report import BallPaths
    from tracker.sim.truth import read_truth

    try:
        meta, balls = read_truth(path)
    except FileNotFoundError as exc:
        raise InputError(f"no ground truth at {exc.filename or path}") from None
    except (ValueError, KeyError, OSError) as exc:
        raise InputError(f"{path}: not a readable ground truth ({exc})") from None
    if not isinstance(meta, dict):
        raise InputError(f"{path}: not a ground-truth JSON object")
    return meta, BallPaths.from_truth(balls)


__all__ = ["add_arguments", "run"]
