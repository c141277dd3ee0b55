//! `cargo xtask demo`: the quick-start demo. Builds the CLI, compiles
//! `examples/smoothstep/smoothstep.c` to bitcode, lets batchify generate its
//! 8-lane AVX2 clone `_ZGVdN8uuv_smoothstep`, links the driver against it and
//! runs it: a results table, a bit-for-bit check on 2^20 inputs, and timings.

use crate::setup;
use crate::util::{self, green, header};
use std::process::Command;

const VARIANT: &str = "_ZGVdN8uuv_smoothstep";

pub fn run(args: &[String]) -> Result<(), String> {
    util::flags(args, &[])?;
    let env = setup::ensure(true)?;
    let root = util::root();
    let example = root.join("examples").join("smoothstep");
    let dir = util::target_dir().join("demo");
    let release = util::target_dir().join("release");

    header("demo 1/5: build the batchify CLI (release)");
    util::run(&mut env.cargo(&["build", "--release", "-p", "batchify-cli"]))?;

    if !cfg!(target_arch = "x86_64") {
        println!(
            "\nSKIP: the demo's clone {VARIANT} is an x86-64 AVX2 variant, and this host is {}; \
             the CLI is built in {}.",
            std::env::consts::ARCH,
            util::rel(&release).display()
        );
        return Ok(());
    }

    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let bc = dir.join("smoothstep.bc");
    let batched = dir.join("smoothstep.batched.bc");
    let avx2_obj = dir.join("driver_avx2.o");
    let exe = dir.join("smoothstep-demo");
    let clang = env.clang();

    header("demo 2/5: compile the scalar C function to LLVM bitcode");
    util::run(
        Command::new(&clang)
            .args(["-O2", "-fopenmp-simd", "-c", "-emit-llvm"])
            .arg(example.join("smoothstep.c"))
            .arg("-o")
            .arg(&bc)
            .current_dir(&root),
    )?;

    header(&format!("demo 3/5: batchify it into the 8-lane AVX2 clone {VARIANT}"));
    util::run(
        Command::new(release.join("batchify"))
            .arg(&bc)
            .arg("-o")
            .arg(&batched)
            .args(["--variant", VARIANT, "--report"])
            .current_dir(&root),
    )?;

    header("demo 4/5: compile the driver and link it with the batched bitcode");
    // The AVX2 half of the driver passes __m256 values, so its translation
    // unit is built with -mavx2 (see driver_avx2.c); main stays baseline.
    util::run(
        Command::new(&clang)
            .args(["-O2", "-mavx2", "-c"])
            .arg(example.join("driver_avx2.c"))
            .arg("-o")
            .arg(&avx2_obj)
            .current_dir(&root),
    )?;
    util::run(
        Command::new(&clang)
            .arg("-O2")
            .arg(example.join("driver.c"))
            .arg(&avx2_obj)
            .arg(&batched)
            .arg("-o")
            .arg(&exe)
            .current_dir(&root),
    )?;

    header("demo 5/5: run it");
    util::run(Command::new(&exe).current_dir(&root))
        .map_err(|e| {
        format!("{e}\nthe demo driver failed: see its output above (a MISMATCH line means the clone and the scalar function disagree)")
    })?;
    println!("\n{}", green(&format!("demo done: files in {}", util::rel(&dir).display())));
    Ok(())
}
