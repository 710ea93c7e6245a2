#!/usr/bin/env python3
"""The checksums of a build-cache entry (scripts/cache.sh).

    cache-manifest.py write ENTRY   # after a run: .cache/manifest, a line per file
    cache-manifest.py check ENTRY   # before the next: exit 1 naming a file that changed

A line holds a file's SHA-1, size, modification time (ns) and path. `check` looks at every
file whose modification time is still the one recorded: its size and checksum must be too.
A file written again since (by cargo or rustc, which replace the files they own, and
rebuild an output that is missing) is theirs to judge, and so is a missing one. What is
left is damage with the time unchanged: a disk error, a file cut short, a bit flipped.
"""
import hashlib
import os
import sys
from concurrent.futures import ThreadPoolExecutor

SKIP_DIRS = {".cache", "incremental"}


def files(entry):
    for base, dirs, names in os.walk(entry):
        dirs[:] = [d for d in dirs if d not in SKIP_DIRS]
        for name in names:
            path = os.path.join(base, name)
            if os.path.isfile(path) and not os.path.islink(path):
                yield os.path.relpath(path, entry)


def sha1(path):
    h = hashlib.sha1()
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()


def record(entry, rel):
    path = os.path.join(entry, rel)
    st = os.stat(path)
    return f"{sha1(path)} {st.st_size} {st.st_mtime_ns} {rel}"


def write(entry):
    with ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        lines = list(pool.map(lambda rel: record(entry, rel), sorted(files(entry))))
    tmp = os.path.join(entry, ".cache", "manifest.new")
    with open(tmp, "w") as f:
        f.write("\n".join(lines) + "\n")
    os.replace(tmp, os.path.join(entry, ".cache", "manifest"))
    print(len(lines))


def check_one(entry, line):
    digest, size, mtime, rel = line.split(" ", 3)
    path = os.path.join(entry, rel)
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    if st.st_mtime_ns != int(mtime):
        return None
    if st.st_size != int(size):
        return f"{rel}: {st.st_size} bytes, sealed with {size}"
    try:
        if sha1(path) != digest:
            return f"{rel}: its contents changed"
    except OSError as e:
        return f"{rel}: {e.strerror}"
    return None


def check(entry):
    try:
        with open(os.path.join(entry, ".cache", "manifest")) as f:
            lines = f.read().splitlines()
    except FileNotFoundError:
        print("no manifest")
        return 1
    with ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        for problem in pool.map(lambda line: check_one(entry, line), lines):
            if problem:
                print(problem)
                return 1
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("write", "check"):
        sys.exit(__doc__)
    sys.exit(write(sys.argv[2]) if sys.argv[1] == "write" else check(sys.argv[2]))
