//! Whole-module operations beyond the transform's needs, for the test kit
//! and the front ends: handles from inkwell modules, parsing textual IR,
//! owned scratch modules (created, cloned, linked, disposed), bitcode,
//! module-level asm, target triple and data layout, ABI sizes, new global
//! variables.

use super::{cstring, Context, Module, Type, Value};
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use std::ffi::CStr;
use std::marker::PhantomData;

impl<'ctx> Module<'ctx> {
    /// The handle of an inkwell module. It is valid while `module` lives
    /// (inkwell modules are changed through shared references, as here).
    pub fn from_inkwell(module: &'ctx inkwell::module::Module<'_>) -> Module<'ctx> {
        Module(module.as_mut_ptr(), PhantomData)
    }

    /// The module's bitcode.
    pub fn to_bitcode(self) -> Vec<u8> {
        // SAFETY: the buffer is owned here and disposed after the copy.
        unsafe {
            let buf = llvm_sys::bit_writer::LLVMWriteBitcodeToMemoryBuffer(self.0);
            let start = LLVMGetBufferStart(buf).cast::<u8>();
            let bytes = std::slice::from_raw_parts(start, LLVMGetBufferSize(buf)).to_vec();
            LLVMDisposeMemoryBuffer(buf);
            bytes
        }
    }

    /// The module-level inline asm (empty if none).
    pub fn inline_asm(self) -> String {
        let mut len = 0;
        let asm = unsafe { LLVMGetModuleInlineAsm(self.0, &mut len) };
        if asm.is_null() || len == 0 {
            String::new()
        } else {
            String::from_utf8_lossy(unsafe { std::slice::from_raw_parts(asm as *const u8, len) }).into_owned()
        }
    }

    /// Removes the module-level inline asm.
    pub fn clear_inline_asm(self) {
        unsafe { LLVMSetModuleInlineAsm2(self.0, c"".as_ptr(), 0) }
    }

    /// Gives this module the target triple and data layout of `other`.
    pub fn copy_target_from(self, other: Module<'ctx>) {
        unsafe {
            LLVMSetTarget(self.0, LLVMGetTarget(other.0));
            LLVMSetDataLayout(self.0, LLVMGetDataLayoutStr(other.0));
        }
    }

    /// ABI size in bytes of a sized type, by the module's data layout.
    pub fn abi_size_of(self, ty: Type<'ctx>) -> u64 {
        unsafe { llvm_sys::target::LLVMABISizeOfType(llvm_sys::target::LLVMGetModuleDataLayout(self.0), ty.0) }
    }

    /// Offset in bytes of field `i` of a struct type, by the module's data layout.
    pub fn field_offset_of(self, sty: Type<'ctx>, i: u32) -> u64 {
        unsafe { llvm_sys::target::LLVMOffsetOfElement(llvm_sys::target::LLVMGetModuleDataLayout(self.0), sty.0, i) }
    }

    /// ABI alignment in bytes of a type, by the module's data layout.
    pub fn abi_alignment_of(self, ty: Type<'ctx>) -> u32 {
        unsafe { llvm_sys::target::LLVMABIAlignmentOfType(llvm_sys::target::LLVMGetModuleDataLayout(self.0), ty.0) }
    }

    /// Adds a global variable (a declaration until it gets an initializer).
    pub fn add_global(self, ty: Type<'ctx>, name: &str) -> Value<'ctx> {
        let c = cstring(name);
        Value(unsafe { LLVMAddGlobal(self.0, ty.0, c.as_ptr()) }, PhantomData)
    }

    /// The global variable named `name`, if there is one.
    pub fn global(self, name: &str) -> Option<Value<'ctx>> {
        let c = cstring(name);
        let g = unsafe { LLVMGetNamedGlobal(self.0, c.as_ptr()) };
        (!g.is_null()).then_some(Value(g, PhantomData))
    }

    /// A private constant global holding `text` as a NUL-terminated C
    /// string (`private unnamed_addr constant [n x i8] c"..."`).
    pub fn add_c_string(self, name: &str, text: &str) -> Value<'ctx> {
        let ctx = self.context();
        let init = unsafe { LLVMConstStringInContext2(ctx.0, text.as_ptr() as *const _, text.len(), 0) };
        let g = self.add_global(Type(unsafe { LLVMTypeOf(init) }, PhantomData), name);
        unsafe {
            LLVMSetInitializer(g.0, init);
            LLVMSetGlobalConstant(g.0, 1);
            LLVMSetLinkage(g.0, llvm_sys::LLVMLinkage::LLVMPrivateLinkage);
            LLVMSetUnnamedAddress(g.0, llvm_sys::LLVMUnnamedAddr::LLVMGlobalUnnamedAddr);
        }
        g
    }

    /// A copy of the whole module, in the same context.
    pub fn clone_module(self) -> OwnedModule<'ctx> {
        OwnedModule { raw: unsafe { LLVMCloneModule(self.0) }, ctx: PhantomData }
    }
}

/// A module owned by Rust code (not by an inkwell wrapper): disposed on
/// drop unless it is linked into another module.
pub struct OwnedModule<'ctx> {
    raw: LLVMModuleRef,
    ctx: PhantomData<&'ctx ()>,
}

impl<'ctx> OwnedModule<'ctx> {
    /// A new empty module in a context.
    pub fn new_in(ctx: Context<'ctx>, name: &str) -> OwnedModule<'ctx> {
        let c = cstring(name);
        OwnedModule { raw: unsafe { LLVMModuleCreateWithNameInContext(c.as_ptr(), ctx.0) }, ctx: PhantomData }
    }

    /// The module's handle, branded with the borrow of `self`: neither it
    /// nor any handle reached from it can be used once `self` is dropped or
    /// linked away.
    ///
    /// ```compile_fail,E0505
    /// use batchify_core::llvm::Module;
    ///
    /// let context = inkwell::context::Context::create();
    /// let module = context.create_module("m");
    /// module.add_function("f", context.void_type().fn_type(&[], false), None);
    /// let copy = Module::from_inkwell(&module).clone_module();
    /// let function = copy.module().function("f").unwrap();
    /// drop(copy); // disposes the copy
    /// println!("{}", function.name());
    /// ```
    pub fn module(&self) -> Module<'_> {
        Module(self.raw, PhantomData)
    }

    /// Links this module into `dest` (LLVM's linker consumes it either way).
    pub fn link_into(self, dest: Module<'ctx>) -> Result<(), String> {
        let raw = self.raw;
        std::mem::forget(self);
        if unsafe { llvm_sys::linker::LLVMLinkModules2(dest.0, raw) } != 0 {
            return Err("linking failed".into());
        }
        Ok(())
    }
}

impl Drop for OwnedModule<'_> {
    fn drop(&mut self) {
        unsafe { LLVMDisposeModule(self.raw) }
    }
}

/// Parses textual IR into a module of `ctx`.
///
/// inkwell 0.11's `Context::create_module_from_ir` leaks its buffer with
/// LLVM 22 (it calls `LLVMParseIRInContext2`, which does not consume the
/// buffer, and then forgets it): about the size of the IR per call, which
/// adds up over a long fuzzing run. This frees it.
pub fn parse_ir<'c>(
    ctx: &'c inkwell::context::Context,
    text: &str,
    name: &str,
) -> Result<inkwell::module::Module<'c>, String> {
    let cname = std::ffi::CString::new(name).map_err(|e| e.to_string())?;
    // SAFETY: the buffer is a copy owned here and disposed after parsing;
    // the module belongs to `ctx`, which outlives the returned `Module<'c>`.
    unsafe {
        let buf = LLVMCreateMemoryBufferWithMemoryRangeCopy(text.as_ptr().cast(), text.len(), cname.as_ptr());
        let (mut module, mut err) = (std::ptr::null_mut(), std::ptr::null_mut());
        let failed = llvm_sys::ir_reader::LLVMParseIRInContext2(ctx.raw(), buf, &mut module, &mut err);
        LLVMDisposeMemoryBuffer(buf);
        if failed != 0 {
            let msg = if err.is_null() {
                "unknown parse error".to_string()
            } else {
                let m = CStr::from_ptr(err).to_string_lossy().into_owned();
                LLVMDisposeMessage(err);
                m
            };
            return Err(msg);
        }
        Ok(inkwell::module::Module::new(module))
    }
}

/// Installs a process-wide handler for LLVM's fatal errors, which gets
/// the reason (LLVM exits the process after calling it). Only the first
/// call installs; later calls keep the first handler.
pub fn install_fatal_error_handler(handler: fn(&str)) {
    static HANDLER: std::sync::OnceLock<fn(&str)> = std::sync::OnceLock::new();
    extern "C" fn trampoline(reason: *const std::ffi::c_char) {
        let reason = if reason.is_null() {
            String::new()
        } else {
            // SAFETY: LLVM passes a NUL-terminated string.
            unsafe { CStr::from_ptr(reason) }.to_string_lossy().into_owned()
        };
        if let Some(h) = HANDLER.get() {
            h(&reason);
        }
    }
    if HANDLER.set(handler).is_ok() {
        // SAFETY: the trampoline only reads the reason and calls a Rust function.
        unsafe { llvm_sys::error_handling::LLVMInstallFatalErrorHandler(Some(trampoline)) }
    }
}
