//! A marker that tells tools which LLVM the plugin was built for, without
//! loading it (the plugin cannot be `dlopen`ed outside an LLVM process: its
//! LLVM symbols resolve only inside the host).
//!
//! The library holds the bytes `batchify-plugin-llvm-major=<N>\0`, where
//! `N` is the `LLVM_VERSION_MAJOR` of the headers `build.rs` compiled the
//! shim against. `cargo batchify` scans the `.so` for them and refuses a
//! rustc whose LLVM major differs.

/// The marker text, NUL-terminated so a byte scan knows where it ends.
pub const MARKER: &str = concat!("batchify-plugin-llvm-major=", env!("BATCHIFY_PLUGIN_LLVM_MAJOR"), "\0");

/// The marker, kept in the library (`#[used]`, exported) so that a byte
/// scan of `libbatchify_plugin.so` finds it even when nothing reads it.
#[used]
#[no_mangle]
pub static BATCHIFY_PLUGIN_LLVM_MAJOR: [u8; MARKER.len()] = marker_bytes();

/// `MARKER` as a fixed-size array, so the bytes live in the static itself.
const fn marker_bytes() -> [u8; MARKER.len()] {
    let mut out = [0u8; MARKER.len()];
    let bytes = MARKER.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        out[i] = bytes[i];
        i += 1;
    }
    out
}
