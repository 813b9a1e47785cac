/* fileio.h - reading a whole file from outside without ever blocking on it.
 *
 * Every file mhaviz reads (lessons, quiz banks, presets, the state files)
 * comes through file_read: opened with O_NONBLOCK, so a FIFO or a device
 * cannot hang the open, then refused unless it is a regular file, so it
 * cannot hang the read either.  Errors are one line, "PATH: reason":
 *     lessons/: is a directory
 *     /tmp/f: is not a regular file (a FIFO)
 *     big.lesson: is larger than 4194304 bytes
 */
#ifndef MHAVIZ_FILEIO_H
#define MHAVIZ_FILEIO_H

#include <stddef.h>

/* Reads all of the regular file at path (at most max bytes) into a new
 * NUL-terminated buffer: *out (caller frees), *len bytes (the file may hold
 * NUL bytes of its own: compare strlen(*out) with *len).  Returns 0; 1 when
 * the path does not exist (*out = NULL, err says so too); -1 with err set for
 * anything else that keeps it from being read (not regular, too big, EACCES,
 * EIO, out of memory). */
int file_read(const char *path, size_t max, char **out, size_t *len, char *err, size_t errlen);

#endif
