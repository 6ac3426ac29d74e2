"""Renderer speed per camera and resolution, printed as a table.

    python scripts/bench_render.py            # 720p and 1080p
    python scripts/bench_render.py --4k       # and 4K (slow to build)
"""

from __future__ import annotations

import sys
import time

import numpy as np

from tracker.sim.model import Strike
from tracker.sim.render import Renderer
from tracker.sim.scenarios import broadcast_camera, overhead_camera
from tracker.sim.script import _player_at_table, standard_layout


def _ms(f, repeats: int) -> float:
    times = []
    for k in range(repeats):
        t0 = time.perf_counter()
        f(k)
        times.append(time.perf_counter() - t0)
    return 1e3 * float(np.median(times))


def main(argv: list[str]) -> None:
    sizes = [(1280, 720), (1920, 1080)] + ([(3840, 2160)] if "--4k" in argv else [])
    balls = standard_layout()
    balls.pos[0] = (1045.0, 715.0, 26.25)
    vis = np.ones(len(balls), bool)
    player = _player_at_table(balls.pos[0], Strike(85.0, 3000.0), 1.0, 26.25)(0.5)
    blur = balls.pos[None] + np.linspace(-0.5, 0.5, 7)[:, None, None] * np.array([0, 40.0, 0])
    print(f"{'camera':<10} {'size':>10} {'build s':>8} {'still ms':>9} {'moved ms':>9} "
          f"{'player ms':>10} {'blur7 ms':>9}")
    for w, h in sizes:
        for name, cam in (("overhead", overhead_camera((w, h))),
                          ("broadcast", broadcast_camera((w, h)))):
            t0 = time.perf_counter()
            r = Renderer(cam)
            build = time.perf_counter() - t0
            still = _ms(lambda k, r=r: r.render(balls.classes, balls.pos, vis, frame_index=k), 5)
            moved = _ms(lambda k, r=r: r.render(balls.classes, balls.pos + [0.01 * (k + 1), 0, 0],
                                           vis, frame_index=k), 5)
            occl = _ms(lambda k, r=r: r.render(balls.classes, balls.pos, vis, occluders=player,
                                          frame_index=k), 3)
            blurred = _ms(lambda k, r=r: r.render(balls.classes, blur + [0.01 * (k + 1), 0, 0], vis,
                                             frame_index=k), 3)
            print(f"{name:<10} {f'{w}x{h}':>10} {build:>8.2f} {still:>9.1f} {moved:>9.1f} "
                  f"{occl:>10.1f} {blurred:>9.1f}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
