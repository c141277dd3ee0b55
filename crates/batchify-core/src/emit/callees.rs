//! Batched callees: a varying call to a function defined in the module
//! becomes one call to that function's own clone, built with the caller's
//! width and ISA, instead of one scalar call per active lane.
//!
//! * The callee clone's shape comes from the call: a uniform argument stays
//!   a scalar (`u`), a varying one is a vector (`v`); it is masked (with the
//!   ISA's mask ABI, [`crate::spec::mask_abi_for`]) where the caller's mask
//!   may be partial, and unmasked where every lane is known active.
//! * A function that lists a Vector Function ABI variant of that shape
//!   (`vector-function-abi-variant`, `declare simd`) is called through the
//!   variant, if the module has it or this run builds it.
//! * Otherwise the clone is an internal helper named
//!   `__batchify.<VFABI name>` (for example `__batchify._ZGV_LLVM_M8vu_gcd`),
//!   a name no requested variant or C/Rust symbol has; a clash with an
//!   existing symbol gets a numeric suffix. [`CalleeClones`] keeps one
//!   helper per shape for the whole run, declares it when a caller first
//!   needs it, and hands its spec to the driver (`lib.rs`), which builds it
//!   like any clone (vector code, or the per-lane fallback when legality or
//!   cost say no) after the caller. Recursion needs nothing special: a
//!   recursive call finds its own helper already declared.
//! * Which callees may be batched is decided by
//!   [`crate::analysis::callees`]; every call that stays per lane is
//!   reported with the reason.

use super::state::Widener;
use crate::abi;
use crate::analysis::callees::CalleeSummaries;
use crate::llvm::{Module, Value};
use crate::spec::{mask_abi_for, CloneSpec};
use crate::vfabi::{Param, ParamKind, VariantName, VectorLength};
use std::collections::{HashMap, HashSet};

/// Prefix of helper clones' names.
pub const HELPER_PREFIX: &str = "__batchify.";

/// The callee clones of one batchify run: built, declared and waiting.
#[derive(Default)]
pub struct CalleeClones<'ctx> {
    summaries: CalleeSummaries<'ctx>,
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
    fn helper(&mut self, module: Module<'ctx>, scalar: Value<'ctx>, spec: &CloneSpec) -> Result<Value<'ctx>, String> {
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
        self.helpers.insert(spec.vector_name.clone(), name.clone());
        self.helper_names.insert(name.clone());
        self.pending.push(CloneSpec { vector_name: name, ..spec.clone() });
        Ok(f)
    }

    /// A Vector Function ABI variant of `callee` that serves a call of this
    /// shape: same width and ISA, masked if the call needs a mask (a masked
    /// variant also serves a full mask), `v` where the argument varies and
    /// `v` or `u` where it is uniform. It must be in the module or among the
    /// requested clones, with the clone type batchify gives that variant.
    fn variant(
        &self,
        module: Module<'ctx>,
        callee: Value<'ctx>,
        shape: &CloneSpec,
    ) -> Option<(Value<'ctx>, CloneSpec)> {
        for name in declared_variants(callee) {
            let Ok(v) = VariantName::parse(&name) else { continue };
            let Ok(spec) = CloneSpec::from_variant(&v) else { continue };
            let fits = v.scalar_name == callee.name()
                && v.vlen == VectorLength::Fixed(shape.width)
                && spec.isa == shape.isa
                && (spec.mask.is_some() || shape.mask.is_none())
                && spec.params.len() == shape.params.len()
                && spec.params.iter().zip(&shape.params).all(|(have, need)| {
                    *have == ParamKind::Vector || (*have == ParamKind::Uniform && *need == ParamKind::Uniform)
                });
            if !fits {
                continue;
            }
            let Ok(fty) = abi::clone_type(callee, &spec) else { continue };
            let f = match module.function(&spec.vector_name) {
                Some(f) if f.function_type() == fty => f,
                Some(_) => continue,
                None if self.requested.iter().any(|r| r == &spec) && !module.has_global_named(&spec.vector_name) => {
                    // Built later in this run; the build replaces the declaration.
                    module.add_function(&spec.vector_name, fty)
                }
                None => continue,
            };
            return Some((f, spec));
        }
        None
    }
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
fn declared_variants(f: Value) -> Vec<String> {
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

impl<'ctx> Widener<'_, 'ctx> {
    /// A call of the callee's clone (or declared variant) standing for the
    /// varying call `i`, or `None` if `i` stays per lane (the reason is
    /// recorded for the report where `i` calls a module function).
    pub(crate) fn batched_call(&mut self, i: Value<'ctx>) -> Option<Value<'ctx>> {
        let callee = i.called_value();
        if !callee.is_function() || callee.intrinsic_id() != 0 || i.is_musttail() {
            return None;
        }
        if callee.function_type() != i.called_function_type() {
            return None; // called with another prototype: keep the scalar call
        }
        let cname = callee.name();
        let nargs = i.num_arg_operands();
        let args: Vec<Value> = (0..nargs).map(|k| i.operand(k)).collect();
        let mut params = Vec::new();
        for (k, a) in args.iter().enumerate() {
            if !self.analyses.uniformity.is_varying(*a) {
                params.push(ParamKind::Uniform);
            } else if a.ty().is_vector_element() {
                params.push(ParamKind::Vector);
            } else {
                self.note_call(
                    &cname,
                    format!("argument {k} is a varying `{}`, which has no vector form", a.ty().print()),
                );
                return None;
            }
        }
        let masked = !self.flow.full;
        let isa = self.spec.isa;
        let ps: Vec<Param> = params.iter().map(|&kind| Param { kind, align: None }).collect();
        let shape = CloneSpec {
            scalar_name: cname.clone(),
            vector_name: VariantName::mangle(isa, masked, self.n, &ps, &cname),
            width: self.n,
            aligns: vec![None; params.len()],
            params: params.clone(),
            mask: masked.then(|| mask_abi_for(isa)),
            isa,
        };
        let (target, spec) = match self.callees.variant(self.module, callee, &shape) {
            Some(found) => found,
            None => {
                if callee.is_declaration() {
                    return None; // nothing to batch; the usual per-lane call
                }
                let summary = match self.callees.summaries.summary(callee) {
                    Ok(s) => s,
                    Err(why) => {
                        self.note_call(&cname, why);
                        return None;
                    }
                };
                let is_ptr = |a: &Value| a.ty().kind() == crate::llvm::LLVMTypeKind::LLVMPointerTypeKind;
                if summary.writes && args.iter().any(|a| is_ptr(a) && !self.analyses.uniformity.is_varying(*a)) {
                    self.note_call(
                        &cname,
                        format!(
                            "`{cname}` writes memory and gets a pointer that is the same in every lane: lanes' \
                             writes would conflict, so the calls stay in lane order"
                        ),
                    );
                    return None;
                }
                match self.callees.helper(self.module, callee, &shape) {
                    Ok(f) => (f, shape),
                    Err(why) => {
                        self.note_call(&cname, why);
                        return None;
                    }
                }
            }
        };
        let mut vargs = Vec::new();
        for (a, kind) in args.iter().zip(&spec.params) {
            vargs.push(if *kind == ParamKind::Vector { self.varying_value(*a) } else { self.uniform_value(*a) });
        }
        let fty = target.function_type();
        if let Some(mabi) = spec.mask {
            let m = if self.flow.full { self.all_true() } else { self.flow.mask };
            let mty = *fty.param_types().last().expect("a masked clone has a mask parameter");
            vargs.push(abi::encode_mask(&self.b, mabi, m, mty));
        }
        let r = self.b.call(fty, target, &vargs);
        r.set_call_conv(target.call_conv());
        let line = format!("call to `{cname}` -> `{}`", target.name());
        if !self.stats.batched_calls.contains(&line) {
            self.stats.batched_calls.push(line);
        }
        Some(r)
    }

    fn note_call(&mut self, callee: &str, why: String) {
        let line = format!("call to `{callee}`: {why}");
        if !self.stats.per_lane_calls.contains(&line) {
            self.stats.per_lane_calls.push(line);
        }
    }
}
