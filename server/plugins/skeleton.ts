import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PLUGIN_NAME_PATTERN } from './manifest.js';
import type { DeclaredTool } from './protocol.js';

/**
 * `pincer plugin new <name>`: a plugin that loads as it is — manifest, entry with one example tool, and a test
 * that `node --test` runs. Returns the folder and the example tool as the plugin declares it (what the owner
 * accepts, since the owner wrote it).
 */
export function writeSkeleton(pluginsDir: string, name: string): { dir: string; tools: DeclaredTool[] } {
  if (!PLUGIN_NAME_PATTERN.test(name)) throw new Error(`"${name}" cannot name a plugin: use 1–40 lower-case letters, digits, "-" or "_"`);
  const dir = join(pluginsDir, name);
  if (existsSync(dir)) throw new Error(`${dir} already exists; choose another name or remove it first`);
  const tool: DeclaredTool = {
    name: `${name.replace(/-/g, '_')}_greet`,
    description: 'Greets someone by name, in English or French. Use it to try this plugin; it returns {"greeting": "…"}.',
    parameters: {
      type: 'object',
      properties: {
        name: { type: 'string', minLength: 1, maxLength: 100, description: 'Who to greet.' },
        language: { type: 'string', enum: ['en', 'fr'], description: 'Default en.' },
      },
      required: ['name'],
      additionalProperties: false,
    },
    risk: 'safe',
    annotations: { title: 'Greet', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  };
  mkdirSync(dir, { recursive: true });
  const files: Record<string, string> = {
    // Its tools are declared here too: the owner accepts a plugin by what its manifest says, before its code runs.
    'plugin.json': `${JSON.stringify(
      {
        name,
        version: '0.1.0',
        description: `The ${name} plugin.`,
        entry: 'index.js',
        permissions: { hosts: [] },
        tools: [{ name: tool.name, risk: tool.risk, description: tool.description }],
      },
      null,
      2,
    )}\n`,
    'package.json': `${JSON.stringify({ name: `pincer-plugin-${name}`, private: true, type: 'module', scripts: { test: 'node --test' } }, null, 2)}\n`,
    'index.js': `// @ts-check
import { definePlugin, defineTool } from 'pincer/plugin';

const greetings = { en: 'Hello', fr: 'Bonjour' };

/** The example tool: change it, or add more to the list below. Pincer reloads the plugin when you save. */
export const greet = defineTool({
  // What the tool is, as models and the owner see it.
  ...${JSON.stringify(tool, null, 2).replace(/\n/g, '\n  ')},
  /** @param {{ name: string, language?: 'en' | 'fr' }} args */
  handler: async (args, ctx) => {
    ctx.logger.debug(\`greeting \${args.name}\`);
    return { greeting: \`\${greetings[args.language ?? 'en']}, \${args.name}!\` };
  },
});

export default definePlugin({ tools: [greet] });
`,
    'index.test.js': `import assert from 'node:assert/strict';
import { test } from 'node:test';
import plugin, { greet } from './index.js';

const ctx = {
  signal: new AbortController().signal,
  callId: 'test',
  client: 'test',
  config: {},
  logger: { debug() {}, info() {}, warn() {}, error() {} },
  http: { fetch: async () => { throw new Error('no network in tests'); } },
};

test('the plugin defines its tool', () => {
  assert.deepEqual(plugin.tools.map((t) => t.name), [${JSON.stringify(tool.name)}]);
});

test('greets in English by default, and in French', async () => {
  const { handler } = greet;
  assert.deepEqual(await handler({ name: 'Ada' }, ctx), { greeting: 'Hello, Ada!' });
  assert.deepEqual(await handler({ name: 'Ada', language: 'fr' }, ctx), { greeting: 'Bonjour, Ada!' });
});
`,
    'README.md': `# ${name}

A Pincer plugin. \`index.js\` defines its tools with \`definePlugin\` and \`defineTool\` from \`pincer/plugin\`;
\`plugin.json\` says what it is, what it may reach (\`permissions.hosts\`, \`read\`, \`write\`) and which tools it
defines (\`tools\`: each tool's name and risk; add a tool there when you add one to \`index.js\`). Run its tests with
\`npm test\` (or \`node --test\`) in this folder. Pincer reloads the plugin when a file changes; once a file changes,
none of its code runs and its tools stay off until you accept it again (\`pincer plugin accept ${name}\`).
`,
  };
  for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, file), text);
  return { dir, tools: [tool] };
}
