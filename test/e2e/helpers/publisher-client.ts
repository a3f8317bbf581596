// HTTP calls and independent expectations for the publisher end-to-end tests: the Walrus size and
// cost formulas (walrus.md §9.1, §9.2) written out here, not imported from the code under test.

export interface JsonAnswer {
  status: number;
  text: string;
  json: any;
}

export async function putBlob(url: string, pathAndQuery: string, body: NonNullable<RequestInit['body']>, init: RequestInit = {}): Promise<JsonAnswer> {
  const response = await fetch(`${url}${pathAndQuery}`, { method: 'PUT', body, ...init });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, text, json };
}

export async function getJson(url: string, path: string): Promise<JsonAnswer> {
  const response = await fetch(`${url}${path}`);
  const text = await response.text();
  return { status: response.status, text, json: text ? JSON.parse(text) : undefined };
}

export async function getBytes(url: string, path: string, headers: Record<string, string> = {}): Promise<{ status: number; body: Buffer; headers: Headers }> {
  const response = await fetch(`${url}${path}`, { headers });
  return { status: response.status, body: Buffer.from(await response.arrayBuffer()), headers: response.headers };
}

/** walrus.md §2 and §9.1. */
export function walrusEncodedLength(size: number, n: number): number {
  const f = Math.floor((n - 1) / 3);
  const nPrimary = n - 2 * f;
  const nSecondary = n - f;
  let s = Math.ceil(Math.max(size, 1) / (nPrimary * nSecondary));
  if (s % 2 === 1) s += 1;
  return n * (64 * n + 32 + (nPrimary + nSecondary) * s);
}

/** walrus.md §9.2: storage fee for `epochs` plus the write fee, in 1 MiB units. */
export function walrusCost(encodedLength: number, epochs: number, storagePrice: bigint, writePrice: bigint): bigint {
  const units = BigInt(Math.ceil(encodedLength / 1_048_576));
  return units * storagePrice * BigInt(epochs) + units * writePrice;
}

/** The ledger's transaction count, to prove a refused request wrote nothing. */
export async function ledgerTransactions(url: string): Promise<number> {
  return (await getJson(url, '/v1/ledger/status')).json.transactions;
}
