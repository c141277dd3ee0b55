//! `--print-plan`: the plan as text, one line per instruction, in the
//! prepared function's block order, like LLVM's `-vplan-print`.
//!
//! ```text
//! loop.body: mask partial
//!   widen arithmetic: %s = fadd float %x, %y
//!   load vector access: %v = load float, ptr %p, align 4
//!   call declared variant `_ZGVdM8v_g`: %r = call float @g(float %v)
//! ```

use super::{Access, Plan, Recipe};
use crate::analysis::cfg::Cfg;

/// The text of `plan` for the function `cfg` describes.
pub(super) fn render(plan: &Plan, cfg: &Cfg) -> String {
    let mut out = String::new();
    for (k, b) in cfg.rpo.iter().enumerate() {
        let name = b.name();
        let name = if name.is_empty() { format!("#{k}") } else { name };
        let mask = if plan.full(*b) { "full" } else { "partial" };
        out += &format!("{name}: mask {mask}\n");
        for i in b.instructions() {
            out += &format!("  {}: {}\n", describe(plan.recipe(i)), i.print().trim());
        }
    }
    out
}

/// A recipe's text.
pub fn describe(r: &Recipe) -> String {
    match r {
        Recipe::Uniform => "uniform".into(),
        Recipe::Widened(w) => format!("widen {}", w.name()),
        Recipe::Memory { load, recipe } => {
            let what = if *load { "load" } else { "store" };
            let checked = match (recipe.checked, recipe.lanewise) {
                (true, true) => ", checked, lane-wise",
                (true, false) => ", checked",
                (false, true) => ", lane-wise",
                (false, false) => "",
            };
            let form = match recipe.access {
                Access::Gather(why) if !*load => format!("scatter ({why})"),
                a => a.name(*load),
            };
            format!("{what} {form}{checked}")
        }
        Recipe::Call(c) => format!("call {}", c.describe()),
        Recipe::PerLane(Some(why)) => format!("per lane ({why})"),
        Recipe::PerLane(None) => "per lane".into(),
        Recipe::Deferred => "deferred noreturn".into(),
        Recipe::CrossLane(op) => format!("cross-lane {op:?}"),
        Recipe::Tape(crate::plan::TapeOp::Grow) => "tape: grow the lanes' shared buffer".into(),
        Recipe::Tape(crate::plan::TapeOp::Free) => "tape: free the shared buffer at the return".into(),
        Recipe::Dropped => "dropped".into(),
        Recipe::Control => "control".into(),
    }
}
