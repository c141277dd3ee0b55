//! In-process JIT (ORC LLJIT) for the test kit's oracle: configured for the
//! host CPU or for another CPU's tuning that the host can run
//! ([`JitTarget`]), resolving libc/libm symbols from the running process,
//! with optional absolute symbols that override the process's. Each [`Jit`]
//! parses its module from bitcode into an LLVM context of its own, so it
//! never shares IR with the transform.

use llvm_sys::error::*;
use llvm_sys::orc2::lljit::*;
use llvm_sys::orc2::*;
use std::ffi::{CStr, CString};
use std::sync::Once;

/// The CPU the JIT compiles for: the host (the default), or a named LLVM
/// CPU whose tuning and features apply minus every feature the host lacks
/// (so the code still runs here), plus extra `+x,-y` features.
///
/// Code generation depends on the tuning, not only on the features: an
/// Intel AVX-512 CPU prefers 256-bit vectors, which changes how vectors
/// wider than 256 bits are passed between functions (see
/// `crate::vector_widths`); testing under several tunings finds what the
/// host's own would not.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct JitTarget {
    /// LLVM CPU name (`skylake-avx512`, `znver4`, `x86-64-v3`); `None`: the host.
    pub cpu: Option<&'static str>,
    /// Extra features after the CPU's (`+prefer-256-bit,-avx512f`).
    pub features: Option<&'static str>,
}

/// Environment variable naming the JIT's CPU when no option does (as
/// `--cpu`); `host` or unset: the host.
pub const CPU_ENV: &str = "BATCHIFY_JIT_CPU";
/// Environment variable with extra JIT features (as `--features`).
pub const FEATURES_ENV: &str = "BATCHIFY_JIT_FEATURES";

impl JitTarget {
    /// The host CPU with its own features.
    pub const HOST: JitTarget = JitTarget { cpu: None, features: None };

    /// A target from a CPU name (`host` or empty: the host) and extra
    /// features; the strings are kept for the life of the process.
    pub fn named(cpu: &str, features: &str) -> JitTarget {
        let keep =
            |s: &str| -> Option<&'static str> { (!s.is_empty()).then(|| &*Box::leak(s.to_string().into_boxed_str())) };
        JitTarget { cpu: if cpu == "host" { None } else { keep(cpu) }, features: keep(features) }
    }

    /// This target with CPU `cpu` (`host`: the host), its features kept
    /// (the `--cpu` flag).
    pub fn with_cpu(self, cpu: &str) -> JitTarget {
        JitTarget::named(cpu, self.features.unwrap_or_default())
    }

    /// This target with extra features `features`, its CPU kept (the
    /// `--features` flag).
    pub fn with_features(self, features: &str) -> JitTarget {
        JitTarget::named(self.cpu.unwrap_or("host"), features)
    }

    /// The target named by `BATCHIFY_JIT_CPU` and `BATCHIFY_JIT_FEATURES`
    /// (the host where they are unset); read once per process.
    pub fn from_env() -> JitTarget {
        static FROM_ENV: std::sync::OnceLock<JitTarget> = std::sync::OnceLock::new();
        *FROM_ENV.get_or_init(|| {
            let var = |k: &str| std::env::var(k).unwrap_or_default();
            JitTarget::named(&var(CPU_ENV), &var(FEATURES_ENV))
        })
    }

    /// The LLVM CPU name this target compiles for.
    pub fn cpu_name(&self) -> String {
        match self.cpu {
            Some(c) => c.to_string(),
            None => host_cpu_name(),
        }
    }

    /// The feature string given to the target machine: the host's features
    /// for the host; for a named CPU, the host's missing features removed
    /// (`-x` for each); then the extra features.
    pub fn feature_string(&self) -> String {
        let host = host_cpu_features();
        let mut list: Vec<&str> = match self.cpu {
            None => host.split(',').filter(|f| !f.is_empty()).collect(),
            Some(_) => host.split(',').filter(|f| f.starts_with('-')).collect(),
        };
        list.extend(self.features.unwrap_or_default().split(',').filter(|f| !f.is_empty()));
        list.join(",")
    }

    /// One line naming the target (`host (sapphirerapids)`,
    /// `skylake-avx512 +prefer-256-bit`).
    pub fn describe(&self) -> String {
        let cpu = match self.cpu {
            Some(c) => c.to_string(),
            None => format!("host ({})", host_cpu_name()),
        };
        match self.features {
            Some(f) => format!("{cpu} {f}"),
            None => cpu,
        }
    }
}

/// Removes the features the host lacks from every function's own
/// `target-features` (a clone's `+avx2,...`): a function with the
/// attribute is compiled for the target machine's CPU and those features
/// only, so a named CPU's features the host lacks (Sapphire Rapids's
/// AVX-512 FP16 and AVX-VNNI on an AMD Zen 4 host) would otherwise come
/// back in it and the code would not run here.
///
/// # Safety
/// `module` must be a valid module.
unsafe fn restrict_to_host(module: llvm_sys::prelude::LLVMModuleRef) {
    let missing: Vec<String> =
        host_cpu_features().split(',').filter(|f| f.starts_with('-')).map(str::to_string).collect();
    if missing.is_empty() {
        return;
    }
    let key = "target-features";
    for f in super::Module(module, std::marker::PhantomData).functions() {
        if let Some(own) = f.string_attribute(super::FUNCTION_INDEX, key) {
            let mut list: Vec<&str> = own.split(',').filter(|x| !x.is_empty()).collect();
            list.extend(missing.iter().map(String::as_str));
            f.set_string_attribute(super::FUNCTION_INDEX, key, &list.join(","));
        }
    }
}

/// LLVM's name of the host CPU (`sapphirerapids`, `znver4`).
pub fn host_cpu_name() -> String {
    take_llvm_string(unsafe { llvm_sys::target_machine::LLVMGetHostCPUName() })
}

/// LLVM's feature string of the host CPU: `+x` for each feature it has,
/// `-y` for each it lacks.
pub fn host_cpu_features() -> String {
    take_llvm_string(unsafe { llvm_sys::target_machine::LLVMGetHostCPUFeatures() })
}

/// Whether the host has the x86 feature `name` (`avx512f`), as LLVM sees it.
pub fn host_has_feature(name: &str) -> bool {
    let plus = format!("+{name}");
    host_cpu_features().split(',').any(|f| f == plus)
}

fn take_llvm_string(p: *mut std::ffi::c_char) -> String {
    if p.is_null() {
        return String::new();
    }
    let s = unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned();
    unsafe { llvm_sys::core::LLVMDisposeMessage(p) };
    s
}

/// A JIT target machine builder for `target` (the host's triple).
fn target_machine_builder(target: &JitTarget) -> Result<LLVMOrcJITTargetMachineBuilderRef, String> {
    use llvm_sys::target_machine::*;
    unsafe {
        let triple = LLVMGetDefaultTargetTriple();
        let mut t = std::ptr::null_mut();
        let mut err = std::ptr::null_mut();
        if LLVMGetTargetFromTriple(triple, &mut t, &mut err) != 0 {
            let msg = take_llvm_string(err);
            llvm_sys::core::LLVMDisposeMessage(triple);
            return Err(format!("the JIT has no target for the host: {msg}"));
        }
        let cpu = CString::new(target.cpu_name()).map_err(|e| e.to_string())?;
        let features = CString::new(target.feature_string()).map_err(|e| e.to_string())?;
        let tm = LLVMCreateTargetMachine(
            t,
            triple,
            cpu.as_ptr(),
            features.as_ptr(),
            LLVMCodeGenOptLevel::LLVMCodeGenLevelDefault,
            LLVMRelocMode::LLVMRelocDefault,
            LLVMCodeModel::LLVMCodeModelJITDefault,
        );
        llvm_sys::core::LLVMDisposeMessage(triple);
        if tm.is_null() {
            return Err(format!("the JIT cannot make a target machine for `{}`", target.describe()));
        }
        Ok(LLVMOrcJITTargetMachineBuilderCreateFromTargetMachine(tm))
    }
}

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
    /// Compiles a bitcode module for [`JitTarget::from_env`] (the host
    /// unless `BATCHIFY_JIT_CPU` names another CPU); see [`Jit::for_target`].
    pub fn new(bitcode: &[u8], overrides: &[(&str, u64)]) -> Result<Jit, String> {
        Jit::for_target(bitcode, overrides, &JitTarget::from_env())
    }

    /// Compiles a bitcode module for `target`; the names in `overrides`
    /// resolve to the given addresses instead of the process's symbols
    /// (the module must not define them).
    pub fn for_target(bitcode: &[u8], overrides: &[(&str, u64)], target: &JitTarget) -> Result<Jit, String> {
        init_native();
        unsafe {
            let jtmb = target_machine_builder(target)?;
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
            if target.cpu.is_some() {
                restrict_to_host(module);
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
