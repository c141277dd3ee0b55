//! [`Record`]: what happened to one run, its tab-separated line between
//! child and parent, its JSON line, and the normalised messages the report
//! groups by.

/// What happened to one run (one function, one variant).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Record {
    /// Code base, e.g. `zlib`.
    pub codebase: String,
    /// How the module was built, e.g. `O2` or `O0+mem2reg`.
    pub level: String,
    /// The module file.
    pub module: String,
    /// Index of the function among the module's definitions.
    pub fn_index: usize,
    /// The scalar function.
    pub function: String,
    /// The clone's name (its VFABI name).
    pub variant: String,
    /// `avx2` or `avx512`.
    pub isa: String,
    /// Lanes.
    pub width: u32,
    /// Masked variant.
    pub masked: bool,
    /// `vectorized`, `fallback`, `rejected`, `internal`, `panic`, `crash`,
    /// `invalid-ir`, `bodiless` or `timeout`.
    pub outcome: String,
    /// The fallback reason, error kind or message (normalised for grouping).
    pub detail: String,
    /// The full message, where there is one.
    pub message: String,
    /// `ok`, `mismatch`, `not-checked`, `timeout`, `crash`, `panic`, or
    /// `n/a` (no clone to check).
    pub oracle: String,
    /// Why not checked, or the mismatch.
    pub oracle_detail: String,
    /// Lanes compared by the oracle.
    pub lanes: u64,
    /// Milliseconds the run took (batchify and oracle).
    pub ms: u64,
    /// The function's cut-out module (for the repro), if written.
    pub fn_module: String,
}

const FIELDS: usize = 17;

pub(super) fn esc(s: &str) -> String {
    s.replace('\\', "\\\\").replace('\t', "\\t").replace('\n', "\\n").replace('\r', "")
}

pub(super) fn unesc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut it = s.chars();
    while let Some(c) = it.next() {
        if c == '\\' {
            match it.next() {
                Some('t') => out.push('\t'),
                Some('n') => out.push('\n'),
                Some(o) => out.push(o),
                None => {}
            }
        } else {
            out.push(c);
        }
    }
    out
}

impl Record {
    /// One tab-separated line (the child-to-parent protocol).
    pub fn encode(&self) -> String {
        [
            esc(&self.codebase),
            esc(&self.level),
            esc(&self.module),
            self.fn_index.to_string(),
            esc(&self.function),
            esc(&self.variant),
            esc(&self.isa),
            self.width.to_string(),
            (self.masked as u8).to_string(),
            esc(&self.outcome),
            esc(&self.detail),
            esc(&self.message),
            esc(&self.oracle),
            esc(&self.oracle_detail),
            self.lanes.to_string(),
            self.ms.to_string(),
            esc(&self.fn_module),
        ]
        .join("\t")
    }

    /// The inverse of [`Record::encode`].
    pub fn decode(line: &str) -> Option<Record> {
        let f: Vec<&str> = line.split('\t').collect();
        if f.len() != FIELDS {
            return None;
        }
        Some(Record {
            codebase: unesc(f[0]),
            level: unesc(f[1]),
            module: unesc(f[2]),
            fn_index: f[3].parse().ok()?,
            function: unesc(f[4]),
            variant: unesc(f[5]),
            isa: unesc(f[6]),
            width: f[7].parse().ok()?,
            masked: f[8] == "1",
            outcome: unesc(f[9]),
            detail: unesc(f[10]),
            message: unesc(f[11]),
            oracle: unesc(f[12]),
            oracle_detail: unesc(f[13]),
            lanes: f[14].parse().ok()?,
            ms: f[15].parse().ok()?,
            fn_module: unesc(f[16]),
        })
    }

    /// The record as one JSON object.
    pub fn json(&self) -> String {
        format!(
            "{{\"codebase\":{},\"level\":{},\"module\":{},\"fn_index\":{},\"function\":{},\"variant\":{},\
             \"isa\":{},\"width\":{},\"masked\":{},\"outcome\":{},\"detail\":{},\"message\":{},\"oracle\":{},\
             \"oracle_detail\":{},\"lanes\":{},\"ms\":{},\"fn_module\":{}}}",
            js(&self.codebase),
            js(&self.level),
            js(&self.module),
            self.fn_index,
            js(&self.function),
            js(&self.variant),
            js(&self.isa),
            self.width,
            self.masked,
            js(&self.outcome),
            js(&self.detail),
            js(&self.message),
            js(&self.oracle),
            js(&self.oracle_detail),
            self.lanes,
            self.ms,
            js(&self.fn_module)
        )
    }

    /// Whether this run is a failure of batchify (the sweep's exit status).
    pub fn failure(&self) -> Option<&'static str> {
        match self.outcome.as_str() {
            "internal" => return Some("internal error"),
            "panic" => return Some("panic"),
            "crash" => return Some("crash"),
            "invalid-ir" => return Some("invalid IR"),
            "bodiless" => return Some("clone without a body"),
            "timeout" => return Some("timeout (batchify)"),
            _ => {}
        }
        (self.oracle == "mismatch").then_some("oracle mismatch")
    }

    /// Commands that rerun this one run.
    pub fn repro(&self, exe: &str) -> String {
        let mut s = format!(
            "{exe} --one {} --codebase {} --level {} --function {} --variant {}",
            sh(&self.module),
            sh(&self.codebase),
            sh(&self.level),
            sh(&self.function),
            sh(&self.variant)
        );
        if !self.fn_module.is_empty() {
            s.push_str(&format!(
                "   # or: batchify {} --variant {} --report -S -o -",
                sh(&self.fn_module),
                sh(&self.variant)
            ));
        }
        s
    }
}

fn js(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Shell-quotes a word if it needs it.
pub fn sh(s: &str) -> String {
    if !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || "_-./+=:,@%".contains(c)) {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// Groups similar messages: instruction text in backticks becomes its
/// opcode, names and numbers are dropped, and the result is cut short.
pub fn normalize(msg: &str) -> String {
    let first = msg.lines().next().unwrap_or("");
    let mut out = String::new();
    let mut rest = first;
    while let Some(start) = rest.find('`') {
        out.push_str(&rest[..start]);
        let after = &rest[start + 1..];
        let Some(end) = after.find('`') else {
            out.push_str(&rest[start..]);
            rest = "";
            break;
        };
        let inner = &after[..end];
        let inner = inner.split_once(" = ").map(|(_, r)| r).unwrap_or(inner).trim();
        let mut words = inner.split_whitespace();
        let mut op = words.next().unwrap_or("").to_string();
        if matches!(op.as_str(), "tail" | "musttail" | "notail") {
            op = format!("{op} {}", words.next().unwrap_or(""));
        }
        if op.starts_with('@') || op.starts_with('%') || op.starts_with('_') || op.contains("::") {
            op = "…".into();
        }
        if op.starts_with("call") || op.ends_with("call") {
            // Keep the intrinsic family of a call: `call @llvm.x.*`.
            if let Some(at) = inner.find("@llvm.") {
                let name: String =
                    inner[at + 1..].chars().take_while(|c| c.is_alphanumeric() || *c == '.' || *c == '_').collect();
                let mut parts: Vec<&str> = name.split('.').collect();
                parts.truncate(3);
                op = format!("{op} @{}", parts.join("."));
            }
        }
        out.push('`');
        out.push_str(&op);
        out.push('`');
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    // Symbol lists (`Failed to materialize symbols: { ... }`) out.
    if let Some(brace) = out.find(" {") {
        out.truncate(brace);
    }
    // Numbers out (not digits inside words such as `mem2reg` or `i32`).
    let mut cleaned = String::new();
    let mut prev: Option<char> = None;
    let mut in_number = false;
    for c in out.chars() {
        if c.is_ascii_digit() && (in_number || !prev.is_some_and(|p| p.is_ascii_alphanumeric() || p == '_')) {
            if !in_number {
                cleaned.push('N');
            }
            in_number = true;
        } else {
            in_number = false;
            cleaned.push(c);
        }
        prev = Some(c);
    }
    if cleaned.chars().count() > 110 {
        cleaned = cleaned.chars().take(110).collect::<String>() + "…";
    }
    cleaned
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_round_trip() {
        let r = Record {
            codebase: "zlib".into(),
            function: "a\tb\\c\nd".into(),
            fn_index: 3,
            width: 8,
            masked: true,
            lanes: 7,
            ..Record::default()
        };
        assert_eq!(Record::decode(&r.encode()), Some(r));
    }

    #[test]
    fn normalize_groups_instructions() {
        assert_eq!(
            normalize("`  %5 = atomicrmw add ptr %p, i32 1 seq_cst, align 4` is not supported yet"),
            "`atomicrmw` is not supported yet"
        );
        assert_eq!(
            normalize("inline assembly `call void asm \"\"()` is not supported"),
            "inline assembly `call` is not supported"
        );
    }
}
