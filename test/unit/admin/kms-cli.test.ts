// `tusk admin kms …` → the admin API call it makes (docs/KMS.md's route table).

import { describe, expect, it } from 'vitest';
import { adminCall } from '../../../src/cli/admin.js';

describe('tusk admin kms', () => {
  it('maps each command to its route, body and query', () => {
    expect(adminCall(['kms', 'list'], {})).toEqual({ method: 'GET', path: 'kms/keys' });
    expect(adminCall(['kms', 'list'], { account: 'alice' })).toEqual({ method: 'GET', path: 'kms/keys', query: { account: 'alice' } });
    expect(adminCall(['kms', 'create'], { id: 'testkey-1', account: 'alice' })).toEqual({ method: 'POST', path: 'kms/keys', body: { account: 'alice', id: 'testkey-1', description: undefined } });
    expect(adminCall(['kms', 'describe', 'alias/x'], {})).toEqual({ method: 'GET', path: 'kms/keys/alias%2Fx' });
    for (const action of ['enable', 'disable', 'rotate', 'cancel-deletion']) {
      expect(adminCall(['kms', action, 'k1'], {})).toEqual({ method: 'POST', path: `kms/keys/k1/${action}`, body: { account: undefined } });
    }
    expect(adminCall(['kms', 'schedule-deletion', 'k1'], { days: '7' })).toEqual({ method: 'POST', path: 'kms/keys/k1/schedule-deletion', body: { account: undefined, pendingWindowDays: 7 } });
    expect(adminCall(['kms', 'alias', 'alias/x', 'k1'], {})).toEqual({ method: 'PUT', path: 'kms/aliases/alias%2Fx', body: { account: undefined, keyId: 'k1' } });
    expect(adminCall(['kms', 'alias', 'alias/x'], { delete: true })).toEqual({ method: 'DELETE', path: 'kms/aliases/alias%2Fx' });
  });

  it('refuses incomplete or extra arguments', () => {
    expect(() => adminCall(['kms', 'describe'], {})).toThrow(/missing KEY/);
    expect(() => adminCall(['kms', 'create', 'x'], {})).toThrow(/--id/);
    expect(() => adminCall(['kms', 'alias', 'alias/x'], {})).toThrow(/ALIAS and KEY/);
    expect(() => adminCall(['kms', 'schedule-deletion', 'k'], { days: 'soon' })).toThrow(/--days/);
  });
});
