//! Bounded fuzzing runs: random programs from `batchify_testkit::gen`,
//! batched and checked by the oracle (longer runs: the `batchify-fuzz` binary).

use batchify_testkit::fuzz::{self, Engine, FuzzOptions, FuzzSummary};
use batchify_testkit::gen::GenConfig;

fn assert_clean(s: &FuzzSummary, min_ok_fraction: f64) {
    eprintln!("{}", s.report());
    assert!(!s.failed(), "{}", s.report());
    assert_eq!(s.oracle_setup_errors, 0, "{}", s.report());
    assert!(
        s.ok as f64 >= min_ok_fraction * s.programs as f64,
        "only {} of {} programs were checked:\n{}",
        s.ok,
        s.programs,
        s.report()
    );
}

/// Straight-line programs (a single basic block after mem2reg, also after
/// `default<O2>`): what batchify handles without divergent control flow.
#[test]
fn straight_line_programs_batch_and_check() {
    let opts = FuzzOptions {
        count: 300,
        seed: 0x5_7a1,
        width: 8,
        masked: false,
        optimize_fraction: 0.3,
        gen: GenConfig::straight_line(),
        ..FuzzOptions::default()
    };
    let s = fuzz::run(&opts);
    assert_eq!(s.programs, 300);
    assert!(s.optimized > 30, "too few optimised programs: {s}");
    assert_clean(&s, 1.0);
}

/// The full generator against a per-lane reference clone: every program
/// parses, verifies, terminates and gives the same results twice, masked and
/// optimised or not. This tests the generator and the harness, not batchify.
#[test]
fn full_programs_run_against_a_reference_clone() {
    let opts = FuzzOptions {
        count: 200,
        seed: 0xf0_0d,
        width: 4,
        masked: true,
        optimize_fraction: 0.3,
        engine: Engine::ScalarLoop,
        ..FuzzOptions::default()
    };
    let s = fuzz::run(&opts);
    assert_clean(&s, 1.0);
}

/// Programs with several helpers each (calling conventions, `tail` calls,
/// attributes, pointer, `byval` and `sret` helpers) against a reference
/// clone that calls the same program generated without its optional
/// attributes, all through `default<O2>`: checks that every attribute the
/// generator writes holds. This tests the generator, not batchify.
#[test]
fn generated_attributes_hold() {
    let opts = FuzzOptions {
        count: 300,
        seed: 0xa77,
        width: 4,
        masked: true,
        optimize_fraction: 1.0,
        engine: Engine::AttrCheck,
        gen: GenConfig {
            p_helper: 1.0,
            p_ptr_helper: 0.4,
            p_sret: 0.3,
            p_attrs: 1.0,
            p_top_attrs: 1.0,
            ..GenConfig::default()
        },
        ..FuzzOptions::default()
    };
    let s = fuzz::run(&opts);
    assert_eq!(s.optimized, 300);
    assert_clean(&s, 1.0);
}

/// The bounded CI run: default generator (divergent branches, loops,
/// switches, early returns, irreducible cycles, helper calls, recursion,
/// buffers, uniform and linear parameters, recorder calls, private arrays),
/// random masks. Private arrays are vectorized (private memory), and so
/// are the rare irreducible cycles (node splitting); the rest of the
/// per-lane fallbacks are checked all the same (1,439 of 1,500 vectorized
/// at 3f8424c, before node splitting), hence the 90% floor.
#[test]
fn fuzz_width8_masked() {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let opts = FuzzOptions { count: 1500, seed: 0xba7c, width: 8, masked: true, threads, ..FuzzOptions::default() };
    assert_clean(&fuzz::run(&opts), 0.9);
}

/// AVX2 variants in GCC's ABI: the x86 lowering of the clone (masks kept
/// at full width across blocks, `finish/masks.rs`; mask and wide values in
/// register-sized pieces) under random masks, checked like any clone.
/// Skips loudly without AVX2 (CI requires it).
#[test]
fn fuzz_avx2_masked_and_unmasked() {
    if !batchify_testkit::skip::require_cpu("fuzz_avx2_masked_and_unmasked", "avx2") {
        return;
    }
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let isa = batchify_core::vfabi::Isa::Avx2;
    for (masked, seed) in [(true, 0xa2_0000), (false, 0xa2_1000)] {
        let opts = FuzzOptions { count: 300, seed, width: 8, masked, threads, isa, ..FuzzOptions::default() };
        assert_clean(&fuzz::run(&opts), 0.9);
    }
}

/// Programs whose batched module then goes through LLVM's `default<O2>`, as
/// a user's build of batchify's output does (`--post-opt-fraction 1`):
/// the clone must survive the user's optimiser, not only batchify's own
/// pipeline (the masked-load fold of `finish/masked_loads.rs` is the kind
/// of defect only a later `instcombine` may meet). Target-independent and
/// AVX2 clones, with buffers.
#[test]
fn fuzz_through_users_o2() {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let gen = GenConfig { p_buffers: 0.8, ..GenConfig::default() };
    let opts = FuzzOptions {
        count: 200,
        seed: 0x0b2_0000,
        width: 8,
        masked: true,
        post_optimize_fraction: 1.0,
        threads,
        gen,
        ..FuzzOptions::default()
    };
    let s = fuzz::run(&opts);
    assert_eq!(s.post_optimized, 200, "every program goes through default<O2> after batching: {s}");
    assert_clean(&s, 0.9);
    if batchify_testkit::skip::require_cpu("fuzz_through_users_o2 avx2", "avx2") {
        let isa = batchify_core::vfabi::Isa::Avx2;
        assert_clean(&fuzz::run(&FuzzOptions { isa, count: 100, seed: 0x0b2_1000, ..opts }), 0.9);
    }
}

/// The default configuration without constant tables (`--tables 0`): it
/// generates every seed's program as the generator did before it had
/// tables, which the regression seeds below were found with.
fn before_tables() -> GenConfig {
    GenConfig { p_tables: 0.0, ..GenConfig::default() }
}

/// The program on which LLVM 22's `instcombine` moved a masked load below a
/// masked store to the same place (`finish/masked_loads.rs`): a lane read
/// its slot, stored to it, and returned the stored value instead of the read
/// one. Target-independent and AVX2 clones (the defect is in the middle end).
#[test]
fn fuzz_masked_load_regression() {
    let seed = 1_107_299_313;
    let opts = FuzzOptions { count: 1, seed, width: 8, masked: true, gen: before_tables(), ..FuzzOptions::default() };
    assert_clean(&fuzz::run(&opts), 1.0);
    if batchify_testkit::skip::require_cpu("fuzz_masked_load_regression avx2", "avx2") {
        let isa = batchify_core::vfabi::Isa::Avx2;
        assert_clean(&fuzz::run(&FuzzOptions { isa, ..opts }), 1.0);
    }
}

/// The AVX2 programs whose gathers or scatters met LLVM 22's EVEX compression
/// defect on AVX-512 hosts (docs/limits.md, "LLVM 22 defects"): a sign test
/// of a full-width mask became `vpmovd2m`, the pass folded it into the
/// `vmovmskps` of a lane loop and erased it, and the gather read a stale mask
/// register. Gathers and scatters now read `icmp ne` of the full-width mask.
/// The defect needs AVX-512 in the CPU the JIT compiles for; on AVX2-only
/// hosts these programs check the same IR without it.
#[test]
fn fuzz_avx2_mask_regressions() {
    if !batchify_testkit::skip::require_cpu("fuzz_avx2_mask_regressions", "avx2") {
        return;
    }
    let isa = batchify_core::vfabi::Isa::Avx2;
    for seed in [1_107_300_943, 1_107_309_038, 1_107_320_998, 1_107_321_120] {
        let opts =
            FuzzOptions { count: 1, seed, width: 8, masked: true, isa, gen: before_tables(), ..FuzzOptions::default() };
        assert_clean(&fuzz::run(&opts), 1.0);
    }
    // `--isa avx2 --unmasked --buffers 0.9 --linear-params 0.6
    // --uniform-params 0.5`: a recorder call per lane next to a gather.
    let gen = GenConfig { p_buffers: 0.9, p_linear_param: 0.6, p_uniform_param: 0.5, ..before_tables() };
    let opts =
        FuzzOptions { count: 1, seed: 2_230_003_610, width: 8, masked: false, isa, gen, ..FuzzOptions::default() };
    assert_clean(&fuzz::run(&opts), 1.0);
}

/// Every program with helpers: calling conventions, attributes, helpers
/// calling helpers, pointer, `byval` and `sret` helpers (per-lane fallbacks
/// of the caller today, which must carry the conventions).
#[test]
fn fuzz_callees_width8_masked() {
    let opts = FuzzOptions {
        count: 300,
        seed: 0xca11,
        width: 8,
        masked: true,
        gen: GenConfig { p_helper: 1.0, p_ptr_helper: 0.3, p_sret: 0.2, ..GenConfig::default() },
        ..FuzzOptions::default()
    };
    // Stack objects (arrays, pointer and `sret` helpers) are private memory
    // now; 293 of 300 were vectorized at 3f8424c.
    assert_clean(&fuzz::run(&opts), 0.9);
}

/// The smoke run of the memory, callee and recorder features, every one
/// turned up: buffer parameters (varying, uniform and linear pointers; i8
/// to double; uniform, linear, strided and random indices; stores under
/// divergent control flow), uniform and linear scalar parameters, local
/// arrays, helpers with bounded recursion, and recorder calls whose log
/// the oracle checks. Local arrays and helpers that take stack pointers
/// are vectorized (private memory); 144 of 150 at 3f8424c.
#[test]
fn fuzz_memory_callees_recorder_width8_masked() {
    let opts = FuzzOptions {
        count: 150,
        seed: 0x3e3,
        width: 8,
        masked: true,
        trials: 12,
        gen: GenConfig {
            p_buffers: 0.9,
            p_uniform_param: 0.3,
            p_linear_param: 0.3,
            p_array: 0.25,
            p_helper: 0.6,
            p_recursive: 0.6,
            p_record: 0.1,
            ..GenConfig::default()
        },
        ..FuzzOptions::default()
    };
    let s = fuzz::run(&opts);
    assert_clean(&s, 0.9);
}

/// The same features at width 4, unmasked, against the per-lane reference
/// clone and through `default<O2>` half the time: the generator's memory
/// accesses stay in bounds and conflict free, recursion ends, and the
/// recorder log of a lane-after-lane clone passes. This tests the
/// generator and the oracle, not batchify.
#[test]
fn memory_and_recorder_programs_run_against_a_reference_clone() {
    let opts = FuzzOptions {
        count: 150,
        seed: 0x3e4,
        width: 4,
        masked: false,
        optimize_fraction: 0.5,
        trials: 12,
        engine: Engine::ScalarLoop,
        gen: GenConfig {
            p_buffers: 1.0,
            p_uniform_param: 0.3,
            p_linear_param: 0.3,
            p_array: 0.25,
            p_helper: 0.6,
            p_recursive: 0.6,
            p_record: 0.1,
            ..GenConfig::default()
        },
        ..FuzzOptions::default()
    };
    assert_clean(&fuzz::run(&opts), 1.0);
}

/// Irreducible cycles in every other statement position they can take
/// (two blocks entered from outside in either order, `goto` style): batchify
/// makes them reducible by node splitting and vectorizes them, so none of
/// these programs may be a per-lane fallback for irreducible control flow,
/// and every clone must match the scalar calls.
#[test]
fn fuzz_irreducible_width8_masked() {
    let opts = FuzzOptions {
        count: 200,
        seed: 0x1_44ed,
        width: 8,
        masked: true,
        optimize_fraction: 0.3,
        gen: GenConfig { p_irreducible: 0.35, ..GenConfig::default() },
        ..FuzzOptions::default()
    };
    let s = fuzz::run(&opts);
    let irreducible =
        s.unsupported_reasons.iter().filter(|(r, _)| r.contains("irreducible")).map(|(_, n)| n).sum::<usize>();
    assert_eq!(irreducible, 0, "irreducible control flow left as a fallback:\n{}", s.report());
    assert_clean(&s, 0.9);
}

/// Unmasked clones at another width.
#[test]
fn fuzz_width4_unmasked() {
    let opts = FuzzOptions { count: 300, seed: 0x4_0000, width: 4, masked: false, ..FuzzOptions::default() };
    assert_clean(&fuzz::run(&opts), 0.9);
}

/// The oracle can fail on the generated memory and recorder programs: a
/// reference clone that calls the scalar function for inactive lanes too
/// (the mask test replaced by `true`) touches inactive lanes' buffers, which
/// are inaccessible (a fault), or records for them (a log mismatch).
#[test]
fn a_clone_that_ignores_the_mask_is_caught() {
    use batchify_testkit::{CheckConfig, Oracle, OracleError};
    let opts = FuzzOptions {
        width: 8,
        masked: true,
        gen: GenConfig { p_buffers: 1.0, p_record: 0.15, ..GenConfig::default() },
        ..FuzzOptions::default()
    };
    let (mut caught, mut total) = (0, 0);
    for seed in 0x3e5_0000..0x3e5_0000 + 40u64 {
        let program = fuzz::generate_for(seed, &opts);
        let spec = fuzz::spec_for(&program, &opts);
        let correct = fuzz::scalar_loop_clone_ir(&program, &spec);
        let broken =
            (0..spec.width).fold(correct.clone(), |ir, k| ir.replace(&format!("br i1 %m.{k},"), "br i1 true,"));
        assert_ne!(broken, correct);
        let ctx = inkwell::context::Context::create();
        let module = fuzz::parse_ir(&ctx, &format!("{}{broken}", program.ir), &program.name).expect("parses");
        module.verify().expect("the broken clone verifies");
        total += 1;
        let oracle = Oracle::new(&module, &[spec]).expect("oracle builds");
        if let Err(OracleError::Mismatch(_)) = oracle.check_all(&CheckConfig { trials: 8, seed }) {
            caught += 1;
        }
    }
    eprintln!("{caught} of {total} mask-ignoring clones caught");
    assert!(caught * 2 >= total, "only {caught} of {total} mask-ignoring clones caught");
}
