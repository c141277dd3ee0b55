//! The generated language: its value types ([`Ty`]), the buffer parameters
//! of the top-level function ([`BufParam`]) and the AST a function is
//! generated as before it is lowered.

use batchify_core::vfabi::ParamKind;

/// A value type of the generated language.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Ty {
    /// `i32`.
    I32,
    /// `i64`.
    I64,
    /// `float`.
    F32,
    /// `double`.
    F64,
}

impl Ty {
    /// All types.
    pub const ALL: [Ty; 4] = [Ty::I32, Ty::I64, Ty::F32, Ty::F64];

    /// The LLVM spelling.
    pub fn ir(self) -> &'static str {
        match self {
            Ty::I32 => "i32",
            Ty::I64 => "i64",
            Ty::F32 => "float",
            Ty::F64 => "double",
        }
    }

    /// Whether this is an integer type.
    pub fn is_int(self) -> bool {
        matches!(self, Ty::I32 | Ty::I64)
    }

    pub(super) fn bits(self) -> u32 {
        match self {
            Ty::I32 | Ty::F32 => 32,
            Ty::I64 | Ty::F64 => 64,
        }
    }

    pub(super) fn suffix(self) -> &'static str {
        match self {
            Ty::I32 => "i32",
            Ty::I64 => "i64",
            Ty::F32 => "f32",
            Ty::F64 => "f64",
        }
    }
}

/// The element type of a buffer parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Elem {
    /// `i8` (loaded with `sext`/`zext` to `i32`, stored with `trunc`).
    I8,
    /// `i16` (as `i8`).
    I16,
    /// `i32`.
    I32,
    /// `i64`.
    I64,
    /// `float`.
    F32,
    /// `double`.
    F64,
}

impl Elem {
    /// All element types.
    pub const ALL: [Elem; 6] = [Elem::I8, Elem::I16, Elem::I32, Elem::I64, Elem::F32, Elem::F64];

    /// The LLVM spelling.
    pub fn ir(self) -> &'static str {
        match self {
            Elem::I8 => "i8",
            Elem::I16 => "i16",
            Elem::I32 => "i32",
            Elem::I64 => "i64",
            Elem::F32 => "float",
            Elem::F64 => "double",
        }
    }

    /// Bytes per element.
    pub fn bytes(self) -> u64 {
        match self {
            Elem::I8 => 1,
            Elem::I16 => 2,
            Elem::I32 | Elem::F32 => 4,
            Elem::I64 | Elem::F64 => 8,
        }
    }

    /// The type of the language's values loaded from and stored to it.
    pub fn value_ty(self) -> Ty {
        match self {
            Elem::I8 | Elem::I16 | Elem::I32 => Ty::I32,
            Elem::I64 => Ty::I64,
            Elem::F32 => Ty::F32,
            Elem::F64 => Ty::F64,
        }
    }
}

/// What the lanes may do with a buffer parameter. Every role keeps the
/// scalar code in bounds and the lanes free of conflicts: no lane writes
/// a byte another lane reads or writes in the same call, so the order of
/// the lanes' accesses cannot change what the calls leave (the oracle
/// compares every byte; its `tolerate_conflicts` stays off).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BufRole {
    /// Loads only, any index shape.
    Read,
    /// A varying pointer: each lane has a buffer of its own, loaded and
    /// stored at any index shape.
    Own,
    /// Each lane owns a window of `size` elements (a power of two) and
    /// loads and stores only there. With `by: Some(i)` the pointer is
    /// uniform and lane k's window is elements `(size*x + j) & (len-1)`,
    /// `j < size`, where `x` is the linear (step +-1) scalar parameter `i`
    /// and `len >= size * lanes`; with `by: None` the pointer is linear with
    /// a step of `size` elements and the window is `p[0..size)`.
    Window {
        /// Elements per window.
        size: u64,
        /// The linear scalar parameter that picks the window, if any.
        by: Option<usize>,
    },
}

/// A pointer parameter of the top-level function: `dereferenceable` for
/// `len` elements (so the oracle's buffer ends at its guard page) and
/// never reached past that by the scalar code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BufParam {
    /// How lanes share it: varying (a buffer per lane), uniform (one
    /// buffer), or linear with a step in bytes.
    pub kind: ParamKind,
    /// Element type.
    pub elem: Elem,
    /// Elements each lane's pointer may reach.
    pub len: u64,
    /// What the lanes do with it.
    pub role: BufRole,
}
/// How a helper uses its pointer-to-array parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum PtrMode {
    /// Loads only (`readonly`).
    Read,
    /// Stores only (`writeonly`).
    Write,
    /// Loads and stores.
    ReadWrite,
    /// `byval([8 x T])`: the helper reads and writes its own copy.
    Byval,
}

/// A generated function's AST.
pub(super) struct Function {
    pub(super) params: Vec<Ty>,
    pub(super) ret: Ty,
    /// Types of all variables (parameters first).
    pub(super) vars: Vec<Ty>,
    /// Element types of the arrays: the pointer parameter first if
    /// [`Function::ptr_param`], then private ones.
    pub(super) arrays: Vec<Ty>,
    /// How the function uses its pointer-to-array parameter, if it has one.
    pub(super) ptr_param: Option<PtrMode>,
    /// Buffer parameters (top-level function only).
    pub(super) bufs: Vec<BufParam>,
    /// How lanes share each scalar parameter.
    pub(super) kinds: Vec<ParamKind>,
    /// A recursive helper: `i32 %depth` comes first.
    pub(super) depth_param: bool,
    /// The constant tables the function reads (globals of its own).
    pub(super) tables: Vec<Table>,
    pub(super) body: Vec<Stmt>,
}

/// A constant table: `@"<function>.table<k>" = <linkage> constant [K x T]`,
/// read only by its function.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Table {
    /// `i32` or `float`.
    pub(super) ty: Ty,
    /// The elements' bits (`i32`: sign-extended; `float`: the bits of the
    /// value as a `double`, as the IR spells float constants). No NaN floats.
    pub(super) elems: Vec<u64>,
    /// `internal` or `private`.
    pub(super) linkage: &'static str,
    /// `unnamed_addr` on the global.
    pub(super) unnamed_addr: bool,
    /// The global's alignment.
    pub(super) align: u32,
}

impl Table {
    pub(super) fn len(&self) -> u64 {
        self.elems.len() as u64
    }
}

/// How a table read keeps its index in range, as C code does.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum TableGuard {
    /// `i & (K-1)` for a power-of-two `K`, else `urem i, K` (unsigned).
    Mask,
    /// `i < K ? t[i] : fallback` as a branch (`icmp ult`) around the read,
    /// joined by a `phi`: lanes that skip it carry out-of-range indices.
    /// The fallback is the element type's constant bits.
    Branch(u64),
}

/// The GEP a table read uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum TableGep {
    /// `getelementptr inbounds T, ptr @t, iN %i`.
    Flat,
    /// `getelementptr inbounds [K x T], ptr @t, i64 0, iN %i`.
    Array,
}

/// The index of a table read: an integer expression, kept in range by
/// `guard`, extended to `i64` (`zext`/`sext`) or used as is.
#[derive(Debug, Clone)]
pub(super) struct TableIndex {
    pub(super) e: Expr,
    pub(super) guard: TableGuard,
    /// For an `i32` index: `Some(true)` sext, `Some(false)` zext to `i64`,
    /// `None` the `i32` itself in the GEP. Ignored for `i64` indices.
    pub(super) ext: Option<bool>,
    pub(super) gep: TableGep,
}

/// Elements per private array.
pub(super) const ARRAY_LEN: u64 = 8;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum IntOp {
    Add,
    Sub,
    Mul,
    And,
    Or,
    Xor,
    Shl,
    LShr,
    AShr,
    Smax,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum DivOp {
    SDiv,
    UDiv,
    SRem,
    URem,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum FloatOp {
    FAdd,
    FSub,
    FMul,
    FDiv,
    MinNum,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum FloatUn {
    FNeg,
    Fabs,
    Sqrt,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Guard {
    Select,
    Branch,
}

#[derive(Debug, Clone)]
pub(super) enum ExprKind {
    Var(usize),
    /// Bits of the constant (integers sign-extended to 64 bits; floats as f64 bits).
    Const(u64),
    Int(IntOp, Box<Expr>, Box<Expr>),
    Div(DivOp, Guard, Box<Expr>, Box<Expr>),
    Float(FloatOp, Box<Expr>, Box<Expr>),
    FloatUn(FloatUn, Box<Expr>),
    Select(Box<Cond>, Box<Expr>, Box<Expr>),
    /// Conversion from the operand's type to the node's type; `signed`
    /// picks sext/sitofp over zext/uitofp.
    Conv(bool, Box<Expr>),
    /// Guarded `fptosi` with the fallback value (sign-extended bits).
    FpToSi(Guard, u64, Box<Expr>),
    /// A call of helper `.0` with scalar arguments `.1`, passing array `.2`
    /// to its pointer parameter; `.3`: marked `tail`; `.4`: the depth
    /// argument of a recursive helper (`x & 3`); `.5`: the buffer passed to
    /// a buffer-reading helper.
    Call(usize, Vec<Expr>, Option<usize>, bool, Option<Box<Expr>>, Option<usize>),
    /// `array[index & 7]`.
    Load(usize, Box<Expr>),
    /// The value the scalar parameter had on entry (not its variable, which
    /// statements may change): keeps uniform and linear shapes.
    Arg(usize),
    /// A load from buffer parameter `.0` at `.1`; `.2`: `sext` (else
    /// `zext`) of a narrow element.
    BufLoad(usize, Box<Index>, bool),
    /// A read of the function's constant table `.0` (of the node's type).
    TableLoad(usize, Box<TableIndex>),
    /// In a recursive helper: `depth > 0 ? self(depth - 1, args) : fallback`
    /// (the fallback's bits); `.2`: marked `tail`.
    SelfCall(Vec<Expr>, u64, bool),
}

/// The element index of a buffer access; every shape is lowered to an
/// `i64` inside the buffer.
#[derive(Debug, Clone)]
pub(super) enum Index {
    /// `c` (`c < len`): uniform.
    Const(u64),
    /// `arg & (len-1)` for a uniform scalar parameter: uniform.
    Uniform(usize),
    /// `(scale*arg + offset) & (len-1)` for a linear scalar parameter:
    /// contiguous (scale 1) or strided.
    Lane { arg: usize, scale: u64, offset: u64 },
    /// `(scale*arg + (e & (scale-1))) & (len-1)`: data-dependent, inside
    /// the lane's window of a [`BufRole::Window`] buffer.
    LaneRandom { arg: usize, scale: u64, e: Expr },
    /// `e & (len-1)` or (`true`) `urem e, len`: data-dependent.
    Random(Expr, bool),
}

#[derive(Debug, Clone)]
pub(super) struct Expr {
    pub(super) ty: Ty,
    pub(super) kind: ExprKind,
}

#[derive(Debug, Clone)]
pub(super) enum Cond {
    ICmp(&'static str, Expr, Expr),
    FCmp(&'static str, Expr, Expr),
    /// `a && b`; `true` = short-circuit branches.
    And(Box<Cond>, Box<Cond>, bool),
    /// `a || b`; `true` = short-circuit branches.
    Or(Box<Cond>, Box<Cond>, bool),
    Not(Box<Cond>),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum LoopKind {
    /// `for (it = 0; it < K && cond; it++)`: both tests at the top.
    For,
    /// `while (cond) { ...; if (++it >= K) break; }`: cap tested at the latch.
    While,
    /// `do { ... } while (++it < K && cond)`: both tests at the latch.
    DoWhile,
}

#[derive(Debug, Clone)]
pub(super) struct Case {
    pub(super) values: Vec<u64>,
    pub(super) body: Vec<Stmt>,
    pub(super) fallthrough: bool,
}

#[derive(Debug, Clone)]
pub(super) enum Stmt {
    Assign(usize, Expr),
    If(Cond, Vec<Stmt>, Vec<Stmt>),
    Loop {
        kind: LoopKind,
        short_circuit: bool,
        cap: u32,
        cond: Cond,
        body: Vec<Stmt>,
    },
    /// Cases in source order (the default is one of them, with no values).
    Switch {
        scrutinee: Expr,
        mask: u64,
        cases: Vec<Case>,
    },
    /// `array[index & 7] = value`.
    Store(usize, Expr, Expr),
    /// A store to buffer parameter `.0` at `.1` (floats with NaNs replaced
    /// by a number, so every byte the calls leave is defined).
    BufStore(usize, Index, Expr),
    /// `batchify_record(tag, value)`, the value as `i64` (floats: their
    /// bits, NaNs replaced by a number).
    Record(u64, Expr),
    /// Two blocks that branch to each other: entered at `a` if the first
    /// condition holds, else at `b`; each continues to the other while its
    /// condition holds and the shared counter is below the cap.
    Irreducible {
        cap: u32,
        conds: Box<[Cond; 3]>,
        a: Vec<Stmt>,
        b: Vec<Stmt>,
    },
    /// Leaves the loop this many levels out (0: the innermost).
    Break(u32),
    /// Continues the loop this many levels out (0: the innermost).
    Continue(u32),
    Return(Expr),
}
