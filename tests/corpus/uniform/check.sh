#!/usr/bin/env bash
# Self-check for the uniform-control-flow corpus in this directory.
#
# For every *.c file:
#   * compile with  clang -O2 -fno-math-errno -Wall -Wextra          (must be warning-free)
#   * compile with  clang -O0 -Xclang -disable-O0-optnone -fno-math-errno -Wall -Wextra
#                   | opt -passes=mem2reg                            (must be warning-free)
# For every *.ll file:
#   * opt -passes=verify                                             (must verify)
#   * check the IR as written, and again after opt -O2
#
# Then, for every defined function in every IR module, check that it is a valid
# uniform test target:
#   * no alloca / load / store / pointer values / atomics / globals
#   * no call other than to @llvm.* intrinsics (and none touching memory)
#   * no integer division or remainder
#   * no `br i1 %c` and no `switch` whose condition depends (through SSA data
#     flow, phis included) on a varying parameter.  Parameters are varying ('v')
#     or linear ('l') unless a `VARIANT-PARAMS: <fn> <tokens>` directive marks
#     them uniform ('u'); without a directive every parameter is varying.
#   * `O0-SKIP: <fn>` exempts a C function from the -O0+mem2reg check (it is
#     only tested at -O2); a note is printed if the skip turns out unnecessary.
#   * directives must name a defined function and have one token per parameter.
#     Tokens are VFABI's: v, u, l<step>, and the reference tokens R/L/U<step>
#     (C++ `linear(ref/val/uval)`); a function with a reference parameter may
#     load and store through its pointers.
#
# Usage: tests/corpus/uniform/check.sh [-v]
#   -v   also print the reasons for passing functions' notes
# Environment: CLANG (default clang-22), OPT (default opt-22), PYTHON (python3).
# Exit status: 0 if every file and every function passes, 1 otherwise.
set -u

DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
CLANG="${CLANG:-$(command -v clang-22 || echo /usr/bin/clang-22)}"
OPT="${OPT:-$(command -v opt-22 || echo /usr/bin/opt-22)}"
PYTHON="${PYTHON:-$(command -v python3 || echo python3)}"
VERBOSE=0
[ "${1:-}" = "-v" ] && VERBOSE=1

TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT

status=0
manifest="$TMP/manifest"
: >"$manifest"

echo "== compiling / verifying ($CLANG, $OPT)"
shopt -s nullglob
for src in "$DIR"/*.c; do
  base="$(basename "$src" .c)"
  o2="$TMP/$base.O2.ll"
  o0="$TMP/$base.O0.ll"
  if ! "$CLANG" -O2 -fno-math-errno -Wall -Wextra -S -emit-llvm -o "$o2" "$src" 2>"$TMP/err" ||
    [ -s "$TMP/err" ]; then
    echo "FAIL  $base.c: clang -O2 failed or warned:"; sed 's/^/      /' "$TMP/err"; status=1
  else
    echo "ok    $base.c: clang -O2"
    printf '%s\t%s\t%s\n' "$src" O2 "$o2" >>"$manifest"
  fi
  if ! "$CLANG" -O0 -Xclang -disable-O0-optnone -fno-math-errno -Wall -Wextra -S -emit-llvm \
    -o "$TMP/$base.O0raw.ll" "$src" 2>"$TMP/err" || [ -s "$TMP/err" ] ||
    ! "$OPT" -passes=mem2reg -S -o "$o0" "$TMP/$base.O0raw.ll" 2>"$TMP/err" || [ -s "$TMP/err" ]; then
    echo "FAIL  $base.c: clang -O0 | opt -passes=mem2reg failed or warned:"; sed 's/^/      /' "$TMP/err"; status=1
  else
    echo "ok    $base.c: clang -O0 | opt -passes=mem2reg"
    printf '%s\t%s\t%s\n' "$src" O0 "$o0" >>"$manifest"
  fi
done
for src in "$DIR"/*.ll; do
  base="$(basename "$src" .ll)"
  if ! "$OPT" -passes=verify -disable-output "$src" 2>"$TMP/err" || [ -s "$TMP/err" ]; then
    echo "FAIL  $base.ll: opt -passes=verify:"; sed 's/^/      /' "$TMP/err"; status=1
    continue
  fi
  if grep -Eq '^[[:space:]]*target[[:space:]]+(triple|datalayout)' "$src"; then
    if ! grep -Fxq 'target triple = "x86_64-unknown-linux-gnu"' "$src" ||
      ! grep -Fxq 'target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"' "$src"; then
      echo "FAIL  $base.ll: target triple/datalayout present but not the x86_64 ones"; status=1
    fi
  fi
  echo "ok    $base.ll: opt -passes=verify"
  printf '%s\t%s\t%s\n' "$src" as-written "$src" >>"$manifest"
  if "$OPT" -O2 -S -o "$TMP/$base.optO2.ll" "$src" 2>"$TMP/err" && [ ! -s "$TMP/err" ]; then
    printf '%s\t%s\t%s\n' "$src" opt-O2 "$TMP/$base.optO2.ll" >>"$manifest"
  else
    echo "FAIL  $base.ll: opt -O2:"; sed 's/^/      /' "$TMP/err"; status=1
  fi
done

echo "== per-function checks"
"$PYTHON" - "$manifest" "$VERBOSE" <<'PYEOF' || status=1
import os
import re
import sys

manifest, verbose = sys.argv[1], sys.argv[2] == "1"

VALUE_RE = re.compile(r'%(?:"[^"]*"|[-\w.$]+)')
DEF_RE = re.compile(r'^\s*(%(?:"[^"]*"|[-\w.$]+))\s*=\s*(.*)$')
BR_RE = re.compile(r'^\s*br\s+i1\s+(%(?:"[^"]*"|[-\w.$]+))\s*,')
SWITCH_RE = re.compile(r'^\s*switch\s+\S+\s+(%(?:"[^"]*"|[-\w.$]+)|-?\d+|true|false)\s*,')
CALL_RE = re.compile(r'\b(?:call|invoke|callbr)\b[^@]*@("[^"]*"|[-\w.$]+)')
GLOBAL_RE = re.compile(r'@("[^"]*"|[-\w.$]+)')
DIRECTIVE_RE = re.compile(r'VARIANT-PARAMS:\s*(\S+)\s+(\S+)')
SKIP_RE = re.compile(r'O0-SKIP:\s*(\S+)')
# One VFABI parameter token: varying, uniform, linear (with a step), or a
# reference parameter (`R`, `L`, `U` with a step; C++ `linear(ref/val/uval)`).
TOKEN_RE = re.compile(r'[vu]|l\d*|[RLU]\d*')
# What a reference parameter is for: loads and stores through the pointer.
REFERENCE_OK = ("pointer parameter/result", "load", "store", "pointer value")
FORBIDDEN = [
    (re.compile(r'\balloca\b'), "alloca"),
    (re.compile(r'(=\s*|^\s*)load\b'), "load"),
    (re.compile(r'^\s*store\b'), "store"),
    (re.compile(r'\bptr\b'), "pointer value"),
    (re.compile(r'\b(atomicrmw|cmpxchg|fence|va_arg|indirectbr|landingpad|resume)\b'), "memory/EH op"),
    (re.compile(r'=\s*(udiv|sdiv|urem|srem)\b'), "integer division"),
    (re.compile(r'@llvm\.(mem|lifetime|masked|stack|load|store|prefetch)'), "memory intrinsic"),
]


def split_params(s):
    """Split a parameter list at top-level commas."""
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch in "(<{[":
            depth += 1
        elif ch in ")>}]":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur)
    return [p.strip() for p in out if p.strip()]


def parse_functions(text):
    """Yield (name, [param names], [body lines]) for every define."""
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("define "):
            m = re.search(r'@("[^"]*"|[-\w.$]+)\(', line)
            name = m.group(1).strip('"')
            start = m.end()
            depth, j = 1, start
            while depth:
                if line[j] == "(":
                    depth += 1
                elif line[j] == ")":
                    depth -= 1
                j += 1
            params = []
            for p in split_params(line[start:j - 1]):
                if p == "...":
                    params.append("...")
                    continue
                toks = [t for t in VALUE_RE.findall(p)]
                params.append(toks[-1] if toks else None)
            body = []
            i += 1
            while i < len(lines) and lines[i].rstrip() != "}":
                body.append(lines[i].split(";", 1)[0] if not lines[i].lstrip().startswith(";") else "")
                i += 1
            yield name, params, line, body
        i += 1


def check_function(name, params, header, body, tokens):
    problems = []
    references = any(t[0] in "RLU" for t in tokens)
    if "..." in params:
        problems.append("variadic")
    if re.search(r'\bptr\b', header):
        problems.append("pointer parameter/result")
    # Taint analysis: values data-dependent on a varying/linear parameter.
    tainted = set()
    for p, t in zip(params, tokens):
        if p and t[0] in "vlL":
            tainted.add(p)
    defs = []
    for ln in body:
        m = DEF_RE.match(ln)
        if m:
            defs.append((m.group(1), VALUE_RE.findall(m.group(2))))
    changed = True
    while changed:
        changed = False
        for d, ops in defs:
            if d not in tainted and any(o in tainted for o in ops):
                tainted.add(d)
                changed = True
    for ln in body:
        if not ln.strip():
            continue
        for rx, what in FORBIDDEN:
            if rx.search(ln):
                problems.append(f"{what}: {ln.strip()}")
        cm = CALL_RE.search(ln)
        if cm and not cm.group(1).startswith("llvm."):
            problems.append(f"call to non-intrinsic @{cm.group(1)}")
        for g in GLOBAL_RE.findall(ln):
            if not g.startswith("llvm."):
                problems.append(f"reference to global @{g}")
        bm = BR_RE.match(ln)
        if bm and bm.group(1) in tainted:
            problems.append(f"branch on varying value: {ln.strip()}")
        sm = SWITCH_RE.match(ln)
        if sm and sm.group(1) in tainted:
            problems.append(f"switch on varying value: {ln.strip()}")
    if references:
        problems = [p for p in problems if not p.startswith(REFERENCE_OK)]
    # de-duplicate, keep order
    seen, out = set(), []
    for p in problems:
        if p not in seen:
            seen.add(p)
            out.append(p)
    return out


entries = []
with open(manifest) as f:
    for ln in f:
        src, mode, ir = ln.rstrip("\n").split("\t")
        entries.append((src, mode, ir))

sources = []
for src, _, _ in entries:
    if src not in sources:
        sources.append(src)

fail = 0
nfuncs = 0
nskip = 0
nuniform = 0
for src in sources:
    stext = open(src).read()
    directives, skips, dir_errors = {}, set(), []
    for m in DIRECTIVE_RE.finditer(stext):
        fn, toks = m.group(1), m.group(2)
        if fn in directives:
            dir_errors.append(f"duplicate VARIANT-PARAMS for {fn}")
        parsed = TOKEN_RE.findall(toks)
        if "".join(parsed) != toks:
            dir_errors.append(f"bad VARIANT-PARAMS tokens '{toks}' for {fn}")
        directives[fn] = parsed
    for m in SKIP_RE.finditer(stext):
        skips.add(m.group(1))
    per_fn = {}   # name -> {mode: problems}
    order = []
    nparams = {}
    for s2, mode, ir in entries:
        if s2 != src:
            continue
        for name, params, header, body in parse_functions(open(ir).read()):
            if name not in per_fn:
                per_fn[name] = {}
                order.append(name)
            nparams[name] = len(params)
            toks = directives.get(name, ["v"] * len(params))
            per_fn[name][mode] = check_function(name, params, header, body, toks)
    base = os.path.basename(src)
    for fn, toks in directives.items():
        if fn not in per_fn:
            dir_errors.append(f"VARIANT-PARAMS names undefined function {fn}")
        elif len(toks) != nparams[fn]:
            dir_errors.append(f"VARIANT-PARAMS {fn} has {len(toks)} tokens for {nparams[fn]} parameters")
    for fn in skips:
        if fn not in per_fn:
            dir_errors.append(f"O0-SKIP names undefined function {fn}")
        if src.endswith(".ll"):
            dir_errors.append(f"O0-SKIP {fn} in a .ll file is meaningless")
    for e in dir_errors:
        print(f"FAIL  {base}: {e}")
        fail += 1
    modes_expected = ["O2", "O0"] if src.endswith(".c") else ["as-written", "opt-O2"]
    for name in order:
        nfuncs += 1
        if name in directives:
            nuniform += 1
        res = per_fn[name]
        parts, bad, notes = [], [], []
        for mode in modes_expected:
            if mode not in res:
                parts.append(f"{mode}:missing")
                bad.append(f"{mode}: function not present")
                continue
            probs = res[mode]
            if mode == "O0" and name in skips:
                nskip += 1
                parts.append("O0:skip")
                if not probs:
                    notes.append("O0-SKIP is unnecessary: the -O0 IR is uniform")
                elif verbose:
                    notes.extend(f"O0 (skipped): {p}" for p in probs)
                continue
            if probs:
                parts.append(f"{mode}:FAIL")
                bad.extend(f"{mode}: {p}" for p in probs)
            else:
                parts.append(f"{mode}:ok")
        d = directives.get(name)
        tag = f" [{''.join(d)}]" if d else ""
        print(f"{'FAIL' if bad else 'PASS'}  {base}:{name}{tag}  ({', '.join(parts)})")
        for b in bad:
            print(f"        - {b}")
        for n in notes:
            print(f"        note: {n}")
        if bad:
            fail += 1

print(f"== {nfuncs} functions in {len(sources)} files; "
      f"{nuniform} with VARIANT-PARAMS, {nskip} O0-skipped; {fail} failure(s)")
sys.exit(1 if fail else 0)
PYEOF

if [ "$status" -eq 0 ]; then echo "== ALL PASS"; else echo "== FAILURES"; fi
exit "$status"
