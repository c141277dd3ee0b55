//! batchify-core: turns scalar LLVM IR functions into N-lane SIMD clones.
//!
//! The pipeline, one module per stage:
//! 1. **select** ([`select`]): which clones to build ([`spec::CloneSpec`]),
//!    from explicit requests or the module's `declare simd` attributes;
//! 2. **prepare** ([`transform::prepare`]): a scratch copy of the scalar
//!    function, normalised by LLVM passes (mem2reg, loop-simplify, lcssa);
//! 3. **analyse** ([`analysis`]): CFG, uniformity;
//! 4. **widen** ([`transform::widen`]): the clone's body, per-instruction rules;
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

use analysis::{cfg::Cfg, uniformity::Uniformity};
use llvm::Module;
use transform::widen::WidenStats;

/// Options of one batchify run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    /// Optimisation level applied to the clones (0..=3).
    pub opt_level: u8,
}

impl Default for Options {
    fn default() -> Self {
        Options { opt_level: 2 }
    }
}

/// What happened to one requested clone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CloneReport {
    /// The request.
    pub spec: CloneSpec,
    /// Widening statistics.
    pub stats: WidenStats,
}

impl CloneReport {
    /// Human-readable lines for `--report`.
    pub fn lines(&self) -> Vec<String> {
        let s = &self.stats;
        let mut out = vec![format!(
            "{} -> {}: {} lanes, {} vector instruction(s), {} uniform, {} per-lane",
            self.spec.scalar_name, self.spec.vector_name, self.spec.width, s.vectorized, s.uniform, s.serialized
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
    if module.function(&spec.vector_name).is_some_and(|f| !f.is_declaration()) {
        return Err(Error::VariantMismatch {
            variant: spec.vector_name.clone(),
            reason: "a function of that name already has a body in the module".into(),
        });
    }
    if spec.mask.is_some() {
        return Err(Error::Unsupported {
            function: spec.scalar_name.clone(),
            what: format!("masked variant `{}` is not supported yet", spec.vector_name),
        });
    }
    let fty = transform::signature::clone_type(scalar, spec)?;
    let scratch = transform::prepare::prepare(module, scalar, &spec.scalar_name)?;
    let cfg = Cfg::new(scratch.function);
    let uni = Uniformity::new(scratch.function, &cfg, &spec.params);
    let clone = cleanup::create_clone_function(module, scalar, spec, fty);
    let result = transform::widen::widen(module, scratch.function, clone, spec, &cfg, &uni)
        .and_then(|stats| cleanup::finish(module, clone, spec, opts).map(|_| stats));
    drop(scratch);
    match result {
        Ok(stats) => Ok(CloneReport { spec: spec.clone(), stats }),
        Err(e) => {
            clone.delete_function();
            Err(e)
        }
    }
}
