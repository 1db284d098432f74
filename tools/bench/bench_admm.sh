#!/usr/bin/env bash
# tools/bench/bench_admm.sh — ncp/admm (the proximal ADMM with spectral rho, src/core/solvers/admm.c) on
# every FCLib problem of ../shared/data/fclib and on the scenes that use ADMM; prints the Markdown
# tables docs/models_and_solvers.md quotes and writes out/bench/admm_fclib.csv, out/bench/admm_scenes.csv.
#   tools/bench/bench_admm.sh                       # ./csim
#   CSIM=/path/to/other/csim LABEL=before tools/bench/bench_admm.sh   # another build, same tables
# FCLib: `csim solve --model ncp --solver admm --tolerance TOL --max-iterations 2000` per
# directory (TOL default 1e-10: csim solve holds the problem rescaled to its own units, see docs/commands.md, csim solve;
# the "before" build took 1e-8 on the file's units); a problem counts as solved by the bench's criterion when Siconos's relative error
# (fc3d_compute_error's measure, computed by csim) is <= 1e-6, as tools/bench/bench_siconos.sh uses.
# Scenes: cube_stack_ill (000 Fig. 12, 1 g under 1000 kg), a 2-cube stack of 1 kg cubes (the
# MuJoCo bench's scene), solo12_stand, talos_stand, each run with ncp/admm and ccp/admm
# (solver.criterion: model); per run the steps, the steps not converged, mean/max iterations,
# the largest eps_abs and the wall time.
# Exit status: 0 done, 2 no csim or no data.
set -u
CSIM=${CSIM:-./csim}
LABEL=${LABEL:-after}
DATA=${DATA:-../shared/data/fclib}
OUT=${OUT:-out/bench}
PY=/usr/bin/python3
if [ ! -x "$CSIM" ]; then
  echo "bench_admm: $CSIM not found (make first)" >&2
  exit 2
fi
if [ ! -d "$DATA" ]; then
  echo "bench_admm: no FCLib data under $DATA" >&2
  exit 2
fi
mkdir -p "$OUT"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for d in siconos_local siconos_dat_converted siconos_global; do
  [ -d "$DATA/$d" ] || continue
  "$CSIM" solve "$DATA/$d" --model ncp --solver admm --tolerance "${TOL:-1e-10}" --max-iterations 2000 \
    --csv "$tmp/fclib_$d.csv" > /dev/null || { echo "bench_admm: csim solve failed on $d" >&2; exit 2; }
done
# the 2-cube stack of the MuJoCo bench (tools/bench/bench_mujoco.c), 1 kg cubes
cat > "$tmp/cube_stack.yaml" <<EOF
name: cube_stack
world: {gravity: [0, 0, -9.81], ground: {type: plane, height: 0}}
robots:
  - {urdf: $PWD/robots/cube.urdf, base: free, q0: [0, 0, 0.05, 0, 0, 0, 1]}
  - {urdf: $PWD/robots/cube.urdf, base: free, q0: [0, 0, 0.15, 0, 0, 0, 1]}
contact: {model: ncp, friction: 0.5, baumgarte: 0}
solver: {name: pgs, tolerance: 1.0e-8, max_iterations: 1000, warm_start: true}
integrator: {dt: 1.0e-3, duration: 1.0}
output: {path: $tmp/cube_stack.h5, every: 1}
EOF
scenes="scenarios/cube_stack_ill.yaml $tmp/cube_stack.yaml scenarios/solo12_stand.yaml scenarios/talos_stand.yaml"
: > "$tmp/scenes.txt"
for sc in $scenes; do
  for model in ncp ccp; do
    name=$(basename "$sc" .yaml)
    h5="$tmp/${name}_$model.h5"
    t0=$(date +%s.%N)
    "$CSIM" run "$sc" --set contact.model=$model --set solver.name=admm \
      --set solver.criterion=model --out "$h5" --quiet > /dev/null 2>&1 || true
    t1=$(date +%s.%N)
    echo "$name $model $h5 $(echo "$t1 - $t0" | bc)" >> "$tmp/scenes.txt"
  done
done
"$PY" - "$tmp" "$OUT" "$LABEL" "${TOL:-1e-10}" <<'PY'
import csv, glob, os, sys
import h5py, numpy as np
tmp, out, label, tol = sys.argv[1:5]
rows = []
for f in sorted(glob.glob(os.path.join(tmp, "fclib_*.csv"))):
    rows += list(csv.DictReader(open(f)))
def rel(r):
    try:
        return float(r["siconos_rel"])
    except ValueError:
        return float("inf")
with open(os.path.join(out, "admm_fclib.csv"), "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["label", "file", "contacts", "iterations", "converged", "eps_abs", "siconos_rel", "time_ms"])
    for r in rows:
        w.writerow([label, os.path.basename(r["file"]), r["contacts"], r["iterations"], r["converged"],
                    r["eps_abs"], r["siconos_rel"], 1000 * float(r["time_s"])])
n = len(rows)
conv = sum(r["converged"] == "1" for r in rows)
ok = sum(rel(r) <= 1e-6 for r in rows)
tms = sum(1000 * float(r["time_s"]) for r in rows)
its = [int(r["iterations"]) for r in rows]
print(f"**ncp/admm on FCLib ({label})**: {n} problems, {conv} converged (eps_abs of the rescaled problem <= {tol} within 2000 "
      f"iterations), {ok} with Siconos's relative error <= 1e-6, median {int(np.median(its))} "
      f"iterations, {tms:.0f} ms in all\n")
print("| problem | contacts | iterations | converged | eps_abs | Siconos rel. error | ms |")
print("|---|---|---|---|---|---|---|")
for r in rows:
    b = os.path.basename(r["file"])
    if b.startswith("Capsules") or b.startswith("LMGC"):
        print(f"| {b} | {r['contacts']} | {r['iterations']} | {'yes' if r['converged'] == '1' else 'no'} | "
              f"{float(r['eps_abs']):.2g} | {rel(r):.2g} | {1000 * float(r['time_s']):.0f} |")
print()
print(f"**ncp/admm and ccp/admm on scenes ({label})** (solver.criterion: model)\n")
print("| scene | model | steps | not converged | mean iterations | max iterations | max eps_abs | wall s |")
print("|---|---|---|---|---|---|---|---|")
with open(os.path.join(out, "admm_scenes.csv"), "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["label", "scene", "model", "steps", "nonconverged", "mean_iterations", "max_iterations",
                "max_eps_abs", "wall_s"])
    for line in open(os.path.join(tmp, "scenes.txt")):
        name, model, h5, wall = line.split()
        if not os.path.exists(h5):
            print(f"| {name} | {model} | run failed | | | | | |")
            continue
        with h5py.File(h5, "r") as h:
            conv_s = h["solver/converged"][()]
            it_s = h["solver/iterations"][()]
            eps_s = h["solver/eps_abs"][()]
        steps = len(conv_s)
        nonc = int(np.sum(conv_s == 0))
        w.writerow([label, name, model, steps, nonc, float(np.mean(it_s)), int(np.max(it_s)),
                    float(np.max(eps_s)), float(wall)])
        print(f"| {name} | {model} | {steps} | {nonc} | {np.mean(it_s):.1f} | {int(np.max(it_s))} | "
              f"{np.max(eps_s):.2g} | {float(wall):.1f} |")
PY
