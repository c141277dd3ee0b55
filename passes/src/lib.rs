//! batchify's LLVM pass plugin (`libbatchify_plugin.so`).
//!
//! Loaded by `opt-22 -load-pass-plugin=`, `clang-22 -fpass-plugin=` and
//! `rustc -Z llvm-plugins=`; see `docs/plugin.md`. The C++ shim
//! (`shim/register.cpp`) registers the pass and the `-batchify-*` options
//! and turns messages into LLVM diagnostics; this crate decides what to
//! build ([`run`]) and calls `batchify_core::batchify_module`, the same
//! transform as the CLI. The library never links libLLVM: every LLVM symbol
//! resolves to the host process's own LLVM.
//!
//! Nothing here may take the host down: every entry point catches panics,
//! and problems become diagnostics.

pub mod diagnostics;
pub mod options;
pub mod run;
pub mod version;

use std::ffi::{c_char, c_int, c_void, CStr};

/// LLVM's `PassPluginLibraryInfo` (llvm/Plugins/PassPlugin.h, API version 2).
#[repr(C)]
pub struct PassPluginLibraryInfo {
    /// `LLVM_PLUGIN_API_VERSION`.
    pub api_version: u32,
    /// The plugin's name.
    pub plugin_name: *const c_char,
    /// The plugin's version.
    pub plugin_version: *const c_char,
    /// Registers the passes with a `PassBuilder`.
    pub register_pass_builder_callbacks: Option<unsafe extern "C" fn(*mut c_void)>,
    /// Code generation hook (unused).
    pub pre_code_gen_callback: Option<unsafe extern "C" fn() -> bool>,
}

extern "C" {
    /// The shim's registration function (takes a `llvm::PassBuilder &`).
    fn batchify_register_pass_builder_callbacks(pass_builder: *mut c_void);
}

/// The plugin's entry point, looked up by name by the host.
#[no_mangle]
pub extern "C" fn llvmGetPassPluginInfo() -> PassPluginLibraryInfo {
    PassPluginLibraryInfo {
        api_version: 2,
        plugin_name: c"batchify".as_ptr(),
        plugin_version: concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast(),
        register_pass_builder_callbacks: Some(batchify_register_pass_builder_callbacks),
        pre_code_gen_callback: None,
    }
}

fn c_text(p: *const c_char) -> String {
    if p.is_null() {
        return String::new();
    }
    // SAFETY: the shim passes NUL-terminated strings that outlive the call.
    unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
}

/// Checks pass parameters when a pipeline is parsed. On error, stores a
/// `malloc`'ed message in `*error` (the shim frees it) and returns 0.
///
/// # Safety
/// `params` is a NUL-terminated string; `error` is null or writable.
#[no_mangle]
pub unsafe extern "C" fn batchify_plugin_check_params(params: *const c_char, error: *mut *mut c_char) -> c_int {
    let text = c_text(params);
    let result = std::panic::catch_unwind(|| options::PluginOptions::parse(&text).map(|_| ()));
    let message = match result {
        Ok(Ok(())) => return 1,
        Ok(Err(m)) => m,
        Err(_) => "internal error while reading the pass parameters".to_string(),
    };
    if !error.is_null() {
        let c = std::ffi::CString::new(message.replace('\0', "")).unwrap_or_default();
        // SAFETY: strdup copies into malloc'ed memory, which the shim frees.
        unsafe { *error = libc_strdup(c.as_ptr()) };
    }
    0
}

extern "C" {
    #[link_name = "strdup"]
    fn libc_strdup(s: *const c_char) -> *mut c_char;
}

/// Runs the pass on one module; returns 1 if it changed. `automatic` is 1
/// when the pass was added at an extension point rather than named in a
/// pipeline.
///
/// # Safety
/// `module` is a live module the caller owns for the duration of the call
/// (the host's pass manager); the strings are NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn batchify_plugin_run(
    module: *mut c_void,
    pass_params: *const c_char,
    cl_params: *const c_char,
    automatic: c_int,
) -> c_int {
    let (pass_params, cl_params) = (c_text(pass_params), c_text(cl_params));
    // SAFETY: the host owns the module; ManuallyDrop keeps inkwell from
    // disposing it.
    let host = std::mem::ManuallyDrop::new(unsafe { inkwell::module::Module::new(module.cast()) });
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        run::run(&host, &pass_params, &cl_params, automatic != 0)
    }));
    match outcome {
        Ok(changed) => changed as c_int,
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown".into());
            diagnostics::warning(&host, &format!("internal error, module left as it was built so far: {what}"));
            1
        }
    }
}

/// The pass `batchify-lower-vector-math<LIB>`: the module's vector math
/// intrinsics to calls of `lib`'s vector functions
/// (`batchify_core::driver::lower_vector_math`, the step after Enzyme);
/// returns 1 if it changed the module. Unknown library names change
/// nothing (the pipeline parser refused them already).
///
/// # Safety
/// `module` is a live module the caller owns for the duration of the
/// call; `lib` is NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn batchify_plugin_lower_vector_math(module: *mut c_void, lib: *const c_char) -> c_int {
    let lib = c_text(lib);
    // SAFETY: the host owns the module; ManuallyDrop keeps inkwell from
    // disposing it.
    let host = std::mem::ManuallyDrop::new(unsafe { inkwell::module::Module::new(module.cast()) });
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run::lower_vector_math(&host, &lib)));
    match outcome {
        Ok(changed) => changed as c_int,
        Err(_) => {
            diagnostics::warning(&host, "internal error in batchify-lower-vector-math, module left as it was");
            1
        }
    }
}

/// Marks the module's cross-lane operations `convergent`
/// (`batchify_core::analysis::cross_lane::mark_convergent`); returns 1 if
/// it marked one.
///
/// # Safety
/// `module` is a live module the caller owns for the duration of the call.
#[no_mangle]
pub unsafe extern "C" fn batchify_plugin_mark_cross_lane(module: *mut c_void) -> c_int {
    // SAFETY: as in `batchify_plugin_keep_simd_calls`.
    let host = std::mem::ManuallyDrop::new(unsafe { inkwell::module::Module::new(module.cast()) });
    let marked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        batchify_core::analysis::cross_lane::mark_convergent(batchify_core::llvm::Module::from_inkwell(&host))
    }));
    c_int::from(marked.is_ok_and(|n| n > 0))
}

/// Before the inliner: keeps the `omp simd` loops' calls of `declare simd`
/// functions defined in the module from being inlined
/// (`batchify_core::callers::keep_simd_calls`); returns 1 if it marked one.
///
/// # Safety
/// `module` is a live module the caller owns for the duration of the call.
#[no_mangle]
pub unsafe extern "C" fn batchify_plugin_keep_simd_calls(module: *mut c_void) -> c_int {
    // SAFETY: the host owns the module; ManuallyDrop keeps inkwell from
    // disposing it.
    let host = std::mem::ManuallyDrop::new(unsafe { inkwell::module::Module::new(module.cast()) });
    let marked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        batchify_core::callers::keep_simd_calls(batchify_core::llvm::Module::from_inkwell(&host))
    }));
    c_int::from(marked.is_ok_and(|n| n > 0))
}
