"""Helpers for the outputs tests: a small, realistic match as contract events, and headless
Chromium driven over the DevTools pipe."""

from __future__ import annotations

import base64
import fcntl
import json
import os
import select
import shutil
import signal
import subprocess
import tempfile
import time

from tracker.rules.snooker import Referee

CHROMIUM = "/usr/bin/chromium"
PLAYERS = ["Alice Able", "Bob Baker"]
FRAME_START = {"type": "frame_start", "players": PLAYERS, "breaker": 0, "reds": 6}
POCKET_PX = {"top_left": [1718.7, 161.3], "top_right": [1718.7, 918.7],
             "baulk_left": [201.3, 161.3], "baulk_right": [201.3, 918.7],
             "middle_left": [960.0, 140.0], "middle_right": [960.0, 940.0]}


def match_shots() -> list[dict]:
    """A six-red frame: Alice breaks off safe; Bob makes 15 and misses; Alice goes in-off
    (foul, 4 to Bob); Bob plays on and clears the table (the rest of the reds with the black,
    then the colours): the frame is Bob's."""
    red, black = "red", "black"
    shots = [
        {"first_contact": red, "potted": []},                          # Alice: safe break-off
        {"first_contact": red, "potted": [red]},                       # Bob 1
        {"first_contact": black, "potted": [black]},                   # Bob 8
        {"first_contact": red, "potted": [red]},                       # Bob 9
        {"first_contact": "pink", "potted": ["pink"]},                 # Bob 15
        {"first_contact": red, "potted": []},                          # Bob misses
        {"first_contact": red, "potted": [], "cue_potted": True},      # Alice: in-off
    ]
    for _ in range(4):  # Bob: the four reds left, each with the black
        shots += [{"first_contact": red, "potted": [red]},
                  {"first_contact": black, "potted": [black]}]
    for c in ("yellow", "green", "brown", "blue", "pink", "black"):
        shots.append({"first_contact": c, "potted": [c]})
    return [{"type": "shot", **s} for s in shots]


def match_events(fps: float = 30.0, with_records: bool = False, frames: int = 1) -> list[dict]:
    """Contract events for ``match_shots`` played ``frames`` times (best of 2 * frames - 1; the
    breaker alternates, so the frames go to Bob, Alice, ...): shot_start, contact, pot,
    shot_end, score and frame_end, each shot 4 s long; with ``record`` events when asked."""
    ref = Referee()
    start = dict(FRAME_START, best_of=2 * frames - 1)
    ref.feed(start)
    events: list[dict] = []
    if with_records:
        events.append({"type": "record", "frame": 0, "t": 0.0, "record": start})
    pockets = list(POCKET_PX)
    shots = [s for _ in range(frames) for s in match_shots()]
    for i, rec in enumerate(shots, 1):
        f0 = 60 + 120 * (i - 1)

        def ev(kind: str, df: int, f0: int = f0, **kw) -> dict:
            return {"type": kind, "frame": f0 + df, "t": round((f0 + df) / fps, 4), **kw}

        if i > 1 and (i - 1) % len(match_shots()) == 0:
            ref.feed({"type": "frame_start"})
            if with_records:
                events.append(ev("record", 0, record={"type": "frame_start"}))
        events.append(ev("shot_start", 0, shot=i))
        first = rec["first_contact"]
        obj = "red_01" if first == "red" else first
        events.append(ev("contact", 15, balls=["white", obj], classes=["white", first]))
        for k, c in enumerate(rec["potted"]):
            pocket = pockets[(i + k) % len(pockets)]
            events.append(ev("pot", 30 + k, ball="red_01" if c == "red" else c, **{
                "class": c}, pocket=pocket, pocket_px=POCKET_PX[pocket]))
        if rec.get("cue_potted"):
            events.append(ev("pot", 40, ball="white", **{"class": "white"},
                             pocket="top_left", pocket_px=POCKET_PX["top_left"]))
        events.append(ev("shot_end", 90, shot=i, first_contact=first,
                         potted=list(rec["potted"]), cue_potted=bool(rec.get("cue_potted")),
                         off_table=[]))
        if with_records:
            events.append(ev("record", 90, record=rec))
        res = ref.feed(rec)
        events.append({**{k: v for k, v in res.items() if k != "type"},
                       **ev("score", 90)})
        if res["frame_over"]:
            events.append(ev("frame_end", 90, winner=res["winner"], score=res["score"]))
    return events


class Chromium:
    """Headless Chromium driven over ``--remote-debugging-pipe`` (DevTools messages on fds 3 and
    4, NUL-terminated JSON): real time, unlike ``--virtual-time-budget``, which never runs out
    while an event stream is open."""

    def __init__(self, binary: str = CHROMIUM, size: tuple[int, int] = (1280, 720)) -> None:
        self.size = size
        self.profile = tempfile.mkdtemp(prefix="cueball-chromium-")
        to_r, to_w = os.pipe()
        from_r, from_w = os.pipe()

        def on_fds_3_and_4() -> None:
            a = fcntl.fcntl(to_r, fcntl.F_DUPFD, 10)
            b = fcntl.fcntl(from_w, fcntl.F_DUPFD, 10)
            os.dup2(a, 3)
            os.dup2(b, 4)

        args = [binary, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                "--no-first-run", "--disable-background-networking",
                "--disable-component-update", "--disable-sync",
                f"--user-data-dir={self.profile}", f"--window-size={size[0]},{size[1]}",
                "--hide-scrollbars", "--remote-debugging-pipe", "about:blank"]
        self.proc = subprocess.Popen(args, pass_fds=(3, 4, to_r, from_w),
                                     preexec_fn=on_fds_3_and_4, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL, start_new_session=True)
        os.close(to_r)
        os.close(from_w)
        self._w, self._r = to_w, from_r
        self._buf = b""
        self._id = 0
        self.session: str | None = None

    def send(self, method: str, timeout: float = 30.0, **params) -> dict:
        self._id += 1
        msg = {"id": self._id, "method": method, "params": params}
        if self.session and not method.startswith("Target."):
            msg["sessionId"] = self.session
        os.write(self._w, json.dumps(msg).encode() + b"\0")
        end = time.monotonic() + timeout
        while True:
            while b"\0" in self._buf:
                raw, self._buf = self._buf.split(b"\0", 1)
                reply = json.loads(raw)
                if reply.get("id") == self._id:
                    if "error" in reply:
                        raise RuntimeError(f"{method}: {reply['error']}")
                    return reply.get("result", {})
            left = end - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"chromium did not answer {method} in {timeout} s")
            ready, _, _ = select.select([self._r], [], [], left)
            if ready:
                chunk = os.read(self._r, 1 << 20)
                if not chunk:
                    raise RuntimeError("chromium closed the DevTools pipe")
                self._buf += chunk

    def open(self, url: str) -> None:
        """Attaches to the first tab, makes its background transparent and loads ``url``."""
        targets = self.send("Target.getTargets")["targetInfos"]
        page = next(t for t in targets if t["type"] == "page")
        self.session = self.send("Target.attachToTarget", targetId=page["targetId"],
                                 flatten=True)["sessionId"]
        self.send("Page.enable")
        self.send("Emulation.setDeviceMetricsOverride", width=self.size[0],
                  height=self.size[1], deviceScaleFactor=1, mobile=False)
        self.send("Emulation.setDefaultBackgroundColorOverride",
                  color={"r": 0, "g": 0, "b": 0, "a": 0})
        self.send("Page.navigate", url=url)

    def eval(self, expression: str):
        r = self.send("Runtime.evaluate", expression=expression, returnByValue=True)
        return r.get("result", {}).get("value")

    def wait_for(self, expression: str, timeout: float = 10.0, poll: float = 0.005):
        """Polls until ``expression`` is truthy; its value, or TimeoutError."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            v = self.eval(expression)
            if v:
                return v
            time.sleep(poll)
        raise TimeoutError(f"{expression!r} stayed false for {timeout} s")

    def screenshot_png(self) -> bytes:
        return base64.b64decode(self.send("Page.captureScreenshot", format="png")["data"])

    def close(self) -> None:
        try:
            os.killpg(self.proc.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        os.close(self._w)
        os.close(self._r)
        shutil.rmtree(self.profile, ignore_errors=True)
