//! The command line, as clap sees it.

use std::path::PathBuf;

use clap::error::ErrorKind;
use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};
use pctenc::charset::Charset;
use pctenc::sets::NamedSet;
use pctenc::{Backend, Decoder, Encoder, Reject, Set, Utf8Mode};

/// The exit statuses, the same for every command (as grep's and diff's).
macro_rules! exit_status {
    () => {
        "Exit status: 0 success; 1 invalid input data (a decode error, a bad line for `check`);\n\
         2 usage or I/O error (a bad command line, a missing file, an unwritable output).\n\
         An input that cannot be read is reported and the others are still processed (status 2;\n\
         a -o file is then left as it was)."
    };
}
const EXIT_STATUS: &str = exit_status!();
/// For the commands that read no data they could find invalid.
const NO_DATA_EXIT_STATUS: &str =
    "Exit status: 0 success; 2 usage or I/O error (a bad command line, an unwritable output).";
const NORMALIZE_EXIT_STATUS: &str = "Exit status: 0 success (normalize finds no input invalid); 2 usage or I/O error (a bad\n\
    command line, a missing file, an unwritable output). An input that cannot be read is\n\
    reported and the others are still processed (status 2; a -o file is then left as it was).";
const BENCH_EXIT_STATUS: &str = "Examples:\n  \
    pctenc bench\n  \
    pctenc bench --seconds 20 --size 4K,1M\n  \
    pctenc bench access.log --json > bench.json\n  \
    pctenc bench -j 8 --size 16M\n\n\
    Exit status: 0 success; 1 a backend's answer differs from the scalar reference; 2 usage or\n\
    I/O error (a bad command line, a missing file, an unwritable output). An input that cannot\n\
    be read is reported and the others are still measured (status 2).";
const COMPLETIONS_HELP: &str = "Install, for example:\n  \
    pctenc completions bash > ~/.local/share/bash-completion/completions/pctenc\n  \
    pctenc completions zsh > ~/.zfunc/_pctenc    # a folder in $fpath\n  \
    pctenc completions fish > ~/.config/fish/completions/pctenc.fish\n\n\
    Exit status: 0 success; 2 usage or I/O error (a bad command line, an unwritable output).";
const MAN_HELP: &str = "Read it with `pctenc man | man -l -`; install it with\n  \
    pctenc man > /usr/local/share/man/man1/pctenc.1\n  \
    pctenc man encode > /usr/local/share/man/man1/pctenc-encode.1\n\n\
    Exit status: 0 success; 2 usage or I/O error (a bad command line, an unwritable output).";
const CHECK_EXIT_STATUS: &str = "Exit status: 0 every line is valid; 1 a bad line was found; 2 usage error, or an input\n\
    could not be read (the other inputs are still checked). With -q: 1 as soon as a bad line\n\
    is found, even if an earlier input could not be read (as grep -q); 2 if none was found\n\
    and an input could not be read.";

/// Percent-encode and decode (URL-encode), exactly as the standards and the popular
/// implementations do, fast.
#[derive(Debug, Parser)]
#[command(name = "pctenc", version, about, long_about = None)]
#[command(after_help = concat!("Examples:\n  \
    echo 'Jürgen & Björk' | pctenc encode --set component\n  \
    echo '/docs/100%/caf%C3%A9 menu' | pctenc encode --set path --keep-escapes\n  \
    pctenc decode --utf8 strict access.log -o decoded.log\n  \
    pctenc encode --binary -j 8 dump.bin -o dump.txt\n  \
    pctenc normalize urls.txt -o normalized.txt\n  \
    pctenc decode --keep-encoded uri-reserved --reject controls,slashes paths.txt\n  \
    pctenc sets\n  \
    pctenc bench\n\n\
    Each command's options: pctenc COMMAND --help.\n\n", exit_status!()))]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
    // `--backend`, `-j` and `--no-progress` before the command name, as earlier versions
    // took them: still accepted for a command that uses them (see `leading_options`), not
    // shown in the help (each command lists those it uses).
    #[arg(long, hide = true, value_name = "NAME", value_parser = parse_backend)]
    pub backend: Option<Backend>,
    #[arg(short = 'j', long, hide = true, value_name = "N", value_parser = parse_threads, allow_negative_numbers = true)]
    pub threads: Option<u16>,
    #[arg(long, hide = true)]
    pub no_progress: bool,
}

/// `-j N`: from 1 to four threads per CPU ([`super::threads::most`]).
fn parse_threads(value: &str) -> Result<u16, String> {
    let most = super::threads::most();
    let per_cpu = super::threads::PER_CPU;
    match value.parse::<u64>() {
        Ok(0) => Err(format!("N must be 1 or more (at most {most})")),
        Ok(n) if n <= most as u64 => Ok(n as u16),
        Ok(_) => Err(format!(
            "at most {most} threads: {per_cpu} per CPU, and pctenc may run on {} CPUs",
            super::threads::cpus()
        )),
        Err(_) if is_negative(value) => Err(format!("N must be 1 or more (at most {most})")),
        Err(e) => Err(e.to_string()),
    }
}

/// `--max-errors N`: 1 or more.
fn parse_count(value: &str) -> Result<u64, String> {
    match value.parse::<u64>() {
        Ok(0) => Err("N must be 1 or more".into()),
        Ok(n) => Ok(n),
        Err(_) if is_negative(value) => Err("N must be 1 or more".into()),
        Err(e) => Err(e.to_string()),
    }
}

/// A negative number (which the options that take numbers accept as their value, so that
/// the message says what the option takes, not to pass `-1` after `--` as a file name).
fn is_negative(value: &str) -> bool {
    value
        .strip_prefix('-')
        .is_some_and(|digits| !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
}

/// `-o OUT`: any path but an empty one.
fn output_path() -> impl clap::builder::TypedValueParser<Value = PathBuf> {
    use clap::builder::TypedValueParser as _;
    clap::builder::OsStringValueParser::new().try_map(|path| {
        if path.is_empty() { Err("the output path is empty") } else { Ok(PathBuf::from(path)) }
    })
}

/// For an option of another command (`decode --iri`): what clap says of an unknown argument
/// (a tip to pass it after `--`, which would make it a file name) replaced by where the
/// option belongs. Other unknown arguments keep clap's message.
fn option_of_another_command(command: &mut clap::Command, e: clap::Error) -> clap::Error {
    use clap::error::{ContextKind, ContextValue};
    let given = match e.get(ContextKind::InvalidArg) {
        Some(ContextValue::String(given)) => given.split('=').next().unwrap_or_default().to_string(),
        _ => return e,
    };
    let matches = |arg: &clap::Arg| match given.strip_prefix("--") {
        Some(long) => arg.get_long() == Some(long),
        None => {
            let mut short = given.strip_prefix('-').unwrap_or_default().chars();
            matches!((short.next(), short.next()), (Some(c), None) if arg.get_short() == Some(c))
        }
    };
    let Some(name) = command_name(command) else { return e };
    let owners: Vec<String> = command
        .get_subcommands()
        .filter(|sub| sub.get_arguments().any(|arg| matches(arg) && !arg.is_hide_set()))
        .map(|sub| format!("`{}`", sub.get_name()))
        .collect();
    if owners.is_empty() {
        return e;
    }
    let mut message = format!("{given} is an option of {}, not of `{name}`", owners.join(" and "));
    if name == "decode" && given == "--iri" {
        message.push_str(
            ": decode copies raw text as it is, non-ASCII included, and decodes every escape \
             (--keep-encoded keeps some escaped)",
        );
    }
    match command.find_subcommand_mut(&name) {
        Some(sub) => sub.error(ErrorKind::UnknownArgument, message),
        None => command.error(ErrorKind::UnknownArgument, message),
    }
}

/// The name of the command given on the command line: the first argument that names one,
/// after the options that may come before it (`--backend NAME`, `-j N`, `--no-progress`).
fn command_name(command: &clap::Command) -> Option<String> {
    let mut args = std::env::args_os().skip(1);
    while let Some(arg) = args.next() {
        let arg = arg.to_str()?;
        if ["--backend", "-j", "--threads"].contains(&arg) {
            args.next();
        } else if !arg.starts_with('-') {
            return command.find_subcommand(arg).map(|sub| sub.get_name().to_string());
        }
    }
    None
}

/// Parses the command line (`std::env::args_os`), with the help texts each command gives
/// its shared options.
pub fn try_parse() -> Result<Cli, clap::Error> {
    // `--version` with the backend and the CPU features; `-V` the version alone. Not in
    // `command()`: the man page would carry the CPU of the machine that generated it.
    let mut command = command().long_version(super::info::long_version());
    let matches = match command.try_get_matches_from_mut(std::env::args_os()) {
        Ok(matches) => matches,
        Err(e) if e.kind() == ErrorKind::UnknownArgument => {
            return Err(option_of_another_command(&mut command, e));
        }
        Err(e) => return Err(e),
    };
    let cli = Cli::from_arg_matches(&matches).map_err(|e| e.format(&mut command))?;
    let name = matches.subcommand_name().unwrap_or_default();
    cli.leading_options(name).map_err(|why| command.error(ErrorKind::ArgumentConflict, why))?;
    Ok(cli)
}

/// The command line's definition: `check` describes the set options for what it checks.
pub fn command() -> clap::Command {
    Cli::command().mut_subcommand("check", |check| {
        check
            .mut_arg("set", |a| a.help("The set every line must already be encoded for (see `pctenc sets`)"))
            .mut_arg("keep", |a| a.help("Also allow these ASCII characters raw"))
            .mut_arg("escape", |a| a.help("Also require these ASCII characters to be escaped"))
            .mut_arg("space_as_plus", |a| {
                a.help("A space must be written as `+` (as forms do), and so a `+` must be escaped")
            })
            .mut_arg("iri", |a| {
                a.help(
                    "Also allow raw the non-ASCII characters `encode --iri` keeps raw (RFC 3987's ucschar, \
                     less bidi formatting characters); C1 controls, private use, noncharacters and \
                     bytes that are not valid UTF-8 must still be escaped",
                )
            })
    })
}

impl Cli {
    /// `--backend`, `-j` and `--no-progress` before the command name are taken only for a
    /// command that uses them, and only when not given after the command name too: never
    /// ignored, never overridden in silence.
    fn leading_options(&self, name: &str) -> Result<(), String> {
        // For each option, whether the command takes it and, if so, whether it was given
        // after the command name.
        let (backend, threads, no_progress) = match &self.command {
            Command::Encode(a) => {
                (Some(a.backend.is_some()), Some(a.run.threads.is_some()), Some(a.run.no_progress))
            }
            Command::Decode(a) => (None, Some(a.run.threads.is_some()), Some(a.run.no_progress)),
            Command::Check(a) => (Some(a.backend.is_some()), None, None),
            Command::Info(a) => (Some(a.backend.is_some()), Some(a.threads.is_some()), None),
            Command::Bench(a) => (None, Some(a.threads.is_some()), None),
            Command::Normalize(_)
            | Command::Sets
            | Command::Charsets
            | Command::Completions(_)
            | Command::Man(_) => (None, None, None),
        };
        let given = [
            ("--backend", self.backend.is_some(), backend),
            ("-j/--threads", self.threads.is_some(), threads),
            ("--no-progress", self.no_progress, no_progress),
        ];
        for (option, before, after) in given {
            match (before, after) {
                (true, None) => {
                    return Err(format!(
                        "{option} is given before the command name, but `{name}` does not use it"
                    ));
                }
                (true, Some(true)) => {
                    return Err(format!(
                        "{option} is given both before and after the command name `{name}`: give it once"
                    ));
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// The backend asked for, after the command name or before it (not both).
    pub fn backend(&self) -> Option<Backend> {
        let own = match &self.command {
            Command::Encode(a) => a.backend,
            Command::Check(a) => a.backend,
            Command::Info(a) => a.backend,
            _ => None,
        };
        own.or(self.backend)
    }

    /// The number of threads asked for, after the command name or before it (not both).
    pub fn threads(&self) -> Option<u16> {
        let own = match &self.command {
            Command::Encode(a) => a.run.threads,
            Command::Decode(a) => a.run.threads,
            Command::Info(a) => a.threads,
            Command::Bench(a) => a.threads,
            _ => None,
        };
        own.or(self.threads)
    }

    /// Whether the progress bar is turned off.
    pub fn no_progress(&self) -> bool {
        let own = match &self.command {
            Command::Encode(a) => a.run.no_progress,
            Command::Decode(a) => a.run.no_progress,
            _ => false,
        };
        own || self.no_progress
    }
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Percent-encode each line (or, with --binary, every byte) of the input.
    #[command(after_help = EXIT_STATUS)]
    Encode(EncodeArgs),
    /// Percent-decode the input; malformed escapes are errors unless --lenient.
    #[command(after_help = EXIT_STATUS)]
    Decode(DecodeArgs),
    /// Check that every line is already correctly encoded for a set: exit 0 if so, else 1,
    /// with each bad line's first problem on stderr.
    #[command(after_help = CHECK_EXIT_STATUS)]
    Check(CheckArgs),
    /// Normalize escapes (RFC 3986 6.2.2.1-2): uppercase hex, decode unreserved characters.
    ///
    /// Uppercases the hex digits of every escape and decodes the escapes of unreserved
    /// characters (letters, digits, `-._~`). Nothing else changes: not reserved escapes, not a
    /// `%` that starts no escape, not raw bytes (so lines stay lines). Dot segments are not
    /// removed (RFC 3986 6.2.2.3), and decoding `%2E` can make a `..` appear. The escape of a hex digit
    /// right after a `%` that starts no escape (`%%34`) stays escaped too, so that the output
    /// decodes to what the input decodes to.
    #[command(after_help = NORMALIZE_EXIT_STATUS)]
    Normalize(NormalizeArgs),
    /// List every set with the characters it keeps.
    #[command(after_help = NO_DATA_EXIT_STATUS)]
    Sets,
    /// List the character encodings of --charset with their labels.
    #[command(after_help = NO_DATA_EXIT_STATUS)]
    Charsets,
    /// Show the CPU features found, the backends available and the one chosen.
    #[command(after_help = NO_DATA_EXIT_STATUS)]
    Info(InfoArgs),
    /// Time encode, decode and validate on every backend this CPU has, beside memcpy, after
    /// checking each backend's answers against the scalar reference.
    ///
    /// Without FILE, the inputs are the workloads of pctenc's benchmarks (safe text, an
    /// access-log mix, multilingual text, random bytes) at 64 B, 4 KiB, 64 KiB and 1 MiB.
    /// With files, each file is measured (its first 16 MiB, or each --size): encode takes its
    /// lines, their ends kept raw as `pctenc encode` keeps them (every byte with --binary);
    /// decode and validate take the encoding of the same data (with `%` escaped, for the sets
    /// that keep it, so that it decodes back).
    ///
    /// Every way of doing an operation (memcpy, each backend, the parallel path with -j) is
    /// timed in turn, round after round, and its figure is the median of its rounds in GB/s
    /// of the operation's input, with the median deviation of the rounds (±). Before any timing,
    /// every backend's output must equal scalar's: a difference ends the run with status 1,
    /// naming the backend and the first offset that differs. A build that is not a release
    /// build, and rounds that spread widely (a busy CPU), are warned about on stderr.
    #[command(after_help = BENCH_EXIT_STATUS)]
    Bench(BenchArgs),
    /// Print the completion script for a shell (bash, zsh, fish, elvish, powershell).
    #[command(after_help = COMPLETIONS_HELP)]
    Completions(super::generate::CompletionsArgs),
    /// Print the manual page (roff) of pctenc, or of one of its commands.
    #[command(after_help = MAN_HELP)]
    Man(super::generate::ManArgs),
}

/// `-j` and `--no-progress`, for the commands that split large files among threads.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// Threads for large inputs (default: one per core; at most 4 per core). Regular files are
    /// memory-mapped and split among the threads; the output is the same for every number of
    /// threads. Threads start only for an input large enough to share (256 KiB to encode, 1
    /// MiB to decode), and no more than it has 64 KiB pieces.
    #[arg(short = 'j', long, value_name = "N", value_parser = parse_threads, allow_negative_numbers = true)]
    pub threads: Option<u16>,
    /// Never show a progress bar. (One is shown on stderr only when stderr is a terminal, the
    /// output is not one, and the input files are large.)
    #[arg(long)]
    pub no_progress: bool,
}

#[derive(Debug, Args)]
pub struct InfoArgs {
    /// Report this backend as the one chosen, as `encode --backend NAME` would run on it (an
    /// error if the CPU lacks it).
    #[arg(long, value_name = "NAME", value_parser = parse_backend)]
    pub backend: Option<Backend>,
    /// Report the number of threads `encode -j N` and `decode -j N` would use on a large input
    /// (at most 4 per core).
    #[arg(short = 'j', long, value_name = "N", value_parser = parse_threads, allow_negative_numbers = true)]
    pub threads: Option<u16>,
}

#[derive(Debug, Args)]
pub struct BenchArgs {
    /// The set to encode with and validate against (see `pctenc sets`).
    #[arg(short, long, value_name = "NAME", default_value = "rfc3986", value_parser = parse_named_set)]
    pub set: &'static NamedSet,
    /// Input sizes, comma-separated (`64`, `4K`, `64KiB`, `1M`): the built-in inputs at each
    /// size, or the first SIZE bytes of each file (up to a line end, without --binary).
    #[arg(long, value_name = "SIZE", value_delimiter = ',', value_parser = parse_size, allow_negative_numbers = true)]
    pub size: Vec<usize>,
    /// The time to spend measuring, in all (the checks and the start take a little more).
    #[arg(long, value_name = "SECONDS", default_value = "5", value_parser = parse_seconds, allow_negative_numbers = true)]
    pub seconds: f64,
    /// Encode every byte of the files, line ends included, instead of each line.
    #[arg(long, requires = "files")]
    pub binary: bool,
    /// Write JSON Lines instead of tables: a `run` record (CPU, features, backends, build),
    /// one `measurement` record per figure, an `end` record.
    #[arg(long)]
    pub json: bool,
    /// Also time the parallel path (`encode -j N`, `decode -j N`) on N threads, for the
    /// inputs that reach its threshold (256 KiB to encode, 1 MiB to decode).
    #[arg(short = 'j', long, value_name = "N", value_parser = parse_threads, allow_negative_numbers = true)]
    pub threads: Option<u16>,
    /// Files to measure instead of the built-in inputs; `-` reads standard input.
    #[arg(value_name = "FILE")]
    pub files: Vec<PathBuf>,
}

#[derive(Debug, Args)]
pub struct SetArgs {
    /// The set of bytes to escape (see `pctenc sets`).
    #[arg(short, long, value_name = "NAME", default_value = "rfc3986", value_parser = parse_set)]
    pub set: Set,
    /// Also keep these ASCII characters raw (added to the set's kept characters).
    #[arg(long, value_name = "CHARS")]
    pub keep: Option<String>,
    /// Also escape these ASCII characters.
    #[arg(long, value_name = "CHARS")]
    pub escape: Option<String>,
    /// Write a space as `+` (as forms do); `+` itself is then escaped, as `%2B`, whatever
    /// the set.
    #[arg(long)]
    pub space_as_plus: bool,
    /// Keep non-ASCII characters raw as an IRI may hold them (RFC 3987's ucschar, less bidi
    /// formatting characters); C1 controls, private use, noncharacters and bytes that are not
    /// valid UTF-8 are still escaped.
    #[arg(long)]
    pub iri: bool,
}

#[derive(Debug, Args)]
pub struct EncodeArgs {
    #[command(flatten)]
    pub set: SetArgs,
    /// Encode on this backend instead of the fastest one the CPU has (see `pctenc info`).
    #[arg(long, value_name = "NAME", value_parser = parse_backend)]
    pub backend: Option<Backend>,
    #[command(flatten)]
    pub run: RunArgs,
    /// Write hex digits in lowercase (`%c3` instead of `%C3`).
    #[arg(long)]
    pub lowercase: bool,
    /// The encoder in words, as the C API, nginx, SQL, Python and the page write it: one set
    /// name and any of `space_as_plus`, `lowercase`, `requote`, `iri` ("form lowercase"; see
    /// docs/WORDS.md). Instead of --set, --keep, --escape and those flags.
    #[arg(long, value_name = "WORDS", value_parser = parse_encoder_words,
          conflicts_with_all = ["set", "keep", "escape", "space_as_plus", "iri", "lowercase", "keep_escapes",
                                "charset"])]
    pub mode: Option<Encoder>,
    /// Encode every byte, line endings included, instead of each line on its own.
    #[arg(long)]
    pub binary: bool,
    /// Re-quote: keep every valid `%HH` as it is and write a `%` that starts no escape as
    /// `%25`, so that partly encoded input is not encoded twice. With a space-as-`+` set, a
    /// `+` is kept as an encoded space.
    #[arg(long)]
    pub keep_escapes: bool,
    /// Convert each line to this character encoding before percent-encoding it, as a page in
    /// that encoding submits a form (`sjis`, `euc-kr`, `big5`, `gb18030`, `cp1252`, ...; see
    /// `pctenc charsets`). A character it cannot represent is written as `%26%23N%3B` (`&#N;`).
    /// The input must be UTF-8 text.
    #[arg(long, value_name = "LABEL", value_parser = parse_charset, conflicts_with = "binary")]
    pub charset: Option<Charset>,
    #[command(flatten)]
    pub io: IoArgs,
}

#[derive(Debug, Args)]
pub struct NormalizeArgs {
    #[command(flatten)]
    pub io: IoArgs,
}

#[derive(Debug, Args)]
pub struct CheckArgs {
    #[command(flatten)]
    pub set: SetArgs,
    /// Validate on this backend instead of the fastest one the CPU has (see `pctenc info`).
    #[arg(long, value_name = "NAME", value_parser = parse_backend)]
    pub backend: Option<Backend>,
    /// Stop reading an input after N bad lines in it, and go on with the next input, as
    /// grep's -m does (standard input that is a regular file is left just after the Nth bad
    /// line). Stopping early does not change the exit status.
    #[arg(long, value_name = "N", value_parser = parse_count, allow_negative_numbers = true)]
    pub max_errors: Option<u64>,
    /// Report no bad line, only the exit status, and stop at the first bad line: as grep -q,
    /// read nothing more, so later inputs are not opened (nor reported if they cannot be).
    /// An input before it that cannot be read is reported.
    #[arg(short, long)]
    pub quiet: bool,
    /// Also require each line's escapes to decode to valid text in this character encoding
    /// (`utf-8`, `sjis`, `euc-kr`, ...; see `pctenc charsets`).
    #[arg(long, value_name = "LABEL", value_parser = parse_charset)]
    pub charset: Option<Charset>,
    /// Input files; `-` or none reads standard input.
    #[arg(value_name = "FILE")]
    pub files: Vec<PathBuf>,
}

#[derive(Debug, Args)]
pub struct DecodeArgs {
    /// The decoder in words, as the C API, nginx, SQL, Python and the page write it:
    /// `strict` or `lenient`, `plus`, `utf8=bytes|strict|lossy` (`lossy` is `utf8=lossy`),
    /// `legacy_u`, `reject_nul|controls|crlf|slashes|all`, `keep_encoded=SET` ("lenient plus
    /// lossy"; see docs/WORDS.md). Instead of the flags that say the same.
    #[arg(long, value_name = "WORDS", value_parser = parse_decoder_words,
          conflicts_with_all = ["lenient", "plus", "utf8", "charset", "keep_encoded", "legacy_u", "reject"])]
    pub mode: Option<Decoder>,
    /// Copy a `%` that does not start a valid escape as is, instead of failing.
    #[arg(long)]
    pub lenient: bool,
    /// Decode `+` as a space (forms, `quote_plus`).
    #[arg(long)]
    pub plus: bool,
    /// What to do with decoded bytes that are not valid UTF-8 (or, with --charset, not valid
    /// in that encoding): write them as they are (`bytes`, the default without --charset),
    /// fail (`strict`, the default with it), or replace each bad sequence by U+FFFD (`lossy`).
    #[arg(long, value_name = "MODE", ignore_case = true)]
    pub utf8: Option<Utf8Arg>,
    /// The decoded bytes are text in this character encoding (`sjis`, `euc-kr`, `big5`,
    /// `gb18030`, `cp1252`, ...; see `pctenc charsets`): convert them to UTF-8, with --utf8
    /// saying what a malformed sequence does. Each line is decoded on its own. Not with
    /// --legacy-u, --keep-encoded or --reject, which act on single bytes, and a byte of a
    /// legacy encoding's character (Shift_JIS's `\` in `表`) is not a character.
    #[arg(long, value_name = "LABEL", value_parser = parse_charset,
          conflicts_with_all = ["legacy_u", "keep_encoded", "reject"])]
    pub charset: Option<Charset>,
    /// Instead of the decoded text, write for each line whose decoded bytes are not UTF-8
    /// the common legacy encodings that read them without an error, and the text under each:
    /// help to see which encoding mojibake came from. A long line is shown 40 decoded bytes
    /// either side of where it stops being UTF-8, with how many bytes were left out.
    #[arg(long, conflicts_with = "charset")]
    pub explain: bool,
    /// Copy the escapes of the bytes in set NAME exactly as written (`%2F` stays `%2F`, case
    /// kept): a name as `encode --set` takes, or `uri-reserved` (`;/?:@&=+$,#`, as JavaScript's
    /// decodeURI). The named sets escape non-ASCII bytes, so they keep every non-ASCII escape
    /// too; `uri-reserved` does not.
    #[arg(long, value_name = "NAME", value_parser = parse_keep_set)]
    pub keep_encoded: Option<Set>,
    /// Also decode `%uHHHH` (JavaScript's unescape), pairing surrogates. A lone surrogate is
    /// an error (U+FFFD with --lenient); so is a `%u` without four hex digits (copied with
    /// --lenient).
    #[arg(long)]
    pub legacy_u: bool,
    /// Fail on an escape that decodes to a byte of these classes (comma-separated): `nul`,
    /// `controls` (C0 and DEL), `crlf`, `slashes` (`/` and `\`), `all`. Raw bytes are not
    /// checked.
    #[arg(long, value_name = "CLASSES", value_delimiter = ',', ignore_case = true)]
    pub reject: Vec<RejectArg>,
    #[command(flatten)]
    pub run: RunArgs,
    #[command(flatten)]
    pub io: IoArgs,
}

#[derive(Debug, Args)]
pub struct IoArgs {
    /// Write to OUT instead of standard output (`-` is standard output). A name of an open
    /// descriptor (`/dev/stderr`, `/dev/fd/N`, `/proc/self/fd/N`, a link to one) writes to
    /// that descriptor as it is (`-o /dev/fd/5 5>>log` appends). A regular file is
    /// replaced only when the whole run succeeds: a failed or interrupted run leaves it as it
    /// was. It keeps its permissions (without setuid and setgid) and, where allowed, its owner
    /// and group; a new file gets 0666 minus the umask. Replacing breaks hard links, and
    /// replaces a write-protected file too, as `sed -i` does. A symbolic link is followed:
    /// the file it names is replaced, the link stays. A device or FIFO (`/dev/null`) is
    /// written in place. (Input files are memory-mapped: do not truncate one while pctenc
    /// reads it.)
    #[arg(short, long, value_name = "OUT", value_parser = output_path())]
    pub output: Option<PathBuf>,
    /// Input files, processed in order into one output; `-` or none reads standard input.
    #[arg(value_name = "FILE")]
    pub files: Vec<PathBuf>,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum Utf8Arg {
    Bytes,
    Strict,
    Lossy,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum RejectArg {
    Nul,
    Controls,
    #[value(alias = "cr-lf")]
    Crlf,
    Slashes,
    All,
}

impl RejectArg {
    pub fn classes(self) -> Reject {
        match self {
            RejectArg::Nul => Reject::NUL,
            RejectArg::Controls => Reject::CONTROLS,
            RejectArg::Crlf => Reject::CR_LF,
            RejectArg::Slashes => Reject::SLASHES,
            RejectArg::All => Reject::ALL,
        }
    }
}

/// Names are compared case-insensitively, `_` as `-`, as `Set::by_name` does.
fn normalized(name: &str) -> String {
    name.to_ascii_lowercase().replace('_', "-")
}

/// The known name closest to `name`, if one is close enough to be a likely typo.
fn nearest<'a>(name: &str, known: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let name = normalized(name);
    known
        .into_iter()
        .map(|k| (strsim::jaro(&name, &normalized(k)), k))
        .filter(|&(score, _)| score > 0.7)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, k)| k)
}

/// "unknown {what}`: did you mean ...?`; known {what}s: ..."
fn unknown(what: &str, name: &str, names: &[&str], aliases: &[&str]) -> String {
    let tip = match nearest(name, names.iter().chain(aliases).copied()) {
        Some(near) => format!(" (did you mean `{near}`?)"),
        None => String::new(),
    };
    format!("unknown {what}{tip}; known {what}s: {}", names.join(", "))
}

fn parse_charset(label: &str) -> Result<Charset, String> {
    Charset::for_label(label).map_err(|_| {
        let names: Vec<&str> = Charset::all().map(Charset::name).collect();
        let labels: Vec<&str> = Charset::all().flat_map(|c| c.labels().iter().copied()).collect();
        let tip = match nearest(label, names.iter().chain(&labels).copied()) {
            Some(near) => format!(" (did you mean `{near}`?)"),
            None => String::new(),
        };
        format!("unknown character encoding{tip}; `pctenc charsets` lists them and their labels")
    })
}

fn parse_backend(name: &str) -> Result<Backend, String> {
    Backend::from_name(name).ok_or_else(|| {
        let names: Vec<&str> = Backend::ALL.iter().map(|b| b.name()).collect();
        unknown("backend", name, &names, &[])
    })
}

/// A set for --keep-encoded: a named set, or `uri-reserved`.
fn parse_keep_set(name: &str) -> Result<Set, String> {
    let reserved = pctenc::sets::NamedSet {
        name: "uri-reserved",
        aliases: &["decodeuri"],
        set: Decoder::URI_RESERVED,
        description: "",
    };
    if reserved.matches(name) {
        return Ok(reserved.set);
    }
    Set::by_name(name).ok_or_else(|| set_names_error(name, Some(&reserved)))
}

/// A set by name, its name kept (`pctenc bench` names it in its report).
fn parse_named_set(name: &str) -> Result<&'static NamedSet, String> {
    pctenc::sets::NAMED.iter().find(|n| n.matches(name)).ok_or_else(|| set_names_error(name, None))
}

/// The largest `bench --size`: every input is held in memory with its encoding (up to three
/// times its size), and the check holds two answers beside them.
pub const MOST_SIZE: usize = 1 << 30;
/// The largest `bench --seconds`.
pub const MOST_SECONDS: f64 = 3600.0;

/// `--size`: bytes, with an optional `K`/`KiB`/`M`/`MiB`/`G`/`GiB` suffix (powers of 1024);
/// from 1 byte to [`MOST_SIZE`].
fn parse_size(value: &str) -> Result<usize, String> {
    let lower = value.trim().to_ascii_lowercase();
    let split = lower.find(|c: char| !c.is_ascii_digit()).unwrap_or(lower.len());
    let (digits, unit) = lower.split_at(split);
    let shift = match unit.trim() {
        "" | "b" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        _ => return Err("want a number of bytes, such as 64, 4K, 64KiB or 1M".into()),
    };
    let most = MOST_SIZE;
    let n: u64 = match digits.parse() {
        Ok(n) => n,
        Err(_) if digits.is_empty() => {
            return Err("want a number of bytes, such as 64, 4K, 64KiB or 1M".into());
        }
        Err(_) => u64::MAX,
    };
    match n.checked_shl(shift).filter(|bytes| bytes >> shift == n) {
        Some(0) => Err("SIZE must be 1 byte or more".into()),
        Some(bytes) if bytes <= most as u64 => Ok(bytes as usize),
        _ => Err(format!("SIZE must be at most {} GiB", most >> 30)),
    }
}

/// `--seconds`: more than 0, at most [`MOST_SECONDS`].
fn parse_seconds(value: &str) -> Result<f64, String> {
    let most = MOST_SECONDS;
    match value.trim().parse::<f64>() {
        Ok(s) if s.is_nan() => Err("want a number of seconds, such as 5 or 0.5".into()),
        Ok(s) if s <= 0.0 => Err(format!("SECONDS must be more than 0 (at most {most})")),
        Ok(s) if s > most => Err(format!("SECONDS must be at most {most} (an hour)")),
        Ok(s) => Ok(s),
        Err(_) => Err("want a number of seconds, such as 5 or 0.5".into()),
    }
}

/// `decode --mode`: the core's words (`pctenc::words`), its message as the error.
fn parse_decoder_words(words: &str) -> Result<Decoder, String> {
    words.parse().map_err(|e: pctenc::WordsError| e.to_string())
}

/// `encode --mode`: the core's words (`pctenc::words`), its message as the error.
fn parse_encoder_words(words: &str) -> Result<Encoder, String> {
    words.parse().map_err(|e: pctenc::WordsError| e.to_string())
}

fn parse_set(name: &str) -> Result<Set, String> {
    Set::by_name(name).ok_or_else(|| set_names_error(name, None))
}

fn set_names_error(name: &str, extra: Option<&pctenc::sets::NamedSet>) -> String {
    let named = extra.into_iter().chain(pctenc::sets::NAMED);
    let (names, aliases): (Vec<&str>, Vec<&[&str]>) = named.map(|n| (n.name, n.aliases)).unzip();
    unknown("set", name, &names, &aliases.concat())
}

impl DecodeArgs {
    /// The decoder --lenient, --plus, --utf8, --legacy-u, --reject and --keep-encoded ask
    /// for. --utf8 defaults to `strict` with --charset, where the bytes must be text in that
    /// encoding, and to `bytes` without.
    pub fn decoder(&self) -> Decoder {
        if let Some(decoder) = self.mode {
            return decoder;
        }
        let utf8 = match self.utf8 {
            None if self.charset.is_some() => Utf8Mode::Strict,
            None | Some(Utf8Arg::Bytes) => Utf8Mode::Bytes,
            Some(Utf8Arg::Strict) => Utf8Mode::Strict,
            Some(Utf8Arg::Lossy) => Utf8Mode::Lossy,
        };
        let decoder = Decoder::new()
            .lenient(self.lenient)
            .plus_as_space(self.plus)
            .utf8(utf8)
            .legacy_u(self.legacy_u)
            .reject(self.reject.iter().fold(Reject::NONE, |r, class| r | class.classes()));
        match self.keep_encoded {
            Some(set) => decoder.keep_encoded(set),
            None => decoder,
        }
    }
}

impl SetArgs {
    /// The set with the --keep, --escape, --space-as-plus and --iri changes applied.
    pub fn effective_set(&self) -> Result<Set, String> {
        let (keep, escape) = (self.keep.as_deref().unwrap_or(""), self.escape.as_deref().unwrap_or(""));
        if let Some(c) = keep.chars().find(|&c| escape.contains(c)) {
            return Err(format!("{c:?} is in both --keep and --escape: keep it raw or escape it?"));
        }
        if keep.contains('%') {
            return Err("--keep cannot keep '%': a raw `%` would read as the start of an escape, so \
                        the output could not be decoded"
                .into());
        }
        if (self.space_as_plus || self.set.space_as_plus())
            && let Some(c) = keep.chars().find(|&c| c == ' ' || c == '+')
        {
            return Err(format!(
                "--keep {c:?} contradicts writing a space as `+` (--space-as-plus, or a set such as \
                 `form`), which needs both a space and `+` escaped"
            ));
        }
        let mut set = self.set;
        for (chars, keep) in [(&self.keep, true), (&self.escape, false)] {
            for b in chars.as_deref().unwrap_or("").bytes() {
                if !b.is_ascii() {
                    return Err(match (keep, self.iri) {
                        (true, false) => {
                            "--keep takes ASCII characters only (use --iri to keep non-ASCII text)"
                        }
                        (true, true) => {
                            "--keep takes ASCII characters only (--iri already keeps raw the non-ASCII \
                             characters an IRI may hold)"
                        }
                        (false, false) => {
                            "--escape takes ASCII characters only (without --iri every non-ASCII \
                             character is escaped already)"
                        }
                        (false, true) => {
                            "--escape takes ASCII characters only: --iri keeps raw every non-ASCII \
                             character an IRI may hold (leave out --iri to escape them all)"
                        }
                    }
                    .into());
                }
                set = if keep { set.remove(b) } else { set.add(b) };
            }
        }
        if self.space_as_plus {
            set = set.with_space_as_plus(true);
        }
        Ok(set.with_iri(self.iri))
    }
}
