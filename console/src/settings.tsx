// Bucket settings: versioning, lifecycle expiration rules, and the bucket policy (checked in the
// page before it is sent; the server checks it again).

import { useEffect, useState } from 'preact/hooks';
import type { S3 } from './s3.js';
import { href, message, Notice, useLoad, type Note } from './ui.js';

/** What the page checks before saving a policy: JSON, and the shape of an IAM policy document (AWS IAM JSON policy reference). */
export function policyProblem(text: string): string | undefined {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    return `Not valid JSON: ${message(e)}`;
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) return 'A policy is a JSON object.';
  const statements = (doc as { Statement?: unknown }).Statement;
  const list = Array.isArray(statements) ? statements : statements === undefined ? [] : [statements];
  if (list.length === 0) return 'A policy needs a Statement.';
  for (const [i, s] of list.entries()) {
    if (typeof s !== 'object' || s === null) return `Statement ${i + 1} is not an object.`;
    const st = s as Record<string, unknown>;
    if (st.Effect !== 'Allow' && st.Effect !== 'Deny') return `Statement ${i + 1}: Effect must be Allow or Deny.`;
    if (st.Action === undefined && st.NotAction === undefined) return `Statement ${i + 1}: Action (or NotAction) is missing.`;
    if (st.Resource === undefined && st.NotResource === undefined) return `Statement ${i + 1}: Resource (or NotResource) is missing.`;
    if (st.Principal === undefined && st.NotPrincipal === undefined) return `Statement ${i + 1}: a bucket policy names a Principal.`;
  }
  return undefined;
}

function Versioning({ s3, bucket }: { s3: S3; bucket: string }) {
  const status = useLoad(() => s3.versioning(bucket), [bucket]);
  const [note, setNote] = useState<Note>();
  const set = (to: 'Enabled' | 'Suspended') =>
    s3.putVersioning(bucket, to).then(
      () => {
        setNote({ text: `Versioning ${to.toLowerCase()}.` });
        status.reload();
      },
      (e) => setNote({ error: true, text: message(e) }),
    );
  return (
    <section aria-labelledby="versioning">
      <h2 id="versioning">Versioning</h2>
      {status.error && <Notice error>{status.error}</Notice>}
      {status.value && <p>Versioning is {status.value === 'Off' ? 'off' : status.value.toLowerCase()}.</p>}
      {status.value === 'Enabled' ? (
        <button type="button" onClick={() => set('Suspended')}>
          Suspend versioning
        </button>
      ) : (
        <button type="button" onClick={() => set('Enabled')}>
          Enable versioning
        </button>
      )}
      {note && <Notice error={note.error}>{note.text}</Notice>}
    </section>
  );
}

function Lifecycle({ s3, bucket }: { s3: S3; bucket: string }) {
  const rules = useLoad(() => s3.lifecycle(bucket), [bucket]);
  const [id, setId] = useState('');
  const [prefix, setPrefix] = useState('');
  const [days, setDays] = useState('30');
  const [note, setNote] = useState<Note>();
  const save = (next: NonNullable<typeof rules.value>, done: string) =>
    s3.putLifecycle(bucket, next).then(
      () => {
        setNote({ text: done });
        rules.reload();
      },
      (e) => setNote({ error: true, text: message(e) }),
    );
  return (
    <section aria-labelledby="lifecycle">
      <h2 id="lifecycle">Lifecycle rules</h2>
      {rules.error && <Notice error>{rules.error}</Notice>}
      {rules.value && (
        <table>
          <caption>{rules.value.length} rule(s): objects expire a number of days after they were written</caption>
          <thead>
            <tr>
              <th scope="col">Rule</th>
              <th scope="col">Prefix</th>
              <th scope="col">Expire after (days)</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {rules.value.map((r) => (
              <tr key={r.id}>
                <td>{r.id}</td>
                <td>{r.prefix || '(whole bucket)'}</td>
                <td>{r.expirationDays || '(other action)'}</td>
                <td>
                  <button type="button" aria-label={`Delete rule ${r.id}`} onClick={() => save(rules.value!.filter((x) => x !== r), `Rule ${r.id} deleted.`)}>
                    Delete
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <form
        class="row"
        onSubmit={(e) => {
          e.preventDefault();
          if (!rules.value) return;
          if (rules.value.some((r) => r.id === id)) {
            setNote({ error: true, text: `A rule named ${id} exists already.` });
            return;
          }
          void save([...rules.value, { id, prefix, expirationDays: Number(days) }], `Rule ${id} added.`);
        }}
      >
        <label>
          Rule name
          <input value={id} onInput={(e) => setId(e.currentTarget.value)} required maxLength={255} />
        </label>
        <label>
          Prefix
          <input value={prefix} onInput={(e) => setPrefix(e.currentTarget.value)} placeholder="logs/" />
        </label>
        <label>
          Expire after days
          <input type="number" min="1" value={days} onInput={(e) => setDays(e.currentTarget.value)} required />
        </label>
        <button type="submit">Add lifecycle rule</button>
      </form>
      {note && <Notice error={note.error}>{note.text}</Notice>}
    </section>
  );
}

function Policy({ s3, bucket }: { s3: S3; bucket: string }) {
  const current = useLoad(() => s3.policy(bucket), [bucket]);
  const [text, setText] = useState('');
  const [note, setNote] = useState<Note>();
  useEffect(() => {
    if (current.value !== undefined) setText(JSON.stringify(JSON.parse(current.value), null, 2));
  }, [current.value]);
  const example = JSON.stringify(
    {
      Version: '2012-10-17',
      Statement: [{ Sid: 'PublicRead', Effect: 'Allow', Principal: '*', Action: 's3:GetObject', Resource: `arn:aws:s3:::${bucket}/public/*` }],
    },
    null,
    2,
  );
  return (
    <section aria-labelledby="policy">
      <h2 id="policy">Bucket policy</h2>
      <p>{current.value === undefined ? 'This bucket has no policy.' : 'The policy in force is below.'}</p>
      <label class="wide">
        Policy JSON
        <textarea rows={12} spellcheck={false} value={text} placeholder={example} onInput={(e) => setText(e.currentTarget.value)} aria-describedby="policy-help" />
      </label>
      <p id="policy-help" class="help">
        An IAM policy document: Version, and Statements with Effect, Principal, Action and Resource.
      </p>
      <div class="row">
        <button
          type="button"
          onClick={() => {
            const problem = policyProblem(text);
            setNote(problem ? { error: true, text: problem } : { text: 'The policy is well-formed.' });
          }}
        >
          Check policy
        </button>
        <button
          type="button"
          onClick={() => {
            const problem = policyProblem(text);
            if (problem) return setNote({ error: true, text: problem });
            s3.putPolicy(bucket, text).then(
              () => {
                setNote({ text: 'Policy saved.' });
                current.reload();
              },
              (e) => setNote({ error: true, text: message(e) }),
            );
          }}
        >
          Save policy
        </button>
        {current.value !== undefined && (
          <button
            type="button"
            onClick={() =>
              s3.deletePolicy(bucket).then(
                () => {
                  setText('');
                  setNote({ text: 'Policy deleted.' });
                  current.reload();
                },
                (e) => setNote({ error: true, text: message(e) }),
              )
            }
          >
            Delete policy
          </button>
        )}
      </div>
      {note && <Notice error={note.error}>{note.text}</Notice>}
    </section>
  );
}

export function SettingsPage({ s3, bucket }: { s3: S3; bucket: string }) {
  return (
    <>
      <h1>Settings of {bucket}</h1>
      <p>
        <a href={href({ page: 'objects', bucket, prefix: '' })}>Objects of {bucket}</a>
      </p>
      <Versioning s3={s3} bucket={bucket} />
      <Lifecycle s3={s3} bucket={bucket} />
      <Policy s3={s3} bucket={bucket} />
    </>
  );
}
