//! `cargo xtask setup`: makes sure LLVM 22 is installed. The checks and the
//! apt-get install live in `tools/setup-llvm.sh` (one source of truth, usable
//! without cargo); this runs it and hands the LLVM prefix, which
//! `tools/llvm-prefix.sh` decides, to later steps.

use crate::util::{self, header};
use std::path::PathBuf;
use std::process::Command;

/// The environment the other commands run in once setup succeeded.
pub struct Env {
    /// LLVM 22's prefix (from `tools/llvm-prefix.sh`), normally `/usr/lib/llvm-22`.
    pub llvm_prefix: PathBuf,
}

impl Env {
    /// `$prefix/bin/NAME`.
    pub fn llvm_bin(&self, name: &str) -> PathBuf {
        self.llvm_prefix.join("bin").join(name)
    }

    /// The `clang-22` driver.
    pub fn clang(&self) -> PathBuf {
        let in_prefix = self.llvm_bin("clang-22");
        if in_prefix.exists() {
            in_prefix
        } else {
            PathBuf::from("clang-22")
        }
    }

    /// `cargo ARGS` in the workspace root, with `LLVM_SYS_221_PREFIX` set
    /// to the prefix, so that llvm-sys and `build.rs` use the same one.
    pub fn cargo(&self, args: &[&str]) -> Command {
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let mut cmd = Command::new(cargo);
        cmd.args(args).current_dir(util::root()).env("LLVM_SYS_221_PREFIX", &self.llvm_prefix);
        cmd
    }
}

fn script() -> PathBuf {
    util::root().join("tools").join("setup-llvm.sh")
}

/// The LLVM 22 prefix, as `tools/llvm-prefix.sh` (the one place that
/// decides it) prints it.
pub fn llvm_prefix() -> Result<PathBuf, String> {
    let out = Command::new("bash")
        .arg(util::root().join("tools").join("llvm-prefix.sh"))
        .output()
        .map_err(|e| format!("cannot run tools/llvm-prefix.sh: {e}"))?;
    let prefix = String::from_utf8_lossy(&out.stdout).trim().to_string();
    if !out.status.success() || prefix.is_empty() {
        return Err("tools/llvm-prefix.sh printed no LLVM prefix".to_string());
    }
    Ok(PathBuf::from(prefix))
}

/// Checks (and with `install`, installs) LLVM 22; returns the environment
/// for the next steps.
pub fn ensure(install: bool) -> Result<Env, String> {
    header("setup: LLVM 22 toolchain");
    let mut cmd = Command::new("bash");
    cmd.arg(script()).current_dir(util::root());
    if !install {
        cmd.arg("--check");
    }
    util::run(&mut cmd)
        .map_err(|e| format!("{e}\nLLVM 22 is missing or incomplete: see the messages of tools/setup-llvm.sh above"))?;

    let prefix = llvm_prefix()?;
    println!("LLVM_SYS_221_PREFIX={} (xtask sets it for the cargo commands it runs)\n", prefix.display());
    Ok(Env { llvm_prefix: prefix })
}

pub fn run(args: &[String]) -> Result<(), String> {
    let check_only = util::flags(args, &["--check"])?.contains(&"--check");
    ensure(!check_only).map(|_| ())
}
