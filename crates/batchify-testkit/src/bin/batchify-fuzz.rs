//! `batchify-fuzz`: random programs, batched and checked by the oracle.
//!
//! ```text
//! batchify-fuzz [--count N] [--seed S] [--width W] [--unmasked | --masked] [--arch A] [--isa I] [--sve-vq LIST]
//!               [--opt-fraction F]
//!               [--post-opt-fraction F] [--cpu NAME] [--features +x,-y] [--tunings LIST]
//!               [--trials T] [--straight-line] [--max-depth D] [--max-stmts N]
//!               [--max-total-stmts N] [--max-trip K] [--arrays P]
//!               [--no-callees] [--callees P] [--max-callees N] [--cc-fraction F]
//!               [--tail-fraction F] [--attrs F] [--ptr-callees P] [--sret P] [--pair-ret P]
//!               [--top-attrs P] [--no-top-level-cc] [--no-top-level-internal]
//!               [--buffers P] [--max-buffers N] [--uniform-params P] [--linear-params P]
//!               [--records P] [--recursion P] [--buf-callees P] [--tables P]
//!               [--self-test | --attr-check | --map | --enzyme-reverse] [--threads N] [--timeout SECS]
//!               [--for-autodiff] [--dump]
//! ```
//!
//! Prints progress every 1000 programs and the summary line
//! (`N programs, M mismatches, K invalid IR, ...`), then every kept failure
//! with the command that reproduces it. Exits 1 if any program gave a
//! mismatch, invalid IR or a panic; 2 on bad usage.
//!
//! `--isa avx2` (or `sse`, `avx`, `avx512`) builds x86 variants in GCC's
//! vector ABI instead of target-independent ones, so that the ISA's own
//! lowering (full-width masks below AVX-512, pieces wider than a register)
//! is checked too; the CPU must have the ISA.
//!
//! `--cpu NAME` (an LLVM CPU: `skylake-avx512`, `znver4`, `x86-64-v4`;
//! default `host`) and `--features +x,-y` make the oracle's JIT compile for
//! that CPU's tuning, minus the features the host lacks
//! ([`batchify_testkit::jit::JitTarget`]); the summary names the target.
//! `--tunings all` fuzzes `--count` programs under each tuning of
//! [`batchify_testkit::tunings::TUNINGS`], over every clone kind of its
//! matrix, and prints one line per tuning.
//!
//! `--dump` prints each program (and its `default<O2>` form when it is
//! optimised) with its outcome: `batchify-fuzz --seed S --count 1 --dump`
//! reproduces one program of a larger run.
//!
//! `--arch aarch64` checks Advanced SIMD (`_ZGVn`) variants in AArch64
//! modules instead, cross-compiled with clang-22 and run under
//! `qemu-aarch64` in batches ([`batchify_testkit::cross_aarch64`]): scalar
//! parameters only (no buffers, buffer helpers or recorder calls); the
//! width follows the return type unless `--width` is given, and half the
//! clones are masked unless `--masked` or `--unmasked` is given.
//!
//! `--arch aarch64 --isa sve [--sve-vq 1,2,4,16]` batches each program as an
//! SVE variant of scalable length (`_ZGVsNx`/`_ZGVsMx`, `vscale x K` lanes,
//! K from the types) and runs every batch binary once per vector length
//! (`vscale` 1..16, default 1,2,4,8,16) under qemu; the summary has a line
//! per vector length. `--width` does not apply.
//!
//! `--enzyme-reverse` differentiates each program with Enzyme in reverse
//! mode and batches and checks the derivative instead
//! ([`batchify_testkit::fuzz_enzyme`]); it prints that mode's summary.

use batchify_testkit::cross_aarch64::{self, sve, CrossEngine, CrossIsa, CrossOptions};
use batchify_testkit::fuzz::{self, Engine, FuzzOptions};
use batchify_testkit::gen::GenConfig;
use batchify_testkit::tunings::{self, Tuning, MATRIX, TUNINGS};
use batchify_testkit::{enzyme, fuzz_enzyme};
use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

const USAGE: &str = "usage: batchify-fuzz [--count N] [--seed S] [--width W] [--unmasked | --masked] [--arch A] [--isa I] [--sve-vq LIST] [--opt-fraction F] \
[--post-opt-fraction F] [--cpu NAME] [--features +x,-y] [--tunings LIST] \
[--trials T] [--straight-line] [--max-depth D] [--max-stmts N] [--max-total-stmts N] [--max-trip K] [--arrays P] \
[--no-callees] [--callees P] [--max-callees N] [--cc-fraction F] [--tail-fraction F] [--attrs F] [--ptr-callees P] \
[--sret P] [--pair-ret P] [--top-attrs P] [--no-top-level-cc] [--no-top-level-internal] [--buffers P] [--max-buffers N] \
[--uniform-params P] [--linear-params P] [--records P] [--recursion P] [--buf-callees P] [--tables P] \
[--self-test | --attr-check | --map [--map-form F] [--refill-groups G] [--bucket] | --enzyme-reverse] [--threads N] \
[--timeout SECS] [--for-autodiff] [--dump]

  --count N          programs to run (default 1000)
  --seed S           seed of the first program (decimal or 0x hex); program i uses S+i (default 0)
  --width W          lanes of the clones (default 8)
  --unmasked         build unmasked clones (default: masked, with random masks)
  --masked           build masked clones (the default; with --arch aarch64: all masked)
  --arch A           x86_64 (default: in-process JIT oracle) or aarch64: Advanced SIMD variants
                     cross-compiled with clang-22 and run under qemu-aarch64 in batches of 40
                     (scalar parameters only; width 128 bits / return type bits, or 2 lanes for a
                     quarter of 32-bit programs, unless --width; half masked unless --masked or
                     --unmasked; --trials input sets per program, default 16)
  --isa sve          with --arch aarch64: SVE variants of scalable length (_ZGVsNx/_ZGVsMx,
                     <vscale x K x T>, K lanes per 128 bits from the types, masked ones take
                     <vscale x K x i1>), each batch run at every --sve-vq; --isa neon (the
                     default) for Advanced SIMD
  --sve-vq LIST      with --isa sve: vector lengths in 128-bit granules (vscale), 1..16,
                     comma-separated (default 1,2,4,8,16): qemu-aarch64 -cpu
                     max,sve-max-vq=N,sve-default-vector-length=16N
  --corrupt-lane0    with --arch aarch64: --self-test with lane 0's result off by one bit (the
                     harness's self-check: every program should be reported)
  --keep-dir DIR     with --arch aarch64: keep each batch's files (batch.ll, main.c, prog) in DIR
  --isa I            llvm (default), sse, avx, avx2 or avx512: x86 variants in GCC's vector ABI;
                     with --arch aarch64: neon (default) or sve
  --cpu NAME         LLVM CPU whose tuning the oracle's JIT compiles for (default host); the
                     features the host lacks are removed, so the code runs here
  --features LIST    extra JIT features after the CPU's, e.g. +prefer-256-bit
  --tunings LIST     fuzz under each tuning (comma-separated, or all: host, x86-64-v3, x86-64-v4,
                     skylake-avx512, sapphirerapids, znver4, host+prefer-256-bit): --count programs
                     per tuning over masked/unmasked, 4/8/16 lanes, llvm/avx2/avx512 clones (the
                     kinds the host can run); one line per tuning
  --opt-fraction F   fraction of programs run through default<O2> first (default 0.25)
  --post-opt-fraction F  fraction of programs whose module, clone included, runs through
                     default<O2> after batchify, as a user's build would (default 0)
  --trials T         oracle trials per program (default 20)
  --straight-line    generate programs without control flow
  --max-depth D      nesting bound of if/loop/switch (default 3)
  --max-stmts N      statements per block (default 4)
  --max-total-stmts N  statements per program (default 24)
  --max-trip K       iteration cap of every loop (default 6)
  --arrays P         probability that a program has private arrays, `alloca [8 x T]` read and
                     written at uniform and varying indices (default 0.15; batchify builds a
                     per-lane fallback for them today)
  --no-callees       no helper functions (same as --callees 0)
  --callees P        probability that a program has internal helper functions (default 0.3)
  --max-callees N    most helpers per program; helper k may call helpers 0..k (default 3)
  --cc-fraction F    probability that a helper has an explicit calling convention: fastcc,
                     coldcc, tailcc, preserve_mostcc or ccc (default 0.6)
  --tail-fraction F  probability that a call with scalar arguments is marked `tail` (default 0.3)
  --attrs F          probability of each attribute that holds (memory, nounwind, noundef,
                     nonnull, noalias, dereferenceable, align, range, ...) (default 0.6)
  --ptr-callees P    probability that a helper takes a pointer to a private array of the
                     caller: readonly, writeonly, read-write or byval (default 0.12)
  --sret P           probability that a helper returns a struct through sret (default 0.08)
  --pair-ret P       probability that a helper returns a { T, i32 } struct as a value (default 0)
  --top-attrs P      probability that the top-level function has attributes (default 0.3)
  --no-top-level-cc  keep the top-level function on the C calling convention (by default it
                     gets fastcc, tailcc or C at random)
  --no-top-level-internal  keep the top-level function external (by default half the
                     programs make it internal)
  --buffers P        probability that the top-level function takes pointers to bounded buffers:
                     varying (a buffer per lane), uniform or linear, read only or written
                     conflict-free, i8..i64/float/double, uniform, linear, strided and random
                     indices (default 0.4)
  --max-buffers N    most buffer parameters per program (default 3)
  --uniform-params P probability that a scalar parameter is uniform in the clone (default 0.2)
  --linear-params P  probability that an integer parameter is linear, step 1 or -1 (default 0.15)
  --records P        probability per statement of a call of the side-effect recorder
                     batchify_record(tag, value), whose log the oracle checks (default 0.04)
  --recursion P      probability that a helper is recursive, with a depth parameter that
                     bounds it (default 0.3)
  --buf-callees P    probability that a helper takes a read-only pointer to one of the
                     top-level function's buffers (default 0.25)
  --tables P         probability that a function reads one or two small constant tables
                     (internal/private constant [K x i32] or [K x float], K from 5 to 100) at
                     indices kept in range by & (K-1), urem K or a branch on i < K (default 0.15;
                     helpers a third of that); the summary counts the reads that became table
                     permutes
  --self-test        check a per-lane reference clone instead of batchify (tests the generator)
  --attr-check       check the program against a copy without its optional attributes
                     (tests that the generator's attributes hold; use --opt-fraction 1)
  --map              build the masked and unmasked clones and the map entry point on them
                     (batchify --map) and check the map over whole arrays: n = 0, 1, N-1, N,
                     N+1, ..., random inputs against guard pages, in place (implies --buffers 0
                     and --buf-callees 0 unless given: the map check takes scalar parameters only)
  --map-form F       how --map's maps run: adaptive (default), refill or grouped (batchify --map-form)
  --bucket           --map's maps bucketed by a key of the parameters' bits (batchify --bucket); programs
                     LLVM's function-attrs does not find free of memory writes are unsupported
  --for-autodiff     build the clones with --for-autodiff (finished lanes held, no masked memory
                     intrinsics; docs/autodiff.md) and check their values
  --refill-groups G  lane groups per trip of the maps' refill workers, 1 or 2 (batchify
                     --refill-groups; default: as the cost model decides)
  --enzyme-reverse   differentiate each program with Enzyme (reverse mode, __enzyme_autodiff;
                     the plugin from ENZYME_PLUGIN or shared/enzyme) and check batchify's
                     unmasked and masked clones (--unmasked: unmasked only) of the derivative,
                     fallback allowed (buffers are enzyme_const; every program gets a float
                     parameter); prints programs, Enzyme-accepted, vectorized clones, fallbacks
                     and Enzyme's rejections by reason, lanes compared, mismatches
  --threads N        worker threads (default: all CPUs)
  --timeout SECS     abort if one program runs longer (default 120, 0 = never)
  --dump             print every program, its clone and its outcome";

struct Args {
    opts: FuzzOptions,
    dump: bool,
    enzyme_reverse: bool,
    /// `--tunings`: the tunings to fuzz the clone-kind matrix under.
    tunings: Vec<Tuning>,
    /// `--arch aarch64`: the cross-compiled oracle's options.
    aarch64: Option<CrossOptions>,
}

fn value<T: std::str::FromStr>(flag: &str, v: Option<String>) -> Result<T, String> {
    let v = v.ok_or_else(|| format!("{flag} needs a value"))?;
    v.parse().map_err(|_| format!("{flag}: cannot parse `{v}`"))
}

fn fraction(flag: &str, v: Option<String>) -> Result<f64, String> {
    let p: f64 = value(flag, v)?;
    if !(0.0..=1.0).contains(&p) {
        return Err(format!("{flag} must be in 0..=1"));
    }
    Ok(p)
}

fn parse(args: impl Iterator<Item = String>) -> Result<Option<Args>, String> {
    let mut opts = FuzzOptions {
        threads: std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1),
        ..FuzzOptions::default()
    };
    let mut dump = false;
    let mut enzyme_reverse = false;
    let mut tunings = Vec::new();
    let mut straight = false;
    let (mut max_depth, mut max_stmts, mut max_total_stmts, mut max_trip, mut arrays) = (None, None, None, None, None);
    let (mut callees, mut max_callees, mut cc, mut tail, mut attrs) = (None, None, None, None, None);
    let (mut ptr_callees, mut sret, mut top_attrs) = (None, None, None);
    let mut pair_ret = None;
    let (mut no_top_cc, mut no_top_internal) = (false, false);
    let (mut buffers, mut max_buffers, mut uniform_params, mut linear_params) = (None, None, None, None);
    let (mut records, mut recursion, mut buf_callees, mut tables) = (None, None, None, None);
    let (mut arch, mut width_given, mut masked_given, mut trials_given) = (None, false, None, false);
    let mut keep_dir: Option<std::path::PathBuf> = None;
    let mut corrupt = false;
    let (mut isa_flag, mut sve_vqs): (Option<String>, Option<Vec<u32>>) = (None, None);
    let mut args = args;
    while let Some(a) = args.next() {
        let (flag, inline) = match a.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f.to_string(), Some(v.to_string())),
            _ => (a.clone(), None),
        };
        let mut next = || inline.clone().or_else(|| args.next());
        match flag.as_str() {
            "--count" => opts.count = value(&flag, next())?,
            "--seed" => {
                let v: String = value(&flag, next())?;
                let parsed = match v.strip_prefix("0x") {
                    Some(hex) => u64::from_str_radix(hex, 16),
                    None => v.parse(),
                };
                opts.seed = parsed.map_err(|_| format!("--seed: cannot parse `{v}`"))?;
            }
            "--width" => {
                opts.width = value(&flag, next())?;
                width_given = true;
                if !(1..=1024).contains(&opts.width) {
                    return Err("--width must be in 1..=1024".into());
                }
            }
            "--unmasked" => {
                opts.masked = false;
                masked_given = Some(false);
            }
            "--masked" => {
                opts.masked = true;
                masked_given = Some(true);
            }
            "--corrupt-lane0" => {
                opts.engine = Engine::ScalarLoop;
                corrupt = true;
            }
            "--keep-dir" => keep_dir = Some(value::<String>(&flag, next())?.into()),
            "--arch" => {
                let v: String = value(&flag, next())?;
                arch = match v.as_str() {
                    "x86_64" | "x86-64" => None,
                    "aarch64" => Some(()),
                    _ => return Err(format!("--arch: `{v}` is not x86_64 or aarch64")),
                };
            }
            "--isa" => isa_flag = Some(value(&flag, next())?),
            "--sve-vq" => {
                let v: String = value(&flag, next())?;
                sve_vqs = Some(sve::parse_vqs(&v).map_err(|e| format!("--sve-vq: {e}"))?);
            }
            "--cpu" => opts.jit_target = opts.jit_target.with_cpu(&value::<String>(&flag, next())?),
            "--features" => opts.jit_target = opts.jit_target.with_features(&value::<String>(&flag, next())?),
            "--post-opt-fraction" => opts.post_optimize_fraction = fraction(&flag, next())?,
            "--opt-fraction" => opts.optimize_fraction = fraction(&flag, next())?,
            "--trials" => {
                opts.trials = value(&flag, next())?;
                trials_given = true;
            }
            "--straight-line" => straight = true,
            "--max-depth" => max_depth = Some(value(&flag, next())?),
            "--max-stmts" => max_stmts = Some(value(&flag, next())?),
            "--max-total-stmts" => max_total_stmts = Some(value(&flag, next())?),
            "--max-trip" => max_trip = Some(value(&flag, next())?),
            "--arrays" => arrays = Some(fraction(&flag, next())?),
            "--no-callees" => callees = Some(0.0),
            "--callees" => callees = Some(fraction(&flag, next())?),
            "--max-callees" => max_callees = Some(value(&flag, next())?),
            "--cc-fraction" => cc = Some(fraction(&flag, next())?),
            "--tail-fraction" => tail = Some(fraction(&flag, next())?),
            "--attrs" => attrs = Some(fraction(&flag, next())?),
            "--ptr-callees" => ptr_callees = Some(fraction(&flag, next())?),
            "--sret" => sret = Some(fraction(&flag, next())?),
            "--pair-ret" => pair_ret = Some(fraction(&flag, next())?),
            "--top-attrs" => top_attrs = Some(fraction(&flag, next())?),
            "--buffers" => buffers = Some(fraction(&flag, next())?),
            "--max-buffers" => max_buffers = Some(value(&flag, next())?),
            "--uniform-params" => uniform_params = Some(fraction(&flag, next())?),
            "--linear-params" => linear_params = Some(fraction(&flag, next())?),
            "--records" => records = Some(fraction(&flag, next())?),
            "--recursion" => recursion = Some(fraction(&flag, next())?),
            "--buf-callees" => buf_callees = Some(fraction(&flag, next())?),
            "--tables" => tables = Some(fraction(&flag, next())?),
            "--no-top-level-cc" => no_top_cc = true,
            "--no-top-level-internal" => no_top_internal = true,
            "--self-test" => opts.engine = Engine::ScalarLoop,
            "--attr-check" => opts.engine = Engine::AttrCheck,
            "--map" => opts.engine = Engine::Map,
            "--bucket" => opts.bucket = true,
            "--for-autodiff" => opts.for_autodiff = true,
            "--map-form" => {
                let v: String = value(&flag, next())?;
                opts.map_form = batchify_core::map_entry::MapForm::parse(&v)
                    .ok_or_else(|| format!("--map-form: unknown form `{v}` (adaptive, refill or grouped)"))?;
            }
            "--refill-groups" => {
                let g: u32 = value(&flag, next())?;
                if !(1..=2).contains(&g) {
                    return Err(format!("--refill-groups: {g} lane groups (1 or 2)"));
                }
                opts.refill_groups = Some(g);
            }
            "--enzyme-reverse" => enzyme_reverse = true,
            "--timeout" => {
                let secs: u64 = value(&flag, next())?;
                opts.timeout = (secs > 0).then(|| Duration::from_secs(secs));
            }
            "--threads" => {
                opts.threads = value(&flag, next())?;
                if opts.threads == 0 {
                    return Err("--threads must be at least 1".into());
                }
            }
            "--dump" => dump = true,
            "--tunings" => {
                let v: String = value(&flag, next())?;
                tunings = if v == "all" {
                    TUNINGS.to_vec()
                } else {
                    v.split(',')
                        .map(|n| Tuning::named(n).ok_or(format!("--tunings: unknown tuning `{n}`")))
                        .collect::<Result<_, _>>()?
                };
            }
            "-h" | "--help" => return Ok(None),
            _ => return Err(format!("unknown argument `{a}`")),
        }
    }
    // `--isa` names an x86 ISA, or with --arch aarch64 neon or sve.
    let mut sve_isa = false;
    if let Some(v) = &isa_flag {
        match (arch.is_some(), v.as_str()) {
            (true, "neon" | "advsimd" | "n") => {}
            (true, "sve" | "s") => sve_isa = true,
            (true, _) => return Err(format!("--isa: `{v}` is not neon or sve (with --arch aarch64)")),
            (false, _) => {
                opts.isa =
                    fuzz::isa_from_flag(v).ok_or(format!("--isa: `{v}` is not one of llvm, sse, avx, avx2, avx512"))?;
            }
        }
    }
    if sve_vqs.is_some() && !sve_isa {
        return Err("--sve-vq needs --arch aarch64 --isa sve".into());
    }
    if sve_isa && width_given {
        return Err("--width does not apply to --isa sve (its lanes are vscale x K, K from the types)".into());
    }
    let base = match (straight, enzyme_reverse) {
        (true, false) => GenConfig::straight_line(),
        (true, true) => {
            GenConfig { float_params: fuzz_enzyme::gen_config().float_params, ..GenConfig::straight_line() }
        }
        (false, true) => fuzz_enzyme::gen_config(),
        (false, false) => GenConfig::default(),
    };
    opts.gen = GenConfig {
        max_depth: max_depth.unwrap_or(base.max_depth),
        max_stmts: max_stmts.unwrap_or(base.max_stmts),
        max_total_stmts: max_total_stmts.unwrap_or(base.max_total_stmts),
        max_trip: max_trip.unwrap_or(base.max_trip),
        p_array: arrays.unwrap_or(base.p_array),
        p_helper: callees.unwrap_or(base.p_helper),
        max_helpers: max_callees.unwrap_or(base.max_helpers),
        p_cc: cc.unwrap_or(base.p_cc),
        p_tail: tail.unwrap_or(base.p_tail),
        p_attrs: attrs.unwrap_or(base.p_attrs),
        p_ptr_helper: ptr_callees.unwrap_or(base.p_ptr_helper),
        p_sret: sret.unwrap_or(base.p_sret),
        p_pair_ret: pair_ret.unwrap_or(base.p_pair_ret),
        p_top_attrs: top_attrs.unwrap_or(base.p_top_attrs),
        top_level_cc: !no_top_cc && base.top_level_cc,
        top_level_internal: !no_top_internal && base.top_level_internal,
        p_buffers: buffers.unwrap_or(if opts.engine == Engine::Map { 0.0 } else { base.p_buffers }),
        max_buffers: max_buffers.unwrap_or(base.max_buffers),
        p_uniform_param: uniform_params.unwrap_or(base.p_uniform_param),
        p_linear_param: linear_params.unwrap_or(base.p_linear_param),
        p_record: records.unwrap_or(base.p_record),
        p_recursive: recursion.unwrap_or(base.p_recursive),
        p_buf_helper: buf_callees.unwrap_or(if opts.engine == Engine::Map { 0.0 } else { base.p_buf_helper }),
        p_tables: tables.unwrap_or(base.p_tables),
        ..base
    };
    let aarch64 = arch.map(|()| CrossOptions {
        isa: if sve_isa {
            CrossIsa::Sve { vqs: sve_vqs.clone().unwrap_or_else(|| sve::DEFAULT_VQS.to_vec()) }
        } else {
            CrossIsa::AdvSimd
        },
        width: width_given.then_some(opts.width),
        masked: masked_given,
        trials: if trials_given { opts.trials } else { CrossOptions::default().trials },
        optimize_fraction: opts.optimize_fraction,
        threads: opts.threads,
        gen: cross_aarch64::restrict(opts.gen.clone()),
        engine: match opts.engine {
            Engine::ScalarLoop if corrupt => CrossEngine::Corrupted,
            Engine::ScalarLoop => CrossEngine::ScalarLoop,
            _ => CrossEngine::Batchify,
        },
        keep_dir: keep_dir.clone(),
        ..CrossOptions::default()
    });
    if aarch64.is_some() && (!matches!(opts.engine, Engine::Batchify | Engine::ScalarLoop) || enzyme_reverse) {
        return Err("--arch aarch64 takes --self-test, not --attr-check, --map or --enzyme-reverse".into());
    }
    Ok(Some(Args { opts, dump, enzyme_reverse, tunings, aarch64 }))
}

/// `--tunings`: `--count` programs per tuning, spread over the clone kinds
/// of `tunings::MATRIX` the host can run; one line per tuning, then the
/// kept failures. A tuning the host cannot run is skipped loudly.
fn fuzz_tunings(args: &Args) -> ExitCode {
    let per_kind = args.opts.count.div_ceil(MATRIX.len()).max(1);
    let mut failed = false;
    let mut lines = Vec::new();
    for t in &args.tunings {
        if let Some(f) = t.missing_feature() {
            let line = format!("tuning {:<20} SKIPPED: the host has no {f}", t.name);
            eprintln!("{line}");
            lines.push(line);
            continue;
        }
        let run = tunings::fuzz_tuning(t, per_kind, args.opts.seed, &args.opts);
        eprintln!("{run}");
        for (kind, missing) in &run.kinds_skipped {
            eprintln!("  skipped clone kind {kind}: the host has no {missing}");
        }
        if run.failed() {
            failed = true;
            print!("{}", run.summary.report());
        }
        lines.push(run.to_string());
    }
    println!("{}", lines.join("\n"));
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// `--arch aarch64`: the cross-compiled oracle, progress every 1000 programs.
fn fuzz_aarch64(count: usize, seed: u64, cross: &CrossOptions) -> ExitCode {
    if let Some(tool) = cross_aarch64::missing_tool() {
        eprintln!("batchify-fuzz: --arch aarch64 needs `{tool}`, which is not installed");
        return ExitCode::from(2);
    }
    if let CrossIsa::Sve { vqs } = &cross.isa {
        let list: Vec<String> = vqs.iter().map(|v| format!("{v} ({} bits)", v * 128)).collect();
        eprintln!("batchify-fuzz: SVE variants at vscale {}", list.join(", "));
    }
    let reported = std::sync::atomic::AtomicUsize::new(0);
    let summary = cross_aarch64::run(count, seed, cross, &|s| {
        let k = s.programs / 1000;
        if reported.fetch_max(k, std::sync::atomic::Ordering::SeqCst) < k {
            eprintln!("{s}");
        }
    });
    print!("{}", summary.report());
    if summary.failed() {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

fn dump(opts: &FuzzOptions) -> bool {
    let mut failed = false;
    for i in 0..opts.count {
        let seed = fuzz::program_seed(opts.seed, i);
        // Print the program before checking it, in case LLVM aborts the process.
        print!("{}", fuzz::generate_for(seed, opts).ir);
        let _ = std::io::Write::flush(&mut std::io::stdout());
        let (program, checked) = fuzz::check_seed(seed, opts);
        if let Some(opt) = &checked.optimized_ir {
            println!("; ---- after default<O2> ----");
            for line in opt.lines() {
                println!(";   {line}");
            }
        }
        if let Some(r) = &checked.report {
            for line in r.lines() {
                println!("; batchify: {line}");
            }
        }
        if let Some(clone) = &checked.clone_ir {
            println!("; ---- the clone ----");
            for line in clone.lines() {
                println!(";   {line}");
            }
        }
        let spec = fuzz::spec_for(&program, opts);
        println!(
            "; clone {} (width {}, {})",
            spec.vector_name,
            spec.width,
            if opts.masked { "masked" } else { "unmasked" }
        );
        println!(
            "; outcome: {}{}",
            checked.outcome,
            if checked.message.is_empty() { String::new() } else { format!(": {}", checked.message) }
        );
        println!();
        failed |= checked.outcome.is_failure();
    }
    failed
}

/// `--dump` for `--enzyme-reverse`: each program, its derivative and clones, and the outcome.
fn dump_enzyme(opts: &FuzzOptions, plugin: &Path) -> bool {
    let dir = tempfile::tempdir().expect("a scratch folder");
    let mut failed = false;
    for i in 0..opts.count {
        let seed = fuzz::program_seed(opts.seed, i);
        let program = fuzz_enzyme::generate_for(seed, opts);
        print!("{}", program.ir);
        if let Ok(request) = fuzz_enzyme::request_ir(&program) {
            print!("{request}");
        }
        let _ = std::io::Write::flush(&mut std::io::stdout());
        let (_, checked) = fuzz_enzyme::check_seed(seed, opts, plugin, dir.path());
        if let Some(ir) = &checked.ir {
            println!("; ---- Enzyme's derivative (fast-math flags off) and the clones ----");
            for line in ir.lines() {
                println!(";   {line}");
            }
        }
        for line in &checked.report {
            println!("; batchify: {line}");
        }
        println!(
            "; outcome: {}{}{}\n",
            checked.outcome,
            if checked.optimized { " (after default<O2>)" } else { "" },
            if checked.message.is_empty() { String::new() } else { format!(": {}", checked.message) }
        );
        failed |= checked.outcome.is_failure();
    }
    failed
}

fn main() -> ExitCode {
    let args = match parse(std::env::args().skip(1)) {
        Ok(Some(a)) => a,
        Ok(None) => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("batchify-fuzz: {e}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    if let Some(cross) = &args.aarch64 {
        return fuzz_aarch64(args.opts.count, args.opts.seed, cross);
    }
    if args.enzyme_reverse {
        let Some(plugin) = enzyme::plugin() else {
            eprintln!(
                "batchify-fuzz: --enzyme-reverse: no Enzyme plugin (ENZYME_PLUGIN, or shared/enzyme/LLVMEnzyme-22.so)"
            );
            return ExitCode::from(2);
        };
        let failed = if args.dump {
            dump_enzyme(&FuzzOptions { keep_ir: true, ..args.opts }, &plugin)
        } else {
            let summary = fuzz_enzyme::run(&args.opts, &plugin, 100, &mut |s| eprintln!("{s}"));
            print!("{}", summary.report());
            summary.failed()
        };
        return if failed { ExitCode::FAILURE } else { ExitCode::SUCCESS };
    }
    if !args.tunings.is_empty() {
        return fuzz_tunings(&args);
    }
    if args.dump {
        let opts = FuzzOptions { keep_ir: true, ..args.opts };
        return if dump(&opts) { ExitCode::FAILURE } else { ExitCode::SUCCESS };
    }
    eprintln!("batchify-fuzz: JIT target {}", args.opts.jit_target.describe());
    let summary = fuzz::run_with_progress(&args.opts, 1000, &mut |s| eprintln!("{s}"));
    print!("{}", summary.report());
    if summary.failed() {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
