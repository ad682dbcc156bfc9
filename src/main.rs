//! The `ndl` command: describe NumPy files in the Ndarray Data Language.

use clap::Parser;

/// Describe the content of NumPy .npy/.npz files in the Ndarray Data
/// Language (NDL) and other array-description languages.
#[derive(Parser)]
#[command(name = "ndl", version, about)]
struct Cli {}

fn main() {
    let _cli = Cli::parse();
}
