import { existsSync, mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { execFile } from 'node:child_process';
import { isAbsolute, join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, freePort, runPincer } from '../../helpers/cli.js';
import { tempDir } from '../../helpers/gateway.js';
import { PACKAGE_ROOT } from '../../../server/version.js';

const run = promisify(execFile);

/** `pincer mcp config`: the JSON to paste, alone on stdout, with a command that starts this very pincer. */
describe('pincer mcp config', () => {
  const dirs: string[] = [];
  const dir = () => {
    const made = tempDir('pincer-mcp-config-');
    dirs.push(made);
    return made;
  };
  afterEach(() => {
    for (const made of dirs.splice(0)) rmSync(made, { recursive: true, force: true });
  });

  it.each([
    ['claude', 'mcpServers'],
    ['cursor', 'mcpServers'],
    ['vscode', 'servers'],
  ])('--client %s: stdout is only {"%s": {"pincer": …}} with an absolute command that exists; the notes are on stderr', async (client, key) => {
    const dataDir = dir();
    const result = await runPincer(['mcp', 'config', '--client', client, '--data-dir', dataDir]);
    expect(result.code).toBe(0);
    const pasted = JSON.parse(result.stdout) as Record<string, Record<string, { command: string; args: string[]; type?: string }>>;
    expect(Object.keys(pasted)).toEqual([key]);
    const server = pasted[key]!.pincer!;
    expect(isAbsolute(server.command) && existsSync(server.command)).toBe(true);
    expect(server.command).toBe(process.execPath);
    expect(server.args).toEqual([join(PACKAGE_ROOT, 'bin', 'pincer.js'), 'mcp', '--data-dir', dataDir]);
    expect(server.type).toBe(client === 'vscode' ? 'stdio' : undefined);
    expect(result.stderr).toMatch(/^Paste this into .+, merging it with any servers already there, then restart the client\.\n$/);
  });

  it('without --client: the mcpServers shape, and the three clients named on stderr', async () => {
    const result = await runPincer(['mcp', 'config', '--data-dir', dir()]);
    expect(result.code).toBe(0);
    expect(Object.keys(JSON.parse(result.stdout) as object)).toEqual(['mcpServers']);
    expect(result.stderr).toContain('--client claude|cursor|vscode');
  });

  it('an unknown client is a usage error naming the three', async () => {
    const result = await runPincer(['mcp', 'config', '--client', 'zed']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe('pincer: --client must be "claude", "cursor" or "vscode", got "zed"\n');
    const typo = await runPincer(['mcp', 'config', '--client', 'claud']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toBe('pincer: --client must be "claude", "cursor" or "vscode", got "claud"; did you mean "claude"?\n');
  });

  it('the printed entry works as a client runs it: from another folder, with a bare environment, it lists the tools', async () => {
    const dataDir = dir();
    const port = await freePort();
    const printed = await runPincer(['mcp', 'config', '--client', 'claude', '--data-dir', dataDir, '--port', String(port)]);
    const entry = (JSON.parse(printed.stdout) as { mcpServers: { pincer: { command: string; args: string[] } } }).mcpServers.pincer;
    expect(entry.args.slice(-2)).toEqual(['--port', String(port)]);
    // The SDK's stdio client passes the child only HOME, PATH and a few more, as Claude Desktop does.
    const transport = new StdioClientTransport({ command: entry.command, args: entry.args, cwd: dir(), stderr: 'ignore' });
    const client = new Client({ name: 'config-check', version: '1.0.0' });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain('calculate');
    } finally {
      await client.close();
    }
  });
});

/** The `pincer` command a checkout offers: `npx pincer` inside it, and the link `npm link` makes, anywhere. */
describe('pincer from a checkout', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const made of dirs.splice(0)) rmSync(made, { recursive: true, force: true });
  });

  it('npx pincer runs the checkout\'s own bin inside the checkout, without a download', async () => {
    const { stdout } = await run('npx', ['--no-install', 'pincer', '--version'], { cwd: PACKAGE_ROOT, timeout: 30_000 });
    expect(stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('a symlink to bin/pincer.js on the PATH (what npm link makes) runs from any folder', async () => {
    const elsewhere = tempDir('pincer-linked-');
    dirs.push(elsewhere);
    mkdirSync(join(elsewhere, 'bin'));
    symlinkSync(BIN, join(elsewhere, 'bin', 'pincer'));
    const { stdout } = await run('pincer', ['--version'], { cwd: elsewhere, env: { ...process.env, PATH: `${join(elsewhere, 'bin')}:${process.env.PATH}` }, timeout: 20_000 });
    expect(stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });
});
