//! Bucketed maps (`--bucket KEY`): a map whose groups of `N` lanes take
//! elements of similar cost together, by a key the user gives.
//!
//! `KEY` is a function of the module with the scalar function's
//! parameter types and an integer result, that writes no memory: a cheap
//! estimate of the element's cost (a trip count, a size class). The map
//! runs over windows of [`WINDOW`] elements; in each it
//!
//! 1. computes `KEY` of every element with `KEY`'s own clones, a grouped
//!    map of the key into a buffer ([`key_request`]: the variant's twins
//!    for `KEY`, built with the map's), and keeps each element's bucket,
//!    `min(key, 255)` with the key read as unsigned;
//! 2. sorts the window's indices by bucket (a counting sort, stable: equal
//!    keys keep their order);
//! 3. runs the sorted indices through the clone in groups of `N` (inputs
//!    gathered, results scattered to their own elements), the last
//!    `len % N` through the masked twin.
//!
//! Every element is computed exactly as the scalar function computes it,
//! and its result lands in its own place: only the order in which elements
//! are computed changes. That is why the scalar function must not write
//! memory either ([`key_function`] refuses one that may): its side effects
//! would happen in another order. `out` may be an input array, as in every
//! map (a group reads its elements' inputs before it writes their results,
//! and no other group touches them). The window keeps the sort's memory on
//! the stack (no allocation, nothing that can fail) and its inputs in the
//! cache; on shuffled input every window is a sample of the whole.
//!
//! Linear parameters have no bucketed form: a group of sorted elements
//! gives such a parameter values that are no longer a base and a step.

use super::{Elements, MapBody};
use crate::array_form::memory_element;
use crate::llvm::{constant, Builder, LLVMIntPredicate, LLVMOpcode, Module, Type, Value};
use crate::spec::CloneSpec;
use crate::vfabi::ParamKind;

/// Elements sorted together: a window's indices (`i32`), keys (at most
/// 8 bytes each), buckets (`i8`) and bucket counts take at most 53 KiB of
/// stack (37 KiB for 32-bit keys).
pub const WINDOW: u64 = 4096;

/// Buckets of the counting sort: keys from 0 to 254 have their own; 255
/// and above (and negative keys, read as unsigned) share the last.
pub const BUCKETS: u64 = 256;

/// Whether a `memory(...)` attribute's value (two bits per location: bit 0
/// reads, bit 1 writes) lets the function write some memory.
fn may_write(effects: u64) -> bool {
    const WRITES: u64 = 0xAAAA_AAAA_AAAA_AAAA;
    effects & WRITES != 0
}

/// The request whose grouped map computes the keys of `map`'s elements:
/// the map's variant for `key` (its twins are the clones the bucketed map
/// needs besides the map's own), named `__batchify_keys.<map>`.
pub fn key_request(map: &super::MapRequest, key: &str) -> crate::error::Result<super::MapRequest> {
    use crate::vfabi::{Param, VariantName};
    let spec = &map.spec;
    let params: Vec<Param> =
        spec.params.iter().zip(&spec.aligns).map(|(&kind, &align)| Param { kind, align }).collect();
    let name = VariantName::mangle(spec.isa, spec.mask.is_some(), spec.width, &params, key);
    let v = VariantName::parse(&name).map_err(|e| crate::error::Error::BadVariant(e.to_string()))?;
    let mut key_spec = CloneSpec::from_variant(&v)?;
    key_spec.params.clone_from(&spec.params);
    Ok(super::MapRequest { name: format!("{KEYS_PREFIX}{}", map.name), spec: key_spec, defined: false })
}

/// The name prefix of a bucketed map's key map (internal).
pub const KEYS_PREFIX: &str = "__batchify_keys.";

/// The key function `name` of a bucketed map of `scalar` (the variant
/// `spec`), checked: defined or declared in `module`, the same parameter
/// types as `scalar`, an integer result, and no memory written by it or by
/// `scalar`; no linear parameter in `spec`.
pub fn key_function<'ctx>(
    module: Module<'ctx>,
    scalar: Value<'ctx>,
    spec: &CloneSpec,
    name: &str,
) -> Result<Value<'ctx>, String> {
    let key = module.function(name).ok_or_else(|| format!("--bucket: the module has no function `{name}`"))?;
    let (kt, st) = (key.function_type(), scalar.function_type());
    if kt.param_types() != st.param_types() {
        return Err(format!(
            "--bucket: `{name}` is `{}`; a key of `{}` takes its parameters, `{}`",
            kt.print(),
            spec.scalar_name,
            st.print()
        ));
    }
    if kt.return_type().int_width() == 0 {
        return Err(format!("--bucket: `{name}` returns `{}`, not an integer", kt.return_type().print()));
    }
    for (f, what) in [(key, "the key"), (scalar, "the function")] {
        if f.fn_attribute_value("memory").is_none_or(may_write) {
            return Err(format!(
                "--bucket: {what} `{}` may write memory (no `memory(none)` or `memory(read)` attribute); a \
                 bucketed map computes the elements in another order, so neither may have side effects",
                f.name()
            ));
        }
    }
    if let Some(j) =
        spec.params.iter().position(|k| matches!(k, ParamKind::Linear { .. } | ParamKind::LinearVarStep { .. }))
    {
        return Err(format!(
            "--bucket: parameter {j} of `{}` is linear, and a group of sorted elements gives it no base and step",
            spec.vector_name
        ));
    }
    Ok(key)
}

/// Emits the bucketed map's body into `body.f` (`n`, parameters..., `out`):
///
/// ```text
/// head:   w = phi; br (w < n) ? window : done
/// window: len = min(n - w, WINDOW); counts = 0
///         keys(w, w + len, parameters..., &key_of[-w])   (key_of[i] = KEY(element w+i))
/// key:    i = 0..len: b = min(key_of[i], 255); buckets[i] = b; counts[b] += 1
/// start:  k = 0..256: counts[k] = counts[0] + ... + counts[k-1]
/// place:  i = 0..len: b = buckets[i]; order[counts[b]] = i; counts[b] += 1
/// group:  g = 0, N, ... < len - len % N: the unmasked variant on w + order[g..g+N]
/// tail:   len % N != 0: the masked variant on w + order[len - len % N..len]
///         w += len; br head
/// ```
pub(crate) fn emit<'ctx>(body: &MapBody<'ctx>, key: Value<'ctx>, keys: Value<'ctx>) {
    use LLVMIntPredicate::*;
    use LLVMOpcode::*;
    let ctx = body.module.context();
    let (i8t, i32t, i64t) = (Type::int(ctx, 8), Type::int(ctx, 32), Type::int(ctx, 64));
    let b = &body.b;
    let f = body.f;
    let n = f.params()[0];
    let c64 = |v: u64| constant::int(i64t, v);
    let block = |name: &str| f.append_block(name);
    let (entry, head, window, key_loop, start, place) =
        (block("entry"), block("head"), block("window"), block("key"), block("start"), block("place"));
    let (group_test, group, tail_test, tail, next, done) =
        (block("group.test"), block("group"), block("tail.test"), block("tail"), block("next"), block("done"));

    b.position_at_end(entry);
    let order = b.alloca(i32t.array_of(WINDOW as u32));
    order.set_name("order");
    let buckets = b.alloca(i8t.array_of(WINDOW as u32));
    buckets.set_name("buckets");
    let counts = b.alloca(i32t.array_of(BUCKETS as u32));
    counts.set_name("counts");
    let key_type = key.function_type().return_type();
    let key_memory = memory_element(key_type);
    let key_of = b.alloca(key_memory.array_of(WINDOW as u32));
    key_of.set_name("key.of");
    b.br(head);

    b.position_at_end(head);
    let w = b.phi(i64t);
    w.add_incoming(c64(0), entry);
    let more = b.icmp(LLVMIntULT, w, n);
    b.cond_br(more, window, done);

    b.position_at_end(window);
    let left = b.binop(LLVMSub, n, w);
    let len = b.select(b.icmp(LLVMIntULT, left, c64(WINDOW)), left, c64(WINDOW));
    b.store(constant::null(i32t.array_of(BUCKETS as u32)), counts, 4);
    // The key map writes element `w + i`'s key at `key_of[i]`.
    let key_base = b.gep(key_memory, key_of, &[b.binop(LLVMSub, c64(0), w)], Default::default());
    let mut key_args = vec![w, b.binop(LLVMAdd, w, len)];
    key_args.extend_from_slice(&f.params()[1..=body.param_types.len()]);
    key_args.push(key_base);
    b.call(keys.function_type(), keys, &key_args);
    b.br(key_loop);

    // 1. Each element's bucket, and the buckets' sizes.
    b.position_at_end(key_loop);
    let i = b.phi(i64t);
    i.add_incoming(c64(0), window);
    let k = b.load(key_memory, b.gep(key_memory, key_of, &[i], Default::default()), 0);
    let k = if key_memory != key_type { b.cast(LLVMTrunc, k, key_type) } else { k };
    let bucket = bucket_of(b, k, i64t);
    b.store(b.cast(LLVMTrunc, bucket, i8t), b.gep(i8t, buckets, &[i], Default::default()), 1);
    let count_at = b.gep(i32t, counts, &[bucket], Default::default());
    b.store(b.binop(LLVMAdd, b.load(i32t, count_at, 4), constant::int(i32t, 1)), count_at, 4);
    let i1 = b.binop(LLVMAdd, i, c64(1));
    i.add_incoming(i1, key_loop);
    b.cond_br(b.icmp(LLVMIntULT, i1, len), key_loop, start);

    // 2. Where each bucket starts in the sorted order.
    b.position_at_end(start);
    let kk = b.phi(i64t);
    kk.add_incoming(c64(0), key_loop);
    let sum = b.phi(i32t);
    sum.add_incoming(constant::int(i32t, 0), key_loop);
    let at = b.gep(i32t, counts, &[kk], Default::default());
    let size = b.load(i32t, at, 4);
    b.store(sum, at, 4);
    let sum1 = b.binop(LLVMAdd, sum, size);
    sum.add_incoming(sum1, start);
    let kk1 = b.binop(LLVMAdd, kk, c64(1));
    kk.add_incoming(kk1, start);
    b.cond_br(b.icmp(LLVMIntULT, kk1, c64(BUCKETS)), start, place);

    // 3. The window's indices in bucket order (stable).
    b.position_at_end(place);
    let p = b.phi(i64t);
    p.add_incoming(c64(0), start);
    let bk = b.cast(LLVMZExt, b.load(i8t, b.gep(i8t, buckets, &[p], Default::default()), 1), i64t);
    let slot = b.gep(i32t, counts, &[bk], Default::default());
    let to = b.load(i32t, slot, 4);
    b.store(b.binop(LLVMAdd, to, constant::int(i32t, 1)), slot, 4);
    let to64 = b.cast(LLVMZExt, to, i64t);
    b.store(b.cast(LLVMTrunc, p, i32t), b.gep(i32t, order, &[to64], Default::default()), 4);
    let p1 = b.binop(LLVMAdd, p, c64(1));
    p.add_incoming(p1, place);
    let width = c64(u64::from(body.width));
    let rem = b.binop(LLVMURem, len, width);
    let full_end = b.binop(LLVMSub, len, rem);
    b.cond_br(b.icmp(LLVMIntULT, p1, len), place, group_test);

    // 4. Groups of sorted elements, then the tail.
    b.position_at_end(group_test);
    b.cond_br(b.icmp(LLVMIntNE, full_end, c64(0)), group, tail_test);
    b.position_at_end(group);
    let g = b.phi(i64t);
    g.add_incoming(c64(0), group_test);
    let idx = b.load(i32t.vector_of(body.width), b.gep(i32t, order, &[g], Default::default()), 4);
    body.call_elements(&body.full, Elements::Sorted { window: w, positions: idx }, None);
    let g1 = b.binop(LLVMAdd, g, width);
    g.add_incoming(g1, group);
    b.cond_br(b.icmp(LLVMIntULT, g1, full_end), group, tail_test);

    b.position_at_end(tail_test);
    b.cond_br(b.icmp(LLVMIntNE, rem, c64(0)), tail, next);
    b.position_at_end(tail);
    let lanes: Vec<Value> = (0..body.width).map(|k| c64(u64::from(k))).collect();
    let on = b.icmp(LLVMIntULT, constant::vector(&lanes), body.splat(rem));
    let order_tail = b.gep(i32t, order, &[full_end], Default::default());
    let idx = body.masked_load(i32t, order_tail, on);
    body.call_elements(&body.tail, Elements::Sorted { window: w, positions: idx }, Some(on));
    b.br(next);

    b.position_at_end(next);
    let w1 = b.binop(LLVMAdd, w, len);
    w.add_incoming(w1, next);
    b.br(head);

    b.position_at_end(done);
    b.ret(None);
}

/// The bucket of key `k` (an integer of any width) as an `i64`:
/// `min(k, 255)`, `k` read as unsigned.
fn bucket_of<'ctx>(b: &Builder<'ctx>, k: Value<'ctx>, i64t: Type<'ctx>) -> Value<'ctx> {
    let bits = k.ty().int_width();
    let k = if bits > 8 {
        let last = constant::int(k.ty(), BUCKETS - 1);
        b.select(b.icmp(LLVMIntPredicate::LLVMIntULT, k, last), k, last)
    } else {
        k
    };
    match bits.cmp(&64) {
        std::cmp::Ordering::Less => b.cast(LLVMOpcode::LLVMZExt, k, i64t),
        std::cmp::Ordering::Greater => b.cast(LLVMOpcode::LLVMTrunc, k, i64t),
        std::cmp::Ordering::Equal => k,
    }
}

/// `&p[window + positions[k]]` for elements of memory type `m`: `&p[window]`
/// indexed by the 32-bit positions (below [`WINDOW`], so their sign
/// extension is exact), which x86 gathers with 32-bit indices.
fn sorted_addresses<'ctx>(
    b: &Builder<'ctx>,
    m: Type<'ctx>,
    p: Value<'ctx>,
    window: Value<'ctx>,
    positions: Value<'ctx>,
) -> Value<'ctx> {
    let base = b.gep(m, p, &[window], Default::default());
    b.gep(m, base, &[positions], Default::default())
}

/// The lanes on (all when `None`) as an `N x i1`.
fn lanes_on<'ctx>(body: &MapBody<'ctx>, on: Option<Value<'ctx>>) -> Value<'ctx> {
    on.unwrap_or_else(|| constant::all_ones(Type::int(body.module.context(), 1).vector_of(body.width)))
}

/// A sorted group's elements of the array `p` of `t`s, gathered in the
/// lanes `on` (the others zero).
pub(super) fn gather<'ctx>(
    body: &MapBody<'ctx>,
    t: Type<'ctx>,
    p: Value<'ctx>,
    window: Value<'ctx>,
    positions: Value<'ctx>,
    on: Option<Value<'ctx>>,
) -> Value<'ctx> {
    let b = &body.b;
    let m = memory_element(t);
    let ptrs = sorted_addresses(b, m, p, window, positions);
    let vty = m.vector_of(body.width);
    let gather = body.module.intrinsic("llvm.masked.gather", &[vty, ptrs.ty()]).expect("gather exists");
    let v = b.call(gather.function_type(), gather, &[ptrs, lanes_on(body, on), constant::null(vty)]);
    v.add_call_arg_attribute(0, "align", u64::from(body.module.abi_alignment_of(m)));
    if m != t {
        b.cast(LLVMOpcode::LLVMTrunc, v, t.vector_of(body.width))
    } else {
        v
    }
}

/// The results `r` of a sorted group, scattered to their elements of `out`
/// in the lanes `on`.
pub(super) fn scatter<'ctx>(
    body: &MapBody<'ctx>,
    r: Value<'ctx>,
    out: Value<'ctx>,
    window: Value<'ctx>,
    positions: Value<'ctx>,
    on: Option<Value<'ctx>>,
) {
    let b = &body.b;
    let t = r.ty().element();
    let m = memory_element(t);
    let r = if m != t { b.cast(LLVMOpcode::LLVMZExt, r, m.vector_of(body.width)) } else { r };
    let ptrs = sorted_addresses(b, m, out, window, positions);
    let scatter = body.module.intrinsic("llvm.masked.scatter", &[r.ty(), ptrs.ty()]).expect("scatter exists");
    let s = b.call(scatter.function_type(), scatter, &[r, ptrs, lanes_on(body, on)]);
    s.add_call_arg_attribute(1, "align", u64::from(body.module.abi_alignment_of(m)));
}

#[cfg(test)]
mod tests {
    use super::may_write;

    #[test]
    fn memory_effects_that_write_are_told_from_reads() {
        assert!(!may_write(0)); // memory(none)
        assert!(!may_write(0x55)); // memory(read) over four locations
        assert!(may_write(0x2)); // memory(argmem: write)
        assert!(may_write(0x7)); // argmem: readwrite, inaccessiblemem: read
        assert!(may_write(u64::MAX));
    }
}
