import { describe, expect, it } from 'vitest';
import { runPincer } from '../../helpers/cli.js';
import { tempDir } from '../../helpers/gateway.js';

/** A mistyped command or subcommand is a usage error (exit 2) that names the command meant, through the real CLI. */

const pincer = (args: string[]) => runPincer(args, { PINCER_HOME: tempDir() });

describe('pincer names the command a typo meant', () => {
  it('"pincer sevre": did you mean "serve"?', async () => {
    const result = await pincer(['sevre']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('pincer: unknown command "sevre"; did you mean "serve"? Run "pincer help" for the list.\n');
  });

  it('guesses nothing for a word close to no command', async () => {
    const result = await pincer(['frobnicate']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('pincer: unknown command "frobnicate". Run "pincer help" for the list.\n');
  });

  it.each([
    [['plugin', 'acept', 'greeter'], 'plugin accept'],
    [['mcp-servers', 'ad', 'files', '--', 'node', 'server.js'], 'mcp-servers add'],
    [['memory', 'serch', 'notes'], 'memory search'],
    [['token', 'craete', 'editor'], 'token create'],
    [['roots', 'rmove', '/tmp'], 'roots remove'],
    [['clients', 'budgte', 'editor', '5'], 'clients budget'],
  ])('"pincer %j": did you mean "%s"?, before the usage', async (args, meant) => {
    const result = await pincer(args);
    expect(result.code).toBe(2);
    const [first, ...rest] = result.stderr.trim().split('\n');
    expect(first).toMatch(new RegExp(`^pincer: unknown command "${args[0]} ${args[1]}"; did you mean "${meant}"\\? "pincer ${args[0]}" takes `));
    expect(rest.join('\n')).toMatch(/usage|pincer/);
  });

  it('leaves a known subcommand with a bad line to its own usage message', async () => {
    const result = await pincer(['plugin', 'accept']);
    expect(result.code).toBe(2);
    expect(result.stderr).not.toContain('unknown command');
  });
});
