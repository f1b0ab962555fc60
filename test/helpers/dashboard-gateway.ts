import { rmSync } from 'node:fs';
import type { PincerConfig } from '../../server/config/config.js';
import type { CallRecord } from '../../server/store/index.js';
import { finishedCall } from './calls.js';
import { startStubLlm, type StubLlm } from '../server/llm/stub-llm.js';
import type { DashboardGateway, LlmScript } from './dashboard-gateway-types.js';
import { startGateway, tempDir, type TestGateway } from './gateway.js';

/**
 * A real gateway for the dashboard's state tests, with a signed-in owner, that can be stopped and started again on
 * the same port and data directory (the owner's session survives, as it does across a restart of `pincer serve`).
 * Its type is plain data and functions, so the dashboard's tests (checked with the browser's types) never see the
 * server's modules.
 */
export async function startDashboardGateway(overrides: Partial<PincerConfig> = {}, options: { llm?: LlmScript } = {}): Promise<DashboardGateway> {
  const dataDir = tempDir();
  const workspace = tempDir('pincer-root-');
  // The model is the one part from outside: a stub server speaking Ollama's API answers as the script says.
  const llm: StubLlm | undefined = options.llm ? await startStubLlm(options.llm) : undefined;
  const llmConfig = llm && { llm: { baseUrl: llm.url, model: 'stub-model', api: 'ollama' as const } };
  const start = (port = 0) =>
    startGateway({ ...overrides, ...llmConfig, dataDir, roots: [workspace], ...(port !== 0 && { port }) }, { llm: { upstream: { retries: 0, backoffMs: 5, idleTimeoutMs: 30_000 } } });
  let gateway: TestGateway | undefined = await start();
  const { url, port } = gateway;
  const ownerCookie = (await gateway.ownerHeaders()).cookie!;
  const current = () => {
    if (!gateway) throw new Error('the gateway is stopped');
    return gateway;
  };
  return {
    url,
    port,
    workspace,
    dataDir,
    token: gateway.token,
    ownerCookie,
    api: (path, init) => current().api(path, init),
    asOwner: (path, init) => current().asOwner(path, init),
    viewers: () => current().gateway.streams.stats().viewers,
    saveCalls(calls) {
      const store = current().gateway.store;
      for (const { id, started_at, ...fields } of calls) store.calls.save(finishedCall(id, started_at, fields as Partial<CallRecord>));
    },
    async stop() {
      await gateway?.close();
      gateway = undefined;
    },
    async start() {
      gateway ??= await start(port);
    },
    async close() {
      await gateway?.close();
      gateway = undefined;
      await llm?.close();
      rmSync(dataDir, { recursive: true, force: true });
      rmSync(workspace, { recursive: true, force: true });
    },
  };
}
