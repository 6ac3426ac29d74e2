"""Regenerates every sample clip and its ground truth in this folder.

    python sample_videos/make_samples.py            # all of them
    python sample_videos/make_samples.py in_off     # just these

Each clip is rendered to a temporary name and moved into place when complete, so an
interrupted run never leaves a half-written clip behind.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

from tqdm import tqdm

from tracker.sim.make import make_clip
from tracker.sim.pool_scenarios import POOL_SCENARIOS
from tracker.sim.scenarios import SCENARIOS
from tracker.sim.truth import truth_paths

HERE = Path(__file__).resolve().parent
CRF = 26  # keeps the whole set well under 40 MB


def make(name: str, seed: int = 0, folder: Path = HERE) -> dict:
    final = folder / f"{name}.mp4"
    tmp = folder / f".{name}.partial.mp4"
    bar = tqdm(unit="frame", desc=name, leave=False)

    def progress(done: int, total: int) -> None:
        bar.total = total
        bar.update(done - bar.n)

    try:
        meta = make_clip(name, tmp, seed=seed, progress=progress, crf=CRF)
    finally:
        bar.close()
    for src, dst in zip((tmp, *truth_paths(tmp)), (final, *truth_paths(final))):
        os.replace(src, dst)
    # the truth names its files; point it at the final names
    json_path = truth_paths(final)[0]
    json_path.write_text(json_path.read_text().replace(f".{name}.partial", name))
    return meta


def clip_table(folder: Path = HERE) -> str:
    """A Markdown table of the clips in ``folder``, from their truth files."""
    rows = ["| clip | camera | size | fps | frames | MB | final score | what it shows |",
            "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for json_path in sorted(folder.glob("[!.]*.truth.json")):
        meta = json.loads(json_path.read_text())
        name = json_path.name.removesuffix(".truth.json")
        sc = {**SCENARIOS, **POOL_SCENARIOS}.get(meta["scenario"])
        cam = sc.camera if sc else "?"
        if sc and sc.camera == "overhead":
            cam = f"overhead {sc.height_mm / 1000:g} m" + (f", tilt {sc.tilt_deg:g} deg"
                                                          if sc.tilt_deg else "")
        w, h = meta["image_size"]
        mb = (folder / meta["video"]).stat().st_size / 1e6
        rows.append(f"| `{name}` | {cam} | {w}x{h} | {meta['fps']:g} | {meta['frames']} | "
                    f"{mb:.1f} | {meta['final_score']} | {meta['description']} |")
    return "\n".join(rows)


def update_readme(folder: Path = HERE) -> None:
    readme = folder / "README.md"
    text = readme.read_text()
    start, end = "<!-- clips -->", "<!-- /clips -->"
    head, _, rest = text.partition(start)
    _, _, tail = rest.partition(end)
    readme.write_text(f"{head}{start}\n{clip_table(folder)}\n{end}{tail}")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("names", nargs="*", help=f"scenarios (default: all of {', '.join(SCENARIOS)})")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    names = args.names or list(SCENARIOS)
    unknown = [n for n in names if n not in SCENARIOS]
    if unknown:
        p.error(f"unknown scenario(s): {', '.join(unknown)}")
    make_all(names, args.seed)
    return 0


def make_all(names, seed: int = 0, folder: Path = HERE) -> None:
    """Makes the clips ``names`` in ``folder``, a line on each, then the sample folder's size
    and the README's table of ``folder``."""
    print(f"{'clip':<18} {'frames':>6} {'size':>10} {'MB':>6} {'seconds':>8}  final score")
    for name in names:
        t0 = time.perf_counter()
        meta = make(name, seed, folder)
        mb = (folder / f"{name}.mp4").stat().st_size / 1e6
        w, h = meta["image_size"]
        print(f"{name:<18} {meta['frames']:>6} {f'{w}x{h}':>10} {mb:>6.2f} "
              f"{time.perf_counter() - t0:>8.1f}  {meta['final_score']}", flush=True)
    total = sum(f.stat().st_size for f in HERE.rglob("*") if f.is_file()) / 1e6
    print(f"sample_videos/ now holds {total:.1f} MB")
    update_readme(folder)


if __name__ == "__main__":
    sys.exit(main())
