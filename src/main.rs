//! The `ptx` command.

#![forbid(unsafe_code)]

mod interp_cli;
mod locate;
mod out;
mod progress_bar;
mod verify_cli;

use clap::{Parser, Subcommand};
use ptx_ir::load::{self, Form};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use verify_cli::InputArgs;

#[derive(Parser)]
#[command(
    name = "ptx",
    version,
    about = "Read, check, format, encode and round-trip NVIDIA PTX (text or bytecode)"
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Read and verify each file (PTX text or bytecode); report errors as FILE:LINE:COL.
    Check(verify_cli::CheckArgs),
    /// Print the minimum target and PTX ISA version a module needs.
    Info {
        /// The PTX or bytecode file.
        file: PathBuf,
        #[command(flatten)]
        input: InputArgs,
    },
    /// Print canonical PTX.
    Fmt {
        /// The PTX or bytecode file.
        file: PathBuf,
        /// Write here instead of standard output (never over FILE).
        #[arg(short, long)]
        output: Option<PathBuf>,
        #[command(flatten)]
        input: InputArgs,
    },
    /// Write the bytecode of a module.
    Encode {
        /// The PTX (or bytecode) file.
        file: PathBuf,
        /// The bytecode file to write; defaults to FILE with the extension `.ptxb` (never FILE
        /// itself: encoding `x.ptxb` needs `-o`).
        #[arg(short, long)]
        output: Option<PathBuf>,
        /// Store the sections uncompressed (larger; the bytes are the plain bincode encoding).
        #[arg(long)]
        uncompressed: bool,
        #[command(flatten)]
        input: InputArgs,
    },
    /// Print the PTX text of a bytecode file.
    Decode {
        /// The bytecode (or PTX) file.
        file: PathBuf,
        /// Write here instead of standard output (never over FILE).
        #[arg(short, long)]
        output: Option<PathBuf>,
        #[command(flatten)]
        input: InputArgs,
    },
    /// Check that each file's IR survives print -> parse and IR -> bytecode -> IR unchanged.
    Roundtrip {
        /// PTX or bytecode files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        #[command(flatten)]
        input: InputArgs,
    },
    /// Run a kernel in the reference interpreter.
    Run(interp_cli::RunArgs),
    /// Run hardware-truth vectors (JSON lines) and compare bit for bit.
    Vectors(interp_cli::VectorsArgs),
}

/// Whether `a` and `b` name the same existing file (through links, `..` or another
/// spelling).
fn same_file(a: &Path, b: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if let (Ok(x), Ok(y)) = (std::fs::metadata(a), std::fs::metadata(b)) {
            return x.dev() == y.dev() && x.ino() == y.ino();
        }
    }
    matches!(
        (std::fs::canonicalize(a), std::fs::canonicalize(b)),
        (Ok(x), Ok(y)) if x == y
    )
}

/// Refuses to write the output over the input, which would lose it.
fn not_over_input(input: &Path, output: &Path, defaulted: bool) -> Result<(), String> {
    if !same_file(input, output) {
        return Ok(());
    }
    let how = if defaulted {
        "the default output (FILE with the extension `.ptxb`) is the input itself; name another \
         with `-o`"
    } else {
        "name another output with `-o`"
    };
    Err(format!(
        "{}: error: refusing to overwrite the input file; {how}",
        output.display()
    ))
}

fn write_out(output: Option<&Path>, bytes: &[u8]) -> Result<(), String> {
    match output {
        Some(o) => std::fs::write(o, bytes).map_err(|e| format!("{}: error: {e}", o.display())),
        None => {
            use std::io::Write;
            std::io::stdout().write_all(bytes).map_err(|e| {
                if e.kind() == std::io::ErrorKind::BrokenPipe {
                    // The reader has gone: end as a filter ends on SIGPIPE (`out.rs`).
                    std::process::exit(141);
                }
                format!("<stdout>: error: {e}")
            })
        }
    }
}

fn run(cmd: Cmd) -> Result<(), String> {
    match cmd {
        Cmd::Run(a) => interp_cli::run(a),
        Cmd::Vectors(a) => interp_cli::vectors(a),
        Cmd::Check(a) => verify_cli::check(a),
        Cmd::Info { file, input } => verify_cli::info(&file, input),
        Cmd::Fmt {
            file,
            output,
            input,
        }
        | Cmd::Decode {
            file,
            output,
            input,
        } => {
            if let Some(o) = &output {
                not_over_input(&file, o, false)?;
            }
            let m = input.load(&file)?.module;
            write_out(output.as_deref(), ptx_ir::text::print(&m).as_bytes())
        }
        Cmd::Encode {
            file,
            output,
            uncompressed,
            input,
        } => {
            let defaulted = output.is_none();
            let out = output.unwrap_or_else(|| file.with_extension("ptxb"));
            not_over_input(&file, &out, defaulted)?;
            let m = input.load(&file)?.module;
            let codec = if uncompressed {
                ptx_ir::binary::Codec::Stored
            } else {
                ptx_ir::binary::Codec::DEFAULT
            };
            let bytes = ptx_ir::binary::encode_with(&m, codec)
                .map_err(|e| format!("{}: error: {e}", file.display()))?;
            write_out(Some(&out), &bytes)
        }
        Cmd::Roundtrip { files, input } => {
            let (mut pass, mut fail) = (0, 0);
            for f in &files {
                let name = f.display().to_string();
                let result = input.load(f).and_then(|l| {
                    // print -> parse, then IR -> bytecode -> IR.
                    ptx_ir::roundtrip::check_module(&l.module).map_err(|e| match l.form {
                        Form::Text => e.to_string(),
                        Form::Bytecode => format!("decoded module: {e}"),
                    })?;
                    load::check_bytecode(&l.module).map_err(|e| e.to_string())
                });
                match result {
                    Ok(()) => {
                        pass += 1;
                        crate::out::outln!("ok {name}");
                    }
                    Err(e) => {
                        fail += 1;
                        let first = e.lines().next().unwrap_or("");
                        crate::out::outln!("FAIL {name}: {first}");
                    }
                }
            }
            crate::out::outln!("{pass} passed, {fail} failed");
            if fail == 0 {
                Ok(())
            } else {
                Err(String::new())
            }
        }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli.cmd) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            if !e.is_empty() {
                eprintln!("{e}");
            }
            ExitCode::FAILURE
        }
    }
}
