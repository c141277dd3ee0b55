//! Value, type, block and attribute queries and edits beyond the
//! transform's needs, for the test kit's preparation of modules (the
//! oracle's JIT copy, the sweep's cut-out functions, calling wrappers):
//! instruction and global kinds, global properties (section, visibility,
//! comdat, initializer), wrap flags, metadata, attribute contents.

use super::{constant, Attribute, Block, Type, Value};
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use std::ffi::CStr;
use std::marker::PhantomData;

/// `Some` handle unless LLVM returned null.
fn value<'ctx>(raw: LLVMValueRef) -> Option<Value<'ctx>> {
    (!raw.is_null()).then_some(Value(raw, PhantomData))
}

impl<'ctx> Value<'ctx> {
    /// Whether this is `undef` or `poison` (the whole value, not elements).
    pub fn is_undef(self) -> bool {
        unsafe { LLVMIsUndef(self.0) != 0 }
    }
    /// Whether this is a `call` instruction.
    pub fn is_call(self) -> bool {
        unsafe { !LLVMIsACallInst(self.0).is_null() }
    }
    /// Whether this is an `invoke` instruction.
    pub fn is_invoke(self) -> bool {
        unsafe { !LLVMIsAInvokeInst(self.0).is_null() }
    }
    /// Invoke: the block its unwinding edge goes to.
    pub fn unwind_dest(self) -> Option<Block<'ctx>> {
        if !self.is_invoke() {
            return None;
        }
        Some(Block(unsafe { LLVMGetUnwindDest(self.0) }, PhantomData))
    }
    /// Whether this is a `callbr` instruction.
    pub fn is_callbr(self) -> bool {
        unsafe { !LLVMIsACallBrInst(self.0).is_null() }
    }
    /// Whether this is a `getelementptr` instruction.
    pub fn is_gep_instruction(self) -> bool {
        unsafe { !LLVMIsAGetElementPtrInst(self.0).is_null() }
    }
    /// Whether this is a `trunc` instruction.
    pub fn is_trunc(self) -> bool {
        unsafe { !LLVMIsATruncInst(self.0).is_null() }
    }
    /// Whether this is a global value (function, variable, alias, ifunc).
    pub fn is_global_value(self) -> bool {
        unsafe { !LLVMIsAGlobalValue(self.0).is_null() }
    }
    /// Whether this is a global object (function or variable: what can
    /// be in a comdat).
    pub fn is_global_object(self) -> bool {
        unsafe { !LLVMIsAGlobalObject(self.0).is_null() }
    }
    /// Whether this is a global variable.
    pub fn is_global_variable(self) -> bool {
        unsafe { !LLVMIsAGlobalVariable(self.0).is_null() }
    }
    /// Whether this is a global alias.
    pub fn is_global_alias(self) -> bool {
        unsafe { !LLVMIsAGlobalAlias(self.0).is_null() }
    }
    /// Whether this is a global ifunc.
    pub fn is_global_ifunc(self) -> bool {
        unsafe { !LLVMIsAGlobalIFunc(self.0).is_null() }
    }
    /// The string of a metadata string used as a value (`metadata !"abc"`
    /// as a call argument), else `None`.
    pub fn metadata_string(self) -> Option<String> {
        if unsafe { LLVMGetValueKind(self.0) } != llvm_sys::LLVMValueKind::LLVMMetadataAsValueValueKind {
            return None;
        }
        let mut len = 0u32;
        let p = unsafe { LLVMGetMDString(self.0, &mut len) };
        (!p.is_null()).then(|| {
            // SAFETY: LLVM returned `len` bytes owned by the context.
            let bytes = unsafe { std::slice::from_raw_parts(p as *const u8, len as usize) };
            String::from_utf8_lossy(bytes).into_owned()
        })
    }
    /// Whether this is a `blockaddress` constant.
    pub fn is_block_address(self) -> bool {
        unsafe { !LLVMIsABlockAddress(self.0).is_null() }
    }
    /// The operands that are present (an operand slot may be empty), in
    /// order.
    pub fn present_operands(self) -> Vec<Value<'ctx>> {
        let n = unsafe { LLVMGetNumOperands(self.0) }.max(0) as u32;
        (0..n).filter_map(|i| value(unsafe { LLVMGetOperand(self.0, i) })).collect()
    }
    /// Instruction: the previous instruction in the block.
    pub fn previous_instruction(self) -> Option<Value<'ctx>> {
        value(unsafe { LLVMGetPreviousInstruction(self.0) })
    }
    /// Integer instruction: whether it has the `nsw` flag.
    pub fn has_nsw(self) -> bool {
        unsafe { LLVMGetNSW(self.0) != 0 }
    }
    /// Integer instruction (`trunc` included): whether it has the `nuw` flag.
    pub fn has_nuw(self) -> bool {
        unsafe { LLVMGetNUW(self.0) != 0 }
    }
    /// Load/store: sets the volatile flag.
    pub fn set_volatile(self, volatile: bool) {
        unsafe { LLVMSetVolatile(self.0, volatile as LLVMBool) }
    }
    /// Load/store/alloca/global: sets the alignment.
    pub fn set_alignment(self, align: u32) {
        unsafe { LLVMSetAlignment(self.0, align) }
    }
    /// Alloca: the allocated type.
    pub fn allocated_type(self) -> Type<'ctx> {
        Type(unsafe { LLVMGetAllocatedType(self.0) }, PhantomData)
    }
    /// Instruction: the operands of its `!kind` metadata node (`None` if
    /// it has none), as values (`None` for an operand that is not one).
    pub fn metadata_operands(self, kind: &str) -> Option<Vec<Option<Value<'ctx>>>> {
        unsafe {
            let ctx = LLVMGetTypeContext(LLVMTypeOf(self.0));
            let id = LLVMGetMDKindIDInContext(ctx, kind.as_ptr() as *const _, kind.len() as u32);
            let md = LLVMGetMetadata(self.0, id);
            if md.is_null() {
                return None;
            }
            let mut ops = vec![std::ptr::null_mut(); LLVMGetMDNodeNumOperands(md) as usize];
            LLVMGetMDNodeOperands(md, ops.as_mut_ptr());
            Some(ops.into_iter().map(value).collect())
        }
    }
    /// Global (a function): drops its metadata attachments, such as the
    /// `!dbg` subprogram a declaration carries, which a definition could not
    /// keep.
    pub fn clear_global_metadata(self) {
        unsafe { LLVMGlobalClearMetadata(self.0) }
    }
    /// Instruction: the file name of its debug location, if it has one.
    pub fn debug_file(self) -> Option<String> {
        let mut len = 0u32;
        let p = unsafe { LLVMGetDebugLocFilename(self.0, &mut len) };
        if p.is_null() || len == 0 {
            return None;
        }
        let bytes = unsafe { std::slice::from_raw_parts(p as *const u8, len as usize) };
        Some(String::from_utf8_lossy(bytes).into_owned())
    }
    /// Instruction: the source line of its debug location, if it has one.
    pub fn debug_line(self) -> Option<u32> {
        let line = unsafe { LLVMGetDebugLocLine(self.0) };
        (line != 0).then_some(line)
    }
    /// Instruction: its `!kind` metadata node, as a value (`None` if it
    /// has none). The same node gives the same value.
    pub fn metadata_node(self, kind: &str) -> Option<Value<'ctx>> {
        unsafe {
            let ctx = LLVMGetTypeContext(LLVMTypeOf(self.0));
            let id = LLVMGetMDKindIDInContext(ctx, kind.as_ptr() as *const _, kind.len() as u32);
            value(LLVMGetMetadata(self.0, id))
        }
    }
    /// Branch closing a loop: the operands after the name of its
    /// `!llvm.loop` property `name` (the access groups of
    /// `llvm.loop.parallel_accesses`), if it has that property.
    pub fn loop_property_operands(self, name: &str) -> Option<Vec<Value<'ctx>>> {
        let ops = self.metadata_operands("llvm.loop")?;
        ops.into_iter().flatten().find_map(|node| {
            if unsafe { LLVMGetValueKind(node.0) } != llvm_sys::LLVMValueKind::LLVMMetadataAsValueValueKind {
                return None;
            }
            let inner = node.node_operands();
            let first = inner.first().copied().flatten()?;
            (first.metadata_string().as_deref() == Some(name)).then(|| inner.into_iter().skip(1).flatten().collect())
        })
    }
    /// Metadata node used as a value: its operands (`None` for one that is
    /// no value); empty for metadata that is not a node.
    pub fn node_operands(self) -> Vec<Option<Value<'ctx>>> {
        unsafe {
            let md = LLVMValueAsMetadata(self.0);
            let kind = llvm_sys::debuginfo::LLVMGetMetadataKind(md);
            let tuple = matches!(kind, llvm_sys::debuginfo::LLVMMetadataKind::LLVMMDTupleMetadataKind);
            if !tuple {
                return Vec::new();
            }
            let mut ops = vec![std::ptr::null_mut(); LLVMGetMDNodeNumOperands(self.0) as usize];
            LLVMGetMDNodeOperands(self.0, ops.as_mut_ptr());
            ops.into_iter().map(value).collect()
        }
    }
    /// Whether this is a function argument.
    pub fn is_argument(self) -> bool {
        unsafe { !LLVMIsAArgument(self.0).is_null() }
    }
    /// Branch closing a loop: the names of the properties of its
    /// `!llvm.loop` node (`llvm.loop.parallel_accesses`, ...), in order;
    /// empty without one.
    pub fn loop_properties(self) -> Vec<String> {
        let Some(ops) = self.metadata_operands("llvm.loop") else { return Vec::new() };
        ops.into_iter()
            .flatten()
            .filter_map(|node| {
                // SAFETY: `node` is metadata wrapped as a value; a node that
                // is not an `MDNode` (the self reference is one) has operands.
                let kind = unsafe { LLVMGetValueKind(node.0) };
                if kind != llvm_sys::LLVMValueKind::LLVMMetadataAsValueValueKind {
                    return None;
                }
                let md = unsafe { LLVMValueAsMetadata(node.0) };
                let tuple = matches!(
                    unsafe { llvm_sys::debuginfo::LLVMGetMetadataKind(md) },
                    llvm_sys::debuginfo::LLVMMetadataKind::LLVMMDTupleMetadataKind
                );
                if !tuple {
                    return None;
                }
                let n = unsafe { LLVMGetMDNodeNumOperands(node.0) } as usize;
                if n == 0 {
                    return None;
                }
                let mut first = vec![std::ptr::null_mut(); n];
                unsafe { LLVMGetMDNodeOperands(node.0, first.as_mut_ptr()) };
                value(first[0]).and_then(|v| v.metadata_string())
            })
            .collect()
    }
    /// Instruction: attaches an empty `!kind` node, a flag that passes and
    /// analyses read with [`Value::metadata_node`].
    pub fn set_flag_metadata(self, kind: &str) {
        unsafe {
            let ctx = LLVMGetTypeContext(LLVMTypeOf(self.0));
            let node = LLVMMDNodeInContext2(ctx, std::ptr::null_mut(), 0);
            let id = LLVMGetMDKindIDInContext(ctx, kind.as_ptr() as *const _, kind.len() as u32);
            LLVMSetMetadata(self.0, id, LLVMMetadataAsValue(ctx, node));
        }
    }
    /// Branch: marks the loop it closes `llvm.loop.unroll.disable` (a
    /// distinct, self-referential `!llvm.loop` node).
    pub fn set_loop_unroll_disable(self) {
        unsafe {
            let ctx = LLVMGetTypeContext(LLVMTypeOf(self.0));
            let text = "llvm.loop.unroll.disable";
            let s = LLVMMDStringInContext2(ctx, text.as_ptr() as *const _, text.len());
            let mut one = [s];
            let disable = LLVMMDNodeInContext2(ctx, one.as_mut_ptr(), 1);
            let temp = llvm_sys::debuginfo::LLVMTemporaryMDNode(ctx, std::ptr::null_mut(), 0);
            let mut ops = [temp, disable];
            let node = LLVMMDNodeInContext2(ctx, ops.as_mut_ptr(), 2);
            llvm_sys::debuginfo::LLVMMetadataReplaceAllUsesWith(temp, node);
            let kind = "llvm.loop";
            let id = LLVMGetMDKindIDInContext(ctx, kind.as_ptr() as *const _, kind.len() as u32);
            LLVMSetMetadata(self.0, id, LLVMMetadataAsValue(ctx, node));
        }
    }
    /// Conditional branch: `!prof` branch weights, `taken` for the first
    /// successor and `not_taken` for the second, which block placement
    /// reads to keep the likely path straight.
    pub fn set_branch_weights(self, taken: u32, not_taken: u32) {
        unsafe {
            let ctx = LLVMGetTypeContext(LLVMTypeOf(self.0));
            let text = "branch_weights";
            let name = LLVMMDStringInContext2(ctx, text.as_ptr() as *const _, text.len());
            let i32t = LLVMInt32TypeInContext(ctx);
            let weight = |w: u32| LLVMValueAsMetadata(LLVMConstInt(i32t, w as u64, 0));
            let mut ops = [name, weight(taken), weight(not_taken)];
            let node = LLVMMDNodeInContext2(ctx, ops.as_mut_ptr(), 3);
            let kind = "prof";
            let id = LLVMGetMDKindIDInContext(ctx, kind.as_ptr() as *const _, kind.len() as u32);
            LLVMSetMetadata(self.0, id, LLVMMetadataAsValue(ctx, node));
        }
    }
    /// Global variable: whether it is marked `constant`.
    pub fn is_global_constant(self) -> bool {
        unsafe { LLVMIsGlobalConstant(self.0) != 0 }
    }
    /// Global variable: whether it is `thread_local`.
    pub fn is_thread_local(self) -> bool {
        unsafe { LLVMIsThreadLocal(self.0) != 0 }
    }
    /// Constant aggregate (array, vector, struct; also their data and
    /// zero forms): element `k`, if there is one.
    pub fn aggregate_element(self, k: u32) -> Option<Value<'ctx>> {
        let e = unsafe { LLVMGetAggregateElement(self.0, k) };
        (!e.is_null()).then_some(Value(e, PhantomData))
    }
    /// Function: its personality function, if it has one.
    pub fn personality(self) -> Option<Value<'ctx>> {
        unsafe { (LLVMHasPersonalityFn(self.0) != 0).then(|| value(LLVMGetPersonalityFn(self.0))).flatten() }
    }
    /// Function: removes its personality function, if it has one.
    pub fn clear_personality(self) {
        unsafe {
            if LLVMHasPersonalityFn(self.0) != 0 {
                LLVMSetPersonalityFn(self.0, std::ptr::null_mut());
            }
        }
    }
    /// Function: sets its calling convention (LLVM's numeric id).
    pub fn set_function_call_conv(self, cc: u32) {
        unsafe { LLVMSetFunctionCallConv(self.0, cc) }
    }
    /// Function or global: the type of what it defines (the function type,
    /// or the variable's type).
    pub fn global_value_type(self) -> Type<'ctx> {
        Type(unsafe { LLVMGlobalGetValueType(self.0) }, PhantomData)
    }
    /// Global variable: its initializer, if it has one.
    pub fn initializer(self) -> Option<Value<'ctx>> {
        value(unsafe { LLVMGetInitializer(self.0) })
    }
    /// Global variable: sets its initializer.
    pub fn set_initializer(self, init: Value<'ctx>) {
        unsafe { LLVMSetInitializer(self.0, init.0) }
    }
    /// Alias: what it stands for.
    pub fn aliasee(self) -> Option<Value<'ctx>> {
        value(unsafe { LLVMAliasGetAliasee(self.0) })
    }
    /// Ifunc: its resolver function.
    pub fn ifunc_resolver(self) -> Option<Value<'ctx>> {
        value(unsafe { LLVMGetGlobalIFuncResolver(self.0) })
    }
    /// Global: its section, if it has one.
    pub fn section(self) -> Option<String> {
        let p = unsafe { LLVMGetSection(self.0) };
        (!p.is_null()).then(|| unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned())
    }
    /// Global: sets its section.
    pub fn set_section(self, section: &str) {
        let c = super::cstring(section);
        unsafe { LLVMSetSection(self.0, c.as_ptr()) }
    }
    /// Global: sets its visibility.
    pub fn set_visibility(self, v: llvm_sys::LLVMVisibility) {
        unsafe { LLVMSetVisibility(self.0, v) }
    }
    /// Global: sets its DLL storage class.
    pub fn set_dll_storage_class(self, c: llvm_sys::LLVMDLLStorageClass) {
        unsafe { LLVMSetDLLStorageClass(self.0, c) }
    }
    /// Global object: takes it out of its comdat.
    pub fn clear_comdat(self) {
        unsafe { llvm_sys::comdat::LLVMSetComdat(self.0, std::ptr::null_mut()) }
    }
    /// Function: deletes its body (every block), leaving a definition
    /// with no blocks to append new ones to. Uses of the body's values
    /// outside it (none in valid IR) become poison.
    pub fn delete_body(self) {
        let blocks = self.blocks();
        for b in &blocks {
            if let Some(t) = b.terminator() {
                t.erase();
            }
        }
        for b in &blocks {
            for i in b.instructions() {
                i.replace_all_uses_with(constant::poison(i.ty()));
            }
        }
        for b in blocks {
            b.delete();
        }
    }
    /// Global variable, alias or ifunc: deletes it from its module.
    pub fn delete_global(self) {
        unsafe { LLVMDeleteGlobal(self.0) }
    }
    /// Function or call: the enum attribute of this name at an index, if
    /// present.
    pub fn enum_attribute(self, index: u32, name: &str) -> Option<Attribute<'ctx>> {
        let kind = super::enum_attribute_kind(name);
        let a = unsafe { LLVMGetEnumAttributeAtIndex(self.0, index, kind) };
        (!a.is_null()).then_some(Attribute(a, PhantomData))
    }
}

impl<'ctx> Type<'ctx> {
    /// Whether this is a pointer type (not a vector of pointers).
    pub fn is_pointer(self) -> bool {
        self.kind() == llvm_sys::LLVMTypeKind::LLVMPointerTypeKind
    }
    /// Pointer type: its address space.
    pub fn address_space(self) -> u32 {
        unsafe { LLVMGetPointerAddressSpace(self.0) }
    }
}

impl<'ctx> Block<'ctx> {
    /// Deletes the block (its instructions must be gone or unused).
    pub fn delete(self) {
        unsafe { LLVMDeleteBasicBlock(self.0) }
    }
}

impl<'ctx> Attribute<'ctx> {
    /// Whether this is an enum (or integer) attribute.
    pub fn is_enum(self) -> bool {
        unsafe { LLVMIsEnumAttribute(self.0) != 0 }
    }
    /// Whether this is a type attribute (`byval(<ty>)`, `sret(<ty>)`, ...).
    pub fn is_type(self) -> bool {
        unsafe { LLVMIsTypeAttribute(self.0) != 0 }
    }
    /// Type attribute: its type.
    pub fn type_value(self) -> Type<'ctx> {
        Type(unsafe { LLVMGetTypeAttributeValue(self.0) }, PhantomData)
    }
}
