import { execFileSync } from 'node:child_process';
import { linkSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ShellAnalyzer } from '../../../../server/security/shell/analyzer.js';
import { parseGitConfig } from '../../../../server/security/shell/git-config.js';

/**
 * Where a command's paths really lead, on a real disk: a root with a link to a folder outside it and a link into
 * the data folder, a home folder, and git repositories with hostile settings. Nothing here is run; every command is
 * only parsed and judged. Harmless controls sit beside the attacks so that an analyzer that refuses everything fails.
 */

let base: string;
let root: string;
let outside: string;
let data: string;
let home: string;
let analyzer: ShellAnalyzer;

function git(cwd: string, ...args: string[]): void {
  execFileSync('git', args, { cwd, stdio: 'ignore', env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', HOME: home } });
}

beforeAll(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'pincer-shell-outside-')));
  root = join(base, 'root');
  outside = join(base, 'outside');
  data = join(base, 'data');
  home = join(base, 'home');
  for (const dir of [root, join(root, 'src'), outside, join(outside, 'deeper'), data, home, join(home, '.ssh')]) mkdirSync(dir, { recursive: true });
  writeFileSync(join(root, 'README.md'), '# app');
  writeFileSync(join(root, 'a.txt'), 'a');
  writeFileSync(join(outside, 'notes.txt'), 'outside notes');
  writeFileSync(join(data, 'token'), 'secret-token');
  symlinkSync(outside, join(root, 'docs-link'));
  symlinkSync(data, join(root, 'data-link'));
  symlinkSync(join(root, 'src'), join(root, 'src-link'));
  // A second name inside the root for the data folder's token: the sandbox cannot tell the two names apart.
  linkSync(join(data, 'token'), join(root, 'notes-copy.txt'));
  analyzer = new ShellAnalyzer({ protectedPaths: [data], roots: [root], home });
});

afterAll(() => rmSync(base, { recursive: true, force: true }));

async function judge(command: string, cwd = root) {
  const verdict = await analyzer.analyze(command, cwd);
  return { decision: verdict.decision, rule: verdict.rule, reason: verdict.reason, subject: verdict.subject };
}

// ---------------------------------------------------------------------------------------------------------------

describe('read-only commands that read outside the roots ask, naming the path', () => {
  const cases: Array<[string, string]> = [
    ['cat /etc/passwd', '/etc/passwd'],
    ['cat ~/Documents/tax.pdf', '{home}/Documents/tax.pdf'],
    ['grep -r password /srv', '/srv'],
    ['find / -name id_rsa', 'would read /,'],
    ['cat {outside}/notes.txt', '{outside}/notes.txt'],
    ['cat ../outside/notes.txt', '{outside}/notes.txt'],
    ['cat < {outside}/notes.txt', '{outside}/notes.txt'],
    ['cat "$HOME/notes"', '{home}/notes'],
    ['head -n 5 {outside}/notes.txt', '{outside}/notes.txt'],
    ['grep -f {outside}/notes.txt README.md', '{outside}/notes.txt'],
    ['grep --file={outside}/notes.txt README.md', '{outside}/notes.txt'],
    ['ls -R {outside}', '{outside}'],
    ['wc -l {outside}/*', '{outside}/'],
    ['cd {outside} && cat notes.txt', '{outside}'],
    ['cd .. && ls', '{base}'],
    ['timeout 5 cat /etc/passwd', '/etc/passwd'],
    ['sort /etc/passwd | uniq', '/etc/passwd'],
    ['diff README.md {outside}/notes.txt', '{outside}/notes.txt'],
    ['git -C {outside} log', '{outside}'],
    ['git diff --no-index README.md {outside}/notes.txt', '{outside}/notes.txt'],
    ['find . -newer {outside}/notes.txt', '{outside}/notes.txt'],
    ['tail -f /var/log/syslog', '/var/log/syslog'],
    ['date -r {outside}/notes.txt', '{outside}/notes.txt'],
    ['jq . {outside}/notes.txt', '{outside}/notes.txt'],
    ['awk "{print}" {outside}/notes.txt', '{outside}/notes.txt'],
    ['sed -n 1p {outside}/notes.txt', '{outside}/notes.txt'],
  ];
  it.each(cases)('%s', async (command, named) => {
    const fill = (s: string) => s.replaceAll('{outside}', outside).replaceAll('{home}', home).replaceAll('{base}', base);
    const verdict = await judge(fill(command));
    expect([verdict.decision, verdict.rule]).toEqual(['ask', 'shell:outside-roots']);
    expect(verdict.reason).toContain(fill(named));
    expect(verdict.reason).toMatch(/outside the folders Pincer may use/);
  });
});

describe('symbolic links are followed the way the kernel follows them', () => {
  it('a link inside a root to a folder outside reads outside (cat docs-link/notes.txt)', async () => {
    const verdict = await judge('cat docs-link/notes.txt');
    expect([verdict.decision, verdict.rule]).toEqual(['ask', 'shell:outside-roots']);
    expect(verdict.reason).toContain(join(outside, 'notes.txt'));
    expect(verdict.subject?.outside).toEqual([{ path: join(outside, 'notes.txt'), access: 'read', folder: outside }]);
  });

  it('the link itself named as an operand reads outside (ls docs-link)', async () => {
    expect((await judge('ls docs-link')).rule).toBe('shell:outside-roots');
  });

  it('a glob that matches the link reads outside (cat */notes.txt)', async () => {
    expect((await judge('cat */notes.txt')).rule).toBe('shell:outside-roots');
  });

  it('`..` after a link climbs from the real folder (cat docs-link/../outside/notes.txt)', async () => {
    expect((await judge('cat docs-link/../outside/notes.txt')).rule).toBe('shell:outside-roots');
  });

  it('a link that stays inside the root is harmless (cat src-link/x.ts)', async () => {
    expect((await judge('cat src-link/x.ts')).decision).toBe('allow');
  });

  it('grep -R follows links inside the folder it searches, so it asks; grep -r does not, so it runs', async () => {
    const follow = await judge('grep -R notes src docs-link/..');
    expect(follow.decision).toBe('ask');
    const noFollowRoot = mkdtempSync(join(base, 'r2-'));
    symlinkSync(outside, join(noFollowRoot, 'link'));
    const scoped = new ShellAnalyzer({ protectedPaths: [data], roots: [noFollowRoot], home });
    expect((await scoped.analyze('grep -R notes .', noFollowRoot)).rule).toBe('shell:outside-roots');
    expect((await scoped.analyze('find -L . -name x', noFollowRoot)).rule).toBe('shell:outside-roots');
    expect((await scoped.analyze('rg --follow notes', noFollowRoot)).rule).toBe('shell:outside-roots');
    expect((await scoped.analyze('grep -r notes .', noFollowRoot)).decision).toBe('allow');
    expect((await scoped.analyze('find . -name x', noFollowRoot)).decision).toBe('allow');
  });
});

describe("Pincer's data folder is refused, through a link as well", () => {
  it.each([
    'cat data-link/token',
    'ls data-link',
    'cat {data}/token',
    'cat < data-link/token',
    'head -c 10 data-*/tok*',
  ])('%s', async (command) => {
    const verdict = await judge(command.replaceAll('{data}', data));
    expect([verdict.decision, verdict.rule]).toEqual(['deny', 'shell:pincer-data']);
  });

  it('grep -R through a root holding a link into the data folder is refused', async () => {
    expect((await judge('grep -R token .')).rule).toBe('shell:pincer-data');
  });
});

describe('known secrets keep their stronger rule', () => {
  it.each(['cat ~/.ssh/id_rsa', 'cat /etc/shadow', 'head ~/.aws/credentials'])('%s', async (command) => {
    expect((await judge(command)).rule).toBe('shell:secret-read');
  });
});

describe('harmless reads stay allowed without a prompt', () => {
  it.each([
    'ls', 'ls -la', 'ls -R', 'cat README.md', 'head -5 README.md', 'tail -n 3 README.md', 'wc -l *.md', 'grep -rn TODO .',
    'grep -E "^/api" README.md', 'grep -e /usr README.md', 'find . -name "*.md"', 'diff README.md a.txt', 'date', 'date +%F',
    'uname -a', 'cat /proc/cpuinfo', 'cat /etc/os-release', 'ls /usr/bin', 'which git', 'echo /etc/passwd', 'printf "%s\\n" /root',
    'sort a.txt | uniq -c', 'cut -d / -f1 a.txt', 'cut -d: -f1 a.txt', 'tr / _ < a.txt', 'du -sh .', 'tree', 'stat README.md',
    'jq .name README.md', 'awk -F/ "{print \\$1}" a.txt', 'sed -n 1p a.txt', 'cd src && ls', 'cat /dev/null', 'df -h /',
    'git log --oneline -5', 'git status', 'git diff', 'test -f README.md', 'basename /etc/passwd', 'realpath a.txt',
    'head -c 16 /dev/urandom | od -x',
  ])('%s', async (command) => {
    const verdict = await judge(command);
    expect({ command, decision: verdict.decision, rule: verdict.rule }).toEqual({ command, decision: 'allow', rule: 'shell:read-only' });
    expect(verdict.subject?.outside).toEqual([]);
  });
});

describe('the verdict says what a folder grant would cover', () => {
  it('a plain read outside: the folder, and "otherwise allow"', async () => {
    const verdict = await judge(`cat ${outside}/notes.txt`);
    expect(verdict.subject).toMatchObject({ otherwise: 'allow', outside: [{ path: join(outside, 'notes.txt'), folder: outside }] });
  });

  it('a read outside that also writes: "otherwise ask", so a folder grant does not cover the write', async () => {
    const verdict = await judge(`cat ${outside}/notes.txt > copy.txt`);
    expect(verdict.subject?.otherwise).toBe('ask');
  });

  it('a read outside piped into a shell: "otherwise ask"', async () => {
    expect((await judge(`cat ${outside}/notes.txt | sh`)).subject?.otherwise).toBe('ask');
  });
});

// ---------------------------------------------------------------------------------------------------------------

describe('writes to the system trust files are denied, not asked', () => {
  it.each([
    'echo "evil ALL=(ALL) NOPASSWD: ALL" >> /etc/sudoers',
    'echo x > /etc/sudoers.d/evil',
    'echo "1.2.3.4 bank.example" >> /etc/hosts',
    'echo root2::0:0::/root:/bin/sh >> /etc/passwd',
    'cat key.pub >> ~/.ssh/authorized_keys',
    'tee -a ~/.ssh/authorized_keys < key.pub',
    'cat x | sudo tee -a /etc/sudoers',
    'doas tee /etc/shadow < x',
    'cp evil /etc/pam.d/sshd',
    'cp authorized_keys ~/.ssh/',
    'mv x /etc/systemd/system/evil.service',
    'cp evil.service ~/.config/systemd/user/',
    'install -m 644 unit /lib/systemd/system/evil.service',
    'ln -sf /tmp/x /etc/passwd',
    "sed -i 's/x/y/' /etc/shadow",
    'sudo sed -i s/a/b/ /etc/sudoers',
    'dd if=x of=/etc/passwd',
    'truncate -s 0 /etc/hosts',
    'echo "* * * * * sh x" > /etc/cron.d/evil',
    'crontab evil.cron',
    'echo "* * * * * x" | crontab -',
    'useradd -o -u 0 evil',
    'passwd root',
    'visudo',
    'cd /etc && echo x >> hosts',
    'chmod 777 /etc/shadow',
  ])('%s', async (command) => {
    const verdict = await judge(command);
    expect([verdict.decision, verdict.rule]).toEqual(['deny', 'shell:catastrophic:trust-file-write']);
    expect(verdict.reason).toMatch(/even with approval/);
  });

  it('writing through a link inside the root that points at a trust file is denied', async () => {
    const linkRoot = mkdtempSync(join(base, 'r3-'));
    symlinkSync('/etc/hosts', join(linkRoot, 'hosts-link'));
    const scoped = new ShellAnalyzer({ protectedPaths: [data], roots: [linkRoot], home });
    expect((await scoped.analyze('echo x >> hosts-link', linkRoot)).rule).toBe('shell:catastrophic:trust-file-write');
  });

  it('reading them keeps its own rule', async () => {
    expect((await judge('cat /etc/sudoers')).rule).toBe('shell:secret-read');
    expect((await judge('cat /etc/hosts')).rule).toBe('shell:outside-roots');
    expect((await judge('crontab -l')).decision).toBe('ask');
  });

  it('ordinary writes inside the root still only ask', async () => {
    expect(await judge('echo x > notes.txt')).toMatchObject({ decision: 'ask', rule: 'shell:write-redirect' });
    expect(await judge('cp a.txt b.txt')).toMatchObject({ decision: 'ask', rule: 'shell:modifies-files' });
  });
});

describe('wrappers do not hide a catastrophe', () => {
  it.each([
    ['find ~ -exec rm -rf {} +', 'shell:catastrophic:wipe-home'],
    ['find ~ -exec rm -rf {} \\;', 'shell:catastrophic:wipe-home'],
    ['find / -delete', 'shell:catastrophic:wipe-root'],
    ['sudo find / -delete', 'shell:catastrophic:wipe-root'],
    ['echo ~ | xargs rm -rf', 'shell:catastrophic:wipe-home'],
    ['echo / | xargs rm -rf', 'shell:catastrophic:wipe-root'],
    ['printf "/\\n" | xargs -I{} rm -rf {}', 'shell:catastrophic:wipe-root'],
    ['find ~ | xargs rm -rf', 'shell:catastrophic:wipe-home'],
    ['find / -maxdepth 0 | sudo xargs rm -rf', 'shell:catastrophic:wipe-root'],
    ['doas rm -rf /', 'shell:catastrophic:wipe-root'],
    ['sudo -u root rm -rf ~', 'shell:catastrophic:wipe-home'],
  ])('%s', async (command, rule) => {
    expect(await judge(command)).toMatchObject({ decision: 'deny', rule });
  });

  it('a filtered find piped into rm asks (it does not wipe the folder)', async () => {
    expect((await judge("find . -name '*.bak' | xargs rm -f", join(root, 'src'))).decision).toBe('ask');
  });
});

// ---------------------------------------------------------------------------------------------------------------

describe('look-alike paths are denied when their normal form leaves the roots', () => {
  it.each([
    'cat ．．／．．／etc/passwd',
    'cat ..／..／etc/passwd',
    'cat ．．/outside/notes.txt',
    'ls ∕etc',
    'cat ..∕..∕etc∕passwd',
    'cat data-link／token',
    'echo x > ．．／x',
    'cd ．． && ls',
  ])('%s', async (command) => {
    expect(await judge(command)).toMatchObject({ decision: 'deny', rule: 'shell:lookalike-path' });
  });

  it('look-alikes that stay inside the root keep their normal verdict', async () => {
    expect((await judge('cat src／index.ts')).decision).toBe('allow');
    expect((await judge('echo 你好。')).decision).toBe('allow');
  });
});

// ---------------------------------------------------------------------------------------------------------------

describe("a repository's own settings that run programs make git ask, naming the setting", () => {
  const hostile: Array<[string, string]> = [
    ['core.fsmonitor', 'touch /tmp/pwned'],
    ['core.pager', 'sh -c x'],
    ['diff.external', '/tmp/x.sh'],
    ['diff.evil.textconv', 'sh -c x'],
    ['filter.evil.clean', 'sh -c x'],
    ['filter.evil.process', 'x'],
    ['core.sshCommand', 'x'],
    ['gpg.program', 'x'],
    ['alias.st', '!sh -c x'],
    ['include.path', '../other.conf'],
    ['includeIf.gitdir:/.path', '/tmp/evil.conf'],
    ['core.hooksPath', '/tmp/hooks'],
  ];

  it.each(hostile)('%s', async (key, value) => {
    const repo = mkdtempSync(join(root, 'repo-'));
    git(repo, 'init', '-q');
    git(repo, 'config', key, value);
    for (const command of ['git status', 'git log --oneline', 'git diff']) {
      const verdict = await judge(command, repo);
      expect({ command, decision: verdict.decision, rule: verdict.rule }).toEqual({ command, decision: 'ask', rule: 'shell:git-config' });
      expect(verdict.reason.toLowerCase()).toContain(key.toLowerCase());
    }
  });

  it('the setting is found from a subfolder, through `git -C`, and through a `.git` file', async () => {
    const repo = mkdtempSync(join(root, 'repo-'));
    git(repo, 'init', '-q');
    git(repo, 'config', 'core.fsmonitor', 'touch x');
    mkdirSync(join(repo, 'sub'));
    expect((await judge('git status', join(repo, 'sub'))).rule).toBe('shell:git-config');
    expect((await judge(`git -C ${repo} status`)).rule).toBe('shell:git-config');
    const worktree = mkdtempSync(join(root, 'wt-'));
    writeFileSync(join(worktree, '.git'), `gitdir: ${join(repo, '.git')}\n`);
    expect((await judge('git status', worktree)).rule).toBe('shell:git-config');
    expect((await judge(`cd ${repo} && git status`)).rule).toBe('shell:git-config');
  });

  it('`git -C a -C b` is judged in a/b, where git runs: each -C is taken from the one before it', async () => {
    const parent = mkdtempSync(join(root, 'chain-'));
    const repo = join(parent, 'evil');
    mkdirSync(repo);
    git(repo, 'init', '-q');
    git(repo, 'config', 'diff.external', 'sh p.sh; :');
    // Judged one by one, `sub` and `evil` from the working folder were looked at, neither of them the repository.
    const relative = parent.slice(root.length + 1);
    expect((await judge(`git -C ${relative} -C evil diff --no-index a.txt b.txt`, root)).rule).toBe('shell:git-config');
    expect((await judge(`git -C ${parent} -C evil status`)).rule).toBe('shell:git-config');
    expect((await judge(`git -C /nowhere -C ${repo} status`)).rule).toBe('shell:git-config');
    // A folder known only when the command runs is not guessed at.
    expect((await judge('d=$(cat name); git -C "$d" status', root)).decision).toBe('ask');
    // Controls: a chain that ends in a clean repository stays allowed.
    const clean = join(parent, 'clean');
    mkdirSync(clean);
    git(clean, 'init', '-q');
    expect((await judge(`git -C ${parent} -C clean status`)).decision).toBe('allow');
  });

  it('a named pipe where a repository keeps its settings does not hold the check (nor the gateway)', async () => {
    const repo = mkdtempSync(join(root, 'fifo-'));
    git(repo, 'init', '-q');
    rmSync(join(repo, '.git', 'config'));
    execFileSync('mkfifo', [join(repo, '.git', 'config')]);
    // Read as before, the check waited for a writer for ever (the test's own time limit ends it).
    expect((await judge('git status', repo)).decision).toBe('allow');
  });

  it('a clean repository, and harmless settings (user.name, core.fsmonitor=false), stay allowed', async () => {
    const repo = mkdtempSync(join(root, 'repo-'));
    git(repo, 'init', '-q');
    git(repo, 'config', 'user.name', 'A');
    git(repo, 'config', 'core.fsmonitor', 'false');
    git(repo, 'config', 'alias.st', 'status');
    expect((await judge('git status', repo)).decision).toBe('allow');
    expect((await judge('git log --oneline', repo)).decision).toBe('allow');
  });

  it('parses git config as git does: subsections keep their case, comments and quotes drop', () => {
    expect(parseGitConfig('[Core]\n\tFSMonitor = "a b" # c\n[diff "Evil"]\ntextconv=x\n[alias] st\n')).toEqual([
      { key: 'core.fsmonitor', value: 'a b' },
      { key: 'diff.Evil.textconv', value: 'x' },
      { key: 'alias.st', value: 'true' },
    ]);
  });
});

// ---------------------------------------------------------------------------------------------------------------

describe('holes a red-team pass found, each closed', () => {
  function scopedRoot(links: Record<string, string>, files: Record<string, string> = {}) {
    const dir = mkdtempSync(join(base, 'hole-'));
    for (const [name, to] of Object.entries(links)) {
      mkdirSync(join(dir, name, '..'), { recursive: true });
      symlinkSync(to, join(dir, name));
    }
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
    return { dir, analyzer: new ShellAnalyzer({ protectedPaths: [data], roots: [dir], home }) };
  }

  it('grep -R reports every link that leads out, and a link into the data folder among them is refused', async () => {
    const elsewhere = mkdtempSync(join(base, 'elsewhere-'));
    const { dir, analyzer: scoped } = scopedRoot({ 'docs-link': outside, 'else-link': elsewhere });
    const verdict = await scoped.analyze('grep -R x .', dir);
    expect(verdict.subject?.outside?.map((p) => p.path).sort()).toEqual([outside, elsewhere].sort());
    const withData = scopedRoot({ 'docs-link': outside, 'sub/data-link': data });
    expect((await withData.analyzer.analyze('grep -R . .', withData.dir)).rule).toBe('shell:pincer-data');
  });

  it('a command that opens the names a listing printed is judged by the links under that folder', async () => {
    const { dir, analyzer: scoped } = scopedRoot({ 'tok.md': join(data, 'token'), 'note.md': join(outside, 'notes.txt') });
    expect((await scoped.analyze("find . -name '*.md' | xargs cat", dir)).rule).toBe('shell:pincer-data');
    expect((await scoped.analyze('ls | xargs cat', dir)).rule).toBe('shell:pincer-data');
    const plain = scopedRoot({}, { 'a.md': 'a' });
    expect((await plain.analyzer.analyze("find . -name '*.md' | xargs wc -l", plain.dir)).decision).toBe('allow');
  });

  it('xargs reading its names from a file asks (xargs -a FILE, xargs … < FILE)', async () => {
    expect((await judge(`xargs -a ${outside}/notes.txt echo`)).rule).toBe('shell:outside-roots');
    expect((await judge('xargs -a README.md cat')).rule).toBe('shell:dynamic-argument');
    expect((await judge('xargs cat < README.md')).rule).toBe('shell:dynamic-argument');
    expect((await judge('while read -r l; do echo "$l"; done < README.md')).decision).toBe('allow');
  });

  it('a bare repository inside a root is a repository: its hostile settings make git ask', async () => {
    const bare = join(mkdtempSync(join(root, 'bare-')), 'vendor.git');
    git(root, 'init', '-q', '--bare', bare);
    git(bare, 'config', 'diff.evil.textconv', 'touch x');
    expect((await judge(`git -C ${bare} show`)).rule).toBe('shell:git-config');
    expect((await judge('git log -p', bare)).rule).toBe('shell:git-config');
  });

  it('bracket and ? globs are expanded: /et[c]/shadow is the secret it names, /etc/h[o]sts the trust file', async () => {
    expect((await judge('cat /et[c]/shadow')).rule).toBe('shell:secret-read');
    expect((await judge('cat /et[c]/hostname')).decision).toBe('allow');
    expect((await judge('tee /etc/h[o]sts')).rule).toBe('shell:catastrophic:trust-file-write');
    expect((await judge('echo x > /etc/hos*')).rule).toBe('shell:catastrophic:trust-file-write');
    expect((await judge('cp x /etc/sudoer?')).rule).toBe('shell:catastrophic:trust-file-write');
  });

  it('a bare * is not a name of a data folder called pincer-something', async () => {
    const named = join(base, 'pincer-data');
    mkdirSync(named, { recursive: true });
    const scoped = new ShellAnalyzer({ protectedPaths: [named], roots: [root], home });
    for (const command of ['ls src/*', 'cat *', 'echo *', 'ls -d */']) {
      expect((await scoped.analyze(command, root)).rule, command).not.toBe('shell:pincer-data');
    }
    expect((await scoped.analyze(`cat ${base}/pinc*-data/token`, root)).rule).toBe('shell:pincer-data');
  });

  it('~user is the home folder the user database names', async () => {
    expect((await judge('cat ~root/.bashrc')).reason).toContain('/root/.bashrc');
  });

  it('a look-alike path after = is denied too', async () => {
    expect((await judge('grep --file=．．／．．／etc/passwd README.md')).rule).toBe('shell:lookalike-path');
  });

  it('in-place editors other than sed are writers too (perl -pi, gawk -i inplace)', async () => {
    expect((await judge("perl -pi -e 's/a/b/' /etc/hosts")).rule).toBe('shell:catastrophic:trust-file-write');
    expect((await judge("gawk -i inplace '{print}' /etc/hosts")).rule).toBe('shell:catastrophic:trust-file-write');
  });
});

describe('what an approved command may reach, for the OS sandbox', () => {
  it('a read outside: known reach, no network', async () => {
    expect((await judge(`cat ${outside}/notes.txt`)).subject).toMatchObject({ reach: 'known', network: false });
  });

  it('a write outside the roots is noted as a write', async () => {
    const verdict = await judge(`cp README.md ${outside}/copy.md`);
    expect(verdict.subject?.outside).toContainEqual({ path: join(outside, 'copy.md'), access: 'write', folder: outside });
    expect(verdict.subject?.reach).toBe('known');
  });

  it('a network command: known reach, network', async () => {
    expect((await judge('curl https://example.com')).subject).toMatchObject({ reach: 'known', network: true });
  });

  it.each(['python3 script.py', 'make', 'cat $(ls)', 'sh -c "$X"', 'sudo ls', 'unknown-tool --x', 'tar xf a.tar'])(
    '%s: unknown reach',
    async (command) => {
      expect((await judge(command)).subject?.reach).toBe('unknown');
    },
  );
});

describe('a file inside a root with another name (a hard link) asks before it is read, as file_read asks', () => {
  it.each([
    ['cat notes-copy.txt'],
    ['cat < notes-copy.txt'],
    ['head -c 100 ./notes-copy.txt'],
    ['cat notes-*.txt'],
    ['timeout 5 cat notes-copy.txt'],
    ['grep -h token notes-copy.txt'],
  ])('%s', async (command) => {
    const verdict = await judge(command);
    expect(verdict).toMatchObject({ decision: 'ask', rule: 'shell:hard-link' });
    expect(verdict.reason).toContain('notes-copy.txt, a hard link (the same file has 2 names');
  });

  it('looks only at files whose contents are read: listing it, and reading a file with one name, stay allowed', async () => {
    for (const command of ['ls -l notes-copy.txt', 'stat notes-copy.txt', 'cat a.txt README.md']) {
      expect(await judge(command), command).toMatchObject({ decision: 'allow', rule: 'shell:read-only' });
    }
  });
});
