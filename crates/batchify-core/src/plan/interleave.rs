//! Interleave groups: loads of the fields of an array of small structures
//! (`p[0]`, `p[1]`, `p[2]` of a pointer `p` that steps 3 elements a lane),
//! read as one wide access and split by shuffles, like the loop
//! vectorizer's interleave groups.
//!
//! Alone, each field of a stride-3 or stride-4 array would be a gather
//! (one wide masked load per field was measured slower, see
//! [`super::memory`]); together the fields of one group span the
//! structures once, so the clone loads `N·m` elements once, under a mask
//! that holds the fields the group reads in the lanes that run it, and
//! takes each field with one shuffle (`X86InterleavedAccess` turns the
//! stride-3 and stride-4 shuffles of a plain load into a few `vperm`s and
//! blends).
//!
//! A group is two or more non-volatile loads of one block, of one plain
//! element type, at constant offsets (in elements, below `m` apart) from
//! one root pointer whose lanes step `m` elements (`m` = 2, 3 or 4, no
//! run-time stride check), with no instruction between the first and the
//! last that may write memory or not return: then loading the later fields
//! where the first one is loaded reads what they would read, and reads only
//! what the scalar code reads in the lanes that run the block. A stride-2
//! field alone stays a wide access of its own ([`super::memory::Access::Strided`]).

use super::memory::{is_plain_element, is_sparse, Access, MemoryRecipe};
use super::Recipe;
use crate::analysis::shape::Shapes;
use crate::llvm::LLVMOpcode::*;
use crate::llvm::{Block, Module, Type, Value};
use std::collections::HashMap;

/// The widest structure, in elements, read as one interleave group.
pub const MAX_GROUP_STRIDE: u32 = 4;

/// One load's place in its interleave group: the group's first load (where
/// the wide access is made) and that load's field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Member<'ctx> {
    /// The group's first load in the block.
    pub leader: Value<'ctx>,
    /// The leader's field (elements from the structure's lowest field the
    /// group reads).
    pub leader_field: u32,
}

/// Loads that may form groups: the root pointer, the element type, `m`.
type Key<'ctx> = (Value<'ctx>, Type<'ctx>, u32);

/// Loads in block order with their offsets (in elements) from the root.
type Loads<'ctx> = Vec<(Value<'ctx>, i64)>;

/// A load at a constant offset from a pointer whose lanes step
/// `m` elements: `(root, offset in elements, m)`.
fn field_address<'ctx>(module: Module<'ctx>, shapes: &Shapes<'ctx>, i: Value<'ctx>) -> Option<(Value<'ctx>, i64, u32)> {
    // A refill worker's sparse element reads keep their loop over the active lanes.
    if i.opcode() != LLVMLoad || i.is_volatile() || i.is_atomic() || !is_plain_element(i.ty()) || is_sparse(i) {
        return None;
    }
    let size = module.abi_size_of(i.ty()) as i64;
    let (root, bytes) = constant_offset(module, i.operand(0))?;
    let stride = shapes.stride(root)?;
    if bytes % size != 0 || stride.step <= 0 || stride.step % size != 0 {
        return None;
    }
    let m = stride.step / size;
    (2..=MAX_GROUP_STRIDE as i64).contains(&m).then_some((root, bytes / size, m as u32))
}

/// `ptr` as a root pointer plus a constant byte offset: a `getelementptr`
/// with one constant index, or the pointer itself.
fn constant_offset<'ctx>(module: Module<'ctx>, ptr: Value<'ctx>) -> Option<(Value<'ctx>, i64)> {
    if !(ptr.is_instruction() && ptr.is_gep_instruction()) {
        return Some((ptr, 0));
    }
    if ptr.num_operands() != 2 {
        return Some((ptr, 0));
    }
    let index = ptr.operand(1);
    let Some(raw) = index.const_int_value() else { return Some((ptr, 0)) };
    let bits = index.ty().int_width();
    let k = if bits >= 64 { raw as i64 } else { ((raw << (64 - bits)) as i64) >> (64 - bits) };
    let elem = module.abi_size_of(ptr.gep_source_type()) as i64;
    Some((ptr.operand(0), k.checked_mul(elem)?))
}

/// Whether `i` may write memory or not return (so a later load must not
/// be made before it).
fn is_barrier(i: Value) -> bool {
    use crate::analysis::calls::{called_intrinsic, is_droppable_hint, lane_wise_intrinsic};
    match i.opcode() {
        // Lane-wise math intrinsics and hints read and write no memory and return.
        LLVMCall => !called_intrinsic(i).is_some_and(|b| lane_wise_intrinsic(&b).is_some() || is_droppable_hint(&b)),
        LLVMStore | LLVMFence | LLVMAtomicCmpXchg | LLVMAtomicRMW | LLVMInvoke => true,
        LLVMLoad => i.is_volatile() || i.is_atomic(),
        _ => false,
    }
}

/// The interleave groups of block `b`: each member load's place, given the
/// loads' recipes so far (`recipes`; members are varying loads the memory
/// rules planned as gathers or stride-2 wide accesses). Rewrites the
/// members' recipes to [`Access::Interleaved`].
pub fn plan_block<'ctx>(
    module: Module<'ctx>,
    shapes: &Shapes<'ctx>,
    b: Block<'ctx>,
    recipes: &mut HashMap<Value<'ctx>, Recipe>,
    members: &mut HashMap<Value<'ctx>, Member<'ctx>>,
) {
    // Candidate loads by (root, type, m), in block order, cut at barriers.
    let mut open: HashMap<Key<'ctx>, Loads<'ctx>> = HashMap::new();
    let mut order: Vec<Key<'ctx>> = Vec::new();
    let mut groups: Vec<(Key<'ctx>, Loads<'ctx>)> = Vec::new();
    let close = |open: &mut HashMap<_, Vec<_>>, order: &mut Vec<_>, groups: &mut Vec<_>| {
        for key in order.drain(..) {
            if let Some(loads) = open.remove(&key) {
                groups.push((key, loads));
            }
        }
    };
    for i in b.instructions() {
        if is_barrier(i) {
            close(&mut open, &mut order, &mut groups);
            continue;
        }
        let candidate = match recipes.get(&i) {
            Some(Recipe::Memory { load: true, recipe }) => {
                matches!(recipe.access, Access::Gather(_) | Access::Strided { .. })
            }
            _ => false,
        };
        if !candidate {
            continue;
        }
        let Some((root, offset, m)) = field_address(module, shapes, i) else { continue };
        let key = (root, i.ty(), m);
        if !open.contains_key(&key) {
            order.push(key);
        }
        open.entry(key).or_default().push((i, offset));
    }
    close(&mut open, &mut order, &mut groups);
    for ((root, _, m), loads) in groups {
        // The root's stride is every member's: checked for all or none.
        let checked = shapes.stride(root).is_some_and(|s| s.checked());
        for group in split_by_structure(&loads, m) {
            if group.len() < 2 {
                continue;
            }
            let low = group.iter().map(|&(_, o)| o).min().expect("nonempty");
            let fields = group.iter().fold(0u32, |acc, &(_, o)| acc | 1 << (o - low));
            let (leader, leader_offset) = group[0];
            for &(load, offset) in &group {
                let field = (offset - low) as u32;
                members.insert(load, Member { leader, leader_field: (leader_offset - low) as u32 });
                let lanewise = match recipes.get(&load) {
                    Some(Recipe::Memory { recipe, .. }) => recipe.lanewise,
                    _ => false,
                };
                let access = Access::Interleaved { m, field, fields };
                recipes.insert(load, Recipe::Memory { load: true, recipe: MemoryRecipe { access, checked, lanewise } });
            }
        }
    }
}

/// The loads of one root and stride (in block order) cut into groups that
/// fit one structure: offsets within `m` of the group's first, no offset
/// twice (a second load of a field starts a group of its own).
fn split_by_structure<'ctx>(loads: &[(Value<'ctx>, i64)], m: u32) -> Vec<Loads<'ctx>> {
    let mut groups: Vec<Loads<'ctx>> = Vec::new();
    for &(load, offset) in loads {
        let fits = |g: &Loads<'ctx>| {
            let low = g.iter().map(|&(_, o)| o).min().unwrap_or(offset).min(offset);
            let high = g.iter().map(|&(_, o)| o).max().unwrap_or(offset).max(offset);
            high - low < m as i64 && g.iter().all(|&(_, o)| o != offset)
        };
        match groups.iter_mut().find(|g| fits(g)) {
            Some(g) => g.push((load, offset)),
            None => groups.push(vec![(load, offset)]),
        }
    }
    groups
}
