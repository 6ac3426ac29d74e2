"""What the match shows while it is played and leaves behind: ``overlay`` (the scoreboard, trails
and shot markers drawn on the video), ``live`` (a local page for streaming software, updated
over Server-Sent Events) and ``report`` (a self-contained HTML match report)."""
