import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CallerGone, Cancellation } from '../../../server/executor/cancellation.js';

describe('CallerGone', () => {
  it('runs each listener once at the first fire and says it is aborted', () => {
    const gone = new CallerGone();
    const calls: string[] = [];
    gone.addEventListener('abort', () => calls.push('a'));
    gone.addEventListener('abort', () => calls.push('b'));
    expect(gone.aborted).toBe(false);
    gone.fire();
    gone.fire();
    expect(gone.aborted).toBe(true);
    expect(calls).toEqual(['a', 'b']);
  });

  it('does not call a removed listener, nor one added after the fire', () => {
    const gone = new CallerGone();
    const calls: string[] = [];
    const removed = () => calls.push('removed');
    gone.addEventListener('abort', removed);
    gone.removeEventListener('abort', removed);
    gone.removeEventListener('abort', () => calls.push('never added'));
    gone.fire();
    gone.addEventListener('abort', () => calls.push('late'));
    expect(calls).toEqual([]);
  });

  it('lets a listener remove another during the fire without skipping or repeating anyone', () => {
    const gone = new CallerGone();
    const calls: string[] = [];
    const second = () => calls.push('second');
    gone.addEventListener('abort', () => {
      calls.push('first');
      gone.removeEventListener('abort', second);
    });
    gone.addEventListener('abort', second);
    gone.fire();
    expect(calls).toEqual(['first', 'second']);
  });
});

describe('Cancellation', () => {
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  beforeEach(() => {
    unhandled.length = 0;
    process.on('unhandledRejection', onUnhandled);
  });
  afterEach(() => {
    process.off('unhandledRejection', onUnhandled);
  });

  it('makes the AbortSignal at the first ask and aborts it with the reason', () => {
    const cancellation = new Cancellation();
    const signal = cancellation.signal;
    expect(cancellation.signal).toBe(signal);
    expect(signal.aborted).toBe(false);
    const reason = new Error('timed out');
    cancellation.cancel(reason);
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBe(reason);
    expect(cancellation.cancelled).toBe(true);
    expect(cancellation.reason).toBe(reason);
  });

  it('hands out an already aborted signal when asked after the cancel', () => {
    const cancellation = new Cancellation();
    const reason = new Error('caller went away');
    cancellation.cancel(reason);
    expect(cancellation.signal.aborted).toBe(true);
    expect(cancellation.signal.reason).toBe(reason);
  });

  it('keeps the first reason, and tells its listener once', () => {
    const cancellation = new Cancellation();
    const heard: unknown[] = [];
    cancellation.onCancel((reason) => heard.push(reason));
    const first = new Error('first');
    cancellation.cancel(first);
    cancellation.cancel(new Error('second'));
    expect(heard).toEqual([first]);
    expect(cancellation.signal.reason).toBe(first);
  });

  it('tells a listener added after the cancel at once, and never tells one that is not cancelled', async () => {
    const late = new Cancellation();
    late.cancel(new Error('already'));
    const heard: unknown[] = [];
    late.onCancel((reason) => heard.push(reason));
    expect(heard).toEqual([late.reason]);

    const never = new Cancellation();
    never.onCancel((reason) => heard.push(reason));
    await new Promise((resolve) => setImmediate(resolve));
    expect(heard).toHaveLength(1);
  });

  it('leaves no unhandled rejection when nobody listens', async () => {
    new Cancellation().cancel(new Error('nobody waits'));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(unhandled).toEqual([]);
  });
});
