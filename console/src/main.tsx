// The console's shell: loads /config.json (where the S3 endpoint is), signs in with an access key
// (kept in sessionStorage only: gone when the tab closes), and shows the page the URL names.

import { render } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { MonitoringPage } from './monitoring.js';
import { BucketsPage, ObjectPage, ObjectsPage } from './objects.js';
import { S3, type Credentials, type PageConfig } from './s3.js';
import { SettingsPage } from './settings.js';
import { WalrusPage } from './walrus.js';
import { IdentityPage } from './identity.js';
import { href, message, Notice, useRoute } from './ui.js';
import './style.css';

const SESSION_KEY = 'tusk-console-credentials';

function storedCredentials(): Credentials | undefined {
  try {
    const c = JSON.parse(sessionStorage.getItem(SESSION_KEY) ?? 'null') as Credentials | null;
    return c?.accessKeyId && c.secretAccessKey ? c : undefined;
  } catch {
    return undefined;
  }
}

function SignIn({ config, onSignIn }: { config: PageConfig; onSignIn: (c: Credentials) => void }) {
  const [accessKeyId, setId] = useState('');
  const [secretAccessKey, setSecret] = useState('');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  return (
    <main id="main" class="signin">
      <h1>Sign in to Tusk</h1>
      <p>Your keys stay in this browser tab: every request is signed here and sent to the S3 endpoint.</p>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          const c = { accessKeyId: accessKeyId.trim(), secretAccessKey };
          setBusy(true);
          // ListBuckets proves the keys: any valid key may call it
          new S3(config, c).listBuckets().then(
            () => onSignIn(c),
            (err) => {
              setError(`Sign-in failed: ${message(err)}`);
              setBusy(false);
            },
          );
        }}
      >
        <label>
          Access key ID
          <input autocomplete="username" value={accessKeyId} onInput={(e) => setId(e.currentTarget.value)} required />
        </label>
        <label>
          Secret access key
          <input type="password" autocomplete="current-password" value={secretAccessKey} onInput={(e) => setSecret(e.currentTarget.value)} required />
        </label>
        <button type="submit" disabled={busy}>
          Sign in
        </button>
      </form>
      {error && <Notice error>{error}</Notice>}
    </main>
  );
}

function Shell({ s3, onSignOut }: { s3: S3; onSignOut: () => void }) {
  const route = useRoute();
  // the admin API answers the root key only: any other sees no Identity page
  const [admin, setAdmin] = useState(false);
  useEffect(() => {
    s3.admin('GET', 'info').then(
      () => setAdmin(true),
      () => setAdmin(false),
    );
  }, [s3]);
  useEffect(() => {
    // focus the new page's heading, so keyboard and screen-reader users land on it
    document.querySelector<HTMLElement>('main h1')?.focus();
  }, [route]);
  const current = (page: string) => (route.page === page || (page === 'buckets' && !['monitoring', 'walrus', 'identity'].includes(route.page)) ? 'page' : undefined);
  return (
    <>
      <a class="skip" href="#main" onClick={(e) => (e.preventDefault(), document.getElementById('main')?.focus())}>
        Skip to content
      </a>
      <header>
        <span class="brand">Tusk</span>
        <nav aria-label="Console">
          <a href={href({ page: 'buckets' })} aria-current={current('buckets')}>
            Objects
          </a>
          <a href={href({ page: 'monitoring' })} aria-current={current('monitoring')}>
            Monitoring
          </a>
          <a href={href({ page: 'walrus' })} aria-current={current('walrus')}>
            Walrus
          </a>
          {admin && (
            <a href={href({ page: 'identity' })} aria-current={current('identity')}>
              Identity
            </a>
          )}
        </nav>
        <span class="who">{s3.credentials.accessKeyId}</span>
        <button type="button" onClick={onSignOut}>
          Sign out
        </button>
      </header>
      <main id="main" tabIndex={-1}>
        {route.page === 'buckets' && <BucketsPage s3={s3} />}
        {route.page === 'objects' && <ObjectsPage s3={s3} bucket={route.bucket} prefix={route.prefix} />}
        {route.page === 'object' && <ObjectPage s3={s3} bucket={route.bucket} objectKey={route.key} />}
        {route.page === 'settings' && <SettingsPage s3={s3} bucket={route.bucket} />}
        {route.page === 'monitoring' && <MonitoringPage s3={s3} />}
        {route.page === 'walrus' && <WalrusPage config={s3.config} />}
        {route.page === 'identity' && (admin ? <IdentityPage s3={s3} /> : <p>Identity needs the root key.</p>)}
      </main>
    </>
  );
}

function App() {
  const [config, setConfig] = useState<PageConfig>();
  const [error, setError] = useState<string>();
  const [credentials, setCredentials] = useState(storedCredentials);
  useEffect(() => {
    fetch('/config.json', { cache: 'no-store' })
      .then((r) => (r.ok ? (r.json() as Promise<PageConfig>) : Promise.reject(new Error(`HTTP ${r.status}`))))
      .then(setConfig, (e) => setError(`Cannot load the console's settings: ${message(e)}`));
  }, []);
  const s3 = useMemo(() => (config && credentials ? new S3(config, credentials) : undefined), [config, credentials]);
  if (error) return <Notice error>{error}</Notice>;
  if (!config) return <p role="status">Loading…</p>;
  if (!s3) {
    return (
      <SignIn
        config={config}
        onSignIn={(c) => {
          sessionStorage.setItem(SESSION_KEY, JSON.stringify(c));
          setCredentials(c);
        }}
      />
    );
  }
  return (
    <Shell
      s3={s3}
      onSignOut={() => {
        sessionStorage.removeItem(SESSION_KEY);
        setCredentials(undefined);
        location.hash = '';
      }}
    />
  );
}

render(<App />, document.getElementById('app')!);
