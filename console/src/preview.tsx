// An object's preview on its page: an image read with a signed GET into a blob: URL (the only
// images the Content-Security-Policy allows), a text's first bytes (one Range request), or a video
// or audio the browser streams from a presigned URL, asking for ranges itself as it plays and seeks.

import { useEffect, useState } from 'preact/hooks';
import { objectPath, type S3 } from './s3.js';
import { formatBytes, message, Notice } from './ui.js';

/** Larger images are not read whole for a preview: download them instead. */
export const IMAGE_PREVIEW_MAX = 32 * 1024 * 1024;
export const TEXT_PREVIEW_BYTES = 64 * 1024;
/** How long a video's or audio's presigned URL lives: the player asks for ranges for that long. */
const MEDIA_URL_SECONDS = 3600;

export type PreviewKind = 'image' | 'text' | 'video' | 'audio';

/** What a Content-Type can be previewed as, if anything. */
export function previewKind(contentType: string): PreviewKind | undefined {
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  const major = type.split('/')[0];
  if (major === 'image' || major === 'video' || major === 'audio') return major;
  if (major === 'text' || /^application\/(json|xml|yaml|x-yaml|x-ndjson|javascript)$/.test(type) || /\+(json|xml)$/.test(type)) return 'text';
  return undefined;
}

type Shown = { kind: 'image' | 'video' | 'audio'; url: string } | { kind: 'text'; text: string } | { kind: 'none'; why: string };

async function load(s3: S3, path: string, kind: PreviewKind, size: number): Promise<Shown> {
  if (size === 0) return { kind: 'none', why: 'The object is empty.' };
  if (kind === 'image') {
    if (size > IMAGE_PREVIEW_MAX) return { kind: 'none', why: `Too large to preview (${formatBytes(size)}): download it instead.` };
    return { kind, url: URL.createObjectURL(await (await s3.request('GET', path)).blob()) };
  }
  if (kind === 'text') {
    const res = await s3.request('GET', path, {}, { headers: { range: `bytes=0-${TEXT_PREVIEW_BYTES - 1}` } });
    return { kind, text: new TextDecoder().decode(await res.arrayBuffer()) };
  }
  return { kind, url: await s3.presign('GET', path, MEDIA_URL_SECONDS) };
}

export function Preview({ s3, bucket, objectKey, contentType, size }: { s3: S3; bucket: string; objectKey: string; contentType: string; size: number }) {
  const kind = previewKind(contentType);
  const [shown, setShown] = useState<Shown>();
  const [error, setError] = useState<string>();
  useEffect(() => {
    if (!kind) return;
    let live = true;
    let blobUrl: string | undefined;
    load(s3, objectPath(bucket, objectKey), kind, size).then(
      (s) => {
        if (s.kind === 'image') blobUrl = s.url;
        if (live) setShown(s);
        else if (blobUrl) URL.revokeObjectURL(blobUrl);
      },
      (e) => live && setError(message(e)),
    );
    return () => {
      live = false;
      if (blobUrl) URL.revokeObjectURL(blobUrl);
    };
  }, [s3, bucket, objectKey, kind, size]);
  if (!kind) return null;
  const label = `Preview of ${objectKey.slice(objectKey.lastIndexOf('/') + 1)}`;
  return (
    <section aria-labelledby="preview">
      <h2 id="preview">Preview</h2>
      {error && <Notice error>{error}</Notice>}
      {shown?.kind === 'none' && <p>{shown.why}</p>}
      {shown?.kind === 'image' && <img class="preview" src={shown.url} alt={label} />}
      {shown?.kind === 'video' && <video class="preview" src={shown.url} controls preload="metadata" aria-label={label} />}
      {shown?.kind === 'audio' && <audio src={shown.url} controls preload="metadata" aria-label={label} />}
      {shown?.kind === 'text' && (
        <>
          {size > TEXT_PREVIEW_BYTES && <p>The first {formatBytes(TEXT_PREVIEW_BYTES)} of {formatBytes(size)}:</p>}
          <pre aria-label={label}>{shown.text}</pre>
        </>
      )}
    </section>
  );
}
