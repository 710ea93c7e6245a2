//! `pctenc completions SHELL` and `pctenc man [COMMAND]`: the shell completions
//! (clap_complete) and the manual pages (clap_mangen), generated from the command line's
//! definition (`tool`, [`super::args::command`] as the caller passes it), so that they always
//! describe the options this binary takes. Packagers install their output (pctenc-cli/README.md, "Completions and man pages").

use std::path::Path;

use clap::Args;
use clap_complete::Shell;

use super::Failure;
use super::output::Output;

/// The arguments of `pctenc completions`.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to complete for
    #[arg(value_name = "SHELL")]
    pub shell: Shell,
}

/// The arguments of `pctenc man`.
#[derive(Debug, Args)]
pub struct ManArgs {
    /// The command whose page to print (`pctenc-encode(1)`, ...); without it, pctenc(1)
    #[arg(value_name = "COMMAND")]
    pub command: Option<String>,
}

/// The completion script for `shell`, for the binary named `pctenc`.
pub fn completions(args: &CompletionsArgs, mut tool: clap::Command) -> Result<(), Failure> {
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut tool, "pctenc", &mut script);
    let mut out = Output::open(None)?;
    out.write_all(&script)?;
    out.finish()
}

/// The manual page, in roff, of the tool or of one of its commands.
pub fn man(args: &ManArgs, tool: clap::Command) -> Result<(), Failure> {
    // Built, so that each command has its display name (`pctenc-encode`), the page's title.
    let mut tool = tool.disable_help_subcommand(true);
    tool.build();
    let page = match &args.command {
        None => tool,
        Some(name) => match tool.find_subcommand(name) {
            Some(sub) => sub.clone(),
            None => {
                let names: Vec<&str> = tool.get_subcommands().map(|sub| sub.get_name()).collect();
                return Err(Failure::Usage(format!(
                    "no command `{}`: expected one of {}",
                    super::escape_name(Path::new(name)),
                    names.join(", ")
                )));
            }
        },
    };
    let mut roff = Vec::new();
    // Into memory, which cannot fail to take it.
    let source = format!("pctenc {}", env!("CARGO_PKG_VERSION"));
    clap_mangen::Man::new(page)
        .source(source)
        .render(&mut roff)
        .map_err(|e| Failure::io(Path::new("<stdout>"), e))?;
    let mut out = Output::open(None)?;
    out.write_all(&roff)?;
    out.finish()
}
