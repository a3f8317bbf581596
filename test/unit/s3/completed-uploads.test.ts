// The retry window of CompleteMultipartUpload (s3.md §3.23): same parts within 10 minutes only.

import { describe, expect, it } from 'vitest';
import { choiceOf, recallCompleted, rememberCompleted } from '../../../src/s3/completed-uploads.js';

describe('completed uploads', () => {
  it('answers an identical retry within 10 minutes, nothing else', () => {
    const answer = { headers: [], xml: '<x/>' };
    const choice = choiceOf([{ partNumber: 1, etag: 'a' }, { partNumber: 2, etag: 'b' }]);
    rememberCompleted('b', 'k', 'U1', choice, answer, 1_000);
    expect(recallCompleted('b', 'k', 'U1', choice, 1_000 + 599_999)).toBe(answer);
    expect(recallCompleted('b', 'k', 'U1', choice, 1_000 + 600_000)).toBeUndefined();
    expect(recallCompleted('b', 'k', 'U1', choiceOf([{ partNumber: 1, etag: 'a' }]), 2_000)).toBeUndefined();
    expect(recallCompleted('b', 'other', 'U1', choice, 2_000)).toBeUndefined();
  });
});
