//! The SVE half of the AArch64 execution oracle ([`super`]): the random
//! programs batched as SVE variants of scalable length (`_ZGVsNx...`,
//! `_ZGVsMx...`), whose clones take and return `<vscale x K x T>` (K lanes
//! per 128 bits, [`batchify_core::spec::min_lanes`]) and, when masked, the
//! predicate `<vscale x K x i1>` last.
//!
//! One binary serves every vector length: the driver reads
//! `llvm.vscale.i64()` at run time, so its tables hold [`MAX_VSCALE`]` x K`
//! lanes per input set, of which it uses the first `vscale x K`. It loads
//! the clone's arguments from them as scalable vectors, builds the
//! predicate from a byte array (`icmp ne`), calls the scalar function once
//! per active lane and the clone once per input set, and stores both
//! results as 64-bit patterns; the C `main` prints `vscale V` first and
//! compares the active lanes. The batch runner ([`super::run`]) runs each
//! binary once per requested vector length under
//! `qemu-aarch64 -cpu` [`qemu_cpu`]`(vq)` and fails loudly when the
//! reported `vscale` is not the one asked for.

use super::{scalar_of, CrossOptions, Inputs, Prepared};
use crate::fuzz::mix;
use crate::gen::{Program, Ty};
use crate::inputs::{mask_to, random_bits};
use batchify_core::vfabi::{Isa, Param, ParamKind, VariantName, VectorLength};
use batchify_core::CloneSpec;
use inkwell::context::Context;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::fmt::Write as _;

/// The largest `vscale` SVE allows (2048-bit vectors); the driver's tables
/// are sized for it.
pub const MAX_VSCALE: u32 = 16;

/// The vector lengths (`vscale`, 128-bit granules) `--isa sve` runs at by
/// default: batchify's specialised lengths 1, 2, 4 and two it runs as a
/// per-lane loop, 8 and 16. Lengths that are not powers of two (3 is
/// accepted by qemu and by `--sve-vq`) are outside what LLVM's AArch64
/// backend assumes (`vscale` a power of two) and what Armv9 allows, so a
/// failure there need not be batchify's.
pub const DEFAULT_VQS: [u32; 5] = [1, 2, 4, 8, 16];

/// The `-cpu` argument of `qemu-aarch64` for `vq` 128-bit granules. The
/// default vector length must be given too: without it qemu-user starts
/// processes at 512 bits at most.
pub fn qemu_cpu(vq: u32) -> String {
    format!("max,sve-max-vq={vq},sve-default-vector-length={}", vq * 16)
}

/// Parses a `--sve-vq` list (`1,2,4,16`): each in `1..=16`, no repeats,
/// sorted.
pub fn parse_vqs(s: &str) -> Result<Vec<u32>, String> {
    let mut vqs = Vec::new();
    for part in s.split(',') {
        let vq: u32 = part.trim().parse().map_err(|_| format!("`{part}` is not a number"))?;
        if !(1..=MAX_VSCALE).contains(&vq) {
            return Err(format!("vector length {vq} is not in 1..={MAX_VSCALE} (128-bit granules)"));
        }
        if !vqs.contains(&vq) {
            vqs.push(vq);
        }
    }
    vqs.sort_unstable();
    Ok(vqs)
}

/// The variant name the program is batched under: `_ZGVsMx<params>_<name>`
/// (masked) or `_ZGVsNx...`, parsed back from its mangling.
pub fn variant_name(program: &Program, masked: bool) -> VariantName {
    let params: Vec<Param> = program.abi.iter().map(|(_, k)| Param { kind: *k, align: None }).collect();
    let draft = VariantName {
        isa: Isa::Sve,
        masked,
        vlen: VectorLength::Scalable,
        params,
        scalar_name: program.name.clone(),
        vector_name: String::new(),
    };
    let mangled = draft.mangled();
    VariantName::parse(&mangled).unwrap_or_else(|e| panic!("`{mangled}` does not parse: {e}"))
}

/// The spec of the program's SVE variant, as batchify computes it from the
/// scalar function's type ([`CloneSpec::for_function`]); `Err` with
/// batchify's reason when it refuses the variant.
pub fn spec_of(program: &Program, masked: bool) -> Result<CloneSpec, String> {
    let v = variant_name(program, masked);
    let ctx = Context::create();
    let text = format!("target triple = \"{}\"\n{}", super::TRIPLE, program.ir);
    let module = crate::fuzz::parse_ir(&ctx, &text, &program.name)
        .unwrap_or_else(|e| panic!("generated program `{}` does not parse: {e}", program.name));
    let f = batchify_core::llvm::Module::from_inkwell(&module)
        .function(&program.name)
        .unwrap_or_else(|| panic!("generated program has no `{}`", program.name));
    CloneSpec::for_function(&v, f.function_type()).map_err(|e| e.to_string())
}

/// A stand-in spec for a variant batchify refused (named, no lanes).
pub fn refused_spec(program: &Program, masked: bool) -> CloneSpec {
    let v = variant_name(program, masked);
    CloneSpec {
        scalar_name: program.name.clone(),
        vector_name: v.vector_name,
        width: 0,
        params: v.params.iter().map(|p| p.kind).collect(),
        aligns: vec![None; v.params.len()],
        mask: None,
        isa: Isa::Sve,
    }
}

/// `<vscale x K x t>` for the spec's K.
fn scalable(spec: &CloneSpec, t: &str) -> String {
    format!("<vscale x {} x {t}>", spec.width)
}

/// The clone's parameter types the driver passes (the predicate last for
/// masked variants) and its result type.
pub fn expected_sig(program: &Program, spec: &CloneSpec) -> (Vec<String>, String) {
    let mut params: Vec<String> = program
        .params
        .iter()
        .zip(&spec.params)
        .map(|(t, k)| match k {
            ParamKind::Vector => scalable(spec, t.ir()),
            _ => t.ir().to_string(),
        })
        .collect();
    if spec.mask.is_some() {
        params.push(scalable(spec, "i1"));
    }
    (params, scalable(spec, program.ret.ir()))
}

/// Whether the built clone has the type the driver calls it with.
pub fn check_sig(program: &Program, spec: &CloneSpec, sig: &(Vec<String>, String)) -> Result<(), String> {
    let want = expected_sig(program, spec);
    if *sig == want {
        return Ok(());
    }
    Err(format!(
        "the SVE clone's type is ({}) -> {}, the driver expected ({}) -> {}",
        sig.0.join(", "),
        sig.1,
        want.0.join(", "),
        want.1
    ))
}

/// A reference SVE clone named as `spec` asks, on the C convention: a loop
/// over the `vscale x K` lanes calling the scalar function once per active
/// lane. With `corrupt`, lane 0's result has its lowest bit flipped.
pub fn reference_clone_ir(program: &Program, spec: &CloneSpec, corrupt: bool) -> String {
    let k = spec.width;
    let rt = program.ret.ir();
    let vt = scalable(spec, rt);
    let bits = if matches!(program.ret, Ty::I32 | Ty::F32) { 32 } else { 64 };
    let (ptys, _) = expected_sig(program, spec);
    let params: Vec<String> = ptys
        .iter()
        .enumerate()
        .map(
            |(i, t)| {
                if spec.mask.is_some() && i + 1 == ptys.len() {
                    format!("{t} %mask")
                } else {
                    format!("{t} %a{i}")
                }
            },
        )
        .collect();
    let mut s = format!("\ndefine {vt} @\"{}\"({}) {{\nentry:\n", spec.vector_name, params.join(", "));
    let _ = writeln!(s, "  %vs = call i64 @llvm.vscale.i64()\n  %n = mul i64 %vs, {k}\n  br label %head\nhead:");
    let _ = writeln!(s, "  %k = phi i64 [ 0, %entry ], [ %k.next, %next ]");
    let _ = writeln!(s, "  %acc = phi {vt} [ poison, %entry ], [ %acc.next, %next ]");
    if spec.mask.is_some() {
        let _ = writeln!(s, "  %on = extractelement {} %mask, i64 %k", scalable(spec, "i1"));
        let _ = writeln!(s, "  br i1 %on, label %call, label %next");
    } else {
        let _ = writeln!(s, "  br label %call");
    }
    let _ = writeln!(s, "call:");
    let mut args = Vec::new();
    for (i, (t, kind)) in program.params.iter().zip(&spec.params).enumerate() {
        let t = t.ir();
        match kind {
            ParamKind::Vector => {
                let _ = writeln!(s, "  %x{i} = extractelement {} %a{i}, i64 %k", scalable(spec, t));
                args.push(format!("{t} %x{i}"));
            }
            ParamKind::Linear { step } => {
                let _ = writeln!(s, "  %o{i} = mul i64 %k, {step}");
                let off = if t == "i64" {
                    format!("%o{i}")
                } else {
                    let _ = writeln!(s, "  %o{i}.t = trunc i64 %o{i} to {t}");
                    format!("%o{i}.t")
                };
                let _ = writeln!(s, "  %x{i} = add {t} %a{i}, {off}");
                args.push(format!("{t} %x{i}"));
            }
            _ => args.push(format!("{t} %a{i}")),
        }
    }
    let cc = if program.cc.is_empty() { String::new() } else { format!("{} ", program.cc) };
    let _ = writeln!(s, "  %r = call {cc}{rt} @\"{}\"({}) noinline", program.name, args.join(", "));
    let mut r = "%r".to_string();
    if corrupt {
        let _ = writeln!(s, "  %rb = bitcast {rt} %r to i{bits}\n  %first = icmp eq i64 %k, 0");
        let _ = writeln!(s, "  %flip = zext i1 %first to i{bits}\n  %rx = xor i{bits} %rb, %flip");
        let _ = writeln!(s, "  %rc = bitcast i{bits} %rx to {rt}");
        r = "%rc".into();
    }
    let _ = writeln!(s, "  %w = insertelement {vt} %acc, {rt} {r}, i64 %k\n  br label %next\nnext:");
    if spec.mask.is_some() {
        let _ = writeln!(s, "  %acc.next = phi {vt} [ %w, %call ], [ %acc, %head ]");
    } else {
        let _ = writeln!(s, "  %acc.next = phi {vt} [ %w, %call ]");
    }
    let _ = writeln!(s, "  %k.next = add i64 %k, 1\n  %more = icmp ult i64 %k.next, %n");
    let _ = writeln!(s, "  br i1 %more, label %head, label %done\ndone:\n  ret {vt} %acc.next\n}}");
    s.push_str("\ndeclare i64 @llvm.vscale.i64()\n");
    s
}

/// Lanes of one input set in the driver's tables: enough for every vector
/// length.
pub fn stride(spec: &CloneSpec) -> usize {
    (MAX_VSCALE * spec.width) as usize
}

/// The input sets of program `p`, [`stride`] lanes each (random and
/// special values as for Advanced SIMD; uniform parameters one value,
/// linear ones `base + k*step`). `mask[t][k]` is the predicate's byte: 0
/// inactive, a random nonzero byte active; input set 0 is all active, the
/// others have each lane active with probability 0.6. Unmasked: all 1.
/// Derived from the seed only, so every vector length sees a prefix of the
/// same lanes.
pub fn inputs_of(p: &Prepared, trials: usize) -> Inputs {
    let n = stride(&p.spec);
    let mut rng = SmallRng::seed_from_u64(mix(p.seed ^ 0x5fe_1a7e));
    let mut vals = Vec::new();
    let mut mask = Vec::new();
    for t in 0..trials {
        let mut per = Vec::new();
        for (ty, kind) in p.program.params.iter().zip(&p.spec.params) {
            let s = scalar_of(*ty);
            let w = if *ty == Ty::I32 { 32 } else { 64 };
            per.push(match kind {
                ParamKind::Linear { step } => {
                    let base = random_bits(&mut rng, s);
                    (0..n).map(|k| mask_to(base.wrapping_add((k as u64).wrapping_mul(*step as u64)), w)).collect()
                }
                ParamKind::Vector => (0..n).map(|_| random_bits(&mut rng, s)).collect(),
                _ => vec![random_bits(&mut rng, s); n],
            });
        }
        vals.push(per);
        mask.push(
            (0..n)
                .map(|_| match p.spec.mask {
                    None => 1,
                    Some(_) if t > 0 && !rng.gen_bool(0.6) => 0,
                    Some(_) => rng.gen_range(1..=255u64),
                })
                .collect(),
        );
    }
    Inputs { vals, mask }
}

/// What every SVE batch module defines once: `i64 @bx_vscale()`.
pub fn driver_prelude() -> String {
    "declare i64 @llvm.vscale.i64()\n\
     define i64 @bx_vscale() {\n  %v = call i64 @llvm.vscale.i64()\n  ret i64 %v\n}\n"
        .into()
}

/// The driver IR of program `p` as the batch's `j`th: its tables (input
/// sets of [`stride`] lanes), result arrays and `i64 @bx_run_<j>()`, which
/// returns the lanes it ran (`vscale x K`).
pub fn driver_ir(j: usize, p: &Prepared, inp: &Inputs) -> String {
    let k = p.spec.width;
    let m = stride(&p.spec);
    let trials = inp.vals.len();
    let len = m * trials;
    let mut s = String::new();
    for (i, ty) in p.program.params.iter().enumerate() {
        let ity = if matches!(ty, Ty::I32 | Ty::F32) { "i32" } else { "i64" };
        let items: Vec<String> = inp.vals.iter().flat_map(|per| per[i].iter()).map(|v| format!("{ity} {v}")).collect();
        let _ = writeln!(s, "@bx_in_{j}_{i} = global [{len} x {ity}] [{}], align 16", items.join(", "));
    }
    let act: Vec<String> = inp.mask.iter().flatten().map(|&b| format!("i8 {b}")).collect();
    let _ = writeln!(s, "@bx_act_{j} = global [{len} x i8] [{}], align 16", act.join(", "));
    let _ = writeln!(s, "@bx_exp_{j} = global [{len} x i64] zeroinitializer, align 16");
    let _ = writeln!(s, "@bx_got_{j} = global [{len} x i64] zeroinitializer, align 16");
    let cc = |c: u32| if c == 0 { String::new() } else { format!("cc{c} ") };
    let rt = p.program.ret.ir();
    let params: Vec<&str> = p.program.params.iter().map(|t| t.ir()).collect();
    let _ = writeln!(s, "declare {}{rt} @\"{}\"({})", cc(p.ccs.0), p.program.name, params.join(", "));
    let _ = writeln!(
        s,
        "declare {}{} @\"{}\"({})",
        cc(p.ccs.1),
        p.clone_sig.1,
        p.spec.vector_name,
        p.clone_sig.0.join(", ")
    );
    let _ = writeln!(s, "define i64 @bx_run_{j}() {{\nentry:");
    let _ = writeln!(s, "  %vs = call i64 @llvm.vscale.i64()\n  %lanes = mul i64 %vs, {k}\n  br label %trial\ntrial:");
    let _ =
        writeln!(s, "  %t = phi i64 [ 0, %entry ], [ %t.next, %call ]\n  %base = mul i64 %t, {m}\n  br label %lane");
    // The scalar function, once per active lane.
    let _ = writeln!(s, "lane:\n  %k = phi i64 [ 0, %trial ], [ %k.next, %lane.next ]\n  %idx = add i64 %base, %k");
    let _ = writeln!(s, "  %ap = getelementptr i8, ptr @bx_act_{j}, i64 %idx\n  %a = load i8, ptr %ap");
    let _ = writeln!(s, "  %on = icmp ne i8 %a, 0\n  br i1 %on, label %scalar, label %lane.next\nscalar:");
    let mut args = Vec::new();
    for (i, ty) in p.program.params.iter().enumerate() {
        let ity = if matches!(ty, Ty::I32 | Ty::F32) { "i32" } else { "i64" };
        let _ = writeln!(s, "  %p{i} = getelementptr {ity}, ptr @bx_in_{j}_{i}, i64 %idx");
        let _ = writeln!(s, "  %x{i} = load {}, ptr %p{i}", ty.ir());
        args.push(format!("{} %x{i}", ty.ir()));
    }
    let _ = writeln!(s, "  %r = call {}{rt} @\"{}\"({}) noinline", cc(p.ccs.0), p.program.name, args.join(", "));
    let _ = match p.program.ret {
        Ty::I32 => writeln!(s, "  %rb = zext i32 %r to i64"),
        Ty::I64 => writeln!(s, "  %rb = add i64 %r, 0"),
        Ty::F32 => writeln!(s, "  %rb.32 = bitcast float %r to i32\n  %rb = zext i32 %rb.32 to i64"),
        Ty::F64 => writeln!(s, "  %rb = bitcast double %r to i64"),
    };
    let _ = writeln!(s, "  %e = getelementptr i64, ptr @bx_exp_{j}, i64 %idx\n  store i64 %rb, ptr %e");
    let _ = writeln!(s, "  br label %lane.next\nlane.next:\n  %k.next = add i64 %k, 1");
    let _ = writeln!(s, "  %more = icmp ult i64 %k.next, %lanes\n  br i1 %more, label %lane, label %call\ncall:");
    // The clone, once per input set, its arguments loaded as scalable vectors.
    let mut args = Vec::new();
    for (i, (ty, kind)) in p.program.params.iter().zip(&p.spec.params).enumerate() {
        let ity = if matches!(ty, Ty::I32 | Ty::F32) { "i32" } else { "i64" };
        let _ = writeln!(s, "  %q{i} = getelementptr {ity}, ptr @bx_in_{j}_{i}, i64 %base");
        match kind {
            ParamKind::Vector => {
                let vt = scalable(&p.spec, ty.ir());
                let _ = writeln!(s, "  %v{i} = load {vt}, ptr %q{i}, align 4");
                args.push(format!("{vt} %v{i}"));
            }
            _ => {
                let _ = writeln!(s, "  %u{i} = load {}, ptr %q{i}", ty.ir());
                args.push(format!("{} %u{i}", ty.ir()));
            }
        }
    }
    if p.spec.mask.is_some() {
        let bt = scalable(&p.spec, "i8");
        let _ = writeln!(s, "  %mp = getelementptr i8, ptr @bx_act_{j}, i64 %base");
        let _ = writeln!(s, "  %mb = load {bt}, ptr %mp, align 1\n  %mv = icmp ne {bt} %mb, zeroinitializer");
        args.push(format!("{} %mv", scalable(&p.spec, "i1")));
    }
    let vt = &p.clone_sig.1;
    let _ = writeln!(s, "  %v = call {}{vt} @\"{}\"({}) noinline", cc(p.ccs.1), p.spec.vector_name, args.join(", "));
    let (v32, v64) = (scalable(&p.spec, "i32"), scalable(&p.spec, "i64"));
    let _ = match p.program.ret {
        Ty::I32 => writeln!(s, "  %g = zext {vt} %v to {v64}"),
        Ty::I64 => writeln!(s, "  %g = or {vt} %v, zeroinitializer"),
        Ty::F32 => writeln!(s, "  %g.32 = bitcast {vt} %v to {v32}\n  %g = zext {v32} %g.32 to {v64}"),
        Ty::F64 => writeln!(s, "  %g = bitcast {vt} %v to {v64}"),
    };
    let _ = writeln!(s, "  %gp = getelementptr i64, ptr @bx_got_{j}, i64 %base\n  store {v64} %g, ptr %gp, align 8");
    let _ = writeln!(s, "  %t.next = add i64 %t, 1\n  %more.t = icmp ult i64 %t.next, {trials}");
    let _ = writeln!(s, "  br i1 %more.t, label %trial, label %exit\nexit:\n  ret i64 %lanes\n}}\n");
    s
}

/// The `--isa sve --sve-vq` part of a reproduction command.
pub fn repro_flags(vqs: &[u32]) -> String {
    let list: Vec<String> = vqs.iter().map(u32::to_string).collect();
    format!(" --isa sve --sve-vq {}", list.join(","))
}

/// The vector lengths `opts` runs SVE clones at (empty: Advanced SIMD).
pub fn vqs_of(opts: &CrossOptions) -> &[u32] {
    match &opts.isa {
        super::CrossIsa::Sve { vqs } => vqs,
        super::CrossIsa::AdvSimd => &[],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vq_lists_parse() {
        assert_eq!(parse_vqs("16,1,2,2").unwrap(), vec![1, 2, 16]);
        assert!(parse_vqs("0").is_err() && parse_vqs("17").is_err() && parse_vqs("x").is_err());
        assert_eq!(qemu_cpu(3), "max,sve-max-vq=3,sve-default-vector-length=48");
    }
}
