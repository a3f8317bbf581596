// The Objects pages: buckets, one level of a bucket (prefixes as folders) with uploads, and one
// object's details with its preview, versions and a share link.

import { Fragment } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { objectPath, type S3 } from './s3.js';
import { pickedFromDrop, pickedFromInput, type PickedFile } from './drop.js';
import { Preview } from './preview.js';
import { upload } from './upload.js';
import { formatBytes, formatDate, href, message, Notice, useActions, useLoad, type Note } from './ui.js';

export function BucketsPage({ s3 }: { s3: S3 }) {
  const buckets = useLoad(() => s3.listBuckets(), []);
  const [name, setName] = useState('');
  const { note, act } = useActions(() => buckets.reload());
  return (
    <>
      <h1>Buckets</h1>
      <form
        class="row"
        onSubmit={(e) => {
          e.preventDefault();
          void act(() => s3.createBucket(name.trim()), `Bucket ${name.trim()} created.`).then(() => setName(''));
        }}
      >
        <label>
          New bucket name
          <input value={name} onInput={(e) => setName(e.currentTarget.value)} required pattern="[a-z0-9][a-z0-9.\-]{1,61}[a-z0-9]" />
        </label>
        <button type="submit">Create bucket</button>
      </form>
      {note && <Notice error={note.error}>{note.text}</Notice>}
      {buckets.error && <Notice error>{buckets.error}</Notice>}
      {buckets.value && (
        <table>
          <caption>{buckets.value.length} bucket(s)</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Created</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {buckets.value.map((b) => (
              <tr key={b.name}>
                <td>
                  <a href={href({ page: 'objects', bucket: b.name, prefix: '' })}>{b.name}</a>
                </td>
                <td>{formatDate(b.created)}</td>
                <td class="actions">
                  <a href={href({ page: 'settings', bucket: b.name })} aria-label={`Settings of ${b.name}`}>
                    Settings
                  </a>
                  <button
                    type="button"
                    aria-label={`Delete bucket ${b.name}`}
                    onClick={() => confirm(`Delete the bucket ${b.name}? It must be empty.`) && act(() => s3.deleteBucket(b.name), `Bucket ${b.name} deleted.`)}
                  >
                    Delete
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}

interface Transfer {
  name: string;
  size: number;
  sent: number;
  state: 'uploading' | 'done' | 'failed' | 'cancelled';
  error?: string;
  cancel(): void;
}

/** Bucket / folder / folder links, each level a link. */
function Breadcrumbs({ bucket, prefix }: { bucket: string; prefix: string }) {
  const parts = prefix.split('/').filter(Boolean);
  return (
    <nav aria-label="Folder path" class="crumbs">
      <a href={href({ page: 'buckets' })}>Buckets</a>
      {' / '}
      <a href={href({ page: 'objects', bucket, prefix: '' })}>{bucket}</a>
      {parts.map((p, i) => (
        <span key={i}>
          {' / '}
          <a href={href({ page: 'objects', bucket, prefix: parts.slice(0, i + 1).join('/') + '/' })}>{p}</a>
        </span>
      ))}
    </nav>
  );
}

export function ObjectsPage({ s3, bucket, prefix }: { s3: S3; bucket: string; prefix: string }) {
  // search by prefix: ListObjectsV2's own prefix, under the folder shown
  const [search, setSearch] = useState('');
  const listing = useLoad(() => s3.list(bucket, prefix + search), [bucket, prefix, search]);
  const [transfers, setTransfers] = useState<Transfer[]>([]);
  const [folder, setFolder] = useState('');
  const update = (name: string, change: Partial<Transfer>) => setTransfers((all) => all.map((t) => (t.name === name ? { ...t, ...change } : t)));

  const startUploads = (picked: PickedFile[]) => {
    const added: Transfer[] = picked.map(({ file, path: name }) => {
      const handle = upload(s3, bucket, prefix + name, file, (sent) => update(name, { sent }));
      handle.done.then(
        () => {
          update(name, { sent: file.size, state: 'done' });
          listing.reload();
        },
        (e) => update(name, e instanceof DOMException && e.name === 'AbortError' ? { state: 'cancelled' } : { state: 'failed', error: message(e) }),
      );
      return { name, size: file.size, sent: 0, state: 'uploading', cancel: handle.cancel };
    });
    setTransfers((all) => [...all.filter((t) => !added.some((a) => a.name === t.name)), ...added]);
  };

  const { note, setNote, act } = useActions(() => listing.reload());
  const [selected, setSelected] = useState<string[]>([]);
  useEffect(() => setSelected([]), [bucket, prefix, search]);
  const toggle = (key: string, on: boolean) => setSelected((all) => (on ? [...all, key] : all.filter((k) => k !== key)));
  const deleteSelected = () =>
    confirm(`Delete ${selected.length} object(s)?`) &&
    act(async () => {
      await s3.deleteObjects(bucket, selected);
      setSelected([]);
    }, `${selected.length} object(s) deleted.`);

  const download = async (key: string) => {
    const name = key.slice(key.lastIndexOf('/') + 1);
    const url = await s3.presign('GET', objectPath(bucket, key), 300, { 'response-content-disposition': `attachment; filename*=UTF-8''${encodeURIComponent(name)}` });
    const a = document.createElement('a');
    a.href = url;
    a.download = name;
    a.click();
  };

  const pickFrom = (input: HTMLInputElement) => {
    if (input.files?.length) startUploads(pickedFromInput(input.files));
    input.value = '';
  };

  return (
    <div
      class="drop"
      onDragOver={(e) => e.preventDefault()}
      onDrop={(e) => {
        e.preventDefault();
        if (e.dataTransfer) pickedFromDrop(e.dataTransfer).then(startUploads, (err) => setNote({ error: true, text: message(err) }));
      }}
    >
      <h1>{prefix ? `${bucket}/${prefix}` : bucket}</h1>
      <Breadcrumbs bucket={bucket} prefix={prefix} />
      <p class="hint">Drop files or folders anywhere on this page to upload them here.</p>
      <div class="toolbar">
        <label class="file">
          Upload files
          <input type="file" multiple onChange={(e) => pickFrom(e.currentTarget)} />
        </label>
        <label class="file">
          Upload a folder
          <input type="file" multiple {...{ webkitdirectory: true }} onChange={(e) => pickFrom(e.currentTarget)} />
        </label>
        <form
          class="row"
          onSubmit={(e) => {
            e.preventDefault();
            const name = folder.trim().replace(/\/+$/, '');
            void act(() => s3.request('PUT', objectPath(bucket, `${prefix}${name}/`)).then(() => undefined), `Folder ${name} created.`).then(() => setFolder(''));
          }}
        >
          <label>
            New folder name
            <input value={folder} onInput={(e) => setFolder(e.currentTarget.value)} required />
          </label>
          <button type="submit">Create folder</button>
        </form>
        <label>
          Search by prefix
          <input type="search" value={search} onInput={(e) => setSearch(e.currentTarget.value)} />
        </label>
        <a href={href({ page: 'settings', bucket })}>Bucket settings</a>
      </div>
      {transfers.length > 0 && (
        <section aria-label="Uploads">
          <h2>Uploads</h2>
          <ul class="transfers">
            {transfers.map((t) => (
              <li key={t.name}>
                <span>{t.name}</span>
                <progress max={t.size || 1} value={t.size ? t.sent : t.state === 'done' ? 1 : 0} aria-label={`Upload of ${t.name}`} />
                <span role="status">
                  {t.state === 'uploading' ? `${formatBytes(t.sent)} of ${formatBytes(t.size)}` : t.state === 'failed' ? `failed: ${t.error}` : t.state}
                </span>
                {t.state === 'uploading' && (
                  <button type="button" aria-label={`Cancel upload of ${t.name}`} onClick={t.cancel}>
                    Cancel
                  </button>
                )}
              </li>
            ))}
          </ul>
        </section>
      )}
      {note && <Notice error={note.error}>{note.text}</Notice>}
      {listing.error && <Notice error>{listing.error}</Notice>}
      {selected.length > 0 && (
        <button type="button" onClick={() => void deleteSelected()}>
          Delete {selected.length} selected
        </button>
      )}
      {listing.value && (
        <table>
          <caption>
            {listing.value.folders.length} folder(s), {listing.value.objects.length} object(s)
          </caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Size</th>
              <th scope="col">Modified</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {listing.value.folders.map((f) => (
              <tr key={f}>
                <td>
                  <a href={href({ page: 'objects', bucket, prefix: f })} aria-label={`Open folder ${f.slice(prefix.length)}`}>
                    {f.slice(prefix.length)}
                  </a>
                </td>
                <td />
                <td />
                <td />
              </tr>
            ))}
            {listing.value.objects
              .filter((o) => o.key !== prefix)
              .map((o) => {
                const name = o.key.slice(prefix.length);
                return (
                  <tr key={o.key}>
                    <td>
                      <input type="checkbox" aria-label={`Select ${name}`} checked={selected.includes(o.key)} onChange={(e) => toggle(o.key, e.currentTarget.checked)} />{' '}
                      <a href={href({ page: 'object', bucket, key: o.key })} aria-label={`Details of ${name}`}>
                        {name}
                      </a>
                    </td>
                    <td>{formatBytes(o.size)}</td>
                    <td>{formatDate(o.modified)}</td>
                    <td class="actions">
                      <button type="button" aria-label={`Download ${name}`} onClick={() => void download(o.key).catch((e) => setNote({ error: true, text: message(e) }))}>
                        Download
                      </button>
                      <button type="button" aria-label={`Delete ${name}`} onClick={() => confirm(`Delete ${o.key}?`) && act(() => s3.deleteObject(bucket, o.key), `${name} deleted.`)}>
                        Delete
                      </button>
                    </td>
                  </tr>
                );
              })}
          </tbody>
        </table>
      )}
    </div>
  );
}

export function ObjectPage({ s3, bucket, objectKey: key }: { s3: S3; bucket: string; objectKey: string }) {
  const details = useLoad(async () => {
    const [headers, tags, versions] = await Promise.all([s3.head(bucket, key), s3.tags(bucket, key).catch(() => []), s3.versions(bucket, key).catch(() => [])]);
    return { headers, tags, versions };
  }, [bucket, key]);
  const [expiry, setExpiry] = useState('3600');
  const [link, setLink] = useState('');
  const [note, setNote] = useState<Note>();
  const versionsNote = useActions(() => details.reload());
  const h = details.value?.headers;
  const meta = h ? [...h.entries()].filter(([n]) => n.startsWith('x-amz-meta-')) : [];
  const folder = key.slice(0, key.lastIndexOf('/') + 1);
  return (
    <>
      <h1>{key}</h1>
      <Breadcrumbs bucket={bucket} prefix={folder} />
      {details.error && <Notice error>{details.error}</Notice>}
      {h && details.value && (
        <>
          <section aria-labelledby="props">
            <h2 id="props">Properties</h2>
            <dl>
              <dt>Size</dt>
              <dd>{formatBytes(Number(h.get('content-length') ?? 0))}</dd>
              <dt>Type</dt>
              <dd>{h.get('content-type')}</dd>
              <dt>ETag</dt>
              <dd>{h.get('etag')}</dd>
              <dt>Last modified</dt>
              <dd>{h.get('last-modified')}</dd>
              <dt>Storage class</dt>
              <dd>{h.get('x-amz-storage-class') ?? 'STANDARD'}</dd>
              {h.get('x-amz-version-id') && (
                <>
                  <dt>Version ID</dt>
                  <dd>{h.get('x-amz-version-id')}</dd>
                </>
              )}
              {meta.map(([n, v]) => (
                <Fragment key={n}>
                  <dt>{n.slice('x-amz-meta-'.length)}</dt>
                  <dd>{v}</dd>
                </Fragment>
              ))}
            </dl>
          </section>
          <Preview s3={s3} bucket={bucket} objectKey={key} contentType={h.get('content-type') ?? ''} size={Number(h.get('content-length') ?? 0)} />
          <section aria-labelledby="tags">
            <h2 id="tags">Tags</h2>
            {details.value.tags.length === 0 ? (
              <p>No tags.</p>
            ) : (
              <dl>
                {details.value.tags.map(([k, v]) => (
                  <Fragment key={k}>
                    <dt>{k}</dt>
                    <dd>{v}</dd>
                  </Fragment>
                ))}
              </dl>
            )}
          </section>
          <section aria-labelledby="versions">
            <h2 id="versions">Versions</h2>
            <table>
              <caption>{details.value.versions.length} version(s)</caption>
              <thead>
                <tr>
                  <th scope="col">Version ID</th>
                  <th scope="col">Size</th>
                  <th scope="col">Modified</th>
                  <th scope="col">Latest</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {details.value.versions.map((v) => (
                  <tr key={v.versionId}>
                    <td>
                      <code>{v.versionId}</code>
                      {v.deleteMarker ? ' (delete marker)' : ''}
                    </td>
                    <td>{formatBytes(v.size)}</td>
                    <td>{formatDate(v.modified)}</td>
                    <td>{v.latest ? 'yes' : ''}</td>
                    <td class="actions">
                      <button
                        type="button"
                        aria-label={`Delete version ${v.versionId}`}
                        onClick={() => confirm(`Delete version ${v.versionId} of ${key} for good?`) && versionsNote.act(() => s3.deleteObject(bucket, key, v.versionId), `Version ${v.versionId} deleted.`)}
                      >
                        Delete
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
            {versionsNote.note && <Notice error={versionsNote.note.error}>{versionsNote.note.text}</Notice>}
          </section>
          <section aria-labelledby="share">
            <h2 id="share">Share</h2>
            <form
              class="row"
              onSubmit={(e) => {
                e.preventDefault();
                s3.presign('GET', objectPath(bucket, key), Number(expiry)).then(
                  (url) => {
                    setLink(url);
                    setNote({ text: `Anyone with the link can download ${key} until ${new Date(Date.now() + Number(expiry) * 1000).toLocaleString()}.` });
                  },
                  (e) => setNote({ error: true, text: message(e) }),
                );
              }}
            >
              <label>
                Link expires in (seconds)
                {/* SigV4 presigned URLs live at most 7 days (AWS: X-Amz-Expires) */}
                <input type="number" min="1" max="604800" value={expiry} onInput={(e) => setExpiry(e.currentTarget.value)} required />
              </label>
              <button type="submit">Create share link</button>
            </form>
            {link && (
              <label class="wide">
                Share link
                <input readOnly value={link} onFocus={(e) => e.currentTarget.select()} />
              </label>
            )}
            {note && <Notice error={note.error}>{note.text}</Notice>}
          </section>
        </>
      )}
    </>
  );
}
