//! Lane refill: the scalar *worker* behind a map's refilling loop.
//!
//! A clone runs its divergent loop until the slowest lane of the group is
//! done; on incoherent inputs most lanes wait. The refill worker of a map
//! of `R f(T0, ..., Tk)` is a scalar function
//!
//! ```text
//! void __batchify_refill.<map>(i64 lo, i32 count, <the map's parameters after n>, i32 lane)
//! ```
//!
//! whose lanes take the elements `lo .. lo + count` in order, as they
//! become free (`count` at most `map_entry::WORKER_MAX_COUNT`: the lanes
//! count in 32 bits, so that their index and masks take one register, not
//! two), with `f`'s body copied in and its one outermost loop *flattened*
//! into the element loop, whose header (`fetch`) either resumes the
//! element in progress (up to [`REFILL_TRIPS`] more trips of `f`'s loop) or,
//! when the lane is free, starts the next element (the code before `f`'s
//! loop). The free lanes take consecutive elements, `next`, `next + 1`, ...
//! in lane order (their rank among the free lanes, the group operation
//! `analysis::calls::INDEX`; `next` grows by their number,
//! `analysis::calls::COUNT_TRUE`), so a refill reads its new arguments as
//! one packed load from element `next` on
//! (`analysis::calls::PACKED_LOAD_ACTIVE`: `vexpandps` on AVX-512, a
//! masked load and `vpermps` on AVX2), not a gather, and lanes that start
//! together take neighbouring elements (on coherent input they stay
//! coherent). The code after `f`'s loop stores the result and frees the
//! lane. Batched by the ordinary pipeline (every parameter uniform but the
//! last, unused, linear), every trip of the worker's loop runs trips of
//! `f`'s loop in every busy lane (an inner loop) until 3/8 of the lanes
//! have finished their element ([`refill_below`], counted by the group
//! operation `analysis::calls::ACTIVE_LANES`) or `REFILL_TRIPS` trips have
//! run; then the finished lanes store their results and take their next
//! elements, instead of waiting for the whole group: lane refill, with the
//! starting and finishing code masked (skipped in trips where no lane
//! needs it).
//!
//! ```text
//! entry:  busy = false; next = 0
//! fetch:  t = 0; rank = index(!busy); next' = next + count_true(!busy)
//!         br busy ? H : new                   ; the element loop's header
//! new:    r = next + rank; br r < count ? start : done
//! start:  i = lo + r; the element's arguments (packed_load_active(&p[lo + next]),
//!         base + i*step, uniform values); f's entry
//! ...     f's body; f's loop latch -> count; f's return -> finish
//! count:  t += 1; br (t < REFILL_TRIPS && active_lanes() > refill_below(N)) ? H : resume
//! resume: busy = true; br next.trip
//! finish: out[lo + r] = result; busy = false; br next.trip
//! next.trip: next = next'; br fetch            ; the element loop's one back edge
//! ```
//!
//! Values that cross the new edges go through stack slots
//! ([`crate::prepare::demote`]); the pipeline's own preparation promotes
//! them again. The elements of one lane run in order and elements of
//! different lanes interleave, so the worker is built only for `f`s that
//! write no memory except their own stack (and call only functions that
//! write none): the interleaving is then invisible. Anything else keeps the
//! grouped map ([`Unsupported`] says why).

use crate::analysis::cfg::Cfg;
use crate::analysis::dominance::Dominators;
use crate::analysis::loops::{LoopId, Loops};
use crate::array_form::memory_element;
use crate::llvm::{constant, Block, Builder, LLVMIntPredicate, LLVMOpcode::*, Module, Type, Value};
use crate::map_entry::{self, MapRequest};
use crate::spec::CloneSpec;
use crate::vfabi::{Param, ParamKind, VariantName};

/// The most trips of `f`'s loop a worker runs between two refills: lanes
/// whose element finishes wait at most this many trips for the next.
pub const REFILL_TRIPS: u64 = 64;

/// A worker refills when at most this many of its `width` lanes are still
/// running `f`'s loop: when 3/8 of them (at least one) have finished. The
/// dispatch (starting and finishing elements, merging the lanes' states)
/// then costs once per several finished elements, not once per trip.
/// (Measured on Mandelbrot, Zen 4, shuffled input, after packed loads:
/// refilling at 3/8 against 1/2 of the lanes: 43.9 against 46.1 ms at
/// AVX2 x8, 32.1 against 33.5 ms at AVX2 x16, 24.0 against 26.2 ms at
/// AVX-512 x16; at 1/4 or 1/8 slower again.)
pub fn refill_below(width: u32) -> u64 {
    let width = u64::from(width);
    width - (3 * width).div_ceil(8).max(1)
}

/// The name prefix of refill workers.
pub const WORKER_PREFIX: &str = "__batchify_refill.";

/// Why a map has no refill form (it keeps its grouped loop).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unsupported(pub String);

impl std::fmt::Display for Unsupported {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// A refill worker: the scalar function, and the clone of it to build
/// (unmasked, the map's ISA, its width times [`lane_groups`]; every parameter uniform but the
/// last, the lane, linear with step 1).
pub struct Worker<'ctx> {
    /// The scalar worker (internal; deleted once its clone is built).
    pub scalar: Value<'ctx>,
    /// Its clone.
    pub spec: CloneSpec,
}

/// The worker's name for the map `map`.
pub fn worker_name(map: &str) -> String {
    format!("{WORKER_PREFIX}{map}")
}

/// How many lane groups of the map's width its worker runs in one trip:
/// two where the map's clone found `f`'s divergent loop latency-bound
/// (`latency_bound`, [`crate::cost::LoopEstimate::latency_bound`]) on
/// AVX2 or AVX-512 and every value of `f` fits one register per group, so
/// that each group's values take one register and the two groups' chains
/// overlap; else one. (Measured on Zen 4, shuffled input, AVX2 x8 maps:
/// Mandelbrot 4.17x -> 5.00x over scalar calls, ray marching 4.87x ->
/// 6.62x; AVX-512 x16: 7.62x -> 9.65x and 8.44x -> 11.54x. Four registers
/// per value, AVX2 x16 maps with 32 workers' lanes: Mandelbrot 5.06x ->
/// 4.65x, so two groups is the most.)
pub fn lane_groups(scalar: Value, spec: &CloneSpec, latency_bound: bool) -> u32 {
    use crate::vfabi::Isa;
    let two = latency_bound
        && matches!(spec.isa, Isa::Avx2 | Isa::Avx512)
        && spec.isa.vector_bits().is_some_and(|bits| spec.width * widest_value_bits(scalar) <= bits);
    if two {
        2
    } else {
        1
    }
}

/// The widest integer or floating-point type among `f`'s parameters,
/// result and instructions (pointers and `i1` not counted: a group's
/// pointers are its addresses, not carried values).
fn widest_value_bits(f: Value) -> u32 {
    use crate::llvm::LLVMTypeKind::*;
    let bits = |t: Type| match t.kind() {
        LLVMIntegerTypeKind if t.int_width() == 1 => 0,
        LLVMIntegerTypeKind | LLVMHalfTypeKind | LLVMBFloatTypeKind | LLVMFloatTypeKind | LLVMDoubleTypeKind
        | LLVMX86_FP80TypeKind | LLVMFP128TypeKind => crate::abi::scalar_bits(t),
        _ => 0,
    };
    let fty = f.function_type();
    let signature = std::iter::once(fty.return_type()).chain(fty.param_types());
    let body = f.blocks().into_iter().flat_map(|b| b.instructions()).map(|i| i.ty());
    signature.chain(body).map(bits).max().unwrap_or(0)
}

/// Builds the scalar refill worker of `request`'s map, running `groups`
/// lane groups of the map's width per trip ([`lane_groups`]), or says why
/// the map has none. On `Err` the module is unchanged.
pub fn build_worker<'ctx>(
    module: Module<'ctx>,
    request: &MapRequest,
    groups: u32,
) -> std::result::Result<Worker<'ctx>, Unsupported> {
    let no = |why: &str| Err(Unsupported(why.to_string()));
    let spec = &request.spec;
    let Some(scalar) = module.function(&spec.scalar_name).filter(|f| !f.is_declaration()) else {
        return no("the scalar function has no body here");
    };
    let sty = scalar.function_type();
    let ret = sty.return_type();
    if ret.is_void() {
        return no("the function returns nothing");
    }
    let plain = |t: Type| !t.is_aggregate() && !t.is_vector() && !t.is_void();
    if !plain(ret) || !sty.param_types().into_iter().all(plain) {
        return no("a parameter or the result is a vector or an aggregate");
    }
    if let Some((holder, op)) = crate::analysis::cross_lane::first_use(scalar) {
        return Err(Unsupported(format!(
            "`{holder}` calls the cross-lane operation `{op}`, whose lane groups refilling would change"
        )));
    }
    if let Some(why) = writes_memory(scalar) {
        return Err(Unsupported(why));
    }
    let name = worker_name(&request.name);
    if module.function(&name).is_some() {
        return no("the worker's name is taken");
    }
    let map_ty = map_entry::map_type(module, scalar, request).map_err(|e| Unsupported(e.to_string()))?;
    let scratch = crate::prepare::prepare(module, scalar, &name).map_err(|e| Unsupported(e.to_string()))?;
    let source = scratch.function;
    let cfg = Cfg::new(source);
    let dom = Dominators::new(&cfg);
    let Ok(loops) = Loops::new(&cfg, &dom) else { return no("the function's control flow is irreducible") };
    let outer: Vec<(LoopId, Block)> =
        loops.loops.iter().enumerate().filter(|(_, l)| l.depth == 1).map(|(k, l)| (LoopId(k), l.header)).collect();
    let [(id, header)] = outer[..] else {
        return Err(Unsupported(format!("the function has {} outermost loops, refill needs one", outer.len())));
    };
    let latches: Vec<Block> = cfg.preds[&header].iter().copied().filter(|&p| loops.contains(id, p)).collect();

    let ctx = module.context();
    let (i32t, i64t) = (Type::int(ctx, 32), Type::int(ctx, 64));
    let mut params = vec![i64t, i32t];
    params.extend(map_ty.param_types().into_iter().skip(1));
    params.push(i32t);
    let w = module.add_function(&name, Type::function(Type::void(ctx), &params));
    w.set_internal();
    for key in ["target-cpu", "tune-cpu", "target-features", "denormal-fp-math", "denormal-fp-math-f32"] {
        if let Some(v) = scalar.string_attribute(crate::llvm::FUNCTION_INDEX, key) {
            w.set_string_attribute(crate::llvm::FUNCTION_INDEX, key, &v);
        }
    }
    let width = spec.width * groups;
    let built = Build { module, ops: GroupOps::declare(module), w, b: Builder::new(ctx), i64t, width }
        .body(source, request, header, &latches, ret);
    drop(scratch);
    match built.and_then(|()| module.verify_function(w).map_err(|e| format!("the worker does not verify: {e}"))) {
        Ok(()) => {}
        Err(e) => {
            w.delete_function();
            return Err(Unsupported(format!("internal: {e}")));
        }
    }
    let mut kinds: Vec<Param> =
        (0..params.len() - 1).map(|_| Param { kind: ParamKind::Uniform, align: None }).collect();
    kinds.push(Param { kind: ParamKind::Linear { step: 1 }, align: None });
    let mangled = VariantName::mangle(spec.isa, false, width, &kinds, &name);
    let spec = VariantName::parse(&mangled)
        .map_err(|e| e.to_string())
        .and_then(|v| CloneSpec::from_variant(&v).map_err(|e| e.to_string()));
    match spec {
        Ok(spec) => Ok(Worker { scalar: w, spec }),
        Err(e) => {
            w.delete_function();
            Err(Unsupported(format!("internal: {e}")))
        }
    }
}

/// The declaration of group operation `name` of type `ty` (see
/// `analysis::calls`): `nounwind`, `willreturn`, `convergent` (no pass may
/// move it to where other lanes are active), and `memory(none)`, or, for
/// `reads_arg`, `memory(argmem: read)`.
fn group_op_decl<'ctx>(module: Module<'ctx>, name: &str, ty: Type<'ctx>, reads_arg: bool) -> Value<'ctx> {
    if let Some(f) = module.function(name) {
        return f;
    }
    let ctx = module.context();
    let f = module.add_function(name, ty);
    // MemoryEffects: two bits per location, argument memory first.
    let memory = u64::from(reads_arg);
    for (attr, value) in [("memory", memory), ("nounwind", 0), ("willreturn", 0), ("convergent", 0)] {
        f.add_attribute(crate::llvm::FUNCTION_INDEX, crate::llvm::create_enum_attribute(ctx, attr, value));
    }
    f
}

/// The group operations' declarations that refill workers call.
struct GroupOps<'ctx> {
    /// `analysis::calls::ACTIVE_LANES`.
    active_lanes: Value<'ctx>,
    /// `analysis::calls::INDEX`.
    index: Value<'ctx>,
    /// `analysis::calls::COUNT_TRUE`.
    count_true: Value<'ctx>,
}

impl<'ctx> GroupOps<'ctx> {
    fn declare(module: Module<'ctx>) -> Self {
        let i32t = Type::int(module.context(), 32);
        use crate::analysis::calls::{ACTIVE_LANES, COUNT_TRUE, INDEX};
        GroupOps {
            active_lanes: group_op_decl(module, ACTIVE_LANES, Type::function(i32t, &[]), false),
            index: group_op_decl(module, INDEX, Type::function(i32t, &[i32t]), false),
            count_true: group_op_decl(module, COUNT_TRUE, Type::function(i32t, &[i32t]), false),
        }
    }
}

/// The declaration of `analysis::calls::PACKED_LOAD_ACTIVE` for elements of
/// type `elem`, if it has a form for them.
fn packed_load_decl<'ctx>(module: Module<'ctx>, elem: Type<'ctx>) -> Option<Value<'ctx>> {
    let name = crate::analysis::calls::packed_load_active_name(elem)?;
    let ptr = Type::ptr(module.context());
    Some(group_op_decl(module, &name, Type::function(elem, &[ptr]), true))
}

/// Deletes the declarations of the refill workers' group operations that
/// nothing calls (every worker's clone built or dropped).
pub fn drop_unused_group_op_decls(module: Module) {
    use crate::analysis::calls::{ACTIVE_LANES, COUNT_TRUE, INDEX, PACKED_LOAD_ACTIVE};
    for f in module.functions() {
        let name = f.name();
        let ours = [ACTIVE_LANES, INDEX, COUNT_TRUE].contains(&name.as_str()) || name.starts_with(PACKED_LOAD_ACTIVE);
        if ours && f.is_declaration() && f.users().is_empty() {
            f.delete_function();
        }
    }
}

/// Why `f`'s elements could not interleave unseen: the first instruction
/// that may write memory other than `f`'s own stack slots or that does not
/// return, if any; or an
/// `alloca` outside the entry block (the worker would grow its stack with
/// every element).
fn writes_memory(f: Value) -> Option<String> {
    for (k, block) in f.blocks().into_iter().enumerate() {
        for i in block.instructions() {
            if k > 0 && i.opcode() == LLVMAlloca {
                return Some(format!("`{}` allocates stack memory per call", i.print().trim()));
            }
            let bad = match i.opcode() {
                LLVMStore => i.is_volatile() || !on_own_stack(i.operand(1)),
                LLVMLoad => i.is_volatile(),
                LLVMAtomicRMW | LLVMAtomicCmpXchg | LLVMFence | LLVMVAArg => true,
                LLVMInvoke | LLVMCallBr | LLVMLandingPad | LLVMResume => true,
                LLVMCall => {
                    let hint = crate::analysis::calls::called_intrinsic(i)
                        .is_some_and(|n| crate::analysis::calls::is_droppable_hint(&n));
                    // A `noreturn` call (a panic, `abort`) would end the
                    // elements in another order than the scalar loop's.
                    if crate::analysis::calls::is_noreturn_call(i) {
                        return Some(format!("`{}` does not return", i.print().trim()));
                    }
                    !hint && crate::analysis::calls::may_write(i)
                }
                _ => false,
            };
            if bad {
                return Some(format!("`{}` may write memory that other elements see", i.print().trim()));
            }
        }
    }
    None
}

/// Whether `p` points into an `alloca` of its function.
fn on_own_stack(mut p: Value) -> bool {
    loop {
        match p.is_instruction().then(|| p.opcode()) {
            Some(LLVMAlloca) => return true,
            Some(LLVMGetElementPtr | LLVMBitCast | LLVMAddrSpaceCast) => p = p.operand(0),
            _ => return false,
        }
    }
}

/// The worker being built.
struct Build<'ctx> {
    module: Module<'ctx>,
    /// The group operations it calls.
    ops: GroupOps<'ctx>,
    w: Value<'ctx>,
    b: Builder<'ctx>,
    i64t: Type<'ctx>,
    width: u32,
}

impl<'ctx> Build<'ctx> {
    /// The worker's body (see the module documentation), with `source`'s
    /// blocks copied in.
    fn body(
        &self,
        source: Value<'ctx>,
        request: &MapRequest,
        header: Block<'ctx>,
        latches: &[Block<'ctx>],
        ret: Type<'ctx>,
    ) -> std::result::Result<(), String> {
        let (b, i64t) = (&self.b, self.i64t);
        let ctx = self.module.context();
        let i32t = Type::int(ctx, 32);
        let ps = self.w.params();
        let (lo, count, lane) = (ps[0], ps[1], ps[ps.len() - 1]);
        let map_params = &ps[2..ps.len() - 1];
        let out = map_params[map_params.len() - 1];
        let entry = self.w.append_block("entry");
        let fetch = self.w.append_block("fetch");
        let new = self.w.append_block("new");
        let start = self.w.append_block("start");
        let done = self.w.append_block("done");
        // One back edge: with two, loop-simplify would split the loop in
        // an element loop around f's loop again (a header phi, the
        // index, is unchanged along one of them).
        let next_trip = self.w.append_block("next.trip");
        b.position_at_end(next_trip);
        b.br(fetch);
        b.position_at_end(entry);
        let r_slot = b.alloca(i32t);
        let busy_slot = b.alloca(Type::int(ctx, 1));
        let next_slot = b.alloca(i32t);
        b.store(lane, r_slot, 4);
        b.store(constant::null(Type::int(ctx, 1)), busy_slot, 1);
        b.store(constant::null(i32t), next_slot, 4);
        b.br(fetch);
        // Every lane still in the loop is here: the free ones take the
        // next elements, `next`, `next + 1`, ... in lane order.
        b.position_at_end(fetch);
        let busy = b.load(Type::int(ctx, 1), busy_slot, 1);
        let free = b.cast(LLVMZExt, b.binop(LLVMXor, busy, constant::int(Type::int(ctx, 1), 1)), i32t);
        let rank = b.call(self.ops.index.function_type(), self.ops.index, &[free]);
        let taken = b.call(self.ops.count_true.function_type(), self.ops.count_true, &[free]);
        let next = b.load(i32t, next_slot, 4);
        b.store(b.binop(LLVMAdd, next, taken), next_slot, 4);
        let to_new = b.br(new);
        b.position_at_end(new);
        let r = b.binop(LLVMAdd, next, rank);
        b.store(r, r_slot, 4);
        let more = b.icmp(LLVMIntPredicate::LLVMIntULT, r, count);
        b.cond_br(more, start, done);
        b.position_at_end(done);
        b.ret(None);

        // The lane's element: `lo + r`, in 64 bits.
        let element = |r: Value<'ctx>| b.binop(LLVMAdd, lo, b.cast(LLVMZExt, r, i64t));
        b.position_at_end(start);
        let i = element(r);
        // The lanes starting elements are the first free ones: they read
        // their arguments packed, from element `lo + next` on.
        let first = element(next);
        let args = self.element_args(source, request, map_params, i, first)?;
        let bmap = crate::prepare::copy_body(source, self.w, &args);
        b.br(bmap[&source.blocks()[0]]);

        // f's returns finish the element.
        let mut finishes = Vec::new();
        for copy in bmap.values() {
            let Some(term) = copy.terminator() else { continue };
            if term.opcode() != LLVMRet {
                continue;
            }
            b.position_before(term);
            let result = term.operand(0);
            let r = b.load(i32t, r_slot, 4);
            let i = element(r);
            let m = memory_element(ret);
            let at = b.gep(m, out, &[i], Default::default());
            let stored = if m != ret { b.cast(LLVMZExt, result, m) } else { result };
            b.store(stored, at, self.module.abi_alignment_of(m)).set_flag_metadata(crate::plan::memory::SPARSE_ACCESS);
            b.store(constant::null(Type::int(ctx, 1)), busy_slot, 1);
            finishes.push(b.br(next_trip));
            term.erase();
        }
        // f's allocas are all in its entry block (`writes_memory`).
        map_entry::hoist_allocas(self.w);
        if !crate::prepare::demote::demote(self.w) {
            return Err("its values could not be demoted to stack slots".into());
        }
        // A finished element's values are dead: say so, so that they are
        // no live-outs of f's loop that the clone must hold for lanes that
        // finished while others run on (after promotion, the element
        // loop's phis take poison from the finishing path).
        let own = [r_slot, busy_slot, next_slot];
        let slots: Vec<Value> = entry
            .instructions()
            .into_iter()
            .filter(|i| i.opcode() == LLVMAlloca && !own.contains(i))
            .filter(|i| {
                let t = i.allocated_type();
                !t.is_aggregate() && !t.is_void()
            })
            .collect();
        for br in finishes {
            b.position_before(br);
            for slot in &slots {
                b.store(constant::poison(slot.allocated_type()), *slot, 0);
            }
        }
        // Flatten: the loop's back edges run up to REFILL_TRIPS trips, then
        // resume at `fetch`.
        let h = bmap[&header];
        let t_slot = {
            b.position_before(entry.terminator().expect("the entry branches"));
            b.alloca(i32t)
        };
        let count = self.w.append_block("count");
        let resume = self.w.append_block("resume");
        b.position_at_end(count);
        let t = b.load(i32t, t_slot, 4);
        let t1 = b.binop(LLVMAdd, t, constant::int(i32t, 1));
        b.store(t1, t_slot, 4);
        let more_trips = b.icmp(LLVMIntPredicate::LLVMIntULT, t1, constant::int(i32t, REFILL_TRIPS));
        let active = b.call(self.ops.active_lanes.function_type(), self.ops.active_lanes, &[]);
        let busy_enough = b.icmp(LLVMIntPredicate::LLVMIntUGT, active, constant::int(i32t, refill_below(self.width)));
        let again = b.binop(LLVMAnd, more_trips, busy_enough);
        b.cond_br(again, h, resume);
        b.position_at_end(resume);
        b.store(constant::all_ones(Type::int(ctx, 1)), busy_slot, 1);
        b.br(next_trip);
        for latch in latches {
            let term = bmap[latch].terminator().ok_or("a latch without a terminator")?;
            for (k, s) in term.successors().into_iter().enumerate() {
                if s == h {
                    term.set_successor(k as u32, count);
                }
            }
        }
        b.position_before(to_new);
        b.store(constant::null(i32t), t_slot, 4);
        let busy = b.load(Type::int(ctx, 1), busy_slot, 1);
        b.cond_br(busy, h, new);
        to_new.erase();
        Ok(())
    }

    /// The scalar function's arguments for element `i`, read in `start`,
    /// where the lanes starting elements take `first`, `first + 1`, ... in
    /// lane order: array elements are read packed from `first` on
    /// (`analysis::calls::PACKED_LOAD_ACTIVE`), or at `i` where that has
    /// no form for the element type.
    fn element_args(
        &self,
        source: Value<'ctx>,
        request: &MapRequest,
        map_params: &[Value<'ctx>],
        i: Value<'ctx>,
        first: Value<'ctx>,
    ) -> std::result::Result<Vec<Value<'ctx>>, String> {
        let b = &self.b;
        // The map's callers may give `poison` for an array the function
        // never reads (`array_form::unread_params`); the worker gets the
        // map's parameters, so it must not read those either.
        let map = self.module.function(&request.name);
        let unread = crate::array_form::unread_params(source, map, 1);
        let mut args = Vec::new();
        for (j, (t, kind)) in source.function_type().param_types().into_iter().zip(&request.spec.params).enumerate() {
            let p = map_params[j];
            args.push(match *kind {
                ParamKind::Vector if unread[j] => constant::null(t),
                ParamKind::Vector => {
                    let m = memory_element(t);
                    let v = match packed_load_decl(self.module, m) {
                        Some(load) => {
                            let from = b.gep(m, p, &[first], Default::default());
                            b.call(load.function_type(), load, &[from])
                        }
                        None => {
                            let at = b.gep(m, p, &[i], Default::default());
                            let v = b.load(m, at, self.module.abi_alignment_of(m));
                            v.set_flag_metadata(crate::plan::memory::SPARSE_ACCESS);
                            v
                        }
                    };
                    if m != t {
                        b.cast(LLVMTrunc, v, t)
                    } else {
                        v
                    }
                }
                ParamKind::Uniform => p,
                ParamKind::Linear { .. } | ParamKind::LinearVarStep { .. } => {
                    map_entry::linear_at(b, *kind, p, map_params, i)
                }
                ParamKind::LinearRef { .. } => return Err(format!("parameter {j}: reference kinds have no map form")),
            });
        }
        Ok(args)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llvm::parse_ir;
    // Links libLLVM into the test binary.
    use batchify_llvm_link as _;

    const IR: &str = "define i32 @f(float %x, i32 %k) {\n  %y = fmul float %x, %x\n  ret i32 %k\n}\n\
                      define i32 @g(double %x) {\n  %b = bitcast double %x to i64\n  %t = trunc i64 %b to i32\n  \
                      ret i32 %t\n}";

    fn spec(variant: &str) -> CloneSpec {
        CloneSpec::from_variant(&VariantName::parse(variant).unwrap()).unwrap()
    }

    #[test]
    fn two_lane_groups_where_latency_bound_and_a_group_fills_one_register() {
        let ctx = inkwell::context::Context::create();
        let m = parse_ir(&ctx, IR, "t").unwrap();
        let module = Module::from_inkwell(&m);
        let (f, g) = (module.function("f").unwrap(), module.function("g").unwrap());
        assert_eq!(widest_value_bits(f), 32);
        assert_eq!(widest_value_bits(g), 64);
        assert_eq!(lane_groups(f, &spec("_ZGVdN8vv_f"), true), 2);
        assert_eq!(lane_groups(f, &spec("_ZGVeN16vv_f"), true), 2);
        // Not latency-bound; a group of two registers; SSE and generic
        // clones (not measured).
        assert_eq!(lane_groups(f, &spec("_ZGVdN8vv_f"), false), 1);
        assert_eq!(lane_groups(f, &spec("_ZGVdN16vv_f"), true), 1);
        assert_eq!(lane_groups(f, &spec("_ZGVbN4vv_f"), true), 1);
        assert_eq!(lane_groups(f, &spec("_ZGV_LLVM_N8vv_f"), true), 1);
        // 8 doubles are two AVX2 registers, one AVX-512 register.
        assert_eq!(lane_groups(g, &spec("_ZGVdN8v_g"), true), 1);
        assert_eq!(lane_groups(g, &spec("_ZGVeN8v_g"), true), 2);
    }

    #[test]
    fn refills_when_three_eighths_of_the_lanes_are_free() {
        assert_eq!(refill_below(4), 2);
        assert_eq!(refill_below(8), 5);
        assert_eq!(refill_below(16), 10);
        assert_eq!(refill_below(32), 20);
        // One lane still refills as soon as it finishes.
        assert_eq!(refill_below(1), 0);
        assert_eq!(refill_below(2), 1);
    }
}
