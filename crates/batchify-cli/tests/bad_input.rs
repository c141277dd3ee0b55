//! Bad input to the `batchify` binary (SPEC §6 "Bad input"): unreadable or
//! invalid IR, unknown names, malformed or ill-fitting VFABI names, name
//! clashes, and (with `--no-fallback`) constructs the vectorizer does not
//! handle must each give
//!
//! * exit status 1 (not 101 = a Rust panic, not a signal),
//! * exactly one line on stderr, starting with `batchify: error:` and naming
//!   the file, function or variant at fault,
//! * nothing on stdout,
//! * no output file, and no `.batchify-*` temporary file left behind.
//!
//! Without `--no-fallback`, an unsupported construct is not an error: the
//! clone is a per-lane loop over the scalar function, batchify prints exactly
//! one `batchify: warning:` line for it, writes the output and exits 0.
//!
//! Clap usage errors exit with status 2 instead.

use std::fs;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_batchify");

/// A module with a function of every kind the tests below need.
const MODULE: &str = r#"
define i32 @two(i32 %a, i32 %b) {
  %r = add i32 %a, %b
  ret i32 %r
}

define float @div(float %x) {
entry:
  %c = fcmp olt float %x, 0.0
  br i1 %c, label %neg, label %pos
neg:
  %n = fneg float %x
  br label %pos
pos:
  %r = phi float [ %n, %neg ], [ %x, %entry ]
  ret float %r
}

define i32 @sw(i32 %x) {
entry:
  switch i32 %x, label %def [ i32 0, label %a
                              i32 1, label %b ]
a:
  br label %j
b:
  br label %j
def:
  br label %j
j:
  %r = phi i32 [ 10, %a ], [ 20, %b ], [ 30, %def ]
  ret i32 %r
}

declare float @only_declared(float)

; Constructs the vectorizer does not handle: each gets the per-lane fallback,
; or an error with --no-fallback.
define i32 @asm(i32 %x) {
  %r = call i32 asm sideeffect "", "=r,0"(i32 %x)
  ret i32 %r
}

define i32 @stack(i32 %i, i32 %x) {
  %n = and i32 %i, 7
  %n1 = add i32 %n, 1
  %a = alloca i32, i32 %n1, align 16
  %i7 = and i32 %i, 7
  %p = getelementptr inbounds i32, ptr %a, i32 %i7
  store i32 %x, ptr %p
  %v = load i32, ptr %a
  ret i32 %v
}

define i32 @atom(ptr %p, i32 %x) {
  %o = atomicrmw add ptr %p, i32 %x seq_cst
  ret i32 %o
}
"#;

/// A function with an `invoke` (LLVM prints it on two lines).
const INVOKE: &str = "declare i32 @may_throw(i32)\ndeclare i32 @__gxx_personality_v0(...)\n\
     define i32 @inv(i32 %x) personality ptr @__gxx_personality_v0 {\n\
     entry:\n  %r = invoke i32 @may_throw(i32 %x) to label %ok unwind label %bad\n\
     ok:\n  ret i32 %r\n\
     bad:\n  %lp = landingpad { ptr, i32 } cleanup\n  ret i32 0\n}\n";

/// A scratch folder holding the input module and the (expected) output path.
struct Scratch {
    dir: tempfile::TempDir,
}

impl Scratch {
    fn new() -> Scratch {
        Scratch { dir: tempfile::tempdir().expect("create a temporary folder") }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn write(&self, name: &str, bytes: impl AsRef<[u8]>) -> PathBuf {
        let p = self.path(name);
        fs::write(&p, bytes).expect("write an input file");
        p
    }

    /// The standard module, as `in.ll`.
    fn module(&self) -> PathBuf {
        self.write("in.ll", MODULE)
    }

    fn out(&self) -> PathBuf {
        self.path("out.bc")
    }

    /// The text output, as `out.ll`.
    fn out_ll(&self) -> PathBuf {
        self.path("out.ll")
    }

    /// Runs batchify in the scratch folder.
    fn run<S: AsRef<std::ffi::OsStr>>(&self, args: &[S]) -> Output {
        Command::new(BIN).args(args).current_dir(self.dir.path()).output().expect("run the batchify binary")
    }

    /// Runs `batchify INPUT -o out.bc EXTRA...`.
    fn run_on(&self, input: &Path, extra: &[&str]) -> Output {
        let mut args: Vec<std::ffi::OsString> = vec![input.into(), "-o".into(), self.out().into()];
        args.extend(extra.iter().map(Into::into));
        self.run(&args)
    }

    /// Names of leftover temporary files of the atomic writer.
    fn temp_files(&self) -> Vec<String> {
        fs::read_dir(self.dir.path())
            .expect("list the scratch folder")
            .map(|e| e.expect("read a folder entry").file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with(".batchify-"))
            .collect()
    }

    /// Asserts the failure contract and returns the error line.
    #[track_caller]
    fn assert_clean_failure(&self, out: &Output, mentions: &[&str]) -> String {
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(
            out.status.code(),
            Some(1),
            "expected exit status 1, got {:?} (signal {:?}); stderr:\n{stderr}",
            out.status.code(),
            out.status.signal()
        );
        assert!(stdout.is_empty(), "expected nothing on stdout, got:\n{stdout}");
        assert!(
            stderr.ends_with('\n') && stderr.matches('\n').count() == 1,
            "expected exactly one line on stderr, got:\n{stderr}"
        );
        let line = stderr.trim_end_matches('\n').to_string();
        assert!(line.starts_with("batchify: error: "), "stderr does not start with `batchify: error: `: {line}");
        for m in mentions {
            assert!(line.contains(m), "error line does not mention `{m}`: {line}");
        }
        assert!(!self.out().exists(), "the output file was written despite the error: {line}");
        assert_eq!(self.temp_files(), Vec::<String>::new(), "temporary files left behind");
        line
    }

    /// Runs `batchify INPUT -o out.ll EXTRA...` and asserts success with
    /// nothing on stdout or stderr; returns the output module's text.
    #[track_caller]
    fn assert_clean_success(&self, input: &Path, extra: &[&str]) -> String {
        let mut args: Vec<std::ffi::OsString> = vec![input.into(), "-o".into(), self.out_ll().into()];
        args.extend(extra.iter().map(Into::into));
        let out = self.run(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "expected success; stderr:\n{stderr}");
        assert!(stderr.is_empty(), "expected nothing on stderr, got:\n{stderr}");
        assert!(out.stdout.is_empty(), "expected nothing on stdout");
        assert_eq!(self.temp_files(), Vec::<String>::new(), "temporary files left behind");
        fs::read_to_string(self.out_ll()).expect("the output file exists")
    }

    /// Asserts the fallback contract: exit 0, exactly one
    /// `batchify: warning:` line mentioning `mentions`, nothing on stdout, and
    /// the output written. Returns the warning line.
    #[track_caller]
    fn assert_fallback_warning(&self, out: &Output, mentions: &[&str]) -> String {
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(
            out.status.code(),
            Some(0),
            "expected exit status 0, got {:?} (signal {:?}); stderr:\n{stderr}",
            out.status.code(),
            out.status.signal()
        );
        assert!(out.stdout.is_empty(), "expected nothing on stdout, got:\n{}", String::from_utf8_lossy(&out.stdout));
        assert!(
            stderr.ends_with('\n') && stderr.matches('\n').count() == 1,
            "expected exactly one line on stderr, got:\n{stderr}"
        );
        let line = stderr.trim_end_matches('\n').to_string();
        assert!(line.starts_with("batchify: warning: "), "stderr does not start with `batchify: warning: `: {line}");
        assert!(line.contains("is a per-lane loop over the scalar function"), "{line}");
        for m in mentions {
            assert!(line.contains(m), "warning line does not mention `{m}`: {line}");
        }
        assert!(self.out().exists(), "no output file was written: {line}");
        assert_eq!(self.temp_files(), Vec::<String>::new(), "temporary files left behind");
        line
    }
}

/// The text of function `name` (from its `define` line to the closing `}`).
fn function_text<'a>(module: &'a str, name: &str) -> &'a str {
    let header = format!("@{name}(");
    let start = module
        .lines()
        .position(|l| l.starts_with("define ") && l.contains(&header))
        .unwrap_or_else(|| panic!("no definition of @{name} in:\n{module}"));
    let begin: usize = module.lines().take(start).map(|l| l.len() + 1).sum();
    let rest = &module[begin..];
    let end = rest.find("\n}").unwrap_or_else(|| panic!("no closing brace for @{name}"));
    &rest[..end + 2]
}

/// Valid bitcode of `MODULE`: from `llvm-as-22` if it is installed, else
/// written by batchify itself.
fn valid_bitcode(s: &Scratch) -> Vec<u8> {
    let src = s.module();
    let bc = s.path("valid.bc");
    // `llvm-as` in the LLVM prefix (`tools/llvm-prefix.sh` decides it).
    let in_prefix = Path::new(batchify_llvm_link::LLVM_PREFIX).join("bin").join("llvm-as");
    for tool in [PathBuf::from("llvm-as-22"), in_prefix] {
        if let Ok(st) = Command::new(tool).arg(&src).arg("-o").arg(&bc).status() {
            if st.success() {
                return fs::read(&bc).expect("read llvm-as output");
            }
        }
    }
    let out = s.run(&[src.as_os_str(), "-o".as_ref(), bc.as_os_str(), "--function".as_ref(), "two".as_ref()]);
    assert!(out.status.success(), "batchify could not write bitcode: {}", String::from_utf8_lossy(&out.stderr));
    fs::read(&bc).expect("read batchify's bitcode")
}

// ---------------------------------------------------------------- files ---

#[test]
fn missing_input_file() {
    let s = Scratch::new();
    let out = s.run_on(&s.path("missing.ll"), &["--function", "two"]);
    s.assert_clean_failure(&out, &["missing.ll", "cannot read"]);
}

#[test]
fn input_is_a_directory() {
    let s = Scratch::new();
    let d = s.path("a_folder.ll");
    fs::create_dir(&d).unwrap();
    let out = s.run_on(&d, &["--function", "two"]);
    s.assert_clean_failure(&out, &["a_folder.ll", "cannot read"]);
}

#[test]
fn input_path_goes_through_a_regular_file() {
    // Tests run as root, so permissions cannot make a file unreadable; a
    // path "under" a regular file cannot be opened by anyone.
    let s = Scratch::new();
    let f = s.module();
    let out = s.run_on(&f.join("inner.ll"), &["--function", "two"]);
    s.assert_clean_failure(&out, &["inner.ll", "cannot read"]);
}

#[test]
fn plain_text_is_not_ir() {
    let s = Scratch::new();
    let f = s.write("notes.ll", "These are my shopping notes, not LLVM IR.\n");
    let out = s.run_on(&f, &["--function", "two"]);
    s.assert_clean_failure(&out, &["notes.ll", "cannot parse", "textual IR"]);
}

#[test]
fn textual_ir_with_a_syntax_error() {
    let s = Scratch::new();
    let f = s.write("broken.ll", "define i32 @two(i32 %a) {\n  ret i32 %b\n}\n");
    let out = s.run_on(&f, &["--function", "two"]);
    s.assert_clean_failure(&out, &["broken.ll", "cannot parse", "%b"]);
}

#[test]
fn ir_that_does_not_verify() {
    // Parses, but a phi names a block that is not a predecessor: the error
    // blames the input file, not batchify ("internal error").
    let s = Scratch::new();
    let f = s.write(
        "broken_phi.ll",
        "define i32 @f(i32 %x) {\nentry:\n  br label %b\nb:\n  %p = phi i32 [ %x, %nope ], [ 0, %entry ]\n  \
         ret i32 %p\nnope:\n  ret i32 1\n}\n\
         define i32 @two(i32 %a, i32 %b) {\n  %r = add i32 %a, %b\n  ret i32 %r\n}\n",
    );
    // Even when the broken function is not the one requested.
    for name in ["f", "two"] {
        let out = s.run_on(&f, &["--function", name]);
        let line = s.assert_clean_failure(&out, &["broken_phi.ll", "not valid LLVM IR"]);
        assert!(!line.contains("internal error"), "{line}");
    }
}

#[test]
fn random_bytes_are_not_ir() {
    let s = Scratch::new();
    // Deterministic "random" bytes (an LCG), forced to be invalid UTF-8.
    let mut x: u32 = 0x1234_5678;
    let mut bytes: Vec<u8> = (0..4096)
        .map(|_| {
            x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (x >> 24) as u8
        })
        .collect();
    bytes[0] = 0xFF;
    let f = s.write("noise.bc", &bytes);
    let out = s.run_on(&f, &["--function", "two"]);
    s.assert_clean_failure(&out, &["noise.bc"]);
}

#[test]
fn bitcode_magic_followed_by_garbage() {
    let s = Scratch::new();
    let mut bytes = b"BC\xC0\xDE".to_vec();
    bytes.extend((0u32..512).map(|i| (i.wrapping_mul(37) ^ 0x5A) as u8));
    let f = s.write("garbage.bc", &bytes);
    let out = s.run_on(&f, &["--function", "two"]);
    s.assert_clean_failure(&out, &["garbage.bc", "bitcode"]);
}

#[test]
fn truncated_bitcode() {
    let s = Scratch::new();
    let bc = valid_bitcode(&s);
    assert!(bc.starts_with(b"BC\xC0\xDE"), "not bitcode");
    let n = bc.len();
    for cut in [4, 8, 20, 64, n / 4, n / 2, n - 16, n - 1] {
        let f = s.write("truncated.bc", &bc[..cut]);
        let out = s.run_on(&f, &["--function", "two"]);
        let line = s.assert_clean_failure(&out, &["truncated.bc"]);
        assert!(line.contains("bitcode"), "cut at {cut}/{n}: {line}");
    }
}

#[test]
fn empty_input_file() {
    // An empty text file is a valid, empty module: the function is unknown.
    let s = Scratch::new();
    let f = s.write("empty.ll", "");
    let out = s.run_on(&f, &["--function", "two"]);
    s.assert_clean_failure(&out, &["two"]);
}

#[test]
fn output_folder_does_not_exist() {
    let s = Scratch::new();
    let f = s.module();
    let target = s.path("no/such/folder/out.bc");
    let out = s.run(&[f.as_os_str(), "-o".as_ref(), target.as_os_str(), "--function".as_ref(), "two".as_ref()]);
    s.assert_clean_failure(&out, &["out.bc", "cannot write"]);
    assert!(!target.exists());
}

#[test]
fn output_is_a_directory() {
    let s = Scratch::new();
    let f = s.module();
    let target = s.path("out_dir");
    fs::create_dir(&target).unwrap();
    let out = s.run(&[f.as_os_str(), "-o".as_ref(), target.as_os_str(), "--function".as_ref(), "two".as_ref()]);
    s.assert_clean_failure(&out, &["out_dir", "cannot write"]);
    assert!(target.is_dir());
    assert_eq!(fs::read_dir(&target).unwrap().count(), 0, "something was written into the folder");
}

/// An output that is a symbolic link stays a link: the file it names is
/// written (created if the link dangles), atomically.
#[test]
fn output_symlink_keeps_the_link() {
    let s = Scratch::new();
    let f = s.module();
    let real = s.path("real.ll");
    let link = s.path("link.ll");
    std::os::unix::fs::symlink("real.ll", &link).unwrap();
    for _ in 0..2 {
        let out = s.run(&[f.as_os_str(), "-o".as_ref(), link.as_os_str(), "--function".as_ref(), "two".as_ref()]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        assert!(fs::symlink_metadata(&link).unwrap().file_type().is_symlink(), "the link was replaced");
        assert!(fs::read_to_string(&real).unwrap().contains("@_ZGV_LLVM_N8vv_two"));
    }
}

// ---------------------------------------------------------------- names ---

#[test]
fn unknown_function() {
    let s = Scratch::new();
    let out = s.run_on(&s.module(), &["--function", "no_such_function"]);
    s.assert_clean_failure(&out, &["unknown function", "`no_such_function`"]);
}

#[test]
fn unknown_function_in_a_variant() {
    let s = Scratch::new();
    let out = s.run_on(&s.module(), &["--variant", "_ZGVbN4vv_no_such_function"]);
    s.assert_clean_failure(&out, &["unknown function", "`no_such_function`"]);
}

#[test]
fn function_without_a_body() {
    let s = Scratch::new();
    let out = s.run_on(&s.module(), &["--function", "only_declared"]);
    s.assert_clean_failure(&out, &["`only_declared`", "only declared"]);
}

#[test]
fn malformed_vfabi_names() {
    let s = Scratch::new();
    let f = s.module();
    for name in [
        "two",                  // no prefix
        "_ZGV",                 // nothing after the prefix
        "_ZGVxN4vv_two",        // unknown ISA
        "_ZGVbQ4vv_two",        // neither N nor M
        "_ZGVbN0vv_two",        // zero lanes
        "_ZGVbN4vq_two",        // unknown parameter token
        "_ZGVbN4vv_",           // no scalar name
        "_ZGVbN4vv",            // no `_name` at all
        "_ZGV_LLVM_N4ls9v_two", // linear step refers to a missing parameter
    ] {
        let out = s.run_on(&f, &["--variant", name]);
        let line = s.assert_clean_failure(&out, &[&format!("`{name}`")]);
        assert!(line.contains("malformed vector variant name"), "{name}: {line}");
    }
}

#[test]
fn vfabi_parameter_count_does_not_match() {
    let s = Scratch::new();
    let f = s.module();
    for (name, kinds) in [("_ZGVbN4v_two", "1"), ("_ZGVbN4vvv_two", "3"), ("_ZGVdN8uuvu_div", "4")] {
        let out = s.run_on(&f, &["--variant", name]);
        let line = s.assert_clean_failure(&out, &[&format!("`{name}`"), "does not fit"]);
        assert!(line.contains(&format!("it has {kinds} parameter kind(s)")), "{name}: {line}");
    }
}

#[test]
fn vfabi_variant_of_an_unsupported_signature() {
    let s = Scratch::new();
    let f = s.write("vec.ll", "define <2 x float> @vec2(<2 x float> %x) {\n  ret <2 x float> %x\n}\n");
    let out = s.run_on(&f, &["--variant", "_ZGVbN4v_vec2"]);
    s.assert_clean_failure(&out, &["`_ZGVbN4v_vec2`", "<2 x float>"]);
}

#[test]
fn one_bad_request_among_good_ones_writes_nothing() {
    let s = Scratch::new();
    let out = s.run_on(&s.module(), &["--function", "two", "--variant", "_ZGVbN4v_two"]);
    s.assert_clean_failure(&out, &["`_ZGVbN4v_two`"]);
}

// ---------------------------------------------------------- unsupported ---

/// `(function, words the message must contain)` for each construct the
/// vectorizer does not handle, all in `MODULE`.
const UNSUPPORTED: &[(&str, &[&str])] = &[
    ("asm", &["inline assembly", "asm sideeffect"]),
    ("stack", &["stack memory", "alloca i32, i32", "computed size"]),
    ("atom", &["atomicrmw add"]),
];

#[test]
fn unsupported_construct_with_no_fallback() {
    let s = Scratch::new();
    let f = s.module();
    for (name, words) in UNSUPPORTED {
        let out = s.run_on(&f, &["--function", name, "--no-fallback"]);
        let line = s.assert_clean_failure(&out, &[&format!("cannot batchify `{name}`")]);
        for w in *words {
            assert!(line.contains(w), "{name}: error line does not mention `{w}`: {line}");
        }
    }
}

#[test]
fn unsupported_construct_falls_back_with_a_warning() {
    let s = Scratch::new();
    let f = s.module();
    for (name, words) in UNSUPPORTED {
        let _ = fs::remove_file(s.out());
        let clone = format!("_ZGV_LLVM_N4{}_{name}", if *name == "asm" { "v" } else { "vv" });
        let out = s.run_on(&f, &["--function", name, "-n", "4"]);
        let line = s.assert_fallback_warning(&out, &[&format!("`{name}` -> `{clone}`")]);
        for w in *words {
            assert!(line.contains(w), "{name}: warning line does not mention `{w}`: {line}");
        }
        let bytes = fs::read(s.out()).unwrap();
        assert!(bytes.starts_with(b"BC\xC0\xDE"), "{name}: the output is not bitcode");
    }
}

#[test]
fn fallback_clone_calls_the_scalar_function_once_per_lane() {
    let s = Scratch::new();
    let out = s.run(&[
        s.module().as_os_str(),
        "-S".as_ref(),
        "-o".as_ref(),
        s.out().as_os_str(),
        "--function".as_ref(),
        "asm".as_ref(),
        "-n".as_ref(),
        "4".as_ref(),
    ]);
    s.assert_fallback_warning(&out, &["`asm` -> `_ZGV_LLVM_N4v_asm`"]);
    let module = fs::read_to_string(s.out()).unwrap();
    let clone = function_text(&module, "_ZGV_LLVM_N4v_asm");
    assert_eq!(clone.matches("call i32 @asm(i32 ").count(), 4, "{clone}");
    assert!(!clone.contains("asm sideeffect"), "the inline asm was copied into the clone:\n{clone}");
    // The scalar function keeps its inline assembly.
    assert!(function_text(&module, "asm").contains("call i32 asm sideeffect"), "{module}");
}

#[test]
fn one_warning_per_fallback_clone() {
    let s = Scratch::new();
    let out = s.run_on(&s.module(), &["--function", "asm", "--function", "two", "-n", "4"]);
    s.assert_fallback_warning(&out, &["`asm`"]);
    let out = s.run_on(&s.module(), &["--function", "asm", "--function", "stack", "-n", "4"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "stderr:\n{stderr}");
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 2, "expected two warning lines:\n{stderr}");
    assert!(lines.iter().all(|l| l.starts_with("batchify: warning: ")), "{stderr}");
    assert!(lines[0].contains("`asm`") && lines[1].contains("`stack`"), "{stderr}");
}

#[test]
fn one_unsupported_request_with_no_fallback_writes_nothing() {
    let s = Scratch::new();
    let out = s.run_on(&s.module(), &["--function", "two", "--function", "asm", "--no-fallback"]);
    s.assert_clean_failure(&out, &["cannot batchify `asm`"]);
}

#[test]
fn invoke_is_one_line() {
    let s = Scratch::new();
    let f = s.write("inv.ll", INVOKE);
    let out = s.run_on(&f, &["--function", "inv", "--no-fallback"]);
    let line = s.assert_clean_failure(&out, &["cannot batchify `inv`", "invoke", "unwind label %bad"]);
    assert!(line.contains("to label %ok unwind label %bad"), "the instruction is not quoted on one line: {line}");
}

#[test]
fn invoke_falls_back_with_one_warning_line() {
    let s = Scratch::new();
    let f = s.write("inv.ll", INVOKE);
    let out = s.run_on(&f, &["--function", "inv", "-n", "4"]);
    s.assert_fallback_warning(&out, &["`inv` -> `_ZGV_LLVM_N4v_inv`", "invoke", "unwind label %bad"]);
}

// ------------------------------------- formerly unsupported, now supported ---

#[test]
fn divergent_branch_is_supported() {
    let s = Scratch::new();
    let text = s.assert_clean_success(&s.module(), &["--function", "div", "-n", "4", "--no-fallback"]);
    let clone = function_text(&text, "_ZGV_LLVM_N4v_div");
    assert!(clone.contains("select <4 x i1>"), "no select on the mask:\n{clone}");
    assert!(!clone.contains("call float @div("), "the clone calls the scalar function:\n{clone}");
}

#[test]
fn divergent_switch_is_supported() {
    let s = Scratch::new();
    let text = s.assert_clean_success(&s.module(), &["--function", "sw", "--no-fallback"]);
    let clone = function_text(&text, "_ZGV_LLVM_N8v_sw");
    assert!(!clone.contains("switch"), "the divergent switch is still there:\n{clone}");
    assert!(!clone.contains("call i32 @sw("), "the clone calls the scalar function:\n{clone}");
}

#[test]
fn masked_variant() {
    let s = Scratch::new();
    let text = s.assert_clean_success(&s.module(), &["--variant", "_ZGVbM4vv_two", "--no-fallback"]);
    // b ISA: the mask is a vector of the characteristic type (i32 here).
    assert!(text.contains("define <4 x i32> @_ZGVbM4vv_two(<4 x i32> %a, <4 x i32> %b, <4 x i32> %mask)"), "{text}");
}

#[test]
fn masked_variant_requested_by_declare_simd_attribute() {
    let s = Scratch::new();
    let f = s.write(
        "attr.ll",
        "define float @sq(float %x) #0 {\n  %r = fmul float %x, %x\n  ret float %r\n}\n\
         attributes #0 = { \"_ZGVbN4v_sq\" \"_ZGVbM4v_sq\" }\n",
    );
    let text = s.assert_clean_success(&f, &[]);
    assert!(text.contains("define <4 x float> @_ZGVbN4v_sq(<4 x float> %x)"), "{text}");
    assert!(text.contains("define <4 x float> @_ZGVbM4v_sq(<4 x float> %x, <4 x float> %mask)"), "{text}");
}

#[test]
fn nothing_to_batchify() {
    let s = Scratch::new();
    let out = s.run_on(&s.module(), &[]);
    s.assert_clean_failure(&out, &["nothing to batchify"]);
}

#[test]
fn existing_declaration_with_another_type() {
    // The module declares the clone's name with another type and calls it:
    // that caller expects another signature, so this is an error naming both
    // types (it used to crash with SIGSEGV).
    let s = Scratch::new();
    let f = s.write(
        "decl.ll",
        "define float @f(float %x) {\n  %r = fmul float %x, %x\n  ret float %r\n}\n\
         declare <8 x float> @_ZGV_LLVM_N8v_f(<4 x float>)\n\
         define <8 x float> @caller(<4 x float> %v) {\n\
           %r = call <8 x float> @_ZGV_LLVM_N8v_f(<4 x float> %v)\n  ret <8 x float> %r\n}\n",
    );
    let out = s.run_on(&f, &["--function", "f", "-n", "8"]);
    s.assert_clean_failure(&out, &["`_ZGV_LLVM_N8v_f`", "<8 x float> (<4 x float>)"]);
}

#[test]
fn clone_name_taken_by_a_global() {
    let s = Scratch::new();
    let f = s.write(
        "glob.ll",
        "@_ZGV_LLVM_N4v_f = global i32 0\n\
         define float @f(float %x) {\n  %r = fmul float %x, %x\n  ret float %r\n}\n",
    );
    let out = s.run_on(&f, &["--function", "f", "-n", "4"]);
    s.assert_clean_failure(&out, &["`_ZGV_LLVM_N4v_f`", "global variable"]);
}

// ------------------------------------------------ existing output file ---

#[test]
fn failure_keeps_an_existing_output_file() {
    let s = Scratch::new();
    fs::write(s.out(), "previous contents\n").unwrap();
    let out = s.run_on(&s.module(), &["--function", "asm", "--no-fallback"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(fs::read_to_string(s.out()).unwrap(), "previous contents\n", "the old output was clobbered");
    assert_eq!(s.temp_files(), Vec::<String>::new());
}

// ------------------------------------------------------------- success ---

#[test]
fn valid_run_writes_the_output() {
    let s = Scratch::new();
    let out = s.run_on(&s.module(), &["--function", "two", "-n", "4"]);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", String::from_utf8_lossy(&out.stderr));
    assert!(out.stderr.is_empty(), "unexpected stderr: {}", String::from_utf8_lossy(&out.stderr));
    assert!(out.stdout.is_empty());
    let bytes = fs::read(s.out()).expect("the output file exists");
    assert!(bytes.starts_with(b"BC\xC0\xDE"), "the default output format is bitcode");
    assert_eq!(s.temp_files(), Vec::<String>::new());

    // The same with text output, replacing an existing file.
    let ll = s.path("out.ll");
    fs::write(&ll, "old").unwrap();
    let out = s.run(&[s.module().as_os_str(), "-o".as_ref(), ll.as_os_str(), "--function".as_ref(), "two".as_ref()]);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", String::from_utf8_lossy(&out.stderr));
    let text = fs::read_to_string(&ll).unwrap();
    assert!(text.contains("define <8 x i32> @_ZGV_LLVM_N8vv_two(<8 x i32>"), "{text}");
    assert_eq!(s.temp_files(), Vec::<String>::new());
}

#[test]
fn output_file_mode_follows_the_umask() {
    use std::os::unix::fs::PermissionsExt;
    let s = Scratch::new();
    // Run under a known umask through the shell.
    let cmd = format!("umask 022 && exec '{BIN}' in.ll -o out.bc --function two");
    s.module();
    let out = Command::new("sh").arg("-c").arg(cmd).current_dir(s.dir.path()).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "stderr: {}", String::from_utf8_lossy(&out.stderr));
    let mode = fs::metadata(s.out()).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o644, "output mode is {mode:o}");
}

#[test]
fn dash_output_writes_stdout() {
    let s = Scratch::new();
    let out = s.run(&[
        s.module().as_os_str(),
        "-S".as_ref(),
        "-o".as_ref(),
        "-".as_ref(),
        "--function".as_ref(),
        "two".as_ref(),
    ]);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).expect("textual IR on stdout");
    assert!(text.contains("define <8 x i32> @_ZGV_LLVM_N8vv_two(<8 x i32> %a, <8 x i32> %b)"), "{text}");
    assert!(!s.path("-").exists(), "a file named `-` was written");
    assert_eq!(s.temp_files(), Vec::<String>::new());
}

#[test]
fn output_to_a_character_device_keeps_the_device() {
    use std::os::unix::fs::FileTypeExt;
    // `-o /dev/null` must write to the device, not rename a regular file
    // over it (which replaced /dev/null itself when run as root). Tested on a
    // private copy of /dev/null (char 1:3) in the scratch folder, so the real
    // one is never at risk. Creating it needs CAP_MKNOD (root).
    let s = Scratch::new();
    let dev = s.path("null");
    let made = Command::new("mknod").arg(&dev).args(["c", "1", "3"]).status();
    if !made.is_ok_and(|st| st.success()) {
        let reason = "cannot create a character device here (mknod needs root)";
        // Where every check must run (CI), a skip is a failure.
        if std::env::var("BATCHIFY_REQUIRE_TOOLS").is_ok_and(|v| !v.is_empty() && v != "0") {
            panic!("output_to_a_character_device_keeps_the_device cannot run: {reason}");
        }
        eprintln!("SKIPPED output_to_a_character_device_keeps_the_device: {reason}");
        return;
    }
    let out = s.run(&[s.module().as_os_str(), "-o".as_ref(), dev.as_os_str(), "--function".as_ref(), "two".as_ref()]);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", String::from_utf8_lossy(&out.stderr));
    let kind = fs::symlink_metadata(&dev).unwrap().file_type();
    assert!(kind.is_char_device(), "the output device was replaced by {kind:?}");
    assert_eq!(s.temp_files(), Vec::<String>::new());
}

// ---------------------------------------------------------- usage errors ---

#[track_caller]
fn assert_usage_error(s: &Scratch, out: &Output, mention: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "usage errors exit with 2; stderr:\n{stderr}");
    assert!(stderr.contains(mention), "usage error does not mention `{mention}`:\n{stderr}");
    assert!(!s.out().exists());
    assert_eq!(s.temp_files(), Vec::<String>::new());
}

#[test]
fn missing_output_flag_is_a_usage_error() {
    let s = Scratch::new();
    let out = s.run(&[s.module().as_os_str(), "--function".as_ref(), "two".as_ref()]);
    assert_usage_error(&s, &out, "--output");
}

#[test]
fn missing_input_is_a_usage_error() {
    let s = Scratch::new();
    let out = s.run(&["-o", "out.bc", "--function", "two"]);
    assert_usage_error(&s, &out, "<INPUT>");
}

#[test]
fn bad_flag_values_are_usage_errors() {
    let s = Scratch::new();
    let m = s.module();
    let m = m.to_str().unwrap();
    for (args, mention) in [
        (vec![m, "-o", "out.bc", "-n", "0", "--function", "two"], "--lanes"),
        (vec![m, "-o", "out.bc", "-n", "many", "--function", "two"], "--lanes"),
        (vec![m, "-o", "out.bc", "--isa", "mmx", "--function", "two"], "--isa"),
        (vec![m, "-o", "out.bc", "-O7", "--function", "two"], "-O"),
        (vec![m, "-o", "out.bc", "--no-such-flag"], "--no-such-flag"),
    ] {
        let out = s.run(&args);
        assert_usage_error(&s, &out, mention);
    }
}
