//! The `pctenc` command: streaming encode and decode over files and pipes.

pub mod args;
mod bench;
mod charset;
mod check;
pub mod closed;
mod decode;
mod encode;
mod generate;
mod info;
mod input;
mod normalize;
mod output;
mod progress;
mod sets;
mod threads;

use std::fmt;
use std::io::{self, Write};
use std::path::Path;

use pctenc::Encoder;

use args::{Cli, Command};
use output::Output;
use progress::Progress;
use threads::Threads;

/// Why a run failed; printed as one line on stderr.
#[derive(Debug)]
pub enum Failure {
    /// Writing `what` (a file name, `<stdout>`) failed, or something the run needs.
    Io { what: String, error: io::Error },
    /// Opening or reading the input `what` (a file name, `<stdin>`) failed: the commands
    /// report it and go on with the next input ([`Skipped`]).
    Input { what: String, error: io::Error },
    /// The input is not a valid encoding.
    Decode { input: String, line: u64, column: u64, error: pctenc::DecodeError },
    /// Input data that is not what the command needs (text that is not UTF-8 for
    /// `encode --charset`, escapes that are not valid in the charset of `decode --charset`).
    Data { input: String, line: u64, column: u64, message: String },
    /// The command line asks for something impossible.
    Usage(String),
    /// `check` found invalid lines (already reported, one per line).
    Invalid,
    /// Some inputs could not be read (already reported, one per input).
    Unreadable,
    /// A backend's answer is not the scalar reference's (`bench`'s check).
    Wrong(String),
}

impl Failure {
    pub fn io(path: &Path, error: io::Error) -> Failure {
        Failure::Io { what: escape_name(path), error }
    }

    /// The process exit status for this failure, as grep's and diff's: 1 for input data
    /// that is not valid, 2 for a usage or I/O error.
    pub fn status(&self) -> i32 {
        match self {
            Failure::Decode { .. } | Failure::Data { .. } | Failure::Invalid | Failure::Wrong(_) => 1,
            Failure::Usage(_) | Failure::Io { .. } | Failure::Input { .. } | Failure::Unreadable => 2,
        }
    }

    /// Whether the failure has been reported already (by `check`, as it went).
    pub fn is_reported(&self) -> bool {
        matches!(self, Failure::Invalid | Failure::Unreadable)
    }

    /// A closed standard output (`pctenc ... | head`): not worth a message.
    pub fn is_broken_pipe(&self) -> bool {
        matches!(self, Failure::Io { error, .. } if error.kind() == io::ErrorKind::BrokenPipe)
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Io { what, error } | Failure::Input { what, error } => write!(f, "{what}: {error}"),
            Failure::Decode { input, line, column, error } => write!(f, "{input}:{line}:{column}: {error}"),
            Failure::Data { input, line, column, message } => write!(f, "{input}:{line}:{column}: {message}"),
            Failure::Usage(message) | Failure::Wrong(message) => f.write_str(message),
            Failure::Invalid => f.write_str("invalid input"),
            Failure::Unreadable => f.write_str("some inputs could not be read"),
        }
    }
}

/// The inputs of a run that could not be opened or read to their end. As `cat` does, each is
/// reported when it is met and the run goes on with the next input; the run then fails
/// (status 2), so a `-o` file is left as it was, while standard output and a device have the
/// output of the other inputs.
#[derive(Default)]
pub struct Skipped(bool);

impl Skipped {
    /// `result`, the processing of one input, unless it failed for the input itself: that
    /// failure is reported, after the output so far is flushed (so that on a terminal the
    /// message comes where that input's output would have), and the run goes on.
    pub fn input(&mut self, result: Result<(), Failure>, out: &mut Output) -> Result<(), Failure> {
        match result {
            Err(failure @ Failure::Input { .. }) => {
                out.flush()?;
                report(&failure);
                self.0 = true;
                Ok(())
            }
            // The status says an input was skipped, as `check`'s does, whatever came after.
            Err(failure) if self.0 && !failure.is_broken_pipe() && !failure.is_reported() => {
                report(&failure);
                Err(Failure::Unreadable)
            }
            other => other,
        }
    }

    /// The end of the run: [`Failure::Unreadable`] if an input was skipped.
    pub fn end(self) -> Result<(), Failure> {
        if self.0 { Err(Failure::Unreadable) } else { Ok(()) }
    }
}

/// Ends a run's output: on success, [`Output::finish`]. On a failure, what was written to
/// standard output or a device is flushed, and a `-o` file is left as it was; when the run
/// failed only because inputs could not be read, an error flushing is the failure instead.
fn conclude(out: Output, result: Result<(), Failure>) -> Result<(), Failure> {
    match result {
        Ok(()) => out.finish(),
        Err(Failure::Unreadable) => out.abandon().and(Err(Failure::Unreadable)),
        Err(failure) => {
            let _ = out.abandon();
            Err(failure)
        }
    }
}

/// Writes `pctenc: {message}` and a line break to stderr, in one write, so that messages of
/// several processes sharing stderr never interleave. An error writing it (`2>/dev/full`, a
/// closed pipe) is ignored: the exit status still tells what happened.
pub fn report(message: impl fmt::Display) {
    let _ = report_or_fail(message);
}

/// [`report`], with the error of the write: for `check`, whose reports are its output, and
/// which stops when nobody reads them any more.
pub fn report_or_fail(message: impl fmt::Display) -> io::Result<()> {
    let line = format!("pctenc: {message}\n");
    io::stderr().lock().write_all(line.as_bytes())
}

/// The failure for a standard error that is a closed pipe: handled as a closed standard
/// output is (see [`Failure::is_broken_pipe`]).
pub fn stderr_closed() -> Failure {
    Failure::Io { what: "<stderr>".into(), error: io::ErrorKind::BrokenPipe.into() }
}

/// A file name as messages show it: control characters and bytes that are not UTF-8 never
/// reach the terminal raw. A backslash is written `\\`; line feed, carriage return and tab
/// `\n`, `\r`, `\t`; other ASCII control characters and each byte that is not part of valid
/// UTF-8 `\xHH`; C1 controls, the line and paragraph separators and the bidirectional
/// formatting characters `\u{HHHH}` (as Rust's `escape_debug` writes them). Everything else
/// is written as it is.
pub fn escape_name(path: &Path) -> String {
    #[cfg(unix)]
    let bytes = std::os::unix::ffi::OsStrExt::as_bytes(path.as_os_str());
    #[cfg(not(unix))]
    let lossy = path.to_string_lossy();
    #[cfg(not(unix))]
    let bytes = lossy.as_bytes();
    let mut out = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            match c {
                '\\' => out.push_str("\\\\"),
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' => out.push_str("\\t"),
                c if c.is_ascii_control() => out.push_str(&format!("\\x{:02x}", c as u32)),
                c if c.is_control() || is_invisible_format(c) => {
                    out.push_str(&format!("\\u{{{:x}}}", c as u32))
                }
                c => out.push(c),
            }
        }
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02x}"));
        }
    }
    out
}

/// The characters that messages and `decode --explain` write as `\u{HHHH}` although they
/// are not control characters: Unicode's bidi controls (the library's table, which IRI sets
/// escape too), which reorder the text around them, and the line and paragraph separators
/// U+2028 and U+2029, which break lines.
pub fn is_invisible_format(c: char) -> bool {
    pctenc::__cli::BIDI_CONTROL.contains(&c) || matches!(c, '\u{2028}' | '\u{2029}')
}

/// Runs one command.
pub fn run(cli: Cli) -> Result<(), Failure> {
    output::ignore_file_size_signal();
    // The threads of `-j N` (or one per CPU), started when a step needs them.
    let threads = Threads::new(cli.threads());
    command(cli, &threads)
}

/// `--iri` keeps non-ASCII UTF-8 raw: with a legacy `--charset` the text is not UTF-8 there.
fn iri_needs_utf8(iri: bool, charset: Option<pctenc::charset::Charset>) -> Result<(), Failure> {
    match charset {
        Some(cs) if iri && cs.output() != pctenc::charset::Charset::UTF_8 => Err(Failure::Usage(format!(
            "--iri keeps UTF-8 text raw, and with --charset {cs} the text is {cs}: give one of them"
        ))),
        _ => Ok(()),
    }
}

fn command(cli: Cli, threads: &Threads) -> Result<(), Failure> {
    let engine = match cli.backend() {
        None => pctenc::Engine::detect(),
        Some(backend) => pctenc::Engine::new(backend).ok_or_else(|| {
            Failure::Usage(format!("backend {backend} is not available on this CPU (see 'pctenc info')"))
        })?,
    };
    let no_progress = cli.no_progress();
    let requested_threads = cli.threads();
    let progress = |files: &[std::path::PathBuf], out: &Output| {
        Progress::new(input::Input::known_size(files), !no_progress, out)
    };
    match cli.command {
        Command::Encode(args) => {
            iri_needs_utf8(args.set.iri, args.charset)?;
            let encoder = match args.mode {
                Some(encoder) => encoder.engine(engine),
                None => {
                    let set = args.set.effective_set().map_err(Failure::Usage)?;
                    Encoder::new(set).engine(engine).lowercase(args.lowercase).keep_escapes(args.keep_escapes)
                }
            };
            let mut out = Output::open(args.io.output.as_deref())?;
            let progress = progress(&args.io.files, &out);
            let result = match args.charset {
                Some(cs) => charset::encode(&encoder, cs, &args.io.files, &mut out, &progress),
                None => encode::run(&encoder, args.binary, &args.io.files, &mut out, &progress, threads),
            };
            drop(progress);
            conclude(out, result)
        }
        Command::Decode(args) => {
            let decoder = args.decoder();
            let mut out = Output::open(args.io.output.as_deref())?;
            let progress = progress(&args.io.files, &out);
            let result = if args.explain {
                charset::explain_lines(decoder, &args.io.files, &mut out, &progress)
            } else if let Some(cs) = args.charset {
                charset::decode(decoder, cs, &args.io.files, &mut out, &progress)
            } else {
                decode::run(decoder, &args.io.files, &mut out, &progress, threads)
            };
            drop(progress);
            conclude(out, result)
        }
        Command::Normalize(args) => {
            let mut out = Output::open(args.io.output.as_deref())?;
            let result = normalize::run(&args.io.files, &mut out);
            conclude(out, result)
        }
        Command::Check(args) => {
            iri_needs_utf8(args.set.iri, args.charset)?;
            let set = args.set.effective_set().map_err(Failure::Usage)?;
            let limit = if args.quiet { Some(1) } else { args.max_errors };
            check::run(
                &Encoder::new(set).engine(engine),
                &args.files,
                check::Options { limit, quiet: args.quiet, charset: args.charset },
            )
        }
        Command::Sets => {
            let mut out = Output::open(None)?;
            out.write_all(sets::table().as_bytes())?;
            out.finish()
        }
        Command::Charsets => {
            let mut out = Output::open(None)?;
            out.write_all(charset::table().as_bytes())?;
            out.finish()
        }
        Command::Bench(args) => {
            let mut out = Output::open(None)?;
            let result = bench::run(&args, requested_threads, &mut out);
            conclude(out, result)
        }
        Command::Info(_) => {
            let mut out = Output::open(None)?;
            out.write_all(info::report(engine, threads.limit()).as_bytes())?;
            out.finish()
        }
        Command::Completions(options) => generate::completions(&options, args::command()),
        Command::Man(options) => generate::man(&options, args::command()),
    }
}
