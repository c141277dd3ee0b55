//! Thin layer over the LLVM-C API (`llvm-sys`): every `unsafe` LLVM call of
//! the workspace lives in this folder, behind small safe functions. This
//! file holds the handles and what the transform needs;
//! `module_ops.rs` whole-module operations (parsing, owned modules, bitcode,
//! data layout), `values.rs` further value queries and edits (globals,
//! instruction kinds, metadata), `types.rs` the [`Type`] queries,
//! `builder.rs` the instruction [`Builder`], `callsite.rs` call-site
//! attributes and `@llvm.compiler.used`, and `jit.rs` the ORC JIT, for
//! the test kit. This file is over 1,000 lines with its unit tests; its
//! code (the handles, `Module` and `Value`, attributes and constants) is
//! about 950.
//!
//! Contract: a [`Value`], [`Type`], [`Block`], [`Module`], [`Context`] or
//! [`Attribute`] is a plain `Copy` handle into an LLVM context owned
//! elsewhere (by the caller's `inkwell::context::Context` and module); a
//! [`Builder`] owns an LLVM builder in such a context (the [`jit::Jit`]
//! parses its own copy of a module and hands out no handles).
//! Null handles never escape: functions that may yield "nothing" return
//! `Option`. Handle fields are private: code outside this folder gets a
//! [`Module`] from an inkwell module ([`Module::from_inkwell`]) or an
//! [`OwnedModule`], and every other handle from those, never from a raw
//! pointer.
//!
//! # The lifetime brand
//!
//! Every handle carries a lifetime, `'ctx` (as inkwell's do): a
//! `Module<'ctx>` made by [`Module::from_inkwell`] borrows the inkwell module
//! for `'ctx`, one from [`OwnedModule::module`] borrows the owned module, and
//! every handle reached from a module (its functions, their blocks,
//! instructions and types, the module's context, builders and attributes
//! made in it) has the same `'ctx`. So the borrow checker rejects any use
//! of a handle after its module (and with it the inkwell context, which
//! inkwell keeps alive as long as the module) is dropped, or after an
//! [`OwnedModule`] is disposed or linked into another module:
//!
//! ```compile_fail,E0597
//! use batchify_core::llvm::Module;
//!
//! let context = inkwell::context::Context::create();
//! let function = {
//!     let module = context.create_module("m");
//!     module.add_function("f", context.void_type().fn_type(&[], false), None);
//!     Module::from_inkwell(&module).function("f").unwrap()
//! }; // `module` is dropped here, so its handles may not be used any more
//! println!("{}", function.name());
//! ```
//!
//! while the same code with the handle used inside the module's scope
//! compiles and runs:
//!
//! ```
//! # extern crate batchify_llvm_link; // links libLLVM into the doc test
//! use batchify_core::llvm::Module;
//!
//! let context = inkwell::context::Context::create();
//! let module = context.create_module("m");
//! module.add_function("f", context.void_type().fn_type(&[], false), None);
//! let function = Module::from_inkwell(&module).function("f").unwrap();
//! assert_eq!(function.name(), "f");
//! ```
//!
//! What the brand does not guarantee: it ties a handle to its module, not
//! to the object it names inside the module. A handle to an instruction,
//! block or function that was erased or deleted ([`Value::erase`],
//! [`Value::delete_function`], [`Block::delete`]) still type-checks and
//! dangles; keeping such handles unused stays the code's job, as before.
//! The brand is covariant (like inkwell's), so it does not tell two live
//! modules apart: a handle of one module passed to an edit of another
//! module of the same context compiles (the module verifier reports
//! references across modules). The inkwell module is only borrowed shared (inkwell changes
//! modules through shared references), so inkwell calls on the same module
//! while handles are alive are not excluded either; every public entry
//! point of this crate works on the module alone for the whole transform.

use llvm_sys::core::*;
use llvm_sys::prelude::*;

mod builder;
mod callsite;
pub mod jit;
mod module_ops;
mod types;
mod values;

pub use builder::Builder;
pub use module_ops::{install_fatal_error_handler, parse_ir, OwnedModule};

/// LLVM's enums, for the other modules: no module outside this folder
/// names `llvm_sys`.
pub use llvm_sys::{
    LLVMDLLStorageClass, LLVMGEPNoWrapFlags, LLVMIntPredicate, LLVMLinkage, LLVMOpcode, LLVMRealPredicate,
    LLVMTypeKind, LLVMVisibility,
};
/// The attribute index of the function itself (`LLVMAttributeFunctionIndex`).
pub const FUNCTION_INDEX: u32 = llvm_sys::LLVMAttributeFunctionIndex;
use std::ffi::{CStr, CString};
use std::marker::PhantomData;

/// An LLVM value (instruction, argument, constant, function, ...).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Value<'ctx>(LLVMValueRef, PhantomData<&'ctx ()>);

/// An LLVM type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Type<'ctx>(LLVMTypeRef, PhantomData<&'ctx ()>);

/// An LLVM basic block.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Block<'ctx>(LLVMBasicBlockRef, PhantomData<&'ctx ()>);

/// An LLVM module (get one with [`Module::from_inkwell`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Module<'ctx>(LLVMModuleRef, PhantomData<&'ctx ()>);

/// An LLVM context.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Context<'ctx>(LLVMContextRef, PhantomData<&'ctx ()>);

/// An attribute (enum, integer, type or string) of a function, parameter,
/// return value or call site.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Attribute<'ctx>(LLVMAttributeRef, PhantomData<&'ctx ()>);

/// The values of an LLVM list (functions, globals, instructions, ...), from
/// its first element and LLVM's "next" function; a null pointer ends it.
fn value_list<'ctx>(first: LLVMValueRef, next: unsafe extern "C" fn(LLVMValueRef) -> LLVMValueRef) -> Vec<Value<'ctx>> {
    let mut out = Vec::new();
    let mut v = first;
    while !v.is_null() {
        out.push(Value(v, PhantomData));
        v = unsafe { next(v) };
    }
    out
}

fn cstring(s: &str) -> CString {
    CString::new(s.replace('\0', "")).expect("NUL bytes were removed")
}

fn owned_message(ptr: *mut std::os::raw::c_char) -> String {
    if ptr.is_null() {
        return String::new();
    }
    // SAFETY: LLVM returned a NUL-terminated message that we now own.
    unsafe {
        let s = CStr::from_ptr(ptr).to_string_lossy().into_owned();
        LLVMDisposeMessage(ptr);
        s
    }
}

impl<'ctx> Module<'ctx> {
    /// The module's context.
    pub fn context(self) -> Context<'ctx> {
        Context(unsafe { LLVMGetModuleContext(self.0) }, PhantomData)
    }
    /// Looks up a function by name.
    pub fn function(self, name: &str) -> Option<Value<'ctx>> {
        let c = cstring(name);
        let f = unsafe { LLVMGetNamedFunction(self.0, c.as_ptr()) };
        (!f.is_null()).then_some(Value(f, PhantomData))
    }
    /// Whether a global variable or alias has this name.
    pub fn has_global_named(self, name: &str) -> bool {
        let c = cstring(name);
        unsafe {
            !LLVMGetNamedGlobal(self.0, c.as_ptr()).is_null()
                || !LLVMGetNamedGlobalAlias(self.0, c.as_ptr(), name.len()).is_null()
        }
    }
    /// Adds a function with the given name and type.
    pub fn add_function(self, name: &str, ty: Type<'ctx>) -> Value<'ctx> {
        let c = cstring(name);
        Value(unsafe { LLVMAddFunction(self.0, c.as_ptr(), ty.0) }, PhantomData)
    }
    /// The module's target triple (empty when it names none).
    pub fn target_triple(self) -> String {
        let t = unsafe { LLVMGetTarget(self.0) };
        if t.is_null() {
            return String::new();
        }
        unsafe { std::ffi::CStr::from_ptr(t) }.to_string_lossy().into_owned()
    }
    /// All functions of the module, in order.
    pub fn functions(self) -> Vec<Value<'ctx>> {
        value_list(unsafe { LLVMGetFirstFunction(self.0) }, LLVMGetNextFunction)
    }
    /// Global variables, in module order.
    pub fn global_variables(self) -> Vec<Value<'ctx>> {
        value_list(unsafe { LLVMGetFirstGlobal(self.0) }, LLVMGetNextGlobal)
    }
    /// Every global value: functions, variables, aliases and ifuncs.
    pub fn global_values(self) -> Vec<Value<'ctx>> {
        let mut out = self.functions();
        out.extend(self.global_variables());
        out.extend(value_list(unsafe { LLVMGetFirstGlobalAlias(self.0) }, LLVMGetNextGlobalAlias));
        out.extend(value_list(unsafe { LLVMGetFirstGlobalIFunc(self.0) }, LLVMGetNextGlobalIFunc));
        out
    }
    /// Verifies the whole module; `Err` holds LLVM's message.
    pub fn verify(self) -> Result<(), String> {
        let mut msg = std::ptr::null_mut();
        let broken = unsafe {
            llvm_sys::analysis::LLVMVerifyModule(
                self.0,
                llvm_sys::analysis::LLVMVerifierFailureAction::LLVMReturnStatusAction,
                &mut msg,
            )
        };
        let text = owned_message(msg);
        if broken != 0 {
            Err(text)
        } else {
            Ok(())
        }
    }
    /// Verifies function `f` of this module (its body and its calls, not
    /// the rest of the module: linear in the clones built, where verifying
    /// the whole module after each would not be); `Err` holds LLVM's
    /// message, which comes from verifying the whole module once `f` is
    /// found broken.
    pub fn verify_function(self, f: Value<'ctx>) -> Result<(), String> {
        let broken = unsafe {
            llvm_sys::analysis::LLVMVerifyFunction(
                f.0,
                llvm_sys::analysis::LLVMVerifierFailureAction::LLVMReturnStatusAction,
            )
        };
        if broken == 0 {
            return Ok(());
        }
        match self.verify() {
            Err(message) => Err(message),
            Ok(()) => Err(format!("`{}` does not verify", f.name())),
        }
    }
    /// Declaration of an overloaded (or plain) intrinsic.
    pub fn intrinsic(self, name: &str, overloads: &[Type<'ctx>]) -> Option<Value<'ctx>> {
        let id = intrinsic_id(name)?;
        let mut tys: Vec<LLVMTypeRef> = overloads.iter().map(|t| t.0).collect();
        let f = unsafe { LLVMGetIntrinsicDeclaration(self.0, id, tys.as_mut_ptr(), tys.len()) };
        (!f.is_null()).then_some(Value(f, PhantomData))
    }
}

/// Looks up an intrinsic's id by its base name (`llvm.fabs`).
pub fn intrinsic_id(name: &str) -> Option<u32> {
    let id = unsafe { LLVMLookupIntrinsicID(name.as_ptr() as *const _, name.len()) };
    (id != 0).then_some(id)
}

/// Base name (`llvm.fabs`) of an intrinsic id.
pub fn intrinsic_base_name(id: u32) -> String {
    let mut len = 0usize;
    let p = unsafe { LLVMIntrinsicGetName(id, &mut len) };
    if p.is_null() {
        return String::new();
    }
    let bytes = unsafe { std::slice::from_raw_parts(p as *const u8, len) };
    String::from_utf8_lossy(bytes).into_owned()
}

/// Runs a textual new-pass-manager *function* pipeline on one function.
pub fn run_function_passes(f: Value<'_>, pipeline: &str) -> Result<(), String> {
    let c = cstring(pipeline);
    pass_result(|opts| unsafe {
        llvm_sys::transforms::pass_builder::LLVMRunPassesOnFunction(f.0, c.as_ptr(), std::ptr::null_mut(), opts)
    })
}

/// Runs a textual new-pass-manager pipeline (`default<O2>`, `globaldce`, ...)
/// on a whole module, without a target machine.
pub fn run_module_passes(m: Module<'_>, pipeline: &str) -> Result<(), String> {
    let c = cstring(pipeline);
    pass_result(|opts| unsafe {
        llvm_sys::transforms::pass_builder::LLVMRunPasses(m.0, c.as_ptr(), std::ptr::null_mut(), opts)
    })
}

/// The one pass runner: fresh pass-builder options for `run`, disposed
/// after it; LLVM's error turned into its message (freed with
/// `LLVMDisposeErrorMessage`, as an error message must be).
fn pass_result(
    run: impl FnOnce(llvm_sys::transforms::pass_builder::LLVMPassBuilderOptionsRef) -> llvm_sys::error::LLVMErrorRef,
) -> Result<(), String> {
    use llvm_sys::transforms::pass_builder::*;
    unsafe {
        let opts = LLVMCreatePassBuilderOptions();
        let err = run(opts);
        LLVMDisposePassBuilderOptions(opts);
        if err.is_null() {
            return Ok(());
        }
        let msg = llvm_sys::error::LLVMGetErrorMessage(err);
        let text = CStr::from_ptr(msg).to_string_lossy().into_owned();
        llvm_sys::error::LLVMDisposeErrorMessage(msg);
        Err(text)
    }
}

impl<'ctx> Value<'ctx> {
    /// The value's type.
    pub fn ty(self) -> Type<'ctx> {
        Type(unsafe { LLVMTypeOf(self.0) }, PhantomData)
    }
    /// The value's name (may be empty).
    pub fn name(self) -> String {
        let mut len = 0usize;
        let p = unsafe { LLVMGetValueName2(self.0, &mut len) };
        if p.is_null() {
            return String::new();
        }
        let bytes = unsafe { std::slice::from_raw_parts(p as *const u8, len) };
        String::from_utf8_lossy(bytes).into_owned()
    }
    /// Sets the value's name.
    pub fn set_name(self, name: &str) {
        unsafe { LLVMSetValueName2(self.0, name.as_ptr() as *const _, name.len()) }
    }
    /// Textual form of the value on one line (multi-line instructions such
    /// as `switch` are joined), for diagnostics.
    pub fn print(self) -> String {
        let text = owned_message(unsafe { LLVMPrintValueToString(self.0) });
        text.split_whitespace().collect::<Vec<_>>().join(" ")
    }
    /// Multi-line textual form (a whole function), for debugging.
    pub fn print_function(self) -> String {
        owned_message(unsafe { LLVMPrintValueToString(self.0) })
    }
    /// Whether this is an instruction.
    pub fn is_instruction(self) -> bool {
        unsafe { !LLVMIsAInstruction(self.0).is_null() }
    }
    /// Whether this is a constant (globals and functions included).
    pub fn is_constant(self) -> bool {
        unsafe { LLVMIsConstant(self.0) != 0 }
    }
    /// Whether this is the null value of its type (`null`, `0`,
    /// `zeroinitializer`).
    pub fn is_null_constant(self) -> bool {
        unsafe { LLVMIsNull(self.0) != 0 }
    }
    /// Whether this is a basic block used as a value.
    pub fn is_block(self) -> bool {
        unsafe { LLVMValueIsBasicBlock(self.0) != 0 }
    }
    /// Whether this is a function.
    pub fn is_function(self) -> bool {
        unsafe { !LLVMIsAFunction(self.0).is_null() }
    }
    /// Whether this is inline assembly.
    pub fn is_inline_asm(self) -> bool {
        unsafe { !LLVMIsAInlineAsm(self.0).is_null() }
    }
    /// The block a basic-block value stands for.
    pub fn as_block(self) -> Block<'ctx> {
        Block(unsafe { LLVMValueAsBasicBlock(self.0) }, PhantomData)
    }
    /// Instruction opcode. An opcode this build does not know reads as
    /// `LLVMUserOp1`, which legality rejects.
    pub fn opcode(self) -> LLVMOpcode {
        checked_opcode(unsafe { raw::instruction_opcode(self.0) }).unwrap_or(LLVMOpcode::LLVMUserOp1)
    }
    /// Number of operands.
    pub fn num_operands(self) -> u32 {
        unsafe { LLVMGetNumOperands(self.0) as u32 }
    }
    /// Operand `i`. Panics if there is no operand `i` (reading past the
    /// operand list is undefined behaviour in LLVM, so it is checked here).
    pub fn operand(self, i: u32) -> Value<'ctx> {
        let n = self.num_operands();
        assert!(i < n, "operand {i} of a value with {n} operands");
        Value(unsafe { LLVMGetOperand(self.0, i) }, PhantomData)
    }
    /// All operands.
    pub fn operands(self) -> Vec<Value<'ctx>> {
        (0..self.num_operands()).map(|i| self.operand(i)).collect()
    }
    /// Replaces operand `i`. Panics if there is no operand `i`.
    pub fn set_operand(self, i: u32, v: Value<'ctx>) {
        let n = self.num_operands();
        assert!(i < n, "operand {i} of a value with {n} operands");
        unsafe { LLVMSetOperand(self.0, i, v.0) }
    }
    /// Parent block of an instruction.
    pub fn parent_block(self) -> Block<'ctx> {
        Block(unsafe { LLVMGetInstructionParent(self.0) }, PhantomData)
    }
    /// Next instruction in the block.
    pub fn next_instruction(self) -> Option<Value<'ctx>> {
        let n = unsafe { LLVMGetNextInstruction(self.0) };
        (!n.is_null()).then_some(Value(n, PhantomData))
    }
    /// Copies an instruction (no parent, same operands).
    pub fn clone_instruction(self) -> Value<'ctx> {
        Value(unsafe { LLVMInstructionClone(self.0) }, PhantomData)
    }
    /// Removes an instruction from its block and deletes it.
    pub fn erase(self) {
        unsafe { LLVMInstructionEraseFromParent(self.0) }
    }
    /// Replaces all uses of self by `v`.
    pub fn replace_all_uses_with(self, v: Value<'ctx>) {
        unsafe { LLVMReplaceAllUsesWith(self.0, v.0) }
    }
    /// Removes the `!dbg` location of an instruction.
    pub fn clear_debug_location(self) {
        unsafe { llvm_sys::debuginfo::LLVMInstructionSetDebugLoc(self.0, std::ptr::null_mut()) }
    }
    /// Incoming (value, block) pairs of a phi.
    pub fn incoming(self) -> Vec<(Value<'ctx>, Block<'ctx>)> {
        let n = unsafe { LLVMCountIncoming(self.0) };
        (0..n)
            .map(|i| unsafe {
                (
                    Value(LLVMGetIncomingValue(self.0, i), PhantomData),
                    Block(LLVMGetIncomingBlock(self.0, i), PhantomData),
                )
            })
            .collect()
    }
    /// Adds an incoming pair to a phi.
    pub fn add_incoming(self, v: Value<'ctx>, b: Block<'ctx>) {
        let mut vs = [v.0];
        let mut bs = [b.0];
        unsafe { LLVMAddIncoming(self.0, vs.as_mut_ptr(), bs.as_mut_ptr(), 1) }
    }
    /// Function: parameters.
    pub fn params(self) -> Vec<Value<'ctx>> {
        let n = unsafe { LLVMCountParams(self.0) };
        (0..n).map(|i| Value(unsafe { LLVMGetParam(self.0, i) }, PhantomData)).collect()
    }
    /// Function: its function type.
    pub fn function_type(self) -> Type<'ctx> {
        Type(unsafe { LLVMGlobalGetValueType(self.0) }, PhantomData)
    }
    /// Function: basic blocks in layout order.
    pub fn blocks(self) -> Vec<Block<'ctx>> {
        let mut out = Vec::new();
        let mut b = unsafe { LLVMGetFirstBasicBlock(self.0) };
        while !b.is_null() {
            out.push(Block(b, PhantomData));
            b = unsafe { LLVMGetNextBasicBlock(b) };
        }
        out
    }
    /// Function: whether it is a declaration (no body).
    pub fn is_declaration(self) -> bool {
        unsafe { LLVMIsDeclaration(self.0) != 0 }
    }
    /// Function: appends a new block.
    pub fn append_block(self, name: &str) -> Block<'ctx> {
        let c = cstring(name);
        Block(
            unsafe { LLVMAppendBasicBlockInContext(LLVMGetTypeContext(LLVMTypeOf(self.0)), self.0, c.as_ptr()) },
            PhantomData,
        )
    }
    /// Function: deletes it.
    pub fn delete_function(self) {
        unsafe { LLVMDeleteFunction(self.0) }
    }
    /// Function: sets the linkage to internal.
    pub fn set_internal(self) {
        unsafe { LLVMSetLinkage(self.0, llvm_sys::LLVMLinkage::LLVMInternalLinkage) }
    }
    /// Function: intrinsic id (0 if not an intrinsic).
    pub fn intrinsic_id(self) -> u32 {
        unsafe { LLVMGetIntrinsicID(self.0) }
    }
    /// Call: the called operand.
    pub fn called_value(self) -> Value<'ctx> {
        Value(unsafe { LLVMGetCalledValue(self.0) }, PhantomData)
    }
    /// Call: the callee's function type.
    pub fn called_function_type(self) -> Type<'ctx> {
        Type(unsafe { LLVMGetCalledFunctionType(self.0) }, PhantomData)
    }
    /// Call: number of argument operands.
    pub fn num_arg_operands(self) -> u32 {
        unsafe { LLVMGetNumArgOperands(self.0) }
    }
    /// Conditional branch: whether it has a condition.
    pub fn is_conditional(self) -> bool {
        unsafe { LLVMIsConditional(self.0) != 0 }
    }
    /// Terminator: successor blocks.
    pub fn successors(self) -> Vec<Block<'ctx>> {
        let n = unsafe { LLVMGetNumSuccessors(self.0) };
        (0..n).map(|i| Block(unsafe { LLVMGetSuccessor(self.0, i) }, PhantomData)).collect()
    }
    /// Terminator: makes successor `i` (in [`Value::successors`] order) `b`.
    pub fn set_successor(self, i: u32, b: Block<'ctx>) {
        unsafe { LLVMSetSuccessor(self.0, i, b.0) }
    }
    /// Switch: `(case value, destination)` pairs, default excluded.
    pub fn switch_cases(self) -> Vec<(Value<'ctx>, Block<'ctx>)> {
        let succs = self.successors();
        (1..succs.len())
            .map(|i| (Value(unsafe { LLVMGetSwitchCaseValue(self.0, i as u32) }, PhantomData), succs[i]))
            .collect()
    }
    /// Switch: the default destination.
    pub fn switch_default(self) -> Block<'ctx> {
        Block(unsafe { LLVMGetSwitchDefaultDest(self.0) }, PhantomData)
    }
    /// Whether an `or` is `disjoint` (no bit set in both operands, so it is an `add`).
    pub fn is_disjoint(self) -> bool {
        self.opcode() == LLVMOpcode::LLVMOr && unsafe { LLVMGetIsDisjoint(self.0) != 0 }
    }
    /// Load/store: volatile flag.
    pub fn is_volatile(self) -> bool {
        unsafe { LLVMGetVolatile(self.0) != 0 }
    }
    /// Load/store: whether the access is atomic.
    pub fn is_atomic(self) -> bool {
        unsafe { LLVMGetOrdering(self.0) != llvm_sys::LLVMAtomicOrdering::LLVMAtomicOrderingNotAtomic }
    }
    /// Load/store/alloca alignment.
    pub fn alignment(self) -> u32 {
        unsafe { LLVMGetAlignment(self.0) }
    }
    /// GEP: source element type.
    pub fn gep_source_type(self) -> Type<'ctx> {
        Type(unsafe { LLVMGetGEPSourceElementType(self.0) }, PhantomData)
    }
    /// The constant indices of an `extractvalue` or `insertvalue`.
    pub fn aggregate_indices(self) -> Vec<u32> {
        let n = unsafe { LLVMGetNumIndices(self.0) } as usize;
        let p = unsafe { LLVMGetIndices(self.0) };
        (0..n).map(|k| unsafe { *p.add(k) }).collect()
    }
    /// The constant mask of a `shufflevector` (`None` elements are poison).
    pub fn shuffle_mask(self) -> Option<Vec<Option<u32>>> {
        if self.opcode() != LLVMOpcode::LLVMShuffleVector {
            return None;
        }
        let undef = unsafe { LLVMGetUndefMaskElem() };
        let len = unsafe { LLVMGetNumMaskElements(self.0) };
        Some(
            (0..len)
                .map(|k| {
                    let m = unsafe { LLVMGetMaskValue(self.0, k) };
                    (m != undef).then_some(m as u32)
                })
                .collect(),
        )
    }
    /// GEP: no-wrap flags.
    pub fn gep_flags(self) -> llvm_sys::LLVMGEPNoWrapFlags {
        unsafe { LLVMGEPGetNoWrapFlags(self.0) }
    }
    /// Comparison predicate of an `icmp`.
    pub fn icmp_predicate(self) -> llvm_sys::LLVMIntPredicate {
        unsafe { LLVMGetICmpPredicate(self.0) }
    }
    /// Comparison predicate of an `fcmp`.
    pub fn fcmp_predicate(self) -> llvm_sys::LLVMRealPredicate {
        unsafe { LLVMGetFCmpPredicate(self.0) }
    }
    /// Whether the function carries an enum attribute of this name.
    pub fn has_fn_attribute(self, name: &str) -> bool {
        let kind = enum_attribute_kind(name);
        kind != 0
            && unsafe { !LLVMGetEnumAttributeAtIndex(self.0, llvm_sys::LLVMAttributeFunctionIndex, kind).is_null() }
    }
    /// Whether a call site carries an enum function attribute of this name.
    pub fn call_has_fn_attribute(self, name: &str) -> bool {
        let kind = enum_attribute_kind(name);
        kind != 0
            && unsafe { !LLVMGetCallSiteEnumAttribute(self.0, llvm_sys::LLVMAttributeFunctionIndex, kind).is_null() }
    }
    /// Integer value of an enum function attribute (e.g. `memory`), on a
    /// call site if `self` is a call, else on a function.
    pub fn fn_attribute_value(self, name: &str) -> Option<u64> {
        let kind = enum_attribute_kind(name);
        if kind == 0 {
            return None;
        }
        let a = unsafe {
            if LLVMIsACallInst(self.0).is_null() {
                LLVMGetEnumAttributeAtIndex(self.0, llvm_sys::LLVMAttributeFunctionIndex, kind)
            } else {
                LLVMGetCallSiteEnumAttribute(self.0, llvm_sys::LLVMAttributeFunctionIndex, kind)
            }
        };
        (!a.is_null()).then(|| unsafe { LLVMGetEnumAttributeValue(a) })
    }
    /// Call: marks the call site `noreturn`.
    pub fn set_noreturn_call(self) {
        let kind = enum_attribute_kind("noreturn");
        unsafe {
            let a = LLVMCreateEnumAttribute(LLVMGetTypeContext(LLVMTypeOf(self.0)), kind, 0);
            LLVMAddCallSiteAttribute(self.0, llvm_sys::LLVMAttributeFunctionIndex, a);
        }
    }
    /// Call: adds an integer enum attribute (e.g. `align`) to argument `arg`.
    pub fn add_call_arg_attribute(self, arg: u32, name: &str, value: u64) {
        let kind = enum_attribute_kind(name);
        unsafe {
            let a = LLVMCreateEnumAttribute(LLVMGetTypeContext(LLVMTypeOf(self.0)), kind, value);
            LLVMAddCallSiteAttribute(self.0, arg + 1, a);
        }
    }
    /// The instructions that use this value (each once, in use-list order).
    pub fn users(self) -> Vec<Value<'ctx>> {
        let mut out: Vec<Value> = Vec::new();
        let mut seen = std::collections::HashSet::new();
        let mut u = unsafe { LLVMGetFirstUse(self.0) };
        while !u.is_null() {
            let user = Value(unsafe { LLVMGetUser(u) }, PhantomData);
            if seen.insert(user) {
                out.push(user);
            }
            u = unsafe { LLVMGetNextUse(u) };
        }
        out
    }
    /// Instruction: unlinks it from its block, to be re-inserted with
    /// [`Builder::insert`].
    pub fn remove_from_parent(self) {
        unsafe { LLVMInstructionRemoveFromParent(self.0) }
    }
    /// Global: its linkage.
    pub fn linkage(self) -> llvm_sys::LLVMLinkage {
        unsafe { LLVMGetLinkage(self.0) }
    }
    /// Global: sets its linkage.
    pub fn set_linkage(self, l: llvm_sys::LLVMLinkage) {
        unsafe { LLVMSetLinkage(self.0, l) }
    }
    /// Global: copies visibility, DLL storage class, `unnamed_addr` and
    /// section from another global (linkage and comdat are decided by the
    /// caller, see `shell::linkage`).
    pub fn copy_global_properties_from(self, other: Value<'ctx>) {
        unsafe {
            LLVMSetVisibility(self.0, LLVMGetVisibility(other.0));
            LLVMSetDLLStorageClass(self.0, LLVMGetDLLStorageClass(other.0));
            LLVMSetUnnamedAddress(self.0, LLVMGetUnnamedAddress(other.0));
            let section = LLVMGetSection(other.0);
            if !section.is_null() && *section != 0 {
                LLVMSetSection(self.0, section);
            }
        }
    }
    /// Global: the selection kind of its comdat, if it is in one.
    pub fn comdat_selection_kind(self) -> Option<llvm_sys::comdat::LLVMComdatSelectionKind> {
        unsafe {
            let c = llvm_sys::comdat::LLVMGetComdat(self.0);
            (!c.is_null()).then(|| llvm_sys::comdat::LLVMGetComdatSelectionKind(c))
        }
    }
    /// Global: puts it into the comdat named like itself (created if needed)
    /// with the given selection kind.
    pub fn set_own_comdat(self, module: Module<'ctx>, kind: llvm_sys::comdat::LLVMComdatSelectionKind) {
        let name = cstring(&self.name());
        unsafe {
            let c = llvm_sys::comdat::LLVMGetOrInsertComdat(module.0, name.as_ptr());
            llvm_sys::comdat::LLVMSetComdatSelectionKind(c, kind);
            llvm_sys::comdat::LLVMSetComdat(self.0, c);
        }
    }
    /// Function or call: its calling convention (LLVM's numeric id).
    pub fn call_conv(self) -> u32 {
        unsafe {
            if LLVMIsAFunction(self.0).is_null() {
                LLVMGetInstructionCallConv(self.0)
            } else {
                LLVMGetFunctionCallConv(self.0)
            }
        }
    }
    /// Call: sets its calling convention.
    pub fn set_call_conv(self, cc: u32) {
        unsafe { LLVMSetInstructionCallConv(self.0, cc) }
    }
    /// Call: adds an attribute at an index (0 return, `i + 1` argument `i`,
    /// `LLVMAttributeFunctionIndex` the function).
    pub fn add_call_site_attribute(self, index: u32, a: Attribute<'ctx>) {
        unsafe { LLVMAddCallSiteAttribute(self.0, index, a.0) }
    }
    /// Call: whether it is marked `musttail`.
    pub fn is_musttail(self) -> bool {
        unsafe { LLVMGetTailCallKind(self.0) == llvm_sys::LLVMTailCallKind::LLVMTailCallKindMustTail }
    }
    /// Function: all attributes at an index (function, return, or param).
    pub fn attributes(self, index: u32) -> Vec<Attribute<'ctx>> {
        let n = unsafe { LLVMGetAttributeCountAtIndex(self.0, index) } as usize;
        let mut v = vec![std::ptr::null_mut(); n];
        unsafe { LLVMGetAttributesAtIndex(self.0, index, v.as_mut_ptr()) };
        v.into_iter().map(|a| Attribute(a, PhantomData)).collect()
    }
    /// Function: whether an enum attribute of this name is at an index.
    pub fn has_attribute_at(self, index: u32, name: &str) -> bool {
        let kind = enum_attribute_kind(name);
        kind != 0 && unsafe { !LLVMGetEnumAttributeAtIndex(self.0, index, kind).is_null() }
    }
    /// Function: adds an attribute at an index.
    pub fn add_attribute(self, index: u32, a: Attribute<'ctx>) {
        unsafe { LLVMAddAttributeAtIndex(self.0, index, a.0) }
    }
    /// Function: removes an enum attribute by name.
    pub fn remove_enum_attribute(self, index: u32, name: &str) {
        let kind = enum_attribute_kind(name);
        if kind != 0 {
            unsafe { LLVMRemoveEnumAttributeAtIndex(self.0, index, kind) }
        }
    }
    /// Function: value of a string attribute.
    pub fn string_attribute(self, index: u32, key: &str) -> Option<String> {
        let a = unsafe { LLVMGetStringAttributeAtIndex(self.0, index, key.as_ptr() as *const _, key.len() as u32) };
        (!a.is_null()).then(|| attribute_string_value(Attribute(a, PhantomData)))
    }
    /// Function: sets a string attribute.
    pub fn set_string_attribute(self, index: u32, key: &str, value: &str) {
        let a = unsafe {
            LLVMCreateStringAttribute(
                LLVMGetTypeContext(LLVMTypeOf(self.0)),
                key.as_ptr() as *const _,
                key.len() as u32,
                value.as_ptr() as *const _,
                value.len() as u32,
            )
        };
        self.add_attribute(index, Attribute(a, PhantomData));
    }
    /// Integer constant value, zero-extended, if this is a `ConstantInt` of at most 64 bits.
    pub fn const_int_value(self) -> Option<u64> {
        unsafe {
            if LLVMIsAConstantInt(self.0).is_null() || LLVMGetIntTypeWidth(LLVMTypeOf(self.0)) > 64 {
                None
            } else {
                Some(LLVMConstIntGetZExtValue(self.0))
            }
        }
    }
}

impl<'ctx> Block<'ctx> {
    /// Instructions in order.
    pub fn instructions(self) -> Vec<Value<'ctx>> {
        value_list(unsafe { LLVMGetFirstInstruction(self.0) }, LLVMGetNextInstruction)
    }
    /// The terminator, if the block has one.
    pub fn terminator(self) -> Option<Value<'ctx>> {
        let t = unsafe { LLVMGetBasicBlockTerminator(self.0) };
        (!t.is_null()).then_some(Value(t, PhantomData))
    }
    /// First instruction that is not a phi.
    pub fn first_non_phi(self) -> Option<Value<'ctx>> {
        self.instructions().into_iter().find(|i| i.opcode() != LLVMOpcode::LLVMPHI)
    }
    /// The block as a value (for branch operands).
    pub fn as_value(self) -> Value<'ctx> {
        Value(unsafe { LLVMBasicBlockAsValue(self.0) }, PhantomData)
    }
    /// The block's name.
    pub fn name(self) -> String {
        let p = unsafe { LLVMGetBasicBlockName(self.0) };
        if p.is_null() {
            String::new()
        } else {
            unsafe { CStr::from_ptr(p).to_string_lossy().into_owned() }
        }
    }
    /// The function holding the block.
    pub fn parent(self) -> Value<'ctx> {
        Value(unsafe { LLVMGetBasicBlockParent(self.0) }, PhantomData)
    }
    /// Moves the block (with its instructions) to the end of function `f`.
    /// Values of the old function that its instructions use must be
    /// replaced by the caller before the old function is deleted.
    pub fn move_to_function(self, f: Value<'ctx>) {
        unsafe {
            LLVMRemoveBasicBlockFromParent(self.0);
            LLVMAppendExistingBasicBlock(f.0, self.0);
        }
    }
}

/// A new type attribute (`sret`, `byval`, `elementtype`, ...) of type `ty`.
pub fn create_type_attribute<'ctx>(ctx: Context<'ctx>, name: &str, ty: Type<'ctx>) -> Attribute<'ctx> {
    Attribute(unsafe { LLVMCreateTypeAttribute(ctx.0, enum_attribute_kind(name), ty.0) }, PhantomData)
}

/// Kind id of an enum attribute name (0 if unknown).
pub fn enum_attribute_kind(name: &str) -> u32 {
    unsafe { LLVMGetEnumAttributeKindForName(name.as_ptr() as *const _, name.len()) }
}

/// Whether an attribute is a string attribute.
pub fn attribute_is_string(a: Attribute<'_>) -> bool {
    unsafe { LLVMIsStringAttribute(a.0) != 0 }
}

/// Key of a string attribute.
pub fn attribute_string_key(a: Attribute<'_>) -> String {
    let mut len = 0u32;
    let p = unsafe { LLVMGetStringAttributeKind(a.0, &mut len) };
    let bytes = unsafe { std::slice::from_raw_parts(p as *const u8, len as usize) };
    String::from_utf8_lossy(bytes).into_owned()
}

/// Value of a string attribute.
pub fn attribute_string_value(a: Attribute<'_>) -> String {
    let mut len = 0u32;
    let p = unsafe { LLVMGetStringAttributeValue(a.0, &mut len) };
    if p.is_null() {
        return String::new();
    }
    let bytes = unsafe { std::slice::from_raw_parts(p as *const u8, len as usize) };
    String::from_utf8_lossy(bytes).into_owned()
}

/// Integer value of an enum attribute (`memory`, `align`, ...).
pub fn attribute_enum_value(a: Attribute<'_>) -> u64 {
    unsafe { LLVMGetEnumAttributeValue(a.0) }
}

/// A new enum attribute with an integer value.
pub fn create_enum_attribute<'ctx>(ctx: Context<'ctx>, name: &str, value: u64) -> Attribute<'ctx> {
    Attribute(unsafe { LLVMCreateEnumAttribute(ctx.0, enum_attribute_kind(name), value) }, PhantomData)
}

/// Kind id of an enum attribute.
pub fn attribute_enum_kind(a: Attribute<'_>) -> u32 {
    unsafe { LLVMGetEnumAttributeKind(a.0) }
}

/// Constants.
pub mod constant {
    use super::*;
    /// Integer constant.
    pub fn int<'ctx>(ty: Type<'ctx>, v: u64) -> Value<'ctx> {
        Value(unsafe { LLVMConstInt(ty.0, v, 0) }, PhantomData)
    }
    /// The constant 1 of an integer type, or of every element of an
    /// integer vector type.
    pub fn one<'ctx>(ty: Type<'ctx>) -> Value<'ctx> {
        if ty.is_vector() {
            vector(&vec![int(ty.element(), 1); ty.vector_len() as usize])
        } else {
            int(ty, 1)
        }
    }
    /// `i32` constant in a context.
    pub fn i32<'ctx>(ctx: Context<'ctx>, v: u32) -> Value<'ctx> {
        int(Type::int(ctx, 32), v as u64)
    }
    /// Vector constant from elements.
    pub fn vector<'ctx>(elems: &[Value<'ctx>]) -> Value<'ctx> {
        let mut e: Vec<LLVMValueRef> = elems.iter().map(|v| v.0).collect();
        Value(unsafe { LLVMConstVector(e.as_mut_ptr(), e.len() as u32) }, PhantomData)
    }
    /// `poison` of a type.
    pub fn poison<'ctx>(ty: Type<'ctx>) -> Value<'ctx> {
        Value(unsafe { LLVMGetPoison(ty.0) }, PhantomData)
    }
    /// Positive infinity of a floating-point type.
    pub fn real_inf<'ctx>(ty: Type<'ctx>) -> Value<'ctx> {
        real(ty, f64::INFINITY)
    }
    /// A floating-point constant of type `ty` (`v` rounded to it).
    pub fn real<'ctx>(ty: Type<'ctx>, v: f64) -> Value<'ctx> {
        Value(unsafe { LLVMConstReal(ty.0, v) }, PhantomData)
    }
    /// All-zero constant of a type.
    pub fn null<'ctx>(ty: Type<'ctx>) -> Value<'ctx> {
        Value(unsafe { LLVMConstNull(ty.0) }, PhantomData)
    }
    /// All-ones constant of an integer (vector) type.
    pub fn all_ones<'ctx>(ty: Type<'ctx>) -> Value<'ctx> {
        Value(unsafe { LLVMConstAllOnes(ty.0) }, PhantomData)
    }
    /// Constant array of `elem` values.
    pub fn array<'ctx>(elem: Type<'ctx>, values: &[Value<'ctx>]) -> Value<'ctx> {
        let mut v: Vec<LLVMValueRef> = values.iter().map(|x| x.0).collect();
        Value(unsafe { LLVMConstArray2(elem.0, v.as_mut_ptr(), v.len() as u64) }, PhantomData)
    }
}

/// Instruction flags that survive widening: they are copied from the
/// scalar instruction to its vector counterpart.
pub fn copy_flags(from: Value<'_>, to: Value<'_>) {
    use LLVMOpcode::*;
    if !to.is_instruction() {
        return; // constant-folded
    }
    unsafe {
        let same = to.opcode() == from.opcode();
        match from.opcode() {
            LLVMAdd | LLVMSub | LLVMMul | LLVMShl | LLVMTrunc if same => {
                LLVMSetNUW(to.0, LLVMGetNUW(from.0));
                LLVMSetNSW(to.0, LLVMGetNSW(from.0));
            }
            LLVMUDiv | LLVMSDiv | LLVMLShr | LLVMAShr if same => {
                LLVMSetExact(to.0, LLVMGetExact(from.0));
            }
            LLVMOr if same => LLVMSetIsDisjoint(to.0, LLVMGetIsDisjoint(from.0)),
            LLVMZExt | LLVMUIToFP if same => LLVMSetNNeg(to.0, LLVMGetNNeg(from.0)),
            _ => {}
        }
        if LLVMCanValueUseFastMathFlags(from.0) != 0 && LLVMCanValueUseFastMathFlags(to.0) != 0 {
            LLVMSetFastMathFlags(to.0, LLVMGetFastMathFlags(from.0));
        }
    }
}

/// Fast-math flags of an instruction that can have them (0 otherwise).
pub fn fast_math_flags(v: Value<'_>) -> u32 {
    unsafe {
        if v.is_instruction() && LLVMCanValueUseFastMathFlags(v.0) != 0 {
            LLVMGetFastMathFlags(v.0)
        } else {
            0
        }
    }
}

/// Adds fast-math flags to a new instruction that can have them. LLVM's
/// `LLVMSetFastMathFlags` only ever adds flags, so a flag is removed by
/// building a new instruction (see `prepare::unfuse_for_fma_target`).
pub fn add_fast_math_flags(v: Value<'_>, flags: u32) {
    unsafe {
        if v.is_instruction() && LLVMCanValueUseFastMathFlags(v.0) != 0 {
            LLVMSetFastMathFlags(v.0, flags);
        }
    }
}

/// The `contract` fast-math flag (may fuse a multiply and an add).
pub const FAST_MATH_CONTRACT: u32 = llvm_sys::LLVMFastMathAllowContract;

// ---------------------------------------------------------------------------
// Checked enum conversions. llvm-sys declares `LLVMGetInstructionOpcode` and
// `LLVMGetTypeKind` as returning Rust enums; a number this build of llvm-sys
// does not know would be an invalid enum value (undefined behaviour). These
// declarations return the raw number, which is checked against the known
// variants.

mod raw {
    #[allow(clashing_extern_declarations)]
    extern "C" {
        #[link_name = "LLVMGetInstructionOpcode"]
        pub fn instruction_opcode(v: llvm_sys::prelude::LLVMValueRef) -> u32;
        #[link_name = "LLVMGetTypeKind"]
        pub fn type_kind(t: llvm_sys::prelude::LLVMTypeRef) -> u32;
    }
}

/// Every opcode llvm-sys knows.
const OPCODES: [LLVMOpcode; 68] = [
    LLVMOpcode::LLVMRet,
    LLVMOpcode::LLVMBr,
    LLVMOpcode::LLVMSwitch,
    LLVMOpcode::LLVMIndirectBr,
    LLVMOpcode::LLVMInvoke,
    LLVMOpcode::LLVMUnreachable,
    LLVMOpcode::LLVMCallBr,
    LLVMOpcode::LLVMFNeg,
    LLVMOpcode::LLVMAdd,
    LLVMOpcode::LLVMFAdd,
    LLVMOpcode::LLVMSub,
    LLVMOpcode::LLVMFSub,
    LLVMOpcode::LLVMMul,
    LLVMOpcode::LLVMFMul,
    LLVMOpcode::LLVMUDiv,
    LLVMOpcode::LLVMSDiv,
    LLVMOpcode::LLVMFDiv,
    LLVMOpcode::LLVMURem,
    LLVMOpcode::LLVMSRem,
    LLVMOpcode::LLVMFRem,
    LLVMOpcode::LLVMShl,
    LLVMOpcode::LLVMLShr,
    LLVMOpcode::LLVMAShr,
    LLVMOpcode::LLVMAnd,
    LLVMOpcode::LLVMOr,
    LLVMOpcode::LLVMXor,
    LLVMOpcode::LLVMAlloca,
    LLVMOpcode::LLVMLoad,
    LLVMOpcode::LLVMStore,
    LLVMOpcode::LLVMGetElementPtr,
    LLVMOpcode::LLVMTrunc,
    LLVMOpcode::LLVMZExt,
    LLVMOpcode::LLVMSExt,
    LLVMOpcode::LLVMFPToUI,
    LLVMOpcode::LLVMFPToSI,
    LLVMOpcode::LLVMUIToFP,
    LLVMOpcode::LLVMSIToFP,
    LLVMOpcode::LLVMFPTrunc,
    LLVMOpcode::LLVMFPExt,
    LLVMOpcode::LLVMPtrToInt,
    LLVMOpcode::LLVMPtrToAddr,
    LLVMOpcode::LLVMIntToPtr,
    LLVMOpcode::LLVMBitCast,
    LLVMOpcode::LLVMAddrSpaceCast,
    LLVMOpcode::LLVMICmp,
    LLVMOpcode::LLVMFCmp,
    LLVMOpcode::LLVMPHI,
    LLVMOpcode::LLVMCall,
    LLVMOpcode::LLVMSelect,
    LLVMOpcode::LLVMUserOp1,
    LLVMOpcode::LLVMUserOp2,
    LLVMOpcode::LLVMVAArg,
    LLVMOpcode::LLVMExtractElement,
    LLVMOpcode::LLVMInsertElement,
    LLVMOpcode::LLVMShuffleVector,
    LLVMOpcode::LLVMExtractValue,
    LLVMOpcode::LLVMInsertValue,
    LLVMOpcode::LLVMFreeze,
    LLVMOpcode::LLVMFence,
    LLVMOpcode::LLVMAtomicCmpXchg,
    LLVMOpcode::LLVMAtomicRMW,
    LLVMOpcode::LLVMResume,
    LLVMOpcode::LLVMLandingPad,
    LLVMOpcode::LLVMCleanupRet,
    LLVMOpcode::LLVMCatchRet,
    LLVMOpcode::LLVMCatchPad,
    LLVMOpcode::LLVMCleanupPad,
    LLVMOpcode::LLVMCatchSwitch,
];

/// Every type kind llvm-sys knows.
const TYPE_KINDS: [LLVMTypeKind; 20] = [
    LLVMTypeKind::LLVMVoidTypeKind,
    LLVMTypeKind::LLVMHalfTypeKind,
    LLVMTypeKind::LLVMFloatTypeKind,
    LLVMTypeKind::LLVMDoubleTypeKind,
    LLVMTypeKind::LLVMX86_FP80TypeKind,
    LLVMTypeKind::LLVMFP128TypeKind,
    LLVMTypeKind::LLVMPPC_FP128TypeKind,
    LLVMTypeKind::LLVMLabelTypeKind,
    LLVMTypeKind::LLVMIntegerTypeKind,
    LLVMTypeKind::LLVMFunctionTypeKind,
    LLVMTypeKind::LLVMStructTypeKind,
    LLVMTypeKind::LLVMArrayTypeKind,
    LLVMTypeKind::LLVMPointerTypeKind,
    LLVMTypeKind::LLVMVectorTypeKind,
    LLVMTypeKind::LLVMMetadataTypeKind,
    LLVMTypeKind::LLVMTokenTypeKind,
    LLVMTypeKind::LLVMScalableVectorTypeKind,
    LLVMTypeKind::LLVMBFloatTypeKind,
    LLVMTypeKind::LLVMX86_AMXTypeKind,
    LLVMTypeKind::LLVMTargetExtTypeKind,
];

/// The opcode numbered `raw`, if llvm-sys knows it.
fn checked_opcode(raw: u32) -> Option<LLVMOpcode> {
    OPCODES.iter().copied().find(|o| *o as u32 == raw)
}

/// The type kind numbered `raw`, if llvm-sys knows it.
fn checked_type_kind(raw: u32) -> Option<LLVMTypeKind> {
    TYPE_KINDS.iter().copied().find(|k| *k as u32 == raw)
}

#[cfg(test)]
mod checked_enum_tests {
    use super::*;

    #[test]
    fn known_numbers_convert_and_unknown_ones_do_not() {
        for op in OPCODES {
            assert_eq!(checked_opcode(op as u32), Some(op));
        }
        for kind in TYPE_KINDS {
            assert_eq!(checked_type_kind(kind as u32), Some(kind));
        }
        assert_eq!(checked_opcode(9999), None);
        // 15 was the X86_MMX kind, removed from LLVM.
        assert_eq!(checked_type_kind(15), None);
    }
}

#[cfg(test)]
mod operand_access_tests {
    use super::Module;
    // Links libLLVM into the test binary.
    use batchify_llvm_link as _;

    /// `f`'s first instruction: `%r = add i32 %a, 1`.
    fn with_add(check: impl FnOnce(super::Value<'_>)) {
        let context = inkwell::context::Context::create();
        let module = context.create_module("m");
        let i32t = context.i32_type();
        let f = module.add_function("f", i32t.fn_type(&[i32t.into()], false), None);
        let b = context.create_builder();
        b.position_at_end(context.append_basic_block(f, "entry"));
        let a = f.get_nth_param(0).unwrap().into_int_value();
        let r = b.build_int_add(a, i32t.const_int(1, false), "r").unwrap();
        b.build_return(Some(&r)).unwrap();
        let add = Module::from_inkwell(&module).function("f").unwrap().blocks()[0].instructions()[0];
        check(add);
    }

    #[test]
    fn operands_in_range_are_read() {
        with_add(|add| {
            assert_eq!(add.num_operands(), 2);
            assert_eq!(add.operand(1).const_int_value(), Some(1));
        });
    }

    #[test]
    #[should_panic(expected = "operand 2 of a value with 2 operands")]
    fn reading_past_the_operands_panics() {
        with_add(|add| {
            add.operand(2);
        });
    }

    #[test]
    #[should_panic(expected = "operand 5 of a value with 2 operands")]
    fn writing_past_the_operands_panics() {
        with_add(|add| add.set_operand(5, add.operand(0)));
    }
}
