//! Preparing the oracle's private copy of a module for the JIT.
//!
//! * Every function definition gets external linkage and default
//!   visibility (and leaves its comdat), so functions of any linkage can be
//!   called, and `available_externally` bodies become real definitions.
//! * Functions whose bodies hold inline asm, and the module-level asm, are
//!   dropped: the body becomes a trap. So is every declaration that the test
//!   process cannot resolve (say, a function of a library that is not
//!   linked), and every unresolvable external variable gets a zero
//!   definition. The side-effect recorder ([`crate::recorder`]) is never
//!   dropped: the oracle's JIT provides it. The JIT then compiles the rest of the module.
//! * Functions that reach such a dropped function or variable, directly or
//!   through other functions, are *tainted*: checks involving them are
//!   skipped with the reason.
//! * `unreachable` gets a trap in front of it, so that reaching it faults
//!   (SIGILL) instead of running into whatever code follows.

use batchify_core::llvm::{
    constant, Builder, LLVMDLLStorageClass, LLVMLinkage, LLVMOpcode, LLVMVisibility, Module, Type, Value,
};
use std::collections::{HashMap, HashSet};
use std::ffi::CString;

/// Functions (by name) the oracle cannot run, with the reason.
pub type Tainted = HashMap<String, String>;

fn instructions(f: Value) -> Vec<Value> {
    f.blocks().into_iter().flat_map(|b| b.instructions()).collect()
}

fn is_definition(f: Value) -> bool {
    !f.is_declaration()
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
fn referenced_globals<'ctx>(v: Value<'ctx>, out: &mut Vec<Value<'ctx>>, seen: &mut HashSet<Value<'ctx>>, depth: u32) {
    if v.is_global_value() {
        out.push(v);
        return;
    }
    if depth > 8 || !v.is_constant() || !seen.insert(v) {
        return;
    }
    for o in v.present_operands() {
        referenced_globals(o, out, seen, depth + 1);
    }
}

fn uses_of_instruction<'ctx>(i: Value<'ctx>, out: &mut Vec<Value<'ctx>>) {
    let mut seen = HashSet::new();
    for o in i.present_operands() {
        referenced_globals(o, out, &mut seen, 0);
    }
}

fn has_inline_asm(f: Value) -> bool {
    instructions(f)
        .into_iter()
        .any(|i| (i.is_call() || i.is_callbr() || i.is_invoke()) && i.called_value().is_inline_asm())
}

fn trap_decl(m: Module) -> (Type, Value) {
    let f = m.intrinsic("llvm.trap", &[]).expect("llvm.trap is an intrinsic");
    (Type::function(Type::void(m.context()), &[]), f)
}

/// Replaces the body of `f` (definition or declaration) with a trap.
fn stub_body(m: Module, f: Value) {
    let insts = instructions(f);
    for &i in &insts {
        let ty = i.ty();
        if !ty.is_void() {
            i.replace_all_uses_with(constant::poison(ty));
        }
    }
    for &i in insts.iter().rev() {
        i.erase();
    }
    for b in f.blocks() {
        b.delete();
    }
    f.clear_personality();
    let entry = f.append_block("oracle.dropped");
    let b = Builder::new(m.context());
    b.position_at_end(entry);
    let (tty, trap) = trap_decl(m);
    b.call(tty, trap, &[]);
    b.unreachable();
    drop(b);
    f.set_linkage(LLVMLinkage::LLVMExternalLinkage);
}

/// Prepares the module copy as described in the module documentation and
/// returns the functions that cannot be run, by name, with the reason.
pub fn prepare(m: Module) -> Tainted {
    use LLVMLinkage::*;
    let mut dropped: HashMap<Value, String> = HashMap::new();

    // Module-level asm: drop it; declarations it may have defined are then
    // unresolved and handled below.
    let module_asm = m.inline_asm();
    if !module_asm.is_empty() {
        m.clear_inline_asm();
    }

    for (n, f) in m.functions().into_iter().enumerate() {
        let name = f.name();
        if name.starts_with("llvm.") {
            continue;
        }
        if is_definition(f) {
            if has_inline_asm(f) {
                dropped.insert(f, format!("`{name}` contains inline asm, which the oracle's JIT does not assemble"));
                stub_body(m, f);
            }
            if name.is_empty() {
                f.set_name(&format!("__oracle_unnamed.{n}"));
            }
            f.set_linkage(LLVMExternalLinkage);
            f.set_visibility(LLVMVisibility::LLVMDefaultVisibility);
            f.clear_comdat();
            f.set_dll_storage_class(LLVMDLLStorageClass::LLVMDefaultStorageClass);
        } else if !process_has_symbol(&name) && name != crate::recorder::SYMBOL {
            let why = if !module_asm.is_empty() && module_asm.contains(name.as_str()) {
                format!("`{name}` is defined by module-level asm, which the oracle's JIT does not assemble")
            } else {
                format!("`{name}` is declared but the test process has no such symbol")
            };
            dropped.insert(f, why);
            stub_body(m, f);
        }
    }
    for g in m.global_variables() {
        match g.linkage() {
            LLVMAvailableExternallyLinkage => g.set_linkage(LLVMExternalLinkage),
            LLVMExternalLinkage | LLVMExternalWeakLinkage if g.is_declaration() => {
                let name = g.name();
                if !process_has_symbol(&name) {
                    g.set_initializer(constant::null(g.global_value_type()));
                    g.set_linkage(LLVMExternalLinkage);
                    dropped.insert(g, format!("`{name}` is an external variable the test process does not have"));
                }
            }
            _ => {}
        }
    }

    // Taint: a function that refers to a dropped global, directly or through
    // the functions it refers to.
    let fns = m.functions();
    let mut refs: HashMap<Value, Vec<Value>> = HashMap::new();
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
    let mut tainted: HashMap<Value, String> = dropped.clone();
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
        .filter(|(v, _)| v.is_function())
        .map(|(f, why)| {
            let why = if dropped.contains_key(&f) { why } else { format!("it reaches code the oracle dropped: {why}") };
            (f.name(), why)
        })
        .collect();
    trap_unreachables(m);
    out
}

/// Puts `llvm.trap` before every `unreachable`.
fn trap_unreachables(m: Module) {
    let (tty, trap) = trap_decl(m);
    let b = Builder::new(m.context());
    for f in m.functions() {
        for i in instructions(f) {
            if i.opcode() == LLVMOpcode::LLVMUnreachable {
                let prev = i.previous_instruction();
                let already = prev.is_some_and(|p| p.is_call() && p.called_value() == trap);
                if !already {
                    b.position_before(i);
                    b.call(tty, trap, &[]);
                }
            }
        }
    }
}

/// Adds an `i8` global named `name` with value `init` to the oracle's copy
/// of the module (for the paint byte and the poison flag, which the oracle
/// sets and reads at run time).
pub fn add_byte_global<'ctx>(module: Module<'ctx>, name: &str, init: u8) -> Value<'ctx> {
    let i8t = Type::int(module.context(), 8);
    let g = module.add_global(i8t, name);
    g.set_initializer(constant::int(i8t, init as u64));
    g
}

/// The functions with a body that the oracle instruments: all but the
/// clones named in `except` and LLVM's intrinsics.
pub fn scalar_code<'ctx>(module: Module<'ctx>, except: &HashSet<String>) -> Vec<Value<'ctx>> {
    module
        .functions()
        .into_iter()
        .filter(|f| !f.is_declaration() && !except.contains(&f.name()) && !f.name().starts_with("llvm."))
        .collect()
}
