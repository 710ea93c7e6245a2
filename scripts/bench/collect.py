"""The collector of the benchmark report: what `scripts/bench.sh` records while it runs.

- `record_machine`: the machine, before a run (`machine.json`), or the run of one group
  (its entry in `runs.json`);
- `collect`: the median of each criterion function -> `criterion.json` (with a group, that
  group's records alone are replaced);
- `collect_short`: the medians of `benches/short.rs` -> `short.json`;
- `collect_charset`: one round of medians of `benches/charset.rs`, appended to
  `charset.json`.

Everything here writes to `benches/results/`; nothing here reads it back to write the page
(that is `render.py`).
"""

import datetime
import json
import os
import platform
import subprocess
import sys

from .common import GROUPS, ROOT


# ---------------------------------------------------------------------------------------
# The machine


def run(cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return ""


def cpuinfo_field(name):
    try:
        for line in open("/proc/cpuinfo"):
            if line.split(":")[0].strip() == name:
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return ""


def record_machine(results_dir, group=None):
    subprocess.run(["cargo", "build", "--release", "--quiet", "--bin", "pctenc"], cwd=ROOT, check=True)
    info = run([str(ROOT / "target" / "release" / "pctenc"), "info"])
    fields = dict(line.split(":", 1) for line in info.splitlines() if ":" in line)
    mem_kib = 0
    try:
        mem_kib = int(next(l.split()[1] for l in open("/proc/meminfo") if l.startswith("MemTotal")))
    except (OSError, StopIteration):
        pass
    machine = {
        "date": datetime.date.today().isoformat(),
        "commit": run(["git", "rev-parse", "--short", "HEAD"]),
        # Uncommitted changes to what is measured (docs and scripts do not count).
        "dirty": bool(run(["git", "status", "--porcelain", "--", "src", "benches", "examples",
                           "Cargo.toml", "Cargo.lock"])),
        "cpu": cpuinfo_field("model name") or platform.processor(),
        "cpu_family_model": f"{cpuinfo_field('cpu family')}/{cpuinfo_field('model')}".strip("/"),
        "cores": os.cpu_count(),
        "memory_gib": round(mem_kib / (1 << 20)),
        "caches": run(["sh", "-c", "lscpu | grep -E '^L[23] ' | sed 's/  */ /g'"]).splitlines(),
        "os": f"{platform.system()} {platform.release()}",
        "rustc": run(["rustc", "-V"]),
        "cpu_features": fields.get("cpu features found", "").strip(),
        "backends": fields.get("backends available", "").strip(),
        "detected": fields.get("backend detected", "").strip(),
    }
    results_dir.mkdir(parents=True, exist_ok=True)
    if group:
        runs_path = results_dir / "runs.json"
        runs = json.loads(runs_path.read_text()) if runs_path.exists() else {}
        runs[group] = machine
        runs_path.write_text(json.dumps(runs, indent=2, sort_keys=True) + "\n")
        print(f"the run of `{group}` -> {runs_path}")
    else:
        (results_dir / "machine.json").write_text(json.dumps(machine, indent=2) + "\n")
        print(json.dumps(machine, indent=2))


def charset_machine():
    return {"date": datetime.date.today().isoformat(), "commit": run(["git", "rev-parse", "--short", "HEAD"]),
            "cpu": cpuinfo_field("model name") or platform.processor(),
            "cpu_family_model": f"{cpuinfo_field('cpu family')}/{cpuinfo_field('model')}".strip("/"),
            "rustc": run(["rustc", "-V"])}


# ---------------------------------------------------------------------------------------
# Criterion's results


def collect(root, out, group=None):
    """Criterion's JSON files -> one sorted list of {group, function, bytes, median_ns, ...}.
    With `group`, only that group's records are replaced; the others stay as they were."""
    records = []
    for bench in root.glob("**/new/benchmark.json"):
        meta = json.loads(bench.read_text())
        est = json.loads((bench.parent / "estimates.json").read_text())
        if len(meta["group_id"].split("/")) != 3 or not meta.get("throughput"):
            continue
        median = est["median"]
        records.append({
            "group": meta["group_id"],
            "function": meta["function_id"],
            "bytes": list(meta["throughput"].values())[0],
            "median_ns": round(median["point_estimate"], 3),
            "median_ci_ns": [round(median["confidence_interval"]["lower_bound"], 3),
                             round(median["confidence_interval"]["upper_bound"], 3)],
        })
    if group:
        prefixes = GROUPS[group][1]
        records = [r for r in records if r["group"].startswith(prefixes)]
    if not records:
        sys.exit(f"no criterion results{' of ' + group if group else ''} under {root}")
    if group and out.exists():
        records += [r for r in json.loads(out.read_text()) if not r["group"].startswith(prefixes)]
    records.sort(key=lambda r: (r["group"].split("/")[0], int(r["group"].split("/")[2]),
                                r["group"].split("/")[1], r["function"]))
    out.write_text(json.dumps(records, indent=1) + "\n")
    print(f"{len(records)} results -> {out}")


def collect_short(root, out):
    """Criterion's results of benches/short.rs -> a sorted list of {group, function, median_ns}."""
    records = []
    for bench in root.glob("short-*/*/new/benchmark.json"):
        meta = json.loads(bench.read_text())
        median = json.loads((bench.parent / "estimates.json").read_text())["median"]
        records.append({"group": meta["group_id"], "function": meta["function_id"],
                        "median_ns": round(median["point_estimate"], 3),
                        "median_ci_ns": [round(median["confidence_interval"]["lower_bound"], 3),
                                         round(median["confidence_interval"]["upper_bound"], 3)]})
    if not records:
        sys.exit(f"no results of benches/short.rs under {root}")
    records.sort(key=lambda r: (r["group"].split("/")[0], r["group"].split("/")[1],
                                int(r["group"].split("/")[2]), r["function"]))
    out.write_text(json.dumps(records, indent=1) + "\n")
    print(f"{len(records)} results -> {out}")


def collect_charset(root, out, machine):
    """Criterion's results of benches/charset.rs -> `charset.json`: one round of medians per
    call, appended to the rounds already there unless this is the first (`--round 1`)."""
    records = {}
    for bench in root.glob("charset-*/*/new/benchmark.json"):
        meta = json.loads(bench.read_text())
        median = json.loads((bench.parent / "estimates.json").read_text())["median"]
        records[f"{meta['group_id']}/{meta['function_id']}"] = {
            "bytes": list(meta["throughput"].values())[0], "median_ns": round(median["point_estimate"], 1)}
    if not records:
        sys.exit(f"no results of benches/charset.rs under {root}")
    data = json.loads(out.read_text()) if out.exists() and machine is None else {"rounds": []}
    if machine is not None:
        data["machine"] = machine
    data["rounds"].append(records)
    out.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    print(f"{len(records)} results, round {len(data['rounds'])} -> {out}")
