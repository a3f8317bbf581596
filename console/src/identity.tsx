// Identity (for the root key, the only one the admin API accepts): accounts and their keys (create,
// rotate, delete, disable), a new or rotated key's secret shown once. Other keys never see this
// page: the shell asks the API first.

import { useState } from 'preact/hooks';
import type { S3 } from './s3.js';
import { Notice, useActions, useLoad } from './ui.js';

interface AccountSummary {
  displayName: string;
  disabled: boolean;
  accessKeyIds: string[];
}

interface NewKey {
  owner: string;
  accessKeyId: string;
  secretAccessKey: string;
}

export function IdentityPage({ s3 }: { s3: S3 }) {
  const accounts = useLoad(() => s3.admin<{ accounts: AccountSummary[] }>('GET', 'accounts').then((r) => r.accounts), []);
  const [name, setName] = useState('');
  const [fresh, setFresh] = useState<NewKey>();
  const { note, act } = useActions(() => accounts.reload());
  const createAccount = () =>
    act(async () => {
      const r = await s3.admin<{ accessKeyId: string; secretAccessKey: string }>('POST', 'accounts', { name });
      setFresh({ owner: name, ...r });
      setName('');
    }, `Account ${name} created.`);
  const createKey = (owner: string) =>
    act(async () => {
      const r = await s3.admin<{ accessKeyId: string; secretAccessKey: string }>('POST', `accounts/${encodeURIComponent(owner)}/keys`);
      setFresh({ owner, ...r });
    }, `New key for ${owner}.`);
  // a new key of the same account replaces it: the old one stops working at once
  const rotateKey = (owner: string, id: string) =>
    act(async () => {
      const r = await s3.admin<{ accessKeyId: string; secretAccessKey: string }>('POST', `keys/${encodeURIComponent(id)}/rotate`);
      setFresh({ owner, ...r });
    }, `Key ${id} rotated: its new key is below.`);
  const remove = (what: string, path: string) => confirm(`Delete ${what}?`) && act(() => s3.admin('DELETE', path), `${what} deleted.`);
  return (
    <>
      <h1>Identity</h1>
      <form
        class="row"
        onSubmit={(e) => {
          e.preventDefault();
          void createAccount();
        }}
      >
        <label>
          New account name
          <input value={name} onInput={(e) => setName(e.currentTarget.value)} required />
        </label>
        <button type="submit">Create account</button>
      </form>
      {fresh && (
        <section aria-labelledby="secret" class="secret">
          <h2 id="secret">New key of {fresh.owner}</h2>
          <p>The secret is shown this once: copy it now.</p>
          <dl>
            <dt>Access key ID</dt>
            <dd>
              <code aria-label="New access key ID">{fresh.accessKeyId}</code>
            </dd>
            <dt>Secret access key</dt>
            <dd>
              <code aria-label="New secret access key">{fresh.secretAccessKey}</code>
            </dd>
          </dl>
          <button type="button" onClick={() => setFresh(undefined)}>
            I have copied it
          </button>
        </section>
      )}
      {note && <Notice error={note.error}>{note.text}</Notice>}
      {accounts.error && <Notice error>{accounts.error}</Notice>}
      {accounts.value && (
        <table>
          <caption>{accounts.value.length} account(s)</caption>
          <thead>
            <tr>
              <th scope="col">Account</th>
              <th scope="col">Keys</th>
              <th scope="col">State</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {accounts.value.map((a) => (
              <tr key={a.displayName}>
                <td>{a.displayName}</td>
                <td>
                  {a.accessKeyIds.map((k) => (
                    <div key={k} class="actions">
                      <code>{k}</code>
                      {a.displayName !== 'root' && (
                        <>
                          <button type="button" aria-label={`Rotate key ${k}`} onClick={() => void rotateKey(a.displayName, k)}>
                            Rotate
                          </button>
                          <button type="button" aria-label={`Delete key ${k}`} onClick={() => void remove(`Key ${k}`, `keys/${encodeURIComponent(k)}`)}>
                            Delete
                          </button>
                        </>
                      )}
                    </div>
                  ))}
                </td>
                <td>{a.disabled ? 'disabled' : 'enabled'}</td>
                <td class="actions">
                  {a.displayName !== 'root' && (
                    <>
                      <button type="button" aria-label={`New key for ${a.displayName}`} onClick={() => void createKey(a.displayName)}>
                        New key
                      </button>
                      <button
                        type="button"
                        aria-label={`${a.disabled ? 'Enable' : 'Disable'} ${a.displayName}`}
                        onClick={() => void act(() => s3.admin('POST', `accounts/${encodeURIComponent(a.displayName)}/${a.disabled ? 'enable' : 'disable'}`).then(() => undefined), `${a.displayName} ${a.disabled ? 'enabled' : 'disabled'}.`)}
                      >
                        {a.disabled ? 'Enable' : 'Disable'}
                      </button>
                      <button type="button" aria-label={`Delete account ${a.displayName}`} onClick={() => void remove(`Account ${a.displayName}`, `accounts/${encodeURIComponent(a.displayName)}`)}>
                        Delete
                      </button>
                    </>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}
