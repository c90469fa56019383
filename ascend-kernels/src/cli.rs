//! What the examples share: command-line flags (`clap`), reading inputs and golden data
//! from `.npy` / `.bin` files, the tiling the flags ask for, the `main` that turns an error
//! into exit status 2 ([`main_with`], [`by_float_dtype`]), and the one-screen summary with
//! PASS / FAIL.
//!
//! ```
//! use ascend_kernels::cli::Args;
//! use ascend_runtime::prelude::*;
//!
//! let a = Args::parse(["--len", "1000", "--soc", "ascend310p", "--cores", "4"].map(String::from), &["len", "soc", "cores"]).unwrap();
//! assert_eq!((a.len, a.cores, a.soc), (Some(1000), Some(4), Soc::Ascend310P));
//! assert!(Args::parse(["--rows", "16"].map(String::from), &["len"]).is_err());
//! ```

use core::fmt;
use std::error::Error;
use std::path::PathBuf;
use std::time::Duration;

use ascend_runtime::npy::{self, NpyError};
use ascend_runtime::prelude::*;
use ascend_runtime::testing::{CloseReport, Mismatch};

use clap::error::ErrorKind;
use clap::parser::ValueSource;
use clap::{Command, CommandFactory, FromArgMatches, Parser};

use crate::data::random_vec;
use crate::tiling::TilingConfig;

/// What an example's body returns: `Ok` (it has printed its summary) or the error to report.
pub type ExampleResult = Result<(), Box<dyn Error>>;

/// The whole `main` of an example: parses the process's flags (`allowed`; `--help` prints
/// them, a bad one prints the usage and exits with status 2), runs `body`, and on an error
/// prints it and exits with status 2.
pub fn main_with(allowed: &[&str], body: impl FnOnce(&Args) -> ExampleResult) {
    let args = Args::from_env(allowed);
    if let Some(dir) = &args.profile {
        ascend_runtime::profile::set_profile_dir(Some(dir.clone()));
    }
    if let Err(e) = with_progress(Duration::from_secs(5), || body(&args)) {
        eprintln!("error: {e}");
        std::process::exit(2);
    }
}

/// Runs `f`, printing `[still running, N s]` to stderr every `every` until it returns (a run
/// with a large `--len` takes a while; a short one prints nothing).
pub fn with_progress<R>(every: Duration, f: impl FnOnce() -> R) -> R {
    let (tx, rx) = std::sync::mpsc::channel::<()>();
    std::thread::scope(|s| {
        s.spawn(move || {
            let start = std::time::Instant::now();
            while let Err(std::sync::mpsc::RecvTimeoutError::Timeout) = rx.recv_timeout(every) {
                eprintln!("[still running, {:.0} s]", start.elapsed().as_secs_f64());
            }
        });
        let r = f();
        drop(tx);
        r
    })
}

/// Runs the body for the `--dtype` of `args` (`f32` unless given): `run_f32` or `run_f16`.
///
/// # Errors
/// The body's error, or a message naming `kernel` for any other dtype.
///
/// ```
/// use ascend_kernels::cli::{by_float_dtype, Args};
/// let a = Args::parse(["--dtype", "bf16"].map(String::from), &["dtype"]).unwrap();
/// let e = by_float_dtype("maximum", &a, |_| Ok(()), |_| Ok(())).unwrap_err();
/// assert_eq!(e.to_string(), "--dtype bf16: maximum supports f16 and f32");
/// ```
pub fn by_float_dtype(
    kernel: &str,
    args: &Args,
    run_f32: impl FnOnce(&Args) -> ExampleResult,
    run_f16: impl FnOnce(&Args) -> ExampleResult,
) -> ExampleResult {
    match args.dtype.as_deref().unwrap_or("f32") {
        "f32" => run_f32(args),
        "f16" => run_f16(args),
        other => Err(format!("--dtype {other}: {kernel} supports f16 and f32").into()),
    }
}

/// The flags of the examples (each example accepts a subset), parsed with `clap`.
#[derive(Clone, Debug, PartialEq, Parser)]
#[command(
    name = "example",
    about = "Runs an AscendC kernel on the host emulator, checks it against golden data, prints PASS or FAIL",
    disable_version_flag = true
)]
pub struct Args {
    /// Number of elements.
    #[arg(long, value_name = "N")]
    pub len: Option<usize>,
    /// Cores to launch (`blockDim`).
    #[arg(long, value_name = "N")]
    pub cores: Option<u32>,
    /// The chip: Ascend910, Ascend910B, Ascend310P or Ascend310B.
    #[arg(long, value_name = "CHIP", default_value = "Ascend910B", value_parser = parse_soc)]
    pub soc: Soc,
    /// Elements per tile.
    #[arg(long, value_name = "N")]
    pub tile: Option<usize>,
    /// Rows of the matrix (transpose).
    #[arg(long, value_name = "N")]
    pub rows: Option<usize>,
    /// Columns of the matrix (transpose).
    #[arg(long, value_name = "N")]
    pub cols: Option<usize>,
    /// Element type: f16 or f32.
    #[arg(long, value_name = "TYPE", value_parser = parse_dtype)]
    pub dtype: Option<String>,
    /// Input x (`.npy`, anything else raw little-endian `.bin`); random data if absent.
    #[arg(long = "input-x", value_name = "FILE")]
    pub input_x: Option<PathBuf>,
    /// Input y (`.npy` or `.bin`); random data if absent.
    #[arg(long = "input-y", value_name = "FILE")]
    pub input_y: Option<PathBuf>,
    /// The expected output (`.npy` or `.bin`); computed on the host if absent.
    #[arg(long, value_name = "FILE")]
    pub golden: Option<PathBuf>,
    /// Where to write the kernel's output (`.npy` or `.bin`).
    #[arg(long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Profile the launch: write its modelled timeline (`trace.json`, `PipeUtilization.csv`,
    /// `hotspots.csv`, `pipeline.svg`) into this folder and print a summary (see
    /// `ascend_runtime::profile`). Every example takes it.
    #[arg(long, value_name = "DIR")]
    pub profile: Option<PathBuf>,
}

impl Default for Args {
    fn default() -> Self {
        Args {
            len: None,
            cores: None,
            soc: Soc::Ascend910B,
            tile: None,
            rows: None,
            cols: None,
            dtype: None,
            input_x: None,
            input_y: None,
            golden: None,
            output: None,
            profile: None,
        }
    }
}

fn parse_soc(v: &str) -> Result<Soc, String> {
    Soc::parse(v).ok_or_else(|| {
        let names: Vec<String> = Soc::ALL.iter().map(|s| s.to_string()).collect();
        format!("unknown chip (one of {})", names.join(", "))
    })
}

fn parse_dtype(v: &str) -> Result<String, String> {
    Ok(v.to_ascii_lowercase())
}

impl Args {
    /// The `clap` command of a program that takes the flags `allowed` (long names without
    /// `--`): the others are hidden from `--help` and rejected.
    pub fn command_for(name: &str, allowed: &[&str]) -> Command {
        let mut cmd = Args::command().bin_name(name.to_owned());
        let hidden: Vec<String> = cmd
            .get_arguments()
            .filter(|a| a.get_long().is_some_and(|l| !allowed.contains(&l) && l != "profile"))
            .map(|a| a.get_id().to_string())
            .collect();
        for id in hidden {
            cmd = cmd.mut_arg(id, |a| a.hide(true));
        }
        cmd
    }

    fn try_parse_for(cmd: Command, argv: Vec<String>, allowed: &[&str]) -> Result<Args, clap::Error> {
        let mut cmd = cmd;
        let mut m = cmd.try_get_matches_from_mut(argv)?;
        let rejected = cmd.get_arguments().find(|a| {
            a.get_long().is_some_and(|l| !allowed.contains(&l) && l != "profile")
                && m.value_source(a.get_id().as_str()) == Some(ValueSource::CommandLine)
        });
        if let Some(a) = rejected {
            let flag = format!("--{}", a.get_long().unwrap_or_default());
            return Err(cmd.error(ErrorKind::UnknownArgument, format!("unexpected argument '{flag}' found")));
        }
        Args::from_arg_matches_mut(&mut m)
    }

    /// Parses the flags (the program name already removed). `allowed` lists the flags
    /// (without `--`) this program takes; `--help` returns the help text as the error.
    ///
    /// # Errors
    /// `clap`'s message naming an unknown flag, a missing or malformed value, or an unknown
    /// chip (with the usage line).
    pub fn parse(args: impl IntoIterator<Item = String>, allowed: &[&str]) -> Result<Args, String> {
        let argv = std::iter::once("example".to_owned()).chain(args).collect();
        Self::try_parse_for(Self::command_for("example", allowed), argv, allowed).map_err(|e| e.to_string())
    }

    /// Parses the process's arguments; `--help` prints the help and exits with status 0, a
    /// bad flag prints the message and exits with status 2.
    pub fn from_env(allowed: &[&str]) -> Args {
        let argv: Vec<String> = std::env::args().collect();
        let name = argv
            .first()
            .and_then(|p| std::path::Path::new(p).file_stem())
            .map_or_else(|| "example".to_owned(), |s| s.to_string_lossy().into_owned());
        Self::try_parse_for(Self::command_for(&name, allowed), argv, allowed).unwrap_or_else(|e| e.exit())
    }

    /// The tiling for `len` elements of `T`: [`TilingConfig::new`] on `--cores` (else
    /// `default_cores`) cores, with the `--tile` length if one was given.
    pub fn tiling<T: Element>(&self, len: usize, default_cores: u32) -> TilingConfig {
        let tiling = TilingConfig::new::<T>(len, self.cores.unwrap_or(default_cores));
        self.tile.map_or(tiling, |tile| tiling.with_tile_length(tile))
    }

    /// The inputs `x` and `y`: read from `--input-x` / `--input-y` if given, else `len`
    /// (for `y`: as many as `x`) values uniform in `[lo, hi)` from seeds 1 and 2.
    ///
    /// # Errors
    /// A file's [`NpyError`], or a message if `x` and `y` differ in length.
    pub fn input_pair<T: Element>(
        &self,
        len: usize,
        lo: f64,
        hi: f64,
    ) -> Result<(Vec<T>, Vec<T>), Box<dyn Error>> {
        let x: Vec<T> = input_or(&self.input_x, || random_vec(len, 1, lo, hi))?;
        let y: Vec<T> = input_or(&self.input_y, || random_vec(x.len(), 2, lo, hi))?;
        if x.len() != y.len() {
            return Err(format!("x has {} elements, y {}", x.len(), y.len()).into());
        }
        Ok((x, y))
    }
}

/// Reads the file if one was given, else makes the data.
///
/// # Errors
/// The file's [`NpyError`].
pub fn input_or<T: Element>(
    file: &Option<PathBuf>,
    make: impl FnOnce() -> Vec<T>,
) -> Result<Vec<T>, NpyError> {
    match file {
        Some(p) => npy::load(p),
        None => Ok(make()),
    }
}

/// Writes `data` if an output file was given.
///
/// # Errors
/// The file's [`NpyError`].
pub fn write_output<T: Element>(file: &Option<PathBuf>, data: &[T]) -> Result<(), NpyError> {
    match file {
        Some(p) => npy::save(p, data),
        None => Ok(()),
    }
}

/// What an example prints: the run and its verdict.
#[derive(Clone, Debug)]
pub struct Summary {
    /// The kernel's name.
    pub kernel: &'static str,
    /// The element type.
    pub dtype: DType,
    /// The chip.
    pub soc: Soc,
    /// Cores.
    pub cores: u32,
    /// Elements processed.
    pub elements: usize,
    /// Wall time of the launch.
    pub wall: Duration,
    /// The comparison with the golden data.
    pub verdict: Result<CloseReport, Mismatch>,
}

impl Summary {
    /// The summary of a launch of `kernel` over `elements` elements of `T`.
    pub fn of<T: Element>(
        kernel: &'static str,
        stats: &LaunchStats,
        elements: usize,
        verdict: Result<CloseReport, Mismatch>,
    ) -> Summary {
        Summary {
            kernel,
            dtype: T::DTYPE,
            soc: stats.soc,
            cores: stats.block_dim,
            elements,
            wall: stats.wall,
            verdict,
        }
    }

    /// Whether the result matched.
    pub fn passed(&self) -> bool {
        self.verdict.is_ok()
    }

    /// Elements per second of the launch.
    pub fn elements_per_second(&self) -> f64 {
        self.elements as f64 / self.wall.as_secs_f64().max(1e-9)
    }

    /// Prints the summary and exits: status 0 on PASS, 1 on FAIL.
    pub fn finish(&self) -> ! {
        println!("{self}");
        std::process::exit(if self.passed() { 0 } else { 1 })
    }
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "kernel    {} ({})", self.kernel, self.dtype)?;
        writeln!(f, "chip      {} ({})", self.soc, self.soc.product_line())?;
        writeln!(f, "cores     {}", self.cores)?;
        writeln!(f, "elements  {}", self.elements)?;
        writeln!(f, "wall time {:.3} ms", self.wall.as_secs_f64() * 1e3)?;
        writeln!(f, "rate      {:.3e} elements/s", self.elements_per_second())?;
        match &self.verdict {
            Ok(r) => write!(f, "result    PASS ({r})"),
            Err(m) => write!(f, "result    FAIL: {m}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ascend_runtime::testing::{compare_close, Tolerance};

    fn args(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    const ALL: &[&str] =
        &["len", "cores", "soc", "tile", "rows", "cols", "dtype", "input-x", "input-y", "golden", "output"];

    #[test]
    fn parses_every_flag() {
        let a = Args::parse(
            args(&[
                "--len",
                "5",
                "--cores",
                "2",
                "--soc",
                "Ascend310B",
                "--tile",
                "64",
                "--rows",
                "32",
                "--cols",
                "48",
                "--dtype",
                "F32",
                "--input-x",
                "x.npy",
                "--input-y",
                "y.bin",
                "--golden",
                "g.npy",
                "--output",
                "o.bin",
            ]),
            ALL,
        )
        .unwrap();
        assert_eq!(a.len, Some(5));
        assert_eq!(a.cores, Some(2));
        assert_eq!(a.soc, Soc::Ascend310B);
        assert_eq!((a.tile, a.rows, a.cols), (Some(64), Some(32), Some(48)));
        assert_eq!(a.dtype.as_deref(), Some("f32"));
        assert_eq!(a.input_x, Some(PathBuf::from("x.npy")));
        assert_eq!(a.output, Some(PathBuf::from("o.bin")));
        assert_eq!(Args::parse(Vec::<String>::new(), ALL).unwrap(), Args::default());
    }

    #[test]
    fn errors() {
        let err = |v: &[&str], allowed: &[&str]| Args::parse(args(v), allowed).unwrap_err();
        assert!(
            err(&["--len"], ALL).contains("a value is required for '--len <N>'"),
            "{}",
            err(&["--len"], ALL)
        );
        assert!(err(&["--len", "x"], ALL).contains("invalid value 'x' for '--len <N>'"));
        assert!(
            err(&["--soc", "gpu"], ALL).contains("unknown chip (one of Ascend910,"),
            "{}",
            err(&["--soc", "gpu"], ALL)
        );
        assert!(err(&["len"], ALL).contains("unexpected argument 'len'"));
        let e = err(&["--rows", "3"], &["len"]);
        assert!(
            e.contains("unexpected argument '--rows' found") && e.contains("Usage: example [OPTIONS]"),
            "{e}"
        );
        let help = err(&["--help"], &["soc", "input-x"]);
        assert!(help.contains("--soc <CHIP>") && help.contains("--input-x <FILE>"), "{help}");
        assert!(!help.contains("--rows"), "{help}");
    }

    #[test]
    fn progress_returns_the_result() {
        assert_eq!(with_progress(Duration::from_millis(1), || 7), 7);
    }

    #[test]
    fn summary_text() {
        let ok = Summary {
            kernel: "add_custom",
            dtype: DType::F16,
            soc: Soc::Ascend910B,
            cores: 8,
            elements: 1000,
            wall: Duration::from_millis(2),
            verdict: compare_close(&[1.0f32], &[1.0], Tolerance::of::<f32>()),
        };
        assert!(ok.passed());
        assert!((ok.elements_per_second() - 500_000.0).abs() < 1.0);
        let text = ok.to_string();
        assert!(text.contains("kernel    add_custom (half)"), "{text}");
        assert!(text.contains("result    PASS"), "{text}");
        let bad = Summary { verdict: compare_close(&[1.0f32], &[2.0], Tolerance::of::<f32>()), ..ok };
        assert!(!bad.passed());
        assert!(bad.to_string().contains("result    FAIL: values differ: 1 of 1 float elements differ"));
    }

    #[test]
    fn tiling_from_flags() {
        let a = Args::parse(args(&["--cores", "4"]), ALL).unwrap();
        assert_eq!(a.tiling::<f32>(1000, 8), TilingConfig::new::<f32>(1000, 4));
        let a = Args::parse(args(&["--tile", "64"]), ALL).unwrap();
        assert_eq!(a.tiling::<f16>(1000, 8), TilingConfig::new::<f16>(1000, 8).with_tile_length(64));
    }

    #[test]
    fn input_pair_generated_or_read() {
        let (x, y) = Args::default().input_pair::<f32>(100, 1.0, 2.0).unwrap();
        assert_eq!((x.len(), y.len()), (100, 100));
        assert_eq!(x, random_vec::<f32>(100, 1, 1.0, 2.0));
        assert_eq!(y, random_vec::<f32>(100, 2, 1.0, 2.0));
        let p = std::env::temp_dir().join(format!("ascend-cli-pair-{}.npy", std::process::id()));
        write_output(&Some(p.clone()), &[1.0f32, 2.0, 3.0]).unwrap();
        let a = Args { input_x: Some(p.clone()), ..Args::default() };
        let (x, y) = a.input_pair::<f32>(100, 1.0, 2.0).unwrap();
        assert_eq!((x, y.len()), (vec![1.0, 2.0, 3.0], 3));
        let a = Args { input_y: Some(p.clone()), ..Args::default() };
        let e = a.input_pair::<f32>(100, 1.0, 2.0).unwrap_err();
        assert_eq!(e.to_string(), "x has 100 elements, y 3");
        std::fs::remove_file(p).unwrap();
    }

    #[test]
    fn dtype_dispatch() {
        let pick = |dtype: &[&str]| {
            let a = Args::parse(args(dtype), ALL).unwrap();
            by_float_dtype("k", &a, |_| Err("f32".into()), |_| Err("f16".into())).unwrap_err().to_string()
        };
        assert_eq!(pick(&[]), "f32");
        assert_eq!(pick(&["--dtype", "F16"]), "f16");
        assert_eq!(pick(&["--dtype", "i8"]), "--dtype i8: k supports f16 and f32");
    }

    #[test]
    fn summary_of_a_launch() {
        let stats = Launch::new(Soc::Ascend310P).block_dim(3).run(|| {}).unwrap();
        let s = Summary::of::<f32>("k", &stats, 7, compare_close(&[1.0f32], &[1.0], Tolerance::exact()));
        assert_eq!(
            (s.kernel, s.dtype, s.soc, s.cores, s.elements, s.wall),
            ("k", DType::F32, Soc::Ascend310P, 3, 7, stats.wall)
        );
        assert!(s.passed());
    }

    #[test]
    fn files_or_generated() {
        assert_eq!(input_or::<u8>(&None, || vec![1, 2]).unwrap(), vec![1, 2]);
        assert!(input_or::<u8>(&Some(PathBuf::from("/nonexistent/x.npy")), Vec::new).is_err());
        write_output::<u8>(&None, &[1]).unwrap();
        let p = std::env::temp_dir().join(format!("ascend-cli-{}.npy", std::process::id()));
        write_output(&Some(p.clone()), &[3u16, 4]).unwrap();
        assert_eq!(input_or::<u16>(&Some(p.clone()), Vec::new).unwrap(), vec![3, 4]);
        std::fs::remove_file(p).unwrap();
    }
}
