"""Simulator speed: wall time and simulated time of typical shots, printed as a table.

    python scripts/bench_physics.py
"""

from __future__ import annotations

import time

from tracker.sim.model import BallState, Strike
from tracker.sim.physics import simulate
from tracker.sim.script import layout, standard_layout

SHOTS = {
    "break-off, 8 m/s": (lambda: _break(), Strike(84.7, 8000.0, top=0.1, side=-0.4)),
    "stun shot, 2 m/s": (lambda: layout((889, 1200), [[600, 2400], [1300, 3000]]),
                                 Strike(100.0, 2000.0)),
    "jump shot, 40 deg": (lambda: layout((889, 1300), [[889, 2300]]),
                              Strike(90.0, 4200.0, top=-0.3, elevation_deg=40.0)),
    "white alone, 3 m/s": (lambda: layout((889, 300), [], {}), Strike(80.0, 3000.0)),
}


def _break():
    b = standard_layout()
    b.pos[0] = (1045.0, 715.0, 26.25)
    b.state[0] = BallState.ON_TABLE
    return b


def main() -> None:
    print(f"{'shot':<22} {'balls':>5} {'sim s':>7} {'wall s':>7} {'x real time':>11} {'events':>7}")
    for name, (make, strike) in SHOTS.items():
        balls = make()
        t0 = time.perf_counter()
        m = simulate(balls, strike)
        wall = time.perf_counter() - t0
        print(f"{name:<22} {len(balls):>5} {m.duration:>7.2f} {wall:>7.2f} "
              f"{m.duration / wall:>11.1f} {len(m.events):>7}")


if __name__ == "__main__":
    main()
