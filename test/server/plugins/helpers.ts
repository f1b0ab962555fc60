import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

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

/** The manifest's `tools` list declaring these tools as `entry` defines them. */
export function declared(tools: Record<string, { risk?: string }>): { name: string; risk: string }[] {
  return Object.entries(tools).map(([name, t]) => ({ name, risk: t.risk ?? 'safe' }));
}

/** A plugin whose manifest declares the tools its entry defines: the files and the manifest fields for writePlugin. */
export function toolPlugin(tools: Record<string, TestTool>, manifest: Record<string, unknown> = {}, prelude = ''): { files: Record<string, string>; manifest: Record<string, unknown> } {
  return { files: { 'index.js': entry(tools, prelude) }, manifest: { tools: declared(tools), ...manifest } };
}
