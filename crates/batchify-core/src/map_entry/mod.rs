//! Map entry points: for a batched function `R f(T0, ..., Tk)`, a loop
//! over whole arrays built on its clones,
//!
//! ```text
//! void f_map(size_t n, <P0> a0, ..., <Pk> ak [, R *out])
//! ```
//!
//! computing `out[i] = f(a0[i], ..., ak[i])` for `i < n`, in groups of the
//! clone's `N` lanes: every full group is one call of the unmasked variant,
//! the last `n % N` elements one call of its masked twin (inputs read with
//! masked loads, results written with a masked store, so nothing past
//! element `n - 1` is touched). Parameter `Pj` follows the variant's kind
//! for parameter `j`:
//!
//! * varying (`v`): `const Tj *`, element `i` is `aj[i]`;
//! * uniform (`u`): `Tj`, the same value for every element;
//! * linear (`l<step>`, `ls<param>`): `Tj`, element `i` gets
//!   `aj + i * step` (bytes for a pointer, as the variant's own lanes do).
//!
//! `out` exists when `f` returns a value. Arrays need only their element's
//! alignment; `out` may be one of the input arrays (the group's inputs are
//! read before its results are written); any other overlap of `out` with an
//! input is undefined. `n = 0` does nothing. Booleans and other odd-width
//! integers are one byte per element, as in the array form.
//!
//! That is the grouped form ([`MapForm::Grouped`]). A map can also run
//! its elements through a refill worker's clone (`crate::refill`: lanes
//! that finish take their next element instead of waiting for the group;
//! [`MapForm::Refill`]), or time both forms on stretches of the input and
//! run the faster ([`MapForm::Adaptive`], the default); a function the
//! refill worker cannot take keeps the grouped form.
//!
//! Two doors ask for a map ([`MapRequest`]): a front end names it (the
//! CLI's `--map`, the plugin's `map`: the function `<f>_map` is created),
//! or a module *defines* `__batchify_map_<variant>` with the map's
//! signature and a scalar loop as its body, which batchify replaces (the
//! same contract as [`crate::array_form`]).

pub mod bucket;

use crate::abi;
use crate::array_form::{copy_target_attributes, load_lanes, memory_element, store_lanes, unread_params, zero_lanes};
use crate::error::{Error, Result};
use crate::llvm::{constant, Builder, LLVMIntPredicate, LLVMOpcode, Module, Type, Value, FUNCTION_INDEX};
use crate::spec::CloneSpec;
use crate::vfabi::{Param, ParamKind, VariantName};

/// The name prefix of a map request defined in a module.
pub const MAP_PREFIX: &str = "__batchify_map_";

/// The name prefix of an adaptive map's grouped range
/// (`__batchify_groups.<map>`, internal; not [`MAP_PREFIX`], which a later
/// run would take for a request).
pub const GROUPS_PREFIX: &str = "__batchify_groups.";

/// The suffix of a map a front end names (`<scalar>_map`).
pub const MAP_SUFFIX: &str = "_map";

/// How a map runs its elements (`--map-form`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MapForm {
    /// Groups of `N`: one call of the unmasked variant per full group, the
    /// masked twin for the tail.
    Grouped,
    /// One refilling loop over all elements (the refill worker's clone,
    /// `crate::refill`) where the function allows it, else grouped.
    Refill,
    /// Both, chosen at run time: the map times a stretch of each form with
    /// the CPU's cycle counter and runs the faster on the next stretch
    /// ([`PROBE_GROUPS`], [`RUN_PROBES`]). The choice changes speed only:
    /// every form computes every element exactly as the scalar function.
    #[default]
    Adaptive,
}

impl MapForm {
    /// The form named `name` (`grouped`, `refill`, `adaptive`).
    pub fn parse(name: &str) -> Option<MapForm> {
        Some(match name {
            "grouped" => MapForm::Grouped,
            "refill" => MapForm::Refill,
            "adaptive" => MapForm::Adaptive,
            _ => return None,
        })
    }

    /// The form's name, as [`MapForm::parse`] reads it.
    pub fn name(self) -> &'static str {
        match self {
            MapForm::Grouped => "grouped",
            MapForm::Refill => "refill",
            MapForm::Adaptive => "adaptive",
        }
    }
}

/// An adaptive map's probe: this many groups of `N` elements in each form.
pub const PROBE_GROUPS: u64 = 128;

/// An adaptive map runs the faster form on this many probes' worth of
/// elements before it probes again; while the same form keeps winning,
/// twice as many each time, up to [`RUN_BACKOFF`] times as many (so that
/// probing the slower form costs little on input that does not change).
pub const RUN_PROBES: u64 = 16;

/// The most an adaptive map's run grows ([`RUN_PROBES`]).
pub const RUN_BACKOFF: u64 = 8;

/// The built clone of a map's refill worker (see `crate::refill`): the
/// scalar worker's clone and its ABI.
pub struct RefillClone<'ctx> {
    /// The clone.
    pub symbol: Value<'ctx>,
    /// Its ABI (of the scalar worker and the clone's spec).
    pub abi: abi::CloneAbi<'ctx>,
    /// Its lanes: the map's width times its lane groups
    /// (`crate::refill::lane_groups`).
    pub lanes: u32,
}

/// One map to build.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MapRequest {
    /// The map function's name.
    pub name: String,
    /// The variant whose lanes the map's groups run (masked or not; the
    /// map needs both, see [`MapRequest::clones`]).
    pub spec: CloneSpec,
    /// Whether the module defines the function already (a request whose
    /// body is replaced) or the map is created.
    pub defined: bool,
}

impl MapRequest {
    /// The map a front end names for `spec`: `<scalar>_map`, created.
    pub fn named(spec: &CloneSpec) -> MapRequest {
        MapRequest { name: format!("{}{MAP_SUFFIX}", spec.scalar_name), spec: spec.clone(), defined: false }
    }

    /// The two clones the map calls: the unmasked variant for full groups
    /// and the masked one for the tail.
    pub fn clones(&self) -> Result<(CloneSpec, CloneSpec)> {
        let other = with_mask(&self.spec, self.spec.mask.is_none())?;
        Ok(if self.spec.mask.is_none() { (self.spec.clone(), other) } else { (other, self.spec.clone()) })
    }
}

/// `spec` with a mask (`masked`) or without one: the same variant name
/// with `M` for `N` or the other way round.
fn with_mask(spec: &CloneSpec, masked: bool) -> Result<CloneSpec> {
    let v = match VariantName::parse(&spec.vector_name) {
        Ok(v) if v.scalar_name == spec.scalar_name => VariantName { masked, ..v },
        // A clone named by a front end outside the mangling: mangle its kinds.
        _ => {
            let params: Vec<Param> =
                spec.params.iter().zip(&spec.aligns).map(|(&kind, &align)| Param { kind, align }).collect();
            let name = VariantName::mangle(spec.isa, masked, spec.width, &params, &spec.scalar_name);
            VariantName::parse(&name).map_err(|e| Error::BadVariant(e.to_string()))?
        }
    };
    let mut twin = CloneSpec::from_variant(&VariantName { vector_name: v.mangled(), ..v })?;
    // Kinds the spec resolved from reference forms stay as resolved.
    twin.params.clone_from(&spec.params);
    Ok(twin)
}

/// Every map request the module defines (`__batchify_map_<variant>`).
/// Names that do not parse are errors: the prefix is reserved.
pub fn requests(module: Module) -> Result<Vec<MapRequest>> {
    let found = crate::array_form::defined_requests(module, MAP_PREFIX)?;
    Ok(found.into_iter().map(|(name, spec)| MapRequest { name, spec, defined: true }).collect())
}

/// The function attribute a built map carries (its value: the variant):
/// it survives the inlining of the variants into the map, which a check
/// for calls would not.
pub const BUILT_ATTRIBUTE: &str = "batchify-map-of";

/// Whether `request`'s map exists and was built by an earlier run.
pub fn is_complete(module: Module, request: &MapRequest) -> bool {
    module
        .function(&request.name)
        .is_some_and(|f| !f.is_declaration() && f.string_attribute(FUNCTION_INDEX, BUILT_ATTRIBUTE).is_some())
}

/// The function type of `request`'s map of the scalar function `scalar`.
pub fn map_type<'ctx>(module: Module<'ctx>, scalar: Value<'ctx>, request: &MapRequest) -> Result<Type<'ctx>> {
    let spec = &request.spec;
    let ctx = module.context();
    let ptr = Type::ptr(ctx);
    let sty = scalar.function_type();
    let mut params = vec![Type::int(ctx, 64)];
    for (j, (t, kind)) in sty.param_types().iter().zip(&spec.params).enumerate() {
        params.push(match kind {
            ParamKind::Vector => ptr,
            ParamKind::Uniform | ParamKind::Linear { .. } | ParamKind::LinearVarStep { .. } => *t,
            ParamKind::LinearRef { .. } => {
                return Err(map_error(&request.name, format!("parameter {j}: reference kinds have no map form")))
            }
        });
    }
    if !sty.return_type().is_void() {
        params.push(ptr);
    }
    Ok(Type::function(Type::void(ctx), &params))
}

fn map_error(name: &str, reason: String) -> Error {
    Error::Map { map: name.to_string(), reason }
}

/// Builds the map's body, calling the two clones of
/// [`MapRequest::clones`], which must be built, and in the forms
/// [`MapForm::Refill`] and [`MapForm::Adaptive`] the refill worker's clone
/// `refill` (without one the map is grouped). Creates the function, or
/// replaces a defined request's body; fails (changing nothing) when the
/// request's signature does not fit or a created map's name is taken.
/// With `bucket`, the name of a key function, the map is bucketed instead
/// (`bucket`; `refill` and `form` are not used).
pub fn complete<'ctx>(
    module: Module<'ctx>,
    request: &MapRequest,
    refill: Option<&RefillClone<'ctx>>,
    form: MapForm,
    instrument: bool,
    bucket: Option<&str>,
) -> Result<Value<'ctx>> {
    let spec = &request.spec;
    let err = |reason: String| map_error(&request.name, reason);
    let scalar = module.function(&spec.scalar_name).ok_or_else(|| err("no scalar function".into()))?;
    let key = bucket.map(|name| bucket::key_function(module, scalar, spec, name)).transpose().map_err(err)?;
    let key_map = match (bucket, key) {
        (Some(name), Some(key)) => Some((key, bucket::key_request(request, name)?)),
        _ => None,
    };
    let (full_spec, tail_spec) = request.clones()?;
    let built = |s: &CloneSpec| {
        module
            .function(&s.vector_name)
            .filter(|v| !v.is_declaration())
            .ok_or_else(|| err(format!("the variant `{}` was not built", s.vector_name)))
    };
    let (full, tail) = (built(&full_spec)?, built(&tail_spec)?);
    let key_clones = match &key_map {
        Some((_, r)) => {
            let (f, t) = r.clones()?;
            Some(((built(&f)?, f), (built(&t)?, t)))
        }
        None => None,
    };
    let want = map_type(module, scalar, request)?;
    let f = match module.function(&request.name) {
        // A defined request, or a declaration (a caller in this module).
        Some(f) if request.defined || f.is_declaration() => {
            if f.function_type() != want {
                return Err(err(format!(
                    "its type is `{}`, the map of `{}` is `{}`",
                    f.function_type().print(),
                    spec.vector_name,
                    want.print()
                )));
            }
            if f.is_declaration() {
                // A declaration's `!dbg` subprogram is not one a definition may have.
                f.clear_global_metadata();
            } else {
                f.delete_body();
            }
            f
        }
        Some(_) => return Err(err(format!("the module defines a function named `{}` already", request.name))),
        None => module.add_function(&request.name, want),
    };
    // Before the body changes: which arrays the map's callers do not give.
    let unread = unread_params(scalar, Some(f), 1);
    copy_target_attributes(full, f);
    f.set_string_attribute(FUNCTION_INDEX, BUILT_ATTRIBUTE, &full_spec.vector_name);
    name_params(f, scalar);
    let grouped = |g: Value<'ctx>, first: usize| -> Result<()> {
        let body =
            MapBody::new(module, (g, first), scalar, spec, (full, &full_spec), (tail, &tail_spec), unread.clone())?;
        let ps = g.params();
        let (lo, hi) =
            if first == 1 { (constant::null(Type::int(module.context(), 64)), ps[0]) } else { (ps[0], ps[1]) };
        body.emit_range(lo, hi);
        hoist_allocas(g);
        Ok(())
    };
    if let (Some((key, key_request)), Some(((kf, kf_spec), (kt, kt_spec)))) = (key_map, key_clones) {
        // The keys of a range of elements: a grouped map of the key's clones.
        let ctx = module.context();
        let mut params = vec![Type::int(ctx, 64)];
        params.extend(map_type(module, key, &key_request)?.param_types());
        let keys = module.add_function(&key_request.name, Type::function(Type::void(ctx), &params));
        keys.set_internal();
        copy_target_attributes(kf, keys);
        let key_body = MapBody::new(
            module,
            (keys, 2),
            key,
            &key_request.spec,
            (kf, &kf_spec),
            (kt, &kt_spec),
            unread_params(key, None, 1),
        )?;
        let kps = keys.params();
        key_body.emit_range(kps[0], kps[1]);
        hoist_allocas(keys);
        let body = MapBody::new(module, (f, 1), scalar, spec, (full, &full_spec), (tail, &tail_spec), unread)?;
        bucket::emit(&body, key, keys);
        hoist_allocas(f);
        return Ok(f);
    }
    match (refill, form) {
        (None, _) | (_, MapForm::Grouped) => grouped(f, 1)?,
        (Some(worker), MapForm::Refill) => emit_refill(module, f, worker),
        (Some(worker), MapForm::Adaptive) => {
            let ctx = module.context();
            let mut params = vec![Type::int(ctx, 64)];
            params.extend(want.param_types());
            let groups = module
                .add_function(&format!("{GROUPS_PREFIX}{}", request.name), Type::function(Type::void(ctx), &params));
            groups.set_internal();
            copy_target_attributes(full, groups);
            grouped(groups, 2)?;
            emit_adaptive(module, f, groups, worker, spec.width, instrument.then_some(request.name.as_str()));
        }
    }
    Ok(f)
}

/// The refilling map's body: the worker on the whole array, in stretches
/// of at most [`WORKER_MAX_COUNT`] elements.
///
/// ```text
/// head: pos = phi; br (pos != n) ? run : done
/// run:  len = min(n - pos, MAX); worker(pos, len); br head
/// ```
fn emit_refill<'ctx>(module: Module<'ctx>, f: Value<'ctx>, worker: &RefillClone<'ctx>) {
    use LLVMOpcode::*;
    let i64t = Type::int(module.context(), 64);
    let b = Builder::new(module.context());
    let ps = f.params();
    let n = ps[0];
    let (entry, head, run, done) =
        (f.append_block("entry"), f.append_block("head"), f.append_block("run"), f.append_block("done"));
    b.position_at_end(entry);
    b.br(head);
    b.position_at_end(head);
    let pos = b.phi(i64t);
    pos.add_incoming(constant::null(i64t), entry);
    let more = b.icmp(LLVMIntPredicate::LLVMIntNE, pos, n);
    b.cond_br(more, run, done);
    b.position_at_end(run);
    let left = b.binop(LLVMSub, n, pos);
    let max = constant::int(i64t, WORKER_MAX_COUNT);
    let short = b.icmp(LLVMIntPredicate::LLVMIntULT, left, max);
    let len = b.select(short, left, max);
    let end = b.binop(LLVMAdd, pos, len);
    call_worker(&b, worker, pos, end, &ps[1..]);
    pos.add_incoming(end, run);
    b.br(head);
    b.position_at_end(done);
    b.ret(None);
}

/// The most elements one call of a refill worker takes: `count + N` must
/// not overflow its lanes' 32-bit counters.
pub const WORKER_MAX_COUNT: u64 = 1 << 30;

/// One call of the refill worker's clone on the elements `lo..hi` (at
/// most [`WORKER_MAX_COUNT`]), with the map's parameters after `n` (`rest`).
fn call_worker<'ctx>(
    b: &Builder<'ctx>,
    worker: &RefillClone<'ctx>,
    lo: Value<'ctx>,
    hi: Value<'ctx>,
    rest: &[Value<'ctx>],
) {
    let i32t = Type::int(b.context(), 32);
    let len = b.binop(LLVMOpcode::LLVMSub, hi, lo);
    let mut args = vec![lo, b.cast(LLVMOpcode::LLVMTrunc, len, i32t)];
    args.extend_from_slice(rest);
    // The lane: linear, lane 0's value.
    args.push(constant::null(i32t));
    match &worker.abi.lowering {
        Some(l) => {
            crate::shell::gcc_adapter::call_lowered(b, worker.symbol, &args, l);
        }
        None => {
            let call = b.call(worker.abi.natural, worker.symbol, &args);
            call.set_call_conv(worker.symbol.call_conv());
        }
    }
}

/// The adaptive map's body: while more than two probes of elements are
/// left, time one probe grouped (`groups`, the grouped map of a range) and
/// one refilling, then run the faster on the next `run` elements (`R*P`,
/// doubled while the same form wins, up to [`RUN_BACKOFF`] times); the last
/// elements grouped.
///
/// ```text
/// head:  pos, run, last = phi; br (n - pos > 2P) ? probe : rest
/// probe: t0; groups(pos, pos+P); t1; refill(pos+P, pos+2P); t2; wins = t2-t1 < t1-t0
///        run = (wins == last) ? min(2 run, B*R*P) : R*P; end = pos + 2P + min(n - pos - 2P, run)
///        br wins ? refill(..end) : groups(..end)
/// rest:  groups(pos, n)
/// ```
fn emit_adaptive<'ctx>(
    module: Module<'ctx>,
    f: Value<'ctx>,
    groups: Value<'ctx>,
    worker: &RefillClone<'ctx>,
    width: u32,
    instrument: Option<&str>,
) {
    use LLVMIntPredicate::*;
    use LLVMOpcode::*;
    let ctx = module.context();
    let i64t = Type::int(ctx, 64);
    let b = Builder::new(ctx);
    let ps = f.params();
    let (n, rest_params) = (ps[0], &ps[1..]);
    let probe_len = constant::int(i64t, PROBE_GROUPS * u64::from(width));
    let run_len = constant::int(i64t, RUN_PROBES * PROBE_GROUPS * u64::from(width));
    let max_run = constant::int(i64t, RUN_BACKOFF * RUN_PROBES * PROBE_GROUPS * u64::from(width));
    let clock = module.intrinsic("llvm.readcyclecounter", &[]).expect("llvm.readcyclecounter exists");
    let now = |b: &Builder<'ctx>| b.call(clock.function_type(), clock, &[]);
    let call_groups = |b: &Builder<'ctx>, lo: Value<'ctx>, hi: Value<'ctx>| {
        let mut args = vec![lo, hi];
        args.extend_from_slice(rest_params);
        b.call(groups.function_type(), groups, &args);
    };
    let entry = f.append_block("entry");
    let head = f.append_block("head");
    let probe = f.append_block("probe");
    let run_refill = f.append_block("run.refill");
    let run_groups = f.append_block("run.groups");
    let next = f.append_block("next");
    let rest = f.append_block("rest");
    b.position_at_end(entry);
    // `--instrument-lanes`: probes and refill wins (`emit::instrument`).
    let counters = instrument.map(|name| {
        let c = crate::emit::instrument::add_counters(module, crate::emit::instrument::MAP_COUNTERS_PREFIX, 2, name);
        crate::emit::instrument::register_report(module, &b, f);
        c
    });
    let entry = b.current_block();
    b.br(head);

    b.position_at_end(head);
    let pos = b.phi(i64t);
    pos.add_incoming(constant::null(i64t), entry);
    // The run's length, doubled while the same form keeps winning.
    let run = b.phi(i64t);
    run.add_incoming(run_len, entry);
    let last = b.phi(Type::int(ctx, 1));
    last.add_incoming(constant::null(Type::int(ctx, 1)), entry);
    let left = b.binop(LLVMSub, n, pos);
    let two = b.binop(LLVMAdd, probe_len, probe_len);
    let room = b.icmp(LLVMIntUGT, left, two);
    b.cond_br(room, probe, rest);

    b.position_at_end(probe);
    let t0 = now(&b);
    let p1 = b.binop(LLVMAdd, pos, probe_len);
    call_groups(&b, pos, p1);
    let t1 = now(&b);
    let p2 = b.binop(LLVMAdd, p1, probe_len);
    call_worker(&b, worker, p1, p2, rest_params);
    let t2 = now(&b);
    let grouped_time = b.binop(LLVMSub, t1, t0);
    let refill_time = b.binop(LLVMSub, t2, t1);
    let refill_wins = b.icmp(LLVMIntULT, refill_time, grouped_time);
    if let Some(c) = counters {
        use crate::emit::instrument::bump;
        bump(&b, c, constant::null(i64t), constant::int(i64t, 1));
        bump(&b, c, constant::int(i64t, 1), b.cast(LLVMZExt, refill_wins, i64t));
    }
    let same = b.icmp(LLVMIntEQ, refill_wins, last);
    let doubled = b.binop(LLVMAdd, run, run);
    let capped = b.select(b.icmp(LLVMIntULT, doubled, max_run), doubled, max_run);
    let new_run = b.select(same, capped, run_len);
    let after = b.binop(LLVMSub, n, p2);
    let short = b.icmp(LLVMIntULT, after, new_run);
    let len = b.select(short, after, new_run);
    let end = b.binop(LLVMAdd, p2, len);
    b.cond_br(refill_wins, run_refill, run_groups);

    b.position_at_end(run_refill);
    call_worker(&b, worker, p2, end, rest_params);
    b.br(next);
    b.position_at_end(run_groups);
    call_groups(&b, p2, end);
    b.br(next);
    b.position_at_end(next);
    pos.add_incoming(end, next);
    run.add_incoming(new_run, next);
    last.add_incoming(refill_wins, next);
    b.br(head);

    b.position_at_end(rest);
    call_groups(&b, pos, n);
    b.ret(None);
}

/// Names the map's parameters after the scalar function's (`n`, then each
/// parameter's name or `a<j>`, then `out`), for readable IR.
fn name_params(f: Value, scalar: Value) {
    let ps = f.params();
    ps[0].set_name("n");
    for (j, (p, sp)) in ps[1..].iter().zip(scalar.params()).enumerate() {
        let name = sp.name();
        p.set_name(&if name.is_empty() { format!("a{j}") } else { name });
    }
    if ps.len() == scalar.params().len() + 2 {
        ps[ps.len() - 1].set_name("out");
    }
}

/// The pieces of one map's body.
pub(crate) struct MapBody<'ctx> {
    /// The module of the map and its variants.
    pub(crate) module: Module<'ctx>,
    /// The function whose body this is: the map (`n`, parameters...) or an
    /// adaptive map's grouped range (`lo`, `hi`, parameters...).
    pub(crate) f: Value<'ctx>,
    /// The index of `f`'s first parameter after the range.
    pub(crate) first: usize,
    /// The builder the body is emitted with.
    pub(crate) b: Builder<'ctx>,
    /// The scalar function's parameter types.
    pub(crate) param_types: Vec<Type<'ctx>>,
    /// The variant's parameter kinds.
    pub(crate) kinds: Vec<ParamKind>,
    /// The variant's lanes.
    pub(crate) width: u32,
    /// Whether the scalar function returns a value (the map has `out`).
    pub(crate) returns: bool,
    /// The unmasked variant, for full groups.
    pub(crate) full: Variant<'ctx>,
    /// The masked twin, for the tail.
    pub(crate) tail: Variant<'ctx>,
    /// The array parameters the map must not read (`array_form::unread_params`).
    pub(crate) unread: Vec<bool>,
}

/// The elements one call of a variant runs on.
#[derive(Clone, Copy)]
pub(crate) enum Elements<'ctx> {
    /// `N` consecutive elements from index `i` (an `i64`).
    From(Value<'ctx>),
    /// The elements `window + positions[k]` (`positions` an `N x i32`):
    /// a bucketed map's sorted group.
    Sorted {
        /// The window's first element (an `i64`).
        window: Value<'ctx>,
        /// The lanes' positions in the window.
        positions: Value<'ctx>,
    },
}

/// One variant the map calls.
pub(crate) struct Variant<'ctx> {
    symbol: Value<'ctx>,
    abi: abi::CloneAbi<'ctx>,
    mask: Option<crate::spec::MaskAbi>,
}

impl<'ctx> Variant<'ctx> {
    fn new(scalar: Value<'ctx>, (symbol, spec): (Value<'ctx>, &CloneSpec)) -> Result<Variant<'ctx>> {
        Ok(Variant { symbol, abi: abi::CloneAbi::of(scalar, spec)?, mask: spec.mask })
    }
}

impl<'ctx> MapBody<'ctx> {
    /// The body of `f`, whose parameters after the range start at `first`.
    fn new(
        module: Module<'ctx>,
        (f, first): (Value<'ctx>, usize),
        scalar: Value<'ctx>,
        spec: &CloneSpec,
        full: (Value<'ctx>, &CloneSpec),
        tail: (Value<'ctx>, &CloneSpec),
        unread: Vec<bool>,
    ) -> Result<MapBody<'ctx>> {
        let sty = scalar.function_type();
        Ok(MapBody {
            module,
            f,
            first,
            b: Builder::new(module.context()),
            param_types: sty.param_types(),
            kinds: spec.params.clone(),
            width: spec.width,
            returns: !sty.return_type().is_void(),
            full: Variant::new(scalar, full)?,
            tail: Variant::new(scalar, tail)?,
            unread,
        })
    }

    /// The elements `lo..hi` (`lo` a constant 0 for a whole map):
    ///
    /// ```text
    /// entry: rem = (hi - lo) % N; full = hi - rem; br (lo != full) ? group : tail_test
    /// group: i = phi; call the unmasked variant on elements i..i+N; i += N; br (i < full) ? group : tail_test
    /// tail_test: br (rem != 0) ? tail : done
    /// tail: the masked variant on elements full..hi-1 (masked loads and store)
    /// ```
    fn emit_range(&self, lo: Value<'ctx>, hi: Value<'ctx>) {
        let ctx = self.module.context();
        let i64t = Type::int(ctx, 64);
        let entry = self.f.append_block("entry");
        let group = self.f.append_block("group");
        let tail_test = self.f.append_block("tail.test");
        let tail = self.f.append_block("tail");
        let done = self.f.append_block("done");
        let b = &self.b;
        b.position_at_end(entry);
        let width = constant::int(i64t, u64::from(self.width));
        let count = if lo.is_null_constant() { hi } else { b.binop(LLVMOpcode::LLVMSub, hi, lo) };
        let rem = b.binop(LLVMOpcode::LLVMURem, count, width);
        let full_end = b.binop(LLVMOpcode::LLVMSub, hi, rem);
        let any_full = b.icmp(LLVMIntPredicate::LLVMIntNE, full_end, lo);
        b.cond_br(any_full, group, tail_test);

        b.position_at_end(group);
        let i = b.phi(i64t);
        i.add_incoming(lo, entry);
        self.call_group(&self.full, i, None);
        let next = b.binop(LLVMOpcode::LLVMAdd, i, width);
        i.add_incoming(next, group);
        let more = b.icmp(LLVMIntPredicate::LLVMIntULT, next, full_end);
        b.cond_br(more, group, tail_test);

        b.position_at_end(tail_test);
        let any_left = b.icmp(LLVMIntPredicate::LLVMIntNE, rem, constant::null(i64t));
        b.cond_br(any_left, tail, done);

        b.position_at_end(tail);
        let lanes: Vec<Value> = (0..self.width).map(|k| constant::int(i64t, u64::from(k))).collect();
        let lane_index = constant::vector(&lanes);
        let rem_splat = self.splat(rem);
        let on = b.icmp(LLVMIntPredicate::LLVMIntULT, lane_index, rem_splat);
        self.call_group(&self.tail, full_end, Some(on));
        b.br(done);

        b.position_at_end(done);
        b.ret(None);
    }

    /// `x` in every lane.
    pub(crate) fn splat(&self, x: Value<'ctx>) -> Value<'ctx> {
        let ctx = self.module.context();
        let vty = x.ty().vector_of(self.width);
        let one = self.b.insert_element(constant::poison(vty), x, 0);
        let zeros = constant::null(Type::int(ctx, 32).vector_of(self.width));
        self.b.shuffle(one, constant::poison(vty), zeros)
    }

    /// One call of `variant` on the elements from index `i`, with the
    /// lanes `on` (all when `None`).
    fn call_group(&self, variant: &Variant<'ctx>, i: Value<'ctx>, on: Option<Value<'ctx>>) {
        self.call_elements(variant, Elements::From(i), on);
    }

    /// One call of `variant` on `elements` in the lanes `on` (all when
    /// `None`): varying parameters read from their arrays, linear ones at
    /// their elements, uniform ones as given; the result written to `out`.
    pub(crate) fn call_elements(&self, variant: &Variant<'ctx>, elements: Elements<'ctx>, on: Option<Value<'ctx>>) {
        let b = &self.b;
        let ps = &self.f.params()[self.first..];
        let mut args = Vec::new();
        for (j, (&t, kind)) in self.param_types.iter().zip(&self.kinds).enumerate() {
            let p = ps[j];
            args.push(match (*kind, elements) {
                (ParamKind::Vector, _) if self.unread[j] => zero_lanes(t, self.width),
                (ParamKind::Vector, Elements::From(i)) => {
                    let at = self.element_address(t, p, i);
                    match on {
                        None => load_lanes(self.module, b, t, self.width, at),
                        Some(on) => self.masked_load(t, at, on),
                    }
                }
                (ParamKind::Vector, Elements::Sorted { window, positions }) => {
                    bucket::gather(self, t, p, window, positions, on)
                }
                (ParamKind::Linear { .. } | ParamKind::LinearVarStep { .. }, Elements::From(i)) => {
                    linear_at(b, *kind, p, ps, i)
                }
                (ParamKind::Linear { .. } | ParamKind::LinearVarStep { .. }, Elements::Sorted { .. }) => {
                    unreachable!("bucket::key_function refuses linear parameters")
                }
                _ => p,
            });
        }
        let result = self.call_variant(variant, args, on);
        if let (true, Some(r)) = (self.returns, result) {
            let out = ps[ps.len() - 1];
            match elements {
                Elements::From(i) => store_lanes(self.module, b, r, self.element_address(r.ty().element(), out, i), on),
                Elements::Sorted { window, positions } => bucket::scatter(self, r, out, window, positions, on),
            }
        }
    }

    /// Calls `variant` with the vectors of its parameters (`args`, in the
    /// natural ABI) and the lanes `on` (all when `None`) as its mask, if it
    /// has one; returns its result, if it has one.
    pub(crate) fn call_variant(
        &self,
        variant: &Variant<'ctx>,
        mut args: Vec<Value<'ctx>>,
        on: Option<Value<'ctx>>,
    ) -> Option<Value<'ctx>> {
        let b = &self.b;
        let natural = variant.abi.natural;
        if let Some(abi) = variant.mask {
            let all = || constant::all_ones(Type::int(self.module.context(), 1).vector_of(self.width));
            args.push(abi::encode_mask(b, abi, on.unwrap_or_else(all), natural.param_types()[args.len()]));
        }
        match &variant.abi.lowering {
            Some(l) => crate::shell::gcc_adapter::call_lowered(b, variant.symbol, &args, l).1,
            None => {
                let r = b.call(natural, variant.symbol, &args);
                r.set_call_conv(variant.symbol.call_conv());
                (!natural.return_type().is_void()).then_some(r)
            }
        }
    }

    /// `&p[i]` for elements of type `t` as kept in memory.
    pub(crate) fn element_address(&self, t: Type<'ctx>, p: Value<'ctx>, i: Value<'ctx>) -> Value<'ctx> {
        let m = memory_element(t);
        self.b.gep(m, p, &[i], Default::default())
    }

    /// `N` elements of type `t` from `p`, only lanes `on` read (the others
    /// zero).
    pub(crate) fn masked_load(&self, t: Type<'ctx>, p: Value<'ctx>, on: Value<'ctx>) -> Value<'ctx> {
        let m = memory_element(t);
        let vty = m.vector_of(self.width);
        let load = self.module.intrinsic("llvm.masked.load", &[vty, p.ty()]).expect("llvm.masked.load exists");
        let v = self.b.call(load.function_type(), load, &[p, on, constant::null(vty)]);
        v.add_call_arg_attribute(0, "align", u64::from(self.module.abi_alignment_of(m)));
        if m != t {
            self.b.cast(LLVMOpcode::LLVMTrunc, v, t.vector_of(self.width))
        } else {
            v
        }
    }
}

/// The value the linear parameter `base` (of `kind`, `l<step>` or
/// `ls<param>`, the step read from `params`, the map's parameters after
/// `n`) takes at element `i` (an `i64`): `base + i * step`, bytes for a
/// pointer, wrapping as the variant's own lanes do. Maps and refill
/// workers compute their elements' values with it.
pub(crate) fn linear_at<'ctx>(
    b: &Builder<'ctx>,
    kind: ParamKind,
    base: Value<'ctx>,
    params: &[Value<'ctx>],
    i: Value<'ctx>,
) -> Value<'ctx> {
    let i64t = Type::int(b.context(), 64);
    let step = match kind {
        ParamKind::Linear { step } => constant::int(i64t, step as u64),
        ParamKind::LinearVarStep { param } if params[param].ty().int_width() == 64 => params[param],
        ParamKind::LinearVarStep { param } => b.cast(LLVMOpcode::LLVMSExt, params[param], i64t),
        _ => unreachable!("linear_at of a parameter that is not linear"),
    };
    let offset = b.binop(LLVMOpcode::LLVMMul, i, step);
    if base.ty().is_pointer() {
        return b.gep(Type::int(b.context(), 8), base, &[offset], Default::default());
    }
    let w = base.ty().int_width();
    let offset = if w < 64 { b.cast(LLVMOpcode::LLVMTrunc, offset, base.ty()) } else { offset };
    b.binop(LLVMOpcode::LLVMAdd, base, offset)
}

/// Moves the `alloca`s of every block but the entry to the top of the
/// entry block, so the stack does not grow per trip: those that calls of
/// GCC-lowered variants place in a map's loop, and those of the function
/// body a refill worker copies into its element loop.
pub(crate) fn hoist_allocas(f: Value) {
    let blocks = f.blocks();
    let Some(first) = blocks[0].instructions().first().copied() else { return };
    let b = Builder::new(f.function_type().context());
    for block in &blocks[1..] {
        for inst in block.instructions() {
            if inst.opcode() == LLVMOpcode::LLVMAlloca {
                inst.remove_from_parent();
                b.position_before(first);
                b.insert(inst);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vfabi::Isa;

    #[test]
    fn a_map_needs_both_twins() {
        let v = VariantName::parse("_ZGVdN8uvl4_f").unwrap();
        let r = MapRequest::named(&CloneSpec::from_variant(&v).unwrap());
        assert_eq!(r.name, "f_map");
        let (full, tail) = r.clones().unwrap();
        assert_eq!(full.vector_name, "_ZGVdN8uvl4_f");
        assert_eq!(tail.vector_name, "_ZGVdM8uvl4_f");
        assert!(tail.mask.is_some() && full.mask.is_none());
        assert_eq!(tail.params, full.params);
    }

    #[test]
    fn a_masked_request_gets_its_unmasked_twin() {
        let spec = CloneSpec::all_varying("g", 2, 16, Isa::Avx512, true);
        let (full, tail) = MapRequest::named(&spec).clones().unwrap();
        assert_eq!(full.vector_name, "_ZGVeN16vv_g");
        assert_eq!(tail.vector_name, "_ZGVeM16vv_g");
    }
}
