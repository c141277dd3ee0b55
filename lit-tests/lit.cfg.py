# -*- Python -*-
# lit configuration for batchify's FileCheck tests of IR shape.
#
# Run from the repository root:
#     cargo build -p batchify-cli
#     "$(tools/llvm-prefix.sh)"/bin/lit -sv lit-tests
#
# Substitutions:
#     %batchify   the batchify binary: $BATCHIFY if set, else
#                 <target>/debug/batchify, <target> being $CARGO_TARGET_DIR
#                 (relative to the repository root, as cargo takes it) or
#                 <repo>/target
#     %plugin     the pass plugin: $BATCHIFY_PLUGIN if set, else
#                 libbatchify_plugin.so beside the batchify binary
#     %clang      clang-22
#     %opt        opt-22
#     %llvm-dis   llvm-dis-22
#     %llvm-as    llvm-as-22
#     %llc        llc-22
# FileCheck, not and count are found through PATH; the LLVM tools folder,
# <prefix>/bin with <prefix> from tools/llvm-prefix.sh (the one place that
# decides it), is prefixed to it here, so a plain `lit lit-tests` works too.

import os
import shutil
import subprocess

import lit.formats

config.name = "batchify"
config.test_format = lit.formats.ShTest(True)
config.suffixes = [".ll", ".c", ".test"]
# Files in these folders are inputs of other tests, not tests themselves.
config.excludes = ["Inputs", "Output"]

config.test_source_root = os.path.dirname(os.path.abspath(__file__))
repo_root = os.path.dirname(config.test_source_root)
target_dir = os.path.join(repo_root, os.environ.get("CARGO_TARGET_DIR") or "target")
# Keep `Output/` folders out of the source tree.
config.test_exec_root = os.path.join(target_dir, "lit-tests")

llvm_prefix = subprocess.run(
    ["bash", os.path.join(repo_root, "tools", "llvm-prefix.sh")],
    check=True,
    stdout=subprocess.PIPE,
    universal_newlines=True,
).stdout.strip()
llvm_bin = os.path.join(llvm_prefix, "bin")
path = os.environ.get("PATH", "")
config.environment["PATH"] = os.pathsep.join([llvm_bin, path]) if path else llvm_bin


def find_tool(names):
    """First of `names` found in llvm_bin or on PATH, as an absolute path."""
    search = config.environment["PATH"]
    for name in names:
        found = shutil.which(name, path=search)
        if found:
            return found
    lit_config.fatal(
        "batchify lit tests: cannot find %s (looked in %s)" % (" or ".join(names), search)
    )


batchify = os.environ.get("BATCHIFY") or os.path.join(target_dir, "debug", "batchify")
batchify = os.path.abspath(batchify)
if not (os.path.isfile(batchify) and os.access(batchify, os.X_OK)):
    lit_config.fatal(
        "batchify lit tests: the batchify binary `%s` does not exist or is not executable; "
        "run `cargo build -p batchify-cli` first, or point BATCHIFY at the binary" % batchify
    )

plugin = os.environ.get("BATCHIFY_PLUGIN") or os.path.join(os.path.dirname(batchify), "libbatchify_plugin.so")
plugin = os.path.abspath(plugin)
if not os.path.isfile(plugin):
    lit_config.fatal(
        "batchify lit tests: the pass plugin `%s` does not exist; run `cargo build -p batchify-plugin` "
        "first, or point BATCHIFY_PLUGIN at it" % plugin
    )

for tool in ("FileCheck", "not", "count"):
    find_tool([tool])

# No substitution name is a prefix of another one.
config.substitutions.append(("%batchify", batchify))
config.substitutions.append(("%plugin", plugin))
config.substitutions.append(("%clang", find_tool(["clang-22", "clang"])))
config.substitutions.append(("%llvm-dis", find_tool(["llvm-dis-22", "llvm-dis"])))
config.substitutions.append(("%llvm-as", find_tool(["llvm-as-22", "llvm-as"])))
config.substitutions.append(("%opt", find_tool(["opt-22", "opt"])))
config.substitutions.append(("%llc", find_tool(["llc-22", "llc"])))

lit_config.note("using batchify: %s" % batchify)
lit_config.note("using the pass plugin: %s" % plugin)
