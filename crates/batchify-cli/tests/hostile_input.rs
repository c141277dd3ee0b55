//! Hostile input (issue 28): files that LLVM's own reader does not survive,
//! and mutants of real modules, each end in exactly one `batchify: error:`
//! line and exit status 1, or in a valid output with exit status 0; never
//! a signal, never silence, never a created or changed output file on
//! failure, never a temporary file left behind.
//!
//! The four reproducers in `tests/corpus/hostile/` are single changed bytes
//! of valid files on which `llvm-dis-22` and `opt-22` crash (two with
//! SIGSEGV inside the bitcode reader, two with "LLVM ERROR: out of memory"
//! and SIGABRT). The mutation run builds real modules with `clang-22` (the
//! smoothstep example and programs of the simd-clone suite, as bitcode and
//! as textual IR) and mutates them with a fixed seed: bit and byte flips,
//! truncation, inserted, swapped, duplicated and zeroed blocks; deleted,
//! duplicated and swapped lines, renamed values, changed types and
//! mangled `_ZGV` names.

use batchify_llvm_link as _;
use std::fs;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_batchify");
const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
/// A run that takes longer than this is a hang.
const TIMEOUT: Duration = Duration::from_secs(60);
/// What a failed run must leave in an output that existed before.
const PREVIOUS: &[u8] = b"the previous output\n";

/// How one run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Ending {
    /// Exit 0 with a valid module written.
    Output,
    /// Exit 1 with one error line; the line.
    Error(String),
}

/// Runs batchify on `input` with `args`, writing to `out` (which may exist
/// already), and checks the contract. Returns how it ended, or what broke
/// the contract.
fn run_checked(input: &Path, out: &Path, args: &[&str]) -> Result<Ending, String> {
    let before = fs::read(out).ok();
    let mut child = Command::new(BIN)
        .arg(input)
        .arg("-o")
        .arg(out)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start batchify: {e}"))?;
    let start = Instant::now();
    while child.try_wait().map_err(|e| e.to_string())?.is_none() {
        if start.elapsed() > TIMEOUT {
            let _ = child.kill();
            return Err(format!("no answer within {TIMEOUT:?}"));
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    let o = child.wait_with_output().map_err(|e| e.to_string())?;
    let stderr = String::from_utf8_lossy(&o.stderr).into_owned();
    let dir = out.parent().unwrap();
    let temps: Vec<_> = fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().starts_with(".batchify-"))
        .collect();
    if !temps.is_empty() {
        return Err(format!("temporary files left behind: {temps:?}"));
    }
    if !o.stdout.is_empty() {
        return Err("something on stdout".into());
    }
    match o.status.code() {
        Some(0) => {
            if let Some(bad) = stderr.lines().find(|l| !l.starts_with("batchify: ")) {
                return Err(format!("success, with a line that is not batchify's: {bad}"));
            }
            let written = fs::read(out).map_err(|_| "success without an output".to_string())?;
            valid_module(&written).map_err(|e| format!("success with an invalid output: {e}"))?;
            Ok(Ending::Output)
        }
        Some(1) => {
            let lines: Vec<&str> = stderr.lines().collect();
            if lines.len() != 1 || !lines[0].starts_with("batchify: error: ") {
                return Err(format!("exit 1 without exactly one error line: {stderr:?}"));
            }
            if fs::read(out).ok() != before {
                return Err(format!("the output changed on failure: {}", lines[0]));
            }
            Ok(Ending::Error(lines[0].to_string()))
        }
        code => Err(format!("exit status {code:?} (signal {:?}); stderr: {stderr:?}", o.status.signal())),
    }
}

/// Whether `bytes` parse as a module (bitcode or text) that verifies.
fn valid_module(bytes: &[u8]) -> Result<(), String> {
    use inkwell::context::Context;
    use inkwell::memory_buffer::MemoryBuffer;
    use inkwell::module::Module;
    let ctx = Context::create();
    let buf = MemoryBuffer::create_from_memory_range_copy(bytes, "out");
    let m = if bytes.starts_with(b"BC\xC0\xDE") {
        Module::parse_bitcode_from_buffer(&buf, &ctx).map_err(|e| e.to_string())?
    } else {
        ctx.create_module_from_ir(buf).map_err(|e| e.to_string())?
    };
    m.verify().map_err(|e| e.to_string())
}

#[test]
fn llvm_reader_crashes_are_one_error_line() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = Path::new(ROOT).join("tests/corpus/hostile");
    let mut names: Vec<PathBuf> = fs::read_dir(&corpus).unwrap().map(|e| e.unwrap().path()).collect();
    names.sort();
    assert_eq!(names.len(), 4, "{names:?}");
    for input in &names {
        let name = input.file_name().unwrap().to_string_lossy().into_owned();
        // Into a missing output, and over an existing one.
        let missing = dir.path().join(format!("{name}.missing.bc"));
        let existing = dir.path().join(format!("{name}.existing.bc"));
        fs::write(&existing, PREVIOUS).unwrap();
        for out in [&missing, &existing] {
            let ending = run_checked(input, out, &[]).unwrap_or_else(|e| panic!("{name}: {e}"));
            let Ending::Error(line) = ending else { panic!("{name}: a valid output from a corrupt file") };
            assert!(line.contains(&input.display().to_string()), "{line}");
            assert!(line.contains("while reading the bitcode"), "{line}");
            let why = if name.contains("oom") { "LLVM ERROR: out of memory" } else { "SIGSEGV" };
            assert!(line.contains(why), "{line}");
        }
        assert!(!missing.exists());
        assert_eq!(fs::read(&existing).unwrap(), PREVIOUS);
    }
}

#[test]
fn endless_and_oversized_inputs_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.bc");
    let Ending::Error(line) = run_checked(Path::new("/dev/zero"), &out, &[]).unwrap() else { panic!() };
    assert!(line.contains("`/dev/zero` is larger than 1073741824 bytes"), "{line}");
    let small = dir.path().join("small.ll");
    fs::write(&small, "define i32 @f(i32 %x) {\n  ret i32 %x\n}\n").unwrap();
    let Ending::Error(line) = run_checked(&small, &out, &["--max-input-bytes", "10", "--function", "f"]).unwrap()
    else {
        panic!()
    };
    assert!(line.contains("small.ll` is larger than 10 bytes"), "{line}");
    assert_eq!(run_checked(&small, &out, &["--function", "f"]), Ok(Ending::Output));
}

// ------------------------------------------------------------ mutation ---

/// A small deterministic generator (SplitMix64).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// A mutant of bitcode: one of seven byte-level changes.
fn mutate_bytes(rng: &mut Rng, base: &[u8]) -> (Vec<u8>, &'static str) {
    let mut b = base.to_vec();
    let n = b.len();
    let block = |rng: &mut Rng| {
        let len = 1 + rng.below(64);
        let at = rng.below(n.saturating_sub(len));
        (at, len.min(n - at))
    };
    let kind = match rng.below(7) {
        0 => {
            let i = rng.below(n);
            b[i] ^= 1 << rng.below(8);
            "bit flip"
        }
        1 => {
            let i = rng.below(n);
            b[i] = rng.next() as u8;
            "byte set"
        }
        2 => {
            b.truncate(rng.below(n));
            "truncation"
        }
        3 => {
            let at = rng.below(n);
            let junk: Vec<u8> = (0..1 + rng.below(32)).map(|_| rng.next() as u8).collect();
            b.splice(at..at, junk);
            "inserted block"
        }
        4 => {
            let (a, len) = block(rng);
            let (c, _) = block(rng);
            let len = len.min(n - c.max(a));
            let first: Vec<u8> = b[a..a + len].to_vec();
            let second: Vec<u8> = b[c..c + len].to_vec();
            b[c..c + len].copy_from_slice(&first);
            b[a..a + len].copy_from_slice(&second);
            "swapped blocks"
        }
        5 => {
            let (a, len) = block(rng);
            let copy: Vec<u8> = b[a..a + len].to_vec();
            b.splice(a..a, copy);
            "duplicated block"
        }
        _ => {
            let (a, len) = block(rng);
            b[a..a + len].fill(0);
            "zeroed block"
        }
    };
    (b, kind)
}

/// A mutant of textual IR: one of six line-level changes.
fn mutate_text(rng: &mut Rng, base: &str) -> (Vec<u8>, &'static str) {
    let mut lines: Vec<String> = base.lines().map(str::to_string).collect();
    let n = lines.len();
    let kind = match rng.below(6) {
        0 => {
            lines.remove(rng.below(n));
            "deleted line"
        }
        1 => {
            let i = rng.below(n);
            let l = lines[i].clone();
            lines.insert(i, l);
            "duplicated line"
        }
        2 => {
            let (i, j) = (rng.below(n), rng.below(n));
            lines.swap(i, j);
            "swapped lines"
        }
        3 => {
            let i = rng.below(n);
            lines[i] = lines[i].replacen('%', "%r", 1 + rng.below(2));
            "renamed value"
        }
        4 => {
            let i = rng.below(n);
            let (from, to) = [("i32", "i64"), ("float", "double"), ("ptr", "i64"), ("i1", "i8")][rng.below(4)];
            lines[i] = lines[i].replacen(from, to, 1);
            "changed type"
        }
        _ => {
            // A `_ZGV` name with one character changed, or cut short.
            let with: Vec<usize> = (0..n).filter(|&i| lines[i].contains("_ZGV")).collect();
            let i = if with.is_empty() { rng.below(n) } else { with[rng.below(with.len())] };
            if let Some(at) = lines[i].find("_ZGV") {
                let mut chars: Vec<char> = lines[i].chars().collect();
                let pos = at + 4 + rng.below(6);
                if pos < chars.len() {
                    if rng.below(2) == 0 {
                        chars[pos] = ['x', '0', '9', 'N', 'M', '"', 'Z'][rng.below(7)];
                    } else {
                        chars.truncate(pos);
                    }
                }
                lines[i] = chars.into_iter().collect();
            }
            "mangled _ZGV name"
        }
    };
    let mut s = lines.join("\n");
    s.push('\n');
    (s.into_bytes(), kind)
}

/// The real modules mutated: bitcode and textual IR of C sources of this
/// repository, compiled by `clang-22` with `-fopenmp-simd` (their
/// `declare simd` functions are what a run without flags batches). `None`
/// (after a loud skip) when clang-22 is missing.
fn base_modules(dir: &Path) -> Option<Vec<(String, Vec<u8>, String)>> {
    if !batchify_testkit::skip::require_tool("hostile_input::mutants", "clang-22") {
        return None;
    }
    let sources = [
        ("smoothstep", "examples/smoothstep/smoothstep.c", "smoothstep"),
        ("divergent_loop", "tests/simd-clone/03_double_divergent_loop.c", ""),
        ("long_mix", "tests/simd-clone/09_long_mix.c", ""),
        ("search_break", "tests/simd-clone/13_search_break.c", ""),
    ];
    let mut out = Vec::new();
    for (name, src, _) in sources {
        for (ext, flag) in [("bc", "-c"), ("ll", "-S")] {
            let path = dir.join(format!("{name}.{ext}"));
            let st = Command::new("clang-22")
                .args(["-O1", "-fopenmp-simd", "-emit-llvm", flag, "-DCALLEE"])
                .arg("-I")
                .arg(Path::new(ROOT).join("tests/simd-clone"))
                .arg(Path::new(ROOT).join(src))
                .arg("-o")
                .arg(&path)
                .status()
                .expect("run clang-22");
            assert!(st.success(), "clang-22 failed on {src}");
            let bytes = fs::read(&path).unwrap();
            let text = String::from_utf8_lossy(&bytes).into_owned();
            let function = if ext == "ll" { first_defined(&text) } else { first_defined(&disassemble(&path)) };
            out.push((format!("{name}.{ext}"), bytes, function));
        }
    }
    Some(out)
}

/// The textual IR of a bitcode file (`llvm-dis-22`).
fn disassemble(bc: &Path) -> String {
    let o = Command::new("llvm-dis-22").arg(bc).arg("-o").arg("-").output().expect("run llvm-dis-22");
    assert!(o.status.success());
    String::from_utf8(o.stdout).unwrap()
}

/// The name of the first function defined in `text`.
fn first_defined(text: &str) -> String {
    let line = text.lines().find(|l| l.starts_with("define ")).expect("a defined function");
    let at = line.find('@').unwrap() + 1;
    line[at..].chars().take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '.').collect()
}

/// 640 mutants (80 of each of the eight base modules), each run twice:
/// with `--function` into a missing output, and without flags over an
/// existing output. Every run must keep the contract of [`run_checked`].
#[test]
fn mutants_end_in_one_error_line_or_a_valid_output() {
    const PER_BASE: usize = 80;
    let dir = tempfile::tempdir().unwrap();
    let Some(bases) = base_modules(dir.path()) else { return };
    let mut jobs = Vec::new();
    let mut rng = Rng(0x28_4057_11e5);
    for (name, bytes, function) in &bases {
        for k in 0..PER_BASE {
            let (mutant, kind) = if name.ends_with(".bc") {
                mutate_bytes(&mut rng, bytes)
            } else {
                mutate_text(&mut rng, &String::from_utf8_lossy(bytes))
            };
            jobs.push((format!("{name}#{k}"), mutant, kind, function.clone()));
        }
    }
    let total = jobs.len();
    let jobs = std::sync::Mutex::new(jobs.into_iter().enumerate());
    let results = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let Some((i, (label, mutant, kind, function))) = jobs.lock().unwrap().next() else { break };
                let work = dir.path().join(format!("m{i}"));
                fs::create_dir(&work).unwrap();
                let input = work.join("mutant");
                fs::write(&input, &mutant).unwrap();
                let missing = work.join("missing.bc");
                let existing = work.join("existing.bc");
                fs::write(&existing, PREVIOUS).unwrap();
                let a = run_checked(&input, &missing, &["--function", &function]);
                let b = run_checked(&input, &existing, &[]);
                let _ = fs::remove_dir_all(&work);
                results.lock().unwrap().push((label, kind, a, b));
            });
        }
    });
    let results = results.into_inner().unwrap();
    assert_eq!(results.len(), total);
    let mut broken = Vec::new();
    let (mut outputs, mut errors, mut crashes) = (0, 0, 0);
    for (label, kind, a, b) in &results {
        for r in [a, b] {
            match r {
                Ok(Ending::Output) => outputs += 1,
                Ok(Ending::Error(line)) => {
                    errors += 1;
                    crashes += usize::from(line.contains("LLVM crashed") || line.contains("LLVM stopped"));
                }
                Err(e) => broken.push(format!("{label} ({kind}): {e}")),
            }
        }
    }
    eprintln!(
        "hostile input: {total} mutants, {} runs: {outputs} valid outputs, {errors} error lines \
         ({crashes} of them for a crash inside LLVM), {} contract violations",
        2 * total,
        broken.len()
    );
    assert!(total >= 500);
    assert!(broken.is_empty(), "{} runs broke the contract:\n{}", broken.len(), broken.join("\n"));
    // The mutants reach past the reader: some are still valid modules.
    assert!(outputs > 0 && errors > 0);
}

/// The plugin never takes its host down on a module the host accepted:
/// textual mutants that `opt-22` reads and verifies, run through
/// `-passes=batchify`, end with exit status 0 or 1 (an error diagnostic),
/// never a signal or a panic's abort.
#[test]
fn the_plugin_survives_mutants_its_host_accepts() {
    const MUTANTS: usize = 160;
    let dir = tempfile::tempdir().unwrap();
    let Some(plugin) = batchify_testkit::plugin::require("hostile_input::the_plugin_survives_mutants") else {
        return;
    };
    if !batchify_testkit::skip::require_tool("hostile_input::the_plugin_survives_mutants", "opt-22") {
        return;
    }
    let Some(bases) = base_modules(dir.path()) else { return };
    let texts: Vec<String> = bases
        .iter()
        .filter(|(name, ..)| name.ends_with(".ll"))
        .map(|(_, bytes, _)| String::from_utf8_lossy(bytes).into_owned())
        .collect();
    let mut rng = Rng(0x28_9106_0000);
    let (mut accepted, mut diagnosed) = (0, 0);
    let mut broken = Vec::new();
    for k in 0..MUTANTS {
        let (mutant, kind) = mutate_text(&mut rng, &texts[k % texts.len()]);
        let input = dir.path().join(format!("p{k}.ll"));
        fs::write(&input, &mutant).unwrap();
        let plain = Command::new("opt-22").arg("-passes=verify").arg(&input).arg("-o").arg("/dev/null").output();
        if !plain.is_ok_and(|o| o.status.success()) {
            continue;
        }
        accepted += 1;
        let o = Command::new("opt-22")
            .arg(format!("-load-pass-plugin={}", plugin.display()))
            .arg("-passes=batchify")
            .arg(&input)
            .arg("-o")
            .arg("/dev/null")
            .output()
            .expect("run opt-22");
        match o.status.code() {
            Some(0) => {}
            Some(1) => diagnosed += 1,
            _ => broken.push(format!(
                "mutant {k} ({kind}): {:?} (signal {:?}): {}",
                o.status.code(),
                o.status.signal(),
                String::from_utf8_lossy(&o.stderr).lines().next().unwrap_or("")
            )),
        }
    }
    eprintln!(
        "hostile input, plugin: {MUTANTS} mutants, {accepted} accepted by opt-22, {diagnosed} of them \
         with an error diagnostic, {} hosts taken down",
        broken.len()
    );
    assert!(accepted >= MUTANTS / 4, "only {accepted} mutants were valid modules");
    assert!(broken.is_empty(), "{}", broken.join("\n"));
}
