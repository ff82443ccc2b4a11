//! The `ptx` command.

#![forbid(unsafe_code)]

use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "ptx",
    version,
    about = "Read, check, format and round-trip NVIDIA PTX"
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Parse each file; report errors as FILE:LINE:COL.
    Check {
        /// PTX files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Print canonical PTX.
    Fmt {
        /// The PTX file.
        file: PathBuf,
        /// Write here instead of standard output.
        #[arg(short, long)]
        output: Option<PathBuf>,
    },
    /// Check that each file's IR survives print -> parse unchanged.
    Roundtrip {
        /// PTX files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
}

fn read(path: &PathBuf) -> Result<String, String> {
    std::fs::read(path)
        .map_err(|e| format!("{}: error: {e}", path.display()))
        .and_then(|b| {
            String::from_utf8(b)
                .map_err(|e| format!("{}: error: not UTF-8 text ({e})", path.display()))
        })
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.cmd {
        Cmd::Check { files } => {
            let mut ok = true;
            for f in &files {
                let name = f.display().to_string();
                match read(f)
                    .and_then(|s| ptx_ir::text::parse_file(&s, &name).map_err(|e| e.to_string()))
                {
                    Ok(_) => {}
                    Err(e) => {
                        eprintln!("{e}");
                        ok = false;
                    }
                }
            }
            if ok {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }
        Cmd::Fmt { file, output } => {
            let name = file.display().to_string();
            let m = match read(&file)
                .and_then(|s| ptx_ir::text::parse_file(&s, &name).map_err(|e| e.to_string()))
            {
                Ok(m) => m,
                Err(e) => {
                    eprintln!("{e}");
                    return ExitCode::FAILURE;
                }
            };
            let text = ptx_ir::text::print(&m);
            match output {
                Some(o) => {
                    if let Err(e) = std::fs::write(&o, text) {
                        eprintln!("{}: error: {e}", o.display());
                        return ExitCode::FAILURE;
                    }
                }
                None => print!("{text}"),
            }
            ExitCode::SUCCESS
        }
        Cmd::Roundtrip { files } => {
            let (mut pass, mut fail) = (0, 0);
            for f in &files {
                let name = f.display().to_string();
                match read(f).and_then(|s| ptx_ir::roundtrip::check_text(&s, &name).map(|_| ())) {
                    Ok(()) => {
                        pass += 1;
                        println!("ok {name}");
                    }
                    Err(e) => {
                        fail += 1;
                        let first = e.lines().next().unwrap_or("");
                        println!("FAIL {name}: {first}");
                    }
                }
            }
            println!("{pass} passed, {fail} failed");
            if fail == 0 {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }
    }
}
