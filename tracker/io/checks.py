"""What a command is given, checked before any work starts: each check raises InputError with
one line naming the option, the value and what was expected."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from calibration.errors import InputError

# containers the overlay's H.264 stream is written in
VIDEO_SUFFIXES = (".mp4", ".m4v", ".mov", ".mkv")


def writable_path(path: str | os.PathLike, what: str, make_folders: bool = False) -> Path:
    """``path`` as a file this process can write: not a directory, in a folder that exists (or,
    with ``make_folders``, that can be made), not read-only, on a disk with room left."""
    p = Path(path)
    if p.is_dir():
        raise InputError(f"{what} {p} is a directory: expected a file name")
    folder = p.absolute().parent
    if not folder.exists():
        if not make_folders:
            raise InputError(f"{what} {p}: no folder {folder}")
        while not folder.exists():  # the folder the missing ones would be made in
            folder = folder.parent
    if not folder.is_dir():
        raise InputError(f"{what} {p}: {folder} is a file, not a folder")
    try:
        if p.exists():
            with open(p, "ab"):  # opened for writing, left as it is
                pass
        else:
            with tempfile.NamedTemporaryFile(dir=folder, prefix=".cueball-"):
                pass
    except OSError as exc:
        where = p if p.exists() else f"folder {folder}"
        raise InputError(f"{what} {p}: cannot write {where} ({exc.strerror})") from None
    if p.exists() and not p.is_file():
        return p  # a device or a pipe: no disk to measure
    stats = os.statvfs(folder)
    if stats.f_bavail == 0:
        raise InputError(f"{what} {p}: the disk holding {folder} is full")
    return p


def video_path(path: str | os.PathLike, what: str, make_folders: bool = False) -> Path:
    """``path`` as a video file to write: a known container's name, and writable."""
    p = Path(path)
    if p.suffix.lower() not in VIDEO_SUFFIXES:
        raise InputError(f"{what} {p}: expected a video file name ending in "
                         f"{', '.join(VIDEO_SUFFIXES)}")
    return writable_path(p, what, make_folders)


def port(number: int, what: str) -> int:
    """``number`` as a TCP port to listen on (0: any free one)."""
    if not 0 <= number <= 65535:
        raise InputError(f"{what} {number}: expected a port number from 0 to 65535")
    return number


def calibration_fits(cal, cal_path, source: str) -> None:
    """InputError unless ``cal`` (loaded from ``cal_path``) was made for the size of the video
    file ``source``."""
    from tracker.io.video import probe

    info = probe(source)
    w, h = info["width"], info["height"]
    if tuple(cal.image_size) != (w, h):
        cw, ch = cal.image_size
        raise InputError(f"calibration {cal_path} is for {cw}x{ch} images but {source} is "
                         f"{w}x{h}")


@contextmanager
def named(path: str | os.PathLike) -> Iterator[None]:
    """An OSError raised inside without a file name (a write to a full disk, a drive gone) is
    raised again naming ``path``, so that its one-line error says which output failed."""
    try:
        yield
    except OSError as exc:
        if exc.filename is not None or exc.errno is None:
            raise
        raise OSError(exc.errno, exc.strerror or str(exc), str(path)) from exc
