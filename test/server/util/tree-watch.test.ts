import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { watchTree, type TreeWatch } from '../../../server/util/tree-watch.js';
import { tempDir } from '../../helpers/gateway.js';
import { until } from '../../helpers/wait.js';

/** Every change under a folder is seen, including those Node 20's recursive watch misses on Linux. */

let watcher: TreeWatch | undefined;
afterEach(() => watcher?.close());

function follow(root: string, ignore?: (path: string) => boolean) {
  const state = { changes: 0 };
  watcher = watchTree(root, { onChange: () => (state.changes += 1), debounceMs: 50, ...(ignore && { ignore }) });
  /** Makes a change and waits until it has been seen. */
  const sees = async (change: () => void) => {
    const before = state.changes;
    change();
    await until(() => state.changes > before, 'the change to be seen', 5_000);
  };
  return { state, sees };
}

describe('watchTree', () => {
  it('sees a link replaced by a file in a folder made after it started (missed by a recursive watch on Linux)', async () => {
    const root = tempDir('pincer-watch-');
    const { sees } = follow(root);
    await sees(() => {
      mkdirSync(join(root, 'plugin'));
      writeFileSync(join(root, 'plugin', 'index.js'), 'x');
      symlinkSync('/etc/hostname', join(root, 'plugin', 'readme.txt'));
    });
    await sees(() => {
      rmSync(join(root, 'plugin', 'readme.txt'));
      writeFileSync(join(root, 'plugin', 'readme.txt'), 'hi');
    });
  });

  it('sees a file written deep in a folder tree made in one go', async () => {
    const root = tempDir('pincer-watch-');
    const { sees } = follow(root);
    await sees(() => mkdirSync(join(root, 'a', 'b', 'c'), { recursive: true }));
    await sees(() => writeFileSync(join(root, 'a', 'b', 'c', 'deep.js'), 'x'));
    await sees(() => rmSync(join(root, 'a'), { recursive: true }));
  });

  it('leaves out what it is told to ignore', async () => {
    const root = tempDir('pincer-watch-');
    mkdirSync(join(root, 'skip'));
    const { state, sees } = follow(root, (path) => path === 'skip' || path.startsWith('skip/'));
    writeFileSync(join(root, 'skip', 'noise.txt'), 'x');
    await sees(() => writeFileSync(join(root, 'seen.txt'), 'x'));
    const after = state.changes;
    writeFileSync(join(root, 'skip', 'more-noise.txt'), 'x');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(state.changes).toBe(after);
  });
});
