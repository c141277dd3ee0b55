//! `batchify-judge-cost`: the cost model's choice against measurement, on
//! random programs ([`batchify_testkit::cost_judge`]).
//!
//! ```text
//! batchify-judge-cost [--count N] [--seed S] [--width W] [--masked | --unmasked] [--isa I]
//!                     [--sample-ms F] [--samples K] [--sets K] [--no-opt] [--inline-callees]
//!                     [--cpu NAME] [--features +x,-y] [--worst K] [--out FILE] [--report FILE]
//!                     [--strict] [--dump]
//! ```
//!
//! Prints progress every 100 programs, then the report (markdown): the
//! table of chosen form x faster form, the share of programs whose chosen
//! form is within 10% of the faster one, the worst ratio, the skips by
//! reason and the worst programs with their cost notes and the command
//! that judges each again. Exits 1 with `--strict` if the requirement (95%
//! within 10%, none worse than 1.5x) is not met; 2 on bad usage.

use batchify_testkit::cost_judge::{self, JudgeOptions};
use batchify_testkit::fuzz;
use std::process::ExitCode;

const USAGE: &str = "usage: batchify-judge-cost [--count N] [--seed S] [--width W] [--masked | --unmasked] [--isa I] \
[--sample-ms F] [--samples K] [--sets K] [--no-opt] [--inline-callees] [--cpu NAME] [--features +x,-y] [--worst K] \
[--out FILE] [--report FILE] [--strict] [--dump] [--replay FILE [--tune]] [--ir FILE --variant NAME]

  --count N          programs (default 100)
  --seed S           seed of the first program (decimal or 0x hex); program i uses S+i (default 0)
  --width W          lanes of every clone (default: 4, 8 or 16 from each program's seed)
  --masked, --unmasked  masked or unmasked clones only (default: from each program's seed)
  --isa I            sse, avx, avx2 or avx512 (default: the best the host runs; the cost model
                     only acts for x86 ISAs)
  --sample-ms F      least duration of one sample of the faster form, in ms (default 1)
  --samples K        samples per form, interleaved (default 15, at most 63)
  --sets K           argument sets (masks, values) the timing loop cycles through, a power of
                     two (default 8)
  --no-opt           do not run default<O2> on the programs first
  --inline-callees   let default<O2> inline the helpers (by default they are noinline)
  --cpu NAME         LLVM CPU the JIT compiles for (default host)
  --features LIST    extra JIT features after the CPU's
  --worst K          worst programs listed (default 10)
  --out FILE         write one tab-separated line per program to FILE
  --report FILE      write the report to FILE too
  --strict           exit 1 unless 95% of the timed programs are within 10% of the faster
                     form and none is more than 1.5x slower
  --replay FILE      time nothing: rebuild each program's choice with the current cost model
                     and score it against the medians of FILE (an earlier run's --out, same
                     generator settings); for tuning, not a verdict
  --tune             with --replay: tune the cost table on the replayed programs (held out:
                     tuned on even seeds, scored on odd ones; then tuned on all) and print it
  --ir FILE --variant NAME
                     judge one clone of a function of your own (textual IR or bitcode): time
                     its vector form and its per-lane loop, print the choice and the estimate
  --dump             print each program (after default<O2>), the three builds' reports and
                     clones, and the timing";

struct Args {
    opts: JudgeOptions,
    out: Option<String>,
    report: Option<String>,
    strict: bool,
    dump: bool,
    replay: Option<String>,
    tune: bool,
    ir: Option<(String, String)>,
}

fn value<T: std::str::FromStr>(flag: &str, v: Option<String>) -> Result<T, String> {
    let v = v.ok_or_else(|| format!("{flag} needs a value"))?;
    v.parse().map_err(|_| format!("{flag}: cannot parse `{v}`"))
}

fn parse(args: impl Iterator<Item = String>) -> Result<Option<Args>, String> {
    let mut a = Args {
        opts: JudgeOptions::default(),
        out: None,
        report: None,
        strict: false,
        dump: false,
        replay: None,
        tune: false,
        ir: None,
    };
    let o = &mut a.opts;
    let mut args = args;
    while let Some(arg) = args.next() {
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f.to_string(), Some(v.to_string())),
            _ => (arg.clone(), None),
        };
        let mut next = || inline.clone().or_else(|| args.next());
        match flag.as_str() {
            "--count" => o.count = value(&flag, next())?,
            "--seed" => {
                let v: String = value(&flag, next())?;
                let parsed = match v.strip_prefix("0x") {
                    Some(hex) => u64::from_str_radix(hex, 16),
                    None => v.parse(),
                };
                o.seed = parsed.map_err(|_| format!("--seed: cannot parse `{v}`"))?;
            }
            "--width" => {
                let w: u32 = value(&flag, next())?;
                if !(2..=64).contains(&w) {
                    return Err("--width must be in 2..=64".into());
                }
                o.width = Some(w);
            }
            "--masked" => o.masked = Some(true),
            "--unmasked" => o.masked = Some(false),
            "--isa" => {
                let v: String = value(&flag, next())?;
                o.isa = fuzz::isa_from_flag(&v)
                    .filter(|i| i.vector_bits().is_some())
                    .ok_or(format!("--isa: `{v}` is not one of sse, avx, avx2, avx512"))?;
            }
            "--sample-ms" => {
                let ms: f64 = value(&flag, next())?;
                if !(ms > 0.0 && ms <= 1000.0) {
                    return Err("--sample-ms must be in (0, 1000]".into());
                }
                o.timing.sample_ns = (ms * 1e6) as u64;
            }
            "--samples" => {
                o.timing.samples = value(&flag, next())?;
                if !(1..=cost_judge::timing::MAX_SAMPLES).contains(&o.timing.samples) {
                    return Err(format!("--samples must be in 1..={}", cost_judge::timing::MAX_SAMPLES));
                }
            }
            "--sets" => {
                o.sets = value(&flag, next())?;
                if !o.sets.is_power_of_two() || o.sets > 64 {
                    return Err("--sets must be a power of two up to 64".into());
                }
            }
            "--no-opt" => o.optimize = false,
            "--inline-callees" => o.inline_callees = true,
            "--cpu" => o.jit_target = o.jit_target.with_cpu(&value::<String>(&flag, next())?),
            "--features" => o.jit_target = o.jit_target.with_features(&value::<String>(&flag, next())?),
            "--worst" => o.keep_worst = value(&flag, next())?,
            "--out" => a.out = Some(value(&flag, next())?),
            "--report" => a.report = Some(value(&flag, next())?),
            "--strict" => a.strict = true,
            "--dump" => a.dump = true,
            "--replay" => a.replay = Some(value(&flag, next())?),
            "--tune" => a.tune = true,
            "--ir" => {
                let file: String = value(&flag, next())?;
                let variant: String = match next() {
                    Some(v) if v == "--variant" => value("--variant", next())?,
                    _ => return Err("--ir FILE must be followed by --variant NAME".into()),
                };
                a.ir = Some((file, variant));
            }
            "-h" | "--help" => return Ok(None),
            _ => return Err(format!("unknown argument `{arg}`")),
        }
    }
    Ok(Some(a))
}

/// `--dump`: each program, its three builds and its timing.
fn dump(opts: &JudgeOptions) {
    use inkwell::context::Context;
    for i in 0..opts.count {
        let seed = fuzz::program_seed(opts.seed, i);
        let fo = cost_judge::fuzz_options(seed, opts);
        let program = fuzz::generate_for(seed, &fo);
        let spec = fuzz::spec_for(&program, &fo);
        println!(
            "; program seed {seed}: clone {} ({} lanes, {})",
            spec.vector_name,
            spec.width,
            if fo.masked { "masked" } else { "unmasked" }
        );
        match cost_judge::prepared_ir(&program, opts) {
            Ok(ir) => {
                println!("{ir}");
                let ctx = Context::create();
                let names = ["choice (default options)", "vector form (cost_model: false)", "per-lane loop"];
                for (name, o) in names.iter().zip(cost_judge::build_options()) {
                    println!("; ---- {name} ----");
                    match cost_judge::build(&ctx, &ir, &spec, &o) {
                        Ok(b) => {
                            for line in b.report.lines() {
                                println!("; batchify: {line}");
                            }
                            let raw = batchify_core::llvm::Module::from_inkwell(&b.module);
                            let mut clones = vec![spec.vector_name.clone()];
                            clones.extend(b.report.callee_clones.iter().map(|c| c.spec.vector_name.clone()));
                            for f in clones.iter().filter_map(|n| raw.function(n)) {
                                for line in f.print_function().lines() {
                                    println!(";   {line}");
                                }
                            }
                        }
                        Err(e) => println!("; batchify failed: {e}"),
                    }
                }
            }
            Err(e) => println!("; default<O2> failed: {e}\n{}", program.ir),
        }
        let _ = std::io::Write::flush(&mut std::io::stdout());
        let j = cost_judge::judge_program(i, seed, opts);
        match &j.result {
            Ok(t) => println!(
                "; timing: choice {}, vector {:.1} ns (spread {:.1}%), per-lane {:.1} ns (spread {:.1}%){}, {} calls \
                 per sample; faster {}, ratio {:.3}{}\n",
                t.choice,
                t.vector.median,
                100.0 * t.vector.spread(),
                t.per_lane.median,
                100.0 * t.per_lane.spread(),
                t.mixed.map_or(String::new(), |m| format!(", mixed {:.1} ns", m.median)),
                t.iters,
                t.faster(),
                t.ratio(),
                if t.outputs_differ { "; the forms' outputs differ" } else { "" }
            ),
            Err(s) => println!("; skipped: {}: {}\n", s.key, s.detail),
        }
    }
}

/// `--ir FILE --variant NAME`: judges one clone of a user's function.
fn judge_file(file: &str, variant: &str, opts: &JudgeOptions) -> ExitCode {
    let fail = |e: String| {
        eprintln!("batchify-judge-cost: {e}");
        ExitCode::from(2)
    };
    let bytes = match std::fs::read(file) {
        Ok(b) => b,
        Err(e) => return fail(format!("cannot read {file}: {e}")),
    };
    let ctx = inkwell::context::Context::create();
    let ir = match batchify_testkit::corpus::parse_module(&ctx, &bytes, file) {
        Ok(m) => m.print_to_string().to_string(),
        Err(e) => return fail(format!("{file}: {e}")),
    };
    let spec = match batchify_core::vfabi::VariantName::parse(variant)
        .map_err(|e| e.to_string())
        .and_then(|v| batchify_core::CloneSpec::from_variant(&v).map_err(|e| e.to_string()))
    {
        Ok(s) => s,
        Err(e) => return fail(format!("--variant {variant}: {e}")),
    };
    match cost_judge::judge_ir(&ir, &spec, opts) {
        Ok(t) => {
            println!(
                "{variant}: vector form {:.1} ns, per-lane loop {:.1} ns (medians; measured speed-up {:.2}x); \
                 the cost model chose {} ({:.2}x the faster form)",
                t.vector.median,
                t.per_lane.median,
                t.vector_speedup(),
                t.choice,
                t.ratio()
            );
            for n in &t.cost_notes {
                println!("  cost: {n}");
            }
            ExitCode::SUCCESS
        }
        Err(s) => fail(format!("{}: {}", s.key, s.detail)),
    }
}

fn main() -> ExitCode {
    let args = match parse(std::env::args().skip(1)) {
        Ok(Some(a)) => a,
        Ok(None) => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("batchify-judge-cost: {e}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let opts = &args.opts;
    if args.dump {
        dump(opts);
        return ExitCode::SUCCESS;
    }
    if let Some((file, variant)) = &args.ir {
        return judge_file(file, variant, opts);
    }
    eprintln!(
        "batchify-judge-cost: {} programs from seed {}, ISA {}, JIT target {}, samples {} x >= {:.2} ms",
        opts.count,
        opts.seed,
        fuzz::isa_flag(opts.isa),
        opts.jit_target.describe(),
        opts.timing.samples,
        opts.timing.sample_ns as f64 / 1e6
    );
    let summary = match &args.replay {
        Some(path) => {
            let replayed = std::fs::read_to_string(path)
                .map_err(|e| format!("cannot read {path}: {e}"))
                .and_then(|tsv| cost_judge::replay::replay(&tsv, opts));
            match replayed {
                Ok(s) => s,
                Err(e) => {
                    eprintln!("batchify-judge-cost: {e}");
                    return ExitCode::from(2);
                }
            }
        }
        None => cost_judge::run(opts, 100, &mut |s| eprintln!("{s}")),
    };
    if args.tune {
        use cost_judge::tune;
        let samples = tune::samples(&summary);
        let current = batchify_core::cost::terms::CYCLES;
        println!("{} programs with terms; the current table: {}", samples.len(), tune::score(&samples, &current));
        let (_, even, odd) = tune::held_out(&samples, 3);
        println!("tuned on the even seeds: {even}; on the odd seeds (held out): {odd}");
        let all = tune::tune(&samples, &current, 3);
        println!("tuned on all: {}\n{}", tune::score(&samples, &all), tune::render(&all));
        return ExitCode::SUCCESS;
    }
    let report = summary.report(opts);
    print!("{report}");
    if let Some(path) = &args.out {
        if let Err(e) = std::fs::write(path, summary.tsv()) {
            eprintln!("batchify-judge-cost: cannot write {path}: {e}");
            return ExitCode::from(2);
        }
    }
    if let Some(path) = &args.report {
        if let Err(e) = std::fs::write(path, &report) {
            eprintln!("batchify-judge-cost: cannot write {path}: {e}");
            return ExitCode::from(2);
        }
    }
    if args.strict && !summary.meets_requirement() {
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}
