//! The Python package (`crates/fairground-py`): built into a wheel by maturin, installed into a
//! scratch virtual environment outside the clone, and tested with pytest against the CLI.
//!
//! maturin, pytest and pandas come from PyPI, pinned, into `~/.cache/fairground/py-venv` (pip's cache
//! beside it), so nothing downloaded lands in the repository. The wheel is built in the dev
//! profile into the workspace's target folder, which the native tests have mostly filled.

use crate::cmd;
use std::path::{Path, PathBuf};
use std::process::Command;

const MATURIN: &str = "maturin==1.16.0";
const PYTEST: &str = "pytest==9.2.0";
/// Optional for users; the tests check both the DataFrame and the plain list it replaces.
const PANDAS: &str = "pandas==3.1.1";

fn cache() -> PathBuf {
    let home = std::env::var_os("HOME").unwrap_or_else(|| ".".into());
    PathBuf::from(home).join(".cache/fairground")
}

/// The workspace's target folder (CARGO_TARGET_DIR when set, as cargo reads it).
pub fn target_dir(root: &Path) -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .map(|d| if d.is_absolute() { d } else { root.join(d) })
        .unwrap_or_else(|| root.join("target"))
}

/// The scratch environment's Python, made and given maturin and pytest if need be.
fn environment() -> Result<PathBuf, String> {
    let venv = cache().join("py-venv");
    let python = venv.join("bin").join("python");
    if !python.exists() {
        cmd::run(
            "a scratch Python environment (~/.cache/fairground/py-venv)",
            Command::new("python3").args(["-m", "venv"]).arg(&venv),
        )?;
    }
    cmd::run(
        &format!("{MATURIN}, {PYTEST} and {PANDAS} into it (pip, cached)"),
        Command::new(&python)
            .args(["-m", "pip", "install", "-q", "--disable-pip-version-check"])
            .args([MATURIN, PYTEST, PANDAS])
            .env("PIP_CACHE_DIR", cache().join("pip")),
    )?;
    Ok(python)
}

/// Builds the wheel, installs it and runs the package's tests; `cli` is the `fairground`
/// binary they compare against.
pub fn test(root: &Path, cli: &Path) -> Result<(), String> {
    let python = environment()?;
    let wheels = target_dir(root).join("wheels-py");
    // Only this build's wheel in the folder, so the install below cannot pick an old one.
    let _ = std::fs::remove_dir_all(&wheels);
    let maturin = python.with_file_name("maturin");
    cmd::run(
        "the Python wheel (maturin, dev profile)",
        Command::new(&maturin)
            .args(["build", "--quiet", "--profile", "dev", "-m"])
            .arg(root.join("crates/fairground-py/Cargo.toml"))
            .arg("--out")
            .arg(&wheels)
            .current_dir(root),
    )?;
    let wheel = std::fs::read_dir(&wheels)
        .map_err(|e| format!("{}: {e}", wheels.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| p.extension().is_some_and(|x| x == "whl"))
        .ok_or_else(|| format!("maturin left no wheel in {}", wheels.display()))?;
    cmd::run(
        "the wheel installed (pip)",
        Command::new(&python)
            .args(["-m", "pip", "install", "-q", "--disable-pip-version-check"])
            .args(["--force-reinstall", "--no-deps"])
            .arg(&wheel),
    )?;
    cmd::run(
        "Python tests (pytest, against the CLI's JSON)",
        Command::new(&python)
            .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
            .arg(root.join("crates/fairground-py/tests"))
            .env("FAIRGROUND_CLI", cli)
            .current_dir(root),
    )
}

/// `cargo xtask py-test`: the CLI built, then [`test`].
pub fn run() -> Result<(), String> {
    let root = crate::project_root();
    cmd::run(
        "the CLI (cargo build -p fairground-cli)",
        cmd::cargo()
            .args(["build", "-p", "fairground-cli"])
            .current_dir(&root),
    )?;
    let cli = target_dir(&root).join("debug").join("fairground");
    test(&root, &cli)
}
