import { describe, expect, it } from 'vitest';
import { McpTasks } from '../../../server/mcp/tasks.js';

/** The task store of the stateless revision on its own: bound to an identity, to a time limit, and to a cap. */

const alice = { name: 'alice', owner: false };
const bob = { name: 'bob', owner: false };
const owner = { name: 'default', owner: true };

describe('MCP tasks', () => {
  it('another identity sees, cancels and settles nothing of a task', () => {
    const tasks = new McpTasks(60_000);
    const abort = new AbortController();
    const task = tasks.create(alice, abort, 'waiting')!;
    expect(tasks.get(bob, task.taskId)).toBeUndefined();
    expect(tasks.cancel(bob, task.taskId)).toBeUndefined();
    // The owner is not a client of the same name: an owner session does not see a client's tasks either.
    expect(tasks.get({ name: 'alice', owner: true }, task.taskId)).toBeUndefined();
    expect(abort.signal.aborted).toBe(false);
    expect(tasks.get(alice, task.taskId)).toMatchObject({ status: 'working', taskId: task.taskId });
    tasks.closeAll();
  });

  it('a task past its time limit is gone even before its timer fires, and its work is stopped', () => {
    let now = 1_000_000;
    const tasks = new McpTasks(5_000, () => now);
    const abort = new AbortController();
    const task = tasks.create(owner, abort, 'waiting')!;
    now += 4_999;
    expect(tasks.get(owner, task.taskId)).toBeDefined();
    now += 1;
    expect(tasks.get(owner, task.taskId)).toBeUndefined();
    expect(abort.signal.aborted).toBe(true);
    expect(tasks.size).toBe(0);
  });

  it('a late outcome does not revive a cancelled task', () => {
    const tasks = new McpTasks(60_000);
    const abort = new AbortController();
    const task = tasks.create(alice, abort, 'waiting')!;
    expect(tasks.cancel(alice, task.taskId)).toMatchObject({ cancelled: true });
    expect(abort.signal.aborted).toBe(true);
    tasks.complete(task.taskId, { content: [] });
    expect(tasks.get(alice, task.taskId)).toMatchObject({ status: 'cancelled' });
    expect(tasks.get(alice, task.taskId)).not.toHaveProperty('result');
    expect(tasks.cancel(alice, task.taskId)).toMatchObject({ cancelled: false });
    tasks.closeAll();
  });

  it('carries the result once completed and the error once failed', () => {
    const tasks = new McpTasks(60_000);
    const done = tasks.create(alice, new AbortController(), 'waiting')!;
    const broken = tasks.create(alice, new AbortController(), 'waiting')!;
    tasks.complete(done.taskId, { content: [{ type: 'text', text: 'ok' }] });
    tasks.fail(broken.taskId, { code: -32602, message: 'Unknown tool' });
    expect(tasks.get(alice, done.taskId)).toMatchObject({ status: 'completed', result: { content: [{ text: 'ok' }] } });
    expect(tasks.get(alice, broken.taskId)).toMatchObject({ status: 'failed', error: { code: -32602 } });
    tasks.closeAll();
  });

  it('one identity cannot hold more than 256 tasks at once; finished ones make room, working ones do not', () => {
    const tasks = new McpTasks(60_000);
    const made = Array.from({ length: 256 }, () => tasks.create(bob, new AbortController(), 'waiting')!);
    expect(tasks.create(bob, new AbortController(), 'waiting')).toBeUndefined();
    // Another identity is not held back by bob's tasks.
    expect(tasks.create(alice, new AbortController(), 'waiting')).toBeDefined();
    tasks.complete(made[0]!.taskId, { content: [] });
    expect(tasks.create(bob, new AbortController(), 'waiting')).toBeDefined();
    expect(tasks.get(bob, made[0]!.taskId)).toBeUndefined();
    tasks.closeAll();
  });
});
