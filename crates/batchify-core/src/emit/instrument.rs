//! Lane utilisation, measured (`--instrument-lanes`, `Options::instrument_lanes`).
//!
//! Every divergent loop of an instrumented clone counts, per trip, the trip
//! and its active lanes into a counter array of its own, a module global
//! `__batchify_lanes.c<k>` of `N + 3` `i64`s:
//!
//! ```text
//! [0] trips   [1] active lanes summed over trips   [2 + a] trips with a active lanes (a = 0..=N)
//! ```
//!
//! with its label (`<clone>: loop at <file>:<line>`, or the loop header's
//! name without debug information, if it has one) in `__batchify_lanes.s<k>`. An adaptive
//! map counts its probes and how often refill won in `__batchify_lanes.m<k>`
//! (`[0]` probes, `[1]` refill faster). The first time an instrumented loop
//! or map runs, it registers `__batchify_lanes.report` with `atexit`;
//! [`complete_report`] (re)builds that function from the counters the module
//! has. At exit it prints one line per counter array that ran, to the file
//! named by `BATCHIFY_LANES_FILE` (appended) or else to standard error:
//!
//! ```text
//! batchify lanes: _ZGVdN8vv_mandel: loop at mandel.c:4: 131072 trips, utilisation 0.952; active lanes: 1:12 2:40 ... 8:120000
//! batchify lanes: mandel_map: 30 probes, refill faster in 28
//! ```
//!
//! Counts are plain loads and stores (no atomics): with threads calling the
//! same clone at once they are approximate. Instrumented clones are for
//! measuring; the counting costs a few instructions per trip.

use super::state::Widener;
use crate::llvm::LLVMOpcode::*;
use crate::llvm::{constant, Block, Builder, LLVMIntPredicate, Module, Type, Value};

/// Name prefix of a loop's counters.
pub const COUNTERS_PREFIX: &str = "__batchify_lanes.c";
/// Name prefix of an adaptive map's counters.
pub const MAP_COUNTERS_PREFIX: &str = "__batchify_lanes.m";
/// Name prefix of a counter array's label.
const LABEL_PREFIX: &str = "__batchify_lanes.s";
/// The report function, registered with `atexit`.
const REPORT: &str = "__batchify_lanes.report";
/// The flag: the report is registered.
const REGISTERED: &str = "__batchify_lanes.registered";
/// The environment variable naming the report's file.
pub const FILE_VARIABLE: &str = "BATCHIFY_LANES_FILE";

/// A new counter array of `len` `i64`s named `<prefix><k>`, with its label.
pub fn add_counters<'ctx>(module: Module<'ctx>, prefix: &str, len: u32, label: &str) -> Value<'ctx> {
    let ctx = module.context();
    let mut k = 0;
    while module.has_global_named(&format!("{prefix}{k}")) {
        k += 1;
    }
    let ty = Type::int(ctx, 64).array_of(len);
    let name = format!("{prefix}{k}");
    let g = module.add_global(ty, &name);
    g.set_initializer(constant::null(ty));
    g.set_linkage(crate::llvm::LLVMLinkage::LLVMInternalLinkage);
    module.add_c_string(&label_name(&name), label);
    g
}

/// The name of the label of the counter array named `counters`
/// (`__batchify_lanes.c3` -> `__batchify_lanes.sc3`).
fn label_name(counters: &str) -> String {
    format!("{LABEL_PREFIX}{}", counters.trim_start_matches("__batchify_lanes."))
}

/// `counters[index] += by` (plain load and store).
pub fn bump<'ctx>(b: &Builder<'ctx>, counters: Value<'ctx>, index: Value<'ctx>, by: Value<'ctx>) {
    let i64t = Type::int(b.context(), 64);
    let at = b.gep(i64t, counters, &[index], Default::default());
    let old = b.load(i64t, at, 8);
    let new = b.binop(LLVMAdd, old, by);
    b.store(new, at, 8);
}

/// Registers the report with `atexit` unless it is registered already;
/// continues in a new block of `f`, which it returns.
pub fn register_report<'ctx>(module: Module<'ctx>, b: &Builder<'ctx>, f: Value<'ctx>) -> Block<'ctx> {
    let ctx = module.context();
    let i8t = Type::int(ctx, 8);
    let flag = module.global(REGISTERED).unwrap_or_else(|| {
        let g = module.add_global(i8t, REGISTERED);
        g.set_initializer(constant::null(i8t));
        g.set_linkage(crate::llvm::LLVMLinkage::LLVMInternalLinkage);
        g
    });
    let report = report_function(module);
    let atexit = libc_function(module, "atexit", Type::function(Type::int(ctx, 32), &[Type::ptr(ctx)]));
    let done = b.load(i8t, flag, 1);
    let is_done = b.icmp(LLVMIntPredicate::LLVMIntNE, done, constant::null(i8t));
    let register = f.append_block("lanes.register");
    let cont = f.append_block("lanes.registered");
    b.cond_br(is_done, cont, register);
    b.position_at_end(register);
    b.store(constant::int(i8t, 1), flag, 1);
    b.call(atexit.function_type(), atexit, &[report]);
    b.br(cont);
    b.position_at_end(cont);
    cont
}

/// The module's report function (declared here, defined by
/// [`complete_report`]).
fn report_function(module: Module) -> Value {
    module
        .function(REPORT)
        .unwrap_or_else(|| module.add_function(REPORT, Type::function(Type::void(module.context()), &[])))
}

/// The C library function `name` of type `ty`, declared if the module has
/// no function of that name.
fn libc_function<'ctx>(module: Module<'ctx>, name: &str, ty: Type<'ctx>) -> Value<'ctx> {
    module.function(name).unwrap_or_else(|| module.add_function(name, ty))
}

impl<'ctx> Widener<'_, 'ctx> {
    /// At the top of a trip of a divergent loop with lanes `mask`
    /// (`<N x i1>`): counts the trip, its lanes and its histogram bucket
    /// into `counters`.
    pub(super) fn count_trip(&mut self, counters: Value<'ctx>, mask: Value<'ctx>) {
        let i64t = Type::int(self.ctx(), 64);
        let active = self.lanes_set(mask, i64t);
        let one = constant::int(i64t, 1);
        bump(&self.b, counters, constant::null(i64t), one);
        bump(&self.b, counters, one, active);
        let bucket = self.b.binop(LLVMAdd, active, constant::int(i64t, 2));
        bump(&self.b, counters, bucket, one);
    }

    /// The counters of divergent loop `header` (see the module
    /// documentation), and the registration of the report, emitted where
    /// the loop is entered; `None` unless the clone is instrumented.
    pub(super) fn loop_counters(&mut self, header: Block<'ctx>) -> Option<Value<'ctx>> {
        if !self.instrument_lanes {
            return None;
        }
        let first = header.instructions().into_iter().find(|i| i.debug_line().is_some());
        let place = match first.and_then(|i| Some((i.debug_file()?, i.debug_line()?))) {
            Some((file, line)) => format!("loop at {}:{line}", file.rsplit('/').next().unwrap_or(&file)),
            // Compilers that discard value names (clang) leave blocks unnamed.
            None if header.name().is_empty() => "loop without a debug location".to_string(),
            None => format!("loop %{}", header.name()),
        };
        let label = format!("{}: {place}", self.clone.name());
        let counters = add_counters(self.module, COUNTERS_PREFIX, self.n + 3, &label);
        register_report(self.module, &self.b, self.clone);
        Some(counters)
    }
}

/// (Re)builds the module's report function from the counter arrays it has
/// (see the module documentation); does nothing if there are none.
pub fn complete_report(module: Module) {
    let Some(report) = module.function(REPORT) else { return };
    let ctx = module.context();
    let (i32t, i64t, ptr) = (Type::int(ctx, 32), Type::int(ctx, 64), Type::ptr(ctx));
    if !report.is_declaration() {
        report.delete_body();
    }
    report.set_linkage(crate::llvm::LLVMLinkage::LLVMInternalLinkage);
    let fprintf = libc_function(module, "fprintf", Type::function_variadic(i32t, &[ptr, ptr]));
    let getenv = libc_function(module, "getenv", Type::function(ptr, &[ptr]));
    let fopen = libc_function(module, "fopen", Type::function(ptr, &[ptr, ptr]));
    let fclose = libc_function(module, "fclose", Type::function(i32t, &[ptr]));
    let stderr = module.global("stderr").unwrap_or_else(|| module.add_global(ptr, "stderr"));
    let strings = Strings { module };
    let b = Builder::new(ctx);
    let entry = report.append_block("entry");
    let open = report.append_block("open");
    let pick = report.append_block("pick");
    b.position_at_end(entry);
    let path = b.call(getenv.function_type(), getenv, &[strings.get("var", FILE_VARIABLE)]);
    let none = b.icmp(LLVMIntPredicate::LLVMIntEQ, path, constant::null(ptr));
    b.cond_br(none, pick, open);
    b.position_at_end(open);
    let file = b.call(fopen.function_type(), fopen, &[path, strings.get("mode", "a")]);
    b.br(pick);
    b.position_at_end(pick);
    let opened = b.phi(ptr);
    opened.add_incoming(constant::null(ptr), entry);
    opened.add_incoming(file, open);
    let err = b.load(ptr, stderr, 8);
    let have = b.icmp(LLVMIntPredicate::LLVMIntNE, opened, constant::null(ptr));
    let out = b.select(have, opened, err);
    let print_loop = print_loop_function(module, fprintf, &strings);
    for g in module.global_variables() {
        let name = g.name();
        let is_map = name.starts_with(MAP_COUNTERS_PREFIX);
        if !is_map && !name.starts_with(COUNTERS_PREFIX) {
            continue;
        }
        let Some(label) = module.global(&label_name(&name)) else { continue };
        if is_map {
            let probes = b.load(i64t, g, 8);
            let at = b.gep(i64t, g, &[constant::int(i64t, 1)], Default::default());
            let wins = b.load(i64t, at, 8);
            let fmt = strings.get("map", "batchify lanes: %s: %llu probes, refill faster in %llu\n");
            b.call(fprintf.function_type(), fprintf, &[out, fmt, label, probes, wins]);
        } else {
            let lanes = g.global_value_type().array_len() - 3;
            b.call(print_loop.function_type(), print_loop, &[out, label, g, constant::int(i64t, u64::from(lanes))]);
        }
    }
    let close = report.append_block("close");
    let done = report.append_block("done");
    b.cond_br(have, close, done);
    b.position_at_end(close);
    b.call(fclose.function_type(), fclose, &[opened]);
    b.br(done);
    b.position_at_end(done);
    b.ret(None);
}

/// The format strings of the report, one private global each.
struct Strings<'ctx> {
    module: Module<'ctx>,
}

impl<'ctx> Strings<'ctx> {
    /// The string `text` as `__batchify_lanes.f.<key>` (made once).
    fn get(&self, key: &str, text: &str) -> Value<'ctx> {
        let name = format!("__batchify_lanes.f.{key}");
        self.module.global(&name).unwrap_or_else(|| self.module.add_c_string(&name, text))
    }
}

/// `void __batchify_lanes.print(ptr out, ptr label, ptr counters, i64 n)`:
/// one loop's line (nothing if it never ran).
///
/// ```text
/// entry: trips = c[0]; br trips == 0 ? done : head
/// head:  fprintf("...: %llu trips, utilisation %.3f; active lanes:", trips, c[1] / (trips * n))
/// loop:  a = phi; v = c[2 + a]; br v == 0 ? next : put; put: fprintf(" %llu:%llu", a, v)
/// next:  a += 1; br a <= n ? loop : end; end: fprintf("\n")
/// ```
fn print_loop_function<'ctx>(module: Module<'ctx>, fprintf: Value<'ctx>, strings: &Strings<'ctx>) -> Value<'ctx> {
    const NAME: &str = "__batchify_lanes.print";
    let ctx = module.context();
    let (i64t, ptr, f64t) = (Type::int(ctx, 64), Type::ptr(ctx), Type::double(ctx));
    if let Some(f) = module.function(NAME) {
        return f;
    }
    let f = module.add_function(NAME, Type::function(Type::void(ctx), &[ptr, ptr, ptr, i64t]));
    f.set_linkage(crate::llvm::LLVMLinkage::LLVMInternalLinkage);
    let ps = f.params();
    let (out, label, c, n) = (ps[0], ps[1], ps[2], ps[3]);
    let b = Builder::new(ctx);
    let [entry, head, lp, put, next, end, done] =
        ["entry", "head", "loop", "put", "next", "end", "done"].map(|name| f.append_block(name));
    let at = |b: &Builder<'ctx>, k: Value<'ctx>| b.gep(i64t, c, &[k], Default::default());
    b.position_at_end(entry);
    let trips = b.load(i64t, c, 8);
    let never = b.icmp(LLVMIntPredicate::LLVMIntEQ, trips, constant::null(i64t));
    b.cond_br(never, done, head);
    b.position_at_end(head);
    let lanes = b.load(i64t, at(&b, constant::int(i64t, 1)), 8);
    let slots = b.binop(LLVMMul, trips, n);
    let use_ = b.binop(LLVMFDiv, b.cast(LLVMUIToFP, lanes, f64t), b.cast(LLVMUIToFP, slots, f64t));
    let fmt = strings.get("loop", "batchify lanes: %s: %llu trips, utilisation %.3f; active lanes:");
    b.call(fprintf.function_type(), fprintf, &[out, fmt, label, trips, use_]);
    b.br(lp);
    b.position_at_end(lp);
    let a = b.phi(i64t);
    a.add_incoming(constant::null(i64t), head);
    let slot = b.binop(LLVMAdd, a, constant::int(i64t, 2));
    let v = b.load(i64t, at(&b, slot), 8);
    let zero = b.icmp(LLVMIntPredicate::LLVMIntEQ, v, constant::null(i64t));
    b.cond_br(zero, next, put);
    b.position_at_end(put);
    b.call(fprintf.function_type(), fprintf, &[out, strings.get("bucket", " %llu:%llu"), a, v]);
    b.br(next);
    b.position_at_end(next);
    let a1 = b.binop(LLVMAdd, a, constant::int(i64t, 1));
    a.add_incoming(a1, next);
    let more = b.icmp(LLVMIntPredicate::LLVMIntULE, a1, n);
    b.cond_br(more, lp, end);
    b.position_at_end(end);
    b.call(fprintf.function_type(), fprintf, &[out, strings.get("newline", "\n")]);
    b.br(done);
    b.position_at_end(done);
    b.ret(None);
    f
}
