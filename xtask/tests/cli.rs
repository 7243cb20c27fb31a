//! The `cargo xtask` binary as a developer calls it.

use std::process::Command;

fn xtask(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args(args)
        .output()
        .expect("the xtask binary runs")
}

/// `--help` after a task prints that task's usage and succeeds, doing nothing else (it once
/// exited 1: `data` took `--help` for an option wanting a value).
#[test]
fn a_task_with_help_prints_its_usage_and_succeeds() {
    for args in [
        &["data", "--help"][..],
        &["data", "-h"],
        &["data", "--from", "-h"],
    ] {
        let out = xtask(args);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{args:?} exited {:?}", out.status);
        assert!(
            stdout.starts_with("usage: cargo xtask data [--from DIR | --url BASE] [--to DIR]"),
            "{args:?} printed {stdout}"
        );
    }
    let out = xtask(&["serve", "--help"]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("tasks:"));
    // A task it does not know still fails, naming it.
    let out = xtask(&["no-such-task"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown or missing task: no-such-task"));
}
