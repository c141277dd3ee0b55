//! In-process JIT (ORC LLJIT) for the test kit's oracle: configured for the
//! real host CPU (`JITTargetMachineBuilder::detectHost`), resolving
//! libc/libm symbols from the running process, with optional absolute
//! symbols that override the process's. Each [`Jit`] parses its module from
//! bitcode into an LLVM context of its own, so it never shares IR with the
//! transform.

use llvm_sys::error::*;
use llvm_sys::orc2::lljit::*;
use llvm_sys::orc2::*;
use std::ffi::{CStr, CString};
use std::sync::Once;

/// A JIT session holding one compiled module; disposed on drop.
pub struct Jit {
    raw: LLVMOrcLLJITRef,
}

// SAFETY: LLJIT is internally synchronised; we only look up and call code.
unsafe impl Send for Jit {}

impl Drop for Jit {
    fn drop(&mut self) {
        unsafe {
            let e = LLVMOrcDisposeLLJIT(self.raw);
            if !e.is_null() {
                LLVMConsumeError(e);
            }
        }
    }
}

fn take_error(e: LLVMErrorRef) -> Result<(), String> {
    if e.is_null() {
        return Ok(());
    }
    unsafe {
        let msg = LLVMGetErrorMessage(e);
        let s = CStr::from_ptr(msg).to_string_lossy().into_owned();
        LLVMDisposeErrorMessage(msg);
        Err(s)
    }
}

fn init_native() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| unsafe {
        llvm_sys::target::LLVM_InitializeNativeTarget();
        llvm_sys::target::LLVM_InitializeNativeAsmPrinter();
    });
}

impl Jit {
    /// Compiles a bitcode module for the host; the names in `overrides`
    /// resolve to the given addresses instead of the process's symbols
    /// (the module must not define them).
    pub fn new(bitcode: &[u8], overrides: &[(&str, u64)]) -> Result<Jit, String> {
        init_native();
        unsafe {
            let mut jtmb = std::ptr::null_mut();
            take_error(LLVMOrcJITTargetMachineBuilderDetectHost(&mut jtmb))?;
            let builder = LLVMOrcCreateLLJITBuilder();
            LLVMOrcLLJITBuilderSetJITTargetMachineBuilder(builder, jtmb);
            let mut raw = std::ptr::null_mut();
            take_error(LLVMOrcCreateLLJIT(&mut raw, builder))?;
            let jit = Jit { raw };
            let mut gen = std::ptr::null_mut();
            take_error(LLVMOrcCreateDynamicLibrarySearchGeneratorForProcess(
                &mut gen,
                LLVMOrcLLJITGetGlobalPrefix(raw),
                None,
                std::ptr::null_mut(),
            ))?;
            let dylib = LLVMOrcLLJITGetMainJITDylib(raw);
            LLVMOrcJITDylibAddGenerator(dylib, gen);
            if !overrides.is_empty() {
                let mut pairs = Vec::new();
                for (name, addr) in overrides {
                    let c = CString::new(*name).map_err(|e| e.to_string())?;
                    pairs.push(LLVMOrcCSymbolMapPair {
                        Name: LLVMOrcLLJITMangleAndIntern(raw, c.as_ptr()),
                        Sym: LLVMJITEvaluatedSymbol {
                            Address: *addr,
                            Flags: LLVMJITSymbolFlags {
                                GenericFlags: LLVMJITSymbolGenericFlags::LLVMJITSymbolGenericFlagsExported as u8
                                    | LLVMJITSymbolGenericFlags::LLVMJITSymbolGenericFlagsCallable as u8,
                                TargetFlags: 0,
                            },
                        },
                    });
                }
                let unit = LLVMOrcAbsoluteSymbols(pairs.as_mut_ptr(), pairs.len());
                take_error(LLVMOrcJITDylibDefine(dylib, unit))?;
            }

            let ctx = llvm_sys::core::LLVMContextCreate();
            let name = c"oracle";
            let buf = llvm_sys::core::LLVMCreateMemoryBufferWithMemoryRangeCopy(
                bitcode.as_ptr() as *const _,
                bitcode.len(),
                name.as_ptr(),
            );
            let mut module = std::ptr::null_mut();
            let failed = llvm_sys::bit_reader::LLVMParseBitcodeInContext2(ctx, buf, &mut module);
            llvm_sys::core::LLVMDisposeMemoryBuffer(buf);
            if failed != 0 {
                llvm_sys::core::LLVMContextDispose(ctx);
                return Err("the JIT could not parse the module's bitcode".into());
            }
            let tsctx = LLVMOrcCreateNewThreadSafeContextFromLLVMContext(ctx);
            let tsm = LLVMOrcCreateNewThreadSafeModule(module, tsctx);
            LLVMOrcDisposeThreadSafeContext(tsctx);
            take_error(LLVMOrcLLJITAddLLVMIRModule(raw, dylib, tsm))?;
            Ok(jit)
        }
    }

    /// Address of a JIT-compiled symbol (compiles on first lookup).
    pub fn lookup(&self, name: &str) -> Result<u64, String> {
        let c = CString::new(name).map_err(|e| e.to_string())?;
        let mut addr = 0;
        take_error(unsafe { LLVMOrcLLJITLookup(self.raw, &mut addr, c.as_ptr()) })
            .map_err(|e| format!("looking up `{name}`: {e}"))?;
        Ok(addr)
    }
}
