// A throwaway certificate authority and one leaf certificate for 127.0.0.1 (subjectAltName
// IP:127.0.0.1), made with the openssl CLI in a temp dir, for the storage nodes' HTTPS servers:
// the Walrus SDK always speaks https://${network_address} (walrus client.js getCommittee). A client
// process trusts the CA with NODE_EXTRA_CA_CERTS=<caCertFile>; an in-process client passes the PEM
// to its TLS agent.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface DoubleTls {
  dir: string;
  caCertFile: string;
  caCert: string;
  key: string;
  cert: string;
  remove(): void;
}

/** In `dir` (created if needed; files there are replaced), else in a new temp dir. */
export function makeTls(dir = fs.mkdtempSync(path.join(os.tmpdir(), 'walrus-double-tls-'))): DoubleTls {
  fs.mkdirSync(dir, { recursive: true });
  const file = (name: string) => path.join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  openssl('req', '-x509', ...ec, '-keyout', file('ca.key'), '-out', file('ca.crt'), '-days', '2', '-subj', '/CN=walrus-double-ca',
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign');
  openssl('req', '-new', ...ec, '-keyout', file('node.key'), '-out', file('node.csr'), '-subj', '/CN=127.0.0.1');
  fs.writeFileSync(file('node.ext'), 'subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n');
  openssl('x509', '-req', '-in', file('node.csr'), '-CA', file('ca.crt'), '-CAkey', file('ca.key'), '-CAcreateserial',
    '-out', file('node.crt'), '-days', '2', '-extfile', file('node.ext'));
  return {
    dir,
    caCertFile: file('ca.crt'),
    caCert: fs.readFileSync(file('ca.crt'), 'utf8'),
    key: fs.readFileSync(file('node.key'), 'utf8'),
    cert: fs.readFileSync(file('node.crt'), 'utf8'),
    remove: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}
