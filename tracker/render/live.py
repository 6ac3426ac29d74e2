"""A live scoreboard page for streaming software (an OBS browser source).

    server = LiveServer(players=("Judd Trump", "Mark Selby")).start()   # 127.0.0.1, free port
    print(server.url)                # open it, or add it as a browser source
    server.publish(score_event)      # every event of events.jsonl may be published
    server.stop()

A small stdlib HTTP server in a background thread: ``/`` is a self-contained page (HTML, CSS
and JS inline) whose background is transparent; ``/events`` is a Server-Sent Events stream
that sends the current board on connect and one message per published event; ``/state`` is the
current board as JSON. Only the network edge lives here: the board itself is
``tracker.render.overlay.Scoreboard``.
"""

from __future__ import annotations

import json
import queue
import threading
from collections.abc import Mapping, Sequence
from dataclasses import replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tracker.render.overlay import Scoreboard, ScoreKeeper

CLIENT_QUEUE = 1000  # messages a page may fall behind before it is dropped
KEEPALIVE_S = 10.0  # a comment line this often keeps proxies and the browser from timing out


class LiveServer:
    """The live page's server. ``host``: the interface to bind (127.0.0.1 keeps the page on this
    machine; "0.0.0.0" shares it on the network); ``port``: 0 picks a free one (see ``url``);
    ``players``: the two names shown until a ``frame_start`` record names them; ``board``:
    the board shown before the first event (a frame joined mid-way: its score). A pot moves
    the score at once (``ScoreKeeper``); once the run ends (``stop``) the page keeps the last
    board."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0,
                 players: Sequence[str] | None = None, best_of: int | None = None,
                 board: Scoreboard | None = None) -> None:
        self.host, self.port = host, port
        self.best_of = best_of
        self._players = tuple(players) if players else ("Player 1", "Player 2")
        board = board or Scoreboard(players=self._players, best_of=best_of)  # type: ignore[arg-type]
        self._keeper = ScoreKeeper(replace(board, players=self._players), self._players)
        self._last_event: dict[str, Any] | None = None
        self._clients: list[queue.Queue] = []
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- life cycle --------------------------------------------------------------------------

    def start(self) -> LiveServer:
        if self._httpd is not None:
            return self
        self._httpd = _Server((self.host, self.port), _handler_for(self))
        self._httpd.daemon_threads = True
        self.port = self._httpd.server_address[1]
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={
            "poll_interval": 0.2}, name=f"cueball-live:{self.port}", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is None:
            return
        with self._lock:
            # the pages keep the last board rather than waiting for a run that has ended
            self._broadcast_locked(json.dumps({"board": self._board.as_dict(), "event": None,
                                               "ended": True}, separators=(",", ":")))
            for q in self._clients:
                q.put(None)
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._httpd = self._thread = None

    def __enter__(self) -> LiveServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def url(self) -> str:
        host = "127.0.0.1" if self.host in ("", "0.0.0.0") else self.host
        if ":" in host:
            host = f"[{host}]"
        return f"http://{host}:{self.port}/"

    @property
    def address(self) -> tuple[str, int] | None:
        """The (host, port) the server is bound to, None when stopped."""
        if self._httpd is None:
            return None
        host, port = self._httpd.server_address[:2]
        return str(host), int(port)

    @property
    def clients(self) -> int:
        """How many pages are connected to the event stream."""
        with self._lock:
            return len(self._clients)

    # -- events ------------------------------------------------------------------------------

    def publish(self, event: Mapping[str, Any]) -> None:
        """Sends one event to every connected page; an event with the referee's answer
        (``score``, ``frame_start``, ``decision``) sets the board."""
        event = dict(event)
        kind = event.get("type")
        with self._lock:
            if self._keeper.seen(event):
                return  # a pot told before, as soon as the tracker was sure of it
            if kind == "record" and isinstance(event.get("record"), Mapping):
                rec = event["record"]
                if rec.get("type") == "frame_start" and rec.get("players"):
                    self._set_players_locked(rec["players"])
            elif kind == "frame_start" and event.get("players"):
                self._set_players_locked(event["players"])
            self._keeper.see(event)
            self._last_event = event
            self._broadcast_locked(self._message_locked(event))

    def set_players(self, players: Sequence[str]) -> None:
        with self._lock:
            self._set_players_locked(players)
            self._broadcast_locked(self._message_locked(None))

    def state(self) -> dict[str, Any]:
        """The board as the page shows it."""
        with self._lock:
            return self._board.as_dict()

    @property
    def _board(self) -> Scoreboard:
        return self._keeper.board

    def _set_players_locked(self, players: Sequence[str]) -> None:
        if len(players) != 2:
            raise ValueError(f"players must be two names, got {list(players)}")
        self._players = (str(players[0]), str(players[1]))
        self._keeper.rename(self._players)

    def _message_locked(self, event: Mapping[str, Any] | None) -> str:
        return json.dumps({"board": self._board.as_dict(), "event": event},
                          separators=(",", ":"), default=str)

    def _broadcast_locked(self, msg: str) -> None:
        for q in list(self._clients):
            try:
                q.put_nowait(msg)
            except queue.Full:  # a page that stopped reading: drop it, it reconnects itself
                self._clients.remove(q)
                q.queue.clear()
                q.put_nowait(None)

    def _subscribe(self) -> tuple[queue.Queue, str]:
        q: queue.Queue = queue.Queue(maxsize=CLIENT_QUEUE)
        with self._lock:
            self._clients.append(q)
            return q, self._message_locked(None)

    def _unsubscribe(self, q: queue.Queue) -> None:
        with self._lock:
            if q in self._clients:
                self._clients.remove(q)


class _Server(ThreadingHTTPServer):
    """The page's HTTP server: a burst of pages connecting at once waits in a long queue, and
    a client that goes away mid-request (a reset connection, a closed tab) is no error."""

    request_queue_size = 128

    def handle_error(self, request, client_address) -> None:
        import sys

        if not isinstance(sys.exc_info()[1], OSError):
            super().handle_error(request, client_address)


def _handler_for(server: LiveServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        server_version = "cueball-live"
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True  # small SSE writes go out at once

        def do_GET(self) -> None:  # noqa: N802 (the http.server name)
            path = self.path.split("?", 1)[0]
            if path in ("/", "/index.html"):
                # the board as it stands, in the page itself: names and score from the start
                board = json.dumps(server.state()).replace("<", "\\u003c")
                page = PAGE_HTML.replace("/*BOARD*/null", board)
                self._send(200, "text/html; charset=utf-8", page.encode())
            elif path == "/state":
                self._send(200, "application/json", json.dumps(server.state()).encode())
            elif path == "/events":
                self._stream()
            else:
                self._send(404, "text/plain; charset=utf-8", b"not found\n")

        def _send(self, code: int, ctype: str, body: bytes) -> None:
            self.send_response(code)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(body)

        def _stream(self) -> None:
            self.close_connection = True
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream; charset=utf-8")
            self.send_header("Cache-Control", "no-store")
            self.send_header("X-Accel-Buffering", "no")
            self.end_headers()
            q, first = server._subscribe()
            try:
                self.wfile.write(f"retry: 1000\ndata: {first}\n\n".encode())
                self.wfile.flush()
                while True:
                    try:
                        msg = q.get(timeout=KEEPALIVE_S)
                    except queue.Empty:
                        self.wfile.write(b": keepalive\n\n")
                        self.wfile.flush()
                        continue
                    if msg is None:
                        break
                    self.wfile.write(f"data: {msg}\n\n".encode())
                    self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError, OSError):
                pass
            finally:
                server._unsubscribe(q)

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
            pass  # quiet: the pipeline's output is the console

    return Handler


PAGE_HTML = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>cueball live scoreboard</title>
<style>
html, body { margin: 0; padding: 0; background: transparent; overflow: hidden; }
body { font-family: "Inter", "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
       font-size: 2.3vh; color: #fff; -webkit-font-smoothing: antialiased; }
#board { position: absolute; left: 4vh; bottom: 4vh; min-width: 60vh;
         filter: drop-shadow(0 0.4vh 0.8vh rgba(0,0,0,.45)); transition: opacity .3s; }
#board.stale { opacity: .55; }
.notice { padding: .35em .8em; font-weight: 700; letter-spacing: .04em; text-transform: uppercase;
          animation: slide .25s ease-out; }
.notice.foul { background: #c8282a; } .notice.info { background: #145fa0; }
.notice.win { background: #3c8c28; }
@keyframes slide { from { transform: translateY(.6em); opacity: 0 } to { transform: none } }
table { border-collapse: collapse; background: rgba(16,26,38,.9); width: 100%; }
td { padding: 0; height: 2.1em; white-space: nowrap; }
td.mark { width: .45em; } tr.at td.mark { background: #f0be3c; }
td.name { padding: 0 .9em 0 .7em; min-width: 13em; font-weight: 700; text-transform: uppercase;
          letter-spacing: .03em; }
tr.at td.name { background: rgba(30,48,70,.9); }
td.frames { width: 2.6em; text-align: center; background: #af7a1e; font-weight: 700; }
td.score { width: 3.6em; text-align: center; background: #f5f5f5; color: #0e161e;
           font-weight: 800; font-size: 1.15em; font-variant-numeric: tabular-nums; }
td.side { padding: 0 .8em; min-width: 8em; color: #bebebe; font-size: .8em; font-weight: 600; }
.brk { color: #f0be3c; font-size: 1.5em; font-weight: 800; margin-left: .3em;
       vertical-align: middle; }
.ball { display: inline-block; width: 1.05em; height: 1.05em; border-radius: 50%;
        vertical-align: middle; margin: 0 .35em;
        background: radial-gradient(circle at 32% 30%, rgba(255,255,255,.85) 0 12%,
                    transparent 30%), var(--c); }
.b-red { --c: #d72d23; } .b-yellow { --c: #f5d728; } .b-green { --c: #28a046; }
.b-brown { --c: #91501e; } .b-blue { --c: #1e6ed7; } .b-pink { --c: #ff96be; }
.b-black { --c: #222; } .b-white { --c: #f0f0f0; }
.mini { width: .55em; height: .55em; margin: 0 .05em; }
#pot { position: absolute; left: 4vh; bottom: calc(4vh + 7em); opacity: 0;
       transition: opacity .4s; font-weight: 700; text-transform: uppercase;
       background: rgba(16,26,38,.9); padding: .3em .9em .3em .3em; border-radius: 1em; }
#pot.show { opacity: 1; }
</style></head>
<body>
<div id="pot"></div>
<div id="board" data-shot="0">
  <div id="notices"></div>
  <table>
    <tr id="p0"><td class="mark"></td><td class="name">Player 1</td><td class="frames">0</td>
        <td class="score">0</td><td class="side"></td></tr>
    <tr id="p1"><td class="mark"></td><td class="name">Player 2</td><td class="frames">0</td>
        <td class="score">0</td><td class="side"></td></tr>
  </table>
</div>
<script>
"use strict";
const COLOURS = ["yellow", "green", "brown", "blue", "pink", "black"];
const el = (tag, cls, text) => { const e = document.createElement(tag);
  if (cls) e.className = cls; if (text !== undefined) e.textContent = text; return e; };
function ball(cls, mini) { return el("span", "ball b-" + cls + (mini ? " mini" : "")); }
function render(b) {
  const at = (b.striker === 0 || b.striker === 1) ? b.striker : null;
  for (const p of [0, 1]) {
    const row = document.getElementById("p" + p);
    row.classList.toggle("at", at === p);
    row.querySelector(".name").textContent = b.players[p];
    row.querySelector(".frames").textContent = b.frames[p];
    row.querySelector(".score").textContent = b.score[p];
    const side = row.querySelector(".side");
    side.replaceChildren();
    if (at === p && b.break > 0) {
      side.append("BREAK", el("span", "brk", String(b.break)));
    } else if (at !== null ? p !== at : p === 1) {
      if (b.ball_on === "colour") {
        side.append("ON"); for (const c of COLOURS) side.append(ball(c, true));
      } else if (b.ball_on) { side.append("ON", ball(b.ball_on)); }
      if (b.remaining !== null && b.remaining !== undefined) side.append(" REM " + b.remaining);
    }
  }
  const box = document.getElementById("notices");
  box.replaceChildren(...(b.notices || []).slice(0, 2).map(n => el("div", "notice " + n.kind,
                                                                  n.text)));
}
let potTimer = null;
function onEvent(e) {
  if (!e) return;
  if (e.type === "score") document.getElementById("board").dataset.shot = e.shot;
  if (e.type === "pot") {
    const pot = document.getElementById("pot");
    pot.replaceChildren(ball(e.class || "white"), (e.class || "") + " potted");
    pot.classList.add("show"); clearTimeout(potTimer);
    potTimer = setTimeout(() => pot.classList.remove("show"), 1500);
  }
}
// EventSource reconnects by itself; the board dims only when the tracker stays away
let staleTimer = null;
const es = new EventSource("events");
const FIRST = /*BOARD*/null;
if (FIRST) render(FIRST);
es.onmessage = (m) => { const d = JSON.parse(m.data);
  clearTimeout(staleTimer); staleTimer = null;
  document.getElementById("board").classList.remove("stale");
  if (d.board) render(d.board); onEvent(d.event);
  if (d.ended) es.close(); };  // the run is over: its last board stays
es.onerror = () => { if (staleTimer === null) staleTimer = setTimeout(
  () => document.getElementById("board").classList.add("stale"), 5000); };
</script>
</body></html>
"""
