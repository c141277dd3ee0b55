//! The kernel files of `benches/gcc/kernels/` and their `// bench:` lines,
//! which tell the driver generator a kernel's signature and inputs:
//!
//! * `// bench: ret TYPE` (the return type; `void` allowed);
//! * one line per parameter, in order:
//!   `v TYPE NAME = EXPR(i)` varying, one element per lane;
//!   `u TYPE NAME = CONST` uniform value;
//!   `t TYPE* NAME LEN = EXPR(j)` uniform pointer to a table of `LEN` elements;
//!   `l TYPE* NAME STRIDE = EXPR(j)` linear pointer, `STRIDE` elements per lane;
//!   `i TYPE NAME` linear integer, the element index;
//! * `// bench: mask EXPR(i)` calls the masked (`inbranch`) variant for the
//!   elements where `EXPR` holds (parameters are arrays: `x[i] > 0.0f`);
//! * `// bench: veclib` also measures batchify with [`BatchifyConfig`]s
//!   that take extra flags (`--veclib libmvec`);
//! * `// bench: ulp K`, the bound for those configurations' results.

use crate::util;
use std::path::{Path, PathBuf};

#[derive(Clone, Debug, PartialEq)]
pub(super) enum Kind {
    Varying,
    Uniform,
    Table,
    Linear,
    Index,
}

#[derive(Clone, Debug)]
pub(super) struct Param {
    pub(super) kind: Kind,
    /// The C type as written (`const float*`, `int`).
    pub(super) ty: String,
    pub(super) name: String,
    /// Table length or linear stride (a C expression).
    pub(super) extent: String,
    /// The initialiser expression.
    pub(super) init: String,
}

impl Param {
    /// The element type of a pointer parameter, without `const` and `*`.
    pub(super) fn elem(&self) -> String {
        self.ty.replace("const", "").replace('*', "").split_whitespace().collect::<Vec<_>>().join(" ")
    }
}

#[derive(Clone, Debug)]
pub(super) struct Kernel {
    pub(super) name: String,
    pub(super) path: PathBuf,
    /// The first comment, flattened to one line.
    pub(super) about: String,
    pub(super) ret: String,
    pub(super) params: Vec<Param>,
    pub(super) mask: Option<String>,
    pub(super) veclib: bool,
    pub(super) ulp: u32,
}

impl Kernel {
    /// The characteristic type: the return type, else the first varying parameter's.
    pub(super) fn char_type(&self) -> String {
        if self.ret != "void" {
            return self.ret.clone();
        }
        self.params.iter().find(|p| p.kind == Kind::Varying).map(|p| p.ty.clone()).unwrap_or_else(|| "int".into())
    }
}

fn parse_kernel(path: &Path) -> Result<Kernel, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let name = path.file_stem().and_then(|s| s.to_str()).ok_or("bad kernel file name")?.to_string();
    let bad = |line: &str, why: &str| format!("{}: `{line}`: {why}", util::rel(path).display(),);
    let about = text
        .split("*/")
        .next()
        .and_then(|c| c.split("/*").nth(1))
        .map(|c| c.split_whitespace().collect::<Vec<_>>().join(" "))
        .unwrap_or_default();
    let mut k = Kernel {
        name,
        path: path.to_path_buf(),
        about,
        ret: String::new(),
        params: Vec::new(),
        mask: None,
        veclib: false,
        ulp: 0,
    };
    for line in text.lines() {
        let Some(spec) = line.trim().strip_prefix("// bench:") else { continue };
        let spec = spec.trim();
        let (head, rest) = spec.split_once(' ').unwrap_or((spec, ""));
        let rest = rest.trim();
        match head {
            "ret" => k.ret = rest.to_string(),
            "mask" => k.mask = Some(rest.to_string()),
            "veclib" => k.veclib = true,
            "ulp" => k.ulp = rest.parse().map_err(|_| bad(line, "ulp needs a number"))?,
            "v" | "u" | "t" | "l" | "i" => {
                let (lhs, init) = match rest.split_once('=') {
                    Some((l, r)) => (l.trim(), r.trim().to_string()),
                    None => (rest, String::new()),
                };
                let kind = match head {
                    "v" => Kind::Varying,
                    "u" => Kind::Uniform,
                    "t" => Kind::Table,
                    "l" => Kind::Linear,
                    _ => Kind::Index,
                };
                let mut words: Vec<&str> = lhs.split_whitespace().collect();
                let extent = if matches!(kind, Kind::Table | Kind::Linear) {
                    words.pop().ok_or_else(|| bad(line, "missing length/stride"))?.to_string()
                } else {
                    String::new()
                };
                let pname = words.pop().ok_or_else(|| bad(line, "missing name"))?.to_string();
                if words.is_empty() {
                    return Err(bad(line, "missing type"));
                }
                if kind != Kind::Index && ["n", "i", "j"].contains(&pname.as_str()) {
                    return Err(bad(line, "this parameter name is taken by the generated driver"));
                }
                if init.is_empty() && kind != Kind::Index {
                    return Err(bad(line, "missing `= initialiser`"));
                }
                k.params.push(Param { kind, ty: words.join(" "), name: pname, extent, init });
            }
            _ => return Err(bad(line, "unknown bench directive")),
        }
    }
    if k.ret.is_empty() {
        return Err(format!("{}: no `// bench: ret TYPE` line", util::rel(path).display()));
    }
    Ok(k)
}

/// All kernels in `benches/gcc/kernels`, sorted by name.
pub(super) fn kernels() -> Result<Vec<Kernel>, String> {
    let dir = util::root().join("benches").join("gcc").join("kernels");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map_err(|e| format!("cannot read {}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "c"))
        .collect();
    paths.sort();
    paths.iter().map(|p| parse_kernel(p)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kernel_parses() {
        let ks = kernels().unwrap();
        assert!(ks.len() >= 24, "only {} kernels", ks.len());
        for k in &ks {
            assert!(!k.about.is_empty(), "{}: no comment saying what it exercises", k.name);
            let src = std::fs::read_to_string(&k.path).unwrap();
            assert!(src.contains("#pragma omp declare simd"), "{}: no declare simd", k.name);
        }
    }
}
