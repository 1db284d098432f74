// interrupt.c — SIGINT/SIGTERM set a flag (see interrupt.h).
#include "core/interrupt.h"

#include <string.h>

volatile sig_atomic_t intr_signal_g = 0;

static struct sigaction g_old_int, g_old_term;
static int g_installed = 0;

// the handler: remember which signal, nothing else
static void on_signal(int sig) {
  intr_signal_g = sig;
}

// install both handlers, keeping the previous ones
void intr_install(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  intr_signal_g = 0;
  sigaction(SIGINT, &sa, &g_old_int);
  sigaction(SIGTERM, &sa, &g_old_term);
  g_installed = 1;
}

// put the previous handlers back
void intr_restore(void) {
  if (!g_installed) return;
  sigaction(SIGINT, &g_old_int, NULL);
  sigaction(SIGTERM, &g_old_term, NULL);
  g_installed = 0;
}
