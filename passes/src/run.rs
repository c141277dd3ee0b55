//! One run of the pass on one module: parse the options, run
//! `batchify_core::driver` (with `OnError::Continue`: the compiler goes
//! on), and tell the host what happened.
//!
//! Runs are independent (no global state), so rustc may run the pass on
//! several codegen units at once. A run is idempotent: variants that
//! already have a body are skipped, so the pass may run both at an
//! extension point and from `-passes=`/`-C passes=`.

use crate::diagnostics;
use crate::options::PluginOptions;
use batchify_core::driver::{self, OnError, Selection};
use batchify_core::vfabi::{Isa, VariantName};
use batchify_core::{CloneReport, CloneSpec, Options};
use inkwell::module::Module;

/// Runs the pass; returns whether the module changed.
pub fn run(module: &Module<'_>, pass_params: &str, cl_params: &str, automatic: bool) -> bool {
    let mut opts = PluginOptions::default();
    for (text, origin) in [(cl_params, "-batchify-* options"), (pass_params, "pass parameters")] {
        if let Err(e) = opts.merge(text) {
            diagnostics::warning(module, &format!("{e} (in the {origin}); nothing done"));
            return false;
        }
    }
    let _ = automatic;
    let selection = match named(module, &opts) {
        Ok(Some(specs)) => Selection::Named { specs, only_here: true },
        Ok(None) => Selection::Requested { isa: opts.isa, only_here: true },
        Err(e) => {
            diagnostics::warning(module, &e);
            return false;
        }
    };
    let core_opts = Options {
        veclib: opts.veclib.unwrap_or_default(),
        for_autodiff: opts.for_autodiff,
        instrument_lanes: opts.instrument_lanes,
        refill_groups: opts.refill_groups,
        ..Options::default()
    };
    let plan = driver::Run {
        selection,
        on_error: OnError::Continue,
        callers: !opts.no_callers,
        maps: opts.map,
        map_form: opts.map_form.unwrap_or_default(),
        bucket: opts.bucket.clone(),
    };
    let core_module = batchify_core::llvm::Module::from_inkwell(module);
    let out = match driver::run(core_module, &plan, &core_opts, &mut |_| {}) {
        Ok(out) => out,
        Err(e) => {
            diagnostics::error(module, &e.to_string());
            return true;
        }
    };
    tell(module, &opts, &out.reports);
    for (vector, e) in &out.failed {
        diagnostics::warning(module, &format!("`{vector}` was not built: {e}"));
    }
    for w in &out.warnings {
        diagnostics::warning(module, w);
    }
    for (function, kind, message) in &out.missed {
        diagnostics::missed(module, function, kind, message);
    }
    if opts.report {
        report_lines(&out.notes);
    }
    !out.nothing_asked || !opts.no_callers
}

/// The clones `function=` and `variant=` name (in that order, as the CLI
/// does), or `None` if none are named.
fn named(module: &Module<'_>, opts: &PluginOptions) -> Result<Option<Vec<CloneSpec>>, String> {
    if opts.functions.is_empty() && opts.variants.is_empty() {
        return Ok(None);
    }
    let isa = opts.isa.unwrap_or(Isa::Llvm);
    let core = batchify_core::llvm::Module::from_inkwell(module);
    let mut specs: Vec<CloneSpec> = opts
        .functions
        .iter()
        .filter_map(|name| {
            let fty = core.function(name).filter(|f| !f.is_declaration())?.function_type();
            let width = driver::function_lanes(core, fty, isa, opts.for_autodiff, opts.width);
            Some(CloneSpec::all_varying_for(name, fty, width, isa))
        })
        .collect::<batchify_core::Result<_>>()
        .map_err(|e| e.to_string())?;
    for name in &opts.variants {
        let v = VariantName::parse(name).map_err(|e| e.to_string())?;
        let spec = CloneSpec::for_variant_in(&v, batchify_core::llvm::Module::from_inkwell(module));
        specs.push(spec.map_err(|e| e.to_string())?);
    }
    Ok(Some(specs))
}

/// Remarks for every clone, and the report lines on stderr if asked for.
fn tell(module: &Module<'_>, opts: &PluginOptions, reports: &[CloneReport]) {
    for r in reports {
        let (scalar, vector) = (&r.spec.scalar_name, &r.spec.vector_name);
        match &r.fallback {
            Some(why) => diagnostics::missed(
                module,
                scalar,
                "PerLaneFallback",
                &format!("{vector} is a per-lane loop over the scalar function: {why}"),
            ),
            None => diagnostics::passed(
                module,
                scalar,
                "Batched",
                &format!("built {vector}: {} lanes, {} vector instruction(s)", r.spec.width, r.stats.vectorized),
            ),
        }
        for line in r.lines().iter().skip(1) {
            diagnostics::analysis(module, scalar, "Detail", &format!("{vector}:{line}"));
        }
        if opts.report {
            report_lines(&r.lines());
        }
    }
}

/// Prints report lines on stderr, each prefixed `batchify: ` and written in
/// one `write` call: rustc's codegen threads print remarks through their
/// own copy of `std`'s stderr lock, so a line written in pieces (as
/// `eprintln!` does) can be cut by one of theirs.
fn report_lines<S: AsRef<str>>(lines: &[S]) {
    use std::io::Write;
    let mut err = std::io::stderr().lock();
    for line in lines {
        let _ = err.write_all(format!("batchify: {}\n", line.as_ref()).as_bytes());
    }
}

/// The pass `batchify-lower-vector-math<lib>` on one module
/// ([`driver::lower_vector_math`]); returns whether the module changed.
/// It reports nothing (the CLI's `--lower-vector-math --report` lists the
/// replacements).
pub fn lower_vector_math(module: &Module<'_>, lib: &str) -> bool {
    let Some(lib) = batchify_core::VecLib::parse(lib) else {
        diagnostics::warning(module, &format!("batchify-lower-vector-math: unknown vector math library `{lib}`"));
        return false;
    };
    let core = batchify_core::llvm::Module::from_inkwell(module);
    match driver::lower_vector_math(core, lib) {
        Ok(lowered) => lowered.calls > 0,
        Err(e) => {
            diagnostics::error(module, &e.to_string());
            true
        }
    }
}
