//! Messages to the host compiler, through LLVM's diagnostic handler (the
//! shim's `batchify_shim_diagnose`): remarks that `-Rpass=batchify`,
//! `-Rpass-missed=batchify` and `-Rpass-analysis=batchify` (clang) or
//! `-pass-remarks*=batchify` (opt) show, and warnings.

use inkwell::module::Module;
use inkwell::values::AsValueRef;
use std::ffi::{c_char, c_int, c_void, CString};

extern "C" {
    fn batchify_shim_diagnose(
        module: *mut c_void,
        function: *mut c_void,
        kind: c_int,
        remark_name: *const c_char,
        message: *const c_char,
    );
}

/// The kinds the shim knows.
#[derive(Debug, Clone, Copy)]
enum Kind {
    Passed = 0,
    Missed = 1,
    Analysis = 2,
    Warning = 3,
    Error = 5,
}

fn diagnose(module: &Module<'_>, function: Option<&str>, kind: Kind, name: &str, message: &str) {
    let f = function
        .and_then(|n| module.get_function(n))
        .map_or(std::ptr::null_mut(), |f| f.as_value_ref().cast::<c_void>());
    let name = CString::new(name).unwrap_or_default();
    let message = CString::new(message.replace('\0', "")).unwrap_or_default();
    // SAFETY: the module is the host's live module, the function belongs to
    // it (or is null), and both strings outlive the call.
    unsafe { batchify_shim_diagnose(module.as_mut_ptr().cast(), f, kind as c_int, name.as_ptr(), message.as_ptr()) }
}

/// A remark that a clone was built (`-Rpass=batchify`).
pub fn passed(module: &Module<'_>, function: &str, name: &str, message: &str) {
    diagnose(module, Some(function), Kind::Passed, name, message);
}

/// A remark that something was not vectorized (`-Rpass-missed=batchify`).
pub fn missed(module: &Module<'_>, function: &str, name: &str, message: &str) {
    diagnose(module, Some(function), Kind::Missed, name, message);
}

/// A detail of a clone, e.g. a gather and why (`-Rpass-analysis=batchify`).
pub fn analysis(module: &Module<'_>, function: &str, name: &str, message: &str) {
    diagnose(module, Some(function), Kind::Analysis, name, message);
}

/// A warning: something asked for was not built.
pub fn warning(module: &Module<'_>, message: &str) {
    diagnose(module, None, Kind::Warning, "Warning", message);
}

/// An error: input the pass cannot accept (a malformed `__enzyme_batch`
/// call). The host reports it and fails (clang stops after the pass).
pub fn error(module: &Module<'_>, message: &str) {
    diagnose(module, None, Kind::Error, "Error", message);
}
