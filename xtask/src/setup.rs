//! `cargo xtask setup`: makes sure LLVM 22 is installed. The checks and the
//! apt-get install live in `tools/setup-llvm.sh` (one source of truth, usable
//! without cargo); this runs it and hands the LLVM prefix to later steps.

use crate::util::{self, header};
use std::path::PathBuf;
use std::process::Command;

/// The environment the other commands run in once setup succeeded.
pub struct Env {
    /// LLVM 22's prefix, normally `/usr/lib/llvm-22`.
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

    /// `cargo ARGS` in the workspace root, with `LLVM_SYS_221_PREFIX` set.
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

    let out = Command::new("bash")
        .arg(script())
        .arg("--print-prefix")
        .output()
        .map_err(|e| format!("cannot run tools/setup-llvm.sh --print-prefix: {e}"))?;
    let prefix = String::from_utf8_lossy(&out.stdout).trim().to_string();
    if !out.status.success() || prefix.is_empty() {
        return Err("tools/setup-llvm.sh --print-prefix printed no LLVM prefix".to_string());
    }
    println!("LLVM_SYS_221_PREFIX={prefix} (xtask sets it for the cargo commands it runs)\n");
    Ok(Env { llvm_prefix: PathBuf::from(prefix) })
}

pub fn run(args: &[String]) -> Result<(), String> {
    let check_only = util::flags(args, &["--check"])?.contains(&"--check");
    ensure(!check_only).map(|_| ())
}
