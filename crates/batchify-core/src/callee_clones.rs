//! The registry of callee clones for one batchify run (see
//! [`crate::emit::callees`]): which helper clone serves each call shape,
//! which helpers still have to be built, and which declared Vector Function
//! ABI variants can serve a call. The plan asks it (pure queries); emission
//! declares what the plan chose ([`CalleeClones::materialize`],
//! [`CalleeClones::helper`]); the driver builds the pending helpers.

use crate::abi;
use crate::analysis::callees::CalleeSummaries;
use crate::llvm::{Module, Value};
use crate::spec::CloneSpec;
use crate::vfabi::{ParamKind, VariantName, VectorLength};
use std::collections::{HashMap, HashSet};

/// Prefix of helper clones' names.
pub const HELPER_PREFIX: &str = "__batchify.";

/// The callee clones of one batchify run: built, declared and waiting.
#[derive(Default)]
pub struct CalleeClones<'ctx> {
    pub(crate) summaries: CalleeSummaries<'ctx>,
    /// Helper shape (its mangled name) to the helper's name in the module.
    helpers: HashMap<String, String>,
    /// Helpers declared but not built yet, oldest first.
    pending: Vec<CloneSpec>,
    /// Names of every helper of the run.
    helper_names: HashSet<String>,
    /// The clones the run was asked for (they may serve calls, item 2).
    requested: Vec<CloneSpec>,
}

impl<'ctx> CalleeClones<'ctx> {
    /// A registry for a run that builds `requested`.
    pub fn new(requested: &[CloneSpec]) -> Self {
        CalleeClones { requested: requested.to_vec(), ..Default::default() }
    }

    /// The next helper to build, if any.
    pub fn next_pending(&mut self) -> Option<CloneSpec> {
        (!self.pending.is_empty()).then(|| self.pending.remove(0))
    }

    /// Whether `name` is a helper clone of this run.
    pub fn is_helper(&self, name: &str) -> bool {
        self.helper_names.contains(name)
    }

    /// The helper for `spec` (whose `vector_name` is the shape's mangled
    /// name), declared now if new.
    pub(crate) fn helper(
        &mut self,
        module: Module<'ctx>,
        scalar: Value<'ctx>,
        spec: &CloneSpec,
    ) -> Result<Value<'ctx>, String> {
        if let Some(name) = self.helpers.get(&spec.vector_name) {
            return Ok(module.function(name).expect("helpers stay in the module"));
        }
        let fty = abi::clone_type(scalar, spec).map_err(|e| e.to_string())?;
        let base = format!("{HELPER_PREFIX}{}", spec.vector_name);
        let mut name = base.clone();
        let mut k = 0;
        while module.function(&name).is_some() || module.has_global_named(&name) {
            k += 1;
            name = format!("{base}.{k}");
        }
        // Declared with external linkage (an internal declaration is not
        // valid IR); the build makes it internal.
        let f = module.add_function(&name, fty);
        abi::apply_call_conv(f, spec.isa);
        self.helpers.insert(spec.vector_name.clone(), name.clone());
        self.helper_names.insert(name.clone());
        self.pending.push(CloneSpec { vector_name: name, ..spec.clone() });
        Ok(f)
    }

    /// Whether a helper of `shape` can serve a call of `callee`: the plan's
    /// question before it chooses one ([`Self::helper`] declares it).
    pub(crate) fn helper_for(
        &self,
        module: Module<'ctx>,
        callee: Value<'ctx>,
        shape: &CloneSpec,
    ) -> Result<(), String> {
        if let Some(name) = self.helpers.get(&shape.vector_name) {
            if module.function(name).is_some() {
                return Ok(());
            }
        }
        abi::clone_type(callee, shape).map(|_| ()).map_err(|e| e.to_string())
    }

    /// A vector variant that `callee` declares (`vector-function-abi-variant`,
    /// `_ZGV` attributes) and that serves a call of this shape (see
    /// [`fits`]). Its declaration is a promise, as in OpenMP `declare simd`,
    /// that the variant may stand for the scalar calls, so it is used
    /// whatever the callee does. It must be in the module (with the clone
    /// type batchify gives that variant), or this run must build it.
    pub(crate) fn declared_variant(
        &self,
        module: Module<'ctx>,
        callee: Value<'ctx>,
        shape: &CloneSpec,
    ) -> Option<Resolved> {
        let name = callee.name();
        let declared = declared_variants(callee).into_iter().filter_map(|n| {
            let v = VariantName::parse(&n).ok()?;
            (v.scalar_name == name && v.vlen == VectorLength::Fixed(shape.width))
                .then(|| CloneSpec::from_variant(&v).ok())
                .flatten()
        });
        // An unmasked call prefers an unmasked variant: no mask to pass.
        let mut fitting: Vec<CloneSpec> = declared.filter(|spec| fits(spec, shape)).collect();
        fitting.sort_by_key(|spec| spec.mask.is_some() != shape.mask.is_some());
        fitting.into_iter().find_map(|spec| self.resolve(module, callee, spec, false))
    }

    /// A clone of `callee` that this run was asked for and that serves a
    /// call of this shape (see [`fits`]). The caller checks first that the
    /// callee may be batched at all.
    pub(crate) fn requested_clone(
        &self,
        module: Module<'ctx>,
        callee: Value<'ctx>,
        shape: &CloneSpec,
    ) -> Option<Resolved> {
        let name = callee.name();
        self.requested
            .iter()
            .filter(|r| r.scalar_name == name && fits(r, shape))
            .find_map(|spec| self.resolve(module, callee, spec.clone(), true))
    }

    /// Whether variant `spec` can be called: in the module with batchify's
    /// clone type for it, or to be declared (this run builds it later, or a
    /// `declare simd` function's own module defines it).
    fn resolve(&self, module: Module<'ctx>, callee: Value<'ctx>, spec: CloneSpec, requested: bool) -> Option<Resolved> {
        let clone_abi = abi::CloneAbi::of(callee, &spec).ok()?;
        let fty = clone_abi.natural;
        if clone_abi.lowering.is_some() {
            // Its symbol has GCC's lowered type (`shell::gcc_adapter`); a
            // helper of the natural type serves the call instead.
            return None;
        }
        let declare = match module.function(&spec.vector_name) {
            Some(f) if f.function_type() == fty => None,
            Some(_) => return None,
            None if self.requested.contains(&spec) && !module.has_global_named(&spec.vector_name) => {
                Some(Declare::Clone)
            }
            // A `declare simd` function defined elsewhere: its own module
            // defines the variants it lists (as the caller side assumes).
            None if callee.is_declaration() && !module.has_global_named(&spec.vector_name) => Some(Declare::External),
            None => return None,
        };
        Some(Resolved { spec, requested, declare })
    }

    /// The function of a resolved variant, declared now if it is not in the
    /// module yet (the build of a requested clone replaces the declaration).
    pub(crate) fn materialize(module: Module<'ctx>, callee: Value<'ctx>, r: &Resolved) -> Value<'ctx> {
        if let Some(f) = module.function(&r.spec.vector_name) {
            return f;
        }
        let fty = abi::clone_type(callee, &r.spec).expect("the plan resolved this variant's type");
        let f = module.add_function(&r.spec.vector_name, fty);
        abi::apply_call_conv(f, r.spec.isa);
        if r.declare == Some(Declare::External) {
            crate::shell::target::apply(callee, f, r.spec.isa);
        }
        f
    }
}

/// A variant that serves a call, as the plan found it.
#[derive(Debug, Clone, PartialEq)]
pub struct Resolved {
    /// The variant.
    pub spec: CloneSpec,
    /// One of the clones this run was asked for (else a declared variant).
    pub requested: bool,
    /// How emission declares it where the module does not have it yet.
    pub declare: Option<Declare>,
}

/// How a variant that is not in the module yet is declared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Declare {
    /// A clone this run builds later.
    Clone,
    /// A variant of a `declare simd` function defined elsewhere, with its
    /// ISA's target features.
    External,
}

/// Whether variant `spec` serves a call of `shape`: same width and ISA,
/// masked if the call needs a mask (a masked variant also serves a full
/// mask), no alignment promises, and per argument: `v` always, `u` where
/// the argument is uniform, `l<step>` where it is linear with that step
/// (`shape` says `l<step>` for such an argument).
fn fits(spec: &CloneSpec, shape: &CloneSpec) -> bool {
    spec.width == shape.width
        && spec.isa == shape.isa
        && (spec.mask.is_some() || shape.mask.is_none())
        && spec.aligns.iter().all(Option::is_none)
        && spec.params.len() == shape.params.len()
        && spec.params.iter().zip(&shape.params).all(|(have, need)| match (have, need) {
            (ParamKind::Vector, _) | (ParamKind::Uniform, ParamKind::Uniform) => true,
            (ParamKind::Linear { step: a }, ParamKind::Linear { step: b }) => a == b,
            _ => false,
        })
}

/// Gives a helper clone the symbol of an internal helper: internal
/// linkage, default visibility and DLL storage class, no comdat (whatever
/// its scalar function's symbol was).
pub fn make_helper_symbol(clone: Value) {
    clone.set_internal();
    clone.set_visibility(crate::llvm::LLVMVisibility::LLVMDefaultVisibility);
    clone.set_dll_storage_class(crate::llvm::LLVMDLLStorageClass::LLVMDefaultStorageClass);
    clone.clear_comdat();
}

/// The variant names `f` lists (`_ZGV...` attributes and the
/// `vector-function-abi-variant` list).
pub(crate) fn declared_variants(f: Value) -> Vec<String> {
    use crate::llvm::{attribute_is_string, attribute_string_key, attribute_string_value, FUNCTION_INDEX};
    let mut out = Vec::new();
    for a in f.attributes(FUNCTION_INDEX) {
        if !attribute_is_string(a) {
            continue;
        }
        let key = attribute_string_key(a);
        if key.starts_with("_ZGV") {
            out.push(key);
        } else if key == "vector-function-abi-variant" {
            out.extend(attribute_string_value(a).split(',').map(|s| s.trim().to_string()));
        }
    }
    out
}
