"""Input and output on disk: video sources and writers (``video``), the event log and the
tracks (``eventlog``: events.jsonl and tracks.csv, and resuming from them)."""
