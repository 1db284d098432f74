// test_hardening.c — hostile use of the csim binary ($CSIM, default ./csim): a table of bad
// inputs (scenario, URDF, STL, FCLib, command line) with the exit code and a fragment of the
// message each must give, runs killed by SIGKILL at a random moment (the file must hold every
// row up to the last flush, read back with h5py), a write error from a file-size limit, the
// output directory removed mid-run and SIGINT inside a long solve.
//
// Tests run from the repo root; fixtures are written into a fresh mkdtemp directory, removed
// afterwards. The expected fragments are what the README and issue 11 promise (positions,
// names of keys, elements and datasets), not copies of whatever the program printed.
#include <check.h>
#include <dirent.h>
#include <hdf5.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "support.h"

#define SLIDE "scenarios/cube_slide.yaml"
#define PY "/usr/bin/python3"

//---------------------------------- temporary directory ---------------------------------------

// g_tmp, tmp_setup, tmp_teardown, tmp_path, tmp_write: support.h

// expand @C (csim), @T (temporary directory) in a command template
static void expand(const char* tpl, char* out, size_t n) {
  size_t k = 0;
  for (const char* c = tpl; *c && k + 1 < n; c++) {
    const char* rep = NULL;
    if (c[0] == '@' && c[1] == 'C') rep = csim_bin();
    if (c[0] == '@' && c[1] == 'T') rep = g_tmp;
    if (rep) {
      k += (size_t)snprintf(out + k, n - k, "%s", rep);
      if (k >= n) k = n - 1;
      c++;
    } else {
      out[k++] = *c;
    }
  }
  out[k] = '\0';
}

//---------------------------------- fixtures ---------------------------------------------------

// a 50-byte binary STL triangle
static void stl_tri(unsigned char* r, const float v[9]) {
  memset(r, 0, 50);
  memcpy(r + 12, v, 36);
}

// an FCLib file with a /fclib_local/vectors/mu (the first vector read) whose datatype claims `esize` bytes per element
// (HDF5 C API: h5py cannot make such a type), everything else small and valid
static void fclib_bad_type(const char* path, size_t esize) {
  hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  ck_assert_int_ge(f, 0);
  hid_t g = H5Gcreate2(f, "/fclib_local", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  hid_t v = H5Gcreate2(f, "/fclib_local/vectors", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  hsize_t one = 1;
  int three = 3;
  hid_t s1 = H5Screate_simple(1, &one, NULL);
  hid_t sd = H5Dcreate2(f, "/fclib_local/spacedim", H5T_STD_I32LE, s1, H5P_DEFAULT, H5P_DEFAULT,
                        H5P_DEFAULT);
  H5Dwrite(sd, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, &three);
  H5Dclose(sd);
  H5Sclose(s1);
  hsize_t dim = 3;
  hid_t sp = H5Screate_simple(1, &dim, NULL);
  hid_t t = H5Tcopy(H5T_STD_I64LE);
  ck_assert_int_ge(H5Tset_size(t, esize), 0);
  hid_t d = H5Dcreate2(f, "/fclib_local/vectors/mu", t, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  ck_assert_int_ge(d, 0);
  H5Dclose(d);
  H5Tclose(t);
  H5Sclose(sp);
  H5Gclose(v);
  H5Gclose(g);
  H5Fclose(f);
}

// every fixture the table refers to, under @T
static void make_fixtures(void) {
  char p[512], q[512], cmd[2048], out[4096];
  // directory, FIFO, loop
  mkdir(tmp_path(p, sizeof(p), "dir"), 0700);
  ck_assert_int_eq(mkfifo(tmp_path(p, sizeof(p), "fifo"), 0600), 0);
  mkdir(tmp_path(p, sizeof(p), "loop"), 0700);
  mkdir(tmp_path(p, sizeof(p), "loop/sub"), 0700);
  ck_assert_int_eq(symlink("..", tmp_path(p, sizeof(p), "loop/sub/up")), 0);
  tmp_write_text("text.txt", "hello\n");
  snprintf(cmd, sizeof(cmd), "cp " SLIDE " %s/slide_copy.yaml && cp robots/cube.urdf %s/cube_copy.urdf",
           g_tmp, g_tmp);
  ck_assert_int_eq(sh_run_all(cmd, out, sizeof(out)), 0);
  // a robot whose collision mesh is m.stl, and a scenario dropping it
  tmp_write_text("mesh.urdf",
             "<robot name=\"m\">\n"
             "  <link name=\"body\">\n"
             "    <inertial><mass value=\"1\"/>"
             "<inertia ixx=\"0.01\" ixy=\"0\" ixz=\"0\" iyy=\"0.01\" iyz=\"0\" izz=\"0.01\"/>"
             "</inertial>\n"
             "    <collision><geometry><mesh filename=\"m.stl\"/></geometry></collision>\n"
             "  </link>\n"
             "</robot>\n");
  tmp_write_text("mesh.yaml",
             "name: mesh\n"
             "robots:\n"
             "  - urdf: mesh.urdf\n"
             "    base: free\n"
             "    q0: [0, 0, 0.5, 0, 0, 0, 1]\n"
             "integrator: {dt: 1.0e-3, duration: 0.01}\n");
  // STL variants, each in its own directory beside a copy of the URDF and scenario
  const char* stl_dirs[] = {"stl_empty", "stl_ascii_num", "stl_ascii_none", "stl_ascii_vertex",
                            "stl_bin_trunc", "stl_bin_nan", "stl_flat", "stl_fifo"};
  for (size_t k = 0; k < sizeof(stl_dirs) / sizeof(stl_dirs[0]); k++) {
    mkdir(tmp_path(p, sizeof(p), stl_dirs[k]), 0700);
    snprintf(cmd, sizeof(cmd), "cp %s/mesh.urdf %s/mesh.yaml %s/%s/", g_tmp, g_tmp, g_tmp,
             stl_dirs[k]);
    ck_assert_int_eq(sh_run_all(cmd, out, sizeof(out)), 0);
  }
  tmp_write_text("stl_empty/m.stl", "");
  tmp_write_text("stl_ascii_num/m.stl",
             "solid x\n facet normal 0 0 1\n  outer loop\n   vertex 0 0 zero\n");
  tmp_write_text("stl_ascii_none/m.stl", "solid x\nendsolid x\n");
  tmp_write_text("stl_ascii_vertex/m.stl",
             "solid x\n facet normal 0 0 1\n  outer loop\n   vertex 0 0 0\n   vertex 1 0\n");
  {
    // binary: header says 3 triangles, file holds 1
    unsigned char b[84 + 50];
    memset(b, 0, sizeof(b));
    b[80] = 3;
    float v[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    stl_tri(b + 84, v);
    tmp_write("stl_bin_trunc/m.stl", b, sizeof(b));
    // binary: triangle 1 has a NaN
    unsigned char c[84 + 100];
    memset(c, 0, sizeof(c));
    c[80] = 2;
    stl_tri(c + 84, v);
    float w[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    w[4] = 0.0f / 0.0f;
    stl_tri(c + 134, w);
    tmp_write("stl_bin_nan/m.stl", c, sizeof(c));
  }
  tmp_write_text("stl_flat/m.stl",
             "solid flat\n facet normal 0 0 1\n  outer loop\n   vertex 0 0 0\n   vertex 1 0 0\n"
             "   vertex 0 1 0\n  endloop\n endfacet\n facet normal 0 0 1\n  outer loop\n"
             "   vertex 1 0 0\n   vertex 1 1 0\n   vertex 0 1 0\n  endloop\n endfacet\nendsolid\n");
  ck_assert_int_eq(mkfifo(tmp_path(p, sizeof(p), "stl_fifo/m.stl"), 0600), 0);
  // FCLib: a huge element type, and variants of a small shared problem (h5py)
  fclib_bad_type(tmp_path(p, sizeof(p), "fc_huge_type.hdf5"), (size_t)1 << 30);
  fclib_bad_type(tmp_path(p, sizeof(p), "fc_odd_type.hdf5"), 16);
  const char* src = "../shared/data/fclib/siconos_local/Capsules-i97-269.hdf5";
  snprintf(cmd, sizeof(cmd),
           PY " - <<'EOF'\n"
           "import h5py, numpy as np, shutil\n"
           "src, T = '%s', '%s'\n"
           "def variant(name, fn):\n"
           "    shutil.copy(src, T + '/' + name)\n"
           "    with h5py.File(T + '/' + name, 'r+') as f: fn(f)\n"
           "def short_q(f):\n"
           "    q = f['/fclib_local/vectors/q'][:]; del f['/fclib_local/vectors/q']\n"
           "    f['/fclib_local/vectors/q'] = q[:-1]\n"
           "def nan_mu(f):\n"
           "    mu = f['/fclib_local/vectors/mu'][:]; mu[2] = np.nan\n"
           "    f['/fclib_local/vectors/mu'][:] = mu\n"
           "def no_mu(f): del f['/fclib_local/vectors/mu']\n"
           "def str_q(f):\n"
           "    del f['/fclib_local/vectors/q']; f['/fclib_local/vectors/q'] = 'abc'\n"
           "def dim2(f):\n"
           "    del f['/fclib_local/spacedim']; f['/fclib_local/spacedim'] = np.array([2], 'i4')\n"
           "def bad_p(f):\n"
           "    p = f['/fclib_local/W/p'][:]; p[5] = 10**8; f['/fclib_local/W/p'][:] = p\n"
           "for n, fn in [('fc_short_q', short_q), ('fc_nan_mu', nan_mu), ('fc_no_mu', no_mu),\n"
           "              ('fc_str_q', str_q), ('fc_dim2', dim2), ('fc_bad_p', bad_p)]:\n"
           "    variant(n + '.hdf5', fn)\n"
           "with h5py.File(T + '/fc_empty.hdf5', 'w') as f: f['x'] = 1\n"
           "EOF",
           src, g_tmp);
  ck_assert_msg(sh_run_all(cmd, out, sizeof(out)) == 0, "fixture script failed:\n%s", out);
  (void)q;
}

//---------------------------------- the bad-input table ---------------------------------------

typedef struct {
  const char* cmd;       // shell command template (@C csim, @T temporary directory)
  int code;              // expected exit code
  const char* fragment;  // expected in the output (stdout + stderr)
} bad_case;

// each row: what is wrong, how csim must answer; fragments name positions and keys
static const bad_case kBad[] = {
    // command line
    {"@C", 2, "usage: csim"},
    {"@C frobnicate", 2, "unknown command 'frobnicate'"},
    {"@C run", 2, "missing SCENARIO.yaml"},
    {"@C run " SLIDE " " SLIDE " --out @T/o2.h5", 2, "--out names one file"},
    {"@C run --frob " SLIDE, 2, "unexpected argument '--frob'"},
    {"@C run @T/none.yaml", 2, "No such file"},
    {"@C run @T/dir", 2, "is a directory"},
    {"@C run @T/fifo", 2, "not a regular file"},
    {"@C run /dev/zero", 2, "not a regular file"},
    {"@C run " SLIDE " --set foo", 2, "--set:1:1: malformed override 'foo'"},
    {"@C run " SLIDE " --set =1", 2, "empty key path"},
    // (copies of the inputs: a csim that overwrote them must not damage the repository)
    {"@C run " SLIDE " --out @T/slide_copy.yaml", 2, "refusing to overwrite"},
    {"@C run " SLIDE " --out @T/cube_copy.urdf", 2, "refusing to overwrite"},
    {"@C run " SLIDE " --out @T/stl_flat/m.stl", 2, "refusing to overwrite"},
    {"@C run " SLIDE " --out @T/text.txt", 2, "refusing to overwrite"},
    {"@C run " SLIDE " --out /dev/null", 2, "not a regular file"},
    {"@C run " SLIDE " --out @T/fifo", 2, "not a regular file"},
    {"@C run " SLIDE " --out @T/nodir/x.h5", 2, "does not exist"},
    {"@C info", 2, "usage"},
    {"@C info @T/fifo", 2, "@T/fifo: is not a regular file"},
    {"@C info /dev/zero", 2, "/dev/zero: is not a regular file"},
    {"@C info @T/dir", 2, "is a directory"},
    {"@C compare @T/fifo @T/fifo", 2, "not a regular file"},
    {"@C compare @T/text.txt @T/text.txt", 2, "not an HDF5 file"},
    {"@C compare a.h5", 2, "two files expected"},
    {"@C compare --rtol x a b", 2, "--rtol expects a number"},
    {"@C solve", 2, "usage"},
    {"@C solve @T/loop --solver pgs", 2, "directory loop"},
    {"@C solve @T/dir --solver pgs", 2, "no .hdf5 files"},
    // scenario values (positions of --set overrides are --set:INDEX:COLUMN)
    {"@C run " SLIDE " --set integrator.dt=1e-300", 2, "expected at most 1e+09"},
    {"@C run " SLIDE " --set integrator.duration=1e300", 2, "--set:1:21: 'integrator.duration'"},
    {"@C run " SLIDE " --set integrator.duration=1e12", 2, "expected at most 1e+09"},
    {"@C run " SLIDE " --set integrator.dt=0", 2, "'integrator.dt': out of range"},
    {"@C run " SLIDE " --set integrator.dt=.nan", 2, "'integrator.dt'"},
    {"@C run " SLIDE " --set solver.max_iterations=2000000000", 2, "[1, 1e+06]"},
    {"@C run " SLIDE " --set solver.max_iterations=0", 2, "'solver.max_iterations'"},
    {"@C run " SLIDE " --set integrator.newton_max_iterations=100000", 2, "[1, 10000]"},
    {"@C run " SLIDE " --set solver.tolerance=0", 2, "'solver.tolerance'"},
    {"@C run " SLIDE " --set output.every=0", 2, "'output.every'"},
    {"@C run " SLIDE " --set output.flush_every=-1", 2, "'output.flush_every'"},
    {"@C run " SLIDE " --set contact.friction=-1", 2, "'contact.friction'"},
    {"@C run " SLIDE " --set contact.model=nope", 2, "'contact.model'"},
    {"@C run " SLIDE " --set solver.nme=pgs", 2, "'solver.nme'"},
    {"@C run " SLIDE " --set robots.0.base=sideways", 2, "'robots.0.base'"},
    {"@C run " SLIDE " --set 'robots.0.q0=[0,0,0.05,0,0,0,0]'", 2,
     "--set:1:13: 'robots.0.q0': values 3-6 are the quaternion"},
    {"@C run " SLIDE " --set 'robots.0.q0=[0,0,0.05,0,0,1]'", 2, "--set:1:13: 'robots.0.q0'"},
    {"@C run " SLIDE " --set 'robots.0.v0=[1,2]'", 2, "'robots.0.v0': robot 'cube' has nv = 6"},
    // initial states whose energies overflow (issue 26): exit 2 before the first step, naming
    // the key; m g z of the 1 kg cube overflows at z > 1.8e308 / 9.81, 1/2 m v^2 at v > 1.9e154
    {"@C run " SLIDE " --set 'robots.0.q0=[0,0,1.0e308,0,0,0,1]'", 2,
     "--set:1:13: 'robots.0.q0': robot 'cube' starts with kinetic energy 0.5 J and potential "
     "energy inf J"},
    {"@C run " SLIDE " --set 'robots.0.q0=[0,0,5e307,0,0,0,1]' --set 'robots.0.v0=[0,0,0,0,0,0]'",
     2, "--set:1:13: 'robots.0.q0': robot 'cube' starts with kinetic energy 0 J and potential "
     "energy inf J"},
    {"@C run " SLIDE " --set 'robots.0.v0=[0,1e155,0,0,0,0]'", 2,
     "--set:1:13: 'robots.0.v0': robot 'cube' starts with kinetic energy inf J"},
    // each energy finite, the audit's scale kinetic + |potential| not (1.5e308 + 9.8e307)
    {"@C run " SLIDE " --set world.ground.type=none --set 'robots.0.q0=[0,0,-1e307,0,0,0,1]' "
     "--set 'robots.0.v0=[0,1.732e154,0,0,0,0]'", 2, "--set:3:13: 'robots.0.v0'"},
    {"@C run " SLIDE " --set solver.name=lemke", 2, "--set:1:13: 'solver.name': model 'ncp'"},
    {"@C run " SLIDE " --set contact.model=lcp --set solver.name=bisection", 2,
     "--set:2:13: 'solver.name'"},
    {"@C run scenarios/cube_stack_ill.yaml --set contact.model=raisim", 2, "cube_stack_ill.yaml:13:"},
    {"@C run " SLIDE " --set 'actions=[{type: force, body: nope}]'", 2,
     "'actions.0.body': no link named 'nope'"},
    {"@C run " SLIDE " --set robots.0.urdf=@T/fifo", 2, "not a regular file"},
    {"@C run " SLIDE " --set robots.0.urdf=/dev/zero", 2, "not a regular file"},
    {"@C run " SLIDE " --set robots.0.urdf=@T/none.urdf", 2, "No such file"},
    {"@C run tests/data/scenarios/bad_anchor.yaml", 2, "bad_anchor.yaml:2:5: 'robots.0'"},
    {"@C run tests/data/scenarios/bad_binary.yaml", 2, "bad_binary.yaml:1:1:"},
    {"@C run tests/data/scenarios/bad_duplicate.yaml", 2, "bad_duplicate.yaml:5:3:"},
    {"@C run tests/data/scenarios/bad_empty.yaml", 2, "the scenario is empty"},
    {"@C run tests/data/scenarios/bad_indent.yaml", 2, "bad_indent.yaml:3:2:"},
    {"@C run tests/data/scenarios/bad_tabs.yaml", 2, "bad_tabs.yaml:2:1:"},
    {"@C run tests/data/scenarios/bad_two_documents.yaml", 2, "bad_two_documents.yaml:3:1:"},
    {"@C run tests/data/scenarios/bad_unclosed.yaml", 2, "bad_unclosed.yaml:4:7:"},
    // URDF / XML: file:line:column and the element
    {"@C info tests/data/urdf/bad_cycle.urdf", 2, "bad_cycle.urdf:13:3: 'joint'"},
    {"@C info tests/data/urdf/bad_two_roots.urdf", 2, "bad_two_roots.urdf:4:3: 'link'"},
    {"@C info tests/data/urdf/bad_two_parents.urdf", 2, "bad_two_parents.urdf:13:3: 'joint'"},
    {"@C info tests/data/urdf/bad_self_joint.urdf", 2, "bad_self_joint.urdf:8:3: 'joint'"},
    {"@C info tests/data/urdf/bad_duplicate_link.urdf", 2, "bad_duplicate_link.urdf:4:3: 'link'"},
    {"@C info tests/data/urdf/bad_number.urdf", 2, "bad_number.urdf:5:13: 'mass'"},
    {"@C info tests/data/urdf/bad_mismatched_tag.urdf", 2, "bad_mismatched_tag.urdf:6:5:"},
    {"@C info tests/data/urdf/bad_truncated.urdf", 2, "bad_truncated.urdf:12:29:"},
    {"@C info tests/data/urdf/bad_zero_axis.urdf", 2, "bad_zero_axis.urdf:12:11: 'axis'"},
    {"@C info tests/data/urdf/bad_negative_mass.urdf", 2, "bad_negative_mass.urdf:5:13: 'mass'"},
    {"@C info tests/data/urdf/bad_joint_type.urdf", 2, "bad_joint_type.urdf:4:23: 'joint'"},
    {"@C info tests/data/urdf/bad_missing_child.urdf", 2, "bad_missing_child.urdf:5:5: 'child'"},
    {"@C info @T/text.txt", 2, "text.txt:1:1:"},
    // STL: line (ASCII) or triangle (binary)
    {"@C run @T/stl_empty/mesh.yaml --out @T/o.h5", 2, "m.stl"},
    {"@C run @T/stl_ascii_num/mesh.yaml --out @T/o.h5", 2, "m.stl:4"},
    {"@C run @T/stl_ascii_none/mesh.yaml --out @T/o.h5", 2, "no triangles"},
    {"@C run @T/stl_ascii_vertex/mesh.yaml --out @T/o.h5", 2, "m.stl:6: ASCII STL: expected a number"},
    {"@C run @T/stl_bin_trunc/mesh.yaml --out @T/o.h5", 2, "84 + 50*3"},
    {"@C run @T/stl_bin_nan/mesh.yaml --out @T/o.h5", 2, "triangle 1"},
    {"@C run @T/stl_flat/mesh.yaml --out @T/o.h5", 2, "coplanar"},
    {"@C run @T/stl_fifo/mesh.yaml --out @T/o.h5", 2, "'m.stl' of link 'body' could not be"},
    // FCLib: the dataset path
    {"@C solve @T/fc_huge_type.hdf5 --solver pgs", 2, "/fclib_local/vectors/mu"},
    {"@C solve @T/fc_huge_type.hdf5 --solver pgs", 2, "element size 1073741824 bytes"},
    {"@C solve @T/fc_odd_type.hdf5 --solver pgs", 2, "element size 16 bytes"},
    {"@C solve @T/fc_short_q.hdf5 --solver pgs", 2, "/fclib_local/vectors/q"},
    {"@C solve @T/fc_nan_mu.hdf5 --solver pgs", 2, "/fclib_local/vectors/mu"},
    {"@C solve @T/fc_no_mu.hdf5 --solver pgs", 2, "/fclib_local/vectors/mu"},
    {"@C solve @T/fc_str_q.hdf5 --solver pgs", 2, "/fclib_local/vectors/q"},
    {"@C solve @T/fc_dim2.hdf5 --solver pgs", 2, "spacedim"},
    {"@C solve @T/fc_bad_p.hdf5 --solver pgs", 2, "/fclib_local/W"},
    {"@C solve @T/fc_empty.hdf5 --solver pgs", 2, "fclib_local"},
    // corrupted HDF5 that libhdf5 1.10.8 crashes on (SIGSEGV): fuzzer findings kept as regressions
    {"@C solve tests/fuzz/regressions/fclib/hdf5-compact-dataset-without-data-memcpy-null.hdf5 "
     "--solver pgs", 2, "'/fclib_local/vectors/mu': corrupted: compact dataset of 3 elements"},
    {"@C validate cubetoss --data tests/fuzz/regressions/cubetoss/vlen-cube-global-heap-index.h5",
     2, "'cube': root attribute 'cube' is corrupt"},
    {"@C solve tests/fuzz/regressions/fclib/hdf5-local-heap-lexists-memcpy-null.hdf5 --solver pgs",
     2, "corrupted HDF5 file: HDF5 crashed reading it"},
    {"@C solve @T/text.txt --solver pgs", 2, "not an HDF5 file"},
    {"@C solve @T/fifo --solver pgs", 2, "not a regular file"},
};
#define NBAD (sizeof(kBad) / sizeof(kBad[0]))

// every row: exit code, fragment, no output file left by the run rows that name @T/o.h5
START_TEST(bad_input_table) {
  make_fixtures();
  ck_assert_int_ge((int)NBAD, 60);
  char cmd[4096], frag[1024], out[16384], o5[512];
  int failures = 0;
  for (size_t k = 0; k < NBAD; k++) {
    expand(kBad[k].cmd, cmd, sizeof(cmd));
    expand(kBad[k].fragment, frag, sizeof(frag));
    char timed[4200];
    // a hang is a failure too: timeout(1) ends it with 124
    snprintf(timed, sizeof(timed), "timeout 20 %s", cmd);
    int rc = sh_run_all(timed, out, sizeof(out));
    int ok = rc == kBad[k].code && strstr(out, frag) != NULL;
    if (ok && file_exists(tmp_path(o5, sizeof(o5), "o.h5"))) {
      ok = 0;
      snprintf(out + strlen(out), sizeof(out) - strlen(out), "\n(left an output file)");
      unlink(o5);
    }
    if (!ok) {
      failures++;
      fprintf(stderr, "bad input %zu: %s\n  expected exit %d and '%s', got exit %d:\n%s\n", k,
              cmd, kBad[k].code, frag, rc, out);
    }
  }
  ck_assert_msg(failures == 0, "%d of %zu bad-input cases failed (details above)", failures,
                NBAD);
}
END_TEST

//---------------------------------- kill, full disk, removal, SIGINT -------------------------

// h5py's view of a killed run's file: "rows steps_written complete ok" where ok = 1 when every
// dataset has at least steps_written rows, /time is k dt, and the rows equal those of the
// reference run (a complete run of the same scenario, shorter)
static void check_with_h5py(const char* f5, const char* ref, long* rows, long* written) {
  char cmd[4096], out[4096];
  snprintf(cmd, sizeof(cmd),
           PY " - <<'EOF'\n"
           "import h5py, numpy as np\n"
           "f = h5py.File('%s', 'r'); r = h5py.File('%s', 'r')\n"
           "n = int(f.attrs['steps_written']); rows = f['/time'].shape[0]\n"
           "ok = rows >= n and f.attrs['complete'] == 0\n"
           "for k in ['/time', '/state/q', '/state/v', '/energy/total', '/solver/eps_abs',\n"
           "          '/contacts/count', '/contacts/offset', '/contacts/reduced',\n"
           "          '/contacts/reduced_touching']:\n"
           "    ok = ok and f[k].shape[0] >= n\n"
           "m = min(n, r['/time'].shape[0])\n"
           "ok = ok and np.allclose(f['/time'][:n], 1e-3 * np.arange(n), rtol=0, atol=1e-9)\n"
           "for k in ['/state/q', '/state/v', '/energy/total', '/contacts/count',\n"
           "          '/contacts/reduced']:\n"
           "    ok = ok and np.array_equal(f[k][:m], r[k][:m])\n"
           "nc = int(f['/contacts/count'][:n].sum())\n"
           "ok = ok and f['/contacts/depth'].shape[0] >= nc\n"
           "print(rows, n, int(ok))\n"
           "EOF",
           f5, ref);
  int rc = sh_run_all(cmd, out, sizeof(out));
  ck_assert_msg(rc == 0, "h5py could not read %s:\n%s", f5, out);
  int ok = 0;
  ck_assert_msg(sscanf(out, "%ld %ld %d", rows, written, &ok) == 3, "h5py said: %s", out);
  ck_assert_msg(ok, "rows of the killed run are wrong: %s", out);
}

// SIGKILL at a random moment: the file opens in h5py with every row up to the last flush,
// identical to the rows of an uninterrupted run
START_TEST(sigkill_keeps_flushed_rows) {
  char ref[512], f5[512], log[512], out[8192], cmd[2048];
  tmp_path(ref, sizeof(ref), "ref.h5");
  snprintf(cmd, sizeof(cmd), "%s run scenarios/solo12_stand.yaml --quiet --set "
           "integrator.duration=0.3 --out %s", csim_bin(), ref);
  ck_assert_int_eq(sh_run_all(cmd, out, sizeof(out)), 0);
  unsigned seed = (unsigned)time(NULL) ^ (unsigned)getpid();
  srand(seed);
  for (int trial = 0; trial < 2; trial++) {
    tmp_path(f5, sizeof(f5), trial ? "kill1.h5" : "kill0.h5");
    tmp_path(log, sizeof(log), "kill.log");
    const char* argv[] = {csim_bin(), "run", "scenarios/solo12_stand.yaml", "--quiet", "--set",
                          "integrator.duration=1000", "--set", "output.flush_every=0.02",
                          "--out", f5, NULL};
    pid_t pid = spawn_logged(argv, log);
    ck_assert_msg(wait_file(f5, 30), "no output file within 30 s");
    double at = 0.2 + 0.6 * (double)rand() / RAND_MAX;  // a random step
    sleep_s(at);
    ck_assert_int_eq(kill(pid, SIGKILL), 0);
    int st;
    waitpid(pid, &st, 0);
    long rows = 0, written = 0;
    check_with_h5py(f5, ref, &rows, &written);
    ck_assert_msg(written > 0, "killed after %.2f s (seed %u): no row flushed", at, seed);
  }
}
END_TEST

// a file-size limit (SIGXFSZ ignored, as a full disk): exit 1, a message naming the file and a
// dataset, no crash, and the file readable with the rows of the last flush
START_TEST(write_error_exits_1) {
  char f5[512], cmd[2048], out[16384];
  tmp_path(f5, sizeof(f5), "full.h5");
  snprintf(cmd, sizeof(cmd),
           "sh -c \"trap '' XFSZ; ulimit -f 4000; exec %s run " SLIDE " --quiet --set "
           "integrator.duration=100 --set output.flush_every=0 --out %s\"",
           csim_bin(), f5);
  int rc = sh_run_all(cmd, out, sizeof(out));
  ck_assert_msg(rc == 1, "exit %d (139 = the HDF5 crash):\n%s", rc, out);
  ck_assert_msg(strstr(out, f5) && strstr(out, "cannot write rows"), "message:\n%s", out);
  ck_assert_msg(strstr(out, "'/"), "no dataset named:\n%s", out);
  char py[1024];
  snprintf(py, sizeof(py),
           PY " -c \"import h5py; f = h5py.File('%s', 'r'); n = int(f.attrs['steps_written']); "
           "print(n, f['/time'].shape[0] if n else 0, f.attrs['complete'])\"", f5);
  rc = sh_run_all(py, out, sizeof(out));
  ck_assert_msg(rc == 0, "h5py cannot open the file:\n%s", out);
  long n = -1, rows = -1, complete = -1;
  ck_assert_int_eq(sscanf(out, "%ld %ld %ld", &n, &rows, &complete), 3);
  ck_assert_int_gt(n, 0);
  ck_assert_int_ge(rows, n);
  ck_assert_int_eq(complete, 0);
}
END_TEST

// the output directory removed during the run: exit 1 with a message, within a few flushes
START_TEST(output_removed_exits_1) {
  char dir[400], f5[512], log[512], text[8192];
  tmp_path(dir, sizeof(dir), "outdir");
  ck_assert_int_eq(mkdir(dir, 0700), 0);
  snprintf(f5, sizeof(f5), "%s/run.h5", dir);
  tmp_path(log, sizeof(log), "rm.log");
  const char* argv[] = {csim_bin(), "run", SLIDE, "--quiet", "--set", "integrator.duration=1000",
                        "--set", "output.flush_every=0.05", "--out", f5, NULL};
  pid_t pid = spawn_logged(argv, log);
  ck_assert(wait_file(f5, 30));
  sleep_s(0.2);
  ck_assert_int_eq(unlink(f5), 0);
  ck_assert_int_eq(rmdir(dir), 0);
  int st = 0;
  ck_assert_msg(wait_exit(pid, 30, &st) == 0, "csim ran on after its output was removed");
  read_log(log, text, sizeof(text));
  ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 1, "status %d:\n%s", st, text);
  ck_assert_msg(strstr(text, "disappeared"), "message:\n%s", text);
}
END_TEST

// run argv (its output f5, its log), send sig `after` s after the output file appears, and
// expect the stop within `limit` s: exit 1, "interrupted by <SIG> during step 0" in the log and
// in the file's failure attribute, complete = 0
static void expect_interrupted(const char* const* argv, const char* f5, const char* log, int sig,
                               double after, int limit) {
  char text[8192], py[1024], out[4096], want[64];
  const char* name = sig == SIGINT ? "SIGINT" : "SIGTERM";
  pid_t pid = spawn_logged(argv, log);
  ck_assert(wait_file(f5, 30));
  sleep_s(after);
  ck_assert_int_eq(kill(pid, sig), 0);
  int st = 0;
  ck_assert_msg(wait_exit(pid, limit, &st) == 0, "csim did not stop within %d s of %s", limit,
                name);
  read_log(log, text, sizeof(text));
  ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 1, "status %d:\n%s", st, text);
  snprintf(want, sizeof(want), "interrupted by %s during step 0", name);
  ck_assert_msg(strstr(text, want), "message:\n%s", text);
  snprintf(py, sizeof(py),
           PY " -c \"import h5py; f = h5py.File('%s', 'r'); print(f.attrs['complete'], "
           "f.attrs['failure'])\"", f5);
  ck_assert_int_eq(sh_run_all(py, out, sizeof(out)), 0);
  ck_assert_msg(out[0] == '0' && strstr(out, want), "attributes: %s", out);
}

// SIGINT inside a solve: a one-step run whose solve is capped at 1e6 iterations with a
// tolerance it never reaches (about 2 s on this machine class). A csim that looked at signals
// only between steps would finish the step and the run (exit 0, complete = 1); the solver must
// return within an iteration and the run end with exit 1, "during step 0", complete = 0
START_TEST(sigint_inside_long_solve) {
  char f5[512], log[512];
  tmp_path(f5, sizeof(f5), "ill.h5");
  tmp_path(log, sizeof(log), "ill.log");
  const char* argv[] = {csim_bin(), "run", "scenarios/cube_stack_ill.yaml", "--quiet", "--set",
                        "solver.max_iterations=1000000", "--set", "solver.tolerance=1e-300",
                        "--set", "integrator.duration=0.001", "--out", f5, NULL};
  expect_interrupted(argv, f5, log, SIGINT, 0.1, 20);
}
END_TEST

// SIGTERM inside an error-controlled step: one output step of 1 s of the Allegro hand under
// implicit Euler with integrator.accuracy 0.01 crosses thousands of substeps (about a minute of
// work on this machine class). A csim that looked at signals only between output steps would
// run the step out; the substep loop must stop at the next substep, well inside the 10 s allowed
START_TEST(sigterm_inside_error_controlled_step) {
  char f5[512], log[512];
  tmp_path(f5, sizeof(f5), "ec.h5");
  tmp_path(log, sizeof(log), "ec.log");
  const char* argv[] = {csim_bin(), "run", "scenarios/allegro_mug.yaml", "--quiet", "--set",
                        "integrator.scheme=implicit_euler", "--set", "integrator.accuracy=0.01",
                        "--set", "integrator.dt=1", "--set", "integrator.duration=1", "--out", f5,
                        NULL};
  expect_interrupted(argv, f5, log, SIGTERM, 0.5, 10);
}
END_TEST

// corrupted vlen strings: the global-heap index of a variable-length string (the cube-toss
// fuzzer's finding, bytes 964..967 of the shared file set to ff ff 00 6f) makes HDF5 1.10.8
// crash in H5HG_read (h5py on these files dies with SIGSEGV). Every csim reader of vlen strings
// from user files must answer exit 2 (merge: the point's status) naming the file and the
// attribute or dataset. The corrupted copies are made by tests/fuzz/corrupt_vlen.py, which
// finds the descriptor by the attribute's value (independently of csim)
#define CORRUPT PY " tests/fuzz/corrupt_vlen.py"
#define SHARED_TOSS "../shared/data/cubetoss/cube_tosses.h5"
#define KEPT_TOSS "tests/fuzz/regressions/cubetoss/vlen-cube-global-heap-index.h5"
#define THREE_JS "tools/view/replay/node_modules/three/build/three.module.min.js"

static void expect_corrupt(const char* cmd, int code, const char* file, const char* what) {
  char out[16384];
  int rc = sh_run_all(cmd, out, sizeof(out));
  ck_assert_msg(rc == code, "%s\nexit %d (expected %d; -1: killed):\n%s", cmd, rc, code, out);
  ck_assert_msg(strstr(out, file) && strstr(out, what) && strstr(out, "corrupt"),
                "%s\nmessage does not name %s and %s as corrupt:\n%s", cmd, file, what, out);
}

START_TEST(corrupt_vlen_strings_exit_2) {
  char cmd[8192], out[8192], a[512], b[512], c[512], root[512], bin[1200];
  ck_assert_ptr_nonnull(getcwd(root, sizeof(root)));
  const char* cb = csim_bin();  // absolute: the sweep part runs in the temporary directory
  snprintf(bin, sizeof(bin), "%s%s%s", cb[0] == '/' ? "" : root, cb[0] == '/' ? "" : "/", cb);
  // the kept small file (tests/fuzz/regressions/cubetoss/README says how it was made)
  snprintf(cmd, sizeof(cmd), "%s validate cubetoss --data " KEPT_TOSS, csim_bin());
  expect_corrupt(cmd, 2, KEPT_TOSS, "root attribute 'cube'");
  // the fuzzer's input itself, rebuilt from the shared data when it is there
  if (file_exists(SHARED_TOSS)) {
    tmp_path(a, sizeof(a), "toss.h5");
    snprintf(cmd, sizeof(cmd), CORRUPT " " SHARED_TOSS " %s cube", a);
    ck_assert_int_eq(sh_run_all(cmd, out, sizeof(out)), 0);
    ck_assert_msg(atol(out) == 964, "the 'cube' index is at %s, not at byte 964", out);
    snprintf(cmd, sizeof(cmd), "%s validate cubetoss --data %s", csim_bin(), a);
    expect_corrupt(cmd, 2, a, "root attribute 'cube'");
  } else {
    fprintf(stderr, "corrupt_vlen_strings_exit_2: %s absent, the 12 MB case not run\n", SHARED_TOSS);
  }
  // compare: a vlen string dataset added to a run's file, then corrupted in a copy
  tmp_path(a, sizeof(a), "run.h5");
  tmp_path(b, sizeof(b), "labels.h5");
  tmp_path(c, sizeof(c), "labels_bad.h5");
  snprintf(cmd, sizeof(cmd), "%s run " SLIDE " --quiet --set integrator.duration=0.01 --out %s && cp %s %s && "
           PY " -c \"import h5py; f = h5py.File('%s', 'a'); f.create_dataset('/labels', "
           "data=['first', 'second'], dtype=h5py.string_dtype())\" && " CORRUPT " %s %s /labels",
           csim_bin(), a, a, b, b, b, c);
  ck_assert_msg(sh_run_all(cmd, out, sizeof(out)) == 0, "%s", out);
  snprintf(cmd, sizeof(cmd), "%s compare %s %s", csim_bin(), b, c);
  expect_corrupt(cmd, 2, c, "'/labels'");
  snprintf(cmd, sizeof(cmd), "%s compare %s %s", csim_bin(), b, b);  // the intact file compares
  ck_assert_msg(sh_run_all(cmd, out, sizeof(out)) == 0, "%s", out);
  // replay: the scenario_name attribute (needs three.js, `make deps`)
  tmp_path(c, sizeof(c), "name_bad.h5");
  snprintf(cmd, sizeof(cmd), CORRUPT " %s %s scenario_name", a, c);
  ck_assert_msg(sh_run_all(cmd, out, sizeof(out)) == 0, "%s", out);
  if (file_exists(THREE_JS)) {
    snprintf(cmd, sizeof(cmd), "%s replay %s --out %s/r.html", csim_bin(), c, g_tmp);
    expect_corrupt(cmd, 2, c, "root attribute 'scenario_name'");
  } else {
    fprintf(stderr, "corrupt_vlen_strings_exit_2: %s absent (make deps), replay not run\n", THREE_JS);
  }
  // merge: the failure attribute of a failed point (one PGS sweep at step 0); the point is
  // reported, merge goes on
  snprintf(cmd, sizeof(cmd),
           "cd %s && printf 'base: %s/" SLIDE "\\naxes: {solver.max_iterations: [1]}\\n"
           "set: {solver.on_failure: stop, solver.name: pgs}\\n' > s.yaml && %s sweep s.yaml --out sw && "
           "{ make -s -C sw CSIM=%s; mv sw/out/0000_maxiterations-1.h5 f.h5 && "
           PY " %s/tests/fuzz/corrupt_vlen.py f.h5 sw/out/0000_maxiterations-1.h5 failure; }",
           g_tmp, root, bin, bin, root);
  ck_assert_msg(sh_run_all(cmd, out, sizeof(out)) == 0, "%s", out);
  snprintf(cmd, sizeof(cmd), "cd %s && %s merge sw --out -", g_tmp, bin);
  expect_corrupt(cmd, 1, "out/0000_maxiterations-1.h5", "root attribute 'failure'");
  // merge: a point file whose root symbol table crashes HDF5 inside H5Lexists (fclib finding)
  snprintf(cmd, sizeof(cmd),
           "cp tests/fuzz/regressions/fclib/hdf5-local-heap-lexists-memcpy-null.hdf5 "
           "%s/sw/out/0000_maxiterations-1.h5 && cd %s && %s merge sw --out -", g_tmp, g_tmp, bin);
  expect_corrupt(cmd, 1, "out/0000_maxiterations-1.h5: corrupted HDF5 file", "signal");
}
END_TEST

static Suite* hardening_suite(void) {
  Suite* s = suite_create("hardening");
  TCase* t = tcase_create("hostile");
  tcase_set_timeout(t, 300);
  tcase_add_checked_fixture(t, tmp_setup, tmp_teardown);
  tcase_add_test(t, bad_input_table);
  tcase_add_test(t, sigkill_keeps_flushed_rows);
  tcase_add_test(t, write_error_exits_1);
  tcase_add_test(t, output_removed_exits_1);
  tcase_add_test(t, sigint_inside_long_solve);
  tcase_add_test(t, sigterm_inside_error_controlled_step);
  tcase_add_test(t, corrupt_vlen_strings_exit_2);
  suite_add_tcase(s, t);
  return s;
}

int main(void) {
  return run_suite(hardening_suite());
}
