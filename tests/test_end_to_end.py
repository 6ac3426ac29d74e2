"""The README's main job, end to end through the command line, on a bundled sample clip."""

import json
from pathlib import Path

from tracker.cli import main
from tracker.sim.truth import read_truth

SAMPLES = Path(__file__).resolve().parents[1] / "sample_videos"


def test_track_then_report(tmp_path, capsys):
    clip = SAMPLES / "in_off.mp4"
    events, tracks = tmp_path / "out" / "e.jsonl", tmp_path / "out" / "t.csv"
    overlay, report = tmp_path / "out" / "o.mp4", tmp_path / "r.html"
    assert main(["track", str(clip), "--events", str(events), "--tracks", str(tracks),
                 "--overlay", str(overlay), "--quiet"]) == 0
    log = [json.loads(line) for line in events.read_text().splitlines()]
    meta, _ = read_truth(clip)
    scores = [e for e in log if e["type"] == "score"]
    assert scores[-1]["score"] == meta["final_score"] == [0, 4]
    assert scores[-1]["foul"]["reason"] == "in_off"
    pot_classes = sorted(e["class"] for e in log if e["type"] == "pot")
    assert pot_classes == ["red", "white"]
    header = tracks.read_text().splitlines()[0]
    assert header == "frame,t,track_id,ball,x_mm,y_mm,x_px,y_px,state"
    assert overlay.stat().st_size > 10_000
    assert main(["report", str(events), "--tracks", str(tracks), "-o", str(report)]) == 0
    assert "<svg" in report.read_text()


def test_track_missing_file_is_one_line(capsys):
    assert main(["track", "/nonexistent/clip.mp4", "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "clip.mp4" in err


def test_killed_and_resumed_run_gives_the_same_score(tmp_path, capsys):
    """Events are flushed one by one, so a killed run leaves its log up to the last event plus
    at most a torn line; such a log is cut here from an uninterrupted run's, then resumed."""
    clip = SAMPLES / "broadcast.mp4"
    full = tmp_path / "full.jsonl"
    assert main(["track", str(clip), "--events", str(full), "--quiet"]) == 0
    lines = full.read_text().splitlines()
    events = [json.loads(line) for line in lines]
    scores = [i for i, e in enumerate(events) if e["type"] == "score"]
    assert len(scores) >= 2
    # killed during the second shot: after its start, with half a line written
    cut = next(i for i, e in enumerate(events) if i > scores[0] and e["type"] == "pot")
    killed = tmp_path / "killed.jsonl"
    killed.write_text("\n".join(lines[:cut]) + "\n" + lines[cut][: len(lines[cut]) // 2])
    assert main(["track", str(clip), "--events", str(killed), "--resume", "--quiet"]) == 0
    resumed = [json.loads(line) for line in killed.read_text().splitlines()]
    final = [e for e in events if e["type"] == "score"][-1]
    again = [e for e in resumed if e["type"] == "score"]
    assert again[-1]["score"] == final["score"] and again[-1]["shot"] == final["shot"]
    assert len(again) == len(scores)
    # a finished run resumed: nothing to score again, and the score it ended with is told
    capsys.readouterr()
    assert main(["track", str(clip), "--events", str(full), "--resume", "--quiet"]) == 0
    said = capsys.readouterr().out.strip().splitlines()[-1]
    assert said.endswith(f"score {final['score'][0]}-{final['score'][1]}")
    assert [e for e in map(json.loads, full.read_text().splitlines())
            if e["type"] == "score"][-1]["shot"] == final["shot"]
    assert sum(json.loads(line)["type"] == "score" for line in full.read_text().splitlines()) \
        == len(scores)


def test_track_serves_the_live_page_while_it_runs(tmp_path, monkeypatch):
    """``--page`` serves the scoreboard page during the run; the page's state follows the
    score events as they are logged."""
    import threading
    import urllib.request

    from tracker.render import live

    servers = []
    start = live.LiveServer.start

    def recording_start(self):
        servers.append(self)
        return start(self)

    monkeypatch.setattr(live.LiveServer, "start", recording_start)
    clip = SAMPLES / "in_off.mp4"
    done = []
    run = threading.Thread(target=lambda: done.append(main(
        ["track", str(clip), "--events", str(tmp_path / "e.jsonl"), "--page", "0",
         "--players", "Ann", "Bob", "--quiet"])))
    run.start()
    seen = []
    while run.is_alive():
        if servers and servers[0].port:
            try:
                state = json.loads(urllib.request.urlopen(servers[0].url + "state",
                                                          timeout=2).read())
                seen.append(state)
            except OSError:
                pass
        run.join(0.1)
    assert done == [0]
    assert servers and servers[0].url.startswith("http://127.0.0.1:")
    assert seen and seen[0]["players"] == ["Ann", "Bob"]
    assert any(s["score"] == [0, 4] for s in seen), "the foul's score reached the page"
