// The certificate and key files the TLS listeners load are copies, taken at start and on each
// reload and checked once. uWS loads a context by file name when a handshake first names a server
// (SNI), in each thread, long after the start or reload: read from the operator's files, a name
// first seen after those were rewritten, or while they are being rewritten, would get other files
// than the checked ones, or broken ones, and its handshake would fail. (The node engine reads the
// files once per reload, in each thread.)

import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { tlsFilesLoad } from './engine.js';
import type { TlsFiles } from './listener.js';

/** Copies kept: the current one, and the one before for a thread that has not switched yet. */
const KEPT = 2;

export class TlsSnapshots {
  private taken: TlsFiles[] = [];
  private generation = 0;

  private constructor(
    private readonly dir: string,
    private readonly source: TlsFiles,
  ) {}

  /** Copies of `source` under `dir` (private to this process: emptied here, mode 0700). */
  static async open(dir: string, source: TlsFiles): Promise<TlsSnapshots> {
    const inside = (file: string): boolean => !relative(resolve(dir), resolve(file)).startsWith('..');
    if (inside(source.certFile) || inside(source.keyFile)) {
      throw new Error(`keep the TLS certificate and key outside ${dir}: Tusk empties that directory at each start`);
    }
    await rm(dir, { recursive: true, force: true });
    await mkdir(dir, { recursive: true, mode: 0o700 });
    return new TlsSnapshots(dir, source);
  }

  /**
   * Copies the source files as they are now and checks that they load; throws, keeping nothing
   * new, when they cannot be read or do not load.
   */
  async take(): Promise<TlsFiles> {
    const n = ++this.generation;
    const files = { certFile: join(this.dir, `cert-${n}.pem`), keyFile: join(this.dir, `key-${n}.pem`) };
    const { certFile, keyFile } = this.source;
    let cert: Buffer;
    let key: Buffer;
    try {
      [cert, key] = await Promise.all([readFile(certFile), readFile(keyFile)]);
    } catch (e) {
      throw new Error(`cannot read the TLS certificate and key: ${(e as Error).message}`);
    }
    await writeFile(files.certFile, cert, { mode: 0o600 });
    await writeFile(files.keyFile, key, { mode: 0o600 });
    if (!tlsFilesLoad(files)) {
      await removeFiles(files);
      throw new Error(`the TLS certificate ${certFile} and key ${keyFile} do not load (a PEM certificate chain and its private key)`);
    }
    this.taken.push(files);
    for (const old of this.taken.splice(0, Math.max(0, this.taken.length - KEPT))) await removeFiles(old);
    return files;
  }
}

async function removeFiles(files: TlsFiles): Promise<void> {
  await rm(files.certFile, { force: true });
  await rm(files.keyFile, { force: true });
}
