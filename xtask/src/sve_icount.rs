//! `cargo xtask a64-icount --sve`: instructions executed per element by
//! batchify's SVE variants of `tests/sve/kernels.c` against the scalar
//! function, both called by `tests/sve/caller.c`, counted under
//! `qemu-aarch64` at 128, 256, 512 bits (the vectorized bodies) and 1024 bits
//! (a length without a body: the per-lane loop). GCC 12 builds no SVE
//! clones, so the scalar calls are the comparison; time under emulation
//! says nothing about a real core.
//!
//! The caller calls every kernel's scalar function once per element (its
//! reference) and the variant once per vector of elements; so per kernel,
//! the elements are the scalar function's entries in the 128-bit run, and
//! the clone's instructions are those inside the variant, its bodies
//! (`__batchify.body.<variant>.vscale<v>`) and the callee clones named
//! after the kernel (`__batchify._ZGV..._<kernel>`), plus at a length
//! without a body the scalar function's instructions beyond the
//! reference's (the per-lane loop calls it).

use crate::a64_icount::{count_log_by_range, defined_functions};
use crate::setup;
use crate::util::{self, header};
use std::collections::BTreeMap;
use std::fs;
use std::path::Path;
use std::process::Command;

const CLANG_FLAGS: &[&str] =
    &["--target=aarch64-linux-gnu", "-march=armv8-a+sve", "-O2", "-fopenmp-simd", "-ffp-contract=off"];

/// What one run executed: per function of the callee object, its
/// instructions and entries.
type Counts = BTreeMap<String, (u64, u64)>;

/// Vector lengths measured, in units of 128 bits (`sve-max-vq`).
const LENGTHS: [u32; 4] = [1, 2, 4, 8];

/// Runs the command (see the module comment).
pub fn run(no_build: bool) -> Result<(), String> {
    let env = setup::ensure(true)?;
    if !no_build {
        util::run(&mut env.cargo(&["build", "--release", "-p", "batchify-cli"]))?;
    }
    let batchify = util::target_dir().join("release/batchify");
    let root = util::root();
    let out = util::target_dir().join("a64-icount/sve");
    fs::create_dir_all(&out).map_err(|e| format!("{}: {e}", out.display()))?;
    header("building tests/sve with batchify's SVE variants");
    let bc = out.join("kernels.bc");
    let batched = out.join("kernels.batchify.bc");
    let kernels = out.join("kernels.o");
    let caller = out.join("caller.o");
    let bin = out.join("sve-icount");
    util::run(
        Command::new("clang-22")
            .args(CLANG_FLAGS)
            .args(["-emit-llvm", "-c"])
            .arg(root.join("tests/sve/kernels.c"))
            .arg("-o")
            .arg(&bc),
    )?;
    util::run(Command::new(&batchify).arg(&bc).arg("-o").arg(&batched))?;
    util::run(
        Command::new("clang-22")
            .args(["--target=aarch64-linux-gnu", "-O2", "-c"])
            .arg(&batched)
            .arg("-o")
            .arg(&kernels),
    )?;
    util::run(
        Command::new("clang-22")
            .args(CLANG_FLAGS)
            .arg("-c")
            .arg(root.join("tests/sve/caller.c"))
            .arg("-o")
            .arg(&caller),
    )?;
    util::run(
        Command::new("aarch64-linux-gnu-gcc").arg("-static").arg("-o").arg(&bin).arg(&caller).arg(&kernels).arg("-lm"),
    )?;

    let own: Vec<String> = defined_functions(&kernels)?.into_iter().map(|(_, _, n)| n).collect();
    let functions: Vec<(u64, u64, String)> =
        defined_functions(&bin)?.into_iter().filter(|(_, _, n)| own.contains(n)).collect();
    let ranges: Vec<(u64, u64)> = functions.iter().map(|&(lo, hi, _)| (lo, hi)).collect();
    header("counting instructions under qemu-aarch64");
    let mut runs: Vec<(u32, Counts)> = Vec::new();
    for vq in LENGTHS {
        let log = out.join(format!("vq{vq}.qemu.log"));
        let cpu = format!("max,sve-max-vq={vq},sve-default-vector-length={}", 16 * vq);
        let run = Command::new("qemu-aarch64")
            .args(["-cpu", &cpu, "-d", "in_asm,exec,nochain", "-D"])
            .arg(&log)
            .arg(&bin)
            .output()
            .map_err(|e| format!("qemu-aarch64: {e}"))?;
        let said = String::from_utf8_lossy(&run.stdout).trim().to_string();
        if !run.status.success() || said != format!("ok {}-bit vectors", 128 * vq) {
            return Err(format!("{} at {} bits: {said}", bin.display(), 128 * vq));
        }
        let counts = count_log_by_range(&log, &ranges)?;
        let _ = fs::remove_file(&log);
        runs.push((vq, functions.iter().map(|(_, _, n)| n.clone()).zip(counts).collect()));
    }
    let calls = static_calls(&bin, &own)?;
    let table = render(&runs, &calls);
    println!("{table}");
    let path = out.join("results.md");
    fs::write(&path, &table).map_err(|e| format!("{}: {e}", path.display()))?;
    println!("written to {}", util::rel(&path).display());
    Ok(())
}

/// The kernel a function of the callee object belongs to: a variant's,
/// its bodies' and its callee clones' scalar function, or the function
/// itself.
fn kernel_of(name: &str) -> String {
    let name = name.strip_prefix("__batchify.body.").or_else(|| name.strip_prefix("__batchify.")).unwrap_or(name);
    let name = name.split('.').next().unwrap_or(name);
    let Some(rest) = name.strip_prefix("_ZGV") else { return name.to_string() };
    let rest = rest.strip_prefix("_LLVM_").unwrap_or_else(|| rest.get(1..).unwrap_or_default());
    rest.split_once('_').map_or(name, |(_, scalar)| scalar).to_string()
}

/// The functions of `own` that each function of `own` in `bin` calls
/// directly (`bl`, and `b` to a function's first instruction: a tail
/// call), from `objdump -d`.
fn static_calls(bin: &Path, own: &[String]) -> Result<BTreeMap<String, Vec<String>>, String> {
    let out = Command::new("aarch64-linux-gnu-objdump").arg("-d").arg(bin).output();
    let out = out.map_err(|e| format!("aarch64-linux-gnu-objdump: {e}"))?;
    let mut calls: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut current: Option<String> = None;
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        if let Some(name) = line.strip_suffix(">:").and_then(|l| l.split_once(" <")).map(|(_, n)| n.to_string()) {
            current = own.contains(&name).then_some(name);
        } else if let (Some(f), Some(target)) =
            (&current, line.split("\tbl\t").nth(1).or_else(|| line.split("\tb\t").nth(1)))
        {
            // `bl` calls, and `b` to another function's start: tail calls.
            let callee = target.split('<').nth(1).and_then(|t| t.strip_suffix('>')).unwrap_or_default();
            if callee != f && own.iter().any(|o| o == callee) {
                calls.entry(f.clone()).or_default().push(callee.to_string());
            }
        }
    }
    Ok(calls)
}

/// The scalar functions kernel `k` runs: itself and the scalar functions
/// it calls, transitively.
fn scalar_closure(k: &str, calls: &BTreeMap<String, Vec<String>>) -> Vec<String> {
    let mut set = vec![k.to_string()];
    let mut at = 0;
    while at < set.len() {
        for c in calls.get(&set[at]).into_iter().flatten() {
            if !c.starts_with("_ZGV") && !c.starts_with("__batchify") && !set.contains(c) {
                set.push(c.clone());
            }
        }
        at += 1;
    }
    set
}

/// The markdown table: per kernel with a variant, the elements (the scalar
/// function's entries in the first run), the instructions per element of
/// the scalar calls (the function and the scalar functions it calls) and
/// of the clone at each length (the variant, its bodies, the callee clones
/// of those scalar functions, and what the scalar functions ran beyond the
/// first run: the per-lane loop's calls).
fn render(runs: &[(u32, Counts)], calls: &BTreeMap<String, Vec<String>>) -> String {
    let (_, base) = &runs[0];
    let mut s = String::from("| kernel | elements | scalar calls: instructions / element |");
    for (vq, _) in runs {
        let form = if *vq > 4 { " (per-lane loop)" } else { "" };
        s.push_str(&format!(" SVE clone, {}-bit{form} |", 128 * vq));
    }
    s.push_str("\n|---|---:|---:|");
    s.push_str(&"---:|".repeat(runs.len()));
    s.push('\n');
    let mut kernels: Vec<String> = base.keys().filter(|n| n.starts_with("_ZGV")).map(|n| kernel_of(n)).collect();
    kernels.sort();
    kernels.dedup();
    for k in &kernels {
        let Some(&(_, elements)) = base.get(k).filter(|c| c.1 > 0) else { continue };
        let scalars = scalar_closure(k, calls);
        let scalar: u64 = scalars.iter().filter_map(|g| base.get(g)).map(|c| c.0).sum();
        let per = |x: u64| x as f64 / elements as f64;
        s.push_str(&format!("| {k} | {elements} | {:.1} |", per(scalar)));
        for (_, counts) in runs {
            let clone: u64 = counts
                .iter()
                .filter(|(n, _)| {
                    (n.starts_with("_ZGV") || n.starts_with("__batchify")) && scalars.contains(&kernel_of(n))
                })
                .map(|(_, c)| c.0)
                .sum();
            let now: u64 = scalars.iter().filter_map(|g| counts.get(g)).map(|c| c.0).sum();
            let all = clone + now.saturating_sub(scalar);
            s.push_str(&format!(" {:.1} ({:.2}x) |", per(all), all as f64 / scalar.max(1) as f64));
        }
        s.push('\n');
    }
    s.push_str("\n(x): the clone's instructions over the scalar calls'.\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn functions_map_to_their_kernel() {
        assert_eq!(kernel_of("_ZGVsMxvv_fblend"), "fblend");
        assert_eq!(kernel_of("__batchify.body._ZGVsMxl8u_dscale.vscale4"), "dscale");
        assert_eq!(kernel_of("__batchify._ZGV_LLVM_M16v_poly"), "poly");
        assert_eq!(kernel_of("lookup"), "lookup");
    }

    #[test]
    fn the_table_counts_bodies_and_the_per_lane_calls() {
        let at = |entries: &[(&str, u64, u64)]| entries.iter().map(|&(n, i, e)| (n.to_string(), (i, e))).collect();
        let runs = vec![
            (1, at(&[("f", 1000, 100), ("_ZGVsMxv_f", 10, 25), ("__batchify.body._ZGVsMxv_f.vscale1", 190, 25)])),
            (3, at(&[("f", 2000, 200), ("_ZGVsMxv_f", 300, 9)])),
        ];
        let calls = BTreeMap::from([("f".to_string(), vec!["g".to_string()])]);
        let table = render(&runs, &calls);
        assert!(table.contains("| f | 100 | 10.0 | 2.0 (0.20x) | 13.0 (1.30x) |"), "{table}");
        assert_eq!(scalar_closure("f", &calls), ["f", "g"]);
    }
}
