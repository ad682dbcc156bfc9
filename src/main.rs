//! The `ndl` command: describe NumPy files in the Ndarray Data Language and
//! the other array-description languages.

mod describe;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// Describe the content of NumPy .npy and .npz files in the Ndarray Data
/// Language (NDL) and in other array-description languages.
#[derive(Parser)]
#[command(name = "ndl", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Print a description of a .npy or .npz file.
    ///
    /// An NDL sidecar beside the file (FILE with the extension .yaml or
    /// .yml, as `ndl_runtime::npy` writes it) adds what the file cannot
    /// hold: enum member names, descriptions and attributes. It is used only
    /// where its datatypes have the same layout as the file's.
    Describe(DescribeArgs),
}

#[derive(Args)]
struct DescribeArgs {
    /// The .npy or .npz file to describe.
    file: PathBuf,

    /// The language of the description.
    #[arg(short, long, value_enum, default_value_t = Format::Ndl)]
    format: Format,

    /// The largest .npy header to read, as NumPy's `max_header_size`: its
    /// length in characters (bytes in a 1.0 or 2.0 header), padding
    /// included; larger headers are refused.
    #[arg(long, value_name = "CHARS", default_value_t = ndl_runtime::npy::DEFAULT_MAX_HEADER_SIZE)]
    max_header_size: usize,

    /// Ignore an NDL sidecar beside the file.
    #[arg(long)]
    no_sidecar: bool,
}

/// The description languages `describe` writes.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// NDL YAML: the whole file as one document.
    Ndl,
    /// The NumPy header dict of each array: descr, fortran_order, shape.
    Numpy,
    /// A Datashape for each array: `3 * {id: uint32, t: float64}`.
    Datashape,
    /// Zarr v2 `.zarray` metadata for each array (JSON).
    Zarr,
    /// A netCDF-4 CDL document with a variable for each array.
    Cdl,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Describe(args) => run_describe(&args),
    }
}

fn run_describe(args: &DescribeArgs) -> ExitCode {
    let options = describe::Options {
        max_header_size: args.max_header_size,
        sidecar: !args.no_sidecar,
    };
    match describe::describe(&args.file, args.format, &options) {
        Ok(described) => {
            for warning in &described.warnings {
                eprintln!("ndl: warning: {warning}");
            }
            print!("{}", described.text);
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("ndl: error: {e}");
            ExitCode::FAILURE
        }
    }
}
