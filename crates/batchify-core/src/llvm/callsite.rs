//! Call-site attributes and `@llvm.compiler.used`, for the caller side
//! (`crate::callers`) and the `__enzyme_batch` calls (`crate::enzyme_batch`).

use super::{constant, Module, Type, Value};
use llvm_sys::core::*;
use std::marker::PhantomData;

impl<'ctx> Value<'ctx> {
    /// Call: the value of the call site's function string attribute `key`.
    pub fn call_string_attribute(self, key: &str) -> Option<String> {
        let a = unsafe {
            LLVMGetCallSiteStringAttribute(self.0, super::FUNCTION_INDEX, key.as_ptr() as *const _, key.len() as u32)
        };
        (!a.is_null()).then(|| super::attribute_string_value(super::Attribute(a, PhantomData)))
    }

    /// Call: the type of the call site's type attribute `name` (`sret`,
    /// `byval`, ...) on argument `arg` (zero-based), if it has one.
    pub fn call_arg_type_attribute(self, arg: u32, name: &str) -> Option<Type<'ctx>> {
        let kind = super::enum_attribute_kind(name);
        if kind == 0 {
            return None;
        }
        let a = unsafe { LLVMGetCallSiteEnumAttribute(self.0, arg + 1, kind) };
        (!a.is_null()).then(|| Type(unsafe { LLVMGetTypeAttributeValue(a) }, PhantomData))
    }

    /// Call: sets the call site's function string attribute `key` to `value`.
    pub fn set_call_string_attribute(self, key: &str, value: &str) {
        unsafe {
            LLVMRemoveCallSiteStringAttribute(
                self.0,
                super::FUNCTION_INDEX,
                key.as_ptr() as *const _,
                key.len() as u32,
            );
            let ctx = LLVMGetTypeContext(LLVMTypeOf(self.0));
            let a = LLVMCreateStringAttribute(
                ctx,
                key.as_ptr() as *const _,
                key.len() as u32,
                value.as_ptr() as *const _,
                value.len() as u32,
            );
            LLVMAddCallSiteAttribute(self.0, super::FUNCTION_INDEX, a);
        }
    }
}

impl<'ctx> Module<'ctx> {
    /// Adds `globals` to `@llvm.compiler.used` (created if missing), once
    /// each: the optimiser keeps them even without uses.
    pub fn append_to_compiler_used(self, globals: &[Value<'ctx>]) {
        let ptr = Type::ptr(self.context());
        let old = self.global_variables().into_iter().find(|g| g.name() == "llvm.compiler.used");
        let mut members: Vec<Value> = old
            .and_then(|g| g.initializer())
            .map(|init| (0..init.num_operands()).map(|i| init.operand(i)).collect())
            .unwrap_or_default();
        let before = members.len();
        for g in globals {
            if !members.contains(g) {
                members.push(*g);
            }
        }
        if members.len() == before {
            return;
        }
        if let Some(g) = old {
            g.delete_global();
        }
        let init = constant::array(ptr, &members);
        let g = self.add_global(init.ty(), "llvm.compiler.used");
        g.set_initializer(init);
        g.set_linkage(llvm_sys::LLVMLinkage::LLVMAppendingLinkage);
        g.set_section("llvm.metadata");
    }
}
