// The C++ side of batchify's pass plugin: only what needs LLVM's C++ API.
//
// * registers the module pass `batchify` / `batchify<params>` for textual
//   pipelines (`opt -passes=...`, `rustc -C passes=...`), and at the
//   OptimizerEarly and FullLinkTimeOptimizationEarly extension points, so
//   that `clang -fpass-plugin=` builds the variants without any flag;
// * defines the `-batchify-*` command-line options (`opt -batchify-...`,
//   `clang -mllvm -batchify-...`);
// * turns the Rust side's messages into LLVM diagnostics (remarks that
//   `-Rpass=batchify` / `-Rpass-missed=batchify` show, warnings).
//
// Everything else (choosing the clones, building them) is Rust: the pass
// calls `batchify_plugin_run` with the module and the options as text.
// Built with -fno-rtti and -fno-exceptions, like LLVM itself.

#include "llvm-c/Types.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <mutex>
#include <string>
#include <vector>

using namespace llvm;

extern "C" {
// Implemented in Rust (src/lib.rs). Returns 1 if the module changed.
int batchify_plugin_run(LLVMModuleRef module, const char *pass_params, const char *cl_params, int automatic);
// Implemented in Rust: marks the omp simd loops' calls of declare simd
// functions defined in the module noinline. Returns 1 if it marked one.
int batchify_plugin_keep_simd_calls(LLVMModuleRef module);
int batchify_plugin_mark_cross_lane(LLVMModuleRef module);
// Implemented in Rust: checks a parameter string; on error writes a
// malloc'ed message to *error (freed here with free()) and returns 0.
int batchify_plugin_check_params(const char *params, char **error);
int batchify_plugin_lower_vector_math(LLVMModuleRef module, const char *lib);
}

namespace {

cl::OptionCategory Category("batchify options");

cl::opt<std::string> OptIsa("batchify-isa", cl::cat(Category),
                            cl::desc("batchify: only build variants for this ISA (sse, avx, avx2, avx512, generic); "
                                     "also the ISA of -batchify-function clones"),
                            cl::init(""));
cl::opt<unsigned> OptWidth("batchify-width", cl::cat(Category),
                           cl::desc("batchify: lanes of -batchify-function clones (default 8)"), cl::init(0));
cl::opt<std::string> OptVeclib("batchify-veclib", cl::cat(Category),
                               cl::desc("batchify: vector math library (none, libmvec)"), cl::init(""));
cl::list<std::string> OptFunction("batchify-function", cl::cat(Category), cl::CommaSeparated,
                                  cl::desc("batchify: also batch these functions, every parameter varying"));
cl::list<std::string> OptVariant("batchify-variant", cl::cat(Category), cl::CommaSeparated,
                                 cl::desc("batchify: build these Vector Function ABI variants (e.g. _ZGVdN8v_foo)"));
cl::opt<bool> OptReport("batchify-report", cl::cat(Category),
                        cl::desc("batchify: print what was built for each clone on stderr"), cl::init(false));
cl::opt<bool> OptNoCallers("batchify-no-callers", cl::cat(Category),
                           cl::desc("batchify: do not point call sites at declare simd variants"), cl::init(false));
cl::opt<bool> OptForAutodiff("batchify-for-autodiff", cl::cat(Category),
                             cl::desc("batchify: build clones that Enzyme can differentiate (docs/autodiff.md)"),
                             cl::init(false));
cl::opt<bool> OptMap("batchify-map", cl::cat(Category),
                    cl::desc("batchify: also build <function>_map for the -batchify-function/-variant clones"),
                    cl::init(false));
cl::opt<std::string> OptMapForm("batchify-map-form", cl::cat(Category),
                                cl::desc("batchify: how maps run their elements (adaptive, refill, grouped)"),
                                cl::init(""));
cl::opt<std::string> OptBucket("batchify-bucket", cl::cat(Category),
                              cl::desc("batchify: bucket the maps' elements by this key function"), cl::init(""));
cl::opt<unsigned> OptRefillGroups("batchify-refill-groups", cl::cat(Category),
                                  cl::desc("batchify: lane groups per trip of refilling maps (1 or 2)"),
                                  cl::init(0));
cl::opt<bool> OptInstrumentLanes("batchify-instrument-lanes", cl::cat(Category),
                                 cl::desc("batchify: count divergent loops' trips and active lanes, print at exit"),
                                 cl::init(false));
cl::opt<bool> OptNoAuto("batchify-no-auto", cl::cat(Category),
                        cl::desc("batchify: do not run at the default pipelines' extension points"),
                        cl::init(false));

/// The `-batchify-*` options in the pass-parameter syntax, so that the Rust
/// side parses one format (explicit pass parameters win over these).
std::string clParams() {
  std::string s;
  auto add = [&](const std::string &item) {
    if (!s.empty())
      s += ';';
    s += item;
  };
  if (!OptIsa.empty())
    add("isa=" + OptIsa);
  if (OptWidth != 0)
    add("width=" + std::to_string(OptWidth));
  if (!OptVeclib.empty())
    add("veclib=" + OptVeclib);
  for (const std::string &f : OptFunction)
    add("function=" + f);
  for (const std::string &v : OptVariant)
    add("variant=" + v);
  if (OptReport)
    add("report");
  if (OptNoCallers)
    add("no-callers");
  if (OptForAutodiff)
    add("for-autodiff");
  if (OptMap)
    add("map");
  if (OptInstrumentLanes)
    add("instrument-lanes");
  if (!OptMapForm.empty())
    add("map-form=" + OptMapForm);
  if (!OptBucket.empty())
    add("bucket=" + OptBucket);
  if (OptRefillGroups != 0)
    add("refill-groups=" + std::to_string(OptRefillGroups));
  return s;
}

// The parameters of every `batchify<...>` named in a pipeline parsed in
// this process (rustc's `-C passes=batchify<...>`, opt's `-passes=`).
// Pipelines are parsed before they run, so the automatic run at the
// optimizer's early extension point can take them: otherwise it would build
// every variant with the default options first, and the explicit pass,
// which rustc runs after its whole pipeline, would find nothing left to do
// (no report, no libmvec). With several different parameter sets named,
// the automatic run leaves the work to the explicit passes.
std::mutex ExplicitMutex;
std::vector<std::string> ExplicitParams;

void noteExplicitParams(const std::string &Params) {
  std::lock_guard<std::mutex> Lock(ExplicitMutex);
  if (std::find(ExplicitParams.begin(), ExplicitParams.end(), Params) == ExplicitParams.end())
    ExplicitParams.push_back(Params);
}

// The parameters the automatic run uses: "" (the defaults) when no pipeline
// names the pass, the one set named, or nothing (skip) with several.
bool automaticParams(std::string &Params) {
  std::lock_guard<std::mutex> Lock(ExplicitMutex);
  if (ExplicitParams.size() > 1)
    return false;
  Params = ExplicitParams.empty() ? std::string() : ExplicitParams.front();
  return true;
}

struct BatchifyPass : PassInfoMixin<BatchifyPass> {
  std::string Params;
  bool Automatic;

  BatchifyPass(std::string Params, bool Automatic) : Params(std::move(Params)), Automatic(Automatic) {}

  PreservedAnalyses run(Module &M, ModuleAnalysisManager &) {
    std::string Cl = clParams();
    std::string Use = Params;
    if (Automatic && !automaticParams(Use))
      return PreservedAnalyses::all();
    int Changed = batchify_plugin_run(wrap(&M), Use.c_str(), Cl.c_str(), Automatic ? 1 : 0);
    return Changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
  }

  // Variants must exist at -O0 too: callers in other translation units
  // link against them.
  static bool isRequired() { return true; }
  static StringRef name() { return "batchify"; }
};

// At the pipeline's start, before the inliner: a declare simd function
// defined in this module and called from an omp simd loop in it would be
// inlined into the loop before the automatic run builds its variants, and
// the loop (holding the body's divergent loop) would stay scalar.
struct KeepSimdCallsPass : PassInfoMixin<KeepSimdCallsPass> {
  PreservedAnalyses run(Module &M, ModuleAnalysisManager &) {
    return batchify_plugin_keep_simd_calls(wrap(&M)) ? PreservedAnalyses::none() : PreservedAnalyses::all();
  }
  static StringRef name() { return "batchify-keep-simd-calls"; }
};

// At the pipeline's start, before any pass could hoist or merge them: the
// cross-lane operations (batchify_any, ...) become convergent. batchify.h
// says so in C; Rust has no way to, and a C program may declare them
// without the header.
struct MarkCrossLanePass : PassInfoMixin<MarkCrossLanePass> {
  PreservedAnalyses run(Module &M, ModuleAnalysisManager &) {
    return batchify_plugin_mark_cross_lane(wrap(&M)) ? PreservedAnalyses::none() : PreservedAnalyses::all();
  }
  static bool isRequired() { return true; }
  static StringRef name() { return "batchify-mark-cross-lane"; }
};

// `batchify-lower-vector-math<libmvec>` (or `<sleef>`; no parameter:
// libmvec): the step after Enzyme for --for-autodiff clones, the vector
// math intrinsics to the library's calls (docs/autodiff.md). Only where a
// pipeline names it.
struct LowerVectorMathPass : PassInfoMixin<LowerVectorMathPass> {
  std::string Lib;

  explicit LowerVectorMathPass(std::string Lib) : Lib(std::move(Lib)) {}

  PreservedAnalyses run(Module &M, ModuleAnalysisManager &) {
    return batchify_plugin_lower_vector_math(wrap(&M), Lib.c_str()) ? PreservedAnalyses::none()
                                                                    : PreservedAnalyses::all();
  }
  static bool isRequired() { return true; }
  static StringRef name() { return "batchify-lower-vector-math"; }
};

bool parseLowerVectorMath(StringRef Name, ModulePassManager &MPM) {
  std::string Lib;
  if (Name == "batchify-lower-vector-math") {
    Lib = "libmvec";
  } else if (Name.consume_front("batchify-lower-vector-math<") && Name.consume_back(">")) {
    Lib = Name.str();
  } else {
    return false;
  }
  if (Lib != "libmvec" && Lib != "sleef") {
    errs() << "batchify: error: batchify-lower-vector-math: unknown vector math library `" << Lib
           << "` (expected libmvec or sleef)\n";
    return false;
  }
  MPM.addPass(LowerVectorMathPass(Lib));
  return true;
}

bool parseBatchifyPipeline(StringRef Name, ModulePassManager &MPM) {
  std::string Params;
  if (Name == "batchify") {
    Params = "";
  } else if (Name.consume_front("batchify<") && Name.consume_back(">")) {
    Params = Name.str();
  } else {
    return false;
  }
  char *Error = nullptr;
  if (!batchify_plugin_check_params(Params.c_str(), &Error)) {
    errs() << "batchify: error: " << (Error ? Error : "invalid pass parameters") << "\n";
    free(Error);
    return false;
  }
  noteExplicitParams(Params);
  MPM.addPass(BatchifyPass(Params, false));
  return true;
}

void registerCallbacks(PassBuilder &PB) {
  PB.registerPipelineParsingCallback(
      [](StringRef Name, ModulePassManager &MPM, ArrayRef<PassBuilder::PipelineElement>) {
        return parseLowerVectorMath(Name, MPM) || parseBatchifyPipeline(Name, MPM);
      });
  // Late enough that the scalar bodies are simplified (inlined, mem2reg,
  // SROA, loop rotation), early enough that the loop vectorizer, which
  // runs later in the optimisation pipeline, sees the variants and the
  // annotated call sites. See docs/plugin.md.
  PB.registerPipelineStartEPCallback([](ModulePassManager &MPM, OptimizationLevel) {
    MPM.addPass(MarkCrossLanePass());
    if (!OptNoAuto && !OptNoCallers)
      MPM.addPass(KeepSimdCallsPass());
  });
  PB.registerOptimizerEarlyEPCallback([](ModulePassManager &MPM, OptimizationLevel, ThinOrFullLTOPhase) {
    if (!OptNoAuto)
      MPM.addPass(BatchifyPass("", true));
  });
  PB.registerFullLinkTimeOptimizationEarlyEPCallback([](ModulePassManager &MPM, OptimizationLevel) {
    if (!OptNoAuto)
      MPM.addPass(BatchifyPass("", true));
  });
}

} // namespace

extern "C" {

/// Called from Rust's `llvmGetPassPluginInfo` (a cdylib exports only Rust
/// symbols, so the entry point itself lives on the Rust side).
void batchify_register_pass_builder_callbacks(PassBuilder &PB) { registerCallbacks(PB); }

/// Emits one diagnostic for the Rust side. `kind`: 0 remark (passed),
/// 1 missed, 2 analysis, 3 warning, 4 note, 5 error (the host decides
/// what an error does: clang fails the compile after the pass). Remarks are attached to
/// `function` when it is not null, so `-Rpass=batchify` filters them.
void batchify_shim_diagnose(LLVMModuleRef module, LLVMValueRef function, int kind, const char *remark_name,
                            const char *message) {
  Module *M = unwrap(module);
  LLVMContext &Ctx = M->getContext();
  Function *F = function ? dyn_cast<Function>(unwrap(function)) : nullptr;
  if (F && kind == 0) {
    OptimizationRemark R("batchify", remark_name, F);
    R << message;
    Ctx.diagnose(R);
  } else if (F && kind == 1) {
    OptimizationRemarkMissed R("batchify", remark_name, F);
    R << message;
    Ctx.diagnose(R);
  } else if (F && kind == 2) {
    OptimizationRemarkAnalysis R("batchify", remark_name, F);
    R << message;
    Ctx.diagnose(R);
  } else {
    std::string Text = std::string("batchify: ") + message;
    DiagnosticSeverity Sev = kind == 5 ? DS_Error : kind == 3 ? DS_Warning : (kind == 4 ? DS_Note : DS_Remark);
    Ctx.diagnose(DiagnosticInfoGeneric(Text, Sev));
  }
}
}
