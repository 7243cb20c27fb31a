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
    features_agree(root)?;
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

/// Every crate the wheel's build compiles gets the features `cargo test --workspace` gives it, so
/// maturin's build of `fairground-py` alone reuses that build's artifacts instead of compiling
/// most of the workspace again (77 s against 8 s; crates/fairground-py/Cargo.toml lists the
/// features the other crates turn on). A dependency that starts asking for more features shows
/// here, named, rather than as a slower test run.
fn features_agree(root: &Path) -> Result<(), String> {
    eprintln!("==> the wheel's build shares the workspace's features (cargo tree)");
    let tree = |args: &[&str]| -> Result<Features, String> {
        let out = cmd::cargo()
            .arg("tree")
            .args(args)
            .args(["-f", "{p} {f}", "--prefix", "none"])
            .current_dir(root)
            .output()
            .map_err(|e| format!("cargo tree could not start: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "cargo tree {}: {}",
                args.join(" "),
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        Ok(features(&String::from_utf8_lossy(&out.stdout)))
    };
    let wheel = tree(&["-p", "fairground-py", "-e", "normal,build"])?;
    let workspace = tree(&["--workspace", "-e", "normal,build,dev"])?;
    let drifted: Vec<String> = wheel
        .iter()
        .filter_map(|(package, own)| {
            let all = workspace.get(package)?;
            let missing: Vec<&str> = all.difference(own).map(String::as_str).collect();
            (!missing.is_empty()).then(|| format!("{package}: {}", missing.join(", ")))
        })
        .collect();
    if drifted.is_empty() {
        return Ok(());
    }
    Err(format!(
        "the Python wheel's build would compile these crates with fewer features than \
         `cargo test --workspace` does, and so compile them (and what depends on them) again; \
         add the features to crates/fairground-py/Cargo.toml's unused dependencies:\n  {}",
        drifted.join("\n  ")
    ))
}

/// Each package ("name vX.Y.Z") of `cargo tree -f "{p} {f}" --prefix none` output with the
/// features it is built with (a package listed twice, as a dependency of the host and of the
/// target, with the union).
type Features = std::collections::BTreeMap<String, std::collections::BTreeSet<String>>;

fn features(tree: &str) -> Features {
    let mut out = Features::new();
    for line in tree.lines() {
        let mut words = line.split_whitespace();
        let (Some(name), Some(version)) = (words.next(), words.next()) else {
            continue;
        };
        let set = out.entry(format!("{name} {version}")).or_default();
        // What follows is "(path)", "(*)" or the comma-separated features, in any order.
        for word in words.filter(|w| !w.starts_with('(')) {
            set.extend(word.split(',').filter(|f| !f.is_empty()).map(String::from));
        }
    }
    out
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

#[cfg(test)]
mod tests {
    use super::features;

    #[test]
    fn tree_lines_give_each_package_its_features() {
        let tree = "syn v2.0.119 clone-impls,default,full\n\
                    fairground-core v0.1.0 (/work/crates/fairground-core) default,json-paths\n\
                    libc v0.2.180\n\
                    syn v2.0.119 visit-mut (*)\n";
        let got = features(tree);
        let set = |names: &[&str]| names.iter().map(|s| s.to_string()).collect();
        assert_eq!(
            got["syn v2.0.119"],
            set(&["clone-impls", "default", "full", "visit-mut"])
        );
        assert_eq!(
            got["fairground-core v0.1.0"],
            set(&["default", "json-paths"])
        );
        assert!(got["libc v0.2.180"].is_empty());
    }
}
