//! `pctenc bench`: encode, decode and validate timed on every backend this CPU has, beside
//! `memcpy`, on built-in inputs or the user's files.
//!
//! Why a command: the figures of `docs/BENCHMARKS.md` come from our CPUs, through criterion,
//! from a checkout. This measures the installed binary on the user's CPU and data in seconds,
//! and checks every backend's answers against the scalar reference first, so that on a CPU
//! nobody here could test (an ARM server, a new x86 generation) it is a self-test too.
//!
//! The flow: the inputs are made (`workload.rs`) or read; each backend's output is compared
//! with scalar's, and the first difference ends the run (status 1); then for each operation
//! every input is timed with every way of doing it, interleaved (`measure.rs`), and its table
//! (or its JSON records) written.

mod measure;
mod workload;

use std::cell::RefCell;
use std::fmt::Write as _;
use std::hint::black_box;
use std::path::Path;
use std::time::{Duration, Instant};

use pctenc::{Backend, Decoder, Encoder, Engine, PAR_DECODE_THRESHOLD, PAR_ENCODE_THRESHOLD, Set};
use serde_json::json;

use crate::cli::args::BenchArgs;
use crate::cli::info::features;
use crate::cli::input::{CHUNK, Input};
use crate::cli::output::Output;
use crate::cli::{Failure, report};
use measure::{Timing, Work};
use workload::WORKLOADS;

/// The sizes of the built-in inputs when `--size` is not given.
pub const DEFAULT_SIZES: [usize; 4] = [64, 4 << 10, 64 << 10, 1 << 20];
/// How much of a file is measured when `--size` is not given.
pub const FILE_DEFAULT: usize = 16 << 20;
/// A figure whose rounds deviate from their median by more than this (their median absolute
/// deviation, relative) is unsteady; when more than a quarter of them are, the CPU looks busy.
const UNSTEADY: f64 = 0.10;

/// The three operations, in the order they are measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Operation {
    Encode,
    Decode,
    Validate,
}

impl Operation {
    const ALL: [Operation; 3] = [Operation::Encode, Operation::Decode, Operation::Validate];

    fn name(self) -> &'static str {
        match self {
            Operation::Encode => "encode",
            Operation::Decode => "decode",
            Operation::Validate => "validate",
        }
    }
}

/// A way of doing an operation: a row of a table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Way {
    /// A copy of the operation's input: the ceiling.
    Memcpy,
    /// The serial path pinned to a backend.
    Serial(Backend),
    /// The parallel path (`-j N`) on the chosen backend, on `N` threads.
    Parallel(Backend, usize),
}

impl Way {
    fn label(self) -> String {
        match self {
            Way::Memcpy => "memcpy".into(),
            Way::Serial(backend) => backend.name().into(),
            Way::Parallel(backend, threads) => format!("{backend} -j{threads}"),
        }
    }

    fn backend(self) -> Option<Backend> {
        match self {
            Way::Memcpy => None,
            Way::Serial(b) | Way::Parallel(b, _) => Some(b),
        }
    }
}

/// One input: a built-in workload at a size, or (a prefix of) a file.
struct Source {
    /// The workload's name, or the file's as messages write it.
    name: String,
    data: Vec<u8>,
    /// A file's (or standard input's), not a built-in workload's.
    file: bool,
    /// A file read line by line: the line ends stay raw, as `pctenc encode` keeps them.
    lines: bool,
}

impl Source {
    /// What the input is called in tables and messages: `log, 4 KiB`.
    fn title(&self) -> String {
        format!("{}, {}", self.name, size_text(self.data.len()))
    }
}

/// An input and what the operations take: the encoder and decoder, the encoding.
struct Case {
    source: Source,
    /// The set's encoder (encode).
    encoder: Encoder,
    /// The encoder of `encoded`, the set with `%` escaped (validate).
    validator: Encoder,
    decoder: Decoder,
    /// The input's encoding (decode and validate).
    encoded: Vec<u8>,
}

impl Case {
    fn input(&self, op: Operation) -> &[u8] {
        match op {
            Operation::Encode => &self.source.data,
            Operation::Decode | Operation::Validate => &self.encoded,
        }
    }
}

/// One measurement: a way of an operation on an input.
struct Row {
    way: Way,
    timing: Timing,
}

/// What the run measures, from the command line.
struct Plan {
    set_name: &'static str,
    set: Set,
    seconds: f64,
    threads: Option<usize>,
    chosen: Backend,
    backends: Vec<Backend>,
}

/// Runs `pctenc bench` with `threads` from `-j` (the parallel path is measured only with
/// it), writing the report to `out`.
pub fn run(args: &BenchArgs, threads: Option<u16>, out: &mut Output) -> Result<(), Failure> {
    let started = Instant::now();
    let fault = fault::load()?;
    let plan = Plan {
        set_name: args.set.name,
        set: args.set.set,
        seconds: args.seconds,
        threads: threads.map(usize::from),
        chosen: Engine::detect().backend(),
        backends: Backend::ALL.into_iter().filter(|b| b.is_available()).collect(),
    };
    let pool = match plan.threads {
        Some(n) => Some(
            rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .build()
                .map_err(|e| Failure::Io { what: "thread pool".into(), error: std::io::Error::other(e) })?,
        ),
        None => None,
    };
    if !release_build() {
        report(format_args!(
            "warning: this is not a release build ({}): its figures are far below a release \
             build's (cargo build --release, or cargo install)",
            build_text()
        ));
    }
    let (sources, skipped) = sources(args)?;
    if args.json {
        write_json(out, &run_record(&plan, &sources))?;
    } else {
        out.write_all(header(&plan, &sources).as_bytes())?;
    }
    // A closed or full output fails now, not after the measurements.
    out.flush()?;
    let cases: Vec<Case> = sources.into_iter().map(|source| prepare(source, &plan)).collect();
    for case in &cases {
        check(case, &plan, pool.as_ref(), fault)?;
    }
    if !args.json {
        out.write_all(b"answers: every backend's output is scalar's, on every input\n\n")?;
        out.flush()?;
    }
    // Each measurement gets an equal share of what is left of the budget: one that needs
    // more than its share for its few rounds (scalar on a large input) leaves less to the
    // others, and the run still ends near its budget.
    let budget = Duration::from_secs_f64(plan.seconds);
    let timing = Instant::now();
    let mut left = cases.len() * Operation::ALL.len();
    // Bars only when standard output itself is a terminal (not `Output::is_terminal`'s wider
    // sense, for progress bars, which counts an output that is stderr's file too).
    let terminal = std::io::IsTerminal::is_terminal(&std::io::stdout());
    let mut unsteady = (0, 0);
    for op in Operation::ALL {
        let mut measured = Vec::with_capacity(cases.len());
        for (i, case) in cases.iter().enumerate() {
            let share = budget.saturating_sub(timing.elapsed()) / u32::try_from(left).unwrap_or(u32::MAX);
            measured.push((i, measure(case, op, &plan, pool.as_ref(), share)));
            left -= 1;
        }
        for (_, rows) in &measured {
            unsteady.0 += rows.iter().filter(|r| r.timing.spread() > UNSTEADY).count();
            unsteady.1 += rows.len();
        }
        if args.json {
            for (i, rows) in &measured {
                for row in rows {
                    write_json(out, &measurement_record(op, &cases[*i], row, rows, &plan))?;
                }
            }
        } else {
            out.write_all(table(op, &cases, &measured, &plan, terminal).as_bytes())?;
        }
        out.flush()?;
    }
    let busy = unsteady.0 * 4 > unsteady.1;
    if busy {
        report(format_args!(
            "warning: the CPU looks busy: the rounds of {} of {} figures spread more than ±{:.0}%; \
             measure again on an idle machine, or with more --seconds",
            unsteady.0,
            unsteady.1,
            UNSTEADY * 100.0
        ));
    }
    let elapsed = started.elapsed().as_secs_f64();
    if args.json {
        write_json(out, &json!({"record": "end", "seconds": elapsed, "busy": busy}))?;
    } else {
        let mut text = String::new();
        let _ = writeln!(text, "* the backend pctenc chooses on this CPU ({})", plan.chosen);
        let _ = writeln!(text, "measured in {elapsed:.1} s");
        out.write_all(text.as_bytes())?;
    }
    if skipped { Err(Failure::Unreadable) } else { Ok(()) }
}

/// The inputs: the built-in workloads at every size, or each file's prefixes. A file that
/// cannot be read is reported and the others measured (`true`: one was skipped).
fn sources(args: &BenchArgs) -> Result<(Vec<Source>, bool), Failure> {
    let mut sizes = args.size.clone();
    sizes.sort_unstable();
    sizes.dedup();
    if args.files.is_empty() {
        let sizes = if sizes.is_empty() { DEFAULT_SIZES.to_vec() } else { sizes };
        let sources = WORKLOADS
            .iter()
            .flat_map(|&w| {
                sizes.iter().map(move |&size| Source {
                    name: w.name().into(),
                    data: w.generate(size),
                    file: false,
                    lines: false,
                })
            })
            .collect();
        return Ok((sources, false));
    }
    let limit = sizes.last().copied().unwrap_or(FILE_DEFAULT);
    let mut sources = Vec::new();
    let mut skipped = false;
    for path in &args.files {
        let (name, data) = match read(path, limit) {
            Ok(read) => read,
            Err(failure) => {
                report(&failure);
                skipped = true;
                continue;
            }
        };
        let wanted = if sizes.is_empty() { vec![limit] } else { sizes.clone() };
        let mut last = 0;
        for size in wanted {
            let len = cut(&data, size, !args.binary);
            if len > last {
                sources.push(Source {
                    name: name.clone(),
                    data: data[..len].to_vec(),
                    file: true,
                    lines: !args.binary,
                });
                last = len;
            }
        }
    }
    if sources.is_empty() {
        return Err(Failure::Unreadable);
    }
    Ok((sources, skipped))
}

/// The first `limit` bytes of the file at `path` (`-`: standard input), and its name.
fn read(path: &Path, limit: usize) -> Result<(String, Vec<u8>), Failure> {
    let mut input = Input::open(path)?;
    let mut data = Vec::new();
    let mut buf = vec![0u8; CHUNK];
    while data.len() < limit {
        let n = input.read(&mut buf)?;
        if n == 0 {
            break;
        }
        data.extend_from_slice(&buf[..n.min(limit - data.len())]);
    }
    if data.is_empty() {
        return Err(Failure::Input {
            what: input.name.clone(),
            error: std::io::Error::other("empty: nothing to measure"),
        });
    }
    Ok((input.name.clone(), data))
}

/// How much of `data` a prefix of at most `size` bytes takes: with `lines`, up to its last
/// line end (all of it when it has none, or when `data` ends within `size`).
fn cut(data: &[u8], size: usize, lines: bool) -> usize {
    if size >= data.len() {
        return data.len();
    }
    match memchr::memrchr(b'\n', &data[..size]) {
        Some(i) if lines => i + 1,
        _ => size,
    }
}

/// The encoders, the decoder and the encoding of an input. A file read line by line is
/// encoded with its line ends kept raw, as `pctenc encode` writes it.
///
/// Decode and validate take the encoding with `%` escaped whatever the set: a set that keeps
/// `%` raw (the WHATWG sets: `path`, `query`, ...) writes text that does not decode back
/// (`100%` is not an escape, `%41` decodes to `A`), and decoding would stop at its first `%`.
fn prepare(source: Source, plan: &Plan) -> Case {
    let set = if source.lines { plan.set.remove(b'\n').remove(b'\r') } else { plan.set };
    let encoder = Encoder::new(set);
    let validator = Encoder::new(set.add(b'%'));
    let decoder = Decoder::new().plus_as_space(set.space_as_plus());
    let encoded = validator.engine(Engine::scalar()).encode(&source.data).into_owned().into_bytes();
    Case { source, encoder, validator, decoder, encoded }
}

/// What an operation gives: output bytes, or where it failed.
#[derive(Debug, PartialEq, Eq)]
enum Answer {
    Bytes(Vec<u8>),
    Error { offset: usize, message: String },
    Valid,
}

/// Every backend's answer to every operation on `case`, against scalar's: the first that
/// differs ends the run (status 1), naming the backend and the first differing offset.
fn check(
    case: &Case,
    plan: &Plan,
    pool: Option<&rayon::ThreadPool>,
    fault: Option<fault::Fault>,
) -> Result<(), Failure> {
    // The reference first: its decoding of its encoding must give the input back.
    let scalar = |op| answer(case, op, Way::Serial(Backend::Scalar));
    if let Answer::Bytes(back) = scalar(Operation::Decode)
        && back != case.source.data
    {
        let at = first_difference(&back, &case.source.data);
        return Err(Failure::Wrong(format!(
            "scalar does not decode its own encoding of {} back to it: first difference at offset {at}",
            case.source.title()
        )));
    }
    for op in Operation::ALL {
        let reference = scalar(op);
        let mut ways: Vec<Way> = plan.backends.iter().map(|&b| Way::Serial(b)).collect();
        if let Some(n) = plan.threads
            && parallel(op, case, n).is_some()
        {
            ways.push(Way::Parallel(plan.chosen, n));
        }
        for way in ways.into_iter().filter(|&w| w != Way::Serial(Backend::Scalar)) {
            let mut answer = match (way, pool) {
                (Way::Parallel(..), Some(pool)) => pool.install(|| answer(case, op, way)),
                _ => answer(case, op, way),
            };
            if let (Some(fault), Answer::Bytes(bytes)) = (fault, &mut answer) {
                fault.apply(way, bytes);
            }
            if answer != reference {
                return Err(Failure::Wrong(mismatch(case, op, way, &reference, &answer)));
            }
        }
    }
    Ok(())
}

/// `way`'s answer to `op` on `case`, by the calls the measurement makes.
fn answer(case: &Case, op: Operation, way: Way) -> Answer {
    let engine = way.backend().and_then(Engine::new).unwrap_or_else(Engine::scalar);
    let input = case.input(op);
    let parallel = matches!(way, Way::Parallel(..));
    match op {
        Operation::Encode => {
            let encoder = case.encoder.engine(engine);
            let mut out = Vec::new();
            if parallel {
                encoder.par_encode_vec(input, &mut out);
            } else {
                out.resize(encoder.encoded_len(input), 0);
                if let Err(e) = encoder.encode_slice(input, &mut out) {
                    return Answer::Error { offset: 0, message: e.to_string() };
                }
            }
            Answer::Bytes(out)
        }
        Operation::Decode => {
            let decoder = case.decoder.engine(engine);
            let mut out = vec![0; input.len()];
            let decoded = if parallel {
                out.clear();
                decoder.par_decode_vec(input, &mut out).map(|()| out.len())
            } else {
                decoder.decode_slice(input, &mut out)
            };
            match decoded {
                Ok(n) => {
                    out.truncate(n);
                    Answer::Bytes(out)
                }
                Err(e) => Answer::Error { offset: e.offset(), message: e.to_string() },
            }
        }
        Operation::Validate => match case.validator.engine(engine).validate(input) {
            Ok(()) => Answer::Valid,
            Err(e) => Answer::Error { offset: e.offset(), message: e.to_string() },
        },
    }
}

/// The message for `way`'s answer differing from scalar's.
fn mismatch(case: &Case, op: Operation, way: Way, reference: &Answer, answer: &Answer) -> String {
    let who = way.label();
    let what = format!("{who} differs from scalar: {} of {}", op.name(), case.source.title());
    let said = |a: &Answer| match a {
        Answer::Bytes(bytes) => format!("writes {} bytes", bytes.len()),
        Answer::Valid => "finds it valid".into(),
        Answer::Error { offset, message } => format!("fails at offset {offset} ({message})"),
    };
    match (reference, answer) {
        (Answer::Bytes(want), Answer::Bytes(got)) => {
            let at = first_difference(want, got);
            let byte = |bytes: &[u8]| bytes.get(at).map_or("its end".into(), |b| format!("0x{b:02X}"));
            format!(
                "{what}: first difference at offset {at} of the output (scalar {}, {who} {}; \
                 scalar writes {} bytes, {who} {})",
                byte(want),
                byte(got),
                want.len(),
                got.len()
            )
        }
        (Answer::Error { offset: a, .. }, Answer::Error { offset: b, .. }) => format!(
            "{what}: first difference at offset {} of the input: scalar {}, {who} {}",
            a.min(b),
            said(reference),
            said(answer)
        ),
        (Answer::Error { offset, .. }, _) | (_, Answer::Error { offset, .. }) => format!(
            "{what}: first difference at offset {offset} of the input: scalar {}, {who} {}",
            said(reference),
            said(answer)
        ),
        _ => format!("{what}: scalar {}, {who} {}", said(reference), said(answer)),
    }
}

/// The first index where `a` and `b` differ (the shorter length when one is the other's
/// prefix).
fn first_difference(a: &[u8], b: &[u8]) -> usize {
    a.iter().zip(b).position(|(x, y)| x != y).unwrap_or(a.len().min(b.len()))
}

/// The parallel path's threads for `op` on `case`, when its input reaches the library's
/// threshold (below it, the parallel path is the serial one).
fn parallel(op: Operation, case: &Case, threads: usize) -> Option<usize> {
    let threshold = match op {
        Operation::Encode => PAR_ENCODE_THRESHOLD,
        Operation::Decode => PAR_DECODE_THRESHOLD,
        Operation::Validate => return None,
    };
    (case.input(op).len() >= threshold).then_some(threads)
}

/// Times `op` on `case`: `memcpy`, every backend, and the parallel path with `-j`.
fn measure(
    case: &Case,
    op: Operation,
    plan: &Plan,
    pool: Option<&rayon::ThreadPool>,
    budget: Duration,
) -> Vec<Row> {
    let input = case.input(op);
    // One output buffer for every way (they run one after another): large inputs need
    // no copy per backend.
    let shared = RefCell::new(vec![0u8; case.encoded.len().max(case.source.data.len())]);
    let mut ways = vec![Way::Memcpy];
    ways.extend(plan.backends.iter().map(|&b| Way::Serial(b)));
    if let (Some(n), Some(_)) = (plan.threads, pool)
        && parallel(op, case, n).is_some()
    {
        ways.push(Way::Parallel(plan.chosen, n));
    }
    let mut work: Vec<Work<'_>> = ways.iter().map(|&way| job(case, op, way, input, &shared, pool)).collect();
    let timings = measure::interleaved(&mut work, budget);
    ways.into_iter().zip(timings).map(|(way, timing)| Row { way, timing }).collect()
}

/// One call of `way` doing `op` on `input`, as the measurement repeats it.
fn job<'a>(
    case: &'a Case,
    op: Operation,
    way: Way,
    input: &'a [u8],
    shared: &'a RefCell<Vec<u8>>,
    pool: Option<&'a rayon::ThreadPool>,
) -> Work<'a> {
    let engine = way.backend().and_then(Engine::new).unwrap_or_else(Engine::scalar);
    let len = input.len();
    match (way, op, pool) {
        (Way::Memcpy, ..) => {
            // Source and destination in one buffer, 64 bytes apart modulo 4 KiB: two
            // allocations of the same large size start at the same offset in their pages,
            // and every load would then alias the store before it (as benches/common says).
            let mut buf = vec![0u8; 2 * len + 64];
            buf[..len].copy_from_slice(input);
            Box::new(move || {
                let (from, to) = buf.split_at_mut(len + 64);
                to[..len].copy_from_slice(black_box(&from[..len]));
                black_box(&mut to[..len]);
            })
        }
        (Way::Parallel(..), Operation::Encode, Some(pool)) => {
            let encoder = case.encoder.engine(engine);
            Box::new(move || {
                let mut guard = shared.borrow_mut();
                let out: &mut Vec<u8> = &mut guard;
                out.clear();
                pool.install(|| encoder.par_encode_vec(black_box(input), out));
                black_box(out);
            })
        }
        (Way::Parallel(..), Operation::Decode, Some(pool)) => {
            let decoder = case.decoder.engine(engine);
            Box::new(move || {
                let mut guard = shared.borrow_mut();
                let out: &mut Vec<u8> = &mut guard;
                out.clear();
                let _ = black_box(pool.install(|| decoder.par_decode_vec(black_box(input), &mut *out)));
                black_box(out);
            })
        }
        (_, Operation::Encode, _) => {
            let encoder = case.encoder.engine(engine);
            Box::new(move || {
                let mut out = shared.borrow_mut();
                let _ = black_box(encoder.encode_slice(black_box(input), &mut out));
            })
        }
        (_, Operation::Decode, _) => {
            let decoder = case.decoder.engine(engine);
            Box::new(move || {
                let mut out = shared.borrow_mut();
                let _ = black_box(decoder.decode_slice(black_box(input), &mut out));
            })
        }
        (_, Operation::Validate, _) => {
            let encoder = case.validator.engine(engine);
            Box::new(move || {
                let _ = black_box(encoder.validate(black_box(input)));
            })
        }
    }
}

/// Whether this binary was built to be measured: optimized, without debug assertions.
fn release_build() -> bool {
    !cfg!(debug_assertions) && !matches!(env!("PCTENC_BUILD_OPT_LEVEL"), "0" | "1")
}

/// The build, as the header names it: `release, opt-level 3`.
fn build_text() -> String {
    let mut text = format!("{}, opt-level {}", env!("PCTENC_BUILD_PROFILE"), env!("PCTENC_BUILD_OPT_LEVEL"));
    if cfg!(debug_assertions) {
        text.push_str(", debug assertions");
    }
    text
}

/// The CPU's model name, as the system gives it (Linux: `/proc/cpuinfo`).
fn cpu_model() -> String {
    let info = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let field = |key: &str| {
        info.lines().find_map(|line| {
            let (k, v) = line.split_once(':')?;
            (k.trim() == key && !v.trim().is_empty()).then(|| v.trim().to_string())
        })
    };
    field("model name")
        .or_else(|| field("Model"))
        .or_else(|| field("Hardware"))
        .or_else(|| {
            // AArch64 Linux names the core by numbers only.
            Some(format!("CPU implementer {}, part {}", field("CPU implementer")?, field("CPU part")?))
        })
        .unwrap_or_else(|| "unknown".into())
}

/// `64 B`, `4 KiB`, `1.5 MiB`.
fn size_text(bytes: usize) -> String {
    const UNITS: [&str; 4] = ["B", "KiB", "MiB", "GiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if value.fract() == 0.0 {
        format!("{value} {}", UNITS[unit])
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

/// GB/s with three significant digits, as `docs/BENCHMARKS.md` writes them.
fn gbps_text(gbps: f64) -> String {
    if gbps >= 100.0 {
        format!("{gbps:.0}")
    } else if gbps >= 10.0 {
        format!("{gbps:.1}")
    } else {
        format!("{gbps:.2}")
    }
}

fn header(plan: &Plan, sources: &[Source]) -> String {
    let features = features();
    let found: Vec<&str> = features.iter().filter(|f| f.1).map(|f| f.0).collect();
    let absent: Vec<&str> = features.iter().filter(|f| !f.1).map(|f| f.0).collect();
    let backends: Vec<&str> = plan.backends.iter().map(|b| b.name()).collect();
    let mut out = String::new();
    let _ = writeln!(out, "pctenc {} bench (build: {})", env!("CARGO_PKG_VERSION"), build_text());
    let _ = writeln!(out, "cpu:      {} ({})", cpu_model(), std::env::consts::ARCH);
    let _ = write!(out, "features: {}", if found.is_empty() { "-".into() } else { found.join(" ") });
    if !absent.is_empty() {
        let _ = write!(out, " (absent: {})", absent.join(" "));
    }
    let _ = writeln!(out);
    let _ = writeln!(out, "backends: {}; chosen: {}", backends.join(" "), plan.chosen);
    let mut names: Vec<&str> = Vec::new();
    for source in sources {
        if !names.contains(&source.name.as_str()) {
            names.push(&source.name);
        }
    }
    let _ = writeln!(out, "inputs:   {}; set {}", names.join(", "), plan.set_name);
    let _ = write!(out, "time:     {} s in all, every way interleaved round by round", plan.seconds);
    match plan.threads {
        Some(n) => {
            let _ = writeln!(out, "; -j{n}: the parallel path on {n} threads");
        }
        None => {
            let _ = writeln!(out);
        }
    }
    out
}

/// The table of one operation: per input, a row per way, the chosen backend marked, with a
/// bar per row on a terminal.
fn table(op: Operation, cases: &[Case], measured: &[(usize, Vec<Row>)], plan: &Plan, bars: bool) -> String {
    const BAR: usize = 20;
    let mut out = String::new();
    let bytes = match op {
        Operation::Encode => "input",
        Operation::Decode | Operation::Validate => "encoded input",
    };
    let escaped = if op != Operation::Encode && !plan.set.contains(b'%') { ", `%` escaped too" } else { "" };
    let _ = writeln!(
        out,
        "{} (set {}{escaped}): GB/s of {bytes}, the median of the rounds, ± their median deviation",
        op.name(),
        plan.set_name
    );
    let width = cases.iter().map(|c| c.source.name.chars().count()).max().unwrap_or(0).max(5);
    let _ = writeln!(
        out,
        "  {:<width$}  {:>9}  {:<12} {:>7} {:>6}  {:>9}  {:>9}",
        "input", "size", "backend", "GB/s", "±", "vs scalar", "vs memcpy"
    );
    for (i, rows) in measured {
        let case = &cases[*i];
        let len = case.input(op).len();
        let gbps = |way: Way| rows.iter().find(|r| r.way == way).map(|r| r.timing.gbps(len));
        let scalar = gbps(Way::Serial(Backend::Scalar));
        let memcpy = gbps(Way::Memcpy);
        let top = rows.iter().map(|r| r.timing.gbps(len)).fold(0.0, f64::max);
        for (k, row) in rows.iter().enumerate() {
            let (name, size) = if k == 0 {
                (case.source.name.as_str(), size_text(case.source.data.len()))
            } else {
                ("", String::new())
            };
            let mark = if row.way == Way::Serial(plan.chosen) { "*" } else { " " };
            let value = row.timing.gbps(len);
            let ratio = |base: Option<f64>| base.map_or("-".into(), |b| format!("{:.2}x", value / b));
            let _ = write!(
                out,
                "  {name:<width$}  {size:>9} {mark}{:<12} {:>7} {:>5.0}%  {:>9}  {:>9}",
                row.way.label(),
                gbps_text(value),
                row.timing.spread() * 100.0,
                ratio(scalar),
                ratio(memcpy)
            );
            if bars && top > 0.0 {
                let _ = write!(out, "  {}", bar(value / top, BAR));
            }
            let _ = writeln!(out);
        }
    }
    let _ = writeln!(out);
    out
}

/// A bar of `fraction` of `width` cells, in eighths of a cell.
fn bar(fraction: f64, width: usize) -> String {
    const EIGHTHS: [char; 8] = [' ', '▏', '▎', '▍', '▌', '▋', '▊', '▉'];
    let eighths = (fraction.clamp(0.0, 1.0) * (width * 8) as f64).round() as usize;
    let mut bar = "█".repeat(eighths / 8);
    if !eighths.is_multiple_of(8) {
        bar.push(EIGHTHS[eighths % 8]);
    }
    if bar.is_empty() {
        bar.push('▏');
    }
    bar
}

fn write_json(out: &mut Output, value: &serde_json::Value) -> Result<(), Failure> {
    let mut line = value.to_string();
    line.push('\n');
    out.write_all(line.as_bytes())
}

/// The first JSON record: what was measured, on what.
fn run_record(plan: &Plan, sources: &[Source]) -> serde_json::Value {
    let features = features();
    let found: Vec<&str> = features.iter().filter(|f| f.1).map(|f| f.0).collect();
    let backends: Vec<&str> = plan.backends.iter().map(|b| b.name()).collect();
    json!({
        "record": "run",
        "pctenc": env!("CARGO_PKG_VERSION"),
        "profile": env!("PCTENC_BUILD_PROFILE"),
        "opt_level": env!("PCTENC_BUILD_OPT_LEVEL"),
        "debug_assertions": cfg!(debug_assertions),
        "release": release_build(),
        "arch": std::env::consts::ARCH,
        "os": std::env::consts::OS,
        "cpu": cpu_model(),
        "features": found,
        "backends": backends,
        "chosen": plan.chosen.name(),
        "set": plan.set_name,
        "seconds": plan.seconds,
        "threads": plan.threads,
        "inputs": sources.len(),
    })
}

/// A JSON record of one measurement.
fn measurement_record(op: Operation, case: &Case, row: &Row, rows: &[Row], plan: &Plan) -> serde_json::Value {
    let len = case.input(op).len();
    let gbps = row.timing.gbps(len);
    let of = |way: Way| rows.iter().find(|r| r.way == way).map(|r| gbps / r.timing.gbps(len));
    let (slowest, fastest) = row.timing.gbps_range(len);
    let (backend, threads) = match row.way {
        Way::Memcpy => ("memcpy", 1),
        Way::Serial(b) => (b.name(), 1),
        Way::Parallel(b, n) => (b.name(), n),
    };
    json!({
        "record": "measurement",
        "operation": op.name(),
        "input": case.source.name,
        "file": case.source.file,
        "lines": case.source.lines,
        "size": case.source.data.len(),
        "bytes": len,
        "set": plan.set_name,
        "backend": backend,
        "threads": threads,
        "parallel": matches!(row.way, Way::Parallel(..)),
        "chosen": row.way == Way::Serial(plan.chosen),
        "rounds": row.timing.rounds,
        "calls_per_round": row.timing.calls,
        "ns_per_call": row.timing.median_ns,
        "gbps": gbps,
        "gbps_min": slowest,
        "gbps_max": fastest,
        "spread": row.timing.spread(),
        "vs_scalar": of(Way::Serial(Backend::Scalar)),
        "vs_memcpy": of(Way::Memcpy),
    })
}

/// A fault put into one backend's answers, to test that the check before timing finds it:
/// `PCTENC_BENCH_FAULT=BACKEND:OFFSET` flips a bit of the byte at OFFSET of every output of
/// BACKEND's serial path. Only builds with debug assertions (the tests' builds) read it: a
/// release build cannot be made to report a fault its backends do not have.
mod fault {
    use super::{Failure, Way};
    use pctenc::Backend;

    #[derive(Clone, Copy, Debug)]
    pub struct Fault {
        backend: Backend,
        offset: usize,
    }

    impl Fault {
        pub fn apply(self, way: Way, bytes: &mut [u8]) {
            if way == Way::Serial(self.backend)
                && let Some(byte) = bytes.get_mut(self.offset)
            {
                *byte ^= 1;
            }
        }
    }

    #[cfg(debug_assertions)]
    pub fn load() -> Result<Option<Fault>, Failure> {
        let Some(value) = std::env::var_os("PCTENC_BENCH_FAULT") else { return Ok(None) };
        let parsed = value.to_str().and_then(|v| v.split_once(':')).and_then(|(backend, offset)| {
            Some(Fault { backend: Backend::from_name(backend)?, offset: offset.parse().ok()? })
        });
        parsed.map(Some).ok_or_else(|| Failure::Usage("PCTENC_BENCH_FAULT: want BACKEND:OFFSET".into()))
    }

    #[cfg(not(debug_assertions))]
    pub fn load() -> Result<Option<Fault>, Failure> {
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_written_short() {
        assert_eq!(size_text(64), "64 B");
        assert_eq!(size_text(4096), "4 KiB");
        assert_eq!(size_text(1 << 20), "1 MiB");
        assert_eq!(size_text(1536 << 10), "1.5 MiB");
        assert_eq!(size_text(1000), "1000 B");
    }

    #[test]
    fn prefixes_end_at_a_line_end() {
        assert_eq!(cut(b"ab\ncd\nef", 7, true), 6);
        assert_eq!(cut(b"ab\ncd\nef", 7, false), 7);
        assert_eq!(cut(b"abcdef", 3, true), 3);
        assert_eq!(cut(b"ab\n", 10, true), 3);
    }

    #[test]
    fn bars_grow_by_eighths() {
        assert_eq!(bar(1.0, 2), "██");
        assert_eq!(bar(0.5, 2), "█");
        assert_eq!(bar(1.0 / 16.0, 2), "▏");
        assert_eq!(bar(0.0, 2), "▏");
    }

    #[test]
    fn differences_are_found() {
        assert_eq!(first_difference(b"abc", b"abd"), 2);
        assert_eq!(first_difference(b"ab", b"abc"), 2);
        assert_eq!(first_difference(b"", b""), 0);
    }
}
