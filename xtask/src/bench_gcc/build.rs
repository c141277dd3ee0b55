//! Compiling one kernel four ways (scalar calls, GCC's clone, batchify's
//! clone per configuration, clang's inlined loop) into objects for the
//! driver, and finding the AVX2 variants they define.

use super::driver::gen_inlined;
use super::kernel::Kernel;
use super::{BATCHIFY_CONFIGS, CLANG_BC_FLAGS, CLANG_INLINED_FLAGS, CLANG_SCALAR_FLAGS, GCC_FLAGS};
use crate::util;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The identifiers in `text` that start with `_ZGVd` and end in `_SUFFIX`.
fn avx2_variants(text: &str, suffix: &str) -> Vec<String> {
    let mut found = Vec::new();
    let is_id = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut rest = text;
    while let Some(at) = rest.find("_ZGVd") {
        let tail = &rest[at..];
        let end = tail.find(|c: char| !is_id(c)).unwrap_or(tail.len());
        let id = &tail[..end];
        if id.ends_with(&format!("_{suffix}")) && !found.iter().any(|f| f == id) {
            found.push(id.to_string());
        }
        rest = &tail[end..];
    }
    found
}

/// The AVX2 variant to call: masked for kernels with a mask, else unmasked.
fn pick_variant(names: &[String], masked: bool) -> Option<String> {
    let want = if masked { "_ZGVdM" } else { "_ZGVdN" };
    names.iter().find(|n| n.starts_with(want)).cloned()
}

/// The lane count in a variant name (`_ZGVdN8vv_f` -> 8).
pub(super) fn lanes(variant: &str) -> usize {
    variant[6..].chars().take_while(char::is_ascii_digit).collect::<String>().parse().unwrap_or(0)
}

/// The programs a run uses.
pub(super) struct Tools {
    pub(super) clang: PathBuf,
    pub(super) gcc: PathBuf,
    pub(super) llvm_dis: PathBuf,
    pub(super) batchify: PathBuf,
}

/// What was built for one kernel.
#[derive(Debug)]
pub(super) struct Built {
    pub(super) objects: Vec<PathBuf>,
    /// Per batchify config id: the variant name, or why there is none.
    pub(super) bf: Vec<(&'static str, Result<String, String>)>,
    /// GCC's AVX2 variant, or why there is none.
    pub(super) gcc: Result<String, String>,
    /// Every AVX2 variant GCC emitted.
    pub(super) gcc_all: Vec<String>,
    /// batchify's `--report` lines and warnings (default configuration).
    pub(super) report: Vec<String>,
    /// Whether a configuration with extra flags was built (link libmvec).
    pub(super) extra_flags_built: bool,
}

pub(super) fn c_size(ty: &str) -> usize {
    match ty.trim() {
        "double" | "long" | "long long" | "unsigned long" | "unsigned long long" | "int64_t" | "uint64_t" => 8,
        _ => 4,
    }
}

fn build_kernel(k: &Kernel, tools: &Tools, dir: &Path) -> Result<Built, String> {
    let src = &k.path;
    let name = &k.name;
    let obj = |tag: &str| dir.join(format!("{name}.{tag}.o"));
    let mut objects = Vec::new();

    // (c) the scalar function, called through a real call from the driver.
    let sc = obj("sc");
    util::output(
        Command::new(&tools.clang)
            .args(CLANG_SCALAR_FLAGS)
            .arg(format!("-D{name}=sc_{name}"))
            .arg("-c")
            .arg(src)
            .arg("-o")
            .arg(&sc),
        true,
    )?;
    objects.push(sc);

    // (a) GCC 12 with its own clones (and its own scalar function gcc_NAME).
    let gcc_o = obj("gcc");
    util::output(
        Command::new(&tools.gcc)
            .args(GCC_FLAGS)
            .arg(format!("-D{name}=gcc_{name}"))
            .arg("-c")
            .arg(src)
            .arg("-o")
            .arg(&gcc_o),
        true,
    )?;
    let nm = util::output(Command::new("nm").arg(&gcc_o), true)?;
    let gcc_all = avx2_variants(&String::from_utf8_lossy(&nm.stdout), &format!("gcc_{name}"));
    let gcc = pick_variant(&gcc_all, k.mask.is_some()).ok_or_else(|| {
        format!(
            "GCC emitted no AVX2 {} variant (has: {})",
            if k.mask.is_some() { "masked" } else { "unmasked" },
            gcc_all.join(" ")
        )
    });
    objects.push(gcc_o);

    // (b) clang to bitcode, batchify, clang to an object; once per configuration.
    let mut bf = Vec::new();
    let mut report = Vec::new();
    let mut extra_flags_built = false;
    for cfg in BATCHIFY_CONFIGS {
        if cfg.veclib_only && !k.veclib {
            continue;
        }
        let prefix = format!("{}_{name}", cfg.id);
        let bc = dir.join(format!("{name}.{}.bc", cfg.id));
        util::output(
            Command::new(&tools.clang)
                .args(CLANG_BC_FLAGS)
                .arg(format!("-D{name}={prefix}"))
                .args(["-c", "-emit-llvm"])
                .arg(src)
                .arg("-o")
                .arg(&bc),
            true,
        )?;
        let dis = util::output(Command::new(&tools.llvm_dis).arg(&bc).arg("-o").arg("-"), true)?;
        let declared = avx2_variants(&String::from_utf8_lossy(&dis.stdout), &prefix);
        let Some(variant) = pick_variant(&declared, k.mask.is_some()) else {
            bf.push((cfg.id, Err(format!("clang declared no AVX2 variant (has: {})", declared.join(" ")))));
            continue;
        };
        let out_bc = dir.join(format!("{name}.{}.batched.bc", cfg.id));
        let mut cmd = Command::new(&tools.batchify);
        cmd.arg(&bc).arg("-o").arg(&out_bc).args(["--variant", &variant, "--report"]).args(cfg.flags);
        let line = util::show(&cmd);
        let res = cmd.output().map_err(|e| format!("cannot run `{line}`: {e}"))?;
        let stderr = String::from_utf8_lossy(&res.stderr).to_string();
        if !res.status.success() {
            let rejects_flag = cfg.flags.iter().any(|f| f.starts_with("--") && stderr.contains(f));
            if rejects_flag {
                let why = stderr.lines().find(|l| !l.trim().is_empty()).unwrap_or("").trim().to_string();
                bf.push((cfg.id, Err(format!("n/a: batchify rejects `{}`: {why}", cfg.flags.join(" ")))));
                continue;
            }
            return Err(format!("`{line}` failed:\n{stderr}"));
        }
        if cfg.flags.is_empty() {
            report = stderr.lines().map(|l| l.trim_start_matches("batchify: ").to_string()).collect();
        } else {
            extra_flags_built = true;
        }
        let o = obj(cfg.id);
        util::output(
            Command::new(&tools.clang).args(CLANG_SCALAR_FLAGS).arg("-c").arg(&out_bc).arg("-o").arg(&o),
            true,
        )?;
        objects.push(o);
        bf.push((cfg.id, Ok(variant)));
    }

    // (d) clang -O3 loop with the kernel inlined in the same translation unit.
    let inl_c = dir.join(format!("{name}.inl.c"));
    std::fs::write(&inl_c, gen_inlined(k)).map_err(|e| format!("cannot write {}: {e}", inl_c.display()))?;
    let inl = obj("in");
    util::output(
        Command::new(&tools.clang)
            .args(CLANG_INLINED_FLAGS)
            .arg(format!("-D{name}=in_{name}"))
            .arg("-c")
            .arg(&inl_c)
            .arg("-o")
            .arg(&inl),
        true,
    )?;
    objects.push(inl);
    Ok(Built { objects, bf, gcc, gcc_all, report, extra_flags_built })
}

/// Builds every kernel, on two threads.
pub(super) fn build_all(all: &[Kernel], tools: &Tools, dir: &Path) -> Result<Vec<(Kernel, Built)>, String> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results: std::sync::Mutex<Vec<Option<Result<Built, String>>>> =
        std::sync::Mutex::new((0..all.len()).map(|_| None).collect());
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                if i >= all.len() {
                    break;
                }
                let r = build_kernel(&all[i], tools, dir);
                results.lock().expect("no panics while held")[i] = Some(r);
            });
        }
    });
    let results = results.into_inner().map_err(|_| "a build thread panicked".to_string())?;
    all.iter()
        .zip(results)
        .map(|(k, r)| match r {
            Some(Ok(b)) => Ok((k.clone(), b)),
            Some(Err(e)) => Err(format!("{}: {e}", k.name)),
            None => Err(format!("{}: not built", k.name)),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variant_names_are_found() {
        let nm = "0000 T _ZGVdN8vv_gcc_mandel\n0010 T _ZGVbN4vv_gcc_mandel\n0020 T _ZGVdM8vv_gcc_mandel2\n";
        assert_eq!(avx2_variants(nm, "gcc_mandel"), vec!["_ZGVdN8vv_gcc_mandel".to_string()]);
        assert_eq!(lanes("_ZGVdN4v_bf_bisect"), 4);
    }
}
