//! The macro's compile errors: each case is a small file compiled by
//! `rustc --emit=metadata` against the built macro. Its error must carry the
//! expected message and point at the expected line (the offending token, not
//! the attribute, where there is one). rustc's own errors would mean the
//! macro emitted broken code instead of an error, so exactly one `error:`
//! (plus rustc's "aborting" line) is allowed.

use std::path::PathBuf;
use std::process::Command;

/// The macro's dylib, as cargo built it for this test (the newest
/// `libbatchify_macros-*.so` in the deps directory; the cases name it
/// `batchify`, as the `batchify` crate re-exports it).
pub fn macro_dylib() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let deps = exe.parent().unwrap();
    std::fs::read_dir(deps)
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy();
            name.starts_with("libbatchify_macros-") && name.ends_with(".so")
        })
        .max_by_key(|p| p.metadata().and_then(|m| m.modified()).ok())
        .expect("libbatchify_macros-*.so next to the test binary")
}

/// (case, source, message, line of the error).
const CASES: &[(&str, &str, &str, usize)] = &[
    ("no_width", "#[batchify::batch]\nfn f(x: f32) -> f32 { x }\n", "missing `width = N`", 1),
    ("width_zero", "#[batchify::batch(width = 0)]\nfn f(x: f32) -> f32 { x }\n", "`width` must be from 1 to 64", 1),
    ("width_big", "#[batchify::batch(width = 65)]\nfn f(x: f32) -> f32 { x }\n", "`width` must be from 1 to 64", 1),
    ("width_str", "#[batchify::batch(width = \"8\")]\nfn f(x: f32) -> f32 { x }\n", "`width` must be an integer", 1),
    ("width_twice", "#[batchify::batch(width = 4, width = 8)]\nfn f(x: f32) -> f32 { x }\n", "given twice", 1),
    ("unknown_option", "#[batchify::batch(width = 4, fast)]\nfn f(x: f32) -> f32 { x }\n", "unknown option", 1),
    (
        "bad_name",
        "#[batchify::batch(width = 4, name = \"a b\")]\nfn f(x: f32) -> f32 { x }\n",
        "is not an identifier",
        1,
    ),
    (
        "uniform_unknown",
        "#[batchify::batch(width = 4, uniform(y))]\nfn f(x: f32) -> f32 { x }\n",
        "no parameter `y`",
        1,
    ),
    ("generic", "#[batchify::batch(width = 4)]\nfn f<T: Copy>(\n    x: T,\n) -> T { x }\n", "generic functions", 2),
    ("async", "#[batchify::batch(width = 4)]\nasync fn f(x: f32) -> f32 { x }\n", "`async` functions", 2),
    ("unsafe", "#[batchify::batch(width = 4)]\nunsafe fn f(x: f32) -> f32 { x }\n", "`unsafe` functions", 2),
    (
        "self",
        "struct S;\nimpl S {\n    #[batchify::batch(width = 4)]\n    fn f(&self,\n        x: f32) -> f32 { x }\n}\n",
        "`self` parameters",
        4,
    ),
    (
        "pattern",
        "#[batchify::batch(width = 4)]\nfn f(\n    (a, b): (f32, f32),\n) -> f32 { a + b }\n",
        "patterns in parameters",
        3,
    ),
    (
        "string",
        "#[batchify::batch(width = 4)]\nfn f(\n    x: String,\n) -> f32 { 0.0 }\n",
        "unsupported varying parameter type",
        3,
    ),
    ("i128", "#[batchify::batch(width = 4)]\nfn f(x: f32)\n    -> i128 { 0 }\n", "unsupported return type", 3),
    (
        "tuple_ret",
        "#[batchify::batch(width = 4)]\nfn f(x: f32)\n    -> (f32, f32) { (x, x) }\n",
        "unsupported return type",
        3,
    ),
    (
        "varying_slice",
        "#[batchify::batch(width = 4)]\nfn f(\n    t: &[f32],\n) -> f32 { t[0] }\n",
        "varying parameter cannot be a reference",
        3,
    ),
    (
        "varying_ref",
        "#[batchify::batch(width = 4)]\nfn f(\n    t: &f32,\n) -> f32 { *t }\n",
        "varying parameter cannot be a reference",
        3,
    ),
    (
        "varying_pointer",
        "#[batchify::batch(width = 4)]\nfn f(\n    t: *mut f32,\n) -> f32 { 0.0 }\n",
        "varying parameter cannot be a pointer",
        3,
    ),
    (
        "uniform_mut",
        "#[batchify::batch(width = 4, uniform(t))]\nfn f(\n    t: &mut f32,\n) -> f32 { *t }\n",
        "`&mut` parameters",
        3,
    ),
    (
        "uniform_vec",
        "#[batchify::batch(width = 4, uniform(t))]\nfn f(\n    t: &Vec<f32>,\n) -> f32 { t[0] }\n",
        "unsupported uniform parameter type",
        3,
    ),
    (
        "mask_clash",
        "#[batchify::batch(width = 4, masked)]\nfn f(\n    mask: u8,\n) -> u8 { mask }\n",
        "adds a parameter `mask`",
        3,
    ),
    (
        "uniform_typo_on_slice",
        "#[batchify::batch(width = 4, uniform(tabel))]\nfn f(table: &[f32], i: usize) -> f32 { table[i] }\n",
        "`uniform(tabel)`: the function has no parameter `tabel`",
        1,
    ),
    (
        "type_alias",
        "type Real = f64;\n#[batchify::batch(width = 4)]\nfn f(\n    x: Real,\n) -> f64 { x }\n",
        "unsupported varying parameter type `Real`; batchify supports f32, f64, i8..i64, u8..u64, isize, usize and bool (a type alias of one of them cannot be used",
        4,
    ),
    (
        "two_attributes",
        "#[batchify::batch(width = 4)]\n#[batchify::batch(width = 8)]\nfn f(x: f32) -> f32 { x }\n",
        "a second `#[batch]` on one function",
        2,
    ),
];

#[test]
fn errors_have_messages_and_spans() {
    let dylib = macro_dylib();
    let dir = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    for (case, source, message, line) in CASES {
        let file = dir.path().join(format!("{case}.rs"));
        std::fs::write(&file, source).unwrap();
        let out = Command::new("rustc")
            .args(["--edition=2021", "--crate-type=lib", "--emit=metadata", "--error-format=short", "--out-dir"])
            .arg(dir.path())
            .arg(format!("--extern=batchify={}", dylib.display()))
            .arg(&file)
            .output()
            .expect("rustc runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        let errors: Vec<&str> = stderr.lines().filter(|l| l.contains("error") && !l.contains("aborting")).collect();
        let at = format!("{case}.rs:{line}:");
        let ok = !out.status.success() && errors.len() == 1 && errors[0].contains(message) && errors[0].contains(&at);
        if !ok {
            failures.push(format!("{case}: want `{message}` at {at}, got:\n{stderr}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
