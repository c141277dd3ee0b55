//! Where the tests find the pass plugin: `$BATCHIFY_PLUGIN`, else the
//! debug build beside the test binaries (`cargo test` does not build the
//! cdylib; `cargo xtask test` builds it in its build step).

use std::path::{Path, PathBuf};

/// The plugin library the tests load (it may not exist).
pub fn library() -> PathBuf {
    if let Some(p) = std::env::var_os("BATCHIFY_PLUGIN") {
        return PathBuf::from(p);
    }
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target"));
    target.join("debug/libbatchify_plugin.so")
}

/// The plugin library if it exists; otherwise `test` is skipped loudly
/// (a failure where tools are required, as in CI, whose build step builds
/// the plugin).
pub fn require(test: &str) -> Option<PathBuf> {
    let plugin = library();
    if !plugin.is_file() {
        crate::skip::skip(
            test,
            &format!("the plugin {} is not built (cargo build -p batchify-plugin)", plugin.display()),
        );
        return None;
    }
    Some(plugin)
}
