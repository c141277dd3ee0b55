//! Parsing and formatting of Vector Function ABI variant names.
//!
//! `#pragma omp declare simd` (clang and GCC) and LLVM's
//! `vector-function-abi-variant` call-site attribute name each SIMD clone of a
//! scalar function with a mangled name that encodes the instruction set, the
//! masking, the number of lanes and how every parameter is passed.  This module
//! turns such a name into a [`VariantName`] and builds names back from their
//! parts.  It depends on `std` only. (The parser and formatter are about
//! 600 lines; the rest of the file is their unit tests.)
//!
//! # Grammar
//!
//! ```text
//! variant    := "_ZGV" isa mask vlen param* "_" scalar_name [ "(" redirect ")" ]
//! isa        := "b" | "c" | "d" | "e"          (x86: SSE2, AVX, AVX2, AVX-512F)
//!             | "_LLVM_"                       (target independent)
//!             | "n" | "s"                      (AArch64: AdvSIMD, SVE)
//! mask       := "N" | "M"                      (not masked / masked)
//! vlen       := decimal number >= 1 | "x"      ("x" = scalable)
//! param      := kind [ "a" align ]             (align: a power of two)
//! kind       := "v"                            (vector, one value per lane)
//!             | "u"                            (uniform, one value for all lanes)
//!             | "l" step                       (linear, constant step)
//!             | "ls" pos                       (linear, step in uniform param `pos`)
//!             | ("R" | "L" | "U") step         (linear reference forms)
//!             | ("R" | "L" | "U") "s" pos      (same, step in uniform param `pos`)
//! step       := ""                             (step 1)
//!             | number                         (step n, n != 0)
//!             | "n" number                     (step -n, n != 0)
//! scalar_name:= any non-empty text without parentheses
//!               (it may contain `_` and be a C++ mangled name such as `_Z3fooff`)
//! ```
//!
//! The parameter list ends at the first `_`, since no parameter token starts
//! with an underscore; everything after that `_` is the scalar name, up to an
//! optional parenthesised redirect that names the vector function when it
//! differs from the variant name (LLVM attribute form, e.g.
//! `_ZGV_LLVM_N4v_sinf(__svml_sinf4)`).
//!
//! The parser is syntactic: besides the grammar it checks that vector
//! lengths and constant steps are non-zero, that alignments are powers of two
//! and that a variable-step position names another parameter of the same
//! variant.  It does not check that this parameter is uniform, nor whether the
//! ISA, the scalable length or the reference forms are supported; callers
//! decide that.
//!
//! # References
//!
//! * System V Application Binary Interface, x86-64 Vector Function ABI
//!   ("Vector Function ABI Specification for OpenMP SIMD"), section on
//!   name mangling.
//! * Arm, "Vector Function Application Binary Interface Specification for
//!   AArch64" (AAVFABI), section on name mangling.
//! * LLVM `llvm/lib/IR/VFABIDemangler.cpp` and `VFShape`/`VFParameter`
//!   (`llvm/include/llvm/IR/VFABIDemangler.h`).

use std::fmt;
use std::fmt::Write as _;

/// Prefix shared by all vector variant names.
const PREFIX: &str = "_ZGV";

/// Instruction set named by a variant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Isa {
    /// x86 SSE2, 128-bit registers (`b`).
    Sse2,
    /// x86 AVX, 256-bit registers (`c`).
    Avx,
    /// x86 AVX2, 256-bit registers (`d`).
    Avx2,
    /// x86 AVX-512F, 512-bit registers (`e`).
    Avx512,
    /// Target-independent LLVM variant (`_LLVM_`).
    Llvm,
    /// AArch64 Advanced SIMD (`n`), 128-bit registers; clones follow the
    /// vector procedure call standard (docs/aarch64-abi.md).
    AdvSimd,
    /// AArch64 SVE (`s`): variants of scalable length, built per vector
    /// length (`scalable.rs`); fixed lengths are rejected.
    Sve,
}

impl Isa {
    /// Whether the ISA is one of x86's (`b`, `c`, `d`, `e`).
    #[must_use]
    pub fn is_x86(self) -> bool {
        matches!(self, Isa::Sse2 | Isa::Avx | Isa::Avx2 | Isa::Avx512)
    }

    /// Whether the ISA is one of AArch64's (`n`, `s`).
    #[must_use]
    pub fn is_aarch64(self) -> bool {
        matches!(self, Isa::AdvSimd | Isa::Sve)
    }

    /// Whether a clone for this ISA can live in a module for `triple` (an
    /// empty triple, hand-written IR, takes any ISA; `_LLVM_` fits every
    /// target).
    #[must_use]
    pub fn fits_triple(self, triple: &str) -> bool {
        let arch = triple.split('-').next().unwrap_or_default();
        triple.is_empty()
            || self == Isa::Llvm
            || (self.is_x86() && matches!(arch, "x86_64" | "i386" | "i486" | "i586" | "i686"))
            || (self.is_aarch64() && matches!(arch, "aarch64" | "arm64"))
    }

    /// Mangling letter(s): "b", "c", "d", "e", "_LLVM_", "n", "s".
    #[must_use]
    pub fn mangling(self) -> &'static str {
        match self {
            Isa::Sse2 => "b",
            Isa::Avx => "c",
            Isa::Avx2 => "d",
            Isa::Avx512 => "e",
            Isa::Llvm => "_LLVM_",
            Isa::AdvSimd => "n",
            Isa::Sve => "s",
        }
    }

    /// LLVM "target-features" string the clone must carry, as GCC does for its
    /// clones: `b` -> "+sse2", `c` -> "+avx", `d` -> "+avx2" (AVX2 only, no
    /// FMA, matching GCC's `d` variant), `e` -> "+avx512f", `n` -> "+neon",
    /// `s` -> "+sve". Features implied by these (e.g. SSE4.2 under AVX) are
    /// left to LLVM. `Llvm` gives `None`.
    #[must_use]
    pub fn target_features(self) -> Option<&'static str> {
        match self {
            Isa::Sse2 => Some("+sse2"),
            Isa::Avx => Some("+avx"),
            Isa::Avx2 => Some("+avx2"),
            Isa::Avx512 => Some("+avx512f"),
            Isa::AdvSimd => Some("+neon"),
            Isa::Sve => Some("+sve"),
            Isa::Llvm => None,
        }
    }

    /// Natural register width in bits for the x86 ISAs (128, 256, 256, 512),
    /// `None` otherwise (the cost model's tables are for x86; AArch64 clones
    /// are always vectorized).
    #[must_use]
    pub fn vector_bits(self) -> Option<u32> {
        match self {
            Isa::Sse2 => Some(128),
            Isa::Avx | Isa::Avx2 => Some(256),
            Isa::Avx512 => Some(512),
            Isa::Llvm | Isa::AdvSimd | Isa::Sve => None,
        }
    }
}

/// Kind of one parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamKind {
    /// Varying: one value per lane (`v`).
    Vector,
    /// Uniform: one value shared by all lanes (`u`).
    Uniform,
    /// Linear with constant step: lane k sees value + k*step (`l`, `l<n>`,
    /// `ln<n>`).
    Linear {
        /// The constant step; never zero in a parsed name.
        step: i64,
    },
    /// Linear whose step is the value of the uniform parameter at index
    /// `param` (`ls<param>`).
    LinearVarStep {
        /// Zero-based index of the parameter holding the step.
        param: usize,
    },
    /// Reference/uniform-reference/value-reference linear forms (R, U, L
    /// tokens); parsed, not yet supported downstream.
    ///
    /// `kind` is `'R'`, `'U'` or `'L'` for a constant step (`R`, `R<n>`,
    /// `Rn<n>`, ...), with `step` the step.  For the variable-step forms
    /// (`Rs<pos>`, `Us<pos>`, `Ls<pos>`) `kind` is the lowercase letter
    /// (`'r'`, `'u'`, `'l'`) and `step` holds the parameter position `pos`.
    LinearRef {
        /// Token letter; uppercase for a constant step, lowercase for a
        /// variable step.
        kind: char,
        /// The constant step, or the step parameter's position.
        step: i64,
    },
}

/// One parameter of a variant: how it is passed and its optional alignment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Param {
    /// How the parameter varies across lanes.
    pub kind: ParamKind,
    /// Alignment in bytes from an `a<n>` suffix (a power of two), if any.
    pub align: Option<u32>,
}

/// Number of lanes of a variant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VectorLength {
    /// A fixed number of lanes, at least 1.
    Fixed(u32),
    /// Scalable (`x`), as used by SVE: `vscale` times the lanes of 128 bits
    /// (SVE variants only).
    Scalable,
}

/// A parsed variant name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VariantName {
    /// Instruction set of the clone.
    pub isa: Isa,
    /// Whether the clone takes a lane mask (`M`) or not (`N`).
    pub masked: bool,
    /// Number of lanes.
    pub vlen: VectorLength,
    /// One entry per parameter of the scalar function, in order.
    pub params: Vec<Param>,
    /// Name of the scalar function the clone is derived from.
    pub scalar_name: String,
    /// Name the vector function is emitted under (the parenthesised redirect,
    /// else the mangled name itself).
    pub vector_name: String,
}

/// Why a name did not parse; Display gives one human-readable line naming the
/// offending position/token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// The whole name that failed to parse.
    pub name: String,
    /// Byte offset in `name` where the problem was found.
    pub position: usize,
    /// What was wrong at `position`.
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "malformed vector variant name `{}` at byte {}: {}", self.name, self.position, self.message)
    }
}

impl std::error::Error for ParseError {}

/// Describes the character at the cursor for error messages.
fn describe(c: Option<char>) -> String {
    match c {
        Some(c) => format!("`{c}`"),
        None => "end of name".to_string(),
    }
}

/// Left-to-right reader over a variant name; positions are byte offsets.
struct Cursor<'a> {
    name: &'a str,
    pos: usize,
}

impl<'a> Cursor<'a> {
    fn rest(&self) -> &'a str {
        self.name.get(self.pos..).unwrap_or("")
    }

    fn peek(&self) -> Option<char> {
        self.rest().chars().next()
    }

    /// Consumes `s` if the rest starts with it.
    fn eat(&mut self, s: &str) -> bool {
        if self.rest().starts_with(s) {
            self.pos += s.len();
            true
        } else {
            false
        }
    }

    fn error_at(&self, position: usize, message: impl Into<String>) -> ParseError {
        ParseError { name: self.name.to_string(), position, message: message.into() }
    }

    /// Consumes a run of ASCII digits; returns its start and text, or `None`
    /// (consuming nothing) when no digit follows.
    fn digits(&mut self) -> Option<(usize, &'a str)> {
        let rest = self.rest();
        let len = rest.bytes().take_while(u8::is_ascii_digit).count();
        if len == 0 {
            return None;
        }
        let start = self.pos;
        self.pos += len;
        Some((start, &rest[..len]))
    }

    /// Consumes a mandatory decimal number that must fit in a `u64`.
    /// `expected` describes what is missing, `noun` names the number when it
    /// is too large.
    fn number(&mut self, expected: &str, noun: &str) -> Result<(usize, u64), ParseError> {
        let Some((start, text)) = self.digits() else {
            return Err(self.error_at(self.pos, format!("expected {expected}, found {}", describe(self.peek()))));
        };
        text.parse::<u64>()
            .map(|n| (start, n))
            .map_err(|_| self.error_at(start, format!("{noun} `{text}` is too large")))
    }
}

/// A variable-step reference to another parameter, checked once all
/// parameters are known.
struct StepRef {
    /// Index of the parameter carrying the reference.
    index: usize,
    /// Referenced parameter position.
    target: u64,
    /// Byte offset of the position number.
    at: usize,
}

/// Parses the ISA after the `_ZGV` prefix.
fn parse_isa(cur: &mut Cursor<'_>) -> Result<Isa, ParseError> {
    if cur.eat("_LLVM_") {
        return Ok(Isa::Llvm);
    }
    let at = cur.pos;
    let isa = match cur.peek() {
        Some('b') => Isa::Sse2,
        Some('c') => Isa::Avx,
        Some('d') => Isa::Avx2,
        Some('e') => Isa::Avx512,
        Some('n') => Isa::AdvSimd,
        Some('s') => Isa::Sve,
        Some(other) => {
            return Err(
                cur.error_at(at, format!("unknown ISA `{other}` (expected `b`, `c`, `d`, `e`, `_LLVM_`, `n` or `s`)"))
            )
        }
        None => {
            return Err(cur.error_at(
                at,
                "expected ISA (`b`, `c`, `d`, `e`, `_LLVM_`, `n` or `s`) after `_ZGV`, found end of name",
            ))
        }
    };
    cur.pos += 1;
    Ok(isa)
}

/// Parses the mask letter.
fn parse_mask(cur: &mut Cursor<'_>) -> Result<bool, ParseError> {
    if cur.eat("M") {
        Ok(true)
    } else if cur.eat("N") {
        Ok(false)
    } else {
        Err(cur.error_at(cur.pos, format!("expected `N` or `M` (mask), found {}", describe(cur.peek()))))
    }
}

/// Parses the vector length.
fn parse_vlen(cur: &mut Cursor<'_>) -> Result<VectorLength, ParseError> {
    if cur.eat("x") {
        return Ok(VectorLength::Scalable);
    }
    let (at, n) = cur.number("vector length (a decimal number or `x`)", "vector length")?;
    if n == 0 {
        return Err(cur.error_at(at, "vector length must be at least 1, found `0`"));
    }
    u32::try_from(n).map(VectorLength::Fixed).map_err(|_| cur.error_at(at, format!("vector length `{n}` is too large")))
}

/// Parses an optional constant step after `l`, `R`, `L` or `U`: nothing
/// (step 1), `<n>` or `n<n>`.
fn parse_const_step(cur: &mut Cursor<'_>) -> Result<i64, ParseError> {
    let negative = cur.eat("n");
    let (at, magnitude) = if negative {
        cur.number("linear step after `n`", "linear step")?
    } else {
        match cur.digits() {
            None => return Ok(1),
            Some((at, text)) => {
                let n =
                    text.parse::<u64>().map_err(|_| cur.error_at(at, format!("linear step `{text}` is too large")))?;
                (at, n)
            }
        }
    };
    if magnitude == 0 {
        return Err(cur.error_at(at, "linear step must be non-zero, found `0`"));
    }
    let step = if negative { 0i64.checked_sub_unsigned(magnitude) } else { i64::try_from(magnitude).ok() };
    step.ok_or_else(|| cur.error_at(at, format!("linear step `{magnitude}` is too large")))
}

/// Parses one parameter token with its optional alignment.  `index` is the
/// parameter's position; variable-step references are pushed to `refs`.
fn parse_param(cur: &mut Cursor<'_>, index: usize, refs: &mut Vec<StepRef>) -> Result<Param, ParseError> {
    let start = cur.pos;
    let kind = match cur.peek() {
        Some('v') => {
            cur.pos += 1;
            ParamKind::Vector
        }
        Some('u') => {
            cur.pos += 1;
            ParamKind::Uniform
        }
        Some(letter @ ('l' | 'R' | 'L' | 'U')) => {
            cur.pos += 1;
            if cur.eat("s") {
                let (at, target) =
                    cur.number(&format!("parameter position after `{letter}s`"), "parameter position")?;
                refs.push(StepRef { index, target, at });
                if letter == 'l' {
                    let param = usize::try_from(target)
                        .map_err(|_| cur.error_at(at, format!("parameter position `{target}` is too large")))?;
                    ParamKind::LinearVarStep { param }
                } else {
                    let step = i64::try_from(target)
                        .map_err(|_| cur.error_at(at, format!("parameter position `{target}` is too large")))?;
                    ParamKind::LinearRef { kind: letter.to_ascii_lowercase(), step }
                }
            } else {
                let step = parse_const_step(cur)?;
                if letter == 'l' {
                    ParamKind::Linear { step }
                } else {
                    ParamKind::LinearRef { kind: letter, step }
                }
            }
        }
        other => {
            return Err(cur.error_at(
                start,
                format!("unknown parameter token {} (expected `v`, `u`, `l`, `R`, `L` or `U`)", describe(other)),
            ))
        }
    };
    let align = if cur.eat("a") {
        let (at, n) = cur.number("alignment after `a`", "alignment")?;
        if !n.is_power_of_two() {
            return Err(cur.error_at(at, format!("alignment `{n}` is not a power of two")));
        }
        Some(u32::try_from(n).map_err(|_| cur.error_at(at, format!("alignment `{n}` is too large")))?)
    } else {
        None
    };
    Ok(Param { kind, align })
}

/// Parses `[ "(" redirect ")" ]` at the cursor, returning the redirect name.
fn parse_redirect(cur: &mut Cursor<'_>) -> Result<Option<String>, ParseError> {
    let open = cur.pos;
    if !cur.eat("(") {
        return Ok(None);
    }
    let inner = cur.rest();
    let Some(close_rel) = inner.find([')', '(']) else {
        return Err(cur.error_at(open, "unbalanced parentheses: redirect `(` is never closed"));
    };
    if inner[close_rel..].starts_with('(') {
        return Err(cur.error_at(cur.pos + close_rel, "unbalanced parentheses: nested `(` in redirect name"));
    }
    let redirect = &inner[..close_rel];
    if redirect.is_empty() {
        return Err(cur.error_at(open, "empty redirect name in `()`"));
    }
    cur.pos += close_rel + 1;
    match cur.peek() {
        None => Ok(Some(redirect.to_string())),
        Some(')') => Err(cur.error_at(cur.pos, "unbalanced parentheses: `)` without matching `(`")),
        Some(c) => Err(cur.error_at(cur.pos, format!("unexpected `{c}` after the redirect's closing `)`"))),
    }
}

/// Writes the mangled form of one parameter.
fn write_param(out: &mut String, param: &Param) {
    // Writing to a `String` cannot fail, so the `fmt::Result`s are ignored.
    match param.kind {
        ParamKind::Vector => out.push('v'),
        ParamKind::Uniform => out.push('u'),
        ParamKind::Linear { step } => write_const_step(out, 'l', step),
        ParamKind::LinearVarStep { param } => {
            let _ = write!(out, "ls{param}");
        }
        ParamKind::LinearRef { kind, step } => {
            if kind.is_ascii_lowercase() {
                let _ = write!(out, "{}s{step}", kind.to_ascii_uppercase());
            } else {
                write_const_step(out, kind, step);
            }
        }
    }
    if let Some(align) = param.align {
        let _ = write!(out, "a{align}");
    }
}

/// Writes `letter` followed by a constant step in canonical form: nothing for
/// 1, `<n>` for other positive steps, `n<n>` for negative ones.
fn write_const_step(out: &mut String, letter: char, step: i64) {
    out.push(letter);
    if step < 0 {
        let _ = write!(out, "n{}", step.unsigned_abs());
    } else if step != 1 {
        let _ = write!(out, "{step}");
    }
}

/// Builds a mangled name from its parts, with any vector length.
fn mangle_parts(isa: Isa, masked: bool, vlen: &VectorLength, params: &[Param], scalar_name: &str) -> String {
    let mut out = String::with_capacity(PREFIX.len() + 12 + 3 * params.len() + scalar_name.len());
    out.push_str(PREFIX);
    out.push_str(isa.mangling());
    out.push(if masked { 'M' } else { 'N' });
    match vlen {
        VectorLength::Fixed(n) => {
            let _ = write!(out, "{n}");
        }
        VectorLength::Scalable => out.push('x'),
    }
    for param in params {
        write_param(&mut out, param);
    }
    out.push('_');
    out.push_str(scalar_name);
    out
}

impl VariantName {
    /// Parses a variant name such as `_ZGVdN8uuv_smoothstep` or, in LLVM's
    /// attribute form, `_ZGVdN8vv_foo(_ZGVdN8vv_foo)`.
    ///
    /// `vector_name` is the parenthesised redirect when present, else the
    /// whole `name`.  A function without parameters (`_ZGVbN4_f`) is
    /// accepted.
    ///
    /// # Errors
    ///
    /// Returns a [`ParseError`] pointing at the first offending byte when the
    /// name lacks the `_ZGV` prefix, names an unknown ISA, lacks a valid mask
    /// letter, has a missing or zero vector length, contains an unknown
    /// parameter token, a bad step, position or alignment number, lacks the
    /// `_` before the scalar name, has an empty scalar name, or has
    /// unbalanced parentheses around the redirect.
    pub fn parse(name: &str) -> Result<VariantName, ParseError> {
        let mut cur = Cursor { name, pos: 0 };
        if !cur.eat(PREFIX) {
            return Err(cur.error_at(0, "expected the `_ZGV` prefix"));
        }
        let isa = parse_isa(&mut cur)?;
        let masked = parse_mask(&mut cur)?;
        let vlen = parse_vlen(&mut cur)?;

        let mut params = Vec::new();
        let mut refs = Vec::new();
        loop {
            match cur.peek() {
                Some('_') => break,
                None => {
                    return Err(cur.error_at(cur.pos, "expected `_` before the scalar function name, found end of name"))
                }
                Some(_) => {
                    let param = parse_param(&mut cur, params.len(), &mut refs)?;
                    params.push(param);
                }
            }
        }
        for r in &refs {
            if r.target >= params.len() as u64 {
                return Err(cur.error_at(
                    r.at,
                    format!(
                        "linear step refers to parameter {}, but the variant has only {} parameter(s)",
                        r.target,
                        params.len()
                    ),
                ));
            }
            if r.target == r.index as u64 {
                return Err(cur.error_at(r.at, format!("linear step of parameter {} refers to itself", r.index)));
            }
        }

        // The loop above stopped on the `_` separator.
        cur.pos += 1;
        let scalar_start = cur.pos;
        let rest = cur.rest();
        let scalar_len = rest.find(['(', ')']).unwrap_or(rest.len());
        let scalar_name = &rest[..scalar_len];
        if scalar_name.is_empty() {
            return Err(cur.error_at(scalar_start, "empty scalar function name"));
        }
        cur.pos += scalar_len;
        if cur.peek() == Some(')') {
            return Err(cur.error_at(cur.pos, "unbalanced parentheses: `)` without matching `(`"));
        }
        let redirect = parse_redirect(&mut cur)?;
        let vector_name = match redirect {
            Some(redirect) => redirect,
            None => name.to_string(),
        };

        Ok(VariantName { isa, masked, vlen, params, scalar_name: scalar_name.to_string(), vector_name })
    }

    /// Builds the mangled name (without redirect), e.g. isa `Avx2`, unmasked, 8,
    /// `[u, u, v]`, `"smoothstep"` -> `"_ZGVdN8uuv_smoothstep"`. Round-trips with
    /// parse.
    ///
    /// Steps are written canonically (`l` for step 1, `ln1` for -1), so
    /// `parse` followed by `mangle` normalises e.g. `l1` to `l`.  Values a
    /// parsed name never holds (a zero vector length or step, an alignment
    /// that is not a power of two) are written as given and will not parse.
    #[must_use]
    pub fn mangle(isa: Isa, masked: bool, vlen: u32, params: &[Param], scalar_name: &str) -> String {
        mangle_parts(isa, masked, &VectorLength::Fixed(vlen), params, scalar_name)
    }

    /// The mangled name of self (without redirect).
    #[must_use]
    pub fn mangled(&self) -> String {
        mangle_parts(self.isa, self.masked, &self.vlen, &self.params, &self.scalar_name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(kind: ParamKind) -> Param {
        Param { kind, align: None }
    }

    fn pa(kind: ParamKind, align: u32) -> Param {
        Param { kind, align: Some(align) }
    }

    fn ok(name: &str) -> VariantName {
        match VariantName::parse(name) {
            Ok(v) => v,
            Err(e) => panic!("`{name}` should parse: {e}"),
        }
    }

    fn err(name: &str) -> ParseError {
        match VariantName::parse(name) {
            Ok(v) => panic!("`{name}` should not parse, got {v:?}"),
            Err(e) => e,
        }
    }

    /// Asserts that `name` fails at `position` with a message containing
    /// `needle`.
    fn assert_err(name: &str, position: usize, needle: &str) {
        let e = err(name);
        assert_eq!(e.name, name);
        assert_eq!(e.position, position, "position for `{name}`: {e}");
        assert!(e.message.contains(needle), "message for `{name}` should contain {needle:?}: {e}");
    }

    // ---- Isa -------------------------------------------------------------

    #[test]
    fn isa_manglings() {
        assert_eq!(Isa::Sse2.mangling(), "b");
        assert_eq!(Isa::Avx.mangling(), "c");
        assert_eq!(Isa::Avx2.mangling(), "d");
        assert_eq!(Isa::Avx512.mangling(), "e");
        assert_eq!(Isa::Llvm.mangling(), "_LLVM_");
        assert_eq!(Isa::AdvSimd.mangling(), "n");
        assert_eq!(Isa::Sve.mangling(), "s");
    }

    #[test]
    fn isa_target_features() {
        assert_eq!(Isa::Sse2.target_features(), Some("+sse2"));
        assert_eq!(Isa::Avx.target_features(), Some("+avx"));
        assert_eq!(Isa::Avx2.target_features(), Some("+avx2"));
        assert_eq!(Isa::Avx512.target_features(), Some("+avx512f"));
        assert_eq!(Isa::Llvm.target_features(), None);
        assert_eq!(Isa::AdvSimd.target_features(), Some("+neon"));
        assert_eq!(Isa::Sve.target_features(), Some("+sve"));
        // GCC's `d` variant is AVX2 only.
        assert!(!Isa::Avx2.target_features().unwrap_or("").contains("fma"));
    }

    #[test]
    fn isa_vector_bits() {
        assert_eq!(Isa::Sse2.vector_bits(), Some(128));
        assert_eq!(Isa::Avx.vector_bits(), Some(256));
        assert_eq!(Isa::Avx2.vector_bits(), Some(256));
        assert_eq!(Isa::Avx512.vector_bits(), Some(512));
        assert_eq!(Isa::Llvm.vector_bits(), None);
        assert_eq!(Isa::AdvSimd.vector_bits(), None);
        assert_eq!(Isa::Sve.vector_bits(), None);
    }

    #[test]
    fn every_isa_letter_parses() {
        for isa in [Isa::Sse2, Isa::Avx, Isa::Avx2, Isa::Avx512, Isa::Llvm, Isa::AdvSimd, Isa::Sve] {
            let name = format!("_ZGV{}N4v_f", isa.mangling());
            assert_eq!(ok(&name).isa, isa, "{name}");
        }
    }

    // ---- real names ------------------------------------------------------

    #[test]
    fn sse2_sinf() {
        let v = ok("_ZGVbN4v_sinf");
        assert_eq!(
            v,
            VariantName {
                isa: Isa::Sse2,
                masked: false,
                vlen: VectorLength::Fixed(4),
                params: vec![p(ParamKind::Vector)],
                scalar_name: "sinf".into(),
                vector_name: "_ZGVbN4v_sinf".into(),
            }
        );
    }

    #[test]
    fn avx2_smoothstep() {
        let v = ok("_ZGVdN8uuv_smoothstep");
        assert_eq!(v.isa, Isa::Avx2);
        assert!(!v.masked);
        assert_eq!(v.vlen, VectorLength::Fixed(8));
        assert_eq!(v.params, vec![p(ParamKind::Uniform), p(ParamKind::Uniform), p(ParamKind::Vector)]);
        assert_eq!(v.scalar_name, "smoothstep");
        assert_eq!(v.vector_name, "_ZGVdN8uuv_smoothstep");
    }

    #[test]
    fn avx512_masked_linear_step() {
        let v = ok("_ZGVeM16vl4_foo");
        assert_eq!(v.isa, Isa::Avx512);
        assert!(v.masked);
        assert_eq!(v.vlen, VectorLength::Fixed(16));
        assert_eq!(v.params, vec![p(ParamKind::Vector), p(ParamKind::Linear { step: 4 })]);
        assert_eq!(v.scalar_name, "foo");
    }

    #[test]
    fn avx_negative_linear_step() {
        let v = ok("_ZGVcN8ln2_bar");
        assert_eq!(v.isa, Isa::Avx);
        assert_eq!(v.vlen, VectorLength::Fixed(8));
        assert_eq!(v.params, vec![p(ParamKind::Linear { step: -2 })]);
        assert_eq!(v.scalar_name, "bar");
    }

    #[test]
    fn llvm_isa() {
        let v = ok("_ZGV_LLVM_N4vv_foo");
        assert_eq!(v.isa, Isa::Llvm);
        assert!(!v.masked);
        assert_eq!(v.vlen, VectorLength::Fixed(4));
        assert_eq!(v.params, vec![p(ParamKind::Vector), p(ParamKind::Vector)]);
        assert_eq!(v.scalar_name, "foo");
        assert_eq!(v.vector_name, "_ZGV_LLVM_N4vv_foo");
    }

    #[test]
    fn variable_step_with_alignment() {
        let v = ok("_ZGVdN4vls0a32_f");
        assert_eq!(v.isa, Isa::Avx2);
        assert_eq!(v.vlen, VectorLength::Fixed(4));
        assert_eq!(v.params, vec![p(ParamKind::Vector), pa(ParamKind::LinearVarStep { param: 0 }, 32)]);
        assert_eq!(v.scalar_name, "f");
    }

    #[test]
    fn cxx_mangled_scalar_name() {
        let v = ok("_ZGVbN2v__Z3food");
        assert_eq!(v.isa, Isa::Sse2);
        assert_eq!(v.vlen, VectorLength::Fixed(2));
        assert_eq!(v.params, vec![p(ParamKind::Vector)]);
        assert_eq!(v.scalar_name, "_Z3food");
        assert_eq!(v.vector_name, "_ZGVbN2v__Z3food");

        let v = ok("_ZGVeN16vv__Z3fooff");
        assert_eq!(v.scalar_name, "_Z3fooff");
        assert_eq!(v.params.len(), 2);
    }

    #[test]
    fn scalar_name_with_underscores() {
        let v = ok("_ZGVbN4uv_my_fancy__func_");
        assert_eq!(v.scalar_name, "my_fancy__func_");
        assert_eq!(v.params, vec![p(ParamKind::Uniform), p(ParamKind::Vector)]);
    }

    #[test]
    fn redirect_form() {
        let v = ok("_ZGVdN8vv_foo(_ZGVdN8vv_foo)");
        assert_eq!(v.scalar_name, "foo");
        assert_eq!(v.vector_name, "_ZGVdN8vv_foo");
        assert_eq!(v.mangled(), "_ZGVdN8vv_foo");

        let v = ok("_ZGV_LLVM_N4v_sinf(__svml_sinf4)");
        assert_eq!(v.isa, Isa::Llvm);
        assert_eq!(v.scalar_name, "sinf");
        assert_eq!(v.vector_name, "__svml_sinf4");
        assert_eq!(v.mangled(), "_ZGV_LLVM_N4v_sinf");

        let v = ok("_ZGVbN2v__Z3food(vec_food)");
        assert_eq!(v.scalar_name, "_Z3food");
        assert_eq!(v.vector_name, "vec_food");
    }

    #[test]
    fn masked_and_unmasked() {
        assert!(ok("_ZGVbM4v_f").masked);
        assert!(!ok("_ZGVbN4v_f").masked);
    }

    #[test]
    fn multi_digit_and_large_vlen() {
        assert_eq!(ok("_ZGVeN64v_f").vlen, VectorLength::Fixed(64));
        assert_eq!(ok("_ZGV_LLVM_N4294967295v_f").vlen, VectorLength::Fixed(u32::MAX));
    }

    #[test]
    fn scalable_vlen() {
        let v = ok("_ZGVsMxvu_f");
        assert_eq!(v.isa, Isa::Sve);
        assert!(v.masked);
        assert_eq!(v.vlen, VectorLength::Scalable);
        assert_eq!(v.params, vec![p(ParamKind::Vector), p(ParamKind::Uniform)]);
        assert_eq!(v.mangled(), "_ZGVsMxvu_f");
    }

    #[test]
    fn aarch64_advsimd() {
        let v = ok("_ZGVnN2v_cos");
        assert_eq!(v.isa, Isa::AdvSimd);
        assert_eq!(v.vlen, VectorLength::Fixed(2));
    }

    #[test]
    fn no_parameters() {
        let v = ok("_ZGVbN4_f");
        assert!(v.params.is_empty());
        assert_eq!(v.scalar_name, "f");
        assert_eq!(v.mangled(), "_ZGVbN4_f");
    }

    // ---- parameter tokens ------------------------------------------------

    #[test]
    fn linear_constant_steps() {
        let v = ok("_ZGVbN4ll1l2ln1ln10l123_f");
        let steps: Vec<ParamKind> = v.params.iter().map(|p| p.kind).collect();
        assert_eq!(
            steps,
            vec![
                ParamKind::Linear { step: 1 },
                ParamKind::Linear { step: 1 },
                ParamKind::Linear { step: 2 },
                ParamKind::Linear { step: -1 },
                ParamKind::Linear { step: -10 },
                ParamKind::Linear { step: 123 },
            ]
        );
    }

    #[test]
    fn linear_step_extremes() {
        let v = ok("_ZGVbN4l9223372036854775807ln9223372036854775808_f");
        assert_eq!(v.params, vec![p(ParamKind::Linear { step: i64::MAX }), p(ParamKind::Linear { step: i64::MIN })]);
        assert_eq!(v.mangled(), "_ZGVbN4l9223372036854775807ln9223372036854775808_f");
    }

    #[test]
    fn linear_variable_step() {
        let v = ok("_ZGVbN4uls0_f");
        assert_eq!(v.params, vec![p(ParamKind::Uniform), p(ParamKind::LinearVarStep { param: 0 })]);
        let v = ok("_ZGVbN4ls2vu_f");
        assert_eq!(v.params[0].kind, ParamKind::LinearVarStep { param: 2 });
    }

    #[test]
    fn reference_linear_forms() {
        let v = ok("_ZGVbN4RLUR4Ln3U2_f");
        let kinds: Vec<ParamKind> = v.params.iter().map(|p| p.kind).collect();
        assert_eq!(
            kinds,
            vec![
                ParamKind::LinearRef { kind: 'R', step: 1 },
                ParamKind::LinearRef { kind: 'L', step: 1 },
                ParamKind::LinearRef { kind: 'U', step: 1 },
                ParamKind::LinearRef { kind: 'R', step: 4 },
                ParamKind::LinearRef { kind: 'L', step: -3 },
                ParamKind::LinearRef { kind: 'U', step: 2 },
            ]
        );
        assert_eq!(v.mangled(), "_ZGVbN4RLUR4Ln3U2_f");
    }

    #[test]
    fn reference_linear_variable_step_forms() {
        let v = ok("_ZGVbN4uRs0Ls0Us0a8_f");
        assert_eq!(
            v.params,
            vec![
                p(ParamKind::Uniform),
                p(ParamKind::LinearRef { kind: 'r', step: 0 }),
                p(ParamKind::LinearRef { kind: 'l', step: 0 }),
                pa(ParamKind::LinearRef { kind: 'u', step: 0 }, 8),
            ]
        );
        assert_eq!(v.mangled(), "_ZGVbN4uRs0Ls0Us0a8_f");
    }

    #[test]
    fn alignment_on_every_kind() {
        let v = ok("_ZGVeN8va16ua64la8ln2a4R2a1uls4a128_f");
        assert_eq!(
            v.params,
            vec![
                pa(ParamKind::Vector, 16),
                pa(ParamKind::Uniform, 64),
                pa(ParamKind::Linear { step: 1 }, 8),
                pa(ParamKind::Linear { step: -2 }, 4),
                pa(ParamKind::LinearRef { kind: 'R', step: 2 }, 1),
                p(ParamKind::Uniform),
                pa(ParamKind::LinearVarStep { param: 4 }, 128),
            ]
        );
        assert_eq!(v.mangled(), "_ZGVeN8va16ua64la8ln2a4R2a1uls4a128_f");
    }

    #[test]
    fn largest_alignment() {
        let v = ok("_ZGVbN4va2147483648_f");
        assert_eq!(v.params[0].align, Some(1 << 31));
    }

    // ---- mangle / round trips ---------------------------------------------

    #[test]
    fn mangle_smoothstep() {
        let params = [p(ParamKind::Uniform), p(ParamKind::Uniform), p(ParamKind::Vector)];
        assert_eq!(VariantName::mangle(Isa::Avx2, false, 8, &params, "smoothstep"), "_ZGVdN8uuv_smoothstep");
    }

    #[test]
    fn mangle_every_kind() {
        let params = [
            p(ParamKind::Vector),
            p(ParamKind::Linear { step: 1 }),
            p(ParamKind::Linear { step: -1 }),
            p(ParamKind::Linear { step: 7 }),
            pa(ParamKind::Uniform, 32),
            p(ParamKind::LinearVarStep { param: 4 }),
            p(ParamKind::LinearRef { kind: 'U', step: -5 }),
            p(ParamKind::LinearRef { kind: 'r', step: 4 }),
        ];
        let name = VariantName::mangle(Isa::Llvm, true, 2, &params, "_Z1gv");
        assert_eq!(name, "_ZGV_LLVM_M2vlln1l7ua32ls4Un5Rs4__Z1gv");
        let v = ok(&name);
        assert_eq!(v.isa, Isa::Llvm);
        assert!(v.masked);
        assert_eq!(v.vlen, VectorLength::Fixed(2));
        assert_eq!(v.params, params);
        assert_eq!(v.scalar_name, "_Z1gv");
        assert_eq!(v.vector_name, name);
    }

    #[test]
    fn round_trip_real_names() {
        for name in [
            "_ZGVbN4v_sinf",
            "_ZGVdN8uuv_smoothstep",
            "_ZGVeM16vl4_foo",
            "_ZGVcN8ln2_bar",
            "_ZGV_LLVM_N4vv_foo",
            "_ZGVdN4vls0a32_f",
            "_ZGVbN2v__Z3food",
            "_ZGVbM4va16_f",
            "_ZGVsMxv_f",
            "_ZGVnN2ul_f",
            "_ZGVbN4_f",
        ] {
            let v = ok(name);
            assert_eq!(v.mangled(), name);
            assert_eq!(ok(&v.mangled()), v);
        }
    }

    #[test]
    fn round_trip_mangle_then_parse() {
        let isas = [Isa::Sse2, Isa::Avx, Isa::Avx2, Isa::Avx512, Isa::Llvm, Isa::AdvSimd, Isa::Sve];
        let kinds = [
            ParamKind::Vector,
            ParamKind::Uniform,
            ParamKind::Linear { step: 1 },
            ParamKind::Linear { step: -1 },
            ParamKind::Linear { step: 16 },
            ParamKind::Linear { step: -300 },
            ParamKind::LinearVarStep { param: 0 },
            ParamKind::LinearRef { kind: 'R', step: 1 },
            ParamKind::LinearRef { kind: 'L', step: -8 },
            ParamKind::LinearRef { kind: 'U', step: 3 },
            ParamKind::LinearRef { kind: 'u', step: 0 },
        ];
        let mut count = 0;
        for (i, &isa) in isas.iter().enumerate() {
            for masked in [false, true] {
                for vlen in [1, 2, 4, 8, 16, 64] {
                    for (j, &kind) in kinds.iter().enumerate() {
                        // Parameter 0 is uniform so variable steps can refer to it.
                        let align = if (i + j) % 3 == 0 { Some(1u32 << ((i + j) % 8)) } else { None };
                        let params = [p(ParamKind::Uniform), Param { kind, align }, p(ParamKind::Vector)];
                        for scalar in ["f", "my_func", "_Z3fooff"] {
                            let name = VariantName::mangle(isa, masked, vlen, &params, scalar);
                            let v = ok(&name);
                            assert_eq!(v.isa, isa);
                            assert_eq!(v.masked, masked);
                            assert_eq!(v.vlen, VectorLength::Fixed(vlen));
                            assert_eq!(v.params, params);
                            assert_eq!(v.scalar_name, scalar);
                            assert_eq!(v.vector_name, name);
                            assert_eq!(v.mangled(), name);
                            count += 1;
                        }
                    }
                }
            }
        }
        assert_eq!(count, 7 * 2 * 6 * 11 * 3);
    }

    #[test]
    fn parse_normalises_non_canonical_steps() {
        let v = ok("_ZGVbN4l1R1_f");
        assert_eq!(v.mangled(), "_ZGVbN4lR_f");
        assert_eq!(ok(&v.mangled()).params, v.params);
    }

    #[test]
    fn non_ascii_scalar_name() {
        let v = ok("_ZGVbN4v_función");
        assert_eq!(v.scalar_name, "función");
        assert_eq!(v.mangled(), "_ZGVbN4v_función");
    }

    // ---- errors ------------------------------------------------------------

    #[test]
    fn error_display() {
        let e = err("_ZGVdX8v_f");
        assert_eq!(
            e.to_string(),
            "malformed vector variant name `_ZGVdX8v_f` at byte 5: \
             expected `N` or `M` (mask), found `X`"
        );
        let boxed: Box<dyn std::error::Error> = Box::new(e);
        assert!(boxed.to_string().starts_with("malformed vector variant name"));
    }

    #[test]
    fn error_missing_prefix() {
        assert_err("", 0, "`_ZGV` prefix");
        assert_err("sinf", 0, "`_ZGV` prefix");
        assert_err("_ZGbN4v_sinf", 0, "`_ZGV` prefix");
        assert_err("_Z3foof", 0, "`_ZGV` prefix");
        assert_err("_zgvbN4v_sinf", 0, "`_ZGV` prefix");
    }

    #[test]
    fn error_unknown_isa() {
        assert_err("_ZGVaN4v_f", 4, "unknown ISA `a`");
        assert_err("_ZGVxN4v_f", 4, "unknown ISA `x`");
        assert_err("_ZGV_LLVMN4v_f", 4, "unknown ISA `_`");
        assert_err("_ZGV", 4, "expected ISA");
        assert_err("_ZGVéN4v_f", 4, "unknown ISA `é`");
    }

    #[test]
    fn error_mask() {
        assert_err("_ZGVdX8v_f", 5, "expected `N` or `M` (mask), found `X`");
        assert_err("_ZGVb4v_f", 5, "expected `N` or `M` (mask), found `4`");
        assert_err("_ZGVbn4v_f", 5, "(mask), found `n`");
        assert_err("_ZGVb", 5, "(mask), found end of name");
        assert_err("_ZGV_LLVM_4v_f", 10, "(mask)");
    }

    #[test]
    fn error_vlen() {
        assert_err("_ZGVbNv_f", 6, "expected vector length");
        assert_err("_ZGVbN_f", 6, "expected vector length");
        assert_err("_ZGVbN", 6, "found end of name");
        assert_err("_ZGVbN0v_f", 6, "vector length must be at least 1");
        assert_err("_ZGVbN00v_f", 6, "vector length must be at least 1");
        assert_err("_ZGVbN4294967296v_f", 6, "vector length `4294967296` is too large");
        assert_err("_ZGVbN99999999999999999999999v_f", 6, "vector length `99999999999999999999999` is too large");
    }

    #[test]
    fn error_unknown_param_token() {
        assert_err("_ZGVbN4vq_f", 8, "unknown parameter token `q`");
        assert_err("_ZGVbN4x_f", 7, "unknown parameter token `x`");
        assert_err("_ZGVbN4V_f", 7, "unknown parameter token `V`");
        assert_err("_ZGVbN4a16_f", 7, "unknown parameter token `a`");
        assert_err("_ZGVbN4vn2_f", 8, "unknown parameter token `n`");
        assert_err("_ZGVbN4v(_f", 8, "unknown parameter token `(`");
    }

    #[test]
    fn error_bad_step() {
        assert_err("_ZGVbN4l0_f", 8, "linear step must be non-zero");
        assert_err("_ZGVbN4ln0_f", 9, "linear step must be non-zero");
        assert_err("_ZGVbN4R0_f", 8, "linear step must be non-zero");
        assert_err("_ZGVbN4ln_f", 9, "expected linear step after `n`, found `_`");
        assert_err("_ZGVbN4Ln", 9, "expected linear step after `n`, found end of name");
        assert_err("_ZGVbN4l9223372036854775808_f", 8, "linear step `9223372036854775808` is too large");
        assert_err("_ZGVbN4ln9223372036854775809_f", 9, "linear step `9223372036854775809` is too large");
        assert_err("_ZGVbN4l99999999999999999999_f", 8, "is too large");
        assert_err("_ZGVbN4ln99999999999999999999_f", 9, "is too large");
    }

    #[test]
    fn error_bad_step_position() {
        assert_err("_ZGVbN4uls_f", 10, "expected parameter position after `ls`, found `_`");
        assert_err("_ZGVbN4uRs_f", 10, "expected parameter position after `Rs`");
        assert_err("_ZGVbN4uLsv_f", 10, "after `Ls`, found `v`");
        assert_err("_ZGVbN4uUs", 10, "after `Us`, found end of name");
        assert_err("_ZGVbN4uls2_f", 10, "linear step refers to parameter 2, but the variant has only 2 parameter(s)");
        assert_err("_ZGVbN4uRs5v_f", 10, "refers to parameter 5");
        assert_err("_ZGVbN4uls1_f", 10, "linear step of parameter 1 refers to itself");
        assert_err("_ZGVbN4Us0_f", 9, "parameter 0 refers to itself");
        assert_err("_ZGVbN4uls99999999999999999999_f", 10, "is too large");
    }

    #[test]
    fn error_bad_alignment() {
        assert_err("_ZGVbN4va24_f", 9, "alignment `24` is not a power of two");
        assert_err("_ZGVbN4va0_f", 9, "alignment `0` is not a power of two");
        assert_err("_ZGVbN4ula3_f", 10, "alignment `3` is not a power of two");
        assert_err("_ZGVbN4va_f", 9, "expected alignment after `a`, found `_`");
        assert_err("_ZGVbN4va", 9, "expected alignment after `a`, found end of name");
        assert_err("_ZGVbN4va4294967296_f", 9, "alignment `4294967296` is too large");
        assert_err("_ZGVbN4va99999999999999999999_f", 9, "is too large");
        // Only one alignment per parameter.
        assert_err("_ZGVbN4va16a16_f", 11, "unknown parameter token `a`");
    }

    #[test]
    fn error_missing_separator() {
        assert_err("_ZGVbN4v", 8, "expected `_` before the scalar function name");
        assert_err("_ZGVbN4", 7, "found end of name");
        assert_err("_ZGVbN4vva16", 12, "expected `_` before the scalar function name");
        assert_err("_ZGVbN4ln2", 10, "expected `_`");
    }

    #[test]
    fn error_empty_scalar_name() {
        assert_err("_ZGVbN4v_", 9, "empty scalar function name");
        assert_err("_ZGVbN4v_(foo)", 9, "empty scalar function name");
        assert_err("_ZGVbN4_", 8, "empty scalar function name");
    }

    #[test]
    fn error_unbalanced_parentheses() {
        assert_err("_ZGVbN4v_f(g", 10, "unbalanced parentheses: redirect `(` is never closed");
        assert_err("_ZGVbN4v_f(", 10, "never closed");
        assert_err("_ZGVbN4v_f)", 10, "unbalanced parentheses: `)` without matching `(`");
        assert_err("_ZGVbN4v_f)g(", 10, "`)` without matching `(`");
        assert_err("_ZGVbN4v_f(g))", 13, "`)` without matching `(`");
        assert_err("_ZGVbN4v_f(g(h))", 12, "unbalanced parentheses: nested `(`");
        assert_err("_ZGVbN4v_f(g)h", 13, "unexpected `h` after the redirect's closing `)`");
        assert_err("_ZGVbN4v_f(g)(h)", 13, "unexpected `(`");
        assert_err("_ZGVbN4v_f()", 10, "empty redirect name");
    }

    #[test]
    fn errors_are_distinct() {
        let names = [
            "sinf",
            "_ZGVaN4v_f",
            "_ZGVbX4v_f",
            "_ZGVbNv_f",
            "_ZGVbN0v_f",
            "_ZGVbN4q_f",
            "_ZGVbN4l0_f",
            "_ZGVbN4va3_f",
            "_ZGVbN4v",
            "_ZGVbN4v_",
            "_ZGVbN4v_f(g",
        ];
        let messages: Vec<String> = names.iter().map(|n| err(n).message).collect();
        for (i, a) in messages.iter().enumerate() {
            for b in &messages[i + 1..] {
                assert_ne!(a, b);
            }
        }
    }
}
