//! Memory accesses one element at a time, for `--for-autodiff` clones
//! (`docs/autodiff.md`): Enzyme, built for LLVM 22, differentiates neither
//! `llvm.masked.load`/`llvm.masked.store` (whose alignment operand LLVM 22
//! dropped) nor `llvm.masked.gather`/`llvm.masked.scatter`. Each element is
//! loaded or stored with a plain scalar access; where its mask bit is not
//! a constant, behind a branch on that bit, so that no access touches
//! memory an inactive lane would not touch.

use super::state::Widener;
use crate::llvm::{constant, Type, Value};

/// The element addresses of an access.
pub(super) enum Addresses<'ctx> {
    /// Consecutive elements from `base`.
    From(Value<'ctx>),
    /// One address per element (a vector of pointers).
    Each(Value<'ctx>),
}

impl<'ctx> Addresses<'ctx> {
    fn at(&self, w: &Widener<'_, 'ctx>, elem: Type<'ctx>, j: u32) -> Value<'ctx> {
        match *self {
            Addresses::From(base) if j == 0 => base,
            Addresses::From(base) => {
                let i64t = Type::int(w.ctx(), 64);
                w.b.gep(elem, base, &[constant::int(i64t, j as u64)], Default::default())
            }
            Addresses::Each(ptrs) => w.b.extract_element(ptrs, j),
        }
    }
}

/// What an element's mask bit says: always, never, or ask at run time.
enum Bit<'ctx> {
    On,
    Off,
    Test(Value<'ctx>),
}

fn bit<'ctx>(w: &Widener<'_, 'ctx>, mask: Option<Value<'ctx>>, j: u32) -> Bit<'ctx> {
    let Some(m) = mask else { return Bit::On };
    let b = w.b.extract_element(m, j);
    match b.const_int_value() {
        Some(0) => Bit::Off,
        Some(_) => Bit::On,
        None => Bit::Test(b),
    }
}

/// The alignment of one element: the vector access's, at most the
/// element's size (elements after the first are only that aligned).
fn element_align(w: &Widener, elem: Type, align: u32) -> u32 {
    let size = w.module.abi_size_of(elem).max(1);
    let size_align = 1u64 << size.trailing_zeros().min(31);
    (align as u64).min(size_align).max(1) as u32
}

/// A load of vector type `vty` under `mask` (one bit per element; `None`:
/// every element); elements whose bit is off are `passthru`'s.
pub(super) fn load<'ctx>(
    w: &Widener<'_, 'ctx>,
    vty: Type<'ctx>,
    at: Addresses<'ctx>,
    mask: Option<Value<'ctx>>,
    align: u32,
    passthru: Value<'ctx>,
) -> Value<'ctx> {
    let elem = vty.element();
    let align = element_align(w, elem, align);
    let mut acc = passthru;
    for j in 0..vty.vector_len() {
        match bit(w, mask, j) {
            Bit::Off => {}
            Bit::On => {
                let p = at.at(w, elem, j);
                let x = w.b.load(elem, p, align);
                acc = w.b.insert_element(acc, x, j);
            }
            Bit::Test(b) => {
                let from = w.b.current_block();
                let then_b = w.clone.append_block("lane.load");
                let cont = w.clone.append_block("lane.cont");
                w.b.cond_br(b, then_b, cont);
                w.b.position_at_end(then_b);
                let p = at.at(w, elem, j);
                let x = w.b.load(elem, p, align);
                let with = w.b.insert_element(acc, x, j);
                w.b.br(cont);
                w.b.position_at_end(cont);
                let phi = w.b.phi(vty);
                phi.add_incoming(with, then_b);
                phi.add_incoming(acc, from);
                acc = phi;
            }
        }
    }
    acc
}

/// A store of the vector `v` under `mask` (`None`: every element), in
/// element order.
pub(super) fn store<'ctx>(
    w: &Widener<'_, 'ctx>,
    v: Value<'ctx>,
    at: Addresses<'ctx>,
    mask: Option<Value<'ctx>>,
    align: u32,
) -> Value<'ctx> {
    let elem = v.ty().element();
    let align = element_align(w, elem, align);
    for j in 0..v.ty().vector_len() {
        match bit(w, mask, j) {
            Bit::Off => {}
            Bit::On => {
                let p = at.at(w, elem, j);
                let x = w.b.extract_element(v, j);
                w.b.store(x, p, align);
            }
            Bit::Test(b) => {
                let then_b = w.clone.append_block("lane.store");
                let cont = w.clone.append_block("lane.cont");
                w.b.cond_br(b, then_b, cont);
                w.b.position_at_end(then_b);
                let p = at.at(w, elem, j);
                let x = w.b.extract_element(v, j);
                w.b.store(x, p, align);
                w.b.br(cont);
                w.b.position_at_end(cont);
            }
        }
    }
    constant::poison(Type::int(w.ctx(), 1))
}
