//! The module driver: everything batchify does to one module, in order,
//! with one error policy. The front ends (the CLI, the pass plugin) parse
//! their options, call [`run`], and print or remark what it returns.
//!
//! 1. **select**: the clones to build: the ones named ([`Selection::Named`])
//!    or every variant the module's attributes ask for
//!    ([`Selection::Requested`]), plus the variants of the array-form
//!    requests (`__batchify_array_<variant>`, [`crate::array_form`]);
//! 2. **clones**: stages 2 to 10 for each ([`crate::batchify_module_observed`]);
//! 3. **array forms** and **maps**: the requests' bodies, calling the
//!    variants built ([`crate::map_entry`]: a map of a named clone,
//!    [`Run::maps`], or defined as `__batchify_map_<variant>`, needs its
//!    variant's masked and unmasked twins, which step 1 adds);
//! 4. **`__enzyme_batch`**: the calls replaced ([`crate::enzyme_batch`]);
//! 5. **callers**: the `omp simd` loops LLVM's vectorizer refuses batched
//!    ([`crate::callers::loops`]), then the calls of `declare simd`
//!    functions annotated for LLVM's vectorizers ([`crate::callers::annotate`]);
//! 6. the whole module verified once.
//!
//! [`OnError::Stop`] ends the run at the first clone that fails (the CLI:
//! nothing is written); [`OnError::Continue`] reports it and builds the
//! rest (the plugin: a compiler must go on). With
//! [`Selection::Requested`]`{ only_here: true }` a run is idempotent:
//! variants built already and functions whose body is in another module
//! (another codegen unit) are left alone.

use crate::array_form::{self, ArrayRequest};
use crate::error::{Error, Result};
use crate::llvm::Module;
/// How maps run their elements ([`Run::map_form`]).
pub use crate::map_entry::MapForm;
use crate::map_entry::{self, MapRequest, RefillClone};
use crate::options::Options;
use crate::refill::{self, Worker};
use crate::spec::CloneSpec;
use crate::vfabi::Isa;
use crate::CloneReport;

/// Which clones a run builds.
#[derive(Debug, Clone)]
pub enum Selection {
    /// These clones (a function named that does not exist is an error
    /// unless `only_here`, which skips it).
    Named {
        /// The clones.
        specs: Vec<CloneSpec>,
        /// Skip clones built already and functions without a body here.
        only_here: bool,
    },
    /// Every variant the module's attributes and array-form requests ask for.
    Requested {
        /// Only variants of this ISA.
        isa: Option<Isa>,
        /// Skip clones built already and functions without a body here.
        only_here: bool,
    },
}

/// What a run does when a clone fails.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnError {
    /// End the run with the error.
    Stop,
    /// Record the error and build the rest.
    Continue,
}

/// One run's requests.
#[derive(Debug, Clone)]
pub struct Run {
    /// The clones.
    pub selection: Selection,
    /// The error policy.
    pub on_error: OnError,
    /// Batch caller loops and annotate callers (`--no-callers` turns it off).
    pub callers: bool,
    /// Also create `<f>_map` for each clone of [`Selection::Named`] (the
    /// CLI's `--map`, the plugin's `map`), besides the maps the module
    /// defines as requests.
    pub maps: bool,
    /// How the maps run their elements (`--map-form`).
    pub map_form: MapForm,
    /// Bucket every map's elements by this key function (`--bucket KEY`,
    /// `crate::map_entry::bucket`) instead of running them in `map_form`.
    pub bucket: Option<String>,
}

/// The lanes of a clone a front end names by function (the CLI's
/// `--function`): `given` (`-n`), else for clones for automatic
/// differentiation one register of the characteristic type where `isa`
/// has a fixed register width ([`crate::abi::register_lanes`]: Enzyme's
/// derivative loops over values of two registers spill), else 8.
pub fn function_lanes(module: Module, fty: crate::llvm::Type, isa: Isa, for_autodiff: bool, given: Option<u32>) -> u32 {
    given.unwrap_or_else(|| for_autodiff.then(|| crate::abi::register_lanes(module, fty, isa)).flatten().unwrap_or(8))
}

/// A remark for the host compiler: the function, a short kind
/// (`CallerLoopLeftScalar`, `PerLaneFallback`, `ScalarElsewhere`) and the
/// message.
pub type Missed = (String, &'static str, String);

/// What a run did.
#[derive(Debug, Default)]
pub struct Outcome {
    /// Every clone built (requested ones, then `__enzyme_batch`'s, then the
    /// caller loops' bodies), per-lane ones with their reason in
    /// [`CloneReport::fallback`].
    pub reports: Vec<CloneReport>,
    /// Clones that were not built, and why ([`OnError::Continue`]).
    pub failed: Vec<(String, String)>,
    /// What did not happen and why, for remarks and warnings.
    pub missed: Vec<Missed>,
    /// Warnings that are not about one clone (an array-form request that
    /// keeps its scalar body).
    pub warnings: Vec<String>,
    /// One line per `__enzyme_batch` call replaced, caller loop batched and
    /// caller annotated, for `--report`.
    pub notes: Vec<String>,
    /// Whether no clone was asked for and no `__enzyme_batch` called.
    pub nothing_asked: bool,
    /// Whether some function of the module lists Vector Function ABI
    /// variants (a caller's module sees only its callees' declarations).
    pub declares_variants: bool,
}

/// What [`lower_vector_math`] replaced.
pub use crate::lower_math::Lowered;

/// The step after Enzyme (`docs/autodiff.md`): every call of a vector math
/// intrinsic (`llvm.log.v4f64`, `llvm.cos.v8f32`, ...) in `module` becomes
/// calls of `lib`'s vector functions for its function's target
/// ([`crate::lower_math`]); nothing else changes. `VecLib::None` changes
/// nothing.
pub fn lower_vector_math(module: Module, lib: crate::options::VecLib) -> Result<Lowered> {
    crate::lower_math::lower_vector_math(module, lib)
}

/// Runs batchify on `module`; `progress` hears of each clone before it is
/// built (a front end that names the function it was batching when
/// something went wrong).
pub fn run(module: Module, run: &Run, opts: &Options, progress: &mut dyn FnMut(&CloneSpec)) -> Result<Outcome> {
    let mut out = Outcome::default();
    let has_body = |name: &str| module.function(name).is_some_and(|f| !f.is_declaration());
    let mismatched_before = calling_convention_mismatches(module);
    // Variants the module asks for that batchify skips (with a warning).
    let mut skipped_any = false;
    // 1. select
    let (mut specs, only_here) = match &run.selection {
        Selection::Named { specs, only_here } => (specs.clone(), *only_here),
        Selection::Requested { isa, only_here } => {
            let (all, skipped) = crate::select::requested_variants_skipping(module)?;
            skipped_any = !skipped.is_empty();
            out.warnings.extend(skipped);
            (all.into_iter().filter(|s| isa.is_none_or(|i| s.isa == i)).collect(), *only_here)
        }
    };
    let requests = match &run.selection {
        Selection::Requested { isa, .. } => array_requests(module, *isa, only_here, &mut out)?,
        Selection::Named { .. } => Vec::new(),
    };
    for r in &requests {
        if !specs.iter().any(|s| s.vector_name == r.spec.vector_name) {
            specs.push(r.spec.clone());
        }
    }
    let maps = match &run.selection {
        Selection::Named { specs, .. } if run.maps => named_maps(specs)?,
        Selection::Named { .. } => Vec::new(),
        Selection::Requested { isa, .. } => map_requests(module, *isa, only_here, &mut out)?,
    };
    for m in &maps {
        let (full, tail) = m.clones()?;
        let mut twins = vec![full, tail];
        // A bucketed map computes its keys with the key's clones; a key
        // that does not fit gets no clones, and its map the error.
        if let Some(key) = &run.bucket {
            let scalar = module.function(&m.spec.scalar_name);
            if scalar.is_some_and(|f| map_entry::bucket::key_function(module, f, &m.spec, key).is_ok()) {
                let (kf, kt) = map_entry::bucket::key_request(m, key)?.clones()?;
                twins.extend([kf, kt]);
            }
        }
        for twin in twins {
            if !specs.iter().any(|s| s.vector_name == twin.vector_name) {
                specs.push(twin);
            }
        }
    }
    if only_here {
        specs.retain(|s| has_body(&s.scalar_name) && !has_body(&s.vector_name));
    }
    // Maps built by an earlier run stay as they are.
    let maps: Vec<MapRequest> =
        maps.into_iter().filter(|m| !(only_here && map_entry::is_complete(module, m))).collect();
    out.nothing_asked = specs.is_empty() && !skipped_any && !crate::enzyme_batch::has_calls(module);
    out.declares_variants =
        module.functions().into_iter().any(|f| !crate::callee_clones::declared_variants(f).is_empty());
    // 2. clones
    build(module, &specs, opts, run.on_error, progress, &mut out)?;
    // 3. array forms
    for r in &requests {
        if array_form::is_complete(module, r) {
            continue;
        }
        if let Err(e) = array_form::complete(module, r) {
            match run.on_error {
                OnError::Stop => return Err(e),
                OnError::Continue => out.warnings.push(format!("`{}` keeps its scalar body: {e}", r.name)),
            }
        }
    }
    // Refill workers for the maps to build, if their form may refill, with
    // as many lane groups as the maps' clones' estimates ask for.
    let workers: Vec<Option<Worker>> = maps
        .iter()
        .map(|m| {
            if run.map_form == MapForm::Grouped || run.bucket.is_some() {
                return None;
            }
            let latency_bound =
                out.reports.iter().any(|r| r.spec.vector_name == m.spec.vector_name && r.stats.latency_bound_loops > 0);
            let groups = opts.refill_groups.unwrap_or_else(|| {
                module.function(&m.spec.scalar_name).map_or(1, |f| refill::lane_groups(f, &m.spec, latency_bound))
            });
            match refill::build_worker(module, m, groups) {
                Ok(w) => Some(w),
                Err(why) => {
                    out.notes.push(format!("map: {} has no refill form: {why}", m.name));
                    None
                }
            }
        })
        .collect();
    let refills = build_workers(module, &maps, workers, opts, progress, &mut out);
    for (m, refill) in maps.iter().zip(&refills) {
        let form = if refill.is_some() { run.map_form } else { MapForm::Grouped };
        // A worker with more lanes than the map runs several groups per trip.
        let groups = match refill {
            Some(w) if form != MapForm::Grouped && w.lanes > m.spec.width => {
                format!(" (refilling {} lane groups per trip)", w.lanes / m.spec.width)
            }
            _ => String::new(),
        };
        let bucket = run.bucket.as_deref();
        let how = match bucket {
            Some(key) => format!("bucketed by `{key}` in windows of {}", crate::map_entry::bucket::WINDOW),
            None => format!("{}{groups}", form.name()),
        };
        match map_entry::complete(module, m, refill.as_ref(), form, opts.instrument_lanes, bucket) {
            Ok(_) => {
                out.notes.push(format!("map: {} over {} lanes of {}, {how}", m.name, m.spec.width, m.spec.vector_name))
            }
            Err(e) if run.on_error == OnError::Stop => return Err(e),
            Err(e) => out.warnings.push(format!("`{}` was not built: {e}", m.name)),
        }
    }
    crate::emit::instrument::complete_report(module);
    // 4. `__enzyme_batch`
    let batch = crate::enzyme_batch::run(module, opts)?;
    if let (false, Some((_, e))) = (opts.allow_fallback, batch.failed.first()) {
        return Err(e.clone());
    }
    for (spec, e) in &batch.failed {
        let message = format!("`__enzyme_batch` of `{}` calls it once per lane: {e}", spec.scalar_name);
        out.missed.push((spec.scalar_name.clone(), "PerLaneFallback", message));
    }
    out.reports.extend(batch.reports);
    out.notes.extend(batch.notes);
    // 5. callers
    if run.callers {
        let loops = crate::callers::loops::vectorize_loops(module, opts);
        out.reports.extend(loops.reports);
        out.notes.extend(loops.notes);
        for (function, note) in loops.left_alone {
            out.missed.push((function, "CallerLoopLeftScalar", note));
        }
        out.notes.extend(crate::callers::annotate(module));
    }
    // 6. The core verifies each clone it builds; the whole module once here.
    module.verify().map_err(|e| Error::Internal {
        function: String::new(),
        message: format!("the module does not verify after batchify: {e}"),
    })?;
    if let Some(message) = calling_convention_mismatches(module).difference(&mismatched_before).next() {
        return Err(Error::Internal { function: String::new(), message: message.clone() });
    }
    Ok(out)
}

/// The calls whose calling convention differs from their callee's, one
/// message per caller and callee. The verifier accepts such a call, but it
/// is undefined behaviour (LLVM deletes the path through it), so batchify
/// checks that its output adds none to those of its input: clones on
/// AArch64 have their own convention.
fn calling_convention_mismatches(module: Module) -> std::collections::BTreeSet<String> {
    let mut found = std::collections::BTreeSet::new();
    for f in module.functions() {
        for block in f.blocks() {
            for i in block.instructions() {
                if !(i.is_call() || i.is_invoke()) {
                    continue;
                }
                let callee = i.called_value();
                if callee.is_function() && callee.call_conv() != i.call_conv() {
                    found.insert(format!(
                        "a call of `{}` in `{}` has calling convention {} where the function has {}",
                        callee.name(),
                        f.name(),
                        i.call_conv(),
                        callee.call_conv()
                    ));
                }
            }
        }
    }
    found
}

/// Builds the refill workers' clones (a worker that fails or gets the
/// per-lane fallback leaves its map grouped, with a note) and deletes the
/// scalar workers; returns each map's worker clone.
fn build_workers<'ctx>(
    module: Module<'ctx>,
    maps: &[MapRequest],
    workers: Vec<Option<Worker<'ctx>>>,
    opts: &Options,
    progress: &mut dyn FnMut(&CloneSpec),
    out: &mut Outcome,
) -> Vec<Option<RefillClone<'ctx>>> {
    let specs: Vec<CloneSpec> = workers.iter().flatten().map(|w| w.spec.clone()).collect();
    let mut built = Outcome::default();
    // The cost model costs every block of a trip, but the worker's start
    // and finish run only in trips where a lane needs them: an adaptive
    // map's timing is the judge of the vector form, not the estimate.
    let opts = Options { cost_model: false, ..*opts };
    // A worker's failure is not the run's: its map stays grouped.
    let _ = build(module, &specs, &opts, OnError::Continue, progress, &mut built);
    let mut refills = Vec::new();
    for (m, w) in maps.iter().zip(workers) {
        let Some(w) = w else {
            refills.push(None);
            continue;
        };
        let refill = usable_worker(module, &w, &built);
        if let Err(why) = &refill {
            out.notes.push(format!("map: {} has no refill form: {why}", m.name));
            if let Some(clone) = module.function(&w.spec.vector_name) {
                clone.delete_function();
            }
        }
        w.scalar.delete_function();
        refills.push(refill.ok());
    }
    refill::drop_unused_group_op_decls(module);
    out.reports.append(&mut built.reports);
    refills
}

/// The clone of worker `w` that `built` (the workers' run) made, or why the
/// map cannot use it (not built, or built as the per-lane fallback).
fn usable_worker<'ctx>(
    module: Module<'ctx>,
    w: &Worker<'ctx>,
    built: &Outcome,
) -> std::result::Result<RefillClone<'ctx>, String> {
    let name = &w.spec.vector_name;
    let Some(symbol) = module.function(name).filter(|c| !c.is_declaration()) else {
        let failed = built.failed.iter().find(|(n, _)| n == name);
        return Err(failed.map_or("the worker was not built".into(), |(_, e)| format!("the worker was not built: {e}")));
    };
    if let Some(why) = built.reports.iter().find(|r| &r.spec.vector_name == name).and_then(|r| r.fallback.as_ref()) {
        return Err(format!("the worker would run per lane: {why}"));
    }
    crate::abi::CloneAbi::of(w.scalar, &w.spec)
        .map(|abi| RefillClone { symbol, abi, lanes: w.spec.width })
        .map_err(|e| e.to_string())
}

/// Builds `specs`; with [`OnError::Continue`] a clone that fails is
/// recorded and the ones after it are still built.
fn build(
    module: Module,
    specs: &[CloneSpec],
    opts: &Options,
    on_error: OnError,
    progress: &mut dyn FnMut(&CloneSpec),
    out: &mut Outcome,
) -> Result<()> {
    let mut rest = specs;
    while !rest.is_empty() {
        match crate::batchify_module_observed(module, rest, opts, progress) {
            Ok(mut r) => {
                out.reports.append(&mut r);
                return Ok(());
            }
            Err(e) if on_error == OnError::Stop => return Err(e),
            Err(e) => {
                // The clones before the failing one were built and stay.
                let built = rest
                    .iter()
                    .take_while(|s| module.function(&s.vector_name).is_some_and(|f| !f.is_declaration()))
                    .count();
                let failed = &rest[built.min(rest.len() - 1)];
                out.failed.push((failed.vector_name.clone(), e.to_string()));
                rest = &rest[(built + 1).min(rest.len())..];
            }
        }
    }
    Ok(())
}

/// The array-form requests to complete: of `isa` if given; with
/// `only_here`, those not completed yet whose scalar body is in this module
/// (one elsewhere gets a remark: the unit holding the scalar function
/// builds it).
fn array_requests(module: Module, isa: Option<Isa>, only_here: bool, out: &mut Outcome) -> Result<Vec<ArrayRequest>> {
    let pick = RequestFilter { module, isa, only_here };
    pick.keep(array_form::requests(module), |r| (&r.name, &r.spec), |r| array_form::is_complete(module, r), out)
}

/// The maps [`Run::maps`] asks for: one `<f>_map` per named clone; two
/// clones of one function would make two maps of one name.
fn named_maps(specs: &[CloneSpec]) -> Result<Vec<MapRequest>> {
    let mut maps: Vec<MapRequest> = Vec::new();
    for spec in specs {
        let m = MapRequest::named(spec);
        if let Some(other) = maps.iter().find(|o| o.name == m.name) {
            let reason = format!(
                "one map per function, but both `{}` and `{}` are named",
                other.spec.vector_name, spec.vector_name
            );
            return Err(Error::Map { map: m.name, reason });
        }
        maps.push(m);
    }
    Ok(maps)
}

/// The map requests the module defines (of `isa` if given); with
/// `only_here`, those whose scalar body is in this module. Whether a map
/// was built already is asked where maps are completed, for named ones too.
fn map_requests(module: Module, isa: Option<Isa>, only_here: bool, out: &mut Outcome) -> Result<Vec<MapRequest>> {
    let pick = RequestFilter { module, isa, only_here };
    pick.keep(map_entry::requests(module), |r| (&r.name, &r.spec), |_| false, out)
}

/// Which of a module's requests (array forms, maps) a run completes.
struct RequestFilter<'ctx> {
    module: Module<'ctx>,
    isa: Option<Isa>,
    only_here: bool,
}

impl RequestFilter<'_> {
    /// The requests `found` of the run's ISA; with `only_here`, a request
    /// name that does not parse is a warning, and requests `complete`
    /// already or whose scalar body is elsewhere (a remark) are dropped.
    fn keep<R>(
        &self,
        found: Result<Vec<R>>,
        name_spec: impl Fn(&R) -> (&String, &CloneSpec),
        complete: impl Fn(&R) -> bool,
        out: &mut Outcome,
    ) -> Result<Vec<R>> {
        let found = match found {
            Ok(r) => r,
            Err(e) if self.only_here => {
                out.warnings.push(e.to_string());
                return Ok(Vec::new());
            }
            Err(e) => return Err(e),
        };
        let mut kept = Vec::new();
        for r in found {
            let (name, spec) = name_spec(&r);
            if self.isa.is_some_and(|i| spec.isa != i) || (self.only_here && complete(&r)) {
                continue;
            }
            let here = self.module.function(&spec.scalar_name).is_some_and(|f| !f.is_declaration());
            if self.only_here && !here {
                let message =
                    format!("{name} keeps its scalar loop: `{}` has no body in this module", spec.scalar_name);
                out.missed.push((name.clone(), "ScalarElsewhere", message));
                continue;
            }
            kept.push(r);
        }
        Ok(kept)
    }
}
