//! What the examples share: hand-parsed command-line flags, reading inputs and golden data
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

use crate::data::random_vec;
use crate::tiling::TilingConfig;

/// What an example's body returns: `Ok` (it has printed its summary) or the error to report.
pub type ExampleResult = Result<(), Box<dyn Error>>;

/// The whole `main` of an example: parses the process's flags (`allowed`; a bad one prints
/// the usage and exits with status 2), runs `body`, and on an error prints it and exits with
/// status 2.
pub fn main_with(allowed: &[&str], body: impl FnOnce(&Args) -> ExampleResult) {
    let args = Args::from_env(allowed);
    if let Err(e) = body(&args) {
        eprintln!("error: {e}");
        std::process::exit(2);
    }
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

/// The flags of the examples (each example accepts a subset).
#[derive(Clone, Debug, PartialEq)]
pub struct Args {
    /// `--len N`: number of elements.
    pub len: Option<usize>,
    /// `--cores N`: `blockDim`.
    pub cores: Option<u32>,
    /// `--soc NAME`: the chip (default Ascend910B).
    pub soc: Soc,
    /// `--tile N`: elements per tile.
    pub tile: Option<usize>,
    /// `--rows N` (transpose).
    pub rows: Option<usize>,
    /// `--cols N` (transpose).
    pub cols: Option<usize>,
    /// `--dtype f16|f32|...`.
    pub dtype: Option<String>,
    /// `--input-x FILE` (`.npy`, anything else raw `.bin`).
    pub input_x: Option<PathBuf>,
    /// `--input-y FILE`.
    pub input_y: Option<PathBuf>,
    /// `--golden FILE`: the expected output.
    pub golden: Option<PathBuf>,
    /// `--output FILE`: where to write the kernel's output.
    pub output: Option<PathBuf>,
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
        }
    }
}

fn number<T: core::str::FromStr>(flag: &str, v: &str) -> Result<T, String> {
    v.parse().map_err(|_| format!("--{flag} {v}: not a non-negative integer"))
}

impl Args {
    /// Parses `--flag value` pairs (the program name already removed). `allowed` lists the
    /// flags (without `--`) this program takes; `--help` returns the usage as an error.
    ///
    /// # Errors
    /// A message naming an unknown flag, a missing or malformed value, or an unknown chip.
    pub fn parse(args: impl IntoIterator<Item = String>, allowed: &[&str]) -> Result<Args, String> {
        let mut a = Args::default();
        let mut it = args.into_iter();
        while let Some(flag) = it.next() {
            let name = flag.strip_prefix("--").unwrap_or("");
            if name == "help" || name == "h" {
                return Err(Self::usage(allowed));
            }
            if !allowed.contains(&name) {
                return Err(format!("unknown argument {flag:?}\n{}", Self::usage(allowed)));
            }
            let v = it.next().ok_or_else(|| format!("--{name} needs a value"))?;
            match name {
                "len" => a.len = Some(number(name, &v)?),
                "cores" => a.cores = Some(number(name, &v)?),
                "tile" => a.tile = Some(number(name, &v)?),
                "rows" => a.rows = Some(number(name, &v)?),
                "cols" => a.cols = Some(number(name, &v)?),
                "soc" => {
                    a.soc = Soc::parse(&v).ok_or_else(|| {
                        let names: Vec<String> = Soc::ALL.iter().map(|s| s.to_string()).collect();
                        format!("--soc {v}: unknown chip (one of {})", names.join(", "))
                    })?
                }
                "dtype" => a.dtype = Some(v.to_ascii_lowercase()),
                "input-x" => a.input_x = Some(v.into()),
                "input-y" => a.input_y = Some(v.into()),
                "golden" => a.golden = Some(v.into()),
                "output" => a.output = Some(v.into()),
                _ => return Err(format!("unknown argument {flag:?}")),
            }
        }
        Ok(a)
    }

    /// Parses the process's arguments, or prints the message and exits with status 2.
    pub fn from_env(allowed: &[&str]) -> Args {
        Args::parse(std::env::args().skip(1), allowed).unwrap_or_else(|msg| {
            eprintln!("{msg}");
            std::process::exit(2)
        })
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

    /// The usage line for `allowed` flags.
    pub fn usage(allowed: &[&str]) -> String {
        let flags: Vec<String> = allowed
            .iter()
            .map(|f| match *f {
                "soc" => "[--soc Ascend910|Ascend910B|Ascend310P|Ascend310B]".to_string(),
                "input-x" | "input-y" | "golden" | "output" => format!("[--{f} FILE.npy|FILE.bin]"),
                "dtype" => "[--dtype f16|f32]".to_string(),
                _ => format!("[--{f} N]"),
            })
            .collect();
        format!("usage: {}", flags.join(" "))
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
        assert!(Args::parse(args(&["--len"]), ALL).unwrap_err().contains("--len needs a value"));
        assert!(Args::parse(args(&["--len", "x"]), ALL)
            .unwrap_err()
            .contains("--len x: not a non-negative integer"));
        assert!(Args::parse(args(&["--soc", "gpu"]), ALL).unwrap_err().contains("unknown chip"));
        assert!(Args::parse(args(&["len"]), ALL).unwrap_err().contains("unknown argument"));
        assert!(Args::parse(args(&["--rows", "3"]), &["len"]).unwrap_err().contains("usage: [--len N]"));
        assert!(Args::parse(args(&["--help"]), &["soc"]).unwrap_err().starts_with("usage: [--soc"));
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
