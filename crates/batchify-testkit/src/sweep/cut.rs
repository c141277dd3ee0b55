//! Cutting one function out of its module: a small module of its own that
//! keeps what the function references.

use batchify_core::llvm::{constant, LLVMLinkage, LLVMVisibility, Module, Type, Value};
use std::collections::HashSet;

/// Functions in this section are support code the sweep links in
/// (`tools/sweep/newlib-shims.c`), not part of a code base.
pub const SHIM_SECTION: &str = "batchify.sweep.shim";

/// The functions with a body, in module order (intrinsics and shims excluded), with
/// their parameter counts.
pub fn defined_functions(module: &inkwell::module::Module<'_>) -> Vec<(String, usize)> {
    Module::from_inkwell(module)
        .functions()
        .into_iter()
        .filter(|f| {
            let shim = f.section().is_some_and(|s| s == SHIM_SECTION);
            !f.is_declaration() && f.intrinsic_id() == 0 && !shim
        })
        .map(|f| (f.name(), f.params().len()))
        .collect()
}

/// The globals that `root` references, transitively (itself included).
fn reachable<'ctx>(root: Value<'ctx>) -> HashSet<Value<'ctx>> {
    let mut seen: HashSet<Value> = HashSet::new();
    let mut globals: HashSet<Value> = HashSet::new();
    let mut work: Vec<Value> = vec![root];
    seen.insert(root);
    globals.insert(root);
    let mut visit = |v: Option<Value<'ctx>>, work: &mut Vec<Value<'ctx>>, seen: &mut HashSet<Value<'ctx>>| {
        let Some(v) = v else { return };
        if !seen.insert(v) {
            return;
        }
        if v.is_global_value() {
            globals.insert(v);
            work.push(v);
        } else if v.is_constant() {
            work.push(v);
        }
    };
    while let Some(v) = work.pop() {
        if v.is_function() {
            if let Some(p) = v.personality() {
                visit(Some(p), &mut work, &mut seen);
            }
            for bb in v.blocks() {
                for i in bb.instructions() {
                    for o in i.present_operands() {
                        visit(Some(o), &mut work, &mut seen);
                    }
                }
            }
        } else if v.is_global_variable() {
            visit(v.initializer(), &mut work, &mut seen);
        } else if v.is_global_alias() {
            visit(v.aliasee(), &mut work, &mut seen);
        } else if v.is_global_ifunc() {
            visit(v.ifunc_resolver(), &mut work, &mut seen);
        } else if v.is_constant() && !v.is_block_address() {
            for o in v.present_operands() {
                visit(Some(o), &mut work, &mut seen);
            }
        }
    }
    globals
}

/// Bitcode of a copy of `module` that keeps `name` and everything it
/// references, and nothing else (the others are dropped by `globaldce`
/// after their linkage is made internal). Linkage, calling conventions and
/// attributes of what is kept do not change.
pub fn cut_out(module: &inkwell::module::Module<'_>, name: &str) -> Result<Vec<u8>, String> {
    // A private copy, disposed here.
    let owned = Module::from_inkwell(module).clone_module();
    let m = owned.module();
    std::ffi::CString::new(name).map_err(|e| e.to_string())?;
    let Some(f) = m.function(name) else {
        return Err(format!("no function `{name}`"));
    };
    let keep = reachable(f);
    for g in m.global_values() {
        if g.linkage() == LLVMLinkage::LLVMAppendingLinkage {
            g.delete_global();
            continue;
        }
        if keep.contains(&g) || g.is_declaration() {
            continue;
        }
        g.set_linkage(LLVMLinkage::LLVMInternalLinkage);
        g.set_visibility(LLVMVisibility::LLVMDefaultVisibility);
        if g.is_global_object() {
            // Aliases and ifuncs have no comdat of their own.
            g.clear_comdat();
        }
    }
    // Keep `f` itself even if it is internal.
    let arr = constant::array(Type::ptr(m.context()), &[f]);
    let used = m.add_global(arr.ty(), "llvm.compiler.used");
    used.set_initializer(arr);
    used.set_linkage(LLVMLinkage::LLVMAppendingLinkage);
    used.set_section("llvm.metadata");
    batchify_core::llvm::run_module_passes(m, "globaldce")?;
    used.delete_global();
    m.verify().map_err(|e| format!("the cut-out module does not verify: {e}"))?;
    Ok(m.to_bitcode())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::parse_module;
    use inkwell::context::Context;

    #[test]
    fn cut_out_keeps_what_the_function_references() {
        let ir = r#"
@table = internal constant [2 x i32] [i32 1, i32 2]
@other = global i32 7
@llvm.used = appending global [1 x ptr] [ptr @unrelated], section "llvm.metadata"
define internal fastcc i32 @helper(i32 %x) {
  %p = getelementptr [2 x i32], ptr @table, i32 0, i32 %x
  %v = load i32, ptr %p
  ret i32 %v
}
define internal i32 @f(i32 %x) {
  %r = call fastcc i32 @helper(i32 %x)
  ret i32 %r
}
define i32 @unrelated() {
  %v = load i32, ptr @other
  ret i32 %v
}
"#;
        let ctx = Context::create();
        let m = parse_module(&ctx, ir.as_bytes(), "t").expect("parses");
        let names: Vec<String> = defined_functions(&m).into_iter().map(|(n, _)| n).collect();
        assert_eq!(names, ["helper", "f", "unrelated"]);
        let bc = cut_out(&m, "f").expect("cuts out");
        let ctx2 = Context::create();
        let cut = parse_module(&ctx2, &bc, "cut").expect("parses");
        let text = cut.print_to_string().to_string();
        assert!(text.contains("define internal i32 @f("), "{text}");
        assert!(text.contains("define internal fastcc i32 @helper("), "{text}");
        assert!(text.contains("@table = internal constant"), "{text}");
        assert!(!text.contains("@unrelated") && !text.contains("@other") && !text.contains("llvm.used"), "{text}");
    }
}
