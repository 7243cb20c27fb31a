//! A small static file server for dist/: `.wasm` goes out as `application/wasm`, which browsers
//! require for streaming compilation.
//!
//! Written on std's `TcpListener`, one thread per connection and one request per connection
//! (`Connection: close`). It replaced tiny_http 0.12, whose connection pool can leave an
//! accepted connection unserved: it starts 4 threads, a thread serves one keep-alive connection
//! until the browser closes it, and when a page opens several connections at once the pool can
//! count a thread as idle twice and queue a connection behind the busy ones. On a loaded machine
//! the page's wasm request then waited until a browser closed a connection (about a minute): the
//! first end-to-end tests of a run failed that way (a Playwright trace showed the request never
//! answered), reproducibly on a fresh server with the CPUs busy.

use crate::{cmd, project_root, setup};
use std::io::{BufRead, BufReader, ErrorKind, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// Builds the release site into dist/ with Trunk, offline (tools come from `setup`), the guide
/// into dist/guide/, and last the service worker that keeps all of it offline.
pub fn build_site(tools: &setup::Tools) -> Result<PathBuf, String> {
    build_versioned_site(tools).map(|(dist, _)| dist)
}

/// [`build_site`], with the build's version (what the service worker caches under).
pub fn build_versioned_site(tools: &setup::Tools) -> Result<(PathBuf, String), String> {
    trunk_build(tools, &mut cmd::Out::Terminal, None)?;
    finish_site()
}

/// The release site's WebAssembly, JavaScript and assets, as Trunk builds them into `dist/`;
/// its Cargo builds in `target_dir` when given (another than the workspace's, so that they run
/// beside other builds without waiting for their lock).
pub fn trunk_build(
    tools: &setup::Tools,
    out: &mut cmd::Out,
    target_dir: Option<&std::path::Path>,
) -> Result<(), String> {
    let root = project_root();
    out.run("cargo fetch", cmd::cargo().arg("fetch").current_dir(&root))?;
    let mut trunk = Command::new("trunk");
    trunk
        .args(["build", "--release", "--offline"])
        .env("PATH", tools.path())
        .current_dir(&root);
    if let Some(dir) = target_dir {
        trunk.env("CARGO_TARGET_DIR", dir);
    }
    out.run("trunk build --release --offline", &mut trunk)
}

/// The site after Trunk: the guide, and the service worker with the build's version.
pub fn finish_site() -> Result<(PathBuf, String), String> {
    let root = project_root();
    let dist = root.join("dist");
    crate::guide::build(&root, &dist)?;
    let version = crate::site::write_service_worker(&root, &dist)?;
    Ok((dist, version))
}

/// `cargo xtask serve`: build, then serve until interrupted.
pub fn run(host: &str, port: u16) -> Result<(), String> {
    let server = bind(host, port)?; // before the build: a busy port fails fast
                                    // The page needs no data file (its presets are built in); a developer serving it usually
                                    // tests next, so the data is made ready when it can be, and its absence only said.
    if let Err(why) = crate::data::ensure_and_export(&crate::project_root()) {
        eprintln!("note: {why}");
    }
    let tools = setup::for_build()?;
    let dist = build_site(&tools)?;
    let addr = server
        .local_addr()
        .map_err(|e| format!("the server has no address: {e}"))?;
    println!("\nFairground is served at http://{addr}/  (Ctrl-C to stop)");
    handle(server, &dist);
    Ok(())
}

/// `cargo xtask screenshot`: builds the site, serves it on a free port and writes the README's
/// picture, `docs/playground.png`, refusing one over the size the docs check allows.
pub fn screenshot() -> Result<(), String> {
    let root = project_root();
    let tools = setup::all()?; // Playwright and Chromium as the end-to-end tests use them
    let dist = build_site(&tools)?;
    let server = bind("127.0.0.1", 0)?;
    let url = format!(
        "http://{}/",
        server
            .local_addr()
            .map_err(|e| format!("the server has no address: {e}"))?
    );
    std::thread::spawn(move || handle(server, &dist));
    let raw = root.join("target").join("screenshot-full-colour.png");
    cmd::run(
        &format!("screenshot of {url}"),
        Command::new("node")
            .arg("tests/perf/screenshot.mjs")
            .arg(&url)
            .arg(&raw)
            .env("PATH", tools.path())
            .env("CHROMIUM", setup::CHROMIUM)
            .current_dir(&root),
    )?;
    let out = root.join(crate::docs::SCREENSHOT);
    let bytes = to_256_colours(&raw, &out)?;
    if bytes > crate::docs::SCREENSHOT_MAX_BYTES {
        return Err(format!(
            "{}: {bytes} bytes, over the {} the docs check allows",
            out.display(),
            crate::docs::SCREENSHOT_MAX_BYTES
        ));
    }
    eprintln!("{}: {bytes} bytes", out.display());
    Ok(())
}

/// Rewrites a full-colour PNG as a 256-colour one (NeuQuant's palette, deflate at its best):
/// a page of anti-aliased text is about 159 KB in full colour, and JPEG blurs the text before it
/// gets under 100 KB. Returns the bytes written.
fn to_256_colours(raw: &Path, out: &Path) -> Result<u64, String> {
    let fail = |e: &dyn std::fmt::Display| format!("{}: {e}", raw.display());
    let file = std::fs::File::open(raw).map_err(|e| fail(&e))?;
    let mut reader = png::Decoder::new(std::io::BufReader::new(file))
        .read_info()
        .map_err(|e| fail(&e))?;
    let mut buf = vec![0; reader.output_buffer_size()];
    let frame = reader.next_frame(&mut buf).map_err(|e| fail(&e))?;
    let pixels = &buf[..frame.buffer_size()];
    let rgba: Vec<u8> = match (frame.color_type, frame.bit_depth) {
        (png::ColorType::Rgba, png::BitDepth::Eight) => pixels.to_vec(),
        (png::ColorType::Rgb, png::BitDepth::Eight) => pixels
            .chunks_exact(3)
            .flat_map(|p| [p[0], p[1], p[2], 255])
            .collect(),
        other => {
            return Err(fail(&format!(
                "an 8-bit RGB(A) picture expected, got {other:?}"
            )))
        }
    };
    let quant = color_quant::NeuQuant::new(10, 256, &rgba);
    let indices: Vec<u8> = rgba
        .chunks_exact(4)
        .map(|p| quant.index_of(p) as u8) // 256 colours: an index fits a byte
        .collect();
    let file = std::fs::File::create(out).map_err(|e| format!("{}: {e}", out.display()))?;
    let mut encoder = png::Encoder::new(std::io::BufWriter::new(file), frame.width, frame.height);
    encoder.set_color(png::ColorType::Indexed);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_palette(quant.color_map_rgb());
    encoder.set_compression(png::Compression::Best);
    let write = |e: png::EncodingError| format!("{}: {e}", out.display());
    let mut writer = encoder.write_header().map_err(write)?;
    writer.write_image_data(&indices).map_err(write)?;
    writer.finish().map_err(write)?;
    std::fs::metadata(out)
        .map(|m| m.len())
        .map_err(|e| format!("{}: {e}", out.display()))
}

/// Binds the listening socket, turning the common failures into advice.
pub fn bind(host: &str, port: u16) -> Result<TcpListener, String> {
    TcpListener::bind((host, port)).map_err(|err| {
        match err.kind() {
            ErrorKind::AddrInUse => format!(
                "port {port} on {host} is already in use (another server?).\n  \
                 Stop it, or choose another port: cargo xtask serve --port 8081 (or --port 0 for any free port)"
            ),
            ErrorKind::PermissionDenied => format!(
                "not allowed to listen on {host}:{port}; ports below 1024 need root: try --port 8080"
            ),
            _ => format!("cannot listen on {host}:{port}: {err}"),
        }
    })
}

/// Serves files from `dist` forever (run it on a thread to stop with the process), each
/// connection on its own thread, so one slow reader never holds up another page's files.
pub fn handle(listener: TcpListener, dist: &Path) {
    handle_at(listener, dist, "/");
}

/// [`handle`], with `dist` served at the path `mount` (`/docs/fairground/`) and nothing
/// elsewhere, as a documentation site or GitHub Pages serves a project: the end-to-end tests
/// check that the site works there unchanged.
pub fn handle_at(listener: TcpListener, dist: &Path, mount: &str) {
    for stream in listener.incoming().flatten() {
        let dist = dist.to_path_buf();
        let mount = mount.to_string();
        std::thread::spawn(move || {
            let _ = respond(stream, &dist, &mount);
        });
    }
}

/// Most a request's line and headers may take; a static site's requests are far smaller.
const MAX_HEAD_BYTES: u64 = 64 * 1024;

/// Reads one request and answers it with the file, tagged by a hash of its bytes: `no-cache`
/// makes the browser ask again each time (files change between builds), and a matching
/// `If-None-Match` gets 304 with no body, so the engine's wasm, imported by both workers,
/// crosses the wire once (as on any static host that sends validators).
fn respond(stream: TcpStream, dist: &Path, mount: &str) -> std::io::Result<()> {
    stream.set_read_timeout(Some(Duration::from_secs(30)))?;
    let mut reader = BufReader::new(stream.try_clone()?.take(MAX_HEAD_BYTES));
    let mut line = String::new();
    reader.read_line(&mut line)?;
    let mut parts = line.split_whitespace();
    let (method, url) = (parts.next().unwrap_or(""), parts.next().unwrap_or("/"));
    let mut if_none_match = None;
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header)? == 0 || header.trim().is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':') {
            if name.trim().eq_ignore_ascii_case("if-none-match") {
                if_none_match = Some(value.trim().to_string());
            }
        }
    }
    let mut out = stream;
    if method != "GET" && method != "HEAD" {
        return answer(
            &mut out,
            "405 Method Not Allowed",
            &[],
            b"only GET and HEAD",
            true,
        );
    }
    if format!("{url}/") == mount {
        // The folder without its slash: a static host sends the reader on to the folder, where
        // the page's relative URLs resolve inside it.
        return answer(
            &mut out,
            "301 Moved Permanently",
            &[("Location", mount)],
            b"",
            false,
        );
    }
    let file = url
        .strip_prefix(mount)
        .and_then(|inside| resolve(dist, &format!("/{inside}")));
    let Some(bytes) = file.as_ref().and_then(|f| std::fs::read(f).ok()) else {
        return answer(
            &mut out,
            "404 Not Found",
            &[],
            b"not found",
            method == "GET",
        );
    };
    let etag = format!("\"{:016x}\"", fnv1a(&bytes));
    let kind = content_type(file.as_deref().unwrap_or(dist));
    let headers = [
        ("Content-Type", kind),
        ("Cache-Control", "no-cache"),
        ("ETag", etag.as_str()),
    ];
    if if_none_match.as_deref() == Some(etag.as_str()) {
        return answer(&mut out, "304 Not Modified", &headers, b"", false);
    }
    answer(&mut out, "200 OK", &headers, &bytes, method == "GET")
}

/// Writes a response that closes the connection.
fn answer(
    out: &mut TcpStream,
    status: &str,
    headers: &[(&str, &str)],
    body: &[u8],
    with_body: bool,
) -> std::io::Result<()> {
    let mut head = format!("HTTP/1.1 {status}\r\n");
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str(&format!(
        "Content-Length: {}\r\nConnection: close\r\n\r\n",
        if with_body { body.len() } else { 0 }
    ));
    out.write_all(head.as_bytes())?;
    if with_body {
        out.write_all(body)?;
    }
    out.flush()
}

/// FNV-1a, 64-bit: a content tag, not a security measure.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
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

    /// Sends `request` to a server over `dist` and returns the whole answer as text.
    fn ask(dist: &Path, request: &str) -> String {
        ask_at(dist, "/", request)
    }

    /// [`ask`], with `dist` served at `mount`.
    fn ask_at(dist: &Path, mount: &str, request: &str) -> String {
        let listener = bind("127.0.0.1", 0).unwrap();
        let addr = listener.local_addr().unwrap();
        let serving = dist.to_path_buf();
        let mount = mount.to_string();
        std::thread::spawn(move || handle_at(listener, &serving, &mount));
        let mut stream = TcpStream::connect(addr).unwrap();
        stream.write_all(request.as_bytes()).unwrap();
        let mut answer = String::new();
        stream.read_to_string(&mut answer).unwrap();
        answer
    }

    #[test]
    fn answers_files_validators_and_misses_then_closes() {
        let dist = std::env::temp_dir().join(format!("fg-serve-answer-{}", std::process::id()));
        std::fs::create_dir_all(&dist).unwrap();
        std::fs::write(dist.join("app.wasm"), b"\0asm").unwrap();
        let ok = ask(&dist, "GET /app.wasm HTTP/1.1\r\nHost: x\r\n\r\n");
        assert!(ok.starts_with("HTTP/1.1 200 OK\r\n"), "{ok}");
        assert!(ok.contains("Content-Type: application/wasm\r\n"), "{ok}");
        assert!(ok.contains("Content-Length: 4\r\n") && ok.contains("Connection: close\r\n"));
        assert!(ok.ends_with("\r\n\r\n\0asm"), "{ok:?}");
        let etag = ok
            .lines()
            .find_map(|l| l.strip_prefix("ETag: "))
            .unwrap()
            .to_string();
        let again = ask(
            &dist,
            &format!("GET /app.wasm HTTP/1.1\r\nIf-None-Match: {etag}\r\n\r\n"),
        );
        assert!(
            again.starts_with("HTTP/1.1 304 Not Modified\r\n"),
            "{again}"
        );
        assert!(again.ends_with("Content-Length: 0\r\nConnection: close\r\n\r\n"));
        let missing = ask(&dist, "GET /nothing.js HTTP/1.1\r\n\r\n");
        assert!(
            missing.starts_with("HTTP/1.1 404 Not Found\r\n"),
            "{missing}"
        );
        let post = ask(&dist, "POST / HTTP/1.1\r\n\r\n");
        assert!(post.starts_with("HTTP/1.1 405"), "{post}");
        std::fs::remove_dir_all(&dist).unwrap();
    }

    #[test]
    fn a_site_at_a_sub_path_is_served_there_only() {
        let dist = std::env::temp_dir().join(format!("fg-serve-mount-{}", std::process::id()));
        std::fs::create_dir_all(&dist).unwrap();
        std::fs::write(dist.join("index.html"), "<html>").unwrap();
        std::fs::write(dist.join("app.wasm"), b"\0asm").unwrap();
        let mount = "/docs/fairground/";
        let page = ask_at(&dist, mount, "GET /docs/fairground/?embed HTTP/1.1\r\n\r\n");
        assert!(
            page.starts_with("HTTP/1.1 200 OK\r\n") && page.ends_with("<html>"),
            "{page}"
        );
        let wasm = ask_at(
            &dist,
            mount,
            "GET /docs/fairground/app.wasm HTTP/1.1\r\n\r\n",
        );
        assert!(wasm.starts_with("HTTP/1.1 200 OK\r\n"), "{wasm}");
        // What a page with root-relative URLs would ask for: not there.
        let root = ask_at(&dist, mount, "GET /app.wasm HTTP/1.1\r\n\r\n");
        assert!(root.starts_with("HTTP/1.1 404"), "{root}");
        let bare = ask_at(&dist, mount, "GET /docs/fairground HTTP/1.1\r\n\r\n");
        assert!(bare.starts_with("HTTP/1.1 301"), "{bare}");
        assert!(bare.contains("Location: /docs/fairground/\r\n"), "{bare}");
        std::fs::remove_dir_all(&dist).unwrap();
    }

    #[test]
    fn a_busy_port_says_what_to_do() {
        let first = bind("127.0.0.1", 0).unwrap();
        let port = first.local_addr().unwrap().port();
        let err = bind("127.0.0.1", port).err().unwrap();
        assert!(
            err.contains("already in use") && err.contains("--port"),
            "{err}"
        );
    }
}
