/**
 * docs/http-api.md ends with the index of every route the gateway declares: a route added, renamed or removed
 * without the docs fails here, and the message holds the index to paste.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RouteEntry } from '../../server/http/route-list.js';
import { startGateway, type TestGateway } from '../helpers/gateway.js';

const DOC = join(import.meta.dirname, '../../docs/http-api.md');
const BEGIN = '<!-- route index: begin -->';
const END = '<!-- route index: end -->';

/** The index as the docs show it: one line per path, sorted, its methods in a column, `:param` written `{param}`. */
function routeIndex(routes: readonly RouteEntry[]): string {
  const byPath = new Map<string, string[]>();
  for (const { method, path } of routes) {
    const shown = path.replace(/:(\w+)/g, '{$1}');
    const methods = byPath.get(shown) ?? [];
    if (!methods.includes(method)) methods.push(method);
    byPath.set(shown, methods);
  }
  const width = Math.max(...[...byPath.keys()].map((path) => path.length)) + 2;
  return [...byPath]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([path, methods]) => `${path.padEnd(width)}${methods.join(', ')}`)
    .join('\n');
}

function documentedIndex(): string {
  const text = readFileSync(DOC, 'utf8');
  const begin = text.indexOf(BEGIN);
  const end = text.indexOf(END);
  if (begin === -1 || end < begin) throw new Error(`docs/http-api.md has no "${BEGIN}" … "${END}" block`);
  return text.slice(begin + BEGIN.length, end).replace(/```\w*/g, '').trim();
}

let gateway: TestGateway;
beforeAll(async () => {
  gateway = await startGateway();
});
afterAll(async () => {
  await gateway?.close();
});

describe('docs/http-api.md', () => {
  it('lists every route the gateway declares, and no other', () => {
    const declared = routeIndex(gateway.gateway.routes());
    expect(declared.split('\n').length).toBeGreaterThan(50);
    expect(documentedIndex(), `the route index in docs/http-api.md is out of date; between the markers it should read:\n${declared}\n`).toBe(declared);
  });
});
