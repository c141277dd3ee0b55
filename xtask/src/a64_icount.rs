//! `cargo xtask a64-icount [--only NAME,..] [--no-build]` (`--sve`: the
//! SVE variants instead, `sve_icount.rs`): instructions
//! executed per program inside batchify's AArch64 Advanced SIMD variants
//! against GCC 12's own, both called by the same GCC-built caller, counted
//! under `qemu-aarch64` (time under emulation says nothing about a real
//! core; the count of executed instructions does say something).
//!
//! It runs the AArch64 `declare simd` suite in modes c (GCC caller,
//! batchify's callee object) and d (GCC's callee object, its clones), then
//! links each program's mode-c caller object statically twice: with
//! batchify's callee object and with GCC's. Each binary runs under
//! `qemu-aarch64 -d in_asm,exec,nochain`: `in_asm` lists every translated
//! block's instructions once, `exec` (with chaining off) logs every block
//! executed, so the instructions executed at addresses inside the callee
//! object's functions are counted exactly (the addresses come from
//! `nm -S` of the static binary). The table, also written to
//! `target/a64-icount/results.md`, lists programs whose caller calls
//! variants.

use crate::util::{self, header};
use std::collections::HashMap;
use std::fs;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::Command;

const NM: &str = "aarch64-linux-gnu-nm";

/// Runs the command (see the module comment).
pub fn run(args: &[String]) -> Result<(), String> {
    let mut suite_args: Vec<String> = ["--arch", "aarch64", "--mode", "c,d"].map(String::from).to_vec();
    if args.iter().any(|a| a == "--sve") {
        if let Some(other) = args.iter().find(|a| !matches!(a.as_str(), "--sve" | "--no-build")) {
            return Err(format!("unexpected argument `{other}` with --sve (expected --no-build)"));
        }
        return crate::sve_icount::run(args.iter().any(|a| a == "--no-build"));
    }
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--only" => {
                suite_args.push(a.clone());
                suite_args.push(it.next().ok_or("--only needs a value")?.clone());
            }
            "--no-build" => suite_args.push(a.clone()),
            other => return Err(format!("unexpected argument `{other}` (expected --only NAME,.., --no-build)")),
        }
    }
    crate::simd_suite::run(&suite_args)?;
    let suite = util::target_dir().join("simd-suite/aarch64");
    let out = util::target_dir().join("a64-icount");
    fs::create_dir_all(&out).map_err(|e| format!("{}: {e}", out.display()))?;
    header("counting instructions in the variants under qemu-aarch64");
    let mut names: Vec<String> = fs::read_dir(suite.join("c"))
        .map_err(|e| format!("{}: {e}", suite.join("c").display()))?
        .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
        .collect();
    names.sort();
    let mut rows = Vec::new();
    for name in &names {
        let (c, d) = (suite.join("c").join(name), suite.join("d").join(name));
        if !c.join("caller.o").exists() || !d.join("callee.o").exists() {
            continue;
        }
        let work = out.join(name);
        fs::create_dir_all(&work).map_err(|e| e.to_string())?;
        let gcc = count(&work, "gcc", &c.join("caller.o"), &d.join("callee.o"))?;
        let ours = count(&work, "batchify", &c.join("caller.o"), &c.join("callee.o"))?;
        if gcc.variant_calls == 0 && ours.variant_calls == 0 {
            continue;
        }
        rows.push((name.clone(), gcc, ours));
    }
    let table = render(&rows);
    println!("{table}");
    let path = out.join("results.md");
    fs::write(&path, &table).map_err(|e| format!("{}: {e}", path.display()))?;
    println!("written to {}", util::rel(&path).display());
    Ok(())
}

/// What one binary executed inside its callee object's functions.
struct Count {
    /// Instructions executed inside the callee object's functions.
    instructions: u64,
    /// Entries into the callee object's `_ZGV` functions.
    variant_calls: u64,
}

/// Links `caller` with `callee` statically into `work/<tag>`, runs it under
/// qemu with block logging and counts what ran inside the callee's
/// functions.
fn count(work: &Path, tag: &str, caller: &Path, callee: &Path) -> Result<Count, String> {
    let bin = work.join(tag);
    let link = Command::new("aarch64-linux-gnu-gcc")
        .arg("-static")
        .arg("-o")
        .arg(&bin)
        .arg(caller)
        .arg(callee)
        .arg("-lm")
        .output();
    let link = link.map_err(|e| format!("aarch64-linux-gnu-gcc: {e}"))?;
    if !link.status.success() {
        return Err(format!("linking {}: {}", bin.display(), String::from_utf8_lossy(&link.stderr)));
    }
    let log = work.join(format!("{tag}.qemu.log"));
    let run = Command::new("qemu-aarch64").args(["-d", "in_asm,exec,nochain", "-D"]).arg(&log).arg(&bin).output();
    let run = run.map_err(|e| format!("qemu-aarch64: {e}"))?;
    if !run.status.success() {
        return Err(format!("{} failed under qemu: {}", bin.display(), String::from_utf8_lossy(&run.stdout)));
    }
    let own: Vec<String> = defined_functions(callee)?.into_iter().map(|(_, _, n)| n).collect();
    let ranges: Vec<(u64, u64, bool)> = defined_functions(&bin)?
        .into_iter()
        .filter(|(_, _, n)| own.contains(n))
        .map(|(lo, hi, n)| (lo, hi, n.starts_with("_ZGV")))
        .collect();
    let counted = count_log(&log, &ranges)?;
    // The logs are large and only the counts matter.
    let _ = fs::remove_file(&log);
    Ok(counted)
}

/// `(start, end, name)` of the functions `nm -S` lists as defined text.
pub(crate) fn defined_functions(object: &Path) -> Result<Vec<(u64, u64, String)>, String> {
    let out = Command::new(NM).args(["-S", "--defined-only"]).arg(object).output().map_err(|e| format!("{NM}: {e}"))?;
    let text = String::from_utf8_lossy(&out.stdout);
    Ok(text
        .lines()
        .filter_map(|line| {
            let p: Vec<&str> = line.split_whitespace().collect();
            let [addr, size, kind, name] = p[..] else { return None };
            if !matches!(kind, "T" | "t" | "W" | "w") {
                return None;
            }
            let lo = u64::from_str_radix(addr, 16).ok()?;
            Some((lo, lo + u64::from_str_radix(size, 16).ok()?, name.to_string()))
        })
        .collect())
}

/// Sums, over the blocks the log says were executed, the instructions of
/// each block that lie in one of `ranges`; counts entries into the ranges
/// marked as variants.
fn count_log(log: &Path, ranges: &[(u64, u64, bool)]) -> Result<Count, String> {
    let bounds: Vec<(u64, u64)> = ranges.iter().map(|&(lo, hi, _)| (lo, hi)).collect();
    let per = count_log_by_range(log, &bounds)?;
    let instructions = per.iter().map(|c| c.0).sum();
    let variant_calls = per.iter().zip(ranges).filter(|(_, r)| r.2).map(|(c, _)| c.1).sum();
    Ok(Count { instructions, variant_calls })
}

/// For each `(start, end)` of `ranges`: the instructions executed inside
/// it and the number of times its first instruction began a block (its
/// entries, for a function), from a qemu `-d in_asm,exec,nochain` log.
pub(crate) fn count_log_by_range(log: &Path, ranges: &[(u64, u64)]) -> Result<Vec<(u64, u64)>, String> {
    let file = fs::File::open(log).map_err(|e| format!("{}: {e}", log.display()))?;
    // Block start -> its instructions' addresses (the last translation wins).
    let mut blocks: HashMap<u64, Vec<u64>> = HashMap::new();
    let mut executed: HashMap<u64, u64> = HashMap::new();
    let mut current: Option<u64> = None;
    for line in BufReader::new(file).lines() {
        let line = line.map_err(|e| e.to_string())?;
        if line.starts_with("IN:") {
            current = None;
        } else if let Some(addr) = line.strip_prefix("0x").and_then(|r| r.split(':').next()) {
            let Ok(a) = u64::from_str_radix(addr, 16) else { continue };
            let start = *current.get_or_insert(a);
            let insns = blocks.entry(start).or_default();
            if start == a {
                insns.clear();
            }
            insns.push(a);
        } else if let Some(rest) = line.strip_prefix("Trace ") {
            // `Trace 0: 0xHOST [flags/GUEST_PC/...]`
            let pc = rest.split('[').nth(1).and_then(|f| f.split('/').nth(1));
            if let Some(pc) = pc.and_then(|p| u64::from_str_radix(p, 16).ok()) {
                *executed.entry(pc).or_default() += 1;
            }
        }
    }
    let mut out = vec![(0, 0); ranges.len()];
    for (pc, times) in &executed {
        for (k, &(lo, hi)) in ranges.iter().enumerate() {
            let n = blocks.get(pc).map_or(0, |b| b.iter().filter(|&&a| lo <= a && a < hi).count() as u64);
            out[k].0 += n * times;
            if lo == *pc {
                out[k].1 += times;
            }
        }
    }
    Ok(out)
}

/// The markdown table of the counts, with the geometric mean of the ratios.
fn render(rows: &[(String, Count, Count)]) -> String {
    let mut s = String::from(
        "| program | variant calls | GCC 12's clones: instructions | batchify's: instructions | batchify / GCC |\n\
         |---|---:|---:|---:|---:|\n",
    );
    let mut logs = Vec::new();
    for (name, gcc, ours) in rows {
        let ratio = ours.instructions as f64 / gcc.instructions.max(1) as f64;
        if gcc.instructions > 0 && ours.instructions > 0 {
            logs.push(ratio.ln());
        }
        let calls = if gcc.variant_calls == ours.variant_calls {
            gcc.variant_calls.to_string()
        } else {
            format!("{} / {}", gcc.variant_calls, ours.variant_calls)
        };
        s.push_str(&format!("| {name} | {calls} | {} | {} | {ratio:.2} |\n", gcc.instructions, ours.instructions));
    }
    if !logs.is_empty() {
        let geo = (logs.iter().sum::<f64>() / logs.len() as f64).exp();
        let fewer = logs.iter().filter(|l| **l < 0.0).count();
        s.push_str(&format!(
            "\n{} programs; batchify's variants execute fewer instructions in {fewer}; geometric mean of \
             batchify / GCC: {geo:.2}\n",
            logs.len()
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_blocks_inside_the_ranges_only() {
        let dir = std::env::temp_dir().join(format!("a64-icount-test-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let log = dir.join("log");
        fs::write(
            &log,
            "IN: \n0x1000:  d503201f  nop\n0x1004:  d65f03c0  ret\n\nIN: \n0x2000:  d503201f  nop\n\
             Trace 0: 0x7f00 [00000001/0000000000001000/00000001/00000200] \n\
             Trace 0: 0x7f00 [00000001/0000000000001000/00000001/00000200] \n\
             Trace 0: 0x7f40 [00000001/0000000000002000/00000001/00000200] \n",
        )
        .unwrap();
        let c = count_log(&log, &[(0x1000, 0x1008, true)]).unwrap();
        assert_eq!((c.instructions, c.variant_calls), (4, 2));
        let c = count_log(&log, &[(0x1004, 0x1008, false), (0x2000, 0x2004, false)]).unwrap();
        assert_eq!((c.instructions, c.variant_calls), (3, 0));
        fs::remove_dir_all(&dir).unwrap();
    }
}
