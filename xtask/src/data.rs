//! `cargo xtask data`: the upstream files the tests and benchmarks read (Gavel's measured
//! throughputs and sample traces, with its MIT licence), fetched from Gavel's repository at a
//! pinned commit or copied from a local copy, each checked against the SHA-256 kept here, and
//! installed into a data directory outside the clone. Nothing downloaded enters the repository.
//!
//! Where the tests find the data (the rule `fairground_core::shared_data_dir` follows too):
//! `$FAIRGROUND_SHARED`, else `../shared` beside the clone, else the cache
//! `~/.cache/fairground/shared`, beside the tools' and the Python environment's caches. Each
//! holds `data/gavel/...`. Depends on `serve` only in its tests (a local server to fetch from).

use std::path::{Path, PathBuf};
use std::process::Command;

/// Gavel's repository at the commit whose files the tests were written against (raw files).
pub const UPSTREAM: &str =
    "https://raw.githubusercontent.com/stanford-futuredata/gavel/c4fa40097339e9608ab71fd64c8bdea96a5e4a4c";

/// The variable that points the tests at a data directory of one's own.
pub const ENV: &str = "FAIRGROUND_SHARED";

/// One upstream file: its path in the upstream repository, its place under `data/gavel/`, and
/// the SHA-256 of its bytes.
#[derive(Debug, Clone, Copy)]
pub struct DataFile {
    pub upstream: &'static str,
    pub name: &'static str,
    pub sha256: &'static str,
}

const fn file(upstream: &'static str, name: &'static str, sha256: &'static str) -> DataFile {
    DataFile {
        upstream,
        name,
        sha256,
    }
}

/// Every file the tests and benchmarks read from the data directory.
pub const GAVEL: &[DataFile] = &[
    file(
        "LICENSE",
        "LICENSE",
        "436e0eaa343c3d2c0be22bb1ecb2fd4c8b3add8cae8679c780385f7d3b0f41ef",
    ),
    file(
        "scheduler/simulation_throughputs.json",
        "simulation_throughputs.json",
        "17111f7295f03265fd9e5118d7eba31e3dd9d6e50a2e215c13ad3d3f91f74381",
    ),
    file(
        "scheduler/traces/physical_cluster/artifact_evaluation.trace",
        "traces/artifact_evaluation.trace",
        "aa267474f78f61ef65ec26585957e7737e0f2f8cba7e5425d7e52e26146d15b6",
    ),
    file(
        "scheduler/traces/physical_cluster/max_min_fairness.trace",
        "traces/max_min_fairness.trace",
        "dc13589c23c7b77d37d3d1014ff499e0c1ffca2959ce35d0e4ce70b71247424b",
    ),
    file(
        "scheduler/traces/physical_cluster/medium_test.trace",
        "traces/medium_test.trace",
        "161ebef0f499a83bb00899a30f1701b533ddb47fd29cbd0ff1058b6c46daa5ff",
    ),
    file(
        "scheduler/traces/physical_cluster/minimize_makespan.trace",
        "traces/minimize_makespan.trace",
        "b00befc3fc2a62c1776fd70d978065e3fb1ae75fd06b37557f2425fe51556bc5",
    ),
    file(
        "scheduler/traces/physical_cluster/small_test.trace",
        "traces/small_test.trace",
        "1a216a80d1f40bc2b88a3edb5f14ff687560024c085a6392613618a47cbe54dc",
    ),
];

/// Where a data directory keeps a file: `root/data/gavel/<name>`.
fn installed(root: &Path, f: &DataFile) -> PathBuf {
    root.join("data").join("gavel").join(f.name)
}

/// The cache `cargo xtask data` installs into.
pub fn cache_dir() -> PathBuf {
    let home = std::env::var_os("HOME").unwrap_or_else(|| ".".into());
    PathBuf::from(home).join(".cache/fairground/shared")
}

fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// `bytes` are `f`'s upstream bytes, or a located refusal naming the file (`from`: where they
/// came from).
fn verify(f: &DataFile, bytes: &[u8], from: &str) -> Result<(), String> {
    let got = sha256_hex(bytes);
    if got == f.sha256 {
        Ok(())
    } else {
        Err(format!(
            "data/gavel/{}: its SHA-256 is {got}, not the upstream file's {} (from {from}): \
             refused, nothing installed. A corrupted download, or a different version of the file",
            f.name, f.sha256
        ))
    }
}

/// Whether `root` holds every file, each with its upstream bytes; the first problem if not.
pub fn check(root: &Path, files: &[DataFile]) -> Result<(), String> {
    for f in files {
        let path = installed(root, f);
        let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        verify(f, &bytes, &path.display().to_string())?;
    }
    Ok(())
}

/// Gets every file's bytes with `get`, checks them all, and only then installs them under
/// `root/data/gavel/` (a refused file leaves the directory as it was).
fn install(
    root: &Path,
    files: &[DataFile],
    get: impl Fn(&DataFile) -> Result<(Vec<u8>, String), String>,
) -> Result<(), String> {
    let mut got = Vec::with_capacity(files.len());
    for f in files {
        let (bytes, from) = get(f)?;
        verify(f, &bytes, &from)?;
        got.push((f, bytes));
    }
    for (f, bytes) in got {
        let path = installed(root, f);
        let fail = |e: std::io::Error| format!("{}: {e}", path.display());
        std::fs::create_dir_all(path.parent().expect("a file under data/gavel")).map_err(fail)?;
        // Written beside, then renamed: a reader never sees half a file.
        let partial = path.with_extension("partial");
        std::fs::write(&partial, bytes).map_err(fail)?;
        std::fs::rename(&partial, &path).map_err(fail)?;
    }
    Ok(())
}

/// Downloads `base/<upstream path>` with curl (`setup` checks it is there).
fn download(base: &str, f: &DataFile) -> Result<(Vec<u8>, String), String> {
    let url = format!("{}/{}", base.trim_end_matches('/'), f.upstream);
    let out = Command::new("curl")
        .args(["--fail", "--silent", "--show-error", "--location"])
        .args(["--retry", "2", "--connect-timeout", "20", &url])
        .output()
        .map_err(|e| format!("could not run curl to fetch {url}: {e} (install curl)"))?;
    if !out.status.success() {
        // curl says why once per try: the last says it.
        let said = String::from_utf8_lossy(&out.stderr);
        let why = said.lines().rfind(|l| !l.trim().is_empty()).unwrap_or("");
        return Err(format!("could not fetch {url}: {}", why.trim()));
    }
    Ok((out.stdout, url))
}

/// Reads a file from a local copy: `dir/gavel/<name>` (a copy of `../shared/data`) or
/// `dir/<name>` (a copy of its `gavel/`).
fn copy_from(dir: &Path, f: &DataFile) -> Result<(Vec<u8>, String), String> {
    let nested = dir.join("gavel").join(f.name);
    let path = if nested.exists() {
        nested
    } else {
        dir.join(f.name)
    };
    let bytes = std::fs::read(&path).map_err(|e| {
        format!(
            "{}: {e} (--from takes a copy of the data: a directory holding gavel/{})",
            path.display(),
            f.name
        )
    })?;
    Ok((bytes, path.display().to_string()))
}

/// Where the tests' data is, installing it into the cache when no data directory has it:
/// `$FAIRGROUND_SHARED` (which must hold it), `../shared` beside the clone, the cache, or a fetch
/// from upstream into the cache. Without any of them it stops once, naming the command and the
/// address.
pub fn ensure(project_root: &Path) -> Result<PathBuf, String> {
    if let Some(dir) = std::env::var_os(ENV).filter(|v| !v.is_empty()) {
        let dir = PathBuf::from(dir);
        check(&dir, GAVEL)
            .map_err(|why| format!("${ENV} is {}, which lacks the data: {why}", dir.display()))?;
        return Ok(dir);
    }
    let beside = project_root.join("..").join("shared");
    if check(&beside, GAVEL).is_ok() {
        return Ok(beside);
    }
    let cache = cache_dir();
    if check(&cache, GAVEL).is_ok() {
        return Ok(cache);
    }
    eprintln!(
        "==> test data: none beside the clone or in {}; fetching Gavel's files from {UPSTREAM}",
        cache.display()
    );
    install(&cache, GAVEL, |f| download(UPSTREAM, f)).map_err(|why| {
        format!(
            "the tests need Gavel's measured throughputs and traces, and they could not be fetched: {why}\n  \
             Run `cargo xtask data` when online (it fetches them from {UPSTREAM}), \
             or `cargo xtask data --from DIR` with a copy, or set ${ENV} to a directory holding data/gavel/"
        )
    })?;
    Ok(cache)
}

/// [`ensure`], then `$FAIRGROUND_SHARED` set to the directory found, for this task and every
/// command it runs (the tests, the CLI, the benchmarks).
pub fn ensure_and_export(project_root: &Path) -> Result<PathBuf, String> {
    let dir = ensure(project_root)?;
    std::env::set_var(ENV, &dir);
    Ok(dir)
}

/// `cargo xtask data [--from DIR | --url BASE] [--to DIR]`.
pub fn run(args: &[String]) -> Result<(), String> {
    let (mut from, mut url, mut to) = (None, None, None);
    let mut rest = args.iter();
    while let Some(flag) = rest.next() {
        let value = rest
            .next()
            .ok_or_else(|| format!("{flag} takes a value\n\n{USAGE}"))?;
        match flag.as_str() {
            "--from" => from = Some(PathBuf::from(value)),
            "--url" => url = Some(value.clone()),
            "--to" => to = Some(PathBuf::from(value)),
            _ => return Err(format!("unknown option {flag}\n\n{USAGE}")),
        }
    }
    let to = to.unwrap_or_else(cache_dir);
    match (from, url) {
        (Some(_), Some(_)) => {
            return Err(format!("--from and --url exclude each other\n\n{USAGE}"))
        }
        (Some(dir), None) => install(&to, GAVEL, |f| copy_from(&dir, f))?,
        (None, url) => {
            let base = url.unwrap_or_else(|| UPSTREAM.to_string());
            install(&to, GAVEL, |f| download(&base, f))?
        }
    }
    eprintln!(
        "Gavel's data ({} files, each checked against its SHA-256) is in {}/data/gavel/.\n  \
         `cargo xtask test` finds it there; for cargo test alone, the same unless ${ENV} says otherwise.",
        GAVEL.len(),
        to.display()
    );
    Ok(())
}

pub const USAGE: &str = "usage: cargo xtask data [--from DIR | --url BASE] [--to DIR]\n  \
    fetches Gavel's measured throughputs and traces (with its licence) from its repository at a\n  \
    pinned commit (or copies them from DIR, a copy such as ../shared/data), checks each file's\n  \
    SHA-256, and installs them into DIR/data/gavel/ (default: the cache, ~/.cache/fairground/shared)";

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("fg-data-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    const TRACE: &[u8] = b"0,1,resnet\n";

    /// Two made-up upstream files, with the hashes of their true bytes (computed here).
    fn manifest() -> Vec<DataFile> {
        let hash = |bytes: &[u8]| -> &'static str { Box::leak(sha256_hex(bytes).into_boxed_str()) };
        vec![
            file("LICENSE", "LICENSE", hash(b"MIT")),
            file("scheduler/traces/a.trace", "traces/a.trace", hash(TRACE)),
        ]
    }

    /// An upstream tree in `dir`, its trace holding `trace`.
    fn upstream_tree(dir: &Path, trace: &[u8]) {
        std::fs::create_dir_all(dir.join("scheduler/traces")).unwrap();
        std::fs::write(dir.join("LICENSE"), b"MIT").unwrap();
        std::fs::write(dir.join("scheduler/traces/a.trace"), trace).unwrap();
    }

    #[test]
    fn sha256_is_the_standard_one() {
        // FIPS 180-2's example: SHA-256("abc").
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    /// Fetched from a local HTTP server: installed and then found by `check`; a corrupted file
    /// is refused by name and nothing is installed; a missing one names its address.
    #[test]
    fn fetches_checks_and_refuses() {
        let served = scratch("served");
        upstream_tree(&served, TRACE);
        let manifest = manifest();
        let server = crate::serve::bind("127.0.0.1", 0).unwrap();
        let base = format!("http://{}", server.local_addr().unwrap());
        let root = served.clone();
        std::thread::spawn(move || crate::serve::handle(server, &root));

        let to = scratch("fetched");
        install(&to, &manifest, |f| download(&base, f)).unwrap();
        check(&to, &manifest).unwrap();
        assert_eq!(
            std::fs::read(to.join("data/gavel/traces/a.trace")).unwrap(),
            TRACE
        );

        // Corrupted upstream: refused with the file named; an empty target stays empty.
        std::fs::write(served.join("scheduler/traces/a.trace"), b"0,1,vgg\n").unwrap();
        let empty = scratch("refused");
        let err = install(&empty, &manifest, |f| download(&base, f)).unwrap_err();
        assert!(
            err.starts_with("data/gavel/traces/a.trace: its SHA-256 is"),
            "{err}"
        );
        assert!(!empty.join("data").exists(), "nothing installed");

        // Missing upstream: the address is named.
        std::fs::remove_file(served.join("scheduler/traces/a.trace")).unwrap();
        let err = install(&empty, &manifest, |f| download(&base, f)).unwrap_err();
        assert!(
            err.starts_with(&format!("could not fetch {base}/scheduler/traces/a.trace")),
            "{err}"
        );
        // And a file changed after installation is found by `check`.
        std::fs::write(to.join("data/gavel/LICENSE"), b"not MIT").unwrap();
        assert!(check(&to, &manifest)
            .unwrap_err()
            .starts_with("data/gavel/LICENSE"));
        for d in [served, to, empty] {
            std::fs::remove_dir_all(d).unwrap();
        }
    }

    /// `--from` a local copy laid out as ../shared/data (gavel/<name>): installed when its
    /// bytes are upstream's, refused by name when not, and a missing file is named.
    #[test]
    fn installs_from_a_local_copy() {
        let copy = scratch("copy");
        let manifest = manifest();
        std::fs::create_dir_all(copy.join("gavel/traces")).unwrap();
        std::fs::write(copy.join("gavel/LICENSE"), b"MIT").unwrap();
        let to = scratch("from");
        let err = install(&to, &manifest, |f| copy_from(&copy, f)).unwrap_err();
        assert!(err.contains("gavel/traces/a.trace"), "{err}");
        std::fs::write(copy.join("gavel/traces/a.trace"), b"0,1,resnet\r\n").unwrap();
        let err = install(&to, &manifest, |f| copy_from(&copy, f)).unwrap_err();
        assert!(
            err.starts_with("data/gavel/traces/a.trace: its SHA-256"),
            "{err}"
        );
        std::fs::write(copy.join("gavel/traces/a.trace"), TRACE).unwrap();
        install(&to, &manifest, |f| copy_from(&copy, f)).unwrap();
        check(&to, &manifest).unwrap();
        std::fs::remove_dir_all(copy).unwrap();
        std::fs::remove_dir_all(to).unwrap();
    }

    /// The manifest names each upstream file once, under data/gavel/ as the tests read it.
    #[test]
    fn the_manifest_holds_what_the_tests_read() {
        let names: Vec<&str> = GAVEL.iter().map(|f| f.name).collect();
        for needed in [
            "simulation_throughputs.json",
            "LICENSE",
            "traces/small_test.trace",
        ] {
            assert!(names.contains(&needed), "{needed}");
        }
        assert!(GAVEL.iter().all(|f| f.sha256.len() == 64));
    }
}
