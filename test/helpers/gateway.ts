import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createGateway, loadConfig, type Gateway, type GatewayOptions } from '../../server/index.js';
import type { PincerConfig } from '../../server/config/config.js';

export interface TestGateway {
  gateway: Gateway;
  url: string;
  port: number;
  dataDir: string;
  /** The folder file tools may touch (the gateway's only root), apart from the data directory. */
  workspace: string;
  token: string;
  /** fetch against the gateway with the default client token (override headers to change it). */
  api(path: string, init?: RequestInit & { json?: unknown }): Promise<Response>;
  /** A signed-in owner: the session cookie from a real one-time login link, and the dashboard's Origin. */
  ownerHeaders(): Promise<Record<string, string>>;
  /** A request as the signed-in owner (no client token); a `json` body makes it a POST unless `method` says otherwise. */
  asOwner(path: string, init?: { method?: string; json?: unknown }): Promise<Response>;
  close(): Promise<void>;
}

/** A temp data directory that disappears with the test. */
export function tempDir(prefix = 'pincer-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/**
 * Starts a real gateway on 127.0.0.1:<free port> with a fresh data directory. By default its working directory (and
 * so its only root) is `workspace`; `start.cwd` starts it elsewhere, as `pincer serve` started in that folder would
 * be (`start.home`: the home folder it sees).
 */
export async function startGateway(
  overrides: Partial<PincerConfig> = {},
  options: Omit<GatewayOptions, 'config'> = {},
  start: { cwd?: string; home?: string } = {},
): Promise<TestGateway> {
  const dataDir = overrides.dataDir ?? tempDir();
  const workspace = overrides.roots?.[0] ?? tempDir('pincer-root-');
  const config = {
    ...loadConfig({ flags: { dataDir, port: 0, host: '127.0.0.1' }, env: {}, cwd: start.cwd ?? workspace, ...(start.home && { home: start.home }) }),
    ...overrides,
  };
  const gateway = createGateway({ config, bundledPluginsDir: null, ...options });
  const { url, port } = await gateway.listen();
  const token = gateway.credentials.defaultToken;
  let ownerCookie: string | undefined;

  const api = (path: string, init: RequestInit & { json?: unknown } = {}) => {
    const { json, headers, ...rest } = init;
    return fetch(`${url}${path}`, {
      ...rest,
      headers: {
        authorization: `Bearer ${token}`,
        ...(json !== undefined && { 'content-type': 'application/json' }),
        ...(headers as Record<string, string> | undefined),
      },
      ...(json !== undefined && { body: JSON.stringify(json) }),
    });
  };

  const ownerHeaders = async (): Promise<Record<string, string>> => {
    if (!ownerCookie) {
      const response = await fetch(gateway.loginUrl(), { redirect: 'manual' });
      const setCookie = response.headers.get('set-cookie');
      if (response.status !== 303 || !setCookie) throw new Error(`owner login failed: ${response.status}`);
      ownerCookie = setCookie.split(';')[0]!;
    }
    return { cookie: ownerCookie, origin: url };
  };

  return {
    gateway,
    url,
    port,
    dataDir,
    workspace,
    token,
    api,
    ownerHeaders,
    async asOwner(path, init = {}) {
      return fetch(`${url}${path}`, {
        method: init.method ?? (init.json !== undefined ? 'POST' : 'GET'),
        headers: { ...(await ownerHeaders()), ...(init.json !== undefined && { 'content-type': 'application/json' }) },
        ...(init.json !== undefined && { body: JSON.stringify(init.json) }),
      });
    },
    async close() {
      await gateway.close(1000);
      if (!overrides.dataDir) rmSync(dataDir, { recursive: true, force: true });
      if (overrides.roots?.[0] === undefined) rmSync(workspace, { recursive: true, force: true });
    },
  };
}

/** A response's JSON body; a body that is not JSON fails the test showing what came instead. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function readJson(res: Response): Promise<any> {
  const text = await res.text();
  try {
    return JSON.parse(text);
  } catch {
    throw new Error(`expected JSON, got ${res.status}: ${text.slice(0, 200)}`);
  }
}
