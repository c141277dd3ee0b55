//! Oracle tests over `tests/corpus/callees`: calls of module functions
//! (aggregate results, variadic, `weak` and `linkonce_odr` callees, calls
//! between targets), batched into callee clones or kept per lane.

use batchify_core::vfabi::Isa;
use batchify_testkit::corpus::{run_corpus, CLevel, CorpusRun};
use std::path::Path;

#[test]
fn callee_corpus() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus/callees");
    let mut runs = vec![(Isa::Llvm, vec![4, 8, 16])];
    if batchify_testkit::skip::require_cpu("callee_corpus (AVX2 clones)", "avx2") {
        runs.push((Isa::Avx2, vec![8]));
    }
    if batchify_testkit::skip::require_cpu("callee_corpus (AVX-512 clones)", "avx512f") {
        runs.push((Isa::Avx512, vec![16]));
    }
    for (isa, widths) in &runs {
        for masked in [false, true] {
            let run = CorpusRun { widths, masked, isa: *isa, trials: 100 };
            match run_corpus(&dir, &["ll"], &[CLevel::O2], run) {
                Ok(n) => assert!(n >= 8 * widths.len(), "too few functions checked: {n}"),
                Err(e) => panic!("{isa:?} masked={masked}: {e}"),
            }
        }
    }
}
