//! batchify-core: turns scalar LLVM IR functions into N-lane SIMD clones.
//!
//! Front ends (the CLI, the pass plugin) call the module driver
//! ([`driver::run`]): it selects the clones, builds them, completes the
//! array-form requests, replaces `__enzyme_batch` calls, batches caller
//! loops and annotates callers (see `docs/architecture.md`). Each clone
//! goes through these stages, one module each, run by [`batchify_module`]:
//! 1. **select** ([`select`]): which clones to build ([`spec::CloneSpec`]),
//!    from explicit requests or the module's `declare simd` attributes;
//! 2. **clone shell** ([`shell`]): the clone's empty function, with the
//!    signature, symbol properties and attributes of the ABI ([`abi`]);
//! 3. **prepare** ([`prepare`]): a scratch copy of the scalar function,
//!    normalised by LLVM passes (mem2reg, loop-simplify, lcssa);
//! 4. **analyses** ([`analysis`]): CFG, dominators, loops, uniformity and
//!    divergence (to a fixed point), the control plan;
//! 5. **legality** ([`legality`]): every reason the function cannot be
//!    vectorized, decided before anything is emitted;
//! 6. **plan** ([`plan`]): every instruction's recipe, the form it takes;
//! 7. **cost** ([`cost`]): vector form or per-lane loop, from the recipes;
//! 8. **emit** ([`emit`]): the clone's body, built as the recipes say,
//!    under execution masks, linearized control flow;
//! 9. **fallback** ([`fallback`]): the per-lane loop, when legality or cost
//!    says so;
//! 10. **finish** ([`finish`]): verify and optimise the clone.
//!
//! [`abi`] (the clone's signature, mask and linear parameters),
//! [`options`] and [`llvm`] (the IR layer) serve every stage;
//! [`callee_clones`] is the run's registry of callee clones. The stage
//! order is checked by `tests/module_layering.rs`. One module-level step
//! runs on its own, after Enzyme: [`lower_math`] (vector math intrinsics
//! to vector library calls, [`driver::lower_vector_math`]).
#![warn(missing_docs)]

pub mod abi;
pub mod analysis;
pub mod array_form;
pub mod callee_clones;
pub mod callers;
pub mod cost;
pub mod driver;
pub mod emit;
pub mod enzyme_batch;
pub mod error;
pub mod fallback;
pub mod finish;
pub mod legality;
pub mod llvm;
pub mod lower_math;
pub mod map_entry;
pub mod options;
pub mod plan;
pub mod prepare;
pub mod refill;
pub mod scalable;
pub mod select;
pub mod shell;
pub mod spec;
pub mod vector_widths;
pub mod vfabi;

pub use error::{Error, FallbackKind, Result};
pub use options::{Options, PrintAfter, VecLib};
pub use spec::{CloneSpec, MaskAbi};

use analysis::{cfg::Cfg, divergence::Divergence, dominance::Dominators, loops::Loops};
use emit::WidenStats;
use llvm::{Module, Value};

/// Collects the texts `--print-analysis` and `--print-after` ask for.
struct Printer {
    opts: Options,
    texts: Vec<String>,
}

impl Printer {
    fn after(&mut self, stage: PrintAfter, title: &str, f: Value) {
        if self.opts.print_after.is_some_and(|p| p.includes(stage)) {
            self.texts.push(format!("; *** IR after {title} ***\n{}", f.print_function().trim_end()));
        }
    }
}

/// What happened to one requested clone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CloneReport {
    /// The request.
    pub spec: CloneSpec,
    /// Widening statistics (empty for a fallback).
    pub stats: WidenStats,
    /// Why the clone is a per-lane loop over the scalar function, if it is.
    pub fallback: Option<String>,
    /// The kind of that reason.
    pub fallback_kind: Option<FallbackKind>,
    /// What [`Options::print_analysis`] and [`Options::print_after`] asked
    /// for, in stage order, each a block of text.
    pub printed: Vec<String>,
    /// The callee clones (internal helpers) first needed by this clone,
    /// in the order they were built (see `emit::callees`).
    pub callee_clones: Vec<CloneReport>,
    /// Facts about the clone's form the other fields do not carry (an SVE
    /// clone's vectorized vector lengths).
    pub notes: Vec<String>,
}

impl CloneReport {
    /// Human-readable lines for `--report`.
    pub fn lines(&self) -> Vec<String> {
        let scalable = if self.spec.isa == vfabi::Isa::Sve { "vscale x " } else { "" };
        let head =
            format!("{} -> {}: {scalable}{} lanes", self.spec.scalar_name, self.spec.vector_name, self.spec.width);
        let mut out = self.own_lines(&head);
        for c in &self.callee_clones {
            for (k, line) in c.lines().into_iter().enumerate() {
                out.push(if k == 0 { format!("  callee clone: {line}") } else { format!("  {line}") });
            }
        }
        out
    }

    fn own_lines(&self, head: &str) -> Vec<String> {
        let s = &self.stats;
        if let Some(why) = &self.fallback {
            return vec![format!("{head}, per-lane fallback: {why}")];
        }
        let mut out = vec![format!(
            "{head}, {} vector instruction(s), {} uniform, {} per-lane, {} divergent loop(s), {} linearized level(s), \
             {} uniform branch region(s) kept",
            s.vectorized, s.uniform, s.serialized, s.divergent_loops, s.linearized_levels, s.uniform_regions
        )];
        for what in &s.serialized_what {
            out.push(format!("  per-lane: {what}"));
        }
        for what in &s.memory_what {
            out.push(format!("  memory: {what}"));
        }
        for what in &s.batched_calls {
            out.push(format!("  batched: {what}"));
        }
        for what in &s.per_lane_calls {
            out.push(format!("  not batched: {what}"));
        }
        for what in &s.veclib_calls {
            out.push(format!("  veclib: {what}"));
        }
        for what in &s.cost_notes {
            out.push(format!("  cost: {what}"));
        }
        for what in &self.notes {
            out.push(format!("  note: {what}"));
        }
        out
    }
}

/// Builds every requested clone into `module`. On error the module is left
/// without the failing clone (earlier clones stay).
///
/// `module` stays alive for the call (its lifetime brand sees to that);
/// it must not be changed elsewhere during the call (the inkwell wrapper in
/// [`batchify_inkwell`] guarantees this).
///
/// Calls of module functions in a clone may need clones of their callees
/// (internal helpers, see `emit::callees`); each is built right after the
/// clone that first needs it, and reported in that clone's report. A helper
/// whose callee cannot be vectorized is a per-lane loop even when
/// [`Options::allow_fallback`] is off: that is still correct code, and it is
/// reported.
///
/// Every function the call creates, and every function that now calls one
/// of them, gets a `"min-legal-vector-width"` covering the vector types of
/// its calls ([`vector_widths`]), so that caller and callee pass vectors
/// wider than 256 bits in the same registers on every x86 CPU; debug
/// builds check that they do.
pub fn batchify_module(module: Module, specs: &[CloneSpec], opts: &Options) -> Result<Vec<CloneReport>> {
    batchify_module_observed(module, specs, opts, &mut |_| {})
}

/// [`batchify_module`], telling `progress` about each clone (the requested
/// ones and the callee clones they need) before it is built: a front end
/// that names the function it was batching when something went wrong.
pub fn batchify_module_observed(
    module: Module,
    specs: &[CloneSpec],
    opts: &Options,
    progress: &mut dyn FnMut(&CloneSpec),
) -> Result<Vec<CloneReport>> {
    let before = vector_widths::Snapshot::take(module);
    let built = build_clones(module, specs, opts, progress);
    // Instrumented clones call the report at exit; it prints every loop
    // the module counts (also those of clones built by earlier runs).
    emit::instrument::complete_report(module);
    // Every function built or given calls of new functions covers the
    // vector types of its calls, also when a later clone failed.
    let changed = before.cover_changed(module);
    let reports = built?;
    if cfg!(debug_assertions) {
        if let Some(d) = vector_widths::check_calls(module, &changed).first() {
            let function = specs.first().map_or_else(String::new, |s| s.scalar_name.clone());
            return Err(Error::Internal { function, message: format!("calls disagree on vector registers: {d}") });
        }
    }
    Ok(reports)
}

/// Stages 2 to 9 for every requested clone and the callee clones they need.
fn build_clones(
    module: Module,
    specs: &[CloneSpec],
    opts: &Options,
    progress: &mut dyn FnMut(&CloneSpec),
) -> Result<Vec<CloneReport>> {
    let mut callees = callee_clones::CalleeClones::new(specs);
    let helper_opts = Options { allow_fallback: true, ..*opts };
    let mut out = Vec::new();
    for s in specs {
        progress(s);
        let mut report = batchify_one(module, s, opts, &mut callees)?;
        while let Some(h) = callees.next_pending() {
            progress(&h);
            report.callee_clones.push(batchify_one(module, &h, &helper_opts, &mut callees)?);
        }
        out.push(report);
    }
    Ok(out)
}

/// [`batchify_module`] for an inkwell module.
pub fn batchify_inkwell(
    module: &inkwell::module::Module<'_>,
    specs: &[CloneSpec],
    opts: &Options,
) -> Result<Vec<CloneReport>> {
    batchify_module(Module::from_inkwell(module), specs, opts)
}

/// Stages 2 to 10 for one clone.
fn batchify_one<'ctx>(
    module: Module<'ctx>,
    spec: &CloneSpec,
    opts: &Options,
    callees: &mut callee_clones::CalleeClones<'ctx>,
) -> Result<CloneReport> {
    batchify_one_with(module, spec, opts, callees, &|_| {})
}

/// [`batchify_one`], with `decorate` applied to the clone's function right
/// after its shell is made (before its body is built and cleaned up).
fn batchify_one_with<'ctx>(
    module: Module<'ctx>,
    spec: &CloneSpec,
    opts: &Options,
    callees: &mut callee_clones::CalleeClones<'ctx>,
    decorate: &dyn Fn(Value<'ctx>),
) -> Result<CloneReport> {
    let scalar = module.function(&spec.scalar_name).ok_or_else(|| Error::UnknownFunction {
        name: spec.scalar_name.clone(),
        reason: "no function of that name in the module".into(),
    })?;
    if scalar.is_declaration() {
        return Err(Error::UnknownFunction {
            name: spec.scalar_name.clone(),
            reason: "it is only declared here; batchify needs its body".into(),
        });
    }
    shell::check_target(module, spec)?;
    let triple = module.target_triple();
    if !opts.veclib.fits_triple(&triple) {
        return Err(Error::VariantMismatch {
            variant: spec.vector_name.clone(),
            reason: format!(
                "`--veclib {}` is for {} modules, and this module's target is `{triple}`",
                opts.veclib.name(),
                if opts.veclib == VecLib::Sleef { "AArch64" } else { "x86-64" }
            ),
        });
    }
    if spec.isa == vfabi::Isa::Sve {
        return batchify_sve(module, scalar, spec, opts, callees);
    }
    let clone_abi = abi::CloneAbi::of(scalar, spec)?;
    let fty = clone_abi.natural;
    let helper = callees.is_helper(&spec.vector_name);
    // A variant whose symbol has GCC's lowered type is built under a working
    // name with the natural type, then moved into its symbol (stage 10).
    let lowering = if helper { None } else { clone_abi.lowering };
    match &lowering {
        Some(l) => shell::check_clone_name(module, spec, l.public_type, &[fty])?,
        None => shell::check_clone_name(module, spec, fty, &[])?,
    }
    let work = match &lowering {
        Some(_) => CloneSpec { vector_name: shell::working_name(module, &spec.vector_name), ..spec.clone() },
        None => spec.clone(),
    };
    let spec_in = spec;
    let spec = &work;
    let create = |callees: &callee_clones::CalleeClones| {
        let clone = shell::create_clone_function(module, scalar, spec, fty);
        if callees.is_helper(&spec.vector_name) {
            callee_clones::make_helper_symbol(clone);
        }
        decorate(clone);
        clone
    };
    let clone = create(callees);
    let mut printer = Printer { opts: *opts, texts: Vec::new() };
    // Cross-lane operations have their group meaning only in the vector
    // form: no per-lane loop stands in for it.
    let cross_lane = analysis::cross_lane::first_use(scalar);
    let attempt = if let (Some((holder, op)), true) = (&cross_lane, opts.force_per_lane) {
        Err(Error::CrossLane {
            function: spec.scalar_name.clone(),
            message: format!("`{holder}` calls the cross-lane operation `{op}`, which has no per-lane loop (the per-lane loop was requested)"),
        })
    } else if opts.force_per_lane && !helper {
        Err(legality::unsupported(&spec.scalar_name, FallbackKind::Requested, "the per-lane loop was requested"))
    } else {
        vectorize(module, scalar, clone, spec, &mut printer, callees)
    };
    let attempt = match (attempt, &cross_lane) {
        (Err(Error::Unsupported { what, .. }), Some((holder, op))) => Err(Error::CrossLane {
            function: spec.scalar_name.clone(),
            message: format!(
                "`{holder}` calls the cross-lane operation `{op}`, which needs the vector form, but it has none: {what}"
            ),
        }),
        (a, _) => a,
    };
    let (stats, fallback) = match attempt {
        Ok(stats) => (stats, None),
        Err(Error::Unsupported { what, kind, .. }) if opts.allow_fallback || helper => {
            discard_clone(module, clone);
            let clone = create(callees);
            fallback::build(module, scalar, clone, spec);
            printer.after(PrintAfter::Emit, "emit (per-lane fallback)", clone);
            (WidenStats::default(), Some((kind, what)))
        }
        Err(e) if helper && cross_lane.is_none() => {
            // A callee clone is never worth failing the run for: its
            // callers are still correct with the per-lane loop.
            discard_clone(module, clone);
            let clone = create(callees);
            fallback::build(module, scalar, clone, spec);
            printer.after(PrintAfter::Emit, "emit (per-lane fallback)", clone);
            (WidenStats::default(), Some((FallbackKind::CalleeClone, format!("{e}"))))
        }
        Err(e) => {
            discard_clone(module, clone);
            return Err(e);
        }
    };
    let clone = module.function(&spec.vector_name).expect("the clone was just created");
    if let Err(e) = finish::finish(module, clone, scalar.function_type(), spec, opts) {
        discard_clone(module, clone);
        return Err(e);
    }
    let clone = match &lowering {
        Some(l) => {
            let f = shell::gcc_adapter::lower(module, scalar, clone, spec_in, l);
            finish::finish_lowered(module, f, spec_in)?;
            f
        }
        None => clone,
    };
    printer.after(PrintAfter::Finish, "finish", clone);
    let (fallback_kind, fallback) = fallback.map_or((None, None), |(k, w)| (Some(k), Some(w)));
    Ok(CloneReport {
        spec: spec_in.clone(),
        stats,
        fallback,
        fallback_kind,
        printed: printer.texts,
        callee_clones: Vec::new(),
        notes: Vec::new(),
    })
}

/// An SVE clone of scalable length ([`scalable`]): a fixed-width clone of
/// `vscale x K` lanes for each vector length of
/// [`scalable::specializations`], moved into functions of the scalable
/// type, and the exported clone that calls the one for the length it runs
/// at (the per-lane loop at the other lengths). When a length's clone is
/// not vectorized, the whole clone is the per-lane loop.
fn batchify_sve<'ctx>(
    module: Module<'ctx>,
    scalar: Value<'ctx>,
    spec: &CloneSpec,
    opts: &Options,
    callees: &mut callee_clones::CalleeClones<'ctx>,
) -> Result<CloneReport> {
    let fty = scalable::check(module, scalar, spec)?;
    if let Some((holder, op)) = analysis::cross_lane::first_use(scalar) {
        return Err(scalable::cross_lane_error(spec, &holder, &op));
    }
    // libmvec's names are x86's: the fixed-width bodies keep exact calls.
    let fixed_opts = Options { veclib: VecLib::None, ..*opts };
    let mut bodies = Vec::new();
    let mut printed = Vec::new();
    let mut stats = WidenStats::default();
    let mut fallback = None;
    let discard = |bodies: &[(u32, Value)]| bodies.iter().for_each(|(_, f)| f.delete_function());
    for vscale in scalable::specializations(scalar) {
        let fixed = scalable::fixed_spec(module, spec, vscale);
        let decorate = |f: Value<'ctx>| scalable::prepare_fixed_body(f, vscale, fixed.width);
        let report = match batchify_one_with(module, &fixed, &fixed_opts, callees, &decorate) {
            Ok(r) => r,
            Err(e) => {
                discard(&bodies);
                return Err(e);
            }
        };
        printed.extend(report.printed);
        let body = module.function(&fixed.vector_name).expect("the fixed-width clone was just built");
        if let Some(why) = report.fallback {
            body.delete_function();
            fallback = Some((report.fallback_kind.unwrap_or(FallbackKind::Scalable), why));
            break;
        }
        stats = report.stats;
        match scalable::adapt(module, scalar, body, spec, fty, vscale) {
            Ok(f) => bodies.push((vscale, f)),
            Err(e) => {
                discard(&bodies);
                return Err(e);
            }
        }
    }
    if fallback.is_some() {
        discard(&bodies);
        bodies.clear();
        stats = WidenStats::default();
    }
    scalable::check_fallback(spec, opts.allow_fallback, bodies.len())?;
    scalable::build_dispatcher(module, scalar, spec, fty, &bodies)?;
    let lengths: Vec<String> = bodies.iter().map(|(v, _)| format!("{}", 128 * v)).collect();
    let notes = if bodies.is_empty() {
        Vec::new()
    } else {
        vec![format!(
            "vectorized for {}-bit vectors ({} lanes per 128 bits); other vector lengths run the lanes one by one",
            lengths.join(", "),
            spec.width
        )]
    };
    let (fallback_kind, fallback) = match (bodies.is_empty(), fallback) {
        (false, _) => (None, None),
        (true, Some((kind, why))) => (Some(kind), Some(why)),
        (true, None) => (Some(FallbackKind::Scalable), Some(scalable::REASON.into())),
    };
    Ok(CloneReport { spec: spec.clone(), stats, fallback, fallback_kind, printed, callee_clones: Vec::new(), notes })
}

/// Deletes a clone. Calls of it from other clones (a caller of a callee
/// clone, or a recursive call) move to a declaration of the same name and
/// type, which a later build of the clone replaces.
fn discard_clone(module: Module, clone: Value) {
    let outside = clone.users().iter().any(|u| !u.is_instruction() || u.parent_block().parent() != clone);
    if !outside {
        clone.delete_function();
        return;
    }
    let name = clone.name();
    let decl = module.add_function("", clone.function_type());
    decl.set_function_call_conv(clone.call_conv());
    clone.replace_all_uses_with(decl);
    clone.delete_function();
    decl.set_name(&name);
}

/// Stages 3 to 7: prepares, analyses, checks legality and cost, and emits;
/// the clone's body is built on success. `Error::Unsupported` means "build
/// the per-lane fallback instead", with the reason.
fn vectorize<'ctx>(
    module: Module<'ctx>,
    scalar: Value<'ctx>,
    clone: Value<'ctx>,
    spec: &CloneSpec,
    printer: &mut Printer,
    callees: &mut callee_clones::CalleeClones<'ctx>,
) -> Result<WidenStats> {
    legality::check_signature(scalar, &spec.scalar_name)?;
    let scratch = prepare::prepare(module, scalar, &spec.scalar_name)?;
    let f = scratch.function;
    if analysis::calls::isa_adds_fma(spec.isa, scalar) {
        prepare::unfuse_for_fma_target(f);
    }
    printer.after(PrintAfter::Prepare, "prepare", f);
    let cfg = Cfg::new(f);
    let loops = Loops::new(&cfg, &Dominators::new(&cfg)).map_err(|irr| {
        legality::unsupported(
            &spec.scalar_name,
            FallbackKind::IrreducibleControlFlow,
            format!("irreducible control flow (a cycle entered at `{}` has several entries)", irr.block.name()),
        )
    })?;
    let div = Divergence::new(f, &cfg, &loops, &spec.params);
    let private = analysis::private::PrivateMemory::new(module, &cfg, !printer.opts.for_autodiff);
    let shapes = analysis::shape::Shapes::new(module, f, &cfg, &spec.params, &div.uniformity, &private, spec.width);
    if printer.opts.print_analysis {
        let text = analysis::print::render(f, &spec.params, &cfg, &loops, &div.uniformity, &shapes, &div.plan);
        printer.texts.push(format!(
            "; *** analysis of `{}` for `{}` ***\n{}",
            spec.scalar_name,
            spec.vector_name,
            text.trim_end()
        ));
    }
    legality::check_body(f, &cfg, &spec.scalar_name)?;
    let cross_lane = legality::check_cross_lane(f, &div.uniformity, spec, printer.opts.for_autodiff)?;
    let plan_inputs = plan::Inputs {
        module,
        spec,
        cfg: &cfg,
        loops: &loops,
        uniformity: &div.uniformity,
        control: &div.plan,
        shapes: &shapes,
        private: &private,
        veclib: printer.opts.veclib,
        for_autodiff: printer.opts.for_autodiff,
    };
    let recipes = plan::Plan::build(&plan_inputs, callees);
    if cross_lane {
        plan::check_group_calls(f, &recipes, &spec.scalar_name)?;
    }
    if printer.opts.print_plan {
        printer.texts.push(format!(
            "; *** plan of `{}` for `{}` ***\n{}",
            spec.scalar_name,
            spec.vector_name,
            recipes.render(&cfg).trim_end()
        ));
    }
    let inputs = cost::Inputs {
        cfg: &cfg,
        loops: &loops,
        uniformity: &div.uniformity,
        plan: &div.plan,
        recipes: &recipes,
        spec,
    };
    let per_lane_allowed = printer.opts.allow_fallback && printer.opts.cost_model && !cross_lane;
    let (choice, estimate) = cost::decide(&inputs, per_lane_allowed);
    if let cost::Choice::PerLane(why) = choice {
        return Err(legality::unsupported(&spec.scalar_name, FallbackKind::CostModel, why));
    }
    let analyses = emit::Analyses {
        cfg: &cfg,
        loops: &loops,
        uniformity: &div.uniformity,
        plan: &div.plan,
        shapes: &shapes,
        private: &private,
        recipes: &recipes,
    };
    let mut stats = emit::emit(module, f, clone, spec, &analyses, callees, &printer.opts)?;
    if let Some(e) = estimate {
        stats.cost_notes = e.lines();
        stats.latency_bound_loops = e.loops.iter().filter(|l| l.latency_bound()).count();
    }
    printer.after(PrintAfter::Emit, "emit", clone);
    Ok(stats)
}
