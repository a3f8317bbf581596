// S3's answer to a CompleteMultipartUpload that takes long (AWS CompleteMultipartUpload doc:
// "Amazon S3 … sends white space characters to keep the connection from timing out … the 200 OK
// response can contain either a success or an error"): when the work has not settled after
// `after` ms, a 200 with the XML declaration is started and a space is sent every `every` ms; the
// result, or the error, follows in the same body. Quick work answers normally.

import type { ResponseHeaders } from '../http/exchange.js';
import type { S3Context } from './context.js';
import { S3Error } from './errors/errors.js';
import { commonHeaders, sendXml } from './respond.js';
import { s3ErrorOfStore } from './store-errors.js';
import { StoreError } from '../store/errors.js';
import { renderError, XML_DECL } from './xml.js';

export interface XmlAnswer {
  headers: ResponseHeaders;
  xml: string;
}

export interface KeepAliveTiming {
  after: number;
  every: number;
}

export const COMPLETE_KEEPALIVE: KeepAliveTiming = { after: 5_000, every: 5_000 };

function withoutDeclaration(xml: string): string {
  return xml.startsWith(XML_DECL) ? xml.slice(XML_DECL.length) : xml;
}

export async function answerWithKeepAlive(
  ctx: S3Context,
  work: () => Promise<XmlAnswer>,
  timing: KeepAliveTiming = COMPLETE_KEEPALIVE,
): Promise<void> {
  const running = work();
  running.catch(() => undefined); // awaited below
  let stream: ReturnType<S3Context['ex']['beginChunked']> | undefined;
  let ticker: NodeJS.Timeout | undefined;
  const starter = setTimeout(() => {
    stream = ctx.ex.beginChunked(200, [
      ...commonHeaders(ctx, ctx.services.config.serverHeader),
      ['Content-Type', 'application/xml'],
    ]);
    stream.write(XML_DECL);
    ticker = setInterval(() => stream!.write(' '), timing.every);
  }, timing.after);
  let answer: XmlAnswer;
  try {
    answer = await running;
  } catch (e) {
    if (!stream) throw e;
    // the status line is gone: the error travels in the body (its headers cannot)
    const err = e instanceof S3Error ? e : e instanceof StoreError ? s3ErrorOfStore(e, ctx.resource) : new S3Error('InternalError');
    stream.end(withoutDeclaration(renderError(err, ctx.requestId, ctx.hostId)));
    return;
  } finally {
    clearTimeout(starter);
    clearInterval(ticker);
  }
  if (stream) stream.end(withoutDeclaration(answer.xml));
  else sendXml(ctx, answer.xml, answer.headers);
}
