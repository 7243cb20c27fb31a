//! Running external commands with a heading, a timing and a readable error.

use std::process::Command;
use std::time::Instant;

/// Runs `cmd` to completion, printing `what` before and its duration after.
pub fn run(what: &str, cmd: &mut Command) -> Result<(), String> {
    Out::Terminal.run(what, cmd)
}

/// Where a step's heading, output and timing go: the terminal, or a log file that is shown
/// once the steps beside which it ran are done (`cargo xtask test` runs two sides at once).
pub enum Out {
    Terminal,
    Log(std::fs::File),
}

impl Out {
    /// Runs `cmd` to completion, its heading, output and duration to this place.
    pub fn run(&mut self, what: &str, cmd: &mut Command) -> Result<(), String> {
        self.say(&format!("==> {what}"));
        if let Out::Log(file) = self {
            let copy = || {
                file.try_clone()
                    .map_err(|e| format!("{what}: the log cannot be shared: {e}"))
            };
            cmd.stdout(copy()?).stderr(copy()?);
        }
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
        self.say(&format!(
            "    done in {:.1} s",
            start.elapsed().as_secs_f64()
        ));
        Ok(())
    }

    fn say(&mut self, line: &str) {
        match self {
            Out::Terminal => eprintln!("{line}"),
            Out::Log(file) => {
                use std::io::Write;
                // A line lost from a log is not worth failing the run for.
                let _ = writeln!(file, "{line}");
            }
        }
    }
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
