//! `omp simd` caller loops that LLVM's loop vectorizer refuses, batched by
//! batchify itself (documented in `docs/cli.md`, "Caller side").
//!
//! LLVM's LoopAccessAnalysis widens a call with vector variants only if the
//! call touches no memory through pointer arguments and does not only
//! write. A `declare simd` function that reads a table through a `uniform`
//! pointer, or a `void` one that stores through its pointer, leaves its
//! `omp simd` loop scalar ("instruction cannot be vectorized") and its
//! variants unused. The body of such a loop is a program run once per
//! iteration, which is what batchify vectorizes. [`vectorize_loops`]:
//!
//! 1. finds `omp simd` loops (`llvm.loop.parallel_accesses`, every memory
//!    access in an access group) holding a call that LLVM refuses of a
//!    function with variants ([`llvm_refuses`]), in canonical form: one
//!    preheader, one latch that is the only way out, one induction
//!    variable stepping by 1 and compared with a loop-invariant bound, no
//!    value of the loop used after it;
//! 2. copies the body into an internal function `__batchify.loop.F.K(iv,
//!    invariants...)` and builds its clones (internal, named
//!    `__batchify._ZGV...`), unmasked and masked, with the
//!    ISA and width of the refused callee's variant that the caller would
//!    use (`l` for the induction variable, `u` for each invariant);
//! 3. only if both clones are vector code (not the per-lane fallback),
//!    replaces the loop: each trip evaluates the scalar loop's own exit
//!    condition for the next N iterations; when all N run and the loop
//!    goes on it calls the unmasked clone, otherwise the masked clone for
//!    the iterations that run, and leaves.
//!
//! The iterations of a trip run as the lanes of one clone call, in lock
//! step, as the `omp simd` contract allows. Every such loop left alone
//! gets a note saying why.

use super::{built_or_promised, caller_level, choose, declared_variants, CallerLevel};
use crate::abi;
use crate::analysis::{cfg::Cfg, dominance::Dominators, loops::Loops};
use crate::llvm::{constant, Block, Builder, LLVMIntPredicate, LLVMOpcode::*, Module, Type, Value, FUNCTION_INDEX};
use crate::spec::{mask_abi_for, CloneSpec};
use crate::vfabi::{Param, ParamKind, VariantName};
use crate::{CloneReport, Options};
use std::collections::{HashMap, HashSet};

/// Prefix of the functions that hold a caller loop's body.
pub const BODY_PREFIX: &str = "__batchify.loop.";

/// What [`vectorize_loops`] did.
#[derive(Debug, Default)]
pub struct LoopsOutcome {
    /// The reports of the loop bodies' clones, for `--report`.
    pub reports: Vec<CloneReport>,
    /// One note per loop batched or left alone.
    pub notes: Vec<String>,
    /// Per loop left alone: its function and the note (for a remark).
    pub left_alone: Vec<(String, String)>,
}

/// Batches the `omp simd` loops of `module` that LLVM's loop vectorizer
/// refuses (see the module documentation). `opts` gives the vector
/// library and the autodiff mode of the body clones.
pub fn vectorize_loops(module: Module, opts: &Options) -> LoopsOutcome {
    let mut out = LoopsOutcome::default();
    // Only functions with a call LLVM would refuse need the loop analysis.
    let functions: Vec<Value> = module
        .functions()
        .into_iter()
        .filter(|f| is_user_code(*f) && f.blocks().iter().flat_map(|b| b.instructions()).any(refused_variant_call))
        .collect();
    for f in functions {
        let mut seen: HashSet<Block> = HashSet::new();
        while let Some((header, refused, found)) = next_loop(f, &seen) {
            seen.insert(header);
            let what = describe(f, header);
            match found.and_then(|c| batch(module, f, &c, opts)) {
                Ok((note, reports)) => {
                    out.notes.push(format!("{what} {note}"));
                    out.reports.extend(reports);
                }
                Err(why) => {
                    let note = format!(
                        "{what} stays scalar (LLVM's loop vectorizer refuses its call of `{}`, and batchify does not \
                         batch it: {why})",
                        refused.called_value().name()
                    );
                    out.left_alone.push((f.name(), note.clone()));
                    out.notes.push(note);
                }
            }
        }
    }
    out
}

/// "the `omp simd` loop in `f` (line L)": the loop of `header`, named as
/// its source says where debug locations tell.
fn describe(f: Value, header: Block) -> String {
    let line = header.instructions().into_iter().find_map(|i| i.debug_line());
    let name = header.name();
    match (line, name.is_empty()) {
        (Some(l), _) => format!("the `omp simd` loop in `{}` (line {l})", f.name()),
        (None, false) => format!("the `omp simd` loop `{name}` in `{}`", f.name()),
        (None, true) => format!("an `omp simd` loop in `{}`", f.name()),
    }
}

/// Whether `f` is a function of the user's (not a clone or a helper).
fn is_user_code(f: Value) -> bool {
    let name = f.name();
    !f.is_declaration() && !name.starts_with("_ZGV") && !name.starts_with(crate::callee_clones::HELPER_PREFIX)
}

/// The first loop of `f` not in `seen` that is an `omp simd` loop calling
/// a function with variants in a way LLVM refuses: its header, and the
/// loop in canonical form or why it is not.
#[allow(clippy::type_complexity)]
fn next_loop<'ctx>(
    f: Value<'ctx>,
    seen: &HashSet<Block<'ctx>>,
) -> Option<(Block<'ctx>, Value<'ctx>, Result<Canonical<'ctx>, String>)> {
    let cfg = Cfg::new(f);
    let loops = Loops::new(&cfg, &Dominators::new(&cfg)).ok()?;
    for (k, l) in loops.loops.iter().enumerate() {
        if seen.contains(&l.header) {
            continue;
        }
        let id = crate::analysis::loops::LoopId(k);
        let blocks = loops.blocks_of(&cfg, id);
        let latches: Vec<Block> = cfg.preds[&l.header].iter().copied().filter(|p| loops.contains(id, *p)).collect();
        let parallel = latches.iter().any(|b| {
            b.terminator().is_some_and(|t| t.loop_properties().iter().any(|p| p == "llvm.loop.parallel_accesses"))
        });
        if !parallel {
            continue;
        }
        let Some(refused) = blocks.iter().flat_map(|b| b.instructions()).find(|i| refused_variant_call(*i)) else {
            continue;
        };
        return Some((l.header, refused, canonical(&cfg, l.header, &blocks, &latches, refused)));
    }
    None
}

/// Whether `i` is a direct call of a function with `declare simd` variants
/// that LLVM's loop vectorizer will not widen.
fn refused_variant_call(i: Value) -> bool {
    i.is_call() && i.called_value().is_function() && !declared_variants(i.called_value()).is_empty() && llvm_refuses(i)
}

/// Whether LLVM's LoopAccessAnalysis refuses call `call` although the
/// callee has vector variants: the call may touch memory and has a pointer
/// argument, or it only writes memory. A defined callee's write-only
/// attribute does not count: [`super::annotate`] drops it, and the loop
/// vectorizer then widens the call.
pub fn llvm_refuses(call: Value) -> bool {
    let callee = call.called_value();
    // No attribute: anything.
    let effects = callee.fn_attribute_value("memory").unwrap_or(u64::MAX);
    if effects == 0 {
        return false;
    }
    let pointer_argument = (0..call.num_arg_operands()).any(|k| call.operand(k).ty().is_pointer());
    pointer_argument || (super::only_writes(effects) && callee.is_declaration())
}

/// A loop in the form [`batch`] rewrites.
struct Canonical<'ctx> {
    latch: Block<'ctx>,
    preheader: Block<'ctx>,
    exit: Block<'ctx>,
    /// The loop's blocks, header first.
    blocks: Vec<Block<'ctx>>,
    /// The induction variable (the header's only phi), its start and its
    /// increment by 1.
    iv: Value<'ctx>,
    start: Value<'ctx>,
    next: Value<'ctx>,
    /// The latch's comparison: its predicate, the loop-invariant bound and
    /// its operand position, whether it compares `next` (else `iv`), and
    /// whether `true` goes on looping.
    predicate: LLVMIntPredicate,
    bound: Value<'ctx>,
    bound_first: bool,
    compares_next: bool,
    continue_on_true: bool,
    condition: Value<'ctx>,
    /// The refused call that chose the width.
    refused: Value<'ctx>,
}

/// The loop of `header` in canonical form, or why it is not.
fn canonical<'ctx>(
    cfg: &Cfg<'ctx>,
    header: Block<'ctx>,
    blocks: &[Block<'ctx>],
    latches: &[Block<'ctx>],
    refused: Value<'ctx>,
) -> Result<Canonical<'ctx>, String> {
    let inside: HashSet<Block> = blocks.iter().copied().collect();
    let [latch] = latches else { return Err(format!("it has {} back edges", latches.len())) };
    let latch = *latch;
    let outside_preds: Vec<Block> = cfg.preds[&header].iter().copied().filter(|p| !inside.contains(p)).collect();
    let [preheader] = outside_preds[..] else { return Err("it has no single preheader".into()) };
    let enter = preheader.terminator().ok_or("its preheader has no terminator")?;
    if enter.opcode() != LLVMBr || enter.is_conditional() {
        return Err("its preheader does not branch to it unconditionally".into());
    }
    for b in blocks {
        let t = b.terminator().ok_or("a block has no terminator")?;
        if !matches!(t.opcode(), LLVMBr | LLVMSwitch | LLVMRet | LLVMUnreachable) {
            return Err(format!("it ends a block with `{}`", t.print().trim()));
        }
        if (*b != latch && t.successors().iter().any(|s| !inside.contains(s))) || t.opcode() == LLVMRet {
            return Err("it is left elsewhere than at its latch".into());
        }
    }
    let back = latch.terminator().ok_or("its latch has no terminator")?;
    if back.opcode() != LLVMBr || !back.is_conditional() {
        return Err("its latch does not end with a conditional branch".into());
    }
    let groups = back.loop_property_operands("llvm.loop.parallel_accesses").unwrap_or_default();
    let succ = back.successors();
    let continue_on_true = succ[0] == header;
    let exit = if continue_on_true { succ[1] } else { succ[0] };
    if inside.contains(&exit) {
        return Err("its latch branches back on both edges".into());
    }
    let phis: Vec<Value> = header.instructions().into_iter().filter(|i| i.opcode() == LLVMPHI).collect();
    let [iv] = phis[..] else {
        return Err(format!(
            "it carries {} values from trip to trip (only an induction variable is supported yet)",
            phis.len()
        ));
    };
    if iv.ty().int_width() == 0 {
        return Err("its header phi is not an integer".into());
    }
    let incoming = iv.incoming();
    let start = incoming.iter().find(|(_, b)| *b == preheader).map(|(v, _)| *v).ok_or("bad induction phi")?;
    let next = incoming.iter().find(|(_, b)| *b == latch).map(|(v, _)| *v).ok_or("bad induction phi")?;
    let steps_by_one = next.is_instruction()
        && next.opcode() == LLVMAdd
        && ((next.operand(0) == iv && next.operand(1).const_int_value() == Some(1))
            || (next.operand(1) == iv && next.operand(0).const_int_value() == Some(1)));
    if !steps_by_one {
        return Err("its induction variable does not step by 1".into());
    }
    let condition = back.operand(0);
    if !condition.is_instruction() || condition.opcode() != LLVMICmp || condition.users().len() != 1 {
        return Err("its exit test is not an integer comparison used only by the latch".into());
    }
    let defined_inside = |v: Value| v.is_instruction() && inside.contains(&v.parent_block());
    let (a, b) = (condition.operand(0), condition.operand(1));
    let (bound, bound_first, counter) = if defined_inside(a) && !defined_inside(b) {
        (b, false, a)
    } else if defined_inside(b) && !defined_inside(a) {
        (a, true, b)
    } else {
        return Err("its exit test does not compare the counter with a loop-invariant bound".into());
    };
    if counter != iv && counter != next {
        return Err("its exit test does not compare the induction variable".into());
    }
    for b in blocks {
        for i in b.instructions() {
            if i.users().iter().any(|u| !u.is_instruction() || !inside.contains(&u.parent_block())) {
                return Err(format!("`{}` is used after the loop", i.name()));
            }
            if let Some(why) = unordered_memory(i, &groups) {
                return Err(why);
            }
        }
    }
    Ok(Canonical {
        latch,
        preheader,
        exit,
        blocks: blocks.to_vec(),
        iv,
        start,
        next,
        predicate: condition.icmp_predicate(),
        bound,
        bound_first,
        compares_next: counter == next,
        continue_on_true,
        condition,
        refused,
    })
}

/// Why `i` keeps its loop from being one whose iterations may run as
/// lanes: a memory access in none of `groups`, the access groups the loop
/// lists as parallel (the `omp simd` promise does not cover it).
fn unordered_memory(i: Value, groups: &[Value]) -> Option<String> {
    let touches = match i.opcode() {
        LLVMLoad | LLVMStore | LLVMAtomicRMW | LLVMAtomicCmpXchg | LLVMFence | LLVMVAArg => true,
        LLVMCall | LLVMInvoke => {
            let callee = i.called_value();
            !(callee.is_function() && callee.fn_attribute_value("memory") == Some(0))
        }
        _ => false,
    };
    // An access group is a node without operands, or a list of them.
    let in_a_group = i.metadata_node("llvm.access.group").is_some_and(|node| {
        let list = node.node_operands();
        if list.is_empty() {
            groups.contains(&node)
        } else {
            list.into_iter().flatten().any(|g| groups.contains(&g))
        }
    });
    (touches && !in_a_group).then(|| format!("`{}` accesses memory outside the `omp simd` promise", i.print().trim()))
}

/// Builds the body clones of loop `c` of `f` and replaces the loop;
/// returns the note and the clones' reports, or why the loop stays.
fn batch<'ctx>(
    module: Module<'ctx>,
    f: Value<'ctx>,
    c: &Canonical<'ctx>,
    opts: &Options,
) -> Result<(String, Vec<CloneReport>), String> {
    let callee = c.refused.called_value();
    let mut ignored = Vec::new();
    let variants = built_or_promised(module, callee, declared_variants(callee), &mut ignored);
    // A loop's body clone has a fixed width: SVE variants do not serve it.
    let level = CallerLevel { sve: false, ..caller_level(f) };
    let Some(chosen) = choose(&variants, level).first().map(|s| (*s).clone()) else {
        return Err(format!("`{}` has no variant that `{}` may call", callee.name(), f.name()));
    };
    let (body, invariants) = outline(module, f, c);
    let specs: Vec<CloneSpec> = [false, true]
        .iter()
        .map(|&masked| body_spec(body, chosen.isa, chosen.width, invariants.len(), masked))
        .collect();
    let discard = |specs: &[CloneSpec]| {
        for s in specs {
            if let Some(g) = module.function(&s.vector_name) {
                g.delete_function();
            }
        }
        body.delete_function();
    };
    for s in &specs {
        let lowered = abi::CloneAbi::of(body, s).map(|a| a.lowering.is_some());
        match lowered {
            Ok(false) => {}
            Ok(true) => {
                discard(&[]);
                return Err("its body's clone would need GCC's register lowering".into());
            }
            Err(e) => {
                discard(&[]);
                return Err(e.to_string());
            }
        }
    }
    let body_opts =
        Options { allow_fallback: true, cost_model: true, print_analysis: false, print_after: None, ..*opts };
    let reports = match crate::batchify_module(module, &specs, &body_opts) {
        Ok(r) => r,
        Err(e) => {
            discard(&specs);
            return Err(format!("its body cannot be batched: {e}"));
        }
    };
    if let Some(why) = reports.iter().find_map(|r| r.fallback.clone()) {
        discard(&specs);
        return Err(format!("its body would run once per lane: {why}"));
    }
    let unmasked = module.function(&specs[0].vector_name).expect("the unmasked body clone was built");
    let masked = module.function(&specs[1].vector_name).expect("the masked body clone was built");
    replace_loop(module, f, c, &invariants, unmasked, masked, &specs[1], chosen.width);
    if body.users().is_empty() {
        body.delete_function();
    }
    let note = format!(
        "calls `{}` for {} iterations at a time and `{}` for the last ones (chosen by `{}`'s variant `{}`)",
        specs[0].vector_name,
        chosen.width,
        specs[1].vector_name,
        callee.name(),
        chosen.vector_name
    );
    Ok((note, reports))
}

/// The request for a body clone: `l` for the induction variable, `u` for
/// the `invariants` that follow it.
fn body_spec(body: Value, isa: crate::vfabi::Isa, width: u32, invariants: usize, masked: bool) -> CloneSpec {
    let mut params = vec![ParamKind::Linear { step: 1 }];
    params.extend(std::iter::repeat_n(ParamKind::Uniform, invariants));
    let ps: Vec<Param> = params.iter().map(|&kind| Param { kind, align: None }).collect();
    let name = body.name();
    CloneSpec {
        // Internal, so named as helpers are: no `_ZGV` symbol that tools
        // would take for a variant of the module's interface.
        vector_name: format!(
            "{}{}",
            crate::callee_clones::HELPER_PREFIX,
            VariantName::mangle(isa, masked, width, &ps, &name)
        ),
        scalar_name: name,
        width,
        aligns: vec![None; params.len()],
        params,
        mask: masked.then(|| mask_abi_for(isa)),
        isa,
    }
}

/// Copies one iteration of loop `c` into a new internal function taking
/// the induction variable and then every value from outside the loop
/// that the iteration uses (returned, in parameter order).
fn outline<'ctx>(module: Module<'ctx>, f: Value<'ctx>, c: &Canonical<'ctx>) -> (Value<'ctx>, Vec<Value<'ctx>>) {
    let inside: HashSet<Block> = c.blocks.iter().copied().collect();
    let skipped = |i: Value| {
        i == c.iv || i == c.condition || (i == c.next && i.users().iter().all(|u| *u == c.iv || *u == c.condition))
    };
    let mut invariants: Vec<Value> = Vec::new();
    for b in &c.blocks {
        for i in b.instructions() {
            if skipped(i) || i == c.latch.terminator().expect("checked") {
                continue;
            }
            for v in i.operands() {
                let from_outside = v.is_argument() || (v.is_instruction() && !inside.contains(&v.parent_block()));
                if from_outside && !invariants.contains(&v) {
                    invariants.push(v);
                }
            }
        }
    }
    let ctx = module.context();
    let mut param_types = vec![c.iv.ty()];
    param_types.extend(invariants.iter().map(|v| v.ty()));
    let mut name = format!("{BODY_PREFIX}{}", f.name());
    let mut k = 0;
    while module.function(&format!("{name}.{k}")).is_some() || module.has_global_named(&format!("{name}.{k}")) {
        k += 1;
    }
    name = format!("{name}.{k}");
    let body = module.add_function(&name, Type::function(Type::void(ctx), &param_types));
    body.set_internal();
    copy_function_attributes(f, body);
    let params = body.params();
    params[0].set_name(&c.iv.name());
    for (v, p) in invariants.iter().zip(&params[1..]) {
        p.set_name(&v.name());
    }
    let mut map: HashMap<Value, Value> = HashMap::new();
    map.insert(c.iv, params[0]);
    for (v, p) in invariants.iter().zip(&params[1..]) {
        map.insert(*v, *p);
    }
    let mut bmap: HashMap<Block, Block> = HashMap::new();
    for b in &c.blocks {
        bmap.insert(*b, body.append_block(&b.name()));
    }
    let builder = Builder::new(ctx);
    let mut phis = Vec::new();
    let mut copies = Vec::new();
    for b in &c.blocks {
        builder.position_at_end(bmap[b]);
        for i in b.instructions() {
            if skipped(i) {
                continue;
            }
            let copy = if Some(i) == c.latch.terminator() {
                builder.ret(None)
            } else if i.opcode() == LLVMPHI {
                let p = builder.phi(i.ty());
                phis.push((i, p));
                p
            } else {
                let copy = i.clone_instruction();
                builder.insert(copy);
                copies.push(copy);
                copy
            };
            // The body has no debug-info subprogram of its own.
            copy.clear_debug_location();
            copy.set_name(&i.name());
            map.insert(i, copy);
        }
    }
    let remap =
        |v: Value<'ctx>| if v.is_block() { bmap[&v.as_block()].as_value() } else { map.get(&v).copied().unwrap_or(v) };
    for copy in copies {
        for k in 0..copy.num_operands() {
            let op = copy.operand(k);
            let new = remap(op);
            if new != op {
                copy.set_operand(k, new);
            }
        }
    }
    for (old, new) in phis {
        for (v, b) in old.incoming() {
            new.add_incoming(remap(v), bmap[&b]);
        }
    }
    (body, invariants)
}

/// Gives `body` the function attributes of `f` that describe the code
/// (target, floating-point modes, `nounwind`), not those that describe
/// `f`'s signature, effects or variants.
fn copy_function_attributes(f: Value, body: Value) {
    use crate::llvm::{attribute_is_string, attribute_string_key};
    for a in f.attributes(FUNCTION_INDEX) {
        if attribute_is_string(a) {
            let key = attribute_string_key(a);
            if !key.starts_with("_ZGV") && key != "vector-function-abi-variant" {
                body.add_attribute(FUNCTION_INDEX, a);
            }
        }
    }
    if f.has_fn_attribute("nounwind") {
        let ctx = f.function_type().context();
        body.add_attribute(FUNCTION_INDEX, crate::llvm::create_enum_attribute(ctx, "nounwind", 0));
    }
}

/// Replaces loop `c` of `f` by the trips over its body clones.
#[allow(clippy::too_many_arguments)]
fn replace_loop<'ctx>(
    module: Module<'ctx>,
    f: Value<'ctx>,
    c: &Canonical<'ctx>,
    invariants: &[Value<'ctx>],
    unmasked: Value<'ctx>,
    masked: Value<'ctx>,
    masked_spec: &CloneSpec,
    width: u32,
) {
    let ctx = module.context();
    let b = Builder::new(ctx);
    let ty = c.iv.ty();
    let trip = f.append_block("batchify.loop.trip");
    let all = f.append_block("batchify.loop.all");
    let last = f.append_block("batchify.loop.last");
    b.position_at_end(trip);
    let i = b.phi(ty);
    i.set_name(&c.iv.name());
    let offsets: Vec<Value> = (0..width).map(|k| constant::int(ty, k as u64)).collect();
    let lanes = b.binop(LLVMAdd, abi::splat(&b, i, width), constant::vector(&offsets));
    let counter =
        if c.compares_next { b.binop(LLVMAdd, lanes, abi::splat(&b, constant::int(ty, 1), width)) } else { lanes };
    let bound = abi::splat(&b, c.bound, width);
    let test = if c.bound_first { b.icmp(c.predicate, bound, counter) } else { b.icmp(c.predicate, counter, bound) };
    let bits_ty = Type::int(ctx, width);
    let mut bits = b.cast(LLVMBitCast, test, bits_ty);
    if !c.continue_on_true {
        bits = b.binop(LLVMXor, bits, constant::all_ones(bits_ty));
    }
    let goes_on = b.icmp(LLVMIntPredicate::LLVMIntEQ, bits, constant::all_ones(bits_ty));
    b.cond_br(goes_on, all, last);

    let mut args = vec![i];
    args.extend_from_slice(invariants);
    b.position_at_end(all);
    let call = b.call(unmasked.function_type(), unmasked, &args);
    call.set_call_conv(unmasked.call_conv());
    let i_next = b.binop(LLVMAdd, i, constant::int(ty, width as u64));
    b.br(trip);
    i.add_incoming(c.start, c.preheader);
    i.add_incoming(i_next, all);

    // Iterations 0..=stop run, where `stop` is the first that leaves.
    b.position_at_end(last);
    let cttz = module.intrinsic("llvm.cttz", &[bits_ty]).expect("llvm.cttz exists");
    let leaves = b.binop(LLVMXor, bits, constant::all_ones(bits_ty));
    let stop = b.call(cttz.function_type(), cttz, &[leaves, constant::int(Type::int(ctx, 1), 0)]);
    let i32t = Type::int(ctx, 32);
    let stop32 = match width.cmp(&32) {
        std::cmp::Ordering::Less => b.cast(LLVMZExt, stop, i32t),
        std::cmp::Ordering::Equal => stop,
        std::cmp::Ordering::Greater => b.cast(LLVMTrunc, stop, i32t),
    };
    let ids: Vec<Value> = (0..width).map(|k| constant::int(i32t, k as u64)).collect();
    let runs = b.icmp(LLVMIntPredicate::LLVMIntULE, constant::vector(&ids), abi::splat(&b, stop32, width));
    let mabi = masked_spec.mask.expect("the masked body clone has a mask");
    let mty = *masked.function_type().param_types().last().expect("a masked clone has a mask parameter");
    let mut margs = args.clone();
    margs.push(abi::encode_mask(&b, mabi, runs, mty));
    let call = b.call(masked.function_type(), masked, &margs);
    call.set_call_conv(masked.call_conv());
    b.br(c.exit);

    let enter = c.preheader.terminator().expect("checked");
    enter.set_successor(0, trip);
    for phi in c.exit.instructions().into_iter().take_while(|i| i.opcode() == LLVMPHI) {
        b.position_before(phi);
        let new = b.phi(phi.ty());
        for (v, from) in phi.incoming() {
            new.add_incoming(v, if from == c.latch { last } else { from });
        }
        new.set_name(&phi.name());
        phi.replace_all_uses_with(new);
        phi.erase();
    }
    delete_blocks(&c.blocks);
}

/// Deletes blocks that nothing outside them uses any more.
fn delete_blocks(blocks: &[Block]) {
    for b in blocks {
        for i in b.instructions() {
            if !i.ty().is_void() {
                i.replace_all_uses_with(constant::poison(i.ty()));
            }
        }
    }
    for b in blocks {
        if let Some(t) = b.terminator() {
            t.erase();
        }
    }
    for b in blocks {
        b.delete();
    }
}
