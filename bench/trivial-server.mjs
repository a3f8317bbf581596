#!/usr/bin/env node
// A raw ceiling for `tusk bench`: a uWebSockets.js server that speaks just enough S3 (path-style) to pass the
// generator's checks without storing anything. GET answers the deterministic body of the size encoded in the key
// (`<prefix><index>-<size>`, see src/bench/content.ts), so verification passes; PUT drains the body and answers
// 200 with an ETag; HEAD/DELETE/bucket calls succeed; LIST is empty; multipart answers NotImplemented.
//
// usage: node bench/trivial-server.mjs [--port 0] [--host 127.0.0.1] [--seed 1]
// prints: trivial listening on http://127.0.0.1:<port>
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const distDir = process.env.TUSK_DIST_DIR ? pathToFileURL(`${process.env.TUSK_DIST_DIR}/`) : new URL('../dist/', import.meta.url);
const [{ ContentSource, sizeFromKey }, { loadUws }] = await Promise.all([
  import(new URL('bench/content.js', distDir).href),
  import(new URL('http/uws-module.js', distDir).href),
]).catch(() => {
  console.error('bench/trivial-server.mjs needs the compiled sources: run `npm run build` first');
  process.exit(1);
});
// the native binary, never the package's silent pure-JS fallback: a slow ceiling would flatter Tusk
const uWS = loadUws();

const { values } = parseArgs({
  options: { port: { type: 'string', default: '0' }, host: { type: 'string', default: '127.0.0.1' }, seed: { type: 'string', default: '1' } },
});
const content = new ContentSource(Number(values.seed));
const CHUNK = 1 << 20;
const ETAG = '"d41d8cd98f00b204e9800998ecf8427e"';

function s3Error(res, status, code) {
  res.cork(() => res.writeStatus(status).writeHeader('content-type', 'application/xml')
    .end(`<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${code}</Message></Error>`));
}

/** Sends `parts` (Buffers) as one body of `total` bytes with uWS back-pressure handling (tryEnd + onWritable). */
function streamBody(res, parts, total, state) {
  const chunks = [];
  for (const part of parts) for (let at = 0; at < part.length; at += CHUNK) chunks.push(part.subarray(at, at + CHUNK));
  let next = 0;
  let pending = null; // the chunk that met back-pressure, and the write offset it started at
  /** Writes from `next` on; returns false when back-pressure stops it (pending is set). */
  const pump = () => {
    while (next < chunks.length && !state.aborted) {
      const chunk = chunks[next++];
      const startOffset = res.getWriteOffset();
      const [ok, done] = res.tryEnd(chunk, total);
      if (done) return true;
      if (!ok) {
        pending = { chunk, startOffset };
        return false;
      }
    }
    return true;
  };
  res.onWritable((offset) => {
    if (!pending) return true;
    const [ok, done] = res.tryEnd(pending.chunk.subarray(offset - pending.startOffset), total);
    if (done) return true;
    if (!ok) return false;
    pending = null;
    return pump();
  });
  res.cork(() => {
    res.writeStatus('200 OK').writeHeader('etag', ETAG).writeHeader('content-type', 'application/octet-stream');
    if (total === 0) res.end();
    else pump();
  });
}

const app = uWS.App().any('/*', (res, req) => {
  const state = { aborted: false };
  res.onAborted(() => { state.aborted = true; });
  const method = req.getCaseSensitiveMethod ? req.getCaseSensitiveMethod() : req.getMethod().toUpperCase();
  const query = req.getQuery() ?? '';
  const path = req.getUrl();
  const slash = path.indexOf('/', 1);
  const key = slash < 0 ? '' : decodeURIComponent(path.slice(slash + 1));

  if (method === 'PUT' || method === 'POST') {
    if (key && /(^|&)(uploads|uploadId)(=|&|$)/.test(query)) {
      res.onData(() => {});
      return s3Error(res, '501 Not Implemented', 'NotImplemented');
    }
    res.onData((_chunk, isLast) => {
      if (isLast && !state.aborted) res.cork(() => res.writeStatus('200 OK').writeHeader('etag', ETAG).end());
    });
    return;
  }
  if (method === 'DELETE') return res.cork(() => res.writeStatus('204 No Content').end());
  if (!key) {
    if (method === 'HEAD') return res.cork(() => res.writeStatus('200 OK').writeHeader('content-length', '0').endWithoutBody());
    return res.cork(() => res.writeStatus('200 OK').writeHeader('content-type', 'application/xml').end(
      '<?xml version="1.0" encoding="UTF-8"?>\n<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">' +
      '<KeyCount>0</KeyCount><IsTruncated>false</IsTruncated></ListBucketResult>'));
  }
  const size = sizeFromKey(key);
  if (size === undefined) return s3Error(res, '404 Not Found', 'NoSuchKey');
  // endWithoutBody(size) would close the keep-alive connection (uWS 20.30); an explicit header keeps it open.
  if (method === 'HEAD') {
    return res.cork(() => res.writeStatus('200 OK').writeHeader('etag', ETAG).writeHeader('content-length', String(size)).endWithoutBody());
  }
  if (method === 'GET') return streamBody(res, content.body(key, size), size, state);
  return s3Error(res, '405 Method Not Allowed', 'MethodNotAllowed');
});

app.listen(values.host, Number(values.port), (socket) => {
  if (!socket) {
    console.error(`trivial server: cannot listen on ${values.host}:${values.port}`);
    process.exit(1);
  }
  console.log(`trivial listening on http://${values.host}:${uWS.us_socket_local_port(socket)}`);
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(0));
