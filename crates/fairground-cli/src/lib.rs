//! The `fairground` command's simulation, sweep and plotting code as a library: the binary
//! (`main.rs`) parses and prints, and `fairground-py` runs `simulate` through the same flags,
//! so a Python run and a command-line run are the same run.

/// println! that ends the program quietly when standard output is closed (`fairground ... | head`)
/// instead of panicking.
#[macro_export]
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        if writeln!(std::io::stdout(), $($arg)*).is_err() {
            std::process::exit(0);
        }
    }};
}

/// print! with the same behaviour as [`out!`].
#[macro_export]
macro_rules! out_part {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        if write!(std::io::stdout(), $($arg)*).is_err() {
            std::process::exit(0);
        }
    }};
}

pub mod plots;
pub mod simulate;
pub mod sweep;
