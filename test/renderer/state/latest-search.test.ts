import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LatestSearch, TYPING_MS } from '../../../renderer/src/state/latest-search.js';

/** A request the test answers by hand, with the signal it was given. */
interface Pending {
  query: string;
  signal: AbortSignal;
  resolve(results: string[]): void;
  reject(error: unknown): void;
}

/** A search whose requests wait for the test, and whose listener writes down what it hears. */
function harness() {
  const requests: Pending[] = [];
  const heard: unknown[][] = [];
  const busy: boolean[] = [];
  const search = new LatestSearch<string[]>(
    (query, signal) =>
      new Promise<string[]>((resolve, reject) => {
        requests.push({ query, signal, resolve, reject });
      }),
    {
      answer: (query, results) => heard.push(['answer', query, results]),
      fail: (query, error) => heard.push(['fail', query, (error as Error).message]),
      busy: (on) => busy.push(on),
      clear: () => heard.push(['clear']),
    },
  );
  return { search, requests, heard, busy };
}

/** Lets the settled promises' callbacks run. */
const settle = () => vi.advanceTimersByTimeAsync(0);

beforeEach(() => {
  vi.useFakeTimers();
});

afterEach(() => {
  vi.useRealTimers();
});

describe('LatestSearch', () => {
  it('asks once typing pauses, with the last words typed', async () => {
    const { search, requests, heard, busy } = harness();
    search.type('h');
    search.type('hi');
    vi.advanceTimersByTime(TYPING_MS - 1);
    search.type('high');
    vi.advanceTimersByTime(TYPING_MS - 1);
    expect(requests).toHaveLength(0);
    expect(busy).toEqual([true, true, true]);
    vi.advanceTimersByTime(1);
    expect(requests.map((r) => r.query)).toEqual(['high']);
    requests[0]!.resolve(['get_elevation']);
    await settle();
    expect(heard).toEqual([['answer', 'high', ['get_elevation']]]);
    expect(busy.at(-1)).toBe(false);
  });

  it('calls off the request on its way when the words change, and drops its answer if it comes anyway', async () => {
    const { search, requests, heard } = harness();
    search.type('high');
    vi.advanceTimersByTime(TYPING_MS);
    search.type('high denver');
    expect(requests[0]!.signal.aborted).toBe(true);
    vi.advanceTimersByTime(TYPING_MS);
    expect(requests.map((r) => r.query)).toEqual(['high', 'high denver']);
    requests[1]!.resolve(['get_elevation', 'weather']);
    requests[0]!.resolve(['stale']);
    await settle();
    expect(heard).toEqual([['answer', 'high denver', ['get_elevation', 'weather']]]);
  });

  it('ignores the failure of a request called off, and reports the newest failing', async () => {
    const { search, requests, heard, busy } = harness();
    search.type('a');
    vi.advanceTimersByTime(TYPING_MS);
    search.type('ab');
    requests[0]!.reject(Object.assign(new Error('aborted'), { name: 'AbortError' }));
    vi.advanceTimersByTime(TYPING_MS);
    requests[1]!.reject(new Error('HTTP 500'));
    await settle();
    expect(heard).toEqual([['fail', 'ab', 'HTTP 500']]);
    expect(busy.at(-1)).toBe(false);
  });

  it('clears at once when emptied, calling off what waits or runs', async () => {
    const { search, requests, heard, busy } = harness();
    search.type('read');
    vi.advanceTimersByTime(TYPING_MS);
    search.type('  ');
    expect(requests[0]!.signal.aborted).toBe(true);
    expect(heard).toEqual([['clear']]);
    expect(busy.at(-1)).toBe(false);
    search.type('write');
    search.type('');
    vi.advanceTimersByTime(TYPING_MS * 2);
    expect(requests).toHaveLength(1);
    requests[0]!.resolve(['read_file']);
    await settle();
    expect(heard).toEqual([['clear'], ['clear']]);
  });

  it('asks nothing again for the same words (a trailing space), but Enter asks at once, again', async () => {
    const { search, requests } = harness();
    search.type('git');
    vi.advanceTimersByTime(TYPING_MS);
    search.type('git ');
    vi.advanceTimersByTime(TYPING_MS);
    expect(requests).toHaveLength(1);
    search.now('git');
    expect(requests.map((r) => r.query)).toEqual(['git', 'git']);
    expect(requests[0]!.signal.aborted).toBe(true);
    search.type('git status');
    search.now('git status');
    expect(requests.map((r) => r.query)).toEqual(['git', 'git', 'git status']);
    vi.advanceTimersByTime(TYPING_MS * 2);
    expect(requests).toHaveLength(3);
  });

  it('stops everything when disposed', async () => {
    const { search, requests, heard } = harness();
    search.type('shell');
    vi.advanceTimersByTime(TYPING_MS);
    search.type('shell command');
    search.dispose();
    vi.advanceTimersByTime(TYPING_MS * 2);
    expect(requests).toHaveLength(1);
    expect(requests[0]!.signal.aborted).toBe(true);
    requests[0]!.resolve(['run_shell']);
    await settle();
    expect(heard).toEqual([]);
  });
});
