// data.c — per-run state and scratch arena, sized once from the model (see data.h).
#include "core/data.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

// AddressSanitizer: poison the free part of the arena so use of released scratch is caught
#if defined(__SANITIZE_ADDRESS__)
#define DATA_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define DATA_ASAN 1
#endif
#endif
#ifdef DATA_ASAN
#include <sanitizer/asan_interface.h>
#define ARENA_POISON(p, n) ASAN_POISON_MEMORY_REGION((p), (n))
#define ARENA_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#else
#define ARENA_POISON(p, n) ((void)(p), (void)(n))
#define ARENA_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

#define DATA_ALIGN 64

// reserve `bytes` at the next 64-byte boundary; NULL pointers while only measuring
static void* take(unsigned char* base, size_t* off, size_t bytes) {
  size_t o = (*off + DATA_ALIGN - 1) & ~(size_t)(DATA_ALIGN - 1);
  *off = o + bytes;
  return base ? (void*)(base + o) : NULL;
}

// place every array of d inside `base` (NULL: only measure), in DATA_ARRAYS order, then the
// arena; returns the bytes needed
static size_t data_layout(const sim_model* m, sim_data* d, unsigned char* base, size_t arena) {
  size_t off = 0;
#define DATA_TAKE(name, rows, cols, desc) \
  d->name = take(base, &off, sizeof(double) * (size_t)(rows) * (size_t)(cols));
  DATA_ARRAYS(DATA_TAKE)
#undef DATA_TAKE
  d->arena = take(base, &off, arena);
  return off;
}

// an allocation of `bytes` from the arena, rounded up to the alignment the next one starts at
static size_t arena_block(size_t bytes) {
  return (bytes + DATA_ALIGN - 1) & ~(size_t)(DATA_ALIGN - 1);
}

// The arena's users (grep data_stack_alloc) each take their blocks and release them before
// returning, and none calls another while holding them, so the arena holds at most the larger
// of: contact_build's tmpdofs (maxdepth + 1 ints) and tmpjac (3 (maxdepth + 1) doubles), and
// contact_apply's x (nv doubles). Each block starts on a 64-byte boundary
size_t data_arena_default(const sim_model* m) {
  size_t chain = (size_t)m->maxdepth + 1;
  size_t build = arena_block(sizeof(int) * chain) + arena_block(sizeof(double) * 3 * chain);
  size_t apply = arena_block(sizeof(double) * (size_t)m->nv);
  return build > apply ? build : apply;
}

// the arena size data_create uses for a request (0: the default), a multiple of the alignment
static size_t arena_size(const sim_model* m, size_t arena_bytes) {
  return arena_block(arena_bytes ? arena_bytes : data_arena_default(m));
}

// the struct, and the buffer with room to align its start
size_t data_bytes(const sim_model* m, size_t arena_bytes) {
  sim_data tmp;
  return sizeof(sim_data) + data_layout(m, &tmp, NULL, arena_size(m, arena_bytes)) + DATA_ALIGN;
}

// measure, allocate one 64-byte aligned buffer, place the arrays and the arena, reset
csim_status data_create(const sim_model* m, size_t arena_bytes, sim_data** out, csim_error* err) {
  if (out) *out = NULL;
  if (!m || !out) return err_set(err, CSIM_ERR_INPUT, NULL, 0, 0, NULL, "data_create: invalid arguments");
  arena_bytes = arena_size(m, arena_bytes);
  sim_data* d = calloc(1, sizeof(sim_data));
  if (!d) return err_set(err, CSIM_ERR_RUN, NULL, 0, 0, NULL, "out of memory");
  size_t bytes = data_layout(m, d, NULL, arena_bytes) + DATA_ALIGN;
  d->buffer = calloc(1, bytes);
  if (!d->buffer) {
    free(d);
    return err_set(err, CSIM_ERR_RUN, NULL, 0, 0, NULL, "out of memory (%zu bytes of data)", bytes);
  }
  unsigned char* base = (unsigned char*)(((uintptr_t)d->buffer + DATA_ALIGN - 1) &
                                         ~(uintptr_t)(DATA_ALIGN - 1));
  data_layout(m, d, base, arena_bytes);
  d->arena_size = arena_bytes;
  ARENA_POISON(d->arena, d->arena_size);
  data_reset(m, d);
  *out = d;
  return CSIM_OK;
}

// one buffer
void data_free(sim_data* d) {
  if (!d) return;
  if (d->arena) ARENA_UNPOISON(d->arena, d->arena_size);
  free(d->buffer);
  free(d);
}

// state to qpos0 and rest, inputs cleared, arena emptied
void data_reset(const sim_model* m, sim_data* d) {
  d->time = 0;
  // state: reference configuration, rest
  memcpy(d->q, m->qpos0, sizeof(double) * (size_t)m->nq);
  memset(d->v, 0, sizeof(double) * (size_t)m->nv);
  // inputs
  memset(d->qfrc_applied, 0, sizeof(double) * (size_t)m->nv);
  memset(d->xfrc_applied, 0, sizeof(double) * 6 * (size_t)m->nbody);
  // the scratch arena is emptied (its high-water mark is kept)
  data_stack_free(d, 0);
}

// current top of the arena
size_t data_stack_mark(const sim_data* d) {
  return d->arena_top;
}

// bump allocation at the next 64-byte boundary, zeroed; NULL when it does not fit
void* data_stack_alloc(sim_data* d, size_t bytes) {
  size_t start = (d->arena_top + DATA_ALIGN - 1) & ~(size_t)(DATA_ALIGN - 1);
  if (start > d->arena_size || bytes > d->arena_size - start) return NULL;
  unsigned char* p = d->arena + start;
  ARENA_UNPOISON(p, bytes);
  memset(p, 0, bytes);
  d->arena_top = start + bytes;
  if (d->arena_top > d->arena_peak) d->arena_peak = d->arena_top;
  return p;
}

// release everything above the mark (poisoned under ASan)
void data_stack_free(sim_data* d, size_t mark) {
  if (mark > d->arena_top) return;
  ARENA_POISON(d->arena + mark, d->arena_size - mark);
  d->arena_top = mark;
}
