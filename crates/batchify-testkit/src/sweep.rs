//! The real-code sweep: every defined function of real C and Rust code
//! bases (built by the sweep itself from sources fetched with cargo and
//! apt), batched at AVX2 ×8 and AVX-512 ×16, masked and unmasked, each run
//! classified and, where the oracle can run it, checked.
//!
//! Three layers, all driven by the `batchify-sweep` binary:
//! * **inputs** ([`prepare_inputs`]): fetch the sources (`cargo fetch` of
//!   `libz-sys` and `lz4-sys`, `apt-get download newlib-source`, a cargo
//!   build of pure-Rust crates with `--emit=llvm-bc`) and compile them to
//!   bitcode modules under `target/sweep/`;
//! * **child** ([`run_child`]): one process per slice of one module. Each
//!   function is cut out of its module (it keeps what it references), and
//!   every run parses that small module into a fresh LLVM context, batches
//!   one variant, verifies, looks for a clone without a body, and runs the
//!   oracle. It prints a line when each phase starts, so that the parent can
//!   tell which run crashed or hung;
//! * **parent** ([`run_sweep`]): runs children in parallel, restarts them
//!   after a crash or a timeout at the next run, and collects the
//!   [`Record`]s for [`write_outputs`] (report table, JSON lines, failures
//!   with a repro command).

use crate::corpus::parse_module;
use crate::{CheckConfig, Oracle, OracleError, OracleOptions};
use batchify_core::llvm::{constant, LLVMLinkage, LLVMOpcode, LLVMVisibility, Module, Type, Value};
use batchify_core::vfabi::Isa;
use batchify_core::{CloneSpec, Error, Options};
use inkwell::context::Context;
use std::collections::{BTreeMap, BTreeSet, HashSet, VecDeque};
use std::io::{BufRead, BufReader, Write};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

/// The variants built for every function: ISA, lanes, masked.
pub const VARIANTS: [(Isa, u32, bool); 4] =
    [(Isa::Avx2, 8, false), (Isa::Avx2, 8, true), (Isa::Avx512, 16, false), (Isa::Avx512, 16, true)];

fn isa_name(isa: Isa) -> &'static str {
    match isa {
        Isa::Avx2 => "avx2",
        Isa::Avx512 => "avx512",
        _ => "other",
    }
}

// ---------------------------------------------------------------------------
// Records
// ---------------------------------------------------------------------------

/// What happened to one run (one function, one variant).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Record {
    /// Code base, e.g. `zlib`.
    pub codebase: String,
    /// How the module was built, e.g. `O2` or `O0+mem2reg`.
    pub level: String,
    /// The module file.
    pub module: String,
    /// Index of the function among the module's definitions.
    pub fn_index: usize,
    /// The scalar function.
    pub function: String,
    /// The clone's name (its VFABI name).
    pub variant: String,
    /// `avx2` or `avx512`.
    pub isa: String,
    /// Lanes.
    pub width: u32,
    /// Masked variant.
    pub masked: bool,
    /// `vectorized`, `fallback`, `rejected`, `internal`, `panic`, `crash`,
    /// `invalid-ir`, `bodiless` or `timeout`.
    pub outcome: String,
    /// The fallback reason, error kind or message (normalised for grouping).
    pub detail: String,
    /// The full message, where there is one.
    pub message: String,
    /// `ok`, `mismatch`, `not-checked`, `timeout`, `crash`, `panic`, or
    /// `n/a` (no clone to check).
    pub oracle: String,
    /// Why not checked, or the mismatch.
    pub oracle_detail: String,
    /// Lanes compared by the oracle.
    pub lanes: u64,
    /// Milliseconds the run took (batchify and oracle).
    pub ms: u64,
    /// The function's cut-out module (for the repro), if written.
    pub fn_module: String,
}

const FIELDS: usize = 17;

fn esc(s: &str) -> String {
    s.replace('\\', "\\\\").replace('\t', "\\t").replace('\n', "\\n").replace('\r', "")
}

fn unesc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut it = s.chars();
    while let Some(c) = it.next() {
        if c == '\\' {
            match it.next() {
                Some('t') => out.push('\t'),
                Some('n') => out.push('\n'),
                Some(o) => out.push(o),
                None => {}
            }
        } else {
            out.push(c);
        }
    }
    out
}

impl Record {
    /// One tab-separated line (the child-to-parent protocol).
    pub fn encode(&self) -> String {
        [
            esc(&self.codebase),
            esc(&self.level),
            esc(&self.module),
            self.fn_index.to_string(),
            esc(&self.function),
            esc(&self.variant),
            esc(&self.isa),
            self.width.to_string(),
            (self.masked as u8).to_string(),
            esc(&self.outcome),
            esc(&self.detail),
            esc(&self.message),
            esc(&self.oracle),
            esc(&self.oracle_detail),
            self.lanes.to_string(),
            self.ms.to_string(),
            esc(&self.fn_module),
        ]
        .join("\t")
    }

    /// The inverse of [`Record::encode`].
    pub fn decode(line: &str) -> Option<Record> {
        let f: Vec<&str> = line.split('\t').collect();
        if f.len() != FIELDS {
            return None;
        }
        Some(Record {
            codebase: unesc(f[0]),
            level: unesc(f[1]),
            module: unesc(f[2]),
            fn_index: f[3].parse().ok()?,
            function: unesc(f[4]),
            variant: unesc(f[5]),
            isa: unesc(f[6]),
            width: f[7].parse().ok()?,
            masked: f[8] == "1",
            outcome: unesc(f[9]),
            detail: unesc(f[10]),
            message: unesc(f[11]),
            oracle: unesc(f[12]),
            oracle_detail: unesc(f[13]),
            lanes: f[14].parse().ok()?,
            ms: f[15].parse().ok()?,
            fn_module: unesc(f[16]),
        })
    }

    /// The record as one JSON object.
    pub fn json(&self) -> String {
        format!(
            "{{\"codebase\":{},\"level\":{},\"module\":{},\"fn_index\":{},\"function\":{},\"variant\":{},\
             \"isa\":{},\"width\":{},\"masked\":{},\"outcome\":{},\"detail\":{},\"message\":{},\"oracle\":{},\
             \"oracle_detail\":{},\"lanes\":{},\"ms\":{},\"fn_module\":{}}}",
            js(&self.codebase),
            js(&self.level),
            js(&self.module),
            self.fn_index,
            js(&self.function),
            js(&self.variant),
            js(&self.isa),
            self.width,
            self.masked,
            js(&self.outcome),
            js(&self.detail),
            js(&self.message),
            js(&self.oracle),
            js(&self.oracle_detail),
            self.lanes,
            self.ms,
            js(&self.fn_module)
        )
    }

    /// Whether this run is a failure of batchify (the sweep's exit status).
    pub fn failure(&self) -> Option<&'static str> {
        match self.outcome.as_str() {
            "internal" => return Some("internal error"),
            "panic" => return Some("panic"),
            "crash" => return Some("crash"),
            "invalid-ir" => return Some("invalid IR"),
            "bodiless" => return Some("clone without a body"),
            "timeout" => return Some("timeout (batchify)"),
            _ => {}
        }
        (self.oracle == "mismatch").then_some("oracle mismatch")
    }

    /// Commands that rerun this one run.
    pub fn repro(&self, exe: &str) -> String {
        let mut s = format!(
            "{exe} --one {} --codebase {} --level {} --function {} --variant {}",
            sh(&self.module),
            sh(&self.codebase),
            sh(&self.level),
            sh(&self.function),
            sh(&self.variant)
        );
        if !self.fn_module.is_empty() {
            s.push_str(&format!(
                "   # or: batchify {} --variant {} --report -S -o -",
                sh(&self.fn_module),
                sh(&self.variant)
            ));
        }
        s
    }
}

fn js(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Shell-quotes a word if it needs it.
pub fn sh(s: &str) -> String {
    if !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || "_-./+=:,@%".contains(c)) {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// Groups similar messages: instruction text in backticks becomes its
/// opcode, names and numbers are dropped, and the result is cut short.
pub fn normalize(msg: &str) -> String {
    let first = msg.lines().next().unwrap_or("");
    let mut out = String::new();
    let mut rest = first;
    while let Some(start) = rest.find('`') {
        out.push_str(&rest[..start]);
        let after = &rest[start + 1..];
        let Some(end) = after.find('`') else {
            out.push_str(&rest[start..]);
            rest = "";
            break;
        };
        let inner = &after[..end];
        let inner = inner.split_once(" = ").map(|(_, r)| r).unwrap_or(inner).trim();
        let mut words = inner.split_whitespace();
        let mut op = words.next().unwrap_or("").to_string();
        if matches!(op.as_str(), "tail" | "musttail" | "notail") {
            op = format!("{op} {}", words.next().unwrap_or(""));
        }
        if op.starts_with('@') || op.starts_with('%') || op.starts_with('_') || op.contains("::") {
            op = "…".into();
        }
        if op.starts_with("call") || op.ends_with("call") {
            // Keep the intrinsic family of a call: `call @llvm.x.*`.
            if let Some(at) = inner.find("@llvm.") {
                let name: String =
                    inner[at + 1..].chars().take_while(|c| c.is_alphanumeric() || *c == '.' || *c == '_').collect();
                let mut parts: Vec<&str> = name.split('.').collect();
                parts.truncate(3);
                op = format!("{op} @{}", parts.join("."));
            }
        }
        out.push('`');
        out.push_str(&op);
        out.push('`');
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    // Symbol lists (`Failed to materialize symbols: { ... }`) out.
    if let Some(brace) = out.find(" {") {
        out.truncate(brace);
    }
    // Numbers out (not digits inside words such as `mem2reg` or `i32`).
    let mut cleaned = String::new();
    let mut prev: Option<char> = None;
    let mut in_number = false;
    for c in out.chars() {
        if c.is_ascii_digit() && (in_number || !prev.is_some_and(|p| p.is_ascii_alphanumeric() || p == '_')) {
            if !in_number {
                cleaned.push('N');
            }
            in_number = true;
        } else {
            in_number = false;
            cleaned.push(c);
        }
        prev = Some(c);
    }
    if cleaned.chars().count() > 110 {
        cleaned = cleaned.chars().take(110).collect::<String>() + "…";
    }
    cleaned
}

// ---------------------------------------------------------------------------
// Cutting one function out of its module
// ---------------------------------------------------------------------------

/// Functions in this section are support code the sweep links in
/// (`tools/sweep/newlib-shims.c`), not part of a code base.
pub const SHIM_SECTION: &str = "batchify.sweep.shim";

/// The functions with a body, in module order (intrinsics and shims excluded), with
/// their parameter counts.
pub fn defined_functions(module: &inkwell::module::Module<'_>) -> Vec<(String, usize)> {
    Module::from_inkwell(module)
        .functions()
        .into_iter()
        .filter(|f| {
            let shim = f.section().is_some_and(|s| s == SHIM_SECTION);
            !f.is_declaration() && f.intrinsic_id() == 0 && !shim
        })
        .map(|f| (f.name(), f.params().len()))
        .collect()
}

/// The globals that `root` references, transitively (itself included).
fn reachable<'ctx>(root: Value<'ctx>) -> HashSet<Value<'ctx>> {
    let mut seen: HashSet<Value> = HashSet::new();
    let mut globals: HashSet<Value> = HashSet::new();
    let mut work: Vec<Value> = vec![root];
    seen.insert(root);
    globals.insert(root);
    let mut visit = |v: Option<Value<'ctx>>, work: &mut Vec<Value<'ctx>>, seen: &mut HashSet<Value<'ctx>>| {
        let Some(v) = v else { return };
        if !seen.insert(v) {
            return;
        }
        if v.is_global_value() {
            globals.insert(v);
            work.push(v);
        } else if v.is_constant() {
            work.push(v);
        }
    };
    while let Some(v) = work.pop() {
        if v.is_function() {
            if let Some(p) = v.personality() {
                visit(Some(p), &mut work, &mut seen);
            }
            for bb in v.blocks() {
                for i in bb.instructions() {
                    for o in i.present_operands() {
                        visit(Some(o), &mut work, &mut seen);
                    }
                }
            }
        } else if v.is_global_variable() {
            visit(v.initializer(), &mut work, &mut seen);
        } else if v.is_global_alias() {
            visit(v.aliasee(), &mut work, &mut seen);
        } else if v.is_global_ifunc() {
            visit(v.ifunc_resolver(), &mut work, &mut seen);
        } else if v.is_constant() && !v.is_block_address() {
            for o in v.present_operands() {
                visit(Some(o), &mut work, &mut seen);
            }
        }
    }
    globals
}

/// Bitcode of a copy of `module` that keeps `name` and everything it
/// references, and nothing else (the others are dropped by `globaldce`
/// after their linkage is made internal). Linkage, calling conventions and
/// attributes of what is kept do not change.
pub fn cut_out(module: &inkwell::module::Module<'_>, name: &str) -> Result<Vec<u8>, String> {
    // A private copy, disposed here.
    let owned = Module::from_inkwell(module).clone_module();
    let m = owned.module();
    std::ffi::CString::new(name).map_err(|e| e.to_string())?;
    let Some(f) = m.function(name) else {
        return Err(format!("no function `{name}`"));
    };
    let keep = reachable(f);
    for g in m.global_values() {
        if g.linkage() == LLVMLinkage::LLVMAppendingLinkage {
            g.delete_global();
            continue;
        }
        if keep.contains(&g) || g.is_declaration() {
            continue;
        }
        g.set_linkage(LLVMLinkage::LLVMInternalLinkage);
        g.set_visibility(LLVMVisibility::LLVMDefaultVisibility);
        if g.is_global_object() {
            // Aliases and ifuncs have no comdat of their own.
            g.clear_comdat();
        }
    }
    // Keep `f` itself even if it is internal.
    let arr = constant::array(Type::ptr(m.context()), &[f]);
    let used = m.add_global(arr.ty(), "llvm.compiler.used");
    used.set_initializer(arr);
    used.set_linkage(LLVMLinkage::LLVMAppendingLinkage);
    used.set_section("llvm.metadata");
    batchify_core::llvm::run_module_passes(m, "globaldce")?;
    used.delete_global();
    m.verify().map_err(|e| format!("the cut-out module does not verify: {e}"))?;
    Ok(m.to_bitcode())
}

// ---------------------------------------------------------------------------
// One run
// ---------------------------------------------------------------------------

fn has_ret(f: Value) -> bool {
    f.blocks().into_iter().any(|bb| bb.terminator().is_some_and(|t| t.opcode() == LLVMOpcode::LLVMRet))
}

fn named_function<'ctx>(m: Module<'ctx>, name: &str) -> Option<Value<'ctx>> {
    std::ffi::CString::new(name).ok()?;
    m.function(name)
}

/// Whether this host can run clones of `isa`.
pub fn host_has(isa: Isa) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        match isa {
            Isa::Avx2 => is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma"),
            Isa::Avx512 => {
                is_x86_feature_detected!("avx512f")
                    && is_x86_feature_detected!("avx512bw")
                    && is_x86_feature_detected!("avx512dq")
                    && is_x86_feature_detected!("avx512vl")
            }
            _ => false,
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = isa;
        false
    }
}

fn panic_text(p: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "non-string panic payload".into()
    }
}

fn error_kind(e: &Error) -> (&'static str, String) {
    match e {
        Error::UnknownFunction { reason, .. } => ("rejected", format!("unknown function: {}", normalize(reason))),
        Error::BadVariant(m) => ("rejected", format!("bad variant: {}", normalize(m))),
        Error::VariantMismatch { reason, .. } => ("rejected", format!("variant mismatch: {}", normalize(reason))),
        Error::Unsupported { what, .. } => ("rejected", format!("unsupported: {}", normalize(what))),
        Error::BatchCall { message, .. } => ("rejected", format!("__enzyme_batch call: {}", normalize(message))),
        Error::Internal { message, .. } => ("internal", normalize(message)),
    }
}

/// Batches variant `v` of `name` in the cut-out module `bytes` (fresh
/// context) and checks it. `phase` is called when the oracle starts, with
/// the record so far.
pub fn run_one(
    bytes: &[u8],
    base: &Record,
    name: &str,
    nparams: usize,
    v: usize,
    trials: usize,
    phase: &mut dyn FnMut(&Record),
) -> Record {
    let (isa, width, masked) = VARIANTS[v];
    let spec = CloneSpec::all_varying(name, nparams, width, isa, masked);
    let mut r = Record {
        variant: spec.vector_name.clone(),
        isa: isa_name(isa).into(),
        width,
        masked,
        oracle: "n/a".into(),
        ..base.clone()
    };
    let start = Instant::now();
    let ctx = Context::create();
    let module = match parse_module(&ctx, bytes, name) {
        Ok(m) => m,
        Err(e) => {
            r.outcome = "crash".into();
            r.detail = "the cut-out module does not parse".into();
            r.message = e;
            return r;
        }
    };
    let m = Module::from_inkwell(&module);
    let scalar_ret = named_function(m, name).is_some_and(has_ret);
    let built = catch_unwind(AssertUnwindSafe(|| {
        batchify_core::batchify_inkwell(
            &module,
            std::slice::from_ref(&spec),
            &Options { cost_model: false, ..Options::default() },
        )
    }));
    let ok = match built {
        Err(p) => {
            r.outcome = "panic".into();
            r.message = panic_text(p.as_ref());
            r.detail = normalize(&r.message);
            false
        }
        Ok(Err(e)) => {
            let (kind, detail) = error_kind(&e);
            r.outcome = kind.into();
            r.detail = detail;
            r.message = e.to_string();
            false
        }
        Ok(Ok(reports)) => {
            let fallback = reports.first().and_then(|rep| rep.fallback.clone());
            if let Err(e) = m.verify() {
                r.outcome = "invalid-ir".into();
                r.message = e.lines().take(3).collect::<Vec<_>>().join(" | ");
                r.detail = normalize(&r.message);
                false
            } else if scalar_ret && !named_function(m, &spec.vector_name).is_some_and(has_ret) {
                r.outcome = "bodiless".into();
                r.detail = match &fallback {
                    Some(why) => format!("fallback: {}", normalize(why)),
                    None => "vectorized".into(),
                };
                r.message = fallback.unwrap_or_default();
                false
            } else {
                match fallback {
                    Some(why) => {
                        r.outcome = "fallback".into();
                        r.detail = normalize(&why);
                        r.message = why;
                    }
                    None => r.outcome = "vectorized".into(),
                }
                true
            }
        }
    };
    if ok {
        if !host_has(isa) {
            r.oracle = "not-checked".into();
            r.oracle_detail = format!("this host cannot run {} clones", isa_name(isa));
        } else {
            phase(&r);
            let cfg = CheckConfig { trials, ..CheckConfig::default() };
            let checked = catch_unwind(AssertUnwindSafe(|| {
                // Callers optimised at -O2 must still see the clone's memory
                // effects (a copied `memory(argmem: ...)` fails here).
                let opts = OracleOptions {
                    optimized_caller: true,
                    timeout_secs: 3,
                    skip_poison_inputs: true,
                    ..OracleOptions::default()
                };
                Oracle::with_options(&module, std::slice::from_ref(&spec), &opts).and_then(|o| o.check_all(&cfg))
            }));
            match checked {
                Ok(Ok(stats)) => {
                    r.oracle = "ok".into();
                    r.lanes = stats.lanes_compared as u64;
                }
                Ok(Err(OracleError::Mismatch(mm))) => {
                    r.oracle = "mismatch".into();
                    r.oracle_detail = mm.to_string();
                }
                Ok(Err(OracleError::Setup(s))) => {
                    r.oracle = "not-checked".into();
                    r.oracle_detail = normalize(&s);
                }
                Err(p) => {
                    r.oracle = "panic".into();
                    r.oracle_detail = normalize(&panic_text(p.as_ref()));
                }
            }
        }
    }
    r.ms = start.elapsed().as_millis() as u64;
    r
}

// ---------------------------------------------------------------------------
// The child process
// ---------------------------------------------------------------------------

/// What one child process runs.
#[derive(Debug, Clone, Default)]
pub struct ChildArgs {
    /// The module (bitcode).
    pub module: PathBuf,
    /// Code base name.
    pub codebase: String,
    /// Build level name.
    pub level: String,
    /// First function index.
    pub from: usize,
    /// One past the last function index.
    pub to: usize,
    /// First variant of the first function.
    pub start_variant: usize,
    /// Where to write each function's cut-out module.
    pub fns_dir: Option<PathBuf>,
    /// Only this function.
    pub function: Option<String>,
    /// Only this variant (clone name).
    pub variant: Option<String>,
    /// Oracle trials.
    pub trials: usize,
    /// Print readable lines instead of the protocol.
    pub human: bool,
}

fn emit(line: &str) {
    let out = std::io::stdout();
    let mut lock = out.lock();
    let _ = writeln!(lock, "{line}");
    let _ = lock.flush();
}

/// Runs the functions `from..to` of one module, printing the protocol
/// (`S`, `R`, `D` lines) on stdout. Returns the number of failed runs.
pub fn run_child(a: &ChildArgs) -> Result<usize, String> {
    let bytes = std::fs::read(&a.module).map_err(|e| format!("cannot read {}: {e}", a.module.display()))?;
    let ctx = Context::create();
    let module = parse_module(&ctx, &bytes, "sweep")?;
    let fns = defined_functions(&module);
    let to = a.to.min(fns.len());
    let mut failures = 0;
    for (i, (name, nparams)) in fns.iter().enumerate().take(to).skip(a.from) {
        if a.function.as_ref().is_some_and(|f| f != name) {
            continue;
        }
        let cut = cut_out(&module, name);
        let mut base = Record {
            codebase: a.codebase.clone(),
            level: a.level.clone(),
            module: a.module.display().to_string(),
            fn_index: i,
            function: name.clone(),
            ..Record::default()
        };
        let bytes = match cut {
            Ok(b) => b,
            Err(e) => {
                // Run on the whole module instead.
                if !a.human {
                    emit(&format!("W\t{}", esc(&format!("{name}: {e}"))));
                }
                bytes.clone()
            }
        };
        if let Some(dir) = &a.fns_dir {
            let path = dir.join(format!("{i}.bc"));
            if std::fs::write(&path, &bytes).is_ok() {
                base.fn_module = path.display().to_string();
            }
        }
        for (v, &(isa, width, masked)) in VARIANTS.iter().enumerate() {
            if i == a.from && v < a.start_variant {
                continue;
            }
            let vname = CloneSpec::all_varying(name, *nparams, width, isa, masked).vector_name;
            if a.variant.as_ref().is_some_and(|want| *want != vname) {
                continue;
            }
            if !a.human {
                let pre = Record {
                    variant: vname.clone(),
                    isa: isa_name(isa).into(),
                    width,
                    masked,
                    oracle: "n/a".into(),
                    ..base.clone()
                };
                emit(&format!("S\t{i}\t{v}\tbatchify\t{}", pre.encode()));
            }
            let human = a.human;
            let mut phase = |r: &Record| {
                if !human {
                    emit(&format!("S\t{i}\t{v}\toracle\t{}", r.encode()));
                }
            };
            let r = run_one(&bytes, &base, name, *nparams, v, a.trials, &mut phase);
            if r.failure().is_some() {
                failures += 1;
            }
            if a.human {
                let what = if r.detail.is_empty() { String::new() } else { format!(" ({})", r.detail) };
                let oracle = if r.oracle_detail.is_empty() {
                    r.oracle.clone()
                } else {
                    format!("{}: {}", r.oracle, r.oracle_detail)
                };
                println!(
                    "{} -> {}: {}{what}; oracle {oracle}; {} lanes; {} ms",
                    r.function, r.variant, r.outcome, r.lanes, r.ms
                );
                if !r.message.is_empty() && r.message != r.detail {
                    println!("  message: {}", r.message);
                }
            } else {
                emit(&format!("R\t{}", r.encode()));
            }
        }
    }
    if !a.human {
        emit("D");
    }
    Ok(failures)
}

// ---------------------------------------------------------------------------
// The parent
// ---------------------------------------------------------------------------

/// One module to sweep.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Input {
    /// Code base, e.g. `zlib`.
    pub codebase: String,
    /// Build level, e.g. `O2`.
    pub level: String,
    /// Bitcode file.
    pub path: PathBuf,
}

/// How the parent runs the children.
#[derive(Debug, Clone)]
pub struct SweepConfig {
    /// The `batchify-sweep` executable (re-executed with `--one`).
    pub exe: PathBuf,
    /// Output folder (`fns/` goes there).
    pub out: PathBuf,
    /// Children at once.
    pub jobs: usize,
    /// Oracle trials per run.
    pub trials: usize,
    /// Functions per child.
    pub chunk: usize,
    /// Limit for batchify on one variant.
    pub batchify_timeout: Duration,
    /// Limit for the oracle on one variant.
    pub oracle_timeout: Duration,
    /// Print a line per finished slice.
    pub progress: bool,
}

struct Unit {
    input: Input,
    from: usize,
    to: usize,
    names: Vec<String>,
}

/// Number of defined functions and their names, read in this process.
pub fn list_functions(path: &Path) -> Result<Vec<String>, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let ctx = Context::create();
    let module = parse_module(&ctx, &bytes, "list")?;
    Ok(defined_functions(&module).into_iter().map(|(n, _)| n).collect())
}

fn module_id(input: &Input) -> String {
    let stem = input.path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let level: String = input.level.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect();
    format!("{}/{}/{}", input.codebase, level, stem)
}

fn after(i: usize, v: usize) -> (usize, usize) {
    if v + 1 < VARIANTS.len() {
        (i, v + 1)
    } else {
        (i + 1, 0)
    }
}

fn crash_reason(status: Option<std::process::ExitStatus>, stderr: &[String]) -> String {
    let interesting = stderr.iter().rev().find(|l| {
        l.contains("LLVM ERROR")
            || l.contains("Assertion")
            || l.contains("panicked")
            || l.contains("error:")
            || l.contains("Error")
    });
    let how = match status {
        Some(s) => {
            #[cfg(unix)]
            {
                use std::os::unix::process::ExitStatusExt;
                match (s.code(), s.signal()) {
                    (_, Some(sig)) => format!("killed by signal {sig}"),
                    (Some(c), _) => format!("exit status {c}"),
                    _ => "unknown exit".to_string(),
                }
            }
            #[cfg(not(unix))]
            {
                format!("{s}")
            }
        }
        None => "no exit status".into(),
    };
    match interesting {
        Some(l) => format!("{}: {how}", l.trim()),
        None => how,
    }
}

/// Collected records, also appended to `runs.partial.jsonl` as they come.
struct Sink {
    records: Mutex<Vec<Record>>,
    live: Option<Mutex<std::fs::File>>,
}

impl Sink {
    fn push(&self, r: Record) {
        if let Some(f) = &self.live {
            let _ = writeln!(lock(f), "{}", r.json());
        }
        lock(&self.records).push(r);
    }
    fn len(&self) -> usize {
        lock(&self.records).len()
    }
}

fn run_unit(unit: &Unit, cfg: &SweepConfig, sink: &Sink, warnings: &Mutex<Vec<String>>) {
    let absolute = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    let fns_dir = absolute(&cfg.out.join("fns").join(module_id(&unit.input)));
    let _ = std::fs::create_dir_all(&fns_dir);
    // Functions called with random arguments may create files (zlib's
    // `gzopen` with a random name): they land in a scratch folder, not in
    // the folder the sweep was started from.
    let scratch = absolute(&cfg.out.join("scratch"));
    let _ = std::fs::create_dir_all(&scratch);
    let mut next = (unit.from, 0usize);
    while next.0 < unit.to {
        let mut cmd = Command::new(&cfg.exe);
        cmd.current_dir(&scratch)
            .arg("--one")
            .arg(absolute(&unit.input.path))
            .args(["--codebase", &unit.input.codebase, "--level", &unit.input.level])
            .args(["--from", &next.0.to_string(), "--to", &unit.to.to_string()])
            .args(["--start-variant", &next.1.to_string(), "--trials", &cfg.trials.to_string()])
            .arg("--fns-dir")
            .arg(&fns_dir)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = match cmd.spawn() {
            Ok(c) => c,
            Err(e) => {
                lock(warnings).push(format!("cannot start {}: {e}", cfg.exe.display()));
                return;
            }
        };
        let (tx, rx) = mpsc::channel::<String>();
        let stdout = child.stdout.take().expect("piped");
        let reader = std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let tail: Arc<Mutex<VecDeque<String>>> = Arc::new(Mutex::new(VecDeque::new()));
        let stderr = child.stderr.take().expect("piped");
        let tail2 = Arc::clone(&tail);
        let err_reader = std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                let mut t = lock(&tail2);
                t.push_back(line);
                if t.len() > 40 {
                    t.pop_front();
                }
            }
        });
        // (index, variant, phase, record so far, started)
        let mut current: Option<(usize, usize, String, Record, Instant)> = None;
        let mut idle_since = Instant::now();
        let mut done = false;
        let mut killed: Option<&'static str> = None;
        loop {
            let limit = match &current {
                Some((_, _, phase, _, t)) => {
                    let lim = if phase == "oracle" { cfg.oracle_timeout } else { cfg.batchify_timeout };
                    lim.saturating_sub(t.elapsed())
                }
                None => Duration::from_secs(300).saturating_sub(idle_since.elapsed()),
            };
            match rx.recv_timeout(limit) {
                Ok(line) => {
                    let mut parts = line.splitn(2, '\t');
                    let tag = parts.next().unwrap_or("");
                    let rest = parts.next().unwrap_or("");
                    match tag {
                        "S" => {
                            let f: Vec<&str> = rest.splitn(4, '\t').collect();
                            if f.len() == 4 {
                                if let (Ok(i), Ok(v), Some(rec)) = (f[0].parse(), f[1].parse(), Record::decode(f[3])) {
                                    current = Some((i, v, f[2].to_string(), rec, Instant::now()));
                                }
                            }
                        }
                        "R" => {
                            if let Some(rec) = Record::decode(rest) {
                                next = after(
                                    rec.fn_index,
                                    VARIANTS
                                        .iter()
                                        .position(|&(isa, w, m)| {
                                            isa_name(isa) == rec.isa && w == rec.width && m == rec.masked
                                        })
                                        .unwrap_or(3),
                                );
                                sink.push(rec);
                            }
                            current = None;
                            idle_since = Instant::now();
                        }
                        "W" => lock(warnings).push(format!("{}: {}", unit.input.path.display(), unesc(rest))),
                        "D" => done = true,
                        _ => {}
                    }
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    let _ = child.kill();
                    killed = Some("timeout");
                    break;
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            }
        }
        let status = child.wait().ok();
        let _ = reader.join();
        let _ = err_reader.join();
        if done {
            return;
        }
        let stderr: Vec<String> = lock(&tail).iter().cloned().collect();
        match current {
            Some((i, v, phase, mut rec, started)) => {
                if phase == "batchify" {
                    if killed.is_some() {
                        rec.outcome = "timeout".into();
                        rec.detail = format!("batchify ran longer than {} s", cfg.batchify_timeout.as_secs());
                    } else {
                        rec.outcome = "crash".into();
                        rec.message = crash_reason(status, &stderr);
                        rec.detail = normalize(&rec.message);
                    }
                } else if killed.is_some() {
                    rec.oracle = "timeout".into();
                    rec.oracle_detail =
                        format!("scalar runs or clone ran longer than {} s", cfg.oracle_timeout.as_secs());
                } else {
                    rec.oracle = "crash".into();
                    rec.oracle_detail = normalize(&crash_reason(status, &stderr));
                }
                rec.ms = started.elapsed().as_millis() as u64;
                sink.push(rec);
                next = after(i, v);
            }
            None => {
                // Died while loading or cutting out a function: skip that function.
                let name = unit.names.get(next.0 - unit.from).cloned().unwrap_or_default();
                let why = if killed.is_some() { "timeout".to_string() } else { crash_reason(status, &stderr) };
                lock(warnings).push(format!(
                    "{} function #{} `{name}`: the child died before batching it ({why}); skipped",
                    unit.input.path.display(),
                    next.0
                ));
                next = (next.0 + 1, 0);
            }
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Runs every function of every input; returns the records (in input
/// order) and warnings.
pub fn run_sweep(inputs: &[Input], cfg: &SweepConfig) -> Result<(Vec<Record>, Vec<String>), String> {
    let mut units = Vec::new();
    let mut total_fns = 0;
    for input in inputs {
        let names = list_functions(&input.path)?;
        total_fns += names.len();
        let mut from = 0;
        while from < names.len() {
            let to = (from + cfg.chunk.max(1)).min(names.len());
            units.push(Unit { input: input.clone(), from, to, names: names[from..to].to_vec() });
            from = to;
        }
    }
    if cfg.progress {
        println!(
            "sweep: {} modules, {total_fns} function definitions, {} runs in {} slices, {} jobs",
            inputs.len(),
            total_fns * VARIANTS.len(),
            units.len(),
            cfg.jobs
        );
    }
    let _ = std::fs::create_dir_all(&cfg.out);
    let live = std::fs::File::create(cfg.out.join("runs.partial.jsonl")).ok().map(Mutex::new);
    let sink = Sink { records: Mutex::new(Vec::new()), live };
    let warnings = Mutex::new(Vec::new());
    let next_unit = Mutex::new(0usize);
    let finished = Mutex::new(0usize);
    let start = Instant::now();
    std::thread::scope(|s| {
        for _ in 0..cfg.jobs.max(1) {
            s.spawn(|| loop {
                let idx = {
                    let mut n = lock(&next_unit);
                    let i = *n;
                    *n += 1;
                    i
                };
                let Some(unit) = units.get(idx) else { break };
                run_unit(unit, cfg, &sink, &warnings);
                let done = {
                    let mut f = lock(&finished);
                    *f += 1;
                    *f
                };
                if cfg.progress {
                    let runs = sink.len();
                    println!(
                        "  [{done}/{}] {} {} #{}..{}: {runs} runs so far ({:.0} s)",
                        units.len(),
                        unit.input.codebase,
                        unit.input.path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default(),
                        unit.from,
                        unit.to,
                        start.elapsed().as_secs_f64()
                    );
                }
            });
        }
    });
    let mut records = sink.records.into_inner().unwrap_or_else(|e| e.into_inner());
    let _ = std::fs::remove_file(cfg.out.join("runs.partial.jsonl"));
    let order: BTreeMap<&Path, usize> = inputs.iter().enumerate().map(|(i, x)| (x.path.as_path(), i)).collect();
    records.sort_by_key(|r| {
        let v = VARIANTS.iter().position(|&(isa, w, m)| isa_name(isa) == r.isa && w == r.width && m == r.masked);
        (order.get(Path::new(&r.module)).copied().unwrap_or(usize::MAX), r.fn_index, v)
    });
    Ok((records, warnings.into_inner().unwrap_or_else(|e| e.into_inner())))
}

// ---------------------------------------------------------------------------
// Report
// ---------------------------------------------------------------------------

#[derive(Default)]
struct Tally {
    functions: BTreeSet<(String, String)>,
    builds: BTreeSet<(String, String, String)>,
    runs: usize,
    outcome: BTreeMap<String, usize>,
    oracle: BTreeMap<String, usize>,
    lanes: u64,
}

impl Tally {
    fn add(&mut self, r: &Record) {
        self.functions.insert((r.codebase.clone(), r.function.clone()));
        self.builds.insert((r.codebase.clone(), r.level.clone(), r.function.clone()));
        self.runs += 1;
        *self.outcome.entry(r.outcome.clone()).or_default() += 1;
        *self.oracle.entry(r.oracle.clone()).or_default() += 1;
        self.lanes += r.lanes;
    }
    fn o(&self, k: &str) -> usize {
        self.outcome.get(k).copied().unwrap_or(0)
    }
    fn c(&self, k: &str) -> usize {
        self.oracle.get(k).copied().unwrap_or(0)
    }
    fn row(&self, label: &str) -> String {
        format!(
            "| {label} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            self.functions.len(),
            self.builds.len(),
            self.runs,
            self.o("vectorized"),
            self.o("fallback"),
            self.o("rejected"),
            self.o("internal"),
            self.o("panic"),
            self.o("crash"),
            self.o("invalid-ir"),
            self.o("bodiless"),
            self.o("timeout"),
            self.c("ok"),
            self.c("mismatch"),
            self.c("not-checked"),
            self.c("timeout") + self.c("crash") + self.c("panic"),
            self.lanes
        )
    }
}

fn top(records: &[Record], filter: impl Fn(&Record) -> Option<String>, n: usize) -> Vec<(String, usize, String)> {
    let mut m: BTreeMap<String, (usize, String)> = BTreeMap::new();
    for r in records {
        if let Some(k) = filter(r) {
            let e = m.entry(k).or_insert((0, format!("{} `{}`", r.codebase, r.function)));
            e.0 += 1;
        }
    }
    let mut v: Vec<(String, usize, String)> = m.into_iter().map(|(k, (c, ex))| (k, c, ex)).collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    v.truncate(n);
    v
}

/// Provenance lines for the report (code bases, versions, commands).
pub type Provenance = Vec<String>;

/// The markdown report.
pub fn report(
    records: &[Record],
    provenance: &[String],
    command: &str,
    elapsed: Duration,
    exe: &str,
    warnings: &[String],
) -> String {
    let mut s = String::new();
    s.push_str("# batchify real-code sweep\n\n");
    s.push_str(&format!(
        "Command: `{command}`  \nFinished: {} (UTC), {:.0} s wall clock.\n\n",
        utc_now(),
        elapsed.as_secs_f64()
    ));
    if !provenance.is_empty() {
        s.push_str("Code bases:\n\n");
        for p in provenance {
            s.push_str(&format!("* {p}\n"));
        }
        s.push('\n');
    }
    s.push_str(
        "Every defined function, four variants each: AVX2 ×8 and AVX-512 ×16, unmasked and masked, \
         every parameter varying (`--function`), `-O2`, fallback allowed.\n\n",
    );
    s.push_str(
        "| code base / level | functions | builds | runs | vectorized | fallback | rejected | internal | panic | \
         crash | invalid IR | bodiless | timeout | oracle ok | mismatch | not checked | oracle timeout/crash | lanes |\n",
    );
    s.push_str(&format!("|{}\n", " --- |".repeat(18)));
    let mut per_cb: BTreeMap<String, Tally> = BTreeMap::new();
    let mut per_level: BTreeMap<(String, String), Tally> = BTreeMap::new();
    let mut total = Tally::default();
    let mut cb_order: Vec<String> = Vec::new();
    for r in records {
        if !cb_order.contains(&r.codebase) {
            cb_order.push(r.codebase.clone());
        }
        per_cb.entry(r.codebase.clone()).or_default().add(r);
        per_level.entry((r.codebase.clone(), r.level.clone())).or_default().add(r);
        total.add(r);
    }
    for cb in &cb_order {
        let levels: Vec<&(String, String)> = per_level.keys().filter(|(c, _)| c == cb).collect();
        if levels.len() > 1 {
            for key in levels {
                s.push_str(&per_level[key].row(&format!("{} {}", key.0, key.1)));
                s.push('\n');
            }
        }
        s.push_str(&per_cb[cb].row(&format!("**{cb}**")));
        s.push('\n');
    }
    s.push_str(&total.row("**total**"));
    s.push_str("\n\n");
    s.push_str(
        "*functions*: distinct names per code base; *builds*: (level, function) pairs; *runs*: builds × 4 variants. \
         *rejected*: a clear error instead of a clone; *bodiless*: the scalar function returns but the clone has no \
         `ret`; *timeout*: batchify itself hung. Oracle columns count runs that produced a clone.\n\n",
    );
    type Section = (&'static str, Box<dyn Fn(&Record) -> Option<String>>);
    let sections: [Section; 5] = [
        ("Fallback reasons", Box::new(|r: &Record| (r.outcome == "fallback").then(|| r.detail.clone()))),
        ("Rejections (clear errors)", Box::new(|r: &Record| (r.outcome == "rejected").then(|| r.detail.clone()))),
        (
            "Failures by kind",
            Box::new(|r: &Record| {
                r.failure().map(|f| {
                    format!(
                        "{f}: {}",
                        if r.oracle == "mismatch" && r.outcome != "bodiless" {
                            "lane differs".to_string()
                        } else {
                            r.detail.clone()
                        }
                    )
                })
            }),
        ),
        ("Oracle: not checked", Box::new(|r: &Record| (r.oracle == "not-checked").then(|| r.oracle_detail.clone()))),
        (
            "Oracle: timeouts, crashes, panics (scalar or clone: not counted as failures)",
            Box::new(|r: &Record| {
                matches!(r.oracle.as_str(), "timeout" | "crash" | "panic")
                    .then(|| format!("{}: {}", r.oracle, r.oracle_detail))
            }),
        ),
    ];
    for (title, f) in sections.iter() {
        let rows = top(records, f, 25);
        if rows.is_empty() {
            continue;
        }
        s.push_str(&format!("## {title}\n\n| runs | reason | e.g. |\n| ---: | --- | --- |\n"));
        for (k, c, ex) in rows {
            s.push_str(&format!("| {c} | {} | {} |\n", k.replace('|', "\\|"), ex.replace('|', "\\|")));
        }
        s.push('\n');
    }
    let failures: Vec<&Record> = records.iter().filter(|r| r.failure().is_some()).collect();
    s.push_str(&format!("## Failures ({})\n\n", failures.len()));
    if failures.is_empty() {
        s.push_str("None.\n\n");
    }
    for r in failures.iter().take(400) {
        let msg = if r.oracle == "mismatch" {
            r.oracle_detail.clone()
        } else {
            r.message.lines().next().unwrap_or("").to_string()
        };
        let msg: String = msg.chars().take(300).collect();
        s.push_str(&format!(
            "* **{}** {} {} `{}` → `{}`: {}  \n  `{}`\n",
            r.failure().unwrap_or(""),
            r.codebase,
            r.level,
            r.function,
            r.variant,
            msg.replace('`', "'"),
            r.repro(exe)
        ));
    }
    if failures.len() > 400 {
        s.push_str(&format!("* … {} more in runs.jsonl\n", failures.len() - 400));
    }
    if !warnings.is_empty() {
        s.push_str(&format!("\n## Warnings ({})\n\n", warnings.len()));
        for w in warnings.iter().take(50) {
            s.push_str(&format!("* {w}\n"));
        }
    }
    s
}

/// The summary of failures: (category, count).
pub fn failure_counts(records: &[Record]) -> BTreeMap<&'static str, usize> {
    let mut m = BTreeMap::new();
    for r in records {
        if let Some(f) = r.failure() {
            *m.entry(f).or_default() += 1;
        }
    }
    m
}

/// Writes `report.md` and `runs.jsonl` into `out`.
pub fn write_outputs(out: &Path, records: &[Record], report_md: &str) -> Result<(), String> {
    std::fs::create_dir_all(out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    let mut jsonl = String::new();
    for r in records {
        jsonl.push_str(&r.json());
        jsonl.push('\n');
    }
    std::fs::write(out.join("runs.jsonl"), jsonl).map_err(|e| e.to_string())?;
    std::fs::write(out.join("report.md"), report_md).map_err(|e| e.to_string())
}

/// Current UTC time as `YYYY-MM-DD HH:MM`.
pub fn utc_now() -> String {
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
    let days = (secs / 86400) as i64;
    let (h, m) = ((secs % 86400) / 3600, (secs % 3600) / 60);
    // Civil from days (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let mo = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = if mo <= 2 { y + 1 } else { y };
    format!("{y:04}-{mo:02}-{d:02} {h:02}:{m:02}")
}

// ---------------------------------------------------------------------------
// Inputs: fetching and building the code bases
// ---------------------------------------------------------------------------

/// What to build.
#[derive(Debug, Clone)]
pub struct InputConfig {
    /// `target/sweep`.
    pub out: PathBuf,
    /// `tools/sweep` (the pinned manifests).
    pub tools: PathBuf,
    /// The bounded subset: zlib at -O2 and small Rust crates at opt-level 2.
    pub quick: bool,
    /// Parallel compiler processes.
    pub jobs: usize,
    /// Only these code bases (empty: all).
    pub only: Vec<String>,
}

/// `NAME` in the LLVM prefix's `bin` (`tools/llvm-prefix.sh` decides the
/// prefix), else on `PATH`.
fn llvm_tool(name: &str) -> PathBuf {
    batchify_llvm_link::llvm_tool(name)
}

fn run_cmd(cmd: &mut Command, what: &str) -> Result<String, String> {
    let out = cmd.output().map_err(|e| format!("{what}: cannot run {:?}: {e}", cmd.get_program()))?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        let tail: Vec<&str> = err.lines().rev().take(12).collect();
        return Err(format!(
            "{what} failed ({}):\n{}",
            out.status,
            tail.into_iter().rev().collect::<Vec<_>>().join("\n")
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

fn cargo() -> Command {
    Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
}

/// Copies `tools/sweep/<manifest>` into `dir/Cargo.toml` and fetches it.
fn fetch_project(cfg: &InputConfig, manifest: &str, dir: &Path) -> Result<(), String> {
    std::fs::create_dir_all(dir.join("src")).map_err(|e| e.to_string())?;
    let text = std::fs::read_to_string(cfg.tools.join(manifest))
        .map_err(|e| format!("cannot read tools/sweep/{manifest}: {e}"))?;
    let target = dir.join("Cargo.toml");
    if std::fs::read_to_string(&target).ok().as_deref() != Some(text.as_str()) {
        std::fs::write(&target, text).map_err(|e| e.to_string())?;
    }
    if !dir.join("src/lib.rs").exists() {
        std::fs::write(dir.join("src/lib.rs"), "").map_err(|e| e.to_string())?;
    }
    let online = run_cmd(cargo().arg("fetch").arg("--manifest-path").arg(&target), "cargo fetch");
    if let Err(e) = online {
        run_cmd(cargo().args(["fetch", "--offline", "--manifest-path"]).arg(&target), "cargo fetch --offline")
            .map_err(|_| {
                format!(
                "the sweep needs its source crates from crates.io and cannot fetch them (offline, and they are not in \
                 cargo's cache): {e}"
            )
            })?;
    }
    Ok(())
}

/// `name -> (version, source dir)` of the packages of a fetched project.
fn package_dirs(dir: &Path) -> Result<BTreeMap<String, (String, PathBuf)>, String> {
    let json = run_cmd(
        cargo().args(["metadata", "--format-version", "1", "--offline", "--manifest-path"]).arg(dir.join("Cargo.toml")),
        "cargo metadata",
    )?;
    let mut out = BTreeMap::new();
    for piece in json.split("\"manifest_path\":\"").skip(1) {
        let Some(end) = piece.find('"') else { continue };
        let path = PathBuf::from(piece[..end].replace("\\\\", "\\"));
        let Some(pkg_dir) = path.parent() else { continue };
        let dname = pkg_dir.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        // `<name>-<version>`: the version starts at the first `-` followed by a digit
        // (`lz4-sys-1.11.1+lz4-1.10.0`).
        let split =
            dname.char_indices().find(|&(i, c)| c == '-' && dname[i + 1..].starts_with(|d: char| d.is_ascii_digit()));
        if let Some((i, _)) = split {
            out.insert(dname[..i].to_string(), (dname[i + 1..].to_string(), pkg_dir.to_path_buf()));
        }
    }
    Ok(out)
}

struct CJob {
    src: PathBuf,
    out: PathBuf,
    flags: Vec<String>,
    o0: bool,
}

fn compile_c(job: &CJob) -> Result<(), String> {
    if job.out.exists() {
        return Ok(());
    }
    let tmp = job.out.with_extension("tmp.bc");
    let mut clang = Command::new(llvm_tool("clang-22"));
    clang.args(["-c", "-emit-llvm", "-w", "-g0"]).args(&job.flags);
    if job.o0 {
        clang.args(["-O0", "-Xclang", "-disable-O0-optnone"]);
    } else {
        clang.arg("-O2");
    }
    clang.arg(&job.src).arg("-o").arg(&tmp);
    run_cmd(&mut clang, &format!("clang-22 {}", job.src.display()))?;
    if job.o0 {
        run_cmd(
            Command::new(llvm_tool("opt-22")).args(["-passes=mem2reg", "-o"]).arg(&job.out).arg(&tmp),
            "opt-22 -passes=mem2reg",
        )?;
        let _ = std::fs::remove_file(&tmp);
    } else {
        std::fs::rename(&tmp, &job.out).map_err(|e| e.to_string())?;
    }
    Ok(())
}

fn parallel<T: Sync, R: Send>(items: &[T], jobs: usize, f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let next = Mutex::new(0usize);
    let results: Mutex<Vec<(usize, R)>> = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..jobs.max(1) {
            s.spawn(|| loop {
                let i = {
                    let mut n = lock(&next);
                    let i = *n;
                    *n += 1;
                    i
                };
                let Some(item) = items.get(i) else { break };
                let r = f(item);
                lock(&results).push((i, r));
            });
        }
    });
    let mut v = results.into_inner().unwrap_or_else(|e| e.into_inner());
    v.sort_by_key(|(i, _)| *i);
    v.into_iter().map(|(_, r)| r).collect()
}

fn c_files(dir: &Path, names: Option<&[&str]>) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = match std::fs::read_dir(dir) {
        Ok(rd) => {
            rd.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.extension().is_some_and(|x| x == "c")).collect()
        }
        Err(_) => Vec::new(),
    };
    if let Some(names) = names {
        v.retain(|p| p.file_stem().is_some_and(|s| names.contains(&s.to_string_lossy().as_ref())));
    }
    v.sort();
    v
}

/// A C code base: sources, flags.
struct CBase {
    name: &'static str,
    files: Vec<PathBuf>,
    flags: Vec<String>,
    /// Support code linked into each module, not swept (see [`SHIM_SECTION`]).
    shims: Vec<PathBuf>,
}

fn build_c(
    cfg: &InputConfig,
    base: &CBase,
    levels: &[&str],
    inputs: &mut Vec<Input>,
    notes: &mut Vec<String>,
) -> Result<usize, String> {
    let mut jobs = Vec::new();
    for level in levels {
        let dir = cfg.out.join("bc").join(base.name).join(if *level == "O2" { "O2" } else { "O0" });
        std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
        for f in &base.files {
            let stem = f.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
            // newlib has math/ and common/ files; keep the folder in the name.
            let parent =
                f.parent().and_then(|p| p.file_name()).map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
            jobs.push((
                level.to_string(),
                CJob {
                    src: f.clone(),
                    out: dir.join(format!("{parent}_{stem}.bc")),
                    flags: base.flags.clone(),
                    o0: *level != "O2",
                },
            ));
        }
    }
    let results = parallel(&jobs, cfg.jobs, |(_, j)| compile_c(j));
    let mut failed = 0;
    let mut built: BTreeMap<String, Vec<PathBuf>> = BTreeMap::new();
    for ((level, job), r) in jobs.iter().zip(results) {
        match r {
            Ok(()) => built.entry(level.clone()).or_default().push(job.out.clone()),
            Err(e) => {
                failed += 1;
                if failed <= 3 {
                    notes.push(format!(
                        "{}: {} does not compile, skipped: {}",
                        base.name,
                        job.src.display(),
                        e.lines().find(|l| l.contains("error:")).unwrap_or("").trim()
                    ));
                }
            }
        }
    }
    if failed > 3 {
        notes.push(format!("{}: {} more files do not compile", base.name, failed - 3));
    }
    // One module per level, as LTO would see it: calls between files resolve,
    // so the oracle can run functions that call into other files.
    for level in levels {
        let Some(files) = built.get(*level) else { continue };
        let dir = cfg.out.join("bc").join(base.name);
        let linked = dir.join(format!("{}-{}.bc", base.name, if *level == "O2" { "O2" } else { "O0" }));
        let link = if linked.exists() {
            Ok(String::new())
        } else {
            let tmp = linked.with_extension("tmp.bc");
            let mut shims = Vec::new();
            for shim in &base.shims {
                let out =
                    dir.join(format!("shim-{}.bc", shim.file_stem().map(|s| s.to_string_lossy()).unwrap_or_default()));
                compile_c(&CJob { src: shim.clone(), out: out.clone(), flags: Vec::new(), o0: false })?;
                shims.push(out);
            }
            run_cmd(
                Command::new(llvm_tool("llvm-link-22")).arg("-o").arg(&tmp).args(files).args(&shims),
                "llvm-link-22",
            )
            .and_then(|o| std::fs::rename(&tmp, &linked).map(|_| o).map_err(|e| e.to_string()))
        };
        match link {
            Ok(_) => inputs.push(Input { codebase: base.name.into(), level: level.to_string(), path: linked }),
            Err(e) => {
                notes.push(format!(
                    "{} {level}: llvm-link-22 failed, one module per file: {}",
                    base.name,
                    e.lines().nth(1).unwrap_or("")
                ));
                for f in files {
                    inputs.push(Input { codebase: base.name.into(), level: level.to_string(), path: f.clone() });
                }
            }
        }
    }
    Ok(built.values().map(Vec::len).max().unwrap_or(0))
}

fn newlib_sources(cfg: &InputConfig) -> Result<(PathBuf, String), String> {
    let dl = cfg.out.join("downloads");
    std::fs::create_dir_all(&dl).map_err(|e| e.to_string())?;
    let find_deb = || -> Option<PathBuf> {
        std::fs::read_dir(&dl).ok()?.filter_map(|e| e.ok().map(|e| e.path())).find(|p| {
            let n = p.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
            n.starts_with("newlib-source_") && n.ends_with(".deb")
        })
    };
    if find_deb().is_none() {
        run_cmd(
            Command::new("apt-get").args(["download", "newlib-source"]).current_dir(&dl),
            "apt-get download newlib-source",
        )
        .map_err(|e| {
            format!("the newlib code base needs Debian's newlib-source package (apt-get download newlib-source): {e}")
        })?;
    }
    let deb = find_deb().ok_or("apt-get download newlib-source left no .deb")?;
    let version = deb.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let version = version.trim_start_matches("newlib-source_").trim_end_matches("_all.deb").to_string();
    let src = cfg.out.join("src").join("newlib");
    let marker = src.join(".extracted");
    if !marker.exists() {
        let _ = std::fs::remove_dir_all(&src);
        std::fs::create_dir_all(&src).map_err(|e| e.to_string())?;
        let deb_dir = src.join("deb");
        run_cmd(Command::new("dpkg-deb").arg("-x").arg(&deb).arg(&deb_dir), "dpkg-deb -x")?;
        let tarball = walk_find(&deb_dir, |p| p.to_string_lossy().ends_with(".tar.xz"))
            .ok_or("no newlib tarball in newlib-source")?;
        run_cmd(
            Command::new("tar").arg("xJf").arg(&tarball).arg("-C").arg(&src).args([
                "--wildcards",
                "*/newlib/libm/math/*",
                "*/newlib/libm/common/*",
                "*/newlib/libc/include/*",
            ]),
            "tar xJf newlib",
        )?;
        let _ = std::fs::remove_dir_all(&deb_dir);
        std::fs::write(&marker, "").map_err(|e| e.to_string())?;
    }
    let libm =
        walk_find(&src, |p| p.ends_with("newlib/libm") && p.is_dir()).ok_or("no newlib/libm in the newlib tarball")?;
    Ok((libm, version))
}

fn walk_find(dir: &Path, pred: impl Fn(&Path) -> bool + Copy) -> Option<PathBuf> {
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else { continue };
        let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
        entries.sort();
        for p in entries {
            if pred(&p) {
                return Some(p);
            }
            if p.is_dir() {
                stack.push(p);
            }
        }
    }
    None
}

/// Rust crates built at opt-level 2 only: regex-syntax has 2,908 functions
/// at opt-level 0 (mostly monomorphised `core`/`alloc` helpers), which
/// would add about 12,000 runs (close to an hour on two shared cores).
const RUST_OPT2_ONLY: &[&str] = &["regex-syntax"];

/// The Rust crates and their pinned versions, from `tools/sweep/rust-crates.toml`.
fn rust_crates(cfg: &InputConfig) -> Result<Vec<(String, String)>, String> {
    let text = std::fs::read_to_string(cfg.tools.join("rust-crates.toml")).map_err(|e| e.to_string())?;
    let mut in_deps = false;
    let mut out = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_deps = line == "[dependencies]";
            continue;
        }
        if !in_deps || line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some((name, rest)) = line.split_once('=') {
            let version: String = rest.chars().filter(|c| c.is_ascii_digit() || *c == '.').collect();
            out.push((name.trim().to_string(), version));
        }
    }
    Ok(out)
}

fn build_rust(cfg: &InputConfig, crates: &[String], opt: &str, inputs: &mut Vec<Input>) -> Result<(), String> {
    let dir = cfg.out.join("rust-crates");
    let target_dir = cfg.out.join("rust-build").join(format!("opt{opt}"));
    let triple = "x86_64-unknown-linux-gnu";
    let mut cmd = cargo();
    cmd.args(["build", "--release", "--offline", "--target", triple, "--manifest-path"])
        .arg(dir.join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", &target_dir)
        .env("CARGO_PROFILE_RELEASE_OPT_LEVEL", opt)
        .env("CARGO_PROFILE_RELEASE_CODEGEN_UNITS", "1")
        .env("CARGO_PROFILE_RELEASE_DEBUG", "0")
        .env("RUSTFLAGS", "--emit=llvm-bc,link -C codegen-units=1")
        .env_remove("RUSTC_WRAPPER")
        .env_remove("CARGO_ENCODED_RUSTFLAGS");
    for c in crates {
        cmd.args(["-p", c]);
    }
    run_cmd(&mut cmd, &format!("cargo build of the Rust crates at opt-level {opt}"))?;
    let deps = target_dir.join(triple).join("release").join("deps");
    let files: Vec<PathBuf> = std::fs::read_dir(&deps)
        .map_err(|e| format!("{}: {e}", deps.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "bc"))
        .collect();
    for c in crates {
        let prefix = format!("{}-", c.replace('-', "_"));
        let newest = files
            .iter()
            .filter(|p| p.file_name().is_some_and(|n| n.to_string_lossy().starts_with(&prefix)))
            .max_by_key(|p| p.metadata().and_then(|m| m.modified()).ok());
        let Some(bc) = newest else { return Err(format!("no bitcode for crate {c} in {}", deps.display())) };
        inputs.push(Input { codebase: format!("rust:{c}"), level: format!("opt-level={opt}"), path: bc.clone() });
    }
    Ok(())
}

/// Fetches and builds the code bases; returns the modules and provenance
/// lines (code base, version, how it was built).
pub fn prepare_inputs(cfg: &InputConfig) -> Result<(Vec<Input>, Provenance), String> {
    let want = |name: &str| cfg.only.is_empty() || cfg.only.iter().any(|o| o == name || format!("rust:{o}") == name);
    let mut inputs = Vec::new();
    let mut prov = Vec::new();
    let mut notes = Vec::new();
    let c_levels: &[&str] = if cfg.quick { &["O2"] } else { &["O2", "O0+mem2reg"] };
    let c_how = "clang-22 -O2, and clang-22 -O0 -Xclang -disable-O0-optnone + opt-22 -passes=mem2reg; \
                 llvm-link-22 into one module per level";
    let c_how = if cfg.quick { "clang-22 -O2; llvm-link-22 into one module" } else { c_how };

    let needs_c = ["zlib", "lz4"].iter().any(|n| want(n));
    if needs_c {
        let dir = cfg.out.join("fetch-c");
        fetch_project(cfg, "c-crates.toml", &dir)?;
        let pk = package_dirs(&dir)?;
        if want("zlib") {
            let (v, d) = pk.get("libz-sys").ok_or("libz-sys not among the fetched packages")?;
            let files = c_files(&d.join("src").join("zlib"), None);
            if files.is_empty() {
                return Err(format!("no zlib sources in {}", d.display()));
            }
            let zver = std::fs::read_to_string(d.join("src/zlib/zlib.h"))
                .ok()
                .and_then(|h| {
                    h.lines()
                        .find(|l| l.starts_with("#define ZLIB_VERSION"))
                        .map(|l| l.split('"').nth(1).unwrap_or("").to_string())
                })
                .unwrap_or_default();
            prov.push(format!(
                "zlib {zver} (C, the sources bundled in the crate libz-sys {v}; {} files; {c_how})",
                files.len()
            ));
            build_c(
                cfg,
                &CBase {
                    name: "zlib",
                    files,
                    flags: vec!["-DHAVE_UNISTD_H".into(), "-DHAVE_STDARG_H".into()],
                    shims: Vec::new(),
                },
                c_levels,
                &mut inputs,
                &mut notes,
            )?;
        }
        if want("lz4") && !cfg.quick {
            let (v, d) = pk.get("lz4-sys").ok_or("lz4-sys not among the fetched packages")?;
            let lib = d.join("liblz4").join("lib");
            let files = c_files(&lib, Some(&["lz4", "lz4hc", "lz4frame", "lz4file", "xxhash"]));
            prov.push(format!("lz4 (C, the sources bundled in the crate lz4-sys {v}; {} files; {c_how})", files.len()));
            build_c(
                cfg,
                &CBase { name: "lz4", files, flags: vec!["-DXXH_NAMESPACE=LZ4_".into()], shims: Vec::new() },
                c_levels,
                &mut inputs,
                &mut notes,
            )?;
        }
    }
    if want("newlib-libm") && !cfg.quick {
        let (libm, version) = newlib_sources(cfg)?;
        let mut files = c_files(&libm.join("math"), None);
        files.extend(c_files(&libm.join("common"), None));
        let include = libm.parent().map(|p| p.join("libc").join("include")).unwrap_or_default();
        let flags = vec![
            format!("-I{}", libm.join("common").display()),
            format!("-I{}", include.display()),
            "-fno-builtin".into(),
        ];
        let compiled = build_c(
            cfg,
            &CBase { name: "newlib-libm", files: files.clone(), flags, shims: vec![cfg.tools.join("newlib-shims.c")] },
            c_levels,
            &mut inputs,
            &mut notes,
        )?;
        prov.push(format!(
            "newlib-libm: newlib's libm/math and libm/common (C, fdlibm lineage like musl's; Debian package newlib-source {version}; {} of {} files compile; {c_how})",
            compiled,
            files.len()
        ));
    }
    let all_rust = rust_crates(cfg)?;
    let quick_rust = ["fastrand", "itoa", "ryu"];
    let rust: Vec<String> = all_rust
        .iter()
        .map(|(n, _)| n.clone())
        .filter(|n| want(&format!("rust:{n}")))
        .filter(|n| !cfg.quick || quick_rust.contains(&n.as_str()))
        .collect();
    if !rust.is_empty() {
        let dir = cfg.out.join("rust-crates");
        fetch_project(cfg, "rust-crates.toml", &dir)?;
        let levels: &[&str] = if cfg.quick { &["2"] } else { &["2", "0"] };
        for opt in levels {
            let crates: Vec<String> =
                rust.iter().filter(|c| *opt != "0" || !RUST_OPT2_ONLY.contains(&c.as_str())).cloned().collect();
            if !crates.is_empty() {
                build_rust(cfg, &crates, opt, &mut inputs)?;
            }
        }
        let rustc = run_cmd(Command::new("rustc").arg("--version"), "rustc --version").unwrap_or_default();
        for (n, v) in all_rust.iter().filter(|(n, _)| rust.contains(n)) {
            let at = if RUST_OPT2_ONLY.contains(&n.as_str()) { "2" } else { &levels.join(" and ") };
            prov.push(format!(
                "rust:{n} {v} (Rust, crates.io; {}; cargo build --release, RUSTFLAGS=\"--emit=llvm-bc,link -C codegen-units=1\", opt-level {at})",
                rustc.trim(),
            ));
        }
    }
    for n in notes {
        prov.push(format!("note: {n}"));
    }
    if inputs.is_empty() {
        return Err("no code base selected".into());
    }
    Ok((inputs, prov))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_round_trip() {
        let r = Record {
            codebase: "zlib".into(),
            function: "a\tb\\c\nd".into(),
            fn_index: 3,
            width: 8,
            masked: true,
            lanes: 7,
            ..Record::default()
        };
        assert_eq!(Record::decode(&r.encode()), Some(r));
    }

    #[test]
    fn cut_out_keeps_what_the_function_references() {
        let ir = r#"
@table = internal constant [2 x i32] [i32 1, i32 2]
@other = global i32 7
@llvm.used = appending global [1 x ptr] [ptr @unrelated], section "llvm.metadata"
define internal fastcc i32 @helper(i32 %x) {
  %p = getelementptr [2 x i32], ptr @table, i32 0, i32 %x
  %v = load i32, ptr %p
  ret i32 %v
}
define internal i32 @f(i32 %x) {
  %r = call fastcc i32 @helper(i32 %x)
  ret i32 %r
}
define i32 @unrelated() {
  %v = load i32, ptr @other
  ret i32 %v
}
"#;
        let ctx = Context::create();
        let m = parse_module(&ctx, ir.as_bytes(), "t").expect("parses");
        let names: Vec<String> = defined_functions(&m).into_iter().map(|(n, _)| n).collect();
        assert_eq!(names, ["helper", "f", "unrelated"]);
        let bc = cut_out(&m, "f").expect("cuts out");
        let ctx2 = Context::create();
        let cut = parse_module(&ctx2, &bc, "cut").expect("parses");
        let text = cut.print_to_string().to_string();
        assert!(text.contains("define internal i32 @f("), "{text}");
        assert!(text.contains("define internal fastcc i32 @helper("), "{text}");
        assert!(text.contains("@table = internal constant"), "{text}");
        assert!(!text.contains("@unrelated") && !text.contains("@other") && !text.contains("llvm.used"), "{text}");
    }

    #[test]
    fn normalize_groups_instructions() {
        assert_eq!(
            normalize("`  %5 = atomicrmw add ptr %p, i32 1 seq_cst, align 4` is not supported yet"),
            "`atomicrmw` is not supported yet"
        );
        assert_eq!(
            normalize("inline assembly `call void asm \"\"()` is not supported"),
            "inline assembly `call` is not supported"
        );
    }
}
