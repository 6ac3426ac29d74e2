"""Randomised pool worlds: what the seed draws, and their play cut short."""

from __future__ import annotations

from tracker.sim.pool import POOL_CLOTHS
from tracker.sim.pool_world import PoolWorld
from tracker.sim.world import cut


def test_pool_worlds_vary_tables_games_cloths_and_ball_sets_by_seed():
    worlds = [PoolWorld.draw(seed) for seed in range(60)]
    assert PoolWorld.draw(7) == worlds[7]
    assert {w.table for w in worlds} == {"9ft", "8ft", "7ft"}
    assert {"8ball", "9ball", "10ball"} <= {w.game for w in worlds}
    assert {w.kind for w in worlds} == {"break", "pot", "rail"}
    assert {w.world.cloth for w in worlds} <= set(POOL_CLOTHS)
    assert len({w.world.cloth for w in worlds}) == len(POOL_CLOTHS)
    # a pink or a purple 4: the red channel of its face sets them apart
    fours = {w.palette.colours[3][2] > 200 for w in worlds}
    assert fours == {True, False}
    assert {w.palette.cue_dots for w in worlds} == {True, False}


def test_a_cut_pool_play_keeps_its_orientations_in_step():
    tl = PoolWorld.draw(0).play(10.0)
    short = cut(tl, tl.duration / 2)
    assert short.orient is not None and len(short.orient) == len(short.pos)
