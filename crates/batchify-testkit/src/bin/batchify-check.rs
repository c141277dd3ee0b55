//! `batchify-check FILE [--level o2|o0|rust1|rust2] [--width N] [--masked] [--function NAME] [--trials T] [--veclib]
//! [--optimized-caller] [--allow-null] [--no-fork] [--isa I] [--cpu NAME] [--features +x,-y]`:
//! batches the functions of one corpus file and runs the oracle on each,
//! printing one line per function. A debugging aid for corpus failures.
//! `--function` may name a function of any linkage (the corpus harness
//! only picks externally visible ones). `--veclib` builds with
//! `--veclib libmvec` and compares `float`/`double` results within
//! libmvec's 4 ulp plus 1 (`OracleOptions::veclib_max_ulps`).
//! `--cpu`/`--features`: the JIT target (`OracleOptions::jit_target`).

use batchify_core::vfabi::Isa;
use batchify_testkit::corpus::{load_file, parse_module, specs_for_module, CLevel, Directives};
use batchify_testkit::{CheckConfig, Oracle, OracleOptions};
use inkwell::context::Context;
use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let mut file = None;
    let (mut level, mut width, mut masked, mut only, mut trials) = (CLevel::O2, 8u32, false, None, 100usize);
    let mut isa = Isa::Llvm;
    let mut oracle_opts = OracleOptions::default();
    let mut veclib = batchify_core::VecLib::None;
    while let Some(a) = args.next() {
        match a.as_str() {
            "--level" => {
                level = match args.next().as_deref() {
                    Some("o0") => CLevel::O0Mem2Reg,
                    Some("rust1") => CLevel::RustO1,
                    Some("rust2") => CLevel::RustO2,
                    _ => CLevel::O2,
                }
            }
            "--width" => width = args.next().and_then(|s| s.parse().ok()).unwrap_or(8),
            "--trials" => trials = args.next().and_then(|s| s.parse().ok()).unwrap_or(100),
            "--masked" => masked = true,
            "--optimized-caller" => oracle_opts.optimized_caller = true,
            "--allow-null" => oracle_opts.allow_null = true,
            "--no-fork" => oracle_opts.isolate = false,
            "--cpu" => oracle_opts.jit_target = oracle_opts.jit_target.with_cpu(&args.next().unwrap_or_default()),
            "--features" => {
                oracle_opts.jit_target = oracle_opts.jit_target.with_features(&args.next().unwrap_or_default())
            }
            "--isa" => {
                isa = args.next().as_deref().and_then(batchify_testkit::fuzz::isa_from_flag).unwrap_or(Isa::Llvm)
            }
            "--function" => only = args.next(),
            "--veclib" => {
                // libmvec's documented 4 ulp, plus 1 for the scalar function's own error.
                veclib = batchify_core::VecLib::Libmvec;
                oracle_opts.veclib_max_ulps = Some(batchify_core::emit::veclib::LIBMVEC_MAX_ULPS + 1);
                let h = unsafe { libc::dlopen(c"libmvec.so.1".as_ptr(), libc::RTLD_NOW | libc::RTLD_GLOBAL) };
                if h.is_null() {
                    eprintln!("batchify-check: --veclib: libmvec.so.1 not found");
                    return ExitCode::from(2);
                }
            }
            _ => file = Some(PathBuf::from(a)),
        }
    }
    let Some(file) = file else {
        eprintln!("usage: batchify-check FILE [--level o2|o0|rust1|rust2] [--width N] [--masked] [--isa sse|avx|avx2|avx512] [--function NAME] [--trials T] [--optimized-caller] [--allow-null] [--no-fork] [--veclib] [--cpu NAME] [--features +x,-y]");
        return ExitCode::from(2);
    };
    let text = std::fs::read_to_string(&file).unwrap_or_default();
    let dirs = Directives::parse(&text);
    let bytes = match load_file(&file, level) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
    };
    let mut failed = false;
    let ctx = Context::create();
    let module = parse_module(&ctx, &bytes, "input").expect("parses");
    let mut specs = specs_for_module(&module, &dirs, width, level, masked, isa);
    // A function the corpus harness does not pick (internal, private, ...).
    if let Some(f) = only.as_ref().and_then(|o| module.get_function(o)) {
        if f.count_basic_blocks() > 0 && !specs.iter().any(|s| Some(&s.scalar_name) == only.as_ref()) {
            let name = f.get_name().to_string_lossy().into_owned();
            specs.push(batchify_core::CloneSpec::all_varying(&name, f.count_params() as usize, width, isa, masked));
        }
    }
    for spec in specs {
        if only.as_ref().is_some_and(|o| *o != spec.scalar_name) {
            continue;
        }
        eprint!("{} ... ", spec.vector_name);
        let ctx = Context::create();
        let module = parse_module(&ctx, &bytes, "input").expect("parses");
        let opt_level = std::env::var("BATCHIFY_OPT").ok().and_then(|s| s.parse().ok()).unwrap_or(2);
        let opts = batchify_core::Options { allow_fallback: true, opt_level, veclib, ..Default::default() };
        let r = batchify_core::batchify_inkwell(&module, std::slice::from_ref(&spec), &opts)
            .map_err(|e| e.to_string())
            .and_then(|_| {
                Oracle::with_options(&module, std::slice::from_ref(&spec), &oracle_opts).map_err(|e| e.to_string())
            })
            .and_then(|o| o.check_all(&CheckConfig { trials, ..Default::default() }).map_err(|e| e.to_string()));
        match r {
            Ok(s) => eprintln!("ok ({} lanes)", s.lanes_compared),
            Err(e) => {
                failed = true;
                eprintln!("FAILED: {e}");
            }
        }
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
