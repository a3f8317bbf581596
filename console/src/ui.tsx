// Small pieces every page uses: the route in the URL's fragment, sizes, and status lines.

import { useEffect, useState } from 'preact/hooks';
import type { ComponentChildren } from 'preact';

export type Route =
  | { page: 'buckets' }
  | { page: 'objects'; bucket: string; prefix: string }
  | { page: 'object'; bucket: string; key: string }
  | { page: 'settings'; bucket: string }
  | { page: 'monitoring' }
  | { page: 'walrus' }
  | { page: 'identity' };

/** `#/objects?bucket=b&prefix=p`: the page, then its parameters. */
export function parseRoute(hash: string): Route {
  const [page = '', query = ''] = hash.replace(/^#\/?/, '').split('?');
  const q = new URLSearchParams(query);
  const bucket = q.get('bucket') ?? '';
  if (page === 'objects' && bucket) return { page, bucket, prefix: q.get('prefix') ?? '' };
  if (page === 'object' && bucket) return { page, bucket, key: q.get('key') ?? '' };
  if (page === 'settings' && bucket) return { page, bucket };
  if (page === 'monitoring' || page === 'walrus' || page === 'identity') return { page };
  return { page: 'buckets' };
}

export function href(route: Route): string {
  const { page, ...params } = route;
  const q = new URLSearchParams(params as Record<string, string>).toString();
  return `#/${page}${q ? `?${q}` : ''}`;
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const onChange = () => setRoute(parseRoute(location.hash));
    addEventListener('hashchange', onChange);
    return () => removeEventListener('hashchange', onChange);
  }, []);
  return route;
}

export function formatBytes(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0;
  while (n >= 1024 && i < units.length - 1) {
    n /= 1024;
    i++;
  }
  return `${i === 0 ? n : n.toFixed(1)} ${units[i]}`;
}

export function formatDate(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString();
}

export function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** An error (role=alert, read out at once) or a note (role=status). */
export function Notice({ error, children }: { error?: boolean; children: ComponentChildren }) {
  return error ? (
    <p role="alert" class="notice error">
      {children}
    </p>
  ) : (
    <p role="status" class="notice">
      {children}
    </p>
  );
}

/** Runs `load` whenever `deps` change; `reload` runs it again. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): { value?: T; error?: string; reload: () => void } {
  const [state, setState] = useState<{ value?: T; error?: string }>({});
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    load().then(
      (value) => live && setState({ value }),
      (e) => live && setState({ error: message(e) }),
    );
    return () => {
      live = false;
    };
  }, [...deps, tick]);
  return { ...state, reload: () => setTick((t) => t + 1) };
}

export type Note = { error?: boolean; text: string } | undefined;

/** `act(what, done)` runs an action, then says `done` (or its error) in `note` and calls `after` (a reload). */
export function useActions(after: () => void): { note: Note; setNote: (n: Note) => void; act: (what: () => Promise<unknown>, done: string) => Promise<void> } {
  const [note, setNote] = useState<Note>();
  const act = async (what: () => Promise<unknown>, done: string) => {
    try {
      await what();
      setNote({ text: done });
      after();
    } catch (e) {
      setNote({ error: true, text: message(e) });
    }
  };
  return { note, setNote, act };
}
