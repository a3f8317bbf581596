// Crash-safe whole-file replacement: write a temporary file, fsync it, rename it over the old one,
// fsync the directory. A crash leaves either the old or the new content, never a torn file.

import fs from 'node:fs';
import path from 'node:path';

export function writeFileDurably(file: string, data: string | Buffer, mode = 0o600): void {
  const tmp = `${file}.${process.pid}.tmp`;
  const fd = fs.openSync(tmp, 'w', mode);
  try {
    fs.writeFileSync(fd, data);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, file);
  const dir = fs.openSync(path.dirname(file), 'r');
  try {
    fs.fsyncSync(dir);
  } finally {
    fs.closeSync(dir);
  }
}
