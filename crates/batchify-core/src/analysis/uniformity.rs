//! Uniformity analysis: which values are the same in every lane.
//!
//! A value is *varying* if it depends, through operands or phi inputs, on a
//! varying (non-uniform) parameter, or if it is the result of something that
//! runs once per lane with possibly different results (calls that may write
//! memory or have other side effects, private allocations). Everything else
//! is *uniform* and stays scalar in the clone. Loads from a uniform address
//! are uniform: lanes run in lock step, so they read the same memory state.
//!
//! This first version assumes uniform control flow; the transform rejects
//! functions with a varying branch before relying on it. Sync dependence
//! (phis at the join of a divergent branch) comes with divergent control flow.

use crate::llvm::Value;
use crate::vfabi::ParamKind;
use llvm_sys::LLVMOpcode;
use std::collections::HashSet;

use super::cfg::Cfg;

/// Result: the set of varying values (arguments and instructions).
#[derive(Debug, Clone, Default)]
pub struct Uniformity {
    varying: HashSet<Value>,
}

impl Uniformity {
    /// Computes uniformity for `f` whose parameters have the given kinds.
    pub fn new(f: Value, cfg: &Cfg, params: &[ParamKind]) -> Uniformity {
        let mut varying = HashSet::new();
        for (p, kind) in f.params().into_iter().zip(params) {
            if *kind != ParamKind::Uniform {
                varying.insert(p);
            }
        }
        // Fixed point over the blocks in RPO (phis in loops need iteration).
        loop {
            let mut changed = false;
            for b in &cfg.rpo {
                for i in b.instructions() {
                    if varying.contains(&i) {
                        continue;
                    }
                    if Self::is_varying_inst(i, &varying) {
                        varying.insert(i);
                        changed = true;
                    }
                }
            }
            if !changed {
                break;
            }
        }
        Uniformity { varying }
    }

    fn is_varying_inst(i: Value, varying: &HashSet<Value>) -> bool {
        use LLVMOpcode::*;
        match i.opcode() {
            LLVMPHI => i.incoming().iter().any(|(v, _)| varying.contains(v)),
            LLVMAlloca => true,
            LLVMCall => {
                !crate::transform::calls::is_lane_invariant_call(i) || i.operands().iter().any(|v| varying.contains(v))
            }
            LLVMAtomicRMW | LLVMAtomicCmpXchg | LLVMVAArg | LLVMLandingPad => true,
            _ => i.operands().iter().any(|v| varying.contains(v)),
        }
    }

    /// Whether a value differs between lanes.
    pub fn is_varying(&self, v: Value) -> bool {
        self.varying.contains(&v)
    }
}
