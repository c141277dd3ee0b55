//! Memory by shape: the form of each varying load and store, chosen from
//! the stride of its address ([`crate::analysis::shape`]).
//!
//! | address | load | store |
//! | --- | --- | --- |
//! | uniform | (the load is uniform: one scalar load) | the last active lane's value, one scalar store |
//! | contiguous (step = element size) | one vector load | one vector store |
//! | reversed (step = -element size) | one vector load, reversed | reversed, one vector store |
//! | strided (step = 2 elements of 4 or 8 bytes) | one wide load of the span, shuffled | shuffled, one wide store |
//! | a small constant table at a varying index | one register permute | - |
//! | anything else | masked gather | masked scatter |
//!
//! Where the stride is [`checked`](crate::analysis::shape::Stride::checked),
//! the vector and wide forms test at run time that no extension wrapped
//! between the first and the last active lane, and gather or scatter if one
//! did. The emitter (`emit/memory.rs`, `emit/tables.rs`) builds what this
//! module chose.

use crate::analysis::callees::is_interposable;
use crate::analysis::shape::{Shapes, Stride};
use crate::llvm::{constant, LLVMTypeKind, Module, Type, Value};
use crate::vfabi::Isa;

/// How a varying access is made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// One vector access; `reverse` for a negative unit stride.
    Contiguous {
        /// Lanes run from the highest address down.
        reverse: bool,
    },
    /// One wide access over `N·m` elements, of which every `m`-th is a lane's.
    Strided {
        /// Elements from one lane's to the next.
        m: u32,
    },
    /// A load from a small constant table held in `registers` vector
    /// registers of `width` elements: per register of lanes, one permute
    /// (`intrinsic`) per `sources` table registers by the lanes' indices,
    /// and a select by the next index bits between the permutes' results.
    TablePermute {
        /// The permute intrinsic: `sources` table registers, then (for two
        /// sources, between them) the indices.
        intrinsic: &'static str,
        /// Table registers one permute reads (1, or 2 for AVX-512's
        /// `vpermi2var`).
        sources: u32,
        /// Registers the table fills (1 to [`MAX_TABLE_REGISTERS`]).
        registers: u32,
        /// Elements of one register.
        width: u32,
    },
    /// One field of an interleave group (`super::interleave`): the group's
    /// first load reads the `m`-element structures of the active lanes
    /// once (the `fields` bits), each member takes its `field` by a
    /// shuffle.
    Interleaved {
        /// Elements from one lane's structure to the next.
        m: u32,
        /// This load's field.
        field: u32,
        /// The fields the group reads, one bit each.
        fields: u32,
    },
    /// A gather (loads) or scatter (stores), for the reason given.
    Gather(&'static str),
    /// A store of a varying value at a uniform address: the last active
    /// lane's value, one scalar store.
    LastLane,
}

impl Access {
    /// The form's name in `--print-plan` and `--report`.
    pub fn name(self, load: bool) -> String {
        match self {
            Access::Contiguous { reverse: false } => "vector access".into(),
            Access::Contiguous { reverse: true } => "reversed vector access".into(),
            Access::Strided { m } => format!("wide access, stride {m} elements"),
            Access::Interleaved { m, field, .. } => format!("interleaved access, field {field} of {m}"),
            Access::TablePermute { registers: 1, .. } => "table permute".into(),
            Access::TablePermute { registers, .. } => format!("table permute, {registers} registers"),
            Access::Gather(why) => format!("{} ({why})", if load { "gather" } else { "scatter" }),
            Access::LastLane => "last active lane's value".into(),
        }
    }
}

/// A varying access's form, and whether its vector form is checked at run
/// time (gathering where the check fails).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemoryRecipe {
    /// The form.
    pub access: Access,
    /// The stride holds only after a run-time test.
    pub checked: bool,
    /// Without masked intrinsics (`--for-autodiff`, which Enzyme
    /// differentiates): a plain vector access under a full mask, else one
    /// scalar access per element whose mask bit is set.
    pub lanewise: bool,
}

/// The metadata flag of a load or store that few lanes run at a time (a
/// refill worker's element reads and result writes, `crate::refill`): its
/// gather or scatter under a partial mask becomes a loop over the active
/// lanes, like a per-lane call (`emit::lane_loop`), instead of `N` lane tests or a gather of
/// mostly inactive lanes.
pub const SPARSE_ACCESS: &str = "batchify.sparse";

/// Whether `i` carries [`SPARSE_ACCESS`].
pub fn is_sparse(i: Value) -> bool {
    i.metadata_node(SPARSE_ACCESS).is_some()
}

/// The largest stride, in elements, that is read as one wide access. At 4
/// elements (`aos_norm` in `cargo xtask bench-gcc`, AVX2 on znver1) the four
/// masked loads and shuffles per access were slower than a gather.
const MAX_STRIDE_ELEMENTS: i64 = 2;

/// The form of varying load `i` (a load whose result has a lane form), or
/// `None` where its address is uniform (then it runs once per lane).
pub fn load_recipe<'ctx>(
    module: Module<'ctx>,
    shapes: &Shapes<'ctx>,
    varying: impl Fn(Value<'ctx>) -> bool,
    isa: Isa,
    n: u32,
    i: Value<'ctx>,
) -> Option<MemoryRecipe> {
    let ptr = i.operand(0);
    if !varying(ptr) {
        return None;
    }
    let stride = shapes.stride(ptr);
    let access = by_stride(module, stride, i.ty());
    if let Access::Gather(_) = access {
        if let Some(access) = table_permute(isa, n, i) {
            return Some(MemoryRecipe { access, checked: false, lanewise: false });
        }
        return Some(MemoryRecipe { access, checked: false, lanewise: false });
    }
    Some(MemoryRecipe { access, checked: stride.is_some_and(|s| s.checked()), lanewise: false })
}

/// The form of varying store `i` (one whose value or address is varying),
/// or `None` where the stored value has no lane form.
pub fn store_recipe<'ctx>(
    module: Module<'ctx>,
    shapes: &Shapes<'ctx>,
    varying: impl Fn(Value<'ctx>) -> bool,
    i: Value<'ctx>,
) -> Option<MemoryRecipe> {
    let (val, ptr) = (i.operand(0), i.operand(1));
    if !val.ty().is_vector_element() {
        return None;
    }
    if !varying(ptr) {
        return Some(MemoryRecipe { access: Access::LastLane, checked: false, lanewise: false });
    }
    let stride = shapes.stride(ptr);
    let access = by_stride(module, stride, val.ty());
    let checked = !matches!(access, Access::Gather(_)) && stride.is_some_and(|s| s.checked());
    Some(MemoryRecipe { access, checked, lanewise: false })
}

/// How to access elements of type `ty` at addresses with this stride.
fn by_stride(module: Module, stride: Option<Stride>, ty: Type) -> Access {
    let Some(stride) = stride else { return Access::Gather("the address has no constant stride") };
    if !is_plain_element(ty) {
        return Access::Gather("the element type has no plain vector layout");
    }
    let size = module.abi_size_of(ty) as i64;
    let step = stride.step;
    if step == size {
        Access::Contiguous { reverse: false }
    } else if step == -size {
        Access::Contiguous { reverse: true }
    } else if step > 0 && step % size == 0 && (size == 4 || size == 8) && step / size <= MAX_STRIDE_ELEMENTS {
        Access::Strided { m: (step / size) as u32 }
    } else {
        Access::Gather("the stride is not 1 or 2 elements")
    }
}

/// Integers of 8 to 64 bits, `half`, `float`, `double` and pointers: types
/// whose vectors are laid out in memory like arrays.
pub fn is_plain_element(t: Type) -> bool {
    match t.kind() {
        LLVMTypeKind::LLVMIntegerTypeKind => matches!(t.int_width(), 8 | 16 | 32 | 64),
        LLVMTypeKind::LLVMHalfTypeKind
        | LLVMTypeKind::LLVMFloatTypeKind
        | LLVMTypeKind::LLVMDoubleTypeKind
        | LLVMTypeKind::LLVMPointerTypeKind => true,
        _ => false,
    }
}

/// The most registers a constant table may fill and still be read by
/// permutes: four permutes and three selects per register of lanes on AVX2
/// (two permutes and one select on AVX-512) against a gather.
pub const MAX_TABLE_REGISTERS: u32 = 4;

/// The permutes that read load `i` from a small constant table for `n`
/// lanes on `isa`, if `i` is such a load (see `emit/tables.rs` for why
/// this is exact): a non-volatile load of a 32-bit element of a constant
/// table of at most [`MAX_TABLE_REGISTERS`] registers, at one varying
/// index, for a lane count that is a power of two below one register or a
/// multiple of one.
fn table_permute(isa: Isa, n: u32, i: Value) -> Option<Access> {
    if i.is_volatile() || i.is_atomic() || !n.is_power_of_two() {
        return None;
    }
    let (width, one, two) = permute_intrinsics(isa, i.ty())?;
    if n > width && !n.is_multiple_of(width) {
        return None;
    }
    let (elements, _) = table_and_index(i)?;
    let registers = (elements.len() as u32).div_ceil(width);
    if registers == 0 || registers > MAX_TABLE_REGISTERS {
        return None;
    }
    let (intrinsic, sources) = match two {
        Some(two) if registers > 1 => (two, 2),
        _ => (one, 1),
    };
    Some(Access::TablePermute { intrinsic, sources, registers, width })
}

/// The table a load reads and the index it reads at: `(elements, index)`.
pub fn table_and_index<'ctx>(i: Value<'ctx>) -> Option<(Vec<Value<'ctx>>, Value<'ctx>)> {
    let gep = i.operand(0);
    if !gep.is_instruction() || !gep.is_gep_instruction() {
        return None;
    }
    let g = gep.operand(0);
    if !g.is_global_variable() || !g.is_global_constant() || g.is_thread_local() || is_interposable(g) {
        return None;
    }
    let init = g.initializer()?;
    let table_ty = g.global_value_type();
    if table_ty.kind() != LLVMTypeKind::LLVMArrayTypeKind {
        return None;
    }
    let source = gep.gep_source_type();
    let index = match gep.num_operands() {
        // getelementptr T, ptr @g, idx
        2 if source == i.ty() => gep.operand(1),
        // getelementptr [K x T], ptr @g, 0, idx
        3 if source == table_ty && gep.operand(1).const_int_value() == Some(0) => gep.operand(2),
        _ => return None,
    };
    let len = table_ty.members().len() as u32;
    if table_ty.element() == i.ty() {
        let elements: Option<Vec<Value>> = (0..len).map(|k| init.aggregate_element(k)).collect();
        return Some((elements?, index));
    }
    // Rust's statics are byte arrays: `[32 x i8]` read as 8 `float`s.
    let byte = table_ty.element().kind() == LLVMTypeKind::LLVMIntegerTypeKind && table_ty.element().int_width() == 8;
    if !byte || !len.is_multiple_of(4) {
        return None;
    }
    let bytes: Option<Vec<u64>> = (0..len).map(|k| init.aggregate_element(k)?.const_int_value()).collect();
    let bytes = bytes?;
    let elements: Option<Vec<Value>> = bytes
        .chunks(4)
        .map(|b| {
            // Little-endian: the ISAs of the permutes are x86's.
            let bits = (b[0] | b[1] << 8 | b[2] << 16 | b[3] << 24) as u32;
            match i.ty().kind() {
                LLVMTypeKind::LLVMFloatTypeKind => {
                    let x = f32::from_bits(bits);
                    // A NaN's payload might not survive the trip through `double`.
                    (!x.is_nan()).then(|| constant::real(i.ty(), x as f64))
                }
                _ => Some(constant::int(i.ty(), bits as u64)),
            }
        })
        .collect();
    Some((elements?, index))
}

/// The permutes of 32-bit `ty` elements on `isa`, if it has them: the
/// register's width in elements, the one-source permute and the
/// two-source one (AVX-512's `vpermi2var`).
fn permute_intrinsics(isa: Isa, ty: Type) -> Option<(u32, &'static str, Option<&'static str>)> {
    let float = ty.kind() == LLVMTypeKind::LLVMFloatTypeKind;
    let int32 = ty.kind() == LLVMTypeKind::LLVMIntegerTypeKind && ty.int_width() == 32;
    match (isa, float, int32) {
        (Isa::Avx2, true, _) => Some((8, "llvm.x86.avx2.permps", None)),
        (Isa::Avx2, _, true) => Some((8, "llvm.x86.avx2.permd", None)),
        (Isa::Avx512, true, _) => {
            Some((16, "llvm.x86.avx512.permvar.sf.512", Some("llvm.x86.avx512.vpermi2var.ps.512")))
        }
        (Isa::Avx512, _, true) => {
            Some((16, "llvm.x86.avx512.permvar.si.512", Some("llvm.x86.avx512.vpermi2var.d.512")))
        }
        _ => None,
    }
}
