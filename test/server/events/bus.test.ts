import { describe, expect, it } from 'vitest';
import { EventBus, type GatewayEvents } from '../../../server/events/bus.js';
import { finishedCall } from '../../helpers/calls.js';

/** Warnings Node emits while `body` runs and on the ticks right after it (emitWarning reports on the next tick). */
async function warningsDuring(body: () => void): Promise<Error[]> {
  const seen: Error[] = [];
  const listener = (warning: Error) => seen.push(warning);
  process.on('warning', listener);
  try {
    body();
    await new Promise((resolve) => setImmediate(resolve));
  } finally {
    process.off('warning', listener);
  }
  return seen;
}

const tools = (names: string[]): GatewayEvents['tools'][0] => ({ reason: 'registered', names });

describe('the event bus', () => {
  it('hands every listener of an event the same payload, in the order they subscribed', () => {
    const bus = new EventBus();
    const heard: string[] = [];
    const payload = tools(['a']);
    bus.on('tools', (event) => heard.push(`first:${event.names.join()}`));
    bus.on('tools', (event) => {
      expect(event).toBe(payload);
      heard.push('second');
    });
    expect(bus.emit('tools', payload)).toBe(true);
    expect(heard).toEqual(['first:a', 'second']);
  });

  it("does not hand one event's payload to another event's listeners", () => {
    const bus = new EventBus();
    const heard: unknown[] = [];
    bus.on('plugins', (event) => heard.push(event));
    bus.on('closing', () => heard.push('closing'));
    expect(bus.emit('tools', tools(['a']))).toBe(false);
    expect(heard).toEqual([]);
    bus.emit('closing');
    expect(heard).toEqual(['closing']);
  });

  it('stops telling a listener once it unsubscribed, and keeps telling the others', () => {
    const bus = new EventBus();
    const heard: string[] = [];
    const gone = () => heard.push('gone');
    bus.on('output', gone);
    bus.on('output', (event) => heard.push(event.chunk));
    bus.off('output', gone);
    bus.emit('output', { call_id: 'c_1', tool: 'run_shell', chunk: 'hi' });
    expect(heard).toEqual(['hi']);
    expect(bus.listenerCount('output')).toBe(1);
  });

  it('keeps two buses apart: two gateways in one process never hear each other', () => {
    const one = new EventBus();
    const two = new EventBus();
    const heard: string[] = [];
    one.on('notify', () => heard.push('one'));
    two.on('notify', () => heard.push('two'));
    two.emit('notify', { call_id: 'c_1', client: 'cursor', title: 't', message: 'm', urgency: 'low' });
    expect(heard).toEqual(['two']);
  });

  it('takes hundreds of listeners on one event (one per open dashboard tab) without a leak warning', async () => {
    const bus = new EventBus();
    let told = 0;
    const warnings = await warningsDuring(() => {
      for (let i = 0; i < 500; i++) bus.on('call', () => (told += 1));
    });
    expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
    expect(bus.listenerCount('call')).toBe(500);
    bus.emit('call', { phase: 'succeeded', call: finishedCall('c_1', '2026-01-01T00:00:00.000Z') });
    expect(told).toBe(500);
  });
});
