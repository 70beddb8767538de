//! The `grove` binary: the browser, or a non-interactive subcommand.
#![forbid(unsafe_code)]
// No unwrap, expect or panic outside tests (clippy.toml allows them in tests).
#![deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::Write;
use std::process::ExitCode;

use clap::Parser;
use grove::cli::{Cli, run};
use grove::text::sanitize::sanitize_line;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let code = run_cli(&cli);
    // Problems with files read on the side (an agent's settings.json that is not a regular
    // file): the browser shows them; a subcommand reports them here.
    for problem in grove::storage::fsutil::take_problems() {
        eprintln!("grove: warning: {}", sanitize_line(&problem));
    }
    if cli.global.demo {
        grove::storage::demo::remove_demo_copy();
    }
    code
}

fn run_cli(cli: &Cli) -> ExitCode {
    let Some(command) = &cli.command else {
        if let Err(e) = color_eyre::install() {
            eprintln!("grove: {e}");
        }
        return match grove::tui::run::run_browser(&cli.global.browser_args()) {
            Ok(code) => code,
            Err(e) => {
                grove::tui::run::restore_terminal();
                eprintln!("grove: {}", sanitize_line(&format!("{e:#}")));
                ExitCode::FAILURE
            }
        };
    };
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    match run(&cli.global, command.clone(), &mut out) {
        Ok(()) => {
            let _ = out.flush();
            ExitCode::SUCCESS
        }
        Err(e) if e.is_broken_pipe() => {
            // The reader went away (`grove list | head`): not an error.
            ExitCode::SUCCESS
        }
        Err(e) => {
            let _ = out.flush();
            for line in e.to_string().lines() {
                eprintln!("grove: {}", sanitize_line(line));
            }
            // 1: nothing was changed; 3: the change is made, only its report failed.
            ExitCode::from(e.exit_code())
        }
    }
}
