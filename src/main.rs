//! The `ndl` command: describe NumPy files, Zarr stores and Parquet and
//! Arrow files in the Ndarray Data Language and the other
//! array-description languages, and convert between them. It parses
//! arguments and prints; `ndl-formats` does the work.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use ndl_formats::{
    ConvertOptions, DescribeOptions, Format as FileFormat, Language, Layout, Progress, ReadOptions,
    WriteSettings,
};
use ndl_runtime::npy::HeaderLimits;

mod reader_process;

/// Describe NumPy .npy and .npz files, Zarr stores, HDF5 and netCDF
/// files, and Parquet and Arrow IPC files in the Ndarray Data Language
/// (NDL) and in other array-description languages, and convert between
/// any two of them.
#[derive(Parser)]
#[command(name = "ndl", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// An NDL sidecar beside the file (FILE with the extension .yaml or
    /// .yml, as `ndl_runtime::npy` writes it) adds what the file cannot
    /// hold: enum member names, descriptions and attributes. It is used only
    /// where its datatypes have the same layout as the file's.
    Describe(DescribeArgs),
    /// Zarr stores and HDF5 and netCDF-4 files hold records as one array
    /// (--layout records) or one array per field (--layout columns).
    /// The array streams through in bounded memory; a progress bar shows on
    /// a terminal. The destination appears only once complete.
    Convert(ConvertArgs),
    /// Remove the lock that a writer which is gone left on a Zarr store.
    ///
    /// A writer holds a store's lock while it appends, and renews the
    /// lock's lease as it goes. A lock whose lease has expired belongs to a
    /// writer that was killed or cut off: it is removed, unless a writer
    /// renewed it meanwhile. A lock whose lease holds is kept, and the
    /// command fails, naming its owner.
    Unlock(UnlockArgs),
    /// Make the HDF5 file (.h5, .hdf5), netCDF-4 file (.nc) or Zarr store
    /// (.zarr) that an NDL document describes: its groups, attributes, dimension coordinates
    /// (as dimension scales) and ndarrays, with their values and storage
    /// directives. A bad document is an error naming where in it, and
    /// nothing is created; an existing destination is never overwritten.
    Create(CreateArgs),
}

#[derive(Args)]
struct CreateArgs {
    /// The NDL document (YAML).
    doc: PathBuf,
    /// The file to make; the format is the name's ending.
    dest: PathBuf,
    /// The Zarr format of a store made [default: 3].
    #[arg(long, value_name = "2|3", value_parser = clap::value_parser!(u8).range(2..=3))]
    zarr_format: Option<u8>,
}

#[derive(Args)]
struct UnlockArgs {
    /// The store: a directory, or `s3://bucket/prefix`.
    #[arg(value_parser = location)]
    store: PathBuf,
}

#[derive(Args)]
struct ConvertArgs {
    /// The file or store to convert (its format is read from its first
    /// bytes; a directory is a Zarr store).
    #[arg(value_parser = location)]
    src: PathBuf,

    /// Where to write (the formats are listed in the registry, see
    /// `with_formats`).
    #[arg(value_parser = location)]
    dst: PathBuf,

    /// The Zarr format of a store written [default: 3].
    #[arg(long, value_name = "2|3", value_parser = clap::value_parser!(u8).range(2..=3))]
    zarr_format: Option<u8>,

    /// One array of records, or one array per field (Zarr, HDF5 and
    /// netCDF-4) [default: records].
    #[arg(long, value_enum)]
    layout: Option<LayoutArg>,

    /// Records per chunk of a one-dimensional array (default: about 2 MiB
    /// of records); the same as --chunks N.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    chunk_len: Option<u64>,

    /// The chunk shape, one extent per dimension of the array, such as
    /// 256,256; in a whole-file copy, of each array of that rank (default:
    /// a Zarr source's own chunks, else about 2 MiB of elements, spread
    /// evenly across the dimensions, with the first extents shortened so
    /// that one slab of chunks, what the writer holds in memory, stays
    /// under 64 MiB).
    #[arg(long, value_name = "N,...", value_delimiter = ',', value_parser = clap::value_parser!(u64).range(1..), conflicts_with = "chunk_len")]
    chunks: Option<Vec<u64>>,

    /// The compression of each chunk: none, zstd, gzip, zlib, bz2, lz4,
    /// crc32c or blosc; each but none and crc32c (a checksum, no
    /// compression) with an optional level after a colon (zstd:9; lz4's is
    /// its acceleration), blosc also with a compressor (blosclz, lz4, lz4hc,
    /// zlib, zstd) and a shuffle (noshuffle, shuffle, bitshuffle), in any
    /// order: blosc:zstd:7:bitshuffle. Zarr's default is a Zarr source's
    /// own codec, else zstd (none for --layout columns --zarr-format 2,
    /// which Debian's ncdump 4.9 reads only uncompressed). HDF5 and
    /// netCDF-4 files take none (their default), gzip or zlib (HDF5's
    /// deflate, which every reader has without plugins), or blosc (HDF5's
    /// Blosc filter, which h5py reads through the hdf5plugin package).
    #[arg(long)]
    codec: Option<ndl_formats::Codec>,

    /// HDF5 and netCDF-4: shuffle each chunk's bytes before its codec
    /// (HDF5's shuffle filter).
    #[arg(long)]
    shuffle: bool,

    /// With --layout columns: store fixed strings as ubyte arrays rather
    /// than char (|S1), for readers that fail on char, such as Debian's
    /// ncdump 4.9.
    #[arg(long)]
    chars_as_u1: bool,

    /// How strings (NumPy U and S) are stored in a Zarr store: fixed, or
    /// as variable-length values (v3 `string` / `variable_length_bytes`,
    /// v2 `|O` with `vlen-utf8` / `vlen-bytes`), trailing NULs trimmed as
    /// NumPy trims them [default: as the source has them: variable-length
    /// where the source's are (a Zarr store's, an HDF5 or netCDF-4
    /// dataset's), else fixed].
    #[arg(long, value_enum)]
    strings: Option<StringsArg>,

    /// The member of a .npz archive, the dataset or variable of an HDF5
    /// or netCDF-4 file (`/group/name`), or the array of a Zarr group
    /// (an xarray dataset's `temp`), to convert, when it holds more than
    /// one [default: to a .zarr store, .h5 or .nc file, every one].
    #[arg(long)]
    member: Option<String>,

    /// Undo netCDF's CF encodings as xarray's decode_cf does (unpack
    /// scale_factor/add_offset, values equal to _FillValue or
    /// missing_value as NaN, netCDF-3 _Unsigned bytes as unsigned, counts
    /// of time as times) where the destination could keep them: a .zarr
    /// store, .h5 or .nc file otherwise gets the stored values and their
    /// encodings, as nccopy copies them. Other destinations always get
    /// them undone.
    #[arg(long)]
    decode_cf: bool,

    /// The value that stands for null in a column of records whose
    /// destination has no nulls (.npy, HDF5, netCDF-4, Zarr), such as
    /// --fill venue=-1 or --fill note="" (nested columns by dotted path:
    /// venue.code, and legs.qty inside a list of records); repeat for each
    /// column. An optional list takes --fill tags=[] (its nulls become
    /// empty lists); an optional record takes a fill for each field
    /// (--fill venue.code=0), each then null where the record is. A column
    /// with a fill of its own in the source (a _FillValue) keeps it unless
    /// given here.
    #[arg(long, value_name = "COLUMN=VALUE", value_parser = fill)]
    fill: Vec<(String, String)>,
}

/// A `--fill COLUMN=VALUE`, split at its first `=`.
fn fill(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((column, value)) if !column.is_empty() => Ok((column.to_owned(), value.to_owned())),
        _ => Err(format!("`{text}` is not COLUMN=VALUE")),
    }
}

/// How strings are stored in a Zarr store.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum StringsArg {
    /// Fixed width, as the source has them.
    Fixed,
    /// Variable length.
    Variable,
}

/// The layouts of a store.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum LayoutArg {
    /// One array of records: a Zarr array, an HDF5 dataset, a netCDF
    /// compound variable.
    Records,
    /// One array per field: Zarr arrays in a group, HDF5 datasets or
    /// netCDF variables over the record dimension.
    Columns,
}

#[derive(Args)]
struct DescribeArgs {
    /// The file or store to describe (the formats are listed in the
    /// registry, see `with_formats`).
    #[arg(value_parser = location)]
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

    /// With --format rust: the array whose records the type reads, when
    /// the file holds several (`group/name`, or the .npz member).
    #[arg(long, value_name = "ARRAY")]
    member: Option<String>,

    /// With --format rust: the name of the top-level type [default: the
    /// --member's name, else the file's, UpperCamelCase].
    #[arg(long, value_name = "NAME")]
    type_name: Option<String>,
}

/// The description languages `describe` writes.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    /// NDL YAML: the whole file as one document.
    Ndl,
    /// The NumPy header dict of each array: descr, fortran_order, shape.
    Numpy,
    /// A Datashape for each array: `3 * {id: uint32, t: float64}`.
    Datashape,
    /// Zarr metadata for each array (JSON): a store's own zarr.json or
    /// .zarray, else the `.zarray` of a store holding the array (records
    /// packed, as Zarr stores them).
    Zarr,
    /// A netCDF-4 CDL document with a variable for each array.
    Cdl,
    /// The Rust source of the type that reads one array's records exactly.
    Rust,
}

fn main() -> ExitCode {
    let matches = with_formats(Cli::command()).get_matches();
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    let isolated = match &cli.command {
        Command::Describe(args) => {
            let limit = reader_process::Limit::Whole(reader_process::describe_limit());
            reader_process::run_isolated(&args.file, limit)
        }
        Command::Convert(args) => {
            let limit = reader_process::Limit::UntilDataMoves(reader_process::describe_limit());
            reader_process::run_isolated(&args.src, limit)
        }
        Command::Unlock(_) | Command::Create(_) => None,
    };
    if let Some(ended) = isolated {
        return ended;
    }
    match cli.command {
        Command::Describe(args) => run_describe(&args),
        Command::Convert(args) => run_convert(&args),
        Command::Unlock(args) => run_unlock(&args),
        Command::Create(args) => run_create(&args),
    }
}

/// The help texts that name formats, made from the registry of formats,
/// so that a format added there is listed here.
fn with_formats(command: clap::Command) -> clap::Command {
    let read = listed(FileFormat::all().map(|f| f.noun().to_string()).collect());
    let written = listed(FileFormat::written());
    let long = |c: &clap::Command, about: &str| {
        let rest = c
            .get_long_about()
            .or(c.get_about())
            .map(ToString::to_string)
            .unwrap_or_default();
        format!("{about}\n\n{rest}")
    };
    command
        .mut_subcommand("describe", |c| {
            let about = format!("Print a description of a {read}.");
            let long = long(&c, &about);
            c.about(about)
                .long_about(long)
                .mut_arg("file", |a| a.help(format!("The {read} to describe")))
        })
        .mut_subcommand("convert", |c| {
            let about = format!("Convert an array from a {read} to a {written}.");
            let long = long(&c, &about);
            c.about(about).long_about(long).mut_arg("dst", |a| {
                a.help(format!(
                    "Where to write: a {written}; the format is the name's ending"
                ))
            })
        })
}

/// `a, b or c`.
fn listed(mut items: Vec<String>) -> String {
    match items.pop() {
        Some(last) if !items.is_empty() => format!("{} or {last}", items.join(", ")),
        Some(last) => last,
        None => String::new(),
    }
}

/// A location on the command line: a path, `file:///path` (the path), or
/// `s3://bucket/prefix`. The command works with local paths itself (it
/// builds a store beside its destination and renames it), so a `file://`
/// URL becomes its path here, once.
fn location(arg: &str) -> Result<PathBuf, String> {
    Ok(PathBuf::from(arg.strip_prefix("file://").unwrap_or(arg)))
}

/// The write settings the command line gives.
fn write_settings(args: &ConvertArgs) -> WriteSettings {
    let mut settings = WriteSettings::default();
    settings.zarr_format = args.zarr_format;
    settings.layout = args.layout.map(|layout| match layout {
        LayoutArg::Records => Layout::Records,
        LayoutArg::Columns => Layout::Columns,
    });
    settings.chunk_len = args.chunk_len;
    settings.chunks = args.chunks.clone();
    settings.codec = args.codec;
    settings.shuffle = args.shuffle;
    settings.chars_as_u1 = args.chars_as_u1;
    settings.variable_strings = args.strings.map(|s| s == StringsArg::Variable);
    settings
}

fn run_convert(args: &ConvertArgs) -> ExitCode {
    let write = match ndl_formats::sink_options(&args.dst, &write_settings(args)) {
        Ok(options) => options,
        Err(e) => {
            eprintln!("ndl: error: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut read = ReadOptions::new();
    if let Some(member) = &args.member {
        read = read.member(member);
    }
    if args.decode_cf {
        read = read.decode_cf(true);
    }
    let options = args.fill.iter().fold(
        ConvertOptions::new().read(read).write(write),
        |o, (column, value)| o.fill(column, value),
    );
    let bar = progress_bar();
    let shown = |p: Progress| match p {
        Progress::Note(note) => bar.suspend(|| eprintln!("ndl: note: {note}")),
        Progress::Total(n) => {
            reader_process::data_moves();
            bar.set_length(n)
        }
        Progress::Done(n) => bar.set_position(n),
    };
    let result = ndl_formats::convert(&args.src, &args.dst, &options, &shown);
    bar.finish_and_clear();
    match result {
        Ok(_) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("ndl: error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// A bar of records converted, on a terminal only.
fn progress_bar() -> ProgressBar {
    let target = if std::io::stderr().is_terminal() {
        ProgressDrawTarget::stderr()
    } else {
        ProgressDrawTarget::hidden()
    };
    let bar = ProgressBar::with_draw_target(None, target);
    if let Ok(style) = ProgressStyle::with_template(
        "{bar:40} {human_pos}/{human_len} records, {per_sec}, {eta} left",
    ) {
        bar.set_style(style);
    }
    bar
}

fn run_describe(args: &DescribeArgs) -> ExitCode {
    let rust_only = args.member.is_some() || args.type_name.is_some();
    if rust_only && args.format != Format::Rust {
        eprintln!("ndl: error: --member and --type-name go with --format rust");
        return ExitCode::FAILURE;
    }
    let mut options = DescribeOptions::new()
        .limits(HeaderLimits {
            max_header_size: args.max_header_size,
        })
        .sidecar(!args.no_sidecar);
    if let Some(member) = &args.member {
        options = options.member(member);
    }
    if let Some(name) = &args.type_name {
        options = options.type_name(name);
    }
    match ndl_formats::describe(&args.file, args.format.into(), &options) {
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

impl From<Format> for Language {
    fn from(format: Format) -> Language {
        match format {
            Format::Ndl => Language::Ndl,
            Format::Numpy => Language::Numpy,
            Format::Datashape => Language::Datashape,
            Format::Zarr => Language::Zarr,
            Format::Cdl => Language::Cdl,
            Format::Rust => Language::Rust,
        }
    }
}

fn run_create(args: &CreateArgs) -> ExitCode {
    let mut options = ndl_formats::CreateOptions::default();
    if let Some(format) = args.zarr_format {
        options = options.zarr_format(format);
    }
    match ndl_formats::create_from_ndl(&args.doc, &args.dest, &options) {
        Ok(notes) => {
            for note in notes {
                eprintln!("ndl: note: {note}");
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("ndl: error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run_unlock(args: &UnlockArgs) -> ExitCode {
    let shown = args.store.display();
    let owner = |lock: &ndl_formats::StoreLock| {
        format!(
            "host {}, process {}, taken {} s ago",
            lock.host,
            lock.pid,
            lock.taken.elapsed().map_or(0, |d| d.as_secs())
        )
    };
    match ndl_formats::break_stale_lock(&args.store) {
        Ok(ndl_formats::LockBreak::Unlocked) => {
            println!("{shown}: not locked");
            ExitCode::SUCCESS
        }
        Ok(ndl_formats::LockBreak::Broken(lock)) => {
            println!("{shown}: removed the stale lock of {}", owner(&lock));
            ExitCode::SUCCESS
        }
        Ok(ndl_formats::LockBreak::Held(lock)) => {
            let left = lock
                .expires
                .duration_since(std::time::SystemTime::now())
                .map_or(0, |d| d.as_secs());
            eprintln!(
                "ndl: error: {shown}: locked by a live writer ({}); its lease ends in {left} s unless renewed",
                owner(&lock)
            );
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("ndl: error: {e}");
            ExitCode::FAILURE
        }
    }
}
