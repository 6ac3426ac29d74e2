"""The season's index and tables, read from the event logs of a batch folder."""

import csv
import json
import re
from pathlib import Path

import pytest

from tracker.render.season import (
    COLUMNS,
    TABLES,
    index_html,
    load_season,
    player_stats,
    write_season,
)

SAMPLES = Path(__file__).resolve().parent.parent / "sample_videos"
VALUE = {"red": 1, "yellow": 2, "green": 3, "brown": 4, "blue": 5, "pink": 6, "black": 7}


def _match_folder(root: Path, name: str, events, done: dict | None):
    d = root / name
    d.mkdir(parents=True)
    (d / "events.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events))
    if done is not None:
        (d / "done.json").write_text(json.dumps(done))
    return d


def _truth(name):
    return json.loads((SAMPLES / f"{name}.truth.json").read_text())


@pytest.fixture
def season(tmp_path):
    """Three clips' true event logs as a batch folder: two finished, one not."""
    for name, done in (("break_building", True), ("in_off", True), ("miss", False)):
        _match_folder(tmp_path, name, _truth(name)["events"],
                      {"video": f"/videos/{name}.mp4"} if done else None)
    return tmp_path


def _read(path):
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


def test_every_table_has_its_columns_and_a_row_per_match_frame_shot_and_break(season):
    write_season(season, parquet=False)
    for name in TABLES:
        with open(season / f"{name}.csv", newline="") as fh:
            assert next(csv.reader(fh)) == [c for c, _ in COLUMNS[name]]
    matches = _read(season / "matches.csv")
    assert [m["match"] for m in matches] == ["break_building", "in_off", "miss"]
    assert [m["finished"] for m in matches] == ["true", "true", "false"]
    shots = _read(season / "shots.csv")
    for m in matches:
        truth = _truth(m["match"])
        assert int(m["shots"]) == len(truth["shots"])
        assert [int(m["last_score_1"]), int(m["last_score_2"])] == truth["final_score"]
        mine = [s for s in shots if s["match"] == m["match"]]
        assert len(mine) == len(truth["shots"])
        assert [int(mine[-1]["score_1"]), int(mine[-1]["score_2"])] == truth["final_score"]
    frames = _read(season / "frames.csv")
    assert {f["match"] for f in frames} == {"break_building", "in_off", "miss"}


def test_a_break_is_the_run_of_pots_of_one_visit(season):
    write_season(season, parquet=False)
    breaks = [b for b in _read(season / "breaks.csv") if b["match"] == "break_building"]
    potted = [c for s in _truth("break_building")["shots"] for c in s["potted"]]
    assert len(breaks) == 1
    assert breaks[0]["balls"].split() == potted
    assert int(breaks[0]["points"]) == sum(VALUE[c] for c in potted)


def test_fouls_are_counted_against_the_player_who_made_them(season):
    write_season(season, parquet=False)
    rows = {m["match"]: m for m in _read(season / "matches.csv")}
    assert (rows["in_off"]["fouls_1"], rows["in_off"]["fouls_2"]) == ("1", "0")
    shot = next(s for s in _read(season / "shots.csv") if s["match"] == "in_off")
    assert shot["foul_reason"] == "in_off" and shot["foul_points"] == "4"


def _shot(n, player, t0, t1, points=0, foul=None, potted=(), score=(0, 0), brk=0, over=False,
          winner=None, hit=None):
    """One shot's events: start, the white's first contact (with the track id ``hit``), the
    pots, the end, the referee's score."""
    evs = [{"type": "shot_start", "frame": int(t0 * 30), "t": t0, "shot": n}]
    if hit is not None:
        evs.append({"type": "contact", "frame": int(t0 * 30) + 3, "t": t0 + 0.1,
                    "balls": ["white", hit], "classes": ["white", hit.split("_")[0]]})
    evs += [{"type": "pot", "frame": int(t1 * 30) - 1, "t": t1 - 0.1, "ball": c, "class": c,
             "pocket": "top_left"} for c in potted]
    evs.append({"type": "shot_end", "frame": int(t1 * 30), "t": t1, "shot": n,
                "potted": list(potted)})
    evs.append({"type": "score", "frame": 1, "t": t1, "shot": n, "player": player,
                "points": points, "foul": foul, "score": list(score), "break": brk,
                "frame_over": over, "winner": winner})
    return evs


def test_player_statistics_count_visits_pots_points_shot_time_and_fouls(tmp_path):
    # Ann: a visit of red, black, then a safety; Bob: a foul; Ann: a red, then a miss
    events = [{"type": "frame_start", "frame": 0, "t": 0.0, "players": ["Ann", "Bob"],
               "breaker": 0, "reds": 15}]
    events += _shot(1, 0, 1.0, 3.0, 1, potted=["red"], score=(1, 0), brk=1)
    events += _shot(2, 0, 7.0, 9.0, 7, potted=["black"], score=(8, 0), brk=8)
    events += _shot(3, 0, 19.0, 21.0, 0, score=(8, 0))
    events += _shot(4, 1, 25.0, 27.0, 0, foul={"points": 4, "reason": "wrong_ball_first"},
                    score=(12, 0))
    events += _shot(5, 0, 30.0, 32.0, 1, potted=["red"], score=(13, 0), brk=1)
    events += _shot(6, 0, 35.0, 37.0, 0, score=(13, 0))
    _match_folder(tmp_path, "m1", events, {"video": "m1.mp4", "players": ["Ann", "Bob"]})
    ann, bob = player_stats(load_season(tmp_path))
    assert (ann.player, bob.player) == ("Ann", "Bob")
    assert (ann.shots, ann.visits, ann.potting_shots, ann.points) == (5, 2, 3, 9)
    assert ann.pot_success == pytest.approx(3 / 5)
    assert ann.shots_per_visit == pytest.approx(5 / 2)
    assert ann.points_per_visit == pytest.approx(9 / 2)
    # shot time: from the shot before's end to this one's start, within the frame
    assert ann.mean_shot_time_s == pytest.approx(((7 - 3) + (19 - 9) + (30 - 27) + (35 - 32)) / 4)
    assert ann.breaks[1] == 2 and ann.high_break == 8 and sum(ann.breaks.values()) == 2
    assert ann.pots_by_ball == {"red": 2, "black": 1}
    assert (bob.shots, bob.visits, bob.fouls, bob.points) == (1, 1, 1, 0)
    assert bob.fouls_by_reason == {"wrong_ball_first": 1}
    assert bob.mean_shot_time_s == pytest.approx(25 - 21)


def test_a_shot_is_long_when_the_white_stood_half_a_table_or_more_from_the_ball_it_hit(tmp_path):
    events = [{"type": "frame_start", "frame": 0, "t": 0.0, "players": ["Ann", "Bob"],
               "breaker": 0, "reds": 15}]
    events += _shot(1, 0, 1.0, 3.0, 1, potted=["red"], score=(1, 0), brk=1, hit="red_03")
    events += _shot(2, 0, 5.0, 7.0, 0, score=(1, 0), hit="black")
    events += _shot(3, 1, 9.0, 11.0, 0, score=(1, 0), hit="red_04")  # no rows in the tracks
    d = _match_folder(tmp_path, "m", events, {"video": "m.mp4"})
    rows = ["frame,t,track_id,ball,x_mm,y_mm,x_px,y_px,state",
            # shot 1: the white 2000 mm from red_03 (long); shot 2: 300 mm from the black
            "30,1.0,white,white,900.00,300.00,,,seen",
            "30,1.0,red_03,red,900.00,2300.00,,,seen",
            "150,5.0,white,white,900.00,3000.00,,,seen",
            "150,5.0,black,black,900.00,3300.00,,,seen",
            "150,5.0,red_03,red,,,,,potted"]
    (d / "tracks.csv").write_text("\n".join(rows) + "\n")
    sm, = load_season(tmp_path)
    assert sm.reach_mm == {1: pytest.approx(2000.0), 2: pytest.approx(300.0)}
    ann, bob = player_stats([sm])
    assert (ann.long_shots, ann.long_potting_shots, ann.short_shots) == (1, 1, 1)
    assert ann.long_pot_success == 1.0 and ann.short_pot_success == 0.0
    assert (bob.long_shots, bob.short_shots, bob.long_pot_success) == (0, 0, None)
    write_season(tmp_path, parquet=False)
    shots = _read(tmp_path / "shots.csv")
    assert [(s["reach_mm"], s["long"]) for s in shots] == [("2000.0", "true"),
                                                           ("300.0", "false"), ("", "")]


def test_the_index_links_finished_matches_to_their_reports_and_escapes_names(tmp_path):
    events = [{"type": "frame_start", "frame": 0, "t": 0.0, "players": ["<Ann & Co>", "Bob"],
               "breaker": 0, "reds": 15}] + _shot(1, 0, 1.0, 3.0, 1, potted=["red"],
                                                  score=(1, 0), brk=1)
    _match_folder(tmp_path, "done_one", events, {"video": "a.mp4"})
    _match_folder(tmp_path, "half_way", events, None)
    page = index_html(load_season(tmp_path))
    assert '<a href="done_one/report.html">done_one</a>' in page
    assert 'href="half_way/report.html"' not in page and "(unfinished)" in page
    assert "&lt;Ann &amp; Co&gt;" in page and "<Ann" not in page
    assert len(re.findall(r'<tr data-match=', page)) == 2
    assert re.search(r'data-player="&lt;Ann &amp; Co&gt;"', page)


def test_the_parquet_tables_hold_the_same_rows_as_the_csv(season):
    pq = pytest.importorskip("pyarrow.parquet", reason="pyarrow is not installed (the "
                             "'parquet' extra)")
    write_season(season, parquet=True)
    for name in TABLES:
        table = pq.read_table(season / f"{name}.parquet")
        assert table.column_names == [c for c, _ in COLUMNS[name]]
        rows = _read(season / f"{name}.csv")
        assert table.num_rows == len(rows)
        for col, kind in COLUMNS[name]:
            got = table.column(col).to_pylist()
            want = [r[col] for r in rows]
            if kind == "bool":
                want = [None if w == "" else w == "true" for w in want]
            elif kind in ("int", "float"):
                want = [None if w == "" else float(w) for w in want]
            else:
                want = [None if w == "" else w for w in want]
            assert got == want, (name, col)


def test_the_formats_document_names_every_column():
    text = (Path(__file__).resolve().parent.parent / "docs" / "FORMATS.md").read_text()
    section = text[text.index("## A season of matches"):]
    for name in TABLES:
        assert f"{name}.csv" in section
        for col, _ in COLUMNS[name]:
            assert f"`{col}`" in section, (name, col)
