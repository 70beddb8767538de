//! The `grove` binary: the browser, or a non-interactive subcommand.
#![forbid(unsafe_code)]

use std::io::Write;
use std::process::ExitCode;

use clap::Parser;
use grove::cli::{Cli, run};
use grove::ui::sanitize::sanitize_line;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let Some(command) = cli.command else {
        eprintln!("grove: the interactive browser is not built yet; see `grove --help`");
        return ExitCode::from(2);
    };
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    match run(&cli.global, command, &mut out) {
        Ok(()) => {
            let _ = out.flush();
            ExitCode::SUCCESS
        }
        Err(grove::cli::CliError::Io(e)) if e.kind() == std::io::ErrorKind::BrokenPipe => {
            // The reader went away (`grove list | head`): not an error.
            ExitCode::SUCCESS
        }
        Err(e) => {
            let _ = out.flush();
            for line in e.to_string().lines() {
                eprintln!("grove: {}", sanitize_line(line));
            }
            ExitCode::FAILURE
        }
    }
}
