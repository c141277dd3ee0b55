//! `cargo xtask doc-commands`: runs every command of the `sh` blocks in
//! README.md, docs/rust.md, docs/plugin.md and docs/enzyme-batch.md as
//! written, so that the documented commands keep working (a step of
//! `cargo xtask test`).
//!
//! The commands name `target/release/` (the plugin and `batchify`), so the
//! release CLI and plugin are built first. Each document gets a scratch
//! copy of `tests/doc-commands/` (the files its commands name, listed in
//! its README), with `target` linking to the checkout's and the release
//! `batchify` first on `PATH`; its blocks run there in order, each as one
//! `bash -euo pipefail` script, so a block sees the files the blocks before
//! it wrote. A block preceded by `<!-- doc-commands: checkout -->` runs in
//! the checkout instead (the commands that say "in the batchify
//! checkout"); `cargo install` then installs into the scratch folder,
//! which is on `PATH` too. A directive may also name one command that is
//! not run, with the reason, after `not`: `<!-- doc-commands: checkout; not
//! cargo xtask test (...) -->`. Every command left out is printed.

use crate::setup::{self, Env};
use crate::util::{self, header};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The documents whose commands run.
const DOCUMENTS: &[&str] = &["README.md", "docs/rust.md", "docs/plugin.md", "docs/enzyme-batch.md"];

/// Where the directive of a block says it runs, and what it leaves out.
#[derive(Debug, Default, PartialEq)]
struct Directive {
    in_checkout: bool,
    /// A command that is not run, and why (the rest of the text).
    left_out: Option<(String, String)>,
}

/// One `sh` block: the line of its opening fence, its text and directive.
#[derive(Debug, PartialEq)]
struct ShellBlock {
    line: usize,
    text: String,
    directive: Directive,
}

pub fn run(args: &[String]) -> Result<(), String> {
    util::flags(args, &[])?;
    let env = setup::ensure(true)?;
    check(&env).map(|_| ())
}

/// The step of `cargo xtask test`.
pub fn check(env: &Env) -> Result<Option<String>, String> {
    header("doc commands: build the release CLI and plugin the commands name");
    util::run(&mut env.cargo(&["build", "--release", "-p", "batchify-cli", "-p", "batchify-plugin"]))?;
    let scratch_root = util::target_dir().join("doc-commands");
    let _ = std::fs::remove_dir_all(&scratch_root);
    let mut ran = 0;
    for doc in DOCUMENTS {
        let text = std::fs::read_to_string(util::root().join(doc)).map_err(|e| format!("cannot read {doc}: {e}"))?;
        let blocks = shell_blocks(&text)?;
        let stem = doc.trim_end_matches(".md").replace('/', "-");
        let scratch = scratch_root.join(stem);
        make_scratch(&scratch)?;
        for b in &blocks {
            header(&format!("doc commands: {doc}, the block at line {}", b.line));
            let mut script = b.text.clone();
            if let Some((command, why)) = &b.directive.left_out {
                let kept: Vec<&str> =
                    script.lines().filter(|l| !l.trim_start().starts_with(command.as_str())).collect();
                if kept.len() == script.lines().count() {
                    return Err(format!(
                        "{doc}:{}: the directive leaves out `{command}`, which the block does not run",
                        b.line
                    ));
                }
                println!("not run: `{command}`: {why}");
                script = kept.join("\n");
            }
            let dir = if b.directive.in_checkout { util::root() } else { scratch.clone() };
            let path = util::path_with(&[
                scratch.join("bin"),
                util::target_dir().join("release"),
                env.llvm_prefix.join("bin"),
            ])?;
            println!("{}", script.trim_end());
            let status = Command::new("bash")
                .args(["-euo", "pipefail", "-c", &script])
                .current_dir(&dir)
                .env("PATH", path)
                .env("CARGO_INSTALL_ROOT", &scratch)
                .env("LLVM_SYS_221_PREFIX", &env.llvm_prefix)
                .env_remove("BATCHIFY_PLUGIN")
                .status()
                .map_err(|e| format!("cannot run bash: {e}"))?;
            if !status.success() {
                return Err(format!("{doc}:{}: a command of this block failed (in {})", b.line, dir.display()));
            }
            ran += 1;
        }
    }
    println!("doc commands: {ran} blocks of {} documents ran", DOCUMENTS.len());
    Ok(None)
}

/// A fresh copy of `tests/doc-commands/` (links followed) in `scratch`,
/// with `target` linking to the checkout's target directory.
fn make_scratch(scratch: &Path) -> Result<(), String> {
    let fixtures = util::root().join("tests/doc-commands");
    std::fs::create_dir_all(scratch).map_err(|e| format!("cannot create {}: {e}", scratch.display()))?;
    let entries = std::fs::read_dir(&fixtures).map_err(|e| format!("cannot read {}: {e}", fixtures.display()))?;
    for entry in entries {
        let from: PathBuf = entry.map_err(|e| e.to_string())?.path();
        let to = scratch.join(from.file_name().expect("a directory entry has a name"));
        std::fs::copy(&from, &to).map_err(|e| format!("cannot copy {}: {e}", from.display()))?;
    }
    std::os::unix::fs::symlink(util::target_dir(), scratch.join("target"))
        .map_err(|e| format!("cannot link target: {e}"))
}

/// The `sh` blocks of a markdown text, with their directives.
fn shell_blocks(text: &str) -> Result<Vec<ShellBlock>, String> {
    let mut out = Vec::new();
    let mut lines = text.lines().enumerate().peekable();
    let mut directive = None;
    while let Some((k, line)) = lines.next() {
        let trimmed = line.trim();
        if let Some(rest) = trimmed.strip_prefix("<!-- doc-commands:") {
            let body = rest.strip_suffix("-->").ok_or(format!("line {}: an unclosed doc-commands directive", k + 1))?;
            directive = Some(parse_directive(body).map_err(|e| format!("line {}: {e}", k + 1))?);
            continue;
        }
        let Some(info) = trimmed.strip_prefix("```") else {
            if !trimmed.is_empty() && directive.is_some() {
                return Err(format!("line {}: a doc-commands directive must come right before its block", k + 1));
            }
            continue;
        };
        let mut body = Vec::new();
        for (_, l) in lines.by_ref() {
            if l.trim_start().starts_with("```") {
                break;
            }
            body.push(l);
        }
        let taken = directive.take();
        if info.trim() == "sh" {
            out.push(ShellBlock { line: k + 1, text: body.join("\n"), directive: taken.unwrap_or_default() });
        } else if taken.is_some() {
            return Err(format!("line {}: a doc-commands directive before a block that is not `sh`", k + 1));
        }
    }
    Ok(out)
}

/// `checkout`, `not COMMAND (why)`, separated by `;`.
fn parse_directive(body: &str) -> Result<Directive, String> {
    let mut d = Directive::default();
    for part in body.split(';').map(str::trim).filter(|p| !p.is_empty()) {
        if part == "checkout" {
            d.in_checkout = true;
        } else if let Some(rest) = part.strip_prefix("not ") {
            let (command, why) = rest.split_once(" (").ok_or(format!("`{part}`: say why, in parentheses"))?;
            d.left_out = Some((command.trim().to_string(), why.trim_end_matches(')').to_string()));
        } else {
            return Err(format!("unknown doc-commands directive `{part}`"));
        }
    }
    Ok(d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_sh_blocks_and_their_directives() {
        let text = "text\n<!-- doc-commands: checkout; not cargo x (it recurses) -->\n```sh\ncargo y\ncargo x\n```\n\
                    ```text\nnot run\n```\n```sh\nls\n```\n";
        let blocks = shell_blocks(text).unwrap();
        assert_eq!(blocks.len(), 2);
        assert_eq!(blocks[0].line, 3);
        assert_eq!(blocks[0].text, "cargo y\ncargo x");
        assert!(blocks[0].directive.in_checkout);
        assert_eq!(blocks[0].directive.left_out, Some(("cargo x".to_string(), "it recurses".to_string())));
        assert_eq!(blocks[1].text, "ls");
        assert_eq!(blocks[1].directive, Directive::default());
    }

    #[test]
    fn a_directive_needs_its_sh_block_next() {
        assert!(shell_blocks("<!-- doc-commands: checkout -->\n```rust\nfn f() {}\n```\n").is_err());
        assert!(shell_blocks("<!-- doc-commands: checkout -->\nprose\n```sh\nls\n```\n").is_err());
        let blocks = shell_blocks("<!-- doc-commands: checkout -->\n\n```sh\nls\n```\n").unwrap();
        assert!(blocks[0].directive.in_checkout);
        assert!(parse_directive("sometimes").is_err());
        assert!(parse_directive("not cargo x").is_err());
    }
}
