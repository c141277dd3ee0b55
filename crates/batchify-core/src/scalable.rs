//! SVE clones (`_ZGVs<N|M>x...`, scalable length): values of type
//! `<vscale x K x T>` and, for masked variants, the predicate
//! `<vscale x K x i1>` last, where `K` lanes fill 128 bits of the widest
//! vector element ([`crate::spec::min_lanes`], LLVM's rule for the VFABI's
//! scalable length).
//!
//! The vectorizer's stages work on fixed widths, so an SVE clone is built
//! per vector length: for each `vscale` of [`VECTORIZED_VSCALES`] that the
//! scalar function's `vscale_range` allows, the driver builds an ordinary
//! fixed-width clone of `vscale x K` lanes ([`fixed_spec`]) with `+sve` and,
//! from 8 lanes on, `vscale_range(vscale, vscale)` ([`prepare_fixed_body`]),
//! so that LLVM lowers its fixed-length vectors to SVE registers of that
//! length;
//! [`adapt`] moves its body into a function of the clone's scalable type
//! (the fixed vectors are the scalable ones' only part at that length:
//! `llvm.vector.extract`/`insert` at 0, no data moved). The exported clone
//! ([`build_dispatcher`]) reads `vscale` and tail-calls the body for it;
//! every other vector length runs a per-lane loop over its `vscale x K`
//! lanes: the scalar function called once per active lane, in lane order
//! (exactly the semantics contract). Correct for every vector length.

use crate::abi;
use crate::error::{Error, FallbackKind, Result};
use crate::llvm::LLVMOpcode::*;
use crate::llvm::{
    attribute_enum_value, constant, create_enum_attribute, Builder, Module, Type, Value, FUNCTION_INDEX as FN,
};
use crate::shell;
use crate::spec::{CloneSpec, MaskAbi};
use crate::vfabi::Isa;

/// Why an SVE clone is a per-lane loop at every vector length when none of
/// [`VECTORIZED_VSCALES`] is in the scalar function's `vscale_range`.
pub const REASON: &str = "none of the vector lengths batchify vectorizes SVE clones for (128, 256 and 512 bits) is in \
                          the function's `vscale_range`, so the SVE clone runs its `vscale x K` lanes one by one";

/// The values of `vscale` (vector lengths of 128, 256 and 512 bits: every
/// SVE CPU shipped so far) that get a vectorized body; other lengths run
/// the per-lane loop.
pub const VECTORIZED_VSCALES: [u32; 3] = [1, 2, 4];

/// Checks that the SVE clone `spec` of `scalar` can be built and returns
/// its type (the clone's name is free).
pub fn check<'ctx>(module: Module<'ctx>, scalar: Value<'ctx>, spec: &CloneSpec) -> Result<Type<'ctx>> {
    let fty = abi::clone_type(scalar, spec)?;
    shell::check_clone_name(module, spec, fty, &[])?;
    Ok(fty)
}

/// The error for an SVE clone of a function whose `holder` calls the
/// cross-lane operation `op`: its group would be the `vscale x K` lanes,
/// and the per-lane loop of the vector lengths without a body has none.
pub fn cross_lane_error(spec: &CloneSpec, holder: &str, op: &str) -> Error {
    Error::CrossLane {
        function: spec.scalar_name.clone(),
        message: format!(
            "`{holder}` calls the cross-lane operation `{op}`; SVE clones of such functions are not built (the vector \
             lengths without a vectorized body run their lanes one by one); ask for an Advanced SIMD (`n`) variant"
        ),
    }
}

/// The `vscale` values of [`VECTORIZED_VSCALES`] within `scalar`'s
/// `vscale_range` (all of them when it has none).
pub fn specializations(scalar: Value) -> Vec<u32> {
    let (min, max) = match scalar.enum_attribute(FN, "vscale_range") {
        Some(a) => {
            let v = attribute_enum_value(a);
            let (min, max) = ((v >> 32) as u32, (v & 0xffff_ffff) as u32);
            (min, if max == 0 { u32::MAX } else { max })
        }
        None => (1, u32::MAX),
    };
    VECTORIZED_VSCALES.into_iter().filter(|v| (min..=max).contains(v)).collect()
}

/// The fixed-width clone that serves SVE clone `spec` at `vscale`:
/// `vscale x K` lanes, the target-independent ABI (`<N x T>` values, an
/// `<N x i1>` mask), under a working name.
pub fn fixed_spec(module: Module, spec: &CloneSpec, vscale: u32) -> CloneSpec {
    CloneSpec {
        vector_name: shell::working_name(module, &format!("{}.vl{}", spec.vector_name, 128 * vscale)),
        width: spec.width * vscale,
        mask: spec.mask.map(|_| MaskAbi::LaneBits),
        isa: Isa::Llvm,
        ..spec.clone()
    }
}

/// The fewest lanes a body needs before it takes the `vscale_range` of its
/// one vector length (see [`prepare_fixed_body`]).
pub const SVE_REGISTER_MIN_LANES: u32 = 8;

/// Gives a function that runs only at `vscale`, with `lanes` lanes, its
/// target: `+sve` (predicated SVE loads, stores, gathers and scatters),
/// `noinline`, and, where it has at least [`SVE_REGISTER_MIN_LANES`] lanes,
/// `vscale_range(vscale, vscale)`: LLVM then lowers its vectors wider than
/// 128 bits to SVE registers of that length. Narrower bodies (64-bit lanes
/// at 256 bits: `<4 x i64>`) keep the scalar function's range, which
/// admits 128 bits, so LLVM lowers their vectors as 128-bit registers:
/// with a range of 256 bits LLVM 22's AArch64 backend aborts ("Cannot
/// select: AArch64ISD::NVCAST") on 4-lane vectors narrower than 128 bits
/// taken from 256-bit ones, which instcombine creates (`udiv <4 x i8>`
/// from a `udiv <4 x i64>` of small values, `uitofp <4 x i16> (trunc <4 x
/// i64>)`): 8 of 5,000 random programs' 256-bit bodies; none at 8 or 16
/// lanes.
pub fn prepare_fixed_body(f: Value, vscale: u32, lanes: u32) {
    let ctx = f.function_type().context();
    shell::target::add_feature(f, "+sve");
    if vscale == 1 || lanes >= SVE_REGISTER_MIN_LANES {
        f.remove_enum_attribute(FN, "vscale_range");
        f.add_attribute(FN, create_enum_attribute(ctx, "vscale_range", (u64::from(vscale) << 32) | u64::from(vscale)));
    }
    f.add_attribute(FN, create_enum_attribute(ctx, "noinline", 0));
}

/// Moves the built fixed-width clone `body` (of [`fixed_spec`] at
/// `vscale`) into a new internal function of the SVE clone's type `fty`
/// and returns it: its entry takes each scalable argument's first
/// `vscale x K` lanes (all of them at that length), and every `ret`
/// returns the result as the scalable vector it fills.
pub fn adapt<'ctx>(
    module: Module<'ctx>,
    scalar: Value<'ctx>,
    body: Value<'ctx>,
    spec: &CloneSpec,
    fty: Type<'ctx>,
    vscale: u32,
) -> Result<Value<'ctx>> {
    let ctx = module.context();
    let internal = |message: String| Error::Internal { function: spec.vector_name.clone(), message };
    if !body.users().is_empty() {
        return Err(internal(format!("the fixed-width body `{}` has uses", body.name())));
    }
    let name = shell::working_name(module, &format!("{}.vscale{vscale}", spec.vector_name));
    let f = module.add_function(&name, fty);
    abi::copy_attributes(scalar, f, spec);
    shell::target::apply(scalar, f, Isa::Sve);
    prepare_fixed_body(f, vscale, spec.width * vscale);
    f.set_internal();
    let i64t = Type::int(ctx, 64);
    let zero = constant::int(i64t, 0);
    let blocks = body.blocks();
    for block in &blocks {
        block.move_to_function(f);
    }
    let b = Builder::new(ctx);
    b.position_before(blocks[0].instructions()[0]);
    let extract = |v: Value<'ctx>, to: Type<'ctx>| -> Result<Value<'ctx>> {
        let f = module
            .intrinsic("llvm.vector.extract", &[to, v.ty()])
            .ok_or_else(|| internal("no llvm.vector.extract".into()))?;
        Ok(b.call(f.function_type(), f, &[v, zero]))
    };
    for (old, new) in body.params().into_iter().zip(f.params()) {
        let value = if old.ty() == new.ty() {
            new
        } else if old.users().is_empty() {
            continue;
        } else if new.ty().element().int_width() == 1 {
            // The predicate's lanes as a whole register of integers, whose
            // fixed part LLVM keeps in an SVE register and compares back
            // into a predicate; an `<N x i1>` taken from the predicate
            // directly is rebuilt lane by lane in a NEON register.
            let bits = 128 / spec.width;
            let wide = Type::int(ctx, bits).scalable_vector_of(spec.width);
            let ints = b.cast(LLVMSExt, new, wide);
            let part = extract(ints, Type::int(ctx, bits).vector_of(old.ty().vector_len()))?;
            b.icmp(crate::llvm::LLVMIntPredicate::LLVMIntNE, part, constant::null(part.ty()))
        } else {
            extract(new, old.ty())?
        };
        old.replace_all_uses_with(value);
    }
    let ret_ty = fty.return_type();
    if !ret_ty.is_void() {
        let fixed_ty = body.function_type().return_type();
        let insert = module
            .intrinsic("llvm.vector.insert", &[ret_ty, fixed_ty])
            .ok_or_else(|| internal("no llvm.vector.insert".into()))?;
        for block in &blocks {
            let Some(ret) = block.terminator().filter(|t| t.opcode() == LLVMRet) else { continue };
            b.position_before(ret);
            let whole = b.call(insert.function_type(), insert, &[constant::poison(ret_ty), ret.operand(0), zero]);
            b.ret(Some(whole));
            ret.erase();
        }
    }
    body.delete_function();
    module.verify_function(f).map_err(internal)?;
    Ok(f)
}

/// Builds the SVE clone `spec` of `scalar` (of type `fty`, from [`check`]):
/// it calls the body of `bodies` (`vscale`, function from [`adapt`]) for
/// the vector length it runs at, and runs the per-lane loop at every other
/// length. Returns the clone.
pub fn build_dispatcher<'ctx>(
    module: Module<'ctx>,
    scalar: Value<'ctx>,
    spec: &CloneSpec,
    fty: Type<'ctx>,
    bodies: &[(u32, Value<'ctx>)],
) -> Result<Value<'ctx>> {
    let ctx = module.context();
    let i64t = Type::int(ctx, 64);
    let clone = shell::create_clone_function(module, scalar, spec, fty);
    let params = crate::fallback::name_params(scalar, clone);
    let entry = clone.append_block("entry");
    let b = Builder::new(ctx);
    b.position_at_end(entry);
    let vscale = module.intrinsic("llvm.vscale", &[i64t]).expect("llvm.vscale exists");
    let vscale = b.call(vscale.function_type(), vscale, &[]);
    let lanes = clone.append_block("lanes");
    let switch = b.switch(vscale, lanes, bodies.len() as u32);
    for &(v, body) in bodies {
        let block = clone.append_block(&format!("vscale{v}"));
        b.add_case(switch, constant::int(i64t, u64::from(v)), block);
        b.position_at_end(block);
        let call = b.call(fty, body, &params);
        call.set_call_conv(body.call_conv());
        b.ret((!fty.return_type().is_void()).then_some(call));
    }
    lane_loop(module, scalar, clone, spec, &params, lanes, vscale);
    module.verify_function(clone).map_err(|message| Error::Internal { function: spec.vector_name.clone(), message })?;
    Ok(clone)
}

/// Whether the per-lane loop may stand in for the vectorized bodies
/// (`Err(Error::Unsupported)` when not: `--no-fallback` and no body).
pub fn check_fallback(spec: &CloneSpec, allow_fallback: bool, bodies: usize) -> Result<()> {
    if bodies > 0 || allow_fallback {
        return Ok(());
    }
    Err(Error::Unsupported { function: spec.scalar_name.clone(), kind: FallbackKind::Scalable, what: REASON.into() })
}

/// Fills `clone`, from block `entry` on, with a loop over its
/// `vscale x K` lanes that calls the scalar function for each active lane
/// and inserts the result; `params` are the clone's parameters and
/// `vscale` its value (computed before `entry`).
fn lane_loop<'ctx>(
    module: Module<'ctx>,
    scalar: Value<'ctx>,
    clone: Value<'ctx>,
    spec: &CloneSpec,
    cparams: &[Value<'ctx>],
    entry: crate::llvm::Block<'ctx>,
    vscale: Value<'ctx>,
) {
    let ctx = module.context();
    let i64t = Type::int(ctx, 64);
    let b = Builder::new(ctx);
    let sty = scalar.function_type();
    let ret = sty.return_type();
    let nparams = sty.param_types().len();
    let mask = spec.mask.map(|_| cparams[nparams]);
    let head = clone.append_block("lane.head");
    let call_block = clone.append_block("lane");
    let next = clone.append_block("lane.next");
    let exit = clone.append_block("exit");
    b.position_at_end(entry);
    let lanes = b.binop(LLVMMul, vscale, constant::int(i64t, spec.width as u64));
    let result_ty = clone.function_type().return_type();
    let start = (!ret.is_void()).then(|| constant::poison(result_ty));
    b.br(head);

    b.position_at_end(head);
    let lane = b.phi(i64t);
    lane.add_incoming(constant::int(i64t, 0), entry);
    let acc = start.map(|s| {
        let phi = b.phi(result_ty);
        phi.add_incoming(s, entry);
        phi
    });
    match mask {
        Some(m) => {
            let active = b.extract_element_dyn(m, lane);
            b.cond_br(active, call_block, next);
        }
        None => {
            b.br(call_block);
        }
    }

    b.position_at_end(call_block);
    let args = crate::fallback::lane_args(&b, sty, spec, cparams, lane);
    let r = b.call(sty, scalar, &args);
    crate::fallback::copy_call_abi(scalar, r);
    let with_lane = acc.map(|a| b.insert_element_dyn(a, r, lane));
    b.br(next);

    b.position_at_end(next);
    let merged = acc.map(|a| {
        let phi = b.phi(result_ty);
        phi.add_incoming(with_lane.expect("a result has an accumulator"), call_block);
        if mask.is_some() {
            phi.add_incoming(a, head);
        }
        phi
    });
    let following = b.binop(LLVMAdd, lane, constant::int(i64t, 1));
    lane.add_incoming(following, next);
    if let (Some(a), Some(m)) = (acc, merged) {
        a.add_incoming(m, next);
    }
    let more = b.icmp(crate::llvm::LLVMIntPredicate::LLVMIntULT, following, lanes);
    b.cond_br(more, head, exit);

    b.position_at_end(exit);
    b.ret(merged);
}
