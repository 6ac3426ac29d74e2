"""Randomised pool worlds: a pool table, its balls, a room and a camera drawn from a seed, for
validation clips of pool that nothing was tuned on.

``PoolWorld.draw(seed)`` takes the room, the camera and the table's make from
``tracker.sim.world.World`` (drawn on the pool table of the seed's size, with a pool cloth)
and adds what pool varies: the table's size, the game, the make of balls (``BallPalette.draw``)
and the play (a break of the game's rack, a pot, a ball rolled into a rail);
``make_pool_world_clip`` films it and writes the truth and the world beside the clip.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import numpy as np

from calibration.specs import POOL_TABLES, PoolTableSpec
from tracker.sim.clip import ClipSpec, render_clip
from tracker.sim.model import Strike
from tracker.sim.pool import POOL_CLOTHS, BallPalette, pool_layout, pool_rack
from tracker.sim.pool_scenarios import PoolScript
from tracker.sim.scenarios import pot_any
from tracker.sim.script import Timeline
from tracker.sim.world import World, beside_cushion, nudge_into_cushion, played, world_path

POOL_KINDS = ("break", "pot", "rail")
# How often each table size and game is drawn: 9 ft and 8-ball the most, as in clubs and bars.
SIZES = (("9ft", 0.45), ("8ft", 0.3), ("7ft", 0.25))
GAMES = (("8ball", 0.55), ("9ball", 0.3), ("10ball", 0.1), ("14.1", 0.05))


@dataclass(frozen=True)
class PoolWorld:
    """One pool table, room and camera: ``world`` (the room, camera and the table's make, see
    ``World``; its ``cloth`` one of ``POOL_CLOTHS``), ``table`` (``POOL_TABLES``), ``game``,
    ``palette`` (the balls), ``kind`` (``POOL_KINDS``) and ``play_seed``."""

    seed: int
    world: World
    table: str
    game: str
    palette: BallPalette
    kind: str
    play_seed: int

    @classmethod
    def draw(cls, seed: int, resolution: str | None = None) -> PoolWorld:
        rng = np.random.default_rng([int(seed), 4747])

        def pick(options):
            names, weights = zip(*options)
            return str(rng.choice(names, p=np.asarray(weights) / sum(weights)))

        size = pick(SIZES)
        table = POOL_TABLES[size]
        base = World.draw(seed, resolution, table=table)
        cloth = str(rng.choice(list(POOL_CLOTHS)))
        shade = tuple(round(float(np.clip(c * rng.uniform(0.88, 1.12), 0, 255)), 1)
                      for c in POOL_CLOTHS[cloth])
        world = replace(base, cloth=cloth, cloth_bgr=shade,
                        cushion_bgr=tuple(round(c * rng.uniform(0.7, 0.95), 1) for c in shade))
        return cls(seed=int(seed), world=world, table=size, game=pick(GAMES),
                   palette=BallPalette.draw(rng), kind=str(rng.choice(POOL_KINDS)),
                   play_seed=int(rng.integers(0, 2**31 - 1)))

    @property
    def table_spec(self) -> PoolTableSpec:
        return POOL_TABLES[self.table]

    def to_dict(self) -> dict:
        return asdict(self)

    def clip_spec(self) -> ClipSpec:
        return replace(self.world.clip_spec(self.table_spec), palette=self.palette)

    def play(self, max_s: float = 5.0) -> Timeline:
        """The clip's play (``kind``), cut at ``max_s`` seconds."""
        rng = np.random.default_rng(self.play_seed)
        return played(lambda attempt: _PLAYS[self.kind](self, rng, self.play_seed + attempt),
                      max_s, f"pool world {self.seed}: no {self.kind} play found")


def _spread(rng: np.random.Generator, n: int, table: PoolTableSpec, keep_off: list,
            margin: float = 70.0) -> list[tuple[float, float]]:
    """n points on the bed at least two diameters from each other and from ``keep_off``."""
    out: list = []
    d = 2 * table.ball_diameter_mm
    while len(out) < n:
        p = rng.uniform([margin, margin], [table.width_mm - margin, table.length_mm - margin])
        if all(np.hypot(*(p - np.asarray(q))) > d for q in [*out, *keep_off]):
            out.append((float(p[0]), float(p[1])))
    return out


def _break(w: PoolWorld, rng: np.random.Generator, seed: int) -> PoolScript:
    """The game's rack broken from the kitchen at 6-12 m/s, the head ball struck full or a
    little to a side."""
    table = w.table_spec
    s = PoolScript(pool_rack(table, w.game, rng), table, w.game, seed)
    s.rack()
    s.wait(0.3)
    cue = s.balls.pos[0, :2]
    head = np.asarray(table.foot_spot_mm) + np.array([rng.uniform(-0.3, 0.3)
                                                      * table.ball_diameter_mm, 0.0])
    d = head - cue
    s.break_shot(Strike(math.degrees(math.atan2(d[1], d[0])), rng.uniform(6000, 12000),
                        top=rng.uniform(-0.2, 0.2)), address_s=0.4, settle_s=0.3)
    return s


def _pot(w: PoolWorld, rng: np.random.Generator, seed: int) -> PoolScript:
    """A few object balls spread on the table; one potted."""
    table = w.table_spec
    cue = _spread(rng, 1, table, [])
    numbers = rng.choice(np.arange(1, 16), size=int(rng.integers(2, 10)), replace=False)
    spots = _spread(rng, len(numbers), table, cue)
    balls = {"cue": cue[0], **{str(n): xy for n, xy in zip(numbers, spots)}}
    s = PoolScript(pool_layout(table, balls, rng), table, w.game, seed)
    s.wait(0.3)
    _, _, strike = pot_any(s, [b for b in s.balls.ids if b != "cue"])
    s.shoot(strike, address_s=0.4, settle_s=0.3)
    return s


def _rail(w: PoolWorld, rng: np.random.Generator, seed: int) -> PoolScript:
    """An object ball near a rail nudged into it by the cue ball, slowly."""
    table = w.table_spec
    ball, out, cue = beside_cushion(rng, table)
    target = str(int(rng.integers(1, 16)))
    others = [n for n in range(1, 16) if str(n) != target]
    extra = rng.choice(others, size=int(rng.integers(0, 6)), replace=False)
    spots = _spread(rng, len(extra), table, [ball, cue])
    balls = {"cue": cue, target: ball, **{str(n): xy for n, xy in zip(extra, spots)}}
    s = PoolScript(pool_layout(table, balls, rng), table, w.game, seed)
    s.wait(0.3)
    nudge_into_cushion(s, rng, target, out)
    return s


_PLAYS = {"break": _break, "pot": _pot, "rail": _rail}


def make_pool_world_clip(seed: int, out_path: str | Path, resolution: str | None = None,
                         max_s: float = 5.0, progress=None) -> dict:
    """The clip of pool world ``seed`` to ``out_path``, with the truth (``render_clip``'s,
    naming the game and the table) and the world (``NAME.world.json``) beside it. Returns the
    truth's meta."""
    world = PoolWorld.draw(seed, resolution)
    timeline = world.play(max_s)
    out_path = Path(out_path)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    meta = {"scenario": f"pool_world_{world.kind}",
            "description": f"pool world {seed}: {world.game} {world.kind} on a {world.table} "
                           "table", "players": ["Player 1", "Player 2"], "prelude": [],
            "game": world.game, "table": world.table, "world": world.to_dict()}
    meta, _ = render_clip(timeline, world.clip_spec(), out_path, table=world.table_spec,
                          seed=seed, progress=progress, meta=meta)
    world_path(out_path).write_text(json.dumps(world.to_dict(), indent=1) + "\n")
    return meta


__all__ = ["POOL_KINDS", "PoolWorld", "make_pool_world_clip"]
