"""Sample clips as other cameras would film them, with their truth, into a folder of their own,
for ``bench_clips.py --dir`` and ``bench_e2e.py --dir``.

The sample clips are clean: the encoder keeps little of the renderer's sensor noise (0.1 to 0.8
Mbit/s at 1080p, where a camera's encoder writes 2 to 8), and their shutter is open half of
each frame. Two variants:

    python scripts/make_variants.py camera DIR [CLIPS]   # sensor noise, encoded at 4 Mbit/s
    python scripts/make_variants.py shutter DIR [CLIPS]  # rendered again, shutter open all frame
    python scripts/make_variants.py camera DIR2 --source DIR  # both: DIR's clips, noisy

``camera``: every decoded frame of the clip with fresh Gaussian sensor noise (``--noise``, 2
levels) encoded at a constant bitrate (``--kbps``, 4000) by x264's ``veryfast`` preset, as a
camera's encoder does; the truth is the clip's own; ``--source`` takes the clips of another
folder in place of the sample clips (the full-shutter ones: a club's camera, both at once).
``shutter``: the clip's scenario simulated and rendered again (the same seed, so the same
play) with the shutter open for ``--exposure`` (1.0) of each frame, a ball's blur as long as
its way in a frame (25 to 60 s a clip). A clip already made in DIR is kept.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import tracker.sim.make as make  # noqa: E402
from tracker.io.video import VideoWriter, probe, read_frames  # noqa: E402
from tracker.sim.truth import truth_paths  # noqa: E402

SAMPLES = ROOT / "sample_videos"
CRF = 26  # as the sample clips
SHUTTER_SAMPLES = 13  # instants a frame's blur is made of (the sample clips: 7 over half a frame)


def camera_like(src: Path, out: Path, kbps: int, noise: float, seed: int = 0,
                progress: Callable[[int, int], None] | None = None) -> None:
    """``src`` with fresh sensor noise on every frame, encoded at ``kbps``, to ``out``; its
    truth copied beside it. ``progress(done, total)`` after each frame, as ``make_clip``'s."""
    info = probe(src)
    rng = np.random.default_rng(seed)
    tmp = out.with_name(f".{out.name}")
    with VideoWriter(tmp, (info["width"], info["height"]), info["fps"], preset="veryfast",
                     kbps=kbps) as writer:
        for done, image in enumerate(read_frames(src), 1):
            noisy = image + rng.normal(0.0, noise, image.shape).astype(np.float32)
            writer.write(np.clip(noisy, 0, 255).astype(np.uint8))
            if progress is not None:
                progress(done, info["frames"] or None)
    for a, b in zip(truth_paths(src), truth_paths(out)):
        shutil.copyfile(a, b)
    tmp.replace(out)


def shutter_open(name: str, out: Path, exposure: float,
                 progress: Callable[[int, int], None] | None = None) -> None:
    """Sample clip ``name``'s play rendered again with the shutter open for ``exposure`` of
    each frame, to ``out`` with its truth. Made in a hidden folder beside it (the truth names
    its files) and moved into place, the clip last: a run stopped part-way leaves no clip that
    a later run would keep."""
    part = out.with_name(f".{out.stem}.part")
    tmp = part / out.name
    make.make_clip(name, tmp, seed=0, crf=CRF, exposure=exposure,
                   blur_samples=SHUTTER_SAMPLES, progress=progress)
    for a, b in zip(truth_paths(tmp), truth_paths(out)):
        a.replace(b)
    tmp.replace(out)
    part.rmdir()


def clip_paths(p: argparse.ArgumentParser, folder: Path, names: list[str]) -> list[Path]:
    """The clips ``names`` of ``folder`` (every clip there when none is named), each with its
    truth beside it; a parser error for one without."""
    paths = ([folder / f"{c}.mp4" for c in names] if names
             else sorted(folder.glob("[!.]*.mp4")))
    for path in paths:
        if not path.exists() or not path.with_suffix(".truth.json").exists():
            p.error(f"{path}: no such clip with its truth")
    return paths


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("variant", choices=("camera", "shutter"))
    p.add_argument("dir", type=Path, help="folder for the clips and their truth")
    p.add_argument("clips", nargs="*", help="sample clips by name (default: every 1080p one)")
    p.add_argument("--kbps", type=int, default=4000, help="camera: the bitrate (default 4000)")
    p.add_argument("--noise", type=float, default=2.0,
                   help="camera: sensor noise, 8-bit levels (default 2)")
    p.add_argument("--exposure", type=float, default=1.0,
                   help="shutter: the share of each frame it is open (default 1)")
    p.add_argument("--source", type=Path, default=SAMPLES,
                   help="camera: the folder of the clips made noisy (default: the sample clips)")
    args = p.parse_args(argv)
    if args.variant == "shutter" and args.source.resolve() != SAMPLES.resolve():
        p.error("--source is for the camera variant (shutter renders the sample clips' play)")
    if not args.source.is_dir():
        p.error(f"{args.source}: no such folder")
    if args.source.resolve() == args.dir.resolve():
        p.error(f"{args.dir}: the clips would be made over their source")
    names = args.clips or sorted(
        path.stem for path in args.source.glob("[!.]*.mp4") if probe(path)["height"] == 1080)
    if not names:
        p.error(f"{args.source}: no 1080p clips")
    sources = clip_paths(p, args.source, names)  # each with its truth
    args.dir.mkdir(parents=True, exist_ok=True)
    for src in sources:
        out = args.dir / src.name
        if out.exists():
            print(f"{out}: kept")
            continue
        with make.FrameBar(desc=src.stem, leave=False) as bar:
            if args.variant == "camera":
                camera_like(src, out, args.kbps, args.noise, progress=bar)
            else:
                shutter_open(src.stem, out, args.exposure, progress=bar)
        print(f"{out}: made", flush=True)


if __name__ == "__main__":
    main()
