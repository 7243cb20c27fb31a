//! A small static file server for dist/ (tiny_http): `.wasm` goes out as `application/wasm`,
//! which browsers require for streaming compilation.

use crate::{cmd, project_root, setup};
use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::process::Command;
use tiny_http::{Header, Response, Server};

/// Builds the release site into dist/ with Trunk, offline (tools come from `setup`).
pub fn build_site(tools: &setup::Tools) -> Result<PathBuf, String> {
    let root = project_root();
    cmd::run("cargo fetch", cmd::cargo().arg("fetch").current_dir(&root))?;
    cmd::run(
        "trunk build --release --offline",
        Command::new("trunk")
            .args(["build", "--release", "--offline"])
            .env("PATH", tools.path())
            .current_dir(&root),
    )?;
    Ok(root.join("dist"))
}

/// `cargo xtask serve`: build, then serve until interrupted.
pub fn run(host: &str, port: u16) -> Result<(), String> {
    let server = bind(host, port)?; // before the build: a busy port fails fast
    let tools = setup::for_build()?;
    let dist = build_site(&tools)?;
    let addr = server
        .server_addr()
        .to_ip()
        .ok_or("the server has no IP address")?;
    println!("\nFairground is served at http://{addr}/  (Ctrl-C to stop)");
    handle(server, &dist);
    Ok(())
}

/// Binds the listening socket, turning the common failures into advice.
pub fn bind(host: &str, port: u16) -> Result<Server, String> {
    Server::http((host, port)).map_err(|err| {
        let kind = err.downcast_ref::<std::io::Error>().map(|e| e.kind());
        match kind {
            Some(ErrorKind::AddrInUse) => format!(
                "port {port} on {host} is already in use (another server?).\n  \
                 Stop it, or choose another port: cargo xtask serve --port 8081 (or --port 0 for any free port)"
            ),
            Some(ErrorKind::PermissionDenied) => format!(
                "not allowed to listen on {host}:{port}; ports below 1024 need root: try --port 8080"
            ),
            _ => format!("cannot listen on {host}:{port}: {err}"),
        }
    })
}

/// Serves files from `dist` forever (run it on a thread to stop with the process). Each request
/// is answered on its own thread: answering in turn, one slow reader (a browser that stopped
/// reading a preloaded 1.5 MB wasm) would hold up every other page's files behind it.
pub fn handle(server: Server, dist: &Path) {
    for request in server.incoming_requests() {
        let dist = dist.to_path_buf();
        std::thread::spawn(move || respond(request, &dist));
    }
}

/// Answers with the file, tagged by a hash of its bytes: `no-cache` makes the browser ask again
/// each time (files change between builds), and a matching `If-None-Match` gets 304 with no
/// body, so the engine's wasm, imported by both workers, crosses the wire once (as on any static
/// host that sends validators).
fn respond(request: tiny_http::Request, dist: &Path) {
    let file = resolve(dist, request.url());
    match file.as_ref().and_then(|f| std::fs::read(f).ok()) {
        Some(bytes) => {
            let etag = format!("\"{:016x}\"", fnv1a(&bytes));
            let unchanged = request
                .headers()
                .iter()
                .any(|h| h.field.equiv("If-None-Match") && h.value.as_str() == etag);
            let kind = content_type(file.as_deref().unwrap_or(dist));
            let headers = [
                header("Content-Type", kind),
                header("Cache-Control", "no-cache"),
                header("ETag", &etag),
            ];
            if unchanged {
                let mut response = Response::empty(304);
                for h in headers.into_iter().flatten() {
                    response.add_header(h);
                }
                let _ = request.respond(response);
                return;
            }
            let mut response = Response::from_data(bytes);
            for h in headers.into_iter().flatten() {
                response.add_header(h);
            }
            let _ = request.respond(response);
        }
        None => {
            let _ = request.respond(Response::from_string("not found").with_status_code(404));
        }
    }
}

/// FNV-1a, 64-bit: a content tag, not a security measure.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// A header from constant ASCII text; tiny_http rejects only non-ASCII, so None never happens here.
fn header(name: &str, value: &str) -> Option<Header> {
    Header::from_bytes(name.as_bytes(), value.as_bytes()).ok()
}

/// Maps a URL path to a file inside `dist`; `/` is index.html; nothing outside `dist` is served.
fn resolve(dist: &Path, url: &str) -> Option<PathBuf> {
    let path = url.split(['?', '#']).next().unwrap_or("/");
    let relative = path.trim_start_matches('/');
    if relative.split('/').any(|part| part == "..") {
        return None;
    }
    let candidate = if relative.is_empty() || relative.ends_with('/') {
        dist.join(relative).join("index.html")
    } else {
        dist.join(relative)
    };
    candidate.is_file().then_some(candidate)
}

fn content_type(file: &Path) -> &'static str {
    match file.extension().and_then(|e| e.to_str()).unwrap_or("") {
        "html" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "wasm" => "application/wasm",
        "css" => "text/css; charset=utf-8",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "json" => "application/json",
        "ico" => "image/x-icon",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_inside_dist_only() {
        let dist = std::env::temp_dir().join(format!("fg-serve-test-{}", std::process::id()));
        std::fs::create_dir_all(dist.join("sub")).unwrap();
        std::fs::write(dist.join("index.html"), "<html>").unwrap();
        std::fs::write(dist.join("app.wasm"), [0u8]).unwrap();
        assert_eq!(resolve(&dist, "/"), Some(dist.join("index.html")));
        assert_eq!(resolve(&dist, "/?embed#x"), Some(dist.join("index.html")));
        assert_eq!(resolve(&dist, "/app.wasm"), Some(dist.join("app.wasm")));
        assert_eq!(resolve(&dist, "/../Cargo.toml"), None);
        assert_eq!(resolve(&dist, "/sub/../../etc/passwd"), None);
        assert_eq!(resolve(&dist, "/missing.js"), None);
        assert_eq!(content_type(Path::new("a.wasm")), "application/wasm");
        std::fs::remove_dir_all(&dist).unwrap();
    }

    #[test]
    fn a_busy_port_says_what_to_do() {
        let first = bind("127.0.0.1", 0).unwrap();
        let port = first.server_addr().to_ip().unwrap().port();
        let err = bind("127.0.0.1", port).err().unwrap();
        assert!(
            err.contains("already in use") && err.contains("--port"),
            "{err}"
        );
    }
}
