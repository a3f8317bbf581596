// Walrus: store a file through Tusk's publisher (PUT /<endpoint key>/v1/blobs, walrus.md §10) and
// read a blob back through its aggregator (GET /v1/blobs/<blob id>). The endpoint key is asked for
// here and kept in this page's memory only; the publisher answers CORS for any origin.

import { useState } from 'preact/hooks';
import { endpointUrl, type PageConfig } from './s3.js';
import { formatBytes, message, Notice } from './ui.js';

interface Stored {
  blobId: string;
  endEpoch?: number;
  cost?: number;
  size?: number;
  already: boolean;
}

interface StoreAnswer {
  newlyCreated?: { blobObject: { blobId: string; size: number; storage: { endEpoch: number } }; cost: number };
  alreadyCertified?: { blobId: string; endEpoch: number };
}

export function WalrusPage({ config }: { config: PageConfig }) {
  const [endpointKey, setEndpointKey] = useState('');
  const [file, setFile] = useState<File>();
  const [epochs, setEpochs] = useState('1');
  const [deletable, setDeletable] = useState(true);
  const [stored, setStored] = useState<Stored>();
  const [blobId, setBlobId] = useState('');
  const [read, setRead] = useState<{ size: number; text?: string; url: string }>();
  const [note, setNote] = useState<{ error?: boolean; text: string }>();
  if (!config.publisher) return (<><h1>Walrus</h1><p>The publisher is off (--publisher-listen off).</p></>);
  const base = endpointUrl(config.publisher);
  const store = async () => {
    const q = new URLSearchParams({ epochs, deletable: String(deletable) });
    const res = await fetch(`${base}/${encodeURIComponent(endpointKey)}/v1/blobs?${q}`, { method: 'PUT', body: file });
    if (!res.ok) throw new Error(`the publisher answered ${res.status}: ${await res.text()}`);
    const body = (await res.json()) as StoreAnswer;
    const result: Stored = body.newlyCreated
      ? { blobId: body.newlyCreated.blobObject.blobId, endEpoch: body.newlyCreated.blobObject.storage.endEpoch, cost: body.newlyCreated.cost, size: body.newlyCreated.blobObject.size, already: false }
      : { blobId: body.alreadyCertified!.blobId, endEpoch: body.alreadyCertified!.endEpoch, already: true };
    setStored(result);
    setBlobId(result.blobId);
    setNote({ text: `Stored ${file!.name} as blob ${result.blobId}.` });
  };
  const readBack = async () => {
    const res = await fetch(`${base}/v1/blobs/${encodeURIComponent(blobId.trim())}`);
    if (!res.ok) throw new Error(`the aggregator answered ${res.status}: ${await res.text()}`);
    const blob = await res.blob();
    const head = new Uint8Array(await blob.slice(0, 4096).arrayBuffer());
    // text when the first bytes decode as UTF-8 without control characters
    let text: string | undefined;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(head);
      if (/[\u0000-\u0008\u000e-\u001f]/.test(text)) text = undefined;
    } catch {
      text = undefined;
    }
    if (read) URL.revokeObjectURL(read.url);
    setRead({ size: blob.size, text, url: URL.createObjectURL(blob) });
  };
  const run = (what: () => Promise<void>) => void what().catch((e) => setNote({ error: true, text: message(e) }));
  return (
    <>
      <h1>Walrus</h1>
      <p>Publisher and aggregator at {base}.</p>
      <section aria-labelledby="store">
        <h2 id="store">Store a file</h2>
        <form
          class="row"
          onSubmit={(e) => {
            e.preventDefault();
            run(store);
          }}
        >
          <label>
            Endpoint key
            <input type="password" autocomplete="off" value={endpointKey} onInput={(e) => setEndpointKey(e.currentTarget.value)} required />
          </label>
          <label>
            File to store
            <input type="file" onChange={(e) => setFile(e.currentTarget.files?.[0])} required />
          </label>
          <label>
            Epochs
            <input type="number" min="1" value={epochs} onInput={(e) => setEpochs(e.currentTarget.value)} required />
          </label>
          <label class="check">
            <input type="checkbox" checked={deletable} onChange={(e) => setDeletable(e.currentTarget.checked)} />
            Deletable
          </label>
          <button type="submit">Store blob</button>
        </form>
        {stored && (
          <dl aria-label="Stored blob">
            <dt>Blob ID</dt>
            <dd>
              <code>{stored.blobId}</code>
            </dd>
            <dt>End epoch</dt>
            <dd>{stored.endEpoch}</dd>
            {!stored.already && (
              <>
                <dt>Cost</dt>
                <dd>{stored.cost}</dd>
                <dt>Size</dt>
                <dd>{formatBytes(stored.size ?? 0)}</dd>
              </>
            )}
            {stored.already && (
              <>
                <dt>Note</dt>
                <dd>already certified: nothing was paid</dd>
              </>
            )}
          </dl>
        )}
      </section>
      <section aria-labelledby="read">
        <h2 id="read">Read a blob</h2>
        <form
          class="row"
          onSubmit={(e) => {
            e.preventDefault();
            run(readBack);
          }}
        >
          <label>
            Blob ID to read
            <input value={blobId} onInput={(e) => setBlobId(e.currentTarget.value)} required />
          </label>
          <button type="submit">Read blob</button>
        </form>
        {read && (
          <>
            <p>
              Read {formatBytes(read.size)}. <a href={read.url} download={`${blobId}.bin`}>Save the blob</a>
            </p>
            {read.text !== undefined && <pre aria-label="Blob content">{read.text}</pre>}
          </>
        )}
      </section>
      {note && <Notice error={note.error}>{note.text}</Notice>}
    </>
  );
}
