/** Synchronous reads of a checkpoint's files (docs/decisions/0244). */

import { lstatSync, readSync, type Stats } from 'node:fs';

/**
 * The bytes of `fd` up to one past `limit`, in a buffer of about their size (0244): it is
 * kept in the cache and posted to the upload thread, where `readFileSync` of a descriptor
 * gives a view of 64 KiB for a file of 10, every byte of which would be held and copied.
 * `size` is the size the file had when it was looked at; one that grew since is read on.
 */
export function readAll(fd: number, size: number, limit: number): Uint8Array {
  let buffer = new Uint8Array(Math.min(size, limit) + 1);
  let length = 0;
  for (;;) {
    const read = readSync(fd, buffer, length, buffer.byteLength - length, null);
    if (read === 0) return buffer.subarray(0, length);
    length += read;
    if (length > limit) return buffer.subarray(0, length);
    if (length === buffer.byteLength) {
      const larger = new Uint8Array(Math.min(buffer.byteLength * 2, limit + 1));
      larger.set(buffer);
      buffer = larger;
    }
  }
}

/** The `lstat` of `absolute`, undefined when there is nothing there (or it cannot be read). */
export function statOrUndefined(absolute: string): Stats | undefined {
  try {
    return lstatSync(absolute);
  } catch {
    return undefined;
  }
}
