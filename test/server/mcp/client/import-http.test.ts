import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../../../helpers/gateway.js';
import { until } from '../../../helpers/wait.js';

/**
 * An MCP server reached over Streamable HTTP with a token: one gateway imports another's tools from its /mcp (both
 * on loopback), and they run through the importing gateway's pipeline and then the other's.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

let upstream: TestGateway;
let gateway: TestGateway;

beforeAll(async () => {
  upstream = await startGateway();
  gateway = await startGateway({ mcpServers: { up: { url: `${upstream.url}/mcp`, token: upstream.token }, wrong: { url: `${upstream.url}/mcp`, token: 'not-the-token' } } }, { loadPlugins: true, mcpBackoffMs: [60_000] });
});
afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

describe('an MCP server over Streamable HTTP', () => {
  it('imports its tools and calls them through both pipelines', async () => {
    const view = await until(async () => {
      const server = (await (await gateway.api('/mcp-servers/up')).json()) as Json;
      return server.status === 'running' && server;
    }, 'the HTTP server running');
    expect(view).toMatchObject({ transport: 'http', server_info: { name: 'pincer' } });
    expect(view.tools.find((t: Json) => t.name === 'calculate')).toMatchObject({ imported_as: 'up__calculate', status: 'active', risk: 'sensitive' });
    // The token is the owner's secret: a client never sees the target.
    expect(view.target).toBeNull();

    await gateway.asOwner('/mcp-servers/up/accept', { json: { tools: ['calculate'], risk: 'safe' } });
    const answer = (await (await gateway.api('/tools/up__calculate/execute', { method: 'POST', json: { expression: '6*7' } })).json()) as Json;
    expect(answer).toMatchObject({ success: true, result: { result: 42 } });
    const upstreamCall = (await (await upstream.api('/calls?tool=calculate')).json()) as Json;
    expect(upstreamCall.calls[0]).toMatchObject({ client: 'default', via: 'mcp (pincer)', status: 'succeeded' });
  });

  it('fails a server whose token is refused, and says why', async () => {
    const wrong = await until(async () => {
      const server = (await (await gateway.api('/mcp-servers/wrong')).json()) as Json;
      return server.last_error && server;
    }, 'the refused server to report');
    expect(wrong.status).not.toBe('running');
    expect(wrong.last_error).toMatch(/could not start/);
  });
});
