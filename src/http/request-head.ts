// What a handler may know about a request: copied out of the HTTP engine synchronously (uWS
// request objects die when the callback returns, style.md §5).

export interface RequestHead {
  /** upper-case method as sent */
  method: string;
  /** raw request-target path, not decoded (s3.md §1.2) */
  rawPath: string;
  /** raw query string without the leading '?', '' when none */
  rawQuery: string;
  /** every header in arrival order, names lower-cased, values as received */
  headerList: ReadonlyArray<readonly [string, string]>;
  /** lower-cased name → value; repeated headers joined with ',' */
  headers: Readonly<Record<string, string>>;
  /** peer IP address as text (IPv6 or IPv4-mapped), when the transport knows it; read before the response starts */
  remoteAddress?: () => string;
  /** arrived over TLS on this listener (aws:SecureTransport; SSE-C requires it) */
  secure?: boolean;
}

/** Builds `headers` from `headerList` (repeated headers joined with ','). */
export function joinHeaders(list: ReadonlyArray<readonly [string, string]>): Record<string, string> {
  const out: Record<string, string> = Object.create(null);
  for (const [name, value] of list) {
    const prev = out[name];
    out[name] = prev === undefined ? value : `${prev},${value}`;
  }
  return out;
}
