//! A stable text form of the analyses of one function, for
//! `--print-analysis` and the lit tests that check the analyses: the
//! parameters' kinds, every instruction's uniformity (with the stride of
//! strided values, `; stride S`, `checked` when it holds only if no wrap is
//! seen at run time; see [`super::shape`]), the loops (with
//! whether lanes leave them together), and the control plan of each level.
//!
//! Blocks are named by their IR name, or `#<index in reverse post-order>`
//! when unnamed; instructions are printed by LLVM.

use super::cfg::Cfg;
use super::divergence::{ControlPlan, Node};
use super::loops::{LoopId, Loops};
use super::shape::Shapes;
use super::uniformity::Uniformity;
use crate::llvm::{Block, Value};
use crate::vfabi::ParamKind;
use std::fmt::Write;

/// Renders the analyses of the prepared function `f`.
pub fn render(
    f: Value,
    params: &[ParamKind],
    cfg: &Cfg,
    loops: &Loops,
    uniformity: &Uniformity,
    shapes: &Shapes,
    plan: &ControlPlan,
) -> String {
    let block_name = |b: Block| -> String {
        let n = b.name();
        if n.is_empty() {
            let idx = cfg.rpo.iter().position(|x| *x == b).unwrap_or(usize::MAX);
            format!("#{idx}")
        } else {
            format!("%{n}")
        }
    };
    let loop_name = |l: LoopId| format!("loop %{}", loops.loops[l.0].header.name());
    let mut out = String::new();
    let _ = writeln!(out, "params:");
    for (p, kind) in f.params().into_iter().zip(params) {
        let _ = writeln!(out, "  %{}: {}", p.name(), param_kind(kind));
    }
    let _ = writeln!(out, "values:");
    for &b in &cfg.rpo {
        let _ = writeln!(out, "  {}:", block_name(b));
        for i in b.instructions() {
            let class = if uniformity.is_varying(i) { "varying" } else { "uniform" };
            let stride = match shapes.stride(i) {
                Some(s) if s.checked() => format!("  ; stride {} checked", s.step),
                Some(s) => format!("  ; stride {}", s.step),
                None => String::new(),
            };
            let _ = writeln!(out, "    {class:<8}{}{stride}", i.print().trim());
        }
    }
    let _ = writeln!(out, "loops:");
    for (k, l) in loops.loops.iter().enumerate() {
        let parent = l.parent.map(loop_name).unwrap_or_else(|| "function".into());
        let kind = if plan.is_divergent(LoopId(k)) { "divergent" } else { "uniform" };
        let _ =
            writeln!(out, "  {}: {kind}, depth {}, in {parent}, {} block(s)", loop_name(LoopId(k)), l.depth, l.size);
    }
    let _ = writeln!(out, "plan:");
    let mut levels: Vec<Option<LoopId>> = plan.levels.keys().copied().collect();
    levels.sort_by_key(|l| l.map_or(0, |id| id.0 + 1));
    for level in levels {
        let p = &plan.levels[&level];
        let name = level.map(loop_name).unwrap_or_else(|| "function".into());
        let nodes: Vec<String> = p
            .nodes
            .iter()
            .map(|n| match n {
                Node::Block(b) => block_name(*b),
                Node::Loop(l) => format!("[{}]", loop_name(*l)),
            })
            .collect();
        let how = if p.linear { "linearized" } else { "real control flow" };
        let _ = writeln!(out, "  {name}: {how}: {}", nodes.join(" "));
        let mut regions: Vec<(&Block, _)> = p.regions.iter().collect();
        regions.sort_by_key(|(b, _)| cfg.rpo.iter().position(|x| x == *b));
        for (head, r) in regions {
            let blocks: Vec<String> = r.blocks.iter().map(|b| block_name(*b)).collect();
            let _ = writeln!(
                out,
                "    uniform branch kept at {}: {} -> join {}",
                block_name(*head),
                blocks.join(" "),
                block_name(r.join)
            );
        }
    }
    out
}

fn param_kind(k: &ParamKind) -> String {
    match k {
        ParamKind::Vector => "varying".into(),
        ParamKind::Uniform => "uniform".into(),
        ParamKind::Linear { step } => format!("linear, step {step}"),
        ParamKind::LinearVarStep { param } => format!("linear, step in parameter {param}"),
        other => format!("{other:?}"),
    }
}
