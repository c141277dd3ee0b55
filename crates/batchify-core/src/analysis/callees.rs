//! Callee summaries: whether a call to a function defined in the module may
//! become a call to that function's batched clone (see
//! `crate::emit::callees`), and what the clone's caller must then ensure.
//!
//! A batched callee runs its lanes in lock step, like the caller's own code,
//! instead of one whole call per lane in lane order. The semantics contract
//! (`docs/semantics.md`) promises sequential effects only for lanes whose
//! effects do not conflict, and keeps calls that are not vectorized in lane
//! order. So a callee is batched only if, through every function it calls:
//!
//! * its linkage cannot let the linker replace it (`weak`, `linkonce`,
//!   `common`, `extern_weak`: the clone would be of the wrong body);
//! * it is not variadic, `noreturn` or `returns_twice`, and has no
//!   parameter that binds the caller's frame (`byval`, `inalloca`,
//!   `preallocated`, `swifterror`, `nest`);
//! * it calls no function outside the module that may write memory or
//!   have other effects (I/O would interleave lanes), no function through a
//!   pointer, and no inline assembly; read-only calls, intrinsics without
//!   writes and `noreturn` calls (deferred to the lowest lane) are fine;
//! * it writes memory only through its own pointer parameters, its own
//!   stack objects, or memory it allocated itself (`malloc`, `calloc`,
//!   `realloc`, `aligned_alloc`; also through such a pointer kept in one
//!   of its stack objects, as Enzyme's reverse-mode derivatives keep their
//!   tape), never a global or another pointer it loaded; it may free or
//!   reallocate only such memory (freeing counts as a write);
//! * it does not call itself at two or more places, or in a loop (tree
//!   recursion, also after tail-call elimination turned one call into a
//!   loop): a cost
//!   rule, not a legality one (the batched call would walk the union of the
//!   lanes' call trees; measured slower than per-lane calls).
//!
//! A callee that writes ([`Summary::writes`]) is batched only where every
//! pointer argument of the call differs between lanes: with a pointer that
//! is the same in every lane, all lanes would write one place and their
//! writes would conflict (a counter bumped once instead of N times).
//!
//! Part of the analyses: reads the module, changes nothing.

use crate::llvm::LLVMLinkage::*;
use crate::llvm::LLVMOpcode::*;
use crate::llvm::{LLVMTypeKind, Value};
use std::collections::{HashMap, HashSet};

/// What a caller needs to know about a batchable callee.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Summary {
    /// It (or a function it calls) may write memory through a pointer
    /// parameter.
    pub writes: bool,
}

/// Summaries of module functions, computed once each.
#[derive(Debug, Default)]
pub struct CalleeSummaries<'ctx> {
    cache: HashMap<Value<'ctx>, Result<Summary, String>>,
}

/// Parameter attributes that tie an argument to the caller's frame.
const FRAME_PARAM_ATTRIBUTES: &[&str] = &["byval", "inalloca", "preallocated", "swifterror", "nest"];

impl<'ctx> CalleeSummaries<'ctx> {
    /// Why a varying call of `callee` (defined in the module) with
    /// arguments `args` stays one call per lane in the clone, as far as
    /// that is known before a clone of `callee` is built; `None`: it
    /// becomes a call of that clone. It cannot be batched ([`Self::summary`]
    /// says why), or it writes memory and gets a pointer that is the same
    /// in every lane, whose lanes' writes would conflict. The emitter
    /// (`emit::callees`) applies this rule and the cost stage estimates
    /// with it, so that both agree.
    pub fn stays_per_lane(
        &mut self,
        callee: Value<'ctx>,
        args: &[Value<'ctx>],
        is_varying: impl Fn(Value<'ctx>) -> bool,
    ) -> Option<String> {
        let summary = match self.summary(callee) {
            Ok(s) => s,
            Err(why) => return Some(why),
        };
        let uniform_pointer =
            args.iter().any(|a| a.ty().kind() == LLVMTypeKind::LLVMPointerTypeKind && !is_varying(*a));
        (summary.writes && uniform_pointer).then(|| {
            let name = callee.name();
            format!(
                "`{name}` writes memory and gets a pointer that is the same in every lane: lanes' writes would \
                 conflict, so the calls stay in lane order"
            )
        })
    }

    /// Whether `f` (a function defined in the module) may be batched, and
    /// its summary; or why not.
    pub fn summary(&mut self, f: Value<'ctx>) -> Result<Summary, String> {
        if let Some(s) = self.cache.get(&f) {
            return s.clone();
        }
        let mut visiting = HashSet::new();
        let s = self.walk(f, &mut visiting);
        self.cache.insert(f, s.clone());
        s
    }

    fn walk(&mut self, f: Value<'ctx>, visiting: &mut HashSet<Value<'ctx>>) -> Result<Summary, String> {
        if let Some(s) = self.cache.get(&f) {
            return s.clone();
        }
        if !visiting.insert(f) {
            // A cycle: the other functions on it decide (the caller checked
            // the pointers it passes).
            return Ok(Summary { writes: false });
        }
        let name = f.name();
        static_obstacle(f).map_err(|why| format!("`{name}` {why}"))?;
        let params = f.params();
        let mut writes = false;
        for b in f.blocks() {
            for i in b.instructions() {
                match i.opcode() {
                    LLVMStore => {
                        if !owned(i.operand(1), &params) {
                            return Err(format!("`{name}` writes memory it did not receive through a parameter"));
                        }
                        writes = true;
                    }
                    LLVMAtomicRMW | LLVMAtomicCmpXchg | LLVMFence => {
                        return Err(format!("`{name}` has atomic operations"));
                    }
                    LLVMInvoke | LLVMCallBr => return Err(format!("`{name}` has exception handling")),
                    LLVMCall => writes |= self.call(f, i, &params, visiting)?,
                    _ => {}
                }
            }
        }
        visiting.remove(&f);
        // Not cached: inside a cycle the result leaned on the other
        // functions' (optimistic) ones; `summary` caches the outer result.
        Ok(Summary { writes })
    }

    /// Whether call `i` in `f` may write (through `f`'s parameters or stack
    /// objects), or why it cannot be batched.
    fn call(
        &mut self,
        f: Value<'ctx>,
        i: Value<'ctx>,
        params: &[Value<'ctx>],
        visiting: &mut HashSet<Value<'ctx>>,
    ) -> Result<bool, String> {
        let name = f.name();
        let callee = i.called_value();
        if callee.is_inline_asm() {
            return Err(format!("`{name}` has inline assembly"));
        }
        if !callee.is_function() {
            return Err(format!("`{name}` calls through a pointer"));
        }
        let cname = callee.name();
        let args: Vec<Value> = (0..i.num_arg_operands()).map(|k| i.operand(k)).collect();
        let pointer_args_owned =
            || args.iter().filter(|a| a.ty().kind() == LLVMTypeKind::LLVMPointerTypeKind).all(|a| owned(*a, params));
        if callee.intrinsic_id() != 0 {
            let base = super::calls::called_intrinsic(i).unwrap_or_default();
            if super::calls::is_droppable_hint(&base) || super::calls::is_lane_invariant_call(i) {
                return Ok(false);
            }
            if matches!(base.as_str(), "llvm.memset" | "llvm.memcpy" | "llvm.memmove") {
                // The destination is argument 0; a source is only read.
                if !owned(args[0], params) {
                    return Err(format!("`{name}` writes memory it did not receive through a parameter"));
                }
                return Ok(true);
            }
            return Err(format!("`{name}` calls `{cname}`, which may write memory"));
        }
        if let Some(kind) = allocation_function(callee) {
            // Fresh memory is distinct in every lane: no lane sees another's.
            // Resizing or freeing counts as a write through the pointer (a
            // parameter's memory, then, must differ between lanes).
            return match kind {
                Allocation::New => Ok(false),
                Allocation::Resize | Allocation::Free if owned(args[0], params) => Ok(true),
                _ => Err(format!("`{name}` calls `{cname}` on memory it did not allocate")),
            };
        }
        if super::calls::is_noreturn_call(i) {
            return Ok(false); // deferred to the lowest doomed lane, made once
        }
        // Cross-lane operations are lowered inline in the callee's clone;
        // only the packed store writes (through its pointer).
        match super::cross_lane::op_of(i) {
            Some(super::cross_lane::Op::PackedStoreActive) if owned(args[0], params) => return Ok(true),
            Some(super::cross_lane::Op::PackedStoreActive) => {
                return Err(format!("`{name}` stores (`{cname}`) to memory it did not receive through a parameter"))
            }
            Some(_) => return Ok(false),
            None => {}
        }
        if super::calls::is_lane_invariant_call(i) {
            return Ok(false);
        }
        if callee.is_declaration() || is_interposable(callee) {
            return Err(format!(
                "`{name}` calls `{cname}`, whose effects batchify cannot see (they must stay in lane order)"
            ));
        }
        if visiting.contains(&callee) && !pointer_args_owned() {
            // A call back into the cycle: its writes are not known yet.
            return Err(format!("`{name}` passes `{cname}` a pointer it did not receive through a parameter"));
        }
        let s = self.walk(callee, visiting)?;
        if s.writes && !pointer_args_owned() {
            return Err(format!("`{name}` passes `{cname}` a pointer it did not receive through a parameter"));
        }
        Ok(s.writes)
    }
}

/// Whether the linker may replace `f`'s body with another one.
pub fn is_interposable(f: Value) -> bool {
    matches!(f.linkage(), LLVMWeakAnyLinkage | LLVMLinkOnceAnyLinkage | LLVMCommonLinkage | LLVMExternalWeakLinkage)
}

/// Why `f`'s signature, linkage or attributes keep it from being batched.
fn static_obstacle(f: Value) -> Result<(), String> {
    if is_interposable(f) {
        return Err("may be replaced at link time (weak or linkonce linkage), so its body here is not the one that \
                    runs"
            .into());
    }
    if f.is_declaration() {
        return Err("is only declared here".into());
    }
    if f.function_type().is_var_arg() {
        return Err("is variadic".into());
    }
    for a in ["noreturn", "returns_twice"] {
        if f.has_fn_attribute(a) {
            return Err(format!("is `{a}`"));
        }
    }
    if self_call_sites(f) >= 2 {
        // Cost, not legality: the lanes recurse to different depths, and a
        // batched call walks the union of their call trees with every lane's
        // work at each node. Measured with `cargo xtask bench-gcc` (fib,
        // AVX2, 8 lanes): 0.57x of scalar calls batched, 0.98x per lane.
        return Err("calls itself at two or more places or in a loop (tree recursion): a batched call would walk the \
                    union of the lanes' call trees, slower than calling it per lane"
            .into());
    }
    let n = f.function_type().param_types().len() as u32;
    for k in 0..n {
        for a in FRAME_PARAM_ATTRIBUTES {
            if f.has_attribute_at(k + 1, a) {
                return Err(format!("has a `{a}` parameter"));
            }
        }
    }
    Ok(())
}

/// How many times one invocation of `f` may call `f` itself, capped at 2:
/// each call site counts once, or twice inside a cycle of `f`'s CFG (tail
/// recursion turned into a loop still makes one call per trip).
fn self_call_sites(f: Value) -> usize {
    let cfg = super::cfg::Cfg::new(f);
    let looping: HashSet<crate::llvm::Block> =
        match super::loops::Loops::new(&cfg, &super::dominance::Dominators::new(&cfg)) {
            Ok(loops) => loops.innermost.keys().copied().collect(),
            Err(_) => cfg.rpo.iter().copied().collect(),
        };
    let mut n = 0;
    for b in &cfg.rpo {
        for i in b.instructions() {
            if i.opcode() == LLVMCall && i.called_value() == f {
                n += if looping.contains(b) { 2 } else { 1 };
            }
        }
    }
    n.min(2)
}

/// What a C allocation function does with memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Allocation {
    /// Returns fresh memory (`malloc`, `calloc`, `aligned_alloc`).
    New,
    /// Moves its first argument's memory to fresh memory (`realloc`).
    Resize,
    /// Frees its first argument's memory (`free`).
    Free,
}

/// The allocation function `callee` is, if it is one: a declaration with
/// the C library's name and signature.
fn allocation_function(callee: Value) -> Option<Allocation> {
    if !callee.is_declaration() {
        return None;
    }
    let fty = callee.function_type();
    let params = fty.param_types();
    let ptr = |k: usize| params.get(k).is_some_and(|t| t.kind() == LLVMTypeKind::LLVMPointerTypeKind);
    let int = |k: usize| params.get(k).is_some_and(|t| t.kind() == LLVMTypeKind::LLVMIntegerTypeKind);
    let returns_ptr = fty.return_type().kind() == LLVMTypeKind::LLVMPointerTypeKind;
    let returns_void = fty.return_type().kind() == LLVMTypeKind::LLVMVoidTypeKind;
    match (callee.name().as_str(), params.len()) {
        ("malloc", 1) if int(0) && returns_ptr => Some(Allocation::New),
        ("calloc" | "aligned_alloc", 2) if int(0) && int(1) && returns_ptr => Some(Allocation::New),
        ("realloc", 2) if ptr(0) && int(1) && returns_ptr => Some(Allocation::Resize),
        ("free", 1) if ptr(0) && returns_void => Some(Allocation::Free),
        _ => None,
    }
}

/// Whether pointer `p` is derived from one of `params`, a stack object or
/// memory the function allocated (an allocation call's result, also
/// through a stack object that only ever holds such pointers).
fn owned<'ctx>(p: Value<'ctx>, params: &[Value<'ctx>]) -> bool {
    let mut seen = HashSet::new();
    let mut work = vec![p];
    while let Some(v) = work.pop() {
        if !seen.insert(v) {
            continue;
        }
        if params.contains(&v) {
            continue;
        }
        if v.is_null_constant() {
            continue; // no memory: a load or store through it would trap in the scalar code too
        }
        if !v.is_instruction() {
            return false; // a global, a constant expression
        }
        match v.opcode() {
            LLVMAlloca => {}
            LLVMGetElementPtr | LLVMBitCast | LLVMAddrSpaceCast => work.push(v.operand(0)),
            LLVMPHI => work.extend(v.incoming().into_iter().map(|(x, _)| x)),
            LLVMSelect => {
                work.push(v.operand(1));
                work.push(v.operand(2));
            }
            LLVMCall
                if allocation_function(v.called_value())
                    .is_some_and(|k| k == Allocation::New || k == Allocation::Resize) => {}
            LLVMLoad => match stored_pointers(v.operand(0)) {
                Some(values) => work.extend(values),
                None => return false,
            },
            _ => return false,
        }
    }
    true
}

/// The values ever stored into `slot`, if it is a stack object of the
/// function that is only loaded from and stored to (its address never
/// escapes, so nothing else writes it).
fn stored_pointers(slot: Value) -> Option<Vec<Value>> {
    if !slot.is_instruction() || slot.opcode() != LLVMAlloca {
        return None;
    }
    let mut values = Vec::new();
    for user in slot.users() {
        match user.opcode() {
            LLVMLoad => {}
            LLVMStore if user.operand(1) == slot && user.operand(0) != slot => values.push(user.operand(0)),
            _ => return None,
        }
    }
    Some(values)
}
