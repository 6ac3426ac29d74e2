"""Milliseconds per frame of the overlay at 1080p (and 720p, 4K), part by part.

    python scripts/bench_overlay.py [--frames 300]

A synthetic match: 22 balls, each with a 60-point trail (all moving at once), a pot flash and
a contact ring, and a scoreboard that changes every 30 frames (so the cost of re-rendering it is
included). Prints a table; median and 95th percentile over the frames.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from tracker.render.overlay import (
    Marker,
    Scoreboard,
    draw_markers,
    draw_overlay,
    draw_scoreboard,
    draw_trails,
)

SIZES = {"720p": (720, 1280), "1080p": (1080, 1920), "4k": (2160, 3840)}
IDS = ["white", *[f"red_{i:02d}" for i in range(1, 16)], "yellow", "green", "brown", "blue",
       "pink", "black"]


def scene(k: int, H: int, W: int, moving: int = 22, n_trail: int = 60):
    """``moving`` balls on their own circles at 4..14 px a frame (scaled to 1080p), the rest at
    rest (a ball at rest draws no trail). All 22 moving is the worst case, after a break-off."""
    rng = np.random.default_rng(7)
    s = H / 1080
    centre = rng.uniform([0.25 * W, 0.25 * H], [0.75 * W, 0.75 * H], size=(len(IDS), 2))
    radius = rng.uniform(120, 300, size=len(IDS)) * s
    omega = rng.uniform(4, 14, size=len(IDS)) * s / radius  # rad a frame
    omega[moving:] = 0.0
    steps = np.arange(k - n_trail + 1, k + 1)[:, None]
    trails = {tid: centre[i] + radius[i] * np.hstack([np.cos(omega[i] * steps),
                                                       np.sin(omega[i] * steps)])
              for i, tid in enumerate(IDS)}
    board = Scoreboard(players=("Ronnie O'Sullivan", "Judd Trump"),
                       score=(k // 30, 12), frames=(3, 2), striker=0, break_=k // 30,
                       ball_on="red" if (k // 30) % 2 else "colour", remaining=100,
                       notices=(("FOUL 4  IN OFF", "foul"),) if (k // 60) % 2 else ())
    markers = [Marker("pot", (0.05 * W, 0.07 * H), (k % 60) / 60, "red"),
               Marker("contact", (0.5 * W, 0.5 * H), (k % 90) / 60, "red")]
    return board, trails, markers


def bench(H: int, W: int, frames: int) -> dict[str, tuple[float, float]]:
    frame0 = np.random.default_rng(0).integers(0, 255, size=(H, W, 3), dtype=np.uint8)
    parts = {
        "scoreboard": (22, lambda f, b, t, m: draw_scoreboard(f, b)),
        "markers (2)": (22, lambda f, b, t, m: draw_markers(f, m)),
        "trails, 3 moving": (3, lambda f, b, t, m: draw_trails(f, t)),
        "trails, 22 moving": (22, lambda f, b, t, m: draw_trails(f, t)),
        "all, 3 moving": (3, draw_overlay),
        "all, 22 moving": (22, draw_overlay),
    }
    out = {}
    scenes = {n: [scene(k, H, W, n) for k in range(frames)] for n in (3, 22)}
    for name, (moving, fn) in parts.items():
        frame = frame0.copy()
        times = []
        for b, t, m in scenes[moving]:
            t0 = time.perf_counter()
            fn(frame, b, t, m)
            times.append((time.perf_counter() - t0) * 1e3)
        times = np.array(times)
        out[name] = (float(np.median(times)), float(np.percentile(times, 95)))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=300)
    ap.add_argument("--sizes", nargs="+", default=list(SIZES), choices=list(SIZES))
    args = ap.parse_args()
    rows = []
    for size in args.sizes:
        H, W = SIZES[size]
        for part, (med, p95) in bench(H, W, args.frames).items():
            rows.append((size, part, med, p95))
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"{args.frames} frames a row; {os.cpu_count()} CPUs, load average {load:.1f}")
    print(f"{'size':<7} {'part':<22} {'median ms':>10} {'p95 ms':>8}")
    for size, part, med, p95 in rows:
        print(f"{size:<7} {part:<22} {med:>10.2f} {p95:>8.2f}")


if __name__ == "__main__":
    main()
