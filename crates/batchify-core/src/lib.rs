//! batchify-core: turns scalar LLVM IR functions into N-lane SIMD clones.
//!
//! The pipeline, one module per stage:
//! 1. **select** ([`select`]): which clones to build ([`spec::CloneSpec`]),
//!    from explicit requests or the module's `declare simd` attributes;
//! 2. **prepare** ([`transform::prepare`]): a scratch copy of the scalar
//!    function, normalised by LLVM passes (mem2reg, loop-simplify, lcssa);
//! 3. **analyse** ([`analysis`]): CFG, dominators, loops, uniformity and
//!    divergence (to a fixed point), the control plan;
//! 4. **widen and linearize** ([`transform::widen`], [`transform::control`]):
//!    the clone's body, per-instruction rules under execution masks;
//! 5. **ABI** ([`transform::signature`]): vector signature, masks, attributes;
//! 6. **cleanup** ([`cleanup`]): verify and optimise the clone.
//!
//! The one public entry point is [`batchify_module`]; front ends (CLI, pass
//! plugin, Rust macro) only build [`spec::CloneSpec`]s and call it.
#![warn(missing_docs)]

pub mod analysis;
pub mod cleanup;
pub mod error;
pub mod llvm;
pub mod select;
pub mod spec;
pub mod transform;
pub mod vfabi;

pub use error::{Error, Result};
pub use spec::{CloneSpec, MaskAbi};

use analysis::{cfg::Cfg, divergence::Divergence, dominance::Dominators, loops::Loops};
use llvm::{Module, Value};
use transform::widen::WidenStats;

/// Options of one batchify run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    /// Optimisation level applied to the clones (0..=3).
    pub opt_level: u8,
    /// Build a per-lane loop (and report why) when a function holds
    /// something the vectorizer does not handle; otherwise that is an error.
    pub allow_fallback: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options { opt_level: 2, allow_fallback: true }
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
}

impl CloneReport {
    /// Human-readable lines for `--report`.
    pub fn lines(&self) -> Vec<String> {
        let s = &self.stats;
        let head = format!("{} -> {}: {} lanes", self.spec.scalar_name, self.spec.vector_name, self.spec.width);
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
        out
    }
}

/// Builds every requested clone into `module`. On error the module is left
/// without the failing clone (earlier clones stay).
///
/// # Safety contract
/// `module` must be a valid module handle that stays alive and is not used
/// elsewhere for the duration of the call (the inkwell wrapper in
/// [`batchify_inkwell`] guarantees this).
pub fn batchify_module(module: Module, specs: &[CloneSpec], opts: &Options) -> Result<Vec<CloneReport>> {
    specs.iter().map(|s| batchify_one(module, s, opts)).collect()
}

/// [`batchify_module`] for an inkwell module.
pub fn batchify_inkwell(
    module: &inkwell::module::Module<'_>,
    specs: &[CloneSpec],
    opts: &Options,
) -> Result<Vec<CloneReport>> {
    batchify_module(Module(module.as_mut_ptr()), specs, opts)
}

fn batchify_one(module: Module, spec: &CloneSpec, opts: &Options) -> Result<CloneReport> {
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
    let fty = transform::signature::clone_type(scalar, spec)?;
    cleanup::check_clone_name(module, spec, fty)?;
    let clone = cleanup::create_clone_function(module, scalar, spec, fty);
    let (stats, fallback) = match vectorize(module, scalar, clone, spec) {
        Ok(stats) => (stats, None),
        Err(Error::Unsupported { what, .. }) if opts.allow_fallback => {
            clone.delete_function();
            let clone = cleanup::create_clone_function(module, scalar, spec, fty);
            transform::fallback::build(module, scalar, clone, spec);
            (WidenStats::default(), Some(what))
        }
        Err(e) => {
            clone.delete_function();
            return Err(e);
        }
    };
    let clone = module.function(&spec.vector_name).expect("the clone was just created");
    if let Err(e) = cleanup::finish(module, clone, scalar.function_type(), spec, opts) {
        clone.delete_function();
        return Err(e);
    }
    Ok(CloneReport { spec: spec.clone(), stats, fallback })
}

/// Prepares, analyses and widens; the clone's body is built on success.
fn vectorize(module: Module, scalar: Value, clone: Value, spec: &CloneSpec) -> Result<WidenStats> {
    let nparams = scalar.function_type().param_types().len() as u32;
    if let Some(i) = (0..nparams).find(|i| scalar.has_attribute_at(i + 1, "byval")) {
        // Lanes would share, or write through to the caller, what the scalar
        // function changes in its private copy; the per-lane loop copies.
        return Err(Error::Unsupported {
            function: spec.scalar_name.clone(),
            what: format!("parameter {i} is passed `byval` (a private copy per call) and is not vectorized yet"),
        });
    }
    let scratch = transform::prepare::prepare(module, scalar, &spec.scalar_name)?;
    let f = scratch.function;
    if transform::calls::isa_adds_fma(spec.isa, scalar) {
        transform::prepare::unfuse_for_fma_target(f);
    }
    let cfg = Cfg::new(f);
    let loops = Loops::new(&cfg, &Dominators::new(&cfg)).map_err(|irr| Error::Unsupported {
        function: spec.scalar_name.clone(),
        what: format!("irreducible control flow (a cycle entered at `{}` has several entries)", irr.block.name()),
    })?;
    let div = Divergence::new(f, &cfg, &loops, &spec.params);
    let an = transform::widen::Analyses { cfg: &cfg, loops: &loops, uni: &div.uniformity, plan: &div.plan };
    if std::env::var_os("BATCHIFY_DEBUG_DUMP").is_some() {
        for (i, l) in loops.loops.iter().enumerate() {
            eprintln!("loop {i}: header {} parent {:?} blocks {}", l.header.name(), l.parent, l.blocks.len());
        }
        for (level, p) in &div.plan.levels {
            let names: Vec<String> = p
                .nodes
                .iter()
                .map(|n| match n {
                    analysis::divergence::Node::Block(b) => b.name(),
                    analysis::divergence::Node::Loop(l) => format!("loop{}", l.0),
                })
                .collect();
            eprintln!("level {level:?}: linear {} nodes {names:?}", p.linear);
        }
    }
    let r = transform::widen::widen(module, f, clone, spec, &an);
    if std::env::var_os("BATCHIFY_DEBUG_DUMP").is_some() {
        eprintln!("{}\n{}", f.print_function(), clone.print_function());
    }
    r
}
