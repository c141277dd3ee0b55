//! `cargo batchify`: cargo with the batchify pass plugin loaded into rustc.
//!
//! `cargo batchify build|run|test|bench|rustc [cargo args]` finds the plugin
//! (`BATCHIFY_PLUGIN`, else the batchify source tree's
//! `target/release/libbatchify_plugin.so`, built there when missing or
//! older than its sources), checks that rustc's LLVM major is the plugin's,
//! and runs cargo with the rest of the arguments. See `docs/rust.md`.
//!
//! How the flags get to rustc: cargo-batchify sets itself as cargo's
//! `RUSTC_WRAPPER` (chaining to the user's own `RUSTC_WRAPPER`, if any).
//! As the wrapper, it appends `-Z llvm-plugins=<plugin> -C passes=batchify`
//! to every compiling rustc command line, after the flags cargo put there,
//! so the user's `RUSTFLAGS`, `CARGO_ENCODED_RUSTFLAGS` and
//! `build.rustflags` still apply unchanged. Cargo does not see the wrapper
//! in its fingerprints, so the plugin build gets its own target directory,
//! `<target dir>/batchify`: plugin builds and plain builds never reuse each
//! other's artifacts, and neither rebuilds the other's.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus};
use std::time::SystemTime;

/// The cargo subcommands cargo-batchify runs (the others do not generate code).
const SUBCOMMANDS: &[&str] = &["build", "b", "run", "r", "test", "t", "bench", "rustc"];

/// Set for the wrapper: the absolute path of the plugin to load.
const ENV_PLUGIN: &str = "__CARGO_BATCHIFY_PLUGIN";
/// Set for the wrapper: the user's own `RUSTC_WRAPPER`, to chain to.
const ENV_INNER_WRAPPER: &str = "__CARGO_BATCHIFY_INNER_WRAPPER";
/// Set for the wrapper: the pass parameters (`veclib=libmvec;report`), if any.
const ENV_PARAMS: &str = "__CARGO_BATCHIFY_PARAMS";
/// Set for the wrapper to `1` when rustc needs `RUSTC_BOOTSTRAP=1` for `-Z`.
const ENV_BOOTSTRAP: &str = "__CARGO_BATCHIFY_BOOTSTRAP";

/// The subdirectory of the target directory that plugin builds use.
const TARGET_SUBDIR: &str = "batchify";
/// The file in that subdirectory recording which plugin built it.
const STAMP: &str = ".batchify-plugin";
/// The bytes before the LLVM major in the plugin (`passes/src/version.rs`).
const MARKER: &[u8] = b"batchify-plugin-llvm-major=";
/// The plugin's file name.
const PLUGIN_FILE: &str = "libbatchify_plugin.so";

const HELP: &str = "\
cargo-batchify: cargo with the batchify pass plugin loaded into rustc

USAGE:
    cargo batchify [batchify options] <build|run|test|bench|rustc> [cargo args...]
    cargo batchify <check|clippy|doc|...> [cargo args...]

Runs `cargo <command> [cargo args...]` so that every crate is compiled with
`-Z llvm-plugins=<plugin> -C passes=batchify`: the `f_xN` functions that
`#[batchify::batch]` generates then run batchify's AVX2 variants. Commands
that generate no code (check, clippy, doc, ...) run as plain cargo.

The plugin is $BATCHIFY_PLUGIN if set, else
<batchify source>/target/release/libbatchify_plugin.so, which is built
there (`cargo build --release -p batchify-plugin`) when missing or older
than its sources. rustc ($RUSTC, else `rustc`) must use the plugin's LLVM
major version; `RUSTC_BOOTSTRAP=1` is set for rustc when it is not nightly.

Artifacts go to <target dir>/batchify (e.g. target/batchify/release), apart
from plain builds. Your RUSTFLAGS, CARGO_ENCODED_RUSTFLAGS, build.rustflags
and RUSTC_WRAPPER still apply. `-C remark=batchify` in RUSTFLAGS lists the
variants built.

BATCHIFY OPTIONS (before the command; passed as `-C passes=batchify<...>`,
and a change of them rebuilds every crate):
    --veclib none|libmvec    vector math library (libmvec: glibc's, 4 ulp)
    --isa sse|avx|avx2|avx512|generic
                             only build variants for this ISA
    --report                 print what was built for each clone
    --no-callers             leave call sites alone
    --for-autodiff           clones Enzyme can differentiate

OPTIONS:
    -h, --help       this text
    -V, --version    cargo-batchify's version

See docs/rust.md in the batchify repository.
";

/// Runs plain `cargo <args>` for a command that generates no code
/// (`check`, `clippy`, `doc`, `fmt`, `tree`, ...), with cargo's exit code.
fn pass_through(args: &[OsString]) -> Fallible<i32> {
    let cargo = std::env::var_os("CARGO").filter(|c| !c.is_empty()).unwrap_or_else(|| "cargo".into());
    let status = Command::new(&cargo)
        .args(args)
        .status()
        .map_err(|e| format!("cannot run {}: {e}", Path::new(&cargo).display()))?;
    Ok(exit_code(status))
}

/// Takes batchify's own options from the front of `args` (before the cargo
/// command) and returns them as pass parameters: `--veclib LIB`,
/// `--isa ISA`, `--report`, `--no-callers`, `--for-autodiff`.
fn take_batchify_options(args: &mut Vec<OsString>) -> Fallible<String> {
    let mut params: Vec<String> = Vec::new();
    while let Some(first) = args.first().map(|a| a.to_string_lossy().into_owned()) {
        let (name, inline) = match first.split_once('=') {
            Some((n, v)) => (n.to_string(), Some(v.to_string())),
            None => (first.clone(), None),
        };
        let allowed: &[&str] = match name.as_str() {
            "--veclib" => &["none", "libmvec"],
            "--isa" => &["sse", "avx", "avx2", "avx512", "generic"],
            "--report" | "--no-callers" | "--for-autodiff" if inline.is_none() => {
                params.push(name[2..].to_string());
                args.remove(0);
                continue;
            }
            _ => break,
        };
        args.remove(0);
        let value = match inline {
            Some(v) => v,
            None if !args.is_empty() => args.remove(0).to_string_lossy().into_owned(),
            None => return Err(format!("`{name}` needs a value ({})", allowed.join(", "))),
        };
        if !allowed.contains(&value.as_str()) {
            return Err(format!("`{name} {value}`: expected one of {}", allowed.join(", ")));
        }
        params.push(format!("{}={value}", &name[2..]));
    }
    Ok(params.join(";"))
}

/// An error: one line for the user.
type Fallible<T> = Result<T, String>;

fn main() {
    let args: Vec<OsString> = std::env::args_os().skip(1).collect();
    let code = match run(args) {
        Ok(code) => code,
        Err(message) => {
            eprintln!("cargo-batchify: error: {message}");
            101
        }
    };
    std::process::exit(code);
}

/// Dispatches between the wrapper (cargo calling us as `RUSTC_WRAPPER`) and
/// the command.
fn run(args: Vec<OsString>) -> Fallible<i32> {
    match std::env::var_os(ENV_PLUGIN) {
        Some(plugin) if called_as_wrapper(&args) => wrap(&plugin, &args),
        _ => command(args),
    }
}

/// Whether cargo runs us as `RUSTC_WRAPPER`: `<rustc> -vV`, `<rustc> - ...`
/// (questions about the target) or `<rustc> ... --crate-name ...`, with
/// `<rustc>` possibly `<RUSTC_WORKSPACE_WRAPPER> <rustc>`. The wrapper's
/// environment variable alone does not tell: it is inherited by everything
/// cargo runs, a nested `cargo batchify` included.
fn called_as_wrapper(args: &[OsString]) -> bool {
    let Some((first, rest)) = args.split_first() else { return false };
    let first = first.to_string_lossy();
    let command = first == "batchify" || (first != "rustc" && SUBCOMMANDS.contains(&first.as_ref()));
    if first.is_empty() || command || first.starts_with('-') {
        return false;
    }
    rest.iter().any(|a| a == "-vV" || a == "-" || a == "--crate-name")
}

/// The wrapper: runs `[inner wrapper] rustc args... <plugin flags>`.
fn wrap(plugin: &std::ffi::OsStr, args: &[OsString]) -> Fallible<i32> {
    let (rustc, rest) = args.split_first().expect("wrap is called with a rustc path");
    let mut cmd = match std::env::var_os(ENV_INNER_WRAPPER).filter(|w| !w.is_empty()) {
        Some(inner) => {
            let mut c = Command::new(inner);
            c.arg(rustc);
            c
        }
        None => Command::new(rustc),
    };
    cmd.args(rest);
    // Cargo also runs rustc through the wrapper to ask it questions
    // (`-vV`, `--print=...` with `-` as input); only compilations get the
    // plugin.
    let compiling =
        rest.iter().any(|a| a == "--crate-name") && !rest.iter().any(|a| a.to_string_lossy().starts_with("--print"));
    if compiling {
        let mut flag = OsString::from("-Zllvm-plugins=");
        flag.push(plugin);
        let params = std::env::var(ENV_PARAMS).unwrap_or_default();
        let pass = if params.is_empty() { "passes=batchify".to_string() } else { format!("passes=batchify<{params}>") };
        cmd.arg(flag).arg("-C").arg(pass);
    }
    if std::env::var_os(ENV_BOOTSTRAP).is_some_and(|v| v == "1") {
        cmd.env("RUSTC_BOOTSTRAP", "1");
    }
    let status = cmd.status().map_err(|e| format!("cannot run {}: {e}", Path::new(rustc).display()))?;
    Ok(exit_code(status))
}

/// `cargo batchify <command> [args]`.
fn command(mut args: Vec<OsString>) -> Fallible<i32> {
    // `cargo batchify ...` runs `cargo-batchify batchify ...`.
    if args.first().is_some_and(|a| a == "batchify") {
        args.remove(0);
    }
    let params = take_batchify_options(&mut args)?;
    let sub = args.first().map(|a| a.to_string_lossy().into_owned()).unwrap_or_default();
    match sub.as_str() {
        "" | "-h" | "--help" | "help" => {
            print!("{HELP}");
            return Ok(0);
        }
        "-V" | "--version" => {
            println!("cargo-batchify {}", env!("CARGO_PKG_VERSION"));
            return Ok(0);
        }
        s if SUBCOMMANDS.contains(&s) => {}
        s if s.starts_with('-') => {
            return Err(format!(
                "unknown option `{s}`: options go after the command (build, run, test, bench, rustc; see \
                 `cargo batchify --help`)"
            ))
        }
        // `check`, `clippy`, `doc`, ...: no code generation, so no plugin.
        _ => return pass_through(&args),
    }

    let rustc = std::env::var_os("RUSTC").filter(|r| !r.is_empty()).unwrap_or_else(|| "rustc".into());
    let info = RustcInfo::query(&rustc)?;
    let plugin = find_plugin()?;
    let plugin_major = plugin_llvm_major(&plugin)?;
    if plugin_major != info.llvm_major {
        return Err(format!(
            "the plugin {} is built for LLVM {plugin_major}, but {} uses LLVM {} (install LLVM {} and rebuild the plugin, \
             or use a rustc on LLVM {plugin_major})",
            plugin.display(),
            Path::new(&rustc).display(),
            info.llvm_major,
            info.llvm_major
        ));
    }

    let cargo = std::env::var_os("CARGO").filter(|c| !c.is_empty()).unwrap_or_else(|| "cargo".into());
    // Only the arguments before `--` are cargo's (`run -- args` are the program's).
    let cargo_args_end = args.iter().position(|a| a == "--").unwrap_or(args.len());
    let mut cmd = Command::new(&cargo);
    let dir = match target_dir_arg(&args[..cargo_args_end]) {
        Some((index, value)) => {
            let dir = Path::new(&value).join(TARGET_SUBDIR);
            match index {
                TargetDirArg::Separate(i) => args[i] = dir.clone().into_os_string(),
                TargetDirArg::Joined(i) => {
                    let mut joined = OsString::from("--target-dir=");
                    joined.push(&dir);
                    args[i] = joined;
                }
            }
            dir
        }
        None => {
            let dir = target_dir_of_project(&cargo, &args[..cargo_args_end])?.join(TARGET_SUBDIR);
            cmd.env("CARGO_TARGET_DIR", &dir);
            dir
        }
    };
    refresh_stamp(&dir, &plugin, &params)?;
    cmd.env(ENV_PARAMS, &params);

    let me = std::env::current_exe().map_err(|e| format!("cannot find cargo-batchify's own path: {e}"))?;
    if let Some(user) = std::env::var_os("RUSTC_WRAPPER").filter(|w| !w.is_empty() && Path::new(w) != me) {
        cmd.env(ENV_INNER_WRAPPER, user);
    } else {
        cmd.env_remove(ENV_INNER_WRAPPER);
    }
    cmd.env("RUSTC_WRAPPER", &me).env(ENV_PLUGIN, &plugin);
    if !info.nightly && std::env::var_os("RUSTC_BOOTSTRAP").is_none() {
        cmd.env(ENV_BOOTSTRAP, "1");
    } else {
        cmd.env_remove(ENV_BOOTSTRAP);
    }
    let status = cmd.args(&args).status().map_err(|e| format!("cannot run {}: {e}", Path::new(&cargo).display()))?;
    Ok(exit_code(status))
}

/// The process's exit code as a shell reports it (128 + signal if killed).
fn exit_code(status: ExitStatus) -> i32 {
    if let Some(code) = status.code() {
        return code;
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return 128 + signal;
        }
    }
    101
}

/// What `rustc -vV` says.
struct RustcInfo {
    /// The major version of the LLVM it uses.
    llvm_major: u32,
    /// Whether it accepts `-Z` flags by itself.
    nightly: bool,
}

impl RustcInfo {
    fn query(rustc: &std::ffi::OsStr) -> Fallible<Self> {
        let shown = Path::new(rustc).display();
        let out = Command::new(rustc).arg("-vV").output().map_err(|e| format!("cannot run `{shown} -vV`: {e}"))?;
        if !out.status.success() {
            let stderr = String::from_utf8_lossy(&out.stderr);
            return Err(format!("`{shown} -vV` failed: {}", stderr.lines().next().unwrap_or("").trim()));
        }
        Self::parse(&String::from_utf8_lossy(&out.stdout))
            .ok_or_else(|| format!("`{shown} -vV` reports no LLVM version"))
    }

    fn parse(text: &str) -> Option<Self> {
        let field = |name: &str| text.lines().find_map(|l| l.strip_prefix(name)).map(str::trim);
        let llvm = field("LLVM version:")?;
        let llvm_major = llvm.split('.').next()?.parse().ok()?;
        let release = field("release:").unwrap_or("");
        Some(Self { llvm_major, nightly: release.contains("nightly") || release.contains("-dev") })
    }
}

/// The batchify source tree cargo-batchify was built from (a path install's
/// repository).
fn source_tree() -> PathBuf {
    let tree = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    tree.canonicalize().unwrap_or(tree)
}

/// The plugin to load, absolute: `BATCHIFY_PLUGIN`, else the source tree's
/// release build, built first when missing or older than its sources.
fn find_plugin() -> Fallible<PathBuf> {
    if let Some(p) = std::env::var_os("BATCHIFY_PLUGIN").filter(|p| !p.is_empty()) {
        let path = PathBuf::from(p);
        if !path.is_file() {
            return Err(format!("BATCHIFY_PLUGIN={} is not a file", path.display()));
        }
        return absolute(&path);
    }
    let tree = source_tree();
    let so = tree.join("target/release").join(PLUGIN_FILE);
    if !tree.join("passes/Cargo.toml").is_file() {
        if so.is_file() {
            return absolute(&so);
        }
        return Err(format!(
            "no plugin: set BATCHIFY_PLUGIN to a built {PLUGIN_FILE} (the batchify source tree {} is gone)",
            tree.display()
        ));
    }
    // When cargo finds the plugin fresh although a source is newer (a
    // change that does not affect it), it leaves the .so as it is; the
    // `checked` file records that cargo was asked, so it is not asked again.
    let checked = tree.join("target/release").join(CHECKED);
    let built = modified(&so).map(|so| so.max(modified(&checked).unwrap_or(so)));
    if built.is_none() || newest_source(&tree) > built {
        build_plugin(&tree)?;
        if !so.is_file() {
            return Err(format!("building the plugin did not produce {}", so.display()));
        }
        let _ = std::fs::write(&checked, "cargo build --release -p batchify-plugin was run by cargo-batchify\n");
    }
    absolute(&so)
}

/// Next to the release plugin: when cargo-batchify last had it built.
const CHECKED: &str = ".cargo-batchify-plugin-checked";

/// The plugin's sources: what a change of makes the release build stale.
fn plugin_sources(tree: &Path) -> Vec<PathBuf> {
    let mut sources: Vec<PathBuf> =
        ["Cargo.toml", "build.rs", "src", "shim"].iter().map(|p| tree.join("passes").join(p)).collect();
    sources.extend(["Cargo.toml", "src"].iter().map(|p| tree.join("crates/batchify-core").join(p)));
    sources.extend(["Cargo.toml", "Cargo.lock", "tools/llvm-prefix.sh"].iter().map(|p| tree.join(p)));
    sources
}

/// The newest modification time among the plugin's sources.
fn newest_source(tree: &Path) -> Option<SystemTime> {
    fn walk(path: &Path, newest: &mut Option<SystemTime>) {
        let Ok(meta) = path.metadata() else { return };
        if meta.is_dir() {
            for entry in std::fs::read_dir(path).into_iter().flatten().flatten() {
                walk(&entry.path(), newest);
            }
        } else if let Ok(time) = meta.modified() {
            *newest = (*newest).max(Some(time));
        }
    }
    let mut newest = None;
    for path in plugin_sources(tree) {
        walk(&path, &mut newest);
    }
    newest
}

fn modified(path: &Path) -> Option<SystemTime> {
    path.metadata().and_then(|m| m.modified()).ok()
}

/// `cargo build --release -p batchify-plugin` in the source tree, into its
/// own `target/`, with none of this build's flags or wrapper.
fn build_plugin(tree: &Path) -> Fallible<()> {
    eprintln!("cargo-batchify: building the plugin: cargo build --release -p batchify-plugin (in {})", tree.display());
    let cargo = std::env::var_os("CARGO").filter(|c| !c.is_empty()).unwrap_or_else(|| "cargo".into());
    let status = Command::new(cargo)
        .args(["build", "--release", "-p", "batchify-plugin", "--manifest-path"])
        .arg(tree.join("Cargo.toml"))
        .arg("--target-dir")
        .arg(tree.join("target"))
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .env_remove("RUSTC_WRAPPER")
        .env_remove("CARGO_TARGET_DIR")
        .env_remove("CARGO_BUILD_TARGET_DIR")
        .env_remove(ENV_PLUGIN)
        .status()
        .map_err(|e| format!("cannot run cargo to build the plugin: {e}"))?;
    if !status.success() {
        return Err(format!(
            "building the plugin in {} failed (see above); or set BATCHIFY_PLUGIN to a built {PLUGIN_FILE}",
            tree.display()
        ));
    }
    Ok(())
}

fn absolute(path: &Path) -> Fallible<PathBuf> {
    path.canonicalize().map_err(|e| format!("cannot resolve {}: {e}", path.display()))
}

/// The LLVM major version the plugin was built for, from the marker in its
/// bytes (`passes/src/version.rs`): the plugin cannot be loaded outside an
/// LLVM process.
fn plugin_llvm_major(plugin: &Path) -> Fallible<u32> {
    let bytes = std::fs::read(plugin).map_err(|e| format!("cannot read {}: {e}", plugin.display()))?;
    marker_major(&bytes).ok_or_else(|| {
        format!(
            "{} has no LLVM version marker: it is not batchify's plugin, or is older than cargo-batchify \
             (rebuild it: cargo build --release -p batchify-plugin)",
            plugin.display()
        )
    })
}

/// The number after [`MARKER`] in `bytes`, up to the NUL.
fn marker_major(bytes: &[u8]) -> Option<u32> {
    let start = bytes.windows(MARKER.len()).position(|w| w == MARKER)? + MARKER.len();
    let digits = &bytes[start..];
    let end = digits.iter().position(|&b| b == 0)?;
    std::str::from_utf8(&digits[..end]).ok()?.parse().ok()
}

/// Where a `--target-dir` value sits in cargo's arguments.
enum TargetDirArg {
    /// `--target-dir DIR`: the index of `DIR`.
    Separate(usize),
    /// `--target-dir=DIR`: the index of the whole argument.
    Joined(usize),
}

/// The user's `--target-dir`, if given, and where.
fn target_dir_arg(args: &[OsString]) -> Option<(TargetDirArg, OsString)> {
    let mut found = None;
    for (i, arg) in args.iter().enumerate() {
        if arg == "--target-dir" {
            found = args.get(i + 1).map(|v| (TargetDirArg::Separate(i + 1), v.clone()));
        } else if let Some(v) = arg.to_str().and_then(|a| a.strip_prefix("--target-dir=")) {
            found = Some((TargetDirArg::Joined(i), v.into()));
        }
    }
    found
}

/// The project's target directory as cargo resolves it (`CARGO_TARGET_DIR`,
/// `build.target-dir` in config, else the workspace's `target/`), from
/// `cargo metadata`.
fn target_dir_of_project(cargo: &std::ffi::OsStr, args: &[OsString]) -> Fallible<PathBuf> {
    let mut cmd = Command::new(cargo);
    cmd.args(["metadata", "--no-deps", "--format-version", "1"]);
    // The options that change which project or config cargo reads.
    let mut i = 0;
    while i < args.len() {
        let a = args[i].to_string_lossy();
        if a == "--manifest-path" || a == "--config" || a == "-Z" {
            cmd.args(&args[i..(i + 2).min(args.len())]);
            i += 1;
        } else if a.starts_with("--manifest-path=") || a.starts_with("--config=") {
            cmd.arg(&args[i]);
        }
        i += 1;
    }
    let out = cmd.output().map_err(|e| format!("cannot run cargo metadata: {e}"))?;
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        let line =
            stderr.lines().find(|l| l.starts_with("error")).unwrap_or_else(|| stderr.lines().next().unwrap_or(""));
        return Err(format!("cannot find the target directory (cargo metadata): {}", line.trim()));
    }
    json_string_field(&String::from_utf8_lossy(&out.stdout), "target_directory")
        .map(PathBuf::from)
        .ok_or_else(|| "cargo metadata printed no target_directory".to_string())
}

/// The value of the first `"name":"..."` string field in JSON text.
fn json_string_field(json: &str, name: &str) -> Option<String> {
    let key = format!("\"{name}\":");
    let rest = json[json.find(&key)? + key.len()..].trim_start().strip_prefix('"')?;
    let mut out = String::new();
    let mut chars = rest.chars();
    loop {
        match chars.next()? {
            '"' => return Some(out),
            '\\' => match chars.next()? {
                'n' => out.push('\n'),
                't' => out.push('\t'),
                'r' => out.push('\r'),
                'b' => out.push('\u{8}'),
                'f' => out.push('\u{c}'),
                'u' => {
                    let hex: String = chars.by_ref().take(4).collect();
                    out.push(char::from_u32(u32::from_str_radix(&hex, 16).ok()?)?);
                }
                c => out.push(c),
            },
            c => out.push(c),
        }
    }
}

/// Makes sure `dir` holds only artifacts built with `plugin` as it is now.
/// Cargo's fingerprints do not see the plugin, so when it changed (another
/// file, or rebuilt), the directory is emptied and everything is rebuilt.
fn refresh_stamp(dir: &Path, plugin: &Path, params: &str) -> Fallible<()> {
    let meta = plugin.metadata().map_err(|e| format!("cannot read {}: {e}", plugin.display()))?;
    let time = meta.modified().ok().and_then(|t| t.duration_since(SystemTime::UNIX_EPOCH).ok()).unwrap_or_default();
    let identity = format!(
        "{}\n{} bytes\nmodified {}.{:09}\nparameters {params}\n",
        plugin.display(),
        meta.len(),
        time.as_secs(),
        time.subsec_nanos()
    );
    let stamp = dir.join(STAMP);
    match std::fs::read_to_string(&stamp) {
        Ok(old) if old == identity => return Ok(()),
        Ok(_) => {
            eprintln!(
                "cargo-batchify: the plugin or its options changed since {} was built: removing it so that every crate is \
                 rebuilt",
                dir.display()
            );
            std::fs::remove_dir_all(dir).map_err(|e| format!("cannot remove {}: {e}", dir.display()))?;
        }
        Err(_) => {}
    }
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    std::fs::write(&stamp, identity).map_err(|e| format!("cannot write {}: {e}", stamp.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn os(args: &[&str]) -> Vec<OsString> {
        args.iter().map(OsString::from).collect()
    }

    #[test]
    fn batchify_options_become_pass_parameters() {
        let mut args = os(&["--veclib", "libmvec", "--report", "--isa=avx2", "build", "--report"]);
        assert_eq!(take_batchify_options(&mut args).unwrap(), "veclib=libmvec;report;isa=avx2");
        assert_eq!(args, os(&["build", "--report"]), "cargo's own arguments are left");
        let mut args = os(&["build"]);
        assert_eq!(take_batchify_options(&mut args).unwrap(), "");
        assert!(take_batchify_options(&mut os(&["--veclib"])).unwrap_err().contains("needs a value"));
        assert!(take_batchify_options(&mut os(&["--isa", "neon", "build"])).unwrap_err().contains("expected one of"));
    }

    #[test]
    fn wrapper_calls_are_told_from_commands() {
        assert!(called_as_wrapper(&os(&["rustc", "-vV"])));
        assert!(called_as_wrapper(&os(&["/x/rustc", "-", "--crate-name", "___", "--print=file-names"])));
        assert!(called_as_wrapper(&os(&["rustc", "--crate-name", "foo", "--edition=2021", "src/lib.rs"])));
        assert!(called_as_wrapper(&os(&["/ws-wrapper", "/x/rustc", "-vV"])));
        assert!(called_as_wrapper(&os(&["/ws-wrapper", "/x/rustc", "--crate-name", "foo"])));
        assert!(!called_as_wrapper(&os(&["batchify", "rustc", "--crate-name", "foo"])));
        assert!(!called_as_wrapper(&os(&["run", "--", "-"])));
        assert!(!called_as_wrapper(&os(&["rustc", "--release", "--", "--emit=llvm-ir"])));
        assert!(!called_as_wrapper(&os(&["build", "--release"])));
        assert!(!called_as_wrapper(&os(&["--help"])));
        assert!(!called_as_wrapper(&[]));
    }

    #[test]
    fn rustc_version_parsing() {
        let stable = "rustc 1.95.0 (59807616e 2026-04-14)\nbinary: rustc\nrelease: 1.95.0\nLLVM version: 22.1.2\n";
        let info = RustcInfo::parse(stable).unwrap();
        assert_eq!((info.llvm_major, info.nightly), (22, false));
        let nightly = "rustc 1.97.0-nightly\nrelease: 1.97.0-nightly\nLLVM version: 23.0.0\n";
        let info = RustcInfo::parse(nightly).unwrap();
        assert_eq!((info.llvm_major, info.nightly), (23, true));
        assert!(RustcInfo::parse("rustc 1.0.0\nrelease: 1.0.0\n").is_none());
    }

    #[test]
    fn marker_is_found_in_bytes() {
        let mut bytes = vec![7u8; 100];
        bytes.extend_from_slice(b"batchify-plugin-llvm-major=22\0tail");
        assert_eq!(marker_major(&bytes), Some(22));
        assert_eq!(marker_major(b"batchify-plugin-llvm-major=22"), None, "no NUL: not a marker");
        assert_eq!(marker_major(b"nothing here"), None);
    }

    #[test]
    fn json_field_with_escapes() {
        let json = r#"{"packages":[],"target_directory":"/a \"b\"\\c\u00e9","version":1}"#;
        assert_eq!(json_string_field(json, "target_directory").as_deref(), Some("/a \"b\"\\c\u{e9}"));
        assert_eq!(json_string_field(json, "workspace_root"), None);
    }

    #[test]
    fn target_dir_argument_forms() {
        let args = os(&["build", "--target-dir", "t1", "--target-dir=t2"]);
        let (at, value) = target_dir_arg(&args).unwrap();
        assert!(matches!(at, TargetDirArg::Joined(3)));
        assert_eq!(value, "t2");
        let (at, value) = target_dir_arg(&args[..3]).unwrap();
        assert!(matches!(at, TargetDirArg::Separate(2)));
        assert_eq!(value, "t1");
        assert!(target_dir_arg(&args[..1]).is_none());
    }

    #[test]
    fn stamp_empties_the_directory_when_the_plugin_changes() {
        let tmp = std::env::temp_dir().join(format!("cargo-batchify-stamp-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&tmp);
        std::fs::create_dir_all(&tmp).unwrap();
        let (plugin, dir) = (tmp.join("plugin.so"), tmp.join("batchify"));
        std::fs::write(&plugin, b"one").unwrap();
        refresh_stamp(&dir, &plugin, "").unwrap();
        std::fs::write(dir.join("artifact"), b"x").unwrap();
        refresh_stamp(&dir, &plugin, "").unwrap();
        assert!(dir.join("artifact").exists(), "same plugin: artifacts kept");
        std::fs::write(&plugin, b"a longer plugin").unwrap();
        refresh_stamp(&dir, &plugin, "").unwrap();
        assert!(!dir.join("artifact").exists(), "changed plugin: artifacts removed");
        assert!(dir.join(STAMP).exists());
        std::fs::remove_dir_all(&tmp).unwrap();
    }
}
