import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { allow, ask, deny, type PolicyDecision, type Subject } from '../../../server/decision.js';
import { GatewayError } from '../../../server/errors.js';
import { EventBus } from '../../../server/events/bus.js';
import { parseNewRule, RuleBook, shownRule, type NewRule, type RuleChange } from '../../../server/policy/rules.js';
import { openStore, type Store } from '../../../server/store/index.js';
import { REDACTED, Redactor } from '../../../server/util/redact.js';
import { tempDir } from '../../helpers/gateway.js';

/**
 * The owner's rules on top of what the analyzers decided, on a real store: which rule matches which call, and each
 * near miss that must not match (a prefix sibling, a folder sibling, a look-alike host, a command with operators).
 */

let dir: string;
let store: Store;
let changes: RuleChange[];
let book: RuleBook;

beforeEach(() => {
  dir = tempDir('pincer-rules-');
  store = openStore(join(dir, 'pincer.db'));
  changes = [];
  const bus = new EventBus();
  bus.on('rules', (change) => changes.push(change));
  book = new RuleBook(store, { events: bus, redactor: new Redactor() });
});

afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

const asks = (subject?: Subject): PolicyDecision => ({ ...ask('risk:sensitive', 'It asks.'), ...(subject && { subject }) });
const allows = (subject?: Subject): PolicyDecision => ({ ...allow('shell:read-only', 'It only reads.'), ...(subject && { subject }) });

function rule(input: Partial<NewRule> & Pick<NewRule, 'scope'>, now?: number) {
  return book.add({ effect: 'allow', tool: 'run_shell', ...input }, 'owner', now);
}

/** What the book makes of a call to `tool` whose analyzer said `base`. */
async function decide(tool: string, base: PolicyDecision, args: Record<string, unknown> = {}, now?: number): Promise<PolicyDecision> {
  return book.apply(tool, args, base, now);
}

describe('which rule wins', () => {
  it('leaves the decision alone when no rule is about the tool', async () => {
    rule({ tool: 'file_write', scope: 'tool' });
    const base = asks();
    expect(await decide('run_shell', base)).toBe(base);
  });

  it('answers a question in advance with an allow rule, naming it', async () => {
    const made = rule({ scope: 'tool' });
    const decided = await decide('run_shell', asks());
    expect(decided).toMatchObject({ decision: 'allow', rule: `rule:${made.id}` });
    expect(decided.reason).toContain('it would otherwise ask: It asks.');
  });

  it('lets a deny rule beat an allow rule for the same call', async () => {
    rule({ scope: 'tool' });
    const denied = rule({ effect: 'deny', scope: 'tool' });
    expect(await decide('run_shell', allows())).toMatchObject({ decision: 'deny', rule: `rule:${denied.id}` });
  });

  it("never widens an analyzer's deny with an allow rule", async () => {
    rule({ tool: '*', scope: 'tool' });
    const base = deny('path:outside-roots', 'Outside the roots.');
    expect(await decide('run_shell', base)).toBe(base);
  });

  it('turns an allow into a question with an ask rule, but never a deny into a question', async () => {
    const asking = rule({ effect: 'ask', scope: 'tool' });
    expect(await decide('run_shell', allows())).toMatchObject({ decision: 'ask', rule: `rule:${asking.id}` });
    expect((await decide('run_shell', deny('shell:catastrophic', 'No.'))).decision).toBe('deny');
  });

  it('applies a "*" rule to every tool', async () => {
    rule({ effect: 'deny', tool: '*', scope: 'tool' });
    for (const tool of ['file_read', 'http_request', 'plugin_tool']) expect((await decide(tool, allows())).decision).toBe('deny');
  });

  it('ignores a rule from its expiry on', async () => {
    const T = Date.parse('2026-12-01T12:00:00Z');
    rule({ scope: 'tool', expires_at: new Date(T).toISOString() });
    expect((await decide('run_shell', asks(), {}, T - 1)).decision).toBe('allow');
    expect((await decide('run_shell', asks(), {}, T)).decision).toBe('ask');
  });
});

describe('exact rules', () => {
  it('match the same arguments in any key order, and nothing else', async () => {
    rule({ tool: 'file_write', scope: 'exact', pattern: { path: 'a.txt', content: 'x' } });
    expect((await decide('file_write', asks(), { content: 'x', path: 'a.txt' })).decision).toBe('allow');
    expect((await decide('file_write', asks(), { content: 'x', path: 'b.txt' })).decision).toBe('ask');
    expect((await decide('file_write', asks(), { content: 'x', path: 'a.txt', append: true })).decision).toBe('ask');
    expect((await decide('file_write', asks(), { path: 'a.txt' })).decision).toBe('ask');
  });
});

describe('prefix rules', () => {
  const shell = (command: string) => asks({ command, path: '/p' });

  it('match the command words they name, followed by anything plain', async () => {
    rule({ scope: 'prefix', pattern: 'git push' });
    for (const command of ['git push', 'git push origin main', '  git   push  --tags ']) {
      expect((await decide('run_shell', shell(command))).decision, command).toBe('allow');
    }
  });

  it.each([
    ['a prefix sibling', 'git pushx origin'],
    ['a shorter command', 'git'],
    ['another subcommand', 'git pull'],
    ['another program', 'gitx push'],
    ['an && chain', 'git push && curl x | sh'],
    ['a ; chain', 'git push; rm -rf ~'],
    ['a pipe', 'git push | tee log'],
    ['a command substitution', 'git push $(whoami)'],
    ['backticks', 'git push `id`'],
    ['a redirection', 'git push > /etc/hosts'],
    ['a newline', 'git push\nrm -rf /'],
    ['a background job', 'git push & curl x'],
  ])('do not match %s', async (_what, command) => {
    rule({ scope: 'prefix', pattern: 'git push' });
    expect((await decide('run_shell', shell(command))).decision).toBe('ask');
  });

  it('do not match a call that carries no command', async () => {
    rule({ scope: 'prefix', pattern: 'git push' });
    expect((await decide('run_shell', asks())).decision).toBe('ask');
  });
});

describe('folder rules', () => {
  it('match the folder and what is inside it, not a sibling whose name starts the same', async () => {
    rule({ tool: 'file_write', scope: 'folder', pattern: '/p/src' });
    expect((await decide('file_write', asks({ path: '/p/src' }))).decision).toBe('allow');
    expect((await decide('file_write', asks({ path: '/p/src/deep/a.ts' }))).decision).toBe('allow');
    expect((await decide('file_write', asks({ path: '/p/src-old/a.ts' }))).decision).toBe('ask');
    expect((await decide('file_write', asks({ path: '/p/srca' }))).decision).toBe('ask');
    expect((await decide('file_write', asks({ path: '/p' }))).decision).toBe('ask');
    expect((await decide('file_write', asks())).decision).toBe('ask');
  });

  it('cover reads outside the roots only when every one is in the folder and the command is otherwise harmless', async () => {
    rule({ scope: 'folder', pattern: '/data' });
    const reading = (paths: string[], extra: Subject = {}) =>
      asks({ command: 'cat', path: '/p', outside: paths.map((path) => ({ path, access: 'read' as const, folder: '/data' })), ...extra });
    expect((await decide('run_shell', reading(['/data/a'], { otherwise: 'allow' }))).decision).toBe('allow');
    expect((await decide('run_shell', reading(['/data/a', '/etc/passwd'], { otherwise: 'allow' }))).decision).toBe('ask');
    expect((await decide('run_shell', reading(['/data-private/a'], { otherwise: 'allow' }))).decision).toBe('ask');
    // Reads /data but would also write in the roots: a grant to read a folder never vouches for the write.
    expect((await decide('run_shell', reading(['/data/a'], { otherwise: 'ask' }))).decision).toBe('ask');
  });

  it('never cover a write outside the roots, even inside the folder', async () => {
    rule({ scope: 'folder', pattern: '/data' });
    const writing = asks({ command: 'cp', path: '/p', otherwise: 'allow', outside: [{ path: '/data/a', access: 'write', folder: '/data' }] });
    expect((await decide('run_shell', writing)).decision).toBe('ask');
  });

  it('as a deny, refuse a command that touches the folder anywhere, from any working folder', async () => {
    rule({ effect: 'deny', scope: 'folder', pattern: '/secret' });
    const touching = allows({ command: 'cat', path: '/p', outside: [{ path: '/secret/key', access: 'read', folder: '/secret' }] });
    expect((await decide('run_shell', touching)).decision).toBe('deny');
    expect((await decide('run_shell', allows({ command: 'ls', path: '/secret/sub' }))).decision).toBe('deny');
    expect((await decide('run_shell', allows({ command: 'ls', path: '/secrets' }))).decision).toBe('allow');
  });
});

describe('host rules', () => {
  it.each([
    ['the host itself', 'api.example.com', 'allow'],
    ['a look-alike ending the same', 'evil-api.example.com', 'ask'],
    ['the host as a subdomain of another', 'api.example.com.evil.net', 'ask'],
    ['a parent domain', 'example.com', 'ask'],
  ])('match %s: %s → %s', async (_what, host, expected) => {
    rule({ tool: 'http_request', scope: 'host', pattern: 'API.Example.com' });
    expect((await decide('http_request', asks({ host }))).decision).toBe(expected);
  });
});

describe('a grant and files a client rewrote', () => {
  it('asks again when a client wrote a file the command runs after the rule was made', async () => {
    const made = Date.parse('2026-12-01T12:00:00Z');
    rule({ scope: 'prefix', pattern: 'make' }, made);
    const written = (at: number): Subject => ({
      command: 'make',
      path: '/p',
      provenance: [{ path: '/p/Makefile', by: 'make', client: 'cursor', tool: 'file_write', call_id: 'c_1', at: new Date(at).toISOString() }],
    });
    expect((await decide('run_shell', asks(written(made - 1)))).decision).toBe('allow');
    const after = await decide('run_shell', asks(written(made + 1)));
    expect(after).toMatchObject({ decision: 'ask', rule: 'provenance:client-written' });
    expect(after.reason).toContain('client "cursor" wrote /p/Makefile after you made the rule');
  });
});

describe('keeping rules', () => {
  it('stores a rule at once: a new book on the same store has it, and it is announced', () => {
    const made = rule({ scope: 'prefix', pattern: ' npm   test ' });
    expect(made.pattern).toBe('npm test');
    expect(new RuleBook(store).list()).toEqual([made]);
    expect(changes).toEqual([{ change: 'added', rule: made }]);
  });

  it('removes a rule and announces it; removing an unknown one changes and announces nothing', async () => {
    const made = rule({ scope: 'tool' });
    expect(book.remove('r_unknown')).toBe(false);
    expect(book.remove(made.id)).toBe(true);
    expect(book.remove(made.id)).toBe(false);
    expect(changes.map((c) => c.change)).toEqual(['added', 'removed']);
    expect(new RuleBook(store).list()).toEqual([]);
    expect((await decide('run_shell', asks())).decision).toBe('ask');
  });

  it('counts the uses of a rule by its decision id, and ignores ids that are not rules', () => {
    const made = rule({ scope: 'tool' });
    book.noteUse(`rule:${made.id}`);
    book.noteUse(`rule:${made.id}`);
    book.noteUse(made.id);
    book.noteUse('approval:a_1');
    expect(book.list()[0]).toMatchObject({ uses: 2 });
    expect(new RuleBook(store).list()[0]?.uses).toBe(2);
    expect(new RuleBook(store).list()[0]?.last_used_at).not.toBeNull();
  });

  it('shows an exact rule with the secrets in its arguments redacted, and matches on its own copy', async () => {
    const made = rule({ tool: 'http_request', scope: 'exact', pattern: { url: 'https://x.test', headers: { authorization: 'Bearer abcdefghijklmnop' } } });
    const shown = shownRule(made, new Redactor());
    expect(shown.pattern).not.toContain('abcdefghijklmnop');
    expect(shown.pattern).toContain(REDACTED);
    expect(made.pattern).toContain('abcdefghijklmnop');
    // The event stream carries the rule as shown, never the secret.
    expect(changes).toEqual([{ change: 'added', rule: shown }]);
    expect((await decide('http_request', asks(), { url: 'https://x.test', headers: { authorization: 'Bearer abcdefghijklmnop' } })).decision).toBe('allow');
  });
});

describe('parseNewRule', () => {
  function problems(body: unknown): string[] {
    let error: unknown;
    try {
      parseNewRule(body);
    } catch (caught) {
      error = caught;
    }
    expect(error, `${JSON.stringify(body)} was accepted`).toBeInstanceOf(GatewayError);
    expect((error as GatewayError).status).toBe(400);
    return ((error as GatewayError).details as { errors: { message: string }[] }).errors.map((e) => e.message);
  }

  it('normalises what it accepts: a folder resolved, a host lower-cased without brackets, an expiry in ISO form', () => {
    expect(parseNewRule({ effect: 'allow', tool: 'file_read', scope: 'folder', pattern: '/a/b/../c' })).toMatchObject({ pattern: '/a/b/../c', note: null, expires_at: null });
    expect(book.add(parseNewRule({ effect: 'allow', tool: 'file_read', scope: 'folder', pattern: '/a/b/../c' }), 'owner').pattern).toBe('/a/c');
    expect(book.add(parseNewRule({ effect: 'deny', tool: 'http_request', scope: 'host', pattern: '[::1]' }), 'owner').pattern).toBe('::1');
    expect(parseNewRule({ effect: 'ask', tool: '*', scope: 'tool', expires_at: '2026-12-01T13:00:00+01:00' }).expires_at).toBe('2026-12-01T12:00:00.000Z');
  });

  it.each([
    ['a prefix rule for another tool', { effect: 'allow', tool: 'file_read', scope: 'prefix', pattern: 'cat' }, 'a prefix rule is for run_shell commands'],
    ['a prefix with operators', { effect: 'allow', tool: 'run_shell', scope: 'prefix', pattern: 'git push; curl x' }, 'pattern must be plain command words'],
    ['an empty prefix', { effect: 'allow', tool: 'run_shell', scope: 'prefix', pattern: '   ' }, 'pattern must be plain command words'],
    ['an exact rule for every tool', { effect: 'allow', tool: '*', scope: 'exact', pattern: {} }, 'an exact rule names one tool'],
    ['an exact rule without arguments', { effect: 'allow', tool: 'file_read', scope: 'exact', pattern: 'a.txt' }, 'an exact rule needs pattern'],
    ['a relative folder', { effect: 'allow', tool: 'file_read', scope: 'folder', pattern: 'src' }, 'an absolute folder path'],
    ['a host with a path', { effect: 'allow', tool: 'http_request', scope: 'host', pattern: 'example.com/x' }, 'a host rule needs pattern'],
    ['an unknown effect', { effect: 'permit', tool: 'x', scope: 'tool' }, 'effect must be one of'],
    ['a bad tool name', { effect: 'allow', tool: 'a b', scope: 'tool' }, 'tool must be a tool name or "*"'],
    ['an unknown scope', { effect: 'allow', tool: 'x', scope: 'all' }, 'scope must be one of'],
    ['a bad expiry', { effect: 'allow', tool: 'x', scope: 'tool', expires_at: 'tomorrow' }, 'expires_at must be an ISO 8601 date-time'],
    ['an unknown field', { effect: 'allow', tool: 'x', scope: 'tool', pattren: 'typo' }, 'unknown field "pattren"'],
  ])('refuses %s', (_what, body, expected) => {
    expect(problems(body).join('; ')).toContain(expected);
  });

  it('refuses a body that is not an object', () => {
    for (const body of [null, [], 'allow']) expect(problems(body)).toContain('send a JSON object');
  });
});
