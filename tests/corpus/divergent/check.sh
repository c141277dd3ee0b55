#!/usr/bin/env bash
# Self-check for the divergent-control-flow corpus in this directory.
#
# 1. Compile (must be warning-free, same flags as the harness plus -Wall -Wextra):
#    *.c   clang -O2 -fno-math-errno
#          clang -O0 -Xclang -disable-O0-optnone -fno-math-errno | opt -passes=mem2reg
#    *.rs  rustc --edition 2021 --crate-type=lib -C opt-level=1 and =2
#          (--emit=llvm-bc, as the harness does, and --emit=llvm-ir for the checks)
# 2. Check every defined function in every IR variant. It fails on:
#    alloca / load / store / pointer values / atomics / globals (references or
#    definitions) / calls to anything but @llvm.* / memory intrinsics /
#    `unreachable` / vector types / non-scalar parameters or results / internal
#    helper functions left in the module / any mention of `panic`.
#    calls.c and rust_calls.rs may define internal helpers, call them, and
#    take `int*` parameters (loads and stores allowed); a call of a helper
#    with a branch on its parameters counts as a divergent branch there.
#    It also fails a function if no variant has a `br i1` or `switch` whose
#    condition depends (through SSA data flow, phis included) on a varying
#    (v) or linear (l) parameter: the corpus is meant to be divergent.
#    Directives: `VARIANT-PARAMS: <fn> <tokens>` (v/u/l, one per parameter)
#    and `O0-SKIP: <fn>` (C only) must name a defined function and be
#    well-formed. `CHECK-IRREDUCIBLE: <fn>` (check.sh only, not a harness
#    directive) requires the -O0 + mem2reg CFG of <fn> to be irreducible.
#    Function names must be unique over the directory, and there must be at
#    least 44 functions.
# 3. Execution self-check. check.sh generates a driver per source file that
#    calls every function on all combinations of special values (0, 1, -1,
#    INT_MIN, INT_MAX, +-0, +-inf, NaNs, subnormals, ...) plus random values:
#    *.c   built with -fsanitize=undefined -fno-sanitize-recover=all at -O0
#          and at -O2; each run must finish within $TIMEOUT seconds, and the
#          two runs must print the same per-function result hashes.
#    *.rs  built as a bin with -C overflow-checks=on -C debug-assertions=on
#          at opt-level 0, and again at opt-level 2; no panic, no timeout,
#          same hashes.
#
# Usage: tests/corpus/divergent/check.sh [-v]
#   -v   print, per function and variant, which checks found what
# Environment: CLANG (clang-22), OPT (opt-22), RUSTC (rustc), PYTHON (python3),
#              TIMEOUT (seconds per self-test run, default 20).
# Exit status: 0 if everything passes, 1 otherwise.
set -u

DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
CLANG="${CLANG:-$(command -v clang-22 || echo /usr/bin/clang-22)}"
OPT="${OPT:-$(command -v opt-22 || echo /usr/bin/opt-22)}"
RUSTC="${RUSTC:-$(command -v rustc || echo rustc)}"
PYTHON="${PYTHON:-$(command -v python3 || echo python3)}"
TIMEOUT="${TIMEOUT:-20}"
VERBOSE=0
[ "${1:-}" = "-v" ] && VERBOSE=1

TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT

status=0
manifest="$TMP/manifest"
: >"$manifest"

fail() { # message; shows the first lines of $TMP/err
  echo "FAIL  $1"
  [ -s "$TMP/err" ] && head -n 20 "$TMP/err" | sed 's/^/      /'
  status=1
}

echo "== compiling ($CLANG, $OPT, $RUSTC)"
shopt -s nullglob
for src in "$DIR"/*.c; do
  base="$(basename "$src" .c)"
  o2="$TMP/$base.c.O2.ll"
  o0="$TMP/$base.c.O0.ll"
  : >"$TMP/err"
  if ! "$CLANG" -O2 -fno-math-errno -Wall -Wextra -S -emit-llvm -o "$o2" "$src" 2>"$TMP/err" ||
    [ -s "$TMP/err" ]; then
    fail "$base.c: clang -O2 failed or warned:"
  else
    echo "ok    $base.c: clang -O2"
    printf '%s\t%s\t%s\n' "$src" O2 "$o2" >>"$manifest"
  fi
  if ! "$CLANG" -O0 -Xclang -disable-O0-optnone -fno-math-errno -Wall -Wextra -S -emit-llvm \
    -o "$TMP/$base.c.O0raw.ll" "$src" 2>"$TMP/err" || [ -s "$TMP/err" ] ||
    ! "$OPT" -passes=mem2reg -S -o "$o0" "$TMP/$base.c.O0raw.ll" 2>"$TMP/err" || [ -s "$TMP/err" ]; then
    fail "$base.c: clang -O0 | opt -passes=mem2reg failed or warned:"
  else
    echo "ok    $base.c: clang -O0 | opt -passes=mem2reg"
    printf '%s\t%s\t%s\n' "$src" O0 "$o0" >>"$manifest"
  fi
done
for src in "$DIR"/*.rs; do
  base="$(basename "$src" .rs)"
  for lvl in 1 2; do
    ll="$TMP/$base.rs.O$lvl.ll"
    : >"$TMP/err"
    if ! "$RUSTC" --edition 2021 --crate-type=lib -C opt-level=$lvl \
      --emit="llvm-bc=$TMP/$base.rs.O$lvl.bc,llvm-ir=$ll" --crate-name "corpus_$base" \
      "$src" 2>"$TMP/err" || [ -s "$TMP/err" ] || [ ! -s "$TMP/$base.rs.O$lvl.bc" ]; then
      fail "$base.rs: rustc -C opt-level=$lvl failed or warned:"
    else
      echo "ok    $base.rs: rustc -C opt-level=$lvl"
      printf '%s\t%s\t%s\n' "$src" "O$lvl" "$ll" >>"$manifest"
    fi
  done
done

cat >"$TMP/corpus.py" <<'PYEOF'
import os
import re
import sys

VALUE_RE = re.compile(r'%(?:"[^"]*"|[-\w.$]+)')
DEF_RE = re.compile(r'^\s*(%(?:"[^"]*"|[-\w.$]+))\s*=\s*(.*)$')
BR_RE = re.compile(r'^\s*br\s+i1\s+(%(?:"[^"]*"|[-\w.$]+))\s*,')
SWITCH_RE = re.compile(r'^\s*switch\s+\S+\s+(%(?:"[^"]*"|[-\w.$]+)|-?\d+|true|false)\s*,')
CALL_RE = re.compile(r'\b(?:call|invoke|callbr)\b[^@]*@("[^"]*"|[-\w.$]+)')
GLOBAL_RE = re.compile(r'@("[^"]*"|[-\w.$]+)')
LABEL_RE = re.compile(r'^("[^"]*"|[-\w.$]+):')
LABELREF_RE = re.compile(r'\blabel\s+(%(?:"[^"]*"|[-\w.$]+))')
DIRECTIVE_RE = re.compile(r'VARIANT-PARAMS:[ \t]*(\S*)[ \t]*(\S*)')
SKIP_RE = re.compile(r'O0-SKIP:[ \t]*(\S*)')
IRRED_RE = re.compile(r'CHECK-IRREDUCIBLE:[ \t]*(\S*)')
SCALAR_TYPES = {"i1", "i8", "i16", "i32", "i64", "float", "double"}
FORBIDDEN = [
    (re.compile(r'\balloca\b'), "alloca"),
    (re.compile(r'(=\s*|^\s*)load\b'), "load"),
    (re.compile(r'^\s*store\b'), "store"),
    (re.compile(r'\bptr\b'), "pointer value"),
    (re.compile(r'\b(atomicrmw|cmpxchg|fence|va_arg|indirectbr|landingpad|resume|invoke)\b'), "memory/EH op"),
    (re.compile(r'@llvm\.(mem|lifetime|masked|stack|load|store|prefetch|trap|debugtrap|ubsantrap)'),
     "memory/trap intrinsic"),
    (re.compile(r'^\s*unreachable\b'), "unreachable"),
    (re.compile(r'<\s*(vscale\s+x\s+)?\d+\s+x\s'), "vector type"),
    (re.compile(r'panic', re.I), "panic"),
]


def split_params(s):
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


def strip_comment(line):
    # IR comments start with ';' outside string literals (no strings here).
    return line.split(";", 1)[0]


def parse_functions(text):
    """Yield (name, linkage_internal, [param names], [param types], ret type, header, body)."""
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("define "):
            m = re.search(r'@("[^"]*"|[-\w.$]+)\(', line)
            name = m.group(1).strip('"')
            pre = line[:m.start()].split()
            internal = "internal" in pre or "private" in pre
            ret = None
            for tok in pre[1:]:
                if re.fullmatch(r'i\d+|float|double|half|bfloat|fp128|x86_fp80|void|ptr', tok) or \
                        tok.startswith(("{", "<", "[")):
                    ret = tok
            start = m.end()
            depth, j = 1, start
            while depth:
                if line[j] == "(":
                    depth += 1
                elif line[j] == ")":
                    depth -= 1
                j += 1
            params, ptypes = [], []
            for p in split_params(line[start:j - 1]):
                if p == "...":
                    params.append("...")
                    ptypes.append("...")
                    continue
                toks = VALUE_RE.findall(p)
                params.append(toks[-1] if toks else None)
                ptypes.append(p.split()[0])
            body = []
            i += 1
            while i < len(lines) and lines[i].rstrip() != "}":
                body.append(strip_comment(lines[i]))
                i += 1
            yield name, internal, params, ptypes, ret, line, body
        i += 1


def cfg(body):
    """Basic blocks and successor lists. An unlabelled entry block is '<entry>'."""
    first = next((ln for ln in body if ln.strip()), "")
    blocks, order, cur = {}, [], None
    if not LABEL_RE.match(first):
        cur = "<entry>"
        blocks[cur] = []
        order.append(cur)
    for ln in body:
        m = LABEL_RE.match(ln)
        if m:
            cur = "%" + m.group(1)
            blocks[cur] = []
            order.append(cur)
            continue
        if cur is not None:
            blocks[cur].extend(LABELREF_RE.findall(ln))
    return order, blocks


def analyze_cfg(order, blocks):
    """Return (has_cycle, irreducible)."""
    entry = order[0]
    succ = {b: [s for s in blocks[b] if s in blocks] for b in order}
    # Reachable blocks, DFS with an explicit stack to find retreating edges.
    preds = {b: [] for b in order}
    for b in order:
        for s in succ[b]:
            preds[s].append(b)
    reach, st = set([entry]), [entry]
    while st:
        b = st.pop()
        for s in succ[b]:
            if s not in reach:
                reach.add(s)
                st.append(s)
    nodes = [b for b in order if b in reach]
    # Iterative dominators.
    dom = {b: set(nodes) for b in nodes}
    dom[entry] = {entry}
    changed = True
    while changed:
        changed = False
        for b in nodes:
            if b == entry:
                continue
            ps = [p for p in preds[b] if p in reach]
            new = set.intersection(*(dom[p] for p in ps)) if ps else set()
            new = new | {b}
            if new != dom[b]:
                dom[b] = new
                changed = True
    # DFS for retreating edges.
    on_stack, visited = set(), set()
    retreating = []
    stack = [(entry, iter(succ[entry]))]
    visited.add(entry)
    on_stack.add(entry)
    while stack:
        b, it = stack[-1]
        nxt = next(it, None)
        if nxt is None:
            stack.pop()
            on_stack.discard(b)
            continue
        if nxt in on_stack:
            retreating.append((b, nxt))
        elif nxt not in visited:
            visited.add(nxt)
            on_stack.add(nxt)
            stack.append((nxt, iter(succ[nxt])))
    has_cycle = bool(retreating)
    irreducible = any(v not in dom[u] for u, v in retreating)
    return has_cycle, irreducible


# Files whose functions call helpers defined in the same file (batched
# callees): internal helpers, calls of them, and pointer parameters (written
# through by helpers) are allowed there.
CALL_FILES = {"calls.c", "rust_calls.rs"}
CALL_ALLOWED = {"load", "store", "pointer value"}


def check_function(params, ptypes, ret, header, body, tokens, helpers=None):
    """`helpers` (call files only): internal helper name -> whether it has a
    branch on its own parameters; a call of such a helper with a varying
    argument counts as a divergent branch."""
    problems = []
    for t in ptypes:
        if t not in SCALAR_TYPES and not (helpers is not None and t == "ptr"):
            problems.append(f"non-scalar parameter type {t}")
    if ret not in SCALAR_TYPES:
        problems.append(f"non-scalar result type {ret}")
    # rustc gives every extern "C" fn (an unwind boundary) a personality even
    # when nothing in it can unwind; that reference is allowed, no other.
    hdr = re.sub(r'\bpersonality\s+ptr\s+@rust_eh_personality\b', '', header)
    if (helpers is None and re.search(r'\bptr\b', hdr)) or len(GLOBAL_RE.findall(hdr)) != 1:
        problems.append("pointer or global in the signature: " + hdr.strip())
    tainted = set()
    for p, t in zip(params, tokens):
        if p and t in "vl":
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
    divergent = 0
    for ln in body:
        if not ln.strip():
            continue
        for rx, what in FORBIDDEN:
            if rx.search(ln) and not (helpers is not None and what in CALL_ALLOWED):
                problems.append(f"{what}: {ln.strip()}")
        cm = CALL_RE.search(ln)
        helper = cm.group(1).strip('"') if cm else None
        if cm and not cm.group(1).startswith("llvm.") and (helpers is None or helper not in helpers):
            problems.append(f"call to non-intrinsic @{cm.group(1)}")
        if helper in (helpers or {}) and helpers[helper] and any(o in tainted for o in VALUE_RE.findall(ln)):
            divergent += 1
        for g in GLOBAL_RE.findall(ln):
            if not g.startswith("llvm.") and g.strip('"') not in (helpers or {}):
                problems.append(f"reference to global @{g}")
        bm = BR_RE.match(ln)
        if bm and bm.group(1) in tainted:
            divergent += 1
        sm = SWITCH_RE.match(ln)
        if sm and sm.group(1) in tainted:
            divergent += 1
    has_cycle, irreducible = analyze_cfg(*cfg(body))
    seen, out = set(), []
    for p in problems:
        if p not in seen:
            seen.add(p)
            out.append(p)
    return out, divergent, has_cycle, irreducible


# ---------------------------------------------------------------------------
# Source prototypes (for the self-test drivers).

C_TYPES = {
    "int": ("int", 32, True), "signed": ("int", 32, True), "signed int": ("int", 32, True),
    "unsigned": ("int", 32, False), "unsigned int": ("int", 32, False),
    "char": ("int", 8, True), "signed char": ("int", 8, True), "unsigned char": ("int", 8, False),
    "short": ("int", 16, True), "short int": ("int", 16, True), "signed short": ("int", 16, True),
    "unsigned short": ("int", 16, False),
    "long": ("int", 64, True), "unsigned long": ("int", 64, False),
    "long long": ("int", 64, True), "unsigned long long": ("int", 64, False),
    "int8_t": ("int", 8, True), "uint8_t": ("int", 8, False),
    "int16_t": ("int", 16, True), "uint16_t": ("int", 16, False),
    "int32_t": ("int", 32, True), "uint32_t": ("int", 32, False),
    "int64_t": ("int", 64, True), "uint64_t": ("int", 64, False),
    "float": ("f32", 32, True), "double": ("f64", 64, True),
    "bool": ("bool", 1, False), "_Bool": ("bool", 1, False),
    "int*": ("ptr", 64, False),
}
RS_TYPES = {
    "i8": ("int", 8, True), "u8": ("int", 8, False), "i16": ("int", 16, True), "u16": ("int", 16, False),
    "i32": ("int", 32, True), "u32": ("int", 32, False), "i64": ("int", 64, True), "u64": ("int", 64, False),
    "f32": ("f32", 32, True), "f64": ("f64", 64, True), "bool": ("bool", 1, False),
}
C_DEF_RE = re.compile(r'^(?!static\b)([A-Za-z_][\w ]*?)\s+([A-Za-z_]\w*)\s*\(([^)]*)\)\s*\{', re.M)
RS_DEF_RE = re.compile(r'pub\s+extern\s+"C"\s+fn\s+(\w+)\s*\(([^)]*)\)\s*(?:->\s*(\w+))?')


def prototypes(src):
    text = open(src).read()
    out = []
    if src.endswith(".c"):
        for m in C_DEF_RE.finditer(text):
            ret, name, plist = m.group(1).strip(), m.group(2), m.group(3).strip()
            params = []
            if plist and plist != "void":
                for p in plist.split(","):
                    toks = p.split()
                    params.append(" ".join(toks[:-1]))
            out.append((name, ret, params))
    else:
        for m in RS_DEF_RE.finditer(text):
            name, plist, ret = m.group(1), m.group(2).strip(), m.group(3)
            params = [p.split(":", 1)[1].strip() for p in plist.split(",") if p.strip()]
            out.append((name, ret, params))
    return out


ISPEC = [0, 1, -1, 2, -2, 3, 7, 10, 27, 97, 100, -100, 127, 128, -128, 255, 256, 600,
         32767, 32768, -32768, 65535, 0x7fffffff, 0x80000000, 0xffffffff, -0x80000000,
         0x7fffffffffffffff, -0x8000000000000000, 1000000, -1000000]
FSPEC = [0x00000000, 0x80000000, 0x3f800000, 0xbf800000, 0x3f000000, 0xbf000000, 0x40000000,
         0x40600000, 0xc0200000, 0x40800000, 0x3e800000, 0x42c80000, 0xc2c80000, 0x49742400,
         0x4e6e6b28, 0x7149f2ca, 0x7f800000, 0xff800000, 0x7fc00000, 0xffc00000, 0x7fc12345,
         0x7f800001, 0x00000001, 0x007fffff, 0x00800000, 0x7f7fffff, 0xff7fffff, 0x41400000,
         0xbf400000, 0x3e99999a, 0xbe800000]
DSPEC = [0x0, 0x8000000000000000, 0x3ff0000000000000, 0xbff0000000000000, 0x3fe0000000000000,
         0xbfe0000000000000, 0x4000000000000000, 0x400c000000000000, 0xc004000000000000,
         0x4010000000000000, 0x3fd0000000000000, 0x4059000000000000, 0xc059000000000000,
         0x412e848000000000, 0x41cdcd6500000000, 0x4415af1d78b58c40, 0x7ff0000000000000,
         0xfff0000000000000, 0x7ff8000000000000, 0xfff8000000000000, 0x7ff8000012345678,
         0x7ff0000000000001, 0x1, 0x000fffffffffffff, 0x0010000000000000, 0x7fefffffffffffff,
         0xffefffffffffffff, 0x4028000000000000, 0xbfe8000000000000, 0x3fd3333333333333,
         0x430c6bf526340000]
SPEC_LEN = {"int": len(ISPEC), "f32": len(FSPEC), "f64": len(DSPEC), "bool": 2, "ptr": 1}
MAX_COMBOS = 30000
RANDOM_CALLS = 20000


def u64(v):
    return v & 0xffffffffffffffff


def gen_c_driver(protos, out):
    L = []
    L.append("#include <stdbool.h>\n#include <stdint.h>\n#include <stdio.h>\n#include <string.h>\n")
    L.append("static const uint64_t ISPEC[] = {" + ", ".join(f"0x{u64(v):x}ull" for v in ISPEC) + "};")
    L.append("static const uint32_t FSPEC[] = {" + ", ".join(f"0x{v:x}u" for v in FSPEC) + "};")
    L.append("static const uint64_t DSPEC[] = {" + ", ".join(f"0x{v:x}ull" for v in DSPEC) + "};")
    L.append(r'''
static uint64_t rng = 0x9e3779b97f4a7c15ull, hsh;
static int pbuf[4]; /* what `int*` parameters point to; hashed after each function */
static uint64_t rnd(void) { rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17; return rng; }
static void mix(uint64_t v) { hsh = (hsh ^ v) * 0x100000001b3ull; hsh ^= hsh >> 29; }
static float f32(uint32_t b) { float f; memcpy(&f, &b, 4); return f; }
static double f64(uint64_t b) { double d; memcpy(&d, &b, 8); return d; }
static uint64_t bf(float f) { uint32_t u; if (f != f) return 0x7fc00000u; memcpy(&u, &f, 4); return u; }
static uint64_t bd(double d) { uint64_t u; if (d != d) return 0x7ff8000000000000ull; memcpy(&u, &d, 8); return u; }
static uint64_t ri(void) {
  uint64_t r = rnd(); unsigned m = (unsigned)(r >> 60);
  if (m < 6) return rnd();
  if (m < 11) return (uint64_t)((int64_t)(rnd() % 201) - 100);
  return ISPEC[rnd() % (sizeof ISPEC / sizeof ISPEC[0])];
}
static float rf(void) {
  uint64_t r = rnd(); unsigned m = (unsigned)(r >> 60);
  if (m < 6) return f32((uint32_t)rnd());
  if (m < 12) return (float)((double)(rnd() >> 11) / 9007199254740992.0 * 16.0 - 8.0);
  return f32(FSPEC[rnd() % (sizeof FSPEC / sizeof FSPEC[0])]);
}
static double rd(void) {
  uint64_t r = rnd(); unsigned m = (unsigned)(r >> 60);
  if (m < 6) return f64(rnd());
  if (m < 12) return (double)(rnd() >> 11) / 9007199254740992.0 * 16.0 - 8.0;
  return f64(DSPEC[rnd() % (sizeof DSPEC / sizeof DSPEC[0])]);
}
''')
    names = []
    for name, ret, params in protos:
        kinds = [C_TYPES[p] for p in params]
        rk = C_TYPES[ret]
        L.append(f"{ret} {name}({', '.join(params) if params else 'void'});")

        def arg(i, p, k, spec):
            if k[0] == "ptr":
                return "pbuf"
            if k[0] == "int":
                return f"({p})ISPEC[{spec}]" if spec is not None else f"({p})ri()"
            if k[0] == "f32":
                return f"f32(FSPEC[{spec}])" if spec is not None else "rf()"
            if k[0] == "f64":
                return f"f64(DSPEC[{spec}])" if spec is not None else "rd()"
            return f"(bool)({spec} & 1)" if spec is not None else "(bool)(rnd() & 1)"

        def res(expr):
            if rk[0] == "f32":
                return f"mix(bf({expr}));"
            if rk[0] == "f64":
                return f"mix(bd({expr}));"
            return f"mix((uint64_t)({expr}));"

        lens = [SPEC_LEN[k[0]] for k in kinds]
        combos = 1
        for n in lens:
            combos *= n
        body = [f"static void t_{name}(void) {{", "  hsh = 0xcbf29ce484222325ull;"]
        if combos <= MAX_COMBOS:
            ind = "  "
            for i, n in enumerate(lens):
                body.append(f"{ind}for (unsigned i{i} = 0; i{i} < {n}u; i{i}++)")
                ind += "  "
            call = f"{name}({', '.join(arg(i, p, k, f'i{i}') for i, (p, k) in enumerate(zip(params, kinds)))})"
            body.append(f"{ind}{res(call)}")
        else:
            body.append(f"  for (unsigned r = 0; r < {MAX_COMBOS}u; r++) {{")
            for i, n in enumerate(lens):
                body.append(f"    unsigned i{i} = (unsigned)(rnd() % {n}u);")
            call = f"{name}({', '.join(arg(i, p, k, f'i{i}') for i, (p, k) in enumerate(zip(params, kinds)))})"
            body.append(f"    {res(call)}")
            body.append("  }")
        body.append(f"  for (unsigned r = 0; r < {RANDOM_CALLS}u; r++) {{")
        for i, (p, k) in enumerate(zip(params, kinds)):
            body.append(f"    {p} a{i} = {arg(i, p, k, None)};")
        call = f"{name}({', '.join(f'a{i}' for i in range(len(params)))})"
        body.append(f"    {res(call)}")
        body.append("  }")
        if any(k[0] == "ptr" for k in kinds):
            body.append("  for (unsigned k = 0; k < 4u; k++) mix((uint64_t)(unsigned)pbuf[k]);")
        body.append(f'  printf("%-28s %016llx\\n", "{name}", (unsigned long long)hsh);')
        body.append("  fflush(stdout);")
        body.append("}")
        L.extend(body)
        names.append(name)
    L.append("int main(void) {")
    for n in names:
        L.append(f"  t_{n}();")
    L.append("  return 0;\n}")
    open(out, "w").write("\n".join(L) + "\n")


def gen_rs_driver(src, protos, out):
    L = ["#![allow(dead_code, unused_parens, clippy::all)]",
         f"#[path = {src!r}]".replace("'", '"'), "mod corpus;"]
    L.append("static ISPEC: [u64; %d] = [%s];" % (len(ISPEC), ", ".join(f"0x{u64(v):x}" for v in ISPEC)))
    L.append("static FSPEC: [u32; %d] = [%s];" % (len(FSPEC), ", ".join(f"0x{v:x}" for v in FSPEC)))
    L.append("static DSPEC: [u64; %d] = [%s];" % (len(DSPEC), ", ".join(f"0x{v:x}" for v in DSPEC)))
    L.append(r'''
struct R { s: u64, h: u64 }
impl R {
    fn rnd(&mut self) -> u64 { self.s ^= self.s << 13; self.s ^= self.s >> 7; self.s ^= self.s << 17; self.s }
    fn mix(&mut self, v: u64) { self.h = (self.h ^ v).wrapping_mul(0x100000001b3); self.h ^= self.h >> 29; }
    fn ri(&mut self) -> u64 {
        let m = self.rnd() >> 60;
        if m < 6 { self.rnd() } else if m < 11 { ((self.rnd() % 201) as i64 - 100) as u64 }
        else { ISPEC[(self.rnd() % ISPEC.len() as u64) as usize] }
    }
    fn rf(&mut self) -> f32 {
        let m = self.rnd() >> 60;
        if m < 6 { f32::from_bits(self.rnd() as u32) }
        else if m < 12 { ((self.rnd() >> 11) as f64 / 9007199254740992.0 * 16.0 - 8.0) as f32 }
        else { f32::from_bits(FSPEC[(self.rnd() % FSPEC.len() as u64) as usize]) }
    }
    fn rd(&mut self) -> f64 {
        let m = self.rnd() >> 60;
        if m < 6 { f64::from_bits(self.rnd()) }
        else if m < 12 { (self.rnd() >> 11) as f64 / 9007199254740992.0 * 16.0 - 8.0 }
        else { f64::from_bits(DSPEC[(self.rnd() % DSPEC.len() as u64) as usize]) }
    }
}
trait Bits { fn bits(self) -> u64; }
macro_rules! ibits { ($($t:ty),*) => { $(impl Bits for $t { fn bits(self) -> u64 { self as u64 } })* } }
ibits!(i8, u8, i16, u16, i32, u32, i64, u64);
impl Bits for bool { fn bits(self) -> u64 { self as u64 } }
impl Bits for f32 { fn bits(self) -> u64 { if self.is_nan() { 0x7fc00000 } else { self.to_bits() as u64 } } }
impl Bits for f64 { fn bits(self) -> u64 { if self.is_nan() { 0x7ff8000000000000 } else { self.to_bits() } } }
''')
    names = []
    for name, ret, params in protos:
        kinds = [RS_TYPES[p] for p in params]

        def arg(p, k, spec):
            if k[0] == "int":
                return f"(ISPEC[{spec}] as {p})" if spec is not None else f"(r.ri() as {p})"
            if k[0] == "f32":
                return f"f32::from_bits(FSPEC[{spec}])" if spec is not None else "r.rf()"
            if k[0] == "f64":
                return f"f64::from_bits(DSPEC[{spec}])" if spec is not None else "r.rd()"
            return f"({spec} & 1 == 1)" if spec is not None else "(r.rnd() & 1 == 1)"

        lens = [SPEC_LEN[k[0]] for k in kinds]
        combos = 1
        for n in lens:
            combos *= n
        body = [f"fn t_{name}(r: &mut R) {{", "    r.h = 0xcbf29ce484222325;"]
        if combos <= MAX_COMBOS:
            ind = "    "
            for i, n in enumerate(lens):
                body.append(f"{ind}for i{i} in 0..{n}usize {{")
                ind += "    "
            call = f"corpus::{name}({', '.join(arg(p, k, f'i{i}') for i, (p, k) in enumerate(zip(params, kinds)))})"
            body.append(f"{ind}let v = {call}; r.mix(v.bits());")
            for i in range(len(lens)):
                ind = ind[4:]
                body.append(f"{ind}}}")
        else:
            body.append(f"    for _ in 0..{MAX_COMBOS} {{")
            for i, n in enumerate(lens):
                body.append(f"        let i{i} = (r.rnd() % {n}) as usize;")
            call = f"corpus::{name}({', '.join(arg(p, k, f'i{i}') for i, (p, k) in enumerate(zip(params, kinds)))})"
            body.append(f"        let v = {call}; r.mix(v.bits());")
            body.append("    }")
        body.append(f"    for _ in 0..{RANDOM_CALLS} {{")
        for i, (p, k) in enumerate(zip(params, kinds)):
            body.append(f"        let a{i}: {p} = {arg(p, k, None)};")
        call = f"corpus::{name}({', '.join(f'a{i}' for i in range(len(params)))})"
        body.append(f"        let v = {call}; r.mix(v.bits());")
        body.append("    }")
        body.append(f'    println!("{{:<28}} {{:016x}}", "{name}", r.h);')
        body.append("}")
        L.extend(body)
        names.append(name)
    L.append("fn main() {\n    let mut r = R { s: 0x9e3779b97f4a7c15, h: 0 };")
    for n in names:
        L.append(f"    t_{n}(&mut r);")
    L.append("}")
    open(out, "w").write("\n".join(L) + "\n")


# ---------------------------------------------------------------------------

def main():
    manifest, tmp, verbose = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
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
    nfuncs = {"c": 0, "rs": 0}
    all_names = {}
    ndiv_all = 0
    drivers = open(os.path.join(tmp, "drivers"), "w")
    for src in sources:
        base = os.path.basename(src)
        lang = "c" if src.endswith(".c") else "rs"
        stext = open(src).read()
        directives, skips, irred, dir_errors = {}, set(), set(), []
        for m in DIRECTIVE_RE.finditer(stext):
            fn, toks = m.group(1), m.group(2)
            if not fn or not toks:
                dir_errors.append(f"malformed VARIANT-PARAMS directive: '{m.group(0).strip()}'")
                continue
            if fn in directives:
                dir_errors.append(f"duplicate VARIANT-PARAMS for {fn}")
            if not re.fullmatch(r'[vul]+', toks):
                dir_errors.append(f"bad VARIANT-PARAMS tokens '{toks}' for {fn}")
            directives[fn] = toks
        for m in SKIP_RE.finditer(stext):
            if not m.group(1):
                dir_errors.append("malformed O0-SKIP directive")
                continue
            skips.add(m.group(1))
        for m in IRRED_RE.finditer(stext):
            if m.group(1):
                irred.add(m.group(1))
        per_fn, order, nparams = {}, [], {}
        modes_expected = ["O2", "O0"] if lang == "c" else ["O1", "O2"]
        for s2, mode, ir in entries:
            if s2 != src:
                continue
            text = open(ir).read()
            mod_problems = []
            for ln in text.splitlines():
                if re.match(r'^\s*@', ln):
                    mod_problems.append(f"global definition: {ln.strip()[:100]}")
                if re.search(r'panic', ln, re.I):
                    mod_problems.append(f"mentions panic: {ln.strip()[:100]}")
            mod_problems = list(dict.fromkeys(mod_problems))
            for p in mod_problems[:3]:
                dir_errors.append(f"{mode}: {p}")
            if len(mod_problems) > 3:
                dir_errors.append(f"{mode}: ... and {len(mod_problems) - 3} more module-level problems")
            helpers = None
            if base in CALL_FILES:
                helpers = {}
                for name, internal, params, ptypes, ret, header, body in parse_functions(text):
                    if internal:
                        helpers[name] = check_function(params, ptypes, ret, header, body, "v" * len(params), {})[1] > 0
                # A helper that only calls a divergent helper is divergent too.
                changed = True
                while changed:
                    changed = False
                    for name, internal, params, ptypes, ret, header, body in parse_functions(text):
                        if internal and not helpers[name]:
                            if check_function(params, ptypes, ret, header, body, "v" * len(params), helpers)[1]:
                                helpers[name] = changed = True
            for name, internal, params, ptypes, ret, header, body in parse_functions(text):
                if internal and helpers is not None:
                    continue
                if internal:
                    dir_errors.append(f"{mode}: internal (helper) function {name} is defined")
                    continue
                if name not in per_fn:
                    per_fn[name] = {}
                    order.append(name)
                nparams[name] = len(params)
                toks = directives.get(name, "v" * len(params))
                if len(toks) != len(params):
                    toks = "v" * len(params)
                per_fn[name][mode] = check_function(params, ptypes, ret, header, body, toks, helpers)
        for fn, toks in directives.items():
            if fn not in per_fn:
                dir_errors.append(f"VARIANT-PARAMS names undefined function {fn}")
            elif len(toks) != nparams[fn]:
                dir_errors.append(f"VARIANT-PARAMS {fn} has {len(toks)} tokens for {nparams[fn]} parameters")
        for fn in skips:
            if fn not in per_fn:
                dir_errors.append(f"O0-SKIP names undefined function {fn}")
            if lang != "c":
                dir_errors.append(f"O0-SKIP {fn} outside a .c file is meaningless")
        for fn in irred:
            if fn not in per_fn:
                dir_errors.append(f"CHECK-IRREDUCIBLE names undefined function {fn}")
        protos = prototypes(src)
        pnames = [p[0] for p in protos]
        if sorted(pnames) != sorted(order):
            dir_errors.append(f"source definitions {sorted(set(pnames) ^ set(order))} do not match the IR "
                              "(keep each definition's signature on one line)")
        else:
            typemap = C_TYPES if lang == "c" else RS_TYPES
            bad = [(n, t) for n, r, ps in protos for t in [r] + ps if t not in typemap]
            if bad:
                dir_errors.append(f"unsupported source types for the self-test driver: {bad}")
            else:
                drv = os.path.join(tmp, os.path.basename(src) + (".driver.c" if lang == "c" else ".driver.rs"))
                if lang == "c":
                    gen_c_driver(protos, drv)
                else:
                    gen_rs_driver(src, protos, drv)
                drivers.write(f"{src}\t{drv}\n")
        for e in dir_errors:
            print(f"FAIL  {base}: {e}")
            fail += 1
        for name in order:
            nfuncs[lang] += 1
            if name in all_names:
                print(f"FAIL  {base}:{name}: name also defined in {all_names[name]}")
                fail += 1
            all_names[name] = base
            res = per_fn[name]
            parts, bad, notes = [], [], []
            any_div = False
            for mode in modes_expected:
                if mode not in res:
                    parts.append(f"{mode}:missing")
                    bad.append(f"{mode}: function not present")
                    continue
                probs, ndiv, cyc, irr = res[mode]
                tags = []
                if ndiv:
                    tags.append("div")
                    if not (mode == "O0" and name in skips):
                        any_div = True
                if cyc:
                    tags.append("loop")
                if irr:
                    tags.append("irreducible")
                tag = ("+" + "+".join(tags)) if tags else ""
                if mode == "O0" and name in skips:
                    parts.append("O0:skip")
                    if verbose:
                        notes.extend(f"O0 (skipped): {p}" for p in probs)
                    continue
                if probs:
                    parts.append(f"{mode}:FAIL{tag}")
                    bad.extend(f"{mode}: {p}" for p in probs[:8])
                    if len(probs) > 8:
                        bad.append(f"{mode}: ... and {len(probs) - 8} more")
                else:
                    parts.append(f"{mode}:ok{tag}")
                if verbose and not ndiv:
                    notes.append(f"{mode}: no branch on a varying value (if-converted to selects)")
            if not any_div:
                bad.append("no variant has a branch or switch on a varying value (not divergent)")
            if name in irred:
                if "O0" in res and not res["O0"][3]:
                    bad.append("CHECK-IRREDUCIBLE: the -O0 + mem2reg CFG is reducible")
            if any_div:
                ndiv_all += 1
            d = directives.get(name)
            tg = f" [{d}]" if d else ""
            print(f"{'FAIL' if bad else 'PASS'}  {base}:{name}{tg}  ({', '.join(parts)})")
            for b in bad:
                print(f"        - {b}")
            for n in notes:
                print(f"        note: {n}")
            if bad:
                fail += 1
    total = nfuncs["c"] + nfuncs["rs"]
    if total < 44:
        print(f"FAIL  only {total} functions; the corpus needs at least 44")
        fail += 1
    print(f"== {total} functions ({nfuncs['c']} C, {nfuncs['rs']} Rust) in {len(sources)} files; "
          f"{ndiv_all} divergent; {fail} failure(s)")
    sys.exit(1 if fail else 0)


main()
PYEOF

echo "== per-function IR checks"
"$PYTHON" "$TMP/corpus.py" "$manifest" "$TMP" "$VERBOSE" || status=1

echo "== execution self-check (special + random inputs, timeout ${TIMEOUT}s)"
run_bin() { # name bin out
  : >"$TMP/err"
  { RUST_BACKTRACE=0 timeout "$TIMEOUT" "$2" >"$3" 2>"$TMP/err"; } 2>/dev/null
  local rc=$?
  if [ $rc -eq 124 ]; then
    echo "FAIL  $1: timed out after ${TIMEOUT}s (a loop does not terminate quickly); last finished:"
    tail -n 1 "$3" | sed 's/^/      /'; status=1; return 1
  elif [ $rc -ne 0 ] || [ -s "$TMP/err" ]; then
    fail "$1: exit status $rc:"; return 1
  fi
  return 0
}
if [ -f "$TMP/drivers" ]; then
  while IFS=$'\t' read -r src drv; do
    base="$(basename "$src")"
    ok=1
    case "$src" in
    *.c)
      for lvl in O0 O2; do
        : >"$TMP/err"
        if ! "$CLANG" -$lvl -g -fno-math-errno -fsanitize=undefined -fno-sanitize-recover=all \
          -Wno-unused-command-line-argument -o "$TMP/$base.$lvl.bin" "$src" "$drv" 2>"$TMP/err"; then
          fail "$base: building the UBSan self-test at -$lvl:"; ok=0; continue
        fi
        run_bin "$base (UBSan -$lvl)" "$TMP/$base.$lvl.bin" "$TMP/$base.$lvl.out" || ok=0
      done
      a="$TMP/$base.O0.out"; b="$TMP/$base.O2.out"; what="UBSan -O0 and -O2"
      ;;
    *.rs)
      : >"$TMP/err"
      if ! "$RUSTC" --edition 2021 -C opt-level=0 -C overflow-checks=on -C debug-assertions=on \
        --crate-name selftest -o "$TMP/$base.dbg.bin" "$drv" 2>"$TMP/err"; then
        fail "$base: building the overflow-checked self-test:"; ok=0
      else
        run_bin "$base (overflow-checks, opt-level=0)" "$TMP/$base.dbg.bin" "$TMP/$base.dbg.out" || ok=0
      fi
      : >"$TMP/err"
      if ! "$RUSTC" --edition 2021 -C opt-level=2 --crate-name selftest -o "$TMP/$base.rel.bin" "$drv" 2>"$TMP/err"; then
        fail "$base: building the opt-level=2 self-test:"; ok=0
      else
        run_bin "$base (opt-level=2)" "$TMP/$base.rel.bin" "$TMP/$base.rel.out" || ok=0
      fi
      a="$TMP/$base.dbg.out"; b="$TMP/$base.rel.out"; what="checked opt-level=0 and opt-level=2"
      ;;
    esac
    if [ $ok -eq 1 ]; then
      if cmp -s "$a" "$b"; then
        echo "ok    $base: $(wc -l <"$a") functions ran without UB/panic/timeout; $what agree"
        [ $VERBOSE -eq 1 ] && sed 's/^/      /' "$a"
      else
        echo "FAIL  $base: results differ between $what:"
        diff "$a" "$b" | sed 's/^/      /'
        status=1
      fi
    fi
  done <"$TMP/drivers"
else
  echo "FAIL  no self-test drivers were generated"; status=1
fi

if [ "$status" -eq 0 ]; then echo "== ALL PASS"; else echo "== FAILURES"; fi
exit "$status"
