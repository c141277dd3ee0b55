//! What the scalar code promises about the memory behind its pointer
//! parameters, so that the oracle's random buffers keep those promises.
//!
//! Random bytes can break a promise the scalar code relies on: rustc marks
//! the load of an enum discriminant or a `bool` field with `!range`, or
//! truncates it with `trunc nuw`. On bytes outside the range the scalar
//! code is undefined, and the scalar build and an optimised clone may
//! follow different paths (regex-syntax's `Class::is_utf8`). The oracle
//! sees the loads at a constant offset from a parameter in the scalar
//! function's own body and writes an in-range value there.

use batchify_core::llvm::{LLVMOpcode, LLVMTypeKind, Value};
use rand::Rng;

/// A value range at a constant offset from a pointer parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Promise {
    /// The parameter.
    pub param: usize,
    /// Bytes from the parameter's pointer.
    pub offset: usize,
    /// Size of the loaded integer, in bytes.
    pub bytes: usize,
    /// Lowest value.
    pub lo: u64,
    /// One past the highest value (wrapping in `bytes * 8` bits).
    pub hi: u64,
}

impl Promise {
    /// A random value that keeps the promise.
    pub fn pick(&self, rng: &mut impl Rng) -> u64 {
        let bits = self.bytes as u32 * 8;
        let mask = if bits >= 64 { u64::MAX } else { (1u64 << bits) - 1 };
        let span = self.hi.wrapping_sub(self.lo) & mask;
        let span = if span == 0 { mask } else { span };
        self.lo.wrapping_add(rng.gen_range(0..span)) & mask
    }
}

/// The promises of the loads in `f`'s body.
pub fn promises_of(f: Value) -> Vec<Promise> {
    let params = f.params();
    let mut out = Vec::new();
    for b in f.blocks() {
        for i in b.instructions() {
            if i.opcode() != LLVMOpcode::LLVMLoad {
                continue;
            }
            let ty = i.ty();
            if ty.kind() != LLVMTypeKind::LLVMIntegerTypeKind || ty.int_width() % 8 != 0 || ty.int_width() > 64 {
                continue;
            }
            let Some((param, offset)) = param_offset(i.operand(0), &params) else { continue };
            let bits = ty.int_width();
            let bytes = bits as usize / 8;
            if let Some((lo, hi)) = range_of(i) {
                out.push(Promise { param, offset, bytes, lo, hi });
            } else if let Some(to) = truncated_nuw_to(i) {
                let hi = if to >= 64 { 0 } else { 1u64 << to };
                out.push(Promise { param, offset, bytes, lo: 0, hi });
            }
        }
    }
    out.dedup();
    out
}

/// `ptr` as parameter + constant byte offset (through `getelementptr i8`
/// with a constant index).
fn param_offset(mut ptr: Value, params: &[Value]) -> Option<(usize, usize)> {
    let mut offset = 0u64;
    for _ in 0..8 {
        if let Some(p) = params.iter().position(|&p| p == ptr) {
            return usize::try_from(offset).ok().map(|o| (p, o));
        }
        if !ptr.is_gep_instruction() || ptr.num_operands() != 2 {
            return None;
        }
        let source = ptr.gep_source_type();
        let is_i8 = source.kind() == LLVMTypeKind::LLVMIntegerTypeKind && source.int_width() == 8;
        let step = ptr.operand(1).const_int_value()?;
        if !is_i8 || step > 1 << 20 {
            return None;
        }
        offset += step;
        ptr = ptr.operand(0);
    }
    None
}

/// The first `[lo, hi)` pair of a load's `!range` metadata.
fn range_of(load: Value) -> Option<(u64, u64)> {
    let ops = load.metadata_operands("range")?;
    if ops.len() < 2 {
        return None;
    }
    Some((ops[0]?.const_int_value()?, ops[1]?.const_int_value()?))
}

/// The width a load is truncated to by a `trunc nuw` that uses it, if any.
fn truncated_nuw_to(load: Value) -> Option<u32> {
    load.users().into_iter().find_map(|u| {
        let nuw = u.is_trunc() && u.has_nuw();
        nuw.then(|| u.ty().int_width())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn picks_stay_in_range() {
        let mut rng = rand::rngs::SmallRng::seed_from_u64(1);
        let bool_byte = Promise { param: 0, offset: 0, bytes: 1, lo: 0, hi: 2 };
        let wrapping = Promise { param: 0, offset: 0, bytes: 1, lo: 250, hi: 3 };
        for _ in 0..200 {
            assert!(bool_byte.pick(&mut rng) < 2);
            let w = wrapping.pick(&mut rng);
            assert!(!(3..250).contains(&w), "{w}");
        }
    }
}
