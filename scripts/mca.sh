#!/usr/bin/env bash
# Predicted throughput of every schedule's compiled inner loop on x86 CPUs we cannot run,
# from LLVM's scheduling models (llvm-mca). PREDICTIONS, NOT MEASUREMENTS.
#
#   scripts/mca.sh                # markdown table: cycles per vector and ratio to the divider
#   scripts/mca.sh --lanes 16     # the same for the 16-lane backend (AVX-512F)
#   scripts/mca.sh --raw          # also every llvm-mca report, under target/mca*/reports/
#
# How: the library is compiled once as a user's release build compiles it (every backend's
# entry points with their own `#[target_feature]`s, chosen at run time) with
# `--cfg fmadiv_mca`, which marks the body of each schedule's loop (`div_raw`'s step: 4
# kernel vectors + D divider vectors; `divider_raw`'s group of 4 divider vectors, src/arch/simd/divider.rs) with
# LLVM-MCA-BEGIN/END comments (`mca_region!` in src/arch/simd/mod.rs, named by schedule,
# lanes and reciprocal). The regions of the backend with that many lanes (8: AVX2+FMA; 16:
# AVX-512F) are cut from `--emit asm` and fed to llvm-mca for every CPU model below (those
# the installed LLVM knows; the others are listed as unknown). Cycles per vector =
# llvm-mca's cycles per iteration / vectors per iteration; the ratio is the divider loop's
# cycles per vector over the schedule's. The instructions per vector (the region's: loads,
# checks, stores and the loop's own included, over its vectors) are what the compiler
# emitted, on any CPU.
set -euo pipefail
cd "$(dirname "$0")/.."

lanes=8 raw=""
while [ $# -gt 0 ]; do
    case "$1" in
        --lanes) lanes=${2:-}; shift 2 ;;
        --raw) raw=--raw; shift ;;
        *) echo "usage: scripts/mca.sh [--lanes 8|16] [--raw]" >&2; exit 2 ;;
    esac
done
case "$lanes" in
    8|16) ;;
    *) echo "scripts/mca.sh: --lanes takes 8 or 16, not '$lanes'" >&2; exit 2 ;;
esac

MCA=${LLVM_MCA:-$(command -v llvm-mca || true)}
if [ -z "$MCA" ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        apt-get update -qq && apt-get install -y -qq llvm >/dev/null
        MCA=$(command -v llvm-mca)
    else
        echo "llvm-mca not found: install Debian's llvm package (apt-get install llvm)" >&2
        exit 2
    fi
fi

if [ "$lanes" = 8 ]; then
    CPUS=${MCA_CPUS:-"haswell broadwell skylake skylake-avx512 icelake-server tigerlake sapphirerapids alderlake znver1 znver2 znver3 znver4 znver5"}
    features="avx2,fma"
else
    CPUS=${MCA_CPUS:-"skylake-avx512 icelake-server sapphirerapids znver4 znver5"}
    features="avx512f,avx2,fma"
fi
out=target/mca
RUSTFLAGS="--cfg fmadiv_mca" cargo rustc --quiet --release --lib --target-dir $out -- --emit asm
ASM=$(ls -t $out/release/deps/fmadiv-*.s | head -1)

python3 - "$MCA" "$ASM" "$raw" "$lanes" "$features" "$out" $CPUS <<'EOF'
import re, subprocess, sys, os

mca, asm_path, raw, lanes, features, outdir = sys.argv[1:7]
raw, cpus = raw == "--raw", sys.argv[7:]
version = subprocess.run([mca, "--version"], capture_output=True, text=True).stdout
version = re.search(r"LLVM version ([\d.]+)", version).group(1)
known = subprocess.run([mca, "-mtriple=x86_64", "-mcpu=help"], capture_output=True, text=True)
known = set(re.findall(r"^\s+(\S+)\s+- Select", known.stdout + known.stderr, re.M))

# Regions by name: the divider loop (from divider_raw) and the mixes (from div_raw; mix-0
# is the kernel alone); each name is marked in one place.
regions, function, current, body = {}, None, None, []
for line in open(asm_path):
    m = re.match(r"^(_ZN\S+):", line)
    if m:
        function = m.group(1)
    if "LLVM-MCA-BEGIN" in line:
        name = line.split("LLVM-MCA-BEGIN", 1)[1].strip()
        # This backend's regions only, their names without the lane count.
        current = name.replace(f" lanes={lanes}", "") if f" lanes={lanes} " in name else None
        body = []
        continue
    if "LLVM-MCA-END" in line and current:
        if current not in regions:
            regions[current] = "".join(l for l in body if not l.strip().startswith((".cfi", "#APP", "#NO_APP")))
        current = None
        continue
    if current is not None:
        body.append(line)

def vectors(name):
    if name.startswith("divider"):
        return 4
    d = int(re.match(r"mix-(\d+)", name).group(1))
    return 4 + d

order = lambda n: (n.split()[1], -1 if n.startswith("divider") else int(re.match(r"mix-(\d+)", n).group(1)))
names = sorted(regions, key=order)
if not names:
    sys.exit(f"no {lanes}-lane region in {asm_path}")
os.makedirs(f"{outdir}/reports", exist_ok=True)
results = {}
instructions = {n: sum(1 for l in regions[n].splitlines()
                       if re.match(r"\s+[a-z]", l) and not l.strip().startswith(".")) / vectors(n)
                for n in names}
for cpu in cpus:
    if cpu not in known:
        continue
    for name in names:
        path = f"{outdir}/{name.replace(' ', '_').replace('=', '')}.s"
        with open(path, "w") as f:
            f.write(regions[name])
        out = subprocess.run([mca, "-mtriple=x86_64", f"-mcpu={cpu}", "-iterations=300", path],
                             capture_output=True, text=True)
        text = out.stdout + out.stderr
        if raw:
            with open(f"{outdir}/reports/{cpu}-{os.path.basename(path)}.txt", "w") as f:
                f.write(text)
        cycles = re.search(r"Total Cycles:\s+(\d+)", text)
        iters = re.search(r"Iterations:\s+(\d+)", text)
        if not (cycles and iters):
            sys.exit(f"llvm-mca failed on {name} for {cpu}:\n{text[:2000]}")
        results[(cpu, name)] = int(cycles.group(1)) / int(iters.group(1)) / vectors(name)

def label(name):
    kind, recip = name.split()
    op = "recip" if recip == "recip=1" else "div"
    kind = "divider" if kind == "divider" else ("kernel" if kind == "mix-0" else kind)
    return op, kind

print(f"Predicted by llvm-mca {version} (LLVM's scheduling models), not measured: cycles per")
print(f"vector of {lanes} lanes of each schedule's compiled loop, and (in parentheses) the divider loop's")
print("cycles per vector over the schedule's (above 1: predicted faster than the divider).")
print(f"Source: `scripts/mca.sh{'' if lanes == '8' else ' --lanes ' + lanes}` on {os.path.basename(asm_path)} (the default build; the loops compiled for {features}).")
print()
if lanes != "8":
    print(f"Instructions per vector of {lanes} lanes in each region (what the compiler emitted; any CPU):")
    print()
    for op in ["div", "recip"]:
        cols = [n for n in names if label(n)[0] == op]
        print(f"- {op}: " + ", ".join(f"{label(n)[1]} {instructions[n]:.2f}" for n in cols))
    print()
for op in ["div", "recip"]:
    cols = [n for n in names if label(n)[0] == op]
    print(f"**{op}**\n")
    print("| CPU model | " + " | ".join(label(n)[1] for n in cols) + " | best |")
    print("|---|" + "---|" * (len(cols) + 1))
    for cpu in cpus:
        if cpu not in known:
            print(f"| {cpu} | " + " | ".join("unknown to this LLVM" if i == 0 else "" for i in range(len(cols))) + " | |")
            continue
        base = results[(cpu, cols[0])]
        cells, best = [], (1.0, "divider")
        for n in cols:
            c = results[(cpu, n)]
            cells.append(f"{c:.2f} ({base / c:.2f}x)")
            if base / c > best[0]:
                best = (base / c, label(n)[1])
        print(f"| {cpu} | " + " | ".join(cells) + f" | {best[1]} {best[0]:.2f}x |")
    print()
EOF
