//! One run of the pass on one module: choose the clones, build them with
//! `batchify_core`, and tell the host what happened.
//!
//! Runs are independent (no global state), so rustc may run the pass on
//! several codegen units at once. A run is idempotent: variants that
//! already have a body are skipped, so the pass may run both at an
//! extension point and from `-passes=`/`-C passes=`.

use crate::diagnostics;
use crate::options::PluginOptions;
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
    let specs = match select(module, &opts) {
        Ok(s) => s,
        Err(e) => {
            diagnostics::warning(module, &e);
            return false;
        }
    };
    let _ = automatic;
    let requests = array_requests(module, &opts);
    let mut changed = false;
    if !specs.is_empty() || !requests.is_empty() {
        build_all(module, &opts, specs, &requests);
        changed = true;
    }
    if batchify_core::enzyme_batch::has_calls(batchify_core::llvm::Module::from_inkwell(module)) {
        enzyme_batch(module, &opts);
        changed = true;
    }
    if !opts.no_callers {
        let core_module = batchify_core::llvm::Module::from_inkwell(module);
        let core_opts =
            Options { veclib: opts.veclib.unwrap_or_default(), for_autodiff: opts.for_autodiff, ..Options::default() };
        let loops = batchify_core::callers::loops::vectorize_loops(core_module, &core_opts);
        tell(module, &opts, &loops.reports);
        for (function, note) in &loops.left_alone {
            diagnostics::missed(module, function, "CallerLoopLeftScalar", note);
        }
        let mut notes = loops.notes;
        notes.extend(batchify_core::callers::annotate(core_module));
        if opts.report {
            for note in &notes {
                eprintln!("batchify: {note}");
            }
        }
        changed = true;
    }
    // The core verifies each clone it builds; the module as a whole once,
    // here, so that no front end (rustc verifies nothing by default) takes
    // invalid IR further.
    if changed {
        if let Err(e) = batchify_core::llvm::Module::from_inkwell(module).verify() {
            diagnostics::error(module, &format!("internal error: the module does not verify after batchify: {e}"));
        }
    }
    changed
}

/// Builds the chosen clones and completes the array-form requests.
fn build_all(
    module: &Module<'_>,
    opts: &PluginOptions,
    specs: Vec<CloneSpec>,
    requests: &[batchify_core::array_form::ArrayRequest],
) {
    let mut wanted = specs;
    for r in requests {
        let built = module.get_function(&r.spec.vector_name).is_some_and(|f| f.count_basic_blocks() > 0);
        if !built && !wanted.iter().any(|s| s.vector_name == r.spec.vector_name) {
            wanted.push(r.spec.clone());
        }
    }
    let core_opts =
        Options { veclib: opts.veclib.unwrap_or_default(), for_autodiff: opts.for_autodiff, ..Options::default() };
    let reports = build(module, &wanted, &core_opts);
    tell(module, opts, &reports);
    let core_module = batchify_core::llvm::Module::from_inkwell(module);
    for r in requests {
        if let Err(e) = batchify_core::array_form::complete(core_module, r) {
            diagnostics::warning(module, &format!("`{}` keeps its scalar body: {e}", r.name));
        }
    }
}

/// Replaces the module's `__enzyme_batch` calls (`batchify_core::enzyme_batch`);
/// a malformed call is an error diagnostic, a clone that cannot be built a
/// missed remark (its `batch_<f>` calls `f` once per lane).
fn enzyme_batch(module: &Module<'_>, opts: &PluginOptions) {
    let core_opts =
        Options { veclib: opts.veclib.unwrap_or_default(), for_autodiff: opts.for_autodiff, ..Options::default() };
    match batchify_core::enzyme_batch::run(batchify_core::llvm::Module::from_inkwell(module), &core_opts) {
        Ok(outcome) => {
            tell(module, opts, &outcome.reports);
            for (spec, e) in &outcome.failed {
                diagnostics::missed(
                    module,
                    &spec.scalar_name,
                    "PerLaneFallback",
                    &format!("__enzyme_batch of {} calls it once per lane: {e}", spec.scalar_name),
                );
            }
            if opts.report {
                for note in &outcome.notes {
                    eprintln!("batchify: {note}");
                }
            }
        }
        Err(e) => diagnostics::error(module, &e.to_string()),
    }
}

/// The array-form requests (`__batchify_array_<variant>` definitions, see
/// `batchify_core::array_form`) not completed yet whose scalar body is in
/// this module. With several codegen units, the unit holding the scalar
/// function builds the variant; a request elsewhere keeps its scalar body
/// (a missed remark says so).
fn array_requests(module: &Module<'_>, opts: &PluginOptions) -> Vec<batchify_core::array_form::ArrayRequest> {
    let core_module = batchify_core::llvm::Module::from_inkwell(module);
    let found = match batchify_core::array_form::requests(core_module) {
        Ok(r) => r,
        Err(e) => {
            diagnostics::warning(module, &e.to_string());
            return Vec::new();
        }
    };
    found
        .into_iter()
        .filter(|r| opts.isa.is_none_or(|isa| r.spec.isa == isa))
        .filter(|r| !batchify_core::array_form::is_complete(core_module, r))
        .filter(|r| {
            let here = module.get_function(&r.spec.scalar_name).is_some_and(|f| f.count_basic_blocks() > 0);
            if !here {
                diagnostics::missed(
                    module,
                    &r.name,
                    "ScalarElsewhere",
                    &format!("{} keeps its scalar loop: `{}` has no body in this module", r.name, r.spec.scalar_name),
                );
            }
            here
        })
        .collect()
}

/// The clones to build: `function=` and `variant=` clones if any were
/// named (in that order, as the CLI does), else every
/// variant the module's attributes ask for whose scalar body is here and
/// that is not built yet (restricted to `isa=` if given).
fn select(module: &Module<'_>, opts: &PluginOptions) -> Result<Vec<CloneSpec>, String> {
    let has_body = |name: &str| module.get_function(name).is_some_and(|f| f.count_basic_blocks() > 0);
    if !opts.functions.is_empty() || !opts.variants.is_empty() {
        let isa = opts.isa.unwrap_or(Isa::Llvm);
        let width = opts.width.unwrap_or(8);
        let mut specs: Vec<CloneSpec> = opts
            .functions
            .iter()
            .filter_map(|name| {
                let f = module.get_function(name).filter(|f| f.count_basic_blocks() > 0)?;
                Some(CloneSpec::all_varying(name, f.count_params() as usize, width, isa, false))
            })
            .collect();
        for name in &opts.variants {
            let v = VariantName::parse(name).map_err(|e| e.to_string())?;
            specs.push(CloneSpec::from_variant(&v).map_err(|e| e.to_string())?);
        }
        // Functions defined in another module (another codegen unit) are
        // that module's business.
        specs.retain(|s| has_body(&s.scalar_name) && !has_body(&s.vector_name));
        return Ok(specs);
    }
    let all = batchify_core::select::requested_variants(batchify_core::llvm::Module::from_inkwell(module))
        .map_err(|e| e.to_string())?;
    Ok(all
        .into_iter()
        .filter(|s| opts.isa.is_none_or(|isa| s.isa == isa))
        .filter(|s| has_body(&s.scalar_name) && !has_body(&s.vector_name))
        .collect())
}

/// Builds `specs`; a spec that fails is reported and the rest are still
/// built (the CLI stops at the first error instead).
fn build(module: &Module<'_>, specs: &[CloneSpec], opts: &Options) -> Vec<CloneReport> {
    let mut reports = Vec::new();
    let mut rest = specs;
    while !rest.is_empty() {
        match batchify_core::batchify_inkwell(module, rest, opts) {
            Ok(mut r) => {
                reports.append(&mut r);
                break;
            }
            Err(e) => {
                // The clones before the failing one were built and stay.
                let built = rest
                    .iter()
                    .take_while(|s| module.get_function(&s.vector_name).is_some_and(|f| f.count_basic_blocks() > 0))
                    .count();
                let failed = &rest[built.min(rest.len() - 1)];
                diagnostics::warning(module, &format!("`{}` was not built: {e}", failed.vector_name));
                rest = &rest[built + 1..];
            }
        }
    }
    reports
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
            for line in r.lines() {
                eprintln!("batchify: {line}");
            }
        }
    }
}
