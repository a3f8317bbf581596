// Uploads from the browser with progress: XMLHttpRequest, since fetch reports no upload progress.
// A file larger than MULTIPART_THRESHOLD goes up in parts (CreateMultipartUpload, UploadPart,
// CompleteMultipartUpload), one part at a time; a cancelled or failed one is aborted on the server.

import { objectPath, S3, S3Failure } from './s3.js';

export const MULTIPART_THRESHOLD = 16 * 1024 * 1024;
/** parts of at least 5 MiB but the last (s3.md, UploadPart) */
export const PART_SIZE = 16 * 1024 * 1024;

export interface UploadHandle {
  done: Promise<void>;
  cancel(): void;
}

/** Sends `body` with `onProgress(bytesSent)`; resolves to the response's ETag. */
function xhrPut(url: string, headers: Headers, body: Blob, onProgress: (sent: number) => void, signal: AbortSignal): Promise<string> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('PUT', url);
    headers.forEach((value, name) => xhr.setRequestHeader(name, value));
    xhr.upload.onprogress = (e) => onProgress(e.loaded);
    xhr.onload = () => {
      if (xhr.status >= 200 && xhr.status < 300) resolve(xhr.getResponseHeader('etag') ?? '');
      else {
        const doc = new DOMParser().parseFromString(xhr.responseText || '<x/>', 'application/xml');
        const code = doc.getElementsByTagName('Code')[0]?.textContent ?? `HTTP ${xhr.status}`;
        reject(new S3Failure(xhr.status, code, doc.getElementsByTagName('Message')[0]?.textContent ?? ''));
      }
    };
    xhr.onerror = () => reject(new Error('network error'));
    xhr.onabort = () => reject(new DOMException('cancelled', 'AbortError'));
    signal.addEventListener('abort', () => xhr.abort());
    xhr.send(body);
  });
}

export function upload(s3: S3, bucket: string, key: string, file: File, onProgress: (sent: number) => void): UploadHandle {
  const controller = new AbortController();
  const type = file.type || 'application/octet-stream';
  const path = objectPath(bucket, key);
  const done = (async () => {
    if (file.size <= MULTIPART_THRESHOLD) {
      const { url, headers } = await s3.signForXhr('PUT', path, {}, { 'content-type': type });
      await xhrPut(url, headers, file, onProgress, controller.signal);
      return;
    }
    const created = await s3.request('POST', path, { uploads: '' }, { headers: { 'content-type': type } });
    const uploadId = s3.childText(s3.xml(await created.text()).documentElement, 'UploadId');
    try {
      const etags: string[] = [];
      for (let offset = 0, part = 1; offset < file.size; offset += PART_SIZE, part++) {
        const { url, headers } = await s3.signForXhr('PUT', path, { partNumber: String(part), uploadId }, {});
        etags.push(await xhrPut(url, headers, file.slice(offset, offset + PART_SIZE), (sent) => onProgress(offset + sent), controller.signal));
      }
      const body =
        '<CompleteMultipartUpload xmlns="http://s3.amazonaws.com/doc/2006-03-01/">' +
        etags.map((etag, i) => `<Part><PartNumber>${i + 1}</PartNumber><ETag>${etag.replace(/&/g, '&amp;').replace(/</g, '&lt;')}</ETag></Part>`).join('') +
        '</CompleteMultipartUpload>';
      const res = await s3.request('POST', path, { uploadId }, { body });
      // CompleteMultipartUpload may fail after its 200 (s3.md; AWS API reference): read the body
      const doc = s3.xml(await res.text());
      if (doc.documentElement.tagName === 'Error') throw new S3Failure(200, s3.childText(doc.documentElement, 'Code'), s3.childText(doc.documentElement, 'Message'));
    } catch (e) {
      await s3.request('DELETE', path, { uploadId }).catch(() => undefined);
      throw e;
    }
  })();
  return { done, cancel: () => controller.abort() };
}
