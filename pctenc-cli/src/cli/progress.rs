//! A progress bar on stderr for long runs over large files.

use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::output::Output;

/// Inputs smaller than this finish too fast for a bar to help.
const LARGE: u64 = 64 * 1024 * 1024;

/// Counts input bytes; draws only when stderr is a terminal and the known input size (of
/// the regular files among the inputs) is large. Never when stderr is redirected, so logs
/// and captured output stay clean, and never when the output is a terminal (by any name,
/// `/dev/tty` included) or the file stderr is, where the bar would mix with it.
pub struct Progress(Option<ProgressBar>);

impl Progress {
    pub fn new(total: u64, enabled: bool, out: &Output) -> Progress {
        if !enabled || total < LARGE || !std::io::stderr().is_terminal() || out.is_terminal() {
            return Progress(None);
        }
        let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
        let style = ProgressStyle::with_template(
            "{bar:40} {binary_bytes}/{binary_total_bytes} {binary_bytes_per_sec} eta {eta}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar());
        bar.set_style(style);
        Progress(Some(bar))
    }

    /// `n` more input bytes are done.
    pub fn advance(&self, n: usize) {
        if let Some(bar) = &self.0 {
            bar.inc(n as u64);
        }
    }

    /// Removes the bar (success or failure: the message that follows stands alone).
    pub fn finish(&self) {
        if let Some(bar) = &self.0 {
            bar.finish_and_clear();
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.finish();
    }
}
