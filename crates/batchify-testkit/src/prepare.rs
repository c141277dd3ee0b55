//! Preparing the oracle's private copy of a module for the JIT.
//!
//! * Every function definition gets external linkage and default
//!   visibility (and leaves its comdat), so functions of any linkage can be
//!   called, and `available_externally` bodies become real definitions.
//! * Functions whose bodies hold inline asm, and the module-level asm, are
//!   dropped: the body becomes a trap. So is every declaration that the test
//!   process cannot resolve (say, a function of a library that is not
//!   linked), and every unresolvable external variable gets a zero
//!   definition. The JIT then compiles the rest of the module.
//! * Functions that reach such a dropped function or variable, directly or
//!   through other functions, are *tainted*: checks involving them are
//!   skipped with the reason.
//! * `unreachable` gets a trap in front of it, so that reaching it faults
//!   (SIGILL) instead of running into whatever code follows.

use llvm_sys::core::*;
use llvm_sys::prelude::*;
use std::collections::{HashMap, HashSet};
use std::ffi::CString;

/// Functions (by name) the oracle cannot run, with the reason.
pub type Tainted = HashMap<String, String>;

fn name_of(v: LLVMValueRef) -> String {
    let mut len = 0;
    // SAFETY: returns a pointer into the value's name, valid while it lives.
    let p = unsafe { LLVMGetValueName2(v, &mut len) };
    if p.is_null() {
        return String::new();
    }
    String::from_utf8_lossy(unsafe { std::slice::from_raw_parts(p as *const u8, len) }).into_owned()
}

/// The module's functions, as raw handles.
fn functions(m: LLVMModuleRef) -> Vec<LLVMValueRef> {
    batchify_core::llvm::Module(m).functions().into_iter().map(|v| v.0).collect()
}

/// The module's global variables, as raw handles.
fn globals(m: LLVMModuleRef) -> Vec<LLVMValueRef> {
    batchify_core::llvm::Module(m).global_variables().into_iter().map(|v| v.0).collect()
}

fn instructions(f: LLVMValueRef) -> Vec<LLVMValueRef> {
    let mut out = Vec::new();
    unsafe {
        let mut b = LLVMGetFirstBasicBlock(f);
        while !b.is_null() {
            let mut i = LLVMGetFirstInstruction(b);
            while !i.is_null() {
                out.push(i);
                i = LLVMGetNextInstruction(i);
            }
            b = LLVMGetNextBasicBlock(b);
        }
    }
    out
}

fn is_definition(f: LLVMValueRef) -> bool {
    unsafe { LLVMIsDeclaration(f) == 0 }
}

/// Whether the process can resolve `name` (as the JIT would, through
/// `dlsym` on the whole process).
pub fn process_has_symbol(name: &str) -> bool {
    // `\x01` asks LLVM not to mangle the rest of the name.
    let name = name.strip_prefix('\x01').unwrap_or(name);
    let Ok(c) = CString::new(name) else { return false };
    // SAFETY: dlsym with RTLD_DEFAULT only looks the name up.
    !unsafe { libc::dlsym(libc::RTLD_DEFAULT, c.as_ptr()) }.is_null()
}

/// Globals (functions and variables) a value refers to, looking through
/// constant expressions and aggregates.
fn referenced_globals(v: LLVMValueRef, out: &mut Vec<LLVMValueRef>, seen: &mut HashSet<LLVMValueRef>, depth: u32) {
    unsafe {
        if !LLVMIsAGlobalValue(v).is_null() {
            out.push(v);
            return;
        }
        if depth > 8 || LLVMIsAConstant(v).is_null() || !seen.insert(v) {
            return;
        }
        let n = LLVMGetNumOperands(v);
        for i in 0..n.max(0) as u32 {
            let o = LLVMGetOperand(v, i);
            if !o.is_null() {
                referenced_globals(o, out, seen, depth + 1);
            }
        }
    }
}

fn uses_of_instruction(i: LLVMValueRef, out: &mut Vec<LLVMValueRef>) {
    let mut seen = HashSet::new();
    unsafe {
        for k in 0..LLVMGetNumOperands(i).max(0) as u32 {
            let o = LLVMGetOperand(i, k);
            if !o.is_null() {
                referenced_globals(o, out, &mut seen, 0);
            }
        }
    }
}

fn has_inline_asm(f: LLVMValueRef) -> bool {
    instructions(f).into_iter().any(|i| unsafe {
        (!LLVMIsACallInst(i).is_null() || !LLVMIsACallBrInst(i).is_null() || !LLVMIsAInvokeInst(i).is_null())
            && !LLVMIsAInlineAsm(LLVMGetCalledValue(i)).is_null()
    })
}

fn trap_decl(m: LLVMModuleRef) -> (LLVMTypeRef, LLVMValueRef) {
    unsafe {
        let name = c"llvm.trap";
        let id = LLVMLookupIntrinsicID(name.as_ptr(), 9);
        let ctx = LLVMGetModuleContext(m);
        let f = LLVMGetIntrinsicDeclaration(m, id, std::ptr::null_mut(), 0);
        (LLVMFunctionType(LLVMVoidTypeInContext(ctx), std::ptr::null_mut(), 0, 0), f)
    }
}

/// Replaces the body of `f` (definition or declaration) with a trap.
fn stub_body(m: LLVMModuleRef, f: LLVMValueRef) {
    unsafe {
        let insts = instructions(f);
        for &i in &insts {
            let ty = LLVMTypeOf(i);
            if LLVMGetTypeKind(ty) != llvm_sys::LLVMTypeKind::LLVMVoidTypeKind {
                LLVMReplaceAllUsesWith(i, LLVMGetPoison(ty));
            }
        }
        for &i in insts.iter().rev() {
            LLVMInstructionEraseFromParent(i);
        }
        let mut b = LLVMGetFirstBasicBlock(f);
        while !b.is_null() {
            let next = LLVMGetNextBasicBlock(b);
            LLVMDeleteBasicBlock(b);
            b = next;
        }
        if LLVMHasPersonalityFn(f) != 0 {
            LLVMSetPersonalityFn(f, std::ptr::null_mut());
        }
        let ctx = LLVMGetModuleContext(m);
        let entry = LLVMAppendBasicBlockInContext(ctx, f, c"oracle.dropped".as_ptr());
        let b = LLVMCreateBuilderInContext(ctx);
        LLVMPositionBuilderAtEnd(b, entry);
        let (tty, trap) = trap_decl(m);
        LLVMBuildCall2(b, tty, trap, std::ptr::null_mut(), 0, c"".as_ptr());
        LLVMBuildUnreachable(b);
        LLVMDisposeBuilder(b);
        LLVMSetLinkage(f, llvm_sys::LLVMLinkage::LLVMExternalLinkage);
    }
}

/// Prepares the module copy as described in the module documentation and
/// returns the functions that cannot be run, by name, with the reason.
pub fn prepare(module: batchify_core::llvm::Module) -> Tainted {
    use llvm_sys::LLVMLinkage::*;
    let m = module.0;
    let mut dropped: HashMap<LLVMValueRef, String> = HashMap::new();

    // Module-level asm: drop it; declarations it may have defined are then
    // unresolved and handled below.
    let mut len = 0;
    let asm = unsafe { LLVMGetModuleInlineAsm(m, &mut len) };
    let module_asm = if asm.is_null() || len == 0 {
        String::new()
    } else {
        String::from_utf8_lossy(unsafe { std::slice::from_raw_parts(asm as *const u8, len) }).into_owned()
    };
    if !module_asm.is_empty() {
        unsafe { LLVMSetModuleInlineAsm2(m, c"".as_ptr(), 0) };
    }

    for (n, f) in functions(m).into_iter().enumerate() {
        let name = name_of(f);
        if name.starts_with("llvm.") {
            continue;
        }
        if is_definition(f) {
            if has_inline_asm(f) {
                dropped.insert(f, format!("`{name}` contains inline asm, which the oracle's JIT does not assemble"));
                stub_body(m, f);
            }
            unsafe {
                if name.is_empty() {
                    let c = CString::new(format!("__oracle_unnamed.{n}")).expect("no NUL");
                    LLVMSetValueName2(f, c.as_ptr(), c.as_bytes().len());
                }
                LLVMSetLinkage(f, LLVMExternalLinkage);
                LLVMSetVisibility(f, llvm_sys::LLVMVisibility::LLVMDefaultVisibility);
                llvm_sys::comdat::LLVMSetComdat(f, std::ptr::null_mut());
                LLVMSetDLLStorageClass(f, llvm_sys::LLVMDLLStorageClass::LLVMDefaultStorageClass);
            }
        } else if !process_has_symbol(&name) {
            let why = if !module_asm.is_empty() && module_asm.contains(name.as_str()) {
                format!("`{name}` is defined by module-level asm, which the oracle's JIT does not assemble")
            } else {
                format!("`{name}` is declared but the test process has no such symbol")
            };
            dropped.insert(f, why);
            stub_body(m, f);
        }
    }
    for g in globals(m) {
        unsafe {
            match LLVMGetLinkage(g) {
                LLVMAvailableExternallyLinkage => LLVMSetLinkage(g, LLVMExternalLinkage),
                LLVMExternalLinkage | LLVMExternalWeakLinkage if LLVMIsDeclaration(g) != 0 => {
                    let name = name_of(g);
                    if !process_has_symbol(&name) {
                        let ty = LLVMGlobalGetValueType(g);
                        LLVMSetInitializer(g, LLVMConstNull(ty));
                        LLVMSetLinkage(g, LLVMExternalLinkage);
                        dropped.insert(g, format!("`{name}` is an external variable the test process does not have"));
                    }
                }
                _ => {}
            }
        }
    }

    // Taint: a function that refers to a dropped global, directly or through
    // the functions it refers to.
    let fns = functions(m);
    let mut refs: HashMap<LLVMValueRef, Vec<LLVMValueRef>> = HashMap::new();
    for &f in &fns {
        if !is_definition(f) || dropped.contains_key(&f) {
            continue;
        }
        let mut out = Vec::new();
        for i in instructions(f) {
            uses_of_instruction(i, &mut out);
        }
        out.sort();
        out.dedup();
        refs.insert(f, out);
    }
    let mut tainted: HashMap<LLVMValueRef, String> = dropped.clone();
    loop {
        let mut changed = false;
        for (&f, rs) in &refs {
            if tainted.contains_key(&f) {
                continue;
            }
            if let Some(why) = rs.iter().find_map(|r| tainted.get(r)) {
                let why = why.clone();
                tainted.insert(f, why);
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    let out: Tainted = tainted
        .into_iter()
        .filter(|(v, _)| unsafe { !LLVMIsAFunction(*v).is_null() })
        .map(|(f, why)| {
            let why = if dropped.contains_key(&f) { why } else { format!("it reaches code the oracle dropped: {why}") };
            (name_of(f), why)
        })
        .collect();
    trap_unreachables(m);
    out
}

/// Puts `llvm.trap` before every `unreachable`.
fn trap_unreachables(m: LLVMModuleRef) {
    let (tty, trap) = trap_decl(m);
    unsafe {
        let b = LLVMCreateBuilderInContext(LLVMGetModuleContext(m));
        for f in functions(m) {
            for i in instructions(f) {
                if LLVMGetInstructionOpcode(i) == llvm_sys::LLVMOpcode::LLVMUnreachable {
                    let prev = LLVMGetPreviousInstruction(i);
                    let already =
                        !prev.is_null() && !LLVMIsACallInst(prev).is_null() && LLVMGetCalledValue(prev) == trap;
                    if !already {
                        LLVMPositionBuilderBefore(b, i);
                        LLVMBuildCall2(b, tty, trap, std::ptr::null_mut(), 0, c"".as_ptr());
                    }
                }
            }
        }
        LLVMDisposeBuilder(b);
    }
}

/// Adds an `i8` global named `name` with value `init` to the oracle's copy
/// of the module (for the paint byte and the poison flag, which the oracle
/// sets and reads at run time).
pub fn add_byte_global(module: batchify_core::llvm::Module, name: &str, init: u8) -> batchify_core::llvm::Value {
    use batchify_core::llvm::{constant, Type, Value};
    let i8t = Type::int(module.context(), 8);
    let c = CString::new(name).expect("no NUL");
    // SAFETY: adds a global to a live module.
    unsafe {
        let g = LLVMAddGlobal(module.0, i8t.0, c.as_ptr());
        LLVMSetInitializer(g, constant::int(i8t, init as u64).0);
        Value(g)
    }
}

/// The functions with a body that the oracle instruments: all but the
/// clones named in `except` and LLVM's intrinsics.
pub fn scalar_code(module: batchify_core::llvm::Module, except: &HashSet<String>) -> Vec<batchify_core::llvm::Value> {
    module
        .functions()
        .into_iter()
        .filter(|f| !f.is_declaration() && !except.contains(&f.name()) && !f.name().starts_with("llvm."))
        .collect()
}
