import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../../server/store/db.js';
import { MIGRATIONS } from '../../../server/store/migrations/index.js';
import { EventStream, type SseEvent } from '../../helpers/events.js';
import { readJson, startGateway, tempDir, type TestGateway } from '../../helpers/gateway.js';

/** What client A wrote to its file and read back: nothing of it may reach client B. */
const SECRET = 'launch code 7-ALPHA-4471';
const MARK = '4471';

describe("a named client and another client's calls", () => {
  let gw: TestGateway;
  const tokens: Record<string, string> = {};
  /** Call ids by what they were. */
  const alpha: Record<string, string> = {};
  const betaCalls: string[] = [];
  let streams: Record<'beta' | 'default' | 'owner', EventStream>;

  const headersOf = (client: string) => ({ authorization: `Bearer ${tokens[client]}` });
  const as = (client: string, path: string, init: { method?: string; json?: unknown; headers?: Record<string, string> } = {}) =>
    gw.api(path, { method: init.method ?? (init.json === undefined ? 'GET' : 'POST'), json: init.json, headers: { ...headersOf(client), ...init.headers } });
  const call = async (client: string, tool: string, args: unknown, headers: Record<string, string> = {}) => {
    const res = await as(client, `/tools/${tool}/execute`, { json: args, headers });
    return readJson(res) as Promise<{ success: boolean; call_id: string; result?: unknown; approval_id?: string }>;
  };
  const streamAs = (client: string) =>
    EventStream.open({ ...gw, api: (path, init = {}) => gw.api(path, { ...init, headers: { ...(init.headers as object), ...headersOf(client) } }) });
  const ownerStream = async () => {
    const headers = await gw.ownerHeaders();
    return EventStream.open({ ...gw, api: (path, init = {}) => fetch(`${gw.url}${path}`, { ...init, headers: { cookie: headers.cookie! } }) });
  };
  /** Waits until a stream has seen this call finish: every event published before it has reached the stream too. */
  const finished = (stream: EventStream, id: string) => stream.next((e) => e.event === 'call' && e.data.call.id === id && e.data.phase !== 'started');
  const aboutAlpha = (events: SseEvent[]) =>
    events.filter((e) => {
      const text = JSON.stringify(e.data);
      return Object.values(alpha).some((id) => text.includes(id)) || text.includes(MARK) || (e.event === 'notify' && e.data.client === 'alpha');
    });
  const ids = (calls: Array<{ id: string }>) => calls.map((c) => c.id);

  beforeAll(async () => {
    gw = await startGateway();
    for (const name of ['alpha', 'beta']) {
      const res = await gw.asOwner('/clients', { json: { name } });
      expect(res.status).toBe(201);
      tokens[name] = (await readJson(res)).token;
    }
    tokens.default = gw.token;
    // Streams open before any call: B's must carry nothing of A's calls from the start.
    streams = { beta: await streamAs('beta'), default: await streamAs('default'), owner: await ownerStream() };

    betaCalls.push((await call('beta', 'calculate', { expression: '1+1' })).call_id);
    const written = await call('alpha', 'file_write', { path: 'notes.txt', content: SECRET });
    expect(written.success).toBe(true);
    alpha.write = written.call_id;
    const read = await call('alpha', 'file_read', { path: 'notes.txt' });
    expect(JSON.stringify(read.result)).toContain(MARK);
    alpha.read = read.call_id;
    betaCalls.push((await call('beta', 'calculate', { expression: '2+2' })).call_id);
    // Live output: the file's contents in the terminal output of A's command.
    const shown = await call('alpha', 'run_shell', { command: 'cat notes.txt' });
    expect(JSON.stringify(shown.result)).toContain(MARK);
    alpha.shell = shown.call_id;
    alpha.notify = (await call('alpha', 'notify', { title: 'done', message: `the ${SECRET}` })).call_id;
    // An approval about A's call: deleting asks the owner.
    const asked = await call('alpha', 'file_delete', { path: 'notes.txt' }, { prefer: 'respond-async' });
    expect(asked.approval_id).toEqual(expect.any(String));
    alpha.delete = asked.call_id;
    alpha.approval = asked.approval_id!;
    await streams.owner.next((e) => e.event === 'approval' && e.data.approval.id === alpha.approval);
    const denied = await gw.asOwner(`/approvals/${alpha.approval}`, { json: { decision: 'deny' } });
    expect(denied.status).toBe(200);
    betaCalls.push((await call('beta', 'calculate', { expression: '3+3' })).call_id);
    for (const stream of Object.values(streams)) await finished(stream, betaCalls.at(-1)!);
  }, 60_000);
  afterAll(async () => {
    await Promise.all(Object.values(streams ?? {}).map((stream) => stream.close()));
    await gw.close();
  });

  it('GET /calls lists only its own calls, whatever the filters', async () => {
    const { calls } = await readJson(await as('beta', '/calls?limit=500'));
    expect(ids(calls).sort()).toEqual([...betaCalls].sort());
    for (const query of ['tool=file_read', 'status=succeeded', 'status=denied', 'tool=run_shell', `since=${new Date(0).toISOString()}`]) {
      const page = await readJson(await as('beta', `/calls?${query}`));
      expect(page.calls.every((c: { client: string }) => c.client === 'beta'), query).toBe(true);
      expect(JSON.stringify(page), query).not.toContain(MARK);
    }
  });

  it('asking for client=<another client> answers an empty page, exactly as for a client that never existed', async () => {
    const other = await readJson(await as('beta', '/calls?client=alpha'));
    expect(other).toEqual({ calls: [], next_cursor: null });
    expect(await readJson(await as('beta', '/calls?client=nobody'))).toEqual(other);
    expect(ids((await readJson(await as('beta', '/calls?client=beta'))).calls).sort()).toEqual([...betaCalls].sort());
  });

  it("pages through its own calls with the cursor and never reaches another client's", async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { calls: Array<{ id: string; client: string }>; next_cursor: string | null } = await readJson(
        await as('beta', `/calls?limit=1${cursor ? `&cursor=${cursor}` : ''}`),
      );
      expect(page.calls.length).toBeLessThanOrEqual(1);
      seen.push(...ids(page.calls));
      cursor = page.next_cursor;
    } while (cursor);
    expect(seen).toEqual([...betaCalls].reverse());
  });

  it("GET /calls/{id} of another client's call is 404, worded as for an id that does not exist", async () => {
    const unknownId = 'c_doesnotexist00';
    const unknown = await as('beta', `/calls/${unknownId}`);
    expect(unknown.status).toBe(404);
    const unknownBody = await readJson(unknown);
    for (const id of Object.values(alpha).filter((id) => id.startsWith('c_'))) {
      const res = await as('beta', `/calls/${id}`);
      expect(res.status, id).toBe(404);
      const body = await readJson(res);
      expect(JSON.stringify(body).replaceAll(id, unknownId)).toBe(JSON.stringify(unknownBody));
    }
    expect((await as('beta', `/calls/${betaCalls[0]}`)).status).toBe(200);
  });

  it('the export holds only its own calls', async () => {
    const text = await (await as('beta', '/calls/export')).text();
    const lines = text.trim().split('\n').map((l) => JSON.parse(l) as { id: string; client: string });
    expect(ids(lines)).toEqual(betaCalls);
    expect(text).not.toContain(MARK);
    expect(await (await as('beta', '/calls/export?client=alpha')).text()).toBe('');
  });

  it("GET /events carries nothing of another client's calls: no call, approval, live output or notification event", () => {
    const events = streams.beta.events;
    expect(aboutAlpha(events)).toEqual([]);
    expect(JSON.stringify(events)).not.toContain(MARK);
    // Its own calls it sees, so the stream was live all along.
    for (const id of betaCalls) expect(events.some((e) => e.event === 'call' && e.data.call.id === id && e.data.phase === 'succeeded')).toBe(true);
  });

  it('the default token and the owner read every call, whole, in the history and on /events', async () => {
    for (const res of [await as('default', `/calls/${alpha.read}`), await gw.asOwner(`/calls/${alpha.read}`)]) {
      expect(res.status).toBe(200);
      expect(JSON.stringify((await readJson(res)).result)).toContain(MARK);
    }
    expect(await (await as('default', '/calls/export?client=alpha')).text()).toContain(MARK);
    for (const stream of [streams.default, streams.owner]) {
      const seen = stream.events;
      expect(seen.some((e) => e.event === 'call' && e.data.call.id === alpha.read)).toBe(true);
      expect(seen.some((e) => e.event === 'output' && e.data.call_id === alpha.shell && String(e.data.chunk).includes(MARK))).toBe(true);
      expect(seen.some((e) => e.event === 'notify' && e.data.client === 'alpha')).toBe(true);
      expect(seen.some((e) => e.event === 'approval' && e.data.approval.id === alpha.approval && e.data.phase === 'requested')).toBe(true);
    }
  });

  it("GET /approvals never showed it another client's question", async () => {
    expect((await as('beta', `/approvals/${alpha.approval}`)).status).toBe(404);
    expect((await readJson(await as('beta', '/approvals'))).approvals).toEqual([]);
  });

  it('GET /stats counts only its own calls, and names no other client', async () => {
    const stats = await readJson(await as('beta', '/stats'));
    expect(stats.totals.calls).toBe(betaCalls.length);
    const text = JSON.stringify(stats);
    expect(text).not.toContain('alpha');
    for (const id of Object.values(alpha)) expect(text).not.toContain(id);
    const byClient = await readJson(await as('beta', '/stats?by=client'));
    expect(byClient.clients.map((c: { client: string }) => c.client)).toEqual(['beta']);
    expect((await readJson(await as('beta', '/stats/tools/file_read'))).calls).toBe(0);
    expect((await readJson(await as('default', '/stats/tools/file_read'))).calls).toBe(1);
    expect((await readJson(await as('default', '/stats?by=client'))).clients.map((c: { client: string }) => c.client)).toEqual(['alpha', 'beta']);
  });

  it("given every call (PUT /clients/{name}/history), it reads the other client's calls, at once on an open stream too", async () => {
    const widened = await gw.asOwner('/clients/beta/history', { method: 'PUT', json: { scope: 'all' } });
    expect(await readJson(widened)).toEqual({ name: 'beta', history: 'all' });
    try {
      expect(JSON.stringify((await readJson(await as('beta', `/calls/${alpha.read}`))).result)).toContain(MARK);
      expect(ids((await readJson(await as('beta', '/calls?client=alpha'))).calls)).toContain(alpha.read);
      expect(await (await as('beta', '/calls/export')).text()).toContain(MARK);
      expect((await readJson(await as('beta', '/stats?by=client'))).clients.map((c: { client: string }) => c.client)).toEqual(['alpha', 'beta']);
      const later = await call('alpha', 'calculate', { expression: '6*7' });
      expect((await finished(streams.beta, later.call_id)).data.call.client).toBe('alpha');
    } finally {
      await gw.asOwner('/clients/beta/history', { method: 'PUT', json: { scope: 'own' } });
    }
    expect((await as('beta', `/calls/${alpha.read}`)).status).toBe(404);
    const hidden = await call('alpha', 'calculate', { expression: '7*8' });
    const own = await call('beta', 'calculate', { expression: '8*9' });
    await finished(streams.beta, own.call_id);
    expect(streams.beta.events.some((e) => JSON.stringify(e.data).includes(hidden.call_id))).toBe(false);
  });

  it('the history scope is the owner\'s to set: GET /clients shows it, bad requests get a clear 400, a client 403', async () => {
    const { clients } = await readJson(await gw.asOwner('/clients'));
    expect(Object.fromEntries(clients.map((c: { name: string; history: string }) => [c.name, c.history]))).toEqual({ default: 'all', alpha: 'own', beta: 'own' });
    const put = (name: string, json: unknown) => gw.asOwner(`/clients/${name}/history`, { method: 'PUT', json });
    expect((await as('beta', '/clients/beta/history', { method: 'PUT', json: { scope: 'all' } })).status).toBe(403);
    const bad = await put('beta', { scope: 'everything' });
    expect(bad.status).toBe(400);
    expect((await readJson(bad)).error.message).toMatch(/Send \{"scope": "own"\}.*\{"scope": "all"\}/);
    expect((await readJson(await put('beta', { scope: 'own', extra: 1 }))).error.message).toMatch(/unknown field "extra"/);
    expect((await put('beta', {})).status).toBe(400);
    expect((await readJson(await put('default', { scope: 'own' }))).error.message).toMatch(/default client always reads every call/);
    expect((await put('nobody', { scope: 'own' })).status).toBe(404);
    expect((await put('bad name!', { scope: 'own' })).status).toBe(404);
  });
});

describe('clients that existed before the history scope', () => {
  it('read only their own calls after the upgrade, and every stored row is kept', async () => {
    const dataDir = tempDir();
    // A database as it was before the setting: one named client, calls of two clients, a memory.
    const db = new Database(join(dataDir, 'pincer.db'));
    migrate(db, MIGRATIONS.filter((m) => m.version <= 8));
    const token = 'legacy-token-0123456789abcdef0123456789';
    db.prepare("INSERT INTO clients (name, token_hash, token_hint, created_at, memories) VALUES (?, ?, ?, ?, 'all')").run(
      'legacy',
      createHash('sha256').update(token).digest('hex'),
      token.slice(-4),
      Date.now(),
    );
    const insert = db.prepare(
      `INSERT INTO calls (id, tool, client, via, arguments, result, status, http_status, cache_hit, started_at, finished_at, duration_ms)
       VALUES (?, 'file_read', ?, 'http', '{}', ?, 'succeeded', 200, 0, ?, ?, 1)`,
    );
    insert.run('c_legacy0001', 'legacy', '"mine"', Date.now() - 2000, Date.now() - 1999);
    insert.run('c_other00001', 'other', `"${SECRET}"`, Date.now() - 1000, Date.now() - 999);
    db.prepare("INSERT INTO memories (content, client, terms, created_at, updated_at) VALUES ('kept', 'legacy', '[\"kept\"]', 1, 1)").run();
    db.close();
    const gw = await startGateway({ dataDir });
    try {
      const legacy = { authorization: `Bearer ${token}` };
      const own = await readJson(await gw.api('/calls', { headers: legacy }));
      expect(own.calls.map((c: { id: string }) => c.id)).toEqual(['c_legacy0001']);
      expect((await gw.api('/calls/c_other00001', { headers: legacy })).status).toBe(404);
      expect((await readJson(await gw.asOwner('/calls'))).calls.map((c: { id: string }) => c.id)).toEqual(['c_other00001', 'c_legacy0001']);
      const { clients } = await readJson(await gw.asOwner('/clients'));
      expect(clients.find((c: { name: string }) => c.name === 'legacy')).toMatchObject({ history: 'own', memories: 'all' });
      expect((await readJson(await gw.api('/memory?q=kept', { headers: legacy }))).results).toHaveLength(1);
    } finally {
      await gw.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
