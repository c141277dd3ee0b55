//! One run: one function batched to one variant, verified and checked by
//! the oracle, classified into a [`Record`].

use super::record::{normalize, Record};
use super::{isa_name, VARIANTS};
use crate::corpus::parse_module;
use crate::{CheckConfig, Oracle, OracleError, OracleOptions};
use batchify_core::llvm::{LLVMOpcode, Module, Value};
use batchify_core::vfabi::Isa;
use batchify_core::{CloneSpec, Error, Options};
use inkwell::context::Context;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::Instant;

fn has_ret(f: Value) -> bool {
    f.blocks().into_iter().any(|bb| bb.terminator().is_some_and(|t| t.opcode() == LLVMOpcode::LLVMRet))
}

fn named_function<'ctx>(m: Module<'ctx>, name: &str) -> Option<Value<'ctx>> {
    std::ffi::CString::new(name).ok()?;
    m.function(name)
}

/// Whether this host can run clones of `isa`.
pub fn host_has(isa: Isa) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        match isa {
            Isa::Avx2 => is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma"),
            Isa::Avx512 => {
                is_x86_feature_detected!("avx512f")
                    && is_x86_feature_detected!("avx512bw")
                    && is_x86_feature_detected!("avx512dq")
                    && is_x86_feature_detected!("avx512vl")
            }
            _ => false,
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = isa;
        false
    }
}

fn panic_text(p: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "non-string panic payload".into()
    }
}

fn error_kind(e: &Error) -> (&'static str, String) {
    match e {
        Error::UnknownFunction { reason, .. } => ("rejected", format!("unknown function: {}", normalize(reason))),
        Error::BadVariant(m) => ("rejected", format!("bad variant: {}", normalize(m))),
        Error::VariantMismatch { reason, .. } => ("rejected", format!("variant mismatch: {}", normalize(reason))),
        Error::Unsupported { what, .. } => ("rejected", format!("unsupported: {}", normalize(what))),
        Error::BatchCall { message, .. } => ("rejected", format!("__enzyme_batch call: {}", normalize(message))),
        Error::Map { reason, .. } => ("rejected", format!("map entry: {}", normalize(reason))),
        Error::CrossLane { message, .. } => ("rejected", format!("cross-lane operation: {}", normalize(message))),
        Error::Internal { message, .. } => ("internal", normalize(message)),
    }
}

/// Batches variant `v` of `name` in the cut-out module `bytes` (fresh
/// context) and checks it. `phase` is called when the oracle starts, with
/// the record so far.
pub fn run_one(
    bytes: &[u8],
    base: &Record,
    name: &str,
    nparams: usize,
    v: usize,
    trials: usize,
    phase: &mut dyn FnMut(&Record),
) -> Record {
    let (isa, width, masked) = VARIANTS[v];
    let spec = CloneSpec::all_varying(name, nparams, width, isa, masked);
    let mut r = Record {
        variant: spec.vector_name.clone(),
        isa: isa_name(isa).into(),
        width,
        masked,
        oracle: "n/a".into(),
        ..base.clone()
    };
    let start = Instant::now();
    let ctx = Context::create();
    let module = match parse_module(&ctx, bytes, name) {
        Ok(m) => m,
        Err(e) => {
            r.outcome = "crash".into();
            r.detail = "the cut-out module does not parse".into();
            r.message = e;
            return r;
        }
    };
    let m = Module::from_inkwell(&module);
    let scalar_ret = named_function(m, name).is_some_and(has_ret);
    let built = catch_unwind(AssertUnwindSafe(|| {
        batchify_core::batchify_inkwell(
            &module,
            std::slice::from_ref(&spec),
            &Options { cost_model: false, ..Options::default() },
        )
    }));
    let ok = match built {
        Err(p) => {
            r.outcome = "panic".into();
            r.message = panic_text(p.as_ref());
            r.detail = normalize(&r.message);
            false
        }
        Ok(Err(e)) => {
            let (kind, detail) = error_kind(&e);
            r.outcome = kind.into();
            r.detail = detail;
            r.message = e.to_string();
            false
        }
        Ok(Ok(reports)) => {
            let fallback = reports.first().and_then(|rep| rep.fallback.clone());
            if let Err(e) = m.verify() {
                r.outcome = "invalid-ir".into();
                r.message = e.lines().take(3).collect::<Vec<_>>().join(" | ");
                r.detail = normalize(&r.message);
                false
            } else if scalar_ret && !named_function(m, &spec.vector_name).is_some_and(has_ret) {
                r.outcome = "bodiless".into();
                r.detail = match &fallback {
                    Some(why) => format!("fallback: {}", normalize(why)),
                    None => "vectorized".into(),
                };
                r.message = fallback.unwrap_or_default();
                false
            } else {
                match fallback {
                    Some(why) => {
                        r.outcome = "fallback".into();
                        r.detail = normalize(&why);
                        r.message = why;
                    }
                    None => r.outcome = "vectorized".into(),
                }
                true
            }
        }
    };
    if ok {
        if !host_has(isa) {
            r.oracle = "not-checked".into();
            r.oracle_detail = format!("this host cannot run {} clones", isa_name(isa));
        } else {
            phase(&r);
            let cfg = CheckConfig { trials, ..CheckConfig::default() };
            let checked = catch_unwind(AssertUnwindSafe(|| {
                // Callers optimised at -O2 must still see the clone's memory
                // effects (a copied `memory(argmem: ...)` fails here).
                let opts = OracleOptions {
                    optimized_caller: true,
                    timeout_secs: 3,
                    skip_poison_inputs: true,
                    ..OracleOptions::default()
                };
                Oracle::with_options(&module, std::slice::from_ref(&spec), &opts).and_then(|o| o.check_all(&cfg))
            }));
            match checked {
                Ok(Ok(stats)) => {
                    r.oracle = "ok".into();
                    r.lanes = stats.lanes_compared as u64;
                }
                Ok(Err(OracleError::Mismatch(mm))) => {
                    r.oracle = "mismatch".into();
                    r.oracle_detail = mm.to_string();
                }
                Ok(Err(OracleError::Setup(s))) => {
                    r.oracle = "not-checked".into();
                    r.oracle_detail = normalize(&s);
                }
                Err(p) => {
                    r.oracle = "panic".into();
                    r.oracle_detail = normalize(&panic_text(p.as_ref()));
                }
            }
        }
    }
    r.ms = start.elapsed().as_millis() as u64;
    r
}
