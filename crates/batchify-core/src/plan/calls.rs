//! Batched calls: which varying calls of module functions become one call
//! of a vector function, and of which one (the rule is documented in
//! `emit/callees.rs`, which builds the call).
//!
//! In order: a variant the callee declares that serves the call's shape; a
//! clone of the callee this run was asked for; an internal helper clone of
//! the call's shape. A callee that is only declared, or that
//! [`crate::analysis::callees::CalleeSummaries::stays_per_lane`] keeps per
//! lane, runs once per lane.

use super::Inputs;
use crate::callee_clones::{CalleeClones, Resolved};
use crate::llvm::Value;
use crate::spec::{mask_abi_for, CloneSpec};
use crate::vfabi::{Param, ParamKind, VariantName};

/// Which function serves a batched call.
#[derive(Debug, Clone, PartialEq)]
pub enum CallTarget {
    /// A variant the callee declares, or a clone this run was asked for:
    /// the function of that name (declared by emission if it is not in the
    /// module yet).
    Named(Resolved),
    /// An internal helper clone of the call's shape, named and declared by
    /// emission (`__batchify.<VFABI name>`).
    Helper,
}

/// A varying call that becomes one call of a vector function.
#[derive(Debug, Clone, PartialEq)]
pub struct BatchedCall {
    /// The vector function's spec: what each argument is passed as, and
    /// whether it takes the mask.
    pub spec: CloneSpec,
    /// The function.
    pub target: CallTarget,
}

impl BatchedCall {
    /// The recipe's text in `--print-plan`.
    pub fn describe(&self) -> String {
        match &self.target {
            CallTarget::Named(r) if r.requested => format!("requested clone `{}`", r.spec.vector_name),
            CallTarget::Named(r) => format!("declared variant `{}`", r.spec.vector_name),
            CallTarget::Helper => format!("callee clone `__batchify.{}`", self.spec.vector_name),
        }
    }
}

/// The batched form of varying call `i` in a block whose mask is `full` or
/// not, or why it has none (`Err(Some(why))` where the report should say
/// why the module function stays per lane, `Err(None)` where the call is
/// not one of a module function that could be batched).
pub fn batched_call<'ctx>(
    inputs: &Inputs<'_, 'ctx>,
    callees: &mut CalleeClones<'ctx>,
    i: Value<'ctx>,
    full: bool,
) -> Result<BatchedCall, Option<String>> {
    let callee = i.called_value();
    if !callee.is_function() || callee.intrinsic_id() != 0 || i.is_musttail() {
        return Err(None);
    }
    if i.num_operands() != i.num_arg_operands() + 1 {
        return Err(None); // operand bundles: they belong to the scalar call
    }
    if callee.function_type() != i.called_function_type() {
        return Err(None); // called with another prototype: keep the scalar call
    }
    let varying = |v: Value<'ctx>| inputs.uniformity.is_varying(v);
    let cname = callee.name();
    let args: Vec<Value> = (0..i.num_arg_operands()).map(|k| i.operand(k)).collect();
    let mut params = Vec::new();
    for (k, a) in args.iter().enumerate() {
        if !varying(*a) {
            params.push(ParamKind::Uniform);
        } else if a.ty().is_vector_element() {
            params.push(ParamKind::Vector);
        } else {
            return Err(Some(format!("argument {k} is a varying `{}`, which has no vector form", a.ty().print())));
        }
    }
    let masked = !full;
    let (isa, n) = (inputs.spec.isa, inputs.spec.width);
    let ps: Vec<Param> = params.iter().map(|&kind| Param { kind, align: None }).collect();
    let shape = CloneSpec {
        scalar_name: cname.clone(),
        vector_name: VariantName::mangle(isa, masked, n, &ps, &cname),
        width: n,
        aligns: vec![None; params.len()],
        params: params.clone(),
        mask: masked.then(|| mask_abi_for(isa)),
        isa,
    };
    // Where an argument is linear, a variant taking it as `l<step>` serves
    // the call as well as one taking a vector.
    let mut linear_shape = shape.clone();
    for (k, a) in args.iter().enumerate() {
        if let Some(step) = exact_step(inputs, *a) {
            linear_shape.params[k] = ParamKind::Linear { step };
        }
    }
    let named = |r: Resolved| BatchedCall { spec: r.spec.clone(), target: CallTarget::Named(r) };
    if let Some(r) = callees.declared_variant(inputs.module, callee, &linear_shape) {
        return Ok(named(r));
    }
    if callee.is_declaration() {
        return Err(None); // nothing to batch; the usual per-lane call
    }
    if let Some(why) = callees.summaries.stays_per_lane(callee, &args, varying) {
        return Err(Some(why));
    }
    if let Some(r) = callees.requested_clone(inputs.module, callee, &linear_shape) {
        return Ok(named(r));
    }
    match callees.helper_for(inputs.module, callee, &shape) {
        Ok(()) => Ok(BatchedCall { spec: shape, target: CallTarget::Helper }),
        Err(why) => Err(Some(why)),
    }
}

/// The step of varying integer or pointer `a` if lane `k` is lane 0 plus
/// `k·step` without a run-time check (bytes for a pointer, as in a
/// `linear` parameter).
fn exact_step<'ctx>(inputs: &Inputs<'_, 'ctx>, a: Value<'ctx>) -> Option<i64> {
    if !inputs.uniformity.is_varying(a) || !(a.ty().int_width() > 0 || a.ty().is_pointer()) {
        return None;
    }
    inputs.shapes.stride(a).filter(|s| !s.checked() && s.step != 0).map(|s| s.step)
}
