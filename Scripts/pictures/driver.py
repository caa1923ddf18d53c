"""The command line of the picture scripts: render, write what changed, or --check.

run() is the whole command line of Scripts/render-road-pictures and
Scripts/render-scenarios: it reads the arguments, renders every picture of the
script's PICTURES table at every size (in worker processes, the big sizes
first), and hands the PNGs to sync().  sync() writes the PNGs that changed, or
with --check reports every PNG that is missing, differs from a fresh render
or is extra; Scripts/render-category-pictures uses it directly.

The bytes of a picture do not depend on the number of workers or the order in
which they finish.

Standard library only.
"""

import multiprocessing
import os
import sys
import time

from .raster import Canvas, encode_png

_DRAW = {}          # id -> drawing function of the script running; read by the workers


def _render(job):
    """(id, suffix, size) -> (relative path, png bytes); run in worker processes."""
    pid, suffix, size = job
    canvas = Canvas(size)
    canvas.paint(_DRAW[pid]())
    return f"{pid}{suffix}.png", encode_png(canvas.rgb(), size, size)


def rendered(ids, sizes, images, workers):
    """(path, png bytes) of every id at every (suffix, size), the paths under `images`."""
    todo = [(pid, suffix, size) for pid in ids for suffix, size in sizes]
    if workers > 1:
        try:
            ctx = multiprocessing.get_context("fork")
        except ValueError:
            ctx = None
        if ctx is not None:
            with ctx.Pool(workers) as pool:
                # big pictures first keeps both workers busy to the end; order of
                # the results does not matter for the bytes written
                for rel, png in pool.imap_unordered(_render, sorted(todo, key=lambda j: -j[2])):
                    yield images / rel, png
            return
    for job in todo:
        rel, png = _render(job)
        yield images / rel, png


def run(argv, name, usage, pictures, sizes, root, images, folders, what):
    """The command line of a picture script; returns the exit status.

    name     -- the script's name, for messages (render-scenarios)
    usage    -- printed on a bad argument (the script's docstring)
    pictures -- the PICTURES table: (id, drawing function) pairs; an id is
                "<folder>/<name>" and its PNGs are images/<id><suffix>.png
    sizes    -- (suffix, pixels) of every picture: (("", 160), ("@2x", 320), ...)
    folders  -- the folders under `images` the script owns (--check: a PNG there
                that no id renders is extra)
    what     -- what an id is called in messages ("scenario id")
    """
    _DRAW.clear()
    _DRAW.update(pictures)
    args = argv[1:]
    check = False
    workers = min(os.cpu_count() or 1, 4)
    ids = []
    k = 0
    while k < len(args):
        a = args[k]
        if a == "--check":
            check = True
        elif a in ("-j", "--jobs") and k + 1 < len(args) and args[k + 1].isdigit():
            workers = max(1, int(args[k + 1]))
            k += 1
        elif a in _DRAW:
            ids.append(a)
        else:
            print(usage.strip(), file=sys.stderr)
            if not a.startswith("-"):
                print(f"\nunknown picture id: {a}", file=sys.stderr)
            return 2
        k += 1
    if ids and check:
        print("--check takes no ids: it checks every picture", file=sys.stderr)
        return 2
    start = time.monotonic()
    if ids:
        n = 0
        for path, png in rendered(ids, sizes, images, workers):
            path.parent.mkdir(parents=True, exist_ok=True)
            if not path.exists() or path.read_bytes() != png:
                path.write_bytes(png)
            n += 1
        print(f"{name}: {n} images of {len(ids)} id(s) ({time.monotonic() - start:.1f} s)")
        return 0
    return sync(name, rendered([pid for pid, _ in pictures], sizes, images, workers), root,
                [images / f for f in folders], check, lambda: time.monotonic() - start, what)


def sync(name, images, root, folders, check, elapsed, extra_what):
    """Write the PNGs that changed, or (check) report what is missing, differs or extra.

    images  -- iterable of (path, png bytes), every picture the script renders
    folders -- the folders the script owns: a PNG there that it does not render is extra
    elapsed -- a function giving the seconds since the start, for the summary line
    Returns the exit status.
    """
    seen = set()
    problems = []
    written = 0
    for path, png in images:
        seen.add(path)
        old = path.read_bytes() if path.exists() else None
        if old == png:
            continue
        rel = path.relative_to(root)
        if check:
            problems.append(f"{'missing' if old is None else 'differs'}: {rel}")
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(png)
            written += 1
    stale = []
    for folder in folders:
        if folder.exists():
            stale += [p for p in folder.glob("*.png") if p not in seen]
    for p in sorted(stale):
        msg = f"extra (no {extra_what} renders it): {p.relative_to(root)}"
        if check:
            problems.append(msg)
        else:
            print("warning: " + msg, file=sys.stderr)
    if check:
        if problems:
            print("\n".join(problems), file=sys.stderr)
            print(f"{name} --check: {len(problems)} problem(s); "
                  f"run Scripts/{name} and commit the result", file=sys.stderr)
            return 1
        print(f"{name} --check: {len(seen)} images up to date ({elapsed():.1f} s)")
        return 0
    print(f"{name}: {len(seen)} images, {written} written ({elapsed():.1f} s)")
    return 0
