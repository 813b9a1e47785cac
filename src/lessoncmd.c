/* lessoncmd.c - `mhaviz lesson` (placeholder until the parser lands). */
#include <stdio.h>
#include "commands.h"
int cmd_lesson(int argc, char **argv) { (void)argc; (void)argv; return 2; }
