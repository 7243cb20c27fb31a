//! Running external commands with a heading, a timing and a readable error.

use std::process::Command;
use std::time::Instant;

/// Runs `cmd` to completion, printing `what` before and its duration after.
pub fn run(what: &str, cmd: &mut Command) -> Result<(), String> {
    eprintln!("==> {what}");
    let start = Instant::now();
    let status = cmd.status().map_err(|e| {
        format!(
            "{what}: could not start `{}`: {e}",
            cmd.get_program().to_string_lossy()
        )
    })?;
    if !status.success() {
        return Err(format!("{what} failed ({status})"));
    }
    eprintln!("    done in {:.1} s", start.elapsed().as_secs_f64());
    Ok(())
}

/// The trimmed standard output of a command that ran and succeeded, else None.
pub fn output(program: &str, args: &[&str]) -> Option<String> {
    let out = Command::new(program).args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// `cargo`, or whatever cargo binary launched us.
pub fn cargo() -> Command {
    Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
}
