//! `pctenc bench`: its records, its check of every backend against scalar, its inputs and
//! its errors. Every run has a tiny time budget, and no test looks at a figure's value: what
//! is tested is what was measured and how it is reported, never how fast.

use std::fs::File;
use std::process::Stdio;

use serde_json::Value;

use crate::run::{command, output_of, pctenc, pctenc_with};

/// A budget small enough for a test, in a debug build.
const QUICK: [&str; 2] = ["--seconds", "0.02"];

/// stderr without the warnings `bench` may give (a debug build, a busy CPU).
fn without_warnings(stderr: &[u8]) -> String {
    String::from_utf8_lossy(stderr)
        .lines()
        .filter(|l| !l.starts_with("pctenc: warning: "))
        .map(|l| format!("{l}\n"))
        .collect()
}

/// Runs `bench --json` with `args` (the quick budget added); returns its records.
fn records(args: &[&str]) -> Vec<Value> {
    let args: Vec<&str> = ["bench", "--json"].iter().chain(&QUICK).chain(args).copied().collect();
    let out = pctenc(&args, b"");
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(without_warnings(&out.stderr), "", "{args:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    text.lines().map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"))).collect()
}

/// The backends `pctenc info` says this CPU has.
fn available_backends() -> Vec<String> {
    let out = pctenc(&["info"], b"");
    let info = String::from_utf8(out.stdout).unwrap();
    let line = info.lines().find_map(|l| l.strip_prefix("backends available:")).expect("backends in info");
    line.split_whitespace().map(String::from).collect()
}

fn measurements(records: &[Value]) -> Vec<&Value> {
    records.iter().filter(|r| r["record"] == "measurement").collect()
}

#[test]
fn json_has_a_record_per_measurement() {
    let records = records(&["--size", "64,4K"]);
    let backends = available_backends();
    let run = &records[0];
    assert_eq!(run["record"], "run");
    assert_eq!(run["pctenc"], env!("CARGO_PKG_VERSION"));
    let listed: Vec<&str> = run["backends"].as_array().unwrap().iter().map(|b| b.as_str().unwrap()).collect();
    assert_eq!(listed, backends);
    assert!(backends.iter().any(|b| b == run["chosen"].as_str().unwrap()));
    assert_eq!(run["set"], "rfc3986");
    assert_eq!(run["debug_assertions"], cfg!(debug_assertions));
    assert!(!run["cpu"].as_str().unwrap().is_empty());
    assert_eq!(records.last().unwrap()["record"], "end");

    let measured = measurements(&records);
    // memcpy and every backend, for 3 operations on 4 workloads at 2 sizes.
    assert_eq!(measured.len(), 3 * 4 * 2 * (1 + backends.len()), "{measured:#?}");
    for operation in ["encode", "decode", "validate"] {
        for input in ["safe", "log", "multilingual", "random"] {
            for size in [64, 4096] {
                let rows: Vec<&&Value> = measured
                    .iter()
                    .filter(|r| r["operation"] == operation && r["input"] == input && r["size"] == size)
                    .collect();
                let names: Vec<&str> = rows.iter().map(|r| r["backend"].as_str().unwrap()).collect();
                let mut want = vec!["memcpy"];
                want.extend(backends.iter().map(String::as_str));
                assert_eq!(names, want, "{operation} {input} {size}");
                assert_eq!(rows.iter().filter(|r| r["chosen"] == true).count(), 1);
                let chosen = rows.iter().find(|r| r["chosen"] == true).unwrap();
                assert_eq!(chosen["backend"], run["chosen"]);
                for row in &rows {
                    let gbps = row["gbps"].as_f64().unwrap();
                    assert!(gbps.is_finite() && gbps > 0.0, "{row}");
                    assert!(
                        row["gbps_min"].as_f64().unwrap() <= gbps
                            && gbps <= row["gbps_max"].as_f64().unwrap()
                    );
                    assert!(row["rounds"].as_u64().unwrap() >= 3, "{row}");
                    assert_eq!(row["file"], false);
                    assert_eq!(row["parallel"], false);
                    // Encode reads the input; decode and validate its encoding.
                    let bytes = row["bytes"].as_u64().unwrap();
                    if operation == "encode" {
                        assert_eq!(bytes, size);
                    } else {
                        assert!(bytes >= size);
                    }
                }
                let scalar = rows.iter().find(|r| r["backend"] == "scalar").unwrap();
                assert_eq!(scalar["vs_scalar"].as_f64(), Some(1.0));
                let memcpy = rows.iter().find(|r| r["backend"] == "memcpy").unwrap();
                assert_eq!(memcpy["vs_memcpy"].as_f64(), Some(1.0));
            }
        }
    }
}

#[test]
fn tables_name_the_machine_and_mark_the_chosen_backend() {
    let out = pctenc(&["bench", "--seconds", "0.02", "--size", "64", "--set", "component"], b"");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with(&format!("pctenc {} bench (build: ", env!("CARGO_PKG_VERSION"))), "{text}");
    assert!(lines[1].starts_with("cpu: "), "{text}");
    assert!(lines[2].starts_with("features: "), "{text}");
    let chosen = lines[3].rsplit("chosen: ").next().unwrap();
    assert!(text.contains("answers: every backend's output is scalar's, on every input"), "{text}");
    for op in ["encode", "decode", "validate"] {
        assert!(text.contains(&format!("\n{op} (set component): GB/s of ")), "{text}");
    }
    // The chosen backend is marked in each of the 4 inputs' rows of the 3 tables.
    assert_eq!(text.matches(&format!(" *{chosen} ")).count(), 12, "{text}");
    // Bars only on a terminal.
    assert!(!text.contains('█'), "{text}");
    // A debug build says that it is one.
    assert_eq!(String::from_utf8_lossy(&out.stderr).contains("not a release build"), cfg!(debug_assertions));
    // Not with stdout and stderr the same pipe either.
    let (reader, writer) = std::io::pipe().unwrap();
    let shared = pctenc_with(
        &["bench", "--seconds", "0.02", "--size", "64"],
        Stdio::null(),
        Stdio::from(writer.try_clone().unwrap()),
        Stdio::from(writer),
    );
    assert!(shared.status.success());
    let mut both = String::new();
    std::io::Read::read_to_string(&mut { reader }, &mut both).unwrap();
    assert!(both.contains("answers: ") && !both.contains('█'), "{both}");
}

/// On a terminal (which `script` gives it), each row has a bar, the fastest row's the longest.
#[test]
fn terminal_rows_have_bars() {
    if output_of(std::process::Command::new("script").arg("--version")).is_err() {
        panic!("`script` (util-linux) is needed to give pctenc a terminal");
    }
    let runner = std::env::var("PCTENC_CLI_RUNNER").unwrap_or_default();
    let exe = env!("CARGO_BIN_EXE_pctenc");
    let line = format!("{runner} {exe} bench --seconds 0.02 --size 4K");
    let run = output_of(std::process::Command::new("script").args(["-qefc", &line, "/dev/null"])).unwrap();
    assert!(run.status.success(), "{line}: {}", String::from_utf8_lossy(&run.stderr));
    let text = String::from_utf8_lossy(&run.stdout);
    // The table rows of memcpy and scalar (not the header, not the column heads).
    let rows: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("  ") && l.split_whitespace().any(|w| w == "memcpy" || w == "scalar"))
        .filter(|l| !l.contains("vs scalar"))
        .collect();
    assert_eq!(rows.len(), 2 * 4 * 3, "{text}");
    for row in rows {
        assert!(row.trim_end().ends_with(['█', '▏', '▎', '▍', '▌', '▋', '▊', '▉']), "{row:?}");
    }
    assert!(text.contains(&"█".repeat(20)), "{text}");
}

/// A backend whose answer differs from scalar's ends the run with status 1 before any
/// timing, naming the backend and where. The fault is injected by `PCTENC_BENCH_FAULT`,
/// which only builds with debug assertions read: a release build ignores it.
#[test]
fn a_backend_that_disagrees_with_scalar_fails_the_run() {
    let backends = available_backends();
    // Every x86-64 CPU has SSE2, every AArch64 CPU NEON; elsewhere scalar may be alone, and
    // there is nothing to disagree with it.
    let simd_everywhere = ["x86_64", "aarch64"].contains(&std::env::consts::ARCH);
    let Some(fast) = backends.iter().find(|b| *b != "scalar") else {
        assert!(!simd_everywhere, "no SIMD backend on {}", std::env::consts::ARCH);
        return;
    };
    let mut cmd = command();
    cmd.args(["bench", "--size", "64,4K"]).args(QUICK).env("PCTENC_BENCH_FAULT", format!("{fast}:5"));
    let out = output_of(&mut cmd).unwrap();
    let stderr = without_warnings(&out.stderr);
    if cfg!(debug_assertions) {
        assert_eq!(out.status.code(), Some(1), "{stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(
            stderr.starts_with(&format!(
                "pctenc: {fast} differs from scalar: encode of safe, 64 B: first difference at offset 5 of the output"
            )),
            "{stderr}"
        );
        // Nothing was timed.
        let stdout = String::from_utf8(out.stdout).unwrap();
        assert!(!stdout.contains("GB/s"), "{stdout}");
    } else {
        assert!(out.status.success(), "{stderr}");
    }
}

#[test]
fn files_are_measured_by_lines_or_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("access.log");
    let mut text = String::new();
    for i in 0..200 {
        text.push_str(&format!("GET /search?q=caf\u{e9}%41 {i}% HTTP/1.1 200 Mozilla/5.0 (X11)\n"));
    }
    std::fs::write(&log, &text).unwrap();
    let path = log.to_str().unwrap();

    let all = records(&[path]);
    let measured = measurements(&all);
    assert_eq!(measured.len(), 3 * (1 + available_backends().len()));
    for row in &measured {
        assert_eq!(row["input"], path);
        assert_eq!(row["file"], true);
        assert_eq!(row["lines"], true);
        assert_eq!(row["size"], text.len());
    }
    // Encoded line by line, the line ends raw.
    let encoded = measured.iter().find(|r| r["operation"] == "decode").unwrap()["bytes"].as_u64().unwrap();
    let by_lines = pctenc(&["encode", path], b"").stdout;
    assert_eq!(encoded, by_lines.len() as u64);

    let all = records(&["--binary", path]);
    let decode = measurements(&all).into_iter().find(|r| r["operation"] == "decode").unwrap();
    assert_eq!(decode["lines"], false);
    assert_eq!(
        decode["bytes"].as_u64().unwrap(),
        pctenc(&["encode", "--binary", path], b"").stdout.len() as u64
    );

    // With a set that keeps `%` raw, decode and validate take the encoding with `%` escaped,
    // which decodes back.
    let all = records(&["--set", "path", path]);
    let measured = measurements(&all);
    let decode = measured.iter().find(|r| r["operation"] == "decode").unwrap();
    let escaped = pctenc(&["encode", "--set", "path", "--escape", "%", path], b"").stdout;
    assert_eq!(decode["bytes"].as_u64().unwrap(), escaped.len() as u64);
    let encode = measured.iter().find(|r| r["operation"] == "encode").unwrap();
    assert_eq!(encode["bytes"].as_u64().unwrap(), text.len() as u64);

    // --size takes a prefix of the file up to a line end, and the file once when it is
    // shorter.
    let all = records(&["--size", "1000,1M", path]);
    let sizes: Vec<u64> = measurements(&all)
        .iter()
        .filter(|r| r["operation"] == "encode" && r["backend"] == "scalar")
        .map(|r| r["size"].as_u64().unwrap())
        .collect();
    let prefix = text[..1000].rfind('\n').unwrap() + 1;
    assert_eq!(sizes, [prefix as u64, text.len() as u64]);
}

#[test]
fn the_parallel_path_is_measured_with_j() {
    let records = records(&["-j", "2", "--size", "1M", "--set", "path"]);
    let parallel: Vec<&Value> =
        measurements(&records).into_iter().filter(|r| r["parallel"] == true).collect();
    // Encode and decode (not validate) of the four workloads: 1 MiB reaches both thresholds.
    assert_eq!(parallel.len(), 8, "{parallel:#?}");
    let chosen = records[0]["chosen"].clone();
    for row in parallel {
        assert_eq!(row["threads"], 2);
        assert_eq!(row["backend"], chosen);
        assert_ne!(row["operation"], "validate");
    }
    assert_eq!(records[0]["threads"], 2);
}

#[test]
fn bad_budgets_and_sizes_are_usage_errors() {
    let cases: [(&[&str], &str); 11] = [
        (&["--seconds", "0"], "SECONDS must be more than 0"),
        (&["--seconds", "-1"], "SECONDS must be more than 0"),
        (&["--seconds", "nan"], "want a number of seconds"),
        (&["--seconds", "inf"], "SECONDS must be at most 3600"),
        (&["--seconds", "1e9"], "SECONDS must be at most 3600"),
        (&["--size", "0"], "SIZE must be 1 byte or more"),
        (&["--size", "64,0K"], "SIZE must be 1 byte or more"),
        (&["--size", "2G"], "SIZE must be at most 1 GiB"),
        (&["--size", "99999999999999999999999"], "SIZE must be at most 1 GiB"),
        (&["--size", "4X"], "want a number of bytes"),
        (&["--size", "-64"], "want a number of bytes"),
    ];
    for (args, why) in cases {
        let args: Vec<&str> = ["bench"].iter().chain(args).copied().collect();
        let out = pctenc(&args, b"");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.starts_with("pctenc: invalid value"), "{args:?}: {stderr}");
        assert!(stderr.contains(why), "{args:?}: {stderr}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
    let out = pctenc(&["bench", "--binary"], b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("<FILE>"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = pctenc(&["bench", "--backend", "scalar"], b"");
    assert_eq!(out.status.code(), Some(2));
}

/// Inputs that cannot be read are reported as every command reports them, the others
/// measured; the status is 2.
#[test]
fn unreadable_inputs_are_reported() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("good.log");
    std::fs::write(&good, "a b\nc d\n").unwrap();
    let empty = dir.path().join("empty.log");
    std::fs::write(&empty, "").unwrap();
    let (good, empty) = (good.to_str().unwrap(), empty.to_str().unwrap());

    let out = pctenc(&["bench", "--seconds", "0.01", "/nonexistent/access.log"], b"");
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        without_warnings(&out.stderr),
        "pctenc: /nonexistent/access.log: No such file or directory (os error 2)\n"
    );
    assert!(out.stdout.is_empty());

    let out = pctenc(&["bench", "--json", "--seconds", "0.01", "/nonexistent/a", good, empty], b"");
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        without_warnings(&out.stderr),
        format!(
            "pctenc: /nonexistent/a: No such file or directory (os error 2)\npctenc: {empty}: empty: nothing to measure\n"
        )
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(stdout.lines().any(|l| l.contains(&format!("\"input\":\"{good}\""))), "{stdout}");

    // A directory.
    let out = pctenc(&["bench", "--seconds", "0.01", dir.path().to_str().unwrap()], b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        without_warnings(&out.stderr).contains("Is a directory"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    // Standard input.
    let out = pctenc(&["bench", "--json", "--seconds", "0.01", "-"], b"x y\n");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8(out.stdout).unwrap().contains("\"input\":\"<stdin>\""));
}

/// A full output fails before the measurements (the header is flushed first), with the
/// message of every command.
#[cfg(unix)]
#[test]
fn unwritable_output_is_an_io_error() {
    let full = File::options().write(true).open("/dev/full").unwrap();
    let out = pctenc_with(
        &["bench", "--seconds", "0.01", "--size", "64"],
        Stdio::null(),
        Stdio::from(full),
        Stdio::piped(),
    );
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(without_warnings(&out.stderr), "pctenc: <stdout>: No space left on device (os error 28)\n");
}
