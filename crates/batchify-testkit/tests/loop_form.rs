//! `prepare::loop_form` (preparation leaves out `loop-simplify,lcssa`
//! where a function is already in their form) against LLVM itself: on the
//! random generator's functions, as generated and after `default<O2>`,
//! wherever the check says "in form", running the two passes changes
//! nothing. The check must also say "in form" often enough to matter.

use batchify_core::analysis::{cfg::Cfg, dominance::Dominators, loops::Loops};
use batchify_core::llvm::{parse_ir, run_function_passes, run_module_passes, Module};
use batchify_core::prepare::loop_form::is_simplified_and_closed;
use batchify_testkit::gen::{self, GenConfig};

#[test]
fn functions_said_to_be_in_loop_form_are_left_alone_by_the_loop_passes() {
    let cfg = GenConfig::default();
    let (mut functions, mut in_form, mut with_loops, mut with_loops_in_form) = (0, 0, 0, 0);
    for seed in 0..600u64 {
        let program = gen::generate(0x100f_0000 + seed, &cfg);
        for optimised in [false, true] {
            let ctx = inkwell::context::Context::create();
            let m = parse_ir(&ctx, &program.ir, "p").expect("generated IR parses");
            let module = Module::from_inkwell(&m);
            if optimised {
                run_module_passes(module, "default<O2>").expect("default<O2> runs");
            }
            for f in module.functions().into_iter().filter(|f| !f.is_declaration()) {
                run_function_passes(f, "mem2reg,mergereturn").expect("mem2reg runs");
                functions += 1;
                with_loops += usize::from(has_loops(f));
                if !is_simplified_and_closed(f) {
                    continue;
                }
                in_form += 1;
                let before = f.print_function();
                if has_loops(f) {
                    with_loops_in_form += 1;
                }
                run_function_passes(f, "loop-simplify,lcssa").expect("loop passes run");
                assert_eq!(
                    before,
                    f.print_function(),
                    "seed {seed} (optimised: {optimised}): said to be in form, but loop-simplify,lcssa changed it"
                );
            }
        }
    }
    eprintln!("{in_form} of {functions} functions in loop form; {with_loops_in_form} of the {with_loops} with loops");
    assert!(in_form * 4 >= functions, "only {in_form} of {functions} functions were found in form");
    assert!(
        with_loops_in_form * 5 >= with_loops,
        "only {with_loops_in_form} of {with_loops} functions with loops were in form"
    );
}

fn has_loops(f: batchify_core::llvm::Value) -> bool {
    let cfg = Cfg::new(f);
    Loops::new(&cfg, &Dominators::new(&cfg)).is_ok_and(|l| !l.loops.is_empty())
}
