//! The child process: the runs of one slice of one module, one line per
//! phase on stdout so that the parent can tell which run crashed or hung.

use super::cut::{cut_out, defined_functions};
use super::record::{esc, Record};
use super::run::run_one;
use super::{isa_name, VARIANTS};
use crate::corpus::parse_module;
use batchify_core::CloneSpec;
use inkwell::context::Context;
use std::io::Write;
use std::path::PathBuf;

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
