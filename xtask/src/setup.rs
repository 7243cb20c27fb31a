//! Installs the pinned toolchain pieces, each only when it is missing or at another version
//! (../shared/TOOLCHAIN.md records what was verified on this machine kind).
//!
//! Cargo tools go to their own folder under `$FAIRGROUND_TOOLS` (default
//! `~/.cache/fairground/tools/<crate>-<version>`), so a pinned version never replaces one the
//! developer installed for something else; a matching version already on PATH is used as it is.

use crate::cmd::{self, cargo, output};
use crate::project_root;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

pub const TRUNK_VERSION: &str = "0.21.14";
/// Must equal the `wasm-bindgen = "=..."` pin in crates/fairground-web/Cargo.toml and Trunk.toml.
pub const WASM_BINDGEN_VERSION: &str = "0.2.130";
pub const WASM_TARGET: &str = "wasm32-unknown-unknown";
pub const CHROMIUM: &str = "/usr/bin/chromium";
pub const CHROMEDRIVER: &str = "/usr/bin/chromedriver";

/// Where the installed tools are: folders to put in front of PATH for child processes.
pub struct Tools {
    pub path_dirs: Vec<PathBuf>,
}

impl Tools {
    /// PATH with the tool folders first.
    pub fn path(&self) -> OsString {
        let current = std::env::var_os("PATH").unwrap_or_default();
        let mut dirs: Vec<PathBuf> = self.path_dirs.clone();
        dirs.extend(std::env::split_paths(&current));
        std::env::join_paths(dirs).unwrap_or(current)
    }
}

/// Everything `serve` needs: the wasm target, Trunk, wasm-bindgen, wasm-opt (npm).
pub fn for_build() -> Result<Tools, String> {
    check_host_tools()?;
    wasm_target()?;
    let mut path_dirs = Vec::new();
    path_dirs.extend(cargo_tool("trunk", "trunk", TRUNK_VERSION, true)?);
    path_dirs.extend(cargo_tool(
        "wasm-bindgen",
        "wasm-bindgen-cli",
        WASM_BINDGEN_VERSION,
        false,
    )?);
    path_dirs.push(node_modules()?);
    Ok(Tools { path_dirs })
}

/// Everything `test` needs: the build tools plus Chromium and ChromeDriver.
pub fn all() -> Result<Tools, String> {
    let tools = for_build()?;
    chromium()?;
    Ok(tools)
}

fn check_host_tools() -> Result<(), String> {
    for (tool, hint) in [
        ("rustup", "install Rust with rustup (https://rustup.rs)"),
        (
            "node",
            "install Node.js 20 or newer (Debian: apt-get install nodejs npm)",
        ),
        ("npm", "install npm (Debian: apt-get install npm)"),
        (
            "curl",
            "install curl, which fetches the test data (Debian: apt-get install curl)",
        ),
        (
            "python3",
            "install Python 3 with venv, for the Python package's tests (Debian: apt-get install python3 python3-venv)",
        ),
    ] {
        if output(tool, &["--version"]).is_none() {
            return Err(format!("`{tool}` is not on PATH: {hint}"));
        }
    }
    // The Python stage makes a virtual environment: Debian ships venv apart from python3.
    if output("python3", &["-c", "import venv, ensurepip"]).is_none() {
        return Err("Python 3's venv is missing (python3 -m venv needs it): \
                    install it (Debian: apt-get install python3-venv)"
            .into());
    }
    Ok(())
}

fn wasm_target() -> Result<(), String> {
    let root = project_root();
    let installed = Command::new("rustup")
        .args(["target", "list", "--installed"])
        .current_dir(&root)
        .output()
        .map_err(|e| format!("could not run rustup: {e}"))?;
    if String::from_utf8_lossy(&installed.stdout)
        .lines()
        .any(|l| l.trim() == WASM_TARGET)
    {
        return Ok(());
    }
    cmd::run(
        &format!("rustup target add {WASM_TARGET}"),
        Command::new("rustup")
            .args(["target", "add", WASM_TARGET])
            .current_dir(&root),
    )
}

fn tools_root() -> PathBuf {
    if let Some(dir) = std::env::var_os("FAIRGROUND_TOOLS") {
        return PathBuf::from(dir);
    }
    let home = std::env::var_os("HOME").unwrap_or_else(|| ".".into());
    PathBuf::from(home).join(".cache/fairground/tools")
}

/// `<binary> --version` prints "<binary> <version>" for both Trunk and wasm-bindgen.
fn has_version(binary: &str, version: &str) -> bool {
    output(binary, &["--version"])
        .and_then(|out| out.split_whitespace().nth(1).map(str::to_string))
        .is_some_and(|v| v == version)
}

/// Returns the folder to put on PATH, or None when PATH already has the pinned version.
fn cargo_tool(
    binary: &str,
    krate: &str,
    version: &str,
    locked: bool,
) -> Result<Option<PathBuf>, String> {
    let root = tools_root().join(format!("{krate}-{version}"));
    let bin_dir = root.join("bin");
    let pinned = bin_dir.join(binary);
    if has_version(&pinned.to_string_lossy(), version) {
        return Ok(Some(bin_dir));
    }
    if has_version(binary, version) {
        return Ok(None);
    }
    let mut install = cargo();
    install
        .args(["install", krate, "--version", version, "--root"])
        .arg(&root);
    // wasm-bindgen-cli's own lockfile wants a crate version the registry lacks (TOOLCHAIN.md).
    if locked {
        install.arg("--locked");
    }
    // From the project root, so the pinned rustc (rust-toolchain.toml) builds the tool.
    install.current_dir(project_root());
    cmd::run(
        &format!(
            "installing {krate} {version} into {} (one time, several minutes)",
            root.display()
        ),
        &mut install,
    )?;
    if !has_version(&pinned.to_string_lossy(), version) {
        return Err(format!(
            "{krate} {version} was installed but {} does not report version {version}",
            pinned.display()
        ));
    }
    Ok(Some(bin_dir))
}

/// `npm ci` when node_modules is missing or older than package-lock.json.
fn node_modules() -> Result<PathBuf, String> {
    let root = project_root();
    let lock = root.join("package-lock.json");
    let marker = root.join("node_modules/.package-lock.json");
    let bin = root.join("node_modules/.bin");
    let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    let fresh = match (modified(&lock), modified(&marker)) {
        (Some(l), Some(m)) => m >= l,
        _ => false,
    };
    if !fresh {
        cmd::run(
            "npm ci (wasm-opt from binaryen, Playwright)",
            Command::new("npm")
                .args(["ci", "--no-audit", "--no-fund"])
                .env("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")
                .current_dir(&root),
        )?;
    }
    Ok(bin)
}

/// Debian's chromium and chromium-driver, of the same major version.
fn chromium() -> Result<(), String> {
    let major = |binary: &str| -> Option<String> {
        let out = output(binary, &["--version"])?;
        let version = out
            .split_whitespace()
            .find(|w| w.chars().next().is_some_and(|c| c.is_ascii_digit()))?;
        version.split('.').next().map(str::to_string)
    };
    if let (Some(browser), Some(driver)) = (major(CHROMIUM), major(CHROMEDRIVER)) {
        if browser == driver {
            return Ok(());
        }
        eprintln!("chromium {browser} and chromedriver {driver} differ: reinstalling both");
    }
    let is_root = output("id", &["-u"]).is_some_and(|uid| uid == "0");
    let sudo_ok = !is_root
        && Command::new("sudo")
            .args(["-n", "true"])
            .status()
            .is_ok_and(|s| s.success());
    if !is_root && !sudo_ok {
        return Err(format!(
            "the browser tests need Debian's Chromium and ChromeDriver ({CHROMIUM}, {CHROMEDRIVER}), \
             and installing them needs root.\n  Run: sudo apt-get update && sudo apt-get install -y chromium chromium-driver\n  then run this command again."
        ));
    }
    let apt = |args: &[&str]| {
        let mut c = if is_root {
            Command::new("apt-get")
        } else {
            let mut s = Command::new("sudo");
            s.arg("-n").arg("apt-get");
            s
        };
        c.args(args).env("DEBIAN_FRONTEND", "noninteractive");
        c
    };
    cmd::run("apt-get update", &mut apt(&["update", "-qq"]))?;
    cmd::run(
        "apt-get install chromium chromium-driver",
        &mut apt(&["install", "-y", "-qq", "chromium", "chromium-driver"]),
    )?;
    match (major(CHROMIUM), major(CHROMEDRIVER)) {
        (Some(b), Some(d)) if b == d => Ok(()),
        _ => Err(format!(
            "after installing, {CHROMIUM} and {CHROMEDRIVER} still do not both answer --version with one major version"
        )),
    }
}
