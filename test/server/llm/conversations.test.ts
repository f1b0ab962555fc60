import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../../server/store/index.js';
import { tempDir } from '../../helpers/gateway.js';

/** The conversation store: order, ownership, cascading deletes and pruning by age. */

let store: Store | undefined;
let dir: string | undefined;
afterEach(() => {
  store?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('conversation store', () => {
  it('keeps messages in order, lists a client its own, and prunes conversations unused for too long', () => {
    dir = tempDir();
    store = openStore(join(dir, 'pincer.db'));
    const day = 24 * 60 * 60_000;
    const now = Date.now();
    store.conversations.create({ id: 'cv_old', client: 'a', title: 'old', model: 'm' }, now - 100 * day);
    store.conversations.append('cv_old', 'm', [{ message: { role: 'user', content: 'hi' } }], now - 100 * day);
    store.conversations.create({ id: 'cv_new', client: 'b', title: 'new', model: 'm' }, now);
    store.conversations.append('cv_new', 'm2', [
      { message: { role: 'user', content: 'one' } },
      { message: { role: 'assistant', content: 'two' }, meta: { steps: [] } },
    ]);
    expect(store.conversations.messages('cv_new').map((m) => [m.seq, m.message.content, m.meta])).toEqual([
      [1, 'one', null],
      [2, 'two', { steps: [] }],
    ]);
    expect(store.conversations.get('cv_new')).toMatchObject({ model: 'm2', messages: 2 });
    expect(store.conversations.list('b', 10).map((c) => c.id)).toEqual(['cv_new']);
    expect(store.conversations.list(undefined, 10).map((c) => c.id)).toEqual(['cv_new', 'cv_old']);

    expect(store.conversations.prune(now - 90 * day)).toBe(1);
    expect(store.conversations.get('cv_old')).toBeUndefined();
    expect(store.conversations.messages('cv_old')).toEqual([]);
    expect(store.conversations.delete('cv_new')).toBe(true);
    expect(store.conversations.messages('cv_new')).toEqual([]);
  });
});
