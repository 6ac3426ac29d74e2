"""A still image read from a file, checked before and after decoding: its size from its header
(so an enormous picture is refused before memory is taken for it), then its colour."""

from __future__ import annotations

import contextlib
import os
import struct
import sys
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np

from calibration.errors import InputError

# largest picture taken (pixels): an 8K frame has 33 million
MAX_IMAGE_PX = 80_000_000
# how far (0-255) a channel may stray from another where a picture counts as greyscale: a
# greyscale image saved in colour by a lossy coder keeps a little noise between them
GREY_SPREAD = 6


def header_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) px from the header of a PNG, JPEG, GIF, BMP or WebP file's bytes; None
    for another format or a header too short to say."""
    try:
        if data.startswith(b"\x89PNG\r\n\x1a\n") and data[12:16] == b"IHDR":
            return struct.unpack(">II", data[16:24])
        if data[:6] in (b"GIF87a", b"GIF89a"):
            return struct.unpack("<HH", data[6:10])
        if data.startswith(b"BM"):
            w, h = struct.unpack("<ii", data[18:26])
            return abs(w), abs(h)
        if data.startswith(b"RIFF") and data[8:12] == b"WEBP":
            kind = data[12:16]
            if kind == b"VP8X":
                w = int.from_bytes(data[24:27], "little") + 1
                return w, int.from_bytes(data[27:30], "little") + 1
            if kind == b"VP8L":
                bits = int.from_bytes(data[21:25], "little")
                return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
            if kind == b"VP8 ":
                w, h = struct.unpack("<HH", data[26:30])
                return w & 0x3FFF, h & 0x3FFF
        if data.startswith(b"\xff\xd8"):
            return _jpeg_size(data)
    except struct.error:
        return None
    return None


def _jpeg_size(data: bytes) -> tuple[int, int] | None:
    """The size in a JPEG's start-of-frame segment, found by walking the segments."""
    i = 2
    while i + 9 < len(data):
        if data[i] != 0xFF:
            return None
        marker = data[i + 1]
        if marker == 0xFF:  # fill byte
            i += 1
            continue
        length = struct.unpack(">H", data[i + 2:i + 4])[0]
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            h, w = struct.unpack(">HH", data[i + 5:i + 9])
            return w, h
        i += 2 + length
    return None


@contextlib.contextmanager
def quiet_stderr() -> Iterator[None]:
    """Runs the block with file descriptor 2 sent to the null device: a decoder's own warnings
    (libpng's, libjpeg's, OpenCV's) do not come before the command's one line."""
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 2)
        os.close(null)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def read_image(path) -> np.ndarray:
    """An image file as BGR uint8 (H, W, 3). InputError in one line for a missing file, a
    directory, a picture of more than MAX_IMAGE_PX pixels (told from its header, before
    decoding) or a file that does not decode."""
    path = Path(path)
    if not path.exists():
        raise InputError(f"no such file: {path}")
    if path.is_dir():
        raise InputError(f"{path} is a directory: expected an image file")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror}") from None
    size = header_size(data)
    if size is not None and size[0] * size[1] > MAX_IMAGE_PX:
        raise InputError(f"{path} is {size[0]}x{size[1]} pixels: expected at most "
                         f"{MAX_IMAGE_PX // 1_000_000} million")
    try:
        with quiet_stderr():
            image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR) if data else None
    except cv2.error:  # OpenCV's own limit (OPENCV_IO_MAX_IMAGE_PIXELS), in a format read here
        raise InputError(f"cannot read {path} as an image: larger than OpenCV takes "
                         "(OPENCV_IO_MAX_IMAGE_PIXELS)") from None
    if image is None:
        raise InputError(f"cannot read {path} as an image")
    return image


def read_colour_image(path) -> np.ndarray:
    """``read_image``, and InputError for a greyscale picture: the balls are told apart by
    their colours (the table's outline is found in grey too)."""
    image = read_image(path)
    if is_greyscale(image):
        raise InputError(f"{path} is a greyscale image: the balls are told apart by their "
                         "colours, so a colour image is needed")
    return image


def is_greyscale(image: np.ndarray) -> bool:
    """True when the BGR image's three channels agree everywhere (within GREY_SPREAD)."""
    step = max(1, int(np.sqrt(image.shape[0] * image.shape[1] / 250_000)))
    sample = image[::step, ::step].astype(np.int16)
    spread = np.maximum(np.abs(sample[..., 0] - sample[..., 1]),
                        np.abs(sample[..., 1] - sample[..., 2]))
    return int(spread.max()) <= GREY_SPREAD
