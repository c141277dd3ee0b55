//! Tapes: heap buffers that each lane grows with `realloc` and reads and
//! writes element by element, the caches of Enzyme's reverse derivatives
//! (`__enzyme_exponentialallocation`, inlined: `realloc` at the trips that
//! are powers of two, the value of trip `i` stored at element `i`, read
//! back by the reverse sweep, `free` at the end).
//!
//! Run once per lane, such code keeps `N` buffers: a `realloc` per lane
//! and a scatter or gather per access. In the clone the lanes share one
//! buffer, interleaved like private memory ([`super::private`]): element
//! `e` of lane `j` at `(e·N + j)·size`, so the trip's element of every lane
//! is one vector access, and one `realloc` grows the buffer for all lanes
//! (to `N` times the largest size an active lane asks for; the layout does
//! not depend on the capacity, so growing keeps every lane's elements).
//!
//! A tape is a *web* of pointer values closed under its uses: `realloc`
//! calls (a declaration named `realloc`, no `nobuiltin`) and phis, whose
//! pointer operands are web values or `null` on an edge out of the entry
//! block (or, for a `realloc` in the entry block, its operand); and whose
//! uses are those phis and `realloc`s, `free` calls, and `getelementptr`s
//! in element units whose only uses load or store one plain element type
//! (the address is not stored, passed or compared). Each lane then holds at
//! most one live buffer at a time: it starts from `null` once per call,
//! and every `realloc` takes the lane's current buffer (any other would be
//! freed already, undefined behaviour). The lane's `free` is deferred to
//! the clone's return (`emit/tape.rs`).
//!
//! Part of the analyses: reads the prepared function, changes nothing.

use super::cfg::Cfg;
use crate::llvm::LLVMOpcode::*;
use crate::llvm::{Module, Type, Value};
use std::collections::HashSet;

/// One tape: its web, its element type and its accesses.
#[derive(Debug, Clone)]
pub struct Tape<'ctx> {
    /// The web's first `realloc`: the tape's name in the other analyses.
    pub key: Value<'ctx>,
    /// The element type every access loads or stores.
    pub elem: Type<'ctx>,
    /// Its allocation size in bytes.
    pub size: u64,
    /// The `realloc` calls, which grow the shared buffer.
    pub grows: Vec<Value<'ctx>>,
    /// The `free` calls, deferred to the return.
    pub frees: Vec<Value<'ctx>>,
    /// The `getelementptr`s on the web: the addresses of elements
    /// ([`super::private`] finds their element indices).
    pub geps: Vec<Value<'ctx>>,
}

/// Plain vector elements: integers of 8 to 64 bits, `float`, `double`, pointers.
pub fn is_plain(t: Type) -> bool {
    use crate::llvm::LLVMTypeKind::*;
    match t.kind() {
        LLVMIntegerTypeKind => matches!(t.int_width(), 8 | 16 | 32 | 64),
        LLVMFloatTypeKind | LLVMDoubleTypeKind | LLVMPointerTypeKind => true,
        _ => false,
    }
}

/// The tapes of the prepared function `cfg` describes.
pub fn find<'ctx>(module: Module<'ctx>, cfg: &Cfg<'ctx>) -> Vec<Tape<'ctx>> {
    let Some(entry) = cfg.rpo.first().copied() else { return Vec::new() };
    let mut seen = HashSet::new();
    let mut tapes = Vec::new();
    for b in &cfg.rpo {
        for i in b.instructions() {
            if is_library_call(i, "realloc") && seen.insert(i) {
                if let Some(t) = web(module, entry, i, &mut seen) {
                    tapes.push(t);
                }
            }
        }
    }
    tapes
}

/// Whether `i` calls the C library's `name` (a declaration of that name
/// with the library's signature, no `nobuiltin`).
fn is_library_call(i: Value, name: &str) -> bool {
    if !i.is_call() || crate::analysis::calls::library_declaration(i).is_none_or(|c| c.name() != name) {
        return false;
    }
    let fty = i.called_function_type();
    let params = fty.param_types();
    let ptr = |t: Type| t.kind() == crate::llvm::LLVMTypeKind::LLVMPointerTypeKind;
    match name {
        "realloc" => {
            i.num_arg_operands() == 2
                && params.len() == 2
                && ptr(fty.return_type())
                && ptr(params[0])
                && params[1].int_width() == 64
        }
        "free" => i.num_arg_operands() == 1 && params.len() == 1 && fty.return_type().is_void() && ptr(params[0]),
        _ => false,
    }
}

/// The tape whose web holds `start`, if the whole web has a tape's form.
/// Every member found is added to `seen`, also when the web is rejected.
fn web<'ctx>(
    module: Module<'ctx>,
    entry: crate::llvm::Block<'ctx>,
    start: Value<'ctx>,
    seen: &mut HashSet<Value<'ctx>>,
) -> Option<Tape<'ctx>> {
    let mut members = vec![start];
    let mut in_web: HashSet<Value> = HashSet::from([start]);
    let mut grows = Vec::new();
    let mut frees = Vec::new();
    let mut geps = Vec::new();
    let mut ok = true;
    let mut k = 0;
    let mut add = |v: Value<'ctx>, members: &mut Vec<Value<'ctx>>| {
        if in_web.insert(v) {
            members.push(v);
        }
    };
    while k < members.len() {
        let v = members[k];
        k += 1;
        seen.insert(v);
        // Where the member's pointer comes from.
        let from = |p: Value<'ctx>, edge_from_entry: bool| -> Option<Option<Value<'ctx>>> {
            if p.is_null_constant() {
                // `null` starts the lane's buffer, once per call.
                return edge_from_entry.then_some(None);
            }
            let member = p.is_instruction() && (p.opcode() == LLVMPHI || is_library_call(p, "realloc"));
            member.then_some(Some(p))
        };
        if v.opcode() == LLVMPHI {
            for (p, b) in v.incoming() {
                match from(p, b == entry) {
                    Some(Some(m)) => add(m, &mut members),
                    Some(None) => {}
                    None => ok = false,
                }
            }
        } else {
            grows.push(v);
            match from(v.operand(0), v.parent_block() == entry) {
                Some(Some(m)) => add(m, &mut members),
                Some(None) => {}
                None => ok = false,
            }
        }
        for u in v.users() {
            match u.opcode() {
                LLVMPHI => add(u, &mut members),
                LLVMCall if is_library_call(u, "realloc") && u.operand(0) == v => add(u, &mut members),
                LLVMCall if is_library_call(u, "free") && u.operand(0) == v => frees.push(u),
                LLVMGetElementPtr if u.operand(0) == v => geps.push(u),
                _ => ok = false,
            }
        }
    }
    // Every member is a pointer: `realloc` returns one, and a phi that
    // takes or gives one is one.
    if !ok || geps.is_empty() {
        return None;
    }
    let elem = element_type(&geps)?;
    let size = module.abi_size_of(elem);
    if size == 0 {
        return None;
    }
    // Each member is visited once, and a `free` has one operand: no
    // call is listed twice.
    Some(Tape { key: start, elem, size, grows, frees, geps })
}

/// The one plain element type the addresses' uses load and store, if
/// every use is such a load or store.
fn element_type<'ctx>(geps: &[Value<'ctx>]) -> Option<Type<'ctx>> {
    let mut elem: Option<Type> = None;
    for g in geps {
        for u in g.users() {
            let t = match u.opcode() {
                LLVMLoad if !u.is_volatile() && !u.is_atomic() => u.ty(),
                LLVMStore if !u.is_volatile() && !u.is_atomic() && u.operand(1) == *g && u.operand(0) != *g => {
                    u.operand(0).ty()
                }
                _ => return None,
            };
            if !is_plain(t) || elem.is_some_and(|e| e != t) {
                return None;
            }
            elem = Some(t);
        }
    }
    elem
}
