//! Snapshot tests (`insta`) of the IR the `batchify` binary emits.
//!
//! Each test runs the binary with `-S` on an input from `tests/inputs/` and
//! snapshots only the clone's function text (`define ... @_ZGV...` up to its
//! closing `}`), so that unrelated changes elsewhere in the module do not
//! churn the snapshots. Attribute group references (`#3`) are replaced by
//! local names (`#A0`, `#A1`, ...) whose contents are appended below the
//! function, so the snapshot shows the clone's attributes without depending
//! on the module's attribute group numbering.
//!
//! Update after an intended change with
//! `INSTA_UPDATE=always cargo test -p batchify-cli --test snapshots`
//! and review the `.snap` files.

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_batchify");

fn input(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests").join("inputs").join(name)
}

/// Runs `batchify inputs/INPUT -S -o OUT ARGS...` and returns the module text.
fn batchify(input_name: &str, args: &[&str]) -> String {
    let dir = tempfile::tempdir().expect("create a temporary folder");
    let out = dir.path().join("out.ll");
    let run = Command::new(BIN)
        .arg(input(input_name))
        .arg("-S")
        .arg("-o")
        .arg(&out)
        .args(args)
        .output()
        .expect("run the batchify binary");
    assert!(
        run.status.success(),
        "batchify {input_name} {args:?} failed ({:?}):\n{}",
        run.status,
        String::from_utf8_lossy(&run.stderr)
    );
    std::fs::read_to_string(&out).expect("read the output module")
}

/// The text of function `name` in `module`, with attribute groups inlined.
fn function_text(module: &str, name: &str) -> String {
    let lines: Vec<&str> = module.lines().collect();
    let header = format!("@{name}(");
    let start = lines
        .iter()
        .position(|l| l.starts_with("define ") && l.contains(&header))
        .unwrap_or_else(|| panic!("no definition of @{name} in:\n{module}"));
    let len = lines[start..].iter().position(|l| *l == "}").unwrap_or_else(|| panic!("no closing brace for @{name}"));
    let body = &lines[start..=start + len];

    // `attributes #N = { ... }` lines of the module.
    let groups: HashMap<&str, &str> =
        lines.iter().filter_map(|l| l.strip_prefix("attributes #")).filter_map(|l| l.split_once(" = ")).collect();

    let mut renamed: Vec<(String, String)> = Vec::new(); // (module number, local name)
    let mut out = String::new();
    for line in body {
        out.push_str(&rename_attribute_refs(line, &mut renamed));
        out.push('\n');
    }
    for (num, local) in &renamed {
        let contents = groups.get(num.as_str()).unwrap_or_else(|| panic!("no attribute group #{num}"));
        out.push_str(&format!("attributes #{local} = {contents}\n"));
    }
    out
}

/// Replaces every `#<digits>` outside quotes by a local name, in order of
/// first appearance.
fn rename_attribute_refs(line: &str, renamed: &mut Vec<(String, String)>) -> String {
    let mut out = String::new();
    let mut chars = line.char_indices().peekable();
    let mut in_quotes = false;
    while let Some((i, c)) = chars.next() {
        if c == '"' {
            in_quotes = !in_quotes;
        }
        let digits: String = if c == '#' && !in_quotes {
            line[i + 1..].chars().take_while(char::is_ascii_digit).collect()
        } else {
            String::new()
        };
        if digits.is_empty() {
            out.push(c);
            continue;
        }
        for _ in 0..digits.len() {
            chars.next();
        }
        let local = match renamed.iter().find(|(n, _)| *n == digits) {
            Some((_, l)) => l.clone(),
            None => {
                let l = format!("A{}", renamed.len());
                renamed.push((digits, l.clone()));
                l
            }
        };
        out.push('#');
        out.push_str(&local);
    }
    out
}

/// Snapshots the clone `clone` built from `input_name` with `args`.
macro_rules! snapshot_clone {
    ($snap:literal, $input:literal, $clone:literal, [$($arg:literal),* $(,)?]) => {{
        let args: &[&str] = &[$($arg),*];
        let module = batchify($input, args);
        let text = function_text(&module, $clone);
        insta::with_settings!({
            description => format!("batchify tests/inputs/{} -S {}", $input, args.join(" ")),
            omit_expression => true,
        }, {
            insta::assert_snapshot!($snap, text);
        });
    }};
}

#[test]
fn smoothstep_uniform_edges() {
    snapshot_clone!(
        "smoothstep_ZGVdN8uuv",
        "smoothstep.ll",
        "_ZGVdN8uuv_smoothstep",
        ["--variant", "_ZGVdN8uuv_smoothstep"]
    );
}

#[test]
fn smoothstep_unoptimised() {
    snapshot_clone!(
        "smoothstep_ZGVdN8uuv_O0",
        "smoothstep.ll",
        "_ZGVdN8uuv_smoothstep",
        ["--variant", "_ZGVdN8uuv_smoothstep", "-O0"]
    );
}

#[test]
fn integer_intrinsics() {
    snapshot_clone!("int_intrinsics_N8vv", "int_intrinsics.ll", "_ZGV_LLVM_N8vv_imix", ["--function", "imix"]);
}

#[test]
fn linear_parameters() {
    snapshot_clone!(
        "linear_ZGVbN4l4l4u",
        "linear.ll",
        "_ZGVbN4l4l4u_scaled_load",
        ["--variant", "_ZGVbN4l4l4u_scaled_load"]
    );
}

#[test]
fn uniform_loop() {
    snapshot_clone!(
        "uniform_loop_N4vu",
        "uniform_loop.ll",
        "_ZGV_LLVM_N4vu_powi_loop",
        ["--variant", "_ZGV_LLVM_N4vu_powi_loop"]
    );
}

#[test]
fn per_lane_external_call() {
    snapshot_clone!(
        "per_lane_call_N4vu",
        "per_lane_call.ll",
        "_ZGV_LLVM_N4vu_callext",
        ["--variant", "_ZGV_LLVM_N4vu_callext"]
    );
}

#[test]
fn uniform_branch_unoptimised() {
    snapshot_clone!(
        "uniform_branch_ZGVeN16vu_O0",
        "uniform_branch.ll",
        "_ZGVeN16vu_uif",
        ["--variant", "_ZGVeN16vu_uif", "-O0"]
    );
}

#[test]
fn divergent_if_else() {
    // The branch on the varying `x > 0` becomes one `select <8 x i1>`; both
    // arms run on all lanes (llvm.sqrt is speculatable); no branch is left.
    let module = batchify("divergent_if.ll", &["--variant", "_ZGVdN8v_sqrt_or_neg"]);
    let text = function_text(&module, "_ZGVdN8v_sqrt_or_neg");
    assert!(!text.contains("br i1"), "a conditional branch is left:\n{text}");
    assert!(text.contains("select <8 x i1> %pos, <8 x float> %s, <8 x float> %n"), "{text}");
    snapshot_clone!(
        "divergent_if_ZGVdN8v",
        "divergent_if.ll",
        "_ZGVdN8v_sqrt_or_neg",
        ["--variant", "_ZGVdN8v_sqrt_or_neg"]
    );
}

#[test]
fn divergent_while_loop() {
    // One loop block that runs while any lane is active: an `<8 x i1>` mask
    // phi, and a back edge on `bitcast <8 x i1> ... to i8` + `icmp eq`.
    let module = batchify("divergent_loop.ll", &["--variant", "_ZGV_LLVM_N8v_collatz"]);
    let text = function_text(&module, "_ZGV_LLVM_N8v_collatz");
    assert!(text.contains("phi <8 x i1> [ splat (i1 true), %entry ]"), "no mask phi:\n{text}");
    assert!(text.contains("bitcast <8 x i1>") && text.contains(" to i8"), "no any-lane test:\n{text}");
    assert_eq!(text.matches("br i1").count(), 1, "expected only the back edge to branch:\n{text}");
    snapshot_clone!(
        "divergent_loop_N8v",
        "divergent_loop.ll",
        "_ZGV_LLVM_N8v_collatz",
        ["--variant", "_ZGV_LLVM_N8v_collatz"]
    );
}

#[test]
fn masked_variant_float_mask() {
    // `d` ISA, masked: the mask is a vector of the characteristic type,
    // `<8 x float>`, and a lane is active when its element is nonzero (any
    // bit set: `llvm.is.fpclass` of every class but +0.0 at -O2).
    let module = batchify("masked_store.ll", &["--variant", "_ZGVdM8vu_clamp_log"]);
    let text = function_text(&module, "_ZGVdM8vu_clamp_log");
    assert!(
        text.starts_with("define <8 x float> @_ZGVdM8vu_clamp_log(<8 x float> %x, ptr %log, <8 x float> %mask)"),
        "{text}"
    );
    assert!(
        text.contains("call <8 x i1> @llvm.is.fpclass.v8f32(<8 x float> %mask, i32 959)")
            || text.contains("fcmp une <8 x float> %mask, zeroinitializer")
            || text.contains("icmp ne <8 x i32>"),
        "the mask is not compared against zero:\n{text}"
    );
    snapshot_clone!(
        "masked_store_ZGVdM8vu",
        "masked_store.ll",
        "_ZGVdM8vu_clamp_log",
        ["--variant", "_ZGVdM8vu_clamp_log"]
    );
}

#[test]
fn function_text_extraction() {
    let module = "define i32 @f(i32 %x) #0 {\n  ret i32 %x\n}\n\n\
                  define <4 x i32> @_ZGV_LLVM_N4v_f(<4 x i32> %0) #3 {\n  %c = call i32 @g() #1\n  ret <4 x i32> %0\n}\n\n\
                  attributes #0 = { nounwind }\nattributes #1 = { \"x\"=\"#2\" }\nattributes #3 = { \"min-legal-vector-width\"=\"128\" }\n";
    assert_eq!(
        function_text(module, "_ZGV_LLVM_N4v_f"),
        "define <4 x i32> @_ZGV_LLVM_N4v_f(<4 x i32> %0) #A0 {\n  %c = call i32 @g() #A1\n  ret <4 x i32> %0\n}\n\
         attributes #A0 = { \"min-legal-vector-width\"=\"128\" }\nattributes #A1 = { \"x\"=\"#2\" }\n"
    );
}
