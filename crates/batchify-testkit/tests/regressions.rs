//! Oracle tests over `tests/corpus/regressions`: programs (mostly found by the
//! fuzzer) that once made a clone wrong or trap.

use batchify_core::vfabi::Isa;
use batchify_testkit::corpus::{run_corpus, CLevel, CorpusRun};
use std::path::Path;

#[test]
fn regressions_stay_fixed() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus/regressions");
    let mut runs = vec![(Isa::Llvm, vec![4, 8, 16])];
    if batchify_testkit::skip::require_cpu("regressions_stay_fixed (AVX2 clones)", "avx2") {
        runs.push((Isa::Avx2, vec![8]));
    }
    if batchify_testkit::skip::require_cpu("regressions_stay_fixed (AVX-512 clones)", "avx512f") {
        runs.push((Isa::Avx512, vec![16]));
    }
    for (isa, widths) in &runs {
        for masked in [false, true] {
            let run = CorpusRun { widths, masked, isa: *isa, trials: 100 };
            match run_corpus(&dir, &["ll"], &[CLevel::O2], run) {
                Ok(n) => assert!(n >= 2 * widths.len(), "too few functions checked: {n}"),
                Err(e) => panic!("{isa:?} masked={masked}: {e}"),
            }
        }
    }
}
