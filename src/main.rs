//! The `pctenc` command-line tool. See `pctenc --help` and the README.

mod cli;

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
/// default action, when the output is closed.
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

/// Help and version go to stdout as clap prints them; a real usage error is clap's whole
/// message (the possible values, a "similar value exists" tip, the usage line) on stderr, in
/// one write, and exit status 2.
fn usage_error(e: clap::Error) -> ExitCode {
    match e.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
            let _ = e.print();
            ExitCode::SUCCESS
        }
        ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand | ErrorKind::MissingSubcommand => {
            let _ = e.print();
            ExitCode::from(2)
        }
        _ => {
            let rendered = e.render().to_string();
            let message = rendered.trim_end();
            cli::report(message.strip_prefix("error: ").unwrap_or(message));
            ExitCode::from(2)
        }
    }
}
