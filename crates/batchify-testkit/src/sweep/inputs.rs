//! Inputs: fetching the code bases' sources and building them into bitcode
//! modules under `target/sweep/`.

use super::parent::{lock, Input};
use super::report::Provenance;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

/// What to build.
#[derive(Debug, Clone)]
pub struct InputConfig {
    /// `target/sweep`.
    pub out: PathBuf,
    /// `tools/sweep` (the pinned manifests).
    pub tools: PathBuf,
    /// The bounded subset: zlib at -O2 and small Rust crates at opt-level 2.
    pub quick: bool,
    /// Parallel compiler processes.
    pub jobs: usize,
    /// Only these code bases (empty: all).
    pub only: Vec<String>,
}

/// `NAME` in the LLVM prefix's `bin` (`tools/llvm-prefix.sh` decides the
/// prefix), else on `PATH`.
fn llvm_tool(name: &str) -> PathBuf {
    batchify_llvm_link::llvm_tool(name)
}

fn run_cmd(cmd: &mut Command, what: &str) -> Result<String, String> {
    let out = cmd.output().map_err(|e| format!("{what}: cannot run {:?}: {e}", cmd.get_program()))?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        let tail: Vec<&str> = err.lines().rev().take(12).collect();
        return Err(format!(
            "{what} failed ({}):\n{}",
            out.status,
            tail.into_iter().rev().collect::<Vec<_>>().join("\n")
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

fn cargo() -> Command {
    Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
}

/// Copies `tools/sweep/<manifest>` into `dir/Cargo.toml` and fetches it.
fn fetch_project(cfg: &InputConfig, manifest: &str, dir: &Path) -> Result<(), String> {
    std::fs::create_dir_all(dir.join("src")).map_err(|e| e.to_string())?;
    let text = std::fs::read_to_string(cfg.tools.join(manifest))
        .map_err(|e| format!("cannot read tools/sweep/{manifest}: {e}"))?;
    let target = dir.join("Cargo.toml");
    if std::fs::read_to_string(&target).ok().as_deref() != Some(text.as_str()) {
        std::fs::write(&target, text).map_err(|e| e.to_string())?;
    }
    if !dir.join("src/lib.rs").exists() {
        std::fs::write(dir.join("src/lib.rs"), "").map_err(|e| e.to_string())?;
    }
    let online = run_cmd(cargo().arg("fetch").arg("--manifest-path").arg(&target), "cargo fetch");
    if let Err(e) = online {
        run_cmd(cargo().args(["fetch", "--offline", "--manifest-path"]).arg(&target), "cargo fetch --offline")
            .map_err(|_| {
                format!(
                "the sweep needs its source crates from crates.io and cannot fetch them (offline, and they are not in \
                 cargo's cache): {e}"
            )
            })?;
    }
    Ok(())
}

/// `name -> (version, source dir)` of the packages of a fetched project.
fn package_dirs(dir: &Path) -> Result<BTreeMap<String, (String, PathBuf)>, String> {
    let json = run_cmd(
        cargo().args(["metadata", "--format-version", "1", "--offline", "--manifest-path"]).arg(dir.join("Cargo.toml")),
        "cargo metadata",
    )?;
    let mut out = BTreeMap::new();
    for piece in json.split("\"manifest_path\":\"").skip(1) {
        let Some(end) = piece.find('"') else { continue };
        let path = PathBuf::from(piece[..end].replace("\\\\", "\\"));
        let Some(pkg_dir) = path.parent() else { continue };
        let dname = pkg_dir.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        // `<name>-<version>`: the version starts at the first `-` followed by a digit
        // (`lz4-sys-1.11.1+lz4-1.10.0`).
        let split =
            dname.char_indices().find(|&(i, c)| c == '-' && dname[i + 1..].starts_with(|d: char| d.is_ascii_digit()));
        if let Some((i, _)) = split {
            out.insert(dname[..i].to_string(), (dname[i + 1..].to_string(), pkg_dir.to_path_buf()));
        }
    }
    Ok(out)
}

struct CJob {
    src: PathBuf,
    out: PathBuf,
    flags: Vec<String>,
    o0: bool,
}

fn compile_c(job: &CJob) -> Result<(), String> {
    if job.out.exists() {
        return Ok(());
    }
    let tmp = job.out.with_extension("tmp.bc");
    let mut clang = Command::new(llvm_tool("clang-22"));
    clang.args(["-c", "-emit-llvm", "-w", "-g0"]).args(&job.flags);
    if job.o0 {
        clang.args(["-O0", "-Xclang", "-disable-O0-optnone"]);
    } else {
        clang.arg("-O2");
    }
    clang.arg(&job.src).arg("-o").arg(&tmp);
    run_cmd(&mut clang, &format!("clang-22 {}", job.src.display()))?;
    if job.o0 {
        run_cmd(
            Command::new(llvm_tool("opt-22")).args(["-passes=mem2reg", "-o"]).arg(&job.out).arg(&tmp),
            "opt-22 -passes=mem2reg",
        )?;
        let _ = std::fs::remove_file(&tmp);
    } else {
        std::fs::rename(&tmp, &job.out).map_err(|e| e.to_string())?;
    }
    Ok(())
}

fn parallel<T: Sync, R: Send>(items: &[T], jobs: usize, f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let next = Mutex::new(0usize);
    let results: Mutex<Vec<(usize, R)>> = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..jobs.max(1) {
            s.spawn(|| loop {
                let i = {
                    let mut n = lock(&next);
                    let i = *n;
                    *n += 1;
                    i
                };
                let Some(item) = items.get(i) else { break };
                let r = f(item);
                lock(&results).push((i, r));
            });
        }
    });
    let mut v = results.into_inner().unwrap_or_else(|e| e.into_inner());
    v.sort_by_key(|(i, _)| *i);
    v.into_iter().map(|(_, r)| r).collect()
}

fn c_files(dir: &Path, names: Option<&[&str]>) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = match std::fs::read_dir(dir) {
        Ok(rd) => {
            rd.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.extension().is_some_and(|x| x == "c")).collect()
        }
        Err(_) => Vec::new(),
    };
    if let Some(names) = names {
        v.retain(|p| p.file_stem().is_some_and(|s| names.contains(&s.to_string_lossy().as_ref())));
    }
    v.sort();
    v
}

/// A C code base: sources, flags.
struct CBase {
    name: &'static str,
    files: Vec<PathBuf>,
    flags: Vec<String>,
    /// Support code linked into each module, not swept (see [`SHIM_SECTION`]).
    shims: Vec<PathBuf>,
}

fn build_c(
    cfg: &InputConfig,
    base: &CBase,
    levels: &[&str],
    inputs: &mut Vec<Input>,
    notes: &mut Vec<String>,
) -> Result<usize, String> {
    let mut jobs = Vec::new();
    for level in levels {
        let dir = cfg.out.join("bc").join(base.name).join(if *level == "O2" { "O2" } else { "O0" });
        std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
        for f in &base.files {
            let stem = f.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
            // newlib has math/ and common/ files; keep the folder in the name.
            let parent =
                f.parent().and_then(|p| p.file_name()).map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
            jobs.push((
                level.to_string(),
                CJob {
                    src: f.clone(),
                    out: dir.join(format!("{parent}_{stem}.bc")),
                    flags: base.flags.clone(),
                    o0: *level != "O2",
                },
            ));
        }
    }
    let results = parallel(&jobs, cfg.jobs, |(_, j)| compile_c(j));
    let mut failed = 0;
    let mut built: BTreeMap<String, Vec<PathBuf>> = BTreeMap::new();
    for ((level, job), r) in jobs.iter().zip(results) {
        match r {
            Ok(()) => built.entry(level.clone()).or_default().push(job.out.clone()),
            Err(e) => {
                failed += 1;
                if failed <= 3 {
                    notes.push(format!(
                        "{}: {} does not compile, skipped: {}",
                        base.name,
                        job.src.display(),
                        e.lines().find(|l| l.contains("error:")).unwrap_or("").trim()
                    ));
                }
            }
        }
    }
    if failed > 3 {
        notes.push(format!("{}: {} more files do not compile", base.name, failed - 3));
    }
    // One module per level, as LTO would see it: calls between files resolve,
    // so the oracle can run functions that call into other files.
    for level in levels {
        let Some(files) = built.get(*level) else { continue };
        let dir = cfg.out.join("bc").join(base.name);
        let linked = dir.join(format!("{}-{}.bc", base.name, if *level == "O2" { "O2" } else { "O0" }));
        let link = if linked.exists() {
            Ok(String::new())
        } else {
            let tmp = linked.with_extension("tmp.bc");
            let mut shims = Vec::new();
            for shim in &base.shims {
                let out =
                    dir.join(format!("shim-{}.bc", shim.file_stem().map(|s| s.to_string_lossy()).unwrap_or_default()));
                compile_c(&CJob { src: shim.clone(), out: out.clone(), flags: Vec::new(), o0: false })?;
                shims.push(out);
            }
            run_cmd(
                Command::new(llvm_tool("llvm-link-22")).arg("-o").arg(&tmp).args(files).args(&shims),
                "llvm-link-22",
            )
            .and_then(|o| std::fs::rename(&tmp, &linked).map(|_| o).map_err(|e| e.to_string()))
        };
        match link {
            Ok(_) => inputs.push(Input { codebase: base.name.into(), level: level.to_string(), path: linked }),
            Err(e) => {
                notes.push(format!(
                    "{} {level}: llvm-link-22 failed, one module per file: {}",
                    base.name,
                    e.lines().nth(1).unwrap_or("")
                ));
                for f in files {
                    inputs.push(Input { codebase: base.name.into(), level: level.to_string(), path: f.clone() });
                }
            }
        }
    }
    Ok(built.values().map(Vec::len).max().unwrap_or(0))
}

fn newlib_sources(cfg: &InputConfig) -> Result<(PathBuf, String), String> {
    let dl = cfg.out.join("downloads");
    std::fs::create_dir_all(&dl).map_err(|e| e.to_string())?;
    let find_deb = || -> Option<PathBuf> {
        std::fs::read_dir(&dl).ok()?.filter_map(|e| e.ok().map(|e| e.path())).find(|p| {
            let n = p.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
            n.starts_with("newlib-source_") && n.ends_with(".deb")
        })
    };
    if find_deb().is_none() {
        run_cmd(
            Command::new("apt-get").args(["download", "newlib-source"]).current_dir(&dl),
            "apt-get download newlib-source",
        )
        .map_err(|e| {
            format!("the newlib code base needs Debian's newlib-source package (apt-get download newlib-source): {e}")
        })?;
    }
    let deb = find_deb().ok_or("apt-get download newlib-source left no .deb")?;
    let version = deb.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let version = version.trim_start_matches("newlib-source_").trim_end_matches("_all.deb").to_string();
    let src = cfg.out.join("src").join("newlib");
    let marker = src.join(".extracted");
    if !marker.exists() {
        let _ = std::fs::remove_dir_all(&src);
        std::fs::create_dir_all(&src).map_err(|e| e.to_string())?;
        let deb_dir = src.join("deb");
        run_cmd(Command::new("dpkg-deb").arg("-x").arg(&deb).arg(&deb_dir), "dpkg-deb -x")?;
        let tarball = walk_find(&deb_dir, |p| p.to_string_lossy().ends_with(".tar.xz"))
            .ok_or("no newlib tarball in newlib-source")?;
        run_cmd(
            Command::new("tar").arg("xJf").arg(&tarball).arg("-C").arg(&src).args([
                "--wildcards",
                "*/newlib/libm/math/*",
                "*/newlib/libm/common/*",
                "*/newlib/libc/include/*",
            ]),
            "tar xJf newlib",
        )?;
        let _ = std::fs::remove_dir_all(&deb_dir);
        std::fs::write(&marker, "").map_err(|e| e.to_string())?;
    }
    let libm =
        walk_find(&src, |p| p.ends_with("newlib/libm") && p.is_dir()).ok_or("no newlib/libm in the newlib tarball")?;
    Ok((libm, version))
}

fn walk_find(dir: &Path, pred: impl Fn(&Path) -> bool + Copy) -> Option<PathBuf> {
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else { continue };
        let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
        entries.sort();
        for p in entries {
            if pred(&p) {
                return Some(p);
            }
            if p.is_dir() {
                stack.push(p);
            }
        }
    }
    None
}

/// Rust crates built at opt-level 2 only: regex-syntax has 2,908 functions
/// at opt-level 0 (mostly monomorphised `core`/`alloc` helpers), which
/// would add about 12,000 runs (close to an hour on two shared cores).
const RUST_OPT2_ONLY: &[&str] = &["regex-syntax"];

/// The Rust crates and their pinned versions, from `tools/sweep/rust-crates.toml`.
fn rust_crates(cfg: &InputConfig) -> Result<Vec<(String, String)>, String> {
    let text = std::fs::read_to_string(cfg.tools.join("rust-crates.toml")).map_err(|e| e.to_string())?;
    let mut in_deps = false;
    let mut out = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_deps = line == "[dependencies]";
            continue;
        }
        if !in_deps || line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some((name, rest)) = line.split_once('=') {
            let version: String = rest.chars().filter(|c| c.is_ascii_digit() || *c == '.').collect();
            out.push((name.trim().to_string(), version));
        }
    }
    Ok(out)
}

fn build_rust(cfg: &InputConfig, crates: &[String], opt: &str, inputs: &mut Vec<Input>) -> Result<(), String> {
    let dir = cfg.out.join("rust-crates");
    let target_dir = cfg.out.join("rust-build").join(format!("opt{opt}"));
    let triple = "x86_64-unknown-linux-gnu";
    let mut cmd = cargo();
    cmd.args(["build", "--release", "--offline", "--target", triple, "--manifest-path"])
        .arg(dir.join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", &target_dir)
        .env("CARGO_PROFILE_RELEASE_OPT_LEVEL", opt)
        .env("CARGO_PROFILE_RELEASE_CODEGEN_UNITS", "1")
        .env("CARGO_PROFILE_RELEASE_DEBUG", "0")
        .env("RUSTFLAGS", "--emit=llvm-bc,link -C codegen-units=1")
        .env_remove("RUSTC_WRAPPER")
        .env_remove("CARGO_ENCODED_RUSTFLAGS");
    for c in crates {
        cmd.args(["-p", c]);
    }
    run_cmd(&mut cmd, &format!("cargo build of the Rust crates at opt-level {opt}"))?;
    let deps = target_dir.join(triple).join("release").join("deps");
    let files: Vec<PathBuf> = std::fs::read_dir(&deps)
        .map_err(|e| format!("{}: {e}", deps.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "bc"))
        .collect();
    for c in crates {
        let prefix = format!("{}-", c.replace('-', "_"));
        let newest = files
            .iter()
            .filter(|p| p.file_name().is_some_and(|n| n.to_string_lossy().starts_with(&prefix)))
            .max_by_key(|p| p.metadata().and_then(|m| m.modified()).ok());
        let Some(bc) = newest else { return Err(format!("no bitcode for crate {c} in {}", deps.display())) };
        inputs.push(Input { codebase: format!("rust:{c}"), level: format!("opt-level={opt}"), path: bc.clone() });
    }
    Ok(())
}

/// Fetches and builds the code bases; returns the modules and provenance
/// lines (code base, version, how it was built).
pub fn prepare_inputs(cfg: &InputConfig) -> Result<(Vec<Input>, Provenance), String> {
    let want = |name: &str| cfg.only.is_empty() || cfg.only.iter().any(|o| o == name || format!("rust:{o}") == name);
    let mut inputs = Vec::new();
    let mut prov = Vec::new();
    let mut notes = Vec::new();
    let c_levels: &[&str] = if cfg.quick { &["O2"] } else { &["O2", "O0+mem2reg"] };
    let c_how = "clang-22 -O2, and clang-22 -O0 -Xclang -disable-O0-optnone + opt-22 -passes=mem2reg; \
                 llvm-link-22 into one module per level";
    let c_how = if cfg.quick { "clang-22 -O2; llvm-link-22 into one module" } else { c_how };

    let needs_c = ["zlib", "lz4"].iter().any(|n| want(n));
    if needs_c {
        let dir = cfg.out.join("fetch-c");
        fetch_project(cfg, "c-crates.toml", &dir)?;
        let pk = package_dirs(&dir)?;
        if want("zlib") {
            let (v, d) = pk.get("libz-sys").ok_or("libz-sys not among the fetched packages")?;
            let files = c_files(&d.join("src").join("zlib"), None);
            if files.is_empty() {
                return Err(format!("no zlib sources in {}", d.display()));
            }
            let zver = std::fs::read_to_string(d.join("src/zlib/zlib.h"))
                .ok()
                .and_then(|h| {
                    h.lines()
                        .find(|l| l.starts_with("#define ZLIB_VERSION"))
                        .map(|l| l.split('"').nth(1).unwrap_or("").to_string())
                })
                .unwrap_or_default();
            prov.push(format!(
                "zlib {zver} (C, the sources bundled in the crate libz-sys {v}; {} files; {c_how})",
                files.len()
            ));
            build_c(
                cfg,
                &CBase {
                    name: "zlib",
                    files,
                    flags: vec!["-DHAVE_UNISTD_H".into(), "-DHAVE_STDARG_H".into()],
                    shims: Vec::new(),
                },
                c_levels,
                &mut inputs,
                &mut notes,
            )?;
        }
        if want("lz4") && !cfg.quick {
            let (v, d) = pk.get("lz4-sys").ok_or("lz4-sys not among the fetched packages")?;
            let lib = d.join("liblz4").join("lib");
            let files = c_files(&lib, Some(&["lz4", "lz4hc", "lz4frame", "lz4file", "xxhash"]));
            prov.push(format!("lz4 (C, the sources bundled in the crate lz4-sys {v}; {} files; {c_how})", files.len()));
            build_c(
                cfg,
                &CBase { name: "lz4", files, flags: vec!["-DXXH_NAMESPACE=LZ4_".into()], shims: Vec::new() },
                c_levels,
                &mut inputs,
                &mut notes,
            )?;
        }
    }
    if want("newlib-libm") && !cfg.quick {
        let (libm, version) = newlib_sources(cfg)?;
        let mut files = c_files(&libm.join("math"), None);
        files.extend(c_files(&libm.join("common"), None));
        let include = libm.parent().map(|p| p.join("libc").join("include")).unwrap_or_default();
        let flags = vec![
            format!("-I{}", libm.join("common").display()),
            format!("-I{}", include.display()),
            "-fno-builtin".into(),
        ];
        let compiled = build_c(
            cfg,
            &CBase { name: "newlib-libm", files: files.clone(), flags, shims: vec![cfg.tools.join("newlib-shims.c")] },
            c_levels,
            &mut inputs,
            &mut notes,
        )?;
        prov.push(format!(
            "newlib-libm: newlib's libm/math and libm/common (C, fdlibm lineage like musl's; Debian package newlib-source {version}; {} of {} files compile; {c_how})",
            compiled,
            files.len()
        ));
    }
    let all_rust = rust_crates(cfg)?;
    let quick_rust = ["fastrand", "itoa", "ryu"];
    let rust: Vec<String> = all_rust
        .iter()
        .map(|(n, _)| n.clone())
        .filter(|n| want(&format!("rust:{n}")))
        .filter(|n| !cfg.quick || quick_rust.contains(&n.as_str()))
        .collect();
    if !rust.is_empty() {
        let dir = cfg.out.join("rust-crates");
        fetch_project(cfg, "rust-crates.toml", &dir)?;
        let levels: &[&str] = if cfg.quick { &["2"] } else { &["2", "0"] };
        for opt in levels {
            let crates: Vec<String> =
                rust.iter().filter(|c| *opt != "0" || !RUST_OPT2_ONLY.contains(&c.as_str())).cloned().collect();
            if !crates.is_empty() {
                build_rust(cfg, &crates, opt, &mut inputs)?;
            }
        }
        let rustc = run_cmd(Command::new("rustc").arg("--version"), "rustc --version").unwrap_or_default();
        for (n, v) in all_rust.iter().filter(|(n, _)| rust.contains(n)) {
            let at = if RUST_OPT2_ONLY.contains(&n.as_str()) { "2" } else { &levels.join(" and ") };
            prov.push(format!(
                "rust:{n} {v} (Rust, crates.io; {}; cargo build --release, RUSTFLAGS=\"--emit=llvm-bc,link -C codegen-units=1\", opt-level {at})",
                rustc.trim(),
            ));
        }
    }
    for n in notes {
        prov.push(format!("note: {n}"));
    }
    if inputs.is_empty() {
        return Err("no code base selected".into());
    }
    Ok((inputs, prov))
}
