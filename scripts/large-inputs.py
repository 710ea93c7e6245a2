#!/usr/bin/env python3
"""Large-input figures for docs/BENCHMARKS.md: threads, file throughput and streaming memory.

Usage: python3 scripts/large-inputs.py [--mib 512] [--stream-gib 2] [--runs 5] [--dir target/large]
                                      [--json FILE]

Builds the release CLI and the `large_input` example, writes the benchmarks' access-log
workload to DIR/access.log (MIB MiB) and its rfc3986 encoding to DIR/access.enc, afresh and in
large writes (the kernel then caches them in large folios, as it does a file a program has just
written), and copies of both written 4 KiB at a time (`*.4k`, cached in 4 KiB pages, which
cost the kernel about as much to map as the encoder takes to encode them), then measures:

1. `pctenc encode -j 1` and `-j 2` (line mode, the default; and --binary) of the file, and
   `pctenc decode -j 1` / `-j 2` of its encoding, stdout to /dev/null: RUNS runs each, -j 1
   and -j 2 taking turns; the median and best wall time as input GB/s, and the ratios of the
   medians and of the bests (a shared machine's other work slows the two-thread runs more,
   which the bests leave out);
2. the library on the same bytes in memory (`large_input in-memory`: best of 5): `encode_vec`
   / `decode_vec`, the one-pass `feed_to` path the CLI runs, and the kernel's cost of mapping
   the file alone, against which the CLI's best file throughput is compared;
3. STREAM GiB pushed through a pipe into `pctenc encode` (and `decode`), whose stdout is a pipe
   drained by this script: peak resident memory of the pctenc process (from wait4), and
   throughput.

Prints a Markdown report on stdout; with --json, also writes the figures to FILE, which
`scripts/bench-report.py` turns into the large-input section of docs/BENCHMARKS.md. Figures depend on the machine and its load: run it on an
otherwise idle machine.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PCTENC = os.path.join(ROOT, "target", "release", "pctenc")
EXAMPLE = os.path.join(ROOT, "target", "release", "examples", "large_input")
GNU_TIME = "/usr/bin/time"  # Debian package `time`


def build():
    subprocess.run(["cargo", "build", "--release", "--bin", "pctenc", "--example", "large_input"],
                   cwd=ROOT, check=True)


def timed(cmd, stdin_path=None):
    """Wall time of one run of `cmd`, stdout to /dev/null; fails loudly on a non-zero exit."""
    with open(os.devnull, "wb") as null:
        stdin = open(stdin_path, "rb") if stdin_path else subprocess.DEVNULL
        start = time.perf_counter()
        proc = subprocess.run(cmd, stdin=stdin, stdout=null, stderr=subprocess.PIPE)
        elapsed = time.perf_counter() - start
        if stdin_path:
            stdin.close()
    if proc.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed: {proc.stderr.decode(errors='replace')}")
    return elapsed


def interleaved(cmds, size, runs):
    """Runs each command of `cmds` `runs` times, taking turns (so that a busy moment of a
    shared machine hits all of them alike). Returns per command (median GB/s, best GB/s)."""
    times = [[] for _ in cmds]
    for _ in range(runs):
        for i, cmd in enumerate(cmds):
            times[i].append(timed(cmd))
    return [(size / statistics.median(t) / 1e9, size / min(t) / 1e9) for t in times]


def in_memory(path, op, threads=None):
    cmd = [EXAMPLE, "in-memory", path, op] + ([str(threads)] if threads else [])
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return float(out.split()[1])


def stream(command, source, total):
    """Pushes `source` repeated to `total` bytes (by `cat`, from a pipe) through
    `pctenc <command>`, whose stdout is a pipe drained by another `cat`. Returns (peak RSS of
    the pctenc process in MiB, input GB/s, bytes sent).

    The peak RSS comes from GNU time, which forks pctenc from a small process: a process
    forked from this Python interpreter would count the interpreter's memory as its own
    (Linux keeps the high-water mark across exec)."""
    repeats = max(1, round(total / os.path.getsize(source)))
    rss_file = os.path.join(os.path.dirname(source), "rss.txt")
    feeder = subprocess.Popen(["sh", "-c", f'for i in $(seq {repeats}); do cat "$0"; done', source],
                              stdout=subprocess.PIPE)
    start = time.perf_counter()
    proc = subprocess.Popen([GNU_TIME, "-f", "%M", "-o", rss_file, PCTENC] + command,
                            stdin=feeder.stdout, stdout=subprocess.PIPE)
    sink = subprocess.Popen(["cat"], stdin=proc.stdout, stdout=subprocess.DEVNULL)
    feeder.stdout.close()
    proc.stdout.close()
    status = proc.wait()
    elapsed = time.perf_counter() - start
    feeder.wait()
    sink.wait()
    if status != 0:
        sys.exit(f"pctenc {' '.join(command)} from a pipe failed with status {status}")
    with open(rss_file) as f:
        rss_kib = int(f.read().split()[-1])
    sent = repeats * os.path.getsize(source)
    return rss_kib / 1024, sent / elapsed / 1e9, sent


def cut_at_line(path, size):
    """The first `size` bytes of `path`, cut back to the last line end."""
    with open(path, "rb") as f:
        data = f.read(size)
    return data[: data.rfind(b"\n") + 1]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mib", type=int, default=512)
    ap.add_argument("--stream-gib", type=float, default=2)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--dir", default=os.path.join(ROOT, "target", "large"))
    ap.add_argument("--json", default=None, help="also write the figures to this file")
    ap.add_argument("--max-rss-mib", type=float, default=None,
                    help="fail when the pipe-to-pipe peak RSS exceeds this (for CI's smoke run)")
    args = ap.parse_args()

    if not os.access(GNU_TIME, os.X_OK):
        sys.exit(f"{GNU_TIME} (GNU time, Debian package `time`) is needed to measure peak memory")
    build()
    os.makedirs(args.dir, exist_ok=True)
    log = os.path.join(args.dir, "access.log")
    enc = os.path.join(args.dir, "access.enc")
    # Written afresh in large writes, so that the kernel caches them in large folios, as it
    # does a file a program has just written; copies written 4 KiB at a time give the other
    # case, a file cached in 4 KiB pages, where mapping costs about as much as encoding.
    for path in (log, enc):
        if os.path.exists(path):
            os.remove(path)
    subprocess.run([EXAMPLE, "gen-log", log, str(args.mib)], check=True)
    subprocess.run([EXAMPLE, "encode-file", log, enc], check=True)
    small = {}
    for path in (log, enc):
        small[path] = path + ".4k"
        subprocess.run(["dd", f"if={path}", f"of={small[path]}", "bs=4k", "status=none"], check=True)
    # Flush the new files to disk first: the kernel's writeback threads would otherwise
    # take a core from the runs below, the two-thread ones most.
    os.sync()
    size, enc_size = os.path.getsize(log), os.path.getsize(enc)
    info = subprocess.run([PCTENC, "info"], capture_output=True, text=True).stdout
    backend = next((l.split(":", 1)[1].strip() for l in info.splitlines() if l.startswith("backend chosen")), "?")

    print(f"Input: the access-log workload, {size >> 20} MiB ({enc_size >> 20} MiB encoded); "
          f"backend: {backend}; {args.runs} runs of each command, -j 1 and -j 2 taking turns; "
          f"stdout to /dev/null. GB/s of input, median (best).\n")
    print("| command | -j 1 GB/s | -j 2 GB/s | -j 2 / -j 1: medians | bests |")
    print("|---|---:|---:|---:|---:|")
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                            text=True).stdout.strip()
    report = {"meta": {"mib": size >> 20, "enc_mib": enc_size >> 20, "backend": backend,
                       "runs": args.runs, "stream_gib": args.stream_gib, "commit": commit},
              "cli": [], "file": [], "pipe": []}
    cli = {}
    for name, cmd, path, n in [
        ("encode (lines)", ["encode"], log, size),
        ("encode --binary", ["encode", "--binary"], log, size),
        ("decode", ["decode"], enc, enc_size),
    ]:
        j1, j2 = interleaved([[PCTENC] + cmd + ["-j", str(j), path] for j in (1, 2)], n, args.runs)
        cli[name] = (j1, j2)
        report["cli"].append({"command": " ".join(cmd), "j1": j1, "j2": j2})
        print(f"| `pctenc {' '.join(cmd)}` | {j1[0]:.2f} ({j1[1]:.2f}) | {j2[0]:.2f} ({j2[1]:.2f}) "
              f"| {j2[0] / j1[0]:.2f}x | {j2[1] / j1[1]:.2f}x |")

    print("\nThe same bytes, best of 5 (library) and best of the runs above (CLI), one thread. "
          "`encode_vec`/`decode_vec` is the library's in-memory call; `feed_to` is the one-pass "
          "path the CLI runs, into `io::sink()`; `map` is the kernel's part alone: mapping the "
          "file and entering its pages into the page table. Then the same for copies of the "
          "files written 4 KiB at a time (`dd bs=4k`), which the kernel caches in 4 KiB pages.\n")
    print("| operation | file cached in | library `*_vec` | library `feed_to` | `map` alone "
          "| CLI -j 1 on the file | CLI / `*_vec` |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for name, cmd, op, path in [("encode --binary", ["encode", "--binary"], "encode", log),
                                ("encode (lines)", ["encode"], "encode", log),
                                ("decode", ["decode"], "decode", enc)]:
        lib = in_memory(path, op)
        one_pass = in_memory(path, op + "-to")
        for state, file, j1 in [
            ("large folios", path, cli[name][0][1]),
            ("4 KiB pages", small[path], None),
        ]:
            mapping = in_memory(file, "map")
            if j1 is None:
                n = os.path.getsize(file)
                j1 = interleaved([[PCTENC] + cmd + ["-j", "1", file]], n, args.runs)[0][1]
            report["file"].append({"command": name, "cached_in": state, "vec": lib,
                                   "feed_to": one_pass, "map": mapping, "cli": j1})
            print(f"| `pctenc {name}` | {state} | {lib:.2f} GB/s | {one_pass:.2f} GB/s "
                  f"| {mapping:.2f} GB/s | {j1:.2f} GB/s | {100 * j1 / lib:.0f}% |")
    lib2 = in_memory(log, "encode", 2)
    report["par_encode_vec_2t"] = lib2
    print(f"\nLibrary `par_encode_vec` on 2 threads, same file in memory, best of 5: {lib2:.2f} GB/s.")

    chunk = os.path.join(args.dir, "block.log")
    with open(chunk, "wb") as f:
        f.write(cut_at_line(log, 8 << 20))
    enc_chunk = os.path.join(args.dir, "block.enc")
    with open(chunk, "rb") as i, open(enc_chunk, "wb") as o:
        subprocess.run([PCTENC, "encode", "--binary"], stdin=i, stdout=o, check=True)
    total = int(args.stream_gib * (1 << 30))
    print(f"\n| pipe to pipe, {args.stream_gib:g} GiB in | peak RSS | GB/s |")
    print("|---|---:|---:|")
    for name, cmd, src in [("encode", ["encode"], chunk), ("decode", ["decode"], enc_chunk)]:
        rss, gbps, sent = stream(cmd, src, total)
        print(f"| `pctenc {name}` | {rss:.1f} MiB | {gbps:.2f} |")
        report["pipe"].append({"command": name, "rss_mib": rss, "gbps": gbps})
        if args.max_rss_mib is not None and rss > args.max_rss_mib:
            sys.exit(f"pctenc {name} from a pipe peaked at {rss:.1f} MiB, over {args.max_rss_mib} MiB")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
