//! The command line, as clap sees it.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};
use pctenc::{Backend, Decoder, Reject, Set};

/// Percent-encode and decode (URL-encode), exactly as the standards and the popular
/// implementations do, fast.
#[derive(Debug, Parser)]
#[command(name = "pctenc", version, about, long_about = None)]
#[command(after_help = "Examples:\n  \
    echo 'Jürgen & Björk' | pctenc encode --set component\n  \
    echo '/docs/100%/caf%C3%A9 menu' | pctenc encode --set path --keep-escapes\n  \
    pctenc decode --utf8 strict access.log -o decoded.log\n  \
    pctenc encode --binary -j 8 dump.bin -o dump.txt\n  \
    pctenc normalize urls.txt -o normalized.txt\n  \
    pctenc decode --keep-encoded uri-reserved --reject controls,slashes paths.txt\n  \
    pctenc sets")]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
    /// Run on this backend instead of the fastest one the CPU has (see `pctenc info`).
    #[arg(long, global = true, value_name = "NAME", value_parser = parse_backend)]
    pub backend: Option<Backend>,
    /// Threads for large inputs (default: one per core). Regular files are memory-mapped and
    /// split among the threads; the output is the same for every number of threads.
    #[arg(short = 'j', long, global = true, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub threads: Option<u16>,
    /// Never show a progress bar. (One is shown on stderr only when stderr is a terminal and
    /// the input files are large.)
    #[arg(long, global = true)]
    pub no_progress: bool,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Percent-encode each line (or, with --binary, every byte) of the input.
    Encode(EncodeArgs),
    /// Percent-decode the input; malformed escapes are errors unless --lenient.
    Decode(DecodeArgs),
    /// Check that every line is already correctly encoded for a set: exit 0 if so, else 1,
    /// with each bad line's first problem on stderr.
    Check(CheckArgs),
    /// Normalize escapes (RFC 3986 section 6.2.2): uppercase hex, decode unreserved characters.
    ///
    /// Uppercases the hex digits of every escape and decodes the escapes of unreserved
    /// characters (letters, digits, `-._~`). Nothing else changes: not reserved escapes, not a
    /// `%` that starts no escape, not raw bytes (so lines stay lines). The escape of a hex digit
    /// right after a `%` that starts no escape (`%%34`) stays escaped too, so that the output
    /// decodes to what the input decodes to.
    Normalize(NormalizeArgs),
    /// List every set with the characters it keeps.
    Sets,
    /// Show the CPU features found, the backends available and the one chosen.
    Info,
}

/// The set to use, and changes to it.
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
    /// Write hex digits in lowercase (`%c3` instead of `%C3`).
    #[arg(long)]
    pub lowercase: bool,
    /// Encode every byte, line endings included, instead of each line on its own.
    #[arg(long)]
    pub binary: bool,
    /// Re-quote: keep every valid `%HH` as it is and write a `%` that starts no escape as
    /// `%25`, so that partly encoded input is not encoded twice. With a space-as-`+` set, a
    /// `+` is kept as an encoded space.
    #[arg(long)]
    pub keep_escapes: bool,
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
    /// Input files; `-` or none reads standard input.
    #[arg(value_name = "FILE")]
    pub files: Vec<PathBuf>,
}

#[derive(Debug, Args)]
pub struct DecodeArgs {
    /// Copy a `%` that does not start a valid escape as is, instead of failing.
    #[arg(long)]
    pub lenient: bool,
    /// Decode `+` as a space (forms, `quote_plus`).
    #[arg(long)]
    pub plus: bool,
    /// What to do with decoded bytes that are not valid UTF-8: write them as they are
    /// (`bytes`), fail (`strict`), or replace each bad sequence by U+FFFD (`lossy`).
    #[arg(long, value_name = "MODE", default_value = "bytes")]
    pub utf8: Utf8Arg,
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
    #[arg(long, value_name = "CLASSES", value_delimiter = ',')]
    pub reject: Vec<RejectArg>,
    #[command(flatten)]
    pub io: IoArgs,
}

#[derive(Debug, Args)]
pub struct IoArgs {
    /// Write to OUT instead of standard output. OUT is replaced only when the whole run
    /// succeeds; a failed run leaves it as it was. (Input files are memory-mapped: do not
    /// truncate one while pctenc reads it.)
    #[arg(short, long, value_name = "OUT")]
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

fn parse_backend(name: &str) -> Result<Backend, String> {
    Backend::from_name(name).ok_or_else(|| {
        let names: Vec<&str> = Backend::ALL.iter().map(|b| b.name()).collect();
        format!("unknown backend; known backends: {}", names.join(", "))
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
    parse_set(name).map_err(|e| e.replacen("known sets:", "known sets: uri-reserved,", 1))
}

fn parse_set(name: &str) -> Result<Set, String> {
    Set::by_name(name).ok_or_else(|| {
        let names: Vec<&str> = pctenc::sets::NAMED.iter().map(|n| n.name).collect();
        format!("unknown set; known sets: {}", names.join(", "))
    })
}

impl SetArgs {
    /// The set with the --keep, --escape, --space-as-plus and --iri changes applied.
    pub fn effective_set(&self) -> Result<Set, String> {
        let mut set = self.set;
        for (chars, keep) in [(&self.keep, true), (&self.escape, false)] {
            for b in chars.as_deref().unwrap_or("").bytes() {
                if !b.is_ascii() {
                    let flag = if keep { "--keep" } else { "--escape" };
                    return Err(format!(
                        "{flag} takes ASCII characters only (use --iri to keep non-ASCII text)"
                    ));
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
