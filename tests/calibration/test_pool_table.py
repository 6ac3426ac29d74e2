"""A pool table is found as a snooker table is: rendered pool tables of every size, cloth and
camera against their true camera, the table's size read from its balls, pool told from snooker
both ways, the calibration record naming its table, and the command saying what it found."""

import json

import cv2
import numpy as np
import pytest

from calibration.calibrate import Calibration, plane_error_mm
from calibration.errors import InputError
from calibration.pool import find_pool_table, find_table, size_from_ratio
from calibration.pool_synthetic import (
    pool_plane_error_mm,
    pool_scene_balls,
    pool_scene_cameras,
    pool_start_balls,
    render_pool_table,
)
from calibration.specs import POOL_7FT, POOL_8FT, POOL_9FT, POOL_TABLES, SNOOKER
from calibration.synthetic import render_table, scene_balls, scene_cameras
from tracker.cli.calibrate import main

# Table-plane error limits (RMS, max) in mm on the flat renderer, over the playing surface and
# up to the table's turn end for end (nothing on the bed tells the head from the foot).
LIMITS = {"overhead": (1.0, 1.5), "tilted": (1.0, 1.5), "broadcast": (3.0, 5.0)}


def _scene(size, view, cloth, rail="wood"):
    table = POOL_TABLES[size]
    camera = pool_scene_cameras(table)[view]
    image = render_pool_table(camera, table, pool_scene_balls(table), cloth=cloth, rail=rail)
    return camera, image


@pytest.mark.parametrize("size,view,cloth,rail", [
    ("9ft", "overhead", "blue", "black"),
    ("9ft", "tilted", "green", "wood"),
    ("9ft", "broadcast", "grey", "black"),
    ("8ft", "broadcast", "red", "wood"),
    ("7ft", "overhead", "tan", "black"),
])
def test_rendered_pool_table_found_within_limits(size, view, cloth, rail):
    camera, image = _scene(size, view, cloth, rail)
    found = find_pool_table(image, size)
    rms, worst = pool_plane_error_mm(found.calibration, camera)
    assert rms <= LIMITS[view][0], f"{rms:.2f} mm RMS"
    assert worst <= LIMITS[view][1], f"{worst:.2f} mm max"
    assert found.calibration.table is POOL_TABLES[size]
    assert found.sights_share >= 0.8


def test_rail_of_the_cloths_hue_is_not_taken_for_the_cushions():
    # tan cloth on a wooden rail: the cloth's outline is the rail's
    camera, image = _scene("9ft", "tilted", "tan", "wood")
    found = find_pool_table(image, "9ft")
    rms, worst = pool_plane_error_mm(found.calibration, camera)
    assert rms <= LIMITS["tilted"][0] and worst <= LIMITS["tilted"][1]


@pytest.mark.parametrize("size", ["9ft", "8ft", "7ft"])
def test_table_size_read_from_the_balls(size):
    camera, image = _scene(size, "tilted", "blue")
    found = find_pool_table(image)
    assert (found.size, found.size_from) == (size, "balls")
    rms, _ = pool_plane_error_mm(found.calibration, camera)
    assert rms <= LIMITS["tilted"][0]


def test_size_without_balls_is_taken_as_9ft_with_a_warning():
    table = POOL_8FT
    camera = pool_scene_cameras(table)["tilted"]
    found = find_pool_table(render_pool_table(camera, table, {}, cloth="green"))
    assert (found.size, found.size_from) == ("9ft", "assumed")
    assert "9 ft" in found.warning and "\n" not in found.warning


def test_ball_ratio_bands_name_each_table():
    assert size_from_ratio(1.0) == "9ft"
    assert size_from_ratio(POOL_9FT.width_mm / POOL_8FT.width_mm) == "8ft"
    assert size_from_ratio(POOL_9FT.width_mm / POOL_7FT.width_mm) == "7ft"
    assert size_from_ratio(0.66) == "snooker"
    assert size_from_ratio(1.07) is None and size_from_ratio(None) is None


def test_rack_on_the_foot_spot_does_not_spoil_the_fit():
    table = POOL_9FT
    camera = pool_scene_cameras(table)["broadcast"]
    image = render_pool_table(camera, table, pool_start_balls(table), cloth="blue")
    found = find_pool_table(image, "9ft")
    rms, worst = pool_plane_error_mm(found.calibration, camera)
    assert rms <= LIMITS["broadcast"][0] and worst <= LIMITS["broadcast"][1]


def test_pool_table_is_not_called_snooker():
    _, image = _scene("8ft", "tilted", "red")
    found = find_table(image)
    assert (found.game, found.size) == ("pool", "8ft")
    assert found.calibration.game == "pool"


def test_snooker_table_is_not_called_pool():
    camera = scene_cameras()["tilted"]
    found = find_table(render_table(camera, balls=scene_balls()))
    assert (found.game, found.size) == ("snooker", "snooker")
    assert found.calibration.table is SNOOKER


def test_game_and_size_are_checked():
    _, image = _scene("9ft", "tilted", "blue")
    with pytest.raises(InputError, match="pool table's size"):
        find_table(image, "snooker", "8ft")
    with pytest.raises(InputError, match="no game"):
        find_table(image, "carom")
    with pytest.raises(InputError, match="no pool table"):
        find_pool_table(image, "10ft")


def test_pool_calibration_round_trips_through_json():
    table = POOL_7FT
    camera = pool_scene_cameras(table)["overhead"]
    cal = Calibration.from_camera(camera, table)
    d = json.loads(json.dumps(cal.to_dict()))
    assert (d["game"], d["table"]) == ("pool", "7ft")
    back = Calibration.from_dict(d)
    assert back.table is POOL_7FT and back.game == "pool"
    assert set(back.pockets_px()) == set(table.pockets)
    np.testing.assert_allclose(back.H_table_to_image, cal.H_table_to_image)
    # a file without a game (written before pool) is a snooker table's
    old = {k: v for k, v in d.items() if k not in ("game", "table")}
    assert Calibration.from_dict(old).table is SNOOKER
    assert "game" not in Calibration.from_dict(old).to_dict()


@pytest.mark.parametrize("fields,needle", [
    ({"game": "carom"}, "game must be snooker or pool"),
    ({"game": "pool", "table": "10ft"}, "table must be one of"),
    ({"game": "pool", "table": None}, "table must be one of"),
])
def test_bad_game_or_table_in_a_calibration_is_one_line(fields, needle):
    cal = Calibration.from_camera(pool_scene_cameras()["overhead"], POOL_9FT)
    d = {**cal.to_dict(), **fields}
    with pytest.raises(InputError, match=needle) as err:
        Calibration.from_dict(d, where="cal.json")
    assert "\n" not in str(err.value)


def test_command_says_the_game_and_size_found(tmp_path, capsys):
    _, image = _scene("7ft", "tilted", "grey")
    src, out, show = tmp_path / "table.png", tmp_path / "cal.json", tmp_path / "show.png"
    cv2.imwrite(str(src), image)
    assert main([str(src), "-o", str(out), "--show", str(show)]) == 0
    err = capsys.readouterr().err
    assert "pool table" in err and "7ft" in err and "balls" in err
    d = json.loads(out.read_text())
    assert (d["game"], d["table"]) == ("pool", "7ft")
    assert Calibration.load(out).table is POOL_7FT
    assert cv2.imread(str(show)) is not None


def test_command_takes_the_size_given(tmp_path, capsys):
    _, image = _scene("9ft", "overhead", "tan")
    src = tmp_path / "table.png"
    cv2.imwrite(str(src), image)
    assert main([str(src), "--table", "9ft", "-o", str(tmp_path / "cal.json")]) == 0
    assert "9ft (given)" in capsys.readouterr().err


def test_command_refuses_a_pool_size_for_snooker_in_one_line(tmp_path, capsys):
    src = tmp_path / "table.png"
    cv2.imwrite(str(src), _scene("9ft", "tilted", "blue")[1])
    assert main([str(src), "--game", "snooker", "--table", "8ft"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("cueball calibrate: error: --table 8ft") and err.count("\n") == 1


def test_hand_picked_pool_points_make_a_pool_calibration(tmp_path, capsys):
    table = POOL_8FT
    camera = pool_scene_cameras(table)["tilted"]
    src, points, out = tmp_path / "table.png", tmp_path / "points.json", tmp_path / "cal.json"
    cv2.imwrite(str(src), render_pool_table(camera, table, {}))
    picked = {f"pocket_{n}": camera.project(np.array([[*p.point_mm, 0.0]]))[0].tolist()
              for n, p in table.pockets.items()}
    points.write_text(json.dumps(picked))
    assert main([str(src), "--points", str(points), "--table", "8ft", "-o", str(out)]) == 0
    cal = Calibration.load(out)
    assert cal.table is POOL_8FT
    np.testing.assert_allclose(cal.px_to_table([picked["pocket_side_left"]])[0],
                               table.pockets["side_left"].point_mm, atol=1.0)
    # named as a pool table's, the points say pool without --game
    assert main([str(src), "--points", str(points), "-o", str(out)]) == 0
    assert Calibration.load(out).game == "pool"
    assert "taken to be 9 ft" in capsys.readouterr().err


@pytest.mark.parametrize("spot", [True, False])
def test_head_end_told_by_the_foot_spot(spot):
    # the tilted camera is as far from either end: only the foot spot's mark names them
    table = POOL_9FT
    camera = pool_scene_cameras(table)["tilted"]
    image = render_pool_table(camera, table, pool_scene_balls(table), foot_spot=spot)
    found = find_pool_table(image, "9ft")
    features = found.calibration.landmarks["_features"]
    if spot:
        assert features["head_end_from"] == "foot_spot"
        rms, _ = plane_error_mm(found.calibration, camera)  # as found, not turned
        assert rms <= LIMITS["tilted"][0]
    else:
        assert features["head_end_from"] == "camera_far_end"
