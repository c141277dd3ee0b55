//! Private memory: the layout of each `alloca` that `mem2reg` could not
//! remove (arrays indexed by varying values, address-taken locals). Every
//! lane needs its own copy; the clone allocates all `N` copies at once.
//!
//! * **Interleaved**: an array of `L` plain elements `T` (or one `T`)
//!   whose address is only used to load and store `T` or `<k x T>` (at
//!   element offsets, uniform for vectors), through `getelementptr`s in
//!   element units (`T, i`; `[L x T], 0, i`; `i8, C` with `C` a multiple of
//!   the element size), `llvm.memset` with a constant byte and length, and
//!   lifetime markers. Element `e` of lane `j` is at `(e·N + j)·size`, so a
//!   uniform index makes a contiguous vector access and a `<k x T>` access
//!   is one contiguous `<N·k x T>` access in the emitter's element-major
//!   order ([`crate::emit::vector_input`]).
//! * **Per lane**: anything else (the address escapes to a call, is stored,
//!   compared, or indexed in other units): lane `j`'s copy is at
//!   `j·S`, `S` the allocation size rounded up to its alignment, and the
//!   address is an ordinary strided pointer.
//!
//! Allocas outside the entry block or with a computed element count are
//! left to [`crate::legality`] (per-lane fallback).
//!
//! Part of the analyses: reads the prepared function, changes nothing.

use super::cfg::Cfg;
use super::tape::is_plain;
use crate::llvm::LLVMOpcode::*;
use crate::llvm::{intrinsic_base_name, Module, Type, Value};
use std::collections::HashMap;

/// How the `N` copies of one private allocation are laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout<'ctx> {
    /// Element `e` of lane `j` at `(e·N + j)·size`.
    Interleaved {
        /// The element type.
        elem: Type<'ctx>,
        /// Its allocation size in bytes.
        size: u64,
        /// Number of elements.
        len: u64,
    },
    /// Lane `j`'s copy at `j·stride` bytes.
    PerLane {
        /// Bytes between two lanes' copies.
        stride: u64,
    },
    /// A heap buffer each lane grows with `realloc` ([`super::tape`]), one
    /// shared buffer in the clone: element `e` of lane `j` at
    /// `(e·N + j)·size` from the buffer's start.
    Tape {
        /// The element type.
        elem: Type<'ctx>,
        /// Its allocation size in bytes.
        size: u64,
    },
}

/// What a call does to a tape ([`super::tape`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TapeCall<'ctx> {
    /// A `realloc` of the tape named by its key: grows the shared buffer.
    Grow(Value<'ctx>),
    /// A `free` of the tape: deferred to the clone's return.
    Free(Value<'ctx>),
}

/// How an address into interleaved memory indexes its elements.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ElementIndex<'ctx> {
    /// A constant element offset.
    Constant(u64),
    /// The element offset is this integer value.
    Value(Value<'ctx>),
}

/// Result: the layout of each private allocation, and for each address
/// into interleaved memory, its allocation and element index.
#[derive(Debug, Clone, Default)]
pub struct PrivateMemory<'ctx> {
    layouts: HashMap<Value<'ctx>, Layout<'ctx>>,
    addresses: HashMap<Value<'ctx>, (Value<'ctx>, ElementIndex<'ctx>)>,
    tapes: Vec<super::tape::Tape<'ctx>>,
    tape_calls: HashMap<Value<'ctx>, TapeCall<'ctx>>,
}

/// The largest interleaved allocation, in bytes per lane.
const MAX_INTERLEAVED_BYTES: u64 = 512;

impl<'ctx> PrivateMemory<'ctx> {
    /// Lays out the static allocas of the entry block of `f`, and (with
    /// `tapes`) finds its tapes ([`super::tape`]).
    pub fn new(module: Module<'ctx>, cfg: &Cfg<'ctx>, tapes: bool) -> PrivateMemory<'ctx> {
        let mut out = PrivateMemory::default();
        if tapes {
            for t in super::tape::find(module, cfg) {
                let indices: Option<Vec<ElementIndex>> =
                    t.geps.iter().map(|g| element_index(module, *g, g.operand(0), t.elem, t.size)).collect();
                // An address in other units keeps the lanes' own buffers.
                let Some(indices) = indices else { continue };
                out.layouts.insert(t.key, Layout::Tape { elem: t.elem, size: t.size });
                for (p, idx) in t.geps.iter().zip(indices) {
                    out.addresses.insert(*p, (t.key, idx));
                }
                out.tape_calls.extend(t.grows.iter().map(|g| (*g, TapeCall::Grow(t.key))));
                out.tape_calls.extend(t.frees.iter().map(|f| (*f, TapeCall::Free(t.key))));
                out.tapes.push(t);
            }
        }
        let Some(entry) = cfg.rpo.first() else { return out };
        for a in entry.instructions() {
            if a.opcode() != LLVMAlloca || !is_static(a) {
                continue;
            }
            match interleavable(module, a) {
                Some((layout, addresses)) => {
                    out.layouts.insert(a, layout);
                    for (p, idx) in addresses {
                        out.addresses.insert(p, (a, idx));
                    }
                }
                None => {
                    let ty = a.allocated_type();
                    let align = (a.alignment() as u64).max(1);
                    let size = module.abi_size_of(ty).max(1);
                    out.layouts.insert(a, Layout::PerLane { stride: size.div_ceil(align) * align });
                }
            }
        }
        out
    }

    /// The tapes ([`super::tape`]).
    pub fn tapes(&self) -> &[super::tape::Tape<'ctx>] {
        &self.tapes
    }

    /// What call `i` does to a tape, if it is a tape's `realloc` or `free`.
    pub fn tape_call(&self, i: Value<'ctx>) -> Option<TapeCall<'ctx>> {
        self.tape_calls.get(&i).copied()
    }

    /// The layout of a private allocation (or a tape, by its key).
    pub fn layout(&self, alloca: Value<'ctx>) -> Option<Layout<'ctx>> {
        self.layouts.get(&alloca).copied()
    }

    /// For an address into interleaved memory (the `alloca` itself or a
    /// `getelementptr` on it, or on a tape): the allocation (or the tape's
    /// key) and the element index.
    pub fn interleaved_address(&self, p: Value<'ctx>) -> Option<(Value<'ctx>, ElementIndex<'ctx>)> {
        if let Some(Layout::Interleaved { .. }) = self.layout(p) {
            return Some((p, ElementIndex::Constant(0)));
        }
        self.addresses.get(&p).copied()
    }

    /// Whether instruction `i` depends on the interleaved layout
    /// (`emit/private.rs` builds it): an address into interleaved memory
    /// other than the allocation itself, a vector load or store there, or a
    /// `memset` of it.
    pub fn has_interleaved_form(&self, i: Value<'ctx>) -> bool {
        match i.opcode() {
            LLVMGetElementPtr => self.interleaved_address(i).is_some_and(|(a, _)| a != i),
            LLVMLoad if i.ty().is_vector() => self.interleaved_address(i.operand(0)).is_some(),
            LLVMStore if i.operand(0).ty().is_vector() => self.interleaved_address(i.operand(1)).is_some(),
            LLVMCall if crate::analysis::calls::called_intrinsic(i).as_deref() == Some("llvm.memset") => {
                self.interleaved_address(i.operand(0)).is_some()
            }
            _ => false,
        }
    }
}

/// Whether an `alloca` allocates a fixed amount (a constant element count).
pub fn is_static(a: Value) -> bool {
    a.opcode() == LLVMAlloca && a.operand(0).const_int_value().is_some()
}

type Addresses<'ctx> = Vec<(Value<'ctx>, ElementIndex<'ctx>)>;

/// The interleaved layout of `a` and its addresses, if every use allows it.
fn interleavable<'ctx>(module: Module<'ctx>, a: Value<'ctx>) -> Option<(Layout<'ctx>, Addresses<'ctx>)> {
    if a.operand(0).const_int_value() != Some(1) {
        return None;
    }
    let ty = a.allocated_type();
    let (elem, len) = if is_plain(ty) {
        (ty, 1)
    } else if ty.kind() == crate::llvm::LLVMTypeKind::LLVMArrayTypeKind && is_plain(ty.element()) {
        (ty.element(), module.abi_size_of(ty) / module.abi_size_of(ty.element()).max(1))
    } else {
        return None;
    };
    let size = module.abi_size_of(elem);
    if size == 0 || size * len > MAX_INTERLEAVED_BYTES || module.abi_size_of(ty) != size * len {
        return None;
    }
    let mut addresses = vec![(a, ElementIndex::Constant(0))];
    for u in a.users() {
        match u.opcode() {
            LLVMGetElementPtr => {
                let idx = element_index(module, u, a, elem, size)?;
                if let ElementIndex::Constant(c) = idx {
                    if c >= len {
                        return None;
                    }
                }
                for v in u.users() {
                    if !accesses_elements(module, v, u, elem, len, Some(idx)) {
                        return None;
                    }
                }
                addresses.push((u, idx));
            }
            _ if accesses_elements(module, u, a, elem, len, Some(ElementIndex::Constant(0))) => {}
            _ => return None,
        }
    }
    Some((Layout::Interleaved { elem, size, len }, addresses))
}

/// The element index of a `getelementptr` on `base`, in element units.
fn element_index<'ctx>(
    module: Module<'ctx>,
    g: Value<'ctx>,
    base: Value<'ctx>,
    elem: Type<'ctx>,
    size: u64,
) -> Option<ElementIndex<'ctx>> {
    let ops = g.operands();
    if ops[0] != base || ops.iter().any(|o| o.ty().is_vector()) {
        return None;
    }
    let src = g.gep_source_type();
    let index = |v: Value<'ctx>| match v.const_int_value() {
        Some(c) => ElementIndex::Constant(c),
        None => ElementIndex::Value(v),
    };
    match ops.len() {
        2 if src == elem => Some(index(ops[1])),
        2 if src.int_width() == 8 => {
            let c = ops[1].const_int_value()?;
            (c % size == 0).then_some(ElementIndex::Constant(c / size))
        }
        3 if src.kind() == crate::llvm::LLVMTypeKind::LLVMArrayTypeKind
            && src.element() == elem
            && ops[1].const_int_value() == Some(0)
            && module.abi_size_of(src.element()) == size =>
        {
            Some(index(ops[2]))
        }
        _ => None,
    }
}

/// Whether `u`, a user of the address `p` (element offset `idx`), only
/// loads or stores elements there (or is a lifetime marker or a memset of
/// whole elements).
fn accesses_elements<'ctx>(
    module: Module<'ctx>,
    u: Value<'ctx>,
    p: Value<'ctx>,
    elem: Type<'ctx>,
    len: u64,
    idx: Option<ElementIndex<'ctx>>,
) -> bool {
    let fits = |t: Type<'ctx>| -> bool {
        if t == elem {
            return true;
        }
        // A vector of elements at a constant offset, inside the array.
        t.is_vector()
            && t.element() == elem
            && matches!(idx, Some(ElementIndex::Constant(c)) if c + t.vector_len() as u64 <= len)
    };
    match u.opcode() {
        LLVMLoad => !u.is_volatile() && !u.is_atomic() && fits(u.ty()),
        LLVMStore => {
            !u.is_volatile() && !u.is_atomic() && u.operand(1) == p && u.operand(0) != p && fits(u.operand(0).ty())
        }
        LLVMCall => {
            let callee = u.called_value();
            if !callee.is_function() || callee.intrinsic_id() == 0 {
                return false;
            }
            let name = intrinsic_base_name(callee.intrinsic_id());
            match name.as_str() {
                "llvm.lifetime.start" | "llvm.lifetime.end" => true,
                "llvm.memset" => {
                    let size = module.abi_size_of(elem);
                    u.operand(0) == p
                        && u.operand(1).const_int_value().is_some()
                        && u.operand(2).const_int_value().is_some_and(|n| n % size == 0)
                        && u.operand(3).const_int_value() == Some(0)
                        && matches!(idx, Some(ElementIndex::Constant(c))
                            if c + u.operand(2).const_int_value().unwrap_or(0) / size <= len)
                }
                _ => false,
            }
        }
        _ => false,
    }
}
