//! Fuzzing under several x86 tunings: the same generated programs, checked
//! with the oracle's JIT compiling for other CPUs than the host.
//!
//! Code generation depends on the CPU's tuning, not only on its features
//! (Intel's AVX-512 CPUs and `x86-64-v4` prefer 256-bit vectors, which
//! changes how a 512-bit vector argument travels between functions; see
//! `batchify_core::vector_widths`). [`TUNINGS`] lists the tunings the test
//! command fuzzes; each runs as the named CPU minus the features the host
//! lacks ([`JitTarget`]), and is skipped where the host lacks a feature the
//! tuning is about ([`Tuning::needs`]). [`MATRIX`] is the set of clone kinds
//! each tuning is fuzzed with: masked and unmasked, 4, 8 and 16 lanes,
//! target-independent, AVX2 and AVX-512 variants in GCC's ABI.

use crate::fuzz::{self, FuzzOptions, FuzzSummary};
use crate::gen::GenConfig;
use crate::jit::{host_has_feature, JitTarget};
use batchify_core::vfabi::Isa;
use std::fmt;
use std::time::{Duration, Instant};

/// One tuning the oracle's JIT compiles for.
#[derive(Debug, Clone, Copy)]
pub struct Tuning {
    /// Name in reports (`host`, `skylake-avx512`, `host+prefer-256-bit`).
    pub name: &'static str,
    /// LLVM CPU name; `host` for the host.
    pub cpu: &'static str,
    /// Extra features after the CPU's.
    pub features: &'static str,
    /// Host features without which the tuning is not what it claims to be
    /// (an AVX-512 tuning on a host without AVX-512): it is skipped there.
    pub needs: &'static [&'static str],
}

const AVX512: &[&str] = &["avx512f", "avx512bw", "avx512dq", "avx512vl"];

/// The tunings the test command and `batchify-fuzz --tunings` fuzz: the
/// host, the x86-64 levels 3 and 4, the Intel AVX-512 generations (all
/// prefer 256-bit vectors), Zen 4 (which does not), and the host with
/// `+prefer-256-bit`.
pub const TUNINGS: &[Tuning] = &[
    Tuning { name: "host", cpu: "host", features: "", needs: &[] },
    Tuning { name: "x86-64-v3", cpu: "x86-64-v3", features: "", needs: &["avx2", "fma", "bmi2"] },
    Tuning { name: "x86-64-v4", cpu: "x86-64-v4", features: "", needs: AVX512 },
    Tuning { name: "skylake-avx512", cpu: "skylake-avx512", features: "", needs: AVX512 },
    Tuning { name: "sapphirerapids", cpu: "sapphirerapids", features: "", needs: AVX512 },
    Tuning { name: "znver4", cpu: "znver4", features: "", needs: AVX512 },
    Tuning { name: "host+prefer-256-bit", cpu: "host", features: "+prefer-256-bit", needs: &[] },
];

impl Tuning {
    /// The tuning named `name` in [`TUNINGS`].
    pub fn named(name: &str) -> Option<Tuning> {
        TUNINGS.iter().copied().find(|t| t.name == name)
    }

    /// The JIT target.
    pub fn target(&self) -> JitTarget {
        JitTarget::named(self.cpu, self.features)
    }

    /// The first host feature the tuning needs that the host lacks.
    pub fn missing_feature(&self) -> Option<&'static str> {
        self.needs.iter().copied().find(|f| !host_has_feature(f))
    }

    /// Whether it is an AVX-512 tuning.
    pub fn is_avx512(&self) -> bool {
        self.needs.contains(&"avx512f")
    }
}

/// One kind of clone the fuzzer builds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CloneKind {
    /// Target-independent (`Isa::Llvm`), AVX2 or AVX-512.
    pub isa: Isa,
    /// Masked variant, with random masks.
    pub masked: bool,
    /// Lanes.
    pub width: u32,
}

impl CloneKind {
    /// The host feature its code needs, if any.
    pub fn needs(&self) -> Option<&'static str> {
        match self.isa {
            Isa::Avx2 => Some("avx2"),
            Isa::Avx512 => Some("avx512f"),
            _ => None,
        }
    }
}

impl fmt::Display for CloneKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let masked = if self.masked { "masked" } else { "unmasked" };
        write!(f, "{} {masked} x{}", fuzz::isa_flag(self.isa), self.width)
    }
}

const fn kind(isa: Isa, masked: bool, width: u32) -> CloneKind {
    CloneKind { isa, masked, width }
}

/// Every clone kind, in the order they run.
pub const MATRIX: &[CloneKind] = &[
    kind(Isa::Llvm, true, 8),
    kind(Isa::Llvm, false, 8),
    kind(Isa::Llvm, true, 4),
    kind(Isa::Llvm, false, 16),
    kind(Isa::Llvm, true, 16),
    kind(Isa::Llvm, false, 4),
    kind(Isa::Avx2, true, 8),
    kind(Isa::Avx2, false, 8),
    kind(Isa::Avx2, true, 4),
    kind(Isa::Avx2, false, 16),
    kind(Isa::Avx2, true, 16),
    kind(Isa::Avx2, false, 4),
    kind(Isa::Avx512, true, 16),
    kind(Isa::Avx512, false, 16),
    kind(Isa::Avx512, true, 8),
    kind(Isa::Avx512, false, 8),
    kind(Isa::Avx512, true, 4),
    kind(Isa::Avx512, false, 4),
];

/// Generator settings of the matrix: more helper functions (whose clones
/// take the wide vectors), buffers and recorder calls than the defaults.
pub fn matrix_gen() -> GenConfig {
    GenConfig { p_helper: 0.5, p_buffers: 0.5, p_record: 0.08, ..GenConfig::default() }
}

/// What fuzzing one tuning found.
#[derive(Debug, Clone, Default)]
pub struct TuningRun {
    /// The tuning's name.
    pub name: String,
    /// The JIT target, described.
    pub target: String,
    /// All clone kinds' counts together (failures of every kind kept).
    pub summary: FuzzSummary,
    /// Clone kinds run.
    pub kinds_run: usize,
    /// Clone kinds skipped, each with the host feature it lacks.
    pub kinds_skipped: Vec<(CloneKind, &'static str)>,
    /// Wall time.
    pub elapsed: Duration,
}

impl TuningRun {
    /// Whether a mismatch, invalid IR, panic or oracle setup error was found.
    pub fn failed(&self) -> bool {
        self.summary.failed() || self.summary.oracle_setup_errors > 0
    }
}

impl fmt::Display for TuningRun {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = &self.summary;
        write!(
            f,
            "tuning {:<20} {} programs, {} mismatches, {} invalid IR, {} panics, {} oracle setup errors, {} per-lane \
             fallbacks, {} lanes compared ({} of {} clone kinds; JIT {}; {:.0} s)",
            self.name,
            s.programs,
            s.mismatches,
            s.invalid_ir,
            s.panics,
            s.oracle_setup_errors,
            s.fallbacks,
            s.lanes_compared,
            self.kinds_run,
            self.kinds_run + self.kinds_skipped.len(),
            self.target,
            self.elapsed.as_secs_f64()
        )
    }
}

/// Fuzzes `tuning` with `per_kind` programs of each clone kind of
/// [`MATRIX`] the host can run, seeds from `seed` on (kind `k` starts at
/// `seed + k * per_kind`, so the kinds check different programs); `base`
/// gives the other options (threads, trials, opt fractions). Failures of
/// up to `base.keep_failures` per kind are kept.
pub fn fuzz_tuning(tuning: &Tuning, per_kind: usize, seed: u64, base: &FuzzOptions) -> TuningRun {
    let start = Instant::now();
    let target = tuning.target();
    let mut run = TuningRun { name: tuning.name.to_string(), target: target.describe(), ..TuningRun::default() };
    for (k, kind) in MATRIX.iter().enumerate() {
        if let Some(missing) = kind.needs().filter(|f| !host_has_feature(f)) {
            run.kinds_skipped.push((*kind, missing));
            continue;
        }
        let opts = FuzzOptions {
            count: per_kind,
            seed: seed + (k * per_kind) as u64,
            width: kind.width,
            masked: kind.masked,
            isa: kind.isa,
            jit_target: target,
            gen: matrix_gen(),
            ..base.clone()
        };
        let s = fuzz::run(&opts);
        run.summary.merge(&s);
        run.kinds_run += 1;
    }
    run.elapsed = start.elapsed();
    run
}
