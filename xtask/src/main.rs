//! Developer tasks for Fairground (rust-analyzer's xtask convention). Each task installs what it
//! needs first, idempotently, at pinned versions, so a fresh machine needs nothing by hand:
//!
//! - `cargo xtask serve [--port N]`: build the release site and serve it on 127.0.0.1.
//! - `cargo xtask test`: formatting, clippy, native tests, browser component tests, end-to-end tests.
//! - `cargo xtask setup`: only the installs.
//! - `cargo xtask data [--from DIR]`: the test data (Gavel's files, checked) into the cache.
//! - `cargo xtask dist`: the release site as an archive for any static host and path.
//! - `cargo xtask fuzz [--minutes N]`: the engine's extreme-range fuzz suite, for N minutes.
//! - `cargo xtask reproduce`: regenerate REPRODUCTION.md (the seed systems' claims on our engine).
//! - `cargo xtask bench-oef [TENANTS...]`: oef-coop against HiGHS on the same instances;
//!   `bench-oef --corpus [OPTIONS]`: against the lazy program on every scenario family.
//! - `cargo xtask screenshot`: the README's picture of the playground, `docs/playground.png`.
//! - `cargo xtask check-docs`: the documentation's relative links and anchors, the modules'
//!   import layering, and that no code compares with a policy's name outside the policies' own
//!   files (all also in `test`).
//! - `cargo xtask doc-moved OLD.md`: which sentences of an old Markdown file are in no file today.
//! - `cargo xtask glossary`: `docs/glossary.md` and `docs/tour.md` from the page's definitions and tour (`www/explain.json`).

mod bench_oef;
mod cmd;
mod data;
mod docs;
mod glossary;
mod guide;
mod layers;
mod policy_names;
mod python;
mod reproduce;
mod serve;
mod setup;
mod site;
mod test;

use std::path::PathBuf;
use std::process::ExitCode;

const USAGE: &str = "\
usage: cargo xtask <task>

tasks:
  serve [--port N] [--host ADDR]  build the release site and serve it (default 127.0.0.1:8080;
                                  --port 0 picks any free port)
  test                            run every check and test, as CI does
  setup                           install the pinned tools only
  data [--from DIR | --url BASE] [--to DIR]
                                  fetch the test data (Gavel's measured throughputs and traces,
                                  with its licence) from its repository at a pinned commit, or
                                  copy it from DIR (a copy such as ../shared/data); every file's
                                  SHA-256 is checked; installed into ~/.cache/fairground/shared
                                  (test and serve run it when no data is beside the clone)
  dist                            build the release site and write it, for any static host and
                                  path, as target/fairground-site-VERSION.tar.gz (docs/hosting.md)
  fuzz [--minutes N]              run the engine's extreme-range fuzz suite for N minutes
                                  (default 5); failures are kept in
                                  crates/fairground-core/tests/fuzz-regressions/
  reproduce                       regenerate REPRODUCTION.md: each seed system's claims beside
                                  the figures our engine gives (about 10 minutes)
  screenshot                      build the site and write the README's picture of the
                                  playground, docs/playground.png (at most 100 KB)
  check-docs                      check the Markdown files' relative links and anchors, and
                                  that no crate's modules import each other in a circle, that
                                  no code compares with a policy's name outside the
                                  policies' files, and that docs/glossary.md is current (test
                                  runs them too)
  doc-moved OLD.md                list the sentences of OLD.md that no Markdown file holds
                                  today (after moving text between pages)
  glossary                        write docs/glossary.md and docs/tour.md from the page's data file
                                  (www/explain.json; check-docs fails when it is stale)
  py-test                         build the Python package's wheel (maturin), install it into
                                  ~/.cache/fairground/py-venv and run its tests (test runs it too)
  bench-oef [TENANTS...]          oef-coop against HiGHS (highspy, installed under target/) on
                                  the same random instances, 8 types (default 100 200 500 1000;
                                  1,000 takes several minutes)
  bench-oef --corpus [OPTIONS]    oef-coop against the lazy program on every family of
                                  presets::corpus, tenants 150 300 500 1000 x types 2 4 8 12,
                                  5 seeds (hours; --families, --tenants, --types, --seeds
                                  narrow it); tables, target/oef-corpus/runs.csv, worst.json";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    // `cargo xtask TASK --help` (or -h) prints what TASK takes and runs nothing.
    if args.len() > 1 && args[1..].iter().any(|a| a == "--help" || a == "-h") {
        match args[0].as_str() {
            "data" => println!("{}", data::USAGE),
            _ => println!("{USAGE}"),
        }
        return ExitCode::SUCCESS;
    }
    let result = match args.first().map(String::as_str) {
        Some("serve") => serve_options(&args[1..]).and_then(|(host, port)| serve::run(&host, port)),
        Some("test") if args.len() == 1 => test::run(),
        Some("setup") if args.len() == 1 => setup::all().map(|_| ()),
        Some("data") => data::run(&args[1..]),
        Some("dist") if args.len() == 1 => dist(),
        Some("fuzz") => fuzz_minutes(&args[1..]).and_then(fuzz),
        Some("reproduce") if args.len() == 1 => reproduce::run(),
        Some("screenshot") if args.len() == 1 => serve::screenshot(),
        Some("check-docs") if args.len() == 1 => docs::check(&project_root())
            .and_then(|()| glossary::check(&project_root()))
            .and_then(|()| layers::check(&project_root()))
            .and_then(|()| policy_names::check(&project_root())),
        Some("glossary") if args.len() == 1 => glossary::write(&project_root()),
        Some("doc-moved") if args.len() == 2 => {
            docs::moved(&project_root(), std::path::Path::new(&args[1]))
        }
        Some("bench-oef") => bench_oef::run(&args[1..]),
        Some("py-test") if args.len() == 1 => python::run(),
        Some("-h" | "--help" | "help") => {
            println!("{USAGE}");
            Ok(())
        }
        _ => Err(format!(
            "unknown or missing task: {}\n\n{USAGE}",
            args.join(" ")
        )),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("\nxtask: error: {message}");
            ExitCode::FAILURE
        }
    }
}

fn serve_options(args: &[String]) -> Result<(String, u16), String> {
    let mut host = "127.0.0.1".to_string();
    let mut port = 8080;
    let mut rest = args.iter();
    while let Some(flag) = rest.next() {
        let value = rest
            .next()
            .ok_or_else(|| format!("{flag} needs a value\n\n{USAGE}"))?;
        match flag.as_str() {
            "--port" => {
                port = value
                    .parse()
                    .map_err(|_| format!("--port takes a number from 0 to 65535, not '{value}'"))?
            }
            "--host" => host = value.clone(),
            _ => return Err(format!("unknown option {flag}\n\n{USAGE}")),
        }
    }
    Ok((host, port))
}

/// `cargo xtask dist`: build, then archive dist/.
fn dist() -> Result<(), String> {
    let tools = setup::for_build()?;
    let (dist, version) = serve::build_versioned_site(&tools)?;
    let archive = site::archive(&project_root(), &dist, &version)?;
    println!(
        "\nThe site (build {version}) is in {}\n  Unpack it anywhere a static server serves; docs/hosting.md says how.",
        archive.display()
    );
    Ok(())
}

/// The workspace root (xtask lives one level below it).
pub fn project_root() -> PathBuf {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    manifest.parent().map(PathBuf::from).unwrap_or(manifest)
}

fn fuzz_minutes(args: &[String]) -> Result<u64, String> {
    match args {
        [] => Ok(5),
        [flag, value] if flag == "--minutes" => value
            .parse()
            .ok()
            .filter(|&m| m > 0)
            .ok_or_else(|| format!("--minutes takes a whole number above 0, not '{value}'")),
        _ => Err(format!("fuzz takes only --minutes N\n\n{USAGE}")),
    }
}

/// The fuzz suite's long run, in release mode (about 40x the cases of a debug build).
fn fuzz(minutes: u64) -> Result<(), String> {
    cmd::run(
        &format!("fuzz suite, {minutes} min (release)"),
        cmd::cargo()
            .args([
                "test",
                "--release",
                "-p",
                "fairground-core",
                "--test",
                "fuzz",
                "--",
                "--ignored",
                "--nocapture",
            ])
            .env("FAIRGROUND_FUZZ_SECONDS", (minutes * 60).to_string())
            .current_dir(project_root()),
    )
}

#[cfg(test)]
mod tests {
    use super::serve_options;

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn serve_options_parse_and_explain_mistakes() {
        assert_eq!(serve_options(&[]).unwrap(), ("127.0.0.1".to_string(), 8080));
        assert_eq!(serve_options(&args(&["--port", "0"])).unwrap().1, 0);
        assert!(serve_options(&args(&["--port", "x"]))
            .unwrap_err()
            .contains("--port takes a number"));
        assert!(serve_options(&args(&["--port"]))
            .unwrap_err()
            .contains("needs a value"));
        assert!(serve_options(&args(&["--colour", "1"]))
            .unwrap_err()
            .contains("unknown option"));
    }
}
