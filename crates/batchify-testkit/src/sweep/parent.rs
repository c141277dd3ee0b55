//! The parent: runs children in parallel, restarts them after a crash or a
//! timeout at the next run, and collects their [`Record`]s.

use super::cut::defined_functions;
use super::record::{normalize, unesc, Record};
use super::{isa_name, VARIANTS};
use crate::corpus::parse_module;
use inkwell::context::Context;
use std::collections::{BTreeMap, VecDeque};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

/// One module to sweep.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Input {
    /// Code base, e.g. `zlib`.
    pub codebase: String,
    /// Build level, e.g. `O2`.
    pub level: String,
    /// Bitcode file.
    pub path: PathBuf,
}

/// How the parent runs the children.
#[derive(Debug, Clone)]
pub struct SweepConfig {
    /// The `batchify-sweep` executable (re-executed with `--one`).
    pub exe: PathBuf,
    /// Output folder (`fns/` goes there).
    pub out: PathBuf,
    /// Children at once.
    pub jobs: usize,
    /// Oracle trials per run.
    pub trials: usize,
    /// Functions per child.
    pub chunk: usize,
    /// Limit for batchify on one variant.
    pub batchify_timeout: Duration,
    /// Limit for the oracle on one variant.
    pub oracle_timeout: Duration,
    /// Print a line per finished slice.
    pub progress: bool,
}

struct Unit {
    input: Input,
    from: usize,
    to: usize,
    names: Vec<String>,
}

/// Number of defined functions and their names, read in this process.
pub fn list_functions(path: &Path) -> Result<Vec<String>, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let ctx = Context::create();
    let module = parse_module(&ctx, &bytes, "list")?;
    Ok(defined_functions(&module).into_iter().map(|(n, _)| n).collect())
}

fn module_id(input: &Input) -> String {
    let stem = input.path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let level: String = input.level.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect();
    format!("{}/{}/{}", input.codebase, level, stem)
}

fn after(i: usize, v: usize) -> (usize, usize) {
    if v + 1 < VARIANTS.len() {
        (i, v + 1)
    } else {
        (i + 1, 0)
    }
}

fn crash_reason(status: Option<std::process::ExitStatus>, stderr: &[String]) -> String {
    let interesting = stderr.iter().rev().find(|l| {
        l.contains("LLVM ERROR")
            || l.contains("Assertion")
            || l.contains("panicked")
            || l.contains("error:")
            || l.contains("Error")
    });
    let how = match status {
        Some(s) => {
            #[cfg(unix)]
            {
                use std::os::unix::process::ExitStatusExt;
                match (s.code(), s.signal()) {
                    (_, Some(sig)) => format!("killed by signal {sig}"),
                    (Some(c), _) => format!("exit status {c}"),
                    _ => "unknown exit".to_string(),
                }
            }
            #[cfg(not(unix))]
            {
                format!("{s}")
            }
        }
        None => "no exit status".into(),
    };
    match interesting {
        Some(l) => format!("{}: {how}", l.trim()),
        None => how,
    }
}

/// Collected records, also appended to `runs.partial.jsonl` as they come.
struct Sink {
    records: Mutex<Vec<Record>>,
    live: Option<Mutex<std::fs::File>>,
}

impl Sink {
    fn push(&self, r: Record) {
        if let Some(f) = &self.live {
            let _ = writeln!(lock(f), "{}", r.json());
        }
        lock(&self.records).push(r);
    }
    fn len(&self) -> usize {
        lock(&self.records).len()
    }
}

fn run_unit(unit: &Unit, cfg: &SweepConfig, sink: &Sink, warnings: &Mutex<Vec<String>>) {
    let absolute = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    let fns_dir = absolute(&cfg.out.join("fns").join(module_id(&unit.input)));
    let _ = std::fs::create_dir_all(&fns_dir);
    // Functions called with random arguments may create files (zlib's
    // `gzopen` with a random name): they land in a scratch folder, not in
    // the folder the sweep was started from.
    let scratch = absolute(&cfg.out.join("scratch"));
    let _ = std::fs::create_dir_all(&scratch);
    let mut next = (unit.from, 0usize);
    while next.0 < unit.to {
        let mut cmd = Command::new(&cfg.exe);
        cmd.current_dir(&scratch)
            .arg("--one")
            .arg(absolute(&unit.input.path))
            .args(["--codebase", &unit.input.codebase, "--level", &unit.input.level])
            .args(["--from", &next.0.to_string(), "--to", &unit.to.to_string()])
            .args(["--start-variant", &next.1.to_string(), "--trials", &cfg.trials.to_string()])
            .arg("--fns-dir")
            .arg(&fns_dir)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = match cmd.spawn() {
            Ok(c) => c,
            Err(e) => {
                lock(warnings).push(format!("cannot start {}: {e}", cfg.exe.display()));
                return;
            }
        };
        let (tx, rx) = mpsc::channel::<String>();
        let stdout = child.stdout.take().expect("piped");
        let reader = std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let tail: Arc<Mutex<VecDeque<String>>> = Arc::new(Mutex::new(VecDeque::new()));
        let stderr = child.stderr.take().expect("piped");
        let tail2 = Arc::clone(&tail);
        let err_reader = std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                let mut t = lock(&tail2);
                t.push_back(line);
                if t.len() > 40 {
                    t.pop_front();
                }
            }
        });
        // (index, variant, phase, record so far, started)
        let mut current: Option<(usize, usize, String, Record, Instant)> = None;
        let mut idle_since = Instant::now();
        let mut done = false;
        let mut killed: Option<&'static str> = None;
        loop {
            let limit = match &current {
                Some((_, _, phase, _, t)) => {
                    let lim = if phase == "oracle" { cfg.oracle_timeout } else { cfg.batchify_timeout };
                    lim.saturating_sub(t.elapsed())
                }
                None => Duration::from_secs(300).saturating_sub(idle_since.elapsed()),
            };
            match rx.recv_timeout(limit) {
                Ok(line) => {
                    let mut parts = line.splitn(2, '\t');
                    let tag = parts.next().unwrap_or("");
                    let rest = parts.next().unwrap_or("");
                    match tag {
                        "S" => {
                            let f: Vec<&str> = rest.splitn(4, '\t').collect();
                            if f.len() == 4 {
                                if let (Ok(i), Ok(v), Some(rec)) = (f[0].parse(), f[1].parse(), Record::decode(f[3])) {
                                    current = Some((i, v, f[2].to_string(), rec, Instant::now()));
                                }
                            }
                        }
                        "R" => {
                            if let Some(rec) = Record::decode(rest) {
                                next = after(
                                    rec.fn_index,
                                    VARIANTS
                                        .iter()
                                        .position(|&(isa, w, m)| {
                                            isa_name(isa) == rec.isa && w == rec.width && m == rec.masked
                                        })
                                        .unwrap_or(3),
                                );
                                sink.push(rec);
                            }
                            current = None;
                            idle_since = Instant::now();
                        }
                        "W" => lock(warnings).push(format!("{}: {}", unit.input.path.display(), unesc(rest))),
                        "D" => done = true,
                        _ => {}
                    }
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    let _ = child.kill();
                    killed = Some("timeout");
                    break;
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            }
        }
        let status = child.wait().ok();
        let _ = reader.join();
        let _ = err_reader.join();
        if done {
            return;
        }
        let stderr: Vec<String> = lock(&tail).iter().cloned().collect();
        match current {
            Some((i, v, phase, mut rec, started)) => {
                if phase == "batchify" {
                    if killed.is_some() {
                        rec.outcome = "timeout".into();
                        rec.detail = format!("batchify ran longer than {} s", cfg.batchify_timeout.as_secs());
                    } else {
                        rec.outcome = "crash".into();
                        rec.message = crash_reason(status, &stderr);
                        rec.detail = normalize(&rec.message);
                    }
                } else if killed.is_some() {
                    rec.oracle = "timeout".into();
                    rec.oracle_detail =
                        format!("scalar runs or clone ran longer than {} s", cfg.oracle_timeout.as_secs());
                } else {
                    rec.oracle = "crash".into();
                    rec.oracle_detail = normalize(&crash_reason(status, &stderr));
                }
                rec.ms = started.elapsed().as_millis() as u64;
                sink.push(rec);
                next = after(i, v);
            }
            None => {
                // Died while loading or cutting out a function: skip that function.
                let name = unit.names.get(next.0 - unit.from).cloned().unwrap_or_default();
                let why = if killed.is_some() { "timeout".to_string() } else { crash_reason(status, &stderr) };
                lock(warnings).push(format!(
                    "{} function #{} `{name}`: the child died before batching it ({why}); skipped",
                    unit.input.path.display(),
                    next.0
                ));
                next = (next.0 + 1, 0);
            }
        }
    }
}

pub(super) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Runs every function of every input; returns the records (in input
/// order) and warnings.
pub fn run_sweep(inputs: &[Input], cfg: &SweepConfig) -> Result<(Vec<Record>, Vec<String>), String> {
    let mut units = Vec::new();
    let mut total_fns = 0;
    for input in inputs {
        let names = list_functions(&input.path)?;
        total_fns += names.len();
        let mut from = 0;
        while from < names.len() {
            let to = (from + cfg.chunk.max(1)).min(names.len());
            units.push(Unit { input: input.clone(), from, to, names: names[from..to].to_vec() });
            from = to;
        }
    }
    if cfg.progress {
        println!(
            "sweep: {} modules, {total_fns} function definitions, {} runs in {} slices, {} jobs",
            inputs.len(),
            total_fns * VARIANTS.len(),
            units.len(),
            cfg.jobs
        );
    }
    let _ = std::fs::create_dir_all(&cfg.out);
    let live = std::fs::File::create(cfg.out.join("runs.partial.jsonl")).ok().map(Mutex::new);
    let sink = Sink { records: Mutex::new(Vec::new()), live };
    let warnings = Mutex::new(Vec::new());
    let next_unit = Mutex::new(0usize);
    let finished = Mutex::new(0usize);
    let start = Instant::now();
    std::thread::scope(|s| {
        for _ in 0..cfg.jobs.max(1) {
            s.spawn(|| loop {
                let idx = {
                    let mut n = lock(&next_unit);
                    let i = *n;
                    *n += 1;
                    i
                };
                let Some(unit) = units.get(idx) else { break };
                run_unit(unit, cfg, &sink, &warnings);
                let done = {
                    let mut f = lock(&finished);
                    *f += 1;
                    *f
                };
                if cfg.progress {
                    let runs = sink.len();
                    println!(
                        "  [{done}/{}] {} {} #{}..{}: {runs} runs so far ({:.0} s)",
                        units.len(),
                        unit.input.codebase,
                        unit.input.path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default(),
                        unit.from,
                        unit.to,
                        start.elapsed().as_secs_f64()
                    );
                }
            });
        }
    });
    let mut records = sink.records.into_inner().unwrap_or_else(|e| e.into_inner());
    let _ = std::fs::remove_file(cfg.out.join("runs.partial.jsonl"));
    let order: BTreeMap<&Path, usize> = inputs.iter().enumerate().map(|(i, x)| (x.path.as_path(), i)).collect();
    records.sort_by_key(|r| {
        let v = VARIANTS.iter().position(|&(isa, w, m)| isa_name(isa) == r.isa && w == r.width && m == r.masked);
        (order.get(Path::new(&r.module)).copied().unwrap_or(usize::MAX), r.fn_index, v)
    });
    Ok((records, warnings.into_inner().unwrap_or_else(|e| e.into_inner())))
}
