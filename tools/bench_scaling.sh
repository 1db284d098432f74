#!/usr/bin/env bash
# tools/bench_scaling.sh — cost per step as contacts and dofs grow, csim (ncp/pgs) and MuJoCo 2.2.2
# (Newton, elliptic cone) side by side through build/bench_mujoco (tools/bench_mujoco.sh builds it).
# Three families of generated scenes (YAML and URDF written at run time to a temporary directory,
# with absolute paths; nothing is committed):
#   grid     1, 4, 16, 64, 256 free 10 cm cubes (robots/cube.urdf) resting on the plane in a square
#            grid, 0.2 m apart: 4 contacts and 6 dofs per cube
#   pendulum chains of 5, 10, 20, 40 revolute links (0.1 m, 0.1 kg boxes, pitch joints) hanging
#            from a fixed base, released from 0.2 rad per joint, no ground: dofs only
#   ground   the same chains without the anchor (link1 is the free base) lying straight on the
#            ground: 4 contacts per link, 5 + n dofs
# For each scene: us/step (median of BATCHES batches of STEPS steps), mean contacts, dofs; then the
# least-squares slope of log(us/step) against log(contacts) and log(dofs) per family (1 = linear).
# Points where csim's contact buffer was full (sim.c caps it at 256 contacts) are reported but left
# out of csim's fits. Writes out/bench_scaling.csv: rows kind=point (one per scene) and kind=fit.
#   tools/bench_scaling.sh                # about a minute on 2 cores
#   STEPS=500 BATCHES=5 tools/bench_scaling.sh
#   GRID="1 4" CHAINS="5" KEEP=1 tools/bench_scaling.sh   # subsets; keep the generated files
# Exit status: 0 on success, 1 when a run failed, 2 when the tool cannot be built.
set -u
cd "$(dirname "$0")/.." || exit 2
STEPS=${STEPS:-500}
BATCHES=${BATCHES:-5}
GRID=${GRID:-"1 4 16 64 256"}
CHAINS=${CHAINS:-"5 10 20 40"}
tools/bench_mujoco.sh --build-only || exit 2
BIN=build/bench_mujoco
tmp=$(mktemp -d -t csim_scaling.XXXXXX)
if [ "${KEEP:-0}" = 1 ]; then
  echo "scenarios kept in $tmp"
else
  trap 'rm -rf "$tmp"' EXIT
fi
cube=$(realpath robots/cube.urdf)
status=0

# grid_yaml N: N cubes on the plane in a ceil(sqrt(N)) square grid
grid_yaml() {
  local n=$1 side i x y
  side=$(awk -v n="$n" 'BEGIN {s = int(sqrt(n)); if (s * s < n) s++; print s}')
  {
    echo "name: grid_$n"
    echo "world: {gravity: [0, 0, -9.81], ground: {type: plane, height: 0}}"
    echo "robots:"
    for ((i = 0; i < n; i++)); do
      x=$(awk -v i=$i -v s="$side" 'BEGIN {printf "%.3f", 0.2 * (i % s)}')
      y=$(awk -v i=$i -v s="$side" 'BEGIN {printf "%.3f", 0.2 * int(i / s)}')
      echo "  - {urdf: $cube, base: free, q0: [$x, $y, 0.05, 0, 0, 0, 1]}"
    done
    echo "contact: {model: ncp, friction: 0.5, baumgarte: 0}"
    echo "solver: {name: pgs, tolerance: 1.0e-6, max_iterations: 500, warm_start: true}"
    echo "integrator: {dt: 1.0e-3, duration: 1.0}"
  } >"$tmp/grid_$n.yaml"
}

# chain_urdf N NAME ANCHOR: N links of 0.1 m along -z (0.02 m square boxes, 0.1 kg, rod inertia)
# joined by revolute joints about y; ANCHOR=1 hangs link1 from a massless root link "anchor" by
# a joint (fixed-base pendulum), ANCHOR=0 makes link1 the root (free base)
chain_urdf() {
  local n=$1 name=$2 anchor=$3 k parent
  {
    echo '<?xml version="1.0"?>'
    echo "<robot name=\"chain$n\">"
    [ "$anchor" = 1 ] && echo '  <link name="anchor"/>'
    for ((k = 1; k <= n; k++)); do
      cat <<EOF
  <link name="link$k">
    <inertial><origin xyz="0 0 -0.05"/><mass value="0.1"/>
      <inertia ixx="8.6667e-05" ixy="0" ixz="0" iyy="8.6667e-05" iyz="0" izz="6.6667e-06"/></inertial>
    <collision><origin xyz="0 0 -0.05"/><geometry><box size="0.02 0.02 0.1"/></geometry></collision>
  </link>
EOF
      [ $k = 1 ] && [ "$anchor" = 0 ] && continue
      parent=anchor; [ $k -gt 1 ] && parent=link$((k - 1))
      z=0; [ $k -gt 1 ] && z=-0.1
      cat <<EOF
  <joint name="j$k" type="revolute"><parent link="$parent"/><child link="link$k"/>
    <origin xyz="0 0 $z"/><axis xyz="0 1 0"/>
    <limit lower="-3.14" upper="3.14" effort="100" velocity="100"/></joint>
EOF
    done
    echo "</robot>"
  } >"$tmp/$name.urdf"
}

# pendulum_yaml N: the chain hanging from a fixed base, 0.2 rad per joint, no ground
pendulum_yaml() {
  local n=$1
  local q0
  q0=$(awk -v n="$n" 'BEGIN {for (k = 0; k < n; k++) printf "%s0.2", k ? ", " : ""}')
  cat >"$tmp/pendulum_$n.yaml" <<EOF
name: pendulum_$n
world: {gravity: [0, 0, -9.81], ground: {type: none}}
robots:
  - {urdf: $tmp/pendulum_$n.urdf, base: fixed, position: [0, 0, 5], q0: [$q0]}
contact: {model: ncp, friction: 0.5}
solver: {name: pgs, tolerance: 1.0e-6, max_iterations: 500, warm_start: true}
integrator: {dt: 1.0e-3, duration: 1.0}
EOF
}

# ground_yaml N: the chain with a free base lying straight along +x on the plane (base rotated
# -90 deg about y so the links' -z points along +x)
ground_yaml() {
  local n=$1
  local q0
  q0=$(awk -v n="$n" 'BEGIN {printf "0, 0, 0.01, 0, -0.7071067811865476, 0, 0.7071067811865476";
                             for (k = 1; k < n; k++) printf ", 0"}')
  cat >"$tmp/ground_$n.yaml" <<EOF
name: ground_$n
world: {gravity: [0, 0, -9.81], ground: {type: plane, height: 0}}
robots:
  - {urdf: $tmp/ground_$n.urdf, base: free, q0: [$q0]}
contact: {model: ncp, friction: 0.5, baumgarte: 0}
solver: {name: pgs, tolerance: 1.0e-6, max_iterations: 500, warm_start: true}
integrator: {dt: 1.0e-3, duration: 1.0}
EOF
}

# run one scene through bench_mujoco, rows appended to $tmp/rows.csv
run_scene() {
  if ! "$BIN" --scenario "$tmp/$1.yaml" --label "$1" --csim ncp/pgs --mujoco newton \
       --steps "$STEPS" --batches "$BATCHES" --no-eps --csv "$tmp/rows.csv" >"$tmp/$1.txt" 2>&1; then
    echo "bench_scaling: $1 failed:" >&2
    cat "$tmp/$1.txt" >&2
    status=1
  fi
}

echo "scaling: csim ncp/pgs vs MuJoCo 2.2.2 Newton (elliptic cone); $STEPS steps x $BATCHES batches per scene (median)"
for n in $GRID; do grid_yaml "$n"; run_scene "grid_$n"; done
for n in $CHAINS; do
  chain_urdf "$n" "pendulum_$n" 1; pendulum_yaml "$n"; run_scene "pendulum_$n"
  chain_urdf "$n" "ground_$n" 0; ground_yaml "$n"; run_scene "ground_$n"
done

# points and log-log fits from the rows (columns of bench_mujoco's CSV:
# 1 scene, 2 engine, 3 solver, 4 nv, 5 steps, 6 us, ..., 11 contacts, 12 iterations, 13 warnings)
mkdir -p out
awk -F, '
  function fam(s) { sub(/_[0-9]+$/, "", s); return s }
  function num(s) { sub(/^.*_/, "", s); return s + 0 }
  # least-squares slope of log y on log x over the points i of family f with x > 0 (and, for
  # csim, not at the contact cap)
  function slope(f, which, xv,    i, n, sx, sy, sxx, sxy, x, y) {
    n = sx = sy = sxx = sxy = 0
    for (i = 1; i <= np; i++) {
      if (F[i] != f) continue
      x = (xv == "contacts") ? (which == "csim" ? CC[i] : CM[i]) : NV[i]
      y = (which == "csim") ? UC[i] : UM[i]
      if (x <= 0 || y <= 0 || (which == "csim" && WC[i] > 0 && CAP[i])) continue
      x = log(x); y = log(y); n++; sx += x; sy += y; sxx += x * x; sxy += x * y
    }
    if (n < 2 || n * sxx - sx * sx == 0) return "-"
    return sprintf("%.2f", (n * sxy - sx * sy) / (n * sxx - sx * sx))
  }
  NR > 1 {
    key = $1
    if (!(key in idx)) { idx[key] = ++np; F[np] = fam(key); N[np] = num(key) }
    i = idx[key]; NV[i] = $4
    if ($2 == "csim") { UC[i] = $6; CC[i] = $11; IC[i] = $12; WC[i] = $13; CAP[i] = ($0 ~ /contact buffer full/) }
    else { UM[i] = $6; CM[i] = $11; IM[i] = $12 }
  }
  END {
    out = "out/bench_scaling.csv"
    print "kind,family,n,nv,contacts_csim,contacts_mujoco,us_csim,us_mujoco,ratio_csim_mujoco,iterations_csim,iterations_mujoco,x,slope_csim,slope_mujoco,note" > out
    hdr = "%-9s %4s %5s %9s %9s %10s %10s %7s %7s %7s  %s\n"
    printf hdr, "family", "n", "nv", "contacts", "contacts", "us/step", "us/step", "ratio", "iters", "iters", "note"
    printf hdr, "", "", "", "csim", "mujoco", "csim", "mujoco", "c/m", "csim", "mujoco", ""
    print "------------------------------------------------------------------------------------------------"
    # rows by family, then by size (the order they were run in)
    no = 0
    nf = split("grid pendulum ground", fams, " ")
    for (k = 1; k <= nf; k++)
      for (i = 1; i <= np; i++)
        if (F[i] == fams[k]) order[++no] = i
    for (o = 1; o <= no; o++) {
      i = order[o]
      note = (WC[i] > 0 && CAP[i]) ? "csim contact buffer full (256): left out of its fit" : ""
      r = (UM[i] > 0) ? UC[i] / UM[i] : 0
      printf hdr, F[i], N[i], NV[i], sprintf("%.1f", CC[i]), sprintf("%.1f", CM[i]), sprintf("%.2f", UC[i]), sprintf("%.2f", UM[i]), sprintf("%.2f", r), sprintf("%.1f", IC[i]), sprintf("%.1f", IM[i]), note
      printf "point,%s,%d,%d,%.2f,%.2f,%.3f,%.3f,%.3f,%.2f,%.2f,,,,%s\n", F[i], N[i], NV[i], CC[i], CM[i], UC[i], UM[i], r, IC[i], IM[i], note > out
    }
    print ""
    print "log-log slopes of us/step (1 = linear cost):"
    for (k = 1; k <= nf; k++) {
      f = fams[k]
      split("contacts dofs", xs, " ")
      for (j = 1; j <= 2; j++) {
        xv = xs[j]
        sc = slope(f, "csim", xv); sm = slope(f, "mujoco", xv)
        if (sc == "-" && sm == "-") continue
        printf "  %-9s vs %-8s  csim %5s   MuJoCo %5s\n", f, xv, sc, sm
        printf "fit,%s,,,,,,,,,,%s,%s,%s,\n", f, xv, sc, sm > out
      }
    }
  }' "$tmp/rows.csv"
echo "written: out/bench_scaling.csv"
exit $status
