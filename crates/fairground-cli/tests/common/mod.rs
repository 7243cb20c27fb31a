//! What the CLI's integration tests share: running the binary as a user would, and scratch
//! files.

use std::process::{Command, Output};

/// Runs the `fairground` binary with `args`.
pub fn fairground(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_fairground"))
        .args(args)
        .output()
        .unwrap()
}

/// Writes `text` to a scratch file named after the test file (`prefix`), the process and
/// `name`; returns its path.
pub fn temp(prefix: &str, name: &str, text: &str) -> String {
    let path =
        std::env::temp_dir().join(format!("fairground-{prefix}-{}-{name}", std::process::id()));
    std::fs::write(&path, text).unwrap();
    path.to_string_lossy().into_owned()
}

/// Runs the `fairground` binary with `args`, which must succeed, and parses its JSON output.
#[allow(dead_code)] // each test file compiles this module; not all of them read JSON
pub fn json(args: &[&str]) -> serde_json::Value {
    let out = fairground(args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}
