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

/** An entry module defining tools from handler bodies (`args` and `ctx` in scope). */
export function entry(tools: Record<string, { body: string; risk?: string; extra?: string }>, prelude = ''): string {
  const defs = Object.entries(tools).map(
    ([name, t]) => `defineTool({ name: ${JSON.stringify(name)}, description: 'Test tool ${name}.', risk: ${JSON.stringify(t.risk ?? 'safe')},
      parameters: { type: 'object', properties: { text: { type: 'string' } } }, ${t.extra ?? ''}
      handler: async (args, ctx) => { ${t.body} } })`,
  );
  return `import { definePlugin, defineTool } from 'pincer/plugin';\n${prelude}\nexport default definePlugin({ tools: [${defs.join(',\n')}] });\n`;
}
