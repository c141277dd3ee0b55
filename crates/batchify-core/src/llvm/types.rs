//! Types of the IR layer: queries and constructors of [`Type`].

use super::*;

impl<'ctx> Type<'ctx> {
    /// The type's kind. A kind this build does not know reads as a token
    /// type, which no clone can hold (legality then rejects it).
    pub fn kind(self) -> LLVMTypeKind {
        checked_type_kind(unsafe { raw::type_kind(self.0) }).unwrap_or(LLVMTypeKind::LLVMTokenTypeKind)
    }
    /// Integer bit width (0 if not an integer).
    pub fn int_width(self) -> u32 {
        if self.kind() == LLVMTypeKind::LLVMIntegerTypeKind {
            unsafe { LLVMGetIntTypeWidth(self.0) }
        } else {
            0
        }
    }
    /// Whether this is an integer, floating point or pointer type: the
    /// element types that LLVM vectors can hold.
    pub fn is_vector_element(self) -> bool {
        use LLVMTypeKind::*;
        matches!(
            self.kind(),
            LLVMIntegerTypeKind
                | LLVMHalfTypeKind
                | LLVMBFloatTypeKind
                | LLVMFloatTypeKind
                | LLVMDoubleTypeKind
                | LLVMFP128TypeKind
                | LLVMX86_FP80TypeKind
                | LLVMPointerTypeKind
        )
    }
    /// Whether this is `void`.
    pub fn is_void(self) -> bool {
        self.kind() == LLVMTypeKind::LLVMVoidTypeKind
    }
    /// Whether this type is, or contains (struct fields, array elements,
    /// function parameters and result), a scalable vector.
    pub fn contains_scalable_vector(self) -> bool {
        match self.kind() {
            LLVMTypeKind::LLVMScalableVectorTypeKind => true,
            LLVMTypeKind::LLVMArrayTypeKind => self.element().contains_scalable_vector(),
            LLVMTypeKind::LLVMStructTypeKind => {
                let n = unsafe { LLVMCountStructElementTypes(self.0) };
                (0..n).any(|i| {
                    Type(unsafe { LLVMStructGetTypeAtIndex(self.0, i) }, PhantomData).contains_scalable_vector()
                })
            }
            LLVMTypeKind::LLVMFunctionTypeKind => {
                self.return_type().contains_scalable_vector()
                    || self.param_types().into_iter().any(|t| t.contains_scalable_vector())
            }
            _ => false,
        }
    }
    /// Whether this is the `token` type.
    pub fn is_token(self) -> bool {
        self.kind() == LLVMTypeKind::LLVMTokenTypeKind
    }
    /// Whether this is a (fixed-length) vector type.
    pub fn is_vector(self) -> bool {
        self.kind() == LLVMTypeKind::LLVMVectorTypeKind
    }
    /// `<n x self>`.
    pub fn vector_of(self, n: u32) -> Type<'ctx> {
        Type(unsafe { LLVMVectorType(self.0, n) }, PhantomData)
    }
    /// `<vscale x n x self>`.
    pub fn scalable_vector_of(self, n: u32) -> Type<'ctx> {
        Type(unsafe { LLVMScalableVectorType(self.0, n) }, PhantomData)
    }
    /// `[n x self]`.
    pub fn array_of(self, n: u32) -> Type<'ctx> {
        Type(unsafe { LLVMArrayType2(self.0, n as u64) }, PhantomData)
    }
    /// Element type of a vector or array.
    pub fn element(self) -> Type<'ctx> {
        Type(unsafe { LLVMGetElementType(self.0) }, PhantomData)
    }
    /// Type of field `i` of a struct type.
    pub fn struct_field(self, i: u32) -> Type<'ctx> {
        assert!(self.kind() == LLVMTypeKind::LLVMStructTypeKind, "struct_field on a non-struct type");
        assert!(i < unsafe { LLVMCountStructElementTypes(self.0) }, "struct field {i} out of range");
        Type(unsafe { LLVMStructGetTypeAtIndex(self.0, i) }, PhantomData)
    }
    /// Whether this is a struct or an array type (a first-class aggregate).
    pub fn is_aggregate(self) -> bool {
        matches!(self.kind(), LLVMTypeKind::LLVMStructTypeKind | LLVMTypeKind::LLVMArrayTypeKind)
    }
    /// The members of a struct (its fields) or an array (its elements), in
    /// order; empty for any other type.
    pub fn members(self) -> Vec<Type<'ctx>> {
        match self.kind() {
            LLVMTypeKind::LLVMStructTypeKind => {
                let n = unsafe { LLVMCountStructElementTypes(self.0) };
                (0..n).map(|i| Type(unsafe { LLVMStructGetTypeAtIndex(self.0, i) }, PhantomData)).collect()
            }
            LLVMTypeKind::LLVMArrayTypeKind => {
                let n = unsafe { LLVMGetArrayLength2(self.0) };
                vec![self.element(); n as usize]
            }
            _ => Vec::new(),
        }
    }
    /// The literal (unnamed, unpacked) struct type `{ fields... }`.
    pub fn literal_struct(ctx: Context<'ctx>, fields: &[Type<'ctx>]) -> Type<'ctx> {
        let mut f: Vec<LLVMTypeRef> = fields.iter().map(|t| t.0).collect();
        Type(unsafe { LLVMStructTypeInContext(ctx.0, f.as_mut_ptr(), f.len() as u32, 0) }, PhantomData)
    }
    /// Number of elements of a fixed vector.
    pub fn vector_len(self) -> u32 {
        unsafe { LLVMGetVectorSize(self.0) }
    }
    /// Elements of an array type.
    pub fn array_len(self) -> u32 {
        unsafe { LLVMGetArrayLength2(self.0) as u32 }
    }
    /// Return type of a function type.
    pub fn return_type(self) -> Type<'ctx> {
        Type(unsafe { LLVMGetReturnType(self.0) }, PhantomData)
    }
    /// Parameter types of a function type.
    pub fn param_types(self) -> Vec<Type<'ctx>> {
        let n = unsafe { LLVMCountParamTypes(self.0) } as usize;
        let mut v = vec![std::ptr::null_mut(); n];
        unsafe { LLVMGetParamTypes(self.0, v.as_mut_ptr()) };
        v.into_iter().map(|t| Type(t, PhantomData)).collect()
    }
    /// Whether a function type is variadic.
    pub fn is_var_arg(self) -> bool {
        unsafe { LLVMIsFunctionVarArg(self.0) != 0 }
    }
    /// A function type.
    pub fn function(ret: Type<'ctx>, params: &[Type<'ctx>]) -> Type<'ctx> {
        let mut p: Vec<LLVMTypeRef> = params.iter().map(|t| t.0).collect();
        Type(unsafe { LLVMFunctionType(ret.0, p.as_mut_ptr(), p.len() as u32, 0) }, PhantomData)
    }
    /// A variadic function type (`ret (params, ...)`, like `printf`).
    pub fn function_variadic(ret: Type<'ctx>, params: &[Type<'ctx>]) -> Type<'ctx> {
        let mut p: Vec<LLVMTypeRef> = params.iter().map(|t| t.0).collect();
        Type(unsafe { LLVMFunctionType(ret.0, p.as_mut_ptr(), p.len() as u32, 1) }, PhantomData)
    }
    /// `iN` in a context.
    pub fn int(ctx: Context<'ctx>, bits: u32) -> Type<'ctx> {
        Type(unsafe { LLVMIntTypeInContext(ctx.0, bits) }, PhantomData)
    }
    /// `ptr` (address space 0) in a context.
    pub fn ptr(ctx: Context<'ctx>) -> Type<'ctx> {
        Type(unsafe { LLVMPointerTypeInContext(ctx.0, 0) }, PhantomData)
    }
    /// `float` in a context.
    pub fn float(ctx: Context<'ctx>) -> Type<'ctx> {
        Type(unsafe { LLVMFloatTypeInContext(ctx.0) }, PhantomData)
    }
    /// `double` in a context.
    pub fn double(ctx: Context<'ctx>) -> Type<'ctx> {
        Type(unsafe { LLVMDoubleTypeInContext(ctx.0) }, PhantomData)
    }
    /// `void` in a context.
    pub fn void(ctx: Context<'ctx>) -> Type<'ctx> {
        Type(unsafe { LLVMVoidTypeInContext(ctx.0) }, PhantomData)
    }
    /// The type's context.
    pub fn context(self) -> Context<'ctx> {
        Context(unsafe { LLVMGetTypeContext(self.0) }, PhantomData)
    }
    /// Textual form, e.g. `<8 x float>`.
    pub fn print(self) -> String {
        owned_message(unsafe { LLVMPrintTypeToString(self.0) })
    }
}
