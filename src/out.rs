//! Standard output for the commands' reports. `println!` panics when the reader has gone
//! (`ptx run ... | head`); here a closed pipe ends the process as a Unix filter ends on
//! SIGPIPE (status 141, nothing printed), and any other write error ends it with a message.

use std::io::Write;

/// Writes `args` to standard output.
pub fn emit(args: std::fmt::Arguments<'_>) {
    if let Err(e) = std::io::stdout().lock().write_fmt(args) {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(141);
        }
        eprintln!("<stdout>: error: {e}");
        std::process::exit(1);
    }
}

/// `println!` through [`emit`].
macro_rules! outln {
    ($($t:tt)*) => {
        $crate::out::emit(format_args!("{}\n", format_args!($($t)*)))
    };
}

/// `print!` through [`emit`].
macro_rules! out {
    ($($t:tt)*) => {
        $crate::out::emit(format_args!($($t)*))
    };
}

pub(crate) use {out, outln};
