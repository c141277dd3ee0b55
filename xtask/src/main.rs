//! Project automation for batchify, run as `cargo xtask <command>`.
//!
//! Every command is one function `run(&[String]) -> Result<(), String>` in its
//! own module; to add one, write the module and list it in [`COMMANDS`].
//! std only: this crate must build before LLVM is installed (it installs it).

mod a64_icount;
mod bench_autodiff;
mod bench_gcc;
mod bench_map;
mod compile_time;
mod demo;
mod doc_commands;
mod fuzz;
mod judge_cost;
mod setup;
mod simd_suite;
mod sve_icount;
mod sweep;
mod test;
mod util;

use std::process::ExitCode;

/// A subcommand: its name, its usage after the name, one line of help, and
/// the function that runs it with the arguments that follow the name.
struct Command {
    name: &'static str,
    usage: &'static str,
    about: &'static str,
    run: fn(&[String]) -> Result<(), String>,
}

const COMMANDS: &[Command] = &[
    Command {
        name: "setup",
        usage: "[--check]",
        about: "check for LLVM 22 (clang-22, opt-22, FileCheck, lit, libLLVM-22) and install it \
                with apt-get when run as root; --check only checks",
        run: setup::run,
    },
    Command {
        name: "demo",
        usage: "",
        about: "build the CLI, batch examples/smoothstep into an 8-lane AVX2 clone, and compare \
                and time it against the scalar function",
        run: demo::run,
    },
    Command {
        name: "test",
        usage: "[--quick]",
        about: "setup, then build, cargo test, lit suite, rustfmt check and clippy, stopping at \
                the first failure; --quick skips rustfmt and clippy",
        run: test::run,
    },
    Command {
        name: "doc-commands",
        usage: "",
        about: "run every command of the sh blocks in README.md, docs/rust.md, docs/plugin.md and \
                docs/enzyme-batch.md as written (builds the release CLI and plugin first)",
        run: doc_commands::run,
    },
    Command {
        name: "fuzz",
        usage: "[--count N] [--seed S] [...]",
        about: "build and run the random-program fuzzer (release); every option goes to \
                batchify-fuzz, e.g. --count 100000; prints `N programs, M mismatches, K invalid IR`",
        run: fuzz::run,
    },
    Command {
        name: "judge-cost",
        usage: "[--count N] [--seed S] [...]",
        about: "judge the cost model (release): random programs with buffers, callees and divergent loops, \
                each clone built as the cost model chooses, as the vector form and as the per-lane loop, both \
                forms timed interleaved on the same inputs; prints the table chosen x faster, the share within \
                10% and the worst choices; every option goes to batchify-judge-cost",
        run: judge_cost::run,
    },
    Command {
        name: "compile-time",
        usage: "[--instructions 1000,...,32000] [--branches 2000] [--runs 3] [--no-opt] [--families a,b]",
        about: "time batchify (release) on generated functions (straight-line code, divergent diamonds, \
                nested ifs, loops, nested loops, a switch, callees, an irreducible machine) at growing \
                instruction counts, and against opt-22 -O2 at a branch count; prints markdown tables",
        run: compile_time::run,
    },
    Command {
        name: "sweep",
        usage: "[--quick] [...]",
        about: "real-code sweep (release): zlib, lz4, newlib libm and Rust crates from crates.io, every \
                function at AVX2 x8 and AVX-512 x16, masked and unmasked, checked by the oracle; writes \
                target/sweep/report.md and fails on any internal error, panic, crash or mismatch",
        run: sweep::run,
    },
    Command {
        name: "bench-gcc",
        usage: "[--smoke] [...]",
        about: "benchmark batchify's AVX2 clones against GCC 12's declare-simd clones, scalar calls and \
                clang -O3 inlined loops on benches/gcc/kernels; writes target/bench-gcc/results.md; --smoke: \
                a few kernels on tiny arrays, checked, under a minute; other options: --n N, --reps R, \
                --kernels a,b, --batchify PATH, --out DIR",
        run: bench_gcc::run,
    },
    Command {
        name: "bench-autodiff",
        usage: "[--smoke] [...]",
        about: "derivatives of three functions of doubles on 1000x1000 points each (the smooth Mandelbrot \
                measure, a dense tanh layer, a particle's bouncing time step; --functions mandel,dense,particle): \
                scalar Enzyme, Enzyme of batchify's clone, batchify's clones of Enzyme's derivatives, and the \
                primal, at AVX2 x4, AVX2 x8 and AVX-512 x8 (--lanes avx2x4,avx2x8,avx512x8; default: all the CPU \
                can run) in one driver; checked against scalar Enzyme, timed interleaved, table printed and written \
                to target/bench-autodiff/results.md; --smoke: 64x64 points, 1 round; other options: --side N, \
                --reps R (8: 2 rounds at each of 4 stack shifts), --batchify PATH, --out DIR, --build-only (build every \
                configuration asked for, even one the CPU cannot run, and stop), --veclib libmvec (glibc's vector \
                math in batchify of Enzyme)",
        run: bench_autodiff::run,
    },
    Command {
        name: "bench-map",
        usage: "[--smoke] [...]",
        about: "map entry points grouped, refilling and adaptive against a scalar loop on five divergent \
                kernels (benches/map), natural, shuffled and sorted input, AVX2 x8, AVX2 x16 and AVX-512 x16 \
                (where the CPU has it); every map checked bit for bit; table printed and written to \
                target/bench-map/results.md; --smoke: 4096 elements, 1 run; other options: --n N, --runs R \
                (5), --batchify PATH, --out DIR",
        run: bench_map::run,
    },
    Command {
        name: "simd-suite",
        usage: "[--mode M] [--march LEVEL] [...]",
        about: "build and run the self-checking declare-simd C programs of tests/simd-clone four ways \
                (a: clang + plugin; b: clang IR -> batchify -> clang; c: GCC callers of batchify's variants; \
                d: clang + plugin callers of GCC's clones) into target/simd-suite and print a table; \
                --march x86-64-v2|v3|v4 builds both TUs of every program at that level; \
                --mode b,c picks modes; --arch aarch64 cross-compiles and runs under qemu-aarch64 \
                (--march armv8-a+sve: SVE variants, --sve-vq 1,2,4,16 runs each binary at those vector \
                lengths); other options: --jobs N, --only NAME,.., --verbose, --no-build",
        run: simd_suite::run,
    },
    Command {
        name: "a64-icount",
        usage: "[--only NAME,..]",
        about: "instructions executed inside batchify's AArch64 Advanced SIMD variants against GCC 12's own, \
                both called by the same GCC caller, for the programs of tests/simd-clone, counted under \
                qemu-aarch64 (-d in_asm,exec,nochain); table printed and written to \
                target/a64-icount/results.md; --sve: instructions per element of batchify's SVE variants of \
                tests/sve against scalar calls at 128, 256, 512 and 1024-bit vectors \
                (target/a64-icount/sve/results.md); other options: --no-build",
        run: a64_icount::run,
    },
    Command { name: "help", usage: "", about: "print this list", run: help },
];

fn help(_: &[String]) -> Result<(), String> {
    println!("Usage: cargo xtask <command> [options]\n\nCommands:");
    for c in COMMANDS {
        let head = format!("{} {}", c.name, c.usage);
        let mut lines = vec![String::new()];
        for word in c.about.split_whitespace() {
            let line = lines.last_mut().expect("never empty");
            if !line.is_empty() && line.len() + 1 + word.len() > 64 {
                lines.push(word.to_string());
            } else {
                if !line.is_empty() {
                    line.push(' ');
                }
                line.push_str(word);
            }
        }
        println!("  {:<18} {}", head.trim_end(), lines[0]);
        for line in &lines[1..] {
            println!("  {:<18} {line}", "");
        }
    }
    println!(
        "\nQuick start on a fresh Debian 12 machine (as root, LLVM 22 is installed with apt):\n  \
         cargo xtask demo\n  cargo xtask test"
    );
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let name = args.first().map(String::as_str).unwrap_or("help");
    let name = match name {
        "-h" | "--help" => "help",
        other => other,
    };
    let Some(command) = COMMANDS.iter().find(|c| c.name == name) else {
        eprintln!("xtask: unknown command `{name}`\n");
        let _ = help(&[]);
        return ExitCode::from(2);
    };
    match (command.run)(args.get(1..).unwrap_or(&[])) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("{}", util::red(&format!("xtask {name}: error: {message}")));
            ExitCode::FAILURE
        }
    }
}
