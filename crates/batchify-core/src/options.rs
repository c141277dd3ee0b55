//! The options of one batchify run ([`Options`]), the vector math library
//! choice ([`VecLib`]) and the stages `--print-after` names
//! ([`PrintAfter`]). Every stage reads them; they import nothing of the
//! pipeline.

/// Options of one batchify run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    /// Optimisation level applied to the clones (0..=3).
    pub opt_level: u8,
    /// Build a per-lane loop (and report why) when a function holds
    /// something the vectorizer does not handle; otherwise that is an error.
    pub allow_fallback: bool,
    /// Record the analyses of each clone ([`crate::CloneReport::printed`]).
    pub print_analysis: bool,
    /// Record the plan of each clone, every instruction's recipe
    /// ([`crate::CloneReport::printed`], `--print-plan`).
    pub print_plan: bool,
    /// Record the IR after this stage (or every stage) of each clone.
    pub print_after: Option<PrintAfter>,
    /// Vector math library for the functions that are not correctly
    /// rounded (`exp`, `sin`, `pow`, ...); `VecLib::None` keeps them exact
    /// (one scalar call per lane).
    pub veclib: VecLib,
    /// Let the cost stage build the per-lane loop where it estimates the
    /// vector form slower (`cost.rs`; x86 targets, and only with
    /// `allow_fallback`). Off, every legal function is vectorized (the
    /// execution oracle's corpora test the vector form this way).
    pub cost_model: bool,
    /// Build clones for automatic differentiation (`--for-autodiff`,
    /// `docs/autodiff.md`): lanes that left a divergent loop hold their
    /// loop-carried values, live-outs leave loops through the header phis,
    /// and memory is accessed with masked loads/stores or per-lane scalar
    /// accesses, never gathers or scatters.
    pub for_autodiff: bool,
    /// Lanes that left a divergent loop hold their loop-carried values
    /// (each back edge blends with the lane's old value), so they compute
    /// nothing new while other lanes iterate (`docs/semantics.md`);
    /// implied by `for_autodiff`.
    pub hold_finished_lanes: bool,
    /// Build every requested clone as the per-lane loop, without trying the
    /// vector form: the baseline the cost model's choice is judged against
    /// (`cargo xtask judge-cost`, `batchify-judge-cost`).
    pub force_per_lane: bool,
    /// Count each divergent loop's trips and active lanes, and the
    /// adaptive maps' choices, and print them at exit
    /// (`--instrument-lanes`, `emit::instrument`).
    pub instrument_lanes: bool,
    /// Lane groups per trip of the maps' refill workers (1 or 2,
    /// `--refill-groups`); `None`: two where the cost model finds the loop
    /// latency-bound (`crate::refill::lane_groups`).
    pub refill_groups: Option<u32>,
}

/// A vector math library the clones may call (`--veclib`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum VecLib {
    /// None: results stay bit-identical to the scalar code.
    #[default]
    None,
    /// glibc's libmvec (`_ZGV<isa>N<n>v_<name>`, x86-64): at most 4 ulp
    /// from the exact result, as glibc documents it.
    Libmvec,
    /// SLEEF's GNU ABI library (`libsleefgnuabi`, `_ZGVnN<n>v_<name>`,
    /// AArch64 Advanced SIMD): its 1.0-ulp functions.
    Sleef,
}

impl VecLib {
    /// Parses a library name (`none`, `libmvec`, `sleef`).
    pub fn parse(s: &str) -> Option<VecLib> {
        Some(match s {
            "none" => VecLib::None,
            "libmvec" => VecLib::Libmvec,
            "sleef" => VecLib::Sleef,
            _ => return None,
        })
    }

    /// The library's name as `--veclib` spells it.
    pub fn name(self) -> &'static str {
        match self {
            VecLib::None => "none",
            VecLib::Libmvec => "libmvec",
            VecLib::Sleef => "sleef",
        }
    }

    /// Its documented error bound, in ulp from the exact result (`None`
    /// for no library).
    pub const fn max_ulps(self) -> Option<u32> {
        match self {
            VecLib::None => None,
            // glibc wiki, "libmvec": "pass 4-ulp maximum relative error
            // criterion" (x86_64).
            VecLib::Libmvec => Some(4),
            // SLEEF's GNU ABI names are its `_u10` functions: "max error
            // 1.0 ulp" (SLEEF's reference, "Math library").
            VecLib::Sleef => Some(1),
        }
    }

    /// Whether the library is for modules of target `triple` (libmvec:
    /// x86-64, also an empty triple; SLEEF: AArch64). Clones of an ISA the
    /// library has no functions for (SVE, `_LLVM_` on AArch64) keep their
    /// calls exact.
    pub fn fits_triple(self, triple: &str) -> bool {
        let arch = triple.split('-').next().unwrap_or_default();
        match self {
            VecLib::None => true,
            VecLib::Libmvec => matches!(arch, "" | "x86_64"),
            VecLib::Sleef => matches!(arch, "aarch64" | "arm64"),
        }
    }
}

impl Default for Options {
    fn default() -> Self {
        Options {
            opt_level: 2,
            allow_fallback: true,
            print_analysis: false,
            print_plan: false,
            print_after: None,
            veclib: VecLib::None,
            cost_model: true,
            for_autodiff: false,
            hold_finished_lanes: false,
            instrument_lanes: false,
            force_per_lane: false,
            refill_groups: None,
        }
    }
}

/// Stages whose output IR `--print-after` shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PrintAfter {
    /// The prepared scratch copy of the scalar function.
    Prepare,
    /// The clone's body as built (vector code or per-lane loop), before cleanup.
    Emit,
    /// The finished clone: verified and optimised.
    Finish,
    /// All of the above.
    All,
}

impl PrintAfter {
    /// Parses a stage name (`prepare`, `emit`, `finish`, `all`).
    pub fn parse(s: &str) -> Option<PrintAfter> {
        Some(match s {
            "prepare" => PrintAfter::Prepare,
            "emit" => PrintAfter::Emit,
            "finish" => PrintAfter::Finish,
            "all" => PrintAfter::All,
            _ => return None,
        })
    }

    /// Whether this choice shows the IR after `stage`.
    pub(crate) fn includes(self, stage: PrintAfter) -> bool {
        self == PrintAfter::All || self == stage
    }
}
