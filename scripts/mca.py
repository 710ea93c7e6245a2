#!/usr/bin/env python3
"""A static estimate of the block loops' speed: llvm-mca on the encoder's and decoder's loop
bodies, NEON (aarch64) and AVX2 (x86_64), written into docs/ALGORITHMS.md.

    python3 scripts/mca.py            # build, estimate, rewrite the table in ALGORITHMS.md
    python3 scripts/mca.py --print    # the table on stdout, ALGORITHMS.md left as it is
    python3 scripts/mca.py --show encode-neon   # also the loop body's instructions
    python3 scripts/mca.py --base REV # "before": the kernel files of REV (default eb38289)
    bash scripts/bench.sh mca         # the same as the first

Why not only benchmarks: this machine has no aarch64 CPU, and a model says which pipe a loop
waits on. It is an estimate, not a measurement: llvm-mca knows neither the caches nor the
branch predictor nor the store buffer, and each CPU's model is only as good as LLVM's
scheduling tables for it (LLVM 14, Debian's `llvm`, uses the Cortex-A57 model for every
Neoverse core and the Cyclone model for Apple's: the table names the model each `-mcpu`
gets). Where a newer `llvm-mca-N` is installed, the newest is taken (`--mca` to choose).

How the loop bodies are found. The library is built with `--cfg pctenc_mca` (no other build
sets it), for `aarch64-unknown-linux-gnu` and `x86_64-unknown-linux-gnu`, as assembly. Under
that cfg, `src/simd/generic/mod.rs`'s `mca!` puts an `LLVM-MCA-BEGIN name` comment at the
top of the encoder's and the decoder's block loops and an `LLVM-MCA-END name` comment where a
block with escapes has been written, and each backend (`backend!` in `src/simd/entry.rs`)
has both loops compiled for one set (`COMPONENT`, no space as `+`) and the strict rules,
as the functions `pctenc_mca_{encode,decode}_KERNEL` (`Neon`, `Avx2`), so that the branches
on those options fold away.
The markers are `asm!` comments with no instructions, which LLVM keeps in their place
among the loop's side effects: the estimate's loop may be laid out and scheduled a little
differently from the shipped one.

The text between the markers is not the loop body: LLVM lays out the blocks as it likes, and
the other paths (a block to copy, the end of the output) sit among them. So this script
follows the function's branches from BEGIN. Of the paths to an END that call no function, it
takes the one with the most vector instructions (the block with escapes that takes the most
work: on NEON a mixed block, not one made of escapes only, which `st3` writes) and of those
the shortest (no detour through a test the block does not need), then the shortest path from
that END back to BEGIN (the loop's step and test). Those instructions, branches included, in
that order, are one iteration for llvm-mca (`-iterations=100`); cycles per iteration are its
total cycles over 100, scaled to 64 input bytes (NEON blocks are 16 bytes, AVX2 blocks 32).
`--show` prints them, to check the path against the assembly.

Before and after: the table's "before" column is the same estimate of the committed tree with
the kernels' files (`KERNEL_FILES`) of an earlier commit (`--base`; by default the one
before issue 50 changed the AVX2 encoder), built in a target folder of its own. The generic
loops and the markers stay the current ones, so the column weighs the kernels' changes
alone, and needs kernels that still fit the current traits.
"""
import argparse
import collections
import datetime
import glob
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap

REPO = pathlib.Path(__file__).resolve().parent.parent
DOC = REPO / "docs" / "ALGORITHMS.md"
BEGIN, END = "<!-- mca: begin -->", "<!-- mca: end -->"

# (kernel, rust target, llvm-mca triple, block bytes, CPUs asked for)
BACKENDS = [
    ("Neon", "aarch64-unknown-linux-gnu", "aarch64", 16, ["neoverse-n1", "neoverse-v2", "apple-m1"]),
    ("Avx2", "x86_64-unknown-linux-gnu", "x86_64", 32, ["znver3", "znver4"]),
]
LOOPS = ["encode", "decode"]
# The kernels' files: the "before" column takes these from `--base`, the rest from HEAD.
KERNEL_FILES = ["src/simd/x86", "src/simd/aarch64", "src/simd/tables.rs"]
# The kernels before issue 50 changed them (the AVX2 encoder's eight-byte groups, c125b90,
# and its single movemask, 864a455), and NEON's encoder before its eight-byte groups (c682ce5);
# the decoders are as they were then.
BASE = "eb38289"
ITERATIONS = 100


def find_mca():
    """The newest `llvm-mca-N` on PATH, else `llvm-mca`."""
    found = []
    for d in os.environ.get("PATH", "").split(os.pathsep):
        for path in glob.glob(os.path.join(d, "llvm-mca-*")):
            m = re.fullmatch(r"llvm-mca-(\d+)", os.path.basename(path))
            if m and os.access(path, os.X_OK):
                found.append((int(m.group(1)), path))
    if found:
        return max(found)[1]
    return shutil.which("llvm-mca") or sys.exit("mca.py: no llvm-mca (Debian: apt-get install llvm)")


def build(root, target, target_dir=None):
    """Builds the assembly of the library at `root` for `target` with the markers; its path."""
    env = dict(os.environ, RUSTFLAGS="--cfg pctenc_mca")
    if target_dir:
        env["CARGO_TARGET_DIR"] = str(target_dir)
    cmd = ["cargo", "rustc", "-q", "-p", "pctenc", "--lib", "--release", "--target", target,
           "--message-format=json", "--", "--emit", "asm", "-C", "codegen-units=1"]
    res = subprocess.run(cmd, cwd=root, env=env, check=True, stdout=subprocess.PIPE, text=True)
    # The library's metadata (`deps/libpctenc-HASH.rmeta`) names the assembly: `deps/pctenc-HASH.s`.
    for line in res.stdout.splitlines():
        msg = json.loads(line)
        if msg.get("reason") == "compiler-artifact" and msg["target"]["name"] == "pctenc":
            for name in msg["filenames"]:
                m = re.fullmatch(r"(.*)/lib(pctenc-[0-9a-f]+)\.r(?:lib|meta)", name)
                if m and os.path.exists(f"{m.group(1)}/{m.group(2)}.s"):
                    return f"{m.group(1)}/{m.group(2)}.s"
    sys.exit(f"mca.py: cargo built no assembly of pctenc for {target}")


def function(asm, name):
    """The lines of function `name` in the assembly text."""
    lines = asm.splitlines()
    try:
        start = lines.index(f"{name}:")
    except ValueError:
        sys.exit(f"mca.py: no function {name} in the assembly (built without --cfg pctenc_mca?)")
    out = []
    for line in lines[start + 1:]:
        if line.startswith(".Lfunc_end"):
            break
        out.append(line)
    return out


LABEL = re.compile(r"^([.\w$]+):")


def parse(lines, arch):
    """Instructions (mnemonic, text), labels (name -> index) and markers (index, kind, name):
    an index is where the next instruction goes."""
    insts, labels, markers = [], {}, []
    comment = "//" if arch == "aarch64" else "#"
    for raw in lines:
        line = raw.strip()
        m = re.search(r"LLVM-MCA-(BEGIN|END)\s+(\S+)", line)
        if m:
            markers.append((len(insts), m.group(1), m.group(2)))
            continue
        m = LABEL.match(line)
        if m:
            labels[m.group(1)] = len(insts)
            continue
        if not line or line.startswith(comment) or line.startswith("."):
            continue
        line = line.split(comment)[0].strip()
        insts.append((line.split()[0], line))
    return insts, labels, markers


def flow(mnemonic, text, arch):
    """(falls through, branch target or None, is a call) of one instruction."""
    ops = text.split(None, 1)[1] if " " in text or "\t" in text else ""
    last = ops.split(",")[-1].strip() if ops else ""
    if arch == "aarch64":
        if mnemonic == "ret" or mnemonic == "br":
            return False, None, False
        if mnemonic == "b":
            return False, last, False
        if mnemonic.startswith("b.") or mnemonic in ("cbz", "cbnz", "tbz", "tbnz"):
            return True, last, False
        return True, None, mnemonic in ("bl", "blr")
    if mnemonic.startswith("ret") or mnemonic == "ud2":
        return False, None, False
    if mnemonic == "jmp":
        return False, (last if last.startswith(".") else None), False
    if mnemonic.startswith("j"):
        return True, last, False
    return True, None, mnemonic.startswith("call")


def successors(insts, labels, i, arch):
    falls, target, _ = flow(*insts[i], arch)
    out = []
    if falls and i + 1 < len(insts):
        out.append(i + 1)
    if target is not None and target in labels:
        out.append(labels[target])
    return out


# An instruction that reads or writes a vector register.
VECTOR = {"aarch64": re.compile(r"\b(v\d+|[qdsbh]\d+)\b"), "x86_64": re.compile(r"%[xyz]mm\d+")}


def loop_body(insts, labels, markers, name, arch):
    """The instructions of one iteration: of the paths from BEGIN to an END that call no
    function, the one with the most vector instructions and of those the shortest; then the
    shortest path from that END back to BEGIN."""
    begins = [at for at, kind, n in markers if kind == "BEGIN" and n == name]
    ends = {at for at, kind, n in markers if kind == "END" and n == name}
    if len(begins) != 1 or not ends:
        sys.exit(f"mca.py: {name}: {len(begins)} BEGIN and {len(ends)} END markers, want 1 and 1 or more")
    begin = begins[0]
    calls = {i for i, inst in enumerate(insts) if flow(*inst, arch)[2]}
    vector = [bool(VECTOR[arch].search(text)) for _, text in insts]
    # The nodes are positions (instruction indices); an END marker at position `e` is reached
    # on the way from `e - 1` to `e`, i.e. when position `e` is entered in order. A path is
    # a list of positions.
    n = len(insts)
    succ = [successors(insts, labels, i, arch) for i in range(n)]
    # Positions from which an END is reachable without passing BEGIN or a call.
    pred = [[] for _ in range(n + 1)]
    for i in range(n):
        for j in succ[i]:
            pred[j].append(i)
    useful, stack = set(), []
    for e in ends:
        # A position `i` with `i + 1 == e` that falls through reaches the END.
        for i in pred[e]:
            if i + 1 == e and i not in useful and i not in calls:
                useful.add(i)
                stack.append(i)
    while stack:
        j = stack.pop()
        if j == begin:
            continue
        for i in pred[j]:
            if i not in useful and i not in calls:
                useful.add(i)
                stack.append(i)
    if begin not in useful:
        sys.exit(f"mca.py: {name}: no call-free path from BEGIN to END")
    best, count = None, 0

    def walk(i, path, seen):
        nonlocal best, count
        path.append(i)
        seen.add(i)
        for j in succ[i]:
            reached = j in ends and j == i + 1
            if reached:
                count += 1
                if count > 100000:
                    sys.exit(f"mca.py: {name}: too many paths from BEGIN to END")
                score = (sum(vector[p] for p in path), -len(path))
                if best is None or score > best[0]:
                    best = (score, list(path), j)
            # A path ends at the first END it passes, and never goes round the loop.
            if not reached and j in useful and j not in seen and j != begin:
                walk(j, path, seen)
        path.pop()
        seen.discard(i)

    sys.setrecursionlimit(100000)
    walk(begin, [], set())
    _, forward, end = best
    # Back to BEGIN, fewest instructions first (a breadth-first search).
    prev, queue = {end: None}, collections.deque([end])
    while queue:
        i = queue.popleft()
        if i == begin:
            break
        for j in succ[i] if i < n else []:
            if j not in prev:
                prev[j] = i
                queue.append(j)
    else:
        sys.exit(f"mca.py: {name}: no way back from END to BEGIN")
    back, i = [], prev[begin]
    while i is not None:
        back.append(i)
        i = prev[i]
    return [insts[i][1] for i in forward + back[::-1]]


def run_mca(mca, triple, cpu, body):
    """(instructions, total cycles, scheduling model's resource prefix) or the reason not."""
    res = subprocess.run([mca, f"-mtriple={triple}", f"-mcpu={cpu}", f"-iterations={ITERATIONS}"],
                         input="\n".join(body) + "\n", capture_output=True, text=True)
    if "is not a recognized processor" in res.stderr:
        return "not a processor this LLVM knows"
    if res.returncode != 0:
        return "llvm-mca failed: " + res.stderr.strip().splitlines()[0]
    insts = int(re.search(r"^Instructions:\s+(\d+)", res.stdout, re.M).group(1))
    cycles = int(re.search(r"^Total Cycles:\s+(\d+)", res.stdout, re.M).group(1))
    resources = re.search(r"^Resources:\n\[[\d.]+\]\s+- (\S+)", res.stdout, re.M)
    first = resources.group(1) if resources else "?"
    model = next((name for prefix, name in MODELS if first.startswith(prefix)), first)
    return insts // ITERATIONS, cycles / ITERATIONS, model


def fill(text):
    """`text` wrapped as the docs' prose is."""
    return textwrap.fill(text, width=92, break_on_hyphens=False)


# The scheduling model a CPU gets, from its first resource's name in llvm-mca's report.
MODELS = [("A57", "Cortex-A57"), ("Cy", "Cyclone"), ("N1", "Neoverse N1"), ("N2", "Neoverse N2"),
          ("V1", "Neoverse V1"), ("V2", "Neoverse V2"), ("Zn4", "Zen 4"), ("Zn3", "Zen 3"),
          ("Zn2", "Zen 2"), ("Zn", "Zen")]


def estimate(root, mca, show, target_dir=None):
    """{(loop, kernel, cpu): (model, instructions, cycles)} and the CPUs not estimated, for
    the library at `root` (built in `target_dir`, if given)."""
    got, missing = {}, set()
    for backend, target, triple, _, cpus in BACKENDS:
        print(f"mca.py: building {target} in {root}", file=sys.stderr)
        asm = pathlib.Path(build(root, target, target_dir)).read_text()
        for loop in LOOPS:
            symbol = f"pctenc_mca_{loop}_{backend}"
            insts, labels, markers = parse(function(asm, symbol), triple)
            body = loop_body(insts, labels, markers, loop, triple)
            if f"{loop}-{backend.lower()}" in show:
                print(f"## {loop}-{backend} ({len(body)} instructions)\n" + "\n".join(body) + "\n")
            for cpu in cpus:
                result = run_mca(mca, triple, cpu, body)
                if isinstance(result, str):
                    missing.add(f"`{cpu}` ({result})")
                    continue
                n, cycles, model = result
                got[loop, backend, cpu] = (model, n, cycles)
    return got, sorted(missing)


def base_tree(rev, into):
    """The committed tree with the kernels (`KERNEL_FILES`) of `rev`, written under `into`."""
    for tree, paths in (("HEAD", []), (rev, KERNEL_FILES)):
        archive = subprocess.run(["git", "archive", tree, "--", *paths], cwd=REPO, check=True,
                                 stdout=subprocess.PIPE).stdout
        subprocess.run(["tar", "-x", "-C", into], input=archive, check=True)


def git(*args):
    return subprocess.run(["git", *args], cwd=REPO, capture_output=True, text=True,
                          check=True).stdout.strip()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--print", action="store_true", help="print the table, do not write the doc")
    ap.add_argument("--show", action="append", default=[], metavar="LOOP-BACKEND",
                    help="print the loop body fed to llvm-mca, e.g. encode-avx2")
    ap.add_argument("--mca", help="the llvm-mca binary (default: the newest on PATH)")
    ap.add_argument("--base", default=BASE,
                    help=f"the commit whose kernel files give the 'before' column ({BASE}; 'none': no column)")
    args = ap.parse_args()
    mca = args.mca or find_mca()
    version = re.search(r"LLVM version (\S+)", subprocess.run([mca, "--version"], capture_output=True,
                                                              text=True).stdout).group(1)
    now, missing = estimate(REPO, mca, args.show)
    before, base = {}, None
    if args.base != "none":
        base = git("rev-parse", "--short", args.base)
        with tempfile.TemporaryDirectory(prefix="pctenc-mca-") as tmp:
            base_tree(base, tmp)
            # A target folder of its own: cargo would take the archive's old file times
            # for sources older than the current build's, and the library's for built.
            target_dir = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target")) / "mca-base"
            before, _ = estimate(tmp, mca, [], target_dir)
    # The commit the estimated sources are from: the last to change them, not HEAD, so that a
    # commit of the docs or the scripts leaves the table as it is.
    sources = ["src", "Cargo.toml", "Cargo.lock"]
    head = git("log", "-1", "--format=%h", "--", *sources)
    dirty = git("status", "--porcelain", "--", *sources)
    commit = f"{head}" + (" with uncommitted changes" if dirty else "")
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    text = (f"Static estimate, not a measurement: `llvm-mca` {version}, `-iterations={ITERATIONS}`, "
            f"on the loop body of a block with escapes (set `COMPONENT`, strict decoding), commit "
            f"{commit}, {date}.")
    if base:
        text += (f" Before: the same tree with the kernel files ({', '.join(f'`{p}`' for p in KERNEL_FILES)}) "
                 f"of commit {base}.")
    head_row = "| Loop | Kernel (block) | `-mcpu` | LLVM's model | Instructions per block | Cycles per block"
    head_row += " | Cycles per 64 B, before | Cycles per 64 B |" if base else " | Cycles per 64 B |"
    out = [fill(text + " Regenerate with `bash scripts/bench.sh mca`."), "", head_row,
           "|---|---|---|---|--:|--:|--:|" + ("--:|" if base else "")]
    for (loop, backend, cpu), (model, n, cycles) in now.items():
        block = next(b for k, _, _, b, _ in BACKENDS if k == backend)
        row = f"| {loop} | {backend.upper()} ({block} B) | `{cpu}` | {model} | {n} | {cycles:.1f} |"
        if base:
            old = before.get((loop, backend, cpu))
            row += f" {old[2] * 64 / block:.1f} |" if old else " - |"
        out.append(row + f" {cycles * 64 / block:.1f} |")
    if missing:
        out += ["", fill(f"Not estimated: {', '.join(missing)}.")]
    table = "\n".join(out)
    if args.print:
        print(table)
        return
    doc = DOC.read_text()
    if BEGIN not in doc or END not in doc:
        sys.exit(f"mca.py: {DOC} has no {BEGIN} ... {END}")
    before, rest = doc.split(BEGIN, 1)
    after = rest.split(END, 1)[1]
    DOC.write_text(f"{before}{BEGIN}\n{table}\n{END}{after}")
    print(table)


if __name__ == "__main__":
    main()
