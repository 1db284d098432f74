// tools/bench/peer_cubetoss.h — csim's cube-toss data and e_q (src/run/cubetoss.h: ct_load,
// ct_toss, ct_row_state, ct_score) behind plain C types, for the C++ Bullet cube-toss harness
// (tools/bench/cubetoss_bullet.cpp): the peer is scored by the same code as csim's models.
#ifndef CSIM_PEER_CUBETOSS_H
#define CSIM_PEER_CUBETOSS_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct peer_ct peer_ct;

// load group `group` of the HDF5 file; NULL after a message on stderr
peer_ct* peer_ct_open(const char* path, const char* group);
void peer_ct_close(peer_ct* c);
int peer_ct_count(const peer_ct* c);
// data period (s), cube side (m), mass (kg), principal inertia (kg m^2)
void peer_ct_cube(const peer_ct* c, double* dt, double* side, double* mass, double inertia[3]);
// rows of toss i; state of row k: q = [x y z qx qy qz qw], v = [linear (world), angular (body)]
int peer_ct_rows(const peer_ct* c, int i);
void peer_ct_state(const peer_ct* c, int i, int k, double q[7], double v[6]);
// seed 003 eq. 3 and the Tab. III errors of simulated rows simq (rows x 7, as q above)
void peer_ct_score(const peer_ct* c, int i, const double* simq, double* eq, double* pos, double* rot);

#ifdef __cplusplus
}
#endif

#endif  // CSIM_PEER_CUBETOSS_H
