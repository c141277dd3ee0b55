//! Reading the input module's bytes, with a bound.
//!
//! A regular file larger than the bound is rejected before it is read; any
//! other input (`-` for standard input, a pipe, a device such as
//! `/dev/zero`) is read until the bound is passed, then rejected. LLVM's
//! readers get at most the bound's bytes, never an endless stream.

use std::io::Read;
use std::path::Path;

/// The default bound on the input's size: 1 GiB (`--max-input-bytes`).
pub const DEFAULT_MAX_BYTES: u64 = 1 << 30;

/// Reads `path` (`-`: standard input), at most `max_bytes` bytes; an input
/// that is larger, a folder, or unreadable is an error naming it.
pub fn read_bounded(path: &Path, max_bytes: u64) -> Result<Vec<u8>, String> {
    let shown = path.display();
    let too_large = || {
        format!("`{shown}` is larger than {max_bytes} bytes, the most batchify reads (raise it with --max-input-bytes)")
    };
    let mut reader: Box<dyn Read> = if path.as_os_str() == "-" {
        Box::new(std::io::stdin().lock())
    } else {
        let meta = std::fs::metadata(path).map_err(|e| format!("cannot read `{shown}`: {e}"))?;
        if meta.is_file() && meta.len() > max_bytes {
            return Err(too_large());
        }
        Box::new(std::fs::File::open(path).map_err(|e| format!("cannot read `{shown}`: {e}"))?)
    };
    let mut bytes = Vec::new();
    reader
        .by_ref()
        .take(max_bytes.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read `{shown}`: {e}"))?;
    if bytes.len() as u64 > max_bytes {
        return Err(too_large());
    }
    Ok(bytes)
}
