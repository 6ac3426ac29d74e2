"""The cloth model's look-up table: its layout, shared by the detector and its compiled kernels.

A BGR pixel is quantised to ``LUT_BITS`` bits a channel; the table gives each quantised colour a
not-cloth score (uint8), ``FG_LEVEL`` and above meaning "not cloth".
"""

from __future__ import annotations

import cv2
import numpy as np

LUT_BITS = 6  # bits a channel: 2**18 entries
LUT_SHIFT = 8 - LUT_BITS
FG_LEVEL = 64  # the not-cloth score at which a pixel is taken as not cloth


def lut_index(bgr: np.ndarray) -> np.ndarray:
    """(..., 3) uint8 BGR -> (...) int index into a ``ClothModel.lut``."""
    q = bgr >> LUT_SHIFT
    idx = q[..., 0].astype(np.int32)
    idx <<= LUT_BITS
    idx |= q[..., 1]
    idx <<= LUT_BITS
    idx |= q[..., 2]
    return idx


def score_table(lut: np.ndarray) -> np.ndarray:
    """A ``ClothModel.lut`` (2**18,) laid out for ``scores``: its entry for quantised (b, g, r)
    at b + 256 g + 65536 r, the quantised channels' places in a BGRA pixel read as one
    little-endian 32-bit number (entries between them are never read and left unset)."""
    n = 1 << LUT_BITS
    table = np.empty((n, 256, 256), np.uint8)
    table[:, :n, :n] = np.asarray(lut, np.uint8).reshape(n, n, n).transpose(2, 1, 0)
    return table.reshape(-1)[:(n - 1) * 0x010101 + 1]


def scores(table: np.ndarray, bgr: np.ndarray) -> np.ndarray:
    """(..., 3) uint8 BGR -> (...) uint8 not-cloth score, by the ``score_table`` ``table``:
    ``lut[lut_index(bgr)]`` with each pixel's index made in one pass over it."""
    shape = bgr.shape[:-1]
    image = bgr if bgr.ndim == 3 else bgr.reshape(-1, shape[-1], 3)
    # B, G, R, A bytes -> one number; each byte shifted down and the bits it got from the
    # next byte up cleared
    idx = cv2.cvtColor(image, cv2.COLOR_BGR2BGRA).view(np.uint32)[..., 0]
    idx >>= LUT_SHIFT
    idx &= ((1 << LUT_BITS) - 1) * 0x010101
    return np.take(table, idx).reshape(shape)
