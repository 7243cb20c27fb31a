//! `cargo xtask bench-oef [TENANTS...]`: oef-coop against HiGHS on the same instances, in one run
//! (BENCHMARKS.md). HiGHS comes from PyPI (highspy, pinned) in a scratch environment under
//! `target/`, never in the repository; the example `oef_vs_highs` solves each instance with our
//! engine and hands it to `crates/fairground-core/benches/oef_highs.py`.

use crate::{cmd, project_root};
use std::path::PathBuf;

const HIGHSPY: &str = "highspy==1.16.0";
const NUMPY: &str = "numpy==2.4.6";
const DEFAULT_SIZES: [&str; 4] = ["100", "200", "500", "1000"];

pub fn run(sizes: &[String]) -> Result<(), String> {
    if sizes.first().is_some_and(|a| a == "--corpus") {
        return corpus(&sizes[1..]);
    }
    if let Some(bad) = sizes
        .iter()
        .find(|s| s.parse::<usize>().map_or(true, |n| n < 2))
    {
        return Err(format!(
            "bench-oef takes numbers of tenants (2 or more), not '{bad}'"
        ));
    }
    let python = environment()?;
    let sizes: Vec<String> = if sizes.is_empty() {
        DEFAULT_SIZES.map(String::from).to_vec()
    } else {
        sizes.to_vec()
    };
    let mut run = example("oef_vs_highs");
    run.arg(&python).args(&sizes);
    cmd::run(
        "oef-coop against HiGHS (one solve per size and solver)",
        &mut run,
    )
}

/// The scratch Python environment with HiGHS, made once; its interpreter.
fn environment() -> Result<PathBuf, String> {
    let venv = project_root().join("target").join("highs-venv");
    let python = venv.join("bin").join("python");
    let ready = cmd::output(
        &python.to_string_lossy(),
        &["-c", "import highspy, numpy; print(highspy.__name__)"],
    )
    .is_some();
    if !ready {
        cmd::run(
            "making the scratch Python environment target/highs-venv",
            std::process::Command::new("python3")
                .args(["-m", "venv"])
                .arg(&venv),
        )?;
        cmd::run(
            &format!("installing {HIGHSPY} and {NUMPY} into it"),
            std::process::Command::new(&python)
                .args(["-m", "pip", "install", "--quiet", HIGHSPY, NUMPY]),
        )?;
    }
    Ok(python)
}

/// `cargo xtask bench-oef --corpus [OPTIONS]`: oef-coop as shipped against the lazy program on
/// every family of `presets::corpus` (issue 77), in turns, each answer checked; the tables on
/// standard output, every run in `target/oef-corpus/runs.csv` and the slowest scenario in
/// `target/oef-corpus/worst.json`. OPTIONS go to the example `oef_corpus` (`--families`,
/// `--tenants`, `--types`, `--seeds`, `--no-lazy`; its docs).
fn corpus(options: &[String]) -> Result<(), String> {
    let out = project_root().join("target").join("oef-corpus");
    let mut run = example("oef_corpus");
    run.arg(&out).args(options);
    cmd::run("oef-coop on the corpus, against the lazy program", &mut run)
}

/// `cargo run` of one of core's examples, released, with the engine as the CLI builds it (its
/// static solve over groups is native, feature kept-basis), in the project's root; its
/// arguments follow.
fn example(name: &str) -> std::process::Command {
    let mut run = cmd::cargo();
    run.args([
        "run",
        "--release",
        "-p",
        "fairground-core",
        "--features",
        "kept-basis",
        "--example",
        name,
        "--",
    ])
    .current_dir(project_root());
    run
}
