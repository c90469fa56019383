//! Debugging output from inside a kernel: AscendC's `printf` ([`ascend_printf!`](crate::ascend_printf))
//! and `DumpTensor` ([`dump_tensor`], [`dump_tensor_shape`]).
//!
//! As on the chip, what a core prints goes to a per-core buffer; every line carries the
//! vendor's prefix `[AIV Block i/n] ` (core `i` of `n`). The runtime's launcher collects each
//! core's buffer and prints the launch's output to stdout ordered by core when the launch ends
//! (or hands it to the caller with its `capture_output`). Code that runs outside a launch
//! prints each line at once.
//!
//! `DumpTensor` writes a header and the values in the vendor's layout:
//!
//! ```text
//! [AIV Block 0/1] DumpTensor: desc=5, addr=0x0, data_type=float32, position=UB, dump_size=4
//! [AIV Block 0/1] [1.000000, 2.000000, 3.000000, 4.000000]
//! ```
//!
//! ```
//! use ascend_core::prelude::*;
//! use ascend_core::debug::{begin_core_output, end_core_output};
//!
//! let prev = begin_core_output(); // what a launcher does for each core
//! let mut pipe = TPipe::new();
//! let mut buf = TBuf::<VecCalc>::new();
//! pipe.init_tbuf(&mut buf, 32);
//! let t = buf.get::<f32>();
//! duplicate(&t, 1.5f32, 8);
//! dump_tensor(&t, 7, 3);
//! ascend_printf!("sum = %f, n = %d\n", 4.5f32, 3);
//! let text = end_core_output(prev);
//! assert_eq!(
//!     text,
//!     "[AIV Block 0/1] DumpTensor: desc=7, addr=0x0, data_type=float32, position=UB, dump_size=3\n\
//!      [AIV Block 0/1] [1.500000, 1.500000, 1.500000]\n\
//!      [AIV Block 0/1] sum = 4.500000, n = 3\n"
//! );
//! ```

use core::fmt::Write as _;
use std::cell::RefCell;

use crate::element::{bf16, f16, DType, Element};
use crate::kernel::ctx::with_core;
use crate::kernel::error::{ensure, fail};
use crate::memory::tensor::{GlobalTensor, LocalTensor};
use crate::position::TPosition;

/// The largest amount of tensor data one `DumpTensor` call prints (the vendor's default
/// per-call print limit, 30 KB); a larger dump prints a notice instead of the values.
pub const DUMP_LIMIT_BYTES: usize = 30 * 1024;

/// A core's pending output: the text so far and whether the next character starts a line.
struct CoreOutput {
    text: String,
    at_line_start: bool,
}

thread_local! {
    static OUTPUT: RefCell<Option<CoreOutput>> = const { RefCell::new(None) };
}

/// The previous output buffer of this thread, returned by [`begin_core_output`] and handed
/// back to [`end_core_output`] (so a launch inside a core's code nests correctly).
#[derive(Default)]
pub struct SavedOutput(Option<CoreOutput>);

/// Starts collecting this thread's kernel output in a fresh buffer (what a launcher does
/// before it runs a core). Returns the buffer that was active, for [`end_core_output`].
pub fn begin_core_output() -> SavedOutput {
    SavedOutput(
        OUTPUT.with(|o| o.borrow_mut().replace(CoreOutput { text: String::new(), at_line_start: true })),
    )
}

/// Stops collecting, restores `saved`, and returns what was printed since
/// [`begin_core_output`] (an unfinished last line gets its newline).
pub fn end_core_output(saved: SavedOutput) -> String {
    let out = OUTPUT.with(|o| std::mem::replace(&mut *o.borrow_mut(), saved.0));
    match out {
        Some(mut o) => {
            if !o.at_line_start {
                o.text.push('\n');
            }
            o.text
        }
        None => String::new(),
    }
}

/// Takes this thread's output buffer (see [`crate::CoreTls`]), leaving none.
pub(crate) fn take_output() -> SavedOutput {
    SavedOutput(OUTPUT.with(|o| o.borrow_mut().take()))
}

/// Puts back a buffer [`take_output`] took.
pub(crate) fn put_output(saved: SavedOutput) {
    OUTPUT.with(|o| *o.borrow_mut() = saved.0);
}

/// The prefix of every line a core prints: `[AIV Block i/n] `, or `[AIC Block i/n] ` on a
/// cube core (of a `KernelType::AicOnly` or mixed kernel); `i` is `GetBlockIdx()` and `n` the
/// cores of that type (`GetTaskRatio() * GetBlockNum()`).
pub fn line_prefix() -> String {
    let r = with_core(|c| c.role());
    format!("[{} Block {}/{}] ", r.ty.name(), r.block_idx(), r.blocks * r.ratio)
}

/// Appends `text` to the current core's output, each line prefixed; outside a launch (no
/// buffer) the prefixed lines go to stdout at once.
pub fn emit(text: &str) {
    if text.is_empty() {
        return;
    }
    let prefix = line_prefix();
    let mut buffered = true;
    OUTPUT.with(|o| match o.borrow_mut().as_mut() {
        Some(out) => push_prefixed(&mut out.text, &mut out.at_line_start, &prefix, text),
        None => buffered = false,
    });
    if !buffered {
        let (mut s, mut start) = (String::new(), true);
        push_prefixed(&mut s, &mut start, &prefix, text);
        if !start {
            s.push('\n');
        }
        // `print!` rather than a raw stdout handle, so a test harness captures it.
        print!("{s}");
    }
}

fn push_prefixed(out: &mut String, at_line_start: &mut bool, prefix: &str, text: &str) {
    for piece in text.split_inclusive('\n') {
        if *at_line_start {
            out.push_str(prefix);
        }
        out.push_str(piece);
        *at_line_start = piece.ends_with('\n');
    }
}

// ---------------------------------------------------------------------------------------
// printf
// ---------------------------------------------------------------------------------------

/// One argument of [`ascend_printf!`](crate::ascend_printf), as `printf` sees it.
#[derive(Clone, Debug, PartialEq)]
pub enum PrintfValue {
    /// A signed integer and its size in bytes (for `%u` / `%x` of a negative value).
    Int(i64, u8),
    /// An unsigned integer.
    UInt(u64),
    /// A floating-point value (`float`, `half`, `bfloat16_t`).
    Float(f64),
    /// A string (`%s`).
    Str(String),
}

/// A type [`ascend_printf!`](crate::ascend_printf) accepts as an argument: the integer types,
/// `f32`, `f64`, `f16`, `bf16`, `bool` (as an integer), strings.
pub trait PrintfArg {
    /// The value as `printf` sees it.
    fn printf_value(&self) -> PrintfValue;
}

macro_rules! printf_int {
    ($($t:ty),*) => {$(
        impl PrintfArg for $t {
            fn printf_value(&self) -> PrintfValue {
                PrintfValue::Int(*self as i64, core::mem::size_of::<$t>() as u8)
            }
        }
    )*};
}
macro_rules! printf_uint {
    ($($t:ty),*) => {$(
        impl PrintfArg for $t {
            fn printf_value(&self) -> PrintfValue {
                PrintfValue::UInt(*self as u64)
            }
        }
    )*};
}
printf_int!(i8, i16, i32, i64, isize);
printf_uint!(u8, u16, u32, u64, usize);

impl PrintfArg for bool {
    fn printf_value(&self) -> PrintfValue {
        PrintfValue::UInt(u64::from(*self))
    }
}
impl PrintfArg for f32 {
    fn printf_value(&self) -> PrintfValue {
        PrintfValue::Float(f64::from(*self))
    }
}
impl PrintfArg for f64 {
    fn printf_value(&self) -> PrintfValue {
        PrintfValue::Float(*self)
    }
}
impl PrintfArg for f16 {
    fn printf_value(&self) -> PrintfValue {
        PrintfValue::Float(self.to_f64())
    }
}
impl PrintfArg for bf16 {
    fn printf_value(&self) -> PrintfValue {
        PrintfValue::Float(self.to_f64())
    }
}
impl PrintfArg for str {
    fn printf_value(&self) -> PrintfValue {
        PrintfValue::Str(self.to_owned())
    }
}
impl PrintfArg for String {
    fn printf_value(&self) -> PrintfValue {
        PrintfValue::Str(self.clone())
    }
}
impl<T: PrintfArg + ?Sized> PrintfArg for &T {
    fn printf_value(&self) -> PrintfValue {
        (**self).printf_value()
    }
}

/// Formats like C's `printf`, with `%d %i %u %x %X %o %f %F %e %E %g %G %s %c %p %%`, the flags
/// `- + 0 space #`, a width, a precision, and the length modifiers `h hh l ll z` (which only
/// document the argument's size: the value's own type decides).
///
/// # Panics
/// Panics (as `printf`) on an unknown conversion, too few or too many arguments, or an
/// argument whose kind does not fit its conversion (`%d` of a float, `%f` of an integer,
/// `%s` of a number).
#[track_caller]
pub fn format_printf(fmt: &str, args: &[&dyn PrintfArg]) -> String {
    let mut out = String::with_capacity(fmt.len() + 16 * args.len());
    let mut next = args.iter();
    let mut used = 0usize;
    let mut chars = fmt.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        let mut spec = Spec::default();
        while let Some(&f) = chars.peek() {
            match f {
                '-' => spec.left = true,
                '+' => spec.plus = true,
                ' ' => spec.space = true,
                '0' => spec.zero = true,
                '#' => spec.alt = true,
                _ => break,
            }
            chars.next();
        }
        while let Some(d) = chars.peek().and_then(|c| c.to_digit(10)) {
            spec.width = spec.width * 10 + d as usize;
            chars.next();
        }
        if chars.peek() == Some(&'.') {
            chars.next();
            let mut p = 0usize;
            while let Some(d) = chars.peek().and_then(|c| c.to_digit(10)) {
                p = p * 10 + d as usize;
                chars.next();
            }
            spec.precision = Some(p);
        }
        while matches!(chars.peek(), Some('h' | 'l' | 'z' | 'j' | 't')) {
            chars.next();
        }
        let Some(conv) = chars.next() else {
            fail("printf", format!("format {fmt:?} ends inside a conversion ('%' at the end)"));
        };
        if conv == '%' {
            out.push('%');
            continue;
        }
        let Some(arg) = next.next() else {
            fail(
                "printf",
                format!("format {fmt:?} has more conversions than the {} argument(s) given", args.len()),
            );
        };
        used += 1;
        let body = spec.convert(conv, arg.printf_value(), used, fmt);
        spec.pad(&mut out, &body, conv);
    }
    ensure(next.next().is_none(), "printf", || {
        format!("format {fmt:?} has {used} conversion(s) but {} arguments were given", args.len())
    });
    out
}

/// Prints from a kernel (AscendC `printf` / `PRINTF`); the implementation behind
/// [`ascend_printf!`](crate::ascend_printf).
///
/// # Panics
/// As [`format_printf`].
#[track_caller]
pub fn printf(fmt: &str, args: &[&dyn PrintfArg]) {
    emit(&format_printf(fmt, args));
}

#[derive(Default)]
struct Spec {
    left: bool,
    plus: bool,
    space: bool,
    zero: bool,
    alt: bool,
    width: usize,
    precision: Option<usize>,
}

impl Spec {
    #[track_caller]
    fn convert(&self, conv: char, v: PrintfValue, index: usize, fmt: &str) -> String {
        // A closure is not `#[track_caller]`: the fault points at the kernel's line through `loc`.
        let loc = core::panic::Location::caller();
        let kind_error = |want: &str| -> ! {
            crate::kernel::error::fail_at(
                "printf",
                format!("argument {index} is {v:?}, but %{conv} in {fmt:?} needs {want}"),
                loc,
            )
        };
        match conv {
            'd' | 'i' => {
                let n: i128 = match v {
                    PrintfValue::Int(n, _) => n.into(),
                    PrintfValue::UInt(n) => n.into(),
                    _ => kind_error("an integer"),
                };
                let digits = n.unsigned_abs().to_string();
                self.sign(n < 0) + &self.int_precision(digits)
            }
            'u' | 'x' | 'X' | 'o' => {
                let n: u64 = match v {
                    // C reinterprets a negative value at the argument's own width.
                    PrintfValue::Int(n, bytes) => (n as u64) & (u64::MAX >> (64 - 8 * u32::from(bytes))),
                    PrintfValue::UInt(n) => n,
                    _ => kind_error("an integer"),
                };
                let (digits, alt) = match conv {
                    'u' => (n.to_string(), ""),
                    'x' => (format!("{n:x}"), "0x"),
                    'X' => (format!("{n:X}"), "0X"),
                    _ => (format!("{n:o}"), "0"),
                };
                let digits = self.int_precision(digits);
                if self.alt && n != 0 {
                    format!("{alt}{digits}")
                } else {
                    digits
                }
            }
            'f' | 'F' | 'e' | 'E' | 'g' | 'G' => {
                let x = match v {
                    PrintfValue::Float(x) => x,
                    _ => kind_error("a float"),
                };
                let p = self.precision.unwrap_or(6);
                let body = if x.is_nan() {
                    "nan".to_owned()
                } else if x.is_infinite() {
                    "inf".to_owned()
                } else {
                    match conv {
                        'f' | 'F' => format!("{:.*}", p, x.abs()),
                        'e' | 'E' => c_exp(x.abs(), p),
                        _ => c_general(x.abs(), p, self.alt),
                    }
                };
                let body = if conv.is_ascii_uppercase() { body.to_ascii_uppercase() } else { body };
                self.sign(x.is_sign_negative() && !x.is_nan()) + &body
            }
            's' => match v {
                PrintfValue::Str(s) => match self.precision {
                    Some(p) => s.chars().take(p).collect(),
                    None => s,
                },
                _ => kind_error("a string"),
            },
            'c' => match v {
                PrintfValue::Int(n, _) => char::from(n as u8).to_string(),
                PrintfValue::UInt(n) => char::from(n as u8).to_string(),
                _ => kind_error("an integer"),
            },
            'p' => match v {
                PrintfValue::Int(n, _) => format!("{:#x}", n as u64),
                PrintfValue::UInt(n) => format!("{n:#x}"),
                _ => kind_error("an address (an integer)"),
            },
            other => fail(
                "printf",
                format!(
                    "unknown conversion %{other} in {fmt:?} (supported: %d %i %u %x %X %o %f %F %e %E %g %G %s %c %p %%)"
                ),
            ),
        }
    }

    fn sign(&self, negative: bool) -> String {
        if negative {
            "-".into()
        } else if self.plus {
            "+".into()
        } else if self.space {
            " ".into()
        } else {
            String::new()
        }
    }

    fn int_precision(&self, digits: String) -> String {
        match self.precision {
            Some(0) if digits == "0" => String::new(),
            Some(p) if digits.len() < p => "0".repeat(p - digits.len()) + &digits,
            _ => digits,
        }
    }

    /// Whether the `0` flag pads this conversion: numbers only (not `nan`/`inf`), and not
    /// integers with a precision.
    fn zero_pads(&self, conv: char, body: &str) -> bool {
        let number = !matches!(conv, 's' | 'c' | 'p') && !body.to_ascii_lowercase().contains('n');
        let int_with_precision =
            matches!(conv, 'd' | 'i' | 'u' | 'x' | 'X' | 'o') && self.precision.is_some();
        self.zero && number && !int_with_precision
    }

    /// Pads `body` to the width: left-justified, zero-padded after the sign (numbers without
    /// an integer precision), or right-justified with spaces.
    fn pad(&self, out: &mut String, body: &str, conv: char) {
        let len = body.chars().count();
        if len >= self.width {
            out.push_str(body);
        } else if self.left {
            out.push_str(body);
            out.extend(std::iter::repeat_n(' ', self.width - len));
        } else if self.zero_pads(conv, body) {
            let split = body.find(|c: char| c.is_ascii_alphanumeric()).unwrap_or(0);
            let split = if body[split..].starts_with("0x") || body[split..].starts_with("0X") {
                split + 2
            } else {
                split
            };
            out.push_str(&body[..split]);
            out.extend(std::iter::repeat_n('0', self.width - len));
            out.push_str(&body[split..]);
        } else {
            out.extend(std::iter::repeat_n(' ', self.width - len));
            out.push_str(body);
        }
    }
}

/// C's `%e` of a non-negative finite `x`: `d.ddddde+XX`.
fn c_exp(x: f64, p: usize) -> String {
    let s = format!("{x:.p$e}");
    let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let e: i32 = exp.parse().unwrap_or(0);
    format!("{mant}e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs())
}

/// C's `%g` of a non-negative finite `x`.
fn c_general(x: f64, p: usize, alt: bool) -> String {
    let p = p.max(1);
    let e = if x == 0.0 {
        0
    } else {
        let s = format!("{x:.*e}", p - 1);
        s.split_once('e').and_then(|(_, e)| e.parse::<i32>().ok()).unwrap_or(0)
    };
    let s = if e < -4 || e >= p as i32 {
        c_exp(x, p - 1)
    } else {
        format!("{:.*}", (p as i32 - 1 - e) as usize, x)
    };
    if alt {
        return s;
    }
    let (mant, exp) = match s.find('e') {
        Some(i) => (&s[..i], &s[i..]),
        None => (&s[..], ""),
    };
    let mant = if mant.contains('.') { mant.trim_end_matches('0').trim_end_matches('.') } else { mant };
    format!("{mant}{exp}")
}

/// Prints from a kernel with a C format string (AscendC `printf` / `PRINTF`), so a ported
/// line stays as it was: `printf("tile %d of %d: %f\n", i, n, x)` becomes
/// `ascend_printf!("tile %d of %d: %f\n", i, n, x)`.
///
/// The text goes to the core's output buffer, each line prefixed `[AIV Block i/n] `; see the
/// [`debug`](crate::debug) module. Conversions: `%d %i %u %x %X %o %f %F %e %E %g %G %s %c %p
/// %%` with flags, width and precision.
///
/// # Panics
/// On an unknown conversion, a wrong number of arguments, or an argument of the wrong kind
/// for its conversion, naming the argument and the format.
///
/// ```
/// use ascend_core::prelude::*;
/// use ascend_core::debug::format_printf;
///
/// assert_eq!(format_printf("%d|%5.2f|%-4s|%04x|%u", &[&-3, &f16::from_f32(1.5), &"ab", &255u32, &-1i8]), "-3| 1.50|ab  |00ff|255");
/// ascend_printf!("block %d of %d\n", get_block_idx(), get_block_num());
/// ```
///
/// ```should_panic
/// use ascend_core::prelude::*;
/// ascend_printf!("%d\n", 1.5f32); // %d of a float
/// ```
#[macro_export]
macro_rules! ascend_printf {
    ($fmt:expr $(, $arg:expr)* $(,)?) => {
        $crate::debug::printf($fmt, &[$(&$arg as &dyn $crate::debug::PrintfArg),*])
    };
}

// ---------------------------------------------------------------------------------------
// DumpTensor
// ---------------------------------------------------------------------------------------

/// The shape `DumpTensor` lays the values out in (AscendC `ShapeInfo`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShapeInfo {
    shape: Vec<u32>,
}

impl ShapeInfo {
    /// A shape of `shape.len()` dimensions (AscendC `ShapeInfo(dim, shape)`).
    ///
    /// # Panics
    /// Panics if `shape` is empty or holds a 0 (nothing would be printed).
    #[track_caller]
    pub fn new(shape: &[u32]) -> ShapeInfo {
        ensure(!shape.is_empty() && shape.iter().all(|&d| d > 0), "ShapeInfo", || {
            format!("shape = {shape:?}: needs at least one dimension, each at least 1")
        });
        ShapeInfo { shape: shape.to_vec() }
    }

    /// The dimensions.
    pub fn shape(&self) -> &[u32] {
        &self.shape
    }

    /// The number of elements the shape holds.
    pub fn size(&self) -> usize {
        self.shape.iter().map(|&d| d as usize).product()
    }
}

/// A tensor [`dump_tensor`] can print: a [`LocalTensor`] or a [`GlobalTensor`].
pub trait DumpSource<T: Element> {
    /// The address printed (`addr=`): the UB byte offset, or the byte offset in its GM buffer.
    fn dump_addr(&self) -> usize;
    /// The storage printed (`position=`): `UB`, `L1`, `L0A`, …, or `GM`.
    fn dump_position(&self) -> &'static str;
    /// Elements the tensor holds.
    fn dump_len(&self) -> usize;
    /// Element `i` (`i < dump_len()`).
    fn dump_value(&self, i: usize) -> T;
}

impl<T: Element> DumpSource<T> for LocalTensor<T> {
    fn dump_addr(&self) -> usize {
        self.get_phy_addr()
    }
    fn dump_position(&self) -> &'static str {
        match self.get_position() {
            TPosition::VECIN | TPosition::VECOUT | TPosition::VECCALC => "UB",
            TPosition::A1 | TPosition::B1 | TPosition::C1 => "L1",
            TPosition::A2 => "L0A",
            TPosition::B2 => "L0B",
            TPosition::CO1 => "L0C",
            _ => "UB",
        }
    }
    fn dump_len(&self) -> usize {
        self.get_size()
    }
    fn dump_value(&self, i: usize) -> T {
        // A debugging read, invisible to the sanitizer (it is not a scalar access of the
        // kernel's), bounds-checked here.
        assert!(i < self.get_size(), "DumpTensor: index {i} out of range");
        // SAFETY: `i < len` and the view lies inside the UB; UB memory is only accessed
        // through raw pointers.
        unsafe { self.ptr().add(i).read() }
    }
}

impl<T: Element> DumpSource<T> for GlobalTensor<T> {
    fn dump_addr(&self) -> usize {
        self.byte_offset()
    }
    fn dump_position(&self) -> &'static str {
        "GM"
    }
    fn dump_len(&self) -> usize {
        self.get_size()
    }
    fn dump_value(&self, i: usize) -> T {
        self.get_value(i)
    }
}

/// The name `DumpTensor` prints for a type (`data_type=`), in numpy's spelling.
pub const fn dump_type_name(d: DType) -> &'static str {
    match d {
        DType::U8 => "uint8",
        DType::I8 => "int8",
        DType::U16 => "uint16",
        DType::I16 => "int16",
        DType::U32 => "uint32",
        DType::I32 => "int32",
        DType::U64 => "uint64",
        DType::I64 => "int64",
        DType::F16 => "float16",
        DType::BF16 => "bfloat16",
        DType::F32 => "float32",
        DType::Bool => "bool",
    }
}

/// One value as `DumpTensor` prints it: floats with six decimals (`%f`, `nan`, `inf`),
/// integers in decimal.
pub fn format_value<T: Element>(v: T) -> String {
    if T::IS_FLOAT {
        let x = v.to_f64();
        if x.is_nan() {
            "nan".into()
        } else if x.is_infinite() {
            if x < 0.0 { "-inf" } else { "inf" }.into()
        } else {
            format!("{x:.6}")
        }
    } else {
        v.to_string()
    }
}

#[track_caller]
fn dump_header<T: Element, S: DumpSource<T>>(t: &S, desc: u32, dump_size: u32) -> Option<String> {
    let n = dump_size as usize;
    ensure(n <= t.dump_len(), "DumpTensor", || {
        format!("dump_size = {n} exceeds the tensor's {} {} elements", t.dump_len(), T::DTYPE)
    });
    let mut s = format!(
        "DumpTensor: desc={desc}, addr={:#x}, data_type={}, position={}, dump_size={n}\n",
        t.dump_addr(),
        dump_type_name(T::DTYPE),
        t.dump_position()
    );
    if n * T::SIZE > DUMP_LIMIT_BYTES {
        let _ = writeln!(
            s,
            "dump_size = {n} is {} bytes, over the {DUMP_LIMIT_BYTES}-byte print limit of one call: not printed",
            n * T::SIZE
        );
        emit(&s);
        return None;
    }
    Some(s)
}

/// Prints the first `dump_size` elements of a tensor in UB or GM with a header naming `desc`
/// (any number the caller chooses, such as a line number), the address, the type and the
/// position (AscendC `DumpTensor(tensor, desc, dumpSize)`).
///
/// A dump of more than [`DUMP_LIMIT_BYTES`] prints the header and a notice instead of the
/// values, as the hardware drops it.
///
/// # Panics
/// Panics if `dump_size` exceeds the tensor's size.
///
/// ```
/// use ascend_core::prelude::*;
/// let mut pipe = TPipe::new();
/// let mut buf = TBuf::<VecCalc>::new();
/// pipe.init_tbuf(&mut buf, 64);
/// let t = buf.get::<i32>();
/// duplicate(&t, -7, 16);
/// dump_tensor(&t, 1, 16); // [AIV Block 0/1] DumpTensor: desc=1, addr=0x0, data_type=int32, ...
/// ```
#[track_caller]
pub fn dump_tensor<T: Element, S: DumpSource<T>>(tensor: &S, desc: u32, dump_size: u32) {
    let Some(mut s) = dump_header(tensor, desc, dump_size) else { return };
    s.push('[');
    for i in 0..dump_size as usize {
        if i > 0 {
            s.push_str(", ");
        }
        s.push_str(&format_value(tensor.dump_value(i)));
    }
    s.push_str("]\n");
    emit(&s);
}

/// Prints the first `dump_size` elements laid out in `shape` (AscendC
/// `DumpTensor(tensor, desc, dumpSize, shapeInfo)`): nested brackets, one row of the last
/// dimension per line. A shape larger than `dump_size` shows the missing elements as `-`
/// (with a note that the data is not enough); a smaller one leaves the extra elements out
/// (with a note).
///
/// # Panics
/// Panics if `dump_size` exceeds the tensor's size.
///
/// ```
/// use ascend_core::prelude::*;
/// use ascend_core::debug::{begin_core_output, end_core_output};
/// let mut pipe = TPipe::new();
/// let mut buf = TBuf::<VecCalc>::new();
/// pipe.init_tbuf(&mut buf, 64);
/// let t = buf.get::<i16>();
/// for i in 0..6 {
///     t.set_value(i, i as i16);
/// }
/// let saved = begin_core_output();
/// dump_tensor_shape(&t, 2, 6, &ShapeInfo::new(&[2, 3]));
/// let out = end_core_output(saved);
/// assert!(out.ends_with("[AIV Block 0/1] [[0,1,2],\n[AIV Block 0/1] [3,4,5]]\n"), "{out}");
/// ```
#[track_caller]
pub fn dump_tensor_shape<T: Element, S: DumpSource<T>>(
    tensor: &S,
    desc: u32,
    dump_size: u32,
    shape: &ShapeInfo,
) {
    let Some(mut s) = dump_header(tensor, desc, dump_size) else { return };
    let (n, size) = (dump_size as usize, shape.size());
    if size != n {
        let dims: Vec<String> = shape.shape.iter().map(u32::to_string).collect();
        let why = if size > n { "data is not enough" } else { "dumpSize is greater than shapeSize" };
        let _ = writeln!(s, "shape is [{}], dumpSize is {n}, {why}.", dims.join(", "));
    }
    let cell = |i: usize| if i < n { format_value(tensor.dump_value(i)) } else { "-".into() };
    nest(&mut s, &shape.shape, 0, &cell);
    s.push('\n');
    emit(&s);
}

/// Writes the elements from `start` in `dims` as nested brackets; rows end in `,\n`.
fn nest(s: &mut String, dims: &[u32], start: usize, cell: &dyn Fn(usize) -> String) {
    s.push('[');
    match dims {
        [n] => {
            for i in 0..*n as usize {
                if i > 0 {
                    s.push(',');
                }
                s.push_str(&cell(start + i));
            }
        }
        [n, rest @ ..] => {
            let stride: usize = rest.iter().map(|&d| d as usize).product();
            for i in 0..*n as usize {
                if i > 0 {
                    s.push_str(",\n");
                }
                nest(s, rest, start + i * stride, cell);
            }
        }
        [] => {}
    }
    s.push(']');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn printf_matches_c() {
        let f = |fmt: &str, a: &[&dyn PrintfArg]| format_printf(fmt, a);
        assert_eq!(f("%d %i %5d|%-5d|%05d|%+d", &[&1, &-2, &3, &4, &-5, &6]), "1 -2     3|4    |-0005|+6");
        assert_eq!(
            f("%u %x %X %#x %o %lu", &[&-1i32, &255u8, &255u16, &16u64, &8u32, &7usize]),
            "4294967295 ff FF 0x10 10 7"
        );
        assert_eq!(
            f("%f %.2f %8.3f %e %g %g", &[&3.25f32, &2.5f64, &-1.0f32, &1234.5f64, &0.0001f64, &100000.0]),
            "3.250000 2.50   -1.000 1.234500e+03 0.0001 100000"
        );
        assert_eq!(f("%f %F %f", &[&f32::NAN, &f32::INFINITY, &f16::from_f32(-0.5)]), "nan INF -0.500000");
        assert_eq!(
            f("%s|%.2s|%5s|%c|100%%", &[&"abc", &"abc", &String::from("x"), &65u8]),
            "abc|ab|    x|A|100%"
        );
        assert_eq!(f("%p", &[&0x40usize]), "0x40");
        assert_eq!(
            f("%.3d|%.0d|%08.3f|%05f|%04x", &[&7, &0, &-2.5f32, &f32::NAN, &255u8]),
            "007||-002.500|  nan|00ff"
        );
    }

    #[test]
    #[should_panic(expected = "printf: format \"%d %d\" has more conversions than the 1 argument(s) given")]
    fn printf_too_few() {
        format_printf("%d %d", &[&1]);
    }

    #[test]
    #[should_panic(expected = "has 1 conversion(s) but 2 arguments were given")]
    fn printf_too_many() {
        format_printf("%d", &[&1, &2]);
    }

    #[test]
    #[should_panic(expected = "argument 1 is Str(\"a\"), but %f in \"%f\" needs a float")]
    fn printf_wrong_kind() {
        format_printf("%f", &[&"a"]);
    }

    #[test]
    #[should_panic(expected = "unknown conversion %q")]
    fn printf_unknown() {
        format_printf("%q", &[&1]);
    }

    #[test]
    fn lines_are_prefixed_and_finished() {
        let saved = begin_core_output();
        emit("a\nb");
        emit("c\n\nd");
        let out = end_core_output(saved);
        assert_eq!(out, "[AIV Block 0/1] a\n[AIV Block 0/1] bc\n[AIV Block 0/1] \n[AIV Block 0/1] d\n");
    }

    #[test]
    fn shape_layouts() {
        let mut s = String::new();
        nest(&mut s, &[2, 2, 2], 0, &|i| if i < 7 { i.to_string() } else { "-".into() });
        assert_eq!(s, "[[[0,1],\n[2,3]],\n[[4,5],\n[6,-]]]");
    }

    #[test]
    fn value_formats() {
        assert_eq!(format_value(f16::from_f32(19.0)), "19.000000");
        assert_eq!(format_value(bf16::NEG_INFINITY), "-inf");
        assert_eq!(format_value(f32::NAN), "nan");
        assert_eq!(format_value(-3i8), "-3");
        assert_eq!(format_value(u64::MAX), "18446744073709551615");
    }
}
