//! The `pctenc` command-line tool. See `pctenc --help` and the README.

mod cli;

use std::io::Write;
use std::process::ExitCode;

use clap::error::ErrorKind;

fn main() -> ExitCode {
    let cli = match cli::args::try_parse() {
        Ok(cli) => cli,
        Err(e) => return usage_error(e),
    };
    match cli::run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) if failure.is_broken_pipe() => broken_pipe(),
        // Every problem has been reported already.
        Err(failure) if failure.is_reported() => ExitCode::from(failure.status() as u8),
        Err(failure) => {
            cli::report(&failure);
            ExitCode::from(failure.status() as u8)
        }
    }
}

/// A closed output pipe (`pctenc ... | head`) ends pctenc as it ends `cat`: quietly, by
/// SIGPIPE (status 141 in a shell, which `pipefail` sees). Rust's runtime ignores SIGPIPE so
/// that a write reports `BrokenPipe` instead; pctenc keeps that (a closed standard error is
/// then an error to ignore, not the end of the process) and raises SIGPIPE itself, with its
/// default action, when the output is closed: standard output, or for `check`, whose
/// reports are its output, standard error.
fn broken_pipe() -> ExitCode {
    #[cfg(unix)]
    {
        // Does not return for SIGPIPE: it restores the default action and raises the signal.
        let _ = signal_hook::low_level::emulate_default_handler(signal_hook::consts::SIGPIPE);
        ExitCode::from(141)
    }
    #[cfg(not(unix))]
    ExitCode::SUCCESS
}

/// Help and version go to stdout as clap prints them; one that cannot be written is an I/O
/// error (`pctenc: write error: ...`, status 2, as `ls --help >/dev/full` gives), a closed
/// pipe ends pctenc by SIGPIPE as elsewhere. A real usage error is clap's whole message (the
/// possible values, a "similar value exists" tip, the usage line) on stderr, in one write,
/// with the values of the command line escaped as file names are, and exit status 2.
fn usage_error(e: clap::Error) -> ExitCode {
    match e.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
            if cli::closed::at_start(1) {
                cli::report(format_args!("write error: {}", cli::closed::error()));
                return ExitCode::from(2);
            }
            match e.print().and_then(|()| std::io::stdout().flush()) {
                Ok(()) => ExitCode::SUCCESS,
                Err(error) if error.kind() == std::io::ErrorKind::BrokenPipe => broken_pipe(),
                Err(error) => {
                    cli::report(format_args!("write error: {error}"));
                    ExitCode::from(2)
                }
            }
        }
        ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand | ErrorKind::MissingSubcommand => {
            let _ = e.print();
            ExitCode::from(2)
        }
        _ => {
            let rendered = escape_values(e).render().to_string();
            let message = rendered.trim_end();
            cli::report(message.strip_prefix("error: ").unwrap_or(message));
            ExitCode::from(2)
        }
    }
}

/// `e` with every value taken from the command line (an option's value, an unknown argument,
/// a tip that quotes one) escaped as file names are in messages, so that no control
/// character, escape sequence or bidi formatting character in it reaches the terminal.
fn escape_values(mut e: clap::Error) -> clap::Error {
    use clap::builder::StyledStr;
    use clap::error::{ContextKind, ContextValue};
    let escape = |s: &str| cli::escape_name(std::path::Path::new(s));
    // The values as given, and escaped, where they differ.
    let mut values: Vec<(String, String)> = e
        .context()
        .flat_map(|(_, value)| match value {
            ContextValue::String(s) => vec![s.clone()],
            ContextValue::Strings(v) => v.clone(),
            _ => Vec::new(),
        })
        .map(|raw| (escape(&raw), raw))
        .filter(|(escaped, raw)| escaped != raw)
        .map(|(escaped, raw)| (raw, escaped))
        .collect();
    if values.is_empty() {
        return e;
    }
    // Longest first, so that a value inside another is not escaped twice.
    values.sort_by_key(|(raw, _)| std::cmp::Reverse(raw.len()));
    // A tip (clap's own text, with styles) quotes the values as given: escape them there.
    let in_text = |text: &StyledStr| {
        let mut text = text.ansi().to_string();
        for (raw, escaped) in &values {
            text = text.replace(raw.as_str(), escaped);
        }
        StyledStr::from(text)
    };
    let changed: Vec<(ContextKind, ContextValue)> = e
        .context()
        .filter_map(|(kind, value)| {
            let new = match value {
                ContextValue::String(s) => ContextValue::String(escape(s)),
                ContextValue::Strings(v) => ContextValue::Strings(v.iter().map(|s| escape(s)).collect()),
                ContextValue::StyledStr(s) if kind != ContextKind::Usage => {
                    ContextValue::StyledStr(in_text(s))
                }
                ContextValue::StyledStrs(v) => ContextValue::StyledStrs(v.iter().map(in_text).collect()),
                _ => return None,
            };
            (new != *value).then_some((kind, new))
        })
        .collect();
    for (kind, value) in changed {
        e.insert(kind, value);
    }
    e
}
