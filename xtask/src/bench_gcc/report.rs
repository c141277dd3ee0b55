//! The results: the table of times and ratios per kernel (with notes from
//! batchify's `--report` and the checks) and the markdown file around it.

use super::build::{lanes, Built, Tools};
use super::kernel::Kernel;
use super::{tool_version, Check, Opts, BATCHIFY_CONFIGS};
use crate::util::{self, stat, Stat};
use std::fmt::Write as _;
use std::process::Command;

fn cell(s: Option<Stat>) -> String {
    match s {
        Some(s) => format!("{:.2} ({:.2}–{:.2})", s.median, s.min, s.max),
        None => "n/a".into(),
    }
}

fn ratio(a: Option<Stat>, b: Option<Stat>) -> Option<f64> {
    Some(a?.median / b?.median)
}

fn geomean(xs: &[f64]) -> Option<f64> {
    if xs.is_empty() {
        return None;
    }
    Some((xs.iter().map(|x| x.ln()).sum::<f64>() / xs.len() as f64).exp())
}

fn times_x(x: Option<f64>) -> String {
    x.map(|x| format!("{x:.2}×")).unwrap_or_else(|| "n/a".into())
}

/// The short note on how batchify built a clone, from its `--report`.
fn report_note(b: &Built) -> String {
    if let Some(w) = b.report.iter().find(|l| l.contains("per-lane loop over the scalar function")) {
        let why = w.split("scalar function:").nth(1).unwrap_or("").trim();
        return format!("**per-lane loop** ({why})");
    }
    let per_lane = b
        .report
        .iter()
        .find(|l| l.contains(" lanes, "))
        .and_then(|l| l.split(", ").find(|p| p.ends_with(" per-lane")))
        .and_then(|p| p.trim_end_matches(" per-lane").trim().parse::<u32>().ok())
        .unwrap_or(0);
    let details: Vec<&str> = b.report.iter().filter_map(|l| l.trim().strip_prefix("per-lane: ")).collect();
    if per_lane > 0 {
        format!("{per_lane} per-lane ({})", details.join(", "))
    } else {
        String::new()
    }
}

/// The note for a clone slower than scalar calls: "**slower than scalar**"
/// where every repetition of the clone took longer than every repetition
/// of both scalar versions; a note on code placement where that holds for
/// the separately compiled scalar function only (the clone and the scalar
/// function of its own object call the same copies of their callees); "as
/// fast as scalar within the spread" where the medians say slower but the
/// repetitions' ranges overlap.
fn slower_note(sc: Option<Stat>, bsc: Option<Stat>, bf: Option<Stat>) -> Option<String> {
    let (sc, bf) = (sc?, bf?);
    if bf.median <= sc.median {
        return None;
    }
    let clearly = |s: Stat| bf.min > s.max;
    Some(match (clearly(sc), bsc.is_none_or(clearly)) {
        (true, true) => "**slower than scalar**".into(),
        (true, false) => {
            "slower than the other object's scalar calls, not than its own object's (code placement)".into()
        }
        (false, _) => "as fast as scalar within the spread (the repetitions' ranges overlap)".into(),
    })
}

pub(super) fn results_table(
    built: &[(Kernel, Built)],
    times: &std::collections::BTreeMap<(String, String), Vec<f64>>,
    checks: &[Check],
    opts: &Opts,
) -> String {
    let get = |k: &str, v: &str| times.get(&(k.to_string(), v.to_string())).cloned().and_then(stat);
    let extra_title = BATCHIFY_CONFIGS.iter().find(|c| c.id == "bfv").map(|c| c.title).unwrap_or("bfv");
    let mut t = format!(
        "| kernel | lanes | scalar calls | scalar calls, batchify's object | batchify | GCC 12 | clang -O3 inlined | {extra_title} | batchify vs scalar | batchify vs scalar, same object | batchify vs GCC | GCC vs scalar | notes |\n\
         | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n"
    );
    let (mut vs_sc, mut vs_gcc, mut gcc_sc, mut in_sc, mut bfv_sc) = (vec![], vec![], vec![], vec![], vec![]);
    let mut vs_bsc = vec![];
    for (k, b) in built {
        let n = &k.name;
        let (sc, bf, gcc, inl, bfv) = (get(n, "sc"), get(n, "bf"), get(n, "gcc"), get(n, "in"), get(n, "bfv"));
        let bsc = get(n, "bsc");
        let r_bsc = ratio(bsc, bf);
        vs_bsc.extend(r_bsc);
        let lanes_n = b.bf.iter().find_map(|(_, r)| r.as_ref().ok()).map(|v| lanes(v).to_string()).unwrap_or_default();
        let r_sc = ratio(sc, bf);
        let r_gcc = ratio(gcc, bf);
        let r_gs = ratio(sc, gcc);
        vs_sc.extend(r_sc);
        vs_gcc.extend(r_gcc);
        gcc_sc.extend(r_gs);
        in_sc.extend(ratio(sc, inl));
        bfv_sc.extend(ratio(sc, bfv));
        let mut notes = vec![report_note(b)];
        notes.extend(slower_note(sc, bsc, bf));
        for c in checks.iter().filter(|c| &c.kernel == n && c.bad > 0) {
            let what = match c.version.as_str() {
                "gsc" => "GCC's scalar function differs from clang's".to_string(),
                "bsc" => "the scalar function in batchify's object differs from clang's".to_string(),
                "gcc" => "GCC's clone differs from GCC's scalar function".to_string(),
                "in" => "clang -O3 loop differs from the scalar calls".to_string(),
                v => format!("**{v} MISMATCH**"),
            };
            notes.push(format!("{what} in {}/{} elements", c.bad, opts.n));
        }
        if let Some(max) = checks.iter().find(|c| &c.kernel == n && c.version == "bfv").map(|c| c.maxd.clone()) {
            if max != "0" {
                notes.push(format!("libmvec: max {max} ulp (bound {})", k.ulp));
            }
        }
        let bfv_cell = match b.bf.iter().find(|(c, _)| *c == "bfv") {
            None => "—".to_string(),
            Some((_, Err(_))) => "n/a".to_string(),
            Some((_, Ok(_))) => cell(bfv),
        };
        let notes: Vec<String> = notes.into_iter().filter(|s| !s.is_empty()).collect();
        let _ = writeln!(
            t,
            "| {n} | {lanes_n} | {} | {} | {} | {} | {} | {bfv_cell} | {} | {} | {} | {} | {} |",
            cell(sc),
            cell(bsc),
            cell(bf),
            cell(gcc),
            cell(inl),
            times_x(r_sc),
            times_x(r_bsc),
            times_x(r_gcc),
            times_x(r_gs),
            notes.join("; ")
        );
    }
    let _ = writeln!(
        t,
        "| **geomean** ({} kernels) | | | | | | clang -O3 vs scalar: {} | vs scalar: {} | **{}** | {} | **{}** | {} | |",
        vs_sc.len(),
        times_x(geomean(&in_sc)),
        times_x(geomean(&bfv_sc)),
        times_x(geomean(&vs_sc)),
        times_x(geomean(&vs_bsc)),
        times_x(geomean(&vs_gcc)),
        times_x(geomean(&gcc_sc)),
    );
    t
}

pub(super) fn results_markdown(
    table: &str,
    built: &[(Kernel, Built)],
    opts: &Opts,
    gcc: &str,
    tools: &Tools,
    (secs, load): (f64, &str),
) -> String {
    let git = Command::new("git")
        .args(["rev-parse", "--short", "HEAD"])
        .current_dir(util::root())
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default();
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string())
        })
        .unwrap_or_default();
    let clang = tool_version(&tools.clang).unwrap_or_default();
    let mut m = String::new();
    let _ = writeln!(m, "# bench-gcc results\n");
    let _ = writeln!(
        m,
        "Command: `cargo xtask bench-gcc{}`; {} elements per repetition, {} repetitions per version in each of {} \
         processes (pooled), interleaved; \
         thread CPU time, ns per element, median (min–max). Commit `{git}`; CPU `{cpu}` ({} logical CPUs); {gcc}; {clang}. \
         The driver ran {secs:.0} s; 1-minute load average {load}.\n",
        if opts.smoke { " --smoke" } else { "" },
        opts.n,
        opts.reps,
        opts.processes,
        std::thread::available_parallelism().map(|n| n.get()).unwrap_or(0),
    );
    m.push_str(table);
    let _ = writeln!(
        m,
        "\n## Kernels\n\n| kernel | what it exercises | variant | GCC's AVX2 variants |\n| --- | --- | --- | --- |"
    );
    for (k, b) in built {
        let v = b.bf.iter().find_map(|(_, r)| r.as_ref().ok()).cloned().unwrap_or_else(|| "n/a".into());
        let _ = writeln!(m, "| {} | {} | `{v}` | {} |", k.name, k.about.replace('|', "\\|"), b.gcc_all.join(", "));
    }
    let _ = writeln!(m, "\n## batchify --report\n\n```");
    for (_, b) in built {
        for l in &b.report {
            let _ = writeln!(m, "{l}");
        }
    }
    let _ = writeln!(m, "```");
    let na: Vec<String> = built
        .iter()
        .flat_map(|(k, b)| {
            b.bf.iter().filter_map(move |(c, r)| r.as_ref().err().map(|e| format!("{} ({c}): {e}", k.name)))
        })
        .collect();
    if !na.is_empty() {
        let _ = writeln!(m, "\nConfigurations not built:\n");
        for l in na {
            let _ = writeln!(m, "* {l}");
        }
    }
    m
}
