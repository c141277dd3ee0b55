//! Running a check in a forked child process, so that a fault (SIGSEGV on a
//! guard page, SIGILL from a trap, SIGFPE) or a hang ends the child, not the
//! test process, and can be reported as a failure naming the function.
//!
//! The child and the parent share one plain-data record (`T`, in a
//! `MAP_SHARED` anonymous mapping): the child writes its progress and result
//! there, and the parent reads it after the child has ended, however it
//! ended. The child only runs JIT-compiled code and the oracle's own
//! allocation-light Rust code, then leaves with `_exit` (no destructors, no
//! atexit handlers, no stdio flushing).

/// How a child process ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChildEnd {
    /// It returned normally.
    Finished,
    /// It was killed by this signal (`SIGALRM`: the time limit).
    Signal(i32),
    /// It panicked or exited with another status.
    Abnormal(i32),
}

/// Runs `f` on `init` in a forked child with a time limit (seconds; 0 for
/// none); returns the record as the child left it and how the child ended.
/// `T` must be plain data (no pointers to heap memory, no destructors).
pub fn run_forked<T: Copy, F: FnOnce(&mut T)>(init: T, timeout_secs: u32, f: F) -> Result<(T, ChildEnd), String> {
    let len = std::mem::size_of::<T>().max(1);
    // SAFETY: an anonymous shared mapping, checked below.
    let map = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_SHARED | libc::MAP_ANONYMOUS,
            -1,
            0,
        )
    };
    if map == libc::MAP_FAILED {
        return Err(format!("mmap failed: {}", std::io::Error::last_os_error()));
    }
    let rec = map as *mut T;
    // SAFETY: the mapping is large enough and page-aligned.
    unsafe { rec.write(init) };
    // SAFETY: fork has no preconditions; the child only touches its own
    // copy of memory and `rec`, then calls `_exit`.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        unsafe { libc::munmap(map, len) };
        return Err(format!("fork failed: {}", std::io::Error::last_os_error()));
    }
    if pid == 0 {
        // Child.
        unsafe {
            if timeout_secs > 0 {
                libc::alarm(timeout_secs);
            }
            let ok = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(&mut *rec))).is_ok();
            libc::_exit(if ok { 0 } else { 101 });
        }
    }
    let mut status = 0;
    let end = loop {
        // SAFETY: waits for our own child.
        let r = unsafe { libc::waitpid(pid, &mut status, 0) };
        if r == pid {
            break if libc::WIFSIGNALED(status) {
                ChildEnd::Signal(libc::WTERMSIG(status))
            } else if libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0 {
                ChildEnd::Finished
            } else {
                ChildEnd::Abnormal(libc::WEXITSTATUS(status))
            };
        }
        let e = std::io::Error::last_os_error();
        if e.kind() != std::io::ErrorKind::Interrupted {
            unsafe { libc::munmap(map, len) };
            return Err(format!("waitpid failed: {e}"));
        }
    };
    // SAFETY: the child has ended; the record is ours again.
    let out = unsafe { rec.read() };
    unsafe { libc::munmap(map, len) };
    Ok((out, end))
}

/// A signal's name, for reports.
pub fn signal_name(sig: i32) -> String {
    match sig {
        libc::SIGSEGV => "SIGSEGV (invalid memory access)".into(),
        libc::SIGBUS => "SIGBUS (invalid memory access)".into(),
        libc::SIGILL => "SIGILL (trap or `unreachable` reached)".into(),
        libc::SIGTRAP => "SIGTRAP (trap reached)".into(),
        libc::SIGFPE => "SIGFPE (arithmetic fault)".into(),
        libc::SIGABRT => "SIGABRT (abort)".into(),
        libc::SIGALRM => "SIGALRM (time limit exceeded)".into(),
        s => format!("signal {s}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fault_in_the_child_is_reported() {
        let (v, end) = run_forked(0u64, 10, |v| {
            *v = 7;
            // SAFETY: deliberately faults, in the child only.
            unsafe { std::ptr::write_volatile(std::ptr::dangling_mut::<u64>(), 1) };
        })
        .unwrap();
        assert_eq!(v, 7);
        assert_eq!(end, ChildEnd::Signal(libc::SIGSEGV));
        let (v, end) = run_forked(1u64, 10, |v| *v += 1).unwrap();
        assert_eq!((v, end), (2, ChildEnd::Finished));
    }
}
