//! Uniformity: which values are the same in every active lane.
//!
//! A value is *varying* if it depends, through operands or phi inputs, on a
//! varying value; if it is produced once per lane with possibly different
//! results (calls that may write memory, private allocations); or if it is
//! a *sync-dependent* phi (seeded by [`super::divergence`]): a phi where
//! lanes that took different paths join, or a loop live-out of a loop that
//! lanes leave at different iterations. Everything else is *uniform* and
//! stays scalar in the clone. A cross-lane operation's result
//! ([`super::cross_lane`]) is uniform or varying by the operation: `any`
//! of varying values is uniform, `lane_id()` is varying; a call of a
//! function that uses them is varying (it runs as the callee's clone). A load from a uniform address is uniform:
//! lanes run in lock step and read the same memory state.

use crate::llvm::LLVMOpcode;
use crate::llvm::Value;
use crate::vfabi::ParamKind;
use std::collections::HashSet;

use super::cfg::Cfg;

/// Result: the set of varying values (arguments and instructions).
#[derive(Debug, Clone, Default)]
pub struct Uniformity<'ctx> {
    varying: HashSet<Value<'ctx>>,
    sync_dependent: HashSet<Value<'ctx>>,
}

impl<'ctx> Uniformity<'ctx> {
    /// Computes uniformity for `f` whose parameters have the given kinds,
    /// with `seeds` (sync-dependent phis) forced varying and calls of
    /// `group_callees` (`cross_lane::group_callees`) varying.
    pub fn new(
        f: Value<'ctx>,
        cfg: &Cfg<'ctx>,
        params: &[ParamKind],
        seeds: &HashSet<Value<'ctx>>,
        group_callees: &HashSet<Value<'ctx>>,
    ) -> Uniformity<'ctx> {
        let mut varying: HashSet<Value> = seeds.clone();
        for (p, kind) in f.params().into_iter().zip(params) {
            if *kind != ParamKind::Uniform {
                varying.insert(p);
            }
        }
        // Functions that use cross-lane operations run for the group: a
        // call of one is never one scalar call for all lanes.
        for b in &cfg.rpo {
            for i in b.instructions() {
                if i.is_call() && group_callees.contains(&i.called_value()) {
                    varying.insert(i);
                }
            }
        }
        loop {
            let mut changed = false;
            for b in &cfg.rpo {
                for i in b.instructions() {
                    if !varying.contains(&i) && Self::is_varying_inst(i, &varying) {
                        varying.insert(i);
                        changed = true;
                    }
                }
            }
            if !changed {
                break;
            }
        }
        Uniformity { varying, sync_dependent: seeds.clone() }
    }

    fn is_varying_inst(i: Value<'ctx>, varying: &HashSet<Value<'ctx>>) -> bool {
        use LLVMOpcode::*;
        match i.opcode() {
            LLVMPHI => i.incoming().iter().any(|(v, _)| varying.contains(v)),
            LLVMAlloca => true,
            LLVMCall if super::cross_lane::op_of(i).is_some() => {
                let op = super::cross_lane::op_of(i).expect("checked");
                op.result_varies(|k| varying.contains(&i.operand(k)))
            }
            LLVMCall => {
                !crate::analysis::calls::is_lane_invariant_call(i) || i.operands().iter().any(|v| varying.contains(v))
            }
            LLVMAtomicRMW | LLVMAtomicCmpXchg | LLVMVAArg | LLVMLandingPad => true,
            _ => i.operands().iter().any(|v| varying.contains(v)),
        }
    }

    /// Whether a value differs between lanes.
    pub fn is_varying(&self, v: Value<'ctx>) -> bool {
        self.varying.contains(&v)
    }

    /// Whether `phi` is sync-dependent: lanes reach it along different
    /// paths or leave a loop at different iterations, so its lanes are not
    /// computed by one rule (see [`super::shape`]).
    pub fn is_sync_dependent(&self, phi: Value<'ctx>) -> bool {
        self.sync_dependent.contains(&phi)
    }

    /// Number of varying values (for the fixed point in [`super::divergence`]).
    pub fn len(&self) -> usize {
        self.varying.len()
    }

    /// Whether no value is varying.
    pub fn is_empty(&self) -> bool {
        self.varying.is_empty()
    }
}
