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
        Err(failure) if failure.is_broken_pipe() => ExitCode::SUCCESS,
        // Every problem has been reported already.
        Err(failure) if failure.is_reported() => ExitCode::from(failure.status() as u8),
        Err(failure) => {
            cli::report(&failure);
            ExitCode::from(failure.status() as u8)
        }
    }
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
