//! Running the LLVM work in a child process, so that a crash inside LLVM
//! still ends in one error line.
//!
//! LLVM's bitcode reader does not survive every corrupt file: a single
//! changed byte can make it dereference a wild pointer (SIGSEGV) or ask for
//! an absurd allocation ("LLVM ERROR: out of memory", then SIGABRT), and
//! `llvm-dis` and `opt` die the same way. So the `batchify` process reads
//! the input itself (with a bound, `input.rs`) and hands the bytes to a
//! worker: the same executable, started again with [`WORKER_ENV`] set,
//! which parses, verifies, batches and serializes the module. The worker
//! never touches the output file: it sends the finished module back, and
//! the parent writes it atomically. The worker tells the parent what it is
//! doing ([`Sink::stage`]), so a worker that dies by a signal, or stops
//! without its own error line, becomes one line naming the input and the
//! stage; its own output (LLVM's message, a stack trace) is shown only with
//! [`CRASH_OUTPUT_ENV`] set.
//!
//! The worker's standard output carries frames: a tag byte, a
//! little-endian `u64` length, and that many bytes. Its standard error is
//! collected and forwarded when it finishes normally.

use std::io::{Read, Write};
use std::os::unix::process::ExitStatusExt;
use std::process::{Command, Stdio};

/// Set in the worker's environment: run the work and report through frames.
pub const WORKER_ENV: &str = "BATCHIFY_INTERNAL_WORKER";
/// Set to run everything in one process (for a debugger).
pub const IN_PROCESS_ENV: &str = "BATCHIFY_IN_PROCESS";
/// Set to see what a worker that crashed printed (LLVM's own message).
pub const CRASH_OUTPUT_ENV: &str = "BATCHIFY_CRASH_OUTPUT";

const STAGE: u8 = b'S';
const OUTPUT: u8 = b'O';

/// Where the work reports its progress and its result.
pub trait Sink {
    /// The work begins `stage` ("reading the bitcode", "batching `f`").
    fn stage(&mut self, stage: &str);
    /// The finished module's bytes.
    fn output(&mut self, bytes: Vec<u8>);
}

/// The worker's sink: frames on standard output.
pub struct Frames;

impl Frames {
    fn send(tag: u8, payload: &[u8]) {
        let mut out = std::io::stdout().lock();
        // A parent that went away cannot be told anything.
        let _ = out
            .write_all(&[tag])
            .and_then(|_| out.write_all(&(payload.len() as u64).to_le_bytes()))
            .and_then(|_| out.write_all(payload))
            .and_then(|_| out.flush());
    }
}

impl Sink for Frames {
    fn stage(&mut self, stage: &str) {
        Frames::send(STAGE, stage.as_bytes());
    }
    fn output(&mut self, bytes: Vec<u8>) {
        Frames::send(OUTPUT, &bytes);
    }
}

/// The in-process sink: keeps the last stage and the output.
#[derive(Default)]
pub struct Collected {
    /// The last stage begun.
    pub stage: String,
    /// The finished module, if the work got that far.
    pub output: Option<Vec<u8>>,
}

impl Sink for Collected {
    fn stage(&mut self, stage: &str) {
        self.stage = stage.to_string();
    }
    fn output(&mut self, bytes: Vec<u8>) {
        self.output = Some(bytes);
    }
}

/// How a worker ended.
pub struct Finished {
    /// Exit code, or `None` if a signal ended it.
    pub code: Option<i32>,
    /// The signal that ended it.
    pub signal: Option<i32>,
    /// The last stage it began.
    pub stage: String,
    /// The finished module, if it sent one.
    pub output: Option<Vec<u8>>,
    /// Everything it wrote on standard error.
    pub stderr: Vec<u8>,
}

/// Runs the worker on `input`, with this process's arguments. An error
/// means the worker could not be started.
pub fn run_worker(input: &[u8]) -> std::io::Result<Finished> {
    let exe = std::env::current_exe()?;
    let mut child = Command::new(exe)
        .args(std::env::args_os().skip(1))
        .env(WORKER_ENV, "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    let mut stdin = child.stdin.take().expect("piped stdin");
    let mut stderr = child.stderr.take().expect("piped stderr");
    let mut stdout = child.stdout.take().expect("piped stdout");
    let (stage, output, stderr) = std::thread::scope(|s| {
        // A worker that dies early closes its end: the write fails,
        // harmlessly. The end is closed when the thread ends.
        s.spawn(move || {
            let _ = stdin.write_all(input);
        });
        let collector = s.spawn(move || {
            let mut text = Vec::new();
            let _ = stderr.read_to_end(&mut text);
            text
        });
        let (mut stage, mut output) = (String::new(), None);
        while let Some((tag, payload)) = read_frame(&mut stdout) {
            match tag {
                STAGE => stage = String::from_utf8_lossy(&payload).into_owned(),
                OUTPUT => output = Some(payload),
                _ => {}
            }
        }
        (stage, output, collector.join().unwrap_or_default())
    });
    let status = child.wait()?;
    Ok(Finished { code: status.code(), signal: status.signal(), stage, output, stderr })
}

/// One frame, or `None` at the end of the stream (or a frame cut short).
fn read_frame(r: &mut impl Read) -> Option<(u8, Vec<u8>)> {
    let mut head = [0u8; 9];
    r.read_exact(&mut head).ok()?;
    let len = u64::from_le_bytes(head[1..].try_into().expect("8 bytes"));
    let mut payload = Vec::new();
    r.take(len).read_to_end(&mut payload).ok()?;
    (payload.len() as u64 == len).then_some((head[0], payload))
}

/// A signal's name and what it usually means.
fn signal_name(signal: i32) -> String {
    match signal {
        4 => "SIGILL, illegal instruction".into(),
        6 => "SIGABRT, aborted".into(),
        7 => "SIGBUS, bus error".into(),
        8 => "SIGFPE, arithmetic exception".into(),
        9 => "SIGKILL, killed: perhaps out of memory".into(),
        11 => "SIGSEGV, segmentation fault".into(),
        s => format!("signal {s}"),
    }
}

/// The error line for a worker that ended without its own: `None` when it
/// succeeded or printed its own `batchify: error:` line.
pub fn crash_message(input: &str, w: &Finished) -> Option<String> {
    let stderr = String::from_utf8_lossy(&w.stderr);
    if w.code == Some(0) && w.output.is_some() {
        return None;
    }
    if w.code == Some(1) && stderr.lines().any(|l| l.starts_with("batchify: error: ")) {
        return None;
    }
    let stage = if w.stage.is_empty() { "starting" } else { &w.stage };
    let llvm_error = stderr.lines().find(|l| l.starts_with("LLVM ERROR: ")).map(str::trim);
    let how = match (w.signal, w.code) {
        (Some(s), _) => format!("LLVM crashed ({})", signal_name(s)),
        (None, Some(101)) => {
            let panic = stderr.lines().skip_while(|l| !l.contains("panicked at")).nth(1).unwrap_or("").trim();
            format!("internal error: batchify panicked ({panic})")
        }
        (None, code) => format!("LLVM stopped (exit status {})", code.unwrap_or(-1)),
    };
    let detail = llvm_error.map(|e| format!(" ({e})")).unwrap_or_default();
    let reading = stage.starts_with("reading");
    let hint = if reading {
        "the file is probably corrupt"
    } else {
        "this is a bug in batchify or LLVM: please report it with the input"
    };
    Some(format!("`{input}`: {how} while {stage}{detail}; {hint} (set {CRASH_OUTPUT_ENV}=1 to see its output)"))
}
