//! What turns Trunk's dist/ into a site for any host: the service worker that keeps it offline
//! (its version and file list written in here), and `cargo xtask dist`'s archive.
//!
//! The version is a hash of every file the site serves, so a new build with any change gets a
//! new service worker (and cache), and an unchanged build keeps the old one: the browser only
//! installs a worker whose bytes differ.

use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// The service worker's source in the repository and its name in dist/.
const SERVICE_WORKER: &str = "www/service-worker.js";
pub const SERVICE_WORKER_NAME: &str = "service-worker.js";

/// Every file under `dist`, as `/`-separated paths relative to it, sorted.
pub fn files(dist: &Path) -> Result<Vec<String>, String> {
    let mut found = Vec::new();
    let mut folders = vec![PathBuf::new()];
    while let Some(folder) = folders.pop() {
        let here = dist.join(&folder);
        let entries = std::fs::read_dir(&here).map_err(|e| format!("{}: {e}", here.display()))?;
        for entry in entries.flatten() {
            let relative = folder.join(entry.file_name());
            if entry.path().is_dir() {
                folders.push(relative);
            } else {
                let parts: Vec<String> = relative
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect();
                found.push(parts.join("/"));
            }
        }
    }
    found.sort();
    Ok(found)
}

/// The build's version: the first 16 hex digits of SHA-256 over each file's path and bytes.
fn version(dist: &Path, files: &[String]) -> Result<String, String> {
    let mut hash = Sha256::new();
    for file in files {
        let bytes = std::fs::read(dist.join(file))
            .map_err(|e| format!("{}/{file}: {e}", dist.display()))?;
        hash.update(file.as_bytes());
        hash.update([0]);
        hash.update((bytes.len() as u64).to_le_bytes());
        hash.update(&bytes);
    }
    Ok(hash
        .finalize()
        .iter()
        .take(8)
        .map(|b| format!("{b:02x}"))
        .collect())
}

/// Writes dist/service-worker.js: www/service-worker.js with this build's version and the files
/// it keeps (every file in dist/ but the worker itself). Returns the version.
pub fn write_service_worker(root: &Path, dist: &Path) -> Result<String, String> {
    let template = std::fs::read_to_string(root.join(SERVICE_WORKER))
        .map_err(|e| format!("{SERVICE_WORKER}: {e}"))?;
    let out = dist.join(SERVICE_WORKER_NAME);
    let _ = std::fs::remove_file(&out); // an earlier build's worker is not part of this one
    let files = files(dist)?;
    let version = version(dist, &files)?;
    let text = service_worker(&template, &version, &files)?;
    std::fs::write(&out, text).map_err(|e| format!("{}: {e}", out.display()))?;
    Ok(version)
}

/// The template with its two placeholders filled; a template without them is an error, not a
/// worker that would cache nothing.
fn service_worker(template: &str, version: &str, files: &[String]) -> Result<String, String> {
    const VERSION: &str = "__FAIRGROUND_VERSION__";
    const PRECACHE: &str = "__FAIRGROUND_PRECACHE__";
    for placeholder in [VERSION, PRECACHE] {
        if !template.contains(placeholder) {
            return Err(format!(
                "{SERVICE_WORKER} lacks its {placeholder} placeholder"
            ));
        }
    }
    let list = serde_json::to_string(files).map_err(|e| e.to_string())?;
    Ok(template.replace(VERSION, version).replace(PRECACHE, &list))
}

/// `cargo xtask dist`: writes the built site as `target/fairground-site-<crate version>-<build
/// version>.tar.gz`, one folder of the same name inside, to copy unchanged to any static host and
/// path (docs/hosting.md). Returns the archive's path.
pub fn archive(root: &Path, dist: &Path, build_version: &str) -> Result<PathBuf, String> {
    let name = format!(
        "fairground-site-{}-{build_version}",
        env!("CARGO_PKG_VERSION")
    );
    let path = root.join("target").join(format!("{name}.tar.gz"));
    let fail = |e: std::io::Error| format!("{}: {e}", path.display());
    let file = std::fs::File::create(&path).map_err(fail)?;
    let gzip = flate2::write::GzEncoder::new(file, flate2::Compression::best());
    let mut tar = tar::Builder::new(gzip);
    for relative in files(dist)? {
        tar.append_path_with_name(dist.join(&relative), format!("{name}/{relative}"))
            .map_err(fail)?;
    }
    tar.into_inner()
        .and_then(|gzip| gzip.finish())
        .map_err(fail)?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_worker_lists_every_file_and_changes_with_any_of_them() {
        let dist = std::env::temp_dir().join(format!("fg-site-test-{}", std::process::id()));
        std::fs::create_dir_all(dist.join("guide")).unwrap();
        std::fs::write(dist.join("index.html"), "<html>").unwrap();
        std::fs::write(dist.join("guide/index.html"), "guide").unwrap();
        let root = crate::project_root();
        let first = write_service_worker(&root, &dist).unwrap();
        let text = std::fs::read_to_string(dist.join(SERVICE_WORKER_NAME)).unwrap();
        assert!(text.contains(r#"const PRECACHE = ["guide/index.html","index.html"];"#));
        assert!(text.contains(&format!(r#"const VERSION = "{first}";"#)));
        // A second build of the same files: the same worker (the browser keeps its cache).
        assert_eq!(write_service_worker(&root, &dist).unwrap(), first);
        std::fs::write(dist.join("guide/index.html"), "guide, edited").unwrap();
        assert_ne!(write_service_worker(&root, &dist).unwrap(), first);
        std::fs::remove_dir_all(&dist).unwrap();
    }

    #[test]
    fn a_template_without_its_placeholders_is_refused() {
        let err = service_worker("const VERSION = 1;", "v", &[]).unwrap_err();
        assert!(err.contains("__FAIRGROUND_VERSION__"), "{err}");
    }
}
