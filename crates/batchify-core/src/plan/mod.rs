//! Stage 6, plan: decides once, for every instruction of the prepared
//! function, the form it takes in the clone, its [`Recipe`]. The cost
//! model (`cost.rs`) sums the recipes' costs, `--print-plan` and `--report`
//! print them, and emission (`emit/`) builds what they say. Reads the
//! prepared function and its analyses; changes nothing (the callee registry
//! is asked, not told: declarations are made by emission).
//!
//! | recipe | what the clone does |
//! | --- | --- |
//! | [`Recipe::Uniform`] | one scalar copy (guarded where it may trap or write and no lane may be active) |
//! | [`Recipe::Widened`] | one lane-wise vector instruction (or a short sequence), [`Widen`] says which rule |
//! | [`Recipe::Memory`] | a varying load or store by its address's shape ([`memory::Access`]) |
//! | [`Recipe::Call`] | one call of the callee's clone or declared variant ([`calls::BatchedCall`]) |
//! | [`Recipe::PerLane`] | once per active lane, in lane order (a call: one loop over the active lanes) |
//! | [`Recipe::Deferred`] | a `noreturn` call, deferred to the lowest lane that reaches it |
//! | [`Recipe::Tape`] | a tape's `realloc` (one growth of the lanes' shared buffer) or `free` (at the return) |
//! | [`Recipe::Dropped`] | a hint on varying values (`llvm.assume`, lifetime markers), dropped |
//! | [`Recipe::Control`] | phis and terminators: the control rules (`emit/control.rs`) |
//!
//! A block runs under a *full* mask (every lane known active) only in an
//! unmasked clone, where neither the function body nor any loop around the
//! block is linearized ([`Plan::full`]); everywhere else the mask may be
//! partial, and calls of callee clones pass it.

pub mod calls;
pub mod interleave;
pub mod layout;
pub mod memory;
pub mod print;

use crate::analysis::calls as call_facts;
use crate::analysis::cfg::Cfg;
use crate::analysis::divergence::{ControlPlan, LevelPlan};
use crate::analysis::loops::Loops;
use crate::analysis::private::{PrivateMemory, TapeCall};
use crate::analysis::shape::Shapes;
use crate::analysis::uniformity::Uniformity;
use crate::callee_clones::CalleeClones;
use crate::legality::is_terminator;
use crate::llvm::LLVMOpcode::*;
use crate::llvm::{Block, Module, Value};
use crate::spec::CloneSpec;
use std::collections::{HashMap, HashSet};

pub use calls::{BatchedCall, CallTarget};
pub use memory::{Access, MemoryRecipe};

/// The lane-wise rule a widened instruction is built by (`emit/recipes.rs`
/// and the modules it names).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Widen {
    /// Structs and arrays held as structs of vectors, overflow intrinsics.
    Aggregate,
    /// Values that are vectors already (`<k x T>`).
    PlainVector,
    /// The lanes' copies of private memory (interleaved allocas).
    Private,
    /// `frem` as exact vector code.
    Frem,
    /// Integer division of at most 32 bits through `double`.
    NarrowDivision,
    /// A correctly rounded libm function (`sqrt`, `fabs`, `fmod`, ...).
    ExactMath,
    /// A libm function that may set `errno`, as vector code where no lane
    /// sets it.
    ErrnoMath,
    /// A math function with a vector form: libmvec's (`--veclib libmvec`)
    /// or its intrinsic's.
    VecMath,
    /// In `--for-autodiff` clones, a libm call with an LLVM intrinsic that
    /// Enzyme differentiates in vector form (`log`, `exp`, `sin`, ...): one
    /// vector intrinsic call, plus the real call in the lanes whose input
    /// may set `errno` where the scalar call may write it.
    AutodiffMath,
    /// Integer and float arithmetic, shifts, bitwise logic.
    Arithmetic,
    /// `udiv`, `sdiv`, `urem`, `srem` (divisor 1 in inactive lanes).
    GuardedDivision,
    /// `fneg`.
    Negation,
    /// `icmp`, `fcmp`.
    Comparison,
    /// Casts.
    Conversion,
    /// `select` on a scalar condition.
    Selection,
    /// `freeze`.
    Freeze,
    /// `getelementptr`: a vector of addresses.
    Address,
    /// A lane-wise intrinsic (`llvm.fma`, `llvm.smax`, ...).
    Intrinsic,
    /// `alloca`: the lanes' private copies.
    Alloca,
}

impl Widen {
    /// The rule's name in `--print-plan`.
    pub fn name(self) -> &'static str {
        match self {
            Widen::Aggregate => "aggregate",
            Widen::PlainVector => "vector input",
            Widen::Private => "private (interleaved)",
            Widen::Frem => "frem (exact)",
            Widen::NarrowDivision => "division through double",
            Widen::ExactMath => "exact math",
            Widen::ErrnoMath => "errno math",
            Widen::VecMath => "vector math",
            Widen::AutodiffMath => "vector math for autodiff",
            Widen::Arithmetic => "arithmetic",
            Widen::GuardedDivision => "guarded division",
            Widen::Negation => "negation",
            Widen::Comparison => "comparison",
            Widen::Conversion => "conversion",
            Widen::Selection => "select",
            Widen::Freeze => "freeze",
            Widen::Address => "address",
            Widen::Intrinsic => "intrinsic",
            Widen::Alloca => "private copies",
        }
    }
}

/// What a tape's call does in the clone (`emit/tape.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TapeOp {
    /// `realloc`: grow the shared buffer to `N` times the largest size an
    /// active lane asks for, if it is smaller.
    Grow,
    /// `free`: nothing here; the shared buffer is freed when the clone
    /// returns.
    Free,
}

/// The form one instruction takes in the clone.
#[derive(Debug, Clone, PartialEq)]
pub enum Recipe {
    /// One scalar copy.
    Uniform,
    /// One lane-wise vector form.
    Widened(Widen),
    /// A varying load (`load` true) or store.
    Memory {
        /// Whether it is a load.
        load: bool,
        /// Its form.
        recipe: MemoryRecipe,
    },
    /// A call of a callee clone or declared variant.
    Call(BatchedCall),
    /// Once per active lane; the reason, for calls of module functions
    /// that could have been batched.
    PerLane(Option<String>),
    /// A `noreturn` call deferred to the lowest lane that reaches it.
    Deferred,
    /// A cross-lane operation, lowered inline over the block's mask
    /// (`emit::cross_lane`); uniform or varying as its operation says.
    CrossLane(crate::analysis::cross_lane::Op),
    /// A tape's `realloc` or `free` (`analysis::tape`): one growth of the
    /// buffer the lanes share, or nothing until the clone returns.
    Tape(TapeOp),
    /// A hint dropped.
    Dropped,
    /// Phis and terminators.
    Control,
}

/// The recipes of one clone.
pub struct Plan<'ctx> {
    recipes: HashMap<Value<'ctx>, Recipe>,
    full: HashSet<Block<'ctx>>,
    interleaved: HashMap<Value<'ctx>, interleave::Member<'ctx>>,
}

/// What the plan reads.
pub struct Inputs<'a, 'ctx> {
    /// The module (type sizes, callees' variants).
    pub module: Module<'ctx>,
    /// The clone's spec.
    pub spec: &'a CloneSpec,
    /// CFG of the prepared function.
    pub cfg: &'a Cfg<'ctx>,
    /// Its loops.
    pub loops: &'a Loops<'ctx>,
    /// Value uniformity.
    pub uniformity: &'a Uniformity<'ctx>,
    /// Which levels are linearized.
    pub control: &'a ControlPlan<'ctx>,
    /// Strides.
    pub shapes: &'a Shapes<'ctx>,
    /// Private memory layout.
    pub private: &'a PrivateMemory<'ctx>,
    /// The vector math library (`--veclib`).
    pub veclib: crate::options::VecLib,
    /// Clones for automatic differentiation: memory recipes without masked
    /// intrinsics ([`MemoryRecipe::lanewise`]).
    pub for_autodiff: bool,
}

impl<'ctx> Plan<'ctx> {
    /// The recipes for the prepared function the inputs describe.
    pub fn build(inputs: &Inputs<'_, 'ctx>, callees: &mut CalleeClones<'ctx>) -> Plan<'ctx> {
        // Every level from the function body down to the block's innermost
        // loop is emitted as real control flow.
        let real = |mut l: Option<crate::analysis::loops::LoopId>| loop {
            if inputs.control.levels[&l].linear {
                return false;
            }
            match l {
                None => return true,
                Some(id) => l = inputs.loops.loops[id.0].parent,
            }
        };
        let full: HashSet<Block> = inputs
            .cfg
            .rpo
            .iter()
            .copied()
            .filter(|b| inputs.spec.mask.is_none() && real(inputs.loops.innermost.get(b).copied()))
            .collect();
        let mut recipes = HashMap::new();
        let mut interleaved = HashMap::new();
        for b in &inputs.cfg.rpo {
            let in_full = full.contains(b);
            for i in b.instructions() {
                recipes.insert(i, recipe_of(inputs, callees, i, in_full));
            }
            interleave::plan_block(inputs.module, inputs.shapes, *b, &mut recipes, &mut interleaved);
        }
        Plan { recipes, full, interleaved }
    }

    /// The interleave group of load `i`, if its recipe is
    /// [`Access::Interleaved`].
    pub fn interleave_member(&self, i: Value<'ctx>) -> Option<interleave::Member<'ctx>> {
        self.interleaved.get(&i).copied()
    }

    /// The recipe of instruction `i` of the prepared function.
    pub fn recipe(&self, i: Value<'ctx>) -> &Recipe {
        &self.recipes[&i]
    }

    /// Whether every lane is known active in block `b`.
    pub fn full(&self, b: Block<'ctx>) -> bool {
        self.full.contains(&b)
    }

    /// The plan as text (`--print-plan`): each block with its mask, each
    /// instruction with its recipe.
    pub fn render(&self, cfg: &Cfg<'ctx>) -> String {
        print::render(self, cfg)
    }
}

/// Checks that every call of a module function that uses cross-lane
/// operations is planned as a call of the callee's clone: run once per lane
/// it would see a group of one.
pub fn check_group_calls(f: Value, recipes: &Plan, function: &str) -> crate::error::Result<()> {
    use crate::analysis::cross_lane;
    let group = cross_lane::group_callees(f);
    for b in f.blocks() {
        for i in b.instructions() {
            if !i.is_call() || !group.contains(&i.called_value()) {
                continue;
            }
            let callee = i.called_value();
            let why = match recipes.recipe(i) {
                Recipe::Call(_) => continue,
                Recipe::PerLane(Some(why)) => why.clone(),
                _ => "it has no batched form".to_string(),
            };
            let (holder, op) = cross_lane::first_use(callee).expect("a group callee uses an operation");
            let inside = if holder == callee.name() { String::new() } else { format!(" (in `{holder}`)") };
            return Err(crate::error::Error::CrossLane {
                function: function.to_string(),
                message: format!(
                    "it calls `{}`, which uses the cross-lane operation `{op}`{inside}, but the call cannot be a \
                     call of its clone: {why}",
                    callee.name()
                ),
            });
        }
    }
    Ok(())
}

/// The weight (instructions, with calls, divisions and memory accesses
/// counting extra) from which a block of a linear level is skipped when no
/// lane is in it.
pub const SKIP_WEIGHT: u32 = 16;

/// Whether block `b` of a linear level (planned as `level`) runs behind an
/// any-lane test, skipped when no lane is in it: heavy enough that the test
/// and a branch cost less than running it for no lane, and an ordinary
/// block (no return, no deferred `noreturn` call, no uniform region kept
/// inside). A gather, a scatter or a per-lane instruction weighs as much as
/// a call: even with no lane set it costs its full latency (AVX2's masked
/// gathers) or a test per lane; a block with a sparse access (a refill
/// worker's element reads and result writes, `memory::SPARSE_ACCESS`)
/// is always skipped. Emission skips such blocks unless it knows some lane
/// is there.
pub fn worth_skipping(level: &LevelPlan, recipes: &Plan, b: Block) -> bool {
    let term = b.terminator().expect("blocks have terminators");
    if !matches!(term.opcode(), LLVMBr | LLVMSwitch) || level.regions.contains_key(&b) {
        return false;
    }
    let mut weight = 0;
    let mut sparse = false;
    for i in b.instructions() {
        if call_facts::is_deferrable(i) {
            return false;
        }
        // A refill worker's element reads and result writes run in few
        // trips: their blocks are skipped in the others.
        sparse |= memory::is_sparse(i);
        let lane_by_lane = match recipes.recipes.get(&i) {
            Some(Recipe::Memory { recipe, .. }) => matches!(recipe.access, memory::Access::Gather(_)),
            Some(Recipe::PerLane(_)) => true,
            _ => false,
        };
        weight += match i.opcode() {
            LLVMPHI => 0,
            LLVMCall => 10,
            _ if lane_by_lane => 10,
            LLVMUDiv | LLVMSDiv | LLVMURem | LLVMSRem | LLVMFDiv | LLVMFRem => 8,
            LLVMLoad | LLVMStore => 3,
            _ => 1,
        };
    }
    sparse || weight >= SKIP_WEIGHT
}

/// The recipe of one instruction in a block whose mask is `full` or not.
fn recipe_of<'ctx>(inputs: &Inputs<'_, 'ctx>, callees: &mut CalleeClones<'ctx>, i: Value<'ctx>, full: bool) -> Recipe {
    let op = i.opcode();
    if op == LLVMPHI || is_terminator(op) {
        return Recipe::Control;
    }
    if let Some(op) = crate::analysis::cross_lane::op_of(i) {
        return Recipe::CrossLane(op);
    }
    match inputs.private.tape_call(i) {
        Some(TapeCall::Grow(_)) => return Recipe::Tape(TapeOp::Grow),
        Some(TapeCall::Free(_)) => return Recipe::Tape(TapeOp::Free),
        None => {}
    }
    let varying = |v: Value<'ctx>| inputs.uniformity.is_varying(v);
    if !varying(i) {
        return Recipe::Uniform;
    }
    let mut note = None;
    if op == LLVMCall {
        if call_facts::called_intrinsic(i).is_some_and(|b| call_facts::is_droppable_hint(&b)) {
            return Recipe::Dropped;
        }
        if !call_facts::is_deferrable(i) {
            match calls::batched_call(inputs, callees, i, full) {
                Ok(call) => return Recipe::Call(call),
                Err(why) => note = why,
            }
        }
    }
    if let Some(w) = widen_rule(inputs, i) {
        return w;
    }
    if call_facts::is_deferrable(i) {
        return Recipe::Deferred;
    }
    Recipe::PerLane(note)
}

/// The vector rule for varying instruction `i`, if one applies (else `i`
/// runs once per lane).
fn widen_rule<'ctx>(inputs: &Inputs<'_, 'ctx>, i: Value<'ctx>) -> Option<Recipe> {
    use Widen::*;
    let widened = |w: Widen| Some(Recipe::Widened(w));
    if inputs.private.has_interleaved_form(i) {
        return widened(Private);
    }
    if layout::involves_split(i) {
        return widened(Aggregate);
    }
    if layout::involves_plain_vectors(i) {
        return widened(PlainVector);
    }
    if let Some(w) = exact_math_rule(inputs, i) {
        return w.and_then(widened);
    }
    let varying = |v: Value<'ctx>| inputs.uniformity.is_varying(v);
    let lane_result = i.ty().is_vector_element();
    let lane_operand = || i.num_operands() > 0 && i.operand(0).ty().is_vector_element();
    match i.opcode() {
        LLVMAdd | LLVMFAdd | LLVMSub | LLVMFSub | LLVMMul | LLVMFMul | LLVMFDiv | LLVMFRem | LLVMShl | LLVMLShr
        | LLVMAShr | LLVMAnd | LLVMOr | LLVMXor
            if lane_result =>
        {
            widened(Arithmetic)
        }
        LLVMUDiv | LLVMSDiv | LLVMURem | LLVMSRem if lane_result => widened(GuardedDivision),
        LLVMFNeg if lane_result => widened(Negation),
        LLVMICmp | LLVMFCmp if lane_operand() => widened(Comparison),
        LLVMTrunc | LLVMZExt | LLVMSExt | LLVMFPToUI | LLVMFPToSI | LLVMUIToFP | LLVMSIToFP | LLVMFPTrunc
        | LLVMFPExt | LLVMPtrToInt | LLVMIntToPtr | LLVMBitCast | LLVMAddrSpaceCast | LLVMPtrToAddr
            if lane_result && lane_operand() =>
        {
            widened(Conversion)
        }
        LLVMSelect if lane_result && !i.operand(0).ty().is_vector() => widened(Selection),
        LLVMFreeze if lane_result => widened(Freeze),
        LLVMGetElementPtr if lane_result && i.operands().iter().all(|o| !o.ty().is_vector()) => widened(Address),
        LLVMLoad if lane_result => {
            let (isa, n) = (inputs.spec.isa, inputs.spec.width);
            memory::load_recipe(inputs.module, inputs.shapes, varying, isa, n, i).map(|recipe| Recipe::Memory {
                load: true,
                recipe: MemoryRecipe { lanewise: inputs.for_autodiff && lanewise_form(recipe.access), ..recipe },
            })
        }
        LLVMStore => memory::store_recipe(inputs.module, inputs.shapes, varying, i).map(|recipe| Recipe::Memory {
            load: false,
            recipe: MemoryRecipe { lanewise: inputs.for_autodiff && lanewise_form(recipe.access), ..recipe },
        }),
        LLVMCall if lane_wise_intrinsic_applies(inputs, i) => widened(Intrinsic),
        LLVMAlloca => widened(Alloca),
        _ => None,
    }
}

/// Whether an access form has a lane-wise twin for `--for-autodiff`: the
/// masked vector, wide, gather and scatter forms (a table permute touches
/// no memory; a last-lane store is one scalar store).
fn lanewise_form(access: Access) -> bool {
    !matches!(access, Access::TablePermute { .. } | Access::LastLane)
}

/// The exact-math rules (`emit/libm.rs`): `Some(rule)` where one of them
/// claims `i` (`Some(None)`: claimed, but it runs per lane), `None` where
/// none does.
fn exact_math_rule<'ctx>(inputs: &Inputs<'_, 'ctx>, i: Value<'ctx>) -> Option<Option<Widen>> {
    let ty = i.ty();
    if !ty.is_vector_element() {
        return None;
    }
    let float_or_double = matches!(
        ty.kind(),
        crate::llvm::LLVMTypeKind::LLVMFloatTypeKind | crate::llvm::LLVMTypeKind::LLVMDoubleTypeKind
    );
    match i.opcode() {
        LLVMFRem if float_or_double => Some(Some(Widen::Frem)),
        LLVMUDiv | LLVMSDiv | LLVMURem | LLVMSRem
            if (2..=32).contains(&ty.int_width()) && i.operand(1).const_int_value().is_none() =>
        {
            Some(Some(Widen::NarrowDivision))
        }
        LLVMCall => {
            let scalar_args = (0..i.num_arg_operands()).all(|k| i.operand(k).ty().is_vector_element());
            if !scalar_args {
                return None;
            }
            if let Some(f) = call_facts::exact_libm_call(i) {
                let min_max = matches!(f, call_facts::ExactLibm::Fmin | call_facts::ExactLibm::Fmax);
                let known = !min_max || call_facts::min_max_form(&inputs.module.target_triple()).is_some();
                return Some(known.then_some(Widen::ExactMath));
            }
            if call_facts::errno_libm_call(i).is_some() {
                return Some(Some(Widen::ErrnoMath));
            }
            if inputs.for_autodiff && call_facts::autodiff_math_call(i).is_some() {
                return Some(Some(Widen::AutodiffMath));
            }
            call_facts::vecmath_call(i)?;
            // `--for-autodiff` clones call no vector library (Enzyme has no
            // derivatives of its functions): their intrinsics are lowered
            // after Enzyme (`driver::lower_vector_math`).
            let library = !inputs.for_autodiff
                && call_facts::veclib_symbol(inputs.veclib, inputs.spec.isa, i).is_some_and(|(symbol, fty)| {
                    inputs.module.function(&symbol).is_none_or(|f| f.function_type() == fty)
                });
            let intrinsic = call_facts::called_intrinsic(i).is_some();
            Some((library || intrinsic).then_some(Widen::VecMath))
        }
        _ => None,
    }
}

/// Whether `i` calls an intrinsic with a lane-wise vector form whose
/// scalar-only arguments are uniform.
fn lane_wise_intrinsic_applies<'ctx>(inputs: &Inputs<'_, 'ctx>, i: Value<'ctx>) -> bool {
    let Some(base) = call_facts::called_intrinsic(i) else { return false };
    let Some(lw) = call_facts::lane_wise_intrinsic(&base) else { return false };
    let args: Vec<Value> = (0..i.num_arg_operands()).map(|k| i.operand(k)).collect();
    if args.iter().chain([&i]).any(|v| !v.ty().is_vector_element()) {
        return false;
    }
    args.iter().enumerate().all(|(k, a)| !lw.scalar_args.contains(&(k as u32)) || !inputs.uniformity.is_varying(*a))
}
