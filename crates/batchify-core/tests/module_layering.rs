//! The core's modules import each other without circles, every stage
//! imports only earlier stages ([`STAGES`]), only the module-level drivers
//! name the crate root's items, and only the IR layer (`llvm/`) names `llvm_sys`
//! (issue 7), in the core and in the whole workspace: every other crate
//! (test kit, CLI, xtask, benches, the root package) reaches LLVM through
//! the IR layer's safe API (or inkwell), and only the core depends on
//! `llvm-sys`. Reads the sources: an import is a `crate::a::b` or
//! `super::x` path outside comments.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// Module path (`emit::widen`) of a source file.
fn module_of(root: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(root).unwrap().with_extension("");
    let mut parts: Vec<String> = rel.iter().map(|s| s.to_string_lossy().into_owned()).collect();
    if parts.last().is_some_and(|l| l == "mod") {
        parts.pop();
    }
    parts.join("::")
}

/// Paths after `prefix` in `code`, as up to two `::`-separated identifiers.
fn paths_after(code: &str, prefix: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for (at, _) in code.match_indices(prefix) {
        let before = code[..at].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let rest = &code[at + prefix.len()..];
        let path: Vec<String> = rest
            .split("::")
            .take(2)
            .map(|seg| seg.chars().take_while(|c| c.is_ascii_lowercase() || *c == '_' || c.is_ascii_digit()).collect())
            .take_while(|s: &String| !s.is_empty())
            .collect();
        if !path.is_empty() {
            out.push(path);
        }
    }
    out
}

fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&root, &mut files);
    let modules: BTreeSet<String> = files.iter().map(|f| module_of(&root, f)).collect();
    let resolve = |path: &[String]| -> Option<String> {
        (1..=path.len()).rev().map(|k| path[..k].join("::")).find(|m| modules.contains(m))
    };
    let mut g = BTreeMap::new();
    for f in &files {
        let m = module_of(&root, f);
        let code: String = std::fs::read_to_string(f)
            .unwrap()
            .lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .collect::<Vec<_>>()
            .join("\n");
        let parent: Vec<String> = m.split("::").map(String::from).collect::<Vec<_>>();
        let parent = &parent[..parent.len().saturating_sub(1)];
        let mut deps = BTreeSet::new();
        for p in paths_after(&code, "crate::") {
            deps.extend(resolve(&p));
        }
        for p in paths_after(&code, "super::") {
            let full: Vec<String> = parent.iter().cloned().chain(p).collect();
            deps.extend(resolve(&full));
        }
        deps.remove(&m);
        g.insert(m, deps);
    }
    g
}

#[test]
fn no_import_circles() {
    let g = graph();
    assert!(g.len() > 20, "found only {} modules", g.len());
    // Depth-first search for a back edge.
    fn visit(
        m: &str,
        g: &BTreeMap<String, BTreeSet<String>>,
        stack: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = stack.iter().position(|s| s == m) {
            let mut cycle = stack[at..].to_vec();
            cycle.push(m.to_string());
            return Some(cycle);
        }
        if done.contains(m) {
            return None;
        }
        stack.push(m.to_string());
        for d in g.get(m).into_iter().flatten() {
            if let Some(c) = visit(d, g, stack, done) {
                return Some(c);
            }
        }
        stack.pop();
        done.insert(m.to_string());
        None
    }
    let mut done = BTreeSet::new();
    for m in g.keys() {
        if let Some(cycle) = visit(m, &g, &mut Vec::new(), &mut done) {
            panic!("import circle: {}", cycle.join(" -> "));
        }
    }
}

/// The core's top-level modules in pipeline order: a module may import
/// only modules of an earlier rank (equal ranks do not import each other).
/// The crate root (`lib.rs`, the module driver) may import anything.
const STAGES: &[(&str, u32)] = &[
    ("llvm", 0),
    ("error", 0),
    ("vfabi", 1),
    ("spec", 2),
    ("options", 2),
    ("abi", 3),
    ("select", 4),
    ("shell", 4),
    ("fallback", 4),
    ("scalable", 5),
    ("vector_widths", 5),
    ("analysis", 6),
    ("prepare", 7),
    ("legality", 8),
    ("callee_clones", 9),
    ("plan", 10),
    ("cost", 11),
    ("emit", 12),
    ("finish", 13),
    // The module-level steps that run the pipeline (and call the root's
    // driver functions).
    ("array_form", 14),
    ("callers", 14),
    ("enzyme_batch", 14),
    // Vector math intrinsics to library calls, after Enzyme.
    ("lower_math", 14),
    // Maps call the array form's element loads and stores.
    ("map_entry", 15),
    // A map's refill worker is built from the map's request and signature.
    ("refill", 16),
    // The module driver, which runs all of them.
    ("driver", 17),
];

/// Modules that may name items of the crate root (`crate::batchify_module`).
const DRIVERS: &[&str] = &["array_form", "callers", "enzyme_batch", "driver"];

fn rank(module: &str) -> Option<u32> {
    let head = module.split("::").next().unwrap_or_default();
    STAGES.iter().find(|(m, _)| *m == head).map(|(_, r)| *r)
}

#[test]
fn every_module_has_a_stage() {
    let unranked: Vec<String> = graph().into_keys().filter(|m| m != "lib" && rank(m).is_none()).collect();
    assert!(unranked.is_empty(), "modules missing from STAGES: {unranked:?}");
}

#[test]
fn stages_import_only_earlier_stages() {
    let g = graph();
    let mut wrong = Vec::new();
    for (m, deps) in g.iter().filter(|(m, _)| !m.is_empty()) {
        let r = rank(m).unwrap_or(u32::MAX);
        for d in deps {
            let (head, dhead) = (m.split("::").next(), d.split("::").next());
            if head == dhead || d.is_empty() {
                continue;
            }
            let rd = rank(d).unwrap_or(u32::MAX);
            if rd >= r {
                wrong.push(format!("`{m}` imports the stage `{d}`, which does not come before it"));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn only_the_drivers_import_the_crate_root() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&root, &mut files);
    let tops: BTreeSet<String> =
        files.iter().map(|f| module_of(&root, f).split("::").next().unwrap_or_default().to_string()).collect();
    let mut wrong = Vec::new();
    for f in &files {
        let m = module_of(&root, f);
        let head = m.split("::").next().unwrap_or_default().to_string();
        if head.is_empty() || DRIVERS.contains(&head.as_str()) {
            continue;
        }
        let code = std::fs::read_to_string(f).unwrap();
        for line in code.lines().filter(|l| !l.trim_start().starts_with("//")) {
            for (at, _) in line.match_indices("crate::") {
                if line[..at].chars().next_back().is_some_and(|c| c.is_alphanumeric() || c == '_') {
                    continue;
                }
                let ident: String = line[at + 7..].chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                if !ident.is_empty() && !tops.contains(&ident) {
                    wrong.push(format!("`{m}` names the crate root's `{ident}`"));
                }
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The crate's name in Rust paths.
const LLVM_SYS: &str = "llvm_sys";

/// Whether a source names `llvm_sys` outside comments.
fn names_llvm_sys(file: &Path) -> bool {
    std::fs::read_to_string(file).unwrap().lines().any(|l| !l.trim_start().starts_with("//") && l.contains(LLVM_SYS))
}

/// Whether a core module belongs to the IR layer (`llvm/`).
fn is_ir_layer(module: &str) -> bool {
    module == "llvm" || module.starts_with("llvm::")
}

#[test]
fn only_the_ir_layer_names_llvm_sys() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&root, &mut files);
    assert!(files.iter().any(|f| module_of(&root, f) == "llvm" && names_llvm_sys(f)), "no IR layer found");
    let offenders: Vec<String> = files
        .iter()
        .filter(|f| !is_ir_layer(&module_of(&root, f)))
        .filter(|f| names_llvm_sys(f))
        .map(|f| module_of(&root, f))
        .collect();
    assert!(offenders.is_empty(), "modules naming llvm_sys outside the IR layer: {offenders:?}");
}

/// Every `.rs` file of the workspace (build outputs and hidden folders
/// left out).
fn workspace_sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap_or_default().to_string_lossy().into_owned();
        if name.starts_with('.') || name == "target" {
            continue;
        }
        if p.is_dir() {
            workspace_sources(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

#[test]
fn nothing_outside_the_ir_layer_names_llvm_sys() {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap();
    let ir_layer = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/llvm").canonicalize().unwrap();
    // This file names the crate in its messages.
    let this = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/module_layering.rs").canonicalize().unwrap();
    let mut files = Vec::new();
    workspace_sources(&workspace, &mut files);
    for part in ["crates/batchify-testkit/src", "crates/batchify-cli/src", "xtask/src", "src"] {
        assert!(files.iter().any(|f| f.starts_with(workspace.join(part))), "no sources found in {part}");
    }
    let offenders: Vec<String> = files
        .iter()
        .filter(|f| !f.starts_with(&ir_layer) && **f != this && names_llvm_sys(f))
        .map(|f| f.strip_prefix(&workspace).unwrap().display().to_string())
        .collect();
    assert!(offenders.is_empty(), "files naming llvm_sys outside the core's IR layer: {offenders:?}");
}

#[test]
fn only_the_core_depends_on_llvm_sys() {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let crates = std::fs::read_dir(workspace.join("crates")).unwrap().map(|e| e.unwrap().path());
    let manifests: Vec<PathBuf> = crates
        .chain(["xtask", "benches"].map(|d| workspace.join(d)))
        .filter(|d| !d.ends_with("batchify-core"))
        .map(|d| d.join("Cargo.toml"))
        .filter(|m| m.exists())
        .collect();
    assert!(manifests.len() >= 4, "found only {manifests:?}"); // cli, testkit, xtask, benches
    for m in manifests {
        let deps = std::fs::read_to_string(&m).unwrap();
        assert!(
            !deps.lines().any(|l| l.trim_start().starts_with("llvm-sys")),
            "{} depends on llvm-sys; only batchify-core may",
            m.display()
        );
    }
}

/// The core modules a front end's run may name besides the crate root's
/// re-exports (`Options`, `CloneSpec`, ...): the driver, and the IR layer
/// and the variant names it parses options into.
const FRONT_END_MAY_NAME: &[&str] = &["driver", "llvm", "vfabi"];

#[test]
fn the_front_ends_call_only_the_driver() {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    for file in ["crates/batchify-cli/src/main.rs", "passes/src/run.rs"] {
        let code = std::fs::read_to_string(workspace.join(file)).unwrap();
        let named: BTreeSet<String> = code
            .lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .flat_map(|l| paths_after(l, "batchify_core::"))
            .filter_map(|p| p.first().cloned())
            .collect();
        assert!(named.contains("driver"), "{file} does not call the driver");
        let other: Vec<&String> = named.iter().filter(|m| !FRONT_END_MAY_NAME.contains(&m.as_str())).collect();
        assert!(other.is_empty(), "{file} names core modules other than the driver: {other:?}");
    }
}
