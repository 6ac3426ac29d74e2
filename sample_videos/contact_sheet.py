"""Contact sheets of the sample clips: a few frames of each clip in one image, with the time,
the frame number and the events of that moment.

    python sample_videos/contact_sheet.py                 # every clip -> contact_sheets/NAME.jpg
    python sample_videos/contact_sheet.py in_off -o out/  # chosen clips, elsewhere
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import cv2
import numpy as np

from tracker.io.video import read_frames
from tracker.sim.truth import read_truth

HERE = Path(__file__).resolve().parent
THUMB_W = 640


def pick_frames(meta: dict, count: int = 6) -> list[int]:
    """Evenly spread frames plus the frames of the first pot, jump and placement."""
    n = meta["frames"]
    chosen = set(np.linspace(0, n - 1, count - 2).round().astype(int).tolist())
    for kind in ("pot", "jump", "respot", "white_placed", "off_table"):
        ev = next((e for e in meta["events"] if e["type"] == kind), None)
        if ev and len(chosen) < count:
            chosen.add(min(ev["frame"], n - 1))
    return sorted(chosen)[:count]


def sheet(video: Path, count: int = 6, cols: int = 3) -> np.ndarray:
    meta, _ = read_truth(video)
    want = pick_frames(meta, count)
    thumbs = []
    for k, frame in enumerate(read_frames(video)):
        if k in want:
            h, w = frame.shape[:2]
            th = cv2.resize(frame, (THUMB_W, round(h * THUMB_W / w)), interpolation=cv2.INTER_AREA)
            events = sorted({e["type"] for e in meta["events"] if abs(e["frame"] - k) <= 2})
            label = f"{video.stem}  frame {k}  t={k / meta['fps']:.2f}s  {' '.join(events)}"
            cv2.rectangle(th, (0, 0), (THUMB_W, 24), (0, 0, 0), -1)
            cv2.putText(th, label, (6, 17), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (255, 255, 255), 1,
                        cv2.LINE_AA)
            thumbs.append(th)
        if k >= want[-1]:
            break
    while len(thumbs) % cols:
        thumbs.append(np.zeros_like(thumbs[0]))
    rows = [np.hstack(thumbs[i:i + cols]) for i in range(0, len(thumbs), cols)]
    return np.vstack(rows)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("names", nargs="*", help="clips (default: every NAME.mp4 here)")
    p.add_argument("-o", "--out", type=Path, default=HERE / "contact_sheets")
    args = p.parse_args(argv)
    videos = ([HERE / f"{n}.mp4" for n in args.names] if args.names
              else sorted(HERE.glob("[!.]*.mp4")))
    missing = [v for v in videos if not v.exists()]
    if missing:
        p.error(f"no such clip: {', '.join(str(v) for v in missing)}")
    args.out.mkdir(parents=True, exist_ok=True)
    for v in videos:
        out = args.out / f"{v.stem}.jpg"
        cv2.imwrite(str(out), sheet(v), [cv2.IMWRITE_JPEG_QUALITY, 80])
        print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
