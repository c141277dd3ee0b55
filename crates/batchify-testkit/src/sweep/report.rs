//! The report: the markdown summary of the [`Record`]s (outcomes, top
//! reasons, failures with a repro command), the failure counts, and the
//! output files `report.md` and `runs.jsonl`.

use super::record::Record;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::time::Duration;

#[derive(Default)]
struct Tally {
    functions: BTreeSet<(String, String)>,
    builds: BTreeSet<(String, String, String)>,
    runs: usize,
    outcome: BTreeMap<String, usize>,
    oracle: BTreeMap<String, usize>,
    lanes: u64,
}

impl Tally {
    fn add(&mut self, r: &Record) {
        self.functions.insert((r.codebase.clone(), r.function.clone()));
        self.builds.insert((r.codebase.clone(), r.level.clone(), r.function.clone()));
        self.runs += 1;
        *self.outcome.entry(r.outcome.clone()).or_default() += 1;
        *self.oracle.entry(r.oracle.clone()).or_default() += 1;
        self.lanes += r.lanes;
    }
    fn o(&self, k: &str) -> usize {
        self.outcome.get(k).copied().unwrap_or(0)
    }
    fn c(&self, k: &str) -> usize {
        self.oracle.get(k).copied().unwrap_or(0)
    }
    fn row(&self, label: &str) -> String {
        format!(
            "| {label} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            self.functions.len(),
            self.builds.len(),
            self.runs,
            self.o("vectorized"),
            self.o("fallback"),
            self.o("rejected"),
            self.o("internal"),
            self.o("panic"),
            self.o("crash"),
            self.o("invalid-ir"),
            self.o("bodiless"),
            self.o("timeout"),
            self.c("ok"),
            self.c("mismatch"),
            self.c("not-checked"),
            self.c("timeout") + self.c("crash") + self.c("panic"),
            self.lanes
        )
    }
}

fn top(records: &[Record], filter: impl Fn(&Record) -> Option<String>, n: usize) -> Vec<(String, usize, String)> {
    let mut m: BTreeMap<String, (usize, String)> = BTreeMap::new();
    for r in records {
        if let Some(k) = filter(r) {
            let e = m.entry(k).or_insert((0, format!("{} `{}`", r.codebase, r.function)));
            e.0 += 1;
        }
    }
    let mut v: Vec<(String, usize, String)> = m.into_iter().map(|(k, (c, ex))| (k, c, ex)).collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    v.truncate(n);
    v
}

/// Provenance lines for the report (code bases, versions, commands).
pub type Provenance = Vec<String>;

/// The markdown report.
pub fn report(
    records: &[Record],
    provenance: &[String],
    command: &str,
    elapsed: Duration,
    exe: &str,
    warnings: &[String],
) -> String {
    let mut s = String::new();
    s.push_str("# batchify real-code sweep\n\n");
    s.push_str(&format!(
        "Command: `{command}`  \nFinished: {} (UTC), {:.0} s wall clock.\n\n",
        utc_now(),
        elapsed.as_secs_f64()
    ));
    if !provenance.is_empty() {
        s.push_str("Code bases:\n\n");
        for p in provenance {
            s.push_str(&format!("* {p}\n"));
        }
        s.push('\n');
    }
    s.push_str(
        "Every defined function, four variants each: AVX2 ×8 and AVX-512 ×16, unmasked and masked, \
         every parameter varying (`--function`), `-O2`, fallback allowed.\n\n",
    );
    s.push_str(
        "| code base / level | functions | builds | runs | vectorized | fallback | rejected | internal | panic | \
         crash | invalid IR | bodiless | timeout | oracle ok | mismatch | not checked | oracle timeout/crash | lanes |\n",
    );
    s.push_str(&format!("|{}\n", " --- |".repeat(18)));
    let mut per_cb: BTreeMap<String, Tally> = BTreeMap::new();
    let mut per_level: BTreeMap<(String, String), Tally> = BTreeMap::new();
    let mut total = Tally::default();
    let mut cb_order: Vec<String> = Vec::new();
    for r in records {
        if !cb_order.contains(&r.codebase) {
            cb_order.push(r.codebase.clone());
        }
        per_cb.entry(r.codebase.clone()).or_default().add(r);
        per_level.entry((r.codebase.clone(), r.level.clone())).or_default().add(r);
        total.add(r);
    }
    for cb in &cb_order {
        let levels: Vec<&(String, String)> = per_level.keys().filter(|(c, _)| c == cb).collect();
        if levels.len() > 1 {
            for key in levels {
                s.push_str(&per_level[key].row(&format!("{} {}", key.0, key.1)));
                s.push('\n');
            }
        }
        s.push_str(&per_cb[cb].row(&format!("**{cb}**")));
        s.push('\n');
    }
    s.push_str(&total.row("**total**"));
    s.push_str("\n\n");
    s.push_str(
        "*functions*: distinct names per code base; *builds*: (level, function) pairs; *runs*: builds × 4 variants. \
         *rejected*: a clear error instead of a clone; *bodiless*: the scalar function returns but the clone has no \
         `ret`; *timeout*: batchify itself hung. Oracle columns count runs that produced a clone.\n\n",
    );
    type Section = (&'static str, Box<dyn Fn(&Record) -> Option<String>>);
    let sections: [Section; 5] = [
        ("Fallback reasons", Box::new(|r: &Record| (r.outcome == "fallback").then(|| r.detail.clone()))),
        ("Rejections (clear errors)", Box::new(|r: &Record| (r.outcome == "rejected").then(|| r.detail.clone()))),
        (
            "Failures by kind",
            Box::new(|r: &Record| {
                r.failure().map(|f| {
                    format!(
                        "{f}: {}",
                        if r.oracle == "mismatch" && r.outcome != "bodiless" {
                            "lane differs".to_string()
                        } else {
                            r.detail.clone()
                        }
                    )
                })
            }),
        ),
        ("Oracle: not checked", Box::new(|r: &Record| (r.oracle == "not-checked").then(|| r.oracle_detail.clone()))),
        (
            "Oracle: timeouts, crashes, panics (scalar or clone: not counted as failures)",
            Box::new(|r: &Record| {
                matches!(r.oracle.as_str(), "timeout" | "crash" | "panic")
                    .then(|| format!("{}: {}", r.oracle, r.oracle_detail))
            }),
        ),
    ];
    for (title, f) in sections.iter() {
        let rows = top(records, f, 25);
        if rows.is_empty() {
            continue;
        }
        s.push_str(&format!("## {title}\n\n| runs | reason | e.g. |\n| ---: | --- | --- |\n"));
        for (k, c, ex) in rows {
            s.push_str(&format!("| {c} | {} | {} |\n", k.replace('|', "\\|"), ex.replace('|', "\\|")));
        }
        s.push('\n');
    }
    let failures: Vec<&Record> = records.iter().filter(|r| r.failure().is_some()).collect();
    s.push_str(&format!("## Failures ({})\n\n", failures.len()));
    if failures.is_empty() {
        s.push_str("None.\n\n");
    }
    for r in failures.iter().take(400) {
        let msg = if r.oracle == "mismatch" {
            r.oracle_detail.clone()
        } else {
            r.message.lines().next().unwrap_or("").to_string()
        };
        let msg: String = msg.chars().take(300).collect();
        s.push_str(&format!(
            "* **{}** {} {} `{}` → `{}`: {}  \n  `{}`\n",
            r.failure().unwrap_or(""),
            r.codebase,
            r.level,
            r.function,
            r.variant,
            msg.replace('`', "'"),
            r.repro(exe)
        ));
    }
    if failures.len() > 400 {
        s.push_str(&format!("* … {} more in runs.jsonl\n", failures.len() - 400));
    }
    if !warnings.is_empty() {
        s.push_str(&format!("\n## Warnings ({})\n\n", warnings.len()));
        for w in warnings.iter().take(50) {
            s.push_str(&format!("* {w}\n"));
        }
    }
    s
}

/// The summary of failures: (category, count).
pub fn failure_counts(records: &[Record]) -> BTreeMap<&'static str, usize> {
    let mut m = BTreeMap::new();
    for r in records {
        if let Some(f) = r.failure() {
            *m.entry(f).or_default() += 1;
        }
    }
    m
}

/// Writes `report.md` and `runs.jsonl` into `out`.
pub fn write_outputs(out: &Path, records: &[Record], report_md: &str) -> Result<(), String> {
    std::fs::create_dir_all(out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    let mut jsonl = String::new();
    for r in records {
        jsonl.push_str(&r.json());
        jsonl.push('\n');
    }
    std::fs::write(out.join("runs.jsonl"), jsonl).map_err(|e| e.to_string())?;
    std::fs::write(out.join("report.md"), report_md).map_err(|e| e.to_string())
}

/// Current UTC time as `YYYY-MM-DD HH:MM`.
pub fn utc_now() -> String {
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
    let days = (secs / 86400) as i64;
    let (h, m) = ((secs % 86400) / 3600, (secs % 3600) / 60);
    // Civil from days (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let mo = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = if mo <= 2 { y + 1 } else { y };
    format!("{y:04}-{mo:02}-{d:02} {h:02}:{m:02}")
}
