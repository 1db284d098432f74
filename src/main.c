// main.c — entry point: hands the command line to the cli module.
#include "cli.h"

int main(int argc, char** argv) {
  return cli_main(argc, argv);
}
