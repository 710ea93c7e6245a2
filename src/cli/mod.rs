//! The `pctenc` command: streaming encode and decode over files and pipes.

pub mod args;
mod check;
mod decode;
mod encode;
mod info;
mod input;
mod normalize;
mod output;
mod progress;
mod sets;

use std::fmt;
use std::io;
use std::path::Path;

use args::{Cli, Command};
use output::Output;
use progress::Progress;

/// Why a run failed; printed as one line on stderr.
#[derive(Debug)]
pub enum Failure {
    /// Reading or writing `what` (a file name, `<stdin>`, `<stdout>`) failed.
    Io { what: String, error: io::Error },
    /// The input is not a valid encoding.
    Decode { input: String, line: u64, column: u64, error: pctenc::DecodeError },
    /// The command line asks for something impossible.
    Usage(String),
    /// `check` found invalid lines (already reported, one per line).
    Invalid,
}

impl Failure {
    pub fn io(path: &Path, error: io::Error) -> Failure {
        Failure::Io { what: path.display().to_string(), error }
    }

    /// The process exit status for this failure.
    pub fn status(&self) -> i32 {
        match self {
            Failure::Usage(_) | Failure::Io { .. } => 2,
            _ => 1,
        }
    }

    /// A closed standard output (`pctenc ... | head`): not worth a message.
    pub fn is_broken_pipe(&self) -> bool {
        matches!(self, Failure::Io { error, .. } if error.kind() == io::ErrorKind::BrokenPipe)
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Io { what, error } => write!(f, "{what}: {error}"),
            Failure::Decode { input, line, column, error } => write!(f, "{input}:{line}:{column}: {error}"),
            Failure::Usage(message) => f.write_str(message),
            Failure::Invalid => f.write_str("invalid input"),
        }
    }
}

/// Runs one command.
pub fn run(cli: Cli) -> Result<(), Failure> {
    // One pool for the run: `-j N` threads, or one per core. The command runs on it, so
    // that its parallel steps start there, with no hand-over from another thread.
    let mut pool = rayon::ThreadPoolBuilder::new();
    if let Some(n) = cli.threads {
        pool = pool.num_threads(n.into());
    }
    let pool =
        pool.build().map_err(|e| Failure::Io { what: "thread pool".into(), error: io::Error::other(e) })?;
    pool.install(|| command(cli))
}

fn command(cli: Cli) -> Result<(), Failure> {
    let engine = match cli.backend {
        None => pctenc::Engine::detect(),
        Some(backend) => pctenc::Engine::new(backend).ok_or_else(|| {
            Failure::Usage(format!("backend {backend} is not available on this CPU (see 'pctenc info')"))
        })?,
    };
    let progress = |files: &[std::path::PathBuf], out: &Output| {
        Progress::new(input::Input::known_size(files), !cli.no_progress, out)
    };
    match cli.command {
        Command::Encode(args) => {
            let set = args.set.effective_set().map_err(Failure::Usage)?;
            let encoder = engine.encoder(set).lowercase(args.lowercase).keep_escapes(args.keep_escapes);
            let mut out = Output::open(args.io.output.as_deref())?;
            let progress = progress(&args.io.files, &out);
            encode::run(&encoder, args.binary, &args.io.files, &mut out, &progress)?;
            out.finish()
        }
        Command::Decode(args) => {
            let utf8 = match args.utf8 {
                args::Utf8Arg::Bytes => pctenc::Utf8Mode::Bytes,
                args::Utf8Arg::Strict => pctenc::Utf8Mode::Strict,
                args::Utf8Arg::Lossy => pctenc::Utf8Mode::Lossy,
            };
            let mut decoder = pctenc::Decoder::new()
                .lenient(args.lenient)
                .plus_as_space(args.plus)
                .utf8(utf8)
                .legacy_u(args.legacy_u)
                .reject(args.reject.iter().fold(pctenc::Reject::NONE, |r, class| r | class.classes()));
            if let Some(set) = args.keep_encoded {
                decoder = decoder.keep_encoded(set);
            }
            let mut out = Output::open(args.io.output.as_deref())?;
            let progress = progress(&args.io.files, &out);
            decode::run(decoder, &args.io.files, &mut out, &progress)?;
            out.finish()
        }
        Command::Normalize(args) => {
            let mut out = Output::open(args.io.output.as_deref())?;
            normalize::run(&args.io.files, &mut out)?;
            out.finish()
        }
        Command::Check(args) => {
            let set = args.set.effective_set().map_err(Failure::Usage)?;
            if check::run(&engine.encoder(set), &args.files)? { Ok(()) } else { Err(Failure::Invalid) }
        }
        Command::Sets => {
            let mut out = Output::open(None)?;
            out.write_all(sets::table().as_bytes())?;
            out.finish()
        }
        Command::Info => {
            let mut out = Output::open(None)?;
            out.write_all(info::report(engine).as_bytes())?;
            out.finish()
        }
    }
}
