import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readJson, type TestGateway } from '../../helpers/gateway.js';
import { until } from '../../helpers/wait.js';

/** Writes a plugin folder: plugin.json, package.json (ESM) and the given files. Returns its folder. */
export function writePlugin(
  pluginsDir: string,
  name: string,
  files: Record<string, string>,
  manifest: Record<string, unknown> = {},
): string {
  const dir = join(pluginsDir, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'plugin.json'), JSON.stringify({ name, version: '1.0.0', description: `Test plugin ${name}.`, entry: 'index.js', ...manifest }, null, 2));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module', private: true }));
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(join(dir, file, '..'), { recursive: true });
    writeFileSync(join(dir, file), text);
  }
  return dir;
}

export interface TestTool {
  /** The handler's body, with `args` and `ctx` in scope. */
  body: string;
  risk?: string;
  /** More fields of the tool's definition, as source text ending with a comma. */
  extra?: string;
}

/** An entry module defining tools from handler bodies (`args` and `ctx` in scope). */
export function entry(tools: Record<string, TestTool>, prelude = ''): string {
  const defs = Object.entries(tools).map(
    ([name, t]) => `defineTool({ name: ${JSON.stringify(name)}, description: 'Test tool ${name}.', risk: ${JSON.stringify(t.risk ?? 'safe')},
      parameters: { type: 'object', properties: { text: { type: 'string' } } }, ${t.extra ?? ''}
      handler: async (args, ctx) => { ${t.body} } })`,
  );
  return `import { definePlugin, defineTool } from 'pincer/plugin';\n${prelude}\nexport default definePlugin({ tools: [${defs.join(',\n')}] });\n`;
}

/** The steps plugin tests through a real gateway take: wait for a plugin, install and accept it, call its tools. */
export function pluginSteps(tg: TestGateway) {
  const pluginsDir = join(tg.dataDir, 'plugins');
  const view = (name: string) => tg.gateway.plugins.get(name);
  const settled = (name: string, status?: string) =>
    until(() => {
      const v = view(name);
      return v && v.status !== 'loading' && (status === undefined || v.status === status) && v;
    }, `plugin ${name} to be ${status ?? 'loaded'}`, 30_000);
  /** Writes a plugin (see toolPlugin), waits for it to be seen, accepts it as the owner (over HTTP) and waits for it to settle. */
  const installed = async (name: string, plugin: { files: Record<string, string>; manifest: Record<string, unknown> }) => {
    writePlugin(pluginsDir, name, ...pluginFiles(plugin));
    await tg.gateway.plugins.rescan();
    await settled(name, 'new');
    const accepted = await tg.asOwner(`/plugins/${name}/accept`, { method: 'POST' });
    if (accepted.status !== 200) throw new Error(`accepting ${name} answered ${accepted.status}: ${await accepted.text()}`);
    return settled(name);
  };
  /** Calls a tool as the default client; a tool that asks is approved once by the owner. */
  const call = async (tool: string, args: Record<string, unknown> = {}) => {
    let answered = false;
    const pending = tg.api(`/tools/${tool}/execute`, { method: 'POST', json: args }).finally(() => (answered = true));
    while (!answered) {
      const approval = tg.gateway.approvals.pending().find((a) => a.tool === tool);
      if (approval) {
        tg.gateway.approvals.decide(approval.id, { decision: 'allow_once' }, 'owner');
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const response = await pending;
    return { status: response.status, body: await readJson(response) };
  };
  return { pluginsDir, view, settled, installed, call };
}

/** The manifest's `tools` list declaring these tools as `entry` defines them. */
export function declared(tools: Record<string, { risk?: string }>): { name: string; risk: string }[] {
  return Object.entries(tools).map(([name, t]) => ({ name, risk: t.risk ?? 'safe' }));
}

/** A plugin whose manifest declares the tools its entry defines: the files and the manifest fields for writePlugin. */
export function toolPlugin(tools: Record<string, TestTool>, manifest: Record<string, unknown> = {}, prelude = ''): { files: Record<string, string>; manifest: Record<string, unknown> } {
  return { files: { 'index.js': entry(tools, prelude) }, manifest: { tools: declared(tools), ...manifest } };
}

/** writePlugin's last two arguments from a toolPlugin. */
export function pluginFiles(plugin: { files: Record<string, string>; manifest: Record<string, unknown> }): [Record<string, string>, Record<string, unknown>] {
  return [plugin.files, plugin.manifest];
}
